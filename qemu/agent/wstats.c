/* wstats.c - statistics over a comparison's windows: the demo's paired test and its intervals.
 *
 * The test is Wilcoxon's signed-rank test, exact, one-sided, on the per-round differences tungro - kernel of
 * segments per GRO packet (a round: one window of each engine, adjacent in time). Why this test: under TCG a
 * window's figure has heavy tails (a window with a stalled ACK clock or a descheduled vCPU is far off), which a
 * paired t test takes at face value and which makes its normality assumption wrong at 16 pairs; a sign test
 * ignores how large the differences are and needs more pairs for the same power. Wilcoxon uses the ranks: robust
 * to the outliers, exact for small n (the whole null distribution is counted, no approximation), and with 16
 * pairs it can reach p = 2^-16, far below the demo's 0.01.
 */
#include "agent.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WSTATS_MAX 64

static int by_abs(const void *a, const void *b)
{
	double x = fabs(*(const double *)a), y = fabs(*(const double *)b);
	return x < y ? -1 : x > y;
}

double wilcoxon_p_below(const double *d, int n)
{
	double v[WSTATS_MAX], count[WSTATS_MAX * (WSTATS_MAX + 1) + 1];
	int m = 0, rank2[WSTATS_MAX], wplus = 0, maxsum = 0;

	for (int i = 0; i < n && m < WSTATS_MAX; i++)
		if (d[i] != 0.0)
			v[m++] = d[i];
	if (!m)
		return 1.0;
	qsort(v, (size_t)m, sizeof(v[0]), by_abs);
	/* doubled ranks: a tie group over ranks a..b gets (a + b) / 2 each, an integer once doubled */
	for (int i = 0; i < m;) {
		int j = i;
		while (j + 1 < m && fabs(fabs(v[j + 1]) - fabs(v[i])) <= 1e-12 * fabs(v[i]))
			j++;
		for (int k = i; k <= j; k++)
			rank2[k] = i + 1 + j + 1;
		i = j + 1;
	}
	/* null distribution of 2 W+: each rank is in W+ with probability 1/2, independently */
	memset(count, 0, sizeof(count));
	count[0] = 1.0;
	for (int i = 0; i < m; i++) {
		for (int s = maxsum; s >= 0; s--)
			count[s + rank2[i]] += count[s];
		maxsum += rank2[i];
		if (v[i] > 0)
			wplus += rank2[i];
	}
	double below = 0.0, total = ldexp(1.0, m);
	for (int s = 0; s <= wplus; s++)
		below += count[s];
	return below / total;
}

/* Student's t quantile 0.975 for df degrees of freedom: exact table for the smallest, then the Cornish-Fisher
 * expansion around the normal quantile (0.003 off at df 5, less beyond). */
static double t975(int df)
{
	static const double small[5] = { 0, 12.706, 4.303, 3.182, 2.776 };
	const double z = 1.959964;
	if (df < 5)
		return small[df < 1 ? 1 : df];
	double z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z, f = (double)df;
	return z + (z3 + z) / (4 * f) + (5 * z5 + 16 * z3 + 3 * z) / (96 * f * f) +
	       (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * f * f * f);
}

void mean_ci95(const double *x, int n, double *mean, double *half)
{
	double s = 0, ss = 0;
	*mean = *half = 0;
	if (n < 1)
		return;
	for (int i = 0; i < n; i++)
		s += x[i];
	*mean = s / n;
	if (n < 2)
		return;
	for (int i = 0; i < n; i++)
		ss += (x[i] - *mean) * (x[i] - *mean);
	*half = t975(n - 1) * sqrt(ss / (n - 1)) / sqrt((double)n);
}

double cut_test_p(const double *c, int n, int min_pairs, char *desc, size_t cap)
{
	if (n < min_pairs) {
		snprintf(desc, cap, " (PSH marks counted in %d window pairs, under %d: that test alone)", n, min_pairs);
		return 0;
	}
	double p = wilcoxon_p_below(c, n);
	snprintf(desc, cap, ", and unless its GRO packets per PSH mark are worse too: p = %.4f over %d pairs", p, n);
	return p;
}
