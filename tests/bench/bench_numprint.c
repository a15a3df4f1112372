/*
** bench_numprint.c: what format_number and format_fixed cost beside snprintf.
**
** Build and run (nothing else needed):
**
**     cc -std=c11 -D_GNU_SOURCE -O2 -Isrc -o /tmp/bench_numprint \
**         tests/bench/bench_numprint.c src/numprint.c src/timestamp.c && /tmp/bench_numprint
**
** It formats 5 million doubles, one million of each shape swag prints (integers such as
** counts and sums, averages with all 17 digits, values with two decimals, tiny values,
** huge values), and prints the nanoseconds per value of each printer, shape by shape and
** over the whole mix. "%.17g" is the C library's nearest rival to format_number: it
** round-trips too, though not in the shortest form.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "numprint.h"

#define VALUES_PER_SHAPE 1000000
#define SHAPE_COUNT 5

static const char *const shape_names[SHAPE_COUNT] = {
	"integers", "averages", "two decimals", "tiny", "huge",
};

/* splitmix64, with a fixed seed so that every run formats the same values. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15U);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9U;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBU;
	return z ^ (z >> 31);
}

/* A uniform double in [0, 1). */
static double next_unit(uint64_t *state)
{
	return (double)(next_random(state) >> 11) * 0x1p-53;
}

/* Fills values[0..VALUES_PER_SHAPE) with doubles of the given shape. */
static void make_values(int shape, double *values, uint64_t *state)
{
	for (int i = 0; i < VALUES_PER_SHAPE; i++) {
		double sign = (next_random(state) & 1) ? -1.0 : 1.0;
		double x;
		switch (shape) {
		case 0: /* counts, sums of integers: 0 .. 10^7 */
			x = (double)(next_random(state) % 10000000);
			break;
		case 1: /* a sum of latencies divided by a window size: 1234.56789... */
			x = (double)(next_random(state) % 100000000) /
			    (double)(1 + next_random(state) % 1000) / 7.0;
			break;
		case 2: /* prices: k / 100 */
			x = (double)(next_random(state) % 10000000) / 100.0;
			break;
		case 3: /* 1e-12 .. 1e-6 */
			x = next_unit(state) * 1e-6 * (next_random(state) % 2 ? 1 : 1e-6);
			break;
		default: /* 1e16 .. 1e300 */
			x = next_unit(state) * (next_random(state) % 2 ? 1e20 : 1e300) + 1e16;
			break;
		}
		values[i] = sign * x;
	}
}

static double seconds_now(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

/* The printers under test, in one shape so that one loop times them all. */
enum printer { FORMAT_NUMBER, SNPRINTF_17G, FORMAT_FIXED_2, SNPRINTF_2F, PRINTER_COUNT };
static const char *const printer_names[PRINTER_COUNT] = {
	"format_number", "snprintf %.17g", "format_fixed p=2", "snprintf %.2f",
};

/*
** Formats every value with the printer and returns the nanoseconds per value. The total
** length goes into *checksum so that the compiler cannot drop the work.
*/
static double time_printer(enum printer printer, const double *values, size_t count,
                           size_t *checksum)
{
	char buf[NUMPRINT_FIXED_MAX + 1];
	double start = seconds_now();
	size_t total = 0;
	for (size_t i = 0; i < count; i++) {
		switch (printer) {
		case FORMAT_NUMBER:
			total += format_number(values[i], buf);
			break;
		case SNPRINTF_17G:
			total += (size_t)snprintf(buf, sizeof buf, "%.17g", values[i]);
			break;
		case FORMAT_FIXED_2:
			total += format_fixed(values[i], 2, buf);
			break;
		default:
			total += (size_t)snprintf(buf, sizeof buf, "%.2f", values[i]);
			break;
		}
		total += (unsigned char)buf[0];
	}
	*checksum += total;
	return (seconds_now() - start) * 1e9 / (double)count;
}

int main(void)
{
	size_t count = (size_t)VALUES_PER_SHAPE * SHAPE_COUNT;
	double *values = malloc(count * sizeof *values);
	uint64_t state = 42;
	size_t checksum = 0;

	if (values == NULL) {
		fprintf(stderr, "bench_numprint: out of memory\n");
		return 1;
	}
	for (int shape = 0; shape < SHAPE_COUNT; shape++)
		make_values(shape, values + (size_t)shape * VALUES_PER_SHAPE, &state);

	printf("ns per value (%d values per shape)\n", VALUES_PER_SHAPE);
	printf("%-18s", "");
	for (int shape = 0; shape < SHAPE_COUNT; shape++)
		printf("%14s", shape_names[shape]);
	printf("%14s\n", "all (mixed)");
	for (int printer = 0; printer < PRINTER_COUNT; printer++) {
		printf("%-18s", printer_names[printer]);
		for (int shape = 0; shape < SHAPE_COUNT; shape++)
			printf("%14.1f",
			       time_printer((enum printer)printer,
			                    values + (size_t)shape * VALUES_PER_SHAPE,
			                    VALUES_PER_SHAPE, &checksum));
		printf("%14.1f\n", time_printer((enum printer)printer, values, count, &checksum));
	}
	printf("(checksum %zu)\n", checksum);
	free(values);
	return 0;
}
