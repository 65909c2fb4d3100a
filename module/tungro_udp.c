// SPDX-License-Identifier: GPL-2.0
/*
 * tungro_udp.c - the engine's answer to 6.12's UDP GRO question: may this datagram be merged?
 *
 * 6.12's udp_gro_receive() (net/ipv4/udp_offload.c) merges UDP only for a socket with UDP_GRO,
 * or with no socket on a device with NETIF_F_GRO_UDP_FWD, or on a device with
 * NETIF_F_GRO_FRAGLIST; a socket with its own gro_receive (a UDP tunnel: VXLAN, GENEVE, FOU) has
 * its own GRO, which the engine does not do. tungro's core decides every other rule; this file
 * only looks the socket up and sets TGC_IN_UDP_GRO.
 *
 * The lookup: udp4/6_gro_lookup_skb() of udp_offload.c are static and udp4/6_lib_lookup_skb()
 * are not exported; udp4/6_lib_lookup() are exported only with CONFIG_NF_TPROXY_* or
 * CONFIG_NF_SOCKET_* (Debian has them as modules, the test kernels do not) and take a reference.
 * __udp4_lib_lookup() and __udp6_lib_lookup() are exported (GPL) wherever UDP is: tungro calls
 * them as udp4/6_gro_lookup_skb() do (innermost addresses, the device's netns and ifindex, its
 * udp_table (6.1: the global one, module/compat/), no skb: no BPF reuseport selection), under
 * RCU, no reference taken, and only when some socket enabled UDP encapsulation or GRO
 * (udp_encap_needed(), which UDP_GRO enables).
 */
#include <linux/netdevice.h>
#include <linux/udp.h>
#include <net/gro.h>
#include <net/udp.h>

#include "tungro_cb.h"
#include "tungro_engine.h"

/* The socket 6.12's udp4/6_gro_lookup_skb() finds for the datagram, or NULL. Under RCU. */
static struct sock *tungro_udp_sk(struct sk_buff *skb, const u8 *nh, const struct udphdr *uh,
				  unsigned int version)
{
	struct net *net = dev_net(skb->dev);
	int iif, sdif;

	if (version == 4) {
		const struct iphdr *iph = (const struct iphdr *)nh;

		inet_get_iif_sdif(skb, &iif, &sdif);
		return __udp4_lib_lookup(net, iph->saddr, uh->source, iph->daddr, uh->dest, iif,
					 sdif, tungro_udp_table(net), NULL);
	}
#if IS_ENABLED(CONFIG_IPV6)
	{
		const struct ipv6hdr *ip6 = (const struct ipv6hdr *)nh;

		inet6_get_iif_sdif(skb, &iif, &sdif);
		return __udp6_lib_lookup(net, &ip6->saddr, uh->source, &ip6->daddr, uh->dest, iif,
					 sdif, tungro_udp_table(net), NULL);
	}
#else
	return NULL;	/* no IPv6 socket without IPv6 */
#endif
}

/**
 * tungro_udp_gro_lookup() - tungro_udp_gro_in()'s answer where tungro_udp_gro_possible() said yes
 * @skb: the segment (skb->dev the attached device), headers pulled to @seg->hdr
 * @seg: the segment as the engine will see it (hdr, hdr_len, pkt_len, encap set)
 *
 * 0 for anything that is not a UDP datagram the core can parse. For a datagram, 6.12's decision in
 * udp_gro_receive(): a socket with UDP_GRO, or no socket and NETIF_F_GRO_UDP_FWD, or
 * NETIF_F_GRO_FRAGLIST without an encapsulation socket (6.12 then builds a fraglist packet; tungro
 * builds the UDP_L4 packet GRO_UDP_FWD gets, which a socket without UDP_GRO resegments on
 * receive, udp_unexpected_gso()). Softirq (the engine's NAPI poll).
 *
 * Return: TGC_IN_UDP_GRO, or 0.
 */
u32 tungro_udp_gro_lookup(struct sk_buff *skb, const struct tgc_seg *seg)
{
	netdev_features_t features = READ_ONCE(skb->dev->features);
	const struct udphdr *uh;
	struct tgc_pkt pkt;
	struct sock *sk = NULL;
	bool gro;

	/* 6.12: a packet encapsulated locally in a tunnel it did not see is never merged */
	if (skb->encapsulation ||
	    tgc_parse_as(seg->hdr, seg->hdr_len, seg->pkt_len, seg->encap, 0, TGC_IN_UDP_GRO,
			 &pkt) ||
	    !tgc_pkt_is_udp(&pkt))
		return 0;
	uh = (const struct udphdr *)(seg->hdr + pkt.tcp_off);
	rcu_read_lock();
	if (udp_encap_needed())
		sk = tungro_udp_sk(skb, seg->hdr + pkt.inner_off, uh, pkt.inner_version);
	if (sk && udp_sk(sk)->gro_receive)
		gro = false;	/* a UDP tunnel's socket: its own GRO, not the engine's */
	else
		gro = (sk && udp_test_bit(GRO_ENABLED, sk)) ||
		      (!sk && (features & NETIF_F_GRO_UDP_FWD)) ||
		      (features & NETIF_F_GRO_FRAGLIST);
	rcu_read_unlock();
	return gro ? TGC_IN_UDP_GRO : 0;
}
