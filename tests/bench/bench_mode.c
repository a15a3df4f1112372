/*
 * bench_mode: the mode window in nanoseconds per step (pop the oldest, push the
 * newest, read the result: one move() of one step of a full row window, the
 * agg_step_slide of tests/agg_steps.h), at windows 10, 1,000 and 100,000.
 *
 *   cc -std=c11 -D_GNU_SOURCE -O2 -Isrc -o /tmp/bench_mode tests/bench/bench_mode.c \
 *       src/agg_mode.c src/hashtable.c src/numparse.c src/ring.c src/mem.c -lm \
 *       && /tmp/bench_mode
 *
 * Two streams of 2 million IPv4-like texts, generated with a fixed seed:
 *
 *   zipf       ranks drawn log-uniformly from 1 to 2^20 (Zipf's law with exponent 1:
 *              a few addresses are very frequent, most are rare), each rank an address;
 *   dominant   one address in 90 % of the fields, the rest uniform over 2^24 others,
 *              the input that defeats "rescan when the mode's count drops".
 *
 * Each figure is the best of three runs over the whole stream after the window has
 * been filled.  Not part of the test suite: the figures belong in agg_mode.c's comment.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../agg_steps.h"
#include "agg.h"
#include "agg_mode.h"

enum { FIELD_COUNT = 2000000, RUNS = 3 };

/* The stream: fields one after another in text, field i at start[i], len[i] bytes. */
struct stream {
	const char *name;
	char *text;
	uint32_t *start;
	uint8_t *len;
};

/* xorshift64*, fixed seed: every run times the same fields. */
static uint64_t
random_next(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 0x2545F4914F6CDD1DULL;
}

/* Returns a uniform double in [0, 1). */
static double
random_unit(uint64_t *state)
{
	return (double)(random_next(state) >> 11) * 0x1p-53;
}

/*
 * Writes an address for n at text and returns its length.  n is scrambled first
 * (an odd multiplier is a bijection on 32 bits), so that frequent ranks do not all
 * share a prefix.
 */
static int
write_address(char *text, uint32_t n)
{
	n *= 2654435761u;
	return sprintf(text, "%u.%u.%u.%u", n >> 24, (n >> 16) & 255, (n >> 8) & 255, n & 255);
}

/* Fills s with FIELD_COUNT fields; dominant chooses the stream.  Exits on failure. */
static void
stream_make(struct stream *s, int dominant)
{
	uint64_t state = dominant ? 0xD0D0 : 0x21BF;
	uint32_t used = 0;

	s->name = dominant ? "dominant" : "zipf";
	s->text = malloc((size_t)FIELD_COUNT * 16);
	s->start = malloc((size_t)FIELD_COUNT * sizeof(*s->start));
	s->len = malloc((size_t)FIELD_COUNT);
	if (s->text == NULL || s->start == NULL || s->len == NULL) {
		fputs("bench_mode: out of memory\n", stderr);
		exit(3);
	}
	for (size_t i = 0; i < FIELD_COUNT; i++) {
		uint32_t n;

		if (dominant)
			n = random_next(&state) % 10 != 0 ? 0 :
			    1 + (uint32_t)(random_next(&state) % (1u << 24));
		else
			n = (uint32_t)exp(random_unit(&state) * log(1 << 20));
		s->start[i] = used;
		s->len[i] = (uint8_t)write_address(s->text + used, n);
		used += s->len[i];
	}
}

static double
now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* Returns the ns per step of one run over s with a window of window fields. */
static double
time_run(const struct stream *s, size_t window, size_t *checksum)
{
	struct agg_params params = { .min_count = 1, .hash_seed = 0x9E3779B97F4A7C15ULL };
	struct agg *agg = agg_mode.create(&agg_mode, &params);
	struct agg_value value = { .has_text = true };
	struct agg_result result;
	double start;

	if (agg == NULL) {
		fputs("bench_mode: out of memory\n", stderr);
		exit(3);
	}
	for (size_t i = 0; i < window; i++) {
		value.text = s->text + s->start[i];
		value.text_len = s->len[i];
		if (agg_step_push(agg, &value) != 0)
			exit(3);
	}
	start = now_ns();
	for (size_t i = window; i < FIELD_COUNT; i++) {
		value.text = s->text + s->start[i];
		value.text_len = s->len[i];
		if (agg_step_slide(agg, window, &value, &result) != 0)
			exit(3);
		*checksum += result.text_len;
	}
	start = (now_ns() - start) / (double)(FIELD_COUNT - window);
	agg_mode.destroy(agg);
	return start;
}

int
main(void)
{
	static const size_t windows[] = { 10, 1000, 100000 };
	struct stream streams[2];
	size_t checksum = 0;

	stream_make(&streams[0], 0);
	stream_make(&streams[1], 1);
	printf("%-10s %10s %10s %10s   (ns per step: pop + push + result)\n", "stream",
	    "w=10", "w=1000", "w=100000");
	for (size_t s = 0; s < 2; s++) {
		printf("%-10s", streams[s].name);
		for (size_t w = 0; w < 3; w++) {
			double best = 1e300;

			for (int run = 0; run < RUNS; run++) {
				double ns = time_run(&streams[s], windows[w], &checksum);

				if (ns < best)
					best = ns;
			}
			printf(" %10.1f", best);
		}
		printf("\n");
	}
	fprintf(stderr, "(checksum %zu)\n", checksum);
	return 0;
}
