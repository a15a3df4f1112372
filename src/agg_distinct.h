/*
 * agg_distinct.h: distinct, the number of different fields in the window: exact while
 * the window holds at most 2^P/8 values, a HyperLogLog estimate above (P being
 * --hll-bits).  See agg_distinct.c for the structure and why it is built that way.
 */
#ifndef SWAG_AGG_DISTINCT_H
#define SWAG_AGG_DISTINCT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agg.h"

extern const struct agg_kind agg_distinct;

/* The precision used when agg_params.hll_bits is outside 4..18 (0: not set). */
#define AGG_DISTINCT_DEFAULT_BITS 12
#define AGG_DISTINCT_MIN_BITS 4
#define AGG_DISTINCT_MAX_BITS 18

/*
 * The fixed XXH3 seed of every value's hash for the sketch.  Fixed, not per run: the
 * estimate depends on the hashes, and the same input must always give the same output.
 * (The exact count keys on another hash, seeded per run: agg_distinct.c.)
 */
#define AGG_DISTINCT_SEED UINT64_C(0x5377616744697374)	/* "SwagDist" */

/*
 * Entries in a histogram of register values.  With a 64-bit hash and P index bits a
 * register holds 0..65-P, at most 61.
 */
#define AGG_DISTINCT_HISTOGRAM_SIZE 64

/*
 * Returns the 64-bit hash that identifies the field text[0..len) (XXH3 with
 * AGG_DISTINCT_SEED).  text need not be NUL-terminated.  Never fails.
 */
uint64_t agg_distinct_hash(const char *text, size_t len);

/*
 * Returns the distinct count that Ertl's improved estimator (2017) gives for a
 * HyperLogLog sketch of 2^p registers whose values have the given histogram
 * (histogram[v] registers hold v; the entries sum to 2^p).  Returns 0 for an empty
 * sketch.  p is 4..18.  Never fails; the same histogram always gives the same double.
 */
double agg_distinct_estimate(const uint32_t histogram[AGG_DISTINCT_HISTOGRAM_SIZE],
    unsigned p);

/* What a distinct window holds, for tests and benchmarks. */
struct distinct_state {
	unsigned p;			/* the precision in use */
	uint64_t values;		/* present values in the window */
	bool exact_table;		/* the multiset of hashes is up to date */
	bool sketch_active;		/* the sketches are kept (the window once held
					   more than 2^P/8 values) */
	/* When sketch_active: the register histogram of the whole window's sketch, as
	   kept up to date step by step, and the estimate made from it. */
	uint32_t histogram[AGG_DISTINCT_HISTOGRAM_SIZE];
	double estimate;
	size_t bytes;			/* memory the window has allocated */
};

/*
 * Stores what agg holds in *state.  agg must have been made by agg_distinct.create.
 * Never fails; changes nothing that a result depends on.
 */
void agg_distinct_inspect(struct agg *agg, struct distinct_state *state);

#ifdef SWAG_TEST_COUNTERS
/*
 * The work of every distinct window so far (test builds only, src/counters.h): ring
 * slots walked by the rotations of the sketches' stacks, the exact table's rebuilds
 * and the sketches' start, and the sketches' bytes cleared by rotations.
 */
struct distinct_counters {
	uint64_t slots_walked;
	uint64_t bytes_cleared;
};

/* Stores the counters in *counters. */
void agg_distinct_counters(struct distinct_counters *counters);
#endif

#endif /* SWAG_AGG_DISTINCT_H */
