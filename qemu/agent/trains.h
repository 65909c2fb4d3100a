/* trains.h - crafted IPIP frame trains sent from eth1 and what comes up on ipip1 after GRO: the demo's train
 * scenarios (demo.c) and the wire check of issue 8's 16 interleaved flows in make test (conform.c). */
#ifndef TUNGRO_TRAINS_H
#define TUNGRO_TRAINS_H

#include "agent.h"
#include "frame.h"

#define TRAIN_MAX (16 * 16)     /* segments in the largest train */
#define TRAIN_TRIES 4           /* a train that lost frames or strayed from its model is sent again, as conform */

/* One train through one engine, after its retries. */
struct train_try {
	double spg;             /* eth0 wire frames per packet on ipip1 */
	uint64_t wire, gro, softirq_ns;
	struct stats tg;        /* tungro's debugfs delta (offloads: tungro/stats; engine: tungro/eth0/stats) */
	int have_tg;
	int retries;            /* sends not judged: frames lost to the socket, or further than 25% from the model */
	int lost, bad;          /* segments still missing on the last try; a byte differed or a segment came twice */
	char why[160];          /* what lost or bad saw */
};

/* The sender's AF_PACKET socket and a packet socket on ipip1: 0, or -1 after fail() naming who. */
int trains_open(const char *who);
void train_16x16(struct sd *t, int *n);    /* 16 flows interleaved segment by segment, 16 segments each */
void train_psh(struct sd *t, int *n);      /* one flow of 64 segments, PSH on every one */
void train_flows64(struct sd *t, int *n);  /* 64 flows of one segment */
/* Sends train t (numbered) through engine kind (already entered) until a try matches its model (segments per GRO
 * packet within 25%) with every segment seen once, or TRAIN_TRIES sends; a byte that differs ends it at once.
 * 0, or -errno when sending failed. */
int train_round(int kind, const struct sd *t, int n, double model, struct train_try *o);
/* The 16 x 16 train's segments per GRO packet in polls of 64 (host replay and KUnit give exactly these): the
 * kernel's one bucket of 8 (hash 0) completes a flow on every segment, 1.0; tungro's table holds all 16, 4.0. */
double train16_model(int kind);
/* make test's wire check of the 16 x 16 train, kernel GRO vs tungro's engine, `rounds` trains each (CHECK line). */
void train16_check(const char *who, int rounds);

#endif
