// SPDX-License-Identifier: GPL-2.0
/*
 * harness.c - the KUnit harness shared by tungro's suites (see tungro_kunit.h).
 *
 * Delivery path under test: napi_gro_receive() -> dev_gro_receive -> inet_gro_receive -> tungro's
 * gro_receive (installed in inet_offloads) ... napi_gro_flush() -> inet_gro_complete -> tungro's
 * gro_complete -> netif_receive_skb_list -> our rx_handler, which takes every skb the stack would
 * have received.
 */
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/gro.h>
#include <net/gso.h>
#include <net/ip.h>
#include <net/ip6_checksum.h>
#include <net/tcp.h>

#include "../module/tungro.h"
#include "../module/tungro_cb.h"
#include "../module/tungro_engine.h"
#include "../module/tungro_pred.h"
#include "tungro_kunit.h"

#define TGK_MAX_FRAME 1600
#define TGK_MAX_INPUT 8192	/* one input skb: a GSO input holds several MSS segments */
#define TGK_FLOW_KEYS 8192	/* order keys: inner source port - 40000 (0-255), encap, labels */

struct tgk_ctx {
	struct net_device *dev;
	struct napi_struct napi;
	struct sk_buff_head rx;		/* skbs the stack received after GRO, in order */
	/* originals of cloned inputs, freed after the run: the clones stay cloned */
	struct sk_buff_head keep;
	u8 frames[TGK_MAX_SEGS][TGK_MAX_FRAME];	/* this run's wire frames, from the IP header */
	unsigned int frame_len[TGK_MAX_SEGS];
	unsigned int flow[TGK_MAX_SEGS];	/* per wire frame: its flow's order key */
	unsigned int nframes;
	u8 input[TGK_MAX_INPUT];	/* the input skb being built (GSO: longer than a frame) */
};

static struct tgk_ctx *tgk;

static rx_handler_result_t tgk_rx_handler(struct sk_buff **pskb)
{
	skb_queue_tail(&tgk->rx, *pskb);
	return RX_HANDLER_CONSUMED;
}

static int tgk_poll(struct napi_struct *napi, int budget)
{
	return 0; /* never run: the tests schedule, feed and complete the NAPI instance */
}

int tgk_suite_init(struct kunit_suite *suite)
{
	int err;

	/* The frames of a run take over a MiB: vmalloc'd. */
	tgk = kvzalloc(sizeof(*tgk), GFP_KERNEL);
	if (!tgk)
		return -ENOMEM;
	skb_queue_head_init(&tgk->rx);
	skb_queue_head_init(&tgk->keep);
	tgk->dev = alloc_etherdev(0);
	if (!tgk->dev) {
		err = -ENOMEM;
		goto free_ctx;
	}
	eth_hw_addr_random(tgk->dev);
	tgk->dev->features |= NETIF_F_GRO;
	netif_napi_add(tgk->dev, &tgk->napi, tgk_poll);
	napi_enable(&tgk->napi);
	rtnl_lock();
	err = netdev_rx_handler_register(tgk->dev, tgk_rx_handler, NULL);
	rtnl_unlock();
	if (err)
		goto free_dev;
	tungro_stats_init();
	err = tungro_offloads_install();
	if (err)
		goto unregister;
	return 0;

unregister:
	rtnl_lock();
	netdev_rx_handler_unregister(tgk->dev);
	rtnl_unlock();
free_dev:
	napi_disable(&tgk->napi);
	netif_napi_del(&tgk->napi);
	free_netdev(tgk->dev);
free_ctx:
	kvfree(tgk);
	tgk = NULL;
	return err;
}

void tgk_suite_exit(struct kunit_suite *suite)
{
	if (!tgk)
		return;
	tungro_offloads_remove();
	rtnl_lock();
	netdev_rx_handler_unregister(tgk->dev);
	rtnl_unlock();
	napi_disable(&tgk->napi);
	netif_napi_del(&tgk->napi);
	free_netdev(tgk->dev);
	skb_queue_purge(&tgk->rx);
	skb_queue_purge(&tgk->keep);
	kvfree(tgk);
	tgk = NULL;
}

void tgk_default(struct tgk_seg *s, enum tgk_encap encap)
{
	memset(s, 0, sizeof(*s));
	s->encap = encap;
	s->outer = (struct tgk_v4){ .ttl = 64, .df = true, .id = encap == TGK_PLAIN4 ? 1 : 0 };
	s->inner4 = (struct tgk_v4){ .ttl = 64, .df = true, .id = 1 };
	s->inner6 = (struct tgk_v6){ .hop_limit = 64 };
	s->outer6 = (struct tgk_v6){ .hop_limit = 64 };
	s->sport = 40000;
	s->dport = 5001;
	s->window = 512;
	s->seq = 1000;
	s->ack = 77;
	s->flags = TCPHDR_ACK;
	s->payload_len = 1400;
}

void tgk_train(struct tgk_seg *segs, unsigned int n, const struct tgk_seg *first, int outer_id_step)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		segs[i] = i ? segs[i - 1] : *first;
		if (!i)
			continue;
		segs[i].seq += segs[i - 1].payload_len;
		segs[i].inner4.id++;
		segs[i].outer.id += segs[i].encap == TGK_PLAIN4 ? 1 : outer_id_step;
	}
}

/* The IHL field of @h: its own, or 5 and the words of its options. */
static unsigned int tgk_ihl(const struct tgk_v4 *h)
{
	return h->ihl ? h->ihl : 5 + DIV_ROUND_UP(h->optlen, 4);
}

/* Bytes the builder writes for @h: at least 20, a bad IHL below 5 included. */
static unsigned int tgk_v4_len(const struct tgk_v4 *h)
{
	return max(tgk_ihl(h), 5u) * 4;
}

/* Recomputes the header checksum of the IPv4 header at @p over its IHL (options included). */
static void tgk_v4_check(u8 *p)
{
	struct iphdr *iph = (struct iphdr *)p;

	iph->check = 0;
	iph->check = ip_fast_csum(p, max_t(unsigned int, iph->ihl, 5));
}

static unsigned int tgk_put_v4(u8 *p, const struct tgk_v4 *h, unsigned int total, u8 proto)
{
	struct iphdr *iph = (struct iphdr *)p;
	unsigned int ihl = tgk_ihl(h), hl = tgk_v4_len(h);

	memset(p, 0, hl);
	memcpy(p + sizeof(*iph), h->options, min_t(unsigned int, h->optlen, hl - sizeof(*iph)));
	iph->version = 4;
	iph->ihl = ihl;
	iph->tos = h->tos;
	iph->tot_len = htons(total);
	iph->id = htons(h->id);
	iph->frag_off = htons((h->reserved ? IP_CE : 0) | (h->df ? IP_DF : 0) |
			      (h->mf ? IP_MF : 0) | h->frag_offset);
	iph->ttl = h->ttl;
	iph->protocol = h->proto ? h->proto : proto;
	tgk_v4_check(p);
	return hl;
}

/* Bytes of @h's extension header (0 or 8). */
static unsigned int tgk_ext_len(const struct tgk_v6 *h)
{
	return h->dstopts || h->ext ? 8 : 0;
}

/*
 * Writes an IPv6 header and its extension header (if any) carrying @payload bytes of protocol
 * @next after them, from 2001:db8:41::@host + 1 to ...::@host; returns the bytes written.
 */
static unsigned int tgk_put_v6(u8 *p, const struct tgk_v6 *h, unsigned int payload, u8 next,
			       u8 host)
{
	static const u8 prefix6[6] = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x41 };
	struct ipv6hdr *ip6 = (struct ipv6hdr *)p;
	unsigned int ext = tgk_ext_len(h);
	u8 kind = h->ext ? h->ext : TGK_EXT_DSTOPTS;

	memset(ip6, 0, sizeof(*ip6));
	*(__be32 *)ip6 = htonl((6u << 28) | ((u32)h->traffic_class << 20) |
			       (h->flow_label & 0xfffff));
	ip6->payload_len = htons(ext + payload);
	ip6->nexthdr = h->next_header ? h->next_header : next;
	ip6->hop_limit = h->hop_limit;
	memcpy(&ip6->saddr, prefix6, 6);
	memcpy(&ip6->daddr, prefix6, 6);
	ip6->saddr.s6_addr[14] = host;
	ip6->daddr.s6_addr[14] = host;
	ip6->saddr.s6_addr[15] = 2;
	ip6->daddr.s6_addr[15] = 1;
	if (ext) {
		u8 *e = p + sizeof(*ip6);

		memset(e, 0, 8);
		e[0] = ip6->nexthdr;
		switch (kind) {
		case TGK_EXT_FRAG:
			ip6->nexthdr = NEXTHDR_FRAGMENT;
			e[7] = 0x41;		/* identification, offset 0, M clear */
			break;
		case TGK_EXT_ROUTING:
			ip6->nexthdr = NEXTHDR_ROUTING;	/* type 0, segments left 0, reserved */
			break;
		case TGK_EXT_ENCAP_LIMIT:
			ip6->nexthdr = NEXTHDR_DEST;
			e[2] = 4;		/* tunnel encapsulation limit (RFC 2473), len 1 */
			e[3] = 1;
			e[4] = 4;
			e[5] = 1;		/* PadN of 1 */
			e[6] = 1;
			break;
		default:
			ip6->nexthdr = kind == TGK_EXT_HOP ? NEXTHDR_HOP : NEXTHDR_DEST;
			e[2] = 1;		/* PadN of 4 after the 2 */
			e[3] = 4;
			break;
		}
		if (kind != TGK_EXT_FRAG)
			e[7] = h->ext_fill;
	}
	return sizeof(*ip6) + ext;
}

/*
 * The UDP header of datagram @s at @uh (@l4 bytes with the payload in place; @inner its IP header):
 * ports, length (plus s->udp_len_delta), checksum (none with s->udp_zero_csum; a computed 0 is sent
 * as 0xffff, RFC 768).
 */
static void tgk_put_udp(u8 *uh, const u8 *inner, unsigned int l4, const struct tgk_seg *s)
{
	struct udphdr *u = (struct udphdr *)uh;
	__wsum sum;

	u->source = htons(s->sport);
	u->dest = htons(s->dport);
	u->len = htons(l4 + s->udp_len_delta);
	u->check = 0;
	sum = csum_partial(uh, l4, 0);
	if (inner[0] >> 4 == 4)
		u->check = csum_tcpudp_magic(((struct iphdr *)inner)->saddr,
					     ((struct iphdr *)inner)->daddr, l4, IPPROTO_UDP, sum);
	else
		u->check = csum_ipv6_magic(&((struct ipv6hdr *)inner)->saddr,
					   &((struct ipv6hdr *)inner)->daddr, l4, IPPROTO_UDP, sum);
	if (!u->check)
		u->check = CSUM_MANGLED_0;
	if (s->bad_csum)
		u->check ^= (__force __sum16)htons(0x5a5a);
	if (s->udp_zero_csum)
		u->check = 0;
}

/* Bytes between a tunnel's outer header and its inner packet: FOU's UDP header, GUE's after it. */
static unsigned int tgk_fou_len(const struct tgk_seg *s)
{
	return s->fou_port ? sizeof(struct udphdr) + (s->gue ? 4 : 0) : 0;
}

/*
 * The FOU/GUE header of a tunnel frame at @uh: @len bytes from @uh to the inner packet's end,
 * @inner_proto the protocol it carries (GUE says it); checksum 0 until tgk_fou_csum().
 */
static void tgk_put_fou(u8 *uh, unsigned int len, u8 inner_proto, const struct tgk_seg *s)
{
	struct udphdr *u = (struct udphdr *)uh;

	u->source = htons(50000);
	u->dest = htons(s->fou_port);
	u->len = htons(len);
	u->check = 0;
	if (s->gue) {
		/* version 0, C 0, hlen 0; proto_ctype; flags 0 */
		uh[8] = 0;
		uh[9] = inner_proto;
		uh[10] = 0;
		uh[11] = 0;
	}
}

/* The UDP checksum of the FOU/GUE header at @uh, over its length, @outer's pseudo-header. */
static void tgk_fou_csum(const u8 *outer, u8 *uh)
{
	struct udphdr *u = (struct udphdr *)uh;
	unsigned int len = ntohs(u->len);
	__wsum sum = csum_partial(uh, len, 0);

	if (outer[0] >> 4 == 4)
		u->check = csum_tcpudp_magic(((const struct iphdr *)outer)->saddr,
					     ((const struct iphdr *)outer)->daddr, len,
					     IPPROTO_UDP, sum);
	else
		u->check = csum_ipv6_magic(&((const struct ipv6hdr *)outer)->saddr,
					   &((const struct ipv6hdr *)outer)->daddr, len,
					   IPPROTO_UDP, sum);
	if (!u->check)
		u->check = CSUM_MANGLED_0;
}

/* tgk_build's frame, @fou set to its FOU/GUE header if it has one (checksum still 0). */
static unsigned int tgk_build_l3(u8 *buf, const struct tgk_seg *s, u8 **fou)
{
	unsigned int thlen = s->udp ? sizeof(struct udphdr) : sizeof(struct tcphdr) + s->optlen;
	unsigned int l4 = thlen + s->payload_len, cl;
	u8 l4proto = s->udp ? IPPROTO_UDP : IPPROTO_TCP;
	bool v6_outer = s->encap == TGK_IP4IP6 || s->encap == TGK_IP6IP6;
	bool v6_inner = s->encap == TGK_SIT || s->encap == TGK_IP6IP6;
	unsigned int off = 0, i, olen = 0;
	u8 *inner, *th;
	struct tcphdr *tcp;
	__wsum sum;

	if (s->encap == TGK_PLAIN6) {
		inner = buf;
		off = tgk_put_v6(buf, &s->inner6, l4, l4proto, 0);
		((struct ipv6hdr *)buf)->payload_len =
			htons(tgk_ext_len(&s->inner6) + l4 + s->outer_len_delta);
	} else if (s->encap == TGK_PLAIN4) {
		inner = buf;
		off = tgk_put_v4(buf, &s->outer, tgk_ihl(&s->outer) * 4 + l4 + s->outer_len_delta,
				 l4proto);
		/* The IPIP inner tuple, so T05 compares like with like. */
		((struct iphdr *)buf)->saddr = htonl(0xc6130102);
		((struct iphdr *)buf)->daddr = htonl(0xc6130101);
	} else {
		unsigned int ilen = v6_inner ? 40 + tgk_ext_len(&s->inner6) + l4 :
				    tgk_ihl(&s->inner4) * 4 + l4;
		u8 proto = v6_inner ? IPPROTO_IPV6 : IPPROTO_IPIP;
		unsigned int flen = tgk_fou_len(s);
		u8 carried = flen ? IPPROTO_UDP : proto;

		if (v6_outer) {
			olen = tgk_put_v6(buf, &s->outer6, ilen + s->inner_padding, carried, 0x66);
			((struct ipv6hdr *)buf)->payload_len =
				htons(flen + ilen + s->inner_padding + s->outer_len_delta +
				      tgk_ext_len(&s->outer6));
		} else {
			olen = tgk_v4_len(&s->outer);
			tgk_put_v4(buf, &s->outer,
				   olen + flen + ilen + s->inner_padding + s->outer_len_delta,
				   carried);
			((struct iphdr *)buf)->saddr = htonl(0xc6120002);
			((struct iphdr *)buf)->daddr = htonl(0xc6120001);
			/* Re-checksum the outer header after the addresses went in. */
			tgk_v4_check(buf);
		}
		if (flen) {
			*fou = buf + olen;
			tgk_put_fou(*fou, flen + ilen + s->inner_padding, proto, s);
			olen += flen;
		}
		inner = buf + olen;
		if (v6_inner) {
			off = olen + tgk_put_v6(inner, &s->inner6, l4, l4proto, 0);
		} else {
			off = olen + tgk_put_v4(inner, &s->inner4, ilen, l4proto);
			((struct iphdr *)inner)->saddr = htonl(0xc6130102);
			((struct iphdr *)inner)->daddr = htonl(0xc6130101);
		}
	}
	if (inner[0] >> 4 == 4)
		tgk_v4_check(inner);

	th = buf + off;
	if (s->udp) {
		for (i = 0; i < s->payload_len; i++)
			th[thlen + i] = (u8)((s->seq + i) * 7);
		memset(th + l4, 0, s->inner_padding + s->padding);
		tgk_put_udp(th, inner, l4, s);
		return off + l4 + s->inner_padding + s->padding;
	}
	tcp = (struct tcphdr *)th;
	memset(th, 0, thlen);
	tcp->source = htons(s->sport);
	tcp->dest = htons(s->dport);
	tcp->seq = htonl(s->seq);
	tcp->ack_seq = htonl(s->ack);
	th[12] = (s->doff_override ? s->doff_override : thlen / 4) << 4;
	th[13] = s->flags;
	tcp->window = htons(s->window);
	memcpy(th + sizeof(*tcp), s->opts, s->optlen);
	for (i = 0; i < s->payload_len; i++)
		th[thlen + i] = (u8)((s->seq + i) * 7);

	memset(th + l4, 0, s->inner_padding + s->padding);
	cl = l4 + (s->csum_covers_padding ? s->inner_padding : 0);
	sum = csum_partial(th, cl, 0);
	if (inner[0] >> 4 == 4)
		tcp->check = csum_tcpudp_magic(((struct iphdr *)inner)->saddr,
					       ((struct iphdr *)inner)->daddr, cl,
					       IPPROTO_TCP, sum);
	else
		tcp->check = csum_ipv6_magic(&((struct ipv6hdr *)inner)->saddr,
					     &((struct ipv6hdr *)inner)->daddr, cl,
					     IPPROTO_TCP, sum);
	if (s->bad_csum)
		tcp->check ^= (__force __sum16)htons(0x5a5a);
	return off + l4 + s->inner_padding + s->padding;
}

/*
 * Writes one wire frame from the network header on; returns its length (padding included). In FOU
 * or GUE, the UDP checksum goes in last, over the finished inner packet.
 */
static unsigned int tgk_build(u8 *buf, const struct tgk_seg *s)
{
	u8 *fou = NULL;
	unsigned int len = tgk_build_l3(buf, s, &fou);

	if (fou)
		tgk_fou_csum(buf, fou);
	return len;
}

/*
 * A received skb holding @frame behind an Ethernet header: linear, or with the part past o->head in
 * one page frag (or two, split at o->frag_split), as NAPI drivers build them, or in one skb on the
 * frag_list; optionally with extra headroom, no tailroom, or a clone.
 */
static struct sk_buff *tgk_skb(struct kunit *test, const u8 *frame, unsigned int len,
			       const struct tgk_opts *o)
{
	unsigned int head = len, reserve, split;
	struct sk_buff *skb;
	struct ethhdr *eth;

	if (o->page_frag || o->frag_list)
		head = o->no_linear ? 0 : min(len, o->head ? o->head : 128u);
	skb = alloc_skb(o->headroom + head + ETH_HLEN + (o->tight ? 0 : 64) + 8, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	/* Network header address = o->align (mod 4). */
	reserve = o->headroom;
	while (((unsigned long)(skb->data + reserve + ETH_HLEN) & 3) != o->align)
		reserve++;
	skb_reserve(skb, reserve);
	eth = skb_put(skb, ETH_HLEN);
	ether_addr_copy(eth->h_dest, tgk->dev->dev_addr);
	eth_zero_addr(eth->h_source);
	eth->h_source[5] = 2;
	eth->h_proto = htons(frame[0] >> 4 == 6 ? ETH_P_IPV6 : ETH_P_IP);
	skb_put_data(skb, frame, head);
	if (o->frag_list && head < len) {
		struct sk_buff *rest = alloc_skb(len - head, GFP_KERNEL);

		KUNIT_ASSERT_NOT_NULL(test, rest);
		skb_put_data(rest, frame + head, len - head);
		skb_shinfo(skb)->frag_list = rest;
		skb->len += rest->len;
		skb->data_len += rest->len;
		skb->truesize += rest->truesize;
		head = len;
	}
	split = o->frag_split > head && o->frag_split < len ? o->frag_split : len;
	while (head < len) {
		struct page *page = alloc_page(GFP_KERNEL);
		/* to the split, then the rest; at most a page per frag (GSO inputs are longer) */
		unsigned int end = min_t(unsigned int, head < split ? split : len,
					 head + PAGE_SIZE);

		KUNIT_ASSERT_NOT_NULL(test, page);
		memcpy(page_address(page), frame + head, end - head);
		skb_add_rx_frag(skb, skb_shinfo(skb)->nr_frags, page, 0, end - head, PAGE_SIZE);
		head = end;
	}
	skb->dev = tgk->dev;
	skb->protocol = eth_type_trans(skb, tgk->dev);
	if (o->csum_complete) {
		/* As a NIC reports it: the one's-complement sum of all past the Ethernet header. */
		skb->ip_summed = CHECKSUM_COMPLETE;
		skb->csum = csum_partial(frame, len, 0);
	} else if (o->csum_unnecessary) {
		skb->ip_summed = CHECKSUM_UNNECESSARY;
		skb->csum_level = 0;
	} else {
		/* no device checksum help: GRO validates in software */
		skb->ip_summed = CHECKSUM_NONE;
	}
	if (o->clone) {
		struct sk_buff *clone = skb_clone(skb, GFP_KERNEL);

		KUNIT_ASSERT_NOT_NULL(test, clone);
		skb_queue_tail(&tgk->keep, skb);
		skb = clone;
	}
	return skb;
}

/* The skb GRO receives for input @s: one wire segment, or a GSO skb of s->gso_segs (K02). */
static struct sk_buff *tgk_input(struct kunit *test, const struct tgk_seg *s,
				 const struct tgk_opts *o)
{
	unsigned int len = tgk_build(tgk->input, s);
	struct sk_buff *skb = tgk_skb(test, tgk->input, len, o);

	if (s->gso_segs > 1) {
		skb_shinfo(skb)->gso_size = s->payload_len / s->gso_segs;
		skb_shinfo(skb)->gso_segs = s->gso_segs;
		bool v6_inner = s->encap == TGK_SIT || s->encap == TGK_IP6IP6 ||
				s->encap == TGK_PLAIN6;
		bool v6_outer = s->encap == TGK_IP4IP6 || s->encap == TGK_IP6IP6;

		skb_shinfo(skb)->gso_type = (v6_inner ? SKB_GSO_TCPV6 : SKB_GSO_TCPV4) |
					    (s->encap == TGK_PLAIN4 || s->encap == TGK_PLAIN6 ? 0 :
					     v6_outer ? SKB_GSO_IPXIP6 : SKB_GSO_IPXIP4);
	}
	return skb;
}

void tgk_flows_in_bursts(struct tgk_seg *s, unsigned int flows, unsigned int per,
			 unsigned int burst, u32 payload)
{
	struct tgk_seg first, *train = kcalloc(per, sizeof(*train), GFP_KERNEL);
	unsigned int f, k, i = 0, b;

	if (!train)
		return;
	for (b = 0; b < per; b += burst) {
		for (f = 0; f < flows; f++) {
			tgk_default(&first, TGK_IPIP);
			first.sport = 40000 + f;
			first.payload_len = payload;
			tgk_train(train, per, &first, 0);
			for (k = b; k < b + burst && k < per; k++)
				s[i++] = train[k];
		}
	}
	kfree(train);
}

/*
 * Whether delivered segment @got equals wire frame @want, leaving to GSO what it may choose: the
 * IPv4 ID and header checksum of a tunnel's outer header (6.12 GSO numbers outer IDs itself) and of
 * an inner header with FIXEDID.
 */
static bool tgk_inner_ids_free;

/* Offset of a tunnel frame's inner network header: past the outer IPv4 header, or the outer
 * IPv6 header and its extension headers.
 */
static unsigned int tgk_inner_off(const u8 *f, unsigned int len)
{
	unsigned int off = sizeof(struct ipv6hdr);
	u8 next = f[6];

	if (f[0] >> 4 == 4)
		return (f[0] & 0xf) * 4;
	while (off + 8 <= len && (next == NEXTHDR_HOP || next == NEXTHDR_DEST ||
				  next == NEXTHDR_ROUTING || next == NEXTHDR_FRAGMENT)) {
		unsigned int l = next == NEXTHDR_FRAGMENT ? 8 : (f[off + 1] + 1) * 8;

		next = f[off];
		off += l;
	}
	return off;
}

static bool tgk_same_frame(const u8 *got, const u8 *want, unsigned int len, unsigned int gso_type)
{
	bool tunnel = !!(gso_type & (SKB_GSO_IPXIP4 | SKB_GSO_IPXIP6));
	bool outer4 = !!(gso_type & SKB_GSO_IPXIP4);
	bool fixedid = (gso_type & SKB_GSO_TCP_FIXEDID) ||
		       (tgk_inner_ids_free && (gso_type & SKB_GSO_TCPV4));
	unsigned int inner = tunnel ? tgk_inner_off(want, len) : 0, k;

	for (k = 0; k < len; k++) {
		bool id_or_check = k == 4 || k == 5 || k == 10 || k == 11;
		bool inner_id_or_check = k == inner + 4 || k == inner + 5 || k == inner + 10 ||
					 k == inner + 11;

		if (outer4 && id_or_check)
			continue;
		if (fixedid && inner_id_or_check && want[inner] >> 4 == 4)
			continue;
		if (got[k] != want[k])
			return false;
	}
	return true;
}

/* Matches a delivered wire segment to an unused sent frame, checks flow order; false if none. */
static bool tgk_match(struct kunit *test, struct sk_buff *seg, unsigned int gso_type,
		      const struct tgk_seg *segs, unsigned int n, bool *used, int *last_of_flow)
{
	unsigned int j;

	if (skb_linearize(seg))
		return false;
	for (j = 0; j < n; j++) {
		unsigned int flow = tgk->flow[j];

		if (used[j] || tgk->frame_len[j] != seg->len ||
		    !tgk_same_frame(seg->data, tgk->frames[j], seg->len, gso_type))
			continue;
		used[j] = true;
		if (flow < TGK_FLOW_KEYS) {
			KUNIT_EXPECT_GT_MSG(test, (int)j, last_of_flow[flow],
					    "segment %u delivered out of its flow's order", j);
			last_of_flow[flow] = j;
		}
		return true;
	}
	return false;
}

/*
 * Every delivered packet, resegmented by the kernel's GSO when it is a GRO packet, must be made of
 * sent frames, each used once, in each flow's order: GRO that GSO cannot undo is a bug even when
 * the merge looked right.
 */
static void tgk_check_wire(struct kunit *test, struct sk_buff *skb, const struct tgk_seg *segs,
			   unsigned int n, bool *used, int *last_of_flow, unsigned int *matched)
{
	unsigned int gso_type = skb_shinfo(skb)->gso_type;
	unsigned int segs_in = max_t(unsigned int, 1, skb_shinfo(skb)->gso_segs);
	struct sk_buff *list, *seg, *next;
	unsigned int i = 0;

	if (segs_in == 1) {
		struct sk_buff *copy = skb_copy(skb, GFP_ATOMIC);

		KUNIT_ASSERT_NOT_NULL(test, copy);
		KUNIT_EXPECT_TRUE_MSG(test, tgk_match(test, copy, 0, segs, n, used, last_of_flow),
				      "delivered single segment (len %u) matches no sent frame",
				      skb->len);
		*matched += 1;
		kfree_skb(copy);
		return;
	}
	list = skb_gso_segment(skb, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR_OR_NULL(list), "skb_gso_segment failed: %ld",
			       PTR_ERR(list));
	skb_list_walk_safe(list, seg, next) {
		KUNIT_EXPECT_TRUE_MSG(test,
				      tgk_match(test, seg, gso_type, segs, n, used, last_of_flow),
				      "GSO segment %u (len %u) of a %u-segment GRO packet matches no sent frame",
				      i, seg->len, segs_in);
		i++;
		kfree_skb(seg);
	}
	KUNIT_EXPECT_EQ_MSG(test, i, segs_in,
			    "GSO made a different number of segments than gso_segs");
	*matched += i;
}

/* Takes every packet the stack received, records it in @res, checks it against the sent frames. */
static void tgk_collect(struct kunit *test, const struct tgk_seg *segs, unsigned int n,
			struct tgk_result *res)
{
	bool *used = kunit_kzalloc(test, tgk->nframes * sizeof(bool) + 1, GFP_KERNEL);
	int *last = kunit_kcalloc(test, TGK_FLOW_KEYS, sizeof(int), GFP_KERNEL);
	unsigned int matched = 0, i;
	struct sk_buff *skb;

	KUNIT_ASSERT_NOT_NULL(test, used);
	KUNIT_ASSERT_NOT_NULL(test, last);
	for (i = 0; i < TGK_FLOW_KEYS; i++)
		last[i] = -1;
	while ((skb = skb_dequeue(&tgk->rx))) {
		struct tgk_pkt *p = &res->pkt[res->n];

		KUNIT_ASSERT_LT(test, res->n, (unsigned int)TGK_MAX_SEGS);
		p->segs = max_t(unsigned int, 1, skb_shinfo(skb)->gso_segs);
		p->len = skb->len;
		p->gso_size = skb_shinfo(skb)->gso_size;
		p->gso_type = skb_shinfo(skb)->gso_type;
		p->headlen = skb_headlen(skb);
		p->ip_summed = skb->ip_summed;
		skb_copy_bits(skb, 0, p->hdr, min_t(unsigned int, skb->len, sizeof(p->hdr)));
		tgk_check_wire(test, skb, segs, tgk->nframes, used, last, &matched);
		if (p->segs > 1)
			res->roundtrip_checked++;
		res->n++;
		kfree_skb(skb);
	}
	KUNIT_EXPECT_EQ_MSG(test, matched, tgk->nframes,
			    "segments delivered vs sent: lost or duplicated");
	skb_queue_purge(&tgk->keep);
}

/* Builds the wire frames of a run and resets its result; both delivery paths start here. */
static void tgk_prepare(struct kunit *test, const struct tgk_seg *segs, unsigned int n,
			const struct tgk_opts *opts, struct tgk_result *res)
{
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, tgk);
	memset(res, 0, sizeof(*res));
	tgk_inner_ids_free = opts->inner_ids_free;
	tgk->nframes = 0;
	for (i = 0; i < n; i++) {
		/* A GSO input is gso_segs segments on the wire: the round trip gives them back. */
		unsigned int k, pieces = max_t(unsigned int, 1, segs[i].gso_segs);
		struct tgk_seg w = segs[i];

		w.payload_len = segs[i].payload_len / pieces;
		w.gso_segs = 0;
		for (k = 0; k < pieces; k++) {
			unsigned int f = tgk->nframes++;

			KUNIT_ASSERT_LE(test, tgk->nframes, (unsigned int)TGK_MAX_SEGS);
			tgk->frame_len[f] = tgk_build(tgk->frames[f], &w);
			/*
			 * order key: port (0-255), encap, IPv6 flow label (another label: a
			 * flow); none (TGK_FLOW_KEYS) for a bad checksum: the kernel's TCP GRO
			 * validates it before looking for the flow (tcp4_gro_receive), so it
			 * goes up before a held packet of its flow
			 */
			tgk->flow[f] = w.bad_csum ? TGK_FLOW_KEYS :
				       ((w.sport - 40000) & 0xff) | (w.encap << 8) |
				       (w.inner6.flow_label ? 2048 : 0) |
				       (w.outer6.flow_label ? 4096 : 0);
			w.seq += w.payload_len;
			w.inner4.id++;
			w.outer.id += w.encap == TGK_PLAIN4 ? 1 : 0;
		}
	}
}

/*
 * The input skbs of a train, built before the BH-disabled part of a run: the builder sleeps
 * (GFP_KERNEL), which a receive path under local_bh_disable() or rcu_read_lock() must not
 * (DEBUG_ATOMIC_SLEEP and PROVE_RCU say so on the debug kernel).
 */
static struct sk_buff **tgk_inputs(struct kunit *test, const struct tgk_seg *segs, unsigned int n,
				   const struct tgk_opts *opts)
{
	struct sk_buff **in = kunit_kcalloc(test, n + 1, sizeof(*in), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, in);
	for (i = 0; i < n; i++)
		in[i] = tgk_input(test, &segs[i], opts);
	return in;
}

void tgk_run(struct kunit *test, const struct tgk_seg *segs, unsigned int n,
	     const struct tgk_opts *opts, struct tgk_result *res)
{
	struct sk_buff **in;
	unsigned int i;

	tgk_prepare(test, segs, n, opts, res);
	in = tgk_inputs(test, segs, n, opts);

	/*
	 * One NAPI poll: scheduled, fed, completed. napi_complete_done flushes the GRO lists
	 * (oldest first) and hands the GRO_NORMAL batch to the stack, as a driver's poll ends.
	 */
	local_bh_disable();
	KUNIT_ASSERT_TRUE(test, napi_schedule_prep(&tgk->napi));
	for (i = 0; i < n; i++)
		napi_gro_receive(&tgk->napi, in[i]);
	napi_complete_done(&tgk->napi, 0);
	local_bh_enable();

	tgk_collect(test, segs, n, res);
}

/* ---- engine path: tungro's NAPI glue (tungro_engine.c) on a test receive queue ---- */

/* Waits up to 5 s for @q to be idle: input drained, NAPI done, (@all) nothing queued or held. */
static bool tgk_engine_idle(struct tungro_rxq *q, bool all)
{
	unsigned long end = jiffies + 5 * HZ;

	while (skb_queue_len(&q->input) || napi_is_scheduled(&q->napi) ||
	       (all && atomic_read(&q->td->inflight))) {
		if (time_after(jiffies, end))
			return false;
		usleep_range(500, 1000);
	}
	return true;
}

/*
 * A receive queue of the engine glue for the test device, as an attach sets one up: its own
 * dummy NAPI device, a table of @buckets x @flows (@flags: tgc_engine_init's).
 */
static struct tungro_rxq *tgk_engine_open(struct kunit *test, u32 buckets, u32 flows, u32 flags)
{
	struct tungro_dev *td = kunit_kzalloc(test, struct_size(td, rxq, 1), GFP_KERNEL);
	int err;

	KUNIT_ASSERT_NOT_NULL(test, td);
	td->dev = tgk->dev;
	td->nq = 1;
	td->napi_dev = alloc_netdev_dummy(0);
	KUNIT_ASSERT_NOT_NULL(test, td->napi_dev);
	err = tungro_rxq_init(&td->rxq[0], td, buckets, flows, flags);
	if (err)
		free_netdev(td->napi_dev);
	KUNIT_ASSERT_EQ(test, err, 0);
	return &td->rxq[0];
}

/* Frees a queue of tgk_engine_open() after tungro_rxq_stop(). */
static void tgk_engine_close(struct tungro_rxq *q)
{
	struct net_device *napi_dev = q->td->napi_dev;

	tungro_rxq_free(q);
	free_netdev(napi_dev);
}

void tgk_run_engine(struct kunit *test, const struct tgk_seg *segs, unsigned int n,
		    const struct tgk_opts *opts, struct tgk_result *res, struct tgk_engine_run *run)
{
	struct sk_buff_head in;
	struct tungro_dev *td;
	struct tungro_rxq *q;
	struct tgc_engine_stats st;
	unsigned long first_jiffy;
	struct sk_buff *skb;
	unsigned int i;

	tgk_prepare(test, segs, n, opts, res);
	KUNIT_ASSERT_LE(test, run->extra_polls, (unsigned int)ARRAY_SIZE(run->held_after));
	q = tgk_engine_open(test, run->buckets, run->flows,
			    (run->kernel_hash ? TGC_ENGINE_CALLER_HASH : 0) |
			    (run->ipv4_options ? TGC_ENGINE_IPV4_OPTIONS : 0));
	td = q->td;
	WRITE_ONCE(tgk->dev->gro_flush_timeout, run->flush_timeout);
	WRITE_ONCE(tgk->dev->napi_defer_hard_irqs, run->defer_hard_irqs);
	WRITE_ONCE(tgk->dev->features, tgk->dev->features | run->features);

	__skb_queue_head_init(&in);
	for (i = 0; i < n; i++)
		__skb_queue_tail(&in, tgk_input(test, &segs[i], opts));
	/* All queued before this CPU's softirq runs the NAPI: polls of min(64, what is left). */
	first_jiffy = jiffies;
	local_bh_disable();
	while ((skb = __skb_dequeue(&in)))
		tungro_rxq_enqueue(q, skb);
	local_bh_enable();
	KUNIT_EXPECT_TRUE_MSG(test, tgk_engine_idle(q, !run->stop_held),
			      "engine queue not idle after 5 s: %u queued, %d in flight",
			      skb_queue_len(&q->input), atomic_read(&td->inflight));

	tgc_engine_get_stats(q->engine, &run->st);
	for (i = 0; i < run->extra_polls; i++) {
		local_bh_disable();
		napi_schedule(&q->napi);
		local_bh_enable();
		KUNIT_EXPECT_TRUE(test, tgk_engine_idle(q, false));
		tgc_engine_get_stats(q->engine, &st);
		run->held_after[i] = st.held_now;
	}
	run->one_jiffy = !time_after(jiffies, first_jiffy);
	run->held_at_stop = 0;
	run->queued_at_stop = 0;
	tungro_rxq_stop(q, run->stop_direct, &run->held_at_stop, &run->queued_at_stop);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&td->inflight), 0,
			    "skbs neither delivered nor freed after the stop (a leak)");
	run->polls = q->acc[TUNGRO_Q_POLLS];
	run->polls_full = q->acc[TUNGRO_Q_POLLS_FULL];
	run->timer_armed = q->acc[TUNGRO_Q_TIMER_ARMED];
	run->lists = q->acc[TUNGRO_Q_LISTS];
	run->list_pkts = q->acc[TUNGRO_Q_LIST_PKTS];
	tgk_engine_close(q);
	WRITE_ONCE(tgk->dev->gro_flush_timeout, 0);
	WRITE_ONCE(tgk->dev->napi_defer_hard_irqs, 0);
	WRITE_ONCE(tgk->dev->features, tgk->dev->features & ~run->features);
	tgk_collect(test, segs, n, res);
}

/* ---- timed runs (tungro_bench): the same train through each receive path ---- */

/* Counts what the stack received since the last call and frees it; the time is the caller's. */
static void tgk_bench_count(struct tgk_bench_sample *out)
{
	struct sk_buff *skb;

	while ((skb = skb_dequeue(&tgk->rx))) {
		out->pkts++;
		out->segs += max_t(unsigned int, 1, skb_shinfo(skb)->gso_segs);
		kfree_skb(skb);
	}
}

/* NAPI polls of up to 64 (the NAPI weight) through napi_gro_receive, as a driver feeds them. */
static void tgk_bench_napi(struct sk_buff **in, unsigned int n)
{
	unsigned int i = 0, k;

	while (i < n) {
		napi_schedule_prep(&tgk->napi);
		for (k = 0; k < 64 && i < n; k++)
			napi_gro_receive(&tgk->napi, in[i++]);
		napi_complete_done(&tgk->napi, k);
	}
}

void tgk_bench_run(struct kunit *test, const struct tgk_seg *segs, unsigned int n,
		   enum tgk_path path, struct tgk_bench_sample *out)
{
	/*
	 * virtio-net's receive layout of a full-size frame in mergeable buffers (page_to_skb()):
	 * only the Ethernet header copied to the head, the rest in a page frag, so GRO reads the
	 * headers through frag0; the TCP checksum verified by the device
	 * (VIRTIO_NET_HDR_F_DATA_VALID)
	 */
	static const struct tgk_opts page = { .page_frag = true, .no_linear = true,
					      .csum_unnecessary = true };
	struct tungro_rxq *q = NULL;
	u64 t0, t1, held = 0, queued = 0;
	struct sk_buff **in;
	unsigned int i;

	memset(out, 0, sizeof(*out));
	in = tgk_inputs(test, segs, n, &page);
	if (path == TGK_PATH_ENGINE)
		q = tgk_engine_open(test, TGC_ENGINE_BUCKETS, TGC_ENGINE_FLOWS, 0);
	if (path == TGK_PATH_GRO_OFF)
		tgk->dev->features &= ~NETIF_F_GRO;

	t0 = ktime_get_ns();
	local_bh_disable();
	if (q) {
		/* the rx_handler's part; the queue's NAPI polls run at local_bh_enable() */
		for (i = 0; i < n; i++)
			tungro_rxq_enqueue(q, in[i]);
	} else {
		tgk_bench_napi(in, n);
	}
	local_bh_enable();
	t1 = ktime_get_ns();

	if (q) {
		/* left to ksoftirqd (softirq time or restart limit): the time is not the polls' */
		out->deferred = skb_queue_len(&q->input) || napi_is_scheduled(&q->napi) ||
				atomic_read(&q->td->inflight);
		KUNIT_EXPECT_TRUE(test, tgk_engine_idle(q, true));
		tungro_rxq_stop(q, false, &held, &queued);
		KUNIT_EXPECT_EQ_MSG(test, held + queued, 0ULL,
				    "the engine kept skbs past an idle queue");
		tgk_engine_close(q);
	}
	tgk->dev->features |= NETIF_F_GRO;
	out->ns = t1 - t0;
	tgk_bench_count(out);
}

/* ---- direct path: tungro's gro_receive/gro_complete on a GRO list the test owns ---- */

/* The stack's side of a delivered packet: queue it as the rx_handler would have. */
static void tgk_deliver(struct sk_buff *skb)
{
	skb_queue_tail(&tgk->rx, skb);
}

/*
 * What napi_gro_complete and inet_gro_complete do before the tunnel's gro_complete: single
 * segments go up as they are; for more, the outer IPv4 length and checksum are fixed and the
 * protocol's callback runs.
 */
static void tgk_direct_complete(struct kunit *test, struct sk_buff *p)
{
	struct iphdr *iph = (struct iphdr *)p->data;
	int err;

	if (NAPI_GRO_CB(p)->count == 1) {
		skb_shinfo(p)->gso_size = 0;
		tgk_deliver(p);
		return;
	}
	p->encapsulation = 0;
	iph->tot_len = htons(p->len);
	iph->check = 0;
	iph->check = ip_fast_csum(iph, 5);
	err = tungro_gro_complete_of[iph->protocol == IPPROTO_IPIP ? TUNGRO_SLOT_IPIP :
				     TUNGRO_SLOT_SIT](p, sizeof(*iph));
	KUNIT_EXPECT_EQ(test, err, 0);
	tgk_deliver(p);
}

/*
 * One segment through tungro's gro_receive the way dev_gro_receive and inet_gro_receive hand it
 * over: GRO state reset, held packets of the same device marked same_flow, outer IPv4 checked and
 * pulled (flush on a length or fragment mismatch, same_flow cleared on other addresses or
 * protocol).
 */
static void tgk_direct_one(struct kunit *test, struct list_head *held, unsigned int *nheld,
			   struct sk_buff *skb)
{
	const struct iphdr *iph = (const struct iphdr *)skb->data;
	struct sk_buff *p, *pp;

	memset(NAPI_GRO_CB(skb), 0, sizeof(struct napi_gro_cb));
	NAPI_GRO_CB(skb)->frag0 = skb->data;
	NAPI_GRO_CB(skb)->frag0_len = skb_headlen(skb);
	NAPI_GRO_CB(skb)->count = 1;
	skb_set_network_header(skb, 0);
	list_for_each_entry(p, held, list) {
		const struct iphdr *iph2 = (const struct iphdr *)p->data;

		NAPI_GRO_CB(p)->same_flow = iph->protocol == iph2->protocol &&
					    iph->saddr == iph2->saddr &&
					    iph->daddr == iph2->daddr;
	}
	NAPI_GRO_CB(skb)->flush = ntohs(iph->tot_len) != skb->len ||
				  (ntohs(iph->frag_off) & ~IP_DF);
	NAPI_GRO_CB(skb)->network_offsets[0] = 0;
	skb_gro_pull(skb, sizeof(*iph));
	skb_set_transport_header(skb, skb_gro_offset(skb));

	pp = tungro_gro_receive_of[iph->protocol == IPPROTO_IPIP ? TUNGRO_SLOT_IPIP :
				   TUNGRO_SLOT_SIT](held, skb);
	if (pp) {
		skb_list_del_init(pp);
		(*nheld)--;
		tgk_direct_complete(test, pp);
	}
	if (NAPI_GRO_CB(skb)->same_flow) {
		/* merged: test skbs have kmalloc'd heads: tungro chains or steals frags only */
		unsigned int free_mode = NAPI_GRO_CB(skb)->free;

		KUNIT_EXPECT_NE(test, free_mode, (unsigned int)NAPI_GRO_FREE_STOLEN_HEAD);
		if (free_mode)
			kfree_skb(skb);
		return;
	}
	if (NAPI_GRO_CB(skb)->flush) {
		tgk_deliver(skb);
		return;
	}
	if (*nheld >= 8) {
		/* bucket full: the oldest (list tail) is completed */
		p = list_last_entry(held, struct sk_buff, list);
		skb_list_del_init(p);
		(*nheld)--;
		tgk_direct_complete(test, p);
	}
	NAPI_GRO_CB(skb)->age = jiffies;
	NAPI_GRO_CB(skb)->last = skb;
	if (!skb_is_gso(skb))
		skb_shinfo(skb)->gso_size = skb_gro_len(skb);
	list_add(&skb->list, held);
	(*nheld)++;
}

/*
 * Held packet @p's prediction out of reach, the way tungro_pred.h says one is: another CPU's tag
 * (an skb held there), its slot naming another packet (the address held again), or its count
 * behind the packet's (a merge tgc_receive() did not keep it up for; here, its count set back).
 */
static void tgk_pred_break(struct sk_buff *p, unsigned int how)
{
	struct tungro_pred_cpu __percpu *preds = READ_ONCE(tungro_preds);

	if (how == TGK_PRED_OTHER_CPU)
		tungro_cb_set_pred_cpu(p, tungro_pred_tag() + 1);
	else if (preds && how == TGK_PRED_SLOT_REUSED)
		tungro_pred_slot_of(preds, p)->p = NULL;
	else if (preds)
		tungro_pred_slot_of(preds, p)->pred.count--;
}

void tgk_run_direct(struct kunit *test, const struct tgk_seg *segs, unsigned int n,
		    const struct tgk_opts *opts, struct tgk_result *res, int forget_after)
{
	LIST_HEAD(held);
	unsigned int i, nheld = 0;
	struct sk_buff **in;

	tgk_prepare(test, segs, n, opts, res);
	in = tgk_inputs(test, segs, n, opts);

	rcu_read_lock();
	local_bh_disable();
	for (i = 0; i < n; i++) {
		tgk_direct_one(test, &held, &nheld, in[i]);
		if ((int)i == forget_after) {
			struct sk_buff *p;

			/*
			 * As if the kernel's own GRO had held these (tungro loaded mid-flow): no
			 * tungro state, or stale cb bytes that happen to equal tungro's magic on a
			 * packet older than the install.
			 */
			list_for_each_entry(p, &held, list) {
				if (opts->pred_break) {
					tgk_pred_break(p, opts->pred_break);
					continue;
				}
				if (opts->stale_magic) {
					tungro_cb_set_mark(p, TUNGRO_CB_MAGIC);
					NAPI_GRO_CB(p)->age = READ_ONCE(tungro_installed_at);
				} else {
					tungro_cb_reset(p);
				}
			}
		}
	}
	while (!list_empty(&held)) {
		struct sk_buff *p = list_last_entry(&held, struct sk_buff, list);

		skb_list_del_init(p);
		tgk_direct_complete(test, p);
	}
	local_bh_enable();
	rcu_read_unlock();
	tgk_collect(test, segs, n, res);
}

void tgk_expect_counts(struct kunit *test, const struct tgk_result *res,
		       const unsigned int *counts, unsigned int n)
{
	unsigned int i;

	KUNIT_EXPECT_EQ_MSG(test, res->n, n, "number of delivered packets");
	for (i = 0; i < min(n, res->n); i++)
		KUNIT_EXPECT_EQ_MSG(test, res->pkt[i].segs, counts[i],
				    "segments in delivered packet %u", i);
}

void tgk_run_all_layouts(struct kunit *test, const struct tgk_seg *segs, unsigned int n,
			 const unsigned int *counts, unsigned int ncounts)
{
	static const struct tgk_opts layouts[] = {
		{ .page_frag = false, .align = 0 },
		{ .page_frag = false, .align = 2 },
		{ .page_frag = true, .align = 0 },
		{ .page_frag = true, .align = 2 },
	};
	struct tgk_result *res = kunit_kzalloc(test, sizeof(*res), GFP_KERNEL);
	unsigned int l;

	KUNIT_ASSERT_NOT_NULL(test, res);
	for (l = 0; l < ARRAY_SIZE(layouts); l++) {
		tgk_run(test, segs, n, &layouts[l], res);
		tgk_expect_counts(test, res, counts, ncounts);
	}
}

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tungro KUnit suites: GRO on real skbs via napi_gro_receive, GSO round trip");
