/*
 * hashtable.h: the seeded hash table that every structure looking values up by key
 * uses (the group keys of keytable.c, mode's texts, distinct's exact multiset).
 *
 * Open addressing with linear probing, in one array of fixed-size slots whose
 * layout is the caller's: struct hashtable_ops says how big a slot is, whether it
 * holds a key, and the hash its key was placed by.  A key's home is the top bits of
 * that hash; a search walks from there to the key or to the first free slot.  The
 * table is at most half full, so a search examines about 1.5 slots when it finds its
 * key and 2.5 when it does not.  Deletion shifts the later slots of the probe run back
 * into the hole (Knuth's Algorithm R) instead of leaving a tombstone, so a table that
 * sees keys come and go (mode's values, groups reclaimed in a long tail -f) never
 * slows down with churn and needs no rebuild.
 *
 * Seeded against flooding: the hash of a key comes from hashtable_hash_bytes() or
 * hashtable_hash_u64(), both keyed with the table's seed, the run's
 * (agg_params.hash_seed), so keys crafted to share a home under one seed scatter under
 * another and no input can make the table quadratic.  xxHash (hash.h) hashes the bytes.
 *
 * The lookups are forced inline (HASHTABLE_INLINE), as is each caller's ops and match
 * function: with a constant ops table the compiler turns a search into the probe loop
 * a table written for the slot type would have.  Resizing, which happens log2(n)
 * times, is out of line.
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

/* What the table needs to know of a slot. */
struct hashtable;
struct hashtable_ops {
	size_t slot_size;
	/* Whether the slot holds a key (an all-zero slot must not). */
	bool (*occupied)(const void *slot);
	/* The hash the slot's key was placed by: what hashtable_hash_* gave for it. */
	uint64_t (*hash)(const struct hashtable *table, const void *slot);
};

/* Whether the occupied slot holds the key that key describes (a search's own match). */
typedef bool hashtable_match(const void *slot, const void *key);

struct hashtable {
	unsigned char *slots;	/* mask + 1 slots, or NULL before the first reserve */
	size_t mask;		/* the capacity minus one; the capacity is a power of two */
	unsigned shift;		/* 64 - log2(capacity): hash >> shift is the home slot */
	size_t count;		/* occupied slots */
	uint64_t seed;		/* keys the hashes */
};

/* Makes an empty table with no slots yet (hashtable_reserve allocates them). */
HASHTABLE_INLINE void
hashtable_init(struct hashtable *table, uint64_t seed)
{
	table->slots = NULL;
	table->mask = 0;
	table->shift = 64;
	table->count = 0;
	table->seed = seed;
}

/* Frees the slots; the table is then as hashtable_init left it. */
void hashtable_free(struct hashtable *table);

/*
 * Rebuilds the table with 2^bits slots, bits at least HASHTABLE_MIN_BITS and enough
 * for every key at most half full.  Returns 0, or -1 when memory is short (the table
 * is then unchanged).
 */
int hashtable_resize(struct hashtable *table, const struct hashtable_ops *ops, unsigned bits);

/* Makes room for n keys at most half full; hashtable_reserve's out-of-line part. */
int hashtable_grow(struct hashtable *table, const struct hashtable_ops *ops, size_t n);

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
 * Looks for the key that key describes, whose hash is hash: stores in *index its slot
 * and returns true, or stores the free slot where it would go and returns false.  The
 * table must have slots (hashtable_reserve).
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
 * Makes room for n keys with the table at most half full, allocating the first slots
 * or rehashing into a larger table.  Returns 0, or -1 when memory is short (the table
 * is then unchanged).
 */
HASHTABLE_INLINE int
hashtable_reserve(struct hashtable *table, const struct hashtable_ops *ops, size_t n)
{
	if (table->slots != NULL && n <= (table->mask + 1) / 2)
		return 0;
	return hashtable_grow(table, ops, n);
}

/*
 * Makes room for one more key, whose hash is hash and whose free slot a failed
 * hashtable_find stored in *index: when the table grows, *index is found again in the
 * new one.  Returns 0, or -1 when memory is short (table and *index unchanged).
 */
HASHTABLE_INLINE int
hashtable_make_room(struct hashtable *table, const struct hashtable_ops *ops, uint64_t hash,
    size_t *index)
{
	if (table->count + 1 <= (table->mask + 1) / 2)
		return 0;
	if (hashtable_grow(table, ops, table->count + 1) != 0)
		return -1;
	*index = hashtable_free_index(table, ops, hash);
	return 0;
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
 * Frees slot index, which holds a key.  Each later slot of the probe run whose key
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
 * Halves the table when it is less than an eighth full: a quarter full then, far from
 * growing again, so a table whose keys come and go does not resize back and forth.
 * Memory then follows the keys held.  When memory is short the larger table stays.
 */
HASHTABLE_INLINE void
hashtable_trim(struct hashtable *table, const struct hashtable_ops *ops)
{
	unsigned bits = 64 - table->shift;

	if (bits > HASHTABLE_MIN_BITS && table->count * 8 < table->mask + 1)
		(void)hashtable_resize(table, ops, bits - 1);
}

/* Frees every slot, keeping the table's size. */
HASHTABLE_INLINE void
hashtable_clear(struct hashtable *table, size_t size)
{
	if (table->slots != NULL)
		memset(table->slots, 0, (table->mask + 1) * size);
	table->count = 0;
}

#endif /* SWAG_HASHTABLE_H */
