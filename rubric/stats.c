/* SPDX-License-Identifier: MIT */
/* stats.c - see stats.h. Small n (sizes, repetitions): sorting copies is fine. */
#include "rubric/stats.h"
#include "lib/cmp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The largest scaling exponent the fit tries: n^4 is past every FAIL bound. */
#define K_MAX 4
/*
 * The start-up cost is at most this share of the smallest size's time: a
 * program whose runs are all start-up and noise keeps a flat k instead of
 * any steep curve through its noise.
 */
#define C_MAX 0.9

static void sorted_copy(const double *v, size_t n, double *out)
{
	memcpy(out, v, n * sizeof(*v));
	qsort(out, n, sizeof(*out), xp_cmp_double);
}

double rb_median(const double *v, size_t n)
{
	double s[XP_RB_MAX_REPS * XP_RB_MAX_SIZES];

	if (n == 0 || n > sizeof(s) / sizeof(s[0]))
		return 0;
	sorted_copy(v, n, s);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

double rb_mean(const double *v, size_t n)
{
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += v[i];
	return n ? sum / (double)n : 0;
}

double rb_cv_pct(const double *v, size_t n)
{
	double m = rb_mean(v, n), ss = 0;

	if (n < 2 || m == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - m) * (v[i] - m);
	return 100.0 * sqrt(ss / (double)(n - 1)) / m;
}

double rb_percentile(const double *v, size_t n, int p)
{
	double s[XP_RB_MAX_REPS * XP_RB_MAX_SIZES];

	if (n < 2 || n > sizeof(s) / sizeof(s[0]))
		return n ? v[0] : 0;
	sorted_copy(v, n, s);
	/* statistics.quantiles(n=100): j = floor(p*m/100), delta = p*m - 100*j. */
	long m = (long)n + 1, j = (long)p * m / 100;
	if (j < 1)
		j = 1;
	if (j > (long)n - 1)
		j = (long)n - 1;
	double delta = (double)((long)p * m - 100 * j);
	return (s[j - 1] * (100 - delta) + s[j] * delta) / 100;
}

double rb_loglog_slope(const double *x, const double *y, size_t n)
{
	double sx = 0, sy = 0, sxy = 0, sxx = 0;
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		if (!(x[i] > 0) || !(y[i] > 0))
			continue;
		double lx = log(x[i]), ly = log(y[i]);
		sx += lx;
		sy += ly;
		sxy += lx * ly;
		sxx += lx * lx;
		m++;
	}
	double den = (double)m * sxx - sx * sx;
	if (m < 2 || fabs(den) < 1e-12)
		return 1.0;
	return ((double)m * sxy - sx * sy) / den;
}

/* f(n) of a growth class. */
static double grow(int c, double n)
{
	return c == XP_CX_LINEAR ? n : c == XP_CX_NLOGN ? n * log(n) : n * n;
}

/*
 * Relative RMS residual of t = a + b f, 0 <= a <= a_max, b > 0, by least
 * squares weighted 1/t^2 (each size counts by its relative error). The
 * intercept absorbs the fixed cost of starting a process, which otherwise
 * bends small sizes toward a flatter curve.
 */
static double affine_residual(const double *f, const double *t, size_t cnt, double a_max)
{
	double sw = 0, sf = 0, st = 0, sff = 0, sft = 0, a, b, r = 0;

	for (size_t i = 0; i < cnt; i++) {
		double w = 1 / (t[i] * t[i]);
		sw += w;
		sf += w * f[i];
		st += w * t[i];
		sff += w * f[i] * f[i];
		sft += w * f[i] * t[i];
	}
	double den = sw * sff - sf * sf;
	b = den > 0 ? (sw * sft - sf * st) / den : 0;
	a = den > 0 ? (st - b * sf) / sw : -1;
	if (a < 0 || b <= 0 || a > a_max) {
		/* The objective is convex: the best a in range is the bound nearest. */
		a = a > a_max ? a_max : 0;
		b = (sft - a * sf) / sff;
	}
	for (size_t i = 0; i < cnt; i++) {
		double e = (t[i] - a - b * f[i]) / t[i];
		r += e * e;
	}
	return sqrt(r / (double)cnt);
}

double rb_power_exponent(const double *n, const double *t, size_t cnt)
{
	double f[XP_RB_MAX_SIZES], best_k = 0, best_r = INFINITY, t_min = INFINITY;

	if (cnt < 3 || cnt > XP_RB_MAX_SIZES)
		return rb_loglog_slope(n, t, cnt);
	for (size_t i = 0; i < cnt; i++)
		if (!(n[i] > 0) || !(t[i] > 0))
			return rb_loglog_slope(n, t, cnt);
		else if (t[i] < t_min)
			t_min = t[i];
	for (int step = 0; step <= K_MAX * 1000; step++) {
		double k = step / 1000.0, r;
		for (size_t i = 0; i < cnt; i++)
			f[i] = pow(n[i], k);
		r = affine_residual(f, t, cnt, C_MAX * t_min);
		if (r < best_r) {
			best_r = r;
			best_k = k;
		}
	}
	return best_k;
}

void rb_fit_classes(const double *n, const double *t, size_t cnt, struct rb_fit *fit)
{
	double f[XP_RB_MAX_SIZES];

	memset(fit, 0, sizeof(*fit));
	if (cnt < 2 || cnt > XP_RB_MAX_SIZES)
		return;
	for (size_t i = 0; i < cnt; i++)
		if (!(n[i] > 1) || !(t[i] > 0))
			return;
	fit->ok = 1;
	for (int c = 0; c < XP_CX_COUNT; c++) {
		for (size_t i = 0; i < cnt; i++)
			f[i] = grow(c, n[i]);
		fit->slope[c] = rb_loglog_slope(f, t, cnt);
		fit->residual[c] = affine_residual(f, t, cnt, INFINITY);
		if (fit->residual[c] < fit->residual[fit->best])
			fit->best = c;
	}
}

double rb_round(double v, int d)
{
	double p = pow(10, d);

	return round(v * p) / p;
}
