/*
 * agg_quantile.c: median and the percentiles pN over a sliding window.
 *
 * An order statistic has no cheap combine, so the two-stack engine cannot serve it;
 * each window keeps its values in an order structure of its own: an indexed double
 * heap with a small sorted middle (below), which answers the one percentile it was
 * made for.  Its cost on random input hardly grows with w: a step's sifts are short
 * on average, and only the steps that cross a root pay log w.
 *
 * Why this structure: tests/bench/bench_quantile.c on uniform random doubles, gcc 12
 * -O2, on the 2-core AMD EPYC test machine, one core busy with a test suite (ns: the
 * best of three runs; instructions: callgrind, counting the window's code and not the
 * driver's).  A step is one step of a full row window through the kind's move():
 * 256 steps a move, as the pipeline moves a batch of up to 1,024 ("move"), one step
 * a move that replaces the leaving value by the arriving one ("slide", heap_step), or
 * pop, push and result, three moves ("heap"):
 *
 *                                     ns per step              instructions per step
 *     window                       10    1,000  100,000       10    1,000  100,000
 *     median, heap, move           44      42      51        167     149      158
 *     median, heap, slide          54      53      69        220     202      211
 *     median, heap                 79      76      94        364     346      355
 *     p99, heap, move              43      20      26        167      93       89
 *     p99, heap, slide             55      32      36        220     145      142
 *     p99, heap                    78      51      59        364     289      285
 *     median, sorted array        112     304  11,146        387     771  146,754
 *
 * The sorted array with memmove (tests/bench/quantile_sorted.c, the benchmark's
 * baseline, a step its pop, push and result) moves a third of the window per step,
 * which shows from w = 1,000.  The heap wins at every window size, so there is no
 * switch by size, which would also need a size the window does not know (a time
 * window's varies).  A sorted array answers any rank, so several percentiles of one
 * column could share one; that pays only for small windows (p50, p90 and p99 from
 * three heaps: 211, 184 and 259 ns a step at the three sizes; from one shared sorted
 * array: 122, 314 and 10,860), and swag keeps one heap per percentile.  The heap's
 * one weak spot is p99 at w = 10, twice its cost at w = 1,000: ten values all live in
 * mid, a sorted array, whose shifts mispredict.
 *
 * Every record takes a slot of a ring (ring.h) of 64-bit words, oldest first: a
 * missing value keeps its slot (a row window of W slots holds the last W records),
 * and popping reads the oldest word to learn what leaves.  NaN never enters the heaps:
 * the window only counts its NaNs, and while that count is not zero the result is
 * NaN.  Every array grows by doubling with the elements actually held, so a window of
 * 10^9 rows over 10 records holds about a kilobyte; memory is 8 bytes of ring per slot
 * plus 16 per value, at most twice that just after a doubling, and the window's own
 * 912 bytes.
 *
 * The work of one step is bounded (counted in the test build, agg_quantile.h's
 * quantile_counters, and asserted over long sequences by tests/unit/test_quantile.c):
 * with a row window, the levels of a few sifts, at most 2 log2(m) + 8, plus a
 * constant; with a time window, that for each value evicted and for the one taken.
 * The growth of a heap is part of the constant: a block under MEM_MAP_MIN is copied
 * (128 KiB at the most, 2,048 units of make swag-work's table), a larger one grows in
 * place by mremap and copies nothing, and the pads it needs are written a run of
 * HEAP_PAD_AHEAD at a time (heap_grow, heap_reserve).  The most work of one record at
 * -w 1000000 over 1,100,000 numbers: median 2,060 units, p99 2,058, where a doubling
 * that copied the whole heap took 262,134 and 524,273.
 *
 * A time window's step evicts 0, 1 or several values as it takes one (bursty
 * arrivals: 0.48, 0.28 and 0.24 of the steps of -t 1 -g 3 -w 1m p99:2 over make
 * bench's timed lines).  One value leaving is the row window's replacement; several
 * leave all but the last first and replace the last; none is a push that works out
 * the result at once (heap_step, heap_push_number: on its common way, a value that
 * stays a leaf of a heap with x[lo] still in mid or lower's top, it calls nothing,
 * and keeps lo_at and hi_at when x[lo] kept its place).  A key's steps (-g, the
 * indexed move) take the push and the removals inline, the other moves call them.
 * This file's code costs that command 180 instructions a record (callgrind,
 * SWAG_HASH_SEED=1: this file's functions with what they inline), against 95 for the
 * row window's -w 1000 p99:2.  Out of line (one key's time window: web-06's lines of
 * the same file), a push costs about 95 and a discard 190 (1.9 values a call: about
 * 50 a value removed, the rest the rank, x[lo]'s place and the result's state for the
 * new m, which a push pays too), where a replacement in place costs about 30.  That
 * rest, the work of a change of m, is most of what is left of the difference, and no
 * layout of the heaps removes it: placeholders (an evicted value replaced in place by
 * one ordered above every number, a push replacing one) would make the heaps' part
 * of a push or a removal a replacement, but leave the rank, x[lo]'s place and the
 * state to work out; and p99 holds nearly all its values in lower, where such a
 * replacement crosses to the other heap (heap_exchange_lower, about 170 a call),
 * dearer than the removal of about 30 in the heap that it would save.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "agg_quantile.h"
#include "counters.h"
#include "mem.h"
#include "ring.h"

/* The first heap block holds this many values (a window of up to MID_CAP needs none). */
#define FIRST_ORDER_CAP 8
/* The capacity from which a heap of small blocks may shrink (heap_shrink). */
#define HEAP_SHRINK_MIN 512

/* The ring word of position (a uint64_t per slot). */
static inline uint64_t *
ring_word(const struct ring *ring, uint64_t position)
{
	return RING_AT(ring, uint64_t, position);
}

/*
 * The indexed double heap, after bottleneck's move_median, with a sorted middle.
 * With the m numbers of the window sorted as x[0..m-1] and lo the rank of the
 * configured q, the values are split three ways, in order:
 *
 *     lower: a max-heap of x[0..a-1]          its top is x[a-1]
 *     mid:   a sorted array of x[a..b-1]      at most MID_CAP values
 *     upper: a min-heap of x[b..m-1]          its top is x[b]
 *
 * with a - 1 <= lo < b, so that x[lo] is lower's top or in mid, and x[lo+1], when the
 * result needs it, in mid or upper's top.  Without mid (a = b = lo + 1) this is
 * move_median's double heap, where a value that arrives on one side while the value
 * leaving is on the other must push the other side's top across, which sifts a
 * value down from a root, through every level (half the steps of a median).  With
 * mid the split point may drift: such a step just removes one value and inserts
 * another, each in its own heap, and the rank of x[lo] in mid moves by one.  Only
 * when it would leave mid does a step rotate values through the tops and mid as
 * move_median does (heap_rotate): a random walk over MID_CAP + 1 places, which for
 * a median reaches an end about one step in 2·(MID_CAP + 1).  (A push or pop that
 * changes m may move x[lo] out of mid; then tops move into mid, heap_refill, and mid
 * spills its far end into the other heap when full.)  A value that leaves from the
 * heap it arrives in takes the leaving value's place there, as in move_median.  A
 * window of up to MID_CAP values lives in mid alone, a sorted array.
 *
 * The heaps are 8-ary: shallower than binary ones, so a step moves fewer entries.
 * Each entry carries its slot's ring position, and that slot's ring word holds the
 * entry's place (heap and index, or mid's slot), kept up to date on every move, so
 * a pop finds the oldest value without a search.
 *
 * A heap keeps its values and their positions in two arrays, so that the eight
 * children a sift-down compares are 64 contiguous bytes, one cache line (the block is
 * aligned for that).  The values array goes on past the last entry with padding that
 * loses every comparison (-inf in lower, +inf in upper), enough for the last node's
 * eight children, so the child scan always compares eight, and never asks how many
 * children a node has; a pad that ties with a real child loses the tie, since ties go
 * to the leftmost child and pads are right of every real child.  An empty heap that
 * was never allocated points at a static pad, so its top compares too.
 */
#ifndef HEAP_ARITY
#define HEAP_ARITY 8	/* the benchmark compares others with -DHEAP_ARITY=n */
#endif

/* Values past a heap's count: HEAP_ARITY - 1 of them cover the last node's children. */
#define HEAP_PADDING HEAP_ARITY
/* The values array starts this many doubles into its 64-byte-aligned block (below). */
#define HEAP_ALIGN 64
/*
 * The sorted middle's room.  16 measured best at w = 1,000: a larger one crosses
 * tops less often but moves more in mid (and every value of a window of up to
 * MID_CAP values lives there, so small windows are a sorted array).  Instructions per
 * slide step of bench_quantile, median / p99: 157 / 100 with 16, 159 / 108 with 32,
 * 164 / 99 with 8, 186 / 98 with 2 (where ten values need both heaps, a kilobyte).
 */
#ifndef MID_CAP
#define MID_CAP 16
#endif
#define MID_SLOTS (2 * MID_CAP)
/*
 * Room a heap keeps beyond the most values it may hold after a step (lo + 1 for
 * lower, m - lo - 1 for upper): a step moves values through the heaps before it
 * settles, and rounding may move lo by two.
 */
#define HEAP_SLACK 8
/* The most bytes values lies into its block: past the start, to its alignment. */
#define HEAP_VALUE_OFFSET HEAP_ALIGN
/*
 * Pads a heap writes past what a push needs, so that it writes them in runs of this
 * many (HEAP_PAD_AHEAD * 8 bytes), one push in HEAP_PAD_AHEAD while it grows.
 */
#define HEAP_PAD_AHEAD 64

/* Ring words of the heap window: a place, or one of these two. */
#define SLOT_MISSING UINT64_MAX
#define SLOT_NAN (UINT64_MAX - 1)
#define TAG_LOWER 0
#define TAG_UPPER 1
#define TAG_MID 2
#define PLACE(index, tag) (((uint64_t)(index) << 2) | (uint64_t)(tag))

struct heap_entry {
	double value;
	uint64_t position;	/* the ring position of the value's slot */
};

struct quantile_heap {
	double *values;		/* count entries, then pads up to ready + HEAP_PADDING */
	uint64_t *positions;	/* positions[i]: the ring position of values[i]'s slot */
	size_t count;
	size_t ready;		/* the count the pads allow: count <= ready <= cap */
	size_t cap;		/* the entries the blocks have room for */
	void *value_block;	/* the allocation values lies in, or NULL */
	size_t value_bytes;	/* ... its size, for mem_zfree and mem_remap */
	size_t position_bytes;	/* the size of positions' block */
	/*
	 * Where the pages returned to the system start (heap_trim), in the mapped
	 * blocks of values and of positions, or HEAP_NONE_RETURNED.
	 */
	size_t values_returned;
	size_t positions_returned;
};

#define HEAP_NONE_RETURNED SIZE_MAX

struct heap_window {
	struct agg header;
	struct ring ring;		/* a word per slot: SLOT_*, or its value's place */
	uint64_t nan_count;
	uint64_t min_values;		/* max(params.min_count, 1): fewer values give null */
	ptrdiff_t lo;			/* quantile_rank() for the structure's m; -1 for 0 */
	double fraction;		/* ... and its fraction */
	struct quantile_heap lower;	/* max-heap of x[0..a-1] */
	struct quantile_heap upper;	/* min-heap of x[b..m-1] */
	size_t mid_count;
	size_t mid_start;			/* the slot of mid's smallest value */
	struct heap_entry mid[MID_SLOTS];	/* x[a..b-1], ascending, from mid_start */
	/*
	 * A popped value whose removal waits for the next push (see heap_pop): it still
	 * sits at pending_place (what its ring word said), and counts in neither the
	 * window nor m.
	 */
	bool pending;
	uint64_t pending_place;
	/* A push to at most this many values has room in the heaps (heap_push_room). */
	uint64_t push_room;
	/*
	 * What the result is, from the counts, and where x[lo] and x[lo+1] are (lower's
	 * or upper's top or a place in mid; x[lo+1] only when the result needs it): kept
	 * by the operations that change them, so that the step of a full window
	 * (heap_step), which mostly changes none, reads the result straight away.
	 * RESULT_DIRTY says they must be worked out again (heap_clean).
	 */
	enum heap_result_state {
		RESULT_DIRTY, RESULT_ONE, RESULT_INTERPOLATE, RESULT_NAN, RESULT_NULL
	} result_state;
	enum heap_result_state state_before_pop;	/* ... when a pending pop came */
	const double *lo_at;
	const double *hi_at;
};

/* The values of a heap that never held one: its top, all that is read of it. */
static const double lower_pads[1] = { -INFINITY };
static const double upper_pads[1] = { INFINITY };

static inline void heap_locate(struct heap_window *w);

/*
 * What the sift loops work on, loaded once: stores through the uint64_t arrays could
 * alias a count or capacity read through the window, so the compiler would reload
 * them after every store.
 */
struct heap_view {
	double *values;
	uint64_t *positions;
	size_t count;
	struct ring_map ring;	/* the ring's words (ring_map_at) */
};

static inline struct heap_view
heap_view(const struct heap_window *w, const struct quantile_heap *heap)
{
	struct heap_view view = { heap->values, heap->positions, heap->count,
	    w->ring.map };

	return view;
}

/* True when a belongs nearer the top than b: larger in lower, smaller in upper. */
static inline bool
heap_above(bool is_upper, double a, double b)
{
	return is_upper ? a < b : a > b;
}

/* The value that loses every comparison in the heap: what pads it. */
static inline double
heap_pad(bool is_upper)
{
	return is_upper ? INFINITY : -INFINITY;
}

/* Puts value (of the slot at position) at index and records that place in the ring. */
static inline void
heap_place(const struct heap_view *h, bool is_upper, size_t index, double value,
    uint64_t position)
{
	uint64_t *slot = ring_map_at(&h->ring, sizeof(uint64_t), position);

	h->values[index] = value;
	h->positions[index] = position;
	*slot = PLACE(index, is_upper);
}

/* Moves the entry at from to index to (whose entry has moved away or is dropped). */
static inline void
heap_move(const struct heap_view *h, bool is_upper, size_t to, size_t from)
{
	heap_place(h, is_upper, to, h->values[from], h->positions[from]);
}

#if HEAP_ARITY == 8 && defined(__SSE2__)
/*
 * With SSE2 (every x86-64), the eight children in four registers: the top value in
 * three max (or min) instructions and a swap, and the leftmost child equal to it
 * from four equality masks, only once the value is known to move.  Equal is the same
 * as a scan's leftmost best (+0 and -0 are equal; no NaN is in a heap).  The loads
 * are aligned: values + 1 is, and first = 8i + 1.
 */
static inline __attribute__((always_inline)) __m128d
heap_children_top(const double *c, bool is_upper)
{
	__m128d a = _mm_load_pd(c), b = _mm_load_pd(c + 2);
	__m128d d = _mm_load_pd(c + 4), e = _mm_load_pd(c + 6), m;

	if (is_upper) {
		m = _mm_min_pd(_mm_min_pd(a, b), _mm_min_pd(d, e));
		return _mm_min_pd(m, _mm_shuffle_pd(m, m, 1));
	}
	m = _mm_max_pd(_mm_max_pd(a, b), _mm_max_pd(d, e));
	return _mm_max_pd(m, _mm_shuffle_pd(m, m, 1));
}

/*
 * The four equality masks (all ones or zeros per child) narrow by signed saturation
 * to two bytes per child, so one byte mask holds all eight, in order.
 */
static inline __attribute__((always_inline)) size_t
heap_children_find(const double *c, __m128d top)
{
	__m128i e0 = _mm_castpd_si128(_mm_cmpeq_pd(_mm_load_pd(c), top));
	__m128i e1 = _mm_castpd_si128(_mm_cmpeq_pd(_mm_load_pd(c + 2), top));
	__m128i e2 = _mm_castpd_si128(_mm_cmpeq_pd(_mm_load_pd(c + 4), top));
	__m128i e3 = _mm_castpd_si128(_mm_cmpeq_pd(_mm_load_pd(c + 6), top));
	__m128i bytes = _mm_packs_epi16(_mm_packs_epi32(e0, e1), _mm_packs_epi32(e2, e3));

	return (unsigned)__builtin_ctz((unsigned)_mm_movemask_epi8(bytes)) / 2;
}
#else
/*
 * One of two children a (at ia) and b (at ib): b when it is above a, else a, so a tie
 * goes to the left; the value and the offset come from the same comparison.
 */
static inline __attribute__((always_inline)) void
heap_pick(bool is_upper, double a, size_t ia, double b, size_t ib, double *best,
    size_t *ibest)
{
	bool right = heap_above(is_upper, b, a);

	*best = right ? b : a;
	*ibest = right ? ib : ia;
}

/*
 * The offset from c of the leftmost of the HEAP_ARITY values c[0..] nearest the top,
 * its value in *best: for 8, a tournament of seven comparisons in three rounds.
 */
static inline __attribute__((always_inline)) size_t
heap_best_child(const double *c, bool is_upper, double *best)
{
#if HEAP_ARITY == 8
	double v0, v1, v2, v3;
	size_t i0, i1, i2, i3;

	heap_pick(is_upper, c[0], 0, c[1], 1, &v0, &i0);
	heap_pick(is_upper, c[2], 2, c[3], 3, &v1, &i1);
	heap_pick(is_upper, c[4], 4, c[5], 5, &v2, &i2);
	heap_pick(is_upper, c[6], 6, c[7], 7, &v3, &i3);
	heap_pick(is_upper, v0, i0, v1, i1, &v0, &i0);
	heap_pick(is_upper, v2, i2, v3, i3, &v2, &i2);
	heap_pick(is_upper, v0, i0, v2, i2, best, &i0);
	return i0;
#else
	size_t ibest = 0;

	*best = c[0];
	for (size_t i = 1; i < HEAP_ARITY; i++)
		if (heap_above(is_upper, c[i], *best)) {
			*best = c[i];
			ibest = i;
		}
	return ibest;
#endif
}
#endif

#ifdef SWAG_TEST_COUNTERS
struct quantile_counters quantile_counters;
#endif

/* Moves value from the hole at index towards the top to where it belongs. */
static inline __attribute__((always_inline)) void
heap_sift_up(const struct heap_view *h, bool is_upper, size_t index, double value,
    uint64_t position)
{
	while (index > 0) {
		size_t parent = (index - 1) / HEAP_ARITY;

		TEST_COUNT(quantile_counters.moves, 1);
		if (!heap_above(is_upper, value, h->values[parent]))
			break;
		heap_move(h, is_upper, index, parent);
		index = parent;
	}
	heap_place(h, is_upper, index, value, position);
}

/*
 * Moves value from the hole at index to the top, for a value known to be above or
 * equal to every value of the heap: no comparisons, the path just moves down a level.
 */
static inline __attribute__((always_inline)) void
heap_sift_to_top(const struct heap_view *h, bool is_upper, size_t index, double value,
    uint64_t position)
{
	while (index > 0) {
		size_t parent = (index - 1) / HEAP_ARITY;

		TEST_COUNT(quantile_counters.moves, 1);
		heap_move(h, is_upper, index, parent);
		index = parent;
	}
	heap_place(h, is_upper, 0, value, position);
}

/* Moves value from the hole at index towards the leaves to where it belongs. */
static inline __attribute__((always_inline)) void
heap_sift_down(const struct heap_view *h, bool is_upper, size_t index, double value,
    uint64_t position)
{
	for (;;) {
		size_t first = index * HEAP_ARITY + 1, best;
		double best_value;

		if (first >= h->count)
			break;
		TEST_COUNT(quantile_counters.moves, 1);
#if HEAP_ARITY == 8 && defined(__SSE2__)
		{
			__m128d top = heap_children_top(&h->values[first], is_upper);

			if (!heap_above(is_upper, _mm_cvtsd_f64(top), value))
				break;
			best = first + heap_children_find(&h->values[first], top);
			best_value = h->values[best];
		}
#else
		best = first + heap_best_child(&h->values[first], is_upper, &best_value);
		if (!heap_above(is_upper, best_value, value))
			break;
#endif
		heap_place(h, is_upper, index, best_value, h->positions[best]);
		index = best;
	}
	heap_place(h, is_upper, index, value, position);
}

/* Puts value at index of the heap, in place of the entry there, and restores order. */
static inline __attribute__((always_inline)) void
heap_sift(const struct heap_view *h, bool is_upper, size_t index, double value,
    uint64_t position)
{
	if (index > 0 && heap_above(is_upper, value, h->values[(index - 1) / HEAP_ARITY]))
		heap_sift_up(h, is_upper, index, value, position);
	else
		heap_sift_down(h, is_upper, index, value, position);
}

/* Adds an entry to the heap, which must have room for it. */
static inline __attribute__((always_inline)) void
heap_insert(struct heap_window *w, struct quantile_heap *heap, bool is_upper, double value,
    uint64_t position)
{
	struct heap_view h = heap_view(w, heap);

	heap->count++;
	heap_sift_up(&h, is_upper, h.count, value, position);
}

/* Adds an entry above or equal to all of the heap, which must have room for it. */
static void
heap_insert_top(struct heap_window *w, struct quantile_heap *heap, bool is_upper,
    double value, uint64_t position)
{
	struct heap_view h = heap_view(w, heap);

	heap->count++;
	heap_sift_to_top(&h, is_upper, h.count, value, position);
}

/*
 * Removes the entry at index of the heap and returns it; the last entry fills the
 * hole, and its old place gets a pad.
 */
static inline __attribute__((always_inline)) struct heap_entry
heap_delete(struct heap_window *w, struct quantile_heap *heap, bool is_upper, size_t index)
{
	struct heap_view h = heap_view(w, heap);
	struct heap_entry removed = { h.values[index], h.positions[index] };
	double last;
	uint64_t last_position;

	h.count = --heap->count;
	last = h.values[h.count];
	last_position = h.positions[h.count];
	h.values[h.count] = heap_pad(is_upper);
	if (index != h.count)
		heap_sift(&h, is_upper, index, last, last_position);
	return removed;
}

/* Frees the heap's blocks (mem_zfree: a block under MEM_MAP_MIN is mem_realloc's). */
static void
heap_free(struct quantile_heap *heap)
{
	mem_zfree(heap->value_block, heap->value_bytes);
	mem_zfree(heap->positions, heap->position_bytes);
}

/*
 * Writes pads on until the heap may grow to target entries (ready >= target), or to
 * its capacity if less: never more than target - ready + HEAP_PAD_AHEAD of them.
 */
static void
heap_pad_to(struct quantile_heap *heap, bool is_upper, size_t target)
{
	size_t end = target + HEAP_PAD_AHEAD;

	if (end > heap->cap)
		end = heap->cap;
	if (end <= heap->ready)
		return;
	TEST_COUNT_BYTES(quantile_counters.bytes, (end - heap->ready) * sizeof(double));
	for (size_t i = heap->ready + HEAP_PADDING; i < end + HEAP_PADDING; i++)
		heap->values[i] = heap_pad(is_upper);
	heap->ready = end;
	/* Pages returned below the pads' end and the positions' are in use again. */
	if (heap->values_returned != HEAP_NONE_RETURNED) {
		size_t values_end = mem_page_round((size_t)((char *)(void *)(heap->values +
		    end + HEAP_PADDING) - (char *)heap->value_block));
		size_t positions_end = mem_page_round(end * sizeof(uint64_t));

		if (heap->values_returned < values_end)
			heap->values_returned = values_end;
		if (heap->positions_returned < positions_end)
			heap->positions_returned = positions_end;
	}
}

/*
 * Gives the heap room for new_cap entries, new_cap > cap; or, for heap_shrink, puts a
 * heap of blocks under MEM_MAP_MIN into blocks of new_cap entries, fewer, but at least
 * ready.  Returns 0, or -1 when memory is short (the heap then holds what it
 * held, in blocks of at least their old size).
 *
 * The arrays are two blocks.  values starts HEAP_VALUE_OFFSET bytes or less into its
 * block, where values + 1 is a multiple of HEAP_ALIGN (then the children of every node,
 * 8i+1 to 8i+8, share one 64-byte line), with room for cap entries and HEAP_PADDING
 * pads.  A block under MEM_MAP_MIN comes from mem_realloc, which would not keep that
 * alignment, so a growth of one copies the entries into new blocks (at most
 * MEM_MAP_MIN bytes each).  A larger one is mapped pages (mem_zalloc), whose start is
 * a page, and grows in place by mem_remap, which moves pages and not bytes and keeps
 * values' offset in a page, so its growth copies nothing; the pads past the old
 * capacity are written later, a few a push (heap_pad_to).
 */
static int
heap_grow(struct quantile_heap *heap, bool is_upper, size_t new_cap)
{
	size_t value_bytes, position_bytes;
	char *value_block;
	uint64_t *positions;
	double *values;
	size_t offset;

	if (new_cap > SIZE_MAX / sizeof(double) - HEAP_PADDING - HEAP_VALUE_OFFSET)
		return -1;
	value_bytes = (new_cap + HEAP_PADDING) * sizeof(double) + HEAP_VALUE_OFFSET;
	position_bytes = new_cap * sizeof(uint64_t);
	if (heap->value_bytes >= MEM_MAP_MIN && heap->position_bytes >= MEM_MAP_MIN) {
		offset = (size_t)((char *)(void *)heap->values - (char *)heap->value_block);
		if (heap->value_bytes < value_bytes) {
			if ((value_block = mem_remap(heap->value_block, heap->value_bytes,
			    value_bytes)) == NULL)
				return -1;
			heap->value_block = value_block;
			heap->value_bytes = value_bytes;
			heap->values = (double *)(void *)(value_block + offset);
		}
		if ((positions = mem_remap(heap->positions, heap->position_bytes,
		    position_bytes)) == NULL)
			return -1;
		heap->positions = positions;
		heap->position_bytes = position_bytes;
		heap->cap = new_cap;
		return 0;
	}
	value_block = value_bytes >= MEM_MAP_MIN ? mem_zalloc(value_bytes) :
	    mem_realloc(NULL, value_bytes);
	if (value_block == NULL)
		return -1;
	positions = position_bytes >= MEM_MAP_MIN ? mem_zalloc(position_bytes) :
	    mem_realloc(NULL, position_bytes);
	if (positions == NULL) {
		mem_zfree(value_block, value_bytes);
		return -1;
	}
	values = (double *)(void *)value_block;
	while (((uintptr_t)(values + 1) & (HEAP_ALIGN - 1)) != 0)
		values++;
	if (heap->count > 0) {
		TEST_COUNT_BYTES(quantile_counters.bytes, 2 * heap->count * sizeof(double));
		memcpy(values, heap->values, heap->count * sizeof(*values));
		memcpy(positions, heap->positions, heap->count * sizeof(*positions));
	}
	/* values[count..ready + HEAP_PADDING) are pads again: the old block's were. */
	TEST_COUNT_BYTES(quantile_counters.bytes, (heap->ready + HEAP_PADDING - heap->count) *
	    sizeof(double));
	for (size_t i = heap->count; i < heap->ready + HEAP_PADDING; i++)
		values[i] = heap_pad(is_upper);
	heap_free(heap);
	heap->values_returned = heap->positions_returned = HEAP_NONE_RETURNED;
	heap->value_block = value_block;
	heap->value_bytes = value_bytes;
	heap->values = values;
	heap->positions = positions;
	heap->position_bytes = position_bytes;
	heap->cap = new_cap;
	return 0;
}

/*
 * Makes sure the heap may grow to needed entries: room, and pads past them.  Returns
 * 0, or -1 when memory is short (the heap keeps what it held).  The capacity doubles
 * (from FIRST_ORDER_CAP) until it holds needed.  Since needed grows by one a push at
 * most, and pads are written ahead only by HEAP_PAD_AHEAD, no call does more than
 * a constant, the copy of blocks under MEM_MAP_MIN included.
 */
static int
heap_reserve(struct quantile_heap *heap, bool is_upper, size_t needed)
{
	size_t new_cap = heap->cap == 0 ? FIRST_ORDER_CAP : heap->cap;

	if (heap->ready >= needed)
		return 0;
	if (heap->cap < needed) {
		while (new_cap < needed) {
			if (new_cap > SIZE_MAX / 2)
				return -1;
			new_cap *= 2;
		}
		if (heap_grow(heap, is_upper, new_cap) != 0)
			return -1;
	}
	heap_pad_to(heap, is_upper, needed);
	return 0;
}

/*
 * Returns the pages of block from *returned down to floor (page-aligned) to the
 * system, *budget bytes at the most, taken from it, from the top: *returned, or the
 * end of the block's pages when none were returned yet.  Returns true when some are
 * left.
 */
static bool
heap_return_pages(void *block, size_t bytes, size_t floor, size_t *returned,
    size_t *budget)
{
	size_t top = mem_page_round(bytes), from;

	if (*returned < top)
		top = *returned;
	if (top <= floor)
		return false;
	from = top - floor > *budget ? top - *budget : floor;
	if (from < top) {
		mem_release((char *)block + from, top - from);
		TEST_COUNT_BYTES(quantile_counters.bytes, top - from);
		*budget -= top - from;
		*returned = from;
	}
	return from > floor;
}

/* At a power-of-two capacity, values' block is mapped only with positions'. */
_Static_assert((MEM_MAP_MIN / sizeof(uint64_t) / 2 + HEAP_PADDING) * sizeof(double) +
    HEAP_VALUE_OFFSET < MEM_MAP_MIN, "a heap's values are mapped only with its positions");

/*
 * A heap of blocks under MEM_MAP_MIN (mem_realloc's) of HEAP_SHRINK_MIN entries or
 * more that holds less than a quarter of them (each key's time window under -g after
 * a burst) goes into blocks of the capacity that needed takes, doubling from
 * FIRST_ORDER_CAP to at least twice it: heap_grow copies its entries and pads, fewer
 * than MEM_MAP_MIN / 4 bytes each, and free(3)'s pages go back at the next wait for
 * input (mem_note_freed).  Should memory be short, it stays as it is.  Returns true
 * when the blocks moved: pointers into them must move too.
 */
static bool
heap_shrink(struct quantile_heap *heap, bool is_upper, size_t needed)
{
	size_t cap = FIRST_ORDER_CAP, ready = heap->ready;
	size_t freed = heap->value_bytes + heap->position_bytes;

	/*
	 * Mapped blocks are heap_trim's.  The capacity is a power of two, so both blocks
	 * reach MEM_MAP_MIN at the same one (16,384 entries).
	 */
	if (heap->position_bytes >= MEM_MAP_MIN || heap->cap < HEAP_SHRINK_MIN ||
	    heap->count >= heap->cap / 4 || needed >= heap->cap / 4)
		return false;
	while (cap < 2 * needed)
		cap *= 2;
	if (heap->ready > needed + HEAP_PAD_AHEAD)
		heap->ready = needed + HEAP_PAD_AHEAD;
	if (heap->ready > cap)
		heap->ready = cap;
	if (heap_grow(heap, is_upper, cap) != 0) {
		heap->ready = ready;
		return false;
	}
	mem_note_freed(freed);
	return true;
}

/*
 * A heap of mapped blocks that holds less than a quarter of its capacity (a time
 * window's after a burst) gives back what it does not need: ready falls to needed,
 * the most the window's m may put in it, and a run of pads (the pads below stay as
 * they were), and the pages past its pads and positions go back to the system,
 * *budget bytes at the most (page-aligned), taken from it; heap_pad_to writes them
 * again as the heap grows.  The caller lowers push_room, which counted on the old
 * ready.  Returns true when pages are left to return.
 */
static bool
heap_trim(struct quantile_heap *heap, size_t needed, size_t *budget)
{
	size_t values_floor;
	bool more;

	if (heap->value_bytes < MEM_MAP_MIN || heap->position_bytes < MEM_MAP_MIN ||
	    heap->count >= heap->cap / 4)
		return false;
	if (needed + HEAP_PAD_AHEAD < heap->ready)
		heap->ready = needed + HEAP_PAD_AHEAD;
	values_floor = (size_t)((char *)(void *)(heap->values + heap->ready + HEAP_PADDING) -
	    (char *)heap->value_block);
	more = heap_return_pages(heap->value_block, heap->value_bytes,
	    mem_page_round(values_floor), &heap->values_returned, budget);
	return heap_return_pages(heap->positions, heap->position_bytes,
	    mem_page_round(heap->ready * sizeof(uint64_t)),
	    &heap->positions_returned, budget) || more;
}

/* The bytes of the heap's blocks' pages returned to the system (heap_trim). */
static size_t
heap_returned(const struct quantile_heap *heap)
{
	size_t n = 0;

	if (heap->values_returned != HEAP_NONE_RETURNED)
		n += mem_page_round(heap->value_bytes) - heap->values_returned;
	if (heap->positions_returned != HEAP_NONE_RETURNED)
		n += mem_page_round(heap->position_bytes) - heap->positions_returned;
	return n;
}

/* The bytes of the heap's blocks (see heap_grow). */
static size_t
heap_bytes(const struct quantile_heap *heap)
{
	return heap->value_bytes + heap->position_bytes;
}

/*
 * The middle: a sorted array of at most MID_CAP values, x[a..b-1], in
 * mid[mid_start..mid_start+mid_count) of twice that room, so that a value enters or
 * leaves at either end without moving the others (a top that crosses in, a spill),
 * and a value inside moves the fewer of the values on its two sides.  When an end
 * runs out of room the values move back to the middle (mid_recenter), which a random
 * walk of the start takes about MID_CAP² end operations to need.  A value's ring word
 * names its slot in mid[], which does not change when mid_start does.  Below, j is an
 * index in sorted order (slot mid_start + j).
 */
static inline struct heap_entry *
mid_at(struct heap_window *w, size_t j)
{
	return &w->mid[w->mid_start + j];
}

/* Puts entry in slot of mid and records that place in its ring word. */
static inline void
mid_put(struct heap_window *w, size_t slot, struct heap_entry entry)
{
	w->mid[slot] = entry;
	*ring_word(&w->ring, entry.position) = PLACE(slot, TAG_MID);
}

/* Moves mid's values to the middle of its room, leaving room at both ends. */
static void
mid_recenter(struct heap_window *w)
{
	size_t start = (MID_SLOTS - w->mid_count) / 2;

	memmove(&w->mid[start], &w->mid[w->mid_start], w->mid_count * sizeof(w->mid[0]));
	w->mid_start = start;
	for (size_t slot = start; slot < start + w->mid_count; slot++)
		mid_put(w, slot, w->mid[slot]);
}

/* Removes the value at j of mid; the values on its shorter side close the gap. */
static inline void
mid_delete(struct heap_window *w, size_t j)
{
	size_t count = --w->mid_count, slot = w->mid_start + j;

	if (j < count - j) {
		for (; slot > w->mid_start; slot--)
			mid_put(w, slot, w->mid[slot - 1]);
		w->mid_start++;
	} else {
		for (; slot < w->mid_start + count; slot++)
			mid_put(w, slot, w->mid[slot + 1]);
	}
}

/* Inserts value at j of mid, which must have room; the shorter side makes way. */
static inline void
mid_insert_at(struct heap_window *w, size_t j, double value, uint64_t position)
{
	struct heap_entry entry = { value, position };
	size_t count = w->mid_count;
	bool front = j < count - j;

	if (front ? w->mid_start == 0 : w->mid_start + count == MID_SLOTS)
		mid_recenter(w);
	w->mid_count = count + 1;
	if (front) {
		size_t slot = --w->mid_start;

		for (; slot < w->mid_start + j; slot++)
			mid_put(w, slot, w->mid[slot + 1]);
	} else {
		for (size_t slot = w->mid_start + count; slot > w->mid_start + j; slot--)
			mid_put(w, slot, w->mid[slot - 1]);
	}
	mid_put(w, w->mid_start + j, entry);
}

/* Inserts value in order into mid, which must have room. */
static inline void
mid_insert(struct heap_window *w, double value, uint64_t position)
{
	size_t j = w->mid_count;

	while (j > 0 && mid_at(w, j - 1)->value > value)
		j--;
	mid_insert_at(w, j, value, position);
}

/*
 * Puts value at j of mid in place of the value there and moves it to its order,
 * shifting the values it passes: a loop that stops at a comparison, which the
 * compiler cannot turn into a memmove call (for the few values a step passes, a
 * call costs more than the copies).
 */
static inline void
mid_move(struct heap_window *w, size_t j, double value, uint64_t position)
{
	/* Locals, since a store to the ring could alias the counts for the compiler. */
	struct heap_entry *first = &w->mid[w->mid_start], *last = first + w->mid_count - 1;
	struct heap_entry *at = first + j;
	const struct ring_map ring = w->ring.map;
	struct heap_entry *mid = w->mid;

	if (at > first && at[-1].value > value) {
		do {
			at[0] = at[-1];
			*(uint64_t *)ring_map_at(&ring, sizeof(uint64_t), at[0].position) = PLACE(at - mid, TAG_MID);
			at--;
		} while (at > first && at[-1].value > value);
	} else {
		while (at < last && at[1].value < value) {
			at[0] = at[1];
			*(uint64_t *)ring_map_at(&ring, sizeof(uint64_t), at[0].position) = PLACE(at - mid, TAG_MID);
			at++;
		}
	}
	at->value = value;
	at->position = position;
	*(uint64_t *)ring_map_at(&ring, sizeof(uint64_t), position) = PLACE(at - mid, TAG_MID);
}

/*
 * Makes room in a full mid by moving one end into its heap, the end farther from
 * x[lo]: the largest value of mid is at most every value of upper, so it becomes
 * upper's top; the smallest, lower's.
 */
static void
mid_spill(struct heap_window *w)
{
	struct heap_entry entry;

	if (w->lo - (ptrdiff_t)w->lower.count < MID_CAP / 2) {
		entry = *mid_at(w, --w->mid_count);
		heap_insert_top(w, &w->upper, true, entry.value, entry.position);
	} else {
		entry = *mid_at(w, 0);
		w->mid_start++;
		w->mid_count--;
		heap_insert_top(w, &w->lower, false, entry.value, entry.position);
	}
}

/*
 * rest / den correctly rounded.  Below 2^53 both are doubles exactly and the division
 * rounds once; past it (rest < den <= 10^18 < 2^60), the quotient rest·2^64 / den has
 * 57 bits or more, and a bit below them is set when the division leaves a remainder,
 * so that its one rounding to a double is the rounding of rest / den itself.
 */
static double
quantile_fraction(uint64_t rest, uint64_t den)
{
	__extension__ unsigned __int128 scaled = (unsigned __int128)rest << 64, quotient;

	if (rest < (UINT64_C(1) << 53))
		return (double)rest / (double)den;
	quotient = scaled / den;
	return ldexp((double)(quotient | (scaled % den != 0)), -64);
}

uint64_t
quantile_rank_slowly(uint64_t m, const struct agg_params *params, double *fraction)
{
	__extension__ unsigned __int128 product;
	uint64_t den;

	if (params->percentile_scale == 0) {
		/*
		 * q a double (swag(1): more than 16 decimals): h = (m - 1)·q exactly, as
		 * p + e, its rounding and fma's exact error of it (m - 1 is a double
		 * below 2^53 in any window that fits in memory).  lo = floor(h) is p's
		 * floor, or one less when p is an integer that h lies just under (no
		 * integer lies between h and a p that is not one); h - lo rounds once.
		 */
		double a = (double)(int64_t)(m - 1), q = params->percentile;
		double p = a * q, e = fma(a, q, -p);
		int64_t lo = (int64_t)p;

		if ((double)lo == p && e < 0) {
			*fraction = 1.0 + e;
			return (uint64_t)(lo - 1);
		}
		*fraction = (p - (double)lo) + e;
		return (uint64_t)lo;
	}
	/* Below 2^63 · 10^18 < 2^123. */
	product = (unsigned __int128)(m - 1) * params->percentile_num;
	den = quantile_scale_power(params->percentile_scale);
	*fraction = quantile_fraction((uint64_t)(product % den), den);
	return (uint64_t)(product / den);
}

/* The three parts together. */

/* Sets lo and fraction for a structure of m values. */
static inline void
heap_set_rank(struct heap_window *w, uint64_t m)
{
	double fraction = 0;

	w->lo = m == 0 ? -1 : (ptrdiff_t)quantile_rank(m, &w->header.params,
	    &fraction);
	w->fraction = fraction;
}

/*
 * Moves tops into mid until x[lo] is lower's top or in mid and x[lo+1] (if any) in
 * mid or upper's top: with r = lo - lower.count, until -1 <= r < mid_count.  A step
 * moves r by one at most, so heap_fix mostly finds nothing to do, and looks inline.
 */
static __attribute__((noinline)) void
heap_refill(struct heap_window *w)
{
	for (;;) {
		ptrdiff_t r = w->lo - (ptrdiff_t)w->lower.count;
		struct heap_entry top;

		if (r < -1) {
			if (w->mid_count == MID_CAP)
				mid_spill(w);
			top = heap_delete(w, &w->lower, false, 0);
			mid_insert_at(w, 0, top.value, top.position);
		} else if (r >= (ptrdiff_t)w->mid_count) {
			if (w->mid_count == MID_CAP)
				mid_spill(w);
			top = heap_delete(w, &w->upper, true, 0);
			mid_insert_at(w, w->mid_count, top.value, top.position);
		} else {
			return;
		}
	}
}

static inline __attribute__((always_inline)) void
heap_fix(struct heap_window *w)
{
	ptrdiff_t r = w->lo - (ptrdiff_t)w->lower.count;

	if (r < -1 || r >= (ptrdiff_t)w->mid_count)
		heap_refill(w);
}

/*
 * Where a value goes: below lower's top into lower, above upper's top into upper, else
 * into mid.  not_lower (not_upper) says the caller knows it is not below lower's top
 * (above upper's).
 */
static inline __attribute__((always_inline)) void
heap_add_known(struct heap_window *w, double value, uint64_t position, bool not_lower,
    bool not_upper)
{
	for (;;) {
		if (!not_lower && value < w->lower.values[0]) {
			heap_insert(w, &w->lower, false, value, position);
			return;
		}
		if (!not_upper && value > w->upper.values[0]) {
			heap_insert(w, &w->upper, true, value, position);
			return;
		}
		if (w->mid_count < MID_CAP) {
			mid_insert(w, value, position);
			return;
		}
		/* A spill changes a top, so the value looks again. */
		mid_spill(w);
		not_lower = not_upper = false;
	}
}

static inline __attribute__((always_inline)) void
heap_add(struct heap_window *w, double value, uint64_t position)
{
	heap_add_known(w, value, position, false, false);
}

/* Removes the value at place (a ring word) from whichever part holds it. */
static inline __attribute__((always_inline)) void
heap_drop(struct heap_window *w, uint64_t place)
{
	switch (place & 3) {
	case TAG_LOWER:
		heap_delete(w, &w->lower, false, (size_t)(place >> 2));
		break;
	case TAG_UPPER:
		heap_delete(w, &w->upper, true, (size_t)(place >> 2));
		break;
	default:
		mid_delete(w, (size_t)(place >> 2) - w->mid_start);
		break;
	}
}

/*
 * True when the heaps can take what steps do to a structure of m values, lo its rank,
 * without memory (see HEAP_SLACK).  While every value fits in mid and the heaps are
 * empty, they need none.
 */
static inline __attribute__((always_inline)) bool
heap_has_room_for(const struct heap_window *w, uint64_t m, ptrdiff_t lo)
{
	size_t lower_needed = (size_t)lo + 1, upper_needed = (size_t)(m - (uint64_t)lo - 1);

	if (m <= MID_CAP && w->lower.count == 0 && w->upper.count == 0)
		return true;
	if (lower_needed < w->lower.count)
		lower_needed = w->lower.count;
	if (upper_needed < w->upper.count)
		upper_needed = w->upper.count;
	return w->lower.ready >= lower_needed + HEAP_SLACK &&
	    w->upper.ready >= upper_needed + HEAP_SLACK;
}

/*
 * Makes sure the heaps can take what steps do to a structure of m values, before a
 * push makes it so (heap_has_room_for).  Returns 0, or -1 when memory is short.
 */
static inline int
heap_reserve_for(struct heap_window *w, uint64_t m, ptrdiff_t lo)
{
	size_t lower_needed = (size_t)lo + 1, upper_needed = (size_t)(m - (uint64_t)lo - 1);

	if (heap_has_room_for(w, m, lo))
		return 0;
	if (lower_needed < w->lower.count)
		lower_needed = w->lower.count;
	if (upper_needed < w->upper.count)
		upper_needed = w->upper.count;
	if (heap_reserve(&w->lower, false, lower_needed + HEAP_SLACK) != 0 ||
	    heap_reserve(&w->upper, true, upper_needed + HEAP_SLACK) != 0)
		return -1;
	return 0;
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
	w->header.params.percentile = quantile_clamp(params->percentile);
	/* An exact q is N / 100 from agg_lookup; any other takes the double alone. */
	if (params->percentile_scale > 18 ||
	    params->percentile_num > quantile_scale_power(params->percentile_scale))
		w->header.params.percentile_scale = 0;
	w->min_values = params->min_count > 1 ? params->min_count : 1;
	w->lo = -1;
	w->mid_start = MID_SLOTS / 2;
	w->lower.values = (double *)(uintptr_t)lower_pads;
	w->upper.values = (double *)(uintptr_t)upper_pads;
	w->lower.values_returned = w->lower.positions_returned = HEAP_NONE_RETURNED;
	w->upper.values_returned = w->upper.positions_returned = HEAP_NONE_RETURNED;
	w->result_state = RESULT_DIRTY;
	ring_set_limit(&w->ring, agg_ring_limit(params));
	return &w->header;
}

/* Frees the window and everything it owns. */
static void
heap_destroy(struct agg *agg)
{
	struct heap_window *w = (struct heap_window *)agg;

	ring_free(&w->ring);
	heap_free(&w->lower);
	heap_free(&w->upper);
	mem_free(w);
}

/* The number of values in the structure, a pending one included. */
static inline uint64_t
heap_m(const struct heap_window *w)
{
	return w->lower.count + w->mid_count + w->upper.count;
}

/*
 * Trims both heaps to what the window's m values need (heap_trim), with HEAP_SLACK:
 * lo + 1 in lower, m - lo - 1 in upper, or what each holds when more (a step's values
 * on their way), returning RING_RELEASE_STEP bytes of pages at the most in all.
 * push_room falls to m, so that the next push that makes m larger asks
 * heap_push_room again.  Returns true when pages are left to return.
 */
static bool
heap_trim_both(struct heap_window *w)
{
	uint64_t m = heap_m(w);
	size_t budget = RING_RELEASE_STEP;
	size_t lower_needed = (size_t)(w->lo + 1);
	size_t upper_needed = (size_t)(m - (uint64_t)w->lo - 1);
	/* lo_at and hi_at point at a heap's top or into mid (heap_locate). */
	bool lo_lower = w->lo_at == w->lower.values, hi_upper = w->hi_at == w->upper.values;
	bool more;

	if (lower_needed < w->lower.count)
		lower_needed = w->lower.count;
	if (upper_needed < w->upper.count)
		upper_needed = w->upper.count;
	if (heap_shrink(&w->lower, false, lower_needed + HEAP_SLACK) && lo_lower)
		w->lo_at = w->lower.values;
	if (heap_shrink(&w->upper, true, upper_needed + HEAP_SLACK) && hi_upper)
		w->hi_at = w->upper.values;
	more = heap_trim(&w->lower, lower_needed + HEAP_SLACK, &budget);
	more = heap_trim(&w->upper, upper_needed + HEAP_SLACK, &budget) || more;
	if (w->push_room > m)
		w->push_room = m;
	return more;
}

/*
 * ring_reserve's slow way for the window's ring (room, or the stop of ring.h): room
 * made, and then the heaps trimmed, as the ring returns its own pages (ring.h:
 * Release): the next push comes back while pages are left.  Returns 0, or -1 when
 * memory is short.
 */
static __attribute__((noinline)) int
heap_ring_room(struct heap_window *w)
{
	if (ring_make_room(&w->ring, sizeof(uint64_t), 1) != 0)
		return -1;
	if (heap_trim_both(w))
		w->ring.stop = w->ring.tail + 1;
	return 0;
}

/* ring_reserve for the window's ring, by heap_ring_room. */
static inline __attribute__((always_inline)) int
heap_reserve_ring(struct heap_window *w)
{
	if (__builtin_expect(w->ring.tail - w->ring.head >= w->ring.room ||
	    w->ring.tail >= w->ring.stop, 0))
		return heap_ring_room(w);
	return 0;
}

/* Removes the value at place (a ring word) for good, m going down. */
static void
heap_remove(struct heap_window *w, uint64_t place)
{
	heap_drop(w, place);
	heap_set_rank(w, heap_m(w));
	heap_fix(w);
}

/* Finishes a deferred pop, if one waits, so that the structure holds the window. */
static inline void
heap_settle(struct heap_window *w)
{
	if (w->pending) {
		w->pending = false;
		w->result_state = RESULT_DIRTY;
		heap_remove(w, w->pending_place);
	}
}

/*
 * The replacement when the leaving value is in own (one heap) and the new one belongs
 * in other, and a plain exchange would move x[lo] out of mid (a step that would
 * need heap_refill): move_median's way, with mid in between.  value takes other's top
 * place and sifts down; that top joins mid at its end near other, mid's far end
 * leaves it and fills the hole in own, rising to the top since it is above all of own
 * (with mid empty, other's top goes straight there).  No count changes, so x[lo]
 * stays where it was in order.
 */
static inline __attribute__((always_inline)) void
heap_rotate(struct heap_window *w, struct quantile_heap *own, struct quantile_heap *other,
    bool own_is_upper, size_t index, double value, uint64_t position)
{
	struct heap_view o = heap_view(w, other), h;
	struct heap_entry top = { o.values[0], o.positions[0] };

	heap_sift_down(&o, !own_is_upper, 0, value, position);
	if (w->mid_count > 0) {
		struct heap_entry far;

		if (own_is_upper) {
			far = *mid_at(w, --w->mid_count);
			mid_insert_at(w, 0, top.value, top.position);
		} else {
			far = *mid_at(w, 0);
			w->mid_start++;
			w->mid_count--;
			mid_insert_at(w, w->mid_count, top.value, top.position);
		}
		top = far;
	}
	h = heap_view(w, own);
	heap_sift_to_top(&h, own_is_upper, index, top.value, top.position);
	heap_locate(w);
}

/*
 * The replacement when the leaving value and the new one belong in different parts:
 * the leaving value out, the new one in where it belongs, and x[lo] found again
 * (heap_rotate when it would leave mid).  Out of line, so that the sifts and the
 * shifts in mid stay out of heap_step's registers; one for each part the leaving
 * value may be in, so that its removal is compiled for it.
 */
static __attribute__((noinline)) void
heap_exchange_lower(struct heap_window *w, size_t index, double value, uint64_t position)
{
	if (w->lo - (ptrdiff_t)w->lower.count + 1 >= (ptrdiff_t)w->mid_count &&
	    value > w->upper.values[0]) {
		heap_rotate(w, &w->lower, &w->upper, false, index, value, position);
		return;
	}
	heap_delete(w, &w->lower, false, index);
	/* value was not below lower's top, and lower lost a value, maybe its top. */
	heap_add_known(w, value, position, true, false);
	heap_fix(w);
	heap_locate(w);
}

static __attribute__((noinline)) void
heap_exchange_upper(struct heap_window *w, size_t index, double value, uint64_t position)
{
	if (w->lo - (ptrdiff_t)w->lower.count == -1 && value < w->lower.values[0]) {
		heap_rotate(w, &w->upper, &w->lower, true, index, value, position);
		return;
	}
	heap_delete(w, &w->upper, true, index);
	heap_add_known(w, value, position, false, true);
	heap_fix(w);
	heap_locate(w);
}

/* The leaving value is in mid: when the new one belongs there too, it just moves. */
static __attribute__((noinline)) void
heap_exchange_mid(struct heap_window *w, size_t slot, double value, uint64_t position)
{
	size_t j = slot - w->mid_start;

	if (value < w->lower.values[0] || value > w->upper.values[0]) {
		mid_delete(w, j);
		heap_add(w, value, position);
		heap_fix(w);
		heap_locate(w);
	} else {
		mid_move(w, j, value, position);
	}
}

/*
 * The sifts of a replacement inside one heap, each out of line for its heap, so that
 * the common step that needs none (p99's, mostly) runs without saving registers.
 */
#define HEAP_SIFT_FUNCTIONS(side, is_upper)						\
	static __attribute__((noinline)) void						\
	heap_up_##side(struct heap_window *w, size_t index, double value,		\
	    uint64_t position)								\
	{										\
		struct heap_view h = heap_view(w, &w->side);				\
											\
		heap_sift_up(&h, is_upper, index, value, position);			\
	}										\
	static __attribute__((noinline)) void						\
	heap_down_##side(struct heap_window *w, size_t index, double value,		\
	    uint64_t position)								\
	{										\
		struct heap_view h = heap_view(w, &w->side);				\
											\
		heap_sift_down(&h, is_upper, index, value, position);			\
	}
HEAP_SIFT_FUNCTIONS(lower, false)
HEAP_SIFT_FUNCTIONS(upper, true)

/*
 * Puts value at index of heap in place of the value there (move_median's update):
 * nothing else changes.  When the hole is a leaf whose parent stays above value, no
 * sift at all.
 */
static inline __attribute__((always_inline)) void
heap_replace_in(struct heap_window *w, struct quantile_heap *heap, bool is_upper,
    size_t index, double value, uint64_t position)
{
	double *values = heap->values;

	if (index > 0 && heap_above(is_upper, value, values[(index - 1) / HEAP_ARITY]))
		(is_upper ? heap_up_upper : heap_up_lower)(w, index, value, position);
	else if (index * HEAP_ARITY + 1 < heap->count)
		(is_upper ? heap_down_upper : heap_down_lower)(w, index, value, position);
	else {
		uint64_t *slot = ring_word(&w->ring, position);

		values[index] = value;
		heap->positions[index] = position;
		*slot = PLACE(index, is_upper);
	}
}

/*
 * Puts value, of the slot at position, in place of the value at place (the leaving
 * value's ring word): in place when both belong in the same heap, else through a
 * heap_exchange function.  m does not change.
 */
static inline __attribute__((always_inline)) void
heap_replace(struct heap_window *w, uint64_t place, double value, uint64_t position)
{
	size_t index = (size_t)(place >> 2);

	switch (place & 3) {
	case TAG_LOWER:
		if (value < w->lower.values[0])
			heap_replace_in(w, &w->lower, false, index, value, position);
		else
			heap_exchange_lower(w, index, value, position);
		break;
	case TAG_UPPER:
		if (value > w->upper.values[0])
			heap_replace_in(w, &w->upper, true, index, value, position);
		else
			heap_exchange_upper(w, index, value, position);
		break;
	default:
		heap_exchange_mid(w, index, value, position);
		break;
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
	uint64_t position, m;
	double fraction = 0;
	ptrdiff_t lo;

	if (heap_reserve_ring(w) != 0)
		return -1;
	position = w->ring.tail;
	if (!value->has_number) {
		w->ring.tail++;
		*ring_word(&w->ring, position) = SLOT_MISSING;
		return 0;
	}
	if (isnan(value->number)) {
		w->ring.tail++;
		*ring_word(&w->ring, position) = SLOT_NAN;
		w->nan_count++;
		w->result_state = w->state_before_pop = RESULT_DIRTY;
		return 0;
	}
	if (w->pending) {
		/*
		 * m stays as it is, and the room for it was reserved when it was reached;
		 * the result is what it was before the pop.
		 */
		w->ring.tail++;
		w->pending = false;
		w->result_state = w->state_before_pop;
		heap_replace(w, w->pending_place, value->number, position);
		return 0;
	}
	w->result_state = RESULT_DIRTY;
	m = heap_m(w) + 1;
	lo = (ptrdiff_t)quantile_rank(m, &w->header.params, &fraction);
	if (heap_reserve_for(w, m, lo) != 0)
		return -1;
	w->ring.tail++;
	w->lo = lo;
	w->fraction = fraction;
	heap_add(w, value->number, position);
	heap_fix(w);
	return 0;
}

/*
 * Removes the oldest slot and its value, if any.  The window must not be empty.
 *
 * The removal of a number waits for the next operation: a full row window pops and
 * then pushes on every record, and the push can then put the new value where the old
 * one was.  Any other operation settles it first.
 */
static void
heap_pop(struct agg *agg)
{
	struct heap_window *w = (struct heap_window *)agg;
	uint64_t word, position;

	heap_settle(w);
	position = w->ring.head++;
	word = *ring_word(&w->ring, position);
	if (word == SLOT_MISSING)
		return;
	w->state_before_pop = w->result_state;
	w->result_state = RESULT_DIRTY;
	if (word == SLOT_NAN) {
		w->nan_count--;
		return;
	}
	w->pending = true;
	w->pending_place = word;
}

/* Points lo_at and hi_at at x[lo] and x[lo + 1] (or where x[lo + 1] would be). */
static inline void
heap_locate(struct heap_window *w)
{
	ptrdiff_t r = w->lo - (ptrdiff_t)w->lower.count;

	w->lo_at = r < 0 ? &w->lower.values[0] : &mid_at(w, (size_t)r)->value;
	w->hi_at = r + 1 < (ptrdiff_t)w->mid_count ? &mid_at(w, (size_t)r + 1)->value :
	    &w->upper.values[0];
}

/*
 * Works out result_state, lo_at and hi_at from the counts, lo and fraction, for a
 * structure that holds the window (no pop pending).
 */
static inline __attribute__((always_inline)) void
heap_restate_known(struct heap_window *w, uint64_t m, double fraction)
{
	uint64_t nan_count = w->nan_count;

	heap_locate(w);
	if (m + nan_count < w->min_values)
		w->result_state = RESULT_NULL;
	else if (nan_count != 0)
		w->result_state = RESULT_NAN;
	else if (fraction == 0.0)
		w->result_state = RESULT_ONE;
	else
		w->result_state = RESULT_INTERPOLATE;
}

static inline __attribute__((always_inline)) void
heap_restate(struct heap_window *w)
{
	heap_restate_known(w, heap_m(w), w->fraction);
}

/* Works out result_state again after an operation that may have changed the counts. */
static __attribute__((noinline)) void
heap_clean(struct heap_window *w)
{
	heap_settle(w);
	heap_restate(w);
}

/* Stores the window's percentile in *result, null as the man page says. */
static inline void
heap_result(struct heap_window *w, struct agg_result *result)
{
	/* The common state first: most percentiles of most windows interpolate. */
	if (w->result_state == RESULT_INTERPOLATE) {
		result->kind = AGG_RESULT_NUMBER;
		result->number = quantile_interpolate(*w->lo_at, *w->hi_at, w->fraction);
		return;
	}
	if (w->result_state == RESULT_DIRTY)
		heap_clean(w);
	switch (w->result_state) {
	case RESULT_ONE:
		result->kind = AGG_RESULT_NUMBER;
		result->number = *w->lo_at;
		break;
	case RESULT_INTERPOLATE:
		result->kind = AGG_RESULT_NUMBER;
		result->number = quantile_interpolate(*w->lo_at, *w->hi_at, w->fraction);
		break;
	case RESULT_NAN:
		result->kind = AGG_RESULT_NUMBER;
		result->number = NAN;
		break;
	default:
		result->kind = AGG_RESULT_NULL;
		break;
	}
}

/*
 * Removes the count oldest slots and their values for good, without the deferral of
 * heap_pop; no pop may be pending.  The values leave first and x[lo] is found once
 * for the m that is left (heap_refill moves a top a value evicted, so the work stays
 * bounded per value), and the result is worked out for it.
 */
static inline __attribute__((always_inline)) void
heap_discard_of(struct heap_window *w, uint64_t count)
{
	uint64_t m;

	for (; count > 0; count--) {
		uint64_t word = *ring_word(&w->ring, w->ring.head++);

		if (word == SLOT_MISSING)
			continue;
		if (word == SLOT_NAN)
			w->nan_count--;
		else
			heap_drop(w, word);
	}
	m = heap_m(w);
	heap_set_rank(w, m);
	heap_fix(w);
	heap_restate_known(w, m, w->fraction);
}

static __attribute__((noinline)) void
heap_discard(struct heap_window *w, uint64_t count)
{
	heap_discard_of(w, count);
}

/*
 * Appends the number x, not NaN, as the newest slot, no pop pending, and works the
 * result out.  Returns 0, or -1 when memory is short, in which case the window is
 * unchanged.  heap_push_number's way when the ring or a heap needs memory.
 */
static __attribute__((noinline)) int
heap_push_number_grow(struct heap_window *w, double x)
{
	uint64_t m = heap_m(w) + 1;
	double fraction = 0;
	ptrdiff_t lo;

	if (heap_reserve_ring(w) != 0)
		return -1;
	lo = (ptrdiff_t)quantile_rank(m, &w->header.params, &fraction);
	if (heap_reserve_for(w, m, lo) != 0)
		return -1;
	w->lo = lo;
	w->fraction = fraction;
	heap_add(w, x, w->ring.tail++);
	heap_fix(w);
	heap_restate_known(w, m, fraction);
	return 0;
}

/*
 * The end of heap_push_number's push into mid, or of one that moves x[lo] out of
 * place: adds x, of the slot at position, unless added says it is in, then finds
 * x[lo] again (heap_fix) and works the result out.  Returns 0.
 */
static __attribute__((noinline)) int
heap_push_number_rest(struct heap_window *w, double x, uint64_t position, bool added)
{
	if (!added)
		heap_add(w, x, position);
	heap_fix(w);
	heap_restate(w);
	return 0;
}

/*
 * heap_has_room_for, for a push to m values, lo its rank, past push_room, where
 * lower.count <= lo + 1 needs no test: lower held at most the rank before plus one
 * (heap_fix), and a rank never falls as m grows.  When the heaps' pads reach spare
 * entries or more past what m needs, push_room moves on to m + spare / 2, which
 * the pads surely reach, since ready falls only in heap_trim, which lowers push_room
 * to m with it: the rank is monotone in m and
 * moves by at most the values added plus one (rounding may move it by two for one
 * value), so lo + 1 stays within lower's pads up to there, and m - lo - 1 (at least
 * what upper holds after a step, heap_fix) within upper's, or at a smaller m one
 * past it at most, which HEAP_SLACK covers.
 */
static inline __attribute__((always_inline)) bool
heap_push_room(struct heap_window *w, uint64_t m, ptrdiff_t lo)
{
	size_t lower_needed = (size_t)lo + 1 + HEAP_SLACK;
	size_t upper_needed = (size_t)(m - (uint64_t)lo - 1);

	if (upper_needed < w->upper.count)
		upper_needed = w->upper.count;
	upper_needed += HEAP_SLACK;
	if (w->lower.ready >= lower_needed && w->upper.ready >= upper_needed) {
		size_t spare = w->lower.ready - lower_needed;

		if (spare > w->upper.ready - upper_needed)
			spare = w->upper.ready - upper_needed;
		w->push_room = m + spare / 2;
		return true;
	}
	return heap_has_room_for(w, m, lo);
}

/*
 * Puts x, of the slot at position, at the end of heap when it stays below its parent
 * there (a leaf needs no sift down) and returns true; else returns false and changes
 * nothing.  The pushes' common way into a heap, without the sift's loop and its
 * registers.
 */
static inline __attribute__((always_inline)) bool
heap_append_leaf(struct heap_window *w, struct quantile_heap *heap, bool is_upper,
    double x, uint64_t position)
{
	size_t index = heap->count;

	if (index > 0 && heap_above(is_upper, x, heap->values[(index - 1) / HEAP_ARITY]))
		return false;
	/* The level that heap_sift_up counts for that comparison. */
	TEST_COUNT(quantile_counters.moves, index > 0);
	heap->values[index] = x;
	heap->positions[index] = position;
	*ring_word(&w->ring, position) = PLACE(index, is_upper);
	heap->count = index + 1;
	return true;
}

/*
 * What heap_push_number_grow does, without memory to find or a call on the common
 * way (a value that stays a leaf of a heap, x[lo] where it was in order or a place
 * beside it): the rest are tail calls, so that no value must live across a call.
 * When the result was a number before and x[lo] keeps its place (r, below, as it was:
 * x went below x[lo] and lo rose with it, or above and lo stayed), lo_at and hi_at
 * still point at x[lo] and x[lo + 1] (x changed no part but its heap's end), and the
 * result stays a number (m grew, and no NaN came), so only the fraction decides it.
 */
static inline __attribute__((always_inline)) int
heap_push_number_of(struct heap_window *w, double x)
{
	uint64_t m = heap_m(w) + 1, position = w->ring.tail;
	enum heap_result_state state = w->result_state;
	ptrdiff_t lo, r, r_before = w->lo - (ptrdiff_t)w->lower.count;
	double fraction = 0;
	size_t mid_count;

	if (position - w->ring.head >= w->ring.room || position >= w->ring.stop)
		return heap_push_number_grow(w, x);
	lo = (ptrdiff_t)quantile_rank(m, &w->header.params, &fraction);
	if (m > w->push_room && !heap_push_room(w, m, lo))
		return heap_push_number_grow(w, x);
	w->lo = lo;
	w->fraction = fraction;
	w->ring.tail = position + 1;
	if (x < w->lower.values[0]) {
		if (!heap_append_leaf(w, &w->lower, false, x, position))
			return heap_push_number_rest(w, x, position, false);
	} else if (x > w->upper.values[0]) {
		if (!heap_append_leaf(w, &w->upper, true, x, position))
			return heap_push_number_rest(w, x, position, false);
	} else {
		return heap_push_number_rest(w, x, position, false);
	}
	r = lo - (ptrdiff_t)w->lower.count;
	mid_count = w->mid_count;
	if (r < -1 || r >= (ptrdiff_t)mid_count)
		return heap_push_number_rest(w, x, position, true);
	if (r == r_before && (state == RESULT_ONE || state == RESULT_INTERPOLATE)) {
		w->result_state = fraction == 0.0 ? RESULT_ONE : RESULT_INTERPOLATE;
		return 0;
	}
	w->lo_at = r < 0 ? &w->lower.values[0] : &mid_at(w, (size_t)r)->value;
	w->hi_at = r + 1 < (ptrdiff_t)mid_count ? &mid_at(w, (size_t)r + 1)->value :
	    &w->upper.values[0];
	if (m + w->nan_count < w->min_values)
		w->result_state = RESULT_NULL;
	else if (w->nan_count != 0)
		w->result_state = RESULT_NAN;
	else if (fraction == 0.0)
		w->result_state = RESULT_ONE;
	else
		w->result_state = RESULT_INTERPOLATE;
	return 0;
}

/* heap_push_number_of out of line, for the loops where pushes are rare. */
static __attribute__((noinline)) int
heap_push_number(struct heap_window *w, double x)
{
	return heap_push_number_of(w, x);
}

/*
 * One step of a move: evicts the evict oldest values, takes value (unless it is NULL)
 * and stores the result when result is not NULL.  A step that takes a number (not
 * NaN), no pop pending, goes the short ways: one that evicts nothing pushes it and
 * works out the result at once (heap_push_number); one that evicts values removes
 * all but the last (heap_discard) and replaces the last by it, without the deferral
 * that pop and push need to find each other (the full row window's every step).  Any
 * other step takes the general path.  inline_push says whether the push and the
 * removals run inline (a key's time steps, where half the steps push) or are called.
 */
static inline __attribute__((always_inline)) int
heap_step_of(struct agg *agg, uint64_t evict, const struct agg_value *value,
    struct agg_result *result, bool inline_push)
{
	struct heap_window *w = (struct heap_window *)agg;

	if (value != NULL && value->has_number && !isnan(value->number) && !w->pending) {
		uint64_t head, tail = w->ring.tail, word;

		if (evict == 0) {
			if ((inline_push ? heap_push_number_of(w, value->number) :
			    heap_push_number(w, value->number)) != 0)
				return -1;
			goto done;
		}
		if (evict > 1) {
			if (inline_push)
				heap_discard_of(w, evict - 1);
			else
				heap_discard(w, evict - 1);
			evict = 1;
		}
		head = w->ring.head;
		word = *ring_word(&w->ring, head);
		if (word < SLOT_NAN) {
			/* The pop first, so that a full ring does not grow. */
			w->ring.head = head + 1;
			if (__builtin_expect(tail >= w->ring.stop, 0) &&
			    heap_ring_room(w) != 0) {
				w->ring.head = head;
				return -1;
			}
			w->ring.tail = tail + 1;
			heap_replace(w, word, value->number, tail);
			goto done;
		}
	}
	for (; evict > 0; evict--)
		heap_pop(agg);
	if (value != NULL && heap_push(agg, value) != 0)
		return -1;
done:
	if (result != NULL)
		heap_result(w, result);
	return 0;
}

static inline __attribute__((always_inline)) int
heap_step(struct agg *agg, uint64_t evict, const struct agg_value *value,
    struct agg_result *result)
{
	return heap_step_of(agg, evict, value, result, false);
}

/*
 * A move of a time window with every result wanted (agg_move_loop's shape), indexed
 * a constant: each key's records with -g, or all the batch's.
 */
static inline __attribute__((always_inline)) size_t
quantile_move_by_time(struct agg *agg, const struct agg_move *m, bool indexed)
{
	/* Locals, since a store to a result or the window could alias m for the compiler. */
	const struct agg_value *values = m->values;
	struct agg_result *results = m->results;
	const uint32_t *evict = m->evict;
	const agg_index *index = m->index;
	size_t j, n = m->n;

	/* quantile_move comes here with both, and heap_step need not test them. */
	if (values == NULL || results == NULL)
		__builtin_unreachable();
	for (j = 0; j < n; j++) {
		size_t r = indexed ? index[j] : j;

		if (heap_step_of(agg, evict[j], &values[r], &results[r], indexed) != 0)
			break;
	}
	return j;
}

/*
 * Each loop a function of its own, so that the registers of one (the pushes inline
 * in the indexed one) do not cost the others.
 */
static __attribute__((noinline)) size_t
quantile_move_by_time_indexed(struct agg *agg, const struct agg_move *m)
{
	return quantile_move_by_time(agg, m, true);
}

static __attribute__((noinline)) size_t
quantile_move_by_time_plain(struct agg *agg, const struct agg_move *m)
{
	return quantile_move_by_time(agg, m, false);
}

/*
 * The common moves apart: a row window with each result wanted, indexed a constant
 * (each key's records with -g, or all the batch's in order).
 */
static inline __attribute__((always_inline)) size_t
quantile_move_rows_of(struct agg *agg, const struct agg_move *m, bool indexed)
{
	const struct heap_window *w = (const struct heap_window *)agg;
	/* Locals, as quantile_move_by_time's. */
	const struct agg_value *values = m->values;
	struct agg_result *results = m->results;
	const agg_index *index = m->index;
	uint64_t rows = m->rows;
	size_t j, n = m->n;

	/* quantile_move comes here with both, and heap_step need not test them. */
	if (values == NULL || results == NULL)
		__builtin_unreachable();
	for (j = 0; j < n; j++) {
		size_t r = indexed ? index[j] : j;

		if (heap_step(agg, ring_count(&w->ring) == rows, &values[r], &results[r]) != 0)
			break;
	}
	return j;
}

static __attribute__((noinline)) size_t
quantile_move_rows(struct agg *agg, const struct agg_move *m)
{
	return quantile_move_rows_of(agg, m, false);
}

static __attribute__((noinline)) size_t
quantile_move_rows_indexed(struct agg *agg, const struct agg_move *m)
{
	return quantile_move_rows_of(agg, m, true);
}

static size_t
quantile_move(struct agg *agg, const struct agg_move *m)
{
	const struct heap_window *w = (const struct heap_window *)agg;
	size_t j;

	if (m->want == NULL && m->values != NULL && m->results != NULL) {
		if (m->evict == NULL)
			return m->index != NULL ? quantile_move_rows_indexed(agg, m) :
			    quantile_move_rows(agg, m);
		return m->index != NULL ? quantile_move_by_time_indexed(agg, m) :
		    quantile_move_by_time_plain(agg, m);
	}
	for (j = 0; j < m->n; j++) {
		size_t r = m->index != NULL ? m->index[j] : j;
		uint64_t evict = m->evict != NULL ? m->evict[j] :
		    m->values != NULL && ring_count(&w->ring) == m->rows;

		if (heap_step(agg, evict, m->values != NULL ? &m->values[r] : NULL,
		    m->results != NULL && (m->want == NULL || m->want[r]) ? &m->results[r] :
		    NULL) != 0)
			break;
	}
	return j;
}

/*
 * Checks the heap window's invariants (for tests): heap order, the order between
 * the parts, every ring word naming its entry's place, pads, room, x[lo]'s place and
 * what the result keeps.  Returns 0, or a small number saying which failed.
 */
static int
heap_check(const struct heap_window *w)
{
	const struct quantile_heap *heaps[2] = { &w->lower, &w->upper };
	uint64_t numbers = 0, nans = 0, m = heap_m(w);
	const double *lo_at, *hi_at;
	ptrdiff_t r;

	for (int side = 0; side < 2; side++) {
		const struct quantile_heap *h = heaps[side];

		if (h->count > h->ready || h->ready > h->cap)
			return 1;
		for (size_t i = 0; i < h->count; i++) {
			if (i > 0 && heap_above(side, h->values[i],
			    h->values[(i - 1) / HEAP_ARITY]))
				return 2;
			/*
			 * A pending value's slot may hold the next record already, or,
			 * after the ring grew, nothing yet: its word is not read.
			 */
			if (!(w->pending && h->positions[i] == w->ring.head - 1) &&
			    *ring_word(&w->ring, h->positions[i]) != PLACE(i, side))
				return 3;
			if (h->positions[i] - (w->ring.head - w->pending) >=
			    w->ring.tail - (w->ring.head - w->pending))
				return 4;
		}
		for (size_t i = h->count; h->cap > 0 && i < h->ready + HEAP_PADDING; i++)
			if (h->values[i] != heap_pad(side))
				return 5;
		if (h->count == 0 && h->values[0] != heap_pad(side))
			return 5;
	}
	if (w->mid_count > MID_CAP || w->mid_start + w->mid_count > MID_SLOTS)
		return 6;
	for (size_t j = 0; j < w->mid_count; j++) {
		size_t slot = w->mid_start + j;
		const struct heap_entry *e = &w->mid[slot];

		if (j > 0 && w->mid[slot - 1].value > e->value)
			return 6;
		if (!(w->pending && e->position == w->ring.head - 1) &&
		    *ring_word(&w->ring, e->position) != PLACE(slot, TAG_MID))
			return 7;
		if (e->position - (w->ring.head - w->pending) >=
		    w->ring.tail - (w->ring.head - w->pending))
			return 4;
	}
	if (w->mid_count > 0 && (w->mid[w->mid_start].value < w->lower.values[0] ||
	    w->mid[w->mid_start + w->mid_count - 1].value > w->upper.values[0]))
		return 8;
	if (w->lower.count > 0 && w->upper.count > 0 &&
	    w->lower.values[0] > w->upper.values[0])
		return 8;
	for (uint64_t p = w->ring.head; p != w->ring.tail; p++) {
		uint64_t word = *ring_word(&w->ring, p);

		if (word == SLOT_NAN)
			nans++;
		else if (word != SLOT_MISSING)
			numbers++;
	}
	if (numbers + w->pending != m || nans != w->nan_count)
		return 9;
	if (w->pending)
		return 0;
	r = w->lo - (ptrdiff_t)w->lower.count;
	if (m > 0 && (r < -1 || r >= (ptrdiff_t)w->mid_count))
		return 10;
	if (m > MID_CAP || w->lower.count + w->upper.count > 0) {
		if (w->lower.ready < (size_t)w->lo + 1 + HEAP_SLACK / 2 ||
		    w->upper.ready < (size_t)(m - (uint64_t)w->lo - 1) + HEAP_SLACK / 2)
			return 11;
	}
	/* What heap_result reads without working it out. */
	lo_at = r < 0 ? &w->lower.values[0] : &w->mid[w->mid_start + (size_t)r].value;
	hi_at = r + 1 < (ptrdiff_t)w->mid_count ? &w->mid[w->mid_start + (size_t)r + 1].value :
	    &w->upper.values[0];
	switch (w->result_state) {
	case RESULT_DIRTY:
		return 0;
	case RESULT_NULL:
		return m + w->nan_count < w->min_values ? 0 : 12;
	case RESULT_NAN:
		return m + w->nan_count >= w->min_values && w->nan_count > 0 ? 0 : 12;
	default:
		if (m + w->nan_count < w->min_values || w->nan_count > 0 ||
		    (w->fraction == 0.0) != (w->result_state == RESULT_ONE) ||
		    w->lo_at != lo_at ||
		    (w->result_state == RESULT_INTERPOLATE && w->hi_at != hi_at))
			return 12;
		return 0;
	}
}

/* The number of slots in the window, missing values included. */
static uint64_t
heap_size(const struct agg *agg)
{
	return ring_count(&((const struct heap_window *)agg)->ring);
}

void
quantile_window_stats(const struct agg *agg, struct quantile_stats *stats)
{
	const struct heap_window *w = (const struct heap_window *)agg;

	stats->slots = heap_size(agg);
	stats->values = heap_m(w) - w->pending + w->nan_count;
	stats->ring_capacity = w->ring.cap;
	stats->order_capacity = w->lower.cap + w->upper.cap + MID_CAP;
	stats->bytes = sizeof(*w) + w->ring.cap * sizeof(uint64_t) + heap_bytes(&w->lower) +
	    heap_bytes(&w->upper);
	stats->returned = heap_returned(&w->lower) + heap_returned(&w->upper);
}

int
quantile_window_check(const struct agg *agg)
{
	return heap_check((const struct heap_window *)agg);
}

const struct agg_kind agg_quantile = {
	"pN", AGG_INPUT_NUMBER, heap_create, heap_destroy, quantile_move, false, true
};
