/*
 * keytable.h: a hash table from byte strings (group keys) to pointers.
 *
 * It is hashtable.h's table with the key's hash, its words (hash.h's hash_key_words),
 * the caller's key and the value in each slot.  A key of at most 16 bytes (most are:
 * a host, a status, a user's id) is hashed from its words (hash_words) and found by
 * comparing them, without XXH3's general path or a memcmp; a longer one is hashed by
 * XXH3 and compared with memcmp.  Growth and shrinking move a few keys an operation,
 * so no insert pays for the whole table; deletion shifts keys back, so a table that
 * sees keys come and go (groups reclaimed in a long tail -f) keeps no tombstones; and
 * both hashes are keyed by the run's seed, so that keys crafted to collide under one
 * seed scatter under another and no input can make the table quadratic.
 */
#ifndef SWAG_KEYTABLE_H
#define SWAG_KEYTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "counters.h"
#include "hashtable.h"
#include "swar.h"

/*
 * A slot: the key's hash (its home, for moves and backward shifts), its words
 * (hash_key_words: with the length, a short key itself), and the caller's key and
 * value.
 */
struct keytable_slot {
	uint64_t hash;
	uint64_t a, b;
	const char *key;	/* the caller's; NULL for a free slot */
	size_t len;
	void *value;
};

/* A key as a search looks for it. */
struct keytable_key {
	uint64_t hash;
	uint64_t a, b;
	const char *key;
	size_t len;
};

/* The table: kept here for keytable_find, which is inline; the rest is keytable.c's. */
struct keytable {
	struct hashtable table;
	struct hash_words_seed words_seed;	/* the short keys' hash_words keys */
#ifdef SWAG_TEST_COUNTERS
	uint64_t probes;
#endif
};

HASHTABLE_INLINE bool
keytable_slot_occupied(const void *slot)
{
	return ((const struct keytable_slot *)slot)->key != NULL;
}

HASHTABLE_INLINE uint64_t
keytable_slot_hash(const struct hashtable *table, const void *slot)
{
	(void)table;
	return ((const struct keytable_slot *)slot)->hash;
}

/* Whether the slot holds the short key (at most HASH_WORDS_MAX bytes): its words. */
HASHTABLE_INLINE bool
keytable_slot_is_short(const void *slot, const void *key)
{
	const struct keytable_slot *e = slot;
	const struct keytable_key *s = key;

	/* The last word first: keys of one run mostly share a prefix ("web-08"). */
	return e->b == s->b && e->a == s->a && e->len == s->len;
}

/* Whether the slot holds the key, of any length. */
HASHTABLE_INLINE bool
keytable_slot_is(const void *slot, const void *key)
{
	const struct keytable_slot *e = slot;
	const struct keytable_key *s = key;

	return keytable_slot_is_short(slot, key) && (s->len <= HASH_WORDS_MAX ||
	    (e->hash == s->hash && memcmp(e->key, s->key, s->len) == 0));
}

/* The key table moves its keys a step at a time: no insert pays for the whole table. */
static const struct hashtable_ops keytable_slot_ops = { sizeof(struct keytable_slot),
    keytable_slot_occupied, keytable_slot_hash, true, false };

/* The table's slot index. */
HASHTABLE_INLINE struct keytable_slot *
keytable_slot_at(const struct keytable *t, size_t index)
{
	return hashtable_slot(&t->table, sizeof(struct keytable_slot), index);
}

/*
 * The search for key, whose hash is hash: its words (a longer key's first 8 and last 8
 * bytes, which only filter).
 */
HASHTABLE_INLINE struct keytable_key
keytable_key_of(const char *key, size_t len, uint64_t hash)
{
	struct keytable_key s = { hash, 0, 0, key, len };

	hash_key_words(key, len <= HASH_WORDS_MAX ? len : 8, &s.a, &s.b);
	if (len > HASH_WORDS_MAX)
		s.b = load_u64((const unsigned char *)key + len - 8);
	return s;
}

/*
 * The search for key, with its seeded hash: hash_words' for a short key (about 12
 * instructions) and XXH3's of its bytes for a longer one.
 */
HASHTABLE_INLINE struct keytable_key
keytable_key(const struct keytable *t, const char *key, size_t len)
{
	struct keytable_key s = keytable_key_of(key, len, 0);

	s.hash = len <= HASH_WORDS_MAX ? hash_words(&t->words_seed, s.a, s.b, len) :
	    hashtable_hash_bytes(&t->table, key, len);
	return s;
}


/* Makes an empty table; returns NULL when memory is short. */
struct keytable *keytable_create(uint64_t seed);

/* Frees the table (not the keys or the values). */
void keytable_destroy(struct keytable *table);

/*
 * keytable_find's out-of-line part: a key longer than HASH_WORDS_MAX bytes, or the
 * old table's search (hashtable_find_old) while a move is under way, for a key the
 * slots do not hold, whose search of them ended at the free slot index.
 */
void *keytable_find_slowly(struct keytable *table, const char *key, size_t len,
    size_t index);

/*
 * The value stored for key, or NULL.  A short key is looked up by its words alone,
 * compared with the slots' words (keytable_slot_is_short), inline: its hash, the probe
 * and the compare take no call and few registers (with -g, 14 instructions a record
 * less than a call, callgrind).  The words are compared before the slot is tested for
 * being free (hashtable_find_matching: 2 instructions a record less): only the empty
 * key's words match a free slot, whose value is NULL, where a key's is not.  A longer
 * key, and the old table's search, are a call.
 */
HASHTABLE_INLINE void *
keytable_find(struct keytable *t, const char *key, size_t len)
{
	struct keytable_key s;
	size_t index;
	void *value;

	if (__builtin_expect(len > HASH_WORDS_MAX, 0))
		return keytable_find_slowly(t, key, len, 0);
	s = keytable_key(t, key, len);
	if (__builtin_expect(hashtable_find_matching(&t->table, &keytable_slot_ops, s.hash,
	    keytable_slot_is_short, &s, &index), 1) &&
	    __builtin_expect((value = keytable_slot_at(t, index)->value) != NULL, 1)) {
		TEST_COUNT(t->probes, hashtable_probe_length(&t->table, s.hash, index));
		return value;
	}
	/* A miss, or the empty key's words matching the free slot that ends the search. */
	TEST_COUNT(t->probes, hashtable_probe_length(&t->table, s.hash, index));
	if (__builtin_expect(t->table.old.count == 0, 1))
		return NULL;
	return keytable_find_slowly(t, key, len, index);
}

/*
 * Stores value, not NULL, for key, which must not be in the table.  The table keeps
 * the pointer key: its bytes must stay put until the key is removed.  Returns 0, or -1
 * when memory is short (the table is unchanged).
 */
int keytable_insert(struct keytable *table, const char *key, size_t len, void *value);

/*
 * Removes key and returns its value, or NULL when it is not there.  The table shrinks
 * when it is mostly empty (hashtable_trim), a step at a time as it grows.
 */
void *keytable_remove(struct keytable *table, const char *key, size_t len);

/* The number of keys. */
size_t keytable_count(const struct keytable *table);

#ifdef SWAG_TEST_COUNTERS
/* The slots examined by all searches so far (counters.h: test builds only). */
uint64_t keytable_probes(const struct keytable *table);

/* The seeded hash the table places key by (test builds only: a flooding test's). */
uint64_t keytable_hash(const struct keytable *table, const char *key, size_t len);
#endif

/*
 * Calls visit(value, context) for every value, in no particular order, after
 * finishing a move of the table's keys (hashtable_settle: work in the table's size).
 */
void keytable_each(struct keytable *table, void (*visit)(void *value, void *context),
    void *context);

#endif /* SWAG_KEYTABLE_H */
