// SPDX-License-Identifier: GPL-2.0
/*
 * tungro_offload.c - swap the kernel's IP-in-IP GRO callbacks for tungro's and back.
 *
 * inet_offloads[IPPROTO_IPIP] (IPIP), inet_offloads[IPPROTO_IPV6] (SIT),
 * inet6_offloads[IPPROTO_IPIP] (ip4ip6) and inet6_offloads[IPPROTO_IPV6] (ip6ip6) are RCU pointers
 * read by inet_gro_receive()/ipv6_gro_receive() and their gro_complete in softirq context (and by
 * fou/gue's gro callbacks, over either outer family).
 * tungro publishes its own net_offload with one cmpxchg per protocol (never a window with no
 * offload, unlike inet_del_offload + inet_add_offload), keeps the kernel's gso_segment so GSO of
 * tunnel packets is untouched, and on removal puts the saved pointer back and waits for every CPU
 * to leave its GRO section (tungro_slots_sync()) before tungro's code may go away. Packets tungro
 * holds at that moment complete through the kernel's own callbacks, which accept them: tungro
 * keeps the kernel's skb conventions (network_offsets, transport header, count, gso_size,
 * ip_fixedid).
 *
 * Only the kernel's own offload is ever replaced. Its net_offload structs are static in built-in
 * code (net/ipv4/af_inet.c, net/ipv6/ip6_offload.c), so a slot pointing into module or vmalloc
 * space belongs to some module that stacked there; tungro refuses to stack on it, since whichever
 * of the two unloads first would leave the other calling into freed text (finding 2 of issue 7,
 * case K07).
 */
#define pr_fmt(fmt) "tungro: " fmt	/* also linked into tungro_kunit.ko: one name in the log */

#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <net/protocol.h>

#include "tungro.h"
#include "tungro_pred.h"
#include "compat/tungro_compat.h"

struct tungro_slot tungro_slots[TUNGRO_SLOT_COUNT] = {
	[TUNGRO_SLOT_IPIP] = { .name = "IPIP", .proto = IPPROTO_IPIP, .encap = TGC_ENCAP_IPIP },
	[TUNGRO_SLOT_SIT] = { .name = "SIT", .proto = IPPROTO_IPV6, .encap = TGC_ENCAP_SIT },
	[TUNGRO_SLOT_IP4IP6] = { .name = "ip4ip6", .proto = IPPROTO_IPIP, .ipv6 = true,
				 .encap = TGC_ENCAP_IP4IP6 },
	[TUNGRO_SLOT_IP6IP6] = { .name = "ip6ip6", .proto = IPPROTO_IPV6, .ipv6 = true,
				 .encap = TGC_ENCAP_IP6IP6 },
};

unsigned long tungro_installed_at;

/*
 * Waits until every CPU has left the GRO section in which it may have read a slot's old pointer:
 * one expedited grace period. GRO runs under rcu_read_lock() in softirq context, which an
 * expedited grace period waits for as synchronize_net() does; it forces the quiescent states
 * with an IPI to each CPU instead of waiting for them to come. That cost is paid once per insmod
 * and rmmod, the kind of blocked administrative operation for which synchronize_net() itself
 * expedites (under RTNL). Measured on the KASAN test kernel under K06's traffic (2 vCPUs in
 * TCG, a loaded host): a normal grace period took 0.3 to 1.3 s of every insmod and of every
 * rmmod, 6.5 s once. rcupdate.rcu_normal=1 (real-time systems) makes it a normal one again.
 */
static void tungro_slots_sync(void)
{
	synchronize_rcu_expedited();
}

/*
 * A kernel without IPv6 has no inet6_offloads[] (it is built in whenever IPv6 is on, =m too): then
 * the IPv6 slots, like SIT's, find no offload and the load is refused (tungro_swap_in()).
 */
static const struct net_offload __rcu **tungro_slot_ptr(const struct tungro_slot *s)
{
#if IS_ENABLED(CONFIG_IPV6)
	if (s->ipv6)
		return &inet6_offloads[s->proto];
#endif
	return &inet_offloads[s->proto];
}

/* The slot's array, for messages. */
static const char *tungro_slot_array(const struct tungro_slot *s)
{
	return s->ipv6 ? "inet6_offloads" : "inet_offloads";
}

static const struct net_offload *tungro_slot_now(const struct tungro_slot *s)
{
	return rcu_dereference_protected(*tungro_slot_ptr(s), 1);
}

/* Whether @ops is the kernel's built-in offload: both GRO callbacks, not in module/vmalloc space */
static bool tungro_is_kernels(const struct net_offload *ops)
{
	return ops && !tungro_is_vmalloc_or_module_addr(ops) && ops->callbacks.gro_receive &&
	       ops->callbacks.gro_complete &&
	       !tungro_is_vmalloc_or_module_addr(ops->callbacks.gro_receive) &&
	       !tungro_is_vmalloc_or_module_addr(ops->callbacks.gro_complete);
}

/* Publishes tungro's offload in @s's slot, saving the kernel's first. 0, -ENOENT or -EBUSY. */
static int tungro_swap_in(struct tungro_slot *s,
			  struct sk_buff *(*rx)(struct list_head *, struct sk_buff *),
			  int (*complete)(struct sk_buff *, int))
{
	const struct net_offload *orig = s->ipv6 && !IS_ENABLED(CONFIG_IPV6) ? NULL :
					 tungro_slot_now(s);

	if (!orig || !orig->callbacks.gro_receive) {
		pr_err("no GRO offload in %s[%d] (%s): is IPv6 off or not loaded yet?\n",
		       tungro_slot_array(s), s->proto, s->name);
		return -ENOENT;
	}
	if (!tungro_is_kernels(orig)) {
		pr_err("refusing to load: %s[%d] (%s) holds another module's offload (gro_receive %ps, gro_complete %ps), not the kernel's; unload that module first\n",
		       tungro_slot_array(s), s->proto, s->name, orig->callbacks.gro_receive,
		       orig->callbacks.gro_complete);
		return -EBUSY;
	}
	s->ours.flags = orig->flags;
	s->ours.callbacks.gso_segment = orig->callbacks.gso_segment;
	s->ours.callbacks.gro_receive = rx;
	s->ours.callbacks.gro_complete = complete;
	/* Saved before it can be needed: the cmpxchg below is a full barrier (tungro_orig()). */
	WRITE_ONCE(s->orig, orig);
	/*
	 * A first install mark once this slot is about to change (never by a refused install), so
	 * that a packet held while the slots change is already judged by its age; set again once
	 * every CPU sees them (tungro_offloads_install()).
	 */
	WRITE_ONCE(tungro_installed_at, jiffies);
	if (cmpxchg((const struct net_offload __force **)tungro_slot_ptr(s), orig,
		    &s->ours) != orig) {
		pr_err("refusing to load: %s[%d] (%s) changed while tungro was installing\n",
		       tungro_slot_array(s), s->proto, s->name);
		return -EBUSY;
	}
	s->installed = true;
	return 0;
}

/*
 * Puts the kernel's offload back in @s's slot. If another module stacked on tungro's offload, waits
 * for it to put tungro's back (its own unload does, if it saved what it replaced), however long
 * that takes: the alternative is a slot that reaches tungro's freed code through that module.
 */
static void tungro_swap_out(struct tungro_slot *s)
{
	unsigned int waited = 0;

	if (!s->installed)
		return;
	for (;;) {
		const struct net_offload *cur;

		cur = cmpxchg((const struct net_offload __force **)tungro_slot_ptr(s), &s->ours,
			      s->orig);
		if (cur == &s->ours)
			break;
		if (cur == s->orig) {
			pr_warn("%s[%d] (%s) already holds the kernel's offload again: someone restored it over tungro's\n",
				tungro_slot_array(s), s->proto, s->name);
			break;
		}
		if (!cur) {
			/*
			 * Emptied (inet_del_offload() of tungro's by another module): nothing
			 * reaches tungro through the slot, and no module will put tungro's back.
			 * Give the kernel's back unless someone fills the slot first (then look
			 * again).
			 */
			if (!cmpxchg((const struct net_offload __force **)tungro_slot_ptr(s), NULL,
				     s->orig)) {
				pr_warn("%s[%d] (%s) was emptied over tungro's; the kernel's offload is back\n",
					tungro_slot_array(s), s->proto, s->name);
				break;
			}
			continue;
		}
		if (waited % 100 == 0)
			pr_err("cannot unload yet: %s[%d] (%s) holds another module's offload stacked on tungro's (gro_receive %ps, gro_complete %ps); waiting %u s for it to put tungro's back (unload that module)\n",
			       tungro_slot_array(s), s->proto, s->name, cur->callbacks.gro_receive,
			       cur->callbacks.gro_complete, waited / 10);
		/* TASK_IDLE: rmmod may wait long here without tripping the hung-task detector. */
		schedule_timeout_idle(HZ / 10);
		waited++;
	}
	if (waited)
		pr_info("%s[%d] (%s) given back to the kernel after %u s\n",
			tungro_slot_array(s), s->proto, s->name, waited / 10);
	s->installed = false;
}

/**
 * tungro_offloads_install() - publish tungro's IPIP, SIT, ip4ip6 and ip6ip6 offloads, saving the
 * kernel's
 *
 * Refuses a slot that does not hold the kernel's own built-in offload (another module's is
 * there: stacking on it would leave one of the two calling freed code); the slots taken before
 * it are given back.
 *
 * The prediction slots (tungro_pred.h) are set up first, unless an install before this one's are
 * still there (it is refused then: its slots hold tungro's own offload).
 *
 * Context: process context, sleeps (a grace period, then until jiffies pass the install).
 * Return: 0, -ENOENT (a slot is empty), -EBUSY (another module's offload), with a message, or
 * -ENOMEM.
 */
int tungro_offloads_install(void)
{
	const bool fresh = !tungro_preds;
	int i, err;

	if (fresh) {
		err = tungro_pred_alloc();
		if (err)
			return err;
	}
	for (i = 0; i < TUNGRO_SLOT_COUNT; i++) {
		err = tungro_swap_in(&tungro_slots[i], tungro_gro_receive_of[i],
				     tungro_gro_complete_of[i]);
		if (err) {
			while (i--)
				tungro_swap_out(&tungro_slots[i]);
			tungro_slots_sync();
			if (fresh)
				tungro_pred_free();
			return err;
		}
	}
	/*
	 * Every CPU that read the old slots has left its GRO section: whatever the kernel's GRO
	 * held through them is now older than tungro_installed_at. Wait for jiffies to move on, so
	 * that everything held from here on is younger and tungro's own held packets are told apart
	 * by their age (tungro_cb.h).
	 */
	tungro_slots_sync();
	WRITE_ONCE(tungro_installed_at, jiffies);
	while (!time_after(jiffies, READ_ONCE(tungro_installed_at)))
		schedule_timeout_uninterruptible(1);
	return 0;
}

/**
 * tungro_offloads_remove() - give the four slots back to the kernel's offloads
 *
 * Waits, logging every 10 s, while another module's offload is stacked on tungro's, until that
 * module puts tungro's back.
 *
 * Context: process context, sleeps (a grace period).
 */
void tungro_offloads_remove(void)
{
	int i;

	for (i = TUNGRO_SLOT_COUNT - 1; i >= 0; i--)
		tungro_swap_out(&tungro_slots[i]);
	/*
	 * No CPU is inside tungro's callbacks after this: they run under rcu_read_lock in
	 * NAPI/softirq context.
	 */
	tungro_slots_sync();
	tungro_pred_free();
}
