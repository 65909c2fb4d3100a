/* flows.c - paced datagram flows through the tunnels, counted one by one: UDP datagrams from the sender to a
 * receiver socket, and ICMP/ICMPv6 echo requests answered by the receiver's kernel. Every datagram carries a
 * sequence number and bytes derived from it, so loss, duplication, corruption and reordering are all seen. */
#include "agent.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define FLOW_MAGIC 0x74676466u   /* "tgdf" */
#define FLOW_HDR 16              /* magic, length, 64-bit sequence number */
#define FLOW_MAX_LEN 1200        /* fits both tunnels' MTUs with the inner IPv6 header */
#define FLOW_MAX_SEQ (1u << 20)  /* bitmap size: at one datagram per ms, 17 minutes */
#define QUIET_MS 2000            /* after the last send: this long without a datagram and the flow is over */

static uint64_t flow_quiet_us(const struct flow *f)
{
	return (uint64_t)(f->quiet_ms ? f->quiet_ms : QUIET_MS) * 1000u;
}

/* Size and bytes of datagram seq: sizes vary (64..FLOW_MAX_LEN) so the flow is not one length only. */
static size_t flow_len(const struct flow *f, uint64_t seq)
{
	return f->icmp ? 8 + 64 + (size_t)(seq * 389 % 129) : 64 + (size_t)(seq * 389 % (FLOW_MAX_LEN - 63));
}

static unsigned char flow_byte(uint64_t seq, size_t i)
{
	return (unsigned char)(seq * 131 + i * 7 + (seq >> 8) + (i >> 8));
}

static void put32(unsigned char *p, uint32_t v)
{
	for (int b = 0; b < 4; b++)
		p[b] = (unsigned char)(v >> (24 - 8 * b));
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The flow's own bytes from off (after the ICMP header for echo, from 0 for UDP): header, then pattern. */
static void flow_fill(unsigned char *p, size_t len, uint64_t seq)
{
	put32(p, FLOW_MAGIC);
	put32(p + 4, (uint32_t)len);
	put32(p + 8, (uint32_t)(seq >> 32));
	put32(p + 12, (uint32_t)seq);
	for (size_t i = FLOW_HDR; i < len; i++)
		p[i] = flow_byte(seq, i);
}

/* Sequence number of an intact datagram, or -1 if any byte is not what the sender wrote. */
static int64_t flow_parse(const unsigned char *p, size_t len)
{
	if (len < FLOW_HDR || get32(p) != FLOW_MAGIC || get32(p + 4) != len)
		return -1;
	uint64_t seq = (uint64_t)get32(p + 8) << 32 | get32(p + 12);
	if (seq >= FLOW_MAX_SEQ)
		return -1;
	for (size_t i = FLOW_HDR; i < len; i++)
		if (p[i] != flow_byte(seq, i))
			return -1;
	return (int64_t)seq;
}

/* Counts one arrival: new, duplicate or behind the newest one seen. */
static void flow_count(struct flow *f, const unsigned char *p, size_t len)
{
	int64_t seq = flow_parse(p, len);
	if (seq < 0) {
		f->corrupt++;
		return;
	}
	unsigned char bit = (unsigned char)(1u << (seq & 7));
	if (f->seen[seq >> 3] & bit) {
		f->dup++;
		return;
	}
	f->seen[seq >> 3] |= bit;
	f->received++;
	if (f->received > 1 && (uint64_t)seq < f->newest)
		f->reorder++;
	if ((uint64_t)seq > f->newest || f->received == 1)
		f->newest = (uint64_t)seq;
}

static int make_sockaddr(const struct flow *f, struct sockaddr_storage *ss, socklen_t *len)
{
	memset(ss, 0, sizeof(*ss));
	if (f->family == AF_INET) {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;
		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)f->port);
		*len = sizeof(*a);
		return inet_pton(AF_INET, f->dst, &a->sin_addr) == 1 ? 0 : -EINVAL;
	}
	struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;
	a->sin6_family = AF_INET6;
	a->sin6_port = htons((uint16_t)f->port);
	*len = sizeof(*a);
	return inet_pton(AF_INET6, f->dst, &a->sin6_addr) == 1 ? 0 : -EINVAL;
}

static void sleep_until(uint64_t t_us)
{
	struct timespec ts = { .tv_sec = (time_t)(t_us / 1000000u), .tv_nsec = (long)(t_us % 1000000u) * 1000L };
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* Paced schedule: datagram n leaves at start + n * gap. After a stall (a descheduled vCPU under TCG) the
 * schedule restarts from now instead of sending the backlog in one burst the receiver could not absorb. */
static void pace(struct flow *f, uint64_t *next)
{
	uint64_t now = now_us();
	if (now > *next + 50000u)
		*next = now;
	sleep_until(*next);
	*next += f->gap_us;
}

static int stopping(const struct flow *f)
{
	return __atomic_load_n(f->stop, __ATOMIC_ACQUIRE) || f->sent >= FLOW_MAX_SEQ;
}

/* ---- UDP: sender thread in the sender namespace, receiver thread in the initial one ---- */

static void *udp_sender_main(void *arg)
{
	struct flow *f = arg;
	unsigned char buf[FLOW_MAX_LEN];
	struct sockaddr_storage ss;
	socklen_t sslen;
	int fd = -1, rc = enter_ns(g_sender_ns);

	if (rc) {
		snprintf(f->err, sizeof(f->err), "sender: setns: %s", strerror(-rc));
		goto out;
	}
	make_sockaddr(f, &ss, &sslen);
	fd = socket(f->family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&ss, sslen) < 0) {
		snprintf(f->err, sizeof(f->err), "sender: socket/connect to %s port %d: %s", f->dst, f->port,
			 strerror(errno));
		goto out;
	}
	for (uint64_t next = now_us(); !stopping(f);) {
		size_t len = flow_len(f, f->sent);
		pace(f, &next);
		flow_fill(buf, len, f->sent);
		if (send(fd, buf, len, 0) < 0) {
			/* a local refusal (no buffer, unreachable) is counted, not retried: the seq stays a gap */
			f->send_err++;
		}
		f->sent++;
	}
out:
	if (fd >= 0)
		close(fd);
	__atomic_store_n(&f->tx_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *udp_receiver_main(void *arg)
{
	struct flow *f = arg;
	unsigned char buf[FLOW_MAX_LEN + 64];
	uint64_t quiet_since = 0;

	for (;;) {
		struct pollfd p = { .fd = f->rx_fd, .events = POLLIN };
		int n = poll(&p, 1, 100);
		if (n > 0) {
			ssize_t len = recv(f->rx_fd, buf, sizeof(buf), MSG_TRUNC);
			if (len >= 0) {
				flow_count(f, buf, (size_t)len > sizeof(buf) ? sizeof(buf) : (size_t)len);
				quiet_since = 0;
			}
			continue;
		}
		if (!__atomic_load_n(&f->tx_done, __ATOMIC_ACQUIRE))
			continue;
		if (!quiet_since)
			quiet_since = now_us();
		if (now_us() - quiet_since > flow_quiet_us(f))
			break;
	}
	return NULL;
}

/* ---- ICMP echo: one thread in the sender namespace sends requests and reads replies on a ping socket ---- */

static void icmp_take_replies(struct flow *f, int fd)
{
	unsigned char buf[FLOW_MAX_LEN + 64];
	for (;;) {
		ssize_t len = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (len < 0)
			return;
		/* the ping socket hands over the ICMP header and data; ours follows the 8-byte echo header */
		unsigned char type = buf[0];
		if (len < 8 || type != (f->family == AF_INET ? ICMP_ECHOREPLY : ICMP6_ECHO_REPLY)) {
			f->corrupt++;
			continue;
		}
		flow_count(f, buf + 8, (size_t)len - 8);
	}
}

static void *icmp_main(void *arg)
{
	struct flow *f = arg;
	unsigned char buf[FLOW_MAX_LEN];
	struct sockaddr_storage ss;
	socklen_t sslen;
	int fd = -1, rc = enter_ns(g_sender_ns);

	if (rc) {
		snprintf(f->err, sizeof(f->err), "icmp: setns: %s", strerror(-rc));
		goto out;
	}
	make_sockaddr(f, &ss, &sslen);
	/* ping socket: the kernel sets the echo identifier and checksum and hands us only our replies */
	fd = socket(f->family, SOCK_DGRAM | SOCK_CLOEXEC, f->family == AF_INET ? IPPROTO_ICMP : IPPROTO_ICMPV6);
	if (fd < 0) {
		snprintf(f->err, sizeof(f->err), "icmp: ping socket: %s (net.ipv4.ping_group_range?)", strerror(errno));
		goto out;
	}
	for (uint64_t next = now_us(); !stopping(f);) {
		size_t len = flow_len(f, f->sent);
		pace(f, &next);
		memset(buf, 0, 8);
		buf[0] = f->family == AF_INET ? ICMP_ECHO : ICMP6_ECHO_REQUEST;
		buf[6] = (unsigned char)(f->sent >> 8);
		buf[7] = (unsigned char)f->sent;
		flow_fill(buf + 8, len - 8, f->sent);
		if (sendto(fd, buf, len, 0, (struct sockaddr *)&ss, sslen) < 0)
			f->send_err++;
		f->sent++;
		icmp_take_replies(f, fd);
	}
	/* replies still on their way: wait until all are in or nothing came for QUIET_MS */
	for (uint64_t last = now_us(); f->received + f->dup < f->sent && now_us() - last < flow_quiet_us(f);) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (poll(&p, 1, 100) > 0) {
			icmp_take_replies(f, fd);
			last = now_us();
		}
	}
out:
	if (fd >= 0)
		close(fd);
	__atomic_store_n(&f->tx_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

int flow_start(struct flow *f)
{
	struct sockaddr_storage ss;
	socklen_t sslen;
	int rc;

	f->sent = f->received = f->dup = f->corrupt = f->reorder = f->send_err = f->newest = 0;
	f->tx_done = 0;
	f->err[0] = 0;
	f->rx_fd = -1;
	f->nthreads = 0;
	f->seen = calloc(FLOW_MAX_SEQ / 8, 1);
	if (!f->seen) {
		snprintf(f->err, sizeof(f->err), "out of memory");
		return -1;
	}
	if (!f->icmp) {
		/* the receiver socket exists before the first datagram leaves; a large buffer rides out a
		 * receiver thread that TCG leaves unscheduled for a while */
		make_sockaddr(f, &ss, &sslen);
		f->rx_fd = socket(f->family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		int big = 4 * (int)MIB;
		if (f->rx_fd < 0 || bind(f->rx_fd, (struct sockaddr *)&ss, sslen) < 0 ||
		    setsockopt(f->rx_fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)) < 0) {
			snprintf(f->err, sizeof(f->err), "receiver: socket/bind %s port %d: %s", f->dst, f->port,
				 strerror(errno));
			return -1;
		}
		if ((rc = pthread_create(&f->th[f->nthreads], NULL, udp_receiver_main, f)) != 0) {
			snprintf(f->err, sizeof(f->err), "pthread_create: %s", strerror(rc));
			return -1;
		}
		f->nthreads++;
	}
	rc = pthread_create(&f->th[f->nthreads], NULL, f->icmp ? icmp_main : udp_sender_main, f);
	if (rc) {
		snprintf(f->err, sizeof(f->err), "pthread_create: %s", strerror(rc));
		/* the receiver thread ends on its own once it sees no sender */
		__atomic_store_n(&f->tx_done, 1, __ATOMIC_RELEASE);
		return -1;
	}
	f->nthreads++;
	return 0;
}

void flow_join(struct flow *f)
{
	for (int i = 0; i < f->nthreads; i++)
		pthread_join(f->th[i], NULL);
	f->nthreads = 0;
	if (f->rx_fd >= 0)
		close(f->rx_fd);
	f->rx_fd = -1;
	free(f->seen);
	f->seen = NULL;
}

uint64_t flow_lost(const struct flow *f)
{
	return f->sent > f->received ? f->sent - f->received : 0;
}
