/*
 * test_agg.c: every monoid aggregate against a naive recomputation of each window,
 * over random push/pop sequences with missing values, duplicates, NaN and ±inf,
 * and windows that grow and shrink.
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
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agg.h"

#define U (DBL_EPSILON / 2)
#define MAX_WINDOW 300

typedef __float128 quad;

struct naive {
	/* The window, oldest first: present values, NaN for missing ones is not used. */
	bool present[MAX_WINDOW];
	double value[MAX_WINDOW];
	size_t n;
};

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
	return 0;
}

static void
check_result(const struct agg_kind *kind, const struct naive *w, const struct agg_result *got,
    const struct agg_result *want, quad exact, int step)
{
	quad magnitude = quad_abs(exact);
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
	/* Bit-exact: min, max, and the infinities that come from infinite values. */
	if (is_extreme(kind) || magnitude == (quad)INFINITY) {
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
	    kind->name, step, got->number, want->number, w->n);
	cr_assert_leq((double)quad_abs(got->number - exact), tolerance(kind, w, exact),
	    "%s step %d: %.17g, expected %.17g (window %zu)", kind->name, step, got->number,
	    want->number, w->n);
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
 */
static void
random_sequences_of(const struct agg_kind *kind, uint64_t min_count, unsigned seed,
    double (*value)(unsigned *seed))
{
	struct agg_params params = { .min_count = min_count };
	struct agg *agg = kind->create(kind, &params);
	struct naive w = { .n = 0 };
	struct agg_result got, want;
	quad exact;

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
			cr_assert_eq(kind->push(agg, &v), 0);
			w.present[w.n] = kind == &agg_count ? v.has_text : v.has_number;
			w.value[w.n] = v.number;
			w.n++;
		} else {
			kind->pop(agg);
			memmove(w.present, w.present + 1, (w.n - 1) * sizeof(w.present[0]));
			memmove(w.value, w.value + 1, (w.n - 1) * sizeof(w.value[0]));
			w.n--;
		}
		cr_assert_eq(kind->size(agg), w.n);
		kind->result(agg, &got);
		naive_result(kind, &w, min_count, &want, &exact);
		check_result(kind, &w, &got, &want, exact, step);
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
Test(agg, stddev_random) { random_sequences(&agg_stddev, 1, 7); }
Test(agg, min_count_random)
{
	random_sequences(&agg_sum, 20, 8);
	random_sequences(&agg_max_deque, 3, 9);
	random_sequences(&agg_min_twostack, 3, 9);
	random_sequences(&agg_var, 7, 10);
	random_sequences(&agg_count, 50, 11);	/* count ignores -m */
}

/*
 * Moves a row window of the given size over 3000 values from value(), by slide() one
 * record at a time or, with many, by slide_many() in batches of 1 to 64 (the
 * pipeline's path), checking every result against the naive window.
 */
static void
slide_against_naive(const struct agg_kind *kind, uint64_t window, unsigned *seed,
    double (*value)(unsigned *seed), bool many)
{
	struct agg_params params = { .min_count = 1 };
	struct agg *agg = kind->create(kind, &params);
	struct naive w = { .n = 0 };

	cr_assert_not_null(agg);
	cr_assert_not_null(kind->slide, "%s has no slide()", kind->name);
	cr_assert(!many || kind->slide_many != NULL, "%s has no slide_many()", kind->name);
	for (int step = 0; step < 3000;) {
		struct agg_value v[64];
		struct agg_result got[64], want;
		size_t count = many ? 1 + (size_t)rand_r(seed) % 64 : 1;
		quad exact;

		memset(v, 0, sizeof(v));
		for (size_t k = 0; k < count; k++) {
			v[k].has_text = rand_r(seed) % 8 != 0;
			v[k].has_number = v[k].has_text && (kind == &agg_count ? rand_r(seed) % 2 : 1);
			v[k].number = v[k].has_number ? value(seed) : 0;
		}
		if (many)
			cr_assert_eq(kind->slide_many(agg, window, v, count, got), count);
		for (size_t k = 0; k < count; k++, step++) {
			if (!many)
				cr_assert_eq(kind->slide(agg, window, &v[k], &got[k]), 0);
			if (w.n == window) {
				memmove(w.present, w.present + 1, (w.n - 1) * sizeof(w.present[0]));
				memmove(w.value, w.value + 1, (w.n - 1) * sizeof(w.value[0]));
				w.n--;
			}
			w.present[w.n] = kind == &agg_count ? v[k].has_text : v[k].has_number;
			w.value[w.n] = v[k].number;
			w.n++;
			naive_result(kind, &w, 1, &want, &exact);
			check_result(kind, &w, &got[k], &want, exact, step);
		}
		cr_assert_eq(kind->size(agg), w.n);
	}
	kind->destroy(agg);
}

static const struct agg_kind *const slide_kinds[] = { &agg_sum, &agg_avg, &agg_count,
    &agg_min_deque, &agg_max_deque, &agg_min_twostack, &agg_max_twostack, &agg_var,
    &agg_stddev };

/*
 * slide(), the per-record path of row windows, against the naive window: every kind
 * that has one (the monoids and both engines of min and max), at several window sizes,
 * with missing values, NaN, infinities and signed zeros.
 */
Test(agg, slide_matches_naive)
{
	const uint64_t windows[] = { 1, 2, 7, 100 };
	unsigned seed = 12;

	for (size_t k = 0; k < sizeof(slide_kinds) / sizeof(slide_kinds[0]); k++)
		for (size_t j = 0; j < sizeof(windows) / sizeof(windows[0]); j++)
			slide_against_naive(slide_kinds[k], windows[j], &seed, random_value, false);
}

/* The same through slide_many(), which the pipeline calls for a batch of records. */
Test(agg, slide_many_matches_naive)
{
	const uint64_t windows[] = { 1, 2, 7, 100 };
	unsigned seed = 13;

	for (size_t k = 0; k < sizeof(slide_kinds) / sizeof(slide_kinds[0]); k++)
		for (size_t j = 0; j < sizeof(windows) / sizeof(windows[0]); j++)
			slide_against_naive(slide_kinds[k], windows[j], &seed, random_value, true);
}

/* Moves a row window of the given size on by the value x and returns the result. */
static double
slide(struct agg *agg, uint64_t window, double x)
{
	struct agg_value v = { .has_text = true, .has_number = true, .number = x };
	struct agg_result r;

	if (agg->kind->size(agg) == window)
		agg->kind->pop(agg);
	cr_assert_eq(agg->kind->push(agg, &v), 0);
	agg->kind->result(agg, &r);
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
		cr_assert_eq(agg->kind->push(agg, &first), 0);
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

		cr_assert_eq(var->kind->push(var, &one), 0);
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

	cr_assert_eq(var->kind->push(var, &v), 0);
	var->kind->result(var, &r);
	cr_assert_eq(r.kind, AGG_RESULT_NULL);
	for (double x = 2; x <= 4; x++) {
		v.number = x;
		cr_assert_eq(var->kind->push(var, &v), 0);
	}
	var->kind->result(var, &r);
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

/* slide() and slide_many() on the same values, for every monoid that sums. */
Test(agg_range, slide_matches_naive)
{
	const struct agg_kind *kinds[] = { &agg_sum, &agg_avg, &agg_var, &agg_stddev };
	double (*values[])(unsigned *) = { range_value_mixed, range_value_huge,
	    range_value_squares };
	const uint64_t windows[] = { 1, 2, 3, 7, 100 };
	unsigned seed = 34;

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		for (size_t v = 0; v < sizeof(values) / sizeof(values[0]); v++)
			for (size_t j = 0; j < sizeof(windows) / sizeof(windows[0]); j++) {
				slide_against_naive(kinds[k], windows[j], &seed, values[v], false);
				slide_against_naive(kinds[k], windows[j], &seed, values[v], true);
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

		cr_assert_eq(kind->slide(agg, window, &v, &r), 0);
		results[i] = r.kind == AGG_RESULT_NUMBER ? r.number : -1;
	}
	kind->destroy(agg);
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
