/*
 * quantile_sorted.h: a percentile window on a sorted array, the baseline that
 * bench_quantile.c times agg_quantile.c's heap against.  swag does not use it: the heap
 * is faster at every window size (the figures are in agg_quantile.c).
 *
 * The window keeps its numbers in ascending order, so it answers any percentile in
 * O(1), where a heap knows the values around one rank only; a step costs O(w) in
 * memmove.  Several percentiles of one column may therefore share one window:
 * quantile_sorted_result() answers each, and quantile_share_pays() says whether that
 * beats one heap per percentile.
 */
#ifndef SWAG_BENCH_QUANTILE_SORTED_H
#define SWAG_BENCH_QUANTILE_SORTED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agg.h"

/* The window as an aggregate kind: the results its move() stores are params->percentile. */
extern const struct agg_kind quantile_sorted;

/*
 * Stores percentile q (0 <= q <= 1) of agg's window in *result, as result() would for
 * params->percentile == q: null when the window holds no value or fewer than
 * params->min_count, NaN while it holds a NaN.  agg was made by quantile_sorted.create.
 */
void quantile_sorted_result(struct agg *agg, double q, struct agg_result *result);

/*
 * Returns true when k percentiles of one column over windows of about window_slots
 * values are cheaper with one shared sorted window than with k heaps, by the cost
 * model fitted to bench_quantile's figures.
 */
bool quantile_share_pays(uint64_t window_slots, size_t k);

#endif /* SWAG_BENCH_QUANTILE_SORTED_H */
