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
 * The empty key's words are a free slot's zeros, so its search in the table of a move
 * under way can match the free slot where it ends (keytable_find): it must still find
 * the key in the old table, found after each insert as the table grows by moves.
 */
Test(keytable, empty_key_while_the_table_moves)
{
	enum { N = 20000 };
	static char names[N][12];
	struct keytable *t = keytable_create(3);
	size_t moving = 0;

	cr_assert_not_null(t);
	cr_assert_eq(keytable_insert(t, "", 0, (void *)1), 0);
	for (int k = 0; k < N; k++) {
		snprintf(names[k], sizeof(names[k]), "%d", k);
		cr_assert_eq(keytable_insert(t, names[k], strlen(names[k]), (void *)2), 0);
		moving += t->table.old.count != 0;
		cr_assert_eq((intptr_t)keytable_find(t, "", 0), 1, "after %d keys", k + 1);
	}
	/* The table grew by moves, several times. */
	cr_assert_gt(moving, 100);
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

		if (keytable_hash(attacked, keys[found], (size_t)len) >> 52 == 0x123)
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
** hash_key_words, which with the length stands for a short key in the table's compare:
** every length from 0 to 16, equal strings give equal words, and strings that differ in
** one byte at any position (by one bit and by all) give other words; each string at the
** very end of a block of its own size, for AddressSanitizer (so longer keys too, to 40
** bytes, whose words are read but do not say the key).
*/
Test(keytable, key_words_say_a_short_key)
{
	for (size_t len = 0; len <= 40; len++) {
		char *a = malloc(len ? len : 1), *b = malloc(len ? len : 1);
		uint64_t a0, a1, b0, b1;
		cr_assert(a != NULL && b != NULL);
		for (size_t i = 0; i < len; i++)
			a[i] = b[i] = (char)('a' + i % 26);
		hash_key_words(a, len <= HASH_WORDS_MAX ? len : 8, &a0, &a1);
		hash_key_words(b, len <= HASH_WORDS_MAX ? len : 8, &b0, &b1);
		cr_assert(a0 == b0 && a1 == b1, "length %zu: equal strings differ", len);
		for (size_t i = 0; i < len && len <= HASH_WORDS_MAX; i++) {
			for (int flip = 1; flip <= 0x80; flip <<= 7) {
				b[i] = (char)(a[i] ^ (flip == 0x80 ? 0xFF : flip));
				hash_key_words(b, len, &b0, &b1);
				if (a0 == b0 && a1 == b1)
					cr_assert_fail("length %zu, byte %zu flipped by %#x: same words",
					               len, i, flip);
				b[i] = a[i];
			}
		}
		free(a);
		free(b);
	}
}

/*
** Keys of every length from 0 to 40 over three bytes (NUL and 0xFF among them), so that
** many share their words, their first and last 8 bytes or all but their length, each in
** storage of its own size, inserted, found (by a copy) and removed at random against a
** naive list: the table tells apart exactly the keys memcmp does.
*/
Test(keytable, keys_of_every_length_against_naive)
{
	enum { N = 3000 };
	static char *keys[N];
	static size_t lens[N];
	static bool present[N];
	static const char bytes[] = { 'a', '\0', (char)0xFF };
	struct keytable *t = keytable_create(77);
	uint64_t state = 99;
	size_t count = 0;

	cr_assert_not_null(t);
	for (int k = 0; k < N; k++) {
		bool fresh;
		do {
			state = state * 6364136223846793005u + 1442695040888963407u;
			lens[k] = (size_t)(state >> 33) % 41;
			keys[k] = malloc(lens[k] ? lens[k] : 1);
			cr_assert_not_null(keys[k]);
			for (size_t i = 0; i < lens[k]; i++) {
				state = state * 6364136223846793005u + 1442695040888963407u;
				/* Mostly 'a': long keys then differ in a byte or two. */
				keys[k][i] = (state >> 40) % 8 == 0 ? bytes[(state >> 50) % 3] : 'a';
			}
			fresh = true;
			for (int j = 0; j < k && fresh; j++)
				fresh = !(lens[j] == lens[k] && memcmp(keys[j], keys[k], lens[k]) == 0);
			if (!fresh)
				free(keys[k]);
		} while (!fresh);
	}
	for (int step = 0; step < 300000; step++) {
		state = state * 6364136223846793005u + 1442695040888963407u;
		int k = (int)((state >> 33) % N), action = (int)((state >> 20) % 3);
		char *copy = malloc(lens[k] ? lens[k] : 1);

		cr_assert_not_null(copy);
		memcpy(copy, keys[k], lens[k]);
		if (action == 0 && !present[k]) {
			cr_assert_eq(keytable_insert(t, keys[k], lens[k], &present[k]), 0);
			present[k] = true;
			count++;
		} else if (action == 1 && present[k]) {
			cr_assert_eq(keytable_remove(t, copy, lens[k]), &present[k]);
			present[k] = false;
			count--;
		} else {
			void *v = keytable_find(t, copy, lens[k]);

			if (v != (present[k] ? &present[k] : NULL))
				cr_assert_fail("step %d: key %d of %zu bytes found as %p", step, k,
				               lens[k], v);
		}
		free(copy);
		cr_assert_eq(keytable_count(t), count);
	}
	keytable_destroy(t);
	for (int k = 0; k < N; k++)
		free(keys[k]);
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
