/*
 * numparse_short.h: parse_number's short way, route 0 for 4 to 8 bytes (numparse.c),
 * shared by numparse.c and by the caller that reads a field a record, which takes it
 * inline (parse_number_inline).
 */
#ifndef SWAG_NUMPARSE_SHORT_H
#define SWAG_NUMPARSE_SHORT_H

#include <float.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "numparse.h"
#include "swar.h"

/*
 * Clinger's fast path is exact only when every double operation rounds once, to
 * double.  x87 arithmetic (FLT_EVAL_METHOD 2) rounds twice; there the fast path is
 * skipped.
 */
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
#define HAVE_EXACT_DOUBLE_ARITHMETIC 1
#else
#define HAVE_EXACT_DOUBLE_ARITHMETIC 0
#endif

/*
 * Route 0 reads 8 bytes at a time where a uint64_t loaded from memory holds the first
 * byte lowest (little-endian), and ends in Clinger's exact division, so it needs both.
 */
#if HAVE_EXACT_DOUBLE_ARITHMETIC && defined(__BYTE_ORDER__) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HAVE_SWAR 1
#else
#define HAVE_SWAR 0
#endif

#if HAVE_SWAR
#define SWAR_POINT ('.' ^ '0')
#define SWAR_MINUS ('-' ^ '0')

/*
 * The aligned word of a field of 4 to 8 bytes (numparse.c, route 0): its bytes XORed
 * with '0', the last one highest, digits 0 below the first; two 4-byte loads that may
 * overlap, so that nothing outside the field is read.
 */
static inline uint64_t
swar_short_word(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	uint64_t last = load_u32(p + len - 4) ^ 0x30303030U;
	uint64_t first = load_u32(p) ^ 0x30303030U;

	return last << 32 | (first << 32) >> (8 * (unsigned)len - 32);
}

/*
 * The word's only non-digit, flagged by nondigit (which is not 0), must be a point:
 * then removes it, moving the digits before it up one byte (a digit 0 enters at the
 * bottom), stores in *point the point's byte (7 - *point digits follow it) and returns
 * true.  Returns false when there is another non-digit or the one is not a point.
 */
static inline bool
swar_remove_point(uint64_t *word, uint64_t nondigit, unsigned *point)
{
	uint64_t below = nondigit - 1;
	/* 8 times the byte of the non-digit. */
	unsigned point_shift = (unsigned)__builtin_ctzll(nondigit) - 7;

	if ((nondigit & below) != 0 || ((*word >> point_shift) & 0xFF) != SWAR_POINT)
		return false;
	*word ^= (*word ^ *word << 8) & (nondigit ^ below); /* bytes up to the point's */
	*point = point_shift / 8;
	return true;
}

/*
 * Reads an aligned word of at most 8 characters, all digits or digits and one point (at
 * least 3 digits then, so never a lone point): stores its value, at most 99999999 with
 * at most 7 decimals, as one exact division (Clinger) and returns true, or returns
 * false.
 */
static inline bool
swar_short_decimal(uint64_t word, double *out)
{
	static const double divisor_by_point[8] = {
		1e7, 1e6, 1e5, 1e4, 1e3, 1e2, 1e1, 1e0
	};
	uint64_t nondigit = swar_nondigits(word);
	unsigned point;

	if (__builtin_expect(nondigit == 0, 0)) {
		*out = (double)swar_digits_value(word);
		return true;
	}
	if (!swar_remove_point(&word, nondigit, &point))
		return false;
	*out = (double)swar_digits_value(word) / divisor_by_point[point];
	return true;
}
#endif

/*
 * parse_number, for the values stage, which reads a field a record: a field of 4 to 8
 * bytes of digits and at most one point, without a sign, the number logs mostly hold
 * ("37.922"), is read here, inline, as route 0 reads it; any other goes to
 * parse_number, which reads it again.  Inline, there is no call to pay for (its
 * arguments' moves, the registers the caller saves around it): 13 instructions a
 * record for every command that reads such numbers (callgrind over make bench's
 * 200,000 lines, swag -w 1000 avg and p99, -t 1 -g 3 -w 1m p99:2).
 */
static inline __attribute__((always_inline)) bool
parse_number_inline(const char *s, size_t len, double *out)
{
#if HAVE_SWAR
	if (len - 4 <= 8 - 4 && *s != '-' &&
	    swar_short_decimal(swar_short_word(s, len), out))
		return true;
#endif
	return parse_number(s, len, out);
}

#endif /* SWAG_NUMPARSE_SHORT_H */
