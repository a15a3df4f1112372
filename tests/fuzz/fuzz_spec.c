/*
 * fuzz_spec.c: libFuzzer harness for the command-line parsers of aggregate specs,
 * windows, columns and counts (src/spec.c, agg_lookup in src/agg.c).
 *
 * The input, cut at its first NUL as a command-line argument would be, goes to
 * spec_parse; the raw bytes go to window_parse, column_parse and parse_count (from a
 * heap block of exactly their length, so AddressSanitizer catches a read past it).
 * Whatever they accept must be in range:
 *
 *   - a spec names a known aggregate, its name, column and window are the parts of the
 *     text that its first ':' and last '@' delimit, a percentile is within [0, 1];
 *   - a window is either rows, 1 to WINDOW_ROWS_MAX, a positive duration, or all
 *     (rows WINDOW_ROWS_ALL), rows exactly when the text is all digits and all exactly
 *     when it is "all", blanks around it left out;
 *   - a column is a field number from 1 to SIZE_MAX / 2 when all digits, or a minus
 *     and digits (counted from the end), else a name; digits, or a minus and digits,
 *     that make no field number (0, -0, too large) are a name marked digits, and only
 *     the empty text is refused;
 *   - a count is from 1 to its maximum.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg.h"
#include "blank.h"
#include "spec.h"

static void
fail(const char *what, const char *text, size_t len)
{
	fprintf(stderr, "fuzz_spec: %s: '%.*s'\n", what, (int)len, text);
	abort();
}

static bool
all_digits(const char *text, size_t len)
{
	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++)
		if (text[i] < '0' || text[i] > '9')
			return false;
	return true;
}

static void
check_window(const struct window_size *w, const char *text, size_t len)
{
	/* Blanks around the size are left out (swag(1), -w). */
	const char *start = text, *stop = text + len;
	bool all, digits;

	trim_blanks(&start, &stop);
	all = stop - start == 3 && memcmp(start, "all", 3) == 0;
	digits = all_digits(start, (size_t)(stop - start));

	if ((w->rows == 0) == (w->nanos == 0))
		fail("a window must be rows or a duration, not both or neither", text, len);
	if (all != (w->rows == WINDOW_ROWS_ALL))
		fail("all exactly when the window is all", text, len);
	if (w->rows > WINDOW_ROWS_MAX && !all)
		fail("row window out of range", text, len);
	if (w->nanos < 0)
		fail("negative duration", text, len);
	if (digits != (w->rows != 0 && !all))
		fail("rows exactly when the window is all digits", text, len);
}

static void
check_spec(const char *text)
{
	size_t len = strlen(text);
	const char *at = memrchr(text, '@', len);
	const char *end = at != NULL ? at : text + len;
	const char *colon = memchr(text, ':', (size_t)(end - text));
	struct agg_spec spec;

	if (spec_parse(text, &spec) != SPEC_OK)
		return;
	if (spec.kind == NULL || spec.text != text)
		fail("accepted without a kind", text, len);
	if (spec.name_len != (size_t)((colon != NULL ? colon : end) - text))
		fail("the name is not the text before the first ':' or '@'", text, len);
	if (!(spec.params.percentile >= 0.0 && spec.params.percentile <= 1.0))
		fail("percentile out of [0, 1]", text, len);
	if (spec.column.name != NULL) {
		if (colon == NULL || spec.column.name != colon + 1 ||
		    spec.column.name + spec.column.name_len != end || spec.column.name_len == 0 ||
		    (!spec.column.digits && all_digits(spec.column.name, spec.column.name_len)) ||
		    (spec.column.digits && !all_digits(spec.column.name, spec.column.name_len) &&
		    !(spec.column.name[0] == '-' && spec.column.name_len > 1 &&
		    all_digits(spec.column.name + 1, spec.column.name_len - 1))) ||
		    spec.column.number != 0)
			fail("bad column name", text, len);
	} else if (spec.column.number < 1 || spec.column.number > SIZE_MAX / 2 ||
	    (colon == NULL && spec.column.number != 1)) {
		fail("bad column number", text, len);
	}
	if (spec.has_window != (at != NULL) || spec.window_offset != (size_t)(end - text))
		fail("bad window position", text, len);
	if (spec.has_window)
		check_window(&spec.window, at + 1, len - (size_t)(at - text) - 1);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *raw = malloc(size ? size : 1);
	struct window_size window;
	struct column_ref column;
	bool from_end;
	uint64_t count, max;

	if (text == NULL || raw == NULL)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	memcpy(raw, data, size);
	check_spec(text);

	if (window_parse(raw, size, &window) == 0)
		check_window(&window, raw, size);
	/* A minus and digits count from the last field. */
	from_end = size > 1 && raw[0] == '-' && all_digits(raw + 1, size - 1);
	switch (column_parse(raw, size, &column)) {
	case 0:
		if (column.text != raw || column.text_len != size || column.from_end != from_end ||
		    column.digits)
			fail("bad column text", raw, size);
		if (all_digits(raw, size) || from_end ? column.name != NULL || column.number < 1 ||
		    column.number > SIZE_MAX / 2 : column.name != raw || column.name_len != size ||
		    column.number != 0)
			fail("bad column", raw, size);
		break;
	case 1:
		/* Digits that make no field number: a name that only a header can have. */
		if (!column.digits || column.name != raw || column.name_len != size ||
		    column.number != 0 || column.from_end || !(all_digits(raw, size) || from_end) ||
		    parse_count(raw + from_end, size - from_end, SIZE_MAX / 2, &count) == 0)
			fail("bad digits name", raw, size);
		break;
	default:
		if (size > 0)
			fail("a column was refused", raw, size);
		break;
	}
	/* The maximum from the first byte: small ones test the bound, 0 the extreme. */
	max = size > 0 ? (uint64_t)(unsigned char)raw[0] * 1000 : 0;
	if (max == 0)
		max = UINT64_MAX;
	if (parse_count(raw, size, max, &count) == 0 && (count < 1 || count > max ||
	    !all_digits(raw, size)))
		fail("bad count", raw, size);
	free(text);
	free(raw);
	return 0;
}
