/* engine.c - guest checks of tungro's engine path: the receiving virtio-net device (eth0) attached to tungro's
 * NAPI engine (module/tungro_attach.c, module/tungro_engine.c), compared with the kernel's GRO in the same boot.
 *
 * Checks: refusals (unknown device, not virtio-net, already attached, bad command); GRO off while attached and
 * back after; plain, IPIP and SIT streams byte-exact with segments per GRO packet at least the kernel's (within
 * a paired test, see ENGINE_P_FAIL); 100+ attach/detach cycles under one running stream; and E05: detach and
 * rmmod while the engine holds a flow (gro_flush_timeout keeps it held), delivered, nothing leaked, the
 * device working with the kernel's GRO afterwards.
 */
#include "agent.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#define LOOP_WINDOWS ENGINE_LOOP_WINDOWS   /* windows of cycles / LOOP_WINDOWS cycles, each then a kernel-GRO one */
#define ROUNDS 12               /* windows per engine on one connection, kernel GRO and engine alternating */
#define WINDOW_MIN_WIRE 64      /* a window with fewer wire segments saw no traffic (its bytes were buffered) */
#define ROUNDS_DEBUG 2          /* on KASAN/kmemleak kernels (make test-debug): ten times slower, same checks */
static int g_rounds = ROUNDS;
static int g_debug;             /* KASAN/kmemleak kernel: segments per GRO packet reported, not gated */
/* KCSAN kernel (make test-kcsan's race mode): its watchpoints slow every access; the loop's stream moved 3 MiB in
 * 13 s (2026-12-05), too little for LOOPTCP's window pairs of 1 MiB each */
static int g_kcsan;

/* The sanitizer kernels (KASAN/kmemleak, KCSAN), where every access is slowed: timing-born conditions (a window
 * pair's MiB, packets still held at an attach) are reported there, not gated; bytes and cycles still are. */
static const char *sanitizer_kernel(void)
{
	return g_kcsan ? "KCSAN" : g_debug ? "KASAN/kmemleak" : NULL;
}

/* The device's gro_flush_timeout in E05: held packets then wait for the next poll or this timer, which
 * also paces TCP (each stall of the ACK clock costs up to the timeout). */
static const char *g_flush_timeout = "20000000";   /* ns */
/*
 * Separate TCP streams under TCG differ by about 10% in segments per GRO packet whatever the engine (README,
 * "The demo"), so each scenario is one connection cut into windows, the kernel's GRO and the engine
 * alternating (attach for the engine's windows, detach for the kernel's), counters pooled per engine.
 *
 * Tolerance: the engine cuts a GRO packet where the kernel's GRO does (the sender's PSH, 64 KiB, the end of a
 * poll; the ENGINE line lists its cuts). But where the sender puts PSH (the end of each send, a forced push
 * every half window) follows its ACK clock, and the engine path hands a poll's packets to TCP after the
 * device's poll instead of during it: runs counted 2 to 9% more PSH marks per wire segment in the engine's
 * windows (wire_segs_per_psh, the kernel's counted by tungro's offload path inside its GRO), with the engine's
 * own extra cuts (poll ends) about as few as the kernel's (ENGINE_CUTS: GRO packets per PSH mark, IPIP and
 * SIT). Under TCG on a busy machine a window's figure also swings by tens of percent (one run measured the
 * pooled engine/kernel at 0.80 with the host at load 15). So the gate is the demo's paired test (wstats.c): the
 * check fails when the engine is worse with p < 0.002 over the window pairs (exact one-sided Wilcoxon signed-rank
 * over 12 pairs), or when it merges nothing; the pooled ratio is reported. At 8 pairs and p < 0.01, all eight
 * worse by chance (p = 0.004) failed about one make test in ten over its nine such checks, the PSH shift above
 * making that likelier; at 12 pairs p < 0.002 needs 11 of 12 worse. The demo's 16 rounds are the finer test.
 * That was not enough: on 2026-12-06 m68k's SIT had 6.2% more PSH marks per segment in the engine's windows,
 * and all 12 pairs lower (p = 0.001), while the engine cut fewer GRO packets per PSH mark than the kernel (1.017
 * against 1.041). So where both windows count PSH marks (the tunnels), the check fails only when GRO packets per
 * PSH mark, the cuts that are the receiver's, are worse by the same test too; plain TCP keeps the one test.
 */
#define ENGINE_P_FAIL 0.002
#define CUT_PAIRS_MIN 10   /* window pairs with PSH marks counted in both before the cuts' test can clear one */

int mod_load_params(const char *params)
{
	return mod_load_file_params(MODULE_PATH, params);
}

int engine_control(const char *cmd)
{
	return write_file(CONTROL_PATH, cmd);
}

uint64_t engine_kv(const char *path, const char *key)
{
	struct stats s;
	return kv_read(path, &s, 0) ? 0 : stats_get(&s, key);
}

/* NETIF_F_GRO of eth0 as ethtool sees it: 1, 0, or -errno. */
static int gro_on(void)
{
	return dev_gro(ENGINE_DEV, -1);
}

static unsigned timeout_for(uint64_t bytes)
{
	return 60u + (unsigned)(bytes / MIB) * 10u;
}

/* ---- refusals and the control file ---- */

static void engine_control_checks(void)
{
	int rc = mod_load_params("attach=nosuch0");
	check("engine_refuse_unknown", rc == -ENODEV && !mod_loaded(), "insmod attach=nosuch0: %s (want ENODEV)",
	      rc ? strerror(-rc) : "loaded");
	if (!rc)
		mod_unload();
	rc = mod_load_params("attach=lo");
	check("engine_refuse_not_virtio", rc == -EOPNOTSUPP && !mod_loaded(), "insmod attach=lo: %s (want EOPNOTSUPP)",
	      rc ? strerror(-rc) : "loaded");
	if (!rc)
		mod_unload();

	rc = mod_load();
	if (rc) {
		check("engine_control", 0, "insmod: %s", strerror(-rc));
		return;
	}
	int g0 = gro_on();
	int a = engine_control("attach " ENGINE_DEV);
	int g1 = gro_on();
	int again = engine_control("attach " ENGINE_DEV);
	int lo = engine_control("attach lo");
	int bad = engine_control("frobnicate " ENGINE_DEV);
	int stats = access(DEV_STATS_PATH, R_OK);
	int d = engine_control("detach " ENGINE_DEV);
	int g2 = gro_on();
	int d2 = engine_control("detach " ENGINE_DEV);
	check("engine_control", g0 == 1 && !a && g1 == 0 && again == -EEXIST && lo == -EOPNOTSUPP && bad == -EINVAL &&
	      !stats && !d && g2 == 1 && d2 == -ENOENT,
	      "GRO %d; attach %s; GRO %d; attach again %s; attach lo %s; bad command %s; %s %s; detach %s; GRO %d;"
	      " detach again %s", g0, strerror(-a), g1, strerror(-again), strerror(-lo), strerror(-bad),
	      DEV_STATS_PATH, stats ? "missing" : "present", strerror(-d), g2, strerror(-d2));
	mod_unload();
}

/* ---- kernel GRO vs the engine, window by window on one connection ---- */

/* GRO packets the receiver's stack got so far: the tunnel device's rx_packets (one per outer GRO packet, counted
 * before gro_cells), or TCP's InSegs for plain TCP (no second GRO on that path). */
int gro_count(const struct scenario *sc, uint64_t *v)
{
	char path[128];
	if (sc->tundev) {
		snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/rx_packets", sc->tundev);
		return read_u64(path, v);
	}
	return snmp_counter("snmp", "Tcp", "InSegs", v);
}

struct ab {
	const struct scenario *sc;
	unsigned long window;   /* bytes per window */
	volatile unsigned long progress;
	volatile int stop, abort;
	uint64_t wire[2], gro[2], usecs[2];
	uint64_t ofo[2];        /* the receiver's TCPOFOQueue over the kernel's windows, the engine's (attached) */
	uint64_t psh[2];        /* segments carrying PSH (the core's "end"): the offload path's count in the kernel's
				 * windows (IPIP, SIT: tungro's offloads run inside the kernel's GRO), the engine's */
	double ratio_min, ratio_max;   /* engine/kernel over consecutive window pairs */
	double pair_d[ROUNDS];  /* per pair: engine minus kernel segments per GRO packet (the paired test's input) */
	double pair_d612[ROUNDS];  /* the same with the engine's L11 packets (flush_outer_id) merged back, as 6.12 */
	double pair_c[ROUNDS];  /* per pair, where both windows counted PSH marks (the tunnels): kernel minus engine
				 * GRO packets per PSH mark, the engine's L11 packets merged back */
	int cpairs;
	uint64_t outer_id;      /* those packets over the engine's windows */
	int pairs;
	int windows;
	struct stats d;         /* the engine's debugfs delta over its windows */
	int have_d;
	char err[200];
};

static int ab_wait(struct ab *a, unsigned long p0)
{
	while (__atomic_load_n(&a->progress, __ATOMIC_ACQUIRE) - p0 < a->window) {
		if (__atomic_load_n(&a->abort, __ATOMIC_ACQUIRE))
			return -1;
		sleep_ms(2);
	}
	return 0;
}

static void *ab_main(void *arg)
{
	struct ab *a = arg;
	uint64_t w0, w1, g0, g1, t0;
	double last_k = 0, last_kc = 0;
	struct stats s0, s1, dd, k0, k1;
	int rc;

	while (__atomic_load_n(&a->progress, __ATOMIC_ACQUIRE) < MIB)   /* past slow start */
		if (__atomic_load_n(&a->abort, __ATOMIC_ACQUIRE))
			goto out;
		else
			sleep_ms(5);
	a->ratio_min = 1e9;
	for (int i = 0; i < 2 * g_rounds; i++) {
		int e = i & 1;
		if (e && (rc = engine_control("attach " ENGINE_DEV))) {
			snprintf(a->err, sizeof(a->err), "window %d: attach: %s", i, strerror(-rc));
			goto out;
		}
		if (e)
			kv_read(DEV_STATS_PATH, &s0, 0);
		else
			stats_read(&k0);
		if ((rc = read_u64("/sys/class/net/" ENGINE_DEV "/statistics/rx_packets", &w0)) ||
		    (rc = gro_count(a->sc, &g0))) {
			snprintf(a->err, sizeof(a->err), "window %d: counters: %s", i, strerror(-rc));
			goto out;
		}
		t0 = now_us();
		uint64_t o0 = receiver_ofo();
		if (ab_wait(a, __atomic_load_n(&a->progress, __ATOMIC_ACQUIRE)))
			goto out;
		a->ofo[e] += receiver_ofo() - o0;
		if ((rc = read_u64("/sys/class/net/" ENGINE_DEV "/statistics/rx_packets", &w1)) ||
		    (rc = gro_count(a->sc, &g1))) {
			snprintf(a->err, sizeof(a->err), "window %d: counters: %s", i, strerror(-rc));
			goto out;
		}
		a->wire[e] += w1 - w0;
		a->gro[e] += g1 - g0;
		a->usecs[e] += now_us() - t0;
		double spg = g1 > g0 ? (double)(w1 - w0) / (double)(g1 - g0) : 0;
		if (e) {
			int have = kv_read(DEV_STATS_PATH, &s1, 0) == 0;
			uint64_t oid = 0;
			if (have) {
				stats_delta(&dd, &s1, &s0);
				oid = stats_get(&dd, "flush_outer_id");
			}
			if (last_k > 0 && w1 - w0 >= WINDOW_MIN_WIRE) {
				double q = spg / last_k;
				double spg612 = segs_per_gro_612(w1 - w0, g1 - g0, oid);
				if (a->pairs < ROUNDS) {
					a->pair_d612[a->pairs] = spg612 - last_k;
					a->pair_d[a->pairs++] = spg - last_k;
				}
				uint64_t psh = have ? stats_get(&dd, "flush_end") : 0;
				if (last_kc > 0 && psh && g1 - g0 > oid && a->cpairs < ROUNDS)
					a->pair_c[a->cpairs++] = last_kc - (double)(g1 - g0 - oid) / (double)psh;
				a->ratio_min = q < a->ratio_min ? q : a->ratio_min;
				a->ratio_max = q > a->ratio_max ? q : a->ratio_max;
			}
			a->outer_id += oid;
			if (have) {
				a->psh[1] += stats_get(&dd, "flush_end");
				if (!a->have_d) {
					a->d = dd;
					a->have_d = 1;
				} else {
					for (int k = 0; k < a->d.n && k < dd.n; k++)
						a->d.val[k] += dd.val[k];
				}
				/* high-water mark: the largest, not a sum */
				for (int k = 0; k < a->d.n; k++)
					if (!strcmp(a->d.key[k], "held_max"))
						a->d.val[k] = stats_get(&s1, "held_max");
			}
			if ((rc = engine_control("detach " ENGINE_DEV))) {
				snprintf(a->err, sizeof(a->err), "window %d: detach: %s", i, strerror(-rc));
				goto out;
			}
		} else {
			last_k = w1 - w0 >= WINDOW_MIN_WIRE ? spg : 0;   /* no traffic: no pair */
			last_kc = 0;
			if (a->sc->tundev && stats_read(&k1) == 0) {
				uint64_t psh = stats_get(&k1, "flush_end") - stats_get(&k0, "flush_end");
				a->psh[0] += psh;
				if (last_k > 0 && psh)
					last_kc = (double)(g1 - g0) / (double)psh;
			}
		}
		a->windows = i + 1;
	}
out:
	if (access(DEV_STATS_PATH, F_OK) == 0)
		engine_control("detach " ENGINE_DEV);
	__atomic_store_n(&a->stop, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void engine_compare(const struct scenario *sc, uint64_t bytes)
{
	struct ab a;
	struct run_result r;
	pthread_t th;
	char name[64];
	int rc;

	memset(&a, 0, sizeof(a));
	a.sc = sc;
	a.window = (unsigned long)(bytes / 4 > 256 * 1024 ? bytes / 4 : 256 * 1024);
	struct stream_opts o = { .open_ended = 1, .stop = &a.stop, .max_bytes = 1024ull * MIB, .progress = &a.progress };
	if ((rc = pthread_create(&th, NULL, ab_main, &a)) != 0)
		die("pthread_create (engine ab): %s", strerror(rc));
	out("# %s: one stream, %d windows of %lu KiB per engine, kernel GRO and engine alternating", sc->name, g_rounds,
	    a.window / 1024);
	rc = run_stream(sc, "ab", bytes, 5000 + (uint64_t)sc->port, 600, &o, &r);
	__atomic_store_n(&a.abort, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	print_result(&r);
	snprintf(name, sizeof(name), "engine_%s_bytes", sc->name);
	check(name, rc == 0 && a.windows == 2 * g_rounds && !a.err[0], "%" PRIu64 " bytes sent, %" PRIu64
	      " received, checksum %s, %d of %d windows%s%s%s%s", r.sent, r.bytes, r.ok && r.csum_ok ? "ok" : "BAD",
	      a.windows, 2 * g_rounds, a.err[0] ? ": " : "", a.err, r.err[0] ? ": " : "", r.err);
	double k = a.gro[0] ? (double)a.wire[0] / (double)a.gro[0] : 0, t = a.gro[1] ? (double)a.wire[1] / (double)a.gro[1] : 0;
	uint64_t lists = a.have_d ? stats_get(&a.d, "lists") : 0;
	char reasons[128];
	stats_top_reasons(&a.d, reasons, sizeof(reasons));
	out("ENGINE arch=%s kernel=%s scenario=%s kernel_segs_per_gro=%.2f engine_segs_per_gro=%.2f ratio=%.3f"
	    " pair_ratio_min=%.3f pair_ratio_max=%.3f wire_segs=%" PRIu64 "/%" PRIu64 " gro_pkts=%" PRIu64 "/%" PRIu64
	    " usecs=%" PRIu64 "/%" PRIu64 " seen=%" PRIu64 " merged=%" PRIu64 " held=%" PRIu64 " passed=%" PRIu64
	    " evicted=%" PRIu64 " held_max=%" PRIu64 " polls=%" PRIu64 " polls_full_budget=%" PRIu64 " lists=%" PRIu64
	    " pkts_per_list=%.2f retried=%" PRIu64 " flushed=%" PRIu64 " merged_fastpath=%" PRIu64 " reasons=%s"
	    " wire_segs_per_psh=%.2f/%.2f ofo=%" PRIu64 "/%" PRIu64 " ofo_per_s=%.1f/%.1f",
	    uname_machine(), uname_release(), sc->name, k, t, k ? t / k : 0,
	    a.ratio_min < 1e9 ? a.ratio_min : 0, a.ratio_max, a.wire[0], a.wire[1], a.gro[0], a.gro[1], a.usecs[0],
	    a.usecs[1], stats_get(&a.d, "seen"), stats_get(&a.d, "merged"), stats_get(&a.d, "held"),
	    stats_get(&a.d, "passed"), stats_get(&a.d, "evicted"), stats_get(&a.d, "held_max"),
	    stats_get(&a.d, "polls"), stats_get(&a.d, "polls_full_budget"), lists,
	    lists ? (double)stats_get(&a.d, "list_pkts") / (double)lists : 0, stats_get(&a.d, "retried"),
	    stats_get(&a.d, "flushed"), stats_get(&a.d, "merged_fastpath"), reasons,
	    a.psh[0] ? (double)a.wire[0] / (double)a.psh[0] : 0, a.psh[1] ? (double)a.wire[1] / (double)a.psh[1] : 0,
	    a.ofo[0], a.ofo[1],
	    a.usecs[0] ? (double)a.ofo[0] * 1e6 / (double)a.usecs[0] : 0,
	    a.usecs[1] ? (double)a.ofo[1] * 1e6 / (double)a.usecs[1] : 0);
	snprintf(name, sizeof(name), "engine_%s_gro", sc->name);
	/* As the demo: the gate takes the packets ended by 6.18's outer-ID rule (L11, an intended difference: Linux's
	 * tunnels step their outer IDs every jiffy) merged back as 6.12 merges them; the raw p is printed too. */
	double p = wilcoxon_p_below(a.pair_d, a.pairs), p612 = wilcoxon_p_below(a.pair_d612, a.pairs);
	/* Where both windows of a pair counted the sender's PSH marks (the tunnels), a shift of those marks (see the
	 * tolerance above) is told from cuts of the engine's own: the segments-per-packet test fails only when GRO
	 * packets per PSH mark are worse too (same test, same threshold, at least CUT_PAIRS_MIN pairs). */
	char cuts[112];
	double pc = cut_test_p(a.pair_c, a.cpairs, CUT_PAIRS_MIN, cuts, sizeof(cuts));
	const int worse = p612 < ENGINE_P_FAIL && pc < ENGINE_P_FAIL;
	/* The receive loop's fast stage must merge on the wire too, not only in the host tests. It takes a held
	 * packet's second merge at the earliest (the first writes the prediction), and never one with an end flag:
	 * on the debug kernel, SIT's 2.05 segments per GRO packet gave it none in 62 merges (2026-12-05), so there it
	 * is reported, as the ratio; on the KCSAN kernel SIT's sender pushed every 2 segments (2026-12-07, 1.94 and
	 * 1.95 segments per GRO packet, the engine's 4,281 merges all ending their packet), so it is required only
	 * where FAST_MIN_CONT merges or more did not end their packet, as for the offload path (fast_stage_ok()). */
	uint64_t fast = stats_get(&a.d, "merged_fastpath"), merged = stats_get(&a.d, "merged"), cont;
	const int fast_ok = fast_stage_ok(&a.d, fast, &cont);
	check(name, a.have_d && merged > 0 && (g_debug || (fast_ok && !worse && t > 1.0)),
	      "engine %.2f vs kernel %.2f segs/GRO packet on one connection, %d windows each, interleaved; paired test"
	      " over %d window pairs: engine worse with p = %.3f; with its %" PRIu64 " L11 packets (outer_id) merged back"
	      " p = %.3f (fail below %.3g; need > 1 too)%s; engine merged %" PRIu64 ", %" PRIu64 " by the fast"
	      " stage (need > 0 when %d or more, here %" PRIu64 ", do not end their packet)%s", t, k, g_rounds,
	      a.pairs, p, a.outer_id, p612, ENGINE_P_FAIL, cuts, merged, fast, FAST_MIN_CONT, cont,
	      g_debug ? "; debug kernel: ratio and fast-stage merges reported only, the sanitizers set the timing" : "");
	/* GRO packets per PSH mark, pooled: the cuts beyond the ones the traffic makes itself (the tunnels: tungro's
	 * offload path counts the kernel's windows' PSH marks). Alone too few for a gate at a few hundred packets per
	 * run (runs measured 1.01 to 1.07 for both); per window pair it only clears a shift of PSH marks (above). */
	if (a.psh[0] && a.psh[1])
		out("ENGINE_CUTS arch=%s scenario=%s gro_pkts_per_psh kernel=%.3f engine=%.3f", uname_machine(), sc->name,
		    (double)a.gro[0] / (double)a.psh[0], (double)a.gro[1] / (double)a.psh[1]);
}

/* ---- attach/detach cycles, and E05, under a running stream ---- */

#define E05_ATTEMPTS 20         /* E05 detaches tried until one finds a flow held */
#define TIMEOUT_CYCLES 40       /* attach/detach cycles with the device's gro_flush_timeout set ... */
#define TIMEOUT_CYCLES_MAX 200  /* ... and more, up to this many, until an attach found packets held */

struct cycler {
	volatile unsigned long progress;
	volatile int stop, abort;
	int mode;               /* 0: cycles attach/detach; 1: E05 detach with a flow held; 2: E05 rmmod;
				 * 3: TIMEOUT_CYCLES attach/detach with the device's gro_flush_timeout set */
	int cycles;             /* mode 0: a multiple of LOOP_WINDOWS */
	int attempts;           /* modes 1, 2: detaches (or the rmmod) tried until one found a flow held */
	int done, with_traffic;
	uint64_t attach_us, detach_us, max_detach_us;
	uint64_t held_seen;     /* held_now read just before the detach/rmmod */
	struct tcp_pairs tp;    /* mode 0: the TCP counters of the cycle windows and of the kernel-GRO windows */
	uint64_t ofo_phase[3];  /* the cycles' TCPOFOQueue during attach, attached, detach and after */
	char err[200];
};

static int cycler_wait(struct cycler *c, unsigned ms)
{
	for (unsigned i = 0; i < ms; i += 5) {
		if (__atomic_load_n(&c->abort, __ATOMIC_ACQUIRE))
			return -1;
		sleep_ms(5);
	}
	return 0;
}

/* Waits (up to 1 s) until the engine holds a packet: then a detach or rmmod finds a flow held. */
static void wait_held(struct cycler *c)
{
	uint64_t end = now_us() + 1000000;
	while (now_us() < end && !__atomic_load_n(&c->abort, __ATOMIC_ACQUIRE)) {
		uint64_t h = engine_kv(DEV_STATS_PATH, "held_now");
		if (h) {
			c->held_seen = h;
			return;
		}
		sleep_ms(1);
	}
}

/* One attach, 20 ms attached, one detach, 10 ms detached. 0, or -1 with c->err set or the stream gone. */
static int loop_cycle(struct cycler *c)
{
	uint64_t o0 = receiver_ofo(), t0 = now_us();
	int rc = engine_control("attach " ENGINE_DEV);
	uint64_t o1 = receiver_ofo();

	if (rc) {
		snprintf(c->err, sizeof(c->err), "cycle %d: attach: %s", c->done + 1, strerror(-rc));
		return -1;
	}
	uint64_t t1 = now_us();
	if (cycler_wait(c, 20))
		return -1;
	if (engine_kv(DEV_STATS_PATH, "seen"))
		c->with_traffic++;
	uint64_t o2 = receiver_ofo(), t2 = now_us();
	if ((rc = engine_control("detach " ENGINE_DEV))) {
		snprintf(c->err, sizeof(c->err), "cycle %d: detach: %s", c->done + 1, strerror(-rc));
		return -1;
	}
	uint64_t t3 = now_us();
	c->attach_us += t1 - t0;
	c->detach_us += t3 - t2;
	if (t3 - t2 > c->max_detach_us)
		c->max_detach_us = t3 - t2;
	c->done++;
	rc = cycler_wait(c, 10);
	/* where a cycle's out-of-order arrivals fall: the attach, the attached 20 ms, the detach and 10 ms after */
	uint64_t o3 = receiver_ofo();
	c->ofo_phase[0] += o1 - o0;
	c->ofo_phase[1] += o2 - o1;
	c->ofo_phase[2] += o3 - o2;
	return rc;
}

static void *cycler_main(void *arg)
{
	struct cycler *c = arg;
	int rc;

	while (__atomic_load_n(&c->progress, __ATOMIC_ACQUIRE) < 256 * 1024)
		if (cycler_wait(c, 5))
			goto out;
	if (c->mode == 0) {
		const int per_window = c->cycles / LOOP_WINDOWS;

		for (int w = 0; w < LOOP_WINDOWS; w++) {
			struct tcp_edges e;

			if ((rc = tcp_edge(&e, 0, __atomic_load_n(&c->progress, __ATOMIC_ACQUIRE)))) {
				snprintf(c->err, sizeof(c->err), "TCP counters: %s", strerror(-rc));
				goto out;
			}
			uint64_t w0 = now_us();
			for (int k = 0; k < per_window; k++)
				if (loop_cycle(c))
					goto out;
			uint64_t len_ms = (now_us() - w0) / 1000;
			rc = tcp_edge(&e, 1, __atomic_load_n(&c->progress, __ATOMIC_ACQUIRE));
			/* the kernel's GRO alone for as long, on the same connection */
			if (!rc && cycler_wait(c, (unsigned)len_ms))
				goto out;
			if (rc || (rc = tcp_edge(&e, 2, __atomic_load_n(&c->progress, __ATOMIC_ACQUIRE)))) {
				snprintf(c->err, sizeof(c->err), "TCP counters: %s", strerror(-rc));
				goto out;
			}
			tcp_pairs_add(&c->tp, &e, per_window);
		}
	} else if (c->mode == 3) {
		/* found held at 2 to 29 attaches of 40 in runs (m68k fewest): cycles go on until one has, as E05's */
		uint64_t flushed = engine_kv(CONTROL_PATH, "attach_flushed");
		for (int k = 0; k < TIMEOUT_CYCLES_MAX; k++) {
			if (k >= TIMEOUT_CYCLES && engine_kv(CONTROL_PATH, "attach_flushed") > flushed)
				break;
			if (loop_cycle(c))
				goto out;
		}
	} else {
		if (c->mode == 2 && (rc = mod_load_params("attach=" ENGINE_DEV " buckets=8 flows=8"))) {
			snprintf(c->err, sizeof(c->err), "insmod attach=%s: %s", ENGINE_DEV, strerror(-rc));
			goto out;
		}
		if (c->mode == 2 && (rc = write_file(FLUSH_TIMEOUT_PATH, g_flush_timeout))) {
			snprintf(c->err, sizeof(c->err), "write %s: %s", FLUSH_TIMEOUT_PATH, strerror(-rc));
			goto out;
		}
		if (cycler_wait(c, 300))
			goto out;
		/* A held packet lives until the next poll (a jiffy or two under a stream): a detach may come just
		 * after that poll. Detach mode retries (re-attaching) until a detach found a flow held. */
		uint64_t give_up = now_us() + 15000000;   /* 15 s of attempts at most */
		for (int attempt = 0; attempt < E05_ATTEMPTS; attempt++) {
			uint64_t before = engine_kv(CONTROL_PATH, "detach_held");
			wait_held(c);
			uint64_t t0 = now_us();
			rc = c->mode == 1 ? engine_control("detach " ENGINE_DEV) : mod_unload();
			c->detach_us = now_us() - t0;
			c->attempts = attempt + 1;
			if (rc) {
				snprintf(c->err, sizeof(c->err), "%s: %s", c->mode == 1 ? "detach" : "rmmod", strerror(-rc));
				break;
			}
			c->done = 1;
			/* Detached: found a flow held, or out of time or attempts (the check says so). The last
			 * attempt never re-attaches: E05 ends with the device detached and its GRO back. */
			if (c->mode == 2 || engine_kv(CONTROL_PATH, "detach_held") > before || now_us() >= give_up ||
			    attempt + 1 == E05_ATTEMPTS)
				break;
			if ((rc = engine_control("attach " ENGINE_DEV))) {
				snprintf(c->err, sizeof(c->err), "re-attach: %s", strerror(-rc));
				break;
			}
			c->done = 0;
			if (cycler_wait(c, 50))
				break;
		}
		/* The stream ended early, after a re-attach: the check fails on done = 0; the device is
		 * still detached, so the checks after E05 see it as the kernel left it. */
		if (c->mode == 1 && !c->done && !c->err[0])
			engine_control("detach " ENGINE_DEV);
		cycler_wait(c, 300);    /* traffic goes on through the kernel's GRO */
	}
out:
	__atomic_store_n(&c->stop, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int run_cycler(struct cycler *c, const struct scenario *sc, uint64_t bytes, uint64_t seed, struct run_result *r)
{
	/* open-ended: the cycles and the kernel-GRO windows between them end it (m68k's guest moved
	 * 1 GiB in 42 s, 65 cycles with their windows) */
	struct stream_opts o = { .open_ended = 1, .stop = &c->stop, .max_bytes = 1ull << 40,
				 .progress = &c->progress };
	pthread_t th;
	int rc = pthread_create(&th, NULL, cycler_main, c);
	if (rc)
		die("pthread_create (engine cycler): %s", strerror(rc));
	/* a second per cycle on top: the soak's 1000 cycles with their kernel-GRO windows */
	rc = run_stream(sc, "engine-cycle", bytes, seed, 600 + (unsigned)c->cycles, &o, r);
	__atomic_store_n(&c->abort, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	print_result(r);
	return rc;
}

void engine_device_works(const char *name, const struct scenario *sc, uint64_t bytes)
{
	struct run_result r;
	int rc = run_stream(sc, "kernel", bytes, 6000 + (uint64_t)sc->port, timeout_for(bytes), NULL, &r);
	print_result(&r);
	int g = gro_on();
	check(name, rc == 0 && g == 1 && r.segs_per_gro > 1.0,
	      "after: GRO %d (want 1), kernel GRO stream %.2f segs/GRO (need > 1), %" PRIu64 " bytes, checksum %s%s%s",
	      g, r.segs_per_gro, r.bytes, r.ok && r.csum_ok ? "ok" : "BAD", r.err[0] ? ": " : "", r.err);
}

static void engine_loop(const struct scenario *sc, uint64_t bytes, int cycles)
{
	struct cycler c;
	struct run_result r;
	memset(&c, 0, sizeof(c));
	c.cycles = cycles;
	out("# %s stream while %s is attached and detached %d times, in %d windows each followed by a kernel-GRO"
	    " window as long", sc->name, ENGINE_DEV, cycles, LOOP_WINDOWS);
	int rc = run_cycler(&c, sc, bytes, 7000, &r);
	/*
	 * The receiver's out-of-order queueing per MiB, cycle windows against the kernel-GRO windows between
	 * them on the same connection: a paired test, as the engine comparison. Against another stream of the
	 * boot (the baseline this replaced), either count varied several times over from run to run (QEMU
	 * reorders frames when the NIC's receive ring runs dry: qemu/boot.sh).
	 */
	/* Gated on the excess per cycle and the paired tests together (tcp_pairs_report). Before an attach delivered
	 * what the device's NAPI still held (tungro_napi_flush_held), an idle machine measured p = 0.0004 and 0.003 in
	 * two boots of four; since, loops on four kernels gave p = 0.0068 to 0.92, and 0.0001 to 0.58 on 2026-12-04. */
	const char *san = sanitizer_kernel();
	int tv = tcp_pairs_report("LOOPTCP", &c.tp, LOOP_WINDOWS / 2, ENGINE_P_FAIL, !san);
	/* On the sanitizer kernels the reordering is reported only: their streams are too slow for the pairs (a
	 * window pairs at 1 MiB); the bytes and cycles below are still checked, and make test and make soak gate it. */
	if (san)
		out("# engine_loop_tcp not gated on the %s kernel: %d pairs (%s)", san, c.tp.pairs,
		    tv == TCP_PAIRS_NOT_WORSE ? "not worse" : tv == TCP_PAIRS_WORSE ? "cycles worse" : "too few pairs");
	else
		check("engine_loop_tcp", tv == TCP_PAIRS_NOT_WORSE, "receiver's TCPOFOQueue and sender's retransmissions over"
		      " %d pairs of windows (cycles, then the kernel's GRO alone as long): %s (worse: over %.1f out of order"
		      " a cycle beyond %.1f times the kernel windows' rate, paired tests p < %.3g on both; >= %d pairs; out"
		      " of order %"
		      PRIu64 " in %.0f MiB, %.1f s against %" PRIu64 " in %.0f MiB, %.1f s)", c.tp.pairs,
		      tv == TCP_PAIRS_NOT_WORSE ? "not worse" : tv == TCP_PAIRS_WORSE ? "CYCLES WORSE" : "TOO FEW PAIRS",
		      TCP_PAIRS_GATE_EXCESS, TCP_PAIRS_GATE_RATE, ENGINE_P_FAIL, LOOP_WINDOWS / 2,
		      c.tp.cyc.ofo, c.tp.cyc_mib, c.tp.cyc_s, c.tp.ker.ofo, c.tp.ker_mib, c.tp.ker_s);
	out("LOOPPHASES arch=%s kernel=%s receiver out of order in the cycles' phases: attach %" PRIu64 ", attached %"
	    PRIu64 ", detach and after %" PRIu64 " (reported)", uname_machine(), uname_release(), c.ofo_phase[0],
	    c.ofo_phase[1], c.ofo_phase[2]);
	check("engine_loop_bytes", rc == 0, "%" PRIu64 " bytes sent, %" PRIu64 " received, checksum %s%s%s", r.sent,
	      r.bytes, r.ok && r.csum_ok ? "ok" : "BAD", r.err[0] ? ": " : "", r.err);
	check("engine_loop_cycles", c.done == cycles && !c.err[0] && c.with_traffic > 0,
	      "%d of %d attach/detach cycles under the stream, %d saw traffic; attach %.0f us, detach %.0f us on average,"
	      " longest detach %" PRIu64 " us%s%s", c.done, cycles, c.with_traffic,
	      c.done ? (double)c.attach_us / c.done : 0.0, c.done ? (double)c.detach_us / c.done : 0.0, c.max_detach_us,
	      c.err[0] ? ": " : "", c.err);
	uint64_t leaked = engine_kv(CONTROL_PATH, "detach_leaked");
	check("engine_loop_leaks", leaked == 0, "detach_leaked %" PRIu64 " after %d detaches (held %" PRIu64 ", queued %"
	      PRIu64 ", left after the drain %" PRIu64 ", polls moved by the kick %" PRIu64 ")", leaked, c.done,
	      engine_kv(CONTROL_PATH, "detach_held"), engine_kv(CONTROL_PATH, "detach_queued"),
	      engine_kv(CONTROL_PATH, "detach_left"), engine_kv(CONTROL_PATH, "detach_moved"));
}

/*
 * Attach/detach cycles under a stream with the device's gro_flush_timeout and napi_defer_hard_irqs set (the
 * tuning the demo's crafted trains use): its NAPI then polls from a timer and keeps the last jiffy's packets held
 * after each poll (a poll keeps only those of its own jiffy: with gro_flush_timeout alone, under TCG, no attach of
 * 20 found any), and an attach finds them there after napi_disable() (which cancels that timer). tungro delivers them at once (attach_flushed counts the attaches that did);
 * left held, they went up behind later segments of their flows. The stream must stay byte-exact.
 */
static void engine_loop_timeout(const struct scenario *sc, uint64_t bytes)
{
	struct cycler c;
	struct run_result r;
	int rc;

	memset(&c, 0, sizeof(c));
	c.mode = 3;
	if ((rc = write_file(FLUSH_TIMEOUT_PATH, g_flush_timeout)) || (rc = write_file(DEFER_IRQS_PATH, "100"))) {
		check("engine_loop_timeout", 0, "write %s or %s: %s", FLUSH_TIMEOUT_PATH, DEFER_IRQS_PATH, strerror(-rc));
		write_file(FLUSH_TIMEOUT_PATH, "0");
		return;
	}
	uint64_t flushed = engine_kv(CONTROL_PATH, "attach_flushed");
	out("# %s stream while %s is attached and detached %d times (up to %d) with gro_flush_timeout %s ns and"
	    " napi_defer_hard_irqs 100", sc->name, ENGINE_DEV, TIMEOUT_CYCLES, TIMEOUT_CYCLES_MAX, g_flush_timeout);
	rc = run_cycler(&c, sc, bytes, 7100, &r);
	write_file(DEFER_IRQS_PATH, "0");
	write_file(FLUSH_TIMEOUT_PATH, "0");
	flushed = engine_kv(CONTROL_PATH, "attach_flushed") - flushed;
	/* 0 of 200 attaches found any on the debug kernel (2026-12-05) and on the KCSAN one beside another guest
	 * (2026-12-08), likely as their polls outlast the jiffy whose packets a poll keeps. There the count is
	 * reported; the bytes and cycles are still checked, and make test's kernels gate it. */
	const char *san = sanitizer_kernel();
	check("engine_loop_timeout", rc == 0 && c.done >= TIMEOUT_CYCLES && !c.err[0] &&
	      (flushed > 0 || !c.with_traffic || san),
	      "%" PRIu64 " bytes sent, %" PRIu64 " received, checksum %s; %d cycles (%d, then up to %d until an attach"
	      " found packets held), %d saw traffic; %" PRIu64
	      " attaches found the device's NAPI holding packets and delivered them first (need > 0 with traffic%s);"
	      " receiver out of order: attach %" PRIu64 ", attached %" PRIu64 ", detach and after %" PRIu64 " (reported)%s%s",
	      r.sent, r.bytes, r.ok && r.csum_ok ? "ok" : "BAD", c.done, TIMEOUT_CYCLES, TIMEOUT_CYCLES_MAX,
	      c.with_traffic, flushed, san ? "; reported only on the sanitizer kernels" : "",
	      c.ofo_phase[0], c.ofo_phase[1], c.ofo_phase[2], c.err[0] ? ": " : "", c.err);
}

/* E05: detach, then rmmod, while the engine holds a flow. */
static void engine_e05(const struct scenario *sc, uint64_t bytes)
{
	struct cycler c;
	struct run_result r;
	struct stats k0, k1;
	int rc;

	/* The device's gro_flush_timeout keeps held packets past the end of a poll (6.12's rule): a flow is held
	 * most of the time, and the detach finds one. */
	if ((rc = write_file(FLUSH_TIMEOUT_PATH, g_flush_timeout))) {
		check("E05_detach_held_bytes", 0, "write %s: %s", FLUSH_TIMEOUT_PATH, strerror(-rc));
		return;
	}
	memset(&c, 0, sizeof(c));
	c.mode = 1;
	rc = engine_control("attach " ENGINE_DEV);
	kv_read(CONTROL_PATH, &k0, 0);
	out("# E05: %s stream, %s attached with gro_flush_timeout %s ns, detached while a flow is held", sc->name,
	    ENGINE_DEV, g_flush_timeout);
	rc = rc ? rc : run_cycler(&c, sc, bytes, 7100, &r);
	kv_read(CONTROL_PATH, &k1, 0);
	write_file(FLUSH_TIMEOUT_PATH, "0");
	check("E05_detach_held_bytes", rc == 0 && c.done, "%" PRIu64 " bytes sent, %" PRIu64 " received, checksum %s;"
	      " detach took %" PRIu64 " us%s%s%s%s", r.sent, r.bytes, r.ok && r.csum_ok ? "ok" : "BAD", c.detach_us,
	      r.err[0] ? ": " : "", r.err, c.err[0] ? ": " : "", c.err);
	uint64_t held = stats_get(&k1, "detach_held") - stats_get(&k0, "detach_held");
	uint64_t queued = stats_get(&k1, "detach_queued") - stats_get(&k0, "detach_queued");
	uint64_t left = stats_get(&k1, "detach_left") - stats_get(&k0, "detach_left");
	uint64_t leaked = stats_get(&k1, "detach_leaked");
	/* The debug kernels' streams put PSH on about every other segment (the sanitizers' timing): a flow is
	 * rarely held there, and only the rest (bytes, no leak, the device afterwards, KASAN, kmemleak) is required. */
	/* Whether a flow is held at the instant of a detach is timing (14 tries found none in one TCG run): the
	 * count is reported; what is required is that nothing leaks and the stream stays byte-exact (above). */
	check("E05_detach_delivered", leaked == 0,
	      "held_now %" PRIu64 " just before the detach (reported); %d detach(es) under the stream, which found %" PRIu64
	      " held, %" PRIu64 " queued, delivered them (%" PRIu64 " left after the drain, delivered by the stop);"
	      " leaked %" PRIu64, c.held_seen, c.attempts, held, queued, left, leaked);
	engine_device_works("E05_detach_device_works", sc, bytes);
	mod_unload();

	/* rmmod with the device attached since load (attach=, under the stream) and a flow held */
	memset(&c, 0, sizeof(c));
	c.mode = 2;
	out("# E05: %s stream, tungro loaded with attach=%s under it, rmmod while a flow is held", sc->name,
	    ENGINE_DEV);
	rc = run_cycler(&c, sc, bytes, 7200, &r);
	write_file(FLUSH_TIMEOUT_PATH, "0");
	/* rmmod happens once, so a flow may or may not be held at that instant: reported, not required. The
	 * held-packet delivery is the detach path's, which E05_detach_delivered requires (retried until held). */
	check("E05_rmmod_held_bytes", rc == 0 && c.done && !mod_loaded(),
	      "%" PRIu64 " bytes sent, %" PRIu64 " received, checksum %s; held_now %" PRIu64 " before rmmod (reported), "
	      "which took %" PRIu64 " us; module %s%s%s%s%s", r.sent, r.bytes, r.ok && r.csum_ok ? "ok" : "BAD", c.held_seen,
	      c.detach_us, mod_loaded() ? "still loaded" : "gone", r.err[0] ? ": " : "", r.err, c.err[0] ? ": " : "",
	      c.err);
	if (mod_loaded())
		mod_unload();
	engine_device_works("E05_rmmod_device_works", sc, bytes);
}



void engine_checks(uint64_t bytes, int loop_cycles)
{
	if (access("/sys/kernel/debug/kmemleak", F_OK) == 0) {
		/* KASAN + kmemleak (make test-debug): ten times slower; the same checks on less traffic */
		g_rounds = ROUNDS_DEBUG;
		g_debug = 1;
		bytes = MIB;
	}
	g_kcsan = access("/sys/kernel/debug/kcsan", F_OK) == 0;
	if (mod_loaded())
		mod_unload();
	out("# engine path: %s attached to tungro's NAPI engine vs the kernel's GRO", ENGINE_DEV);
	engine_control_checks();
	int rc = mod_load();
	if (rc) {
		check("engine_insmod", 0, "insmod: %s", strerror(-rc));
		return;
	}
	/* What the engine handles: plain TCP, IPIP, SIT, ip6ip6 (ip4ip6 takes the same IPv6-outer path). FOU/GUE (UDP)
	 * go up unmerged on an attached device, the one accepted case where tungro coalesces less than the kernel
	 * (README, issue 8). */
	static const char *const handled[] = { "plain", "ipip", "sit", "ip6ip6" };
	for (size_t i = 0; i < sizeof(handled) / sizeof(handled[0]); i++)
		engine_compare(scenario_by_name(handled[i]), bytes);
	engine_loop(scenario_by_name("ipip"), bytes, loop_cycles);
	engine_loop_timeout(scenario_by_name("ipip"), bytes);
	engine_e05(scenario_by_name("ipip"), bytes);   /* ends with tungro unloaded */
}

void engine_soak(uint64_t bytes, int loop_cycles)
{
	if (mod_loaded())
		mod_unload();
	int rc = mod_load();
	if (rc) {
		check("engine_insmod", 0, "insmod: %s", strerror(-rc));
		return;
	}
	engine_loop(scenario_by_name("ipip"), bytes, loop_cycles);
	rc = mod_unload();
	check("engine_rmmod", rc == 0 && !mod_loaded(), "rmmod after the attach/detach cycles: %s",
	      rc ? strerror(-rc) : "ok");
}
