/*
 * pipeline.h: from input records to result records.
 *
 * The pipeline reads records (blank-separated lines, or delimited records through
 * csvread), keeps the fields the aggregates need, turns each into a value once per
 * record, moves every aggregate's window one record on and writes the results.  It
 * prints nothing else and never exits: what went wrong comes back in a struct
 * pipeline_report for the command-line layer to word.
 */
#ifndef SWAG_PIPELINE_H
#define SWAG_PIPELINE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "output.h"
#include "record.h"
#include "spec.h"
#include "timestamp.h"

struct pipeline_config {
	struct agg_spec *specs;		/* every spec's window is set; named columns
					   are resolved against the header */
	size_t spec_count;
	char input_delimiter;		/* -d/-c, or 0 for runs of blanks */
	char output_delimiter;
	bool header;			/* -H: the first record names the columns */
	bool append;			/* -a: the input record, then the results */
	bool skip_comments;		/* -C */
	bool strict;			/* the first bad input stops the run */
	bool no_quotes;			/* --no-quotes: no quoting, in or out */
	int precision;			/* -p, or -1 for the shortest form */
	bool blank_output;		/* blanks separate the output fields, and it
					   is not TSV (swag(1), OUTPUT) */
	const char *null_text;		/* what a null result prints as */
	size_t null_len;
	const struct field *na_texts;	/* field texts that mean "missing" */
	size_t na_count;
	uint64_t step;			/* -s: write every step-th record's results,
					   counted per key */
	int64_t bucket;			/* -s DURATION: one result record per bucket
					   of this many nanoseconds, or 0 */
	bool has_time;			/* -t: records carry timestamps */
	struct column_ref time_column;
	enum epoch_unit epoch_unit;	/* --epoch-unit's, or EPOCH_SECONDS */
	bool epoch_unit_given;		/* --epoch-unit: else the first epoch read sets
					   the unit */
	int year;			/* --year: syslog dates' year, or 0 */
	bool has_group;			/* -g: windows per key */
	struct column_ref group_column;
	uint64_t hash_seed;		/* seeds the key table against flooding */
	const volatile sig_atomic_t *stop; /* a signal handler's flag, or NULL: once it
					   is nonzero the run ends at the next record
					   boundary with PIPELINE_STOPPED */
	bool exits;			/* the process exits after the run: the keys'
					   windows are left to the exit (pipeline_run) */
};

/* The kinds of bad input that are counted (or, with --strict, fatal). */
enum problem_kind {
	PROBLEM_NOT_NUMBER,	/* a numeric aggregate's field is not a number */
	PROBLEM_SHORT_RECORD,	/* a record has too few fields for a column */
	PROBLEM_BAD_TIMESTAMP,	/* a timestamp that cannot be read */
	PROBLEM_TIME_BACKWARDS,	/* a timestamp older than the newest seen */
	PROBLEM_EPOCH_UNIT,	/* an epoch above 1e11 s in the run's unit: probably in
				   another (a warning only, never fatal) */
	PROBLEM_KINDS
};

struct problem {
	uint64_t count;
	const char *first_input;	/* the input's name (pipeline_input), or NULL */
	uint64_t first_line;
	size_t first_column;
};

/*
 * One input: a descriptor open for reading, and the name messages give it (the FILE
 * argument), or NULL when standard input is the only input and messages name none.
 */
struct pipeline_input {
	const char *name;
	int fd;
};

enum pipeline_status {
	PIPELINE_OK,
	PIPELINE_BAD_INPUT,	/* --strict met a problem: see failed_* */
	PIPELINE_NO_TIMESTAMP,	/* before any timestamp, one that cannot be read, or a
				   record too short to have it: see failed_* */
	PIPELINE_MALFORMED_CSV,	/* --strict: bad quoting at failed_line, failed_column */
	PIPELINE_OPEN_QUOTE,	/* a quoted field opened at failed_line never closed */
	PIPELINE_UTF16,		/* the input is UTF-16 */
	PIPELINE_UNKNOWN_COLUMN, /* failed_column_name is no column of the header */
	PIPELINE_HEADER_MISMATCH, /* with -a, an input's header is not the first's */
	PIPELINE_GZIP_TRUNCATED, /* gzip input ends inside a member */
	PIPELINE_GZIP_CORRUPT,	/* gzip input that zlib cannot inflate */
	PIPELINE_READ_ERROR,	/* errno in error_number */
	PIPELINE_WRITE_ERROR,	/* errno in error_number */
	PIPELINE_NO_MEMORY,
	PIPELINE_STOPPED	/* *config->stop was set: every result so far is written */
};

#define PIPELINE_QUOTE_MAX 64

struct pipeline_report {
	struct problem problems[PROBLEM_KINDS];
	int error_number;
	/* With any status but PIPELINE_OK: the input where the run ended (its name). */
	const char *failed_input;
	/* With PIPELINE_HEADER_MISMATCH: the name of the input whose header is written. */
	const char *first_input;
	/* With PIPELINE_BAD_INPUT: the problem, where, and the start of the field. */
	enum problem_kind failed_kind;
	uint64_t failed_line;
	size_t failed_column;
	size_t failed_field_count;		/* fields the short record had */
	char failed_text[PIPELINE_QUOTE_MAX];
	size_t failed_text_len;			/* may be less than the field's length */
	bool failed_text_cut;			/* the field was longer */
	bool failed_after_idle;			/* a timestamp gone backwards is behind
						   the end of a bucket that -s wrote while
						   the input was idle */
	/* With PIPELINE_UNKNOWN_COLUMN: the name, and the header's names,
	   ", "-separated (header_names is the caller's to free). */
	const char *failed_column_name;
	size_t failed_column_name_len;
	char *header_names;
	/* The unit of epoch timestamps; the input and line of the first timestamp, when
	   it was an epoch and set the unit (line 0 when none did: --epoch-unit's, given
	   when unit_forced, or seconds). */
	enum epoch_unit epoch_unit;
	bool epoch_unit_forced;
	const char *epoch_unit_input;
	uint64_t epoch_unit_line;
};

/*
 * Writes text[0, len) to dst as a message shows a field: a backslash doubled, a byte
 * below 0x20 or 0x7f as \xHH, others as they are; at most PIPELINE_ESCAPED(len)
 * bytes, no terminating NUL.  Returns the bytes written.
 */
#define PIPELINE_ESCAPED(len) (4 * (len))
size_t pipeline_escape(char *dst, const char *text, size_t len);

/*
 * The bytes of text[0, len) a message shows when it shows at most max of them: len,
 * or max or fewer, so as not to cut a UTF-8 character (at most 3 fewer).
 */
size_t pipeline_cut(const char *text, size_t len, size_t max);

/*
 * Reads records from inputs[0, count), each in turn to its end, writing one result
 * record per data record (every config->step-th), or per bucket and key with
 * config->bucket, to out, and flushing out whenever the input would block.  Each
 * input is read as one of its own (its byte-order mark, gzip compression, last line,
 * open quote, header, line numbers); only the windows and the keys carry on from one
 * to the next (swag(1), FILES).  Fills *report and returns what ended the run;
 * results for every record before a fatal problem have been handed to out, which the
 * caller flushes.  The descriptors stay open.  With config->exits, the key table and
 * every key's windows are not freed but left reachable (pipeline_left_keys) to the
 * process's exit, but in an AddressSanitizer build.
 */
enum pipeline_status pipeline_run(const struct pipeline_config *config,
    const struct pipeline_input *inputs, size_t count, struct output *out,
    struct pipeline_report *report);

#endif /* SWAG_PIPELINE_H */
