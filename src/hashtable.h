/*
 * hashtable.h: the seeded hash table that every structure looking values up by key
 * uses (the group keys of keytable.c, mode's texts, distinct's exact multiset).
 *
 * Open addressing with linear probing, in one array of fixed-size slots whose
 * layout is the caller's: struct hashtable_ops says how big a slot is, whether it
 * holds a key, and the hash its key was placed by.  A key's home is the top bits of
 * that hash; a search walks from there to the key or to the first free slot.  The
 * table is at most half full, so a search examines about 1.5 slots when it finds its
 * key and 2.5 when it does not (Knuth's estimates for linear probing); a sparse table
 * (the ops say so: mode's) is at most a quarter full, about 1.2 and 1.4 slots, for
 * twice the memory a key.  Deletion shifts the
 * later slots of the probe run back into the hole (Knuth's Algorithm R) instead of
 * leaving a tombstone, so a table that sees keys come and go (mode's values, groups
 * reclaimed in a long tail -f) never slows down with churn and needs no rebuild.
 *
 * Seeded against flooding: the hash of a key comes from hashtable_hash_bytes() or
 * hashtable_hash_u64(), both keyed with the table's seed, the run's
 * (agg_params.hash_seed), so keys crafted to share a home under one seed scatter under
 * another and no input can make the table quadratic.  xxHash (hash.h) hashes the bytes.
 *
 * The lookups are forced inline (HASHTABLE_INLINE), as is each caller's ops and match
 * function: with a constant ops table the compiler turns a search into the probe loop
 * a table written for the slot type would have.
 *
 * When the ops say so (moves: the key table's), growing and shrinking move the keys
 * a few at a time, as Redis's dict does, so that no operation pays for the whole
 * table (rebuilding 2^21 slots at once holds one record 377 ms behind a pipe): the
 * larger (or smaller) table is allocated and becomes the table, the previous one stays
 * as the old table, and every later reserve, make_room or trim moves
 * HASHTABLE_MOVE_STEP of its slots, in slot order from a slot that was free when the
 * move began (so that no probe run of the old table crosses the move's start).  A
 * search that reaches a free slot of the table is followed, while keys are left in
 * the old table, by hashtable_find_old, and a key found there moves to the table at
 * once, so that every index a search gives names a slot of the table.  The old
 * table's moved slots count as passed over, not free, for its searches and its
 * backward shifts, which keeps its unmoved keys reachable.  Sixteen slots a step
 * (thirty-two in a sparse table, twice as large for its keys) finish a growth well
 * before the table is full again, and a shrink before it holds a quarter more keys,
 * or before it empties when its keys leave one a step.  A new table comes zeroed from
 * mem_zalloc (mapped pages when large: no memset), and the old one is unmapped a
 * piece a step (mem_zfree_part) when its last key has moved.  Mode's table moves too, its call of
 * hashtable_find_old kept out of its inlined lookup (agg_mode.c's table_find).
 * Distinct's exact table, at most 2^P/4 keys, moves all its keys in the operation
 * that resizes it: a bounded rebuild.
 *
 * A slot whose bytes are all zero must be free: the table clears slots with memset.
 */
#ifndef SWAG_HASHTABLE_H
#define SWAG_HASHTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "hash.h"

/* Forces inlining, for the lookups and for the ops and match functions they call. */
#define HASHTABLE_INLINE static inline __attribute__((always_inline))

/* The smallest table: 16 slots. */
#define HASHTABLE_MIN_BITS 4

/* The old table's slots that one step of a move passes over. */
#define HASHTABLE_MOVE_STEP 16

/* What the table needs to know of a slot. */
struct hashtable;
struct hashtable_ops {
	size_t slot_size;
	/* Whether the slot holds a key (an all-zero slot must not). */
	bool (*occupied)(const void *slot);
	/* The hash the slot's key was placed by: what hashtable_hash_* gave for it. */
	uint64_t (*hash)(const struct hashtable *table, const void *slot);
	/*
	 * Whether growing and shrinking move the keys a step at a time (a caller's search
	 * then follows a miss with hashtable_find_old while table->old.count is not 0),
	 * or all at once, with nothing more to check (false, an initializer's default).
	 */
	bool moves;
	/*
	 * Whether the table is at most a quarter full, not half (false, the default), for
	 * twice the memory a key.  A search that misses walks its key's probe run to the
	 * first free slot, and a deletion the run after the hole, and how far that is
	 * changes from key to key: where most searches miss and most keys soon leave
	 * (mode's values, mostly new to the window), the end of the run is guessed
	 * wrong 1.2 times a record a quarter full, 2.2 at most half full (callgrind's
	 * branch simulator, -w 1000 mode over make bench's IPv4 strings), and that run
	 * takes 99 ms over 2 million records where half full takes 126 (-w 10 9 % less,
	 * -w 100000 4 %).
	 */
	bool sparse;
};

/* The most keys the table holds before it grows: half its slots, or a quarter. */
HASHTABLE_INLINE size_t
hashtable_limit(size_t slots, const struct hashtable_ops *ops)
{
	return slots >> (1 + ops->sparse);
}

/* Whether the occupied slot holds the key that key describes (a search's own match). */
typedef bool hashtable_match(const void *slot, const void *key);

/* The previous table while its keys move to the table, then while it is freed. */
struct hashtable_old {
	unsigned char *slots;	/* NULL when no table is moving or being freed */
	size_t mask;
	unsigned shift;
	size_t bytes;		/* still allocated (mem_zalloc's block) */
	size_t start;		/* the slot the move began at, free then */
	size_t done;		/* slots start, start + 1, ... (mod mask + 1) moved */
	size_t count;		/* keys left to move: 0 while it is freed */
};

struct hashtable {
	unsigned char *slots;	/* mask + 1 slots, or NULL before the first reserve */
	size_t mask;		/* the capacity minus one; the capacity is a power of two */
	unsigned shift;		/* 64 - log2(capacity): hash >> shift is the home slot */
	size_t count;		/* keys held, with the old table's */
	uint64_t seed;		/* keys the hashes */
	size_t bytes;		/* the slots' block */
	struct hashtable_old old;
};

#ifdef SWAG_TEST_COUNTERS
/*
 * The work of hashtable.c's moves (counters.h: test builds only): the old table's
 * slots the moves' cursors passed, the slots copied from an old table to a new one,
 * the slots examined in either table by a move, by a search of an old table or by a
 * backward shift there, the bytes cleared with memset, the bytes unmapped.
 */
struct hashtable_counters {
	uint64_t passed, moved, probes, zeroed, unmapped;
};
extern struct hashtable_counters hashtable_counters;
#endif

/* Makes an empty table with no slots yet (hashtable_reserve allocates them). */
HASHTABLE_INLINE void
hashtable_init(struct hashtable *table, uint64_t seed)
{
	table->slots = NULL;
	table->mask = 0;
	table->shift = 64;
	table->count = 0;
	table->seed = seed;
	table->bytes = 0;
	memset(&table->old, 0, sizeof(table->old));
}

/* Frees the slots; the table is then as hashtable_init left it. */
void hashtable_free(struct hashtable *table);

/*
 * Makes 2^bits slots (bits at least HASHTABLE_MIN_BITS, and enough for every key
 * within hashtable_limit) the table, the present one becoming the old table whose keys
 * later steps move (a move still under way is finished first).  Returns 0, or -1 when
 * memory is short (the table is then unchanged).
 */
int hashtable_resize(struct hashtable *table, const struct hashtable_ops *ops, unsigned bits);

/* Makes room for n keys (hashtable_limit); hashtable_reserve's out-of-line part. */
int hashtable_grow(struct hashtable *table, const struct hashtable_ops *ops, size_t n);

/*
 * One step of the move under way: the old table's next HASHTABLE_MOVE_STEP slots move
 * (twice as many in a sparse table), or, when none is left, MEM_FREE_STEP bytes of it
 * are freed.  Moves slots of the table's free ones into keys: an index a search gave
 * for a free slot is stale.
 */
void hashtable_step(struct hashtable *table, const struct hashtable_ops *ops);

/*
 * hashtable_make_room's out-of-line part: grows the table or takes a step of the move
 * under way, and finds *index again.  Returns 0, or -1 when memory is short.
 */
int hashtable_make_room_slow(struct hashtable *table, const struct hashtable_ops *ops,
    uint64_t hash, size_t *index);

/*
 * Finishes the move under way at once and frees the old table, so that the table's
 * slots hold every key (for a walk over them).  Its work is the old table's size.
 */
void hashtable_settle(struct hashtable *table, const struct hashtable_ops *ops);


/* The number of slots, 0 before the first reserve. */
HASHTABLE_INLINE size_t
hashtable_capacity(const struct hashtable *table)
{
	return table->slots != NULL ? table->mask + 1 : 0;
}

/* The seeded hash of bytes[0..len) (XXH3 under the table's seed). */
HASHTABLE_INLINE uint64_t
hashtable_hash_bytes(const struct hashtable *table, const void *bytes, size_t len)
{
	return hash_bytes(bytes, len, table->seed);
}

/*
 * The seeded hash of a key that is itself a hash, but of a fixed seed (distinct's
 * fields, whose hash must not change from run to run): the seed and a multiplication
 * decide the top bits, so keys crafted to share them under the fixed seed do not pile
 * up in one run of the table.
 */
HASHTABLE_INLINE uint64_t
hashtable_hash_u64(const struct hashtable *table, uint64_t key)
{
	uint64_t x = key ^ table->seed;

	x ^= x >> 32;
	return x * UINT64_C(0xd6e8feb86659fd93);
}

/* The slot where a search for a key of this hash starts. */
HASHTABLE_INLINE size_t
hashtable_home(const struct hashtable *table, uint64_t hash)
{
	return (size_t)(hash >> table->shift);
}

/* Slot index of the table, whose slots are size bytes. */
HASHTABLE_INLINE void *
hashtable_slot(const struct hashtable *table, size_t size, size_t index)
{
	return table->slots + index * size;
}

/*
 * hashtable_find's sequel while a move is under way (table->old.count not 0), for a
 * key that the table does not hold: returns false, or moves the key from the old
 * table to the table's free slot index, where the search of the table ended (no other
 * slot of the table moves), and returns true.  Out of line, so that the caller's
 * lookup keeps its registers: a caller that may be inlined calls it in tail position.
 */
bool hashtable_find_old(struct hashtable *table, const struct hashtable_ops *ops,
    uint64_t hash, hashtable_match *matches, const void *key, size_t index);

/*
 * Looks for the key that key describes, whose hash is hash, in the table's slots:
 * stores in *index its slot and returns true, or stores the free slot where it would
 * go and returns false.  While a move is under way (ops->moves), a miss is not the
 * last word: see hashtable_find_old.  The table must have slots (hashtable_reserve).
 */
HASHTABLE_INLINE bool
hashtable_find(const struct hashtable *table, const struct hashtable_ops *ops, uint64_t hash,
    hashtable_match *matches, const void *key, size_t *index)
{
	size_t mask = table->mask;

	for (size_t i = hashtable_home(table, hash);; i = (i + 1) & mask) {
		const void *slot = hashtable_slot(table, ops->slot_size, i);

		if (!ops->occupied(slot)) {
			*index = i;
			return false;
		}
		if (matches(slot, key)) {
			*index = i;
			return true;
		}
	}
}

/*
 * hashtable_find for a caller whose match function a free slot may satisfy, where the
 * caller tells the two apart afterwards (the key table: its empty key has a free
 * slot's all-zero words, and an occupied slot's value is never NULL): each slot is
 * matched first and tested for being free only when it does not match, one test less
 * for the slot that holds the key.  Returns true with *index the first slot that
 * matched, which may be free, or false with *index the free slot where the key would
 * go; either way no slot before *index matched or was free.
 */
HASHTABLE_INLINE bool
hashtable_find_matching(const struct hashtable *table, const struct hashtable_ops *ops,
    uint64_t hash, hashtable_match *matches, const void *key, size_t *index)
{
	size_t mask = table->mask;

	for (size_t i = hashtable_home(table, hash);; i = (i + 1) & mask) {
		const void *slot = hashtable_slot(table, ops->slot_size, i);

		if (matches(slot, key)) {
			*index = i;
			return true;
		}
		if (!ops->occupied(slot)) {
			*index = i;
			return false;
		}
	}
}

/* The first free slot from hash's home: where a key known to be absent goes. */
HASHTABLE_INLINE size_t
hashtable_free_index(const struct hashtable *table, const struct hashtable_ops *ops,
    uint64_t hash)
{
	size_t i = hashtable_home(table, hash);

	while (ops->occupied(hashtable_slot(table, ops->slot_size, i)))
		i = (i + 1) & table->mask;
	return i;
}

/*
 * The slots a search for a key of this hash examines to reach slot index (a test's
 * probe count; the key's slot or the free slot hashtable_find gave).
 */
HASHTABLE_INLINE size_t
hashtable_probe_length(const struct hashtable *table, uint64_t hash, size_t index)
{
	return ((index - hashtable_home(table, hash)) & table->mask) + 1;
}

/*
 * Makes room for n keys within hashtable_limit, allocating the first slots
 * or starting a move to a larger table, and takes a step of a move under way (so an
 * index a search gave for a free slot is stale).  Returns 0, or -1 when memory is
 * short (the table is then unchanged).
 */
HASHTABLE_INLINE int
hashtable_reserve(struct hashtable *table, const struct hashtable_ops *ops, size_t n)
{
	if (table->slots != NULL && n <= hashtable_limit(table->mask + 1, ops)) {
		if (ops->moves && __builtin_expect(table->old.slots != NULL, 0))
			hashtable_step(table, ops);
		return 0;
	}
	return hashtable_grow(table, ops, n);
}

/*
 * Makes room for one more key, whose hash is hash and whose free slot a failed
 * hashtable_find stored in *index: when the table grows or a move takes its step,
 * *index is found again.  Returns 0, or -1 when memory is short (table and *index
 * unchanged).
 */
HASHTABLE_INLINE int
hashtable_make_room(struct hashtable *table, const struct hashtable_ops *ops, uint64_t hash,
    size_t *index)
{
	if (table->count + 1 <= hashtable_limit(table->mask + 1, ops) &&
	    (!ops->moves || __builtin_expect(table->old.slots == NULL, 1)))
		return 0;
	return hashtable_make_room_slow(table, ops, hash, index);
}

/*
 * Takes the free slot index for a new key and returns it; the caller stores the key
 * there, making the slot occupied, before the table is used again.
 */
HASHTABLE_INLINE void *
hashtable_claim(struct hashtable *table, size_t size, size_t index)
{
	table->count++;
	return hashtable_slot(table, size, index);
}

/*
 * Frees slot index of the table, which holds a key.  Each later slot of the probe run whose key
 * may live in the hole (its home does not lie between the hole and itself,
 * cyclically) moves back into it, and its own slot becomes the hole, so every key
 * stays reachable from its home without tombstones.
 */
HASHTABLE_INLINE void
hashtable_remove(struct hashtable *table, const struct hashtable_ops *ops, size_t index)
{
	size_t size = ops->slot_size, mask = table->mask, hole = index;

	for (size_t next = (hole + 1) & mask;; next = (next + 1) & mask) {
		void *slot = hashtable_slot(table, size, next);
		size_t home;

		if (!ops->occupied(slot))
			break;
		home = hashtable_home(table, ops->hash(table, slot));
		if (((next - home) & mask) >= ((next - hole) & mask)) {
			memcpy(hashtable_slot(table, size, hole), slot, size);
			hole = next;
		}
	}
	memset(hashtable_slot(table, size, hole), 0, size);
	table->count--;
}

/*
 * Takes a step of a move under way, or starts moving the keys to a table of half the
 * size when the table holds less than a quarter of its limit (an eighth full, or a
 * sixteenth when sparse): half its limit then, far from growing again, so a table
 * whose keys come and go does not resize back and forth.
 * Memory then follows the keys held.  When memory is short the larger table stays.
 */
HASHTABLE_INLINE void
hashtable_trim(struct hashtable *table, const struct hashtable_ops *ops)
{
	unsigned bits = 64 - table->shift;

	if (ops->moves && __builtin_expect(table->old.slots != NULL, 0))
		hashtable_step(table, ops);
	else if (bits > HASHTABLE_MIN_BITS &&
	    table->count * 4 < hashtable_limit(table->mask + 1, ops))
		(void)hashtable_resize(table, ops, bits - 1);
}

/* Frees the old table and every slot, keeping the table's size (its work is the size). */
void hashtable_clear(struct hashtable *table, size_t size);

#endif /* SWAG_HASHTABLE_H */
