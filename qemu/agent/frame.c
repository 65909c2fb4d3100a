/* frame.c - the crafted frames of frame.h: building (headers, checksums, payload) and sending them from eth1. */
#include "agent.h"
#include "frame.h"

#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

unsigned char g_mac_rx[6], g_mac_tx[6];
static int g_txfd = -1, g_tx_ifindex;


uint32_t csum_add(uint32_t s, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	return s;
}

uint16_t csum_fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}


const unsigned char A_OUT_SRC[4] = { 198, 18, 0, 2 }, A_OUT_DST[4] = { 198, 18, 0, 1 };
const unsigned char A_IN_SRC[4] = { 198, 19, 1, 2 }, A_IN_DST[4] = { 198, 19, 1, 1 };
const unsigned char A6_SRC[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0x41, [15] = 2 };
const unsigned char A6_DST[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0x41, [15] = 1 };
const unsigned char A6O_SRC[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0x18, [15] = 2 };
const unsigned char A6O_DST_4IN6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0x18, [15] = 1 };
const unsigned char A6O_DST_6IN6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0x18, [15] = 0x11 };
const char *const g_enc_name[N_ENC] = { "ip4", "ip6", "ipip", "sit", "ip4ip6", "ip6ip6" };

/* the kernel takes this unknown option from IP_OPTIONS with CAP_NET_RAW (ip_options_compile): the demo's streams */
const unsigned char g_dsr_option[8] = { 0x9e, 8, 198, 51, 100, 10, 0x1f, 0x51 };
const struct ipopt g_ipopt_deny[N_IPOPT_DENY] = {
	{ "lsrr", 8, { 131, 7, 4, 198, 18, 0, 9, 1 } },    /* one address to visit, then a NOP */
	{ "ssrr", 8, { 137, 7, 4, 198, 18, 0, 9, 1 } },
	{ "rr", 8, { 7, 7, 4, 0, 0, 0, 0, 1 } },            /* room for one address */
	{ "ts", 8, { 68, 8, 5, 0, 0, 0, 0, 0 } },           /* timestamps only, room for one */
	{ "ra", 4, { 148, 4, 0, 0 } },                      /* router alert, value 0 */
	{ "sec", 12, { 130, 11 } },                         /* RFC 791 security, unclassified */
};

unsigned char pay_byte(int flow, uint32_t pos)
{
	return (unsigned char)(pos * 31u + (unsigned)flow * 7u + 0x5au + (pos >> 8));
}

unsigned char dgram_byte(int flow, uint32_t seq, int i)
{
	return i < 4 ? (unsigned char)(seq >> (24 - 8 * i)) : pay_byte(flow, seq + (uint32_t)i);
}

/* IHL of an IPv4 header with optlen option bytes, else the knob's (0: 5) */
static int ip4_ihl(int optlen, int ihl)
{
	return optlen ? 5 + (optlen + 3) / 4 : ihl ? ihl : 5;
}

/* opt: optlen option bytes (then end of list up to IHL), or NULL: NOPs then end of list */
static void ip4_hdr(unsigned char *h, int ihl, unsigned tot, uint8_t tos, int id, int df, int mf, uint8_t ttl,
		    int proto, const unsigned char *src, const unsigned char *dst, const unsigned char *opt, int optlen)
{
	int hl = ihl < 5 ? 20 : ihl * 4;   /* a bad IHL below 5 still gets a 20-byte header on the wire */
	memset(h, 0, (size_t)hl);
	h[0] = (unsigned char)(0x40 | (ihl & 15));
	h[1] = tos;
	put16(h + 2, tot);
	put16(h + 4, (unsigned)id & 0xffff);
	put16(h + 6, (df ? 0x4000u : 0) | (mf ? 0x2000u : 0));
	h[8] = ttl;
	h[9] = (unsigned char)proto;
	memcpy(h + 12, src, 4);
	memcpy(h + 16, dst, 4);
	if (optlen)
		memcpy(h + 20, opt, (size_t)optlen);
	else
		for (int i = 20; i < hl; i++)
			h[i] = i == hl - 1 ? 0 : 1;   /* NOPs then EOL */
	put16(h + 10, csum_fold(csum_add(0, h, (size_t)hl)));
}

static void ip6_hdr(unsigned char *h, uint8_t tclass, uint32_t flowlabel, unsigned plen, int nexthdr, uint8_t hlim,
		    const unsigned char *src, const unsigned char *dst)
{
	put32(h, 0x60000000u | (uint32_t)tclass << 20 | (flowlabel & 0xfffff));
	put16(h + 4, plen);
	h[6] = (unsigned char)nexthdr;
	h[7] = hlim;
	memcpy(h + 8, src, 16);
	memcpy(h + 24, dst, 16);
}

/* the 8-byte destination options header of a Linux ip6 tunnel (ip6_tunnel.c's init_tel_txopt): the tunnel
 * encapsulation limit option (type 4, length 1, the limit), then PadN of one byte */
static void ip6_enclim(unsigned char *x, int nexthdr, int limit)
{
	const unsigned char o[8] = { (unsigned char)nexthdr, 0, 4, 1, (unsigned char)limit, 1, 1, 0 };
	memcpy(x, o, sizeof(o));
}

/* The outer headers an ip6ip6 tunnel of net.c (ip6ip6t: hop limit 64, encapsulation limit 4, traffic class and flow
 * label 0) puts in front of an inner IPv6 packet of inner_len bytes, on the wire from eth1 to eth0: Ethernet, the
 * outer IPv6 A6O_SRC -> A6O_DST_6IN6 and its destination option. Written at f, FRAME_6IN6_OUTER bytes, the inner
 * packet to follow; for relay6.c, which carries gro.c's frames over ip6ip6 this way. */
void frame_6in6_outer(unsigned char *f, unsigned inner_len)
{
	memcpy(f, g_mac_rx, 6);
	memcpy(f + 6, g_mac_tx, 6);
	put16(f + 12, ETH_P_IPV6);
	ip6_hdr(f + 14, 0, 0, inner_len + 8, 60, 64, A6O_SRC, A6O_DST_6IN6);
	ip6_enclim(f + 54, 41, 4);
}

/* next header value of an extension header of struct sd's v6ext_type */
static int v6ext_nexthdr(int type)
{
	return type == V6X_HOP ? 0 : type ? type : 60;
}

/* the IPv6 extension header of struct sd's v6ext at x (xl bytes) before the transport (l4proto) */
static void ip6_ext(unsigned char *x, int xl, int type, int l4proto)
{
	memset(x, 0, (size_t)xl);
	x[0] = (unsigned char)l4proto;
	if (type == 44)
		return;   /* an atomic fragment: offset 0, M 0, 8 bytes whatever xl says */
	x[1] = (unsigned char)(xl / 8 - 1);
	if (type == 43)
		return;   /* routing type 0, segments left 0: ignored by a host */
	/* PadN of 4, then unknown options to skip (type 0x1e) of 8 bytes: the kernel refuses more than 7 bytes
	 * of padding in a row */
	x[2] = 1;
	x[3] = 4;
	for (int o = 8; o + 8 <= xl; o += 8) {
		x[o] = 0x1e;
		x[o + 1] = 6;
	}
}

/* the mutations of a hostile frame; pos[]: each layer's offset in f (-1 absent), s: the TCP pseudo-header sum */
static void apply_muts(const struct sd *d, unsigned char *f, int len, const int pos[], uint32_t s, int l4)
{
	for (int m = 0; m < FRAME_NMUT; m++) {
		const struct fmut *u = &d->mut[m];
		if (u->layer == ML_NONE || pos[u->layer] < 0)
			continue;
		int at = pos[u->layer] + u->off, w = u->mode >= MM_SET16 ? 2 : 1;
		if (at < 0 || at + w > len)
			continue;
		if (u->mode == MM_SET8)
			f[at] = (unsigned char)u->val;
		else if (u->mode == MM_XOR8)
			f[at] ^= (unsigned char)u->val;
		else
			put16(f + at, (unsigned)((u->mode == MM_ADD16 ? (int)get16(f + at) : 0) + u->val) & 0xffff);
		if (u->nofix)
			continue;
		unsigned char *h = f + pos[u->layer];
		if (u->layer == ML_L4 && !d->icmp && pos[ML_L4] + l4 <= len) {
			int co = d->udp ? 6 : 16;
			put16(h + co, 0);
			put16(h + co, csum_fold(csum_add(s, h, (size_t)l4)) ^ (d->badcsum ? 0x1234 : 0));
		} else if (u->layer != ML_ETH && u->layer != ML_L4 && (h[0] >> 4) == 4) {
			int hl = (h[0] & 15) * 4 < 20 ? 20 : (h[0] & 15) * 4;
			if (pos[u->layer] + hl <= len) {
				put16(h + 10, 0);
				put16(h + 10, csum_fold(csum_add(0, h, (size_t)hl)));
			}
		}
	}
}

/* Offset and length of tunnel layer l (0 the outermost) in the frame. With an IPv4 outer header the case's own
 * outer header (ohl bytes) comes first, then the extra (nested) IPIP headers; with an IPv6 one the extra IPv4 (SIT)
 * headers come first, then the IPv6 header and its extension header (ohl bytes together). */
static int layer_off(int o6, int nest, int ohl, int l, int *len)
{
	if (o6) {
		*len = l < nest ? 20 : ohl;
		return 14 + 20 * l;
	}
	*len = l ? 20 : ohl;
	return 14 + (l ? ohl + (l - 1) * 20 : 0);
}

int build_frame(const struct sd *d, unsigned char *f)
{
	int v6 = enc_inner6(d->enc), o6 = enc_outer6(d->enc);
	int tun = d->enc != E_P4 && d->enc != E_P6;
	int thl = d->icmp || d->udp ? 8 : (d->ts ? 32 : 20) + d->topt;
	int l4 = thl + d->pay;
	int ihl = ip4_ihl(d->optlen, d->ihl), oihl = ip4_ihl(d->ooptlen, d->oihl);
	int xl = v6 && d->v6ext ? (d->v6ext_type == 44 ? 8 : d->v6ext * 8) : 0;
	int inner_hl = v6 ? 40 + xl : (ihl < 5 ? 20 : ihl * 4);
	int ohl = o6 ? 40 + (d->oext ? 8 : 0) : oihl < 5 ? 20 : oihl * 4;
	int layers = tun ? 1 + d->nest : 0;
	int hdrs = 14 + (layers ? ohl + (layers - 1) * 20 : 0) + inner_hl;
	unsigned char *p = f + hdrs;

	memcpy(f, g_mac_rx, 6);
	memcpy(f + 6, g_mac_tx, 6);
	put16(f + 12, (tun ? o6 && !d->nest : v6) ? ETH_P_IPV6 : ETH_P_IP);
	/* L4 first: its checksum covers the payload */
	if (d->icmp) {
		memset(p, 0, 8);
		p[0] = v6 ? 128 : 8;
		put16(p + 4, 0x7467);
		put16(p + 6, (unsigned)d->idx);
	} else if (d->udp) {
		put16(p, (unsigned)(SPORT0 + d->portf));
		put16(p + 2, DPORT);
		put16(p + 4, (unsigned)l4);
		put16(p + 6, 0);
	} else {
		memset(p, 0, (size_t)thl);
		put16(p, (unsigned)(SPORT0 + d->portf));
		put16(p + 2, DPORT);
		put32(p + 4, d->seq);
		put32(p + 8, d->ack);
		p[12] = (unsigned char)((d->doff ? d->doff : thl / 4) << 4);
		p[13] = (unsigned char)d->tflags;
		put16(p + 14, d->win);
		if (d->ts) {
			p[20] = 1; p[21] = 1; p[22] = 8; p[23] = 10;
			put32(p + 24, d->tsval);
			put32(p + 28, 0x01020304);
		}
		memset(p + thl - d->topt, 1, (size_t)d->topt);   /* NOPs */
	}
	for (int i = 0; i < d->pay; i++)
		p[thl + i] = d->udp ? dgram_byte(d->flow, d->seq, i) : pay_byte(d->flow, d->seq + (uint32_t)i);
	uint32_t s;
	int l4proto = d->icmp ? (v6 ? 58 : 1) : d->udp ? 17 : 6;
	if (v6) {
		unsigned char ph[8] = { 0 };
		put32(ph, (uint32_t)l4);
		ph[7] = (unsigned char)l4proto;
		s = csum_add(csum_add(csum_add(0, A6_SRC, 16), A6_DST, 16), ph, 8);
	} else if (d->icmp) {
		s = 0;   /* ICMPv4 has no pseudo header */
	} else {
		unsigned char ph[4] = { 0, (unsigned char)l4proto, 0, 0 };
		put16(ph + 2, (unsigned)l4);
		s = csum_add(csum_add(csum_add(0, A_IN_SRC, 4), A_IN_DST, 4), ph, 4);
	}
	uint16_t c = csum_fold(csum_add(s, p, (size_t)l4));
	if (d->udp && !c)
		c = 0xffff;   /* a sum of 0 goes as all ones: 0 says "no checksum" (RFC 768) */
	if (d->badcsum)
		c ^= 0x1234;
	if (d->udp_csum0)
		c = 0;
	put16(p + (d->icmp ? 2 : d->udp ? 6 : 16), c);

	/* inner (or only) network header */
	unsigned char *nh = p - inner_hl;
	if (v6) {
		int nx = xl ? v6ext_nexthdr(d->v6ext_type) : l4proto;
		ip6_hdr(nh, d->tos, d->flowlabel, (unsigned)(xl + l4), nx, d->ttl, A6_SRC, A6_DST);
		if (xl)
			ip6_ext(nh + 40, xl, d->v6ext_type, l4proto);
	} else {
		ip4_hdr(nh, ihl, (unsigned)(inner_hl + l4), d->tos, d->id, d->df, d->mf, d->ttl, l4proto, A_IN_SRC,
			A_IN_DST, d->opt, d->optlen);
	}
	/* tunnel layers, innermost first; the case's outer fields go to its outer header (the outermost IPv4, or the
	 * IPv6 of an ip6 tunnel) */
	unsigned tot = (unsigned)(inner_hl + l4);
	int proto = v6 ? 41 : 4;
	for (int l = layers - 1; l >= 0; l--) {
		int hl, at = layer_off(o6, d->nest, ohl, l, &hl);
		unsigned char *oh = f + at;
		if (o6 && l == d->nest) {
			int ox = d->oext == OX_ENCLIM ? 60 : d->oext;
			ip6_hdr(oh, d->otos, d->oflowlabel, tot + (unsigned)(hl - 40), d->oext ? ox : proto, d->ottl, A6O_SRC,
				d->enc == E_4IN6 ? A6O_DST_4IN6 : A6O_DST_6IN6);
			if (d->oext == OX_ENCLIM)
				ip6_enclim(oh + 40, proto, 4);
			else if (d->oext)
				ip6_ext(oh + 40, 8, d->oext, proto);
			proto = 41;
		} else if (l == 0 && !o6) {
			ip4_hdr(oh, oihl, tot + (unsigned)hl + (unsigned)d->otot_delta, d->otos, d->oid, d->odf, 0, d->ottl,
				proto, A_OUT_SRC, A_OUT_DST, d->oopt, d->ooptlen);
			proto = 4;
		} else {
			ip4_hdr(oh, 5, tot + 20, 0, 0, 1, 0, 64, proto, A_OUT_SRC, A_OUT_DST, NULL, 0);
			proto = 4;
		}
		tot += (unsigned)hl;
	}
	int len = hdrs + l4;
	if (d->trunc && tun && !o6) {
		/* the outer header is consistent with the cut frame: only the inner one is incomplete */
		put16(f + 16, (unsigned)(d->trunc - 14));
		put16(f + 24, 0);
		put16(f + 24, csum_fold(csum_add(0, f + 14, (size_t)ohl)));
	}
	if (d->pad) {
		memset(f + len, 0, (size_t)d->pad);
		len += d->pad;
	}
	int hl1;
	const int pos[] = { [ML_NONE] = -1, [ML_ETH] = 0, [ML_OUT] = layers ? 14 : -1,
			    [ML_MID] = layers > 1 ? layer_off(o6, d->nest, ohl, 1, &hl1) : -1, [ML_IN] = (int)(nh - f),
			    [ML_L4] = (int)(p - f) };
	apply_muts(d, f, len, pos, s, l4);
	if (d->trunc && d->trunc < len)
		len = d->trunc;
	return len;
}

void sd_default(struct sd *d, int enc, int flow)
{
	memset(d, 0, sizeof(*d));
	d->enc = enc;
	d->flow = flow;
	d->portf = flow;
	d->pay = MSS;
	d->tflags = 0x10;   /* ACK */
	d->ack = 0x10000;
	d->win = 512;
	d->ttl = 64;
	d->df = 1;
	d->id = -1;         /* -1: incrementing, assigned by frames_number() */
	d->ottl = 64;
	d->odf = 1;
	d->oid = 0;
}

void frames_number(struct sd *s, int n)
{
	uint32_t next[FRAME_MAXFLOWS];
	int idx[FRAME_MAXFLOWS], ids[FRAME_MAXFLOWS];
	for (int f = 0; f < FRAME_MAXFLOWS; f++) {
		next[f] = 1000000u * (uint32_t)(f + 1);
		idx[f] = 0;
		ids[f] = 1000 + 100 * f;
	}
	for (int i = 0; i < n; i++) {
		struct sd *d = &s[i];
		int f = d->flow;
		next[f] += (uint32_t)d->seq_gap;
		d->seq = next[f];
		if (!d->junk)
			d->idx = ++idx[f];
		if (!d->icmp && !d->junk)
			next[f] += (uint32_t)d->pay;
		/* a junk frame is not a segment of the flow: it takes no IP ID, so the flow's IDs stay consecutive */
		if (d->id < 0)
			d->id = d->junk ? ids[f] : ids[f]++;
	}
}

static int read_mac6(const char *path, unsigned char mac[6])
{
	char buf[64];
	unsigned m[6];
	if (read_file(path, buf, sizeof(buf)) ||
	    sscanf(buf, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5]) != 6)
		return -1;
	for (int i = 0; i < 6; i++)
		mac[i] = (unsigned char)m[i];
	return 0;
}

int frames_tx_open(const char *who)
{
	int rc;
	if (g_txfd >= 0)
		return 0;
	if (read_mac6("/sys/class/net/eth0/address", g_mac_rx)) {
		fail("%s: read eth0 MAC", who);
		return -1;
	}
	/* the sender socket is created in the sender namespace and stays bound to its eth1 */
	if ((rc = enter_ns(g_sender_ns))) {
		fail("%s: setns sender: %s", who, strerror(-rc));
		return -1;
	}
	int mac_ok = read_mac6("/sys/class/net/eth1/address", g_mac_tx) == 0;
	g_tx_ifindex = (int)if_nametoindex("eth1");
	g_txfd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);   /* protocol 0: send only */
	int e = errno;
	if ((rc = enter_ns(g_init_ns))) {
		fail("%s: setns back: %s", who, strerror(-rc));
		return -1;
	}
	if (g_txfd < 0 || !g_tx_ifindex) {
		fail("%s: sender packet socket on eth1: %s", who, strerror(e));
		return -1;
	}
	if (!mac_ok) {
		/* sysfs shows the initial namespace's devices: take eth1's MAC from the socket's interface */
		struct ifreq ifr;
		memset(&ifr, 0, sizeof(ifr));
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "eth1");
		if (ioctl(g_txfd, SIOCGIFHWADDR, &ifr) < 0) {
			fail("%s: eth1 MAC: %s", who, strerror(errno));
			return -1;
		}
		memcpy(g_mac_tx, ifr.ifr_hwaddr.sa_data, 6);
	}
	return 0;
}

#define SEND_BATCH 64

int frames_send(const struct sd *s, int n)
{
	static unsigned char frames[SEND_BATCH][MAXFRAME];
	struct mmsghdr mm[SEND_BATCH];
	struct iovec iov[SEND_BATCH];
	struct sockaddr_ll to = { .sll_family = AF_PACKET, .sll_ifindex = g_tx_ifindex, .sll_halen = 6 };

	memcpy(to.sll_addr, g_mac_rx, 6);
	/* one syscall per 64 frames, so a train reaches the receiver within as few NAPI cycles as we can help */
	for (int base = 0; base < n; base += SEND_BATCH) {
		int k = n - base < SEND_BATCH ? n - base : SEND_BATCH;
		memset(mm, 0, sizeof(mm));
		for (int i = 0; i < k; i++) {
			iov[i].iov_base = frames[i];
			iov[i].iov_len = (size_t)build_frame(&s[base + i], frames[i]);
			mm[i].msg_hdr.msg_iov = &iov[i];
			mm[i].msg_hdr.msg_iovlen = 1;
			mm[i].msg_hdr.msg_name = &to;
			mm[i].msg_hdr.msg_namelen = sizeof(to);
		}
		for (int sent = 0; sent < k;) {
			int r = sendmmsg(g_txfd, mm + sent, (unsigned)(k - sent), 0);
			if (r < 0)
				return -errno;
			sent += r;
		}
	}
	return 0;
}
