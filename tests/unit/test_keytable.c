/*
 * test_keytable.c: the group-key table against a naive map, against flooding, and the
 * work of each operation while it grows past a million keys and shrinks back.  Built
 * with -DSWAG_TEST_COUNTERS (the Makefile's TEST_COUNTED_keytable), for keytable_probes
 * and hashtable.h's counters.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "hashtable.h"
#include "keytable.h"
#include "mem.h"
#include "swar.h"

#define KEYS 600

/* Random inserts, finds and removes agree with a naive array of present keys. */
Test(keytable, against_naive)
{
	struct keytable *t = keytable_create(42);
	bool present[KEYS] = { false };
	intptr_t values[KEYS];
	unsigned seed = 5;
	size_t count = 0;
	/* The table keeps the callers' key pointers: each key has its own storage. */
	static char names[KEYS][16];

	cr_assert_not_null(t);
	for (int k = 0; k < KEYS; k++)
		snprintf(names[k], sizeof(names[k]), "k%d", k);
	for (int step = 0; step < 200000; step++) {
		int k = rand_r(&seed) % KEYS, action = rand_r(&seed) % 3;
		char lookup[16];
		const char *key = names[k];
		int len = (int)strlen(key);

		/* Lookups use a copy, so equal bytes, not equal pointers, must match. */
		memcpy(lookup, key, (size_t)len + 1);
		if (action == 2)
			key = lookup;

		if (action == 0 && !present[k]) {
			values[k] = step + 1;
			cr_assert_eq(keytable_insert(t, key, (size_t)len, (void *)values[k]), 0);
			present[k] = true;
			count++;
		} else if (action == 1 && present[k]) {
			cr_assert_eq((intptr_t)keytable_remove(t, key, (size_t)len), values[k]);
			present[k] = false;
			count--;
		} else {
			void *v = keytable_find(t, key, (size_t)len);

			cr_assert_eq((intptr_t)v, present[k] ? values[k] : 0, "step %d key %s", step, key);
		}
		cr_assert_eq(keytable_count(t), count);
	}
	/* Keys that differ only past a NUL byte, and the empty key, are distinct. */
	cr_assert_eq(keytable_insert(t, "a\0b", 3, (void *)1), 0);
	cr_assert_eq(keytable_insert(t, "a\0c", 3, (void *)2), 0);
	cr_assert_eq(keytable_insert(t, "", 0, (void *)3), 0);
	cr_assert_eq((intptr_t)keytable_find(t, "a\0b", 3), 1);
	cr_assert_eq((intptr_t)keytable_find(t, "a\0c", 3), 2);
	cr_assert_eq((intptr_t)keytable_find(t, "", 0), 3);
	cr_assert_null(keytable_find(t, "a", 1));
	keytable_destroy(t);
}

/*
 * Keys found to share their home slot under one seed (the top 12 bits of the hash,
 * the same slot in any table of up to 4,096 slots) make long probe runs under that
 * seed, and ordinary ones under another: the run's seed defeats flooding.  Probes
 * are counted, not timed.
 */
Test(keytable, seeded_against_flooding)
{
	static char keys[1000][16];
	uint64_t attack_seed = 1, run_seed = 0x9e3779b97f4a7c15u;
	struct keytable *attacked = keytable_create(attack_seed);
	struct keytable *seeded = keytable_create(run_seed);
	int found = 0;

	for (unsigned i = 0; found < 1000; i++) {
		int len = snprintf(keys[found], sizeof(keys[found]), "%u", i);

		if (hash_bytes(keys[found], (size_t)len, attack_seed) >> 52 == 0x123)
			found++;
	}
	for (int i = 0; i < 1000; i++) {
		cr_assert_eq(keytable_insert(attacked, keys[i], strlen(keys[i]), keys[i]), 0);
		cr_assert_eq(keytable_insert(seeded, keys[i], strlen(keys[i]), keys[i]), 0);
	}
	for (int i = 0; i < 1000; i++) {
		cr_assert_eq(keytable_find(attacked, keys[i], strlen(keys[i])), keys[i]);
		cr_assert_eq(keytable_find(seeded, keys[i], strlen(keys[i])), keys[i]);
	}
	/* 2,000 operations: a few probes each when scattered, hundreds when not. */
	cr_log_info("probes: %llu under the attacked seed, %llu under another",
	    (unsigned long long)keytable_probes(attacked), (unsigned long long)keytable_probes(seeded));
	cr_assert_gt(keytable_probes(attacked), 100000);
	cr_assert_lt(keytable_probes(seeded), 2000 * 4);
	keytable_destroy(attacked);
	keytable_destroy(seeded);
}

/*
** swar_equal, the table's key compare, against memcmp: every length from 0 to 40, equal
** strings and strings that differ in one byte at each position (by one bit and by all),
** each at the very end of a block of its own size, for AddressSanitizer. Keys reach the
** compare only when their hashes agree, so the table's own tests seldom get here.
*/
Test(keytable, word_compare_against_memcmp)
{
	for (size_t len = 0; len <= 40; len++) {
		char *a = malloc(len ? len : 1), *b = malloc(len ? len : 1);
		cr_assert(a != NULL && b != NULL);
		for (size_t i = 0; i < len; i++)
			a[i] = b[i] = (char)('a' + i % 26);
		cr_assert(swar_equal(a, b, len), "length %zu: equal strings differ", len);
		for (size_t i = 0; i < len; i++) {
			for (int flip = 1; flip <= 0x80; flip <<= 7) {
				b[i] = (char)(a[i] ^ (flip == 0x80 ? 0xFF : flip));
				if (swar_equal(a, b, len) != (memcmp(a, b, len) == 0))
					cr_assert_fail("length %zu, byte %zu flipped by %#x: %d", len, i,
					               flip, swar_equal(a, b, len));
				b[i] = a[i];
			}
		}
		free(a);
		free(b);
	}
}

/* The work counted so far: the table's probes and its moves' (hashtable.h's counters). */
struct work {
	uint64_t probes, passed, moved, unmapped;
};

static struct work
work_now(const struct keytable *t)
{
	const struct hashtable_counters *c = &hashtable_counters;

	return (struct work){ keytable_probes(t) + c->probes, c->passed, c->moved,
	    c->unmapped };
}

/* The slots one operation of bounded_work may examine in all, searches and moves. */
#define OP_PROBES 256

/*
 * Asserts that the operation since *before did at most one operation's work, and makes
 * *before now: HASHTABLE_MOVE_STEP slots passed, one more moved (a find's key found in
 * the old table), less than MEM_MAP_MIN + MEM_FREE_STEP bytes unmapped, OP_PROBES
 * slots examined.  Returns the probes.
 */
static uint64_t
check_work(const struct keytable *t, struct work *before, const char *what, unsigned i)
{
	struct work now = work_now(t);
	uint64_t probes = now.probes - before->probes;

	cr_assert_leq(now.passed - before->passed, HASHTABLE_MOVE_STEP, "%s %u", what, i);
	cr_assert_leq(now.moved - before->moved, HASHTABLE_MOVE_STEP + 1, "%s %u: moved %llu",
	    what, i, (unsigned long long)(now.moved - before->moved));
	cr_assert_leq(now.unmapped - before->unmapped, MEM_MAP_MIN + MEM_FREE_STEP,
	    "%s %u: unmapped", what, i);
	cr_assert_leq(probes, OP_PROBES, "%s %u: %llu probes", what, i, (unsigned long long)probes);
	*before = now;
	return probes;
}

/*
 * 1,200,000 keys inserted (the table grows past 2^20 keys to 2^22 slots), each insert
 * followed by a find of an earlier key, then all removed in an order of their own,
 * which shrinks the table back: no single operation does more than one operation's
 * work, counted, and finds agree with the naive model at checkpoints (a table rebuilt
 * at once would move 2^20 keys in one insert).
 */
Test(keytable, bounded_work)
{
	enum { N = 1200000 };
	static char names[N][12];
	static bool present[N];
	struct keytable *t = keytable_create(9);
	struct work before;
	uint64_t most = 0, probes;
	unsigned seed = 8;

	cr_assert_not_null(t);
	before = work_now(t);
	for (unsigned k = 0; k < N; k++) {
		unsigned earlier = (unsigned)rand_r(&seed) % (k + 1);

		snprintf(names[k], sizeof(names[k]), "k%u", k);
		cr_assert_null(keytable_find(t, names[k], strlen(names[k])));
		cr_assert_eq(keytable_insert(t, names[k], strlen(names[k]), names[k]), 0);
		present[k] = true;
		if ((probes = check_work(t, &before, "insert", k)) > most)
			most = probes;
		cr_assert_eq(keytable_find(t, names[earlier], strlen(names[earlier])),
		    names[earlier], "key %u", earlier);
		if ((probes = check_work(t, &before, "find", k)) > most)
			most = probes;
	}
	cr_assert_eq(keytable_count(t), N);
	for (unsigned i = 0; i < N; i++) {
		unsigned k = (unsigned)(((uint64_t)i * 2654435761u) % N);

		cr_assert_eq(keytable_remove(t, names[k], strlen(names[k])), names[k], "key %u", k);
		present[k] = false;
		if ((probes = check_work(t, &before, "remove", i)) > most)
			most = probes;
		if (i % (N / 4) == N / 8) {
			for (unsigned j = 0; j < N; j++)
				cr_assert_eq(keytable_find(t, names[j], strlen(names[j])),
				    present[j] ? names[j] : NULL, "key %u after %u removals", j, i);
			before = work_now(t);
		}
	}
	cr_assert_eq(keytable_count(t), 0);
	cr_log_info("bounded_work: at most %llu probes an operation", (unsigned long long)most);
	keytable_destroy(t);
}
