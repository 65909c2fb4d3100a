/* util.c - output, files, time, watchdog, module loading and tungro debugfs stats for the guest agent. */
#include "agent.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/reboot.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int g_console_fd = 1;
int g_results_fd = -1;
char g_first_failure[256];

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static void write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;   /* nowhere left to report a broken output to */
		p += w;
		n -= (size_t)w;
	}
}

static void emit(int to_results, const char *fmt, va_list ap)
{
	char line[1024];
	int n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	pthread_mutex_lock(&out_lock);
	write_all(g_console_fd, line, (size_t)n);
	if (to_results && g_results_fd >= 0)
		write_all(g_results_fd, line, (size_t)n);
	pthread_mutex_unlock(&out_lock);
}

void out(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	emit(1, fmt, ap);
	va_end(ap);
}

void note(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	emit(0, fmt, ap);
	va_end(ap);
}

void fail(const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	out("# error: %s", msg);
	pthread_mutex_lock(&out_lock);
	if (!g_first_failure[0])
		snprintf(g_first_failure, sizeof(g_first_failure), "%s", msg);
	pthread_mutex_unlock(&out_lock);
}

void check(const char *name, int ok, const char *fmt, ...)
{
	char detail[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	out("CHECK %s %s %s", name, ok ? "pass" : "FAIL", detail);
	if (!ok)
		fail("check %s failed: %s", name, detail);
}

void finish(void)
{
	static pthread_mutex_t once = PTHREAD_MUTEX_INITIALIZER;
	/* the watchdog and the main thread may both get here: only one writes the verdict */
	pthread_mutex_lock(&once);
	if (g_first_failure[0])
		out("failure: %s", g_first_failure);
	else
		out("success");
	sync();
	/* No ACPI in the test kernel: RB_POWER_OFF would only halt the CPU and leave QEMU running.
	 * A reboot makes QEMU (-no-reboot) exit, on x86_64 and m68k alike. */
	reboot(RB_AUTOBOOT);
	for (;;)
		pause();
}

void die(const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fail("%s", msg);
	finish();
}

uint64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void sleep_ms(unsigned ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int read_file(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t len = 0;
	while (len + 1 < cap) {
		ssize_t n = read(fd, buf + len, cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(fd);
			return -e;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = 0;
	close(fd);
	return 0;
}

int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = write(fd, text, strlen(text));
	int e = n < 0 ? errno : 0;
	close(fd);
	return -e;
}

int read_u64(const char *path, uint64_t *v)
{
	char buf[64];
	int rc = read_file(path, buf, sizeof(buf));
	if (rc)
		return rc;
	char *end;
	errno = 0;
	unsigned long long x = strtoull(buf, &end, 10);
	if (errno || end == buf)
		return -EINVAL;
	*v = x;
	return 0;
}

/* No POSIX timers (alarm) in the tinyconfig kernel: a sleeping thread bounds the whole run instead. */
static unsigned watchdog_deadline_s;

static void *watchdog_main(void *arg)
{
	(void)arg;
	for (;;) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);   /* counts from boot */
		if ((uint64_t)ts.tv_sec >= watchdog_deadline_s)
			break;
		sleep_ms(1000);
	}
	fail("watchdog: run not finished %u s after boot (tungro.deadline)", watchdog_deadline_s);
	finish();
}

void start_watchdog(unsigned deadline_s)
{
	pthread_t t;
	watchdog_deadline_s = deadline_s;
	if (pthread_create(&t, NULL, watchdog_main, NULL) != 0)
		die("watchdog thread: pthread_create failed");
	pthread_detach(t);
}

/* Kernel modules the run needs that the kernel does not build in (Debian's: virtio-net, IPIP, SIT ...),
 * staged by scripts/guest.sh as BOOT_MODULES_DIR/NN-name.ko, dependencies first. Test kernels build them in
 * and have no such directory. */
int load_boot_modules(void)
{
	struct dirent **names;
	int n = scandir(BOOT_MODULES_DIR, &names, NULL, alphasort);
	int loaded = 0;

	if (n < 0) {
		if (errno == ENOENT)
			return 0;
		fail("scandir %s: %s", BOOT_MODULES_DIR, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char path[300];
		if (loaded >= 0 && names[i]->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", BOOT_MODULES_DIR, names[i]->d_name);
			int fd = open(path, O_RDONLY | O_CLOEXEC);
			long rc = fd < 0 ? -1 : syscall(SYS_finit_module, fd, "", 0);
			int e = errno;
			if (fd >= 0)
				close(fd);
			if (rc < 0) {
				/* the file opened: ENOENT is the kernel's word for unresolved symbols */
				fail("load module %s: %s%s", path, strerror(e),
				     fd >= 0 && e == ENOENT ? " (unknown symbols: a dependency not loaded before it)" : "");
				loaded = -1;
			} else {
				loaded++;
			}
		}
		free(names[i]);
	}
	free(names);
	return loaded;
}

int mod_present(void)
{
	return access(MODULE_PATH, R_OK) == 0;
}

int mod_loaded(void)
{
	return mod_loaded_name("tungro");
}

int mod_load(void)
{
	return mod_load_file(MODULE_PATH);
}

int mod_unload(void)
{
	return mod_unload_name("tungro");
}

int mod_loaded_name(const char *name)
{
	char path[96];
	snprintf(path, sizeof(path), "/sys/module/%s", name);
	return access(path, F_OK) == 0;
}

int mod_load_file(const char *path)
{
	return mod_load_file_params(path, "");
}

int mod_load_file_params(const char *path, const char *params)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	long rc = syscall(SYS_finit_module, fd, params, 0);
	int e = rc < 0 ? errno : 0;
	close(fd);
	return -e;
}

int mod_unload_name(const char *name)
{
	/* O_NONBLOCK: fail with EWOULDBLOCK instead of waiting forever on a reference; retry for up to 5 s */
	for (int i = 0; i < 500; i++) {
		if (syscall(SYS_delete_module, name, O_NONBLOCK) == 0)
			return 0;
		if (errno != EWOULDBLOCK && errno != EAGAIN && errno != EBUSY && errno != EINTR)
			return -errno;
		sleep_ms(10);
	}
	return -EBUSY;
}

/* ---- kernel log ---- */

static int kmsg_open_at(int whence)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (lseek(fd, 0, whence) < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

int kmsg_open(void)
{
	return kmsg_open_at(SEEK_END);
}

int kmsg_open_from_boot(void)
{
	return kmsg_open_at(SEEK_SET);
}

int kmsg_next(int fd, char *msg, size_t cap)
{
	static __thread char rec[8192];
	for (;;) {
		ssize_t n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;   /* records were overwritten: keep reading what is left */
		if (n <= 0)
			return 0;
		rec[n] = '\0';
		/* "prio,seq,usec,flags;message\n" then optional " KEY=value" lines */
		char *m = strchr(rec, ';');
		if (!m)
			continue;
		m++;
		char *end = strchr(m, '\n');
		if (end)
			*end = '\0';
		snprintf(msg, cap, "%s", m);
		return 1;
	}
}

int kv_read(const char *path, struct stats *s, int strict)
{
	char buf[16384], *save = NULL;
	int rc = read_file(path, buf, sizeof(buf));
	if (rc)
		return rc;
	s->n = 0;
	for (char *line = strtok_r(buf, "\n", &save); line && s->n < MAX_STATS; line = strtok_r(NULL, "\n", &save)) {
		char key[40];
		unsigned long long v;
		if (sscanf(line, "%39s %llu", key, &v) != 2) {
			if (strict)
				return -EINVAL;
			continue;   /* "attached eth0" */
		}
		snprintf(s->key[s->n], sizeof(s->key[0]), "%s", key);
		s->val[s->n++] = v;
	}
	return 0;
}

int stats_read(struct stats *s)
{
	return kv_read(STATS_PATH, s, 1);
}

uint64_t stats_get(const struct stats *s, const char *key)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->key[i], key))
			return s->val[i];
	return 0;
}

int fast_stage_ok(const struct stats *d, uint64_t fast, uint64_t *cont)
{
	uint64_t merged = stats_get(d, "merged"), ends = stats_get(d, "flush_end");

	*cont = merged > ends ? merged - ends : 0;
	return fast > 0 || *cont < FAST_MIN_CONT;
}

void stats_delta(struct stats *d, const struct stats *after, const struct stats *before)
{
	d->n = after->n;
	for (int i = 0; i < after->n; i++) {
		memcpy(d->key[i], after->key[i], sizeof(d->key[i]));
		d->val[i] = after->val[i] - stats_get(before, after->key[i]);
	}
}

void stats_top_reasons(const struct stats *d, char *buf, size_t cap)
{
	int used[MAX_STATS] = { 0 };
	size_t len = 0;
	buf[0] = 0;
	for (int k = 0; k < 3; k++) {
		int best = -1;
		for (int i = 0; i < d->n; i++) {
			if (used[i] || strncmp(d->key[i], "flush_", 6) || d->val[i] == 0)
				continue;
			if (best < 0 || d->val[i] > d->val[best])
				best = i;
		}
		if (best < 0)
			break;
		used[best] = 1;
		int n = snprintf(buf + len, cap - len, "%s%s:%" PRIu64, k ? "," : "", d->key[best] + 6, d->val[best]);
		if (n < 0 || (size_t)n >= cap - len)
			break;
		len += (size_t)n;
	}
	if (!buf[0])
		snprintf(buf, cap, "-");
}

/* NETIF_F_GRO of @dev by ethtool, in the calling thread's namespace: set first when @set is 0 or 1
 * (ETHTOOL_SGRO), then read back (ETHTOOL_GGRO). Returns 1 or 0 as it reads, or -errno. */
int dev_gro(const char *dev, int set)
{
	struct ethtool_value ev = { .cmd = ETHTOOL_SGRO, .data = set > 0 };
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = 0;
	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	ifr.ifr_data = (void *)&ev;
	if (set >= 0 && ioctl(fd, SIOCETHTOOL, &ifr) < 0)
		rc = -errno;
	ev.cmd = ETHTOOL_GGRO;
	if (!rc)
		rc = ioctl(fd, SIOCETHTOOL, &ifr) < 0 ? -errno : (int)!!ev.data;
	close(fd);
	return rc;
}
