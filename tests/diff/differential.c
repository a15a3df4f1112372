/*
 * differential.c: swag against a naive recomputation of every window (issue 12).
 *
 * For each seed of a fixed list, the program generates a random input and a random
 * swag command line (row and time windows, groups, -s, -s DURATION's buckets, -a, -H,
 * blank-separated and delimited input with and without quotes, --no-quotes, -C, --na, -m, -p,
 * --null, -o, --strict stops...), runs the swag named by $SWAG on it (fork and exec, the input on standard
 * input from a file or through a pipe written in small pieces), and compares its
 * standard output, standard error and exit status with what man/swag.1 says.  The
 * expected output is computed the slow and obvious way: every record is kept, and
 * for every output record each aggregate is recomputed over exactly the records its
 * window holds, with no data structure beyond sorting, so it can be trusted where
 * the fast code cannot.
 *
 *   SWAG=./swag differential [--cases N] [--first SEED] [--seed SEED] [--keep DIR] [-v]
 *
 * --cases N (or DIFF_CASES=N): run the seeds FIRST .. FIRST+N-1 (default 1 .. 300).
 * --seed S: run seed S only.  --keep DIR: write each failing case (with --seed, the
 * case) to DIR/seed-S: input, cmd (runs $SWAG on input), expected (~ marks a value
 * compared as a number), expected-stderr, stdout, stderr.  -v: a line per case, the
 * time taken and how many cases had each feature.  Prints each failure with its
 * seed, command line and first difference, then "differential: N passed, M failed";
 * exits 1 on any failure, 2 on a usage or system error.
 *
 * Comparisons: count, distinct, mode, min, max, sums of integers, and percentiles
 * whose h is integral or whose neighbours are equal (the result a value of the
 * window: swag's h is exact) are compared as text, exactly as swag must print them
 * (OUTPUT: the shortest form that reads back, or printf %.Nf with -p).  avg, var,
 * stddev, sums of decimals and other percentiles are compared as numbers, within
 * 1e-12 of the window's largest magnitude (1e-11 of its square for var, and what
 * that allows stddev), since compensated sums, Chan's combine and the interpolation
 * may differ from exact arithmetic in the last bits; their text must still be the
 * shortest form of the number printed (or its %.Nf with -p).  Without --strict, each summary
 * line of bad input must give the right count and first line, and a column with
 * that problem on that line (the exact words are checked for "not numbers" and
 * "too few fields", which BAD INPUT quotes).  With --strict, the output must stop
 * before the first record with a problem, exit 1, and the one message must name
 * that record's line and a column with a problem.
 *
 * Where the man page does not say, this program assumes, as swag does:
 *   - distinct is never null, also under -m (AGGREGATES: "never null"; -m names
 *     only count as exempt);
 *   - a record without the -g column has the empty key, as an empty field does;
 *   - a record too short for the -t column and an aggregate's counts once as too
 *     short (BAD INPUT: a short record counts once), either column named;
 *   - when one record has several problems, any of their columns may be named.
 * Epoch milliseconds come with --epoch-unit=ms or, at least 1e11, without it (their
 * size tells the unit); a quarter of the cases with -t write times as ISO 8601 with a
 * zone instead.  It leaves out, on purpose: NaN and infinities (the unit tests cover
 * them), the other log formats of timestamps, --epoch-unit us and ns, distinct
 * beyond 2^P/8 values (HyperLogLog), malformed CSV and quotes left open, quotes inside unquoted fields,
 * lines of nothing but blanks in delimited input, quoted keys with blanks at either
 * end, columns past the header's end with -H, -o , with blank-separated input,
 * delimiters that numbers use, NUL bytes, UTF-16, usage errors, signals and
 * I/O errors (the tests/cli cases and tests/sh scripts cover those).
 *
 * Needs only libc and libm (POSIX: fork, exec, poll).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_FIELDS 8		/* columns of a generated table (a record may have 2 more) */
#define MAX_SPECS 6
#define MAX_ARGS 64
#define RUN_TIMEOUT_SECONDS 60

static void
die(const char *fmt, ...)
{
	va_list ap;

	fputs("differential: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

/* ---------------------------------------------------------------- memory */

/* Everything a case allocates comes from this arena, freed when the case ends. */
struct block {
	struct block *next;
	size_t used, cap;
	char *data;
};
static struct block *blocks;

static void *
amalloc(size_t n)
{
	void *p;

	n = (n + 15) & ~(size_t)15;
	if (blocks == NULL || blocks->cap - blocks->used < n) {
		size_t cap = n > (1u << 16) ? n : (1u << 16);
		struct block *b = malloc(sizeof(*b));

		if (b == NULL || (b->data = malloc(cap)) == NULL)
			die("out of memory");
		b->next = blocks;
		b->used = 0;
		b->cap = cap;
		blocks = b;
	}
	p = blocks->data + blocks->used;
	blocks->used += n;
	memset(p, 0, n);
	return p;
}

static void
arena_free(void)
{
	while (blocks != NULL) {
		struct block *next = blocks->next;

		free(blocks->data);
		free(blocks);
		blocks = next;
	}
}

static char *
astrndup(const char *s, size_t n)
{
	char *p = amalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

static char *
astrdup(const char *s)
{
	return astrndup(s, strlen(s));
}

static char *
aprintf(const char *fmt, ...)
{
	va_list ap;
	int n;
	char *p;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	p = amalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

/* A growing byte string (malloc'd: it may outlive a case's arena). */
struct buf {
	char *p;
	size_t len, cap;
};

static void
buf_add(struct buf *b, const void *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;

		while (cap < b->len + n + 1)
			cap *= 2;
		if ((b->p = realloc(b->p, cap)) == NULL)
			die("out of memory");
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void
buf_puts(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

static void
buf_putc(struct buf *b, char c)
{
	buf_add(b, &c, 1);
}

static void
buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	char small[256];
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if ((size_t)n < sizeof(small)) {
		buf_add(b, small, (size_t)n);
		return;
	}
	{
		char *big = malloc((size_t)n + 1);

		if (big == NULL)
			die("out of memory");
		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		buf_add(b, big, (size_t)n);
		free(big);
	}
}

static void
buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->p != NULL)
		b->p[0] = '\0';
}

/* Appends text with its unprintable bytes escaped, for messages (cut after 600 bytes). */
static void
buf_escaped(struct buf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (i == 600) {
			buf_printf(b, "...(%zu bytes)", n);
			break;
		}
		unsigned char ch = (unsigned char)s[i];

		if (ch == '\t')
			buf_puts(b, "\\t");
		else if (ch == '\r')
			buf_puts(b, "\\r");
		else if (ch == '\n')
			buf_puts(b, "\\n");
		else if (ch == '\\')
			buf_puts(b, "\\\\");
		else if (ch < 0x20 || ch == 0x7f)
			buf_printf(b, "\\x%02x", ch);
		else
			buf_putc(b, (char)ch);
	}
}

/* ---------------------------------------------------------------- random numbers */

/* splitmix64: the same sequence on every machine, unlike rand(). */
static uint64_t rng_state;

static uint64_t
next64(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t
below(uint64_t n)
{
	return n == 0 ? 0 : next64() % n;
}

static long long
range(long long lo, long long hi)
{
	return lo + (long long)below((uint64_t)(hi - lo + 1));
}

static double
unif(void)
{
	return (double)(next64() >> 11) * 0x1.0p-53;
}

static bool
chance(double p)
{
	return unif() < p;
}

#define PICK(array) ((array)[below(sizeof(array) / sizeof((array)[0]))])

/* ---------------------------------------------------------------- numbers as the man page reads them */

static bool
is_blank(char ch)
{
	return ch == ' ' || ch == '\t';
}

static bool
is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

static bool
word_is(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && strncasecmp(s, word, n) == 0;
}

/*
 * INPUT: "an optional sign, digits with an optional decimal point, an optional
 * exponent (1, -2.5, .5, 1e-3), or nan, inf, infinity in any case".
 */
static bool
is_number(const char *s, size_t n)
{
	size_t i = 0, digits = 0;

	if (i < n && (s[i] == '+' || s[i] == '-'))
		i++;
	if (word_is(s + i, n - i, "nan") || word_is(s + i, n - i, "inf") ||
	    word_is(s + i, n - i, "infinity"))
		return true;
	for (; i < n && is_digit(s[i]); i++)
		digits++;
	if (i < n && s[i] == '.')
		for (i++; i < n && is_digit(s[i]); i++)
			digits++;
	if (digits == 0)
		return false;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		size_t exponent_digits = 0;

		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		for (; i < n && is_digit(s[i]); i++)
			exponent_digits++;
		if (exponent_digits == 0)
			return false;
	}
	return i == n;
}

/* The decimal number text times 100, when that is an integer below 2^62. */
static bool
scaled100(const char *s, size_t n, long long *out)
{
	size_t i = 0;
	bool negative = false;
	unsigned long long m = 0;
	int fraction_digits = 0, exponent = 0, p;

	if (i < n && (s[i] == '+' || s[i] == '-'))
		negative = s[i++] == '-';
	for (; i < n && is_digit(s[i]); i++) {
		if (m > 100000000000000000ull)
			return false;
		m = m * 10 + (unsigned)(s[i] - '0');
	}
	if (i < n && s[i] == '.')
		for (i++; i < n && is_digit(s[i]); i++) {
			if (m > 100000000000000000ull)
				return false;
			m = m * 10 + (unsigned)(s[i] - '0');
			fraction_digits++;
		}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		int sign = 1, e = 0, digits = 0;

		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			sign = s[i++] == '-' ? -1 : 1;
		for (; i < n && is_digit(s[i]); i++) {
			if (++digits > 4)
				return false;
			e = e * 10 + (s[i] - '0');
		}
		exponent = sign * e;
	}
	if (i != n)
		return false;
	for (p = exponent - fraction_digits + 2; p > 0; p--) {
		if (m > (1ull << 62) / 10)
			return false;
		m *= 10;
	}
	for (; p < 0; p++) {
		if (m % 10 != 0)
			return false;
		m /= 10;
	}
	if (m > (1ull << 62))
		return false;
	*out = negative ? -(long long)m : (long long)m;
	return true;
}

/*
 * OUTPUT: "the shortest form that reads back to the same double: integral values
 * below 2^53 in magnitude as plain integers (-0 as 0), other values in plain decimal
 * notation when 1e-5 <= |x| < 1e16, otherwise with an exponent of at least two
 * digits".  The shortest digits are the first precision of printf's correctly
 * rounded %e that reads back.
 */
static void
format_shortest(double x, char *out)
{
	char tmp[48], digits[24];
	int nd = 0, e, precision;
	const char *s;
	char *o = out;
	double a = fabs(x);

	if (isnan(x)) {
		strcpy(out, "nan");
		return;
	}
	if (isinf(x)) {
		strcpy(out, x < 0 ? "-inf" : "inf");
		return;
	}
	if (x == 0) {
		strcpy(out, "0");
		return;
	}
	if (x == trunc(x) && a < 0x1p53) {
		sprintf(out, "%.0f", x);
		return;
	}
	for (precision = 1; precision <= 17; precision++) {
		snprintf(tmp, sizeof(tmp), "%.*e", precision - 1, x);
		if (strtod(tmp, NULL) == x)
			break;
	}
	s = tmp;
	if (*s == '-') {
		*o++ = '-';
		s++;
	}
	for (; *s != 'e'; s++)
		if (is_digit(*s))
			digits[nd++] = *s;
	e = atoi(s + 1);
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	if (a >= 1e-5 && a < 1e16) {
		if (e >= 0) {
			for (int k = 0; k <= e; k++)
				*o++ = k < nd ? digits[k] : '0';
			if (nd > e + 1) {
				*o++ = '.';
				for (int k = e + 1; k < nd; k++)
					*o++ = digits[k];
			}
		} else {
			*o++ = '0';
			*o++ = '.';
			for (int k = 0; k < -e - 1; k++)
				*o++ = '0';
			for (int k = 0; k < nd; k++)
				*o++ = digits[k];
		}
		*o = '\0';
	} else {
		*o++ = digits[0];
		if (nd > 1) {
			*o++ = '.';
			for (int k = 1; k < nd; k++)
				*o++ = digits[k];
		}
		sprintf(o, "e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
	}
}

/* -p N: "as printf %.Nf does, except ... a result that rounds to -0 prints without its sign". */
static void
format_fixed(double x, int precision, char *out, size_t size)
{
	bool zero = true;

	snprintf(out, size, "%.*f", precision, x);
	if (out[0] != '-')
		return;
	for (const char *s = out + 1; *s != '\0'; s++)
		if (is_digit(*s) && *s != '0')
			zero = false;
	if (zero)
		memmove(out, out + 1, strlen(out));
}

/* ---------------------------------------------------------------- a test case */

enum kind { K_NUM, K_TEXT, K_TIME, K_KEY };
enum agg { A_SUM, A_AVG, A_COUNT, A_MIN, A_MAX, A_VAR, A_STDDEV, A_PCT, A_MODE, A_DISTINCT,
	A_FIRST, A_LAST, A_DELTA, A_RATE, A_EWMA };
static const bool agg_numeric[A_EWMA + 1] = {
	[A_SUM] = true, [A_AVG] = true, [A_MIN] = true, [A_MAX] = true, [A_VAR] = true,
	[A_STDDEV] = true, [A_PCT] = true, [A_FIRST] = true, [A_LAST] = true, [A_DELTA] = true,
	[A_RATE] = true, [A_EWMA] = true,
};

struct window {
	bool is_time;
	uint64_t rows;
	int64_t nanos;
	const char *text;
};

struct spec {
	enum agg agg;
	const char *name;	/* the aggregate as written: avg or mean, median or p50... */
	int pct10;		/* pN: N times 10 */
	int column;
	const char *arg;	/* the whole spec as given to swag */
	bool has_window;	/* @WINDOW written */
	struct window window;
};

struct record {
	uint64_t line;		/* the physical line where it starts */
	int nf;
	const char **f;		/* the fields as the reader gives them (CSV: unquoted) */
	const char *raw;	/* blank-separated: the line as it came, without its line end */
};

enum line_type { L_RECORD, L_HEADER, L_COMMENT, L_SKIPPED_BLANK };

struct tcase {
	uint64_t seed;
	bool plain;		/* the shape of swag's batched row loop */
	bool delimited;
	bool no_quotes;		/* --no-quotes: no field is quoted, in or out */
	char in_delim, out_delim;
	bool header, append, comments, strict, quiet, crlf, final_newline, bom, pipe_feed;
	int nf;
	enum kind kind[MAX_FIELDS];
	const char *name[MAX_FIELDS];
	int time_col, group_col;	/* 0: none */
	bool epoch_ms;
	bool epoch_ms_by_size;	/* milliseconds without --epoch-unit: told by their size */
	bool iso_time;		/* ISO 8601 times with a zone, not epochs */
	int iso_zone;		/* their usual zone, minutes east of UTC */
	int iso_fraction;	/* their usual fraction: an iso_text style */
	int64_t bucket;		/* -s DURATION in nanoseconds, or 0 */
	uint64_t step, min_count;
	int precision;		/* -1: shortest */
	const char *null_text;
	bool blank_out;		/* blanks separate the output, the input is not TSV */
	const char *na[4];
	int nna;
	struct spec spec[MAX_SPECS];
	int nspecs;
	bool has_default_window;
	struct window default_window;
	int hll_bits;		/* 0: the default */
	const char *argv[MAX_ARGS];
	int argc;
	double dirt;
	struct buf input;
	struct record *header_rec;
	struct record *rec;
	size_t nrec, rec_cap;
	size_t lines;
};

static const char *
blanks(void)
{
	static const char *const runs[] = { " ", " ", " ", "  ", "\t", " \t", "\t ", "   ", "\t\t" };

	return PICK(runs);
}

static char *
decimal_text(long long scaled, int decimals)
{
	long long a = scaled < 0 ? -scaled : scaled;

	if (decimals == 1)
		return aprintf("%s%lld.%lld", scaled < 0 ? "-" : "", a / 100, a % 100 / 10);
	return aprintf("%s%lld.%02lld", scaled < 0 ? "-" : "", a / 100, a % 100);
}

/* A field that is a number, in the forms people write (mostly small integers). */
static const char *
gen_number(void)
{
	static const char *const odd[] = {
		"+3", "007", ".5", "-.25", "1e2", "-0", "2.50", "1.5e1", "3E0", "-2e-1", "0.10",
		"1", "1.0", "01", "2", "10", "1e-2", "-7.", "+.5",
	};
	double r = unif();

	if (r < 0.50)
		return aprintf("%lld", range(-20, 20));
	if (r < 0.63)
		return aprintf("%lld", range(-1000, 1000));
	if (r < 0.80) {
		int decimals = chance(0.5) ? 1 : 2;
		long long k = range(-10000, 10000);

		if (decimals == 1)
			k -= k % 10;
		return decimal_text(k, decimals);
	}
	if (r < 0.84)
		return aprintf("%lld", range(-1000000000, 1000000000));
	if (r < 0.92)
		return astrdup(PICK(odd));
	return aprintf("%lld", range(0, 4));
}

/*
 * Whether text s can be a field: with --no-quotes, nothing can quote it, so it holds no
 * delimiter (in or out: a text result is found by the output delimiter), no line end
 * and no blanks at either end (they are trimmed).
 */
static bool
text_fits(const struct tcase *c, const char *s)
{
	size_t n = strlen(s);

	if (!c->no_quotes)
		return true;
	if (n > 0 && (is_blank(s[0]) || is_blank(s[n - 1])))
		return false;
	return strchr(s, c->in_delim) == NULL && strchr(s, c->out_delim) == NULL &&
	    strpbrk(s, "\n\r") == NULL;
}

/* A field that is not a number (nor a timestamp, nor a comment, nor an --na text). */
static const char *
gen_not_number(const struct tcase *c)
{
	static const char *const words[] = {
		"x", "abc", "0x10", "1.5x", "--", "e5", "1..2", "hello", "N/A", "1,5", "12ab",
		"1.2.3", "+", "bad",
	};
	const char *w;

	do
		w = PICK(words);
	while ((!c->delimited && strchr(w, ',') != NULL && c->out_delim == ',') ||
	    !text_fits(c, w));
	return astrdup(w);
}

static const char *
gen_text(const struct tcase *c)
{
	static const char *const plain[] = {
		"a", "b", "c", "web1", "web2", "x", "1", "1.0", "01", "2", "10", "-3", "abc",
		"b2", "Z", "zz", "a", "b", "1",
	};
	static const char *const quoted[] = {
		"a b", "x,y", "say \"hi\"", "semi;colon", "pipe|x", " pad", "pad2 ", "tab\tin",
		"\"", ",", "a;b|c,d",
	};

	if (c->delimited && chance(0.15)) {
		const char *t;

		if (!c->crlf && !c->no_quotes && chance(0.1))
			return astrdup(chance(0.5) ? "two\nlines" : "x\n# not a comment");
		do
			t = PICK(quoted);
		while (!text_fits(c, t));
		return astrdup(t);
	}
	return astrdup(PICK(plain));
}

static const char *
gen_key(const struct tcase *c)
{
	static const char *const keys[] = { "k1", "k2", "k3", "web1", "a", "1", "01", "k1", "k2" };
	static const char *const delimited_keys[] = { "a,b", "k 1", "x;y", "\"q\"" };

	if (c->delimited && chance(0.06)) {
		const char *k = PICK(delimited_keys);

		if (text_fits(c, k))
			return astrdup(k);
	}
	if (c->delimited && chance(0.02))
		return astrdup("");
	return astrdup(PICK(keys));
}

/*
 * ms as ISO 8601 with a zone, the case's usual zone and fraction but now and then
 * another, as logs write them: the fraction as milliseconds when there are some, always,
 * in micro- or nanoseconds, or without its trailing zeros, after "." or now and then ","
 * (but in delimited input, where it could be the delimiter);
 * the zone Z, or hh:mm, hhmm or hh east or west (TIMESTAMPS).  A zone in the field
 * keeps a next field from joining the timestamp.
 */
static const char *
iso_text(const struct tcase *c, int64_t ms)
{
	static const int zones[] = { 0, 60, -300, 330, 345, -570, 840, -720 };
	int zone = chance(0.8) ? c->iso_zone : PICK(zones);
	int style = chance(0.8) ? c->iso_fraction : (int)below(5);
	long long f = ms % 1000;
	time_t local = (time_t)(ms / 1000) + zone * 60;
	char fraction[16] = "", zone_text[16] = "Z", separator = !c->delimited && chance(0.05) ? ',' : '.';
	struct tm tm;

	gmtime_r(&local, &tm);
	if (style == 0 && f != 0)
		snprintf(fraction, sizeof(fraction), "%c%03lld", separator, f);
	else if (style == 1)
		snprintf(fraction, sizeof(fraction), "%c%03lld", separator, f);
	else if (style == 2)
		snprintf(fraction, sizeof(fraction), "%c%06lld", separator, f * 1000);
	else if (style == 3)
		snprintf(fraction, sizeof(fraction), "%c%09lld", separator, f * 1000000);
	else if (style == 4 && f != 0)
		snprintf(fraction, sizeof(fraction), "%c%0*lld", separator,
		    f % 100 == 0 ? 1 : f % 10 == 0 ? 2 : 3,
		    f % 100 == 0 ? f / 100 : f % 10 == 0 ? f / 10 : f);
	if (zone != 0 || chance(0.1)) {
		int a = zone < 0 ? -zone : zone;

		if (a % 60 == 0 && chance(0.3))
			snprintf(zone_text, sizeof(zone_text), "%c%02d", zone < 0 ? '-' : '+', a / 60);
		else
			snprintf(zone_text, sizeof(zone_text), chance(0.5) ? "%c%02d:%02d" :
			    "%c%02d%02d", zone < 0 ? '-' : '+', a / 60, a % 60);
	}
	return aprintf("%04d-%02d-%02d%c%02d:%02d:%02d%s%s", tm.tm_year + 1900, tm.tm_mon + 1,
	    tm.tm_mday, chance(0.95) ? 'T' : 't', tm.tm_hour, tm.tm_min, tm.tm_sec, fraction,
	    zone_text);
}

static const char *
time_text(const struct tcase *c, int64_t ms)
{
	long long s = ms / 1000, f = ms % 1000;

	if (c->iso_time)
		return iso_text(c, ms);
	if (c->epoch_ms)
		return aprintf("%lld", (long long)ms);
	if (f == 0)
		return chance(0.1) ? aprintf("%lld.0", s) : aprintf("%lld", s);
	if (chance(0.2))
		return aprintf("%lld.%03lld", s, f);
	if (f % 100 == 0)
		return aprintf("%lld.%lld", s, f / 100);
	if (f % 10 == 0)
		return aprintf("%lld.%02lld", s, f / 10);
	return aprintf("%lld.%03lld", s, f);
}

/* A field that is missing: an --na text, or (delimited input) the empty field. */
static const char *
gen_missing(const struct tcase *c)
{
	if (c->nna > 0 && (!c->delimited || chance(0.5)))
		return c->na[below((uint64_t)c->nna)];
	if (c->delimited)
		return "";
	return NULL;
}

/* A big input takes windows of at most 100 rows or 30 s: its naive recomputation stays fast. */
static bool small_windows;

static struct window
row_window(void)
{
	static const uint64_t sizes[] = {
		1, 2, 3, 4, 5, 5, 7, 10, 10, 16, 25, 50, 64, 100, 1000, 1000000,
	};
	struct window w = { 0 };

	/* WINDOWS: all, a cumulative window, is a row window longer than any input. */
	if (!small_windows && chance(0.05)) {
		w.rows = UINT64_MAX;
		w.text = "all";
		return w;
	}
	do
		w.rows = PICK(sizes);
	while (small_windows && w.rows > 100);
	w.text = aprintf("%llu", (unsigned long long)w.rows);
	return w;
}

static struct window
time_window(void)
{
	static const struct {
		const char *text;
		int64_t nanos;
	} durations[] = {
		{ "1s", 1000000000 }, { "2s", 2000000000 }, { "5s", 5000000000 },
		{ "10s", 10000000000 }, { "30s", 30000000000 }, { "1m", 60000000000 },
		{ "1.5m", 90000000000 }, { "500ms", 500000000 }, { "2500ms", 2500000000 },
		{ "250ms", 250000000 }, { "0.5s", 500000000 }, { "1h", 3600000000000 },
		{ "3s", 3000000000 }, { "4s", 4000000000 },
	};
	struct window w = { 0 };
	size_t i;

	do
		i = below(sizeof(durations) / sizeof(durations[0]));
	while (small_windows && durations[i].nanos > 30000000000);

	w.is_time = true;
	w.nanos = durations[i].nanos;
	w.text = durations[i].text;
	return w;
}

static void
add_arg(struct tcase *c, const char *arg)
{
	if (c->argc + 1 >= MAX_ARGS)
		die("too many arguments");
	c->argv[c->argc++] = arg;
	c->argv[c->argc] = NULL;
}

/* The spec's column as written: a number, a header name, or nothing for column 1. */
static const char *
column_text(struct tcase *c, int column)
{
	if (c->header && column <= c->nf && chance(0.5))
		return c->name[column - 1];
	if (column == 1 && chance(0.3))
		return NULL;
	return aprintf("%d", column);
}

static int
pick_column(struct tcase *c, enum kind prefer, double p)
{
	int candidates[MAX_FIELDS], n = 0;

	if (!c->header && chance(c->strict ? 0.005 : 0.03))
		return c->nf + (int)range(1, 2);	/* past every record's end */
	for (int k = 0; k < c->nf; k++)
		if (c->kind[k] == prefer)
			candidates[n++] = k + 1;
	if (n > 0 && chance(p))
		return candidates[below((uint64_t)n)];
	return (int)range(1, c->nf);
}

static void
gen_spec(struct tcase *c, struct spec *s)
{
	static const struct {
		const char *name;
		enum agg agg;
		int pct10;
	} aggs[] = {
		{ "sum", A_SUM, 0 }, { "avg", A_AVG, 0 }, { "count", A_COUNT, 0 },
		{ "min", A_MIN, 0 }, { "max", A_MAX, 0 }, { "var", A_VAR, 0 },
		{ "stddev", A_STDDEV, 0 }, { "median", A_PCT, 500 }, { "mode", A_MODE, 0 },
		{ "distinct", A_DISTINCT, 0 }, { "p", A_PCT, -1 }, { "p", A_PCT, -1 },
		{ "sum", A_SUM, 0 }, { "mean", A_AVG, 0 }, { "mode", A_MODE, 0 },
		{ "first", A_FIRST, 0 }, { "last", A_LAST, 0 }, { "delta", A_DELTA, 0 },
		{ "rate", A_RATE, 0 }, { "ewma", A_EWMA, 0 },
	};
	static const int pcts[] = { 0, 100, 250, 333, 500, 750, 900, 990, 999, 1000, 10 };
	size_t i;
	const char *col;
	struct buf arg = { 0 };

	do	/* rate needs -t */
		i = below(sizeof(aggs) / sizeof(aggs[0]));
	while (aggs[i].agg == A_RATE && !c->time_col);

	s->agg = aggs[i].agg;
	s->name = aggs[i].name;
	s->pct10 = aggs[i].pct10;
	if (s->pct10 < 0) {
		s->pct10 = PICK(pcts);
		s->name = s->pct10 % 10 ? aprintf("p%d.%d", s->pct10 / 10, s->pct10 % 10) :
		    aprintf("p%d", s->pct10 / 10);
	}
	if (agg_numeric[s->agg])
		s->column = pick_column(c, K_NUM, c->strict ? 0.95 : 0.75);
	else
		s->column = pick_column(c, K_TEXT, 0.5);
	col = column_text(c, s->column);
	s->has_window = !c->has_default_window || chance(0.3);
	/* ewma needs a span or a half-life: ewma@all is a usage error. */
	if (s->agg == A_EWMA && c->default_window.rows == UINT64_MAX)
		s->has_window = true;
	if (s->has_window)
		do
			s->window = c->time_col && chance(0.6) ? time_window() : row_window();
		while (s->agg == A_EWMA && s->window.rows == UINT64_MAX);
	else
		s->window = c->default_window;
	buf_puts(&arg, s->name);
	if (col != NULL) {
		buf_putc(&arg, ':');
		buf_puts(&arg, col);
	}
	if (s->has_window) {
		buf_putc(&arg, '@');
		buf_puts(&arg, s->window.text);
	}
	s->arg = astrdup(arg.p);
	free(arg.p);
}

static const char *
delimiter_arg(char d)
{
	if (d == '\t') {
		static const char *const tabs[] = { "tab", "\\t", "\t" };

		return PICK(tabs);
	}
	return aprintf("%c", d);
}

/* Chooses the options, the table's columns and the specs, and builds argv. */
/*
 * -s DURATION (swag(1), BUCKETS) is drawn from a generator of its own, seeded by the
 * case's seed, so that every other case stays the one its seed always gave.
 */
static uint64_t bucket_rng;

static uint64_t
bucket_below(uint64_t n)
{
	uint64_t z = (bucket_rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (z ^ (z >> 31)) % n;
}

/*
 * Makes about a third of the cases with a timestamp (and without -a or -s N) bucket
 * cases: -s DURATION in front of the options, and sometimes no -w, so that the specs
 * without a window take the bucket's duration.  The buckets are long enough that no
 * time window spans more than 60 of them (20 in a big input), which keeps the output
 * small.
 */
static void
gen_bucket(struct tcase *c)
{
	static const struct {
		const char *text;
		int64_t nanos;
	} spans[] = {
		{ "250ms", 250000000 }, { "1s", 1000000000 }, { "2s", 2000000000 },
		{ "5s", 5000000000 }, { "10s", 10000000000 }, { "1m", 60000000000 },
		{ "90s", 90000000000 }, { "1h", 3600000000000 }, { "1d", 86400000000000 },
		{ "7d", 604800000000000 }, { "1.5s", 1500000000 }, { "2m", 120000000000 },
	};
	int64_t longest = 0, ratio = small_windows ? 20 : 60;
	size_t i;

	bucket_rng = c->seed * 0xd6e8feb86659fd93ull + 1;
	if (!c->time_col || c->append || c->step > 1 || bucket_below(100) >= 35)
		return;
	for (int k = 0; k < c->nspecs; k++)
		if (c->spec[k].window.is_time && c->spec[k].window.nanos > longest)
			longest = c->spec[k].window.nanos;
	do
		i = bucket_below(sizeof(spans) / sizeof(spans[0]));
	while (longest / spans[i].nanos > ratio);
	c->bucket = spans[i].nanos;
	/*
	 * -w defaults to the bucket's duration; in a big input only for the durations that
	 * time windows take there (distinct stays exact).
	 */
	if (c->has_default_window && bucket_below(3) == 0 &&
	    (!small_windows || spans[i].nanos <= 30000000000)) {
		for (int a = 1; a + 1 < c->argc; a++)
			if (strcmp(c->argv[a], "-w") == 0 || strcmp(c->argv[a], "--window") == 0) {
				memmove(&c->argv[a], &c->argv[a + 2],
				    (size_t)(c->argc - a - 1) * sizeof(c->argv[0]));
				c->argc -= 2;
				break;
			}
		c->has_default_window = false;
		for (int k = 0; k < c->nspecs; k++)
			if (!c->spec[k].has_window) {
				c->spec[k].window = (struct window){ .is_time = true,
				    .nanos = spans[i].nanos, .text = spans[i].text };
			}
	}
	add_arg(c, "");
	add_arg(c, "");
	memmove(&c->argv[3], &c->argv[1], (size_t)(c->argc - 3) * sizeof(c->argv[0]));
	c->argv[1] = bucket_below(5) == 0 ? "--step" : "-s";
	c->argv[2] = spans[i].text;
}

static void
gen_config(struct tcase *c, const char *swag, size_t records)
{
	static const char *const names[] = {
		"ts", "host", "lat", "size", "ip", "val", "code", "name", "n", "price", "x1",
	};
	static const char *const delimited_names[] = { "my col", "t:x", "a.b" };
	static const char *const na_texts[] = { "-", "NA", "\\N", "null", "?", "n/a" };
	static const char *const nulls[] = { "NA", "-", "null", "n/a", "" };
	static const int precisions[] = { 0, 1, 2, 3, 6, 17 };
	const char *opts[24][3];
	int nopts = 0;
	bool used[sizeof(names) / sizeof(names[0])] = { false };

	c->plain = chance(0.25);
	c->delimited = !c->plain && chance(0.5);
	if (c->delimited) {
		static const char delims[] = { ',', ',', ',', ',', ';', '\t', '|' };

		c->in_delim = PICK(delims);
		if (c->in_delim == ',' && chance(0.8)) {
			opts[nopts][0] = chance(0.8) ? "-c" : "--csv";
			opts[nopts++][1] = NULL;
		} else {
			opts[nopts][0] = chance(0.8) ? "-d" : "--delimiter";
			opts[nopts][1] = delimiter_arg(c->in_delim);
			opts[nopts++][2] = NULL;
		}
		c->out_delim = c->in_delim;
		c->no_quotes = chance(0.25);
	} else {
		c->out_delim = '\t';
	}
	if (chance(0.12)) {
		static const char delimited_out[] = { ',', ';', '\t', '|', ' ' };
		static const char blank_out[] = { '\t', ';', '|' };

		c->out_delim = c->delimited ? PICK(delimited_out) : PICK(blank_out);
		opts[nopts][0] = "-o";
		opts[nopts][1] = delimiter_arg(c->out_delim);
		opts[nopts++][2] = NULL;
	}

	/* The table: numbers mostly, some text, maybe a time and a key column. */
	c->nf = (int)range(1, 5);
	for (int k = 0; k < c->nf; k++)
		c->kind[k] = chance(0.7) ? K_NUM : K_TEXT;
	if (!c->plain && chance(0.35)) {
		if (c->nf < MAX_FIELDS - 2 && chance(0.5))
			c->nf++;
		c->time_col = (int)range(1, c->nf);
		c->kind[c->time_col - 1] = K_TIME;
	}
	if (!c->plain && chance(0.3)) {
		c->nf++;
		c->group_col = (int)range(1, c->nf);
		for (int k = c->nf - 1; k >= c->group_col; k--)
			c->kind[k] = c->kind[k - 1];
		c->kind[c->group_col - 1] = K_KEY;
		if (c->time_col >= c->group_col)
			c->time_col++;
	}
	c->header = !c->plain && chance(0.3);
	if (c->header) {
		for (int k = 0; k < c->nf; k++) {
			size_t i;

			if (c->delimited && chance(0.15)) {
				c->name[k] = aprintf("%s%d", PICK(delimited_names), k);
				if (text_fits(c, c->name[k]))
					continue;
			}
			do
				i = below(sizeof(names) / sizeof(names[0]));
			while (used[i]);
			used[i] = true;
			c->name[k] = names[i];
		}
	}
	c->append = !c->plain && chance(0.25);
	c->comments = !c->plain && chance(0.2);
	c->step = !c->plain && chance(0.2) ? (uint64_t)range(2, 5) : 1;
	c->strict = chance(c->plain ? 0.4 : 0.15);
	c->quiet = chance(0.05);
	c->min_count = chance(0.2) ? (uint64_t)range(2, 4) : 1;
	c->precision = chance(0.12) ? PICK(precisions) : -1;
	c->null_text = chance(0.3) ? PICK(nulls) : "";
	if (chance(0.4)) {
		int want = (int)range(1, 3);

		while (c->nna < want) {
			const char *t = PICK(na_texts);
			bool dup = false;

			for (int i = 0; i < c->nna; i++)
				dup |= strcmp(c->na[i], t) == 0;
			if (!dup)
				c->na[c->nna++] = t;
		}
	}
	c->crlf = chance(0.15);
	c->final_newline = !chance(0.15);
	c->bom = chance(0.05);
	c->pipe_feed = chance(0.3);
	c->epoch_ms = c->time_col && chance(0.15);
	c->epoch_ms_by_size = c->epoch_ms && chance(0.5);
	c->iso_time = c->time_col && !c->epoch_ms && chance(0.25);
	if (c->iso_time) {
		static const int zones[] = { 0, 0, 60, -300, 330 };

		c->iso_zone = PICK(zones);
		c->iso_fraction = (int)below(5);
	}
	{
		static const double dirts[] = { 0, 0.01, 0.05, 0.15 };
		static const double strict_dirts[] = { 0, 0, 0.002, 0.01 };

		c->dirt = c->strict ? PICK(strict_dirts) : PICK(dirts);
	}
	c->has_default_window = chance(0.85);
	if (c->has_default_window)
		c->default_window = c->time_col && chance(0.6) ? time_window() : row_window();
	if (chance(records <= 62 ? 0.2 : 0.08)) {
		static const int bits[] = { 8, 9, 10, 11, 13, 16 };
		int p = PICK(bits);

		/* distinct is exact while a window holds at most 2^P/8 values. */
		if (((size_t)1 << p) / 8 >= records + 2)
			c->hll_bits = p;
	}

	/* The options, in random order, then the specs. */
	if (c->has_default_window) {
		opts[nopts][0] = chance(0.8) ? "-w" : "--window";
		opts[nopts][1] = c->default_window.text;
		opts[nopts++][2] = NULL;
	}
	if (c->time_col) {
		opts[nopts][0] = chance(0.8) ? "-t" : "--time";
		opts[nopts][1] = c->header && chance(0.5) ? c->name[c->time_col - 1] :
		    aprintf("%d", c->time_col);
		opts[nopts++][2] = NULL;
		if (c->epoch_ms && !c->epoch_ms_by_size) {
			opts[nopts][0] = "--epoch-unit=ms";
			opts[nopts++][1] = NULL;
		}
	}
	if (c->group_col) {
		opts[nopts][0] = chance(0.8) ? "-g" : "--group-by";
		opts[nopts][1] = c->header && chance(0.5) ? c->name[c->group_col - 1] :
		    aprintf("%d", c->group_col);
		opts[nopts++][2] = NULL;
	}
#define FLAG(cond, s, l) do { if (cond) { opts[nopts][0] = chance(0.8) ? (s) : (l); \
	opts[nopts++][1] = NULL; } } while (0)
	FLAG(c->header, "-H", "--header");
	FLAG(c->append, "-a", "--append");
	FLAG(c->comments, "-C", "--skip-comments");
	FLAG(c->strict, "--strict", "--strict");
	FLAG(c->quiet, "-q", "--quiet");
	FLAG(c->no_quotes, "--no-quotes", "--no-quotes");
#undef FLAG
	if (c->step > 1) {
		opts[nopts][0] = "-s";
		opts[nopts][1] = aprintf("%llu", (unsigned long long)c->step);
		opts[nopts++][2] = NULL;
	}
	if (c->min_count > 1 || chance(0.03)) {
		opts[nopts][0] = aprintf("--min-count=%llu", (unsigned long long)c->min_count);
		opts[nopts++][1] = NULL;
	}
	if (c->precision >= 0) {
		opts[nopts][0] = "-p";
		opts[nopts][1] = aprintf("%d", c->precision);
		opts[nopts++][2] = NULL;
	}
	/* OUTPUT: a space, or a TAB but for TSV's TAB-separated output of TSV input. */
	c->blank_out = c->out_delim == ' ' ||
	    (c->out_delim == '\t' && !(c->delimited && c->in_delim == '\t'));
	if (*c->null_text != '\0' || chance(0.05)) {
		opts[nopts][0] = aprintf("--null=%s", c->null_text);
		opts[nopts++][1] = NULL;
	} else if (c->blank_out) {
		/* OUTPUT: where blanks separate the output (not TSV's), a null is "-". */
		c->null_text = "-";
	}
	if (c->nna > 0) {
		struct buf list = { 0 };

		for (int i = 0; i < c->nna; i++) {
			if (i > 0)
				buf_putc(&list, ',');
			buf_puts(&list, c->na[i]);
		}
		opts[nopts][0] = aprintf("--na=%s", list.p);
		opts[nopts++][1] = NULL;
		free(list.p);
	} else {
		/* BAD INPUT: without --na, "-" is missing, as the empty field is. */
		c->na[c->nna++] = "-";
	}
	if (c->hll_bits) {
		opts[nopts][0] = aprintf("--hll-bits=%d", c->hll_bits);
		opts[nopts++][1] = NULL;
	}
	/* Shuffle the options (each keeps its argument). */
	for (int i = nopts - 1; i > 0; i--) {
		int j = (int)below((uint64_t)i + 1);
		const char *t[3];

		memcpy(t, opts[i], sizeof(t));
		memcpy(opts[i], opts[j], sizeof(t));
		memcpy(opts[j], t, sizeof(t));
	}
	c->argc = 0;
	add_arg(c, swag);
	for (int i = 0; i < nopts; i++) {
		add_arg(c, opts[i][0]);
		if (opts[i][1] != NULL)
			add_arg(c, opts[i][1]);
	}
	c->nspecs = (int)range(1, 5);
	for (int i = 0; i < c->nspecs; i++) {
		gen_spec(c, &c->spec[i]);
		add_arg(c, c->spec[i].arg);
	}
	gen_bucket(c);
}

static void
add_record(struct tcase *c, const struct record *r)
{
	if (c->nrec == c->rec_cap) {
		size_t cap = c->rec_cap ? 2 * c->rec_cap : 64;
		struct record *p = amalloc(cap * sizeof(*p));

		if (c->nrec > 0)
			memcpy(p, c->rec, c->nrec * sizeof(*p));
		c->rec = p;
		c->rec_cap = cap;
	}
	c->rec[c->nrec++] = *r;
}

/* Whether an output field needs quotes (swag(1), -o): a TAB too where a space separates. */
static bool
needs_quotes(const char *s, size_t n, char delimiter)
{
	if (n == 0)
		return false;
	if (is_blank(s[0]) || is_blank(s[n - 1]))
		return true;
	for (size_t i = 0; i < n; i++)
		if (s[i] == delimiter || (delimiter == ' ' && s[i] == '\t') || s[i] == '"' ||
		    s[i] == '\n' || s[i] == '\r')
			return true;
	return false;
}

static void
quote_into(struct buf *b, const char *s, size_t n)
{
	buf_putc(b, '"');
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"')
			buf_putc(b, '"');
		buf_putc(b, s[i]);
	}
	buf_putc(b, '"');
}

/* The text of one input line (or several, for quoted line ends) holding fields f. */
static const char *
render_input_record(const struct tcase *c, const char **f, int nf)
{
	struct buf b = { 0 };
	const char *text;

	if (!c->delimited) {
		if (nf == 0) {
			if (chance(0.5))
				buf_puts(&b, blanks());
		} else {
			if (chance(0.15))
				buf_puts(&b, blanks());
			for (int k = 0; k < nf; k++) {
				if (k > 0)
					buf_puts(&b, blanks());
				buf_puts(&b, f[k]);
			}
			if (chance(0.15))
				buf_puts(&b, blanks());
		}
	} else if (c->no_quotes) {
		/* Every field as it is (text_fits made them fit), blanks around trimmed. */
		for (int k = 0; k < nf; k++) {
			if (k > 0)
				buf_putc(&b, c->in_delim);
			if (chance(0.1))
				buf_puts(&b, c->in_delim == '\t' || chance(0.5) ? " " : " \t");
			buf_puts(&b, f[k]);
			if (chance(0.1))
				buf_puts(&b, c->in_delim == '\t' || chance(0.5) ? "  " : "\t ");
		}
	} else {
		bool only_blanks = true;

		for (int k = 0; k < nf; k++) {
			size_t n = strlen(f[k]);
			size_t start = b.len;

			if (k > 0)
				buf_putc(&b, c->in_delim);
			if (needs_quotes(f[k], n, c->in_delim) || (n > 0 && chance(0.1)) ||
			    (n == 0 && chance(0.05))) {
				quote_into(&b, f[k], n);
			} else {
				/* Blanks around an unquoted field are trimmed. */
				if (chance(0.1))
					buf_puts(&b, c->in_delim == '\t' || chance(0.5) ? " " : " \t");
				buf_puts(&b, f[k]);
				if (chance(0.1))
					buf_puts(&b, c->in_delim == '\t' || chance(0.5) ? "  " : "\t ");
			}
			for (size_t i = start; i < b.len; i++)
				if (!is_blank(b.p[i]))
					only_blanks = false;
		}
		if (only_blanks) {
			/* A line of blanks would be no record: quote the first field. */
			struct buf q = { 0 };

			quote_into(&q, f[0], strlen(f[0]));
			for (int k = 1; k < nf; k++) {
				buf_putc(&q, c->in_delim);
				buf_puts(&q, f[k]);
			}
			free(b.p);
			b = q;
		}
	}
	text = astrndup(b.p ? b.p : "", b.len);
	free(b.p);
	return text;
}

struct line {
	enum line_type type;
	const char *text;
	struct record *rec;
};

/*
 * Generates the case: options, then lines (header, data records, comments, blank
 * lines), then the input bytes, numbering the records' lines as swag must.
 */
static void
gen_case(struct tcase *c, uint64_t seed, const char *swag)
{
	struct line *lines;
	size_t nlines = 0, records, plant_at = SIZE_MAX, long_field_at = SIZE_MAX;
	double r = 0;
	int64_t now_ms;
	int lead_bad = 0, plant_kind = 0;
	uint64_t line_number = 1;

	memset(c, 0, sizeof(*c));
	c->seed = seed;
	rng_state = seed * 0xd1342543de82ef95ull + 0x2545f4914f6cdd1dull;
	r = unif();
	records = r < 0.04 ? 0 : r < 0.25 ? (size_t)range(1, 30) : r < 0.65 ?
	    (size_t)range(31, 150) : r < 0.97 ? (size_t)range(151, 400) :
	    (size_t)range(1000, 4000);
	/* distinct is exact only while a window holds at most 512 values (P = 12). */
	small_windows = records > 500;
	if (chance(0.03))
		long_field_at = below(records + 1);
	gen_config(c, swag, records);
	if (c->strict && records > 0 && chance(0.7)) {
		plant_at = below(records);
		plant_kind = (int)below(3);
	}
	if (c->time_col && chance(c->strict ? 0.02 : 0.1))
		lead_bad = (int)range(1, 3);
	now_ms = (int64_t)range(1000000, 1700000000) * 1000;
	/* Told by their size, milliseconds are at least 1e11 (TIMESTAMPS), and stay so. */
	if (c->epoch_ms_by_size)
		now_ms = (int64_t)range(200000000, 1700000000) * 1000;

	lines = amalloc((3 * records + 16) * sizeof(*lines));
	/* Before the header: comments, and blank lines (no records there). */
	if (c->header || c->delimited)
		for (int i = 0; i < 5 && chance(0.15); i++) {
			if (c->comments && chance(0.5)) {
				lines[nlines].type = L_COMMENT;
				lines[nlines++].text = chance(0.5) ? "# made by a test" : "  #, \"x";
			} else if (c->header) {
				lines[nlines].type = L_SKIPPED_BLANK;
				lines[nlines++].text = c->delimited ? "" : blanks();
			}
		}
	if (c->header) {
		struct record *h = amalloc(sizeof(*h));

		h->nf = c->nf;
		h->f = amalloc((size_t)c->nf * sizeof(*h->f));
		for (int k = 0; k < c->nf; k++)
			h->f[k] = c->name[k];
		h->raw = render_input_record(c, h->f, h->nf);
		lines[nlines].type = L_HEADER;
		lines[nlines].rec = h;
		lines[nlines++].text = h->raw;
		c->header_rec = h;
	}
	for (size_t i = 0; i < records; i++) {
		struct record *rec = amalloc(sizeof(*rec));
		int nf = c->nf;
		const char **f;
		bool planted = i == plant_at;

		if (c->comments && chance(0.05)) {
			static const char *const comments[] = {
				"# a comment", "   # indented", "\t#tab", "#", "# 1,2,3", "#\"open quote",
			};

			lines[nlines].type = L_COMMENT;
			lines[nlines++].text = PICK(comments);
		}
		if (c->delimited && chance(0.03)) {
			lines[nlines].type = L_SKIPPED_BLANK;
			lines[nlines++].text = "";
		}
		if (!c->delimited && !planted && chance(0.03)) {
			nf = 0;	/* a blank line: a record whose fields are all missing */
		} else if (nf > 1 && (chance(c->dirt * 0.4) || (planted && plant_kind == 0))) {
			nf = (int)range(1, nf - 1);
		} else if (chance(0.03)) {
			nf += (int)range(1, 2);
		}
		f = amalloc((size_t)(nf > 0 ? nf : 1) * sizeof(*f));
		if (c->time_col) {
			/* The timeline: equal timestamps, steps, gaps past the windows. */
			double t = unif();

			now_ms += t < 0.3 ? 0 : t < 0.6 ? range(1, 8) * 250 : t < 0.9 ?
			    range(1, 3000) : t < 0.97 ? range(20, 120) * 1000 : 500000;
		}
		for (int k = 0; k < nf; k++) {
			enum kind kind = k < c->nf ? c->kind[k] : K_TEXT;
			const char *text = NULL;

			if (kind == K_TIME) {
				/* Leading records without a timestamp: an unreadable one stops the run. */
				if ((int)i < lead_bad)
					text = gen_missing(c);
				if (text == NULL && chance(c->dirt * 0.3))
					text = chance(0.5) ? gen_missing(c) : NULL;
				if (text == NULL && chance(c->dirt * 0.3))
					text = gen_not_number(c);
				if (text == NULL && ((planted && plant_kind == 2) ||
				    chance(c->dirt * 0.4)))
					text = time_text(c, now_ms - (chance(0.5) ? range(1, 4) * 500 :
					    range(1, 5000)));
				if (text == NULL)
					text = time_text(c, now_ms);
			} else if (chance(c->dirt)) {
				text = chance(0.5) ? gen_missing(c) : NULL;
				if (text == NULL)
					text = kind == K_KEY ? gen_key(c) : gen_not_number(c);
			} else if (kind == K_NUM) {
				text = gen_number();
			} else if (kind == K_KEY) {
				text = gen_key(c);
			} else {
				text = gen_text(c);
			}
			f[k] = text;
		}
		if (i == long_field_at && nf > 0) {
			/* A field longer than a read block (128 KiB), sometimes. */
			size_t len = (size_t)range(1000, 300000);
			char *big = amalloc(len + 1);
			int k = (int)below((uint64_t)nf);

			memset(big, 'a', len);
			big[len / 2] = 'b';
			if ((k >= c->nf || c->kind[k] != K_TIME) && k + 1 != c->group_col)
				f[k] = big;
		}
		if (planted && plant_kind == 1 && nf > 0) {
			/* A field that is not a number where some aggregate reads one. */
			int s = (int)below((uint64_t)c->nspecs);

			if (c->spec[s].column <= nf)
				f[c->spec[s].column - 1] = gen_not_number(c);
		}
		rec->nf = nf;
		rec->f = f;
		rec->raw = render_input_record(c, f, nf);
		if (c->no_quotes && nf == 1 && *f[0] == '\0') {
			/* A line of nothing but blanks, which no quote can make a record. */
			lines[nlines].type = L_SKIPPED_BLANK;
			lines[nlines++].text = rec->raw;
			continue;
		}
		lines[nlines].type = L_RECORD;
		lines[nlines].rec = rec;
		lines[nlines++].text = rec->raw;
	}
	if (nlines == 0 || lines[0].type == L_COMMENT || lines[0].type == L_SKIPPED_BLANK ||
	    lines[0].rec->nf == 0)
		c->bom = false;
	if (nlines == 0 || lines[nlines - 1].type != L_RECORD || lines[nlines - 1].rec->nf == 0)
		c->final_newline = true;

	/* The input bytes, and each record's line. */
	if (c->bom)
		buf_puts(&c->input, "\xEF\xBB\xBF");
	for (size_t i = 0; i < nlines; i++) {
		const char *text = lines[i].text;

		if (lines[i].rec != NULL)
			lines[i].rec->line = line_number;
		buf_puts(&c->input, text);
		for (const char *s = text; *s != '\0'; s++)
			line_number += *s == '\n';
		if (i + 1 < nlines || c->final_newline)
			buf_puts(&c->input, c->crlf ? "\r\n" : "\n");
		line_number++;
		if (lines[i].type == L_RECORD && !(c->delimited && lines[i].rec->nf == 0))
			add_record(c, lines[i].rec);
	}
	c->lines = line_number - 1;
}

/* ---------------------------------------------------------------- the naive reference */

/* A value of one record for one spec. */
struct rv {
	bool present;		/* a non-empty field, not in --na */
	bool isnum;
	double x;
	long long sc;		/* x times 100, exactly, when sc_ok */
	bool sc_ok;
	const char *text;	/* without surrounding blanks */
};

struct cell {
	bool approx;
	const char *text;	/* exact: as it must be printed (quoted if need be) */
	long double v, tol;	/* approx: the value and the difference allowed */
	bool is_sd;		/* v is a standard deviation: tol applies to its square */
};

struct orec {
	const char *prefix;	/* -a's record, or -g's key, and the delimiter */
	size_t prefix_len;
	struct cell *cell;
	int ncells;
	size_t record;		/* the data record's index, or SIZE_MAX for the header */
};

enum { P_NOTNUM, P_SHORT, P_BADTS, P_BACK, P_KINDS };

struct tally {
	uint64_t count, line;
	uint32_t cols;		/* the columns the summary may name */
};

struct expect {
	struct orec *out;
	size_t nout;
	struct tally t[P_KINDS];
	bool stopped;
	bool stopped_first;	/* by the first timestamp: the message has a hint after it */
	uint64_t stop_line;
	uint32_t stop_cols;
};

struct group {
	const char *key;
	uint64_t records;
	size_t *idx;		/* the records in its windows' reach, oldest first */
	size_t n, cap;
};

static const char *
trim(const char *s, size_t *len)
{
	size_t n = strlen(s);

	while (n > 0 && is_blank(*s)) {
		s++;
		n--;
	}
	while (n > 0 && is_blank(s[n - 1]))
		n--;
	*len = n;
	return s;
}

static bool
is_na(const struct tcase *c, const char *s, size_t n)
{
	for (int i = 0; i < c->nna; i++)
		if (strlen(c->na[i]) == n && memcmp(c->na[i], s, n) == 0)
			return true;
	return false;
}

/* Days since 1970-01-01 of a date in the proleptic Gregorian calendar. */
static int64_t
days_of(int64_t y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400, yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;

	return era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
}

/* Digits s[*i, *i + count) as a number, or -1. */
static int64_t
digits_at(const char *s, size_t n, size_t *i, size_t count)
{
	int64_t v = 0;

	for (size_t k = 0; k < count; k++, (*i)++) {
		if (*i >= n || !is_digit(s[*i]))
			return -1;
		v = v * 10 + (s[*i] - '0');
	}
	return v;
}

/* An ISO 8601 time as iso_text writes it, in nanoseconds (in range: no leap second). */
static bool
parse_iso(const char *s, size_t n, int64_t *ns)
{
	size_t i = 0;
	int64_t y, mo, d, h, mi, se, frac = 0, zone = 0, unit = 100000000;

	if ((y = digits_at(s, n, &i, 4)) < 0 || i >= n || s[i++] != '-' ||
	    (mo = digits_at(s, n, &i, 2)) < 1 || mo > 12 || i >= n || s[i++] != '-' ||
	    (d = digits_at(s, n, &i, 2)) < 1 || i >= n || (s[i] != 'T' && s[i] != 't') ||
	    (i++, (h = digits_at(s, n, &i, 2)) < 0) || i >= n || s[i++] != ':' ||
	    (mi = digits_at(s, n, &i, 2)) < 0 || i >= n || s[i++] != ':' ||
	    (se = digits_at(s, n, &i, 2)) < 0 || h > 23 || mi > 59 || se > 59)
		return false;
	if (i < n && (s[i] == '.' || s[i] == ',')) {
		size_t start = ++i;

		for (; i < n && is_digit(s[i]); i++, unit /= 10)
			frac += (s[i] - '0') * unit;
		if (i == start)
			return false;
	}
	if (i < n && s[i] == 'Z') {
		i++;
	} else if (i < n && (s[i] == '+' || s[i] == '-')) {
		int sign = s[i++] == '-' ? -1 : 1;
		int64_t zh = digits_at(s, n, &i, 2), zm = 0;

		if (zh < 0)
			return false;
		if (i < n && s[i] == ':')
			i++;
		if (i < n && (zm = digits_at(s, n, &i, 2)) < 0)
			return false;
		zone = sign * (zh * 3600 + zm * 60);
	} else {
		return false;
	}
	if (i != n)
		return false;
	*ns = ((days_of(y, (int)mo, (int)d) * 86400 + h * 3600 + mi * 60 + se - zone) *
	    1000000000) + frac;
	return true;
}

/* An epoch timestamp as generated (digits, optional decimals), in nanoseconds. */
static bool
parse_epoch(const struct tcase *c, const char *s, size_t n, int64_t *ns)
{
	if (c->iso_time)
		return parse_iso(s, n, ns);

	int64_t whole = 0, frac = 0, scale = c->epoch_ms ? 1000000 : 1000000000;
	size_t i = 0, digits = 0;

	for (; i < n && is_digit(s[i]); i++, digits++) {
		if (whole > INT64_MAX / 100)
			return false;
		whole = whole * 10 + (s[i] - '0');
	}
	if (digits == 0)
		return false;
	if (i < n && s[i] == '.') {
		int64_t unit = scale;
		size_t fd = 0;

		for (i++; i < n && is_digit(s[i]); i++, fd++) {
			unit /= 10;
			frac += (s[i] - '0') * unit;
		}
		if (fd == 0)
			return false;
	}
	if (i != n)
		return false;
	*ns = whole * scale + frac;
	return true;
}

static void
render_text(struct buf *b, const struct tcase *c, const char *s, size_t n)
{
	if (c->delimited && !c->no_quotes && needs_quotes(s, n, c->out_delim))
		quote_into(b, s, n);
	else
		buf_add(b, s, n);
}

static const char *
rendered(const struct tcase *c, const char *s)
{
	struct buf b = { 0 };
	const char *t;

	render_text(&b, c, s, strlen(s));
	t = astrndup(b.p ? b.p : "", b.len);
	free(b.p);
	return t;
}

/*
 * A delimited input's field written back (-a) or header name: an empty one is "" where
 * blanks separate the output (OUTPUT: awk reads a run of blanks as one separator).
 */
static void
render_field(struct buf *b, const struct tcase *c, const char *s, size_t n)
{
	if (n == 0 && c->delimited && c->blank_out)
		buf_add(b, "\"\"", 2);
	else
		render_text(b, c, s, n);
}

/*
 * A null result: the --null text, but "" for an empty one alone in its record where
 * blanks do not separate the output: a blank line, which delimited readers skip
 * (OUTPUT).
 */
static const char *
null_result(const struct tcase *c)
{
	if (!c->blank_out && *c->null_text == '\0' && c->nspecs == 1 && !c->append &&
	    !c->group_col && c->bucket == 0 && !c->no_quotes)
		return "\"\"";
	return rendered(c, c->null_text);
}

/* -a's copy of the record: the line as it came, or the fields quoted again. */
static void
render_record(struct buf *b, const struct tcase *c, const struct record *r)
{
	if (!c->delimited) {
		buf_puts(b, r->raw);
		return;
	}
	for (int k = 0; k < r->nf; k++) {
		if (k > 0)
			buf_putc(b, c->out_delim);
		render_field(b, c, r->f[k], strlen(r->f[k]));
	}
}

static const char *
format_number(const struct tcase *c, double x)
{
	char tmp[512];

	if (c->precision >= 0)
		format_fixed(x, c->precision, tmp, sizeof(tmp));
	else
		format_shortest(x, tmp);
	return astrdup(tmp);
}

static struct cell
exact(const char *text)
{
	struct cell cell = { 0 };

	cell.text = text;
	return cell;
}

static struct cell
approx(long double v, long double tol)
{
	struct cell cell = { 0 };

	cell.approx = true;
	cell.v = v;
	cell.tol = tol;
	return cell;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* mode's tie-break: numbers first, numerically, equal numbers by their text; then text, bytewise. */
static int
mode_order(const char *a, const char *b)
{
	bool na = is_number(a, strlen(a)), nb = is_number(b, strlen(b));

	if (na != nb)
		return na ? -1 : 1;
	if (na) {
		double x = strtod(a, NULL), y = strtod(b, NULL);

		if (x != y)
			return x < y ? -1 : 1;
	}
	return strcmp(a, b);
}

/*
 * One aggregate over the values of the records in its window, straight from AGGREGATES;
 * times[i] is w[i]'s record's timestamp (for rate).
 */
static struct cell
aggregate(const struct tcase *c, const struct spec *s, struct rv *const *w,
    const int64_t *times, size_t n)
{
	const char *null = null_result(c);
	const char **texts = amalloc((n + 1) * sizeof(*texts));
	double *xs = amalloc((n + 1) * sizeof(*xs));
	size_t nt = 0, nx = 0;
	bool all_sc = true, all_int = true;
	long long sum_sc = 0;
	long double m = 0, sum = 0;

	for (size_t i = 0; i < n; i++) {
		if (!w[i]->present)
			continue;
		texts[nt++] = w[i]->text;
		if (!w[i]->isnum)
			continue;
		xs[nx++] = w[i]->x;
		if (fabs(w[i]->x) > m)
			m = fabsl((long double)w[i]->x);
		if (w[i]->sc_ok) {
			sum_sc += w[i]->sc;
			all_int &= w[i]->sc % 100 == 0;
		} else {
			all_sc = false;
		}
		sum += w[i]->x;
	}
	if (all_sc)
		sum = (long double)sum_sc / 100;
	switch (s->agg) {
	case A_COUNT:
		return exact(aprintf("%zu", nt));
	case A_DISTINCT: {
		size_t d = 0;

		qsort(texts, nt, sizeof(*texts), cmp_str);
		for (size_t i = 0; i < nt; i++)
			d += i == 0 || strcmp(texts[i], texts[i - 1]) != 0;
		return exact(aprintf("%zu", d));
	}
	case A_MODE: {
		const char *best = NULL;
		size_t best_count = 0;

		if (nt == 0 || nt < c->min_count)
			return exact(null);
		qsort(texts, nt, sizeof(*texts), cmp_str);
		for (size_t i = 0, j; i < nt; i = j) {
			for (j = i; j < nt && strcmp(texts[j], texts[i]) == 0; j++)
				;
			if (j - i > best_count || (j - i == best_count && mode_order(texts[i], best) < 0)) {
				best = texts[i];
				best_count = j - i;
			}
		}
		return exact(rendered(c, best));
	}
	default:
		break;
	}
	if (nx == 0 || nx < c->min_count)
		return exact(null);
	switch (s->agg) {
	case A_SUM:
		if (all_sc && all_int)
			return exact(format_number(c, (double)(sum_sc / 100)));
		return approx(sum, 1e-12L * m);
	case A_AVG:
		return approx(sum / (long double)nx, 1e-12L * m);
	case A_FIRST:
		return exact(format_number(c, xs[0]));
	case A_LAST:
		return exact(format_number(c, xs[nx - 1]));
	case A_DELTA:
		return exact(format_number(c, xs[nx - 1] - xs[0]));
	case A_RATE: {
		/* The increase from the first number to the last, a drop adding the new one. */
		long double increase = 0, steps = 0, seconds;
		int64_t first = 0, last = 0;
		size_t k = 0;
		double prev = 0;

		for (size_t i = 0; i < n; i++) {
			long double step;

			if (!w[i]->present || !w[i]->isnum)
				continue;
			if (k++ == 0)
				first = times[i];
			else {
				step = w[i]->x < prev ? (long double)w[i]->x :
				    (long double)w[i]->x - prev;
				increase += step;
				steps += fabsl(step);
			}
			prev = w[i]->x;
			last = times[i];
		}
		if (nx < 2 || last <= first)
			return exact(null);
		seconds = (long double)(last - first) / 1e9L;
		return approx(increase / seconds, 1e-12L * steps / seconds);
	}
	case A_EWMA: {
		/*
		 * pandas' ewm().mean() over the key's history since its fresh start: with a
		 * span W the number k records old weighs c^k, c = 1 - 2/(W+1); with a
		 * half-life D the number a old weighs 2^-(a/D).  Aged to the last number's
		 * record, which leaves the mean as it was.
		 */
		long double num = 0, den = 0, abs_num = 0, power = 1;
		double decay = 1.0 - 2.0 / ((double)s->window.rows + 1.0);
		size_t last = n;

		while (last > 0 && !(w[last - 1]->present && w[last - 1]->isnum))
			last--;
		for (size_t i = last; i-- > 0; power *= decay) {
			long double weight;

			if (!w[i]->present || !w[i]->isnum)
				continue;
			weight = s->window.is_time ? exp2l(-(long double)(times[last - 1] -
			    times[i]) / (long double)s->window.nanos) : power;
			num += weight * w[i]->x;
			abs_num += weight * fabsl((long double)w[i]->x);
			den += weight;
		}
		return approx(num / den, 1e-12L * abs_num / den);
	}
	case A_MIN:
	case A_MAX: {
		double best = xs[0];

		for (size_t i = 1; i < nx; i++)
			if (s->agg == A_MIN ? xs[i] < best : xs[i] > best)
				best = xs[i];
		return exact(format_number(c, best));
	}
	case A_VAR:
	case A_STDDEV: {
		long double mean, ss = 0;
		struct cell cell;

		if (nx < 2)
			return exact(null);
		mean = sum / (long double)nx;
		for (size_t i = 0; i < n; i++) {
			long double x, d;

			if (!w[i]->present || !w[i]->isnum)
				continue;
			x = w[i]->sc_ok ? (long double)w[i]->sc / 100 : (long double)w[i]->x;
			d = x - mean;
			ss += d * d;
		}
		cell = approx(ss / (long double)(nx - 1), 1e-11L * m * m);
		if (s->agg == A_STDDEV)
			cell.is_sd = true;
		return cell;
	}
	case A_PCT: {
		/* h = (n - 1) q, lo = floor(h): x[lo] when h is integral or x[lo] = x[lo+1]. */
		long long num = (long long)(nx - 1) * s->pct10;
		size_t lo = (size_t)(num / 1000);
		long long rem = num % 1000;
		long double v;

		/* swag's h is exact (pN): x[lo] itself, whatever q is in binary. */
		qsort(xs, nx, sizeof(*xs), cmp_double);
		if (rem == 0 || xs[lo] == xs[lo + 1])
			return exact(format_number(c, xs[lo]));
		v = (long double)xs[lo] + (long double)rem / 1000 *
		    ((long double)xs[lo + 1] - (long double)xs[lo]);
		return approx(v, 1e-12L * m);
	}
	default:
		die("unreachable");
	}
	return exact(null);
}

static struct group *
find_group(struct group **groups, size_t *ngroups, size_t *cap, const char *key)
{
	for (size_t i = 0; i < *ngroups; i++)
		if (strcmp((*groups)[i].key, key) == 0)
			return &(*groups)[i];
	if (*ngroups == *cap) {
		size_t new_cap = *cap ? 2 * *cap : 8;
		struct group *p = amalloc(new_cap * sizeof(*p));

		if (*ngroups > 0)
			memcpy(p, *groups, *ngroups * sizeof(*p));
		*groups = p;
		*cap = new_cap;
	}
	memset(&(*groups)[*ngroups], 0, sizeof(**groups));
	(*groups)[*ngroups].key = key;
	return &(*groups)[(*ngroups)++];
}

static void
tally(struct tally *t, uint64_t count, uint64_t line, uint32_t cols)
{
	if (t->count == 0) {
		t->line = line;
		t->cols = cols;
	}
	t->count += count;
}

static uint32_t
bit(int column)
{
	return column < 32 ? (uint32_t)1 << column : 0;
}

static uint64_t
bits_set(uint32_t x)
{
	uint64_t n = 0;

	for (; x != 0; x &= x - 1)
		n++;
	return n;
}

/* The bucket [b, b + S) that holds t: b - origin a multiple of S, toward the past. */
static int64_t
bucket_of(const struct tcase *c, int64_t t)
{
	/* BUCKETS: weeks start on Monday, 1970-01-05; other durations at the epoch. */
	int64_t origin = c->bucket % 604800000000000 == 0 ? 4 * 86400000000000 : 0;
	int64_t r = (t - origin) % c->bucket;

	return t - (r < 0 ? r + c->bucket : r);
}

/* A bucket's start as swag writes it: an epoch in the input's unit, digits as S needs. */
static const char *
bucket_text(const struct tcase *c, int64_t b)
{
	int64_t unit = c->epoch_ms ? 1000000 : 1000000000, scale = unit;
	int digits = 0;

	while (scale > 1 && c->bucket % scale != 0) {
		digits += 3;
		scale /= 1000;
	}
	if (c->iso_time) {
		/* RFC 3339 in UTC, with the fraction's digits that S needs, in threes. */
		time_t seconds = (time_t)(b / 1000000000);
		struct tm tm;

		gmtime_r(&seconds, &tm);
		scale = 1000000000;
		for (int k = 0; k < digits; k += 3)
			scale /= 1000;
		if (digits == 0)
			return aprintf("%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900,
			    tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
		return aprintf("%04d-%02d-%02dT%02d:%02d:%02d.%0*lldZ", tm.tm_year + 1900,
		    tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, digits,
		    (long long)(b % 1000000000 / scale));
	}
	if (digits == 0)
		return aprintf("%lld", (long long)(b / unit));
	return aprintf("%lld.%0*lld", (long long)(b / unit), digits,
	    (long long)(b % unit / scale));
}

/*
 * -s DURATION, from BUCKETS, over records [0, nproc) (those before a --strict stop):
 * bucket after bucket, from the first record's to the last record's, a bucket's list
 * is the keys of the bucket before that a time window still reaches (a record at
 * t >= b + S - the longest time window, an ewma's not counted), in their order, then
 * the keys first seen in
 * the bucket; for each, every aggregate over its records before b + S, a time
 * window's those at b + S - W or later, a row window's last W.  A bucket with an
 * empty list writes nothing.  key_of[i] is record i's group, or -1 before any
 * timestamp (no bucket).
 */
static void
evaluate_buckets(const struct tcase *c, struct expect *e, struct rv **vals,
    const int64_t *times, const long *key_of, size_t nproc, const struct group *groups,
    size_t ngroups)
{
	size_t *list = amalloc((ngroups + 1) * sizeof(*list));
	size_t *prev = amalloc((ngroups + 1) * sizeof(*prev));
	int64_t *last = amalloc((ngroups + 1) * sizeof(*last));
	bool *listed = amalloc(ngroups + 1);
	struct rv **window = amalloc((nproc + 1) * sizeof(*window));
	int64_t *window_times = amalloc((nproc + 1) * sizeof(*window_times));
	size_t nlist, nprev = 0, i = 0, out_cap = c->nrec + 1;
	int64_t S = c->bucket, longest = 0, b;

	/* An ewma's half-life holds no record: it keeps no key in a list. */
	for (int s = 0; s < c->nspecs; s++)
		if (c->spec[s].window.is_time && c->spec[s].agg != A_EWMA &&
		    c->spec[s].window.nanos > longest)
			longest = c->spec[s].window.nanos;
	while (i < nproc && key_of[i] < 0)
		i++;
	if (i == nproc)
		return;
	b = bucket_of(c, times[i]);
	for (;;) {
		size_t *t;

		memset(listed, 0, ngroups + 1);
		nlist = 0;
		for (size_t k = 0; k < nprev; k++)
			if (longest > 0 && last[prev[k]] >= b + S - longest) {
				listed[prev[k]] = true;
				list[nlist++] = prev[k];
			}
		for (; i < nproc && (key_of[i] < 0 || times[i] < b + S); i++) {
			size_t g = (size_t)key_of[i];

			if (key_of[i] < 0)
				continue;
			last[g] = times[i];
			if (!listed[g]) {
				listed[g] = true;
				list[nlist++] = g;
			}
		}
		for (size_t k = 0; k < nlist; k++) {
			const struct group *g = &groups[list[k]];
			struct orec *o;
			struct buf p = { 0 };
			size_t before = 0;

			/* Buckets may outnumber records (quiet ones, several keys). */
			if (e->nout == out_cap) {
				struct orec *grown = amalloc(2 * out_cap * sizeof(*grown));

				memcpy(grown, e->out, e->nout * sizeof(*grown));
				e->out = grown;
				out_cap *= 2;
			}
			o = &e->out[e->nout++];

			/* The key's records before b + S: all its records before record i. */
			while (before < g->n && g->idx[before] < i)
				before++;
			render_text(&p, c, bucket_text(c, b), strlen(bucket_text(c, b)));
			buf_putc(&p, c->out_delim);
			if (c->group_col) {
				const char *key = *g->key != '\0' ? g->key : c->null_text;

				render_text(&p, c, key, strlen(key));
				buf_putc(&p, c->out_delim);
			}
			o->prefix = astrndup(p.p, p.len);
			o->prefix_len = p.len;
			free(p.p);
			o->record = g->idx[before - 1];
			o->ncells = c->nspecs;
			o->cell = amalloc((size_t)c->nspecs * sizeof(*o->cell));
			for (int s = 0; s < c->nspecs; s++) {
				const struct spec *sp = &c->spec[s];
				size_t start = 0, n = 0;

				if (sp->agg == A_EWMA) {
					/* ewma: as of the key's last record (see the rolling case). */
					for (size_t k2 = 1; sp->window.is_time && k2 < before; k2++)
						if (times[g->idx[k2]] - times[g->idx[k2 - 1]] >=
						    64 * sp->window.nanos)
							start = k2;
				} else if (!sp->window.is_time) {
					start = before > sp->window.rows ? before - sp->window.rows : 0;
				} else {
					while (start < before && times[g->idx[start]] < b + S -
					    sp->window.nanos)
						start++;
				}
				for (size_t k2 = start; k2 < before; k2++) {
					window_times[n] = times[g->idx[k2]];
					window[n++] = &vals[g->idx[k2]][s];
				}
				o->cell[s] = aggregate(c, sp, window, window_times, n);
			}
		}
		t = prev;
		prev = list;
		list = t;
		nprev = nlist;
		if (i == nproc)
			break;
		/* The next bucket, or, when no window reaches it, the next record's. */
		b += S;
		{
			bool reached = false;

			for (size_t k = 0; k < nprev; k++)
				reached |= longest > 0 && last[prev[k]] >= b + S - longest;
			if (!reached)
				b = bucket_of(c, times[i]);
		}
	}
}

static void
evaluate(const struct tcase *c, struct expect *e)
{
	struct rv **vals = amalloc((c->nrec + 1) * sizeof(*vals));
	int64_t *times = amalloc((c->nrec + 1) * sizeof(*times));
	struct group *groups = NULL;
	size_t ngroups = 0, group_cap = 0;
	bool have_time = false;
	int64_t newest = 0;
	struct rv **window = amalloc((c->nrec + 1) * sizeof(*window));
	long *key_of = amalloc((c->nrec + 1) * sizeof(*key_of));
	size_t nproc = c->nrec;
	int64_t *window_times = amalloc((c->nrec + 1) * sizeof(*window_times));

	memset(e, 0, sizeof(*e));
	e->out = amalloc((c->nrec + 1) * sizeof(*e->out));

	/* The output header: the input header (-a) or the key's name (-g), then AGG(NAME)@WINDOW. */
	if (c->header && c->header_rec != NULL) {
		struct orec *o = &e->out[e->nout++];
		struct buf b = { 0 };

		if (c->bucket) {
			/* BUCKETS: the time column's name first. */
			render_field(&b, c, c->name[c->time_col - 1], strlen(c->name[c->time_col - 1]));
			buf_putc(&b, c->out_delim);
		}
		if (c->append) {
			render_record(&b, c, c->header_rec);
			buf_putc(&b, c->out_delim);
		} else if (c->group_col) {
			render_field(&b, c, c->name[c->group_col - 1], strlen(c->name[c->group_col - 1]));
			buf_putc(&b, c->out_delim);
		}
		o->prefix = astrndup(b.p ? b.p : "", b.len);
		o->prefix_len = b.len;
		free(b.p);
		o->record = SIZE_MAX;
		o->ncells = c->nspecs;
		o->cell = amalloc((size_t)c->nspecs * sizeof(*o->cell));
		for (int s = 0; s < c->nspecs; s++) {
			const struct spec *sp = &c->spec[s];
			const char *label = aprintf("%s(%s)%s%s", sp->name, c->name[sp->column - 1],
			    sp->has_window ? "@" : "", sp->has_window ? sp->window.text : "");

			o->cell[s] = exact(rendered(c, label));
		}
	}

	for (size_t i = 0; i < c->nrec; i++) {
		const struct record *r = &c->rec[i];
		struct rv *v = amalloc((size_t)c->nspecs * sizeof(*v));
		uint32_t notnum = 0, shorts = 0, timecol = 0;
		int time_problem = -1;
		const char *key = "";
		struct group *g;
		bool pushed;

		vals[i] = v;
		for (int s = 0; s < c->nspecs; s++) {
			const struct spec *sp = &c->spec[s];
			size_t len;
			const char *text;

			memset(&v[s], 0, sizeof(v[s]));
			if (sp->column > r->nf) {
				/* A record too short to have the column (a blank line is not). */
				if (r->nf > 0)
					shorts |= bit(sp->column);
				continue;
			}
			text = trim(r->f[sp->column - 1], &len);
			if (len == 0 || is_na(c, text, len))
				continue;
			v[s].present = true;
			v[s].text = astrndup(text, len);
			v[s].isnum = is_number(text, len);
			if (v[s].isnum) {
				v[s].x = strtod(v[s].text, NULL);
				v[s].sc_ok = scaled100(text, len, &v[s].sc);
			} else if (agg_numeric[sp->agg]) {
				notnum |= bit(sp->column);
			}
		}
		/*
		 * TIMESTAMPS: a record too short to have the timestamp's field is the newest
		 * seen, counted as too short (a blank line is not); before any timestamp it
		 * stops the run.
		 */
		if (c->time_col && c->time_col > r->nf && r->nf > 0)
			shorts |= bit(c->time_col);
		if (c->time_col && c->time_col <= r->nf) {
			size_t len;
			const char *text = trim(r->f[c->time_col - 1], &len);
			int64_t t;

			/* A missing timestamp is the newest seen, silently; a bad one is counted. */
			if (len > 0 && !is_na(c, text, len)) {
				if (!parse_epoch(c, text, len, &t))
					time_problem = P_BADTS;
				else if (have_time && t < newest)
					time_problem = P_BACK;
				else {
					newest = t;
					have_time = true;
				}
				if (time_problem >= 0)
					timecol = bit(c->time_col);
			}
		}
		/*
		 * Before any timestamp, an unreadable one, or a record too short to have it (a
		 * blank line is not), stops the run (TIMESTAMPS), with or without --strict.
		 */
		if (c->time_col && !have_time && (time_problem == P_BADTS ||
		    (c->time_col > r->nf && r->nf > 0))) {
			nproc = i;
			e->stopped = true;
			e->stopped_first = true;
			e->stop_line = r->line;
			e->stop_cols = bit(c->time_col) | (c->strict ? notnum | shorts : 0);
			break;
		}
		if (c->strict && (notnum || shorts || time_problem >= 0)) {
			nproc = i;
			e->stopped = true;
			e->stop_line = r->line;
			e->stop_cols = notnum | shorts | timecol;
			break;
		}
		if (notnum)
			tally(&e->t[P_NOTNUM], bits_set(notnum), r->line, notnum);
		if (shorts)
			tally(&e->t[P_SHORT], 1, r->line, shorts);
		if (time_problem >= 0)
			tally(&e->t[time_problem], 1, r->line, timecol);

		/* A record before any readable timestamp belongs to no window. */
		pushed = !c->time_col || have_time;
		times[i] = newest;
		if (c->group_col && c->group_col <= r->nf) {
			size_t len;
			const char *text = trim(r->f[c->group_col - 1], &len);

			key = astrndup(text, len);
		}
		g = find_group(&groups, &ngroups, &group_cap, key);
		g->records++;
		key_of[i] = pushed ? (long)(g - groups) : -1;
		if (pushed) {
			if (g->n == g->cap) {
				size_t cap = g->cap ? 2 * g->cap : 16;
				size_t *p = amalloc(cap * sizeof(*p));

				if (g->n > 0)
					memcpy(p, g->idx, g->n * sizeof(*p));
				g->idx = p;
				g->cap = cap;
			}
			g->idx[g->n++] = i;
		}
		if (c->bucket || g->records % c->step != 0)
			continue;

		{
			struct orec *o = &e->out[e->nout++];
			struct buf b = { 0 };

			if (c->append) {
				render_record(&b, c, r);
				buf_putc(&b, c->out_delim);
			} else if (c->group_col) {
				/* OUTPUT: a missing key prints as a null does. */
				if (*key != '\0')
					render_text(&b, c, key, strlen(key));
				else
					render_text(&b, c, c->null_text, strlen(c->null_text));
				buf_putc(&b, c->out_delim);
			}
			o->prefix = astrndup(b.p ? b.p : "", b.len);
			o->prefix_len = b.len;
			free(b.p);
			o->record = i;
			o->ncells = c->nspecs;
			o->cell = amalloc((size_t)c->nspecs * sizeof(*o->cell));
			for (int s = 0; s < c->nspecs; s++) {
				const struct spec *sp = &c->spec[s];
				size_t start, n = 0;

				if (!pushed) {
					o->cell[s] = exact(sp->agg == A_COUNT || sp->agg == A_DISTINCT ? "0" :
					    null_result(c));
					continue;
				}
				/*
				 * Rows: the key's last W records.  Time: those with t - D < t' <= t
				 * (timestamps as taken, never decreasing).
				 */
				if (sp->agg == A_EWMA) {
					/*
					 * ewma: the key's whole history, since the last record 64
					 * half-lives or more after the one before it.
					 */
					start = 0;
					for (size_t k = 1; sp->window.is_time && k < g->n; k++)
						if (times[g->idx[k]] - times[g->idx[k - 1]] >=
						    64 * sp->window.nanos)
							start = k;
				} else if (!sp->window.is_time) {
					start = g->n > sp->window.rows ? g->n - sp->window.rows : 0;
				} else {
					start = g->n;
					while (start > 0 && times[g->idx[start - 1]] > newest - sp->window.nanos)
						start--;
				}
				for (size_t k = start; k < g->n; k++) {
					window_times[n] = times[g->idx[k]];
					window[n++] = &vals[g->idx[k]][s];
				}
				o->cell[s] = aggregate(c, sp, window, window_times, n);
			}
		}
	}
	if (c->bucket)
		evaluate_buckets(c, e, vals, times, key_of, nproc, groups, ngroups);
}

/* ---------------------------------------------------------------- running swag */

struct result {
	struct buf out, err;
	int status;		/* exit status, or -1 */
	int signal;		/* the signal that ended it, or 0 */
	bool timed_out;
};

static uint64_t chunk_rng = 88172645463325252ull;

static size_t
chunk_size(void)
{
	chunk_rng ^= chunk_rng << 13;
	chunk_rng ^= chunk_rng >> 7;
	chunk_rng ^= chunk_rng << 17;
	return 1 + (size_t)(chunk_rng % (chunk_rng % 4 == 0 ? 4096 : 300));
}

static double
now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
set_nonblocking(int fd)
{
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		die("fcntl: %s", strerror(errno));
}

/*
 * Runs swag on the case's input: from a file, or through a pipe written in small
 * random pieces (so that records arrive split across reads).
 */
static void
run_swag(const struct tcase *c, const char *input_path, struct result *res)
{
	int in_fd = -1, in_pipe[2] = { -1, -1 }, out_pipe[2], err_pipe[2], wstatus;
	size_t written = 0;
	double deadline = now_seconds() + RUN_TIMEOUT_SECONDS;
	pid_t pid;

	buf_reset(&res->out);
	buf_reset(&res->err);
	res->status = -1;
	res->signal = 0;
	res->timed_out = false;
	if (c->pipe_feed) {
		if (pipe2(in_pipe, O_CLOEXEC) != 0)
			die("pipe: %s", strerror(errno));
	} else {
		FILE *f = fopen(input_path, "wb");

		if (f == NULL || fwrite(c->input.p ? c->input.p : "", 1, c->input.len, f) != c->input.len ||
		    fclose(f) != 0)
			die("%s: %s", input_path, strerror(errno));
		if ((in_fd = open(input_path, O_RDONLY | O_CLOEXEC)) < 0)
			die("%s: %s", input_path, strerror(errno));
	}
	if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0)
		die("pipe: %s", strerror(errno));
	fflush(NULL);
	if ((pid = fork()) < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		signal(SIGPIPE, SIG_DFL);
		if (dup2(c->pipe_feed ? in_pipe[0] : in_fd, 0) < 0 || dup2(out_pipe[1], 1) < 0 ||
		    dup2(err_pipe[1], 2) < 0)
			_exit(126);
		execv(c->argv[0], (char *const *)c->argv);
		_exit(127);
	}
	close(out_pipe[1]);
	close(err_pipe[1]);
	if (c->pipe_feed) {
		close(in_pipe[0]);
		set_nonblocking(in_pipe[1]);
		if (c->input.len == 0) {
			close(in_pipe[1]);
			in_pipe[1] = -1;
		}
	} else {
		close(in_fd);
	}
	set_nonblocking(out_pipe[0]);
	set_nonblocking(err_pipe[0]);
	for (;;) {
		struct pollfd fds[3];
		int nfds = 0, wait_ms, ready;
		double left = deadline - now_seconds();

		if (out_pipe[0] >= 0)
			fds[nfds++] = (struct pollfd){ .fd = out_pipe[0], .events = POLLIN };
		if (err_pipe[0] >= 0)
			fds[nfds++] = (struct pollfd){ .fd = err_pipe[0], .events = POLLIN };
		if (nfds == 0)
			break;
		if (in_pipe[1] >= 0)
			fds[nfds++] = (struct pollfd){ .fd = in_pipe[1], .events = POLLOUT };
		if (left <= 0) {
			res->timed_out = true;
			kill(pid, SIGKILL);
			break;
		}
		wait_ms = (int)(left * 1000) + 1;
		ready = poll(fds, (nfds_t)nfds, wait_ms);
		if (ready < 0) {
			if (errno == EINTR)
				continue;
			die("poll: %s", strerror(errno));
		}
		for (int i = 0; i < nfds; i++) {
			if (fds[i].revents == 0)
				continue;
			if (fds[i].fd == in_pipe[1]) {
				size_t n = chunk_size();
				ssize_t w;

				if (n > c->input.len - written)
					n = c->input.len - written;
				w = write(in_pipe[1], c->input.p + written, n);
				if (w > 0)
					written += (size_t)w;
				if ((w < 0 && errno != EAGAIN && errno != EINTR) || written == c->input.len) {
					close(in_pipe[1]);	/* done, or swag stopped reading (EPIPE) */
					in_pipe[1] = -1;
				}
			} else {
				char block[65536];
				ssize_t got = read(fds[i].fd, block, sizeof(block));
				struct buf *b = fds[i].fd == out_pipe[0] ? &res->out : &res->err;

				if (got > 0) {
					buf_add(b, block, (size_t)got);
				} else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
					if (fds[i].fd == out_pipe[0])
						out_pipe[0] = -1;
					else
						err_pipe[0] = -1;
					close(fds[i].fd);
				}
			}
		}
	}
	if (in_pipe[1] >= 0)
		close(in_pipe[1]);
	if (out_pipe[0] >= 0)
		close(out_pipe[0]);
	if (err_pipe[0] >= 0)
		close(err_pipe[0]);
	while (waitpid(pid, &wstatus, 0) < 0)
		if (errno != EINTR)
			die("waitpid: %s", strerror(errno));
	if (WIFEXITED(wstatus))
		res->status = WEXITSTATUS(wstatus);
	else if (WIFSIGNALED(wstatus))
		res->signal = WTERMSIG(wstatus);
	if (res->status == 127 && res->out.len == 0)
		die("cannot run %s", c->argv[0]);
}

/* ---------------------------------------------------------------- comparing */

static void
shell_quote(struct buf *b, const char *s)
{
	bool plain = *s != '\0';

	for (const char *p = s; *p != '\0'; p++)
		if (!isalnum((unsigned char)*p) && strchr("-_=.,:@/+%", *p) == NULL)
			plain = false;
	if (plain) {
		buf_puts(b, s);
		return;
	}
	if (strchr(s, '\t') != NULL) {
		buf_puts(b, "\"$(printf '");
		for (const char *p = s; *p != '\0'; p++) {
			if (*p == '\t')
				buf_puts(b, "\\t");
			else if (*p == '\'')
				buf_puts(b, "'\\''");
			else if (*p == '\\' || *p == '%')
				buf_printf(b, "%c%c", *p, *p);
			else
				buf_putc(b, *p);
		}
		buf_puts(b, "')\"");
		return;
	}
	buf_putc(b, '\'');
	for (const char *p = s; *p != '\0'; p++) {
		if (*p == '\'')
			buf_puts(b, "'\\''");
		else
			buf_putc(b, *p);
	}
	buf_putc(b, '\'');
}

static void
command_line(const struct tcase *c, struct buf *b)
{
	buf_puts(b, "swag");
	for (int i = 1; i < c->argc; i++) {
		buf_putc(b, ' ');
		shell_quote(b, c->argv[i]);
	}
}


/* The expected record as text, an approximate value as ~V. */
static void
render_expected(const struct tcase *c, const struct orec *o, struct buf *b)
{
	buf_add(b, o->prefix, o->prefix_len);
	for (int k = 0; k < o->ncells; k++) {
		if (k > 0)
			buf_putc(b, c->out_delim);
		if (!o->cell[k].approx)
			buf_puts(b, o->cell[k].text);
		else if (o->cell[k].is_sd)
			buf_printf(b, "~%s", format_number(c, (double)sqrtl(o->cell[k].v > 0 ?
			    o->cell[k].v : 0)));
		else
			buf_printf(b, "~%s", format_number(c, (double)o->cell[k].v));
	}
}

/* Checks the text of a result compared as a number; returns what is wrong, or NULL. */
static const char *
check_approx(const struct tcase *c, const struct cell *cell, const char *s, size_t n)
{
	char text[640], canon[640];
	long double want = cell->v, allowed = cell->tol, diff;
	double got;

	if (n == 0 || n >= sizeof(text))
		return "not a number";
	memcpy(text, s, n);
	text[n] = '\0';
	if (!is_number(text, n) || !isfinite(got = strtod(text, NULL)))
		return "not a finite number";
	/* OUTPUT: the shortest form that reads back, or %.Nf with -p. */
	if (c->precision < 0) {
		format_shortest(got, canon);
		if (strcmp(canon, text) != 0)
			return aprintf("'%s' is not the shortest form of its number (%s)", text, canon);
	} else {
		format_fixed(got, c->precision, canon, sizeof(canon));
		if (strcmp(canon, text) != 0)
			return aprintf("'%s' is not printed as with -p %d (%s)", text, c->precision, canon);
	}
	if (cell->is_sd) {
		/* The tolerance is the variance's: |sqrt(a) - sqrt(b)| <= |a - b| / (sqrt(a) + sqrt(b)). */
		long double var = want > 0 ? want : 0, sd = sqrtl(var), root = sqrtl(allowed);

		want = sd;
		allowed = sd > 0 && allowed / sd < root ? allowed / sd : root;
	}
	if (c->precision >= 0)
		allowed += 0.5L * powl(10, -c->precision) * (1 + 1e-9L);
	allowed += fabsl(want) * 4e-16L;
	diff = fabsl((long double)got - want);
	if (diff > allowed)
		return aprintf("%s is off by %.3Lg from %.17Lg (allowed: %.3Lg)", text, diff, want,
		    allowed);
	return NULL;
}

static void
show_line(struct buf *b, const char *s, size_t n, size_t start)
{
	const char *end;

	if (start >= n) {
		buf_puts(b, "(end of output)");
		return;
	}
	end = memchr(s + start, '\n', n - start);
	buf_escaped(b, s + start, end != NULL ? (size_t)(end - (s + start)) : n - start);
}

/* Compares standard output with the expected records; says where they first differ. */
static bool
check_output(const struct tcase *c, const struct expect *e, const struct result *res,
    struct buf *why)
{
	const char *got = res->out.p ? res->out.p : "";
	size_t n = res->out.len, pos = 0;

	for (size_t k = 0; k < e->nout; k++) {
		const struct orec *o = &e->out[k];
		size_t start = pos, line = 1;
		const char *problem = NULL;
		struct buf exp = { 0 };

		if (pos >= n) {
			problem = "missing";
		} else if (n - pos < o->prefix_len || memcmp(got + pos, o->prefix, o->prefix_len) != 0) {
			problem = c->append ? "the input record (-a) differs" : "the key (-g) differs";
		} else {
			pos += o->prefix_len;
			for (int j = 0; j < o->ncells && problem == NULL; j++) {
				size_t cell_start;

				if (j > 0) {
					if (pos >= n || got[pos] != c->out_delim) {
						problem = aprintf("no delimiter before result %d", j + 1);
						break;
					}
					pos++;
				}
				cell_start = pos;
				if (c->delimited && !c->no_quotes && pos < n && got[pos] == '"') {
					for (pos++;; pos++) {
						if (pos >= n) {
							problem = "a quote never closed";
							break;
						}
						if (got[pos] == '"') {
							if (pos + 1 < n && got[pos + 1] == '"') {
								pos++;
								continue;
							}
							pos++;
							break;
						}
					}
				} else {
					while (pos < n && got[pos] != c->out_delim && got[pos] != '\n')
						pos++;
				}
				if (problem != NULL)
					break;
				if (!o->cell[j].approx) {
					if (pos - cell_start != strlen(o->cell[j].text) ||
					    memcmp(got + cell_start, o->cell[j].text, pos - cell_start) != 0)
						problem = aprintf("result %d (%s) differs", j + 1,
						    o->record == SIZE_MAX ? "header" : c->spec[j].arg);
				} else {
					const char *what = check_approx(c, &o->cell[j], got + cell_start,
					    pos - cell_start);

					if (what != NULL)
						problem = aprintf("result %d (%s): %s", j + 1, c->spec[j].arg, what);
				}
			}
			if (problem == NULL && (pos >= n || got[pos] != '\n'))
				problem = "more fields than expected";
		}
		if (problem == NULL) {
			pos++;
			continue;
		}
		for (size_t i = 0; i < start && i < n; i++)
			line += got[i] == '\n';
		buf_printf(why, "output line %zu (%s): %s\n", line, o->record == SIZE_MAX ?
		    "the header" : aprintf("input line %llu", (unsigned long long)c->rec[o->record].line),
		    problem);
		render_expected(c, o, &exp);
		buf_puts(why, "    expected: ");
		buf_escaped(why, exp.p ? exp.p : "", exp.len);
		buf_puts(why, "\n    got:      ");
		show_line(why, got, n, start);
		buf_putc(why, '\n');
		free(exp.p);
		return false;
	}
	if (pos < n) {
		buf_printf(why, "output after the %zu records expected:\n    got:      ", e->nout);
		show_line(why, got, n, pos);
		buf_putc(why, '\n');
		return false;
	}
	return true;
}

/*
 * Checks the exit status and standard error: under --strict, the one message naming
 * the line and a column of the first problem; else one summary line per kind of
 * problem, with its count and first line and column (BAD INPUT).
 */
static bool
check_status_and_stderr(const struct tcase *c, const struct expect *e, const struct result *res,
    struct buf *why)
{
	static const char *const kind_names[] = {
		"fields that are not numbers", "records too short", "unreadable timestamps",
		"timestamps going backwards",
	};
	const char *err = res->err.p ? res->err.p : "";
	int want_status = e->stopped ? 1 : 0;
	bool ok = true, seen[P_KINDS] = { false };
	size_t nlines = 0;

	if (res->timed_out) {
		buf_printf(why, "swag ran for over %d seconds: killed\n", RUN_TIMEOUT_SECONDS);
		return false;
	}
	if (res->signal != 0) {
		buf_printf(why, "swag was killed by signal %d (%s)\n", res->signal, strsignal(res->signal));
		ok = false;
	} else if (res->status != want_status) {
		buf_printf(why, "exit status %d, expected %d\n", res->status, want_status);
		ok = false;
	}
	for (const char *s = err; *s != '\0';) {
		const char *end = strchr(s, '\n');
		size_t len = end != NULL ? (size_t)(end - s) : strlen(s);
		char *line = astrndup(s, len);
		const char *problem = NULL;

		s += len + (end != NULL);
		nlines++;
		if (e->stopped) {
			unsigned long long l = 0;
			unsigned col = 0;
			int used = 0;

			if (nlines > 1 && e->stopped_first &&
			    strncmp(line, "swag: line ", 11) != 0)
				problem = NULL;	/* the hint: the forms swag reads */
			else if (nlines > 1)
				problem = "more than one message";
			else if (sscanf(line, "swag: line %llu, column %u: %n", &l, &col, &used) != 2 ||
			    used == 0)
				problem = "not a message naming a line and a column";
			else if (l != e->stop_line || !(bit((int)col) & e->stop_cols))
				problem = aprintf("names line %llu, column %u; expected line %llu and a "
				    "column with a problem", l, col, (unsigned long long)e->stop_line);
		} else if (c->quiet) {
			problem = "a message under -q";
		} else {
			int kind = -1, used = 0;
			unsigned long long count = 0, l = 0;
			unsigned col = 0;
			const char *first = strstr(line, " (first: line ");

			if (strstr(line, "not a number") || strstr(line, "not numbers"))
				kind = P_NOTNUM;
			else if (strstr(line, "too few fields"))
				kind = P_SHORT;
			else if (strstr(line, "timestamp") && strstr(line, "could not be read"))
				kind = P_BADTS;
			else if (strstr(line, "timestamp") && strstr(line, "backwards"))
				kind = P_BACK;
			if (kind < 0 || first == NULL || sscanf(line, "swag: %llu ", &count) != 1 ||
			    sscanf(first, " (first: line %llu, column %u)%n", &l, &col, &used) != 2 ||
			    first[used] != '\0') {
				problem = "not a summary of bad input";
			} else if (seen[kind]) {
				problem = "a second summary of the same kind";
			} else {
				const struct tally *t = &e->t[kind];

				seen[kind] = true;
				if (t->count == 0)
					problem = aprintf("expected no %s", kind_names[kind]);
				else if (count != t->count || l != t->line || !(bit((int)col) & t->cols))
					problem = aprintf("expected %llu %s, the first on line %llu",
					    (unsigned long long)t->count, kind_names[kind],
					    (unsigned long long)t->line);
				else if (kind == P_NOTNUM && strcmp(line, count == 1 ?
				    aprintf("swag: 1 field was not a number (first: line %llu, column %u)", l, col) :
				    aprintf("swag: %llu fields were not numbers (first: line %llu, column %u)",
				    count, l, col)) != 0)
					problem = "worded unlike BAD INPUT";
				else if (kind == P_SHORT && strcmp(line, count == 1 ?
				    aprintf("swag: 1 record had too few fields (first: line %llu, column %u)", l, col) :
				    aprintf("swag: %llu records had too few fields (first: line %llu, column %u)",
				    count, l, col)) != 0)
					problem = "worded unlike BAD INPUT";
			}
		}
		if (problem != NULL) {
			buf_puts(why, "standard error: ");
			buf_escaped(why, line, len);
			buf_printf(why, "\n    %s\n", problem);
			ok = false;
		}
	}
	if (e->stopped && nlines == 0) {
		buf_printf(why, "no message; expected one naming line %llu\n",
		    (unsigned long long)e->stop_line);
		ok = false;
	}
	if (!e->stopped && !c->quiet)
		for (int k = 0; k < P_KINDS; k++)
			if (e->t[k].count > 0 && !seen[k]) {
				buf_printf(why, "standard error: no summary of %s (expected %llu, the first "
				    "on line %llu)\n", kind_names[k], (unsigned long long)e->t[k].count,
				    (unsigned long long)e->t[k].line);
				ok = false;
			}
	return ok;
}

/* ---------------------------------------------------------------- main */

/* What the cases covered, for -v: how many had each feature. */
enum {
	F_PLAIN, F_DELIMITED, F_QUOTED, F_HEADER, F_APPEND, F_COMMENTS, F_STEP, F_TIME, F_GROUP,
	F_STRICT, F_STRICT_STOP, F_STOP_AFTER_64, F_SHORT, F_NOTNUM, F_BADTS, F_BACK, F_CRLF,
	F_NO_FINAL_NEWLINE, F_PIPE, F_PRECISION, F_MIN_COUNT, F_NA, F_EMPTY_OUTPUT, F_BUCKETS,
	F_NO_QUOTES, F_ISO_TIME, F_FEATURES
};
static const char *const feature_names[F_FEATURES] = {
	"plain rows", "delimited", "quoted fields", "-H", "-a", "-C", "-s", "-t", "-g",
	"--strict", "strict stops", "strict stops past record 64", "short records",
	"not numbers", "unreadable timestamps", "backward timestamps", "CRLF",
	"no final newline", "piped in pieces", "-p", "-m", "--na", "no output",
	"-s DURATION", "--no-quotes", "ISO 8601 times",
};

static void
count_features(const struct tcase *c, const struct expect *e, uint64_t *f)
{
	bool has[F_FEATURES] = { false };

	has[F_PLAIN] = c->plain;
	has[F_DELIMITED] = c->delimited;
	has[F_QUOTED] = c->delimited && !c->no_quotes && memchr(c->input.p ? c->input.p : "", '"', c->input.len);
	has[F_HEADER] = c->header;
	has[F_APPEND] = c->append;
	has[F_COMMENTS] = c->comments;
	has[F_STEP] = c->step > 1;
	has[F_TIME] = c->time_col > 0;
	has[F_GROUP] = c->group_col > 0;
	has[F_STRICT] = c->strict;
	has[F_STRICT_STOP] = e->stopped;
	has[F_STOP_AFTER_64] = e->stopped && e->nout > 64;
	has[F_SHORT] = e->t[P_SHORT].count > 0;
	has[F_NOTNUM] = e->t[P_NOTNUM].count > 0;
	has[F_BADTS] = e->t[P_BADTS].count > 0;
	has[F_BACK] = e->t[P_BACK].count > 0;
	has[F_CRLF] = c->crlf;
	has[F_NO_FINAL_NEWLINE] = !c->final_newline;
	has[F_PIPE] = c->pipe_feed;
	has[F_PRECISION] = c->precision >= 0;
	has[F_ISO_TIME] = c->iso_time;
	has[F_MIN_COUNT] = c->min_count > 1;
	has[F_NA] = c->nna > 0;
	has[F_EMPTY_OUTPUT] = e->nout == 0;
	has[F_BUCKETS] = c->bucket > 0;
	has[F_NO_QUOTES] = c->no_quotes;
	for (int k = 0; k < F_FEATURES; k++)
		f[k] += has[k];
}

static void
write_file(const char *dir, const char *name, const char *data, size_t len)
{
	char *path = aprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "wb");

	if (f == NULL || fwrite(data, 1, len, f) != len || fclose(f) != 0)
		die("%s: %s", path, strerror(errno));
}

/* Writes the case to DIR/seed-N: its input, a script running $SWAG on it, and both outputs. */
static void
keep_case(const char *dir, const struct tcase *c, const struct expect *e, const struct result *res)
{
	char *sub = aprintf("%s/seed-%llu", dir, (unsigned long long)c->seed);
	struct buf b = { 0 };

	mkdir(dir, 0777);
	if (mkdir(sub, 0777) != 0 && errno != EEXIST)
		die("%s: %s", sub, strerror(errno));
	write_file(sub, "input", c->input.p ? c->input.p : "", c->input.len);
	buf_printf(&b, "#!/bin/sh\n# differential seed %llu: runs $SWAG (default swag) on input\n"
	    "SWAG=${SWAG:-swag}\nswag() { \"$SWAG\" \"$@\"; }\ncd \"$(dirname \"$0\")\" && ",
	    (unsigned long long)c->seed);
	command_line(c, &b);
	buf_puts(&b, " < input\n");
	write_file(sub, "cmd", b.p, b.len);
	chmod(aprintf("%s/cmd", sub), 0755);
	buf_reset(&b);
	for (size_t k = 0; k < e->nout; k++) {
		render_expected(c, &e->out[k], &b);
		buf_putc(&b, '\n');
	}
	write_file(sub, "expected", b.p ? b.p : "", b.len);
	buf_reset(&b);
	if (e->stopped)
		buf_printf(&b, "exit 1: a message naming line %llu\n", (unsigned long long)e->stop_line);
	else
		for (int k = 0; k < P_KINDS; k++)
			if (e->t[k].count > 0)
				buf_printf(&b, "problem kind %d: %llu, first on line %llu\n", k,
				    (unsigned long long)e->t[k].count, (unsigned long long)e->t[k].line);
	write_file(sub, "expected-stderr", b.p ? b.p : "", b.len);
	write_file(sub, "stdout", res->out.p ? res->out.p : "", res->out.len);
	write_file(sub, "stderr", res->err.p ? res->err.p : "", res->err.len);
	free(b.p);
}

static uint64_t
number_arg(const char *option, const char *text)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(text != NULL ? text : "", &end, 10);
	if (text == NULL || *text == '\0' || *end != '\0' || errno != 0)
		die("%s needs a number", option);
	return v;
}

int
main(int argc, char **argv)
{
	const char *swag = getenv("SWAG"), *keep = NULL, *env = getenv("DIFF_CASES"), *tmpdir;
	uint64_t first = 1, cases = 300, passed = 0, failed = 0;
	bool verbose = false, single = false;
	char *input_path;
	struct result res = { 0 };
	struct buf why = { 0 }, cmd = { 0 };
	double started = now_seconds();
	uint64_t features[F_FEATURES] = { 0 };
	int fd;

	if (env != NULL && *env != '\0')
		cases = number_arg("DIFF_CASES", env);
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--cases") == 0 && i + 1 < argc) {
			cases = number_arg("--cases", argv[++i]);
		} else if (strcmp(argv[i], "--first") == 0 && i + 1 < argc) {
			first = number_arg("--first", argv[++i]);
		} else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
			first = number_arg("--seed", argv[++i]);
			cases = 1;
			single = true;
		} else if (strcmp(argv[i], "--keep") == 0 && i + 1 < argc) {
			keep = argv[++i];
		} else if (strcmp(argv[i], "-v") == 0 || strcmp(argv[i], "--verbose") == 0) {
			verbose = true;
		} else {
			fprintf(stderr, "usage: SWAG=./swag %s [--cases N] [--first SEED] [--seed SEED] "
			    "[--keep DIR] [-v]\n", argv[0]);
			return 2;
		}
	}
	if (swag == NULL || *swag == '\0')
		swag = "./swag";
	if (access(swag, X_OK) != 0)
		die("SWAG=%s: not an executable file", swag);
	tmpdir = getenv("TMPDIR");
	if (tmpdir == NULL || *tmpdir == '\0')
		tmpdir = "/tmp";
	if (asprintf(&input_path, "%s/swag-differential-XXXXXX", tmpdir) < 0)
		die("out of memory");
	if ((fd = mkstemp(input_path)) < 0)
		die("%s: %s", input_path, strerror(errno));
	close(fd);
	signal(SIGPIPE, SIG_IGN);

	for (uint64_t seed = first; seed < first + cases; seed++) {
		struct tcase c;
		struct expect e;
		bool ok;

		gen_case(&c, seed, swag);
		evaluate(&c, &e);
		run_swag(&c, input_path, &res);
		buf_reset(&why);
		ok = check_status_and_stderr(&c, &e, &res, &why);
		ok = check_output(&c, &e, &res, &why) && ok;
		count_features(&c, &e, features);
		if (keep != NULL && (single || !ok))
			keep_case(keep, &c, &e, &res);
		buf_reset(&cmd);
		command_line(&c, &cmd);
		if (ok) {
			passed++;
			if (verbose)
				printf("ok seed %llu: %s < input (%zu lines)\n", (unsigned long long)seed,
				    cmd.p, c.lines);
		} else {
			failed++;
			printf("FAIL seed %llu: %s < input (%zu lines, %zu bytes%s)\n%s",
			    (unsigned long long)seed, cmd.p, c.lines, c.input.len,
			    c.pipe_feed ? ", fed through a pipe" : "", why.p);
			printf("    reproduce: SWAG=%s %s --seed %llu --keep DIR\n", swag, argv[0],
			    (unsigned long long)seed);
		}
		fflush(stdout);
		free(c.input.p);
		arena_free();
	}
	unlink(input_path);
	free(input_path);
	free(res.out.p);
	free(res.err.p);
	free(why.p);
	free(cmd.p);
	if (verbose) {
		printf("differential: %.1f s; cases with", now_seconds() - started);
		for (int k = 0; k < F_FEATURES; k++)
			printf("%s %s: %llu", k ? "," : "", feature_names[k], (unsigned long long)features[k]);
		printf("\n");
	}
	printf("differential: %llu passed, %llu failed\n", (unsigned long long)passed,
	    (unsigned long long)failed);
	return failed > 0;
}
