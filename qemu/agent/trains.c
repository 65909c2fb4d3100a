/* trains.c - crafted IPIP trains (frame.c) sent from eth1, and an account of what came up on ipip1 after
 * decapsulation: every segment once, every byte as sent, and segments per GRO packet from the devices' counters.
 * The try-and-retry of one train through one engine lives here, for the demo and make test's wire check alike.
 */
#include "trains.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <math.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

static int g_tapfd = -1;

/* What came up on ipip1 after decapsulation (and gro_cells): every train segment once, every byte as sent. */
struct seen {
	unsigned char hit[TRAIN_MAX];
	int segs, dup, bad;
	unsigned tap_drops;     /* packets the socket could not keep: a try that cannot be judged */
	char why[120];
};

int trains_open(const char *who)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_IP),
				   .sll_ifindex = (int)if_nametoindex("ipip1") };
	/* a train of 256 one-segment packets is about 1 MiB of skb truesize: past rmem_max, so forced */
	int big = 16 << 20;
	if (frames_tx_open(who))
		return -1;
	if (g_tapfd >= 0)
		return 0;
	g_tapfd = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, htons(ETH_P_IP));
	if (g_tapfd < 0 || bind(g_tapfd, (struct sockaddr *)&sll, sizeof(sll)) < 0 ||
	    setsockopt(g_tapfd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)) < 0) {
		fail("%s: packet socket on ipip1: %s", who, strerror(errno));
		return -1;
	}
	return 0;
}

static void tap_account(const struct sd *t, int n, const unsigned char *p, int len, struct seen *sn)
{
	if (len < 40 || (p[0] >> 4) != 4 || p[9] != 6 || memcmp(p + 12, A_IN_SRC, 4))
		return;
	int ihl = (p[0] & 15) * 4, tot = (int)get16(p + 2);
	if (tot > len || ihl < 20 || tot < ihl + 20)
		return;
	const unsigned char *tcp = p + ihl;
	int thl = (tcp[12] >> 4) * 4, flow = (int)get16(tcp) - SPORT0, pay = tot - ihl - thl;
	uint32_t seq = get32(tcp + 4);
	if (get16(tcp + 2) != DPORT || thl < 20 || pay < 0)
		return;
	for (int i = 0; i < n && pay > 0; i++) {   /* the segments this packet covers, in sequence order */
		const struct sd *d = &t[i];
		if (d->flow != flow || seq < d->seq || seq >= d->seq + (uint32_t)d->pay)
			continue;
		if (seq != d->seq || pay < d->pay) {
			if (!sn->bad++)
				snprintf(sn->why, sizeof(sn->why), "flow %d: a packet does not end on a segment", flow);
			return;
		}
		for (int b = 0; b < d->pay; b++)
			if (tcp[thl + b] != pay_byte(flow, seq + (uint32_t)b)) {
				if (!sn->bad++)
					snprintf(sn->why, sizeof(sn->why), "flow %d segment %d: payload byte %d differs",
						 flow, d->idx, b);
				return;
			}
		if (sn->hit[i]++)
			sn->dup++;
		else
			sn->segs++;
		tcp += d->pay;
		seq += (uint32_t)d->pay;
		pay -= d->pay;
		i = -1;   /* the next segment of the flow may come earlier in the train */
	}
}

/* Sends the train and reads ipip1 until every segment arrived and 30 ms more passed, or 400 ms of silence. */
static int train_once(const struct sd *t, int n, struct seen *sn)
{
	static unsigned char buf[70000];
	struct tpacket_stats st;
	socklen_t stlen = sizeof(st);
	uint64_t last, done = 0;
	int rc;

	memset(sn, 0, sizeof(*sn));
	while (recv(g_tapfd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
	getsockopt(g_tapfd, SOL_PACKET, PACKET_STATISTICS, &st, &stlen);   /* reading resets them */
	if ((rc = frames_send(t, n)))
		return rc;
	last = now_us();
	for (;;) {
		struct pollfd pf = { .fd = g_tapfd, .events = POLLIN };
		if (sn->segs >= n && !done)
			done = now_us();
		if (done && now_us() - done > 30000)
			break;
		if (poll(&pf, 1, done ? 10 : 50) <= 0) {
			if (!done && now_us() - last > 400000)
				break;
			continue;
		}
		struct sockaddr_ll from;
		socklen_t fl = sizeof(from);
		ssize_t len = recvfrom(g_tapfd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
		if (len <= 0 || from.sll_pkttype == PACKET_OUTGOING)
			continue;
		tap_account(t, n, buf, (int)len, sn);
		last = now_us();
	}
	stlen = sizeof(st);
	if (getsockopt(g_tapfd, SOL_PACKET, PACKET_STATISTICS, &st, &stlen) == 0)
		sn->tap_drops = st.tp_drops;
	return 0;
}

void train_16x16(struct sd *t, int *n)
{
	*n = 0;
	for (int i = 0; i < 16; i++)
		for (int f = 0; f < 16; f++)
			sd_default(&t[(*n)++], E_IPIP, f);
}

void train_psh(struct sd *t, int *n)
{
	*n = 64;
	for (int i = 0; i < 64; i++) {
		sd_default(&t[i], E_IPIP, 0);
		t[i].tflags |= 0x08;
	}
}

void train_flows64(struct sd *t, int *n)
{
	*n = 64;
	for (int f = 0; f < 64; f++)
		sd_default(&t[f], E_IPIP, f);
}

int train_round(int kind, const struct sd *t, int n, double model, struct train_try *o)
{
	const char *path = kind == ENG_ENGINE ? ENGINE_STATS_PATH : STATS_PATH;
	static struct stats s0, s1;
	int rc;

	memset(o, 0, sizeof(*o));
	for (int tries = 0; tries < TRAIN_TRIES; tries++) {
		uint64_t w0, w1, g0, g1, q0, q1;
		struct seen sn;
		int have = kind != ENG_KERNEL && kv_read(path, &s0, 0) == 0;
		read_u64("/sys/class/net/eth0/statistics/rx_packets", &w0);
		read_u64("/sys/class/net/ipip1/statistics/rx_packets", &g0);
		q0 = softirq_ns();
		if ((rc = train_once(t, n, &sn)))
			return rc;
		q1 = softirq_ns();
		read_u64("/sys/class/net/eth0/statistics/rx_packets", &w1);
		read_u64("/sys/class/net/ipip1/statistics/rx_packets", &g1);
		have = have && kv_read(path, &s1, 0) == 0;
		o->spg = g1 > g0 ? (double)(w1 - w0) / (double)(g1 - g0) : 0;
		if (sn.bad || sn.dup) {   /* a byte differs: no retry */
			o->bad = 1;
			snprintf(o->why, sizeof(o->why), "%s: %s%s%d duplicated", g_eng_name[kind], sn.why,
				 sn.why[0] ? ", " : "", sn.dup);
		}
		int retry = !o->bad && (sn.segs < n || sn.tap_drops || fabs(o->spg - model) > 0.25 * model);
		if (retry && tries + 1 < TRAIN_TRIES) {
			o->retries++;
			continue;
		}
		if (sn.segs < n) {
			o->lost = 1;
			snprintf(o->why, sizeof(o->why), "%s: %d of %d segments arrived (the receiving socket dropped %u)",
				 g_eng_name[kind], sn.segs, n, sn.tap_drops);
		}
		o->wire = w1 - w0;
		o->gro = g1 - g0;
		o->softirq_ns = q1 - q0;
		if (have) {
			stats_delta(&o->tg, &s1, &s0);
			o->have_tg = 1;
		}
		break;
	}
	return 0;
}

double train16_model(int kind)
{
	return kind == ENG_ENGINE ? 4.0 : 1.0;
}

/* Issue 8's wire check: the 16 x 16 train through the kernel's GRO and tungro's engine, taking turns, `rounds` trains
 * each; tungro's table must give at least twice the kernel's segments per GRO packet (the model: 4.0 vs 1.0), every
 * segment once and every byte intact. */
void train16_check(const char *who, int rounds)
{
	static struct sd t[TRAIN_MAX];
	static const int kinds[2] = { ENG_KERNEL, ENG_ENGINE };
	uint64_t wire[2] = { 0, 0 }, gro[2] = { 0, 0 }, evicted = 0;
	int n, retries[2] = { 0, 0 }, lost = 0, bad = 0, rc;
	char why[160] = "";

	if (trains_open(who))
		return;
	train_16x16(t, &n);
	frames_number(t, n);
	for (int r = 0; r < rounds; r++)
		for (int j = 0; j < 2; j++) {
			int e = r & 1 ? 1 - j : j;
			struct train_try x;
			if ((rc = eng_enter(kinds[e])) || (rc = train_round(kinds[e], t, n, train16_model(kinds[e]), &x))) {
				check("engine_16x16_train_wire", 0, "%s: %s", g_eng_name[kinds[e]], strerror(-rc));
				eng_enter(ENG_KERNEL);
				return;
			}
			wire[e] += x.wire;
			gro[e] += x.gro;
			retries[e] += x.retries;
			lost += x.lost;
			bad += x.bad;
			if (x.lost || x.bad)
				snprintf(why, sizeof(why), "%s", x.why);
			if (x.have_tg)
				evicted += stats_get(&x.tg, "evicted");
		}
	if ((rc = eng_enter(ENG_KERNEL)))
		fail("%s: back to the kernel's GRO: %s", who, strerror(-rc));
	double k = gro[0] ? (double)wire[0] / (double)gro[0] : 0, g = gro[1] ? (double)wire[1] / (double)gro[1] : 0;
	check("engine_16x16_train_wire", !lost && !bad && k > 0 && g >= 2 * k,
	      "16 IPIP flows interleaved, 16 segments each, %d trains per engine: engine %.2f vs kernel %.2f segs/GRO "
	      "packet (%.2fx, at least 2x; model 4.0 vs 1.0 at polls of 64), engine evicted %" PRIu64 ", retries kernel "
	      "%d, engine %d; %s%s%s", rounds, g, k, k > 0 ? g / k : 0, evicted, retries[0], retries[1],
	      lost || bad ? "SEGMENTS MISSING OR BYTES DIFFER" : "every segment once, every byte intact",
	      why[0] ? ": " : "", why);
}
