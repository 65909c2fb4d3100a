// Seed corpus of the GRO fuzz harness (see seeds.hpp). Payloads are kept small (300 bytes) so a whole train fits
// in the fuzzer's -max_len; the 64 KiB case uses the record repeat count instead of 47 literal segments.
#include "seeds.hpp"

#include <string>

#include "../tests/frames.hpp"
#include "fuzz_input.hpp"

namespace fuzzseeds {
namespace {

using frames::Segment;
using Seeds = std::vector<std::pair<std::string, std::vector<uint8_t>>>;

uint8_t encap_flag(const Segment &s)
{
	switch (s.encap) {
	case frames::Encap::IPIP: return fuzzin::kEncapIpip;
	case frames::Encap::SIT: return fuzzin::kEncapSit;
	case frames::Encap::IP4IP6: return fuzzin::kEncapIpip; // the forced paths pick the row by the outer version
	case frames::Encap::IP6IP6: return fuzzin::kEncapSit;
	default: return fuzzin::kEncapPlain;
	}
}

Segment small(Segment s)
{
	s.payload_len = 300;
	return s;
}

Segment plain6()
{
	Segment s = small(frames::sit());
	s.encap = frames::Encap::Plain6;
	return s;
}

// One record per segment; the last one ends the poll.
std::vector<uint8_t> records(const std::vector<Segment> &segs, uint8_t extra_flags = 0)
{
	std::vector<uint8_t> in;
	for (size_t i = 0; i < segs.size(); i++) {
		uint8_t f = encap_flag(segs[i]) | extra_flags;
		if (i + 1 == segs.size())
			f |= fuzzin::kEndPoll;
		fuzzin::put_record(in, f, 0, frames::build(segs[i]));
	}
	return in;
}

void add_train(Seeds &out, const std::string &name, const Segment &first, unsigned n, uint8_t extra_flags = 0)
{
	out.emplace_back(name, records(frames::train(first, n), extra_flags));
}

// Pads a fuzz_engine input to a size whose table layout index ((size >> 1) % @layouts) is @want: up to 3 ignored
// tail bytes, after as many empty records (4 bytes, plain: delivered unparsed) as that takes.
void for_layout(std::vector<uint8_t> &in, unsigned want, unsigned layouts)
{
	const size_t base = in.size();
	for (unsigned records = 0;; records++) {
		in.resize(base);
		for (unsigned r = 0; r < records; r++)
			fuzzin::put_record(in, fuzzin::kEncapPlain, 0, {});
		for (unsigned tail = 0; tail < 4; tail++, in.push_back(0))
			if ((in.size() >> 1) % layouts == want)
				return;
	}
}

// Option trains (cases O01-O06), each twice: padded to the engine's option layouts of fuzz_engine (3 and 4 of
// its 5: the kernel's list and tungro's table with TGC_ENGINE_IPV4_OPTIONS).
void add_option_train(Seeds &out, const std::string &name, const std::vector<Segment> &t)
{
	for (unsigned layout : {3u, 4u}) {
		std::vector<uint8_t> in = records(t);
		for_layout(in, layout, 5);
		out.emplace_back(name + "-layout" + std::to_string(layout), in);
	}
}

// U01-U05 shapes (the UDP cases): trains of UDP datagrams, plain and in every tunnel, with an L3 change, a shorter
// and a longer datagram, a zero checksum, a length field that lies. Each train twice: with repeat bytes 0 (for
// fuzz_engine, which always allows UDP GRO) and 0x40 (fuzz_parse reads that bit as TGC_IN_UDP_GRO; fuzz_engine
// as copies, bounded by its 64 segments).
void udp_seeds(Seeds &out)
{
	auto add = [&out](const std::string &name, const std::vector<Segment> &t) {
		for (const uint8_t repeat : {0, 0x40}) {
			std::vector<uint8_t> in;
			for (size_t i = 0; i < t.size(); i++)
				fuzzin::put_record(in, encap_flag(t[i]) | (i + 1 == t.size() ? fuzzin::kEndPoll : 0),
						   i == 0 ? 0 : repeat, frames::build(t[i]));
			out.emplace_back(name + (repeat ? "-udp-bit" : ""), in);
		}
	};
	const frames::Encap shapes[] = {frames::Encap::Plain4, frames::Encap::Plain6, frames::Encap::IPIP,
					frames::Encap::SIT, frames::Encap::IP4IP6, frames::Encap::IP6IP6};
	const char *names[] = {"plain4", "plain6", "ipip", "sit", "ip4ip6", "ip6ip6"};
	for (size_t k = 0; k < 6; k++) {
		const Segment u = frames::as_udp(frames::ipip_as(shapes[k]), 300);
		const std::string n = names[k];
		add("u01-udp-" + n + "-6", frames::train(u, 6));
		auto t = frames::train(u, 6);
		t[2].inner4.ttl = t[2].inner6.hop_limit = t[2].outer.ttl = 63;
		t[3].payload_len = 100;
		t[4].udp.zero_csum = true;
		t[5].udp.len_delta = 3;
		add("u03-u05-udp-" + n + "-flushes", t);
	}
}

// Trains at the edges of the engine's fast stage (src/fastpath.hpp), which fuzz_engine runs with and without it:
// IPv4 IDs and sequence numbers that wrap inside a packet, each layer's length one off, an IPv4 header checksum
// one off in either layer, every TCP flag once, an urgent pointer without URG, TCP timestamps, and interleaved
// flows (the engine's recent-flow index), each in IPIP, plain IPv4 and ip6ip6 with its encapsulation limit.
void fastpath_seeds(Seeds &out)
{
	Segment lim6 = small(frames::ip6ip6());
	lim6.outer6.ext.push_back(frames::encap_limit());
	const std::pair<const char *, Segment> kinds[] = {
		{"ipip", small(frames::ipip())}, {"plain4", small(frames::plain4())}, {"ip6ip6", lim6}};
	for (const auto &[kind, base] : kinds) {
		const std::string k = std::string("fast-") + kind;
		Segment w = base;
		w.inner4.id = 0xfffe;
		w.outer.id = 0xfffd;
		w.tcp.seq = 0xffffffffu - 700;
		out.emplace_back(k + "-id-seq-wrap", records(frames::train(w, 8, +1)));
		auto t = frames::train(base, 10);
		t[2].outer_len_delta = 1;
		t[4].inner_padding = 1;
		t[6].padding = 1;
		t[8].payload_len = 299;
		out.emplace_back(k + "-lengths", records(t));
		// Checksum one off: the bytes changed after the build.
		std::vector<uint8_t> in;
		const auto tr = frames::train(base, 8);
		for (size_t i = 0; i < tr.size(); i++) {
			std::vector<uint8_t> b = frames::build(tr[i]);
			const size_t at = i == 3 ? 10 : i == 5 ? 30 : 0; // outer, then inner IPv4 checksum
			if (at && b.size() > at + 1 && (b[0] >> 4) == 4)
				b[at + 1] = static_cast<uint8_t>(b[at + 1] + (i == 3 ? 1 : 0xff));
			fuzzin::put_record(in, encap_flag(tr[i]) | (i + 1 == tr.size() ? fuzzin::kEndPoll : 0), 0, b);
		}
		out.emplace_back(k + "-ipv4-csum-one-off", in);
		auto f = frames::train(base, 10);
		const uint8_t flags[] = {0x01, 0x02, 0x04, 0x08, 0x20, 0x40, 0x80, 0x18};
		for (unsigned i = 0; i < 8; i++)
			f[i + 1].tcp.flags = static_cast<uint8_t>(0x10 | flags[i]);
		out.emplace_back(k + "-every-flag", records(f));
		Segment ts = base;
		ts.tcp.options = {1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2};
		add_train(out, k + "-timestamps-csum-checked", ts, 8, fuzzin::kCsumCheck);
		std::vector<Segment> mixed;
		for (unsigned round = 0; round < 4; round++)
			for (uint16_t fl = 0; fl < 5; fl++) {
				Segment s = base;
				s.tcp.sport = static_cast<uint16_t>(42000 + fl);
				s.tcp.seq = 7000 + fl * 100000 + round * s.payload_len;
				s.inner4.id = static_cast<uint16_t>(1 + round);
				s.outer.id = static_cast<uint16_t>(base.encap == frames::Encap::Plain4 ? 1 + round : 0);
				mixed.push_back(s);
			}
		out.emplace_back(k + "-five-interleaved-flows", records(mixed));
	}
}

} // namespace

Seeds make_seeds()
{
	Seeds out;
	const Segment ipip = small(frames::ipip()), sit = small(frames::sit()), plain4 = small(frames::plain4());

	// Well-formed trains.
	add_train(out, "t01-ipip-8", ipip, 8);
	add_train(out, "t03-sit-8", sit, 8);
	add_train(out, "plain4-8", plain4, 8);
	add_train(out, "plain6-8", plain6(), 8);
	add_train(out, "ipip-8-csum-checked", ipip, 8, fuzzin::kCsumCheck);
	add_train(out, "ipip-8-auto-encap", ipip, 8, fuzzin::kEncapAuto);
	{
		Segment s = sit;
		s.outer.df = false;
		s.outer.id = 7;
		out.emplace_back("t02-sit-outer-id-step", records(frames::train(s, 8, +1)));
	}
	{
		Segment a = ipip, b = ipip;
		b.tcp.sport = 40001;
		b.tcp.seq = 900000;
		auto ta = frames::train(a, 6), tb = frames::train(b, 6);
		std::vector<Segment> mixed;
		for (int i = 0; i < 6; i++) {
			mixed.push_back(ta[i]);
			mixed.push_back(tb[i]);
		}
		out.emplace_back("t04-two-ipip-flows", records(mixed));
	}
	{
		// Ten flows: more than MAX_GRO_SKBS (8) held at once.
		std::vector<Segment> mixed;
		for (unsigned round = 0; round < 2; round++)
			for (uint16_t f = 0; f < 10; f++) {
				Segment s = ipip;
				s.tcp.sport = static_cast<uint16_t>(41000 + f);
				s.tcp.seq = 5000 + round * s.payload_len;
				s.inner4.id = static_cast<uint16_t>(1 + round);
				mixed.push_back(s);
			}
		out.emplace_back("ipip-10-flows-bucket-full", records(mixed));
	}
	{
		// 64 KiB limit: one full-size IPIP segment repeated (record repeat count), then the poll ends.
		std::vector<uint8_t> in;
		fuzzin::put_record(in, fuzzin::kEncapIpip | fuzzin::kEndPoll, 60, frames::build(frames::ipip()));
		out.emplace_back("ipip-size-limit-repeat", in);
		in.clear();
		fuzzin::put_record(in, fuzzin::kEncapSit | fuzzin::kEndPoll | fuzzin::kCsumCheck, 60,
				   frames::build(frames::sit()));
		out.emplace_back("sit-size-limit-repeat-csum", in);
	}
	{
		// Ends: PSH in the middle, a short segment, then a pure ACK.
		auto t = frames::train(ipip, 6);
		t[2].tcp.flags |= 0x08;
		t[4].payload_len = 100;
		t[5].payload_len = 0;
		out.emplace_back("ipip-psh-short-ack", records(t));
	}
	{
		// Layer-3 flushes: TTL, TOS, DF, ID jumps on both layers.
		auto t = frames::train(ipip, 8);
		t[2].inner4.ttl = 63;
		t[3].outer.tos = 2;
		t[5].inner4.df = false;
		t[6].inner4.id = 999;
		t[7].outer.id = 5;
		out.emplace_back("ipip-l3-flushes", records(t));
		auto s = frames::train(sit, 6);
		s[2].inner6.traffic_class = 1;
		s[3].inner6.hop_limit = 1;
		s[4].inner6.flow_label = 77;
		out.emplace_back("sit-l3-flushes", records(s));
	}
	{
		// The IPv6 family (X01-X08): outer IPv6 with and without the encapsulation-limit option, extension headers
		// in either layer (identical, then differing), an outer fragment header, outer IPv6 layer-3 flushes.
		const Segment ip4ip6 = small(frames::ip4ip6()), ip6ip6 = small(frames::ip6ip6());
		Segment lim4 = ip4ip6, lim6 = ip6ip6;
		lim4.outer6.ext.push_back(frames::encap_limit());
		lim6.outer6.ext.push_back(frames::encap_limit());
		add_train(out, "x01-ip4ip6-8", ip4ip6, 8);
		add_train(out, "x01-ip4ip6-encap-limit-8", lim4, 8);
		add_train(out, "x02-ip6ip6-encap-limit-8-auto", lim6, 8, fuzzin::kEncapAuto);
		auto x3 = frames::train(lim6, 6);
		x3[2].outer6.hop_limit = 63;
		x3[4].outer6.traffic_class = 4;
		x3[5].outer6.flow_label = 9;
		out.emplace_back("x03-ip6ip6-outer-flushes", records(x3));
		Segment x5 = sit;
		x5.inner6.ext.push_back(frames::ExtHdr{60, {0x1e, 4, 1, 2, 3, 4}});
		x5.inner6.ext.push_back(frames::ExtHdr{0, {1, 4, 0, 0, 0, 0}});
		auto t5 = frames::train(x5, 6);
		t5[3].inner6.ext[0].data[5] = 5;
		out.emplace_back("x05-sit-inner-options-differ", records(t5));
		Segment x7 = lim6;
		x7.outer6.ext.push_back(frames::ExtHdr{44, {0, 0, 0, 0, 0, 1}});
		add_train(out, "x07-ip6ip6-fragment-header", x7, 2);
	}
	{
		// TCP flushes: window, ack, options, seq gap, flags.
		auto t = frames::train(ipip, 8);
		t[1].tcp.window = 1;
		t[2].tcp.ack = 78;
		t[3].tcp.options = {1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2};
		t[5].tcp.seq += 1;
		t[6].tcp.flags = 0x90;
		out.emplace_back("ipip-tcp-flushes", records(t));
	}

	// Malformed and unmergeable single segments, each followed by a good segment of the same flow.
	auto bad = [&](const std::string &name, Segment s, uint8_t extra_flags = 0, size_t cut = 0) {
		std::vector<uint8_t> in;
		auto t = frames::train(s, 2);
		std::vector<uint8_t> b0 = frames::build(t[0]);
		if (cut && cut < b0.size())
			b0.resize(b0.size() - cut);
		fuzzin::put_record(in, encap_flag(s) | extra_flags, 0, b0);
		fuzzin::put_record(in, encap_flag(s) | fuzzin::kEndPoll, 0, frames::build(t[1]));
		out.emplace_back(name, in);
	};
	{
		Segment s = ipip;
		s.outer_len_delta = 8;
		bad("m02-outer-len-long", s);
		s.outer_len_delta = -8;
		bad("m02-outer-len-short", s);
	}
	{
		Segment s = ipip;
		s.padding = 6;
		bad("m03-ipip-padding", s);
		Segment p = plain4;
		p.payload_len = 4;
		p.padding = 2;
		bad("m03-plain-padding", p);
	}
	{
		Segment s = ipip;
		s.inner4.ihl = 6;
		bad("m01-inner-ihl6", s);
		s = ipip;
		s.inner4.ihl = 4;
		bad("m01-inner-ihl4", s);
	}
	{
		Segment s = ipip;
		s.tcp.doff_override = 4;
		bad("m04-doff4", s);
		s.tcp.doff_override = 15;
		bad("m04-doff15", s);
	}
	{
		Segment s = ipip;
		s.inner4.mf = true;
		bad("m05-inner-mf", s);
		s = sit;
		s.inner6.next_header = 44;
		bad("m05-sit-frag-header", s);
	}
	{
		Segment s = ipip;
		s.inner_proto_override = 4;
		bad("m06-nested-ipip", s);
		s = sit;
		s.inner_proto_override = 41;
		bad("m06-nested-sit", s);
	}
	bad("m07-truncated-inner", ipip, 0, 300 + 20 + 10);
	{
		Segment s = ipip;
		s.inner_proto_override = 1;
		bad("m08-icmp-in-ipip", s);
	}
	{
		Segment s = ipip;
		s.bad_tcp_csum = true;
		bad("csum-bad-checked", s, fuzzin::kCsumCheck);
		bad("upper-flush", ipip, fuzzin::kUpperFlush);
		bad("short-view-sit", sit, fuzzin::kShortView);
		auto t = frames::train(ipip, 4);
		std::vector<uint8_t> in = records(t, fuzzin::kNoMerge);
		out.emplace_back("nomerge-ipip", in);
	}
	{
		// Wrong dispatch: SIT bytes given to the IPIP path and the reverse, plus empty and 1-byte frames.
		std::vector<uint8_t> in;
		fuzzin::put_record(in, fuzzin::kEncapIpip, 0, frames::build(sit));
		fuzzin::put_record(in, fuzzin::kEncapSit, 0, frames::build(ipip));
		fuzzin::put_record(in, fuzzin::kEncapPlain, 0, frames::build(ipip));
		fuzzin::put_record(in, fuzzin::kEncapIpip, 0, {});
		fuzzin::put_record(in, fuzzin::kEncapSit, 0, {0x45});
		out.emplace_back("wrong-dispatch-and-tiny", in);
	}
	{
		const std::vector<uint8_t> dsr = frames::dsr_option(), ra = {148, 4, 0, 0}, len0 = {0x9e, 0, 0, 0};
		Segment s = ipip;
		s.inner4.options = dsr;
		add_option_train(out, "o01-ipip-inner-option", frames::train(s, 6));
		auto t = frames::train(s, 6);
		for (unsigned i = 3; i < 6; i++)
			t[i].inner4.options.back() = 0x52;
		add_option_train(out, "o02-option-changes", t);
		Segment p = plain4;
		p.outer.options = {1, 1, 1, 0};
		add_option_train(out, "o03-plain-nop-eol", frames::train(p, 6));
		s.outer.options = dsr;
		add_option_train(out, "o04-ipip-outer-and-inner", frames::train(s, 6));
		Segment x = sit;
		x.outer.options = dsr;
		add_option_train(out, "o04-sit-outer", frames::train(x, 6));
		p.outer.options = ra;
		add_option_train(out, "o06-router-alert", frames::train(p, 4));
		p.outer.options = len0;
		add_option_train(out, "o06-malformed-length0", frames::train(p, 4));
	}
	udp_seeds(out);
	fastpath_seeds(out);
	return out;
}

} // namespace fuzzseeds
