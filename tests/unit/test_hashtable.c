/*
 * test_hashtable.c: the seeded hash table (hashtable.h) against a naive list of keys:
 * inserts, finds and deletions in random order, with real hashes and with hashes
 * made to collide (every probe run then long, and wrapping past the table's end), the
 * probe-run invariant that backward-shift deletion keeps checked after every change,
 * in the table and in the old table of a move; growth, trimming and clearing; the
 * work of every single operation while tables grow from 16 slots to millions and
 * shrink back, counted (counters.h; the Makefile's TEST_COUNTED_hashtable); and the
 * seed, which scatters keys crafted to collide under another.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hashtable.h"
#include "mem.h"

/* The test's slot: a key (0: free), the hash it was placed by, and a value. */
struct slot {
	uint64_t hash;
	uint32_t key;
	uint32_t value;
};

HASHTABLE_INLINE bool
slot_occupied(const void *slot)
{
	return ((const struct slot *)slot)->key != 0;
}

HASHTABLE_INLINE uint64_t
slot_hash(const struct hashtable *table, const void *slot)
{
	(void)table;
	return ((const struct slot *)slot)->hash;
}

HASHTABLE_INLINE bool
slot_matches(const void *slot, const void *key)
{
	return ((const struct slot *)slot)->key == *(const uint32_t *)key;
}

/* The table moves its keys a step at a time, as the key table's does. */
static const struct hashtable_ops ops = { sizeof(struct slot), slot_occupied, slot_hash,
    true, false };

/* hashtable_find, followed by hashtable_find_old while a move is under way. */
static bool
find_with(struct hashtable *t, const struct hashtable_ops *table_ops, uint64_t hash,
    const uint32_t *key, size_t *index)
{
	if (hashtable_find(t, table_ops, hash, slot_matches, key, index))
		return true;
	return t->old.count != 0 &&
	    hashtable_find_old(t, table_ops, hash, slot_matches, key, *index);
}

/* find_with for the tables of ops. */
static bool
find(struct hashtable *t, uint64_t hash, const uint32_t *key, size_t *index)
{
	return find_with(t, &ops, hash, key, index);
}

#define KEYS 700

/* How a test hashes key k (1..KEYS). */
typedef uint64_t key_hash(const struct hashtable *table, uint32_t k);

/* The seeded hash of k's decimal text. */
static uint64_t
text_hash(const struct hashtable *table, uint32_t k)
{
	char text[16];
	int len = snprintf(text, sizeof(text), "%u", k);

	return hashtable_hash_bytes(table, text, (size_t)len);
}

/*
 * Four hashes for all keys: homes at the first slot, the last (so its run wraps to
 * the first), and the two in the middle, whatever the table's size.
 */
static uint64_t
colliding_hash(const struct hashtable *table, uint32_t k)
{
	static const uint64_t hashes[] = { 0, UINT64_MAX, UINT64_C(1) << 63,
	    (UINT64_C(1) << 63) - 1 };

	(void)table;
	return hashes[k % 4];
}

/*
 * Checks the table against the naive list (value[k] != 0 when k is present): the
 * count, every slot of the table and of the old table of a move holding a present key
 * with its value, each key once, and the invariant that makes every key reachable: no
 * free slot between a key's home and its slot (in the old table, between the later of
 * its home and the move's first unmoved slot, and its slot).
 */
static void
check_table(const struct hashtable *t, const uint32_t *value, size_t present)
{
	const struct hashtable_old *o = &t->old;
	size_t capacity = hashtable_capacity(t), seen = 0, seen_old = 0;
	bool in[KEYS + 1] = { false };

	cr_assert_eq(t->count, present);
	cr_assert_leq(2 * t->count, capacity, "more than half full");
	for (size_t i = 0; i < capacity; i++) {
		const struct slot *s = hashtable_slot(t, sizeof(struct slot), i);
		size_t home;

		if (!slot_occupied(s))
			continue;
		seen++;
		cr_assert(s->key >= 1 && s->key <= KEYS);
		cr_assert_eq(s->value, value[s->key], "key %u", s->key);
		cr_assert_not(in[s->key], "key %u twice", s->key);
		in[s->key] = true;
		home = hashtable_home(t, s->hash);
		for (size_t j = home; j != i; j = (j + 1) & t->mask)
			cr_assert(slot_occupied(hashtable_slot(t, sizeof(struct slot), j)),
			    "key %u at %zu: slot %zu of its run from %zu is free", s->key, i, j,
			    home);
	}
	if (o->count != 0) {
		cr_assert_not_null(o->slots);
		for (size_t rel = o->done; rel <= o->mask; rel++) {
			const struct slot *s = (const struct slot *)(o->slots +
			    ((o->start + rel) & o->mask) * sizeof(struct slot));
			size_t home;

			if (!slot_occupied(s))
				continue;
			seen_old++;
			cr_assert(s->key >= 1 && s->key <= KEYS);
			cr_assert_eq(s->value, value[s->key], "old key %u", s->key);
			cr_assert_not(in[s->key], "key %u twice", s->key);
			in[s->key] = true;
			home = (((size_t)(s->hash >> o->shift)) - o->start) & o->mask;
			for (size_t j = home < o->done ? o->done : home; j != rel; j++)
				cr_assert(slot_occupied(o->slots + ((o->start + j) & o->mask) *
				    sizeof(struct slot)), "old key %u: slot %zu of its run free",
				    s->key, j);
		}
		cr_assert_eq(seen_old, o->count);
	}
	cr_assert_eq(seen + seen_old, present);
}

/* The counters' values before an operation, to measure the operation's own work. */
static struct hashtable_counters before_op;

/*
 * Asserts that the operation since before_op did at most the work hashtable.h states
 * for one: HASHTABLE_MOVE_STEP slots passed, as many moved and one more (a search's
 * find in the old table), less than MEM_MAP_MIN + MEM_FREE_STEP bytes unmapped, and
 * (when probes is not 0) at most probes slots examined by the moves and the old
 * table's searches.
 */
static void
check_op_work(uint64_t probes, const char *what, uint64_t step)
{
	const struct hashtable_counters *c = &hashtable_counters;

	cr_assert_leq(c->passed - before_op.passed, HASHTABLE_MOVE_STEP, "%s %llu: passed",
	    what, (unsigned long long)step);
	cr_assert_leq(c->moved - before_op.moved, HASHTABLE_MOVE_STEP + 1, "%s %llu: moved %llu",
	    what, (unsigned long long)step, (unsigned long long)(c->moved - before_op.moved));
	cr_assert_leq(c->unmapped - before_op.unmapped, MEM_MAP_MIN + MEM_FREE_STEP,
	    "%s %llu: unmapped", what, (unsigned long long)step);
	if (probes != 0)
		cr_assert_leq(c->probes - before_op.probes, probes, "%s %llu: %llu probes", what,
		    (unsigned long long)step, (unsigned long long)(c->probes - before_op.probes));
	before_op = *c;
}

/*
 * Random inserts, finds and removes of keys 1..KEYS, hashed by hash, against a naive
 * list; the table is checked whole after each change.
 */
static void
against_naive(key_hash *hash, unsigned seed, int steps)
{
	struct hashtable t;
	uint32_t value[KEYS + 1] = { 0 };
	size_t present = 0;

	hashtable_init(&t, 42);
	cr_assert_eq(hashtable_reserve(&t, &ops, 0), 0);
	cr_assert_eq(hashtable_capacity(&t), (size_t)1 << HASHTABLE_MIN_BITS);
	for (int step = 0; step < steps; step++) {
		uint32_t k = 1 + (uint32_t)(rand_r(&seed) % KEYS);
		uint64_t h = hash(&t, k);
		int action = rand_r(&seed) % 3;
		size_t index;
		bool found;
		struct slot *s;

		before_op = hashtable_counters;
		found = find(&t, h, &k, &index);
		s = hashtable_slot(&t, sizeof(struct slot), index);

		cr_assert_eq(found, value[k] != 0, "step %d key %u", step, k);
		if (found) {
			cr_assert_eq(s->key, k);
			cr_assert_eq(s->value, value[k]);
		} else {
			cr_assert_not(slot_occupied(s));
		}
		if (action == 0 && !found) {
			cr_assert_eq(hashtable_make_room(&t, &ops, h, &index), 0);
			s = hashtable_claim(&t, sizeof(struct slot), index);
			cr_assert_not(slot_occupied(s));
			*s = (struct slot){ h, k, (uint32_t)step + 1 };
			value[k] = (uint32_t)step + 1;
			present++;
		} else if (action == 1 && found) {
			hashtable_remove(&t, &ops, index);
			value[k] = 0;
			present--;
			/* A table that grew with a burst gives memory back as keys leave. */
			if (rand_r(&seed) % 2)
				hashtable_trim(&t, &ops);
		} else {
			continue;
		}
		check_op_work(0, "step", (uint64_t)step);
		check_table(&t, value, present);
	}
	hashtable_free(&t);
	cr_assert_eq(hashtable_capacity(&t), 0);
}

Test(hashtable, against_naive_with_real_hashes)
{
	for (unsigned seed = 1; seed <= 5; seed++)
		against_naive(text_hash, seed, 20000);
}

/*
 * Every key in one of four probe runs, one of them wrapping past the table's end:
 * each deletion shifts long runs back, and a key whose home lies beyond the hole
 * (cyclically) must stay where it is.
 */
Test(hashtable, backward_shift_with_colliding_hashes)
{
	for (unsigned seed = 1; seed <= 3; seed++)
		against_naive(colliding_hash, seed, 6000);
}

/*
 * Deleting the head of a run whose later keys have other homes: a key moves back into
 * the hole only when its home does not lie after the hole (cyclically); a key at its
 * home stays, and the hole moves on past it.
 */
Test(hashtable, backward_shift_keeps_keys_reachable)
{
	struct hashtable t;
	/* Homes in a table of 16 slots (hash >> 60): 14, 15, 14, 1, 0. */
	const uint64_t hashes[] = { UINT64_C(14) << 60, UINT64_C(15) << 60,
	    UINT64_C(14) << 60, UINT64_C(1) << 60, 0 };
	/* Where keys 1..5 land, and where 2..5 are once key 1 has left slot 14. */
	const size_t before[] = { 14, 15, 0, 1, 2 }, after[] = { 15, 14, 1, 0 };
	uint32_t k;
	size_t index;

	hashtable_init(&t, 0);
	cr_assert_eq(hashtable_reserve(&t, &ops, 0), 0);
	cr_assert_eq(hashtable_capacity(&t), 16);
	for (k = 1; k <= 5; k++) {
		index = hashtable_free_index(&t, &ops, hashes[k - 1]);
		cr_assert_eq(index, before[k - 1], "key %u", k);
		*(struct slot *)hashtable_claim(&t, sizeof(struct slot), index) =
		    (struct slot){ hashes[k - 1], k, k };
	}
	k = 1;
	cr_assert(find(&t, hashes[0], &k, &index));
	cr_assert_eq(index, 14);
	hashtable_remove(&t, &ops, index);
	cr_assert_not(find(&t, hashes[0], &k, &index));
	for (k = 2; k <= 5; k++) {
		cr_assert(find(&t, hashes[k - 1], &k, &index));
		cr_assert_eq(index, after[k - 2], "key %u", k);
	}
	cr_assert_not(slot_occupied(hashtable_slot(&t, sizeof(struct slot), 2)));
	cr_assert_eq(t.count, 4);
	hashtable_free(&t);
}

/* reserve sizes the table at most half full; trim halves one that is under an eighth. */
Test(hashtable, growth_trim_and_clear)
{
	struct hashtable t;
	size_t index;

	hashtable_init(&t, 7);
	cr_assert_eq(hashtable_capacity(&t), 0);
	cr_assert_eq(hashtable_reserve(&t, &ops, 1000), 0);
	cr_assert_eq(hashtable_capacity(&t), 2048);
	cr_assert_eq(hashtable_reserve(&t, &ops, 1024), 0);
	cr_assert_eq(hashtable_capacity(&t), 2048);
	for (uint32_t k = 1; k <= 1000; k++) {
		uint64_t h = text_hash(&t, k);

		cr_assert_not(find(&t, h, &k, &index));
		*(struct slot *)hashtable_claim(&t, sizeof(struct slot), index) =
		    (struct slot){ h, k, k };
	}
	hashtable_trim(&t, &ops);
	cr_assert_eq(hashtable_capacity(&t), 2048, "half full: no trim");
	for (uint32_t k = 1; k <= 990; k++) {
		cr_assert(find(&t, text_hash(&t, k), &k, &index));
		hashtable_remove(&t, &ops, index);
		hashtable_trim(&t, &ops);
	}
	/*
	 * Ten keys: trimmed while under an eighth full, down to 64 slots, once the moves
	 * that trimming starts have taken their steps, one a call.
	 */
	for (int i = 0; i < 1000; i++)
		hashtable_trim(&t, &ops);
	cr_assert_eq(hashtable_capacity(&t), 64);
	cr_assert_null(t.old.slots);
	for (uint32_t k = 991; k <= 1000; k++) {
		cr_assert(find(&t, text_hash(&t, k), &k, &index));
		cr_assert_eq(((struct slot *)hashtable_slot(&t, sizeof(struct slot), index))->value,
		    k);
	}
	hashtable_clear(&t, sizeof(struct slot));
	cr_assert_eq(t.count, 0);
	cr_assert_eq(hashtable_capacity(&t), 64);
	for (uint32_t k = 991; k <= 1000; k++)
		cr_assert_not(find(&t, text_hash(&t, k), &k, &index));
	hashtable_free(&t);
}

/*
 * A sparse table (mode's) is at most a quarter full: reserve and make_room size it so,
 * trim halves it under a sixteenth, and a step moves 2 * HASHTABLE_MOVE_STEP slots, so
 * that a shrink keeps up with keys that leave one a step: the table of 4,096 slots
 * that 1,000 keys grew is down to 256 once 990 have left, one trim each, with no move
 * under way, where 16 slots a step leave it at 1,024.
 */
Test(hashtable, sparse_is_a_quarter_full)
{
	static const struct hashtable_ops sparse = { sizeof(struct slot), slot_occupied,
	    slot_hash, true, true };
	struct hashtable t;
	size_t index;

	hashtable_init(&t, 7);
	cr_assert_eq(hashtable_reserve(&t, &sparse, 1000), 0);
	cr_assert_eq(hashtable_capacity(&t), 4096);
	cr_assert_eq(hashtable_reserve(&t, &sparse, 1024), 0);
	cr_assert_eq(hashtable_capacity(&t), 4096);
	hashtable_free(&t);

	hashtable_init(&t, 7);
	cr_assert_eq(hashtable_reserve(&t, &sparse, 0), 0);	/* the first slots */
	for (uint32_t k = 1; k <= 1000; k++) {
		uint64_t h = text_hash(&t, k);
		uint64_t passed = hashtable_counters.passed;

		cr_assert_not(find_with(&t, &sparse, h, &k, &index));
		cr_assert_eq(hashtable_make_room(&t, &sparse, h, &index), 0);
		cr_assert_leq(hashtable_counters.passed - passed, 2 * HASHTABLE_MOVE_STEP);
		*(struct slot *)hashtable_claim(&t, sizeof(struct slot), index) =
		    (struct slot){ h, k, k };
		cr_assert_leq(4 * t.count, hashtable_capacity(&t), "more than a quarter full");
	}
	cr_assert_eq(hashtable_capacity(&t), 4096);
	for (uint32_t k = 1; k <= 990; k++) {
		uint64_t h = text_hash(&t, k);

		cr_assert(find_with(&t, &sparse, h, &k, &index));
		hashtable_remove(&t, &sparse, index);
		hashtable_trim(&t, &sparse);
	}
	cr_assert_leq(hashtable_capacity(&t), 256);
	cr_assert_eq(t.old.count, 0);
	for (int i = 0; i < 1000; i++)
		hashtable_trim(&t, &sparse);
	/* Ten keys: halved while under a sixteenth full, down to 128 slots. */
	cr_assert_eq(hashtable_capacity(&t), 128);
	for (uint32_t k = 991; k <= 1000; k++) {
		cr_assert(find_with(&t, &sparse, text_hash(&t, k), &k, &index));
		cr_assert_eq(((struct slot *)hashtable_slot(&t, sizeof(struct slot), index))->value,
		    k);
	}
	hashtable_free(&t);
}

/* The hash of key k of work_per_operation: of its four bytes. */
static uint64_t
int_hash(const struct hashtable *table, uint32_t k)
{
	return hashtable_hash_bytes(table, &k, sizeof(k));
}

/* The slots that one operation of work_per_operation may examine in all. */
#define OP_PROBES 256

/*
 * Grows a table from 16 slots to 2^21 (a million keys, each insert preceded by the
 * search that misses it and followed by a search for an earlier key, which may find
 * it in the old table of a move), then removes every key, trimming after each, down
 * to 16 slots: no single operation passes, moves, clears or unmaps more than its
 * bound, and every key is where the naive model says at checkpoints.  A growth that
 * rebuilt the table at once would move half a million keys in one insert.
 */
Test(hashtable, work_per_operation)
{
	enum { N = 1 << 20 };
	struct hashtable t;
	static uint32_t value[N + 1];
	uint64_t max_probes = 0, last;
	unsigned seed = 3;
	size_t index;

	hashtable_init(&t, 11);
	cr_assert_eq(hashtable_reserve(&t, &ops, 0), 0);
	before_op = hashtable_counters;
	for (uint32_t k = 1; k <= N; k++) {
		uint64_t h = int_hash(&t, k);
		uint32_t earlier = 1 + (uint32_t)rand_r(&seed) % k;

		last = hashtable_counters.probes;
		cr_assert_not(find(&t, h, &k, &index));
		cr_assert_eq(hashtable_make_room(&t, &ops, h, &index), 0);
		*(struct slot *)hashtable_claim(&t, sizeof(struct slot), index) =
		    (struct slot){ h, k, k };
		value[k] = k;
		if (hashtable_counters.probes - last > max_probes)
			max_probes = hashtable_counters.probes - last;
		check_op_work(OP_PROBES, "insert", k);
		cr_assert(find(&t, int_hash(&t, earlier), &earlier, &index));
		cr_assert_eq(((struct slot *)hashtable_slot(&t, sizeof(struct slot), index))->value,
		    earlier);
		check_op_work(OP_PROBES, "find", k);
	}
	cr_assert_eq(hashtable_capacity(&t), (size_t)1 << 21);
	for (uint32_t i = 0; i < N; i++) {
		/* Every key once, in an order of their own (the stride is odd). */
		uint32_t k = 1 + (uint32_t)(((uint64_t)i * 2654435761u) % N);

		last = hashtable_counters.probes;
		cr_assert(find(&t, int_hash(&t, k), &k, &index),
		    "key %u", k);
		hashtable_remove(&t, &ops, index);
		hashtable_trim(&t, &ops);
		value[k] = 0;
		if (hashtable_counters.probes - last > max_probes)
			max_probes = hashtable_counters.probes - last;
		check_op_work(OP_PROBES, "remove", i);
		if (i % (N / 8) == N / 16) {
			for (uint32_t j = 1; j <= N; j++)
				cr_assert_eq(find(&t, int_hash(&t, j), &j, &index), value[j] != 0,
				    "key %u after %u removals", j, i);
			before_op = hashtable_counters;
		}
	}
	for (int i = 0; i < 1000; i++) {
		hashtable_trim(&t, &ops);
		check_op_work(OP_PROBES, "trim", (uint64_t)i);
	}
	cr_assert_eq(t.count, 0);
	cr_assert_eq(hashtable_capacity(&t), 16);
	cr_assert_null(t.old.slots);
	cr_log_info("work_per_operation: at most %llu probes an operation",
	    (unsigned long long)max_probes);
	hashtable_free(&t);
}

/*
 * A table whose ops do not move (mode's, distinct's) grows and shrinks at once: no old
 * table is left for a search to miss a key in.
 */
Test(hashtable, grows_at_once_without_moves)
{
	static const struct hashtable_ops at_once = { sizeof(struct slot), slot_occupied,
	    slot_hash, false, false };
	struct hashtable t;
	size_t index;

	hashtable_init(&t, 5);
	cr_assert_eq(hashtable_reserve(&t, &at_once, 0), 0);
	for (uint32_t k = 1; k <= 5000; k++) {
		uint64_t h = int_hash(&t, k);

		cr_assert_not(hashtable_find(&t, &at_once, h, slot_matches, &k, &index));
		cr_assert_eq(hashtable_make_room(&t, &at_once, h, &index), 0);
		*(struct slot *)hashtable_claim(&t, sizeof(struct slot), index) =
		    (struct slot){ h, k, k };
		cr_assert_null(t.old.slots);
	}
	for (uint32_t k = 1; k <= 5000; k++) {
		cr_assert(hashtable_find(&t, &at_once, int_hash(&t, k), slot_matches, &k, &index));
		hashtable_remove(&t, &at_once, index);
		hashtable_trim(&t, &at_once);
		cr_assert_null(t.old.slots);
	}
	cr_assert_eq(hashtable_capacity(&t), 16);
	hashtable_free(&t);
}

/* Inserts keys whose hashes are hashes[0..n) and returns the probes of finding them all. */
static uint64_t
probes_of(struct hashtable *t, const uint64_t *hashes, uint32_t n)
{
	uint64_t probes = 0;
	size_t index;

	cr_assert_eq(hashtable_reserve(t, &ops, n), 0);
	for (uint32_t k = 1; k <= n; k++) {
		index = hashtable_free_index(t, &ops, hashes[k - 1]);
		*(struct slot *)hashtable_claim(t, sizeof(struct slot), index) =
		    (struct slot){ hashes[k - 1], k, k };
	}
	for (uint32_t k = 1; k <= n; k++) {
		cr_assert(find(t, hashes[k - 1], &k, &index));
		probes += hashtable_probe_length(t, hashes[k - 1], index);
	}
	return probes;
}

/* A fixed-seed hash of i, as distinct's fields have, for the 64-bit-key hash. */
static uint64_t
fixed_seed_key(uint64_t i)
{
	return hash_bytes(&i, sizeof(i), 99);
}

/* The table's hash of key i: of its bytes, or (u64) of its fixed-seed hash. */
static uint64_t
seeded_hash(const struct hashtable *t, uint64_t i, bool u64)
{
	if (u64)
		return hashtable_hash_u64(t, fixed_seed_key(i));
	return hashtable_hash_bytes(t, &i, sizeof(i));
}

/*
 * Finds N keys whose hashes share their top 12 bits under the attacked seed (one home
 * in any table of up to 4,096 slots), and asserts that they make one long run under
 * that seed and short ones under another.
 */
static void
check_flooding(bool u64)
{
	enum { N = 1000 };
	struct hashtable attacked, seeded;
	static uint64_t keys[N], a_hashes[N], b_hashes[N];
	uint64_t attacked_probes, seeded_probes;
	uint32_t found = 0;

	hashtable_init(&attacked, 1);
	hashtable_init(&seeded, 0x9e3779b97f4a7c15u);
	for (uint64_t i = 0; found < N; i++)
		if (seeded_hash(&attacked, i, u64) >> 52 == 0x123)
			keys[found++] = i;
	for (uint32_t k = 0; k < N; k++) {
		a_hashes[k] = seeded_hash(&attacked, keys[k], u64);
		b_hashes[k] = seeded_hash(&seeded, keys[k], u64);
	}
	attacked_probes = probes_of(&attacked, a_hashes, N);
	seeded_probes = probes_of(&seeded, b_hashes, N);
	cr_log_info("%s: %llu probes under the attacked seed, %llu under another",
	    u64 ? "64-bit keys" : "bytes", (unsigned long long)attacked_probes,
	    (unsigned long long)seeded_probes);
	cr_assert_gt(attacked_probes, 100000);
	cr_assert_lt(seeded_probes, 2 * N);
	hashtable_free(&attacked);
	hashtable_free(&seeded);
}

/*
 * Keys crafted to collide under one seed scatter under another, for both of the
 * table's hashes: of bytes, and of a 64-bit key that is itself a fixed-seed hash
 * (distinct's fields).
 */
Test(hashtable, seeded_against_flooding)
{
	struct hashtable a, b;

	hashtable_init(&a, 1);
	hashtable_init(&b, 2);
	cr_assert_neq(hashtable_hash_bytes(&a, "x", 1), hashtable_hash_bytes(&b, "x", 1));
	cr_assert_neq(hashtable_hash_u64(&a, 5), hashtable_hash_u64(&b, 5));
	check_flooding(false);
	check_flooding(true);
}
