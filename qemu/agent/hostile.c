/* hostile.c - hostile frames on the wire (issue 10): a table of broken or adversarial frames sent through the
 * tunnel path (and a few plain ones) by conform.c's sender, each the third of a train of five segments of one flow
 * so that a wrong merge or a flush that should not happen shows in the "got" string (conform.c's header). For
 * every kind, what the receiver delivers (the got string) and drops (the error and drop counters of /proc/net/snmp,
 * snmp6, netstat and /proc/net/dev that moved) with tungro loaded (offloads) and with eth0 attached to tungro's
 * engine must equal what the kernel's own GRO gives. The differences allowed are README's differences of order
 * (the same packets in another order): P12 (a bad TCP checksum inside IPIP/SIT: tungro completes the held packet
 * first), an outer IPv6 version other than 6, and on the engine a lone segment with well-formed IPv4 options.
 * A kind whose outcome differs is sent again, up to 2 times, as conform does for emulation jitter; one that still
 * differs has the kernel's outcome taken again once (ref_again), the reference being one send as well.
 */
#include "agent.h"
#include "conform.h"
#include "frame.h"

#include <errno.h>
#include <linux/if_ether.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* what a row changes in the hostile (third) segment, beside its mutations */
enum hop { H_MUT, H_IHL, H_OIHL, H_DOFF, H_TOPT, H_NEST, H_TRUNC, H_PAD, H_OTOT, H_MF, H_FLAGS, H_BADCSUM, H_V6EXT,
	   H_TS, H_OEXT };

#define HF_P12 1     /* README's P12: the same packets, the order may differ */
#define HF_FLOW 2    /* the hostile segment is another flow (addresses): its own "f1:" in the got string */
/* well-formed IPv4 options: the engine (ipv4_options=1, README) holds the segment as a flow of its own layout, so it
 * goes up after the flow's held packet, not before it as 6.12's: the same packets, the order may differ */
#define HF_OPTS 4
/* README: an outer IPv6 header whose version nibble is not 6; tungro passes it up at once, 6.12's ipv6_gro_receive
 * (which never reads the version) holds it as a flow of its own: the same packets, the order may differ */
#define HF_V6VER 8

struct hkind {
	const char *id;
	int enc;
	enum hop op;
	int arg;                 /* H_V6EXT: 8-byte units | type << 8 */
	int pay;                 /* the hostile segment's payload (0: MSS) */
	int fl;                  /* HF_* */
	struct fmut m[FRAME_NMUT];
};

#define MU(l, o, md, v) { ML_##l, MM_##md, 0, o, v }
#define MN(l, o, md, v) { ML_##l, MM_##md, 1, o, v }   /* the layer's checksum left as the mutation makes it */
#define F(fl) H_FLAGS, fl, 0, 0, { { 0 } }

static const struct hkind g_kinds[] = {
	/* outer IPv4 of IPIP: every field */
	{ "out_version6", E_IPIP, H_MUT, 0, 0, 0, { MU(OUT, 0, SET8, 0x65) } },
	{ "out_version0", E_IPIP, H_MUT, 0, 0, 0, { MU(OUT, 0, SET8, 0x05) } },
	{ "out_ihl0", E_IPIP, H_MUT, 0, 0, 0, { MU(OUT, 0, SET8, 0x40) } },
	{ "out_ihl4", E_IPIP, H_OIHL, 4, 0, 0, { { 0 } } },
	{ "out_ihl6_nop_opts", E_IPIP, H_OIHL, 6, 0, HF_OPTS, { { 0 } } },
	{ "out_ihl15_nop_opts", E_IPIP, H_OIHL, 15, 1300, HF_OPTS, { { 0 } } },
	{ "out_opt_len_past_ihl", E_IPIP, H_OIHL, 6, 0, 0, { MU(OUT, 20, SET8, 0x07), MU(OUT, 21, SET8, 39) } },
	{ "out_totlen_short", E_IPIP, H_MUT, 0, 0, 0, { MU(OUT, 2, ADD16, -100) } },
	{ "out_totlen_below_ihl", E_IPIP, H_MUT, 0, 0, 0, { MU(OUT, 2, SET16, 12) } },
	{ "out_totlen_zero", E_IPIP, H_MUT, 0, 0, 0, { MU(OUT, 2, SET16, 0) } },
	{ "out_totlen_long1", E_IPIP, H_OTOT, 1, 0, 0, { { 0 } } },
	{ "out_totlen_ffff", E_IPIP, H_MUT, 0, 0, 0, { MU(OUT, 2, SET16, 0xffff) } },
	{ "out_mf", E_IPIP, H_MUT, 0, 0, 0, { MU(OUT, 6, SET16, 0x2000) } },
	{ "out_frag_offset", E_IPIP, H_MUT, 0, 0, 0, { MU(OUT, 6, SET16, 0x0001) } },
	{ "out_reserved_flag", E_IPIP, H_MUT, 0, 0, 0, { MU(OUT, 6, SET16, 0xc000) } },
	{ "out_ttl0", E_IPIP, H_MUT, 0, 0, 0, { MU(OUT, 8, SET8, 0) } },
	{ "out_proto_tcp", E_IPIP, H_MUT, 0, 0, 0, { MU(OUT, 9, SET8, 6) } },
	{ "out_proto_udp", E_IPIP, H_MUT, 0, 0, 0, { MU(OUT, 9, SET8, 17) } },
	{ "out_proto_gre", E_IPIP, H_MUT, 0, 0, 0, { MU(OUT, 9, SET8, 47) } },
	{ "out_proto_ipv6_in_ipip", E_IPIP, H_MUT, 0, 0, 0, { MU(OUT, 9, SET8, 41) } },
	{ "out_csum_bad", E_IPIP, H_MUT, 0, 0, 0, { MN(OUT, 10, XOR8, 0x55) } },
	{ "out_csum_bad_sit", E_SIT, H_MUT, 0, 0, 0, { MN(OUT, 10, XOR8, 0x55) } },
	{ "out_src_loopback", E_IPIP, H_MUT, 0, 0, HF_FLOW, { MU(OUT, 12, SET8, 127) } },
	{ "out_dst_other", E_IPIP, H_MUT, 0, 0, HF_FLOW, { MU(OUT, 19, SET8, 77) } },
	/* inner IPv4 of IPIP */
	{ "in_version6", E_IPIP, H_MUT, 0, 0, 0, { MU(IN, 0, SET8, 0x65) } },
	{ "in_ihl0", E_IPIP, H_MUT, 0, 0, 0, { MU(IN, 0, SET8, 0x40) } },
	{ "in_ihl4", E_IPIP, H_IHL, 4, 0, 0, { { 0 } } },
	{ "in_ihl7_nop_opts", E_IPIP, H_IHL, 7, 0, HF_OPTS, { { 0 } } },
	{ "in_ihl15_nop_opts", E_IPIP, H_IHL, 15, 1300, HF_OPTS, { { 0 } } },
	{ "in_opt_len0", E_IPIP, H_IHL, 6, 0, 0, { MU(IN, 20, SET8, 0x44), MU(IN, 21, SET8, 0) } },
	{ "in_opt_len_past_ihl", E_IPIP, H_IHL, 6, 0, 0, { MU(IN, 20, SET8, 0x07), MU(IN, 21, SET8, 40) } },
	{ "in_opt_router_alert", E_IPIP, H_IHL, 6, 0, 0, { MU(IN, 20, SET8, 0x94), MU(IN, 21, SET8, 4) } },
	{ "in_totlen_short", E_IPIP, H_MUT, 0, 0, 0, { MU(IN, 2, ADD16, -10) } },
	{ "in_totlen_long", E_IPIP, H_MUT, 0, 0, 0, { MU(IN, 2, ADD16, 10) } },
	{ "in_totlen_below_ihl", E_IPIP, H_MUT, 0, 0, 0, { MU(IN, 2, SET16, 12) } },
	{ "in_mf", E_IPIP, H_MF, 1, 0, 0, { { 0 } } },
	{ "in_frag_offset", E_IPIP, H_MUT, 0, 0, 0, { MU(IN, 6, SET16, 0x4001) } },
	{ "in_reserved_flag", E_IPIP, H_MUT, 0, 0, 0, { MU(IN, 6, SET16, 0xc000) } },
	{ "in_ttl0", E_IPIP, H_MUT, 0, 0, 0, { MU(IN, 8, SET8, 0) } },
	{ "in_proto_udp", E_IPIP, H_MUT, 0, 0, 0, { MU(IN, 9, SET8, 17) } },
	{ "in_proto_255", E_IPIP, H_MUT, 0, 0, 0, { MU(IN, 9, SET8, 255) } },
	{ "in_csum_bad", E_IPIP, H_MUT, 0, 0, 0, { MN(IN, 10, XOR8, 0x55) } },
	{ "in_src_other", E_IPIP, H_MUT, 0, 0, HF_FLOW, { MU(IN, 15, SET8, 9) } },
	/* TCP inside IPIP: data offset, options, flags, checksum */
	{ "tcp_doff0", E_IPIP, H_MUT, 0, 0, 0, { MU(L4, 12, SET8, 0x00) } },
	{ "tcp_doff4", E_IPIP, H_DOFF, 4, 0, 0, { { 0 } } },
	{ "tcp_doff15_eats_payload", E_IPIP, H_DOFF, 15, 0, 0, { { 0 } } },
	{ "tcp_doff15_past_end", E_IPIP, H_DOFF, 15, 20, 0, { { 0 } } },
	{ "tcp_opt_mss_len_past", E_IPIP, H_TOPT, 4, 0, 0, { MU(L4, 20, SET8, 2), MU(L4, 21, SET8, 40) } },
	{ "tcp_opt_len0", E_IPIP, H_TOPT, 4, 0, 0, { MU(L4, 20, SET8, 8), MU(L4, 21, SET8, 0) } },
	{ "tcp_opt_len1", E_IPIP, H_TOPT, 4, 0, 0, { MU(L4, 20, SET8, 3), MU(L4, 21, SET8, 1) } },
	{ "tcp_opt_sack_len_past", E_IPIP, H_TOPT, 12, 0, 0, { MU(L4, 20, SET8, 5), MU(L4, 21, SET8, 34) } },
	{ "tcp_opt_eol_then_junk", E_IPIP, H_TOPT, 8, 0, 0, { MU(L4, 20, SET8, 0), MU(L4, 21, SET8, 0xff) } },
	{ "tcp_opt_40_nops", E_IPIP, H_TOPT, 40, 0, 0, { { 0 } } },
	{ "tcp_ts_len_past", E_IPIP, H_TS, 0, 0, 0, { MU(L4, 22, SET8, 40) } },
	{ "tcp_ts_len0", E_IPIP, H_TS, 0, 0, 0, { MU(L4, 22, SET8, 0) } },
	{ "tcp_syn_fin", E_IPIP, F(0x13) },
	{ "tcp_syn_rst", E_IPIP, F(0x16) },
	{ "tcp_xmas", E_IPIP, F(0x3f) },
	{ "tcp_all_flags", E_IPIP, F(0xff) },
	{ "tcp_null_flags", E_IPIP, F(0x00) },
	{ "tcp_fin_no_ack", E_IPIP, F(0x01) },
	{ "tcp_cwr_ece", E_IPIP, F(0xd0) },
	{ "tcp_ece", E_IPIP, F(0x50) },
	{ "tcp_urg_psh", E_IPIP, F(0x38) },
	{ "tcp_rst_psh", E_IPIP, F(0x1c) },
	{ "tcp_ae_bit", E_IPIP, H_MUT, 0, 0, 0, { MU(L4, 12, XOR8, 0x01) } },
	{ "tcp_urgptr_no_urg", E_IPIP, H_MUT, 0, 0, 0, { MU(L4, 18, SET16, 100) } },
	{ "tcp_dport_other", E_IPIP, H_MUT, 0, 0, 0, { MU(L4, 2, ADD16, 1) } },
	{ "tcp_csum_bad", E_IPIP, H_BADCSUM, 1, 0, HF_P12, { { 0 } } },
	{ "tcp_csum_zero", E_IPIP, H_MUT, 0, 0, HF_P12, { MN(L4, 16, SET16, 0) } },
	{ "tcp_csum_bad_sit", E_SIT, H_BADCSUM, 1, 0, HF_P12, { { 0 } } },
	/* nested tunnels */
	{ "nest1", E_IPIP, H_NEST, 1, 0, 0, { { 0 } } },
	{ "nest3", E_IPIP, H_NEST, 3, 1340, 0, { { 0 } } },
	{ "nest7", E_IPIP, H_NEST, 7, 1000, 0, { { 0 } } },
	{ "nest15", E_IPIP, H_NEST, 15, 800, 0, { { 0 } } },
	{ "nest2_sit", E_SIT, H_NEST, 2, 1360, 0, { { 0 } } },
	{ "nest1_mid_ihl4", E_IPIP, H_NEST, 1, 1380, 0, { MU(MID, 0, SET8, 0x44) } },
	{ "nest1_mid_totlen_long", E_IPIP, H_NEST, 1, 0, 0, { MU(MID, 2, ADD16, 50) } },
	{ "nest1_mid_csum_bad", E_IPIP, H_NEST, 1, 0, 0, { MN(MID, 10, XOR8, 0x11) } },
	{ "nest1_mid_proto_tcp", E_IPIP, H_NEST, 1, 0, 0, { MU(MID, 9, SET8, 6) } },
	/* frames that end inside a header, or carry bytes after the packet */
	{ "trunc_eth_only", E_IPIP, H_TRUNC, 14, 0, 0, { { 0 } } },
	{ "trunc_in_outer", E_IPIP, H_TRUNC, 14 + 10, 0, 0, { { 0 } } },
	{ "trunc_outer_only", E_IPIP, H_TRUNC, 14 + 20, 0, 0, { { 0 } } },
	{ "trunc_in_inner", E_IPIP, H_TRUNC, 14 + 20 + 10, 0, 0, { { 0 } } },
	{ "trunc_inner_ip_only", E_IPIP, H_TRUNC, 14 + 40, 0, 0, { { 0 } } },
	{ "trunc_in_tcp", E_IPIP, H_TRUNC, 14 + 40 + 10, 0, 0, { { 0 } } },
	{ "trunc_tcp_hdr_only", E_IPIP, H_TRUNC, 14 + 40 + 20, 0, 0, { { 0 } } },
	{ "trunc_in_payload", E_IPIP, H_TRUNC, 14 + 40 + 20 + 100, 0, 0, { { 0 } } },
	{ "trunc_in_ip6_sit", E_SIT, H_TRUNC, 14 + 20 + 30, 0, 0, { { 0 } } },
	{ "pad_full_segment", E_IPIP, H_PAD, 30, 1370, 0, { { 0 } } },
	{ "pad_short_segment", E_IPIP, H_PAD, 40, 10, 0, { { 0 } } },
	/* inner IPv6 of SIT: fields and extension headers of many lengths */
	{ "sit_in_version4", E_SIT, H_MUT, 0, 0, 0, { MU(IN, 0, SET8, 0x40) } },
	{ "sit_plen_short", E_SIT, H_MUT, 0, 0, 0, { MU(IN, 4, ADD16, -10) } },
	{ "sit_plen_long", E_SIT, H_MUT, 0, 0, 0, { MU(IN, 4, ADD16, 10) } },
	{ "sit_plen_zero", E_SIT, H_MUT, 0, 0, 0, { MU(IN, 4, SET16, 0) } },
	{ "sit_nexthdr_udp", E_SIT, H_MUT, 0, 0, 0, { MU(IN, 6, SET8, 17) } },
	{ "sit_nexthdr_none", E_SIT, H_MUT, 0, 0, 0, { MU(IN, 6, SET8, 59) } },
	{ "sit_hlim0", E_SIT, H_MUT, 0, 0, 0, { MU(IN, 7, SET8, 0) } },
	{ "sit_ext_dst8", E_SIT, H_V6EXT, 1, 0, 0, { { 0 } } },
	{ "sit_ext_dst16", E_SIT, H_V6EXT, 2, 0, 0, { { 0 } } },
	{ "sit_ext_dst64", E_SIT, H_V6EXT, 8, 1300, 0, { { 0 } } },
	{ "sit_ext_hbh8", E_SIT, H_V6EXT, 1, 0, 0, { MU(IN, 6, SET8, 0) } },
	{ "sit_ext_hbh_not_first", E_SIT, H_V6EXT, 1 | 43 << 8, 0, 0, { MU(IN, 40, SET8, 0) } },
	{ "sit_ext_routing16", E_SIT, H_V6EXT, 2 | 43 << 8, 0, 0, { { 0 } } },
	{ "sit_ext_fragment", E_SIT, H_V6EXT, 1 | 44 << 8, 0, 0, { { 0 } } },
	{ "sit_ext_len_past_end", E_SIT, H_V6EXT, 1, 0, 0, { MU(IN, 41, SET8, 200) } },
	{ "sit_ext_padn_past_hdr", E_SIT, H_V6EXT, 1, 0, 0, { MU(IN, 43, SET8, 60) } },
	{ "sit_ext_padn_over_7", E_SIT, H_V6EXT, 2, 0, 0, { MU(IN, 43, SET8, 12), MU(IN, 48, SET8, 0) } },
	{ "sit_ext_unknown_opt", E_SIT, H_V6EXT, 1, 0, 0, { MU(IN, 42, SET8, 0xc2), MU(IN, 43, SET8, 4) } },
	{ "sit_doff4", E_SIT, H_DOFF, 4, 0, 0, { { 0 } } },
	{ "sit_syn_fin", E_SIT, F(0x03) },
	{ "sit_out_proto_ipip", E_SIT, H_MUT, 0, 0, 0, { MU(OUT, 9, SET8, 4) } },
	/* ip6ip6 and ip4ip6 (issue 9): the outer IPv6 header, an extension header on the third segment only, and the
	 * inner headers behind it; a segment with an extension header carries that much less payload, so that its
	 * frame stays within eth1's MTU */
	{ "x6_out_version4", E_6IN6, H_MUT, 0, 0, HF_V6VER, { MN(OUT, 0, SET8, 0x40) } },
	{ "x6_out_version7", E_6IN6, H_MUT, 0, 0, HF_V6VER, { MN(OUT, 0, SET8, 0x70) } },
	{ "x6_out_plen_short", E_6IN6, H_MUT, 0, 0, 0, { MU(OUT, 4, ADD16, -100) } },
	{ "x6_out_plen_long1", E_6IN6, H_MUT, 0, 0, 0, { MU(OUT, 4, ADD16, 1) } },
	{ "x6_out_plen_zero", E_6IN6, H_MUT, 0, 0, 0, { MU(OUT, 4, SET16, 0) } },
	{ "x6_out_plen_ffff", E_6IN6, H_MUT, 0, 0, 0, { MU(OUT, 4, SET16, 0xffff) } },
	{ "x6_out_nexthdr_tcp", E_6IN6, H_MUT, 0, 0, 0, { MU(OUT, 6, SET8, 6) } },
	{ "x6_out_nexthdr_udp", E_6IN6, H_MUT, 0, 0, 0, { MU(OUT, 6, SET8, 17) } },
	{ "x6_out_nexthdr_none", E_6IN6, H_MUT, 0, 0, 0, { MU(OUT, 6, SET8, 59) } },
	{ "x6_out_nexthdr_ipip", E_6IN6, H_MUT, 0, 0, 0, { MU(OUT, 6, SET8, 4) } },
	{ "x6_out_hlim0", E_6IN6, H_MUT, 0, 0, 0, { MU(OUT, 7, SET8, 0) } },
	{ "x6_out_ecn_ce", E_6IN6, H_MUT, 0, 0, 0, { MU(OUT, 1, XOR8, 0x30) } },
	{ "x6_out_enclim_on_3", E_6IN6, H_OEXT, OX_ENCLIM, MSS - 8, 0, { { 0 } } },
	{ "x6_out_ext_len_past_end", E_6IN6, H_OEXT, OX_ENCLIM, MSS - 8, 0, { MU(OUT, 41, SET8, 200) } },
	{ "x6_out_ext_next_none", E_6IN6, H_OEXT, OX_ENCLIM, MSS - 8, 0, { MU(OUT, 40, SET8, 59) } },
	{ "x6_out_fragment_on_3", E_6IN6, H_OEXT, OX_FRAG, MSS - 8, 0, { { 0 } } },
	{ "x6_in_plen_short", E_6IN6, H_MUT, 0, 0, 0, { MU(IN, 4, ADD16, -10) } },
	{ "x6_in_nexthdr_udp", E_6IN6, H_MUT, 0, 0, 0, { MU(IN, 6, SET8, 17) } },
	{ "x6_in_ext_len_past_end", E_6IN6, H_V6EXT, 1, MSS - 8, 0, { MU(IN, 41, SET8, 200) } },
	{ "x6_doff4", E_6IN6, H_DOFF, 4, 0, 0, { { 0 } } },
	{ "x6_syn_fin", E_6IN6, F(0x03) },
	{ "x46_in_version6", E_4IN6, H_MUT, 0, 0, 0, { MU(IN, 0, SET8, 0x65) } },
	{ "x46_in_totlen_short", E_4IN6, H_MUT, 0, 0, 0, { MU(IN, 2, ADD16, -10) } },
	{ "x46_in_csum_bad", E_4IN6, H_MUT, 0, 0, 0, { MN(IN, 10, XOR8, 0x55) } },
	{ "x46_in_mf", E_4IN6, H_MF, 1, 0, 0, { { 0 } } },
	{ "x46_out_nexthdr_ipv6", E_4IN6, H_MUT, 0, 0, 0, { MU(OUT, 6, SET8, 41) } },
	/* plain IPv4/IPv6 (the kernel's GRO with offloads; the engine's own path when attached) */
	{ "p4_csum_bad", E_P4, H_MUT, 0, 0, 0, { MN(IN, 10, XOR8, 0x55) } },
	{ "p4_totlen_long", E_P4, H_MUT, 0, 0, 0, { MU(IN, 2, ADD16, 10) } },
	{ "p4_ihl6_opt_len_past", E_P4, H_IHL, 6, 0, 0, { MU(IN, 20, SET8, 0x83), MU(IN, 21, SET8, 30) } },
	{ "p4_doff4", E_P4, H_DOFF, 4, 0, 0, { { 0 } } },
	{ "p4_syn_fin", E_P4, F(0x03) },
};

#define NKINDS (sizeof(g_kinds) / sizeof(g_kinds[0]))

static void build(const struct hkind *k, struct train *t)
{
	memset(t, 0, sizeof(*t));
	for (int i = 0; i < 5; i++) {
		sd_default(&t->s[i], k->enc, 0);
		t->s[i].ts = k->op == H_TS;
		if (t->s[i].ts)
			t->s[i].pay = MSS - 12;
	}
	t->n = 5;
	struct sd *h = &t->s[2];
	/* another flow: its own sequence numbers and line, so the order between flows (the kernel flushes its GRO
	 * lists bucket by bucket, the engine its own way) does not count */
	if (k->fl & HF_FLOW)
		h->flow = 1;
	if (k->pay)
		h->pay = k->pay;
	memcpy(h->mut, k->m, sizeof(h->mut));
	switch (k->op) {
	case H_IHL: h->ihl = k->arg; break;
	case H_OIHL: h->oihl = k->arg; break;
	case H_DOFF: h->doff = k->arg; break;
	case H_TOPT: h->topt = k->arg; h->pay -= k->arg; break;
	case H_NEST: h->nest = k->arg; break;
	case H_TRUNC: h->trunc = k->arg; break;
	case H_PAD: h->pad = k->arg; break;
	case H_OTOT: h->otot_delta = k->arg; break;
	case H_MF: h->mf = k->arg; break;
	case H_FLAGS: h->tflags = (unsigned)k->arg; break;
	case H_BADCSUM: h->badcsum = k->arg; break;
	case H_V6EXT: h->v6ext = k->arg & 0xff; h->v6ext_type = k->arg >> 8; break;
	case H_OEXT: h->oext = k->arg; break;
	case H_MUT: case H_TS: break;
	}
	frames_number(t->s, t->n);
}

/* ---- the receiver's error and drop counters ---- */

#define MAXCTR 400

struct ctrs {
	int n;
	char name[MAXCTR][48];
	unsigned long long v[MAXCTR];
};

/* counters of drops and errors; reassembly timeouts are left out: they fire 30 s after a fragment, in a later kind */
static int ctr_wanted(const char *name)
{
	static const char *const pat[] = { "Err", "Discard", "Trunc", "Csum", "Drop", "Unknown", "NoRoute", "Reasm",
					   "drop", "errs" };
	if (strstr(name, "ReasmFails") || strstr(name, "ReasmTimeout"))
		return 0;
	for (size_t i = 0; i < sizeof(pat) / sizeof(pat[0]); i++)
		if (strstr(name, pat[i]))
			return 1;
	return 0;
}

static void ctr_add(struct ctrs *c, const char *pfx, const char *name, unsigned long long v)
{
	char full[48];
	snprintf(full, sizeof(full), "%s%s", pfx, name);
	if (c->n < MAXCTR && ctr_wanted(full)) {
		snprintf(c->name[c->n], sizeof(c->name[0]), "%s", full);
		c->v[c->n++] = v;
	}
}

/* /proc/net/snmp and netstat: a "Proto: names" line, then a "Proto: values" line */
static void ctr_pairs(struct ctrs *c, const char *path)
{
	static char buf[16384];
	if (read_file(path, buf, sizeof(buf)))
		return;
	char *save = NULL, *names = strtok_r(buf, "\n", &save), *vals;
	while (names && (vals = strtok_r(NULL, "\n", &save))) {
		char *s1 = NULL, *s2 = NULL, *pfx = strtok_r(names, " ", &s1), *n, *v;
		strtok_r(vals, " ", &s2);
		while ((n = strtok_r(NULL, " ", &s1)) && (v = strtok_r(NULL, " ", &s2)))
			ctr_add(c, pfx, n, strtoull(v, NULL, 10));
		names = strtok_r(NULL, "\n", &save);
	}
}

static void ctr_snap(struct ctrs *c)
{
	static char buf[16384];
	c->n = 0;
	ctr_pairs(c, "/proc/net/snmp");
	ctr_pairs(c, "/proc/net/netstat");
	if (!read_file("/proc/net/snmp6", buf, sizeof(buf))) {
		char *save = NULL;
		for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			char name[48];
			unsigned long long v;
			if (sscanf(l, "%47s %llu", name, &v) == 2)
				ctr_add(c, "", name, v);
		}
	}
	/* /proc/net/dev: "iface: rx_bytes packets errs drop ..." */
	if (!read_file("/proc/net/dev", buf, sizeof(buf))) {
		char *save = NULL;
		for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			char ifn[24], pfx[32];
			unsigned long long b, p, e, d;
			if (sscanf(l, " %23[^:]: %llu %llu %llu %llu", ifn, &b, &p, &e, &d) != 5)
				continue;
			snprintf(pfx, sizeof(pfx), "%s.rx_", ifn);
			ctr_add(c, pfx, "errs", e);
			ctr_add(c, pfx, "drop", d);
		}
	}
}

/* "name+delta ..." of the counters that moved, or "-" */
static void ctr_delta(const struct ctrs *a, const struct ctrs *b, char *buf, size_t cap)
{
	size_t len = 0;
	buf[0] = 0;
	for (int i = 0; i < b->n; i++) {
		unsigned long long before = 0;
		for (int j = 0; j < a->n; j++)
			if (!strcmp(a->name[j], b->name[i])) {
				before = a->v[j];
				break;
			}
		if (b->v[i] == before)
			continue;
		int n = snprintf(buf + len, cap - len, "%s%s+%llu", len ? "," : "", b->name[i], b->v[i] - before);
		if (n < 0 || (size_t)n >= cap - len)
			break;
		len += (size_t)n;
	}
	if (!len)
		snprintf(buf, cap, "-");
}

/* ---- one kind through one engine ---- */

struct outcome {
	char got[256], why[200], drops[512];
};

static int run_kind(const struct hkind *k, struct outcome *o)
{
	static struct train t;
	static struct ctrs c0, c1;
	build(k, &t);
	ctr_snap(&c0);
	if (run_train(&t, o->got, sizeof(o->got), o->why, sizeof(o->why)))
		return -1;
	ctr_snap(&c1);
	ctr_delta(&c0, &c1, o->drops, sizeof(o->drops));
	return 0;
}

/* the got string's packets, sorted: README's order differences allow another order of the same packets */
static void sorted_packets(const char *got, char *buf, size_t cap)
{
	char tmp[256], *tok[64], *save = NULL;
	int n = 0;
	snprintf(tmp, sizeof(tmp), "%s", got);
	for (char *s = strtok_r(tmp, ", ", &save); s && n < 64; s = strtok_r(NULL, ", ", &save))
		tok[n++] = s;
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && strcmp(tok[j - 1], tok[j]) > 0; j--) {
			char *x = tok[j];
			tok[j] = tok[j - 1];
			tok[j - 1] = x;
		}
	size_t len = 0;
	buf[0] = 0;
	for (int i = 0; i < n && len < cap; i++)
		len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? "," : "", tok[i]);
}

/* 0 equal, 1 a README difference (P12's order, an outer IPv6 version; the engine's IPv4 options), 2 differing */
static int compare(const struct hkind *k, const struct outcome *ref, const struct outcome *o, int kind)
{
	int fl = k->fl & (HF_P12 | HF_V6VER | (kind == ENG_ENGINE ? HF_OPTS : 0));
	if (strcmp(ref->drops, o->drops) || strcmp(ref->why, o->why))
		return 2;
	if (!strcmp(ref->got, o->got))
		return 0;
	char a[256], b[256];
	sorted_packets(ref->got, a, sizeof(a));
	sorted_packets(o->got, b, sizeof(b));
	return fl && !strcmp(a, b) ? 1 : 2;
}

static struct outcome g_ref[NKINDS];

struct htally {
	int equal, readme, differ, retries, retaken;
};

/* The kernel's outcome of kind i taken again (tungro unloaded for it, then engine kind entered back), when an
 * engine still differs after its retries: the reference is one send too, and under TCG one of its frames was
 * seen counted twice (x:2 for x:1, m68k). 0 with the new reference in *ref, or -errno. */
static int retake_reference(const struct hkind *k, int kind, struct outcome *ref)
{
	int rc = eng_enter(ENG_KERNEL);
	if (!rc)
		rc = run_kind(k, ref) ? -EIO : 0;
	int back = eng_enter(kind);
	return rc ? rc : back;
}

static void run_engine(int kind, struct htally *tl)
{
	static const char *const res[3] = { "equal", "readme", "DIFFER" };
	for (size_t i = 0; i < NKINDS; i++) {
		const struct hkind *k = &g_kinds[i];
		struct outcome o;
		int r = 2, tries = 0;
		for (; tries < 3 && r == 2; tries++) {
			if (run_kind(k, kind == ENG_KERNEL ? &g_ref[i] : &o)) {
				snprintf(o.got, sizeof(o.got), "error");
				break;
			}
			r = kind == ENG_KERNEL ? 0 : compare(k, &g_ref[i], &o, kind);
		}
		int retaken = 0;
		if (r == 2 && kind != ENG_KERNEL && strcmp(o.got, "error")) {
			struct outcome ref;
			int rc = retake_reference(k, kind, &ref);
			if (rc)
				fail("hostile %s: the kernel's outcome again, back to %s: %s", k->id, g_eng_name[kind],
				     strerror(-rc));
			else if (compare(k, &ref, &o, kind) < 2) {
				g_ref[i] = ref;
				r = compare(k, &ref, &o, kind);
				retaken = 1;
				tl->retaken++;
			}
		}
		const struct outcome *show = kind == ENG_KERNEL ? &g_ref[i] : &o;
		if (kind == ENG_KERNEL) {
			out("HOSTILE arch=%s kind=%s enc=%s engine=kernel got=%s drops=%s%s%s", uname_machine(), k->id,
			    g_enc_name[k->enc],
			    show->got, show->drops, show->why[0] ? " note=" : "", show->why);
			continue;
		}
		tl->retries += tries - 1;
		if (r == 0)
			tl->equal++;
		else if (r == 1)
			tl->readme++;
		else
			tl->differ++;
		out("HOSTILE arch=%s kind=%s engine=%s result=%s retries=%d%s got=%s drops=%s%s%s%s%s%s%s",
		    uname_machine(), k->id, g_eng_name[kind], res[r], tries - 1, retaken ? " reference=retaken" : "",
		    show->got, show->drops, show->why[0] ? " note=" : "",
		    show->why, r ? " kernel_got=" : "", r ? g_ref[i].got : "", r ? " kernel_drops=" : "",
		    r ? g_ref[i].drops : "");
		if (r == 2)
			fail("hostile %s engine=%s: got %s drops %s, kernel got %s drops %s", k->id, g_eng_name[kind],
			     show->got, show->drops, g_ref[i].got, g_ref[i].drops);
	}
}

void hostile(void)
{
	struct htally tl[N_ENG];
	uint64_t t[N_ENG + 1];
	unsigned quiet = g_quiet_ms;
	int rc;
	memset(tl, 0, sizeof(tl));
	/* With eth0 attached to the engine, an ETH_P_ALL tap sees every frame twice: on arrival, before
	 * tungro's rx_handler, and as the engine delivers it. Taps bound to ETH_P_IP and ETH_P_IPV6 on eth0
	 * are served after the rx_handler: they see what the stack gets, the same in the three engines.
	 */
	int conform_fd = g_rxfd;
	if ((g_rxfd = rx_socket("hostile", ETH_P_IP)) < 0 || (g_rxfd6 = rx_socket("hostile", ETH_P_IPV6)) < 0) {
		if (g_rxfd >= 0)
			close(g_rxfd);
		g_rxfd = conform_fd;
		return;
	}
	for (int e = 0; e <= N_ENG; e++)
		t[e] = now_us();
	/* a hostile frame the stack never shows the tap is common: do not wait for it as long as for a good one */
	g_quiet_ms = 150;
	for (int e = 0; e < N_ENG; e++) {
		t[e] = now_us();
		t[e + 1] = t[e];
		if ((rc = eng_enter(e))) {
			fail("hostile: to %s: %s", g_eng_name[e], strerror(-rc));
			break;
		}
		run_engine(e, &tl[e]);
		t[e + 1] = now_us();
	}
	g_quiet_ms = quiet;
	close(g_rxfd);
	close(g_rxfd6);
	g_rxfd = conform_fd;
	g_rxfd6 = -1;
	if ((rc = eng_enter(ENG_KERNEL)))
		fail("hostile: back to kernel: %s", strerror(-rc));
	out("%s", "");
	out("%-8s %-9s %6s %6s %11s %8s %8s %9s %8s", "arch", "engine", "kinds", "equal", "readme", "DIFFER",
	    "retries", "ref_again", "seconds");
	for (int e = 0; e < N_ENG; e++)
		out("%-8s %-9s %6zu %6d %11d %8d %8d %9d %8.1f", uname_machine(), g_eng_name[e], NKINDS, tl[e].equal,
		    tl[e].readme, tl[e].differ, tl[e].retries, tl[e].retaken, (double)(t[e + 1] - t[e]) / 1e6);
}
