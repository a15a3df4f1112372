/*
 * window.h: one key's windows: an aggregate per spec, and the timestamps that tell
 * its time windows what to evict.
 *
 * Every record pushes one slot to every aggregate (a missing value too), so an
 * aggregate of size s holds the last s records of its key.  A row window of W pops
 * one slot when it holds W; a time window of duration D pops, before each push,
 * every slot whose timestamp t' satisfies t' <= t - D (several at once after a gap).
 * The timestamps of the records still in some time window are kept once, in a
 * ring shared by the key's time windows, not once per aggregate.
 */
#ifndef SWAG_WINDOW_H
#define SWAG_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agg.h"
#include "ring.h"
#include "spec.h"

struct window_set {
	struct agg **aggs;		/* one per spec */
	size_t agg_count;
	struct ring times;		/* the timestamps (int64_t) of the last records */
	bool has_time_windows;
};

/*
 * Makes an empty set of windows, one per spec.  Returns 0, or -1 when memory is
 * short (window_set_free then frees what was made).
 */
int window_set_init(struct window_set *set, const struct agg_spec *specs, size_t count);

void window_set_free(struct window_set *set);

/*
 * Moves every window one record on: evicts what leaves (by count, or by time for a
 * record at time t), then pushes values[i] to aggregate i and, when results is not
 * NULL, stores aggregate i's new result in results[i].  Returns 0, or -1 when memory
 * is short (the windows may then hold different numbers of records).
 */
int window_set_push(struct window_set *set, const struct agg_spec *specs, int64_t t,
    const struct agg_value *const *values, struct agg_result *results);

/* Stores every aggregate's result in results[i], without moving the windows. */
void window_set_results(struct window_set *set, struct agg_result *results);

#endif /* SWAG_WINDOW_H */
