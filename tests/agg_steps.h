/*
 * agg_steps.h: a window moved one step at a time, for the unit tests and the
 * benchmarks.  swag changes a window only through its kind's move() (agg.h), a batch
 * of records at a time; a test that drives a window value by value does it with these,
 * each one call of move(), so that it runs the code swag runs.
 *
 *   agg_step(agg, evict, value, result)   one step of a time window: evicts the evict
 *                                         oldest values, takes *value (none when NULL),
 *                                         stores the result (none when NULL)
 *   agg_step_push(agg, value)             takes *value, evicting nothing
 *   agg_step_push_at(agg, value, time)    the same, the record's timestamp being time
 *   agg_step_evict(agg, k)                evicts the k oldest values
 *   agg_step_result(agg, result)          stores the result; the window does not change
 *   agg_step_slide(agg, rows, value, result)
 *                                         one record of a row window of rows slots:
 *                                         evicts the oldest when it holds rows, takes
 *                                         *value, stores the result unless NULL (what
 *                                         agg_slide() did)
 *   agg_step_slide_many(agg, rows, values, n, results)
 *                                         agg_step_slide over values[0..n), storing
 *                                         results[k] (none when results is NULL); returns
 *                                         n, or the record at which memory ran short
 *
 * The int functions return 0, or -1 when memory ran short (move() stopped at step 0).
 * There is no size(): a test keeps its own count of the values it pushed and evicted.
 * Tests include this as "../agg_steps.h" (from tests/unit or tests/bench), with -Isrc.
 */
#ifndef SWAG_TESTS_AGG_STEPS_H
#define SWAG_TESTS_AGG_STEPS_H

#include <stddef.h>
#include <stdint.h>

#include "agg.h"

static inline int
agg_step(struct agg *agg, uint64_t evict, const struct agg_value *value,
    struct agg_result *result)
{
	uint32_t e;
	struct agg_move m = { .n = 1, .evict = &e, .values = value, .results = result };

	/* An evict count is 32 bits a step: more than that takes steps of their own. */
	for (; evict > UINT32_MAX; evict -= UINT32_MAX) {
		struct agg_move only = { .n = 1, .evict = &e };

		e = UINT32_MAX;
		(void)agg->kind->move(agg, &only);
	}
	e = (uint32_t)evict;
	return agg->kind->move(agg, &m) == 1 ? 0 : -1;
}

static inline int
agg_step_push(struct agg *agg, const struct agg_value *value)
{
	return agg_step(agg, 0, value, NULL);
}

static inline int
agg_step_push_at(struct agg *agg, const struct agg_value *value, int64_t time)
{
	uint32_t e = 0;
	struct agg_move m = { .n = 1, .evict = &e, .values = value, .times = &time };

	return agg->kind->move(agg, &m) == 1 ? 0 : -1;
}

static inline void
agg_step_evict(struct agg *agg, uint64_t k)
{
	(void)agg_step(agg, k, NULL, NULL);
}

static inline void
agg_step_result(struct agg *agg, struct agg_result *result)
{
	/* No values and no evict array: a row window that takes nothing evicts nothing. */
	struct agg_move m = { .n = 1, .rows = 0, .results = result };

	(void)agg->kind->move(agg, &m);
}

static inline int
agg_step_slide(struct agg *agg, uint64_t rows, const struct agg_value *value,
    struct agg_result *result)
{
	struct agg_move m = { .n = 1, .rows = rows, .values = value, .results = result };

	return agg->kind->move(agg, &m) == 1 ? 0 : -1;
}

static inline size_t
agg_step_slide_many(struct agg *agg, uint64_t rows, const struct agg_value *values,
    size_t n, struct agg_result *results)
{
	struct agg_move m = { .n = n, .rows = rows, .values = values, .results = results };

	return agg->kind->move(agg, &m);
}

#endif /* SWAG_TESTS_AGG_STEPS_H */
