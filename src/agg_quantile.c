/*
 * agg_quantile.c: median and the percentiles pN over a sliding window.
 *
 * An order statistic has no cheap combine, so the two-stack engine cannot serve it;
 * each window keeps its values in an order structure of its own.  Two were built and
 * measured (tests/bench/bench_quantile.c: pop + push + result per step on uniform
 * random doubles, gcc 12 -O2, the 2-core test machine while other benchmarks ran, so
 * the best of several runs; instructions per step from callgrind, which noise does
 * not move, include about 30 of the driver's):
 *
 *                                     ns per step              instructions per step
 *     window                       10    1,000  100,000       10    1,000  100,000
 *     median, 8-ary double heap    36      64      91        238     398      552
 *     median, sorted array         55     163   5,360        271     658  143,428
 *     p99, 8-ary double heap       27      40      29        213     216      221
 *     p99, sorted array            66     185   5,325
 *     p50+p90+p99, three heaps     69     119     174
 *     p50+p90+p99, one sorted arr. 64     171   5,265
 *
 * The heap wins at every window size, so agg_quantile is the heap alone: no switch
 * by size, which would also need a size the window does not know (a time window's
 * varies).  Its cost grows as log w, and only for the percentiles near the middle:
 * for p99 the lower heap takes nearly every value, a new value mostly lands below
 * its top, and sifts stop at once.  The sorted array moves a third of the window per
 * step, which shows from w = 1,000.  It stays for one thing the heap cannot do:
 * answer any percentile, so several percentiles of one column can share it when the
 * window is small (quantile_share_pays(); at w = 10 two or three percentiles break
 * even, at w = 1,000 about four).
 *
 * Two choices in the heap earned their place in the same benchmark: arity 8 (median
 * at w = 1,000: 61 ns against 71 for arity 2; at w = 100,000: 94 against 122 for
 * arity 2 or 4 and 101 for 16), and putting a pop off until the next push so that a
 * full window's pop + push become one replacement in place, as bottleneck's
 * move_median does (median at w = 1,000: 104-109 ns before, 64 after).
 *
 * Both share the same ring of window slots, one 64-bit word per slot, oldest first:
 * a missing value keeps its slot (a row window of W slots holds the last W records),
 * and popping reads the oldest word to learn what leaves.  NaN never enters an order
 * structure: the window only counts its NaNs, and while that count is not zero the
 * result is NaN.  Every array grows by doubling with the elements actually held, so a
 * window of 10^9 rows over 10 records holds a few hundred bytes; memory is
 * 8 bytes of ring per slot plus 16 (heap) or 8 (sorted array) per value, at most
 * twice that just after a doubling.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "agg_quantile.h"
#include "mem.h"

/* The first blocks hold this many slots and values: a window over ten rows fits. */
#define FIRST_RING_CAP 16
#define FIRST_ORDER_CAP 8

/*
 * The rank and interpolation fraction of percentile q over m sorted numbers, computed
 * exactly as the contract writes it: h = (m - 1)·q, lo = floor(h), fraction = h - lo.
 * The heap sizes its lower part from lo, so it must be this one function.
 */
static inline uint64_t
quantile_rank(uint64_t m, double q, double *fraction)
{
	double h = (double)(m - 1) * q;
	/* floor(h), since 0 <= h < 2^64; a conversion, where floor() is a libm call. */
	uint64_t lo = (uint64_t)h;

	*fraction = h - (double)lo;
	return lo;
}

/*
 * The contract's interpolation between x[lo] = lower and x[lo+1] = upper.  Equal
 * neighbours give lower without arithmetic, so two +inf give +inf and not
 * inf - inf = NaN; otherwise IEEE arithmetic decides (-inf and +inf give NaN).
 */
static inline double
quantile_interpolate(double lower, double upper, double fraction)
{
	if (lower == upper)
		return lower;
	return lower + fraction * (upper - lower);
}

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

/*
 * The ring of window slots.  Positions only grow; the slot of position p is
 * words[p & (cap - 1)], so an element keeps its position for life and the heap can
 * name a slot by it across a growth of the ring.
 */
struct quantile_ring {
	uint64_t *words;
	size_t cap;		/* 0 or a power of two */
	uint64_t head;		/* the oldest slot's position */
	uint64_t tail;		/* the position the next push takes */
};

static inline uint64_t *
ring_word(const struct quantile_ring *ring, uint64_t position)
{
	return &ring->words[position & (ring->cap - 1)];
}

/*
 * Doubles the ring (or makes the first one).  Returns 0, or -1 when memory is short
 * (the ring is then unchanged).  The slots are copied one by one because a position
 * moves from p mod cap to p mod 2·cap; that happens log(w) times in a window's life.
 */
static int
ring_grow(struct quantile_ring *ring)
{
	size_t new_cap = ring->cap == 0 ? FIRST_RING_CAP : ring->cap * 2, bytes;
	uint64_t *words;

	if (new_cap < ring->cap || mem_array_size(new_cap, sizeof(*words), &bytes) != 0)
		return -1;
	words = mem_realloc(NULL, bytes);
	if (words == NULL)
		return -1;
	for (uint64_t position = ring->head; position != ring->tail; position++)
		words[position & (new_cap - 1)] = *ring_word(ring, position);
	mem_free(ring->words);
	ring->words = words;
	ring->cap = new_cap;
	return 0;
}

/* Makes sure the ring has room for one more slot; returns 0, or -1 as ring_grow. */
static inline int
ring_reserve(struct quantile_ring *ring)
{
	if (ring->tail - ring->head < ring->cap)
		return 0;
	return ring_grow(ring);
}

/*
 * (a) The indexed double heap, after bottleneck's move_median.  With the m numbers
 * of the window sorted as x[0..m-1] and lo the rank of the configured q:
 *
 *     lower: a max-heap of x[0..lo]      its top is x[lo]
 *     upper: a min-heap of x[lo+1..m-1]  its top is x[lo+1]
 *
 * Every value of lower is <= every value of upper.  A push inserts into the heap
 * whose range the value falls in, a pop removes the oldest value from wherever it
 * sits, and then at most a value or two crosses between the tops to give lower its
 * lo + 1 values again, since lo moves by at most one when m does.  The heaps are
 * 8-ary: shallower than binary ones, and a node's children share a cache line or two,
 * so a step touches fewer lines.  Each entry carries its slot's ring position, and
 * that slot's ring word holds the entry's place (heap and index), kept up to date on
 * every move, so a pop finds the oldest value without a search.
 */
#ifndef HEAP_ARITY
#define HEAP_ARITY 8	/* the benchmark compares others with -DHEAP_ARITY=n */
#endif

/* Ring words of the heap window: a place in a heap, or one of these two. */
#define SLOT_MISSING UINT64_MAX
#define SLOT_NAN (UINT64_MAX - 1)
#define PLACE(index, is_upper) (((uint64_t)(index) << 1) | (uint64_t)(is_upper))

struct heap_entry {
	double value;
	uint64_t position;	/* the ring position of the value's slot */
};

struct quantile_heap {
	struct heap_entry *entries;
	size_t count;
	size_t cap;
};

struct heap_window {
	struct agg header;
	struct quantile_ring ring;
	uint64_t nan_count;
	struct quantile_heap lower;	/* max-heap of x[0..lo] */
	struct quantile_heap upper;	/* min-heap of x[lo+1..m-1] */
	/*
	 * A popped value whose removal waits for the next push (see heap_pop): it still
	 * sits in a heap at pending_place, and counts in neither the window nor m.
	 */
	bool pending;
	uint64_t pending_place;
};

/* True when a belongs nearer the top than b: larger in lower, smaller in upper. */
static inline bool
heap_above(bool is_upper, double a, double b)
{
	return is_upper ? a < b : a > b;
}

/* Puts entry at index of the heap and records that place in its slot's ring word. */
static inline void
heap_place(struct heap_window *w, struct quantile_heap *heap, bool is_upper, size_t index,
    struct heap_entry entry)
{
	heap->entries[index] = entry;
	*ring_word(&w->ring, entry.position) = PLACE(index, is_upper);
}

/* Moves entry from the hole at index towards the top to where it belongs. */
static inline void
heap_sift_up(struct heap_window *w, struct quantile_heap *heap, bool is_upper, size_t index,
    struct heap_entry entry)
{
	while (index > 0) {
		size_t parent = (index - 1) / HEAP_ARITY;

		if (!heap_above(is_upper, entry.value, heap->entries[parent].value))
			break;
		heap_place(w, heap, is_upper, index, heap->entries[parent]);
		index = parent;
	}
	heap_place(w, heap, is_upper, index, entry);
}

/* Moves entry from the hole at index towards the leaves to where it belongs. */
static inline void
heap_sift_down(struct heap_window *w, struct quantile_heap *heap, bool is_upper,
    size_t index, struct heap_entry entry)
{
	for (;;) {
		size_t first = index * HEAP_ARITY + 1, end, best;

		if (first >= heap->count)
			break;
		end = heap->count - first < HEAP_ARITY ? heap->count : first + HEAP_ARITY;
		best = first;
		for (size_t child = first + 1; child < end; child++)
			if (heap_above(is_upper, heap->entries[child].value,
			    heap->entries[best].value))
				best = child;
		if (!heap_above(is_upper, heap->entries[best].value, entry.value))
			break;
		heap_place(w, heap, is_upper, index, heap->entries[best]);
		index = best;
	}
	heap_place(w, heap, is_upper, index, entry);
}

/* Adds entry to the heap, which must have room for it. */
static inline void
heap_insert(struct heap_window *w, struct quantile_heap *heap, bool is_upper,
    struct heap_entry entry)
{
	heap_sift_up(w, heap, is_upper, heap->count++, entry);
}

/* Removes the entry at index of the heap and returns it. */
static inline struct heap_entry
heap_remove(struct heap_window *w, struct quantile_heap *heap, bool is_upper, size_t index)
{
	struct heap_entry removed = heap->entries[index], last;

	last = heap->entries[--heap->count];
	if (index == heap->count)
		return removed;
	if (index > 0 && heap_above(is_upper, last.value,
	    heap->entries[(index - 1) / HEAP_ARITY].value))
		heap_sift_up(w, heap, is_upper, index, last);
	else
		heap_sift_down(w, heap, is_upper, index, last);
	return removed;
}

/* The number of values lower must hold when the heaps hold m: lo + 1, or 0. */
static inline size_t
heap_lower_target(const struct heap_window *w, uint64_t m)
{
	double fraction;

	if (m == 0)
		return 0;
	return (size_t)quantile_rank(m, w->header.params.percentile, &fraction) + 1;
}

/*
 * Gives lower target values, the smallest, by moving tops across: lower's top is the
 * largest of lower, so it is the one to give up, and upper's top the one to take.
 * push and pop need this only in freak cases (a percentile so close to 1 that
 * rounding moves lo by two when m moves by one); it is their safety net.
 */
static void
heap_rebalance(struct heap_window *w, size_t target)
{
	while (w->lower.count > target)
		heap_insert(w, &w->upper, true, heap_remove(w, &w->lower, false, 0));
	while (w->lower.count < target)
		heap_insert(w, &w->lower, false, heap_remove(w, &w->upper, true, 0));
}

/*
 * Makes sure each heap has room for one more entry, which is all one push needs:
 * the new value lands in one heap and at most one value crosses.  Returns 0, or -1
 * when memory is short (the heaps keep what they held).
 */
static int
heap_reserve(struct quantile_heap *heap)
{
	struct heap_entry *entries;

	if (heap->count < heap->cap)
		return 0;
	entries = grow_array(heap->entries, &heap->cap, sizeof(*entries), FIRST_ORDER_CAP);
	if (entries == NULL)
		return -1;
	heap->entries = entries;
	return 0;
}

/* Clamps a percentile to [0, 1]; a NaN one becomes the median rather than poison ranks. */
static double
clamp_percentile(double q)
{
	if (!(q >= 0.0))
		return isnan(q) ? 0.5 : 0.0;
	return q > 1.0 ? 1.0 : q;
}

/*
 * Makes an empty heap window for params->percentile, owning no memory but itself.
 * Returns NULL when memory is short.
 */
static struct agg *
heap_create(const struct agg_kind *kind, const struct agg_params *params)
{
	struct heap_window *w = mem_realloc(NULL, sizeof(*w));

	if (w == NULL)
		return NULL;
	memset(w, 0, sizeof(*w));
	w->header.kind = kind;
	w->header.params = *params;
	w->header.params.percentile = clamp_percentile(params->percentile);
	return &w->header;
}

/* Frees the window and everything it owns. */
static void
heap_destroy(struct agg *agg)
{
	struct heap_window *w = (struct heap_window *)agg;

	mem_free(w->ring.words);
	mem_free(w->lower.entries);
	mem_free(w->upper.entries);
	mem_free(w);
}

/*
 * Removes from the heaps the value at place (a ring word naming a heap and an index),
 * keeping lower at its lo + 1 values for the smaller window.
 */
static void
heap_remove_place(struct heap_window *w, uint64_t place)
{
	size_t target = heap_lower_target(w, w->lower.count + w->upper.count - 1);
	size_t index = (size_t)(place >> 1);

	/*
	 * When the value leaves one heap and a top must cross to the other, the top
	 * fills the hole the value leaves instead of the last entry, saving a sift.  It
	 * rises from there, since it is above every entry of its new heap.
	 */
	if (target + 1 < w->lower.count || target > w->lower.count) {
		if (place & 1)
			heap_remove(w, &w->upper, true, index);
		else
			heap_remove(w, &w->lower, false, index);
		heap_rebalance(w, target);
	} else if (place & 1) {
		if (w->lower.count > target)
			heap_sift_up(w, &w->upper, true, index,
			    heap_remove(w, &w->lower, false, 0));
		else
			heap_remove(w, &w->upper, true, index);
	} else {
		if (w->lower.count == target && w->upper.count > 0)
			heap_sift_up(w, &w->lower, false, index,
			    heap_remove(w, &w->upper, true, 0));
		else
			heap_remove(w, &w->lower, false, index);
	}
}

/* Finishes a deferred pop, if one waits, so that the heaps hold the window exactly. */
static inline void
heap_settle(struct heap_window *w)
{
	if (w->pending) {
		w->pending = false;
		heap_remove_place(w, w->pending_place);
	}
}

/*
 * Puts entry in place of the waiting popped value (bottleneck's update step): m does
 * not change, so lower keeps its size and one sift in each heap at most restores
 * order, where a removal and an insertion would cost up to four.
 */
static void
heap_replace_pending(struct heap_window *w, struct heap_entry entry)
{
	size_t index = (size_t)(w->pending_place >> 1);
	struct heap_entry top;

	w->pending = false;
	if (w->pending_place & 1) {
		if (w->lower.count > 0 && entry.value < w->lower.entries[0].value) {
			/* entry belongs in lower: it takes lower's top, which fills the hole. */
			top = w->lower.entries[0];
			heap_sift_down(w, &w->lower, false, 0, entry);
			heap_sift_up(w, &w->upper, true, index, top);
		} else if (index > 0 && entry.value < w->upper.entries[(index - 1) /
		    HEAP_ARITY].value) {
			heap_sift_up(w, &w->upper, true, index, entry);
		} else {
			heap_sift_down(w, &w->upper, true, index, entry);
		}
	} else {
		if (w->upper.count > 0 && entry.value > w->upper.entries[0].value) {
			top = w->upper.entries[0];
			heap_sift_down(w, &w->upper, true, 0, entry);
			heap_sift_up(w, &w->lower, false, index, top);
		} else if (index > 0 && entry.value > w->lower.entries[(index - 1) /
		    HEAP_ARITY].value) {
			heap_sift_up(w, &w->lower, false, index, entry);
		} else {
			heap_sift_down(w, &w->lower, false, index, entry);
		}
	}
}

/*
 * Appends a record's value as the newest slot.  Returns 0, or -1 when memory is
 * short, in which case the window is unchanged (all memory is reserved first).
 */
static int
heap_push(struct agg *agg, const struct agg_value *value)
{
	struct heap_window *w = (struct heap_window *)agg;
	uint64_t position;
	struct heap_entry entry;
	size_t target;

	if (ring_reserve(&w->ring) != 0)
		return -1;
	position = w->ring.tail++;
	if (!value->has_number) {
		*ring_word(&w->ring, position) = SLOT_MISSING;
		return 0;
	}
	if (isnan(value->number)) {
		*ring_word(&w->ring, position) = SLOT_NAN;
		w->nan_count++;
		return 0;
	}
	entry.value = value->number;
	entry.position = position;
	if (w->pending) {
		heap_replace_pending(w, entry);
		return 0;
	}
	if (heap_reserve(&w->lower) != 0 || heap_reserve(&w->upper) != 0) {
		w->ring.tail--;
		return -1;
	}
	/*
	 * Put the value straight where it ends up, so that a step costs two sifts at
	 * most: when lower keeps its size and the value belongs in it, the value takes
	 * lower's top, which moves to upper; the other way round likewise.
	 */
	target = heap_lower_target(w, w->lower.count + w->upper.count + 1);
	if (target != w->lower.count && target != w->lower.count + 1) {
		heap_insert(w, &w->lower, false, entry);
		heap_rebalance(w, target);
	} else if (target == w->lower.count) {
		if (w->lower.count > 0 && entry.value < w->lower.entries[0].value) {
			struct heap_entry top = w->lower.entries[0];

			heap_sift_down(w, &w->lower, false, 0, entry);
			entry = top;
		}
		heap_insert(w, &w->upper, true, entry);
	} else {
		if (w->upper.count > 0 && entry.value > w->upper.entries[0].value) {
			struct heap_entry top = w->upper.entries[0];

			heap_sift_down(w, &w->upper, true, 0, entry);
			entry = top;
		}
		heap_insert(w, &w->lower, false, entry);
	}
	return 0;
}

/*
 * Removes the oldest slot and its value, if any.  The window must not be empty.
 *
 * The removal of a number waits for the next operation: a full row window pops and
 * then pushes on every record, and the push can then put the new value where the old
 * one was, which halves the cost of a step.  Any other operation settles it first.
 */
static void
heap_pop(struct agg *agg)
{
	struct heap_window *w = (struct heap_window *)agg;
	uint64_t word;

	heap_settle(w);
	word = *ring_word(&w->ring, w->ring.head++);
	if (word == SLOT_MISSING)
		return;
	if (word == SLOT_NAN) {
		w->nan_count--;
		return;
	}
	w->pending = true;
	w->pending_place = word;
}

/* The configured percentile from the tops; the window holds a value. */
static double
heap_value(struct heap_window *w)
{
	double fraction;

	heap_settle(w);
	if (w->nan_count != 0)
		return NAN;
	quantile_rank(w->lower.count + w->upper.count, w->header.params.percentile, &fraction);
	if (fraction == 0.0)
		return w->lower.entries[0].value;
	return quantile_interpolate(w->lower.entries[0].value, w->upper.entries[0].value,
	    fraction);
}

/*
 * (b) The sorted array: the window's numbers in ascending order, so any rank is one
 * load away; a push is a binary search and a memmove, a pop the same for the oldest
 * value, which the ring stores.  Equal values are interchangeable, so a pop removes
 * any one equal to the leaving value (with ±0 equal, the survivor may be the other
 * zero, which the contract allows).
 */

/* Ring words of the sorted window: a number's bits, or one of these two NaNs. */
#define WORD_MISSING UINT64_C(0x7ff8dead00000001)
#define WORD_NAN UINT64_C(0x7ff8dead00000002)

struct sorted_window {
	struct agg header;
	struct quantile_ring ring;
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
	w->header.params.percentile = clamp_percentile(params->percentile);
	return &w->header;
}

/* Frees the window and everything it owns. */
static void
sorted_destroy(struct agg *agg)
{
	struct sorted_window *w = (struct sorted_window *)agg;

	mem_free(w->ring.words);
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
sorted_push(struct agg *agg, const struct agg_value *value)
{
	struct sorted_window *w = (struct sorted_window *)agg;
	uint64_t *word;
	size_t index;

	if (ring_reserve(&w->ring) != 0)
		return -1;
	if (value->has_number && !isnan(value->number) && !w->pending && w->count == w->cap) {
		double *values = grow_array(w->values, &w->cap, sizeof(*values),
		    FIRST_ORDER_CAP);

		if (values == NULL)
			return -1;
		w->values = values;
	}
	word = ring_word(&w->ring, w->ring.tail++);
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
 * Removes the oldest slot and its value, if any.  The window must not be empty.  As
 * in heap_pop, the removal of a number waits for the next operation, so that a full
 * window's pop and push become one replacement.
 */
static void
sorted_pop(struct agg *agg)
{
	struct sorted_window *w = (struct sorted_window *)agg;
	uint64_t word;

	sorted_settle(w);
	word = *ring_word(&w->ring, w->ring.head++);
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
	lo = quantile_rank(w->count, q, &fraction);
	if (fraction == 0.0)
		return w->values[lo];
	return quantile_interpolate(w->values[lo], w->values[lo + 1], fraction);
}

/* The interface shared by both kinds. */

bool
quantile_window_serves(const struct agg *agg, double q)
{
	return agg->kind == &agg_quantile_sorted || q == agg->params.percentile;
}

uint64_t
quantile_window_count(const struct agg *agg)
{
	if (agg->kind == &agg_quantile_sorted) {
		const struct sorted_window *w = (const struct sorted_window *)agg;

		return w->count - w->pending + w->nan_count;
	} else {
		const struct heap_window *w = (const struct heap_window *)agg;

		return w->lower.count + w->upper.count - w->pending + w->nan_count;
	}
}

double
quantile_window_value(struct agg *agg, double q)
{
	if (agg->kind == &agg_quantile_sorted)
		return sorted_value((struct sorted_window *)agg, clamp_percentile(q));
	return heap_value((struct heap_window *)agg);
}

void
quantile_window_result(struct agg *agg, double q, struct agg_result *result)
{
	uint64_t n = quantile_window_count(agg);

	if (n == 0 || n < agg->params.min_count) {
		result->kind = AGG_RESULT_NULL;
		return;
	}
	result->kind = AGG_RESULT_NUMBER;
	result->number = quantile_window_value(agg, q);
}

/* Stores the configured percentile of the window in *result (null as the contract says). */
static void
quantile_result(struct agg *agg, struct agg_result *result)
{
	quantile_window_result(agg, agg->params.percentile, result);
}

/* The number of slots in the window, missing values included. */
static uint64_t
quantile_size(const struct agg *agg)
{
	/* Both windows begin with the header and then the ring. */
	const struct quantile_ring *ring = agg->kind == &agg_quantile_sorted ?
	    &((const struct sorted_window *)agg)->ring : &((const struct heap_window *)agg)->ring;

	return ring->tail - ring->head;
}

void
quantile_window_stats(const struct agg *agg, struct quantile_stats *stats)
{
	stats->slots = quantile_size(agg);
	stats->values = quantile_window_count(agg);
	if (agg->kind == &agg_quantile_sorted) {
		const struct sorted_window *w = (const struct sorted_window *)agg;

		stats->ring_capacity = w->ring.cap;
		stats->order_capacity = w->cap;
		stats->bytes = sizeof(*w) + w->ring.cap * sizeof(uint64_t) +
		    w->cap * sizeof(double);
	} else {
		const struct heap_window *w = (const struct heap_window *)agg;

		stats->ring_capacity = w->ring.cap;
		stats->order_capacity = w->lower.cap + w->upper.cap;
		stats->bytes = sizeof(*w) + w->ring.cap * sizeof(uint64_t) +
		    (w->lower.cap + w->upper.cap) * sizeof(struct heap_entry);
	}
}

/*
 * A cost model fitted to the benchmark: a heap step costs about 30 + 2·log2(w) ns,
 * a sorted-array step about 50 + w/8 ns (binary searches and a memmove of a third of
 * the window on average).  At w = 10 two percentiles already pay for sharing, at
 * w = 1,000 four, and at w = 100,000 about a hundred.
 */
bool
quantile_share_pays(uint64_t window_slots, size_t k)
{
	double log2_w = window_slots > 1 ? log2((double)window_slots) : 0;
	double heap_ns = 30 + 2 * log2_w, sorted_ns = 50 + (double)window_slots / 8;

	return (double)k * heap_ns > sorted_ns;
}

const struct agg_kind agg_quantile = {
	"pN", AGG_INPUT_NUMBER, heap_create, heap_destroy, heap_push, heap_pop,
	quantile_result, quantile_size, NULL, false
};

const struct agg_kind agg_quantile_sorted = {
	"pN", AGG_INPUT_NUMBER, sorted_create, sorted_destroy, sorted_push, sorted_pop,
	quantile_result, quantile_size, NULL, false
};
