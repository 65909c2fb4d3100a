/* peer.c - the kernel's own GRO selftest (tools/testing/selftests/net/gro.c of the same kernel source, built
 * statically by scripts/guest.sh into /bin/gro) across the virtio pair: its receiver (--rx) on eth0 in the
 * initial namespace, its sender on eth1 in the sender namespace, as two processes (fork, setns, execve).
 *
 * gro.c checks the coalescing itself and exits non-zero on the first wrong sub-test; this file only provides
 * what its own gro.sh environment provides (GRO on, a long MTU, a short GRO flush timeout), starts the sender
 * once the receiver's packet socket is bound, and retries a test that lost a train to TCG timing.
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
	int ok;
	int subtests;           /* "Test succeeded" lines of the receiver */
	char why[600];
};

static void attempt(const char *test, int fam, const char *mac_rx, const char *mac_tx, int ifindex,
		    struct attempt *a)
{
	char fl[8], st1[32], st2[32];
	snprintf(fl, sizeof(fl), "--%s", fam_name[fam]);
	/* the receiver does not look at MACs; the sender addresses eth0's own MAC, so no promiscuous mode */
	char *rx_argv[] = { "gro", fl, "--rx", "--iface", "eth0", "--test", (char *)test, "--dmac", (char *)mac_rx,
			    "--smac", (char *)mac_tx, "--verbose", NULL };
	char *tx_argv[] = { "gro", fl, "--iface", "eth1", "--test", (char *)test, "--dmac", (char *)mac_rx,
			    "--smac", (char *)mac_tx, "--verbose", NULL };
	int rst = 0, tst = 0;

	memset(a, 0, sizeof(*a));
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
		snprintf(a->why, sizeof(a->why), "receiver not bound to eth0 after 10 s");
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
	int tx_ok = tx_done && WIFEXITED(tst) && WEXITSTATUS(tst) == 0;
	int rx_ok = rx_done && WIFEXITED(rst) && WEXITSTATUS(rst) == 0;
	a->ok = tx_ok && rx_ok;
	if (a->ok)
		return;
	if (!tx_ok) {
		char err[200];
		last_line(TX_ERR, NULL, err, sizeof(err));
		snprintf(a->why, sizeof(a->why), "sender %s%s%s", tx_done ? exit_text(tst, st1, sizeof(st1)) : "hung",
			 err[0] ? ": " : "", err);
		return;
	}
	char sub[120], exp[120], got[120], err[160];
	failed_subtest(sub, sizeof(sub));
	last_line(RX_ERR, "Expected", exp, sizeof(exp));
	last_line(RX_ERR, "Received", got, sizeof(got));
	last_line(RX_ERR, NULL, err, sizeof(err));
	snprintf(a->why, sizeof(a->why), "receiver %s after %d sub-tests; '%s': %s | %s | %s",
		 rx_done ? exit_text(rst, st2, sizeof(st2)) : "hung", a->subtests, sub, exp, got, err);
}

void peer_suite(const char *engine, const unsigned char mac_rx[6], const unsigned char mac_tx[6],
		struct peer_tally *pt)
{
	char rx[24], tx[24], missing[256] = "", patch[256] = "";
	int rc, ifindex = (int)if_nametoindex("eth0");

	/* every line says whether it ran gro.c as shipped or with build-gro.sh's patch */
	if (!read_file(GRO_PATCH_PATH, patch, sizeof(patch)) && patch[0]) {
		patch[strcspn(patch, "\n")] = 0;
		out("# peer suite engine=%s: %s is gro.c with a patch: %s", engine, GRO_PATH, patch);
	}
	const char *kind = access(GRO_PATH, X_OK) ? "absent" : patch[0] ? "patched" : "as-shipped";

	fmt_mac(rx, sizeof(rx), mac_rx);
	fmt_mac(tx, sizeof(tx), mac_tx);
	if (access(GRO_PATH, X_OK)) {
		/* a missing binary fails the run: the peer suite is part of conformance, never skipped */
		if (read_file(GRO_ERR_PATH, missing, sizeof(missing)) || !missing[0])
			snprintf(missing, sizeof(missing), "%s not in the initramfs", GRO_PATH);
		missing[strcspn(missing, "\n")] = 0;
	} else if ((rc = set_mtu(g_init_ns, "eth0", PEER_MTU)) || (rc = set_mtu(g_sender_ns, "eth1", PEER_MTU))) {
		snprintf(missing, sizeof(missing), "set MTU %d on eth0/eth1: %s", PEER_MTU, strerror(-rc));
	}
	for (int t = 0; t < PEER_NTESTS; t++) {
		for (int f = 0; f < 2; f++) {
			struct attempt a;
			int tries = 0;
			uint64_t t0 = now_us();
			if (missing[0]) {
				memset(&a, 0, sizeof(a));
				snprintf(a.why, sizeof(a.why), "%s", missing);
				tries = 1;
			} else {
				for (; tries < PEER_TRIES; tries++) {
					if (tries)
						sleep_ms(200);   /* let the last attempt's stragglers leave eth0 */
					attempt(g_peer_tests[t], f, rx, tx, ifindex, &a);
					if (a.ok)
						break;
					note("# peer_%s/%s engine=%s try %d: %s", g_peer_tests[t], fam_name[f], engine,
					     tries + 1, a.why);
					dump(RX_OUT);
					dump(RX_ERR);
					dump(TX_ERR);
				}
				if (a.ok)
					tries++;
			}
			double secs = (double)(now_us() - t0) / 1e6;
			int retries = tries - 1;
			pt->res[t][f] = a.ok ? 1 : 2;
			pt->retries += retries;
			if (a.ok)
				pt->pass++;
			else
				pt->fail++;
			out("CONFORM arch=%s case=peer_%s/%s engine=%s result=%s retries=%d subtests=%d secs=%.1f gro=%s%s%s",
			    uname_machine(), g_peer_tests[t], fam_name[f], engine, a.ok ? "pass" : "FAIL", retries,
			    a.subtests, secs, kind, a.ok ? "" : " note=", a.ok ? "" : a.why);
			if (!a.ok)
				fail("conform peer_%s/%s engine=%s: %s", g_peer_tests[t], fam_name[f], engine, a.why);
		}
	}
	if (!access(GRO_PATH, X_OK) &&
	    ((rc = set_mtu(g_init_ns, "eth0", BASE_MTU)) || (rc = set_mtu(g_sender_ns, "eth1", BASE_MTU))))
		fail("peer: restore MTU %d on eth0/eth1: %s", BASE_MTU, strerror(-rc));
}
