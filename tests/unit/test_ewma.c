/*
 * test_ewma.c: ewma against pandas' formulas written out (swag(1), AGGREGATES): with a
 * row window W, Series.ewm(span=W, adjust=True, ignore_na=False).mean(), the value k
 * records old weighing c^k, c = 1 - 2/(W+1) as pandas rounds it; with a time window
 * D, ewm(halflife=D, times=t).mean(), the value t - t' old weighing 2^-(t-t')/D.  The
 * result is Σ w·x / Σ w over every number seen, computed here in binary128 from the
 * whole history, and must be within a few units of rounding of Σ w·|x| / Σ w.  Also:
 * pandas' own documented examples, NaN and the infinities, -m, moves in batches (the
 * same results bit for bit as step by step, evictions ignored), and results at steps
 * that take no value.
 */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../agg_steps.h"
#include "agg.h"

#define U (DBL_EPSILON / 2)
#define HISTORY 3000

typedef __float128 quad;

static quad
quad_abs(quad x)
{
	return x < 0 ? -x : x;
}

/* A history: every record so far, with or without a number, and its timestamp. */
struct history {
	bool present[HISTORY];
	double value[HISTORY];
	int64_t time[HISTORY];
	size_t n;
};

/*
 * The weight in binary128 of record i at record at, with a half-life: 2^-Δ/D, as
 * 2^-whole · 2^-fraction, the fraction's power from exp2 (within an ulp).  (With a
 * span, c^k for k records later, pandas_mean multiplies as it goes back.)
 */
static quad
weight_of(const struct history *h, size_t i, size_t at, int64_t halflife)
{
	uint64_t age = (uint64_t)(h->time[at] - h->time[i]);
	uint64_t whole = age / (uint64_t)halflife;
	double fraction = (double)(age % (uint64_t)halflife) / (double)halflife;

	if (whole > 3000)
		return 0;
	return (quad)exp2(-fraction) * (quad)ldexp(1.0, -(int)whole);
}

/*
 * pandas' mean over the history, in *exact, and the tolerance: 8 units of rounding of
 * Σ w·|x| / Σ w.  Returns false when the history has no number yet.
 */
static bool
pandas_mean(const struct history *h, double c, int64_t halflife, quad *exact,
    double *tolerance)
{
	quad num = 0, den = 0, abs_num = 0, power = 1;	/* power: c^(at - i) */
	size_t at = h->n, from = 0;

	/*
	 * Aged to the last number's record: the records after it age every weight alike,
	 * which leaves the mean as it was (pandas keeps it), even where they age the
	 * weights to 0 (span 1).
	 */
	while (at > 0 && !h->present[at - 1])
		at--;
	if (at-- == 0)
		return false;
	/* swag(1): a record 64 half-lives after the one before starts afresh. */
	for (size_t i = 1; halflife != 0 && i < h->n; i++)
		if (h->time[i] - h->time[i - 1] >= 64 * halflife)
			from = i;
	if (from > at)
		return false;
	for (size_t i = at + 1; i-- > from; power *= c) {
		quad w;

		if (!h->present[i])
			continue;
		w = halflife == 0 ? power : weight_of(h, i, at, halflife);
		num += w * h->value[i];
		abs_num += w * quad_abs(h->value[i]);
		den += w;
	}
	*exact = num / den;
	*tolerance = (double)(8 * U * abs_num / den) + DBL_TRUE_MIN;
	return true;
}

static struct agg *
ewma_make(uint64_t span, int64_t halflife, uint64_t min_count)
{
	struct agg_params params = { .min_count = min_count, .window_rows = span,
	    .window_nanos = halflife };
	struct agg *agg = agg_ewma.create(&agg_ewma, &params);

	cr_assert_not_null(agg);
	return agg;
}

/* c as pandas computes it: alpha = 2 / (span + 1), old_wt_factor = 1 - alpha. */
static double
pandas_decay(uint64_t span)
{
	return 1.0 - 2.0 / ((double)span + 1.0);
}

/*
 * Random histories of finite numbers (ordinary, duplicates, of mixed magnitudes and
 * signs) with missing fields, checked against pandas' mean every few records; with
 * huge, one number in fifty is beyond 1e300, so that the sums go to their scaled
 * form and, as those numbers age away, back, and a few in a hundred are below 1e-240,
 * which the scaled form loses.
 */
static void
random_history_of(uint64_t span, int64_t halflife, unsigned seed, bool huge)
{
	static struct history h;
	struct agg *agg = ewma_make(span, halflife, 0);
	double c = pandas_decay(span);
	int64_t now = 1700000000000000000;
	size_t checked = 0;

	h.n = 0;
	for (size_t i = 0; i < HISTORY; i++) {
		struct agg_value v = { 0 };
		struct agg_result got;
		int r = rand_r(&seed) % 100;
		quad exact;
		double tolerance;

		v.has_number = v.has_text = r >= 10;
		if (huge && r >= 10 && r < 12)
			v.number = ldexp(1.0 + rand_r(&seed) % 1000 / 1000.0,
			    1000 + rand_r(&seed) % 23) * (r % 2 ? 1 : -1);
		else if (huge && r >= 12 && r < 20)
			v.number = ldexp(1.0 + rand_r(&seed) % 1000 / 1000.0,
			    -1000 + rand_r(&seed) % 200) * (r % 2 ? 1 : -1);
		else if (r < 40)
			v.number = (double)(rand_r(&seed) % 5);
		else if (r < 50)
			v.number = ldexp((double)rand_r(&seed), rand_r(&seed) % 80 - 40) *
			    (r % 2 ? 1 : -1);
		else
			v.number = (rand_r(&seed) % 2000000 - 1000000) / 1000.0;
		/* Equal timestamps, small steps and now and then a gap of many half-lives. */
		if (halflife != 0) {
			int g = rand_r(&seed) % 100;

			now += g < 20 ? 0 : g < 98 ? rand_r(&seed) % (halflife / 2 + 1) :
			    halflife * (rand_r(&seed) % 200);
		}
		h.present[h.n] = v.has_number;
		h.value[h.n] = v.number;
		h.time[h.n] = now;
		h.n++;
		cr_assert_eq(agg_step_push_at(agg, &v, now), 0);
		if (i % 7 != 0 && i + 1 != HISTORY)
			continue;
		agg_step_result(agg, &got);
		if (!pandas_mean(&h, c, halflife, &exact, &tolerance)) {
			cr_assert_eq(got.kind, AGG_RESULT_NULL, "record %zu", i);
			continue;
		}
		cr_assert_eq(got.kind, AGG_RESULT_NUMBER, "record %zu", i);
		cr_assert_leq((double)quad_abs(got.number - exact), tolerance,
		    "span %llu halflife %lld record %zu: %.17g, expected %.17g (tolerance %g)",
		    (unsigned long long)span, (long long)halflife, i, got.number, (double)exact,
		    tolerance);
		checked++;
	}
	cr_assert_gt(checked, HISTORY / 10);
	agg->kind->destroy(agg);
}

static void
random_history(uint64_t span, int64_t halflife, unsigned seed)
{
	random_history_of(span, halflife, seed, false);
}

Test(ewma, rows_against_pandas)
{
	static const uint64_t spans[] = { 1, 2, 3, 10, 100, 1000 };

	for (size_t i = 0; i < sizeof(spans) / sizeof(spans[0]); i++)
		random_history(spans[i], 0, 1 + (unsigned)i);
}

Test(ewma, time_against_pandas)
{
	static const int64_t halflives[] = { 1, 1000, 1000000000, 60000000000,
	    3600000000000 };

	for (size_t i = 0; i < sizeof(halflives) / sizeof(halflives[0]); i++)
		random_history(0, halflives[i], 11 + (unsigned)i);
}

/*
 * Numbers beyond 1e300 among the others: once one has weighed away, the sums are back
 * in their plain form and the numbers after it count in full (swag(1), ewma: within a
 * few units of rounding of Σ w·|x| / Σ w).
 */
Test(ewma, huge_numbers_age_away)
{
	static const uint64_t spans[] = { 1, 2, 3, 10 };
	static const int64_t halflives[] = { 1, 1000 };

	for (size_t i = 0; i < sizeof(spans) / sizeof(spans[0]); i++)
		random_history_of(spans[i], 0, 21 + (unsigned)i, true);
	for (size_t i = 0; i < sizeof(halflives) / sizeof(halflives[0]); i++)
		random_history_of(0, halflives[i], 31 + (unsigned)i, true);
}

/* Pushes values[0..n) (NaN for a missing field) at times[k], or 0; returns the last. */
static double
push_all(struct agg *agg, const double *values, const int64_t *times, size_t n,
    double *results)
{
	struct agg_result got = { 0 };

	for (size_t k = 0; k < n; k++) {
		struct agg_value v = { 0 };

		v.has_number = v.has_text = !isnan(values[k]);
		v.number = values[k];
		cr_assert_eq(agg_step_push_at(agg, &v, times != NULL ? times[k] : 0), 0);
		agg_step_result(agg, &got);
		results[k] = got.kind == AGG_RESULT_NUMBER ? got.number : -12345;
	}
	return results[n - 1];
}

/*
 * pandas' documentation of ewm: Series([0, 1, 2, nan, 4]).ewm(com=0.5).mean() (com 0.5
 * is span 2), and the same with halflife='4 days' and times 2020-01-01, 03, 10, 15, 17.
 */
Test(ewma, pandas_examples)
{
	static const double values[] = { 0, 1, 2, NAN, 4 };
	static const double rows[] = { 0, 0.75, 1.615385, 1.615385, 3.670213 };
	static const double by_time[] = { 0, 0.585786, 1.523889, 1.523889, 3.233686 };
	static const int days[] = { 1, 3, 10, 15, 17 };
	int64_t times[5];
	double got[5];
	struct agg *agg = ewma_make(2, 0, 0);

	push_all(agg, values, NULL, 5, got);
	for (int k = 0; k < 5; k++)
		cr_assert(fabs(got[k] - rows[k]) < 5e-7, "rows %d: %.17g", k, got[k]);
	agg->kind->destroy(agg);
	agg = ewma_make(0, 4 * 86400 * INT64_C(1000000000), 0);
	for (int k = 0; k < 5; k++)
		times[k] = days[k] * 86400 * INT64_C(1000000000);
	push_all(agg, values, times, 5, got);
	for (int k = 0; k < 5; k++)
		cr_assert(fabs(got[k] - by_time[k]) < 5e-7, "time %d: %.17g", k, got[k]);
	agg->kind->destroy(agg);
}

/* A NaN or an infinity stays in the history: every later result is NaN or infinite. */
Test(ewma, nan_and_infinities_stay)
{
	static const double inf_then[] = { 1, INFINITY, 5, NAN, 1e308, 2 };
	static const double both[] = { 1, -INFINITY, 3, INFINITY, 4 };
	static const double nan_then[] = { 1, 2, NAN, 3, 4 };
	double got[6];
	struct agg *agg = ewma_make(3, 0, 0);
	struct agg_value v = { .has_text = true, .has_number = true, .number = NAN };
	struct agg_result r;

	push_all(agg, inf_then, NULL, 6, got);
	cr_assert_eq(got[0], 1);
	for (int k = 1; k < 6; k++)
		cr_assert(isinf(got[k]) && got[k] > 0, "%d: %g", k, got[k]);
	agg->kind->destroy(agg);
	agg = ewma_make(3, 0, 0);
	push_all(agg, both, NULL, 5, got);
	cr_assert(isinf(got[1]) && got[1] < 0 && isinf(got[2]) && got[2] < 0);
	cr_assert(isnan(got[3]) && isnan(got[4]));
	agg->kind->destroy(agg);
	/* NaN values (not missing ones: push_all makes those of its NaNs). */
	agg = ewma_make(0, 1000000000, 0);
	for (int k = 0; k < 5; k++) {
		v.number = nan_then[k];
		cr_assert_eq(agg_step_push_at(agg, &v, k * INT64_C(1000000000)), 0);
		agg_step_result(agg, &r);
		cr_assert_eq(r.kind, AGG_RESULT_NUMBER);
		cr_assert(k < 2 ? !isnan(r.number) : isnan(r.number), "%d: %g", k, r.number);
	}
	agg->kind->destroy(agg);
}

/* -m N counts the numbers seen so far (a missing field is none). */
Test(ewma, min_count_counts_numbers_seen)
{
	static const double values[] = { NAN, 1, NAN, 2, 3, NAN };
	double got[6];
	struct agg *agg = ewma_make(1, 0, 3);

	push_all(agg, values, NULL, 6, got);
	/* Null (push_all's -12345) until the third number. */
	for (int k = 0; k < 4; k++)
		cr_assert_eq(got[k], -12345, "%d: %g", k, got[k]);
	/* span 1: the last number alone, through a missing field too. */
	cr_assert_eq(got[4], 3);
	cr_assert_eq(got[5], 3);
	agg->kind->destroy(agg);
}

/*
 * Values beyond 1e300, whose weighted sums would overflow, give their finite mean; a
 * half-life of a nanosecond and gaps of thousands of half-lives leave the last mean.
 */
Test(ewma, range)
{
	static const double huge[] = { DBL_MAX, DBL_MAX, -DBL_MAX, DBL_MAX, 1e-300 };
	double got[5];
	struct agg *agg = ewma_make(1000, 0, 0);
	int64_t times[5] = { 0, 10000, 20000, 20001, INT64_C(1) << 62 };
	static const double small[] = { 1e-300, 3e-300, 5e-300, 7e-300, 1 };

	push_all(agg, huge, NULL, 5, got);
	cr_assert_eq(got[0], DBL_MAX);
	cr_assert_eq(got[1], DBL_MAX);
	for (int k = 2; k < 5; k++)
		cr_assert(isfinite(got[k]) && fabs(got[k]) <= DBL_MAX, "%d: %g", k, got[k]);
	/* (c² + c - 1) / (c² + c + 1) of DBL_MAX, c = 1 - 2/1001, after three values. */
	{
		double c = pandas_decay(1000), ratio = (c * c + c - 1) / (c * c + c + 1);

		cr_assert(fabs(got[2] / DBL_MAX - ratio) < 1e-14, "%.17g, expected %.17g",
		    got[2] / DBL_MAX, ratio);
	}
	agg->kind->destroy(agg);
	agg = ewma_make(0, 1, 0);
	push_all(agg, small, times, 5, got);
	cr_assert_eq(got[0], 1e-300);
	cr_assert_eq(got[1], 3e-300);
	cr_assert_eq(got[2], 5e-300);
	cr_assert(got[3] > 5e-300 && got[3] < 7e-300, "%g", got[3]);
	cr_assert_eq(got[4], 1);
	agg->kind->destroy(agg);
	/* W = 1 weighs the newest number alone: 1e308 leaves nothing of itself. */
	{
		static const double after[] = { 1e308, 1e-300, 1e301, 1.25e-280 };

		agg = ewma_make(1, 0, 0);
		push_all(agg, after, NULL, 4, got);
		cr_assert_eq(got[1], 1e-300);
		cr_assert_eq(got[3], 1.25e-280);
		agg->kind->destroy(agg);
	}
}

/*
 * The same records moved in random batches, with index lists, want arrays, evictions
 * (which ewma ignores) and moves without values, give the results of one step at a
 * time, bit for bit; a move without values changes nothing.
 */
static void
batches(uint64_t span, int64_t halflife, unsigned seed)
{
	struct agg *one = ewma_make(span, halflife, 2), *many = ewma_make(span, halflife, 2);
	int64_t now = 0;

	for (int move = 0; move < 2000; move++) {
		struct agg_value v[64];
		struct agg_result got[64], want_result;
		int64_t times[64];
		uint32_t evict[64];
		unsigned char want[64];
		agg_index index[64];
		size_t n = 1 + (size_t)rand_r(&seed) % 64;
		bool use_values = rand_r(&seed) % 8 != 0;
		struct agg_move m = { .n = n, .rows = span, .times = times, .results = got };

		memset(v, 0, sizeof(v));
		memset(got, 0xa5, sizeof(got));
		for (size_t r = 0; r < n; r++) {
			v[r].has_number = v[r].has_text = rand_r(&seed) % 5 != 0;
			v[r].number = (rand_r(&seed) % 20000 - 10000) / 100.0;
			now += rand_r(&seed) % 3 == 0 ? 0 : rand_r(&seed) % 1000000000;
			times[r] = now;
			evict[r] = (uint32_t)(rand_r(&seed) % 3);
			want[r] = (unsigned char)(rand_r(&seed) % 2);
			index[r] = (agg_index)r;
		}
		if (rand_r(&seed) % 2)
			m.evict = evict;
		if (rand_r(&seed) % 2)
			m.want = want;
		if (rand_r(&seed) % 2)
			m.index = index;
		m.values = use_values ? v : NULL;
		cr_assert_eq(many->kind->move(many, &m), n);
		for (size_t r = 0; r < n; r++) {
			if (use_values)
				cr_assert_eq(agg_step_push_at(one, &v[r], times[r]), 0);
			agg_step_result(one, &want_result);
			if (m.want != NULL && !want[r]) {
				cr_assert_eq(memcmp(&got[r].kind, (unsigned char[4]){ 0xa5, 0xa5,
				    0xa5, 0xa5 }, 4), 0, "an unwanted result was stored");
				continue;
			}
			cr_assert_eq(got[r].kind, want_result.kind, "move %d record %zu", move, r);
			if (got[r].kind == AGG_RESULT_NUMBER)
				cr_assert(memcmp(&got[r].number, &want_result.number,
				    sizeof(double)) == 0, "move %d record %zu: %.17g, expected %.17g",
				    move, r, got[r].number, want_result.number);
		}
	}
	one->kind->destroy(one);
	many->kind->destroy(many);
}

Test(ewma, batches_rows) { batches(30, 0, 5); }
Test(ewma, batches_time) { batches(0, 2000000000, 6); }

/*
 * A record 64 half-lives or more after the one before it starts afresh (what -g's
 * forgetting of the key gives), one a nanosecond sooner does not; a record without a
 * number counts as a record.
 */
Test(ewma, forgets_after_64_half_lives)
{
	const int64_t d = 1000000000;
	static const double values[] = { 1e30, 1 }, with_missing[] = { 1e30, NAN, 1 };
	int64_t times[3] = { 0, 64 * d - 1, 0 };
	double got[3];
	struct agg *agg = ewma_make(0, d, 0);

	/* 1e30 weighs 2^-(64 - 1e-9) of 1: about 5.4e10 in the mean. */
	push_all(agg, values, times, 2, got);
	cr_assert(got[1] > 5e10 && got[1] < 6e10, "%g", got[1]);
	agg->kind->destroy(agg);
	agg = ewma_make(0, d, 0);
	times[1] = 64 * d;
	push_all(agg, values, times, 2, got);
	cr_assert_eq(got[1], 1);
	agg->kind->destroy(agg);
	/* A record without a number 40 half-lives in: 1e30 weighs 2^-80, about 8.3e5. */
	agg = ewma_make(0, d, 0);
	times[1] = 40 * d;
	times[2] = 80 * d;
	push_all(agg, with_missing, times, 3, got);
	cr_assert(got[2] > 8e5 && got[2] < 9e5, "%g", got[2]);
	agg->kind->destroy(agg);
	agg = ewma_make(0, d, 0);
	times[1] = 80 * d;
	push_all(agg, values, times, 2, got);
	cr_assert_eq(got[1], 1);
	agg->kind->destroy(agg);
}

/*
 * Timestamps further apart than INT64_MAX nanoseconds (292 years; they span 584): a
 * half-life of 285 years keeps the history across 298 years (1.04 half-lives); one of
 * UINT64_MAX / 64 nanoseconds (9.1 years) forgets it 64 of them on and not a
 * nanosecond sooner, though that is past INT64_MAX; and one longer never does, not
 * even from the first nanosecond to the last.  1e30 weighs about 2^-64 of 1 (5.4e10
 * in the mean) where it is kept.
 */
Test(ewma, gaps_past_int64_max_forget_only_after_64_half_lives)
{
	const int64_t centuries = INT64_C(2500000) * 3600 * 1000000000;	/* 2,500,000 h */
	const int64_t widest = (int64_t)(UINT64_MAX / 64);	/* 64 of them: 2^64 - 64 ns */
	static const double values[] = { 1, 3 }, huge_first[] = { 1e30, 1 };
	int64_t times[2] = { INT64_C(-4700000000) * 1000000000, INT64_C(4700000000) * 1000000000 };
	double got[2], weight = exp2(-9.4e18 / (double)centuries);
	struct agg *agg = ewma_make(0, centuries, 0);

	push_all(agg, values, times, 2, got);
	cr_assert(fabs(got[1] - (weight + 3) / (weight + 1)) < 1e-12, "%.17g", got[1]);
	agg->kind->destroy(agg);
	times[0] = INT64_MIN;
	times[1] = INT64_MAX - 64;	/* 2^64 - 65 ns on: kept */
	agg = ewma_make(0, widest, 0);
	push_all(agg, huge_first, times, 2, got);
	cr_assert(got[1] > 5e10 && got[1] < 6e10, "%g", got[1]);
	agg->kind->destroy(agg);
	times[1] = INT64_MAX - 63;	/* 2^64 - 64 ns on: forgotten */
	agg = ewma_make(0, widest, 0);
	push_all(agg, huge_first, times, 2, got);
	cr_assert_eq(got[1], 1);
	agg->kind->destroy(agg);
	times[1] = INT64_MAX;
	agg = ewma_make(0, widest + 1, 0);
	push_all(agg, huge_first, times, 2, got);
	cr_assert(got[1] > 5e10 && got[1] < 6e10, "%g", got[1]);
	agg->kind->destroy(agg);
}
