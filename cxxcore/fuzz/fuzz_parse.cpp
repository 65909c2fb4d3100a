// fuzz_parse: libFuzzer harness of the core's building blocks on one segment at a time: header parsing
// (tgc_parse, tgc_hdr_need, tgc_flow_of), flow identity (tgc_same_flow, tgc_flow_hash), the verdict (tgc_decide
// against the previous segment as the held packet), checksums (tgc_tcp_csum_ok) and the completion fixups
// (tgc_complete, tgc_finish, tgc_fix_ipv4), and tgc_parse_as's IPv4-options mode against tgc_parse. Input:
// records as fuzz_input.hpp; the repeat byte is read here as the held packet's segment count and id_state for
// tgc_decide, and its bit 0x40 as TGC_IN_UDP_GRO (UDP parses, decides and completes as UDP; without it UDP is
// TGC_R_NOT_TCP, as tgc_parse says). Every view is an exact heap allocation (ASan).
// Invariants (abort on violation):
//   - tgc_parse's layout lies inside the view and the segment (checks.hpp), and tgc_flow_of agrees with it;
//   - pulling as tgc_hdr_need says converges within TGC_MAX_HDR_BYTES and pkt_len, never asks past a view of
//     min(pkt_len, TGC_MAX_HDR_BYTES) bytes, and tgc_parse through the pulled bytes gives the whole view's answer
//     (record and refusal) unless that is MALFORMED; through any step's bytes it says MALFORMED or the same;
//   - tgc_same_flow agrees with the flow identity computed here; a segment is its own flow; equal flows hash equal;
//   - tgc_decide's verdict is well formed: one action, MERGE only for the held packet's next sequence number with
//     at most gso_size bytes, never for padding; the same segment as a GSO arrival joins only a held packet of its
//     gso_size, and one that is not whole gso_size segments is never held and ends the packet it joins;
//   - tgc_tcp_csum_ok agrees with the RFC 1071 sum computed here;
//   - tgc_complete/tgc_finish succeed on every accepted segment and leave valid IPv4 header checksums and lengths,
//     and a TCP pseudo-header sum that a device's checksum completes to a correct one.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "checks.hpp"
#include "fuzz_input.hpp"
#include "tungro_core.h"

namespace {

using namespace fuzzchk;

struct Prev {
	std::vector<uint8_t> hdr; // its headers, payload_off bytes
	tgc_pkt pkt{};
	FlowKey key;
	uint32_t hash = 0;
	bool valid = false;
};

constexpr uint8_t kRepeatUdp = 0x40; // the repeat byte's bit for TGC_IN_UDP_GRO

// tgc_parse_as through the first @len bytes of @view (@hl bytes, which gave @full_r and @full) says MALFORMED or
// gives the same answer: parse() is monotone in the view's length, which lets the offload path's full stage grow a
// view only when the parse says MALFORMED (receive.hpp).
void check_prefix(const uint8_t *view, uint32_t len, uint32_t hl, uint32_t n, unsigned encap, unsigned in,
		  unsigned full_r, const tgc_pkt &full)
{
	tgc_pkt p;
	const unsigned r = tgc_parse_as(view, len, n, encap, 0, in, &p);
	FUZZ_CHECK(r == TGC_R_MALFORMED || (r == full_r && (r != TGC_R_NONE || std::memcmp(&p, &full, sizeof(p)) == 0)),
		   "parse through %u bytes: %s, through %u: %s", len, tgc_reason_name(r), hl, tgc_reason_name(full_r));
}

void check_need(const uint8_t *view, uint32_t hl, uint32_t n, unsigned encap, unsigned in, unsigned full_r,
		const tgc_pkt &full)
{
	// A view of min(pkt_len, TGC_MAX_HDR_BYTES) bytes or more is whole: no answer asks past it (the glue's
	// tungro_header_view() stops there without asking).
	const uint32_t cap = std::min<uint32_t>(n, TGC_MAX_HDR_BYTES);
	FUZZ_CHECK(tgc_hdr_need(view, hl, n, encap) <= std::max(hl, cap), "hdr_need past a whole view of %u bytes", hl);
	uint32_t have = 0, need;
	for (unsigned step = 0;; step++) {
		need = tgc_hdr_need(view, have, n, encap);
		FUZZ_CHECK(need <= TGC_MAX_HDR_BYTES && need <= n, "hdr_need %u of a %u-byte segment", need, n);
		FUZZ_CHECK(need <= std::max(have, cap), "hdr_need %u past a whole view of %u bytes", need, have);
		// Steps: per IP layer its first byte and its header, two per extension header (its length, then the rest
		// of it), the L4 header's fixed part and its options: each step grows the view.
		FUZZ_CHECK(step < 2 * 2 + 2 * TGC_MAX_EXT_HDRS + 2 * 2, "hdr_need does not converge (%u bytes)", need);
		if (have)
			check_prefix(view, have, hl, n, encap, in, full_r, full);
		if (need <= have || need > hl)
			break;
		have = need;
	}
	// Where the pulls settle inside the view, the parse there is the whole view's, MALFORMED or not: the glue's
	// view op gives that prefix of a linear part the full stage first parsed whole.
	if (need > have || have >= hl || full_r == TGC_R_MALFORMED)
		return;
	FUZZ_CHECK(full_r != TGC_R_NONE || have >= full.payload_off, "hdr_need stops at %u, the headers end at %u", have,
		   full.payload_off);
	tgc_pkt p;
	const unsigned r = tgc_parse_as(view, have, n, encap, 0, in, &p);
	FUZZ_CHECK(r == full_r && (r != TGC_R_NONE || std::memcmp(&p, &full, sizeof(p)) == 0),
		   "parse through %u pulled bytes: %s, through %u: %s", have, tgc_reason_name(r), hl,
		   tgc_reason_name(full_r));
}

// tgc_decide with the previous segment of the same flow as the held packet (count and id_state from the input).
// The held packet tgc_decide sees: @prev's headers and @count segments of its payload length (the MSS).
tgc_held held_of(const Prev &prev, unsigned count, uint8_t id_state)
{
	tgc_held held{};
	held.hdr = prev.hdr.data();
	held.hdr_len = static_cast<uint32_t>(prev.hdr.size());
	held.payload_len = prev.pkt.payload_len * count;
	held.total_len = held.hdr_len + held.payload_len;
	held.count = static_cast<uint16_t>(count);
	held.gso_size = static_cast<uint16_t>(prev.pkt.payload_len);
	held.id_state = id_state;
	return held;
}

void check_decide(const tgc_pkt &pkt, const uint8_t *view, const Prev *prev, uint8_t flags, uint8_t repeat)
{
	const tgc_held held = prev ? held_of(*prev, 1u + (repeat & 3), static_cast<uint8_t>(repeat & 0x33)) : tgc_held{};
	const unsigned in = (flags & fuzzin::kUpperFlush ? TGC_IN_UPPER_FLUSH : 0) |
			    (flags & fuzzin::kCsumCheck ? TGC_IN_CSUM_BAD : 0) |
			    (flags & fuzzin::kNoMerge ? TGC_IN_NOMERGE : 0) | (repeat & 0x80 ? TGC_IN_DECRYPTED : 0);
	tgc_verdict v;
	std::memset(&v, 0xa5, sizeof(v));
	tgc_decide(&pkt, view, prev ? &held : nullptr, in, &v);
	FUZZ_CHECK(v.action >= TGC_MERGE && v.action <= TGC_PASS && v.reason < TGC_R_COUNT, "action %u reason %u",
		   v.action, v.reason);
	FUZZ_CHECK(prev || (v.action != TGC_MERGE && !v.flush_held), "action %u flush %u without a held packet",
		   v.action, v.flush_held);
	FUZZ_CHECK(!prev || v.action == TGC_MERGE || v.flush_held, "held packet of the flow left behind");
	if (v.action != TGC_MERGE)
		return;
	FUZZ_CHECK(!in, "merged with TGC_IN bits %#x", in);
	// UDP has no sequence numbers; a merged datagram never has a zero checksum or a length field not its bytes.
	const bool udp = tgc_pkt_is_udp(&pkt);
	FUZZ_CHECK(!udp || (ld16(view + pkt.tcp_off + 6) != 0 && ld16(view + pkt.tcp_off + 4) == pkt.payload_len + 8u),
		   "merged a UDP datagram of checksum 0 or a wrong length field");
	FUZZ_CHECK(!pkt.padded && pkt.payload_len > 0 && pkt.payload_len <= held.gso_size &&
			   (udp || pkt.seq == prev->pkt.seq + held.payload_len) &&
			   held.total_len + pkt.payload_len < TGC_MAX_GRO_BYTES,
		   "merged seq %u len %u into seq %u+%u gso_size %u", pkt.seq, pkt.payload_len, prev->pkt.seq,
		   held.payload_len, held.gso_size);
}

// The same TCP segment as if it had arrived GSO (skb_is_gso: the host or a lower GRO merged it; the caller sets
// gso_size and gso_segs): of the held packet's MSS (repeat bit 2), or cut in two. 6.12's tcp_gro_receive: it
// joins only a held packet of its gso_size, and one that is not gso_segs whole segments ends its GRO packet,
// merged or not (out_check_final).
void check_decide_gso(const tgc_pkt &wire, const uint8_t *view, const Prev *prev, uint8_t repeat)
{
	if (tgc_pkt_is_udp(&wire) || wire.payload_len < 2)
		return;
	tgc_pkt pkt = wire;
	const uint32_t len = pkt.payload_len, mss = prev ? prev->pkt.payload_len : 0;
	pkt.gso_size = static_cast<uint16_t>(prev && (repeat & 4) && mss ? mss : (len + 1) / 2);
	pkt.gso_segs = static_cast<uint16_t>((len + pkt.gso_size - 1) / pkt.gso_size);
	const bool whole = len == uint32_t(pkt.gso_segs) * pkt.gso_size;
	const tgc_held held = prev ? held_of(*prev, 1, 0) : tgc_held{};
	tgc_verdict v;
	std::memset(&v, 0xa5, sizeof(v));
	tgc_decide(&pkt, view, prev ? &held : nullptr, 0, &v);
	FUZZ_CHECK(v.action >= TGC_MERGE && v.action <= TGC_PASS && (prev || v.action != TGC_MERGE),
		   "GSO arrival: action %u", v.action);
	FUZZ_CHECK(whole || v.action != TGC_HOLD, "GSO arrival of %u bytes, %u x %u, held", len, pkt.gso_segs,
		   pkt.gso_size);
	if (v.action == TGC_MERGE)
		FUZZ_CHECK(pkt.gso_size == held.gso_size && pkt.seq == prev->pkt.seq + held.payload_len &&
				   (whole || (v.flush_held && (v.reason == TGC_R_SHORT || v.reason == TGC_R_END))),
			   "GSO arrival %u x %u merged into gso_size %u (reason %s, flush %u)", pkt.gso_segs, pkt.gso_size,
			   held.gso_size, tgc_reason_name(v.reason), v.flush_held);
}

// The completion fixups on a writable copy of the segment (as the first of a GRO packet of count segments).
void check_complete(const uint8_t *p, const tgc_pkt &pkt, uint8_t repeat)
{
	const uint32_t len = pkt.payload_off + pkt.payload_len;
	Buf b(p, len, 0);
	tgc_done d{};
	d.first = pkt;
	d.total_len = len;
	d.payload_len = pkt.payload_len;
	d.count = static_cast<uint16_t>(2 + (repeat & 3));
	d.gso_size = static_cast<uint16_t>(pkt.payload_len);
	d.id_state = static_cast<uint8_t>(repeat & 0x33);
	tgc_completion c;
	const int rc = tgc_finish(b.p, len, &d, &c);
	if (pkt.nlayers == 2 && len > 0xffff)
		return;
	FUZZ_CHECK(rc == 0, "tgc_finish refused an accepted %u-byte segment", len);
	const bool udp = tgc_pkt_is_udp(&pkt);
	FUZZ_CHECK(c.tcp_off == pkt.tcp_off - pkt.inner_off && c.csum_offset == (udp ? 6 : 16) && c.udp == udp &&
			   c.tcpv6 == (pkt.inner_version == 6),
		   "completion tcp_off %u csum_offset %u tcpv6 %u udp %u", c.tcp_off, c.csum_offset, c.tcpv6, c.udp);
	if (udp)
		FUZZ_CHECK(ld16(b.p + pkt.tcp_off + 4) == len - pkt.tcp_off, "UDP length of the GRO packet");
	if (udp && ld16(b.p + pkt.tcp_off + 6) == 0)
		return; // no checksum sent: none written (udp4/6_gro_complete)
	FUZZ_CHECK(outer_len_ok(b.p, len), "outer IP header checksum/length");
	if (pkt.nlayers == 2 && pkt.inner_version == 4)
		FUZZ_CHECK(ipv4_hdr_ok(b.p + pkt.inner_off) && ld16(b.p + pkt.inner_off + 2) == len - pkt.inner_off,
			   "inner IPv4 header checksum/length");
	uint8_t *ck = b.p + pkt.tcp_off + c.csum_offset;
	st16(ck, static_cast<uint16_t>(~fold(sum16(b.p + pkt.tcp_off, len - pkt.tcp_off))));
	FUZZ_CHECK(tgc_tcp_csum_ok(&pkt, b.p, len), "device-completed TCP/UDP checksum is wrong");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Prev prev;
	unsigned hist_last = 0;
	for_each_record(data, size, [&](uint8_t flags, uint8_t repeat, const uint8_t *src, uint32_t n) {
		const Buf seg(src, n, flags & 1 ? 2 : 0);
		const uint32_t hl = std::min(n, (flags & fuzzin::kShortView) ? fuzzin::kShortViewLen : kHdrView);
		const Buf view(src, hl, flags & 1 ? 2 : 0);
		const unsigned encap = pick_encap(flags, src, n);
		tgc_pkt pkt;
		std::memset(&pkt, 0xa5, sizeof(pkt));
		const unsigned in = repeat & kRepeatUdp ? TGC_IN_UDP_GRO : 0;
		const unsigned r = tgc_parse_as(view.p, hl, n, encap, 0, in, &pkt);
		FUZZ_CHECK(r < TGC_R_COUNT && tgc_reason_name(r)[0] != '?', "parse reason %u", r);
		{
			// The input bit changes nothing but UDP: tgc_parse gives the same answer for everything else.
			tgc_pkt q;
			std::memset(&q, 0xa5, sizeof(q));
			const unsigned r0 = tgc_parse(view.p, hl, n, encap, &q);
			FUZZ_CHECK(r0 == r || (in && r0 == TGC_R_NOT_TCP), "parse %u with the UDP bit, %u without", r, r0);
			FUZZ_CHECK(r0 != TGC_R_NONE || std::memcmp(&q, &pkt, sizeof(q)) == 0, "UDP bit changed a TCP parse");
			FUZZ_CHECK(r != TGC_R_NONE || tgc_pkt_is_udp(&pkt) == (r0 != TGC_R_NONE), "UDP layout mismatch");
		}
		check_need(view.p, hl, n, encap, in, r, pkt);
		tgc_pkt where;
		if (tgc_flow_of(view.p, hl, encap, &where))
			check_located(where, encap, hl, r ? nullptr : &pkt);
		// The engine's IPv4-options mode: whatever the plain parse accepts, with the same layout, and the same
		// refusal for anything but options; what it accepts besides lies inside the view and completes.
		tgc_pkt opt;
		std::memset(&opt, 0xa5, sizeof(opt));
		const unsigned ro = tgc_parse_as(view.p, hl, n, encap, TGC_ENGINE_IPV4_OPTIONS, in, &opt);
		FUZZ_CHECK(r == TGC_R_IP_OPTIONS || ro == r, "options mode said %s, plain parse %s", tgc_reason_name(ro),
			   tgc_reason_name(r));
		FUZZ_CHECK(r != TGC_R_NONE || std::memcmp(&opt, &pkt, sizeof(opt)) == 0, "options mode, other layout");
		if (r != TGC_R_NONE && ro == TGC_R_NONE) {
			check_parsed(opt, encap, hl, n);
			check_complete(seg.p, opt, repeat);
		}

		// Names and histogram buckets of any value: in range, monotonic.
		FUZZ_CHECK(tgc_reason_name(repeat) != nullptr, "no name for %u", repeat);
		const unsigned hb = tgc_hist_bucket(n);
		FUZZ_CHECK(hb < TGC_HIST_BUCKETS && (n < hist_last || hb >= tgc_hist_bucket(hist_last)),
			   "histogram bucket %u of %u", hb, n);
		hist_last = n;

		// Fixups on whatever the bytes are: never a read or write past them.
		// It covers the IHL's bytes (options included), which must be there.
		if (n >= 20 && n >= (src[0] & 15u) * 4u) {
			Buf w(src, std::max(20u, (src[0] & 15u) * 4u), 0);
			tgc_fix_ipv4(w.p, static_cast<uint16_t>(n));
			FUZZ_CHECK(ipv4_hdr_ok(w.p), "tgc_fix_ipv4 left a bad header checksum");
		}
		{
			Buf w(view.p, hl, 0);
			tgc_completion c;
			(void)tgc_complete(w.p, hl, n, repeat, repeat & 1, &c);
		}
		if (r != TGC_R_NONE) {
			prev.valid = false;
			return true;
		}
		check_parsed(pkt, encap, hl, n);
		const FlowKey key = flow_key(pkt, view.p);
		const uint32_t hash = tgc_flow_hash(&pkt, view.p);
		FUZZ_CHECK(tgc_same_flow(&pkt, view.p, view.p, pkt.payload_off) == 1, "a segment is not its own flow");
		const bool same = prev.valid && prev.pkt.encap == pkt.encap && prev.pkt.tcp_off == pkt.tcp_off &&
				  prev.pkt.inner_off == pkt.inner_off;
		if (same) {
			const int sf = tgc_same_flow(&pkt, view.p, prev.hdr.data(), static_cast<uint32_t>(prev.hdr.size()));
			FUZZ_CHECK(sf == (key == prev.key), "same_flow %d disagrees with flow identity", sf);
			FUZZ_CHECK(!sf || hash == prev.hash, "one flow, two hashes");
		}
		check_decide(pkt, view.p, same && key == prev.key ? &prev : nullptr, flags, repeat);
		check_decide_gso(pkt, view.p, same && key == prev.key ? &prev : nullptr, repeat);
		const bool ok = tgc_tcp_csum_ok(&pkt, seg.p, n);
		const bool no_udp_csum = tgc_pkt_is_udp(&pkt) && ld16(view.p + pkt.tcp_off + 6) == 0;
		FUZZ_CHECK(ok == (no_udp_csum || tcp_sum(seg.p, pkt) == 0xffff), "tgc_tcp_csum_ok %d disagrees", ok);
		check_complete(seg.p, pkt, repeat);

		prev.hdr.assign(view.p, view.p + pkt.payload_off);
		prev.pkt = pkt;
		prev.key = key;
		prev.hash = hash;
		prev.valid = true;
		return true;
	});
	return 0;
}
