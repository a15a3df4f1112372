/*
 * numprint.h: writing a result as text.
 *
 * Every number that swag prints passes through here, one call per result, so these
 * functions are written for speed; each writes into a caller's buffer, allocates
 * nothing, writes no NUL, and returns the number of bytes written.  None of them
 * depends on the process locale.
 */
#ifndef SWAG_NUMPRINT_H
#define SWAG_NUMPRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * The size of format_number's buffer.  Its text is at most NUMPRINT_SHORTEST_LEN bytes,
 * but it may use the bytes after the text as scratch.
 */
#define NUMPRINT_SHORTEST_MAX 32

/* The longest text format_number writes ("-1.2345678901234567e-308"). */
#define NUMPRINT_SHORTEST_LEN 24

/* The largest precision format_fixed accepts. */
#define NUMPRINT_PRECISION_MAX 30

/* The most bytes format_fixed writes: "-" DBL_MAX's 309 digits "." 30 digits is 341. */
#define NUMPRINT_FIXED_MAX 352

/*
 * Writes x into buf[0..NUMPRINT_SHORTEST_MAX) in the shortest form that strtod reads
 * back to the same double (swag(1), OUTPUT):
 *
 *   - an integral value below 2^53 in magnitude as a plain integer: "14", "-3",
 *     "100000000"; both zeros as "0";
 *   - any other value with the fewest significant digits that round-trip, choosing
 *     among those the decimal closest to x (ties to an even last digit), written in
 *     plain notation when 1e-5 <= |x| < 1e16 ("2.5", "0.30000000000000004",
 *     "0.00001", "9007199254740994") and otherwise as printf's %e writes those digits,
 *     with an exponent of at least two digits ("1.5e-07", "1e+20", "5e-324");
 *   - "nan" for every NaN whatever its sign, "inf", "-inf".
 *
 * Returns the length of the text, at most 24.  The bytes of buf after the text, up to
 * NUMPRINT_SHORTEST_MAX, may have been overwritten.
 */
size_t format_number(double x, char *buf);

/*
 * Writes x into buf[0..NUMPRINT_FIXED_MAX) with precision digits after the decimal
 * point, byte for byte as snprintf(buf, n, "%.*f", precision, x) does in the "C"
 * locale, with these exceptions: a result whose digits are all zero never has a minus
 * sign (-0.0001 at precision 2 is "0.00", not printf's "-0.00"); any NaN is "nan"; the
 * infinities are "inf" and "-inf".  A precision outside 0..NUMPRINT_PRECISION_MAX is
 * taken as the nearest end of that range.  Returns the number of bytes written.
 */
size_t format_fixed(double x, int precision, char *buf);

/*
 * Writes v in plain decimal into buf, without sign or leading zeros ("0" for zero).
 * Returns the length of the text, at most 20.  The bytes of buf after the text, up to
 * buf + 20, may have been overwritten.
 */
size_t format_uint(uint64_t v, char *buf);

/*
 * The last number a column printed and its text, so that printing the same number
 * again is a copy: the result of min, max or a percentile is most often the one of
 * the record before, and the copy costs about 10 instructions where format_number
 * takes about 150 and format_fixed about 127 (see agg_kind.results_repeat); a
 * count's, from format_uint, about 40.  A double is kept as its bits, which decide
 * the text (-0 and every NaN included), for the one printer of its column (-p is the
 * run's); a count as itself.  A memo serves one column, whose results are numbers or
 * counts, never both.  A key keeps one for each aggregate: 33 bytes and the padding.
 */
struct number_memo {
	uint64_t bits;
	char text[NUMPRINT_SHORTEST_LEN];
	unsigned char len;
};

/*
 * The largest precision whose texts may fit a memo ("0." and 22 digits): with a larger
 * one, format_fixed's texts are longer than NUMPRINT_SHORTEST_LEN.
 */
#define NUMBER_MEMO_PRECISION_MAX (NUMPRINT_SHORTEST_LEN - 2)

/*
 * A new memo, which holds -0 and its text as format_number (precision < 0) or
 * format_fixed at precision (at most NUMBER_MEMO_PRECISION_MAX) writes it: "0" or
 * "0.00", right for either zero.  Its bits are 2^63, which no count reaches, so that
 * it is a right memo for a column of counts too.
 */
struct number_memo number_memo_start(int precision);

/* Copies memo's text to buf when memo holds key (a number's bits, or a count). */
static inline bool
number_memo_holds(const struct number_memo *memo, uint64_t key, char *buf)
{
	if (key != memo->bits)
		return false;
	memcpy(buf, memo->text, NUMPRINT_SHORTEST_LEN);
	return true;
}

/* Keeps key and the text of len bytes that buf holds for it in memo; returns len. */
static inline size_t
number_memo_keep(struct number_memo *memo, uint64_t key, const char *buf, size_t len)
{
	memcpy(memo->text, buf, NUMPRINT_SHORTEST_LEN);
	memo->len = (unsigned char)len;
	memo->bits = key;
	return len;
}

/*
 * Writes x into buf[0..NUMPRINT_SHORTEST_MAX) as format_number does, from memo when x
 * is the number it holds, else through format_number, keeping x and its text in memo.
 */
static inline size_t
format_number_memo(double x, char *buf, struct number_memo *memo)
{
	uint64_t bits;

	memcpy(&bits, &x, sizeof(bits));
	if (number_memo_holds(memo, bits, buf))
		return memo->len;
	return number_memo_keep(memo, bits, buf, format_number(x, buf));
}

/*
 * Writes x into buf[0..NUMPRINT_FIXED_MAX) as format_fixed does at precision (at most
 * NUMBER_MEMO_PRECISION_MAX, and the same for every call on memo), from memo when x is
 * the number it holds, else through format_fixed, keeping x and its text in memo when
 * the text fits (else memo keeps what it held, still true).
 */
static inline size_t
format_fixed_memo(double x, int precision, char *buf, struct number_memo *memo)
{
	uint64_t bits;
	size_t len;

	memcpy(&bits, &x, sizeof(bits));
	if (number_memo_holds(memo, bits, buf))
		return memo->len;
	len = format_fixed(x, precision, buf);
	return len <= NUMPRINT_SHORTEST_LEN ? number_memo_keep(memo, bits, buf, len) : len;
}

/*
 * format_uint through memo, as format_number_memo, for v below 2^63 (a count);
 * buf has NUMPRINT_SHORTEST_MAX bytes.
 */
static inline size_t
format_uint_memo(uint64_t v, char *buf, struct number_memo *memo)
{
	if (number_memo_holds(memo, v, buf))
		return memo->len;
	return number_memo_keep(memo, v, buf, format_uint(v, buf));
}

/* The most bytes format_rfc3339 and format_epoch write. */
#define NUMPRINT_TIME_MAX 40

/*
 * Writes the instant sec + nsec / 1e9 seconds after 1970-01-01T00:00:00Z (sec rounded
 * toward the past, nsec from 0 to 999999999, sec in the years 0 to 9999) as RFC 3339
 * in UTC: "2026-11-30T12:01:00Z", or with digits (1 to 9) digits of a second's
 * fraction, "2026-11-30T12:01:00.250Z".  Returns the length of the text.
 */
size_t format_rfc3339(int64_t sec, uint32_t nsec, int digits, char *buf);

/*
 * Writes the same instant as an epoch number in a unit of unit_nanos nanoseconds (1,
 * 1000, 1000000 or 1000000000), with digits digits after the point (none for 0):
 * "1764504060", "-0.500", "1764504060250".  Returns the length of the text.
 */
size_t format_epoch(int64_t sec, uint32_t nsec, uint32_t unit_nanos, int digits, char *buf);

#endif /* SWAG_NUMPRINT_H */
