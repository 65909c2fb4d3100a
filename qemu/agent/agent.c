/* agent.c - /init of the tungro test initramfs: sets up the guest, runs the demo or test streams, reports.
 *
 * Command line (from /proc/cmdline):
 *   tungro.mode=demo|test|kunit|conform   what to run (default demo); conform: crafted frame trains (conform.c),
 *                           then the kernel's gro.c selftest as a peer suite (peer.c), per engine
 *   tungro.mib=N            MiB per stream (0 or absent: 32 for demo, 4 for test)
 *   tungro.deadline=S       give up S seconds after boot with a failure line (boot.sh sets it below its timeout)
 * Results go to the virtio-serial port named tungro.results and to the console; the last line is
 * "success" or "failure: <reason>".
 * Kernel modules in /lib/modules/deps (kernels that do not build in what the run needs, such as Debian's)
 * are loaded first, in name order.
 */
#include "agent.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *opt_mode = "demo";
static unsigned opt_mib;
static unsigned opt_deadline = 3600;

static void mount_one(const char *src, const char *dir, const char *type)
{
	mkdir(dir, 0755);
	if (mount(src, dir, type, 0, NULL) < 0 && errno != EBUSY)
		die("mount %s on %s: %s", type, dir, strerror(errno));
}

static void setup_console(void)
{
	int fd = open("/dev/console", O_RDWR | O_NOCTTY);
	if (fd < 0)
		return;   /* keep whatever the kernel gave us */
	for (int i = 0; i < 3; i++)
		dup2(fd, i);
	if (fd > 2)
		close(fd);
	g_console_fd = 1;
}

static void parse_cmdline(void)
{
	static char buf[4096];
	int rc = read_file("/proc/cmdline", buf, sizeof(buf));
	if (rc)
		die("read /proc/cmdline: %s", strerror(-rc));
	for (char *save = NULL, *tok = strtok_r(buf, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
		if (!strncmp(tok, "tungro.mode=", 12)) {
			opt_mode = tok + 12;
		} else if (!strncmp(tok, "tungro.mib=", 11)) {
			char *end;
			unsigned long v = strtoul(tok + 11, &end, 10);
			/* 0: the mode's default (conform sends no streams, guest.sh passes 0) */
			if (*end || v > 4096)
				die("bad tungro.mib '%s' (0..4096)", tok + 11);
			opt_mib = (unsigned)v;
		} else if (!strncmp(tok, "tungro.deadline=", 16)) {
			char *end;
			unsigned long v = strtoul(tok + 16, &end, 10);
			if (*end || v < 10)
				die("bad tungro.deadline '%s' (seconds after boot, >= 10)", tok + 16);
			opt_deadline = (unsigned)v;
		}
	}
	if (strcmp(opt_mode, "demo") && strcmp(opt_mode, "test") && strcmp(opt_mode, "kunit") &&
	    strcmp(opt_mode, "conform"))
		die("unknown tungro.mode '%s' (demo, test, kunit, conform)", opt_mode);
	if (!opt_mib)
		opt_mib = !strcmp(opt_mode, "demo") ? 32 : 4;
}

/* The port's name arrives from QEMU over the control queue, possibly after we start: poll for it. */
static void open_results_port(void)
{
	for (int tries = 0; tries < 100; tries++) {
		DIR *d = opendir("/sys/class/virtio-ports");
		struct dirent *e;
		while (d && (e = readdir(d))) {
			char path[300], name[64];
			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "/sys/class/virtio-ports/%s/name", e->d_name);
			if (read_file(path, name, sizeof(name)) || strncmp(name, "tungro.results", 14))
				continue;
			snprintf(path, sizeof(path), "/dev/%s", e->d_name);
			g_results_fd = open(path, O_WRONLY | O_CLOEXEC);
			if (g_results_fd < 0)
				note("# open %s: %s", path, strerror(errno));
			closedir(d);
			if (g_results_fd >= 0)
				return;
			break;
		}
		if (d && e == NULL)
			closedir(d);
		sleep_ms(100);
	}
	/* no results port: the console still gets everything; boot.sh will report the missing verdict */
	note("# warning: virtio-serial port tungro.results not found after 10 s");
}

static unsigned stream_timeout(uint64_t bytes)
{
	/* generous for TCG, m68k included: 60 s plus 10 s per MiB */
	return 60u + (unsigned)(bytes / MIB) * 10u;
}

static void warmup(void)
{
	/* a short stream per path proves the set-up (and fills route caches) before anything is measured */
	for (size_t i = 0; i < sizeof(g_scenarios) / sizeof(g_scenarios[0]); i++) {
		struct run_result r;
		if (run_stream(&g_scenarios[i], "warmup", 256 * 1024, 7 + i, 60, NULL, &r))
			die("warm-up stream over %s: %s", g_scenarios[i].name, r.err);
	}
	out("# warm-up streams over plain, ipip and sit: ok");
}

static double tg_ratio(const struct stats *d)
{
	uint64_t held = stats_get(d, "held"), merged = stats_get(d, "merged"), passed = stats_get(d, "passed");
	return held + passed ? (double)(held + merged + passed) / (double)(held + passed) : 0.0;
}

/* ---- demo: kernel GRO vs tungro for each scenario ---- */

/*
 * Kernel GRO vs tungro on one TCP connection. Separate streams differ by ~10% in segments per GRO packet under TCG
 * (congestion window, ACK timing, when NAPI polls run) whatever the engine, which would drown a 5% comparison.
 * So each tunnel scenario is one long stream cut into windows of DEMO_WINDOW_MIB, engines alternating window by
 * window (tungro loaded for its windows, unloaded for the kernel's); counters are sampled at each switch and
 * pooled per engine. Both engines then see the same connection in the same state, interleaved in time.
 */
#define DEMO_WINDOWS 8          /* per engine */
#define DEMO_WINDOW_MIB 4

struct ab_counts {
	uint64_t wire, gro, bytes, usecs;
	struct stats tg;        /* tungro's debugfs delta summed over its windows */
	int have_tg;
};

struct ab {
	const struct scenario *sc;
	volatile unsigned long progress;
	volatile int stop, abort;
	struct ab_counts eng[2];
	int windows;            /* windows completed */
	char err[200];
};

static int ab_sample(const struct scenario *sc, uint64_t *wire, uint64_t *gro)
{
	char path[128];
	int rc = read_u64("/sys/class/net/eth0/statistics/rx_packets", wire);
	if (rc)
		return rc;
	snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/rx_packets", sc->tundev);
	return read_u64(path, gro);
}

static void *ab_main(void *arg)
{
	struct ab *a = arg;
	uint64_t w0, g0, w1, g1, t0, p0;
	struct stats s0, s1, d;
	int rc = 0;

	while (__atomic_load_n(&a->progress, __ATOMIC_ACQUIRE) < 2 * MIB)   /* past slow start */
		if (__atomic_load_n(&a->abort, __ATOMIC_ACQUIRE))
			goto out;
		else
			sleep_ms(5);
	for (int i = 0; i < 2 * DEMO_WINDOWS; i++) {
		int e = i & 1;
		if (e && (rc = mod_load())) {
			snprintf(a->err, sizeof(a->err), "window %d: insmod: %s", i, strerror(-rc));
			goto out;
		}
		if (e && (rc = stats_read(&s0))) {
			snprintf(a->err, sizeof(a->err), "window %d: stats: %s", i, strerror(-rc));
			goto out;
		}
		if ((rc = ab_sample(a->sc, &w0, &g0))) {
			snprintf(a->err, sizeof(a->err), "window %d: counters: %s", i, strerror(-rc));
			goto out;
		}
		t0 = now_us();
		p0 = __atomic_load_n(&a->progress, __ATOMIC_ACQUIRE);
		while (__atomic_load_n(&a->progress, __ATOMIC_ACQUIRE) - p0 < (unsigned long)DEMO_WINDOW_MIB * MIB) {
			if (__atomic_load_n(&a->abort, __ATOMIC_ACQUIRE))
				goto out;
			sleep_ms(2);
		}
		if ((rc = ab_sample(a->sc, &w1, &g1))) {
			snprintf(a->err, sizeof(a->err), "window %d: counters: %s", i, strerror(-rc));
			goto out;
		}
		a->eng[e].wire += w1 - w0;
		a->eng[e].gro += g1 - g0;
		a->eng[e].bytes += __atomic_load_n(&a->progress, __ATOMIC_ACQUIRE) - p0;
		a->eng[e].usecs += now_us() - t0;
		if (e) {
			if ((rc = stats_read(&s1)) == 0) {
				stats_delta(&d, &s1, &s0);
				if (!a->eng[1].have_tg) {
					a->eng[1].tg = d;
					a->eng[1].have_tg = 1;
				} else {
					for (int k = 0; k < d.n && k < a->eng[1].tg.n; k++)
						a->eng[1].tg.val[k] += d.val[k];
				}
			}
			if ((rc = mod_unload())) {
				snprintf(a->err, sizeof(a->err), "window %d: rmmod: %s", i, strerror(-rc));
				goto out;
			}
		}
		a->windows = i + 1;
	}
out:
	if (mod_loaded())
		mod_unload();
	__atomic_store_n(&a->stop, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void demo(void)
{
	static const char *const engines[2] = { "kernel", "tungro" };
	struct ab_counts rows[3][2];
	int have[3] = { 0 };
	uint64_t bytes = (uint64_t)opt_mib * MIB;

	memset(rows, 0, sizeof(rows));
	if (!mod_present())
		die("demo needs %s in the initramfs", MODULE_PATH);
	if (mod_loaded())
		die("demo: tungro is loaded before the kernel runs");

	/* plain TCP never reaches tungro: one stream, the kernel's GRO, as the reference row */
	{
		struct run_result r;
		out("# plain: %u MiB stream, kernel GRO", opt_mib);
		if (run_stream(&g_scenarios[0], "kernel", bytes, 1000, stream_timeout(bytes), NULL, &r)) {
			fail("demo plain: %s", r.err);
		} else {
			print_result(&r);
			rows[0][0].wire = r.wire_segs;
			rows[0][0].gro = r.gro_pkts;
			rows[0][0].bytes = r.bytes;
			rows[0][0].usecs = r.usecs;
			have[0] = 1;
		}
	}
	for (int s = 1; s < 3; s++) {
		const struct scenario *sc = &g_scenarios[s];
		struct ab a;
		struct run_result r;
		pthread_t th;
		int rc;

		memset(&a, 0, sizeof(a));
		a.sc = sc;
		struct stream_opts o = { .open_ended = 1, .stop = &a.stop, .max_bytes = 4096ull * MIB, .progress = &a.progress };
		if ((rc = pthread_create(&th, NULL, ab_main, &a)) != 0)
			die("pthread_create (demo): %s", strerror(rc));
		out("# %s: one stream, %d windows of %d MiB per engine, engines alternating", sc->name, DEMO_WINDOWS,
		    DEMO_WINDOW_MIB);
		rc = run_stream(sc, "ab", bytes, 2000 + (uint64_t)s, 60 + 2 * DEMO_WINDOWS * DEMO_WINDOW_MIB * 10, &o, &r);
		__atomic_store_n(&a.abort, 1, __ATOMIC_RELEASE);
		pthread_join(th, NULL);
		if (rc)
			fail("demo %s: stream: %s", sc->name, r.err);
		if (a.err[0])
			fail("demo %s: %s", sc->name, a.err);
		check(s == 1 ? "demo_ipip_bytes" : "demo_sit_bytes", rc == 0 && r.csum_ok && r.bytes == r.sent,
		      "%" PRIu64 " bytes sent, %" PRIu64 " received, checksum %s", r.sent, r.bytes, r.csum_ok ? "ok" : "BAD");
		if (a.windows != 2 * DEMO_WINDOWS)
			continue;
		memcpy(rows[s], a.eng, sizeof(a.eng));
		have[s] = 1;
		for (int e = 0; e < 2; e++)
			out("RESULT arch=%s kernel=%s scenario=%s engine=%s bytes=%" PRIu64 " usecs=%" PRIu64
			    " wire_segs=%" PRIu64 " gro_pkts=%" PRIu64 " segs_per_gro=%.2f windows=%d csum=%s", uname_machine(),
			    uname_release(), sc->name, engines[e], a.eng[e].bytes, a.eng[e].usecs, a.eng[e].wire, a.eng[e].gro,
			    a.eng[e].gro ? (double)a.eng[e].wire / (double)a.eng[e].gro : 0.0, DEMO_WINDOWS,
			    r.csum_ok ? "ok" : "BAD");
		double k = a.eng[0].gro ? (double)a.eng[0].wire / (double)a.eng[0].gro : 0;
		double t = a.eng[1].gro ? (double)a.eng[1].wire / (double)a.eng[1].gro : 0;
		check(s == 1 ? "demo_ipip_gro" : "demo_sit_gro", t >= 0.95 * k && t > 4.0,
		      "tungro %.2f segs/GRO vs kernel %.2f on the same connection (need >= 0.95x kernel and > 4)", t, k);
	}

	out("%s", "");
	out("plain: one %u MiB stream; ipip, sit: one stream each, %d windows of %d MiB per engine, alternating:", opt_mib,
	    DEMO_WINDOWS, DEMO_WINDOW_MIB);
	out("%-6s %-7s %10s %12s %10s %9s %9s  %s", "path", "engine", "bytes", "Mbit/s", "wire segs", "GRO pkts",
	    "segs/GRO", "top flush reasons");
	for (int s = 0; s < 3; s++) {
		for (int e = 0; e < (s ? 2 : 1); e++) {
			const struct ab_counts *c = &rows[s][e];
			char reasons[128] = "-";
			if (!have[s]) {
				out("%-6s %-7s FAILED", g_scenarios[s].name, engines[e]);
				continue;
			}
			if (e && c->have_tg)
				stats_top_reasons(&c->tg, reasons, sizeof(reasons));
			out("%-6s %-7s %10" PRIu64 " %12.1f %10" PRIu64 " %9" PRIu64 " %9.2f  %s", g_scenarios[s].name,
			    engines[e], c->bytes, c->usecs ? (double)c->bytes * 8.0 / (double)c->usecs : 0.0, c->wire,
			    c->gro, c->gro ? (double)c->wire / (double)c->gro : 0.0, reasons);
		}
	}
	out("(Mbit/s indicative only: TCG emulation on %s, kernel %s)", uname_machine(), uname_release());
}

/* ---- test: tungro GRO, load/unload under traffic, kernel GRO afterwards ---- */

struct toggler {
	volatile unsigned long progress;
	volatile int stop;      /* tells the open-ended sender to finish */
	volatile int abort;     /* the stream ended early: stop toggling */
	int done;               /* load/unload cycles completed */
	uint64_t seen[5];       /* tungro 'seen' per load window */
	char err[200];
};

static int toggler_wait(struct toggler *t, unsigned ms)
{
	for (unsigned i = 0; i < ms; i += 10) {
		if (__atomic_load_n(&t->abort, __ATOMIC_ACQUIRE))
			return -1;
		sleep_ms(10);
	}
	return 0;
}

static void *toggler_main(void *arg)
{
	struct toggler *t = arg;
	/* start only once data is flowing, so every action lands mid-stream */
	while (__atomic_load_n(&t->progress, __ATOMIC_ACQUIRE) < 256 * 1024)
		if (toggler_wait(t, 10))
			goto out;
	for (int i = 0; i < 5; i++) {
		int rc = mod_load();
		if (rc) {
			snprintf(t->err, sizeof(t->err), "cycle %d: insmod: %s", i + 1, strerror(-rc));
			goto out;
		}
		if (toggler_wait(t, 200))
			goto out;
		struct stats st;
		if ((rc = stats_read(&st))) {
			snprintf(t->err, sizeof(t->err), "cycle %d: read %s: %s", i + 1, STATS_PATH, strerror(-rc));
			goto out;
		}
		t->seen[i] = stats_get(&st, "seen");
		if ((rc = mod_unload())) {
			snprintf(t->err, sizeof(t->err), "cycle %d: rmmod: %s", i + 1, strerror(-rc));
			goto out;
		}
		t->done = i + 1;
		if (toggler_wait(t, 150))
			goto out;
	}
out:
	__atomic_store_n(&t->stop, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void test_tungro_stream(const struct scenario *sc, uint64_t bytes)
{
	struct run_result r;
	char name[64];
	int rc = run_stream(sc, "tungro", bytes, 2000 + (uint64_t)sc->port, stream_timeout(bytes), NULL, &r);
	print_result(&r);
	snprintf(name, sizeof(name), "tungro_%s_bytes", sc->name);
	check(name, rc == 0, "%" PRIu64 " of %" PRIu64 " bytes, checksum %s%s%s", r.bytes, bytes,
	      r.ok && r.csum_ok ? "ok" : "BAD", r.err[0] ? ": " : "", r.err);
	if (!r.ok)
		return;
	snprintf(name, sizeof(name), "tungro_%s_merge", sc->name);
	uint64_t merged = stats_get(&r.tg, "merged");
	double ratio = tg_ratio(&r.tg);
	check(name, r.have_stats && merged > 0 && ratio > 1.0,
	      "debugfs: seen %" PRIu64 " held %" PRIu64 " merged %" PRIu64 " passed %" PRIu64
	      " -> %.2f segs/GRO packet (need merged > 0, > 1); packet socket %.2f; flush %s",
	      stats_get(&r.tg, "seen"), stats_get(&r.tg, "held"), merged, stats_get(&r.tg, "passed"), ratio,
	      r.segs_per_gro, r.reasons);
}

static void test(void)
{
	uint64_t bytes = (uint64_t)opt_mib * MIB;
	const struct scenario *ipip = scenario_by_name("ipip"), *sit = scenario_by_name("sit");
	int rc;

	if (!mod_present())
		die("test mode needs %s in the initramfs", MODULE_PATH);
	if (mod_loaded())
		die("test: tungro loaded before insmod");

	rc = mod_load();
	check("insmod", rc == 0 && mod_loaded() && access(STATS_PATH, R_OK) == 0, "finit_module %s: %s; %s %s",
	      MODULE_PATH, rc ? strerror(-rc) : "ok", STATS_PATH, access(STATS_PATH, R_OK) ? "missing" : "present");
	if (rc)
		return;
	test_tungro_stream(ipip, bytes);
	test_tungro_stream(sit, bytes);
	rc = mod_unload();
	check("rmmod", rc == 0 && !mod_loaded(), "delete_module: %s; /sys/module/tungro %s", rc ? strerror(-rc) : "ok",
	      mod_loaded() ? "still there" : "gone");
	if (rc)
		return;

	/* ipip stream while tungro is loaded and unloaded 5 times */
	struct toggler t;
	memset(&t, 0, sizeof(t));
	struct stream_opts o = { .open_ended = 1, .stop = &t.stop, .max_bytes = 512ull * MIB, .progress = &t.progress };
	pthread_t th;
	if ((rc = pthread_create(&th, NULL, toggler_main, &t)) != 0)
		die("pthread_create (toggler): %s", strerror(rc));
	struct run_result r;
	out("# ipip stream while tungro is loaded and unloaded 5 times");
	rc = run_stream(ipip, "toggle", bytes, 3000, 300, &o, &r);
	__atomic_store_n(&t.abort, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	print_result(&r);
	check("toggle_bytes", rc == 0, "%" PRIu64 " bytes sent, %" PRIu64 " received, checksum %s%s%s", r.sent,
	      r.bytes, r.ok && r.csum_ok ? "ok" : "BAD", r.err[0] ? ": " : "", r.err);
	check("toggle_cycles", t.done == 5 && !t.err[0],
	      "%d of 5 load/unload cycles during the stream%s%s; tungro saw %" PRIu64 ",%" PRIu64 ",%" PRIu64
	      ",%" PRIu64 ",%" PRIu64 " packets per load",
	      t.done, t.err[0] ? ": " : "", t.err, t.seen[0], t.seen[1], t.seen[2], t.seen[3], t.seen[4]);
	int all_seen = t.done == 5;
	for (int i = 0; i < t.done; i++)
		all_seen &= t.seen[i] > 0;
	check("toggle_traffic", all_seen, "every load window saw tunnel traffic through tungro");
	if (mod_loaded()) {
		rc = mod_unload();
		check("toggle_rmmod", rc == 0, "leftover tungro unloaded: %s", rc ? strerror(-rc) : "ok");
	}

	/* the kernel's own callbacks must be back */
	for (int i = 0; i < 2; i++) {
		const struct scenario *sc = i ? sit : ipip;
		char name[64];
		rc = run_stream(sc, "kernel", bytes, 4000 + (uint64_t)i, stream_timeout(bytes), NULL, &r);
		print_result(&r);
		snprintf(name, sizeof(name), "kernel_%s_after_rmmod", sc->name);
		check(name, rc == 0 && r.segs_per_gro > 1.0,
		      "%.2f segs/GRO (%" PRIu64 " wire segments, %" PRIu64 " GRO packets, need > 1), checksum %s%s%s",
		      r.segs_per_gro, r.wire_segs, r.gro_pkts, r.ok && r.csum_ok ? "ok" : "BAD", r.err[0] ? ": " : "",
		      r.err);
	}

	/* the engine path: eth0 attached to tungro's NAPI engine */
	engine_checks(bytes);
}

int main(void)
{
	mount_one("devtmpfs", "/dev", "devtmpfs");
	setup_console();
	mount_one("proc", "/proc", "proc");
	mount_one("sysfs", "/sys", "sysfs");
	mount_one("debugfs", "/sys/kernel/debug", "debugfs");
	mount_one("tmpfs", "/tmp", "tmpfs");
	parse_cmdline();
	start_watchdog(opt_deadline);
	/* before the results port: virtio_console itself may be a module; a failure is reported once it is open */
	uint64_t t0 = now_us();
	int boot_modules = load_boot_modules();
	uint64_t modules_ms = (now_us() - t0) / 1000;
	open_results_port();

	t0 = now_us();
	int kunit = !strcmp(opt_mode, "kunit");
	if (kunit)
		out("# tungro agent: arch=%s kernel=%s mode=kunit", uname_machine(), uname_release());
	else
		out("# tungro agent: arch=%s kernel=%s mode=%s mib=%u deadline=%us module=%s", uname_machine(),
		    uname_release(), opt_mode, opt_mib, opt_deadline, mod_present() ? "present" : "absent");
	if (boot_modules < 0)
		finish();
	if (boot_modules > 0)
		out("# %d modules loaded from %s in %" PRIu64 " ms", boot_modules, BOOT_MODULES_DIR, modules_ms);
	if (kunit) {
		kunit_mode();
		finish();
	}
	if (net_setup())
		finish();
	out("# network set up in %" PRIu64 " ms", (now_us() - t0) / 1000);
	if (!strcmp(opt_mode, "conform"))
		conform();   /* no streams: the crafted trains are the traffic */
	else if (warmup(), !strcmp(opt_mode, "demo"))
		demo();
	else
		test();
	kmemleak_check();
	out("# agent done in %" PRIu64 " ms", (now_us() - t0) / 1000);
	finish();
}
