// SPDX-License-Identifier: GPL-2.0
/*
 * tungro_stacker.c - TEST FIXTURE, not part of tungro. Built next to tungro_kunit.ko for kernels
 * with KUnit (the QEMU test kernels), never for a distribution kernel, and loaded only by the guest
 * agent's K07 checks (qemu/agent/hardening.c; case K07 of gro-cases.md).
 *
 * It stacks on inet_offloads[IPPROTO_IPIP] the way a careless third-party module would: at load it
 * saves whatever the slot holds (the kernel's offload, tungro's, anyone's) without asking whose it
 * is, and publishes its own net_offload whose GRO callbacks call through to the saved one. At
 * unload it puts the saved pointer back if the slot still holds its own (cmpxchg) and waits for
 * every CPU to leave GRO (synchronize_net).
 *
 * One thing such a module would not do, so that a failing check does not take the guest down with
 * it: when the module that owns the saved offload goes away while the stacker still calls into it
 * (a tungro whose exit does not wait for its pointer to come back), the stacker stops calling
 * through, passes IPIP packets up unmerged and pins itself, since it has no valid pointer to put
 * back. The agent then sees a failed check, not an oops.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/netdevice.h>
#include <net/gro.h>
#include <net/protocol.h>

static const struct net_offload *stacker_below;
static struct net_offload stacker_offload;
static bool stacker_orphaned;

static struct sk_buff *tungro_stacker_gro_receive(struct list_head *head, struct sk_buff *skb)
{
	if (READ_ONCE(stacker_orphaned)) {
		NAPI_GRO_CB(skb)->flush = 1;
		return NULL;
	}
	return stacker_below->callbacks.gro_receive(head, skb);
}

static int tungro_stacker_gro_complete(struct sk_buff *skb, int nhoff)
{
	/* orphaned: no GRO callback left that could complete this packet; the stack drops it */
	if (READ_ONCE(stacker_orphaned))
		return -ENOENT;
	return stacker_below->callbacks.gro_complete(skb, nhoff);
}

/* MODULE_STATE_GOING comes after the going module's exit and before its memory is freed (behind an
 * RCU grace period, so a GRO section that still called through has ended by then).
 */
static int tungro_stacker_module_event(struct notifier_block *nb, unsigned long state, void *data)
{
	struct module *mod = data;

	if (state != MODULE_STATE_GOING || READ_ONCE(stacker_orphaned) ||
	    !within_module((unsigned long)stacker_below, mod))
		return NOTIFY_DONE;
	WRITE_ONCE(stacker_orphaned, true);
	__module_get(THIS_MODULE);	/* our callbacks stay in the slot, so we stay too */
	pr_err("%s unloaded while its IPIP offload sat below ours; passing IPIP up unmerged, staying loaded\n",
	       mod->name);
	return NOTIFY_DONE;
}

static struct notifier_block tungro_stacker_nb = { .notifier_call = tungro_stacker_module_event };

/* The IPIP slot of inet_offloads[], as cmpxchg() takes it. */
static const struct net_offload **stacker_slot(void)
{
	return (const struct net_offload __force **)&inet_offloads[IPPROTO_IPIP];
}

static int __init tungro_stacker_init(void)
{
	const struct net_offload *below = rcu_dereference_protected(inet_offloads[IPPROTO_IPIP], 1);
	int err;

	if (!below || !below->callbacks.gro_receive || !below->callbacks.gro_complete)
		return -ENOENT;
	stacker_below = below;
	stacker_offload.flags = below->flags;
	stacker_offload.callbacks.gso_segment = below->callbacks.gso_segment;
	stacker_offload.callbacks.gro_receive = tungro_stacker_gro_receive;
	stacker_offload.callbacks.gro_complete = tungro_stacker_gro_complete;
	err = register_module_notifier(&tungro_stacker_nb);
	if (err)
		return err;
	/* The saved pointer is written before ours is published: a softirq never calls through an
	 * unset pointer.
	 */
	if (cmpxchg(stacker_slot(), below, &stacker_offload) != below) {
		unregister_module_notifier(&tungro_stacker_nb);
		return -EAGAIN;
	}
	pr_info("stacked on inet_offloads[IPPROTO_IPIP], below us: %ps\n",
		below->callbacks.gro_receive);
	return 0;
}

static void __exit tungro_stacker_exit(void)
{
	unregister_module_notifier(&tungro_stacker_nb);
	if (cmpxchg(stacker_slot(), &stacker_offload, stacker_below) != &stacker_offload)
		pr_warn("inet_offloads[IPPROTO_IPIP] no longer ours; left as it is\n");
	synchronize_net();
	pr_info("unstacked, inet_offloads[IPPROTO_IPIP] back to %ps\n",
		stacker_below->callbacks.gro_receive);
}

module_init(tungro_stacker_init);
module_exit(tungro_stacker_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("test fixture: stacks on the IPIP GRO offload slot like a careless third-party module");
