/* relay6.c - carries the kernel's gro.c selftest over ip6ip6 for peer.c: gro.c knows plain IPv4 and IPv6 only, so
 * its frames are wrapped on the way and unwrapped after GRO, by one relay thread of the agent.
 *
 *   sender ns:   gro.c --iface p6s -> veth -> p6s-peer  [read, outer IPv6 + encapsulation limit put in front]  eth1
 *   initial ns:  eth0, GRO (ip6ip6)  [read with its virtio_net_hdr, outer headers off]  p6r -> veth -> p6r-peer,
 *                gro.c --rx --iface p6r-peer
 *
 * What eth0's GRO sees is what an ip6ip6 tunnel of net.c sends (frame_6in6_outer()): 6.12's ip6ip6_gro_receive past
 * ipv6_gro_pull_exthdrs, or tungro's inet6_offloads[IPPROTO_IPV6] callback. Each packet eth0 delivers goes to
 * gro.c's receiver as one skb: the relay keeps its virtio_net_hdr (gso_type, gso_size, the partial checksum with
 * csum_start moved back by the bytes taken off) and AF_PACKET builds the same skb on p6r. Such an skb is SKB_GSO_DODGY
 * and veth has no NETIF_F_GSO_ROBUST, so validate_xmit_skb() passes it through tcp_gso_segment(), which only counts
 * its segments again (gso_ok with ROBUST) and leaves it whole; veth without GRO or XDP hands it to netif_rx(), and
 * the backlog gives gro.c's packet socket that skb. gro.c's data and large tests see it: a merged packet that
 * arrived in pieces would change their Received lines.
 *
 * The relay's frames on eth1 keep the order gro.c wrote them in (one reader, one writer). Sockets and thread live
 * for one attempt of a test: whatever an attempt left in flight dies with its sockets.
 */
#include "agent.h"
#include "conform.h"
#include "frame.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define PAIR_MTU 65535        /* as peer.c sets on eth0/eth1: the large test's ~4 KiB frames, 64 KiB GRO packets */
#define BATCH 32              /* gro.c's frames forwarded per sendmmsg on eth1 */
#define TX_FRAME 9216         /* gro.c's frames are at most 4110 bytes (14 + 40 + 20 + its MSS 4036) */
#define RX_PKT (sizeof(struct virtio_net_hdr) + 14 + 65535)
#define SOCK_BUF (4 << 20)

static struct {
	int on;
	int in_fd, out_fd;        /* sender ns: gro.c's frames on p6s-peer; ip6ip6 frames to eth1 */
	int gro_fd, inj_fd;       /* initial ns: eth0 after GRO (virtio_net_hdr); inner packets to p6r */
	int stop[2];
	int eth1, p6r;            /* ifindexes */
	unsigned char mac_rx[6], mac_tx[6];   /* what gro.c was given: --dmac, --smac */
	pthread_t th;
	struct relay6_counts c;
} g_r = { .in_fd = -1, .out_fd = -1, .gro_fd = -1, .inj_fd = -1, .stop = { -1, -1 } };

int relay6_setup(char *why, size_t cap)
{
	static int done;
	if (done)
		return 0;
	/* the sender pair in the sender namespace, the receiver pair in the initial one */
	if (net_veth_add(g_sender_ns, RELAY6_TX_DEV, RELAY6_TX_DEV "-peer", PAIR_MTU) ||
	    net_veth_add(g_init_ns, "p6r", RELAY6_RX_DEV, PAIR_MTU)) {
		snprintf(why, cap, "relay veth pairs not set up (the failure above)");
		return -1;
	}
	done = 1;
	return 0;
}

/* An AF_PACKET socket of the calling thread's namespace bound to dev: protocol 0 = send only, else it receives
 * proto (bound at once, so no other device's frames queue before the bind). fd, or -errno. */
static int pkt_socket(const char *dev, int proto, int vnet, int *ifindex)
{
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0), one = 1, big = SOCK_BUF, e;
	if (fd < 0)
		return -errno;
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons((uint16_t)proto),
				   .sll_ifindex = (int)if_nametoindex(dev) };
	if (!sll.sll_ifindex || (vnet && setsockopt(fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one)) < 0) ||
	    (proto && setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)) < 0) ||
	    bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		e = sll.sll_ifindex ? errno : ENODEV;
		close(fd);
		return -e;
	}
	if (ifindex)
		*ifindex = sll.sll_ifindex;
	return fd;
}

/* The first error of the run, kept for the attempt's report. */
static void relay_err(int e, const char *what)
{
	if (g_r.c.err)
		return;
	g_r.c.err = -e;
	snprintf(g_r.c.why, sizeof(g_r.c.why), "%s: %s", what, strerror(e));
}

/* gro.c's frames waiting on p6s-peer, wrapped in the tunnel's outer headers, sent on eth1 in their order. Each frame
 * is read FRAME_6IN6_OUTER - 14 bytes into its buffer, so the outer headers take the place of its Ethernet header. */
static void forward_out(void)
{
	static unsigned char buf[BATCH][FRAME_6IN6_OUTER - 14 + TX_FRAME];
	struct mmsghdr mm[BATCH];
	struct iovec iov[BATCH];
	struct sockaddr_ll from[BATCH];
	struct sockaddr_ll to = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_IPV6),
				  .sll_ifindex = g_r.eth1, .sll_halen = 6 };
	const int at = FRAME_6IN6_OUTER - 14;

	memcpy(to.sll_addr, g_mac_rx, 6);
	memset(mm, 0, sizeof(mm));
	for (int i = 0; i < BATCH; i++) {
		iov[i].iov_base = buf[i] + at;
		iov[i].iov_len = TX_FRAME;
		mm[i].msg_hdr.msg_iov = &iov[i];
		mm[i].msg_hdr.msg_iovlen = 1;
		mm[i].msg_hdr.msg_name = &from[i];
		mm[i].msg_hdr.msg_namelen = sizeof(from[i]);
	}
	int n = recvmmsg(g_r.in_fd, mm, BATCH, MSG_DONTWAIT, NULL);
	if (n <= 0) {
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			relay_err(errno, "read p6s-peer");
		return;
	}
	int k = 0;
	for (int i = 0; i < n; i++) {
		const unsigned char *f = buf[i] + at;
		unsigned len = mm[i].msg_len;
		g_r.c.frames_in++;
		/* gro.c's frames only: they carry its --smac; p6s itself sends none (no IPv6 on it) */
		if (from[i].sll_pkttype == PACKET_OUTGOING || len < 14 + 40 || (mm[i].msg_hdr.msg_flags & MSG_TRUNC) ||
		    get16(f + 12) != ETH_P_IPV6 || memcmp(f + 6, g_r.mac_tx, 6) || 40 + get16(f + 18) > len - 14) {
			g_r.c.skipped++;
			continue;
		}
		unsigned inner = 40 + get16(f + 18);
		frame_6in6_outer(buf[i], inner);
		iov[k].iov_base = buf[i];
		iov[k].iov_len = FRAME_6IN6_OUTER + inner;
		mm[k].msg_hdr.msg_iov = &iov[k];
		mm[k].msg_hdr.msg_iovlen = 1;
		mm[k].msg_hdr.msg_name = &to;
		mm[k].msg_hdr.msg_namelen = sizeof(to);
		k++;
	}
	for (int sent = 0; sent < k;) {
		int r = sendmmsg(g_r.out_fd, mm + sent, (unsigned)(k - sent), 0);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			relay_err(errno, "send on eth1");
			return;
		}
		sent += r;
		g_r.c.frames_out += (unsigned long)r;
	}
}

/* What eth0 delivered after GRO, ip6ip6 from the relay only: the outer IPv6 header and its extension header taken
 * off, an Ethernet header as gro.c's sender wrote it put back, sent on p6r with the packet's virtio_net_hdr. */
static void forward_in(void)
{
	static unsigned char buf[RX_PKT];
	const int vl = (int)sizeof(struct virtio_net_hdr);
	struct sockaddr_ll to = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_IPV6),
				  .sll_ifindex = g_r.p6r, .sll_halen = 6 };

	memcpy(to.sll_addr, g_r.mac_rx, 6);
	for (;;) {
		struct sockaddr_ll from;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(g_r.gro_fd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				relay_err(errno, "read eth0");
			return;
		}
		const unsigned char *f = buf + vl, *o = f + 14, *x = o + 40;
		int len = (int)n - vl;
		if (from.sll_pkttype == PACKET_OUTGOING || len < 14 + 40 + 8 + 40 || get16(f + 12) != ETH_P_IPV6 ||
		    o[6] != 60 || memcmp(o + 8, A6O_SRC, 16) || memcmp(o + 24, A6O_DST_6IN6, 16) || x[0] != 41)
			continue;
		int cut = 40 + (x[1] + 1) * 8;   /* outer IPv6 and its destination options */
		if (len < 14 + cut + 40 || (f[14 + cut] >> 4) != 6)
			continue;
		struct virtio_net_hdr vh;
		memcpy(&vh, buf, sizeof(vh));
		g_r.c.pkts++;
		/* wire segments in it: a GRO packet's payload over its gso_size */
		unsigned long segs = 1;
		if (vh.gso_type != VIRTIO_NET_HDR_GSO_NONE && (vh.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) && vh.gso_size &&
		    vh.csum_start + 13 < len) {
			int pay = len - vh.csum_start - (f[vh.csum_start + 12] >> 4) * 4;
			segs = pay > 0 ? ((unsigned long)pay + vh.gso_size - 1) / vh.gso_size : 1;
		}
		g_r.c.segs += segs;
		/* DATA_VALID means nothing on transmit; the partial checksum still starts at the TCP header */
		vh.flags &= VIRTIO_NET_HDR_F_NEEDS_CSUM;
		if (vh.flags)
			vh.csum_start = (uint16_t)(vh.csum_start - cut);
		vh.hdr_len = (uint16_t)(vh.hdr_len > cut ? vh.hdr_len - cut : 0);
		unsigned char *e = buf + vl + cut, *h = e - vl;
		memcpy(e, g_r.mac_rx, 6);
		memcpy(e + 6, g_r.mac_tx, 6);
		put16(e + 12, ETH_P_IPV6);
		memcpy(h, &vh, sizeof(vh));
		for (;;) {
			if (sendto(g_r.inj_fd, h, (size_t)(n - cut), 0, (struct sockaddr *)&to, sizeof(to)) >= 0) {
				g_r.c.injected++;
			} else if (errno == EINTR) {
				continue;
			} else {
				char what[80];
				snprintf(what, sizeof(what), "inject on p6r (gso_type %u, %d bytes)", vh.gso_type,
					 (int)(n - cut - vl));
				relay_err(errno, what);
			}
			break;
		}
	}
}

/* The relay thread: both directions until relay6_stop() writes to the stop pipe. Returns NULL. */
static void *relay_main(void *arg)
{
	(void)arg;
	struct pollfd p[3] = { { .fd = g_r.in_fd, .events = POLLIN }, { .fd = g_r.gro_fd, .events = POLLIN },
			       { .fd = g_r.stop[0], .events = POLLIN } };
	for (;;) {
		if (poll(p, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			relay_err(errno, "poll");
			return NULL;
		}
		if (p[2].revents)
			return NULL;
		if (p[0].revents)
			forward_out();
		if (p[1].revents)
			forward_in();
		if (g_r.c.err)
			return NULL;   /* the attempt reports it; a socket in error would only wake poll again */
	}
}

/* Closes whatever relay6_start() opened; the thread is not running. */
static void relay_close(void)
{
	int *fds[] = { &g_r.in_fd, &g_r.out_fd, &g_r.gro_fd, &g_r.inj_fd, &g_r.stop[0], &g_r.stop[1] };
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

int relay6_start(const unsigned char mac_rx[6], const unsigned char mac_tx[6], char *why, size_t cap)
{
	int rc;
	memset(&g_r.c, 0, sizeof(g_r.c));
	memcpy(g_r.mac_rx, mac_rx, 6);
	memcpy(g_r.mac_tx, mac_tx, 6);
	/* the sender side's sockets are made in the sender namespace and stay there */
	if ((rc = enter_ns(g_sender_ns)))
		die("relay6: setns to the sender namespace: %s", strerror(-rc));
	g_r.in_fd = pkt_socket(RELAY6_TX_DEV "-peer", ETH_P_IPV6, 0, NULL);
	g_r.out_fd = pkt_socket("eth1", 0, 0, &g_r.eth1);
	if ((rc = enter_ns(g_init_ns)))
		die("relay6: setns back to the initial namespace: %s", strerror(-rc));
	g_r.gro_fd = pkt_socket("eth0", ETH_P_IPV6, 1, NULL);
	g_r.inj_fd = pkt_socket("p6r", 0, 1, &g_r.p6r);
	const int fds[4] = { g_r.in_fd, g_r.out_fd, g_r.gro_fd, g_r.inj_fd };
	static const char *const dev[4] = { RELAY6_TX_DEV "-peer", "eth1", "eth0", "p6r" };
	for (int i = 0; i < 4; i++) {
		if (fds[i] >= 0)
			continue;
		snprintf(why, cap, "relay: packet socket on %s: %s", dev[i], strerror(-fds[i]));
		relay_close();
		return -1;
	}
	if (pipe2(g_r.stop, O_CLOEXEC) || (rc = pthread_create(&g_r.th, NULL, relay_main, NULL))) {
		snprintf(why, cap, "relay: thread: %s", strerror(g_r.stop[0] < 0 ? errno : rc));
		relay_close();
		return -1;
	}
	g_r.on = 1;
	return 0;
}

void relay6_stop(struct relay6_counts *c)
{
	memset(c, 0, sizeof(*c));
	if (!g_r.on)
		return;
	if (write(g_r.stop[1], "x", 1) != 1)
		die("relay6: stop pipe: %s", strerror(errno));
	pthread_join(g_r.th, NULL);
	g_r.on = 0;
	*c = g_r.c;
	relay_close();
}
