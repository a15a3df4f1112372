/*
 * counters.h: counters of work done (hash-table probes, heap comparisons) that only
 * unit tests read, to check a structure's cost per step by counting rather than timing.
 *
 * They exist only when SWAG_TEST_COUNTERS is defined: the unit tests that read them
 * compile the modules that keep them with it (the Makefile's TEST_COUNTED_*), in place
 * of the objects swag is linked from, so swag and every other test carry neither the
 * fields nor the additions.  A module declares its counters under #ifdef
 * SWAG_TEST_COUNTERS and adds to them with TEST_COUNT, which without the macro compiles
 * to nothing (and does not evaluate its operands).  The instrumented build of src/work.h
 * (SWAG_WORK_COUNTERS too) adds every count to work_units as well.
 */
#ifndef SWAG_COUNTERS_H
#define SWAG_COUNTERS_H

#ifdef SWAG_TEST_COUNTERS
#ifdef SWAG_WORK_COUNTERS
#include <stdint.h>
/* Every unit counted, by whichever counter: the instrumented build's (src/work.h). */
extern uint64_t work_units;
#define TEST_COUNT(counter, n) ((void)((counter) += (n), work_units += (uint64_t)(n)))
/* A count of bytes (copied, cleared, unmapped) is work of one unit per 64. */
#define TEST_COUNT_BYTES(counter, n) \
	((void)((counter) += (n), work_units += ((uint64_t)(n) + 63) / 64))
#else
#define TEST_COUNT(counter, n) ((void)((counter) += (n)))
#define TEST_COUNT_BYTES(counter, n) TEST_COUNT(counter, n)
#endif
#else
#define TEST_COUNT(counter, n) ((void)0)
#define TEST_COUNT_BYTES(counter, n) ((void)0)
#endif

#endif /* SWAG_COUNTERS_H */
