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

/*
 * The timestamps of a key's time windows, in a block of their own that a set of row
 * windows does without: with -g there is a set a key, and a key of -g 1 -w 10 avg:2
 * costs about 900 bytes in all.
 */
struct window_times {
	struct ring ring;		/* the timestamps (int64_t) of the last records */
	uint64_t held[];		/* per spec: the records its time window holds */
};

struct window_set {
	struct agg **aggs;		/* one per spec */
	size_t agg_count;
	struct window_times *times;	/* NULL when no spec's window is a time window */
};

/*
 * Makes an empty set of windows, one per spec.  Returns 0, or -1 when memory is
 * short (window_set_free then frees what was made).
 */
int window_set_init(struct window_set *set, const struct agg_spec *specs, size_t count);

void window_set_free(struct window_set *set);

/* The steps one call moves a key's windows by, at most WINDOW_STEPS_MAX. */
#define WINDOW_STEPS_MAX 1024

/*
 * What a key's windows move over: n records of a batch, the records index[0] to
 * index[n-1] (index NULL: 0 to n-1), in that order.  Record r has the timestamp
 * times[r] (read when some window is a time window) and, for spec i, the value
 * values[i][r]; when want is NULL or want[r] is set, aggregate i's result after it
 * goes to results[i][r].
 */
struct window_steps {
	size_t n;
	const agg_index *index;
	const int64_t *times;
	const struct agg_value *const *values;
	const unsigned char *want;
	struct agg_result *const *results;
};

/*
 * Moves every window over the records of w: before a record's value enters, each
 * window evicts what leaves (its oldest record when a row window is full; every record
 * whose timestamp t' satisfies t' <= t - D in a time window of duration D, t being the
 * record's).  Returns w->n, or the number of records after which memory ran short
 * (the windows may then hold different numbers of records).
 */
size_t window_set_move(struct window_set *set, const struct agg_spec *specs,
    const struct window_steps *w);

/*
 * The step at the end of a bucket [b, b + S) (swag(1), BUCKETS), end being b + S taken
 * modulo 2^64, later than every timestamp the windows hold: a step without a value,
 * after which a time window of duration D holds the records whose timestamp t'
 * satisfies b + S - D <= t' < b + S.  It evicts every record with t' < b + S - D, that
 * is end - t' > D (a record step at t keeps t - D < t' instead: the bucket's window is
 * closed at its start and open at its end), and a row window evicts nothing, giving its
 * result as of the bucket's last record.  Stores every aggregate's result in
 * results[i][k].  Returns 0, or -1 when memory is short (the windows are then fit only
 * to be freed).
 */
int window_set_boundary(struct window_set *set, const struct agg_spec *specs, uint64_t end,
    struct agg_result *const *results, size_t k);

/*
 * Whether spec's window evicts by time: a duration, on a kind that lets values go (an
 * ewma's duration is a half-life: it keeps no timestamps and evicts nothing).
 */
static inline bool
window_by_time(const struct agg_spec *spec)
{
	return spec->window.nanos > 0 && !spec->kind->keeps_history;
}

/*
 * How long after a key's last record its window for spec no longer matters, in
 * nanoseconds: a time window's duration, or 64 half-lives for an ewma, whose history
 * then weighs 2^-64 of a new value (UINT64_MAX when that is longer than any two
 * timestamps are apart: agg_history_reach).  0 for a row window, which never empties
 * with time.
 */
uint64_t window_reach(const struct agg_spec *spec);

/* Stores every aggregate's result in results[i][k], without moving the windows. */
void window_set_results(struct window_set *set, struct agg_result *const *results, size_t k);

#endif /* SWAG_WINDOW_H */
