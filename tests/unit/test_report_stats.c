// SPDX-License-Identifier: GPL-2.0
/*
 * The statistics of `report --diff` (report/stats.h): Student's t
 * p-values against the closed forms of 1 and 2 degrees of freedom and
 * the normal's erfc, Welch's degrees of freedom, the AR(1) effective
 * number of intervals, Benjamini-Hochberg's cut. The whole path on real
 * recordings is tests/integration/test_report_diff.sh.
 */
#include <math.h>
#include <stdlib.h>

#include "report/stats.h"
#include "test.h"

#define NEAR(a, b, tol, name)                                               \
	ASSERT_TRUE(fabs((a) - (b)) <= (tol) * (fabs(b) > 1 ? fabs(b) : 1), \
		    name)

static void test_t_p2(void)
{
	static const double ts[] = { 0, 0.1, 0.5, 1, 2, 3.5, 10, 100 };

	for (unsigned i = 0; i < sizeof(ts) / sizeof(ts[0]); i++) {
		double t = ts[i];

		/* df 1 is Cauchy's; df 2 has a closed form too. */
		NEAR(stats_t_p2(t, 1), 1 - 2 / M_PI * atan(t), 1e-10, "df 1");
		NEAR(stats_t_p2(-t, 2), 1 - t / sqrt(2 + t * t), 1e-10, "df 2");
		NEAR(stats_t_p2(t, INFINITY), erfc(t / sqrt(2)), 1e-12,
		     "normal");
		/* Many degrees of freedom: the normal's. */
		NEAR(stats_t_p2(t, 1e6), erfc(t / sqrt(2)), 1e-5, "df 1e6");
	}
	/* Fewer degrees of freedom: heavier tails. */
	ASSERT_TRUE(stats_t_p2(2, 5) > stats_t_p2(2, 30), "df 5 > df 30");
	ASSERT_TRUE(stats_t_p2(2, 30) > stats_t_p2(2, INFINITY), "df 30 > z");
	ASSERT_TRUE(isnan(stats_t_p2(NAN, 3)), "NaN t");
	ASSERT_TRUE(isnan(stats_t_p2(1, 0)), "df 0");
	ASSERT_TRUE(stats_t_p2(INFINITY, 3) == 0, "infinite t");
}

static void test_welch(void)
{
	double df, p;

	/* Equal errors and sizes: df = 2 (n - 1). */
	p = stats_welch_p(1, 0.5, 10, 0.5, 10, &df);
	NEAR(df, 18.0, 1e-12, "df of equal sides");
	NEAR(p, stats_t_p2(1 / sqrt(0.5), 18), 1e-12, "p of equal sides");
	/* One side's error known exactly (n 0): only the other's df. */
	p = stats_welch_p(1, 0.5, 0, 0.5, 5, &df);
	/* (0.25 + 0.25)^2 / (0.25^2 / 4) */
	NEAR(df, 16.0, 1e-12, "df with one exact side");
	p = stats_welch_p(1, 0.5, 0, 0.5, 0, &df);
	ASSERT_TRUE(isinf(df), "both exact: the normal");
	NEAR(p, erfc(1 / sqrt(0.5) / sqrt(2)), 1e-12, "both exact: p");
	/* No error at all: a change is certain, no change says nothing. */
	ASSERT_TRUE(stats_welch_p(1, 0, 5, 0, 5, &df) == 0, "no error");
	ASSERT_TRUE(isnan(stats_welch_p(0, 0, 5, 0, 5, &df)), "no change");
	ASSERT_TRUE(isnan(stats_welch_p(1, NAN, 5, 1, 5, &df)), "NaN error");
}

static void test_spread(void)
{
	double v[40], ramp[40], alt[40], some[5] = { 1, NAN, 3, NAN, 5 };
	struct report_spread s;

	for (int i = 0; i < 40; i++) {
		v[i] = 7;
		ramp[i] = i;
		alt[i] = i % 2 ? 1 : -1;
	}
	stats_spread(v, 40, &s);
	ASSERT_EQ(s.n, 40, "n");
	ASSERT_TRUE(s.mean == 7 && s.sd == 0 && s.n_eff == 40, "constant");
	/* A ramp: every interval like the last; few independent ones. */
	stats_spread(ramp, 40, &s);
	NEAR(s.mean, 19.5, 1e-12, "ramp mean");
	NEAR(s.sd, sqrt(40 * 41 / 12.0), 1e-12, "ramp sd");
	ASSERT_TRUE(s.rho > 0.9 && s.n_eff < 3, "ramp: rho near 1");
	NEAR(stats_mean_se(&s), s.sd / sqrt(s.n_eff), 1e-12, "ramp se");
	/* Alternating: rho -1 taken as 0, no more than n. */
	stats_spread(alt, 40, &s);
	ASSERT_TRUE(s.rho == 0 && s.n_eff == 40, "alternating: n");
	/* NaNs are not values. */
	stats_spread(some, 5, &s);
	ASSERT_EQ(s.n, 3, "NaNs skipped");
	NEAR(s.mean, 3.0, 1e-12, "mean without NaNs");
	NEAR(s.sd, 2.0, 1e-12, "sd without NaNs");
	stats_spread(v, 1, &s);
	ASSERT_TRUE(isnan(stats_mean_se(&s)), "one value: no error");
}

static void test_bh(void)
{
	/* Benjamini & Hochberg 1995's example: 15 p-values, q 0.05. */
	static const double p[] = { 0.0001, 0.0004, 0.0019, 0.0095, 0.0201,
				    0.0278, 0.0298, 0.0344, 0.0459, 0.3240,
				    0.4262, 0.5719, 0.6528, 0.7590, 1.0000 };
	double q[] = { 0.04, NAN, 0.5 };

	ASSERT_TRUE(stats_bh_cut(p, 15, 0.05) == 0.0095, "4 discoveries");
	/* A single test: its own alpha; NaNs not counted. */
	ASSERT_TRUE(stats_bh_cut(q, 1, 0.05) == 0.04, "one test");
	ASSERT_TRUE(stats_bh_cut(q, 3, 0.05) == -1, "two tests: none");
	ASSERT_TRUE(stats_bh_cut(q + 1, 1, 0.05) == -1, "NaN only");
}

static const struct subtest tests[] = {
	{ "t_p2", test_t_p2 },
	{ "welch", test_welch },
	{ "spread", test_spread },
	{ "bh", test_bh },
	{ 0 },
};

int main(int argc, char **argv)
{
	return test_main(argc, argv, tests);
}
