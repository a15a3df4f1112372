/*
 * numprint.c: format_number, format_fixed and format_uint, the printers of every result
 * (see numprint.h).
 *
 * format_number finds the shortest round-tripping digits with Schubfach (Raffaello
 * Giulietti, "The Schubfach way to render doubles", 2020; the algorithm behind Java's
 * Double.toString since JDK 19).  Schubfach was chosen over Ryu because it needs one
 * table of 617 128-bit powers of ten and no loop: three 64x128-bit multiplications give
 * the rounding interval's ends scaled by a power of ten, and at most two comparisons
 * pick the answer, which keeps one call within tens of nanoseconds.  Over Grisu it has
 * the advantage of never needing a fallback.  The table comes from
 * scripts/gen-numprint-table, which also proves the fixed-point logarithms used below.
 * The multiplication follows Alexander Bolz's C++ port (Drachennest), which keeps the
 * powers of ten to 128 bits rather than the paper's 126.
 *
 * Nearly every double takes a shorter way to Schubfach's answer, shortest_decimal_fast:
 * one multiplication gives the value scaled by the power of ten with 64 bits of
 * fraction, the power's top word gives half the gap between doubles in the same units,
 * and comparisons of the two pick the answer, exactly wherever |x| is in [1.2e-10,
 * 7.2e16) and elsewhere unless a comparison is too close to call, when the three
 * multiplications decide.  (The single product is Yaoyuan Guo's idea in yy_double,
 * which Victor Zverovich's Zmij also takes up; the argument for exactness here is this
 * file's own, given at the function.)  The digits are then written sixteen at once with
 * SSE2 on x86-64, or with 64-bit SWAR elsewhere, straight into their place in the text.
 *
 * Why this and not Dragonbox (Junekey Jeon, 2020), which also needs one multiplication
 * in the common case and which Debian packages (libdragonbox-dev): measured the same
 * way, callgrind on "swag -w 1000 avg < build/bench/numbers-200000.txt" (results of 9
 * and 17 significant digits), format_number with shortest_decimal_fast's choice made
 * by branches takes 159 instructions a value (200 with the SWAR digits instead of
 * SSE2), and 223 with Dragonbox 1.1.3 behind a C++ shim that returns its significand
 * and exponent to this file's formatting (77 in Dragonbox's to_decimal, 26 in the shim
 * and the call, 120 here), 252 when Dragonbox removes the trailing zeros itself.
 * bench_numprint agrees, in ns a value for integers, 17-digit averages, two decimals,
 * tiny and huge values: 7.2, 18.7, 17.2, 19.5 and 24.6 so; 7.2, 22.9, 18.3, 22.3 and
 * 30.3 with Dragonbox.  Dragonbox would also bring a C++ compiler into the build.  The
 * choice made without branches (see shortest_decimal_fast) takes 177 instructions a
 * value but fewer ns: 7.0, 14.2, 14.3, 15.9 and 19.5, on a run where the branches
 * take 6.9, 17.8, 15.6, 17.7 and 22.4.  Zmij (Victor Zverovich, 2025; -O2) takes 179
 * instructions and 15.0 ns a value over swag's averages in its C version, 177 and
 * 15.7 in its C++ one with SSE2, where format_number takes 177 and 13.7 (callgrind,
 * and the best of five timed runs on one core), and prints the same digits.
 *
 * format_fixed works with exact integer arithmetic: a finite double is c * 2^q with an
 * integer c < 2^53, so x * 10^p = c * 5^p * 2^(q+p), and for |x| < 2^122 (q <= 69) that
 * product and its rounding fit in 128 bits.  Only larger magnitudes go to snprintf.
 *
 * tests/bench/bench_numprint.c measures, per value (gcc -O2, x86_64): format_number 7 ns
 * for integers and 17-25 ns for other values, against 185-535 ns for
 * snprintf("%.17g"); format_fixed at precision 2, 12-25 ns against 120-230 ns for
 * snprintf("%.2f") (the same for values beyond 2^122, which go to it).
 *
 * Everything here assumes IEEE-754 binary64 doubles and a compiler with unsigned
 * __int128 (gcc and clang on 64-bit targets), and that a right shift of a negative int
 * is arithmetic, which gcc and clang document.
 */
#include <float.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "numprint.h"
#include "numprint_table.h"
#include "timestamp.h"

#if !defined(__SIZEOF_INT128__)
#error "numprint.c needs unsigned __int128 (gcc or clang on a 64-bit target)"
#endif
#if DBL_MANT_DIG != 53 || DBL_MAX_EXP != 1024
#error "numprint.c needs IEEE-754 binary64 doubles"
#endif

__extension__ typedef unsigned __int128 uint128;

/*
 * write_sixteen_digits uses SSE2 where the compiler targets it (every x86-64);
 * elsewhere, or with NUMPRINT_NO_SIMD defined (how the tests cover that path on x86-64
 * too), 64-bit SWAR arithmetic gives the same digits.
 */
#if defined(__SSE2__) && !defined(NUMPRINT_NO_SIMD) && defined(__BYTE_ORDER__) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define NUMPRINT_USE_SSE2 1
#include <emmintrin.h>
#else
#define NUMPRINT_USE_SSE2 0
#endif

/* The fields of a binary64: 52 significand bits, 11 exponent bits, biased by 1075. */
#define SIGNIFICAND_BITS 52
#define HIDDEN_BIT ((uint64_t)1 << SIGNIFICAND_BITS)
#define SIGNIFICAND_MASK (HIDDEN_BIT - 1)
#define EXPONENT_FIELD_MAX 0x7FF
#define EXPONENT_BIAS 1075	/* 1023, plus 52 to make the significand an integer */

/*
 * format_fixed's exact path handles x = c * 2^q with q up to this, so |x| < 2^122 and
 * every integer it prints is below 2^123: c * 5^30 < 2^53 * 2^70 and c << 69 < 2^122.
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

/* Writes v, which is below 10^8, as exactly eight digits (leading zeros kept) at p. */
static void
write_eight_digits(char *p, uint32_t v)
{
	uint32_t high = v / 10000, low = v % 10000;

	memcpy(p + 0, digit_pairs + 2 * (high / 100), 2);
	memcpy(p + 2, digit_pairs + 2 * (high % 100), 2);
	memcpy(p + 4, digit_pairs + 2 * (low / 100), 2);
	memcpy(p + 6, digit_pairs + 2 * (low % 100), 2);
}

/*
 * Writes the decimal digits of v so that the last one lands at end[-1], and nothing
 * before the first digit.  The caller has made room: decimal_length(v) bytes.
 */
static void
write_digits_backward(char *end, uint64_t v)
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
 * Returns the eight decimal digits of v, which is below 10^8, as one word whose bytes
 * are the digit values 0..9 in reading order: the most significant digit in the lowest
 * byte.  The digits come out of every lane at once (SWAR): one multiplication by a
 * reciprocal splits v into two halves of four digits, the next splits each half into
 * two pairs and the last each pair into two digits.  About 30 instructions for the
 * eight digits, where write_eight_digits takes about 35 and a digit-by-digit loop more
 * than 60, and the zero lanes give the trailing zeros without dividing by 10 again and
 * again.  (Checked on all 10^8 values against printf("%08u").)  It writes the integers,
 * and every significand where write_sixteen_digits has no SSE2.
 */
static inline __attribute__((always_inline)) uint64_t
eight_digit_values(uint32_t v)
{
	uint64_t halves = (uint64_t)(v / 10000) | (uint64_t)(v % 10000) << 32;
	uint64_t hundreds = ((halves * 10486) >> 20) & 0x0000007F0000007FU; /* lane / 100 */
	uint64_t pairs = (halves - 100 * hundreds) << 16 | hundreds;
	uint64_t tens = ((pairs * 103) >> 10) & 0x000F000F000F000FU;	/* lane / 10 */

	return (pairs - 10 * tens) << 8 | tens;
}

/*
 * Stores the digits of a word of eight_digit_values at p as text, from the one at skip
 * (the number of digits to leave out at the front, 0..7) to the last.  It always stores
 * eight bytes: those after the 8 - skip digits are scratch.
 */
static void
store_digits(char *p, uint64_t values, int skip)
{
	uint64_t text = values + 0x3030303030303030U;	/* '0' in every lane */

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	text >>= 8 * skip;
	memcpy(p, &text, 8);
#else
	for (int i = 0; i < 8; i++)
		p[i] = i + skip < 8 ? (char)(text >> (8 * (i + skip))) : '0';
#endif
}

/*
 * Writes v, which is below 10^8, in decimal at buf; returns the number of digits.  It
 * always stores eight bytes.
 */
static inline __attribute__((always_inline)) size_t
write_below_10_to_8(char *buf, uint32_t v)
{
	uint64_t values = eight_digit_values(v);
	/* The leading zeros are the zero lanes at the low end; 0 keeps one digit. */
	int skip = v == 0 ? 7 : __builtin_ctzll(values) / 8;

	store_digits(buf, values, skip);
	return (size_t)(8 - skip);
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/*
 * Writes v, which is below 10^4, in decimal at buf; returns the number of digits.  It
 * always stores four bytes.  eight_digit_values' lanes in one 32-bit word: v / 100
 * and v % 100 in its halves, then each half's tens and ones, so that the counts and
 * small integers most results are take half the instructions of the eight lanes.
 */
static inline __attribute__((always_inline)) size_t
write_below_10_to_4(char *buf, uint32_t v)
{
	uint32_t hundreds = (v * 5243) >> 19;			/* v / 100 below 43,699 */
	uint32_t pairs = hundreds | (v - 100 * hundreds) << 16;
	uint32_t tens = ((pairs * 103) >> 10) & 0x000F000FU;	/* lane / 10 */
	uint32_t values = (pairs - 10 * tens) << 8 | tens;
	int skip = v == 0 ? 3 : __builtin_ctz(values) / 8;
	uint32_t text = (values + 0x30303030U) >> (8 * skip);

	memcpy(buf, &text, 4);
	return (size_t)(4 - skip);
}
#endif

/*
 * Writes v in decimal at buf and returns the number of digits written.  It may write
 * scratch bytes after them, up to buf + 20.
 */
static size_t
write_uint64(char *buf, uint64_t v)
{
	uint64_t high, top;
	size_t length;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (v < 10000U)
		return write_below_10_to_4(buf, (uint32_t)v);
#endif
	if (v < 100000000U)
		return write_below_10_to_8(buf, (uint32_t)v);
	high = v / 100000000U;
	if (high < 100000000U) {
		length = write_below_10_to_8(buf, (uint32_t)high);
	} else {
		/* v >= 10^16: high has 9 to 12 digits, top at most 4. */
		top = high / 100000000U;
		length = write_below_10_to_8(buf, (uint32_t)top);
		store_digits(buf + length,
		    eight_digit_values((uint32_t)(high - top * 100000000U)), 0);
		length += 8;
	}
	store_digits(buf + length, eight_digit_values((uint32_t)(v - high * 100000000U)), 0);
	return length + 8;
}

/* Writes v, which must be below 2^123, in decimal at buf; returns the digit count. */
static size_t
write_uint128(char *buf, uint128 v)
{
	const uint64_t ten_to_19 = powers_of_ten[19];
	uint64_t high, low;
	size_t length;

	if ((uint64_t)(v >> 64) == 0)
		return write_uint64(buf, (uint64_t)v);
	/* Rare (only format_fixed of large values or high precision): one division. */
	high = (uint64_t)(v / ten_to_19);	/* below 2^123 / 10^19 < 2^64 */
	low = (uint64_t)(v % ten_to_19);
	length = write_uint64(buf, high);
	memset(buf + length, '0', 19);
	write_digits_backward(buf + length + 19, low);
	return length + 19;
}

size_t
format_uint(uint64_t v, char *buf)
{
	return write_uint64(buf, v);
}

/* Writes v, from 0 to 10^width - 1, in exactly width digits, zeros in front. */
static void
write_fixed_digits(char *buf, uint64_t v, int width)
{
	memset(buf, '0', (size_t)width);
	write_digits_backward(buf + width, v);
}

/* Writes "." and the first digits of nsec's nine (none for 0).  Returns the length. */
static size_t
write_fraction(char *buf, uint32_t nsec, int digits)
{
	uint32_t v = nsec;

	if (digits <= 0)
		return 0;
	for (int i = digits; i < 9; i++)
		v /= 10;
	buf[0] = '.';
	write_fixed_digits(buf + 1, v, digits);
	return (size_t)digits + 1;
}

size_t
format_rfc3339(int64_t sec, uint32_t nsec, int digits, char *buf)
{
	struct civil_time t;
	size_t n;

	civil_from_seconds(sec, &t);
	write_fixed_digits(buf, (uint64_t)t.year, 4);
	buf[4] = '-';
	write_fixed_digits(buf + 5, (uint64_t)t.month, 2);
	buf[7] = '-';
	write_fixed_digits(buf + 8, (uint64_t)t.day, 2);
	buf[10] = 'T';
	write_fixed_digits(buf + 11, (uint64_t)(t.second_of_day / 3600), 2);
	buf[13] = ':';
	write_fixed_digits(buf + 14, (uint64_t)(t.second_of_day / 60 % 60), 2);
	buf[16] = ':';
	write_fixed_digits(buf + 17, (uint64_t)(t.second_of_day % 60), 2);
	n = 19 + write_fraction(buf + 19, nsec, digits);
	buf[n++] = 'Z';
	return n;
}

size_t
format_epoch(int64_t sec, uint32_t nsec, uint32_t unit_nanos, int digits, char *buf)
{
	uint64_t whole, magnitude_sec = (uint64_t)sec, magnitude_nsec = nsec;
	size_t n = 0;

	/* A negative instant is written as minus its magnitude. */
	if (sec < 0) {
		buf[n++] = '-';
		magnitude_sec = (uint64_t)-(sec + 1) + (nsec == 0);
		magnitude_nsec = nsec == 0 ? 0 : 1000000000u - nsec;
	}
	whole = magnitude_sec * (1000000000u / unit_nanos) + magnitude_nsec / unit_nanos;
	n += write_uint64(buf + n, whole);
	/* The fraction's digits, in the unit: the nanoseconds below it, scaled to nine. */
	magnitude_nsec %= unit_nanos;
	for (uint32_t u = unit_nanos; u < 1000000000u; u *= 10)
		magnitude_nsec *= 10;
	return n + write_fraction(buf + n, (uint32_t)magnitude_nsec, digits);
}

/* Returns floor(log10(2^q)) for |q| <= 1500 (checked by scripts/gen-numprint-table). */
static int
floor_log10_pow2(int q)
{
	return (q * 1262611) >> 22;
}

/* Returns floor(log10(3/4 * 2^q)) for |q| <= 1500 (checked likewise). */
static int
floor_log10_three_quarters_pow2(int q)
{
	return (q * 1262611 - 524031) >> 22;
}

/* Returns floor(log2(10^e)) for |e| <= 400 (checked likewise). */
static int
floor_log2_pow10(int e)
{
	return (e * 1741647) >> 19;
}

/*
 * Returns cp * g / 2^127 rounded to odd: the integer part, with its lowest bit set when
 * the fraction is not zero.  g is a table row {high, low}.  Rounding to odd keeps
 * enough of the fraction for the comparisons in shortest_decimal to be exact against
 * the multiples of 4 they compare with (the paper's section 9.9).
 */
static uint64_t
multiply_round_to_odd(const uint64_t g[2], uint64_t cp)
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
 * Schubfach, the paper's figure 7.  Returns the decimal with the fewest digits that
 * lies in the rounding interval of v = c * 2^q (the reals that round to v), and among
 * those the closest to v, an even significand on a tie.  c is not zero and below 2^53;
 * lower_is_closer says v is a power of two above the smallest normal, whose
 * predecessor is only half as far as its successor.  The significand has at most 17
 * digits and may end in zeros.
 */
static __attribute__((noinline)) struct decimal
shortest_decimal(uint64_t c, int q, bool lower_is_closer)
{
	struct decimal result;
	/*
	 * Work with four times the values, so that the interval's ends (v minus and plus
	 * half a gap, or a quarter below a power of two) are integers too.
	 */
	uint64_t cb = c << 2;
	uint64_t cb_lower = cb - 2 + lower_is_closer;
	uint64_t cb_upper = cb + 2;
	/* The interval's ends belong to it when c is even (strtod rounds ties to even). */
	bool ends_included = (c & 1) == 0;
	/*
	 * 10^k is the largest power of ten not above the interval's width, so the scaled
	 * interval holds at least one integer and at most ten.
	 */
	int k = lower_is_closer ? floor_log10_three_quarters_pow2(q) : floor_log10_pow2(q);
	int shift = q + floor_log2_pow10(-k);	/* 0..3, so cb << shift fits in 64 bits */
	const uint64_t *g = numprint_pow10[-k - NUMPRINT_POW10_MIN];
	uint64_t vb = multiply_round_to_odd(g, cb << shift);
	uint64_t vb_lower = multiply_round_to_odd(g, cb_lower << shift) + !ends_included;
	uint64_t vb_upper = multiply_round_to_odd(g, cb_upper << shift) - !ends_included;
	uint64_t s = vb >> 2;	/* floor(v / 10^k) */
	bool u_inside, w_inside;

	/*
	 * First try one digit fewer: the multiples of 10^(k+1) on either side of v.  The
	 * interval is narrower than 10^(k+1), so at most one of them lies inside.
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

/* Whether a and b, taken modulo 2^64, are at most 4 apart. */
static inline bool
too_close(uint64_t a, uint64_t b)
{
	return a - b + 4 <= 8;
}

/*
 * shortest_decimal in one multiplication instead of three, for v = c * 2^q a normal
 * double whose neighbours are equally far away (c > 2^52).  With the same k,
 * V = v / 10^k is in [2^52, 10 * 2^53) and H = 2^(q-1) / 10^k, half the gap between
 * doubles in those units, is in [1/2, 5).  The rounding interval is [V - H, V + H], its
 * ends included when c is even.  It is narrower than 10, so it holds at most one
 * multiple of 10: when it holds one, that is the answer (no other decimal inside has as
 * few digits); otherwise the integer nearest V is, which lies inside since H > 1/2 (but
 * at q = 0, where V is an integer and its own answer).  That is Schubfach's choice, but
 * made from one product, g * (c << (h + 1)), whose top 64 bits are floor(V) and whose
 * next 64 are V's fraction, and from g's top word, which is H: the interval's ends need
 * no products of their own.
 *
 * Exactness.  g overestimates 10^-k by less than one unit of its last bit, so the
 * product's top 128 bits P satisfy V * 2^64 - 1 < P < V * 2^64 + 1/128.  So when the
 * fraction word is not 0 the top word is floor(V), (V - lower_multiple) * 2^60 lies in
 * (r - 1, r + 2) and H * 2^60 in (half_gap - 1, half_gap + 1).  When V * 2^60 and
 * H * 2^60 are integers, they are r and half_gap, and every comparison below is exact,
 * ties included: that is when k <= 0 and q - k >= -59, which is q in -85..3 (q - k
 * grows with q), |v| in [1.2e-10, 7.2e16), nearly everything swag prints.  Elsewhere a
 * comparison is trusted only when its two sides are more than 4 units apart, beyond the
 * error; when one is not, the function returns false and the caller asks
 * shortest_decimal.  That happens to 1 random bit pattern in 2000: mostly integers from
 * 2^57 to 2^80, whose V is often an integer or has an end of the interval on a multiple
 * of 10, and round numbers such as 1e20.
 *
 * Returns true with *result set, significand * 10^exponent with 16 or 17 digits
 * (perhaps ending in zeros), or false, leaving *result alone.
 */
static inline __attribute__((always_inline)) bool
shortest_decimal_fast(uint64_t c, int q, struct decimal *result)
{
	const uint64_t ten = (uint64_t)10 << 60;	/* 10 with 60 fraction bits */
	const uint64_t half = (uint64_t)1 << 63;	/* 1/2 with 64 fraction bits */
	int k = floor_log10_pow2(q);
	int h = q + floor_log2_pow10(-k);	/* 0..3 */
	const uint64_t *g = numprint_pow10[-k - NUMPRINT_POW10_MIN];
	uint64_t cp = c << (h + 1);		/* below 2^57 */
	uint128 product = (uint128)g[0] * cp + (uint64_t)(((uint128)g[1] * cp) >> 64);
	uint64_t integral = (uint64_t)(product >> 64);	/* N = floor(V) */
	uint64_t fraction = (uint64_t)product;		/* (V - N) * 2^64 */
	/* integral / 10 by 2^64 / 10 rounded up, exact below 2^62; integral is below 2^57. */
	uint64_t tenth = (uint64_t)(((uint128)integral * 0x199999999999999AU) >> 64);
	uint64_t digit = integral - 10 * tenth;
	uint64_t lower_multiple = integral - digit;
	/* r = (V - lower_multiple) * 2^60 and H * 2^60: 4 integer bits and 60 of fraction. */
	uint64_t r = digit << 60 | fraction >> 4;
	uint64_t half_gap = g[0] >> (4 - h);
	uint64_t even = (c & 1) == 0;	/* the ends are inside */

	if (q < -85 || q > 3) {
		/* Not exact: give up when a comparison is too close to call. */
		if (too_close(fraction, 0) || too_close(fraction, half) ||
		    too_close(r, half_gap) || too_close(r + half_gap, ten))
			return false;
	}
	result->exponent = k;
	/*
	 * The choice among lower_multiple, lower_multiple + 10 and the nearest integer is
	 * made without branches: for a printed average, whose digits end just below or just
	 * above a multiple of 10 by chance, branches guessed wrong 0.86 times a value (the
	 * simulator of callgrind --branch-sim).  The selects cost 18 instructions more and
	 * save 2 to 4 ns a value (bench_numprint), swag -w 1000 avg 10 % of its wall time.
	 * V an exact multiple of 10 (halves, integers: r is 0) keeps its branch, which is
	 * always guessed right where such values come in a row; through the selects
	 * swag -w 1000 avg over 1, 2, 3, ... ran 8 % slower.
	 */
	if (r == 0) {
		result->significand = lower_multiple;
	} else {
		uint64_t reach = half_gap + even;	/* the interval's half width, ends in */
		uint64_t below = r < reach;		/* lower_multiple is inside */
		uint64_t above = r > ten - reach;	/* lower_multiple + 10 is (never both) */
		/* Rounded to nearest, halfway to even: up when fraction > half, or = and odd. */
		uint64_t nearest = integral + (fraction > half - (integral & 1));
		uint64_t shorter = lower_multiple + 10 * above;
		uint64_t mask = -(below | above);

		/* Keeps gcc from turning the selects back into branches. */
		__asm__("" : "+r"(mask));
		result->significand = (shorter & mask) | (nearest & ~mask);
	}
	return true;
}

#if NUMPRINT_USE_SSE2
/*
 * Returns v, hiding its value from the optimizer: gcc would otherwise turn a pmullw by
 * a constant into three to five shifts and adds, more instructions for no gain.
 */
static inline __m128i
opaque(__m128i v)
{
	__asm__("" : "+x"(v));
	return v;
}
#endif

#if NUMPRINT_USE_SSE2
/*
 * Returns high and low, each below 10^8, as sixteen digits in the bytes of a vector,
 * high's eight first and leading zeros kept, and stores in *significant how many of
 * the sixteen there are up to the last one that is not zero (0 when both are zero).
 */
static inline __attribute__((always_inline)) __m128i
sixteen_digit_chars(uint32_t high, uint32_t low, int *significant)
{
	/*
	 * The SWAR of eight_digit_values on both halves at once, in a 128-bit register of
	 * SSE2: high and low in its two 64-bit lanes, each split by 10^4 into two 32-bit
	 * lanes (0xD1B71759 / 2^45 gives x / 10^4 for every x below 2^32), each of those by
	 * 100 into two 16-bit lanes (5243 / 2^19: exact below 43699) and each of those by 10
	 * into two bytes (6554 / 2^16: exact below 16389).  Only the 32-bit lanes come out
	 * in the wrong order (the quotient after the remainder), which a shuffle puts
	 * right.  About 30 instructions where the SWAR takes 60.
	 */
	const __m128i x = _mm_set_epi64x((long long)low, (long long)high);
	const __m128i by_10000 =
	    _mm_srli_epi64(_mm_mul_epu32(x, _mm_set1_epi32((int)0xD1B71759U)), 45);
	/* x + q * (2^32 - 10^4) = (x - 10^4 * q) | q << 32: remainder, then quotient. */
	const __m128i fours = _mm_add_epi64(x,
	    _mm_mul_epu32(by_10000, _mm_set1_epi32((int)(0xFFFFFFFFU - 9999))));
	const __m128i by_100 = _mm_srli_epi16(_mm_mulhi_epu16(fours, _mm_set1_epi16(5243)), 3);
	const __m128i mod_100 =
	    _mm_sub_epi16(fours, _mm_mullo_epi16(by_100, opaque(_mm_set1_epi16(100))));
	const __m128i pairs = _mm_or_si128(by_100, _mm_slli_epi32(mod_100, 16));
	const __m128i by_10 = _mm_mulhi_epu16(pairs, _mm_set1_epi16(6554));
	/* pair << 8 - (10 * 256 - 1) * tens = units << 8 | tens. */
	const __m128i swapped = _mm_sub_epi16(_mm_slli_epi16(pairs, 8),
	    _mm_mullo_epi16(by_10, opaque(_mm_set1_epi16(10 * 256 - 1))));
	const __m128i values = _mm_shuffle_epi32(swapped, _MM_SHUFFLE(2, 3, 0, 1));
	unsigned zero =
	    (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(values, _mm_setzero_si128()));
	unsigned nonzero = zero ^ 0xFFFFU;	/* a bit for each digit that is not 0 */

	/* The highest set bit of nonzero, counted from 1; 0 for none. */
	*significant = 31 - __builtin_clz(nonzero << 1 | 1);
	return _mm_or_si128(values, _mm_set1_epi8('0'));
}

/*
 * What insert_point's masks are loaded from, at an offset of its point's place: 16
 * bytes of 0xFF then 16 of 0, and 16 of 0, a point and 15 of 0.
 */
static const unsigned char point_masks[64] __attribute__((aligned(16))) = {
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	[32 + 16] = '.',
};

/*
 * Returns digits, sixteen digit characters, with a point before digit j (0 to 15):
 * the digits from j on move one byte up and the last of them out.  In the register,
 * where moving them in memory (store the sixteen, load them back from j, store them
 * one byte on) loads bytes of two stores, which waits for both to finish (perf record
 * -e cpu-clock puts a fifth of format_number's samples on that load).  swag -w 1000
 * avg over 2 million numbers, whose results all have a point: 70.9 ms with the move
 * in memory, 68.1 with the point put in the register.
 */
static inline __attribute__((always_inline)) __m128i
insert_point(__m128i digits, int j)
{
	const __m128i below = _mm_loadu_si128((const __m128i *)(const void *)
	    (point_masks + 16 - j));
	const __m128i point = _mm_loadu_si128((const __m128i *)(const void *)
	    (point_masks + 48 - j));

	/* below | the point's byte: where the moved digits do not go (andnot inverts it). */
	return _mm_or_si128(_mm_or_si128(_mm_and_si128(digits, below), point),
	    _mm_andnot_si128(_mm_or_si128(below, _mm_cmpeq_epi8(point, _mm_set1_epi8('.'))),
	    _mm_slli_si128(digits, 1)));
}
#endif

/*
 * Writes high and low, each below 10^8, as sixteen digits at p, high's eight first and
 * leading zeros kept.  Returns how many of the sixteen there are up to the last one
 * that is not zero (0 when both are zero).
 */
static inline __attribute__((always_inline)) int
write_sixteen_digits(char *p, uint32_t high, uint32_t low)
{
#if NUMPRINT_USE_SSE2
	int significant;

	_mm_storeu_si128((__m128i *)(void *)p, sixteen_digit_chars(high, low, &significant));
	return significant;
#else
	uint64_t high_values = eight_digit_values(high);
	uint64_t low_values = eight_digit_values(low);

	store_digits(p, high_values, 0);
	store_digits(p + 8, low_values, 0);
	/* The trailing zeros are the zero lanes at the high end of each word. */
	return low_values != 0 ? 16 - __builtin_clzll(low_values) / 8 :
	    high_values != 0 ? 8 - __builtin_clzll(high_values) / 8 : 0;
#endif
}

/*
 * Writes the significand that write_decimal took apart at p: first, its 17th digit from
 * the right, only when more says that it is not 0, then high and low as sixteen digits.
 * Returns how many digits there are up to the last that is not zero.  Always stores 17
 * bytes: the last is scratch when more is 0.
 */
static inline __attribute__((always_inline)) int
write_significand(char *p, uint32_t first, int more, uint32_t high, uint32_t low)
{
	p[0] = (char)('0' + first);	/* overwritten when it is 0 */
	return more + write_sixteen_digits(p + more, high, low);
}

/*
 * Writes d = significand * 10^exponent (significand in [10^15, 10^17), perhaps ending
 * in zeros) as swag(1) prints them (OUTPUT): its digits without the trailing zeros, in
 * plain decimal when the leading digit's power of ten is -5..15, in printf's %e style
 * otherwise.  Returns the number of bytes written, at most 23; it may write scratch
 * bytes after them, up to buf + 31.
 */
static size_t
write_decimal(char *buf, struct decimal d)
{
	/* The significand is first, high, low: 1, 8 and 8 digits. */
	uint64_t upper = d.significand / 100000000U;
	uint32_t first = (uint32_t)upper / 100000000U;
	uint32_t high = (uint32_t)upper - first * 100000000U;
	uint32_t low = (uint32_t)(d.significand - upper * 100000000U);
	int more = first != 0;				/* 17 digits, not 16 */
	int leading_exponent = d.exponent + 15 + more;	/* x = d.ddd * 10^this */
	int count;					/* significant digits */
	unsigned magnitude;
	char *p;

	/* The digits go straight to their place in each notation. */
	if (leading_exponent >= 0 && leading_exponent <= 15) {
		int integer_digits = leading_exponent + 1;

#if NUMPRINT_USE_SSE2
		/* The sixteen digits are stored once, with the point when there is one. */
		__m128i digits = sixteen_digit_chars(high, low, &count);

		buf[0] = (char)('0' + first);	/* overwritten when it is 0 */
		count += more;
		/* "ddd" or "ddd000": the digits hold the zeros already. */
		if (integer_digits >= count) {
			_mm_storeu_si128((__m128i *)(void *)(buf + more), digits);
			return (size_t)integer_digits;
		}
		/* "dd.ddd": the point, then the digits after it one place right. */
		_mm_storeu_si128((__m128i *)(void *)(buf + more),
		    insert_point(digits, integer_digits - more));
		buf[more + 16] = (char)(_mm_extract_epi16(digits, 7) >> 8);
		return (size_t)count + 1;
#else
		count = write_significand(buf, first, more, high, low);
		/* "ddd" or "ddd000": the digits hold the zeros already. */
		if (integer_digits >= count)
			return (size_t)integer_digits;
		/*
		 * "dd.ddd": the digits after the point move one place right.  buf + 32 bounds
		 * the move: the sign, 14 integer digits, the point and 16 bytes make 32.
		 */
		if (integer_digits <= 14)
			memmove(buf + integer_digits + 1, buf + integer_digits, 16);
		else
			memmove(buf + integer_digits + 1, buf + integer_digits, 2);
		buf[integer_digits] = '.';
		return (size_t)count + 1;
#endif
	}
	if (leading_exponent >= -5 && leading_exponent < 0) {
		/* "0.000ddd", at most 2 + 4 + 17 bytes. */
		int point_zeros = -leading_exponent - 1;

		memcpy(buf, "0.000000", 8);
		count = write_significand(buf + 2 + point_zeros, first, more, high, low);
		return (size_t)(2 + point_zeros + count);
	}
	/* "d.ddde-XX": the digits from buf + 1, then the first moves left over the point. */
	count = write_significand(buf + 1, first, more, high, low);
	buf[0] = buf[1];
	p = buf + 1;
	if (count > 1) {
		buf[1] = '.';
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
 * Writes "nan" when significand (the NaN payload) is not zero, else the infinity of the
 * given sign; returns the length.
 */
static size_t
write_special(char *buf, uint64_t significand, bool negative)
{
	if (significand != 0) {
		/* Never "-nan": the sign of a NaN means nothing. */
		memcpy(buf, "nan", 3);
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
 * A finite or special double taken apart: x = (-1)^negative * c * 2^q, with the raw
 * exponent field and significand kept for the special values and the boundaries.
 */
struct binary {
	uint64_t significand;
	unsigned exponent_field;
	bool negative;
	uint64_t c;
	int q;
};

static inline struct binary
decompose(double x)
{
	struct binary b;
	uint64_t bits;

	memcpy(&bits, &x, sizeof(bits));
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

size_t
format_number(double x, char *buf)
{
	struct binary b = decompose(x);
	struct decimal d;
	char *p = buf;

	/* One test (0 - 1 wraps around) sends zeros, subnormals, infinities and NaNs aside. */
	if (b.exponent_field - 1 >= EXPONENT_FIELD_MAX - 1) {
		if (b.exponent_field == EXPONENT_FIELD_MAX)
			return write_special(buf, b.significand, b.negative);
		if (b.c == 0) {
			buf[0] = '0';	/* -0 too: swag(1) prints it without a sign */
			return 1;
		}
	}
	*p = '-';
	p += b.negative;
	/*
	 * An integer below 2^53 has no fraction bits: print it as one.  It is also its own
	 * shortest form, since doubles there are at most 1 apart.  (For q in -52..0, c
	 * shifted left by 64 + q, in two steps that stay below 64, keeps only its -q
	 * fraction bits.)
	 */
	if (b.q <= 0 && b.q >= -SIGNIFICAND_BITS && ((b.c << 11) << (53 + b.q)) == 0)
		return (size_t)(p - buf) + write_uint64(p, b.c >> -b.q);
	if (b.significand == 0 || b.exponent_field == 0 ||
	    !shortest_decimal_fast(b.c, b.q, &d)) {
		d = shortest_decimal(b.c, b.q, b.significand == 0 && b.exponent_field > 1);
		/* Short answers and subnormals have fewer digits than write_decimal takes. */
		while (d.significand < 1000000000000000U) {
			d.significand *= 10;
			d.exponent--;
		}
	}
	return (size_t)(p - buf) + write_decimal(p, d);
}

struct number_memo
number_memo_start(int precision)
{
	struct number_memo memo = { UINT64_C(1) << 63, "", 0 };
	char text[NUMPRINT_FIXED_MAX];
	size_t len = precision < 0 ? format_number(-0.0, text) :
	    format_fixed(-0.0, precision, text);

	memcpy(memo.text, text, NUMPRINT_SHORTEST_LEN);
	memo.len = (unsigned char)len;
	return memo;
}

/* Returns 5^n as a 128-bit integer for 0 <= n <= 30 (5^30 < 2^70). */
static uint128
power_of_five(int n)
{
	if (n <= POWER_OF_FIVE_MAX_64)
		return powers_of_five[n];
	return (uint128)powers_of_five[POWER_OF_FIVE_MAX_64] *
	    powers_of_five[n - POWER_OF_FIVE_MAX_64];
}

/*
 * format_fixed for the magnitudes the exact path leaves: |x| >= 2^122 (about 5.3e36),
 * where the result has no fraction to round and so is never a negative zero.
 *
 * snprintf's %f writes LC_NUMERIC's decimal point.  swag never calls setlocale, so its
 * process stays in the "C" locale whatever LC_ALL says, and the point is '.'.  A caller
 * that does change LC_NUMERIC must not use this function.
 */
static size_t
format_fixed_by_snprintf(double x, int precision, char *buf)
{
	char text[NUMPRINT_FIXED_MAX + 1];	/* snprintf also writes a NUL */
	int length = snprintf(text, sizeof(text), "%.*f", precision, x);

	if (length < 0)
		return 0;	/* cannot happen: the format and the size are valid */
	if ((size_t)length > NUMPRINT_FIXED_MAX)
		length = NUMPRINT_FIXED_MAX; /* cannot happen either: 341 bytes at most */
	memcpy(buf, text, (size_t)length);
	return (size_t)length;
}

/*
 * format_fixed's common case: a value with a fraction to round (x = c * 2^q, q < 0,
 * with shift = -q - precision fraction bits beyond the precision, 1 to 63) at a
 * precision up to FIXED_FAST_PRECISION_MAX.  x * 10^precision = c * 5^precision /
 * 2^shift is rounded as the exact path rounds it (to nearest, ties to even, on the
 * exact value), from one 64x64-bit product up to precision 4 and a 64x128-bit one
 * above, and its digits are written once: those of an integer part and the
 * fraction's, the fraction's moved right by one for the point (one 16-byte move,
 * which is why the precision stops at 16); or, below 1, those of 10^precision + the
 * fraction, whose leading 1 becomes the point after a 0.  Returns 0 when the digits
 * do not fit 64 bits (the exact path then prints).  About 127 instructions a value,
 * the digits' 47 among them, where the exact path takes about 200 (callgrind, swag -w
 * 1000 -p 2 avg over make bench's numbers).
 */
#define FIXED_FAST_PRECISION_MAX 16

static inline __attribute__((always_inline)) size_t
format_fixed_fast(char *buf, bool negative, uint64_t c, int q, int precision)
{
	int shift = -q - precision;
	uint64_t half = UINT64_C(1) << (shift - 1);
	uint64_t one = powers_of_ten[precision];	/* 1 at this precision */
	uint64_t scaled, remainder;
	char *p = buf;
	size_t length;

	if (precision <= 4) {
		/* c * 5^4 < 2^63: the product fits 64 bits. */
		uint64_t product = c * powers_of_five[precision];

		scaled = product >> shift;
		remainder = product & ((UINT64_C(1) << shift) - 1);
	} else {
		uint128 product = (uint128)c * powers_of_five[precision];	/* below 2^91 */
		/* Its halves shifted apart: a uint128 shift would test for shifts past 63. */
		uint64_t high = (uint64_t)(product >> 64), low = (uint64_t)product;

		scaled = low >> shift | high << (64 - shift);
		remainder = low & ((UINT64_C(1) << shift) - 1);
		/*
		 * Digits up to 2^64 - 2, so that rounding up cannot wrap (no double gives
		 * 2^64 - 1: the test is a guard, not a case).
		 */
		if (__builtin_expect((high >> shift) != 0 || scaled == UINT64_MAX, 0))
			return 0;
	}
	scaled += remainder > half || (remainder == half && (scaled & 1) != 0);
	/* All digits zero prints unsigned: "0.00", never printf's "-0.00". */
	*p = '-';
	p += negative && scaled != 0;
	if (scaled < one) {
		if (precision == 0) {
			*p = '0';
			return (size_t)(p + 1 - buf);
		}
		/* "0.ddd": the digits of one + scaled at p + 1, their 1 turned into the point. */
		write_uint64(p + 1, one + scaled);
		p[0] = '0';
		p[1] = '.';
		return (size_t)(p + precision + 2 - buf);
	}
	length = write_uint64(p, scaled);
	if (precision > 0) {
		char *point = p + length - precision;
		uint64_t digits[2];	/* the fraction's, and scratch after them */

		memcpy(digits, point, sizeof(digits));
		memcpy(point + 1, digits, sizeof(digits));
		*point = '.';
		length++;
	}
	return (size_t)(p - buf) + length;
}

/*
 * format_fixed exactly, for every x and precision (but for magnitudes of 2^122 and
 * more, format_fixed_by_snprintf).  Out of line, so that its registers do not cost
 * format_fixed_fast; it takes x apart again, which only the values format_fixed_fast
 * leaves pay.
 */
static __attribute__((noinline)) size_t
format_fixed_exact(double x, int precision, char *buf)
{
	struct binary b;
	uint64_t c;
	bool negative;
	int q;
	uint128 scaled;		/* the digits to print, without the point */
	int scaled_decimals;	/* how many of them are after the point */
	int padding_zeros;	/* how many zeros follow them */
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
		 * x = c / 2^-q = c * 5^-q / 10^-q has exactly -q decimals, all printed: no
		 * rounding, then zeros up to the precision.
		 */
		scaled = (uint128)c * power_of_five(-q);
		scaled_decimals = -q;
		padding_zeros = precision + q;
	} else {
		/*
		 * x * 10^p = c * 5^p / 2^shift with shift = -q - p > 0.  printf rounds the
		 * exact value to nearest, ties to even; the remainder tells which exactly.
		 * c * 5^p < 2^53 * 2^70, so beyond a shift of 127 the quotient is 0 and the
		 * remainder below half.
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
		/* "ddd.ddd": a gap for the point before the last scaled_decimals digits. */
		if (precision > 0) {
			int integer_digits = length - scaled_decimals;

			memmove(p + integer_digits + 1, p + integer_digits,
			    (size_t)scaled_decimals);
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

size_t
format_fixed(double x, int precision, char *buf)
{
	if (precision >= 0 && precision <= FIXED_FAST_PRECISION_MAX) {
		struct binary b = decompose(x);
		int shift = -b.q - precision;

		/* An integer's q is at least 0, an infinity's or a NaN's 972: shift < 0. */
		if (shift > 0 && shift < 64) {
			size_t length = format_fixed_fast(buf, b.negative, b.c, b.q, precision);

			if (length != 0)
				return length;
		}
	}
	return format_fixed_exact(x, precision, buf);
}
