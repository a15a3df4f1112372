/* gen-bench-data: the numbers that scripts/bench feeds to swag and its peers.
 *
 *   gen-bench-data N [SEED]     write N numbers, one per line, to standard output
 *
 * The values look like request latencies in milliseconds: a log-normal body around
 * 45 ms, a slower log-normal mode around 250 ms, rare outliers up to 30 s, printed with
 * three decimals (`123.457`), and about one line in a hundred an integer (`87`, `0`,
 * `30000`), as a log that mixes two formats would have them.
 *
 * The generator is splitmix64 from a fixed seed, so the same N and SEED give the same
 * bytes on every machine (bar a last-bit difference of the C library's log or exp
 * landing exactly on a rounding tie of %.3f), and a shorter file is a prefix of a
 * longer one.  Built by scripts/bench into its cache directory; not part of swag.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t state;

static uint64_t next64(void)
{
	uint64_t z = (state += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* Uniform in (0, 1): never 0, so log() is safe. */
static double uniform(void)
{
	return ((double)(next64() >> 11) + 0.5) * 0x1p-53;
}

/* Standard normal, Box-Muller (one value per call, the other discarded: simpler, and
 * the output stays a pure function of the position in the stream). */
static double normal(void)
{
	double u = uniform(), v = uniform();
	return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fputs("usage: gen-bench-data N [SEED]\n", stderr);
		return 2;
	}
	char *end;
	errno = 0;
	unsigned long long n = strtoull(argv[1], &end, 10);
	if (errno || *end || end == argv[1]) {
		fprintf(stderr, "gen-bench-data: bad count: %s\n", argv[1]);
		return 2;
	}
	state = 42;
	if (argc == 3) {
		state = strtoull(argv[2], &end, 10);
		if (*end || end == argv[2]) {
			fprintf(stderr, "gen-bench-data: bad seed: %s\n", argv[2]);
			return 2;
		}
	}
	static char buf[1 << 16];
	setvbuf(stdout, buf, _IOFBF, sizeof buf);

	for (unsigned long long i = 0; i < n; i++) {
		uint64_t pick = next64() % 1000; /* the shape of this record */
		double ms;
		if (pick < 930)
			ms = 45.0 * exp(0.5 * normal()); /* fast path */
		else if (pick < 985)
			ms = 250.0 * exp(0.7 * normal()); /* slow path */
		else if (pick < 990)
			ms = 1000.0 + 29000.0 * uniform(); /* outliers, up to 30 s */
		else if (pick < 993) {
			fputs(pick < 991 ? "0\n" : "30000\n", stdout); /* cache hit, timeout */
			continue;
		} else {
			/* a whole number of milliseconds */
			printf("%.0f\n", floor(45.0 * exp(0.5 * normal())));
			continue;
		}
		if (ms < 0.001)
			ms = 0.001;
		printf("%.3f\n", ms);
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		perror("gen-bench-data: write error");
		return 1;
	}
	return 0;
}
