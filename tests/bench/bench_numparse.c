/*
** bench_numparse: parse_number against strtod_l, in nanoseconds per number.
**
**   cc -std=c11 -D_GNU_SOURCE -O2 -Isrc -o /tmp/bench_numparse \
**       tests/bench/bench_numparse.c src/numparse.c && /tmp/bench_numparse
**
** It generates ~5 million fields of the shapes logs hold ("123", "0.25", "1234.5678",
** "-3e-5"), as many latencies with 3 decimals ("37.922", the shape of the numbers make
** bench feeds swag), and as many 17-digit round-trip doubles ("0.30000000000000004", what
** swag prints and a pipeline of swags reads back), then times each parser over each set,
** best of a few runs. Not part of the test suite: the figures belong in numparse.c's
** comments and in the commit message.
*/
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "numparse.h"

enum { FIELD_COUNT = 5000000, RUNS = 3 };

/* The fields, NUL-terminated one after another, and where each starts. */
typedef struct {
	char *text;
	size_t *start;
	size_t *len;
	size_t count;
} FieldSet;

/* xorshift64*, fixed seed: every run times the same fields. */
static uint64_t random_next(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 0x2545F4914F6CDD1DU;
}

/* Writes one field of a typical log shape into text and returns its length. */
static int write_log_field(uint64_t *state, char *text)
{
	uint64_t r = random_next(state);
	unsigned value = (unsigned)(r >> 40);
	switch (r % 6) {
	case 0: /* a count or a status code */
		return sprintf(text, "%u", value % 100000);
	case 1: /* a ratio */
		return sprintf(text, "0.%02u", value % 100);
	case 2: /* a latency in milliseconds */
		return sprintf(text, "%u.%04u", value % 10000, (value >> 8) % 10000);
	case 3: /* a small value in scientific notation */
		return sprintf(text, "-%ue-%u", value % 10, 1 + (value >> 8) % 9);
	case 4: /* a byte count */
		return sprintf(text, "%u", value);
	default: /* a price */
		return sprintf(text, "%u.%02u", value % 1000, (value >> 12) % 100);
	}
}

/* Writes a latency of 10 to 999 ms with 3 decimals, 7 in 8 below 100 ms. */
static int write_latency_field(uint64_t *state, char *text)
{
	uint64_t r = random_next(state);
	unsigned whole = r % 8 == 0 ? 100 + (unsigned)(r >> 8) % 900 : 10 + (unsigned)(r >> 8) % 90;
	return sprintf(text, "%u.%03u", whole, (unsigned)(r >> 24) % 1000);
}

/* Writes a random double in [0, 1e6) with 17 significant digits. */
static int write_round_trip_field(uint64_t *state, char *text)
{
	double value = (double)(random_next(state) >> 11) / 9007199254740992.0 * 1e6;
	return sprintf(text, "%.17g", value);
}

static FieldSet generate(int (*write_field)(uint64_t *, char *), uint64_t seed)
{
	FieldSet set = {malloc((size_t)FIELD_COUNT * 32), malloc(FIELD_COUNT * sizeof(size_t)),
	                malloc(FIELD_COUNT * sizeof(size_t)), FIELD_COUNT};
	if (!set.text || !set.start || !set.len) {
		fprintf(stderr, "bench_numparse: out of memory\n");
		exit(3);
	}
	size_t used = 0;
	for (size_t i = 0; i < set.count; i++) {
		set.start[i] = used;
		set.len[i] = (size_t)write_field(&seed, set.text + used);
		used += set.len[i] + 1;
	}
	return set;
}

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/*
** Returns the best of RUNS timings of parse_number (or of strtod_l when use_strtod) over
** the set, in ns per field. The sum of the results goes to *checksum so that the compiler
** cannot drop the work.
*/
static double time_parser(const FieldSet *set, bool use_strtod, locale_t c_locale,
                          double *checksum)
{
	double best = 1e300;
	for (int run = 0; run < RUNS; run++) {
		double sum = 0;
		double start = now_ns();
		for (size_t i = 0; i < set->count; i++) {
			const char *field = set->text + set->start[i];
			double value = 0;
			if (use_strtod)
				value = strtod_l(field, NULL, c_locale);
			else if (!parse_number(field, set->len[i], &value))
				value = 0;
			sum += value;
		}
		double elapsed = (now_ns() - start) / (double)set->count;
		if (elapsed < best)
			best = elapsed;
		*checksum += sum;
	}
	return best;
}

int main(void)
{
	locale_t c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	if (!c_locale) {
		fprintf(stderr, "bench_numparse: newlocale failed\n");
		return 3;
	}
	struct {
		const char *name;
		FieldSet set;
	} sets[] = {
		{"log fields (\"123\", \"0.25\", \"1234.5678\", \"-3e-5\")", generate(write_log_field, 1)},
		{"latencies (\"37.922\", \"106.854\")", generate(write_latency_field, 3)},
		{"17-digit round-trip doubles (\"0.30000000000000004\")", generate(write_round_trip_field, 2)},
	};
	double checksum = 0;
	for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
		double ours = time_parser(&sets[i].set, false, c_locale, &checksum);
		double theirs = time_parser(&sets[i].set, true, c_locale, &checksum);
		printf("%s, %zu fields:\n  parse_number %6.1f ns/number\n  strtod_l     %6.1f ns/number\n",
		       sets[i].name, sets[i].set.count, ours, theirs);
	}
	printf("(checksum %g)\n", checksum);
	return 0;
}
