// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/stats.h"

void stats_spread(const double *v, size_t n, struct report_spread *out)
{
	double sum = 0, ss = 0, lag = 0, prev = NAN, mean, rho;
	size_t k = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n; i++)
		if (!isnan(v[i])) {
			sum += v[i];
			k++;
		}
	out->n = k;
	out->mean = k ? sum / k : NAN;
	out->sd = NAN;
	out->n_eff = k;
	if (k < 2)
		return;
	mean = out->mean;
	for (size_t i = 0; i < n; i++) {
		if (isnan(v[i]))
			continue;
		ss += (v[i] - mean) * (v[i] - mean);
		if (!isnan(prev))
			lag += (prev - mean) * (v[i] - mean);
		prev = v[i];
	}
	out->sd = sqrt(ss / (k - 1));
	/*
	 * Lag-1 autocorrelation: consecutive intervals of one workload are
	 * alike (a slow drift, a burst spanning two), so fewer of them are
	 * independent: n (1 - rho) / (1 + rho), the AR(1) effective size.
	 * A negative rho is not taken as more information than n values.
	 */
	rho = ss > 0 ? lag / ss : 0;
	if (rho < 0)
		rho = 0;
	out->rho = rho;
	out->n_eff = k * (1 - rho) / (1 + rho);
	if (out->n_eff < 2)
		out->n_eff = 2;
	if (out->n_eff > k)
		out->n_eff = k;
}

double stats_mean_se(const struct report_spread *s)
{
	if (s->n < 2 || isnan(s->sd))
		return NAN;
	return s->sd / sqrt(s->n_eff);
}

/* The continued fraction of the incomplete beta function (Lentz). */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= 300; m++) {
		double aa = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
		       del;

		d = 1 + aa * d;
		d = fabs(d) < tiny ? tiny : d;
		c = 1 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		d = 1 / d;
		h *= d * c;
		aa = -(a + m) * (a + b + m) * x /
		     ((a + 2 * m) * (a + 2 * m + 1));
		d = 1 + aa * d;
		d = fabs(d) < tiny ? tiny : d;
		c = 1 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-14)
			break;
	}
	return h;
}

/* I_x(a, b), the regularized incomplete beta function. */
static double beta_inc(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
		    b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

double stats_t_p2(double t, double df)
{
	if (isnan(t) || isnan(df) || df <= 0)
		return NAN;
	if (isinf(t))
		return 0;
	if (isinf(df) || df > 1e7)
		return erfc(fabs(t) / sqrt(2));
	return beta_inc(df / 2, 0.5, df / (df + t * t));
}

double stats_welch_p(double delta, double se_b, double n_b, double se_a,
		     double n_a, double *df)
{
	double vb = se_b * se_b, va = se_a * se_a, den = 0;

	*df = NAN;
	if (isnan(delta) || isnan(vb) || isnan(va))
		return NAN;
	if (vb + va == 0)
		return delta ? 0 : NAN;
	/* Welch-Satterthwaite; a side of n 0 has its error known exactly. */
	if (vb > 0)
		den += n_b > 1 ? vb * vb / (n_b - 1) : 0;
	if (va > 0)
		den += n_a > 1 ? va * va / (n_a - 1) : 0;
	*df = den > 0 ? (vb + va) * (vb + va) / den : INFINITY;
	return stats_t_p2(delta / sqrt(vb + va), *df);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double stats_bh_cut(const double *p, size_t n, double alpha)
{
	double *s = malloc((n + 1) * sizeof(*s)), cut = -1;
	size_t m = 0;

	if (!s)
		return 0; /* no memory: only p = 0 stays a discovery */
	for (size_t i = 0; i < n; i++)
		if (!isnan(p[i]))
			s[m++] = p[i];
	qsort(s, m, sizeof(*s), cmp_double);
	for (size_t k = m; k > 0; k--)
		if (s[k - 1] <= alpha * k / m) {
			cut = s[k - 1];
			break;
		}
	free(s);
	return cut;
}
