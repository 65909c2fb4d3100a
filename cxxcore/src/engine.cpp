// SPDX-License-Identifier: GPL-2.0
// The engine: a GRO flow table (buckets x flows per bucket) in caller memory, built on tgc_receive(). It does what
// the kernel's dev_gro_receive/napi_gro_flush do around the protocol callbacks: find the flow's held packet by
// hash and header comparison, hold new flows (a full bucket completes its oldest), complete at the end of a poll.
#include "freestanding.hpp"
#include "headers.hpp"
#include "receive.hpp"

using namespace tungro;

namespace {

constexpr u32 kMaxBuckets = 256, kMaxFlows = 256;

// One held packet. hdr is the flow's key as well as the held headers tgc_decide() reads: a copy of the first
// segment's headers, patched as the caller patches its own (FIN/PSH), so it never depends on where the caller's
// bytes live (the kernel moves headers out of frag0 after a hold).
struct Flow {
	void *held;		// the caller's packet; nullptr: free slot
	u32 hash;
	u32 serial;		// hold order: the oldest of a bucket has the smallest (wrapping compare)
	u32 age;		// tgc_seg.time at hold
	u32 total_len;
	u16 count, gso_size;	// (between the lengths: g++ made vector code of their adds)
	u32 payload_len;
	u8 id_state, tls, bucket;	// bucket: its index (buckets <= 256)
	u8 pred_step;		// predict_step()'s layers
	u8 pred_v4;		// predicted()'s IPv4 layers (bit 0 outer, 1 inner)
	u8 pad[3];
	u32 pred_in;		// the TGC_IN_* bits of kPredIn a segment it takes has (its TLS
				// state), and the prediction's state: | kPredLazy while LAZY,
				// kPredNever while OFF
	u32 pred_len;		// payload_off + gso_size: a predicted segment's pkt_len
	u32 pred_room;		// TGC_MAX_GRO_BYTES - gso_size: one more fits below it (pred_fits)
	u16 pred_id[2], pred_sum[2];	// per layer, host order: ID, ~checksum (predict_step)
	tgc_merge pm;		// the predicted segment's merge record but for held_len (merge_record())
	Flow *after;		// the flow the segment after one of this flow's went to last (itself
				// from the hold): the predicted stage's first candidate, a hint only
	tgc_pkt first;
	tgc_pkt next;		// the predicted next segment's record (predict_next) ...
	tgc_verdict next_v;
	u8 pmask[kPredMax];	// ... and the bytes of hdr its headers equal: 0xff; 0 where
				// predicted() compares a field in host order (or the TCP checksum)
	u8 hdr[TGC_MAX_HDR_BYTES];
};

// The prediction's state, in Flow::pred_in. LAZY from the hold: the prediction is made when a
// segment of the flow's layout and ports comes (IDs predicted incrementing at the first merge, so
// that one is a predicted merge too), so a flow never joined pays nothing for it; ON (the bits
// alone): made, kept up at every merge; OFF: none (no packet, nothing to predict, or
// TGC_ENGINE_NO_FASTPATH). A segment's bits equal only an ON flow's, so one compare tests both.
constexpr u32 kPredIn = kPredRefuse | TGC_IN_TLS_STATE;
constexpr u32 kPredLazy = 1u << 31, kPredNever = ~0u;
static_assert(!(kPredIn & kPredLazy), "kPredLazy and kPredNever are no segment's bits");

// Flow @f without a prediction (a packet completed or closed, nothing to predict, or
// TGC_ENGINE_NO_FASTPATH).
inline void pred_off(Flow *f)
{
	f->pred_in = kPredNever;
}

inline bool pred_on(const Flow *f)
{
	return !(f->pred_in & kPredLazy);
}

// The fields of Flow @f's merge record that a new prediction (predict_next()) may change.
inline void merge_record_step(Flow *f)
{
	f->pm.id_state = f->next_v.id_state;
	f->pm.fixedid = f->next_v.fixedid;
}

// Flow @f's merge record of its predicted segment (f->pm, but for held_len), from the prediction
// predict_next() just made: what the predicted stage hands the caller's append.
inline void merge_record(Flow *f)
{
	f->pm.pkt = &f->next;
	f->pm.held_len = 0;
	f->pm.flags_off = static_cast<u16>(f->first.tcp_off + TGC_TCP_FLAGS_OFF);
	f->pm.held_flags = 0; // no FIN or PSH: predict_start() refuses a template with one
	f->pm.pad[0] = f->pm.pad[1] = f->pm.pad[2] = 0;
	merge_record_step(f);
}

} // namespace

namespace {

// The fast stage's second candidate, for interleaved flows (the previous segment's flow is the first): a small
// direct-mapped index from a key of the raw header bytes to the flow last held or found with it. Only a hint: a
// candidate still has to match its template (fastpath.hpp), so a stale or colliding entry costs a miss, never a
// wrong merge.
constexpr u32 kRecentBits = 8, kRecent = 1u << kRecentBits;

} // namespace

struct tgc_engine {
	const tgc_engine_ops *ops;
	void *ctx;
	Flow *flows;		// buckets * nflows slots, bucket b at flows[b * nflows]
	Flow *last;		// the flow the previous segment found or started (a hint: checked like any slot)
	u32 buckets, nflows, flags;
	u32 serial;
	tgc_engine_stats st;
	u32 pred_merged;	// predicted merges: segs, merged, fastpath, reasons[0] (get_stats)
	Flow *recent[kRecent];	// a flow by recent_key(), or nullptr
	u16 held_in[kMaxBuckets];	// held packets per bucket: lookup and flush skip empty ones
};

namespace {

constexpr u32 align8(u32 n) { return (n + 7u) & ~7u; }

// What tgc_receive's callbacks need of the segment under way.
struct Rx {
	tgc_engine *e;
	const tgc_seg *seg;
	void *cookie;
	u32 in;		// seg->in, with the engine's own outer flush bit once the full parse runs
	u32 hash, bucket;
	bool fast;	// false: the predicted stage ruled out both of the fast stage's candidates
};

// The recent[] index of headers @hdr laid out with TCP at @tcp_off: the ports and bytes 12-15 (the IPv4 source
// address; inside the IPv6 one), the host-order words the template compares anyway, Fibonacci-hashed to its top
// bits. Read only where fast_shape() (or a parse) says there are bytes.
inline u32 recent_key(const u8 *hdr, u32 tcp_off)
{
	return ((raw32(hdr + tcp_off) ^ raw32(hdr + 12)) * 0x9e3779b1u) >> (32 - kRecentBits);
}

// Held flow @f as recent[]'s entry for its own key.
void remember(tgc_engine *e, Flow *f)
{
	e->recent[recent_key(f->hdr, f->first.tcp_off)] = f;
}

bool older(u32 a, u32 b) { return static_cast<__INT32_TYPE__>(a - b) < 0; }

// One 32-bit word into the hash: a multiply per word (Fibonacci hashing), the high bits reach the low ones (the
// bucket) in tgc_flow_hash's final avalanche.
inline u32 mix(u32 h, u32 v) { return (h ^ v) * 0x9e3779b1u; }

inline u32 mix_l3(u32 h, const u8 *nh)
{
	if (ip_version(nh) == 4)
		return mix(mix(h, load32(nh + ipv4::kSaddr)), load32(nh + ipv4::kDaddr));
	h = mix(h, load32(nh) & 0x000fffffu); // flow label: a different label is a different flow (L14)
	for (u32 i = 0; i < 32; i += 4)
		h = mix(h, load32(nh + ipv6::kSaddr + i));
	return h;
}

// Completes held flow @f for reason @why (TGC_DONE_*): the caller's complete op, the flow's slot
// freed. Inline in the flush's bucket scan; complete() elsewhere.
__attribute__((always_inline)) inline void complete_flow(tgc_engine *e, Flow *f, u8 why)
{
	tgc_done d;
	d.first = f->first;
	d.total_len = f->total_len;
	d.payload_len = f->payload_len;
	d.count = f->count;
	d.gso_size = f->gso_size;
	d.id_state = f->id_state;
	d.why = why;
	d.pad[0] = d.pad[1] = 0;
	void *held = f->held;
	f->held = nullptr;
	pred_off(f);
	e->held_in[f->bucket]--;
	e->st.completed++;
	e->st.held_now--;
	if (why == TGC_DONE_EVICT)
		e->st.evicted++;
	else if (why == TGC_DONE_FLUSH)
		e->st.flushed++;
	e->ops->complete(e->ctx, held, &d);
}

__attribute__((noinline)) void complete(tgc_engine *e, Flow *f, u8 why)
{
	complete_flow(e, f, why);
}

// Whether held flow @f is @pkt's: the same layout, then tgc_same_flow on the key it keeps.
bool is_flow_of(const Flow *f, const tgc_pkt *pkt, const u8 *hdr)
{
	return f->held && f->first.encap == pkt->encap && same_flow(pkt, hdr, f->hdr, f->first.payload_off);
}

// What tgc_decide() needs of held flow @f (tgc_receive's find fills it in), for a segment with @in bits.
void held_of(const Flow *f, u32 in, tgc_held *held)
{
	held_view_of(*f, held);
	held->flags = f->tls != ((in & TGC_IN_TLS_STATE) != 0) ? TGC_HELD_DECRYPTED : 0;
}

__attribute__((flatten)) void *rx_find(void *ctx, const tgc_pkt *pkt, const u8 *hdr, tgc_held *held)
{
	Rx *rx = static_cast<Rx *>(ctx);
	tgc_engine *e = rx->e;
	const bool caller_hash = e->flags & TGC_ENGINE_CALLER_HASH;
	Flow *f = e->last;
	// Segments come in runs of one flow: try the previous segment's flow before hashing. Same answer as the
	// bucket walk: one flow has one held packet, and its hash (tungro's, of the fields same_flow compares, or the
	// caller's, compared here) puts it in that bucket.
	if (f && (!caller_hash || f->hash == rx->seg->hash) && is_flow_of(f, pkt, hdr)) {
		rx->hash = f->hash;
		rx->bucket = f->bucket;
	} else {
		rx->hash = caller_hash ? rx->seg->hash : tgc_flow_hash(pkt, hdr);
		// The low bits, as the kernel's dev_gro_receive picks its bucket: no division or 64-bit multiply in the
		// core (32-bit ARM and m68k would call libgcc helpers the kernel may not have), so buckets is a power of
		// two.
		rx->bucket = rx->hash & (e->buckets - 1);
		u32 left = e->held_in[rx->bucket];
		if (!left)
			return nullptr;
		// The walk stops at the bucket's last held packet (held_in counts them).
		for (f = e->flows + static_cast<__SIZE_TYPE__>(rx->bucket) * e->nflows;; f++) {
			if (!f->held)
				continue;
			if (f->hash == rx->hash && is_flow_of(f, pkt, hdr))
				break;
			if (!--left)
				return nullptr;
		}
		e->last = f;
		remember(e, f);
	}
	held_of(f, rx->in, held);
	return f;
}

__attribute__((always_inline)) inline int rx_append(void *ctx, void *held, const tgc_rx_result *r)
{
	Rx *rx = static_cast<Rx *>(ctx);
	Flow *f = static_cast<Flow *>(held);
	if (!f) // tgc_decide merges only into a held packet; a guard for the analyzer, never taken
		return -1;
	// What the flow takes on, read before the caller's op (which may write memory the compiler cannot rule out).
	const u32 payload = r->pkt.payload_len;
	const u16 segs = r->pkt.gso_size ? r->pkt.gso_segs : 1;
	tgc_merge m;
	m.pkt = &r->pkt;
	m.held_len = f->total_len;
	m.flags_off = r->flags_off;
	m.held_flags = r->v.held_flags;
	m.id_state = r->v.id_state;
	m.fixedid = r->v.fixedid;
	m.pad[0] = m.pad[1] = m.pad[2] = 0;
	if (rx->e->ops->append(rx->e->ctx, f->held, rx->cookie, &m) != 0)
		return -1;
	f->total_len = m.held_len + payload;
	f->payload_len += payload;
	f->count = static_cast<u16>(f->count + segs);
	f->id_state = m.id_state;
	if (m.flags_off < f->first.payload_off)
		f->hdr[m.flags_off] |= m.held_flags;
	// The next segment, for the predicted stage (FIN/PSH carried: the packet is complete, nothing to predict).
	if (m.held_flags || (pred_on(f) && !predict_next(*f)))
		pred_off(f);
	else if (pred_on(f))
		merge_record_step(f);
	return 0;
}

// The engine's side of the receive loop: its table, inlined into the loop (receive.hpp).
class EngineOps {
public:
	static constexpr bool kFastStage = true;
	explicit EngineOps(Rx *rx) : rx_(rx) {}
	static u32 prepare(const tgc_pkt * /*pkt*/) { return 0; }
	void *find(const tgc_pkt *pkt, const u8 *hdr, tgc_held *held) const { return rx_find(rx_, pkt, hdr, held); }
	__attribute__((always_inline)) int append(void *held, const tgc_rx_result *r) const
	{
		return rx_append(rx_, held, r);
	}

	// The outer IP GRO the engine stands in for (6.12's inet_gro_receive): a segment whose outer length is not
	// the bytes present has its flush bit set before the tunnel's callback or TCP GRO runs (plain TCP too: TCP
	// GRO then completes the flow's held packet first, hostile frame p4_totlen_long). An outer IPv6 header
	// likewise (6.12's ipv6_gro_receive): its payload length against the bytes after it. Only for the full
	// parse: the fast stage requires the outer length to be exactly pkt_len.
	u32 outer(const tgc_seg *seg) const
	{
		u32 in = 0;
		if (seg->hdr_len >= 4) {
			const u32 v = ip_version(seg->hdr);
			if ((v == 4 && load16(seg->hdr + ipv4::kTotLen) != seg->pkt_len) ||
			    (v == 6 && seg->hdr_len >= 6 && load16(seg->hdr + ipv6::kPayloadLen) + ipv6::kLen != seg->pkt_len))
				in = TGC_IN_OUTER_FLUSH;
		}
		rx_->in |= in;
		return in;
	}

	// The fast stage's candidate: the flow the previous segment found or started (segments come in runs of one
	// flow), else the one recent[] names for the segment's key read at that flow's layout (interleaved flows of
	// one layout), when it holds a packet the segment matches the template of (fastpath.hpp) and nothing the
	// template cannot see rules it out: the caller's hash (TGC_ENGINE_CALLER_HASH buckets by it, and rx_find
	// compares it) and the TLS state (a difference is TGC_R_DECRYPTED). A flow whose template the segment
	// matches is the segment's flow (same_flow() reads only bytes the template compares), and a flow has one
	// held packet per bucket it hashes to (a new one is held only when find found none, or after completing
	// it): so it is what rx_find returns, hint or bucket walk, and its bucket and hash are the segment's (for a
	// hold after a failed append). TGC_ENGINE_NO_FASTPATH: never one (fast()).
	__attribute__((always_inline)) Flow *expected(const tgc_seg *seg, u32 in) const
	{
		tgc_engine *e = rx_->e;
		Flow *f = e->last; // held or not, its first segment gives the layout to try (fast() tested it is there)
		if (!fast_shape(seg, in, f->first))
			return nullptr;
		if (!f->held || !template_match(seg->hdr, f->hdr, f->first)) {
			Flow *g = e->recent[recent_key(seg->hdr, f->first.tcp_off)];
			if (!g || g == f || !g->held || !fast_shape(seg, in, g->first) ||
			    !template_match(seg->hdr, g->hdr, g->first))
				return nullptr;
			f = g;
		}
		if (((e->flags & TGC_ENGINE_CALLER_HASH) && f->hash != seg->hash) ||
		    f->tls != ((in & TGC_IN_TLS_STATE) != 0))
			return nullptr;
		rx_->hash = f->hash;
		rx_->bucket = f->bucket;
		return f;
	}
	// The fast stage on that candidate (none without a previous flow, or with TGC_ENGINE_NO_FASTPATH).
	__attribute__((always_inline)) bool fast(const tgc_seg *seg, u32 in, tgc_rx_result *r) const
	{
		if (!rx_->fast || !rx_->e->last || (rx_->e->flags & TGC_ENGINE_NO_FASTPATH))
			return false;
		Flow *f = expected(seg, in);
		if (!f || !fast_merge(seg, in, *f, r))
			return false;
		r->held = f;
		return true;
	}
	void held_of(const void *f, tgc_held *held) const { ::held_of(static_cast<const Flow *>(f), rx_->in, held); }
	// the engine's callers give whole views (tgc_engine_receive())
	static const tgc_seg *viewed(const tgc_seg *seg) { return seg; }
	static const tgc_seg *grow(const tgc_seg *seg) { return seg; }

private:
	Rx *rx_;
};

// The prediction of LAZY flow @f, when a segment that may be its next one comes (pred_shape_of(),
// pred_ports(), its encap): out of the receive loop, once a held packet. Whether it is ON.
__attribute__((noinline, flatten)) bool start_prediction(Flow *f)
{
	if (predict_start(*f) && predict_next(*f)) {
		merge_record(f);
		f->pred_in &= ~kPredLazy;
		return true;
	}
	pred_off(f);
	return false;
}

// Whether @seg (pred_shape(), TGC_IN_* bits @in of kPredIn) is held flow @f's predicted next
// segment, making the prediction first when it is LAZY and the segment is a candidate for it: 1, or
// 0; -1 when its ports are not f's (read at f's layout), which rules f out of EngineOps::expected()
// too (its template_match() fails there).
__attribute__((always_inline)) inline int predicted_of(const tgc_seg *seg, u32 in, Flow *f)
{
	if (!pred_shape_of(seg, *f))
		return 0;
	if (!pred_ports(seg, *f))
		return -1;
	if (seg->encap != f->first.encap)
		return 0;
	// An OFF flow's pred_in is kPredNever: no segment's.
	if (__builtin_expect(in != f->pred_in, 0) &&
	    ((in | kPredLazy) != f->pred_in || !start_prediction(f)))
		return 0;
	return predicted(seg, *f) ? 1 : 0;
}

// What the predicted stage found for a segment: the flow whose predicted next segment it is, or
// none; and whether the fast stage may still have a candidate for it (false when it has ruled out
// both of expected()'s).
struct Predicted {
	Flow *p;
	bool fast;
};

// The predicted stage's flow (fastpath.hpp): the one whose predicted next segment @seg is, among
// the previous segment's flow and the one recent[] names for it, as EngineOps::expected() picks its
// candidates and for the same reasons (a segment equal to a held flow's prediction matches its
// template). Tried the ports first after the shape (what tells interleaved flows apart), which also
// tells when neither is expected()'s: it returns nullptr where fast_shape() fails on the first (too
// few bytes for its ports), and takes the second only when the first's ports differ (or it holds
// nothing), and that only when held with the segment's ports at its layout. Before both, the flow
// that followed the previous one last time (Flow::after), which this keeps up. TGC_ENGINE_NO_FASTPATH:
// no flow has a prediction (hold()).
__attribute__((always_inline)) inline Predicted predicted_flow(tgc_engine *e, const tgc_seg *seg)
{
	Flow *f = e->last;
	const u32 in = seg->in & kPredIn; // none of kPredRefuse, and the flow's TLS state
	if (!f || !pred_shape(seg))
		return {nullptr, true};
	// The flow that followed the previous one last time (f itself on one flow; the next of
	// interleaved flows taken in turn): tried first, checked like any candidate.
	Flow *const last = f, *a = f->after;
	const int ra = predicted_of(seg, in, a);
	if (ra > 0) {
		f = a; // last->after is f already
	} else {
		const int rf = a == f ? ra : predicted_of(seg, in, f);
		if (rf <= 0) {
			if (seg->hdr_len < f->first.tcp_off + 4u) // recent_key()'s bytes at f's layout (tcp_off >= 20)
				return {nullptr, false};
			Flow *g = e->recent[recent_key(seg->hdr, f->first.tcp_off)];
			if (!g || g == f)
				return {nullptr, rf == 0};
			const int rg = predicted_of(seg, in, g);
			if (rg <= 0)
				return {nullptr, rf == 0 || (rg == 0 && g->held)};
			f = g;
		}
		last->after = f; // the hint for the next segment after last's
	}
	if ((e->flags & TGC_ENGINE_CALLER_HASH) && f->hash != seg->hash)
		return {nullptr, true};
	return {f, true};
}

// A free slot of the bucket, after completing its oldest flow when there is none.
Flow *slot_for(tgc_engine *e, u32 bucket)
{
	Flow *b = e->flows + static_cast<__SIZE_TYPE__>(bucket) * e->nflows, *oldest = b; // nflows >= 1 (init)
	for (u32 i = 0; i < e->nflows; i++) {
		if (!b[i].held)
			return &b[i];
		if (older(b[i].serial, oldest->serial))
			oldest = &b[i];
	}
	complete(e, oldest, TGC_DONE_EVICT);
	return oldest;
}

void hold(tgc_engine *e, const Rx &rx, const tgc_pkt &pkt)
{
	Flow *f = slot_for(e, rx.bucket);
	f->held = rx.cookie;
	f->hash = rx.hash;
	f->serial = e->serial++;
	f->age = rx.seg->time;
	f->total_len = pkt.payload_off + pkt.payload_len;
	f->payload_len = pkt.payload_len;
	f->count = pkt.gso_size ? pkt.gso_segs : 1;
	f->gso_size = static_cast<u16>(pkt.gso_size ? pkt.gso_size : pkt.payload_len);
	f->id_state = 0;
	f->tls = (rx.in & TGC_IN_TLS_STATE) != 0;
	f->bucket = static_cast<u8>(rx.bucket);
	f->after = f;
	if (e->last)
		e->last->after = f;
	e->last = f;
	f->first = pkt;
	__builtin_memcpy(f->hdr, rx.seg->hdr, pkt.payload_off); // payload_off <= TGC_MAX_HDR_BYTES (tgc_parse)
	pred_limits(*f);
	f->pred_in = (e->flags & TGC_ENGINE_NO_FASTPATH) ? kPredNever
							   : (rx.in & TGC_IN_TLS_STATE) | kPredLazy;
	remember(e, f);
	e->held_in[rx.bucket]++;
	if (++e->st.held_now > e->st.held_max)
		e->st.held_max = e->st.held_now;
}

// Completes the held flows of one bucket, oldest first; with @before, only those that arrived before it.
__attribute__((always_inline)) inline void flush_bucket(tgc_engine *e, u32 bucket, bool all, u32 before)
{
	Flow *b = e->flows + static_cast<__SIZE_TYPE__>(bucket) * e->nflows;
	while (u32 left = e->held_in[bucket]) {
		Flow *oldest = nullptr;
		// The scan stops at the bucket's last held packet (slot_for() fills the low slots first).
		for (Flow *f = b; left; f++) {
			if (!f->held)
				continue;
			left--;
			if ((all || older(f->age, before)) && (!oldest || older(f->serial, oldest->serial)))
				oldest = f;
		}
		if (!oldest)
			return;
		complete_flow(e, oldest, TGC_DONE_FLUSH);
	}
}

} // namespace

extern "C" u32 tgc_flow_hash(const tgc_pkt *pkt, const u8 *hdr)
{
	u32 h = 0x74750000u | pkt->encap;
	h = mix_l3(h, hdr);
	if (pkt->nlayers == 2)
		h = mix_l3(h, hdr + pkt->inner_off);
	h = mix(h, load32(hdr + pkt->tcp_off + tcp::kPorts));
	h ^= h >> 15;
	h *= 0x2c1b3c6du;
	return h ^ (h >> 12);
}

extern "C" u32 tgc_engine_size(u32 buckets, u32 flows)
{
	if (!buckets || (buckets & (buckets - 1)) || !flows || buckets > kMaxBuckets || flows > kMaxFlows)
		return 0;
	return align8(sizeof(tgc_engine)) + buckets * flows * static_cast<u32>(sizeof(Flow));
}

extern "C" tgc_engine *tgc_engine_init(void *mem, u32 size, u32 buckets, u32 flows, u32 flags,
				       const tgc_engine_ops *ops, void *ctx)
{
	const u32 need = tgc_engine_size(buckets, flows);
	// NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): an address's alignment, nothing dereferenced
	if (!mem || !need || size < need || (reinterpret_cast<__UINTPTR_TYPE__>(mem) & 7u) || !ops || !ops->append ||
	    !ops->complete || !ops->deliver)
		return nullptr;
	tgc_engine *e = static_cast<tgc_engine *>(mem);
	e->ops = ops;
	e->ctx = ctx;
	// NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the caller's memory carved into the table
	e->flows = reinterpret_cast<Flow *>(static_cast<u8 *>(mem) + align8(sizeof(tgc_engine)));
	e->buckets = buckets;
	e->nflows = flows;
	e->flags = flags;
	e->serial = 0;
	e->last = nullptr;
	e->st = tgc_engine_stats{};
	e->pred_merged = 0;
	for (Flow *&slot : e->recent)
		slot = nullptr;
	for (u16 &n : e->held_in)
		n = 0;
	for (u32 i = 0; i < buckets * flows; i++) {
		e->flows[i].held = nullptr;
		pred_off(&e->flows[i]);
	}
	return e;
}

namespace {

// tgc_engine_receive() but for a merge of the predicted stage. @p: the flow whose predicted segment
// @seg is, when the stage could not merge it: @retry, the caller's append failed; else the segment
// would take the packet to 64 KiB. Either is decided on the prediction's record, as the loop would
// decide it: the parse gives that record (the prediction is the fast stage's record of such a
// segment), find returns @p (the segment matches its template: one held packet per flow,
// EngineOps::expected()), and the TGC_IN_* bits are none of kPredRefuse (the lengths are exact: no
// outer flush; no DECRYPTED: pred_in holds the flow's TLS state).
__attribute__((noinline, flatten)) void receive_slow(tgc_engine *e, const tgc_seg *seg, void *cookie, tgc_rx_result *r_out,
					    Flow *p, bool retry, bool fast_stage)
{
	Rx rx{e, seg, cookie, seg->in, 0, 0, fast_stage};
	tgc_rx_result r;
	bool fast = false, decided = false;
	if (p) {
		// A failed append: decided again as one that may not merge, as append_stage() does
		// after the fast stage. The 64 KiB: decided as the full stage would (a MERGE, never
		// given, would take the loop).
		r.held = p;
		r.pkt = p->next;
		r.flags_off = 0;
		r.parsed = 1;
		r.retried = retry;
		r.located = r.foreign = 0;
		r.fast = r.pad = 0;
#ifdef __clang_analyzer__
		// decide() writes every field; clang's analyzer, past its budget in decide(), cannot see it (a store
		// for the analyzer only: the compilers that build the core never see it).
		r.v = tgc_verdict{};
#endif
		tgc_held held;
		::held_of(p, seg->in, &held);
		const u32 in = (seg->in & kDecideBits) | (retry ? TGC_IN_NOMERGE : 0);
		decide(&r.pkt, seg->hdr, &held, in, &r.v);
		rx.hash = p->hash;
		rx.bucket = p->bucket;
		decided = retry || r.v.action != TGC_MERGE;
		fast = retry;
		if (decided)
			e->last = p; // as rx_find leaves it
	}
	if (!decided) {
		EngineOps ops(&rx);
		fast = receive(seg, seg->in, e->flags & kParseIPv4Options, ops, &r);
	}
	if (fast) {
		e->st.fastpath += !r.retried; // a failed append made it a hold
		e->last = static_cast<Flow *>(r.held); // as rx_find leaves it
	}
	e->st.segs++;
	e->st.reasons[r.v.reason < TGC_R_COUNT ? r.v.reason : 0]++;
	if (r.retried)
		e->st.retried++;

	Flow *match = static_cast<Flow *>(r.held);
	r.held = match ? match->held : nullptr; // the caller's handle from here on
	const bool done = r.v.flush_held && match; // flush_held always comes with a match
	switch (r.v.action) {
	case TGC_MERGE:
		e->st.merged++;
		if (done)
			complete(e, match, TGC_DONE_FLOW);
		break;
	case TGC_HOLD:
		e->st.held++;
		if (done)
			complete(e, match, TGC_DONE_FLOW);
		hold(e, rx, r.pkt);
		break;
	default:
		e->st.passed++;
		if (done)
			complete(e, match, TGC_DONE_FLOW);
		e->ops->deliver(e->ctx, cookie, &r);
		break;
	}
	if (r_out)
		*r_out = r;
}

} // namespace

namespace {

// tgc_engine_receive() of one segment, inline in it and in tgc_engine_receive_burst()'s loop.
__attribute__((always_inline)) inline void receive_one(tgc_engine *e, const tgc_seg *seg, void *cookie,
						      tgc_rx_result *r_out)
{
	// The predicted stage (fastpath.hpp): a MERGE with the record written ahead, in the fewest instructions: only
	// the caller's op and the flow's own state are written, the result record only when the caller asks for it.
	const Predicted found = predicted_flow(e, seg);
	Flow *p = found.p;
	if (!p) {
		receive_slow(e, seg, cookie, r_out, nullptr, false, found.fast);
		return;
	}
	if (__builtin_expect(!pred_fits(*p), 0)) {
		receive_slow(e, seg, cookie, r_out, p, false, true);
		return;
	}
	{
		// The flow's merge record (h.pm) but for the bytes held so far; the flow is the
		// engine's, never the caller's, so its lengths are read again after the op.
		p->pm.held_len = p->total_len;
		if (e->ops->append(e->ctx, p->held, cookie, &p->pm) == 0) {
			// As rx_append and receive_slow()'s bookkeeping for a fast MERGE that leaves the packet open
			// (the flow's own: predicted_merged() below, after the result record reads the prediction).
			e->last = p;
			e->pred_merged++;
			if (r_out) {
				r_out->held = p->held;
				r_out->pkt = p->next;
				r_out->v = p->next_v;
				r_out->flags_off = p->pm.flags_off;
				r_out->parsed = 1;
				r_out->located = r_out->foreign = r_out->retried = 0;
				r_out->fast = r_out->pad = 0;
			}
			predicted_merged(*p);
			return;
		}
	}
	receive_slow(e, seg, cookie, r_out, p, true, true); // its append failed
}

} // namespace

extern "C" void tgc_engine_receive(tgc_engine *e, const tgc_seg *seg, void *cookie, tgc_rx_result *r_out)
{
	receive_one(e, seg, cookie, r_out);
}

extern "C" void tgc_engine_receive_burst(tgc_engine *e, const tgc_seg *segs, void *const *cookies, u32 n)
{
	for (u32 i = 0; i < n; i++)
		receive_one(e, &segs[i], cookies[i], nullptr);
}

extern "C" void tgc_engine_flush(tgc_engine *e)
{
	for (u32 b = 0; b < e->buckets && e->st.held_now; b++)
		if (e->held_in[b])
			flush_bucket(e, b, true, 0);
}

extern "C" void tgc_engine_flush_before(tgc_engine *e, u32 time)
{
	for (u32 b = 0; b < e->buckets && e->st.held_now; b++)
		if (e->held_in[b])
			flush_bucket(e, b, false, time);
}

extern "C" void tgc_engine_get_stats(const tgc_engine *e, tgc_engine_stats *s)
{
	*s = e->st;
	// The predicted stage counts its merges once (receive_one()); each is a segment, merged, by
	// a fast stage.
	s->segs += e->pred_merged;
	s->merged += e->pred_merged;
	s->fastpath += e->pred_merged;
	s->reasons[TGC_R_NONE] += e->pred_merged;
}
