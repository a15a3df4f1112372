/*
 * bench_quantile.c: what one step of a sliding percentile costs in agg_quantile.c's
 * heap and in the sorted array it replaced (quantile_sorted.c, here beside this file),
 * at windows of 10, 1,000 and 100,000 values.
 *
 * Build and run (nothing else needed):
 *
 *     cc -std=c11 -D_GNU_SOURCE -O2 -Isrc -o /tmp/bench_quantile \
 *         tests/bench/bench_quantile.c tests/bench/quantile_sorted.c src/agg_quantile.c \
 *         src/ring.c src/mem.c -lm && /tmp/bench_quantile
 *
 * A step is what a full row window does per record, through the kind's move() (agg.h;
 * the one-step moves of tests/agg_steps.h): pop the oldest value, push the new one and
 * ask for the result, three moves (the pop left pending for the push, as when a time
 * window evicts at one step and takes a value at another); or one move of one step
 * that evicts the oldest and takes the new one ("slide" rows: the replacement in
 * place); or a move of 256 such steps ("move" rows: what the pipeline does for a batch
 * of up to 1,024 records in a row window).  The values are uniform random doubles from a fixed
 * seed.  Each figure is the best of three runs of at least 0.2 s, in nanoseconds per
 * step.  The last rows weigh sharing: three percentiles (p50, p90, p99) of one column
 * from three heaps, against one sorted array asked three times, and what
 * quantile_share_pays()'s cost model says of it.  Before timing, the two structures
 * are run side by side (the heap in moves of 1 to 64 steps, the sorted array one step
 * at a time) and must give the same results.
 *
 * Instructions per step, which machine load does not move: run one window of W values
 * for percentile Q for a fixed number N of steps (heap: pop + push + result; slide:
 * one step; move: steps 256 at a time; sorted: the sorted array's pop + push + result)
 * under callgrind, for two N, and divide the difference by the difference in N (the
 * fill and the setup cancel out); agg_quantile.c's figures leave out the driver's
 * functions (main, measure, step), about 80 instructions a step, as callgrind_annotate
 * lists them:
 *
 *     valgrind --tool=callgrind /tmp/bench_quantile --steps N heap|sorted|slide|move Q W
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../agg_steps.h"
#include "agg_quantile.h"
#include "quantile_sorted.h"

#define VALUE_COUNT (1u << 20)
#define RUNS 3
#define MIN_RUN_SECONDS 0.2
#define CHUNK_STEPS 256

static const uint64_t window_sizes[] = { 10, 1000, 100000 };
#define WINDOW_COUNT (sizeof(window_sizes) / sizeof(window_sizes[0]))

static double values[VALUE_COUNT];
static volatile double sink;	/* keeps the results alive */

/* splitmix64, with a fixed seed so that every run sees the same values. */
static uint64_t
next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15U);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9U;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBU;
	return z ^ (z >> 31);
}

static double
seconds_now(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

/* Exits with a message; a benchmark has no use for running on without memory. */
static void
fail(const char *what)
{
	fprintf(stderr, "bench_quantile: %s\n", what);
	exit(1);
}

/* How measure() steps its windows. */
enum path {
	SLIDE = -1,		/* one move of one step: evict the oldest, push, result */
	POP_PUSH_RESULT = 0,	/* three moves: evict, push, result */
	SHARED = 1,		/* the same on one sorted array asked every percentile */
	MOVE = 2		/* moves of CHUNK_STEPS steps, as the pipeline's batches */
};

/* One step of the windows aggs[0..agg_count) by value v; returns the sum of results. */
static double
step(struct agg **aggs, size_t agg_count, uint64_t window, const double *qs, size_t count,
    enum path path, const struct agg_value *v)
{
	double total = 0;

	for (size_t a = 0; a < agg_count; a++) {
		struct agg_result r;

		if (path == SLIDE) {
			if (agg_step_slide(aggs[a], window, v, &r) != 0)
				fail("out of memory");
			total += r.number;
			continue;
		}
		agg_step_evict(aggs[a], 1);
		if (agg_step_push(aggs[a], v) != 0)
			fail("out of memory");
		if (path == SHARED) {
			for (size_t q = 0; q < count; q++) {
				quantile_sorted_result(aggs[a], qs[q], &r);
				total += r.number;
			}
		} else {
			agg_step_result(aggs[a], &r);
			total += r.number;
		}
	}
	return total;
}

/*
 * CHUNK_STEPS steps of the windows aggs[0..agg_count), values from values[next...], in
 * one move each (path MOVE) or step by step; returns the sum of results.
 */
static double
chunk(struct agg **aggs, size_t agg_count, uint64_t window, const double *qs, size_t count,
    enum path path, uint64_t next)
{
	struct agg_value v[CHUNK_STEPS];
	struct agg_result r[CHUNK_STEPS];
	double total = 0;

	for (int s = 0; s < CHUNK_STEPS; s++)
		v[s] = (struct agg_value){ .has_text = 1, .has_number = 1,
		    .number = values[(next + (uint64_t)s) & (VALUE_COUNT - 1)] };
	if (path != MOVE) {
		for (int s = 0; s < CHUNK_STEPS; s++)
			total += step(aggs, agg_count, window, qs, count, path, &v[s]);
		return total;
	}
	for (size_t a = 0; a < agg_count; a++) {
		if (agg_step_slide_many(aggs[a], window, v, CHUNK_STEPS, r) != CHUNK_STEPS)
			fail("out of memory");
		for (int s = 0; s < CHUNK_STEPS; s++)
			total += r[s].number;
	}
	return total;
}

/*
 * Returns the best nanoseconds per step of count windows of kind, one per percentile
 * in qs, each window holding window values, all fed the same records, stepped as path
 * says (with SHARED there is one window asked for every percentile instead).  With
 * fixed_steps not 0, runs that many steps (rounded up to whole chunks) once instead,
 * for callgrind, and returns 0.
 */
static double
measure(const struct agg_kind *kind, uint64_t window, const double *qs, size_t count,
    enum path path, uint64_t fixed_steps)
{
	struct agg *aggs[8];
	size_t agg_count = path == SHARED ? 1 : count;
	double best = 1e300;
	uint64_t next = 0;

	for (size_t i = 0; i < agg_count; i++) {
		struct agg_params params = { .min_count = 1, .percentile = qs[i] };

		aggs[i] = kind->create(kind, &params);
		if (aggs[i] == NULL)
			fail("out of memory");
	}
	for (uint64_t i = 0; i < window; i++, next++)
		for (size_t a = 0; a < agg_count; a++) {
			struct agg_value v = { .has_text = 1, .has_number = 1,
			    .number = values[next & (VALUE_COUNT - 1)] };

			if (agg_step_push(aggs[a], &v) != 0)
				fail("out of memory");
		}
	if (fixed_steps != 0) {
		double total = 0;

		for (uint64_t s = 0; s < fixed_steps; s += CHUNK_STEPS, next += CHUNK_STEPS)
			total += chunk(aggs, agg_count, window, qs, count, path, next);
		sink = total;
		best = 0;
	}
	for (int run = 0; fixed_steps == 0 && run < RUNS; run++) {
		double start = seconds_now(), elapsed;
		uint64_t steps = 0;
		double total = 0;

		do {
			total += chunk(aggs, agg_count, window, qs, count, path, next);
			next += CHUNK_STEPS;
			steps += CHUNK_STEPS;
			elapsed = seconds_now() - start;
		} while (elapsed < MIN_RUN_SECONDS);
		sink = total;
		if (elapsed * 1e9 / (double)steps < best)
			best = elapsed * 1e9 / (double)steps;
	}
	for (size_t i = 0; i < agg_count; i++)
		kind->destroy(aggs[i]);
	return best;
}

/*
 * Runs a heap and a sorted array for percentile q over windows of window values side
 * by side for steps records and exits when a result differs: the baseline must answer
 * what the heap answers.  The heap moves 1 to 64 records at a time, as the pipeline
 * moves it, the sorted array one record at a time.
 */
static void
check_agreement(double q, uint64_t window, uint64_t steps)
{
	struct agg_params params = { .min_count = 1, .percentile = q };
	struct agg *heap = agg_quantile.create(&agg_quantile, &params);
	struct agg *sorted = quantile_sorted.create(&quantile_sorted, &params);
	uint64_t state = window;

	if (heap == NULL || sorted == NULL)
		fail("out of memory");
	for (uint64_t s = 0; s < steps;) {
		struct agg_value v[64];
		struct agg_result a[64], b;
		size_t n = 1 + next_random(&state) % 64;

		for (size_t k = 0; k < n; k++)
			v[k] = (struct agg_value){ .has_text = 1, .has_number = 1,
			    .number = values[(s + k) & (VALUE_COUNT - 1)] };
		if (agg_step_slide_many(heap, window, v, n, a) != n)
			fail("out of memory");
		for (size_t k = 0; k < n; k++, s++) {
			if (agg_step_slide(sorted, window, &v[k], &b) != 0)
				fail("out of memory");
			if (a[k].kind != b.kind ||
			    (b.kind == AGG_RESULT_NUMBER && a[k].number != b.number)) {
				fprintf(stderr, "bench_quantile: q=%g w=%llu step %llu: heap %.17g, "
				    "sorted %.17g\n", q, (unsigned long long)window,
				    (unsigned long long)s, a[k].number, b.number);
				exit(1);
			}
		}
	}
	agg_quantile.destroy(heap);
	quantile_sorted.destroy(sorted);
}

/* Prints one row: a structure's ns per step at each window size. */
static void
print_row(const char *label, const struct agg_kind *kind, const double *qs, size_t count,
    enum path path)
{
	printf("%-34s", label);
	for (size_t i = 0; i < WINDOW_COUNT; i++) {
		printf(" %10.1f", measure(kind, window_sizes[i], qs, count, path, 0));
		fflush(stdout);
	}
	printf("\n");
}

int
main(int argc, char **argv)
{
	uint64_t state = 20240601;
	const double median[] = { 0.5 }, p99[] = { 0.99 }, three[] = { 0.5, 0.9, 0.99 };

	for (size_t i = 0; i < VALUE_COUNT; i++)
		values[i] = (double)(next_random(&state) >> 11) * 0x1p-53 * 1e6;
	if (argc == 6 && strcmp(argv[1], "--steps") == 0) {
		double q = atof(argv[4]);
		enum path path = strcmp(argv[3], "slide") == 0 ? SLIDE :
		    strcmp(argv[3], "move") == 0 ? MOVE : POP_PUSH_RESULT;
		const struct agg_kind *kind = strcmp(argv[3], "sorted") == 0 ?
		    &quantile_sorted : &agg_quantile;

		measure(kind, strtoull(argv[5], NULL, 10), &q, 1, path,
		    strtoull(argv[2], NULL, 10));
		return 0;
	}
	if (argc != 1) {
		fprintf(stderr, "usage: bench_quantile [--steps N heap|sorted|slide|move Q W]\n");
		return 2;
	}
	for (size_t i = 0; i < WINDOW_COUNT; i++) {
		check_agreement(0.5, window_sizes[i], 3 * window_sizes[i] + 10000);
		check_agreement(0.99, window_sizes[i], 3 * window_sizes[i] + 10000);
	}
	printf("ns per step                         %10s %10s %10s\n", "w=10", "w=1000",
	    "w=100000");
	print_row("median, heap, move", &agg_quantile, median, 1, MOVE);
	print_row("median, heap, slide", &agg_quantile, median, 1, SLIDE);
	print_row("median, heap", &agg_quantile, median, 1, POP_PUSH_RESULT);
	print_row("median, sorted array", &quantile_sorted, median, 1, POP_PUSH_RESULT);
	print_row("p99, heap, move", &agg_quantile, p99, 1, MOVE);
	print_row("p99, heap, slide", &agg_quantile, p99, 1, SLIDE);
	print_row("p99, heap", &agg_quantile, p99, 1, POP_PUSH_RESULT);
	print_row("p99, sorted array", &quantile_sorted, p99, 1, POP_PUSH_RESULT);
	print_row("p50+p90+p99, three heaps", &agg_quantile, three, 3, POP_PUSH_RESULT);
	print_row("p50+p90+p99, one sorted array", &quantile_sorted, three, 3, SHARED);
	printf("%-34s", "sharing pays (the cost model)");
	for (size_t i = 0; i < WINDOW_COUNT; i++)
		printf(" %10s", quantile_share_pays(window_sizes[i], 3) ? "yes" : "no");
	printf("\n");
	return 0;
}
