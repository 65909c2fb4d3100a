/* kreports.c - what the kernel's own checkers found during the run: kmemleak (scanned on demand) and the reports
 * that are printed rather than WARN()ed, so panic_on_warn=1 does not stop the run for them: lockdep (PROVE_LOCKING,
 * PROVE_RCU), DEBUG_ATOMIC_SLEEP, and KCSAN. KASAN, UBSAN, DEBUG_OBJECTS and DEBUG_NET reports go through
 * check_panic_on_warn() or WARN() and end the run on their own; they are matched here too, in case a kernel is
 * booted without panic_on_warn. On kernels without these checkers both functions find nothing, so every mode
 * calls them. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"

#define KMEMLEAK "/sys/kernel/debug/kmemleak"

void kmemleak_check(void)
{
	static char report[8192];
	int rc;

	if (access(KMEMLEAK, F_OK))
		return;
	/* Two scans: an object must look unreferenced in both before kmemleak reports it (fewer false reports
	 * for memory still in flight, e.g. skbs in an RCU grace period). */
	for (int i = 0; i < 2; i++) {
		if ((rc = write_file(KMEMLEAK, "scan"))) {
			fail("kmemleak scan: %s", strerror(-rc));
			return;
		}
		sleep_ms(1000);
	}
	rc = read_file(KMEMLEAK, report, sizeof(report));
	if (rc) {
		fail("read %s: %s", KMEMLEAK, strerror(-rc));
		return;
	}
	if (report[0])
		out("%s", report);
	check("kmemleak", report[0] == '\0', "%s", report[0] ? "unreferenced objects reported (see above)" :
	      "no unreferenced objects after two scans");
}

/* First line of each report kind, as the 6.12 checkers print it. only_ours: a report of this kind fails the run
 * only when tungro's code is in it (KCSAN: the networking core has data races of its own, listed, not failed). */
static const struct report_kind {
	const char *marker;
	const char *kind;
	int only_ours;
} kinds[] = {
	{ "BUG: KASAN:", "KASAN", 0 },
	{ "UBSAN:", "UBSAN", 0 },
	{ "BUG: KCSAN:", "KCSAN", 1 },
	{ "WARNING: possible circular locking dependency", "lockdep", 0 },
	{ "WARNING: possible recursive locking", "lockdep", 0 },
	{ "WARNING: inconsistent lock state", "lockdep", 0 },
	{ "WARNING: bad unlock balance", "lockdep", 0 },
	{ "WARNING: held lock freed", "lockdep", 0 },
	{ "WARNING: lock held when returning to user space", "lockdep", 0 },
	{ "WARNING: possible irq lock inversion", "lockdep", 0 },
	{ "WARNING: suspicious RCU usage", "RCU", 0 },
	{ "BUG: sleeping function called from invalid context", "atomic sleep", 0 },
	{ "BUG: scheduling while atomic", "atomic sleep", 0 },
	{ "BUG: workqueue leaked", "lockdep", 0 },
	{ "ODEBUG:", "debugobjects", 0 },
};

/* Lines kept from a report's first line: KCSAN's two stacks (up to 64 frames each) run past 40. KASAN and KCSAN
 * reports end earlier, at their closing "=====" line: past it a KUnit line ("ok 3 tungro_engine") or a log line of
 * tungro's would count as a frame. */
#define REPORT_LINES 160

/* A frame of tungro's own code: a C glue or core function (tungro_*, tgc_*: a word that starts with one) or the
 * module tag of tungro.ko or tungro_kunit.ko ("[tungro]", "[tungro_kunit]": the core's C++ functions carry no
 * tungro name of their own). Not a mere "tungro" anywhere: every report's "CPU: ... Comm: ... 6.12.117-tungro"
 * line names the test kernel's release, and matched that way every KCSAN report was tungro's. */
static int ours(const char *line)
{
	static const char *const names[] = { "tungro_", "tgc_" };

	if (strstr(line, "[tungro"))
		return 1;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		for (const char *p = strstr(line, names[i]); p; p = strstr(p + 1, names[i]))
			if (p == line || !(isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '-' || p[-1] == '.'))
				return 1;
	return 0;
}

void kernel_reports_check(void)
{
	static char text[16384];
	char msg[1024];
	int fd = kmsg_open_from_boot(), failing = 0, listed = 0, in = -1, left = 0, has_ours = 0;
	size_t len = 0;

	if (fd < 0) {
		fail("open /dev/kmsg: %s", strerror(-fd));
		return;
	}
	/* one pass over the whole log; a report's lines are collected until its closing "=====" line, the next
	 * report or REPORT_LINES */
	for (int more = 1; more;) {
		more = kmsg_next(fd, msg, sizeof(msg));
		int k = -1;
		for (size_t i = 0; more && i < sizeof(kinds) / sizeof(kinds[0]); i++)
			if (strstr(msg, kinds[i].marker))
				k = (int)i;
		if (in >= 0 && (!more || k >= 0 || left == 0)) {
			int fatal = !kinds[in].only_ours || has_ours;
			out("# kernel report (%s%s):\n%s", kinds[in].kind,
			    fatal ? "" : ", no tungro frame: listed, not a failure", text);
			failing += fatal;
			listed += !fatal;
			in = -1;
		}
		if (k >= 0) {
			in = k;
			left = REPORT_LINES;
			has_ours = 0;
			len = 0;
			text[0] = '\0';
		}
		if (in >= 0 && more) {
			int n = snprintf(text + len, sizeof(text) - len, "%s\n", msg);
			if (n > 0 && (size_t)n < sizeof(text) - len)
				len += (size_t)n;
			has_ours |= ours(msg);
			left = k < 0 && !strncmp(msg, "=====", 5) ? 0 : left - 1;
		}
	}
	close(fd);
	check("kernel_reports", failing == 0,
	      "%d report(s) from KASAN, UBSAN, lockdep, RCU, atomic-sleep, debugobjects or KCSAN with a tungro frame; "
	      "%d KCSAN report(s) outside tungro listed", failing, listed);
}
