/* udpgro.c - the demo's UDP scenario (issue 9, case U01 on the wire): a UDP_GRO receiver over IPIP.
 *
 * The sender namespace sends numbered 1200-byte datagrams through its IPIP tunnel to a receiver socket with
 * UDP_GRO set on the receiver's ipip1 address, in bursts of 48 (one sendmsg with UDP_SEGMENT: the sender's GSO
 * cuts it into datagrams, so they land back to back, in one NAPI poll). The receiver reads with recvmsg and the
 * UDP_GRO cmsg (the segment size of a GRO packet): datagrams per read are the segments per GRO packet as the
 * socket sees them. Every datagram is checked byte for byte (its number, then bytes derived from it), in order.
 * Engines: the kernel's GRO (6.12's udp_gro_receive inside ipip_gro_receive) and tungro's engine (eth0
 * attached); tungro's offloads hand UDP to the kernel's callbacks, so they are the kernel's here. A datagram
 * that differs, comes twice or out of order fails the run; lost datagrams (UDP may drop) and the ratios are
 * reported.
 */
#include "agent.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif

#define UG_DST "198.19.1.1"     /* the receiver's ipip1 address (net.c) */
#define UG_PORT 5010
#define UG_SIZE 1200            /* datagram payload: the case file's U01 */
#define UG_BURST 48             /* datagrams per sendmsg (UDP_SEGMENT): 57,600 bytes */
#define UG_BURSTS 64            /* per engine and round */
#define UG_ROUNDS 3

/* Byte j of datagram n: its number (little-endian, 8 bytes), then a pattern of n and j. */
static void ug_fill(unsigned char *p, uint64_t n)
{
	for (int j = 0; j < 8; j++)
		p[j] = (unsigned char)(n >> (8 * j));
	for (int j = 8; j < UG_SIZE; j++)
		p[j] = (unsigned char)(n * 131u + (unsigned)j * 7u);
}

struct ug_send {
	uint64_t first;          /* number of the first datagram */
	int err;
};

static void *ug_sender(void *arg)
{
	struct ug_send *s = arg;
	static unsigned char buf[UG_BURST * UG_SIZE];
	struct sockaddr_in dst = { .sin_family = AF_INET, .sin_port = htons(UG_PORT) };
	int fd, seg = UG_SIZE;

	if ((s->err = enter_ns(g_sender_ns)))
		return NULL;
	inet_pton(AF_INET, UG_DST, &dst.sin_addr);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || setsockopt(fd, SOL_UDP, UDP_SEGMENT, &seg, sizeof(seg)) ||
	    connect(fd, (struct sockaddr *)&dst, sizeof(dst))) {
		s->err = -errno;
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	for (int b = 0; b < UG_BURSTS; b++) {
		for (int k = 0; k < UG_BURST; k++)
			ug_fill(buf + k * UG_SIZE, s->first + (uint64_t)b * UG_BURST + k);
		if (send(fd, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf)) {
			s->err = -errno;
			break;
		}
		sleep_ms(2); /* a burst per poll or so: bursts, not a flood the receiver drops */
	}
	close(fd);
	return NULL;
}

/* One engine's round: reads, datagrams, damaged ones, the largest run of datagrams in one read. */
struct ug_count {
	uint64_t reads, datagrams, bad, max_per_read;
};

/* Reads until @want datagrams arrived or 1 s passes without one; checks each (numbers from @first, in order). */
static void ug_receive(int fd, uint64_t first, uint64_t want, struct ug_count *c, char *why, size_t cap)
{
	static unsigned char buf[65536], expect[UG_SIZE];
	uint64_t next = first;

	while (c->datagrams < want) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		char ctl[CMSG_SPACE(sizeof(int))];
		struct iovec iov = { buf, sizeof(buf) };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof(ctl) };
		int gso = 0;

		if (poll(&pfd, 1, 1000) <= 0)
			break;
		ssize_t n = recvmsg(fd, &m, 0);
		if (n <= 0)
			break;
		for (struct cmsghdr *cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm))
			if (cm->cmsg_level == SOL_UDP && cm->cmsg_type == UDP_GRO)
				memcpy(&gso, CMSG_DATA(cm), sizeof(gso));
		if (!gso)
			gso = (int)n;
		c->reads++;
		uint64_t in_read = 0;
		for (ssize_t off = 0; off < n; off += gso, in_read++) {
			ssize_t len = n - off < gso ? n - off : gso;
			uint64_t num = 0;
			for (int j = 0; j < 8 && j < len; j++)
				num |= (uint64_t)buf[off + j] << (8 * j);
			ug_fill(expect, num);
			if (len != UG_SIZE || num < next || memcmp(buf + off, expect, UG_SIZE)) {
				if (!c->bad)
					snprintf(why, cap, "datagram %" PRIu64 " (expected from %" PRIu64 "): %zd bytes%s",
						 num, next, len, num < next ? ", out of order or twice" : ", bytes differ");
				c->bad++;
			}
			next = num + 1;
			c->datagrams++;
		}
		if (in_read > c->max_per_read)
			c->max_per_read = in_read;
	}
}

/* The receiver socket: UDP_GRO on, a buffer for a few bursts. -errno on failure. */
static int ug_socket(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(UG_PORT) };
	int fd = socket(AF_INET, SOCK_DGRAM, 0), one = 1, rcvbuf = 4 * 1024 * 1024;

	if (fd < 0)
		return -errno;
	inet_pton(AF_INET, UG_DST, &a.sin_addr);
	if (setsockopt(fd, SOL_UDP, UDP_GRO, &one, sizeof(one)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)) || bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		int rc = -errno;
		close(fd);
		return rc;
	}
	return fd;
}

void demo_udp_gro(void)
{
	static const int engines[] = { ENG_KERNEL, ENG_ENGINE };
	struct ug_count tot[2] = { { 0 } };
	uint64_t sent = 0, number = 0, rehomes = 0;
	char why[200] = "";
	int rc;

	for (int round = 0; round < UG_ROUNDS; round++) {
		for (int e = 0; e < 2; e++) {
			int kind = engines[round & 1 ? 1 - e : e]; /* kernel, engine; engine, kernel; ... */
			struct ug_send s = { .first = number };
			struct ug_count c = { 0 };
			pthread_t th;
			int fd;

			if ((rc = eng_enter(kind))) {
				fail("udp-gro-ipip: entering %s: %s", g_eng_name[kind], strerror(-rc));
				return;
			}
			if ((fd = ug_socket()) < 0) {
				fail("udp-gro-ipip: receiver socket: %s", strerror(-fd));
				return;
			}
			if (pthread_create(&th, NULL, ug_sender, &s)) {
				close(fd);
				fail("udp-gro-ipip: sender thread");
				return;
			}
			ug_receive(fd, number, (uint64_t)UG_BURSTS * UG_BURST, &c, why, sizeof(why));
			pthread_join(th, NULL);
			if (kind == ENG_ENGINE) {
				/* polls that followed the interrupt to another CPU (each a chance to reorder) */
				struct stats st;

				if (!kv_read(ENGINE_STATS_PATH, &st, 0))
					rehomes += stats_get(&st, "rehomes");
			}
			close(fd);
			if (s.err) {
				fail("udp-gro-ipip: sender: %s", strerror(-s.err));
				return;
			}
			number += (uint64_t)UG_BURSTS * UG_BURST;
			sent += kind == ENG_KERNEL ? (uint64_t)UG_BURSTS * UG_BURST : 0;
			int i = kind == ENG_KERNEL ? 0 : 1;
			tot[i].reads += c.reads;
			tot[i].datagrams += c.datagrams;
			tot[i].bad += c.bad;
			if (c.max_per_read > tot[i].max_per_read)
				tot[i].max_per_read = c.max_per_read;
		}
	}
	eng_enter(ENG_KERNEL);
	for (int i = 0; i < 2; i++) {
		const struct ug_count *c = &tot[i];
		out("RESULT arch=%s kernel=%s scenario=udp-gro-ipip engine=%s sent=%" PRIu64 " received=%" PRIu64
		    " reads=%" PRIu64 " datagrams_per_read=%.2f max_per_read=%" PRIu64 " damaged=%" PRIu64,
		    uname_machine(), uname_release(), g_eng_name[engines[i]], sent, c->datagrams, c->reads,
		    c->reads ? (double)c->datagrams / (double)c->reads : 0.0, c->max_per_read, c->bad);
	}
	check("udp-gro-ipip datagrams intact, in order", !tot[0].bad && !tot[1].bad, "%s; engine polls re-homed: %" PRIu64,
	      why[0] ? why : "all intact", rehomes);
	check("udp-gro-ipip the engine merges for a UDP_GRO socket", tot[1].max_per_read > 1,
	      "engine: at most %" PRIu64 " datagrams per read (kernel %" PRIu64 ")", tot[1].max_per_read,
	      tot[0].max_per_read);
}
