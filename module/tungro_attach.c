// SPDX-License-Identifier: GPL-2.0
/*
 * tungro_attach.c - attaching virtio-net devices to tungro's engine path, and detaching them.
 *
 * While a device is attached its own GRO is off (NETIF_F_GRO cleared from wanted_features), so its
 * driver's NAPI hands every frame up unmerged, and tungro's rx_handler moves the frames of TCP,
 * UDP (while UDP GRO is possible: tungro_udp.c) and the IP-in-IP tunnels into the NAPI instance of
 * their receive queue (tungro_engine.c), whose poll runs the engine. The rest goes up at once,
 * counted by kind. What the engine delivers carries a mark in
 * skb->cb that the rx_handler lets pass.
 *
 * Devices are attached by the module parameter attach= at load, and at run time through debugfs
 * tungro/control ("attach eth1", "detach eth1"). Detach, rmmod and the device's unregistration
 * deliver everything queued and held and give the device its GRO back.
 */
#define pr_fmt(fmt) "tungro: " fmt

#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/delay.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/moduleparam.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "tungro.h"
#include "tungro_attach.h"
#include "tungro_cb.h"
#include "tungro_engine.h"

static char *attach;
module_param(attach, charp, 0444);
MODULE_PARM_DESC(attach,
		 "virtio-net devices of the initial network namespace to attach to the engine at load, comma-separated: attach=eth1,eth2 (default: none; one refused device refuses the load)");
static unsigned int buckets = TGC_ENGINE_BUCKETS;
module_param(buckets, uint, 0444);
MODULE_PARM_DESC(buckets,
		 "engine hash buckets per receive queue of an attached device: a power of two, 1..256 (default 8)");
static unsigned int flows = TGC_ENGINE_FLOWS;
module_param(flows, uint, 0444);
MODULE_PARM_DESC(flows,
		 "held flows (GRO packets) per engine bucket, 1..256 (default 8); each queue holds up to buckets x flows");
static bool kernel_hash;
module_param(kernel_hash, bool, 0444);
MODULE_PARM_DESC(kernel_hash,
		 "engine bucket from skb->hash as 6.12's GRO does (virtio-net without hash reports gives 0: one bucket) instead of tungro's flow hash: 0 or 1 (default 0)");
static bool ipv4_options = true;
module_param(ipv4_options, bool, 0444);
MODULE_PARM_DESC(ipv4_options,
		 "engine merges IPv4 headers with options (IHL > 5) when the options are byte-identical and none is of the deny-list (source route, record route, timestamp, router alert, security, CIPSO, ...); 0: never, as 6.12's GRO (the offload path never does): 0 or 1 (default 1)");

/* 1 only in scripts/gate-proof.sh's build: the detach-order bug on purpose (tungro_detach()) */
#ifndef TUNGRO_PROOF_LATE_GRO
#define TUNGRO_PROOF_LATE_GRO 0
#endif

/* How long a detach waits for the queues to drain before it unhooks anyway. */
#define TUNGRO_DRAIN_MS 1000

static LIST_HEAD(tungro_devs);	/* attached devices, under rtnl */
/* Since load, under rtnl: detaches, and what they delivered or found left over (tungro/control). */
static u64 tungro_detaches, tungro_detach_held, tungro_detach_queued, tungro_detach_left;
static u64 tungro_detach_leaked;
/* Detaches whose kick moved a queue's polls to another CPU (the frames' since the last poll) */
static u64 tungro_detach_moved;
/* Attaches that found the device's NAPI holding packets when disabled (tungro_napi_flush_held()) */
static u64 tungro_attach_flushed;
static struct dentry *tungro_control;

static struct tungro_dev *tungro_find(const struct net_device *dev)
{
	struct tungro_dev *td;

	list_for_each_entry(td, &tungro_devs, node)
		if (td->dev == dev)
			return td;
	return NULL;
}

/*
 * The byte at @off from the network header, if the frame holds at least @len bytes; read where it
 * is, so headers that sit in a page frag stay there (the engine reads them in place).
 */
static bool tungro_peek(const struct sk_buff *skb, unsigned int len, unsigned int off, u8 *byte)
{
	const u8 *at;

	if (skb->len < len)
		return false;
	at = skb_header_pointer(skb, off, 1, byte);
	if (!at)
		return false;
	*byte = *at;
	return true;
}

/* TUNGRO_NH_COUNT for the frames the engine takes, else the kind it does not handle. */
static unsigned int tungro_kind(const struct sk_buff *skb)
{
	u8 proto;

	switch (skb->protocol) {
	case htons(ETH_P_IP):
		if (!tungro_peek(skb, sizeof(struct iphdr), offsetof(struct iphdr, protocol),
				 &proto))
			return TUNGRO_NH_OTHER;
		if (proto == IPPROTO_TCP || proto == IPPROTO_IPIP || proto == IPPROTO_IPV6)
			return TUNGRO_NH_COUNT;
		break;
	case htons(ETH_P_IPV6):
		if (!tungro_peek(skb, sizeof(struct ipv6hdr), offsetof(struct ipv6hdr, nexthdr),
				 &proto))
			return TUNGRO_NH_OTHER;
		/* TCP, ip4ip6 and ip6ip6, and what hides behind the extension headers the core
		 * walks (it passes what it cannot merge, in order, with a reason)
		 */
		if (proto == IPPROTO_TCP || proto == IPPROTO_IPIP || proto == IPPROTO_IPV6 ||
		    proto == NEXTHDR_HOP || proto == NEXTHDR_DEST || proto == NEXTHDR_ROUTING)
			return TUNGRO_NH_COUNT;
		break;
	default:
		return TUNGRO_NH_OTHER;
	}
	if (proto == IPPROTO_GRE)
		return TUNGRO_NH_GRE;
	if (proto == IPPROTO_UDP)
		return TUNGRO_NH_UDP;
	return TUNGRO_NH_OTHER;
}

/*
 * The attached device's rx_handler: runs for every frame its driver hands up (on the CPU RPS
 * picked, if RPS is on), and again for every packet tungro's NAPI delivers, which it recognises by
 * the mark in skb->cb.
 */
static rx_handler_result_t tungro_rx_handler(struct sk_buff **pskb)
{
	struct sk_buff *skb = *pskb;
	struct tungro_dev *td;
	struct tungro_rxq *q;
	unsigned int kind;

	if (tungro_cb_has_mark(skb, TUNGRO_CB_DELIVERED)) {
		tungro_cb_reset(skb);
		return RX_HANDLER_PASS;
	}
	td = rcu_dereference(skb->dev->rx_handler_data);
	if (READ_ONCE(td->rx_cpu) != smp_processor_id())
		WRITE_ONCE(td->rx_cpu, smp_processor_id());
	skb = skb_share_check(skb, GFP_ATOMIC);
	if (!skb)
		return RX_HANDLER_CONSUMED;
	*pskb = skb;
	kind = tungro_kind(skb);
	q = &td->rxq[skb_rx_queue_recorded(skb) ? skb_get_rx_queue(skb) % td->nq : 0];
	/*
	 * Plain UDP goes to the engine while a UDP_GRO socket or the device's features make UDP
	 * GRO possible (the engine asks for each datagram), and while the queue has packets in
	 * flight or last polled on another CPU: a datagram passed up here then would overtake
	 * earlier ones of its flow (the closing path's rule below). Otherwise it goes up at once,
	 * counted.
	 */
	if (kind == TUNGRO_NH_UDP &&
	    (tungro_udp_gro_possible(skb->dev) || atomic_read(&td->inflight) ||
	     READ_ONCE(q->poll_cpu) != smp_processor_id()))
		kind = TUNGRO_NH_COUNT;
	if (kind < TUNGRO_NH_COUNT) {
		atomic64_inc(&td->not_handled[kind]);
		return RX_HANDLER_PASS;
	}
	/*
	 * Detaching: once nothing is queued or held, frames go up directly and stay in order, if
	 * the queue's last poll ran on this CPU: what it delivered is ahead of them in this CPU's
	 * backlog and in the tunnels' per-CPU gro_cells. Otherwise this frame is queued and the
	 * poll it schedules runs here.
	 */
	if (READ_ONCE(td->closing) && !atomic_read(&td->inflight) &&
	    READ_ONCE(q->poll_cpu) == smp_processor_id())
		return RX_HANDLER_PASS;
	tungro_rxq_enqueue(q, skb);
	return RX_HANDLER_CONSUMED;
}

static int tungro_dev_stats_show(struct seq_file *m, void *unused)
{
	return tungro_engine_show(m, m->private);
}
DEFINE_SHOW_ATTRIBUTE(tungro_dev_stats);

static bool tungro_is_virtio_net(const struct net_device *dev)
{
	const struct device *parent = dev->dev.parent;

	return parent && parent->driver && parent->driver->name &&
	       !strcmp(parent->driver->name, "virtio_net");
}

/*
 * Delivers what a disabled NAPI instance @napi of the device still holds in its GRO lists. With
 * gro_flush_timeout or napi_defer_hard_irqs set, a completing poll keeps the packets of the last
 * jiffy held and arms a timer, which napi_disable() cancels: held on, they would go up only at the
 * end of the first poll without GRO, behind the later segments of their flows that poll passes up.
 * The instance is ours while disabled. They go up through the rx_handler (registered already) into
 * tungro's queue, ahead of every frame a later poll brings. netif_receive_skb_list() stands in for
 * gro_normal_list(), whose netif_receive_skb_list_internal() is not exported.
 */
static void tungro_napi_flush_held(struct napi_struct *napi)
{
	if (!napi->gro_bitmask && !napi->rx_count)
		return;
	local_bh_disable();
	napi_gro_flush(napi, false);
	if (napi->rx_count) {
		netif_receive_skb_list(&napi->rx_list);
		INIT_LIST_HEAD(&napi->rx_list);
		napi->rx_count = 0;
	}
	local_bh_enable();
	tungro_attach_flushed++;
}

/*
 * Clears NETIF_F_GRO of a running device with its NAPI instances quiet. A NAPI that holds packets
 * in its GRO lists when GRO goes off hands the flow's later segments up first: dev_gro_receive()
 * stops merging at once and delivers them in gro_normal_batch lists, while the held packets wait
 * for the end of the poll (the 100-cycle attach/detach guest check counted hundreds of
 * out-of-order segments at the receiver). napi_disable() returns after a completing poll, which
 * flushed those lists. Only instances with a weight: virtio-net never enables a TX NAPI of weight
 * 0. (GRO going on needs none of this: what a poll held is flushed after what it passed.)
 *
 * An interrupt that came while a NAPI was off is lost (its virtqueue raises no other), so each is
 * scheduled once after napi_enable(), as virtio-net does itself, on the CPU where the device's
 * frames arrive (seen by the rx_handler, registered before this): a poll on the attaching task's
 * CPU would send the first frames through a tunnel's per-CPU gro_cells there, while earlier ones
 * of their flow may still wait in the other CPU's. Without traffic for 20 ms, which CPU runs the
 * first poll does not matter.
 */
static void tungro_gro_off(struct tungro_dev *td)
{
	struct net_device *dev = td->dev;
	bool quiet = netif_running(dev);
	struct napi_struct *napi;
	int i, cpu;

	for (i = 0; quiet && i < 20 && READ_ONCE(td->rx_cpu) < 0; i++)
		usleep_range(1000, 1500);
	if (quiet)
		list_for_each_entry(napi, &dev->napi_list, dev_list)
			if (napi->weight) {
				napi_disable(napi);
				tungro_napi_flush_held(napi);
			}
	dev->wanted_features &= ~NETIF_F_GRO;
	netdev_update_features(dev);
	if (!quiet)
		return;
	cpu = READ_ONCE(td->rx_cpu);
	list_for_each_entry(napi, &dev->napi_list, dev_list) {
		if (!napi->weight)
			continue;
		napi_enable(napi);
		tungro_napi_schedule_on(napi, cpu);	/* cpu -1: no frame seen yet */
	}
}

/* Gives the device its GRO back, if it had it before the attach. Under rtnl. */
static void tungro_gro_back(struct tungro_dev *td)
{
	if (td->gro_was_wanted) {
		td->dev->wanted_features |= NETIF_F_GRO;
		netdev_update_features(td->dev);
	}
}

/*
 * Unhooks and frees @td. @gone: the device is being unregistered (no wait, no feature change).
 * Built with TUNGRO_PROOF_LATE_GRO (scripts/gate-proof.sh alone), it gives the device its GRO back
 * after the rx_handler is gone: the order explained below, on purpose, so that the guest check
 * engine_loop_tcp can be seen to fail on it.
 */
static void tungro_detach(struct tungro_dev *td, bool gone)
{
	struct net_device *dev = td->dev;
	unsigned int i, waited = 0;

	ASSERT_RTNL();
	debugfs_remove_recursive(td->dir);
	for (i = 0; i < td->nq; i++) {
		tungro_detach_held += READ_ONCE(td->rxq[i].snap.held_now);
		tungro_detach_queued += skb_queue_len_lockless(&td->rxq[i].input);
	}
	if (!gone) {
		/*
		 * The device's GRO comes back first, with the rx_handler still in place: then the
		 * frames that pass it directly below go up merged. Passed up one by one instead
		 * (GRO off until the handler was gone), a few dozen frames per detach, their flows
		 * came out of order at the receiver as they do with the kernel's GRO off: the
		 * 100-cycle attach/detach guest check counted 340-590 TCPOFOQueue against 0-80
		 * for the kernel's GRO alone, and 2-20 with GRO back first.
		 */
		if (!TUNGRO_PROOF_LATE_GRO)
			tungro_gro_back(td);
		/*
		 * Then drain with the rx_handler still in place: it keeps queueing while anything
		 * is queued or held and passes frames directly once nothing is, so no later frame
		 * overtakes an earlier one of its flow when the handler goes.
		 */
		WRITE_ONCE(td->closing, true);
		for (i = 0; i < td->nq; i++) {
			if (READ_ONCE(td->rxq[i].poll_cpu) != READ_ONCE(td->rxq[i].cpu))
				tungro_detach_moved++;
			tungro_rxq_kick(&td->rxq[i]);
		}
		while (atomic_read(&td->inflight) && waited < TUNGRO_DRAIN_MS) {
			usleep_range(500, 1000);
			waited++;
		}
	}
	/* synchronize_net() inside: no rx_handler runs after this */
	netdev_rx_handler_unregister(dev);
	if (TUNGRO_PROOF_LATE_GRO && !gone)
		tungro_gro_back(td);
	for (i = 0; i < td->nq; i++)
		tungro_rxq_stop(&td->rxq[i], gone, &tungro_detach_left, &tungro_detach_left);
	/* Every skb the rx_handler took was delivered or freed by now. */
	if (WARN_ON_ONCE(atomic_read(&td->inflight)))
		tungro_detach_leaked += atomic_read(&td->inflight);
	tungro_detaches++;

	for (i = 0; i < td->nq; i++)
		tungro_rxq_free(&td->rxq[i]);
	tungro_napi_dev_free(td->napi_dev);
	list_del(&td->node);
	pr_info("%s detached%s, GRO %s\n", dev->name, gone ? " (device going away)" : "",
		gone ? "left as is" : td->gro_was_wanted ? "back on" : "stays off as before");
	netdev_put(dev, NULL);
	kfree(td);
}

/* Attaches device @name of the initial namespace. Under rtnl. 0 or -errno, with a message. */
static int tungro_attach_name(const char *name)
{
	struct net_device *dev = __dev_get_by_name(&init_net, name);
	struct tungro_dev *td;
	unsigned int i, nq;
	int err;

	ASSERT_RTNL();
	if (!dev) {
		pr_err("attach %s: no such network device (in the initial namespace)\n", name);
		return -ENODEV;
	}
	if (tungro_find(dev)) {
		pr_err("attach %s: already attached\n", name);
		return -EEXIST;
	}
	if (!tungro_is_virtio_net(dev)) {
		const struct device *parent = dev->dev.parent;

		pr_err("attach %s: not a virtio-net device (driver %s): tungro hooks virtio-net only\n",
		       name, parent && parent->driver ? parent->driver->name : "none");
		return -EOPNOTSUPP;
	}
	if (netdev_is_rx_handler_busy(dev)) {
		pr_err("attach %s: the device already has an rx_handler (%ps): a bridge, bond, team or macvlan port?\n",
		       name, rtnl_dereference(dev->rx_handler));
		return -EBUSY;
	}
	nq = max(dev->real_num_rx_queues, 1U);
	td = kzalloc(struct_size(td, rxq, nq), GFP_KERNEL);
	if (!td)
		return -ENOMEM;
	td->dev = dev;
	td->nq = nq;
	td->rx_cpu = -1;
	td->napi_dev = tungro_napi_dev_alloc();
	if (!td->napi_dev) {
		err = -ENOMEM;
		goto free_td;
	}
	for (i = 0; i < nq; i++) {
		err = tungro_rxq_init(&td->rxq[i], td, buckets, flows,
				      (kernel_hash ? TGC_ENGINE_CALLER_HASH : 0) |
				      (ipv4_options ? TGC_ENGINE_IPV4_OPTIONS : 0));
		if (err)
			goto stop_queues;
	}
	err = netdev_rx_handler_register(dev, tungro_rx_handler, td);
	if (err)
		goto stop_queues;
	netdev_hold(dev, NULL, GFP_KERNEL);
	td->gro_was_wanted = dev->wanted_features & NETIF_F_GRO;
	tungro_gro_off(td);
	list_add_tail(&td->node, &tungro_devs);
	td->dir = debugfs_create_dir(dev->name, tungro_debugfs_root());
	debugfs_create_file("stats", 0444, td->dir, td, &tungro_dev_stats_fops);
	pr_info("%s attached: %u receive queue%s, engine %u x %u (%s hash), kernel GRO off\n", name,
		nq, nq == 1 ? "" : "s", buckets, flows, kernel_hash ? "the kernel's" : "tungro's");
	return 0;

stop_queues:
	while (i--) {
		u64 none = 0;

		tungro_rxq_stop(&td->rxq[i], false, &none, &none);
		tungro_rxq_free(&td->rxq[i]);
	}
	tungro_napi_dev_free(td->napi_dev);
free_td:
	kfree(td);
	pr_err("attach %s: %d\n", name, err);
	return err;
}

static int tungro_detach_name(const char *name)
{
	struct net_device *dev = __dev_get_by_name(&init_net, name);
	struct tungro_dev *td = dev ? tungro_find(dev) : NULL;

	ASSERT_RTNL();
	if (!td) {
		pr_err("detach %s: %s\n", name, dev ? "not attached" : "no such network device");
		return dev ? -ENOENT : -ENODEV;
	}
	tungro_detach(td, false);
	return 0;
}

/*
 * tungro/control: "attach DEV" or "detach DEV", one per write. Reading lists the attached devices
 * and what detaches found and delivered: packets held and skbs queued when they began, what was
 * still there after the drain (left, delivered by the stop), and leaked (always 0).
 */
static ssize_t tungro_control_write(struct file *file, const char __user *ubuf, size_t len,
				    loff_t *ppos)
{
	char buf[64], *name, *cmd;
	int err;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	name = strim(buf);
	cmd = strsep(&name, " \t");
	name = name ? skip_spaces(name) : NULL;
	if (!name || !*name || strlen(name) >= IFNAMSIZ ||
	    (strcmp(cmd, "attach") && strcmp(cmd, "detach"))) {
		pr_err("control: expected 'attach DEV' or 'detach DEV'\n");
		return -EINVAL;
	}
	rtnl_lock();
	err = cmd[0] == 'a' ? tungro_attach_name(name) : tungro_detach_name(name);
	rtnl_unlock();
	return err ? err : len;
}

static int tungro_control_show(struct seq_file *m, void *unused)
{
	struct tungro_dev *td;

	rtnl_lock();
	list_for_each_entry(td, &tungro_devs, node)
		seq_printf(m, "attached %s\n", td->dev->name);
	seq_printf(m, "detaches %llu\ndetach_held %llu\ndetach_queued %llu\n", tungro_detaches,
		   tungro_detach_held, tungro_detach_queued);
	seq_printf(m, "detach_left %llu\ndetach_leaked %llu\nattach_flushed %llu\n",
		   tungro_detach_left, tungro_detach_leaked, tungro_attach_flushed);
	seq_printf(m, "detach_moved %llu\n", tungro_detach_moved);
	rtnl_unlock();
	return 0;
}

static int tungro_control_open(struct inode *inode, struct file *file)
{
	return single_open(file, tungro_control_show, NULL);
}

static const struct file_operations tungro_control_fops = {
	.owner = THIS_MODULE,
	.open = tungro_control_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = tungro_control_write,
};

static int tungro_netdev_event(struct notifier_block *nb, unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct tungro_dev *td;

	if (event != NETDEV_UNREGISTER)
		return NOTIFY_DONE;
	td = tungro_find(dev);
	if (td)
		tungro_detach(td, true);
	return NOTIFY_DONE;
}

static struct notifier_block tungro_netdev_nb = {
	.notifier_call = tungro_netdev_event,
};

static void tungro_detach_all(void)
{
	struct tungro_dev *td, *tmp;

	rtnl_lock();
	list_for_each_entry_safe(td, tmp, &tungro_devs, node)
		tungro_detach(td, false);
	rtnl_unlock();
}

/**
 * tungro_attach_init() - the engine path at load: notifier, debugfs control, devices of attach=
 *
 * Return: 0, or -errno when the parameters are invalid or a device of attach= cannot be attached
 * (the load is then refused, with a message naming the device and why, and nothing stays attached).
 */
int tungro_attach_init(void)
{
	char *list, *cur, *name;
	int err;

	if (TUNGRO_PROOF_LATE_GRO)
		pr_warn("built with TUNGRO_PROOF_LATE_GRO: detaches reorder on purpose (scripts/gate-proof.sh)\n");
	if (!tgc_engine_size(buckets, flows)) {
		pr_err("buckets=%u flows=%u: buckets a power of two 1..256, flows 1..256\n",
		       buckets, flows);
		return -EINVAL;
	}
	err = register_netdevice_notifier(&tungro_netdev_nb);
	if (err)
		return err;
	if (attach && *attach) {
		list = kstrdup(attach, GFP_KERNEL);
		if (!list) {
			err = -ENOMEM;
			goto unregister;
		}
		cur = list;
		rtnl_lock();
		while ((name = strsep(&cur, ","))) {
			name = strim(name);
			if (!*name || strlen(name) >= IFNAMSIZ) {
				pr_err("attach=%s: empty or too long device name\n", attach);
				err = -EINVAL;
			} else {
				err = tungro_attach_name(name);
			}
			if (err)
				break;
		}
		rtnl_unlock();
		kfree(list);
		if (err) {
			pr_err("refusing to load: attach=%s failed\n", attach);
			goto detach;
		}
	}
	tungro_control = debugfs_create_file("control", 0600, tungro_debugfs_root(), NULL,
					     &tungro_control_fops);
	return 0;

detach:
	tungro_detach_all();
unregister:
	unregister_netdevice_notifier(&tungro_netdev_nb);
	return err;
}

/**
 * tungro_attach_exit() - the engine path at unload: detach every device, delivering what it holds
 */
void tungro_attach_exit(void)
{
	debugfs_remove(tungro_control);	/* waits for a control write under way */
	tungro_detach_all();
	unregister_netdevice_notifier(&tungro_netdev_nb);
}
