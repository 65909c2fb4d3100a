/* interleave.c - GRO engines compared on one piece of traffic, window by window.
 *
 * Separate TCP streams under TCG differ by about 10% in segments per GRO packet whatever the engine (congestion
 * window, ACK timing, when NAPI polls run), which would drown the comparison. So a comparison is one long stream
 * (or one set of concurrent connections) cut into windows of received bytes, the engines taking turns: each round
 * gives every engine one window, in the order kernel, offloads, engine and reversed in the next round (ABC CBA),
 * so a drift over the run weighs on every engine alike and each switch is one step (insmod, attach, detach,
 * rmmod). Counters are sampled at each switch, once the new engine is in place: wire segments from eth0's
 * rx_packets (virtio-net counts before GRO), GRO packets from the tunnel device's rx_packets (one per outer GRO
 * packet, before gro_cells) or TCP's InSegs for plain TCP, softirq time from /proc/stat, tungro's debugfs, and
 * where asked (il_spec.count_psh) the sender's PSH marks from a packet socket on eth0 (psh_counter_open).
 */
#include "agent.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const g_eng_name[N_ENG] = { "kernel", "offloads", "engine" };

/* From whatever state to kind's: kernel (tungro not loaded), offloads (loaded), engine (loaded, eth0 attached). */
int eng_enter(int kind)
{
	int want_loaded = kind != ENG_KERNEL, want_attached = kind == ENG_ENGINE, rc;
	int attached = access(ENGINE_STATS_PATH, F_OK) == 0;

	if (attached && !want_attached && (rc = write_file(ENGINE_CONTROL_PATH, "detach eth0")))
		return rc;
	if (mod_loaded() && !want_loaded && (rc = mod_unload()))
		return rc;
	if (!mod_loaded() && want_loaded && (rc = mod_load()))
		return rc;
	if (!attached && want_attached && (rc = write_file(ENGINE_CONTROL_PATH, "attach eth0")))
		return rc;
	return 0;
}

uint64_t softirq_ns(void)
{
	char buf[512];
	unsigned long long v[7];
	long hz = sysconf(_SC_CLK_TCK);
	/* "cpu  user nice system idle iowait irq softirq ...", in USER_HZ ticks, all CPUs */
	if (read_file("/proc/stat", buf, sizeof(buf)) || hz <= 0 ||
	    sscanf(buf, "cpu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]) != 7)
		return 0;
	return (uint64_t)v[6] * (1000000000ull / (uint64_t)hz);
}

double ab_segs_per_gro(const struct ab_counts *c)
{
	return c->gro ? (double)c->wire / (double)c->gro : 0.0;
}

struct il {
	const struct il_spec *sp;
	volatile unsigned long progress;
	volatile int stop, abort;
	struct ab_counts *eng;
	int psh_fd;             /* psh_counter_open's, or -1 */
	uint64_t psh;           /* its count so far */
	int done;
	char err[200];
};

static const char *il_stats_path(int kind)
{
	return kind == ENG_ENGINE ? ENGINE_STATS_PATH : STATS_PATH;
}

static int il_sample(struct il *a, int kind, struct il_window *w, struct stats *st)
{
	int rc = read_u64("/sys/class/net/eth0/statistics/rx_packets", &w->wire);
	if (!rc)
		rc = gro_count(a->sp->sc, &w->gro);
	if (!rc && kind != ENG_KERNEL)
		rc = kv_read(il_stats_path(kind), st, 0);
	if (!rc && a->psh_fd >= 0) {
		uint64_t n;
		if (!(rc = packet_counter_read(a->psh_fd, &n)))
			a->psh += n;
	}
	w->psh = a->psh;
	w->softirq_ns = softirq_ns();
	w->usecs = now_us();
	w->bytes = __atomic_load_n(&a->progress, __ATOMIC_ACQUIRE);
	return rc;
}

/* Adds one window's debugfs delta to the engine's sums; the high-water mark is the largest seen, not a sum. */
static void il_add_stats(struct ab_counts *c, const struct stats *before, const struct stats *after)
{
	struct stats d;
	stats_delta(&d, after, before);
	if (!c->have_tg) {
		c->tg = d;
		c->have_tg = 1;
	} else {
		for (int k = 0; k < d.n && k < c->tg.n; k++)
			if (!strcmp(c->tg.key[k], d.key[k]))
				c->tg.val[k] += d.val[k];
	}
	for (int k = 0; k < c->tg.n; k++)
		if (!strcmp(c->tg.key[k], "held_max") && stats_get(after, "held_max") > c->tg.val[k])
			c->tg.val[k] = stats_get(after, "held_max");
}

static int il_wait(struct il *a, unsigned long until)
{
	while (__atomic_load_n(&a->progress, __ATOMIC_ACQUIRE) < until) {
		if (__atomic_load_n(&a->abort, __ATOMIC_ACQUIRE))
			return -1;
		sleep_ms(2);
	}
	return 0;
}

static void *il_main(void *arg)
{
	struct il *a = arg;
	const struct il_spec *sp = a->sp;
	static struct stats s0, s1;   /* one comparison at a time */
	struct il_window w0, w1;
	int rc;

	if (il_wait(a, sp->start_bytes))
		goto out;
	for (int r = 0; r < sp->windows; r++) {
		for (int j = 0; j < sp->neng; j++) {
			int e = r & 1 ? sp->neng - 1 - j : j, kind = a->eng[e].kind;
			struct ab_counts *c = &a->eng[e];
			if ((rc = eng_enter(kind))) {
				snprintf(a->err, sizeof(a->err), "round %d: to %s: %s", r, g_eng_name[kind], strerror(-rc));
				goto out;
			}
			if ((rc = il_sample(a, kind, &w0, &s0))) {
				snprintf(a->err, sizeof(a->err), "round %d, %s: counters: %s", r, g_eng_name[kind],
					 strerror(-rc));
				goto out;
			}
			if (il_wait(a, (unsigned long)w0.bytes + sp->window_bytes))
				goto out;
			if ((rc = il_sample(a, kind, &w1, &s1))) {
				snprintf(a->err, sizeof(a->err), "round %d, %s: counters: %s", r, g_eng_name[kind],
					 strerror(-rc));
				goto out;
			}
			struct il_window *w = &c->w[c->nw++];
			w->wire = w1.wire - w0.wire;
			w->gro = w1.gro - w0.gro;
			w->bytes = w1.bytes - w0.bytes;
			w->usecs = w1.usecs - w0.usecs;
			w->softirq_ns = w1.softirq_ns - w0.softirq_ns;
			w->psh = w1.psh - w0.psh;
			w->outer_id = kind == ENG_KERNEL ? 0 :
				      stats_get(&s1, "flush_outer_id") - stats_get(&s0, "flush_outer_id");
			c->wire += w->wire;
			c->gro += w->gro;
			c->bytes += w->bytes;
			c->usecs += w->usecs;
			c->softirq_ns += w->softirq_ns;
			c->psh += w->psh;
			if (kind != ENG_KERNEL)
				il_add_stats(c, &s0, &s1);
			a->done++;
		}
	}
out:
	if ((rc = eng_enter(ENG_KERNEL)) && !a->err[0])
		snprintf(a->err, sizeof(a->err), "back to the kernel's GRO: %s", strerror(-rc));
	__atomic_store_n(&a->stop, 1, __ATOMIC_RELEASE);
	return NULL;
}

int run_interleaved(const struct il_spec *sp, struct ab_counts *eng, struct run_result *r, char *err, size_t errcap)
{
	struct il a;
	pthread_t th;
	int rc;

	if (sp->neng < 1 || sp->neng > N_ENG || sp->windows < 1 || sp->windows > IL_MAX_WINDOWS)
		die("run_interleaved: %d engines (1..%d), %d windows (1..%d)", sp->neng, N_ENG, sp->windows,
		    IL_MAX_WINDOWS);
	memset(&a, 0, sizeof(a));
	a.sp = sp;
	a.eng = eng;
	/* without its counter the windows run, the error fails the caller's check */
	a.psh_fd = sp->count_psh ? psh_counter_open(sp->sc, a.err, sizeof(a.err)) : -1;
	for (int e = 0; e < sp->neng; e++) {
		memset(&eng[e], 0, sizeof(eng[e]));
		eng[e].kind = sp->kinds[e];
	}
	struct stream_opts o = { .open_ended = 1, .stop = &a.stop, .max_bytes = 4000ull * MIB, .progress = &a.progress,
				 .no_tap = sp->no_tap };
	unsigned timeout = 120 + (unsigned)((uint64_t)sp->windows * (unsigned)sp->neng * sp->window_bytes / MIB) * 10u;
	if ((rc = pthread_create(&th, NULL, il_main, &a)) != 0)
		die("pthread_create (engines interleaved): %s", strerror(rc));
	if (sp->nconn > 1)
		run_conns(sp->sc, sp->nconn, sp->start_bytes, sp->seed, timeout, &o, r);
	else
		run_stream(sp->sc, "interleaved", sp->start_bytes, sp->seed, timeout, &o, r);
	__atomic_store_n(&a.abort, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	if (a.psh_fd >= 0)
		close(a.psh_fd);
	snprintf(err, errcap, "%s", a.err);
	return a.done;
}

int run_stream_ab(const struct scenario *sc, int windows, unsigned window_mib, uint64_t bytes, uint64_t seed,
		  struct ab_counts eng[2], struct run_result *r, char *err, size_t errcap)
{
	struct il_spec sp = { .sc = sc, .nconn = 1, .neng = 2, .kinds = { ENG_KERNEL, ENG_OFFLOADS },
			      .windows = windows, .window_bytes = (unsigned long)window_mib * MIB,
			      .start_bytes = bytes < 2 * MIB ? (unsigned long)bytes : 2 * MIB, .seed = seed };
	return run_interleaved(&sp, eng, r, err, errcap);
}

double segs_per_gro_612(uint64_t wire, uint64_t gro, uint64_t outer_id)
{
	return gro > outer_id ? (double)wire / (double)(gro - outer_id) : 0;
}
