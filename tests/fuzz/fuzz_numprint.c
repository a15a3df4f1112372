/*
 * fuzz_numprint.c: libFuzzer harness for format_number and format_fixed
 * (src/numprint.c).
 *
 * Bytes 0-7 are a double (any bit pattern: NaNs, subnormals, infinities); byte 8, if
 * there, chooses format_fixed's precision, a little outside 0..30 too, to test the
 * clamping.  format_number must read back through strtod to the same bits (a NaN
 * prints "nan", both zeros "0"), never take more than 24 bytes of text, never write
 * past its NUMPRINT_SHORTEST_MAX buffer, use the fewest significant digits that
 * round-trip, and choose plain or exponent notation by the man page's rule.
 * format_fixed must match snprintf's %.*f byte for byte, with the man page's
 * exceptions (no "-" on a result whose digits are all zero, "nan" for any NaN).
 * Both write into heap blocks of exactly their documented size, so AddressSanitizer
 * catches a write past them.
 */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numprint.h"

static void
fail(const char *what, double x, const char *text, size_t len)
{
	fprintf(stderr, "fuzz_numprint: %a (%.17g): %s: '%.*s'\n", x, x, what, (int)len, text);
	abort();
}

/* The number of significant digits in a decimal text: its digits less the leading
   and the trailing zeros ("9100000000000000" has two). */
static int
significant_digits(const char *text, size_t len)
{
	size_t end = len, start = 0;
	int count = 0;
	const char *e = memchr(text, 'e', len);

	if (e != NULL)
		end = (size_t)(e - text);
	while (start < end && (text[start] == '-' || text[start] == '0' || text[start] == '.'))
		start++;
	while (end > start && (text[end - 1] == '0' || text[end - 1] == '.'))
		end--;
	for (size_t i = start; i < end; i++)
		count += text[i] >= '0' && text[i] <= '9';
	return count;
}

/* The fewest significant digits that %e can print x with and still read back. */
static int
shortest_printf_digits(double x, char *buf, size_t size)
{
	for (int digits = 1; digits < 17; digits++) {
		snprintf(buf, size, "%.*e", digits - 1, x);
		if (strtod(buf, NULL) == x)
			return digits;
	}
	snprintf(buf, size, "%.16e", x);
	return 17;
}

/* The text of s as format_number's shape allows: -?d+(.d+)? or -?d(.d+)?e[+-]dd+. */
static bool
well_formed(const char *s, size_t len)
{
	size_t i = 0, digits;

	if (i < len && s[i] == '-')
		i++;
	for (digits = 0; i < len && s[i] >= '0' && s[i] <= '9'; i++)
		digits++;
	if (digits == 0)
		return false;
	if (i < len && s[i] == '.') {
		i++;
		for (digits = 0; i < len && s[i] >= '0' && s[i] <= '9'; i++)
			digits++;
		if (digits == 0)
			return false;
	}
	if (i < len && s[i] == 'e') {
		i++;
		if (i == len || (s[i] != '+' && s[i] != '-'))
			return false;
		i++;
		for (digits = 0; i < len && s[i] >= '0' && s[i] <= '9'; i++)
			digits++;
		if (digits < 2)
			return false;
	}
	return i == len;
}

static void
check_shortest(double x)
{
	char *buf = malloc(NUMPRINT_SHORTEST_MAX);
	char text[64], reference[64];
	size_t len;
	double back;

	if (buf == NULL)
		abort();
	len = format_number(x, buf);
	if (len > 24 || len > NUMPRINT_SHORTEST_MAX)
		fail("format_number: text too long", x, buf, len < 64 ? len : 64);
	memcpy(text, buf, len);
	text[len] = '\0';
	free(buf);
	if (isnan(x)) {
		if (strcmp(text, "nan") != 0)
			fail("a NaN must print nan", x, text, len);
		return;
	}
	if (isinf(x)) {
		if (strcmp(text, x > 0 ? "inf" : "-inf") != 0)
			fail("wrong infinity", x, text, len);
		return;
	}
	if (x == 0) {
		if (strcmp(text, "0") != 0)
			fail("a zero must print 0", x, text, len);
		return;
	}
	if (!well_formed(text, len))
		fail("malformed text", x, text, len);
	back = strtod(text, NULL);
	if (memcmp(&back, &x, sizeof(x)) != 0)
		fail("does not round-trip", x, text, len);
	if (fabs(x) < 9007199254740992.0 && x == trunc(x)) {
		if (memchr(text, '.', len) != NULL || memchr(text, 'e', len) != NULL)
			fail("an integral value below 2^53 must print as an integer", x, text, len);
		return;
	}
	if ((memchr(text, 'e', len) != NULL) != (fabs(x) < 1e-5 || fabs(x) >= 1e16))
		fail("plain notation exactly for 1e-5 <= |x| < 1e16", x, text, len);
	{
		int want = shortest_printf_digits(x, reference, sizeof(reference));
		int got = significant_digits(text, len);

		/*
		 * Never more digits than printf needs; fewer only where the nearest decimal of
		 * that length falls outside x's rounding interval and a farther one inside it
		 * (at a power of two, where the interval is lopsided).  With as many, the
		 * digits must be printf's: the decimal nearest x.
		 */
		if (got > want)
			fail("not the shortest", x, text, len);
		if (got == want) {
			char a[32], b[32];
			size_t na = 0, nb = 0;

			for (size_t i = 0; i < len && text[i] != 'e'; i++)
				if (text[i] >= '0' && text[i] <= '9' && na < sizeof(a))
					a[na++] = text[i];
			for (size_t i = 0; reference[i] != '\0' && reference[i] != 'e'; i++)
				if (reference[i] >= '0' && reference[i] <= '9' && nb < sizeof(b))
					b[nb++] = reference[i];
			/* Compare the significant digits, without leading zeros. */
			{
				size_t sa = 0, sb = 0;

				while (sa < na && a[sa] == '0')
					sa++;
				while (sb < nb && b[sb] == '0')
					sb++;
				if ((int)(na - sa) < want || (int)(nb - sb) < want ||
				    memcmp(a + sa, b + sb, (size_t)want) != 0)
					fail("not the decimal nearest x", x, reference, strlen(reference));
			}
		}
	}
}

static void
check_fixed(double x, int precision)
{
	int effective = precision < 0 ? 0 : precision > NUMPRINT_PRECISION_MAX ?
	    NUMPRINT_PRECISION_MAX : precision;
	char *buf = malloc(NUMPRINT_FIXED_MAX);
	char want[NUMPRINT_FIXED_MAX + 16];
	const char *expected = want;
	size_t len;

	if (buf == NULL)
		abort();
	len = format_fixed(x, precision, buf);
	if (len > NUMPRINT_FIXED_MAX)
		fail("format_fixed: text too long", x, buf, 64);
	snprintf(want, sizeof(want), "%.*f", effective, x);
	if (isnan(x)) {
		expected = "nan";
	} else if (want[0] == '-' && strspn(want + 1, "0.") == strlen(want + 1)) {
		expected = want + 1;	/* the -0 rule */
	}
	if (len != strlen(expected) || memcmp(buf, expected, len) != 0) {
		fprintf(stderr, "precision %d, snprintf gives '%s'\n", precision, expected);
		fail("format_fixed differs from snprintf", x, buf, len);
	}
	free(buf);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	double x;

	if (size < sizeof(x))
		return 0;
	memcpy(&x, data, sizeof(x));
	check_shortest(x);
	/* Precision -2 to 33: the ends of the range and a little past them. */
	check_fixed(x, size > 8 ? data[8] % 36 - 2 : 2);
	return 0;
}
