/* kunit.c - tungro.mode=kunit: loads tungro_kunit.ko (KUnit runs its suites during the load), copies the
 * kernel log records of that load from /dev/kmsg to the results port between KTAP-BEGIN and KTAP-END, and
 * unloads it. tungro.fuzz_trains=N on the kernel command line becomes its fuzz_trains parameter (the skb-shape
 * fuzzer's train count). The host cuts that block out and parses it with the kernel's own tools/testing/kunit/kunit.py. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"

void kunit_mode(void)
{
	static char msg[8192];
	char params[48] = "";
	int kmsg, rc, lines = 0;

	if (access(KUNIT_MODULE_PATH, F_OK))
		die("kunit mode needs %s in the initramfs", KUNIT_MODULE_PATH);
	if (mod_loaded())
		die("kunit mode: tungro.ko must not be loaded (the suites install tungro's offloads themselves)");
	/* Only records logged from here on: the boot's own (empty) KTAP block stays out. */
	kmsg = kmsg_open();
	if (kmsg < 0)
		die("open /dev/kmsg: %s", strerror(-kmsg));
	if (opt_fuzz_trains)
		snprintf(params, sizeof(params), "fuzz_trains=%u", opt_fuzz_trains);
	if (opt_bench_reps)
		snprintf(params + strlen(params), sizeof(params) - strlen(params), "%sbench_reps=%u",
			 params[0] ? " " : "", opt_bench_reps);
	rc = mod_load_file_params(KUNIT_MODULE_PATH, params);
	if (rc)
		fail("finit_module %s: %s", KUNIT_MODULE_PATH, strerror(-rc));

	out("KTAP-BEGIN");
	while (kmsg_next(kmsg, msg, sizeof(msg))) {
		out("%s", msg);
		lines++;
	}
	out("KTAP-END");
	close(kmsg);
	if (!lines)
		fail("kunit mode: no kernel log records after loading %s", KUNIT_MODULE_PATH);
	rc = mod_unload_name("tungro_kunit");
	check("kunit_rmmod", rc == 0, "delete_module tungro_kunit: %s", rc == 0 ? "ok" : strerror(-rc));
	kmemleak_check();
	kernel_reports_check();
}
