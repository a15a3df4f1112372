/*
** test_numprint.c: format_number, format_fixed, format_uint, format_rfc3339 and format_epoch against the C library.
**
** The man page's examples come first, as a table. Then the random sweeps, which check
** properties rather than copied answers:
**
**   - format_number's text reads back (strtod) to the same bits; it has the fewest
**     significant digits that can, and among those the ones nearest the exact value,
**     judged by glibc's correctly rounded "%.*e"; and its layout (plain or exponent,
**     where the point goes) is exactly the man page's for those digits;
**   - format_fixed equals glibc's "%.*f" byte for byte, but for the sign of zero.
**
** Every sweep uses a fixed seed, so a failure repeats. The sweeps are split into several
** tests so that Criterion runs them on all processors.
*/
#include <criterion/criterion.h>

#include <float.h>
#include <inttypes.h>
#include <math.h> /* isfinite, isnan, INFINITY, NAN: macros, no libm */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "numprint.h"

/* splitmix64: a small generator whose whole state is one seed. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15U);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9U;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBU;
	return z ^ (z >> 31);
}

static double double_from_bits(uint64_t bits)
{
	double x;
	memcpy(&x, &bits, sizeof x);
	return x;
}

static uint64_t bits_of(double x)
{
	uint64_t bits;
	memcpy(&bits, &x, sizeof bits);
	return bits;
}

/*
** The few libm functions the tests need, done on the bits, so that the test binary
** links with the C library alone.
*/

/* 2^e for -1074 <= e <= 1023, subnormals included. */
static double power_of_two(int e)
{
	if (e < -1022)
		return double_from_bits((uint64_t)1 << (e + 1074));
	return double_from_bits((uint64_t)(e + 1023) << 52);
}

/* The next double away from zero after the finite x > 0 (inf after DBL_MAX). */
static double next_up(double x)
{
	return double_from_bits(bits_of(x) + 1);
}

/* The next double toward zero from x > 0. */
static double next_down(double x)
{
	return double_from_bits(bits_of(x) - 1);
}

/*
** Checks that nothing was written in text[limit..size), which was filled with '#'
** before the call: the printers must stay inside the buffer sizes that they promise.
*/
static void check_canary(const char *text, size_t limit, size_t size)
{
	for (size_t i = limit; i < size; i++)
		cr_assert_eq(text[i], '#', "wrote past the %zu bytes promised", limit);
}

/* format_number's text of x, NUL-terminated in a static buffer. */
static const char *number_text(double x)
{
	static char text[NUMPRINT_SHORTEST_MAX + 16];
	size_t length;
	/* Not '#' inside the buffer: a copy of its scratch bytes past the end must show. */
	memset(text, '@', NUMPRINT_SHORTEST_MAX);
	memset(text + NUMPRINT_SHORTEST_MAX, '#', sizeof text - NUMPRINT_SHORTEST_MAX);
	length = format_number(x, text);
	cr_assert(length > 0 && length <= 24, "format_number(%a) wrote %zu bytes", x, length);
	check_canary(text, NUMPRINT_SHORTEST_MAX, sizeof text);
	text[length] = '\0';
	return text;
}

/* format_fixed's text of x, NUL-terminated in a static buffer. */
static const char *fixed_text(double x, int precision)
{
	static char text[NUMPRINT_FIXED_MAX + 16];
	size_t length;
	memset(text, '#', sizeof text);
	length = format_fixed(x, precision, text);
	cr_assert(length > 0 && length <= NUMPRINT_FIXED_MAX);
	check_canary(text, NUMPRINT_FIXED_MAX, sizeof text);
	text[length] = '\0';
	return text;
}

/* ---------------------------------------------------------------------------------- */
/* format_number: the man page's examples and the edges of each notation.             */
/* ---------------------------------------------------------------------------------- */

struct number_case {
	double value;
	const char *text;
};

Test(format_number, man_page_examples_and_edges)
{
	const struct number_case cases[] = {
		{0.0, "0"},
		{-0.0, "0"},
		{1.0, "1"},
		{-3.0, "-3"},
		{14.0, "14"},
		{100000000.0, "100000000"},
		{9007199254740991.0, "9007199254740991"},   /* 2^53 - 1: integer rule */
		{9007199254740992.0, "9007199254740992"},   /* 2^53: shortest digits, plain */
		{9007199254740994.0, "9007199254740994"},   /* 2^53 + 2: all 16 digits needed */
		{9007199254741000.0, "9007199254741000"},   /* 2^53 + 8: 13 digits, plain */
		{-9007199254740994.0, "-9007199254740994"},
		{1e15, "1000000000000000"},
		{9999999999999998.0, "9999999999999998"},   /* the largest double below 1e16 */
		{1e16, "1e+16"},
		{1e16 + 2, "1.0000000000000002e+16"},
		{0.1, "0.1"},
		{0.3, "0.3"},
		{0.1 + 0.2, "0.30000000000000004"},
		{2.5, "2.5"},
		{-0.5, "-0.5"},
		{1e-5, "0.00001"},
		{1.2345e-5, "0.000012345"},
		{9.99e-6, "9.99e-06"},
		{1.5e-7, "1.5e-07"},
		{1e20, "1e+20"},
		{1e21, "1e+21"},
		{1e23, "1e+23"},
		{1e100, "1e+100"},
		{1.2345e100, "1.2345e+100"},
		{-1.5e-300, "-1.5e-300"},
		{5e-324, "5e-324"},
		{-5e-324, "-5e-324"},
		{1e-323, "1e-323"},
		{DBL_MIN, "2.2250738585072014e-308"},
		{DBL_MAX, "1.7976931348623157e+308"},
		{-DBL_MAX, "-1.7976931348623157e+308"},
		{123456.789, "123456.789"},
		{1234.56789, "1234.56789"},
		{0.000123, "0.000123"},
		{2251799813685248.5, "2251799813685248.5"}, /* 2^51 + 0.5 */
		{5e-1, "0.5"},
		{1.0 / 3.0, "0.3333333333333333"},
		{2.0 / 3.0, "0.6666666666666666"},
		{(double)INFINITY, "inf"},
		{-(double)INFINITY, "-inf"},
		{(double)NAN, "nan"},
		{-(double)NAN, "nan"},
		{9007199254740993.0, "9007199254740992"}, /* not a double: rounds to 2^53 */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		cr_expect_str_eq(number_text(cases[i].value), cases[i].text, "format_number(%a)",
		                 cases[i].value);
}

Test(format_number, nan_with_any_payload_or_sign_is_nan)
{
	cr_assert_str_eq(number_text(double_from_bits(0x7FF0000000000001U)), "nan");
	cr_assert_str_eq(number_text(double_from_bits(0xFFF8000000000000U)), "nan");
	cr_assert_str_eq(number_text(double_from_bits(0xFFFFFFFFFFFFFFFFU)), "nan");
}

/* ---------------------------------------------------------------------------------- */
/* format_number: the reference check.                                                */
/* ---------------------------------------------------------------------------------- */

/*
** A decimal as significant digits: digits[0..count) with no leading or trailing zero,
** and the power of ten of the first digit, so the value is d.ddd * 10^leading_exponent.
*/
struct significant {
	char digits[40];
	int count;
	int leading_exponent;
};

/* Reads the significant digits of text, which printf or format_number wrote. */
static struct significant significant_of(const char *text)
{
	struct significant s = {{0}, 0, 0};
	char all[400];
	int all_count = 0, before_point = -1, exponent = 0, first = 0, last;
	const char *p = text;
	if (*p == '-')
		p++;
	for (; *p != '\0' && *p != 'e'; p++) {
		if (*p == '.')
			before_point = all_count;
		else
			all[all_count++] = *p;
	}
	if (*p == 'e')
		exponent = atoi(p + 1);
	if (before_point < 0)
		before_point = all_count;
	while (first < all_count - 1 && all[first] == '0')
		first++;
	last = all_count - 1;
	while (last > first && all[last] == '0')
		last--;
	s.count = last - first + 1;
	cr_assert(s.count < (int)sizeof s.digits, "too many digits in '%s'", text);
	memcpy(s.digits, all + first, (size_t)s.count);
	s.leading_exponent = before_point - 1 - first + exponent;
	return s;
}

static bool same_decimal(struct significant a, struct significant b)
{
	return a.count == b.count && a.leading_exponent == b.leading_exponent &&
	       memcmp(a.digits, b.digits, (size_t)a.count) == 0;
}

/*
** The text the man page asks for, given the (independently checked) significant digits:
** built here the slow, obvious way, to compare with format_number's fast one.
*/
static void man_page_layout(bool negative, struct significant s, char *out)
{
	int e = s.leading_exponent;
	char *p = out;
	if (negative)
		*p++ = '-';
	if (e >= -5 && e < 0) {
		p += sprintf(p, "0.");
		for (int i = 0; i < -e - 1; i++)
			*p++ = '0';
		memcpy(p, s.digits, (size_t)s.count);
		p += s.count;
	} else if (e >= 0 && e <= 15) {
		for (int i = 0; i < s.count || i <= e; i++) {
			if (i == e + 1)
				*p++ = '.';
			*p++ = i < s.count ? s.digits[i] : '0';
		}
	} else {
		*p++ = s.digits[0];
		if (s.count > 1) {
			*p++ = '.';
			memcpy(p, s.digits + 1, (size_t)s.count - 1);
			p += s.count - 1;
		}
		p += sprintf(p, "e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
	}
	*p = '\0';
}

/*
** ref is printf's "%.*e" of ax > 0 with `count` digits, and it does not read back to ax.
** Writes the other decimal of `count` digits next to ax: ref is the nearest on one side,
** this is the nearest on the other.
*/
static void other_neighbour(const char *ref, int count, double ax, char *out)
{
	uint64_t digits = 0;
	int exponent;
	const char *p;
	uint64_t smallest = 1, overflow;
	for (int i = 1; i < count; i++)
		smallest *= 10;
	overflow = smallest * 10;
	for (p = ref; *p != 'e'; p++)
		if (*p != '.')
			digits = digits * 10 + (uint64_t)(*p - '0');
	exponent = atoi(p + 1) - (count - 1); /* of the last digit */
	if (strtod(ref, NULL) < ax) {
		digits++;
		if (digits == overflow) {
			digits = smallest;
			exponent++;
		}
	} else if (digits == smallest) {
		digits = overflow - 1; /* below a power of ten the grid is ten times finer */
		exponent--;
	} else {
		digits--;
	}
	sprintf(out, "%" PRIu64 "e%d", digits, exponent);
}

/*
** ref is printf's "%.*e" of ax with `count` digits, count >= 2. Writes, in the same
** layout, the nearest decimal to ax with count - 1 digits, as printf's "%.*e" with one
** digit fewer would, without its cost: rounding ref again gives the same digits unless
** ref's last digit is a 5 (only then can ax and ref lie on two sides of a halfway point
** of the shorter grid), and then printf is asked after all.
*/
static void nearest_shorter(const char *ref, int count, double ax, char *out, size_t size)
{
	char digits[40];
	int length = 0, leading_exponent;
	const char *p;
	for (p = ref; *p != 'e'; p++)
		if (*p != '.')
			digits[length++] = *p;
	leading_exponent = atoi(p + 1);
	cr_assert_eq(length, count);
	if (digits[count - 1] == '5') {
		snprintf(out, size, "%.*e", count - 2, ax);
		return;
	}
	if (digits[count - 1] > '5') {
		int i = count - 2;
		while (i >= 0 && digits[i] == '9')
			digits[i--] = '0';
		if (i >= 0) {
			digits[i]++;
		} else {
			digits[0] = '1'; /* 9.99 became 10.0 */
			leading_exponent++;
		}
	}
	if (count - 1 == 1)
		snprintf(out, size, "%ce%+03d", digits[0], leading_exponent);
	else
		snprintf(out, size, "%c.%.*se%+03d", digits[0], count - 2, digits + 1,
		         leading_exponent);
}

/*
** Checks everything the man page says of format_number(x) for a finite x that is not
** zero: the text reads back to x; its layout is the man page's; its digits are the
** correctly rounded ones of their length when those read back, otherwise the only
** other candidate of that length; and no decimal with one digit fewer reads back.
*/
static void check_shortest(double x)
{
	char text[64], ref[64], shorter[64], neighbour[64], expected[64];
	double ax = x < 0 ? -x : x;
	struct significant ours;
	bool lower_gap_is_smaller;

	strcpy(text, number_text(x));
	cr_assert_eq(bits_of(strtod(text, NULL)), bits_of(x),
	             "format_number(%a) = '%s' does not read back", x, text);
	ours = significant_of(text);
	man_page_layout(x < 0, ours, expected);
	cr_assert_str_eq(text, expected, "format_number(%a): layout", x);

	/* The nearest decimal of the same length, if it reads back, is ours. */
	snprintf(ref, sizeof ref, "%.*e", ours.count - 1, ax);
	if (ours.count > 1)
		nearest_shorter(ref, ours.count, ax, shorter, sizeof shorter);
	if (!same_decimal(significant_of(ref), ours)) {
		cr_assert_neq(strtod(ref, NULL), ax,
		              "format_number(%a) = '%s', but '%s' is nearer", x, text, ref);
		other_neighbour(ref, ours.count, ax, neighbour);
		cr_assert(same_decimal(significant_of(neighbour), ours),
		          "format_number(%a) = '%s', expected '%s'", x, text, neighbour);
	}

	/*
	** One digit fewer: neither neighbour of that length may read back. When the gaps
	** below and above x are equal, the farther neighbour is outside whenever the
	** nearer one is, so it needs testing only at a power of two.
	*/
	if (ours.count == 1)
		return;
	cr_assert_neq(strtod(shorter, NULL), ax, "format_number(%a) = '%s', but '%s' is shorter",
	              x, text, shorter);
	lower_gap_is_smaller = (bits_of(ax) & 0x000FFFFFFFFFFFFFU) == 0 && ax >= 2 * DBL_MIN;
	if (lower_gap_is_smaller) {
		other_neighbour(shorter, ours.count - 1, ax, neighbour);
		cr_assert_neq(strtod(neighbour, NULL), ax,
		              "format_number(%a) = '%s', but '%s' is shorter", x, text, neighbour);
	}
}

Test(format_number, reference_check_of_the_edge_cases)
{
	const double values[] = {
		1.0, 14.0, 2.5, 0.1, 0.3, 0.1 + 0.2, 1e-5, 9.99e-6, 1.5e-7, 1e15, 1e16, 1e16 + 2,
		1e20, 1e23, 1e100, 5e-324, DBL_MIN, DBL_MAX, 123456.789, 9007199254740992.0,
		9007199254740994.0,
	};
	for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
		check_shortest(values[i]);
		check_shortest(-values[i]);
	}
}

/* Every power of two: the doubles whose gap below is half the gap above. */
Test(format_number, every_power_of_two)
{
	for (int e = -1074; e <= 1023; e++) {
		double x = power_of_two(e);
		check_shortest(x);
		if (e > -1074)
			check_shortest(next_down(x));
		if (e < 1023)
			check_shortest(next_up(x));
	}
}

/* Each power of ten that is a double, and its neighbours, cross the layout's limits. */
Test(format_number, around_powers_of_ten)
{
	for (int e = -323; e <= 308; e++) {
		char text[16];
		double x;
		snprintf(text, sizeof text, "1e%d", e);
		x = strtod(text, NULL);
		check_shortest(x);
		check_shortest(next_down(x));
		check_shortest(next_up(x));
	}
}

/* The integers around 2^53, where the integer rule stops. */
Test(format_number, around_two_to_the_53)
{
	double x = 9007199254740992.0 - 2000;
	for (int i = 0; i < 4000; i++, x = next_up(x)) {
		check_shortest(x);
		if (x < 9007199254740992.0) {
			char expected[32];
			snprintf(expected, sizeof expected, "%.0f", x);
			cr_assert_str_eq(number_text(x), expected);
		}
	}
}

/* Random bit patterns: every binade and every sign, subnormals included. */
static void check_random_bit_patterns(uint64_t seed, int count)
{
	uint64_t state = seed;
	for (int i = 0; i < count; i++) {
		double x = double_from_bits(next_random(&state));
		if (isfinite(x) && x != 0)
			check_shortest(x);
	}
}

Test(format_number, random_bit_patterns_1) { check_random_bit_patterns(1, 500000); }
Test(format_number, random_bit_patterns_2) { check_random_bit_patterns(2, 500000); }
Test(format_number, random_bit_patterns_3) { check_random_bit_patterns(3, 500000); }
Test(format_number, random_bit_patterns_4) { check_random_bit_patterns(4, 500000); }

Test(format_number, random_subnormals)
{
	uint64_t state = 5;
	for (int i = 0; i < 50000; i++) {
		double x = double_from_bits(next_random(&state) & 0x800FFFFFFFFFFFFFU);
		if (x != 0)
			check_shortest(x);
	}
}

/*
** The values swag prints most: averages and sums of decimal input, k / 100 and
** k * 0.001, and magnitudes near 1 with all 53 bits used.
*/
Test(format_number, random_nice_values)
{
	uint64_t state = 6;
	for (int i = 0; i < 60000; i++) {
		int64_t k = (int64_t)(next_random(&state) % 2000000000U) - 1000000000;
		double x;
		x = (double)k / 100;
		if (x != 0)
			check_shortest(x);
		x = (double)k * 1e-3;
		if (x != 0)
			check_shortest(x);
		x = (double)(k % 100000) / 7.0;
		if (x != 0)
			check_shortest(x);
		x = (double)(next_random(&state) >> 11) * 0x1p-52;
		if (x != 0)
			check_shortest(x);
	}
}

/*
** The doubles that the one-multiplication path of format_number could get wrong, each
** sort tried where that path is exact (|x| in [1.2e-10, 7.2e16), binary exponents q of
** -85..3) and beyond it, where it must hand doubtful cases to the full Schubfach.
*/

/* x = c * 2^q for a significand c of 53 bits. */
static double from_significand(uint64_t c, int q)
{
	double x = (double)c;
	return q >= 0 ? x * power_of_two(q) : x / power_of_two(-q);
}

/*
** Exact ties: m / 2^j with m odd and of 53 bits. At j = 2 it always lies halfway between
** the two nearest decimals of 17 digits (1125899906842624.25, between ...24.2 and
** ...24.3), where the even last digit decides, and at j = 3 often; with more fraction
** bits it lies near such a halfway point, and at j = 1 on a decimal of 17 digits.
*/
Test(format_number, halfway_between_two_decimals)
{
	uint64_t state = 11;
	for (int j = 1; j <= 12; j++)
		for (int i = 0; i < 4000; i++) {
			uint64_t m = (next_random(&state) >> 11) | ((uint64_t)1 << 52) | 1;
			double x = from_significand(m, -j);
			check_shortest(x);
			check_shortest(-x);
		}
}

/*
** The rounding interval [x - g/2, x + g/2] (g the gap between doubles) with an end
** exactly on a decimal of one digit fewer: 2c - 1 or 2c + 1 a multiple of 5^(k+1),
** where 10^k <= 2^q < 10^(k+1). Only an even c may print that end. At q = 2 and 3 the
** fast path decides these exactly; from q = 4 up, where 5^k divides the denominator, it
** must hand them to the full Schubfach.
*/
Test(format_number, interval_ends_on_a_shorter_decimal)
{
	const uint64_t two_53 = (uint64_t)1 << 53;
	uint64_t state = 12;
	for (int q = 2; q <= 80; q++) {
		/* k = floor(q log10(2)); powers of ten up to 10^22 are exact doubles. */
		int k = 0;
		double ten_to_k1 = 10; /* 10^(k+1) */
		uint64_t five = 5;     /* 5^(k+1) */
		while (ten_to_k1 <= power_of_two(q)) {
			ten_to_k1 *= 10;
			five *= 5;
			k++;
		}
		if (five >= two_53)
			break;
		for (int i = 0; i < 400; i++) {
			/* t, an odd multiple of 5^(k+1) in [2^53, 2^54), is 2c - 1 or 2c + 1. */
			uint64_t t = (two_53 + next_random(&state) % two_53) / five * five;
			if (t % 2 == 0)
				t = t + five < 2 * two_53 ? t + five : t - five;
			if (t < two_53)
				continue;
			if ((t + 1) / 2 < two_53)
				check_shortest(from_significand((t + 1) / 2, q));
			check_shortest(from_significand((t - 1) / 2, q));
		}
	}
}

/* Random significands in every binade from 2^-120 to 2^81, across both exact limits. */
Test(format_number, binades_around_the_exact_range)
{
	uint64_t state = 13;
	for (int q = -172; q <= 28; q++)
		for (int i = 0; i < 500; i++) {
			uint64_t c = (next_random(&state) >> 11) | ((uint64_t)1 << 52);
			check_shortest(from_significand(c, q));
			check_shortest(from_significand(c | 1, q));
			check_shortest(-from_significand(c & ~(uint64_t)1, q));
		}
}

/*
** Every place of the point in plain notation, 1 to 16 integer digits and none, with
** 16 and 17 significant digits and fewer, and the %e notation on either side.
*/
Test(format_number, every_place_of_the_point)
{
	uint64_t state = 14;
	char text[32];
	for (int e = -8; e <= 18; e++) {
		double scale;
		snprintf(text, sizeof text, "1e%d", e);
		scale = strtod(text, NULL);
		for (int i = 0; i < 2000; i++) {
			double unit = (double)(next_random(&state) >> 11) * 0x1p-53;
			double x = (1 + 9 * unit) * scale;
			check_shortest(x);
			check_shortest(-x);
			/* The same rounded to 3, 8 and 12 significant digits. */
			for (int digits = 3; digits <= 12; digits += digits < 8 ? 5 : 4) {
				snprintf(text, sizeof text, "%.*e", digits - 1, x);
				check_shortest(strtod(text, NULL));
			}
		}
	}
}

/* ---------------------------------------------------------------------------------- */
/* format_fixed                                                                       */
/* ---------------------------------------------------------------------------------- */

/* printf's "%.*f" with the man page's sign of zero, NUL-terminated in out. */
static void reference_fixed(double x, int precision, char *out, size_t size)
{
	int length;
	if (isnan(x)) {
		snprintf(out, size, "nan");
		return;
	}
	length = snprintf(out, size, "%.*f", precision, x);
	cr_assert(length > 0 && (size_t)length < size);
	if (out[0] == '-' && strspn(out + 1, "0.") == strlen(out + 1))
		memmove(out, out + 1, (size_t)length); /* "-0.00" is "0.00" */
}

/*
** format_number_memo gives format_number's text, from its memo when the number is the
** one it printed last: the results of min, max and pN, which repeat (see agg.h).
*/

/*
** Checks one call: the text and length format_number gives x.  The buffer is filled
** with '#' first, so that a repeat copied short cannot pass on the text an earlier
** call left in it.
*/
static void check_memo(struct number_memo *memo, double x)
{
	char got[NUMPRINT_SHORTEST_MAX], expected[NUMPRINT_SHORTEST_MAX];
	memset(got, '#', sizeof got);
	size_t len = format_number_memo(x, got, memo);
	size_t expected_len = format_number(x, expected);
	cr_assert(len == expected_len && memcmp(got, expected, len) == 0,
	    "format_number_memo(%a) gave \"%.*s\", format_number \"%.*s\"", x, (int)len, got,
	    (int)expected_len, expected);
}

Test(format_number_memo, repeats_and_changes_give_format_numbers_text)
{
	struct number_memo memo = number_memo_start(-1);
	/* The memo starts as 0's: 0 first, then -0 (other bits, the same text). */
	const double fixed[] = { 0.0, -0.0, 0.0, 1.5, 1.5, -1.5, NAN, NAN, -NAN, INFINITY,
		-INFINITY, INFINITY, 5e-324, -1.2345678901234567e-308, 0.1, 0.1, 1e16,
		9007199254740993.0, 0.30000000000000004 };
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		check_memo(&memo, fixed[i]);
	/* The longest texts, 24 bytes in both notations, each repeated after its miss. */
	const double longest[] = { -1.2345678901234567e-308, -0.000012345678901234567,
		-1.2345678901234567e-308 };
	for (size_t i = 0; i < sizeof longest / sizeof longest[0]; i++) {
		char text[NUMPRINT_SHORTEST_MAX];
		cr_assert_eq(format_number(longest[i], text), 24);
		check_memo(&memo, longest[i]);
		check_memo(&memo, longest[i]);
	}
	/* NaNs of other payloads and signs: bits apart, each "nan". */
	check_memo(&memo, double_from_bits(0x7FF8000000000001U));
	check_memo(&memo, double_from_bits(0xFFF0000000000002U));
	check_memo(&memo, double_from_bits(0x7FF8000000000001U));

	/* Runs of repeats among changes, as a percentile's results come, every length. */
	uint64_t state = 11, bits = 0;
	for (int i = 0; i < 200000; i++) {
		uint64_t r = next_random(&state);
		if (r % 4 == 0)
			bits = next_random(&state);
		else if (r % 4 == 1)
			bits ^= (uint64_t)1 << (r >> 58);	/* a neighbour, or the sign */
		check_memo(&memo, double_from_bits(bits));
	}
}

/* A repeat is a copy of the memo's text: no formatting, whatever the text says. */
Test(format_number_memo, a_repeat_copies_the_memo)
{
	struct number_memo memo = number_memo_start(-1);
	char got[NUMPRINT_SHORTEST_MAX];

	cr_assert_eq(format_number_memo(2.75, got, &memo), 4);
	cr_assert(memcmp(got, "2.75", 4) == 0);
	memcpy(memo.text, "mark", 4);
	cr_assert_eq(format_number_memo(2.75, got, &memo), 4);
	cr_assert(memcmp(got, "mark", 4) == 0, "the repeat was formatted again");
	cr_assert_eq(format_number_memo(-2.75, got, &memo), 5);
	cr_assert(memcmp(got, "-2.75", 5) == 0, "a new number took the memo's text");
}

/* Counts, as distinct and count give them: format_uint's text, from the memo on a repeat. */
Test(format_number_memo, counts_repeat_and_change_as_format_uint)
{
	struct number_memo memo = number_memo_start(-1);
	char got[NUMPRINT_SHORTEST_MAX], expected[NUMPRINT_SHORTEST_MAX];
	uint64_t state = 12, v = 0;

	for (int i = 0; i < 100000; i++) {
		uint64_t r = next_random(&state);
		if (r % 3 == 0)
			v = r % 4 == 0 ? INT64_MAX - r % 3 : next_random(&state) >> (1 + (r >> 58) % 63);
		memset(got, '#', sizeof got);
		size_t len = format_uint_memo(v, got, &memo);
		size_t expected_len = format_uint(v, expected);
		cr_assert(len == expected_len && memcmp(got, expected, len) == 0,
		    "format_uint_memo(%" PRIu64 ") gave \"%.*s\"", v, (int)len, got);
	}
	memcpy(memo.text, "mark", 4);
	memo.len = 4;
	cr_assert_eq(format_uint_memo(v, got, &memo), 4);
	cr_assert(memcmp(got, "mark", 4) == 0, "the repeat was formatted again");
}

/*
** A new memo holds a zero, never a count: at -p 2, 0.0 and -0.0 are "0.00", the count
** 0 is "0", and a count of 2^63 - 1 is its own.
*/
Test(format_number_memo, a_new_memo_holds_the_number_0_not_the_count)
{
	for (int precision = -1; precision <= NUMBER_MEMO_PRECISION_MAX; precision++) {
		struct number_memo numbers = number_memo_start(precision);
		struct number_memo counts = number_memo_start(precision);
		char got[NUMPRINT_FIXED_MAX], expected[NUMPRINT_FIXED_MAX];
		size_t len, expected_len;

		/* -0 first: the new memo's own number, its text from the memo. */
		expected_len = precision < 0 ? format_number(0.0, expected) :
		    format_fixed(0.0, precision, expected);
		memset(got, '#', sizeof got);
		len = precision < 0 ? format_number_memo(-0.0, got, &numbers) :
		    format_fixed_memo(-0.0, precision, got, &numbers);
		cr_assert(len == expected_len && memcmp(got, expected, len) == 0,
		    "-0 at precision %d gave \"%.*s\"", precision, (int)len, got);
		memset(got, '#', sizeof got);
		len = precision < 0 ? format_number_memo(0.0, got, &numbers) :
		    format_fixed_memo(0.0, precision, got, &numbers);
		cr_assert(len == expected_len && memcmp(got, expected, len) == 0,
		    "0 at precision %d gave \"%.*s\"", precision, (int)len, got);
		memset(got, '#', sizeof got);
		cr_assert_eq(format_uint_memo(0, got, &counts), 1);
		cr_assert(got[0] == '0', "the count 0 at precision %d", precision);
		counts = number_memo_start(precision);
		memset(got, '#', sizeof got);
		cr_assert_eq(format_uint_memo(INT64_MAX, got, &counts), 19);
		cr_assert(memcmp(got, "9223372036854775807", 19) == 0,
		    "the count 2^63 - 1 at precision %d", precision);
	}
}

/*
** format_fixed_memo gives format_fixed's text at every precision a memo serves, texts
** of 24 bytes kept and longer ones not: after one, a repeat of either is still right.
*/
static void check_fixed_memo(struct number_memo *memo, double x, int precision)
{
	char got[NUMPRINT_FIXED_MAX], expected[NUMPRINT_FIXED_MAX];
	memset(got, '#', sizeof got);
	size_t len = format_fixed_memo(x, precision, got, memo);
	size_t expected_len = format_fixed(x, precision, expected);
	cr_assert(len == expected_len && memcmp(got, expected, len) == 0,
	    "format_fixed_memo(%a, %d) gave \"%.*s\", format_fixed \"%.*s\"", x, precision,
	    (int)len, got, (int)expected_len, expected);
}

Test(format_fixed_memo, repeats_and_changes_give_format_fixeds_text)
{
	uint64_t state = 13;

	for (int precision = 0; precision <= NUMBER_MEMO_PRECISION_MAX; precision++) {
		struct number_memo memo = number_memo_start(precision);
		/*
		 * 24 bytes exactly: "-", the integer digits and, with a precision, the
		 * point and its digits; "0." and 22 digits at 22.
		 */
		int digits = precision == 0 ? 23 : 22 - precision;	/* 0 at 22 */
		char integer[32] = "-1";
		if (digits > 0) {
			memset(integer + 2, '0', (size_t)digits - 1);
			integer[digits + 1] = '\0';
		}
		double longest = precision == NUMBER_MEMO_PRECISION_MAX ? 0.5 :
		    strtod(integer, NULL);
		const double fixed[] = { 0.0, -0.0, 0.0, 1.5, 1.5, -1.5, NAN, NAN, -NAN,
			INFINITY, -INFINITY, 0.125, 0.125, -0.001, 1e30, 1e30, 0.125, 1e30,
			longest, longest, 1e30, longest, 2.5, 2.5 };
		char text[NUMPRINT_FIXED_MAX];

		cr_assert_eq(format_fixed(longest, precision, text), 24);
		cr_assert_gt(format_fixed(1e30, precision, text), 24);
		for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
			check_fixed_memo(&memo, fixed[i], precision);
		/* Runs of repeats among changes, two decimals or any magnitude. */
		for (int i = 0; i < 20000; i++) {
			static double x;
			uint64_t r = next_random(&state);
			if (r % 4 == 0)
				x = (double)((int64_t)(next_random(&state) % 2000000) - 1000000) / 100;
			else if (r % 4 == 1)
				x = double_from_bits(next_random(&state));
			check_fixed_memo(&memo, x, precision);
		}
	}
}

/* A repeat is a copy of the memo's text, as with format_number_memo. */
Test(format_fixed_memo, a_repeat_copies_the_memo)
{
	struct number_memo memo = number_memo_start(2);
	char got[NUMPRINT_FIXED_MAX];

	cr_assert_eq(format_fixed_memo(2.755, 2, got, &memo), 4);
	cr_assert(memcmp(got, "2.75", 4) == 0);	/* 2.755 is 2.75499999... */
	memcpy(memo.text, "mark", 4);
	cr_assert_eq(format_fixed_memo(2.755, 2, got, &memo), 4);
	cr_assert(memcmp(got, "mark", 4) == 0, "the repeat was formatted again");
	cr_assert_eq(format_fixed_memo(2.75, 2, got, &memo), 4);
	cr_assert(memcmp(got, "2.75", 4) == 0, "a new number took the memo's text");
}

static void check_fixed(double x, int precision)
{
	char expected[NUMPRINT_FIXED_MAX + 8];
	reference_fixed(x, precision, expected, sizeof expected);
	cr_assert_str_eq(fixed_text(x, precision), expected, "format_fixed(%a, %d)", x, precision);
}

struct fixed_case {
	double value;
	int precision;
	const char *text;
};

Test(format_fixed, examples_ties_and_signs)
{
	const struct fixed_case cases[] = {
		{0.125, 2, "0.12"}, /* an exact tie: to even */
		{0.375, 2, "0.38"},
		{2.5, 0, "2"},
		{3.5, 0, "4"},
		{-2.5, 0, "-2"},
		{0.5, 0, "0"},
		{1.5, 0, "2"},
		{0.0, 0, "0"},
		{-0.0, 0, "0"},
		{-0.0, 3, "0.000"},
		{-0.0001, 2, "0.00"}, /* printf writes "-0.00" */
		{-0.4, 0, "0"},
		{-0.5, 0, "0"},
		{-0.6, 0, "-1"},
		{0.005, 2, "0.01"}, /* 0.005 is 0.005000000000000000104... */
		{0.015, 2, "0.01"}, /* 0.015 is 0.01499999999999999944... */
		{1.005, 2, "1.00"},
		{2.675, 2, "2.67"},
		{1234.56789, 2, "1234.57"},
		{-1234.56789, 3, "-1234.568"},
		{100.0, 2, "100.00"},
		{1e22, 0, "10000000000000000000000"},
		{1e22, 2, "10000000000000000000000.00"},
		{5e-324, 30, "0.000000000000000000000000000000"},
		{-5e-324, 30, "0.000000000000000000000000000000"},
		{0.1, 30, "0.100000000000000005551115123126"},
		{(double)NAN, 2, "nan"},
		{-(double)NAN, 2, "nan"},
		{(double)INFINITY, 2, "inf"},
		{-(double)INFINITY, 0, "-inf"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		cr_expect_str_eq(fixed_text(cases[i].value, cases[i].precision), cases[i].text,
		                 "format_fixed(%a, %d)", cases[i].value, cases[i].precision);
	/* The longest text of all. */
	check_fixed(-DBL_MAX, NUMPRINT_PRECISION_MAX);
	check_fixed(1e300, 30);
	check_fixed(1e22, 30);
}

/* Exact ties at every precision: odd / 2^(p+1) has its digit p+1 exactly a 5. */
Test(format_fixed, exact_ties_at_every_precision)
{
	uint64_t state = 7;
	for (int precision = 0; precision <= NUMPRINT_PRECISION_MAX; precision++)
		for (int i = 0; i < 2000; i++) {
			uint64_t odd = (next_random(&state) >> (11 + next_random(&state) % 52)) | 1;
			double x = (double)odd * power_of_two(-(precision + 1));
			check_fixed(x, precision);
			check_fixed(-x, precision);
		}
}

/* The edges of the exact path: magnitudes around 2^122, integers, and 2^-p gaps. */
Test(format_fixed, around_the_exact_paths_limits)
{
	for (int e = 0; e <= 130; e++)
		for (int precision = 0; precision <= NUMPRINT_PRECISION_MAX; precision += 3) {
			double x = power_of_two(e);
			check_fixed(x, precision);
			check_fixed(next_down(x), precision);
			check_fixed(-next_up(x), precision);
		}
	for (int e = -1074; e < 0; e++)
		for (int precision = 0; precision <= NUMPRINT_PRECISION_MAX; precision += 7) {
			double x = power_of_two(e);
			check_fixed(x, precision);
			check_fixed(next_up(x), precision);
			if (e > -1074)
				check_fixed(-next_down(x), precision);
		}
}

/* Random values of every magnitude the exact path sees, and some beyond it. */
static void check_random_fixed(uint64_t seed, int count)
{
	uint64_t state = seed;
	double powers_of_ten[61];
	for (int e = -30; e <= 30; e++) {
		char text[16];
		snprintf(text, sizeof text, "1e%d", e);
		powers_of_ten[e + 30] = strtod(text, NULL);
	}
	for (int i = 0; i < count; i++) {
		uint64_t r = next_random(&state);
		int precision = (int)(r % (NUMPRINT_PRECISION_MAX + 1));
		double x;
		switch ((r >> 8) % 16) {
		case 0: /* any bit pattern: huge, tiny, subnormal */
			x = double_from_bits(next_random(&state));
			if (!isfinite(x))
				continue;
			break;
		case 1:
		case 2: /* two decimals, as swag reads prices and latencies */
			x = (double)((int64_t)(next_random(&state) % 20000000) - 10000000) / 100;
			break;
		default: /* a 53-bit significand times 10^-30 .. 10^30 */
			x = (double)(next_random(&state) >> 11) * 0x1p-53 *
			    powers_of_ten[(r >> 16) % 61];
			if (r & (1U << 30))
				x = -x;
			break;
		}
		check_fixed(x, precision);
	}
}

/*
 * The short way (precisions 0 to 16, a fraction to round, shifted by 1 to 63 bits, the
 * digits within 64 bits): every shift from 1 to 66, significands from 2^52 up and
 * small ones, exact ties and their neighbours, digits past 64 bits (the exact way
 * again), results below 1 and those that round up to 1 or to one more integer digit.
 */
Test(format_fixed, the_short_ways_edges)
{
	uint64_t state = 17;
	for (int precision = 0; precision <= 17; precision++)
		for (int shift = 1; shift <= 66; shift++) {
			int q = -(shift + precision);
			for (int i = 0; i < 40; i++) {
				uint64_t r = next_random(&state);
				uint64_t c = i < 10 ? (r >> 11) | (UINT64_C(1) << 52) :
				    i < 20 ? (r >> 11) >> (r % 53) :
				    /* an exact tie: c's low shift bits are 10...0 */
				    i < 30 && shift <= 53 ?
				    ((r >> 11) >> shift << shift) | (UINT64_C(1) << (shift - 1)) :
				    i < 30 ? (r >> 11) | 1 :
				    (UINT64_C(1) << 53) - 1 - r % 4;
				double x = (double)c * power_of_two(q);
				check_fixed(x, precision);
				check_fixed(-x, precision);
				check_fixed(next_up(x), precision);
				check_fixed(next_down(x), precision);
			}
		}
	/* Below 1, up to 1, and up to another digit. */
	const double near_one[] = { 0.995, 0.9995, 0.99995, 0.999995, 0.5, 0.05, 0.005,
		0.0005, 0.00005, 9.995, 99.9995, 999.5, 0.049, 0.0049, 0.9999999999999999,
		0.9999999999999998, 1e-16, 5e-17, 1844.6744073709551, 1844.674407370955,
		184467.44073709552, 18446744.073709552 };
	for (size_t i = 0; i < sizeof near_one / sizeof near_one[0]; i++)
		for (int precision = 0; precision <= 17; precision++) {
			check_fixed(near_one[i], precision);
			check_fixed(-near_one[i], precision);
		}
}

/* A precision outside 0..30 is taken as the nearest end, on both ways. */
Test(format_fixed, precisions_outside_the_range_are_clamped)
{
	const double values[] = { 0.125, -2.5, 224.03406099999998, 1e-20, 1e30, 0.0 };
	for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
		char low[NUMPRINT_FIXED_MAX], high[NUMPRINT_FIXED_MAX];
		size_t low_len = format_fixed(values[i], -1, low);
		size_t high_len = format_fixed(values[i], NUMPRINT_PRECISION_MAX + 1, high);
		cr_assert_eq(low_len, strlen(fixed_text(values[i], 0)));
		cr_assert(memcmp(low, fixed_text(values[i], 0), low_len) == 0);
		cr_assert_eq(high_len, strlen(fixed_text(values[i], NUMPRINT_PRECISION_MAX)));
		cr_assert(memcmp(high, fixed_text(values[i], NUMPRINT_PRECISION_MAX), high_len) == 0);
		cr_assert_eq(format_fixed(values[i], INT32_MIN, low), low_len);
	}
}

Test(format_fixed, random_values_1) { check_random_fixed(8, 500000); }
Test(format_fixed, random_values_2) { check_random_fixed(9, 500000); }

/* ---------------------------------------------------------------------------------- */
/* format_uint                                                                        */
/* ---------------------------------------------------------------------------------- */

static const char *uint_text(uint64_t v)
{
	static char text[24];
	size_t length = format_uint(v, text);
	cr_assert(length >= 1 && length <= 20);
	text[length] = '\0';
	return text;
}

Test(format_uint, examples)
{
	cr_expect_str_eq(uint_text(0), "0");
	cr_expect_str_eq(uint_text(9), "9");
	cr_expect_str_eq(uint_text(10), "10");
	cr_expect_str_eq(uint_text(99), "99");
	cr_expect_str_eq(uint_text(100), "100");
	cr_expect_str_eq(uint_text(UINT64_MAX), "18446744073709551615");
}

/* Every value below 10^5: the four-digit and eight-digit ways and where they meet. */
Test(format_uint, every_value_below_100000)
{
	char expected[24];

	for (uint64_t v = 0; v < 100000; v++) {
		snprintf(expected, sizeof expected, "%" PRIu64, v);
		cr_assert_str_eq(uint_text(v), expected);
	}
}

Test(format_uint, powers_of_ten_their_neighbours_and_random_values)
{
	char expected[24];
	uint64_t power = 1, state = 10;
	for (int e = 0; e <= 19; e++, power *= 10)
		for (uint64_t v = power - 1; v != power + 2; v++) {
			snprintf(expected, sizeof expected, "%" PRIu64, v);
			cr_assert_str_eq(uint_text(v), expected);
		}
	for (int i = 0; i < 200000; i++) {
		uint64_t v = next_random(&state) >> (next_random(&state) % 64);
		snprintf(expected, sizeof expected, "%" PRIu64, v);
		cr_assert_str_eq(uint_text(v), expected);
	}
}

/* ---------------------------------------------------------------------------------- */
/* format_rfc3339 and format_epoch: a bucket's start (swag(1), BUCKETS)               */
/* ---------------------------------------------------------------------------------- */

static const char *rfc3339_text(int64_t sec, uint32_t nsec, int digits)
{
	static char text[NUMPRINT_TIME_MAX + 1];
	size_t length = format_rfc3339(sec, nsec, digits, text);
	cr_assert(length <= NUMPRINT_TIME_MAX);
	text[length] = '\0';
	return text;
}

static const char *epoch_text(int64_t sec, uint32_t nsec, uint32_t unit, int digits)
{
	static char text[NUMPRINT_TIME_MAX + 1];
	size_t length = format_epoch(sec, nsec, unit, digits, text);
	cr_assert(length <= NUMPRINT_TIME_MAX);
	text[length] = '\0';
	return text;
}

Test(format_rfc3339, examples)
{
	cr_expect_str_eq(rfc3339_text(0, 0, 0), "1970-01-01T00:00:00Z");
	cr_expect_str_eq(rfc3339_text(1796040060, 0, 0), "2026-11-30T12:01:00Z");
	cr_expect_str_eq(rfc3339_text(1709251199, 0, 0), "2024-02-29T23:59:59Z");
	cr_expect_str_eq(rfc3339_text(-1, 0, 0), "1969-12-31T23:59:59Z");
	cr_expect_str_eq(rfc3339_text(-1, 500000000, 3), "1969-12-31T23:59:59.500Z");
	cr_expect_str_eq(rfc3339_text(1796040060, 250000000, 3), "2026-11-30T12:01:00.250Z");
	cr_expect_str_eq(rfc3339_text(0, 123456789, 9), "1970-01-01T00:00:00.123456789Z");
	cr_expect_str_eq(rfc3339_text(0, 123456789, 6), "1970-01-01T00:00:00.123456Z");
	/* The ends of int64_t nanoseconds, and a bucket that starts before the first. */
	cr_expect_str_eq(rfc3339_text(-9223372037, 0, 0), "1677-09-21T00:12:43Z");
	cr_expect_str_eq(rfc3339_text(9223372036, 0, 0), "2262-04-11T23:47:16Z");
	cr_expect_str_eq(rfc3339_text(-11670912000, 0, 0), "1600-03-01T00:00:00Z");
}

/* Against gmtime_r, every second from 1600 to 2400 at random, and the fraction's digits. */
Test(format_rfc3339, random_instants_against_gmtime)
{
	uint64_t state = 3339;
	for (int i = 0; i < 300000; i++) {
		int64_t sec = (int64_t)(next_random(&state) % 25246828800u) - 11670912000;
		uint32_t nsec = (uint32_t)(next_random(&state) % 1000000000u);
		int digits = (int)(next_random(&state) % 10);
		time_t t = (time_t)sec;
		struct tm tm;
		char expected[64], fraction[16] = "";
		uint32_t v = nsec;
		cr_assert(gmtime_r(&t, &tm) != NULL);
		for (int d = digits; d < 9; d++)
			v /= 10;
		if (digits > 0)
			snprintf(fraction, sizeof fraction, ".%0*u", digits, v);
		snprintf(expected, sizeof expected, "%04d-%02d-%02dT%02d:%02d:%02d%sZ",
		    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		    fraction);
		cr_assert_str_eq(rfc3339_text(sec, nsec, digits), expected, "sec %" PRId64, sec);
	}
}

Test(format_epoch, examples)
{
	cr_expect_str_eq(epoch_text(1764504060, 0, 1000000000, 0), "1764504060");
	cr_expect_str_eq(epoch_text(1764504060, 250000000, 1000000000, 3), "1764504060.250");
	cr_expect_str_eq(epoch_text(1764504060, 0, 1000000, 0), "1764504060000");
	cr_expect_str_eq(epoch_text(1764504060, 250000000, 1000000, 0), "1764504060250");
	cr_expect_str_eq(epoch_text(1764504060, 250000, 1000000, 3), "1764504060000.250");
	cr_expect_str_eq(epoch_text(0, 0, 1, 0), "0");
	cr_expect_str_eq(epoch_text(-1, 500000000, 1000000000, 3), "-0.500");
	cr_expect_str_eq(epoch_text(-1, 0, 1000000000, 0), "-1");
	cr_expect_str_eq(epoch_text(-120, 0, 1000000000, 0), "-120");
	cr_expect_str_eq(epoch_text(-2, 750000000, 1000, 0), "-1250000");
	cr_expect_str_eq(epoch_text(-9223372037, 0, 1, 0), "-9223372037000000000");
}

/* Against 128-bit arithmetic on the nanoseconds, in every unit. */
Test(format_epoch, random_instants_in_every_unit)
{
	static const uint32_t units[] = { 1, 1000, 1000000, 1000000000 };
	static const int unit_digits[] = { 0, 3, 6, 9 };
	uint64_t state = 1970;
	for (int i = 0; i < 300000; i++) {
		int64_t sec = (int64_t)(next_random(&state) % 20000000000u) - 10000000000;
		uint32_t nsec = (uint32_t)(next_random(&state) % 1000000000u);
		int u = (int)(next_random(&state) % 4), digits = unit_digits[u];
		__int128 total = (__int128)sec * 1000000000 + nsec;
		__int128 magnitude = total < 0 ? -total : total;
		char expected[64], fraction[16];
		/* The fraction: the nanoseconds below the unit, nine digits, the last few kept. */
		snprintf(fraction, sizeof fraction, "%09" PRIu64, (uint64_t)(magnitude % units[u]));
		snprintf(expected, sizeof expected, "%s%" PRIu64 "%s%s", total < 0 ? "-" : "",
		    (uint64_t)(magnitude / units[u]), digits > 0 ? "." : "",
		    fraction + 9 - digits);
		cr_assert_str_eq(epoch_text(sec, nsec, units[u], digits), expected,
		    "sec %" PRId64 " nsec %" PRIu32 " unit %" PRIu32, sec, nsec, units[u]);
	}
}
