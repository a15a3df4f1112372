/*
 * agg_mode.h: mode, the most frequent field in the window, with its own window
 * structure (see agg_mode.c for why it is not on the two-stack engine).
 */
#ifndef SWAG_AGG_MODE_H
#define SWAG_AGG_MODE_H

#include <stddef.h>
#include <stdint.h>

#include "agg.h"

extern const struct agg_kind agg_mode;

/* What a mode window holds, for tests and benchmarks. */
struct mode_stats {
	size_t distinct;		/* different texts in the window now */
	size_t table_capacity;		/* slots of the hash table now */
	size_t entry_capacity;		/* entries allocated (live ones and free ones) */
	size_t ring_capacity;		/* window slots allocated */
};

/*
 * Stores agg's sizes in *stats.  agg must have been made by agg_mode.create.  Never
 * fails.
 */
void agg_mode_stats(const struct agg *agg, struct mode_stats *stats);

#ifdef SWAG_TEST_COUNTERS
/*
 * Returns the bytes of agg's buffers of texts longer than an entry holds, the spare
 * ones included (for tests: it walks every entry).
 */
size_t agg_mode_text_bytes(const struct agg *agg);

/*
 * What a mode window has done, for the tests that check the work per step by counting
 * it rather than timing it (counters.h: test builds only).
 */
struct mode_counters {
	uint64_t lookups;		/* hash-table searches, one per present field pushed */
	uint64_t probes;		/* table slots those searches examined, in all */
	uint64_t heap_comparisons;	/* entry comparisons made to keep the heap ordered */
	uint64_t bytes_moved;		/* copied by the growth of the entry and item arrays */
	uint64_t text_allocations;	/* long-text buffers allocated or grown */
};

/* Stores agg's counters in *counters; agg as for agg_mode_stats.  Never fails. */
void agg_mode_counters(const struct agg *agg, struct mode_counters *counters);
#endif

#endif /* SWAG_AGG_MODE_H */
