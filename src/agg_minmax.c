/*
 * agg_minmax.c: min and max on a monotonic deque (the DataFusion seed), the engine
 * swag uses for them.  agg_monoid.c has them on the two-stack too (agg_min_twostack,
 * agg_max_twostack), which the tests check against and the benchmark times beside it.
 *
 * The window keeps only the values that can still become its minimum: those with no
 * better-or-equal value after them.  Oldest first they are strictly increasing, so the
 * front is the minimum.  A push drops from the back every value that the new one
 * outlives and beats, then appends it; a pop drops the front when it is the record that
 * leaves.  Each value enters and leaves the deque once, so a step is amortized O(1) as
 * on the two-stack, but a pop is O(1) in the worst case too, where the two-stack's flip
 * rebuilds the whole window once every w records, and a push that drops many values at
 * once finds them by a binary search (first_beaten): O(log w) in the worst case; and on
 * noisy data the deque holds a handful of values where the two-stack holds w.
 *
 * Why it is the default (tests/bench/bench_minmax.c: max over a full window of doubles
 * from a fixed seed, one step = pop, push and result; gcc 12 -O2, the 2-core Xeon VM
 * that runs the tests, shared with other work, thread CPU time):
 *
 *     ns per step, window 10 / 1,000 / 100,000     deque              two-stack
 *     random values                                17.7 / 17.4 / 17.4  15.7 / 16.4 / 17.8
 *     falling values (all stay candidates)          9.2 /  9.3 /  9.3  19.0 / 19.6 / 20.7
 *     sawtooth (a push drops a whole window)        9.8 / 10.4 / 10.7  17.5 / 18.1 / 19.1
 *     worst single step at window 100,000          85 to 240 us       330 to 500 us
 *
 * On random values the two are within 10% of each other (branches that the processor
 * cannot predict cost the deque what the flips cost the two-stack; end to end, make
 * bench timed swag -w W max on the two-stack at 1.08x, 0.94x and 0.95x the deque's time
 * for W = 10, 1,000 and 100,000, and callgrind counts 581 instructions a record on the
 * deque against 592).  The deque wins the rest: twice as fast on trending data, a worst step
 * of half or less (85 us is this machine's noise floor; the deque's drop of a whole
 * window on the sawtooth is real, as is the two-stack's flip of 100,000 slots), and
 * memory that does not grow with the window on noisy data: at window 1,000,000 over
 * the bench's 2 million numbers, a peak RSS of 2.0 MB against 18.4 MB (on falling
 * values, where every value stays a candidate, both take 18.5 MB).
 *
 * NaN and missing values never enter the deque.  Their positions are kept in order in a
 * second ring (marks), so that a pop knows when one leaves: while a NaN is in the window
 * the result is NaN, and a missing value is a slot that holds no value.
 *
 * Of equal values the newer one wins, since it stays longer, except that -0 and +0 are
 * not equal here: min prefers -0 and max +0, as agg_monoid.c's combine does, so the two
 * engines agree bit for bit.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "agg.h"
#include "counters.h"
#include "mem.h"
#include "ring.h"

/* A value and the record position it came from. */
struct entry {
	double value;
	uint64_t position;
};

struct minmax_window {
	struct agg header;
	uint64_t head;		/* the window holds the records at positions [head, tail) */
	uint64_t tail;
	uint64_t nan_count;	/* NaNs in the window */
	uint64_t missing_count;	/* records without a value in the window */
	struct ring candidates;	/* the deque of entries: oldest first, best last */
	struct ring marks;	/* the NaN and missing records: value NaN, or 0 for missing */
#ifdef SWAG_TEST_COUNTERS
	uint64_t comparisons;	/* of candidates with a value pushed */
#endif
};

/* Appends an entry at the back of ring.  Returns 0, or -1 when memory is short. */
static inline int
entry_push(struct ring *ring, double value, uint64_t position)
{
	struct entry *e = RING_PUSH(ring, struct entry);

	if (e == NULL)
		return -1;
	*e = (struct entry){ value, position };
	return 0;
}

/*
 * True when a is strictly better than b: smaller for min, larger for max, and of two
 * equal zeros the one with the sign that min (-0) or max (+0) keeps.
 */
static inline __attribute__((always_inline)) bool
better(double a, double b, bool is_max)
{
	if (is_max)
		return a > b || (a == b && !signbit(a) && signbit(b));
	return a < b || (a == b && signbit(a) && !signbit(b));
}

/*
 * Makes an empty window.  A cumulative one (@all) never evicts, so every record would
 * stay a candidate on rising data for min, on falling data for max: it is the
 * two-stack's, which keeps one aggregate there (monoid.h) and gives the same results
 * bit for bit.
 */
static struct agg *
minmax_create(const struct agg_kind *kind, const struct agg_params *params)
{
	struct minmax_window *w;

	if (params->cumulative) {
		const struct agg_kind *all = kind == &agg_max_deque ? &agg_max_twostack :
		    &agg_min_twostack;

		return all->create(all, params);
	}
	if ((w = mem_realloc(NULL, sizeof(*w))) == NULL)
		return NULL;
	memset(w, 0, sizeof(*w));
	w->header.kind = kind;
	w->header.params = *params;
	return &w->header;
}

static void
minmax_destroy(struct agg *agg)
{
	struct minmax_window *w = (struct minmax_window *)agg;

	ring_free(&w->candidates);
	ring_free(&w->marks);
	mem_free(w);
}

AGG_INLINE uint64_t
minmax_size(const struct agg *agg)
{
	const struct minmax_window *w = (const struct minmax_window *)agg;

	return w->tail - w->head;
}

/*
 * The position of the oldest candidate that x beats or ties, or the deque's tail when it
 * beats none: every candidate from there on goes.  The candidates are ordered, each
 * better than the next, so those that x beats are the newest ones: a few steps back
 * find them in the common push, which drops none or one, and past those a binary
 * search does, so that a push comparing at most DROP_STEPS + log2(candidates) + 1 times
 * drops a whole window of falling values (the sawtooth) as cheaply as one.
 */
#define DROP_STEPS 4

static inline __attribute__((always_inline)) uint64_t
first_beaten(struct minmax_window *w, double x, bool is_max)
{
	const struct ring *c = &w->candidates;
	uint64_t low = c->head, high = c->tail;

	for (int i = 0; i < DROP_STEPS; i++) {
		if (high == low)
			return high;
		TEST_COUNT(w->comparisons, 1);
		if (better(RING_AT(c, struct entry, high - 1)->value, x, is_max))
			return high;
		high--;
	}
	/* Every candidate in [high, tail) goes; find the first of [low, high) that does. */
	while (low < high) {
		uint64_t middle = low + (high - low) / 2;

		TEST_COUNT(w->comparisons, 1);
		if (better(RING_AT(c, struct entry, middle)->value, x, is_max))
			low = middle + 1;
		else
			high = middle;
	}
	return low;
}

static inline __attribute__((always_inline)) int
minmax_push(struct agg *agg, const struct agg_value *value, bool is_max)
{
	struct minmax_window *w = (struct minmax_window *)agg;
	struct ring *c = &w->candidates;
	double x = value->number;

	if (!value->has_number || isnan(x)) {
		/* A NaN is stored as itself, a missing value as 0: the mark says which. */
		if (entry_push(&w->marks, value->has_number ? x : 0.0, w->tail) != 0)
			return -1;
		if (value->has_number)
			w->nan_count++;
		else
			w->missing_count++;
	} else {
		/* The candidates that x outlives and beats (or ties) can never be the result. */
		c->tail = first_beaten(w, x, is_max);
		if (entry_push(c, x, w->tail) != 0)
			return -1;
	}
	w->tail++;
	return 0;
}

static inline __attribute__((always_inline)) void
minmax_pop(struct agg *agg)
{
	struct minmax_window *w = (struct minmax_window *)agg;
	struct ring *c = &w->candidates, *m = &w->marks;

	if (c->tail != c->head && RING_FRONT(c, struct entry)->position == w->head)
		c->head++;
	else if (m->tail != m->head && RING_FRONT(m, struct entry)->position == w->head) {
		if (isnan(RING_FRONT(m, struct entry)->value))
			w->nan_count--;
		else
			w->missing_count--;
		m->head++;
	}
	w->head++;
}

static inline __attribute__((always_inline)) void
minmax_result(struct agg *agg, struct agg_result *result)
{
	struct minmax_window *w = (struct minmax_window *)agg;
	uint64_t n = w->tail - w->head - w->missing_count;

	if (n == 0 || n < agg->params.min_count) {
		result->kind = AGG_RESULT_NULL;
		return;
	}
	result->kind = AGG_RESULT_NUMBER;
	/* With no NaN and at least one value, some candidate is left. */
	result->number = w->nan_count > 0 ? NAN : RING_FRONT(&w->candidates, struct entry)->value;
}

AGG_INLINE int
min_push(struct agg *agg, const struct agg_value *value, int64_t time)
{
	(void)time;
	return minmax_push(agg, value, false);
}

AGG_INLINE int
max_push(struct agg *agg, const struct agg_value *value, int64_t time)
{
	(void)time;
	return minmax_push(agg, value, true);
}

static size_t
min_move(struct agg *agg, const struct agg_move *move)
{
	return agg_move_steps(agg, move, minmax_size, minmax_pop, min_push, minmax_result);
}

static size_t
max_move(struct agg *agg, const struct agg_move *move)
{
	return agg_move_steps(agg, move, minmax_size, minmax_pop, max_push, minmax_result);
}

const struct agg_kind agg_min_deque = {
	"min", AGG_INPUT_NUMBER, minmax_create, minmax_destroy, min_move, false, true
};

const struct agg_kind agg_max_deque = {
	"max", AGG_INPUT_NUMBER, minmax_create, minmax_destroy, max_move, false, true
};

#ifdef SWAG_TEST_COUNTERS
uint64_t
agg_minmax_comparisons(const struct agg *agg)
{
	return ((const struct minmax_window *)agg)->comparisons;
}
#endif
