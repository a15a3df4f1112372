/*
 * agg.h: the aggregates swag computes over a sliding window, behind one interface.
 *
 * Each aggregate is a table of functions (struct agg_kind).  An instance (struct agg)
 * holds one window: the caller pushes one value per record (a missing one too, so a
 * row window of W slots holds the last W records), pops the oldest when the window
 * is full, and asks for the result.  The monoid aggregates (sum, avg, min, ...) run
 * on the two-stack engine; an aggregate that a specialised structure serves better
 * brings its own window, with a comment saying why.
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
	AGG_RESULT_TEXT		/* a field's text, printed as it appeared */
};

struct agg_result {
	enum agg_result_kind kind;
	double number;
	uint64_t count;
	const char *text;	/* owned by the aggregate; valid until its next push or pop */
	size_t text_len;
};

/* Settings that shape an aggregate's result. */
struct agg_params {
	uint64_t min_count;	/* -m: null below this many values (not for count) */
	double percentile;	/* pN: N / 100, from 0 to 1 */
	unsigned hll_bits;	/* distinct: HyperLogLog precision P, 2^P registers */
	uint64_t hash_seed;	/* seeds hash tables against flooding; never changes a result */
};

/* Which fields an aggregate sees as values. */
enum agg_input {
	AGG_INPUT_NUMBER,	/* only numbers; other fields are missing (or bad input) */
	AGG_INPUT_TEXT		/* any non-empty field, identified by its text */
};

struct agg;

struct agg_kind {
	const char *name;
	enum agg_input input;
	/* Makes an empty window; returns NULL when memory is short. */
	struct agg *(*create)(const struct agg_kind *kind, const struct agg_params *params);
	void (*destroy)(struct agg *agg);
	/* Appends one record's value (maybe missing); returns 0, or -1 when memory is short. */
	int (*push)(struct agg *agg, const struct agg_value *value);
	/* Removes the oldest record's value; the window must not be empty. */
	void (*pop)(struct agg *agg);
	/* Stores the aggregate of the window in *result. */
	void (*result)(struct agg *agg, struct agg_result *result);
	/* The number of records (slots) in the window. */
	uint64_t (*size)(const struct agg *agg);
	/*
	 * Optional (NULL: agg_slide() calls size, pop, push and result instead): moves a
	 * window of at most rows records one record on, popping the oldest when it holds
	 * rows, then pushes value and, when result is not NULL, stores the window's result
	 * there.  Returns 0, or -1 when memory is short.  It is the per-record path of every
	 * row window: one indirect call instead of four.
	 */
	int (*slide)(struct agg *agg, uint64_t rows, const struct agg_value *value,
	    struct agg_result *result);
	/*
	 * Optional (NULL: agg_slide_many() calls slide() for each record): slide() over n
	 * records in turn, values[k] being record k's value and results[k] its result.
	 * Returns n, or the k at which memory was short (the window then holds the records
	 * before k).  One call a batch, with slide()'s work inlined in its loop.
	 */
	size_t (*slide_many)(struct agg *agg, uint64_t rows, const struct agg_value *values,
	    size_t n, struct agg_result *results);
	/*
	 * Whether results may be AGG_RESULT_TEXT, whose text the next push or pop may
	 * take away: a caller must then write each result before the window moves on.
	 */
	bool text_results;
};

/* Every aggregate starts with this header, so the table travels with the window. */
struct agg {
	const struct agg_kind *kind;
	struct agg_params params;
};

/*
 * Moves a window of at most rows records one record on by value, storing its result in
 * *result when result is not NULL: the kind's slide(), or its size, pop, push and
 * result when it has none.  Returns 0, or -1 when memory is short.
 */
static inline int
agg_slide(struct agg *agg, uint64_t rows, const struct agg_value *value,
    struct agg_result *result)
{
	const struct agg_kind *kind = agg->kind;

	if (kind->slide != NULL)
		return kind->slide(agg, rows, value, result);
	if (kind->size(agg) == rows)
		kind->pop(agg);	/* pop first: a full window of W slots never needs a W+1st */
	if (kind->push(agg, value) != 0)
		return -1;
	if (result != NULL)
		kind->result(agg, result);
	return 0;
}

/*
 * Defines NAME, a slide() made of a kind's own size, pop, push and result functions:
 * agg_slide's steps, but with direct calls to static functions of the same file, which
 * the compiler may inline, instead of four calls through the table.
 */
#define AGG_SLIDE_FROM_PARTS(NAME, SIZE, POP, PUSH, RESULT)				\
	static int								\
	NAME(struct agg *agg, uint64_t rows, const struct agg_value *value,	\
	    struct agg_result *result)						\
	{									\
		if (SIZE(agg) == rows)						\
			POP(agg);						\
		if (PUSH(agg, value) != 0)					\
			return -1;						\
		if (result != NULL)						\
			RESULT(agg, result);					\
		return 0;							\
	}

/*
 * agg_slide as a function, for a caller that keeps a slide() pointer per window and
 * needs one for the kinds without their own.
 */
int agg_slide_by_parts(struct agg *agg, uint64_t rows, const struct agg_value *value,
    struct agg_result *result);

/*
 * Finds the aggregate called name (len bytes, not NUL-terminated) and fills *params
 * with what the name itself says (a percentile's N).  Returns the kind, or NULL when
 * no aggregate has that name.
 */
const struct agg_kind *agg_lookup(const char *name, size_t len, struct agg_params *params);

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

#endif /* SWAG_AGG_H */
