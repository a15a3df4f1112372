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
 * element, in one contiguous array that grows with the elements actually held, and
 * two aggregates beside it (back_agg, mid_agg).
 *
 * Bounded work.  A flip costs the back's size in one pop: at a window of a million,
 * 12 ms for avg and 18 ms for var in one record.  So a window of more than
 * TWOSTACK_EAGER_MAX elements spreads it (DABA Lite: Tangwongsan, Hirzel and
 * Schneider, "In-order sliding-window aggregation in worst-case constant time", VLDB
 * Journal 2021).  As soon as the back outgrows c = TWOSTACK_TURN_RATIO times the
 * front there, the back is "turned" in O(1): it joins the front, and the following
 * pushes and pops each do one step of 1 + c combines that finish the front's slots
 * before the pops reach them:
 *
 *     head        l          r             a             mid            tail
 *     [ done     )[ old front )[ old back   )[ old back   )[ back        )
 *      S(i, mid)   S(i, r)      units         S(i, mid)     units
 *
 * S(i, j) being the aggregate of the elements at positions i to j - 1, and mid_agg
 * S(r, mid).  A step finishes slot l (combine(slot l, mid_agg)) and the c slots
 * below a (each combine(slot a - 1, slot a)), and the turn
 * itself takes one.  Turned when the back b and the front f have b <= c * (f + 1) + 1,
 * the old front's f slots and the old back's b - 1 are done within the steps of the f
 * pops that reach them, so slot head is always S(head, mid) and eval stays as above.
 * A window that is not busy ends every push and pop with the test: more than
 * TWOSTACK_EAGER_MAX elements, and b > c * f?  Then it turns.  A push adds 1 to b - c
 * * f, a pop c, and when the steps end b <= f, so b <= c * f + c then, except when the
 * count has just passed TWOSTACK_EAGER_MAX: there it turns and finishes at once (at
 * most TWOSTACK_EAGER_MAX combines).  A window of at most TWOSTACK_EAGER_MAX elements
 * never turns and flips as above, each flip costing fewer combines than its elements.
 * So no push, pop or eval does more than TWOSTACK_EAGER_MAX + 1 combines (a push and a
 * flip of TWOSTACK_EAGER_MAX + 1 elements), and beyond the first
 * turn of a large window at most 1 + 1 + c (a push, the step's).  Turned at b > c * f,
 * a sliding window combines each element 2 + (c + 1) / c times, 3.33 with c = 3, 4
 * with c = 1 (swag -w 1000000 var over 3,000,000 numbers: 513.4 instructions a record
 * with c = 3, 532.9 with 1, 477.9 with the flip alone; avg 463.6, 473.4 and 444.4).
 * The flip combines it 3 times, which is why a window of at most TWOSTACK_EAGER_MAX
 * keeps it (swag -w 1000 avg 461 instructions a record either way).  The steps of a
 * row window run in monoid.h's runs; a time window's busy steps are single steps
 * (swag -t 1 -w 1h avg:2, 360,000 records in the window, pays about 9 % more
 * instructions a record for them).
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

#include "counters.h"
#include "ring.h"

/* The two operations the engine needs from an aggregate, and one it may use. */
struct twostack_ops {
	size_t agg_size;	/* bytes in one Agg, at most TWOSTACK_AGG_MAX */
	/* Stores the identity aggregate, empty(), in *agg. */
	void (*empty)(void *agg);
	/*
	 * Stores combine(older, newer) in *out.  out may be the same object as older
	 * or as newer, so an implementation reads both operands before writing.
	 */
	void (*combine)(void *out, const void *older, const void *newer);
	/*
	 * Optional (NULL: the flip calls combine): makes each of the count slots below
	 * newest, in one array, the combine of itself and the slot above it as it then
	 * is, from the highest down; TWOSTACK_SUFFIX writes one.
	 */
	void (*suffix)(unsigned char *newest, size_t count);
};

/*
 * Defines name as the suffix of the twostack_ops of Agg type type and combine function
 * combine.  The running aggregate is a local of its own type, which gcc 12 keeps in
 * registers, where the engine's loop keeps it in the slots, or in memory when it is
 * the engine's union: there each combine waits for the last one's store and load.
 * sum_agg's flip, timed alone on a 2-core AMD EPYC: 4.1 ns a slot through the slots,
 * 1.6 in registers (swag -w 1000 avg 8 % less time).  The combine must not pass
 * an operand's address to a function that is not inlined, even on a cold path: the
 * operand then stays in memory.  var's suffix, its slow path taking pointers, takes
 * 35 % longer than the engine's loop, and 5 % less with it taking values; sum's slow
 * paths taking values save swag -w 1000 avg 3 %, -t 1 -w 10s avg:2 5 %.
 */
#define TWOSTACK_SUFFIX(name, type, combine)						\
	TWOSTACK_INLINE void								\
	name(unsigned char *newest, size_t count)					\
	{										\
		type *slot = (type *)(void *)newest, acc = *slot;			\
											\
		while (count-- > 0) {							\
			type r;								\
											\
			combine(&r, --slot, &acc);					\
			acc = r;							\
			*slot = r;							\
		}									\
	}

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

/*
 * The most elements of a window that flips, and with one more, the most combines of
 * any push, pop or eval.  A flip of 16,384 avg aggregates takes about 0.1 ms, var's
 * 0.2 ms.
 */
#define TWOSTACK_EAGER_MAX 16384

/*
 * A large window turns when its back holds more than this many times its front, and a
 * step finishes one slot of the old front and this many of the old back.
 */
#define TWOSTACK_TURN_RATIO 3

struct twostack {
	struct ring ring;	/* the Aggs of positions [head, tail): front, then back */
	uint64_t mid;		/* the first position of the back stack */
	union twostack_agg back_agg;	/* the aggregate of the back stack */
	/* While busy, the front's unfinished slots, [l, r) and [r, a) (see above). */
	uint64_t l, r, a;
	bool busy;
	union twostack_agg mid_agg;	/* while busy, S(r, mid) */
#ifdef SWAG_TEST_COUNTERS
	uint64_t combines;	/* every combine the window did */
#endif
};

/* The slot at ring position pos. */
TWOSTACK_INLINE void *
twostack_slot(const struct twostack *ts, size_t agg_size, uint64_t pos)
{
	return ring_at(&ts->ring, agg_size, pos);
}

/*
 * Stores combine(older, newer) in *out for the window ts, counting it in test builds.
 * ts is not changed otherwise (const for eval's sake).
 */
TWOSTACK_INLINE void
twostack_combine(const struct twostack *ts, const struct twostack_ops *ops, void *out,
    const void *older, const void *newer)
{
	TEST_COUNT(((struct twostack *)ts)->combines, 1);
	(void)ts;
	ops->combine(out, older, newer);
}

/* Makes an empty window that owns no memory yet. */
TWOSTACK_INLINE void
twostack_init(struct twostack *ts, const struct twostack_ops *ops)
{
	ring_init(&ts->ring);
	ts->mid = ts->l = ts->r = ts->a = 0;
	ts->busy = false;
	ops->empty(ts->back_agg.bytes);
	ops->empty(ts->mid_agg.bytes);
#ifdef SWAG_TEST_COUNTERS
	ts->combines = 0;
#endif
}

/* Frees the window's memory; the window may be initialised again afterwards. */
TWOSTACK_INLINE void
twostack_free(struct twostack *ts)
{
	ring_free(&ts->ring);
	ts->mid = ts->l = ts->r = ts->a = 0;
	ts->busy = false;
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
 * Turns the back stack into the front stack (the front must be empty): each slot,
 * newest to oldest, becomes the aggregate of itself and every newer slot.
 */
TWOSTACK_INLINE void
twostack_flip(struct twostack *ts, const struct twostack_ops *ops)
{
	const size_t size = ops->agg_size;
	const uint64_t mid = ts->mid;
	uint64_t pos = ts->ring.tail - 1;

	if (ts->ring.tail == mid)
		return;
	if (pos > mid) {
		/* Down the slots by pointer; below the lowest, the older is the highest. */
		unsigned char *newer = twostack_slot(ts, size, pos);
		unsigned char *first = ring_lowest(&ts->ring, size);
		unsigned char *last = ring_highest(&ts->ring, size);

		if (ops->suffix != NULL) {
			/* Down to the lowest slot, then from the highest when the back wraps. */
			size_t count = (size_t)(pos - mid), below = (size_t)(newer - first) / size;

			TEST_COUNT(ts->combines, count);
			if (below >= count) {
				ops->suffix(newer, count);
			} else {
				ops->suffix(newer, below);
				ops->combine(last, last, first);
				ops->suffix(last, count - below - 1);
			}
		} else if ((size_t)(newer - first) >= (size_t)(pos - mid) * size) {
			/*
			 * The back does not wrap: no test for the wrap in the loop (it cost swag
			 * -w 1000 avg 3 instructions a record).
			 */
			unsigned char *stop = newer - (size_t)(pos - mid) * size;

			do {
				twostack_combine(ts, ops, newer - size, newer - size, newer);
				newer -= size;
			} while (newer != stop);
		} else {
			do {
				unsigned char *older = newer == first ? last : newer - size;

				twostack_combine(ts, ops, older, older, newer);
				newer = older;
			} while (--pos > mid);
		}
	}
	ts->mid = ts->ring.tail;
	ops->empty(ts->back_agg.bytes);
}

/*
 * One step of a busy window (see above): slot l, or the oldest unpopped slot after
 * it, and slot a - 1 are finished; the window is no longer busy when none is left.
 */
TWOSTACK_INLINE void
twostack_step(struct twostack *ts, const struct twostack_ops *ops)
{
	const size_t size = ops->agg_size;

	if (ts->l < ts->ring.head)
		ts->l = ts->ring.head;
	if (ts->l < ts->r) {
		void *slot = twostack_slot(ts, size, ts->l);

		twostack_combine(ts, ops, slot, slot, ts->mid_agg.bytes);
		ts->l++;
	}
	for (int i = 0; i < TWOSTACK_TURN_RATIO && ts->a > ts->r; i++) {
		void *slot = twostack_slot(ts, size, --ts->a);

		twostack_combine(ts, ops, slot, slot, twostack_slot(ts, size, ts->a + 1));
	}
	if (ts->l == ts->r && ts->a == ts->r)
		ts->busy = false;
}

/*
 * Turns the back into the front's end (the window must not be busy): the front's slots
 * are finished by the steps of the pushes and pops that follow, or here at once when
 * the back is more than one larger than the front (see above).  An empty front is a
 * flip.
 */
static __attribute__((noinline, unused)) void
twostack_turn(struct twostack *ts, const struct twostack_ops *ops)
{
	uint64_t front = ts->mid - ts->ring.head, back = ts->ring.tail - ts->mid;

	if (front == 0) {
		twostack_flip(ts, ops);
		return;
	}
	ts->l = ts->ring.head;
	ts->r = ts->mid;
	ts->a = ts->ring.tail - 1;
	ts->mid = ts->ring.tail;
	memcpy(ts->mid_agg.bytes, ts->back_agg.bytes, ops->agg_size);
	ops->empty(ts->back_agg.bytes);
	ts->busy = true;
	do
		twostack_step(ts, ops);
	while (back > TWOSTACK_TURN_RATIO * (front + 1) + 1 && ts->busy);
}

/* twostack_settle's work, for a busy or a large window. */
static __attribute__((noinline, unused)) void
twostack_settle_slow(struct twostack *ts, const struct twostack_ops *ops)
{
	if (ts->busy)
		twostack_step(ts, ops);
	if (ts->ring.tail - ts->ring.head > TWOSTACK_EAGER_MAX &&
	    !ts->busy && ts->ring.tail - ts->mid >
	    TWOSTACK_TURN_RATIO * (ts->mid - ts->ring.head))
		twostack_turn(ts, ops);
}

/*
 * Ends every push and pop: a busy window takes its step; a window of more than
 * TWOSTACK_EAGER_MAX elements whose back outgrew TWOSTACK_TURN_RATIO times its front
 * turns.  The work is out of line (twostack_settle_slow), one test inline: inlined
 * whole, it cost swag -g 3 -w 1000 avg:2 about 1 instruction a record.
 */
TWOSTACK_INLINE void
twostack_settle(struct twostack *ts, const struct twostack_ops *ops)
{
	if (__builtin_expect(ts->busy ||
	    ts->ring.tail - ts->ring.head > TWOSTACK_EAGER_MAX, 0))
		twostack_settle_slow(ts, ops);
}

/*
 * ... then appends that slot's unit as the newest element.  Built in place, the unit
 * goes to the ring without a copy through the stack (3 instructions a record for avg).
 */
TWOSTACK_INLINE void
twostack_push_slot(struct twostack *ts, const struct twostack_ops *ops, const void *slot)
{
	ts->ring.tail++;
	twostack_combine(ts, ops, ts->back_agg.bytes, ts->back_agg.bytes, slot);
	twostack_settle(ts, ops);
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
 * Removes the oldest element.  The window must not be empty.  An empty front (never in
 * a busy window) is flipped first.
 */
TWOSTACK_INLINE void
twostack_pop(struct twostack *ts, const struct twostack_ops *ops)
{
	if (ts->ring.head == ts->mid)
		twostack_flip(ts, ops);
	ts->ring.head++;
	twostack_settle(ts, ops);
}

/* Stores the aggregate of the whole window, oldest to newest, in *out. */
TWOSTACK_INLINE void
twostack_eval(const struct twostack *ts, const struct twostack_ops *ops, void *out)
{
	if (ts->ring.head == ts->mid)
		memcpy(out, ts->back_agg.bytes, ops->agg_size);
	else
		twostack_combine(ts, ops, out, twostack_slot(ts, ops->agg_size, ts->ring.head),
		    ts->back_agg.bytes);
}

#endif /* SWAG_TWOSTACK_H */
