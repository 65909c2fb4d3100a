/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tungro_core.h - the one C interface of tungro's freestanding C++ GRO core.
 *
 * The core decides GRO for TCP carried in the IP-in-IP tunnels of enum tgc_encap (IPIP, SIT, ip4ip6, ip6ip6:
 * outer IPv4 or IPv6, inner IPv4 or IPv6) and for plain TCP over IPv4/IPv6; for UDP in the same shapes when the
 * caller allows it (TGC_IN_UDP_GRO: 6.12's udp_gro_receive socket/device question; rules in src/udp.hpp). IPv6 hop-by-hop, destination options
 * and routing headers are walked and must be byte-identical within a flow, as 6.12's ipv6_gro_receive compares
 * them. It sees only byte views of headers (a pointer and a
 * length it never reads past) and the small plain structs below; the caller (the kernel glue in module/, or a host
 * tool) owns the packets and does the buffer mechanics. Every multi-byte header field is read with explicit
 * big-endian byte loads, so headers may sit at any address (NET_IP_ALIGN 2 on m68k puts them at 2 mod 4).
 *
 * Rules follow the kernel's GRO (net/ipv4/af_inet.c, net/ipv6/ip6_offload.c, net/ipv4/tcp_offload.c,
 * include/net/gro.h) with the newest upstream (6.18) IP ID semantics: fixed-ID state per IP layer, outer IDs
 * must increment or stay fixed, fixed IDs accepted with DF clear. See ../shared/cases/gro-cases.md.
 *
 * Includes nothing: usable from kernel C, freestanding C++ and host C/C++ alike.
 */
#ifndef TUNGRO_CORE_H
#define TUNGRO_CORE_H

#ifdef __cplusplus
extern "C" {
#endif

typedef __UINT8_TYPE__  tgc_u8;
typedef __UINT16_TYPE__ tgc_u16;
typedef __UINT32_TYPE__ tgc_u32;

/*
 * Structs crossing the C/C++ boundary are 4-aligned on purpose: on m68k u32 aligns to 2, and the same layout on
 * every arch is what the asserts below pin (the 2024 m68k GRO break came from leaving it to the arch).
 */
#define TGC_ALIGN4 __attribute__((__aligned__(4)))
/*
 * For structs holding pointers: at least 4, and the pointer's own alignment where that is larger. The same as
 * TGC_ALIGN4 for GCC (aligned() only raises), spelled out for sparse, which lets aligned(4) lower a struct's
 * alignment below its 8-byte pointers.
 */
#define TGC_ALIGN_PTR __attribute__((__aligned__(sizeof(void *) > 4 ? sizeof(void *) : 4)))
#ifdef __cplusplus
#define TGC_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define TGC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif
#define TGC_OFF(type, field) __builtin_offsetof(struct type, field)

/*
 * The tunnels tungro merges, as row ids of one table (tgc_tunnel_of()): each row is an outer IP version, the
 * protocol number that carries the tunnel there (IPv4 protocol, or IPv6 next header after any extension headers),
 * the inner IP version and the GSO bit of a GRO packet. A new tunnel type is one id here and one row in
 * src/parse.hpp. NONE: plain TCP over IPv4 or IPv6, no tunnel.
 */
enum tgc_encap {
	TGC_ENCAP_NONE = 0,
	TGC_ENCAP_IPIP,		/* IPv4 in IPv4, protocol 4 (RFC 2003) */
	TGC_ENCAP_SIT,		/* IPv6 in IPv4, protocol 41 (RFC 4213) */
	TGC_ENCAP_IP4IP6,	/* IPv4 in IPv6, next header 4 (RFC 2473) */
	TGC_ENCAP_IP6IP6,	/* IPv6 in IPv6, next header 41 (RFC 2473) */
	TGC_ENCAP_COUNT
};

/* The SKB_GSO_* tunnel bit of a GRO packet, by outer IP version (6.12: sit/ipip_gro_complete, ip6_offload.c). */
enum tgc_tunnel_gso {
	TGC_GSO_IPXIP4 = 1,	/* SKB_GSO_IPXIP4: outer IPv4 */
	TGC_GSO_IPXIP6 = 2,	/* SKB_GSO_IPXIP6: outer IPv6 */
};

/* One row of the tunnel table. */
struct tgc_tunnel {
	tgc_u8 outer_version;	/* 4 or 6 */
	tgc_u8 proto;		/* the outer header's protocol / final next header that carries the inner packet */
	tgc_u8 inner_version;	/* 4 or 6: SKB_GSO_TCPV4 or TCPV6, inner protocol ETH_P_IP or ETH_P_IPV6 */
	tgc_u8 gso;		/* enum tgc_tunnel_gso */
	const char *name;	/* "ipip", "sit", "ip4ip6", "ip6ip6" (ip-link kind, or ip6tnl mode) */
} TGC_ALIGN_PTR;
TGC_ASSERT(sizeof(struct tgc_tunnel) == 2 * sizeof(void *) && __builtin_offsetof(struct tgc_tunnel, name) ==
	   sizeof(void *) && __builtin_offsetof(struct tgc_tunnel, gso) == 3, "tgc_tunnel: size 8/16, name at 4/8");

/* tgc_tunnel_of - the row of tunnel @encap (enum tgc_encap), or NULL for TGC_ENCAP_NONE and ids out of range. */
const struct tgc_tunnel *tgc_tunnel_of(unsigned int encap);

/*
 * tgc_encap_detect - the tunnel a packet is, from its outer header: @hdr, @hdr_len bytes from the outer network
 * header. IPv4: by protocol, once IHL x 4 bytes are there (NONE below IHL 5). IPv6: by the next header after the hop-by-hop, destination options
 * and routing headers, walked as tgc_parse() walks them. Returns an enum tgc_encap; TGC_ENCAP_NONE when no row
 * matches or the bytes end first. A dispatch helper for hosts and glue: tgc_parse() still checks everything.
 */
unsigned int tgc_encap_detect(const tgc_u8 *hdr, tgc_u32 hdr_len);

/* Why a packet was not merged or a held packet was completed early. One counter each in debugfs. */
enum tgc_reason {
	TGC_R_NONE = 0,		/* merged, or held as a new flow */
	TGC_R_MALFORMED,	/* bad version, length, TCP data offset, or header past the bytes present */
	TGC_R_IP_OPTIONS,	/* IPv4 IHL != 5: never merged (kernel: 0x45 only). With TGC_ENGINE_IPV4_OPTIONS:
				 * an option of the deny-list, or headers past TGC_MAX_HDR_BYTES */
	TGC_R_FRAGMENT,		/* IPv4 MF set or fragment offset != 0; an IPv6 fragment header (X07) */
	TGC_R_NESTED,		/* a second tunnel layer (CVE-2016-8666/7039: one layer only, no recursion) */
	TGC_R_NOT_TCP,		/* innermost protocol is not TCP (nor UDP with TGC_IN_UDP_GRO): passed through */
	TGC_R_TTL,		/* IPv4 TTL or IPv6 hop limit differs from the held packet */
	TGC_R_TOS,		/* IPv4 TOS or IPv6 traffic class (ECN included) differs */
	TGC_R_DF,		/* IPv4 DF differs */
	TGC_R_IP_ID,		/* IPv4 ID neither increments by the held count nor stays fixed */
	TGC_R_FLAGS,		/* TCP flags other than CWR/FIN/PSH differ, or CWR set */
	TGC_R_WINDOW,		/* TCP window differs */
	TGC_R_ACK,		/* TCP ack_seq differs */
	TGC_R_OPTIONS,		/* TCP options not byte-identical (TSval included) */
	TGC_R_SEQ,		/* sequence number is not the held packet's next */
	TGC_R_MSS,		/* segment longer than the held gso_size, or a GSO segment of another gso_size */
	TGC_R_SIZE,		/* aggregate would reach 64 KiB (GRO_LEGACY_MAX_SIZE, tunnels); UDP: also its 64th
				 * datagram (UDP_GRO_CNT_MAX), merged, ends the packet */
	TGC_R_END,		/* PSH/FIN/URG/RST/SYN: this segment ends the GRO packet */
	TGC_R_SHORT,		/* payload shorter than gso_size: ends the GRO packet */
	TGC_R_NO_PAYLOAD,	/* pure ACK or other zero-payload segment: never merged */
	TGC_R_CSUM,		/* TCP checksum wrong (validated when the device gave no help) */
	TGC_R_UPPER,		/* the caller forbade merging (frag_list skb, DODGY GSO, earlier-layer flush) */
	TGC_R_NOMERGE,		/* the caller's buffer mechanics could not append the segment */
	TGC_R_FOREIGN,		/* held packet not built by tungro (loaded mid-flow): completed, not merged */
	TGC_R_PADDING,		/* bytes after the IP packet (Ethernet padding): delivered alone, after its flow */
	TGC_R_IP_LEN,		/* an inner IP length disagrees with the outer payload (K03): after its flow, alone */
	TGC_R_IP_FLAGS,		/* IPv4 reserved flag bit set, any layer (K04): after its flow, alone */
	TGC_R_IPV6_EXT,		/* an IPv6 extension header tungro does not walk (ESP, AH, mobility, ...): passed
				 * up unmerged (the glue hands it to the kernel's GRO). Hop-by-hop, destination
				 * options and routing headers are walked and merged through; a fragment header
				 * is TGC_R_FRAGMENT */
	TGC_R_DECRYPTED,	/* TLS device offload: decrypted state differs from the held packet (6.12's
				 * skb_cmp_decrypted()) */
	TGC_R_UDP_ENCAP,	/* carried in FOU/GUE (the caller saw is_fou): handed to the kernel's GRO */
	/*
	 * a tunnel's outer IPv4 ID with DF set neither increments nor stays fixed: 6.18 ends the
	 * packet, 6.12 ignores outer IDs with DF set (case L11, an intended difference). Linux's own
	 * tunnels send such IDs: __ip_select_ident() adds a random step when the jiffy changes.
	 */
	TGC_R_OUTER_ID,
	TGC_R_EXT_LIMIT,	/* more IPv6 extension headers than TGC_MAX_EXT_HDRS or TGC_MAX_EXT_BYTES: passed up
				 * unmerged (6.12 walks any number: the offload path hands it to the kernel's
				 * GRO; the engine passes it up, an intended difference beyond 8 headers or
				 * 256 bytes) */
	TGC_R_IP_OPT_DIFF,	/* engine with TGC_ENGINE_IPV4_OPTIONS: IPv4 option bytes differ from the held
				 * packet's (same IHL): it ends, the segment starts a new one (O02) */
	TGC_R_UDP_LEN,		/* UDP length field not the bytes after the IP header, or <= 8: passed up, after
				 * its flow (6.12's udp_gro_receive_segment: "padded or malicious") */
	TGC_R_UDP_CSUM0,	/* UDP checksum zero: never merged, passed up after its flow (6.12's
				 * udp_gro_receive_segment requires a checksum, for symmetry with GSO) */
	TGC_R_COUNT
};

/* Short lower-case name of a reason ("ttl", "ip_id", ...), for stats files and tools; "?" when out of range. */
const char *tgc_reason_name(unsigned int reason);

/*
 * IPv6 extension headers walked per packet, all IPv6 layers together: at most this many headers and bytes. The
 * Linux ip6 tunnel's encapsulation-limit option is one header of 8 bytes; an SRv6 routing header with 14 segments
 * 232 (H.Encaps: an outer IPv6 with it around the inner packet). Beyond the bound: TGC_R_EXT_LIMIT. The engine
 * keeps TGC_MAX_HDR_BYTES of header per held flow (396 bytes), and a 128-byte mask of its prediction (672 bytes a
 * flow in all on x86_64: 42 KiB of flows for a table of 8 x 8, 45 KiB with the engine's own 2.7 KiB).
 */
#define TGC_MAX_EXT_HDRS 8u
#define TGC_MAX_EXT_BYTES 256u

/*
 * Largest header span the core reads: outer IPv6 (40) + inner IPv6 (40) + extension headers + TCP with options. IPv4
 * options (TGC_ENGINE_IPV4_OPTIONS) fit but for the largest combinations (SIT, ip4ip6): past it, TGC_R_IP_OPTIONS.
 */
#define TGC_MAX_HDR_BYTES (40u + 40u + TGC_MAX_EXT_BYTES + 60u)

/* Aggregate limit for tunneled GRO packets, in bytes from the outer network header (kernel GRO_LEGACY_MAX_SIZE). */
#define TGC_MAX_GRO_BYTES 65536u

/*
 * One parsed segment. Offsets are in bytes from the outer network header. Filled by tgc_parse(); callers treat it
 * as read-only but for gso_size/gso_segs, which describe a segment that arrives already GSO. 24 bytes, 4-aligned,
 * same layout on every arch (pinned by the asserts below).
 */
struct tgc_pkt {
	tgc_u32 seq;		/* TCP sequence number (host order) */
	tgc_u32 payload_len;	/* TCP payload bytes (never counts link-layer padding) */
	tgc_u16 inner_off;	/* inner network header (== 0 when encap is NONE: the only layer); an outer IPv6
				 * header's extension headers lie before it */
	tgc_u16 tcp_off;	/* TCP (or UDP) header, after the innermost header's IPv6 extension headers */
	tgc_u16 payload_off;	/* first payload byte */
	tgc_u8  encap;		/* enum tgc_encap */
	tgc_u8  inner_version;	/* 4 or 6: version of the innermost IP header */
	tgc_u8  tcp_flags;	/* TCP flags byte (CWR ECE URG ACK PSH RST SYN FIN) */
	tgc_u8  nlayers;	/* IP layers: 1 plain, 2 tunneled */
	tgc_u8  padded;		/* 1: link-layer padding follows the IP packet (never merged, M03) */
	tgc_u8  l3_flush;	/* TGC_R_IP_LEN or TGC_R_IP_FLAGS: never merged, but the flow is known (6.12 sets
				 * the flush bit in inet_gro_receive and TCP still completes the flow's held packet) */
	tgc_u16 gso_size;	/* 0: one wire segment; else the segment arrived GSO with this MSS (caller sets) */
	tgc_u16 gso_segs;	/* wire segments in it: 1, or the GSO segment count (caller sets) */
} TGC_ALIGN4;
TGC_ASSERT(sizeof(struct tgc_pkt) == 24 && __alignof__(struct tgc_pkt) == 4, "tgc_pkt: size 24, align 4");
TGC_ASSERT(TGC_OFF(tgc_pkt, seq) == 0 && TGC_OFF(tgc_pkt, payload_len) == 4 && TGC_OFF(tgc_pkt, inner_off) == 8 &&
	   TGC_OFF(tgc_pkt, tcp_off) == 10 && TGC_OFF(tgc_pkt, payload_off) == 12 && TGC_OFF(tgc_pkt, encap) == 14 &&
	   TGC_OFF(tgc_pkt, inner_version) == 15 && TGC_OFF(tgc_pkt, tcp_flags) == 16 && TGC_OFF(tgc_pkt, nlayers) == 17 &&
	   TGC_OFF(tgc_pkt, padded) == 18 && TGC_OFF(tgc_pkt, l3_flush) == 19 && TGC_OFF(tgc_pkt, gso_size) == 20 &&
	   TGC_OFF(tgc_pkt, gso_segs) == 22, "tgc_pkt: field offsets");

/*
 * What the core needs to know of a held GRO packet besides its first segment's headers (which the caller keeps
 * at hdr[0..hdr_len)). The caller stores id_state with the held packet and gives it back on the next segment.
 */
struct tgc_held {
	const tgc_u8 *hdr;	/* headers of the held packet's first segment, from the outer network header */
	tgc_u32 hdr_len;	/* bytes readable at hdr */
	tgc_u32 total_len;	/* bytes of the held packet from the outer network header to its end, all segments */
	tgc_u32 payload_len;	/* TCP payload bytes held, all segments */
	tgc_u16 count;		/* segments held (NAPI_GRO_CB(p)->count) */
	tgc_u16 gso_size;	/* MSS: payload of the first segment (skb_shinfo(p)->gso_size) */
	tgc_u8  id_state;	/* TGC_ID_FIXED/TGC_ID_INCR(layer) bits, decided at the first merge */
	tgc_u8  flags;		/* TGC_HELD_* facts about it that only the caller knows (tgc_receive's find) */
	tgc_u8  pad[2];
} TGC_ALIGN_PTR;
#define TGC_PTR sizeof(void *)
TGC_ASSERT(sizeof(struct tgc_held) == (TGC_PTR == 8 ? 32 : 24) && __alignof__(struct tgc_held) == (TGC_PTR == 8 ? 8 : 4),
	   "tgc_held: size 24/32, align 4/8 (32/64-bit)");
TGC_ASSERT(TGC_OFF(tgc_held, hdr) == 0 && TGC_OFF(tgc_held, hdr_len) == TGC_PTR &&
	   TGC_OFF(tgc_held, total_len) == TGC_PTR + 4 && TGC_OFF(tgc_held, payload_len) == TGC_PTR + 8 &&
	   TGC_OFF(tgc_held, count) == TGC_PTR + 12 && TGC_OFF(tgc_held, gso_size) == TGC_PTR + 14 &&
	   TGC_OFF(tgc_held, id_state) == TGC_PTR + 16 && TGC_OFF(tgc_held, flags) == TGC_PTR + 17,
	   "tgc_held: field offsets");

/* tgc_held.flags */
#define TGC_HELD_FOREIGN   0x1u	/* not built by tungro (held before it was installed): completed, never merged into */
#define TGC_HELD_DECRYPTED 0x2u	/* its TLS-offload decrypted state differs from the segment's (skb_cmp_decrypted) */

/*
 * id_state bits, per IPv4 layer n (0 outer, 1 inner): the ID stays fixed, or increments by one per wire segment.
 * Decided at the first merge into a held packet; neither bit set means undecided (a held packet that arrived
 * already GSO has count > 1 and no decision yet).
 */
#define TGC_ID_FIXED(layer) (1u << (layer))
#define TGC_ID_INCR(layer) (1u << (4 + (layer)))

/* Offset of the flags byte in the TCP header (RFC 9293 3.1), where a MERGE verdict's held_flags go. */
#define TGC_TCP_FLAGS_OFF 13u

/* Inputs to tgc_decide() that only the caller can know. */
#define TGC_IN_UPPER_FLUSH 0x1u	/* merging forbidden by the caller (NAPI_GRO_CB(skb)->flush, frag_list, DODGY) */
#define TGC_IN_CSUM_BAD    0x2u	/* TCP checksum failed validation */
#define TGC_IN_NOMERGE     0x4u	/* a previous TGC_MERGE verdict could not be carried out (buffer limits) */
#define TGC_IN_DECRYPTED   0x8u	/* the segment's TLS-offload decrypted state differs from the held packet's */
/* Inputs to tgc_receive() and the engine only (tgc_decide() ignores them). */
#define TGC_IN_OUTER_FLUSH 0x10u	/* the caller's outer layer refused the segment (the kernel's inet_gro_receive set
					 * flush: outer length != bytes present): when tgc_parse() refuses it too, its
					 * flow's held packet still goes up first. TGC_IN_UPPER_FLUSH implies it. */
#define TGC_IN_CSUM_CHECK  0x20u	/* the device gave no checksum help: the core validates the TCP checksum over
					 * tgc_seg.data (all pkt_len bytes; no data counts as a bad checksum) */
#define TGC_IN_TLS_STATE   0x40u	/* engine: the segment's own TLS-offload decrypted state (skb->decrypted); a
					 * held packet of its flow with the other state ends (TGC_R_DECRYPTED) */
#define TGC_IN_UDP_GRO     0x80u	/* UDP GRO allowed for this segment: the caller's answer to 6.12's question in
					 * udp_gro_receive (a socket with UDP_GRO for the innermost addresses and
					 * ports, or no socket and NETIF_F_GRO_UDP_FWD, or NETIF_F_GRO_FRAGLIST). Without
					 * it UDP is TGC_R_NOT_TCP, as before; with it the core applies every rule
					 * (layer-3 checks, length, checksum, gso_size). tgc_receive()/engine/
					 * tgc_parse_as() only. */

/* What to do with a segment. Exactly one of MERGE, HOLD, PASS; flush_held may come with any of them. */
enum tgc_action {
	TGC_MERGE = 1,		/* append the segment to the held packet */
	TGC_HOLD  = 2,		/* keep the segment as the first of a new GRO packet */
	TGC_PASS  = 3,		/* deliver the segment as it is (GRO_NORMAL) */
};

struct tgc_verdict {
	tgc_u8  action;		/* enum tgc_action */
	tgc_u8  flush_held;	/* complete the matched held packet now: before a HOLD/PASS, after a MERGE */
	tgc_u8  id_state;	/* id_state to store with the held packet after a MERGE */
	tgc_u8  reason;		/* enum tgc_reason: why not merged, or why the held packet ends */
	tgc_u8  held_flags;	/* TCP flags (FIN/PSH) to OR into the held packet's TCP header after a MERGE */
	tgc_u8  fixedid;	/* after a MERGE: the kernel's one fixed-ID bit (NAPI_GRO_CB()->ip_fixedid) for the held
				 * packet, so 6.12's own gro_complete agrees with tgc_complete() if it completes it */
	tgc_u8  pad[2];
} TGC_ALIGN4;
TGC_ASSERT(sizeof(struct tgc_verdict) == 8 && __alignof__(struct tgc_verdict) == 4, "tgc_verdict: size 8, align 4");
TGC_ASSERT(TGC_OFF(tgc_verdict, action) == 0 && TGC_OFF(tgc_verdict, flush_held) == 1 &&
	   TGC_OFF(tgc_verdict, id_state) == 2 && TGC_OFF(tgc_verdict, reason) == 3 &&
	   TGC_OFF(tgc_verdict, held_flags) == 4 && TGC_OFF(tgc_verdict, fixedid) == 5, "tgc_verdict: field offsets");

/*
 * tgc_parse - validate one segment's headers.
 * @hdr, @hdr_len: bytes from the outer network header; the core reads no further than hdr_len.
 * @pkt_len: bytes of the whole segment from the outer network header (>= hdr_len). An outer IP length longer
 *           than that is a truncated packet (M02: TGC_R_MALFORMED). A shorter one is link-layer padding (M03): the
 *           segment parses (so its held flow can be completed first, keeping order) with @out->padded set, and
 *           tgc_decide() never merges it, so padding never becomes payload.
 * @encap: the tunnel the caller dispatched on (TGC_ENCAP_*: its row fixes outer version, protocol and inner
 *         version); NONE parses plain TCP/IPv4 or TCP/IPv6. Every IPv6 header's hop-by-hop, destination options
 *         and routing headers are walked (bounded by TGC_MAX_EXT_HDRS/BYTES: TGC_R_EXT_LIMIT); a fragment header
 *         is TGC_R_FRAGMENT (X07), any other extension header TGC_R_IPV6_EXT, one running past its bytes
 *         TGC_R_MALFORMED. inner_off and tcp_off then lie past the extension headers of their layer.
 * @out: filled on success.
 * Returns TGC_R_NONE when the segment may be merged, else the reason it must be passed up unmerged.
 */
unsigned int tgc_parse(const tgc_u8 *hdr, tgc_u32 hdr_len, tgc_u32 pkt_len, unsigned int encap,
		       struct tgc_pkt *out);

/*
 * tgc_parse_as - tgc_parse() as an engine set up with @engine_flags parses a segment that comes with the caller's
 * @in bits. @engine_flags: TGC_ENGINE_IPV4_OPTIONS lets IPv4 headers with safe options parse (their rules at
 * TGC_ENGINE_IPV4_OPTIONS); other bits are ignored. @in: TGC_IN_UDP_GRO lets UDP as the innermost protocol parse
 * too (tgc_pkt_is_udp(): tcp_off is the UDP header, seq and tcp_flags are 0, the payload is what the IP length
 * leaves after the 8-byte header; the UDP length field and checksum are rules of tgc_decide(), so a bad one still
 * finds its flow); without it UDP is TGC_R_NOT_TCP; other bits are ignored. With both 0 it is tgc_parse(). For
 * callers that look at a segment the way their engine will (the glue's checksum check, host tools, fuzzers).
 */
unsigned int tgc_parse_as(const tgc_u8 *hdr, tgc_u32 hdr_len, tgc_u32 pkt_len, unsigned int encap,
			  tgc_u32 engine_flags, unsigned int in, struct tgc_pkt *out);

/* Bytes of a UDP header (RFC 768). A TCP header has at least 20, so the header span tells the two apart. */
#define TGC_UDP_HLEN 8u

/* tgc_pkt_is_udp - 1 when @pkt (from tgc_parse_as() with TGC_IN_UDP_GRO) is a UDP datagram, else 0. */
static inline int tgc_pkt_is_udp(const struct tgc_pkt *pkt)
{
	return pkt->payload_off - pkt->tcp_off == TGC_UDP_HLEN;
}

/*
 * tgc_hdr_need - how many bytes from the outer network header tgc_parse() needs to see, given the @hdr_len bytes
 * at @hdr seen so far: the headers up to the first TCP (or UDP) payload byte, as far as the fields read so far tell. A
 * caller that pulls headers into linear memory in growing steps (the kernel glue: pskb_may_pull) pulls exactly
 * this much and asks again, until the answer is <= what it has (IPv6 extension headers take a step each). The
 * answer is at most the larger of @hdr_len and min(@pkt_len, TGC_MAX_HDR_BYTES): no more than what it has, or the
 * packet, or TGC_MAX_HDR_BYTES. So no payload byte is copied into the linear part, a caller holding that many
 * bytes need not ask (the glue's tungro_header_view() does not, for a frame whose first page frag holds them), and
 * a malformed header stops the loop early (tgc_parse() then names the fault).
 */
tgc_u32 tgc_hdr_need(const tgc_u8 *hdr, tgc_u32 hdr_len, tgc_u32 pkt_len, unsigned int encap);

/*
 * tgc_flow_of - locate the flow of a segment tgc_parse() refused, so the caller can complete that flow's held
 * packet before passing the segment up. The module does so when the outer header caused the refusal (the kernel's
 * inet_gro_receive flags it before the tunnel's gro_receive, and the kernel's TCP GRO then still finds the flow).
 * Needs version, IHL (IPv6: extension header lengths) and protocol of each layer sane and the bytes up to the TCP
 * ports inside @hdr_len; no other length field is trusted. Fills @out's layout fields (nlayers, encap, inner_off,
 * tcp_off) for tgc_same_flow() only.
 * Returns 1 when located, 0 otherwise (fragments with an offset, non-TCP, nested tunnels, IHL < 5, too short).
 */
int tgc_flow_of(const tgc_u8 *hdr, tgc_u32 hdr_len, unsigned int encap, struct tgc_pkt *out);

/*
 * tgc_same_flow - whether a parsed segment belongs to a held packet's flow: equal outer and inner addresses and
 * protocols, IPv6 flow label (a different label is a different flow, L14; X04 for an outer IPv6 header), IPv6
 * extension header bytes (as 6.12's ipv6_gro_receive: other bytes are another flow, X05) and TCP ports. Offsets
 * of @pkt are used for both sides: headers of one flow have one layout (extension headers of another length
 * differ in their length byte). Returns 1 or 0; 0 when @held_len is too short.
 */
int tgc_same_flow(const struct tgc_pkt *pkt, const tgc_u8 *hdr, const tgc_u8 *held_hdr, tgc_u32 held_len);

/*
 * tgc_decide - GRO verdict for a parsed segment.
 * @pkt, @hdr: the segment (tgc_parse() said TGC_R_NONE).
 * @held: the held packet of the same flow (tgc_same_flow() said 1), or NULL when there is none.
 * @in: TGC_IN_* bits.
 * @v: the verdict. Layer-3 flush checks (TTL, TOS, DF, ID per layer; hop limit, traffic class) are done here,
 *     once, against @held, as the kernel does in tcp_gro_receive since 6.10; then the TCP rules.
 */
void tgc_decide(const struct tgc_pkt *pkt, const tgc_u8 *hdr, const struct tgc_held *held, unsigned int in,
		struct tgc_verdict *v);

/* Result of tgc_complete(): what the caller writes into skb_shared_info and the skb. */
struct tgc_completion {
	tgc_u16 tcp_off;	/* TCP header, bytes from the inner network header given to tgc_complete() */
	tgc_u16 csum_offset;	/* offset of the TCP checksum field within the TCP header (16) */
	tgc_u8  tcpv6;		/* 1: SKB_GSO_TCPV6, 0: SKB_GSO_TCPV4 */
	tgc_u8  fixedid;	/* 1: SKB_GSO_TCP_FIXEDID (innermost IPv4 ID fixed and DF set: 6.12 GSO needs DF) */
	tgc_u8  ecn;		/* 1: SKB_GSO_TCP_ECN (CWR in the first segment) */
	tgc_u8  udp;		/* 1: a UDP GRO packet: SKB_GSO_UDP_L4 instead of TCPV4/TCPV6 (tcpv6 still tells
				 * the inner IP version; fixedid and ecn 0, as 6.12's udp_gro_complete_segment) */
} TGC_ALIGN4;
TGC_ASSERT(sizeof(struct tgc_completion) == 8 && __alignof__(struct tgc_completion) == 4, "tgc_completion: size 8, align 4");
TGC_ASSERT(TGC_OFF(tgc_completion, tcp_off) == 0 && TGC_OFF(tgc_completion, csum_offset) == 2 &&
	   TGC_OFF(tgc_completion, tcpv6) == 4 && TGC_OFF(tgc_completion, fixedid) == 5 && TGC_OFF(tgc_completion, ecn) == 6 &&
	   TGC_OFF(tgc_completion, udp) == 7,
	   "tgc_completion: field offsets");

/*
 * tgc_complete - fix up a GRO packet's innermost headers before it goes up (gro_complete).
 * @nh, @nh_len: writable bytes from the innermost network header (IPv4 or IPv6, then TCP).
 * @len: bytes of the GRO packet from @nh to its end.
 * @id_state: the held packet's id_state; @layer: index of this IP layer (0 plain, 1 tunneled inner).
 * Writes the IPv4 total length and header checksum (over its options, if any: TGC_ENGINE_IPV4_OPTIONS packets),
 * or the IPv6 payload length (over its extension headers, which it walks to the TCP header), and the TCP
 * pseudo-header checksum for CHECKSUM_PARTIAL (as tcp4/6_gro_complete do). A UDP datagram's header gets the UDP
 * length and, unless it is 0, the pseudo-header checksum (6.12's udp4/6_gro_complete, udp_gro_complete; out->udp
 * set). out->tcp_off counts the IPv4 options or IPv6 extension headers. The outer IPv4 header is the caller's (the kernel's
 * inet_gro_complete fixes it before calling the tunnel's gro_complete); tgc_fix_ipv4() serves host callers.
 * Returns 0, or -1 when the headers do not parse (nothing written).
 */
int tgc_complete(tgc_u8 *nh, tgc_u32 nh_len, tgc_u32 len, tgc_u8 id_state, unsigned int layer,
		 struct tgc_completion *out);

/*
 * tgc_fix_ipv4 - set an IPv4 header's total length to @len and recompute its header checksum over the IHL bytes,
 * options included (RFC 791/1071; an IHL below 5 counts as 5). The IHL bytes at @iph must be writable.
 */
void tgc_fix_ipv4(tgc_u8 *iph, tgc_u16 len);

/*
 * tgc_tcp_csum_ok - verify the TCP checksum of a segment whose bytes are all at @hdr (host tools, tests, the
 * engine on devices without checksum help). @pkt from tgc_parse(), @len >= pkt->payload_off + pkt->payload_len.
 * Returns 1 when the one's-complement sum over pseudo-header, TCP header and payload is correct (RFC 793/9293).
 * A UDP datagram (tgc_pkt_is_udp()) is checked as UDP; a zero UDP checksum (none sent, RFC 768) gives 1, and
 * tgc_decide() never merges it (TGC_R_UDP_CSUM0).
 */
int tgc_tcp_csum_ok(const struct tgc_pkt *pkt, const tgc_u8 *hdr, tgc_u32 len);

/*
 * ---- One receive step: the loop every caller shares ----
 *
 * tgc_receive() runs the whole per-segment sequence: parse, locate the held packet of the segment's flow (through
 * the caller's find), decide, append through the caller (a failed append is decided again as TGC_IN_NOMERGE), and
 * returns everything the caller must still do. The caller then, in this order:
 *   MERGE: (the payload is already appended) store v.id_state and v.fixedid with the held packet, OR v.held_flags
 *          into its byte at flags_off; then, if v.flush_held, complete it;
 *   HOLD:  if v.flush_held, complete the held packet first; then keep the segment as a new GRO packet;
 *   PASS:  if v.flush_held, complete the held packet first; then deliver the segment as it is.
 * The outer-header facts the caller already checked come in as TGC_IN_* bits, never re-derived here.
 */

/* One segment as the caller has it. Same layout on every arch (asserts below). */
struct tgc_seg {
	const tgc_u8 *hdr;	/* headers from the outer network header; the core reads no further than hdr_len */
	const tgc_u8 *data;	/* all pkt_len bytes in one piece (host callers), or NULL: for TGC_IN_CSUM_CHECK */
	tgc_u32 hdr_len;	/* bytes readable at hdr */
	tgc_u32 pkt_len;	/* bytes of the segment from the outer network header (link padding included) */
	tgc_u32 in;		/* TGC_IN_* */
	tgc_u32 hash;		/* the caller's flow hash (skb->hash): used by an engine set up with
				 * TGC_ENGINE_CALLER_HASH, ignored otherwise */
	tgc_u32 time;		/* arrival time in the caller's unit (jiffies): the engine's flow age */
	tgc_u16 gso_size;	/* 0: one wire segment; else it arrived GSO (skb_is_gso) with this MSS */
	tgc_u16 gso_segs;	/* with gso_size: the wire segments it stands for (NAPI_GRO_CB()->count) */
	tgc_u8  encap;		/* TGC_ENCAP_* the caller dispatched on */
	tgc_u8  pad[3];
} TGC_ALIGN_PTR;
TGC_ASSERT(sizeof(struct tgc_seg) == (TGC_PTR == 8 ? 48 : 36), "tgc_seg: size 36/48 (32/64-bit)");
TGC_ASSERT(TGC_OFF(tgc_seg, data) == TGC_PTR && TGC_OFF(tgc_seg, hdr_len) == 2 * TGC_PTR &&
	   TGC_OFF(tgc_seg, in) == 2 * TGC_PTR + 8 && TGC_OFF(tgc_seg, time) == 2 * TGC_PTR + 16 &&
	   TGC_OFF(tgc_seg, gso_size) == 2 * TGC_PTR + 20 && TGC_OFF(tgc_seg, encap) == 2 * TGC_PTR + 24,
	   "tgc_seg: field offsets");

/* Everything the caller must do with one segment. */
struct tgc_rx_result {
	void *held;		/* the held packet of the segment's flow (what find returned), or NULL */
	struct tgc_pkt pkt;	/* the segment: all fields when parsed; only the layout when located after a refusal */
	struct tgc_verdict v;	/* action, flush_held, reason; after a MERGE the held packet's new id_state, fixedid and
				 * the TCP flags to OR in (held_flags) */
	tgc_u16 flags_off;	/* MERGE: offset of the held packet's TCP flags byte from its outer network header */
	tgc_u8  parsed;		/* 1: tgc_parse() accepted the segment; 0: passed for v.reason (a tgc_parse refusal) */
	tgc_u8  located;	/* refused, but its flow was located (TGC_IN_OUTER_FLUSH/UPPER_FLUSH): held is its flow's */
	tgc_u8  foreign;	/* held was TGC_HELD_FOREIGN: decided as a new flow, and held completes first */
	tgc_u8  retried;	/* the caller's append failed: decided again with TGC_IN_NOMERGE */
	tgc_u8  fast;		/* tgc_receive(): taken by the fast stage on the caller's expect (1) or by the
				 * predicted stage on its prediction (2): no parse, find or decide; retried says if
				 * its append failed */
	tgc_u8  pad;
} TGC_ALIGN_PTR;
TGC_ASSERT(sizeof(struct tgc_rx_result) == (TGC_PTR == 8 ? 48 : 44), "tgc_rx_result: size 44/48 (32/64-bit)");
TGC_ASSERT(TGC_OFF(tgc_rx_result, pkt) == TGC_PTR && TGC_OFF(tgc_rx_result, v) == TGC_PTR + 24 &&
	   TGC_OFF(tgc_rx_result, flags_off) == TGC_PTR + 32 && TGC_OFF(tgc_rx_result, parsed) == TGC_PTR + 34 &&
	   TGC_OFF(tgc_rx_result, retried) == TGC_PTR + 37 && TGC_OFF(tgc_rx_result, fast) == TGC_PTR + 38,
	   "tgc_rx_result: field offsets");

/*
 * Where a held packet's first segment has its headers, as tgc_parse() found them (tgc_pkt's offsets, from the
 * outer network header), and the encap it was parsed as: what a caller that keeps no tgc_pkt with its held packets
 * gives for the fast stage (the kernel: the GRO offsets tungro set when it held the skb).
 */
struct tgc_layout {
	tgc_u16 inner_off;	/* tgc_pkt.inner_off */
	tgc_u16 tcp_off;	/* tgc_pkt.tcp_off */
	tgc_u16 payload_off;	/* tgc_pkt.payload_off */
	tgc_u8  encap;		/* tgc_pkt.encap */
	tgc_u8  pad;
} TGC_ALIGN4;
TGC_ASSERT(sizeof(struct tgc_layout) == 8 && TGC_OFF(tgc_layout, payload_off) == 4 &&
	   TGC_OFF(tgc_layout, encap) == 6, "tgc_layout: size 8, field offsets");

struct tgc_pred;

/* The caller's side of tgc_receive(). @ctx is the caller's, passed back unchanged. */
struct tgc_rx_ops {
	/* Optional. The segment parsed: do the work that needs its layout (the kernel: GRO pulls to the payload,
	 * checksum validation) and return TGC_IN_* bits to add (TGC_IN_CSUM_BAD). */
	tgc_u32 (*prepare)(void *ctx, const struct tgc_pkt *pkt);
	/* The held packet of @pkt's flow (tgc_same_flow() against @hdr), or NULL; fills @held (zeroed on entry) for
	 * tgc_decide(). After a refusal @pkt holds only tgc_flow_of()'s layout. */
	void *(*find)(void *ctx, const struct tgc_pkt *pkt, const tgc_u8 *hdr, struct tgc_held *held);
	/* Append the segment's payload to @held (r->pkt, r->v are the MERGE verdict). 0, or nonzero when the buffers
	 * cannot (the segment is then decided again as TGC_IN_NOMERGE). */
	int (*append)(void *ctx, void *held, const struct tgc_rx_result *r);
	/* Optional: the fast stage. Before anything is parsed, the held packet @seg is likely to join (the kernel:
	 * the first candidate left on its GRO list), or NULL; fills @held's fields from hdr to id_state as find
	 * would (flags is 0 on entry and stays 0: never one find would flag TGC_HELD_*) and @layout, its first
	 * segment's. When the segment's headers are that packet's
	 * but for the fields that change per segment and the rules on those hold (fastpath.hpp), it merges without
	 * the parse, find and decide, with the result they would give (r->fast); prepare is still called, once,
	 * before append. The core checks @layout against the held bytes and reads none past held->hdr_len. */
	void *(*expect)(void *ctx, const struct tgc_seg *seg, struct tgc_held *held, struct tgc_layout *layout);
	/* Optional. The segment's whole headers, where seg->hdr holds only the bytes the caller could read without
	 * a pull (the kernel: what frag0 or the linear part holds; nearly always every header): called at most once,
	 * to set *hdr and *hdr_len (the kernel: grown until tgc_hdr_need() says they are all there), when the fast
	 * stage's candidate has longer headers than the view or when the parse found the view too short
	 * (TGC_R_MALFORMED; then it parses what this gives).
	 * The bytes seg->hdr holds must be the same at *hdr. 0, or nonzero when the segment cannot provide them: it
	 * is then passed (TGC_R_MALFORMED, parsed 0, no held packet). Absent: seg->hdr is whole. */
	int (*view)(void *ctx, const tgc_u8 **hdr, tgc_u32 *hdr_len);
	/* Optional: the predicted stage, ahead of the fast one. The held packet @seg is likely to join (expect's
	 * candidate), when the caller keeps a prediction for that very packet (tgc_pred_hold()) that is current
	 * (tgc_pred_current()). Then *@pred is set to it; else NULL. A segment equal to the predicted next one merges
	 * on one compare (r->fast 2); prepare is still called, once, before append. */
	void *(*predict)(void *ctx, const struct tgc_seg *seg, struct tgc_pred **pred);
};

/*
 * tgc_receive - one segment through the shared receive loop.
 * @seg: the segment; @ops, @ctx: the caller's find/append (find may be NULL: no held packets); @r: the result.
 */
void tgc_receive(const struct tgc_seg *seg, const struct tgc_rx_ops *ops, void *ctx, struct tgc_rx_result *r);

/*
 * ---- The offload path's predicted stage: a held packet's next segment, worked out ahead ----
 *
 * The kernel's GRO list keeps no state of tungro's with a held packet but a few bytes of skb->cb, so the caller
 * keeps a tgc_pred beside it (the module: per CPU, in a slot of the held skb's address) and names it through
 * tgc_rx_ops.predict. The fields are the core's (src/fastpath.hpp's predicted stage, the same code as the
 * engine's): the caller reads them only through tgc_pred_current(), and writes them only through
 * tgc_pred_hold(). 344 bytes on every arch.
 */
#define TGC_PRED_HDR_BYTES 128u	/* headers beyond this: no prediction */
struct tgc_pred {
	struct tgc_pkt first;	/* the held packet's first segment, as tgc_parse() gave it */
	struct tgc_pkt next;	/* the predicted next segment, as tgc_parse() would give it ... */
	struct tgc_verdict next_v;	/* ... and its MERGE verdict */
	tgc_u32 total_len;	/* the held packet's bytes from the outer network header (tgc_held.total_len) */
	tgc_u32 payload_len;	/* its TCP payload bytes */
	tgc_u32 pred_len;	/* the predicted segment's pkt_len: payload_off + gso_size */
	tgc_u32 pred_room;	/* TGC_MAX_GRO_BYTES - gso_size: one more segment fits while total_len is below */
	tgc_u16 count;		/* the held packet's wire segments, once made (tgc_pred_current()) */
	tgc_u16 gso_size;	/* its MSS */
	tgc_u16 pred_id[2];	/* per IPv4 layer (0 outer, 1 inner), host order: the predicted ID ... */
	tgc_u16 pred_sum[2];	/* ... and the complement of its header checksum */
	tgc_u8  id_state;	/* the held packet's id_state */
	tgc_u8  pred_step;	/* the IPv4 layers whose ID steps by one a segment */
	tgc_u8  pred_v4;	/* the IPv4 layers */
	tgc_u8  state;		/* TGC_PRED_ON, TGC_PRED_LAZY or TGC_PRED_OFF */
	tgc_u8  pmask[TGC_PRED_HDR_BYTES];	/* 0xff where a segment's header bytes must equal hdr's */
	tgc_u8  hdr[TGC_PRED_HDR_BYTES];	/* the first segment's headers, from the outer network header */
} TGC_ALIGN4;
TGC_ASSERT(sizeof(struct tgc_pred) == 344 && __alignof__(struct tgc_pred) == 4, "tgc_pred: size 344, align 4");
TGC_ASSERT(TGC_OFF(tgc_pred, next) == 24 && TGC_OFF(tgc_pred, total_len) == 56 && TGC_OFF(tgc_pred, count) == 72 &&
	   TGC_OFF(tgc_pred, id_state) == 84 && TGC_OFF(tgc_pred, pmask) == 88 && TGC_OFF(tgc_pred, hdr) == 216,
	   "tgc_pred: field offsets");

/* tgc_pred.state */
#define TGC_PRED_ON   0	/* made, kept up by tgc_receive() at each of its merges into the packet since */
#define TGC_PRED_LAZY 1	/* none made yet: the fast stage makes it at a merge, from expect's facts of the packet */
#define TGC_PRED_OFF  2	/* none: nothing to predict (headers over TGC_PRED_HDR_BYTES, a GSO arrival, FIN or PSH) */

/*
 * tgc_pred_hold - @pred for a packet the caller holds now, after tgc_receive() said TGC_HOLD: LAZY, so a packet
 * never joined costs only this.
 */
static inline void tgc_pred_hold(struct tgc_pred *pred)
{
	pred->state = TGC_PRED_LAZY;
}

/*
 * tgc_pred_current - whether @pred, kept for a held packet of @count wire segments, may be offered as its
 * prediction (tgc_rx_ops.predict): LAZY (tgc_receive() makes it from expect's facts of that packet), or ON with
 * the packet's count. A merge tgc_receive() did not keep it up for (one find made for another candidate, a merge
 * on another CPU after a NAPI moved) leaves its count below the packet's for good: counts only grow.
 */
static inline int tgc_pred_current(const struct tgc_pred *pred, tgc_u16 count)
{
	return pred->state == TGC_PRED_LAZY || (pred->state == TGC_PRED_ON && pred->count == count);
}

/*
 * ---- The engine: a GRO flow table on tgc_receive(), in memory the caller provides ----
 *
 * buckets x flows per bucket held packets (default 8 x 8). A flow's bucket comes from tungro's own hash of the
 * innermost 5-tuple plus the outer addresses (tgc_flow_hash()), or with TGC_ENGINE_CALLER_HASH from tgc_seg.hash
 * as the kernel does (virtio-net without hash reporting gives 0: every flow in one bucket). Each held flow keeps
 * its key (a copy of its first segment's headers, its hash) and its age (tgc_seg.time at hold). A full bucket
 * completes its oldest flow and holds the new one: nothing is passed up only because a bucket is full. Packets go
 * to the caller through tgc_engine_ops in the order the flow's segments arrived. No allocation and no locks: one
 * engine is driven by one context at a time (a NAPI instance).
 */
#define TGC_ENGINE_BUCKETS 8u
#define TGC_ENGINE_FLOWS   8u
#define TGC_ENGINE_CALLER_HASH 0x1u	/* bucket = tgc_seg.hash mod buckets (the kernel's way) */
/*
 * Merge IPv4 headers with options (IHL > 5) in every IPv4 layer, where the option bytes are identical to the held
 * packet's (else TGC_R_IP_OPT_DIFF ends it) and every option is well formed (RFC 791 3.1: type, length >= 2, inside
 * IHL; else TGC_R_MALFORMED) and outside the deny-list (TGC_R_IP_OPTIONS): record route (7), MTU probe (11),
 * timestamp (68), traceroute (82), security (130), loose/strict source route (131/137), extended security (133),
 * CIPSO (134), router alert (148): options routers rewrite, that steer routing (the TCP pseudo-header would use
 * the final destination) or that the stack acts on (include/uapi/linux/ip.h IPOPT_*, net/ipv4/ip_options.c).
 * 6.12 merges no IPv4 header with options: never for the offload path (the kernel may complete tungro's held
 * packets there, and its inet_gro_complete assumes 20 bytes); tgc_receive() never does it.
 */
#define TGC_ENGINE_IPV4_OPTIONS 0x2u
/*
 * No fast stage: every segment through the full parse, lookup and decide. The fast stage (src/fastpath.hpp) merges
 * a segment that matches the header template of the held packet of the previous segment's flow, with the same
 * result, and the predicted stage one equal to that packet's predicted next segment; this flag (both off) is their
 * differential proof's other side (host tests, fuzz_engine) and a way to rule them out.
 */
#define TGC_ENGINE_NO_FASTPATH 0x4u

/* A merge for the caller to carry out (tgc_engine_ops.append). */
struct tgc_merge {
	const struct tgc_pkt *pkt;	/* the segment: payload at [payload_off, payload_off + payload_len) of its bytes */
	tgc_u32 held_len;	/* bytes of the held packet so far (its first segment without link padding, plus
				 * every payload appended): where this payload goes */
	tgc_u16 flags_off;	/* the held packet's TCP flags byte, from its outer network header ... */
	tgc_u8  held_flags;	/* ... to OR these into (FIN/PSH) */
	tgc_u8  id_state;	/* the held packet's id_state from now on */
	tgc_u8  fixedid;	/* the kernel's ip_fixedid bit for it */
	tgc_u8  pad[3];
} TGC_ALIGN_PTR;

/* Why a held packet was completed (tgc_done.why). */
enum tgc_done_why {
	TGC_DONE_FLOW = 0,	/* by a segment of its own flow (v.flush_held) */
	TGC_DONE_EVICT,		/* its bucket was full and it was the oldest */
	TGC_DONE_FLUSH,		/* tgc_engine_flush() / tgc_engine_flush_before() */
};

/* A held packet to complete and deliver (tgc_engine_ops.complete); tgc_finish() does the header fixups. */
struct tgc_done {
	struct tgc_pkt first;	/* its first segment as parsed: layout, encap, layers */
	tgc_u32 total_len;	/* bytes from the outer network header to its end, all segments, no padding */
	tgc_u32 payload_len;	/* TCP payload bytes, all segments */
	tgc_u16 count;		/* wire segments (a GSO arrival counts as its gso_segs) */
	tgc_u16 gso_size;	/* MSS */
	tgc_u8  id_state;	/* for tgc_complete() */
	tgc_u8  why;		/* enum tgc_done_why */
	tgc_u8  pad[2];
} TGC_ALIGN_PTR;
TGC_ASSERT(sizeof(struct tgc_done) == 40, "tgc_done: size 40");

/* The caller's buffer mechanics. Every callback may deliver at once or queue: per flow, calls come in order. */
struct tgc_engine_ops {
	/* Append segment @seg's payload to held packet @held and patch @held's headers as @m says. 0, or nonzero
	 * when the buffers cannot: the engine then completes @held and holds @seg (TGC_R_NOMERGE). @seg belongs to
	 * the caller again after a 0. */
	int (*append)(void *ctx, void *held, void *seg, const struct tgc_merge *m);
	/* Complete held packet @held (tgc_finish() on its bytes, or the kernel's gro_complete) and deliver it. */
	void (*complete)(void *ctx, void *held, const struct tgc_done *d);
	/* Deliver segment @seg unmerged, as it is (GRO_NORMAL); @r says why (r->held is the caller's packet). */
	void (*deliver)(void *ctx, void *seg, const struct tgc_rx_result *r);
};

/* Counters of one engine (u32, wrapping; the caller accumulates them where it needs more). */
struct tgc_engine_stats {
	tgc_u32 segs;		/* tgc_engine_receive() calls */
	tgc_u32 merged, held, passed;	/* what became of them (each segment exactly one) */
	tgc_u32 completed;	/* held packets completed, for any reason */
	tgc_u32 evicted;	/* of those, the oldest of a full bucket */
	tgc_u32 flushed;	/* of those, by tgc_engine_flush()/tgc_engine_flush_before() */
	tgc_u32 retried;	/* appends the caller could not do */
	tgc_u32 held_now, held_max;	/* held packets now, and the most ever at once */
	tgc_u32 reasons[TGC_R_COUNT];	/* per segment: the refusal, or the verdict's reason */
	tgc_u32 fastpath;	/* of merged, those the fast or predicted stage merged (src/fastpath.hpp) */
};

struct tgc_engine;

/* Bytes of caller memory for an engine of @buckets (a power of two, 1..256) x @flows (1..256), or 0 when out of
 * range. The bucket is the hash's low bits, as in the kernel's dev_gro_receive. */
tgc_u32 tgc_engine_size(tgc_u32 buckets, tgc_u32 flows);

/*
 * tgc_engine_init - set up an engine in @mem (@size bytes, 8-aligned, at least tgc_engine_size()).
 * @flags: TGC_ENGINE_*. Returns the engine (at @mem), or NULL when the sizes or memory do not fit.
 */
struct tgc_engine *tgc_engine_init(void *mem, tgc_u32 size, tgc_u32 buckets, tgc_u32 flows, tgc_u32 flags,
				   const struct tgc_engine_ops *ops, void *ctx);

/*
 * tgc_engine_receive - one segment. @cookie is the caller's handle for it: passed back to append (as seg),
 * deliver, or, when it is held, as @held to append and complete later. @r (may be NULL) receives the result,
 * with r->held translated to the caller's handle. The engine stands in for the kernel's outer IP GRO: a segment
 * (tunnel or plain) whose outer IPv4 total length or IPv6 payload length + 40 is not pkt_len gets
 * TGC_IN_OUTER_FLUSH.
 */
void tgc_engine_receive(struct tgc_engine *e, const struct tgc_seg *seg_arg, void *cookie, struct tgc_rx_result *r_out);

/*
 * tgc_engine_receive_burst - @n segments in order: the same as tgc_engine_receive(e, &segs[i], cookies[i], NULL) for
 * each (a poll's segments in one call: the entry, the exit and the engine's own loads spread over them).
 */
void tgc_engine_receive_burst(struct tgc_engine *e, const struct tgc_seg *segs, void *const *cookies, tgc_u32 n);

/* Complete every held packet (the end of a NAPI poll): bucket by bucket, oldest first in each. */
void tgc_engine_flush(struct tgc_engine *e);

/* Complete the held packets that arrived before @time (wrapping compare; a poll that used its whole budget). */
void tgc_engine_flush_before(struct tgc_engine *e, tgc_u32 time);

void tgc_engine_get_stats(const struct tgc_engine *e, struct tgc_engine_stats *s);

/* tungro's flow hash: innermost addresses and ports, every outer address, IPv6 flow labels, the encap. */
tgc_u32 tgc_flow_hash(const struct tgc_pkt *pkt, const tgc_u8 *hdr);

/*
 * tgc_finish - complete a GRO packet in host memory: @bytes, @len from its outer network header (@len ==
 * d->total_len). For 2+ segments: the outer IPv4 length and checksum, or outer IPv6 payload length, of a tunnel
 * packet (the kernel's inet_gro_complete / ipv6_gro_complete), then tgc_complete() on the innermost headers. The
 * GSO type: TCPV4/TCPV6 from c->tcpv6, IPXIP4/IPXIP6 from tgc_tunnel_of(d->first.encap)->gso. Returns 0 (@c
 * zeroed for one segment), or -1.
 */
int tgc_finish(tgc_u8 *bytes, tgc_u32 len, const struct tgc_done *d, struct tgc_completion *c);

/*
 * Buckets of the segments-per-GRO-packet histogram: 1, 2, 3-4, 5-8, 9-16, 17-32, 33-64, 65 and more (segments that
 * arrive already GSO count as their wire segments, so a GRO packet can hold more than 64).
 */
#define TGC_HIST_BUCKETS 8
unsigned int tgc_hist_bucket(unsigned int segs);

#ifdef __cplusplus
}
#endif
#endif /* TUNGRO_CORE_H */
