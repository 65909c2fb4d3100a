/* kunit.c - tungro.mode=kunit: loads tungro_kunit.ko (KUnit runs its suites during the load), copies the
 * kernel log records of that load from /dev/kmsg to the results port between KTAP-BEGIN and KTAP-END, and
 * unloads it. The host cuts that block out and parses it with the kernel's own tools/testing/kunit/kunit.py. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "agent.h"

#define KUNIT_MODULE_PATH "/lib/modules/tungro_kunit.ko"

void kunit_mode(void)
{
	static char rec[8192];
	int kmsg, fd, lines = 0;
	long rc;

	if (access(KUNIT_MODULE_PATH, F_OK))
		die("kunit mode needs %s in the initramfs", KUNIT_MODULE_PATH);
	if (mod_loaded())
		die("kunit mode: tungro.ko must not be loaded (the suites install tungro's offloads themselves)");
	/* Only records logged from here on: the boot's own (empty) KTAP block stays out. */
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg < 0)
		die("open /dev/kmsg: %s", strerror(errno));
	if (lseek(kmsg, 0, SEEK_END) < 0)
		die("seek /dev/kmsg: %s", strerror(errno));

	fd = open(KUNIT_MODULE_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die("open %s: %s", KUNIT_MODULE_PATH, strerror(errno));
	rc = syscall(SYS_finit_module, fd, "", 0);
	if (rc < 0)
		fail("finit_module %s: %s", KUNIT_MODULE_PATH, strerror(errno));
	close(fd);

	out("KTAP-BEGIN");
	for (;;) {
		ssize_t n = read(kmsg, rec, sizeof(rec) - 1);
		char *msg, *end;

		if (n < 0 && errno == EPIPE)
			continue;	/* records were overwritten: keep reading what is left */
		if (n <= 0)
			break;
		rec[n] = '\0';
		/* "prio,seq,usec,flags;message\n" then optional " KEY=value" lines */
		msg = strchr(rec, ';');
		if (!msg)
			continue;
		msg++;
		end = strchr(msg, '\n');
		if (end)
			*end = '\0';
		out("%s", msg);
		lines++;
	}
	out("KTAP-END");
	close(kmsg);
	if (!lines)
		fail("kunit mode: no kernel log records after loading %s", KUNIT_MODULE_PATH);
	rc = syscall(SYS_delete_module, "tungro_kunit", O_NONBLOCK);
	check("kunit_rmmod", rc == 0, "delete_module tungro_kunit: %s", rc == 0 ? "ok" : strerror(errno));
	kmemleak_check();
}
