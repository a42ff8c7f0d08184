/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_BENCH_STATS_H
#define GPUISO_BENCH_STATS_H

#include <stddef.h>

/*
 * The statistics behind comparisons and regression detection: the
 * Mann-Whitney U test for two sets of repeated samples, Welch's t-test, and
 * change points in a series by E-divisive means with a t-test (the method of
 * MongoDB's signal processing paper, as Hunter and Otava use it).
 */

/**
 * stats_median() - the median of @n values.
 * @v: the values (not changed).
 * @n: how many (> 0).
 *
 * Return: the median, NAN without memory.
 */
double stats_median(const double *v, size_t n);

/**
 * stats_mann_whitney_p() - two-sided p-value of the Mann-Whitney U test
 * that @a and @b come from the same distribution: exact for small samples
 * without ties, else the normal approximation with tie and continuity
 * corrections.
 * @a: first sample.
 * @na: its size (>= 1).
 * @b: second sample.
 * @nb: its size (>= 1).
 *
 * Return: p in [0, 1].
 */
double stats_mann_whitney_p(const double *a, size_t na, const double *b, size_t nb);

/**
 * stats_welch_p() - two-sided p-value of Welch's t-test for equal means.
 * @a: first sample.
 * @na: its size (>= 2).
 * @b: second sample.
 * @nb: its size (>= 2).
 *
 * Return: p in [0, 1] (1 when both samples are constant and equal, 0 when
 * constant and different).
 */
double stats_welch_p(const double *a, size_t na, const double *b, size_t nb);

/**
 * stats_student_t_sf2() - two-sided tail probability P(|T| >= t) of
 * Student's t.
 * @t: the statistic.
 * @df: degrees of freedom (> 0).
 *
 * Return: the probability.
 */
double stats_student_t_sf2(double t, double df);

/**
 * stats_student_t_quantile2() - the t at which Student's t has two-sided
 * tail probability @p2: P(|T| >= t) = @p2.
 * @p2: the probability, in (0, 1).
 * @df: degrees of freedom (> 0).
 *
 * Return: t >= 0 (0 for @p2 >= 1, infinity for @p2 <= 0).
 */
double stats_student_t_quantile2(double p2, double df);

/**
 * stats_welch_ci() - confidence interval of the relative change of the
 * mean, (mean(@b) - mean(@a)) / |mean(@a)|, Welch's (unequal variances).
 * @a: first sample.
 * @na: its size.
 * @b: second sample.
 * @nb: its size.
 * @level: confidence (0.95).
 * @lo: out: lower bound.
 * @hi: out: upper bound.
 *
 * Return: 0, or -EINVAL when a side has fewer than two values or mean(@a)
 * is 0.
 */
int stats_welch_ci(const double *a, size_t na, const double *b, size_t nb, double level,
		   double *lo, double *hi);

/**
 * stats_benjamini_hochberg() - replace p-values by Benjamini-Hochberg
 * adjusted ones: rejecting those below a level alpha keeps the expected
 * share of false findings among the rejected at alpha, however many were
 * tested.
 * @p: the p-values, adjusted in place.
 * @n: how many.
 *
 * Return: 0, -ENOMEM.
 */
int stats_benjamini_hochberg(double *p, size_t n);

struct stats_change_point {
	size_t index;  /* the first point of the new level */
	double before; /* mean of the segment before */
	double after;  /* mean of the segment after */
	double p;      /* the t-test's p-value between the two segments, corrected */
};

/**
 * stats_change_points() - where the level of a series changes: the split
 * that maximises the energy distance between the two sides is kept when a
 * t-test between them gives p < @alpha (corrected for the number of splits
 * considered), then each side is searched again.
 * @x: the series, in time order.
 * @n: its length.
 * @alpha: significance (e.g. 0.01).
 * @min_seg: shortest segment on either side of a change (>= 2).
 * @out: out: changes in index order.
 * @max: room in @out.
 *
 * Return: how many were found (at most @max), or -ENOMEM.
 */
int stats_change_points(const double *x, size_t n, double alpha, size_t min_seg,
			struct stats_change_point *out, size_t max);

#endif
