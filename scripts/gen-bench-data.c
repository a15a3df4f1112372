/* gen-bench-data: the data that scripts/bench feeds to swag and its peers.
 *
 *   gen-bench-data [KIND] N [SEED]     write N records to standard output
 *
 * KIND is one of
 *   (none)       numbers, one per line;
 *   --ips        IPv4-like strings, one per line: a fifth of them from 16 busy clients,
 *                the rest from 65,536 addresses, each about equally often;
 *   --timed      "TIME LATENCY HOST" lines: epoch seconds with milliseconds, 100
 *                records a second, and one of 20 hosts (the first ones busier);
 *   --timed-iso  the same lines with the time in ISO 8601, UTC, with milliseconds
 *                (2023-11-14T22:13:20.000Z), as JSON-minded loggers write it;
 *   --timed-logging  the same with the date and the time in two fields and a comma
 *                before the milliseconds (2023-11-14 22:13:20,000), as Python's
 *                logging writes them;
 *   --timed-syslog   the same with a syslog date, in three fields and without the
 *                year or the milliseconds (Nov 14 22:13:20);
 *   --csv        the same records as CSV with a header, ts,host,latency,status,bytes
 *                (status mostly 200, bytes an integer);
 *   --new-keys   "ts key value" with a header, then records whose key is new every
 *                time (k1, k2, ...), 100 a second.
 *
 * The numbers look like request latencies in milliseconds: a log-normal body around
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
#include <string.h>
#include <time.h>

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

/* Writes one latency, without a line end: the shape of the plain numbers. */
static void put_latency(void)
{
	uint64_t pick = next64() % 1000; /* the shape of this record */
	double ms;
	if (pick < 930)
		ms = 45.0 * exp(0.5 * normal()); /* fast path */
	else if (pick < 985)
		ms = 250.0 * exp(0.7 * normal()); /* slow path */
	else if (pick < 990)
		ms = 1000.0 + 29000.0 * uniform(); /* outliers, up to 30 s */
	else if (pick < 993) {
		fputs(pick < 991 ? "0" : "30000", stdout); /* cache hit, timeout */
		return;
	} else {
		/* a whole number of milliseconds */
		printf("%.0f", floor(45.0 * exp(0.5 * normal())));
		return;
	}
	if (ms < 0.001)
		ms = 0.001;
	printf("%.3f", ms);
}

/* One of 20 hosts, the first ones busier (about 1/(k+2) weights). */
static unsigned pick_host(void)
{
	static const unsigned cumulative[20] = { 240, 400, 520, 616, 696, 764, 824, 876, 920,
	                                         950, 966, 976, 983, 988, 992, 995, 997, 998,
	                                         999, 1000 };
	uint64_t r = next64() % 1000;
	unsigned h = 0;
	while (r >= cumulative[h])
		h++;
	return h;
}

/* Record i's time: epoch seconds with milliseconds, 100 records a second. */
static void put_time(unsigned long long i)
{
	printf("%llu.%03llu", 1700000000ULL + i / 100, (i % 100) * 10);
}

/*
 * put_time's instant as a date and a time of day, UTC (gmtime), with separator between
 * them and point before the milliseconds; or, with separator 0, as a syslog date.
 */
static void put_time_civil(unsigned long long i, char separator, char point)
{
	static const char months[12][4] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul",
		"Aug", "Sep", "Oct", "Nov", "Dec" };
	time_t seconds = (time_t)(1700000000ULL + i / 100);
	struct tm *tm = gmtime(&seconds);

	if (separator == '\0') {
		printf("%s %2d %02d:%02d:%02d", months[tm->tm_mon], tm->tm_mday, tm->tm_hour,
		       tm->tm_min, tm->tm_sec);
		return;
	}
	printf("%04d-%02d-%02d%c%02d:%02d:%02d%c%03llu", tm->tm_year + 1900, tm->tm_mon + 1,
	       tm->tm_mday, separator, tm->tm_hour, tm->tm_min, tm->tm_sec, point, (i % 100) * 10);
}

int main(int argc, char **argv)
{
	const char *kind = "";
	if (argc > 1 && argv[1][0] == '-' && argv[1][1] == '-') {
		kind = argv[1] + 2;
		argc--;
		argv++;
	}
	if (argc < 2 || argc > 3 || (*kind && strcmp(kind, "ips") && strcmp(kind, "timed") &&
	                             strcmp(kind, "timed-iso") && strcmp(kind, "timed-logging") &&
	                             strcmp(kind, "timed-syslog") &&
	                             strcmp(kind, "csv") && strcmp(kind, "new-keys"))) {
		fputs("usage: gen-bench-data [--ips|--timed|--timed-iso|--timed-logging|"
		      "--timed-syslog|--csv|--new-keys] N [SEED]\n", stderr);
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

	if (strcmp(kind, "csv") == 0)
		puts("ts,host,latency,status,bytes");
	else if (strcmp(kind, "new-keys") == 0)
		puts("ts key value");
	for (unsigned long long i = 0; i < n; i++) {
		if (*kind == '\0') {
			put_latency();
		} else if (strcmp(kind, "ips") == 0) {
			uint64_t r = next64();
			if (r % 5 == 0)
				printf("192.168.0.%u", (unsigned)(r >> 8) % 16);
			else
				printf("10.%u.%u.%u", (unsigned)(r >> 8) % 4, (unsigned)(r >> 16) % 256,
				       (unsigned)(r >> 24) % 64);
		} else if (strncmp(kind, "timed", 5) == 0) {
			if (kind[5] == '\0')
				put_time(i);
			else if (strcmp(kind, "timed-iso") == 0)
				put_time_civil(i, 'T', '.'), putchar('Z');
			else if (strcmp(kind, "timed-syslog") == 0)
				put_time_civil(i, '\0', '\0');
			else
				put_time_civil(i, ' ', ',');
			putchar(' ');
			put_latency();
			printf(" web-%02u", pick_host());
		} else if (strcmp(kind, "csv") == 0) {
			uint64_t r;
			put_time(i);
			printf(",web-%02u,", pick_host());
			put_latency();
			r = next64() % 1000;
			printf(",%u,%u", r < 950 ? 200 : r < 980 ? 404 : r < 995 ? 500 : 503,
			       (unsigned)(next64() % 100000));
		} else {
			put_time(i);
			printf(" k%llu ", i + 1);
			put_latency();
		}
		putchar('\n');
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		perror("gen-bench-data: write error");
		return 1;
	}
	return 0;
}
