/* unbind.c - driver unbind under traffic: eth0 attached to tungro's engine (gro_flush_timeout keeps a flow held most
 * of the time) while an IPIP stream runs over it, its virtio device unbound from virtio_net (the netdev is
 * unregistered: tungro's NETDEV_UNREGISTER path detaches without waiting and delivers what it holds and what is
 * queued), then bound again and the new eth0 set up as net setup did. Required: tungro counts one detach, nothing
 * leaked (its inflight count; kmemleak at the agent's end on the debug kernel), the stream resumes on the new device
 * and ends byte-exact, and the new eth0 works with the kernel's GRO and attaches to tungro again. */
#include "agent.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define DRIVER_DIR "/sys/bus/virtio/drivers/virtio_net"

struct unbind {
	char dev[32];           /* eth0's virtio device: virtioN */
	volatile unsigned long progress;
	volatile int stop, abort;
	uint64_t held_seen, gap_us, after_bytes;
	int unbound, gone, rebound;
	char err[200];
};

static int wait_progress(struct unbind *u, unsigned long bytes, unsigned max_ms)
{
	unsigned long p0 = __atomic_load_n(&u->progress, __ATOMIC_ACQUIRE);
	for (unsigned ms = 0; ms < max_ms; ms += 2) {
		if (__atomic_load_n(&u->abort, __ATOMIC_ACQUIRE))
			return -1;
		if (__atomic_load_n(&u->progress, __ATOMIC_ACQUIRE) - p0 >= bytes)
			return 0;
		sleep_ms(2);
	}
	return -1;
}

static void *unbind_main(void *arg)
{
	struct unbind *u = arg;
	int rc;

	if (wait_progress(u, 512 * 1024, 60000)) {
		snprintf(u->err, sizeof(u->err), "stream did not reach 512 KiB");
		goto out;
	}
	/* unbind with a flow held when one is within 1 s (reported; the count is tungro's detach_held) */
	for (int i = 0; i < 500 && !(u->held_seen = engine_kv(DEV_STATS_PATH, "held_now")); i++)
		sleep_ms(2);
	uint64_t t0 = now_us();
	if ((rc = write_file(DRIVER_DIR "/unbind", u->dev))) {
		snprintf(u->err, sizeof(u->err), "unbind %s: %s", u->dev, strerror(-rc));
		goto out;
	}
	u->unbound = 1;
	u->gone = access("/sys/class/net/" ENGINE_DEV, F_OK) != 0;
	sleep_ms(20);   /* the stream's segments go nowhere meanwhile: TCP retransmits them after the rebind */
	if ((rc = write_file(DRIVER_DIR "/bind", u->dev))) {
		snprintf(u->err, sizeof(u->err), "bind %s: %s", u->dev, strerror(-rc));
		goto out;
	}
	for (int i = 0; i < 250 && access("/sys/class/net/" ENGINE_DEV, F_OK); i++)
		sleep_ms(20);
	if (access("/sys/class/net/" ENGINE_DEV, F_OK)) {
		snprintf(u->err, sizeof(u->err), "no %s 5 s after binding %s again", ENGINE_DEV, u->dev);
		goto out;
	}
	if (net_rx_nic_setup()) {
		snprintf(u->err, sizeof(u->err), "set-up of the new %s failed", ENGINE_DEV);
		goto out;
	}
	u->rebound = 1;
	u->gap_us = now_us() - t0;
	/* the stream resumes on the new device (TCP's retransmission timer, backed off during the gap) */
	unsigned long p1 = __atomic_load_n(&u->progress, __ATOMIC_ACQUIRE);
	if (wait_progress(u, MIB, 60000))
		snprintf(u->err, sizeof(u->err), "stream did not go on over the new %s within 60 s", ENGINE_DEV);
	u->after_bytes = __atomic_load_n(&u->progress, __ATOMIC_ACQUIRE) - p1;
out:
	__atomic_store_n(&u->stop, 1, __ATOMIC_RELEASE);
	return NULL;
}

void engine_unbind(uint64_t bytes)
{
	const struct scenario *sc = scenario_by_name("ipip");
	struct stats k0, k1;
	struct run_result r;
	struct unbind u;
	char link[256];
	pthread_t th;
	int rc;

	memset(&u, 0, sizeof(u));
	ssize_t n = readlink("/sys/class/net/" ENGINE_DEV "/device", link, sizeof(link) - 1);
	if (n <= 0) {
		check("engine_unbind", 0, "readlink /sys/class/net/%s/device: %s", ENGINE_DEV, strerror(errno));
		return;
	}
	link[n] = 0;
	snprintf(u.dev, sizeof(u.dev), "%.31s", strrchr(link, '/') ? strrchr(link, '/') + 1 : link);
	int loaded = mod_loaded();
	if (!loaded && (rc = mod_load())) {
		check("engine_unbind", 0, "insmod: %s", strerror(-rc));
		return;
	}
	if ((rc = engine_control("attach " ENGINE_DEV)) || (rc = write_file(FLUSH_TIMEOUT_PATH, "20000000"))) {
		check("engine_unbind", 0, "attach %s with gro_flush_timeout 20 ms: %s", ENGINE_DEV, strerror(-rc));
		goto unload;
	}
	kv_read(CONTROL_PATH, &k0, 0);
	out("# %s stream over %s attached (gro_flush_timeout 20 ms), %s unbound from virtio_net under it, then bound"
	    " again", sc->name, ENGINE_DEV, u.dev);
	struct stream_opts o = { .open_ended = 1, .stop = &u.stop, .max_bytes = 1024ull * MIB, .progress = &u.progress };
	if ((rc = pthread_create(&th, NULL, unbind_main, &u)) != 0)
		die("pthread_create (unbind): %s", strerror(rc));
	rc = run_stream(sc, "unbind", bytes, 7500, 600, &o, &r);
	__atomic_store_n(&u.abort, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	/* no RESULT line: its wire count is eth0's rx_packets, which the new device starts again from 0 */
	kv_read(CONTROL_PATH, &k1, 0);
	uint64_t detaches = stats_get(&k1, "detaches") - stats_get(&k0, "detaches");
	uint64_t held = stats_get(&k1, "detach_held") - stats_get(&k0, "detach_held");
	uint64_t queued = stats_get(&k1, "detach_queued") - stats_get(&k0, "detach_queued");
	uint64_t left = stats_get(&k1, "detach_left") - stats_get(&k0, "detach_left");
	uint64_t leaked = stats_get(&k1, "detach_leaked");
	check("engine_unbind_bytes", rc == 0 && u.rebound && !u.err[0] && u.after_bytes >= MIB,
	      "%" PRIu64 " bytes sent, %" PRIu64 " received, checksum %s; %s unbound (%s %s), bound again and set up in"
	      " %" PRIu64 " us, %" PRIu64 " bytes over the new %s%s%s%s%s", r.sent, r.bytes,
	      r.ok && r.csum_ok ? "ok" : "BAD", u.dev, ENGINE_DEV, u.gone ? "gone" : "STILL THERE", u.gap_us,
	      u.after_bytes, ENGINE_DEV, u.err[0] ? ": " : "", u.err, r.err[0] ? ": " : "", r.err);
	check("engine_unbind_released", u.unbound && detaches == 1 && leaked == 0 &&
	      access(DEV_STATS_PATH, F_OK) != 0,
	      "tungro: %" PRIu64 " detach (need 1) at the unregistration, which found %" PRIu64 " held (held_now %" PRIu64
	      " just before the unbind, reported) and %" PRIu64 " queued, delivered them (%" PRIu64 " left, delivered by"
	      " the stop); leaked %" PRIu64 "; debugfs %s %s", detaches, held, u.held_seen, queued, left, leaked,
	      DEV_STATS_PATH, access(DEV_STATS_PATH, F_OK) ? "gone" : "STILL THERE");
	if (!u.rebound)
		goto unload;
	engine_device_works("engine_unbind_device_works", sc, bytes);
	int a = engine_control("attach " ENGINE_DEV);
	int d = a ? a : engine_control("detach " ENGINE_DEV);
	check("engine_unbind_attach_again", !a && !d, "the new %s: attach %s, detach %s", ENGINE_DEV, strerror(-a),
	      strerror(-d));
unload:
	write_file(FLUSH_TIMEOUT_PATH, "0");
	if (access(DEV_STATS_PATH, F_OK) == 0)
		engine_control("detach " ENGINE_DEV);
	if (!loaded)
		mod_unload();
}
