/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/types.h"
#include "stats.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double stats_median(const double *v, size_t n)
{
	double few[16], *c = n <= ARRAY_SIZE(few) ? few : malloc(n * sizeof(*c)), m;

	if (!c)
		return NAN;
	memcpy(c, v, n * sizeof(*c));
	qsort(c, n, sizeof(*c), cmp_double);
	m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
	if (c != few)
		free(c);
	return m;
}

/* --- Student's t through the regularised incomplete beta function --- */

/* The continued fraction of I_x(a, b) (modified Lentz), for x < (a+1)/(a+b+2). */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	d = fabs(d) < tiny ? 1 / tiny : 1 / d;
	h = d;
	for (int m = 1; m <= 300; m++) {
		double m2 = 2.0 * m, num, delta;

		num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
		d = 1 + num * d;
		c = 1 + num / c;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		c = fabs(c) < tiny ? tiny : c;
		h *= d * c;
		num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		d = 1 + num * d;
		c = 1 + num / c;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		c = fabs(c) < tiny ? tiny : c;
		delta = d * c;
		h *= delta;
		if (fabs(delta - 1) < 1e-14)
			break;
	}
	return h;
}

static double beta_inc(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

double stats_student_t_sf2(double t, double df)
{
	if (isnan(t))
		return 1;
	if (isinf(t))
		return 0;
	return beta_inc(df / 2, 0.5, df / (df + t * t));
}

static void mean_var(const double *x, size_t n, double *mean, double *var)
{
	double m = 0, s = 0;

	for (size_t i = 0; i < n; i++)
		m += x[i];
	m /= (double)n;
	for (size_t i = 0; i < n; i++)
		s += (x[i] - m) * (x[i] - m);
	*mean = m;
	*var = n > 1 ? s / (double)(n - 1) : 0;
}

double stats_welch_p(const double *a, size_t na, const double *b, size_t nb)
{
	double ma, va, mb, vb, sa, sb, se, t, df;

	mean_var(a, na, &ma, &va);
	mean_var(b, nb, &mb, &vb);
	sa = va / (double)na;
	sb = vb / (double)nb;
	se = sa + sb;
	if (se == 0)
		return ma == mb ? 1 : 0;
	t = (ma - mb) / sqrt(se);
	df = se * se / (sa * sa / (double)(na - 1) + sb * sb / (double)(nb - 1));
	return stats_student_t_sf2(t, df);
}

double stats_student_t_quantile2(double p2, double df)
{
	double lo = 0, hi = 1;

	if (p2 >= 1)
		return 0;
	if (p2 <= 0)
		return INFINITY;
	while (stats_student_t_sf2(hi, df) > p2 && hi < 1e12)
		hi *= 2;
	/* the tail falls as t grows: bisect to a relative 1e-10 */
	for (int i = 0; i < 200 && hi - lo > 1e-10 * hi; i++) {
		double mid = (lo + hi) / 2;

		if (stats_student_t_sf2(mid, df) > p2)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

int stats_welch_ci(const double *a, size_t na, const double *b, size_t nb, double level,
		   double *lo, double *hi)
{
	double ma, va, mb, vb, sa, sb, se, df, t;

	if (na < 2 || nb < 2)
		return -EINVAL;
	mean_var(a, na, &ma, &va);
	mean_var(b, nb, &mb, &vb);
	if (ma == 0)
		return -EINVAL; /* no change relative to nothing */
	sa = va / (double)na;
	sb = vb / (double)nb;
	se = sa + sb;
	df = se ? se * se / (sa * sa / (double)(na - 1) + sb * sb / (double)(nb - 1)) : 1;
	t = se ? stats_student_t_quantile2(1 - level, df) : 0;
	*lo = (mb - ma - t * sqrt(se)) / fabs(ma);
	*hi = (mb - ma + t * sqrt(se)) / fabs(ma);
	return 0;
}

struct ranked_p {
	double p;
	size_t i;
};

static int cmp_ranked_p(const void *x, const void *y)
{
	const struct ranked_p *a = x, *b = y;

	return (a->p > b->p) - (a->p < b->p);
}

int stats_benjamini_hochberg(double *p, size_t n)
{
	struct ranked_p *r = calloc(n ? n : 1, sizeof(*r));
	double q = 1;

	if (!r)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		r[i] = (struct ranked_p){ p[i], i };
	qsort(r, n, sizeof(*r), cmp_ranked_p);
	/* from the largest p down: q_(k) = min over j >= k of p_(j) * n / j */
	for (size_t k = n; k-- > 0;) {
		q = fmin(q, r[k].p * (double)n / (double)(k + 1));
		p[r[k].i] = q;
	}
	free(r);
	return 0;
}

/* --- Mann-Whitney U --- */

struct ranked {
	double v;
	bool from_a;
};

static int cmp_ranked(const void *x, const void *y)
{
	double a = ((const struct ranked *)x)->v, b = ((const struct ranked *)y)->v;

	return (a > b) - (a < b);
}

/*
 * P(U <= u) under the null hypothesis, exactly: the number of ways to
 * interleave na and nb values with U inversions, by the usual recurrence
 * over the largest value.
 */
static double mw_exact_cdf(size_t na, size_t nb, double u)
{
	size_t umax = na * nb;
	/* f[i][j][k] flattened: count of arrangements of i a's and j b's with U = k */
	double *f = calloc((na + 1) * (nb + 1) * (umax + 1), sizeof(*f));
	double total = 0, below = 0;

	if (!f)
		return -1;
#define F(i, j, k) f[((i) * (nb + 1) + (j)) * (umax + 1) + (k)]
	for (size_t i = 0; i <= na; i++) {
		for (size_t j = 0; j <= nb; j++) {
			if (!i || !j) {
				F(i, j, 0) = 1;
				continue;
			}
			for (size_t k = 0; k <= i * j; k++) {
				/* the largest is an a (beats j b's) or a b */
				double v = k >= j ? F(i - 1, j, k - j) : 0;

				F(i, j, k) = v + F(i, j - 1, k);
			}
		}
	}
	for (size_t k = 0; k <= umax; k++) {
		total += F(na, nb, k);
		if ((double)k <= u + 1e-9)
			below += F(na, nb, k);
	}
#undef F
	free(f);
	return below / total;
}

double stats_mann_whitney_p(const double *a, size_t na, const double *b, size_t nb)
{
	size_t n = na + nb;
	struct ranked *r = malloc(n * sizeof(*r));
	double rank_a = 0, ties = 0, u, mu, sigma, z, p;
	bool tied = false;

	if (!r)
		return 1;
	for (size_t i = 0; i < na; i++)
		r[i] = (struct ranked){ a[i], true };
	for (size_t i = 0; i < nb; i++)
		r[na + i] = (struct ranked){ b[i], false };
	qsort(r, n, sizeof(*r), cmp_ranked);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		double mid;

		while (j < n && r[j].v == r[i].v)
			j++;
		mid = (double)(i + j + 1) / 2; /* average of ranks i+1 .. j */
		for (size_t k = i; k < j; k++)
			if (r[k].from_a)
				rank_a += mid;
		if (j - i > 1) {
			double t = (double)(j - i);

			tied = true;
			ties += t * t * t - t;
		}
		i = j;
	}
	free(r);
	u = rank_a - (double)na * (double)(na + 1) / 2;
	u = fmin(u, (double)na * (double)nb - u);
	if (!tied && na * nb <= 400) {
		p = mw_exact_cdf(na, nb, u);
		if (p >= 0)
			return fmin(1, 2 * p);
	}
	mu = (double)na * (double)nb / 2;
	sigma = sqrt((double)na * (double)nb / 12 *
		     ((double)(n + 1) - ties / ((double)n * (double)(n - 1))));
	if (sigma == 0)
		return 1;
	z = (fabs(u - mu) - 0.5) / sigma;
	if (z < 0)
		z = 0;
	return fmin(1, erfc(z / sqrt(2)));
}

/* --- change points: E-divisive means with a t-test --- */

/*
 * Sums of |x_i - x_j| over blocks, from a 2-D prefix table:
 * S[i][j] = sum over a < i, b < j of |x_a - x_b|.
 */
struct dist_table {
	size_t n;
	double *s;
};

static double block(const struct dist_table *t, size_t a0, size_t a1, size_t b0, size_t b1)
{
	size_t w = t->n + 1;

	return t->s[a1 * w + b1] - t->s[a0 * w + b1] - t->s[a1 * w + b0] + t->s[a0 * w + b0];
}

/* The energy statistic of splitting [s, e) at k: how different the two sides are. */
static double energy(const struct dist_table *t, size_t s, size_t k, size_t e)
{
	double nx = (double)(k - s), ny = (double)(e - k);
	double xy = block(t, s, k, k, e), xx = block(t, s, k, s, k), yy = block(t, k, e, k, e);
	double stat = 2 * xy / (nx * ny) - xx / (nx * nx) - yy / (ny * ny);

	return nx * ny / (nx + ny) * stat;
}

struct search {
	const double *x;
	const struct dist_table *t;
	double alpha;
	size_t min_seg;
	struct stats_change_point *out;
	size_t max, found;
};

static void split(struct search *sr, size_t s, size_t e)
{
	size_t best = 0;
	double best_q = 0, ma, va, mb, vb, p;

	if (e - s < 2 * sr->min_seg)
		return;
	for (size_t k = s + sr->min_seg; k + sr->min_seg <= e; k++) {
		double q = energy(sr->t, s, k, e);

		if (q > best_q) {
			best_q = q;
			best = k;
		}
	}
	if (!best)
		return;
	/*
	 * The split was picked as the most different one of all the candidates:
	 * its p-value is corrected for having looked at each (Bonferroni), or
	 * noise alone would pass the test somewhere.
	 */
	p = fmin(1, stats_welch_p(sr->x + s, best - s, sr->x + best, e - best) *
				  (double)(e - s - 2 * sr->min_seg + 1));
	if (p >= sr->alpha)
		return;
	split(sr, s, best);
	if (sr->found < sr->max) {
		mean_var(sr->x + s, best - s, &ma, &va);
		mean_var(sr->x + best, e - best, &mb, &vb);
		sr->out[sr->found++] = (struct stats_change_point){ best, ma, mb, p };
	}
	split(sr, best, e);
}

int stats_change_points(const double *x, size_t n, double alpha, size_t min_seg,
			struct stats_change_point *out, size_t max)
{
	struct dist_table t = { .n = n };
	size_t w = n + 1;
	struct search sr = { x, &t, alpha, min_seg < 2 ? 2 : min_seg, out, max, 0 };

	if (n < 2 * sr.min_seg)
		return 0;
	t.s = calloc(w * w, sizeof(*t.s));
	if (!t.s)
		return -ENOMEM;
	for (size_t i = 1; i <= n; i++)
		for (size_t j = 1; j <= n; j++)
			t.s[i * w + j] = t.s[(i - 1) * w + j] + t.s[i * w + j - 1] -
					 t.s[(i - 1) * w + j - 1] + fabs(x[i - 1] - x[j - 1]);
	split(&sr, 0, n);
	free(t.s);
	return (int)sr.found;
}
