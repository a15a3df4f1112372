/*
 * fuzz_numparse.c: libFuzzer harness for parse_number (src/numparse.c).
 *
 * The input is one field.  Every field that parse_number accepts must lie in the
 * grammar of numparse.h (checked here by a separate, deliberately plain matcher) and
 * give the double that glibc's strtod_l gives in the C locale, bit for bit (NaNs only
 * as NaNs: their sign and payload are not compared).  Every field it refuses must be
 * outside that grammar or be one that strtod does not read whole.  The field is read
 * from a heap block of exactly its length, so AddressSanitizer catches a read past it.
 * parse_number_inline, the values stage's way in, must give the same verdict and
 * double, NaNs bit for bit.
 */
#include <locale.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numparse.h"
#include "numparse_short.h"

static bool
is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* True when s[*i..) begins with word, in any case; moves *i past it. */
static bool
take_word(const char *s, size_t len, size_t *i, const char *word)
{
	size_t n = strlen(word);

	if (len - *i < n)
		return false;
	for (size_t k = 0; k < n; k++) {
		char c = s[*i + k];

		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (c != word[k])
			return false;
	}
	*i += n;
	return true;
}

/* Moves *i past a run of digits; returns how many there were. */
static size_t
take_digits(const char *s, size_t len, size_t *i)
{
	size_t start = *i;

	while (*i < len && is_digit(s[*i]))
		(*i)++;
	return *i - start;
}

/*
 * The grammar of numparse.h, written out plainly:
 *
 *     number   := blank* [+-]? body blank*
 *     body     := digits ("." digits?)? exponent? | "." digits exponent?
 *               | "nan" | "inf" | "infinity"            (any case)
 *     exponent := [eE] [+-]? digits
 *
 * Returns true when s[0..len) is a number; stores where the body starts and ends.
 */
static bool
in_grammar(const char *s, size_t len, size_t *body_start, size_t *body_end)
{
	size_t i = 0, end = len;

	while (i < len && is_blank(s[i]))
		i++;
	while (end > i && is_blank(s[end - 1]))
		end--;
	*body_start = i;
	*body_end = end;
	if (i < end && (s[i] == '+' || s[i] == '-'))
		i++;
	if (i == end)
		return false;
	if (!is_digit(s[i]) && s[i] != '.') {
		size_t j = i;

		/* "infinity" before "inf", so that the longer word is taken whole. */
		if (take_word(s, end, &j, "nan") || take_word(s, end, &j, "infinity") ||
		    take_word(s, end, &j, "inf"))
			return j == end;
		return false;
	}
	{
		size_t digits = take_digits(s, end, &i);

		if (i < end && s[i] == '.') {
			i++;
			digits += take_digits(s, end, &i);
		}
		if (digits == 0)
			return false;
	}
	if (i < end && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < end && (s[i] == '+' || s[i] == '-'))
			i++;
		if (take_digits(s, end, &i) == 0)
			return false;
	}
	return i == end;
}

static locale_t
c_locale(void)
{
	static locale_t locale;

	if (locale == (locale_t)0)
		locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	if (locale == (locale_t)0)
		abort();
	return locale;
}

static void
fail(const char *what, const uint8_t *data, size_t size)
{
	fprintf(stderr, "fuzz_numparse: %s: '", what);
	for (size_t i = 0; i < size; i++)
		fprintf(stderr, data[i] >= 0x20 && data[i] < 0x7f ? "%c" : "\\x%02x", data[i]);
	fprintf(stderr, "'\n");
	abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *field = malloc(size ? size : 1);
	char *copy = malloc(size + 1);
	size_t body_start, body_end;
	bool grammar, accepted, strtod_whole;
	double got = 12345.0, got_inline = 12345.0, want;
	char *end;

	if (field == NULL || copy == NULL)
		abort();
	memcpy(field, data, size);
	memcpy(copy, data, size);
	copy[size] = '\0';
	accepted = parse_number(field, size, &got);
	/* The values stage's inline way (numparse_short.h) must agree, bit for bit. */
	if (parse_number_inline(field, size, &got_inline) != accepted)
		fail("parse_number_inline's verdict differs", data, size);
	if (memcmp(&got_inline, &got, sizeof(got)) != 0)
		fail("parse_number_inline's double differs", data, size);
	grammar = in_grammar(copy, size, &body_start, &body_end);

	/* strtod on the body alone: it skips more kinds of blank than the grammar does. */
	copy[body_end] = '\0';
	want = strtod_l(copy + body_start, &end, c_locale());
	strtod_whole = body_end > body_start && end == copy + body_end;

	if (accepted) {
		if (!grammar)
			fail("accepted outside the grammar", data, size);
		if (!strtod_whole)
			fail("accepted, but strtod does not read it whole", data, size);
		if (isnan(want) ? !isnan(got) : memcmp(&got, &want, sizeof(got)) != 0) {
			fprintf(stderr, "parse_number %a, strtod %a\n", got, want);
			fail("differs from strtod", data, size);
		}
	} else {
		if (got != 12345.0)
			fail("refused, but *out was changed", data, size);
		if (grammar && strtod_whole)
			fail("refused a number in the grammar that strtod reads", data, size);
	}
	free(field);
	free(copy);
	return 0;
}
