/*
 * agg_ends.c: the aggregates of a window's ends, first, last, delta and rate, as
 * monoids on the two-stack engine (monoid.h).
 *
 * first and last are the window's oldest and newest number, delta is last - first.
 * Their aggregate is (first, last, n): combine(older, newer) takes the older side's
 * first and the newer side's last, or the other side whole when one holds no number.
 * A NaN or an infinity is a number like any other here: it is first or last while it
 * is the oldest or newest number, and delta follows IEEE arithmetic (inf - inf is NaN).
 *
 * rate is the per-second increase of a counter between the window's first and last
 * numbers: the increase is the sum, over each number and its predecessor in the
 * window, of x - prev, or of x itself when x < prev (a counter reset: the counter
 * restarted from zero), and the time is between the first and the last number's
 * records.  Its aggregate adds the timestamps of both ends and the increase inside,
 * and combine adds the increase of the step between the older side's last number and
 * the newer side's first:
 *
 *     increase = older.increase + step(older.last, newer.first) + newer.increase
 *
 * which is associative, so rate runs on the two-stack like the others: every result
 * comes from the window's values only, with nothing subtracted when a value leaves.
 * NaN compares false, so a step to or from a NaN is NaN (a reset to NaN, or NaN - x),
 * and the rate is NaN while the window holds one.
 *
 * Memory per slot: 24 bytes for first, last and delta, 40 for rate (48 with -m above
 * 2).  A cumulative window (@all) keeps one aggregate (monoid.h).
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "agg.h"
#include "monoid.h"
#include "twostack.h"

/* first, last and delta: the window's oldest and newest number, of n numbers. */
struct ends_agg {
	double first, last;
	uint64_t n;
};

_Static_assert(sizeof(struct ends_agg) == 24, "first, last and delta take 24 bytes a slot");

/* The aggregate of no number. */
TWOSTACK_INLINE void
ends_empty(void *agg)
{
	*(struct ends_agg *)agg = (struct ends_agg){ 0.0, 0.0, 0 };
}

/* The aggregate of the number x alone. */
TWOSTACK_INLINE void
ends_unit(void *agg, double x)
{
	*(struct ends_agg *)agg = (struct ends_agg){ x, x, 1 };
}

/* The older side's first and the newer side's last (see above). */
TWOSTACK_INLINE void
ends_combine(void *out, const void *older, const void *newer)
{
	struct ends_agg a = *(const struct ends_agg *)older, b = *(const struct ends_agg *)newer;
	struct ends_agg *r = out;

	r->first = a.n != 0 ? a.first : b.first;
	r->last = b.n != 0 ? b.last : a.last;
	r->n = a.n + b.n;
}

/*
 * Stores x, or null without a number or below -m's count (min_count >= 1:
 * monoid_create): the result of first, last and delta.
 */
TWOSTACK_INLINE void
ends_result(const struct ends_agg *e, const struct agg_params *params, double x,
    struct agg_result *r)
{
	if (e->n < params->min_count) {
		r->kind = AGG_RESULT_NULL;
		return;
	}
	r->kind = AGG_RESULT_NUMBER;
	r->number = x;
}

/* The oldest number. */
TWOSTACK_INLINE void
first_finalize(const void *agg, const struct agg_params *params, struct agg_result *r)
{
	const struct ends_agg *e = agg;

	ends_result(e, params, e->first, r);
}

/* The newest number. */
TWOSTACK_INLINE void
last_finalize(const void *agg, const struct agg_params *params, struct agg_result *r)
{
	const struct ends_agg *e = agg;

	ends_result(e, params, e->last, r);
}

/* last - first, rounded once. */
TWOSTACK_INLINE void
delta_finalize(const void *agg, const struct agg_params *params, struct agg_result *r)
{
	const struct ends_agg *e = agg;

	ends_result(e, params, e->last - e->first, r);
}

/*
 * rate: the ends with their timestamps, and the increase between them: 40 bytes a
 * slot.  It needs no count of its numbers: one number has no time between its ends,
 * so the finalize's test of the times also says "fewer than two".  The empty
 * aggregate has first_time INT64_MAX and last_time INT64_MIN, which no aggregate
 * holding a number has: its first number would be at the last instant there is and
 * its last at the first, where timestamps never go back (swag(1), TIMESTAMPS).  The
 * test is of both, so that a window whose times do go back (the kind's tests give
 * some moves none, time 0) still tells its empty aggregates apart.  Only -m above 2
 * needs the count: rate_counted_agg, 48 bytes (rate_create).
 */
struct rate_agg {
	double first, last;
	int64_t first_time, last_time;	/* nanoseconds; see rate_is_empty */
	double increase;		/* from first to last, resets counted */
};

_Static_assert(sizeof(struct rate_agg) == 40, "rate takes 40 bytes a slot");

/* rate with its count of numbers, for -m above 2. */
struct rate_counted_agg {
	struct rate_agg ends;
	uint64_t n;
};

_Static_assert(sizeof(struct rate_counted_agg) == 48,
    "rate with -m above 2 takes 48 bytes a slot");

/* The aggregate of no number. */
TWOSTACK_INLINE void
rate_empty(void *agg)
{
	*(struct rate_agg *)agg = (struct rate_agg){ 0.0, 0.0, INT64_MAX, INT64_MIN, 0.0 };
}

/* The same, with its count of numbers (rate_counted_agg). */
TWOSTACK_INLINE void
rate_counted_empty(void *agg)
{
	struct rate_counted_agg *c = agg;

	rate_empty(&c->ends);
	c->n = 0;
}

/* The aggregate of the number x alone, at time (nanoseconds). */
TWOSTACK_INLINE void
rate_unit_at(void *agg, double x, int64_t time)
{
	*(struct rate_agg *)agg = (struct rate_agg){ x, x, time, time, 0.0 };
}

/* The same, with its count of numbers. */
TWOSTACK_INLINE void
rate_counted_unit_at(void *agg, double x, int64_t time)
{
	struct rate_counted_agg *c = agg;

	rate_unit_at(&c->ends, x, time);
	c->n = 1;
}

/* Whether a holds no number (see struct rate_agg). */
TWOSTACK_INLINE bool
rate_is_empty(const struct rate_agg *a)
{
	return a->first_time == INT64_MAX && a->last_time == INT64_MIN;
}

/* A counter's increase from prev to x: x - prev, or x after a reset (x < prev). */
TWOSTACK_INLINE double
rate_step(double prev, double x)
{
	return x < prev ? x : x - prev;
}

/* The ends of both sides and the increase across them (see above). */
TWOSTACK_INLINE void
rate_combine(void *out, const void *older, const void *newer)
{
	struct rate_agg a = *(const struct rate_agg *)older, b = *(const struct rate_agg *)newer;
	struct rate_agg *r = out;

	if (rate_is_empty(&a) || rate_is_empty(&b)) {
		*r = rate_is_empty(&a) ? b : a;
		return;
	}
	*r = (struct rate_agg){ a.first, b.last, a.first_time, b.last_time,
	    a.increase + rate_step(a.last, b.first) + b.increase };
}

/* The same, with its count of numbers. */
TWOSTACK_INLINE void
rate_counted_combine(void *out, const void *older, const void *newer)
{
	const struct rate_counted_agg *a = older, *b = newer;
	struct rate_counted_agg *r = out;
	uint64_t n = a->n + b->n;

	rate_combine(&r->ends, &a->ends, &b->ends);
	r->n = n;
}

/*
 * The increase over the seconds between the first and the last number: null with
 * fewer than two numbers, or no time between them (for -m up to 2, all it says).
 */
TWOSTACK_INLINE void
rate_finalize(const void *agg, const struct agg_params *params, struct agg_result *r)
{
	const struct rate_agg *e = agg;

	(void)params;
	if (e->last_time <= e->first_time) {
		r->kind = AGG_RESULT_NULL;
		return;
	}
	r->kind = AGG_RESULT_NUMBER;
	/* Timestamps never go back, and their difference fits in 64 bits unsigned. */
	r->number = e->increase /
	    ((double)((uint64_t)e->last_time - (uint64_t)e->first_time) / 1e9);
}

/* rate_finalize, and null below -m's count. */
TWOSTACK_INLINE void
rate_counted_finalize(const void *agg, const struct agg_params *params,
    struct agg_result *r)
{
	const struct rate_counted_agg *c = agg;

	if (c->n < params->min_count) {
		r->kind = AGG_RESULT_NULL;
		return;
	}
	rate_finalize(&c->ends, params, r);
}

/*
 * rate flips through suffix functions, whose running aggregate stays in registers: a
 * flip through the slots loads each whole rate_agg just stored a field at a time, and
 * waits for those stores (swag -t 1 -w 1000 rate:2 15 % less time).  first, last and
 * delta gain nothing from one and flip through their slots.
 */
TWOSTACK_SUFFIX(rate_suffix, struct rate_agg, rate_combine)
TWOSTACK_SUFFIX(rate_counted_suffix, struct rate_counted_agg, rate_counted_combine)

static const struct monoid first_monoid = {
	{ sizeof(struct ends_agg), ends_empty, ends_combine, NULL }, ends_unit, NULL, first_finalize
};
static const struct monoid last_monoid = {
	{ sizeof(struct ends_agg), ends_empty, ends_combine, NULL }, ends_unit, NULL, last_finalize
};
static const struct monoid delta_monoid = {
	{ sizeof(struct ends_agg), ends_empty, ends_combine, NULL }, ends_unit, NULL, delta_finalize
};
static const struct monoid rate_monoid = {
	{ sizeof(struct rate_agg), rate_empty, rate_combine, rate_suffix }, NULL, rate_unit_at,
	rate_finalize
};
static const struct monoid rate_counted_monoid = {
	{ sizeof(struct rate_counted_agg), rate_counted_empty, rate_counted_combine,
	    rate_counted_suffix }, NULL,
	rate_counted_unit_at, rate_counted_finalize
};

MONOID_KIND(first, AGG_INPUT_NUMBER);
MONOID_KIND(last, AGG_INPUT_NUMBER);
MONOID_KIND(delta, AGG_INPUT_NUMBER);
MONOID_KIND_OPS(rate, AGG_INPUT_NUMBER)
MONOID_KIND_OPS(rate_counted, AGG_INPUT_NUMBER)

/*
 * rate's windows: rate_monoid's, or rate_counted_monoid's when -m asks for more than
 * the two numbers rate needs.
 */
static struct agg *
rate_create(const struct agg_kind *kind, const struct agg_params *params)
{
	if (params->min_count > 2)
		return monoid_create(kind, params, &rate_counted_monoid);
	return monoid_create(kind, params, &rate_monoid);
}

/* The move of the monoid that rate_create chose, by the same test (once a move). */
static size_t
rate_either_move(struct agg *agg, const struct agg_move *move)
{
	if (agg->params.min_count > 2)
		return rate_counted_move(agg, move);
	return rate_move(agg, move);
}

const struct agg_kind agg_rate = {
	"rate", AGG_INPUT_NUMBER, rate_create, monoid_destroy, rate_either_move, false,
	false
};
