// SPDX-License-Identifier: GPL-2.0
// tgc_receive: the receive loop (receive.hpp) on the caller's tgc_rx_ops, for the module's offload path and every
// host caller.
#include "freestanding.hpp"
#include "receive.hpp"

using namespace tungro;

namespace {

// tgc_rx_ops as receive()'s Ops: absent callbacks prepare nothing, find nothing, append everything.
class FnOps {
public:
	static constexpr bool kFastStage = false; // find needs the parsed segment: no expectation to offer
	FnOps(const tgc_rx_ops *ops, void *ctx) : ops_(ops), ctx_(ctx) {}
	static u32 outer(const tgc_seg * /*seg*/) { return 0; } // the caller's seg->in says it (TGC_IN_OUTER_FLUSH)
	u32 prepare(const tgc_pkt *pkt) const { return ops_ && ops_->prepare ? ops_->prepare(ctx_, pkt) : 0; }
	void *find(const tgc_pkt *pkt, const u8 *hdr, tgc_held *held) const
	{
		return ops_ && ops_->find ? ops_->find(ctx_, pkt, hdr, held) : nullptr;
	}
	int append(void *held, const tgc_rx_result *r) const
	{
		return ops_ && ops_->append ? ops_->append(ctx_, held, r) : 0;
	}

private:
	const tgc_rx_ops *ops_;
	void *ctx_;
};

} // namespace

extern "C" void tgc_receive(const tgc_seg *seg, const tgc_rx_ops *ops, void *ctx, tgc_rx_result *r)
{
	FnOps fn(ops, ctx);
	receive(seg, seg->in, 0, fn, r); // never IPv4 options: 6.12 may complete what it holds
}
