/*
 * twostack.c: the rare, out-of-line parts of the two-stack engine (see twostack.h).
 */
#include "twostack.h"

#include "mem.h"

/* The first ring holds this many Aggs: a window over ten rows stays in one small block. */
#define TWOSTACK_FIRST_CAP 16

/*
 * Doubles the ring (or makes the first one), keeping every element at its ring
 * position.  Returns 0, or -1 when the memory cannot be had; the window is unchanged
 * then.
 */
int
twostack_grow(struct twostack *ts, size_t agg_size)
{
	uint64_t new_cap = ts->cap == 0 ? TWOSTACK_FIRST_CAP : ts->cap * 2;
	size_t bytes;
	unsigned char *slots;

	if (new_cap > SIZE_MAX || mem_array_size((size_t)new_cap, agg_size, &bytes) != 0)
		return -1;
	slots = mem_realloc(NULL, bytes);
	if (slots == NULL)
		return -1;
	/*
	 * A position p lives in slot p mod cap; with the larger ring it moves to
	 * p mod new_cap, so the elements are copied one by one.  This happens log(w)
	 * times over a window's life.
	 */
	for (uint64_t pos = ts->head; pos != ts->tail; pos++)
		memcpy(slots + (size_t)(pos & (new_cap - 1)) * agg_size,
		    twostack_slot(ts, agg_size, pos), agg_size);
	mem_free(ts->slots);
	ts->slots = slots;
	ts->cap = new_cap;
	return 0;
}

void
twostack_free(struct twostack *ts)
{
	mem_free(ts->slots);
	ts->slots = NULL;
	ts->cap = 0;
	ts->head = ts->mid = ts->tail = 0;
}
