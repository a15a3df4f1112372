/*
 * agg_mode.c: mode, the most frequent field in the window, printed as it appeared.
 *
 * Ties go to the smallest value (swag(1), AGGREGATES): fields that are numbers first, in
 * numeric order with NaN after every other number and equal numbers by their text,
 * then the other fields, bytewise.  A field is identified by its exact text, so `1`
 * and `1.0` are two values that tie numerically and are then ordered by text.
 *
 * Why not the two-stack engine: two partial modes say nothing about the mode of
 * their union, so a combine would need whole histograms.  Instead the window keeps
 * the histogram itself, updated by one slot per step (DuckDB's approach, 15-55x
 * faster there than recomputing each frame):
 *
 *   - a ring of window slots, oldest first, each naming the entry its field holds
 *     (or none for a missing field), so that a pop knows which value leaves;
 *   - a hash table from text to entry (hashtable.h): open addressing with linear
 *     probing, seeded per run against flooding, and backward-shift deletion, so that
 *     it has no tombstones and a stream of ever-new values cannot clog it;
 *   - one entry per distinct text in the window, holding a copy of its bytes;
 *   - one item per entry (its count and its place in the tie-break order: number,
 *     NaN or text, and an order key), ordered by count descending and then by the
 *     tie-break order, in two parts: an indexed binary heap of the entries counted
 *     at least twice, whose root is the mode whenever it is not empty, and a pool
 *     of the entries counted once.
 *
 * The pool is what makes a long-tailed stream cheap: there nearly every step brings
 * a value the window does not hold and drops one it held once (on the IPv4 Zipf
 * bench at window 1,000, 79 % of steps; the heap then holds some 25 entries, the
 * pool some 800).  Its order is needed only when the heap is empty, so the pool is
 * a heap of its first items (its ordered part) followed by items in no order: an
 * entry joins the unordered part by an append and leaves it by a swap with its
 * last item, in O(1), and its text is not even parsed as a number (that waits
 * until the entry is compared at all, which most never are).  How much must be
 * ordered follows from the excess, the values the window holds beyond its distinct
 * ones: it is 0 exactly when the heap is empty, and one push or pop lowers it by
 * at most 1.  After every step (pool_balance) at most POOL_SLACK unordered items
 * per excess value are left, the rest ordered by a sift up each, so the pool is
 * wholly ordered by the time the heap empties, and a step orders at most
 * POOL_SLACK + 2 items.  A heap's prefix is itself a heap, so when the excess grows
 * the ordered part shrinks at no cost, and an item ordered again later while its
 * ancestors stayed costs one comparison.  A step (one pop, one push, one result)
 * thus makes at most 12 log2(d) + 7 comparisons for d distinct values: a pop's
 * sift costs at most 5 + 2 log2 d (the heap has four children a node, see arity:
 * at most four comparisons on each of its log2(d) / 2 + 1 levels), a push's at most
 * 2 + 3 log2 d (an item moved from pool to heap: the pool's binary sift, then one
 * comparison a level up the heap), and each item ordered at most log2 d; the
 * POOL_SLACK + 2 are ordered only after a pop that moved an item to the pool and a
 * push of a new value, whose sifts cost 5 + 2 log2 d between them, and a push that
 * sifts more lowers what must be ordered (test_mode checks the bound over
 * adversarial streams; a sift down's test of the children's counts, at most four
 * loads before any comparison, comes on top).  A time window's step adds as much
 * for each further record it evicts.  Ordering the whole pool in one step instead,
 * when a result is wanted from an empty heap, would cost O(d): at -w 1000000 over
 * 0, 0, 1, 2, ... (make bench's latency input) the record at which 0 is left once
 * would take 20 to 34 ms through a pipe, where it takes 0.16 ms.
 * POOL_SLACK is 8 because on the IPv4 Zipf bench the pool holds 4.2 items per
 * excess value at window 1,000 (0.44 at 100,000; never more than 8 at any step of
 * either), so that nothing there is ordered: a pool always ordered costs a sift
 * for most pool items, which leave before any comparison needs them.  The bound's
 * cost falls on streams whose excess stays small but not 0 (a rare repeated value
 * among ever-new ones at window 1,000,000: 8 % slower), where the pool is then
 * mostly ordered though its order is never used.  A step that changes a count
 * from 1 to 2 or back moves an item between pool and heap; the item array holds
 * both, the heap from the front and the pool from the back, so such a move never
 * allocates and a pop never fails.  Otherwise a count change sifts one item through the
 * heap, and each sift compares before it copies anything: most items stay where
 * they are.
 *
 * tests/bench/bench_mode.c, ns per step (pop + push + result, CPU time), 2 million
 * IPv4-like texts, -O2, on the 2-core test machine (best of 3), with one heap of
 * every entry before the pool, and now:
 *
 *     window                          10     1,000   100,000
 *     Zipf-ish, one heap            83.8      92.9     109.0
 *     Zipf-ish, heap and pool       84.8      58.8      77.4
 *     one text in 90 %, one heap    27.3      31.9      35.8
 *     one text in 90 %, now         17.2      18.1      22.7
 *
 * With the pool, the rare paths out of line and short texts compared by words, swag
 * -w 1000 mode over make bench's IPv4 strings costs about 531 instructions a record,
 * where one heap of every value would cost about 920 (callgrind); a mode that stays
 * is not copied again for each record's result (kept_entry), which saves 42.
 *
 * Not built: buckets of values by count, as in an O(1) LFU cache.  Counts do
 * change by one, but the mode is the first value of the top bucket in the
 * tie-break order, so each bucket needs an order of its own; at window 1,000 the
 * count-1 bucket is the pool above, and the few higher ones together make the
 * 25-item heap, where a sift rarely moves, so buckets had little left to win.  Nor
 * a shortcut for a step whose leaving and arriving values are the same: counted,
 * 474 steps in 200,000 here.
 *
 * The table is sparse (hashtable.h: at most a quarter full, where most tables are
 * half), since most of its lookups miss and most of its keys soon leave: the end of
 * a probe run is then guessed right more often, and -w 1000 mode over make bench's
 * IPv4 strings takes a fifth less time than at most half full (98.5 ms against 126.2
 * over 2 million records; 482.4 instructions a record against 502.4).
 * It grows and shrinks a step at a time (hashtable.h's moves, 32 slots a step,
 * Redis's incremental rehash), so that no record pays for the whole table: over
 * 0, 0, 1, 2, ... at -w 1000000 the record that grew it to 2^21 slots moved 524,288
 * keys (3,233,361 units of make swag-work), where the most now is 4,104 (a piece of
 * the old table unmapped).  A lookup that misses consults the old table only while
 * one holds keys, in a branch out of the inlined lookup, and a deletion whose entry is
 * still in the old table moves it first: -w 1000 mode over make bench's IPv4 strings
 * costs 544.5 instructions a record where a table grown at once cost 529.0 (+2.9 %),
 * -w 100000 772.0 where it cost 751.7 (+2.7 %, callgrind).
 *
 * Memory is bounded by the window: the ring holds 4 bytes per slot; the table (8
 * bytes a slot, at least a sixteenth full once it has grown), the item array of heap
 * and pool (24 bytes an item) and the entries (32 bytes, texts up to 16 bytes
 * inside) are sized by the distinct values the window holds.  The table and the
 * ring shrink again when the window holds fewer; the item and entry arrays keep
 * their peak size, bounded by the largest number of distinct values the window held
 * (the ring names entries by index, so they cannot move).  An entry freed by its
 * value's last departure is reused by the next new value; its text buffer, if it
 * had one, goes to a short list of spares for the next long text (entry_release), so
 * that the steady state allocates nothing and a burst of long texts gives their
 * memory back when they leave.  The two arrays double in place, in mapped
 * pages from MEM_MAP_MIN on that mremap(2) moves without copying (block_grow), and
 * the pool at the item array's end follows four items a step (items_grow), so that
 * no record copies them: over 0, 0, 1, 2, ... at -w 1000000 a copy at the item
 * array's doubling would move a pool of 524,288 items (12 MB, 50 ms through a pipe,
 * 100 ms with a table rebuilt at once), where that record takes 57 us.  The table's
 * moves cost, callgrind over make bench's IPv4 strings, -w 10 mode 4 % (911.7
 * instructions a record), -w 1000 5 % (553.2), -w 100000 3 % (775.1).
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "agg_mode.h"
#include "counters.h"
#include "hashtable.h"
#include "mem.h"
#include "numparse.h"
#include "ring.h"

enum {
	HEAP_ARITY = 4,		/* children of a heap node (the pool's: 2): see arity */
	SHORT_TEXT_MAX = 16,	/* texts up to this long live inside the entry: an IPv4 fits */
	LONG_TEXT_KEEP = 256,	/* a spare buffer is at most this size ... */
	SPARE_TEXTS_MAX = 8,	/* ... and there are at most this many: see entry_release */
	ENTRY_MIN = 8,
	POOL_SLACK = 8,		/* unordered pool items per excess value: see pool_balance */
	LOOKAHEAD_FAR = 12,	/* steps ahead that a move asks for table slots: see mode_move */
	LOOKAHEAD_MID = 8,	/* for entries */
	LOOKAHEAD_NEAR = 4,	/* for items */
	LOOKAHEAD_HASHES = 16,	/* the hashes it keeps: more than LOOKAHEAD_FAR, a power of 2 */
	LOOKAHEAD_TABLE = 16384,	/* table slots from which a move looks ahead */
	POOL_MIGRATE_STEP = 4	/* pool positions a step moves after a growth: see items_grow */
};
_Static_assert(LOOKAHEAD_HASHES > LOOKAHEAD_FAR &&
    (LOOKAHEAD_HASHES & (LOOKAHEAD_HASHES - 1)) == 0,
    "the lookahead's hashes: a power of 2 past the farthest step");

/*
 * Entry indexes are 32-bit to keep the ring at 4 bytes per slot.  At most 2^31
 * entries keep the table, at most half full, within 2^32 slots, whose home slot the
 * 32-bit tag then still holds.
 */
#define NO_ENTRY	UINT32_MAX
#define ENTRY_LIMIT	((size_t)1 << 31)
/* Marks an entry's heap_index as a pool position; positions stay below ENTRY_LIMIT. */
#define POOL_BIT	((uint32_t)1 << 31)

/* Where a value falls in the tie-break order, before its number or text. */
enum mode_rank {
	RANK_NUMBER,		/* a number other than NaN: by value, then by text */
	RANK_NAN,		/* after every other number: by text */
	RANK_TEXT,		/* not a number: bytewise */
	RANK_UNKNOWN		/* not read yet: the item has no key (a pool item only) */
};

/*
 * A value the window holds: 32 bytes, two to a cache line, none across two.  The text
 * lives inside up to SHORT_TEXT_MAX bytes, else in a buffer of its own (text_len tells
 * which half of the union holds it; a free entry's text_len is 0).  Of the hash only
 * the top 32 bits are kept, all that the table reads of it (slot_hash).  Entries of
 * 56 bytes (the whole hash, the buffer's pointer and size beside the short text), on
 * make bench's 2 million IPv4 strings, paired runs: -w 1000 mode 100.8 ms where these
 * take 95.5, -w 100000 222.6 where they take 188.3 (a lookup and a departure each read
 * an entry, and the entries of the window's values outgrow the caches).
 */
struct mode_entry {
	uint32_t tag;		/* its hash's high 32 bits, as its table slot's */
	uint32_t heap_index;	/* its heap position, POOL_BIT set in the pool; when free, the next free entry */
	size_t text_len;
	union {
		char short_text[SHORT_TEXT_MAX];	/* text_len <= SHORT_TEXT_MAX */
		struct {
			char *long_text;
			size_t long_capacity;
		};
	};
};
_Static_assert(sizeof(struct mode_entry) == 32, "an entry takes half a cache line");

/*
 * A heap item carries what orders it, so that most comparisons read the heap
 * array alone, not two entries elsewhere in memory, and call no memcmp: the
 * count, the rank, and a 64-bit order key that agrees with the tie-break order
 * whenever two keys differ (see order_key).  Only equal keys (equal numbers, or
 * texts sharing their first 8 bytes) fall back to the entries' texts.  On the
 * Zipf stream of bench_mode this saves a few per cent at window 1,000 (119 to
 * 113 ns before heap_before was inlined) and more at 100,000, where the entries
 * no longer fit in cache.
 */
struct mode_heap_item {
	uint64_t count;		/* window slots holding the entry's text */
	uint64_t key;
	uint32_t entry;
	unsigned char rank;	/* an enum mode_rank */
};

/* A slot of the hash table. */
struct mode_slot {
	uint32_t tag;		/* the hash's high 32 bits: the home slot, and a cheap filter */
	uint32_t entry;		/* entry index + 1; 0 for an empty slot */
};

struct mode_window {
	struct agg header;

	struct ring ring;	/* a uint32_t entry per slot, NO_ENTRY for a missing field */
	uint64_t values;	/* present fields in the window */

	struct hashtable table;	/* a mode_slot per live entry: its count is theirs */

	struct mode_entry *entries;
	size_t entry_capacity;
	size_t entry_bytes;	/* the entries' block (mem_zalloc's) */
	size_t entry_used;	/* entries ever handed out; those below are live or free */
	uint32_t free_entry;	/* the first free entry, NO_ENTRY when none */

	/*
	 * One item per live entry, in one array of item_capacity items: the heap of the
	 * entries counted at least twice at the front (items[0] the mode when there is
	 * one), and the pool of the entries counted once at the back, pool position p at
	 * items[item_capacity - 1 - p].  The two never need more room than there are
	 * entries, so moving an entry between them never allocates.
	 */
	struct mode_heap_item *items;
	size_t item_capacity;
	size_t heap_size;	/* entries counted twice or more */
	size_t pool_size;	/* entries counted once */
	size_t pool_heap;	/* the pool's first pool_heap items are a heap, the rest in no order */
	size_t item_bytes;	/* the items' block (mem_zalloc's) */
	/*
	 * While the pool moves to the end of a grown item array (pool_migrate), its
	 * positions from pool_lo to pool_hi - 1 are still at items[pool_old_end - 1 - p];
	 * both 0 else.
	 */
	size_t pool_lo, pool_hi;
	size_t pool_old_end;

	/*
	 * The texts of the results of one move, copied: a later step of the same move may
	 * free the entry a result came from, and the caller writes the results after the
	 * move.
	 */
	char *result_texts;
	size_t result_texts_cap;
	/*
	 * The entry whose text the move's result texts hold last, at kept_offset, so that
	 * a mode that stays (at window 1,000 over make bench's IPv4 strings, all but 1.3 %
	 * of records) is not copied again; NO_ENTRY when none, or when it was released.
	 */
	uint32_t kept_entry;
	size_t kept_offset;

	char *spare_texts;	/* long-text buffers of released entries: see entry_release */
	size_t spare_count;	/* buffers in spare_texts */

#ifdef SWAG_TEST_COUNTERS
	uint64_t lookups, probes, heap_comparisons;	/* see struct mode_counters */
	uint64_t bytes_moved;	/* copied by the growth of the entry and item arrays */
	uint64_t text_allocations;	/* long-text buffers allocated or grown */
#endif
};

/*
 * The hash that placed entry e in the table, as far as the table reads it: its top 32
 * bits (slot_hash), the home slot of any table of at most 2^32 slots.
 */
static inline uint64_t
entry_hash(const struct mode_entry *e)
{
	return (uint64_t)e->tag << 32;
}

/* Returns the stored bytes of entry e (text_len of them). */
static const char *
entry_text(const struct mode_entry *e)
{
	return e->text_len <= SHORT_TEXT_MAX ? e->short_text : e->long_text;
}

/*
 * Copies len bytes, at most SHORT_TEXT_MAX, from text to copy without a call:
 * two overlapping loads of 8 (or 4) bytes cover the text, and no byte outside
 * either one is read or written.
 */
static inline void
short_copy(char *copy, const char *text, size_t len)
{
	if (len >= 8) {
		uint64_t head, tail;

		memcpy(&head, text, 8);
		memcpy(&tail, text + len - 8, 8);
		memcpy(copy, &head, 8);
		memcpy(copy + len - 8, &tail, 8);
	} else if (len >= 4) {
		uint32_t head, tail;

		memcpy(&head, text, 4);
		memcpy(&tail, text + len - 4, 4);
		memcpy(copy, &head, 4);
		memcpy(copy + len - 4, &tail, 4);
	} else {
		for (size_t i = 0; i < len; i++)
			copy[i] = text[i];
	}
}

/* Returns whether a[0..len) and b[0..len) are equal, len at most SHORT_TEXT_MAX, without a call. */
static inline bool
short_equal(const char *a, const char *b, size_t len)
{
	if (len >= 8) {
		uint64_t a0, a1, b0, b1;

		memcpy(&a0, a, 8);
		memcpy(&a1, a + len - 8, 8);
		memcpy(&b0, b, 8);
		memcpy(&b1, b + len - 8, 8);
		return ((a0 ^ b0) | (a1 ^ b1)) == 0;
	}
	if (len >= 4) {
		uint32_t a0, a1, b0, b1;

		memcpy(&a0, a, 4);
		memcpy(&a1, a + len - 4, 4);
		memcpy(&b0, b, 4);
		memcpy(&b1, b + len - 4, 4);
		return ((a0 ^ b0) | (a1 ^ b1)) == 0;
	}
	for (size_t i = 0; i < len; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/* Returns whether a's text sorts before b's bytewise, a prefix before its extensions. */
static bool
text_less(const struct mode_entry *a, const struct mode_entry *b)
{
	size_t common = a->text_len < b->text_len ? a->text_len : b->text_len;
	int order = common != 0 ? memcmp(entry_text(a), entry_text(b), common) : 0;

	if (order != 0)
		return order < 0;
	return a->text_len < b->text_len;
}

/*
 * Returns a key for a value of rank whose number (for RANK_NUMBER) is number and
 * whose text is text[0..len), such that, between two values of the same rank,
 * key(a) < key(b) implies that a comes before b in the tie-break order.
 *
 * A number's key is its double's bits made to sort as unsigned integers (the sign
 * bit flipped for positives, every bit for negatives), with -0 read as +0: the two
 * zeros are equal numbers, ordered by their texts ("+0" before "-0" before "0").
 * A text's key is its first 8 bytes, big-endian, zero-padded: a text shorter than 8
 * bytes pads below every byte that could extend it, as bytewise order wants.
 */
static uint64_t
order_key(enum mode_rank rank, double number, const char *text, size_t len)
{
	uint64_t key = 0;

	if (rank == RANK_NUMBER) {
		if (number == 0.0)
			number = 0.0;
		memcpy(&key, &number, sizeof(key));
		return (key >> 63) != 0 ? ~key : key | (uint64_t)1 << 63;
	}
	for (size_t i = 0; i < 8; i++)
		key = key << 8 | (i < len ? (unsigned char)text[i] : 0);
	return key;
}

/*
 * Returns whether heap item a belongs above heap item b: more frequent, or as
 * frequent and before it in the tie-break order.  Two live entries never hold the
 * same text, so exactly one of heap_before(a, b) and heap_before(b, a) is true.
 * Forced inline: the sifts call it in their inner loops, and the call cost 10 %
 * of a step on the Zipf stream.
 */
static inline __attribute__((always_inline)) bool
heap_before(struct mode_window *w, const struct mode_heap_item *a,
    const struct mode_heap_item *b)
{
	TEST_COUNT(w->heap_comparisons, 1);
	if (a->count != b->count)
		return a->count > b->count;
	if (a->rank != b->rank)
		return a->rank < b->rank;
	if (a->key != b->key)
		return a->key < b->key;
	/* Equal numbers, NaNs, or texts that share 8 bytes: the texts decide. */
	return text_less(&w->entries[a->entry], &w->entries[b->entry]);
}

/*
 * Where an item is: the heap, the pool, or the pool while it moves after the item
 * array grew (see items_grow), when some of its positions are still where they were.
 */
enum item_where {
	IN_HEAP,
	IN_POOL,
	IN_POOL_MOVING
};

/* Where the pool's items are now: IN_POOL, or IN_POOL_MOVING during a move. */
static inline __attribute__((always_inline)) int
pool_where(const struct mode_window *w)
{
	return __builtin_expect(w->pool_hi != 0, 0) ? IN_POOL_MOVING : IN_POOL;
}

/*
 * The children of a node where says.  Four in the heap, whose sifts past the caches
 * wait on a load a level, and four children are 96 bytes, two or three cache lines:
 * -w 100000 mode over make bench's IPv4 strings (2 million) takes 235 ms where two
 * children take 257.  Eight take 224 ms, but a dominant value's root then tests
 * eight counts on most steps: 86 ms where four take 82, over 2 million strings nine
 * in ten of them one value.  Two in the pool, whose sifts up order it a few items a
 * step and stay in the caches: four there would take -w 10 mode to 183 ms from 200,
 * but the step bound at the top would grow by a comparison for each item ordered.
 */
static inline __attribute__((always_inline)) size_t
arity(int where)
{
	return where == IN_HEAP ? HEAP_ARITY : 2;
}

/*
 * Returns the item at position of the heap or the pool, as where says.  Forced
 * inline, as are the sifts below, so that each caller gets a copy for its own array
 * with the direction folded in, and the pool's paths that sift (pool_order,
 * pool_remove_ordered) one for a pool that is not moving: with the check of every
 * position, -w 10 mode, where the pool is ordered at nearly every step, cost 937.7
 * instructions a record against 911.7.
 */
static inline __attribute__((always_inline)) struct mode_heap_item *
item_at(struct mode_window *w, int where, size_t position)
{
	if (where == IN_HEAP)
		return &w->items[position];
	if (where == IN_POOL_MOVING && position - w->pool_lo < w->pool_hi - w->pool_lo)
		return &w->items[w->pool_old_end - 1 - position];
	return &w->items[w->item_capacity - 1 - position];
}

/* Puts item at position of the heap or the pool, keeping its entry's back-index in step. */
static inline __attribute__((always_inline)) void
item_place(struct mode_window *w, int where, size_t position, const struct mode_heap_item *item)
{
	struct mode_heap_item *slot = item_at(w, where, position);

	/*
	 * Field by field: an item made in registers (pool_add's) is stored as it is.  For
	 * a copy of the whole, gcc 12 builds it on the stack and loads it back in wider
	 * pieces than it stored, which waits for the stores to finish (swag -w 10 mode:
	 * 169 ms with the whole copied, 158 field by field).
	 */
	slot->count = item->count;
	slot->key = item->key;
	slot->entry = item->entry;
	slot->rank = item->rank;
	w->entries[item->entry].heap_index = (uint32_t)position | (where != IN_HEAP ? POOL_BIT : 0);
}

/*
 * Moves the item at position of the heap or the pool towards the root until its
 * parent comes before it.  The first comparison is made before anything is
 * copied: most items do not move.
 */
static inline __attribute__((always_inline)) void
sift_up(struct mode_window *w, int where, size_t position)
{
	struct mode_heap_item moving;

	if (position == 0 || !heap_before(w, item_at(w, where, position),
	    item_at(w, where, (position - 1) / arity(where))))
		return;
	moving = *item_at(w, where, position);
	do {
		size_t parent = (position - 1) / arity(where);

		item_place(w, where, position, item_at(w, where, parent));
		position = parent;
	} while (position > 0 &&
	    heap_before(w, &moving, item_at(w, where, (position - 1) / arity(where))));
	item_place(w, where, position, &moving);
}

/*
 * Moves the item at position of the heap or the pool towards the leaves until it
 * comes before its children.  Most sifts stop at once, the item still counted more
 * than each child (a dominant value at the root); only a child counted as often can
 * come before it, so that case is told by the counts alone, before the children are
 * compared with each other.
 */
static inline __attribute__((always_inline)) void
sift_down(struct mode_window *w, int where, size_t position)
{
	size_t size = where != IN_HEAP ? w->pool_heap : w->heap_size, k = arity(where);
	struct mode_heap_item moving = *item_at(w, where, position);
	size_t start = position, first = k * position + 1, end, c;

	if (first >= size)
		return;
	end = first + k < size ? first + k : size;
	for (c = first; c < end && item_at(w, where, c)->count < moving.count; c++)
		;
	if (c == end)
		return;
	for (;;) {
		size_t child = first;

		for (c = first + 1; c < end; c++)
			if (heap_before(w, item_at(w, where, c), item_at(w, where, child)))
				child = c;
		if (!heap_before(w, item_at(w, where, child), &moving))
			break;
		item_place(w, where, position, item_at(w, where, child));
		position = child;
		first = k * position + 1;
		if (first >= size)
			break;
		end = first + k < size ? first + k : size;
	}
	if (position != start)
		item_place(w, where, position, &moving);
}

/*
 * Takes the item at position out of the heap or the pool's ordered part, which
 * shrinks by one; the last item fills the gap and goes whichever way its order
 * sends it.
 */
static inline __attribute__((always_inline)) void
item_remove(struct mode_window *w, int where, size_t position)
{
	size_t last = where != IN_HEAP ? --w->pool_heap : --w->heap_size;

	if (position == last)
		return;
	item_place(w, where, position, item_at(w, where, last));
	if (position > 0 && heap_before(w, item_at(w, where, position),
	    item_at(w, where, (position - 1) / arity(where))))
		sift_up(w, where, position);
	else
		sift_down(w, where, position);
}

/* Moves the heap's item at position towards the root as far as its order says. */
static void
heap_sift_up(struct mode_window *w, size_t position)
{
	sift_up(w, IN_HEAP, position);
}

/* Moves the heap's item at position towards the leaves as far as its order says. */
static void
heap_sift_down(struct mode_window *w, size_t position)
{
	sift_down(w, IN_HEAP, position);
}

/* Takes the item at position out of the heap. */
static void
heap_remove(struct mode_window *w, size_t position)
{
	item_remove(w, IN_HEAP, position);
}

/*
 * Gives item its rank and order key, read from its entry's text by the man page's
 * number grammar, unless it has them already.  Done lazily: most entries of a
 * long-tailed stream arrive once and leave again without ever being compared.
 */
static void
item_read_key(const struct mode_window *w, struct mode_heap_item *item)
{
	const struct mode_entry *e;
	double number = 0.0;

	if (item->rank != RANK_UNKNOWN)
		return;
	e = &w->entries[item->entry];
	item->rank = RANK_TEXT;
	if (parse_number(entry_text(e), e->text_len, &number))
		item->rank = isnan(number) ? RANK_NAN : RANK_NUMBER;
	item->key = order_key((enum mode_rank)item->rank, number, entry_text(e), e->text_len);
}

/* Adds item (counted once) to the pool's unordered part; the item array must have room. */
static inline void
pool_add(struct mode_window *w, struct mode_heap_item item)
{
	item_place(w, pool_where(w), w->pool_size++, &item);
}

/*
 * Takes the item at position out of the pool's ordered part, whose gap at its end
 * the unordered part's last item fills; the pool's items are where where says.
 */
static inline __attribute__((always_inline)) void
pool_remove_ordered_in(struct mode_window *w, int where, size_t position)
{
	size_t last;

	item_remove(w, where, position);
	last = --w->pool_size;
	if (last != w->pool_heap)
		item_place(w, where, w->pool_heap, item_at(w, where, last));
}

/*
 * pool_remove_ordered_in, with a copy for a pool that is not moving.  Out of line, as
 * are the other paths that order the pool: the hot callers then need no stack frame
 * for the sifts.
 */
static __attribute__((noinline)) void
pool_remove_ordered(struct mode_window *w, size_t position)
{
	if (pool_where(w) == IN_POOL_MOVING)
		pool_remove_ordered_in(w, IN_POOL_MOVING, position);
	else
		pool_remove_ordered_in(w, IN_POOL, position);
}

/* Takes the item at position out of the pool. */
static inline void
pool_remove(struct mode_window *w, size_t position)
{
	size_t last;

	if (position < w->pool_heap) {
		pool_remove_ordered(w, position);
		return;
	}
	last = --w->pool_size;
	if (position != last)
		item_place(w, pool_where(w), position, item_at(w, pool_where(w), last));
}

/*
 * Orders the pool's unordered items into its heap, one sift up each, until the
 * heap holds need of them; the pool's items are where where says.
 */
static inline __attribute__((always_inline)) void
pool_order_in(struct mode_window *w, int where, size_t need)
{
	while (w->pool_heap < need) {
		size_t position = w->pool_heap++;

		item_read_key(w, item_at(w, where, position));
		sift_up(w, where, position);
	}
}

/* pool_order_in, with a copy for a pool that is not moving. */
static __attribute__((noinline)) void
pool_order(struct mode_window *w, size_t need)
{
	if (pool_where(w) == IN_POOL_MOVING)
		pool_order_in(w, IN_POOL_MOVING, need);
	else
		pool_order_in(w, IN_POOL, need);
}

/*
 * Keeps the pool ordered enough that its first item is ready whenever the heap
 * empties: at most POOL_SLACK unordered items per value the window holds beyond
 * its distinct ones (the excess, which is 0 exactly when the heap is empty, and
 * which one push or pop lowers by at most 1).  Called once a step, after its pops
 * and its push, each of which adds at most one unordered item and lowers the excess
 * by at most one, so it orders at most POOL_SLACK + 2 items in a row window's step.  A heap's prefix is a
 * heap, so when the excess grows the ordered part shrinks at no cost, and an item
 * ordered again later costs one comparison while its ancestors stay.
 */
static inline __attribute__((always_inline)) void
pool_balance(struct mode_window *w)
{
	uint64_t allowed = (w->values - w->table.count) * POOL_SLACK;
	size_t need = w->pool_size > allowed ? w->pool_size - (size_t)allowed : 0;

	if (w->pool_heap >= need)
		w->pool_heap = need;
	else
		pool_order(w, need);
}

/*
 * Returns the pool's first item in the tie-break order.  The heap must be empty,
 * the pool not, and pool_balance must have run since the last change, so that the
 * whole pool is its ordered part.
 */
static inline const struct mode_heap_item *
pool_first(struct mode_window *w)
{
	return item_at(w, pool_where(w), 0);
}

/* The table's slots, for hashtable.h: the tag holds the top bits its home comes from. */
HASHTABLE_INLINE bool
slot_occupied(const void *slot)
{
	return ((const struct mode_slot *)slot)->entry != 0;
}

HASHTABLE_INLINE uint64_t
slot_hash(const struct hashtable *table, const void *slot)
{
	(void)table;
	return (uint64_t)((const struct mode_slot *)slot)->tag << 32;
}

/*
 * Grown and shrunk a step at a time (hashtable.h's moves), so that no record pays for
 * the whole table: a lookup's miss consults the old table only while one holds keys,
 * in one branch that is not taken but during a move (see table_find).
 */
static const struct hashtable_ops slot_ops = { sizeof(struct mode_slot), slot_occupied,
    slot_hash, true, true };

/* A text as a search looks for it, with the entries that the slots name. */
struct mode_search {
	uint64_t hash;
	const char *text;
	size_t len;
	const struct mode_entry *entries;
};

/* Whether the slot's entry holds the text that key (a struct mode_search) describes. */
HASHTABLE_INLINE bool
slot_matches(const void *slot, const void *key)
{
	const struct mode_slot *s = slot;
	const struct mode_search *k = key;
	const struct mode_entry *e;

	if (s->tag != (uint32_t)(k->hash >> 32))
		return false;
	e = &k->entries[s->entry - 1];
	if (e->text_len != k->len)
		return false;
	return k->len <= SHORT_TEXT_MAX ? short_equal(e->short_text, k->text, k->len) :
	    memcmp(e->long_text, k->text, k->len) == 0;
}

/* Whether the slot names the entry *key + 1 (a uint32_t). */
HASHTABLE_INLINE bool
slot_names(const void *slot, const void *key)
{
	return ((const struct mode_slot *)slot)->entry == *(const uint32_t *)key;
}

/*
 * table_find's sequel during a move, for a text the table does not hold (key, whose
 * search of the table ended at the free slot *index): returns whether the old table
 * held it, having then moved it to slot *index (hashtable_find_old).  Out of line, so
 * that the inlined lookup keeps its registers.
 */
static __attribute__((noinline)) bool
table_find_old(struct mode_window *w, const struct mode_search *key, size_t *index)
{
	return hashtable_find_old(&w->table, &slot_ops, key->hash, slot_matches, key, *index);
}

/*
 * Looks up text[0..len) whose hash is hash.  Returns its entry, or NO_ENTRY when the
 * window does not hold it, in which case *empty_slot is where it would go.
 */
static inline __attribute__((always_inline)) uint32_t
table_find(struct mode_window *w, const char *text, size_t len, uint64_t hash,
    size_t *empty_slot)
{
	struct mode_search key = { hash, text, len, w->entries };
	size_t index;
	bool found = hashtable_find(&w->table, &slot_ops, hash, slot_matches, &key, &index);

	TEST_COUNT(w->lookups, 1);
	TEST_COUNT(w->probes, hashtable_probe_length(&w->table, hash, index));
	if (!found && __builtin_expect(w->table.old.count != 0, 0))
		found = table_find_old(w, &key, &index);
	if (!found) {
		*empty_slot = index;
		return NO_ENTRY;
	}
	return ((const struct mode_slot *)hashtable_slot(&w->table, sizeof(struct mode_slot),
	    index))->entry - 1;
}

/*
 * table_delete's sequel during a move, for an entry that the table does not hold,
 * whose search of the table ended at the free slot index: the entry is in the old
 * table, moves to slot index (hashtable_find_old) and leaves from there.  Out of line
 * and called in tail position with only the entry, so that table_delete keeps few
 * registers live (-w 1000 mode: 61.7 instructions a record in table_delete with the
 * hash and the name kept for a call in its middle, 51.8 so, 45.1 with no move).
 */
static __attribute__((noinline)) void
table_delete_old(struct mode_window *w, uint32_t entry, size_t index)
{
	uint32_t named = entry + 1;

	(void)hashtable_find_old(&w->table, &slot_ops, entry_hash(&w->entries[entry]),
	    slot_names, &named, index);
	hashtable_remove(&w->table, &slot_ops, index);
}

/* Takes entry, which the table holds, out of it. */
static void
table_delete(struct mode_window *w, uint32_t entry)
{
	uint32_t named = entry + 1;
	uint64_t hash = entry_hash(&w->entries[entry]);
	size_t index;

	if (!hashtable_find(&w->table, &slot_ops, hash, slot_names, &named, &index)) {
		table_delete_old(w, entry, index);
		return;
	}
	hashtable_remove(&w->table, &slot_ops, index);
}

/*
 * Grows the block p of n bytes from mem_zalloc (none when n is 0) to size bytes,
 * keeping its bytes, the rest zero: by mem_remap, which moves pages and not bytes,
 * when the block is mapped already, else into a new block, copying fewer than
 * MEM_MAP_MIN bytes.  So no growth of the entry and item arrays copies more than a
 * constant (a million entries were 56 MB).  Returns the block, or NULL when memory
 * is short (p is then untouched).
 */
static void *
block_grow(struct mode_window *w, void *p, size_t n, size_t size)
{
	void *grown;

	(void)w;	/* read by the counters of test builds only */
	if (n >= MEM_MAP_MIN)
		return mem_remap(p, n, size);
	grown = mem_zalloc(size);
	if (grown != NULL && n != 0) {
		memcpy(grown, p, n);
		TEST_COUNT_BYTES(w->bytes_moved, n);
		mem_zfree(p, n);
	}
	return grown;
}

/*
 * Returns an entry never used before, growing the array when it is full, or
 * NO_ENTRY when memory is short or the window already holds ENTRY_LIMIT values.
 */
static __attribute__((noinline)) uint32_t
entry_allocate_new(struct mode_window *w)
{
	if (w->entry_used == w->entry_capacity) {
		size_t capacity = w->entry_capacity < ENTRY_MIN ? ENTRY_MIN : 2 * w->entry_capacity;
		size_t bytes;
		struct mode_entry *entries;

		if (capacity > ENTRY_LIMIT)
			capacity = ENTRY_LIMIT;
		if (capacity == w->entry_capacity ||
		    mem_array_size(capacity, sizeof(*entries), &bytes) != 0)
			return NO_ENTRY;
		/* The new entries come zeroed: no text buffers. */
		entries = block_grow(w, w->entries, w->entry_bytes, bytes);
		if (entries == NULL)
			return NO_ENTRY;
		w->entries = entries;
		w->entry_bytes = bytes;
		w->entry_capacity = capacity;
	}
	return (uint32_t)w->entry_used++;
}

/*
 * Returns an entry not in use, from the free list or by growing the array, or
 * NO_ENTRY when memory is short or the window already holds ENTRY_LIMIT values.
 */
static inline uint32_t
entry_allocate(struct mode_window *w)
{
	uint32_t entry = w->free_entry;

	if (entry == NO_ENTRY)
		return entry_allocate_new(w);
	w->free_entry = w->entries[entry].heap_index;
	return entry;
}

/*
 * A spare long-text buffer's first bytes: the next spare and the buffer's size.  A
 * long text's buffer holds more than SHORT_TEXT_MAX bytes, so they fit.
 */
struct spare_text {
	char *next;
	size_t capacity;
};
_Static_assert(sizeof(struct spare_text) <= SHORT_TEXT_MAX + 1,
    "a spare's link fits any long-text buffer");

/*
 * Takes e's long-text buffer from it: the buffer joins the spares for the next long
 * text, unless SPARE_TEXTS_MAX wait already or it is big enough that keeping it would
 * hold memory a past outlier asked for; then it is freed, and counted for mem_idle's
 * trim.  A free entry thus holds no buffer, so that a burst of long texts (request
 * paths, user agents) gives their memory back as they leave, while a step, which frees
 * and takes about as many entries, finds a spare.  Out of line: texts that fit an
 * entry never come here.
 */
static __attribute__((noinline)) void
entry_release_long_text(struct mode_window *w, struct mode_entry *e)
{
	if (e->long_capacity <= LONG_TEXT_KEEP && w->spare_count < SPARE_TEXTS_MAX) {
		struct spare_text spare = { w->spare_texts, e->long_capacity };

		memcpy(e->long_text, &spare, sizeof(spare));
		w->spare_texts = e->long_text;
		w->spare_count++;
	} else {
		mem_free(e->long_text);
		mem_note_freed(e->long_capacity);
	}
	e->long_text = NULL;
	e->long_capacity = 0;
}

/* Returns entry to the free list, its long-text buffer to the spares. */
static inline void
entry_release(struct mode_window *w, uint32_t entry)
{
	struct mode_entry *e = &w->entries[entry];

	if (__builtin_expect(e->text_len > SHORT_TEXT_MAX, 0))
		entry_release_long_text(w, e);
	e->text_len = 0;
	e->heap_index = w->free_entry;
	w->free_entry = entry;
	if (entry == w->kept_entry)
		w->kept_entry = NO_ENTRY;
}

/*
 * Copies text[0..len), longer than SHORT_TEXT_MAX, into e's long buffer, a spare one
 * when e has none.  Returns 0, or -1 when memory is short.
 */
static __attribute__((noinline)) int
entry_set_long_text(struct mode_window *w, struct mode_entry *e, const char *text,
    size_t len)
{
	e->long_text = NULL;
	e->long_capacity = 0;
	if (w->spare_texts != NULL) {
		struct spare_text spare;

		memcpy(&spare, w->spare_texts, sizeof(spare));
		e->long_text = w->spare_texts;
		e->long_capacity = spare.capacity;
		w->spare_texts = spare.next;
		w->spare_count--;
	}
	if (len > e->long_capacity) {
#ifdef SWAG_TEST_COUNTERS
		w->text_allocations++;
#endif
		char *copy = mem_realloc(e->long_text, len);

		if (copy == NULL) {
			/* A spare taken goes back with the entry (entry_release). */
			e->text_len = e->long_text != NULL ? len : 0;
			return -1;
		}
		e->long_text = copy;
		e->long_capacity = len;
	}
	memcpy(e->long_text, text, len);
	e->text_len = len;
	return 0;
}

/* Copies text[0..len) into e.  Returns 0, or -1 when memory is short. */
static inline int
entry_set_text(struct mode_window *w, struct mode_entry *e, const char *text, size_t len)
{
	if (len > SHORT_TEXT_MAX)
		return entry_set_long_text(w, e, text, len);
	short_copy(e->short_text, text, len);
	e->text_len = len;
	return 0;
}

/* Moves the pool's item at position from where it was before the array grew. */
static inline void
pool_migrate_one(struct mode_window *w, size_t position)
{
	w->items[w->item_capacity - 1 - position] = w->items[w->pool_old_end - 1 - position];
	TEST_COUNT_BYTES(w->bytes_moved, sizeof(*w->items));
}

/*
 * One step of the pool's move to the end of the grown item array (see items_grow):
 * its last position not yet moved, whose slot the heap reaches first, and three from
 * its first, whose slots the pool's new positions past the old array's size reach.
 */
static __attribute__((noinline)) void
pool_migrate(struct mode_window *w)
{
	if (w->pool_hi > w->pool_size)
		w->pool_hi = w->pool_size;	/* positions past the pool hold nothing */
	if (w->pool_lo < w->pool_hi)
		pool_migrate_one(w, --w->pool_hi);
	for (int n = 0; n < 3 && w->pool_lo < w->pool_hi; n++)
		pool_migrate_one(w, w->pool_lo++);
	if (w->pool_lo >= w->pool_hi)
		w->pool_lo = w->pool_hi = 0;
}

/*
 * Makes room in the full item array for one more entry.  The array doubles in place
 * (block_grow) and the pool, which lives at its end, follows four positions a step
 * (pool_migrate), so that no step moves it all (12 MB at -w 1000000 over 0, 0, 1,
 * 2, ...).  Its positions not yet moved stay where they were: the heap, which grows
 * by at most one item a step, reaches the old slot of the pool's last one first, and
 * the pool, which grows by at most one a step past the old array's size C, puts its
 * position C + q where position q was; so each step moves one of the first and three
 * of the second.  Returns 0, or -1 when memory is short, in which case nothing
 * changed.
 */
static __attribute__((noinline)) int
items_grow(struct mode_window *w)
{
	size_t old = w->item_capacity, capacity = old < ENTRY_MIN ? ENTRY_MIN : 2 * old;
	size_t bytes;
	struct mode_heap_item *items;

	if (mem_array_size(capacity, sizeof(*items), &bytes) != 0)
		return -1;
	/* Rare: the last growth's pool not all moved yet (a step moves 4, 1 comes). */
	while (w->pool_hi != 0)
		pool_migrate(w);
	items = block_grow(w, w->items, w->item_bytes, bytes);
	if (items == NULL)
		return -1;
	w->items = items;
	w->item_bytes = bytes;
	w->item_capacity = capacity;
	w->pool_old_end = old;
	w->pool_lo = 0;
	w->pool_hi = w->pool_size;
	/* The array was full: the heap's next item and the pool's go where two were. */
	pool_migrate(w);
	return 0;
}

/* Moves the pool's item at position, now counted twice, into the heap. */
static __attribute__((noinline)) void
pool_promote(struct mode_window *w, size_t position)
{
	struct mode_heap_item item = *item_at(w, pool_where(w), position);

	pool_remove(w, position);
	item_read_key(w, &item);
	item.count = 2;
	item_place(w, IN_HEAP, w->heap_size, &item);
	heap_sift_up(w, w->heap_size++);
}

/*
 * Counts one occurrence fewer of the heap's item at index, which moves into the
 * pool when it is left counted once.
 */
static __attribute__((noinline)) void
heap_count_less(struct mode_window *w, size_t index)
{
	struct mode_heap_item item;

	if (w->items[index].count > 2) {
		w->items[index].count--;
		heap_sift_down(w, index);
		return;
	}
	item = w->items[index];
	heap_remove(w, index);
	item.count = 1;
	pool_add(w, item);
}

/*
 * Counts one more occurrence of text[0..len), whose hash is hash, in the window,
 * making an entry for it when it is new.  Returns its entry, or NO_ENTRY when memory is short, in which
 * case the window is as it was.
 */
static inline __attribute__((always_inline)) uint32_t
mode_count_text(struct mode_window *w, const char *text, size_t len, uint64_t hash)
{
	size_t slot;
	uint32_t entry = table_find(w, text, len, hash, &slot);
	struct mode_entry *e;

	if (entry != NO_ENTRY) {
		uint32_t index = w->entries[entry].heap_index;

		w->values++;
		if ((index & POOL_BIT) == 0) {
			w->items[index].count++;
			heap_sift_up(w, index);
			return entry;
		}
		pool_promote(w, index & ~POOL_BIT);
		return entry;
	}
	if (hashtable_make_room(&w->table, &slot_ops, hash, &slot) != 0)
		return NO_ENTRY;
	if (w->table.count == w->item_capacity && items_grow(w) != 0)
		return NO_ENTRY;
	entry = entry_allocate(w);
	if (entry == NO_ENTRY)
		return NO_ENTRY;
	e = &w->entries[entry];
	if (entry_set_text(w, e, text, len) != 0) {
		entry_release(w, entry);
		return NO_ENTRY;
	}
	e->tag = (uint32_t)(hash >> 32);
	*(struct mode_slot *)hashtable_claim(&w->table, sizeof(struct mode_slot), slot) =
	    (struct mode_slot){ (uint32_t)(hash >> 32), entry + 1 };
	pool_add(w, (struct mode_heap_item){ .count = 1, .entry = entry, .rank = RANK_UNKNOWN });
	w->values++;
	return entry;
}

/*
 * Counts one occurrence of entry fewer, dropping the entry, its table slot and its
 * item when it was the last one.  Shrinks the table when it is mostly empty
 * (hashtable_trim).
 */
static inline __attribute__((always_inline)) void
mode_uncount_entry(struct mode_window *w, uint32_t entry)
{
	uint32_t index = w->entries[entry].heap_index;

	w->values--;
	if ((index & POOL_BIT) == 0) {
		heap_count_less(w, index);
		return;
	}
	pool_remove(w, index & ~POOL_BIT);
	table_delete(w, entry);
	entry_release(w, entry);
	hashtable_trim(&w->table, &slot_ops);
}

/* The agg_kind functions. */

/*
 * Makes an empty mode window with params (whose hash_seed seeds the table).
 * Returns it, or NULL when memory is short.
 */
static struct agg *
mode_create(const struct agg_kind *kind, const struct agg_params *params)
{
	struct mode_window *w = mem_realloc(NULL, sizeof(*w));

	if (w == NULL)
		return NULL;
	memset(w, 0, sizeof(*w));
	w->header.kind = kind;
	w->header.params = *params;
	w->free_entry = NO_ENTRY;
	ring_init(&w->ring);
	ring_set_limit(&w->ring, agg_ring_limit(params));
	hashtable_init(&w->table, params->hash_seed);
	if (hashtable_reserve(&w->table, &slot_ops, 0) != 0) {
		mem_free(w);
		return NULL;
	}
	return &w->header;
}

/* Frees agg and everything it owns. */
static void
mode_destroy(struct agg *agg)
{
	struct mode_window *w = (struct mode_window *)agg;

	if (w == NULL)
		return;
	for (size_t i = 0; i < w->entry_used; i++)
		if (w->entries[i].text_len > SHORT_TEXT_MAX)
			mem_free(w->entries[i].long_text);
	while (w->spare_texts != NULL) {
		struct spare_text spare;

		memcpy(&spare, w->spare_texts, sizeof(spare));
		mem_free(w->spare_texts);
		w->spare_texts = spare.next;
	}
	mem_zfree(w->entries, w->entry_bytes);
	mem_zfree(w->items, w->item_bytes);
	mem_free(w->result_texts);
	hashtable_free(&w->table);
	ring_free(&w->ring);
	mem_free(w);
}

/*
 * Appends one record's field: counted when value->has_text, a missing slot
 * otherwise; hash is its text's hash, or NULL for mode_push to work it out.  The
 * text is copied.  Returns 0, or -1 when memory is short, in which case the window
 * is as it was.
 */
static inline __attribute__((always_inline)) int
mode_push(struct agg *agg, const struct agg_value *value, const uint64_t *hash)
{
	struct mode_window *w = (struct mode_window *)agg;
	uint32_t entry = NO_ENTRY;

	if (ring_reserve(&w->ring, sizeof(uint32_t)) != 0)
		return -1;
	if (value->has_text) {
		entry = mode_count_text(w, value->text, value->text_len, hash != NULL ? *hash :
		    hashtable_hash_bytes(&w->table, value->text, value->text_len));
		if (entry == NO_ENTRY)
			return -1;
	}
	*RING_AT(&w->ring, uint32_t, w->ring.tail++) = entry;
	return 0;
}

/* Removes the oldest slot; the window must not be empty.  Never fails. */
static inline __attribute__((always_inline)) void
mode_pop(struct agg *agg)
{
	struct mode_window *w = (struct mode_window *)agg;
	uint32_t entry = *RING_FRONT(&w->ring, uint32_t);

	w->ring.head++;
	if (entry != NO_ENTRY)
		mode_uncount_entry(w, entry);
	/*
	 * A quarter full: give memory back after a burst, without thrashing at the edge.
	 * Should memory be short, the larger ring simply stays.
	 */
	if (w->ring.cap > RING_FIRST_CAP && ring_count(&w->ring) * 4 < w->ring.cap)
		(void)ring_resize(&w->ring, sizeof(uint32_t), w->ring.cap / 2);
}

/*
 * Returns the entry of the mode, or NO_ENTRY for a null result: when the window holds
 * no value or fewer than -m.
 */
static inline __attribute__((always_inline)) uint32_t
mode_result_entry(const struct mode_window *w)
{
	if (w->values == 0 || w->values < w->header.params.min_count)
		return NO_ENTRY;
	return w->heap_size != 0 ? w->items[0].entry : pool_first((struct mode_window *)w)->entry;
}

/* Returns the number of window slots, missing fields included. */
AGG_INLINE uint64_t
mode_size(const struct agg *agg)
{
	return ring_count(&((const struct mode_window *)agg)->ring);
}

/*
 * Stores in *result the text of entry (a null result for NO_ENTRY), copied to the
 * move's result texts at *used unless they hold it already (kept_entry), its offset
 * kept in result->count until mode_move points it there.  Returns 0, or -1 when
 * memory is short.
 */
static inline __attribute__((always_inline)) int
mode_keep_text(struct mode_window *w, uint32_t entry, struct agg_result *result,
    size_t *used)
{
	const struct mode_entry *e;

	if (entry == NO_ENTRY) {
		result->kind = AGG_RESULT_NULL;
		return 0;
	}
	e = &w->entries[entry];
	result->kind = AGG_RESULT_TEXT;
	result->text_len = e->text_len;
	if (entry == w->kept_entry) {
		result->count = w->kept_offset;
		return 0;
	}
	/* Room to read AGG_TEXT_READABLE bytes from the text's start. */
	if (*used + e->text_len + AGG_TEXT_READABLE > w->result_texts_cap &&
	    mem_grow(&w->result_texts, &w->result_texts_cap,
	    *used + e->text_len + AGG_TEXT_READABLE, 1, 256) != 0)
		return -1;
	if (e->text_len <= SHORT_TEXT_MAX)
		short_copy(w->result_texts + *used, e->short_text, e->text_len);
	else
		memcpy(w->result_texts + *used, e->long_text, e->text_len);
	result->count = *used;
	w->kept_entry = entry;
	w->kept_offset = *used;
	*used += e->text_len;
	return 0;
}

/* Returns the entry that the home slot for hash names when its tag matches, or NULL. */
static inline __attribute__((always_inline)) const struct mode_entry *
lookahead_entry(const struct mode_window *w, uint64_t hash)
{
	const struct mode_slot *slot = hashtable_slot(&w->table, sizeof(struct mode_slot),
	    hashtable_home(&w->table, hash));

	if (slot->entry == 0 || slot->tag != (uint32_t)(hash >> 32))
		return NULL;
	return &w->entries[slot->entry - 1];
}

/* Returns the entry at position of the ring, or NULL when the ring holds none there. */
static inline __attribute__((always_inline)) const struct mode_entry *
lookahead_leaving(const struct mode_window *w, uint64_t position)
{
	uint32_t entry;

	if (position >= w->ring.tail)
		return NULL;
	entry = *RING_AT(&w->ring, uint32_t, position);
	return entry == NO_ENTRY ? NULL : &w->entries[entry];
}

/* Asks for the cache line of the item of entry e, when there is one. */
static inline __attribute__((always_inline)) void
lookahead_item(struct mode_window *w, const struct mode_entry *e)
{
	uint32_t index;

	if (e == NULL)
		return;
	index = e->heap_index;
	__builtin_prefetch((index & POOL_BIT) != 0 ? item_at(w, pool_where(w), index & ~POOL_BIT) :
	    &w->items[index]);
}

/*
 * Returns the hash of value's text.  Out of line and flattened, so that the plain
 * move keeps the only other call of the hash function, which the compiler then
 * inlines there.
 */
static __attribute__((noinline, flatten)) uint64_t
lookahead_hash(const struct mode_window *w, const struct agg_value *value)
{
	return hashtable_hash_bytes(&w->table, value->text, value->text_len);
}

/*
 * Asks for what step j + LOOKAHEAD_FAR, j + LOOKAHEAD_MID and j + LOOKAHEAD_NEAR of a
 * row window's move m will read, as mode_move says, hashing the texts of the first:
 * step k's hash is kept at hashes[k % LOOKAHEAD_HASHES].  Out of line: the move's
 * step keeps the compiler's inlining budget.
 */
static __attribute__((noinline)) void
lookahead(struct mode_window *w, const struct agg_move *m, size_t j, uint64_t *hashes)
{
	const struct mode_entry *e;

	for (size_t k = j == 0 ? 0 : j + LOOKAHEAD_FAR; k <= j + LOOKAHEAD_FAR && k < m->n;
	    k++) {
		const struct agg_value *value = &m->values[m->index != NULL ? m->index[k] : k];

		if (value->has_text) {
			hashes[k % LOOKAHEAD_HASHES] = lookahead_hash(w, value);
			__builtin_prefetch(hashtable_slot(&w->table, sizeof(struct mode_slot),
			    hashtable_home(&w->table, hashes[k % LOOKAHEAD_HASHES])));
		}
		if ((e = lookahead_leaving(w, w->ring.head + (k - j))) != NULL)
			__builtin_prefetch(&e->heap_index);
	}
	if (j + LOOKAHEAD_MID < m->n) {
		size_t k = j + LOOKAHEAD_MID;

		if (m->values[m->index != NULL ? m->index[k] : k].has_text &&
		    (e = lookahead_entry(w, hashes[k % LOOKAHEAD_HASHES])) != NULL)
			__builtin_prefetch(&e->heap_index);
		if ((e = lookahead_leaving(w, w->ring.head + LOOKAHEAD_MID)) != NULL) {
			lookahead_item(w, e);
			/* Seen once, it leaves the table too. */
			if ((e->heap_index & POOL_BIT) != 0)
				__builtin_prefetch(hashtable_slot(&w->table,
				    sizeof(struct mode_slot), hashtable_home(&w->table, entry_hash(e))));
		}
	}
	if (j + LOOKAHEAD_NEAR < m->n) {
		size_t k = j + LOOKAHEAD_NEAR;

		if (m->values[m->index != NULL ? m->index[k] : k].has_text)
			lookahead_item(w, lookahead_entry(w, hashes[k % LOOKAHEAD_HASHES]));
	}
}

/*
 * Step j of move m, hash being the hash of its value's text (any value when it has
 * none) or NULL for mode_push to work it out: the evictions, the push and the result, whose text is copied to the move's
 * result texts at *used (see result_texts).  Returns false when memory ran short.
 */
static inline __attribute__((always_inline)) bool
mode_step(struct mode_window *w, const struct agg_move *m, size_t j, const uint64_t *hash,
    size_t *used)
{
	size_t r = m->index != NULL ? m->index[j] : j;
	bool failed;

	if (m->evict != NULL)
		for (uint32_t e = m->evict[j]; e > 0; e--)
			mode_pop(&w->header);
	else if (m->values != NULL && mode_size(&w->header) == m->rows)
		mode_pop(&w->header);
	failed = m->values != NULL && mode_push(&w->header, &m->values[r], hash) != 0;
	pool_balance(w);
	if (__builtin_expect(w->pool_hi != 0, 0))
		pool_migrate(w);
	if (failed)
		return false;
	if (m->results != NULL && (m->want == NULL || m->want[r])) {
		if (mode_keep_text(w, mode_result_entry(w), &m->results[r], used) != 0)
			return false;
	}
	return true;
}

/*
 * The steps of a row window's move m (m->values set, m->evict not) that look ahead,
 * as mode_move says; *used as for mode_step.  Returns the number made, as mode_move.
 */
static __attribute__((noinline)) size_t
mode_move_ahead(struct mode_window *w, const struct agg_move *m, size_t *used)
{
	uint64_t hashes[LOOKAHEAD_HASHES];
	size_t j;

	for (j = 0; j < m->n; j++) {
		lookahead(w, m, j, hashes);
		if (!mode_step(w, m, j, &hashes[j % LOOKAHEAD_HASHES], used))
			break;
	}
	return j;
}

/*
 * The window moved step by step, as agg_move_steps does, each result's text copied
 * (see result_texts) so that all of the move's results stay valid until the next move.
 *
 * Once the window's table, entries and items no longer fit in the caches near the
 * core, nearly every access of a step is a miss, and a step waits for each in turn:
 * the table slot gives the entry, the entry its item.  A row window's move then
 * looks ahead in its batch (mode_move_ahead): LOOKAHEAD_FAR steps on it asks for the
 * arriving text's table slot and for the leaving entry, LOOKAHEAD_MID steps on for
 * the arriving entry and the leaving item, and LOOKAHEAD_NEAR steps on for the
 * arriving item, so that the misses of several steps overlap.  -w 100000 mode over
 * 2 million IPv4-like texts (make bench's): 0.77 s without, 0.55 s with (medians of
 * seven alternating runs on the 2-core machine while others ran), the lookahead
 * costing some 200 instructions a step, its early hash included; asking also for
 * the parent or the children that a sift compares first won nothing measurable.
 * Below LOOKAHEAD_TABLE slots the structures stay in cache and the lookahead would
 * only cost instructions: at -w 1000 the move costs 3 a record more for having it
 * at all.
 */
static size_t
mode_move(struct agg *agg, const struct agg_move *m)
{
	struct mode_window *w = (struct mode_window *)agg;
	size_t j, used = 0;

	w->kept_entry = NO_ENTRY;
	if (m->evict == NULL && m->values != NULL &&
	    hashtable_capacity(&w->table) >= LOOKAHEAD_TABLE) {
		j = mode_move_ahead(w, m, &used);
	} else {
		for (j = 0; j < m->n; j++)
			if (!mode_step(w, m, j, NULL, &used))
				break;
	}
	/* The texts have stopped moving: the results point at them now. */
	for (size_t i = 0; i < j && m->results != NULL; i++) {
		struct agg_result *result = &m->results[m->index != NULL ? m->index[i] : i];

		if ((m->want == NULL || m->want[m->index != NULL ? m->index[i] : i]) &&
		    result->kind == AGG_RESULT_TEXT)
			result->text = w->result_texts + result->count;
	}
	return j;
}

const struct agg_kind agg_mode = {
	"mode", AGG_INPUT_TEXT, mode_create, mode_destroy, mode_move, false, false
};

/* Stores agg's counters and sizes in *stats (see agg_mode.h). */
void
agg_mode_stats(const struct agg *agg, struct mode_stats *stats)
{
	const struct mode_window *w = (const struct mode_window *)agg;

	stats->distinct = w->table.count;
	stats->table_capacity = hashtable_capacity(&w->table);
	stats->entry_capacity = w->entry_capacity;
	stats->ring_capacity = w->ring.cap;
}

#ifdef SWAG_TEST_COUNTERS
/* The bytes of agg's long-text buffers (see agg_mode.h): a walk of every entry. */
size_t
agg_mode_text_bytes(const struct agg *agg)
{
	const struct mode_window *w = (const struct mode_window *)agg;
	size_t bytes = 0;

	for (size_t i = 0; i < w->entry_used; i++)
		if (w->entries[i].text_len > SHORT_TEXT_MAX)
			bytes += w->entries[i].long_capacity;
	for (const char *p = w->spare_texts; p != NULL;) {
		struct spare_text spare;

		memcpy(&spare, p, sizeof(spare));
		bytes += spare.capacity;
		p = spare.next;
	}
	return bytes;
}

/* Stores agg's counters in *counters (see agg_mode.h). */
void
agg_mode_counters(const struct agg *agg, struct mode_counters *counters)
{
	const struct mode_window *w = (const struct mode_window *)agg;

	counters->lookups = w->lookups;
	counters->probes = w->probes;
	counters->heap_comparisons = w->heap_comparisons;
	counters->bytes_moved = w->bytes_moved;
	counters->text_allocations = w->text_allocations;
}
#endif
