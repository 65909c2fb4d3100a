// SPDX-License-Identifier: GPL-2.0
/*
 * tungro_main.c - load and unload: swap the kernel's IPIP and SIT GRO callbacks for tungro's and back.
 *
 * inet_offloads[IPPROTO_IPIP] and inet_offloads[IPPROTO_IPV6] are RCU pointers read by inet_gro_receive() and
 * inet_gro_complete() in softirq context. tungro publishes its own net_offload with one cmpxchg per protocol
 * (never a window with no offload, unlike inet_del_offload + inet_add_offload), keeps the kernel's gso_segment
 * so GSO of tunnel packets is untouched, and at unload puts the saved pointer back and waits for every CPU to
 * leave its GRO section (synchronize_net) before the module text goes away. Packets tungro holds at that moment
 * complete through the kernel's own callbacks, which accept them: tungro keeps the kernel's skb conventions
 * (network_offsets, transport header, count, gso_size, ip_fixedid).
 */
#include <linux/module.h>
#include <net/protocol.h>

#include "tungro.h"
#include "tungro_cb.h"

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

static int __init tungro_init(void)
{
	int err;

	tungro_layout_asserts();
	err = tungro_stats_init();
	if (err)
		return err;

	tungro_orig_ipip = tungro_swap_in(IPPROTO_IPIP, &tungro_ipip_offload, tungro_ipip_gro_receive,
					  tungro_ipip_gro_complete, &err);
	if (err)
		goto out_stats;
	tungro_orig_sit = tungro_swap_in(IPPROTO_IPV6, &tungro_sit_offload, tungro_sit_gro_receive,
					 tungro_sit_gro_complete, &err);
	if (err)
		goto out_ipip;
	pr_info("tungro: IPIP and SIT GRO taken over\n");
	return 0;

out_ipip:
	tungro_swap_out(IPPROTO_IPIP, &tungro_ipip_offload, tungro_orig_ipip);
	synchronize_net();
out_stats:
	tungro_stats_exit();
	return err;
}

static void __exit tungro_exit(void)
{
	tungro_swap_out(IPPROTO_IPV6, &tungro_sit_offload, tungro_orig_sit);
	tungro_swap_out(IPPROTO_IPIP, &tungro_ipip_offload, tungro_orig_ipip);
	/* No CPU is inside tungro's callbacks after this: they run under rcu_read_lock in NAPI/softirq context. */
	synchronize_net();
	tungro_stats_exit();
	pr_info("tungro: IPIP and SIT GRO given back to the kernel\n");
}

module_init(tungro_init);
module_exit(tungro_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tungro: GRO for IPIP and SIT tunnels from a freestanding C++ core");
