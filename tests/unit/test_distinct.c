/*
 * test_distinct.c: the distinct aggregate against naive recomputations.
 *
 * - Exact path: after every push and pop of random sequences (duplicates, missing
 *   fields, texts equal as numbers but not as text), at P = 4 .. 12, the result equals
 *   a naive count of the window's different texts whenever the window holds at most
 *   2^P/8 values; the sequences cross 2^P/8 and 2^P/4 back and forth, so the exact
 *   table is dropped and rebuilt many times.
 * - Sketch path: after every operation the register histogram that the window keeps
 *   up to date equals the histogram of a sketch built afresh from the window's values,
 *   and the estimate equals the estimate of that fresh sketch, bit for bit.
 * - The estimator against a plain transcription of Ertl's algorithm.
 * - Accuracy: windows of 2^P/8 to 1,000,000 different values at P = 12, 14, 16.
 */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "../agg_steps.h"
#include "agg.h"
#include "agg_distinct.h"

/* xorshift64*, fixed seeds: every run tests the same sequences. */
static uint64_t
random_next(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * UINT64_C(0x2545F4914F6CDD1D);
}

static uint64_t
random_below(uint64_t *state, uint64_t bound)
{
	return random_next(state) % bound;
}

static struct agg *
make_window(unsigned p, uint64_t hash_seed)
{
	struct agg_params params = { 0 };
	struct agg *agg;

	params.min_count = 1;
	params.hll_bits = p;
	params.hash_seed = hash_seed;
	agg = agg_distinct.create(&agg_distinct, &params);
	cr_assert_not_null(agg);
	return agg;
}

static void
push_text(struct agg *agg, const char *text)
{
	struct agg_value value = { 0 };

	value.has_text = true;
	value.text = text;
	value.text_len = strlen(text);
	cr_assert_eq(agg_step_push(agg, &value), 0);
}

static void
push_missing(struct agg *agg)
{
	struct agg_value value = { 0 };

	cr_assert_eq(agg_step_push(agg, &value), 0);
}

static uint64_t
result_count(struct agg *agg)
{
	struct agg_result result;

	agg_step_result(agg, &result);
	cr_assert_eq(result.kind, AGG_RESULT_COUNT);
	return result.count;
}

/*
 * The texts of a universe of values, by index: value v appears as "v", "v.0" and
 * "0v", three different texts (as a number they are one), so the naive count of
 * different indices is the count of different texts.
 */
#define TEXT_MAX 32

static void
universe_text(uint64_t index, char *text)
{
	uint64_t v = index / 3;

	switch (index % 3) {
	case 0:
		snprintf(text, TEXT_MAX, "%llu", (unsigned long long)v);
		break;
	case 1:
		snprintf(text, TEXT_MAX, "%llu.0", (unsigned long long)v);
		break;
	default:
		snprintf(text, TEXT_MAX, "0%llu", (unsigned long long)v);
		break;
	}
}

/* The naive window: universe indices, oldest first; -1 for a missing field. */
struct naive {
	int64_t *index;
	size_t cap, head, n;
	uint32_t *seen;		/* seen[i] == generation: index i counted already */
	uint32_t generation;
	size_t universe;
	uint64_t *hash;		/* each universe text's XXH3 hash, for fresh sketches */
};

static void
naive_init(struct naive *w, size_t cap, size_t universe)
{
	char text[TEXT_MAX];

	w->index = calloc(cap, sizeof(*w->index));
	w->seen = calloc(universe, sizeof(*w->seen));
	w->hash = calloc(universe, sizeof(*w->hash));
	cr_assert(w->index != NULL && w->seen != NULL && w->hash != NULL);
	for (size_t i = 0; i < universe; i++) {
		universe_text(i, text);
		w->hash[i] = XXH3_64bits_withSeed(text, strlen(text), AGG_DISTINCT_SEED);
	}
	w->cap = cap;
	w->head = w->n = 0;
	w->generation = 0;
	w->universe = universe;
}

static void
naive_free(struct naive *w)
{
	free(w->index);
	free(w->seen);
	free(w->hash);
}

static int64_t
naive_at(const struct naive *w, size_t i)
{
	return w->index[(w->head + i) % w->cap];
}

static uint64_t
naive_values(const struct naive *w)
{
	uint64_t values = 0;

	for (size_t i = 0; i < w->n; i++)
		values += naive_at(w, i) >= 0;
	return values;
}

static uint64_t
naive_distinct(struct naive *w)
{
	uint64_t distinct = 0;

	w->generation++;
	for (size_t i = 0; i < w->n; i++) {
		int64_t index = naive_at(w, i);

		if (index >= 0 && w->seen[index] != w->generation) {
			w->seen[index] = w->generation;
			distinct++;
		}
	}
	return distinct;
}

/*
 * Pushes a field to both windows: a random value of the universe when has_value, else
 * a missing field.
 */
static void
push_field(struct agg *agg, struct naive *w, uint64_t *rng, bool has_value)
{
	int64_t index = -1;
	char text[TEXT_MAX];

	cr_assert(w->n < w->cap);
	if (has_value) {
		index = (int64_t)random_below(rng, w->universe);
		universe_text((uint64_t)index, text);
		push_text(agg, text);
	} else {
		push_missing(agg);
	}
	w->index[(w->head + w->n) % w->cap] = index;
	w->n++;
}

/* Pushes a random field (missing one time in ten) to both windows. */
static void
push_random(struct agg *agg, struct naive *w, uint64_t *rng)
{
	push_field(agg, w, rng, random_below(rng, 10) != 0);
}

static void
pop_both(struct agg *agg, struct naive *w)
{
	agg_step_evict(agg, 1);
	w->head = (w->head + 1) % w->cap;
	w->n--;
}

/*
 * One random step of a window whose size wanders between low and high slots: it heads
 * for high until it gets there, then for low, and so on, with random steps both ways.
 * Returns true on a push.
 */
static bool
step_random(struct agg *agg, struct naive *w, uint64_t *rng, size_t low, size_t high,
    bool *rising)
{
	bool push;

	if (w->n >= high)
		*rising = false;
	else if (w->n <= low)
		*rising = true;
	push = random_below(rng, 100) < (*rising ? 70u : 30u);
	if (w->n == 0)
		push = true;
	if (w->n + 1 >= w->cap)
		push = false;
	if (push)
		push_random(agg, w, rng);
	else
		pop_both(agg, w);
	return push;
}

Test(distinct, kind)
{
	cr_assert_str_eq(agg_distinct.name, "distinct");
	cr_assert_eq(agg_distinct.input, AGG_INPUT_TEXT);
}

/*
 * Missing fields count nothing but take a slot each: the window's first two evictions
 * take them, and the third the value.
 */
Test(distinct, empty_and_missing_count_zero)
{
	struct agg *agg = make_window(12, 1);
	struct distinct_state state;

	cr_assert_eq(result_count(agg), 0);
	push_missing(agg);
	push_missing(agg);
	cr_assert_eq(result_count(agg), 0);
	agg_distinct_inspect(agg, &state);
	cr_assert_eq(state.values, 0);
	push_text(agg, "a");
	cr_assert_eq(result_count(agg), 1);
	agg_distinct_inspect(agg, &state);
	cr_assert_eq(state.values, 1);
	agg_step_evict(agg, 2);
	cr_assert_eq(result_count(agg), 1, "the missing fields were the oldest slots");
	agg_step_evict(agg, 1);
	agg_distinct_inspect(agg, &state);
	cr_assert_eq(state.values, 0);
	cr_assert_eq(result_count(agg), 0);
	agg->kind->destroy(agg);
}

Test(distinct, identity_is_exact_text)
{
	struct agg *agg = make_window(12, 1);
	const char *texts[] = { "1", "1.0", "01", "1", "1e0", "02134", "2134", "02134" };

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		push_text(agg, texts[i]);
	cr_assert_eq(result_count(agg), 6);
	agg->kind->destroy(agg);
}

Test(distinct, bytes_not_just_c_strings)
{
	struct agg *agg = make_window(12, 1);
	struct agg_value value = { 0 };

	/* The same bytes up to a NUL, then different: two values. */
	value.has_text = true;
	value.text = "ab\0c";
	value.text_len = 4;
	cr_assert_eq(agg_step_push(agg, &value), 0);
	value.text = "ab\0d";
	cr_assert_eq(agg_step_push(agg, &value), 0);
	value.text_len = 2;
	cr_assert_eq(agg_step_push(agg, &value), 0);
	cr_assert_eq(result_count(agg), 3);
	agg->kind->destroy(agg);
}

Test(distinct, precision_default_and_bounds)
{
	struct distinct_state state;
	unsigned asked[] = { 0, 3, 4, 12, 18, 19 };
	unsigned used[] = { 12, 12, 4, 12, 18, 12 };

	for (size_t i = 0; i < sizeof(asked) / sizeof(asked[0]); i++) {
		struct agg *agg = make_window(asked[i], 1);

		agg_distinct_inspect(agg, &state);
		cr_assert_eq(state.p, used[i], "hll_bits %u", asked[i]);
		cr_assert_eq(agg->params.hll_bits, used[i]);
		agg->kind->destroy(agg);
	}
}

Test(distinct, hash_is_xxh3_with_fixed_seed)
{
	cr_assert_eq(agg_distinct_hash("10.0.0.1", 8),
	    XXH3_64bits_withSeed("10.0.0.1", 8, AGG_DISTINCT_SEED));
	cr_assert_eq(agg_distinct_hash("", 0), XXH3_64bits_withSeed("", 0, AGG_DISTINCT_SEED));
}

/*
 * Exact means by the text, also for texts made to share the sketch's fixed hash: with
 * the seed known, a 32-byte text whose first 8 bytes cancel XXH3's secret hashes the
 * same whatever its next 8 (agg_distinct.c).  500 of them, all of one hash, are 500
 * values, under any seed of the run, and leave one at a time.
 */
Test(distinct, crafted_hash_collisions_count_apart)
{
	static const unsigned char head[8] = { 0x2c, 0x72, 0xd6, 0x7d, 0x8a, 0x05, 0xc3, 0x11 };
	static const unsigned char tail[8] = { 0x52, 0x48, 0xd7, 0x2d, 0xeb, 0xf1, 0x0e, 0x2f };
	uint64_t seeds[] = { 1, 0, UINT64_C(0x9e3779b97f4a7c15) };

	for (size_t s = 0; s < sizeof(seeds) / sizeof(seeds[0]); s++) {
		struct agg *agg = make_window(12, seeds[s]);
		char text[32];
		struct agg_value value = { 0 };
		uint64_t shared = 0;

		value.has_text = true;
		value.text = text;
		value.text_len = sizeof(text);
		for (uint64_t i = 0; i < 500; i++) {
			memcpy(text, head, 8);
			memcpy(text + 8, &i, 8);
			memcpy(text + 16, tail, 8);
			memcpy(text + 24, "ZZZZZZZZ", 8);
			if (i == 0)
				shared = agg_distinct_hash(text, sizeof(text));
			cr_assert_eq(agg_distinct_hash(text, sizeof(text)), shared,
			    "the texts share one fixed-seed hash");
			cr_assert_eq(agg_step_push(agg, &value), 0);
			cr_assert_eq(result_count(agg), i + 1, "seed %llu, value %llu",
			    (unsigned long long)seeds[s], (unsigned long long)i);
		}
		/* And each leaves as itself. */
		for (uint64_t i = 1; i < 500; i++) {
			agg_step_evict(agg, 1);
			cr_assert_eq(result_count(agg), 500 - i, "seed %llu, evicted %llu",
			    (unsigned long long)seeds[s], (unsigned long long)i);
		}
		agg->kind->destroy(agg);
	}
}

/* A small window never allocates the sketches: one per group must stay cheap. */
Test(distinct, small_window_stays_small)
{
	struct agg *agg = make_window(18, 1);
	struct distinct_state state;
	char text[TEXT_MAX];
	uint64_t slots = 0;	/* the window's size, which the test keeps */

	for (int i = 0; i < 100000; i++) {
		universe_text((uint64_t)i, text);
		push_text(agg, text);
		if (++slots > 10) {
			agg_step_evict(agg, 1);
			slots--;
		}
	}
	agg_distinct_inspect(agg, &state);
	cr_assert(!state.sketch_active);
	cr_assert_lt(state.bytes, 2048, "%zu bytes for a window of 10", state.bytes);
	cr_assert_eq(result_count(agg), 10);
	agg->kind->destroy(agg);
}

/*
 * The hash seed places keys in the exact table and seeds the values' identities, and
 * changes no result: two windows with different seeds give the same results all along.
 */
Test(distinct, hash_seed_never_changes_a_result)
{
	struct agg *a = make_window(6, 1), *b = make_window(6, UINT64_C(0x9e3779b97f4a7c15));
	uint64_t rng = 42, slots = 0;	/* the windows' size, which the test keeps */
	char text[TEXT_MAX];

	for (int step = 0; step < 20000; step++) {
		if (slots > 0 && random_below(&rng, 2) == 0 && slots > random_below(&rng, 64)) {
			agg_step_evict(a, 1);
			agg_step_evict(b, 1);
			slots--;
		} else {
			universe_text(random_below(&rng, 40), text);
			push_text(a, text);
			push_text(b, text);
			slots++;
		}
		cr_assert_eq(result_count(a), result_count(b), "step %d", step);
	}
	a->kind->destroy(a);
	b->kind->destroy(b);
}

/*
 * Exact while the window holds at most 2^P/8 values, after every operation, with the
 * window wandering across 2^P/8 and 2^P/4 so that the table is dropped and rebuilt
 * again and again: dropped at the push that takes the window past 2^P/4 values, or
 * past 2^P/8 once the table has taken 2^P/8 pushes past 2^P/8 since it was made or
 * rebuilt, and rebuilt when the window falls back to 2^P/8.  Above 2^P/8 values the result
 * must still be a count between 1 and the number of values.
 */
Test(distinct, exact_below_threshold)
{
	uint64_t rng = 1;

	for (unsigned p = 4; p <= 12; p++) {
		size_t exact_limit = ((size_t)1 << p) / 8, table_limit = ((size_t)1 << p) / 4;
		/* Many duplicates, some, and almost none. */
		size_t universes[] = { 3, exact_limit + 1, 40 * table_limit };
		unsigned cycles = p <= 8 ? 40 : 6;

		for (size_t u = 0; u < sizeof(universes) / sizeof(universes[0]); u++) {
			struct agg *agg = make_window(p, random_next(&rng));
			struct naive w;
			struct distinct_state state;
			bool rising = true, was_exact_table = true;
			unsigned drops = 0, rebuilds = 0, checked = 0;
			uint64_t previous_values = 0, unused = 0;
			/* Slots (missing ones included) between which the window wanders:
			   from well below 2^P/8 values to well above 2^P/4. */
			size_t low = exact_limit / 2, high = table_limit * 3 / 2 + 4;

			naive_init(&w, 2 * high, universes[u]);
			for (unsigned cycle = 0; cycle < cycles;) {
				uint64_t count, values, expected;

				bool was_rising = rising;

				step_random(agg, &w, &rng, low, high, &rising);
				if (was_rising && !rising)
					cycle++;
				count = result_count(agg);
				values = naive_values(&w);
				if (values <= exact_limit) {
					expected = naive_distinct(&w);
					cr_assert_eq(count, expected,
					    "P=%u universe %zu: %llu distinct, got %llu", p,
					    universes[u], (unsigned long long)expected,
					    (unsigned long long)count);
					checked++;
				} else {
					cr_assert(count >= 1 && count <= values,
					    "P=%u: %llu over %llu values", p,
					    (unsigned long long)count, (unsigned long long)values);
				}
				agg_distinct_inspect(agg, &state);
				cr_assert_eq(state.values, values);
				/* A value came: the table is dropped or counts the push. */
				if (was_exact_table && values == previous_values + 1) {
					bool drop = values > table_limit ||
					    (values > exact_limit && unused >= exact_limit);

					cr_assert_eq(!state.exact_table, drop,
					    "P=%u: %llu values, %llu pushes unused: dropped %d",
					    p, (unsigned long long)values,
					    (unsigned long long)unused, !state.exact_table);
					drops += drop;
					unused += values > exact_limit;
				} else {
					cr_assert(!was_exact_table || state.exact_table,
					    "P=%u: dropped without a value coming", p);
				}
				if (!was_exact_table && state.exact_table) {
					cr_assert_leq(values, exact_limit);
					rebuilds++;
					unused = 0;
				}
				was_exact_table = state.exact_table;
				previous_values = values;
			}
			cr_assert_geq(drops, 2, "P=%u: the table was dropped %u times", p, drops);
			cr_assert_geq(rebuilds, 2, "P=%u: rebuilt %u times", p, rebuilds);
			cr_assert_gt(checked, 100);
			/* The window holds the naive window's w.n slots: evicting them all in
			   one step empties it. */
			agg_step_evict(agg, w.n);
			agg_distinct_inspect(agg, &state);
			cr_assert_eq(state.values, 0);
			cr_assert_eq(result_count(agg), 0);
			naive_free(&w);
			agg->kind->destroy(agg);
		}
	}
}

/* The histogram of a sketch built afresh from the window's values. */
static void
fresh_histogram(const struct naive *w, unsigned p, uint8_t *registers,
    uint32_t histogram[AGG_DISTINCT_HISTOGRAM_SIZE])
{
	size_t m = (size_t)1 << p;

	memset(registers, 0, m);
	for (size_t i = 0; i < w->n; i++) {
		int64_t index = naive_at(w, i);
		uint64_t hash, rest;
		unsigned value;

		if (index < 0)
			continue;
		hash = w->hash[index];
		rest = hash << p;
		value = rest == 0 ? 65 - p : (unsigned)__builtin_clzll(rest) + 1;
		if (value > registers[hash >> (64 - p)])
			registers[hash >> (64 - p)] = (uint8_t)value;
	}
	memset(histogram, 0, AGG_DISTINCT_HISTOGRAM_SIZE * sizeof(*histogram));
	for (size_t i = 0; i < m; i++)
		histogram[registers[i]]++;
}

/*
 * A window that holds between 2^P/8 and 2^P/4 values for good (a row window of 1,000
 * at P = 12) drops its table after 2^P/8 pushes there: it pays for no table it does
 * not use.  Falling back to 2^P/8 values rebuilds it, exact at once.
 */
Test(distinct, steady_window_drops_the_table)
{
	const unsigned p = 8;
	const size_t exact_limit = 32, held = 48;
	uint64_t rng = 7;
	struct agg *agg = make_window(p, 1);
	struct distinct_state state;
	struct naive w;
	size_t pushes_above = 0;

	naive_init(&w, 4 * held, 1000);
	/* Values only: every push takes one. */
	while (w.n < held) {
		push_field(agg, &w, &rng, true);
		pushes_above += w.n > exact_limit;
		agg_distinct_inspect(agg, &state);
		cr_assert(state.exact_table);
	}
	for (;;) {
		pop_both(agg, &w);
		push_field(agg, &w, &rng, true);
		agg_distinct_inspect(agg, &state);
		if (pushes_above < exact_limit) {
			cr_assert(state.exact_table, "dropped after %zu pushes", pushes_above);
		} else {
			cr_assert(!state.exact_table, "kept after %zu pushes", pushes_above);
			break;
		}
		pushes_above++;
	}
	while (w.n > exact_limit) {
		pop_both(agg, &w);
		agg_distinct_inspect(agg, &state);
		cr_assert_eq(state.exact_table, w.n <= exact_limit);
	}
	cr_assert_eq(result_count(agg), naive_distinct(&w));
	naive_free(&w);
	agg->kind->destroy(agg);
}

/*
 * The sketch path, after every push and pop: the histogram kept step by step (through
 * pushes, flips and undos) equals that of a fresh sketch of the window, and so does the
 * estimate, exactly; the result is that estimate rounded and kept within [1, values].
 */
Test(distinct, sketch_equals_fresh_sketch)
{
	uint64_t rng = 7;
	unsigned ps[] = { 4, 5, 6, 8, 10 };

	for (size_t pi = 0; pi < sizeof(ps) / sizeof(ps[0]); pi++) {
		unsigned p = ps[pi];
		size_t m = (size_t)1 << p;
		size_t universes[] = { 5, m, 100 * m };
		uint8_t *registers = malloc(m);

		cr_assert_not_null(registers);
		for (size_t u = 0; u < sizeof(universes) / sizeof(universes[0]); u++) {
			struct agg *agg = make_window(p, random_next(&rng));
			struct naive w;
			struct distinct_state state;
			bool rising = true;
			size_t high = p <= 6 ? 8 * m : 2 * m;
			unsigned steps = p <= 6 ? 20000 : 6000;
			uint32_t histogram[AGG_DISTINCT_HISTOGRAM_SIZE];

			naive_init(&w, 2 * high, universes[u]);
			/* Past 2^P/8 values once, so that the sketches are kept from now on. */
			while (naive_values(&w) <= m / 8)
				push_random(agg, &w, &rng);
			for (unsigned step = 0; step < steps; step++) {
				double expected;
				uint64_t values = naive_values(&w);

				/* Down to an empty window now and then, up to `high` slots. */
				step_random(agg, &w, &rng, step % 3000 < 1500 ? 0 : m / 4, high,
				    &rising);
				values = naive_values(&w);
				agg_distinct_inspect(agg, &state);
				cr_assert(state.sketch_active);
				fresh_histogram(&w, p, registers, histogram);
				for (size_t v = 0; v < AGG_DISTINCT_HISTOGRAM_SIZE; v++)
					cr_assert_eq(state.histogram[v], histogram[v],
					    "P=%u step %u: %zu registers hold %zu, fresh sketch %u",
					    p, step, (size_t)state.histogram[v], v, histogram[v]);
				expected = agg_distinct_estimate(histogram, p);
				cr_assert(state.estimate == expected,
				    "P=%u step %u: estimate %.17g, fresh sketch %.17g", p, step,
				    state.estimate, expected);
				if (values > m / 8) {
					uint64_t rounded = (uint64_t)llround(expected);

					if (rounded > values)
						rounded = values;
					if (rounded < 1)
						rounded = 1;
					cr_assert_eq(result_count(agg), rounded);
				}
			}
			naive_free(&w);
			agg->kind->destroy(agg);
		}
		free(registers);
	}
}

/* Algorithm 6 of Ertl (2017), transcribed as printed, in doubles. */
static double
ertl_reference(const uint32_t *c, unsigned p)
{
	double m = (double)((uint64_t)1 << p), z, x, y, previous;
	unsigned q = 64 - p;

	/* τ(1 - C[q+1]/m) */
	x = 1.0 - c[q + 1] / m;
	if (x == 0.0 || x == 1.0) {
		z = 0.0;
	} else {
		y = 1.0;
		z = 1.0 - x;
		do {
			x = sqrt(x);
			previous = z;
			y *= 0.5;
			z -= (1.0 - x) * (1.0 - x) * y;
		} while (z != previous);
		z /= 3.0;
	}
	z *= m;
	for (unsigned k = q; k >= 1; k--)
		z = 0.5 * (z + c[k]);
	/* σ(C[0]/m) */
	x = c[0] / m;
	if (x == 1.0)
		return 0.0;
	{
		double s = x;

		y = 1.0;
		do {
			x *= x;
			previous = s;
			s += x * y;
			y += y;
		} while (s != previous);
		z += m * s;
	}
	return 0.72134752044448170368 * m * m / z;
}

/* The estimator against the transcription, on random and extreme histograms. */
Test(distinct, estimator_matches_ertl)
{
	uint64_t rng = 99;
	uint32_t c[AGG_DISTINCT_HISTOGRAM_SIZE];

	for (unsigned p = 4; p <= 18; p++) {
		uint32_t m = (uint32_t)1 << p;
		unsigned q = 64 - p;

		memset(c, 0, sizeof(c));
		c[0] = m;
		cr_assert_eq(agg_distinct_estimate(c, p), 0.0);
		for (int trial = 0; trial < 2000; trial++) {
			/* Registers spread over a random band of values: the low ones that
			   real windows give, or any up to saturated. */
			unsigned lowest = (unsigned)random_below(&rng, trial % 2 ? 16 : q + 2);
			unsigned width = 1 + (unsigned)random_below(&rng, 8);
			uint32_t left = m;
			double got, want;

			memset(c, 0, sizeof(c));
			for (unsigned v = lowest; v < lowest + width && v <= q + 1; v++) {
				uint32_t share = v + 1 == lowest + width || v == q + 1 ? left :
				    (uint32_t)random_below(&rng, (uint64_t)left + 1);

				c[v] += share;
				left -= share;
			}
			if (trial % 10 == 0) {	/* one register set, or one left empty */
				memset(c, 0, sizeof(c));
				c[0] = trial % 20 == 0 ? m - 1 : 1;
				c[1 + random_below(&rng, q + 1)] += m - c[0];
			}
			got = agg_distinct_estimate(c, p);
			want = ertl_reference(c, p);
			if (c[q + 1] == m) {	/* all saturated: Ertl's estimate is infinite */
				cr_assert(isinf(got) && isinf(want));
				continue;
			}
			if (c[0] == m) {	/* all empty */
				cr_assert(got == 0.0 && want == 0.0);
				continue;
			}
			cr_assert(isfinite(got) && got > 0, "P=%u: %g", p, got);
			cr_assert_leq(fabs(got - want), 1e-12 * want, "P=%u: %.17g, Ertl %.17g",
			    p, got, want);
		}
	}
}

/* Writes the decimal digits of n after a prefix letter; returns the length. */
static size_t
counter_text(uint64_t n, char *text)
{
	char digits[24];
	size_t len = 0, out = 0;

	do {
		digits[len++] = (char)('0' + n % 10);
		n /= 10;
	} while (n != 0);
	text[out++] = 'k';
	while (len > 0)
		text[out++] = digits[--len];
	return out;
}

/*
 * Accuracy over windows of 2^P/8 to 1,000,000 different values.  For each size D a row
 * window of 2D slots runs over a stream in blocks of 2D records: D new texts, then the
 * same D again.  Sampled at the end of each block, the window holds D different values,
 * each twice, so the result's upper bound (the number of values) never helps it; and
 * the sampled windows share no value, so their errors are independent.  Smaller sizes
 * get more samples (at most ACCURACY_STEPS records per size).  The first sample is a
 * freshly filled window, the others windows that slid (flips and undos).  Every
 * sample's relative error counts in the root mean square; none may be off by more
 * than 5 standard errors.
 */
#define ACCURACY_STEPS 600000
#define ACCURACY_MAX_SAMPLES 150

Test(distinct, accuracy)
{
	unsigned ps[] = { 12, 14, 16 };
	uint64_t first_text = 0;

	for (size_t pi = 0; pi < sizeof(ps) / sizeof(ps[0]); pi++) {
		unsigned p = ps[pi];
		double standard_error = 1.04 / sqrt((double)((uint64_t)1 << p));
		double squares = 0.0, worst = 0.0, large_squares = 0.0;
		uint64_t worst_size = 0, samples = 0, large_samples = 0;
		uint64_t size = ((uint64_t)1 << p) / 8;

		for (;;) {
			struct agg *agg = make_window(p, 1);
			uint64_t samples_here = ACCURACY_STEPS / (2 * size);
			struct agg_value value = { 0 };
			char text[TEXT_MAX];
			uint64_t slots = 0;	/* the window's size, which the test keeps */

			if (samples_here > ACCURACY_MAX_SAMPLES)
				samples_here = ACCURACY_MAX_SAMPLES;
			if (samples_here < 1)
				samples_here = 1;
			value.has_text = true;
			value.text = text;
			for (uint64_t block = 0; block < samples_here; block++) {
				for (uint64_t step = 0; step < 2 * size; step++) {
					value.text_len = counter_text(first_text + step % size, text);
					cr_assert_eq(agg_step_push(agg, &value), 0);
					if (++slots > 2 * size) {
						agg_step_evict(agg, 1);
						slots--;
					}
				}
				first_text += size;

				double error = ((double)result_count(agg) - (double)size) /
				    (double)size;

				squares += error * error;
				samples++;
				if (size >= (uint64_t)1 << p) {
					large_squares += error * error;
					large_samples++;
				}
				if (fabs(error) > fabs(worst)) {
					worst = error;
					worst_size = size;
				}
				cr_assert_leq(fabs(error), 5 * standard_error,
				    "P=%u window of %llu values: error %.4f%%", p,
				    (unsigned long long)size, 100 * error);
			}
			agg->kind->destroy(agg);
			if (size == 1000000)
				break;
			size = size * 2 > 1000000 ? 1000000 : size * 2;
		}
		double rmse = sqrt(squares / (double)samples);
		double large_rmse = sqrt(large_squares / (double)large_samples);

		fprintf(stderr, "distinct P=%u: %llu windows of %llu to 1000000 values: RMSE "
		    "%.3f%% = %.3f SE (SE = 1.04/sqrt(2^P) = %.3f%%); %llu of them >= 2^P "
		    "values: %.3f SE; worst %+.3f%% = %.2f SE at %llu values\n", p,
		    (unsigned long long)samples, (unsigned long long)((uint64_t)1 << p) / 8,
		    100 * rmse, rmse / standard_error, 100 * standard_error,
		    (unsigned long long)large_samples, large_rmse / standard_error,
		    100 * worst, fabs(worst) / standard_error, (unsigned long long)worst_size);
		cr_assert_leq(rmse, 1.1 * standard_error, "P=%u: RMSE %.4f%%", p, 100 * rmse);
	}
}

/* The work counted so far (agg_distinct.h's counters): slots walked, 64 bytes cleared. */
static uint64_t
work_now(void)
{
	struct distinct_counters counters;

	agg_distinct_counters(&counters);
	return counters.slots_walked + (counters.bytes_cleared + 63) / 64;
}

/*
 * The most work agg_distinct.c allows one push or pop with 2^p registers: a rotation's
 * step of 16 units, or a rotation finished at once, which happens only with a front
 * of fewer than 3C/16 slots and then costs at most about 5C, C = 2^p / 64 (its
 * rotation_work comment), bounded here by 8C; and the exact table's rebuild, which
 * walks 2^p / 8 values and the first slot of at most one run of missing fields before
 * each and after the last, 2^p / 4 + 1 slots.
 * A flip walks the window's whole back stack.
 */
static uint64_t
op_bound(unsigned p)
{
	return 16 + 8 * (((uint64_t)1 << p) / 64) + ((uint64_t)1 << p) / 4 + 1;
}

/* Asserts that the operation since *before did at most op_bound(p) work. */
static void
check_op(unsigned p, uint64_t *before, uint64_t *most, const char *what, size_t i)
{
	uint64_t now = work_now(), work = now - *before;

	cr_assert_leq(work, op_bound(p), "P=%u, %s, operation %zu: %llu units", p, what, i,
	    (unsigned long long)work);
	if (work > *most)
		*most = work;
	*before = now;
}

/* Asserts that the window's histogram is that of a sketch built afresh from its values. */
static void
check_fresh(struct agg *agg, struct naive *w, unsigned p, uint8_t *registers,
    const char *what)
{
	uint32_t histogram[AGG_DISTINCT_HISTOGRAM_SIZE];
	struct distinct_state state;

	agg_distinct_inspect(agg, &state);
	cr_assert(state.sketch_active);
	fresh_histogram(w, p, registers, histogram);
	for (size_t v = 0; v < AGG_DISTINCT_HISTOGRAM_SIZE; v++)
		cr_assert_eq(state.histogram[v], histogram[v], "P=%u, %s: %u registers hold %zu, fresh sketch %u",
		    p, what, state.histogram[v], v, histogram[v]);
	cr_assert(state.estimate == agg_distinct_estimate(histogram, p));
}

/*
 * No push or pop walks more than a constant of P, counted (agg_distinct.c's rotation
 * of the two stacks), over growth from empty to 100,000 values, a row window of
 * 100,000 sliding, a window emptied and refilled in bursts of every size, values all
 * new and values all repeated, with missing fields among them; the registers stay
 * those of a sketch of the window made afresh.  The flip, once every w pops, walked
 * the whole back: 100,000 slots in one pop here, 64 times the bound at P=12.
 */
Test(distinct, no_operation_walks_more_than_a_constant)
{
	static const unsigned ps[] = { 4, 8, 12 };
	uint64_t rng = 91;

	for (size_t pi = 0; pi < sizeof(ps) / sizeof(ps[0]); pi++) {
		unsigned p = ps[pi];
		size_t big = 100000;
		size_t universes[] = { 3 * big, 5 };
		uint8_t *registers = malloc((size_t)1 << p);

		cr_assert_not_null(registers);
		for (size_t u = 0; u < 2; u++) {
			struct agg *agg = make_window(p, random_next(&rng));
			struct naive w;
			uint64_t before = work_now(), most = 0;

			naive_init(&w, big + 2, universes[u]);
			/* Growth from empty. */
			for (size_t i = 0; i < big; i++) {
				push_random(agg, &w, &rng);
				check_op(p, &before, &most, "growth", i);
			}
			check_fresh(agg, &w, p, registers, "grown");
			/* A row window of big slots, sliding. */
			for (size_t i = 0; i < big + big / 3; i++) {
				pop_both(agg, &w);
				check_op(p, &before, &most, "slide, pop", i);
				push_random(agg, &w, &rng);
				check_op(p, &before, &most, "slide, push", i);
				if (i % (big / 4) == 0)
					check_fresh(agg, &w, p, registers, "sliding");
			}
			/* Bursts: emptied in part, refilled, of sizes from 1 to the window. */
			for (size_t b = 0; b < 40; b++) {
				size_t out = (size_t)random_below(&rng, w.n + 1), in;

				for (size_t i = 0; i < out; i++) {
					pop_both(agg, &w);
					check_op(p, &before, &most, "burst, pop", i);
				}
				in = (size_t)random_below(&rng, b % 4 == 0 ? 8 : big - w.n + 1);
				for (size_t i = 0; i < in; i++) {
					push_random(agg, &w, &rng);
					check_op(p, &before, &most, "burst, push", i);
				}
				if (naive_values(&w) > 0 && b % 8 == 0)
					check_fresh(agg, &w, p, registers, "bursts");
			}
			if (naive_values(&w) > 0)
				check_fresh(agg, &w, p, registers, "after the bursts");
			cr_log_info("P=%u, universe %zu: at most %llu units in one operation (bound %llu)",
			    p, universes[u], (unsigned long long)most,
			    (unsigned long long)op_bound(p));
			naive_free(&w);
			agg->kind->destroy(agg);
		}
		free(registers);
	}
}

/* Pushes a field to both windows: a value one time in one_in, else a missing field. */
static void
push_sparse(struct agg *agg, struct naive *w, uint64_t *rng, uint64_t one_in)
{
	push_field(agg, w, rng, random_below(rng, one_in) == 0);
}

/*
 * A window of 100,000 slots that are nearly all missing fields: the walks over the
 * window's values (the sketches' start above 2^P/8 values, the exact table's rebuild
 * when the window falls back to 2^P/8) step over the runs of missing fields, so no
 * operation walks more than op_bound(P), where a walk of every slot took 100,000.  The
 * window's values rise past the table's limit and fall back below 2^P/8 again and
 * again, with runs cut by pops at the head, runs open at the tail and runs of every
 * length, and the count is the naive one whenever it must be exact.
 */
Test(distinct, walks_step_over_missing_fields)
{
	static const unsigned ps[] = { 4, 8 };
	const size_t big = 100000;
	uint64_t rng = 17;

	for (size_t pi = 0; pi < sizeof(ps) / sizeof(ps[0]); pi++) {
		unsigned p = ps[pi];
		uint64_t exact_limit = ((uint64_t)1 << p) / 8, before, most = 0;
		struct agg *agg = make_window(p, random_next(&rng));
		struct naive w;
		size_t rebuilds = 0;

		naive_init(&w, big + 2, 3 * big);
		before = work_now();
		for (size_t round = 0; round < 24; round++) {
			/* Values one slot in one_in: from 1 in 10 to 1 in 2,000. */
			uint64_t one_in = round % 4 == 0 ? 10 : 200 + random_below(&rng, 1800);
			uint64_t values;

			while (w.n < big) {
				push_sparse(agg, &w, &rng, one_in);
				check_op(p, &before, &most, "filling", w.n);
			}
			/* Pops until the window falls back to the exact count, or empties. */
			values = naive_values(&w);
			while (w.n > 0 && values > exact_limit) {
				values -= naive_at(&w, 0) >= 0;
				pop_both(agg, &w);
				check_op(p, &before, &most, "emptying", w.n);
			}
			if (values == exact_limit)
				rebuilds++;
			cr_assert_eq(result_count(agg), naive_distinct(&w), "P=%u round %zu", p, round);
			/* Some missing fields more, so that a run stays open at the tail. */
			for (size_t i = random_below(&rng, 3000); i > 0 && w.n < big; i--) {
				push_field(agg, &w, &rng, false);
				check_op(p, &before, &most, "a run at the tail", w.n);
			}
			cr_assert_eq(result_count(agg), naive_distinct(&w), "P=%u round %zu", p, round);
			/* Pops into the run at the head, so that it starts mid-run. */
			for (size_t i = random_below(&rng, 500); i > 0 && w.n > 0; i--) {
				pop_both(agg, &w);
				check_op(p, &before, &most, "a run at the head", w.n);
			}
		}
		cr_assert_geq(rebuilds, 10, "P=%u: %zu rebuilds", p, rebuilds);
		cr_log_info("P=%u, window of missing fields: at most %llu units in one operation "
		    "(bound %llu), %zu rebuilds", p, (unsigned long long)most,
		    (unsigned long long)op_bound(p), rebuilds);
		naive_free(&w);
		agg->kind->destroy(agg);
	}
}
