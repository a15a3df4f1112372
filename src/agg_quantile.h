/*
 * agg_quantile.h: median and the percentiles pN, on a window structure of their own
 * (see agg_quantile.c for the structure and the benchmark that chose it).
 *
 * The result follows swag(1), AGGREGATES: over the n numbers of the window sorted as
 * x[0..n-1], with h = (n - 1)·q and lo = floor(h), it is x[lo] when h is integral or
 * x[lo] == x[lo+1], else x[lo] + (h - lo)·(x[lo+1] - x[lo]).  A NaN in the window makes
 * it NaN; it is null when the window holds no number or fewer than params->min_count.
 *
 * agg_quantile answers the one percentile params->percentile ("median" is p50) from an
 * indexed double heap with a small sorted middle, in O(log w) per step and mostly in
 * constant time.
 */
#ifndef SWAG_AGG_QUANTILE_H
#define SWAG_AGG_QUANTILE_H

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "agg.h"

extern const struct agg_kind agg_quantile;

/* 10^scale, scale from 0 to 18: a percentile's denominator (agg_params). */
static inline uint64_t
quantile_scale_power(unsigned scale)
{
	static const uint64_t powers[19] = {
		1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000,
		10000000000U, 100000000000U, 1000000000000U, 10000000000000U,
		100000000000000U, 1000000000000000U, 10000000000000000U,
		100000000000000000U, 1000000000000000000U
	};

	return powers[scale];
}

/*
 * The largest percentile_scale of quantile_rank's inline way: 10^15 is below 2^53, so
 * that a remainder below it is a double exactly.
 */
#define QUANTILE_SCALE_INLINE 15

/*
 * quantile_rank for the rare cases, out of line: a q without num (scale 0: tests give
 * a double alone), an N with more than 13 decimals (the fraction rounded once from the
 * remainder's 128-bit quotient), and h from 2^50 on (a 128-bit division).
 */
uint64_t quantile_rank_slowly(uint64_t m, const struct agg_params *params,
    double *fraction);

/*
 * The rank and interpolation fraction of percentile params->percentile over m sorted
 * numbers, as swag(1) writes them (AGGREGATES): h = (m - 1)·q, lo = floor(h),
 * fraction = h - lo, with h exact: q is num / den (agg_params: den = 10^scale), lo the
 * quotient of (m - 1)·num by den and the fraction the remainder over den, correctly
 * rounded, so that an integral h gives x[lo] (p14 of 51 values is x[7], where
 * 50 * 0.14 rounds to 7.000000000000001, which would interpolate towards x[8]).  The
 * double h, within four roundings of 2^-53 each (q's two, m's, the product's) and so
 * less than a half off while it is below 2^50, guesses the quotient, and the
 * remainder it leaves, then between -den and 2·den, is worked out in 64-bit
 * arithmetic (the products' high words cancel) and corrects it.  Every structure that
 * answers a percentile uses this one function, since the heap sizes its lower part
 * from lo.
 */
static inline uint64_t
quantile_rank(uint64_t m, const struct agg_params *params, double *fraction)
{
	/*
	 * m counts values held in memory, so m - 1 < 2^63 and 0 <= h < 2^63: the signed
	 * conversions (one instruction each, where unsigned ones branch) give the same
	 * doubles, and floor(h) is a conversion, where floor() is a libm call.
	 */
	double h = (double)(int64_t)(m - 1) * params->percentile;
	int64_t lo = (int64_t)h, den, rest;

	/* One test for scale 0 and scales past the inline way's (unsigned wrap). */
	if (__builtin_expect((unsigned)params->percentile_scale - 1 >= QUANTILE_SCALE_INLINE ||
	    !(h < 0x1p50), 0))
		return quantile_rank_slowly(m, params, fraction);
	den = (int64_t)quantile_scale_power(params->percentile_scale);
	rest = (int64_t)((m - 1) * params->percentile_num - (uint64_t)lo * (uint64_t)den);
	if (rest < 0) {
		lo--;
		rest += den;
	} else if (rest >= den) {
		lo++;
		rest -= den;
	}
	/* Both exact doubles below 2^53: one rounding, the division's. */
	*fraction = (double)rest / (double)den;
	return (uint64_t)lo;
}

/*
 * The man page's interpolation between x[lo] = lower and x[lo+1] = upper, where
 * their difference is beyond the range (quantile_interpolate): equal neighbours, two
 * infinities of one sign, give their value and not inf - inf = NaN; finite ones more
 * than the largest double apart (-1e308 and 1e308) take the formula in halves, as
 * halving them is exact, so that each step rounds as the formula's would and none
 * overflows where the result, which lies between the two, does not; otherwise IEEE
 * arithmetic decides (-inf and +inf give NaN).
 */
static inline double
quantile_interpolate_wide(double lower, double upper, double fraction)
{
	if (lower == upper)
		return lower;
	if (isfinite(lower) && isfinite(upper))
		return 2 * (lower / 2 + fraction * (upper / 2 - lower / 2));
	return lower + fraction * (upper - lower);
}

/*
 * The man page's interpolation between x[lo] = lower and x[lo+1] = upper: lower +
 * fraction * (upper - lower), which equal neighbours leave as they are (a zero's
 * sign aside, which swag(1) does not print), and quantile_interpolate_wide where
 * the difference is not a finite number.
 */
static inline double
quantile_interpolate(double lower, double upper, double fraction)
{
	double gap = upper - lower;

	if (__builtin_expect(fabs(gap) <= DBL_MAX, 1))
		return lower + fraction * gap;
	return quantile_interpolate_wide(lower, upper, fraction);
}

/* Clamps a percentile to [0, 1]; a NaN one becomes the median rather than poison ranks. */
static inline double
quantile_clamp(double q)
{
	if (!(q >= 0.0))
		return isnan(q) ? 0.5 : 0.0;
	return q > 1.0 ? 1.0 : q;
}

/* What a quantile window holds, for tests and for reporting memory. */
struct quantile_stats {
	uint64_t slots;			/* records in the window, missing ones included */
	uint64_t values;		/* numbers in the window, NaN included */
	size_t ring_capacity;		/* window slots allocated */
	size_t order_capacity;		/* values the order structure has room for */
	size_t bytes;			/* memory held, the window's header included */
	size_t returned;		/* ... of which pages not in memory: from where
					   heap_trim gave them back to the blocks' ends */
};

/* Stores agg's sizes in *stats; agg was made by agg_quantile.create.  Never fails. */
void quantile_window_stats(const struct agg *agg, struct quantile_stats *stats);

/*
 * Checks the invariants of agg's structure (for tests): returns 0, or a number that
 * src/agg_quantile.c's heap_check() explains.  Never fails otherwise.
 */
int quantile_window_check(const struct agg *agg);

#ifdef SWAG_TEST_COUNTERS
/*
 * The work of every quantile window, for the tests that bound a step's work by
 * counting it (counters.h: test builds only).
 */
struct quantile_counters {
	uint64_t moves;		/* levels the heaps' sifts pass */
	uint64_t bytes;		/* bytes a growth copies, and pads written */
};
extern struct quantile_counters quantile_counters;
#endif

#endif /* SWAG_AGG_QUANTILE_H */
