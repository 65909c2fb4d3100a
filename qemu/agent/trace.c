/*
 * trace.c - tungro's tracepoints seen from user space, as perf, trace-cmd and bpftrace would: the agent enables
 * events/tungro/ through tracefs around a stream and reads the trace back.
 *  - offload layer: an IPIP stream with tungro loaded; per reason, the tungro_flush events (layer=offload) must
 *    cover tungro/stats' flush_<reason> increase over the stream: equal, or more where other tunnel traffic
 *    (neighbour discovery, retransmissions) arrived in the moments between enabling the events and the stream's
 *    first counter read, or between its last read and disabling them (a superset, never fewer);
 *  - engine layer: a plain TCP stream with eth0 attached; the same for tungro/eth0/stats, and the tungro_deliver
 *    events against its lists, list_pkts and list_segs (offload-layer events in that window are reported, not
 *    gated: the offloads are global, and the sender namespace's NIC, not attached, still meets them);
 *  - no event lost (entries-in-buffer = entries-written).
 * m68k, where 6.12 offers no event tracing (no TRACING_SUPPORT: m68k has neither STACKTRACE_SUPPORT nor
 * TRACE_IRQFLAGS_SUPPORT), says so and skips; on other arches a missing tracefs fails.
 */
#include "agent.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define TRACEFS "/sys/kernel/tracing"
#define TRACE_EVENTS TRACEFS "/events/tungro"
#define DEV_STATS "/sys/kernel/debug/tungro/eth0/stats"

/* What the trace holds, per layer: tungro_flush events by reason, tungro_deliver events and their sums. */
struct trace_counts {
	struct stats flush[2];   /* [0] offload, [1] engine: key flush_<reason>, value events */
	uint64_t lists, pkts, segs;
	uint64_t in_buffer, written;
	int header_seen;
	char sample[3][200];     /* the first tungro_flush line of each layer and tungro_deliver line, for the log */
};

static void bump(struct stats *s, const char *key, uint64_t n)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->key[i], key)) {
			s->val[i] += n;
			return;
		}
	if (s->n < MAX_STATS) {
		snprintf(s->key[s->n], sizeof(s->key[0]), "%s", key);
		s->val[s->n++] = n;
	}
}

static void keep_sample(char *dst, size_t cap, const char *line)
{
	const char *p = line + strspn(line, " ");
	if (!dst[0])
		snprintf(dst, cap, "%.*s", (int)strcspn(p, "\n"), p);
}

/* The value of " name=" in a trace line, or NULL. */
static const char *field(const char *line, const char *name, char *val, size_t cap)
{
	char pat[32];
	snprintf(pat, sizeof(pat), " %s=", name);
	const char *p = strstr(line, pat);
	if (!p)
		return NULL;
	p += strlen(pat);
	size_t n = strcspn(p, " \n");
	if (n >= cap)
		n = cap - 1;
	memcpy(val, p, n);
	val[n] = 0;
	return val;
}

static int trace_read(struct trace_counts *t)
{
	FILE *f = fopen(TRACEFS "/trace", "re");
	char *line = NULL, v[24], key[40];
	size_t cap = 0;
	memset(t, 0, sizeof(*t));
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		unsigned long long a, b;
		if (sscanf(line, "# entries-in-buffer/entries-written: %llu/%llu", &a, &b) == 2) {
			t->in_buffer = a;
			t->written = b;
			t->header_seen = 1;
		} else if (strstr(line, " tungro_flush: ") && field(line, "reason", v, sizeof(v))) {
			const char *layer = field(line, "layer", key, sizeof(key));
			int engine = layer && !strcmp(layer, "engine");
			snprintf(key, sizeof(key), "flush_%s", v);
			bump(&t->flush[engine], key, 1);
			keep_sample(t->sample[engine], sizeof(t->sample[0]), line);
		} else if (strstr(line, " tungro_deliver: ")) {
			t->lists++;
			keep_sample(t->sample[2], sizeof(t->sample[2]), line);
			if (field(line, "pkts", v, sizeof(v)))
				t->pkts += strtoull(v, NULL, 10);
			if (field(line, "segs", v, sizeof(v)))
				t->segs += strtoull(v, NULL, 10);
		}
	}
	free(line);
	fclose(f);
	return 0;
}

/* Events of tungro on (the trace emptied first) or off. */
static int trace_set(int on)
{
	int rc = 0;
	if (on) {
		rc = write_file(TRACEFS "/tracing_on", "0");
		rc = rc ? rc : write_file(TRACEFS "/trace", "");   /* opened for writing: emptied */
		rc = rc ? rc : write_file(TRACE_EVENTS "/enable", "1");
		rc = rc ? rc : write_file(TRACEFS "/tracing_on", "1");
	} else {
		rc = write_file(TRACEFS "/tracing_on", "0");
		write_file(TRACE_EVENTS "/enable", "0");
	}
	return rc;
}

/* Per reason: events >= the debugfs increase. Returns 1 when every counted reason is covered; fills msg with
 * "reason:debugfs/events" pairs and extras. */
static int compare(const struct stats *debugfs, const struct stats *events, char *msg, size_t cap, uint64_t *nreasons)
{
	int ok = 1;
	size_t len = 0;
	*nreasons = 0;
	msg[0] = 0;
	for (int i = 0; i < debugfs->n; i++) {
		if (strncmp(debugfs->key[i], "flush_", 6))
			continue;
		uint64_t d = debugfs->val[i], e = stats_get(events, debugfs->key[i]);
		if (!d && !e)
			continue;
		*nreasons += d;
		if (e < d)
			ok = 0;
		len += (size_t)snprintf(msg + len, len < cap ? cap - len : 0, "%s%s:%" PRIu64 "/%" PRIu64 "%s",
					len ? " " : "", debugfs->key[i] + 6, d, e, e < d ? "(FEWER)" : "");
	}
	/* an event reason debugfs does not even list would be a naming mismatch */
	for (int i = 0; i < events->n; i++) {
		int known = 0;
		for (int k = 0; k < debugfs->n; k++)
			known |= !strcmp(debugfs->key[k], events->key[i]);
		if (!known) {
			ok = 0;
			len += (size_t)snprintf(msg + len, len < cap ? cap - len : 0, " %s:UNKNOWN", events->key[i]);
		}
	}
	return ok;
}

static int lost_ok(const struct trace_counts *t, char *msg, size_t cap)
{
	snprintf(msg, cap, "entries in buffer %" PRIu64 " of %" PRIu64 " written", t->in_buffer, t->written);
	return t->header_seen && t->in_buffer == t->written;
}

static void trace_offload(uint64_t bytes)
{
	struct trace_counts t;
	struct run_result r;
	char msg[1024], lost[96];
	uint64_t n = 0;

	if (trace_set(1)) {
		check("trace_offload", 0, "enabling events/tungro through tracefs failed");
		return;
	}
	int rc = run_stream(scenario_by_name("ipip"), "tungro", bytes, 7001, stream_timeout(bytes), NULL, &r);
	trace_set(0);
	if (rc || !r.have_stats) {
		check("trace_offload", 0, "ipip stream: %s", r.err[0] ? r.err : "no debugfs stats");
		return;
	}
	rc = trace_read(&t);
	int ok = !rc && compare(&r.tg, &t.flush[0], msg, sizeof(msg), &n);
	check("trace_offload", ok && n > 0 && lost_ok(&t, lost, sizeof(lost)) && t.flush[1].n == 0,
	      "ipip stream of %" PRIu64 " bytes: reason:debugfs/events %s (need events >= debugfs, some reason"
	      " counted); engine-layer reasons %d (need 0); %s", r.bytes, rc ? strerror(-rc) : msg, t.flush[1].n,
	      lost);
	out("TRACE layer=offload arch=%s kernel=%s debugfs_reasons=%" PRIu64 " %s", uname_machine(), uname_release(),
	    n, msg);
	out("# trace sample: %s", t.sample[0]);
}

static void trace_engine(uint64_t bytes)
{
	struct stats before, after, d;
	struct trace_counts t;
	struct run_result r;
	char msg[1024], lost[96];
	uint64_t n = 0;

	int rc = write_file("/sys/kernel/debug/tungro/control", "attach eth0");
	if (rc) {
		check("trace_engine", 0, "attach eth0: %s", strerror(-rc));
		return;
	}
	if (kv_read(DEV_STATS, &before, 0) || trace_set(1)) {
		check("trace_engine", 0, "%s or enabling events/tungro failed", DEV_STATS);
		write_file("/sys/kernel/debug/tungro/control", "detach eth0");
		return;
	}
	rc = run_stream(scenario_by_name("plain"), "engine", bytes, 7002, stream_timeout(bytes), NULL, &r);
	int stats_rc = kv_read(DEV_STATS, &after, 0);
	trace_set(0);
	write_file("/sys/kernel/debug/tungro/control", "detach eth0");
	if (rc || stats_rc) {
		check("trace_engine", 0, "plain stream: %s", r.err[0] ? r.err : "no eth0 stats");
		return;
	}
	stats_delta(&d, &after, &before);
	rc = trace_read(&t);
	int ok = !rc && compare(&d, &t.flush[1], msg, sizeof(msg), &n);
	uint64_t lists = stats_get(&d, "lists"), pkts = stats_get(&d, "list_pkts"), segs = stats_get(&d, "list_segs");
	check("trace_engine", ok && n > 0 && lost_ok(&t, lost, sizeof(lost)) && lists > 0 && t.lists >= lists &&
	      t.pkts >= pkts && t.segs >= segs,
	      "plain stream of %" PRIu64 " bytes on attached eth0: reason:debugfs/events %s; tungro_deliver events"
	      " %" PRIu64 " (debugfs lists %" PRIu64 "), pkts %" PRIu64 "/%" PRIu64 ", segs %" PRIu64 "/%" PRIu64
	      " (need events >= debugfs); offload-layer reasons %d (not gated: the sender's NIC, not attached, still"
	      " meets tungro's offload for tunnel packets); %s", r.bytes, rc ? strerror(-rc) : msg, t.lists, lists,
	      t.pkts, pkts, t.segs, segs, t.flush[0].n, lost);
	out("TRACE layer=engine arch=%s kernel=%s debugfs_reasons=%" PRIu64 " %s lists=%" PRIu64 "/%" PRIu64,
	    uname_machine(), uname_release(), n, msg, lists, t.lists);
	out("# trace sample: %s", t.sample[1]);
	out("# trace sample: %s", t.sample[2]);
}

void trace_checks(uint64_t bytes)
{
	struct stat st;

	if (mount("tracefs", TRACEFS, "tracefs", 0, NULL) < 0 && errno != EBUSY) {
		/* m68k: no TRACING_SUPPORT in 6.12, so no tracefs */
		if (!strcmp(uname_machine(), "m68k") && stat(TRACEFS, &st) < 0)
			out("# trace: no tracefs on m68k (6.12 has no event tracing for m68k), checks skipped");
		else
			check("trace_tracefs", 0, "mount tracefs on %s: %s", TRACEFS, strerror(errno));
		return;
	}
	int rc = mod_loaded() ? 0 : mod_load();
	if (rc) {
		check("trace_events", 0, "insmod: %s", strerror(-rc));
		return;
	}
	if (stat(TRACE_EVENTS "/tungro_flush", &st) < 0 ||
	    stat(TRACE_EVENTS "/tungro_deliver", &st) < 0) {
		check("trace_events", 0, "%s/tungro_flush and tungro_deliver missing", TRACE_EVENTS);
		mod_unload();
		return;
	}
	/* 2 MiB per CPU for the runs: a stream's events with room to spare (each is < 100 bytes); the kernel's size,
	 * and an empty trace, given back after */
	char size[64] = "", *p;
	read_file(TRACEFS "/buffer_size_kb", size, sizeof(size));
	/* "7 (expanded: 1408)" before tracing was first used: 1408 is the size the kernel would use */
	p = strstr(size, "expanded: ");
	p = p ? p + strlen("expanded: ") : size;
	memmove(size, p, strlen(p) + 1);
	size[strcspn(size, " )\n")] = 0;
	if (write_file(TRACEFS "/buffer_size_kb", "2048")) {
		check("trace_buffer", 0, "%s/buffer_size_kb: cannot set 2048", TRACEFS);
		mod_unload();
		return;
	}
	/*
	 * No comm and tgid recording: enabling an event would otherwise hook sched_switch and sched_wakeup for them,
	 * and patch their static calls in __schedule() (text_poke_bp: int3, then IPIs to every CPU). Under TCG a
	 * vCPU then kept trapping on that int3 in __schedule() with interrupts off while the other waited for its
	 * IPI: Debian 6.1's guest hung there once (2026-12-04, soft lockups, killed by boot.sh's timeout). The checks
	 * read only tungro's events.
	 */
	write_file(TRACEFS "/options/record-cmd", "0");
	write_file(TRACEFS "/options/record-tgid", "0");
	trace_offload(bytes);
	trace_engine(bytes);
	write_file(TRACEFS "/options/record-cmd", "1");
	write_file(TRACEFS "/trace", "");
	if (size[0])
		write_file(TRACEFS "/buffer_size_kb", size);
	rc = mod_unload();
	check("trace_rmmod", rc == 0 && !mod_loaded(), "delete_module after the trace checks: %s",
	      rc ? strerror(-rc) : "ok");
}
