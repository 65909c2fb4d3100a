/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tungro_kunit.h - shared harness of tungro's KUnit suites: builds real sk_buffs from segment
 * descriptions (linear or page-frag, network header at 0 or 2 mod 4), feeds them to the kernel's
 * napi_gro_receive() on a test NAPI instance while tungro's IPIP/SIT offloads are installed,
 * captures what the stack receives after GRO with an rx_handler, and checks every GRO packet by
 * segmenting it again with the kernel's GSO (round-trip oracle).
 */
/*
 * Case list: ../shared/cases/gro-cases.md IDs -> suite / test.
 *   T01 tungro_ipip/t01_eight_merge          T02 tungro_sit/t02_outer_ids_increment_df_clear
 *   T03 tungro_sit/t03_outer_df_fixed_id     T04 tungro_ipip/t04_interleaved_flows
 *   T05 tungro_ipip/t05_plain_never_merges_with_ipip
 *   L01 tungro_flush/l01_inner_ttl           L02 tungro_flush/l02_outer_ttl
 *   L03 tungro_flush/l03_tos_inner_and_outer L04 tungro_flush/l04_inner_df
 *   L05 L06 tungro_flush/l05_l06_incrementing_and_gap
 *   L07 tungro_flush/l07_fixed_id_sets_fixedid
 *   L08 L09 tungro_flush/l08_l09_fixed_then_incrementing
 *   L10 tungro_flush/l10_per_layer_fixed_id
 *   L11 tungro_flush/l11_outer_random_ids    L12 tungro_flush/l12_df_clear_fixed_id
 *   L13 tungro_sit/l13_hop_limit_and_traffic_class
 *   L14 tungro_sit/l14_flow_label_separates_flows
 *   P01 tungro_tcp/p01_psh_ends_packet       P02 tungro_tcp/p02_syn_rst_urg_alone
 *   P03 tungro_tcp/p03_cwr_starts_new_packet P04 tungro_tcp/p04_pure_ack_follows_held
 *   P05 P06 tungro_tcp/p05_p06_ack_and_window
 *   P07 tungro_tcp/p07_timestamps            P08 tungro_tcp/p08_seq_gap
 *   P09 P10 tungro_tcp/p09_p10_larger_and_shorter
 *   P11 tungro_tcp/p11_64k_limit             P12 tungro_tcp/p12_bad_checksum
 *   M01 tungro_malformed/m01_ihl   M02 m02_truncated   M03 m03_padding   M04 m04_doff
 *   M05 m05_fragments   M06 m06_nested   M07 m07_frame_ends_inside_inner_header
 *   M08 m08_icmp_passes_through
 *   A01 tungro_layout/a01_cb_fits_and_is_aligned  A02 a02_two_mod_four
 *   A03 a03_same_result_any_byte_order
 *   Direct calls of tungro's gro_receive/gro_complete on a test-owned GRO list:
 *   tungro_ipip/direct_gro_list; a held packet without tungro state (loaded mid-flow; the unload
 *   handoff, completed by the kernel's own callback):
 *   tungro_ipip/foreign_held_packet_goes_to_the_kernel; CHECKSUM_COMPLETE:
 *   tungro_sit/checksum_complete.
 *   Completion fixups of every case above: tungro_complete/{ipip,sit}_headers, and the GSO round
 *   trip of every GRO packet any test produces (harness.c, tgk_check_wire).
 *   K02 tungro_hardening/k02_gso_arrivals (and histogram_past_64)
 *   K03 k03_inner_length_keeps_order   K04 k04_reserved_flag   K05 k05_pull_shapes
 *   K03 with a checksum over the inner padding (hostile frames):
 *   k03_inner_padding_checksum_not_trusted
 *   K07 k07_refuses_a_module_offload (the guest check stacks a real module)
 *   issue 7's finding 8: sit_inner_exthdr_merged; finding 9: stale_magic_goes_to_the_kernel.
 *   Random trains in random skb layouts (skb-shape fuzzing): tungro_skb_fuzz/skb_shapes.
 *   K01 and K08 (FOU/GUE over IPv4 and IPv6) through real FOU/GUE ports, 6.12's callbacks then
 *   tungro's: tungro_ip6/k01_k08_fou_gue_trains (ip6_kunit.c: k_cases); K06 (load/unload under
 *   traffic) needs real traffic: guest checks (qemu/agent).
 *   E01-E05 through the engine's NAPI glue (tungro_engine.c) on a test receive queue:
 *   tungro_engine/e01_ninth_flow_evicts_the_oldest  e02_two_hundred_flows_keep_coalescing
 *   e03_non_coalescable_in_lists  e04_budget_exhausted_mid_train  e05_stop_delivers_held;
 *   issue 8's 16-flow trains, 8 x 8 vs one bucket of 8 fed hash 0: crafted_16_flow_trains.
 *   X01-X08 tungro_ip6/offload_path and tungro_ip6/engine, over one case table (ip6_kunit.c:
 *   x_cases, each row named by its case id: "X01 ip4ip6", ...); plain IPv6 with hop-by-hop,
 *   destination options, routing or fragment headers, 6.12's GRO and the engine:
 *   tungro_ip6/plain6_engine (p6_cases); K08's delegation on one skb (fou6/GUE reaching the
 *   inet6 slots) tungro_ip6/k08_fou6_goes_to_the_kernel; a refused inet6 slot gives the other
 *   three back: tungro_ip6/refused_inet6_slot_gives_the_others_back.
 *   O01-O06 tungro_options/engine (TGC_ENGINE_IPV4_OPTIONS), o05_engine_off and
 *   o04_offload_path, over one case table (options_kunit.c: o_cases, "O01 IPIP, ...").
 *   U01-U05 tungro_udp/engine over one case table (udp_kunit.c: u_cases, "U01 IPIP, UDP_GRO
 *   socket", ...), a kernel UDP socket with UDP_GRO bound for the rows that want one; U02's
 *   devices with GRO_UDP_FWD or GRO_FRAGLIST and no socket: the same table.
 */
#ifndef TUNGRO_KUNIT_H
#define TUNGRO_KUNIT_H

#include <kunit/test.h>
#include <linux/skbuff.h>

#include "../cxxcore/include/tungro_core.h"

/*
 * The shapes the builder makes: plain TCP/IPv4, the four IP-in-IP tunnels (gro-cases.md), and plain
 * TCP/IPv6 (its header and extension header from inner6)
 */
enum tgk_encap { TGK_PLAIN4, TGK_IPIP, TGK_SIT, TGK_IP4IP6, TGK_IP6IP6, TGK_PLAIN6 };

/* One IPv6 extension header of 8 bytes after an IPv6 header (cases X01, X02, X05-X07). */
enum tgk_ext {
	TGK_EXT_NONE,
	TGK_EXT_DSTOPTS,	/* destination options, one PadN */
	TGK_EXT_ENCAP_LIMIT,	/* destination options: encapsulation limit 4, as ip6 tunnels */
	TGK_EXT_HOP,		/* hop-by-hop options, one PadN */
	TGK_EXT_FRAG,		/* fragment header, offset 0, last fragment (an atomic fragment) */
	TGK_EXT_ROUTING,	/* routing header, type 0, segments left 0 (RFC 5095: ignored) */
};

struct tgk_v4 {
	u8 ttl, tos, ihl, proto;	/* ihl 0 -> 5 + the options' words; proto 0 -> natural */
	bool df, mf, reserved;		/* reserved: the reserved flag bit (K04) */
	u16 id, frag_offset;
	/* option bytes after the 20-byte header (O cases), zero-padded to the IHL's end */
	u8 options[12], optlen;
};

struct tgk_v6 {
	u8 hop_limit, traffic_class, next_header;	/* next_header 0 -> natural */
	u32 flow_label;
	bool dstopts;		/* an 8-byte destination options header (PadN) before TCP */
	u8 ext;			/* enum tgk_ext: one extension header (dstopts: TGK_EXT_DSTOPTS) */
	u8 ext_fill;		/* last byte of the extension header's option data (X05: differs) */
};

struct tgk_seg {
	enum tgk_encap encap;
	struct tgk_v4 outer, inner4;
	struct tgk_v6 inner6;
	struct tgk_v6 outer6;	/* the outer header of ip4ip6 and ip6ip6 */
	u16 sport, dport, window;
	u32 seq, ack;
	u8 flags;
	u8 opts[12], optlen;
	u8 doff_override;
	u32 payload_len;
	int outer_len_delta;	/* added to the outer length field only */
	u32 padding;		/* bytes after the packet, in no length (Ethernet padding) */
	u32 inner_padding;	/* tunnels: outer length covers them after the inner packet (K03) */
	bool csum_covers_padding;	/* TCP checksum over the inner padding too (hostile) */
	bool bad_csum;
	/*
	 * > 1: arrives as one GSO skb of gso_segs MSS segments of payload_len / gso_segs (on the
	 * wire: that many segments, IDs and sequence numbers following) (K02)
	 */
	u16 gso_segs;
	/*
	 * A UDP datagram instead of a TCP segment (cases U01-U05): sport/dport its ports,
	 * payload_len its payload (bytes from seq as for TCP), correct length and checksum unless
	 * udp_zero_csum (none sent) or udp_len_delta (added to the length field only)
	 */
	bool udp, udp_zero_csum;
	s16 udp_len_delta;
	/*
	 * Tunnels: non-zero, the outer header carries UDP (source port 50000, checksum set) to
	 * this port and then the inner packet, as FOU sends it, or behind a 4-byte GUE header
	 * (version 0, no options, the inner protocol in proto_ctype) with gue (cases K01, K08)
	 */
	u16 fou_port;
	bool gue;
};

/* How the skbs of a run are built. */
struct tgk_opts {
	bool page_frag;		/* payload in a page fragment instead of the linear area */
	unsigned int align;	/* network header address mod 4 (0 or 2) */
	unsigned int head;	/* page_frag: bytes from the network header kept linear (0: 128) */
	bool no_linear;		/* page_frag: nothing linear past the Ethernet header (frag0) */
	unsigned int frag_split;	/* page_frag: first frag ends here, a second has the rest */
	bool clone;		/* hand GRO a clone: shared head, a pull must reallocate it (K05) */
	/* the part past head in one skb on the frag_list, not in page frags (GRO passes it up) */
	bool frag_list;
	unsigned int headroom;	/* extra bytes before the Ethernet header (then aligned as asked) */
	bool tight;		/* no tailroom: a pull must reallocate the head (K05) */
	bool csum_complete;	/* CHECKSUM_COMPLETE device help, skb->csum over the packet */
	/* CHECKSUM_UNNECESSARY, level 0: the TCP checksum verified (virtio-net's DATA_VALID) */
	bool csum_unnecessary;
	/* round trip ignores inner IPv4 IDs: fixed IDs with DF clear come back numbered (L12) */
	bool inner_ids_free;
	/*
	 * tgk_run_direct's forget_after leaves tungro's magic (stale cb bytes) on packets older
	 * than the install, instead of clearing the word
	 */
	bool stale_magic;
	/*
	 * tgk_run_direct's forget_after keeps tungro's state but takes the held packets'
	 * predictions away (tungro_pred.h), as a packet held on another CPU (its tag), an address
	 * held again (its slot) or a merge the prediction did not see (its count) would:
	 * TGK_PRED_OTHER_CPU, TGK_PRED_SLOT_REUSED or TGK_PRED_STALE
	 */
	unsigned int pred_break;
};

#define TGK_PRED_OTHER_CPU 1
#define TGK_PRED_SLOT_REUSED 2
#define TGK_PRED_STALE 3

/* wire segments of a run (a GSO input counts as its gso_segs); the engine's E02 sends 800 */
#define TGK_MAX_SEGS 800

/* One delivered packet as the stack saw it after GRO. */
struct tgk_pkt {
	unsigned int segs;	/* max(1, gso_segs) */
	unsigned int len;	/* bytes from the outer network header */
	unsigned int gso_size;
	unsigned int gso_type;
	unsigned int headlen;	/* linear bytes from the network header as delivered */
	u8 ip_summed;
	u8 hdr[80];		/* first header bytes as delivered (after gro_complete) */
};

struct tgk_result {
	unsigned int n;
	struct tgk_pkt pkt[TGK_MAX_SEGS];
	unsigned int roundtrip_checked;	/* GRO packets resegmented and compared on the wire */
};

/* A zeroed array of n segment descriptions, freed with the test (keeps the stack small). */
static inline struct tgk_seg *tgk_segs(struct kunit *test, unsigned int n)
{
	struct tgk_seg *s = kunit_kcalloc(test, n, sizeof(*s), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	return s;
}

/* Case defaults (gro-cases.md): outer DF 1 ID 0; inner DF 1 ID 1,2,...; ACK; MSS 1400. */
void tgk_default(struct tgk_seg *s, enum tgk_encap encap);
/*
 * Fills n consecutive segments from @first: seq follows payload, inner IPv4 ID += 1, outer ID +=
 * outer_id_step.
 */
void tgk_train(struct tgk_seg *segs, unsigned int n, const struct tgk_seg *first,
	       int outer_id_step);

/*
 * @flows IPIP flows (inner source ports 40000 + f) of @per segments each into @s: @burst
 * consecutive segments of a flow, then the next flow's (burst 1: interleaved segment by segment).
 */
void tgk_flows_in_bursts(struct tgk_seg *s, unsigned int flows, unsigned int per,
			 unsigned int burst, u32 payload);

/*
 * Runs one NAPI poll's worth of segments through napi_gro_receive with tungro installed; fills @res
 * and checks each GRO packet by GSO round trip (KUNIT_EXPECT failures on mismatch).
 */
void tgk_run(struct kunit *test, const struct tgk_seg *segs, unsigned int n,
	     const struct tgk_opts *opts, struct tgk_result *res);

/*
 * The same, but calling tungro's gro_receive/gro_complete directly on a GRO list the test owns, set
 * up as dev_gro_receive and inet_gro_receive leave it. After segment @forget_after (-1: never) the
 * held packets lose their tungro state, as if the kernel's own GRO had held them before tungro was
 * loaded.
 */
void tgk_run_direct(struct kunit *test, const struct tgk_seg *segs, unsigned int n,
		    const struct tgk_opts *opts, struct tgk_result *res, int forget_after);

/* An engine run (tgk_run_engine): the table, how it ends, and what the glue counted. */
struct tgk_engine_run {
	u32 buckets, flows;
	bool kernel_hash;		/* bucket by skb->hash (0 here), as 6.12's GRO */
	unsigned long flush_timeout;	/* the device's gro_flush_timeout, ns */
	u32 defer_hard_irqs;		/* the device's napi_defer_hard_irqs */
	/* polls without work after the idle, before the stop, as the hrtimer's (at most 4) */
	unsigned int extra_polls;
	bool stop_held;			/* stop the queue with what the engine still holds (E05) */
	bool stop_direct;		/* ... as NETDEV_UNREGISTER does (netif_receive_skb_core) */
	bool ipv4_options;		/* TGC_ENGINE_IPV4_OPTIONS (the module's ipv4_options=1) */
	/* added to the test device's features for the run (NETIF_F_GRO_UDP_FWD: U02) */
	netdev_features_t features;
	/* out: the engine's counters before the stop, what the stop found, the queue's counters */
	struct tgc_engine_stats st;
	u32 held_after[4];		/* held_now after each extra poll */
	bool one_jiffy;			/* the arrivals and the extra polls all in one jiffy */
	u64 held_at_stop, queued_at_stop;
	u64 polls, polls_full, timer_armed, lists, list_pkts;
};

/*
 * Runs the segments through tungro's engine glue (module/tungro_engine.c) on a test receive queue
 * of the test device: all handed to tungro_rxq_enqueue() before the softirq runs, so its NAPI polls
 * take exactly 64 (its weight) at a time; waits until the queue is idle (and, unless @run asks to
 * stop with packets held, until everything went up), stops the queue and checks what the stack
 * received as tgk_run does.
 */
void tgk_run_engine(struct kunit *test, const struct tgk_seg *segs, unsigned int n,
		    const struct tgk_opts *opts, struct tgk_result *res,
		    struct tgk_engine_run *run);

/* Receive paths a benchmark train takes (tungro_bench). */
enum tgk_path {
	TGK_PATH_KERNEL,	/* napi_gro_receive, the kernel's IPIP/SIT callbacks */
	TGK_PATH_OFFLOADS,	/* napi_gro_receive, tungro's callbacks installed */
	TGK_PATH_ENGINE,	/* tungro_rxq_enqueue (the rx_handler's part), the engine's NAPI */
	/* napi_gro_receive with GRO off on the device: what the engine's input costs before its
	 * rx_handler sees a frame (the device's receive path, once per wire segment)
	 */
	TGK_PATH_GRO_OFF,
	TGK_PATHS
};

/* One timed run: the receive (inputs built before, counting after) and what the stack got. */
struct tgk_bench_sample {
	u64 ns;			/* ktime from the first segment in to the last packet delivered */
	bool deferred;		/* the engine's polls were left to ksoftirqd: ns is not theirs */
	unsigned int pkts, segs;	/* packets delivered, wire segments inside them */
};

/*
 * Runs @segs once through @path in NAPI polls of 64, every held packet flushed at the end of each
 * poll: page-frag skbs with the TCP checksum verified, as virtio-net builds them. Process
 * context; sleeps outside the timed part.
 */
void tgk_bench_run(struct kunit *test, const struct tgk_seg *segs, unsigned int n,
		   enum tgk_path path, struct tgk_bench_sample *out);

/* Expects the delivered packets to hold exactly the given segment counts, in order. */
void tgk_expect_counts(struct kunit *test, const struct tgk_result *res,
		       const unsigned int *counts, unsigned int n);
#define TGK_EXPECT(test, res, ...)						\
	do {									\
		static const unsigned int __c[] = { __VA_ARGS__ };		\
		tgk_expect_counts(test, res, __c, ARRAY_SIZE(__c));		\
	} while (0)

/* Runs @segs with every skb layout (linear/page-frag x align 0/2), expecting the same counts. */
void tgk_run_all_layouts(struct kunit *test, const struct tgk_seg *segs, unsigned int n,
			 const unsigned int *counts, unsigned int ncounts);
#define TGK_CASE(test, segs, n, ...)						\
	do {									\
		static const unsigned int __c[] = { __VA_ARGS__ };		\
		tgk_run_all_layouts(test, segs, n, __c, ARRAY_SIZE(__c));	\
	} while (0)

/* Suite hooks: install tungro's offloads and the test device for the suite; remove them after. */
int tgk_suite_init(struct kunit_suite *suite);
void tgk_suite_exit(struct kunit_suite *suite);

#endif
