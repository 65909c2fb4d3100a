/* tcpstat.c - the SNMP counters of a network namespace (/proc/net/snmp, /proc/net/netstat: "Prefix: names" lines
 * followed by "Prefix: values" lines), and the TCP counters the engine checks compare with a kernel-GRO baseline:
 * the sender's retransmissions and the receiver's out-of-order arrivals and duplicates. */
#include "agent.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Column @name of the "@prefix:" rows of @text (the names row, then the values row). */
static int snmp_column(const char *text, const char *prefix, const char *name, uint64_t *v)
{
	char head[32];
	int hl = snprintf(head, sizeof(head), "%s:", prefix);
	const char *names = NULL, *vals = NULL;
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, head, (size_t)hl))
			continue;
		if (!names) {
			names = l + hl;
		} else {
			vals = l + hl;
			break;
		}
	}
	if (!names || !vals)
		return -ENOENT;
	size_t nl = strlen(name);
	for (;;) {
		while (*names == ' ')
			names++;
		while (*vals == ' ')
			vals++;
		if (!*names || *names == '\n' || !*vals || *vals == '\n')
			return -ENOENT;
		if (!strncmp(names, name, nl) && (names[nl] == ' ' || names[nl] == '\n' || !names[nl])) {
			*v = strtoull(vals, NULL, 10);
			return 0;
		}
		names += strcspn(names, " \n");
		vals += strcspn(vals, " \n");
	}
}

int snmp_counter(const char *file, const char *prefix, const char *name, uint64_t *v)
{
	static __thread char buf[16384];   /* per thread: the engine loop's cycler reads while others may */
	char path[64];
	snprintf(path, sizeof(path), "/proc/thread-self/net/%s", file);
	int rc = read_file(path, buf, sizeof(buf));
	return rc ? rc : snmp_column(buf, prefix, name, v);
}

int tcp_ofo_read(uint64_t *v)
{
	return snmp_counter("netstat", "TcpExt", "TCPOFOQueue", v);
}

uint64_t receiver_ofo(void)
{
	uint64_t v = 0;
	tcp_ofo_read(&v);
	return v;
}

static int read_ns_counters(struct tcp_counters *c)
{
	int rc = snmp_counter("snmp", "Tcp", "RetransSegs", &c->retrans);
	if (!rc)
		rc = tcp_ofo_read(&c->ofo);
	uint64_t old = 0, ofo = 0;
	if (!rc)
		rc = snmp_counter("netstat", "TcpExt", "TCPDSACKOldSent", &old);
	if (!rc)
		rc = snmp_counter("netstat", "TcpExt", "TCPDSACKOfoSent", &ofo);
	c->dup = old + ofo;
	return rc;
}

struct ns_read {
	struct tcp_counters c;
	int rc;
};

static void *sender_read(void *arg)
{
	struct ns_read *r = arg;
	r->rc = enter_ns(g_sender_ns);
	if (!r->rc)
		r->rc = read_ns_counters(&r->c);
	return NULL;
}

int tcp_counters_read(struct tcp_counters c[2])
{
	struct ns_read s = { .rc = -EINVAL };
	pthread_t th;
	int rc = read_ns_counters(&c[0]);
	if (rc)
		return rc;
	/* the sender's namespace from a thread of its own: setns() moves only the calling thread */
	if ((rc = pthread_create(&th, NULL, sender_read, &s)) != 0)
		return -rc;
	pthread_join(th, NULL);
	c[1] = s.c;
	return s.rc;
}

void tcp_counters_delta(struct tcp_delta *d, const struct tcp_counters b[2], const struct tcp_counters a[2])
{
	d->retrans = a[1].retrans - b[1].retrans;
	d->ofo = a[0].ofo - b[0].ofo;
	d->dup = a[0].dup - b[0].dup;
}

void tcp_delta_add(struct tcp_delta *sum, const struct tcp_delta *d)
{
	sum->retrans += d->retrans;
	sum->ofo += d->ofo;
	sum->dup += d->dup;
}

int tcp_counted_stream(const struct scenario *sc, const char *engine, uint64_t bytes, uint64_t seed,
		       struct tcp_delta *d, struct run_result *r)
{
	struct tcp_counters b[2], a[2];
	int rc = tcp_counters_read(b);
	if (rc) {
		memset(r, 0, sizeof(*r));
		snprintf(r->err, sizeof(r->err), "TCP counters: %s", strerror(-rc));
		return rc;
	}
	rc = run_stream(sc, engine, bytes, seed, stream_timeout(bytes), NULL, r);
	print_result(r);
	int rc2 = tcp_counters_read(a);
	if (rc2) {
		snprintf(r->err, sizeof(r->err), "TCP counters: %s", strerror(-rc2));
		return rc2;
	}
	tcp_counters_delta(d, b, a);
	return rc;
}

/* The excess over the baseline that emulation alone explains: the two runs are apart in time on a 2-vCPU guest under
 * TCG on a shared host, where a vCPU thread descheduled by the host for longer than the tail-loss probe or RTO timer
 * (a few ms at these RTTs) makes the sender retransmit whatever the engine (the kernel's own runs measured 0 to 58
 * retransmissions and 3 to 80 out-of-order segments for the same stream). */
#define TCP_SLACK_ABS 3
#define TCP_SLACK_REL 0.5

static int within(uint64_t eng, uint64_t base)
{
	return (double)eng <= (double)base + TCP_SLACK_ABS + TCP_SLACK_REL * (double)base;
}

void tcp_report(const char *name, const struct tcp_delta *eng, const struct tcp_delta *base)
{
	int ok = within(eng->ofo, base->ofo) && within(eng->dup, base->dup) && within(eng->retrans, base->retrans);
	out("TCPCMP arch=%s kernel=%s run=%s retrans=%" PRIu64 "/%" PRIu64 " ofo=%" PRIu64 "/%" PRIu64 " dup=%" PRIu64
	    "/%" PRIu64 " within_slack=%s (engine/kernel-GRO baseline of the same length; slack: baseline + %d + %.0f%%;"
	    " reported, not gated: see README)",
	    uname_machine(), uname_release(), name, eng->retrans, base->retrans, eng->ofo, base->ofo, eng->dup,
	    base->dup, ok ? "yes" : "NO", TCP_SLACK_ABS, TCP_SLACK_REL * 100);
}

/* ---- paired windows: cycles (load/unload, attach/detach) against the kernel's GRO alone, on the same traffic ---- */

int tcp_edge(struct tcp_edges *e, int k, unsigned long progress)
{
	e->at[k] = progress;
	e->us[k] = now_us();
	return tcp_counters_read(e->t[k]);
}

void tcp_pairs_add(struct tcp_pairs *p, const struct tcp_edges *e, int cycles)
{
	struct tcp_delta dc, dk;

	tcp_counters_delta(&dc, e->t[0], e->t[1]);
	tcp_counters_delta(&dk, e->t[1], e->t[2]);
	tcp_delta_add(&p->cyc, &dc);
	tcp_delta_add(&p->ker, &dk);
	double mc = (double)(e->at[1] - e->at[0]) / MIB, mk = (double)(e->at[2] - e->at[1]) / MIB;
	double sc = (double)(e->us[1] - e->us[0]) / 1e6, sk = (double)(e->us[2] - e->us[1]) / 1e6;
	p->cyc_mib += mc;
	p->ker_mib += mk;
	p->cyc_s += sc;
	p->ker_s += sk;
	p->cycles += cycles;
	/* a window in which the traffic stalled makes no pair */
	if (mc >= 1.0 && mk >= 1.0 && sc > 0 && sk > 0 && p->pairs < TCP_PAIRS_MAX) {
		p->ofo_d[p->pairs] = (double)dk.ofo / mk - (double)dc.ofo / mc;
		p->retrans_d[p->pairs] = (double)dk.retrans / mk - (double)dc.retrans / mc;
		p->ofo_ds[p->pairs] = (double)dk.ofo / sk - (double)dc.ofo / sc;
		p->retrans_ds[p->pairs++] = (double)dk.retrans / sk - (double)dc.retrans / sc;
	}
}

/*
 * Worse takes both. The size: the cycle windows' out-of-order arrivals beyond TCP_PAIRS_GATE_RATE times the
 * kernel windows' rate per second (times the cycle seconds), over TCP_PAIRS_GATE_EXCESS per cycle. And the
 * paired tests over the window pairs (Wilcoxon, per MiB and per second), both below p_fail. Either alone
 * failed CI on healthy code: the p values when idle runs measured the cycle windows significantly worse at
 * 1.35 and 1.76 times the kernel's rate (2026-12-04); the size gate that followed (3 times the kernel's rate,
 * taken as at least 3 a second) on 2026-12-07, at 43 out of order in 4.7 s against 4 in 7.5 s. The bug the
 * test was made for (a detach that gave the device its GRO back after the rx_handler was gone: make
 * gate-proof) read 1.54 to 12.6 a cycle by this measure at p <= 0.0014 with 256-buffer rings, 2.41 to 7.28 with
 * 1024 (qemu/boot.sh), most in the detach phase; healthy runs 0.65 at most. The rate's slack is for the soak's
 * K06, whose cycles (insmod, a loaded window, rmmod: half a second, three streams) stall the guest: one soak
 * read 56.5 out of order a second in its cycle windows against 50.4 in the unloaded ones, 2.75 a cycle above
 * the unloaded rate. That bug's own kernel windows caught its spill-over: 2.55 times the kernel's rate in one
 * run, which the 3-times gate passed.
 */
int tcp_pairs_report(const char *tag, const struct tcp_pairs *p, int min_pairs, double p_fail, int gated)
{
	double po = wilcoxon_p_below(p->ofo_d, p->pairs), pr = wilcoxon_p_below(p->retrans_d, p->pairs);
	double pos = wilcoxon_p_below(p->ofo_ds, p->pairs), prs = wilcoxon_p_below(p->retrans_ds, p->pairs);
	int significant = po < p_fail && pos < p_fail;   /* the out-of-order tests: the gate's */
	double cyc_rate = p->cyc_s > 0 ? (double)p->cyc.ofo / p->cyc_s : 0.0;
	double ker_rate = p->ker_s > 0 ? (double)p->ker.ofo / p->ker_s : 0.0;
	double allowed = TCP_PAIRS_GATE_RATE * ker_rate * p->cyc_s;
	double excess = p->cycles > 0 ? ((double)p->cyc.ofo - allowed) / p->cycles : 0.0;
	int verdict = p->pairs < min_pairs ? TCP_PAIRS_TOO_FEW :
		      excess > TCP_PAIRS_GATE_EXCESS && significant ? TCP_PAIRS_WORSE : TCP_PAIRS_NOT_WORSE;
	static const char *const name[] = { "not-worse", "cycles-worse", "too-few-pairs" };

	out("%s arch=%s kernel=%s pairs=%d cycles_worse_p=%.4f retrans_worse_p=%.4f per_s_cycles_worse_p=%.4f"
	    " per_s_retrans_worse_p=%.4f significant=%s ofo_per_s=%.1f/%.1f excess_per_cycle=%.2f verdict=%s"
	    " receiver TCPOFOQueue %.2f per MiB in the cycle windows (%" PRIu64 " in %.0f MiB, %.1f s), %.2f in the"
	    " kernel-GRO windows (%" PRIu64 " in %.0f MiB, %.1f s); D-SACKs %" PRIu64 " / %" PRIu64 ", sender"
	    " retransmissions %" PRIu64 " / %" PRIu64 " (%.3f / %.3f per MiB; %s)", tag, uname_machine(),
	    uname_release(), p->pairs, po, pr, pos, prs,
	    significant ? "yes" : "no", cyc_rate, ker_rate, excess, name[verdict],
	    p->cyc_mib > 0 ? (double)p->cyc.ofo / p->cyc_mib : 0.0, p->cyc.ofo, p->cyc_mib, p->cyc_s,
	    p->ker_mib > 0 ? (double)p->ker.ofo / p->ker_mib : 0.0, p->ker.ofo, p->ker_mib, p->ker_s, p->cyc.dup,
	    p->ker.dup, p->cyc.retrans, p->ker.retrans, p->cyc_mib > 0 ? (double)p->cyc.retrans / p->cyc_mib : 0.0,
	    p->ker_mib > 0 ? (double)p->ker.retrans / p->ker_mib : 0.0,
	    gated ? "gated: an excess over the limit, significant, fails" : "reported, not gated: see README");
	return verdict;
}
