/*
 * work.h: the work each record causes, counted by the instrumented build (make
 * swag-work: every module with -DSWAG_TEST_COUNTERS -DSWAG_WORK_COUNTERS, and work.c),
 * for make bench's table of the most work of any single record.
 *
 * A unit of work is whatever a structure counts with TEST_COUNT (src/counters.h):
 * combines of the two-stack, probes and slots moved of the hash tables, comparisons of
 * the heaps and the deque, levels of a sift, entries copied; and 64 bytes of what
 * TEST_COUNT_BYTES counts (copied, cleared, unmapped).  The build adds every such
 * unit to work_units as well, and the pipeline charges what was counted since the last
 * charge to a record of its batch: the key table's work to the record whose key it
 * looked up, a window's to the record of its step (window.c moves a window one step
 * at a time in this build, so that each step's work is its own).  At the end of each
 * batch the most any record took is kept, and swag reports it when it ends.
 *
 * In every other build the calls below compile to nothing.
 */
#ifndef SWAG_WORK_H
#define SWAG_WORK_H

#include <stddef.h>
#include <stdint.h>

#include "record.h"

#ifdef SWAG_WORK_COUNTERS
/* Gives record k of the batch the work counted since the last charge. */
void work_charge(size_t k);

/* Ends a batch of n records: keeps the most work of one of them, and its line. */
void work_batch_done(const struct record *records, size_t n);

/* The most work of one record so far, and that record's line (0 before any). */
uint64_t work_most(uint64_t *line);

/*
 * Copies text[0..len) to a store that lasts until the batch is done, and returns the
 * copy, or NULL when memory is short.
 */
const char *work_keep_text(const char *text, size_t len);
#else
#define work_charge(k) ((void)0)
#define work_batch_done(records, n) ((void)0)
#endif

#endif /* SWAG_WORK_H */
