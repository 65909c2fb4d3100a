/* peer.c - the kernel's own GRO selftest (tools/testing/selftests/net/gro.c of the same kernel source, built
 * statically by scripts/guest.sh into /bin/gro) across the virtio pair: its receiver (--rx) on eth0 in the
 * initial namespace, its sender on eth1 in the sender namespace, as two processes (fork, setns, execve).
 *
 * gro.c checks the coalescing itself and exits non-zero on the first wrong sub-test; this file only provides
 * what its own gro.sh environment provides (GRO on, a long MTU, a short GRO flush timeout), starts the sender
 * once the receiver's packet socket is bound, and retries a test that lost a train to TCG timing.
 *
 * The same runner carries gro.c's --ipv6 tests over ip6ip6 (PEER_6IN6): its ends on veth pairs, relay6.c wrapping
 * the sender's frames on the virtio pair and handing what eth0's GRO made of them to the receiver. A test whose
 * outcome over a transport is fixed by geometry (g_geometry[]) is judged by the failure worked out for it and, for
 * tungro, by parity with the kernel's receiver output of the same boot.
 */
#include "agent.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define GRO_PATH "/bin/gro"
#define GRO_ERR_PATH "/bin/gro.build-error"   /* guest.sh puts the compiler's reason here instead */
#define GRO_PATCH_PATH "/bin/gro.patched"      /* present when qemu/build-gro.sh had to patch gro.c (big-endian) */
#define RX_OUT "/tmp/peer-rx.out"
#define RX_ERR "/tmp/peer-rx.err"
#define TX_OUT "/tmp/peer-tx.out"
#define TX_ERR "/tmp/peer-tx.err"
#define PEER_TRIES 4          /* a run and up to 3 retries, as conform.c allows a train */
#define PEER_MTU 65535        /* the large test sends ~4 KiB frames; gro.sh's veth pair has this MTU */
#define BASE_MTU 1500         /* what net.c set, restored for the crafted trains that follow */
#define ATTEMPT_S 180         /* the ipv4 ip test alone sleeps ~18 s in the sender */

const char *const g_peer_tests[PEER_NTESTS] = { "data", "ack", "flags", "tcp", "ip", "large" };
static const char *const fam_name[2] = { "ipv4", "ipv6" };
static const unsigned fam_proto[2] = { 0x0800, 0x86dd };

/* A transport: where gro.c's two ends run and what carries the frames between them. */
static const struct via {
	const char *prefix;     /* of the CONFORM case names */
	const char *rx_dev;     /* the receiver's --iface, initial namespace */
	const char *tx_dev;     /* the sender's --iface, sender namespace */
	unsigned fams;          /* bit per fam_name[] */
	int relay;              /* 1: relay6.c between the two */
} g_via[PEER_NVIA] = {
	[PEER_DIRECT] = { "peer", "eth0", "eth1", 3, 0 },
	[PEER_6IN6] = { "peer6in6", RELAY6_RX_DEV, RELAY6_TX_DEV, 2, 1 },
};

/*
 * Tests that gro.c cannot pass over a transport as written, for a reason of geometry: every engine's run must fail
 * in this sub-test with this Received line, and another engine's receiver output must equal the kernel's of the
 * same boot (g_ref).
 *
 * large over ip6ip6. gro.c -6 sends 16 segments of its MSS 4036 (4096 - 40 - 20), 899 bytes (its MAX_PAYLOAD 65475
 * = IP_MAXPACKET - 60, mod 4036), 899 more after a sequence gap and a FIN; then the same with 900. 6.12's
 * skb_gro_receive() refuses a segment when p->len + len >= gro_max_size (65536, GRO_LEGACY_MAX_SIZE), p->len
 * counting from the outermost network header. Plain: 60 + 16 * 4036 + 899 = 65535 merges: one packet of 65475, as
 * gro.c expects. Over ip6ip6 the outer IPv6 header and its encapsulation limit option are 48 bytes more: 108 +
 * 64576 + 899 = 65583 does not. skb_gro_receive() fails, same_flow stays 0, tcp_gro_receive() completes the 16
 * segments (64576) and the 899 is held alone, until the next one's sequence gap completes it; that one goes up
 * before the FIN. gro.c reads 64576, 899, 899 against its 65475, 899 and exits 1 ("incorrect number of packets") in
 * its first sub-test. Its second (64576, 900, 900; 60 + 64576 + 900 = 65536 is refused plain too) would pass, but
 * gro.c stops at the first failure. tungro's callbacks keep the same limit (tungro_append(), the core's
 * TGC_MAX_GRO_BYTES). data, ack, flags, tcp and ip hold at most 5 segments of 100 bytes: no geometry there.
 */
static const struct geometry {
	int via;
	const char *test, *subtest, *received;
} g_geometry[] = {
	{ PEER_6IN6, "large", "Shouldn't coalesce if exceed IP max pkt size",
	  "Received {64576 [!=65475]899 899 [!=0]}, Total 3 packets." },
};
#define N_GEOMETRY (sizeof(g_geometry) / sizeof(g_geometry[0]))

/* the kernel's receiver output (stdout, stderr) of each geometry test in this boot, once it failed as derived */
static struct {
	int have;
	char out[2048], err[4096];
} g_ref[N_GEOMETRY];

/* What one engine's run of a transport passes to each attempt. */
struct peer_run {
	const struct via *v;
	const unsigned char *mac_rx, *mac_tx;
	char rx[24], tx[24];    /* the same MACs as text, for gro.c's --dmac/--smac */
	int ifindex;            /* of v->rx_dev */
};

/* SIOCSIFMTU acts in the namespace of the socket, so the socket is made in @nsfd. */
static int set_mtu(int nsfd, const char *dev, int mtu)
{
	int rc = enter_ns(nsfd);
	if (rc)
		return rc;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int e = errno;
	if ((rc = enter_ns(g_init_ns)))
		die("peer: setns back to the initial namespace: %s", strerror(-rc));
	if (fd < 0)
		return -e;
	struct ifreq ifr;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	ifr.ifr_mtu = mtu;
	rc = ioctl(fd, SIOCSIFMTU, &ifr) < 0 ? -errno : 0;
	close(fd);
	return rc;
}

static void fmt_mac(char *buf, size_t cap, const unsigned char m[6])
{
	snprintf(buf, cap, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

/* fork + (setns) + execve of /bin/gro with stdout/stderr into files. Returns the pid or -errno. */
static pid_t spawn(int nsfd, char *const argv[], const char *outpath, const char *errpath)
{
	static char *const envp[] = { "PATH=/bin", NULL };
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid > 0)
		return pid;
	/* child of a threaded process: only async-signal-safe calls until execve */
	if (nsfd >= 0 && setns(nsfd, CLONE_NEWNET))
		_exit(120);
	int in = open("/dev/null", O_RDONLY);
	int o = open(outpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int e = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (in < 0 || o < 0 || e < 0 || dup2(in, 0) < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
		_exit(121);
	execve(GRO_PATH, argv, envp);
	_exit(122);
}

/* Waits up to @ms for @pid; returns 1 with its status, 0 if still running. */
static int wait_for(pid_t pid, unsigned ms, int *status)
{
	for (unsigned t = 0;; t += 10) {
		pid_t r = waitpid(pid, status, WNOHANG);
		if (r == pid)
			return 1;
		if (r < 0 && errno != EINTR)
			die("peer: waitpid %d: %s", (int)pid, strerror(errno));
		if (t >= ms)
			return 0;
		sleep_ms(10);
	}
}

static void reap(pid_t pid)
{
	int st;
	if (wait_for(pid, 0, &st))
		return;
	kill(pid, SIGKILL);
	wait_for(pid, 5000, &st);
}

/* The receiver is listening once /proc/net/packet shows a socket of its protocol bound to eth0: gro.c
 * attaches its filter and receive timeout before bind, so from then on nothing of the sender is lost. */
static int rx_bound(unsigned proto, int ifindex)
{
	static char buf[8192];
	if (read_file("/proc/net/packet", buf, sizeof(buf)))
		return -1;
	for (char *save = NULL, *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		unsigned p;
		int idx, running;
		if (sscanf(l, "%*s %*d %*d %x %d %d", &p, &idx, &running) == 3 && p == proto && idx == ifindex &&
		    running)
			return 1;
	}
	return 0;
}

/* Last line of @path that starts with @prefix (or the last non-empty line if @prefix is NULL), into @buf. */
static void last_line(const char *path, const char *prefix, char *buf, size_t cap)
{
	static char text[65536];
	buf[0] = 0;
	if (read_file(path, text, sizeof(text)))
		return;
	for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		if (!prefix ? l[strspn(l, " ")] != 0 : !strncmp(l, prefix, strlen(prefix)))
			snprintf(buf, cap, "%s", l);
}

static int count_str(const char *path, const char *needle)
{
	static char text[65536];
	int n = 0;
	if (read_file(path, text, sizeof(text)))
		return 0;
	for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* The sub-test gro.c was in when it stopped: its stdout ends with that sub-test's "name: " prompt. */
static void failed_subtest(char *buf, size_t cap)
{
	static char text[65536];
	buf[0] = 0;
	if (read_file(RX_OUT, text, sizeof(text)))
		return;
	char *p = strrchr(text, '\n');
	p = p ? p + 1 : text;
	size_t n = strlen(p);
	while (n && (p[n - 1] == ' ' || p[n - 1] == ':'))
		p[--n] = 0;
	snprintf(buf, cap, "%s", p);
}

static void dump(const char *path)
{
	static char text[16384];
	if (read_file(path, text, sizeof(text)))
		return;
	for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		note("#   %s: %s", path, l);
}

static const char *exit_text(int st, char *buf, size_t cap)
{
	if (WIFEXITED(st))
		snprintf(buf, cap, "exit %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(buf, cap, "signal %d", WTERMSIG(st));
	else
		snprintf(buf, cap, "status %#x", st);
	return buf;
}

struct attempt {
	int ok;                 /* gro.c's own verdict: both ends exited 0 */
	int subtests;           /* "Test succeeded" lines of the receiver */
	int tx_ok;              /* the sender exited 0 */
	int rx_exit;            /* the receiver's exit code; -1: hung, killed or never started */
	char sub[120], got[120];   /* the sub-test it stopped in, its Received line */
	int relayed;            /* relay6.c carried this attempt: counts in relay */
	struct relay6_counts relay;
	char why[600];
};

/* One run of gro.c's test: receiver, then sender once the receiver is bound, both waited for; a filled in. */
static void run_gro(const struct peer_run *r, const char *test, int fam, struct attempt *a)
{
	char fl[8], st1[32], st2[32];
	snprintf(fl, sizeof(fl), "--%s", fam_name[fam]);
	/* the receiver does not look at MACs; the sender addresses eth0's own MAC, so no promiscuous mode */
	char *rx_argv[] = { "gro", fl, "--rx", "--iface", (char *)r->v->rx_dev, "--test", (char *)test, "--dmac",
			    (char *)r->rx, "--smac", (char *)r->tx, "--verbose", NULL };
	char *tx_argv[] = { "gro", fl, "--iface", (char *)r->v->tx_dev, "--test", (char *)test, "--dmac",
			    (char *)r->rx, "--smac", (char *)r->tx, "--verbose", NULL };
	int rst = 0, tst = 0, ifindex = r->ifindex;

	a->rx_exit = -1;
	unlink(TX_OUT);
	unlink(TX_ERR);
	pid_t rx = spawn(-1, rx_argv, RX_OUT, RX_ERR);
	if (rx < 0) {
		snprintf(a->why, sizeof(a->why), "fork receiver: %s", strerror((int)-rx));
		return;
	}
	int ready = 0, noproc = 0;
	for (int t = 0; t < 1000 && !ready && !noproc; t++) {
		if (wait_for(rx, 0, &rst)) {
			last_line(RX_ERR, NULL, a->why, sizeof(a->why));
			snprintf(a->why + strlen(a->why), sizeof(a->why) - strlen(a->why), "%sreceiver %s before bind",
				 a->why[0] ? ": " : "", exit_text(rst, st1, sizeof(st1)));
			return;
		}
		int b = rx_bound(fam_proto[fam], ifindex);
		if (b < 0) {
			/* no /proc/net/packet: gro.sh's fixed wait */
			sleep_ms(500);
			noproc = 1;
		}
		ready = b > 0;
		if (!ready && !noproc)
			sleep_ms(10);
	}
	if (!ready && !noproc) {
		snprintf(a->why, sizeof(a->why), "receiver not bound to %s after 10 s", r->v->rx_dev);
		reap(rx);
		return;
	}
	pid_t tx = spawn(g_sender_ns, tx_argv, TX_OUT, TX_ERR);
	if (tx < 0) {
		snprintf(a->why, sizeof(a->why), "fork sender: %s", strerror((int)-tx));
		reap(rx);
		return;
	}
	int tx_done = wait_for(tx, ATTEMPT_S * 1000u, &tst);
	if (!tx_done)
		reap(tx);
	/* after the sender's last FIN the receiver has at most its 3 s receive timeout left */
	int rx_done = wait_for(rx, tx_done ? 15000u : 0u, &rst);
	if (!rx_done)
		reap(rx);
	a->subtests = count_str(RX_OUT, "Test succeeded");
	a->tx_ok = tx_done && WIFEXITED(tst) && WEXITSTATUS(tst) == 0;
	if (rx_done && WIFEXITED(rst))
		a->rx_exit = WEXITSTATUS(rst);
	a->ok = a->tx_ok && a->rx_exit == 0;
	failed_subtest(a->sub, sizeof(a->sub));
	last_line(RX_ERR, "Received", a->got, sizeof(a->got));
	if (a->ok)
		return;
	if (!a->tx_ok) {
		char err[200];
		last_line(TX_ERR, NULL, err, sizeof(err));
		snprintf(a->why, sizeof(a->why), "sender %s%s%s", tx_done ? exit_text(tst, st1, sizeof(st1)) : "hung",
			 err[0] ? ": " : "", err);
		return;
	}
	char exp[120], err[160];
	last_line(RX_ERR, "Expected", exp, sizeof(exp));
	last_line(RX_ERR, NULL, err, sizeof(err));
	snprintf(a->why, sizeof(a->why), "receiver %s after %d sub-tests; '%s': %s | %s | %s",
		 rx_done ? exit_text(rst, st2, sizeof(st2)) : "hung", a->subtests, a->sub, exp, a->got, err);
}

/* run_gro() with relay6.c around it when the transport needs one; a relay error fails the attempt (a.ok 0). */
static void attempt(const struct peer_run *r, const char *test, int fam, struct attempt *a)
{
	memset(a, 0, sizeof(*a));
	a->rx_exit = -1;
	if (r->v->relay && relay6_start(r->mac_rx, r->mac_tx, a->why, sizeof(a->why)))
		return;
	run_gro(r, test, fam, a);
	if (!r->v->relay)
		return;
	relay6_stop(&a->relay);
	a->relayed = 1;
	if (a->relay.err) {
		a->ok = 0;
		snprintf(a->why, sizeof(a->why), "relay: %s", a->relay.why);
	}
}

/* The geometry entry of a test over a transport, or NULL; its index in *gi. */
static const struct geometry *geometry_of(int via, const char *test, int *gi)
{
	for (size_t i = 0; i < N_GEOMETRY; i++)
		if (g_geometry[i].via == via && !strcmp(g_geometry[i].test, test)) {
			*gi = (int)i;
			return &g_geometry[i];
		}
	return NULL;
}

/* The first line where two texts differ, as "'a' vs 'b'", into buf. */
static void first_diff(const char *a, const char *b, char *buf, size_t cap)
{
	int n = 0;
	while (a[n] && a[n] == b[n])
		n++;
	while (n && a[n - 1] != '\n')
		n--;
	snprintf(buf, cap, "'%.*s' vs the kernel's '%.*s'", (int)strcspn(a + n, "\n"), a + n,
		 (int)strcspn(b + n, "\n"), b + n);
}

/* The verdict on a geometry test's attempt: the sender done, the receiver failed (exit 1) in the derived sub-test
 * with the derived Received line, and, for an engine other than the kernel, its stdout and stderr equal to the
 * kernel's of this boot, which the kernel's run records here. 1 if so; else 0, the reason in a->why. */
static int geometry_ok(const struct geometry *g, int gi, const char *engine, struct attempt *a)
{
	static char out[sizeof(g_ref[0].out)], err[sizeof(g_ref[0].err)];
	int kernel = !strcmp(engine, "kernel");
	if (a->relayed && a->relay.err)
		return 0;   /* why says so */
	if (!a->tx_ok || a->rx_exit != 1 || strcmp(a->sub, g->subtest) || strcmp(a->got, g->received)) {
		char was[sizeof(a->why)];
		snprintf(was, sizeof(was), "%s", a->ok ? "gro.c passed" : a->why);
		snprintf(a->why, sizeof(a->why), "want gro.c to fail in '%.60s' with '%.70s' (geometry): %.400s",
			 g->subtest, g->received, was);
		return 0;
	}
	if (read_file(RX_OUT, out, sizeof(out)) || read_file(RX_ERR, err, sizeof(err))) {
		snprintf(a->why, sizeof(a->why), "receiver output %s/%s unreadable", RX_OUT, RX_ERR);
		return 0;
	}
	if (kernel) {
		memcpy(g_ref[gi].out, out, sizeof(out));
		memcpy(g_ref[gi].err, err, sizeof(err));
		g_ref[gi].have = 1;
		return 1;
	}
	if (!g_ref[gi].have) {
		snprintf(a->why, sizeof(a->why), "no kernel run of this boot failed as derived: no reference");
		return 0;
	}
	char d[300];
	if (strcmp(out, g_ref[gi].out) || strcmp(err, g_ref[gi].err)) {
		int o = strcmp(out, g_ref[gi].out) != 0;
		first_diff(o ? out : err, o ? g_ref[gi].out : g_ref[gi].err, d, sizeof(d));
		snprintf(a->why, sizeof(a->why), "receiver %s differs from the kernel's: %s", o ? "stdout" : "stderr",
			 d);
		return 0;
	}
	return 1;
}

/* The relay's counts of an attempt, for the report: where gro.c's frames went, how many GRO packets they made. */
static void relay_text(const struct relay6_counts *c, char *buf, size_t cap)
{
	snprintf(buf, cap, "relay: %lu frames from gro.c (%lu not its own), %lu sent on eth1; eth0 delivered %lu "
		 "ip6ip6 packets of %lu segments, %lu injected", c->frames_in, c->skipped, c->frames_out, c->pkts,
		 c->segs, c->injected);
}

void peer_suite(const char *engine, const unsigned char mac_rx[6], const unsigned char mac_tx[6], int via,
		struct peer_tally *pt)
{
	struct peer_run r = { .v = &g_via[via], .mac_rx = mac_rx, .mac_tx = mac_tx };
	char missing[256] = "", patch[256] = "";
	int rc;

	/* every line says whether it ran gro.c as shipped or with build-gro.sh's patch */
	if (!read_file(GRO_PATCH_PATH, patch, sizeof(patch)) && patch[0]) {
		patch[strcspn(patch, "\n")] = 0;
		out("# %s suite engine=%s: %s is gro.c with a patch: %s", r.v->prefix, engine, GRO_PATH, patch);
	}
	const char *kind = access(GRO_PATH, X_OK) ? "absent" : patch[0] ? "patched" : "as-shipped";

	fmt_mac(r.rx, sizeof(r.rx), mac_rx);
	fmt_mac(r.tx, sizeof(r.tx), mac_tx);
	if (access(GRO_PATH, X_OK)) {
		/* a missing binary fails the run: the peer suite is part of conformance, never skipped */
		if (read_file(GRO_ERR_PATH, missing, sizeof(missing)) || !missing[0])
			snprintf(missing, sizeof(missing), "%s not in the initramfs", GRO_PATH);
		missing[strcspn(missing, "\n")] = 0;
	} else if ((rc = set_mtu(g_init_ns, "eth0", PEER_MTU)) || (rc = set_mtu(g_sender_ns, "eth1", PEER_MTU))) {
		snprintf(missing, sizeof(missing), "set MTU %d on eth0/eth1: %s", PEER_MTU, strerror(-rc));
	} else if (r.v->relay) {
		relay6_setup(missing, sizeof(missing));
	}
	if (!missing[0] && !(r.ifindex = (int)if_nametoindex(r.v->rx_dev)))
		snprintf(missing, sizeof(missing), "no %s: %s", r.v->rx_dev, strerror(errno));
	for (int t = 0; t < PEER_NTESTS; t++) {
		for (int f = 0; f < 2; f++) {
			if (!(r.v->fams & (1u << f)))
				continue;
			const char *test = g_peer_tests[t], *fam = fam_name[f];
			struct attempt a;
			int tries = 0, gi = -1, ok = 0;
			const struct geometry *g = geometry_of(via, test, &gi);
			uint64_t t0 = now_us();
			if (missing[0]) {
				memset(&a, 0, sizeof(a));
				snprintf(a.why, sizeof(a.why), "%s", missing);
				tries = 1;
			} else {
				for (; tries < PEER_TRIES; tries++) {
					if (tries)
						sleep_ms(200);   /* let the last attempt's stragglers leave eth0 */
					attempt(&r, test, f, &a);
					ok = g ? geometry_ok(g, gi, engine, &a) : a.ok;
					if (ok)
						break;
					size_t n = strlen(a.why);
					if (a.relayed && n + 4 < sizeof(a.why)) {
						memcpy(a.why + n, " | ", 4);
						relay_text(&a.relay, a.why + n + 3, sizeof(a.why) - n - 3);
					}
					note("# %s_%s/%s engine=%s try %d: %s", r.v->prefix, test, fam, engine, tries + 1,
					     a.why);
					dump(RX_OUT);
					dump(RX_ERR);
					dump(TX_ERR);
				}
				if (ok)
					tries++;
			}
			double secs = (double)(now_us() - t0) / 1e6;
			int retries = tries - 1;
			if (via == PEER_DIRECT)
				pt->res[t][f] = ok ? 1 : 2;
			else
				pt->res6in6[t] = ok ? 1 : 2;
			pt->retries += retries;
			if (ok)
				pt->pass++;
			else
				pt->fail++;
			/* a geometry row says how it was judged: the derived failure, and parity but for the kernel */
			const char *judge = !g ? "" : strcmp(engine, "kernel") ? " judge=geometry+kernel-parity" :
				" judge=geometry";
			out("CONFORM arch=%s case=%s_%s/%s engine=%s result=%s retries=%d subtests=%d secs=%.1f "
			    "gro=%s%s%s%s", uname_machine(), r.v->prefix, test, fam, engine, ok ? "pass" : "FAIL",
			    retries, a.subtests, secs, kind, judge, ok ? "" : " note=", ok ? "" : a.why);
			if (ok && g) {
				char rl[300] = "";
				if (a.relayed)
					relay_text(&a.relay, rl, sizeof(rl));
				out("# %s_%s/%s engine=%s: gro.c failed as derived in '%s': %s%s%s", r.v->prefix, test,
				    fam, engine, a.sub, a.got, rl[0] ? "; " : "", rl);
			}
			if (!ok)
				fail("conform %s_%s/%s engine=%s: %s", r.v->prefix, test, fam, engine, a.why);
		}
	}
	if (!access(GRO_PATH, X_OK) &&
	    ((rc = set_mtu(g_init_ns, "eth0", BASE_MTU)) || (rc = set_mtu(g_sender_ns, "eth1", BASE_MTU))))
		fail("peer: restore MTU %d on eth0/eth1: %s", BASE_MTU, strerror(-rc));
}
