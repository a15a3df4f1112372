/*
 * keytable.c: byte-string keys to pointers (see keytable.h).
 */
#include <string.h>

#include "hash.h"
#include "keytable.h"
#include "mem.h"

struct entry {
	uint64_t hash;
	const char *key;	/* the caller's; NULL for an empty slot */
	size_t len;
	void *value;
};

struct keytable {
	struct entry *slots;
	size_t cap;		/* a power of two */
	size_t count;
	uint64_t seed;
	uint64_t probes;
};

#define KEYTABLE_FIRST_CAP 16

struct keytable *
keytable_create(uint64_t seed)
{
	struct keytable *t = mem_realloc(NULL, sizeof(*t));

	if (t == NULL)
		return NULL;
	t->slots = mem_realloc(NULL, KEYTABLE_FIRST_CAP * sizeof(*t->slots));
	if (t->slots == NULL) {
		mem_free(t);
		return NULL;
	}
	memset(t->slots, 0, KEYTABLE_FIRST_CAP * sizeof(*t->slots));
	t->cap = KEYTABLE_FIRST_CAP;
	t->count = 0;
	t->seed = seed;
	t->probes = 0;
	return t;
}

void
keytable_destroy(struct keytable *t)
{
	if (t == NULL)
		return;
	mem_free(t->slots);
	mem_free(t);
}

/* The slot holding key, or the empty slot where it would go. */
static struct entry *
keytable_slot(const struct keytable *t, uint64_t hash, const char *key, size_t len,
    uint64_t *probes)
{
	size_t mask = t->cap - 1;

	for (size_t i = (size_t)hash & mask;; i = (i + 1) & mask) {
		struct entry *e = &t->slots[i];

		++*probes;
		if (e->key == NULL ||
		    (e->hash == hash && e->len == len && memcmp(e->key, key, len) == 0))
			return e;
	}
}

void *
keytable_find(struct keytable *t, const char *key, size_t len)
{
	struct entry *e = keytable_slot(t, hash_bytes(key, len, t->seed), key, len, &t->probes);

	return e->key != NULL ? e->value : NULL;
}

/* Doubles the table (at most half full after), rehashing from the stored hashes. */
static int
keytable_grow(struct keytable *t)
{
	size_t old_cap = t->cap, bytes;
	struct entry *old = t->slots, *slots;
	uint64_t probes = 0;

	if (mem_array_size(old_cap * 2, sizeof(*slots), &bytes) != 0 ||
	    (slots = mem_realloc(NULL, bytes)) == NULL)
		return -1;
	memset(slots, 0, bytes);
	t->slots = slots;
	t->cap = old_cap * 2;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].key != NULL)
			*keytable_slot(t, old[i].hash, old[i].key, old[i].len, &probes) = old[i];
	mem_free(old);
	return 0;
}

int
keytable_insert(struct keytable *t, const char *key, size_t len, void *value)
{
	uint64_t hash = hash_bytes(key, len, t->seed);
	struct entry *e;

	/* At most three quarters full, so probe runs stay short. */
	if ((t->count + 1) * 4 > t->cap * 3 && keytable_grow(t) != 0)
		return -1;
	e = keytable_slot(t, hash, key, len, &t->probes);
	e->hash = hash;
	e->key = key;
	e->len = len;
	e->value = value;
	t->count++;
	return 0;
}

void *
keytable_remove(struct keytable *t, const char *key, size_t len)
{
	size_t mask = t->cap - 1, hole;
	struct entry *e = keytable_slot(t, hash_bytes(key, len, t->seed), key, len, &t->probes);
	void *value;

	if (e->key == NULL)
		return NULL;
	value = e->value;
	e->key = NULL;
	t->count--;
	/*
	 * Backward shift: move each later entry of the probe run into the hole when
	 * its home slot does not lie between the hole and itself (cyclically).
	 */
	hole = (size_t)(e - t->slots);
	for (size_t i = (hole + 1) & mask; t->slots[i].key != NULL; i = (i + 1) & mask) {
		size_t home = (size_t)t->slots[i].hash & mask;

		if (((i - home) & mask) >= ((i - hole) & mask)) {
			t->slots[hole] = t->slots[i];
			t->slots[i].key = NULL;
			hole = i;
		}
	}
	return value;
}

size_t
keytable_count(const struct keytable *t)
{
	return t->count;
}

uint64_t
keytable_probes(const struct keytable *t)
{
	return t->probes;
}

void
keytable_each(const struct keytable *t, void (*visit)(void *value, void *context),
    void *context)
{
	for (size_t i = 0; i < t->cap; i++)
		if (t->slots[i].key != NULL)
			visit(t->slots[i].value, context);
}
