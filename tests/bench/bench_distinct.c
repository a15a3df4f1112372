/*
 * bench_distinct: the distinct aggregate, in nanoseconds per step and bytes per slot.
 *
 *   cc -std=c11 -D_GNU_SOURCE -O2 -Isrc -o /tmp/bench_distinct \
 *       tests/bench/bench_distinct.c src/agg_distinct.c src/hashtable.c \
 *       src/ring.c src/mem.c -lm && /tmp/bench_distinct
 *
 * A step is what swag does per record in a full row window: one move() of one step
 * (the agg_step_slide of tests/agg_steps.h) pops the oldest field, pushes the new one
 * and stores the result.  The fields are 2 million IPv4-like addresses
 * ("10.3.141.59"), drawn from 2^20 addresses with a fixed seed, so a window of 100,000
 * holds about 95,000 different ones.  Windows of 10 stay exact; at the default P = 12
 * windows of 1,000 and 100,000 are past 2^P/8 = 512 values and estimated.  Each figure
 * is the best of a few runs.  Memory is what the window has allocated (the structure
 * adds it up) and, as a cross-check, what the allocator reports in use (mallinfo2,
 * small blocks and mmapped ones),
 * for a window of 1,000,000 against one of 1,000.  Not part of the test suite: the
 * figures belong in agg_distinct.c's comments and the commit message.
 */
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../agg_steps.h"
#include "agg.h"
#include "agg_distinct.h"

enum { FIELD_COUNT = 2000000, RUNS = 3 };

/* The fields, one after another, and where each starts. */
struct field_set {
	char *text;
	size_t *start;
	size_t *len;
};

/* xorshift64*, fixed seed: every run times the same fields. */
static uint64_t
random_next(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * UINT64_C(0x2545F4914F6CDD1D);
}

/* Fills set with FIELD_COUNT addresses 10.a.b.c, a < 16; exits when memory is short. */
static void
make_fields(struct field_set *set)
{
	uint64_t state = 20261130;
	size_t used = 0;

	set->text = malloc((size_t)FIELD_COUNT * 16);
	set->start = malloc(FIELD_COUNT * sizeof(*set->start));
	set->len = malloc(FIELD_COUNT * sizeof(*set->len));
	if (set->text == NULL || set->start == NULL || set->len == NULL) {
		fprintf(stderr, "bench_distinct: out of memory\n");
		exit(1);
	}
	for (size_t i = 0; i < FIELD_COUNT; i++) {
		uint32_t address = (uint32_t)(random_next(&state) >> 44);	/* 20 bits */
		int len = sprintf(set->text + used, "10.%u.%u.%u", address >> 16,
		    (address >> 8) & 255, address & 255);

		set->start[i] = used;
		set->len[i] = (size_t)len;
		used += (size_t)len + 1;
	}
}

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static struct agg *
make_window(unsigned p)
{
	struct agg_params params = { 0 };
	struct agg *agg;

	params.min_count = 1;
	params.hll_bits = p;
	params.hash_seed = 12345;
	agg = agg_distinct.create(&agg_distinct, &params);
	if (agg == NULL) {
		fprintf(stderr, "bench_distinct: out of memory\n");
		exit(1);
	}
	return agg;
}

/*
 * Runs FIELD_COUNT steps over a window of size slots (filled first, untimed) and
 * returns the nanoseconds per step; *checksum collects the results so that the
 * compiler keeps them.
 */
static double
time_steps(const struct field_set *set, unsigned p, uint64_t size, uint64_t *checksum)
{
	struct agg *agg = make_window(p);
	struct agg_value value = { 0 };
	struct agg_result result;
	double start;

	value.has_text = true;
	for (uint64_t i = 0; i < size; i++) {
		value.text = set->text + set->start[(FIELD_COUNT - 1 - i) % FIELD_COUNT];
		value.text_len = set->len[(FIELD_COUNT - 1 - i) % FIELD_COUNT];
		if (agg_step_push(agg, &value) != 0)
			exit(1);
	}
	start = now_ns();
	for (size_t i = 0; i < FIELD_COUNT; i++) {
		value.text = set->text + set->start[i];
		value.text_len = set->len[i];
		if (agg_step_slide(agg, size, &value, &result) != 0)
			exit(1);
		*checksum += result.count;
	}
	start = now_ns() - start;
	agg->kind->destroy(agg);
	return start / FIELD_COUNT;
}

/*
 * Fills a window of size slots and stores in *bytes what it says it allocated and in
 * *heap the allocator's growth in bytes in use while it was made and filled.
 */
static void
measure_memory(const struct field_set *set, unsigned p, uint64_t size, struct agg **agg,
    size_t *bytes, size_t *heap)
{
	struct distinct_state state;
	struct agg_value value = { 0 };
	struct mallinfo2 info = mallinfo2();
	size_t before = info.uordblks + info.hblkhd;

	*agg = make_window(p);
	value.has_text = true;
	for (uint64_t i = 0; i < size; i++) {
		value.text = set->text + set->start[i % FIELD_COUNT];
		value.text_len = set->len[i % FIELD_COUNT];
		if (agg_step_push(*agg, &value) != 0)
			exit(1);
	}
	agg_distinct_inspect(*agg, &state);
	*bytes = state.bytes;
	info = mallinfo2();
	*heap = info.uordblks + info.hblkhd - before;
}

int
main(void)
{
	struct field_set set;
	uint64_t checksum = 0;
	uint64_t sizes[] = { 10, 1000, 100000 };
	unsigned ps[] = { 12, 16 };

	make_fields(&set);
	printf("distinct over %d IPv4-like fields, ns per step (pop, push, result), best of %d\n",
	    FIELD_COUNT, RUNS);
	for (size_t pi = 0; pi < sizeof(ps) / sizeof(ps[0]); pi++) {
		printf("  P = %-2u", ps[pi]);
		for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
			double best = 0;

			for (int run = 0; run < RUNS; run++) {
				double ns = time_steps(&set, ps[pi], sizes[si], &checksum);

				if (run == 0 || ns < best)
					best = ns;
			}
			printf("   window %-6llu %6.1f ns", (unsigned long long)sizes[si], best);
		}
		printf("\n");
	}

	for (size_t pi = 0; pi < sizeof(ps) / sizeof(ps[0]); pi++) {
		struct agg *small, *large;
		size_t small_bytes, small_heap, large_bytes, large_heap;

		measure_memory(&set, ps[pi], 1000, &small, &small_bytes, &small_heap);
		measure_memory(&set, ps[pi], 1000000, &large, &large_bytes, &large_heap);
		printf("  P = %-2u memory: window 1000 %zu bytes, window 1000000 %zu bytes: "
		    "%.2f bytes per slot (allocator: %.2f)\n", ps[pi], small_bytes, large_bytes,
		    (double)(large_bytes - small_bytes) / 999000.0,
		    ((double)large_heap - (double)small_heap) / 999000.0);
		small->kind->destroy(small);
		large->kind->destroy(large);
	}
	fprintf(stderr, "(checksum %llu)\n", (unsigned long long)checksum);
	free(set.text);
	free(set.start);
	free(set.len);
	return 0;
}
