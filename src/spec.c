/*
 * spec.c: aggregate specs and window sizes (see spec.h).
 */
#include <string.h>

#include "spec.h"

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

int
window_parse(const char *text, size_t len, struct window_size *window)
{
	return parse_count(text, len, WINDOW_ROWS_MAX, &window->rows);
}

enum spec_status
spec_parse(const char *text, struct agg_spec *spec)
{
	size_t len = strlen(text);
	const char *at = memrchr(text, '@', len);
	const char *end = at != NULL ? at : text + len;
	const char *colon = memchr(text, ':', (size_t)(end - text));
	const char *name_end = colon != NULL ? colon : end;
	uint64_t column = 1;

	spec->text = text;
	spec->name_len = (size_t)(name_end - text);
	spec->kind = agg_lookup(text, spec->name_len, &spec->params);
	if (spec->kind == NULL)
		return SPEC_UNKNOWN_AGGREGATE;
	spec->column_name = NULL;
	spec->column_name_len = 0;
	if (colon != NULL) {
		const char *name = colon + 1;
		size_t len = (size_t)(end - name);

		if (len == 0)
			return SPEC_BAD_COLUMN;
		if (strspn(name, "0123456789") >= len) {
			if (parse_count(name, len, SIZE_MAX / 2, &column) != 0)
				return SPEC_BAD_COLUMN;
		} else {
			spec->column_name = name;
			spec->column_name_len = len;
			column = 0;
		}
	}
	spec->column = (size_t)column;
	spec->has_window = at != NULL;
	if (at != NULL && window_parse(at + 1, len - (size_t)(at - text) - 1, &spec->window) != 0)
		return SPEC_BAD_WINDOW;
	return SPEC_OK;
}
