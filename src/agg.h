/*
 * agg.h: the aggregates swag computes over a sliding window, behind one interface.
 *
 * Each aggregate is a kind (struct agg_kind): a name, what it reads, and a window it
 * makes, destroys and moves.  An instance (struct agg) holds one window, and the one
 * way to change it is move(): over a batch of records, each step evicts the oldest
 * values, takes one record's value (a missing one too, so that a row window of W
 * slots holds the last W records) and, when one is wanted, stores the result.  The
 * monoid aggregates (sum, avg, min, ...) run on the two-stack engine; an aggregate
 * that a specialised structure serves better brings its own window, with a comment
 * saying why.
 *
 * A new aggregate is one kind in one file: its window's create, destroy and move (move
 * made with agg_move_steps from its own evict, push and result), its registration in
 * agg.c, its tests, and its documentation.
 */
#ifndef SWAG_AGG_H
#define SWAG_AGG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What one record's field gives an aggregate. */
struct agg_value {
	bool has_text;		/* the field is present, not empty and not an --na text */
	bool has_number;	/* ... and it is a number, stored in number */
	double number;
	const char *text;	/* the field without surrounding blanks, when has_text */
	size_t text_len;
};

/* A result, as finalize() gives it. */
enum agg_result_kind {
	AGG_RESULT_NULL,	/* over no values, or fewer than the minimum count */
	AGG_RESULT_NUMBER,	/* a double, printed shortest or with -p */
	AGG_RESULT_COUNT,	/* an integer that -p does not touch */
	AGG_RESULT_TEXT		/* a field's text, printed as it appeared, valid until the
				   window's next move */
};

/*
 * A text result's first AGG_TEXT_READABLE bytes may be read whatever its length: the
 * aggregate keeps room after a shorter text, so that the output copies a short
 * text in one 16-byte move instead of a memcpy call of its length.
 */
#define AGG_TEXT_READABLE 16

struct agg_result {
	enum agg_result_kind kind;
	double number;
	uint64_t count;		/* with AGG_RESULT_COUNT */
	const char *text;	/* owned by the aggregate; valid until its next move */
	size_t text_len;
};

/* Settings that shape an aggregate's result. */
struct agg_params {
	uint64_t min_count;	/* -m: null below this many values (not for count) */
	double percentile;	/* pN: N / 100, from 0 to 1, */
	uint64_t percentile_num;	/* and exactly percentile_num / 10^percentile_scale */
	uint64_t hash_seed;	/* seeds hash tables against flooding; never changes a result */
	uint64_t window_rows;	/* the window's extent: ewma's span W (rows), */
	int64_t window_nanos;	/* or its half-life D (nanoseconds), the other 0 */
	unsigned hll_bits;	/* distinct: HyperLogLog precision P, 2^P registers */
	bool cumulative;	/* @all: the window never lets a value go, so the kind may
				   keep what its result needs of them instead of a slot each */
	uint8_t percentile_scale;	/* 2 to 18; 0: percentile alone (more decimals,
					   and tests' doubles) */
};

/*
 * The most values a row window holds, and so the slots its rings need at most
 * (ring_set_limit); 0 for a time or a cumulative window, whose size is not known.
 */
static inline uint64_t
agg_ring_limit(const struct agg_params *params)
{
	return params->cumulative || params->window_nanos != 0 ? 0 : params->window_rows;
}

/* Which fields an aggregate sees as values. */
enum agg_input {
	AGG_INPUT_NUMBER,	/* only numbers; other fields are missing (or bad input) */
	AGG_INPUT_TEXT		/* any non-empty field, identified by its text */
};

struct agg;

/*
 * A record of a batch, as a move names it (agg_move's index): a batch holds at most
 * AGG_INDEX_MAX records.
 */
typedef uint16_t agg_index;
#define AGG_INDEX_MAX ((size_t)UINT16_MAX + 1)

/*
 * One move of a window over records of a batch, in n steps.  Step j is about record
 * r = index[j] (index NULL: r = j).  The window first evicts its oldest values:
 * evict[j] of them (a time window), or, with evict NULL, the oldest one when it holds
 * rows values and a value is to come in (a row window).  Then it takes values[r], the
 * record's timestamp being times[r] (times NULL: the records have none); with values
 * NULL no step takes a value (results at a boundary, say).  Last, when results is not
 * NULL and want is NULL or want[r] is set, it stores its result in results[r].
 */
struct agg_move {
	size_t n;
	const agg_index *index;
	uint64_t rows;
	const uint32_t *evict;
	const struct agg_value *values;
	const int64_t *times;
	const unsigned char *want;
	struct agg_result *results;
};

struct agg_kind {
	const char *name;
	enum agg_input input;
	/* Makes an empty window; returns NULL when memory is short. */
	struct agg *(*create)(const struct agg_kind *kind, const struct agg_params *params);
	void (*destroy)(struct agg *agg);
	/*
	 * Moves the window as move says.  Returns move->n, or the step at which memory
	 * ran short: the results of the steps before it are stored, and the window is
	 * then fit only to be destroyed (swag ends the run).  A window never evicts more
	 * values than it holds.
	 */
	size_t (*move)(struct agg *agg, const struct agg_move *move);
	/*
	 * The window never lets a value go (ewma): a duration is not a window of
	 * records to evict but a half-life, so no timestamps are kept for it, and a
	 * key holding it matters for AGG_FORGET_HALFLIVES of them (agg_history_reach).
	 */
	bool keeps_history;
	/*
	 * Its result is most often the one of the key's record before, so that the
	 * pipeline keeps the text it printed last for it (number_memo): min's, max's
	 * and pN's, one of the window's values (or between two) that stays while
	 * others come and go; count's, the window's size once it is full;
	 * distinct's, an estimate that moves by steps.  Its results are all
	 * numbers or all counts (the memo tells them by their bits alone).  swag -w
	 * 1000 p99 over make bench's numbers repeats 97 % of its results, -w 100000
	 * distinct over its IPv4 strings 94 %.
	 */
	bool results_repeat;
};

/* Half-lives after which a history weighs 2^-64 of a new value and is forgotten. */
#define AGG_FORGET_HALFLIVES 64

/*
 * How long a history of half-life halflife (nanoseconds, > 0) matters: 64 of them, in
 * unsigned nanoseconds, as two timestamps may be more than INT64_MAX apart; UINT64_MAX
 * when that is longer than any two timestamps are apart.
 */
static inline uint64_t
agg_history_reach(int64_t halflife)
{
	return (uint64_t)halflife > UINT64_MAX / AGG_FORGET_HALFLIVES ? UINT64_MAX :
	    (uint64_t)halflife * AGG_FORGET_HALFLIVES;
}

/* Every aggregate starts with this header, so the table travels with the window. */
struct agg {
	const struct agg_kind *kind;
	struct agg_params params;
};

/* Forced inline: a kind's own steps, passed as constants, then inline into its loop. */
#define AGG_INLINE static inline __attribute__((always_inline))

/*
 * The size and pop of a window that holds no slot (a cumulative one, ewma's): no row
 * count fills it and nothing is evicted.  For agg_move_steps.
 */
AGG_INLINE uint64_t
agg_size_none(const struct agg *agg)
{
	(void)agg;
	return 0;
}

AGG_INLINE void
agg_pop_none(struct agg *agg)
{
	(void)agg;
}

/*
 * A kind's run: moves the window over the first steps of a move at once, each step as
 * agg_move_steps takes it, giving the same results.  Step i is about record r =
 * index[i] (index NULL: r = i); it evicts evict[i] values (evict NULL: the oldest one
 * when the window holds rows), pushes values[r] with its timestamp times[r] (times
 * NULL meaning 0), and stores the result in results[r].  Returns how many steps it
 * took, from 0 (the next step needs what only a single step does, such as growing
 * memory) to n.
 */
typedef size_t agg_run_fn(struct agg *agg, uint64_t rows, const agg_index *index,
    const uint32_t *evict, const struct agg_value *values, const int64_t *times,
    struct agg_result *results, size_t n);

/*
 * One loop of agg_move_steps for a move that takes a value and stores a result at every
 * step: indexed and evicting are constants, so that each of the four shapes (a row
 * window over every record of the batch or over one key's, a time window over either)
 * runs without the tests of the others, and with the kind's run before each single
 * step when run is not NULL.
 */
AGG_INLINE size_t
agg_move_loop(struct agg *agg, const struct agg_move *m, bool indexed, bool evicting,
    uint64_t (*size)(const struct agg *), void (*pop)(struct agg *),
    int (*push)(struct agg *, const struct agg_value *, int64_t),
    void (*result)(struct agg *, struct agg_result *), agg_run_fn *run)
{
	/* In locals: the results' stores would otherwise reload them every step. */
	const size_t n = m->n;
	const agg_index *index = m->index;
	const uint64_t rows = m->rows;
	const uint32_t *evict = m->evict;
	const struct agg_value *values = m->values;
	const int64_t *times = m->times;
	struct agg_result *results = m->results;
	size_t j;

	for (j = 0; j < n; j++) {
		size_t r;

		if (run != NULL && (j += indexed ?
		    run(agg, rows, &index[j], evicting ? &evict[j] : NULL, values, times,
		    results, n - j) :
		    run(agg, rows, NULL, evicting ? &evict[j] : NULL, &values[j],
		    times != NULL ? &times[j] : NULL, &results[j], n - j)) == n)
			break;
		r = indexed ? index[j] : j;
		if (evicting) {
			for (uint32_t e = evict[j]; e > 0; e--)
				pop(agg);
		} else if (size(agg) == rows) {
			pop(agg);	/* first: a window of W never needs a W+1st slot */
		}
		if (push(agg, &values[r], times != NULL ? times[r] : 0) != 0)
			return j;
		result(agg, &results[r]);
	}
	return j;
}

/*
 * The loop of every kind's move(), over the kind's own size, pop (evict the oldest),
 * push (a value and its record's timestamp, 0 when the move has none) and result
 * functions, which it passes as constants so that the compiler inlines them here.  A
 * move with every result wanted, the common one, runs in agg_move_loop's copy for its
 * shape (a row or a time window, over every record or one key's), without the tests
 * of the others, and there a kind with a run (run not NULL) moves as many steps at once
 * as it can before each single step: in a time window always, in a row window of at
 * least run_rows rows (in smaller ones the run would find nothing to do, and the loop
 * goes without it).  The general loop serves the rest (-s, a boundary, results alone).
 */
AGG_INLINE size_t
agg_move_steps_run(struct agg *agg, const struct agg_move *m,
    uint64_t (*size)(const struct agg *), void (*pop)(struct agg *),
    int (*push)(struct agg *, const struct agg_value *, int64_t),
    void (*result)(struct agg *, struct agg_result *), agg_run_fn *run,
    uint64_t run_rows)
{
	size_t j;

	if (m->want == NULL && m->values != NULL && m->results != NULL) {
		/* In smaller row windows the run would find nothing to do. */
		if (m->evict == NULL && m->index == NULL)
			return run != NULL && m->rows >= run_rows ?
			    agg_move_loop(agg, m, false, false, size, pop, push, result, run) :
			    agg_move_loop(agg, m, false, false, size, pop, push, result, NULL);
		if (m->evict == NULL)
			return run != NULL && m->rows >= run_rows ?
			    agg_move_loop(agg, m, true, false, size, pop, push, result, run) :
			    agg_move_loop(agg, m, true, false, size, pop, push, result, NULL);
		return m->index == NULL ?
		    agg_move_loop(agg, m, false, true, size, pop, push, result, run) :
		    agg_move_loop(agg, m, true, true, size, pop, push, result, run);
	}
	for (j = 0; j < m->n; j++) {
		size_t r = m->index != NULL ? m->index[j] : j;

		if (m->evict != NULL)
			for (uint32_t e = m->evict[j]; e > 0; e--)
				pop(agg);
		else if (m->values != NULL && size(agg) == m->rows)
			pop(agg);
		if (m->values != NULL &&
		    push(agg, &m->values[r], m->times != NULL ? m->times[r] : 0) != 0)
			return j;
		if (m->results != NULL && (m->want == NULL || m->want[r]))
			result(agg, &m->results[r]);
	}
	return j;
}

/* agg_move_steps_run for a kind without a run. */
AGG_INLINE size_t
agg_move_steps(struct agg *agg, const struct agg_move *m,
    uint64_t (*size)(const struct agg *), void (*pop)(struct agg *),
    int (*push)(struct agg *, const struct agg_value *, int64_t),
    void (*result)(struct agg *, struct agg_result *))
{
	return agg_move_steps_run(agg, m, size, pop, push, result, NULL, 0);
}

/*
 * The most decimals of a percentile's N, trailing zeros aside (p99.9990 is p99.999),
 * that agg_params holds exactly: N / 100 is then a fraction of two numbers up to
 * 10^18, which quantile_rank multiplies by a window's size exactly.
 */
#define AGG_PERCENTILE_DECIMALS 16

/*
 * Finds the aggregate called name (len bytes, not NUL-terminated, read without regard
 * to case: AVG, P99) and fills *params with what the name itself says (a percentile's
 * N).  Returns the kind, or NULL when no aggregate has that name.
 */
const struct agg_kind *agg_lookup(const char *name, size_t len, struct agg_params *params);

/*
 * True when name is shaped like an aggregate's: one of the names, or p followed by a
 * number, a sign and digits with at most one point (p99, p101, p-1: percentiles, right
 * or wrong).  swag(1)'s DESCRIPTION: any other argument is a file.
 */
bool agg_is_name(const char *name, size_t len);

/* The i-th aggregate name of the table, alphabetical, or NULL past its end. */
const char *agg_name(size_t i);

/*
 * The aggregate name nearest to name, when it is near enough to be a misspelling, or
 * NULL: the one aggregate whose name it begins, with three letters or more (dist);
 * else the nearest within one edit for names of up to four letters, two for longer
 * (a letter added, left out, changed, or two swapped); else the percentile it is with
 * one byte left out (p99x: p99), whose text the next call may overwrite.
 */
const char *agg_suggest(const char *name, size_t len);

/* The kinds of agg_monoid.c, on the two-stack engine. */
extern const struct agg_kind agg_sum, agg_avg, agg_count, agg_var, agg_stddev;

/*
 * min and max have two engines: agg_minmax.c's monotonic deque, which swag uses (agg_min
 * and agg_max name it), and the two-stack of agg_monoid.c, kept under its own names for
 * the tests that check one against the other and for the benchmark that times them.
 */
extern const struct agg_kind agg_min_deque, agg_max_deque, agg_min_twostack,
    agg_max_twostack;
#define agg_min agg_min_deque
#define agg_max agg_max_deque
#ifdef SWAG_TEST_COUNTERS
/* The comparisons a deque's pushes have made (src/counters.h). */
uint64_t agg_minmax_comparisons(const struct agg *agg);
#endif

/* agg_ends.c's window ends, monoids on the two-stack: rate reads the timestamps. */
extern const struct agg_kind agg_first, agg_last, agg_delta, agg_rate;

/* agg_ewma.c: the exponentially weighted moving average, which never lets a value go. */
extern const struct agg_kind agg_ewma;

#endif /* SWAG_AGG_H */
