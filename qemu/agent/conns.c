/* conns.c - many concurrent TCP connections from the sender namespace to one receiver port (the demo's 200
 * connections over IPIP, seed 003: more flows than a GRO table holds), each checked byte for byte.
 *
 * One sender thread writes to every connection in turn (non-blocking, poll), the calling thread receives them all
 * (poll). Connection i's bytes are the xorshift stream of seed ^ its source port, so the receiver needs no header;
 * the sender's and the receiver's checksums of each connection must agree, and so must their byte counts.
 */
#include "agent.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_CONNS 256
#define PIECE (8u * 1024u)      /* bytes generated per connection at a time (a multiple of 8) */

struct conn_tx {
	int fd, port, done;
	unsigned off, len;      /* what of buf is still to send */
	uint64_t sent;
	struct prng r;
	struct csum c;
	unsigned char buf[PIECE];
};

struct conns_tx {
	const struct scenario *sc;
	int n;
	uint64_t bytes_each, seed;
	unsigned timeout_s;
	const struct stream_opts *opts;
	struct conn_tx *c;
	char err[200];
};

static uint16_t sock_port(int fd, int peer)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	if ((peer ? getpeername(fd, (struct sockaddr *)&ss, &len) : getsockname(fd, (struct sockaddr *)&ss, &len)) < 0)
		return 0;
	return ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port :
		     ((struct sockaddr_in6 *)&ss)->sin6_port);
}

/* Next piece of connection c, or 0 when it has sent all it should (then it is shut down for writing). */
static int conn_next(struct conns_tx *t, struct conn_tx *c)
{
	const struct stream_opts *o = t->opts;
	uint64_t limit = t->bytes_each;
	if (o && o->open_ended)
		limit = __atomic_load_n(o->stop, __ATOMIC_ACQUIRE) ? c->sent : o->max_bytes / (uint64_t)t->n;
	if (c->sent >= limit)
		return 0;
	unsigned n = limit - c->sent < PIECE ? (unsigned)(limit - c->sent) : PIECE;
	prng_fill(&c->r, c->buf, PIECE);
	csum_update(&c->c, c->buf, n);
	c->off = 0;
	c->len = n;
	return 1;
}

static void *conns_sender(void *arg)
{
	struct conns_tx *t = arg;
	struct sockaddr_storage ss;
	socklen_t sslen;
	struct pollfd *p = calloc((size_t)t->n, sizeof(*p));
	int rc = enter_ns(g_sender_ns), left = t->n;

	if (!p || rc) {
		snprintf(t->err, sizeof(t->err), "sender: %s", p ? strerror(-rc) : "calloc failed");
		goto out;
	}
	scenario_addr(t->sc, &ss, &sslen);
	for (int i = 0; i < t->n; i++) {
		struct conn_tx *c = &t->c[i];
		struct timeval tv = { .tv_sec = t->timeout_s };
		c->fd = socket(t->sc->family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (c->fd < 0) {
			snprintf(t->err, sizeof(t->err), "sender: socket %d: %s", i, strerror(errno));
			goto out;
		}
		setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		if (connect(c->fd, (struct sockaddr *)&ss, sslen) < 0) {
			snprintf(t->err, sizeof(t->err), "sender: connect %d to %s port %d: %s", i, t->sc->dst,
				 t->sc->port, strerror(errno));
			goto out;
		}
		c->port = sock_port(c->fd, 0);
		prng_seed(&c->r, t->seed ^ (uint64_t)c->port);
		csum_init(&c->c);
		fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK);
	}
	while (left) {
		for (int i = 0; i < t->n; i++) {
			p[i].fd = t->c[i].done ? -1 : t->c[i].fd;
			p[i].events = POLLOUT;
		}
		rc = poll(p, (nfds_t)t->n, (int)t->timeout_s * 1000);
		if (rc <= 0) {
			snprintf(t->err, sizeof(t->err), "sender: no connection writable for %u s", t->timeout_s);
			goto out;
		}
		for (int i = 0; i < t->n; i++) {
			struct conn_tx *c = &t->c[i];
			if (c->done || !(p[i].revents & (POLLOUT | POLLERR | POLLHUP)))
				continue;
			if (c->off == c->len && !conn_next(t, c)) {
				shutdown(c->fd, SHUT_WR);
				c->done = 1;
				left--;
				continue;
			}
			ssize_t w = send(c->fd, c->buf + c->off, c->len - c->off, MSG_NOSIGNAL);
			if (w < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (w < 0) {
				snprintf(t->err, sizeof(t->err), "sender: connection %d: send after %" PRIu64 " bytes: %s",
					 i, c->sent, strerror(errno));
				goto out;
			}
			c->off += (unsigned)w;
			c->sent += (uint64_t)w;
		}
	}
out:
	free(p);
	return NULL;
}

struct conn_rx {
	int fd, port, eof;
	uint64_t bytes;
	struct csum c;
};

int run_conns(const struct scenario *sc, int nconn, uint64_t bytes, uint64_t seed, unsigned timeout_s,
	      const struct stream_opts *opts, struct run_result *r)
{
	struct conns_tx t = { .sc = sc, .n = nconn, .bytes_each = bytes / (uint64_t)(nconn > 0 ? nconn : 1),
			      .seed = seed, .timeout_s = timeout_s, .opts = opts };
	struct conn_rx *rx = calloc(MAX_CONNS, sizeof(*rx));
	struct pollfd *p = calloc(MAX_CONNS + 1, sizeof(*p));
	unsigned char *buf = malloc(CHUNK);
	struct sockaddr_storage ss;
	socklen_t sslen;
	pthread_t th;
	int lfd = -1, accepted = 0, eofs = 0, started = 0, one = 1;

	memset(r, 0, sizeof(*r));
	r->scenario = sc->name;
	r->engine = "conns";
	snprintf(r->reasons, sizeof(r->reasons), "-");
	t.c = calloc((size_t)(nconn > 0 ? nconn : 1), sizeof(*t.c));
	if (!rx || !p || !buf || !t.c || nconn < 1 || nconn > MAX_CONNS) {
		snprintf(r->err, sizeof(r->err), "run_conns: %d connections (1..%d) or out of memory", nconn, MAX_CONNS);
		goto out;
	}
	scenario_addr(sc, &ss, &sslen);
	lfd = socket(sc->family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(lfd, (struct sockaddr *)&ss, sslen) < 0 || listen(lfd, MAX_CONNS) < 0) {
		snprintf(r->err, sizeof(r->err), "receiver: listen on %s port %d: %s", sc->dst, sc->port, strerror(errno));
		goto out;
	}
	int rc = pthread_create(&th, NULL, conns_sender, &t);
	if (rc) {
		snprintf(r->err, sizeof(r->err), "pthread_create (sender): %s", strerror(rc));
		goto out;
	}
	started = 1;
	uint64_t t0 = now_us();
	while (eofs < nconn) {
		int np = 0;
		if (accepted < nconn)
			p[np++] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		for (int i = 0; i < accepted; i++)
			p[np++] = (struct pollfd){ .fd = rx[i].eof ? -1 : rx[i].fd, .events = POLLIN };
		rc = poll(p, (nfds_t)np, 20000);
		if (rc <= 0) {
			snprintf(r->err, sizeof(r->err), "receiver: no data for 20 s (%d of %d connections accepted, %d done)",
				 accepted, nconn, eofs);
			goto out;
		}
		int k = 0;
		if (accepted < nconn && (p[k++].revents & POLLIN)) {
			int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
			if (fd >= 0) {
				rx[accepted].fd = fd;
				rx[accepted].port = sock_port(fd, 1);
				csum_init(&rx[accepted].c);
				accepted++;
			}
		}
		for (int i = 0; k < np && i < accepted; i++, k++) {
			struct conn_rx *c = &rx[i];
			if (c->eof || !p[k].revents)
				continue;
			ssize_t n = recv(c->fd, buf, CHUNK, 0);
			if (n < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (n < 0) {
				snprintf(r->err, sizeof(r->err), "receiver: connection from port %d: recv: %s", c->port,
					 strerror(errno));
				goto out;
			}
			if (n == 0) {
				c->eof = 1;
				eofs++;
				continue;
			}
			csum_update(&c->c, buf, (size_t)n);
			c->bytes += (uint64_t)n;
			r->bytes += (uint64_t)n;
			if (opts && opts->progress)
				__atomic_store_n(opts->progress, (unsigned long)r->bytes, __ATOMIC_RELEASE);
		}
		if (now_us() - t0 > (uint64_t)timeout_s * 1000000u) {
			snprintf(r->err, sizeof(r->err), "receiver: not done after %u s", timeout_s);
			goto out;
		}
	}
	r->usecs = now_us() - t0;
	r->ok = 1;
out:
	for (int i = 0; i < accepted; i++)
		close(rx[i].fd);   /* on error this also unblocks the sender */
	if (lfd >= 0)
		close(lfd);
	if (started) {
		pthread_join(th, NULL);
		if (t.err[0]) {
			r->ok = 0;
			if (!r->err[0])
				snprintf(r->err, sizeof(r->err), "%s", t.err);
		}
	}
	int bad = 0;
	for (int i = 0; t.c && i < nconn; i++) {
		r->sent += t.c[i].sent;
		if (t.c[i].fd > 0)
			close(t.c[i].fd);
	}
	if (r->ok) {
		/* each connection: the receiver's bytes and checksum are the sender's */
		for (int i = 0; i < nconn; i++) {
			const struct conn_tx *c = &t.c[i];
			const struct conn_rx *d = NULL;
			for (int j = 0; j < accepted && !d; j++)
				if (rx[j].port == c->port)
					d = &rx[j];
			if (!d || d->bytes != c->sent || csum_final(&d->c) != csum_final(&c->c)) {
				if (!bad++)
					snprintf(r->err, sizeof(r->err), "data mismatch on the connection from port %d: sent %"
						 PRIu64 " received %" PRIu64 "%s", c->port, c->sent, d ? d->bytes : 0,
						 d && d->bytes == c->sent ? ", checksums differ" : "");
			}
		}
		r->csum_ok = !bad;
	}
	free(rx);
	free(p);
	free(buf);
	free(t.c);
	return r->ok && r->csum_ok ? 0 : -1;
}
