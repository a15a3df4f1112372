/*
 * test_quantile.c: median and pN (agg_quantile.c) against a naive recomputation of
 * each window, and the man page's edge cases one by one.
 *
 * The naive reference copies the window's numbers, sorts them with qsort and applies
 * the man page's formula with the same double arithmetic, so every result must be
 * bit-identical to it; only the sign of a zero may differ, since -0 and +0 are equal
 * and either may sort first.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../agg_steps.h"
#include "agg_quantile.h"
#include "ring.h"

#define MAX_WINDOW 400

/* The percentiles every random sequence checks; the last is drawn per sequence. */
static const double fixed_percentiles[] = { 0, 0.01, 0.25, 0.5, 0.9, 0.99, 0.999, 1 };
#define FIXED_COUNT (sizeof(fixed_percentiles) / sizeof(fixed_percentiles[0]))
#define PERCENTILE_COUNT (FIXED_COUNT + 1)

/* The window as the test sees it, oldest first. */
struct naive {
	bool present[MAX_WINDOW];
	double value[MAX_WINDOW];
	size_t slots;
	double sorted[MAX_WINDOW];	/* the present values, sorted by naive_sort */
	size_t count;
	bool has_nan;
};

static int
compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y ? 1 : 0;
}

/* Collects and sorts the window's values, NaN aside. */
static void
naive_sort(struct naive *w)
{
	w->count = 0;
	w->has_nan = false;
	for (size_t i = 0; i < w->slots; i++) {
		if (!w->present[i])
			continue;
		if (isnan(w->value[i]))
			w->has_nan = true;
		w->sorted[w->count++] = w->value[i];
	}
	qsort(w->sorted, w->count, sizeof(double), compare_doubles);
}

/*
 * The man page's percentile q of the sorted window, written out as it reads: h = (n -
 * 1)·q exact (in binary128, whose 113 bits hold any such product of a count below
 * 2^60), h - lo rounded once to a double.
 */
static void
naive_result(const struct naive *w, double q, uint64_t min_count, struct agg_result *r)
{
	const double *x = w->sorted;
	__float128 h;
	double lo, fraction;

	r->kind = AGG_RESULT_NULL;
	if (w->count == 0 || w->count < min_count)
		return;
	r->kind = AGG_RESULT_NUMBER;
	if (w->has_nan) {
		r->number = NAN;
		return;
	}
	h = (__float128)(w->count - 1) * q;
	lo = (double)(uint64_t)h;
	fraction = (double)(h - (__float128)lo);
	if (fraction == 0 || x[(size_t)lo] == x[(size_t)lo + 1]) {
		r->number = x[(size_t)lo];
	} else if (isfinite(x[(size_t)lo]) && isfinite(x[(size_t)lo + 1]) &&
	    isinf(x[(size_t)lo + 1] - x[(size_t)lo])) {
		/*
		 * The formula where its difference would overflow: every term scaled by
		 * 2^-1 (exact for numbers this large), and the result by 2 again.
		 */
		double a = ldexp(x[(size_t)lo], -1), b = ldexp(x[(size_t)lo + 1], -1);

		r->number = ldexp(a + fraction * (b - a), 1);
	} else {
		r->number = x[(size_t)lo] + fraction * (x[(size_t)lo + 1] - x[(size_t)lo]);
	}
}

/* Asserts got equals want bit for bit, NaN any NaN and a zero either zero. */
static void
check_result(const struct agg_result *got, const struct agg_result *want, const char *what,
    double q, long step)
{
	cr_assert_eq(got->kind, want->kind, "%s q=%.17g step %ld: kind %d, expected %d", what,
	    q, step, got->kind, want->kind);
	if (want->kind != AGG_RESULT_NUMBER)
		return;
	if (isnan(want->number)) {
		cr_assert(isnan(got->number), "%s q=%.17g step %ld: %.17g, expected nan", what, q,
		    step, got->number);
		return;
	}
	cr_assert(memcmp(&got->number, &want->number, sizeof(double)) == 0 ||
	    (got->number == 0 && want->number == 0),
	    "%s q=%.17g step %ld: %.17g, expected %.17g", what, q, step, got->number,
	    want->number);
}

/* How a random sequence draws its values. */
struct value_mix {
	int missing_per_mille;
	int nan_per_mille;
	int inf_per_mille;
	int small_set_per_mille;	/* values from a set of five, for duplicates */
	int zero_per_mille;		/* -0 and +0 */
	int huge_per_mille;		/* from 2^1022 to the largest double, either sign */
};

static double
random_value(const struct value_mix *mix, unsigned *seed)
{
	int r = rand_r(seed) % 1000;

	if ((r -= mix->nan_per_mille) < 0)
		return NAN;
	if ((r -= mix->inf_per_mille) < 0)
		return rand_r(seed) % 2 ? INFINITY : -INFINITY;
	if ((r -= mix->small_set_per_mille) < 0)
		return (double)(rand_r(seed) % 5) - 2;
	if ((r -= mix->zero_per_mille) < 0)
		return rand_r(seed) % 2 ? 0.0 : -0.0;
	if ((r -= mix->huge_per_mille) < 0)
		return ldexp(1 + rand_r(seed) / (RAND_MAX + 1.0), 1023 - rand_r(seed) % 2) *
		    (rand_r(seed) % 2 ? 1 : -1);
	if (r < 50)
		return ldexp((double)rand_r(seed), rand_r(seed) % 200 - 100) *
		    (rand_r(seed) % 2 ? 1 : -1);
	return (rand_r(seed) % 2000000 - 1000000) / 1000.0;
}

/* The number of values (numbers, NaN included) that agg's window holds. */
static uint64_t
values_of(const struct agg *agg)
{
	struct quantile_stats stats;

	quantile_window_stats(agg, &stats);
	return stats.values;
}

/* The number of slots (records, missing ones included) that agg's window holds. */
static uint64_t
slots_of(const struct agg *agg)
{
	struct quantile_stats stats;

	quantile_window_stats(agg, &stats);
	return stats.slots;
}

/*
 * Runs one random push/pop sequence of steps operations on a window for each
 * percentile, the window drifting towards a target size that changes every few
 * hundred steps, and checks each window's invariants after every step and its result
 * after most.
 */
static void
random_sequence(unsigned seed, long steps)
{
	struct naive *w = calloc(1, sizeof(*w));
	struct value_mix mix;
	double q[PERCENTILE_COUNT];
	struct agg *heaps[PERCENTILE_COUNT];
	struct agg_params params;
	uint64_t min_counts[] = { 0, 1, 2, 5, 40 };
	size_t target = 0;

	cr_assert_not_null(w);
	memcpy(q, fixed_percentiles, sizeof(fixed_percentiles));
	q[FIXED_COUNT] = (double)rand_r(&seed) / RAND_MAX;
	memset(&mix, 0, sizeof(mix));
	/* Half the sequences are NaN-free, or NaN would hide the order from the check. */
	mix.missing_per_mille = rand_r(&seed) % 3 * 60;
	mix.nan_per_mille = seed % 2 ? 0 : rand_r(&seed) % 3;
	mix.inf_per_mille = rand_r(&seed) % 3 * 10;
	mix.small_set_per_mille = rand_r(&seed) % 3 * 300;
	mix.zero_per_mille = rand_r(&seed) % 2 * 50;
	/* Neighbours more than the largest double apart, some sequences all huge. */
	mix.huge_per_mille = seed % 5 == 2 ? 150 : seed % 5 == 4 ? 1000 : 0;
	params = (struct agg_params){ .min_count = min_counts[rand_r(&seed) % 5] };
	for (size_t i = 0; i < PERCENTILE_COUNT; i++) {
		params.percentile = q[i];
		heaps[i] = agg_quantile.create(&agg_quantile, &params);
		cr_assert_not_null(heaps[i]);
	}

	for (long step = 0; step < steps; step++) {
		bool push;
		struct agg_result got, want;

		if (step % 300 == 0)
			target = rand_r(&seed) % 3 == 0 ? (size_t)(rand_r(&seed) % 8) :
			    (size_t)(rand_r(&seed) % MAX_WINDOW);
		push = w->slots == 0 || (w->slots < target ? rand_r(&seed) % 5 != 0 :
		    rand_r(&seed) % 5 == 0);
		if (push && w->slots < MAX_WINDOW) {
			struct agg_value v = { 0 };

			v.has_number = v.has_text = rand_r(&seed) % 1000 >= mix.missing_per_mille;
			v.number = v.has_number ? random_value(&mix, &seed) : 0;
			for (size_t i = 0; i < PERCENTILE_COUNT; i++)
				cr_assert_eq(agg_step_push(heaps[i], &v), 0);
			w->present[w->slots] = v.has_number;
			w->value[w->slots] = v.number;
			w->slots++;
		} else {
			for (size_t i = 0; i < PERCENTILE_COUNT; i++)
				agg_step_evict(heaps[i], 1);
			memmove(w->present, w->present + 1, (w->slots - 1) * sizeof(bool));
			memmove(w->value, w->value + 1, (w->slots - 1) * sizeof(double));
			w->slots--;
		}
		naive_sort(w);
		for (size_t i = 0; i < PERCENTILE_COUNT; i++) {
			int broken = quantile_window_check(heaps[i]);

			cr_assert_eq(broken, 0, "q=%.17g step %ld: invariant %d broken", q[i],
			    step, broken);
		}
		for (size_t i = 0; i < PERCENTILE_COUNT; i++) {
			cr_assert_eq(slots_of(heaps[i]), w->slots);
			cr_assert_eq(values_of(heaps[i]), w->count);
		}
		/*
		 * Asking for a result finishes a deferred pop; skip it on some steps so
		 * that pops meet the next push or pop unfinished, as in a pipeline.
		 */
		if (rand_r(&seed) % 3 == 0)
			continue;
		for (size_t i = 0; i < PERCENTILE_COUNT; i++) {
			naive_result(w, q[i], params.min_count, &want);
			agg_step_result(heaps[i], &got);
			check_result(&got, &want, "heap", q[i], step);
		}
	}
	for (size_t i = 0; i < PERCENTILE_COUNT; i++)
		agg_quantile.destroy(heaps[i]);
	free(w);
}

/*
 * 100 sequences of 2,500 steps: 250,000 operations on each of 9 windows, two steps
 * in three followed by 9 checks.
 */
Test(quantile, random_sequences_against_naive)
{
	for (unsigned seed = 1; seed <= 100; seed++)
		random_sequence(seed * 7919, 2500);
}

/* Evicts the k oldest values of the naive window. */
static void
naive_evict(struct naive *w, size_t k)
{
	cr_assert_leq(k, w->slots);
	memmove(w->present, w->present + k, (w->slots - k) * sizeof(bool));
	memmove(w->value, w->value + k, (w->slots - k) * sizeof(double));
	w->slots -= k;
}

/* Appends a record's value to the naive window. */
static void
naive_append(struct naive *w, const struct agg_value *v)
{
	cr_assert_lt(w->slots, MAX_WINDOW);
	w->present[w->slots] = v->has_number;
	w->value[w->slots] = v->number;
	w->slots++;
}

/* How slide_sequence moves its windows. */
enum how {
	ONE_BY_ONE,		/* a move of one step per record, rows set (as agg_slide did) */
	ROW_BATCHES,		/* moves of 1 to 64 steps, rows set: the pipeline's row windows */
	EVICT_BATCHES,		/* the same with evict arrays, as time windows evict */
	INDEXED_BATCHES		/* index lists (as -g gives) and want arrays (as -s does) */
};

#define MAX_BATCH 128		/* records of a batch: steps and the records left out */
#define MAX_HEAPS 16
#define SENTINEL_BYTE 0x5a	/* fills the results that a move must not store */

static bool
is_sentinel(const struct agg_result *r)
{
	const unsigned char *bytes = (const unsigned char *)r;

	for (size_t i = 0; i < sizeof(*r); i++)
		if (bytes[i] != SENTINEL_BYTE)
			return false;
	return true;
}

/*
 * Fills index[0..n) with n different records of [0, records), ascending (as -g gives a
 * key's records) or, when shuffled, in any order.
 */
static void
random_index(agg_index *index, size_t n, size_t records, bool shuffled, unsigned *seed)
{
	size_t k = 0;

	for (size_t r = 0; r < records && k < n; r++)
		if ((size_t)rand_r(seed) % (records - r) < n - k)
			index[k++] = (agg_index)r;
	cr_assert_eq(k, n);
	if (shuffled)
		for (size_t i = n - 1; i > 0; i--) {
			size_t j = (size_t)rand_r(seed) % (i + 1);
			uint8_t t = index[i];

			index[i] = index[j];
			index[j] = t;
		}
}

/*
 * The windows' moves, move() as the pipeline calls it (how), on windows of percentiles
 * q, some of them the edge cases of rounding: rows changes every few hundred steps, a
 * few explicit evictions shrink the window and leave a pop pending for the next move,
 * and some steps store no result (results NULL, or want arrays).  With evict arrays a
 * step evicts one value when the window holds rows (the full window's in-place step),
 * and now and then none, several or all.  Every stored result is checked against the
 * naive window, and that no other result is stored; after each move the invariants,
 * the window's slots and values, and on most moves its result.  The values come from
 * mix, or from a slow sawtooth when sorted is true (each new value the largest or
 * smallest, so the split between the heaps moves on every step).
 */
static void
slide_sequence(unsigned seed, long steps, const double *q, size_t count, bool sorted,
    enum how how)
{
	struct naive *w = calloc(1, sizeof(*w));
	struct agg *heaps[MAX_HEAPS];
	static struct agg_result got[MAX_HEAPS][MAX_BATCH], want[MAX_HEAPS][MAX_BATCH];
	struct value_mix mix = { 0 };
	struct agg_params params = { .min_count = 1 };
	size_t rows = 1;
	long step = 0, next_rows = 0;

	cr_assert_not_null(w);
	cr_assert_leq(count, MAX_HEAPS);
	mix.missing_per_mille = rand_r(&seed) % 2 * 30;
	mix.nan_per_mille = seed % 3 == 0 ? 2 : 0;
	mix.inf_per_mille = rand_r(&seed) % 2 * 10;
	mix.small_set_per_mille = rand_r(&seed) % 3 * 300;
	mix.huge_per_mille = seed % 4 == 3 ? 150 : 0;
	for (size_t i = 0; i < count; i++) {
		params.percentile = q[i];
		heaps[i] = agg_quantile.create(&agg_quantile, &params);
		cr_assert_not_null(heaps[i]);
	}
	while (step < steps) {
		struct agg_value v[MAX_BATCH];
		agg_index index[64];
		uint32_t evict[64];
		unsigned char wanted[MAX_BATCH];
		bool stored[MAX_BATCH] = { false };
		long at[MAX_BATCH];
		size_t n = how == ONE_BY_ONE ? 1 : 1 + (size_t)rand_r(&seed) % 64, records = n;
		bool use_index = false, use_want = false, use_evict = how == EVICT_BATCHES;
		bool use_results = true;
		struct agg_move m = { .n = n };

		if (step >= next_rows) {
			rows = rand_r(&seed) % 3 == 0 ? 1 + (size_t)(rand_r(&seed) % 40) :
			    1 + (size_t)(rand_r(&seed) % (MAX_WINDOW - 1));
			next_rows = step + 400;
		}
		if (how == ONE_BY_ONE)
			use_results = rand_r(&seed) % 4 != 0;
		if (how == INDEXED_BATCHES) {
			use_index = rand_r(&seed) % 4 != 0;
			use_want = rand_r(&seed) % 2 == 0;
			use_evict = rand_r(&seed) % 2 == 0;
			if (use_index)
				records = n + (size_t)rand_r(&seed) % (n + 1);
		}
		if (w->slots > 0 && (size_t)rand_r(&seed) % 50 < (n < 25 ? n : 25)) {
			/* An eviction of its own, left pending for the move. */
			for (size_t i = 0; i < count; i++)
				agg_step_evict(heaps[i], 1);
			naive_evict(w, 1);
		}
		/* A window larger than rows would only grow: give it rows of its size. */
		if (w->slots > rows)
			rows = w->slots;
		memset(v, 0, sizeof(v));
		for (size_t r = 0; r < records; r++) {
			long value_step = step + (long)r;

			v[r].has_number = v[r].has_text = rand_r(&seed) % 1000 >=
			    mix.missing_per_mille;
			if (v[r].has_number)
				v[r].number = sorted ? (double)((value_step / 700) % 2 ? -value_step :
				    value_step) : random_value(&mix, &seed);
			wanted[r] = !use_want || rand_r(&seed) % 4 != 0;
		}
		if (use_index)
			random_index(index, n, records, rand_r(&seed) % 3 == 0, &seed);
		for (size_t i = 0; i < count; i++)
			memset(got[i], SENTINEL_BYTE, sizeof(got[i]));
		/* The naive window's steps, each result as it must be stored. */
		for (size_t j = 0; j < n; j++, step++) {
			size_t r = use_index ? index[j] : j;

			if (use_evict) {
				int choice = rand_r(&seed) % 100;
				/* What a row window evicts, down to rows - 1 if it grew. */
				size_t e = w->slots >= rows ? w->slots - rows + 1 : 0;

				if (choice < 1)
					e = w->slots;
				else if (choice < 6)
					e = w->slots < 4 ? w->slots : 1 + (size_t)rand_r(&seed) % 4;
				else if (choice < 10)
					e = 0;
				if (w->slots - e == MAX_WINDOW)
					e++;
				evict[j] = (uint32_t)e;
				naive_evict(w, e);
			} else if (w->slots == rows) {
				naive_evict(w, 1);
			}
			naive_append(w, &v[r]);
			if (use_results && wanted[r]) {
				naive_sort(w);
				for (size_t i = 0; i < count; i++)
					naive_result(w, q[i], params.min_count, &want[i][r]);
				stored[r] = true;
				at[r] = step;
			}
		}
		m.index = use_index ? index : NULL;
		m.rows = rows;
		m.evict = use_evict ? evict : NULL;
		m.values = v;
		m.want = use_want ? wanted : NULL;
		for (size_t i = 0; i < count; i++) {
			int broken;

			m.results = use_results ? got[i] : NULL;
			cr_assert_eq(agg_quantile.move(heaps[i], &m), n);
			for (size_t r = 0; r < records; r++) {
				if (stored[r])
					check_result(&got[i][r], &want[i][r], "move", q[i], at[r]);
				else
					cr_assert(is_sentinel(&got[i][r]), "seed %u q=%.17g step %ld: "
					    "record %zu's result stored", seed, q[i], step, r);
			}
			broken = quantile_window_check(heaps[i]);
			cr_assert_eq(broken, 0, "seed %u q=%.17g step %ld: invariant %d broken",
			    seed, q[i], step, broken);
		}
		naive_sort(w);
		for (size_t i = 0; i < count; i++) {
			struct agg_result result, expected;

			cr_assert_eq(slots_of(heaps[i]), w->slots);
			cr_assert_eq(values_of(heaps[i]), w->count);
			/* Reading the result finishes a pending pop: not after every move. */
			if (rand_r(&seed) % 3 == 0)
				continue;
			agg_step_result(heaps[i], &result);
			naive_result(w, q[i], params.min_count, &expected);
			check_result(&result, &expected, "after the move", q[i], step);
		}
	}
	for (size_t i = 0; i < count; i++)
		agg_quantile.destroy(heaps[i]);
	free(w);
}

/* Percentiles for the slide tests: the usual, and the ones where rounding bites. */
static const double slide_percentiles[] = {
	0, 0.001, 0.01, 0.1, 1.0 / 3, 0.5, 0.75, 0.9, 0.99, 0.999, 1 - 1e-12,
	0.9999999999999999, 1
};
#define SLIDE_PERCENTILE_COUNT (sizeof(slide_percentiles) / sizeof(slide_percentiles[0]))

Test(quantile, slide_random_sequences_against_naive)
{
	for (unsigned seed = 1; seed <= 30; seed++)
		slide_sequence(seed * 104729, 3000, slide_percentiles, SLIDE_PERCENTILE_COUNT,
		    false, ONE_BY_ONE);
}

/* Sorted runs move the split on every step: mid fills, spills and refills all the time. */
Test(quantile, slide_sorted_runs_against_naive)
{
	for (unsigned seed = 1; seed <= 6; seed++)
		slide_sequence(seed * 15485863, 3000, slide_percentiles,
		    SLIDE_PERCENTILE_COUNT, true, ONE_BY_ONE);
}

/* The same in moves of 1 to 64 steps, as the pipeline moves a batch, every way. */
Test(quantile, move_random_sequences_against_naive)
{
	const enum how hows[] = { ROW_BATCHES, EVICT_BATCHES, INDEXED_BATCHES };

	for (size_t h = 0; h < sizeof(hows) / sizeof(hows[0]); h++)
		for (unsigned seed = 1; seed <= 30; seed++)
			slide_sequence(seed * 104729 + (unsigned)h, 3000, slide_percentiles,
			    SLIDE_PERCENTILE_COUNT, false, hows[h]);
}

Test(quantile, move_sorted_runs_against_naive)
{
	const enum how hows[] = { ROW_BATCHES, EVICT_BATCHES, INDEXED_BATCHES };

	for (size_t h = 0; h < sizeof(hows) / sizeof(hows[0]); h++)
		for (unsigned seed = 1; seed <= 6; seed++)
			slide_sequence(seed * 15485863 + (unsigned)h, 3000, slide_percentiles,
			    SLIDE_PERCENTILE_COUNT, true, hows[h]);
}

/*
 * A time window's steps as the pipeline moves them (quantile_move's by-time path: evict
 * arrays, every result wanted, with and without an index), each step evicting what a
 * bursty arrival gives: none, one, two to five, up to fifty, all but one or all, so
 * that every way of heap_step's time path runs (a push that evicts nothing, a
 * replacement after removals, the general path when the value or the oldest slot is
 * missing or NaN).  The values are few and repeated (duplicates), with NaN and missing
 * ones now and then, or distinct; every result is checked against the naive window,
 * and the invariants after every move.
 */
static size_t
time_step_sequence(unsigned seed, long steps, const double *q, size_t count)
{
	struct naive *w = calloc(1, sizeof(*w));
	struct agg *heaps[MAX_HEAPS];
	static struct agg_result got[MAX_HEAPS][64], want[MAX_HEAPS][64];
	struct value_mix mix = { 0 };
	struct agg_params params = { .min_count = 1 + seed % 3 };
	size_t target = 0, most = 0;

	cr_assert_not_null(w);
	mix.missing_per_mille = seed % 2 * 50;
	mix.nan_per_mille = seed % 3 == 0 ? 10 : 0;
	mix.small_set_per_mille = seed % 4 < 2 ? 700 : 0;
	mix.zero_per_mille = seed % 5 == 0 ? 100 : 0;
	/* Infinities tie with each other and with the heaps' pads, some seeds many. */
	mix.inf_per_mille = seed % 7 == 0 ? 300 : seed % 7 < 3 ? 20 : 0;
	/* Some seeds huge numbers only, of both signs: neighbours that far apart. */
	mix.huge_per_mille = seed % 4 == 1 ? 200 : seed % 8 == 3 ? 1000 : 0;
	for (size_t i = 0; i < count; i++) {
		params.percentile = q[i];
		heaps[i] = agg_quantile.create(&agg_quantile, &params);
		cr_assert_not_null(heaps[i]);
	}
	for (long step = 0; step < steps;) {
		struct agg_value v[64];
		uint32_t evict[64];
		agg_index index[64];
		size_t n = 1 + (size_t)rand_r(&seed) % 64, records = n;
		bool use_index = rand_r(&seed) % 3 == 0;
		struct agg_move m = { .n = n, .evict = evict, .values = v };

		if (use_index)
			records = n + (size_t)rand_r(&seed) % (64 - n + 1);
		memset(v, 0, sizeof(v));
		for (size_t r = 0; r < records; r++) {
			v[r].has_number = v[r].has_text = rand_r(&seed) % 1000 >=
			    mix.missing_per_mille;
			if (v[r].has_number)
				v[r].number = random_value(&mix, &seed);
		}
		if (use_index)
			random_index(index, n, records, false, &seed);
		for (size_t j = 0; j < n; j++, step++) {
			size_t r = use_index ? index[j] : j;
			int choice = rand_r(&seed) % 1000;
			size_t e;

			if (step % 500 == 0) {
				/* Two statements: one draw before the other in every build. */
				size_t range = rand_r(&seed) % 3 == 0 ? 8 : MAX_WINDOW;

				target = (size_t)rand_r(&seed) % range;
			}
			/* Towards the target: mostly none or one, else one or a few. */
			if (choice < 3)
				e = 1 + (size_t)rand_r(&seed) % 50;
			else if (choice < 4)
				e = w->slots;
			else if (choice < 5)
				e = w->slots - (w->slots > 0);
			else if (w->slots < target)
				e = choice < 600 ? 0 : choice < 900 ? 1 : 2;
			else
				e = choice < 200 ? 0 : choice < 500 ? 1 : 2 + (size_t)rand_r(&seed) % 4;

			if (e > w->slots)
				e = w->slots;
			if (w->slots - e == MAX_WINDOW)
				e++;
			evict[j] = (uint32_t)e;
			naive_evict(w, e);
			naive_append(w, &v[r]);
			if (w->slots > most)
				most = w->slots;
			naive_sort(w);
			for (size_t i = 0; i < count; i++)
				naive_result(w, q[i], params.min_count, &want[i][r]);
		}
		m.index = use_index ? index : NULL;
		for (size_t i = 0; i < count; i++) {
			int broken;

			m.results = got[i];
			cr_assert_eq(agg_quantile.move(heaps[i], &m), n);
			for (size_t j = 0; j < n; j++) {
				size_t r = use_index ? index[j] : j;

				check_result(&got[i][r], &want[i][r], "time step", q[i], step);
			}
			broken = quantile_window_check(heaps[i]);
			cr_assert_eq(broken, 0, "seed %u q=%.17g step %ld: invariant %d broken",
			    seed, q[i], step, broken);
			cr_assert_eq(slots_of(heaps[i]), w->slots);
			cr_assert_eq(values_of(heaps[i]), w->count);
		}
	}
	for (size_t i = 0; i < count; i++)
		agg_quantile.destroy(heaps[i]);
	free(w);
	return most;
}

/* The largest window of each sequence is returned, for the test to see they grew. */
Test(quantile, time_steps_against_naive)
{
	size_t most = 0, past_mid = 0;

	for (unsigned seed = 1; seed <= 40; seed++) {
		size_t held = time_step_sequence(seed * 7727, 4000, slide_percentiles,
		    SLIDE_PERCENTILE_COUNT);

		most = held > most ? held : most;
		past_mid += held > 2 * 16;
	}
	/* Windows into both heaps, most of them, and some of hundreds of values. */
	cr_assert_geq(past_mid, 30, "%zu of 40 sequences grew past 32 values", past_mid);
	cr_assert_geq(most, 200, "the largest window held %zu values", most);
}

static struct agg *
make(double q, uint64_t min_count)
{
	struct agg_params params = { .min_count = min_count, .percentile = q };
	struct agg *agg = agg_quantile.create(&agg_quantile, &params);

	cr_assert_not_null(agg);
	return agg;
}

/*
 * A time window's pushes that evict nothing (heap_push_number: a value into a heap,
 * into mid, or one after which x[lo] leaves its place; the ring and the heaps
 * growing), one step at a time: windows grow from empty to MAX_WINDOW - 1 values by
 * pushes, lose 1, several or all of them at once now and then (emptying and refilling
 * the window), and every result is checked against the naive window.  Percentiles p0,
 * p50, p99 and p100 and others, over values that are distinct, few and repeated,
 * rising, falling, or with NaN and missing ones among them, and min counts 1 and 3.
 */
Test(quantile, pushes_without_evictions_against_naive)
{
	static const double qs[] = { 0, 0.01, 0.25, 0.5, 0.75, 0.99, 1 };
	struct naive *w = calloc(1, sizeof(*w));

	cr_assert_not_null(w);
	for (size_t k = 0; k < sizeof(qs) / sizeof(qs[0]); k++)
		for (int mix_kind = 0; mix_kind < 5; mix_kind++) {
			struct value_mix mix = { 0 };
			uint64_t min_count = 1 + 2 * (uint64_t)(mix_kind % 2);
			struct agg *agg = make(qs[k], min_count);
			unsigned seed = 31 * (unsigned)k + (unsigned)mix_kind;

			if (mix_kind == 1)
				mix.small_set_per_mille = 900;
			if (mix_kind == 4) {
				mix.missing_per_mille = 30;
				mix.nan_per_mille = 5;
				mix.small_set_per_mille = 300;
			}
			memset(w, 0, sizeof(*w));
			for (long step = 0; step < 2500; step++) {
				struct agg_value v = { .has_text = true, .has_number = true };
				struct agg_result got, want;
				int r = rand_r(&seed) % 1000;
				size_t e = 0;
				int broken;

				if (w->slots == MAX_WINDOW - 1 || r < 2)
					e = w->slots;
				else if (r < 8)
					e = 1 + (size_t)rand_r(&seed) % 8;
				else if (r < 12)
					e = 1;
				if (e > w->slots)
					e = w->slots;
				v.has_number = rand_r(&seed) % 1000 >= mix.missing_per_mille;
				if (mix_kind == 2)
					v.number = (double)step;
				else if (mix_kind == 3)
					v.number = -(double)step;
				else
					v.number = random_value(&mix, &seed);
				naive_evict(w, e);
				naive_append(w, &v);
				naive_sort(w);
				naive_result(w, qs[k], min_count, &want);
				cr_assert_eq(agg_step(agg, e, &v, &got), 0);
				check_result(&got, &want, "push", qs[k], step);
				broken = quantile_window_check(agg);
				cr_assert_eq(broken, 0, "q=%.17g step %ld: invariant %d broken",
				    qs[k], step, broken);
			}
			agg_quantile.destroy(agg);
		}
	free(w);
}

static void
push_number(struct agg *agg, double x)
{
	struct agg_value v = { .has_text = true, .has_number = true, .number = x };

	cr_assert_eq(agg_step_push(agg, &v), 0);
}

static void
push_missing(struct agg *agg)
{
	struct agg_value v = { 0 };

	cr_assert_eq(agg_step_push(agg, &v), 0);
}

/* The result of agg, asserting it is a number. */
static double
number_of(struct agg *agg)
{
	struct agg_result r;

	agg_step_result(agg, &r);
	cr_assert_eq(r.kind, AGG_RESULT_NUMBER);
	return r.number;
}

static bool
is_null(struct agg *agg)
{
	struct agg_result r;

	agg_step_result(agg, &r);
	return r.kind == AGG_RESULT_NULL;
}

/* Percentile q of values[0..count), pushed in that order, from a fresh window. */
static double
percentile_of(double q, const double *values, size_t count)
{
	struct agg *agg = make(q, 1);
	double result;

	for (size_t i = 0; i < count; i++)
		push_number(agg, values[i]);
	result = number_of(agg);
	agg_quantile.destroy(agg);
	return result;
}

Test(quantile, median_of_four_interpolates)
{
	const double values[] = { 4, 1, 3, 2 };

	cr_assert_eq(percentile_of(0.5, values, 4), 2.5);
}

Test(quantile, p0_is_min_and_p100_is_max)
{
	const double values[] = { 7.5, -3.25, 12, 0, -3.25, 99.125, 4 };

	cr_assert_eq(percentile_of(0, values, 7), -3.25);
	cr_assert_eq(percentile_of(1, values, 7), 99.125);
}

/* p99 of 1..100: h = 99 · 0.99 = 98.01, between x[98] = 99 and x[99] = 100. */
Test(quantile, p99_of_one_to_hundred)
{
	double values[100];
	double h = 99 * 0.99, got;

	for (int i = 0; i < 100; i++)
		values[i] = 100 - i;
	got = percentile_of(0.99, values, 100);
	cr_assert_eq(got, 99 + (h - 98) * (100 - 99));
	cr_assert_float_eq(got, 99.01, 1e-12);
}

/* The fraction rest / den, rounded once: binary128's 113 bits, then a double's. */
static double
exact_fraction(unsigned __int128 product, uint64_t den)
{
	return (double)((__float128)(uint64_t)(product % den) / (__float128)den);
}

/* quantile_rank(m) against integer arithmetic: the rank exact, the fraction rounded once. */
static void
check_rank(const char *name, const struct agg_params *params, uint64_t m)
{
	uint64_t den = quantile_scale_power(params->percentile_scale);
	unsigned __int128 product = (unsigned __int128)(m - 1) * params->percentile_num;
	double fraction;
	uint64_t lo = quantile_rank(m, params, &fraction);

	cr_assert_eq(lo, (uint64_t)(product / den), "%s of %llu: rank %llu", name,
	    (unsigned long long)m, (unsigned long long)lo);
	cr_assert_eq(fraction, exact_fraction(product, den), "%s of %llu: %.17g, not %.17g",
	    name, (unsigned long long)m, fraction, exact_fraction(product, den));
}

/*
 * h is exact (swag(1), pN: "the result is x[lo] when h is integral"): quantile_rank
 * with the exact q of a name against integer arithmetic, for every window size up to
 * 2,000, around 2^50 (where the double h stops guessing) and far past it, and percentiles
 * with up to 16 decimals, whose remainders pass 2^53.  In doubles, 50 * 0.14 is
 * 7.000000000000001 and 100 * 0.29 is 28.999999999999996.
 */
Test(quantile, rank_is_exact)
{
	static const char *const names[] = { "p14", "p29", "p57", "p7", "p99.9", "p0.5",
	    "p33.3", "p58", "p70", "p82", "p99", "p0", "p100", "median", "p12.5", "p43.7",
	    "p43.45", "p32.8758412", "p93.3955842044160735", "p99.9999999999999999",
	    "p0.0000000000000001", "p66.6666666666666667" };
	/* The double h is more than one off here: 4 roundings of 2^-53 past 2^51. */
	static const uint64_t far[] = { UINT64_C(9114475140982456),
	    UINT64_C(9936945504116500), UINT64_C(13183023495626004) };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct agg_params params;

		cr_assert_not_null(agg_lookup(names[i], strlen(names[i]), &params));
		cr_assert_neq(params.percentile_scale, 0, "%s", names[i]);
		for (uint64_t m = 1; m <= 2000; m++)
			check_rank(names[i], &params, m);
		for (uint64_t m = (UINT64_C(1) << 50) - 3000; m < (UINT64_C(1) << 50) * 4;
		    m += (UINT64_C(1) << 40) + 7)
			check_rank(names[i], &params, m);
		for (uint64_t m = (UINT64_C(1) << 53) / 3; m < (UINT64_C(1) << 63);
		    m = m * 3 + 1)
			check_rank(names[i], &params, m);
		for (size_t k = 0; k < sizeof(far) / sizeof(far[0]); k++)
			check_rank(names[i], &params, far[k]);
	}
}

/*
 * q is the double nearest to N/100 (swag(1), pN), rounded once, as strtod reads N with
 * "e-2" after it: N rounded to a double, then divided by 100, is another double for
 * p33.333333333333333333.  The last names put N/100 half-way between two doubles
 * (0.5 + 2^-54), then a 1 beyond 800 significant digits that tips it up.
 */
Test(quantile, percentile_is_the_double_nearest_to_n_over_100)
{
	static const char half[] = "50.0000000000000055511151231257827021181583404541015625";
	static const char *const names[] = { "p33.333333333333333333",
	    "p2.6224154990951454752772", "p99.9", "p14", "p0.00000000000000000000001",
	    "p100.000000000000000000000", "p66.66666666666666666666666666666" };
	size_t count = sizeof(names) / sizeof(names[0]);
	char name[1200], text[sizeof(name) + 4];

	for (size_t i = 0; i < count + 3; i++) {
		struct agg_params params;

		if (i < count)
			snprintf(name, sizeof(name), "%s", names[i]);
		else if (i == count)
			snprintf(name, sizeof(name), "p%s", half);
		else	/* and 900 digits more: 0s, or 0s and a 1 */
			snprintf(name, sizeof(name), "p%s%0*d", half, 900, i == count + 1);
		snprintf(text, sizeof(text), "%se-2", name + 1);
		cr_assert_not_null(agg_lookup(name, strlen(name), &params), "%.40s", name);
		cr_assert_eq(params.percentile, strtod(text, NULL), "%.40s: %a, not %a", name,
		    params.percentile, strtod(text, NULL));
	}
}

/*
 * A percentile with more than 16 decimals is the double q nearest to N/100 (swag(1),
 * pN), and h = (m - 1)·q is still exact: quantile_rank against integer arithmetic on
 * q's significand, the fraction rounded once.  In doubles, 50 times the q of
 * p14.00000000000000001 is 7.000000000000001.
 */
Test(quantile, rank_of_a_double_q_is_exact)
{
	static const char *const names[] = { "p14.00000000000000001",
	    "p29.00000000000000001", "p33.333333333333333333", "p99.99999999999999999",
	    "p0.00000000000000000001", "p57.00000000000000000000001", "p50.000000000000000001" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct agg_params params;
		int exponent;
		uint64_t significand;

		cr_assert_not_null(agg_lookup(names[i], strlen(names[i]), &params));
		cr_assert_eq(params.percentile_scale, 0, "%s", names[i]);
		significand = (uint64_t)ldexp(frexp(params.percentile, &exponent), 53);
		exponent -= 53;
		cr_assert(exponent < 0 && exponent > -128, "%s", names[i]);
		for (uint64_t m = 1; m < (UINT64_C(1) << 53); m = m < 3000 ? m + 1 :
		    m * 5 / 3 + 12345) {
			unsigned __int128 product = (unsigned __int128)(m - 1) * significand;
			unsigned __int128 rest = product & (((unsigned __int128)1 << -exponent) - 1);
			double fraction, expected = ldexp((double)rest, exponent);
			uint64_t lo = quantile_rank(m, &params, &fraction);

			cr_assert_eq(lo, (uint64_t)(product >> -exponent), "%s of %llu: rank %llu",
			    names[i], (unsigned long long)m, (unsigned long long)lo);
			cr_assert_eq(fraction, expected, "%s of %llu: %.17g, not %.17g", names[i],
			    (unsigned long long)m, fraction, expected);
		}
	}
}

/* The pieces of a percentile whose h is integral in exact arithmetic, not in doubles. */
Test(quantile, integral_rank_takes_its_value)
{
	double values[51];
	struct agg_params params = { .min_count = 1 };
	struct agg *agg;

	/* 0 to 7, then 43 values of 1e300: p14's h = 50 · 0.14 = 7 exactly. */
	for (int i = 0; i < 51; i++)
		values[i] = i < 8 ? i : 1e300;
	cr_assert_not_null(agg_lookup("p14", 3, &params));
	params.min_count = 1;
	agg = agg_quantile.create(&agg_quantile, &params);
	cr_assert_not_null(agg);
	for (int i = 0; i < 51; i++)
		push_number(agg, values[i]);
	cr_assert_eq(number_of(agg), 7);
	agg_quantile.destroy(agg);
}

Test(quantile, single_value_is_every_percentile)
{
	const double value = -17.5;

	for (size_t i = 0; i < FIXED_COUNT; i++)
		cr_assert_eq(percentile_of(fixed_percentiles[i], &value, 1), -17.5);
}

/* min_count counts values, NaN included; missing values take a slot but do not count. */
Test(quantile, min_count_counts_values_not_slots)
{
	struct agg *agg = make(0.5, 3);

	cr_assert(is_null(agg));
	push_number(agg, 1);
	push_missing(agg);
	push_number(agg, 2);
	push_missing(agg);
	cr_assert(is_null(agg), "2 values < min_count 3");
	cr_assert_eq(slots_of(agg), 4);
	push_number(agg, NAN);
	cr_assert(isnan(number_of(agg)), "a NaN is a value");
	push_number(agg, 3);
	agg_step_evict(agg, 1);
	cr_assert(isnan(number_of(agg)), "2, NaN, 3 are still 3 values");
	agg_step_evict(agg, 2);
	cr_assert(is_null(agg), "2 values left, the NaN one of them");
	agg_quantile.destroy(agg);
}

Test(quantile, empty_and_all_missing_windows_are_null)
{
	struct agg *agg = make(0.5, 0);

	cr_assert(is_null(agg));
	push_missing(agg);
	push_missing(agg);
	cr_assert(is_null(agg), "min_count 0 still needs a value");
	cr_assert_eq(slots_of(agg), 2);
	push_number(agg, 5);
	cr_assert_eq(number_of(agg), 5);
	agg_step_evict(agg, 1);
	agg_step_evict(agg, 1);
	agg_step_evict(agg, 1);
	cr_assert(is_null(agg));
	cr_assert_eq(slots_of(agg), 0);
	agg_quantile.destroy(agg);
}

Test(quantile, nan_poisons_until_it_leaves)
{
	struct agg *agg = make(0.5, 1);

	push_number(agg, 1);
	push_number(agg, NAN);
	push_number(agg, 3);
	cr_assert(isnan(number_of(agg)));
	agg_step_evict(agg, 1);
	cr_assert(isnan(number_of(agg)));
	agg_step_evict(agg, 1);
	cr_assert_eq(number_of(agg), 3);
	agg_quantile.destroy(agg);
}

/*
 * Infinities sort as numbers; equal neighbours give their value without arithmetic,
 * otherwise IEEE arithmetic decides, as the man page's formula reads.
 */
Test(quantile, infinities_follow_the_formula)
{
	const double two_pos[] = { INFINITY, INFINITY }, two_neg[] = { -INFINITY, -INFINITY };
	const double pos_finite[] = { INFINITY, 1 }, both[] = { INFINITY, -INFINITY };
	const double neg_finite[] = { 1, -INFINITY };
	const double inf_in_middle[] = { -INFINITY, 1, 2, INFINITY, 3 };

	cr_assert_eq(percentile_of(0.5, two_pos, 2), INFINITY);
	cr_assert_eq(percentile_of(0.5, two_neg, 2), -INFINITY);
	cr_assert_eq(percentile_of(0.5, pos_finite, 2), INFINITY);
	cr_assert(isnan(percentile_of(0.5, both, 2)));
	/* -inf + 0.5 · (1 - -inf) = -inf + inf */
	cr_assert(isnan(percentile_of(0.5, neg_finite, 2)));
	cr_assert_eq(percentile_of(0, neg_finite, 2), -INFINITY);
	cr_assert_eq(percentile_of(0.5, inf_in_middle, 5), 2);
	cr_assert_eq(percentile_of(1, inf_in_middle, 5), INFINITY);
}

/*
 * Finite neighbours more than the largest double apart interpolate without overflow
 * (swag(1), WINDOWS: nothing overflows on the way to a result): the result lies
 * between them, as the formula's does with exponents unbounded.
 */
Test(quantile, huge_neighbours_do_not_overflow)
{
	const double apart[] = { -1e308, 1e308 };
	const double widest[] = { DBL_MAX, -DBL_MAX };
	const double same_side[] = { 1e308, 1.5e308 };

	cr_assert_eq(percentile_of(0.5, apart, 2), 0);
	cr_assert_eq(percentile_of(0.25, apart, 2), -5e307);
	cr_assert_eq(percentile_of(0.75, apart, 2), 5e307);
	cr_assert_eq(percentile_of(0, apart, 2), -1e308);
	cr_assert_eq(percentile_of(1, apart, 2), 1e308);
	cr_assert_eq(percentile_of(0.5, widest, 2), 0);
	/* -DBL_MAX + 0.99 * (2 * DBL_MAX), each step rounded as at half the scale. */
	cr_assert_eq(percentile_of(0.99, widest, 2),
	    2 * (-DBL_MAX / 2 + 0.99 * DBL_MAX));
	cr_assert(isfinite(percentile_of(0.999, widest, 2)));
	/* Neighbours whose difference fits take the formula as it is. */
	cr_assert_eq(percentile_of(0.5, same_side, 2), 1e308 + 0.5 * (1.5e308 - 1e308));
}

Test(quantile, negative_and_positive_zero_are_equal)
{
	const double zeros[] = { 0.0, -0.0, 0.0, -0.0, -1, 1 };
	struct agg *agg = make(0.5, 1);

	for (int i = 0; i < 6; i++)
		push_number(agg, zeros[i]);
	cr_assert_eq(number_of(agg), 0);
	for (int i = 0; i < 4; i++) {
		agg_step_evict(agg, 1);
		push_number(agg, i % 2 ? 0.0 : -0.0);
		cr_assert_eq(number_of(agg), 0);
	}
	agg_quantile.destroy(agg);
}

/* A run of equal values with one outlier passing through, popped one by one. */
Test(quantile, duplicates_keep_their_count)
{
	struct agg *agg = make(0.9, 1);

	for (int i = 0; i < 50; i++)
		push_number(agg, i == 25 ? 100 : 7);
	cr_assert_eq(number_of(agg), 7);
	for (int i = 0; i < 49; i++) {
		agg_step_evict(agg, 1);
		cr_assert_eq(values_of(agg), (uint64_t)(49 - i));
	}
	cr_assert_eq(number_of(agg), 7);
	agg_quantile.destroy(agg);
}

/*
 * A row window of 10^9 slots over 10 records holds only those 10: storage follows the
 * elements held, not the window's declared size.  What it holds is the window's own
 * 912 bytes (agg_quantile.c) and a ring of 16 slots, 128 bytes; the bound leaves room
 * for a field or two more, and a tenth of a slot a window row would pass it.
 */
Test(quantile, huge_window_on_few_records_uses_little_memory)
{
	struct agg *agg = make(0.99, 1);
	struct quantile_stats stats;
	const uint64_t window = 1000000000;

	for (int i = 0; i < 10; i++) {
		struct agg_value v = { .has_text = true, .has_number = true, .number = i };

		cr_assert_eq(agg_step_slide(agg, window, &v, NULL), 0);
	}
	quantile_window_stats(agg, &stats);
	cr_assert_eq(stats.slots, 10);
	cr_assert_eq(stats.values, 10);
	cr_assert_leq(stats.ring_capacity, 16);
	cr_assert_leq(stats.order_capacity, 32);
	cr_assert_leq(stats.bytes, 1200, "%zu bytes", stats.bytes);
	agg_quantile.destroy(agg);
}

/* The memory target: at most 40 bytes per slot at a window of 10^6 values. */
Test(quantile, memory_per_slot_at_a_million)
{
	const double qs[] = { 0.5, 0.99 };

	for (int j = 0; j < 2; j++) {
		struct agg *agg = make(qs[j], 1);
		struct quantile_stats stats;
		unsigned seed = 42;

		for (int i = 0; i < 1000000; i++)
			push_number(agg, rand_r(&seed));
		quantile_window_stats(agg, &stats);
		cr_assert_leq(stats.bytes, 40 * 1000000, "%zu bytes", stats.bytes);
		agg_quantile.destroy(agg);
	}
}

/* Sorts n doubles of a, in place. */
static void
sort_doubles(double *a, size_t n)
{
	qsort(a, n, sizeof(*a), compare_doubles);
}

/* Asserts that the median agg gives of all[first, n) (integers: exact) is right. */
static void
check_median_of(struct agg *agg, const double *all, size_t first, size_t n)
{
	static double sorted[240000];
	size_t m = n - first;
	struct agg_result got;

	memcpy(sorted, all + first, m * sizeof(double));
	sort_doubles(sorted, m);
	agg_step_result(agg, &got);
	cr_assert_eq(got.kind, AGG_RESULT_NUMBER);
	cr_assert_eq(got.number, m % 2 ? sorted[m / 2] : (sorted[m / 2 - 1] + sorted[m / 2]) / 2,
	    "median of %zu values", m);
}

/*
 * A time window after a burst (swag(1), WINDOWS): 100,000 values, then all but 50
 * evicted and 20,000 steps that hold 20 to 300; then up to 12,000 and down to 1,000
 * again; then 60,000 values again, and all but 50 evicted again.  Once a heap holds
 * less than a quarter of its capacity, the pages past what the window needs go back
 * to the system (heap_trim), and pads are written there again as it grows, over
 * pages that read as zeros: every result of the small window's steps is checked
 * against the naive window, the structure's invariants every step but while it grows
 * (every 7th), its pads among them, and the median (integers: exact) against a sort
 * now and then.  The pages written again by the second burst go back as well.
 */
Test(quantile, a_burst_gives_its_pages_back)
{
	static const double qs[] = { 0.5, 0.99 };
	static double all[240000];
	struct naive *naive = malloc(sizeof(*naive));
	struct agg *aggs[2];
	struct quantile_stats stats;
	unsigned seed = 77;
	size_t n = 0, held, first;
	uint64_t bytes;

	cr_assert_not_null(naive);
	for (int j = 0; j < 2; j++)
		aggs[j] = make(qs[j], 1);
	for (; n < 100000; n++) {
		all[n] = rand_r(&seed) % 1000;
		for (int j = 0; j < 2; j++)
			push_number(aggs[j], all[n]);
	}
	/* All but 50 leave with the next value's step, from which the naive window runs. */
	memset(naive, 0, sizeof(*naive));
	for (size_t i = n - 49; i < n; i++)
		naive_append(naive, &(struct agg_value){ .has_text = true, .has_number = true,
		    .number = all[i] });
	held = 50;
	for (int step = 0; step < 20000; step++, n++) {
		struct agg_value v = { .has_text = true, .has_number = true };
		size_t e = step == 0 ? n - 49 : held > 300 ? 2 : held < 20 ? 0 :
		    (size_t)rand_r(&seed) % 3;
		struct agg_result got, want;

		all[n] = v.number = rand_r(&seed) % 1000;
		naive_evict(naive, step == 0 ? 0 : e);
		naive_append(naive, &v);
		naive_sort(naive);
		held = naive->slots;
		for (int j = 0; j < 2; j++) {
			int broken;

			cr_assert_eq(agg_step(aggs[j], e, &v, &got), 0);
			naive_result(naive, qs[j], 1, &want);
			check_result(&got, &want, "after a burst", qs[j], step);
			broken = quantile_window_check(aggs[j]);
			cr_assert_eq(broken, 0, "q=%g step %d: invariant %d broken", qs[j], step,
			    broken);
		}
	}
	for (int j = 0; j < 2; j++) {
		quantile_window_stats(aggs[j], &stats);
		/* The heaps' blocks after 100,000 values: 1.6 MB in all, 0.8 in lower. */
		cr_assert_geq(stats.returned, 700000, "q=%g: %zu bytes returned", qs[j],
		    stats.returned);
	}
	/* Up to 12,000 values and down to 1,000: trims at medium sizes, pads kept. */
	first = n - held;
	for (int step = 0; step < 23000; step++, n++) {
		struct agg_value v = { .has_text = true, .has_number = true };
		size_t e = step < 12000 || n - first <= 1000 ? 0 : 2;

		all[n] = v.number = rand_r(&seed) % 1000;
		first += e;
		for (int j = 0; j < 2; j++) {
			int broken;

			cr_assert_eq(agg_step(aggs[j], e, &v, NULL), 0);
			if (step >= 12000 || step % 7 == 0) {
				broken = quantile_window_check(aggs[j]);
				cr_assert_eq(broken, 0, "q=%g step %d, %zu values: invariant %d broken",
				    qs[j], step, n + 1 - first, broken);
			}
		}
		if (step % 1000 == 999)
			check_median_of(aggs[0], all, first, n + 1);
	}
	/* A second burst grows the heaps again, over the pages they gave back. */
	for (; n < 220000; n++) {
		all[n] = rand_r(&seed) % 1000;
		for (int j = 0; j < 2; j++)
			push_number(aggs[j], all[n]);
		if ((n + 1) % 5000 == 0) {
			check_median_of(aggs[0], all, first, n + 1);
			for (int j = 0; j < 2; j++)
				cr_assert_eq(quantile_window_check(aggs[j]), 0, "q=%g at %zu values",
				    qs[j], n + 1 - first);
		}
	}
	/* And all but 50 leave again: the pages the burst wrote again go back too. */
	bytes = quantile_counters.bytes;
	for (int step = 0; step < 5000; step++, n++) {
		struct agg_value v = { .has_text = true, .has_number = true };
		size_t e = step == 0 ? n - first - 49 : 1;

		all[n] = v.number = rand_r(&seed) % 1000;
		first += e;
		for (int j = 0; j < 2; j++)
			cr_assert_eq(agg_step(aggs[j], e, &v, NULL), 0);
	}
	check_median_of(aggs[0], all, first, n);
	for (int j = 0; j < 2; j++)
		cr_assert_eq(quantile_window_check(aggs[j]), 0, "q=%g at the end", qs[j]);
	/* Of the 2 x 16 bytes a value the second burst wrote again, 2.5 MB in all. */
	cr_assert_geq(quantile_counters.bytes - bytes, 1000000, "%llu bytes returned again",
	    (unsigned long long)(quantile_counters.bytes - bytes));
	for (int j = 0; j < 2; j++)
		agg_quantile.destroy(aggs[j]);
	free(naive);
}

/*
 * Each key's time window under -g after a burst: heaps of small blocks (under
 * MEM_MAP_MIN, mem_realloc's) go into fewer entries when they hold less than a quarter
 * of them (heap_shrink), and the results stay the naive window's through every step,
 * x[lo]'s pointer moving with its block (quantile_window_check compares it).
 */
Test(quantile, a_small_burst_shrinks_its_heaps)
{
	static const double qs[] = { 0.01, 0.5, 0.99 };
	struct naive *naive = malloc(sizeof(*naive));
	unsigned seed = 91;

	cr_assert_not_null(naive);
	for (int j = 0; j < 3; j++) {
		struct agg *agg = make(qs[j], 1);
		struct quantile_stats stats;
		size_t burst_capacity, burst_ring;

		memset(naive, 0, sizeof(*naive));
		for (int i = 0; i < 3000; i++) {
			struct agg_value v = { .has_text = true, .has_number = true,
			    .number = rand_r(&seed) % 500 };

			/* The naive window holds the last 300, from which it runs. */
			if (i >= 2700)
				naive_append(naive, &v);
			push_number(agg, v.number);
		}
		quantile_window_stats(agg, &stats);
		burst_capacity = stats.order_capacity;
		burst_ring = stats.ring_capacity;
		cr_assert_geq(burst_capacity, 3000);
		/*
		 * All but 300 leave at the first step; then down to 10 to 40 values, two
		 * leaving a step, then one or none or two.
		 */
		for (int step = 0; step < 6000; step++) {
			struct agg_value v = { .has_text = true, .has_number = true,
			    .number = rand_r(&seed) % 500 };
			size_t e = naive->slots > 40 ? 2 : naive->slots < 10 ? 0 :
			    (size_t)rand_r(&seed) % 3;
			struct agg_result got, want;
			int broken;

			naive_evict(naive, e);
			if (step == 0)
				e += 2700;
			naive_append(naive, &v);
			naive_sort(naive);
			cr_assert_eq(agg_step(agg, e, &v, &got), 0);
			naive_result(naive, qs[j], 1, &want);
			check_result(&got, &want, "after a small burst", qs[j], step);
			broken = quantile_window_check(agg);
			cr_assert_eq(broken, 0, "q=%g step %d: invariant %d broken", qs[j], step,
			    broken);
		}
		quantile_window_stats(agg, &stats);
		/* Each heap under agg_quantile.c's HEAP_SHRINK_MIN (512), where it stops. */
		cr_assert_leq(stats.order_capacity, 1100, "q=%g: room for %zu values after the "
		    "burst's %zu", qs[j], stats.order_capacity, burst_capacity);
		/* A ring of 8-byte words: shrunk at each look while of RING_SHRINK_MIN or more. */
		cr_assert_lt(stats.ring_capacity * 8, RING_SHRINK_MIN, "q=%g: %zu slots after "
		    "the burst's %zu", qs[j], stats.ring_capacity, burst_ring);
		agg_quantile.destroy(agg);
	}
	free(naive);
}

/*
 * The full-window order the pipeline uses: pop, push, result in one step of a row
 * window, with values re-entering.
 */
Test(quantile, sliding_full_window)
{
	struct agg *agg = make(0.5, 1);

	for (int i = 0; i < 1000; i++) {
		struct agg_value v = { .has_text = true, .has_number = true, .number = i % 7 };
		struct agg_result r;

		cr_assert_eq(agg_step_slide(agg, 3, &v, &r), 0);
		cr_assert_eq(r.kind, AGG_RESULT_NUMBER);
		if (i >= 2) {
			double a = (i - 2) % 7, b = (i - 1) % 7, c = i % 7;
			double mid = fmax(fmin(a, b), fmin(fmax(a, b), c));

			cr_assert_eq(r.number, mid, "step %d", i);
			cr_assert_eq(number_of(agg), mid, "step %d", i);
		}
	}
	agg_quantile.destroy(agg);
}

/*
 * The work of one step, counted (agg_quantile.h's quantile_counters): the levels the
 * sifts pass are at most QUANTILE_LEVEL_BOUND(m) for each value the step evicts and
 * for the one it takes, and the bytes a growth copies or pads at most
 * QUANTILE_BYTE_BOUND a step, whatever m: the blocks under MEM_MAP_MIN that a growth
 * copies (at most 128 KiB each of values and positions), a run of pads (512 bytes
 * for each heap), and the pages a trim returns (RING_RELEASE_STEP for all the
 * blocks).  A doubling copy of a block of m/2 entries exceeds it from m = 16,384.
 */
#define QUANTILE_LEVEL_BOUND(m) (2.0 * log2((double)(m) + 2) + 8)
#define QUANTILE_BYTE_BOUND (2 * ((size_t)128 << 10) + 2 * 1024 + RING_RELEASE_STEP)

struct work_check {
	struct agg *agg;
	uint64_t m;		/* the numbers the window holds */
	double most_levels;	/* the largest levels / bound of one step so far */
	uint64_t most_bytes;	/* the most bytes of one step so far */
};

/*
 * One time-window step on c (evict the evict oldest, take x unless NULL, the result
 * read), asserting its work within the bounds for the largest m it passed.
 */
static void
work_step(struct work_check *c, uint64_t evict, const double *x, const char *what)
{
	struct quantile_counters before = quantile_counters;
	struct agg_value v = { .has_text = true, .has_number = true };
	struct agg_result r;
	double bound = (double)(evict + (x != NULL)) * QUANTILE_LEVEL_BOUND(c->m + 1);
	uint64_t levels, bytes;

	if (x != NULL)
		v.number = *x;
	cr_assert_eq(agg_step(c->agg, evict, x != NULL ? &v : NULL, &r), 0);
	cr_assert_leq(evict, c->m);
	c->m += (x != NULL) - evict;
	levels = quantile_counters.moves - before.moves;
	bytes = quantile_counters.bytes - before.bytes;
	cr_assert_leq((double)levels, bound, "%s, m %llu, evict %llu: %llu levels, bound %.1f",
	    what, (unsigned long long)c->m, (unsigned long long)evict,
	    (unsigned long long)levels, bound);
	cr_assert_leq(bytes, QUANTILE_BYTE_BOUND, "%s, m %llu: %llu bytes in one step", what,
	    (unsigned long long)c->m, (unsigned long long)bytes);
	if (bound > 0 && (double)levels / bound > c->most_levels)
		c->most_levels = (double)levels / bound;
	if (bytes > c->most_bytes)
		c->most_bytes = bytes;
}

/* The values the work tests draw: random, rising, falling, or a few repeated. */
enum work_values { WORK_RANDOM, WORK_RISING, WORK_FALLING, WORK_FEW };

static double
work_value(enum work_values how, uint64_t i, unsigned *seed)
{
	switch (how) {
	case WORK_RISING:
		return (double)i;
	case WORK_FALLING:
		return -(double)i;
	case WORK_FEW:
		return rand_r(seed) % 3;
	default:
		return rand_r(seed);
	}
}

static const double work_percentiles[] = { 0, 0.01, 0.5, 0.99, 1 };
#define WORK_PERCENTILES (sizeof(work_percentiles) / sizeof(work_percentiles[0]))

/*
 * Growth from empty to a million values and then a row window of a million sliding,
 * for each way of drawing values: every step within the bounds, the growth of the
 * heaps (copies under MEM_MAP_MIN, mem_remap above, pads a run at a time) included.
 */
Test(quantile, growth_to_a_million_is_bounded_per_step)
{
	const uint64_t million = 1000000;

	for (int how = WORK_RANDOM; how <= WORK_FEW; how++)
		for (size_t k = 0; k < WORK_PERCENTILES; k += how == WORK_RANDOM ? 1 : 2) {
			struct work_check c = { make(work_percentiles[k], 1), 0, 0, 0 };
			unsigned seed = 7 + (unsigned)how;

			for (uint64_t i = 0; i < million + 200000; i++) {
				double x = work_value(how, i, &seed);

				work_step(&c, i >= million, &x, "growth");
			}
			cr_assert_eq(quantile_window_check(c.agg), 0);
			cr_log_info("growth, values %d, q %g: levels at most %.2f of the "
			    "bound, bytes %llu", how, work_percentiles[k], c.most_levels,
			    (unsigned long long)c.most_bytes);
			agg_quantile.destroy(c.agg);
		}
}

/*
 * Time windows: a window that grows to 100,000, loses all but a few in one step,
 * grows to 300,000 and loses most again, and in between steps that evict 0, 1 or
 * several, or a few thousand at once; every step within (evicted + 1) times the bound.
 */
Test(quantile, time_window_steps_are_bounded_per_eviction)
{
	for (int how = WORK_RANDOM; how <= WORK_FEW; how++)
		for (size_t k = 0; k < WORK_PERCENTILES; k += how == WORK_RANDOM ? 1 : 2) {
			struct work_check c = { make(work_percentiles[k], 1), 0, 0, 0 };
			unsigned seed = 11 + (unsigned)how;
			uint64_t i = 0;
			const uint64_t tops[] = { 100000, 300000, 50000 };

			for (size_t t = 0; t < sizeof(tops) / sizeof(tops[0]); t++) {
				while (c.m < tops[t]) {
					double x = work_value(how, i++, &seed);
					int r = rand_r(&seed) % 10000;
					uint64_t evict = r < 7000 ? 0 : r < 9500 ? 1 : r < 9999 ?
					    (uint64_t)(rand_r(&seed) % 4) : (uint64_t)(rand_r(&seed) %
					    3000);

					if (evict > c.m)
						evict = c.m;
					work_step(&c, evict, &x, "time window");
				}
				cr_assert_eq(quantile_window_check(c.agg), 0);
				{
					double x = work_value(how, i++, &seed);

					work_step(&c, c.m - 5, &x, "most evicted at once");
				}
				cr_assert_eq(quantile_window_check(c.agg), 0);
			}
			work_step(&c, c.m, NULL, "all evicted");
			cr_assert_eq(quantile_window_check(c.agg), 0);
			agg_quantile.destroy(c.agg);
		}
}

#ifdef SWAG_FAULT_INJECTION
/*
 * Out of memory (make FAULT=1): the Nth allocation fails, for each of the FAULT_POINTS
 * that the window below makes.  The failing push must return -1 and leave the window
 * as it was, so that the window still agrees with the values that did get in.
 */
#define FAULT_POINTS 10
static int fault_points[FAULT_POINTS] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };

ParameterizedTestParameters(quantile, failed_allocation_leaves_window_intact)
{
	return cr_make_param_array(int, fault_points, FAULT_POINTS);
}

ParameterizedTest(int *fail_at, quantile, failed_allocation_leaves_window_intact)
{
	struct agg_params params = { .min_count = 1, .percentile = 0.5 };
	struct agg *agg;
	char text[16];
	int failures = 0;
	double held = 0;	/* the values 1..held are in the window */

	snprintf(text, sizeof(text), "%d", *fail_at);
	setenv("SWAG_FAIL_ALLOC", text, 1);
	agg = agg_quantile.create(&agg_quantile, &params);
	if (agg == NULL) {
		cr_assert_eq(*fail_at, 1);
		return;
	}
	for (int i = 1; i <= 100; i++) {
		struct agg_value v = { .has_text = true, .has_number = true, .number = held + 1 };

		if (agg_step_push(agg, &v) != 0) {
			failures++;
			cr_assert_eq(slots_of(agg), (uint64_t)held);
			continue;
		}
		held++;
		cr_assert_eq(number_of(agg), (1 + held) / 2);
	}
	agg_quantile.destroy(agg);
	cr_assert_eq(failures, 1, "allocation %d failed %d times", *fail_at, failures);
}
#endif
