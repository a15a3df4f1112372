/*
 * spec.h: parsing what the user asks for on the command line: aggregate specs
 * (AGG[:COLUMN][@WINDOW]) and window sizes.
 */
#ifndef SWAG_SPEC_H
#define SWAG_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agg.h"

/* The largest row window: far beyond any memory, small enough to count in. */
#define WINDOW_ROWS_MAX (UINT64_C(1) << 62)

/*
 * A cumulative window (@all, -w all): a row window that no input fills, which every
 * aggregate knows by agg_params.cumulative and keeps in the memory its result needs.
 */
#define WINDOW_ROWS_ALL UINT64_MAX

/*
 * A window's extent: the last rows records, or the last nanos nanoseconds, or every
 * record (rows WINDOW_ROWS_ALL).
 */
struct window_size {
	uint64_t rows;		/* 0 for a time window */
	int64_t nanos;		/* 0 for a row window */
};

/*
 * How the first input's header took a column written as a number: a number is a
 * header's name when the header has a field of that text, and stays a name, or a
 * number, in every input after it (swag(1), -H).
 */
enum column_taken {
	COLUMN_NOT_TAKEN,	/* no header yet */
	COLUMN_TAKEN_AS_NAME,
	COLUMN_TAKEN_AS_NUMBER,
};

/*
 * A column as the user named it: a field number, counted from the first field or
 * (from_end) from the last, or a header name.  With -H a number is a name too when
 * the header has a field of that text (swag(1), DESCRIPTION): text keeps it.
 */
struct column_ref {
	size_t number;		/* 1-based; 0 while a name waits for the header */
	bool from_end;		/* number counts from the last field: -1 is the last */
	const char *name;	/* NULL for a number */
	size_t name_len;
	bool digits;		/* the name is digits, or a minus and digits, that make
				   no field number (0, -0, too large): a header's name
				   with -H, else no column at all */
	const char *text;	/* the column as written, number or name */
	size_t text_len;
	enum column_taken taken;	/* with -H, for a number (set by the run) */
};

/* One aggregate as the user asked for it. */
struct agg_spec {
	const char *text;		/* the argument as written */
	size_t name_len;		/* text[0, name_len) is the aggregate's name */
	const struct agg_kind *kind;
	struct agg_params params;
	struct column_ref column;	/* field 1 (text NULL) when not given; with -H,
					   number and from_end as the header resolves it */
	size_t window_offset;		/* text + window_offset is "@WINDOW", if given */
	bool has_window;		/* @WINDOW was given */
	struct window_size window;
};

enum spec_status {
	SPEC_OK,
	SPEC_UNKNOWN_AGGREGATE,	/* the name before ':' and '@' is not shaped like an
				   aggregate's: the argument is a file */
	SPEC_BAD_PERCENTILE,	/* p followed by a number that is no percentile (p101) */
	SPEC_BAD_COLUMN,	/* the text after ':' is empty */
	SPEC_BAD_WINDOW		/* the text after the last '@' is not a window */
};

/*
 * Parses text, AGG[:COLUMN][@WINDOW], split at its first ':' and its last '@', into
 * *spec (which keeps pointers into text).  A COLUMN of digits only is a field
 * number, a minus and digits one counted from the end; any other is a header name,
 * left for the caller to look up.  Returns SPEC_OK or what is wrong.
 */
enum spec_status spec_parse(const char *text, struct agg_spec *spec);

/*
 * Parses a window size: a row count from 1 to WINDOW_ROWS_MAX in plain digits, a
 * duration with a unit (250ms, 30s, 1.5m, 2h, 1d), or "all" (WINDOW_ROWS_ALL).
 * Returns 0, or -1 when text is no window.
 */
int window_parse(const char *text, size_t len, struct window_size *window);

/*
 * Parses a column: all digits make a field number from 1, a minus and digits one
 * counted from the last field (-1 the last), anything else a header name.  Returns 0;
 * 1 for digits that make no field number (0, -0, one past SIZE_MAX / 2), taken as a
 * name (column->digits), which only a header can resolve; or -1 for an empty text.
 */
int column_parse(const char *text, size_t len, struct column_ref *column);

/*
 * Parses a positive integer from 1 to max in plain digits (no sign, no blanks).
 * Returns 0, or -1 when text is not one.
 */
int parse_count(const char *text, size_t len, uint64_t max, uint64_t *value);

#endif /* SWAG_SPEC_H */
