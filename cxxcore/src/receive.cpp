// SPDX-License-Identifier: GPL-2.0
// tgc_receive: the receive loop (receive.hpp) on the caller's tgc_rx_ops, for the module's offload path and every
// host caller.
#include "freestanding.hpp"
#include "receive.hpp"

using namespace tungro;

namespace {

// tgc_rx_ops as receive()'s Ops: absent callbacks prepare nothing, find nothing, append everything.
struct FnOps {
	const tgc_rx_ops *ops;
	void *ctx;

	u32 prepare(const tgc_pkt *pkt) const { return ops && ops->prepare ? ops->prepare(ctx, pkt) : 0; }
	void *find(const tgc_pkt *pkt, const u8 *hdr, tgc_held *held) const
	{
		return ops && ops->find ? ops->find(ctx, pkt, hdr, held) : nullptr;
	}
	int append(void *held, const tgc_rx_result *r) const { return ops && ops->append ? ops->append(ctx, held, r) : 0; }
};

} // namespace

extern "C" void tgc_receive(const tgc_seg *seg, const tgc_rx_ops *ops, void *ctx, tgc_rx_result *r)
{
	FnOps fn{ops, ctx};
	receive(seg, seg->in, fn, r);
}
