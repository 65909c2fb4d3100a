/* faults.c - allocation failures injected into tungro's own allocations (issue 10), on kernels built with
 * failslab, fail_page_alloc and the fault-injection stack filter (the debug variant): elsewhere it says it is
 * skipped. The filter's require-start/require-end span tungro's text, so only allocations with a tungro function
 * on the stack can fail: attach (the engine's tables and NAPI instances) and the receive path's header pulls
 * (pskb_may_pull growing the head). Under injection: a TCP stream over IPIP with the offload path, the same with
 * eth0 attached to the engine, and attach/detach cycles. Required: the streams byte-exact (TCP retransmits what a
 * failed pull dropped; nothing it accepted is corrupted), every failed attach leaves eth0 as it was, and afterwards
 * attach, detach and the kernel's GRO work. kmemleak runs at the end of the agent. */
#include "agent.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FI_TIMES 1000000   /* "times" budget: what is left of it afterwards counts the injected failures */
#define FI_CYCLES 40       /* attach/detach attempts under injection */

static const char *const fi_dirs[2] = { "/sys/kernel/debug/failslab", "/sys/kernel/debug/fail_page_alloc" };

/* [start, end) of tungro's text from /proc/kallsyms; end rounded up to the page after the last function. */
static int tungro_text(unsigned long *start, unsigned long *end)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512];
	unsigned long lo = ~0ul, hi = 0;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long a;
		char type, name[256], mod[64];
		if (sscanf(line, "%lx %c %255s [%63[^]]]", &a, &type, name, mod) != 4 || strcmp(mod, "tungro"))
			continue;
		if ((type == 't' || type == 'T') && a) {
			lo = a < lo ? a : lo;
			hi = a > hi ? a : hi;
		}
	}
	fclose(f);
	if (!hi)
		return -ENOENT;   /* no addresses: module not loaded, or kptr_restrict hides them */
	*start = lo;
	*end = (hi + 8192) & ~4095ul;
	return 0;
}

static int fi_write(int which, const char *file, const char *val)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/%s", fi_dirs[which], file);
	return write_file(path, val);
}

/*
 * probability in percent; 0 turns injection off. The probability is written last: written first, it armed
 * injection for every allocation of the kernel (no stack filter yet) while the other attributes were written, and
 * those writes' own allocations failed with ENOMEM (2026-12-04, the first run of these checks on the debug kernel).
 */
static int fi_arm(unsigned long start, unsigned long end, int probability)
{
	char v[32];
	int rc = 0;
	for (int i = 0; i < 2 && !rc; i++) {
		if (!probability) {
			rc = fi_write(i, "probability", "0");
			continue;
		}
		snprintf(v, sizeof(v), "%d", FI_TIMES);
		rc = fi_write(i, "times", v);
		rc = rc ? rc : fi_write(i, "interval", "1");
		rc = rc ? rc : fi_write(i, "verbose", "0");
		rc = rc ? rc : fi_write(i, "task-filter", "N");
		rc = rc ? rc : fi_write(i, "ignore-gfp-wait", "N");   /* attach allocates with GFP_KERNEL */
		rc = rc ? rc : fi_write(i, "stacktrace-depth", "32");
		snprintf(v, sizeof(v), "0x%lx", start);
		rc = rc ? rc : fi_write(i, "require-start", v);
		snprintf(v, sizeof(v), "0x%lx", end);
		rc = rc ? rc : fi_write(i, "require-end", v);
		snprintf(v, sizeof(v), "%d", probability);
		rc = rc ? rc : fi_write(i, "probability", v);
	}
	return rc;
}

static uint64_t fi_injected(void)
{
	uint64_t n = 0, left;
	char path[128];
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/times", fi_dirs[i]);
		if (!read_u64(path, &left) && left <= FI_TIMES)
			n += FI_TIMES - left;
	}
	return n;
}

static int stream_ok(const char *name, const char *engine, uint64_t bytes, uint64_t seed)
{
	struct run_result r;
	int rc = run_stream(scenario_by_name("ipip"), engine, bytes, seed, stream_timeout(bytes) * 2, NULL, &r);
	print_result(&r);
	check(name, rc == 0 && r.ok && r.csum_ok && r.bytes == bytes, "%" PRIu64 " of %" PRIu64
	      " bytes, checksum %s%s%s", r.bytes, bytes, r.ok && r.csum_ok ? "ok" : "BAD", r.err[0] ? ": " : "", r.err);
	return rc;
}

void fault_injection_checks(unsigned mib)
{
	uint64_t bytes = (uint64_t)mib * MIB, n_stream, n_attach;
	unsigned long start, end;
	int rc, attached_ok = 0, refused = 0, refused_first = 0, other = 0;

	if (access(fi_dirs[0], F_OK) || access(fi_dirs[1], F_OK)) {
		out("# fault injection: skipped (kernel without failslab/fail_page_alloc debugfs: not the debug variant)");
		return;
	}
	out("# fault injection: failslab and fail_page_alloc at 5%% on allocations with tungro's text on the stack");
	if ((rc = mod_load())) {
		fail("fault injection: insmod: %s", strerror(-rc));
		return;
	}
	if ((rc = tungro_text(&start, &end)) || (rc = fi_arm(start, end, 5))) {
		fi_arm(0, 0, 0);   /* a half-armed failslab would fail the kernel's allocations from here on */
		fail("fault injection: set-up: %s", strerror(-rc));
		mod_unload();
		return;
	}
	out("# fault injection: tungro text 0x%lx-0x%lx", start, end);

	stream_ok("faults_offload_stream", "tungro-faults", bytes, 9100);
	/* attach itself may fail now: retry until it holds, counting the refusals */
	for (int i = 0; i < 50 && (rc = engine_control("attach eth0")); i++)
		refused_first++;
	if (rc)
		fail("fault injection: attach eth0 failed 50 times in a row (last: %s)", strerror(-rc));
	else
		stream_ok("faults_engine_stream", "engine-faults", bytes, 9101);
	if (!rc && (rc = engine_control("detach eth0")))
		fail("fault injection: detach eth0: %s", strerror(-rc));
	n_stream = fi_injected();

	for (int i = 0; i < FI_CYCLES; i++) {
		rc = engine_control("attach eth0");
		if (rc == -ENOMEM) {
			refused++;
			continue;
		}
		if (rc) {
			other++;
			note("# fault injection: attach eth0: %s", strerror(-rc));
			continue;
		}
		attached_ok++;
		if ((rc = engine_control("detach eth0"))) {
			other++;
			note("# fault injection: detach eth0: %s", strerror(-rc));
		}
	}
	n_attach = fi_injected() - n_stream;
	fi_arm(0, 0, 0);

	check("faults_attach_cycles", other == 0 && attached_ok > 0,
	      "%d attach/detach cycles: %d attached, %d refused with ENOMEM, %d other errors (need 0 and >= 1 attached);"
	      " the engine stream's attach was refused %d times first", FI_CYCLES, attached_ok, refused, other,
	      refused_first);
	check("faults_injected", n_stream + n_attach > 0,
	      "%" PRIu64 " allocation failures injected into tungro's allocations during the streams, %" PRIu64
	      " during attach cycles (need > 0: the stack filter reached tungro)", n_stream, n_attach);
	/* everything works again without injection: attach, detach, unload, the kernel's GRO */
	rc = engine_control("attach eth0");
	rc = rc ? rc : engine_control("detach eth0");
	rc = rc ? rc : mod_unload();
	check("faults_after", rc == 0, "attach, detach and rmmod after injection: %s", rc ? strerror(-rc) : "ok");
	stream_ok("faults_kernel_after", "kernel", bytes, 9102);
}
