/*
 * test_minmax.c: the monotonic deque of min and max (src/agg_minmax.c) does bounded
 * work for every record: a push compares at most DROP_STEPS + log2(candidates) + 1
 * times, however many candidates it drops, counted by the comparisons kept for tests
 * (src/counters.h), and the results stay those of a naive recomputation of each window.
 *
 * The shapes are the ones that make a push drop many candidates: a sawtooth (a long
 * fall, then a value that beats the whole window), falling values (every value stays a
 * candidate), rising values (each push drops one), plateaus of equal values and signed
 * zeros, and random values.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "../agg_steps.h"
#include "agg.h"

/* agg_minmax.c's linear steps before its binary search. */
#define DROP_STEPS 4

enum shape { SAWTOOTH, FALLING, RISING, PLATEAUS, RANDOM };

/* The value of record i of a shape, with period the sawtooth's fall. */
static double
shape_value(enum shape shape, uint64_t i, uint64_t period, unsigned *seed)
{
	switch (shape) {
	case SAWTOOTH:
		return (double)(period - i % period);
	case FALLING:
		return -(double)i;
	case RISING:
		return (double)i;
	case PLATEAUS:
		/* Runs of equal values, -0 and +0 among them. */
		return (i / 7) % 3 == 0 ? ((i & 1) ? -0.0 : 0.0) : (double)((i / 7) % 5);
	case RANDOM:
		break;
	}
	return (double)(rand_r(seed) % 1000);
}

/* The smallest b with 2^b > n: the comparisons a binary search over n items makes. */
static unsigned
search_steps(uint64_t n)
{
	return n == 0 ? 0 : 64 - (unsigned)__builtin_clzll(n);
}

/* min or max of values[from, to) as the deque must give it (min -0 over +0, max +0). */
static double
naive_extreme(const double *values, uint64_t from, uint64_t to, bool is_max)
{
	double best = values[from];

	for (uint64_t i = from + 1; i < to; i++) {
		double x = values[i];

		if (is_max ? x > best || (x == best && !signbit(x)) :
		    x < best || (x == best && signbit(x)))
			best = x;
	}
	return best;
}

/*
 * Slides a row window of rows over count records of shape on kind, checking after each
 * push that it compared at most DROP_STEPS + search_steps(rows) times and, when check
 * is set, that its result is the naive one (bit for bit, the sign of zero too).
 * Returns the most comparisons of one push.
 */
static uint64_t
slide(const struct agg_kind *kind, enum shape shape, uint64_t rows, uint64_t count,
    bool check)
{
	bool is_max = kind == &agg_max_deque;
	struct agg_params params = { .min_count = 1, .window_rows = rows };
	struct agg *agg = kind->create(kind, &params);
	double *values = malloc(count * sizeof(*values));
	unsigned seed = 15;
	uint64_t most = 0;

	cr_assert_not_null(agg);
	cr_assert_not_null(values);
	for (uint64_t i = 0; i < count; i++) {
		struct agg_value v = { .has_number = true };
		struct agg_result got;
		uint64_t before = agg_minmax_comparisons(agg), used;

		v.number = values[i] = shape_value(shape, i, rows + 3, &seed);
		cr_assert_eq(agg_step_slide(agg, rows, &v, &got), 0);
		used = agg_minmax_comparisons(agg) - before;
		if (used > most)
			most = used;
		cr_assert_leq(used, DROP_STEPS + search_steps(rows),
		    "%s, shape %d, window %llu: push %llu compared %llu times", kind->name,
		    (int)shape, (unsigned long long)rows, (unsigned long long)i,
		    (unsigned long long)used);
		if (check) {
			uint64_t from = i + 1 > rows ? i + 1 - rows : 0;
			double want = naive_extreme(values, from, i + 1, is_max);

			cr_assert_eq(got.kind, AGG_RESULT_NUMBER);
			cr_assert(got.number == want && !signbit(got.number) == !signbit(want),
			    "%s, shape %d, window %llu, record %llu: %g, want %g", kind->name,
			    (int)shape, (unsigned long long)rows, (unsigned long long)i,
			    got.number, want);
		}
	}
	free(values);
	agg->kind->destroy(agg);
	return most;
}

Test(minmax, a_push_compares_log_window_times)
{
	const struct agg_kind *kinds[] = { &agg_min_deque, &agg_max_deque };

	for (size_t k = 0; k < 2; k++)
		for (int shape = SAWTOOTH; shape <= RANDOM; shape++) {
			(void)slide(kinds[k], (enum shape)shape, 100000, 400000, false);
			(void)slide(kinds[k], (enum shape)shape, 1, 50, true);
			(void)slide(kinds[k], (enum shape)shape, 5, 200, true);
			(void)slide(kinds[k], (enum shape)shape, 37, 2000, true);
			(void)slide(kinds[k], (enum shape)shape, 1000, 6000, true);
		}
}

/* The sawtooth's drop of a whole window is a search, not a walk: far fewer than rows. */
Test(minmax, a_whole_window_drops_in_a_search)
{
	uint64_t most = slide(&agg_max_deque, SAWTOOTH, 100000, 300000, false);

	cr_assert_geq(most, search_steps(100000));
	cr_assert_leq(most, DROP_STEPS + search_steps(100000));
}
