/*
 * test_agg.c: every monoid aggregate against a naive recomputation of each window,
 * over random push/pop sequences with missing values, duplicates, NaN and ±inf,
 * and windows that grow and shrink; their move() one step at a time and in batches,
 * as row windows, time windows, with index lists and want arrays; and the contract of
 * move() (agg.h) for every kind, the monoids, ewma, median, p99, mode and distinct (the
 * agg_move tests at the end).  A window changes only through move(): the one-step
 * moves of tests/agg_steps.h drive it value by value.
 *
 * The references are computed in binary128 (__float128, 113-bit significand) from
 * the window's values.  The tolerances are the error bounds of the methods:
 *
 *   sum:    |s - S| <= 2u|S| + 2n²u²·Σ|x|   (compensated summation, u = 2^-53)
 *   avg:    the sum's bound divided by n, plus u|S/n| for the division
 *   var:    |v - V| <= 10·n·u·Σx²/(n-1)      (updating algorithms: Chan et al. 1983)
 *   stddev: |d - D| <= sqrt(var bound) + u·D
 *   min, max, count: bit-exact.
 *
 * plus, for results in the subnormal range, the absolute rounding error there: one
 * smallest subnormal for sum and avg, eight for var.  binary128 has a 15-bit exponent,
 * so the references neither overflow nor underflow where a double would, and they say
 * where the exact result lies against the range of double:
 * clearly inside (|R| <= DBL_MAX/2), the result must be finite and within the bound;
 * clearly outside (|R| >= 2·DBL_MAX), it must be the infinity of R's sign; in between,
 * either (issue 11: nothing may overflow on the way to a result that fits).
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../agg_steps.h"
#include "agg.h"
#include "agg_distinct.h"
#include "agg_mode.h"
#include "agg_quantile.h"
#include "monoid.h"
#include "numparse.h"

#define U (DBL_EPSILON / 2)
#define MAX_WINDOW 300

typedef __float128 quad;

struct naive {
	/* The window, oldest first: present values, NaN for missing ones is not used. */
	bool present[MAX_WINDOW];
	double value[MAX_WINDOW];
	int64_t time[MAX_WINDOW];	/* each value's timestamp, for time windows */
	size_t n;
};

/* Evicts the k oldest values of the naive window. */
static void
naive_evict(struct naive *w, size_t k)
{
	cr_assert_leq(k, w->n);
	memmove(w->present, w->present + k, (w->n - k) * sizeof(w->present[0]));
	memmove(w->value, w->value + k, (w->n - k) * sizeof(w->value[0]));
	memmove(w->time, w->time + k, (w->n - k) * sizeof(w->time[0]));
	w->n -= k;
}

/* Appends a record's value to the naive window, as kind sees it, at time t. */
static void
naive_push(struct naive *w, const struct agg_kind *kind, const struct agg_value *v,
    int64_t t)
{
	cr_assert_lt(w->n, MAX_WINDOW);
	w->present[w->n] = kind->input == AGG_INPUT_TEXT ? v->has_text : v->has_number;
	w->value[w->n] = v->number;
	w->time[w->n] = t;
	w->n++;
}

static quad
quad_abs(quad x)
{
	return x < 0 ? -x : x;
}

/*
 * The square root of a finite x >= 0 in binary128: sqrt() of x brought into the
 * double range by a power of 4, then two Newton steps.  (Not sqrtl: valgrind runs
 * long double at double precision and range.)
 */
static quad
quad_sqrt(quad x)
{
	quad scale = 1, y;

	if (x == 0)
		return x;
	while (x > 0x1p512Q) {
		x *= 0x1p-512Q;
		scale *= 0x1p256Q;
	}
	while (x < 0x1p-512Q) {
		x *= 0x1p512Q;
		scale *= 0x1p-256Q;
	}
	y = sqrt((double)x);
	y = (y + x / y) / 2;
	y = (y + x / y) / 2;
	return y * scale;
}

/* min or max, on either engine (agg_minmax.c's deque or agg_monoid.c's two-stack). */
static bool
is_extreme(const struct agg_kind *kind)
{
	return kind == &agg_min_deque || kind == &agg_max_deque || kind == &agg_min_twostack ||
	    kind == &agg_max_twostack;
}

/* first, last, delta and rate: the window's ends (agg_ends.c). */
static bool
is_end(const struct agg_kind *kind)
{
	return kind == &agg_first || kind == &agg_last || kind == &agg_delta ||
	    kind == &agg_rate;
}

/*
 * The ends of the naive window as the man page defines them: first, last and delta
 * bit-exact (delta is last - first, rounded once); rate's increase summed in binary128
 * from each number and its predecessor, a drop counting the new number itself, over
 * the seconds between the first and the last number (*seconds), with in *abs_steps
 * the sum of the steps' magnitudes (for the tolerance).
 */
static void
naive_ends(const struct agg_kind *kind, const struct naive *w, uint64_t min_count,
    struct agg_result *r, quad *exact, quad *abs_steps, quad *seconds)
{
	size_t n = 0, first = 0, last = 0;
	quad increase = 0;

	*abs_steps = 0;
	*seconds = 0;
	for (size_t i = 0; i < w->n; i++) {
		if (!w->present[i])
			continue;
		if (n++ == 0)
			first = i;
		else {
			double prev = w->value[last], x = w->value[i];
			quad step = x < prev ? (quad)x : (quad)x - (quad)prev;

			/* The double step's NaN (inf - inf) is binary128's too. */
			increase += step;
			*abs_steps += quad_abs(step);
		}
		last = i;
	}
	if (n > 0)
		*seconds = (quad)(w->time[last] - w->time[first]) / 1000000000;
	r->kind = AGG_RESULT_NULL;
	if (n == 0 || n < min_count)
		return;
	if (kind == &agg_rate && (n < 2 || w->time[last] <= w->time[first]))
		return;
	r->kind = AGG_RESULT_NUMBER;
	if (kind == &agg_first)
		r->number = w->value[first];
	else if (kind == &agg_last)
		r->number = w->value[last];
	else if (kind == &agg_delta)
		r->number = w->value[last] - w->value[first];
	else {
		*exact = increase / *seconds;
		r->number = (double)*exact;
		return;
	}
	*exact = r->number;
}

/*
 * The reference result of kind over the naive window, as the man page defines it, and
 * in *exact the value that r->number rounds (the same for min, max and non-finite
 * results).
 */
static void
naive_result(const struct agg_kind *kind, const struct naive *w, uint64_t min_count,
    struct agg_result *r, quad *exact)
{
	size_t n = 0;
	bool nan = false, pos_inf = false, neg_inf = false;
	quad sum = 0;

	*exact = 0;
	if (is_end(kind)) {
		quad abs_steps, seconds;

		naive_ends(kind, w, min_count, r, exact, &abs_steps, &seconds);
		return;
	}
	for (size_t i = 0; i < w->n; i++) {
		if (!w->present[i])
			continue;
		n++;
		if (isnan(w->value[i]))
			nan = true;
		else if (isinf(w->value[i]))
			*(w->value[i] > 0 ? &pos_inf : &neg_inf) = true;
		else
			sum += w->value[i];
	}
	if (kind == &agg_count) {
		r->kind = AGG_RESULT_COUNT;
		r->count = n;
		return;
	}
	r->kind = AGG_RESULT_NULL;
	if (n == 0 || n < min_count)
		return;
	r->kind = AGG_RESULT_NUMBER;
	if (is_extreme(kind)) {
		bool is_min = kind == &agg_min_deque || kind == &agg_min_twostack;
		double best = is_min ? INFINITY : -INFINITY;

		for (size_t i = 0; i < w->n; i++) {
			double x = w->value[i];

			if (!w->present[i])
				continue;
			if (isnan(x)) {
				best = x;
				break;
			}
			/* Of equal zeros min takes -0 and max +0. */
			if (is_min ? (x < best || (x == best && signbit(x))) :
			    (x > best || (x == best && !signbit(x))))
				best = x;
		}
		r->number = best;
		*exact = best;
		return;
	}
	if (kind == &agg_sum || kind == &agg_avg) {
		if (nan || (pos_inf && neg_inf))
			r->number = NAN;
		else if (pos_inf || neg_inf)
			r->number = pos_inf ? INFINITY : -INFINITY;
		else {
			/* The mean of finite values is finite even where their sum is not. */
			*exact = kind == &agg_sum ? sum : sum / n;
			r->number = (double)*exact;
			return;
		}
		*exact = r->number;
		return;
	}
	/* var, stddev */
	if (n < 2) {
		r->kind = AGG_RESULT_NULL;
		return;
	}
	if (nan || pos_inf || neg_inf) {
		r->number = NAN;
		*exact = NAN;
		return;
	}
	{
		quad mean = sum / n, m2 = 0;

		/* Two passes; a square of up to 2^2050 is nothing for binary128. */
		for (size_t i = 0; i < w->n; i++)
			if (w->present[i])
				m2 += (w->value[i] - mean) * (w->value[i] - mean);
		*exact = m2 / (n - 1);
		if (kind == &agg_stddev)
			*exact = quad_sqrt(*exact);
		r->number = (double)*exact;
	}
}

/* The error bound for kind over the window, per the table at the top. */
static double
tolerance(const struct agg_kind *kind, const struct naive *w, quad expected)
{
	quad abs_sum = 0, squares = 0;
	double n = 0;

	for (size_t i = 0; i < w->n; i++)
		if (w->present[i] && isfinite(w->value[i])) {
			abs_sum += quad_abs(w->value[i]);
			squares += (quad)w->value[i] * w->value[i];
			n++;
		}
	if (kind == &agg_sum)
		return (double)(2 * U * quad_abs(expected) + 2 * n * n * U * U * abs_sum) +
		    DBL_TRUE_MIN;
	if (kind == &agg_avg)
		return (double)((2 * U * quad_abs(expected) * n + 2 * n * n * U * U * abs_sum) / n +
		    U * quad_abs(expected)) + DBL_TRUE_MIN;
	if (kind == &agg_var)
		return (double)(10 * n * U * squares / (n - 1)) + 8 * DBL_TRUE_MIN;
	if (kind == &agg_stddev)
		return sqrt((double)(10 * n * U * squares / (n - 1)) + 8 * DBL_TRUE_MIN) +
		    U * (double)quad_abs(expected);
	if (kind == &agg_rate) {
		/* The steps' roundings and their sum's (n values), then two divisions. */
		struct agg_result r;
		quad exact, abs_steps, seconds;

		naive_ends(kind, w, 0, &r, &exact, &abs_steps, &seconds);
		return (double)((n + 2) * U * abs_steps / seconds + 3 * U * quad_abs(expected)) +
		    DBL_TRUE_MIN;
	}
	return 0;
}

/*
 * What a result must be: the naive result, the exact value it rounds, the error bound
 * over the window it came from and that window's size (for messages).
 */
struct expected {
	struct agg_result want;
	quad exact;
	double tolerance;
	size_t n;
};

static void
expect_of(const struct agg_kind *kind, const struct naive *w, uint64_t min_count,
    struct expected *e)
{
	naive_result(kind, w, min_count, &e->want, &e->exact);
	e->tolerance = e->want.kind == AGG_RESULT_NUMBER ? tolerance(kind, w, e->exact) : 0;
	e->n = w->n;
}

static void
check_expected(const struct agg_kind *kind, const struct agg_result *got,
    const struct expected *e, int step)
{
	const struct agg_result *want = &e->want;
	quad exact = e->exact, magnitude = quad_abs(exact);
	double infinity = exact < 0 ? -INFINITY : INFINITY;

	cr_assert_eq(got->kind, want->kind, "%s step %d: kind %d, expected %d", kind->name, step,
	    got->kind, want->kind);
	if (got->kind == AGG_RESULT_COUNT)
		cr_assert_eq(got->count, want->count, "%s step %d", kind->name, step);
	if (got->kind != AGG_RESULT_NUMBER)
		return;
	if (isnan(want->number)) {
		cr_assert(isnan(got->number), "%s step %d: %.17g, expected nan", kind->name, step,
		    got->number);
		return;
	}
	/* Bit-exact: min, max, the ends, and the infinities from infinite values. */
	if (is_extreme(kind) || (is_end(kind) && kind != &agg_rate) ||
	    magnitude == (quad)INFINITY) {
		cr_assert(memcmp(&got->number, &want->number, sizeof(double)) == 0,
		    "%s step %d: %.17g, expected %.17g", kind->name, step, got->number,
		    want->number);
		return;
	}
	/* A finite exact value, clearly outside the range of double, or near its end. */
	if (magnitude >= 2 * (quad)DBL_MAX) {
		cr_assert(got->number == infinity, "%s step %d: %.17g, expected %g (exact %g)",
		    kind->name, step, got->number, infinity, (double)(exact / 4));
		return;
	}
	if (magnitude > (quad)DBL_MAX / 2 && got->number == infinity)
		return;
	cr_assert(isfinite(got->number), "%s step %d: %.17g, expected %.17g (window %zu)",
	    kind->name, step, got->number, want->number, e->n);
	cr_assert_leq((double)quad_abs(got->number - exact), e->tolerance,
	    "%s step %d: %.17g, expected %.17g (window %zu)", kind->name, step, got->number,
	    want->number, e->n);
}

/* Checks got against kind's naive result over the window w. */
static void
check_result(const struct agg_kind *kind, const struct naive *w, uint64_t min_count,
    const struct agg_result *got, int step)
{
	struct expected e;

	expect_of(kind, w, min_count, &e);
	check_expected(kind, got, &e, step);
}

/* A random test value: mostly ordinary numbers, some duplicates, a few specials. */
static double
random_value(unsigned *seed)
{
	int r = rand_r(seed) % 1000;

	if (r < 5)
		return NAN;
	if (r < 10)
		return INFINITY;
	if (r < 15)
		return -INFINITY;
	if (r < 100)
		return (double)(rand_r(seed) % 5);	/* duplicates */
	if (r < 110)
		return r % 2 ? 0.0 : -0.0;
	if (r < 150)
		return ldexp((double)rand_r(seed), rand_r(seed) % 120 - 60) * (r % 2 ? 1 : -1);
	return (rand_r(seed) % 2000000 - 1000000) / 1000.0;
}

/*
 * Runs random push/pop sequences on kind, the window size drifting between 0 and
 * MAX_WINDOW, checking the result after every operation, with values from value().
 * A push and a pop are each a move() of one step (agg_steps.h); the test keeps the
 * window's size itself.
 */
static void
random_sequences_of(const struct agg_kind *kind, uint64_t min_count, unsigned seed,
    double (*value)(unsigned *seed))
{
	struct agg_params params = { .min_count = min_count };
	struct agg *agg = kind->create(kind, &params);
	struct naive w = { .n = 0 };
	struct agg_result got;
	int64_t now = 0;

	cr_assert_not_null(agg);
	for (int step = 0; step < 40000; step++) {
		int target = (step / 2000) % 3 == 0 ? 5 : (step / 2000) % 3 == 1 ? 60 : MAX_WINDOW - 1;
		bool push = w.n == 0 || (w.n < (size_t)target ? rand_r(&seed) % 4 != 0 :
		    rand_r(&seed) % 4 == 0);

		if (push && w.n < MAX_WINDOW) {
			struct agg_value v = { 0 };

			v.has_text = rand_r(&seed) % 8 != 0;
			v.has_number = v.has_text && (kind == &agg_count ? rand_r(&seed) % 2 : 1);
			v.number = v.has_number ? value(&seed) : 0;
			/* Equal timestamps now and then, for rate's "no time between". */
			now += rand_r(&seed) % 3 == 0 ? 0 : rand_r(&seed) % 5000000000;
			cr_assert_eq(agg_step_push_at(agg, &v, now), 0);
			naive_push(&w, kind, &v, now);
		} else {
			agg_step_evict(agg, 1);
			naive_evict(&w, 1);
		}
		agg_step_result(agg, &got);
		check_result(kind, &w, min_count, &got, step);
	}
	kind->destroy(agg);
}

static void
random_sequences(const struct agg_kind *kind, uint64_t min_count, unsigned seed)
{
	random_sequences_of(kind, min_count, seed, random_value);
}

Test(agg, sum_random) { random_sequences(&agg_sum, 1, 1); }
Test(agg, avg_random) { random_sequences(&agg_avg, 1, 2); }
Test(agg, count_random) { random_sequences(&agg_count, 1, 3); }
/* min and max on both engines, whichever is the default (SWAG_FORCE_TWOSTACK). */
Test(agg, min_random) { random_sequences(&agg_min_deque, 1, 4); }
Test(agg, max_random) { random_sequences(&agg_max_deque, 1, 5); }
Test(agg, min_twostack_random) { random_sequences(&agg_min_twostack, 1, 4); }
Test(agg, max_twostack_random) { random_sequences(&agg_max_twostack, 1, 5); }
Test(agg, var_random) { random_sequences(&agg_var, 1, 6); }
Test(agg, first_random) { random_sequences(&agg_first, 1, 21); }
Test(agg, last_random) { random_sequences(&agg_last, 1, 22); }
Test(agg, delta_random) { random_sequences(&agg_delta, 1, 23); }
Test(agg, rate_random) { random_sequences(&agg_rate, 1, 24); }
Test(agg, ends_min_count)
{
	random_sequences(&agg_first, 3, 25);
	random_sequences(&agg_rate, 5, 28);
	/* rate's two windows (agg_ends.c): without its count up to -m 2, with it from 3. */
	random_sequences(&agg_rate, 2, 29);
	random_sequences(&agg_rate, 3, 30);
}

/*
 * rate's slot (swag(1), PERFORMANCE): 40 bytes without its count of numbers, which
 * only -m above 2 needs, 48 with it.  Read off the ring once its slots are mapped,
 * when their bytes are exactly cap slots.
 */
Test(agg, rate_slot_bytes)
{
	static const struct { uint64_t min_count; size_t bytes; } cases[] = {
		{ 1, 40 }, { 2, 40 }, { 3, 48 }, { 1000, 48 } };

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct agg_params params = { .min_count = cases[c].min_count };
		struct agg *agg = agg_rate.create(&agg_rate, &params);
		const struct ring *ring = &((struct monoid_window *)agg)->stack.ring;
		struct agg_value v = { .has_text = true, .has_number = true };

		cr_assert_not_null(agg);
		for (int64_t i = 0; i < 100000 && ring->mapped == 0; i++) {
			v.number = (double)i;
			cr_assert_eq(agg_step_push_at(agg, &v, i * 1000000000), 0);
		}
		cr_assert_neq(ring->mapped, 0);
		cr_assert_eq(ring->mapped, ring->cap * cases[c].bytes,
		    "-m %" PRIu64 ": %zu bytes for %" PRIu64 " slots", cases[c].min_count,
		    ring->mapped, ring->cap);
		agg->kind->destroy(agg);
	}
}
Test(agg, stddev_random) { random_sequences(&agg_stddev, 1, 7); }
Test(agg, min_count_random)
{
	random_sequences(&agg_sum, 20, 8);
	random_sequences(&agg_max_deque, 3, 9);
	random_sequences(&agg_min_twostack, 3, 9);
	random_sequences(&agg_var, 7, 10);
	random_sequences(&agg_count, 50, 11);	/* count ignores -m */
}

/* How move_against_naive moves its window. */
enum how {
	ONE_BY_ONE,		/* a move of one step per record, rows set (as agg_slide did) */
	ROW_BATCHES,		/* moves of 1 to 64 steps, rows set: the pipeline's row windows */
	TIME_BATCHES,		/* the same with evict arrays: a time window */
	INDEXED_BATCHES,	/* index lists (as -g gives) and want arrays (as -s does) */
	INDEXED_RUNS		/* index lists, row or time windows, every result wanted */
};

#define MAX_BATCH 128		/* records of a batch: steps and the records left out */
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

	cr_assert(n <= records && records <= 256);
	/* Selection sampling: each record in with the chance of the places left. */
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
 * Moves a window over 3000 values from value() by move(), as how says, checking every
 * stored result against the naive window, that no other result is stored, and after
 * each move the window's result.  A row window holds window records; a time window
 * (evict arrays) those of the last window time units, the clock advancing by 0, 1 or
 * now and then more than window a record, so that a step evicts none, one, several
 * or all values.
 */
static void
move_against_naive(const struct agg_kind *kind, uint64_t window, unsigned *seed,
    double (*value)(unsigned *seed), enum how how)
{
	struct agg_params params = { .min_count = 1 };
	struct agg *agg = kind->create(kind, &params);
	struct naive w = { .n = 0 };
	static struct expected expected[MAX_BATCH];
	int64_t now = 0;
	int step = 0;

	cr_assert_not_null(agg);
	while (step < 3000) {
		struct agg_value v[MAX_BATCH];
		struct agg_result got[MAX_BATCH], last;
		agg_index index[64];
		unsigned char want[MAX_BATCH];
		bool stored[MAX_BATCH] = { false };
		int at[MAX_BATCH];
		uint32_t evict[64];
		int64_t times[MAX_BATCH];
		size_t n = how == ONE_BY_ONE ? 1 : 1 + (size_t)rand_r(seed) % 64, records = n;
		bool use_index = false, use_want = false, use_evict = how == TIME_BATCHES;
		struct agg_move m = { .n = n, .results = got };
		uint64_t rows = window;

		if (how == INDEXED_BATCHES) {
			use_index = rand_r(seed) % 4 != 0;
			use_want = rand_r(seed) % 2 == 0;
			use_evict = rand_r(seed) % 2 == 0;
			if (use_index)
				records = n + (size_t)rand_r(seed) % (n + 1);
		} else if (how == INDEXED_RUNS) {
			use_index = true;
			/* rate reads timestamps, which only time windows give. */
			use_evict = kind == &agg_rate || rand_r(seed) % 2 == 0;
			records = n + (size_t)rand_r(seed) % (n + 1);
		}
		memset(v, 0, sizeof(v));
		memset(got, SENTINEL_BYTE, sizeof(got));
		for (size_t r = 0; r < records; r++) {
			v[r].has_text = rand_r(seed) % 8 != 0;
			v[r].has_number = v[r].has_text && (kind == &agg_count ? rand_r(seed) % 2 : 1);
			v[r].number = v[r].has_number ? value(seed) : 0;
			want[r] = !use_want || rand_r(seed) % 3 != 0;
		}
		if (use_index)
			random_index(index, n, records, rand_r(seed) % 3 == 0, seed);
		/* After a time window's moves, a row window holds at most what it holds now. */
		if (!use_evict && w.n > rows)
			rows = w.n;
		/* The naive window's steps, each result as it must be stored. */
		for (size_t j = 0; j < n; j++, step++) {
			size_t r = use_index ? index[j] : j;

			if (use_evict) {
				int jump = rand_r(seed) % 40;
				size_t e = 0;

				now += jump == 0 ? (int64_t)window + 1 + rand_r(seed) % 3 :
				    jump < 8 ? 0 : 1;
				times[r] = now;
				while (e < w.n && w.time[e] <= now - (int64_t)window)
					e++;
				if (w.n - e == MAX_WINDOW)	/* many records at one time */
					e++;
				evict[j] = (uint32_t)e;
				naive_evict(&w, e);
			} else if (w.n == rows) {
				naive_evict(&w, 1);
			}
			naive_push(&w, kind, &v[r], now);
			if (want[r]) {
				expect_of(kind, &w, 1, &expected[r]);
				stored[r] = true;
				at[r] = step;
			}
		}
		m.index = use_index ? index : NULL;
		m.rows = rows;
		m.evict = use_evict ? evict : NULL;
		m.values = v;
		m.times = use_evict ? times : NULL;
		m.want = use_want ? want : NULL;
		cr_assert_eq(kind->move(agg, &m), n, "%s: a move of %zu steps", kind->name, n);
		for (size_t r = 0; r < records; r++) {
			if (stored[r])
				check_expected(kind, &got[r], &expected[r], at[r]);
			else
				cr_assert(is_sentinel(&got[r]), "%s step %d: record %zu's result "
				    "stored, though %s", kind->name, step, r,
				    want[r] ? "not in the index" : "not wanted");
		}
		agg_step_result(agg, &last);
		check_result(kind, &w, 1, &last, step);
	}
	kind->destroy(agg);
}

static const struct agg_kind *const monoid_kinds[] = { &agg_sum, &agg_avg, &agg_count,
    &agg_min_deque, &agg_max_deque, &agg_min_twostack, &agg_max_twostack, &agg_var,
    &agg_stddev };

/*
 * move() one record at a time, as a row window (what slide() was), against the naive
 * window: every monoid kind and both engines of min and max, at several window sizes,
 * with missing values, NaN, infinities and signed zeros.
 */
Test(agg, move_one_step_matches_naive)
{
	const uint64_t windows[] = { 1, 2, 7, 100 };
	unsigned seed = 12;

	for (size_t k = 0; k < sizeof(monoid_kinds) / sizeof(monoid_kinds[0]); k++)
		for (size_t j = 0; j < sizeof(windows) / sizeof(windows[0]); j++)
			move_against_naive(monoid_kinds[k], windows[j], &seed, random_value,
			    ONE_BY_ONE);
}

/*
 * The same in moves of 1 to 64 records, as the pipeline moves a batch: row windows
 * (rows), time windows (evict arrays), and index lists with want arrays.
 */
Test(agg, move_batches_match_naive)
{
	const uint64_t windows[] = { 1, 2, 7, 100 };
	const enum how hows[] = { ROW_BATCHES, TIME_BATCHES, INDEXED_BATCHES };
	unsigned seed = 13;

	for (size_t k = 0; k < sizeof(monoid_kinds) / sizeof(monoid_kinds[0]); k++)
		for (size_t j = 0; j < sizeof(windows) / sizeof(windows[0]); j++)
			for (size_t h = 0; h < sizeof(hows) / sizeof(hows[0]); h++)
				move_against_naive(monoid_kinds[k], windows[j], &seed,
				    random_value, hows[h]);
}

/*
 * Row windows in batches again, at the sizes where a two-stack kind's run (monoid.h)
 * changes course: 3, the smallest window it serves; 15 to 17, around the first ring's
 * 16 slots, where filling stops for growth and the stretches stop at the ring's wrap;
 * 33 and 255, the front and back stacks wrapping at other places.  The same over one
 * key's records (index lists, every result wanted) and in time windows of those
 * lengths, where a run stops before a flip, a growth or a wrap too, alone and with
 * index lists; rate, which reads each step's timestamp, in time windows only.
 */
Test(agg, row_runs_match_naive)
{
	static const struct agg_kind *const kinds[] = { &agg_sum, &agg_avg, &agg_count,
	    &agg_min_twostack, &agg_var, &agg_first, &agg_last, &agg_delta, &agg_rate };
	const uint64_t windows[] = { 3, 4, 15, 16, 17, 33, 255 };
	const enum how hows[] = { ROW_BATCHES, TIME_BATCHES, INDEXED_RUNS };
	unsigned seed = 14;

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		for (size_t j = 0; j < sizeof(windows) / sizeof(windows[0]); j++)
			for (size_t h = 0; h < sizeof(hows) / sizeof(hows[0]); h++)
				if (kinds[k] != &agg_rate || hows[h] != ROW_BATCHES)
					move_against_naive(kinds[k], windows[j], &seed,
					    random_value, hows[h]);
}

/*
 * Windows of more than TWOSTACK_EAGER_MAX records, where the two-stack kinds turn
 * rather than flip (twostack.h, "Bounded work"), against an exact naive window: integer
 * values, so that sum, count, avg, first, last, delta, min, max and rate are exact in
 * any grouping, var within 1e-9 of the naive one.  Every result of every move is
 * checked.  The naive window keeps its sums, its numbers' positions, rate's increase
 * and a count of each value as they change (min and max are found in the counts in
 * about 90 steps); at every 1,009th record its count, min and max are checked against
 * a scan of the window, so the model is checked too.  Each kind's combines are counted
 * (src/counters.h): a record
 * of a row window costs at most 2 * (1 + TWOSTACK_TURN_RATIO) + 2, one of a time
 * window that evicts e records 5 * (e + 1) + 1, but where the window flips (it held
 * at most TWOSTACK_EAGER_MAX + 1 records) or has just passed that size.
 */
#define BIG_MAX 80000
/* The values: integers in [BIG_LEAST, BIG_LEAST + BIG_VALUES). */
#define BIG_LEAST (-1000)
#define BIG_VALUES 2001
#define BIG_RUN 45
#define BIG_RUNS ((BIG_VALUES + BIG_RUN - 1) / BIG_RUN)

struct big_naive {
	int64_t value[BIG_MAX];	/* by position % BIG_MAX */
	bool present[BIG_MAX];
	int64_t time[BIG_MAX];
	uint64_t head, tail;	/* the positions held */
	int64_t sum, sq;	/* of the numbers held */
	uint64_t n;
	uint64_t num[BIG_MAX];	/* the numbers' positions, oldest first, by index % BIG_MAX */
	uint64_t num_head, num_tail;
	int64_t increase;	/* rate's, between the numbers held */
	/* How many numbers held are v, at bins[v + BIG_LEAST], and in each run of BIG_RUN. */
	uint32_t bins[BIG_RUNS * BIG_RUN];
	uint32_t runs[BIG_RUNS];
};

static void
big_count(struct big_naive *w, int64_t x, int delta)
{
	size_t bin = (size_t)(x - BIG_LEAST);

	cr_assert_lt(bin, BIG_VALUES);
	w->bins[bin] += (uint32_t)delta;
	w->runs[bin / BIG_RUN] += (uint32_t)delta;
}

/* The least (least) or greatest number held by the counts; some must be held. */
static int64_t
big_extreme(const struct big_naive *w, bool least)
{
	size_t run, bin;

	for (run = 0; w->runs[least ? run : BIG_RUNS - 1 - run] == 0; run++)
		;
	run = least ? run : BIG_RUNS - 1 - run;
	for (bin = 0; w->bins[run * BIG_RUN + (least ? bin : BIG_RUN - 1 - bin)] == 0; bin++)
		;
	return (int64_t)(run * BIG_RUN + (least ? bin : BIG_RUN - 1 - bin)) + BIG_LEAST;
}

static int64_t
big_step(int64_t prev, int64_t x)
{
	return x < prev ? x : x - prev;
}

static void
big_push(struct big_naive *w, bool present, int64_t x, int64_t time)
{
	uint64_t p = w->tail++;

	cr_assert_lt(w->tail - w->head, BIG_MAX);
	w->value[p % BIG_MAX] = x;
	w->present[p % BIG_MAX] = present;
	w->time[p % BIG_MAX] = time;
	if (!present)
		return;
	if (w->num_tail > w->num_head)
		w->increase += big_step(w->value[w->num[(w->num_tail - 1) % BIG_MAX] % BIG_MAX],
		    x);
	w->num[w->num_tail++ % BIG_MAX] = p;
	big_count(w, x, 1);
	w->sum += x;
	w->sq += x * x;
	w->n++;
}

static void
big_evict(struct big_naive *w)
{
	uint64_t p = w->head++;

	if (!w->present[p % BIG_MAX])
		return;
	w->num_head++;
	if (w->num_tail > w->num_head)
		w->increase -= big_step(w->value[p % BIG_MAX],
		    w->value[w->num[w->num_head % BIG_MAX] % BIG_MAX]);
	big_count(w, w->value[p % BIG_MAX], -1);
	w->sum -= w->value[p % BIG_MAX];
	w->sq -= w->value[p % BIG_MAX] * w->value[p % BIG_MAX];
	w->n--;
}

/* Checks the naive window's count, least and greatest number against a scan of it. */
static void
big_check_model(const struct big_naive *w)
{
	int64_t least = INT64_MAX, greatest = INT64_MIN;
	uint64_t n = 0;

	for (uint64_t p = w->head; p < w->tail; p++)
		if (w->present[p % BIG_MAX]) {
			int64_t x = w->value[p % BIG_MAX];

			n++;
			least = x < least ? x : least;
			greatest = x > greatest ? x : greatest;
		}
	cr_assert_eq(n, w->n);
	if (n > 0) {
		cr_assert_eq(big_extreme(w, true), least);
		cr_assert_eq(big_extreme(w, false), greatest);
	}
}

/* The result kind gives over the naive window. */
static struct agg_result
big_expect(const struct agg_kind *kind, const struct big_naive *w)
{
	struct agg_result r = { .kind = AGG_RESULT_NUMBER };
	int64_t first = 0, last = 0;

	if (kind == &agg_count)
		return (struct agg_result){ .kind = AGG_RESULT_COUNT, .count = w->n };
	if (w->n == 0 || ((kind == &agg_var || kind == &agg_rate) && w->n < 2))
		return (struct agg_result){ .kind = AGG_RESULT_NULL };
	first = w->value[w->num[w->num_head % BIG_MAX] % BIG_MAX];
	last = w->value[w->num[(w->num_tail - 1) % BIG_MAX] % BIG_MAX];
	if (kind == &agg_rate) {
		int64_t t0 = w->time[w->num[w->num_head % BIG_MAX] % BIG_MAX];
		int64_t t1 = w->time[w->num[(w->num_tail - 1) % BIG_MAX] % BIG_MAX];

		if (t1 <= t0)
			return (struct agg_result){ .kind = AGG_RESULT_NULL };
		r.number = (double)w->increase / ((double)(uint64_t)(t1 - t0) / 1e9);
	} else if (kind == &agg_sum)
		r.number = (double)w->sum;
	else if (kind == &agg_avg)
		r.number = (double)w->sum / (double)w->n;
	else if (kind == &agg_first)
		r.number = (double)first;
	else if (kind == &agg_last)
		r.number = (double)last;
	else if (kind == &agg_delta)
		r.number = (double)last - (double)first;
	else if (kind == &agg_var)
		r.number = ((double)w->sq - (double)w->sum * (double)w->sum / (double)w->n) /
		    (double)(w->n - 1);
	else
		r.number = (double)big_extreme(w, kind == &agg_min_twostack);
	return r;
}

/* Checks result got of kind, at the given record, against want, big_expect's. */
static void
big_check(const struct agg_kind *kind, const struct agg_result *got,
    const struct agg_result *want, uint64_t record)
{
	cr_assert_eq(got->kind, want->kind, "%s, record %" PRIu64 ": result kind %d, not %d",
	    kind->name, record, (int)got->kind, (int)want->kind);
	if (want->kind == AGG_RESULT_COUNT)
		cr_assert_eq(got->count, want->count, "count, record %" PRIu64, record);
	else if (want->kind != AGG_RESULT_NUMBER)
		return;
	else if (kind == &agg_var)
		cr_assert(fabs(got->number - want->number) <= 1e-9 * fabs(want->number) + 1e-9,
		    "var, record %" PRIu64 ": %.17g, not %.17g", record, got->number,
		    want->number);
	else
		cr_assert_eq(got->number, want->number, "%s, record %" PRIu64
		    ": %.17g, not %.17g", kind->name, record, got->number, want->number);
}

static uint64_t
big_combines(const struct agg *agg)
{
	return ((const struct monoid_window *)agg)->stack.combines;
}

/*
 * A row window of rows records (time NULL) or a time window of span time units, the
 * clock advancing by 0 or 1 a record and now and then by more than half the span (a
 * burst of evictions), over records records in moves of 1 to 128 (a quarter of them of
 * one step), over every record or an ascending half of them (as -g moves a key's).
 */
static void
big_against_naive(const struct agg_kind *kind, uint64_t rows, int64_t span,
    uint64_t records, unsigned *seed)
{
	struct agg_params params = { .min_count = 1 };
	struct agg *agg = kind->create(kind, &params);
	static struct big_naive w;
	uint64_t record = 0;
	int64_t now = 0;

	memset(&w, 0, sizeof(w));
	cr_assert_not_null(agg);
	while (record < records) {
		struct agg_value v[128];
		struct agg_result got[128], want[128];
		int64_t times[128];
		uint32_t evict[128];
		agg_index index[128];
		bool single = rand_r(seed) % 4 == 0;
		size_t n = single ? 1 : 1 + (size_t)rand_r(seed) % 128, batch = n;
		bool indexed = !single && rand_r(seed) % 3 == 0;
		struct agg_move m = { .n = n, .rows = rows, .values = v, .results = got };
		uint64_t before = w.tail - w.head, least = before, combines, bound;
		size_t evicted = 0;

		if (indexed) {
			batch = n < 64 ? 2 * n : 128;
			random_index(index, n, batch, false, seed);
			m.index = index;
		}
		memset(v, 0, sizeof(v));
		for (size_t r = 0; r < batch; r++) {
			v[r].has_text = v[r].has_number = rand_r(seed) % 16 != 0;
			v[r].number = v[r].has_number ? (double)(rand_r(seed) % 2001 - 1000) : 0;
		}
		for (size_t j = 0; j < n; j++) {
			size_t r = indexed ? index[j] : j;
			uint32_t e = 0;

			if (span != 0) {
				int jump = rand_r(seed) % 20000;

				now += jump == 0 ? span / 2 + rand_r(seed) % span :
				    rand_r(seed) % 8 == 0 ? 0 : 1;
				times[r] = now * 1000000000;
				while (w.head + e < w.tail &&
				    w.time[(w.head + e) % BIG_MAX] <= times[r] - span * 1000000000)
					e++;
				evict[j] = e;
				evicted += e;
			} else if (w.tail - w.head == rows)
				e = 1;
			for (uint32_t i = 0; i < e; i++)
				big_evict(&w);
			if (w.tail - w.head < least)
				least = w.tail - w.head;
			big_push(&w, v[r].has_number, (int64_t)v[r].number, span != 0 ? times[r] : 0);
			want[r] = big_expect(kind, &w);
			if ((record + j) % 1009 == 0)
				big_check_model(&w);
		}
		if (span != 0) {
			m.evict = evict;
			m.times = times;
			m.rows = 0;
		}
		combines = big_combines(agg);
		cr_assert_eq(kind->move(agg, &m), n);
		combines = big_combines(agg) - combines;
		bound = span != 0 ? 5 * (evicted + n) + n : n * (2 * (1 + TWOSTACK_TURN_RATIO) + 2);
		if (least <= TWOSTACK_EAGER_MAX + 1 || before <= TWOSTACK_EAGER_MAX + 1)
			bound += n * (TWOSTACK_EAGER_MAX + 1);
		cr_assert_leq(combines, bound, "%s, records %" PRIu64 " to %" PRIu64 " (window %"
		    PRIu64 ", evicting %zu): %" PRIu64 " combines", kind->name, record,
		    record + n - 1, before, evicted, combines);
		for (size_t j = 0; j < n; j++) {
			size_t r = indexed ? index[j] : j;

			big_check(kind, &got[r], &want[r], record + j);
		}
		record += n;
	}
	kind->destroy(agg);
}

Test(agg, large_windows_match_naive)
{
	static const struct agg_kind *const kinds[] = { &agg_sum, &agg_avg, &agg_count,
	    &agg_min_twostack, &agg_max_twostack, &agg_var, &agg_first, &agg_last,
	    &agg_delta, &agg_rate };
	const uint64_t windows[] = { TWOSTACK_EAGER_MAX - 1, TWOSTACK_EAGER_MAX + 1,
	    3 * TWOSTACK_EAGER_MAX + 7, 70000 };
	unsigned seed = 15;

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		for (size_t j = 0; j < sizeof(windows) / sizeof(windows[0]); j++) {
			if (kinds[k] != &agg_rate)
				big_against_naive(kinds[k], windows[j], 0, 4 * windows[j], &seed);
			/* A time window holding about windows[j] * 7 / 8 records. */
			big_against_naive(kinds[k], 0, (int64_t)windows[j], 3 * windows[j],
			    &seed);
		}
}

/* Moves a row window of the given size on by the value x and returns the result. */
static double
slide(struct agg *agg, uint64_t window, double x)
{
	struct agg_value v = { .has_text = true, .has_number = true, .number = x };
	struct agg_result r;

	cr_assert_eq(agg_step_slide(agg, window, &v, &r), 0);
	cr_assert_eq(r.kind, AGG_RESULT_NUMBER);
	return r.number;
}

/*
 * The repeating pattern [1e20, 1, -1e20] sums exactly at every window size: a plain
 * running sum gives 0 or -1, and a rolling one never recovers.
 */
Test(agg, sum_cancellation_exact)
{
	static const double pattern[3] = { 1e20, 1, -1e20 };
	static const int64_t scaled[3] = { 100000000000000000, 1, -100000000000000000 };

	for (uint64_t window = 1; window <= 64; window++) {
		struct agg_params params = { .min_count = 1 };
		struct agg *agg = agg_sum.create(&agg_sum, &params);

		for (uint64_t i = 0; i < 600; i++) {
			/* The exact sum, in units where 1e20 is 1e17 and 1 is 1 (exact in int64). */
			__int128 exact = 0;

			for (uint64_t j = i + 1 > window ? i + 1 - window : 0; j <= i; j++)
				exact += j % 3 == 1 ? 1 : (__int128)scaled[j % 3] * 1000;
			cr_assert_eq(slide(agg, window, pattern[i % 3]), (double)exact,
			    "window %llu, record %llu", (unsigned long long)window,
			    (unsigned long long)i);
		}
		agg->kind->destroy(agg);
	}
}

/* A NaN or infinity poisons exactly the windows that contain it. */
Test(agg, nonfinite_leaves_with_its_value)
{
	struct agg_params params = { .min_count = 1 };
	const struct agg_kind *kinds[] = { &agg_sum, &agg_avg, &agg_min_deque, &agg_max_deque,
	    &agg_min_twostack, &agg_max_twostack, &agg_var, &agg_stddev };

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		struct agg *agg = kinds[k]->create(kinds[k], &params);
		double inputs[] = { 1, 2, NAN, 3, 4, 5, INFINITY, 6, 7, 8, -INFINITY, INFINITY, 9,
		    10, 11 };

		struct agg_value first = { .has_text = true, .has_number = true, .number = 0 };

		/* A first value, so that var and stddev are never null below. */
		cr_assert_eq(agg_step_push(agg, &first), 0);
		for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
			double r = slide(agg, i == 0 ? 4 : 3, inputs[i]);
			bool has_nan = false, has_pos = false, has_neg = false;

			for (size_t j = i >= 2 ? i - 2 : 0; j <= i; j++) {
				has_nan |= isnan(inputs[j]);
				has_pos |= inputs[j] == INFINITY;
				has_neg |= inputs[j] == -INFINITY;
			}
			if (has_nan || (has_pos && has_neg))
				cr_assert(isnan(r) || (is_extreme(kinds[k]) && !has_nan),
				    "%s record %zu: %g", kinds[k]->name, i, r);
			else if (!has_pos && !has_neg)
				cr_assert(isfinite(r), "%s record %zu: %g", kinds[k]->name, i, r);
		}
		agg->kind->destroy(agg);
	}
}

Test(agg, infinities_follow_ieee)
{
	struct agg_params params = { .min_count = 1 };
	struct agg *sum = agg_sum.create(&agg_sum, &params);
	struct agg *var = agg_var.create(&agg_var, &params);
	struct agg *min = agg_min.create(&agg_min, &params);

	cr_assert_eq(slide(sum, 10, 1), 1);
	cr_assert_eq(slide(sum, 10, INFINITY), INFINITY);	/* 1 + inf = inf, not NaN */
	cr_assert(isnan(slide(sum, 10, -INFINITY)));		/* inf + -inf = NaN */
	cr_assert_eq(slide(min, 10, INFINITY), INFINITY);
	cr_assert_eq(slide(min, 10, 1), 1);
	{
		struct agg_value one = { .has_text = true, .has_number = true, .number = 1 };

		cr_assert_eq(agg_step_push(var, &one), 0);
	}
	cr_assert_eq(slide(var, 10, 1), 0);	/* the variance of [1, 1] */
	cr_assert(isnan(slide(var, 10, INFINITY)));		/* deviations inf - inf */
	sum->kind->destroy(sum);
	var->kind->destroy(var);
	min->kind->destroy(min);
}

/* var and stddev are null under two values; the sample variance of 1..4 is 5/3. */
Test(agg, variance_basics)
{
	struct agg_params params = { .min_count = 1 };
	struct agg *var = agg_var.create(&agg_var, &params);
	struct agg_value v = { .has_text = true, .has_number = true, .number = 1 };
	struct agg_result r;

	cr_assert_eq(agg_step_push(var, &v), 0);
	agg_step_result(var, &r);
	cr_assert_eq(r.kind, AGG_RESULT_NULL);
	for (double x = 2; x <= 4; x++) {
		v.number = x;
		cr_assert_eq(agg_step_push(var, &v), 0);
	}
	agg_step_result(var, &r);
	cr_assert_eq(r.kind, AGG_RESULT_NUMBER);
	cr_assert_float_eq(r.number, 5.0 / 3.0, 1e-15);
	var->kind->destroy(var);
}

Test(agg, lookup_names)
{
	struct agg_params params;

	cr_assert_eq(agg_lookup("avg", 3, &params), &agg_avg);
	cr_assert_eq(agg_lookup("mean", 4, &params), &agg_avg);
	cr_assert_eq(agg_lookup("stddev", 6, &params), &agg_stddev);
	cr_assert_null(agg_lookup("av", 2, &params));
	cr_assert_null(agg_lookup("avgx", 4, &params));
	cr_assert_null(agg_lookup("", 0, &params));
}

/*
 * The range of double (issue 11).  A window without NaN and infinities never gives NaN
 * or an infinity when the exact result fits: nothing overflows on the way.
 */

/* A random significand in [1, 2), all 52 bits random. */
static double
random_significand(unsigned *seed)
{
	uint64_t bits = ((uint64_t)rand_r(seed) << 31 ^ (uint64_t)rand_r(seed)) << 21 ^
	    (uint64_t)rand_r(seed);

	return 1 + ldexp((double)(bits & ((UINT64_C(1) << 52) - 1)), -52);
}

/*
 * A value for the range tests: mostly magnitudes near DBL_MAX (sums overflow), near
 * 2^512 (squares overflow), near DBL_MIN, subnormal, and near 2^-537 (squares
 * subnormal), of both signs; some ordinary values and zeros, and a few NaN and
 * infinities.  huge_share of 1000 go to the first kind.
 */
static double
range_value(unsigned *seed, int huge_share)
{
	int r = rand_r(seed) % 1000;
	double sign = rand_r(seed) % 2 ? 1 : -1;

	if (r < 3)
		return NAN;
	if (r < 8)
		return INFINITY;
	if (r < 13)
		return -INFINITY;
	if (r < 30)
		return sign * DBL_MAX;
	if ((r -= 30) < huge_share)
		return sign * ldexp(random_significand(seed), 1023 - rand_r(seed) % 12);
	r = r * 1000 / (1000 - huge_share);	/* the rest, spread as if huge_share were 0 */
	if (r < 250)
		return sign * ldexp(random_significand(seed), 500 + rand_r(seed) % 24);
	if (r < 400)
		return sign * ldexp(random_significand(seed), -1022 + rand_r(seed) % 24);
	if (r < 550)
		return sign * ldexp((double)(rand_r(seed) % 100000), -1074);	/* subnormal */
	if (r < 650)
		return sign * ldexp(random_significand(seed), -540 + rand_r(seed) % 8);
	if (r < 680)
		return sign * 0.0;
	return (rand_r(seed) % 2000000 - 1000000) / 1000.0;
}

static double
range_value_mixed(unsigned *seed)
{
	return range_value(seed, 200);
}

/* Mostly near DBL_MAX: every sum overflows on the way, and most cancel again. */
static double
range_value_huge(unsigned *seed)
{
	return range_value(seed, 850);
}

/* None near DBL_MAX: squares and M2 overflow where the variance fits. */
static double
range_value_squares(unsigned *seed)
{
	return range_value(seed, 0);
}

Test(agg_range, sum_random)
{
	random_sequences_of(&agg_sum, 1, 21, range_value_mixed);
	random_sequences_of(&agg_sum, 1, 22, range_value_huge);
	random_sequences_of(&agg_sum, 1, 23, range_value_squares);
}

Test(agg_range, avg_random)
{
	random_sequences_of(&agg_avg, 1, 24, range_value_mixed);
	random_sequences_of(&agg_avg, 1, 25, range_value_huge);
	random_sequences_of(&agg_avg, 1, 26, range_value_squares);
}

Test(agg_range, var_random)
{
	random_sequences_of(&agg_var, 1, 27, range_value_mixed);
	random_sequences_of(&agg_var, 1, 28, range_value_huge);
	random_sequences_of(&agg_var, 1, 29, range_value_squares);
}

Test(agg_range, stddev_random)
{
	random_sequences_of(&agg_stddev, 1, 30, range_value_mixed);
	random_sequences_of(&agg_stddev, 1, 31, range_value_huge);
	random_sequences_of(&agg_stddev, 1, 32, range_value_squares);
	random_sequences_of(&agg_stddev, 5, 33, range_value_squares);	/* -m */
}

/* move() one by one and in batches on the same values, for every monoid that sums. */
Test(agg_range, move_matches_naive)
{
	const struct agg_kind *kinds[] = { &agg_sum, &agg_avg, &agg_var, &agg_stddev };
	double (*values[])(unsigned *) = { range_value_mixed, range_value_huge,
	    range_value_squares };
	const uint64_t windows[] = { 1, 2, 3, 7, 100 };
	unsigned seed = 34;

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		for (size_t v = 0; v < sizeof(values) / sizeof(values[0]); v++)
			for (size_t j = 0; j < sizeof(windows) / sizeof(windows[0]); j++) {
				move_against_naive(kinds[k], windows[j], &seed, values[v],
				    ONE_BY_ONE);
				move_against_naive(kinds[k], windows[j], &seed, values[v],
				    ROW_BATCHES);
				move_against_naive(kinds[k], windows[j], &seed, values[v],
				    TIME_BATCHES);
				move_against_naive(kinds[k], windows[j], &seed, values[v],
				    INDEXED_BATCHES);
			}
}

/* The results of kind over a row window of the given size moved over values. */
static void
slide_over(const struct agg_kind *kind, uint64_t window, const double *values, size_t n,
    double *results)
{
	struct agg_params params = { .min_count = 1 };
	struct agg *agg = kind->create(kind, &params);

	cr_assert_not_null(agg);
	for (size_t i = 0; i < n; i++) {
		struct agg_value v = { .has_text = true, .has_number = true, .number = values[i] };
		struct agg_result r;

		cr_assert_eq(agg_step_slide(agg, window, &v, &r), 0);
		results[i] = r.kind == AGG_RESULT_NUMBER ? r.number : -1;
	}
	kind->destroy(agg);
}

/*
 * The variance of equal values is 0 exactly, whatever they are and whatever the
 * window's grouping (each part's sum is shifted by its oldest value), though sums of
 * 0.1s or of 1000000000.1s round.
 */
Test(agg, var_of_equal_values_is_zero)
{
	static const double equal[] = { 0.1, 1000000000.1, -3.7e-300, 1.7e308, 12345.678 };
	double values[200], var[200], stddev[200];

	for (size_t e = 0; e < sizeof(equal) / sizeof(equal[0]); e++)
		for (uint64_t window = 2; window <= 40; window += 7) {
			for (size_t i = 0; i < 200; i++)
				values[i] = equal[e];
			slide_over(&agg_var, window, values, 200, var);
			slide_over(&agg_stddev, window, values, 200, stddev);
			for (size_t i = 1; i < 200; i++) {
				cr_assert_eq(var[i], 0, "%g at %zu, window %llu: %g", equal[e], i,
				    (unsigned long long)window, var[i]);
				cr_assert_eq(stddev[i], 0);
			}
		}
}

/*
 * Values close to one another far from 0 (1e9 plus noise of 1e-3, epoch timestamps
 * with milliseconds) keep the noise's precision: the variance within 1e-9 of the
 * binary128 reference, relative: the sums' rounding at the scale of the values
 * would leave errors of 1e-4, which the bound relative to Σx² allows.
 */
Test(agg, var_of_values_far_from_zero)
{
	static const double offsets[] = { 1e9, 1.7e9, -4.2e12, 1.7e15 };
	unsigned seed = 77;
	double values[600], var[600];

	for (size_t o = 0; o < sizeof(offsets) / sizeof(offsets[0]); o++)
		for (uint64_t window = 2; window <= 500; window = window * 3 + 1) {
			for (size_t i = 0; i < 600; i++)
				values[i] = offsets[o] + offsets[o] * 1e-12 *
				    (rand_r(&seed) % 2001 - 1000);
			slide_over(&agg_var, window, values, 600, var);
			for (size_t i = 1; i < 600; i++) {
				size_t first = i + 1 > window ? i + 1 - window : 0, n = i + 1 - first;
				__float128 mean = 0, m2 = 0;

				for (size_t k = first; k <= i; k++)
					mean += values[k];
				mean /= n;
				for (size_t k = first; k <= i; k++)
					m2 += (values[k] - mean) * (values[k] - mean);
				m2 /= n - 1;
				cr_assert_leq(fabs(var[i] - (double)m2), 1e-9 * (double)m2 +
				    DBL_TRUE_MIN, "offset %g, window %llu, record %zu: %.17g, not %.17g",
				    offsets[o], (unsigned long long)window, i, var[i], (double)m2);
			}
		}
}

/* The cases of issue 11, item 3. */

/* printf '1e308\n1e308\n1e308\n' | swag -w 3 var stddev: nan nan, where it is 0 0. */
Test(agg_range, equal_huge_values_vary_by_nothing)
{
	const double values[] = { 1e308, 1e308, 1e308, 1e308 };
	double var[4], stddev[4];

	slide_over(&agg_var, 3, values, 4, var);
	slide_over(&agg_stddev, 3, values, 4, stddev);
	for (size_t i = 1; i < 4; i++) {
		cr_assert_eq(var[i], 0, "record %zu: var %g", i, var[i]);
		cr_assert_eq(stddev[i], 0, "record %zu: stddev %g", i, stddev[i]);
	}
}

/*
 * printf 'DBL_MAX\n-inf\nDBL_MAX\n' | swag -w 3 sum: nan, where the extended reals say
 * -inf (finite values plus -inf, whatever their own sum overflows to).
 */
Test(agg_range, overflowing_finite_part_plus_minus_inf)
{
	const double values[] = { DBL_MAX, -INFINITY, DBL_MAX, DBL_MAX, DBL_MAX, -DBL_MAX };
	double sum[6];

	slide_over(&agg_sum, 3, values, 6, sum);
	cr_assert_eq(sum[0], DBL_MAX);
	for (size_t i = 1; i < 4; i++)
		cr_assert_eq(sum[i], -INFINITY, "record %zu: %g", i, sum[i]);
	cr_assert_eq(sum[4], INFINITY);	/* 3 DBL_MAX: beyond the range */
	cr_assert_eq(sum[5], DBL_MAX);	/* back under it */
	slide_over(&agg_sum, 3, (const double[]){ DBL_MAX, DBL_MAX, INFINITY, -INFINITY }, 4,
	    sum);
	cr_assert_eq(sum[2], INFINITY);
	cr_assert(isnan(sum[3]));	/* inf + -inf */
}

/* printf '6e307\n6e307\n6e307\n' | swag -w 3 avg: inf, where it is 6e+307. */
Test(agg_range, mean_of_values_whose_sum_overflows)
{
	const double values[] = { 6e307, 6e307, 6e307, DBL_MAX, DBL_MAX, DBL_MAX, -DBL_MAX };
	double avg[7];

	slide_over(&agg_avg, 3, values, 7, avg);
	for (size_t i = 0; i < 3; i++)
		cr_assert_eq(avg[i], 6e307, "record %zu: %.17g", i, avg[i]);
	cr_assert_eq(avg[5], DBL_MAX, "%.17g", avg[5]);	/* not rounded past it */
	cr_assert_eq(avg[6], DBL_MAX / 3, "%.17g", avg[6]);
}

/*
 * printf '1e155\n-1e155\n' | swag -w 2 stddev: inf, where it is sqrt(2)·1e155 (the
 * variance, 2e310, is beyond the range; its square root is not).
 */
Test(agg_range, stddev_whose_square_overflows)
{
	const double values[] = { 1e155, -1e155 };
	/* sqrt(2)·1e155 correctly rounded, 1e155 being the double nearest 10^155. */
	double expected = (double)(quad_sqrt(2) * 1e155), stddev[2], var[2];

	slide_over(&agg_stddev, 2, values, 2, stddev);
	slide_over(&agg_var, 2, values, 2, var);
	cr_assert_eq(stddev[1], expected, "%.17g, expected %.17g", stddev[1], expected);
	cr_assert_eq(var[1], INFINITY);
}

/* M2 overflows where the variance fits: [2^511, -2^511, 2^511, -2^511]. */
Test(agg_range, variance_whose_m2_overflows)
{
	const double a = 0x1p511, values[] = { a, -a, a, -a };
	double var[4], stddev[4];

	slide_over(&agg_var, 4, values, 4, var);
	slide_over(&agg_stddev, 4, values, 4, stddev);
	/* M2 = 4·2^1022 = 2^1024, so var = 2^1024/3 and stddev = 2^512/sqrt(3). */
	cr_assert_eq(var[3], 0x1p1022 / 3 * 4, "%.17g", var[3]);
	cr_assert_float_eq(stddev[3], 0x1p512 / sqrt(3), 0x1p512 * DBL_EPSILON);
}

/* Compensation survives the scaled form: [M, M, 2^970, -M, -M] sums to exactly 2^970. */
Test(agg_range, compensated_past_the_range)
{
	const double values[] = { DBL_MAX, DBL_MAX, 0x1p970, -DBL_MAX, -DBL_MAX, 1, 1e-300 };
	double sum[7];

	slide_over(&agg_sum, 5, values, 7, sum);
	cr_assert_eq(sum[4], 0x1p970, "%a", sum[4]);
	slide_over(&agg_sum, 7, values, 7, sum);
	cr_assert_eq(sum[6], 0x1p970 + 1, "%a", sum[6]);	/* 2^970 + 1 rounds to 2^970 */
	slide_over(&agg_sum, 7, (const double[]){ DBL_MAX, DBL_MAX, 1, -DBL_MAX, -DBL_MAX, 0.5,
	    0x1p-1074 }, 7, sum);
	cr_assert_eq(sum[4], 1, "%a", sum[4]);
	cr_assert_eq(sum[6], 1.5, "%a", sum[6]);
}

/* The mean of k copies of DBL_MAX is DBL_MAX, never rounded past it to inf. */
Test(agg_range, mean_of_copies_of_the_largest_value)
{
	for (uint64_t k = 1; k <= 100; k++) {
		struct agg_params params = { .min_count = 1 };
		struct agg *avg = agg_avg.create(&agg_avg, &params);
		double x = k % 2 ? DBL_MAX : -DBL_MAX;

		for (uint64_t i = 0; i < k; i++) {
			double mean = slide(avg, k, x);

			cr_assert_eq(mean, x, "%" PRIu64 " values of %g: %.17g", i + 1, x, mean);
		}
		avg->kind->destroy(avg);
	}
}

/*
 * The contract of move() (agg.h), for every kind: random mixes of row windows (rows,
 * now and then without limit) and time-window evictions (evict arrays that evict none,
 * one, several or every value at a step), index lists (ascending, as -g gives a key's
 * records, or in any order), want arrays (as -s gives), moves without values (results
 * only: the window must not change) and moves without results, over fields that are
 * numbers written in several ways, NaN, infinities, other texts, or missing, against a
 * naive window.  Checked: move() returns n; each step's result is stored where it must
 * be and no other result is stored; after each move, the window's result.
 */

#define CONTRACT_WINDOW 250	/* slots a contract window holds at most */
#define FIELD_TEXT_MAX 32

/* A field: its text, and what the man page's number grammar makes of it. */
struct field {
	char text[FIELD_TEXT_MAX];
	size_t len;
	bool is_number;
	double number;
	int rank;		/* mode's order: 0 a number but NaN, 1 NaN, 2 not a number */
};

struct field_pool {
	struct field field[400];
	size_t count;
};

/* Adds text to pool unless it is there already. */
static void
field_add(struct field_pool *pool, const char *text)
{
	struct field *f = &pool->field[pool->count];
	size_t len = strlen(text);

	cr_assert(len > 0 && len < FIELD_TEXT_MAX);
	cr_assert_lt(pool->count, sizeof(pool->field) / sizeof(pool->field[0]));
	for (size_t i = 0; i < pool->count; i++)
		if (pool->field[i].len == len && memcmp(pool->field[i].text, text, len) == 0)
			return;
	memcpy(f->text, text, len + 1);
	f->len = len;
	f->number = 0;
	f->is_number = parse_number(text, len, &f->number);
	f->rank = !f->is_number ? 2 : isnan(f->number) ? 1 : 0;
	pool->count++;
}

static const char *const contract_texts[] = {
	"1", "1.0", "01", "+1", "1e0", "2", "10", "9", "-1", "-10", "0", "-0", "+0", "0.0",
	"-0.0", "nan", "NaN", "-nan", "inf", "-inf", "Infinity", "1e308", "-1e308", "1e309",
	"4.9e-324", "1e-400", ".5", "0.5", "5e-1", "a", "b", "A", "ab", "abc", "Zebra",
	"zebra", "-", "0x10", "1,5", "1.5x", "10.0.0.1", "\xc3\xa9t\xc3\xa9", "\xff",
	"a text longer than sixteen",
};

/* The fixed texts, numbers from random_value() and short words: about 300 fields. */
static void
field_pool_make(struct field_pool *pool, unsigned seed)
{
	char text[FIELD_TEXT_MAX];

	pool->count = 0;
	for (size_t i = 0; i < sizeof(contract_texts) / sizeof(contract_texts[0]); i++)
		field_add(pool, contract_texts[i]);
	for (int i = 0; i < 200; i++) {
		snprintf(text, sizeof(text), "%.17g", random_value(&seed));
		field_add(pool, text);
	}
	for (int i = 0; i < 60; i++) {
		int len = 1 + rand_r(&seed) % 6;

		for (int k = 0; k < len; k++)
			text[k] = (char)('a' + rand_r(&seed) % 3);
		text[len] = '\0';
		field_add(pool, text);
	}
}

/* Returns <0, 0 or >0 as field a comes before, with or after b among mode's ties. */
static int
field_order(const struct field_pool *pool, long a, long b)
{
	const struct field *x = &pool->field[a], *y = &pool->field[b];
	size_t common = x->len < y->len ? x->len : y->len;
	int bytes;

	if (x->rank != y->rank)
		return x->rank - y->rank;
	if (x->rank == 0 && x->number != y->number)
		return x->number < y->number ? -1 : 1;
	bytes = memcmp(x->text, y->text, common);
	if (bytes != 0)
		return bytes;
	return (x->len > y->len) - (x->len < y->len);
}

/* A kind the contract test moves, and what its results are. */
enum family { MONOID, QUANTILE, MODE, DISTINCT, EWMA };

/* ewma in the contract test: span CONTRACT_SPAN. */
#define CONTRACT_SPAN 3

struct contract_kind {
	const struct agg_kind *kind;
	enum family family;
	double percentile;
};

/* The naive window of the contract test: pool fields, oldest first, -1 missing. */
struct contract_naive {
	const struct field_pool *pool;
	long slot[CONTRACT_WINDOW];
	int64_t time[CONTRACT_WINDOW];	/* each slot's record's timestamp, 0 without */
	size_t n;
	struct naive numbers;	/* for MONOID: the window as naive_result reads it */
	uint64_t counts[400];
	/*
	 * EWMA: pandas' sums over every record taken, evictions ignored, in binary128,
	 * Σ c^k·x, Σ c^k·|x| and Σ c^k for the number k records before the last number,
	 * and the records without a number since it (test_ewma.c checks the formula
	 * itself; here a recurrence is exact enough).
	 */
	quad sum, abs_sum, weight;
	uint64_t pending;
	uint64_t numbers_seen;
	double special;		/* the sum of the NaNs and infinities seen */
};

/* EWMA: the history takes record field f (-1 missing). */
static void
contract_take(struct contract_naive *w, long f)
{
	const struct field *x = f >= 0 ? &w->pool->field[f] : NULL;
	double c = 1.0 - 2.0 / (CONTRACT_SPAN + 1.0);

	if (x == NULL || !x->is_number) {
		w->pending++;
		return;
	}
	for (uint64_t k = 0; k <= w->pending; k++) {
		w->sum *= c;
		w->abs_sum *= c;
		w->weight *= c;
	}
	w->pending = 0;
	w->numbers_seen++;
	w->weight += 1;
	if (!isfinite(x->number))
		w->special += x->number;
	else {
		w->sum += x->number;
		w->abs_sum += quad_abs(x->number);
	}
}

/* What a result of the contract test must be. */
struct contract_expected {
	struct expected e;	/* MONOID; e.want for the others */
	long mode;		/* MODE: the field that is the mode, -1 for null */
};

static int
compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y ? 1 : 0;
}

/* The expected result of c's kind over the naive window w. */
static void
contract_expect(const struct contract_kind *c, struct contract_naive *w, uint64_t min_count,
    struct contract_expected *x)
{
	const struct field_pool *pool = w->pool;

	memset(x, 0, sizeof(*x));
	x->mode = -1;
	x->e.n = w->n;
	switch (c->family) {
	case MONOID:
		w->numbers.n = 0;
		for (size_t i = 0; i < w->n; i++) {
			const struct field *f = w->slot[i] >= 0 ? &pool->field[w->slot[i]] : NULL;

			w->numbers.present[i] = c->kind->input == AGG_INPUT_TEXT ? f != NULL :
			    f != NULL && f->is_number;
			w->numbers.value[i] = f != NULL && f->is_number ? f->number : 0;
			w->numbers.time[i] = w->time[i];
			w->numbers.n++;
		}
		expect_of(c->kind, &w->numbers, min_count, &x->e);
		return;
	case QUANTILE: {
		double sorted[CONTRACT_WINDOW], lo, fraction;
		__float128 h;
		size_t count = 0;
		bool nan = false;

		for (size_t i = 0; i < w->n; i++)
			if (w->slot[i] >= 0 && pool->field[w->slot[i]].is_number) {
				sorted[count] = pool->field[w->slot[i]].number;
				nan |= isnan(sorted[count]);
				count++;
			}
		x->e.want.kind = AGG_RESULT_NULL;
		if (count == 0 || count < min_count)
			return;
		x->e.want.kind = AGG_RESULT_NUMBER;
		if (nan) {
			x->e.want.number = NAN;
			return;
		}
		qsort(sorted, count, sizeof(double), compare_doubles);
		/*
		 * The man page's formula, as it reads: h exact (binary128 holds the
		 * product), h - lo rounded once.
		 */
		h = (__float128)(count - 1) * c->percentile;
		lo = (double)(uint64_t)h;
		fraction = (double)(h - (__float128)lo);
		if (fraction == 0 || sorted[(size_t)lo] == sorted[(size_t)lo + 1])
			x->e.want.number = sorted[(size_t)lo];
		else
			x->e.want.number = sorted[(size_t)lo] + fraction *
			    (sorted[(size_t)lo + 1] - sorted[(size_t)lo]);
		return;
	}
	case MODE: {
		uint64_t values = 0, best_count = 0;

		memset(w->counts, 0, pool->count * sizeof(w->counts[0]));
		for (size_t i = 0; i < w->n; i++)
			if (w->slot[i] >= 0) {
				w->counts[w->slot[i]]++;
				values++;
			}
		x->e.want.kind = AGG_RESULT_NULL;
		if (values == 0 || values < min_count)
			return;
		for (size_t i = 0; i < w->n; i++) {
			long f = w->slot[i];

			if (f < 0)
				continue;
			if (w->counts[f] > best_count ||
			    (w->counts[f] == best_count && field_order(pool, f, x->mode) < 0)) {
				x->mode = f;
				best_count = w->counts[f];
			}
		}
		x->e.want.kind = AGG_RESULT_TEXT;
		x->e.want.text_len = pool->field[x->mode].len;
		return;
	}
	case DISTINCT:
		memset(w->counts, 0, pool->count * sizeof(w->counts[0]));
		x->e.want.kind = AGG_RESULT_COUNT;
		x->e.want.count = 0;
		for (size_t i = 0; i < w->n; i++)
			if (w->slot[i] >= 0 && w->counts[w->slot[i]]++ == 0)
				x->e.want.count++;
		return;
	case EWMA:
		x->e.want.kind = AGG_RESULT_NULL;
		if (w->numbers_seen == 0 || w->numbers_seen < min_count)
			return;
		x->e.want.kind = AGG_RESULT_NUMBER;
		if (w->special != 0 || isnan(w->special)) {
			x->e.want.number = w->special;
			x->e.exact = w->special;
			return;
		}
		x->e.exact = w->sum / w->weight;
		x->e.want.number = (double)x->e.exact;
		x->e.tolerance = (double)(8 * U * w->abs_sum / w->weight) + DBL_TRUE_MIN;
		return;
	}
}

/* Checks got against x. */
static void
contract_check(const struct contract_kind *c, const struct field_pool *pool,
    const struct agg_result *got, const struct contract_expected *x, int step)
{
	const char *name = c->kind->name;

	switch (c->family) {
	case MONOID:
		check_expected(c->kind, got, &x->e, step);
		return;
	case QUANTILE:
		cr_assert_eq(got->kind, x->e.want.kind, "%s q=%g step %d: kind %d, expected %d",
		    name, c->percentile, step, got->kind, x->e.want.kind);
		if (got->kind != AGG_RESULT_NUMBER)
			return;
		if (isnan(x->e.want.number))
			cr_assert(isnan(got->number), "%s q=%g step %d: %.17g, expected nan",
			    name, c->percentile, step, got->number);
		else
			cr_assert(memcmp(&got->number, &x->e.want.number, sizeof(double)) == 0 ||
			    (got->number == 0 && x->e.want.number == 0),
			    "%s q=%g step %d: %.17g, expected %.17g", name, c->percentile, step,
			    got->number, x->e.want.number);
		return;
	case MODE:
		cr_assert_eq(got->kind, x->e.want.kind, "%s step %d: kind %d, expected %d", name,
		    step, got->kind, x->e.want.kind);
		if (got->kind != AGG_RESULT_TEXT)
			return;
		cr_assert_eq(got->text_len, x->e.want.text_len, "%s step %d: %zu bytes, "
		    "expected '%s'", name, step, got->text_len, pool->field[x->mode].text);
		cr_assert(memcmp(got->text, pool->field[x->mode].text, got->text_len) == 0,
		    "%s step %d: '%.*s', expected '%s'", name, step, (int)got->text_len, got->text,
		    pool->field[x->mode].text);
		return;
	case DISTINCT:
		cr_assert_eq(got->kind, AGG_RESULT_COUNT, "%s step %d", name, step);
		cr_assert_eq(got->count, x->e.want.count, "%s step %d: %llu, expected %llu",
		    name, step, (unsigned long long)got->count,
		    (unsigned long long)x->e.want.count);
		return;
	case EWMA:
		cr_assert_eq(got->kind, x->e.want.kind, "%s step %d: kind %d, expected %d", name,
		    step, got->kind, x->e.want.kind);
		if (got->kind != AGG_RESULT_NUMBER)
			return;
		if (!isfinite(x->e.want.number))
			cr_assert(memcmp(&got->number, &x->e.want.number, sizeof(double)) == 0 ||
			    (isnan(got->number) && isnan(x->e.want.number)),
			    "%s step %d: %.17g, expected %.17g", name, step, got->number,
			    x->e.want.number);
		else
			cr_assert_leq((double)quad_abs(got->number - x->e.exact), x->e.tolerance,
			    "%s step %d: %.17g, expected %.17g", name, step, got->number,
			    x->e.want.number);
		return;
	}
}

/* One run of the contract test: moves random moves of c's window, min_count as -m. */
static void
contract_run(const struct contract_kind *c, uint64_t min_count, unsigned seed, int moves)
{
	static const uint64_t row_sizes[] = { 1, 2, 3, 7, 30, 100, CONTRACT_WINDOW - 1 };
	static struct field_pool pool;
	static struct contract_naive w;
	static struct contract_expected expected[MAX_BATCH];
	struct agg_params params = { .min_count = min_count, .percentile = c->percentile,
	    .hash_seed = seed, .window_rows = CONTRACT_SPAN };
	struct agg *agg = c->kind->create(c->kind, &params);
	uint64_t row_size = 1;
	size_t target = 0;
	int step = 0;
	/* How often each thing happened: the test must have seen every one. */
	unsigned evicted_several = 0, evicted_all = 0, indexed = 0, shuffled = 0, wanted = 0,
	    no_values = 0, no_results = 0, unlimited = 0, emptied = 0;
	size_t largest = 0, slots = 0;

	cr_assert_not_null(agg);
	field_pool_make(&pool, seed);
	memset(&w, 0, sizeof(w));
	w.pool = &pool;
	for (int move = 0; move < moves; move++) {
		struct agg_value v[MAX_BATCH];
		struct agg_result got[MAX_BATCH], last;
		struct contract_expected now;
		static char texts[MAX_BATCH][FIELD_TEXT_MAX];
		agg_index index[64];
		unsigned char want[MAX_BATCH];
		bool stored[MAX_BATCH] = { false };
		int at[MAX_BATCH];
		long field_of[MAX_BATCH];	/* each record's field, -1 missing */
		uint32_t evict[64];
		int64_t times[MAX_BATCH];
		size_t n = 1 + (size_t)rand_r(&seed) % 64, records = n;
		bool use_index = rand_r(&seed) % 2 == 0, use_want = rand_r(&seed) % 3 == 0;
		bool use_evict = rand_r(&seed) % 2 == 0, use_values = rand_r(&seed) % 8 != 0;
		bool use_results = rand_r(&seed) % 10 != 0;
		uint64_t rows;
		struct agg_move m = { .n = n };

		if (move % 100 == 0 && move > 0 && c->family == EWMA) {
			/* A fresh ewma now and then: its history never leaves otherwise. */
			c->kind->destroy(agg);
			agg = c->kind->create(c->kind, &params);
			cr_assert_not_null(agg);
			w.sum = w.abs_sum = w.weight = 0;
			w.pending = w.numbers_seen = 0;
			w.special = 0;
		}
		if (move % 100 == 0) {
			row_size = row_sizes[(size_t)rand_r(&seed) % (sizeof(row_sizes) /
			    sizeof(row_sizes[0]))];
			target = (size_t)rand_r(&seed) % 4 == 0 ? (size_t)rand_r(&seed) % 4 :
			    (size_t)rand_r(&seed) % CONTRACT_WINDOW;
		}
		rows = row_size > w.n ? row_size : w.n;
		if (!use_evict && rand_r(&seed) % 30 == 0 && w.n + n <= CONTRACT_WINDOW) {
			rows = UINT64_MAX;	/* a window that never fills */
			unlimited++;
		}
		if (use_index) {
			records = n + (size_t)rand_r(&seed) % (n + 1);
			indexed++;
		}
		no_values += !use_values;
		no_results += !use_results;
		wanted += use_want;
		memset(v, 0, sizeof(v));
		memset(got, SENTINEL_BYTE, sizeof(got));
		for (size_t r = 0; r < records; r++) {
			/* Mostly the first fields of the pool, so that values repeat. */
			long f = rand_r(&seed) % 10 == 0 ? -1 :
			    rand_r(&seed) % (1 + rand_r(&seed) % (int)pool.count);

			/* A NaN or an infinity ends an ewma's finite results: seldom one. */
			if (c->family == EWMA && f >= 0 && pool.field[f].is_number &&
			    !isfinite(pool.field[f].number) && rand_r(&seed) % 100 != 0)
				f = 0;

			if (f >= 0) {
				memcpy(texts[r], pool.field[f].text, pool.field[f].len);
				v[r].has_text = true;
				v[r].text = texts[r];
				v[r].text_len = pool.field[f].len;
				v[r].has_number = pool.field[f].is_number;
				v[r].number = pool.field[f].number;
			}
			field_of[r] = f;
			times[r] = move;	/* what a time window's evictions came from */
			want[r] = !use_want || rand_r(&seed) % 3 != 0;
		}
		if (use_index) {
			bool shuffle = rand_r(&seed) % 3 == 0;

			random_index(index, n, records, shuffle, &seed);
			shuffled += shuffle;
		}
		/* The naive window's steps, each result as it must be stored. */
		{
			for (size_t j = 0; j < n; j++, step++) {
				size_t r = use_index ? index[j] : j;

				if (use_evict) {
					int choice = rand_r(&seed) % 1000;
					size_t e = 0;

					/* Now and then everything; towards target, often more
					   than one; else mostly none, as a time window. */
					if (choice < 4 && w.n > 0) {
						e = w.n;
						evicted_all++;
					} else if (w.n > target && choice < 600) {
						e = 1 + (size_t)rand_r(&seed) % 4;
					} else if (choice < 200) {
						e = 1;
					}
					if (e > w.n)
						e = w.n;
					if (use_values && w.n - e == CONTRACT_WINDOW)
						e++;
					evicted_several += e > 1;
					evict[j] = (uint32_t)e;
					memmove(w.slot, w.slot + e, (w.n - e) * sizeof(w.slot[0]));
					memmove(w.time, w.time + e, (w.n - e) * sizeof(w.time[0]));
					w.n -= e;
				} else if (use_values && w.n == rows) {
					memmove(w.slot, w.slot + 1, (w.n - 1) * sizeof(w.slot[0]));
					memmove(w.time, w.time + 1, (w.n - 1) * sizeof(w.time[0]));
					w.n--;
				}
				if (use_values) {
					cr_assert_lt(w.n, CONTRACT_WINDOW);
					w.time[w.n] = use_evict ? times[r] : 0;
					w.slot[w.n++] = field_of[r];
					contract_take(&w, field_of[r]);
				}
				emptied += w.n == 0;
				largest = w.n > largest ? w.n : largest;
				slots += w.n;
				if (use_results && want[r]) {
					contract_expect(c, &w, min_count, &expected[r]);
					stored[r] = true;
					at[r] = step;
				}
			}
		}
		m.index = use_index ? index : NULL;
		m.rows = rows;
		m.evict = use_evict ? evict : NULL;
		m.values = use_values ? v : NULL;
		m.times = use_evict ? times : NULL;
		m.want = use_want ? want : NULL;
		m.results = use_results ? got : NULL;
		cr_assert_eq(c->kind->move(agg, &m), n, "%s: a move of %zu steps", c->kind->name,
		    n);
		/* The fields' bytes are the reader's: the window must have copied them. */
		memset(texts, '#', sizeof(texts));
		for (size_t r = 0; r < records; r++) {
			if (stored[r])
				contract_check(c, &pool, &got[r], &expected[r], at[r]);
			else
				cr_assert(is_sentinel(&got[r]), "%s step %d: record %zu's result "
				    "stored, though %s", c->kind->name, step, r,
				    !use_results ? "results is NULL" : !want[r] ? "not wanted" :
				    "not in the index");
		}
		agg_step_result(agg, &last);
		contract_expect(c, &w, min_count, &now);
		contract_check(c, &pool, &last, &now, step);
	}
	c->kind->destroy(agg);
	cr_log_info("%s (q=%g) -m %llu: %d steps, windows of %.1f slots on average, %zu at most, "
	    "empty %u times; %u moves with index lists (%u shuffled), %u with want, %u "
	    "without values, %u without results, %u unlimited; %u steps evicted several",
	    c->kind->name, c->percentile, (unsigned long long)min_count, step,
	    (double)slots / step, largest,
	    emptied, indexed, shuffled, wanted, no_values, no_results, unlimited,
	    evicted_several);
	cr_assert(evicted_several > 0 && evicted_all > 0 && indexed > 0 && shuffled > 0 &&
	    wanted > 0 && no_values > 0 && no_results > 0 && unlimited > 0 && emptied > 0 &&
	    largest > CONTRACT_WINDOW / 2, "%s: a case never came up", c->kind->name);
}

static void
contract(const struct agg_kind *kind, enum family family, double percentile)
{
	struct contract_kind c = { kind, family, percentile };

	contract_run(&c, 1, 101, 1500);
	contract_run(&c, 3, 102, 1500);
}

Test(agg_move, sum) { contract(&agg_sum, MONOID, 0); }
Test(agg_move, avg) { contract(&agg_avg, MONOID, 0); }
Test(agg_move, count) { contract(&agg_count, MONOID, 0); }
Test(agg_move, min) { contract(&agg_min_deque, MONOID, 0); }
Test(agg_move, max) { contract(&agg_max_deque, MONOID, 0); }
Test(agg_move, min_twostack) { contract(&agg_min_twostack, MONOID, 0); }
Test(agg_move, max_twostack) { contract(&agg_max_twostack, MONOID, 0); }
Test(agg_move, var) { contract(&agg_var, MONOID, 0); }
Test(agg_move, stddev) { contract(&agg_stddev, MONOID, 0); }
Test(agg_move, first) { contract(&agg_first, MONOID, 0); }
Test(agg_move, last) { contract(&agg_last, MONOID, 0); }
Test(agg_move, delta) { contract(&agg_delta, MONOID, 0); }
Test(agg_move, rate) { contract(&agg_rate, MONOID, 0); }
Test(agg_move, ewma) { contract(&agg_ewma, EWMA, 0); }
Test(agg_move, median) { contract(&agg_quantile, QUANTILE, 0.5); }
Test(agg_move, p99) { contract(&agg_quantile, QUANTILE, 0.99); }
Test(agg_move, mode) { contract(&agg_mode, MODE, 0); }
Test(agg_move, distinct) { contract(&agg_distinct, DISTINCT, 0); }

#ifdef SWAG_FAULT_INJECTION
/*
 * Out of memory (make FAULT=1 build/test_agg): the Nth allocation fails, for N = 1 to
 * FAULT_POINTS, while each kind's window grows over moves of 64 new fields (a row
 * window that never fills, so that no step evicts).  A move that runs short returns
 * the step it stopped at, every result stored before it is right, and the window holds
 * what the steps before it left (agg.h); the window is then destroyed without a leak.
 */
#define FAULT_POINTS 12

struct fault_case {
	size_t kind;		/* into fault_kinds */
	int fail_at;
};

static const struct contract_kind fault_kinds[] = {
	{ &agg_sum, MONOID, 0 }, { &agg_avg, MONOID, 0 }, { &agg_count, MONOID, 0 },
	{ &agg_min_deque, MONOID, 0 }, { &agg_max_deque, MONOID, 0 },
	{ &agg_min_twostack, MONOID, 0 }, { &agg_max_twostack, MONOID, 0 },
	{ &agg_var, MONOID, 0 }, { &agg_stddev, MONOID, 0 },
	{ &agg_quantile, QUANTILE, 0.5 }, { &agg_quantile, QUANTILE, 0.99 },
	{ &agg_mode, MODE, 0 }, { &agg_distinct, DISTINCT, 0 },
};
#define FAULT_KIND_COUNT (sizeof(fault_kinds) / sizeof(fault_kinds[0]))

ParameterizedTestParameters(agg_move, memory_short)
{
	static struct fault_case cases[FAULT_KIND_COUNT * FAULT_POINTS];

	for (size_t k = 0; k < FAULT_KIND_COUNT; k++)
		for (int f = 0; f < FAULT_POINTS; f++)
			cases[k * FAULT_POINTS + (size_t)f] = (struct fault_case){ k, f + 1 };
	return cr_make_param_array(struct fault_case, cases, FAULT_KIND_COUNT * FAULT_POINTS);
}

ParameterizedTest(struct fault_case *fc, agg_move, memory_short)
{
	enum { MOVES = 3, STEPS = 64 };
	const struct contract_kind *c = &fault_kinds[fc->kind];
	struct agg_params params = { .min_count = 1, .percentile = c->percentile };
	static struct field_pool pool;
	static struct contract_naive w;
	static struct contract_expected expected[STEPS];
	struct agg *agg;
	char text[16];
	int failures = 0;

	/* The fields, each a number of its own: every step adds a new value. */
	pool.count = 0;
	for (int i = 0; i < MOVES * STEPS; i++) {
		snprintf(text, sizeof(text), "%d", i);
		field_add(&pool, text);
	}
	memset(&w, 0, sizeof(w));
	w.pool = &pool;
	snprintf(text, sizeof(text), "%d", fc->fail_at);
	setenv("SWAG_FAIL_ALLOC", text, 1);
	agg = c->kind->create(c->kind, &params);
	if (agg == NULL)
		return;		/* the failure came in create, which said so */
	for (int move = 0; move < MOVES && failures == 0; move++) {
		struct agg_value v[STEPS];
		struct agg_result got[STEPS];
		struct agg_move m = { .n = STEPS, .rows = UINT64_MAX, .values = v, .results = got };
		size_t first = w.n, moved;

		for (size_t r = 0; r < STEPS; r++) {
			const struct field *f = &pool.field[(size_t)move * STEPS + r];

			v[r] = (struct agg_value){ .has_text = true, .text = f->text,
			    .text_len = f->len, .has_number = true, .number = f->number };
			w.slot[w.n++] = (long)((size_t)move * STEPS + r);
			contract_expect(c, &w, 1, &expected[r]);
		}
		moved = c->kind->move(agg, &m);
		cr_assert_leq(moved, STEPS);
		for (size_t r = 0; r < moved; r++)
			contract_check(c, &pool, &got[r], &expected[r], (int)(first + r));
		if (moved == STEPS)
			continue;
		/* The window is then fit only to be destroyed (agg.h): no leak, no crash. */
		failures++;
		cr_log_info("%s q=%g: allocation %d failed at step %zu of move %d", c->kind->name,
		    c->percentile, fc->fail_at, moved, move);
	}
	c->kind->destroy(agg);
	cr_assert_leq(failures, 1);
	/* Every kind allocates when it creates its window and when its first value comes. */
	if (fc->fail_at <= 2)
		cr_assert_eq(failures, 1, "%s: allocation %d never failed", c->kind->name,
		    fc->fail_at);
}
#endif

/*
 * Cumulative windows (@all, swag(1) WINDOWS): every kind made with params.cumulative
 * gives, bit for bit, the results of the same kind as a row window that no input fills
 * (rows UINT64_MAX), over random fields of the contract's pool (numbers, NaN,
 * infinities, texts, missing) moved in random batches with index lists, want arrays and
 * moves without values; distinct stays exact below 2^P/8 distinct values.
 */
static void
cumulative_matches_unlimited(const struct agg_kind *kind, double percentile, unsigned seed)
{
	static struct field_pool pool;
	struct agg_params params = { .min_count = 2, .percentile = percentile, .hash_seed = 7 };
	struct agg *all, *rows;
	int64_t now = 0;
	unsigned char seen[400] = { 0 };
	uint64_t distinct = 0;

	params.cumulative = true;
	all = kind->create(kind, &params);
	params.cumulative = false;
	rows = kind->create(kind, &params);
	cr_assert(all != NULL && rows != NULL);
	field_pool_make(&pool, seed);
	for (int move = 0; move < 300; move++) {
		struct agg_value v[64];
		struct agg_result a[64], b[64];
		int64_t times[64];
		unsigned char want[64];
		agg_index index[64];
		long field_of[64];
		size_t n = 1 + (size_t)rand_r(&seed) % 64;
		struct agg_move m = { .n = n, .rows = UINT64_MAX, .times = times };

		memset(v, 0, sizeof(v));
		memset(a, SENTINEL_BYTE, sizeof(a));
		memset(b, SENTINEL_BYTE, sizeof(b));
		for (size_t r = 0; r < n; r++) {
			long f = rand_r(&seed) % 10 == 0 ? -1 : rand_r(&seed) % (int)pool.count;

			field_of[r] = f;
			if (f >= 0) {
				v[r].has_text = true;
				v[r].text = pool.field[f].text;
				v[r].text_len = pool.field[f].len;
				v[r].has_number = pool.field[f].is_number;
				v[r].number = pool.field[f].number;
			}
			now += rand_r(&seed) % 3 == 0 ? 0 : rand_r(&seed) % 1000000000;
			times[r] = now;
			want[r] = (unsigned char)(rand_r(&seed) % 4 != 0);
			index[r] = (agg_index)r;
		}
		m.values = rand_r(&seed) % 8 != 0 ? v : NULL;
		m.want = rand_r(&seed) % 2 ? want : NULL;
		m.index = rand_r(&seed) % 2 ? index : NULL;
		m.results = a;
		cr_assert_eq(all->kind->move(all, &m), n);
		m.results = b;
		cr_assert_eq(rows->kind->move(rows, &m), n);
		if (kind == &agg_distinct) {
			/*
			 * The row window estimates once it holds 2^P/8 values; @all counts
			 * the pool's (fewer than 2^P/8) distinct fields exactly.
			 */
			for (size_t j = 0; j < n; j++) {
				size_t r = m.index != NULL ? m.index[j] : j;

				if (m.values != NULL && field_of[r] >= 0 && !seen[field_of[r]]++)
					distinct++;
				b[r].count = distinct;
			}
		}
		for (size_t r = 0; r < n; r++) {
			cr_assert_eq(a[r].kind, b[r].kind, "%s move %d record %zu", kind->name,
			    move, r);
			if (is_sentinel(&a[r]))
				continue;
			/* A NaN's sign is no part of a result (swag prints nan). */
			if (a[r].kind == AGG_RESULT_NUMBER)
				cr_assert(memcmp(&a[r].number, &b[r].number, sizeof(double)) == 0 ||
				    (isnan(a[r].number) && isnan(b[r].number)),
				    "%s move %d record %zu: %.17g, expected %.17g", kind->name,
				    move, r, a[r].number, b[r].number);
			else if (a[r].kind == AGG_RESULT_COUNT)
				cr_assert_eq(a[r].count, b[r].count, "%s move %d", kind->name, move);
			else if (a[r].kind == AGG_RESULT_TEXT)
				cr_assert(a[r].text_len == b[r].text_len &&
				    memcmp(a[r].text, b[r].text, a[r].text_len) == 0, "%s move %d",
				    kind->name, move);
		}
	}
	all->kind->destroy(all);
	rows->kind->destroy(rows);
}

Test(agg_all, every_kind_as_an_unlimited_row_window)
{
	static const struct {
		const struct agg_kind *kind;
		double percentile;
	} kinds[] = { { &agg_sum, 0 }, { &agg_avg, 0 }, { &agg_count, 0 }, { &agg_min, 0 },
	    { &agg_max, 0 }, { &agg_min_twostack, 0 }, { &agg_max_twostack, 0 },
	    { &agg_var, 0 }, { &agg_stddev, 0 }, { &agg_first, 0 }, { &agg_last, 0 },
	    { &agg_delta, 0 }, { &agg_rate, 0 }, { &agg_quantile, 0.5 },
	    { &agg_quantile, 0.99 }, { &agg_mode, 0 }, { &agg_distinct, 0 } };

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		cumulative_matches_unlimited(kinds[i].kind, kinds[i].percentile, 31 + (unsigned)i);
}

/*
 * distinct @all: exact up to 2^P/8 distinct values, then the sketch alone: its memory
 * stays what it was at the switch however many values follow, and its estimate stays
 * within 4 standard errors (1.04/sqrt(2^P)) of the true count.
 */
Test(agg_all, distinct_exact_then_fixed_sketch)
{
	struct agg_params params = { .hll_bits = 10, .hash_seed = 3, .cumulative = true };
	struct agg *agg = agg_distinct.create(&agg_distinct, &params);
	struct distinct_state state;
	size_t bytes_at_switch = 0;
	char text[32];

	cr_assert_not_null(agg);
	for (uint64_t i = 0; i < 400000; i++) {
		/* Each value twice, the second time 100 records later. */
		uint64_t value = i % 200 < 100 ? i : i - 100;
		struct agg_value v = { .has_text = true, .text = text };
		struct agg_result r;
		uint64_t distinct = (i / 200) * 100 + (i % 200 < 100 ? i % 200 + 1 : 100);

		v.text_len = (size_t)snprintf(text, sizeof(text), "v%llu",
		    (unsigned long long)value);
		cr_assert_eq(agg_step_push(agg, &v), 0);
		agg_step_result(agg, &r);
		cr_assert_eq(r.kind, AGG_RESULT_COUNT);
		agg_distinct_inspect(agg, &state);
		if (distinct <= 128) {
			cr_assert_eq(r.count, distinct, "record %llu", (unsigned long long)i);
			cr_assert(!state.sketch_active);
			continue;
		}
		cr_assert(state.sketch_active && !state.exact_table);
		if (bytes_at_switch == 0)
			bytes_at_switch = state.bytes;
		cr_assert_eq(state.bytes, bytes_at_switch, "record %llu: %zu bytes",
		    (unsigned long long)i, state.bytes);
		cr_assert(fabs((double)r.count - (double)distinct) <=
		    4 * 1.04 / 32 * (double)distinct + 1, "record %llu: %llu, expected %llu",
		    (unsigned long long)i, (unsigned long long)r.count,
		    (unsigned long long)distinct);
	}
	cr_assert_lt(bytes_at_switch, 4096);
	agg->kind->destroy(agg);
}

/*
 * A time window's run (monoid_run_evicting) pushes without ring_reserve, so it must stop
 * where a push would take ring_make_room: at the ring's room, three quarters of a
 * mapped ring's slots, not at the full ring.  Past that, the next push started the
 * ring's growth with too few free slots for the move's steps, and a later push moved
 * every element left at once (682 of 24 bytes in one push).  Here sum's window, 24
 * bytes a slot, as a time window: filled to just under a mapped ring's room (8,192
 * slots, the first size past MEM_MAP_MIN), slid for a while, then a burst; no step
 * of a mapped ring copies more than RING_MOVE_STEP slots (ring.h: Growth).
 */
Test(agg, time_window_run_stops_at_the_rings_room)
{
	const uint64_t cap = 8192, room = cap - cap / 4, slot = 24;	/* sum's Agg */
	struct agg_value v = { .has_text = true, .has_number = true, .number = 1 };
	struct agg_result r;

	cr_assert_geq(cap * slot, MEM_MAP_MIN);
	for (uint64_t slide = 0; slide < 3 * cap; slide += 97) {
		struct agg_params params = { .min_count = 1, .window_nanos = 1 };
		struct agg *agg = agg_sum.create(&agg_sum, &params);
		const struct ring *ring = &((struct monoid_window *)agg)->stack.ring;
		uint64_t steps = room - 1 + slide + cap, most = 0, held = 0;

		for (uint64_t i = 0; i < steps; i++) {
			uint64_t copied = ring_bytes_copied;
			bool mapped = ring->mapped != 0, evict = i >= room - 1 && i < room - 1 + slide;

			cr_assert_eq(agg_step(agg, evict, &v, &r), 0);
			held += 1 - evict;
			cr_assert_eq(r.number, (double)held, "step %" PRIu64, i);
			if (mapped && ring_bytes_copied - copied > most)
				most = ring_bytes_copied - copied;
		}
		cr_assert_leq(most, RING_MOVE_STEP * slot,
		    "slid %" PRIu64 " steps: %" PRIu64 " bytes copied in one step", slide, most);
		agg->kind->destroy(agg);
	}
}
