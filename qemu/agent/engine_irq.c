/* engine_irq.c - eth0 attached to tungro's engine while an IPIP stream runs over it and the device's interrupt moves
 * between the guest's CPUs every 5 ms (/proc/irq/N/smp_affinity: its NAPI follows it), with RPS off and on (rx-0's
 * rps_cpus: tungro's deliveries then re-enter its rx_handler on the RPS CPU). Each run is byte-exact, and its TCP
 * counters (the sender's retransmissions, the receiver's out-of-order and duplicate segments: a reorder shows there)
 * are reported against a kernel-GRO run of the same length under the same moves (tcpstat.c, README). With one
 * CPU (m68k) nothing moves; without CONFIG_RPS (m68k) only the RPS-off pair runs. */
#include "agent.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define RPS_PATH "/sys/class/net/" ENGINE_DEV "/queues/rx-0/rps_cpus"
#define MOVE_MS 5

struct mover {
	int nirq, irqs[8];
	volatile int stop;
	int moves, errors;
};

/* The interrupts of eth0's virtio device: the lines of /proc/interrupts that name it (virtioN, virtioN-input.0). */
static int dev_irqs(int *irqs, int cap)
{
	char link[256], buf[16384];
	ssize_t n = readlink("/sys/class/net/" ENGINE_DEV "/device", link, sizeof(link) - 1);
	int count = 0;
	if (n <= 0 || read_file("/proc/interrupts", buf, sizeof(buf))) {
		note("# %s interrupts: readlink %zd, /proc/interrupts unreadable", ENGINE_DEV, n);
		return 0;
	}
	link[n] = 0;
	const char *name = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
	size_t len = strlen(name);
	for (char *save = NULL, *line = strtok_r(buf, "\n", &save); line && count < cap;
	     line = strtok_r(NULL, "\n", &save)) {
		char *hit = strstr(line, name);
		/* "virtio0" must not match "virtio01": the name ends there or goes on with '-' */
		if (!hit || (hit[len] && hit[len] != '-'))
			continue;
		int irq;
		if (sscanf(line, " %d:", &irq) == 1)
			irqs[count++] = irq;
	}
	if (!count)
		note("# no line of /proc/interrupts names %s:\n%s", name, buf);
	return count;
}

static void *mover_main(void *arg)
{
	struct mover *m = arg;
	while (!__atomic_load_n(&m->stop, __ATOMIC_ACQUIRE)) {
		for (int i = 0; i < m->nirq; i++) {
			char path[64];
			snprintf(path, sizeof(path), "/proc/irq/%d/smp_affinity", m->irqs[i]);
			if (write_file(path, m->moves & 1 ? "2" : "1") == 0)
				m->moves++;
			else
				m->errors++;
		}
		sleep_ms(MOVE_MS);
	}
	return NULL;
}

/* One stream of @bytes with the kernel's GRO (@engine 0) or eth0 attached (1), the interrupt moving when it can. */
static int irq_run(const struct scenario *sc, int engine, uint64_t bytes, uint64_t seed, struct mover *m,
		   struct tcp_delta *d, struct run_result *r, uint64_t *merged)
{
	pthread_t th;
	int rc = engine ? engine_control("attach " ENGINE_DEV) : 0;
	if (rc) {
		memset(r, 0, sizeof(*r));
		snprintf(r->err, sizeof(r->err), "attach: %s", strerror(-rc));
		return rc;
	}
	m->stop = 0;
	m->moves = m->errors = 0;
	int moving = m->nirq && pthread_create(&th, NULL, mover_main, m) == 0;
	rc = tcp_counted_stream(sc, engine ? "engine-irq" : "kernel-irq", bytes, seed, d, r);
	__atomic_store_n(&m->stop, 1, __ATOMIC_RELEASE);
	if (moving)
		pthread_join(th, NULL);
	*merged = engine ? engine_kv(DEV_STATS_PATH, "merged") : 0;
	int drc = engine ? engine_control("detach " ENGINE_DEV) : 0;
	if (!rc && drc) {
		snprintf(r->err, sizeof(r->err), "detach: %s", strerror(-drc));
		rc = drc;
	}
	return rc;
}

void engine_irq_rps(uint64_t bytes)
{
	char online[64] = "";
	read_file("/sys/devices/system/cpu/online", online, sizeof(online));
	int ncpu = strchr(online, '-') || strchr(online, ',') ? 2 : 1;   /* "0-1": more than one CPU */
	const struct scenario *sc = scenario_by_name("ipip");
	struct mover m;
	int rc;

	memset(&m, 0, sizeof(m));
	m.nirq = ncpu > 1 ? dev_irqs(m.irqs, 8) : 0;
	int have_rps = access(RPS_PATH, W_OK) == 0;
	out("# engine under interrupt moves: CPUs online %.*s (%d), %s; RPS %s", (int)strcspn(online, "\n"), online,
	    ncpu, m.nirq ? "eth0's interrupt moved between CPU 0 and 1 every 5 ms" : "one CPU: nothing to move",
	    have_rps ? "off, then on" : "not built (no CONFIG_RPS): off only");
	/* x86_64 streams run at 8 to 16 MiB/s under TCG (far less on a loaded host): twice the streams' size gives
	 * 100 moves or more per run */
	if (ncpu > 1)
		bytes *= 2;
	int loaded = mod_loaded();
	if (!loaded && (rc = mod_load())) {
		check("engine_irq_insmod", 0, "insmod: %s", strerror(-rc));
		return;
	}
	for (int rps = 0; rps <= have_rps; rps++) {
		const char *mask = rps ? (ncpu > 1 ? "3" : "1") : "0";
		struct tcp_delta dk, de;
		struct run_result rk, re;
		uint64_t merged = 0, unused;
		char name[64];
		if (have_rps && (rc = write_file(RPS_PATH, mask))) {
			check(rps ? "engine_irq_rps_on" : "engine_irq_rps_off", 0, "write %s to %s: %s", mask, RPS_PATH,
			      strerror(-rc));
			continue;
		}
		int rck = irq_run(sc, 0, bytes, 7400 + (uint64_t)rps, &m, &dk, &rk, &unused);
		int kmoves = m.moves;
		int rce = irq_run(sc, 1, bytes, 7410 + (uint64_t)rps, &m, &de, &re, &merged);
		snprintf(name, sizeof(name), "engine_irq_rps_%s_bytes", rps ? "on" : "off");
		check(name, rck == 0 && rce == 0 && merged > 0 && (!m.nirq || (m.moves > 0 && kmoves > 0)) && !m.errors,
		      "RPS %s (rps_cpus %s), %d CPU(s): engine %" PRIu64 " of %" PRIu64 " bytes, checksum %s, merged %" PRIu64
		      ", %d interrupt moves (%d failed); kernel GRO %" PRIu64 " bytes, checksum %s, %d moves%s%s%s%s",
		      rps ? "on" : "off", mask, ncpu, re.bytes, re.sent, re.ok && re.csum_ok ? "ok" : "BAD", merged,
		      m.moves, m.errors, rk.bytes, rk.ok && rk.csum_ok ? "ok" : "BAD", kmoves, re.err[0] ? ": " : "",
		      re.err, rk.err[0] ? "; kernel: " : "", rk.err);
		snprintf(name, sizeof(name), "engine_irq_rps_%s_tcp", rps ? "on" : "off");
		if (rck == 0 && rce == 0)
			tcp_report(name, &de, &dk);   /* reported, not gated: README */
	}
	if (have_rps)
		write_file(RPS_PATH, "0");
	if (!loaded)
		mod_unload();
}
