/* leaks.c - kmemleak check for the debug kernel variant (TUNGRO_VARIANT=debug): scan, then fail on any report.
 * On kernels without kmemleak it does nothing, so every mode can call it. */
#include <errno.h>
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
