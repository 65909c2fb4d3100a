// SPDX-License-Identifier: GPL-2.0
// The receive loop's fast stage (receive.hpp): a segment against the header template of the one held packet its
// caller expects it to join (the engine: the flow the previous segment found or started). Where the headers are the
// held packet's first segment's byte for byte, except for the fields that change from one segment of a flow to the
// next, and those fields follow the few arithmetic rules below, the full parse and decide can only say MERGE, with
// the very record the fast stage writes; anything else goes to them, unchanged. Why that holds, rule by rule:
//
// The template. The held packet's headers (tgc_held.hdr, the engine's Flow::hdr) are a copy of its first segment's
// [0, payload_off), which tgc_parse() accepted and decide() held: so they have no padding (PADDING is never held),
// no layer-3 flush (IP_LEN, IP_FLAGS: never held), no end flag (a segment with one is passed), IPv4 checksums that
// sum right, and option lists and IPv6 extension headers that parse() walked. The engine never writes them but for
// the TCP flags byte, where it ORs FIN/PSH of a merged segment, and such a merge completes the packet at once. A
// segment of the same encap whose bytes equal them everywhere but in the masked fields therefore has the same
// layout (IHL, extension headers, data offset: the same inner_off, tcp_off, payload_off), the same flow
// (same_flow() compares only unmasked bytes), and passes every comparison of l3_flush() and merge_flush() (TTL,
// TOS, DF, traffic class, hop limit, IPv4 options, TCP flags, data offset, window, ack, options) and every check of
// parse() that does not read a masked field.
//
// The masked fields, each checked here as parse() and decide() would:
//   IPv4 total length    every layer's must be exactly the bytes from its header to the segment's end (pkt_len):
//                        the outer one then has no padding and no TGC_IN_OUTER_FLUSH, the inner one no IP_LEN;
//   IPv4 ID              ip_id_rule() per layer, the same function as l3_flush();
//   IPv4 header checksum the held copy's sums right and the other 16-bit words are equal, so the segment's header
//                        sums right exactly when its length, ID and checksum words add up to the held copy's
//                        modulo 0xffff (RFC 1071's one's-complement sum; RFC 1624's incremental update read
//                        backwards), which costs three adds instead of the whole header;
//   IPv6 payload length  every layer's must be the bytes after its fixed header to the segment's end;
//   TCP sequence number  the held packet's first plus its payload (merge_flush's SEQ rule);
//   TCP checksum         not a GRO rule; with TGC_IN_CSUM_CHECK validated over seg->data by tgc_tcp_csum_ok(), the
//                        loop's own check (a bad one, or no data, goes to the slow path, which says CSUM);
//   TCP urgent pointer   merge_flush() never reads it; with URG set the segment has an end flag: slow path.
// And the rules on what the template cannot fix: no CWR and no end flag in the flags byte (the held packet's is
// equal and has none, but CWR may be there: merge_flush's FLAGS), a payload of 1..gso_size bytes (NO_PAYLOAD,
// MSS; shorter than gso_size merges and ends the packet: SHORT, as decide() says), the aggregate below 64 KiB
// (SIZE), a wire segment (no gso_size: a GSO arrival has its own MSS rule), TCP (UDP datagrams have other rules),
// hdr_len at least payload_off and at most pkt_len (parse's MALFORMED), and none of the caller's TGC_IN_* bits that
// refuse or need a decision of their own (kFastRefuse). The caller's own conditions (a hash it compares, TLS state)
// are its candidate's, checked before (the engine's EngineOps::expected()).
#ifndef TUNGRO_FASTPATH_HPP
#define TUNGRO_FASTPATH_HPP

#include "checksum.hpp"
#include "headers.hpp"
#include "rules.hpp"

namespace tungro {

// The TGC_IN_* bits that send a segment to the full parse and decide: refusals, and facts they decide on.
constexpr u32 kFastRefuse = TGC_IN_UPPER_FLUSH | TGC_IN_CSUM_BAD | TGC_IN_NOMERGE | TGC_IN_DECRYPTED |
			    TGC_IN_OUTER_FLUSH;

// Whether @seg, with the caller's @in bits, has the shape the fast stage takes for a held packet whose first
// segment parsed as @first: a TCP wire segment of the same encap, all its headers in the view (hdr_len at least
// payload_off and, as parse() requires, at most pkt_len), no refusing TGC_IN_* bit (some payload: fast_merge). Also what makes
// reading the segment's headers at @first's offsets safe (template_match, the engine's candidate key).
__attribute__((always_inline)) static inline bool fast_shape(const tgc_seg *seg, u32 in, const tgc_pkt &first)
{
	return !(in & kFastRefuse) && !seg->gso_size && seg->encap == first.encap && seg->hdr &&
	       seg->hdr_len >= first.payload_off && seg->hdr_len <= seg->pkt_len && !is_udp(&first);
}

// Nonzero when an IP header of @hlen bytes (IPv4 with its options, IPv6 with its walked extension headers)
// differs from the held packet's at @held outside the fields that change per segment: IPv4 total length (bytes
// 2-3), ID (4-5) and header checksum (10-11); IPv6 payload length (4-5).
__attribute__((always_inline)) static inline u64 ip_template_diff(const u8 *nh, const u8 *held, u32 hlen)
{
	if (ip_version(held) == 4) // version and IHL, TOS | flags and offset, TTL, protocol | addresses | options
		return (load16(nh) ^ load16(held)) | (raw32(nh + ipv4::kFragOff) ^ raw32(held + ipv4::kFragOff)) |
		       (raw64(nh + ipv4::kSaddr) ^ raw64(held + ipv4::kSaddr)) |
		       (hlen != ipv4::kMinLen ? words_diff(nh + ipv4::kMinLen, held + ipv4::kMinLen, hlen - ipv4::kMinLen) : 0);
	// version, traffic class, flow label | next header, hop limit | addresses | extension headers
	return (raw32(nh) ^ raw32(held)) | (load16(nh + ipv6::kNextHdr) ^ load16(held + ipv6::kNextHdr)) |
	       words_diff(nh + ipv6::kSaddr, held + ipv6::kSaddr, 32) |
	       (hlen != ipv6::kLen ? words_diff(nh + ipv6::kLen, held + ipv6::kLen, hlen - ipv6::kLen) : 0);
}

// Whether the headers at @hdr match the held packet's template at @held, laid out as @first (fast_shape() said
// the bytes are there): every byte of [0, payload_off) equal but the IP fields of ip_template_diff() and the TCP
// sequence number (4-7), checksum and urgent pointer (16-19). The ports first: another flow differs there.
__attribute__((always_inline)) static inline bool template_match(const u8 *hdr, const u8 *held, const tgc_pkt &first)
{
	const u32 toff = first.tcp_off, ioff = first.inner_off;
	const u8 *th = hdr + toff, *th2 = held + toff;
	if (raw32(th + tcp::kPorts) != raw32(th2 + tcp::kPorts))
		return false;
	// ack, data offset, flags, window | options
	const u32 optlen = first.payload_off - toff - tcp::kMinLen;
	u64 diff = (raw64(th + tcp::kAck) ^ raw64(th2 + tcp::kAck)) |
		   (optlen ? words_diff(th + tcp::kMinLen, th2 + tcp::kMinLen, optlen) : 0);
	if (first.nlayers == 2)
		diff |= ip_template_diff(hdr, held, ioff) | ip_template_diff(hdr + ioff, held + ioff, toff - ioff);
	else
		diff |= ip_template_diff(hdr, held, toff);
	return diff == 0;
}

// Whether an IPv4 header that equals the held packet's (@held: its checksum right) but for total length, ID and
// checksum sums right too: those three 16-bit words add up to the held header's modulo 0xffff. Both sums are at
// most 3 x 0xffff, so the difference plus 3 x 0xffff is >= 0 and folds to 0 or 0xffff exactly when it is 0 modulo
// 0xffff (a header starting 0x4 never sums to 0, so ipv4_hdr_ok() would say right).
__attribute__((always_inline)) static inline bool ipv4_sum_kept(const u8 *nh, const u8 *held)
{
	// In the host's byte order (raw16): the test against 0 modulo 0xffff does not depend on it (be.hpp).
	const u32 now = raw16(nh + ipv4::kTotLen) + raw16(nh + ipv4::kId) + raw16(nh + ipv4::kCheck);
	const u32 was = raw16(held + ipv4::kTotLen) + raw16(held + ipv4::kId) + raw16(held + ipv4::kCheck);
	u32 d = now + 3u * 0xffffu - was; // < 2^19: two folds
	d = (d & 0xffff) + (d >> 16);
	d = (d & 0xffff) + (d >> 16);
	return d == 0 || d == 0xffff;
}

// The masked fields of one IP layer whose template matched: its length field says @len bytes from its header on
// (the rest of the segment); IPv4: the header checksum sums right and the ID follows ip_id_rule() for @layer
// against the held packet's @count segments (updating *id_state).
__attribute__((always_inline)) static inline bool ip_fields_ok(const u8 *nh, const u8 *held, u32 len, u16 count,
								unsigned layer, u8 *id_state)
{
	if (ip_version(held) == 6)
		return load16(nh + ipv6::kPayloadLen) + ipv6::kLen == len;
	return load16(nh + ipv4::kTotLen) == len && ipv4_sum_kept(nh, held) &&
	       ip_id_rule(static_cast<u16>(load16(nh + ipv4::kId) - load16(held + ipv4::kId)), count, layer, id_state) ==
		       TGC_R_NONE;
}

/*
 * The fast stage's rules: whether @seg (with the caller's @in bits), which has fast_shape() and matches
 * template_match() of held packet @h, joins it (the file's head says why that is exactly when the full parse and
 * decide would merge it). @h: the caller's held packet, with the members of the engine's Flow: hdr (its first
 * segment's headers, at least first.payload_off bytes), first (that segment as parse() gave it), total_len,
 * payload_len (bytes from the outer header to its end, and of TCP payload), count (wire segments), gso_size (MSS),
 * id_state. On true, r->pkt, r->v, r->parsed and the other flags of @r are what the slow path writes for a MERGE
 * (r->held and r->flags_off are the loop's); on false @r may be partly written (the full stage starts afresh).
 */
template <class Held>
__attribute__((always_inline)) static inline bool fast_merge(const tgc_seg *seg, u32 in, const Held &h,
							      tgc_rx_result *r)
{
	const tgc_pkt &first = h.first;
	const u32 len = seg->pkt_len, payload = len - first.payload_off, ioff = first.inner_off;
	const u8 *hdr = seg->hdr, *th = hdr + first.tcp_off;
	const u32 seq = first.seq + h.payload_len;
	const u8 flags = th[tcp::kFlags];
	const bool tunnel = first.nlayers == 2;
	u8 id_state = h.id_state;
	// payload in 1..gso_size: the unsigned difference wraps for an empty one
	if ((flags & (tcp::kCWR | kEndFlags)) || payload - 1u >= h.gso_size || load32(th + tcp::kSeq) != seq ||
	    h.total_len + payload >= TGC_MAX_GRO_BYTES || !ip_fields_ok(hdr, h.hdr, len, h.count, 0, &id_state) ||
	    (tunnel && !ip_fields_ok(hdr + ioff, h.hdr + ioff, len - ioff, h.count, 1, &id_state)))
		return false;

	// The segment as parse() describes it: the held first segment's layout, its own sequence, flags and payload.
	r->pkt = first;
	r->pkt.seq = seq;
	r->pkt.payload_len = payload;
	r->pkt.tcp_flags = flags;
	r->pkt.gso_size = 0;
	r->pkt.gso_segs = 1;
	if ((in & TGC_IN_CSUM_CHECK) && (!seg->data || !tgc_tcp_csum_ok(&r->pkt, seg->data, len)))
		return false; // the slow path passes it for TGC_R_CSUM
	merge_verdict(flags, false, payload, 0, 1, hdr + ioff, tunnel ? 1 : 0, h.gso_size, h.count, id_state, &r->v);
	r->parsed = 1;
	r->located = r->foreign = r->retried = 0;
	r->fast = r->pad = 0;
	return true;
}

/*
 * The predicted stage, ahead of the fast one (the engine's, in tgc_engine_receive; the offload
 * path's, tgc_receive() on a tgc_pred): for a held TCP
 * packet the caller predicts the next segment's headers as fast_merge() would take them: the
 * template h.hdr but for the fields that step, which are kept in host order (h.next.seq; per IPv4
 * layer h.pred_id and h.pred_sum, the ID and the header checksum's complement), with the record
 * fast_merge() would write for it (h.next, h.next_v) (predict_start(), predict_next()), and keeps them up at every merge (predict_next(), or
 * predict_step() after a predicted merge); a segment whose header bytes equal h.hdr's where
 * h.pmask says so, and those fields where it does not (the TCP checksum is no GRO rule), then
 * merges on one compare (predicted()), with that record. The caller keeps h.pred_len and
 * h.pred_room (pred_shape_of(), pred_fits()). A step writes only the host-order copies, never
 * header bytes: the next segment's compare loads the header 8 bytes at a time, and x86 cannot
 * forward a narrower store to such a load (on one flow, where that next segment comes at once,
 * a step that rewrote a copy of the header cost 9.97 against 7.83 ns a segment, 2026-12-06). Why
 * such a segment is exactly one fast_merge() accepts, with that record, so one the full stage
 * merges:
 *   template   the segment equals h.hdr but at the masked fields (the sequence; per IPv4 layer the
 *              ID and header checksum; the TCP checksum), so template_match() holds; h.hdr's flags
 *              byte is the first segment's while the prediction is on (the engine ORs FIN/PSH in
 *              only at a merge that completes the packet, and turns the prediction off there);
 *   flags      the template's: predict_start() requires no CWR and no end flag there;
 *   lengths    the template's, the first segment's (predict_start() checks each layer says
 *              payload_off + gso_size from it on); pred_shape_of() requires pkt_len to be that
 *              (h.pred_len), so each layer's length is the bytes to the segment's end
 *              (ip_fields_ok), and the payload is gso_size, >= 1 (no empty segment is held): no
 *              NO_PAYLOAD, no MSS, no SHORT;
 *   sequence   first.seq + payload_len (SEQ);
 *   IPv4 ID    the one ip_id_rule() accepts for the layer's state (FIXED: the first's; else the
 *              first's + count, which decides INCR when undecided, count >= 1), ip_id_rule() run
 *              to get the new id_state;
 *   checksum   RFC 1624's eqn. 3 for that ID from the template's (predict_step(): from the
 *              previous prediction, the ID one up), so ipv4_sum_kept() holds: HC' + ID' = HC + ID
 *              modulo 0xffff;
 *   the rest   at the segment: pred_shape(), pred_shape_of() (fast_shape()'s conditions,
 *              hdr_len <= pkt_len), pred_ports() and the flow's encap, the 64 KiB (pred_fits()), no kPredRefuse bit
 *              (TGC_IN_CSUM_CHECK included: the fast stage checks the sum); the caller's candidate
 *              conditions (EngineOps::expected()'s) are its own.
 * h.next_v is merge_verdict()'s record for such a segment: no end flag, payload the MSS, TCP, so
 * only id_state and fixedid vary. A mismatch proves nothing: the segment goes to the fast and full
 * stages, unchanged (a fixed ID at the first merge, a short segment, a retransmission).
 */
constexpr u32 kPredMax = 128; // headers beyond: no prediction (ip6ip6 with an encap limit and TCP options fit)
constexpr u32 kPredMin = 40;  // the least payload_off of TCP: IPv4 and TCP headers without options

// Whether the IP header at @nh says @len bytes from it on (IPv4 total length, IPv6 payload length + 40).
__attribute__((always_inline)) static inline bool ip_len_is(const u8 *nh, u32 len)
{
	return ip_version(nh) == 4 ? load16(nh + ipv4::kTotLen) == len : load16(nh + ipv6::kPayloadLen) + ipv6::kLen == len;
}

// The @n bytes at @off out of prediction mask @mask (compared in host order, or not at all).
__attribute__((always_inline)) static inline void mask_field(u8 *mask, u32 off, u32 n)
{
	for (u32 i = 0; i < n; i++)
		mask[off + i] = 0;
}

// The ID and header checksum of the IPv4 header at @off out of prediction mask @mask.
__attribute__((always_inline)) static inline void mask_ipv4(u8 *mask, u32 off)
{
	mask_field(mask, off + ipv4::kId, 2);
	mask_field(mask, off + ipv4::kCheck, 2);
}

// Whether held packet @h (members as fast_merge's, and pmask, pred_v4, next) can have a
// predicted next segment: TCP wire segments (a GSO first's lengths are not gso_size's) whose flags
// carry no CWR or end flag, headers within kPredMax (and, a guard, at least kPredMin). Then h.pmask
// masks the fields predicted() compares in host order (and the TCP checksum) out of the template,
// h.pred_v4 names the IPv4 layers, and h.next is the first segment's record with gso_size of
// payload.
template <class Held> static inline bool predict_start(Held &h)
{
	const tgc_pkt &first = h.first;
	const u32 len = first.payload_off + h.gso_size; // the first segment's, no padding (never held): checked
	if (is_udp(&first) || first.gso_size || first.payload_off > kPredMax ||
	    first.payload_off < kPredMin ||
	    (first.tcp_flags & (tcp::kCWR | kEndFlags)) || !ip_len_is(h.hdr, len) ||
	    (first.nlayers == 2 && !ip_len_is(h.hdr + first.inner_off, len - first.inner_off)))
		return false;
	__builtin_memset(h.pmask, 0xff, first.payload_off); // the bytes the compare reads
	mask_field(h.pmask, first.tcp_off + tcp::kSeq, 4);
	mask_field(h.pmask, first.tcp_off + tcp::kCheck, 2);
	h.pred_v4 = 0;
	if (ip_version(h.hdr) == 4) {
		mask_ipv4(h.pmask, 0);
		h.pred_v4 |= 1;
	}
	if (first.nlayers == 2 && ip_version(h.hdr + first.inner_off) == 4) {
		mask_ipv4(h.pmask, first.inner_off);
		h.pred_v4 |= 2;
	}
	h.next = first;
	h.next.payload_len = h.gso_size;
	h.next.gso_size = 0;
	h.next.gso_segs = 1;
	return true;
}

// IP layer @layer's predicted ID and header checksum (IPv4 only), from the template's @held, for a
// packet of @count segments, in host order into @id and @sum (the checksum's complement, what
// predict_step() steps); false where ip_id_rule() would refuse it (never: a guard).
__attribute__((always_inline)) static inline bool predict_id(const u8 *held, u16 count, unsigned layer,
							     u8 *id_state, u16 *id, u16 *sum)
{
	if (ip_version(held) != 4)
		return true;
	const u16 id0 = load16(held + ipv4::kId);
	const u16 off = (*id_state & TGC_ID_FIXED(layer)) ? 0 : count;
	if (ip_id_rule(off, count, layer, id_state) != TGC_R_NONE)
		return false;
	*id = static_cast<u16>(id0 + off);
	// RFC 1624 eqn. 3
	u32 s = (~load16(held + ipv4::kCheck) & 0xffffu) + (~id0 & 0xffffu) + *id;
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	*sum = static_cast<u16>(s);
	return true;
}

// The next segment of @h (predict_start() done, its state after a hold or merge): its sequence
// (h.next.seq), IDs and checksums (h.pred_id, h.pred_sum), h.next_v (merge_verdict()'s
// record for it: the flags have no end flag, the payload is the MSS, TCP: only id_state and fixedid
// vary) and h.pred_step. False when there is none to predict.
template <class Held> static inline bool predict_next(Held &h)
{
	const tgc_pkt &first = h.first;
	const u8 *inner = h.hdr + first.inner_off;
	u8 id_state = h.id_state, step = 0;
	if (ip_version(h.hdr) == 4) {
		if (!predict_id(h.hdr, h.count, 0, &id_state, h.pred_id, h.pred_sum))
			return false;
		step = (id_state & TGC_ID_FIXED(0)) ? 0 : 1;
	}
	if (first.nlayers == 2 && ip_version(inner) == 4) {
		if (!predict_id(inner, h.count, 1, &id_state, h.pred_id + 1, h.pred_sum + 1))
			return false;
		step |= (id_state & TGC_ID_FIXED(1)) ? 0 : 2;
	}
	h.next.seq = first.seq + h.payload_len;
	h.pred_step = step; // the layers whose ID steps by one a segment from here on (predict_step())
	tgc_verdict v;
	v.action = TGC_MERGE;
	v.flush_held = 0;
	v.id_state = id_state;
	v.reason = TGC_R_NONE;
	v.held_flags = 0;
	v.fixedid = ip_version(inner) == 4 && (id_state & TGC_ID_FIXED(first.nlayers - 1u)) &&
		    (load16(inner + ipv4::kFragOff) & ipv4::kDF);
	v.pad[0] = v.pad[1] = 0;
	h.next_v = v;
	return true;
}

// A predicted ID one up, and its checksum with it: the host-order copies @id and @sum (the
// checksum's complement) of one layer, by RFC 1624 eqn. 3 with ~m + m' = 0x10000, which folds to 1
// (0 from 0xffff to 0: equal modulo 0xffff).
__attribute__((always_inline)) static inline void step_id(u16 *id, u16 *sum)
{
	const u16 next = static_cast<u16>(*id + 1);
	u32 s = *sum + (next != 0 ? 1u : 0u);
	s = (s & 0xffff) + (s >> 16);
	*id = next;
	*sum = static_cast<u16>(s);
}

// predict_next() after a merge of the predicted segment itself (id_state, so h.next_v, unchanged): the same
// fields, from the prediction that merged (the sequence gso_size on, each stepping ID one up). Equal to what
// predict_next() gives but maybe for the checksum's representation of 0 (then a miss, never a wrong merge).
template <class Held> __attribute__((always_inline)) static inline void predict_step(Held &h)
{
	h.next.seq += h.gso_size;
	if (h.pred_step & 1)
		step_id(&h.pred_id[0], &h.pred_sum[0]);
	if (h.pred_step & 2)
		step_id(&h.pred_id[1], &h.pred_sum[1]);
}

// Held packet @h after a merge of its predicted segment: its lengths, count and id_state as the packet's now are,
// and the prediction stepped to the segment after (the engine's and tgc_receive()'s predicted stages).
template <class Held> __attribute__((always_inline)) static inline void predicted_merged(Held &h)
{
	h.total_len += h.gso_size;
	h.payload_len += h.gso_size;
	h.count++;
	h.id_state = h.next_v.id_state;
	predict_step(h);
}

// Nonzero when the @n bytes at @a and @b differ where mask @m has 0xff (never where it has 0), @n
// a multiple of 4 from 40 (an IPv4 and a TCP header, the least a TCP segment has) to kPredMax: the
// predicted stage's one compare. Five 8-byte compares, then, for longer headers, the rest unrolled
// (a jump into a run of 8-byte compares).
__attribute__((always_inline)) static inline u64 pred_diff(const u8 *a, const u8 *b, const u8 *m, u32 n)
{
	u64 d = ((raw64(a) ^ raw64(b)) & raw64(m)) | ((raw64(a + 8) ^ raw64(b + 8)) & raw64(m + 8)) |
		((raw64(a + 16) ^ raw64(b + 16)) & raw64(m + 16)) |
		((raw64(a + 24) ^ raw64(b + 24)) & raw64(m + 24)) |
		((raw64(a + 32) ^ raw64(b + 32)) & raw64(m + 32));
	if (n == kPredMin)
		return d;
	if (n & 4)
		d |= (raw32(a + n - 4) ^ raw32(b + n - 4)) & raw32(m + n - 4);
#define TGC_W(i)                                                                 \
	case (i) + 1:                                                            \
		d |= (raw64(a + (i) * sizeof(u64)) ^ raw64(b + (i) * sizeof(u64))) & \
		     raw64(m + (i) * sizeof(u64));                                   \
		[[fallthrough]]
	switch (n / 8) {
		TGC_W(15); TGC_W(14); TGC_W(13); TGC_W(12); TGC_W(11); TGC_W(10); TGC_W(9); TGC_W(8);
		TGC_W(7); TGC_W(6); TGC_W(5);
	default:
		break;
	}
#undef TGC_W
	return d;
}
static_assert(kPredMax == 16 * 8 && kPredMin == 5 * 8, "pred_diff: 5 words, then up to 11");
static_assert(kPredMax <= TGC_MAX_HDR_BYTES, "the compare reads up to kPredMax bytes of h.hdr");

// The TGC_IN_* bits of a segment the predicted stage takes: none of kFastRefuse, and no TGC_IN_CSUM_CHECK (the
// fast stage checks the sum); the caller's own bits (the engine's TLS state) it compares itself.
constexpr u32 kPredRefuse = kFastRefuse | TGC_IN_CSUM_CHECK;

// Whether @seg may be a predicted segment at all: a wire segment with headers (their length
// pred_shape_of() checks per candidate); its TGC_IN_* bits the caller tests (none of kPredRefuse).
__attribute__((always_inline)) static inline bool pred_shape(const tgc_seg *seg)
{
	return !seg->gso_size && seg->hdr;
}

// Held packet @h's h.pred_len and h.pred_room, from its first segment's payload_off and its gso_size: what
// pred_shape_of() and pred_fits() compare a segment and the packet with.
template <class Held> __attribute__((always_inline)) static inline void pred_limits(Held &h)
{
	h.pred_len = static_cast<u32>(h.first.payload_off) + h.gso_size;
	h.pred_room = TGC_MAX_GRO_BYTES - h.gso_size;
}

// Whether @seg (pred_shape()) has held packet @h's shape for its predicted next segment: pkt_len
// h.pred_len (payload_off + gso_size) and its headers in the view (hdr_len from payload_off to
// pkt_len, as fast_shape() and parse() require: one unsigned compare). What makes reading its
// headers at h's offsets safe (pred_ports(), predicted(), predict_start()).
template <class Held>
__attribute__((always_inline)) static inline bool pred_shape_of(const tgc_seg *seg, const Held &h)
{
	return seg->pkt_len == h.pred_len && h.pred_len - seg->hdr_len <= h.gso_size;
}

// Whether @seg (pred_shape_of() @h, or at least tcp_off + 4 bytes in its view) has held packet @h's
// ports at h's layout: another flow differs there, so this is the test that tells flows apart.
template <class Held>
__attribute__((always_inline)) static inline bool pred_ports(const tgc_seg *seg, const Held &h)
{
	const u32 toff = h.first.tcp_off;
	return raw32(seg->hdr + toff) == raw32(h.hdr + toff);
}

// The predicted ID and header checksum of the IPv4 header at @ip against segment header @hdr's
// (@id, @sum: predict_next()'s host-order copies): nonzero when they differ.
__attribute__((always_inline)) static inline u32 pred_ipv4_diff(const u8 *hdr, u32 ip, u16 id, u16 sum)
{
	return (load16(hdr + ip + ipv4::kId) ^ id) | (load16(hdr + ip + ipv4::kCheck) ^ static_cast<u16>(~sum));
}

// What tgc_receive()'s find fills in for held packet @h (members as fast_merge's), from its own copy of the
// first segment's headers, into @held: for a decide() after the predicted or fast stage (a failed append). No
// TGC_HELD_* flag: the caller adds its own.
template <class Held> __attribute__((always_inline)) static inline void held_view_of(const Held &h, tgc_held *held)
{
	held->hdr = h.hdr;
	held->hdr_len = h.first.payload_off;
	held->total_len = h.total_len;
	held->payload_len = h.payload_len;
	held->count = h.count;
	held->gso_size = h.gso_size;
	held->id_state = h.id_state;
	held->flags = held->pad[0] = held->pad[1] = 0;
}

// Whether @seg (pred_shape_of() and pred_ports() of @h, h's encap, and its TGC_IN_* bits the ones h
// takes: the caller's tests) is the predicted next segment of @h, but for the 64 KiB
// (pred_fits()): every header byte h.hdr's where h.pmask says so, and the sequence, IDs and
// header checksums predict_next() gives.
template <class Held> __attribute__((always_inline)) static inline bool predicted(const tgc_seg *seg, const Held &h)
{
	const u8 *hdr = seg->hdr;
	u64 d = pred_diff(hdr, h.hdr, h.pmask, h.first.payload_off);
	d |= load32(hdr + h.first.tcp_off + tcp::kSeq) ^ h.next.seq;
	if (h.pred_v4 & 1)
		d |= pred_ipv4_diff(hdr, 0, h.pred_id[0], h.pred_sum[0]);
	if (h.pred_v4 & 2)
		d |= pred_ipv4_diff(hdr, h.first.inner_off, h.pred_id[1], h.pred_sum[1]);
	return !d;
}

// Whether h's predicted segment keeps the aggregate below 64 KiB (merge_flush's SIZE): total_len +
// gso_size below TGC_MAX_GRO_BYTES, with h.pred_room that limit less gso_size (the caller's, kept
// with pred_len).
template <class Held> __attribute__((always_inline)) static inline bool pred_fits(const Held &h)
{
	return h.total_len < h.pred_room;
}

} // namespace tungro
#endif
