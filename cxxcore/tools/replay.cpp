// Replay engine (see replay.hpp).
#include "replay.hpp"

#include <pcap/pcap.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <vector>

#include "../tests/mini_gro.hpp"

namespace replay {
namespace {

constexpr unsigned kEthHdr = 14;
constexpr uint16_t kEthIpv4 = 0x0800, kEthIpv6 = 0x86dd, kEthVlan = 0x8100, kEthQinQ = 0x88a8;
constexpr uint8_t kProtoTcp = 6;
// Outer addresses of wrapped packets: TEST-NET-1 (RFC 5737), one tunnel for every flow of the capture.
constexpr uint8_t kWrapSrc[4] = {192, 0, 2, 1}, kWrapDst[4] = {192, 0, 2, 2};

uint16_t ld16(const uint8_t *p) { return static_cast<uint16_t>(p[0] << 8 | p[1]); }

bool ipv4_hdr_ok(const uint8_t *iph)
{
	uint32_t s = 0;
	for (unsigned i = 0; i < 20; i += 2)
		s += ld16(iph + i);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s == 0xffff;
}

std::string addr4(const uint8_t *a)
{
	char s[16];
	std::snprintf(s, sizeof(s), "%u.%u.%u.%u", a[0], a[1], a[2], a[3]);
	return s;
}

// RFC 5952 short form is not needed for a label: groups in hex, the longest zero run as "::".
std::string addr6(const uint8_t *a)
{
	int best = -1, best_len = 0;
	for (int i = 0; i < 8;) {
		int j = i;
		while (j < 8 && ld16(a + 2 * j) == 0)
			j++;
		if (j - i > best_len && j - i > 1) {
			best = i;
			best_len = j - i;
		}
		i = j == i ? i + 1 : j;
	}
	std::string s;
	char g[8];
	for (int i = 0; i < 8; i++) {
		if (i == best) {
			s += "::";
			i += best_len - 1;
			continue;
		}
		if (!s.empty() && s.back() != ':')
			s += ':';
		std::snprintf(g, sizeof(g), "%x", ld16(a + 2 * i));
		s += g;
	}
	return "[" + s + "]";
}

// Name of one IP layer and whatever it carries; depth bounds recursion through tunnels.
std::string layer_name(const uint8_t *p, size_t n, int depth)
{
	if (n < 1)
		return "(empty)";
	size_t hlen;
	uint8_t proto;
	std::string src, dst, kind;
	bool first_fragment = true;
	if (p[0] >> 4 == 4) {
		hlen = (p[0] & 0x0f) * 4u;
		if (n < 20 || hlen < 20)
			return "ip4 (short)";
		proto = p[9];
		src = addr4(p + 12);
		dst = addr4(p + 16);
		first_fragment = (ld16(p + 6) & 0x1fff) == 0;
		kind = "ip4";
	} else if (p[0] >> 4 == 6) {
		if (n < 40)
			return "ip6 (short)";
		hlen = 40;
		proto = p[6];
		// Through hop-by-hop, routing and destination options headers (the encapsulation-limit option of ip6
		// tunnels), as the core walks them.
		while ((proto == 0 || proto == 43 || proto == 60) && hlen + 8 <= n) {
			proto = p[hlen];
			hlen += (p[hlen + 1] + 1u) * 8u;
		}
		src = addr6(p + 8);
		dst = addr6(p + 24);
		kind = "ip6";
	} else {
		return "(not ip)";
	}
	if ((proto == 4 || proto == 41) && depth < 2 && hlen < n) {
		const char *tun = proto == 4 ? (kind == "ip4" ? "ipip" : "ip4in6") : (kind == "ip4" ? "sit" : "ip6in6");
		return std::string(tun) + " " + src + ">" + dst + " | " + layer_name(p + hlen, n - hlen, depth + 1);
	}
	if ((proto == kProtoTcp || proto == 17) && first_fragment && hlen + 4 <= n)
		return kind + " " + src + ":" + std::to_string(ld16(p + hlen)) + ">" + dst + ":" +
		       std::to_string(ld16(p + hlen + 2)) + (proto == kProtoTcp ? " tcp" : " udp");
	return kind + " " + src + ">" + dst + " proto " + std::to_string(proto) + (first_fragment ? "" : " frag");
}

// The IP packet inside an Ethernet frame (VLAN tags skipped), or nullptr with *n untouched.
const uint8_t *ip_of_ethernet(const uint8_t *f, size_t caplen, size_t *n)
{
	if (caplen < kEthHdr)
		return nullptr;
	size_t off = 12;
	uint16_t type = ld16(f + off);
	for (int tags = 0; (type == kEthVlan || type == kEthQinQ) && tags < 2; tags++) {
		off += 4;
		if (caplen < off + 2)
			return nullptr;
		type = ld16(f + off);
	}
	off += 2;
	if ((type != kEthIpv4 && type != kEthIpv6) || caplen <= off)
		return nullptr;
	*n = caplen - off;
	return f + off;
}

// --wrap: the IP packet (without link padding) behind a fresh outer IPv4 header, or an empty vector when the
// packet is not the kind this wrap takes. The outer header is what a Linux tunnel sends: DF set, a fixed ID, the
// inner ECN bits copied (RFC 6040), TTL 64, checksum computed.
std::vector<uint8_t> wrap(const uint8_t *p, size_t n, Wrap w)
{
	size_t ip_len;
	uint8_t ecn;
	if (w == Wrap::Ipip && n >= 20 && p[0] >> 4 == 4 && p[9] == kProtoTcp) {
		ip_len = ld16(p + 2);
		ecn = p[1] & 3;
	} else if (w == Wrap::Sit && n >= 40 && p[0] >> 4 == 6 && p[6] == kProtoTcp) {
		ip_len = 40u + ld16(p + 4);
		ecn = static_cast<uint8_t>(ld16(p) >> 4) & 3;
	} else {
		return {};
	}
	// A truncated capture keeps its declared length, so the core sees the truncation (M02), not a shorter packet.
	const size_t outer_len = std::min<size_t>(20 + ip_len, 0xffff);
	std::vector<uint8_t> out(20);
	out[0] = 0x45;
	out[1] = ecn;
	out[2] = static_cast<uint8_t>(outer_len >> 8);
	out[3] = static_cast<uint8_t>(outer_len);
	out[6] = 0x40; // DF
	out[8] = 64;
	out[9] = w == Wrap::Ipip ? 4 : 41; // IPPROTO_IPIP, IPPROTO_IPV6
	std::copy(kWrapSrc, kWrapSrc + 4, out.begin() + 12);
	std::copy(kWrapDst, kWrapDst + 4, out.begin() + 16);
	tgc_fix_ipv4(out.data(), static_cast<tgc_u16>(outer_len));
	out.insert(out.end(), p, p + std::min(n, ip_len));
	return out;
}

unsigned encap_of(Encap e, const std::vector<uint8_t> &pkt)
{
	switch (e) {
	case Encap::Ipip: return TGC_ENCAP_IPIP;
	case Encap::Sit: return TGC_ENCAP_SIT;
	case Encap::Ip4ip6: return TGC_ENCAP_IP4IP6;
	case Encap::Ip6ip6: return TGC_ENCAP_IP6IP6;
	case Encap::Plain: return TGC_ENCAP_NONE;
	default: return tgc_encap_detect(pkt.data(), static_cast<uint32_t>(pkt.size()));
	}
}

void add(Stats &to, const Stats &from)
{
	to.frames += from.frames;
	to.tcp_segments += from.tcp_segments;
	to.gro_packets += from.gro_packets;
	to.gro_segments += from.gro_segments;
	to.segments_out += from.segments_out;
	for (unsigned r = 0; r < TGC_R_COUNT; r++)
		to.reasons[r] += from.reasons[r];
}

// Counts what one dispatch path delivered.
void account(MiniGro &g, Result *res)
{
	for (const Delivered &d : g.take_delivered()) {
		Stats &f = res->flows[flow_name(d.bytes.data(), d.bytes.size())];
		f.segments_out += d.segs;
		if (d.seqs.empty())
			continue; // never parsed: not a GRO packet
		f.gro_packets++;
		f.gro_segments += d.segs;
		if (!d.parsed)
			res->complete_errors++;
	}
}

// One NAPI poll. Kernel model: the packets go through one GRO list per dispatch path (the kernel keeps them apart
// by protocol before the tunnel's gro_receive sees them). Engine: one table for every path, kept across polls.
// Either way every held packet completes at the end of the poll.
void run_poll(const std::vector<std::vector<uint8_t>> &pkts, const Options &opt, Result *res, MiniGro *engine,
	      uint32_t poll)
{
	std::unique_ptr<MiniGro> lists[TGC_ENCAP_COUNT];
	auto list_of = [&](unsigned encap) -> MiniGro & {
		if (engine)
			return *engine;
		auto &l = lists[encap < TGC_ENCAP_COUNT ? encap : 0];
		if (!l)
			l = std::make_unique<MiniGro>(encap);
		return *l;
	};
	for (const auto &p : pkts) {
		const unsigned encap = encap_of(opt.encap, p);
		MiniGro &g = list_of(encap);
		g.receive(p, encap, 0, poll);
		const tgc_rx_result &r = g.last_result(); // a refusal's reason, else the verdict's
		Stats &f = res->flows[flow_name(p.data(), p.size())];
		f.frames++;
		f.reasons[r.v.reason]++;
		if (r.parsed)
			f.tcp_segments++;
	}
	for (auto &l : lists) {
		if (l) {
			l->flush();
			account(*l, res);
		}
	}
	if (engine) {
		engine->flush();
		account(*engine, res);
	}
}

struct PcapCloser {
	void operator()(pcap_t *p) const { pcap_close(p); }
};

} // namespace

std::string flow_name(const uint8_t *p, size_t n) { return layer_name(p, n, 0); }

bool read_ip_packets(const std::string &path, std::vector<std::vector<uint8_t>> *pkts, uint64_t *records,
		     std::string *error)
{
	char errbuf[PCAP_ERRBUF_SIZE] = "";
	std::unique_ptr<pcap_t, PcapCloser> pc(pcap_open_offline(path.c_str(), errbuf));
	if (!pc) {
		*error = "cannot read capture " + path + ": " + errbuf;
		return false;
	}
	const int dlt = pcap_datalink(pc.get());
	if (dlt != DLT_EN10MB && dlt != DLT_RAW) {
		*error = path + ": link type " + std::to_string(dlt) + " (" +
			 (pcap_datalink_val_to_name(dlt) ? pcap_datalink_val_to_name(dlt) : "?") +
			 ") not supported: Ethernet or raw IP only";
		return false;
	}
	*records = 0;
	pkts->clear();
	pcap_pkthdr *h;
	const u_char *data;
	int rc;
	while ((rc = pcap_next_ex(pc.get(), &h, &data)) == 1) {
		++*records;
		size_t n = 0;
		const uint8_t *ip = nullptr;
		if (dlt == DLT_EN10MB) {
			ip = ip_of_ethernet(data, h->caplen, &n);
		} else if (h->caplen > 0) {
			ip = data;
			n = h->caplen;
		}
		pkts->emplace_back(); // empty: not IP
		if (ip)
			pkts->back().assign(ip, ip + n);
	}
	if (rc == PCAP_ERROR) {
		*error = path + ": read error after " + std::to_string(*records) + " records: " + pcap_geterr(pc.get());
		return false;
	}
	return true;
}

bool run(const std::string &path, const Options &opt, Result *out, std::string *error)
{
	std::vector<std::vector<uint8_t>> pkts;
	*out = Result{};
	if (!read_ip_packets(path, &pkts, &out->records, error))
		return false;
	const unsigned poll = opt.poll ? opt.poll : 1;
	std::unique_ptr<MiniGro> engine;
	if (opt.engine)
		engine = std::make_unique<MiniGro>(TGC_ENCAP_NONE, true, 0, Table{opt.buckets, opt.flows, false});
	uint32_t polls = 0;
	std::vector<std::vector<uint8_t>> batch;
	for (const std::vector<uint8_t> &p : pkts) {
		if (p.empty()) {
			out->not_ip++;
			continue;
		}
		const uint8_t *ip = p.data();
		const size_t n = p.size();
		std::vector<uint8_t> fixed;
		if (opt.fix_ipv4_csum && n >= 20 && ip[0] == 0x45 && !ipv4_hdr_ok(ip)) {
			fixed.assign(ip, ip + n);
			tgc_fix_ipv4(fixed.data(), ld16(ip + 2)); // rewrites the same total length, then the checksum
			ip = fixed.data();
			out->csum_fixed++;
		}
		std::vector<uint8_t> pkt;
		if (opt.wrap != Wrap::None)
			pkt = wrap(ip, n, opt.wrap);
		if (!pkt.empty())
			out->wrapped++;
		else
			pkt.assign(ip, ip + n);
		batch.push_back(std::move(pkt));
		if (batch.size() == poll) {
			run_poll(batch, opt, out, engine.get(), polls++);
			batch.clear();
		}
	}
	if (!batch.empty())
		run_poll(batch, opt, out, engine.get(), polls++);
	if (engine)
		out->evicted = engine->stats().evicted;
	for (const auto &kv : out->flows)
		add(out->total, kv.second);
	return true;
}

} // namespace replay
