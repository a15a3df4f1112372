/*
 * twostack.h: two-stack sliding-window aggregation.
 *
 * An aggregate is described by empty(), unit(x), an associative, order-preserving
 * combine(older, newer) and finalize(agg).  The engine needs only empty() and
 * combine(): callers turn each value into its unit aggregate before pushing it and
 * finalize what eval returns, so the Value and Out types stay with the aggregate and
 * the engine moves Aggs only.
 *
 * The window is a FIFO queue kept as two stacks in one ring of Agg slots:
 *
 *     oldest                                                      newest
 *     [head ............ mid)[mid ............................. tail)
 *      front stack: slot i holds    back stack: slot i holds unit(x_i);
 *      x_i + x_i+1 + ... + x_mid-1  back_agg = x_mid + ... + x_tail-1
 *
 * push appends unit(x) to the back and folds it into back_agg.  pop removes the
 * front's top, slot head.  When the front is empty, pop first "flips" the back in
 * place: walking from the newest slot to the oldest it replaces each unit by the
 * aggregate of itself and everything newer, so the back becomes a front whose top is
 * the whole back's aggregate.  eval is combine(slot[head], back_agg), or back_agg
 * alone when the front is empty.  Every slot is combined once when it is pushed and
 * once when it is flipped, so each operation is amortized O(1); memory is one Agg per
 * element, in one contiguous array that grows with the elements actually held.
 *
 * Every result is a combination of the window's elements only: a NaN or a rounding
 * error leaves the window with the element that caused it.  combine() is always
 * called with the older operand first, so a non-commutative aggregate (first/last,
 * concatenation) is correct.
 *
 * The functions are forced inline on purpose (TWOSTACK_INLINE): an aggregate calls
 * them with a constant ops table whose empty() and combine() are TWOSTACK_INLINE too,
 * and the compiler then inlines those into the loops instead of calling through
 * pointers on every element.  Plain `static inline` is not enough: gcc 12 inlined
 * the engine late, when the table's pointers had already become ordinary calls, and
 * sum's combine() stayed a call (about 25 instructions a record for avg).
 */
#ifndef SWAG_TWOSTACK_H
#define SWAG_TWOSTACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ring.h"

/* The two operations the engine needs from an aggregate. */
struct twostack_ops {
	size_t agg_size;	/* bytes in one Agg, at most TWOSTACK_AGG_MAX */
	/* Stores the identity aggregate, empty(), in *agg. */
	void (*empty)(void *agg);
	/*
	 * Stores combine(older, newer) in *out.  out may be the same object as older
	 * or as newer, so an implementation reads both operands before writing.
	 */
	void (*combine)(void *out, const void *older, const void *newer);
};

#define TWOSTACK_AGG_MAX 64

/* Forces inlining, for the engine and for the ops that a constant table names. */
#define TWOSTACK_INLINE static inline __attribute__((always_inline))

/* An Agg, aligned for any of them. */
union twostack_agg {
	unsigned char bytes[TWOSTACK_AGG_MAX];
	double align_double;
	uint64_t align_u64;
	void *align_pointer;
};

struct twostack {
	struct ring ring;	/* the Aggs of positions [head, tail): front, then back */
	uint64_t mid;		/* the first position of the back stack */
	union twostack_agg back_agg;	/* the aggregate of the back stack */
};

/* The slot at ring position pos. */
TWOSTACK_INLINE void *
twostack_slot(const struct twostack *ts, size_t agg_size, uint64_t pos)
{
	return ring_at(&ts->ring, agg_size, pos);
}

/* Makes an empty window that owns no memory yet. */
TWOSTACK_INLINE void
twostack_init(struct twostack *ts, const struct twostack_ops *ops)
{
	ring_init(&ts->ring);
	ts->mid = 0;
	ops->empty(ts->back_agg.bytes);
}

/* Frees the window's memory; the window may be initialised again afterwards. */
TWOSTACK_INLINE void
twostack_free(struct twostack *ts)
{
	ring_free(&ts->ring);
	ts->mid = 0;
}

/* The number of elements in the window. */
TWOSTACK_INLINE uint64_t
twostack_size(const struct twostack *ts)
{
	return ring_count(&ts->ring);
}

/*
 * Pushing in two steps, for a caller that builds the unit aggregate in place: returns
 * the slot that the next element will occupy, for the caller to store its unit in, or
 * NULL when memory for a larger ring cannot be had (the window is then unchanged).
 */
TWOSTACK_INLINE void *
twostack_next_slot(struct twostack *ts, const struct twostack_ops *ops)
{
	if (ring_reserve(&ts->ring, ops->agg_size) != 0)
		return NULL;
	return twostack_slot(ts, ops->agg_size, ts->ring.tail);
}

/*
 * ... then appends that slot's unit as the newest element.  Built in place, the unit
 * goes to the ring without a copy through the stack (3 instructions a record for avg).
 */
TWOSTACK_INLINE void
twostack_push_slot(struct twostack *ts, const struct twostack_ops *ops, const void *slot)
{
	ts->ring.tail++;
	ops->combine(ts->back_agg.bytes, ts->back_agg.bytes, slot);
}

/*
 * Appends an element whose unit aggregate is *unit as the newest of the window.
 * Returns 0, or -1 when memory for a larger ring cannot be had (the window is then
 * unchanged).
 */
TWOSTACK_INLINE int
twostack_push(struct twostack *ts, const struct twostack_ops *ops, const void *unit)
{
	void *slot = twostack_next_slot(ts, ops);

	if (slot == NULL)
		return -1;
	memcpy(slot, unit, ops->agg_size);
	twostack_push_slot(ts, ops, slot);
	return 0;
}

/*
 * Turns the back stack into the front stack (the front must be empty): each slot,
 * newest to oldest, becomes the aggregate of itself and every newer slot.
 */
TWOSTACK_INLINE void
twostack_flip(struct twostack *ts, const struct twostack_ops *ops)
{
	const size_t size = ops->agg_size;
	const uint64_t mid = ts->mid, mask = ts->ring.cap - 1;
	uint64_t pos = ts->ring.tail - 1;

	if (ts->ring.tail == mid)
		return;
	if (pos > mid) {
		/* Down the array by pointer; past its start, the older is its last. */
		unsigned char *newer = twostack_slot(ts, size, pos);

		do {
			unsigned char *older = (pos & mask) == 0 ?
			    twostack_slot(ts, size, mask) : newer - size;

			ops->combine(older, older, newer);
			newer = older;
		} while (--pos > mid);
	}
	ts->mid = ts->ring.tail;
	ops->empty(ts->back_agg.bytes);
}

/* Removes the oldest element.  The window must not be empty. */
TWOSTACK_INLINE void
twostack_pop(struct twostack *ts, const struct twostack_ops *ops)
{
	if (ts->ring.head == ts->mid)
		twostack_flip(ts, ops);
	ts->ring.head++;
}

/* Stores the aggregate of the whole window, oldest to newest, in *out. */
TWOSTACK_INLINE void
twostack_eval(const struct twostack *ts, const struct twostack_ops *ops, void *out)
{
	if (ts->ring.head == ts->mid)
		memcpy(out, ts->back_agg.bytes, ops->agg_size);
	else
		ops->combine(out, twostack_slot(ts, ops->agg_size, ts->ring.head),
		    ts->back_agg.bytes);
}

#endif /* SWAG_TWOSTACK_H */
