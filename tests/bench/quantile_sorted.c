/*
 * quantile_sorted.c: the sorted-array percentile window (see quantile_sorted.h), the
 * benchmark's baseline for agg_quantile.c's heap.
 *
 * The window's numbers are in ascending order, so any rank is one load away; a push
 * is a binary search and a memmove, a pop the same for the oldest value, which the ring
 * of window slots stores.  Equal values are interchangeable, so a pop removes any one
 * equal to the leaving value (with ±0 equal, the survivor may be the other zero, which
 * the man page allows).  The removal of a popped number waits for the next operation:
 * a full row window pops and then pushes on every record, and the push can then put
 * the new value where the old one was, with one memmove instead of two.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "agg_quantile.h"
#include "mem.h"
#include "quantile_sorted.h"
#include "ring.h"

/* The first values block holds this many: a window over ten rows fits. */
#define FIRST_ORDER_CAP 8

/*
 * Returns a copy of array (count elements of element_size bytes, room for *cap) with
 * room for twice as many, or for first_cap when *cap is 0, and updates *cap.  Returns
 * NULL when memory is short; array and *cap are then untouched and still valid.
 */
static void *
grow_array(void *array, size_t *cap, size_t element_size, size_t first_cap)
{
	size_t new_cap = *cap == 0 ? first_cap : *cap * 2;
	size_t bytes;
	void *grown;

	if (new_cap < *cap || mem_array_size(new_cap, element_size, &bytes) != 0)
		return NULL;
	grown = mem_realloc(array, bytes);
	if (grown != NULL)
		*cap = new_cap;
	return grown;
}

/* Ring words of the sorted window: a number's bits, or one of these two NaNs. */
#define WORD_MISSING UINT64_C(0x7ff8dead00000001)
#define WORD_NAN UINT64_C(0x7ff8dead00000002)

struct sorted_window {
	struct agg header;
	struct ring ring;	/* a word per slot: a number's bits, or WORD_* */
	uint64_t nan_count;
	double *values;		/* the window's numbers but NaN, ascending */
	size_t count;
	size_t cap;
	/* A popped value still in values, waiting for the next push (see sorted_pop). */
	bool pending;
	double pending_value;
};

static inline uint64_t
double_bits(double x)
{
	uint64_t bits;

	memcpy(&bits, &x, sizeof(bits));
	return bits;
}

static inline double
bits_double(uint64_t bits)
{
	double x;

	memcpy(&x, &bits, sizeof(x));
	return x;
}

/* The index of the first value of the sorted window not below x. */
static inline size_t
sorted_lower_bound(const struct sorted_window *w, double x)
{
	size_t low = 0, high = w->count;

	while (low < high) {
		size_t middle = low + (high - low) / 2;

		if (w->values[middle] < x)
			low = middle + 1;
		else
			high = middle;
	}
	return low;
}

/* Makes an empty sorted window; returns NULL when memory is short. */
static struct agg *
sorted_create(const struct agg_kind *kind, const struct agg_params *params)
{
	struct sorted_window *w = mem_realloc(NULL, sizeof(*w));

	if (w == NULL)
		return NULL;
	memset(w, 0, sizeof(*w));
	w->header.kind = kind;
	w->header.params = *params;
	w->header.params.percentile = quantile_clamp(params->percentile);
	return &w->header;
}

/* Frees the window and everything it owns. */
static void
sorted_destroy(struct agg *agg)
{
	struct sorted_window *w = (struct sorted_window *)agg;

	ring_free(&w->ring);
	mem_free(w->values);
	mem_free(w);
}

/* Finishes a deferred pop, if one waits, so that values holds the window exactly. */
static inline void
sorted_settle(struct sorted_window *w)
{
	size_t index;

	if (!w->pending)
		return;
	w->pending = false;
	index = sorted_lower_bound(w, w->pending_value);
	w->count--;
	memmove(&w->values[index], &w->values[index + 1], (w->count - index) * sizeof(double));
}

/*
 * Puts x in place of the waiting popped value: only the values between the old
 * value's place and the new one's move, one memmove instead of two whole-tail ones.
 */
static void
sorted_replace_pending(struct sorted_window *w, double x)
{
	size_t old_index = sorted_lower_bound(w, w->pending_value);
	size_t new_index = sorted_lower_bound(w, x);

	w->pending = false;
	if (new_index <= old_index) {
		memmove(&w->values[new_index + 1], &w->values[new_index],
		    (old_index - new_index) * sizeof(double));
		w->values[new_index] = x;
	} else {
		/* Past the old value, x goes just before the first value not below it. */
		memmove(&w->values[old_index], &w->values[old_index + 1],
		    (new_index - 1 - old_index) * sizeof(double));
		w->values[new_index - 1] = x;
	}
}

/*
 * Appends a record's value as the newest slot.  Returns 0, or -1 when memory is
 * short, in which case the window is unchanged.
 */
static int
sorted_push(struct agg *agg, const struct agg_value *value, int64_t time)
{
	struct sorted_window *w = (struct sorted_window *)agg;
	uint64_t *word;
	size_t index;

	(void)time;
	if (ring_reserve(&w->ring, sizeof(uint64_t)) != 0)
		return -1;
	if (value->has_number && !isnan(value->number) && !w->pending && w->count == w->cap) {
		double *values = grow_array(w->values, &w->cap, sizeof(*values),
		    FIRST_ORDER_CAP);

		if (values == NULL)
			return -1;
		w->values = values;
	}
	word = RING_AT(&w->ring, uint64_t, w->ring.tail++);
	if (!value->has_number) {
		*word = WORD_MISSING;
		return 0;
	}
	if (isnan(value->number)) {
		*word = WORD_NAN;
		w->nan_count++;
		return 0;
	}
	*word = double_bits(value->number);
	if (w->pending) {
		sorted_replace_pending(w, value->number);
		return 0;
	}
	index = sorted_lower_bound(w, value->number);
	memmove(&w->values[index + 1], &w->values[index], (w->count - index) * sizeof(double));
	w->values[index] = value->number;
	w->count++;
	return 0;
}

/*
 * Removes the oldest slot and its value, if any.  The window must not be empty.  The
 * removal of a number waits for the next operation, so that a full window's pop and
 * push (one step of a move, or two moves) become one replacement.
 */
static void
sorted_pop(struct agg *agg)
{
	struct sorted_window *w = (struct sorted_window *)agg;
	uint64_t word;

	sorted_settle(w);
	word = *RING_AT(&w->ring, uint64_t, w->ring.head++);
	if (word == WORD_MISSING)
		return;
	if (word == WORD_NAN) {
		w->nan_count--;
		return;
	}
	w->pending = true;
	w->pending_value = bits_double(word);
}

/* Percentile q from the sorted values; the window holds a value. */
static double
sorted_value(struct sorted_window *w, double q)
{
	double fraction;
	uint64_t lo;

	sorted_settle(w);
	if (w->nan_count != 0)
		return NAN;
	lo = quantile_rank(w->count, &(struct agg_params){ .percentile = q }, &fraction);
	if (fraction == 0.0)
		return w->values[lo];
	return quantile_interpolate(w->values[lo], w->values[lo + 1], fraction);
}

void
quantile_sorted_result(struct agg *agg, double q, struct agg_result *result)
{
	struct sorted_window *w = (struct sorted_window *)agg;
	uint64_t n;

	sorted_settle(w);
	n = w->count + w->nan_count;
	if (n == 0 || n < agg->params.min_count) {
		result->kind = AGG_RESULT_NULL;
		return;
	}
	result->kind = AGG_RESULT_NUMBER;
	result->number = sorted_value(w, quantile_clamp(q));
}

/* Stores the configured percentile of the window in *result. */
static void
sorted_result(struct agg *agg, struct agg_result *result)
{
	quantile_sorted_result(agg, agg->params.percentile, result);
}

/* The number of slots in the window, missing values included. */
static uint64_t
sorted_size(const struct agg *agg)
{
	return ring_count(&((const struct sorted_window *)agg)->ring);
}

/*
 * A cost model fitted to the benchmark: a heap step costs about 27 + 0.3·log2(w) ns
 * (its median's, the dearest percentile's), a sorted-array step about 50 + w/10 ns
 * (binary searches and a memmove of a third of the window on average; from about
 * w = 10,000 a memmove moves faster than that, but sharing has long stopped paying).
 * At w = 10 two percentiles already pay for sharing, at w = 1,000 six.
 */
bool
quantile_share_pays(uint64_t window_slots, size_t k)
{
	double log2_w = window_slots > 1 ? log2((double)window_slots) : 0;
	double heap_ns = 27 + 0.3 * log2_w, sorted_ns = 50 + (double)window_slots / 10;

	return (double)k * heap_ns > sorted_ns;
}

/* The window moved as agg.h says, on agg_move_steps with the functions above. */
static size_t
sorted_move(struct agg *agg, const struct agg_move *move)
{
	return agg_move_steps(agg, move, sorted_size, sorted_pop, sorted_push, sorted_result);
}

const struct agg_kind quantile_sorted = {
	.name = "pN",
	.input = AGG_INPUT_NUMBER,
	.create = sorted_create,
	.destroy = sorted_destroy,
	.move = sorted_move,
};
