/* frame.h - crafted Ethernet frames of TCP segments and UDP datagrams (plain IPv4/IPv6, IPIP, SIT, ip4ip6, ip6ip6)
 * sent from the sender namespace's eth1 by AF_PACKET: the frame builder shared by the wire conformance run
 * (conform.c, hostile.c) and the demo's crafted trains (demo.c). Addresses are net.c's: outer 198.18.0.2 ->
 * 198.18.0.1, inner 198.19.1.2 -> 198.19.1.1 (IPIP, plain IPv4, ip4ip6), 2001:db8:41::2 -> ::1 (SIT, plain IPv6,
 * ip6ip6); the ip6 tunnels' outer IPv6 2001:db8:18::2 -> ::1 (ip4ip6) or ::11 (ip6ip6).
 */
#ifndef TUNGRO_FRAME_H
#define TUNGRO_FRAME_H

#include <stddef.h>
#include <stdint.h>

enum encap { E_P4, E_P6, E_IPIP, E_SIT, E_4IN6, E_6IN6, N_ENC };
extern const char *const g_enc_name[N_ENC];   /* "ip4", "ip6", "ipip", "sit", "ip4ip6", "ip6ip6" */

/* struct sd's oext: the outer IPv6 header's extension header (ip4ip6, ip6ip6), 8 bytes */
#define OX_NONE 0
#define OX_ENCLIM 1             /* destination options with the tunnel encapsulation limit, as Linux ip6 tunnels add */
#define OX_FRAG 44              /* an atomic fragment header (offset 0, M 0) */

/* struct sd's v6ext_type beside 0 (destination options), 43 (routing) and 44 (fragment): hop-by-hop, whose type
 * is 0 on the wire */
#define V6X_HOP 0x100

/* IPv4 options of the O cases, real bytes. The DSR option: an unassigned experimental type with the copied flag
 * (0x9e: copy 1, class 0, number 30, RFC 4727), length 8, a service address (198.51.100.10) and port, as direct
 * server return load balancers carry it; the demo's ipopt streams (IP_OPTIONS), KUnit and host tests use these
 * bytes. The deny-list's kinds (O06), each well formed (RFC 791 3.1, RFC 1108, RFC 2113). */
#define IPOPT_MAX 40
extern const unsigned char g_dsr_option[8];
struct ipopt {
	const char *name;
	int len;
	unsigned char b[12];
};
#define N_IPOPT_DENY 6
extern const struct ipopt g_ipopt_deny[N_IPOPT_DENY];   /* lsrr, ssrr, rr, ts, ra, sec */

#define MSS 1400
#define DPORT 7777
#define SPORT0 40000
#define MAXFRAME 1600
#define FRAME_MAXFLOWS 64       /* flows frames_number() keeps apart (struct sd.flow 0..63) */

/* A byte-level change applied after the frame is built (hostile frames): at offset off of a layer, 8- or 16-bit,
 * then the layer's checksum (IPv4 header, TCP) is computed again unless nofix. */
enum mut_layer { ML_NONE, ML_ETH, ML_OUT, ML_MID, ML_IN, ML_L4 };   /* MID: the IPv4 layer under the outermost */
enum mut_mode { MM_SET8, MM_XOR8, MM_SET16, MM_ADD16 };
struct fmut {
	signed char layer, mode, nofix;
	short off;
	int val;
};
#define FRAME_NMUT 2

/* One sent frame. Fields marked "from" apply to this segment only; cases set them per index. */
struct sd {
	int enc, flow, nest;          /* nest: extra IPv4 layers (IPIP; SIT around an outer IPv6) outside the outer header */
	int portf;                    /* source port SPORT0 + portf (flows may share ports) */
	int pay;                      /* TCP payload (or ICMP data) bytes */
	int icmp;                     /* ICMP/ICMPv6 echo instead of TCP */
	unsigned tflags;              /* TCP flags byte */
	int seq_gap;                  /* bytes skipped before this segment */
	uint32_t ack; uint16_t win;
	int ts; uint32_t tsval;
	int badcsum, doff;            /* doff 0 = computed */
	/* the inner (or only) IP header */
	uint8_t ttl, tos; int df; int id; int ihl; int mf; uint32_t flowlabel;
	/* outer IPv4 of a tunnel; for an outer IPv6: ottl the hop limit, otos the traffic class, and its flow label and
	 * extension header (OX_*) */
	uint8_t ottl, otos; int odf; int oid; int otot_delta;
	uint32_t oflowlabel; int oext;
	int pad;                      /* bytes after the IP packet (Ethernet padding) */
	int trunc;                    /* frame cut to this many bytes (junk) */
	int junk;                     /* receiver cannot parse it: counted as x */
	/* hostile-frame knobs: outermost IPv4 IHL (0 = 5), TCP option bytes after the timestamps (NOPs, a multiple
	 * of 4), an IPv6 extension header of v6ext * 8 bytes (type v6ext_type, 0 = destination options), mutations */
	int oihl, topt, v6ext, v6ext_type;
	struct fmut mut[FRAME_NMUT];
	/* IPv4 options: opt in the inner (or only) IPv4 header, oopt in the outer one (outermost IPv4 of IPIP and
	 * SIT); optlen bytes each (0 none, up to IPOPT_MAX), padded with end of list to IHL; ihl/oihl ignored then */
	unsigned char opt[IPOPT_MAX], oopt[IPOPT_MAX];
	int optlen, ooptlen;
	/* a UDP datagram instead of a TCP segment: payload bytes from dgram_byte() (the first four are its seq),
	 * udp_csum0: checksum field 0 (none sent) */
	int udp, udp_csum0;
	uint32_t seq;                 /* filled in by frames_number() */
	int idx;                      /* 1-based index within its flow */
};

extern unsigned char g_mac_rx[6], g_mac_tx[6];   /* eth0 (receiver), eth1 (sender) */
extern const unsigned char A_OUT_SRC[4], A_OUT_DST[4], A_IN_SRC[4], A_IN_DST[4], A6_SRC[16], A6_DST[16];
extern const unsigned char A6O_SRC[16], A6O_DST_4IN6[16], A6O_DST_6IN6[16];   /* outer IPv6 of the ip6 tunnels */

static inline void put16(unsigned char *p, unsigned v) { p[0] = (unsigned char)(v >> 8); p[1] = (unsigned char)v; }
static inline void put32(unsigned char *p, uint32_t v) { put16(p, v >> 16); put16(p + 2, v & 0xffff); }
static inline unsigned get16(const unsigned char *p) { return (unsigned)p[0] << 8 | p[1]; }
static inline uint32_t get32(const unsigned char *p) { return (uint32_t)get16(p) << 16 | get16(p + 2); }

uint32_t csum_add(uint32_t s, const unsigned char *p, size_t n);   /* ones' complement sum, big-endian words */
uint16_t csum_fold(uint32_t s);
unsigned char pay_byte(int flow, uint32_t pos);   /* payload byte at TCP sequence pos of a flow */
/* payload byte i of a flow's UDP datagram whose seq is seq: the seq big-endian in bytes 0-3, so a receiver maps a
 * datagram (or each gso_size piece of a UDP GRO packet) back to the sent one, then pay_byte(flow, seq + i) */
unsigned char dgram_byte(int flow, uint32_t seq, int i);

void sd_default(struct sd *d, int enc, int flow);  /* a full-sized ACK segment with the usual header fields */
void frames_number(struct sd *s, int n);           /* sequence numbers, per-flow indices, incrementing IDs */
int build_frame(const struct sd *d, unsigned char *f);   /* f: MAXFRAME bytes; returns the frame length */

/* Ethernet eth1 -> eth0 and the outer IPv6 of an ip6ip6 tunnel with its encapsulation limit option (8 bytes), in
 * front of an inner IPv6 packet of inner_len bytes; FRAME_6IN6_OUTER bytes at f */
#define FRAME_6IN6_OUTER (14 + 40 + 8)
void frame_6in6_outer(unsigned char *f, unsigned inner_len);

static inline int enc_outer6(int enc) { return enc == E_4IN6 || enc == E_6IN6; }
static inline int enc_inner6(int enc) { return enc == E_P6 || enc == E_SIT || enc == E_6IN6; }

/* eth0/eth1 MACs and the sender's AF_PACKET socket on eth1: 0, or -1 after fail() naming the step (who) */
int frames_tx_open(const char *who);
int frames_send(const struct sd *s, int n);        /* n frames, in order: 0 or -errno */

#endif
