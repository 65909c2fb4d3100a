// SPDX-License-Identifier: GPL-2.0
// tgc_same_flow and tgc_decide: the C interface to the rules of rules.hpp.
#include "freestanding.hpp"
#include "rules.hpp"

using namespace tungro;

extern "C" int tgc_same_flow(const tgc_pkt *pkt, const u8 *hdr, const u8 *held_hdr, u32 held_len)
{
	return same_flow(pkt, hdr, held_hdr, held_len);
}

extern "C" void tgc_decide(const tgc_pkt *pkt, const u8 *hdr, const tgc_held *held, unsigned int in,
			   tgc_verdict *v)
{
	decide(pkt, hdr, held, in, v);
}
