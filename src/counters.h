/*
 * counters.h: counters of work done (hash-table probes, heap comparisons) that only
 * unit tests read, to check a structure's cost per step by counting rather than timing.
 *
 * They exist only when SWAG_TEST_COUNTERS is defined: the unit tests that read them
 * compile the modules that keep them with it (the Makefile's TEST_COUNTED_*), in place
 * of the objects swag is linked from, so swag and every other test carry neither the
 * fields nor the additions.  A module declares its counters under #ifdef
 * SWAG_TEST_COUNTERS and adds to them with TEST_COUNT, which without the macro compiles
 * to nothing (and does not evaluate its operands).
 */
#ifndef SWAG_COUNTERS_H
#define SWAG_COUNTERS_H

#ifdef SWAG_TEST_COUNTERS
#define TEST_COUNT(counter, n) ((void)((counter) += (n)))
#else
#define TEST_COUNT(counter, n) ((void)0)
#endif

#endif /* SWAG_COUNTERS_H */
