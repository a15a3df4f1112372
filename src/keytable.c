/*
 * keytable.c: byte-string keys to pointers (see keytable.h), on the seeded hash table
 * of hashtable.h.
 */
#include <string.h>

#include "counters.h"
#include "hashtable.h"
#include "keytable.h"
#include "mem.h"
#include "swar.h"

/* A slot: the key's hash (its home, and a cheap filter) and the caller's key and value. */
struct entry {
	uint64_t hash;
	const char *key;	/* the caller's; NULL for a free slot */
	size_t len;
	void *value;
};

/* A key as a search looks for it. */
struct search {
	uint64_t hash;
	const char *key;
	size_t len;
};

struct keytable {
	struct hashtable table;
#ifdef SWAG_TEST_COUNTERS
	uint64_t probes;
#endif
};

HASHTABLE_INLINE bool
entry_occupied(const void *slot)
{
	return ((const struct entry *)slot)->key != NULL;
}

HASHTABLE_INLINE uint64_t
entry_hash(const struct hashtable *table, const void *slot)
{
	(void)table;
	return ((const struct entry *)slot)->hash;
}

HASHTABLE_INLINE bool
entry_matches(const void *slot, const void *key)
{
	const struct entry *e = slot;
	const struct search *s = key;

	/* Without memcmp's call for a short key: 25 instructions less a record with -g. */
	return e->hash == s->hash && e->len == s->len && swar_equal(e->key, s->key, s->len);
}

/* The key table moves its keys a step at a time: no insert pays for the whole table. */
static const struct hashtable_ops entry_ops = { sizeof(struct entry), entry_occupied,
    entry_hash, true };

/* The table's slot index. */
static struct entry *
entry_at(const struct keytable *t, size_t index)
{
	return hashtable_slot(&t->table, sizeof(struct entry), index);
}

struct keytable *
keytable_create(uint64_t seed)
{
	struct keytable *t = mem_realloc(NULL, sizeof(*t));

	if (t == NULL)
		return NULL;
	memset(t, 0, sizeof(*t));
	hashtable_init(&t->table, seed);
	if (hashtable_reserve(&t->table, &entry_ops, 0) != 0) {
		mem_free(t);
		return NULL;
	}
	return t;
}

void
keytable_destroy(struct keytable *t)
{
	if (t == NULL)
		return;
	hashtable_free(&t->table);
	mem_free(t);
}

/*
 * Looks key up: returns whether it is in the table, and stores in *index its slot or
 * the free slot where it would go, in *s the search for it.
 */
HASHTABLE_INLINE bool
keytable_search(struct keytable *t, const char *key, size_t len, struct search *s,
    size_t *index)
{
	bool found;

	*s = (struct search){ hashtable_hash_bytes(&t->table, key, len), key, len };
	found = hashtable_find(&t->table, &entry_ops, s->hash, entry_matches, s, index);
	TEST_COUNT(t->probes, hashtable_probe_length(&t->table, s->hash, *index));
	return found;
}

/*
 * The value of key, of that hash, which the table's slots do not hold, from the old
 * table of a move under way (to which it moves), or NULL.  index is the free slot
 * where the search of the slots ended.  The search comes by value: were its address
 * taken, every lookup would store it (3 instructions a record with -g).
 */
static __attribute__((noinline)) void *
keytable_find_old(struct keytable *t, uint64_t hash, const char *key, size_t len,
    size_t index)
{
	struct search s = { hash, key, len };

	if (!hashtable_find_old(&t->table, &entry_ops, hash, entry_matches, &s, index))
		return NULL;
	return entry_at(t, index)->value;
}

/*
 * Flattened: XXH3's public entry is too big for the compiler to inline by itself, and
 * its call cost -g 3 -w 1000 avg:2 4 instructions a record (callgrind).  The old
 * table's search is a tail call on the miss path, so that a hit saves no registers.
 */
__attribute__((flatten)) void *
keytable_find(struct keytable *t, const char *key, size_t len)
{
	struct search s;
	size_t index;

	if (keytable_search(t, key, len, &s, &index))
		return entry_at(t, index)->value;
	if (__builtin_expect(t->table.old.count == 0, 1))
		return NULL;
	return keytable_find_old(t, s.hash, key, len, index);
}

int
keytable_insert(struct keytable *t, const char *key, size_t len, void *value)
{
	uint64_t hash = hashtable_hash_bytes(&t->table, key, len);
	size_t index;
	struct entry *e;

	if (hashtable_reserve(&t->table, &entry_ops, t->table.count + 1) != 0)
		return -1;
	index = hashtable_free_index(&t->table, &entry_ops, hash);
	TEST_COUNT(t->probes, hashtable_probe_length(&t->table, hash, index));
	e = hashtable_claim(&t->table, sizeof(struct entry), index);
	*e = (struct entry){ hash, key, len, value };
	return 0;
}

void *
keytable_remove(struct keytable *t, const char *key, size_t len)
{
	struct search s;
	size_t index;
	void *value;

	if (!keytable_search(t, key, len, &s, &index) && (t->table.old.count == 0 ||
	    !hashtable_find_old(&t->table, &entry_ops, s.hash, entry_matches, &s, index)))
		return NULL;
	value = entry_at(t, index)->value;
	hashtable_remove(&t->table, &entry_ops, index);
	hashtable_trim(&t->table, &entry_ops);
	return value;
}

size_t
keytable_count(const struct keytable *t)
{
	return t->table.count;
}

#ifdef SWAG_TEST_COUNTERS
uint64_t
keytable_probes(const struct keytable *t)
{
	return t->probes;
}
#endif

void
keytable_each(struct keytable *t, void (*visit)(void *value, void *context), void *context)
{
	hashtable_settle(&t->table, &entry_ops);
	for (size_t i = 0; i < hashtable_capacity(&t->table); i++)
		if (entry_occupied(entry_at(t, i)))
			visit(entry_at(t, i)->value, context);
}
