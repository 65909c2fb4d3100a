// SPDX-License-Identifier: GPL-2.0
/*
 * tungro_engine.c - the skb side of the core's engine on an attached device: one NAPI instance per
 * receive queue takes the skbs tungro's rx_handler queued, runs them through tgc_engine_receive(),
 * and delivers unmerged segments and completed GRO packets in lists, flushing as 6.12's NAPI does.
 *
 * The engine's ops are the offload path's skb mechanics (tungro_append(), tungro_gso_fixup() of
 * tungro_gro.c); the skbs here are no longer in the kernel's GRO, so their NAPI_GRO_CB() is
 * tungro's to use.
 */
#define pr_fmt(fmt) "tungro: " fmt

#include <linux/ipv6.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/udp.h>
#include <net/checksum.h>
#include <net/gro.h>
#include <net/ip6_checksum.h>

#include "tungro.h"
#include "tungro_cb.h"
#include "tungro_engine.h"
#include "tungro_trace.h"

static void tungro_q_count(struct tungro_rxq *q, unsigned int idx, u64 n)
{
	q->acc[idx] += n;
}

/* Publishes the poll's counters and the engine's for debugfs readers. */
static void tungro_rxq_publish(struct tungro_rxq *q)
{
	unsigned int i;

	u64_stats_update_begin(&q->syncp);
	for (i = 0; i < TUNGRO_Q_COUNT; i++)
		u64_stats_set(&q->c[i], q->acc[i]);
	tgc_engine_get_stats(q->engine, &q->snap);
	u64_stats_update_end(&q->syncp);
}

/*
 * Hands the queued packets to the stack in one list. Each carries TUNGRO_CB_DELIVERED, so tungro's
 * rx_handler lets it pass when it meets it again, here or on the CPU RPS picks.
 */
static void tungro_rxq_deliver(struct tungro_rxq *q)
{
	unsigned int n = q->out_pkts;
	struct sk_buff *skb, *next;

	/*
	 * The merged segments leave the in-flight count here, one atomic a list or poll rather than
	 * one a segment: a count too high for a while only keeps the rx_handler queueing (its
	 * order rules) and a detach waiting, never lets either pass early.
	 */
	if (q->merged) {
		atomic_sub(q->merged, &q->td->inflight);
		q->merged = 0;
	}
	if (!n)
		return;
	tungro_q_count(q, TUNGRO_Q_LISTS, 1);
	tungro_q_count(q, TUNGRO_Q_LIST_PKTS, n);
	tungro_q_count(q, TUNGRO_Q_LIST_SEGS, q->out_segs);
	trace_tungro_deliver(q->td->dev, q - q->td->rxq, n, q->out_segs, q->direct);
	if (q->direct) {
		/* The device is being unregistered, its backlogs flushed: no RPS from here on. */
		list_for_each_entry_safe(skb, next, &q->out, list) {
			skb_list_del_init(skb);
			netif_receive_skb_core(skb);
		}
	} else {
		netif_receive_skb_list(&q->out);
	}
	INIT_LIST_HEAD(&q->out);
	q->out_pkts = 0;
	q->out_segs = 0;
	atomic_sub(n, &q->td->inflight);
}

/* Queues @skb (@segs wire segments) for delivery; a list goes up at gro_normal_batch segments. */
static void tungro_rxq_out(struct tungro_rxq *q, struct sk_buff *skb, unsigned int segs)
{
	tungro_cb_reset(skb);
	tungro_cb_set_mark(skb, TUNGRO_CB_DELIVERED);
	list_add_tail(&skb->list, &q->out);
	q->out_pkts++;
	q->out_segs += segs;
	if (q->out_segs >= tungro_gro_normal_batch())
		tungro_rxq_deliver(q);
}

/*
 * Frees a segment whose payload now belongs to a held packet, as NAPI_GRO_CB(skb)->free says and as
 * napi_skb_finish() frees the kernel's merged segments: into this CPU's NAPI skb cache, which the
 * driver's next napi_build_skb()/napi_alloc_skb() takes from. Softirq: a NAPI poll, or a stop with
 * BH off. The rx_handler's skb_share_check() made tungro the skb's only user.
 */
static void tungro_free_merged(struct sk_buff *skb)
{
	switch (NAPI_GRO_CB(skb)->free) {
	case NAPI_GRO_FREE_STOLEN_HEAD:
		/*
		 * Its head page went to the held packet as a frag, with this skb's reference, and
		 * its frags after it: only the sk_buff is left to free (napi_skb_free_stolen_head()
		 * is not exported; TCP's coalescing frees a stolen head's skb this way).
		 */
		kfree_skb_partial(skb, true);
		break;
	case NAPI_GRO_FREE:
		napi_consume_skb(skb, 1);
		break;
	default:
		break;	/* chained on the held packet's frag_list: it lives on there */
	}
}

static int tungro_op_append(void *ctx, void *held, void *seg, const struct tgc_merge *m)
{
	struct tungro_rxq *q = ctx;
	struct sk_buff *p = held, *skb = seg;
	bool first = !skb_is_gso(p);

	NAPI_GRO_CB(skb)->data_offset = m->pkt->payload_off;
	/*
	 * A packet held with its headers in place in its first frag (tungro_gro_reset_offset()) has
	 * them pulled when it first gets a merge: its completion patches them (tgc_finish()), and
	 * the flags below. A failed pull completes it as it is and holds the segment.
	 */
	if (skb_headlen(p) < m->pkt->payload_off && !pskb_may_pull(p, m->pkt->payload_off))
		return -1;
	/*
	 * The held packet's MSS, which the kernel sets when it holds a packet: tungro_append()
	 * needs it once the frags are full (a frag_list member must not carry more linear payload
	 * than one MSS). Cleared again if this first merge fails, so a one-segment packet never
	 * looks like GSO.
	 */
	if (first)
		skb_shinfo(p)->gso_size = p->len - m->pkt->payload_off;
	if (tungro_append(p, skb)) {
		if (first && NAPI_GRO_CB(p)->count == 1)
			skb_shinfo(p)->gso_size = 0;
		return -1;
	}
	if (m->flags_off < skb_headlen(p))
		p->data[m->flags_off] |= m->held_flags;
	tungro_free_merged(skb);
	q->merged++;
	return 0;
}

static void tungro_op_complete(void *ctx, void *held, const struct tgc_done *d)
{
	struct tungro_rxq *q = ctx;
	struct sk_buff *p = held;
	struct tgc_completion c;

	if (d->count >= 2) {
		if (skb_headlen(p) < d->first.payload_off || p->len != d->total_len ||
		    tgc_finish(p->data, d->total_len, d, &c)) {
			tungro_q_count(q, TUNGRO_Q_FINISH_FAILED, 1);
		} else {
			skb_shinfo(p)->gso_size = d->gso_size;
			tungro_gso_fixup(p, d->first.inner_off, d->first.encap, &c, d->count);
			tungro_q_count(q, TUNGRO_Q_COMPLETED, 1);
			tungro_q_count(q, TUNGRO_Q_HIST + tgc_hist_bucket(d->count), 1);
		}
	}
	tungro_rxq_out(q, p, d->count);
}

static void tungro_op_deliver(void *ctx, void *seg, const struct tgc_rx_result *r)
{
	struct sk_buff *skb = seg;

	tungro_rxq_out(ctx, skb, NAPI_GRO_CB(skb)->count);
}

static const struct tgc_engine_ops tungro_engine_ops = {
	.append = tungro_op_append,
	.complete = tungro_op_complete,
	.deliver = tungro_op_deliver,
};

/*
 * Whether the TCP (or UDP, with TGC_IN_UDP_GRO) checksum of a segment the device gave no checksum
 * help for is wrong. Only segments the core accepts are looked at, parsed as @q's engine parses
 * them (IPv4 options with TGC_ENGINE_IPV4_OPTIONS; the rest is never merged); the kernel's GRO
 * validates the same way before merging (udp4/6_gro_receive: a zero UDP checksum is not checked,
 * and never merged), and a merged packet goes up as CHECKSUM_PARTIAL, never checked
 * again.
 */
static bool tungro_csum_bad(const struct tungro_rxq *q, struct sk_buff *skb,
			    const struct tgc_seg *seg)
{
	const struct ipv6hdr *ip6;
	struct tgc_pkt pkt;
	unsigned int len;
	__be32 s4, d4;
	const u8 *nh;
	__wsum sum;
	u8 proto;

	if (tgc_parse_as(seg->hdr, seg->hdr_len, seg->pkt_len, seg->encap, q->flags, seg->in,
			 &pkt) != TGC_R_NONE)
		return false;
	proto = tgc_pkt_is_udp(&pkt) ? IPPROTO_UDP : IPPROTO_TCP;
	if (proto == IPPROTO_UDP && !((const struct udphdr *)(seg->hdr + pkt.tcp_off))->check)
		return false;
	nh = seg->hdr + pkt.inner_off;
	len = pkt.payload_off + pkt.payload_len - pkt.tcp_off;
	sum = skb_checksum(skb, pkt.tcp_off, len, 0);
	if (pkt.inner_version == 4) {
		memcpy(&s4, nh + 12, 4);
		memcpy(&d4, nh + 16, 4);
		return csum_tcpudp_magic(s4, d4, len, proto, sum) != 0;
	}
	/*
	 * The addresses in place, never copies: m68k's csum_ipv6_magic() reads them in asm that
	 * does not tell the compiler it reads memory, so stores to a local copy may be dropped
	 * (found on m68k: every SIT segment failed its checksum).
	 */
	ip6 = (const struct ipv6hdr *)nh;
	return csum_ipv6_magic(&ip6->saddr, &ip6->daddr, len, proto, sum) != 0;
}

/*
 * tgc_engine_receive() with the tungro_flush tracepoint enabled: the segment's flow hash is taken
 * before the engine runs (it may deliver the skb), the reason from its result after.
 */
static void tungro_rxq_receive_traced(struct tungro_rxq *q, const struct tgc_seg *seg,
				      struct sk_buff *skb)
{
	u32 hash = tungro_seg_hash(seg);
	struct tgc_rx_result r;

	tgc_engine_receive(q->engine, seg, skb, &r);
	if (r.v.reason)
		trace_tungro_flush(r.v.reason, TUNGRO_LAYER_ENGINE, seg->encap, hash,
				   seg->gso_segs ? seg->gso_segs : 1, seg->pkt_len,
				   r.v.flush_held && r.held);
}

/*
 * NAPI_GRO_CB(skb)->frag0 as napi_gro_receive() sets it for the kernel's GRO
 * (skb_gro_reset_offset() of net/core/gro.c, static, re-implemented here): the linear part,
 * or, when nothing is linear (virtio-net's mergeable buffers copy only the Ethernet header of a
 * full-size frame to the head), the first page frag if its page is mapped and the IP header
 * aligned as the arch asks. tungro_header_view() then reads the headers in place, so a segment
 * that merges never has them copied; a held packet's are pulled at its first merge
 * (tungro_op_append()).
 */
static void tungro_gro_reset_offset(struct sk_buff *skb)
{
	const skb_frag_t *f0 = &skb_shinfo(skb)->frags[0];

	NAPI_GRO_CB(skb)->frag0 = skb->data;
	NAPI_GRO_CB(skb)->frag0_len = skb_headlen(skb);
	if (skb_headlen(skb) || !skb_shinfo(skb)->nr_frags || PageHighMem(skb_frag_page(f0)) ||
	    (NET_IP_ALIGN && (skb_frag_off(f0) & 3)))
		return;
	NAPI_GRO_CB(skb)->frag0 = skb_frag_address(f0);
	NAPI_GRO_CB(skb)->frag0_len = min(skb_frag_size(f0), skb->len);
}

/* One skb into the engine: it ends appended, held, or queued for delivery. */
static void tungro_rxq_feed(struct tungro_rxq *q, struct sk_buff *skb, unsigned long now)
{
	struct tgc_seg seg = { .time = (u32)now };
	unsigned int encap;

	memset(skb->cb, 0, sizeof(skb->cb));
	NAPI_GRO_CB(skb)->count = 1;
	/* A tap before the rx_handler (ETH_P_ALL) may share the head, and tungro writes headers. */
	if (skb_cloned(skb) && pskb_expand_head(skb, 0, 0, GFP_ATOMIC)) {
		tungro_q_count(q, TUNGRO_Q_UNCLONE_FAILED, 1);
		goto pass;
	}
	/* From the outer IP header on; the tunnel is told after every step. */
	tungro_gro_reset_offset(skb);
	seg.hdr = tungro_header_view(skb, 0, skb->protocol == htons(ETH_P_IP) ?
				     sizeof(struct iphdr) : sizeof(struct ipv6hdr), true, &encap,
				     &seg.hdr_len);
	/* last shares frag0's place in 6.12's NAPI_GRO_CB: set once the headers are read */
	NAPI_GRO_CB(skb)->last = skb;
	if (!seg.hdr) {
		tungro_q_count(q, TUNGRO_Q_HDR_FAILED, 1);
		goto pass;
	}
	seg.encap = encap;
	seg.pkt_len = skb->len;
	/* What 6.12's GRO buckets by; 0 from virtio-net without hash reports. */
	seg.hash = skb->hash;
	if (skb_is_gso(skb)) {
		/* As dev_gro_receive: an arrival that is already GSO stands for its segments, and
		 * only trusted TCP GSO may merge.
		 */
		seg.gso_size = skb_shinfo(skb)->gso_size;
		seg.gso_segs = max_t(u16, skb_shinfo(skb)->gso_segs, 1);
		NAPI_GRO_CB(skb)->count = seg.gso_segs;
		if (!skb_is_gso_tcp(skb) || (skb_shinfo(skb)->gso_type & SKB_GSO_DODGY))
			seg.in |= TGC_IN_UPPER_FLUSH;
	}
	if (skb_has_frag_list(skb))
		seg.in |= TGC_IN_UPPER_FLUSH;
	seg.in |= tungro_udp_gro_in(skb, &seg);
	if (skb->ip_summed != CHECKSUM_UNNECESSARY && skb->ip_summed != CHECKSUM_PARTIAL &&
	    !(seg.in & TGC_IN_UPPER_FLUSH) && tungro_csum_bad(q, skb, &seg))
		seg.in |= TGC_IN_CSUM_BAD;
	if (trace_tungro_flush_enabled())
		tungro_rxq_receive_traced(q, &seg, skb);
	else
		tgc_engine_receive(q->engine, &seg, skb, NULL);
	return;
pass:
	tungro_rxq_out(q, skb, 1);
}

/*
 * The gro_flush_timeout a completing poll keeps packets for, as 6.12's napi_complete_done()
 * computes it for the device's NAPI: the device's timeout after a poll with work, and also after
 * one without while napi_defer_hard_irqs deferrals are left (the count is set again by every poll
 * with work and spent one per completing poll). 0: flush everything.
 */
static unsigned long tungro_rxq_keep_timeout(struct tungro_rxq *q, int work)
{
	const struct net_device *dev = q->td->dev;
	unsigned long timeout = 0;

	if (work) {
		timeout = READ_ONCE(dev->gro_flush_timeout);
		q->defer_count = READ_ONCE(dev->napi_defer_hard_irqs);
	}
	if (q->defer_count) {
		q->defer_count--;
		timeout = READ_ONCE(dev->gro_flush_timeout);
	}
	return timeout;
}

/*
 * The NAPI poll: up to @budget queued skbs through the engine, then the flush of 6.12's NAPI. A
 * poll that completes flushes everything (with the device's gro_flush_timeout set and work done,
 * or deferrals of napi_defer_hard_irqs left: what is older than a jiffy, and a timer polls again
 * for the rest). A poll that used its whole budget stays scheduled and flushes what is older than
 * a jiffy when HZ >= 1000, everything otherwise. Everything goes up before the poll returns:
 * nothing waits in napi->rx_list for __napi_poll.
 */
static int tungro_rxq_poll(struct napi_struct *napi, int budget)
{
	struct tungro_rxq *q = container_of(napi, struct tungro_rxq, napi);
	bool closing = READ_ONCE(q->td->closing);
	struct sk_buff_head batch;
	unsigned long now, flags, timeout;
	struct sk_buff *skb;
	int work = 0;

	if (q->poll_cpu != smp_processor_id()) {
		if (q->acc[TUNGRO_Q_POLLS])
			tungro_q_count(q, TUNGRO_Q_REHOMES, 1);
		WRITE_ONCE(q->poll_cpu, smp_processor_id());
	}
	__skb_queue_head_init(&batch);
	spin_lock_irqsave(&q->input.lock, flags);
	while (work < budget && (skb = __skb_dequeue(&q->input))) {
		__skb_queue_tail(&batch, skb);
		work++;
	}
	spin_unlock_irqrestore(&q->input.lock, flags);

	now = jiffies;
	while ((skb = __skb_dequeue(&batch)))
		tungro_rxq_feed(q, skb, now);
	tungro_q_count(q, TUNGRO_Q_POLLS, 1);

	if (work == budget) {
		tungro_q_count(q, TUNGRO_Q_POLLS_FULL, 1);
		if (HZ >= 1000 && !closing)
			tgc_engine_flush_before(q->engine, (u32)now);
		else
			tgc_engine_flush(q->engine);
		tungro_rxq_deliver(q);
		tungro_rxq_publish(q);
		WRITE_ONCE(q->last_poll, jiffies);
		return budget;
	}

	timeout = closing ? 0 : tungro_rxq_keep_timeout(q, work);
	if (timeout)
		tgc_engine_flush_before(q->engine, (u32)now);
	else
		tgc_engine_flush(q->engine);
	tungro_rxq_deliver(q);
	if (napi_complete_done(napi, work) && timeout && q->td->closing == closing) {
		struct tgc_engine_stats st;

		tgc_engine_get_stats(q->engine, &st);
		if (st.held_now) {
			tungro_q_count(q, TUNGRO_Q_TIMER_ARMED, 1);
			hrtimer_start(&q->timer, ns_to_ktime(timeout), HRTIMER_MODE_REL_PINNED);
		}
	}
	tungro_rxq_publish(q);
	WRITE_ONCE(q->last_poll, jiffies);
	return work;
}

/* IPI callback: schedules the NAPI instance @napi on the CPU that runs it. */
static void tungro_napi_schedule_here(void *napi)
{
	napi_schedule(napi);
}

/**
 * tungro_napi_schedule_on() - schedule a NAPI instance on a given CPU and wait for that
 * @napi: the instance (the device's, at attach; a queue's, at detach)
 * @cpu: where its poll should run; -1 or an offline CPU: here
 *
 * BH is off around it, so a poll raised on this CPU runs at local_bh_enable(), not at the next
 * interrupt. Process context (a waiting IPI).
 */
void tungro_napi_schedule_on(struct napi_struct *napi, int cpu)
{
	local_bh_disable();
	if (cpu < 0 || smp_call_function_single(cpu, tungro_napi_schedule_here, napi, 1))
		napi_schedule(napi);
	local_bh_enable();
}

/*
 * How long a queue must have been idle before its poll may follow the device's interrupt to
 * another CPU. What the last poll delivered may still wait in its CPU's backlog or in a tunnel's
 * per-CPU gro_cells (whose NAPI holds it in the kernel's GRO), and no exported interface tells
 * whether that CPU has run them: a poll elsewhere would send the flows' next packets ahead of
 * them. One jiffy was not enough: a make demo beside a make test's builds saw a UDP datagram over
 * IPIP overtaken, the old CPU's softirqs being deferred to ksoftirqd (or its vCPU not running)
 * for longer. 100 ms is far beyond any softirq delay a check here has met, and costs only the IPI
 * of tungro_rxq_schedule() while the interrupt sits on another CPU than the polls.
 */
#define TUNGRO_REHOME_IDLE	max(HZ / 10, 2)

/*
 * Schedules the queue's NAPI for a frame that found the input queue empty. Unless the last poll
 * ended more than TUNGRO_REHOME_IDLE ago, it runs there again, through an IPI when that is another
 * CPU. So the device's interrupt moving between CPUs under a stream does not move tungro's
 * deliveries; they follow it once the queue has idled, and at once while detaching (its direct
 * pass wants the last poll on the frames' CPU). -EBUSY: a kick is pending and its poll will see
 * this frame.
 */
static void tungro_rxq_schedule(struct tungro_rxq *q)
{
	unsigned long idle_until = READ_ONCE(q->last_poll) + TUNGRO_REHOME_IDLE;
	unsigned int home = READ_ONCE(q->poll_cpu);
	int err;

	if (home != smp_processor_id() && !READ_ONCE(q->td->closing) &&
	    time_before_eq(jiffies, idle_until) && cpu_online(home)) {
		err = smp_call_function_single_async(home, &q->csd);
		if (!err || err == -EBUSY)
			return;
	}
	napi_schedule(&q->napi);
}

/**
 * tungro_rxq_enqueue() - hand one frame of the attached device to a queue's NAPI instance
 * @q: the receive queue the frame arrived on
 * @skb: the frame (owned by tungro from here on: counted in td->inflight until it goes up)
 *
 * Any CPU, softirq context (the rx_handler). The NAPI is scheduled only by the frame that finds
 * the input queue empty: a poll either empties the queue under its lock or uses its whole budget
 * and stays scheduled, so a non-empty queue always has a poll coming. Scheduling for every frame
 * would set NAPI_STATE_MISSED while the NAPI waits to run, and the extra poll without work that
 * follows flushes everything gro_flush_timeout means to keep.
 */
void tungro_rxq_enqueue(struct tungro_rxq *q, struct sk_buff *skb)
{
	unsigned long flags;
	bool first;

	atomic_inc(&q->td->inflight);
	WRITE_ONCE(q->cpu, smp_processor_id());
	spin_lock_irqsave(&q->input.lock, flags);
	first = skb_queue_empty(&q->input);
	__skb_queue_tail(&q->input, skb);
	spin_unlock_irqrestore(&q->input.lock, flags);
	if (first)
		tungro_rxq_schedule(q);
}

/**
 * tungro_rxq_kick() - schedule a queue's NAPI on the CPU its frames last arrived on (a detach)
 * @q: the queue
 *
 * A detach passes the device's frames up directly once nothing is queued or held, on the CPU
 * where they arrive; the last packets tungro delivers must reach the stack on that CPU too, or a
 * tunnel's per-CPU gro_cells may let a later frame overtake them. Kicked from the detaching
 * task's CPU instead, the 100-cycle attach/detach guest check counted hundreds of out-of-order
 * segments at the receiver on 2 CPUs. Process context.
 */
void tungro_rxq_kick(struct tungro_rxq *q)
{
	tungro_napi_schedule_on(&q->napi, READ_ONCE(q->cpu));
}

static enum hrtimer_restart tungro_rxq_timer(struct hrtimer *t)
{
	struct tungro_rxq *q = container_of(t, struct tungro_rxq, timer);

	napi_schedule(&q->napi);
	return HRTIMER_NORESTART;
}

/**
 * tungro_rxq_init() - set up one receive queue of an attached device and enable its NAPI instance
 * @q: the queue, zeroed
 * @td: its device; td->napi_dev carries the NAPI instance
 * @buckets: engine buckets
 * @flows: held flows per bucket
 * @flags: TGC_ENGINE_* for tgc_engine_init()
 *
 * Return: 0, -EINVAL for a table size the core refuses, or -ENOMEM.
 */
int tungro_rxq_init(struct tungro_rxq *q, struct tungro_dev *td, u32 buckets, u32 flows, u32 flags)
{
	u32 size = tgc_engine_size(buckets, flows);

	if (!size)
		return -EINVAL;
	/* kmalloc's alignment is the arch's (2 for u64 on m68k): the engine wants 8. */
	q->mem = kvzalloc(size + 8, GFP_KERNEL);
	if (!q->mem)
		return -ENOMEM;
	q->td = td;
	q->flags = flags;
	q->engine = tgc_engine_init(PTR_ALIGN(q->mem, 8), size, buckets, flows, flags,
				    &tungro_engine_ops, q);
	if (!q->engine) {
		kvfree(q->mem);
		q->mem = NULL;
		return -EINVAL;
	}
	skb_queue_head_init(&q->input);
	INIT_LIST_HEAD(&q->out);
	INIT_CSD(&q->csd, tungro_napi_schedule_here, &q->napi);
	q->last_poll = jiffies - HZ;
	u64_stats_init(&q->syncp);
	hrtimer_init(&q->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED);
	q->timer.function = tungro_rxq_timer;
	netif_napi_add(td->napi_dev, &q->napi, tungro_rxq_poll);
	napi_enable(&q->napi);
	return 0;
}

static void tungro_rxq_ipi_done(void *unused)
{
}

/**
 * tungro_rxq_stop() - stop a queue's NAPI instance and deliver everything it queued or holds
 * @q: the queue; its device's rx_handler is unregistered already, so nothing is queued any more
 * @direct: deliver with netif_receive_skb_core() (the device is being unregistered: no RPS backlog)
 * @held: incremented by the packets the engine held at the stop (all delivered here)
 * @queued: incremented by the skbs still in the input queue at the stop (all delivered here)
 *
 * Sleeps (napi_disable()).
 */
void tungro_rxq_stop(struct tungro_rxq *q, bool direct, u64 *held, u64 *queued)
{
	struct tgc_engine_stats st;
	struct sk_buff *skb;

	napi_disable(&q->napi);
	hrtimer_cancel(&q->timer);
	/*
	 * A kick of tungro_rxq_schedule() may still be queued on another CPU (q->csd): a waiting
	 * IPI to every CPU returns once each has run what was queued before it, so none runs after
	 * the queue is freed (its napi_schedule() finds the NAPI disabled).
	 */
	on_each_cpu(tungro_rxq_ipi_done, NULL, 1);
	q->direct = direct;
	tgc_engine_get_stats(q->engine, &st);
	*held += st.held_now;
	*queued += skb_queue_len(&q->input);
	local_bh_disable();
	while ((skb = skb_dequeue(&q->input)))
		tungro_rxq_feed(q, skb, jiffies);
	tgc_engine_flush(q->engine);
	tungro_rxq_deliver(q);
	tungro_rxq_publish(q);
	local_bh_enable();
	netif_napi_del(&q->napi);
}

/**
 * tungro_rxq_free() - free a stopped queue's engine memory
 * @q: the queue (tungro_rxq_stop() ran, or tungro_rxq_init() failed)
 */
void tungro_rxq_free(struct tungro_rxq *q)
{
	kvfree(q->mem);
	q->mem = NULL;
}

static const char *const tungro_nh_names[TUNGRO_NH_COUNT] = { "gre", "udp", "other" };

static const char *const tungro_hist_names[TGC_HIST_BUCKETS] = {
	"1", "2", "3_4", "5_8", "9_16", "17_32", "33_64", "65_up",
};

/* The queues' counters summed for tungro_engine_show(), on the heap: too big for a stack frame. */
struct tungro_show_sums {
	u64 c[TUNGRO_Q_COUNT], v[TUNGRO_Q_COUNT], e[10], reasons[TGC_R_COUNT], held_max, queued;
	struct tgc_engine_stats s;
};

/**
 * tungro_engine_show() - debugfs tungro/<dev>/stats: the queues' counters summed, "key value" lines
 * @m: the seq_file
 * @td: the attached device
 *
 * Return: 0, or -ENOMEM.
 */
int tungro_engine_show(struct seq_file *m, struct tungro_dev *td)
{
	struct tungro_show_sums *sum = kzalloc(sizeof(*sum), GFP_KERNEL);
	u64 *c, *e, *reasons;
	unsigned int i, k;

	if (!sum)
		return -ENOMEM;
	c = sum->c;
	e = sum->e;
	reasons = sum->reasons;
	for (i = 0; i < td->nq; i++) {
		struct tungro_rxq *q = &td->rxq[i];
		struct tgc_engine_stats *st = &sum->s;
		unsigned int start;

		do {
			start = u64_stats_fetch_begin(&q->syncp);
			for (k = 0; k < TUNGRO_Q_COUNT; k++)
				sum->v[k] = u64_stats_read(&q->c[k]);
			*st = q->snap;
		} while (u64_stats_fetch_retry(&q->syncp, start));
		for (k = 0; k < TUNGRO_Q_COUNT; k++)
			c[k] += sum->v[k];
		e[0] += st->segs;
		e[1] += st->held;
		e[2] += st->merged;
		e[3] += st->passed;
		e[4] += st->completed;
		e[5] += st->evicted;
		e[6] += st->flushed;
		e[7] += st->retried;
		e[8] += st->held_now;
		e[9] += st->fastpath;
		sum->held_max = max_t(u64, sum->held_max, st->held_max);
		for (k = 0; k < TGC_R_COUNT; k++)
			reasons[k] += st->reasons[k];
		sum->queued += skb_queue_len_lockless(&q->input);
	}
	seq_printf(m, "queues %u\n", td->nq);
	/* The offload path's keys first (debugfs tungro/stats), with the same meaning. */
	seq_printf(m, "seen %llu\nheld %llu\nmerged %llu\npassed %llu\n", e[0], e[1], e[2], e[3]);
	seq_printf(m, "completed %llu\ngro_packets %llu\n", c[TUNGRO_Q_COMPLETED], e[1] + e[3]);
	for (k = 1; k < TGC_HIST_BUCKETS; k++)
		seq_printf(m, "segs_%s %llu\n", tungro_hist_names[k], c[TUNGRO_Q_HIST + k]);
	for (k = 1; k < TGC_R_COUNT; k++)
		seq_printf(m, "flush_%s %llu\n", tgc_reason_name(k), reasons[k]);
	/* The engine's own. */
	seq_printf(m, "held_completed %llu\nevicted %llu\nflushed %llu\nretried %llu\n", e[4], e[5],
		   e[6], e[7]);
	seq_printf(m, "held_now %llu\nheld_max %llu\nmerged_fastpath %llu\n", e[8], sum->held_max,
		   e[9]);
	seq_printf(m, "polls %llu\npolls_full_budget %llu\ntimer_armed %llu\nrehomes %llu\n",
		   c[TUNGRO_Q_POLLS], c[TUNGRO_Q_POLLS_FULL], c[TUNGRO_Q_TIMER_ARMED],
		   c[TUNGRO_Q_REHOMES]);
	seq_printf(m, "lists %llu\nlist_pkts %llu\nlist_segs %llu\npkts_per_list_x100 %llu\n",
		   c[TUNGRO_Q_LISTS], c[TUNGRO_Q_LIST_PKTS], c[TUNGRO_Q_LIST_SEGS],
		   c[TUNGRO_Q_LISTS] ?
		   div64_u64(100 * c[TUNGRO_Q_LIST_PKTS], c[TUNGRO_Q_LISTS]) : 0);
	for (k = 0; k < TUNGRO_NH_COUNT; k++)
		seq_printf(m, "not_handled_%s %llu\n", tungro_nh_names[k],
			   (u64)atomic64_read(&td->not_handled[k]));
	seq_printf(m, "finish_failed %llu\nunclone_failed %llu\nheader_failed %llu\n",
		   c[TUNGRO_Q_FINISH_FAILED], c[TUNGRO_Q_UNCLONE_FAILED], c[TUNGRO_Q_HDR_FAILED]);
	seq_printf(m, "queued %llu\ninflight %d\n", sum->queued, atomic_read(&td->inflight));
	kfree(sum);
	return 0;
}
