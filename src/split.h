/*
 * split.h: blank-separated lines split into fields, as awk splits them, and
 * delimited lines without quotes as libcsv splits them (split_delimited).
 *
 * A field is a run of bytes other than space and TAB; a line ends at its LF, and a CR
 * before the LF is not part of it.  split_line() finds a line's end and its first
 * fields in one pass: 32 bytes at a time with SSE2 where there is SSE2, a word at a
 * time elsewhere (split_line_portable, which the tests hold the other to).  Every
 * blank splitter may read up to 32 bytes past the end it is given (the reader's
 * READER_PAD); the delimited one reads only before its end.
 */
#ifndef SWAG_SPLIT_H
#define SWAG_SPLIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "reader.h"
#include "record.h"

#if defined(__SSE2__) && !defined(SPLIT_NO_SIMD)
#define SPLIT_SSE2 1
#include <emmintrin.h>
#endif

/* Forced inline: the splitter is the inner loop of reading blank-separated input. */
#define SPLIT_INLINE static inline __attribute__((always_inline))

/*
 * Returns the position of the first blank (space or TAB) among the 8 bytes at s,
 * or 8.  It tests the 8 bytes at once (the reader makes them readable past a line's
 * end): x - 0x01... & ~x marks a zero byte of x exactly where no lower byte is zero,
 * so the lowest mark is exact.  On 7-byte numbers this costs about 15 instructions
 * where a byte loop costs 55.
 */
SPLIT_INLINE size_t
first_blank_of_8(const char *s)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
	uint64_t word, spaces, tabs, marks;

	memcpy(&word, s, sizeof(word));
	spaces = word ^ (ones * ' ');
	tabs = word ^ (ones * '\t');
	marks = (((spaces - ones) & ~spaces) | ((tabs - ones) & ~tabs)) & highs;
	return marks != 0 ? (size_t)__builtin_ctzll(marks) / 8 : 8;
#else
	size_t i = 0;

	while (i < 8 && s[i] != ' ' && s[i] != '\t')
		i++;
	return i;
#endif
}

/*
 * Returns the length, 1 to 15, of the line at s when it is one short field alone (such
 * as "37.922" or "10.2.235.47" and its LF, the LF before end); else 0.  A word at a time
 * is tested for bytes below '!', among them LF, CR, space and TAB, as first_blank_of_8
 * tests for blanks: x - 0x21... & ~x marks a byte below 0x21 exactly where no lower byte
 * is one, so the lowest mark is the line's first control character or blank, and the
 * line is a bare field when that is its LF.  That costs about 10 instructions a word,
 * where a search for the LF and then one for the field's end cost about 70.  The second
 * word is read only when the first is all field, so its LF is further on and the 8
 * bytes are there (the lines end in LF, or the reader's padding follows the last).
 */
SPLIT_INLINE size_t
short_bare_line(const char *s, const char *end)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
	uint64_t word, marks;
	size_t len = 0;

	memcpy(&word, s, sizeof(word));
	marks = (word - ones * '!') & ~word & highs;
	if (marks == 0) {
		len = 8;
		memcpy(&word, s + 8, sizeof(word));
		marks = (word - ones * '!') & ~word & highs;
		if (marks == 0)
			return 0;
	}
	len += (size_t)__builtin_ctzll(marks) / 8;
	return s[len] == '\n' && (size_t)(end - s) > len ? len : 0;
#else
	(void)s;
	(void)end;
	return 0;
#endif
}

/*
 * Where the lines of one field alone are found (bare_line).  The loop over such lines
 * runs at the speed of a chain, each line's start waiting for the last one's end, and
 * short_bare_line puts a load of the line's first word on it (the splitter then takes
 * a tenth of swag -w 1000 avg's time, perf cpu-clock: about 3 ns a line).
 * With SSE2, a mask over the 64 bytes from base, bit i set where base[i] is below '!'
 * (LF, CR, blanks and the other control characters; bytes from 0x80 on are field
 * bytes), is made once for the lines it covers, and a line is one field alone when
 * its first such byte is its LF: a shift and a count of trailing zeros, off the
 * chain.  -w 100000 distinct takes 5 % less time, -w 1000 avg 2 %, for 5 instructions
 * a record more.
 */
struct line_block {
	const char *base;
	uint64_t low;
};

#ifdef SPLIT_SSE2
/* Makes blk's mask for the 64 bytes from s (readable: s is before end; READER_PAD). */
SPLIT_INLINE void
line_block_at(struct line_block *blk, const char *s)
{
	const __m128i bang = _mm_set1_epi8('!');
	uint64_t low = 0;

	for (int i = 0; i < 4; i++) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + 16 * i));
		unsigned below = (unsigned)_mm_movemask_epi8(_mm_cmplt_epi8(v, bang)) &
		    ~(unsigned)_mm_movemask_epi8(v);

		low |= (uint64_t)below << (16 * i);
	}
	blk->base = s;
	blk->low = low;
}
#endif

/*
 * Returns the length of the line at s when it is one field alone and its LF, the LF
 * before end (such as "37.922" or "10.2.235.47"), 1 to 63 bytes; else 0, and the line
 * goes to split_line.  s is before end and at or after the line of the last call with
 * blk, which starts the mask again at s when none of its bits is at or after s (so
 * { s, 0 } starts blk at the first line, s).  Without SSE2, short_bare_line's answer
 * (lines of 1 to 15 bytes).
 */
SPLIT_INLINE size_t
bare_line(struct line_block *blk, const char *s, const char *end)
{
#ifdef SPLIT_SSE2
	size_t offset = (size_t)(s - blk->base), len;
	uint64_t low = offset < 64 ? blk->low >> offset : 0;

	if (low == 0) {
		line_block_at(blk, s);
		if ((low = blk->low) == 0)
			return 0;
	}
	len = (size_t)__builtin_ctzll(low);
	return s[len] == '\n' && (size_t)(end - s) > len ? len : 0;
#else
	(void)blk;
	return short_bare_line(s, end);
#endif
}

/*
 * Finds the next blank-separated field at or after s, before end: stores its text in
 * *field and returns the position after it, or returns NULL when only blanks are left.
 */
SPLIT_INLINE const char *
next_blank_field(const char *s, const char *end, struct field *field)
{
	size_t k;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (s == end)
		return NULL;
	field->text = s;
	do {
		k = first_blank_of_8(s);
		s += k;
	} while (k == 8 && s < end);
	if (s > end)
		s = end;
	field->len = (size_t)(s - field->text);
	return s;
}

/*
 * split_line with a word at a time: finds the LF, then the fields one after another.
 * The same contract as split_line.
 */
SPLIT_INLINE const char *
split_line_portable(const char *s, const char *end, struct field *fields, size_t limit,
    size_t *count)
{
	const char *line_end = reader_find_newline(s, end), *p = s;
	size_t n = 0;

	if (line_end == NULL)
		line_end = end;
	if (line_end > s && line_end[-1] == '\r')
		line_end--;
	while (n < limit && (p = next_blank_field(p, line_end, &fields[n])) != NULL)
		n++;
	*count = n;
	return line_end < end && *line_end == '\r' ? line_end + 1 : line_end;
}

#ifdef SPLIT_SSE2
/* The masks of the 32 bytes at p: bit i for p[i] a blank (*blanks) or an LF (returned). */
SPLIT_INLINE uint32_t
split_masks_32(const char *p, uint32_t *blanks)
{
	const __m128i space = _mm_set1_epi8(' '), tab = _mm_set1_epi8('\t');
	const __m128i lf = _mm_set1_epi8('\n');
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
	__m128i y = _mm_loadu_si128((const __m128i *)(const void *)(p + 16));

	*blanks = (uint32_t)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(x, space),
	    _mm_cmpeq_epi8(x, tab))) | (uint32_t)_mm_movemask_epi8(_mm_or_si128(
	    _mm_cmpeq_epi8(y, space), _mm_cmpeq_epi8(y, tab))) << 16;
	return (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, lf)) |
	    (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(y, lf)) << 16;
}

/*
 * Splits the line at s, in a run of lines that ends at end, into fields separated by
 * runs of blanks (spaces and TABs), as awk does, and finds its end on the way: 32
 * bytes at a time are compared with a space, a TAB and an LF, and the fields are read
 * off the bit masks; once limit fields are found only the LF is looked for.  A "time
 * latency host" line is one chunk, and swag -w 1000 p99:2, which wants two of its
 * fields, costs 36 instructions a record less than with chunks of 16 bytes and every
 * field looked at (callgrind), which cost about 70 less than a search field by field
 * (split_line_portable).  The first limit fields go to fields[], their number to
 * *count; a CR before the LF is not part of the line.  Returns the line's LF, or end.
 * The 32 bytes at any position up to end are readable (READER_PAD).
 */
SPLIT_INLINE const char *
split_line_sse2(const char *s, const char *end, struct field *fields, size_t limit,
    size_t *count)
{
	const char *p = s, *open = NULL;	/* open: a field that runs on, from here */
	const char *line_end;
	size_t n = 0;

	for (;; p += 32) {
		uint32_t blanks, stops = split_masks_32(p, &blanks);
		size_t left = (size_t)(end - p);
		unsigned line_bytes;
		uint64_t fill;

		if (left < 32)
			stops |= (uint32_t)1 << left;
		line_bytes = stops != 0 ? (unsigned)__builtin_ctz(stops) : 32;
		/*
		 * The bytes of fields in the chunk: bit i for p[i]; the line's end closes
		 * them, and the bits from 32 on are clear, so a field's end is always found.
		 */
		fill = ~(uint64_t)blanks & ((UINT64_C(1) << line_bytes) - 1);
		if (open != NULL) {
			unsigned stop = (unsigned)__builtin_ctzll(~fill);

			if (stop == 32)
				continue;
			fields[n].text = open;
			fields[n].len = (size_t)(p + stop - open);
			n++;
			open = NULL;
			fill &= ~((UINT64_C(1) << stop) - 1);
		}
		if (n < limit) {
			/* A field starts where a field byte follows a blank. */
			uint64_t starts = fill & ~(fill << 1);

			while (starts != 0) {
				unsigned first = (unsigned)__builtin_ctzll(starts);
				unsigned stop = (unsigned)__builtin_ctzll(~(fill >> first)) + first;

				if (stop == 32) {
					open = p + first;	/* it runs into the next chunk */
					break;
				}
				fields[n].text = p + first;
				fields[n].len = stop - first;
				if (++n == limit)
					break;
				starts &= starts - 1;
			}
		}
		if (line_bytes < 32) {
			line_end = p + line_bytes;
			break;
		}
		if (n == limit) {
			/* The fields after the first limit are not wanted: the LF alone. */
			for (;;) {
				p += 32;
				stops = split_masks_32(p, &blanks);
				left = (size_t)(end - p);
				if (left < 32)
					stops |= (uint32_t)1 << left;
				if (stops != 0)
					break;
			}
			line_end = p + __builtin_ctz(stops);
			break;
		}
	}
	/* A CR before the LF ends the line's last field, or is one by itself. */
	if (line_end > s && line_end[-1] == '\r' && n > 0 &&
	    fields[n - 1].text + fields[n - 1].len == line_end && --fields[n - 1].len == 0)
		n--;
	*count = n;
	return line_end;
}
#endif

/*
 * Delimited lines (CSV, TSV, -d), for csvread.c: a line that holds no quote is split
 * on its delimiter into exactly the fields libcsv gives it.  A field's blanks (space
 * and TAB, less the delimiter) around it are trimmed; a CR just before the LF is not
 * part of the line.  Fields from keep on are counted, not stored (text NULL, len 0).
 * The first limit fields go to fields[], and *count is the number of fields, which
 * may be more than limit (the caller then makes room and splits again).  Returns the
 * line's LF, or NULL when the line must go to libcsv instead: a quote, a CR other
 * than the one before the LF, or no LF before end.  Reads only bytes before end.
 */

/*
 * Whether c is a blank that libcsv trims around an unquoted field: a space or a TAB,
 * unless it is the delimiter.  Blanks are below '!': one test passes over every other
 * byte.
 */
SPLIT_INLINE bool
split_is_trimmed(char c, char delimiter)
{
	return (unsigned char)c <= ' ' && (c == ' ' || c == '\t') && c != delimiter;
}

/* Stores field n, [s, e) trimmed as libcsv trims, or a field not kept. */
SPLIT_INLINE void
split_delimited_field(const char *s, const char *e, char delimiter, struct field *fields,
    size_t n, size_t limit, size_t keep)
{
	if (n >= limit)
		return;
	if (n >= keep) {
		fields[n].text = NULL;
		fields[n].len = 0;
		return;
	}
	while (s < e && split_is_trimmed(*s, delimiter))
		s++;
	while (e > s && split_is_trimmed(e[-1], delimiter))
		e--;
	fields[n].text = s;
	fields[n].len = (size_t)(e - s);
}

/*
 * Splits [s, line_end) at every delimiter, as split_delimited stores the fields (and
 * as csvread.c splits every line with --no-quotes).
 */
SPLIT_INLINE void
split_delimited_fields(const char *s, const char *line_end, char delimiter,
    struct field *fields, size_t limit, size_t keep, size_t *count)
{
	const char *p = s;
	size_t n = 0;

	for (;;) {
		const char *stop = memchr(p, delimiter, (size_t)(line_end - p));

		if (stop == NULL)
			stop = line_end;
		split_delimited_field(p, stop, delimiter, fields, n++, limit, keep);
		if (stop == line_end)
			break;
		p = stop + 1;
	}
	*count = n;
}

/* split_delimited with memchr: the same contract. */
SPLIT_INLINE const char *
split_delimited_portable(const char *s, const char *end, char delimiter,
    struct field *fields, size_t limit, size_t keep, size_t *count)
{
	const char *lf = memchr(s, '\n', (size_t)(end - s)), *line_end;

	if (lf == NULL)
		return NULL;
	line_end = lf > s && lf[-1] == '\r' ? lf - 1 : lf;
	if (memchr(s, '"', (size_t)(line_end - s)) != NULL ||
	    memchr(s, '\r', (size_t)(line_end - s)) != NULL)
		return NULL;
	split_delimited_fields(s, line_end, delimiter, fields, limit, keep, count);
	return lf;
}

#ifdef SPLIT_SSE2
/*
 * split_delimited 16 bytes at a time: each chunk is compared with the LF, a quote, a
 * CR and the delimiter, and the fields are read off the delimiters' bit mask.  Over a
 * 5-column CSV this costs about 150 instructions a line less than a memchr for the
 * LF, the quote, the CR and each delimiter (callgrind, swag -c -H -w 1000 avg:NAME).
 * The last chunk of the run, less than 16 bytes, is read from a copy.
 */
SPLIT_INLINE const char *
split_delimited_sse2(const char *s, const char *end, char delimiter,
    struct field *fields, size_t limit, size_t keep, size_t *count)
{
	const __m128i lf = _mm_set1_epi8('\n'), quote = _mm_set1_epi8('"');
	const __m128i cr = _mm_set1_epi8('\r'), delim = _mm_set1_epi8(delimiter);
	const char *p = s, *start = s;
	size_t n = 0, cr_end = 0;

	for (;; p += 16) {
		size_t left = (size_t)(end - p);
		uint32_t in = left < 16 ? (1u << left) - 1 : 0xFFFF, stops, inside, bad, crs, seps;
		unsigned line_bytes;
		__m128i x;

		if (left >= 16) {
			x = _mm_loadu_si128((const __m128i *)(const void *)p);
		} else {
			char tail[16] = { 0 };

			if (left == 0)
				return NULL;
			memcpy(tail, p, left);
			x = _mm_loadu_si128((const __m128i *)(const void *)tail);
		}
		stops = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, lf)) & in;
		line_bytes = stops != 0 ? (unsigned)__builtin_ctz(stops) : 16;
		inside = (1u << line_bytes) - 1;
		bad = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, quote)) & inside;
		crs = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, cr)) & inside;
		if (bad != 0 || (stops == 0 && left <= 16))
			return NULL;
		/* The one CR allowed is the line's last byte: before the LF here, or next. */
		if (__builtin_expect(crs != 0, 0)) {
			/* (Without the LF, left > 16: the run's last chunk went to libcsv.) */
			if (stops != 0 ? crs != 1u << line_bytes >> 1 :
			    crs != 0x8000 || p[16] != '\n')
				return NULL;
			cr_end = 1;
		}
		seps = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, delim)) & inside & ~crs;
		while (seps != 0) {
			const char *stop = p + __builtin_ctz(seps);

			split_delimited_field(start, stop, delimiter, fields, n++, limit, keep);
			start = stop + 1;
			seps &= seps - 1;
		}
		if (stops != 0) {
			const char *line_end = p + line_bytes;

			split_delimited_field(start, line_end - cr_end, delimiter, fields, n++,
			    limit, keep);
			*count = n;
			return line_end;
		}
	}
}
#endif

/* Splits a delimited line: see above. */
SPLIT_INLINE const char *
split_delimited(const char *s, const char *end, char delimiter, struct field *fields,
    size_t limit, size_t keep, size_t *count)
{
#ifdef SPLIT_SSE2
	return split_delimited_sse2(s, end, delimiter, fields, limit, keep, count);
#else
	return split_delimited_portable(s, end, delimiter, fields, limit, keep, count);
#endif
}

/*
 * Splits the line at s, in a run of lines that ends at end, into fields: the first
 * limit of them go to fields[], their number to *count.  Returns the line's LF, or end
 * for a last line without one.
 */
SPLIT_INLINE const char *
split_line(const char *s, const char *end, struct field *fields, size_t limit,
    size_t *count)
{
#ifdef SPLIT_SSE2
	return split_line_sse2(s, end, fields, limit, count);
#else
	return split_line_portable(s, end, fields, limit, count);
#endif
}

#endif /* SWAG_SPLIT_H */
