/* conform.h - what the wire conformance run (conform.c) shares with its hostile-frame table (hostile.c). */
#ifndef TUNGRO_CONFORM_H
#define TUNGRO_CONFORM_H

#include "frame.h"

#include <stddef.h>

#define MAXSEG 64

struct train {
	int n;
	struct sd s[MAXSEG];
};

/* A train from eth1 and what eth0's packet socket saw of it after GRO: got is the "got" string (conform.c's
 * header), why the first inconsistency or frames missing ("" when none). 0, or -1 with why set. */
int run_train(const struct train *t, char *got, size_t cap, char *why, size_t whycap);
extern unsigned g_quiet_ms;   /* how long run_train waits for a frame still missing */
extern int g_rxfd;            /* the packet socket run_train reads */
extern int g_rxfd6;           /* a second one it reads (taps of ETH_P_IP and ETH_P_IPV6 while attached), or -1 */
/* a packet socket with virtio_net_hdr on eth0 for proto (ETH_P_ALL, ETH_P_IP): fd, or -1 after fail() */
int rx_socket(const char *who, int proto);

/* hostile.c: the hostile-frame table through the three engines, after conform's own cases; records failures */
void hostile(void);

#endif
