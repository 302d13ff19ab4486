/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The statistics of `bpmc report --diff`: a series' spread (its mean,
 * standard deviation and effective number of independent values under
 * lag-1 autocorrelation), Welch's t-test between two such means, Student's
 * t distribution's two-sided p-value, and Benjamini-Hochberg's step-up
 * over many tests. docs/analysis.md says why these.
 */
#ifndef BPMC_REPORT_STATS_H
#define BPMC_REPORT_STATS_H

#include <stddef.h>

#include "report/result.h"

/* v[0..n) in time order, NaNs skipped. */
void stats_spread(const double *v, size_t n, struct report_spread *out);

/*
 * The standard error of a spread's mean: sd / sqrt(n_eff); NaN below two
 * values.
 */
double stats_mean_se(const struct report_spread *s);

/*
 * Welch's test of the difference of two means with standard errors se_b
 * and se_a and n_b, n_a effective values: *df is the Welch-Satterthwaite
 * degrees of freedom (INFINITY where an error is known exactly, n 0), and
 * the return the two-sided p-value of (after - before) / err, err the
 * combined error. NaN where nothing can be said (no error, no change).
 */
double stats_welch_p(double delta, double se_b, double n_b, double se_a,
		     double n_a, double *df);

/* P(|T| >= |t|) for Student's t with df degrees of freedom (INFINITY: normal). */
double stats_t_p2(double t, double df);

/*
 * Benjamini-Hochberg at false discovery rate alpha: the largest p-value
 * of p[0..n) that is still a discovery, or -1 where none is. NaNs are not
 * tests.
 */
double stats_bh_cut(const double *p, size_t n, double alpha);

#endif
