/*
 * test_split.c: blank-separated lines split into fields (src/split.h): the SSE2
 * splitter and the portable one against a naive byte loop, over random runs of lines
 * whose fields, blanks, CRs and lengths cross every 16- and 32-byte boundary.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "split.h"

/* xorshift64*: reproducible random numbers. */
static uint64_t
next_random(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 0x2545F4914F6CDD1DU;
}

/*
 * The naive splitter: the line ends at its LF (or end), a CR before the LF is not
 * part of it, and fields are the runs of bytes other than space and TAB.
 */
static const char *
naive_split(const char *s, const char *end, struct field *fields, size_t limit,
    size_t *count)
{
	const char *lf = s, *line_end;
	size_t n = 0;

	while (lf < end && *lf != '\n')
		lf++;
	line_end = lf > s && lf[-1] == '\r' ? lf - 1 : lf;
	for (const char *p = s; p < line_end;) {
		const char *start;

		if (*p == ' ' || *p == '\t') {
			p++;
			continue;
		}
		start = p;
		while (p < line_end && *p != ' ' && *p != '\t')
			p++;
		if (n < limit) {
			fields[n].text = start;
			fields[n].len = (size_t)(p - start);
		}
		n++;
	}
	*count = n < limit ? n : limit;
	return lf;
}

typedef const char *(*splitter)(const char *, const char *, struct field *, size_t,
    size_t *);

static const char *
sse2_or_portable(const char *s, const char *end, struct field *fields, size_t limit,
    size_t *count)
{
	return split_line(s, end, fields, limit, count);
}

static const char *
portable(const char *s, const char *end, struct field *fields, size_t limit,
    size_t *count)
{
	return split_line_portable(s, end, fields, limit, count);
}

/* Splits every line of buf[0, len) with split and with the naive loop; they must agree. */
static void
check_run(splitter split, const char *buf, size_t len, size_t limit)
{
	const char *s = buf, *end = buf + len;
	struct field want[64], got[64];

	while (s < end) {
		size_t want_count, got_count;
		const char *want_end = naive_split(s, end, want, limit, &want_count);
		const char *got_end = split(s, end, got, limit, &got_count);

		cr_assert_eq(got_end, want_end, "line at %td: end %td, expected %td", s - buf,
		    got_end - buf, want_end - buf);
		cr_assert_eq(got_count, want_count, "line at %td: %zu fields, expected %zu",
		    s - buf, got_count, want_count);
		for (size_t i = 0; i < want_count; i++)
			cr_assert(got[i].text == want[i].text && got[i].len == want[i].len,
			    "line at %td, field %zu: (%td, %zu), expected (%td, %zu)", s - buf, i,
			    got[i].text - buf, got[i].len, want[i].text - buf, want[i].len);
		s = want_end + 1;
	}
}

Test(split, random_runs_of_lines)
{
	static const char alphabet[] = "ab  \t\t\r\n\x01#9";
	static const size_t limits[] = { 0, 1, 2, 3, 5, 60 };
	enum { RUNS = 20000, LEN_MAX = 200, PAD = READER_PAD };
	char buf[LEN_MAX + PAD];
	uint64_t state = 0x9E3779B97F4A7C15U;

	for (int run = 0; run < RUNS; run++) {
		size_t len = (size_t)(next_random(&state) % LEN_MAX);
		/* Mostly fields and blanks, with line ends now and then. */
		for (size_t i = 0; i < len; i++) {
			uint64_t r = next_random(&state);

			buf[i] = r % 8 == 0 ? alphabet[(r >> 8) % (sizeof(alphabet) - 1)] :
			    "abcdefgh   \t"[(r >> 8) % 12];
		}
		/* The padding holds what a reader's might: anything but the input. */
		for (size_t i = len; i < len + PAD; i++)
			buf[i] = (char)(next_random(&state) & 0xFF);
		for (size_t l = 0; l < sizeof(limits) / sizeof(limits[0]); l++) {
			check_run(sse2_or_portable, buf, len, limits[l]);
			check_run(portable, buf, len, limits[l]);
		}
	}
}

/*
 * The naive answer of bare_line (max 63; 15 without SSE2, where it is short_bare_line)
 * and short_bare_line (max 15): the length of the line at s when it is 1 to max bytes
 * of one field (no byte below '!', bytes from 0x80 on being field bytes) and its LF,
 * before end; else 0.
 */
static size_t
naive_bare_line(const char *s, const char *end, size_t max)
{
	for (size_t i = 0; i <= max && s + i < end; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\n')
			return i;
		if (c < '!')
			return 0;
	}
	return 0;
}

/*
 * Random runs of lines of 0 to 80 bytes, mostly one field of bytes on both sides of
 * the test's edges ('!', DEL, 0x80, 0xFF), some with a blank, CR or control byte, the
 * end anywhere: bare_line, called line after line with one line_block as the loop
 * calls it, and short_bare_line must give the naive answer for every line.
 */
Test(split, bare_lines)
{
	static const char field[] = "0123456789.abz!~\x7f\x80\xa0\xff";
	static const char other[] = " \t\r\x01\x1f";
	enum { RUNS = 20000, LEN_MAX = 400, PAD = READER_PAD };
	char buf[LEN_MAX + PAD];
	uint64_t state = 0x243F6A8885A308D3U;
	size_t bare = 0;

	for (int run = 0; run < RUNS; run++) {
		size_t len = (size_t)(next_random(&state) % LEN_MAX), i = 0;
		const char *s = buf, *end = buf + len;
		struct line_block blk = { buf, 0 };

		while (i < len) {
			uint64_t r = next_random(&state);
			/* Mostly short lines, some as long as a mask and longer. */
			size_t line = r % 4 != 0 ? (r >> 8) % 18 : (r >> 8) % 81;

			for (size_t j = 0; j < line && i < len; j++, i++) {
				uint64_t b = next_random(&state);

				buf[i] = b % 64 != 0 ? field[(b >> 8) % (sizeof(field) - 1)] :
				    other[(b >> 8) % (sizeof(other) - 1)];
			}
			if (i < len)
				buf[i++] = '\n';
		}
		/* The padding holds what a reader's might: anything but the input. */
		for (i = len; i < len + PAD; i++)
			buf[i] = (char)(next_random(&state) & 0xFF);
		while (s < end) {
			const char *lf = memchr(s, '\n', (size_t)(end - s));
#ifdef SPLIT_SSE2
			size_t want = naive_bare_line(s, end, 63);
#else
			size_t want = naive_bare_line(s, end, 15);	/* short_bare_line's */
#endif

			cr_assert_eq(bare_line(&blk, s, end), want, "run %d, line at %td", run,
			    s - buf);
			cr_assert_eq(short_bare_line(s, end), naive_bare_line(s, end, 15),
			    "run %d, line at %td", run, s - buf);
			bare += want != 0;
			if (lf == NULL)
				break;
			s = lf + 1;
		}
	}
	/* The runs hold bare lines of every length, not only lines that go elsewhere. */
	cr_assert_gt(bare, RUNS);
}

Test(split, examples)
{
	static const struct {
		const char *line;
		size_t count;
		const char *fields[4];
	} cases[] = {
		{ "", 0, { NULL } },
		{ "  \t ", 0, { NULL } },
		{ "37.922", 1, { "37.922" } },
		{ "a\r", 1, { "a" } },
		{ "a \r", 1, { "a" } },
		{ "a\r b", 2, { "a\r", "b" } },
		{ " 1700000000.000  web-06\t37.922 ", 3, { "1700000000.000", "web-06", "37.922" } },
		{ "a_field_of_exactly_sixteen_bytes_", 1, { "a_field_of_exactly_sixteen_bytes_" } },
		{ "0123456789abcdef 0123456789abcdef", 2, { "0123456789abcdef", "0123456789abcdef" } },
		/* The SSE2 splitter's 32-byte chunks: fields and CRs at their edges. */
		{ "a_field_of_exactly_thirty-two_b", 1, { "a_field_of_exactly_thirty-two_b" } },
		{ "a_field_of_exactly_thirty-two_by", 1, { "a_field_of_exactly_thirty-two_by" } },
		{ "a_field_of_exactly_thirty-two_byt", 1, { "a_field_of_exactly_thirty-two_byt" } },
		{ "0123456789abcdef0123456789abcde\r", 1, { "0123456789abcdef0123456789abcde" } },
		{ "0123456789abcdef0123456789abcdef\r", 1, { "0123456789abcdef0123456789abcdef" } },
		{ "0123456789abcdef0123456789abcde \r", 1, { "0123456789abcdef0123456789abcde" } },
		{ "0123456789abcdef0123456789abcd x\r", 2, { "0123456789abcdef0123456789abcd", "x" } },
		{ "x 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef y", 3,
		    { "x", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "y" } },
	};
	char buf[256];

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		size_t len = strlen(cases[c].line), count;
		struct field fields[8];
		const char *end;

		memset(buf, 'x', sizeof(buf));
		memcpy(buf, cases[c].line, len);
		buf[len] = '\n';
		end = split_line(buf, buf + len + 1, fields, 8, &count);
		cr_assert_eq(end, buf + len, "\"%s\": the LF", cases[c].line);
		cr_assert_eq(count, cases[c].count, "\"%s\": %zu fields", cases[c].line, count);
		for (size_t i = 0; i < count; i++)
			cr_assert(fields[i].len == strlen(cases[c].fields[i]) &&
			    memcmp(fields[i].text, cases[c].fields[i], fields[i].len) == 0,
			    "\"%s\", field %zu", cases[c].line, i);
	}
}

/*
 * The naive delimited splitter (split.h's split_delimited contract): NULL for a line
 * with a quote, a CR other than the one before its LF, or no LF; else fields split
 * on the delimiter, space and TAB (less the delimiter) trimmed, fields from keep on
 * not stored, every one counted.
 */
static const char *
naive_delimited(const char *s, const char *end, char delimiter, struct field *fields,
    size_t limit, size_t keep, size_t *count)
{
	const char *lf = s, *line_end, *start = s;
	size_t n = 0;

	while (lf < end && *lf != '\n')
		lf++;
	if (lf == end)
		return NULL;
	line_end = lf > s && lf[-1] == '\r' ? lf - 1 : lf;
	for (const char *p = s; p < line_end; p++)
		if (*p == '"' || *p == '\r')
			return NULL;
	for (const char *p = s;; p++) {
		if (p < line_end && *p != delimiter)
			continue;
		if (n < limit && n >= keep) {
			fields[n].text = NULL;
			fields[n].len = 0;
		} else if (n < limit) {
			const char *a = start, *b = p;

			while (a < b && (*a == ' ' || *a == '\t') && *a != delimiter)
				a++;
			while (b > a && (b[-1] == ' ' || b[-1] == '\t') && b[-1] != delimiter)
				b--;
			fields[n].text = a;
			fields[n].len = (size_t)(b - a);
		}
		n++;
		start = p + 1;
		if (p == line_end)
			break;
	}
	*count = n;
	return lf;
}

typedef const char *(*delimited_splitter)(const char *, const char *, char, struct field *,
    size_t, size_t, size_t *);

static const char *
delimited_sse2_or_portable(const char *s, const char *end, char delimiter,
    struct field *fields, size_t limit, size_t keep, size_t *count)
{
	return split_delimited(s, end, delimiter, fields, limit, keep, count);
}

static const char *
delimited_portable(const char *s, const char *end, char delimiter, struct field *fields,
    size_t limit, size_t keep, size_t *count)
{
	return split_delimited_portable(s, end, delimiter, fields, limit, keep, count);
}

/* Splits every line of buf[0, len) with split and with the naive loop; they must agree. */
static void
check_delimited_run(delimited_splitter split, const char *buf, size_t len, char delimiter,
    size_t limit, size_t keep)
{
	const char *s = buf, *end = buf + len;
	struct field want[64], got[64];

	while (s < end) {
		size_t want_count = 0, got_count = 0;
		const char *want_end = naive_delimited(s, end, delimiter, want, limit, keep,
		    &want_count);
		const char *got_end = split(s, end, delimiter, got, limit, keep, &got_count);
		const char *lf = memchr(s, '\n', (size_t)(end - s));

		cr_assert_eq(got_end, want_end, "line at %td: end %td, expected %td", s - buf,
		    got_end != NULL ? got_end - buf : -1, want_end != NULL ? want_end - buf : -1);
		if (want_end != NULL) {
			cr_assert_eq(got_count, want_count, "line at %td: %zu fields, expected %zu",
			    s - buf, got_count, want_count);
			for (size_t i = 0; i < want_count && i < limit; i++)
				cr_assert(got[i].text == want[i].text && got[i].len == want[i].len,
				    "line at %td, field %zu: (%td, %zu), expected (%td, %zu)",
				    s - buf, i, got[i].text - buf, got[i].len, want[i].text - buf,
				    want[i].len);
		}
		if (lf == NULL)
			break;
		s = lf + 1;
	}
}

Test(split, delimited_random_runs_of_lines)
{
	static const char alphabet[] = "ab  \t\t\r\n\"#9,;";
	static const char delimiters[] = { ',', '\t', ' ', ';' };
	static const size_t limits[] = { 0, 1, 3, 64 }, keeps[] = { 0, 2, (size_t)-1 };
	enum { RUNS = 20000, LEN_MAX = 200 };
	uint64_t state = 0x2545F4914F6CDD1DU;

	for (int run = 0; run < RUNS; run++) {
		size_t len = (size_t)(next_random(&state) % LEN_MAX);
		/* Exactly the input, so that a read past its end is caught (sanitizers). */
		char *buf = malloc(len > 0 ? len : 1);

		cr_assert(buf != NULL);
		for (size_t i = 0; i < len; i++) {
			uint64_t r = next_random(&state);

			buf[i] = r % 8 == 0 ? alphabet[(r >> 8) % (sizeof(alphabet) - 1)] :
			    r % 8 == 1 ? '\n' : "abcdefgh ,,\t,;"[(r >> 8) % 14];
		}
		for (size_t d = 0; d < sizeof(delimiters); d++)
			for (size_t l = 0; l < sizeof(limits) / sizeof(limits[0]); l++)
				for (size_t k = 0; k < sizeof(keeps) / sizeof(keeps[0]); k++) {
					check_delimited_run(delimited_sse2_or_portable, buf, len,
					    delimiters[d], limits[l], keeps[k]);
					check_delimited_run(delimited_portable, buf, len,
					    delimiters[d], limits[l], keeps[k]);
				}
		free(buf);
	}
}
