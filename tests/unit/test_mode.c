/*
 * test_mode.c: the mode aggregate against a naive recomputation of every window,
 * the man page's tie-break cases one by one, and the work and memory bounds of its
 * window structure, checked by counting (probes, comparisons, capacities) rather
 * than timing.  Built with -DSWAG_TEST_COUNTERS (the Makefile's TEST_COUNTED_mode), for
 * agg_mode_counters.
 *
 * The naive reference counts every value of the window from scratch after each
 * operation and picks the most frequent by a comparison written apart from the
 * one in agg_mode.c, from the man page's sentence: numbers first, numerically, NaN
 * after every other number, equal numbers by text; then the rest bytewise.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../agg_steps.h"
#include "agg.h"
#include "agg_mode.h"
#include "hash.h"
#include "hashtable.h"
#include "mem.h"
#include "numparse.h"

#define MAX_WINDOW 300

/* xorshift64*: every run tests the same sequences. */
static uint64_t
random_next(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 0x2545F4914F6CDD1DULL;
}

static struct agg *
mode_make(uint64_t min_count, uint64_t seed)
{
	struct agg_params params = { .min_count = min_count, .hash_seed = seed };
	struct agg *agg = agg_mode.create(&agg_mode, &params);

	cr_assert_not_null(agg);
	return agg;
}

/*
 * Moves a row window of rows slots on by text[0..len) (UINT64_MAX: a window that
 * never fills, so a push), storing the result in *result unless it is NULL.  The text
 * comes the way a reader would hand it over: from a buffer that is overwritten right
 * after and holds no NUL after the field, so that mode must copy the bytes and must
 * not read past len.
 */
static void
slide_text(struct agg *agg, uint64_t rows, const char *text, size_t len,
    struct agg_result *result)
{
	static char scratch[4096];
	struct agg_value value = { .has_text = true, .text = scratch, .text_len = len };

	cr_assert(len < sizeof(scratch));
	memcpy(scratch, text, len);
	memset(scratch + len, 'x', 8);
	cr_assert_eq(agg_step_slide(agg, rows, &value, result), 0);
	memset(scratch, '#', len + 8);
}

/* Pushes text[0..len), handed over as slide_text says. */
static void
push_text(struct agg *agg, const char *text, size_t len)
{
	static char scratch[4096];
	struct agg_value value = { .has_text = true, .text = scratch, .text_len = len };

	cr_assert(len < sizeof(scratch));
	memcpy(scratch, text, len);
	memset(scratch + len, 'x', 8);
	cr_assert_eq(agg_step_push(agg, &value), 0);
	memset(scratch, '#', len + 8);
}

static void
push_string(struct agg *agg, const char *text)
{
	push_text(agg, text, strlen(text));
}

static void
push_missing(struct agg *agg)
{
	struct agg_value value = { .has_text = false };

	cr_assert_eq(agg_step_push(agg, &value), 0);
}

/* Moves a row window of rows slots on by a missing field. */
static void
slide_missing(struct agg *agg, uint64_t rows)
{
	struct agg_value value = { .has_text = false };

	cr_assert_eq(agg_step_slide(agg, rows, &value, NULL), 0);
}

/* The value set the random tests draw from; every text appears once. */
struct pool {
	size_t count;
	char **text;
	size_t *len;
	int *rank;		/* 0 a number other than NaN, 1 NaN, 2 not a number */
	double *number;
};

/* Texts whose order the man page pins down, and pairs it tells apart. */
static const char *const tricky_texts[] = {
	"1", "1.0", "01", "+1", "1e0", "1.", "001", "10", "9", "2", "-1", "-10", "-1.0",
	"nan", "NaN", "NAN", "-nan", "+nan", "inf", "-inf", "Inf", "infinity", "-Infinity",
	"1e309", "-1e309", "-0", "0", "0.0", "+0", "-0.0", "1e-400", "-1e-400", ".5", "0.5",
	"5e-1", "1e308", "4.9e-324", "a", "b", "A", "ab", "abc", "Zebra", "zebra", "-",
	"0x10", "1,5", "1.5x", "1 2", "e", ".", "nan(1)", "\xc3\xa9" "clair", "\xff",
	"02134", "2134", "192.168.0.1", "10.0.0.1",
	"a text longer than sixteen bytes, kept outside the entry",
	"a text longer than sixteen bytes, kept outside the entry!",
};

/* Adds text (len bytes) to pool unless it is there already. */
static void
pool_add(struct pool *pool, const char *text, size_t len)
{
	for (size_t i = 0; i < pool->count; i++)
		if (pool->len[i] == len && memcmp(pool->text[i], text, len) == 0)
			return;
	pool->text[pool->count] = malloc(len + 1);
	cr_assert_not_null(pool->text[pool->count]);
	memcpy(pool->text[pool->count], text, len);
	pool->text[pool->count][len] = '\0';
	pool->len[pool->count] = len;
	if (parse_number(text, len, &pool->number[pool->count]))
		pool->rank[pool->count] = isnan(pool->number[pool->count]) ? 1 : 0;
	else
		pool->rank[pool->count] = 2;
	pool->count++;
}

/*
 * Makes a pool of the tricky texts, the texts with embedded NUL bytes, and extra
 * generated ones: numbers written several ways (equal numbers, different texts),
 * words of 1 to 40 letters, long texts past the size a freed entry keeps.
 */
static struct pool
pool_make(size_t extra, uint64_t seed)
{
	size_t capacity = sizeof(tricky_texts) / sizeof(tricky_texts[0]) + 2 + extra;
	struct pool pool = { 0 };
	char text[400];

	pool.text = calloc(capacity, sizeof(*pool.text));
	pool.len = calloc(capacity, sizeof(*pool.len));
	pool.rank = calloc(capacity, sizeof(*pool.rank));
	pool.number = calloc(capacity, sizeof(*pool.number));
	cr_assert(pool.text && pool.len && pool.rank && pool.number);
	for (size_t i = 0; i < sizeof(tricky_texts) / sizeof(tricky_texts[0]); i++)
		pool_add(&pool, tricky_texts[i], strlen(tricky_texts[i]));
	pool_add(&pool, "a\0b", 3);
	pool_add(&pool, "a\0", 2);
	while (pool.count < capacity) {
		uint64_t r = random_next(&seed);
		int n = (int)((r >> 40) % 100), len;

		switch (r % 7) {
		case 0:
			len = snprintf(text, sizeof(text), "%d", n - 50);
			break;
		case 1:
			len = snprintf(text, sizeof(text), "%03d", n);
			break;
		case 2:
			len = snprintf(text, sizeof(text), "%d.%d", n, (int)((r >> 20) % 3));
			break;
		case 3:
			len = snprintf(text, sizeof(text), "%de%d", n, (int)((r >> 20) % 3) - 1);
			break;
		case 4:
			len = (int)((r >> 24) % 300) + 17;
			memset(text, 'q', (size_t)len);
			break;
		default:
			len = (int)((r >> 24) % 40) + 1;
			for (int i = 0; i < len; i++)
				text[i] = (char)('a' + (random_next(&seed) >> 50) % 3);
			break;
		}
		pool_add(&pool, text, (size_t)len);
	}
	return pool;
}

/*
 * Makes a pool of count different texts without searching for duplicates: numbers
 * in scrambled order, each also written with ".0" (an equal number, another text),
 * and words, in fours.
 */
static struct pool
pool_make_distinct(size_t count)
{
	struct pool pool = { 0 };
	char text[32];

	pool.text = calloc(count, sizeof(*pool.text));
	pool.len = calloc(count, sizeof(*pool.len));
	pool.rank = calloc(count, sizeof(*pool.rank));
	pool.number = calloc(count, sizeof(*pool.number));
	cr_assert(pool.text && pool.len && pool.rank && pool.number);
	cr_assert_lt(count, 4 * 100003);
	for (size_t i = 0; i < count; i++) {
		long n = (long)(i / 4 * 7919 % 100003) - 50000;
		int len;

		if (i % 4 == 0)
			len = snprintf(text, sizeof(text), "%ld", n);
		else if (i % 4 == 1)
			len = snprintf(text, sizeof(text), "%ld.0", n);
		else
			len = snprintf(text, sizeof(text), "%c%ld", i % 4 == 2 ? 'w' : 'W', n);
		pool.text[i] = malloc((size_t)len + 1);
		cr_assert_not_null(pool.text[i]);
		memcpy(pool.text[i], text, (size_t)len + 1);
		pool.len[i] = (size_t)len;
		pool.rank[i] = i % 4 < 2 ? 0 : 2;
		pool.number[i] = (double)n;
		pool.count++;
	}
	return pool;
}

static void
pool_free(struct pool *pool)
{
	for (size_t i = 0; i < pool->count; i++)
		free(pool->text[i]);
	free(pool->text);
	free(pool->len);
	free(pool->rank);
	free(pool->number);
}

/* Returns <0, 0 or >0 as pool value a sorts before, with or after b among ties. */
static int
naive_order(const struct pool *pool, size_t a, size_t b)
{
	size_t common;
	int bytes;

	if (pool->rank[a] != pool->rank[b])
		return pool->rank[a] - pool->rank[b];
	if (pool->rank[a] == 0) {
		if (pool->number[a] < pool->number[b])
			return -1;
		if (pool->number[a] > pool->number[b])
			return 1;
	}
	common = pool->len[a] < pool->len[b] ? pool->len[a] : pool->len[b];
	bytes = memcmp(pool->text[a], pool->text[b], common);
	if (bytes != 0)
		return bytes;
	return (pool->len[a] > pool->len[b]) - (pool->len[a] < pool->len[b]);
}

/*
 * Returns the pool index of the window's mode by counting every value again, or -1
 * for a null result.  window holds pool indexes, -1 for a missing field.
 */
static long
naive_mode(const struct pool *pool, const long *window, size_t n, uint64_t min_count,
    uint64_t *counts, bool *tied)
{
	uint64_t values = 0, best_count = 0;
	long best = -1;

	*tied = false;
	memset(counts, 0, pool->count * sizeof(*counts));
	for (size_t i = 0; i < n; i++)
		if (window[i] >= 0) {
			counts[window[i]]++;
			values++;
		}
	if (values == 0 || values < min_count)
		return -1;
	for (size_t i = 0; i < n; i++) {
		long v = window[i];

		if (v < 0)
			continue;
		if (counts[v] > best_count) {
			best = v;
			best_count = counts[v];
			*tied = false;
		} else if (counts[v] == best_count && v != best) {
			*tied = true;
			if (naive_order(pool, (size_t)v, (size_t)best) < 0)
				best = v;
		}
	}
	return best;
}

/*
 * Runs operations random pushes and pops on a mode window and on the naive one,
 * comparing the results byte for byte after every operation.  The window's target
 * size wanders over 0..MAX_WINDOW; values are drawn with a skew towards the start of
 * the pool (so counts tie and differ often), and one field in eight is missing.
 */
static void
check_random(const struct pool *pool, size_t operations, uint64_t seed,
    uint64_t min_count)
{
	struct agg *agg = mode_make(min_count, seed * 0x9E3779B97F4A7C15ULL);
	long window[MAX_WINDOW];
	uint64_t *counts = calloc(pool->count, sizeof(*counts));
	size_t n = 0, target = 0, nulls = 0, ties = 0;
	uint64_t state = seed;

	cr_assert_not_null(counts);
	for (size_t op = 0; op < operations; op++) {
		uint64_t r = random_next(&state);
		struct agg_result got;
		long expected;
		bool push, tied;

		if (op % 997 == 0)
			target = (size_t)(random_next(&state) % (MAX_WINDOW + 1));
		push = n < target;
		if (r % 4 == 0)
			push = !push;
		if (n == MAX_WINDOW)
			push = false;
		if (n == 0)
			push = true;
		if (push) {
			if ((r >> 8) % 8 == 0) {
				window[n++] = -1;
				push_missing(agg);
			} else {
				size_t span = 1 + (size_t)((r >> 16) % pool->count);
				long v = (long)((r >> 32) % span);

				window[n++] = v;
				push_text(agg, pool->text[v], pool->len[v]);
			}
		} else {
			memmove(window, window + 1, (n - 1) * sizeof(*window));
			n--;
			agg_step_evict(agg, 1);
		}
		agg_step_result(agg, &got);
		expected = naive_mode(pool, window, n, min_count, counts, &tied);
		if (expected < 0) {
			nulls++;
			if (got.kind != AGG_RESULT_NULL)
				cr_assert_fail("operation %zu: expected null, got '%.*s'", op,
				    (int)got.text_len, got.text);
			continue;
		}
		ties += tied;
		if (got.kind != AGG_RESULT_TEXT || got.text_len != pool->len[expected] ||
		    memcmp(got.text, pool->text[expected], got.text_len) != 0)
			cr_assert_fail("operation %zu, window of %zu: expected '%s', got %s '%.*s'",
			    op, n, pool->text[expected],
			    got.kind == AGG_RESULT_TEXT ? "text" : "not text",
			    got.kind == AGG_RESULT_TEXT ? (int)got.text_len : 0,
			    got.kind == AGG_RESULT_TEXT ? got.text : "");
	}
	/* Both kinds of window must have come up, or the test proved little. */
	cr_assert_gt(nulls, 0);
	cr_assert_lt(nulls, operations / 2);
	cr_assert_gt(ties, operations / 20, "the tie-break was hardly exercised");
	free(counts);
	agg_mode.destroy(agg);
}

Test(mode, random_against_naive_few_values)
{
	/* About 60 values: counts tie all the time, so the tie-break decides. */
	struct pool pool = pool_make(0, 1);

	check_random(&pool, 120000, 42, 1);
	pool_free(&pool);
}

Test(mode, random_against_naive_many_values)
{
	/* 1,000 values: the table grows and shrinks as the window does. */
	struct pool pool = pool_make(940, 7);

	check_random(&pool, 60000, 4242, 1);
	pool_free(&pool);
}

Test(mode, random_against_naive_min_count)
{
	struct pool pool = pool_make(40, 3);

	check_random(&pool, 30000, 99, 25);
	pool_free(&pool);
}

/* One window's fields, in order, and the mode the man page gives (NULL: null). */
struct tie_case {
	const char *fields[6];
	const char *mode;
};

static const struct tie_case tie_cases[] = {
	/* The most frequent wins whatever its order. */
	{ { "zebra", "zebra", "1", NULL }, "zebra" },
	{ { "nan", "1", "nan", NULL }, "nan" },
	/* Numbers compare numerically, not as text. */
	{ { "10", "9", NULL }, "9" },
	{ { "-1", "-10", NULL }, "-10" },
	{ { "1e3", "999", NULL }, "999" },
	{ { ".5", "0.4", NULL }, "0.4" },
	{ { "-inf", "-1e308", NULL }, "-inf" },
	{ { "inf", "1e308", NULL }, "1e308" },
	/* Fields that are numbers come before the others. */
	{ { "a", "1", NULL }, "1" },
	{ { "A", "99999", NULL }, "99999" },
	{ { "0x10", "1,5", "1.5x", "9", NULL }, "9" },
	/* NaN comes after every other number, but before the non-numbers. */
	{ { "nan", "inf", NULL }, "inf" },
	{ { "NaN", "-inf", NULL }, "-inf" },
	{ { "zzz", "nan", NULL }, "nan" },
	{ { "-", "-nan", NULL }, "-nan" },
	/* Equal numbers by text, bytewise. */
	{ { "1.0", "1", "01", NULL }, "01" },
	{ { "1", "1.0", "1.0", NULL }, "1.0" },
	{ { "0", "-0", NULL }, "-0" },
	{ { "-0", "+0", NULL }, "+0" },
	{ { "0.0", "-0.0", "+0", NULL }, "+0" },
	{ { "0.0", "0", NULL }, "0" },
	{ { "1e309", "inf", NULL }, "1e309" },
	{ { "nan", "NaN", "NAN", NULL }, "NAN" },
	{ { "1e-400", "0", "-0", NULL }, "-0" },
	{ { "2134", "02134", NULL }, "02134" },
	/* Other fields bytewise: uppercase before lowercase, a prefix first, bytes unsigned. */
	{ { "b", "a", NULL }, "a" },
	{ { "a", "B", NULL }, "B" },
	{ { "abc", "ab", NULL }, "ab" },
	{ { "\xc3\xa9", "z", NULL }, "z" },
	/* The text as it appeared. */
	{ { "1.50", NULL }, "1.50" },
	{ { "+7", NULL }, "+7" },
	/* No value, no mode. */
	{ { NULL }, NULL },
};

Test(mode, tie_break_cases_from_the_man_page)
{
	for (size_t c = 0; c < sizeof(tie_cases) / sizeof(tie_cases[0]); c++) {
		const struct tie_case *t = &tie_cases[c];
		struct agg *agg = mode_make(1, c);
		struct agg_result r;

		for (size_t i = 0; t->fields[i] != NULL; i++)
			push_string(agg, t->fields[i]);
		agg_step_result(agg, &r);
		if (t->mode == NULL) {
			cr_expect_eq(r.kind, AGG_RESULT_NULL, "case %zu", c);
		} else {
			cr_expect_eq(r.kind, AGG_RESULT_TEXT, "case %zu", c);
			cr_expect(r.text_len == strlen(t->mode) &&
			    memcmp(r.text, t->mode, r.text_len) == 0,
			    "case %zu: expected '%s', got '%.*s'", c, t->mode,
			    (int)r.text_len, r.text);
		}
		agg_mode.destroy(agg);
	}
}

Test(mode, embedded_nul_bytes_are_part_of_the_text)
{
	struct agg *agg = mode_make(1, 5);
	struct agg_result r;

	push_text(agg, "a\0b", 3);
	push_text(agg, "a\0", 2);
	push_text(agg, "a\0b", 3);
	agg_step_result(agg, &r);
	cr_assert_eq(r.text_len, 3);
	cr_assert_eq(memcmp(r.text, "a\0b", 3), 0);
	agg_step_evict(agg, 1);
	agg_step_result(agg, &r);
	/* One each now: "a\0" is a prefix of "a\0b". */
	cr_assert_eq(r.text_len, 2);
	cr_assert_eq(memcmp(r.text, "a\0", 2), 0);
	agg_mode.destroy(agg);
}

Test(mode, missing_fields_take_a_slot_and_min_count_applies)
{
	struct agg *agg = mode_make(3, 11);
	struct agg_result r;
	struct mode_stats stats;

	push_missing(agg);
	agg_step_result(agg, &r);
	cr_assert_eq(r.kind, AGG_RESULT_NULL);
	push_string(agg, "x");
	push_string(agg, "y");
	/* Three slots, two of them values (which the pops below show). */
	agg_mode_stats(agg, &stats);
	cr_assert_eq(stats.distinct, 2);
	agg_step_result(agg, &r);
	cr_assert_eq(r.kind, AGG_RESULT_NULL, "two values, -m 3");
	push_string(agg, "y");
	agg_step_result(agg, &r);
	cr_assert_eq(r.kind, AGG_RESULT_TEXT);
	cr_assert_eq(r.text_len, 1);
	cr_assert_eq(r.text[0], 'y');
	agg_step_evict(agg, 1);	/* the missing field: still three values */
	agg_step_result(agg, &r);
	cr_assert_eq(r.kind, AGG_RESULT_TEXT);
	agg_step_evict(agg, 1);
	agg_step_result(agg, &r);
	cr_assert_eq(r.kind, AGG_RESULT_NULL);
	agg_step_evict(agg, 2);	/* the last two slots: the window is empty */
	agg_mode_stats(agg, &stats);
	cr_assert_eq(stats.distinct, 0);
	agg_step_result(agg, &r);
	cr_assert_eq(r.kind, AGG_RESULT_NULL);
	agg_mode.destroy(agg);
}

Test(mode, long_texts_survive_reuse_of_their_entries)
{
	/*
	 * Texts past the inline size and past the kept-buffer size, through a window
	 * that keeps one field of the last text besides two of the new one, so freed
	 * entries and their buffers are reused at once.
	 */
	struct agg *agg = mode_make(1, 12);
	char text[1000];
	struct agg_result r;

	size_t slots = 0;	/* the window's size, which the test keeps */

	for (int i = 0; i < 2000; i++) {
		size_t len = (size_t)((i * 37) % 900) + 1;

		memset(text, 'a' + i % 26, len);
		push_text(agg, text, len);
		push_text(agg, text, len);
		slots += 2;
		agg_step_result(agg, &r);
		cr_assert_eq(r.text_len, len);
		cr_assert_eq(memcmp(r.text, text, len), 0);
		agg_step_evict(agg, slots - 1);
		slots = 1;
	}
	agg_mode.destroy(agg);
}

Test(mode, result_does_not_depend_on_the_seed)
{
	uint64_t seeds[] = { 0, 1, 0xFFFFFFFFFFFFFFFFULL, 0x123456789ABCDEFULL };
	struct agg *agg[4];
	struct pool pool = pool_make(200, 13);
	uint64_t state = 77, slots = 0;	/* the windows' size, which the test keeps */

	for (size_t s = 0; s < 4; s++)
		agg[s] = mode_make(1, seeds[s]);
	for (int i = 0; i < 20000; i++) {
		size_t v = (size_t)(random_next(&state) % (1 + random_next(&state) % pool.count));
		struct agg_result first, other;

		slots++;
		for (size_t s = 0; s < 4; s++) {
			push_text(agg[s], pool.text[v], pool.len[v]);
			if (slots > 150)
				agg_step_evict(agg[s], 1);
		}
		if (slots > 150)
			slots--;
		agg_step_result(agg[0], &first);
		for (size_t s = 1; s < 4; s++) {
			agg_step_result(agg[s], &other);
			cr_assert_eq(other.text_len, first.text_len);
			cr_assert_eq(memcmp(other.text, first.text, first.text_len), 0);
		}
	}
	for (size_t s = 0; s < 4; s++)
		agg_mode.destroy(agg[s]);
	pool_free(&pool);
}

/*
 * Runs steps over a window of window fields where nearly every value is new, so
 * that most counts are 1 and the highest count flips between 1 and 2 all the time
 * (a value pushed again just before its earlier copy leaves).  The window then
 * keeps switching between finding its mode among the values counted twice and
 * among those counted once, whose order it builds as the heap nears empty
 * (agg_mode.c).
 * Results are read after every step, or only every read_every-th one, and compared
 * with the naive count; returns the heap comparisons per step.
 */
static double
check_flipping_counts(const struct pool *pool, size_t window, size_t steps,
    size_t read_every, uint64_t seed)
{
	struct agg *agg = mode_make(1, seed);
	long *history = malloc(steps * sizeof(*history));
	uint64_t *counts = calloc(pool->count, sizeof(*counts));
	struct mode_counters counters;
	uint64_t state = seed;
	size_t once = 0, more = 0, flips = 0;
	bool last_once = false;

	cr_assert(history != NULL && counts != NULL);
	for (size_t t = 0; t < steps; t++) {
		uint64_t r = random_next(&state);
		size_t start = t + 1 > window ? t + 1 - window : 0;
		struct agg_result got;
		long expected;
		bool tied;

		if (r % 10 == 0) {
			history[t] = -1;
			slide_missing(agg, window);
		} else {
			/* Mostly a value the window may well not hold; at times one about to leave it. */
			if ((r >> 8) % 16 == 0 && t > start)
				history[t] = history[start + (size_t)((r >> 16) % (1 + (t - start) / 16))];
			else
				history[t] = (long)((r >> 32) % pool->count);
			if (history[t] < 0)
				slide_missing(agg, window);
			else
				slide_text(agg, window, pool->text[history[t]],
				    pool->len[history[t]], NULL);
		}
		if (t % read_every != 0)
			continue;
		agg_step_result(agg, &got);
		expected = naive_mode(pool, history + start, t + 1 - start, 1, counts, &tied);
		if (expected < 0) {
			cr_assert_eq(got.kind, AGG_RESULT_NULL);
			continue;
		}
		once += counts[expected] == 1;
		more += counts[expected] > 1;
		flips += (counts[expected] == 1) != last_once;
		last_once = counts[expected] == 1;
		if (got.kind != AGG_RESULT_TEXT || got.text_len != pool->len[expected] ||
		    memcmp(got.text, pool->text[expected], got.text_len) != 0)
			cr_assert_fail("step %zu, window of %zu: expected '%s', got '%.*s'", t,
			    window, pool->text[expected],
			    got.kind == AGG_RESULT_TEXT ? (int)got.text_len : 0,
			    got.kind == AGG_RESULT_TEXT ? got.text : "");
	}
	agg_mode_counters(agg, &counters);
	/* The highest count must have moved between 1 and more, or the test proved little. */
	cr_log_info("window %zu: highest count 1 at %zu reads, more at %zu, %zu flips",
	    window, once, more, flips);
	cr_assert_gt(once, steps / read_every / 50);
	cr_assert_gt(more, steps / read_every / 50);
	cr_assert_gt(flips, steps / read_every / 50, "the highest count hardly changed");
	free(history);
	free(counts);
	agg_mode.destroy(agg);
	return (double)counters.heap_comparisons / (double)steps;
}

Test(mode, highest_count_flipping_between_one_and_more)
{
	struct pool pool = pool_make_distinct(100000);
	double every_step, every_seventh, small;

	every_step = check_flipping_counts(&pool, 250, 40000, 1, 11);
	every_seventh = check_flipping_counts(&pool, 250, 40000, 7, 12);
	small = check_flipping_counts(&pool, 5, 40000, 1, 13);
	cr_log_info("flipping counts: %.1f, %.1f and %.1f comparisons per step",
	    every_step, every_seventh, small);
	/*
	 * The values counted once are ordered a few a step, and their order kept only
	 * while the mode may soon come from them: the cost per step stays logarithmic,
	 * where a rescan of 250 values each time would make it hundreds.
	 */
	cr_assert_lt(every_step, 20.0);
	cr_assert_lt(every_seventh, 20.0);
	pool_free(&pool);
}

/* Writes a 10-byte IPv4-like text for n into text and returns its length. */
static size_t
ip_text(char *text, uint32_t n)
{
	return (size_t)sprintf(text, "10.%u.%u.%u", (n >> 16) & 255, (n >> 8) & 255, n & 255);
}

Test(mode, a_dominant_value_costs_constant_work)
{
	/*
	 * 90 % of a window of 100,000 is one value, the rest a spread of 50,000 others.
	 * Rescanning for the mode when its count drops would cost thousands of
	 * comparisons per step here; the heap costs a handful.
	 */
	enum { WINDOW = 100000, STEPS = 300000 };
	struct agg *agg = mode_make(1, 21);
	struct mode_counters before, after;
	struct mode_stats stats;
	uint64_t state = 5, worst = 0;
	char text[32];

	for (int i = 0; i < STEPS; i++) {
		uint64_t r = random_next(&state);
		struct agg_result result;
		uint64_t comparisons;

		agg_mode_counters(agg, &before);
		if (r % 10 != 0)
			slide_text(agg, WINDOW, "192.168.0.1", 11, &result);
		else
			slide_text(agg, WINDOW, text, ip_text(text, (uint32_t)((r >> 32) % 50000)),
			    &result);
		if (i >= 100) {
			cr_assert_eq(result.text_len, 11);
			cr_assert_eq(memcmp(result.text, "192.168.0.1", 11), 0);
		}
		agg_mode_counters(agg, &after);
		comparisons = after.heap_comparisons - before.heap_comparisons;
		if (i >= WINDOW && comparisons > worst)
			worst = comparisons;
	}
	agg_mode_counters(agg, &after);
	agg_mode_stats(agg, &stats);
	cr_log_info("dominant value: %.2f comparisons and %.2f probes per step, worst step %lu comparisons, %zu distinct",
	    (double)after.heap_comparisons / STEPS, (double)after.probes / after.lookups,
	    (unsigned long)worst, stats.distinct);
	cr_assert_gt(stats.distinct, 5000);
	/*
	 * log2 of 10,000 distinct values is 13: a sift down of four comparisons on each
	 * of the heap's 7 levels and a sift up of one a level.
	 */
	cr_assert_lt(worst, 4 * 15);
	cr_assert_lt((double)after.heap_comparisons / STEPS, 8.0);
	cr_assert_lt((double)after.probes / after.lookups, 2.0);
	agg_mode.destroy(agg);
}

/*
 * The shapes of stream that the bound on the work of a step is checked over: the
 * latency bench's (one value twice, then ever-new values, rising or falling, so
 * that the mode must come from a million values seen once when the pair's first
 * copy leaves), counts flapping between 1 and 2, a long tail, and a heap of a few
 * values counted often that drains until every value is seen once.
 */
enum stream_shape {
	SHAPE_PAIR_THEN_NEW,
	SHAPE_FLAPPING,
	SHAPE_LONG_TAIL,
	SHAPE_DRAINING_HEAP
};

/* Makes a pool of the integers 0, sign, 2 * sign, ..., (count - 1) * sign, as texts. */
static struct pool
pool_make_sequence(size_t count, long sign)
{
	struct pool pool = { 0 };
	char text[32];

	pool.text = calloc(count, sizeof(*pool.text));
	pool.len = calloc(count, sizeof(*pool.len));
	pool.rank = calloc(count, sizeof(*pool.rank));
	pool.number = calloc(count, sizeof(*pool.number));
	cr_assert(pool.text && pool.len && pool.rank && pool.number);
	for (size_t i = 0; i < count; i++) {
		int len = snprintf(text, sizeof(text), "%ld", (long)i * sign);

		pool.text[i] = malloc((size_t)len + 1);
		cr_assert_not_null(pool.text[i]);
		memcpy(pool.text[i], text, (size_t)len + 1);
		pool.len[i] = (size_t)len;
		pool.number[i] = (double)((long)i * sign);
		pool.count++;
	}
	return pool;
}

/* Returns the pool index (or -1, a missing field) that shape brings at step t. */
static long
shape_next(enum stream_shape shape, const long *history, size_t t, size_t window,
    size_t pool_count, uint64_t *state)
{
	uint64_t r = random_next(state);
	size_t start = t + 1 > window ? t + 1 - window : 0;
	double u;

	switch (shape) {
	case SHAPE_PAIR_THEN_NEW:
		return t == 0 ? 0 : (long)(t - 1);
	case SHAPE_FLAPPING:
		/* The value about to leave, pushed again: its count goes to 2, then back. */
		if (r % 32 == 0 && t > start)
			return history[start];
		if (r % 32 == 1 && t > start + 1)
			return history[start + 1];
		return (long)(t % pool_count);
	case SHAPE_LONG_TAIL:
		if (r % 16 == 0)
			return -1;
		u = (double)(r >> 11) / 9007199254740992.0;
		return (long)((double)pool_count * u * u * u * u);
	case SHAPE_DRAINING_HEAP:
		if (t < window && r % 4 == 0)
			return (long)(r >> 32) % 8;
		return (long)(8 + t % (pool_count - 8));
	}
	return -1;
}

/*
 * Runs steps of shape through a window of window fields, a result read at every
 * step, and returns the largest number of heap comparisons one step made divided
 * by the bound agg_mode.c states for it, 12 log2(d) + 7 with d the distinct values
 * in the window.  With check, every result is compared with the naive count too.
 */
static double
worst_step_against_bound(const struct pool *pool, enum stream_shape shape, size_t window,
    size_t steps, bool check, uint64_t seed)
{
	struct agg *agg = mode_make(1, seed);
	long *history = malloc(steps * sizeof(*history));
	uint64_t *counts = calloc(pool->count, sizeof(*counts));
	uint64_t state = seed, worst = 0;
	double worst_ratio = 0.0;
	size_t worst_at = 0, worst_distinct = 0, once = 0;

	cr_assert(history != NULL && counts != NULL);
	for (size_t t = 0; t < steps; t++) {
		size_t start = t + 1 > window ? t + 1 - window : 0;
		struct mode_counters before, after;
		struct mode_stats stats;
		struct agg_result got;
		size_t distinct;
		uint64_t comparisons;
		double bound;

		history[t] = shape_next(shape, history, t, window, pool->count, &state);
		agg_mode_stats(agg, &stats);
		distinct = stats.distinct;
		agg_mode_counters(agg, &before);
		if (history[t] < 0)
			slide_missing(agg, window);
		else
			slide_text(agg, window, pool->text[history[t]], pool->len[history[t]],
			    NULL);
		agg_step_result(agg, &got);
		agg_mode_counters(agg, &after);
		agg_mode_stats(agg, &stats);
		if (stats.distinct > distinct)
			distinct = stats.distinct;
		comparisons = after.heap_comparisons - before.heap_comparisons;
		bound = 12.0 * log2((double)(distinct > 1 ? distinct : 1)) + 7.0;
		if ((double)comparisons / bound > worst_ratio) {
			worst_ratio = (double)comparisons / bound;
			worst = comparisons;
			worst_at = t;
			worst_distinct = distinct;
		}
		if (check) {
			bool tied;
			long expected = naive_mode(pool, history + start, t + 1 - start, 1, counts,
			    &tied);

			cr_assert_geq(expected, 0);
			once += counts[expected] == 1;
			if (got.kind != AGG_RESULT_TEXT || got.text_len != pool->len[expected] ||
			    memcmp(got.text, pool->text[expected], got.text_len) != 0)
				cr_assert_fail("shape %d, step %zu: expected '%s', got '%.*s'",
				    (int)shape, t, pool->text[expected],
				    got.kind == AGG_RESULT_TEXT ? (int)got.text_len : 0,
				    got.kind == AGG_RESULT_TEXT ? got.text : "");
		}
	}
	cr_log_info("shape %d, window %zu: worst step %lu comparisons at step %zu with %zu distinct (%.2f of the bound)%s",
	    (int)shape, window, (unsigned long)worst, worst_at, worst_distinct, worst_ratio,
	    check ? "" : ", results unchecked");
	/* The mode must have come from the values seen once at times, or little was proved. */
	if (check && shape != SHAPE_LONG_TAIL)
		cr_assert_gt(once, steps / 50);
	free(history);
	free(counts);
	agg_mode.destroy(agg);
	return worst_ratio;
}

Test(mode, no_step_exceeds_its_comparison_bound)
{
	/*
	 * agg_mode.c states at most 12 log2(d) + 7 heap comparisons for a step (one
	 * pop, one push, one result).  Ordering all of a pool of d values seen once in
	 * one step, when the heap empties, costs about 2d: over 2,000 at window 1,000,
	 * over 100,000 at window 100,000.
	 */
	static const enum stream_shape shapes[] = { SHAPE_PAIR_THEN_NEW, SHAPE_FLAPPING,
	    SHAPE_LONG_TAIL, SHAPE_DRAINING_HEAP };
	struct pool up = pool_make_sequence(320000, 1), down = pool_make_sequence(320000, -1);
	struct pool mixed = pool_make_distinct(320000);

	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		const struct pool *pool = s == 0 ? &up : &mixed;

		cr_assert_leq(worst_step_against_bound(pool, shapes[s], 1000, 6000, true,
		    41 + s), 1.0);
		cr_assert_leq(worst_step_against_bound(pool, shapes[s], 100000, 300000, false,
		    51 + s), 1.0);
	}
	/* Falling values: each new one belongs at the root of the ordered pool. */
	cr_assert_leq(worst_step_against_bound(&down, SHAPE_PAIR_THEN_NEW, 1000, 6000, true,
	    61), 1.0);
	cr_assert_leq(worst_step_against_bound(&down, SHAPE_PAIR_THEN_NEW, 100000, 300000,
	    false, 62), 1.0);
	pool_free(&up);
	pool_free(&down);
	pool_free(&mixed);
}

/*
 * A window moved by batches, as the pipeline moves it (with an index list, as for a
 * group, or without), against the same window moved one record at a time and, at
 * times, the naive count.  With window 30,000 over 20,000-odd distinct values, the
 * table is past agg_mode.c's LOOKAHEAD_TABLE, so that a batch's steps look ahead
 * (mode_move) while a move of one record has nothing to look ahead to.
 */
Test(mode, moves_in_batches_match_one_record_at_a_time)
{
	enum { WINDOW = 30000, STEPS = 150000, BATCH = 128, HOT = 16, COLD = 60000 };
	struct pool pool = pool_make_distinct(HOT + COLD);
	struct agg *one = mode_make(1, 71), *many = mode_make(1, 72);
	long *history = malloc(STEPS * sizeof(*history));
	uint64_t *counts = calloc(pool.count, sizeof(*counts));
	struct agg_value values[2 * BATCH];
	struct agg_result results[2 * BATCH];
	agg_index index[BATCH];
	uint64_t state = 73;
	struct mode_stats stats;
	size_t t = 0, checked = 0, batches = 0;

	cr_assert(history != NULL && counts != NULL);
	while (t < STEPS) {
		uint64_t r = random_next(&state);
		size_t n = 1 + (size_t)(r % BATCH), spread = (r >> 8) % 2 == 0 ? 1 : 2;
		struct agg_move m = { .rows = WINDOW, .values = values, .results = results };

		if (n > STEPS - t)
			n = STEPS - t;
		memset(values, 0, sizeof(values));
		for (size_t j = 0; j < n; j++) {
			uint64_t v = random_next(&state);
			size_t at = j * spread;

			if (v % 20 == 0)
				history[t + j] = -1;
			else if (v % 5 == 0)
				history[t + j] = (long)((v >> 32) % HOT);
			else
				history[t + j] = (long)(HOT + (v >> 32) % COLD);
			if (history[t + j] >= 0) {
				values[at].has_text = true;
				values[at].text = pool.text[history[t + j]];
				values[at].text_len = pool.len[history[t + j]];
			}
			index[j] = (agg_index)at;
		}
		m.n = n;
		m.index = spread == 2 ? index : NULL;
		cr_assert_eq(agg_mode.move(many, &m), n);
		for (size_t j = 0; j < n; j++, t++) {
			const struct agg_result *got = &results[j * spread];
			struct agg_value value = values[j * spread];
			struct agg_result want;

			cr_assert_eq(agg_step_slide(one, WINDOW, &value, &want), 0);
			cr_assert_eq(got->kind, want.kind, "step %zu", t);
			if (want.kind == AGG_RESULT_TEXT &&
			    (got->text_len != want.text_len ||
			    memcmp(got->text, want.text, want.text_len) != 0))
				cr_assert_fail("step %zu: one at a time '%.*s', in a batch '%.*s'", t,
				    (int)want.text_len, want.text, (int)got->text_len, got->text);
			if (t % 1499 == 0) {
				size_t start = t + 1 > WINDOW ? t + 1 - WINDOW : 0;
				bool tied;
				long expected = naive_mode(&pool, history + start, t + 1 - start, 1,
				    counts, &tied);

				cr_assert_geq(expected, 0);
				cr_assert_eq(want.text_len, pool.len[expected]);
				cr_assert_eq(memcmp(want.text, pool.text[expected], want.text_len), 0);
				checked++;
			}
		}
		batches++;
	}
	agg_mode_stats(many, &stats);
	cr_log_info("batches: %zu moves, %zu distinct, table of %zu slots, %zu naive checks",
	    batches, stats.distinct, stats.table_capacity, checked);
	cr_assert_geq(stats.table_capacity, 16384);
	free(history);
	free(counts);
	agg_mode.destroy(one);
	agg_mode.destroy(many);
	pool_free(&pool);
}

/*
 * The results of one move each keep their own text, though a later step of the move
 * frees the entry that a result came from and the next new value takes it over: at
 * window 1 every step does so, and a mode that stays is copied once.
 */
Test(mode, results_of_one_move_keep_their_texts)
{
	static const char *const texts[] = { "a", "b", "b", "a long text past sixteen bytes",
	    "another long text past sixteen", "c", "c", "c", "d", "a" };
	enum { N = sizeof(texts) / sizeof(texts[0]) };
	static const char *const window_2[N] = { "a", "a", "b", "a long text past sixteen bytes",
	    "a long text past sixteen bytes", "another long text past sixteen", "c", "c", "c",
	    "a" };

	for (uint64_t rows = 1; rows <= 2; rows++) {
		struct agg *agg = mode_make(1, 81);
		struct agg_value values[N];
		struct agg_result results[N];

		for (size_t i = 0; i < N; i++)
			values[i] = (struct agg_value){ .has_text = true, .text = texts[i],
			    .text_len = strlen(texts[i]) };
		cr_assert_eq(agg_step_slide_many(agg, rows, values, N, results), N);
		for (size_t i = 0; i < N; i++) {
			const char *want = rows == 1 ? texts[i] : window_2[i];

			cr_assert_eq(results[i].kind, AGG_RESULT_TEXT);
			if (results[i].text_len != strlen(want) ||
			    memcmp(results[i].text, want, strlen(want)) != 0)
				cr_assert_fail("window %lu, step %zu: expected '%s', got '%.*s'",
				    (unsigned long)rows, i, want, (int)results[i].text_len,
				    results[i].text);
		}
		agg_mode.destroy(agg);
	}
}

/*
 * Every text result can be read AGG_TEXT_READABLE bytes at a time (agg.h), as the
 * output copies a short one: at window 1 over one-byte texts that change at every
 * step, a move of 256 or 512 steps fills its result texts to the end of their block
 * (they double from 256 bytes), where a missing room would be read past under
 * AddressSanitizer and valgrind (make check-sanitize, check-valgrind); the bytes past
 * each text are read here as the output reads them.
 */
static volatile char text_sink[AGG_TEXT_READABLE];

Test(mode, text_results_can_be_read_sixteen_bytes_at_once)
{
	enum { N = 512 };
	static char letters[N];
	static struct agg_value values[N];
	static struct agg_result results[N];

	for (size_t i = 0; i < N; i++) {
		letters[i] = (char)('a' + i % 26);
		values[i] = (struct agg_value){ .has_text = true, .text = &letters[i],
		    .text_len = 1 };
	}
	for (size_t n = N / 2; n <= N; n *= 2) {
		struct agg *agg = mode_make(1, 83);

		cr_assert_eq(agg_step_slide_many(agg, 1, values, n, results), n);
		for (size_t i = 0; i < n; i++) {
			char copy[AGG_TEXT_READABLE];

			cr_assert_eq(results[i].kind, AGG_RESULT_TEXT);
			cr_assert_eq(results[i].text_len, 1);
			cr_assert_eq(results[i].text[0], letters[i]);
			/*
			 * Copied on, not looked at: the bytes past the text need not be
			 * set, only readable (the volatile stores keep the reads).
			 */
			memcpy(copy, results[i].text, sizeof(copy));
			for (size_t b = 0; b < sizeof(copy); b++)
				text_sink[b] = copy[b];
		}
		agg_mode.destroy(agg);
	}
}

Test(mode, ever_new_values_keep_memory_small)
{
	/* 100,000 distinct values through a window of 10. */
	struct agg *agg = mode_make(1, 31);
	struct mode_stats stats;
	size_t largest_table = 0, largest_entries = 0, largest_ring = 0;
	char text[32];

	for (uint32_t i = 0; i < 100000; i++) {
		slide_text(agg, 10, text, ip_text(text, i), NULL);
		agg_mode_stats(agg, &stats);
		if (stats.table_capacity > largest_table)
			largest_table = stats.table_capacity;
		if (stats.entry_capacity > largest_entries)
			largest_entries = stats.entry_capacity;
		if (stats.ring_capacity > largest_ring)
			largest_ring = stats.ring_capacity;
	}
	cr_assert_eq(stats.distinct, 10);
	cr_assert_leq(largest_table, 64);	/* 10 or 11 keys, a quarter full at most */
	cr_assert_leq(largest_entries, 16);
	cr_assert_leq(largest_ring, 16);
	agg_mode.destroy(agg);
}

Test(mode, table_and_ring_shrink_after_a_burst)
{
	struct agg *agg = mode_make(1, 41);
	struct mode_stats stats;
	char text[32];

	for (uint32_t i = 0; i < 20000; i++)
		push_text(agg, text, ip_text(text, i));
	agg_mode_stats(agg, &stats);
	cr_assert_eq(stats.distinct, 20000);
	cr_assert_geq(stats.table_capacity, 40000);
	for (int i = 0; i < 20000 - 10; i++)	/* one at a time, as they would leave */
		agg_step_evict(agg, 1);
	agg_mode_stats(agg, &stats);
	cr_assert_eq(stats.distinct, 10);
	cr_assert_leq(stats.table_capacity, 256);	/* 128 settled: 10 keys, a sixteenth full */
	cr_assert_leq(stats.ring_capacity, 64);
	agg_mode.destroy(agg);
}

/* Writes a request path of 40 bytes, number n in it, into text; returns its length. */
static size_t
path_text(char *text, uint32_t n)
{
	return (size_t)snprintf(text, 48, "/api/v1/users/%012u/profile?tab=1", n);
}

/*
 * Long texts (past the 16 bytes an entry holds) give their buffers back as they
 * leave: after a burst of 20,000 different ones, a window of short texts holds at
 * most the few spare buffers, where each free entry used to keep its own (800 KB).
 * The results stay right throughout (against the naive count of the last window).
 */
Test(mode, long_texts_of_a_burst_give_their_memory_back)
{
	struct agg *agg = mode_make(1, 43);
	struct mode_stats stats;
	struct agg_result result;
	char text[48];
	size_t len = 0;

	for (uint32_t i = 0; i < 20000; i++) {
		len = path_text(text, i);
		push_text(agg, text, len);
	}
	cr_assert_eq(len, 40);
	agg_mode_stats(agg, &stats);
	cr_assert_eq(stats.distinct, 20000);
	cr_assert_geq(agg_mode_text_bytes(agg), 20000 * 40);
	for (int i = 0; i < 20000; i++)	/* the window of 20,000 slides on over short texts */
		slide_text(agg, 20000, "GET", 3, &result);
	cr_assert_eq(result.kind, AGG_RESULT_TEXT);
	cr_assert(result.text_len == 3 && memcmp(result.text, "GET", 3) == 0);
	agg_mode_stats(agg, &stats);
	cr_assert_eq(stats.distinct, 1);
	cr_assert_leq(agg_mode_text_bytes(agg), 8 * 256, "%zu bytes of long texts kept",
	    agg_mode_text_bytes(agg));
	agg_mode.destroy(agg);
}

/*
 * A window of ever-new long texts reuses the buffers of those that leave: once it has
 * filled, no step allocates one (counted), and each result is the right text.
 */
Test(mode, ever_new_long_texts_reuse_their_buffers)
{
	struct agg *agg = mode_make(1, 47);
	struct mode_counters before, after;
	struct agg_result result;
	char text[48], expected[48];

	for (uint32_t i = 0; i < 100; i++)
		slide_text(agg, 100, text, path_text(text, i), NULL);
	agg_mode_counters(agg, &before);
	for (uint32_t i = 100; i < 10000; i++) {
		slide_text(agg, 100, text, path_text(text, i), &result);
		/* Every text once: the tie goes to the smallest bytewise, the oldest. */
		path_text(expected, i - 99);
		cr_assert(result.kind == AGG_RESULT_TEXT && result.text_len == 40 &&
		    memcmp(result.text, expected, 40) == 0, "step %u", i);
	}
	agg_mode_counters(agg, &after);
	cr_assert_eq(after.text_allocations, before.text_allocations,
	    "%" PRIu64 " long-text allocations in the steady state",
	    after.text_allocations - before.text_allocations);
	agg_mode.destroy(agg);
}

/* Writes key number n as 8 hex digits into text. */
static void
key_text(char *text, uint32_t n)
{
	for (int i = 7; i >= 0; i--, n >>= 4)
		text[i] = "0123456789abcdef"[n & 15];
}

/* Pushes keys (8 bytes each) twice and returns the probes per lookup of the second pass. */
static double
probes_per_lookup(const char (*keys)[8], size_t count, uint64_t seed)
{
	struct agg *agg = mode_make(1, seed);
	struct mode_counters before, after;
	struct mode_stats stats;

	for (size_t i = 0; i < count; i++)
		push_text(agg, keys[i], 8);
	agg_mode_counters(agg, &before);
	for (size_t i = 0; i < count; i++)
		push_text(agg, keys[i], 8);
	agg_mode_counters(agg, &after);
	agg_mode_stats(agg, &stats);
	cr_assert_eq(stats.distinct, count);
	agg_mode.destroy(agg);
	return (double)(after.probes - before.probes) / (double)(after.lookups - before.lookups);
}

Test(mode, keys_colliding_under_one_seed_scatter_under_another)
{
	/*
	 * Under seed A, find by brute force 2,000 keys whose hashes share their top 12
	 * bits: the home slot in the table of 4,096 slots that 2,000 keys end in (and,
	 * the home being the top bits, in every smaller table on the way).  They form
	 * one cluster under seed A; under seed B they must not.
	 */
	enum { KEYS = 2000, BITS = 12 };
	const uint64_t seed_a = 0x5EED0001, seed_b = 0x5EED0002;
	static char keys[KEYS][8];
	size_t found = 0;
	double colliding, scattered;

	for (uint32_t n = 0; found < KEYS; n++) {
		cr_assert_neq(n, UINT32_MAX);
		key_text(keys[found], n);
		if (hash_bytes(keys[found], 8, seed_a) >> (64 - BITS) == 0)
			found++;
	}
	colliding = probes_per_lookup((const char (*)[8])keys, KEYS, seed_a);
	scattered = probes_per_lookup((const char (*)[8])keys, KEYS, seed_b);
	cr_log_info("crafted keys: %.1f probes per lookup under seed A, %.2f under seed B",
	    colliding, scattered);
	cr_assert_gt(colliding, 500.0, "the crafted keys should collide under seed A");
	cr_assert_lt(scattered, 3.0);
}

/*
 * The table's work so far: hashtable.c's counters (test builds), the lookups' probes,
 * and the bytes that the growth of the entry and item arrays copied.
 */
struct table_work {
	uint64_t passed, moved, probes, bytes;
};

static struct table_work
table_work_now(const struct agg *agg)
{
	const struct hashtable_counters *c = &hashtable_counters;
	struct mode_counters counters;

	agg_mode_counters(agg, &counters);
	return (struct table_work){ c->passed, c->moved, c->probes + counters.probes,
	    c->zeroed + c->unmapped + counters.bytes_moved };
}

/* The slots one step may examine in all, its lookup's and a move step's searches. */
#define STEP_PROBES 256
/* The slots a record's two move steps pass in mode's sparse table (hashtable.h). */
#define MODE_RECORD_SLOTS (4 * HASHTABLE_MOVE_STEP)

/*
 * Asserts that the step since *before did at most one record's table work, and makes
 * *before now.  A record pops a value and pushes one, and each may take a step of a
 * move under way (a pop's when its value leaves the table, hashtable_trim; a push's
 * when a new value enters, hashtable_make_room), of 2 * HASHTABLE_MOVE_STEP slots in
 * mode's sparse table: MODE_RECORD_SLOTS slots passed, as many moved and one more (a
 * key found in the old table), STEP_PROBES slots
 * examined, less than MEM_MAP_MIN + 2 * MEM_FREE_STEP bytes cleared, unmapped or
 * copied (an array under MEM_MAP_MIN copied as it grows, or a few items of the pool
 * moved).  Returns the slots passed and moved.
 */
static uint64_t
check_table_work(const struct agg *agg, struct table_work *before, const char *what,
    size_t step)
{
	struct table_work now = table_work_now(agg);

	cr_assert_leq(now.passed - before->passed, MODE_RECORD_SLOTS,
	    "%s, step %zu: passed %llu", what, step,
	    (unsigned long long)(now.passed - before->passed));
	cr_assert_leq(now.moved - before->moved, MODE_RECORD_SLOTS + 1,
	    "%s, step %zu: moved %llu", what, step, (unsigned long long)(now.moved - before->moved));
	cr_assert_leq(now.probes - before->probes, STEP_PROBES, "%s, step %zu: probes %llu",
	    what, step, (unsigned long long)(now.probes - before->probes));
	cr_assert_leq(now.bytes - before->bytes, MEM_MAP_MIN + 2 * MEM_FREE_STEP,
	    "%s, step %zu: bytes %llu", what, step, (unsigned long long)(now.bytes - before->bytes));
	now.passed -= before->passed;
	now.moved -= before->moved;
	*before = table_work_now(agg);
	return now.passed + now.moved;
}

/*
 * agg_mode.c moves its table's keys a step at a time when it grows or shrinks
 * (hashtable.h's moves), and its item array's pool a few items a step when the array
 * grows: make bench's latency input, 0, 0, 1, 2, ..., through a window of 600,000
 * grows the table to 2^22 slots (a rebuild at once moved 524,288 keys at record
 * 524,290, and the pool's move 12 MB), and every record's work stays within a pop's
 * step and a push's: the last growth's move goes on after the window is full.
 * The mode is then the window's smallest value, its first, but for the two 0s.
 */
Test(mode, table_growth_is_spread_over_the_steps)
{
	enum { WINDOW = 600000, STEPS = 700000 };
	struct agg *agg = mode_make(1, 81);
	struct table_work before = table_work_now(agg);
	struct mode_stats stats;
	uint64_t most = 0, work;
	char text[32], want[32];

	for (size_t t = 0; t < STEPS; t++) {
		struct agg_result got;
		size_t first = t + 1 > WINDOW ? t + 1 - WINDOW : 0;
		int len = snprintf(text, sizeof(text), "%zu", t < 2 ? (size_t)0 : t - 1);

		slide_text(agg, WINDOW, text, (size_t)len, &got);
		if ((work = check_table_work(agg, &before, "0 0 1 2 ...", t)) > most)
			most = work;
		if (t % 997 == 0 || t == STEPS - 1) {
			int want_len = snprintf(want, sizeof(want), "%zu", first < 2 ? (size_t)0 :
			    first - 1);

			cr_assert_eq(got.kind, AGG_RESULT_TEXT);
			cr_assert(got.text_len == (size_t)want_len &&
			    memcmp(got.text, want, got.text_len) == 0, "step %zu: '%.*s', not '%s'",
			    t, (int)got.text_len, got.text, want);
		}
	}
	agg_mode_stats(agg, &stats);
	cr_assert_eq(stats.distinct, WINDOW);
	cr_assert_geq(stats.table_capacity, (size_t)1 << 21);
	cr_log_info("table growth: at most %llu slots passed and moved in one step",
	    (unsigned long long)most);
	agg_mode.destroy(agg);
}

/*
 * A window that fills with new values and then empties one eviction at a time, over
 * and over at several sizes (the table grows, then shrinks back to its smallest), and
 * one whose values repeat among a few thousand: no push or eviction does more than
 * one step's table work, and the distinct count is the model's.
 */
Test(mode, table_shrinking_is_spread_over_the_steps)
{
	static const size_t sizes[] = { 300000, 20000, 150000, 70000 };
	struct agg *agg = mode_make(1, 82);
	struct table_work before = table_work_now(agg);
	struct mode_stats stats;
	uint32_t next = 0;
	char text[32];

	for (size_t round = 0; round < 2; round++)
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			for (size_t i = 0; i < sizes[s]; i++) {
				push_text(agg, text, ip_text(text, next++));
				check_table_work(agg, &before, "fill", i);
			}
			agg_mode_stats(agg, &stats);
			cr_assert_eq(stats.distinct, sizes[s]);
			for (size_t i = 0; i < sizes[s]; i++) {
				agg_step_evict(agg, 1);
				check_table_work(agg, &before, "empty", i);
			}
			agg_mode_stats(agg, &stats);
			cr_assert_eq(stats.distinct, 0);
		}
	/* Repeated values: 4,000 of them, through a window of 100,000, which then empties to 10. */
	for (size_t t = 0; t < 200000; t++) {
		slide_text(agg, 100000, text, ip_text(text, (uint32_t)(t * 7919 % 4000)), NULL);
		check_table_work(agg, &before, "repeated", t);
	}
	agg_mode_stats(agg, &stats);
	cr_assert_eq(stats.distinct, 4000);
	for (size_t i = 0; i < 100000 - 10; i++) {
		agg_step_evict(agg, 1);
		check_table_work(agg, &before, "repeated, emptying", i);
	}
	agg_mode_stats(agg, &stats);
	cr_assert_eq(stats.distinct, 10);
	cr_assert_leq(stats.table_capacity, 256);	/* 128 settled: 10 keys, a sixteenth full */
	agg_mode.destroy(agg);
}
