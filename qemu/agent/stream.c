/* stream.c - one measured TCP stream from the sender namespace to the receiver, with GRO counters. */
#include "agent.h"
#include "frame.h"   /* get32, g_dsr_option (the ipopt scenarios' IPv4 option) */

#include <arpa/inet.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <unistd.h>

/* Addresses and devices as net.c sets them up. */
const struct scenario g_scenarios[N_SCENARIOS] = {
	{ "plain", AF_INET, "198.18.0.1", 6, "198.18.0.1", NULL, 5001, AF_INET, 0 },
	{ "ipip", AF_INET, "198.19.1.1", 4, "198.18.0.1", "ipip1", 5002, AF_INET, 0 },
	{ "sit", AF_INET6, "2001:db8:41::1", 41, "198.18.0.1", "sit1", 5003, AF_INET, 0 },
	/* K01: the kernel reaches the IPIP/SIT callbacks from fou_gro_receive/gue_gro_receive */
	{ "ipip-fou", AF_INET, "198.19.2.1", 17, "198.18.0.11", "ipfou1", 5004, AF_INET, 0 },
	{ "sit-gue", AF_INET6, "2001:db8:42::1", 17, "198.18.0.12", "sitgue1", 5005, AF_INET, 0 },
	/* ip6 tunnels: outer IPv6 with the encapsulation-limit destination option, then next header 4 or 41 */
	{ "ip4ip6", AF_INET, "198.19.3.1", 4, "2001:db8:18::1", "ip4ip6t", 5006, AF_INET6, 0 },
	{ "ip6ip6", AF_INET6, "2001:db8:43::1", 41, "2001:db8:18::11", "ip6ip6t", 5007, AF_INET6, 0 },
	/* issue 9: every packet of the stream carries an IPv4 option, plain and in the inner header of IPIP */
	{ "plain-ipopt", AF_INET, "198.18.0.1", 6, "198.18.0.1", NULL, 5008, AF_INET, 1 },
	{ "ipip-ipopt", AF_INET, "198.19.1.1", 4, "198.18.0.1", "ipip1", 5009, AF_INET, 1 },
	/* K08: ip6 tunnels in FOU and GUE over IPv6; the outer encapsulation limit comes before the UDP header */
	{ "ip4ip6-fou6", AF_INET, "198.19.4.1", 17, "2001:db8:18::12", "ip4fou6", 5010, AF_INET6, 0 },
	{ "ip6ip6-gue6", AF_INET6, "2001:db8:44::1", 17, "2001:db8:18::13", "ip6gue6", 5011, AF_INET6, 0 },
};

const struct scenario *scenario_by_name(const char *name)
{
	for (size_t i = 0; i < N_SCENARIOS; i++)
		if (!strcmp(g_scenarios[i].name, name))
			return &g_scenarios[i];
	return NULL;
}

static struct utsname uts;

const char *uname_machine(void)
{
	if (!uts.machine[0])
		uname(&uts);
	return uts.machine;
}

const char *uname_release(void)
{
	if (!uts.release[0])
		uname(&uts);
	return uts.release;
}

/* ---- payload: xorshift64* words, stored little-endian so every architecture sends the same bytes ---- */

void prng_seed(struct prng *r, uint64_t seed)
{
	r->s = seed ? seed : 0x853c49e6748fea9bULL;   /* xorshift must not start at 0 */
}

void prng_fill(struct prng *r, unsigned char *p, size_t n)   /* n: multiple of 8 */
{
	for (size_t i = 0; i < n; i += 8) {
		r->s ^= r->s >> 12;
		r->s ^= r->s << 25;
		r->s ^= r->s >> 27;
		uint64_t w = r->s * 0x2545f4914f6cdd1dULL;
		for (int b = 0; b < 8; b++)
			p[i + b] = (unsigned char)(w >> (8 * b));
	}
}

/* ---- checksum: order-sensitive 64-bit mix over little-endian words, fed in arbitrary pieces ---- */

void csum_init(struct csum *c)
{
	memset(c, 0, sizeof(*c));
	c->h = 0x6a09e667f3bcc909ULL;
}

static uint64_t le64(const unsigned char *p)
{
	uint64_t w = 0;
	for (int b = 7; b >= 0; b--)
		w = (w << 8) | p[b];
	return w;
}

static void csum_word(struct csum *c, uint64_t w)
{
	c->h ^= w;
	c->h *= 0x9e3779b97f4a7c15ULL;
	c->h ^= c->h >> 29;
}

void csum_update(struct csum *c, const unsigned char *p, size_t n)
{
	c->len += n;
	while (n && c->npend) {   /* complete a word split across reads */
		c->pend[c->npend++] = *p++;
		n--;
		if (c->npend == 8) {
			csum_word(c, le64(c->pend));
			c->npend = 0;
		}
	}
	for (; n >= 8; p += 8, n -= 8)
		csum_word(c, le64(p));
	while (n--)
		c->pend[c->npend++] = *p++;
}

uint64_t csum_final(const struct csum *c0)
{
	struct csum c = *c0;
	if (c.npend) {
		memset(c.pend + c.npend, 0, 8 - c.npend);
		csum_word(&c, le64(c.pend));
	}
	csum_word(&c, c.len);
	return c.h;
}


/* The receiver's expectation, regenerated from the seed rather than taken from the sender. 0 if out of memory
 * (never a stream's real checksum in practice: the run then reports a mismatch). */
uint64_t expected_csum(uint64_t seed, uint64_t bytes)
{
	unsigned char *buf = malloc(CHUNK);   /* streams may run in several threads at once */
	struct prng r;
	struct csum c;
	if (!buf)
		return 0;
	prng_seed(&r, seed);
	csum_init(&c);
	while (bytes) {
		size_t n = bytes < CHUNK ? (size_t)bytes : CHUNK;
		prng_fill(&r, buf, CHUNK);
		csum_update(&c, buf, n);
		bytes -= n;
	}
	free(buf);
	return csum_final(&c);
}

/* ---- sender thread (runs in the sender namespace) ---- */

struct sender {
	const struct scenario *sc;
	uint64_t bytes, seed;
	unsigned timeout_s;
	const struct stream_opts *opts;
	uint64_t sent, csum;
	char err[200];
};

int scenario_addr(const struct scenario *sc, struct sockaddr_storage *ss, socklen_t *len)
{
	memset(ss, 0, sizeof(*ss));
	if (sc->family == AF_INET) {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;
		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)sc->port);
		*len = sizeof(*a);
		return inet_pton(AF_INET, sc->dst, &a->sin_addr) == 1 ? 0 : -EINVAL;
	}
	struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;
	a->sin6_family = AF_INET6;
	a->sin6_port = htons((uint16_t)sc->port);
	*len = sizeof(*a);
	return inet_pton(AF_INET6, sc->dst, &a->sin6_addr) == 1 ? 0 : -EINVAL;
}

static void *sender_main(void *arg)
{
	struct sender *s = arg;
	struct sockaddr_storage ss;
	socklen_t sslen;
	struct prng r;
	struct csum c;
	int fd = -1;
	unsigned char *buf = malloc(CHUNK);

	if (!buf) {
		snprintf(s->err, sizeof(s->err), "sender: malloc failed");
		return NULL;
	}
	int rc = enter_ns(g_sender_ns);
	if (rc) {
		snprintf(s->err, sizeof(s->err), "sender: setns: %s", strerror(-rc));
		goto out;
	}
	scenario_addr(s->sc, &ss, &sslen);
	fd = socket(s->sc->family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(s->err, sizeof(s->err), "sender: socket: %s", strerror(errno));
		goto out;
	}
	if (s->sc->ipopt && setsockopt(fd, IPPROTO_IP, IP_OPTIONS, g_dsr_option, sizeof(g_dsr_option)) < 0) {
		snprintf(s->err, sizeof(s->err), "sender: IP_OPTIONS: %s", strerror(errno));
		goto out;
	}
	/* bounds connect() and every send(): a stalled path becomes an error here, not a hang */
	struct timeval tv = { .tv_sec = s->timeout_s };
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&ss, sslen) < 0) {
		snprintf(s->err, sizeof(s->err), "sender: connect to %s port %d: %s", s->sc->dst, s->sc->port,
			 strerror(errno));
		goto out;
	}
	prng_seed(&r, s->seed);
	csum_init(&c);
	uint64_t limit = s->bytes;
	int tail_set = 0;
	for (;;) {
		const struct stream_opts *o = s->opts;
		if (o && o->open_ended && !tail_set) {
			/* bytes is the minimum: keep sending until told to stop, then 1 MiB more so traffic
			 * follows the last action */
			if (__atomic_load_n(o->stop, __ATOMIC_ACQUIRE)) {
				limit = s->sent + MIB > limit ? s->sent + MIB : limit;
				tail_set = 1;
			} else if (s->sent + CHUNK > limit) {
				limit = s->sent + CHUNK;
			}
			if (limit > o->max_bytes)
				limit = o->max_bytes;
		}
		if (s->sent >= limit)
			break;
		size_t n = limit - s->sent < CHUNK ? (size_t)(limit - s->sent) : CHUNK;
		prng_fill(&r, buf, CHUNK);
		csum_update(&c, buf, n);
		for (size_t off = 0; off < n;) {
			ssize_t w = send(fd, buf + off, n - off, MSG_NOSIGNAL);
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				snprintf(s->err, sizeof(s->err), "sender: send after %" PRIu64 " bytes: %s",
					 s->sent + off, errno == EAGAIN ? "timed out" : strerror(errno));
				goto out;
			}
			off += (size_t)w;
		}
		s->sent += n;
	}
	s->csum = csum_final(&c);
	if (shutdown(fd, SHUT_WR) < 0)
		snprintf(s->err, sizeof(s->err), "sender: shutdown: %s", strerror(errno));
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

/* ---- post-GRO packet count: AF_PACKET on eth0, classic BPF keeps the stream's packets only ---- */

/* Points the conditional jumps of code[0..n-1] written with jt = jf = 0 ("go on, else fail") at the program's
 * last instruction, its ret 0, when they fail. An unconditional jump (BPF_JA: its target is k) is left alone. */
static void filter_fail_to_end(struct sock_filter *code, int n)
{
	for (int i = 0; i < n; i++)
		if (BPF_CLASS(code[i].code) == BPF_JMP && BPF_OP(code[i].code) != BPF_JA && !code[i].jt && !code[i].jf)
			code[i].jf = (unsigned char)(n - 2 - i);
}

/* The filter's program for an IPv4 underlay: the stream's outer protocol from 198.18.0.2 to its underlay address. */
static int filter_ip4(const struct scenario *sc, struct sock_filter *code)
{
	struct in_addr dst;
	if (inet_pton(AF_INET, sc->outer_dst, &dst) != 1)
		return -1;
	const struct sock_filter prog[] = {
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 0),
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xf0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x40, 0, 7),                 /* IPv4 */
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 9),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)sc->outer_proto, 0, 5),   /* TCP, IPIP, SIT or UDP */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 12),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xc6120002, 0, 3),           /* from 198.18.0.2 */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 16),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ntohl(dst.s_addr), 0, 1),     /* to this scenario's underlay */
		BPF_STMT(BPF_RET | BPF_K, 64),                                   /* tiny snap length */
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	memcpy(code, prog, sizeof(prog));
	return (int)(sizeof(prog) / sizeof(prog[0]));
}

/* For an IPv6 underlay: version 6, all 32 address bytes (from 2001:db8:18::2 to the stream's underlay address),
 * and the outer protocol as the next header or behind one destination options header (the encapsulation limit). */
static int filter_ip6(const struct scenario *sc, struct sock_filter *code)
{
	unsigned char a[32];
	int n = 0;
	if (inet_pton(AF_INET6, "2001:db8:18::2", a) != 1 || inet_pton(AF_INET6, sc->outer_dst, a + 16) != 1)
		return -1;
	/* the jumps written with 0/0 below go to the last instruction (ret 0) when they fail, fixed up at the end */
	code[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 0);
	code[n++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xf0);
	code[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x60, 0, 0);
	for (int w = 0; w < 8; w++) {
		code[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (uint32_t)(8 + 4 * w));
		code[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, get32(a + 4 * w), 0, 0);
	}
	code[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 6);
	code[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)sc->outer_proto, 3, 0);
	code[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 60, 0, 0);   /* destination options */
	code[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 40);
	code[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)sc->outer_proto, 0, 0);
	code[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 64);
	code[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0);
	filter_fail_to_end(code, n);
	return n;
}

/* An AF_PACKET socket on eth0 that counts the packets code[0..n-1] accepts (SOCK_DGRAM: the program sees the outer
 * IP header at offset 0); its protocol is the outer family's. The fd, or -1 with err set. */
static int packet_counter_bind(struct sock_filter *code, int n, int outer_family, char *err, size_t cap)
{
	struct sock_fprog prog = { .len = (unsigned short)n, .filter = code };
	int v6 = outer_family == AF_INET6;
	int fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, 0);   /* protocol 0: nothing arrives before bind */
	if (fd < 0) {
		snprintf(err, cap, "packet socket: %s", strerror(errno));
		return -1;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) < 0) {
		snprintf(err, cap, "packet socket: SO_ATTACH_FILTER: %s", strerror(errno));
		close(fd);
		return -1;
	}
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(v6 ? ETH_P_IPV6 : ETH_P_IP),
				   .sll_ifindex = (int)if_nametoindex("eth0") };
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		snprintf(err, cap, "packet socket: bind to eth0: %s", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* received (PACKET_HOST), not sent: the program's first three instructions, the rest after them */
static int filter_received(struct sock_filter *code)
{
	code[0] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (uint32_t)(SKF_AD_OFF + SKF_AD_PKTTYPE));
	code[1] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PACKET_HOST, 1, 0);
	code[2] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0);
	return 3;
}

static int gro_counter_open(const struct scenario *sc, char *err, size_t cap)
{
	struct sock_filter code[32];
	int v6 = sc->outer_family == AF_INET6, k = filter_received(code);
	int n = v6 ? filter_ip6(sc, code + k) : filter_ip4(sc, code + k);
	if (n < 0) {
		snprintf(err, cap, "packet socket: bad outer address %s", sc->outer_dst);
		return -1;
	}
	return packet_counter_bind(code, n + k, sc->outer_family, err, cap);
}

/*
 * The sender's PSH marks, counted after GRO: each wire segment with PSH ends the GRO packet it joins (the kernel's
 * tcp_gro_receive and tungro alike), and that packet's TCP header carries the PSH, so the post-GRO packets with
 * PSH are the wire's PSH segments, whichever engine ran. The program walks a tunnel scenario's headers: the outer
 * IPv4 header (its IHL) or IPv6 header (with one destination options header, the encapsulation limit), the inner
 * IPv4 (its IHL) or IPv6 header, then keeps the stream's TCP segments (inner TCP, destination port) with PSH.
 */
int psh_counter_open(const struct scenario *sc, char *err, size_t cap)
{
	struct sock_filter code[48];
	int n = filter_received(code);
	const uint32_t inner = (uint32_t)sc->outer_proto;

	if (!sc->tundev || (inner != 4 && inner != 41)) {
		snprintf(err, cap, "PSH counter: %s is not an IPIP, SIT or ip6 tunnel scenario", sc->name);
		return -1;
	}
	/* the jumps written with 0/0 below go to the last instruction (ret 0) when they fail, fixed up at the end */
	if (sc->outer_family == AF_INET6) {
		code[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 6);
		code[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, inner, 0, 2);
		code[n++] = (struct sock_filter)BPF_STMT(BPF_LDX | BPF_W | BPF_IMM, 40);
		code[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA, 7, 0, 0);      /* to the inner header */
		code[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 60, 0, 0);   /* destination options */
		code[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 40);
		code[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, inner, 0, 0);
		code[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 41);    /* its length in 8 bytes, - 1 */
		code[n++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_ADD | BPF_K, 1 + 40 / 8);
		code[n++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_LSH | BPF_K, 3);
		code[n++] = (struct sock_filter)BPF_STMT(BPF_MISC | BPF_TAX, 0);
	} else {
		code[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 9);
		code[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, inner, 0, 0);
		code[n++] = (struct sock_filter)BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 0);
	}
	/* X: the inner header's offset */
	if (inner == 4) {
		code[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_B | BPF_IND, 9);
		code[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 6, 0, 0);   /* TCP */
		code[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_B | BPF_IND, 0);
		code[n++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0x0f);
		code[n++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_LSH | BPF_K, 2);
	} else {
		code[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_B | BPF_IND, 6);
		code[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 6, 0, 0);   /* TCP */
		code[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_IMM, 40);
	}
	code[n++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_ADD | BPF_X, 0);
	code[n++] = (struct sock_filter)BPF_STMT(BPF_MISC | BPF_TAX, 0);           /* X: the TCP header's offset */
	code[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_H | BPF_IND, 2);
	code[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)sc->port, 0, 0);
	code[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_B | BPF_IND, 13);
	code[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x08, 0, 0);   /* PSH */
	code[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 1);
	code[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0);
	filter_fail_to_end(code, n);
	return packet_counter_bind(code, n, sc->outer_family, err, cap);
}

/* Packets that passed the filter since the last call: reading resets the counters, drops are included. */
int packet_counter_read(int fd, uint64_t *n)
{
	struct tpacket_stats st;
	socklen_t len = sizeof(st);
	if (getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &st, &len) < 0)
		return -errno;
	*n = st.tp_packets;
	return 0;
}

static int dev_rx(const char *dev, uint64_t *v)
{
	char path[96];
	if (!dev) {
		*v = 0;
		return 0;
	}
	snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/rx_packets", dev);
	return read_u64(path, v);
}

/* ---- the run ---- */

unsigned stream_timeout(uint64_t bytes)
{
	/* generous for TCG, m68k included: 60 s plus 10 s per MiB */
	return 60u + (unsigned)(bytes / MIB) * 10u;
}

int run_stream(const struct scenario *sc, const char *engine, uint64_t bytes, uint64_t seed, unsigned timeout_s,
	       const struct stream_opts *opts, struct run_result *r)
{
	struct sender s = { .sc = sc, .bytes = bytes, .seed = seed, .timeout_s = timeout_s, .opts = opts };
	struct stats tg_before, tg_after;
	uint64_t wire0 = 0, wire1 = 0, tun0 = 0, tun1 = 0, gro = 0;
	int lfd = -1, cfd = -1, pfd = -1, rc, started = 0;
	pthread_t th;
	unsigned char *buf = NULL;
	struct csum c;

	csum_init(&c);
	memset(r, 0, sizeof(*r));
	r->scenario = sc->name;
	r->engine = engine;
	snprintf(r->reasons, sizeof(r->reasons), "-");

	struct sockaddr_storage ss;
	socklen_t sslen;
	scenario_addr(sc, &ss, &sslen);
	lfd = socket(sc->family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0) {
		snprintf(r->err, sizeof(r->err), "receiver: socket: %s", strerror(errno));
		goto out;
	}
	int one = 1;
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&ss, sslen) < 0 || listen(lfd, 1) < 0) {
		snprintf(r->err, sizeof(r->err), "receiver: bind/listen %s port %d: %s", sc->dst, sc->port,
			 strerror(errno));
		goto out;
	}
	pfd = opts && opts->no_tap ? -1 : gro_counter_open(sc, r->err, sizeof(r->err));
	if (pfd < 0 && !(opts && opts->no_tap))
		goto out;
	if ((pfd >= 0 && (rc = packet_counter_read(pfd, &gro))) || (rc = dev_rx("eth0", &wire0)) ||
	    (rc = dev_rx(sc->tundev, &tun0))) {
		snprintf(r->err, sizeof(r->err), "receiver: counters before the stream: %s", strerror(-rc));
		goto out;
	}
	r->have_stats = mod_loaded();
	if (r->have_stats && (rc = stats_read(&tg_before))) {
		snprintf(r->err, sizeof(r->err), "read %s before the stream: %s", STATS_PATH, strerror(-rc));
		goto out;
	}
	buf = malloc(CHUNK);
	if (!buf) {
		snprintf(r->err, sizeof(r->err), "receiver: malloc failed");
		goto out;
	}

	if ((rc = pthread_create(&th, NULL, sender_main, &s)) != 0) {
		snprintf(r->err, sizeof(r->err), "pthread_create (sender): %s", strerror(rc));
		goto out;
	}
	started = 1;

	struct pollfd p = { .fd = lfd, .events = POLLIN };
	rc = poll(&p, 1, (int)timeout_s * 1000);
	if (rc <= 0) {
		snprintf(r->err, sizeof(r->err), "receiver: no connection within %u s%s%s", timeout_s,
			 rc < 0 ? ": " : "", rc < 0 ? strerror(errno) : "");
		goto out;
	}
	cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (cfd < 0) {
		snprintf(r->err, sizeof(r->err), "receiver: accept: %s", strerror(errno));
		goto out;
	}
	struct timeval tv = { .tv_sec = 20 };   /* any 20 s without data is a failure */
	setsockopt(cfd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	csum_init(&c);
	uint64_t t0 = now_us(), deadline = t0 + (uint64_t)timeout_s * 1000000u;
	for (;;) {
		ssize_t n = recv(cfd, buf, CHUNK, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(r->err, sizeof(r->err), "receiver: recv after %" PRIu64 " bytes: %s", r->bytes,
				 errno == EAGAIN ? "no data for 20 s" : strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		csum_update(&c, buf, (size_t)n);
		r->bytes += (uint64_t)n;
		if (opts && opts->progress)
			__atomic_store_n(opts->progress, (unsigned long)r->bytes, __ATOMIC_RELEASE);
		if (now_us() > deadline) {
			snprintf(r->err, sizeof(r->err), "receiver: stream not done after %u s (%" PRIu64 " bytes)",
				 timeout_s, r->bytes);
			goto out;
		}
	}
	r->usecs = now_us() - t0;
	if (!r->usecs)
		r->usecs = 1;

	/* every data packet went through GRO and the tap before TCP saw it: the counters are final */
	if ((pfd >= 0 && (rc = packet_counter_read(pfd, &gro))) || (rc = dev_rx("eth0", &wire1)) ||
	    (rc = dev_rx(sc->tundev, &tun1))) {
		snprintf(r->err, sizeof(r->err), "receiver: counters after the stream: %s", strerror(-rc));
		goto out;
	}
	if (r->have_stats) {
		if ((rc = stats_read(&tg_after))) {
			snprintf(r->err, sizeof(r->err), "read %s after the stream: %s", STATS_PATH, strerror(-rc));
			goto out;
		}
		stats_delta(&r->tg, &tg_after, &tg_before);
		stats_top_reasons(&r->tg, r->reasons, sizeof(r->reasons));
	}
	r->wire_segs = wire1 - wire0;
	r->gro_pkts = gro;
	r->tun_rx = tun1 - tun0;
	r->segs_per_gro = gro ? (double)r->wire_segs / (double)gro : 0.0;
	r->ok = 1;

out:
	if (cfd >= 0)
		close(cfd);   /* on error this also unblocks the sender */
	if (lfd >= 0)
		close(lfd);
	if (pfd >= 0)
		close(pfd);
	if (started) {
		pthread_join(th, NULL);
		if (s.err[0] && !r->err[0])
			snprintf(r->err, sizeof(r->err), "%s", s.err);
		if (s.err[0])
			r->ok = 0;
	}
	free(buf);
	r->sent = s.sent;
	if (r->ok) {
		uint64_t want = expected_csum(seed, s.sent);
		uint64_t got = csum_final(&c);
		r->csum_ok = got == want && s.csum == want && r->bytes == s.sent &&
			     (opts && opts->open_ended ? 1 : s.sent == bytes);
		if (!r->csum_ok)
			snprintf(r->err, sizeof(r->err),
				 "data mismatch: asked %" PRIu64 " sent %" PRIu64 " received %" PRIu64
				 " csum rx %016" PRIx64 " tx %016" PRIx64 " expected %016" PRIx64,
				 bytes, s.sent, r->bytes, got, s.csum, want);
	}
	return r->ok && r->csum_ok ? 0 : -1;
}

void print_result(const struct run_result *r)
{
	char extra[256] = "";
	if (r->have_stats) {
		uint64_t held = stats_get(&r->tg, "held"), merged = stats_get(&r->tg, "merged"),
			 passed = stats_get(&r->tg, "passed");
		snprintf(extra, sizeof(extra),
			 " tg_seen=%" PRIu64 " tg_held=%" PRIu64 " tg_merged=%" PRIu64 " tg_passed=%" PRIu64
			 " tg_segs_per_gro=%.2f",
			 stats_get(&r->tg, "seen"), held, merged, passed,
			 held + passed ? (double)(held + merged + passed) / (double)(held + passed) : 0.0);
	}
	out("RESULT arch=%s kernel=%s scenario=%s engine=%s bytes=%" PRIu64 " usecs=%" PRIu64 " wire_segs=%" PRIu64
	    " gro_pkts=%" PRIu64 " segs_per_gro=%.2f csum=%s reasons=%s tun_rx=%" PRIu64 "%s",
	    uname_machine(), uname_release(), r->scenario, r->engine, r->bytes, r->usecs, r->wire_segs, r->gro_pkts,
	    r->segs_per_gro, r->ok && r->csum_ok ? "ok" : "BAD", r->reasons, r->tun_rx, extra);
	if (r->err[0])
		out("# %s/%s: %s", r->scenario, r->engine, r->err);
}
