/* conform.c - wire conformance: crafted frame trains from eth1 (sender namespace) by AF_PACKET, and what the
 * receiver's stack sees after GRO on eth0 (AF_PACKET with a virtio_net_hdr: gso_size, gso type).
 *
 * A delivered packet is mapped back to the sent segments it covers by (layer signature, source port, flow label,
 * TCP sequence range), so "got" lists, per flow and in delivery order, which segments each packet carried:
 * "1-2,3-6" = segments 1..2 in one packet, then 3..6 in one. Flows are shown as "fN:" when a case has several;
 * delivered frames that are ours but unparsable (truncated, bad IHL/doff) are counted as "x:N". A UDP datagram, or
 * each gso_size piece of a UDP GRO packet, is named by the seq in its payload; a packet whose datagrams are not
 * consecutive joins its runs with '+' ("1-2+4-8"). IPv4 options and IPv6 extension headers of a delivered packet
 * must be its first segment's.
 * Expected outcomes are written per case: tungro's from gro-cases.md, the kernel's from Linux 6.12's rules. Passes:
 * kernel (tungro not loaded) and tungro (loaded: the offload path) run every row; engine (eth0 attached) the rows
 * flagged CF_ENGINE, engine-noopt (a load with ipv4_options=0, O05) those flagged CF_O05.
 */
#include "agent.h"
#include "conform.h"
#include "frame.h"
#include "trains.h"

#include <arpa/inet.h>
#include <net/if.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef VIRTIO_NET_HDR_GSO_UDP_L4
#define VIRTIO_NET_HDR_GSO_UDP_L4 5   /* 6.12's uapi; the build host's headers may predate it */
#endif

int g_rxfd = -1;
int g_rxfd6 = -1;

struct ccase {
	const char *id;
	unsigned encs;                /* bit per enum encap */
	void (*build)(struct train *t, int enc);
	const char *want_kernel[N_ENC];   /* NULL entry: want_kernel[0] for every encap */
	const char *want_tungro[N_ENC];   /* NULL entry: same as the kernel's */
	const char *want_engine[N_ENC];   /* NULL entry: want_engine[0], or if that is NULL too the tungro one */
	unsigned flags;                   /* CF_* */
};

#define CF_ENGINE 1     /* run in the engine pass too (eth0 attached) */
#define CF_O05 2        /* run in the ipv4_options=0 engine pass (O05), wanting the kernel's outcome */
#define CF_UDPSOCK 4    /* a UDP_GRO socket listens on DPORT while the train runs */

/* the passes of the run: tungro not loaded, loaded (the offload path), eth0 attached (the engine path), attached
 * after a load with ipv4_options=0 */
enum { P_KERNEL, P_TUNGRO, P_ENGINE, P_NOOPT, N_PASS };
static const char *const g_pass_name[N_PASS] = { "kernel", "tungro", "engine", "engine-noopt" };

/* ---- trains ---- */

static struct sd *add(struct train *t, int enc, int flow)
{
	struct sd *d = &t->s[t->n++];
	sd_default(d, enc, flow);
	return d;
}

/* n default segments of one flow */
static void seg_n(struct train *t, int enc, int n)
{
	for (int i = 0; i < n; i++)
		add(t, enc, 0);
}

/* ---- delivered packet parsing ---- */

struct got {
	char flows[8][256];
	int x;
	int bad;                 /* length, checksum or gso_size inconsistencies */
	char why[160];
	int units;               /* sent frames accounted for */
};

static void note_bad(struct got *g, const char *fmt, const char *what, int v)
{
	if (!g->bad++)
		snprintf(g->why, sizeof(g->why), fmt, what, v);
}

static int ip4_ok(const unsigned char *h, int hl)
{
	return csum_fold(csum_add(0, h, (size_t)hl)) == 0;
}

/* What the layer walk found in a delivered frame: the layer signature a sent frame must have, and the header bytes
 * GRO must keep as the first segment's (IPv4 options, IPv6 extension headers: [a, b) in the frame). */
struct span {
	int a, b;
};
struct seen {
	int sig, ip4_layers, ip6_outer, v6;
	uint32_t flowlabel, oflowlabel;
	int ncmp;
	struct span cmp[16];
};

static void seen_cmp(struct seen *s, int a, int b)
{
	if (s->ncmp < (int)(sizeof(s->cmp) / sizeof(s->cmp[0])))
		s->cmp[s->ncmp++] = (struct span){ a, b };
}

/* d was sent with the layers s saw; nested tunnels have more IPv4 layers than their encap: match on the frame's
 * own nest depth */
static int sd_layers_match(const struct sd *d, const struct seen *s)
{
	int want_layers = (d->enc == E_IPIP ? 2 : d->enc == E_SIT || d->enc == E_P4 || d->enc == E_4IN6 ? 1 : 0) +
			  d->nest;
	return !d->junk && d->enc == s->sig && want_layers == s->ip4_layers &&
	       (!s->v6 || d->flowlabel == s->flowlabel) && (!s->ip6_outer || d->oflowlabel == s->oflowlabel);
}

/* A GRO packet carries its first segment's headers: options and extension headers as d0 sent them */
static void check_hdrs(struct got *g, const unsigned char *f, const struct sd *d0, const struct seen *s)
{
	static unsigned char sent[MAXFRAME];
	if (!s->ncmp)
		return;
	int sl = build_frame(d0, sent);
	for (int i = 0; i < s->ncmp; i++) {
		int a = s->cmp[i].a, b = s->cmp[i].b;
		if (b > sl || memcmp(f + a, sent + a, (size_t)(b - a))) {
			note_bad(g, "%s IPv4 options or IPv6 extension headers at byte %d differ from the first one's",
				 "delivered", a);
			return;
		}
	}
}

/* one packet of a flow in the got string: the segments' indices, ascending runs as "a-b", runs joined by '+'
 * when a packet is not contiguous (6.12's UDP GRO merges around a datagram it passed up) */
static void got_add(struct got *g, int flow, const int *idx, int n)
{
	char *fl = g->flows[flow];
	size_t used = strlen(fl), cap = sizeof(g->flows[0]);
	for (int i = 0; i < n && used < cap; i++) {
		int j = i;
		while (j + 1 < n && idx[j + 1] == idx[j] + 1)
			j++;
		const char *sep = i ? "+" : used ? "," : "";
		int w = i == j ? snprintf(fl + used, cap - used, "%s%d", sep, idx[i]) :
				 snprintf(fl + used, cap - used, "%s%d-%d", sep, idx[i], idx[j]);
		used += w > 0 ? (size_t)w : 0;
		i = j;
	}
}

/* A UDP datagram or UDP GRO packet (l4 to end): each gso_size piece of its payload is one sent datagram, named by
 * the seq in its first bytes */
static void account_udp(const struct train *t, const struct virtio_net_hdr *vh, const unsigned char *f,
			const unsigned char *l4, const unsigned char *end, const struct seen *s, struct got *g)
{
	int sport = (int)get16(l4), n = (int)(end - l4) - 8, gso = 0, idx[MAXSEG], k = 0, d0 = -1;
	const unsigned char *pl = l4 + 8;
	if (vh->gso_type != VIRTIO_NET_HDR_GSO_NONE) {
		if ((vh->gso_type & 0x7f) != VIRTIO_NET_HDR_GSO_UDP_L4)
			note_bad(g, "%s UDP packet gso_type %d", "delivered", vh->gso_type);
		gso = vh->gso_size;
	}
	if ((int)get16(l4 + 4) != n + 8)
		note_bad(g, "%s UDP length field %d is not the datagram's", "delivered", (int)get16(l4 + 4));
	for (int off = 0; off < n && k < MAXSEG;) {
		int cl = gso && gso < n - off ? gso : n - off, i = 0;
		uint32_t seq = cl >= 4 ? get32(pl + off) : 0;
		for (; i < t->n; i++) {
			const struct sd *d = &t->s[i];
			if (d->udp && d->seq == seq && SPORT0 + d->portf == sport && sd_layers_match(d, s))
				break;
		}
		if (i == t->n) {
			note_bad(g, "%s UDP datagram of %d bytes matches no sent one", "delivered", cl);
			break;
		}
		const struct sd *d = &t->s[i];
		if (cl != d->pay)
			note_bad(g, "%s UDP datagram of %d bytes: another length was sent", "delivered", cl);
		for (int j = 4; j < cl; j++)
			if (pl[off + j] != dgram_byte(d->flow, seq, j)) {
				note_bad(g, "%s UDP payload byte %d differs from what was sent", "delivered", j);
				break;
			}
		if (d0 < 0)
			d0 = i;
		else if (d->flow != t->s[d0].flow)
			note_bad(g, "%s UDP GRO packet of two flows (datagram %d)", "delivered", d->idx);
		idx[k++] = d->idx;
		off += cl;
	}
	if (d0 < 0) {
		g->x++;
		g->units++;
		return;
	}
	if (k > 1 && gso != t->s[d0].pay)
		note_bad(g, "%s UDP GRO packet gso_size %d", "delivered", gso);
	check_hdrs(g, f, &t->s[d0], s);
	got_add(g, t->s[d0].flow, idx, k);
	g->units += k;
}

/* Maps one received frame (after its virtio_net_hdr) to the train. Returns 0 if not ours. */
static int account(const struct train *t, const struct virtio_net_hdr *vh, const unsigned char *f, int len,
		   struct got *g)
{
	if (len < 14)
		return 0;
	unsigned et = get16(f + 12);
	const unsigned char *p = f + 14, *end = f + len;
	int proto = -1, junk = 0, next;
	struct seen s = { 0 };
	const unsigned char *l4 = NULL, *l4end = end;

	if (et == ETH_P_IPV6) {
		if (end - p < 40 || (memcmp(p + 8, A6_SRC, 16) && memcmp(p + 8, A6O_SRC, 16)))
			return 0;
		next = 6;
	} else if (et == ETH_P_IP) {
		if (end - p < 20 || (memcmp(p + 12, A_OUT_SRC, 4) && memcmp(p + 12, A_IN_SRC, 4)))
			return 0;
		next = 4;
	} else {
		return 0;
	}
	/* walk the IP layers (tunnels, nested ones included) down to the transport: IPv4 ones with their options, the
	 * outer IPv6 of an ip6 tunnel (from A6O_SRC) and an inner IPv6 (from A6_SRC, the last one), each with its
	 * extension headers */
	while (next) {
		if (next == 4) {
			if (end - p < 20) { junk = 1; break; }
			int ihl = (p[0] & 15) * 4;
			if ((p[0] >> 4) != 4 || ihl < 20 || end - p < ihl) { junk = 1; break; }
			if (!ip4_ok(p, ihl))
				note_bad(g, "%s IPv4 header checksum wrong%.0d", "delivered", 0);
			if (ihl > 20) {
				seen_cmp(&s, (int)(p - f), (int)(p - f) + 1);
				seen_cmp(&s, (int)(p - f) + 20, (int)(p - f) + ihl);
			}
			unsigned tot = get16(p + 2);
			if ((int)tot < end - p)
				l4end = p + tot;   /* padding or the trailing part of a frame: not payload */
			s.ip4_layers++;
			proto = p[9];
			p += ihl;
		} else {
			if (end - p < 40) { junk = 1; break; }
			int outer = !memcmp(p + 8, A6O_SRC, 16);
			unsigned pl = get16(p + 4);
			if ((int)(pl + 40) < end - p)
				l4end = p + 40 + pl;
			if (outer) {
				s.ip6_outer++;
				s.oflowlabel = get32(p) & 0xfffff;
			} else {
				s.v6 = 1;
				s.flowlabel = get32(p) & 0xfffff;
			}
			proto = p[6];
			p += 40;
			/* hop-by-hop, destination options (the encapsulation limit of an outer one), routing, fragment */
			const unsigned char *x = p;
			while (proto == 60 || proto == 0 || proto == 43 || proto == 44) {
				int xl = proto == 44 ? 8 : end - p >= 2 ? (p[1] + 1) * 8 : 8;
				if (end - p < xl) { junk = 1; break; }
				proto = p[0];
				p += xl;
			}
			if (!junk && p > x)
				seen_cmp(&s, (int)(x - f), (int)(p - f));
			if (junk || !outer)
				break;
		}
		next = proto == 4 ? 4 : proto == 41 ? 6 : 0;
	}
	if (l4end < end)
		end = l4end;
	s.sig = s.ip6_outer ? (s.v6 ? E_6IN6 : E_4IN6) :
		s.v6 ? (s.ip4_layers ? E_SIT : E_P6) : (s.ip4_layers > 1 ? E_IPIP : E_P4);
	uint32_t seq = 0, ack = 0;
	int pay = 0, icmp_idx = -1;
	if (!junk) {
		l4 = p;
		if (proto == 6) {
			if (end - l4 < 20 || (l4[12] >> 4) < 5 || end - l4 < (l4[12] >> 4) * 4 || get16(l4 + 2) != DPORT)
				junk = 1;
			else {
				seq = get32(l4 + 4);
				ack = get32(l4 + 8);
				pay = (int)(end - l4) - (l4[12] >> 4) * 4;
			}
		} else if (proto == 17) {
			if (end - l4 < 8 || get16(l4 + 2) != DPORT)
				junk = 1;
		} else if (proto == 1 || proto == 58) {
			if (end - l4 < 8)
				junk = 1;
			else
				icmp_idx = (int)get16(l4 + 6);
		} else {
			junk = 1;
		}
	}
	if (junk) {
		g->x++;
		g->units++;
		return 1;
	}
	if (proto == 17) {
		account_udp(t, vh, f, l4, end, &s, g);
		return 1;
	}
	int sport = proto == 6 ? (int)get16(l4) : -1;
	int first = -1, last = -1;
	uint32_t covered = 0;
	for (int i = 0; i < t->n; i++) {
		const struct sd *d = &t->s[i];
		if (d->udp || !sd_layers_match(d, &s))
			continue;
		if (icmp_idx >= 0) {
			if (d->icmp && d->idx == icmp_idx) { first = last = i; break; }
			continue;
		}
		if (d->icmp || SPORT0 + d->portf != sport)
			continue;
		if (first < 0) {
			/* a pure ACK shares its sequence number with the next data segment */
			if (d->seq == seq && (pay == 0) == (d->pay == 0) && (pay || d->ack == ack)) {
				first = last = i;
				covered = (uint32_t)d->pay;
				if (covered >= (uint32_t)pay)
					break;
			}
		} else if (d->seq == seq + covered && d->pay > 0) {
			last = i;
			covered += (uint32_t)d->pay;
			if (covered >= (uint32_t)pay)
				break;
		}
	}
	if (first < 0) {
		note_bad(g, "%s packet matches no sent segment (len %d)", "delivered", pay);
		g->x++;
		g->units++;
		return 1;
	}
	const struct sd *d0 = &t->s[first];
	int nseg = 0;
	for (int i = first; i <= last; i++)
		if (t->s[i].flow == d0->flow && t->s[i].enc == d0->enc && !t->s[i].junk && !t->s[i].icmp)
			nseg++;
	if (icmp_idx >= 0)
		nseg = 1;
	if (proto == 6 && covered != (uint32_t)pay)
		note_bad(g, "%s payload length %d does not end on a segment", "delivered", pay);
	for (int i = 0; proto == 6 && i < pay; i++)
		if (l4[(l4[12] >> 4) * 4 + i] != pay_byte(d0->flow, seq + (uint32_t)i)) {
			note_bad(g, "%s payload byte %d differs from what was sent", "delivered", i);
			break;
		}
	if (nseg > 1) {
		/* a GRO packet: the vnet header must describe it */
		unsigned want_type = s.v6 ? VIRTIO_NET_HDR_GSO_TCPV6 : VIRTIO_NET_HDR_GSO_TCPV4;
		if ((vh->gso_type & 0x7f) != want_type)
			note_bad(g, "%s GRO packet gso_type %d", "delivered", vh->gso_type);
		if (vh->gso_size != d0->pay)
			note_bad(g, "%s GRO packet gso_size %d", "delivered", vh->gso_size);
	}
	check_hdrs(g, f, d0, &s);
	char *fl = g->flows[d0->flow];
	size_t used = strlen(fl);
	int a = d0->idx, z = icmp_idx >= 0 ? a : t->s[last].idx;
	snprintf(fl + used, sizeof(g->flows[0]) - used, a == z ? "%s%d" : "%s%d-%d", used ? "," : "", a, z);
	g->units += nseg;
	return 1;
}

static void got_string(const struct got *g, int nflows, char *buf, size_t cap)
{
	size_t len = 0;
	buf[0] = 0;
	for (int f = 0; f < nflows; f++) {
		int n = snprintf(buf + len, cap - len, "%s%s%s%s", len ? " " : "", nflows > 1 ? "f" : "",
				 nflows > 1 ? (const char[]){ (char)('0' + f), ':', 0 } : "",
				 g->flows[f][0] ? g->flows[f] : "-");
		if (n < 0 || (size_t)n >= cap - len)
			return;
		len += (size_t)n;
	}
	if (g->x)
		snprintf(buf + len, cap - len, "%sx:%d", len ? " " : "", g->x);
}

/* ---- one train through the wire ---- */

unsigned g_quiet_ms = 400;

static void drain(void)
{
	static unsigned char buf[70000];
	while (recv(g_rxfd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
	while (g_rxfd6 >= 0 && recv(g_rxfd6, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
}

int run_train(const struct train *t, char *got, size_t cap, char *why, size_t whycap)
{
	static unsigned char rbuf[70000 + sizeof(struct virtio_net_hdr)];
	struct got g;
	int nflows = 0, units = t->n, rc;

	memset(&g, 0, sizeof(g));
	for (int i = 0; i < t->n; i++)
		if (t->s[i].flow + 1 > nflows)
			nflows = t->s[i].flow + 1;
	drain();
	if ((rc = frames_send(t->s, t->n))) {
		snprintf(why, whycap, "sendmmsg: %s", strerror(-rc));
		return -1;
	}
	uint64_t last = now_us(), done = 0;
	/* a train has one ethertype: the order of what the two sockets get does not mix */
	struct pollfd p[2] = { { .fd = g_rxfd, .events = POLLIN }, { .fd = g_rxfd6, .events = POLLIN } };
	for (;;) {
		if (g.units >= units && !done)
			done = now_us();
		/* once all is there, a short look for anything extra (a duplicate, a split we did not expect) */
		if (done && now_us() - done > 30000)
			break;
		int r = poll(p, g_rxfd6 >= 0 ? 2 : 1, done ? 10 : 50);
		if (r <= 0) {
			if (!done && now_us() - last > (uint64_t)g_quiet_ms * 1000u)
				break;
			continue;
		}
		for (int k = 0; k < 2; k++) {
			if (!(p[k].revents & POLLIN))
				continue;
			struct sockaddr_ll from;
			socklen_t fl = sizeof(from);
			ssize_t n = recvfrom(p[k].fd, rbuf, sizeof(rbuf), MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
			if (n < (ssize_t)sizeof(struct virtio_net_hdr) || from.sll_pkttype != PACKET_HOST)
				continue;
			struct virtio_net_hdr vh;
			memcpy(&vh, rbuf, sizeof(vh));
			if (account(t, &vh, rbuf + sizeof(vh), (int)(n - (ssize_t)sizeof(vh)), &g))
				last = now_us();
		}
	}
	got_string(&g, nflows, got, cap);
	if (g.units != units)
		snprintf(why, whycap, "%d of %d sent frames seen", g.units, units);
	else if (g.bad)
		snprintf(why, whycap, "%s", g.why);
	else
		why[0] = 0;
	return 0;
}

/* ---- the cases ---- */

/* issue 8's 16 x 16 train on the wire, kernel GRO vs engine: trains per engine (trains.c) */
#define TRAIN16_ROUNDS 6

#define FROM(i, k) ((i) + 1 >= (k))   /* segment i (0-based) is at or after segment k (1-based) */

static void b_data4(struct train *t, int e) { seg_n(t, e, 4); }
static void b_data8(struct train *t, int e) { seg_n(t, e, 8); }
static void b_small_end(struct train *t, int e) { seg_n(t, e, 4); t->s[3].pay = 300; }
static void b_small_first(struct train *t, int e) { seg_n(t, e, 2); t->s[0].pay = 700; }
static void b_two_acks(struct train *t, int e) { seg_n(t, e, 2); t->s[0].pay = t->s[1].pay = 0; t->s[1].ack += 1400; }
static void b_pure_ack(struct train *t, int e)
{
	seg_n(t, e, 5);
	t->s[2].pay = 0;
}
static void flag_at(struct train *t, int e, int n, int at, unsigned fl)
{
	seg_n(t, e, n);
	t->s[at - 1].tflags |= fl;
}
static void b_psh(struct train *t, int e) { flag_at(t, e, 4, 2, 0x08); }
static void b_syn(struct train *t, int e) { flag_at(t, e, 4, 3, 0x02); }
static void b_rst(struct train *t, int e) { flag_at(t, e, 4, 3, 0x04); }
static void b_urg(struct train *t, int e) { flag_at(t, e, 4, 3, 0x20); }
static void b_fin(struct train *t, int e) { flag_at(t, e, 4, 3, 0x01); }
static void b_cwr(struct train *t, int e) { flag_at(t, e, 4, 3, 0x80); }
static void b_badcsum(struct train *t, int e) { seg_n(t, e, 4); t->s[1].badcsum = 1; }
static void b_seqgap(struct train *t, int e) { seg_n(t, e, 6); t->s[2].seq_gap = MSS; }
static void b_ts_same(struct train *t, int e)
{
	seg_n(t, e, 4);
	for (int i = 0; i < 4; i++) { t->s[i].ts = 1; t->s[i].tsval = 777; t->s[i].pay = MSS - 12; }
}
static void b_ts_change(struct train *t, int e)
{
	b_ts_same(t, e);
	for (int i = 2; i < 4; i++)
		t->s[i].tsval = 778;
}
static void b_ack_change(struct train *t, int e) { seg_n(t, e, 4); for (int i = 2; i < 4; i++) t->s[i].ack += 100; }
static void b_win_change(struct train *t, int e) { seg_n(t, e, 4); for (int i = 2; i < 4; i++) t->s[i].win = 600; }
static void b_larger(struct train *t, int e) { seg_n(t, e, 6); t->s[2].pay = MSS + 20; }
static void b_smaller(struct train *t, int e) { seg_n(t, e, 6); t->s[2].pay = 700; }
static void b_ttl(struct train *t, int e) { seg_n(t, e, 6); for (int i = 0; i < 6; i++) if (FROM(i, 3)) t->s[i].ttl = 63; }
static void b_tos(struct train *t, int e) { seg_n(t, e, 6); for (int i = 0; i < 6; i++) if (FROM(i, 4)) t->s[i].tos = 0x10; }
static void b_ecn(struct train *t, int e) { seg_n(t, e, 6); for (int i = 0; i < 6; i++) if (FROM(i, 4)) t->s[i].tos = 0x03; }
static void b_df(struct train *t, int e) { seg_n(t, e, 4); for (int i = 1; i < 4; i++) t->s[i].df = 0; }
static void ids(struct train *t, int e, int df, const int *v, int n)
{
	seg_n(t, e, n);
	for (int i = 0; i < n; i++) { t->s[i].df = df; t->s[i].id = v[i]; }
}
static void b_l05(struct train *t, int e) { ids(t, e, 0, (const int[]){ 100, 101, 102, 103 }, 4); }
static void b_l06(struct train *t, int e) { ids(t, e, 0, (const int[]){ 100, 101, 103, 104 }, 4); }
static void b_l07(struct train *t, int e) { ids(t, e, 1, (const int[]){ 5, 5, 5, 5 }, 4); }
static void b_l08(struct train *t, int e) { ids(t, e, 1, (const int[]){ 5, 5, 6 }, 3); }
static void b_l09(struct train *t, int e) { ids(t, e, 1, (const int[]){ 5, 6, 6 }, 3); }
static void b_l12(struct train *t, int e) { ids(t, e, 0, (const int[]){ 9, 9, 9, 9 }, 4); }
static void b_ihl6(struct train *t, int e) { seg_n(t, e, 4); for (int i = 0; i < 4; i++) t->s[i].ihl = 6; }
static void b_frag(struct train *t, int e) { seg_n(t, e, 4); t->s[1].mf = 1; }
static void b_hlim(struct train *t, int e) { seg_n(t, e, 4); for (int i = 1; i < 4; i++) t->s[i].ttl = 63; }
static void b_tclass(struct train *t, int e) { seg_n(t, e, 4); for (int i = 1; i < 4; i++) t->s[i].tos = 0x20; }
static void b_flowlabel(struct train *t, int e)
{
	for (int i = 0; i < 6; i++) {
		struct sd *d = add(t, e, i & 1);
		d->flowlabel = i & 1 ? 0x12345 : 0;
		d->portf = 0;
	}
}
static void b_large(struct train *t, int e) { seg_n(t, e, 50); }
static void b_ottl(struct train *t, int e) { seg_n(t, e, 6); for (int i = 0; i < 6; i++) if (FROM(i, 3)) t->s[i].ottl = 63; }
static void b_otos(struct train *t, int e) { seg_n(t, e, 6); for (int i = 0; i < 6; i++) if (FROM(i, 4)) t->s[i].otos = 0x02; }
static void b_t02(struct train *t, int e) { seg_n(t, e, 8); for (int i = 0; i < 8; i++) { t->s[i].odf = 0; t->s[i].oid = 7 + i; } }
static void b_l10(struct train *t, int e)
{
	seg_n(t, e, 3);
	for (int i = 0; i < 3; i++) { t->s[i].odf = 0; t->s[i].oid = 100 + i; t->s[i].id = 5; }
}
static void b_l11(struct train *t, int e)
{
	static const int v[3] = { 9, 4711, 3 };
	seg_n(t, e, 3);
	for (int i = 0; i < 3; i++)
		t->s[i].oid = v[i];
}
static void b_t04(struct train *t, int e) { for (int i = 0; i < 12; i++) add(t, e, i & 1); }
static void b_t05(struct train *t, int e)
{
	/* the same inner addresses and ports, with and without the tunnel */
	for (int i = 0; i < 8; i++)
		add(t, i & 1 ? (e == E_SIT ? E_P6 : E_P4) : e, i & 1)->portf = 0;
}
static void b_ihl4(struct train *t, int e) { seg_n(t, e, 4); for (int i = 0; i < 4; i++) { t->s[i].ihl = 4; t->s[i].junk = 1; } }
static void b_m02(struct train *t, int e) { seg_n(t, e, 4); t->s[1].otot_delta = 200; }
static void b_m03(struct train *t, int e) { seg_n(t, e, 4); t->s[3].pay = 100; t->s[3].pad = 20; }
static void b_doff4(struct train *t, int e)
{
	seg_n(t, e, 4);
	struct sd *j = add(t, e, 0);
	*j = t->s[1];
	j->doff = 4;
	j->junk = 1;
	/* the junk frame goes between segments 1 and 2 and carries segment 2's bytes */
	struct sd tmp = t->s[4];
	memmove(&t->s[2], &t->s[1], 3 * sizeof(tmp));
	t->s[1] = tmp;
}
static void b_doff15(struct train *t, int e)
{
	b_doff4(t, e);
	t->s[1].doff = 15;
	t->s[1].pay = 20;
}
static void b_nest1(struct train *t, int e) { seg_n(t, e, 4); for (int i = 0; i < 4; i++) t->s[i].nest = 1; }
static void b_nest15(struct train *t, int e)
{
	seg_n(t, e, 4);
	for (int i = 0; i < 4; i++) { t->s[i].nest = 15; t->s[i].pay = 800; }
}
static void b_m07(struct train *t, int e)
{
	seg_n(t, e, 4);
	struct sd *j = add(t, e, 0);
	j->junk = 1;
	j->trunc = 14 + 20 + 10;
	j->otot_delta = 0;
	struct sd tmp = *j;
	memmove(&t->s[3], &t->s[2], 2 * sizeof(tmp));
	t->s[2] = tmp;
}
static void b_m08(struct train *t, int e)
{
	for (int i = 0; i < 7; i++) {
		struct sd *d = add(t, e, i & 1);
		if (i & 1) { d->icmp = 1; d->pay = 56; }
	}
}

/* issue 9's ip6 tunnels: an outer IPv6 header. The "encap_limit" trains carry the 8-byte destination option Linux ip6
 * tunnels add, and so do the X03/X04 trains, as they arrive from a Linux ip6 tunnel. An 8-byte outer extension
 * header takes 8 bytes of ip6ip6's payload, as the tunnel's MTU (1452) does: 1500 bytes on the wire. */
static void outer_ext(struct train *t, int oext)
{
	for (int i = 0; i < t->n; i++) {
		t->s[i].oext = oext;
		if (t->s[i].enc == E_6IN6)
			t->s[i].pay = MSS - 8;
	}
}
static void enclim(struct train *t) { outer_ext(t, OX_ENCLIM); }
static void b_x8_enclim(struct train *t, int e) { seg_n(t, e, 8); enclim(t); }
static void b_x03_hlim(struct train *t, int e)
{
	b_x8_enclim(t, e);
	for (int i = 0; i < 8; i++) if (FROM(i, 3)) t->s[i].ottl = 63;
}
static void b_x03_tclass(struct train *t, int e)
{
	b_x8_enclim(t, e);
	for (int i = 0; i < 8; i++) if (FROM(i, 3)) t->s[i].otos = 0x20;
}
static void b_x04(struct train *t, int e)
{
	/* the same inner addresses and ports; only the outer flow label tells the flows apart */
	for (int i = 0; i < 12; i++) {
		struct sd *d = add(t, e, i & 1);
		d->portf = 0;
		d->oflowlabel = i & 1 ? 0xbeef : 0;
	}
	enclim(t);
}
static void b_x07(struct train *t, int e) { seg_n(t, e, 4); outer_ext(t, OX_FRAG); }
static void b_x08(struct train *t, int e) { seg_n(t, e, 4); for (int i = 0; i < 4; i++) t->s[i].nest = 1; }

/* inner IPv6 extension headers inside SIT: X05's destination options (16 bytes: PadN, then an option to skip of
 * 6 value bytes), X06's hop-by-hop (8 bytes: PadN) */
static void v6ext(struct train *t, int units, int type)
{
	for (int i = 0; i < t->n; i++) {
		t->s[i].v6ext = units;
		t->s[i].v6ext_type = type;
	}
}
static void b_x05(struct train *t, int e) { seg_n(t, e, 8); v6ext(t, 2, 0); }
static void b_x05_change(struct train *t, int e)
{
	b_x05(t, e);
	/* the last value byte of the option to skip, from segment 4 on */
	for (int i = 3; i < 8; i++)
		t->s[i].mut[0] = (struct fmut){ ML_IN, MM_SET8, 0, 40 + 15, 0x52 };
}
static void b_x06(struct train *t, int e) { seg_n(t, e, 8); v6ext(t, 1, V6X_HOP); }

/* IPv4 options, real bytes (frame.c): in the inner or only IPv4 header (OPT_IN), the outer one (OPT_OUT) */
#define OPT_IN 1u
#define OPT_OUT 2u
static void opt_put(struct sd *d, unsigned where, const unsigned char *o, int n)
{
	if (where & OPT_IN) {
		memcpy(d->opt, o, (size_t)n);
		d->optlen = n;
	}
	if (where & OPT_OUT) {
		memcpy(d->oopt, o, (size_t)n);
		d->ooptlen = n;
	}
}
static void o_train(struct train *t, int e, unsigned where)
{
	seg_n(t, e, 8);
	for (int i = 0; i < 8; i++)
		opt_put(&t->s[i], where, g_dsr_option, sizeof(g_dsr_option));
}
static void b_o_inner(struct train *t, int e) { o_train(t, e, OPT_IN); }
static void b_o_outer(struct train *t, int e) { o_train(t, e, OPT_OUT); }
static void b_o_both(struct train *t, int e) { o_train(t, e, OPT_IN | OPT_OUT); }
static void b_o_change(struct train *t, int e)
{
	o_train(t, e, OPT_IN);
	for (int i = 3; i < 8; i++)
		t->s[i].opt[7] = 0x52;
}
/* O06: one flow of 4 segments per kind of the deny-list, each kind on every segment of its flow */
static void o06(struct train *t, int e, unsigned where)
{
	for (int k = 0; k < N_IPOPT_DENY; k++)
		for (int i = 0; i < 4; i++)
			opt_put(add(t, e, k), where, g_ipopt_deny[k].b, g_ipopt_deny[k].len);
}
static void b_o06_inner(struct train *t, int e) { o06(t, e, OPT_IN); }
static void b_o06_outer(struct train *t, int e) { o06(t, e, OPT_OUT); }

/* UDP (U cases): 8 datagrams of 1200 bytes of one flow */
#define UDP_PAY 1200
static void u_n(struct train *t, int e)
{
	for (int i = 0; i < 8; i++) {
		struct sd *d = add(t, e, 0);
		d->udp = 1;
		d->pay = UDP_PAY;
	}
}
static void b_u03(struct train *t, int e) { u_n(t, e); for (int i = 2; i < 8; i++) t->s[i].ttl = 63; }
static void b_u04_shorter(struct train *t, int e) { u_n(t, e); t->s[3].pay = 600; }
static void b_u04_longer(struct train *t, int e) { u_n(t, e); t->s[3].pay = 1300; }
static void b_u05(struct train *t, int e) { u_n(t, e); t->s[2].udp_csum0 = 1; }
/* a fixed ID with DF, as Linux sends unconnected UDP */
static void b_u05_fixed_id(struct train *t, int e) { b_u05(t, e); for (int i = 0; i < 8; i++) t->s[i].id = 0; }

#define B4 (1u << E_P4)
#define B6 (1u << E_P6)
#define BI (1u << E_IPIP)
#define BS (1u << E_SIT)
#define BALL (B4 | B6 | BI | BS)
#define BV4 (B4 | BI)     /* an IPv4 innermost header */
#define BV6 (B6 | BS)
#define BTUN (BI | BS)
#define B46 (1u << E_4IN6)
#define B66 (1u << E_6IN6)
#define BX6 (B46 | B66)   /* an outer IPv6 header */
#define BU (B4 | BI | BS)  /* UDP: plain IPv4, IPIP, SIT */

#define S8 "1,2,3,4,5,6,7,8"
#define S4 "1,2,3,4"
#define F6X4 "f0:" S4 " f1:" S4 " f2:" S4 " f3:" S4 " f4:" S4 " f5:" S4

/* a row names the fields up to the last it uses; those after it are zero (none), as kernel C tables are written */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
static const struct ccase g_cases[] = {
	/* selftest-style categories, every encap */
	{ "data_same", BALL, b_data4, { "1-4" }, { 0 } },
	{ "data_small_end", BALL, b_small_end, { "1-4" }, { 0 } },
	{ "data_small_first", BALL, b_small_first, { "1,2" }, { 0 } },
	{ "ack_pure2", BALL, b_two_acks, { "1,2" }, { 0 } },
	{ "ack_P04", BALL, b_pure_ack, { "1-2,3,4-5" }, { 0 } },
	{ "flags_psh_P01", BALL, b_psh, { "1-2,3-4" }, { 0 } },
	{ "flags_syn_P02", BALL, b_syn, { "1-2,3,4" }, { 0 } },
	{ "flags_rst_P02", BALL, b_rst, { "1-2,3,4" }, { 0 } },
	{ "flags_urg_P02", BALL, b_urg, { "1-2,3,4" }, { 0 } },
	{ "flags_fin", BALL, b_fin, { "1-3,4" }, { 0 } },
	{ "flags_cwr_P03", BALL, b_cwr, { "1-2,3-4" }, { 0 } },
	/* 6.12 delivers the bad segment before the held packet (reordered); tungro completes the held one first */
	{ "tcp_csum_P12", BALL, b_badcsum, { "2,1,3-4" }, { [E_IPIP] = "1,2,3-4", [E_SIT] = "1,2,3-4" } },
	{ "tcp_seq_P08", BALL, b_seqgap, { "1-2,3-6" }, { 0 } },
	{ "tcp_ts_same_P07", BALL, b_ts_same, { "1-4" }, { 0 } },
	{ "tcp_ts_change_P07", BALL, b_ts_change, { "1-2,3-4" }, { 0 } },
	{ "tcp_ack_P05", BALL, b_ack_change, { "1-2,3-4" }, { 0 } },
	{ "tcp_win_P06", BALL, b_win_change, { "1-2,3-4" }, { 0 } },
	{ "tcp_larger_P09", BALL, b_larger, { "1-2,3-4,5-6" }, { 0 } },
	{ "tcp_smaller_P10", BALL, b_smaller, { "1-3,4-6" }, { 0 } },
	{ "ip_ttl_L01", BALL, b_ttl, { "1-2,3-6" }, { 0 } },
	{ "ip_tos_L03", BALL, b_tos, { "1-3,4-6" }, { 0 } },
	{ "ip_ecn_L03", BALL, b_ecn, { "1-3,4-6" }, { 0 } },
	{ "ip_df_L04", BV4, b_df, { "1,2-4" }, { 0 } },
	{ "ip_id_inc_L05", BV4, b_l05, { "1-4" }, { 0 } },
	{ "ip_id_gap_L06", BV4, b_l06, { "1-2,3-4" }, { 0 } },
	{ "ip_id_fixed_L07", BV4, b_l07, { "1-4" }, { 0 } },
	{ "ip_id_fixed_then_inc_L08", BV4, b_l08, { "1-2,3" }, { 0 } },
	{ "ip_id_inc_then_fixed_L09", BV4, b_l09, { "1-2,3" }, { 0 } },
	/* L12: 6.18 merges a fixed ID with DF 0; plain IPv4 is the kernel's own GRO in both engines */
	{ "ip_id_fixed_df0_L12", BV4, b_l12, { "1,2,3,4" }, { [E_IPIP] = "1-4" } },
	{ "ip_options_M01", BV4, b_ihl6, { "1,2,3,4" }, { 0 } },
	{ "ip_frag_M05", BV4, b_frag, { "2,1,3-4" }, { 0 } },
	{ "ip6_hlim_L13", BV6, b_hlim, { "1,2-4" }, { 0 } },
	{ "ip6_tclass_L13", BV6, b_tclass, { "1,2-4" }, { 0 } },
	{ "ip6_flowlabel_L14", BV6, b_flowlabel, { "f0:1-3 f1:1-3" }, { 0 } },
	{ "large_P11", BALL, b_large, { "1-46,47-50" }, { 0 } },
	/* tunnel-specific */
	{ "T01_ipip8", BI, b_data8, { "1-8" }, { 0 } },
	{ "T02_outer_df0_inc", BS | BI, b_t02, { "1-8" }, { 0 } },
	{ "T03_sit_fixed", BS, b_data8, { "1-8" }, { 0 } },
	{ "T04_two_flows", BTUN, b_t04, { "f0:1-6 f1:1-6" }, { 0 } },
	{ "T05_tunnel_vs_plain", BTUN, b_t05, { "f0:1-4 f1:1-4" }, { 0 } },
	{ "L02_outer_ttl", BTUN, b_ottl, { "1-2,3-6" }, { 0 } },
	{ "L03_outer_tos", BTUN, b_otos, { "1-3,4-6" }, { 0 } },
	/* L10: 6.12 keeps one fixed-ID bit for both layers (2 then 1); SIT's inner IPv6 has no ID */
	{ "L10_outer_inc_inner_fixed", BTUN, b_l10, { [E_IPIP] = "1-2,3", [E_SIT] = "1-3" },
	  { [E_IPIP] = "1-3", [E_SIT] = "1-3" } },
	/* L11: 6.12 ignores the outer ID with DF 1 */
	{ "L11_outer_df1_random_id", BTUN, b_l11, { "1-3" }, { [E_IPIP] = "1,2,3", [E_SIT] = "1,2,3" } },
	{ "M01_inner_ihl4", BI, b_ihl4, { "- x:4" }, { 0 } },
	{ "M02_outer_totlen_long", BTUN, b_m02, { "1,2,3-4" }, { 0 } },
	{ "M03_padding", BALL, b_m03, { "1-3,4" }, { 0 } },
	{ "M04_doff4", BALL, b_doff4, { "1-4 x:1" }, { 0 } },
	{ "M04_doff_past_end", BALL, b_doff15, { "1-4 x:1" }, { 0 } },
	{ "M06_ipip_in_ipip", BTUN, b_nest1, { "1,2,3,4" }, { 0 } },
	{ "M06_16_layers", BTUN, b_nest15, { "1,2,3,4" }, { 0 } },
	{ "M07_truncated_inner", BTUN, b_m07, { "1-4 x:1" }, { 0 } },
	{ "M08_icmp_inside", BTUN, b_m08, { "f0:1-4 f1:1,2,3" }, { 0 } },
	/* ip6 tunnels (6.12: ip4ip6_gro_receive, ip6ip6_gro_receive past ipv6_gro_pull_exthdrs) */
	{ "X01_ip4ip6_8", B46, b_data8, { "1-8" }, { 0 }, { 0 }, CF_ENGINE },
	{ "X01_ip4ip6_8_encap_limit", B46, b_x8_enclim, { "1-8" }, { 0 }, { 0 }, CF_ENGINE },
	{ "X02_ip6ip6_8", B66, b_data8, { "1-8" }, { 0 }, { 0 }, CF_ENGINE },
	{ "X02_ip6ip6_8_encap_limit", B66, b_x8_enclim, { "1-8" }, { 0 }, { 0 }, CF_ENGINE },
	{ "X03_outer_hlim", BX6, b_x03_hlim, { "1-2,3-8" }, { 0 }, { 0 }, CF_ENGINE },
	{ "X03_outer_tclass", BX6, b_x03_tclass, { "1-2,3-8" }, { 0 }, { 0 }, CF_ENGINE },
	{ "X04_outer_flowlabel", BX6, b_x04, { "f0:1-6 f1:1-6" }, { 0 }, { 0 }, CF_ENGINE },
	/* identical inner extension headers inside SIT: 6.12's ipv6_gro_receive pulls and compares them (other bytes:
	 * another flow, the held packet stays) */
	{ "X05_sit_inner_dstopts", BS, b_x05, { "1-8" }, { 0 }, { 0 }, CF_ENGINE },
	{ "X05_sit_dstopts_change_4", BS, b_x05_change, { "1-3,4-8" }, { 0 }, { 0 }, CF_ENGINE },
	{ "X06_sit_inner_hopbyhop", BS, b_x06, { "1-8" }, { 0 }, { 0 }, CF_ENGINE },
	/* no offload for the fragment header: 6.12 flushes at ipv6_gro_receive */
	{ "X07_outer_fragment", BX6, b_x07, { "1,2,3,4" }, { 0 }, { 0 }, CF_ENGINE },
	/* SIT around ip4ip6: ip4ip6_gro_receive finds encap_mark set by sit_ip6ip6_gro_receive */
	{ "X08_ip4ip6_in_sit", B46, b_x08, { "1,2,3,4" }, { 0 }, { 0 }, CF_ENGINE },
	/* IPv4 options, the DSR option (O06: the deny-list's kinds): 6.12's inet_gro_receive takes no IHL != 5 in any
	 * layer, nor does the offload path (O04); the engine merges identical allowed ones (ipv4_options=1), and as
	 * the kernel with ipv4_options=0 (O05: the engine-noopt pass runs the CF_O05 rows wanting the kernel's) */
	{ "O01_inner_option", BI | B46, b_o_inner, { S8 }, { 0 }, { "1-8" }, CF_ENGINE | CF_O05 },
	{ "O02_option_change_4", BV4, b_o_change, { S8 }, { 0 }, { "1-3,4-8" }, CF_ENGINE | CF_O05 },
	{ "O03_plain_option", B4, b_o_inner, { S8 }, { 0 }, { "1-8" }, CF_ENGINE | CF_O05 },
	{ "O04_outer_option", BTUN, b_o_outer, { S8 }, { 0 }, { "1-8" }, CF_ENGINE | CF_O05 },
	{ "O04_outer_and_inner_options", BI, b_o_both, { S8 }, { 0 }, { "1-8" }, CF_ENGINE | CF_O05 },
	/* flows f0-f5: lsrr, ssrr, rr, ts, ra, sec (frame.c) */
	{ "O06_deny_list_inner", BV4 | B46, b_o06_inner, { F6X4 }, { 0 }, { 0 }, CF_ENGINE },
	{ "O06_deny_list_outer", BTUN, b_o06_outer, { F6X4 }, { 0 }, { 0 }, CF_ENGINE },
	/* UDP: 6.12's udp_gro_receive merges for a socket with UDP_GRO on the inner destination (CF_UDPSOCK), and the
	 * offload path hands UDP to the kernel's callbacks; the engine takes the socket's answer (tungro_udp.c) */
	{ "U01_udp_gro_socket", BU, u_n, { "1-8" }, { 0 }, { 0 }, CF_ENGINE | CF_UDPSOCK },
	{ "U02_no_socket", BU, u_n, { S8 }, { 0 }, { 0 }, CF_ENGINE },
	/* gro_receive_network_flush in udp_gro_receive_segment completes the held packet; datagram 3 is held */
	{ "U03_inner_ttl_3", BU, b_u03, { "1-2,3-8" }, { 0 }, { 0 }, CF_ENGINE | CF_UDPSOCK },
	/* a shorter datagram joins and ends the packet, a longer one ends it and starts the next */
	{ "U04_shorter_4", BU, b_u04_shorter, { "1-4,5-8" }, { 0 }, { 0 }, CF_ENGINE | CF_UDPSOCK },
	{ "U04_longer_4", BU, b_u04_longer, { "1-3,4-5,6-8" }, { 0 }, { 0 }, CF_ENGINE | CF_UDPSOCK },
	/* 6.12 passes the datagram without a checksum up and keeps the held packet, which datagram 4 ends (IP ID
	 * 3 past the held packet's first of 2); the engine completes the held packet first (README) */
	{ "U05_zero_csum_3", BV4, b_u05, { "3,1-2,4-8" }, { 0 }, { "1-2,3,4-8" }, CF_ENGINE | CF_UDPSOCK },
	/* with fixed IDs nothing ends 6.12's held packet: datagrams 4-8 join 1-2 behind the one passed up */
	{ "U05_zero_csum_3_fixed_id", BV4, b_u05_fixed_id, { "3,1-2+4-8" }, { 0 }, { "1-2,3,4-8" },
	  CF_ENGINE | CF_UDPSOCK },
};
#pragma GCC diagnostic pop

/* ---- set-up and the run ---- */

static int conform_setup(void)
{
	int rc;
	if (frames_tx_open("conform"))
		return -1;
	/* the train is seen in one NAPI cycle: keep GRO packets over poll ends for 20 ms, irqs deferred. 2 ms was
	 * not enough under TCG: a sender descheduled mid-train (gro.c sends frame by frame) split its 64 KiB train. */
	if ((rc = write_file("/sys/class/net/eth0/gro_flush_timeout", "20000000")) ||
	    (rc = write_file("/sys/class/net/eth0/napi_defer_hard_irqs", "100"))) {
		fail("conform: eth0 gro_flush_timeout/napi_defer_hard_irqs: %s", strerror(-rc));
		return -1;
	}
	return (g_rxfd = rx_socket("conform", ETH_P_ALL)) < 0 ? -1 : 0;
}

int rx_socket(const char *who, int proto)
{
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(proto));
	int one = 1, big = 4 << 20;
	if (fd < 0 || setsockopt(fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one)) < 0) {
		fail("%s: receiver packet socket / PACKET_VNET_HDR: %s", who, strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(proto),
				   .sll_ifindex = (int)if_nametoindex("eth0") };
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		fail("%s: bind receiver packet socket to eth0: %s", who, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

struct tally {
	int pass, fail, retries;
};

#define NCASES (sizeof(g_cases) / sizeof(g_cases[0]))
/* per case, encap and engine: 0 not run, 1 pass, 2 FAIL; for the table */
static unsigned char g_res[NCASES][N_ENC][2];

/* per case, encap and engine pass (engine, engine-noopt): 0 not run, 1 pass, 2 FAIL */
static unsigned char g_eres[NCASES][N_ENC][2];

static const char *want_of(const struct ccase *k, int e, int pass)
{
	const char *kern = k->want_kernel[e] ? k->want_kernel[e] : k->want_kernel[0];
	const char *tun = k->want_tungro[e] ? k->want_tungro[e] : kern;
	const char *eng = k->want_engine[e] ? k->want_engine[e] : k->want_engine[0] ? k->want_engine[0] : tun;
	return pass == P_KERNEL || pass == P_NOOPT ? kern : pass == P_TUNGRO ? tun : eng;
}

/* ---- the UDP_GRO receiver of the U rows ---- */

#ifndef UDP_GRO
#define UDP_GRO 104
#endif

/* UDP_GRO sockets on DPORT in the receiving namespace, IPv4 and IPv6 (v6only: the two never share the port), for
 * 6.12's udp4/6_gro_lookup_skb (and the engine's lookup, tungro_udp.c) on the inner destination: 0 or -errno */
static int udp_gro_open(int fd[2])
{
	static const int fam[2] = { AF_INET, AF_INET6 };
	int one = 1;
	fd[0] = fd[1] = -1;
	for (int i = 0; i < 2; i++) {
		struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons(DPORT) };
		struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons(DPORT) };
		fd[i] = socket(fam[i], SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (fd[i] < 0 || (i && setsockopt(fd[i], IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one))) ||
		    setsockopt(fd[i], SOL_UDP, UDP_GRO, &one, sizeof(one)) ||
		    bind(fd[i], i ? (struct sockaddr *)&a6 : (struct sockaddr *)&a4, i ? sizeof(a6) : sizeof(a4))) {
			int rc = -errno;
			for (int j = 0; j <= i; j++)
				if (fd[j] >= 0)
					close(fd[j]);
			fd[0] = fd[1] = -1;
			return rc;
		}
	}
	return 0;
}

/* what the sockets read since the last drain: reads, and datagrams (a read of a GRO packet is several, its UDP_GRO
 * cmsg the segment size) */
static void udp_gro_drain(const int fd[2], int *reads, int *dgrams)
{
	static unsigned char data[65536];
	*reads = *dgrams = 0;
	for (int i = 0; i < 2; i++) {
		for (;;) {
			char ctl[CMSG_SPACE(sizeof(int))];
			struct iovec iov = { data, sizeof(data) };
			struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
					    .msg_controllen = sizeof(ctl) };
			int gso = 0;
			ssize_t n = recvmsg(fd[i], &m, MSG_DONTWAIT);
			if (n < 0)
				break;
			for (struct cmsghdr *cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm))
				if (cm->cmsg_level == SOL_UDP && cm->cmsg_type == UDP_GRO)
					memcpy(&gso, CMSG_DATA(cm), sizeof(gso));
			(*reads)++;
			*dgrams += gso > 0 ? (int)((n + gso - 1) / gso) : 1;
		}
	}
}

/* packets in a one-flow got string: a ',' between two */
static int got_packets(const char *got)
{
	int n = 1;
	for (; *got; got++)
		n += *got == ',';
	return n;
}

/* one row of a pass: case c over encap e, up to 3 retries (emulation timing) */
static void run_case(int pass, size_t c, int e, struct tally *tl)
{
	const struct ccase *k = &g_cases[c];
	const char *engine = g_pass_name[pass], *want = want_of(k, e, pass);
	struct train t;
	memset(&t, 0, sizeof(t));
	k->build(&t, e);
	frames_number(t.s, t.n);
	char got[512], why[200] = "", sock[32] = "", first[760] = "";
	int tries = 0, ok = 0, ufd[2] = { -1, -1 }, rc;
	if ((k->flags & CF_UDPSOCK) && (rc = udp_gro_open(ufd)))
		snprintf(why, sizeof(why), "UDP_GRO socket on port %d: %s", DPORT, strerror(-rc));
	for (; tries < 4 && !ok && !(ufd[0] < 0 && (k->flags & CF_UDPSOCK)); tries++) {
		if (run_train(&t, got, sizeof(got), why, sizeof(why))) {
			snprintf(got, sizeof(got), "error");
			break;
		}
		if (ufd[0] >= 0) {
			/* the socket reads each packet as one buffer: a GRO packet with its UDP_GRO cmsg */
			int reads, dgrams;
			udp_gro_drain(ufd, &reads, &dgrams);
			snprintf(sock, sizeof(sock), "%d/%d", reads, dgrams);
			if (!why[0] && (reads != got_packets(got) || dgrams != t.n))
				snprintf(why, sizeof(why), "the UDP_GRO socket read %d buffers of %d datagrams", reads,
					 dgrams);
		}
		ok = !strcmp(got, want) && !why[0];
		if (!ok && !tries)
			snprintf(first, sizeof(first), " first_try=%s%s%s", got, why[0] ? "/" : "", why);
	}
	if (ufd[0] >= 0) {
		close(ufd[0]);
		close(ufd[1]);
	}
	if (!tries)
		snprintf(got, sizeof(got), "error");
	int retries = tries > 0 ? tries - 1 : 0;   /* an error on the first try made none */
	tl->retries += retries;
	if (pass <= P_TUNGRO)
		g_res[c][e][pass] = ok ? 1 : 2;
	else
		g_eres[c][e][pass - P_ENGINE] = ok ? 1 : 2;
	if (ok)
		tl->pass++;
	else
		tl->fail++;
	/* a retried row says what its first try got (emulation timing, or a flake to look at) */
	out("CONFORM arch=%s case=%s/%s engine=%s result=%s retries=%d got=%s want=%s%s%s%s%s%s", uname_machine(),
	    k->id, g_enc_name[e], engine, ok ? "pass" : "FAIL", retries, got, want, sock[0] ? " sock=" : "", sock,
	    why[0] ? " note=" : "", why, ok && retries ? first : "");
	if (!ok)
		fail("conform %s/%s engine=%s: got %s want %s%s%s", k->id, g_enc_name[e], engine, got, want,
		     why[0] ? ": " : "", why);
}

/* the rows of a pass: every row for kernel and tungro, the flagged ones for the engine passes */
static void run_engine(int pass, struct tally *tl, int *lines)
{
	for (size_t c = 0; c < NCASES; c++) {
		const struct ccase *k = &g_cases[c];
		if ((pass == P_ENGINE && !(k->flags & CF_ENGINE)) || (pass == P_NOOPT && !(k->flags & CF_O05)))
			continue;
		for (int e = 0; e < N_ENC; e++) {
			if (!(k->encs & (1u << e)))
				continue;
			run_case(pass, c, e, tl);
			(*lines)++;
		}
	}
}

/* A blank line, then the result table's head: the case column, one per encap, and what each cell's two halves are. */
static void table_head(const char *halves)
{
	char head[200];
	int hl = snprintf(head, sizeof(head), "%-28s", "case");
	out("%s", "");
	for (int e = 0; e < N_ENC; e++)
		hl += snprintf(head + hl, sizeof(head) - (size_t)hl, " %-11s", g_enc_name[e]);
	out("%s   (%s)", head, halves);
}

/* The engine passes, after the tungro one: tungro loaded and eth0 attached, the CF_ENGINE rows; then a load with
 * ipv4_options=0 and eth0 attached at load, the CF_O05 rows (O05); then tungro unloaded again. Attached, an
 * ETH_P_ALL tap sees every frame twice (on arrival, before tungro's rx_handler, and as the
 * engine delivers it); taps bound to ETH_P_IP and ETH_P_IPV6 are served after the rx_handler: what the stack
 * gets. */
static void run_engine_passes(int *lines)
{
	struct tally tl[2];
	uint64_t t[3];
	int all = g_rxfd, rc;
	memset(tl, 0, sizeof(tl));
	t[0] = t[1] = t[2] = now_us();
	if ((rc = eng_enter(ENG_ENGINE))) {
		fail("conform: attach eth0: %s", strerror(-rc));
		return;
	}
	if ((g_rxfd = rx_socket("conform engine", ETH_P_IP)) >= 0 &&
	    (g_rxfd6 = rx_socket("conform engine", ETH_P_IPV6)) >= 0) {
		run_engine(P_ENGINE, &tl[0], lines);
		t[1] = now_us();
		if ((rc = mod_unload()) || (rc = mod_load_params("ipv4_options=0 attach=eth0")))
			fail("conform: rmmod, insmod ipv4_options=0 attach=eth0: %s", strerror(-rc));
		else
			run_engine(P_NOOPT, &tl[1], lines);
		t[2] = now_us();
	}
	if (g_rxfd >= 0)
		close(g_rxfd);
	if (g_rxfd6 >= 0)
		close(g_rxfd6);
	g_rxfd = all;
	g_rxfd6 = -1;
	if ((rc = eng_enter(ENG_KERNEL)))
		fail("conform: detach eth0, rmmod tungro: %s", strerror(-rc));

	table_head("engine/engine-noopt");
	static const char *const r[3] = { "-", "pass", "FAIL" };
	for (size_t c = 0; c < NCASES; c++) {
		if (!(g_cases[c].flags & CF_ENGINE))
			continue;
		char line[200];
		int n = snprintf(line, sizeof(line), "%-28s", g_cases[c].id);
		for (int e = 0; e < N_ENC; e++) {
			char cell[16];
			snprintf(cell, sizeof(cell), "%s/%s", r[g_eres[c][e][0]], r[g_eres[c][e][1]]);
			n += snprintf(line + n, sizeof(line) - (size_t)n, " %-11s", cell);
		}
		out("%s", line);
	}
	out("%s", "");
	out("%-8s %-12s %6s %6s %8s %8s", "arch", "engine", "pass", "FAIL", "retries", "seconds");
	for (int i = 0; i < 2; i++)
		out("%-8s %-12s %6d %6d %8d %8.1f", uname_machine(), g_pass_name[P_ENGINE + i], tl[i].pass, tl[i].fail,
		    tl[i].retries, (double)(t[i + 1] - t[i]) / 1e6);
	out("# engine passes: %.1f s with the loads, the attach and the unloads", (double)(now_us() - t[0]) / 1e6);
}

/* gro.c's own tests after the crafted trains of an engine, across the virtio pair and over ip6ip6 (relay6.c);
 * they count in the engine's tally */
static void run_peer(const char *engine, struct tally *tl, struct peer_tally *pt)
{
	uint64_t t0 = now_us();
	peer_suite(engine, g_mac_rx, g_mac_tx, PEER_DIRECT, pt);
	uint64_t t1 = now_us();
	peer_suite(engine, g_mac_rx, g_mac_tx, PEER_6IN6, pt);
	uint64_t t2 = now_us();
	tl->pass += pt->pass;
	tl->fail += pt->fail;
	tl->retries += pt->retries;
	out("# peer suite (kernel gro.c) engine=%s: %d pass, %d FAIL, %d retries in %.1f s (direct %.1f s, over ip6ip6 "
	    "%.1f s)", engine, pt->pass, pt->fail, pt->retries, (double)(t2 - t0) / 1e6, (double)(t1 - t0) / 1e6,
	    (double)(t2 - t1) / 1e6);
}

/* A peer row's result in an encap column: gro.c's ipv4/ipv6 in ip4/ip6, its ipv6 over the relay in ip6ip6;
 * 0 (not run) elsewhere. */
static int peer_cell(const struct peer_tally *pt, int t, int e)
{
	return e == E_P4 || e == E_P6 ? pt->res[t][e == E_P6] : e == E_6IN6 ? pt->res6in6[t] : 0;
}

void conform(void)
{
	struct tally tl[2];
	struct peer_tally pt[2];
	int lines = 0, rc;
	memset(tl, 0, sizeof(tl));
	memset(pt, 0, sizeof(pt));
	if (conform_setup())
		return;
	if (mod_loaded())
		die("conform: tungro loaded before the kernel engine run");
	uint64_t t0 = now_us();
	run_engine(P_KERNEL, &tl[0], &lines);
	run_peer("kernel", &tl[0], &pt[0]);
	uint64_t t1 = now_us();
	int have_tungro = mod_present();
	if (!have_tungro) {
		out("# %s not in the initramfs: engine=tungro skipped", MODULE_PATH);
	} else if ((rc = mod_load())) {
		fail("conform: insmod %s: %s", MODULE_PATH, strerror(-rc));
		have_tungro = 0;
	} else {
		run_engine(P_TUNGRO, &tl[1], &lines);
		run_peer("tungro", &tl[1], &pt[1]);
		if ((rc = mod_unload()))
			fail("conform: rmmod tungro: %s", strerror(-rc));
	}
	uint64_t t2 = now_us();
	if (have_tungro)
		run_engine_passes(&lines);
	table_head("kernel/tungro");
	static const char *const r[3] = { "-", "pass", "FAIL" };
	for (size_t c = 0; c < NCASES + PEER_NTESTS; c++) {
		char line[200], id[32];
		int t = (int)c - (int)NCASES;
		snprintf(id, sizeof(id), c < NCASES ? "%s" : "peer_%s", c < NCASES ? g_cases[c].id : g_peer_tests[t]);
		int n = snprintf(line, sizeof(line), "%-28s", id);
		for (int e = 0; e < N_ENC; e++) {
			const unsigned char *k = c < NCASES ? g_res[c][e] : NULL;
			int a = k ? k[0] : peer_cell(&pt[0], t, e), b = k ? k[1] : peer_cell(&pt[1], t, e);
			char cell[16];
			snprintf(cell, sizeof(cell), "%s/%s", r[a], r[b]);
			n += snprintf(line + n, sizeof(line) - (size_t)n, " %-11s", cell);
		}
		out("%s", line);
	}
	out("peer_*: gro.c's --ipv4/--ipv6 in ip4/ip6, its --ipv6 over the ip6ip6 relay in ip6ip6 (peer_large there: "
	    "its failure at 64 KiB as derived, tungro's output the kernel's)");
	out("%s", "");
	out("%-8s %-7s %6s %6s %8s %8s", "arch", "engine", "pass", "FAIL", "retries", "seconds");
	out("%-8s %-7s %6d %6d %8d %8.1f", uname_machine(), "kernel", tl[0].pass, tl[0].fail, tl[0].retries,
	    (double)(t1 - t0) / 1e6);
	if (have_tungro)
		out("%-8s %-7s %6d %6d %8d %8.1f", uname_machine(), "tungro", tl[1].pass, tl[1].fail, tl[1].retries,
		    (double)(t2 - t1) / 1e6);
	if (have_tungro) {
		hostile();
		train16_check("conform", TRAIN16_ROUNDS);
	}
}
