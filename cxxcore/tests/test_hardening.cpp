// Cases "Kernel call paths and input shapes" (K02-K05) and the core's share of the hardening findings: segments
// that arrive already GSO, inner lengths that disagree with the outer payload, the IPv4 reserved flag, inner IPv6
// extension headers handed to the kernel, the growing header pulls, and gro_complete on short views.
#include <gtest/gtest.h>

#include <cstring>

#include "test_util.hpp"

using namespace frames;

namespace {

// Parses @f from an exact-size copy (ASan catches any read past it).
unsigned parse(const std::vector<uint8_t> &f, unsigned encap, tgc_pkt *p)
{
	std::vector<uint8_t> exact(f);
	return tgc_parse(exact.data(), std::min<uint32_t>(exact.size(), TGC_MAX_HDR_BYTES), exact.size(), encap, p);
}

// A held packet made of the first segment of @first_frame, as the kernel keeps it: gso_size and count given.
struct HeldOf {
	std::vector<uint8_t> bytes;
	tgc_held h{};
	HeldOf(const std::vector<uint8_t> &first_frame, const tgc_pkt &first, uint16_t gso_size, uint16_t count,
	       uint32_t payload_len)
		: bytes(first_frame)
	{
		h.hdr = bytes.data();
		h.hdr_len = first.payload_off;
		h.total_len = first.payload_off + payload_len;
		h.payload_len = payload_len;
		h.count = count;
		h.gso_size = gso_size;
	}
};

} // namespace

// K02: a segment that arrives already GSO (veth with GRO on hands 3 x 1400 as one skb) joins a held packet of the
// same gso_size, ends it when it is not a whole number of MSS segments, and never joins one of another gso_size.
TEST(Hardening, K02_GsoSegmentJoinsOnlyTheSameGsoSize)
{
	Segment s = ipip();
	const Segment first = s;
	s.tcp.seq += 1400;
	s.inner4.id = 2;
	s.payload_len = 3 * 1400;
	const auto held_frame = build(first), gso_frame = build(s);
	tgc_pkt fp{}, gp{};
	ASSERT_EQ(parse(held_frame, TGC_ENCAP_IPIP, &fp), TGC_R_NONE);
	ASSERT_EQ(parse(gso_frame, TGC_ENCAP_IPIP, &gp), TGC_R_NONE);
	EXPECT_EQ(gp.gso_size, 0u) << "tgc_parse describes one wire segment until the caller says otherwise";
	EXPECT_EQ(gp.gso_segs, 1u);
	gp.gso_size = 1400;
	gp.gso_segs = 3;

	HeldOf held(held_frame, fp, 1400, 1, 1400);
	tgc_verdict v{};
	tgc_decide(&gp, gso_frame.data(), &held.h, 0, &v);
	EXPECT_EQ(v.action, TGC_MERGE);
	EXPECT_EQ(v.flush_held, 0) << "3 x 1400 is whole MSS segments: the packet stays open";

	// 6.12 flushes on a different gso_size even when the bytes would fit (4 x 1050 = 4200 bytes).
	gp.gso_size = 1050;
	gp.gso_segs = 4;
	tgc_decide(&gp, gso_frame.data(), &held.h, 0, &v);
	EXPECT_EQ(v.action, TGC_HOLD);
	EXPECT_EQ(v.reason, TGC_R_MSS);
	EXPECT_EQ(v.flush_held, 1);

	// Not count x gso_size (the last segment short): merged, and it ends the GRO packet.
	gp.gso_size = 1400;
	gp.gso_segs = 4;
	tgc_decide(&gp, gso_frame.data(), &held.h, 0, &v);
	EXPECT_EQ(v.action, TGC_MERGE);
	EXPECT_EQ(v.flush_held, 1);
	EXPECT_EQ(v.reason, TGC_R_SHORT);

	// The same short GSO segment with no held packet is passed at once (6.12: flush before it is held).
	tgc_decide(&gp, gso_frame.data(), nullptr, 0, &v);
	EXPECT_EQ(v.action, TGC_PASS);
	gp.gso_segs = 3;
	tgc_decide(&gp, gso_frame.data(), nullptr, 0, &v);
	EXPECT_EQ(v.action, TGC_HOLD);

	// The IP ID check counts wire segments: after a held GSO packet of 3, the next segment's inner ID is +3.
	Segment next = ipip();
	next.tcp.seq = s.tcp.seq + 3 * 1400;
	next.inner4.id = 5;
	const auto next_frame = build(next);
	tgc_pkt np{};
	ASSERT_EQ(parse(next_frame, TGC_ENCAP_IPIP, &np), TGC_R_NONE);
	HeldOf held3(gso_frame, gp, 1400, 3, 3 * 1400);
	held3.h.hdr_len = gp.payload_off;
	tgc_decide(&np, next_frame.data(), &held3.h, 0, &v);
	EXPECT_EQ(v.action, TGC_MERGE) << "reason " << tgc_reason_name(v.reason);
}

// K03: the inner length shorter than what the outer header carries (legal inner padding) is delivered after its
// flow's held packet, never before it and never merged; the same for an inner IPv6 payload length.
TEST(Hardening, K03_InnerLengthShorterThanOuterPayloadKeepsOrder)
{
	for (Segment base : {ipip(), sit()}) {
		auto t = train(base, 5);
		t[2].inner_padding = 6;
		tgc_pkt p{};
		ASSERT_EQ(parse(build(t[2]), encap_of(base), &p), TGC_R_NONE);
		EXPECT_EQ(p.l3_flush, TGC_R_IP_LEN);
		EXPECT_EQ(p.payload_len, 1400u) << "the inner length bounds the payload, never the padding";
		MiniGro g(encap_of(base));
		g.receive_all(build_all(t));
		g.flush();
		ASSERT_EQ(g.seg_counts(), Counts({2, 1, 2})) << "held 2 first, then the padded segment, then the rest";
		EXPECT_EQ(g.delivered()[1].pass_reason, TGC_R_IP_LEN);
		EXPECT_EQ(g.delivered()[1].seqs, std::vector<uint32_t>{t[2].tcp.seq});
		EXPECT_EQ(g.reason_count(TGC_R_IP_LEN), 1u);
	}
}

// An inner length longer than the outer payload never lets the core read past the outer packet.
TEST(Hardening, K03_InnerLengthLongerThanOuterPayloadStaysInside)
{
	Segment s = ipip();
	s.outer_len_delta = 0;
	auto f = build(s);
	// inner total length + 40, inner header checksum fixed up so only the length disagrees
	f[20 + 2] = static_cast<uint8_t>((1460 + 40) >> 8);
	f[20 + 3] = static_cast<uint8_t>((1460 + 40) & 0xff);
	f[20 + 10] = f[20 + 11] = 0;
	uint32_t sum = 0;
	for (int i = 0; i < 20; i += 2)
		sum += (f[20 + i] << 8) | f[20 + i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	f[20 + 10] = static_cast<uint8_t>(~sum >> 8);
	f[20 + 11] = static_cast<uint8_t>(~sum);
	tgc_pkt p{};
	ASSERT_EQ(parse(f, TGC_ENCAP_IPIP, &p), TGC_R_NONE);
	EXPECT_EQ(p.l3_flush, TGC_R_IP_LEN);
	EXPECT_EQ(p.payload_off + p.payload_len, f.size());
}

// K04: the IPv4 reserved flag bit, inner or outer: not merged, and the held packet of the flow goes up first.
TEST(Hardening, K04_ReservedFlagBitFlushesAfterTheHeldPacket)
{
	for (int outer = 0; outer < 2; outer++) {
		auto t = train(ipip(), 5);
		(outer ? t[3].outer : t[3].inner4).reserved = true;
		MiniGro g(TGC_ENCAP_IPIP);
		g.receive_all(build_all(t));
		g.flush();
		ASSERT_EQ(g.seg_counts(), Counts({3, 1, 1})) << (outer ? "outer" : "inner");
		EXPECT_EQ(g.delivered()[1].pass_reason, TGC_R_IP_FLAGS);
		EXPECT_EQ(g.delivered()[1].seqs, std::vector<uint32_t>{t[3].tcp.seq});
	}
}

// Finding 8: SIT whose inner IPv6 carries an extension header tungro does not walk (ESP, AH, mobility) is named
// as such (the glue hands it to the kernel's callback); a fragment header stays a fragment. Hop-by-hop,
// destination options and routing headers are walked and merged (test_family.cpp, X05/X06).
TEST(Hardening, InnerIpv6ExtensionHeadersAreForTheKernel)
{
	for (uint8_t nh : {50, 51, 135}) {
		auto f = build(sit());
		f[20 + 6] = nh; // the inner next header: what follows is parsed as that extension header
		tgc_pkt p{};
		EXPECT_EQ(parse(f, TGC_ENCAP_SIT, &p), TGC_R_IPV6_EXT) << "next header " << unsigned(nh);
	}
	Segment s = sit();
	s.inner_proto_override = 44;
	tgc_pkt p{};
	EXPECT_EQ(parse(build(s), TGC_ENCAP_SIT, &p), TGC_R_FRAGMENT);
}

// Finding 7: a held packet whose TLS-offload decrypted state differs ends, and the segment is not merged.
TEST(Hardening, DecryptedStateDifferenceEndsTheHeldPacket)
{
	auto t = train(ipip(), 2);
	const auto f0 = build(t[0]), f1 = build(t[1]);
	tgc_pkt p0{}, p1{};
	ASSERT_EQ(parse(f0, TGC_ENCAP_IPIP, &p0), TGC_R_NONE);
	ASSERT_EQ(parse(f1, TGC_ENCAP_IPIP, &p1), TGC_R_NONE);
	HeldOf held(f0, p0, 1400, 1, 1400);
	tgc_verdict v{};
	tgc_decide(&p1, f1.data(), &held.h, 0, &v);
	EXPECT_EQ(v.action, TGC_MERGE);
	tgc_decide(&p1, f1.data(), &held.h, TGC_IN_DECRYPTED, &v);
	EXPECT_EQ(v.action, TGC_HOLD);
	EXPECT_EQ(v.flush_held, 1);
	EXPECT_EQ(v.reason, TGC_R_DECRYPTED);
}

// K05: tgc_hdr_need asks for the headers in growing steps and never for a payload byte, so the glue pulls
// exactly up to the payload (a driver whose linear part ends at the TCP header copies nothing more).
TEST(Hardening, K05_HeaderPullsStopAtThePayload)
{
	struct Case {
		Segment s;
		unsigned encap;
		uint32_t payload_off;
	};
	Segment opts = ipip();
	opts.tcp.options = {1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2}; // NOP NOP timestamp: 12 bytes
	Segment udp = ipip();
	udp.inner_proto_override = 17;
	const Case cases[] = {
		{ipip(), TGC_ENCAP_IPIP, 60}, {sit(), TGC_ENCAP_SIT, 80}, {opts, TGC_ENCAP_IPIP, 72},
		// UDP: the IP headers and the 8-byte UDP header (tgc_parse_as() reads it when UDP GRO is allowed)
		{plain4(), TGC_ENCAP_NONE, 40}, {udp, TGC_ENCAP_IPIP, 48},
	};
	for (const Case &c : cases) {
		const auto f = build(c.s);
		uint32_t have = 0, steps = 0;
		for (;;) {
			// Only the bytes pulled so far exist: an exact copy, so reading further is an ASan error.
			std::vector<uint8_t> view(f.begin(), f.begin() + have);
			const uint32_t need = tgc_hdr_need(view.data(), have, f.size(), c.encap);
			if (need <= have)
				break;
			have = need;
			ASSERT_LE(++steps, 5u);
		}
		EXPECT_EQ(have, c.payload_off) << "encap " << c.encap;
		std::vector<uint8_t> view(f.begin(), f.begin() + have);
		tgc_pkt p{};
		const unsigned r = tgc_parse(view.data(), have, f.size(), c.encap, &p);
		if (c.s.inner_proto_override == 17) {
			EXPECT_EQ(r, TGC_R_NOT_TCP);
		} else {
			ASSERT_EQ(r, TGC_R_NONE);
			EXPECT_EQ(p.payload_off, have);
		}
	}
	// A frame that ends inside the headers: never more than the frame.
	const auto f = build(ipip());
	std::vector<uint8_t> part(f.begin(), f.begin() + 44);
	EXPECT_EQ(tgc_hdr_need(part.data(), 40, 44, TGC_ENCAP_IPIP), 44u);
}

// Finding 9: tgc_complete checks the view's length before reading any field (ASan: exact-size views).
TEST(Hardening, CompleteReadsNothingPastAShortView)
{
	const auto f = build(ipip());
	for (uint32_t n = 0; n < 40; n++) {
		std::vector<uint8_t> nh(f.begin() + 20, f.begin() + 20 + n);
		tgc_completion c{};
		EXPECT_EQ(tgc_complete(nh.empty() ? nullptr : nh.data(), n, static_cast<uint32_t>(f.size() - 20), 0, 1,
				       &c),
			  -1)
			<< n << " bytes";
	}
	std::vector<uint8_t> nh(f.begin() + 20, f.end());
	tgc_completion c{};
	EXPECT_EQ(tgc_complete(nh.data(), 40, static_cast<uint32_t>(nh.size()), 0, 1, &c), 0);
	EXPECT_EQ(tgc_complete(nh.data(), 40, 39, 0, 1, &c), -1) << "a view longer than the packet is refused";
}

// Histogram: a GRO packet of more than 64 wire segments (GSO arrivals) has a bucket of its own.
TEST(Hardening, HistogramHasABucketPast64)
{
	EXPECT_EQ(tgc_hist_bucket(64), 6u);
	EXPECT_EQ(tgc_hist_bucket(65), 7u);
	EXPECT_EQ(tgc_hist_bucket(1000), 7u);
}
