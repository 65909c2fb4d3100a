// SPDX-License-Identifier: GPL-2.0
// Names of flush reasons and the segments-per-packet histogram buckets, shared by debugfs and host tools.
#include "freestanding.hpp"
#include "tungro_core.h"

namespace {
// Constant-initialised: no global constructor.
constexpr const char *kReasonNames[] = {
	"none",	  "malformed", "ip_options", "fragment", "nested",  "not_tcp", "ttl",	     "tos",
	"df",	  "ip_id",     "flags",	     "window",	 "ack",	    "options", "seq",	     "mss",
	"size",	  "end",       "short",	     "no_payload", "csum",  "upper",   "nomerge",  "foreign", "padding",
	"ip_len", "ip_flags", "ipv6_ext", "decrypted", "udp_encap", "outer_id",
	"ext_limit", "ip_opt_diff", "udp_len", "udp_csum0",
};
static_assert(sizeof(kReasonNames) / sizeof(kReasonNames[0]) == TGC_R_COUNT, "one name per enum tgc_reason");
} // namespace

extern "C" const char *tgc_reason_name(unsigned int reason)
{
	return reason < TGC_R_COUNT ? kReasonNames[reason] : "?";
}

extern "C" unsigned int tgc_hist_bucket(unsigned int segs)
{
	unsigned int b = 0;
	// 1 -> 0, 2 -> 1, 3-4 -> 2, 5-8 -> 3, 9-16 -> 4, 17-32 -> 5, 33-64 -> 6, 65+ -> 7
	for (unsigned int top = 1; top < segs && b < TGC_HIST_BUCKETS - 1; top <<= 1)
		b++;
	return b;
}
