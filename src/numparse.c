/*
 * numparse.c: parse_number, the number reader of every input field (see numparse.h).
 *
 * A field takes one of three routes, cheapest first, after a shortcut for the plainest
 * decimals, "[-]digits[.digits]" (route 0, which is route 1 or 2 without the scanner):
 *
 *   0. Reading 8 bytes at a time (SWAR).  A field of 4 to 24 bytes is loaded as one to
 *      three 64-bit words, from within the field only; each word is checked for digits
 *      and one point with a few operations, and its digits become an integer with three
 *      multiplications.  That integer goes to route 1's exact division or, above 2^53,
 *      to route 2.  Integers of 1 to 3 digits ("7", "200") take a loop of their own;
 *      everything else, and anything route 0 cannot finish, starts afresh at route 1.
 *   1. The exact fast path (Clinger, 1990).  The scanner gathers up to 19 significant
 *      digits into a uint64_t and a power of ten.  When the digits are at most 2^53 and
 *      the power of ten is at most 10^22 (both exact doubles), one IEEE multiplication
 *      or division gives the correctly rounded result.  This is the common case for
 *      logs ("123", "0.25", "1234.5678", "-3e-5").
 *   2. Eisel-Lemire (Lemire, "Number Parsing at a Gigabyte per Second", 2021) for 16 to
 *      19 digit mantissas and large exponents, such as the shortest round-trip output
 *      "0.30000000000000004" that swag itself prints.  It multiplies by a 128-bit
 *      approximation of the power of ten and either proves the rounding or gives up.
 *   3. The slow path: strtod_l in the C locale, fed a short normalised copy of the
 *      text.  It takes everything the first two cannot prove: subnormals, overflow,
 *      more than 19 significant digits that the fast routes cannot bound, exact
 *      halfway cases.
 *
 * Only the slow path calls the C library, and it calls it with a "C" locale object, so
 * the process locale never matters.
 *
 * Why not strtod_l alone: tests/bench/bench_numparse.c measures 13 ns per log field
 * against strtod_l's 55 ns, 6.3 ns against 59 ns for latencies ("37.922") and 13.5 ns
 * against 85 ns for 17-digit round-trip doubles (5 million fields each, best of 3,
 * shared 2-core Xeon VM, gcc 12 -O2).  In instructions (callgrind, swag -w 1000 avg on
 * make bench's latencies, call excluded), route 0 takes 58 a field, where a byte loop
 * takes 107 and routes 1 and 2 about 160; a 17-digit double takes about 205.
 */
#include <float.h>
#include <locale.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "blank.h"
#include "numparse.h"
#include "numparse_short.h"
#include "swar.h"

/*
 * The scanner keeps this many significant digits exactly: 10^19 - 1 < 2^64.  Later
 * digits only move the decimal exponent and, when not zero, mark the mantissa inexact.
 */
#define EXACT_DIGITS_MAX 19

/*
 * An explicit exponent stops growing here.  Any field long enough for its digit count
 * to matter beside 10^17 would not fit in memory, so saturating here cannot change a
 * result ("1e-99999999999999" is as zero as "1e-400").
 */
#define EXPONENT_SATURATION 100000000000000000LL

/*
 * The slow path keeps this many significant digits.  A double and a halfway point
 * between two doubles both have at most 767 significant decimal digits, so a number
 * with more digits lies strictly between two neighbours of 800 digits, and so does its
 * truncation to 800 digits with a sticky '1' appended when a dropped digit was not
 * zero: both round the same way.  The buffer holds the sign, the digits, the sticky
 * digit, "e", the exponent's sign and 6 digits, and the NUL.
 */
#define SLOW_PATH_DIGITS 800
#define SLOW_PATH_EXPONENT_MAX 99999
#define SLOW_PATH_BUFFER_SIZE (1 + SLOW_PATH_DIGITS + 1 + 2 + 6 + 1)

#ifdef __SIZEOF_INT128__
#define HAVE_EISEL_LEMIRE 1
__extension__ typedef unsigned __int128 uint128;
#else
#define HAVE_EISEL_LEMIRE 0
#endif

/* The powers of ten that are exact doubles: 10^22 < 2^53 * 2^22 is the last one. */
static const double exact_powers_of_ten[] = {
	1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};
#define EXACT_POWER_OF_TEN_MAX 22
#define TWO_TO_THE_53 9007199254740992.0

#if HAVE_EISEL_LEMIRE
/*
 * power_of_ten_128[e - POWER_OF_TEN_128_MIN] is {high, low} of the 128 leading bits of
 * 10^e, rounded down, for e from -348 to 347: beyond, a mantissa of at most 19 digits
 * is zero or infinite anyway.  scripts/gen-numparse-table writes it.
 */
#include "numparse_table.h"
#endif /* HAVE_EISEL_LEMIRE */

/*
 * Returns true when s[0..len) equals the lower-case ASCII word, ignoring the case of s.
 * The word must be all letters, which makes the `| 0x20` fold exact.
 */
static bool
equals_ignoring_case(const unsigned char *s, size_t len, const char *word)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (word[i] == '\0' || (s[i] | 0x20) != (unsigned char)word[i])
			return false;
	return word[i] == '\0';
}

/*
 * Parses s[0..len), what follows an optional sign, as "nan", "inf" or "infinity" in any
 * case.  Returns true and stores the signed NaN or infinity in *out (a negative NaN has
 * its sign bit set, as strtod makes it), or returns false.
 */
static bool
parse_special(const unsigned char *s, size_t len, bool negative, double *out)
{
	double value;

	if (equals_ignoring_case(s, len, "nan"))
		value = __builtin_nan("");
	else if (equals_ignoring_case(s, len, "inf") ||
	    equals_ignoring_case(s, len, "infinity"))
		value = __builtin_inf();
	else
		return false;
	*out = negative ? -value : value;
	return true;
}

#if HAVE_EISEL_LEMIRE
/*
 * Returns floor(log2(10^exponent10)) by the fixed-point constant 217706 / 2^16 =
 * 3.32192...: exact for |exponent10| <= 642, which covers the table
 * (scripts/gen-numparse-table checks it there).  The offset keeps the shifted value
 * non-negative for |exponent10| < 5000000, because a right shift of a negative integer
 * is implementation-defined in C.
 */
static int64_t
floor_log2_power_of_ten(int64_t exponent10)
{
	const int64_t offset = (int64_t)1 << 40;

	return ((217706 * exponent10 + offset) >> 16) - (offset >> 16);
}

/*
 * The Eisel-Lemire algorithm, as Go's strconv.eiselLemire64 writes it.  Computes the
 * double nearest to mantissa * 10^exponent10 for a mantissa that is not zero.  Returns
 * true and stores the (signed) result in *out when the 128-bit product proves the
 * rounding; returns false, leaving *out alone, when it cannot (the product is too
 * close to a halfway point), when the result would be subnormal or infinite, or when
 * exponent10 is beyond the table.  The caller then asks the slow path.
 */
static bool
eisel_lemire(uint64_t mantissa, int64_t exponent10, bool negative, double *out)
{
	const uint64_t *power;
	int leading_zeros;
	uint64_t normalized, biased_exponent2, high, low;
	uint64_t top_bit, mantissa54, mantissa53, bits;
	uint128 product;

	if (exponent10 < POWER_OF_TEN_128_MIN || exponent10 > POWER_OF_TEN_128_MAX)
		return false;
	power = power_of_ten_128[exponent10 - POWER_OF_TEN_128_MIN];

	leading_zeros = __builtin_clzll(mantissa);
	normalized = mantissa << leading_zeros;
	biased_exponent2 = (uint64_t)(floor_log2_power_of_ten(exponent10) + 64 + 1023) -
	    (uint64_t)leading_zeros;

	product = (uint128)normalized * power[0];
	high = (uint64_t)(product >> 64);
	low = (uint64_t)product;

	/*
	 * The low 9 bits of high all set and a carry possible out of low: the truncated low
	 * half of the power might change the rounding, so bring it in.
	 */
	if ((high & 0x1FF) == 0x1FF && low + normalized < normalized) {
		uint128 correction = (uint128)normalized * power[1];
		uint64_t correction_high = (uint64_t)(correction >> 64);
		uint64_t correction_low = (uint64_t)correction;
		uint64_t merged_high = high;
		uint64_t merged_low = low + correction_high;

		if (merged_low < low)
			merged_high++;
		if ((merged_high & 0x1FF) == 0x1FF && merged_low + 1 == 0 &&
		    correction_low + normalized < normalized)
			return false;
		high = merged_high;
		low = merged_low;
	}

	top_bit = high >> 63;
	mantissa54 = high >> (top_bit + 9);
	biased_exponent2 -= 1 ^ top_bit;

	/* Exactly halfway between two doubles as far as 128 bits can tell: undecided. */
	if (low == 0 && (high & 0x1FF) == 0 && (mantissa54 & 3) == 1)
		return false;

	mantissa54 += mantissa54 & 1;
	mantissa53 = mantissa54 >> 1;
	if ((mantissa53 >> 53) != 0) {
		mantissa53 >>= 1;
		biased_exponent2++;
	}
	/* Zero (or a wrapped negative) is subnormal, 0x7FF and above infinite. */
	if (biased_exponent2 - 1 >= 0x7FF - 1)
		return false;

	bits = biased_exponent2 << 52 | (mantissa53 & 0x000FFFFFFFFFFFFFU) |
	    (uint64_t)negative << 63;
	memcpy(out, &bits, sizeof(*out));
	return true;
}
#endif /* HAVE_EISEL_LEMIRE */

/*
 * Returns the "C" locale object that the slow path hands to strtod_l, created on the
 * first call.  Returns (locale_t)0 if newlocale failed, which glibc never does for "C";
 * the slow path's text has no decimal point and no grouping, so plain strtod reads it
 * the same way in any locale and serves as the fallback.
 */
static locale_t
c_locale(void)
{
	static bool tried;
	static locale_t locale;

	if (!tried) {
		locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
		tried = true;
	}
	return locale;
}

/*
 * The slow path.  text[0..len) is an already validated decimal mantissa (digits and at
 * most one '.', with at least one digit that is not zero), to be scaled by
 * 10^explicit_exponent.  Returns the correctly rounded double from strtod_l, negated
 * when negative is true.  It rewrites the number into a stack buffer as an integer of
 * at most SLOW_PATH_DIGITS + 1 digits and a clamped exponent, which neither changes the
 * result (see SLOW_PATH_DIGITS) nor lets any input overflow the buffer.
 */
static double
parse_slow(const unsigned char *text, size_t len, int64_t explicit_exponent, bool negative)
{
	char buffer[SLOW_PATH_BUFFER_SIZE];
	size_t used = 0, digits_kept = 0;
	int64_t exponent10 = explicit_exponent;	/* value = digits * 10^exponent10 */
	bool after_point = false, dropped_nonzero = false;
	char reversed[8];
	size_t reversed_len = 0;
	locale_t locale;

	if (negative)
		buffer[used++] = '-';
	for (size_t i = 0; i < len; i++) {
		unsigned char c = text[i];

		if (c == '.') {
			after_point = true;
		} else if (digits_kept == 0 && c == '0') {
			if (after_point)
				exponent10--;
		} else if (digits_kept < SLOW_PATH_DIGITS) {
			buffer[used++] = (char)c;
			digits_kept++;
			if (after_point)
				exponent10--;
		} else {
			if (!after_point)
				exponent10++;
			dropped_nonzero |= c != '0';
		}
	}
	if (dropped_nonzero) {
		buffer[used++] = '1';
		exponent10--;
	}

	/*
	 * With at most 801 digits, any exponent beyond +-99999 already means infinity or
	 * zero, so clamping keeps the result and fits the buffer.
	 */
	if (exponent10 > SLOW_PATH_EXPONENT_MAX)
		exponent10 = SLOW_PATH_EXPONENT_MAX;
	if (exponent10 < -SLOW_PATH_EXPONENT_MAX)
		exponent10 = -SLOW_PATH_EXPONENT_MAX;
	buffer[used++] = 'e';
	if (exponent10 < 0) {
		buffer[used++] = '-';
		exponent10 = -exponent10;
	}
	do {
		reversed[reversed_len++] = (char)('0' + exponent10 % 10);
		exponent10 /= 10;
	} while (exponent10 != 0);
	while (reversed_len > 0)
		buffer[used++] = reversed[--reversed_len];
	buffer[used] = '\0';

	locale = c_locale();
	return locale ? strtod_l(buffer, NULL, locale) : strtod(buffer, NULL);
}

/*
 * Reads the validated mantissa text[0..end) (digits and at most one '.') that has more
 * than 19 significant digits.  Stores in *mantissa its first 19 significant digits, in
 * *significant_digits 19, in *exponent10 the power of ten that scales them to the
 * value, and in *dropped_nonzero whether any later digit was not zero: then the value
 * lies strictly between *mantissa and *mantissa + 1 times 10^*exponent10.
 */
static void
read_long_mantissa(const unsigned char *text, const unsigned char *end, uint64_t *mantissa,
    int *significant_digits, int64_t *exponent10, bool *dropped_nonzero)
{
	uint64_t kept = 0;
	int kept_count = 0;
	int64_t scale = 0;
	bool after_point = false, dropped = false;

	for (; text < end; text++) {
		unsigned digit = (unsigned)*text - '0';

		if (*text == '.') {
			after_point = true;
		} else if (kept_count < EXACT_DIGITS_MAX) {
			kept = kept * 10 + digit;
			kept_count += kept != 0;	/* leading zeros are not significant */
			scale -= after_point;
		} else {
			scale += !after_point;
			dropped |= digit != 0;
		}
	}
	*mantissa = kept;
	*significant_digits = kept_count;
	*exponent10 = scale;
	*dropped_nonzero = dropped;
}

/*
 * Route 0 one byte at a time: the plain decimals "[-]digits[.digits]" with at most 19
 * characters after the sign, no blanks and no exponent, whose digits make at most
 * 2^53.  One loop reads them, and one exact division by a power of ten rounds them
 * (Clinger).  Returns false, storing nothing, for anything else, which the general
 * scanner then reads afresh.  It is all of route 0 where route 0 cannot read 8 bytes at
 * a time (HAVE_SWAR), and otherwise takes only the fields of 1 to 3 bytes that are not
 * integers ("-5", "1.5").  About 105 instructions for "37.922", call included, where
 * the general scanner takes 160 and the SWAR route 58 (callgrind, swag -w 1000 avg).
 */
static bool
parse_plain_decimal(const unsigned char *p, const unsigned char *end, double *out)
{
#if HAVE_EXACT_DOUBLE_ARITHMETIC
	const unsigned char *point = NULL, *first;
	uint64_t mantissa = 0;
	bool negative = p < end && *p == '-';
	double value;

	p += negative;
	first = p;
	if (end - first > EXACT_DIGITS_MAX || p == end)
		return false;
	for (; p < end; p++) {
		unsigned digit = (unsigned)*p - '0';

		if (digit <= 9)
			mantissa = mantissa * 10 + digit;
		else if (*p == '.' && point == NULL)
			point = p;
		else
			return false;
	}
	/* A lone point is not a number; at most 19 digits cannot wrap the mantissa. */
	if ((point != NULL && end - first == 1) || mantissa > (uint64_t)1 << 53)
		return false;
	value = (double)mantissa;
	if (point != NULL)
		value /= exact_powers_of_ten[end - point - 1];	/* at most 18 decimals */
	*out = negative ? -value : value;
	return true;
#else
	(void)p;
	(void)end;
	(void)out;
	return false;
#endif
}

/*
 * Routes 1 to 3: parse_number for everything that route 0 leaves.  Kept out of line so
 * that route 0 runs without the stack frame that this one needs.
 */
static __attribute__((noinline)) bool
parse_general(const char *s, size_t len, double *out)
{
	const char *text_end = s + len;
	const unsigned char *p, *end;
	const unsigned char *mantissa_begin, *mantissa_end, *integer_significant_begin;
	uint64_t mantissa = 0;
	int64_t exponent10 = 0, explicit_exponent = 0;
	size_t significant_count;
	int significant_digits;
	bool negative = false, has_digits, dropped_nonzero = false;
	unsigned digit;

	trim_blanks(&s, &text_end);
	if (s == text_end)
		return false;
	p = (const unsigned char *)s;
	end = (const unsigned char *)text_end;

	if (*p == '-' || *p == '+') {
		negative = *p == '-';
		if (++p == end)
			return false;
	}

	/*
	 * The mantissa: value = mantissa * 10^exponent10.  The loops accumulate every digit
	 * after the leading zeros, letting the uint64_t wrap, and count them by pointers;
	 * that keeps them at a few instructions a digit.  Beyond 19 significant digits the
	 * wrapped mantissa is worthless and read_long_mantissa starts again, carefully.
	 */
	mantissa_begin = p;
	while (p < end && *p == '0')
		p++;
	integer_significant_begin = p;
	while (p < end && (digit = (unsigned)*p - '0') <= 9) {
		mantissa = mantissa * 10 + digit;
		p++;
	}
	significant_count = (size_t)(p - integer_significant_begin);
	has_digits = p != mantissa_begin;
	if (p < end && *p == '.') {
		const unsigned char *fraction_begin = ++p;
		const unsigned char *fraction_significant_begin;

		if (significant_count == 0) {
			while (p < end && *p == '0')
				p++;
		}
		fraction_significant_begin = p;
		while (p < end && (digit = (unsigned)*p - '0') <= 9) {
			mantissa = mantissa * 10 + digit;
			p++;
		}
		exponent10 = -(int64_t)(p - fraction_begin);
		significant_count += (size_t)(p - fraction_significant_begin);
		has_digits |= p != fraction_begin;
	}
	if (!has_digits) {
		/* A lone point ("-.", ".e1") is not a number; a word may be "nan" or "inf". */
		if (p != mantissa_begin)
			return false;
		return parse_special(p, (size_t)(end - p), negative, out);
	}
	mantissa_end = p;
	significant_digits = (int)significant_count;
	if (significant_count > EXACT_DIGITS_MAX)
		read_long_mantissa(mantissa_begin, mantissa_end, &mantissa, &significant_digits,
		    &exponent10, &dropped_nonzero);

	if (p < end && (*p | 0x20) == 'e') {
		const unsigned char *exponent_begin;
		bool exponent_negative = false;

		p++;
		if (p < end && (*p == '-' || *p == '+')) {
			exponent_negative = *p == '-';
			p++;
		}
		exponent_begin = p;
		while (p < end && (digit = (unsigned)*p - '0') <= 9) {
			if (explicit_exponent < EXPONENT_SATURATION)
				explicit_exponent = explicit_exponent * 10 + digit;
			p++;
		}
		if (p == exponent_begin)
			return false;
		if (exponent_negative)
			explicit_exponent = -explicit_exponent;
	}
	if (p != end)
		return false;

	if (mantissa == 0) {
		*out = negative ? -0.0 : 0.0;
		return true;
	}
	exponent10 += explicit_exponent;

	if (!dropped_nonzero) {
#if HAVE_EXACT_DOUBLE_ARITHMETIC
		if (mantissa <= (uint64_t)1 << 53 && exponent10 >= -EXACT_POWER_OF_TEN_MAX &&
		    exponent10 <= EXACT_POWER_OF_TEN_MAX) {
			double value = (double)mantissa;

			if (exponent10 >= 0)
				value *= exact_powers_of_ten[exponent10];
			else
				value /= exact_powers_of_ten[-exponent10];
			*out = negative ? -value : value;
			return true;
		}
		/*
		 * A short mantissa times a power above 10^22 ("12e30"): the first factor of
		 * ten is exact while the product stays below 2^53, then one rounding remains.
		 */
		if (mantissa < (uint64_t)1 << 53 && exponent10 > EXACT_POWER_OF_TEN_MAX &&
		    exponent10 <= EXACT_POWER_OF_TEN_MAX + 15) {
			double value = (double)mantissa *
			    exact_powers_of_ten[exponent10 - EXACT_POWER_OF_TEN_MAX];

			if (value < TWO_TO_THE_53) {
				value *= exact_powers_of_ten[EXACT_POWER_OF_TEN_MAX];
				*out = negative ? -value : value;
				return true;
			}
		}
#endif
#if HAVE_EISEL_LEMIRE
		if (eisel_lemire(mantissa, exponent10, negative, out))
			return true;
#endif
	} else {
#if HAVE_EISEL_LEMIRE
		/*
		 * The true value lies strictly between mantissa and mantissa + 1 (times the
		 * power); when both bounds round to the same double, so does it.
		 */
		double lower, upper;

		if (eisel_lemire(mantissa, exponent10, negative, &lower) &&
		    eisel_lemire(mantissa + 1, exponent10, negative, &upper) &&
		    lower == upper) {
			*out = lower;
			return true;
		}
#endif
	}

	/*
	 * value >= 10^(significant_digits - 1 + exponent10) and < 10^(significant_digits +
	 * exponent10): far beyond DBL_MAX, or below half the smallest subnormal (2.47e-324).
	 */
	if (exponent10 + significant_digits - 1 >= 309) {
		*out = negative ? -__builtin_inf() : __builtin_inf();
		return true;
	}
	if (exponent10 + significant_digits <= -324) {
		*out = negative ? -0.0 : 0.0;
		return true;
	}
	*out = parse_slow(mantissa_begin, (size_t)(mantissa_end - mantissa_begin),
	    explicit_exponent, negative);
	return true;
}

#if HAVE_SWAR
/*
 * Route 0 reads 8 characters as one uint64_t (SWAR, SIMD within a register): the
 * field's bytes, little-endian, so that the first character is the lowest byte.  Each
 * byte is XORed with '0', which makes a digit its value 0 to 9 and every other byte
 * something above 9 ('.' becomes 0x1E, '-' 0x1D), and the word is aligned so that the
 * field's last character is the highest byte, with zeros (digits 0) below its first
 * character.  The loads never leave the field: a field of 4 to 8 bytes is two 4-byte
 * loads that overlap, a longer one 8-byte loads that overlap, so no caller needs to pad
 * its buffers.
 *
 * Its shape is measured (callgrind, swag -w 1000 avg on make bench's latencies):
 * "37.922" takes 58 instructions, where the byte loop takes 107, because parse_number
 * is a leaf without a stack frame, every other length being a tail call; the digit
 * check is three operations and its flags also find the point; the point goes with a
 * 5-operation blend, not with shifts and masks per part; the sign costs a compare, its
 * fields taking a copy of the code; the table of divisors is indexed by the point's
 * byte.  Measured and rejected: the 2-multiplication end of fast_float's digit
 * conversion (4 more instructions with gcc, for the masks), selecting the XOR constant
 * for a '-' by a conditional move (4 more), a shift count of 64 - 8 * len (1 to 2
 * more), routes 9-16 and 17-24 in one function (146 instructions for "1234.5678", or
 * 116 forced inline with 5 registers saved, against 94), the short route for 1 to 3
 * bytes too (60 against 32 to 50 for the plain loop on integers), and everything
 * inlined into parse_number (3 more: gcc then moves the arguments to other registers
 * on entry).
 */
/*
 * Marks the points of an aligned word: 0x80 in each byte that was a '.', exactly (the
 * carry-free form of the zero-byte test).  A field with two points or more is no number
 * at all, an IPv4 address say: knowing that costs a few instructions where the general
 * scanner, reading it byte by byte to the second point, takes about 100 (swag -w 1000
 * mode over make bench's IPv4 strings, which asks of every field whether it is a
 * number).
 */
static inline uint64_t
swar_points(uint64_t word)
{
	const uint64_t low7 = 0x7F7F7F7F7F7F7F7FU;
	uint64_t x = word ^ (0x0101010101010101U * SWAR_POINT);	/* a point becomes 0 */

	return ~(((x & low7) + low7) | x | low7);
}

/* Whether marks, or the two words of marks together, mark two points or more. */
static inline bool
swar_several(uint64_t marks, uint64_t more)
{
	return ((marks & (marks - 1)) | (more & (more - 1))) != 0 ||
	    (marks != 0 && more != 0);
}

/*
 * Route 0 for 4 to 8 bytes: "[-]digits[.digits]".  Two 4-byte loads that may overlap
 * read the field and nothing beyond it; a '-' first becomes a leading digit 0, which
 * leaves at least one digit in any field that passes.  Returns what parse_general
 * returns for anything else.
 */
static inline bool
parse_short_swar(const char *s, size_t len, double *out)
{
	uint64_t word = swar_short_word(s, len);
	unsigned align = 8 * (unsigned)len - 32;
	double value;

	if (__builtin_expect(*s != '-', 1)) {
		if (swar_short_decimal(word, &value)) {
			*out = value;
			return true;
		}
	} else if (swar_short_decimal(word ^ ((uint64_t)SWAR_MINUS << 32) >> align, &value)) {
		*out = -value;
		return true;
	}
	if (swar_several(swar_points(word), 0))
		return false;
	return parse_general(s, len, out);
}

/*
 * The mantissa of up to 24 aligned characters in three words, head (the first), middle
 * and tail, of which at most one character in all is a point and the others digits.
 * Stores the mantissa and the number of decimals (digits after the point) and returns
 * true, or returns false when the characters are anything else or the mantissa would
 * not fit in 64 bits.  A field of 16 characters or fewer passes a head of 0 (all digits
 * 0), which the compiler folds away.
 */
static inline __attribute__((always_inline)) bool
swar_long_mantissa(uint64_t head, uint64_t middle, uint64_t tail, uint64_t *mantissa,
    unsigned *decimals)
{
	uint64_t head_nondigit = swar_nondigits(head);
	uint64_t middle_nondigit = swar_nondigits(middle);
	uint64_t tail_nondigit = swar_nondigits(tail);
	uint64_t middle_scale = 100000000, tail_scale = 100000000;
	uint64_t head_value;
	unsigned point;

	*decimals = 0;
	if ((head_nondigit | middle_nondigit | tail_nondigit) == 0) {
		/* All digits. */
	} else if ((head_nondigit | middle_nondigit) == 0) {
		if (!swar_remove_point(&tail, tail_nondigit, &point))
			return false;
		*decimals = 7 - point;
		tail_scale = 10000000;
	} else if ((head_nondigit | tail_nondigit) == 0) {
		if (!swar_remove_point(&middle, middle_nondigit, &point))
			return false;
		*decimals = 15 - point;
		middle_scale = 10000000;
	} else if ((middle_nondigit | tail_nondigit) == 0) {
		if (!swar_remove_point(&head, head_nondigit, &point))
			return false;
		*decimals = 23 - point;
	} else {
		return false;
	}
	/* The mantissa is below (head + 1) * 10^16, which fits while head <= 1843. */
	head_value = swar_digits_value(head);
	if (head_value > 1843)
		return false;
	*mantissa = (head_value * middle_scale + swar_digits_value(middle)) * tail_scale +
	    swar_digits_value(tail);
	return true;
}

/*
 * parse_long_swar's mantissa beyond Clinger's reach: Eisel-Lemire, or parse_general when
 * it cannot prove the rounding (or the mantissa is 0, which it does not take).
 */
static __attribute__((noinline)) bool
parse_long_rounding(const char *s, size_t len, uint64_t mantissa, unsigned decimals,
    bool negative, double *out)
{
#if HAVE_EISEL_LEMIRE
	if (mantissa != 0 && eisel_lemire(mantissa, -(int64_t)decimals, negative, out))
		return true;
#else
	(void)mantissa;
	(void)decimals;
	(void)negative;
#endif
	return parse_general(s, len, out);
}

/*
 * The end of route 0 for more than 8 bytes: Clinger's exact division, or
 * parse_long_rounding beyond its reach.  decimals_max, a constant, is the most decimals
 * the caller's fields can have: the compiler drops the check against 10^22 where it
 * cannot fail.
 */
static inline __attribute__((always_inline)) bool
swar_long_finish(const char *s, size_t len, uint64_t mantissa, unsigned decimals,
    unsigned decimals_max, bool negative, double *out)
{
	double value;

	if (mantissa > (uint64_t)1 << 53 ||
	    (decimals_max > EXACT_POWER_OF_TEN_MAX && decimals > EXACT_POWER_OF_TEN_MAX))
		return parse_long_rounding(s, len, mantissa, decimals, negative, out);
	value = (double)mantissa / exact_powers_of_ten[decimals];
	*out = negative ? -value : value;
	return true;
}

/*
 * Route 0 for 9 to 16 bytes: the last 8 bytes as one word and what precedes them (1 to
 * 8 bytes, a '-' first made a digit 0) as another, with at most one point in all.
 * Returns what parse_general returns for anything else.
 */
static __attribute__((noinline)) bool
parse_medium_swar(const char *s, size_t len, double *out)
{
	const unsigned char *p = (const unsigned char *)s;
	uint64_t first = load_u64(p) ^ SWAR_ZEROS;
	uint64_t tail = load_u64(p + len - 8) ^ SWAR_ZEROS;
	bool negative = (uint8_t)first == SWAR_MINUS;
	uint64_t mantissa;
	unsigned decimals;

	first ^= negative ? SWAR_MINUS : 0;
	first <<= 128 - 8 * len;	/* its bytes that the tail also holds are gone */
	if (!swar_long_mantissa(0, first, tail, &mantissa, &decimals)) {
		if (swar_several(swar_points(first), swar_points(tail)))
			return false;
		return parse_general(s, len, out);
	}
	return swar_long_finish(s, len, mantissa, decimals, 15, negative, out);
}

/*
 * Route 0 for 17 to 24 bytes: as parse_medium_swar, with a middle word of the 8 bytes
 * before the last 8.
 */
static __attribute__((noinline)) bool
parse_long_swar(const char *s, size_t len, double *out)
{
	const unsigned char *p = (const unsigned char *)s;
	uint64_t first = load_u64(p) ^ SWAR_ZEROS;
	uint64_t middle = load_u64(p + len - 16) ^ SWAR_ZEROS;
	uint64_t tail = load_u64(p + len - 8) ^ SWAR_ZEROS;
	bool negative = (uint8_t)first == SWAR_MINUS;
	uint64_t mantissa;
	unsigned decimals;

	first ^= negative ? SWAR_MINUS : 0;
	if (!swar_long_mantissa(first << (192 - 8 * len), middle, tail, &mantissa, &decimals))
		return parse_general(s, len, out);
	return swar_long_finish(s, len, mantissa, decimals, 23, negative, out);
}

/*
 * parse_number for the fields that neither parse_short_swar nor parse_medium_swar
 * takes, out of line so that parse_number stays a leaf for them: 17 to 24 bytes to
 * parse_long_swar, the integers of 1 to 3 digits ("7", "200") in a loop of their own,
 * and everything else, which is rare, to parse_plain_decimal and parse_general.
 */
static __attribute__((noinline)) bool
parse_other(const char *s, size_t len, double *out)
{
	const unsigned char *p = (const unsigned char *)s;

	if (len - 17 <= 24 - 17)
		return parse_long_swar(s, len, out);
	if (len - 1 <= 3 - 1) {
		unsigned value = 0;
		size_t i;

		for (i = 0; i < len; i++) {
			unsigned digit = (unsigned)p[i] - '0';

			if (digit > 9)
				break;
			value = value * 10 + digit;
		}
		if (i == len) {
			*out = (double)value;
			return true;
		}
	}
	return parse_plain_decimal(p, p + len, out) || parse_general(s, len, out);
}
#endif /* HAVE_SWAR */

bool
parse_number(const char *s, size_t len, double *out)
{
#if HAVE_SWAR
	if (len - 4 <= 8 - 4)
		return parse_short_swar(s, len, out);
	if (len - 9 <= 16 - 9)
		return parse_medium_swar(s, len, out);
	return parse_other(s, len, out);
#else
	const unsigned char *p = (const unsigned char *)s;

	return parse_plain_decimal(p, p + len, out) || parse_general(s, len, out);
#endif
}
