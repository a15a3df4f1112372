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

/*
 * A slot: the key's hash (its home, for moves and backward shifts), its words
 * (hash_key_words: with the length, a short key itself), and the caller's key and
 * value.
 */
struct entry {
	uint64_t hash;
	uint64_t a, b;
	const char *key;	/* the caller's; NULL for a free slot */
	size_t len;
	void *value;
};

/* A key as a search looks for it. */
struct search {
	uint64_t hash;
	uint64_t a, b;
	const char *key;
	size_t len;
};

struct keytable {
	struct hashtable table;
	struct hash_words_seed words_seed;	/* the short keys' hash_words keys */
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

/* Whether the slot holds the short key (at most HASH_WORDS_MAX bytes): its words. */
HASHTABLE_INLINE bool
entry_matches_short(const void *slot, const void *key)
{
	const struct entry *e = slot;
	const struct search *s = key;

	/* The last word first: keys of one run mostly share a prefix ("web-08"). */
	return e->b == s->b && e->a == s->a && e->len == s->len;
}

/* Whether the slot holds the key, of any length. */
HASHTABLE_INLINE bool
entry_matches(const void *slot, const void *key)
{
	const struct entry *e = slot;
	const struct search *s = key;

	return entry_matches_short(slot, key) && (s->len <= HASH_WORDS_MAX ||
	    (e->hash == s->hash && memcmp(e->key, s->key, s->len) == 0));
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

/*
 * The search for key, whose hash is hash: its words (a longer key's first 8 and last 8
 * bytes, which only filter).
 */
HASHTABLE_INLINE struct search
key_search_of(const char *key, size_t len, uint64_t hash)
{
	struct search s = { hash, 0, 0, key, len };

	hash_key_words(key, len <= HASH_WORDS_MAX ? len : 8, &s.a, &s.b);
	if (len > HASH_WORDS_MAX)
		s.b = load_u64((const unsigned char *)key + len - 8);
	return s;
}

/*
 * The search for key, with its seeded hash: hash_words' for a short key (about 12
 * instructions) and XXH3's of its bytes for a longer one.
 */
HASHTABLE_INLINE struct search
key_search(const struct keytable *t, const char *key, size_t len)
{
	struct search s = key_search_of(key, len, 0);

	s.hash = len <= HASH_WORDS_MAX ? hash_words(&t->words_seed, s.a, s.b, len) :
	    hashtable_hash_bytes(&t->table, key, len);
	return s;
}

struct keytable *
keytable_create(uint64_t seed)
{
	struct keytable *t = mem_realloc(NULL, sizeof(*t));

	if (t == NULL)
		return NULL;
	memset(t, 0, sizeof(*t));
	hashtable_init(&t->table, seed);
	t->words_seed = hash_words_seed(seed);
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

	*s = key_search(t, key, len);
	found = hashtable_find(&t->table, &entry_ops, s->hash, entry_matches, s, index);
	TEST_COUNT(t->probes, hashtable_probe_length(&t->table, s->hash, *index));
	return found;
}

/*
 * The value of key, of that hash, which the table's slots do not hold, from the old
 * table of a move under way (to which it moves), or NULL.  index is the free slot
 * where the search of the slots ended.  The search comes as its hash alone: were its
 * address taken, every lookup would store it (3 instructions a record with -g).
 */
static __attribute__((noinline)) void *
keytable_find_old(struct keytable *t, uint64_t hash, const char *key, size_t len,
    size_t index)
{
	struct search s = key_search_of(key, len, hash);

	if (!hashtable_find_old(&t->table, &entry_ops, s.hash, entry_matches, &s, index))
		return NULL;
	return entry_at(t, index)->value;
}

/* keytable_find for a key longer than HASH_WORDS_MAX bytes, out of line with XXH3. */
static __attribute__((noinline)) void *
keytable_find_long(struct keytable *t, const char *key, size_t len)
{
	struct search s;
	size_t index;

	if (keytable_search(t, key, len, &s, &index))
		return entry_at(t, index)->value;
	if (t->table.old.count == 0)
		return NULL;
	return keytable_find_old(t, s.hash, key, len, index);
}

/*
 * A short key is looked up by its words alone, compared with the slots' words
 * (entry_matches_short): its hash, the probe and the compare take no call and few
 * registers.  A longer key, and the old table's search on the miss path, are calls in
 * tail position, so that a hit saves no registers.
 */
void *
keytable_find(struct keytable *t, const char *key, size_t len)
{
	struct search s;
	size_t index;

	if (__builtin_expect(len > HASH_WORDS_MAX, 0))
		return keytable_find_long(t, key, len);
	s = key_search(t, key, len);
	if (hashtable_find(&t->table, &entry_ops, s.hash, entry_matches_short, &s, &index)) {
		TEST_COUNT(t->probes, hashtable_probe_length(&t->table, s.hash, index));
		return entry_at(t, index)->value;
	}
	TEST_COUNT(t->probes, hashtable_probe_length(&t->table, s.hash, index));
	if (__builtin_expect(t->table.old.count == 0, 1))
		return NULL;
	return keytable_find_old(t, s.hash, key, len, index);
}

int
keytable_insert(struct keytable *t, const char *key, size_t len, void *value)
{
	struct search s = key_search(t, key, len);
	size_t index;
	struct entry *e;

	if (hashtable_reserve(&t->table, &entry_ops, t->table.count + 1) != 0)
		return -1;
	index = hashtable_free_index(&t->table, &entry_ops, s.hash);
	TEST_COUNT(t->probes, hashtable_probe_length(&t->table, s.hash, index));
	e = hashtable_claim(&t->table, sizeof(struct entry), index);
	*e = (struct entry){ s.hash, s.a, s.b, key, len, value };
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

uint64_t
keytable_hash(const struct keytable *t, const char *key, size_t len)
{
	return key_search(t, key, len).hash;
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
