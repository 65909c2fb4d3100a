/* kunit.c - tungro.mode=kunit: loads tungro_kunit.ko (KUnit runs its suites during the load), copies the
 * kernel log records of that load from /dev/kmsg to the results port between KTAP-BEGIN and KTAP-END, and
 * unloads it. tungro.fuzz_trains=N, tungro.fuzz_seed=N, tungro.bench_reps=N, tungro.bench_paths=M and
 * tungro.bench_train=NAME on the kernel command line become its parameters of those names (the skb-shape
 * fuzzer's train count and seed, tungro_bench's reps, paths and train).
 * The host cuts that block out and parses it with the kernel's own tools/testing/kunit/kunit.py. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"

/* Appends " name=val" (no leading space when params is empty) to the module's parameter string. */
static void add_param(char *params, size_t size, const char *name, unsigned val)
{
	size_t n = strlen(params);

	snprintf(params + n, size - n, "%s%s=%u", n ? " " : "", name, val);
}

void kunit_mode(void)
{
	static char msg[8192];
	char params[256] = "";
	int kmsg, rc, lines = 0;

	if (access(KUNIT_MODULE_PATH, F_OK))
		die("kunit mode needs %s in the initramfs", KUNIT_MODULE_PATH);
	if (mod_loaded())
		die("kunit mode: tungro.ko must not be loaded (the suites install tungro's offloads themselves)");
	/* Only records logged from here on: the boot's own (empty) KTAP block stays out. */
	kmsg = kmsg_open();
	if (kmsg < 0)
		die("open /dev/kmsg: %s", strerror(-kmsg));
	/* the module's parameters given on the kernel command line, each only when given */
	if (opt_fuzz_trains)
		add_param(params, sizeof(params), "fuzz_trains", opt_fuzz_trains);
	if (opt_fuzz_seed)
		add_param(params, sizeof(params), "fuzz_seed", opt_fuzz_seed);
	if (opt_bench_reps)
		add_param(params, sizeof(params), "bench_reps", opt_bench_reps);
	if (opt_bench_paths)
		add_param(params, sizeof(params), "bench_paths", opt_bench_paths);
	if (opt_bench_train) {
		size_t n = strlen(params);

		if (strlen(opt_bench_train) > 32)
			die("bad tungro.bench_train '%s' (a train's name, at most 32 characters)", opt_bench_train);
		snprintf(params + n, sizeof(params) - n, "%sbench_train=%s", n ? " " : "", opt_bench_train);
	}
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
