/*
** numprint.c: format_number, format_fixed and format_uint, the printers of every result.
**
** format_number finds the shortest round-tripping digits with Schubfach (Raffaello
** Giulietti, "The Schubfach way to render doubles", 2020; the algorithm behind Java's
** Double.toString since JDK 19). Schubfach was chosen over Ryu because it needs one
** table of 617 128-bit powers of ten and no loop: three 64x128-bit multiplications give
** the rounding interval's ends scaled by a power of ten, and at most two comparisons
** pick the answer, which keeps one call within tens of nanoseconds. Over Grisu it has
** the advantage of never needing a fallback. The table comes from
** scripts/gen-numprint-table, which also proves the fixed-point logarithms used below.
** The multiplication follows Alexander Bolz's C++ port (Drachennest), which keeps the
** powers of ten to 128 bits rather than the paper's 126.
**
** format_fixed works with exact integer arithmetic: a finite double is c * 2^q with an
** integer c < 2^53, so x * 10^p = c * 5^p * 2^(q+p), and for |x| < 2^122 (q <= 69) that
** product and its rounding fit in 128 bits. Only larger magnitudes go to snprintf.
**
** tests/bench/bench_numprint.c measured, per value on the development machine (gcc -O2,
** x86_64): format_number 13 ns for integers and 32-42 ns for other values, against
** 200-580 ns for snprintf("%.17g"); format_fixed at precision 2, 12-31 ns against
** 120-230 ns for snprintf("%.2f") (the same for values beyond 2^122, which go to it).
**
** Everything here assumes IEEE-754 binary64 doubles and a compiler with unsigned
** __int128 (gcc and clang on 64-bit targets), and that a right shift of a negative int
** is arithmetic, which gcc and clang document.
*/
#include "numprint.h"

#include <float.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "numprint_table.h"

#if !defined(__SIZEOF_INT128__)
#error "numprint.c needs unsigned __int128 (gcc or clang on a 64-bit target)"
#endif
#if DBL_MANT_DIG != 53 || DBL_MAX_EXP != 1024
#error "numprint.c needs IEEE-754 binary64 doubles"
#endif

__extension__ typedef unsigned __int128 uint128;

/* The fields of a binary64: 52 significand bits, 11 exponent bits, biased by 1075. */
#define SIGNIFICAND_BITS 52
#define HIDDEN_BIT ((uint64_t)1 << SIGNIFICAND_BITS)
#define SIGNIFICAND_MASK (HIDDEN_BIT - 1)
#define EXPONENT_FIELD_MAX 0x7FF
#define EXPONENT_BIAS 1075 /* 1023, plus 52 to make the significand an integer */

/*
** format_fixed's exact path handles x = c * 2^q with q up to this, so |x| < 2^122 and every
** integer it prints is below 2^123: c * 5^30 < 2^53 * 2^70 and c << 69 < 2^122.
*/
#define FIXED_EXACT_Q_MAX 69

/* "00" "01" ... "99": two digits per division by 100 halves the divisions. */
static const char digit_pairs[201] =
	"00010203040506070809"
	"10111213141516171819"
	"20212223242526272829"
	"30313233343536373839"
	"40414243444546474849"
	"50515253545556575859"
	"60616263646566676869"
	"70717273747576777879"
	"80818283848586878889"
	"90919293949596979899";

static const uint64_t powers_of_ten[20] = {
	1U,
	10U,
	100U,
	1000U,
	10000U,
	100000U,
	1000000U,
	10000000U,
	100000000U,
	1000000000U,
	10000000000U,
	100000000000U,
	1000000000000U,
	10000000000000U,
	100000000000000U,
	1000000000000000U,
	10000000000000000U,
	100000000000000000U,
	1000000000000000000U,
	10000000000000000000U,
};

/* 5^0 .. 5^27, the powers of five below 2^64. */
#define POWER_OF_FIVE_MAX_64 27
static const uint64_t powers_of_five[POWER_OF_FIVE_MAX_64 + 1] = {
	1U,
	5U,
	25U,
	125U,
	625U,
	3125U,
	15625U,
	78125U,
	390625U,
	1953125U,
	9765625U,
	48828125U,
	244140625U,
	1220703125U,
	6103515625U,
	30517578125U,
	152587890625U,
	762939453125U,
	3814697265625U,
	19073486328125U,
	95367431640625U,
	476837158203125U,
	2384185791015625U,
	11920928955078125U,
	59604644775390625U,
	298023223876953125U,
	1490116119384765625U,
	7450580596923828125U,
};

/* Returns the number of decimal digits of v, 1 for 0, at most 20. */
static int decimal_length(uint64_t v)
{
	/*
	** 1233 / 4096 is just above log10(2), so this estimate from the bit length is
	** the digit count or one less; one comparison settles which.
	*/
	int estimate = ((64 - __builtin_clzll(v | 1)) * 1233) >> 12;
	return estimate + (v >= powers_of_ten[estimate]) + (v == 0);
}

/* Writes v, which is below 10^8, as exactly eight digits (leading zeros kept) at p. */
static void write_eight_digits(char *p, uint32_t v)
{
	uint32_t high = v / 10000, low = v % 10000;
	memcpy(p + 0, digit_pairs + 2 * (high / 100), 2);
	memcpy(p + 2, digit_pairs + 2 * (high % 100), 2);
	memcpy(p + 4, digit_pairs + 2 * (low / 100), 2);
	memcpy(p + 6, digit_pairs + 2 * (low % 100), 2);
}

/*
** Writes the decimal digits of v so that the last one lands at end[-1], and nothing
** before the first digit. The caller has made room: decimal_length(v) bytes.
*/
static void write_digits_backward(char *end, uint64_t v)
{
	uint32_t small;
	/* Eight digits at a time while they need 64 bits, then 32-bit arithmetic. */
	while (v >= 100000000U) {
		uint64_t quotient = v / 100000000U;
		end -= 8;
		write_eight_digits(end, (uint32_t)(v - quotient * 100000000U));
		v = quotient;
	}
	small = (uint32_t)v;
	while (small >= 100) {
		uint32_t quotient = small / 100;
		end -= 2;
		memcpy(end, digit_pairs + 2 * (small - quotient * 100), 2);
		small = quotient;
	}
	if (small >= 10)
		memcpy(end - 2, digit_pairs + 2 * small, 2);
	else
		end[-1] = (char)('0' + small);
}

/*
** Returns the eight decimal digits of v, which is below 10^8, as one word whose bytes are
** the digit values 0..9 in reading order: the most significant digit in the lowest byte.
** The digits come out of every lane at once (SWAR): one multiplication by a reciprocal
** splits v into two halves of four digits, the next splits each half into two pairs and
** the last each pair into two digits. About 30 instructions for the eight digits, where
** write_eight_digits takes about 35 and a digit-by-digit loop more than 60, and the zero
** lanes give the trailing zeros without dividing by 10 again and again. (Checked on all
** 10^8 values against printf("%08u").) Against the pair-table writer it replaced, side
** by side on the same machine, bench_numprint went from 124 to 97 ns an average, from
** 117 to 73 for two decimals and from 103 to 85 over the mix; callgrind counts 274
** instructions a value in swag -w 1000 avg, down from 303.
*/
static inline __attribute__((always_inline)) uint64_t eight_digit_values(uint32_t v)
{
	uint64_t halves = (uint64_t)(v / 10000) | (uint64_t)(v % 10000) << 32;
	uint64_t hundreds = ((halves * 10486) >> 20) & 0x0000007F0000007FU; /* lane / 100 */
	uint64_t pairs = (halves - 100 * hundreds) << 16 | hundreds;
	uint64_t tens = ((pairs * 103) >> 10) & 0x000F000F000F000FU; /* lane / 10 */
	return (pairs - 10 * tens) << 8 | tens;
}

/*
** Stores the digits of a word of eight_digit_values at p as text, from the one at skip
** (the number of digits to leave out at the front, 0..7) to the last. It always stores
** eight bytes: those after the 8 - skip digits are scratch.
*/
static void store_digits(char *p, uint64_t values, int skip)
{
	uint64_t text = values + 0x3030303030303030U; /* '0' in every lane */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	text >>= 8 * skip;
	memcpy(p, &text, 8);
#else
	for (int i = 0; i < 8; i++)
		p[i] = i + skip < 8 ? (char)(text >> (8 * (i + skip))) : '0';
#endif
}

/*
** Writes v, which is below 10^8, in decimal at buf; returns the number of digits. It
** always stores eight bytes.
*/
static inline __attribute__((always_inline)) size_t write_below_10_to_8(char *buf, uint32_t v)
{
	/* The leading zeros are the zero lanes at the low end; 0 keeps one digit. */
	uint64_t values = eight_digit_values(v);
	int skip = v == 0 ? 7 : __builtin_ctzll(values) / 8;
	store_digits(buf, values, skip);
	return (size_t)(8 - skip);
}

/*
** Writes v in decimal at buf and returns the number of digits written. It may write
** scratch bytes after them, up to buf + 20.
*/
static size_t write_uint64(char *buf, uint64_t v)
{
	uint64_t high, top;
	size_t length;
	if (v < 100000000U)
		return write_below_10_to_8(buf, (uint32_t)v);
	high = v / 100000000U;
	if (high < 100000000U) {
		length = write_below_10_to_8(buf, (uint32_t)high);
	} else {
		/* v >= 10^16: high has 9 to 12 digits, top at most 4. */
		top = high / 100000000U;
		length = write_below_10_to_8(buf, (uint32_t)top);
		store_digits(buf + length, eight_digit_values((uint32_t)(high - top * 100000000U)), 0);
		length += 8;
	}
	store_digits(buf + length, eight_digit_values((uint32_t)(v - high * 100000000U)), 0);
	return length + 8;
}

/* Writes v, which must be below 2^123, in decimal at buf; returns the digit count. */
static size_t write_uint128(char *buf, uint128 v)
{
	const uint64_t ten_to_19 = powers_of_ten[19];
	uint64_t high, low;
	size_t length;
	if ((uint64_t)(v >> 64) == 0)
		return write_uint64(buf, (uint64_t)v);
	/* Rare (only format_fixed of large values or high precision): one division. */
	high = (uint64_t)(v / ten_to_19); /* below 2^123 / 10^19 < 2^64 */
	low = (uint64_t)(v % ten_to_19);
	length = write_uint64(buf, high);
	memset(buf + length, '0', 19);
	write_digits_backward(buf + length + 19, low);
	return length + 19;
}

size_t format_uint(uint64_t v, char *buf)
{
	return write_uint64(buf, v);
}

/* Returns floor(log10(2^q)) for |q| <= 1500 (checked by scripts/gen-numprint-table). */
static int floor_log10_pow2(int q)
{
	return (q * 1262611) >> 22;
}

/* Returns floor(log10(3/4 * 2^q)) for |q| <= 1500 (checked likewise). */
static int floor_log10_three_quarters_pow2(int q)
{
	return (q * 1262611 - 524031) >> 22;
}

/* Returns floor(log2(10^e)) for |e| <= 400 (checked likewise). */
static int floor_log2_pow10(int e)
{
	return (e * 1741647) >> 19;
}

/*
** Returns cp * g / 2^127 rounded to odd: the integer part, with its lowest bit set when
** the fraction is not zero. g is a table row {high, low}. Rounding to odd keeps enough
** of the fraction for the comparisons in shortest_decimal to be exact against the
** multiples of 4 they compare with (the paper's section 9.9).
*/
static uint64_t multiply_round_to_odd(const uint64_t g[2], uint64_t cp)
{
	uint128 low_product = (uint128)g[1] * cp;
	uint128 product = (uint128)g[0] * cp + (uint64_t)(low_product >> 64);
	return (uint64_t)(product >> 63) | ((uint64_t)product != 0);
}

/* A decimal significand * 10^exponent. */
struct decimal {
	uint64_t significand;
	int exponent;
};

/*
** Schubfach, the paper's figure 7. Returns the decimal with the fewest digits that
** lies in the rounding interval of v = c * 2^q (the reals that round to v), and among
** those the closest to v, an even significand on a tie. c is not zero and below 2^53;
** lower_is_closer says v is a power of two above the smallest normal, whose
** predecessor is only half as far as its successor. The significand has at most 17
** digits and may end in zeros.
*/
static struct decimal shortest_decimal(uint64_t c, int q, bool lower_is_closer)
{
	struct decimal result;
	/*
	** Work with four times the values, so that the interval's ends (v minus and plus
	** half a gap, or a quarter below a power of two) are integers too.
	*/
	uint64_t cb = c << 2;
	uint64_t cb_lower = cb - 2 + lower_is_closer;
	uint64_t cb_upper = cb + 2;
	/* The interval's ends belong to it when c is even (strtod rounds ties to even). */
	bool ends_included = (c & 1) == 0;
	/*
	** 10^k is the largest power of ten not above the interval's width, so the scaled
	** interval holds at least one integer and at most ten.
	*/
	int k = lower_is_closer ? floor_log10_three_quarters_pow2(q) : floor_log10_pow2(q);
	int shift = q + floor_log2_pow10(-k); /* 0..3, so cb << shift fits in 64 bits */
	const uint64_t *g = numprint_pow10[-k - NUMPRINT_POW10_MIN];
	uint64_t vb = multiply_round_to_odd(g, cb << shift);
	uint64_t vb_lower = multiply_round_to_odd(g, cb_lower << shift) + !ends_included;
	uint64_t vb_upper = multiply_round_to_odd(g, cb_upper << shift) - !ends_included;
	uint64_t s = vb >> 2; /* floor(v / 10^k) */
	bool u_inside, w_inside;

	/*
	** First try one digit fewer: the multiples of 10^(k+1) on either side of v. The
	** interval is narrower than 10^(k+1), so at most one of them lies inside.
	*/
	if (s >= 10) {
		uint64_t s_short = s / 10;
		bool u_short_inside = vb_lower <= 40 * s_short;
		bool w_short_inside = 40 * s_short + 40 <= vb_upper;
		if (u_short_inside != w_short_inside) {
			result.significand = s_short + w_short_inside;
			result.exponent = k + 1;
			return result;
		}
	}
	/* Otherwise s or s + 1; when both are inside, the one nearer v. */
	u_inside = vb_lower <= 4 * s;
	w_inside = 4 * s + 4 <= vb_upper;
	result.exponent = k;
	if (u_inside != w_inside) {
		result.significand = s + w_inside;
		return result;
	}
	result.significand = s + (vb > 4 * s + 2 || (vb == 4 * s + 2 && (s & 1) != 0));
	return result;
}

/*
** Writes d = significand * 10^exponent (significand not zero and below 10^17, perhaps
** ending in zeros) as the contract wants: its digits without the trailing zeros, in plain
** decimal when the leading digit's power of ten is -5..15, in printf's %e style
** otherwise. Returns the number of bytes written, at most 23; it may write scratch bytes
** after them, up to buf + 31.
*/
static size_t write_decimal(char *buf, struct decimal d)
{
	/*
	** The significand goes to digits[0..17) with leading zeros, as a digit and two words
	** of eight, and zeros follow up to digits + 41, so that the copies below can all be
	** of a constant size (a few moves, where a copy of variable size is a call). The
	** trailing zeros are counted on the words: the zero lanes at their high end.
	*/
	char digits[48];
	uint64_t high = d.significand / 100000000U;
	uint64_t low_values = eight_digit_values((uint32_t)(d.significand - high * 100000000U));
	uint64_t middle_values = eight_digit_values((uint32_t)(high % 100000000U));
	int length = decimal_length(d.significand);
	int zeros = low_values != 0      ? __builtin_clzll(low_values) / 8
	            : middle_values != 0 ? 8 + __builtin_clzll(middle_values) / 8
	                                 : 16;
	int count = length - zeros;                           /* significant digits */
	int leading_exponent = d.exponent + zeros + count - 1; /* x = d.ddd * 10^this */
	const char *first = digits + 17 - length;
	unsigned magnitude;
	char *p;

	digits[0] = (char)('0' + high / 100000000U);
	store_digits(digits + 1, middle_values, 0);
	store_digits(digits + 9, low_values, 0);
	memcpy(digits + 17, "000000000000000000000000", 24);

	if (leading_exponent >= 0 && leading_exponent <= 15) {
		int integer_digits = leading_exponent + 1;
		memcpy(buf, first, 16);
		if (integer_digits >= count) {
			/* "ddd000": only integral values of 2^53 or more come here. */
			memset(buf + count, '0', (size_t)(integer_digits - count));
			return (size_t)integer_digits;
		}
		/*
		** "dd.ddd": the digits after the point move one place right. buf + 32 bounds
		** the copies: the sign, 14 integer digits, the point and 16 bytes make 32.
		*/
		buf[integer_digits] = '.';
		if (integer_digits <= 14)
			memcpy(buf + integer_digits + 1, first + integer_digits, 16);
		else
			memcpy(buf + integer_digits + 1, first + integer_digits, 2);
		return (size_t)count + 1;
	}
	if (leading_exponent >= -5 && leading_exponent < 0) {
		/* "0.000ddd", at most 2 + 4 + 17 bytes. */
		int point_zeros = -leading_exponent - 1;
		memcpy(buf, "0.000000", 8);
		memcpy(buf + 2 + point_zeros, first, 16);
		memcpy(buf + 2 + point_zeros + 16, first + 16, 8);
		return (size_t)(2 + point_zeros + count);
	}
	/* "d.ddde-XX" */
	buf[0] = first[0];
	p = buf + 1;
	if (count > 1) {
		buf[1] = '.';
		memcpy(buf + 2, first + 1, 16);
		p = buf + 1 + count;
	}
	*p++ = 'e';
	*p++ = leading_exponent < 0 ? '-' : '+';
	magnitude = (unsigned)(leading_exponent < 0 ? -leading_exponent : leading_exponent);
	if (magnitude >= 100) {
		*p++ = (char)('0' + magnitude / 100);
		magnitude %= 100;
	}
	memcpy(p, digit_pairs + 2 * magnitude, 2);
	return (size_t)(p + 2 - buf);
}

/*
** Writes "nan" when significand (the NaN payload) is not zero, else the infinity of the
** given sign; returns the length.
*/
static size_t write_special(char *buf, uint64_t significand, bool negative)
{
	if (significand != 0) {
		memcpy(buf, "nan", 3); /* never "-nan": the sign of a NaN means nothing */
		return 3;
	}
	if (negative) {
		memcpy(buf, "-inf", 4);
		return 4;
	}
	memcpy(buf, "inf", 3);
	return 3;
}

/*
** A finite or special double taken apart: x = (-1)^negative * c * 2^q, with the raw
** exponent field and significand kept for the special values and the boundaries.
*/
struct binary {
	uint64_t significand;
	unsigned exponent_field;
	bool negative;
	uint64_t c;
	int q;
};

static inline struct binary decompose(double x)
{
	struct binary b;
	uint64_t bits;

	memcpy(&bits, &x, sizeof bits);
	b.negative = (bits >> 63) != 0;
	b.exponent_field = (unsigned)(bits >> SIGNIFICAND_BITS) & EXPONENT_FIELD_MAX;
	b.significand = bits & SIGNIFICAND_MASK;
	if (b.exponent_field == 0) {
		/* Subnormal: the same spacing as the smallest normals, no hidden bit. */
		b.c = b.significand;
		b.q = 1 - EXPONENT_BIAS;
	} else {
		b.c = HIDDEN_BIT | b.significand;
		b.q = (int)b.exponent_field - EXPONENT_BIAS;
	}
	return b;
}

size_t format_number(double x, char *buf)
{
	struct binary b = decompose(x);
	char *p = buf;

	if (b.exponent_field == EXPONENT_FIELD_MAX)
		return write_special(buf, b.significand, b.negative);
	if (b.c == 0) {
		buf[0] = '0'; /* -0 too: the contract prints it without a sign */
		return 1;
	}
	if (b.negative)
		*p++ = '-';
	/*
	** An integer below 2^53 has no fraction bits: print it as one. It is also its own
	** shortest form, since doubles there are at most 1 apart.
	*/
	if (b.exponent_field != 0 && b.q <= 0 && b.q > -SIGNIFICAND_BITS - 1) {
		uint64_t integer = b.c >> -b.q;
		if (integer << -b.q == b.c)
			return (size_t)(p - buf) + write_uint64(p, integer);
	}
	return (size_t)(p - buf) + write_decimal(p, shortest_decimal(b.c, b.q,
	    b.significand == 0 && b.exponent_field > 1));
}

/*
** Returns 5^n as a 128-bit integer for 0 <= n <= 30 (5^30 < 2^70).
*/
static uint128 power_of_five(int n)
{
	if (n <= POWER_OF_FIVE_MAX_64)
		return powers_of_five[n];
	return (uint128)powers_of_five[POWER_OF_FIVE_MAX_64] *
	       powers_of_five[n - POWER_OF_FIVE_MAX_64];
}

/*
** format_fixed for the magnitudes the exact path leaves: |x| >= 2^122 (about 5.3e36),
** where the result has no fraction to round and so is never a negative zero.
**
** snprintf's %f writes LC_NUMERIC's decimal point. swag never calls setlocale, so its
** process stays in the "C" locale whatever LC_ALL says, and the point is '.'. A caller
** that does change LC_NUMERIC must not use this function.
*/
static size_t format_fixed_by_snprintf(double x, int precision, char *buf)
{
	char text[NUMPRINT_FIXED_MAX + 1]; /* snprintf also writes a NUL */
	int length = snprintf(text, sizeof text, "%.*f", precision, x);
	if (length < 0)
		return 0; /* cannot happen: the format and the size are valid */
	if ((size_t)length > NUMPRINT_FIXED_MAX)
		length = NUMPRINT_FIXED_MAX; /* cannot happen either: 341 bytes at most */
	memcpy(buf, text, (size_t)length);
	return (size_t)length;
}

size_t format_fixed(double x, int precision, char *buf)
{
	struct binary b;
	uint64_t c;
	bool negative;
	int q;
	uint128 scaled;      /* the digits to print, without the point */
	int scaled_decimals; /* how many of them are after the point */
	int padding_zeros;   /* how many zeros follow them */
	char *p = buf;
	int length;

	if (precision < 0)
		precision = 0;
	if (precision > NUMPRINT_PRECISION_MAX)
		precision = NUMPRINT_PRECISION_MAX;
	b = decompose(x);
	if (b.exponent_field == EXPONENT_FIELD_MAX)
		return write_special(buf, b.significand, b.negative);
	negative = b.negative;
	c = b.c;
	q = b.q;
	if (q > FIXED_EXACT_Q_MAX)
		return format_fixed_by_snprintf(x, precision, buf);

	if (q >= 0) {
		/* An integer: exact, and every decimal is zero. */
		scaled = (uint128)c << q;
		scaled_decimals = 0;
		padding_zeros = precision;
	} else if (-q <= precision) {
		/*
		** x = c / 2^-q = c * 5^-q / 10^-q has exactly -q decimals, all printed:
		** no rounding, then zeros up to the precision.
		*/
		scaled = (uint128)c * power_of_five(-q);
		scaled_decimals = -q;
		padding_zeros = precision + q;
	} else {
		/*
		** x * 10^p = c * 5^p / 2^shift with shift = -q - p > 0. printf rounds the
		** exact value to nearest, ties to even; the remainder tells which exactly.
		** c * 5^p < 2^53 * 2^70, so beyond a shift of 127 the quotient is 0 and the
		** remainder below half.
		*/
		int shift = -q - precision;
		scaled = 0;
		if (shift < 128) {
			uint128 product = (uint128)c * power_of_five(precision);
			uint128 remainder, half;
			scaled = product >> shift;
			remainder = product - (scaled << shift);
			half = (uint128)1 << (shift - 1);
			if (remainder > half || (remainder == half && (scaled & 1) != 0))
				scaled++;
		}
		scaled_decimals = precision;
		padding_zeros = 0;
	}

	/* All digits zero prints unsigned: "0.00", never printf's "-0.00". */
	if (negative && scaled != 0)
		*p++ = '-';
	length = (int)write_uint128(p, scaled);
	if (length > scaled_decimals) {
		/* "ddd.ddd": open a gap for the point before the last scaled_decimals digits. */
		if (precision > 0) {
			int integer_digits = length - scaled_decimals;
			memmove(p + integer_digits + 1, p + integer_digits, (size_t)scaled_decimals);
			p[integer_digits] = '.';
			p += length + 1;
		} else {
			p += length;
		}
	} else {
		/* "0.000ddd": move the digits right, past "0." and the leading zeros. */
		int leading_zeros = scaled_decimals - length;
		memmove(p + 2 + leading_zeros, p, (size_t)length);
		p[0] = '0';
		p[1] = '.';
		memset(p + 2, '0', (size_t)leading_zeros);
		p += 2 + scaled_decimals;
	}
	memset(p, '0', (size_t)padding_zeros);
	return (size_t)(p + padding_zeros - buf);
}
