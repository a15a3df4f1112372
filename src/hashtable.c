/*
 * hashtable.c: the out-of-line parts of the hash table (see hashtable.h): allocating,
 * the moves of growing and shrinking, and searches of a moving table's old table.
 */
#include "counters.h"
#include "hashtable.h"
#include "mem.h"

#ifdef SWAG_TEST_COUNTERS
struct hashtable_counters hashtable_counters;
#endif

/* Adds n to one of hashtable_counters (test builds only). */
#define HASHTABLE_COUNT(field, n) TEST_COUNT(hashtable_counters.field, (n))
#define HASHTABLE_COUNT_BYTES(field, n) TEST_COUNT_BYTES(hashtable_counters.field, (n))

/*
 * The old table's slots are named by their distance from the move's start, rel: the
 * moved ones are rel < done.  No probe run of the old table crosses the start, which
 * was free when the move began (a backward shift only moves a key towards its home),
 * so a search never wraps in rel and ends at rel mask + 1 at the latest.
 */

/* The old table's slot at distance rel from the move's start. */
static unsigned char *
hashtable_old_slot(const struct hashtable_old *old, size_t size, size_t rel)
{
	return old->slots + ((old->start + rel) & old->mask) * size;
}

/* The distance from the move's start of the old table's home for hash. */
static size_t
hashtable_old_home(const struct hashtable_old *old, uint64_t hash)
{
	return ((size_t)(hash >> old->shift) - old->start) & old->mask;
}

/* Copies the old table's occupied slot into the free slot of the table where it goes. */
static void
hashtable_move_slot(struct hashtable *table, const struct hashtable_ops *ops, const void *slot,
    size_t to)
{
	memcpy(hashtable_slot(table, ops->slot_size, to), slot, ops->slot_size);
	table->old.count--;
	HASHTABLE_COUNT(moved, 1);
}

/*
 * Frees the old table's slot at rel, which holds a key that has moved: the backward
 * shift of hashtable_remove in rel, where a moved slot counts as passed over, so a
 * later key whose home is at or before the hole (moved slots included) fills it.
 */
static void
hashtable_old_remove(struct hashtable_old *old, const struct hashtable *table,
    const struct hashtable_ops *ops, size_t hole)
{
	size_t size = ops->slot_size;

	for (size_t next = hole + 1; next <= old->mask; next++) {
		unsigned char *slot = hashtable_old_slot(old, size, next);

		HASHTABLE_COUNT(probes, 1);
		if (!ops->occupied(slot))
			break;
		if (hashtable_old_home(old, ops->hash(table, slot)) <= hole) {
			memcpy(hashtable_old_slot(old, size, hole), slot, size);
			hole = next;
		}
	}
	memset(hashtable_old_slot(old, size, hole), 0, size);
	HASHTABLE_COUNT_BYTES(zeroed, size);
}

bool
hashtable_find_old(struct hashtable *table, const struct hashtable_ops *ops, uint64_t hash,
    hashtable_match *matches, const void *key, size_t index)
{
	struct hashtable_old *old = &table->old;
	size_t rel = hashtable_old_home(old, hash);

	for (rel = rel < old->done ? old->done : rel; rel <= old->mask; rel++) {
		const unsigned char *slot = hashtable_old_slot(old, ops->slot_size, rel);

		HASHTABLE_COUNT(probes, 1);
		if (!ops->occupied(slot))
			return false;
		if (matches(slot, key)) {
			/* The free slot of the table where the search ended is the key's. */
			hashtable_move_slot(table, ops, slot, index);
			hashtable_old_remove(old, table, ops, rel);
			return true;
		}
	}
	return false;
}

/* Frees a piece of the old table (mem_zfree_part), whose keys have all moved. */
static void
free_step(struct hashtable_old *old)
{
	size_t before = old->bytes;
	int freed_all = mem_zfree_part(old->slots, &old->bytes);

	(void)before;	/* read by the counters of test builds only */
	HASHTABLE_COUNT_BYTES(unmapped, before - (freed_all ? 0 : old->bytes));
	if (freed_all)
		memset(old, 0, sizeof(*old));
}

void
hashtable_step(struct hashtable *table, const struct hashtable_ops *ops)
{
	struct hashtable_old *old = &table->old;

	if (old->count == 0) {
		free_step(old);
		return;
	}
	for (int n = 0; n < HASHTABLE_MOVE_STEP << ops->sparse && old->count != 0; n++) {
		const unsigned char *slot = hashtable_old_slot(old, ops->slot_size, old->done++);

		HASHTABLE_COUNT(passed, 1);
		HASHTABLE_COUNT(probes, 1);
		if (ops->occupied(slot)) {
			uint64_t hash = ops->hash(table, slot);
			size_t to = hashtable_free_index(table, ops, hash);

			HASHTABLE_COUNT(probes, hashtable_probe_length(table, hash, to));
			hashtable_move_slot(table, ops, slot, to);
		}
	}
}

int
hashtable_make_room_slow(struct hashtable *table, const struct hashtable_ops *ops,
    uint64_t hash, size_t *index)
{
	if (table->count + 1 <= hashtable_limit(table->mask + 1, ops))
		hashtable_step(table, ops);
	else if (hashtable_grow(table, ops, table->count + 1) != 0)
		return -1;
	*index = hashtable_free_index(table, ops, hash);
	return 0;
}

void
hashtable_settle(struct hashtable *table, const struct hashtable_ops *ops)
{
	while (table->old.count != 0)
		hashtable_step(table, ops);
	mem_zfree(table->old.slots, table->old.bytes);
	memset(&table->old, 0, sizeof(table->old));
}

void
hashtable_free(struct hashtable *table)
{
	mem_zfree(table->slots, table->bytes);
	mem_zfree(table->old.slots, table->old.bytes);
	hashtable_init(table, table->seed);
}

void
hashtable_clear(struct hashtable *table, size_t size)
{
	mem_zfree(table->old.slots, table->old.bytes);
	memset(&table->old, 0, sizeof(table->old));
	if (table->slots != NULL)
		memset(table->slots, 0, (table->mask + 1) * size);
	table->count = 0;
}

int
hashtable_resize(struct hashtable *table, const struct hashtable_ops *ops, unsigned bits)
{
	size_t bytes, start = 0;
	unsigned char *slots;

	if (bits >= sizeof(size_t) * 8 ||
	    mem_array_size((size_t)1 << bits, ops->slot_size, &bytes) != 0 ||
	    (slots = mem_zalloc(bytes)) == NULL)
		return -1;
	if (bytes < MEM_MAP_MIN)
		HASHTABLE_COUNT_BYTES(zeroed, bytes);
	/* Rare: a move not finished before the next must begin (see hashtable.h). */
	if (table->old.slots != NULL)
		hashtable_settle(table, ops);
	if (table->slots != NULL) {
		/* Some slot is free: the table is at most half full. */
		while (ops->occupied(hashtable_slot(table, ops->slot_size, start)))
			start++;
		HASHTABLE_COUNT(probes, start + 1);
		table->old = (struct hashtable_old){ table->slots, table->mask, table->shift,
		    table->bytes, start, 0, table->count };
	}
	table->slots = slots;
	table->bytes = bytes;
	table->mask = ((size_t)1 << bits) - 1;
	table->shift = 64 - bits;
	if (!ops->moves)
		hashtable_settle(table, ops);
	return 0;
}

int
hashtable_grow(struct hashtable *table, const struct hashtable_ops *ops, size_t n)
{
	unsigned bits = table->slots != NULL ? 64 - table->shift : HASHTABLE_MIN_BITS;

	while (hashtable_limit((size_t)1 << bits, ops) < n) {
		if (bits + 1 >= sizeof(size_t) * 8)
			return -1;
		bits++;
	}
	if (table->slots != NULL && bits == 64 - table->shift)
		return 0;
	return hashtable_resize(table, ops, bits);
}
