#include "mini_gro.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

// One segment's bytes as received, or a held packet's (its first segment, payloads appended).
struct MiniGro::Buf {
	std::vector<uint8_t> bytes;
	std::vector<uint32_t> seqs;
	uint64_t tag = 0;
};

MiniGro::MiniGro(unsigned encap, bool device_checksum_help, unsigned align, Table t)
	: encap_(encap), csum_help_(device_checksum_help), align_(align)
{
	static const tgc_engine_ops ops = {op_append, op_complete, op_deliver};
	const uint32_t size = tgc_engine_size(t.buckets, t.flows);
	if (!size)
		throw std::invalid_argument("MiniGro: table size out of range");
	mem_.reset(new uint64_t[(size + 7) / 8]);
	const uint32_t flags = (t.caller_hash ? TGC_ENGINE_CALLER_HASH : 0) | (t.ipv4_options ? TGC_ENGINE_IPV4_OPTIONS : 0) |
			       (t.no_fastpath ? TGC_ENGINE_NO_FASTPATH : 0);
	engine_ = tgc_engine_init(mem_.get(), size, t.buckets, t.flows, flags, &ops, this);
	if (!engine_)
		throw std::invalid_argument("MiniGro: tgc_engine_init refused");
	if (t.differential && !t.no_fastpath) {
		Table slow = t;
		slow.no_fastpath = true;
		slow.differential = false;
		shadow_ = std::make_unique<MiniGro>(encap, device_checksum_help, align, slow);
	}
}

bool same_delivered(const Delivered &a, const Delivered &b)
{
	return a.segs == b.segs && a.seqs == b.seqs && a.bytes == b.bytes &&
	       std::memcmp(&a.completion, &b.completion, sizeof(a.completion)) == 0 && a.id_state == b.id_state &&
	       a.gso_size == b.gso_size && a.parsed == b.parsed && a.pass_reason == b.pass_reason && a.why == b.why &&
	       a.tag == b.tag;
}

bool same_result(const tgc_rx_result &a, const tgc_rx_result &b)
{
	tgc_rx_result x = a, y = b;
	x.held = y.held = nullptr;
	return (a.held != nullptr) == (b.held != nullptr) && std::memcmp(&x, &y, sizeof(x)) == 0;
}

// The fast stage's differential check after @what: the shadow engine (no fast stage) delivered the same packets,
// counted the same, and gave the last segment the same result.
void MiniGro::check_shadow(const char *what) const
{
	if (!shadow_)
		return;
	const char *bad = nullptr;
	tgc_engine_stats a = stats(), b = shadow_->stats();
	if (b.fastpath != 0)
		bad = "the engine without the fast stage used it";
	a.fastpath = 0;
	if (!bad && std::memcmp(&a, &b, sizeof(a)) != 0)
		bad = "engine counters differ";
	if (!bad && out_.size() != shadow_->out_.size())
		bad = "a different number of packets delivered";
	for (size_t i = 0; !bad && i < out_.size(); i++)
		if (!same_delivered(out_[i], shadow_->out_[i]))
			bad = "a delivered packet differs";
	if (!bad && !same_result(last_rx_, shadow_->last_rx_))
		bad = "the segment's result differs";
	if (!bad)
		return;
	std::fprintf(stderr, "MiniGro: fast stage and full parse disagree after %s (segment %llu): %s\n", what,
		     static_cast<unsigned long long>(segs_), bad);
	std::abort();
}

MiniGro::~MiniGro()
{
	tgc_engine_flush(engine_); // frees what is still held
}

int MiniGro::op_append(void *, void *held, void *seg, const tgc_merge *m)
{
	Buf *h = static_cast<Buf *>(held);
	std::unique_ptr<Buf> s(static_cast<Buf *>(seg));
	const tgc_pkt &p = *m->pkt;
	h->bytes.resize(m->held_len); // a held packet's first segment never carried padding, but say so
	h->bytes.insert(h->bytes.end(), s->bytes.begin() + p.payload_off, s->bytes.begin() + p.payload_off + p.payload_len);
	h->bytes[m->flags_off] |= m->held_flags;
	h->seqs.push_back(p.seq);
	return 0;
}

void MiniGro::op_complete(void *ctx, void *held, const tgc_done *d)
{
	MiniGro *g = static_cast<MiniGro *>(ctx);
	std::unique_ptr<Buf> h(static_cast<Buf *>(held));
	Delivered out;
	out.segs = d->count;
	out.seqs = std::move(h->seqs);
	out.bytes = std::move(h->bytes);
	out.bytes.resize(d->total_len);
	out.id_state = d->id_state;
	out.gso_size = d->gso_size;
	out.why = d->why;
	out.tag = h->tag;
	out.parsed = tgc_finish(out.bytes.data(), d->total_len, d, &out.completion) == 0;
	g->out_.push_back(std::move(out));
}

void MiniGro::op_deliver(void *ctx, void *seg, const tgc_rx_result *r)
{
	MiniGro *g = static_cast<MiniGro *>(ctx);
	std::unique_ptr<Buf> s(static_cast<Buf *>(seg));
	Delivered out;
	out.segs = 1;
	if (r->parsed)
		out.seqs.push_back(r->pkt.seq);
	out.bytes = std::move(s->bytes);
	out.parsed = r->parsed;
	out.pass_reason = r->v.reason;
	out.tag = s->tag;
	g->out_.push_back(std::move(out));
}

std::vector<unsigned> MiniGro::seg_counts() const
{
	std::vector<unsigned> v;
	for (const auto &d : out_)
		v.push_back(d.segs);
	return v;
}

tgc_engine_stats MiniGro::stats() const
{
	tgc_engine_stats s;
	tgc_engine_get_stats(engine_, &s);
	return s;
}

tgc_verdict MiniGro::receive(const std::vector<uint8_t> &frame)
{
	return receive(frame, encap_);
}

tgc_verdict MiniGro::receive(const std::vector<uint8_t> &frame_in, unsigned encap, uint32_t hash, uint32_t time,
			     uint64_t tag)
{
	// Place the frame at the requested alignment (2 mod 4 as with NET_IP_ALIGN on m68k) in its own buffer so
	// ASan catches any read past its end; the header view is exactly hdr_len bytes of its own.
	std::vector<uint8_t> storage(frame_in.size() + align_);
	if (!frame_in.empty())
		std::memcpy(storage.data() + align_, frame_in.data(), frame_in.size());
	const uint8_t *data = storage.data() + align_;
	const uint32_t pkt_len = static_cast<uint32_t>(frame_in.size());
	const uint32_t hdr_len = std::min<uint32_t>(pkt_len, TGC_MAX_HDR_BYTES);
	std::vector<uint8_t> view(data, data + hdr_len);

	tgc_seg seg{};
	seg.hdr = view.data();
	seg.data = data;
	seg.hdr_len = hdr_len;
	seg.pkt_len = pkt_len;
	seg.in = in_ | (csum_help_ ? 0 : TGC_IN_CSUM_CHECK);
	seg.hash = hash;
	seg.time = time;
	seg.encap = static_cast<uint8_t>(encap);

	auto *b = new Buf;
	b->bytes = frame_in;
	b->tag = tag;
	tgc_rx_result r;
	tgc_engine_receive(engine_, &seg, b, &r); // b now belongs to the engine's ops (or is held)
	if (r.parsed && r.v.action == TGC_HOLD)
		b->seqs.push_back(r.pkt.seq);
	reasons_[r.v.reason]++;
	last_rx_ = r;
	segs_++;
	if (shadow_) {
		shadow_->receive(frame_in, encap, hash, time, tag);
		check_shadow("a segment");
	}
	if (!r.parsed)
		return tgc_verdict{};
	last_ = r.v;
	return r.v;
}

void MiniGro::receive_all(const std::vector<std::vector<uint8_t>> &frames)
{
	for (const auto &f : frames)
		receive(f);
}

void MiniGro::flush()
{
	tgc_engine_flush(engine_);
	if (shadow_) {
		shadow_->flush();
		check_shadow("a flush");
	}
}

void MiniGro::flush_before(uint32_t time)
{
	tgc_engine_flush_before(engine_, time);
	if (shadow_) {
		shadow_->flush_before(time);
		check_shadow("a flush by age");
	}
}
