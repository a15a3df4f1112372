/*
 * window.c: one key's windows (see window.h).
 */
#include <string.h>

#include "mem.h"
#include "window.h"

int
window_set_init(struct window_set *set, const struct agg_spec *specs, size_t count)
{
	size_t bytes;

	memset(set, 0, sizeof(*set));
	if (mem_array_size(count, sizeof(*set->aggs), &bytes) != 0 ||
	    (set->aggs = mem_realloc(NULL, bytes ? bytes : 1)) == NULL)
		return -1;
	for (size_t i = 0; i < count; i++)
		set->aggs[i] = NULL;
	set->agg_count = count;
	for (size_t i = 0; i < count; i++) {
		if ((set->aggs[i] = specs[i].kind->create(specs[i].kind, &specs[i].params)) == NULL)
			return -1;
		if (specs[i].window.nanos > 0)
			set->has_time_windows = true;
	}
	return 0;
}

void
window_set_free(struct window_set *set)
{
	if (set->aggs != NULL)
		for (size_t i = 0; i < set->agg_count; i++)
			if (set->aggs[i] != NULL)
				set->aggs[i]->kind->destroy(set->aggs[i]);
	mem_free(set->aggs);
	ring_free(&set->times);
	set->aggs = NULL;
}

/* The timestamp of the record that is the nth newest kept (1: the newest). */
static int64_t
nth_newest_time(const struct window_set *set, uint64_t n)
{
	return *RING_AT(&set->times, int64_t, set->times.tail - n);
}

/* Appends t to the ring of timestamps.  Returns 0, or -1 when memory is short. */
static int
push_time(struct window_set *set, int64_t t)
{
	int64_t *slot = RING_PUSH(&set->times, int64_t);

	if (slot == NULL)
		return -1;
	*slot = t;
	return 0;
}

int
window_set_push(struct window_set *set, const struct agg_spec *specs, int64_t t,
    const struct agg_value *const *values, struct agg_result *results)
{
	uint64_t kept = 0;

	for (size_t i = 0; i < set->agg_count; i++) {
		struct agg *agg = set->aggs[i];
		const struct agg_kind *kind = agg->kind;
		int64_t duration = specs[i].window.nanos;
		uint64_t size;

		if (duration == 0) {
			/* A row window. */
			if (agg_slide(agg, specs[i].window.rows, values[i],
			    results != NULL ? &results[i] : NULL) != 0)
				return -1;
			continue;
		}
		/*
		 * t' <= t - D, written as t - t' >= D: timestamps never go back, and the
		 * unsigned difference cannot overflow.
		 */
		size = kind->size(agg);
		while (size > 0 &&
		    (uint64_t)t - (uint64_t)nth_newest_time(set, size) >= (uint64_t)duration) {
			kind->pop(agg);
			size--;
		}
		if (size + 1 > kept)
			kept = size + 1;
		if (kind->push(agg, values[i]) != 0)
			return -1;
		if (results != NULL)
			kind->result(agg, &results[i]);
	}
	if (set->has_time_windows) {
		if (push_time(set, t) != 0)
			return -1;
		/* Keep only the timestamps that some time window still holds. */
		set->times.head = set->times.tail - kept;
	}
	return 0;
}

void
window_set_results(struct window_set *set, struct agg_result *results)
{
	for (size_t i = 0; i < set->agg_count; i++)
		set->aggs[i]->kind->result(set->aggs[i], &results[i]);
}
