/* agent.h - shared declarations of the tungro guest agent (/init of the test initramfs). */
#ifndef TUNGRO_AGENT_H
#define TUNGRO_AGENT_H

#define _GNU_SOURCE
#include <stdint.h>
#include <stddef.h>
#include <inttypes.h>
#include <pthread.h>
#include <sys/socket.h>

#define MIB (1024u * 1024u)
/* merges not ending their packet (no PSH or FIN) before the fast stage must have taken some (fast_stage_ok()) */
#define FAST_MIN_CONT 100
#define MODULE_PATH "/lib/modules/tungro.ko"
#define KUNIT_MODULE_PATH "/lib/modules/tungro_kunit.ko"
#define STACKER_MODULE_PATH "/lib/modules/tungro_stacker.ko"   /* test fixture of the K07 checks */
#define STATS_PATH "/sys/kernel/debug/tungro/stats"
#define ENGINE_CONTROL_PATH "/sys/kernel/debug/tungro/control"
#define ENGINE_STATS_PATH "/sys/kernel/debug/tungro/eth0/stats"   /* while eth0 is attached to the engine */

/* ---- util.c ---- */
extern int g_console_fd;              /* /dev/console (stdout, stderr) */
extern int g_results_fd;              /* virtio-serial port tungro.results, or -1 */
extern char g_first_failure[256];     /* first failure reason, empty while all passed */
extern unsigned opt_fuzz_trains;      /* tungro.fuzz_trains=, 0 when absent */
extern unsigned opt_bench_reps;       /* tungro.bench_reps=, 0 when absent */
extern unsigned opt_bench_paths;      /* tungro.bench_paths=, 0 when absent */
extern const char *opt_bench_train;   /* tungro.bench_train=, NULL when absent */
extern unsigned opt_fuzz_seed;        /* tungro.fuzz_seed=, 0 when absent */

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
int dev_gro(const char *dev, int set);   /* GRO of dev (set 0/1 first unless -1): 1, 0 or -errno */
int read_u64(const char *path, uint64_t *v);               /* 0 or -errno */
void start_watchdog(unsigned deadline_s);

/* kernel module handling */
#define BOOT_MODULES_DIR "/lib/modules/deps"
int load_boot_modules(void);   /* loads BOOT_MODULES_DIR in name order: count, or -1 after fail() */
int mod_present(void);     /* MODULE_PATH exists in the initramfs */
int mod_loaded(void);
int mod_load(void);        /* 0 or -errno */
int mod_unload(void);      /* 0 or -errno, retries while the module is busy */
/* the same for any module: a .ko path to load, a module name to look up or unload */
int mod_loaded_name(const char *name);
int mod_load_file(const char *path);    /* 0 or -errno */
int mod_load_file_params(const char *path, const char *params); /* with module parameters "a=1 b=2" */
int mod_unload_name(const char *name);  /* 0 or -errno, retries while the module is busy */

/* kernel log records from /dev/kmsg, only those logged after kmsg_open() */
int kmsg_open(void);                                /* fd or -errno */
int kmsg_open_from_boot(void);                      /* the same, from the oldest record still in the buffer */
int kmsg_next(int fd, char *msg, size_t cap);       /* 1: next record's text in msg; 0: none left */

/* debugfs stats of tungro: "key value" lines */
#define MAX_STATS 128
struct stats {
	int n;
	char key[MAX_STATS][40];
	uint64_t val[MAX_STATS];
};
int stats_read(struct stats *s);                          /* 0 or -errno */
/* "key value" lines of any tungro debugfs file; strict: a line of another shape is -EINVAL, else skipped */
int kv_read(const char *path, struct stats *s, int strict);
uint64_t stats_get(const struct stats *s, const char *key);
void stats_delta(struct stats *d, const struct stats *after, const struct stats *before);
void stats_top_reasons(const struct stats *d, char *buf, size_t cap);  /* "r1:n,r2:n,r3:n" or "-" */
/* The stream checks' fast-stage rule, offload path and engine alike: @fast merges by the fast (or predicted) stage
 * are required only when FAST_MIN_CONT or more of the debugfs delta @d's merges did not end their packet (merged
 * less flush_end: a segment with an end flag goes to the full stage); that count into *cont, for the message. */
int fast_stage_ok(const struct stats *d, uint64_t fast, uint64_t *cont);

/* ---- kreports.c ---- */
void kmemleak_check(void);  /* debug kernels: scan and fail on any kmemleak report; no-op elsewhere */
/* lockdep, RCU, atomic-sleep, KASAN, UBSAN, debugobjects reports anywhere in the log since boot fail the run;
 * KCSAN reports only with a tungro frame (others are listed) */
void kernel_reports_check(void);

/* ---- kunit.c ---- */
void kunit_mode(void);      /* tungro.mode=kunit: load tungro_kunit.ko, copy its KTAP block to the results port */

/* ---- net.c ---- */
extern int g_init_ns;      /* fd of the receiver (initial) network namespace */
extern int g_sender_ns;    /* fd of the sender network namespace */
int net_setup(void);       /* 0 or -1 after fail() naming the step */
int net_rx_nic_setup(void); /* eth0 (a new one after a driver rebind) set up again as net_setup did: 0 or -1 */
int enter_ns(int fd);      /* setns for the calling thread: 0 or -errno */
/* A veth pair in namespace nsfd (g_init_ns or g_sender_ns), both ends with this MTU, IPv6 and GRO off, up: 0 or -1
 * after fail() naming the step; the calling thread is back in the initial namespace either way */
int net_veth_add(int nsfd, const char *name, const char *peer, int mtu);

/* ---- stream.c ---- */
#define CHUNK (64u * 1024u)

/* payload: xorshift64* words, stored little-endian so every architecture sends the same bytes */
struct prng {
	uint64_t s;
};
void prng_seed(struct prng *r, uint64_t seed);
void prng_fill(struct prng *r, unsigned char *p, size_t n);   /* n: a multiple of 8 */

/* checksum: order-sensitive 64-bit mix over little-endian words, fed in arbitrary pieces */
struct csum {
	uint64_t h, len;
	unsigned char pend[8];
	unsigned npend;
};
void csum_init(struct csum *c);
void csum_update(struct csum *c, const unsigned char *p, size_t n);
uint64_t csum_final(const struct csum *c);
uint64_t expected_csum(uint64_t seed, uint64_t bytes);   /* of the first bytes of seed's stream */

struct scenario {
	const char *name;
	int family;             /* AF_INET or AF_INET6 of the TCP stream */
	const char *dst;        /* receiver address of the stream */
	int outer_proto;        /* IP protocol (IPv6 next header) seen on eth0: 6, 4, 41, or 17 (FOU/GUE) */
	const char *outer_dst;  /* receiver's underlay address of the stream's packets on eth0 */
	const char *tundev;     /* receiver tunnel device, NULL for plain */
	int port;
	int outer_family;       /* of the underlay: AF_INET, or AF_INET6 (the ip6 tunnels) */
	int ipopt;              /* 1: the sender's socket puts the demo's 8-byte IPv4 option on every packet */
};
#define N_SCENARIOS 11
extern const struct scenario g_scenarios[N_SCENARIOS];
const struct scenario *scenario_by_name(const char *name);
int scenario_addr(const struct scenario *sc, struct sockaddr_storage *ss, socklen_t *len);   /* 0 or -EINVAL */

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
	int no_tap;             /* no packet socket on eth0 (run_result.gro_pkts stays 0): a tap clones every frame,
				 * which costs the engine path an unclone per packet */
};

unsigned stream_timeout(uint64_t bytes);   /* seconds a closed stream of this size may take */
/* A packet socket on eth0 counting the tunnel scenario sc's received TCP segments with PSH after GRO (the wire's
 * PSH marks, whichever engine coalesced them): the fd, or -1 with err set (sc not IPIP, SIT or an ip6 tunnel). */
int psh_counter_open(const struct scenario *sc, char *err, size_t cap);
/* Packets a packet socket's filter accepted since the last call (reading resets the count): 0 or -errno. */
int packet_counter_read(int fd, uint64_t *n);
int run_stream(const struct scenario *sc, const char *engine, uint64_t bytes, uint64_t seed,
	       unsigned timeout_s, const struct stream_opts *opts, struct run_result *r);
void print_result(const struct run_result *r);

/* ---- conns.c ---- */
/* nconn (1..256) concurrent connections to sc's receiver port, bytes in all (opts: as run_stream's, progress
 * counts every connection's bytes); each connection byte-exact, or r->csum_ok 0 and r->err names it. 0 or -1. */
int run_conns(const struct scenario *sc, int nconn, uint64_t bytes, uint64_t seed, unsigned timeout_s,
	      const struct stream_opts *opts, struct run_result *r);

/* ---- interleave.c ---- */
/* The three ways a tunnel stream can be coalesced in one boot. */
enum { ENG_KERNEL, ENG_OFFLOADS, ENG_ENGINE, N_ENG };
extern const char *const g_eng_name[N_ENG];   /* "kernel", "offloads", "engine" */
int eng_enter(int kind);        /* tungro unloaded / loaded / loaded with eth0 attached: 0 or -errno */
uint64_t softirq_ns(void);      /* /proc/stat softirq time of all CPUs, ns (USER_HZ resolution); 0 unreadable */

#define IL_MAX_WINDOWS 32       /* per engine */
struct il_window {
	uint64_t wire, gro, bytes, usecs, softirq_ns;
	uint64_t outer_id;      /* tungro's flush_outer_id: packets ended by 6.18's outer-ID rule (L11) */
	uint64_t psh;           /* the sender's PSH marks (il_spec.count_psh), else 0 */
};
/* One engine's windows of a comparison, and their sums. */
struct ab_counts {
	int kind;               /* ENG_* */
	int nw;
	struct il_window w[IL_MAX_WINDOWS];
	uint64_t wire, gro, bytes, usecs, softirq_ns;   /* eth0 rx_packets, GRO packets, bytes, time, softirq */
	uint64_t psh;           /* PSH marks (il_spec.count_psh) */
	struct stats tg;        /* tungro's debugfs delta summed over its windows (offloads: tungro/stats; engine:
				 * tungro/eth0/stats) */
	int have_tg;
};
struct il_spec {
	const struct scenario *sc;
	int nconn;              /* 1: one stream; more: run_conns */
	int neng, kinds[N_ENG];
	int windows;            /* per engine */
	unsigned long window_bytes, start_bytes;   /* a window's received bytes; bytes before the first window */
	uint64_t seed;
	int no_tap;
	int count_psh;          /* count each window's PSH marks (psh_counter_open): a tunnel scenario's */
};
/* Returns the windows completed (all engines); the traffic's outcome in r, a switch's error in err. */
int run_interleaved(const struct il_spec *sp, struct ab_counts *eng, struct run_result *r, char *err, size_t errcap);
/* The kernel's GRO (eng[0]) and tungro's offloads (eng[1]) on one stream, windows of window_mib. */
int run_stream_ab(const struct scenario *sc, int windows, unsigned window_mib, uint64_t bytes, uint64_t seed,
		  struct ab_counts eng[2], struct run_result *r, char *err, size_t errcap);
double ab_segs_per_gro(const struct ab_counts *c);
/* Segments per GRO packet of a window with its L11 packets (flush_outer_id) merged back, as 6.12 keeps them: each
 * such cut made two packets of one. 0 when nothing is left. */
double segs_per_gro_612(uint64_t wire, uint64_t gro, uint64_t outer_id);
const char *uname_machine(void);
const char *uname_release(void);

/* ---- flows.c ---- */
/* A paced datagram flow from the sender namespace through a tunnel, with per-datagram accounting. */
struct flow {
	const char *name;       /* for messages, e.g. "udp-ipip" */
	int family;             /* of the inner addresses */
	int icmp;               /* 1: echo requests answered by the receiver's kernel; 0: UDP to a receiver socket */
	const char *dst;        /* receiver's inner address */
	int port;               /* UDP port */
	unsigned gap_us;        /* one datagram every gap_us */
	unsigned quiet_ms;      /* after the last send, this long without a datagram ends the flow (0: 2000) */
	volatile int *stop;     /* the sender stops when *stop becomes 1 */
	/* results, final after flow_join() */
	uint64_t sent;          /* datagrams (echo requests) sent */
	uint64_t received;      /* distinct intact datagrams (replies) received */
	uint64_t dup, corrupt, reorder, send_err;
	char err[200];
	/* internal */
	uint64_t newest;
	unsigned char *seen;    /* bitmap of sequence numbers received */
	volatile int tx_done;
	int rx_fd, nthreads;
	pthread_t th[2];
};
int flow_start(struct flow *f);     /* 0, or -1 with f->err; flow_join() in both cases */
void flow_join(struct flow *f);     /* after *stop: waits for the last datagrams (or replies) */
uint64_t flow_lost(const struct flow *f);

/* ---- hardening.c ---- */
/* insmod/rmmod cycles under TCP, UDP, ICMP in IPIP and SIT; soak: plain TCP too, and the cycles in K06_PAIRS windows
 * each followed by one of the kernel's GRO alone (tungro unloaded) as long, their TCP counters compared (gated) */
#define K06_PAIRS 20
void k06_load_race(unsigned cycles, unsigned mib, int soak);
void k01_fou_gue(unsigned mib);                      /* TCP in FOU/GUE: tungro vs the kernel's GRO */
void k07_stacked_hooks(void);                        /* orders of tungro, a stacking module and tungro_kunit */

/* ---- peer.c ---- */
#define PEER_NTESTS 6
extern const char *const g_peer_tests[PEER_NTESTS];   /* gro.c's test names, in gro.sh's order */
/* how gro.c's frames go from its sender to its receiver: across the virtio pair (eth1 -> eth0, peer_* rows), or
 * wrapped in ip6ip6 on that pair by relay6.c (peer6in6_* rows, --ipv6 only) */
enum { PEER_DIRECT, PEER_6IN6, PEER_NVIA };
struct peer_tally {
	int pass, fail, retries;             /* over every transport run into this tally */
	unsigned char res[PEER_NTESTS][2];   /* direct, per test, ipv4/ipv6: 0 not run, 1 pass, 2 FAIL */
	unsigned char res6in6[PEER_NTESTS];  /* over ip6ip6, per test (ipv6) */
};
/* gro.c's tests over one transport for one engine ("kernel": tungro not loaded; its outputs are the reference of
 * the other engines where a test is judged by parity), one CONFORM line each; records failures */
void peer_suite(const char *engine, const unsigned char mac_rx[6], const unsigned char mac_tx[6], int via,
		struct peer_tally *pt);

/* ---- relay6.c ---- */
/* gro.c over ip6ip6 (peer.c's PEER_6IN6): its sender on RELAY6_TX_DEV (sender namespace), its receiver on
 * RELAY6_RX_DEV (initial namespace), a relay thread between them wrapping its frames in ip6ip6 from eth1 to eth0 and
 * handing what eth0's GRO delivered, unwrapped, to the receiver's veth */
#define RELAY6_TX_DEV "p6s"
#define RELAY6_RX_DEV "p6r-peer"
struct relay6_counts {
	unsigned long frames_in, skipped;   /* frames read on p6s-peer; of those, not gro.c's sender's */
	unsigned long frames_out;           /* ip6ip6 frames sent on eth1 */
	unsigned long pkts, segs;           /* ip6ip6 packets eth0 delivered after GRO, wire segments in them */
	unsigned long injected;             /* inner packets sent on p6r */
	int err;                            /* first error, -errno (0: none), and what failed */
	char why[120];
};
int relay6_setup(char *why, size_t cap);   /* once a boot: both veth pairs; 0, or -1 with why (and fail()) */
/* opens the relay's sockets and starts its thread; gro.c's --dmac/--smac: 0, or -1 with why */
int relay6_start(const unsigned char mac_rx[6], const unsigned char mac_tx[6], char *why, size_t cap);
void relay6_stop(struct relay6_counts *c);   /* stops the thread, closes the sockets; what it carried in c */

/* ---- faults.c ---- */
/* debug kernels: allocation failures injected into tungro's allocations during streams and attach cycles */
void fault_injection_checks(unsigned mib);

/* ---- engine.c ---- */
#define CONTROL_PATH "/sys/kernel/debug/tungro/control"
#define ENGINE_DEV "eth0"       /* the receiver's NIC (net.c moves eth1 to the sender namespace) */
#define DEV_STATS_PATH "/sys/kernel/debug/tungro/" ENGINE_DEV "/stats"
#define FLUSH_TIMEOUT_PATH "/sys/class/net/" ENGINE_DEV "/gro_flush_timeout"
#define DEFER_IRQS_PATH "/sys/class/net/" ENGINE_DEV "/napi_defer_hard_irqs"
/* tungro's engine path on eth0 vs the kernel's GRO, loop_cycles attach/detach cycles under a stream (a multiple of
 * ENGINE_LOOP_WINDOWS); records failures */
#define ENGINE_LOOP_WINDOWS 20
void engine_checks(uint64_t bytes, int loop_cycles);
void engine_soak(uint64_t bytes, int loop_cycles);   /* make soak: only the attach/detach cycles under a stream */
/* GRO packets the receiver's stack got so far for sc: its tunnel device's rx_packets, or TCP's InSegs */
int gro_count(const struct scenario *sc, uint64_t *v);
int mod_load_params(const char *params);          /* insmod tungro.ko with parameters: 0 or -errno */
int engine_control(const char *cmd);              /* a line to tungro/control ("attach eth0"): 0 or -errno */
uint64_t engine_kv(const char *path, const char *key);   /* one key of a tungro debugfs file, 0 if absent */
/* after a check that left eth0 to the kernel: GRO on and a kernel-GRO stream coalescing, byte-exact */
void engine_device_works(const char *name, const struct scenario *sc, uint64_t bytes);

/* ---- tcpstat.c ---- */
/* TCP counters of one namespace: Tcp RetransSegs (/proc/net/snmp), TcpExt TCPOFOQueue (segments that arrived out
 * of order) and TCPDSACKOldSent + TCPDSACKOfoSent (duplicate segments received, D-SACKed) (/proc/net/netstat) */
struct tcp_counters {
	uint64_t retrans, ofo, dup;
};
/* a run's counts: the sender's retransmissions, the receiver's out-of-order and duplicate segments */
struct tcp_delta {
	uint64_t retrans, ofo, dup;
};
int snmp_counter(const char *file, const char *prefix, const char *name, uint64_t *v);  /* calling thread's netns */
int tcp_ofo_read(uint64_t *v);   /* the calling thread's namespace's TCPOFOQueue: 0 or -errno */
/* the receiver's TCPOFOQueue now, for a thread in the initial namespace (the receiver's); 0 when unreadable */
uint64_t receiver_ofo(void);
int tcp_counters_read(struct tcp_counters c[2]);  /* [0] receiver (initial namespace), [1] sender: 0 or -errno */
void tcp_counters_delta(struct tcp_delta *d, const struct tcp_counters before[2], const struct tcp_counters after[2]);
void tcp_delta_add(struct tcp_delta *sum, const struct tcp_delta *d);
/* run_stream (closed, printed) between two counter reads: run_stream's return */
int tcp_counted_stream(const struct scenario *sc, const char *engine, uint64_t bytes, uint64_t seed,
		       struct tcp_delta *d, struct run_result *r);
/* TCPCMP line: the engine's counts against the baseline's, and whether within the stated emulation slack */
void tcp_report(const char *name, const struct tcp_delta *eng, const struct tcp_delta *base);
/* Paired windows on the same traffic: a window of cycles (insmod/rmmod, attach/detach), then the kernel's GRO alone
 * for as long; per pair the receiver's TCPOFOQueue and the sender's retransmissions per MiB, compared by the demo's
 * paired test (wilcoxon_p_below) */
#define TCP_PAIRS_MAX 64        /* wstats.c's WSTATS_MAX */
struct tcp_pairs {
	struct tcp_delta cyc, ker;      /* sums over the cycle windows and over the kernel-GRO windows */
	double cyc_mib, ker_mib;        /* MiB the receiver read in them */
	double cyc_s, ker_s;            /* and their seconds */
	double ofo_d[TCP_PAIRS_MAX];    /* per pair: kernel - cycles TCPOFOQueue per MiB (cycles worse: < 0) */
	double retrans_d[TCP_PAIRS_MAX];   /* the same for the sender's RetransSegs */
	double ofo_ds[TCP_PAIRS_MAX], retrans_ds[TCP_PAIRS_MAX];   /* the same per second */
	int pairs;
	int cycles;                     /* the cycles in the cycle windows */
};
/* counters and the receiver's bytes at a pair's edges: [0] cycles start, [1] cycles end = kernel start, [2] end */
struct tcp_edges {
	struct tcp_counters t[3][2];
	unsigned long at[3];
	uint64_t us[3];
};
int tcp_edge(struct tcp_edges *e, int k, unsigned long progress);   /* edge k now: 0 or -errno */
/* after edge 2, for a cycle window of @cycles cycles; a stalled window: no pair (its counts and cycles still add) */
void tcp_pairs_add(struct tcp_pairs *p, const struct tcp_edges *e, int cycles);
enum { TCP_PAIRS_NOT_WORSE, TCP_PAIRS_WORSE, TCP_PAIRS_TOO_FEW };
/* The gate's size (tcp_pairs_report() says why these numbers): the cycle windows may reorder at this many times
 * the kernel windows' rate per second, ... */
#define TCP_PAIRS_GATE_RATE 1.5
/* ... plus this many out-of-order arrivals a cycle */
#define TCP_PAIRS_GATE_EXCESS 1.0
/* the TAG line (LOOPTCP, K06TCP): totals, rates, the excess per cycle beyond TCP_PAIRS_GATE_RATE times the kernel
 * windows' rate, the p values (significant: the out-of-order tests per MiB and per second both < p_fail); the
 * verdict: worse when that excess is over TCP_PAIRS_GATE_EXCESS and the tests are significant */
int tcp_pairs_report(const char *tag, const struct tcp_pairs *p, int min_pairs, double p_fail, int gated);

/* ---- engine_irq.c ---- */
void engine_irq_rps(uint64_t bytes);  /* eth0 attached, its interrupt moving between CPUs, RPS off and on */

/* ---- unbind.c ---- */
void engine_unbind(uint64_t bytes);   /* eth0's virtio device unbound from virtio_net under a stream, then rebound */

/* ---- demo.c ---- */
/* The three engines side by side on the demo's scenarios (README, "The demo"): mib per engine per stream
 * scenario; irqtime: the kernel has CONFIG_IRQ_TIME_ACCOUNTING. Records failures. */
void demo(unsigned mib, int irqtime);
/* ---- udpgro.c ---- */
void demo_udp_gro(void);   /* the demo's UDP_GRO receiver over IPIP, kernel GRO vs tungro's engine (U01) */

/* ---- wstats.c ---- */
/* Exact one-sided Wilcoxon signed-rank test: P(W+ <= observed) under H0 for the paired differences d[0..n-1]
 * (zeros dropped, ties given average ranks); small when the differences lean negative. 1.0 with no non-zero d. */
double wilcoxon_p_below(const double *d, int n);
/* Mean of x[0..n-1] and the half-width of its two-sided 95% Student t interval (0 when n < 2). */
void mean_ci95(const double *x, int n, double *mean, double *half);
/* The comparisons' second test, on cuts per PSH mark: c[0..n-1] per window pair, kernel minus tungro GRO packets
 * per PSH mark (negative: tungro cut more per push). With min_pairs or more pairs, the Wilcoxon p of c (the check
 * fails only when this and the segments-per-packet test are both below the threshold); with fewer, 0 (that test
 * alone decides). desc says which, for the check's message. */
double cut_test_p(const double *c, int n, int min_pairs, char *desc, size_t cap);

/* ---- trace.c ---- */
/* tungro's tracepoints through tracefs during an IPIP stream (offload) and a plain one on attached eth0 (engine),
 * against debugfs; loads tungro (nothing attached) and unloads it after. Skipped, saying so, on m68k (no event
 * tracing there). */
void trace_checks(uint64_t bytes);

/* ---- conform.c ---- */
void conform(void);        /* wire conformance, kernel engine then tungro; records failures */

#endif
