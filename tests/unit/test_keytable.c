/*
 * test_keytable.c: the group-key table against a naive map, and against flooding.
 * Built with -DSWAG_TEST_COUNTERS (the Makefile's TEST_COUNTED_keytable), for
 * keytable_probes.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "keytable.h"
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
