/*
 * agg_monoid.c: the aggregates with an associative combine, on the two-stack engine:
 * sum, avg, count, min, max, var and stddev.
 *
 * Each is four small functions, as in the seed: empty(), unit(x), combine(older,
 * newer) and finalize().  The window code around them is shared and inlined per
 * aggregate (monoid_push and friends), and the four are TWOSTACK_INLINE, so combine()
 * costs no call at all.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "agg.h"
#include "mem.h"
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
 * window's value, sum + error, follows IEEE arithmetic as the contract asks, in
 * whatever grouping the engine combined it.  As with every aggregate here, a
 * non-finite value leaves with the record that brought it.  (This replaced a word of
 * flags beside the sum: the Agg went from 32 to 24 bytes a slot, and swag -w 1000 avg
 * from 172 to 154 instructions a record in the window code.)
 */

struct sum_agg {
	double sum;		/* the finite values' sum, rounded */
	double error;		/* what rounding took from sum, plus the non-finite values */
	uint64_t n;		/* values, finite or not */
};

TWOSTACK_INLINE void
sum_empty(void *agg)
{
	*(struct sum_agg *)agg = (struct sum_agg){ 0.0, 0.0, 0 };
}

TWOSTACK_INLINE void
sum_unit(void *agg, double x)
{
	struct sum_agg *s = agg;

	if (isfinite(x))
		*s = (struct sum_agg){ x, 0.0, 1 };
	else
		*s = (struct sum_agg){ 0.0, x, 1 };
}

/*
 * Adds two compensated sums: the rounded sums are added with Knuth's TwoSum, which
 * recovers the rounding error exactly, and the errors are added up apart.  The
 * window [1e20, 1, -1e20] thus sums to exactly 1 in any grouping.  Should the finite
 * sum overflow, the correction would be inf - inf: it is dropped, and the result is
 * the infinity that IEEE arithmetic gives too.
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

	if (isfinite(sum))
		error += rounding;
	r->n = a->n + b->n;
	r->sum = sum;
	r->error = error;
}

/* The window's sum, with IEEE semantics for its NaNs and infinities (see above). */
TWOSTACK_INLINE double
sum_value(const struct sum_agg *s)
{
	return s->sum + s->error;
}

TWOSTACK_INLINE void
sum_finalize(const void *agg, const struct agg_params *params, struct agg_result *r)
{
	const struct sum_agg *s = agg;

	if (s->n == 0 || s->n < params->min_count) {
		r->kind = AGG_RESULT_NULL;
		return;
	}
	r->kind = AGG_RESULT_NUMBER;
	r->number = sum_value(s);
}

TWOSTACK_INLINE void
avg_finalize(const void *agg, const struct agg_params *params, struct agg_result *r)
{
	const struct sum_agg *s = agg;

	if (s->n == 0 || s->n < params->min_count) {
		r->kind = AGG_RESULT_NULL;
		return;
	}
	r->kind = AGG_RESULT_NUMBER;
	/* n < 2^63, and a signed conversion is one instruction where an unsigned is four. */
	r->number = sum_value(s) / (double)(int64_t)s->n;
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

	if (e->n == 0 || e->n < params->min_count) {
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
 * 0.9999999999999999 as the mean-based form gives.  Any NaN or infinity makes the
 * result NaN (the deviations of an infinite mean are inf - inf), so those are only
 * counted and the arithmetic stays finite.
 */

struct var_agg {
	uint64_t n;		/* values, finite or not */
	uint64_t finite;	/* finite values, those in sum and m2 */
	double sum;
	double m2;
};

TWOSTACK_INLINE void
var_empty(void *agg)
{
	*(struct var_agg *)agg = (struct var_agg){ 0, 0, 0.0, 0.0 };
}

TWOSTACK_INLINE void
var_unit(void *agg, double x)
{
	if (isfinite(x))
		*(struct var_agg *)agg = (struct var_agg){ 1, 1, x, 0.0 };
	else
		*(struct var_agg *)agg = (struct var_agg){ 1, 0, 0.0, 0.0 };
}

TWOSTACK_INLINE void
var_combine(void *out, const void *older, const void *newer)
{
	const struct var_agg *a = older, *b = newer;
	struct var_agg r;

	r.n = a->n + b->n;
	r.finite = a->finite + b->finite;
	r.sum = a->sum + b->sum;
	r.m2 = a->m2 + b->m2;
	if (a->finite != 0 && b->finite != 0) {
		double na = (double)a->finite, nb = (double)b->finite;
		double delta = nb * a->sum - na * b->sum;
		double square = delta * delta;

		/* Huge values overflow the square where the ratio would not. */
		if (isfinite(square))
			r.m2 += square / (na * nb * (na + nb));
		else
			r.m2 += (delta / (na + nb)) * (delta / (na * nb));
	}
	*(struct var_agg *)out = r;
}

/* The sample variance, NaN when a value is not finite; the caller checks n >= 2. */
TWOSTACK_INLINE double
var_value(const struct var_agg *v)
{
	if (v->finite != v->n)
		return NAN;
	return v->m2 / (double)(v->n - 1);
}

TWOSTACK_INLINE void
var_finalize(const void *agg, const struct agg_params *params, struct agg_result *r)
{
	const struct var_agg *v = agg;

	if (v->n < 2 || v->n < params->min_count) {
		r->kind = AGG_RESULT_NULL;
		return;
	}
	r->kind = AGG_RESULT_NUMBER;
	r->number = var_value(v);
}

TWOSTACK_INLINE void
stddev_finalize(const void *agg, const struct agg_params *params, struct agg_result *r)
{
	var_finalize(agg, params, r);
	if (r->kind == AGG_RESULT_NUMBER)
		r->number = sqrt(r->number);
}

/*
 * The window shared by every monoid aggregate: a two-stack of its Aggs, one slot per
 * record.  A record without a value pushes empty(), which keeps the slot.
 */

struct monoid {
	struct twostack_ops ops;
	void (*unit)(void *agg, double x);
	void (*finalize)(const void *agg, const struct agg_params *params,
	    struct agg_result *result);
};

struct monoid_window {
	struct agg header;
	struct twostack stack;
};

TWOSTACK_INLINE struct agg *
monoid_create(const struct agg_kind *kind, const struct agg_params *params,
    const struct monoid *m)
{
	struct monoid_window *w = mem_realloc(NULL, sizeof(*w));

	if (w == NULL)
		return NULL;
	w->header.kind = kind;
	w->header.params = *params;
	twostack_init(&w->stack, &m->ops);
	return &w->header;
}

TWOSTACK_INLINE int
monoid_push(struct agg *agg, const struct agg_value *value, enum agg_input input,
    const struct monoid *m)
{
	struct monoid_window *w = (struct monoid_window *)agg;
	bool present = input == AGG_INPUT_TEXT ? value->has_text : value->has_number;
	void *unit = twostack_next_slot(&w->stack, &m->ops);

	if (unit == NULL)
		return -1;
	if (present)
		m->unit(unit, value->number);
	else
		m->ops.empty(unit);
	twostack_push_slot(&w->stack, &m->ops, unit);
	return 0;
}

TWOSTACK_INLINE void
monoid_pop(struct agg *agg, const struct monoid *m)
{
	twostack_pop(&((struct monoid_window *)agg)->stack, &m->ops);
}

TWOSTACK_INLINE void
monoid_result(struct agg *agg, struct agg_result *result, const struct monoid *m)
{
	struct monoid_window *w = (struct monoid_window *)agg;
	union {
		unsigned char bytes[TWOSTACK_AGG_MAX];
		double align;
	} total;

	twostack_eval(&w->stack, &m->ops, total.bytes);
	m->finalize(total.bytes, &agg->params, result);
}

TWOSTACK_INLINE int
monoid_slide(struct agg *agg, uint64_t rows, const struct agg_value *value,
    struct agg_result *result, enum agg_input input, const struct monoid *m)
{
	struct monoid_window *w = (struct monoid_window *)agg;

	if (twostack_size(&w->stack) == rows)
		twostack_pop(&w->stack, &m->ops);
	if (monoid_push(agg, value, input, m) != 0)
		return -1;
	if (result != NULL)
		monoid_result(agg, result, m);
	return 0;
}

static void
monoid_destroy(struct agg *agg)
{
	struct monoid_window *w = (struct monoid_window *)agg;

	twostack_free(&w->stack);
	mem_free(w);
}

static uint64_t
monoid_size(const struct agg *agg)
{
	return twostack_size(&((const struct monoid_window *)agg)->stack);
}

/*
 * Defines the kind KIND, called NAME, from the monoid NAME_monoid, with wrappers that
 * hand the shared window code a constant table, so that each aggregate gets its own
 * inlined copy of the engine.  MONOID_KIND(NAME, INPUT) defines agg_NAME.
 */
#define MONOID_KIND(NAME, INPUT) MONOID_KIND_AS(NAME, agg_##NAME, INPUT)
#define MONOID_KIND_AS(NAME, KIND, INPUT)					\
	static struct agg *							\
	NAME##_create(const struct agg_kind *kind, const struct agg_params *params) \
	{									\
		return monoid_create(kind, params, &NAME##_monoid);		\
	}									\
	static int								\
	NAME##_push(struct agg *agg, const struct agg_value *value)		\
	{									\
		return monoid_push(agg, value, INPUT, &NAME##_monoid);		\
	}									\
	static void								\
	NAME##_pop(struct agg *agg)						\
	{									\
		monoid_pop(agg, &NAME##_monoid);				\
	}									\
	static void								\
	NAME##_result(struct agg *agg, struct agg_result *result)		\
	{									\
		monoid_result(agg, result, &NAME##_monoid);			\
	}									\
	static int								\
	NAME##_slide(struct agg *agg, uint64_t rows, const struct agg_value *value, \
	    struct agg_result *result)						\
	{									\
		return monoid_slide(agg, rows, value, result, INPUT, &NAME##_monoid); \
	}									\
	static size_t								\
	NAME##_slide_many(struct agg *agg, uint64_t rows,			\
	    const struct agg_value *values, size_t n, struct agg_result *results) \
	{									\
		for (size_t k = 0; k < n; k++)					\
			if (monoid_slide(agg, rows, &values[k], &results[k], INPUT,	\
			    &NAME##_monoid) != 0)					\
				return k;					\
		return n;							\
	}									\
	const struct agg_kind KIND = {						\
		#NAME, INPUT, NAME##_create, monoid_destroy, NAME##_push,	\
		NAME##_pop, NAME##_result, monoid_size, NAME##_slide,		\
		NAME##_slide_many, false					\
	}

static const struct monoid sum_monoid = {
	{ sizeof(struct sum_agg), sum_empty, sum_combine }, sum_unit, sum_finalize
};
static const struct monoid avg_monoid = {
	{ sizeof(struct sum_agg), sum_empty, sum_combine }, sum_unit, avg_finalize
};
static const struct monoid count_monoid = {
	{ sizeof(uint64_t), count_empty, count_combine }, count_unit, count_finalize
};
static const struct monoid min_monoid = {
	{ sizeof(struct extreme_agg), min_empty, min_combine }, extreme_unit,
	extreme_finalize
};
static const struct monoid max_monoid = {
	{ sizeof(struct extreme_agg), max_empty, max_combine }, extreme_unit,
	extreme_finalize
};
static const struct monoid var_monoid = {
	{ sizeof(struct var_agg), var_empty, var_combine }, var_unit, var_finalize
};
static const struct monoid stddev_monoid = {
	{ sizeof(struct var_agg), var_empty, var_combine }, var_unit, stddev_finalize
};

MONOID_KIND(sum, AGG_INPUT_NUMBER);
MONOID_KIND(avg, AGG_INPUT_NUMBER);
MONOID_KIND(count, AGG_INPUT_TEXT);
/* The default min and max are agg_minmax.c's deque; these are the two-stack's. */
MONOID_KIND_AS(min, agg_min_twostack, AGG_INPUT_NUMBER);
MONOID_KIND_AS(max, agg_max_twostack, AGG_INPUT_NUMBER);
MONOID_KIND(var, AGG_INPUT_NUMBER);
MONOID_KIND(stddev, AGG_INPUT_NUMBER);
