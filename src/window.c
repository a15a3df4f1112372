/*
 * window.c: one key's windows (see window.h).
 */
#include <string.h>

#include "mem.h"
#include "window.h"
#include "work.h"

int
window_set_init(struct window_set *set, const struct agg_spec *specs, size_t count)
{
	size_t bytes;
	bool timed = false;

	memset(set, 0, sizeof(*set));
	if (mem_array_size(count, sizeof(*set->aggs), &bytes) != 0 ||
	    (set->aggs = mem_realloc(NULL, bytes ? bytes : 1)) == NULL)
		return -1;
	for (size_t i = 0; i < count; i++) {
		set->aggs[i] = NULL;
		timed |= window_by_time(&specs[i]);
	}
	set->agg_count = count;
	if (timed) {
		if (mem_array_size(count, sizeof(set->times->held[0]), &bytes) != 0 ||
		    bytes > SIZE_MAX - sizeof(*set->times) ||
		    (set->times = mem_realloc(NULL, sizeof(*set->times) + bytes)) == NULL)
			return -1;
		memset(set->times, 0, sizeof(*set->times) + bytes);
	}
	for (size_t i = 0; i < count; i++) {
		struct agg_params params = specs[i].params;

		params.cumulative = specs[i].window.rows == WINDOW_ROWS_ALL;
		params.window_rows = specs[i].window.rows;
		params.window_nanos = specs[i].window.nanos;
		if ((set->aggs[i] = specs[i].kind->create(specs[i].kind, &params)) == NULL)
			return -1;
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
	if (set->times != NULL) {
		ring_free(&set->times->ring);
		mem_free(set->times);
	}
	set->aggs = NULL;
	set->times = NULL;
}

/*
 * Appends the timestamps of the n steps to the ring of timestamps one push at a time,
 * as many as fit: what is left to do when memory is short for all n at once.  Returns
 * the number pushed.
 */
static size_t
push_times_slowly(struct ring *ring, const struct window_steps *w, size_t n)
{
	size_t j;

	for (j = 0; j < n && ring_reserve(ring, sizeof(int64_t)) == 0; j++)
		*RING_AT(ring, int64_t, ring->tail++) = w->times[w->index != NULL ?
		    w->index[j] : j];
	return j;
}

/*
 * A time window's walk over the ring of timestamps: the slot of the oldest position it
 * holds, the end of the run of slots that follow it (ring_run), and the position whose
 * slot would be there, had the run not ended.
 */
struct walk {
	const int64_t *at, *end;
	uint64_t end_position;
};

/*
 * Walks a time window of duration (nanoseconds, more than 0) over steps from to to - 1,
 * which lie in the ring at position + j: evict[j] is the number of held timestamps t'
 * that step j's record, at t, lets go, those with t - t' >= duration (timestamps never
 * go back, so the unsigned difference cannot overflow).  With push, a constant, each
 * step first writes its timestamp to out[j - offset] (the ring's slot of position +
 * j).  The walk stops at the step's own timestamp at the latest (t - t is below the
 * duration), so it tests nothing for the ring's end, and it reads the slots by
 * pointer, testing for the end of their run only when a timestamp is evicted, and
 * counting a step's evictions by the pointer's distance: the compare and select of
 * ring_at per read, and a count per eviction, cost 5 instructions a record more
 * (callgrind, -t 1 -g 3 -w 1m p99:2).
 */
static inline __attribute__((always_inline)) void
walk_steps(const struct ring *ring, struct walk *k, const struct window_steps *w,
    bool indexed, size_t from, size_t to, uint64_t duration, uint32_t *evict, bool push,
    int64_t *out, size_t offset)
{
	/* In locals: the stores to evict and to the ring could alias w's fields. */
	const int64_t *times = w->times, *at = k->at, *end = k->end;
	const agg_index *index = w->index;

	for (size_t j = from; j < to; j++) {
		uint64_t t = (uint64_t)times[indexed ? index[j] : j];
		uintptr_t was = (uintptr_t)at;

		if (push)
			out[j - offset] = (int64_t)t;
		while (t - (uint64_t)*at >= duration)
			if (__builtin_expect(++at == end, 0)) {
				/* The run's end: the next position's slot and run. */
				uint64_t run = ring_run(ring, k->end_position);

				at = RING_AT(ring, int64_t, k->end_position);
				/* The count goes on from the new slot (unsigned: no overflow). */
				was += (uintptr_t)at - (uintptr_t)end;
				end = at + run;
				k->end_position += run;
			}
		evict[j] = (uint32_t)(((uintptr_t)at - was) / sizeof(int64_t));
	}
	k->at = at;
	k->end = end;
}

/*
 * Walks a time window of duration over the n steps of w, from the oldest position it
 * holds, storing each step's evictions in evict (walk_steps); returns the oldest
 * position it holds after them.  With push, a constant, it writes the steps'
 * timestamps to the ring as it goes, from position, its tail, for which ring_make_room
 * has made room: to the end of the slots' run, then on from the first slot, as a ring
 * lays them out (ring.h).  The caller counts them pushed.
 */
static inline __attribute__((always_inline)) uint64_t
walk_window(struct ring *ring, const struct window_steps *w, size_t n, bool indexed,
    uint64_t oldest, uint64_t duration, uint32_t *evict, bool push, uint64_t position)
{
	const int64_t *at = RING_AT(ring, int64_t, oldest);
	uint64_t run = ring_run(ring, oldest);
	struct walk k = { at, at + run, oldest + run };

	if (push) {
		uint64_t run = ring_run(ring, position);
		size_t split = n < run ? n : (size_t)run;

		walk_steps(ring, &k, w, indexed, 0, split, duration, evict, true,
		    RING_AT(ring, int64_t, position), 0);
		walk_steps(ring, &k, w, indexed, split, n, duration, evict, true,
		    (int64_t *)ring->slots, split);
	} else {
		walk_steps(ring, &k, w, indexed, 0, n, duration, evict, false, NULL, 0);
	}
	return k.end_position - (uint64_t)(k.end - k.at);
}

#ifdef SWAG_WORK_COUNTERS
/*
 * The instrumented build (work.h) moves a window one step at a time, each a move of its
 * own, and charges each step's work to the step's record.  A text result is valid only
 * until its window's next move (agg.h), here the next step, so each is copied to
 * work_keep_text's store, which lasts the batch.
 */
static size_t
move_window(struct agg *agg, const struct agg_move *m)
{
	for (size_t j = 0; j < m->n; j++) {
		struct agg_move one = *m;
		size_t r = m->index != NULL ? m->index[j] : j;

		one.n = 1;
		if (m->evict != NULL)
			one.evict = &m->evict[j];
		if (m->index != NULL) {
			one.index = &m->index[j];
		} else {
			/* Without an index, step j is about record j: the arrays start there. */
			one.values = m->values != NULL ? &m->values[j] : NULL;
			one.times = m->times != NULL ? &m->times[j] : NULL;
			one.want = m->want != NULL ? &m->want[j] : NULL;
			one.results = m->results != NULL ? &m->results[j] : NULL;
		}
		if (agg->kind->move(agg, &one) != 1)
			return j;
		if (m->results != NULL && (m->want == NULL || m->want[r]) &&
		    m->results[r].kind == AGG_RESULT_TEXT &&
		    (m->results[r].text = work_keep_text(m->results[r].text,
		    m->results[r].text_len)) == NULL)
			return j;
		work_charge(r);
	}
	return m->n;
}
#else
#define move_window(agg, m) ((agg)->kind->move((agg), (m)))
#endif

/*
 * window_set_move, with indexed a constant (whether w has an index), so that the
 * loops over the steps' timestamps test nothing for it, and timed, whether the set has
 * time windows, so that a set of row windows alone pays nothing for them.  The first
 * time window's walk
 * writes the steps' timestamps to the ring as it reads them (one loop, where a loop
 * of pushes and then the walk took 7 instructions a record more, callgrind, -t 1 -g 3
 * -w 1m p99:2), and a time window of the duration that the one before walked, holding
 * the same records, takes that walk's evictions.
 */
static inline __attribute__((always_inline)) size_t
window_set_move_of(struct window_set *set, const struct agg_spec *specs,
    const struct window_steps *w, bool indexed, bool timed)
{
	uint32_t evict[WINDOW_STEPS_MAX];
	struct ring *ring = timed ? &set->times->ring : NULL;
	uint64_t *held = timed ? set->times->held : NULL;
	uint64_t position = timed ? ring->tail : 0, kept = 0, walked_from = 0, walked_to = 0;
	uint64_t walked_duration = 0;
	struct agg_move m = { .index = w->index, .times = w->times, .want = w->want };
	size_t done = w->n, walked_n = 0;
	bool push = false;

	if (timed && done > 0) {
		if ((position - ring->head + done <= ring->room &&
		    position + done <= ring->stop) ||
		    ring_make_room(ring, sizeof(int64_t), done) == 0)
			push = true;
		else
			done = push_times_slowly(ring, w, done);
	}
	for (size_t i = 0; i < set->agg_count; i++) {
		uint64_t duration = timed && window_by_time(&specs[i]) ?
		    (uint64_t)specs[i].window.nanos : 0;
		size_t moved;

		m.n = done;
		m.values = w->values[i];
		m.results = w->results[i];
		m.rows = specs[i].window.rows;
		m.evict = NULL;
		if (duration > 0) {
			/* The ring position of the oldest timestamp the window holds. */
			uint64_t oldest = position - held[i];

			if (done == 0) {
				/* Memory ran short before any step: the window holds on. */
			} else if (duration == walked_duration && oldest == walked_from &&
			    done == walked_n) {
				oldest = walked_to;
			} else {
				walked_duration = duration;
				walked_from = oldest;
				walked_n = done;
				if (push) {
					oldest = walk_window(ring, w, done, indexed, oldest,
					    duration, evict, true, position);
					ring->tail = position + done;
					push = false;
				} else {
					oldest = walk_window(ring, w, done, indexed, oldest,
					    duration, evict, false, position);
				}
				walked_to = oldest;
			}
			held[i] = position + done - oldest;
			if (held[i] > kept)
				kept = held[i];
			m.evict = evict;
		}
		if ((moved = move_window(set->aggs[i], &m)) < done)
			done = moved;
	}
	if (timed) {
		/* Keep only the timestamps that some time window still holds. */
		ring->head = ring->tail - kept;
	}
	return done;
}

size_t
window_set_move(struct window_set *set, const struct agg_spec *specs,
    const struct window_steps *w)
{
	if (set->times != NULL)
		return w->index != NULL ? window_set_move_of(set, specs, w, true, true) :
		    window_set_move_of(set, specs, w, false, true);
	return w->index != NULL ? window_set_move_of(set, specs, w, true, false) :
	    window_set_move_of(set, specs, w, false, false);
}

int
window_set_boundary(struct window_set *set, const struct agg_spec *specs, uint64_t end,
    struct agg_result *const *results, size_t k)
{
	agg_index index = (agg_index)k;
	uint32_t evict;
	uint64_t kept = 0;
	struct agg_move m = { .n = 1, .index = &index };
	int status = 0;

	for (size_t i = 0; i < set->agg_count; i++) {
		int64_t duration = window_by_time(&specs[i]) ? specs[i].window.nanos : 0;

		m.rows = specs[i].window.rows;
		m.evict = NULL;
		m.results = results[i];
		if (duration > 0) {
			struct ring *ring = &set->times->ring;
			uint64_t held = set->times->held[i];

			/* end - t' is below 2^64: t' is within a window and a bucket of end. */
			evict = 0;
			while (held > 0 && end - (uint64_t)*RING_AT(ring, int64_t,
			    ring->tail - held) > (uint64_t)duration) {
				held--;
				evict++;
			}
			set->times->held[i] = held;
			if (held > kept)
				kept = held;
			m.evict = &evict;
		}
		if (set->aggs[i]->kind->move(set->aggs[i], &m) != 1)
			status = -1;
	}
	if (set->times != NULL)
		set->times->ring.head = set->times->ring.tail - kept;
	return status;
}

uint64_t
window_reach(const struct agg_spec *spec)
{
	int64_t d = spec->window.nanos;

	return d > 0 && spec->kind->keeps_history ? agg_history_reach(d) : (uint64_t)d;
}

void
window_set_results(struct window_set *set, struct agg_result *const *results, size_t k)
{
	agg_index index = (agg_index)k;
	struct agg_move m = { .n = 1, .index = &index };

	for (size_t i = 0; i < set->agg_count; i++) {
		m.results = results[i];
		(void)set->aggs[i]->kind->move(set->aggs[i], &m);
	}
}
