/* conform.c - wire conformance: crafted frame trains from eth1 (sender namespace) by AF_PACKET, and what the
 * receiver's stack sees after GRO on eth0 (AF_PACKET with a virtio_net_hdr: gso_size, gso type).
 *
 * A delivered packet is mapped back to the sent segments it covers by (layer signature, source port, flow label,
 * TCP sequence range), so "got" lists, per flow and in delivery order, which segments each packet carried:
 * "1-2,3-6" = segments 1..2 in one packet, then 3..6 in one. Flows are shown as "fN:" when a case has several;
 * delivered frames that are ours but unparsable (truncated, bad IHL/doff) are counted as "x:N".
 * Expected outcomes are written per case: tungro's from gro-cases.md, the kernel's from Linux 6.12's rules.
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
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

int g_rxfd = -1;

struct ccase {
	const char *id;
	unsigned encs;                /* bit per enum encap */
	void (*build)(struct train *t, int enc);
	const char *want_kernel[N_ENC];   /* NULL entry: want_kernel[0] for every encap */
	const char *want_tungro[N_ENC];   /* NULL entry: same as the kernel's */
};

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

/* Maps one received frame (after its virtio_net_hdr) to the train. Returns 0 if not ours. */
static int account(const struct train *t, const struct virtio_net_hdr *vh, const unsigned char *f, int len,
		   struct got *g)
{
	if (len < 14)
		return 0;
	unsigned et = get16(f + 12);
	const unsigned char *p = f + 14, *end = f + len;
	int ip4_layers = 0, ip6_outer = 0, v6 = 0, proto = -1, junk = 0, next;
	uint32_t flowlabel = 0, oflowlabel = 0;
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
	/* walk the IP layers (tunnels, nested ones included) down to the transport: IPv4 ones, the outer IPv6 of an
	 * ip6 tunnel (from A6O_SRC) with its extension headers, and an inner IPv6 (from A6_SRC), the last one */
	while (next) {
		if (next == 4) {
			if (end - p < 20) { junk = 1; break; }
			int ihl = (p[0] & 15) * 4;
			if ((p[0] >> 4) != 4 || ihl < 20 || end - p < ihl) { junk = 1; break; }
			if (!ip4_ok(p, ihl))
				note_bad(g, "%s IPv4 header checksum wrong%.0d", "delivered", 0);
			unsigned tot = get16(p + 2);
			if ((int)tot < end - p)
				l4end = p + tot;   /* padding or the trailing part of a frame: not payload */
			ip4_layers++;
			proto = p[9];
			p += ihl;
		} else {
			if (end - p < 40) { junk = 1; break; }
			int outer = !memcmp(p + 8, A6O_SRC, 16);
			unsigned pl = get16(p + 4);
			if ((int)(pl + 40) < end - p)
				l4end = p + 40 + pl;
			if (outer) {
				ip6_outer++;
				oflowlabel = get32(p) & 0xfffff;
			} else {
				v6 = 1;
				flowlabel = get32(p) & 0xfffff;
			}
			proto = p[6];
			p += 40;
			/* the outer header's extension headers: destination options (the encapsulation limit), hop-by-hop,
			 * routing, fragment */
			while (outer && (proto == 60 || proto == 0 || proto == 43 || proto == 44)) {
				int xl = proto == 44 ? 8 : end - p >= 2 ? (p[1] + 1) * 8 : 8;
				if (end - p < xl) { junk = 1; break; }
				proto = p[0];
				p += xl;
			}
			if (junk || !outer)
				break;
		}
		next = proto == 4 ? 4 : proto == 41 ? 6 : 0;
	}
	if (l4end < end)
		end = l4end;
	int sig = ip6_outer ? (v6 ? E_6IN6 : E_4IN6) :
		  v6 ? (ip4_layers ? E_SIT : E_P6) : (ip4_layers > 1 ? E_IPIP : E_P4);
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
	/* nested tunnels have more IPv4 layers than their encap: match on the frame's own nest depth */
	int sport = proto == 6 ? (int)get16(l4) : -1;
	int first = -1, last = -1;
	uint32_t covered = 0;
	for (int i = 0; i < t->n; i++) {
		const struct sd *d = &t->s[i];
		int want_layers = (d->enc == E_IPIP ? 2 : d->enc == E_SIT || d->enc == E_P4 || d->enc == E_4IN6 ? 1 : 0) +
				  d->nest;
		if (d->junk || d->enc != sig || want_layers != ip4_layers || (v6 && d->flowlabel != flowlabel) ||
		    (ip6_outer && d->oflowlabel != oflowlabel))
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
		unsigned want_type = v6 ? VIRTIO_NET_HDR_GSO_TCPV6 : VIRTIO_NET_HDR_GSO_TCPV4;
		if ((vh->gso_type & 0x7f) != want_type)
			note_bad(g, "%s GRO packet gso_type %d", "delivered", vh->gso_type);
		if (vh->gso_size != d0->pay)
			note_bad(g, "%s GRO packet gso_size %d", "delivered", vh->gso_size);
	}
	char *fl = g->flows[d0->flow];
	size_t used = strlen(fl);
	int a = d0->idx, b = t->s[last].idx;
	if (icmp_idx >= 0)
		b = a;
	snprintf(fl + used, sizeof(g->flows[0]) - used, a == b ? "%s%d" : "%s%d-%d", used ? "," : "", a, b);
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
	for (;;) {
		struct pollfd p = { .fd = g_rxfd, .events = POLLIN };
		if (g.units >= units && !done)
			done = now_us();
		/* once all is there, a short look for anything extra (a duplicate, a split we did not expect) */
		if (done && now_us() - done > 30000)
			break;
		int r = poll(&p, 1, done ? 10 : 50);
		if (r <= 0) {
			if (!done && now_us() - last > (uint64_t)g_quiet_ms * 1000u)
				break;
			continue;
		}
		struct sockaddr_ll from;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(g_rxfd, rbuf, sizeof(rbuf), MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
		if (n < (ssize_t)sizeof(struct virtio_net_hdr))
			continue;
		if (from.sll_pkttype != PACKET_HOST)
			continue;
		struct virtio_net_hdr vh;
		memcpy(&vh, rbuf, sizeof(vh));
		if (account(t, &vh, rbuf + sizeof(vh), (int)(n - (ssize_t)sizeof(vh)), &g))
			last = now_us();
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
	{ "X01_ip4ip6_8", B46, b_data8, { "1-8" }, { 0 } },
	{ "X01_ip4ip6_8_encap_limit", B46, b_x8_enclim, { "1-8" }, { 0 } },
	{ "X02_ip6ip6_8", B66, b_data8, { "1-8" }, { 0 } },
	{ "X02_ip6ip6_8_encap_limit", B66, b_x8_enclim, { "1-8" }, { 0 } },
	{ "X03_outer_hlim", BX6, b_x03_hlim, { "1-2,3-8" }, { 0 } },
	{ "X03_outer_tclass", BX6, b_x03_tclass, { "1-2,3-8" }, { 0 } },
	{ "X04_outer_flowlabel", BX6, b_x04, { "f0:1-6 f1:1-6" }, { 0 } },
	/* no offload for the fragment header: 6.12 flushes at ipv6_gro_receive */
	{ "X07_outer_fragment", BX6, b_x07, { "1,2,3,4" }, { 0 } },
	/* SIT around ip4ip6: ip4ip6_gro_receive finds encap_mark set by sit_ip6ip6_gro_receive */
	{ "X08_ip4ip6_in_sit", B46, b_x08, { "1,2,3,4" }, { 0 } },
};

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

static void run_engine(const char *engine, int tungro, struct tally *tl, int *lines)
{
	for (size_t c = 0; c < sizeof(g_cases) / sizeof(g_cases[0]); c++) {
		const struct ccase *k = &g_cases[c];
		for (int e = 0; e < N_ENC; e++) {
			if (!(k->encs & (1u << e)))
				continue;
			const char *want = k->want_kernel[e] ? k->want_kernel[e] : k->want_kernel[0];
			if (tungro && k->want_tungro[e])
				want = k->want_tungro[e];
			struct train t;
			memset(&t, 0, sizeof(t));
			k->build(&t, e);
			frames_number(t.s, t.n);
			char got[512], why[200] = "";
			int tries = 0, ok = 0;
			for (; tries < 4 && !ok; tries++) {
				if (run_train(&t, got, sizeof(got), why, sizeof(why))) {
					snprintf(got, sizeof(got), "error");
					break;
				}
				ok = !strcmp(got, want) && !why[0];
			}
			int retries = tries > 0 ? tries - 1 : 0;   /* an error on the first try made none */
			tl->retries += retries;
			g_res[c][e][tungro] = ok ? 1 : 2;
			if (ok)
				tl->pass++;
			else
				tl->fail++;
			(*lines)++;
			out("CONFORM arch=%s case=%s/%s engine=%s result=%s retries=%d got=%s want=%s%s%s", uname_machine(),
			    k->id, g_enc_name[e], engine, ok ? "pass" : "FAIL", retries, got, want,
			    why[0] ? " note=" : "", why);
			if (!ok)
				fail("conform %s/%s engine=%s: got %s want %s%s%s", k->id, g_enc_name[e], engine, got, want,
				     why[0] ? ": " : "", why);
		}
	}
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
	run_engine("kernel", 0, &tl[0], &lines);
	run_peer("kernel", &tl[0], &pt[0]);
	uint64_t t1 = now_us();
	int have_tungro = mod_present();
	if (!have_tungro) {
		out("# %s not in the initramfs: engine=tungro skipped", MODULE_PATH);
	} else if ((rc = mod_load())) {
		fail("conform: insmod %s: %s", MODULE_PATH, strerror(-rc));
		have_tungro = 0;
	} else {
		run_engine("tungro", 1, &tl[1], &lines);
		run_peer("tungro", &tl[1], &pt[1]);
		if ((rc = mod_unload()))
			fail("conform: rmmod tungro: %s", strerror(-rc));
	}
	uint64_t t2 = now_us();
	out("%s", "");
	char head[200];
	int hl = snprintf(head, sizeof(head), "%-28s", "case");
	for (int e = 0; e < N_ENC; e++)
		hl += snprintf(head + hl, sizeof(head) - (size_t)hl, " %-11s", g_enc_name[e]);
	out("%s   (kernel/tungro)", head);
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
