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

struct keytable;

/* Makes an empty table; returns NULL when memory is short. */
struct keytable *keytable_create(uint64_t seed);

/* Frees the table (not the keys or the values). */
void keytable_destroy(struct keytable *table);

/* The value stored for key, or NULL. */
void *keytable_find(struct keytable *table, const char *key, size_t len);

/*
 * Stores value for key, which must not be in the table.  The table keeps the
 * pointer key: its bytes must stay put until the key is removed.  Returns 0, or -1
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
