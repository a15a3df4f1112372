/*
** Unit tests of parse_number (src/numparse.c).
**
** They state the grammar as tables of accepted and refused fields, then hold every result
** to glibc's strtod in the C locale, bit for bit, over a few million generated fields:
** realistic log values, doubles printed by printf, mantissas at the edges of each of the
** parser's routes, exact halfway points between doubles and their nearest neighbours in
** text, and fields of hundreds of digits. Every generator uses a fixed seed, so a failure
** names its field and reproduces.
*/
#include <criterion/criterion.h>

#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numparse.h"
#include "numparse_short.h"

/* ---------------------------------------------------------------------------------------
** Helpers.
*/

/* The C locale that the reference strtod_l reads in; created once per test process. */
static locale_t reference_locale(void)
{
	static locale_t locale;
	if (!locale) {
		locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
		cr_assert_not_null(locale, "newlocale(\"C\") failed");
	}
	return locale;
}

/*
** Returns true when a and b are the same double: the same bits, except that any two NaNs
** of the same sign are equal.
*/
static bool same_double(double a, double b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b) && !signbit(a) == !signbit(b);
	return memcmp(&a, &b, sizeof a) == 0;
}

/*
** Copies text[0..len) to the very end of a heap block of exactly len bytes and parses it
** from there, so that AddressSanitizer catches a read past the field, and a parser that
** wanted a NUL terminator would find none. Returns what parse_number returns, having
** checked that parse_number_inline (numparse_short.h, the values stage's) gives the same
** verdict and the same double, and leaves *out alone on a refusal as well.
*/
static bool parse_at_end_of_block(const char *text, size_t len, double *out)
{
	char *block = malloc(len ? len : 1);
	cr_assert_not_null(block);
	memcpy(block, text, len);
	double before = *out, inline_value = *out;
	bool accepted = parse_number(block, len, out);
	bool inline_accepted = parse_number_inline(block, len, &inline_value);
	if (inline_accepted != accepted)
		cr_assert_fail("\"%.*s\": parse_number_inline %s it, parse_number %s", (int)len, text,
		               inline_accepted ? "accepts" : "refuses", accepted ? "accepts" : "refuses");
	if (!same_double(inline_value, accepted ? *out : before))
		cr_assert_fail("\"%.*s\": parse_number_inline gives %a, parse_number %a", (int)len, text,
		               inline_value, accepted ? *out : before);
	free(block);
	return accepted;
}

/*
** Asserts that the NUL-terminated text is accepted and gives the double that strtod_l
** gives in the C locale, which must consume all of it.
*/
static void expect_same_as_strtod(const char *text)
{
	char *end;
	double expected = strtod_l(text, &end, reference_locale());
	if (*end != '\0')
		cr_assert_fail("test generator bug: strtod stops early in \"%s\"", text);
	double actual = 0;
	if (!parse_number(text, strlen(text), &actual))
		cr_assert_fail("\"%s\" refused, strtod reads %.17g", text, expected);
	if (!same_double(actual, expected))
		cr_assert_fail("\"%s\": parse_number gives %a (%.17g), strtod gives %a (%.17g)", text,
		               actual, actual, expected, expected);
}

/* xorshift64*: small, fast and fully determined by its seed. */
typedef struct {
	uint64_t state;
} Random;

static uint64_t random_next(Random *random)
{
	random->state ^= random->state >> 12;
	random->state ^= random->state << 25;
	random->state ^= random->state >> 27;
	return random->state * 0x2545F4914F6CDD1DU;
}

/* Returns a number in [0, n), n > 0. The modulo bias does not matter here. */
static int random_below(Random *random, int n)
{
	return (int)(random_next(random) >> 33) % n;
}

/* Returns a number in [low, high]. */
static int random_between(Random *random, int low, int high)
{
	return low + random_below(random, high - low + 1);
}

static char random_digit(Random *random)
{
	return (char)('0' + random_below(random, 10));
}

/* Appends "e", "E", "e+", "e-"... and the exponent, sometimes zero-padded, at *p. */
static char *append_exponent(Random *random, char *p, int exponent)
{
	*p++ = random_below(random, 2) ? 'e' : 'E';
	if (exponent < 0)
		*p++ = '-';
	else if (random_below(random, 4) == 0)
		*p++ = '+';
	int zeros = random_below(random, 8) == 0 ? random_between(random, 1, 3) : 0;
	while (zeros-- > 0)
		*p++ = '0';
	return p + sprintf(p, "%d", abs(exponent));
}

/* Returns a finite double of uniformly random bits: every exponent equally likely. */
static double random_finite_double(Random *random)
{
	for (;;) {
		uint64_t bits = random_next(random);
		double value;
		memcpy(&value, &bits, sizeof value);
		if (isfinite(value))
			return value;
	}
}

/*
** Returns a positive double of random mantissa bits and the given biased exponent field
** (0 gives a subnormal). Built from bits because the test links without libm.
*/
static double random_double_with_exponent_field(Random *random, int biased_exponent)
{
	uint64_t bits = (uint64_t)biased_exponent << 52 | (random_next(random) & 0x000FFFFFFFFFFFFFU);
	double value;
	memcpy(&value, &bits, sizeof value);
	return value;
}

/* Returns the next double above the positive finite value (inf above DBL_MAX). */
static double next_double_up(double value)
{
	uint64_t bits;
	memcpy(&bits, &value, sizeof bits);
	bits++;
	memcpy(&value, &bits, sizeof value);
	return value;
}

/* ---------------------------------------------------------------------------------------
** The grammar.
*/

typedef struct {
	const char *text;
	double value;
} Accepted;

Test(grammar, accepts_numbers_and_gives_their_value)
{
	static const Accepted cases[] = {
		{"0", 0.0},
		{"1", 1.0},
		{"1.", 1.0},
		{".5", 0.5},
		{"-2.5", -2.5},
		{"+2.5", 2.5},
		{"123", 123.0},
		{"0.25", 0.25},
		{"1234.5678", 1234.5678},
		{"-3e-5", -3e-5},
		{"1e-3", 1e-3},
		{"1E+10", 1e10},
		{"1.e2", 100.0},
		{".5e1", 5.0},
		{"0000.00001", 1e-5},
		{"007", 7.0},
		{"1.5000000", 1.5},
		{"1e007", 1e7},
		{" 42", 42.0},
		{"42 ", 42.0},
		{"\t 42 \t", 42.0},
		{" -1.5e3\t", -1500.0},
		{"1e400", INFINITY},
		{"-1e400", -INFINITY},
		{"1e-400", 0.0},
		{"1e-99999999999999", 0.0},
		{"1e99999999999999999999999999", INFINITY},
		{"0e99999999999999999999999999", 0.0},
		{"9007199254740993", 9007199254740992.0},
		{"1.7976931348623157e308", DBL_MAX},
		{"4.9406564584124654e-324", 4.9406564584124654e-324},
		{"inf", INFINITY},
		{"-inf", -INFINITY},
		{"+Inf", INFINITY},
		{"INFINITY", INFINITY},
		{"-Infinity", -INFINITY},
		{" inf ", INFINITY},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		double value = -12345.0;
		cr_expect(parse_at_end_of_block(cases[i].text, strlen(cases[i].text), &value),
		          "\"%s\" refused", cases[i].text);
		cr_expect(same_double(value, cases[i].value), "\"%s\" gives %.17g, not %.17g",
		          cases[i].text, value, cases[i].value);
	}
}

Test(grammar, keeps_the_sign_of_zero_and_of_nan)
{
	double value;
	cr_assert(parse_number("-0", 2, &value));
	cr_expect(value == 0 && signbit(value), "-0 must be negative zero");
	cr_assert(parse_number("-0.000e-5", 9, &value));
	cr_expect(value == 0 && signbit(value));
	cr_assert(parse_number("-1e-400", 7, &value));
	cr_expect(value == 0 && signbit(value), "-1e-400 underflows to negative zero");
	cr_assert(parse_number("0", 1, &value));
	cr_expect(value == 0 && !signbit(value));

	static const char *const nans[] = {"nan", "NaN", "NAN", "+nan", "-nan", "-NaN", " nan\t"};
	for (size_t i = 0; i < sizeof nans / sizeof nans[0]; i++) {
		cr_assert(parse_number(nans[i], strlen(nans[i]), &value), "\"%s\" refused", nans[i]);
		cr_expect(isnan(value), "\"%s\" is not NaN", nans[i]);
		cr_expect(!signbit(value) == !strchr(nans[i], '-'), "\"%s\": wrong sign", nans[i]);
	}
	/* The very bits strtod gives, not just some NaN. */
	double expected = strtod_l("-nan", NULL, reference_locale());
	cr_assert(parse_number("-nan", 4, &value));
	cr_expect(memcmp(&value, &expected, sizeof value) == 0);
	expected = strtod_l("nan", NULL, reference_locale());
	cr_assert(parse_number("nan", 3, &value));
	cr_expect(memcmp(&value, &expected, sizeof value) == 0);
}

typedef struct {
	const char *text;
	size_t len; /* 0: strlen(text); the cases with a NUL byte give it */
} Refused;

Test(grammar, refuses_everything_else)
{
	static const Refused cases[] = {
		{"", 0},
		{" ", 0},
		{" \t ", 0},
		{".", 0},
		{"-", 0},
		{"+", 0},
		{"+.", 0},
		{"-.", 0},
		{".e1", 0},
		{"e5", 0},
		{"E5", 0},
		{"1e", 0},
		{"1e+", 0},
		{"1e-", 0},
		{"1E ", 0},
		{"1 2", 0},
		{"1\t2", 0},
		{"- 1", 0},
		{"1 e5", 0},
		{"1e 5", 0},
		{"--1", 0},
		{"+-1", 0},
		{"-+1", 0},
		{"1e5.5", 0},
		{"1e--5", 0},
		{"1e5e5", 0},
		{"1..2", 0},
		{"1.2.3", 0},
		/* Two points or more, in fields of every route's length: IPv4 addresses. */
		{"1.2.3.4", 0},
		{"10.1.2.3", 0},
		{"-1.2.3.4", 0},
		{"10.2.235.47", 0},
		{"1234567.8.9", 0},
		{"1.234567890123.4", 0},
		{"192.168.100.200", 0},
		{"12345678901234.5.", 0},
		{"1.2345678901234567890.1", 0},
		{"1.2e5.", 0},
		{"..5", 0},
		{"0x10", 0},
		{"0X1p3", 0},
		{"1,5", 0},
		{"1.5x", 0},
		{"x1", 0},
		{"1d", 0},
		{"1f", 0},
		{"infinit", 0},
		{"infinityy", 0},
		{"in", 0},
		{"infx", 0},
		{"nanx", 0},
		{"na", 0},
		{"nan(123)", 0},
		{"nan()", 0},
		{"inf inity", 0},
		{"i nf", 0},
		{"-+inf", 0},
		{"--nan", 0},
		{"1inf", 0},
		{"\n1", 0},
		{"1\n", 0},
		{"1\r", 0},
		{"\v1", 0},
		{"\xc2\xa0" "1", 0},   /* U+00A0 NO-BREAK SPACE is not a blank */
		{"\xd9\xa1", 0},       /* U+0661 ARABIC-INDIC DIGIT ONE is not a digit */
		{"\0", 1},
		{"1\0", 2},
		{"\0" "1", 2},
		{"1\0" "2", 3},
		{" 1 \0", 4},
		{"nan\0", 4},
		{"1e\0" "5", 4},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t len = cases[i].len ? cases[i].len : strlen(cases[i].text);
		double value = 12345.0;
		cr_expect(!parse_at_end_of_block(cases[i].text, len, &value), "case %zu (\"%s\") accepted",
		          i, cases[i].text);
		cr_expect(value == 12345.0, "case %zu: *out written on refusal", i);
	}
}

Test(grammar, reads_only_the_given_length)
{
	/* The field is a prefix of the memory; what follows it must not be read. */
	double value;
	cr_assert(parse_number("1e50", 3, &value));
	cr_expect(value == 1e5);
	cr_assert(parse_number("123456", 3, &value));
	cr_expect(value == 123.0);
	cr_assert(parse_number("0.5x", 3, &value));
	cr_expect(value == 0.5);
	cr_assert(parse_number("infinity", 3, &value));
	cr_expect(value == INFINITY);
	cr_expect(!parse_number("1e-5", 3, &value));
	cr_expect(!parse_number("123", 0, &value));
}

/*
** The grammar against strtod over every short string of a small alphabet: outside hex,
** "nan(...)" and blanks other than space and TAB (left out of the alphabet), parse_number
** accepts a field exactly when strtod reads all of it, and reads the same value.
*/
Test(grammar, agrees_with_strtod_on_random_short_strings)
{
	static const char alphabet[] = "0123456789..eE+-+-nNaAiIfFtTyY";
	Random random = {0x6A09E667F3BCC908U};
	char text[16];
	for (int round = 0; round < 300000; round++) {
		int len = random_between(&random, 1, 9);
		for (int i = 0; i < len; i++)
			text[i] = alphabet[random_below(&random, (int)sizeof alphabet - 1)];
		text[len] = '\0';
		char *end;
		double expected = strtod_l(text, &end, reference_locale());
		bool strtod_reads_all = end != text && *end == '\0';
		double actual;
		bool accepted = parse_number(text, (size_t)len, &actual);
		if (accepted != strtod_reads_all)
			cr_assert_fail("\"%s\": parse_number %s it, strtod %s", text,
			               accepted ? "accepts" : "refuses",
			               strtod_reads_all ? "reads all of it" : "does not");
		if (accepted && !same_double(actual, expected))
			cr_assert_fail("\"%s\": %a, strtod %a", text, actual, expected);
	}
}

/* ---------------------------------------------------------------------------------------
** Equality with strtod, bit for bit.
*/

Test(strtod_equality, named_hard_cases)
{
	static const char *const cases[] = {
		"9007199254740993",             /* 2^53 + 1: halfway, rounds to even (down) */
		"9007199254740995",             /* halfway, rounds to even (up) */
		"9007199254740993.0000000000000000000000001",
		"9007199254740992.9999999999999999999999999",
		"2.2250738585072011e-308",      /* the PHP/Java hang: just below DBL_MIN */
		"2.2250738585072012e-308",
		"2.2250738585072014e-308",      /* DBL_MIN */
		"2.225073858507201136057409796709131975934819546351645648e-308",
		"4.9406564584124654e-324",      /* smallest subnormal */
		"2.4703282292062327e-324",      /* half of it: ties to even, zero */
		"2.4703282292062328e-324",      /* just above half: rounds up */
		"2.47032822920623272088284396434110686182529901307162382212792841250337753635104375932649918180817996189898282347722858865463328355177969898199387398005390939063150356595155702263922908583924491051844359318028499365361525003193704576782492193656236698636584807570015857692699037063119282795585513329278343384093519780155312465972635795746227664652728272200563740064854999770965994704540208281662262378573934507363390079677619305775067401763246736009689513405355374585166611342237666786041621596804619144672918403005300575308490487653917113865916462395249126236538818796362393732804238910186723484976682350898633885879256283027559956575244555072551893136908362547791869486679949683240497058210285131854513962138377228261454376934125320985913276672363281255e-324",
		"1.7976931348623157e308",       /* DBL_MAX */
		"1.7976931348623158e308",       /* still DBL_MAX */
		"1.7976931348623159e308",       /* overflows */
		"179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497791.9999999999999999999999999",
		"179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497792",
		"0.1", "0.2", "0.3", "0.30000000000000004", "1.1", "3.14159265358979323846",
		"123456789012345678", "1234567890123456789", "12345678901234567890",
		"18446744073709551615", "18446744073709551616", "99999999999999999999",
		"9999999999999999999", "10000000000000000000000000000000000000001",
		"1e22", "1e23", "1e-22", "1e-23", "9007199254740991e22", "9007199254740993e-22",
		"12e30", "123e35", "999999999999999e22", "9007199254740992e15",
		"8.98846567431158e307", "5e-324", "3e-324", "2e-324", "1e-324",
		"7.2057594037927933e16", "1e308", "1e309", "1e-307", "1e-308", "1e-320",
		"0.000000000000000000000000000000000000000000001e45",
		"1000000000000000000000000000000000000000000000e-45",
		"0.0000000000000000000000000000000000000000000000000000000000000000000000001",
		"1e-99999999999999", "-1e-99999999999999", "1e99999999999999", "-1e99999999999999",
		"1e9223372036854775807", "1e-9223372036854775808", "1e99999999999999999999999999999",
		"0e99999999999999999999999999999", "-0e-99999999999999999999999999999",
		"-0", "+0", "0.0", "-0.0e0", ".0", "0.",
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		expect_same_as_strtod(cases[i]);
}

/*
** Fields of extreme length: far more digits than the slow path keeps, with the digit that
** decides the rounding placed before and after the truncation point, and leading zeros
** that shift a huge explicit exponent back into range.
*/
Test(strtod_equality, very_long_fields)
{
	size_t capacity = 20000;
	char *text = malloc(capacity);
	cr_assert_not_null(text);

	/* "1" followed by n zeros, then "e-n": exactly 1, for n up to 10000. */
	for (int n = 1; n < 10000; n = n * 3 + 1) {
		int len = sprintf(text, "1");
		memset(text + len, '0', (size_t)n);
		sprintf(text + len + n, "e-%d", n);
		expect_same_as_strtod(text);
	}
	/* "0." then n zeros then "1e(n+1)": exactly 1. */
	for (int n = 1; n < 10000; n = n * 3 + 1) {
		int len = sprintf(text, "0.");
		memset(text + len, '0', (size_t)n);
		sprintf(text + len + n, "1e%d", n + 1);
		expect_same_as_strtod(text);
	}
	/*
	** 2^53 + 1 (halfway between 2^53 and 2^53 + 2) followed by n zeros and then a final
	** digit: zero keeps it halfway (rounds down to even), anything else tips it up, however
	** far the digit is.
	*/
	for (int n = 0; n < 5000; n = n * 2 + 1) {
		for (char last = '0'; last <= '9'; last += 9) {
			int len = sprintf(text, "9007199254740993.");
			memset(text + len, '0', (size_t)n);
			sprintf(text + len + n, "%c", last);
			expect_same_as_strtod(text);
		}
	}
	/* The same at DBL_MAX's overflow threshold, DBL_MAX + ulp/2, which rounds to inf. */
	for (int n = 0; n < 5000; n = n * 2 + 1) {
		for (char last = '0'; last <= '9'; last += 9) {
			int len = sprintf(text, "17976931348623158079372897140530341507993413271003782693617377898044"
			                        "49682927647509466490179775872070963302864166928879109465555478519404"
			                        "02630657488671505820681908902000708383676273854845817711531764475730"
			                        "27006985557136695962284291481986083493647529271907416844436551070434"
			                        "2711559699508093042880177904174497791.");
			memset(text + len, '9', (size_t)n);
			sprintf(text + len + n, "%c", last);
			expect_same_as_strtod(text);
		}
	}
	free(text);
}

/* Shape 1: what logs hold, and what they hold when something is odd. */
static void generate_realistic(Random *random, char *text)
{
	char *p = text;
	int sign = random_below(random, 8);
	if (sign < 2)
		*p++ = '-';
	else if (sign == 2)
		*p++ = '+';
	if (random_below(random, 8) == 0)
		for (int zeros = random_between(random, 1, 5); zeros > 0; zeros--)
			*p++ = '0';
	int digits = random_between(random, 1, 25);
	int point = random_below(random, 3) == 0 ? -1 : random_between(random, 0, digits);
	for (int i = 0; i < digits; i++) {
		if (i == point)
			*p++ = '.';
		*p++ = random_digit(random);
	}
	if (point == digits)
		*p++ = '.';
	if (random_below(random, 8) == 0)
		for (int zeros = random_between(random, 1, 10); zeros > 0; zeros--)
			*p++ = '0';
	int exponent_kind = random_below(random, 4);
	if (exponent_kind == 0)
		p = append_exponent(random, p, random_between(random, -350, 350));
	else if (exponent_kind == 1)
		p = append_exponent(random, p, random_between(random, -20, 20));
	*p = '\0';
}

/* Shape 2: doubles of every exponent as printf writes them, shortest and longer. */
static void generate_printed_double(Random *random, char *text)
{
	double value = random_finite_double(random);
	switch (random_below(random, 4)) {
	case 0:
		sprintf(text, "%.17g", value);
		break;
	case 1:
		sprintf(text, "%.*g", random_between(random, 1, 17), value);
		break;
	case 2:
		sprintf(text, "%.*e", random_between(random, 0, 25), value);
		break;
	default:
		/* Within a modest range so the text stays short: the %f of a log file. */
		value = random_double_with_exponent_field(random, 1023 + random_between(random, -30, 60));
		sprintf(text, "%.*f", random_between(random, 0, 12), value);
		break;
	}
}

/*
** Shape 3: mantissas at the edges of the exact fast path and of Eisel-Lemire: up to 2^53
** and just above, 16 to 21 digits, with the exponents where each route starts and stops.
*/
static void generate_route_edges(Random *random, char *text)
{
	uint64_t mantissa;
	switch (random_below(random, 4)) {
	case 0:
		mantissa = random_next(random) % (((uint64_t)1 << 53) + 1);
		break;
	case 1:
		mantissa = ((uint64_t)1 << 53) - 50 + random_next(random) % 100;
		break;
	case 2:
		mantissa = random_next(random) >> random_below(random, 64);
		break;
	default:
		mantissa = 1000000000000000U + random_next(random) % 9000000000000000000U;
		break;
	}
	int exponent;
	switch (random_below(random, 3)) {
	case 0:
		exponent = random_between(random, -25, 40);
		break;
	case 1:
		exponent = random_between(random, -348, 310);
		break;
	default:
		exponent = random_between(random, -360, -300);
		break;
	}
	char *p = text + sprintf(text, "%llu", (unsigned long long)mantissa);
	/* Sometimes a few more digits, so that the 19-digit mantissa is truncated. */
	for (int extra = random_below(random, 4) == 0 ? random_between(random, 1, 3) : 0; extra > 0; extra--)
		*p++ = random_digit(random);
	p = append_exponent(random, p, exponent);
	*p = '\0';
}

/*
** Shape 4: 20 to 800 digits, random or made of long runs of one digit (0s, 9s, 4s and
** 5s, where carries and halfway decisions live), a point anywhere, any exponent.
*/
static void generate_long(Random *random, char *text)
{
	static const char runs[] = "0945";
	char *p = text;
	if (random_below(random, 2))
		*p++ = '-';
	int digits = random_between(random, 20, 800);
	int point = random_below(random, 4) == 0 ? -1 : random_between(random, 0, digits);
	char run = runs[random_below(random, 4)];
	int pattern = random_below(random, 3);
	for (int i = 0; i < digits; i++) {
		if (i == point)
			*p++ = '.';
		if (pattern == 0 || (pattern == 1 && i < 17) || random_below(random, 50) == 0)
			*p++ = random_digit(random);
		else
			*p++ = run;
	}
	if (random_below(random, 3))
		p = append_exponent(random, p, random_between(random, -400, 400));
	*p = '\0';
}

Test(strtod_equality, realistic_fields)
{
	Random random = {0xBB67AE8584CAA73BU};
	char text[256];
	for (int i = 0; i < 600000; i++) {
		generate_realistic(&random, text);
		expect_same_as_strtod(text);
	}
}

Test(strtod_equality, printed_doubles)
{
	Random random = {0x3C6EF372FE94F82BU};
	char text[512];
	for (int i = 0; i < 500000; i++) {
		generate_printed_double(&random, text);
		expect_same_as_strtod(text);
	}
}

Test(strtod_equality, route_edges)
{
	Random random = {0xA54FF53A5F1D36F1U};
	char text[256];
	for (int i = 0; i < 800000; i++) {
		generate_route_edges(&random, text);
		expect_same_as_strtod(text);
	}
}

Test(strtod_equality, long_fields)
{
	Random random = {0x510E527FADE682D1U};
	char text[1024];
	for (int i = 0; i < 40000; i++) {
		generate_long(&random, text);
		expect_same_as_strtod(text);
	}
}

/*
** Exact halfway points between two neighbouring doubles, of every exponent (subnormals
** and the overflow threshold included), and their closest neighbours in text: the point
** itself (ties to even), the point with a 1 appended far beyond the 800 digits the slow
** path keeps (just above), the point with its last digit lowered and 9s appended (just
** below), and the point cut short. The midpoint of two doubles needs 54 bits, which the
** x87 long double holds exactly, and glibc prints it exactly.
*/
Test(strtod_equality, halfway_points_and_their_neighbours)
{
#if LDBL_MANT_DIG < 64
	cr_skip_test("long double cannot hold a midpoint between two doubles");
#else
	Random random = {0x9B05688C2B3E6C1FU};
	char midpoint[1100];
	char text[2300];
	for (int i = 0; i < 12000; i++) {
		double low = fabs(random_finite_double(&random));
		if (i % 8 == 0)
			low = random_double_with_exponent_field(&random, random_below(&random, 3));
		if (i == 0)
			low = DBL_MAX;
		double high = next_double_up(low);
		long double middle;
		if (isinf(high)) /* the overflow threshold: DBL_MAX + ulp / 2, ulp = 2^971 */
			middle = (long double)DBL_MAX + 0x1p970L;
		else
			middle = ((long double)low + (long double)high) / 2;

		/* "d.ddd...ddde-123": 1000 digits after the point are more than 767, so exact. */
		int len = snprintf(midpoint, sizeof midpoint, "%.1000Le", middle);
		char *e = strchr(midpoint, 'e');
		const char *exponent = e;
		int mantissa_len = (int)(e - midpoint);
		int last_nonzero = mantissa_len - 1;
		while (midpoint[last_nonzero] == '0' || midpoint[last_nonzero] == '.')
			last_nonzero--;
		cr_assert(len > 0 && e != NULL);

		expect_same_as_strtod(midpoint);

		sprintf(text, "%.*s0000000000000000000001%s", mantissa_len, midpoint, exponent);
		expect_same_as_strtod(text);

		memcpy(text, midpoint, (size_t)last_nonzero + 1);
		text[last_nonzero]--;
		memset(text + last_nonzero + 1, '9', 1100);
		strcpy(text + last_nonzero + 1 + 1100, exponent);
		expect_same_as_strtod(text);

		int cut = random_between(&random, 2, last_nonzero);
		sprintf(text, "%.*s%s", cut, midpoint, exponent);
		expect_same_as_strtod(text);
	}
#endif
}

/* ---------------------------------------------------------------------------------------
** Route 0, which reads 8 bytes at a time: fields of 1 to 24 bytes in every arrangement of
** digits, point and sign, so that a run of digits, the point and the sign fall on every
** side of every 8-byte boundary, each read from the very end of a heap block of its own
** length (AddressSanitizer sees any load past the field).
*/

/*
** Asserts that text[0..len) (no blanks, no hex, no "nan(", so that strtod reading all of
** it is the grammar) is accepted exactly when strtod_l reads all of it, and then gives
** strtod_l's double. The field is parsed from the end of a block of exactly len bytes.
*/
static void expect_agreement_at_end_of_block(const char *text, size_t len)
{
	char copy[64];
	cr_assert(len < sizeof copy);
	memcpy(copy, text, len);
	copy[len] = '\0';
	char *end;
	double expected = strtod_l(copy, &end, reference_locale());
	bool strtod_reads_all = len > 0 && end == copy + len;
	double actual = 12345.0;
	bool accepted = parse_at_end_of_block(text, len, &actual);
	if (accepted != strtod_reads_all) {
		char shown[4 * sizeof copy + 1];
		size_t used = 0;
		for (size_t i = 0; i < len; i++)
			used += (size_t)sprintf(shown + used, copy[i] >= 0x20 && copy[i] < 0x7F ? "%c" : "\\x%02x",
			                        (unsigned char)copy[i]);
		cr_assert_fail("\"%s\" (%zu bytes): parse_number %s it, strtod %s", shown, len,
		               accepted ? "accepts" : "refuses",
		               strtod_reads_all ? "reads all of it" : "does not");
	}
	if (accepted && !same_double(actual, expected))
		cr_assert_fail("\"%s\": parse_number gives %a (%.17g), strtod gives %a (%.17g)", copy,
		               actual, actual, expected, expected);
	if (!accepted && actual != 12345.0)
		cr_assert_fail("\"%s\": *out written on refusal", copy);
}

/*
** Writes sign, then digits digits of the given kind with a point before digit point
** (none when point < 0; after the last when point == digits), into text; returns the
** length. Kinds: 0 random, 1 all 9s, 2 all 0s, 3 zeros then a random tail, 4 a 1 then 0s.
*/
static size_t write_decimal(Random *random, char *text, const char *sign, int digits, int point,
                            int kind)
{
	size_t len = strlen(sign);
	memcpy(text, sign, len);
	for (int i = 0; i < digits; i++) {
		if (i == point)
			text[len++] = '.';
		char digit;
		switch (kind) {
		case 0:
			digit = random_digit(random);
			break;
		case 1:
			digit = '9';
			break;
		case 2:
			digit = '0';
			break;
		case 3:
			digit = i < digits / 2 ? '0' : random_digit(random);
			break;
		default:
			digit = i == 0 ? '1' : '0';
			break;
		}
		text[len++] = digit;
	}
	if (point == digits)
		text[len++] = '.';
	text[len] = '\0';
	return len;
}

Test(route0, every_length_point_position_and_sign)
{
	static const char *const signs[] = {"", "-", "+"};
	Random random = {0x2B0E7E1A3E5B4C11U};
	char text[64];
	for (int digits = 0; digits <= 26; digits++)
		for (int point = -1; point <= digits; point++)
			for (size_t sign = 0; sign < sizeof signs / sizeof signs[0]; sign++)
				for (int kind = 0; kind < 5; kind++)
					for (int round = 0; round < (kind == 0 || kind == 3 ? 20 : 1); round++) {
						size_t len = write_decimal(&random, text, signs[sign], digits, point, kind);
						expect_agreement_at_end_of_block(text, len);
					}
}

/*
** Every byte value at every position of decimals of 1 to 26 bytes, the one place where
** a stray byte could pass for a digit or a point: the bytes just below '0' and above '9',
** the point and the sign with the high bit set (0xAE, 0xAD), the bytes whose high bit
** carries into the next byte when the digits are checked 8 at a time, the NUL. Blanks
** and other spaces are left out (strtod skips them where the grammar does not), and so
** are 'x' and 'X' (hex).
*/
Test(route0, any_byte_anywhere)
{
	Random random = {0x7137449123EF65CDU};
	char text[64];
	for (int digits = 1; digits <= 24; digits++)
		for (int point = -1; point <= digits; point += (digits > 10 ? 3 : 1))
			for (int sign = 0; sign < 2; sign++) {
				size_t len = write_decimal(&random, text, sign ? "-" : "", digits, point, 0);
				for (size_t at = 0; at < len; at++) {
					char kept = text[at];
					for (int byte = 0; byte < 256; byte++) {
						if (byte == ' ' || (byte >= '\t' && byte <= '\r') || byte == 'x' ||
						    byte == 'X')
							continue;
						text[at] = (char)byte;
						expect_agreement_at_end_of_block(text, len);
					}
					text[at] = kept;
				}
			}
}

/*
** Random fields of 1 to 26 bytes, mostly digits, with points, signs, exponents and bytes
** that differ from a digit or a point by one bit scattered in: two or more odd bytes at
** once, which any_byte_anywhere does not try.
*/
Test(route0, random_fields_with_odd_bytes)
{
	static const char odd[] = ".....--+eE/:\x1e\x2e\x2f\x3a\xae\xad\xb0\xb9\xba\xbf\xc0\xff\x80\x01";
	Random random = {0xE9B5DBA58189DBBCU};
	char text[64];
	for (int round = 0; round < 400000; round++) {
		size_t len = (size_t)random_between(&random, 1, 26);
		int odd_per_64 = random_between(&random, 1, 12);
		for (size_t i = 0; i < len; i++)
			text[i] = random_below(&random, 64) < odd_per_64
			                  ? odd[random_below(&random, (int)sizeof odd - 1)]
			                  : random_digit(&random);
		expect_agreement_at_end_of_block(text, len);
	}
}

/*
** Edges of the routes: 8, 16, 19, 20 and 24 digits, mantissas at 2^53 and at 10^19, the
** largest head that the 24-byte route takes (1843 in front of 16 digits) and the first it
** leaves, zeros that make a short value long, and 17-digit round-trip doubles.
*/
Test(route0, named_edges)
{
	static const char *const cases[] = {
		"12345678", "99999999", "00000000", "-9999999", "1234567.", ".1234567", "-.123456",
		"123456789", "1234567.8", "12345678.9", ".12345678", "-12345678", "-1234567.8",
		"9999999999999999", "999999999999999.9", "9007199254740992", "9007199254740993",
		"9007199254740994", "9007199254740995", "900719925474099.3", "90071992547409.93",
		"-9007199254740993", "0.9007199254740993", "4503599627370497.5",
		"1234567890123456789", "9999999999999999999", "999999999999999999.9",
		"0.9999999999999999999", ".9999999999999999999", "-.9999999999999999999",
		"12345678901234567890", "18439999999999999999", "18440000000000000000",
		"1843999999999999999.9", "1844000000000000000.0", "18446744073709551615",
		"18446744073709551616", "-1843.9999999999999999", "1.8439999999999999999",
		"0.00000000000000000001", "0.000000000000000000001", ".00000000000000000000001",
		"000000000000000000000001", "000000000000000000000000", "-00000000000000000000000",
		"-0.0000000000000000000000", "0.30000000000000004", "-0.30000000000000004",
		"2.2250738585072014", "1.7976931348623157", "0.1000000000000000055511151231257827",
		"123456.78901234567", "9007199254740993.0", "1700000000.123456", "1700000000.1234567",
		"-1700000000.123456", "0", "-0", "00", "-00", "0.", "-0.", ".0", "-.0", "000", "0.0",
		"-0.0", "-000", "0.000", "-0.000", "0000000", "-0000000", "99999999.", "9999999.9",
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		expect_agreement_at_end_of_block(cases[i], strlen(cases[i]));
}

/*
** A field inside a longer line: the bytes around it (digits, points, signs) must not
** change what it reads, whatever its length and wherever the 8-byte loads fall.
*/
Test(route0, reads_only_the_field_inside_a_line)
{
	static const char *const fills[] = {"9999999999999999999999999", "..........................",
	                                    "-------------------------", "eeeeeeeeeeeeeeeeeeeeeeeee"};
	Random random = {0x3956C25BF348B538U};
	char line[128];
	char field[64];
	for (int digits = 1; digits <= 23; digits++)
		for (int point = -1; point <= digits; point++)
			for (size_t fill = 0; fill < sizeof fills / sizeof fills[0]; fill++) {
				size_t len = write_decimal(&random, field, random_below(&random, 2) ? "-" : "",
				                           digits, point, 0);
				size_t before = (size_t)random_between(&random, 0, 20);
				memcpy(line, fills[fill], before);
				memcpy(line + before, field, len);
				memcpy(line + before + len, fills[fill], 25);
				double inside = 12345.0, alone = 54321.0;
				bool inside_accepted = parse_number(line + before, len, &inside);
				bool alone_accepted = parse_at_end_of_block(field, len, &alone);
				cr_assert(inside_accepted == alone_accepted, "\"%s\" inside \"%.*s\"", field,
				          (int)(before + len + 25), line);
				if (alone_accepted)
					cr_assert(same_double(inside, alone), "\"%s\" reads %a inside a line, %a alone",
					          field, inside, alone);
			}
}

/* ---------------------------------------------------------------------------------------
** Locale independence.
*/

/*
** Under de_DE.UTF-8, strtod wants "1,5"; parse_number must still read "1.5" and refuse
** "1,5", with every route giving the C locale's result. make check generates the locale
** into its build directory and names that directory in SWAG_TEST_LOCPATH, so the test
** depends on no locale the machine has; without it the test fails rather than skips, for
** a machine without the locale cannot show that the parser ignores it.
*/
Test(locale, ignores_a_locale_with_a_decimal_comma)
{
	/* The fields are written first, in the C locale, for printf would write a comma. */
	enum { FIELD_COUNT = 20000, FIELD_SIZE_MAX = 1024 };
	size_t pool_size = (size_t)FIELD_COUNT * 512;
	char *pool = malloc(pool_size);
	cr_assert_not_null(pool);
	size_t pool_used = 0;
	Random random = {0x1F83D9ABFB41BD6BU};
	for (int i = 0; i < FIELD_COUNT && pool_size - pool_used >= FIELD_SIZE_MAX; i++) {
		char *text = pool + pool_used;
		switch (i % 4) {
		case 0:
			generate_realistic(&random, text);
			break;
		case 1:
			generate_printed_double(&random, text);
			break;
		case 2:
			generate_route_edges(&random, text);
			break;
		default:
			generate_long(&random, text);
			break;
		}
		pool_used += strlen(text) + 1;
	}

	/* glibc reads LOCPATH at every setlocale(). */
	const char *locpath = getenv("SWAG_TEST_LOCPATH");
	cr_assert(locpath != NULL && *locpath != '\0',
	          "SWAG_TEST_LOCPATH is not set: run the test through make check, which "
	          "generates de_DE.UTF-8 into the build directory");
	cr_assert_eq(setenv("LOCPATH", locpath, 1), 0);
	cr_assert_not_null(setlocale(LC_ALL, "de_DE.UTF-8"),
	                   "no locale de_DE.UTF-8 in %s (make check generates it)", locpath);
	/* Proof that the locale is in force: plain strtod now reads a decimal comma. */
	cr_assert(strtod("1,5", NULL) == 1.5, "de_DE.UTF-8 does not use a decimal comma");

	double value;
	cr_expect(parse_number("1.5", 3, &value) && value == 1.5);
	cr_expect(!parse_number("1,5", 3, &value));
	cr_expect(parse_number("-2.5e-3", 7, &value) && value == -2.5e-3);

	/* strtod_l in the C locale is the reference, whatever setlocale says. */
	for (size_t offset = 0; offset < pool_used; offset += strlen(pool + offset) + 1)
		expect_same_as_strtod(pool + offset);
	free(pool);
	/* The slow path, which calls the C library, on text with a decimal point. */
	expect_same_as_strtod("2.2250738585072011e-308");
	expect_same_as_strtod("0.1000000000000000055511151231257827021181583404541015625");

	cr_assert_not_null(setlocale(LC_ALL, "C"));
	unsetenv("LOCPATH");
}
