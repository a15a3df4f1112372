/*
 * bench_minmax.c: min and max on the monotonic deque (agg_minmax.c) against the
 * two-stack (agg_monoid.c), on doubles, at windows of 10, 1,000 and 100,000 values.
 *
 * Build and run (nothing else needed):
 *
 *     cc -std=c11 -D_GNU_SOURCE -O2 -Isrc -o /tmp/bench_minmax tests/bench/bench_minmax.c \
 *         src/agg_minmax.c src/agg_monoid.c src/ring.c src/mem.c -lm && /tmp/bench_minmax
 *
 * A step is what a full row window does per record: a move() of one step (agg.h; the
 * agg_step_slide of tests/agg_steps.h) pops the oldest value, pushes the new one and
 * gives the result.  Three inputs, each from a fixed seed:
 * "random", uniform doubles (the common case: the deque holds a few values); "monotonic",
 * falling values for max (every value stays a candidate: the deque holds the whole
 * window); "sawtooth", runs that fall for a window's length and then jump above all of
 * them (a push then drops the whole deque at once: the deque's worst step).
 *
 * Times are the thread's CPU time.  Throughput is the best of three runs of at least
 * 0.2 s, in nanoseconds per step.  The worst step is the longest single step of a
 * million timed one by one after a warm-up of one window, so that each engine's worst
 * case (the two-stack's flip, the deque's big drop) comes round at least ten times at
 * window 100,000; of five such runs the smallest is reported, since on a virtual machine
 * the host may stop a thread now and then, and that counts as its CPU time.  In
 * microseconds; timing one step costs about 0.3 us of its own.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../agg_steps.h"
#include "agg.h"

#define VALUE_COUNT (1u << 21)
#define RUNS 3
#define MIN_RUN_SECONDS 0.2
#define TIMED_STEPS 1000000
#define WORST_RUNS 5

static const uint64_t window_sizes[] = { 10, 1000, 100000 };
#define WINDOW_COUNT (sizeof(window_sizes) / sizeof(window_sizes[0]))

static const struct {
	const char *name;
	const struct agg_kind *kind;
} engines[] = {
	{ "deque", &agg_max_deque },
	{ "two-stack", &agg_max_twostack },
};
#define ENGINE_COUNT (sizeof(engines) / sizeof(engines[0]))

enum input { RANDOM, MONOTONIC, SAWTOOTH, INPUT_COUNT };
static const char *const input_names[INPUT_COUNT] = { "random", "monotonic", "sawtooth" };

static struct agg_value values[VALUE_COUNT];
static volatile double sink; /* keeps the results alive */

/* splitmix64, with a fixed seed so that every run sees the same values. */
static uint64_t
next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15U);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9U;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBU;
	return z ^ (z >> 31);
}

/*
 * The CPU time of this thread: on a machine shared with other work, the time when this
 * process was not running stays out of the figures (a wall clock would report every
 * preemption as a worst step).
 */
static double
seconds_now(void)
{
	struct timespec now;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
	return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

static void
fail(const char *what)
{
	fprintf(stderr, "bench_minmax: %s\n", what);
	exit(1);
}

/* Fills values with the input for a window of w values. */
static void
make_input(enum input input, uint64_t w)
{
	uint64_t state = 42;

	for (uint64_t i = 0; i < VALUE_COUNT; i++) {
		double x;

		switch (input) {
		case RANDOM:
			x = (double)(next_random(&state) >> 11) * 0x1p-53;
			break;
		case MONOTONIC:
			x = -(double)i;
			break;
		default: /* SAWTOOTH: a falling run of w values, then the next starts higher */
			x = (double)(i / w) * (double)w * 2.0 - (double)(i % w);
			break;
		}
		values[i] = (struct agg_value){ .has_text = true, .has_number = true, .number = x };
	}
}

/* One step of a full window of w values: move it on by one and read the result. */
static inline void
step(struct agg *agg, uint64_t w, uint64_t i, struct agg_result *result)
{
	if (agg_step_slide(agg, w, &values[i % VALUE_COUNT], result) != 0)
		fail("out of memory");
	sink = result->number;
}

/* Nanoseconds per step of kind over a window of w values, the best of RUNS runs. */
static double
throughput(const struct agg_kind *kind, uint64_t w)
{
	struct agg_params params = { .min_count = 1 };
	struct agg_result result;
	double best = 0;

	for (int run = 0; run < RUNS; run++) {
		struct agg *agg = kind->create(kind, &params);
		uint64_t i = 0, steps = 0;
		double start, elapsed;

		if (agg == NULL)
			fail("out of memory");
		for (; i < w; i++)
			step(agg, w, i, &result);
		start = seconds_now();
		do {
			for (int k = 0; k < 4096; k++, i++, steps++)
				step(agg, w, i, &result);
			elapsed = seconds_now() - start;
		} while (elapsed < MIN_RUN_SECONDS);
		if (run == 0 || elapsed / (double)steps < best)
			best = elapsed / (double)steps;
		kind->destroy(agg);
	}
	return best * 1e9;
}

/*
 * The longest single step of kind over a window of w values, in microseconds: the
 * smallest such figure of WORST_RUNS runs.
 */
static double
worst_step(const struct agg_kind *kind, uint64_t w)
{
	struct agg_params params = { .min_count = 1 };
	struct agg_result result;
	double best = 0;

	for (int run = 0; run < WORST_RUNS; run++) {
		struct agg *agg = kind->create(kind, &params);
		double worst = 0;
		uint64_t i;

		if (agg == NULL)
			fail("out of memory");
		for (i = 0; i < w; i++)
			step(agg, w, i, &result);
		for (uint64_t k = 0; k < TIMED_STEPS; k++, i++) {
			double start = seconds_now(), took;

			step(agg, w, i, &result);
			took = seconds_now() - start;
			if (took > worst)
				worst = took;
		}
		kind->destroy(agg);
		if (run == 0 || worst < best)
			best = worst;
	}
	return best * 1e6;
}

int
main(void)
{
	printf("max over a full window: ns per step (best of %d runs), and the worst single "
	       "step in us\n\n", RUNS);
	printf("| %-9s | %-9s |", "input", "engine");
	for (size_t k = 0; k < WINDOW_COUNT; k++)
		printf(" w=%-7llu |", (unsigned long long)window_sizes[k]);
	printf(" worst step, w=%llu |\n", (unsigned long long)window_sizes[WINDOW_COUNT - 1]);
	printf("| :--- | :--- |");
	for (size_t k = 0; k < WINDOW_COUNT; k++)
		printf(" ---: |");
	printf(" ---: |\n");
	for (int input = 0; input < INPUT_COUNT; input++)
		for (size_t e = 0; e < ENGINE_COUNT; e++) {
			printf("| %-9s | %-9s |", input_names[input], engines[e].name);
			for (size_t k = 0; k < WINDOW_COUNT; k++) {
				make_input((enum input)input, window_sizes[k]);
				printf(" %9.1f |", throughput(engines[e].kind, window_sizes[k]));
			}
			printf(" %18.1f |\n", worst_step(engines[e].kind,
			    window_sizes[WINDOW_COUNT - 1]));
			fflush(stdout);
		}
	return 0;
}
