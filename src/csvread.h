/*
 * csvread.h: delimited records (CSV, TSV, any delimiter) through libcsv.
 *
 * The caller feeds bytes in blocks of any size, and the reader hands each complete
 * record to a callback, with its fields and the physical line where it starts.  The
 * same input gives the same records whatever the block sizes, a CR and its LF in
 * different blocks included.
 *
 * libcsv parses every record that holds a quote character, or a CR inside a line;
 * any other line is split on the delimiter directly, into exactly the fields libcsv
 * would give (blanks around a field trimmed, a blank line no record, a CR before the
 * LF dropped), by split.h's split_delimited.  Split this way, swag -c -H -w 1000 avg
 * over a 5-column CSV costs about 900 instructions a record, against about 2,900
 * through libcsv (callgrind).
 * tests/fuzz/fuzz_csvread.c and the block-size tests compare the two on every input.
 * With no_quotes (--no-quotes) there is no quoting and libcsv is not used: every line
 * is split directly, the start of one whose LF has not come yet held until it does.
 * Around libcsv this module adds what it has no hook for: the line where each record
 * starts (quoted fields may hold line ends), the skipping of comment lines only where
 * a record begins, and the error for a quote still open at the end of the input,
 * which lax libcsv would silently fold the rest of the file into.
 */
#ifndef SWAG_CSVREAD_H
#define SWAG_CSVREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"

enum csvread_status {
	CSVREAD_OK = 0,
	CSVREAD_STOPPED,	/* the record callback asked to stop */
	CSVREAD_MALFORMED,	/* --strict: bad quoting at error_line, error_column */
	CSVREAD_OPEN_QUOTE,	/* the input ended inside a quoted field opened at error_line */
	CSVREAD_NO_MEMORY
};

struct csvread_options {
	char delimiter;
	bool strict;		/* libcsv's strict mode: bad quoting is an error */
	bool skip_comments;	/* -C: skip lines that begin a record with '#' after blanks */
	/*
	 * Fields numbered above keep_fields are counted, not copied (no aggregate reads
	 * them), unless keep_all is set (-a writes them back, a header names them).
	 */
	size_t keep_fields;
	bool keep_all;
	/*
	 * Bit i-1 set: field i (up to 64) is not copied either, unless keep_all is set
	 * (fields that nothing reads, below one that something does).
	 */
	uint64_t skip_fields;
	/*
	 * --no-quotes: a quote is an ordinary byte, and every line (but a comment or a
	 * line of blanks) is a record split at every delimiter, with the blanks around
	 * its fields trimmed and a CR before its LF dropped, as split_delimited splits
	 * lines; libcsv is not used.
	 */
	bool no_quotes;
	/* Every record through libcsv, none split directly: for the tests that compare. */
	bool libcsv_only;
	/*
	 * Called with each record; returns 0 to go on, nonzero to stop (the feed then
	 * returns CSVREAD_STOPPED).  The record's fields are valid during the call only,
	 * unless record->in_input says they point into the bytes fed.
	 */
	int (*on_record)(void *context, const struct record *record);
	void *context;
};

struct csvread;

/* Makes a reader; returns NULL when memory is short. */
struct csvread *csvread_create(const struct csvread_options *options);

void csvread_destroy(struct csvread *reader);

/* Changes which fields are kept, e.g. once a header has named the columns read. */
void csvread_keep(struct csvread *reader, size_t keep_fields, bool keep_all,
    uint64_t skip_fields);

/* Parses len more bytes of input.  Returns a csvread_status. */
enum csvread_status csvread_feed(struct csvread *reader, const char *bytes, size_t len);

/* Ends the input: the last record may lack a line end.  Returns a csvread_status. */
enum csvread_status csvread_finish(struct csvread *reader);

/* Where the error of the last CSVREAD_MALFORMED or CSVREAD_OPEN_QUOTE was. */
uint64_t csvread_error_line(const struct csvread *reader);
size_t csvread_error_column(const struct csvread *reader);

#endif /* SWAG_CSVREAD_H */
