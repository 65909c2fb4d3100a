// SPDX-License-Identifier: GPL-2.0
/*
 * tungro_offload.c - swap the kernel's IPIP and SIT GRO callbacks for tungro's and back.
 *
 * inet_offloads[IPPROTO_IPIP] and inet_offloads[IPPROTO_IPV6] are RCU pointers read by inet_gro_receive() and
 * inet_gro_complete() in softirq context. tungro publishes its own net_offload with one cmpxchg per protocol
 * (never a window with no offload, unlike inet_del_offload + inet_add_offload), keeps the kernel's gso_segment
 * so GSO of tunnel packets is untouched, and on removal puts the saved pointer back and waits for every CPU to
 * leave its GRO section (synchronize_net) before tungro's code may go away. Packets tungro holds at that moment
 * complete through the kernel's own callbacks, which accept them: tungro keeps the kernel's skb conventions
 * (network_offsets, transport header, count, gso_size, ip_fixedid).
 */
#include <linux/netdevice.h>
#include <net/protocol.h>

#include "tungro.h"

const struct net_offload *tungro_orig_ipip;
const struct net_offload *tungro_orig_sit;

static struct net_offload tungro_ipip_offload;
static struct net_offload tungro_sit_offload;

/* Replaces inet_offloads[proto] with @ours, filling its gso_segment from the kernel's. Returns the original. */
static const struct net_offload *tungro_swap_in(int proto, struct net_offload *ours,
						 struct sk_buff *(*rx)(struct list_head *, struct sk_buff *),
						 int (*complete)(struct sk_buff *, int), int *err)
{
	const struct net_offload *orig = rcu_dereference_protected(inet_offloads[proto], 1);

	if (!orig || !orig->callbacks.gro_receive || !orig->callbacks.gro_complete) {
		pr_err("tungro: no kernel offload for IP protocol %d (CONFIG_NET_IPIP/IPV6_SIT?)\n", proto);
		*err = -ENOENT;
		return NULL;
	}
	ours->flags = orig->flags;
	ours->callbacks.gso_segment = orig->callbacks.gso_segment;
	ours->callbacks.gro_receive = rx;
	ours->callbacks.gro_complete = complete;
	if (cmpxchg((const struct net_offload __force **)&inet_offloads[proto], orig, ours) != orig) {
		pr_err("tungro: inet_offloads[%d] changed under us\n", proto);
		*err = -EBUSY;
		return NULL;
	}
	*err = 0;
	return orig;
}

static void tungro_swap_out(int proto, struct net_offload *ours, const struct net_offload *orig)
{
	if (cmpxchg((const struct net_offload __force **)&inet_offloads[proto], ours, orig) != ours)
		pr_warn("tungro: inet_offloads[%d] was replaced by someone else; left as it is\n", proto);
}

int tungro_offloads_install(void)
{
	int err;

	tungro_orig_ipip = tungro_swap_in(IPPROTO_IPIP, &tungro_ipip_offload, tungro_ipip_gro_receive,
					  tungro_ipip_gro_complete, &err);
	if (err)
		return err;
	tungro_orig_sit = tungro_swap_in(IPPROTO_IPV6, &tungro_sit_offload, tungro_sit_gro_receive,
					 tungro_sit_gro_complete, &err);
	if (err) {
		tungro_swap_out(IPPROTO_IPIP, &tungro_ipip_offload, tungro_orig_ipip);
		synchronize_net();
	}
	return err;
}

void tungro_offloads_remove(void)
{
	tungro_swap_out(IPPROTO_IPV6, &tungro_sit_offload, tungro_orig_sit);
	tungro_swap_out(IPPROTO_IPIP, &tungro_ipip_offload, tungro_orig_ipip);
	/* No CPU is inside tungro's callbacks after this: they run under rcu_read_lock in NAPI/softirq context. */
	synchronize_net();
}
