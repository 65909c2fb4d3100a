/* agent.h - shared declarations of the tungro guest agent (/init of the test initramfs). */
#ifndef TUNGRO_AGENT_H
#define TUNGRO_AGENT_H

#define _GNU_SOURCE
#include <stdint.h>
#include <stddef.h>
#include <inttypes.h>

#define MIB (1024u * 1024u)
#define MODULE_PATH "/lib/modules/tungro.ko"
#define STATS_PATH "/sys/kernel/debug/tungro/stats"

/* ---- util.c ---- */
extern int g_console_fd;              /* /dev/console (stdout, stderr) */
extern int g_results_fd;              /* virtio-serial port tungro.results, or -1 */
extern char g_first_failure[256];     /* first failure reason, empty while all passed */

void out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));   /* results port + console */
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));  /* console only */
void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));  /* records the first failure */
void check(const char *name, int ok, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
__attribute__((noreturn)) void finish(void);
__attribute__((noreturn)) void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

uint64_t now_us(void);
void sleep_ms(unsigned ms);
int read_file(const char *path, char *buf, size_t cap);   /* 0 or -errno; NUL-terminated */
int write_file(const char *path, const char *text);       /* 0 or -errno */
int read_u64(const char *path, uint64_t *v);               /* 0 or -errno */
void start_watchdog(unsigned deadline_s);

/* kernel module handling */
#define BOOT_MODULES_DIR "/lib/modules/deps"
int load_boot_modules(void);   /* loads BOOT_MODULES_DIR in name order: count, or -1 after fail() */
int mod_present(void);     /* MODULE_PATH exists in the initramfs */
int mod_loaded(void);
int mod_load(void);        /* 0 or -errno */
int mod_unload(void);      /* 0 or -errno, retries while the module is busy */

/* debugfs stats of tungro: "key value" lines */
#define MAX_STATS 128
struct stats {
	int n;
	char key[MAX_STATS][40];
	uint64_t val[MAX_STATS];
};
int stats_read(struct stats *s);                          /* 0 or -errno */
uint64_t stats_get(const struct stats *s, const char *key);
void stats_delta(struct stats *d, const struct stats *after, const struct stats *before);
void stats_top_reasons(const struct stats *d, char *buf, size_t cap);  /* "r1:n,r2:n,r3:n" or "-" */

/* ---- leaks.c ---- */
void kmemleak_check(void);  /* debug kernels: scan and fail on any kmemleak report; no-op elsewhere */

/* ---- kunit.c ---- */
void kunit_mode(void);      /* tungro.mode=kunit: load tungro_kunit.ko, copy its KTAP block to the results port */

/* ---- net.c ---- */
extern int g_init_ns;      /* fd of the receiver (initial) network namespace */
extern int g_sender_ns;    /* fd of the sender network namespace */
int net_setup(void);       /* 0 or -1 after fail() naming the step */
int enter_ns(int fd);      /* setns for the calling thread: 0 or -errno */

/* ---- stream.c ---- */
struct scenario {
	const char *name;
	int family;             /* AF_INET or AF_INET6 of the TCP stream */
	const char *dst;        /* receiver address of the stream */
	int outer_proto;        /* IPv4 protocol seen on eth0: 6, 4 or 41 */
	const char *tundev;     /* receiver tunnel device, NULL for plain */
	int port;
};
extern const struct scenario g_scenarios[3];
const struct scenario *scenario_by_name(const char *name);

struct run_result {
	const char *scenario;
	const char *engine;
	uint64_t bytes;         /* bytes received */
	uint64_t sent;          /* bytes the sender wrote */
	uint64_t usecs;
	uint64_t wire_segs;     /* eth0 rx_packets delta (pre-GRO) */
	uint64_t gro_pkts;      /* packet socket count after GRO */
	uint64_t tun_rx;        /* tunnel device rx_packets delta */
	double segs_per_gro;
	int csum_ok;
	int ok;                 /* stream completed without error */
	char reasons[128];
	int have_stats;
	struct stats tg;        /* tungro debugfs delta when have_stats */
	char err[200];
};

/* Hooks for the load/unload-under-traffic test: the sender keeps going while *stop is 0. */
struct stream_opts {
	int open_ended;
	volatile int *stop;
	uint64_t max_bytes;
	volatile unsigned long *progress;   /* receiver bytes so far, updated while reading */
};

int run_stream(const struct scenario *sc, const char *engine, uint64_t bytes, uint64_t seed,
	       unsigned timeout_s, const struct stream_opts *opts, struct run_result *r);
void print_result(const struct run_result *r);
const char *uname_machine(void);
const char *uname_release(void);

/* ---- peer.c ---- */
#define PEER_NTESTS 6
extern const char *const g_peer_tests[PEER_NTESTS];   /* gro.c's test names, in gro.sh's order */
struct peer_tally {
	int pass, fail, retries;
	unsigned char res[PEER_NTESTS][2];   /* per test, ipv4/ipv6: 0 not run, 1 pass, 2 FAIL */
};
/* gro.c's ipv4 and ipv6 tests for one engine, one CONFORM line each; records failures */
void peer_suite(const char *engine, const unsigned char mac_rx[6], const unsigned char mac_tx[6],
		struct peer_tally *pt);

/* ---- engine.c ---- */
void engine_checks(uint64_t bytes);   /* tungro's engine path on eth0 vs the kernel's GRO; records failures */

/* ---- conform.c ---- */
void conform(void);        /* wire conformance, kernel engine then tungro; records failures */

#endif
