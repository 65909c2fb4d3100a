/* net.c - namespaces, links, addresses, neighbours and tunnels of the guest, by rtnetlink; FOU/GUE ports by
 * generic netlink. */
#include "agent.h"

#include <arpa/inet.h>
#include <net/if.h>   /* before the linux/ headers, so libc-compat.h skips their duplicate if.h definitions */
#include <errno.h>
#include <fcntl.h>
#include <linux/fou.h>
#include <linux/genetlink.h>
#include <linux/if_link.h>
#include <linux/ethtool.h>
#include <linux/if_tunnel.h>
#include <linux/ip6_tunnel.h>
#include <linux/neighbour.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <linux/veth.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

int g_init_ns = -1;
int g_sender_ns = -1;

#define RX_UNDERLAY "198.18.0.1"
#define TX_UNDERLAY "198.18.0.2"
/* the IPv6 underlay of the ip6 tunnels (ip4ip6, ip6ip6), on the same links */
#define RX6_UNDERLAY "2001:db8:18::1"
#define TX6_UNDERLAY "2001:db8:18::2"

int enter_ns(int fd)
{
	return setns(fd, CLONE_NEWNET) ? -errno : 0;
}

/* ---- minimal netlink message building ---- */

struct nlbuf {
	union {
		struct nlmsghdr h;
		char raw[1024];
	} u;
};

static void *nl_start(struct nlbuf *b, int type, int flags, size_t hdrlen)
{
	memset(b, 0, sizeof(*b));
	b->u.h.nlmsg_len = NLMSG_LENGTH(hdrlen);
	b->u.h.nlmsg_type = (unsigned short)type;
	b->u.h.nlmsg_flags = (unsigned short)(NLM_F_REQUEST | NLM_F_ACK | flags);
	return NLMSG_DATA(&b->u.h);
}

static struct rtattr *nl_put(struct nlbuf *b, int type, const void *data, size_t len)
{
	size_t off = NLMSG_ALIGN(b->u.h.nlmsg_len);
	if (off + RTA_SPACE(len) > sizeof(b->u.raw))
		die("netlink message too large (attr %d)", type);   /* a bug here, not a run-time condition */
	struct rtattr *a = (struct rtattr *)(b->u.raw + off);
	a->rta_type = (unsigned short)type;
	a->rta_len = (unsigned short)RTA_LENGTH(len);
	if (len)
		memcpy(RTA_DATA(a), data, len);
	b->u.h.nlmsg_len = (unsigned)(off + RTA_SPACE(len));
	return a;
}

static void nl_put_u32(struct nlbuf *b, int type, uint32_t v) { nl_put(b, type, &v, 4); }
static void nl_put_u16(struct nlbuf *b, int type, uint16_t v) { nl_put(b, type, &v, 2); }
static void nl_put_u8(struct nlbuf *b, int type, uint8_t v) { nl_put(b, type, &v, 1); }
static void nl_put_str(struct nlbuf *b, int type, const char *s) { nl_put(b, type, s, strlen(s) + 1); }

static void nl_nest_end(struct nlbuf *b, struct rtattr *nest)
{
	nest->rta_len = (unsigned short)(b->u.raw + b->u.h.nlmsg_len - (char *)nest);
}

static int nl_open(int protocol)   /* NETLINK_ROUTE or NETLINK_GENERIC */
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, protocol);
	if (fd < 0)
		return -errno;
	struct timeval tv = { .tv_sec = 5 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	int one = 1;
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));   /* kernel's reason text on errors */
	return fd;
}

/* Sends one request, waits for its ack. Returns 0 or -errno; on error, the kernel's message (if any) in why.
 * Answers to the request other than the ack (a generic netlink family's description) go to on_reply. */
typedef void (*nl_reply_fn)(const struct nlmsghdr *h, void *arg);

static int nl_talk(int fd, struct nlbuf *b, nl_reply_fn on_reply, void *arg, char *why, size_t whycap)
{
	static unsigned seq;
	struct sockaddr_nl k = { .nl_family = AF_NETLINK };
	why[0] = 0;
	b->u.h.nlmsg_seq = ++seq;
	if (sendto(fd, b->u.raw, b->u.h.nlmsg_len, 0, (struct sockaddr *)&k, sizeof(k)) < 0)
		return -errno;
	for (;;) {
		union {
			struct nlmsghdr h;
			char raw[8192];
		} r;
		ssize_t n = recv(fd, r.raw, sizeof(r.raw), 0);
		if (n < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		for (struct nlmsghdr *h = &r.h; NLMSG_OK(h, (unsigned)n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type != NLMSG_ERROR) {
				if (on_reply)
					on_reply(h, arg);
				continue;
			}
			struct nlmsgerr *e = NLMSG_DATA(h);
			if (e->error && (h->nlmsg_flags & NLM_F_ACK_TLVS)) {
				/* attributes follow the echoed request header (capped: only the header is echoed) */
				size_t off = NLMSG_LENGTH(sizeof(*e));
				if (!(h->nlmsg_flags & NLM_F_CAPPED))
					off += NLMSG_ALIGN(e->msg.nlmsg_len) - NLMSG_HDRLEN;
				struct rtattr *a = (struct rtattr *)((char *)h + off);
				int left = (int)h->nlmsg_len - (int)off;
				for (; RTA_OK(a, left); a = RTA_NEXT(a, left))
					if (a->rta_type == NLMSGERR_ATTR_MSG)
						snprintf(why, whycap, " (%s)", (char *)RTA_DATA(a));
			}
			return e->error;
		}
	}
}

/* ---- requests; each returns 0 or calls fail() with the step and errno and returns -1 ---- */

struct ctx {
	int nl;             /* rtnetlink */
	int genl;           /* generic netlink, for the "fou" family */
	uint16_t fou_family;
	int is_rx;          /* receiver side (initial namespace, eth0) */
	const char *side;   /* "receiver" or "sender", for messages */
};

static int req_fd(struct ctx *c, int fd, struct nlbuf *b, const char *what, nl_reply_fn on_reply, void *arg)
{
	char why[160];
	int rc = nl_talk(fd, b, on_reply, arg, why, sizeof(why));
	if (rc) {
		fail("net setup (%s): %s: %s%s", c->side, what, strerror(-rc), why);
		return -1;
	}
	return 0;
}

static int req(struct ctx *c, struct nlbuf *b, const char *what)
{
	return req_fd(c, c->nl, b, what, NULL, NULL);
}

static int link_index(struct ctx *c, const char *name)
{
	/* if_nametoindex opens its socket in the calling thread's namespace */
	unsigned idx = if_nametoindex(name);
	if (!idx)
		fail("net setup (%s): find interface %s: %s", c->side, name, strerror(errno));
	return (int)idx;
}

static int link_up(struct ctx *c, const char *name, int mtu)
{
	char what[160];
	struct nlbuf b;
	int idx = link_index(c, name);
	if (!idx)
		return -1;
	struct ifinfomsg *ifi = nl_start(&b, RTM_NEWLINK, 0, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = idx;
	ifi->ifi_flags = IFF_UP;
	ifi->ifi_change = IFF_UP;
	if (mtu)
		nl_put_u32(&b, IFLA_MTU, (uint32_t)mtu);
	snprintf(what, sizeof(what), "set %s up", name);
	return req(c, &b, what);
}

static int link_to_ns(struct ctx *c, const char *name, int nsfd)
{
	char what[160];
	struct nlbuf b;
	int idx = link_index(c, name);
	if (!idx)
		return -1;
	struct ifinfomsg *ifi = nl_start(&b, RTM_NEWLINK, 0, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = idx;
	nl_put_u32(&b, IFLA_NET_NS_FD, (uint32_t)nsfd);
	snprintf(what, sizeof(what), "move %s to the sender namespace", name);
	return req(c, &b, what);
}

static int addr_add(struct ctx *c, const char *dev, int family, const char *addr, int prefix)
{
	char what[160];
	struct nlbuf b;
	unsigned char bin[16];
	int idx = link_index(c, dev);
	if (!idx)
		return -1;
	if (inet_pton(family, addr, bin) != 1)
		die("bad address literal %s", addr);
	struct ifaddrmsg *ifa = nl_start(&b, RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL, sizeof(*ifa));
	ifa->ifa_family = (unsigned char)family;
	ifa->ifa_prefixlen = (unsigned char)prefix;
	ifa->ifa_index = (unsigned)idx;
	/* no duplicate address detection: the address is usable at once */
	ifa->ifa_flags = family == AF_INET6 ? IFA_F_NODAD : 0;
	size_t len = family == AF_INET ? 4 : 16;
	nl_put(&b, IFA_LOCAL, bin, len);
	nl_put(&b, IFA_ADDRESS, bin, len);
	snprintf(what, sizeof(what), "add %s/%d to %s", addr, prefix, dev);
	return req(c, &b, what);
}

static int addr_family(const char *addr)
{
	return strchr(addr, ':') ? AF_INET6 : AF_INET;
}

/* A permanent ARP (or NDP) entry, so the first stream never waits for (or loses packets to) resolution. */
static int neigh_add(struct ctx *c, const char *dev, const char *ip, const unsigned char mac[6])
{
	char what[160];
	struct nlbuf b;
	unsigned char bin[16];
	int family = addr_family(ip);
	int idx = link_index(c, dev);
	if (!idx)
		return -1;
	if (inet_pton(family, ip, bin) != 1)
		die("bad address literal %s", ip);
	struct ndmsg *nd = nl_start(&b, RTM_NEWNEIGH, NLM_F_CREATE | NLM_F_REPLACE, sizeof(*nd));
	nd->ndm_family = (unsigned char)family;
	nd->ndm_ifindex = idx;
	nd->ndm_state = NUD_PERMANENT;
	nl_put(&b, NDA_DST, bin, family == AF_INET ? 4 : 16);
	nl_put(&b, NDA_LLADDR, mac, 6);
	snprintf(what, sizeof(what), "add neighbour %s on %s", ip, dev);
	return req(c, &b, what);
}

/* encap: TUNNEL_ENCAP_NONE, or FOU/GUE towards UDP port (both sides listen on the same port). kind "ip6tnl": an
 * IPv6 underlay, proto IPPROTO_IPIP (ip4ip6) or IPPROTO_IPV6 (ip6ip6), with what "ip -6 tunnel add" sets by
 * default: hop limit 64 and encapsulation limit 4, so every packet carries the 8-byte destination option. */
static int tunnel_add(struct ctx *c, const char *kind, const char *name, const char *local, const char *remote,
		      int encap, int port, int proto)
{
	char what[160];
	struct nlbuf b;
	unsigned char l[16], r[16];
	int family = addr_family(local);
	size_t alen = family == AF_INET ? 4 : 16;
	if (inet_pton(family, local, l) != 1 || inet_pton(family, remote, r) != 1)
		die("bad tunnel address literal %s or %s", local, remote);
	struct ifinfomsg *ifi = nl_start(&b, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	nl_put_str(&b, IFLA_IFNAME, name);
	struct rtattr *info = nl_put(&b, IFLA_LINKINFO, NULL, 0);
	nl_put_str(&b, IFLA_INFO_KIND, kind);
	struct rtattr *data = nl_put(&b, IFLA_INFO_DATA, NULL, 0);
	nl_put(&b, IFLA_IPTUN_LOCAL, l, alen);
	nl_put(&b, IFLA_IPTUN_REMOTE, r, alen);
	nl_put_u8(&b, IFLA_IPTUN_TTL, 64);
	if (family == AF_INET6) {
		nl_put_u8(&b, IFLA_IPTUN_ENCAP_LIMIT, IPV6_DEFAULT_TNL_ENCAP_LIMIT);
		nl_put_u8(&b, IFLA_IPTUN_PROTO, (uint8_t)proto);
	} else {
		nl_put_u8(&b, IFLA_IPTUN_PMTUDISC, 1);
	}
	if (encap != TUNNEL_ENCAP_NONE) {
		/* source port 0: the kernel picks one from the inner flow's hash, as "encap-sport auto" does */
		nl_put_u16(&b, IFLA_IPTUN_ENCAP_TYPE, (uint16_t)encap);
		nl_put_u16(&b, IFLA_IPTUN_ENCAP_FLAGS, 0);
		nl_put_u16(&b, IFLA_IPTUN_ENCAP_SPORT, 0);
		nl_put_u16(&b, IFLA_IPTUN_ENCAP_DPORT, htons((uint16_t)port));
	}
	nl_nest_end(&b, data);
	nl_nest_end(&b, info);
	snprintf(what, sizeof(what), "create %.8s tunnel %.16s %.40s->%.40s%s%s", kind, name, local, remote,
		 encap == TUNNEL_ENCAP_FOU ? " in FOU" : encap == TUNNEL_ENCAP_GUE ? " in GUE" : "",
		 family == AF_INET ? "" : proto == IPPROTO_IPIP ? " mode ip4ip6" : " mode ip6ip6");
	return req(c, &b, what);
}

/* ---- FOU/GUE receive ports, by generic netlink ---- */

static void family_id_reply(const struct nlmsghdr *h, void *arg)
{
	struct rtattr *a = (struct rtattr *)((char *)NLMSG_DATA(h) + GENL_HDRLEN);
	int left = (int)h->nlmsg_len - (int)NLMSG_LENGTH(GENL_HDRLEN);
	for (; RTA_OK(a, left); a = RTA_NEXT(a, left))
		if (a->rta_type == CTRL_ATTR_FAMILY_ID && RTA_PAYLOAD(a) >= 2)
			memcpy(arg, RTA_DATA(a), 2);
}

/* The "fou" family's id, from the generic netlink controller (ids are assigned at registration). */
static int fou_family(struct ctx *c)
{
	struct nlbuf b;
	struct genlmsghdr *g = nl_start(&b, GENL_ID_CTRL, 0, GENL_HDRLEN);
	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	nl_put_str(&b, CTRL_ATTR_FAMILY_NAME, FOU_GENL_NAME);
	c->fou_family = 0;
	if (req_fd(c, c->genl, &b, "resolve generic netlink family \"" FOU_GENL_NAME "\" (CONFIG_NET_FOU?)",
		   family_id_reply, &c->fou_family))
		return -1;
	if (!c->fou_family) {
		fail("net setup (%s): generic netlink family " FOU_GENL_NAME ": no id in the controller's answer",
		     c->side);
		return -1;
	}
	return 0;
}

/* A UDP port whose datagrams are decapsulated: FOU (ipproto says what follows the UDP header) or GUE (the GUE
 * header says), on an IPv4 or IPv6 (fou6) underlay by family. As "ip fou add port P ipproto N [-6]" / "ip fou add
 * port P gue [-6]". */
static int fou_add(struct ctx *c, int port, int type, int ipproto, int family)
{
	char what[160];
	struct nlbuf b;
	if (!c->fou_family && fou_family(c))
		return -1;
	struct genlmsghdr *g = nl_start(&b, c->fou_family, 0, GENL_HDRLEN);
	g->cmd = FOU_CMD_ADD;
	g->version = FOU_GENL_VERSION;
	nl_put_u16(&b, FOU_ATTR_PORT, htons((uint16_t)port));
	nl_put_u8(&b, FOU_ATTR_AF, (uint8_t)family);
	nl_put_u8(&b, FOU_ATTR_TYPE, (uint8_t)type);
	if (ipproto)
		nl_put_u8(&b, FOU_ATTR_IPPROTO, (uint8_t)ipproto);
	snprintf(what, sizeof(what), "add %s port %d%s%s", type == FOU_ENCAP_GUE ? "GUE" : "FOU", port,
		 ipproto == IPPROTO_IPIP ? " ipproto 4" : ipproto == IPPROTO_IPV6 ? " ipproto 41" : "",
		 family == AF_INET6 ? " -6" : "");
	return req_fd(c, c->genl, &b, what, NULL, NULL);
}

static int read_mac(const char *dev, unsigned char mac[6])
{
	char path[96], buf[64];
	unsigned m[6];
	snprintf(path, sizeof(path), "/sys/class/net/%s/address", dev);
	int rc = read_file(path, buf, sizeof(buf));
	if (rc) {
		fail("net setup: read %s: %s", path, strerror(-rc));
		return -1;
	}
	if (sscanf(buf, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5]) != 6) {
		fail("net setup: unparsable MAC '%s' in %s", buf, path);
		return -1;
	}
	for (int i = 0; i < 6; i++)
		mac[i] = (unsigned char)m[i];
	return 0;
}

/* Sysctls of one namespace (procfs net sysctls follow the caller's namespace): DAD off before any IPv6
 * address exists; no TCP metrics cache, so a stream does not inherit ssthresh/RTT from the one before it
 * and the engines being compared start alike; ping sockets allowed. */
static int ns_sysctls(const char *side)
{
	static const char *const files[][2] = {
		{ "/proc/sys/net/ipv6/conf/all/accept_dad", "0" },
		{ "/proc/sys/net/ipv6/conf/default/accept_dad", "0" },
		{ "/proc/sys/net/ipv4/tcp_no_metrics_save", "1" },
		/* ping sockets for root: the ICMP echo flows of flows.c need no raw sockets */
		{ "/proc/sys/net/ipv4/ping_group_range", "0 0" },
	};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		int rc = write_file(files[i][0], files[i][1]);
		if (rc) {
			fail("net setup (%s): write %s to %s: %s", side, files[i][1], files[i][0], strerror(-rc));
			return -1;
		}
	}
	return 0;
}

/*
 * The tunnels of both sides. Tunnels are found on receive by their outer addresses alone (encapsulation is not part
 * of the lookup), so each FOU/GUE tunnel has its own receiver underlay address: a second address on eth0, in the
 * underlay's /24, reached from the sender through a static neighbour entry; so does each ip6 tunnel in the IPv6
 * underlay's /64 (ip6 tunnels are found by their outer addresses too, whatever their mode).
 */
static const struct tunnel_def {
	const char *kind, *name;
	int encap, port;          /* TUNNEL_ENCAP_*, UDP port of FOU/GUE */
	const char *rx_underlay;  /* receiver's outer address; the sender's is TX_UNDERLAY or TX6_UNDERLAY */
	int family;               /* of the inner addresses */
	const char *rx_inner, *tx_inner;
} g_tunnels[] = {
	{ "ipip", "ipip1", TUNNEL_ENCAP_NONE, 0, RX_UNDERLAY, AF_INET, "198.19.1.1", "198.19.1.2" },
	{ "sit", "sit1", TUNNEL_ENCAP_NONE, 0, RX_UNDERLAY, AF_INET6, "2001:db8:41::1", "2001:db8:41::2" },
	{ "ipip", "ipfou1", TUNNEL_ENCAP_FOU, 5555, "198.18.0.11", AF_INET, "198.19.2.1", "198.19.2.2" },
	{ "sit", "sitgue1", TUNNEL_ENCAP_GUE, 5556, "198.18.0.12", AF_INET6, "2001:db8:42::1", "2001:db8:42::2" },
	/* ip6tnl: the inner family says the mode (ip4ip6 or ip6ip6) */
	{ "ip6tnl", "ip4ip6t", TUNNEL_ENCAP_NONE, 0, RX6_UNDERLAY, AF_INET, "198.19.3.1", "198.19.3.2" },
	{ "ip6tnl", "ip6ip6t", TUNNEL_ENCAP_NONE, 0, "2001:db8:18::11", AF_INET6, "2001:db8:43::1", "2001:db8:43::2" },
	/* K08: FOU and GUE over IPv6 (fou6): the kernel reaches inet6_offloads[IPPROTO_IPIP] / [IPPROTO_IPV6] */
	{ "ip6tnl", "ip4fou6", TUNNEL_ENCAP_FOU, 5557, "2001:db8:18::12", AF_INET, "198.19.4.1", "198.19.4.2" },
	{ "ip6tnl", "ip6gue6", TUNNEL_ENCAP_GUE, 5558, "2001:db8:18::13", AF_INET6, "2001:db8:44::1", "2001:db8:44::2" },
};

static int side_tunnel(struct ctx *c, const struct tunnel_def *t)
{
	const char *tx = addr_family(t->rx_underlay) == AF_INET ? TX_UNDERLAY : TX6_UNDERLAY;
	const char *local = c->is_rx ? t->rx_underlay : tx, *remote = c->is_rx ? tx : t->rx_underlay;
	/* FOU names what follows the UDP header: the inner family's IP-in-IP protocol */
	if (t->encap != TUNNEL_ENCAP_NONE &&
	    fou_add(c, t->port, t->encap == TUNNEL_ENCAP_GUE ? FOU_ENCAP_GUE : FOU_ENCAP_DIRECT,
		    t->encap == TUNNEL_ENCAP_GUE ? 0 : t->family == AF_INET ? IPPROTO_IPIP : IPPROTO_IPV6,
		    addr_family(t->rx_underlay)))
		return -1;
	if (tunnel_add(c, t->kind, t->name, local, remote, t->encap, t->port,
		       t->family == AF_INET ? IPPROTO_IPIP : IPPROTO_IPV6) || link_up(c, t->name, 0))
		return -1;
	return addr_add(c, t->name, t->family, c->is_rx ? t->rx_inner : t->tx_inner, t->family == AF_INET ? 24 : 64);
}

/* The underlay of one side on ethN: up, its IPv4 and IPv6 addresses, the peer's static neighbours; the FOU/GUE and
 * ip6 tunnels' own receiver underlay addresses (on the sender: static neighbours for them). */
static int side_underlay(struct ctx *c, const char *eth, const unsigned char peer_mac[6])
{
	const char *me = c->is_rx ? RX_UNDERLAY : TX_UNDERLAY, *peer = c->is_rx ? TX_UNDERLAY : RX_UNDERLAY;
	const char *me6 = c->is_rx ? RX6_UNDERLAY : TX6_UNDERLAY, *peer6 = c->is_rx ? TX6_UNDERLAY : RX6_UNDERLAY;
	if (link_up(c, "lo", 0) || link_up(c, eth, 1500) || addr_add(c, eth, AF_INET, me, 24) ||
	    addr_add(c, eth, AF_INET6, me6, 64) || neigh_add(c, eth, peer, peer_mac) || neigh_add(c, eth, peer6, peer_mac))
		return -1;
	for (size_t i = 0; i < sizeof(g_tunnels) / sizeof(g_tunnels[0]); i++) {
		const struct tunnel_def *t = &g_tunnels[i];
		int fam = addr_family(t->rx_underlay);
		if (strcmp(t->rx_underlay, RX_UNDERLAY) && strcmp(t->rx_underlay, RX6_UNDERLAY) &&
		    (c->is_rx ? addr_add(c, eth, fam, t->rx_underlay, fam == AF_INET ? 24 : 64) :
				neigh_add(c, eth, t->rx_underlay, peer_mac)))
			return -1;
	}
	return 0;
}

/* One side: the underlay on ethN, the tunnels towards the peer. */
static int side_setup(struct ctx *c, const char *eth, const unsigned char peer_mac[6])
{
	if (side_underlay(c, eth, peer_mac))
		return -1;
	for (size_t i = 0; i < sizeof(g_tunnels) / sizeof(g_tunnels[0]); i++)
		if (side_tunnel(c, &g_tunnels[i]))
			return -1;
	return 0;
}

/* Both netlink sockets of one side, opened in the calling thread's namespace. */
static int ctx_open(struct ctx *c)
{
	if ((c->nl = nl_open(NETLINK_ROUTE)) < 0) {
		fail("net setup (%s): rtnetlink socket: %s", c->side, strerror(-c->nl));
		return -1;
	}
	if ((c->genl = nl_open(NETLINK_GENERIC)) < 0) {
		fail("net setup (%s): generic netlink socket: %s", c->side, strerror(-c->genl));
		close(c->nl);
		return -1;
	}
	return 0;
}

static void ctx_close(struct ctx *c)
{
	close(c->nl);
	close(c->genl);
}

/* ---- veth pairs (relay6.c's, for gro.c over ip6ip6) ---- */

/* A veth pair name <-> peer in the calling thread's namespace, both ends with this MTU: 0 or -1 after fail(). */
static int veth_create(struct ctx *c, const char *name, const char *peer, int mtu)
{
	char what[160];
	struct nlbuf b;
	struct ifinfomsg *ifi = nl_start(&b, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	nl_put_str(&b, IFLA_IFNAME, name);
	nl_put_u32(&b, IFLA_MTU, (uint32_t)mtu);
	struct rtattr *info = nl_put(&b, IFLA_LINKINFO, NULL, 0);
	nl_put_str(&b, IFLA_INFO_KIND, "veth");
	struct rtattr *data = nl_put(&b, IFLA_INFO_DATA, NULL, 0);
	/* the peer's own link message: an ifinfomsg, then its attributes */
	struct ifinfomsg pifi = { .ifi_family = AF_UNSPEC };
	struct rtattr *pa = nl_put(&b, VETH_INFO_PEER, &pifi, sizeof(pifi));
	nl_put_str(&b, IFLA_IFNAME, peer);
	nl_put_u32(&b, IFLA_MTU, (uint32_t)mtu);
	nl_nest_end(&b, pa);
	nl_nest_end(&b, data);
	nl_nest_end(&b, info);
	snprintf(what, sizeof(what), "create veth pair %.16s/%.16s (CONFIG_VETH?)", name, peer);
	return req(c, &b, what);
}

/* GRO off on dev, read back: 0 once it reads off, else -errno (-EOPNOTSUPP: it stayed on). */
static int gro_off(const char *dev)
{
	int rc = dev_gro(dev, 0);
	return rc < 0 ? rc : rc ? -EOPNOTSUPP : 0;
}

/* One end of a relay pair made quiet before it goes up: no IPv6 on it (no router solicitations or MLD reports
 * among the relayed frames, nothing of the relayed packets for the stack) and GRO off, so nothing merges on it
 * (6.12 creates veths with GRO off already; without GRO or XDP veth_xmit hands a frame to netif_rx, whose
 * backlog runs no GRO). 0 or -1 after fail(). */
static int veth_quiet(struct ctx *c, const char *dev)
{
	char path[96];
	snprintf(path, sizeof(path), "/proc/sys/net/ipv6/conf/%s/disable_ipv6", dev);
	int rc = write_file(path, "1");
	if (rc) {
		fail("net setup (%s): write 1 to %s: %s", c->side, path, strerror(-rc));
		return -1;
	}
	if ((rc = gro_off(dev))) {
		fail("net setup (%s): GRO off on %s: %s", c->side, dev, strerror(-rc));
		return -1;
	}
	return 0;
}

int net_veth_add(int nsfd, const char *name, const char *peer, int mtu)
{
	struct ctx c = { .side = nsfd == g_init_ns ? "receiver" : "sender", .is_rx = nsfd == g_init_ns, .genl = -1 };
	int rc = enter_ns(nsfd), back;
	if (rc) {
		fail("net setup: setns for veth %s: %s", name, strerror(-rc));
		return -1;
	}
	if ((c.nl = nl_open(NETLINK_ROUTE)) < 0) {
		fail("net setup (%s): rtnetlink socket: %s", c.side, strerror(-c.nl));
		rc = -1;
	} else {
		rc = veth_create(&c, name, peer, mtu) || veth_quiet(&c, name) || veth_quiet(&c, peer) ||
		     link_up(&c, name, 0) || link_up(&c, peer, 0) ? -1 : 0;
		close(c.nl);
	}
	if ((back = enter_ns(g_init_ns)))
		die("net setup: setns back to the initial namespace: %s", strerror(-back));
	return rc;
}

static unsigned char g_sender_mac[6];   /* eth1's, read before it left the initial namespace */

/* virtio-net reports carrier from the device status; give it a moment rather than lose SYNs */
static void wait_rx_up(void)
{
	for (int i = 0; i < 50; i++) {
		char st[32];
		if (read_file("/sys/class/net/eth0/operstate", st, sizeof(st)) == 0 && !strncmp(st, "up", 2))
			return;
		sleep_ms(100);
	}
	note("# warning: eth0 operstate not 'up' after 5 s, continuing");
}

int net_rx_nic_setup(void)
{
	struct ctx rx = { .side = "receiver", .is_rx = 1 };
	if (ctx_open(&rx))
		return -1;
	int rc = side_underlay(&rx, "eth0", g_sender_mac);
	ctx_close(&rx);
	if (!rc)
		wait_rx_up();
	return rc;
}

int net_setup(void)
{
	unsigned char mac0[6], *mac1 = g_sender_mac;
	int rc;

	g_init_ns = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (g_init_ns < 0) {
		fail("net setup: open /proc/thread-self/ns/net: %s", strerror(errno));
		return -1;
	}
	/* Every kernel sends through pfifo_fast: Debian's kernels default to fq_codel, whose AQM may drop a datagram of
	 * K06's paced UDP/ICMP flows at the sender's queue when a vCPU stalls under a loaded host (a loss before any
	 * GRO; the test kernels' pfifo_fast drops only past txqueuelen). Global, and read when a link comes up; a
	 * kernel without CONFIG_NET_SCHED (the test kernels) has no such file and only pfifo_fast. */
	rc = write_file("/proc/sys/net/core/default_qdisc", "pfifo_fast");
	if (rc && rc != -ENOENT) {
		fail("net setup: write pfifo_fast to /proc/sys/net/core/default_qdisc: %s", strerror(-rc));
		return -1;
	}
	if (ns_sysctls("receiver"))
		return -1;
	/* The sender namespace lives as long as we hold its fd; threads setns() into it to send. */
	if (unshare(CLONE_NEWNET)) {
		fail("net setup: unshare(CLONE_NEWNET): %s", strerror(errno));
		return -1;
	}
	g_sender_ns = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (g_sender_ns < 0) {
		fail("net setup: open sender namespace fd: %s", strerror(errno));
		return -1;
	}
	int dad = ns_sysctls("sender");
	if ((rc = enter_ns(g_init_ns)) != 0) {
		fail("net setup: setns back to the initial namespace: %s", strerror(-rc));
		return -1;
	}
	if (dad)
		return -1;

	/* sysfs was mounted in the initial namespace: read both MACs before eth1 leaves it */
	if (read_mac("eth0", mac0) || read_mac("eth1", mac1))
		return -1;

	struct ctx rx = { .side = "receiver", .is_rx = 1 };
	if (ctx_open(&rx))
		return -1;
	rc = link_to_ns(&rx, "eth1", g_sender_ns);
	if (!rc)
		rc = side_setup(&rx, "eth0", mac1);
	ctx_close(&rx);
	if (rc)
		return -1;

	if ((rc = enter_ns(g_sender_ns)) != 0) {
		fail("net setup: setns to the sender namespace: %s", strerror(-rc));
		return -1;
	}
	struct ctx tx = { .side = "sender" };
	if (ctx_open(&tx)) {
		rc = -1;
	} else {
		rc = side_setup(&tx, "eth1", mac0);
		ctx_close(&tx);
	}
	int back = enter_ns(g_init_ns);
	if (back) {
		fail("net setup: setns back to the initial namespace: %s", strerror(-back));
		return -1;
	}
	if (rc)
		return -1;
	wait_rx_up();
	return 0;
}
