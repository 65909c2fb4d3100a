/* hardening.c - guest checks with real traffic for hardening cases of gro-cases.md:
 *   K06  tungro loaded and unloaded many times while TCP, UDP and ICMP run inside IPIP and SIT
 *   K01  IPIP inside FOU and SIT inside GUE: tungro must coalesce them as the kernel does
 *   K07  another module on the IPIP slot: tungro refuses to load over it, and waits for it at unload
 * Every check line names its case. */
#include "agent.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---- K06: load race under traffic ---- */

#define K06_WINDOW_MS 40        /* a load window lasts at least this long ... */
#define K06_WINDOW_MAX_MS 3000  /* ... and at most this long while tungro sees no tunnel packet */
#define K06_GAP_MS 20           /* unloaded between windows: the kernel's GRO holds packets again */
#define K06_UDP_GAP_US 2000     /* UDP: 500 datagrams/s per tunnel */
#define K06_ICMP_GAP_US 10000   /* ICMP: 100 echo requests/s per tunnel */
/*
 * On a lockdep kernel (the debug variant: KASAN, lockdep, UBSAN) the emulation sets K06's pace, not tungro: each
 * rmmod costs the kernel 8 RCU grace periods after tungro's exit has returned (free_module()'s synchronize_rcu()
 * and one in lockdep_free_key_range() per module memory type, 6.12's free_mod_mem()), 2.5 to 10 s under K06's
 * traffic in TCG, and the network path runs about ten times slower. There the traffic is paced K06_SLOW times
 * slower, a flow ends after K06_SLOW times the quiet time, and the streams get K06_SLOW_CYCLE_S per cycle.
 */
#define K06_SLOW 5
#define K06_CYCLE_S 3           /* per cycle on top of a stream's usual timeout */
#define K06_SLOW_CYCLE_S 30     /* the same on a lockdep kernel: cycles measured 5 to 15 s there */
#define K06_P_FAIL 0.002        /* soak: below it, the paired tests call the cycle windows significantly worse */
#define K06_LEGS 3              /* TCP in IPIP and SIT; the soak adds plain TCP */

/* Loads and unloads tungro while traffic runs; stops early if *abort (the traffic ended). */
struct toggler {
	unsigned cycles;
	volatile int *abort;
	unsigned done;                  /* load/unload cycles completed */
	uint64_t *seen, *delegated;     /* tungro's debugfs counters at the end of each load window */
	uint64_t load_us, unload_us, load_max_us, unload_max_us;
	/* soak: every cycles / K06_PAIRS cycles, tungro stays unloaded as long as they took, and the TCP counters of
	 * both windows go into tp; the receiver's bytes are the sum of the legs' progress */
	struct tcp_pairs *tp;
	volatile unsigned long *progress[K06_LEGS];
	int nprogress;
	/* where the cycles' out-of-order arrivals fall, and how long each phase lasted: insmod, loaded, rmmod, the gap
	 * after (unloaded, K06_GAP_MS) */
	uint64_t ofo_phase[4], us_phase[4];
	char err[200];
};

static int toggler_wait(struct toggler *t, unsigned ms)
{
	for (unsigned i = 0; i < ms; i += 5) {
		if (__atomic_load_n(t->abort, __ATOMIC_ACQUIRE))
			return -1;
		sleep_ms(5);
	}
	return 0;
}

/* One load window: at least K06_WINDOW_MS, and until tungro has seen a tunnel packet. */
static int toggler_window(struct toggler *t, unsigned i)
{
	struct stats st;
	int rc;
	for (unsigned ms = 0;; ms += 5) {
		if ((rc = stats_read(&st))) {
			snprintf(t->err, sizeof(t->err), "cycle %u: read %s: %s", i + 1, STATS_PATH, strerror(-rc));
			return -1;
		}
		t->seen[i] = stats_get(&st, "seen");
		t->delegated[i] = stats_get(&st, "delegated");
		if (ms >= K06_WINDOW_MS && (t->seen[i] || ms >= K06_WINDOW_MAX_MS))
			return 0;
		if (toggler_wait(t, 5))
			return -1;
	}
}

static unsigned long toggler_progress(const struct toggler *t)
{
	unsigned long sum = 0;
	for (int i = 0; i < t->nprogress; i++)
		sum += __atomic_load_n(t->progress[i], __ATOMIC_ACQUIRE);
	return sum;
}

/* Soak: before the first cycle of a window (end 0) edge 0; after its last (end 1) edge 1, then tungro unloaded as
 * long as the window took, edge 2. 0, or -1 with t->err set or the traffic gone. */
static int toggler_pair(struct toggler *t, unsigned i, int end, struct tcp_edges *e, uint64_t *w0)
{
	unsigned per = t->cycles / K06_PAIRS;
	int rc = 0;

	if (!t->tp || !per || (end ? (i + 1) % per : i % per))
		return 0;
	if (!end) {
		*w0 = now_us();
		rc = tcp_edge(e, 0, toggler_progress(t));
	} else if (!(rc = tcp_edge(e, 1, toggler_progress(t)))) {
		if (toggler_wait(t, (unsigned)((now_us() - *w0) / 1000)))
			return -1;
		if (!(rc = tcp_edge(e, 2, toggler_progress(t))))
			tcp_pairs_add(t->tp, e, (int)per);
	}
	if (rc)
		snprintf(t->err, sizeof(t->err), "cycle %u: TCP counters: %s", i + 1, strerror(-rc));
	return rc ? -1 : 0;
}

static void toggler_run(struct toggler *t)
{
	struct tcp_edges e;
	uint64_t w0 = 0;

	for (unsigned i = 0; i < t->cycles; i++) {
		if (toggler_pair(t, i, 0, &e, &w0))
			break;
		uint64_t o[5], at[5];
		o[0] = receiver_ofo(), at[0] = now_us();
		int rc = mod_load();
		at[1] = now_us(), o[1] = receiver_ofo();
		if (rc) {
			snprintf(t->err, sizeof(t->err), "cycle %u: insmod: %s", i + 1, strerror(-rc));
			return;
		}
		if (toggler_window(t, i))
			break;
		o[2] = receiver_ofo(), at[2] = now_us();
		if ((rc = mod_unload())) {
			snprintf(t->err, sizeof(t->err), "cycle %u: rmmod: %s", i + 1, strerror(-rc));
			return;
		}
		at[3] = now_us(), o[3] = receiver_ofo();
		t->load_us += at[1] - at[0];
		t->unload_us += at[3] - at[2];
		t->load_max_us = at[1] - at[0] > t->load_max_us ? at[1] - at[0] : t->load_max_us;
		t->unload_max_us = at[3] - at[2] > t->unload_max_us ? at[3] - at[2] : t->unload_max_us;
		t->done = i + 1;
		rc = toggler_wait(t, K06_GAP_MS);
		o[4] = receiver_ofo(), at[4] = now_us();
		for (int p = 0; p < 4; p++) {
			t->ofo_phase[p] += o[p + 1] - o[p];
			t->us_phase[p] += at[p + 1] - at[p];
		}
		if (rc || toggler_pair(t, i, 1, &e, &w0))
			break;
	}
	if (mod_loaded() && mod_unload() && !t->err[0])
		snprintf(t->err, sizeof(t->err), "rmmod after cycle %u failed", t->done);
}

/* One open-ended TCP stream of the traffic, in its own thread. */
struct leg {
	const struct scenario *sc;
	uint64_t seed;
	unsigned timeout_s;
	struct stream_opts o;
	volatile unsigned long progress;
	volatile int *ended;    /* set when the stream returns: the toggler must not go on without traffic */
	struct run_result r;
	int rc;
	pthread_t th;
};

static void *leg_main(void *arg)
{
	struct leg *l = arg;
	l->rc = run_stream(l->sc, "k06", MIB, l->seed, l->timeout_s, &l->o, &l->r);
	__atomic_store_n(l->ended, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Drops counted by the receiver's UDP stacks (both families), from /proc/thread-self/net/snmp{,6}. */
static uint64_t udp_rcvbuf_errors(void)
{
	static char buf[16384];
	uint64_t sum = 0;
	/* "Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors ..." then a line of values */
	if (read_file("/proc/thread-self/net/snmp", buf, sizeof(buf)) == 0) {
		char *names = strstr(buf, "\nUdp: "), *vals = names ? strstr(names + 1, "\nUdp: ") : NULL;
		if (names && vals) {
			char *sn, *sv, *n = strtok_r(names + 6, " \n", &sn), *v = strtok_r(vals + 6, " \n", &sv);
			for (; n && v; n = strtok_r(NULL, " \n", &sn), v = strtok_r(NULL, " \n", &sv))
				if (!strcmp(n, "RcvbufErrors")) {
					sum += strtoull(v, NULL, 10);
					break;
				}
		}
	}
	if (read_file("/proc/thread-self/net/snmp6", buf, sizeof(buf)) == 0) {
		char *p = strstr(buf, "Udp6RcvbufErrors");
		if (p)
			sum += strtoull(p + 16, NULL, 10);
	}
	return sum;
}

static void k06_flow_check(const struct flow *f)
{
	char name[64];
	snprintf(name, sizeof(name), "K06_%s", f->name);
	check(name, !f->err[0] && f->sent > 0 && f->corrupt == 0 && f->dup == 0 && flow_lost(f) == 0,
	      "K06 %s %s: sent %" PRIu64 " received %" PRIu64 " lost %" PRIu64 " duplicated %" PRIu64
	      " corrupted %" PRIu64 " out-of-order %" PRIu64 " send errors %" PRIu64 " (need no loss, duplicate or "
	      "corruption)%s%s",
	      f->icmp ? "echo" : "datagrams", f->icmp ? "requests vs replies" : "sender to receiver", f->sent,
	      f->received, flow_lost(f), f->dup, f->corrupt, f->reorder, f->send_err, f->err[0] ? "; " : "", f->err);
}

void k06_load_race(unsigned cycles, unsigned mib, int soak)
{
	const struct scenario *ipip = scenario_by_name("ipip"), *sit = scenario_by_name("sit");
	const struct scenario *legs_sc[K06_LEGS] = { ipip, sit, scenario_by_name("plain") };
	volatile int stop = 0, ended = 0;
	struct tcp_pairs tp;
	struct toggler t = { .cycles = cycles, .abort = &ended, .tp = soak ? &tp : NULL };
	struct leg legs[K06_LEGS];
	int nlegs_want = soak ? 3 : 2;
	int slow = access("/proc/lockdep", F_OK) == 0;
	unsigned pace = slow ? K06_SLOW : 1, quiet = slow ? 2000 * K06_SLOW : 0;
	struct flow flows[4] = {
		{ .name = "udp_ipip", .family = AF_INET, .dst = ipip->dst, .port = 6002, .gap_us = K06_UDP_GAP_US * pace,
		  .quiet_ms = quiet },
		{ .name = "udp_sit", .family = AF_INET6, .dst = sit->dst, .port = 6003, .gap_us = K06_UDP_GAP_US * pace,
		  .quiet_ms = quiet },
		{ .name = "icmp_ipip", .family = AF_INET, .icmp = 1, .dst = ipip->dst, .gap_us = K06_ICMP_GAP_US * pace,
		  .quiet_ms = quiet },
		{ .name = "icmp_sit", .family = AF_INET6, .icmp = 1, .dst = sit->dst, .gap_us = K06_ICMP_GAP_US * pace,
		  .quiet_ms = quiet },
	};
	int nflows = 0, nlegs = 0, rc;
	char why[200] = "";

	t.seen = calloc(cycles, sizeof(*t.seen));
	t.delegated = calloc(cycles, sizeof(*t.delegated));
	if (!t.seen || !t.delegated)
		die("K06: out of memory for %u cycles", cycles);
	if (mod_loaded() && (rc = mod_unload()))
		die("K06: tungro loaded before the run and rmmod failed: %s", strerror(-rc));
	memset(&tp, 0, sizeof(tp));
	out("# K06: %u insmod/rmmod cycles of tungro under TCP (%u MiB at least), UDP and ICMP in IPIP and SIT%s%s", cycles,
	    mib, soak ? ", plain TCP; in windows each followed by one as long with tungro unloaded" : "",
	    slow ? "; lockdep kernel: UDP and ICMP paced 5 times slower, 30 s per cycle for the streams" : "");
	uint64_t drops0 = udp_rcvbuf_errors(), t_start = now_us();

	for (int i = 0; i < 4; i++, nflows++) {
		flows[i].stop = &stop;
		if (flow_start(&flows[i])) {
			snprintf(why, sizeof(why), "%s: %s", flows[i].name, flows[i].err);
			nflows++;
			goto stop;
		}
	}
	for (int i = 0; i < nlegs_want; i++, nlegs++) {
		struct leg *l = &legs[i];
		memset(l, 0, sizeof(*l));
		l->sc = legs_sc[i];
		l->seed = 6000 + (uint64_t)i;
		/* the stream lasts as long as the cycles: allow K06_CYCLE_S per cycle on top of the usual (the
		 * soak's windows without tungro double that) */
		l->timeout_s = stream_timeout((uint64_t)mib * MIB) +
			       (soak ? 2 : 1) * (slow ? K06_SLOW_CYCLE_S : K06_CYCLE_S) * cycles;
		l->o = (struct stream_opts){ .open_ended = 1, .stop = &stop, .max_bytes = 1ull << 40,
					     .progress = &l->progress };
		l->ended = &ended;
		if ((rc = pthread_create(&l->th, NULL, leg_main, l)) != 0)
			die("pthread_create (K06 stream): %s", strerror(rc));
		t.progress[t.nprogress++] = &l->progress;
	}

	/* every flow under way before the first load, so each action lands mid-traffic */
	for (unsigned ms = 0;; ms += 10) {
		int ready = 1;
		for (int i = 0; i < nlegs; i++)
			ready &= __atomic_load_n(&legs[i].progress, __ATOMIC_ACQUIRE) >= 256 * 1024;
		for (int i = 0; i < 4; i++)
			ready &= *(volatile uint64_t *)&flows[i].received > 0;
		if (ready)
			break;
		if (ms >= 60000 || __atomic_load_n(&ended, __ATOMIC_ACQUIRE)) {
			snprintf(why, sizeof(why), "traffic not under way after %u ms", ms);
			goto stop;
		}
		sleep_ms(10);
	}
	toggler_run(&t);
	/* TCP keeps going until the minimum is reached, plus its 1 MiB tail */
	for (int i = 0; i < nlegs; i++)
		while (!__atomic_load_n(&ended, __ATOMIC_ACQUIRE) && legs[i].progress < (unsigned long)mib * MIB)
			sleep_ms(10);
stop:
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < nlegs; i++)
		pthread_join(legs[i].th, NULL);
	for (int i = 0; i < nflows; i++)
		flow_join(&flows[i]);
	if (mod_loaded())
		mod_unload();
	uint64_t drops = udp_rcvbuf_errors() - drops0, secs10 = (now_us() - t_start) / 100000u;
	if (why[0])
		fail("K06: %s", why);

	for (int i = 0; i < nlegs; i++) {
		char name[64];
		print_result(&legs[i].r);
		snprintf(name, sizeof(name), "K06_tcp_%s", legs[i].sc->name);
		check(name, legs[i].rc == 0, "K06 TCP in %s across the cycles: %" PRIu64 " bytes sent, %" PRIu64
		      " received, checksum %s%s%s", legs[i].sc->name, legs[i].r.sent, legs[i].r.bytes,
		      legs[i].r.ok && legs[i].r.csum_ok ? "ok" : "BAD", legs[i].r.err[0] ? ": " : "", legs[i].r.err);
	}
	for (int i = 0; i < nflows; i++)
		k06_flow_check(&flows[i]);
	out("# K06: UDP receive buffer drops during the run (Udp/Udp6 RcvbufErrors): %" PRIu64, drops);
	if (soak) {
		int v = tcp_pairs_report("K06TCP", &tp, K06_PAIRS / 2, K06_P_FAIL, 1);
		check("K06_tcp_counters", v == TCP_PAIRS_NOT_WORSE,
		      "K06 receiver's TCPOFOQueue and sender's retransmissions per MiB over %d pairs of windows (cycles,"
		      " then tungro unloaded as long): %s (worse: over %.1f out of order a cycle beyond %.1f times"
		      " the unloaded windows' rate, paired tests p < %.3g on both; >= %d pairs)",
		      tp.pairs, v == TCP_PAIRS_NOT_WORSE ? "not worse" : v == TCP_PAIRS_WORSE ? "CYCLES WORSE" :
		      "TOO FEW PAIRS", TCP_PAIRS_GATE_EXCESS, TCP_PAIRS_GATE_RATE, K06_P_FAIL, K06_PAIRS / 2);
	}

	/* Which part of a cycle the receiver's reordering comes from, against the windows without tungro (soak). The
	 * insmod and rmmod phases stall the guest (module text, RCU grace periods, callback swaps); the loaded phase
	 * is tungro's GRO serving the tunnels. */
	{
		static const char *const names[4] = { "insmod", "loaded", "rmmod", "gap" };
		char line[400];
		int len = 0;
		for (int p = 0; p < 4; p++)
			len += snprintf(line + len, sizeof(line) - (size_t)len, "%s %" PRIu64 " in %.1f s (%.1f/s), ", names[p],
					t.ofo_phase[p], t.us_phase[p] / 1e6, t.us_phase[p] ? t.ofo_phase[p] * 1e6 / t.us_phase[p] : 0.0);
		out("K06PHASES arch=%s kernel=%s receiver out of order in the cycles' phases: %sunloaded windows %" PRIu64
		    " in %.1f s (%.1f/s) (reported)", uname_machine(), uname_release(), line, tp.ker.ofo, soak ? tp.ker_s : 0.0,
		    soak && tp.ker_s > 0 ? tp.ker.ofo / tp.ker_s : 0.0);
	}

	unsigned n = t.done ? t.done : 1;
	check("K06_cycles", t.done == cycles && !t.err[0],
	      "K06 %u of %u insmod/rmmod cycles under traffic in %" PRIu64 ".%" PRIu64 " s; insmod %.1f ms mean, "
	      "%.1f max; rmmod %.1f ms mean, %.1f max%s%s",
	      t.done, cycles, secs10 / 10, secs10 % 10, (double)t.load_us / n / 1000.0,
	      (double)t.load_max_us / 1000.0, (double)t.unload_us / n / 1000.0, (double)t.unload_max_us / 1000.0,
	      t.err[0] ? "; " : "", t.err);

	/* every window must have had tunnel packets through tungro, and non-TCP ones (UDP, ICMP) must have taken
	 * the path through the kernel's saved callbacks, which the race is about */
	unsigned empty = 0, with_delegated = 0;
	uint64_t seen_min = UINT64_MAX, seen_sum = 0, delegated_sum = 0;
	for (unsigned i = 0; i < t.done; i++) {
		empty += t.seen[i] == 0;
		with_delegated += t.delegated[i] > 0;
		seen_min = t.seen[i] < seen_min ? t.seen[i] : seen_min;
		seen_sum += t.seen[i];
		delegated_sum += t.delegated[i];
	}
	check("K06_windows_saw_traffic", t.done > 0 && empty == 0 && delegated_sum > 0,
	      "K06 %u load windows: %u without a tunnel packet through tungro (debugfs seen; min %" PRIu64
	      ", total %" PRIu64 "), %u with UDP/ICMP handed to the kernel's callbacks (delegated total %" PRIu64
	      "; need every window seen > 0 and delegated > 0)",
	      t.done, empty, t.done ? seen_min : 0, seen_sum, with_delegated, delegated_sum);
	free(t.seen);
	free(t.delegated);
}

/* ---- K01 and K08: TCP in IP-in-IP inside FOU and GUE, over IPv4 and IPv6, kernel GRO vs tungro ---- */

/* One connection, the engines alternating in windows: separate streams differ by up to 20% in segments per GRO
 * packet under TCG whatever the engine (17.4 against 22 for the kernel alone, m68k), which would drown a 0.9x bar. */
#define K01_WINDOWS 4           /* per engine */
#define K01_WINDOW_MIB 2

void k01_fou_gue(unsigned mib)
{
	/* K01: fou/gue_gro_receive over IPv4 call inet_offloads[]; K08: over IPv6, inet6_offloads[] (tungro's
	 * ip4ip6 and ip6ip6 slots) */
	static const struct { const char *scenario, *id; } runs[] = {
		{ "ipip-fou", "K01_ipip_fou" }, { "sit-gue", "K01_sit_gue" },
		{ "ip4ip6-fou6", "K08_ip4ip6_fou6" }, { "ip6ip6-gue6", "K08_ip6ip6_gue6" },
	};

	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		const struct scenario *sc = scenario_by_name(runs[i].scenario);
		const char *id = runs[i].id;
		struct ab_counts eng[2];
		struct run_result r;
		char name[64], err[200], reasons[128] = "-";

		if (mod_loaded())
			mod_unload();
		out("# %.3s %s: one TCP stream, %d windows of %d MiB per engine, the kernel's GRO and tungro alternating",
		    id, sc->name, K01_WINDOWS, K01_WINDOW_MIB);
		int done = run_stream_ab(sc, K01_WINDOWS, K01_WINDOW_MIB, (uint64_t)mib * MIB, 7000 + (uint64_t)i, eng,
					 &r, err, sizeof(err));
		print_result(&r);
		if (eng[1].have_tg)
			stats_top_reasons(&eng[1].tg, reasons, sizeof(reasons));

		snprintf(name, sizeof(name), "%s_bytes", id);
		check(name, r.ok && r.csum_ok && r.bytes == r.sent && done == 2 * K01_WINDOWS && !err[0],
		      "%.3s %s: %" PRIu64 " bytes sent, %" PRIu64 " received, checksum %s; %d of %d windows%s%s%s%s",
		      id, sc->name, r.sent, r.bytes, r.ok && r.csum_ok ? "ok" : "BAD", done, 2 * K01_WINDOWS,
		      err[0] ? "; " : "", err, r.err[0] ? "; " : "", r.err);
		/* the kernel must coalesce here for the comparison to mean anything (it does: 6.12 reaches
		 * ipip_gro_receive/sit_ip6ip6_gro_receive from fou_gro_receive/gue_gro_receive) */
		double k = ab_segs_per_gro(&eng[0]), t = ab_segs_per_gro(&eng[1]);
		/*
		 * Deterministic part: every FOU/GUE segment tungro saw went to the kernel's callback, as in 6.12.
		 * The ratio is a gate only where the kernel coalesces well (>= 8): on the KASAN kernel it makes
		 * about 2.5 segments per GRO packet, and two windows of the same kernel GRO differ by 15% there.
		 */
		uint64_t seen = stats_get(&eng[1].tg, "seen"), encap = stats_get(&eng[1].tg, "flush_udp_encap");
		uint64_t malformed = stats_get(&eng[1].tg, "flush_malformed");
		/* Reported, never a gate: with tungro loaded these segments still go through the kernel's own FOU/GUE
		 * GRO (that is the fix), so the ratio compares the kernel with itself, windows apart: 0.90-1.01 seen
		 * under TCG. The deterministic assertion is the delegation count below. */

		snprintf(name, sizeof(name), "%s_gro", id);
		check(name, done == 2 * K01_WINDOWS && k > 1.5 && encap > 0 && malformed == 0,
		      "%.3s %s: tungro %.2f segs/GRO packet vs kernel %.2f on the same connection (%" PRIu64 "/%" PRIu64
		      " vs %" PRIu64 "/%" PRIu64 " wire segments/GRO packets; need kernel > 1.5, FOU/GUE segments handed "
		      "to the kernel's callback and none refused as malformed, segments per GRO packet reported); tungro "
		      "debugfs seen %" PRIu64 " flush_udp_encap %" PRIu64 " flush_malformed %" PRIu64 " merged %" PRIu64
		      " passed %" PRIu64 ", flush %s",
		      id, sc->name, t, k, eng[1].wire, eng[1].gro, eng[0].wire, eng[0].gro,
		      seen, encap, malformed,
		      stats_get(&eng[1].tg, "merged"), stats_get(&eng[1].tg, "passed"), reasons);
	}
}

/* ---- K07: stacked hooks ---- */

#define K07_BLOCK_MS 2000       /* rmmod tungro under the stacker must still be waiting after this */
#define K07_RETURN_MS 15000     /* ... and return within this once the stacker is gone */

/* Kernel log records since klog_open(), kept one per line: several lines are looked for in one stretch of log. */
static struct klog {
	int fd;
	size_t len;
	char text[16384];
} g_klog;

static void klog_open(void)
{
	g_klog.len = 0;
	g_klog.text[0] = 0;
	if ((g_klog.fd = kmsg_open()) < 0)
		die("K07: open /dev/kmsg: %s", strerror(-g_klog.fd));
}

static void klog_read(void)
{
	char msg[512];
	while (kmsg_next(g_klog.fd, msg, sizeof(msg))) {
		int n = snprintf(g_klog.text + g_klog.len, sizeof(g_klog.text) - g_klog.len, "%s\n", msg);
		if (n > 0 && (size_t)n < sizeof(g_klog.text) - g_klog.len)
			g_klog.len += (size_t)n;
	}
}

static void klog_close(void)
{
	close(g_klog.fd);
}

/* First line read so far that holds both a and b (leading blanks dropped), into line; 0 if there is none. */
static int klog_find(const char *a, const char *b, char *line, size_t cap)
{
	for (const char *p = g_klog.text; *p;) {
		const char *end = strchr(p, '\n');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		char one[512];
		snprintf(one, sizeof(one), "%.*s", (int)n, p);
		if (strstr(one, a) && strstr(one, b)) {
			snprintf(line, cap, "%s", one + strspn(one, " \t"));
			return 1;
		}
		p += n + (end != NULL);
	}
	return 0;
}

/* KTAP result line of a suite: "ok N suite" or "not ok N suite", possibly with a "# ..." directive after it. */
static int klog_ktap_result(const char *suite, char *line, size_t cap)
{
	char pat[80];
	size_t sl = strlen(suite);
	snprintf(pat, sizeof(pat), " %s", suite);
	for (const char *p = g_klog.text; (p = strstr(p, pat)) != NULL; p += sl) {
		const char *start = p, *after = p + 1 + sl;
		if (*after && *after != '\n' && *after != ' ')
			continue;   /* a test of the suite (suite_name_...), not the suite */
		while (start > g_klog.text && start[-1] != '\n')
			start--;
		start += strspn(start, " \t");
		if (strncmp(start, "ok ", 3) && strncmp(start, "not ok ", 7))
			continue;
		const char *end = strchr(after, '\n');
		snprintf(line, cap, "%.*s", (int)((end ? end : after + strlen(after)) - start), start);
		return 1;
	}
	return 0;
}

/* What the log says about an expected line: the line, or that it is missing and what tungro said instead. */
static int klog_expect(const char *a, const char *b, char *line, size_t cap)
{
	char said[400];
	if (klog_find(a, b, line, cap))
		return 1;
	if (klog_find("tungro:", "", said, sizeof(said)))
		snprintf(line, cap, "no line with \"%s\" and \"%s\" (tungro said: \"%s\")", a, b, said);
	else
		snprintf(line, cap, "no line with \"%s\" and \"%s\" (nothing from tungro)", a, b);
	return 0;
}

/* After each order: the kernel's own IPIP GRO must be back and coalescing. */
static void k07_kernel_gro(const char *order)
{
	const struct scenario *ipip = scenario_by_name("ipip");
	struct run_result r;
	char name[64];
	int rc = run_stream(ipip, "kernel", MIB, 8000 + (uint64_t)order[0], stream_timeout(MIB), NULL, &r);
	print_result(&r);
	snprintf(name, sizeof(name), "K07_%s_kernel_gro", order);
	check(name, rc == 0 && r.segs_per_gro > 1.0 && !mod_loaded() && !mod_loaded_name("tungro_stacker"),
	      "K07 order %s, afterwards: IPIP with the kernel's GRO %.2f segs/GRO (need > 1), checksum %s, tungro %s, "
	      "tungro_stacker %s%s%s", order, r.segs_per_gro, r.ok && r.csum_ok ? "ok" : "BAD",
	      mod_loaded() ? "STILL LOADED" : "unloaded", mod_loaded_name("tungro_stacker") ? "STILL LOADED" : "unloaded",
	      r.err[0] ? ": " : "", r.err);
}

static const char *errname(int rc)
{
	return rc ? strerror(-rc) : "ok";
}

/* (a) stacker first: tungro must refuse to load over it, and load once it is gone. */
static void k07_refuse(void)
{
	char line[512];
	int rc, rc_unload = 0, rc_stacker, rc_again;

	out("# K07 order a: insmod tungro_stacker, insmod tungro (must fail with EBUSY), rmmod tungro_stacker, "
	    "insmod tungro");
	if ((rc = mod_load_file(STACKER_MODULE_PATH))) {
		check("K07_a_stacker", 0, "K07 insmod %s: %s", STACKER_MODULE_PATH, strerror(-rc));
		return;
	}
	klog_open();
	rc = mod_load();
	klog_read();
	klog_close();
	int found = klog_expect("tungro:", "refus", line, sizeof(line));
	check("K07_a_refused", rc == -EBUSY && !mod_loaded() && found,
	      "K07 insmod tungro with tungro_stacker on the IPIP slot: %s (need EBUSY), dmesg: %s",
	      rc ? strerror(-rc) : "LOADED", line);
	if (rc == 0) {
		/* tungro took the slot anyway and saved the stacker's pointer: it has to go first, or it would call
		 * into the stacker's freed memory once the stacker is unloaded */
		rc_unload = mod_unload();
	}
	rc_stacker = mod_unload_name("tungro_stacker");
	rc_again = rc_stacker ? -EALREADY : mod_load();
	check("K07_a_load_after", rc_unload == 0 && rc_stacker == 0 && rc_again == 0 && mod_loaded(),
	      "K07 rmmod tungro_stacker: %s, then insmod tungro: %s%s%s", errname(rc_stacker),
	      rc_again == -EALREADY ? "not tried" : errname(rc_again), rc_unload ? "; rmmod of the wrongly loaded "
	      "tungro: " : "", rc_unload ? strerror(-rc_unload) : "");
	if (mod_loaded())
		mod_unload();
	k07_kernel_gro("a");
}

/* (c) tungro_kunit.ko installs tungro's offloads for its suites: over a loaded tungro.ko it must refuse too. One
 * suite only (kunit.filter_glob), so this costs a second, not the whole KUnit run. */
static void k07_kunit(void)
{
	static const char suite[] = "tungro_layout";
	char line[512], res[200];
	int rc, rc_kunit, rc_kunit_rm, rc_tungro_rm;

	if (access(KUNIT_MODULE_PATH, R_OK)) {
		check("K07_c_kunit", 0, "K07 %s not in the initramfs", KUNIT_MODULE_PATH);
		return;
	}
	out("# K07 order c: insmod tungro, insmod tungro_kunit (suite %s; its offload install must be refused), "
	    "rmmod both", suite);
	if ((rc = write_file("/sys/module/kunit/parameters/filter_glob", suite))) {
		check("K07_c_kunit", 0, "K07 set kunit.filter_glob: %s", strerror(-rc));
		return;
	}
	if ((rc = mod_load())) {
		check("K07_c_kunit", 0, "K07 insmod tungro: %s", strerror(-rc));
		return;
	}
	klog_open();
	rc_kunit = mod_load_file(KUNIT_MODULE_PATH);
	klog_read();
	klog_close();
	/* the suite's KTAP result ("ok N tungro_layout" or "not ok N tungro_layout"), and tungro's refusal */
	if (!klog_ktap_result(suite, res, sizeof(res)))
		snprintf(res, sizeof(res), "no result line for %s", suite);
	int found = klog_expect("tungro:", "refus", line, sizeof(line));
	check("K07_c_kunit_refused", found,
	      "K07 insmod tungro_kunit over tungro.ko: %s; KTAP: %s; dmesg: %s", errname(rc_kunit), res, line);
	rc_kunit_rm = rc_kunit ? 0 : mod_unload_name("tungro_kunit");
	rc_tungro_rm = mod_unload();
	check("K07_c_rmmod", rc_kunit_rm == 0 && rc_tungro_rm == 0 && !mod_loaded() && !mod_loaded_name("tungro_kunit"),
	      "K07 rmmod tungro_kunit: %s, rmmod tungro: %s", errname(rc_kunit_rm), errname(rc_tungro_rm));
	k07_kernel_gro("c");
}

/* rmmod tungro in its own thread: with a stacker on top it must wait. Static: if it never returns, the thread
 * outlives the check and the run goes on (the agent's watchdog bounds the whole run). */
static struct unloader {
	volatile int done;
	int rc;
	uint64_t usecs;
} g_unloader;

static void *unloader_main(void *arg)
{
	struct unloader *u = arg;
	uint64_t t0 = now_us();
	u->rc = mod_unload();
	u->usecs = now_us() - t0;
	__atomic_store_n(&u->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int unloader_wait(struct unloader *u, unsigned ms)
{
	for (unsigned i = 0; i < ms && !__atomic_load_n(&u->done, __ATOMIC_ACQUIRE); i += 10)
		sleep_ms(10);
	return __atomic_load_n(&u->done, __ATOMIC_ACQUIRE);
}

/* (b) stacker on top of tungro: rmmod tungro must report the stacker and wait until its own pointer is back. */
static void k07_wait(void)
{
	char line[512], orphan[512];
	pthread_t th;
	int rc;

	out("# K07 order b: insmod tungro, insmod tungro_stacker, rmmod tungro (must wait), rmmod tungro_stacker");
	if ((rc = mod_load()) || (rc = mod_load_file(STACKER_MODULE_PATH))) {
		check("K07_b_setup", 0, "K07 insmod tungro, tungro_stacker: %s", strerror(-rc));
		if (mod_loaded_name("tungro_stacker"))
			mod_unload_name("tungro_stacker");
		if (mod_loaded())
			mod_unload();
		return;
	}
	klog_open();
	memset(&g_unloader, 0, sizeof(g_unloader));
	if ((rc = pthread_create(&th, NULL, unloader_main, &g_unloader)) != 0)
		die("pthread_create (K07 rmmod): %s", strerror(rc));
	pthread_detach(th);
	int returned_early = unloader_wait(&g_unloader, K07_BLOCK_MS);
	klog_read();
	int found = klog_expect("tungro:", "tungro_stacker_gro_receive", line, sizeof(line));
	check("K07_b_rmmod_waits", !returned_early && found,
	      "K07 rmmod tungro under tungro_stacker: %s after %u ms (need: still waiting); dmesg: %s",
	      returned_early ? "RETURNED" : "still waiting", returned_early ? (unsigned)(g_unloader.usecs / 1000) :
	      K07_BLOCK_MS, line);

	rc = mod_unload_name("tungro_stacker");
	int returned = unloader_wait(&g_unloader, K07_RETURN_MS);
	/* a stacker left without a lower layer says so (and stays): the log tells which way it went */
	klog_read();
	klog_close();
	if (!klog_find("tungro_stacker:", "unloaded while", orphan, sizeof(orphan)) &&
	    !klog_find("tungro_stacker:", "unstacked", orphan, sizeof(orphan)))
		snprintf(orphan, sizeof(orphan), "nothing");
	check("K07_b_both_gone", returned && g_unloader.rc == 0 && rc == 0 && !mod_loaded() &&
	      !mod_loaded_name("tungro_stacker"),
	      "K07 rmmod tungro_stacker: %s; rmmod tungro %s%s; tungro %s, tungro_stacker %s; stacker log: %s",
	      errname(rc), returned ? "returned: " : "STILL WAITING after the stacker's rmmod",
	      returned ? errname(g_unloader.rc) : "", mod_loaded() ? "LOADED" : "gone",
	      mod_loaded_name("tungro_stacker") ? "LOADED" : "gone", orphan);
	if (!returned)
		return;   /* tungro's exit is stuck: no kernel GRO to measure */
	k07_kernel_gro("b");
}

void k07_stacked_hooks(void)
{
	if (access(STACKER_MODULE_PATH, R_OK)) {
		/* Built only for kernels with KUnit (the test kernels, where K07 runs); a distribution kernel
		 * such as Debian's has none. guest.sh refuses a test kernel without it. */
		out("# K07 skipped on %s: %s is built only for the test kernels", uname_release(),
		    STACKER_MODULE_PATH);
		return;
	}
	if (mod_loaded())
		mod_unload();
	k07_refuse();
	k07_kunit();
	/* last: if tungro's exit does not wait, the stacker is left without a lower layer and stays in the slot */
	k07_wait();
}
