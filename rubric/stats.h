/* SPDX-License-Identifier: MIT */
/*
 * stats.h - the statistics the rubric scores on: median, mean, coefficient
 * of variation, exclusive-method percentiles and least-squares log-log fits.
 */
#ifndef XPERF_RUBRIC_STATS_H
#define XPERF_RUBRIC_STATS_H

#include <stddef.h>

#include "rubric/rubric.h"

/* Median of n values (the mean of the two middle ones when n is even); 0 for n = 0. */
double rb_median(const double *v, size_t n);
/* Arithmetic mean; 0 for n = 0. */
double rb_mean(const double *v, size_t n);
/* 100 * sample standard deviation (n - 1) / mean; 0 when n < 2 or the mean is 0. */
double rb_cv_pct(const double *v, size_t n);
/*
 * Percentile p (1..99) by Python's statistics.quantiles(n=100, method
 * "exclusive"), which the original used: extrapolates past the ends.
 * Needs n >= 2.
 */
double rb_percentile(const double *v, size_t n, int p);
/*
 * Ordinary least-squares slope of ln y on ln x over the pairs with x > 0 and
 * y > 0. Returns 1.0 when fewer than two pairs remain or x does not vary (as
 * the original's _fit_exponent).
 */
double rb_loglog_slope(const double *x, const double *y, size_t n);
/*
 * The scaling exponent k of t = c + a n^k, c >= 0 being the fixed cost of
 * starting the program (several ms of exec and dynamic linking, which a plain
 * log-log slope reads as slower growth at small n): for each k in 0..4 by
 * 0.001, least squares in a and c weighted 1/t^2; the k of the smallest
 * residual. With fewer than three pairs, or an n or t <= 0, there is no room
 * for c: rb_loglog_slope.
 */
double rb_power_exponent(const double *n, const double *t, size_t cnt);
/*
 * The growth-class fit (fit->k is left to the caller): for each class f (n,
 * n log n, n^2) the slope of ln t on ln f(n) and the relative residual of
 * t = a + b f(n) (a >= 0: a fixed start-up cost); best = the class with the
 * smallest residual. Needs every size > 1 and every time > 0 (at least two
 * sizes), else fit->ok = 0.
 */
void rb_fit_classes(const double *n, const double *t, size_t cnt, struct rb_fit *fit);
/* Round half away from zero to d decimals (Python's round for these magnitudes). */
double rb_round(double v, int d);

#endif /* XPERF_RUBRIC_STATS_H */
