/*
 * keytable.c: byte-string keys to pointers (see keytable.h), on the seeded hash table
 * of hashtable.h.
 */
#include <string.h>

#include "keytable.h"
#include "mem.h"

struct keytable *
keytable_create(uint64_t seed)
{
	struct keytable *t = mem_realloc(NULL, sizeof(*t));

	if (t == NULL)
		return NULL;
	memset(t, 0, sizeof(*t));
	hashtable_init(&t->table, seed);
	t->words_seed = hash_words_seed(seed);
	if (hashtable_reserve(&t->table, &keytable_slot_ops, 0) != 0) {
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
keytable_search(struct keytable *t, const char *key, size_t len, struct keytable_key *s,
    size_t *index)
{
	bool found;

	*s = keytable_key(t, key, len);
	found = hashtable_find(&t->table, &keytable_slot_ops, s->hash, keytable_slot_is, s,
	    index);
	TEST_COUNT(t->probes, hashtable_probe_length(&t->table, s->hash, *index));
	return found;
}

/*
 * The value of key, which the table's slots do not hold, from the old table of a move
 * under way (to which it moves), or NULL.  index is the free slot where the search of
 * the slots ended.
 */
static void *
keytable_find_old(struct keytable *t, const struct keytable_key *s, size_t index)
{
	if (!hashtable_find_old(&t->table, &keytable_slot_ops, s->hash, keytable_slot_is,
	    s, index))
		return NULL;
	return keytable_slot_at(t, index)->value;
}

void *
keytable_find_slowly(struct keytable *t, const char *key, size_t len, size_t index)
{
	struct keytable_key s;

	if (len <= HASH_WORDS_MAX)
		return keytable_find_old(t, (s = keytable_key(t, key, len), &s), index);
	if (keytable_search(t, key, len, &s, &index))
		return keytable_slot_at(t, index)->value;
	if (t->table.old.count == 0)
		return NULL;
	return keytable_find_old(t, &s, index);
}

int
keytable_insert(struct keytable *t, const char *key, size_t len, void *value)
{
	struct keytable_key s = keytable_key(t, key, len);
	size_t index;
	struct keytable_slot *e;

	if (hashtable_reserve(&t->table, &keytable_slot_ops, t->table.count + 1) != 0)
		return -1;
	index = hashtable_free_index(&t->table, &keytable_slot_ops, s.hash);
	TEST_COUNT(t->probes, hashtable_probe_length(&t->table, s.hash, index));
	e = hashtable_claim(&t->table, sizeof(struct keytable_slot), index);
	*e = (struct keytable_slot){ s.hash, s.a, s.b, key, len, value };
	return 0;
}

void *
keytable_remove(struct keytable *t, const char *key, size_t len)
{
	struct keytable_key s;
	size_t index;
	void *value;

	if (!keytable_search(t, key, len, &s, &index) && (t->table.old.count == 0 ||
	    !hashtable_find_old(&t->table, &keytable_slot_ops, s.hash, keytable_slot_is, &s,
	    index)))
		return NULL;
	value = keytable_slot_at(t, index)->value;
	hashtable_remove(&t->table, &keytable_slot_ops, index);
	hashtable_trim(&t->table, &keytable_slot_ops);
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

uint64_t
keytable_hash(const struct keytable *t, const char *key, size_t len)
{
	return keytable_key(t, key, len).hash;
}
#endif

void
keytable_each(struct keytable *t, void (*visit)(void *value, void *context), void *context)
{
	hashtable_settle(&t->table, &keytable_slot_ops);
	for (size_t i = 0; i < hashtable_capacity(&t->table); i++)
		if (keytable_slot_occupied(keytable_slot_at(t, i)))
			visit(keytable_slot_at(t, i)->value, context);
}
