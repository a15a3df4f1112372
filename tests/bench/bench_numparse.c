/*
** bench_numparse: parse_number against fast_float's from_chars and strtod_l, in
** nanoseconds per number, after checking that they read every field alike.
**
**   c++ -std=c++17 -O2 -fno-exceptions -c -o /tmp/fastfloat_shim.o \
**       tests/bench/fastfloat_shim.cc &&
**   cc -std=c11 -D_GNU_SOURCE -O2 -Isrc -o /tmp/bench_numparse \
**       tests/bench/bench_numparse.c src/numparse.c /tmp/fastfloat_shim.o -lm &&
**   /tmp/bench_numparse [-n COUNT] [FILE...]
**
** fast_float is Debian's libfast-float-dev (scripts/install-deps bench installs it).
** It generates COUNT (5 million) fields of each of the shapes logs hold ("123", "0.25",
** "1234.5678", "-3e-5"), latencies with 3 decimals ("37.922", the shape of the numbers
** make bench feeds swag), 17-digit round-trip doubles ("0.30000000000000004", what swag
** prints and a pipeline of swags reads back) and the forms swag(1) reads beyond
** from_chars's (a leading '+', blanks around; "-inf", "NaN"); each FILE adds its numbers
** (the fields cut at blanks and commas that parse_number reads: make bench's numbers,
** timed lines and CSV, from scripts/gen-bench-data.c with seed 42, say). It first checks
** every field of those sets, of a set of fields that are hard to round, of random pieces
** of numbers ("+-1", "nan(9)", "\t.5 ") and of the grammar's edges: fastfloat_shim.cc's
** parser accepts exactly what parse_number accepts, and parse_number, the shim,
** from_chars alone (where it reads the field) and strtod_l give the same double, bit
** for bit; it prints the first mismatches and exits 1 if there are any. Then it times
** each parser over each set, best of 3 runs. Not part of the test suite.
**
** Instructions a field are the figures to go by on a shared machine: under callgrind
**   valgrind --tool=callgrind --toggle-collect=time_parser --dump-after=time_parser \
**       /tmp/bench_numparse -n 100000 FILE...
** writes one profile for each set and parser, in the order printed; its total divided
** by 3 x the set's fields is the parser's cost a field, about 25 of the loop's included.
**
** Figures (2026-12-01, 2-core AMD EPYC VM shared with two builds, gcc 12 -O2, fast_float
** 3.9.0; no mismatch on any set). Instructions a field, parse_number / shim / from_chars
** alone / strtod_l: log fields 106 / 232 / 200 / 648, latencies 83 / 238 / 206 / 838,
** 17-digit doubles 232 / 357 / 325 / 1176, swag's other forms 243 / 236 / 151 / 708,
** numbers.txt 83 / 237 / 205 / 833, csv.txt's numbers 88 / 241 / 209 / 675. Nanoseconds
** (noisy on the loaded machine): 20.2 / 49.5 / 48.9 / 171 a log field, 11.2 / 41.2 /
** 21.5 / 142 a latency, 24.1 / 35.1 / 31.7 / 195 a 17-digit double.
**
** Over a whole run (issue 15's test: take fast_float if within 5 %): a variant swag
** whose parse_number is the shim (every .c file of src compiled as the Makefile does,
** but numparse.c with -Dparse_number=parse_number_numparse, the fallback for the fields
** the shim refuses; fastfloat_shim.cc compiled as above with -DFASTFLOAT_SHIM_SWAG;
** linked with -lcsv -lxxhash -lz -lm) gives the same output and costs, in instructions a
** record (200,000 records, callgrind), 518.7 -> 689.6 (+32.9 %) for swag -w 1000 avg
** over make bench's numbers, 780.8 -> 923.0 (+18.2 %) over 17-digit doubles (awk's %.17g
** of rand() x 1e6; 9 in 10 have 17 digits), 659.7 -> 830.5 (+25.9 %) for -w 1000 avg:2
** over make bench's timed lines and 895.6 -> 1066.5 (+19.1 %) for -c -H -w 1000
** avg:latency over its CSV. from_chars alone, with no shim at all (swag's count less
** parse_number's, plus from_chars's), would still cost +21.4 %, +10.5 %, +16.8 % and
** +12.4 %. Wall time on 2,000,000 records (the machine loaded): +19 % and +11 %, medians
** of 31 paired runs' ratios (hyperfine's medians of 15, two runs: 264 -> 346 and 212 ->
** 278 ms, 355 -> 397 and 279 -> 294 ms). Not within 5 % on any input: numparse.c stays.
** The shim is ahead only on the forms from_chars lacks ("+1", " 1 ", "inf": 236 against
** 243), which parse_number reads off its word-at-a-time shortcut.
*/
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "numparse.h"

/* tests/bench/fastfloat_shim.cc: swag's number forms, and from_chars alone. */
bool fastfloat_parse(const char *s, size_t len, double *out);
bool fastfloat_from_chars(const char *s, size_t len, double *out);

enum { FIELD_COUNT = 5000000, RUNS = 3, FIELD_MAX = 128 };

/* The fields, NUL-terminated one after another, where each starts and its length. */
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

/*
** Writes a latency in one of the forms swag(1) reads (INPUT) and from_chars does not:
** a leading '+', blanks around; and the named values, which both read.
*/
static int write_swag_form_field(uint64_t *state, char *text)
{
	static const char *const named[] = {"inf", "-inf", "NaN", "Infinity", "-nan", "INF"};
	uint64_t r = random_next(state);
	unsigned whole = 10 + (unsigned)(r >> 8) % 90, frac = (unsigned)(r >> 24) % 1000;
	switch (r % 5) {
	case 0:
		return sprintf(text, "+%u.%03u", whole, frac);
	case 1:
		return sprintf(text, " %u.%03u", whole, frac);
	case 2:
		return sprintf(text, "%u.%03u\t", whole, frac);
	case 3:
		return sprintf(text, "  +%u.%03u  ", whole, frac);
	default:
		return sprintf(text, "%s", named[(r >> 40) % 6]);
	}
}

/*
** Writes a field that is hard to round (checked, not timed): 18 to 40 significant
** digits at any exponent, the decimal neighbourhood of a midpoint between two adjacent
** doubles (normal or subnormal), or a value near overflow or underflow.
*/
static int write_hard_field(uint64_t *state, char *text)
{
	uint64_t r = random_next(state);
	switch (r % 4) {
	case 0: { /* many digits */
		int digits = 18 + (int)((r >> 8) % 23), n = 0;
		text[n++] = (char)('1' + (r >> 16) % 9);
		text[n++] = '.';
		for (int i = 1; i < digits; i++)
			text[n++] = (char)('0' + random_next(state) % 10);
		return n + sprintf(text + n, "e%d", (int)(random_next(state) % 640) - 330);
	}
	case 1: { /* a midpoint, 60 digits of it */
		uint64_t bits = random_next(state) & 0x7fefffffffffffffU;
		double low, high;
		memcpy(&low, &bits, sizeof low);
		high = nextafter(low, INFINITY);
		return sprintf(text, "%.60Le", ((long double)low + (long double)high) / 2);
	}
	case 2: /* subnormals and the smallest normals */
		return sprintf(text, "%.17g", (double)(random_next(state) >> 11) * 0x1p-1074 * 0x1p-11);
	default: /* near DBL_MAX, above and below */
		return sprintf(text, "1.79769313486231%ue308", (unsigned)(random_next(state) % 100));
	}
}

/*
** Writes up to 8 pieces of numbers and of what is not one, at random: short strings
** that both parsers must accept or refuse alike ("+-1", "nan(1)", "1e", "\t.5 ").
*/
static int write_fuzz_field(uint64_t *state, char *text)
{
	static const char *const pieces[] = {
		" ", "\t", "+", "-", ".", "e", "E", "0", "1", "5", "9", "12", "nan", "NaN", "inf",
		"INF", "inity", "in", "(", ")", "_", "x", ",", "\n",
	};
	uint64_t r = random_next(state);
	int count = (int)(r % 9), len = 0;
	for (int i = 0; i < count; i++) {
		uint64_t pick = random_next(state) >> 20;
		if (pick % 40 == 0) {
			text[len++] = 0;
			continue;
		}
		len += sprintf(text + len, "%s", pieces[pick % (sizeof pieces / sizeof pieces[0])]);
	}
	return len;
}

static void out_of_memory(void)
{
	fprintf(stderr, "bench_numparse: out of memory\n");
	exit(3);
}

/* Makes count fields with write_field from seed. */
static FieldSet generate(int (*write_field)(uint64_t *, char *), uint64_t seed, size_t count)
{
	FieldSet set = {malloc(count * FIELD_MAX), malloc(count * sizeof(size_t)),
	                malloc(count * sizeof(size_t)), count};
	if (!set.text || !set.start || !set.len)
		out_of_memory();
	size_t used = 0;
	for (size_t i = 0; i < set.count; i++) {
		set.start[i] = used;
		set.len[i] = (size_t)write_field(&seed, set.text + used);
		used += set.len[i] + 1;
	}
	char *text = realloc(set.text, used);
	if (text)
		set.text = text;
	return set;
}


/* The fields that the grammar's edges are made of (swag(1), INPUT), checked only. */
static FieldSet edge_cases(void)
{
	static const struct {
		const char *text;
		size_t len;
	} cases[] = {
#define CASE(s) {s, sizeof s - 1}
		CASE(""), CASE(" "), CASE("\t"), CASE("+"), CASE("-"), CASE("."), CASE("+."), CASE("e5"),
		CASE("1e"), CASE("1e+"), CASE("1e-"), CASE("1E5"), CASE("1.e5"), CASE(".e5"),
		CASE("0x10"), CASE("0X1p3"), CASE("1,5"), CASE("1.5x"), CASE("1 2"), CASE("- 1"),
		CASE("+-1"), CASE("-+1"), CASE("--1"), CASE("++1"), CASE("+-nan"), CASE("+-inf"),
		CASE("\0"), CASE("1\0"), CASE("\0" "1"), CASE("1\0 "), CASE(" 1\0"), CASE("1.5\n"),
		CASE("nan"), CASE("NaN"), CASE("nAn"), CASE("-nan"), CASE("+nan"), CASE(" nan "),
		CASE("nan\t"), CASE("nan()"), CASE("nan(123)"), CASE("-nan(x_1)"), CASE("nan(1"),
		CASE("nanx"), CASE("na"), CASE("inf"), CASE("-INF"), CASE("+inf"), CASE("infinity"),
		CASE("-Infinity"), CASE("infinit"), CASE("infinityy"), CASE("in f"), CASE("-0"),
		CASE("+0"), CASE("-0.0e-5"), CASE("1."), CASE(".5"), CASE("+.5"), CASE("-.5e-3"),
		CASE("\t 1 \t"), CASE("  +1.5e3  "), CASE("1e400"), CASE("-1e400"), CASE("1e-400"),
		CASE("-1e-400"), CASE("4.9406564584124654e-324"), CASE("2.4703282292062327e-324"),
		CASE("2.4703282292062328e-324"), CASE("2.2250738585072011e-308"),
		CASE("2.2250738585072014e-308"), CASE("1.7976931348623157e308"),
		CASE("1.7976931348623158e308"), CASE("1.7976931348623159e308"),
		CASE("9007199254740993"), CASE("9007199254740993.000000000000000000001"),
		CASE("18446744073709551615"), CASE("18446744073709551616e-20"),
		CASE("0.000000000000000000000000000000000001"), CASE("1e99999999999999999999"),
		CASE("1e-99999999999999999999"), CASE("0e99999999999999999999"),
		CASE("00000000000000000000000000000.5"), CASE("0.30000000000000004"),
		CASE("123456789012345678901234567890"),
		CASE("1.00000000000000011102230246251565404236316680908203125"),
		CASE("1.00000000000000011102230246251565404236316680908203124"),
		CASE("1.00000000000000011102230246251565404236316680908203126"),
#undef CASE
	};
	size_t count = sizeof cases / sizeof cases[0], used = 0;
	FieldSet set = {malloc(count * FIELD_MAX), malloc(count * sizeof(size_t)),
	                malloc(count * sizeof(size_t)), count};
	if (!set.text || !set.start || !set.len)
		out_of_memory();
	for (size_t i = 0; i < count; i++) {
		set.start[i] = used;
		set.len[i] = cases[i].len;
		memcpy(set.text + used, cases[i].text, cases[i].len);
		set.text[used + cases[i].len] = 0;
		used += cases[i].len + 1;
	}
	return set;
}

/*
** Reads the numbers of a file: its lines cut at commas, blanks and TABs, the pieces
** parse_number reads (a CSV header's names and host names drop out).
*/
static FieldSet read_fields(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		exit(3);
	}
	size_t size = 0, room = 1 << 20;
	char *text = malloc(room);
	if (!text)
		out_of_memory();
	for (size_t n; (n = fread(text + size, 1, room - size, f)) > 0;) {
		size += n;
		if (size == room && !(text = realloc(text, room *= 2)))
			out_of_memory();
	}
	fclose(f);
	FieldSet set = {text, malloc((size / 2 + 1) * sizeof(size_t)),
	                malloc((size / 2 + 1) * sizeof(size_t)), 0};
	if (!set.start || !set.len)
		out_of_memory();
	for (size_t i = 0, begin = 0; i <= size; i++) {
		if (i < size && text[i] != ',' && text[i] != ' ' && text[i] != '\t' && text[i] != '\n')
			continue;
		double value;
		if (i > begin && parse_number(text + begin, i - begin, &value)) {
			set.start[set.count] = begin;
			set.len[set.count++] = i - begin;
		}
		if (i < size)
			text[i] = 0;
		begin = i + 1;
	}
	return set;
}

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* The parsers compared; FROM_CHARS is fast_float without the shim's swag forms. */
enum parser { PARSE_NUMBER, FASTFLOAT, FROM_CHARS, STRTOD_L, PARSER_COUNT };
static const char *const parser_names[PARSER_COUNT] = {
	"parse_number", "fast_float shim", "from_chars alone", "strtod_l",
};

/* Parses field with parser; false when it refuses the field. */
static inline bool parse_with(enum parser parser, const char *field, size_t len, locale_t c_locale,
                              double *value)
{
	switch (parser) {
	case PARSE_NUMBER:
		return parse_number(field, len, value);
	case FASTFLOAT:
		return fastfloat_parse(field, len, value);
	case FROM_CHARS:
		return fastfloat_from_chars(field, len, value);
	default:
		*value = strtod_l(field, NULL, c_locale);
		return true;
	}
}

/*
** Returns the best of RUNS timings of parser over the set, in ns per field. The sum of
** the results goes to *checksum so that the compiler cannot drop the work. Never
** inlined: callgrind counts each call apart (the top comment's --dump-after).
*/
__attribute__((noinline)) static double time_parser(const FieldSet *set, enum parser parser,
                                                    locale_t c_locale, double *checksum)
{
	double best = 1e300;
	for (int run = 0; run < RUNS; run++) {
		double sum = 0;
		double start = now_ns();
		for (size_t i = 0; i < set->count; i++) {
			double value = 0;
			if (!parse_with(parser, set->text + set->start[i], set->len[i], c_locale, &value))
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

/* Whether a and b are the same double, bit for bit. */
static bool same_bits(double a, double b)
{
	return memcmp(&a, &b, sizeof a) == 0;
}

/* Prints a field for a mismatch report, its bytes escaped. */
static void print_field(const char *field, size_t len)
{
	putchar('"');
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)field[i];
		if (c >= ' ' && c < 127 && c != '"' && c != '\\')
			putchar(c);
		else
			printf("\\x%02x", c);
	}
	putchar('"');
}

/*
** Checks every field of the set: the shim accepts exactly the fields parse_number
** accepts, and the two, from_chars alone (where it reads the field) and strtod_l give
** the same double, bit for bit, on each accepted field (strtod_l only on fields without
** a NUL: it stops at one). Prints the first mismatches and returns their number.
*/
static size_t check_set(const char *name, const FieldSet *set, locale_t c_locale)
{
	size_t mismatches = 0, accepted = 0, raw_refused = 0;
	for (size_t i = 0; i < set->count; i++) {
		const char *field = set->text + set->start[i];
		size_t len = set->len[i];
		double ours = 0, theirs = 0, raw = 0;
		bool ours_ok = parse_number(field, len, &ours);
		bool theirs_ok = fastfloat_parse(field, len, &theirs);
		bool raw_ok = fastfloat_from_chars(field, len, &raw);
		double libc = ours;
		if (ours_ok && strlen(field) == len)
			libc = strtod_l(field, NULL, c_locale);
		accepted += ours_ok;
		raw_refused += ours_ok && !raw_ok;
		bool bad = ours_ok != theirs_ok || (ours_ok && !same_bits(ours, theirs)) ||
		           !same_bits(ours, libc) || (ours_ok && raw_ok && !same_bits(ours, raw));
		if (!bad)
			continue;
		if (++mismatches <= 5) {
			printf("  MISMATCH in %s: ", name);
			print_field(field, len);
			printf(" parse_number %s %a, shim %s %a, from_chars %s %a, strtod_l %a\n",
			       ours_ok ? "reads" : "refuses", ours, theirs_ok ? "reads" : "refuses", theirs,
			       raw_ok ? "reads" : "refuses", raw, libc);
		}
	}
	printf("%s: %zu fields, %zu numbers, %zu mismatches (from_chars alone refuses %zu of "
	       "the numbers)\n", name, set->count, accepted, mismatches, raw_refused);
	return mismatches;
}

int main(int argc, char **argv)
{
	locale_t c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	if (!c_locale) {
		fprintf(stderr, "bench_numparse: newlocale failed\n");
		return 3;
	}
	size_t count = FIELD_COUNT;
	int first_file = 1;
	if (argc > 2 && strcmp(argv[1], "-n") == 0) {
		count = strtoul(argv[2], NULL, 10);
		first_file = 3;
	}
	if (count == 0 || count > FIELD_COUNT) {
		fprintf(stderr, "usage: bench_numparse [-n COUNT] [FILE...], COUNT 1 to %d\n", FIELD_COUNT);
		return 2;
	}
	struct {
		const char *name;
		FieldSet set;
	} sets[16] = {
		{"log fields (\"123\", \"0.25\", \"1234.5678\", \"-3e-5\")", generate(write_log_field, 1, count)},
		{"latencies (\"37.922\", \"106.854\")", generate(write_latency_field, 3, count)},
		{"17-digit round-trip doubles (\"0.30000000000000004\")", generate(write_round_trip_field, 2, count)},
		{"swag's other forms (\"+37.922\", \" 37.922\", \"-inf\")", generate(write_swag_form_field, 4, count)},
	};
	size_t timed = 4;
	for (int i = first_file; i < argc && timed < sizeof sets / sizeof sets[0]; i++) {
		sets[timed].name = argv[i];
		sets[timed++].set = read_fields(argv[i]);
	}
	FieldSet hard = generate(write_hard_field, 5, count / 5 + 1);
	FieldSet fuzz = generate(write_fuzz_field, 6, count);
	FieldSet edges = edge_cases();

	size_t mismatches = 0;
	for (size_t i = 0; i < timed; i++)
		mismatches += check_set(sets[i].name, &sets[i].set, c_locale);
	mismatches += check_set("hard to round (checked only)", &hard, c_locale);
	mismatches += check_set("pieces of numbers at random (checked only)", &fuzz, c_locale);
	mismatches += check_set("the grammar's edges (checked only)", &edges, c_locale);
	putchar('\n');

	double checksum = 0;
	for (size_t i = 0; i < timed; i++) {
		printf("%s, %zu fields:\n", sets[i].name, sets[i].set.count);
		double base = 0;
		for (int p = 0; p < PARSER_COUNT; p++) {
			double ns = time_parser(&sets[i].set, (enum parser)p, c_locale, &checksum);
			if (p == PARSE_NUMBER)
				base = ns;
			printf("  %-16s %6.1f ns/number (%+.0f %%)\n", parser_names[p], ns,
			       (ns / base - 1) * 100);
		}
	}
	printf("(checksum %g)\n", checksum);
	return mismatches ? 1 : 0;
}
