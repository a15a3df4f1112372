/*
 * monoid.h: the window of every aggregate with an associative combine (agg_monoid.c's
 * sum, avg, count, min, max, var and stddev; agg_ends.c's first, last, delta and
 * rate), on the two-stack engine, and its cumulative form for @all windows.
 *
 * A monoid is four small functions, as in the seed: empty(), unit(x) (or unit_at(x,
 * t), for an aggregate that needs the record's timestamp), combine(older, newer) and
 * finalize().  The window code here is shared and inlined per aggregate, and the four
 * are TWOSTACK_INLINE, so combine() costs no call at all.
 *
 * A row window keeps one Agg slot per record (twostack.h).  A cumulative window (@all:
 * agg_params.cumulative) never lets a value go, so it keeps only the aggregate of
 * everything seen, the two-stack's back aggregate, and no slot: O(1) memory whatever
 * the input's length, and the same result as a row window longer than the input,
 * since the back aggregate is the combine of the same values in the same order.
 */
#ifndef SWAG_MONOID_H
#define SWAG_MONOID_H

#include <stdbool.h>
#include <stdint.h>

#include "agg.h"
#include "counters.h"
#include "mem.h"
#include "twostack.h"

struct monoid {
	struct twostack_ops ops;
	void (*unit)(void *agg, double x);
	/* When not NULL, used instead of unit: the value's record has timestamp time. */
	void (*unit_at)(void *agg, double x, int64_t time);
	void (*finalize)(const void *agg, const struct agg_params *params,
	    struct agg_result *result);
};

struct monoid_window {
	struct agg header;
	struct twostack stack;	/* cumulative: only its back aggregate is used */
};

/* An Agg on the stack, aligned for any of them. */
union monoid_agg {
	unsigned char bytes[TWOSTACK_AGG_MAX];
	double align_double;
	uint64_t align_u64;
};

TWOSTACK_INLINE struct agg *
monoid_create(const struct agg_kind *kind, const struct agg_params *params,
    const struct monoid *m)
{
	struct monoid_window *w = mem_realloc(NULL, sizeof(*w));

	if (w == NULL)
		return NULL;
	w->header.kind = kind;
	w->header.params = *params;
	/* 0 means 1 (an empty window is null anyway): finalize() then tests n once. */
	if (w->header.params.min_count == 0)
		w->header.params.min_count = 1;
	twostack_init(&w->stack, &m->ops);
	ring_set_limit(&w->stack.ring, agg_ring_limit(params));
	return &w->header;
}

/* Stores the unit aggregate of value, or empty() when it has none, in *unit. */
TWOSTACK_INLINE void
monoid_unit(void *unit, const struct agg_value *value, int64_t time, enum agg_input input,
    const struct monoid *m)
{
	bool present = input == AGG_INPUT_TEXT ? value->has_text : value->has_number;

	if (!present)
		m->ops.empty(unit);
	else if (m->unit_at != NULL)
		m->unit_at(unit, value->number, time);
	else
		m->unit(unit, value->number);
}

TWOSTACK_INLINE int
monoid_push(struct agg *agg, const struct agg_value *value, int64_t time,
    enum agg_input input, const struct monoid *m)
{
	struct monoid_window *w = (struct monoid_window *)agg;
	void *unit = twostack_next_slot(&w->stack, &m->ops);

	if (unit == NULL)
		return -1;
	monoid_unit(unit, value, time, input, m);
	twostack_push_slot(&w->stack, &m->ops, unit);
	return 0;
}

TWOSTACK_INLINE void
monoid_pop(struct agg *agg, const struct monoid *m)
{
	twostack_pop(&((struct monoid_window *)agg)->stack, &m->ops);
}

TWOSTACK_INLINE void
monoid_result(struct agg *agg, struct agg_result *result, const struct monoid *m)
{
	struct monoid_window *w = (struct monoid_window *)agg;
	union monoid_agg total;

	twostack_eval(&w->stack, &m->ops, total.bytes);
	m->finalize(total.bytes, &agg->params, result);
}

TWOSTACK_INLINE uint64_t
monoid_size(const struct agg *agg)
{
	return twostack_size(&((const struct monoid_window *)agg)->stack);
}

/* The cumulative window: the value folded into the back aggregate; never fails. */
TWOSTACK_INLINE int
monoid_push_all(struct agg *agg, const struct agg_value *value, int64_t time,
    enum agg_input input, const struct monoid *m)
{
	struct twostack *ts = &((struct monoid_window *)agg)->stack;
	union monoid_agg unit;

	monoid_unit(unit.bytes, value, time, input, m);
	twostack_combine(ts, &m->ops, ts->back_agg.bytes, ts->back_agg.bytes, unit.bytes);
	return 0;
}

TWOSTACK_INLINE void
monoid_result_all(struct agg *agg, struct agg_result *result, const struct monoid *m)
{
	m->finalize(((struct monoid_window *)agg)->stack.back_agg.bytes, &agg->params, result);
}

static inline void
monoid_destroy(struct agg *agg)
{
	struct monoid_window *w = (struct monoid_window *)agg;

	twostack_free(&w->stack);
	mem_free(w);
}

/*
 * The smallest window whose run finds a stretch: in a window of 2, the step that flips
 * leaves one value on the front, which the next step's pop takes.
 */
#define MONOID_RUN_ROWS 3

/*
 * n steps of a row window's run, without the single step's tests: when full, each
 * pops the front's top and pushes the value of its record r (index[i], or i with index
 * NULL), and its result combines the front's new top with the back aggregate; when not
 * (the window filling, all on the back stack), each pushes, and its result is the back
 * aggregate's.  The caller has checked that the n steps need no flip, no growth and no
 * wrap of the ring, so that the slots are walked by pointer.  The combines are the
 * single step's, in its order, and so are the results.  The back aggregate is a local
 * variable, which stays in registers.
 */
TWOSTACK_INLINE size_t
monoid_run_stretch(struct monoid_window *w, const agg_index *index,
    const struct agg_value *values, const int64_t *times, struct agg_result *results,
    size_t n, bool full, enum agg_input input, const struct monoid *m)
{
	const size_t size = m->ops.agg_size;
	struct twostack *ts = &w->stack;
	const struct agg_params params = w->header.params;
	union twostack_agg back = ts->back_agg;
	unsigned char *newest = twostack_slot(ts, size, ts->ring.tail);
	const unsigned char *front = twostack_slot(ts, size, ts->ring.head + 1);

	for (size_t i = 0; i < n; i++) {
		size_t r = index != NULL ? index[i] : i;

		monoid_unit(newest, &values[r], times != NULL ? times[r] : 0, input, m);
		m->ops.combine(back.bytes, back.bytes, newest);
		newest += size;
		if (full) {
			union twostack_agg total;

			m->ops.combine(total.bytes, front, back.bytes);
			m->finalize(total.bytes, &params, &results[r]);
			front += size;
		} else
			m->finalize(back.bytes, &params, &results[r]);
	}
	TEST_COUNT(ts->combines, full ? 2 * n : n);
	ts->back_agg = back;
	ts->ring.tail += n;
	if (full)
		ts->ring.head += n;
	return n;
}

/*
 * n steps of the run of a row window that fills with a front (one that has turned,
 * twostack.h, and is not busy): each pushes the value of its record r (index[i], or i
 * with index NULL), and its result combines the front's top with the back aggregate.
 * The caller has checked that the n steps need no growth, no wrap and no turn.
 */
TWOSTACK_INLINE size_t
monoid_run_fill(struct monoid_window *w, const agg_index *index,
    const struct agg_value *values, const int64_t *times, struct agg_result *results,
    size_t n, enum agg_input input, const struct monoid *m)
{
	const size_t size = m->ops.agg_size;
	struct twostack *ts = &w->stack;
	const struct agg_params params = w->header.params;
	union twostack_agg back = ts->back_agg;
	unsigned char *newest = twostack_slot(ts, size, ts->ring.tail);
	const unsigned char *top = twostack_slot(ts, size, ts->ring.head);

	for (size_t i = 0; i < n; i++) {
		size_t r = index != NULL ? index[i] : i;
		union twostack_agg total;

		monoid_unit(newest, &values[r], times != NULL ? times[r] : 0, input, m);
		m->ops.combine(back.bytes, back.bytes, newest);
		newest += size;
		m->ops.combine(total.bytes, top, back.bytes);
		m->finalize(total.bytes, &params, &results[r]);
	}
	TEST_COUNT(ts->combines, 2 * n);
	ts->back_agg = back;
	ts->ring.tail += n;
	return n;
}

/*
 * Up to n steps of a time window's run: each pops evict[i] values off the front and
 * pushes the value of its record r (index[i], or i with index NULL), and its result
 * combines the front's new top with the back aggregate, or is the back aggregate's
 * when the pops emptied the front.  The run stops before the first step whose pops
 * would flip (more than the front holds), whose push would take ring_make_room (the
 * ring holds its room after the pops, or the push reaches its stop), or whose slots
 * would wrap it, and returns how many steps it took (none while the ring moves its
 * elements: ring.h).  The combines are the single step's, in its order, and so are
 * the results.  Stopping at the room, three quarters of a mapped ring's slots, not at
 * the full ring, lets the push that follows start the growth with a quarter of the
 * slots free for the move's steps (ring.h: Growth); a run past it would leave the
 * move fewer free slots than its steps need, and the push that filled the ring would
 * move every element left at once.
 */
TWOSTACK_INLINE size_t
monoid_run_evicting(struct monoid_window *w, const agg_index *index, const uint32_t *evict,
    const struct agg_value *values, const int64_t *times, struct agg_result *results,
    size_t n, enum agg_input input, const struct monoid *m)
{
	const size_t size = m->ops.agg_size;
	struct twostack *ts = &w->stack;
	const struct agg_params params = w->header.params;
	const uint64_t cap = ts->ring.cap, mid = ts->mid, grow_at = ts->ring.room;
	uint64_t head = ts->ring.head, tail = ts->ring.tail, last, room;
	union twostack_agg back;
	unsigned char *newest;
	const unsigned char *front;
	size_t i;

	if (cap == 0 || ts->busy || ring_moving(&ts->ring))
		return 0;
	/*
	 * The last position the pops may leave at the head: the front's end, or, when
	 * the front wraps the ring, its last slot before the wrap.
	 */
	room = ring_run(&ts->ring, head);
	last = mid - head <= room ? mid : head + room - 1;
	if (n > ring_run(&ts->ring, tail))
		n = ring_run(&ts->ring, tail);
	/* Nor past stop, where a push takes ring_make_room (ring.h: Release). */
	if (ts->ring.stop <= tail)
		n = 0;
	else if (n > ts->ring.stop - tail)
		n = (size_t)(ts->ring.stop - tail);
	back = ts->back_agg;
	newest = twostack_slot(ts, size, tail);
	front = twostack_slot(ts, size, head);
	for (i = 0; i < n; i++) {
		size_t r = index != NULL ? index[i] : i;
		uint32_t e = evict[i];

		if (e > last - head || tail - head - e >= grow_at)
			break;
		/*
		 * Nor does it take a step after which a large window would turn (twostack.h):
		 * the test after the pops and the push, with the count before them.
		 */
		if (__builtin_expect(tail - head >= TWOSTACK_EAGER_MAX, 0) &&
		    tail + 1 - mid > TWOSTACK_TURN_RATIO * (mid - (head + e)))
			break;
		head += e;
		front += (size_t)e * size;
		monoid_unit(newest, &values[r], times != NULL ? times[r] : 0, input, m);
		m->ops.combine(back.bytes, back.bytes, newest);
		newest += size;
		tail++;
		TEST_COUNT(ts->combines, head != mid ? 2 : 1);
		if (head != mid) {
			union twostack_agg total;

			m->ops.combine(total.bytes, front, back.bytes);
			m->finalize(total.bytes, &params, &results[r]);
		} else
			m->finalize(back.bytes, &params, &results[r]);
	}
	ts->back_agg = back;
	ts->ring.head = head;
	ts->ring.tail = tail;
	return i;
}

/*
 * Up to n steps of a busy row window's run (twostack.h): when full, each pops,
 * takes two of twostack_step's steps at once (two slots of the old front finished as
 * combine(slot, mid_agg), 2 * TWOSTACK_TURN_RATIO of the old back as combine(slot,
 * newer slot)), pushes the value of its record r (index[i], or i with index NULL), and
 * its result combines the front's new top with the back aggregate; when filling, each
 * pushes and takes one step.  The single steps take one after each pop and each push,
 * so these are the same combines of the same operands, and the same results.  The run takes the steps that find the
 * slots to finish and whose slots do not wrap the ring; the caller has checked that a
 * filling window has room for n more.
 */
TWOSTACK_INLINE size_t
monoid_run_busy(struct monoid_window *w, const agg_index *index,
    const struct agg_value *values, const int64_t *times, struct agg_result *results,
    size_t n, bool full, enum agg_input input, const struct monoid *m)
{
	const size_t size = m->ops.agg_size;
	struct twostack *ts = &w->stack;
	const struct agg_params params = w->header.params;
	const uint64_t head = ts->ring.head, tail = ts->ring.tail, l = ts->l, r = ts->r;
	const uint64_t a = ts->a;
	union twostack_agg back = ts->back_agg, mid = ts->mid_agg;
	unsigned char *newest, *old_front, *old_back;
	const unsigned char *front;
	const uint64_t k = full ? 2 : 1;	/* steps of twostack_step's a record takes */
	const uint64_t kb = k * TWOSTACK_TURN_RATIO;	/* slots of the old back they finish */
	uint64_t steps = n;

	if (steps > (r - l) / k)
		steps = (r - l) / k;
	if (steps > (a - r) / kb)
		steps = (a - r) / kb;
	/* The slots walked: head (+ 1) on, tail on, l on, and a down to a - k * steps. */
	if (full && steps > ring_run(&ts->ring, head + 1))
		steps = ring_run(&ts->ring, head + 1);
	if (steps > ring_run(&ts->ring, tail))
		steps = ring_run(&ts->ring, tail);
	if (steps > ring_run(&ts->ring, l) / k)
		steps = ring_run(&ts->ring, l) / k;
	if (steps > ring_index(&ts->ring, a) / kb)
		steps = ring_index(&ts->ring, a) / kb;
	if (steps == 0)
		return 0;
	newest = twostack_slot(ts, size, tail);
	front = twostack_slot(ts, size, full ? head + 1 : head);
	old_front = twostack_slot(ts, size, l);
	old_back = twostack_slot(ts, size, a);
	for (size_t i = 0; i < steps; i++) {
		size_t rec = index != NULL ? index[i] : i;
		union twostack_agg total;

		m->ops.combine(old_front, old_front, mid.bytes);
		if (full)
			m->ops.combine(old_front + size, old_front + size, mid.bytes);
		old_front += k * size;
		for (uint64_t j = 0; j < kb; j++) {
			m->ops.combine(old_back - size, old_back - size, old_back);
			old_back -= size;
		}
		monoid_unit(newest, &values[rec], times != NULL ? times[rec] : 0, input, m);
		m->ops.combine(back.bytes, back.bytes, newest);
		newest += size;
		m->ops.combine(total.bytes, front, back.bytes);
		m->finalize(total.bytes, &params, &results[rec]);
		if (full)
			front += size;
	}
	TEST_COUNT(ts->combines, (k + kb + 2) * steps);
	ts->back_agg = back;
	if (full)
		ts->ring.head = head + steps;
	ts->ring.tail = tail + steps;
	ts->l = l + k * steps;
	ts->a = a - kb * steps;
	if (ts->l == r && ts->a == r) {
		/* The last push's step ended the work: its test follows (twostack_settle). */
		ts->busy = false;
		twostack_settle(ts, &m->ops);
	}
	return steps;
}

/*
 * The run of a row window that is busy or may turn (twostack.h): of more than
 * TWOSTACK_EAGER_MAX rows.  A busy window runs in monoid_run_busy; one that is not, as
 * a smaller one does (monoid_run), up to the step after which it would turn.  Out of
 * line (each kind's NAME_run_large), so that it takes no registers from the small
 * windows' loops (inlined, 2.2 instructions a record for swag -g 3 -w 1000 avg:2).
 */
TWOSTACK_INLINE size_t
monoid_run_large(struct agg *agg, uint64_t rows, const agg_index *index,
    const struct agg_value *values, const int64_t *times, struct agg_result *results,
    size_t n, enum agg_input input, const struct monoid *m)
{
	struct monoid_window *w = (struct monoid_window *)agg;
	const struct ring *ring = &w->stack.ring;
	uint64_t head = ring->head, tail = ring->tail, cap = ring->cap;
	uint64_t mid = w->stack.mid, count = tail - head, steps, front, back, room;

	if (w->stack.busy) {
		if (count == rows)
			return monoid_run_busy(w, index, values, times, results, n, true,
			    input, m);
		if (count > rows)
			return 0;
		if (n > rows - count)
			n = rows - count;
		if (n > cap - count)
			n = cap - count;
		return monoid_run_busy(w, index, values, times, results, n, false, input, m);
	}
	front = TWOSTACK_TURN_RATIO * (mid - head);
	back = tail - mid;
	if (count == rows && mid - head >= 2) {
		/* The front's tops after the pops, from head + 1 on, do not wrap. */
		steps = mid - head - 1;
		if (steps > ring_run(ring, head + 1))
			steps = ring_run(ring, head + 1);
		/*
		 * It stops while the back is at most TWOSTACK_TURN_RATIO times the front
		 * after the step: each step adds 1 to the back and takes 1 from the front.
		 */
		room = front <= back ? 0 : (front - back) / (TWOSTACK_TURN_RATIO + 1);
	} else if (count < rows) {
		steps = rows - count;
		if (steps > cap - count)	/* the ring's room; none when cap is 0 */
			steps = cap - count;
		/*
		 * ... and one that fills, before a push after which it would hold more than
		 * TWOSTACK_EAGER_MAX and a back more than that many times its front.
		 */
		room = front > back ? front - back : 0;
		if (count < TWOSTACK_EAGER_MAX && TWOSTACK_EAGER_MAX - count > room)
			room = TWOSTACK_EAGER_MAX - count;
	} else
		return 0;
	if (steps > room)
		steps = room;
	if (steps > n)
		steps = n;
	if (steps > ring_run(ring, tail))
		steps = ring_run(ring, tail);
	if (steps == 0)
		return 0;
	if (count == rows)
		return monoid_run_stretch(w, index, values, times, results, steps, true,
		    input, m);
	if (head != mid)
		return monoid_run_fill(w, index, values, times, results, steps, input, m);
	return monoid_run_stretch(w, index, values, times, results, steps, false, input, m);
}

/*
 * The run of a monoid's window (agg_run_fn): a time window's in monoid_run_evicting; a
 * row window's, the steps up to the next that needs the single step, because it flips
 * (the front's top is the last on the front), grows the ring, wraps it, or ends the
 * filling; a large or busy one's in large (monoid_run_large).  None while the ring
 * moves its elements, whose pushes take ring_reserve (ring.h).
 */
TWOSTACK_INLINE size_t
monoid_run(struct agg *agg, uint64_t rows, const agg_index *index, const uint32_t *evict,
    const struct agg_value *values, const int64_t *times, struct agg_result *results,
    size_t n, enum agg_input input, const struct monoid *m,
    size_t (*large)(struct agg *, uint64_t, const agg_index *, const struct agg_value *,
    const int64_t *, struct agg_result *, size_t))
{
	struct monoid_window *w = (struct monoid_window *)agg;
	const struct ring *ring = &w->stack.ring;
	uint64_t head = ring->head, tail = ring->tail, cap = ring->cap;
	uint64_t mid = w->stack.mid, count = tail - head, steps;

	if (evict != NULL)
		return monoid_run_evicting(w, index, evict, values, times, results, n, input,
		    m);
	if (__builtin_expect(ring_moving(ring), 0))
		return 0;	/* its pushes take ring_reserve (ring.h) */
	if (__builtin_expect(rows > TWOSTACK_EAGER_MAX, 0))
		return large(agg, rows, index, values, times, results, n);
	if (count == rows && mid - head >= 2) {
		/* The front's tops after the pops, from head + 1 on, do not wrap. */
		steps = mid - head - 1;
		if (steps > ring_run(ring, head + 1))
			steps = ring_run(ring, head + 1);
	} else if (count < rows && head == mid) {
		steps = rows - count;
		if (steps > cap - count)	/* the ring's room; none when cap is 0 */
			steps = cap - count;
	} else
		return 0;
	if (steps > n)
		steps = n;
	if (steps > ring_run(ring, tail))
		steps = ring_run(ring, tail);
	if (steps == 0)
		return 0;
	return count == rows ?
	    monoid_run_stretch(w, index, values, times, results, steps, true, input, m) :
	    monoid_run_stretch(w, index, values, times, results, steps, false, input, m);
}

/*
 * Defines the kind KIND, called NAME, from the monoid NAME_monoid: its move() is
 * agg_move_steps_run over the shared window code and its run (monoid_run), handed a
 * constant table, so that each aggregate gets its own inlined copy of the engine, and
 * a second copy for the cumulative window (one test a move, not a record).
 * MONOID_KIND(NAME, INPUT) defines agg_NAME.  MONOID_KIND_OPS(NAME, INPUT) defines
 * all but the kind and its create(), NAME_move among them, for a kind whose create()
 * chooses between monoids (agg_ends.c's rate); it takes no semicolon after it.
 */
#define MONOID_KIND(NAME, INPUT) MONOID_KIND_AS(NAME, agg_##NAME, INPUT, false)
#define MONOID_KIND_AS(NAME, KIND, INPUT, REPEAT)				\
	static struct agg *							\
	NAME##_create(const struct agg_kind *kind, const struct agg_params *params) \
	{									\
		return monoid_create(kind, params, &NAME##_monoid);		\
	}									\
	MONOID_KIND_OPS(NAME, INPUT)						\
	const struct agg_kind KIND = {						\
		#NAME, INPUT, NAME##_create, monoid_destroy, NAME##_move, false,	\
		REPEAT								\
	}
#define MONOID_KIND_OPS(NAME, INPUT)						\
	TWOSTACK_INLINE int							\
	NAME##_push(struct agg *agg, const struct agg_value *value, int64_t time) \
	{									\
		return monoid_push(agg, value, time, INPUT, &NAME##_monoid);	\
	}									\
	TWOSTACK_INLINE void							\
	NAME##_pop(struct agg *agg)						\
	{									\
		monoid_pop(agg, &NAME##_monoid);				\
	}									\
	TWOSTACK_INLINE void							\
	NAME##_result(struct agg *agg, struct agg_result *result)		\
	{									\
		monoid_result(agg, result, &NAME##_monoid);			\
	}									\
	TWOSTACK_INLINE int							\
	NAME##_push_all(struct agg *agg, const struct agg_value *value, int64_t time) \
	{									\
		return monoid_push_all(agg, value, time, INPUT, &NAME##_monoid); \
	}									\
	TWOSTACK_INLINE void							\
	NAME##_result_all(struct agg *agg, struct agg_result *result)		\
	{									\
		monoid_result_all(agg, result, &NAME##_monoid);			\
	}									\
	static __attribute__((noinline)) size_t					\
	NAME##_run_large(struct agg *agg, uint64_t rows, const agg_index *index,	\
	    const struct agg_value *values, const int64_t *times,		\
	    struct agg_result *results, size_t n)				\
	{									\
		return monoid_run_large(agg, rows, index, values, times, results, \
		    n, INPUT, &NAME##_monoid);					\
	}									\
	TWOSTACK_INLINE size_t							\
	NAME##_run(struct agg *agg, uint64_t rows, const agg_index *index,	\
	    const uint32_t *evict, const struct agg_value *values,		\
	    const int64_t *times, struct agg_result *results, size_t n)	\
	{									\
		return monoid_run(agg, rows, index, evict, values, times, results, \
		    n, INPUT, &NAME##_monoid, NAME##_run_large);		\
	}									\
	static size_t								\
	NAME##_move(struct agg *agg, const struct agg_move *move)		\
	{									\
		if (__builtin_expect(agg->params.cumulative, 0))		\
			return agg_move_steps(agg, move, agg_size_none,	\
			    agg_pop_none, NAME##_push_all, NAME##_result_all); \
		return agg_move_steps_run(agg, move, monoid_size, NAME##_pop,	\
		    NAME##_push, NAME##_result, NAME##_run, MONOID_RUN_ROWS);	\
	}

#endif /* SWAG_MONOID_H */
