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
 */
#include <criterion/criterion.h>
#include <float.h>
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

/* min or max, on either engine (agg_minmax.c's deque or agg_monoid.c's two-stack). */
static bool
is_extreme(const struct agg_kind *kind)
{
	return kind == &agg_min_deque || kind == &agg_max_deque || kind == &agg_min_twostack ||
	    kind == &agg_max_twostack;
}

/* The reference result of kind over the naive window, as the contract defines it. */
static void
naive_result(const struct agg_kind *kind, const struct naive *w, uint64_t min_count,
    struct agg_result *r)
{
	size_t n = 0;
	bool nan = false, pos_inf = false, neg_inf = false;
	quad sum = 0;

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
		return;
	}
	if (kind == &agg_sum || kind == &agg_avg) {
		double s;

		if (nan || (pos_inf && neg_inf))
			s = NAN;
		else if (pos_inf || neg_inf)
			s = pos_inf ? INFINITY : -INFINITY;
		else
			s = (double)sum;
		r->number = kind == &agg_sum ? s : (double)((quad)s / n);
		if (kind == &agg_avg && isfinite(s))
			r->number = (double)(sum / n);
		return;
	}
	/* var, stddev */
	if (n < 2) {
		r->kind = AGG_RESULT_NULL;
		return;
	}
	if (nan || pos_inf || neg_inf) {
		r->number = NAN;
		return;
	}
	{
		quad mean = sum / n, m2 = 0;

		for (size_t i = 0; i < w->n; i++)
			if (w->present[i])
				m2 += (w->value[i] - mean) * (w->value[i] - mean);
		r->number = (double)(m2 / (n - 1));
		if (kind == &agg_stddev)
			r->number = sqrt(r->number);
	}
}

/* The error bound for kind over the window, per the table at the top. */
static double
tolerance(const struct agg_kind *kind, const struct naive *w, double expected)
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
		return (double)(2 * U * quad_abs(expected) + 2 * n * n * U * U * abs_sum);
	if (kind == &agg_avg)
		return (double)((2 * U * quad_abs(expected) * n + 2 * n * n * U * U * abs_sum) / n +
		    U * quad_abs(expected));
	if (kind == &agg_var)
		return (double)(10 * n * U * squares / (n - 1));
	if (kind == &agg_stddev)
		return sqrt((double)(10 * n * U * squares / (n - 1))) + U * fabs(expected);
	return 0;
}

static void
check_result(const struct agg_kind *kind, const struct naive *w, const struct agg_result *got,
    const struct agg_result *want, int step)
{
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
	if (is_extreme(kind) || isinf(want->number)) {
		cr_assert(memcmp(&got->number, &want->number, sizeof(double)) == 0,
		    "%s step %d: %.17g, expected %.17g", kind->name, step, got->number,
		    want->number);
		return;
	}
	cr_assert_leq(fabs(got->number - want->number), tolerance(kind, w, want->number),
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
 * MAX_WINDOW, checking the result after every operation.
 */
static void
random_sequences(const struct agg_kind *kind, uint64_t min_count, unsigned seed)
{
	struct agg_params params = { .min_count = min_count };
	struct agg *agg = kind->create(kind, &params);
	struct naive w = { .n = 0 };
	struct agg_result got, want;

	cr_assert_not_null(agg);
	for (int step = 0; step < 40000; step++) {
		int target = (step / 2000) % 3 == 0 ? 5 : (step / 2000) % 3 == 1 ? 60 : MAX_WINDOW - 1;
		bool push = w.n == 0 || (w.n < (size_t)target ? rand_r(&seed) % 4 != 0 :
		    rand_r(&seed) % 4 == 0);

		if (push && w.n < MAX_WINDOW) {
			struct agg_value v = { 0 };

			v.has_text = rand_r(&seed) % 8 != 0;
			v.has_number = v.has_text && (kind == &agg_count ? rand_r(&seed) % 2 : 1);
			v.number = v.has_number ? random_value(&seed) : 0;
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
		naive_result(kind, &w, min_count, &want);
		check_result(kind, &w, &got, &want, step);
	}
	kind->destroy(agg);
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
 * slide(), the per-record path of row windows, against the naive window: every kind
 * that has one (the monoids and both engines of min and max), at several window sizes,
 * with missing values, NaN, infinities and signed zeros.
 */
Test(agg, slide_matches_naive)
{
	const struct agg_kind *kinds[] = { &agg_sum, &agg_avg, &agg_count, &agg_min_deque,
	    &agg_max_deque, &agg_min_twostack, &agg_max_twostack, &agg_var, &agg_stddev };
	const uint64_t windows[] = { 1, 2, 7, 100 };
	unsigned seed = 12;

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		for (size_t j = 0; j < sizeof(windows) / sizeof(windows[0]); j++) {
			struct agg_params params = { .min_count = 1 };
			const struct agg_kind *kind = kinds[k];
			struct agg *agg = kind->create(kind, &params);
			struct naive w = { .n = 0 };
			struct agg_result got, want;

			cr_assert_not_null(agg);
			cr_assert_not_null(kind->slide, "%s has no slide()", kind->name);
			for (int step = 0; step < 3000; step++) {
				struct agg_value v = { 0 };

				v.has_text = rand_r(&seed) % 8 != 0;
				v.has_number = v.has_text && (kind == &agg_count ? rand_r(&seed) % 2 : 1);
				v.number = v.has_number ? random_value(&seed) : 0;
				if (w.n == windows[j]) {
					memmove(w.present, w.present + 1, (w.n - 1) * sizeof(w.present[0]));
					memmove(w.value, w.value + 1, (w.n - 1) * sizeof(w.value[0]));
					w.n--;
				}
				w.present[w.n] = kind == &agg_count ? v.has_text : v.has_number;
				w.value[w.n] = v.number;
				w.n++;
				cr_assert_eq(kind->slide(agg, windows[j], &v, &got), 0);
				cr_assert_eq(kind->size(agg), w.n);
				naive_result(kind, &w, 1, &want);
				check_result(kind, &w, &got, &want, step);
			}
			kind->destroy(agg);
		}
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
