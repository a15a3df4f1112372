/*
 * agg_quantile.h: median and the percentiles pN, each with a window structure of its
 * own (see agg_quantile.c for the structures and the benchmark that chose them).
 *
 * The result follows swag(1), AGGREGATES: over the n numbers of the window sorted as
 * x[0..n-1], with h = (n - 1)·q and lo = floor(h), it is x[lo] when h is integral or
 * x[lo] == x[lo+1], else x[lo] + (h - lo)·(x[lo+1] - x[lo]).  A NaN in the window makes
 * it NaN; it is null when the window holds no number or fewer than params->min_count.
 *
 * Two kinds, one interface:
 *
 *   agg_quantile         an indexed double heap with a small sorted middle that
 *                        answers the one percentile params->percentile in O(log w)
 *                        per step (and mostly in constant time); what "median" and
 *                        "pN" use.
 *   agg_quantile_sorted  a sorted array that answers any percentile in O(1) but costs
 *                        O(w) per step in memmove; for sharing one window between
 *                        several percentiles of one column, below.
 *
 * Sharing: to compute k percentiles of one column over one window, make one window
 * with agg_quantile_sorted (its params->percentile is the one its result() gives),
 * push and pop it once per record, and ask quantile_window_result() for each
 * percentile.  That pays when one sorted-array step costs less than k heap steps,
 * which by the figures in agg_quantile.c means small windows or many percentiles;
 * quantile_share_pays() says which.  Otherwise make one agg_quantile per percentile.
 */
#ifndef SWAG_AGG_QUANTILE_H
#define SWAG_AGG_QUANTILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agg.h"

extern const struct agg_kind agg_quantile, agg_quantile_sorted;

/*
 * Returns true when quantile_window_value() can answer percentile q (0 <= q <= 1) from
 * agg: always for agg_quantile_sorted, and for agg_quantile only when q is its own
 * params->percentile (a heap knows the values around one rank and no other).
 */
bool quantile_window_serves(const struct agg *agg, double q);

/*
 * The number of values in agg's window: the numbers present, NaN included, as
 * params->min_count counts them.  Missing values take a slot but are not counted.
 */
uint64_t quantile_window_count(const struct agg *agg);

/*
 * Returns percentile q of agg's window by the man page's formula, NaN when the window
 * holds a NaN.  The window must hold at least one value that is not NaN or some NaN
 * (quantile_window_count(agg) > 0), and quantile_window_serves(agg, q) must be true.
 * Never fails.  It does not change what the window holds, but it may finish a pop
 * that the window had put off (see heap_pop in agg_quantile.c), hence agg is not const.
 */
double quantile_window_value(struct agg *agg, double q);

/*
 * Stores percentile q of agg's window in *result as the kind's result() would for
 * params->percentile == q: null when the window holds no value or fewer than
 * params->min_count.  quantile_window_serves(agg, q) must be true.
 */
void quantile_window_result(struct agg *agg, double q, struct agg_result *result);

/*
 * Returns true when k percentiles of one column over windows of about window_slots
 * values are cheaper with one shared agg_quantile_sorted than with k agg_quantile,
 * by the benchmark figures in agg_quantile.c.
 */
bool quantile_share_pays(uint64_t window_slots, size_t k);

/* What a quantile window holds, for tests and for reporting memory. */
struct quantile_stats {
	uint64_t slots;			/* records in the window, missing ones included */
	uint64_t values;		/* numbers in the window, NaN included */
	size_t ring_capacity;		/* window slots allocated */
	size_t order_capacity;		/* values the order structure has room for */
	size_t bytes;			/* memory held, the window's header included */
};

/* Stores agg's sizes in *stats; agg is of either kind.  Never fails. */
void quantile_window_stats(const struct agg *agg, struct quantile_stats *stats);

/*
 * Checks the invariants of agg's structure (for tests): returns 0, or a number that
 * src/agg_quantile.c's heap_check() explains.  Never fails otherwise.
 */
int quantile_window_check(const struct agg *agg);

#endif /* SWAG_AGG_QUANTILE_H */
