/*
 * agg_monoid.c: the aggregates with an associative combine, on the two-stack engine:
 * sum, avg, count, min, max, var and stddev.
 *
 * Each is four small functions, as in the seed: empty(), unit(x), combine(older,
 * newer) and finalize(), run by monoid.h's window (and its cumulative form for @all).
 */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "agg.h"
#include "mem.h"
#include "monoid.h"
#include "twostack.h"

/*
 * sum and avg: a compensated sum (Neumaier's, generalised to combine two sums).
 *
 * NaN and the infinities cannot go into the compensated sum: its correction of
 * inf + 1 would be inf - inf = NaN.  They go into the error term instead, which is
 * only ever added to, never differenced: on the values {0, inf, -inf, NaN} IEEE
 * addition is associative and commutative, and a finite error beside an infinity
 * changes nothing.  So the error is NaN when the window holds a NaN or both
 * infinities, the infinity when it holds infinities of one sign only, and the
 * window's value, sum + error, follows IEEE arithmetic as swag(1) says (WINDOWS), in
 * whatever grouping the engine combined it.  As with every aggregate here, a
 * non-finite value leaves with the record that brought it.  (This replaced a word of
 * flags beside the sum: the Agg went from 32 to 24 bytes a slot, and swag -w 1000 avg
 * from 172 to 154 instructions a record in the window code.)
 *
 * Overflow.  A part of the window may sum past DBL_MAX where the whole window does
 * not ([1e308, 1e308, -1e308] grouped as (1e308 + 1e308) + -1e308), and finite values
 * may sum past it where their mean does not.  So a plain aggregate keeps
 * |sum| <= 2^1023, and one whose sum would be larger is kept scaled by 2^-64 instead,
 * in a second form told apart by its sum field, then a quiet NaN (never otherwise):
 *
 *     plain:   sum, error, n                 the value is sum + error
 *     scaled:  NaN with n in its payload,    the value is (hi + lo) * 2^64
 *              hi, the bits of lo
 *
 * The NaN is the point: a->sum + b->sum is then NaN, so the test that the fast path
 * makes anyway (is the sum in range?) sends every combine with a scaled operand to the
 * slow path, and only finalize() tests the form.  (A flag in the top bit of n, tested
 * in every combine, cost swag -w 1000 avg 14 instructions a record, the loop running
 * out of registers; this costs it 4.)  The slow path scales both operands, exactly
 * for values down to 2^-958 (the bits lost below are far beneath the compensated
 * sum's precision, as a scaled sum is at least 2^959: under that it goes back to the
 * plain form, exactly), adds them with TwoSum, which cannot overflow there (a scaled
 * sum is at most n * DBL_MAX * 2^-64 < 2^1020), and renormalises.  The payload holds
 * n < 2^51; a window of more (2^51 slots of 24 bytes, 54 PB) would keep n in n and
 * fold lo into hi, losing only the compensation.  avg divides before it scales back,
 * and sum's result is inf only when the window's sum is beyond DBL_MAX.  An aggregate
 * holding a NaN or an infinity is plain, its finite part 0: that part cannot matter
 * any more, so finite overflow plus -inf is -inf.
 */

/*
 * n lies between the two doubles on purpose: side by side, gcc 12 keeps and stores them
 * as one 16-byte vector, which waits for error's rounding, and the next combine, which
 * needs the sum, waits with it: a flip through the slots takes 7.6 ns a slot side by
 * side, 4.1 apart, and with sum_suffix swag -w 1000 avg takes 15 % longer side by side.
 */
struct sum_agg {
	double sum;		/* the finite values' sum, rounded; NaN: scaled */
	uint64_t n;		/* values, finite or not */
	double error;		/* what rounding took from sum, plus the non-finite values */
};

/* Memory per slot is a tracked figure (README, make bench). */
_Static_assert(sizeof(struct sum_agg) == 24, "sum and avg take 24 bytes a slot");

#define SUM_SCALE_UP 0x1p64
#define SUM_SCALE_DOWN 0x1p-64
/* The largest plain sum (a unit may hold any finite value). */
#define SUM_UNSCALED_MAX 0x1p1023
/* A scaled aggregate's sum field: a quiet NaN, n in the low bits. */
#define SUM_SCALED_MARK UINT64_C(0x7ff8000000000000)
#define SUM_PAYLOAD_MAX ((UINT64_C(1) << 51) - 1)

TWOSTACK_INLINE void
sum_empty(void *agg)
{
	*(struct sum_agg *)agg = (struct sum_agg){ .sum = 0.0, .n = 0, .error = 0.0 };
}

TWOSTACK_INLINE void
sum_unit(void *agg, double x)
{
	struct sum_agg *s = agg;

	/* The same constant as sum_combine's test, which keeps one register for both. */
	if (__builtin_expect(fabs(x) <= SUM_UNSCALED_MAX, 1) || isfinite(x))
		*s = (struct sum_agg){ .sum = x, .n = 1, .error = 0.0 };
	else
		*s = (struct sum_agg){ .sum = 0.0, .n = 1, .error = x };
}

/* The parts of a sum_agg, scaled or not: the value is (hi + lo) * 2^64 when scaled. */
struct sum_parts {
	double hi, lo;
	uint64_t n;
	bool scaled;
};

static struct sum_parts
sum_parts(const struct sum_agg *s)
{
	uint64_t bits;

	if (!isnan(s->sum))
		return (struct sum_parts){ s->sum, s->error, s->n, false };
	memcpy(&bits, &s->sum, sizeof(bits));
	if ((bits & SUM_PAYLOAD_MAX) == 0)
		return (struct sum_parts){ s->error, 0.0, s->n, true };
	{
		double lo;

		memcpy(&lo, &s->n, sizeof(lo));
		return (struct sum_parts){ s->error, lo, bits & SUM_PAYLOAD_MAX, true };
	}
}

/* The sum_agg of a scaled sum hi + lo of n values. */
static struct sum_agg
sum_scaled(double hi, double lo, uint64_t n)
{
	struct sum_agg s;
	uint64_t bits;

	if (n > SUM_PAYLOAD_MAX) {
		bits = SUM_SCALED_MARK;
		memcpy(&s.sum, &bits, sizeof(s.sum));
		s.error = hi + lo;
		s.n = n;
		return s;
	}
	bits = SUM_SCALED_MARK | n;
	memcpy(&s.sum, &bits, sizeof(s.sum));
	s.error = hi;
	memcpy(&s.n, &lo, sizeof(s.n));
	return s;
}

/*
 * sum_combine for the rare operands: either scaled, or a sum past SUM_UNSCALED_MAX.
 * Both are scaled, added there, and go back to the plain form when the sum is small.
 * By value, as sum_finalize_scaled: an operand whose address a call takes stays in
 * memory wherever the combine is inlined (twostack.h's TWOSTACK_SUFFIX).
 */
static __attribute__((noinline, cold)) struct sum_agg
sum_combine_slow(struct sum_agg older, struct sum_agg newer)
{
	struct sum_parts a = sum_parts(&older), b = sum_parts(&newer);
	uint64_t n = a.n + b.n;
	double sum, b_part, error;

	if (!isfinite(a.lo) || !isfinite(b.lo)) {
		/* A NaN or an infinity decides the sum, whatever the finite values make. */
		return (struct sum_agg){ .sum = 0.0, .n = n, .error = a.lo + b.lo };
	}
	if (!a.scaled) {
		a.hi *= SUM_SCALE_DOWN;
		a.lo *= SUM_SCALE_DOWN;
	}
	if (!b.scaled) {
		b.hi *= SUM_SCALE_DOWN;
		b.lo *= SUM_SCALE_DOWN;
	}
	sum = a.hi + b.hi;
	b_part = sum - a.hi;
	error = (a.lo + b.lo) + ((a.hi - (sum - b_part)) + (b.hi - b_part));
	/*
	 * Renormalised (TwoSum again, exact), so that the error is below half an ulp of
	 * the sum: a plain form made from it then has |error| <= 2^970, and sum + error
	 * stays finite however the fast path goes on.
	 */
	a.hi = sum;
	sum = a.hi + error;
	b_part = sum - a.hi;
	error = (a.hi - (sum - b_part)) + (error - b_part);
	if (fabs(sum) <= SUM_UNSCALED_MAX * SUM_SCALE_DOWN)
		return (struct sum_agg){ .sum = sum * SUM_SCALE_UP, .n = n,
		    .error = error * SUM_SCALE_UP };
	return sum_scaled(sum, error, n);
}

/*
 * Adds two compensated sums: the rounded sums are added with Knuth's TwoSum, which
 * recovers the rounding error exactly, and the errors are added up apart.  The
 * window [1e20, 1, -1e20] thus sums to exactly 1 in any grouping.  TwoSum does not
 * overflow when its sum does not (Boldo, Graillat and Muller, 2017).  A sum past
 * SUM_UNSCALED_MAX, and any scaled operand (whose NaN makes the sum NaN), take the
 * slow path (see above).
 */
TWOSTACK_INLINE void
sum_combine(void *out, const void *older, const void *newer)
{
	const struct sum_agg *a = older, *b = newer;
	double sum = a->sum + b->sum;
	double b_part = sum - a->sum;
	double rounding = (a->sum - (sum - b_part)) + (b->sum - b_part);
	double error = a->error + b->error;
	struct sum_agg *r = out;

	if (__builtin_expect(!(fabs(sum) <= SUM_UNSCALED_MAX), 0)) {
		*r = sum_combine_slow(*a, *b);
		return;
	}
	error += rounding;
	r->n = a->n + b->n;
	r->sum = sum;
	r->error = error;
}

TWOSTACK_SUFFIX(sum_suffix, struct sum_agg, sum_combine)

/*
 * sum_finalize and avg_finalize for scaled aggregates.  The mean of finite values
 * lies within their range, so a rounding that takes it past DBL_MAX is undone.
 */
static __attribute__((noinline, cold)) void
sum_finalize_scaled(struct sum_agg s, const struct agg_params *params,
    struct agg_result *r, bool average)
{
	struct sum_parts p = sum_parts(&s);
	double value;

	if (p.n < params->min_count) {
		r->kind = AGG_RESULT_NULL;
		return;
	}
	r->kind = AGG_RESULT_NUMBER;
	if (!average)
		value = (p.hi + p.lo) * SUM_SCALE_UP;
	else {
		value = (p.hi / (double)(int64_t)p.n + p.lo / (double)(int64_t)p.n) *
		    SUM_SCALE_UP;
		if (isinf(value))
			value = copysign(DBL_MAX, value);
	}
	r->number = value;
}

/*
 * The window's sum, or its average, with IEEE semantics for its NaNs and infinities
 * (see above); average is a constant in each caller.
 */
TWOSTACK_INLINE void
sum_finalize_of(const void *agg, const struct agg_params *params, struct agg_result *r,
    bool average)
{
	const struct sum_agg *s = agg;

	if (__builtin_expect(isnan(s->sum), 0)) {
		sum_finalize_scaled(*s, params, r, average);
		return;
	}
	if (s->n < params->min_count) {	/* min_count >= 1 (monoid_create) */
		r->kind = AGG_RESULT_NULL;
		return;
	}
	r->kind = AGG_RESULT_NUMBER;
	/* n < 2^63, and a signed conversion is one instruction where an unsigned is four. */
	r->number = average ? (s->sum + s->error) / (double)(int64_t)s->n : s->sum + s->error;
}

TWOSTACK_INLINE void
sum_finalize(const void *agg, const struct agg_params *params, struct agg_result *r)
{
	sum_finalize_of(agg, params, r, false);
}

TWOSTACK_INLINE void
avg_finalize(const void *agg, const struct agg_params *params, struct agg_result *r)
{
	sum_finalize_of(agg, params, r, true);
}

/* count: the number of non-empty fields, whatever they hold. */

TWOSTACK_INLINE void
count_empty(void *agg)
{
	*(uint64_t *)agg = 0;
}

TWOSTACK_INLINE void
count_unit(void *agg, double x)
{
	(void)x;
	*(uint64_t *)agg = 1;
}

TWOSTACK_INLINE void
count_combine(void *out, const void *older, const void *newer)
{
	*(uint64_t *)out = *(const uint64_t *)older + *(const uint64_t *)newer;
}

TWOSTACK_INLINE void
count_finalize(const void *agg, const struct agg_params *params, struct agg_result *r)
{
	(void)params;
	r->kind = AGG_RESULT_COUNT;
	r->count = *(const uint64_t *)agg;
}

/*
 * min and max.  The empty window's min is +inf, which any value replaces; a NaN
 * wins over every number, and of two equal zeros min keeps -0 and max +0, so the
 * result does not depend on how the engine grouped the values.
 */

struct extreme_agg {
	double value;
	uint64_t n;
};

TWOSTACK_INLINE void
min_empty(void *agg)
{
	*(struct extreme_agg *)agg = (struct extreme_agg){ INFINITY, 0 };
}

TWOSTACK_INLINE void
max_empty(void *agg)
{
	*(struct extreme_agg *)agg = (struct extreme_agg){ -INFINITY, 0 };
}

TWOSTACK_INLINE void
extreme_unit(void *agg, double x)
{
	*(struct extreme_agg *)agg = (struct extreme_agg){ x, 1 };
}

TWOSTACK_INLINE void
min_combine(void *out, const void *older, const void *newer)
{
	const struct extreme_agg *a = older, *b = newer;
	double value = a->value;

	if (b->value < value || (b->value == value && signbit(b->value)) || isnan(b->value))
		value = b->value;
	if (isnan(a->value))
		value = a->value;
	((struct extreme_agg *)out)->n = a->n + b->n;
	((struct extreme_agg *)out)->value = value;
}

TWOSTACK_INLINE void
max_combine(void *out, const void *older, const void *newer)
{
	const struct extreme_agg *a = older, *b = newer;
	double value = a->value;

	if (b->value > value || (b->value == value && !signbit(b->value)) || isnan(b->value))
		value = b->value;
	if (isnan(a->value))
		value = a->value;
	((struct extreme_agg *)out)->n = a->n + b->n;
	((struct extreme_agg *)out)->value = value;
}

TWOSTACK_INLINE void
extreme_finalize(const void *agg, const struct agg_params *params, struct agg_result *r)
{
	const struct extreme_agg *e = agg;

	if (e->n < params->min_count) {	/* min_count >= 1 (monoid_create) */
		r->kind = AGG_RESULT_NULL;
		return;
	}
	r->kind = AGG_RESULT_NUMBER;
	r->number = e->value;
}

/*
 * var and stddev: the sample variance from (n, sum, M2), M2 being the sum of squared
 * deviations from the mean, combined as Chan, Golub and LeVeque (1979) do for two
 * parts of a data set:
 *
 *     M2 = M2a + M2b + (nb·Sa - na·Sb)² / (na·nb·n)
 *
 * Written with the sums rather than the means, the correction term is exact for
 * integer data until its last division, so the variance of [2, 4, 4, 4] is 1, not
 * 0.9999999999999999 as the mean-based form gives.  Each part keeps its sum as
 * shifted by its oldest value, ref (the shifted data algorithm, Chan, Golub and
 * LeVeque 1983): S = n·ref + sum, so that nb·Sa - na·Sb is nb·suma - na·(sumb +
 * nb·(refb - refa)).  Values near one another (1e9 plus noise, timestamps) then
 * differ from ref exactly, where their sums would round at the scale of the values,
 * and the correction keeps the noise's precision; a window of equal values has the
 * variance 0 exactly, where unshifted sums of 0.1s round and leave a residue.  An
 * empty part takes the other's ref.
 *
 * A NaN or an infinity makes the result NaN (the deviations of an infinite mean are
 * inf - inf): its unit's M2 is NaN, which every combine carries, and while one is in
 * the window the combines take the slow path.
 *
 * Overflow.  The sum, nb·Sa, the square and M2 itself may overflow where the variance,
 * or at least the standard deviation, fits: [1e155, -1e155] has M2 = 2e310 and
 * standard deviation 1.4e155.  A combine that overflows anywhere (seen as sum + M2 not
 * finite: one addition and one test on the fast path) is done again out of line, with
 * the unshifted sum scaled by 2^-576 and M2 by 2^-1152, and the result kept in that
 * form unless it fits the plain one (then with ref 0): M2 = +inf marks it, so that
 * every combine with it fails the same test, and ref holds the scaled M2.  With n <
 * 2^60 and |x| <= DBL_MAX the scaled sum stays under 2^509, nb·Sa under 2^570 and M2
 * under 2^959; the correction is the mean difference times delta / n, as delta² may
 * pass 2^1024 once na·nb > 2^63.  Scaling is exact for values down to 2^-446, and the
 * bits lost beneath are nothing beside the M2 of a part that overflowed.  The
 * variance is M2/(n-1) scaled back, inf only when it is beyond DBL_MAX, and the
 * standard deviation sqrt(M2/(n-1)) * 2^576, finite whenever it fits.
 */

/*
 * In this order on purpose: with n between sum and m2 (and ref after them), swag
 * -w 1000 var takes 27 % longer, from where gcc 12 puts its vector stores.
 */
struct var_agg {
	uint64_t n;		/* values, finite or not */
	double ref;		/* the oldest value; scaled: M2 */
	double sum;		/* Σ (x - ref); scaled: Σ x, scaled */
	double m2;		/* NaN: a value not finite; +inf: scaled */
};

_Static_assert(sizeof(struct var_agg) == 32, "var and stddev take 32 bytes a slot");

#define VAR_SCALE_UP 0x1p576
#define VAR_SCALE_DOWN 0x1p-576

TWOSTACK_INLINE void
var_empty(void *agg)
{
	*(struct var_agg *)agg = (struct var_agg){ .n = 0, .ref = 0.0, .sum = 0.0,
	    .m2 = 0.0 };
}

TWOSTACK_INLINE void
var_unit(void *agg, double x)
{
	if (isfinite(x))
		*(struct var_agg *)agg = (struct var_agg){ .n = 1, .ref = x, .sum = 0.0,
		    .m2 = 0.0 };
	else
		*(struct var_agg *)agg = (struct var_agg){ .n = 1, .ref = 0.0, .sum = 0.0,
		    .m2 = NAN };
}

/* The unshifted sum and the M2 of v, which holds no NaN or infinity, scaled. */
static void
var_scaled_parts(const struct var_agg *v, double *sum, double *m2)
{
	if (isinf(v->m2)) {
		*sum = v->sum;
		*m2 = v->ref;
	} else {
		/* Below 2^60 · 2^448 + 2^449: no overflow. */
		*sum = (double)(int64_t)v->n * (v->ref * VAR_SCALE_DOWN) +
		    v->sum * VAR_SCALE_DOWN;
		*m2 = v->m2 * VAR_SCALE_DOWN * VAR_SCALE_DOWN;
	}
}

/*
 * var_combine for the rare operands: scaled, holding a NaN, or whose combine overflowed.
 * By value, so that var_suffix's operands stay in registers (twostack.h).
 */
static __attribute__((noinline, cold)) struct var_agg
var_combine_slow(struct var_agg a, struct var_agg b)
{
	uint64_t n = a.n + b.n;
	double a_sum, a_m2, b_sum, b_m2, sum, m2;

	if (isnan(a.m2) || isnan(b.m2))
		return (struct var_agg){ .n = n, .ref = 0.0, .sum = 0.0, .m2 = NAN };
	var_scaled_parts(&a, &a_sum, &a_m2);
	var_scaled_parts(&b, &b_sum, &b_m2);
	sum = a_sum + b_sum;
	m2 = a_m2 + b_m2;
	if (a.n != 0 && b.n != 0) {
		double na = (double)(int64_t)a.n, nb = (double)(int64_t)b.n;
		double delta = nb * a_sum - na * b_sum;

		/* delta² itself may overflow: the mean difference times delta / n. */
		m2 += (delta / (na * nb)) * (delta / (na + nb));
	}
	if (fabs(sum) <= 0x1p1022 * VAR_SCALE_DOWN &&
	    m2 <= 0x1p1022 * VAR_SCALE_DOWN * VAR_SCALE_DOWN)
		return (struct var_agg){ .n = n, .ref = 0.0, .sum = sum * VAR_SCALE_UP,
		    .m2 = m2 * VAR_SCALE_UP * VAR_SCALE_UP };
	return (struct var_agg){ .n = n, .ref = m2, .sum = sum, .m2 = INFINITY };
}

TWOSTACK_INLINE void
var_combine(void *out, const void *older, const void *newer)
{
	const struct var_agg *a = older, *b = newer;
	struct var_agg r;

	r.n = a->n + b->n;
	r.ref = a->n != 0 ? a->ref : b->ref;
	r.sum = a->sum + b->sum;
	r.m2 = a->m2 + b->m2;
	if (a->n != 0 && b->n != 0) {
		/* Signed conversions: one instruction each, where unsigned ones are four. */
		double na = (double)(int64_t)a->n, nb = (double)(int64_t)b->n;
		double shift = nb * (b->ref - a->ref);
		double delta = nb * a->sum - na * (b->sum + shift);

		r.sum += shift;
		r.m2 += delta * delta / (na * nb * (na + nb));
	}
	/*
	 * Overflow anywhere above, a scaled operand (its m2 is inf) or one holding a NaN
	 * leaves sum + M2 not finite.
	 */
	if (__builtin_expect(!isfinite(r.sum + r.m2), 0))
		r = var_combine_slow(*a, *b);
	*(struct var_agg *)out = r;
}

TWOSTACK_SUFFIX(var_suffix, struct var_agg, var_combine)

/* The variance or the standard deviation of a scaled aggregate, or NaN. */
static __attribute__((noinline, cold)) double
var_value_slow(const struct var_agg *v, bool root)
{
	double variance;

	if (isnan(v->m2))
		return NAN;
	variance = v->ref / (double)(int64_t)(v->n - 1);
	if (root)
		return sqrt(variance) * VAR_SCALE_UP;
	return variance * VAR_SCALE_UP * VAR_SCALE_UP;
}

/* The sample variance, or its square root; NaN when a value is not finite. */
TWOSTACK_INLINE void
var_finalize_any(const void *agg, const struct agg_params *params, struct agg_result *r,
    bool root)
{
	const struct var_agg *v = agg;
	double variance;

	if (v->n < 2 || v->n < params->min_count) {
		r->kind = AGG_RESULT_NULL;
		return;
	}
	r->kind = AGG_RESULT_NUMBER;
	if (__builtin_expect(!isfinite(v->m2), 0)) {
		r->number = var_value_slow(v, root);
		return;
	}
	variance = v->m2 / (double)(int64_t)(v->n - 1);
	r->number = root ? sqrt(variance) : variance;
}

TWOSTACK_INLINE void
var_finalize(const void *agg, const struct agg_params *params, struct agg_result *r)
{
	var_finalize_any(agg, params, r, false);
}

TWOSTACK_INLINE void
stddev_finalize(const void *agg, const struct agg_params *params, struct agg_result *r)
{
	var_finalize_any(agg, params, r, true);
}

static const struct monoid sum_monoid = {
	{ sizeof(struct sum_agg), sum_empty, sum_combine, sum_suffix }, sum_unit, NULL,
	sum_finalize
};
static const struct monoid avg_monoid = {
	{ sizeof(struct sum_agg), sum_empty, sum_combine, sum_suffix }, sum_unit, NULL,
	avg_finalize
};
static const struct monoid count_monoid = {
	{ sizeof(uint64_t), count_empty, count_combine, NULL }, count_unit, NULL,
	count_finalize
};
static const struct monoid min_monoid = {
	{ sizeof(struct extreme_agg), min_empty, min_combine, NULL }, extreme_unit, NULL,
	extreme_finalize
};
static const struct monoid max_monoid = {
	{ sizeof(struct extreme_agg), max_empty, max_combine, NULL }, extreme_unit, NULL,
	extreme_finalize
};
static const struct monoid var_monoid = {
	{ sizeof(struct var_agg), var_empty, var_combine, var_suffix }, var_unit, NULL,
	var_finalize
};
static const struct monoid stddev_monoid = {
	{ sizeof(struct var_agg), var_empty, var_combine, var_suffix }, var_unit, NULL,
	stddev_finalize
};

MONOID_KIND(sum, AGG_INPUT_NUMBER);
MONOID_KIND(avg, AGG_INPUT_NUMBER);
MONOID_KIND_AS(count, agg_count, AGG_INPUT_TEXT, true);
/* The default min and max are agg_minmax.c's deque; these are the two-stack's. */
MONOID_KIND_AS(min, agg_min_twostack, AGG_INPUT_NUMBER, true);
MONOID_KIND_AS(max, agg_max_twostack, AGG_INPUT_NUMBER, true);
MONOID_KIND(var, AGG_INPUT_NUMBER);
MONOID_KIND(stddev, AGG_INPUT_NUMBER);
