// Shared helpers of the core's unit tests: run a train through MiniGro, return segments per delivered packet.
#ifndef TUNGRO_TESTS_UTIL_HPP
#define TUNGRO_TESTS_UTIL_HPP

#include <vector>

#include "frames.hpp"
#include "mini_gro.hpp"

inline unsigned encap_of(const frames::Segment &s)
{
	switch (s.encap) {
	case frames::Encap::IPIP: return TGC_ENCAP_IPIP;
	case frames::Encap::SIT: return TGC_ENCAP_SIT;
	default: return TGC_ENCAP_NONE;
	}
}

inline std::vector<std::vector<uint8_t>> build_all(const std::vector<frames::Segment> &segs)
{
	std::vector<std::vector<uint8_t>> out;
	for (const auto &s : segs)
		out.push_back(frames::build(s));
	return out;
}

// Runs one NAPI poll's train and returns the segment count of each delivered packet, in delivery order.
inline std::vector<unsigned> gro_counts(const std::vector<frames::Segment> &segs, bool csum_help = true,
					unsigned align = 0)
{
	MiniGro g(encap_of(segs.at(0)), csum_help, align);
	g.receive_all(build_all(segs));
	g.flush();
	return g.seg_counts();
}

using Counts = std::vector<unsigned>;

#endif
