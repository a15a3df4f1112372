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

	memset(set, 0, sizeof(*set));
	if (mem_array_size(count, sizeof(*set->aggs), &bytes) != 0 ||
	    (set->aggs = mem_realloc(NULL, bytes ? bytes : 1)) == NULL)
		return -1;
	for (size_t i = 0; i < count; i++)
		set->aggs[i] = NULL;
	set->agg_count = count;
	if (mem_array_size(count, sizeof(*set->held), &bytes) != 0 ||
	    (set->held = mem_realloc(NULL, bytes ? bytes : 1)) == NULL)
		return -1;
	memset(set->held, 0, bytes);
	for (size_t i = 0; i < count; i++) {
		struct agg_params params = specs[i].params;

		params.cumulative = specs[i].window.rows == WINDOW_ROWS_ALL;
		params.window_rows = specs[i].window.rows;
		params.window_nanos = specs[i].window.nanos;
		if ((set->aggs[i] = specs[i].kind->create(specs[i].kind, &params)) == NULL)
			return -1;
		if (window_by_time(&specs[i]))
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
	mem_free(set->held);
	ring_free(&set->times);
	set->aggs = NULL;
	set->held = NULL;
}

/*
 * Appends the timestamps of the n steps to the ring of timestamps, growing it first
 * as far as it must (so the loop that writes them checks nothing: 10 instructions
 * less a record, callgrind).  Returns n, or as many as fit when memory is short.
 * indexed is a constant: whether the steps have an index.
 */
static inline __attribute__((always_inline)) size_t
push_times(struct window_set *set, const struct window_steps *w, size_t n, bool indexed)
{
	struct ring *ring = &set->times;
	uint64_t tail = ring->tail, run;
	int64_t *slots, *first;
	size_t j = 0;

	if ((tail - ring->head + n > ring->room || tail + n > ring->stop) &&
	    ring_make_room(ring, sizeof(int64_t), n) != 0) {
		/* As many as fit, each as a push. */
		for (; j < n && ring_reserve(ring, sizeof(int64_t)) == 0; j++)
			*RING_AT(ring, int64_t, ring->tail++) = w->times[indexed ? w->index[j] : j];
		return j;
	}
	/* To the end of the slots, then on from the first (ring.h). */
	slots = RING_AT(ring, int64_t, tail);
	run = ring_run(ring, tail);
	for (; j < n && j < run; j++)
		slots[j] = w->times[indexed ? w->index[j] : j];
	first = (int64_t *)ring->slots;
	for (; j < n; j++)
		first[j - run] = w->times[indexed ? w->index[j] : j];
	ring->tail = tail + n;
	return n;
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
 * loops over the steps' timestamps test nothing for it.
 */
static inline __attribute__((always_inline)) size_t
window_set_move_of(struct window_set *set, const struct agg_spec *specs,
    const struct window_steps *w, bool indexed)
{
	uint32_t evict[WINDOW_STEPS_MAX];
	uint64_t position = set->times.tail, kept = 0;
	struct agg_move m = { .index = w->index, .times = w->times, .want = w->want };
	size_t done = w->n;
	struct ring_map map = { 0, 0, 0 };

	if (set->has_time_windows) {
		done = push_times(set, w, w->n, indexed);
		/* In locals: the evictions' stores could alias the ring's fields. */
		map = set->times.map;
	}
	for (size_t i = 0; i < set->agg_count; i++) {
		int64_t duration = window_by_time(&specs[i]) ? specs[i].window.nanos : 0;
		size_t moved;

		m.n = done;
		m.values = w->values[i];
		m.results = w->results[i];
		m.rows = specs[i].window.rows;
		m.evict = NULL;
		if (duration > 0) {
			/* The ring position of the oldest timestamp the window holds. */
			uint64_t oldest = position - set->held[i];

			/*
			 * Step j's record evicts every value whose timestamp t' satisfies
			 * t' <= t - D, written t - t' >= D: timestamps never go back, and the
			 * unsigned difference cannot overflow.  The window holds the
			 * timestamps from oldest up to the step's own, position + j, which
			 * push_times has put in the ring: t - t is below D, so the walk
			 * stops there without a test of its own.
			 */
			for (size_t j = 0; j < done; j++) {
				uint64_t t = (uint64_t)w->times[indexed ? w->index[j] : j];
				uint64_t from = oldest;

				while (t - (uint64_t)*(const int64_t *)ring_map_at(&map, sizeof(int64_t), oldest) >= (uint64_t)duration)
					oldest++;
				evict[j] = (uint32_t)(oldest - from);
			}
			set->held[i] = position + done - oldest;
			if (set->held[i] > kept)
				kept = set->held[i];
			m.evict = evict;
		}
		if ((moved = move_window(set->aggs[i], &m)) < done)
			done = moved;
	}
	if (set->has_time_windows) {
		/* Keep only the timestamps that some time window still holds. */
		set->times.head = set->times.tail - kept;
	}
	return done;
}

size_t
window_set_move(struct window_set *set, const struct agg_spec *specs,
    const struct window_steps *w)
{
	return w->index != NULL ? window_set_move_of(set, specs, w, true) :
	    window_set_move_of(set, specs, w, false);
}

int
window_set_boundary(struct window_set *set, const struct agg_spec *specs, uint64_t end,
    struct agg_result *const *results, size_t k)
{
	uint8_t index = (uint8_t)k;
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
			uint64_t held = set->held[i];

			/* end - t' is below 2^64: t' is within a window and a bucket of end. */
			evict = 0;
			while (held > 0 && end - (uint64_t)*RING_AT(&set->times, int64_t,
			    set->times.tail - held) > (uint64_t)duration) {
				held--;
				evict++;
			}
			set->held[i] = held;
			if (held > kept)
				kept = held;
			m.evict = &evict;
		}
		if (set->aggs[i]->kind->move(set->aggs[i], &m) != 1)
			status = -1;
	}
	if (set->has_time_windows)
		set->times.head = set->times.tail - kept;
	return status;
}

int64_t
window_reach(const struct agg_spec *spec)
{
	int64_t d = spec->window.nanos;

	return d > 0 && spec->kind->keeps_history ? agg_history_reach(d) : d;
}

void
window_set_results(struct window_set *set, struct agg_result *const *results, size_t k)
{
	uint8_t index = (uint8_t)k;
	struct agg_move m = { .n = 1, .index = &index };

	for (size_t i = 0; i < set->agg_count; i++) {
		m.results = results[i];
		(void)set->aggs[i]->kind->move(set->aggs[i], &m);
	}
}
