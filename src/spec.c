/*
 * spec.c: aggregate specs and window sizes (see spec.h).
 */
#include <string.h>

#include "blank.h"
#include "spec.h"
#include "timestamp.h"

int
parse_count(const char *text, size_t len, uint64_t max, uint64_t *value)
{
	uint64_t v = 0;

	if (len == 0)
		return -1;
	for (size_t i = 0; i < len; i++) {
		unsigned digit = (unsigned char)text[i] - '0';

		if (digit > 9 || v > (max - digit) / 10)
			return -1;
		v = v * 10 + digit;
	}
	if (v == 0)
		return -1;
	*value = v;
	return 0;
}

/* True when text[0, len) is one or more digits. */
static bool
all_digits(const char *text, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (text[i] < '0' || text[i] > '9')
			return false;
	return len > 0;
}

int
window_parse(const char *text, size_t len, struct window_size *window)
{
	const char *end = text + len;

	/* Blanks around a count, all or a duration are ignored (swag(1), WINDOWS). */
	trim_blanks(&text, &end);
	len = (size_t)(end - text);
	window->rows = 0;
	window->nanos = 0;
	if (len == 3 && memcmp(text, "all", 3) == 0) {
		window->rows = WINDOW_ROWS_ALL;
		return 0;
	}
	if (all_digits(text, len))
		return parse_count(text, len, WINDOW_ROWS_MAX, &window->rows);
	return parse_duration(text, len, &window->nanos) ? 0 : -1;
}

int
column_parse(const char *text, size_t len, struct column_ref *column)
{
	uint64_t number;

	column->number = 0;
	column->from_end = false;
	column->name = NULL;
	column->name_len = 0;
	column->digits = false;
	column->text = text;
	column->text_len = len;
	column->taken = COLUMN_NOT_TAKEN;
	if (len == 0)
		return -1;
	if (len > 1 && text[0] == '-' && all_digits(text + 1, len - 1)) {
		if (parse_count(text + 1, len - 1, SIZE_MAX / 2, &number) == 0) {
			column->from_end = true;
			column->number = (size_t)number;
			return 0;
		}
	} else if (!all_digits(text, len)) {
		column->name = text;
		column->name_len = len;
		return 0;
	} else if (parse_count(text, len, SIZE_MAX / 2, &number) == 0) {
		column->number = (size_t)number;
		return 0;
	}
	/* No field number: a header may still have a field of that name. */
	column->name = text;
	column->name_len = len;
	column->digits = true;
	return 1;
}

enum spec_status
spec_parse(const char *text, struct agg_spec *spec)
{
	size_t len = strlen(text);
	const char *at = memrchr(text, '@', len);
	const char *end = at != NULL ? at : text + len;
	const char *colon = memchr(text, ':', (size_t)(end - text));
	const char *name_end = colon != NULL ? colon : end;

	spec->text = text;
	spec->name_len = (size_t)(name_end - text);
	spec->kind = agg_lookup(text, spec->name_len, &spec->params);
	if (spec->kind == NULL)
		return agg_is_name(text, spec->name_len) ? SPEC_BAD_PERCENTILE :
		    SPEC_UNKNOWN_AGGREGATE;
	spec->column = (struct column_ref){ .number = 1 };
	if (colon != NULL &&
	    column_parse(colon + 1, (size_t)(end - colon - 1), &spec->column) < 0)
		return SPEC_BAD_COLUMN;
	spec->has_window = at != NULL;
	spec->window_offset = at != NULL ? (size_t)(at - text) : len;
	if (at != NULL && window_parse(at + 1, len - (size_t)(at - text) - 1, &spec->window) != 0)
		return SPEC_BAD_WINDOW;
	return SPEC_OK;
}
