/*
 * pipeline.c: records in, results out (see pipeline.h).
 *
 * One loop serves every input and every option.  The reader hands out runs of whole
 * lines; the splitter of the input's kind (runs of blanks here, csvread for delimited
 * text) fills a batch of records with the fields that something reads; and the batch
 * goes through stages, each a tight loop over its records: the values of the columns
 * read, the timestamps (-t), each record's key and whether its results are written
 * (-g, -s), the windows moved, and the result records written (-a writing the input
 * record back); with -s DURATION one stage, the buckets, moves the windows and writes
 * a record per bucket and key (swag(1), BUCKETS).  Stages over a batch let the
 * processor overlap the records' work, where one record at a time is a chain of
 * dependent steps (parse, window, divide, print) that leaves it waiting: swag -w 1000
 * avg took 118 ms a record at a time, 84 ms in batches, at the same instruction count.
 *
 * A batch holds only records already read: it is run when it is full and at the end
 * of every run of lines, before the reader may wait for more, so no result waits for
 * input that has not arrived.  A result's text (mode's) stays valid until its window's
 * next move, and each window moves once a batch (a record before any timestamp only
 * reads results, from a window that is still empty).
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <time.h>

#include "agg.h"
#include "blank.h"
#include "csvread.h"
#include "keytable.h"
#include "mem.h"
#include "numparse_short.h"
#include "numprint.h"
#include "pipeline.h"
#include "reader.h"
#include "record.h"
#include "split.h"
#include "timestamp.h"
#include "window.h"
#include "work.h"

/* The steps of every record, forced inline into their stage's loop. */
#define PIPELINE_HOT static inline __attribute__((always_inline))

/*
 * The records of a batch at the most: no more than an agg_index names (the lists of
 * each key's records, which are the index lists of its moves).  With -g
 * each key's windows move once a batch, so the larger the batch, the more records each
 * move's fixed cost is spread over.
 */
#define BATCH_MAX 1024
_Static_assert(BATCH_MAX <= AGG_INDEX_MAX, "an agg_index names every record of a batch");
_Static_assert(BATCH_MAX <= WINDOW_STEPS_MAX, "one call moves a key over a whole batch");

/* One column that some aggregate reads. */
struct column {
	size_t number;			/* 1-based */
	bool from_end;			/* number counts from the last field */
	bool numeric;			/* a numeric aggregate reads it */
};

/*
 * The least room for a group's key: a key that fits is written out with one copy of
 * this constant size, not memcpy's call for its length (40 instructions less a record
 * with -g, callgrind).
 */
#define GROUP_KEY_ROOM OUTPUT_SHORT_MAX
_Static_assert(AGG_TEXT_READABLE >= OUTPUT_SHORT_MAX, "a short text result goes out whole");

/*
 * One key's windows (the only one without -g).  With -g the groups are also in a
 * list from the least to the most recently seen, so that those whose windows have
 * all emptied with time can be found at its head and reclaimed.
 */
struct group {
	struct window_set windows;
	uint64_t records;		/* data records with this key, counted for -s N */
	int64_t newest;			/* the timestamp of its last record */
	struct group *older, *newer;
	size_t key_len;
	/* Its records in the current batch (batch_serial): its list there ends here. */
	uint64_t batch_serial;
	agg_index *batch_end;
	uint64_t bucket_serial;		/* -s DURATION: the bucket whose list holds it */
	int64_t bucket_newest;		/* ... and its newest record a bucket has taken
					   (newest may be a later record of the batch) */
	char *key;			/* the key's text, in at least GROUP_KEY_ROOM
					   bytes (zeros after it), in the group's own
					   block, after the struct and its memos
					   (group_new) */
};

/*
 * With batch.memos_kept, a key's number_memo for each aggregate, right after its
 * struct group (the single group's are the batch's).
 */
static inline struct number_memo *
group_memos(const struct group *g)
{
	return (struct number_memo *)(void *)(g + 1);
}
_Static_assert(sizeof(struct group) % _Alignof(struct number_memo) == 0,
    "a group's memos follow it aligned");

/*
 * -s DURATION (swag(1), BUCKETS): the bucket [b, b + S) being filled, and the keys it
 * writes, in order: those still in a window from the bucket before, then those first
 * seen in it.  b is kept modulo 2^64 for the windows, and as seconds and nanoseconds
 * for printing (b may lie before the earliest int64_t nanosecond).
 */
struct bucket {
	int64_t span;			/* S in nanoseconds, or 0 without -s DURATION */
	int64_t span_sec;		/* S as seconds and nanoseconds */
	uint32_t span_nsec;
	int64_t origin;			/* b - origin is a multiple of S: a Monday for
					   weeks, else the epoch */
	int digits;			/* of a second's fraction, to write every b */
	bool open;			/* a bucket is being filled */
	uint64_t start;			/* b, modulo 2^64 */
	int64_t last;			/* b + S - 1, the latest time the bucket holds,
					   INT64_MAX when that lies past 2262: a time
					   is compared with it, as t - b modulo 2^64
					   wraps for a bucket that begins before 1677 */
	int64_t start_sec;		/* b, seconds toward the past ... */
	uint32_t start_nsec;		/* ... and nanoseconds */
	uint64_t serial;		/* counts the buckets, for group.bucket_serial */
	struct group **keys;		/* the keys the bucket writes */
	size_t key_count, key_cap;
	int64_t idle_time;		/* the newest timestamp when the timer last
					   saw a newer one ... */
	int64_t idle_since;		/* ... and the elapsed_clock then */
	int64_t seen_time;		/* the time at the timer's last look, or
					   INT64_MIN before the first */
	int64_t moved_time;		/* the bucket's end the timer last moved the
					   time to, or INT64_MIN */
};

/*
 * The records read and not yet run, and what each stage leaves of them.  A record's
 * fields are those up to the highest column read (all of them for a header, or for
 * -a on delimited input, which writes them back): fields[first[k], +count) for
 * record k, rec[k].fields pointing there once the batch is full.
 */
struct batch {
	size_t n;			/* records */
	size_t cap;			/* BATCH_MAX, or 1 (see above) */
	struct record rec[BATCH_MAX];
	size_t first[BATCH_MAX];
	struct field *fields;
	size_t field_len, field_cap;
	bool fields_held;		/* room was made for the whole batch's fields */
	char *texts;			/* copies of the texts of libcsv's records */
	size_t text_len, text_cap;
	struct agg_value *values;	/* column c of record k: values[c * BATCH_MAX + k] */
	int64_t times[BATCH_MAX];	/* the newest timestamp read up to record k */
	size_t untimed;			/* records before any readable timestamp */
	struct group *groups[BATCH_MAX];
	struct group *keys[BATCH_MAX];	/* with -g: the batch's keys, first come first */
	size_t key_count;
	agg_index (*lists)[BATCH_MAX];	/* with -g: lists[i], the records of keys[i], in
					   order, up to keys[i]->batch_end */
	uint64_t serial;		/* counts the batches, to tell a key's first record */
	unsigned char want[BATCH_MAX];	/* -s N: the record's results are written */
	struct agg_result *results;	/* spec i of record k: results[i * BATCH_MAX + k] */
	const struct agg_value **spec_values;	/* spec i: its column's values */
	struct agg_result **spec_results;	/* spec i: its results */
	bool memos_kept;		/* some aggregate's results repeat: every
					   key keeps a number_memo for each spec ... */
	unsigned char *repeats;		/* ... and those of spec i whose results
					   repeat (agg_kind.results_repeat) go
					   through it */
	struct number_memo *memos;	/* the single group's */
	struct number_memo memo_start;	/* with memos_kept: what a key's memos hold at first */
};

struct pipeline {
	const struct pipeline_config *config;
	struct output *out;
	struct pipeline_report *report;
	enum pipeline_status status;	/* what stopped the run, from a stage */
	struct column *columns;		/* the distinct columns read */
	size_t column_count;
	size_t max_column;		/* the largest field number anything reads */
	size_t keep;			/* the fields a record keeps: max_column, or all
					   ((size_t)-1: awaiting the header, or a column
					   from the end), when blank-separated lines are
					   split a field at a time (split_blank_fields);
					   else split_line finds up to keep in one pass */
	uint64_t unread;		/* bit i-1: field i, up to 64, is read by nothing,
					   so csvread need not copy it (csvread.h) */
	bool from_end;			/* a column counts from the last field: every
					   field is kept */
	size_t split_room;		/* ... and split_line finds that many at once */
	size_t time_column;		/* -t's field number, or 0 */
	bool time_from_end;		/* ... counted from the last field */
	enum column_taken time_taken;	/* ... a number as the first header took it */
	size_t group_column;		/* -g's field number, or 0 */
	bool group_from_end;
	enum column_taken group_taken;
	struct group single;		/* the windows without -g */
	struct keytable *groups;	/* with -g: key -> struct group */
	struct group *oldest, *newest;	/* with -g: the groups, least recent first */
	bool reclaim;			/* groups whose windows emptied are freed */
	uint64_t longest;		/* the longest reach of a window (window_reach) */
	int64_t longest_window;		/* the longest time window but an ewma's, whose
					   half-life holds no record: how long after a
					   key's last record its quiet buckets go on */
	bool have_time;			/* a timestamp has been read */
	int64_t time;			/* the newest timestamp read */
	enum epoch_unit epoch_unit;	/* the unit of epoch timestamps: --epoch-unit's,
					   else the one the first epoch read says */
	bool epoch_unit_set;		/* --epoch-unit was given, or a timestamp was read */
	bool first_time_epoch;		/* the first timestamp read was an epoch number */
	struct syslog_year syslog_year;	/* the year of syslog dates */
	struct epoch_words epoch_words;	/* the last epoch's first 8 bytes, read */
	struct timestamp_memo time_memo;	/* the last timestamp with a clock, read */
	bool awaiting_header;		/* -H and no record of this input read yet */
	const char *input_name;		/* the input being read (pipeline_input) */
	bool header_written;		/* the output header is out (from the first input) */
	const char *header_input;	/* the input it came from */
	struct field *header;		/* with -a, the first input's header, to which */
	size_t header_count;		/* every other input's must be equal: its fields */
	char *header_text;		/* and their texts, owned */
	bool quote_output;		/* delimited output: quote fields that need it */
	bool quote_numbers;		/* ... even numbers: the delimiter may be in one */
	bool null_quoted;		/* a null result alone in its record is "" */
	bool shortest;			/* numbers print shortest: no -p */
	uint64_t na_lengths;		/* the lengths of the --na texts (see is_na) */
	bool every_record;		/* every record's results are written, one key's
					   windows take them all: no steps stage */
	struct csvread *csv;		/* delimited input: its splitter */
	struct batch batch;
	struct bucket bucket;		/* -s DURATION */
};

/* True once a signal has asked the run to end (config->stop). */
static inline bool
stop_requested(const struct pipeline *p)
{
	return p->config->stop != NULL && *p->config->stop != 0;
}

/*
 * The idle hook of the reader: flushes what is written before input is awaited, then
 * returns the memory given up after a burst (mem_idle).
 */
static int
pipeline_idle(void *context)
{
	if (output_flush(context) != 0)
		return -1;
	mem_idle();
	return 0;
}
/*
 * Makes room for need more fields in the batch's field array.  Returns 0, or -1 when
 * memory is short.
 */
static int
batch_reserve(struct batch *b, size_t need)
{
	return mem_grow(&b->fields, &b->field_cap, b->field_len + need, sizeof(*b->fields),
	    256);
}

/*
 * Makes room for a whole batch of records of at most keep fields each, when that is
 * little, so that the fields do not move while the batch fills and each record can
 * point at its own at once; else the batch points them when it runs.  Returns 0, or
 * -1 when memory is short.
 */
static int
batch_hold_fields(struct batch *b, size_t keep)
{
	b->fields_held = keep <= 64;
	return b->fields_held ? batch_reserve(b, b->cap * keep) : 0;
}

/*
 * Splits line into fields at runs of blanks (spaces and TABs), as awk does, up to
 * field limit, appending them to the batch's field array.  Returns the number of
 * fields found, or -1 when memory is short.
 */
PIPELINE_HOT ptrdiff_t
split_blank_fields(struct batch *b, const char *line, size_t len, size_t limit)
{
	const char *s = line, *end = line + len;
	size_t n = 0;

	while (n < limit) {
		struct field field;

		if ((s = next_blank_field(s, end, &field)) == NULL)
			break;
		if (__builtin_expect(b->field_len == b->field_cap, 0) && batch_reserve(b, 1) != 0)
			return -1;
		b->fields[b->field_len++] = field;
		n++;
	}
	return (ptrdiff_t)n;
}
/* True when the field text is one that --na lists as missing (by default "-"). */
static bool
is_na_text(const struct pipeline_config *config, const char *text, size_t len)
{
	for (size_t i = 0; i < config->na_count; i++)
		if (config->na_texts[i].len == len && memcmp(config->na_texts[i].text, text, len) == 0)
			return true;
	return false;
}

/*
 * is_na_text, but most fields have a length that no missing text has: na_lengths, a
 * bit per length (the last for 63 and longer), tells them apart in one test, where
 * the call and its loop cost about 30 instructions a field (callgrind, -w 1000 avg).
 */
static inline bool
is_na(uint64_t na_lengths, const struct pipeline_config *config, const char *text,
    size_t len)
{
	return (na_lengths >> (len < 63 ? len : 63) & 1) != 0 &&
	    is_na_text(config, text, len);
}

/*
 * The position from 1 of column number in a record of count fields, counted from
 * its last field when from_end (-1 the last, as awk's $NF); past count (SIZE_MAX)
 * when the record is too short for it.
 */
static inline size_t
field_position(size_t number, bool from_end, size_t count)
{
	if (!from_end)
		return number;
	return number <= count ? count + 1 - number : SIZE_MAX;
}

/*
 * How a report names a column: its number, or for one counted from the end (where a
 * short record has no position for it) its negative number, as (size_t)0 - number.
 */
static inline size_t
report_column(size_t number, bool from_end)
{
	return from_end ? (size_t)0 - number : number;
}

/* Fills the report's failed_* with a problem that stops the run. */
static void
pipeline_fail(struct pipeline *p, enum problem_kind kind, uint64_t line, size_t column,
    const struct field *field, size_t field_count)
{
	struct pipeline_report *r = p->report;

	r->failed_kind = kind;
	r->failed_line = line;
	r->failed_column = column;
	r->failed_field_count = field_count;
	r->failed_text_len = 0;
	r->failed_text_cut = false;
	if (field != NULL) {
		size_t len = field->len;

		r->failed_text_cut = len > sizeof(r->failed_text);
		len = pipeline_cut(field->text, len, sizeof(r->failed_text));
		r->failed_text_len = len;
		memcpy(r->failed_text, field->text, len);
	}
}

/*
 * Counts a problem at line/column, or, with --strict, records it as the fatal one.
 * Returns true when the run must stop.
 */
static __attribute__((noinline)) bool
pipeline_problem(struct pipeline *p, enum problem_kind kind, uint64_t line, size_t column,
    const struct field *field, size_t field_count)
{
	struct problem *problem = &p->report->problems[kind];

	/*
	 * The first in the input: a batch's stages count in turn (the values', then the
	 * timestamps'), so a later stage may count an earlier line of the same input.
	 */
	if (problem->count++ == 0 || (problem->first_input == p->input_name &&
	    line < problem->first_line)) {
		problem->first_input = p->input_name;
		problem->first_line = line;
		problem->first_column = column;
	}
	if (!p->config->strict)
		return false;
	pipeline_fail(p, kind, line, column, field, field_count);
	p->status = PIPELINE_BAD_INPUT;
	return true;
}

/*
 * Points v at the field's text without surrounding blanks (a quoted CSV field keeps
 * them; a value is identified without).  Returns false when the field is missing:
 * empty, or an --na text.
 */
PIPELINE_HOT bool
field_value(const struct pipeline *p, const struct field *field, struct agg_value *v)
{
	const struct pipeline_config *config = p->config;

	/* A field split at blanks has none around it: the trimming is for delimited input. */
	if (config->input_delimiter == '\0') {
		v->text = field->text;
		v->text_len = field->len;
	} else {
		const char *text = field->text, *stop = text + field->len;

		trim_blanks(&text, &stop);
		v->text = text;
		v->text_len = (size_t)(stop - text);
	}
	return v->text_len > 0 && !is_na(p->na_lengths, config, v->text, v->text_len);
}

/*
 * Counts a record too short for column number (it has field_count fields; a blank
 * line, with none, is no problem: it keeps swag's output aligned with its input).
 * Returns false when --strict stops the run.
 */
static bool
short_record(struct pipeline *p, uint64_t line, size_t number, size_t field_count)
{
	return field_count == 0 ||
	    !pipeline_problem(p, PROBLEM_SHORT_RECORD, line, number, NULL, field_count);
}

/*
 * True when a CSV reader would not read text back as it is without quotes.  Where a
 * space separates the output, a TAB inside is quoted as the space is: to a reader of
 * blank-separated text either blank ends a field, and one that reads quotes (xargs,
 * Python's shlex) takes the quoted field whole, as it does one holding a space.
 */
static bool
needs_quotes(const struct pipeline *p, const char *text, size_t len)
{
	/* The characters that end a field there: the delimiter, and a TAB beside a space. */
	char delimiter = p->config->output_delimiter;
	char also = delimiter == ' ' ? '\t' : delimiter;

	if (len == 0)
		return false;
	if (is_blank(text[0]) || is_blank(text[len - 1]))
		return true;
	for (size_t i = 0; i < len; i++) {
		char c = text[i];

		if (c == delimiter || c == also || c == '"' || c == '\n' || c == '\r')
			return true;
	}
	return false;
}

/* Writes a text field, quoted as CSV where it needs it (delimited output only). */
static void
write_text(struct pipeline *p, const char *text, size_t len)
{
	struct output *out = p->out;

	if (!p->quote_output || !needs_quotes(p, text, len)) {
		output_write(out, text, len);
		return;
	}
	output_byte(out, '"');
	for (const char *end = text + len; text < end;) {
		const char *quote = memchr(text, '"', (size_t)(end - text));
		const char *stop = quote != NULL ? quote + 1 : end;

		output_write(out, text, (size_t)(stop - text));
		if (quote != NULL)
			output_byte(out, '"');
		text = stop;
	}
	output_byte(out, '"');
}

/* Writes a number that format_* has put at the end of the output buffer. */
PIPELINE_HOT void
commit_number(struct pipeline *p, char *buf, size_t len)
{
	if (!p->quote_numbers) {
		output_commit(p->out, len);
		return;
	}
	/* Rare: the delimiter is a character numbers use (-d . say); quote properly. */
	{
		char copy[NUMPRINT_FIXED_MAX];

		memcpy(copy, buf, len);
		write_text(p, copy, len);
	}
}

/*
 * Writes one result field to out (p->out); plain_numbers says that a number prints
 * shortest and unquoted (p->shortest, not p->quote_numbers).  A record loop reads both
 * once, where the output's stores would have them read again for every result.  memo,
 * when not NULL, is the column's number_memo, through which a number goes (printed
 * shortest, or at -p's precision), and a count.
 */
PIPELINE_HOT void
write_result_as(struct pipeline *p, struct output *out, const struct agg_result *result,
    bool plain_numbers, struct number_memo *memo)
{
	const struct pipeline_config *config = p->config;
	char *buf;

	/* The common case first: a number, printed shortest. */
	if (result->kind == AGG_RESULT_NUMBER && plain_numbers) {
		buf = output_reserve(out, NUMPRINT_SHORTEST_MAX);
		output_commit(out, memo != NULL ? format_number_memo(result->number, buf, memo) :
		    format_number(result->number, buf));
		return;
	}
	switch (result->kind) {
	case AGG_RESULT_NULL:
		if (p->null_quoted)
			output_write(out, "\"\"", 2);
		else
			write_text(p, config->null_text, config->null_len);
		break;
	case AGG_RESULT_NUMBER:
		if (p->shortest) {
			buf = output_reserve(out, NUMPRINT_SHORTEST_MAX);
			commit_number(p, buf, format_number(result->number, buf));
		} else {
			buf = output_reserve(out, NUMPRINT_FIXED_MAX);
			commit_number(p, buf, memo != NULL ?
			    format_fixed_memo(result->number, config->precision, buf, memo) :
			    format_fixed(result->number, config->precision, buf));
		}
		break;
	case AGG_RESULT_COUNT:
		buf = output_reserve(out, NUMPRINT_SHORTEST_MAX);
		commit_number(p, buf, memo != NULL ? format_uint_memo(result->count, buf, memo) :
		    format_uint(result->count, buf));
		break;
	case AGG_RESULT_TEXT:
		/* A short one in one fixed copy: AGG_TEXT_READABLE bytes are readable. */
		if (result->text_len <= OUTPUT_SHORT_MAX && !p->quote_output)
			output_write_short(out, result->text, result->text_len);
		else
			write_text(p, result->text, result->text_len);
		break;
	}
}

/* Writes one result field. */
PIPELINE_HOT void
write_result(struct pipeline *p, const struct agg_result *result)
{
	write_result_as(p, p->out, result, p->shortest && !p->quote_numbers, NULL);
}

/*
 * Writes a delimited input's field (-a) or header name: as write_text, and an empty one
 * as "" where blanks separate the output (swag(1), OUTPUT), which awk and swag itself
 * read as runs, so that the columns after it stay in place; "" reads back as CSV's
 * empty field.
 */
static void
write_input_field(struct pipeline *p, const char *text, size_t len)
{
	if (len == 0 && p->config->blank_output) {
		output_write(p->out, "\"\"", 2);
		return;
	}
	write_text(p, text, len);
}

/* write_input_record's delimited record, its fields re-quoted; out of line. */
static __attribute__((noinline)) void
write_input_fields(struct pipeline *p, const struct record *record)
{
	for (size_t i = 0; i < record->field_count; i++) {
		if (i > 0)
			output_byte(p->out, p->config->output_delimiter);
		write_input_field(p, record->fields[i].text, record->fields[i].len);
	}
}

/* Writes the input record for -a: the line as it came, or its fields re-quoted. */
static void
write_input_record(struct pipeline *p, const struct record *record)
{
	if (record->raw != NULL)
		output_write(p->out, record->raw, record->raw_len);
	else
		write_input_fields(p, record);
}

/*
 * Stops the run at a record before any timestamp was read whose timestamp field cannot
 * be read (kind PROBLEM_BAD_TIMESTAMP) or is missing from a short record
 * (PROBLEM_SHORT_RECORD): the -t column is probably wrong (swag(1), TIMESTAMPS).
 * Returns false.
 */
static bool
no_first_timestamp(struct pipeline *p, enum problem_kind kind, const struct record *record,
    size_t column, const struct field *field)
{
	pipeline_fail(p, kind, record->line, column, field, record->field_count);
	p->status = PIPELINE_NO_TIMESTAMP;
	return false;
}

/*
 * The timestamp of a record that the common path did not take: the first one read,
 * one that could not be read (ok false; then the first epoch read may still set the
 * unit and read it), or one that went backwards.  field is the timestamp's field, v
 * its text, t what was read, and taken the fields the timestamp took (the message then
 * quotes them with a space between).  Counts the problem; returns false when the run
 * stops (--strict, or no timestamp before this unreadable one).  Out of line: the
 * common record never comes here.
 */
static __attribute__((noinline)) bool
time_problem(struct pipeline *p, const struct record *record, size_t column,
    const struct field *field, size_t taken, const struct agg_value *v, bool ok, int64_t t)
{
	struct field joined_field;
	/* What a message quotes, and the byte after it, which pipeline_fail looks at. */
	char joined[PIPELINE_QUOTE_MAX + 1];
	enum epoch_unit unit;

	/*
	 * The first timestamp read sets the unit of epochs (swag(1), TIMESTAMPS): an
	 * epoch's by its size, any other form leaves --epoch-unit's or seconds.  It comes
	 * here, being the first.
	 */
	if (!p->have_time) {
		bool epoch = timestamp_epoch_unit(v->text, v->text_len, &unit);

		if (epoch && !p->epoch_unit_set) {
			p->report->epoch_unit_input = p->input_name;
			p->report->epoch_unit_line = record->line;
			if (unit != p->epoch_unit) {
				p->epoch_unit = unit;
				/* What the epoch reader kept is in the old unit. */
				p->epoch_words = EPOCH_WORDS_START;
				p->report->epoch_unit = unit;
				ok = parse_timestamp(v->text, v->text_len, unit, &t);
			}
		}
		if (ok) {
			p->epoch_unit_set = true;
			p->first_time_epoch = epoch;
		}
	}
	if (ok && (!p->have_time || t >= p->time)) {
		p->time = t;
		p->have_time = true;
		return true;
	}
	if (taken > 1) {
		size_t n = 0, len;

		joined_field.text = joined;
		joined_field.len = 0;	/* quoted up to sizeof(joined) */
		for (size_t i = 0; i < taken; i++) {
			if (i > 0 && n < sizeof(joined))
				joined[n++] = ' ';
			len = field[i].len < sizeof(joined) - n ? field[i].len : sizeof(joined) - n;
			memcpy(joined + n, field[i].text, len);
			n += len;
			joined_field.len += (i > 0) + field[i].len;
		}
		field = &joined_field;
	}
	if (!ok) {
		/* An epoch beyond 1e11 s in the run's unit is probably in another unit. */
		if (epoch_exceeds_1e11_seconds(v->text, v->text_len, p->epoch_unit)) {
			struct problem *hint = &p->report->problems[PROBLEM_EPOCH_UNIT];

			if (hint->count++ == 0) {
				hint->first_input = p->input_name;
				hint->first_line = record->line;
				hint->first_column = column;
			}
		}
		if (!p->have_time)
			return no_first_timestamp(p, PROBLEM_BAD_TIMESTAMP, record, column, field);
		return !pipeline_problem(p, PROBLEM_BAD_TIMESTAMP, record->line, column,
		    field, record->field_count);
	}
	/*
	 * Behind the time that the idle timer moved on to a bucket's end (its message
	 * says so; a record read since may have brought that very time).
	 */
	p->report->failed_after_idle = p->bucket.span > 0 && p->time == p->bucket.moved_time;
	return !pipeline_problem(p, PROBLEM_TIME_BACKWARDS, record->line, column,
	    field, record->field_count);
}

/*
 * Reads the record's timestamp into p->time: the newest seen when the field is
 * missing, unreadable, or older than that.  Returns false when the run stops: --strict,
 * or a record before any timestamp whose timestamp field cannot be read.
 */
PIPELINE_HOT bool
pipeline_read_time(struct pipeline *p, const struct record *record)
{
	const struct field *field;
	struct field trimmed;
	struct agg_value v;
	size_t taken, kept, column = p->time_column;
	int64_t t = 0;
	bool ok;

	if (__builtin_expect(p->time_from_end, 0))
		column = field_position(column, true, record->field_count);
	if (column > record->field_count) {
		/* A blank line is none of the timestamps' business; a short record first is. */
		if (!p->have_time && record->field_count > 0)
			return no_first_timestamp(p, PROBLEM_SHORT_RECORD, record,
			    report_column(p->time_column, p->time_from_end), NULL);
		/* Counted once a record: by the values stage when it lacks a value's too. */
		for (size_t i = 0; i < p->column_count; i++)
			if (p->columns[i].number > record->field_count)
				return true;
		return short_record(p, record->line,
		    report_column(p->time_column, p->time_from_end), record->field_count);
	}
	field = &record->fields[column - 1];
	if (!field_value(p, field, &v))
		return true;
	if (timestamp_read_epoch_words(v.text, v.text_len, p->epoch_unit, &p->epoch_words,
	    &t)) {
		ok = true;
		taken = 1;
	} else if (p->csv == NULL) {
		/*
		 * In blank-separated input a timestamp may span the fields after its own (a
		 * date, a time and a zone; a syslog date), as many as the record keeps.
		 */
		kept = record->field_count < p->keep ? record->field_count : p->keep;
		ok = read_timestamp_fields_memo(field, kept - (column - 1), p->epoch_unit,
		    &p->syslog_year, &p->time_memo, &t, &taken);
	} else {
		trimmed.text = v.text;
		trimmed.len = v.text_len;
		ok = read_timestamp_fields_memo(&trimmed, 1, p->epoch_unit, &p->syslog_year,
		    &p->time_memo, &t, &taken);
	}
	if (__builtin_expect(ok && p->have_time && t >= p->time, 1)) {
		p->time = t;
		return true;
	}
	return time_problem(p, record, column, field, taken, &v, ok, t);
}

/* Frees a group and its windows. */
static void
group_free(struct group *g)
{
	window_set_free(&g->windows);
	mem_free(g);
}

/* Unlinks g from the list of groups. */
static void
group_unlink(struct pipeline *p, struct group *g)
{
	if (g->older != NULL)
		g->older->newer = g->newer;
	else
		p->oldest = g->newer;
	if (g->newer != NULL)
		g->newer->older = g->older;
	else
		p->newest = g->older;
	g->older = g->newer = NULL;
}

/* Links g as the most recently seen group. */
static void
group_link_newest(struct pipeline *p, struct group *g)
{
	g->older = p->newest;
	g->newer = NULL;
	if (p->newest != NULL)
		p->newest->newer = g;
	else
		p->oldest = g;
	p->newest = g;
}

/*
 * Makes the group of a key that the table does not hold, and links it as the most
 * recently seen.  Returns NULL when memory is short.  Out of line: a key is new once.
 */
static __attribute__((noinline)) struct group *
group_new(struct pipeline *p, const char *key, size_t len)
{
	size_t room = len > GROUP_KEY_ROOM ? len : GROUP_KEY_ROOM;
	/* No overflow: the batch's own memos were allocated (pipeline_init). */
	size_t memos = (p->batch.memos_kept ? p->config->spec_count : 0) *
	    sizeof(struct number_memo);
	struct group *g;

	if (room > SIZE_MAX - sizeof(*g) - memos ||
	    (g = mem_realloc(NULL, sizeof(*g) + memos + room)) == NULL)
		return NULL;
	memset(g, 0, sizeof(*g));
	for (size_t i = 0; i < memos / sizeof(struct number_memo); i++)
		group_memos(g)[i] = p->batch.memo_start;
	g->key = (char *)(g + 1) + memos;
	memset(g->key, 0, GROUP_KEY_ROOM);
	memcpy(g->key, key, len);
	g->key_len = len;
	if (window_set_init(&g->windows, p->config->specs, p->config->spec_count) != 0 ||
	    keytable_insert(p->groups, g->key, len, g) != 0) {
		group_free(g);
		return NULL;
	}
	group_link_newest(p, g);
	return g;
}

/*
 * Finds the group of the record's key, making it when it is new.  The key is the
 * field's exact text (without surrounding blanks); a missing field is the empty key.
 * column and from_end are -g's field (p->group_column and p->group_from_end), trim
 * whether fields are trimmed (delimited input: a field split at blanks has none
 * around it; a record's already trimmed, record.trimmed, are not again), in the
 * caller's registers.  Returns NULL when memory is short.
 */
static inline __attribute__((always_inline)) struct group *
pipeline_group(struct pipeline *p, const struct record *record, size_t column,
    bool from_end, bool trim)
{
	const char *key = "";
	size_t len = 0, count = record->field_count;
	struct group *g;

	column = field_position(column, from_end, count);
	if (column <= count) {
		key = record->fields[column - 1].text;
		len = record->fields[column - 1].len;
		if (trim && !record->trimmed) {
			const char *stop = key + len;

			trim_blanks(&key, &stop);
			len = (size_t)(stop - key);
		}
	}
	if (__builtin_expect((g = keytable_find(p->groups, key, len)) != NULL, 1))
		return g;
	return group_new(p, key, len);
}

/*
 * Frees the groups whose windows are all time windows and have all emptied: every
 * record of theirs is older than the longest window, so the key's next record would
 * find them empty anyway (but for one that the bucket being filled is to write).  A
 * long tail -f over ever-new keys thus keeps only the live ones.
 */
static void
pipeline_reclaim(struct pipeline *p)
{
	while (p->oldest != NULL && p->oldest != p->newest &&
	    (uint64_t)p->time - (uint64_t)p->oldest->newest >= p->longest &&
	    !(p->bucket.serial != 0 && p->oldest->bucket_serial == p->bucket.serial)) {
		struct group *g = p->oldest;

		group_unlink(p, g);
		keytable_remove(p->groups, g->key, g->key_len);
		group_free(g);
	}
}

/*
 * Whether a numeric column before columns[i] reads field number of a record of count
 * fields: a column from the end can land on a field that one counted from the start
 * reads too (sum:2 sum:-1 on a line of two), and a field that is not a number is one
 * problem, counted once (swag(1), BAD INPUT), as the same column given twice is.
 */
static bool
read_before(const struct column *columns, size_t i, size_t number, size_t count)
{
	for (size_t j = 0; j < i; j++) {
		size_t at = columns[j].from_end ? count + 1 - columns[j].number :
		    columns[j].number;

		if (columns[j].numeric && columns[j].number <= count && at == number)
			return true;
	}
	return false;
}

/*
 * The values stage: turns the fields of records [0, n) into the value of every column
 * read, trimming the blanks around each when trim says (delimited input: a field split
 * at blanks has none around it) and its record's fields are not trimmed already (a
 * record from libcsv, record.trimmed).  Returns n, or the record at which --strict
 * stops the run.
 */
PIPELINE_HOT size_t
stage_values_of(struct pipeline *p, size_t n, size_t column_count, bool from_end,
    bool trim)
{
	const struct pipeline_config *config = p->config;
	const struct column *columns = p->columns;
	struct batch *b = &p->batch;
	struct agg_value *values = b->values;
	/*
	 * In locals: a value's stores could alias these fields in memory, which would
	 * then be read again for every field.
	 */
	size_t first_number = columns[0].number;
	uint64_t na_lengths = p->na_lengths;
	bool first_numeric = columns[0].numeric;

	for (size_t k = 0; k < n; k++) {
		const struct field *fields = b->rec[k].fields;
		size_t count = b->rec[k].field_count;
		bool short_counted = false;

		for (size_t i = 0; i < column_count; i++) {
			size_t number = column_count == 1 ? first_number : columns[i].number;
			bool numeric = column_count == 1 ? first_numeric : columns[i].numeric;
			struct agg_value *v = &values[i * BATCH_MAX + k];
			const char *text;
			size_t len;

			/* A compile-time false for commands without a column from the end. */
			bool end = from_end && (column_count == 1 ? columns[0].from_end :
			    columns[i].from_end);

			v->has_text = v->has_number = false;
			if (number > count) {
				/* Counted once per record, however many columns it lacks. */
				if (!short_counted) {
					short_counted = true;
					if (!short_record(p, b->rec[k].line,
					    end ? report_column(number, true) : number, count))
						return k;
				}
				continue;
			}
			if (end)
				number = count + 1 - number;
			text = fields[number - 1].text;
			len = fields[number - 1].len;
			if (trim && !b->rec[k].trimmed) {
				const char *stop = text + len;

				trim_blanks(&text, &stop);
				len = (size_t)(stop - text);
			}
			v->text = text;
			v->text_len = len;
			if (len == 0 || is_na(na_lengths, config, text, len))
				continue;
			v->has_text = true;
			if (numeric &&
			    !(v->has_number = parse_number_inline(text, len, &v->number)) &&
			    !(from_end && read_before(columns, i, number, count)) &&
			    pipeline_problem(p, PROBLEM_NOT_NUMBER, b->rec[k].line, number,
			    &fields[number - 1], count))
				return k;
		}
	}
	return n;
}

/*
 * stage_values, its loop made for one column apart (the common case, 13 instructions
 * less), and that one for blank-separated input apart again (3 less).
 */
static size_t
stage_values(struct pipeline *p, size_t n)
{
	bool trim = p->config->input_delimiter != '\0';

	if (p->column_count != 1)
		return stage_values_of(p, n, p->column_count, false, trim);
	return trim ? stage_values_of(p, n, 1, false, true) :
	    stage_values_of(p, n, 1, false, false);
}

/*
 * stage_values with columns counted from the end, a loop of its own and out of line,
 * so that the commands without one pay nothing for them.
 */
static __attribute__((noinline)) size_t
stage_values_from_end(struct pipeline *p, size_t n)
{
	bool trim = p->config->input_delimiter != '\0';

	return p->column_count == 1 ? stage_values_of(p, n, 1, true, trim) :
	    stage_values_of(p, n, p->column_count, true, trim);
}

/* pipeline_read_time out of line, for the records that the timestamps stage's loop does not take. */
static __attribute__((noinline)) bool
read_time_slowly(struct pipeline *p, const struct record *record)
{
	return pipeline_read_time(p, record);
}

/*
 * The rest of stage_times_of, records [k, n), for a run whose timestamps have a clock
 * (ISO 8601, CLF: anything but an epoch) and whose last one read was kept
 * (read_timestamp_fields_memo): the common record (its field there, a timestamp that
 * timestamp_read_memo reads, not older than the newest) is read in a loop that keeps
 * the newest in a local, every other record going to pipeline_read_time out of line;
 * trim as stage_times_of's (delimited input, where a timestamp is one field).
 * ISO 8601 times read so cost the stage about 160 instructions a record (callgrind,
 * -t 1 -w 10s avg:2 over make bench's lines with ISO 8601 times), an epoch 49.  Out of
 * line: inline, it cost the epochs' loop a few instructions a record.
 */
static __attribute__((noinline)) size_t
stage_times_clock(struct pipeline *p, size_t k, size_t n, bool trim)
{
	const struct pipeline_config *config = p->config;
	struct batch *b = &p->batch;
	size_t column = p->time_column, keep = p->keep;
	uint64_t na_lengths = p->na_lengths;
	int64_t time = p->time;

	for (; k < n; k++) {
		const struct record *record = &b->rec[k];

		/* (The memo may have been let go of: see read_timestamp_fields_memo.) */
		if (p->time_memo.taken != 0 && column <= record->field_count) {
			const struct field *field = &record->fields[column - 1];
			struct field trimmed;
			size_t count, taken;
			int64_t t;

			if (trim) {
				/*
				 * A delimited record's timestamp is its one field, trimmed, as
				 * field_value trims it; through field_value the loop cost 6 more
				 * instructions a record (its trim of trimmed fields, its call).
				 */
				const char *start = field->text, *stop = start + field->len;

				if (!record->trimmed)
					trim_blanks(&start, &stop);
				trimmed.text = start;
				trimmed.len = (size_t)(stop - start);
				field = &trimmed;
				count = 1;
			} else {
				count = (record->field_count < keep ? record->field_count : keep) -
				    (column - 1);
			}
			if (field->len > 0 &&
			    !is_na(na_lengths, config, field->text, field->len) &&
			    timestamp_read_memo(&p->time_memo, field, count, &p->syslog_year, &t,
			    &taken) &&
			    t >= time) {
				b->times[k] = time = t;
				continue;
			}
		}
		p->time = time;
		if (!read_time_slowly(p, record))
			return k;
		b->times[k] = time = p->time;
	}
	p->time = time;
	return n;
}

/*
 * The timestamps stage (-t): reads the timestamps of records [0, n) into times[], and
 * counts in untimed those before the first readable one.  Returns n, or the record at
 * which --strict stops the run.  Once the run's first timestamp has been read as an
 * epoch number, the common record (its field there, an epoch that
 * timestamp_read_epoch_words reads, not older than the newest) is read in a loop that
 * keeps the newest and what the reader keeps of the last epoch (its first 8 bytes, its
 * shape) in locals, every other record going to pipeline_read_time out of line; trim
 * is a constant, whether fields are trimmed (delimited input, but the records whose
 * fields are already: record.trimmed), and check_na, whether
 * a missing text (--na) may have an epoch's length.  An epoch of the last one's shape
 * and first 8 bytes costs the stage 49 instructions (callgrind, -t 1 -w 10s avg:2);
 * a run whose first timestamp has a clock goes on in stage_times_clock once one is kept
 * (read_timestamp_fields_memo), and other forms keep pipeline_read_time for
 * every record.
 */
PIPELINE_HOT size_t
stage_times_of(struct pipeline *p, size_t n, bool trim, bool check_na)
{
	const struct pipeline_config *config = p->config;
	struct batch *b = &p->batch;
	size_t k, column = p->time_column;
	uint64_t na_lengths = p->na_lengths;
	struct epoch_words last = p->epoch_words;
	enum epoch_unit unit;
	int64_t time;

	b->untimed = 0;
	for (k = 0; k < n && (!p->have_time || p->time_from_end ||
	    (!p->first_time_epoch && p->time_memo.taken == 0)); k++) {
		if (!pipeline_read_time(p, &b->rec[k]))
			return k;
		b->times[k] = p->time;
		if (!p->have_time)
			b->untimed = k + 1;
	}
	if (!p->first_time_epoch)
		return stage_times_clock(p, k, n, trim);
	time = p->time;
	unit = p->epoch_unit;
	for (; k < n; k++) {
		const struct record *record = &b->rec[k];

		if (column <= record->field_count) {
			const char *text = record->fields[column - 1].text;
			size_t len = record->fields[column - 1].len;
			int64_t t;

			if (trim && !record->trimmed) {
				const char *stop = text + len;

				trim_blanks(&text, &stop);
				len = (size_t)(stop - text);
			}
			/* An empty text is no epoch's: the reader refuses it unread. */
			if (!(check_na && is_na(na_lengths, config, text, len)) &&
			    timestamp_read_epoch_words(text, len, unit, &last, &t) && t >= time) {
				b->times[k] = time = t;
				continue;
			}
		}
		p->time = time;
		p->epoch_words = last;
		if (!read_time_slowly(p, record))
			return k;
		b->times[k] = time = p->time;
		unit = p->epoch_unit;
		last = p->epoch_words;
	}
	p->time = time;
	p->epoch_words = last;
	return n;
}

/*
 * stage_times_of, made for blank-separated and for delimited input apart, and for
 * missing texts (--na) that an epoch's words could be apart: timestamp_read_epoch_words
 * takes 9 to 16 bytes alone, so that without a missing text of those lengths (the
 * default "-" is 1) the loop need not look for one (7 instructions a record less).
 */
static size_t
stage_times(struct pipeline *p, size_t n)
{
	bool check_na = (p->na_lengths & EPOCH_WORDS_LENGTHS) != 0;

	if (p->config->input_delimiter != '\0')
		return check_na ? stage_times_of(p, n, true, true) :
		    stage_times_of(p, n, true, false);
	return check_na ? stage_times_of(p, n, false, true) :
	    stage_times_of(p, n, false, false);
}

/*
 * Moves the batch's listed keys (those of its records after any before the first
 * timestamp) to the newest end of the list of groups, in the order of their last
 * record, as if each record had moved its own: a key moves once a batch, not at every
 * record (10 instructions a record less with -t and -g, callgrind).  The last records
 * are put in order by a bit each in a mask of the batch's records, which costs the
 * keys, not the records (8 instructions a record less than a pass over the records,
 * -t 1 -g 3 -w 1m p99:2).
 */
static void
relink_keys(struct pipeline *p)
{
	struct batch *b = &p->batch;
	uint64_t last[BATCH_MAX / 64] = { 0 };
	struct group *at[BATCH_MAX];

	for (size_t i = 0; i < b->key_count; i++) {
		struct group *g = b->keys[i];
		size_t k = g->batch_end[-1];

		last[k / 64] |= UINT64_C(1) << (k % 64);
		at[k] = g;
	}
	for (size_t w = 0; w < BATCH_MAX / 64; w++)
		for (uint64_t bits = last[w]; bits != 0; bits &= bits - 1) {
			size_t k = w * 64 + (size_t)__builtin_ctzll(bits);
			struct group *g = at[k];

			group_unlink(p, g);
			group_link_newest(p, g);
			g->newest = b->times[k];
		}
}

/*
 * The steps stage with -g: finds each record's group (pipeline_group), lists the
 * batch's keys in the order they first come and each key's records (but those before
 * any timestamp, which no window takes) in its list for the windows stage, which moves
 * the key's windows over it as it is.  Three constants give the loop its shape: trim
 * (delimited input), from_end (-g's column counts from the end) and counted (-s N:
 * each record's results are written or not, by its key's count); with the records
 * before the first timestamp in a loop of their own, the common loop tests none of
 * them (9 instructions a record less, callgrind, -t 1 -g 3 -w 1m p99:2).  The stage's
 * fields are in locals: the stores to the groups and the batch could alias them.
 * Returns n, or the record at which memory ran short.
 */
static inline __attribute__((always_inline)) size_t
stage_steps_keyed(struct pipeline *p, size_t n, bool trim, bool from_end, bool counted)
{
	struct batch *b = &p->batch;
	agg_index (*lists)[BATCH_MAX] = b->lists;
	bool reclaim = p->reclaim;
	uint64_t step = p->config->step, serial = b->serial;
	size_t column = p->group_column, untimed = b->untimed < n ? b->untimed : n;
	size_t key_count = 0, k;

	for (k = 0; k < untimed; k++) {
		struct group *g = pipeline_group(p, &b->rec[k], column, from_end, trim);

		work_charge(k);
		if (g == NULL)
			return k;
		if (reclaim) {
			/* The list of groups by their last record serves reclaiming only. */
			group_unlink(p, g);
			group_link_newest(p, g);
			g->newest = b->times[k];
		}
		b->groups[k] = g;
		if (counted)
			b->want[k] = ++g->records % step == 0;
	}
	for (; k < n; k++) {
		struct group *g = pipeline_group(p, &b->rec[k], column, from_end, trim);

		work_charge(k);
		if (g == NULL)
			break;
		if (g->batch_serial != serial) {
			g->batch_serial = serial;
			g->batch_end = lists[key_count];
			b->keys[key_count++] = g;
		}
		*g->batch_end++ = (agg_index)k;
		b->groups[k] = g;
		/* Every record's results are written without -s N, which alone counts them. */
		if (counted)
			b->want[k] = ++g->records % step == 0;
	}
	b->key_count = key_count;
	if (reclaim)
		relink_keys(p);
	return k;
}

/* stage_steps_keyed for -g's column counted from the end, out of line: it is rare. */
static __attribute__((noinline)) size_t
stage_steps_from_end(struct pipeline *p, size_t n)
{
	return p->csv != NULL ? stage_steps_keyed(p, n, true, true, p->config->step != 1) :
	    stage_steps_keyed(p, n, false, true, p->config->step != 1);
}

/*
 * The steps stage: finds the windows of records [0, n), their key's with -g (made when
 * the key is new), and whether each one's results are written: every step-th record
 * of its key.  With -g it also lists the batch's keys, in the order they first come,
 * and lists each key's records (stage_steps_keyed).  Returns n, or the record at which
 * memory ran short.
 */
static __attribute__((noinline)) size_t
stage_steps(struct pipeline *p, size_t n)
{
	struct batch *b = &p->batch;
	uint64_t step = p->config->step;

	b->serial++;
	b->key_count = 0;
	if (p->config->has_group) {
		bool trim = p->csv != NULL;

		if (p->group_from_end)
			return stage_steps_from_end(p, n);
		if (step != 1)
			return trim ? stage_steps_keyed(p, n, true, false, true) :
			    stage_steps_keyed(p, n, false, false, true);
		return trim ? stage_steps_keyed(p, n, true, false, false) :
		    stage_steps_keyed(p, n, false, false, false);
	}
	for (size_t k = 0; k < n; k++) {
		b->groups[k] = &p->single;
		if (step != 1)
			b->want[k] = ++p->single.records % step == 0;
	}
	return n;
}

/*
 * Moves the windows of the batch's key i over its records in [from, limit), storing
 * the results of those that want names (all when want is NULL).  Returns the first of
 * them at which memory ran short, or limit.
 */
static size_t
move_key(struct pipeline *p, size_t i, size_t from, size_t limit,
    const unsigned char *want)
{
	struct batch *b = &p->batch;
	struct group *g = b->keys[i];
	const agg_index *first = b->lists[i], *end = g->batch_end;
	struct window_steps steps = {
		.times = b->times, .values = b->spec_values, .want = want,
		.results = b->spec_results,
	};
	size_t moved;

	/* Its records before from (the buckets stage moves a batch in parts), and after. */
	while (first < end && *first < from)
		first++;
	while (end > first && end[-1] >= limit)
		end--;
	if (first == end)
		return limit;
	steps.n = (size_t)(end - first);
	steps.index = first;
	moved = window_set_move(&g->windows, p->config->specs, &steps);
	return moved < steps.n ? first[moved] : limit;
}

/*
 * Moves the one set of windows (no -g) over records [from, limit), as move_key does.
 * Returns the first record at which memory ran short, or limit.
 */
static size_t
move_single(struct pipeline *p, size_t from, size_t limit, const unsigned char *want)
{
	struct batch *b = &p->batch;
	agg_index index[BATCH_MAX];
	struct window_steps steps = {
		.n = limit - from, .index = NULL, .times = b->times,
		.values = b->spec_values, .want = want, .results = b->spec_results,
	};

	/* Records before from are left out by an index. */
	if (from > 0) {
		for (size_t j = from; j < limit; j++)
			index[j - from] = (agg_index)j;
		steps.index = index;
	}
	return from + window_set_move(&p->single.windows, p->config->specs, &steps);
}

/*
 * The windows stage: moves the windows over records [0, n), each key's over its own
 * records with -g, storing the results of the records whose results are written.  A
 * record before any readable timestamp belongs to no window: it only reads the
 * results.  Returns n, or the record at which memory ran short.
 */
static size_t
stage_windows(struct pipeline *p, size_t n)
{
	const struct pipeline_config *config = p->config;
	struct batch *b = &p->batch;
	const unsigned char *want = config->step == 1 ? NULL : b->want;
	size_t k, limit = n;

	for (k = 0; k < b->untimed && k < n; k++)
		if (want == NULL || want[k])
			window_set_results(p->every_record ? &p->single.windows :
			    &b->groups[k]->windows, b->spec_results, k);
	if (config->has_group) {
		/*
		 * Each key's windows over its records in one call.  Should memory run short
		 * at a record, the keys after go only as far, so that every record before
		 * it has moved.
		 */
		for (size_t i = 0; i < b->key_count; i++)
			limit = move_key(p, i, 0, limit, want);
		return limit;
	}
	/* Records before the first timestamp, if any, are left out. */
	return move_single(p, k, n, want);
}

/* Writes a group's key; a missing key prints as a null does. */
PIPELINE_HOT void
write_key(struct pipeline *p, const struct group *g)
{
	if (g->key_len - 1 < GROUP_KEY_ROOM && !p->quote_output)
		output_write_short(p->out, g->key, g->key_len);
	else if (g->key_len > 0)
		write_text(p, g->key, g->key_len);
	else
		write_text(p, p->config->null_text, p->config->null_len);
}

/*
 * Writes a group's key and the delimiter after it, as write_key and output_byte do; a
 * key that fits GROUP_KEY_ROOM goes out with the delimiter in one reservation when
 * quote is false (no delimited output to quote it in).
 */
PIPELINE_HOT void
write_key_field(struct pipeline *p, const struct group *g, bool quote, char delimiter)
{
	if (g->key_len - 1 < GROUP_KEY_ROOM && !quote) {
		char *o = output_reserve(p->out, GROUP_KEY_ROOM + 1);

		memcpy(o, g->key, GROUP_KEY_ROOM);
		o[g->key_len] = delimiter;
		output_commit(p->out, g->key_len + 1);
		return;
	}
	write_key(p, g);
	output_byte(p->out, delimiter);
}

/*
 * The output stage: writes the result records of records [0, n) whose results are
 * written (all when want is NULL), for spec_count aggregates.  Constants give the
 * loop its shape: keyed, that each record starts with its key (-g without -a);
 * results_only, that a record is its results alone (no -a, no -g); plain, that the
 * output quotes nothing and numbers print shortest (the caller has checked); memos,
 * that the numbers of the aggregates whose results repeat go through the key's
 * number_memo (batch.memos_kept): a constant false spares the others the tests.
 */
PIPELINE_HOT void
stage_write_of(struct pipeline *p, size_t n, const unsigned char *want,
    size_t spec_count, bool keyed, bool results_only, bool plain, bool memos)
{
	/* In locals: the output's bytes may alias anything, so fields would be reloaded. */
	const struct pipeline_config *config = p->config;
	bool append = !results_only && config->append;
	bool group = !results_only && config->has_group;
	bool quote = !plain && p->quote_output;
	bool plain_numbers = plain || (p->shortest && !p->quote_numbers);
	char delimiter = config->output_delimiter;
	struct batch *b = &p->batch;
	struct output *out = p->out;
	const struct agg_result *first_results = b->spec_results[0];
	const unsigned char *repeats = b->repeats;

	for (size_t k = 0; k < n; k++) {
		struct number_memo *record_memos;

		if (want != NULL && !want[k])
			continue;
		if (keyed) {
			const struct group *g = b->groups[k];

			if (spec_count == 1 && g->key_len - 1 < GROUP_KEY_ROOM && !quote &&
			    first_results[k].kind == AGG_RESULT_NUMBER && plain_numbers) {
				/* A short key and a number: the record in one reservation. */
				char *o = output_reserve(out,
				    GROUP_KEY_ROOM + 1 + NUMPRINT_SHORTEST_MAX + 1);
				size_t len = g->key_len + 1;

				memcpy(o, g->key, GROUP_KEY_ROOM);
				/* len, not g->key_len: the key's bytes could alias it. */
				o[len - 1] = delimiter;
				len += memos ? format_number_memo(first_results[k].number,
				    o + len, group_memos(g)) :
				    format_number(first_results[k].number, o + len);
				o[len] = '\n';
				output_commit_record(out, len + 1);
				continue;
			}
			write_key_field(p, g, quote, delimiter);
		} else if (append) {
			write_input_record(p, &b->rec[k]);
			output_byte(out, delimiter);
		} else if (group) {
			write_key(p, b->groups[k]);
			output_byte(out, delimiter);
		}
		record_memos = !memos ? NULL :
		    keyed || group ? group_memos(b->groups[k]) : b->memos;
		for (size_t i = 0; i < spec_count; i++) {
			/* With one aggregate, memos says that its results repeat. */
			bool memo = memos && (spec_count == 1 || repeats[i]);

			if (i > 0)
				output_byte(out, delimiter);
			write_result_as(p, out, spec_count == 1 ? &first_results[k] :
			    &b->spec_results[i][k], plain_numbers, memo ? record_memos + i : NULL);
		}
		output_end_record(out);
	}
}

/*
 * stage_write_of for keyed records and one aggregate, out of line (see stage_write),
 * made for every record written (want NULL, a constant: 3 instructions a record less)
 * and not, and for plain output (no quoting, numbers shortest: 6 less again, callgrind,
 * -t 1 -g 3 -w 1m p99:2) and not.
 */
static __attribute__((noinline)) void
stage_write_keyed(struct pipeline *p, size_t n, const unsigned char *want)
{
	bool plain = !p->quote_output && p->shortest && !p->quote_numbers;

	if (want == NULL)
		plain ? stage_write_of(p, n, NULL, 1, true, false, true, false) :
		    stage_write_of(p, n, NULL, 1, true, false, false, false);
	else
		plain ? stage_write_of(p, n, want, 1, true, false, true, false) :
		    stage_write_of(p, n, want, 1, true, false, false, false);
}

/*
 * stage_write_of where some aggregate's numbers go through a number_memo; out of line
 * (see stage_write).
 */
static __attribute__((noinline)) void
stage_write_memo(struct pipeline *p, size_t n, const unsigned char *want)
{
	if (p->config->spec_count != 1 && (want != NULL || p->config->append ||
	    p->config->has_group))
		stage_write_of(p, n, want, p->config->spec_count, false, false, false, true);
	else if (p->config->spec_count != 1)
		stage_write_of(p, n, NULL, p->config->spec_count, false, true, false, true);
	else if (p->config->has_group && !p->config->append)
		!p->quote_output && p->shortest && !p->quote_numbers ?
		    stage_write_of(p, n, want, 1, true, false, true, true) :
		    stage_write_of(p, n, want, 1, true, false, false, true);
	else if (want == NULL && !p->config->append)
		stage_write_of(p, n, NULL, 1, false, true, false, true);
	else
		stage_write_of(p, n, want, 1, false, false, false, true);
}

/*
 * stage_write, its loop made for one aggregate apart, for one aggregate's results
 * alone on every record apart again, and for keyed records (-g without -a) and the
 * memos out of line, so that the others keep their registers (the loop of three
 * aggregates paid 1 instruction a record in it; -w 1000 avg 1 for the memo's loop,
 * -w all first last delta 2).
 */
static void
stage_write(struct pipeline *p, size_t n)
{
	const unsigned char *want = p->config->step == 1 ? NULL : p->batch.want;

	if (p->batch.memos_kept)
		stage_write_memo(p, n, want);
	else if (p->config->spec_count != 1)
		stage_write_of(p, n, want, p->config->spec_count, false, false, false, false);
	else if (p->config->has_group && !p->config->append)
		stage_write_keyed(p, n, want);
	else if (want == NULL && !p->config->append)
		stage_write_of(p, n, NULL, 1, false, true, false, false); /* every_record */
	else
		stage_write_of(p, n, want, 1, false, false, false, false);
}

/* A bucket's grace, in the time that passes: see bucket_timer. */
#define BUCKET_GRACE_NANOS INT64_C(2000000000)

/*
 * Sets the bucket to the one holding t: b = t - r, r = (t - origin) mod S taken from 0
 * to S - 1, worked out without forming t - origin, which could overflow.
 */
static void
bucket_open(struct pipeline *p, int64_t t)
{
	struct bucket *bk = &p->bucket;
	int64_t r = t % bk->span, shift = bk->origin % bk->span, t_sec, t_nsec;

	if (r < 0)
		r += bk->span;
	if ((r -= shift) < 0)
		r += bk->span;
	bk->start = (uint64_t)t - (uint64_t)r;
	if (__builtin_add_overflow(t, bk->span - 1 - r, &bk->last))
		bk->last = INT64_MAX;
	/* b as seconds toward the past and nanoseconds, from t's and r's. */
	t_sec = t / NANOS_PER_SECOND;
	t_nsec = t % NANOS_PER_SECOND;
	if (t_nsec < 0) {
		t_sec--;
		t_nsec += NANOS_PER_SECOND;
	}
	bk->start_sec = t_sec - r / NANOS_PER_SECOND;
	t_nsec -= r % NANOS_PER_SECOND;
	if (t_nsec < 0) {
		bk->start_sec--;
		t_nsec += NANOS_PER_SECOND;
	}
	bk->start_nsec = (uint32_t)t_nsec;
	bk->serial++;
	bk->key_count = 0;
	bk->open = true;
}

/*
 * Moves on to the next bucket, [b + S, b + 2S), keeping in its list the keys that a
 * time window of it still holds a record of: those whose newest record t satisfies
 * b + 2S - t <= the longest time window (an ewma's half-life holds no record, and its
 * result does not change without one).  With none, no bucket is open.
 */
static void
bucket_next(struct pipeline *p)
{
	struct bucket *bk = &p->bucket;
	size_t kept = 0;

	bk->start += (uint64_t)bk->span;
	if (__builtin_add_overflow(bk->last, bk->span, &bk->last))
		bk->last = INT64_MAX;
	bk->start_sec += bk->span_sec;
	if ((bk->start_nsec += bk->span_nsec) >= NANOS_PER_SECOND) {
		bk->start_sec++;
		bk->start_nsec -= NANOS_PER_SECOND;
	}
	bk->serial++;
	for (size_t i = 0; i < bk->key_count; i++) {
		struct group *g = bk->keys[i];

		/*
		 * b + 2S - t is from S + 1 to S + the longest window (t is at least b, or
		 * b + S - the longest window for a key kept from the bucket before), below
		 * 2^64: modulo 2^64 it is exact, wherever b lies.  t is in a window of b + S.
		 */
		if (p->longest_window > 0 && bk->start + (uint64_t)bk->span -
		    (uint64_t)g->bucket_newest <= (uint64_t)p->longest_window) {
			g->bucket_serial = bk->serial;
			bk->keys[kept++] = g;
		}
	}
	bk->key_count = kept;
	bk->open = kept > 0;
}

/* Lists g as a key of the bucket.  Returns 0, or -1 when memory is short. */
static int
bucket_list(struct pipeline *p, struct group *g)
{
	struct bucket *bk = &p->bucket;

	if (mem_grow(&bk->keys, &bk->key_cap, bk->key_count + 1, sizeof(*bk->keys), 16) != 0)
		return -1;
	bk->keys[bk->key_count++] = g;
	g->bucket_serial = bk->serial;
	return 0;
}

/* Writes the bucket's start: an epoch in the input's unit, or RFC 3339 in UTC. */
static void
write_bucket_start(struct pipeline *p)
{
	const struct bucket *bk = &p->bucket;
	char text[NUMPRINT_TIME_MAX];
	uint32_t unit = p->first_time_epoch ? (uint32_t)nanos_per_epoch_unit[p->epoch_unit] :
	    1000000000;
	int digits = bk->digits;
	size_t len;

	/* The digits of a second's fraction that b needs, less those the unit has. */
	for (uint32_t u = unit; u < 1000000000 && digits > 0; u *= 10)
		digits--;
	if (p->first_time_epoch)
		len = format_epoch(bk->start_sec, bk->start_nsec, unit, digits, text);
	else
		len = format_rfc3339(bk->start_sec, bk->start_nsec, digits, text);
	write_text(p, text, len);
}

/*
 * Writes the bucket's records: for each key of its list, the step at the bucket's end
 * (window_set_boundary), then the start, the key under -g and the results.  Returns
 * false, p->status set, when memory is short.
 */
static bool
bucket_write(struct pipeline *p)
{
	const struct pipeline_config *config = p->config;
	struct bucket *bk = &p->bucket;
	struct batch *b = &p->batch;
	char delimiter = config->output_delimiter;

	for (size_t i = 0; i < bk->key_count; i++) {
		struct group *g = bk->keys[i];

		if (window_set_boundary(&g->windows, config->specs, bk->start +
		    (uint64_t)bk->span, b->spec_results, 0) != 0) {
			p->status = PIPELINE_NO_MEMORY;
			return false;
		}
		write_bucket_start(p);
		output_byte(p->out, delimiter);
		if (config->has_group) {
			write_key(p, g);
			output_byte(p->out, delimiter);
		}
		for (size_t s = 0; s < config->spec_count; s++) {
			if (s > 0)
				output_byte(p->out, delimiter);
			write_result(p, &b->spec_results[s][0]);
		}
		output_end_record(p->out);
	}
	return true;
}

/*
 * A record at t has come after the bucket: writes it, then every later bucket before
 * t's whose time windows still hold a record, and opens t's.  Returns false, p->status
 * set, when memory is short.
 */
static bool
bucket_close(struct pipeline *p, int64_t t)
{
	struct bucket *bk = &p->bucket;

	while (bk->open) {
		if (!bucket_write(p))
			return false;
		bucket_next(p);
		if (t <= bk->last) {
			bk->open = true;	/* with t's record, if with no other key */
			return true;
		}
	}
	bucket_open(p, t);
	return true;
}

/*
 * Moves the windows over records [from, to) of the batch, each key's over its own
 * (in the steps stage's lists), storing no result.  Returns to, or the
 * record at which memory ran short.
 */
static size_t
bucket_move(struct pipeline *p, size_t from, size_t to)
{
	/* No result is wanted: the bucket's come from its end's step. */
	static const unsigned char none[BATCH_MAX];
	struct batch *b = &p->batch;
	size_t limit = to;

	if (from == to)
		return to;
	if (!p->config->has_group)
		return move_single(p, from, to, none);
	/* As in stage_windows: should memory run short, the keys after go only as far. */
	for (size_t i = 0; i < b->key_count; i++)
		limit = move_key(p, i, from, limit, none);
	return limit;
}

/*
 * The buckets stage (-s DURATION), in place of the windows and output stages: moves
 * the windows over records [0, n) (but those before any timestamp, which belong to
 * no bucket), and where a record comes after the bucket, writes the bucket's records
 * before the windows take it.  Returns n, or the record at which memory ran short.
 * Out of line, so that it costs the batch loop of a run without buckets nothing.
 */
static __attribute__((noinline)) size_t
stage_buckets(struct pipeline *p, size_t n)
{
	struct bucket *bk = &p->bucket;
	struct batch *b = &p->batch;
	size_t from = b->untimed < n ? b->untimed : n;

	for (size_t k = from; k < n; k++) {
		struct group *g = p->config->has_group ? b->groups[k] : &p->single;
		int64_t t = b->times[k];

		if (!bk->open) {
			bucket_open(p, t);
		} else if (t > bk->last) {
			size_t moved = bucket_move(p, from, k);

			if (moved < k)
				return moved;
			if (!bucket_close(p, t))
				return k;
			from = k;
		}
		g->bucket_newest = t;
		if (g->bucket_serial != bk->serial && bucket_list(p, g) != 0) {
			p->status = PIPELINE_NO_MEMORY;
			return bucket_move(p, from, k);
		}
	}
	return bucket_move(p, from, n);
}

/* At the end of the run: writes the bucket being filled. */
static enum pipeline_status
bucket_finish(struct pipeline *p)
{
	if (p->bucket.open && !bucket_write(p))
		return p->status;
	p->bucket.open = false;
	return PIPELINE_OK;
}

/*
 * The time that passes, in nanoseconds from an arbitrary start: CLOCK_MONOTONIC,
 * which a step of the system's clock (NTP, date -s) does not move, since the bucket
 * timer uses differences only.
 */
static int64_t
elapsed_clock(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)now.tv_sec * NANOS_PER_SECOND + now.tv_nsec;
}

/*
 * The reader's timer with -s DURATION (swag(1), BUCKETS): while input is awaited, the
 * bucket being filled is written once the log's clock has passed its end by
 * BUCKET_GRACE_NANOS, that clock taken to run on from the newest timestamp as time
 * passes: at idle_since + (end - idle_time) + the grace, idle_since being the
 * elapsed_clock at the first wait after that timestamp was read.  Input that brings
 * no newer one (a line without a timestamp, one that goes backwards, a comment, half
 * a line) leaves the clock running, and so does the timer's own move of the time to
 * a bucket's end.  Only the time that passes is used, never the wall clock's reading
 * against a timestamp, so that a log whose timestamps run behind or ahead of it
 * (local time read as UTC, a clock that is off, a replay of old logs) has its
 * minutes closed at their end as a log of the live hour has: a pause of a replay
 * closes no bucket whose end is more than the pause past its newest record, where
 * the wall clock would close them all.  Two seconds cover tail -f's one second
 * between looks at a file and the writer's own buffering.  The time then moves on to
 * the bucket's end, so that a record that comes late for it goes backwards and
 * counts in the next bucket, as every record that goes backwards counts as the
 * newest before.  Returns 0, or -1 (p->status set) when memory is short or the
 * output fails.
 */
static int
bucket_timer(void *context, bool timed_out, int *timeout_ms)
{
	struct pipeline *p = context;
	struct bucket *bk = &p->bucket;
	int64_t now = elapsed_clock();

	if (bk->open && !timed_out && p->time != bk->seen_time) {
		bk->idle_since = now;
		bk->idle_time = bk->seen_time = p->time;
	}
	*timeout_ms = -1;
	while (bk->open) {
		int64_t end_sec = bk->start_sec + bk->span_sec, end, due;
		int64_t nsec = (int64_t)bk->start_nsec + bk->span_nsec;

		/* Beyond 2262 (int64_t nanoseconds), a bucket's end never comes. */
		if (end_sec >= INT64_MAX / NANOS_PER_SECOND - 1)
			return 0;
		end = end_sec * NANOS_PER_SECOND + nsec;
		/* The bucket holds idle_time, or a later one: end - idle_time > 0. */
		if (__builtin_sub_overflow(end, bk->idle_time, &due) ||
		    __builtin_add_overflow(due, bk->idle_since, &due) ||
		    __builtin_add_overflow(due, BUCKET_GRACE_NANOS, &due))
			return 0;
		if (now < due) {
			int64_t ms = (due - now + 999999) / 1000000;

			*timeout_ms = ms < INT_MAX ? (int)ms : INT_MAX;
			return 0;
		}
		if (!bucket_write(p))
			return -1;
		if (end > p->time)
			p->time = bk->moved_time = end;
		bk->seen_time = p->time;
		bucket_next(p);
		if (output_flush(p->out) != 0) {
			p->status = PIPELINE_WRITE_ERROR;
			return -1;
		}
	}
	return 0;
}

/*
 * Runs the batch through the stages and empties it.  A --strict stop or a memory
 * failure at a record ends the run after the records before it are written; the
 * problems counted are then theirs, not those of the batch's later records.  Returns
 * PIPELINE_OK or what ends the run.
 */
static enum pipeline_status
batch_run(struct pipeline *p)
{
	const struct pipeline_config *config = p->config;
	struct batch *b = &p->batch;
	struct problem problems[PROBLEM_KINDS];
	enum pipeline_status status = PIPELINE_OK;
	bool had_time = p->have_time;
	int64_t time = p->time;
	size_t n = b->n, read, done;

	if (n == 0)
		return PIPELINE_OK;
	b->n = 0;
	/* The fields may have moved as the batch filled: pointed at now. */
	if (!b->fields_held)
		for (size_t k = 0; k < n; k++) {
			struct field *fields = b->fields + b->first[k];
			size_t kept = b->rec[k].field_count < p->keep ? b->rec[k].field_count :
			    p->keep;

			b->rec[k].fields = fields;
			/* Copied texts, from their offsets (keep_texts). */
			if (!b->rec[k].in_input)
				for (size_t i = 0; i < kept; i++)
					if (fields[i].text != NULL)
						fields[i].text = b->texts +
						    ((uintptr_t)fields[i].text - 1);
		}
	b->field_len = 0;
	b->text_len = 0;
	if (n > 1)
		memcpy(problems, p->report->problems, sizeof(problems));
	read = p->from_end ? stage_values_from_end(p, n) : stage_values(p, n);
	if (config->has_time)
		read = stage_times(p, read);
	if (read < n)
		status = p->status;
	done = p->every_record ? read : stage_steps(p, read);
	/* Memory short for a key at a record: the windows still move over those before. */
	done = p->bucket.span > 0 ? stage_buckets(p, done) : stage_windows(p, done);
	if (done < read) {
		status = PIPELINE_NO_MEMORY;
		if (n > 1) {
			/* The problems are counted again, over the records done only. */
			memcpy(p->report->problems, problems, sizeof(problems));
			p->have_time = had_time;
			p->time = time;
			(void)(p->from_end ? stage_values_from_end(p, done) :
			    stage_values(p, done));
			if (config->has_time)
				(void)stage_times(p, done);
		}
	}
	if (p->bucket.span == 0)
		stage_write(p, done);
	if (p->reclaim)
		pipeline_reclaim(p);
	/* The instrumented build's: what no record took, the batch's last did. */
	work_charge(n - 1);
	work_batch_done(b->rec, n);
	if (p->out->error != 0)
		return PIPELINE_WRITE_ERROR;
	if (status == PIPELINE_OK && stop_requested(p))
		return PIPELINE_STOPPED;
	return status;
}

/* The bit of field number f (from 1) in a mask of the first 64 fields; 0 for none. */
static uint64_t
field_bit(size_t f)
{
	return f >= 1 && f <= 64 ? UINT64_C(1) << (f - 1) : 0;
}

/* The index of the column that col names in p->columns, or column_count for none. */
static size_t
column_of(const struct pipeline *p, const struct column_ref *col)
{
	size_t c = 0;

	while (c < p->column_count && (p->columns[c].number != col->number ||
	    p->columns[c].from_end != col->from_end))
		c++;
	return c;
}

/* Whether column a comes after col in the column table's order. */
static bool
column_after(const struct column *a, const struct column_ref *col)
{
	if (a->from_end != col->from_end)
		return a->from_end;
	return a->from_end ? a->number < col->number : a->number > col->number;
}

/*
 * Builds the column table from the specs' field numbers, once they are known (at
 * the start, or after the header), and points each spec at its column's values.
 */
static void
pipeline_bind_columns(struct pipeline *p)
{
	const struct pipeline_config *config = p->config;
	struct batch *b = &p->batch;

	p->column_count = 0;
	p->max_column = 0;
	p->from_end = p->time_from_end || p->group_from_end;
	for (size_t i = 0; i < config->spec_count; i++) {
		const struct agg_spec *spec = &config->specs[i];
		size_t c = column_of(p, &spec->column);

		if (c == p->column_count) {
			/*
			 * In field order, those from the end after, so that a record's problems
			 * are met, and the first reported, from its left (swag(1), BAD INPUT).
			 */
			while (c > 0 && column_after(&p->columns[c - 1], &spec->column)) {
				p->columns[c] = p->columns[c - 1];
				c--;
			}
			p->columns[c].number = spec->column.number;
			p->columns[c].from_end = spec->column.from_end;
			p->columns[c].numeric = false;
			p->column_count++;
		}
		if (spec->kind->input == AGG_INPUT_NUMBER)
			p->columns[c].numeric = true;
	}
	for (size_t i = 0; i < config->spec_count; i++) {
		const struct agg_spec *spec = &config->specs[i];

		b->spec_values[i] = b->values + column_of(p, &spec->column) * BATCH_MAX;
		if (spec->column.from_end)
			p->from_end = true;
		else if (spec->column.number > p->max_column)
			p->max_column = spec->column.number;
	}
	/* A timestamp may take the three fields after its own (a date, a time, a zone). */
	if (p->time_column > 0 && p->time_column + 3 > p->max_column &&
	    config->input_delimiter == '\0')
		p->max_column = p->time_column + 3;
	if (p->time_column > p->max_column)
		p->max_column = p->time_column;
	if (p->group_column > p->max_column)
		p->max_column = p->group_column;
	/*
	 * -a writes a delimited record back from its fields, all of them; a column
	 * counted from the end may be any of them.
	 */
	p->keep = (config->append && config->input_delimiter != '\0') || p->from_end ?
	    (size_t)-1 : p->max_column;
	/*
	 * Below max_column, the fields that no column, timestamp or key reads, for
	 * csvread (delimited input, where a timestamp is one field).
	 */
	p->unread = ~UINT64_C(0);
	for (size_t c = 0; c < p->column_count; c++)
		p->unread &= ~field_bit(p->columns[c].from_end ? 0 : p->columns[c].number);
	p->unread &= ~field_bit(p->time_column) & ~field_bit(p->group_column);
}

/*
 * The name of the header's field i (from 0): its text without blanks around it, as
 * every field is read, quoted or not (swag(1), -H).
 */
static struct field
header_name(const struct record *header, size_t i)
{
	const char *start = header->fields[i].text, *end = start + header->fields[i].len;

	trim_blanks(&start, &end);
	return (struct field){ .text = start, .len = (size_t)(end - start) };
}

size_t
pipeline_cut(const char *text, size_t len, size_t max)
{
	if (len <= max)
		return len;
	/* Before a UTF-8 character that would not fit whole: back over its continuation
	   bytes, at most 3. */
	len = max;
	while (len + 3 > max && len > 0 && ((unsigned char)text[len] & 0xc0) == 0x80)
		len--;
	return len;
}

size_t
pipeline_escape(char *dst, const char *text, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	char *s = dst;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];

		if (c == '\\') {
			*s++ = '\\';
			*s++ = '\\';
		} else if (c >= 0x20 && c != 0x7f) {
			*s++ = (char)c;
		} else {
			*s++ = '\\';
			*s++ = 'x';
			*s++ = hex[c >> 4];
			*s++ = hex[c & 15];
		}
	}
	return (size_t)(s - dst);
}

/*
 * The ", "-separated header names for the unknown-column message, escaped as a
 * message shows a field (a NUL among them would end the message there); an empty
 * name, or one holding a comma or a quote, is quoted as a CSV field, so that the
 * list reads as the names it holds ("a, b", c, "").
 */
static char *
join_header_names(const struct record *record)
{
	size_t bytes = 1;
	char *names, *s;

	/* Escaped, a quote doubled takes no more than PIPELINE_ESCAPED's 4 a byte. */
	for (size_t i = 0; i < record->field_count; i++)
		bytes += PIPELINE_ESCAPED(record->fields[i].len) + 4;
	if ((names = mem_realloc(NULL, bytes)) == NULL)
		return NULL;
	s = names;
	for (size_t i = 0; i < record->field_count; i++) {
		struct field name = header_name(record, i);
		const char *text = name.text, *end = text + name.len, *quote;
		bool quoted = name.len == 0 || memchr(text, ',', name.len) != NULL ||
		    memchr(text, '"', name.len) != NULL;

		if (i > 0) {
			memcpy(s, ", ", 2);
			s += 2;
		}
		if (!quoted) {
			s += pipeline_escape(s, text, name.len);
			continue;
		}
		*s++ = '"';
		while ((quote = memchr(text, '"', (size_t)(end - text))) != NULL) {
			s += pipeline_escape(s, text, (size_t)(quote - text) + 1);
			*s++ = '"';
			text = quote + 1;
		}
		s += pipeline_escape(s, text, (size_t)(end - text));
		*s++ = '"';
	}
	*s = '\0';
	return names;
}

/*
 * Writes a result's name for the output header: AGG(NAME)@WINDOW, AGG and @WINDOW as
 * written, NAME the column's header text (or its number past the header's end),
 * quoted as one CSV field when it needs it.  Returns false when memory is short.
 */
static bool
write_header_label(struct pipeline *p, const struct agg_spec *spec, const struct record *header)
{
	const char *name = NULL;
	size_t name_len = 0, window_len = strlen(spec->text + spec->window_offset), len;
	size_t at = field_position(spec->column.number, spec->column.from_end, header->field_count);
	char number[24], *label;

	if (at <= header->field_count) {
		struct field field = header_name(header, at - 1);

		name = field.text;
		name_len = field.len;
	} else if (spec->column.from_end) {
		name = spec->column.text;
		name_len = spec->column.text_len;
	} else {
		name = number;
		name_len = format_uint(spec->column.number, number);
	}
	len = spec->name_len + 1 + name_len + 1 + window_len;
	/* Not written unquoted instead: a label that needs quotes would break the CSV. */
	if ((label = mem_realloc(NULL, len)) == NULL)
		return false;
	memcpy(label, spec->text, spec->name_len);
	label[spec->name_len] = '(';
	memcpy(label + spec->name_len + 1, name, name_len);
	label[spec->name_len + 1 + name_len] = ')';
	memcpy(label + spec->name_len + 2 + name_len, spec->text + spec->window_offset, window_len);
	write_text(p, label, len);
	mem_free(label);
	return true;
}

/*
 * Returns the number of the header field called name (blanks around either aside), or
 * 0 when there is none.
 */
static size_t
header_field(const struct record *header, const char *name, size_t len)
{
	const char *end = name + len;

	trim_blanks(&name, &end);
	len = (size_t)(end - name);
	for (size_t c = 0; c < header->field_count; c++) {
		struct field field = header_name(header, c);

		if (field.len == len && memcmp(field.text, name, len) == 0)
			return c + 1;
	}
	return 0;
}

/*
 * Finds the column that ref names in the header: a name must be there; a number is
 * the header field of its text when the first input's header has one (a header
 * "country,2019,2020"), and then a name in every input, else the field number it says
 * (swag(1), DESCRIPTION and -H).  *taken records which, at the first header.  Stores
 * the column in *number and *from_end.  Returns false, with the unknown-column report
 * filled, when a name is not in the header.
 */
static bool
resolve_column(struct pipeline *p, const struct record *header, const struct column_ref *ref,
    enum column_taken *taken, size_t *number, bool *from_end)
{
	const char *name = ref->name != NULL ? ref->name : ref->text;
	size_t len = ref->name != NULL ? ref->name_len : ref->text_len;
	size_t c = name != NULL ? header_field(header, name, len) : 0;

	if (ref->name == NULL) {
		if (*taken == COLUMN_NOT_TAKEN)
			*taken = c != 0 ? COLUMN_TAKEN_AS_NAME : COLUMN_TAKEN_AS_NUMBER;
		if (*taken == COLUMN_TAKEN_AS_NUMBER) {
			*number = ref->number;
			*from_end = ref->from_end;
			return true;
		}
	}
	if (c != 0) {
		*number = c;
		*from_end = false;
		return true;
	}
	p->report->failed_column_name = name;
	p->report->failed_column_name_len = len;
	p->report->header_names = join_header_names(header);
	p->status = PIPELINE_UNKNOWN_COLUMN;
	return false;
}

/*
 * Keeps the first input's header for -a, which writes it once: every other input's
 * must be equal.  Returns false when memory is short.
 */
static bool
keep_header(struct pipeline *p, const struct record *header)
{
	size_t bytes = 0, n = header->field_count, offset = 0, array;

	for (size_t i = 0; i < n; i++)
		bytes += header->fields[i].len;
	if (mem_array_size(n ? n : 1, sizeof(*p->header), &array) != 0 ||
	    (p->header = mem_realloc(NULL, array)) == NULL ||
	    (p->header_text = mem_realloc(NULL, bytes ? bytes : 1)) == NULL)
		return false;
	for (size_t i = 0; i < n; i++) {
		memcpy(p->header_text + offset, header->fields[i].text, header->fields[i].len);
		p->header[i].text = p->header_text + offset;
		p->header[i].len = header->fields[i].len;
		offset += header->fields[i].len;
	}
	p->header_count = n;
	return true;
}

/* True when header is the same as the first input's, field for field. */
static bool
same_header(const struct pipeline *p, const struct record *header)
{
	if (header->field_count != p->header_count)
		return false;
	for (size_t i = 0; i < p->header_count; i++)
		if (header->fields[i].len != p->header[i].len ||
		    memcmp(header->fields[i].text, p->header[i].text, p->header[i].len) != 0)
			return false;
	return true;
}

/* Writes a column's name for the output header: its header text, or its number. */
static void
write_column_name(struct pipeline *p, const struct record *header, size_t number,
    bool from_end)
{
	size_t at = field_position(number, from_end, header->field_count);

	if (at <= header->field_count) {
		struct field name = header_name(header, at - 1);

		write_input_field(p, name.text, name.len);
	} else {
		/* As a text: quoted where it holds the delimiter (-o -). */
		char buf[21];
		size_t len = format_uint(number, buf + 1);

		buf[0] = '-';
		if (from_end)
			write_text(p, buf, len + 1);
		else
			write_text(p, buf + 1, len);
	}
}

/*
 * Takes the header record: resolves the columns named in the specs and options,
 * and writes the output header.  Returns false when the run must stop (p->status
 * says why).
 */
static bool
pipeline_header(struct pipeline *p, const struct record *record)
{
	const struct pipeline_config *config = p->config;
	struct output *out = p->out;

	/* With -a every input's header must be the first's (written once): exit 1. */
	if (p->header_written && config->append && !same_header(p, record)) {
		p->report->first_input = p->header_input;
		p->status = PIPELINE_HEADER_MISMATCH;
		return false;
	}
	for (size_t i = 0; i < config->spec_count; i++) {
		struct agg_spec *spec = &config->specs[i];
		struct column_ref ref;

		/* Parsed as written; the first header decides a number's kind (taken). */
		if (spec->column.text != NULL && (column_parse(spec->column.text,
		    spec->column.text_len, &ref) < 0 ||
		    !resolve_column(p, record, &ref, &spec->column.taken, &spec->column.number,
		    &spec->column.from_end)))
			return false;
	}
	if (config->has_time && !resolve_column(p, record, &config->time_column,
	    &p->time_taken, &p->time_column, &p->time_from_end))
		return false;
	if (config->has_group && !resolve_column(p, record, &config->group_column,
	    &p->group_taken, &p->group_column, &p->group_from_end))
		return false;
	pipeline_bind_columns(p);
	if (p->header_written)
		return true;	/* written once, from the first input */
	p->header_written = true;
	p->header_input = p->input_name;
	if (config->append && !keep_header(p, record)) {
		p->status = PIPELINE_NO_MEMORY;
		return false;
	}
	if (p->bucket.span > 0) {
		write_column_name(p, record, p->time_column, p->time_from_end);
		output_byte(out, config->output_delimiter);
	}
	if (config->append) {
		write_input_record(p, record);
		output_byte(out, config->output_delimiter);
	} else if (config->has_group) {
		write_column_name(p, record, p->group_column, p->group_from_end);
		output_byte(out, config->output_delimiter);
	}
	for (size_t i = 0; i < config->spec_count; i++) {
		const struct agg_spec *spec = &config->specs[i];
		if (i > 0)
			output_byte(out, config->output_delimiter);
		if (!write_header_label(p, spec, record)) {
			p->status = PIPELINE_NO_MEMORY;
			return false;
		}
	}
	output_end_record(out);
	return true;
}

/* True when the line begins with '#' after optional blanks. */
static bool
is_comment_line(const char *line, size_t len)
{
	size_t i = 0;

	while (i < len && is_blank(line[i]))
		i++;
	return i < len && line[i] == '#';
}

/* True when the line at s (before end) begins with '#' after optional blanks. */
static bool
is_comment_at(const char *s, const char *end)
{
	while (s < end && is_blank(*s))
		s++;
	return s < end && *s == '#';
}

/* Maps a reader's failure to the pipeline's. */
static enum pipeline_status
reader_failure(struct pipeline *p, enum reader_status rs)
{
	switch (rs) {
	case READER_READ_ERROR:
		p->report->error_number = errno;
		return PIPELINE_READ_ERROR;
	case READER_NO_MEMORY:
		return PIPELINE_NO_MEMORY;
	case READER_UTF16:
		return PIPELINE_UTF16;
	case READER_IDLE_ERROR:
		/* The idle hook's flush, or the timer (which says what failed). */
		return p->status != PIPELINE_OK ? p->status : PIPELINE_WRITE_ERROR;
	case READER_STOPPED:
		return PIPELINE_STOPPED;
	case READER_GZIP_TRUNCATED:
		return PIPELINE_GZIP_TRUNCATED;
	case READER_GZIP_CORRUPT:
		return PIPELINE_GZIP_CORRUPT;
	default:
		return PIPELINE_OK;
	}
}

/*
 * Takes the header record: resolves the columns it names, writes the output header,
 * and from then on keeps of each record only the fields read.  Returns false when the
 * run must stop (p->status says why).
 */
static bool
take_header(struct pipeline *p, const struct record *record)
{
	p->awaiting_header = false;
	if (!pipeline_header(p, record))
		return false;
	if (p->csv != NULL)
		csvread_keep(p->csv, p->max_column, p->config->append || p->from_end, p->unread);
	return true;
}

static enum pipeline_status split_blank_lines_rest(struct pipeline *p, const char *s,
    size_t len, uint64_t *line_number);

/*
 * The fields split_line takes from a line in its one pass: keep, but at most
 * split_room where the batch does not hold its records' fields: a column from the end
 * keeps every field (keep is SIZE_MAX), and one far to the right (sum:1000000000) is
 * no reason to make room for that many a line.  A line that fills them is split
 * again, up to keep.
 */
static inline size_t
split_limit(const struct pipeline *p, bool plain)
{
	return plain || p->batch.fields_held || p->keep <= p->split_room ? p->keep :
	    p->split_room;
}

/*
 * Splits the lines bytes[0, len) (whole lines, each ending with an LF but maybe the
 * input's last), numbered on from *line_number, into records of the batch, running it
 * whenever it is full.  all is a compile-time constant: a column counted from the
 * end, every field kept; split_line takes split_limit's fields in its one pass, and
 * a line that fills split_room is split again a field at a time, the room doubling
 * for the lines after.  plain, a compile-time constant too, says that no line needs more
 * than the split: no header is awaited, -C and -a are off, and the batch holds room
 * for the fields of all its records (split_blank_lines_plain).  Returns PIPELINE_OK or
 * what ends the run.
 */
PIPELINE_HOT enum pipeline_status
split_blank_lines_of(struct pipeline *p, const char *s, size_t len, uint64_t *line_number,
    bool all, bool plain)
{
	const struct pipeline_config *config = p->config;
	const char *end = s + len;
	struct batch *b = &p->batch;
	/* A record reading field 1 alone is often one field alone: bare_line finds it. */
	bool one_field = p->keep == 1 && !config->skip_comments, append = config->append;
	struct line_block blk = { s, 0 };
	/* The batch's counts in locals: the records' stores could alias them in memory. */
	uint64_t number = *line_number;
	size_t k = b->n, used = b->field_len;
	enum pipeline_status status;
	/* split_limit's, and whether a line that fills it may have more fields to keep. */
	size_t room;
	bool resplit;

	if (!p->awaiting_header && batch_hold_fields(b, p->keep) != 0)
		return PIPELINE_NO_MEMORY;
	room = split_limit(p, plain);
	resplit = room < p->keep;
	while (s < end) {
		const char *line = s, *newline;
		struct record *record = &b->rec[k];
		ptrdiff_t count;
		size_t n;

		number++;
		if (!plain && !b->fields_held)
			b->first[k] = used;
		if (one_field && (n = bare_line(&blk, line, end)) != 0) {
			s = line + n + 1;
			record->fields = b->fields + used;
			b->fields[used].text = line;
			b->fields[used].len = n;
			count = 1;
		} else if (plain || ((all ? !p->awaiting_header : p->keep != (size_t)-1) &&
		    !(config->skip_comments && is_comment_at(line, end)))) {
			/* With all, room is split_room (keep is SIZE_MAX): the all loop keeps no room. */
			size_t kept, limit = all ? p->split_room : room;

			if (!plain && !b->fields_held && (b->field_len = used,
			    batch_reserve(b, limit)) != 0)
				return PIPELINE_NO_MEMORY;
			record->fields = b->fields + used;
			newline = split_line(line, end, b->fields + used, limit, &kept);
			s = newline + 1;
			n = (size_t)(newline - line);
			if (n > 0 && line[n - 1] == '\r')
				n--;
			count = (ptrdiff_t)kept;
			if ((all || resplit) && kept == limit) {
				/* Maybe more fields than room: up to keep, one by one. */
				b->field_len = used;
				if ((count = split_blank_fields(b, line, n, p->keep)) < 0)
					return PIPELINE_NO_MEMORY;
				record->fields = b->fields + used;
				if ((size_t)count >= p->split_room && p->split_room < 4096) {
					p->split_room *= 2;
					room = split_limit(p, plain);
					resplit = room < p->keep;
				}
			}
		} else {
			if ((newline = reader_find_newline(line, end)) == NULL)
				newline = end;	/* the input's last line, without its LF */
			s = newline + 1;
			n = (size_t)(newline - line);
			if (n > 0 && line[n - 1] == '\r')
				n--;
			if (config->skip_comments && is_comment_line(line, n))
				continue;
			b->field_len = used;
			if ((count = split_blank_fields(b, line, n, p->keep)) < 0)
				return PIPELINE_NO_MEMORY;
			record->fields = b->fields + used;
			if (p->awaiting_header) {
				/* A blank line is no header: the header is the first record with fields. */
				if (count > 0) {
					record->field_count = (size_t)count;
					record->line = number;
					record->raw = line;
					record->raw_len = n;
					if (!take_header(p, record))
						return p->status;
					/*
					 * This header's columns may count from the end where the
					 * last input's did not, or the other way: the rest of
					 * the lines go to the splitter they now need.
					 */
					if (all != p->from_end) {
						b->n = k;
						b->field_len = 0;
						*line_number = number;
						return split_blank_lines_rest(p, s, (size_t)(end - s),
						    line_number);
					}
					one_field = p->keep == 1 && !config->skip_comments;
					if (batch_hold_fields(b, p->keep) != 0)
						return PIPELINE_NO_MEMORY;
					room = split_limit(p, plain);
					resplit = room < p->keep;
				}
				b->field_len = used = 0;
				continue;
			}
		}
		used += (size_t)count;
		record->field_count = (size_t)count;
		record->line = number;
		if (!plain && append) {
			record->raw = line;
			record->raw_len = n;
		}
		if (++k == b->cap) {
			b->n = k;
			b->field_len = used;
			*line_number = number;
			if ((status = batch_run(p)) != PIPELINE_OK)
				return status;
			k = used = 0;
		}
	}
	b->n = k;
	b->field_len = used;
	*line_number = number;
	return PIPELINE_OK;
}

/*
 * split_blank_lines_of for the commands that keep the fields up to the highest read:
 * plain when nothing but the split is to be done for a line, which batch_hold_fields
 * makes so for up to 64 fields: its tests of -C, -a, the header and the batch's room
 * for fields, and the registers they hold, cost 26 instructions a record (callgrind,
 * -w 1000 p99:2; 10 for -w 1000 avg, whose lines are one short field each).
 */
static enum pipeline_status
split_blank_lines(struct pipeline *p, const char *s, size_t len, uint64_t *line_number)
{
	const struct pipeline_config *config = p->config;

	if (!p->awaiting_header && !config->skip_comments && !config->append &&
	    p->keep <= 64)
		return split_blank_lines_of(p, s, len, line_number, false, true);
	return split_blank_lines_of(p, s, len, line_number, false, false);
}

/*
 * split_blank_lines_of for the commands that keep every field (a column from the
 * end), out of line, so that the others pay nothing for it.
 */
static __attribute__((noinline)) enum pipeline_status
split_blank_lines_all(struct pipeline *p, const char *s, size_t len, uint64_t *line_number)
{
	return split_blank_lines_of(p, s, len, line_number, true, false);
}

/*
 * The lines after a header whose columns need the other splitter than the one that
 * read it (split_blank_lines_of).  Out of line: it is a call once an input at most.
 */
static __attribute__((noinline)) enum pipeline_status
split_blank_lines_rest(struct pipeline *p, const char *s, size_t len, uint64_t *line_number)
{
	return p->from_end ? split_blank_lines_all(p, s, len, line_number) :
	    split_blank_lines(p, s, len, line_number);
}

/*
 * Copies the texts of fields[0, n), valid only for now (libcsv's copy), to the batch's
 * texts, each field's text then holding its offset there plus one until batch_run
 * points it there (the texts may move as the batch fills).  Returns 0, or -1 when memory is
 * short.
 */
static int
keep_texts(struct batch *b, struct field *fields, size_t n)
{
	const char *low = NULL, *high = NULL;
	size_t len;

	/* csvread keeps a record's texts side by side: one copy takes them all. */
	for (size_t i = 0; i < n; i++)
		if (fields[i].text != NULL && fields[i].len > 0) {
			if (low == NULL || fields[i].text < low)
				low = fields[i].text;
			if (high == NULL || fields[i].text + fields[i].len > high)
				high = fields[i].text + fields[i].len;
		}
	len = low != NULL ? (size_t)(high - low) : 0;
	/* Made even for empty texts: they too point into it. */
	if ((b->text_cap == 0 || b->text_len + len > b->text_cap) &&
	    mem_grow(&b->texts, &b->text_cap, b->text_len + len, 1, 4096) != 0)
		return -1;
	if (len > 0)
		memcpy(b->texts + b->text_len, low, len);
	for (size_t i = 0; i < n; i++) {
		size_t offset = b->text_len + (fields[i].len > 0 ? (size_t)(fields[i].text - low) : 0);

		/* Plus one: offset 0 must not read as NULL, a field not kept. */
		if (fields[i].text != NULL)
			fields[i].text = (const char *)(uintptr_t)(offset + 1);
	}
	b->text_len += len;
	return 0;
}

/*
 * csvread's record callback: adds a delimited record to the batch, or takes it as the
 * header.  The texts of a record that libcsv parsed are csvread's own copy, valid
 * during the call only: they are copied (keep_texts).  Returns 0, or -1 with p->status
 * set when the run must stop.
 */
static int
take_delimited_record(void *context, const struct record *record)
{
	struct pipeline *p = context;
	struct batch *b = &p->batch;
	size_t keep = record->field_count < p->keep ? record->field_count : p->keep;
	enum pipeline_status status;

	if (p->awaiting_header)
		return take_header(p, record) ? 0 : -1;
	/* The room test inline: a call a record cost 17 instructions (callgrind). */
	if (b->field_len + keep > b->field_cap && batch_reserve(b, keep) != 0) {
		p->status = PIPELINE_NO_MEMORY;
		return -1;
	}
	b->first[b->n] = b->field_len;
	memcpy(b->fields + b->field_len, record->fields, keep * sizeof(*b->fields));
	if (!record->in_input && keep_texts(b, b->fields + b->field_len, keep) != 0) {
		p->status = PIPELINE_NO_MEMORY;
		return -1;
	}
	b->field_len += keep;
	b->rec[b->n++] = *record;
	if (b->n == b->cap && (status = batch_run(p)) != PIPELINE_OK) {
		p->status = status;
		return -1;
	}
	return 0;
}

/* Maps csvread's failure to the pipeline's, with where it was. */
static enum pipeline_status
csvread_failure(struct pipeline *p, enum csvread_status cs)
{
	switch (cs) {
	case CSVREAD_STOPPED:
		return p->status;
	case CSVREAD_MALFORMED:
	case CSVREAD_OPEN_QUOTE:
		p->report->failed_line = csvread_error_line(p->csv);
		p->report->failed_column = csvread_error_column(p->csv);
		return cs == CSVREAD_MALFORMED ? PIPELINE_MALFORMED_CSV : PIPELINE_OPEN_QUOTE;
	case CSVREAD_NO_MEMORY:
		return PIPELINE_NO_MEMORY;
	default:
		return PIPELINE_OK;
	}
}

/* The one record loop: reads runs of lines to the end, splits them and runs the batches. */
static enum pipeline_status
pipeline_loop(struct pipeline *p, struct reader *reader)
{
	enum csvread_status cs = CSVREAD_OK;
	enum pipeline_status status;
	enum reader_status rs;
	uint64_t line_number = 0;
	/* With quoting, libcsv ends a record at a lone CR too: no need to wait for an LF. */
	bool cr_ends = p->csv != NULL && !p->config->no_quotes;
	const char *bytes;
	size_t len;

	while ((rs = reader_next_lines(reader, &bytes, &len, cr_ends)) == READER_LINE) {
		if (p->csv != NULL)
			cs = csvread_feed(p->csv, bytes, len);
		else if ((status = (p->from_end ? split_blank_lines_all(p, bytes, len,
		    &line_number) : split_blank_lines(p, bytes, len, &line_number))) != PIPELINE_OK)
			return status;
		if (cs == CSVREAD_STOPPED)
			return p->status;
		/* Before the reader moves its buffer, or waits: the records read go out. */
		if ((status = batch_run(p)) != PIPELINE_OK)
			return status;
		if (cs != CSVREAD_OK)
			return csvread_failure(p, cs);
	}
	if (rs != READER_END)
		return reader_failure(p, rs);
	if (p->csv != NULL && (cs = csvread_finish(p->csv)) != CSVREAD_OK) {
		if (cs == CSVREAD_STOPPED)
			return p->status;
		if ((status = batch_run(p)) != PIPELINE_OK)
			return status;
		return csvread_failure(p, cs);
	}
	return batch_run(p);
}

/*
 * Builds the windows (without -g) and, unless a header must name them first, the
 * column table.  Returns 0, or -1 when memory is short (what was built is freed by
 * pipeline_free).
 */
static int
pipeline_init(struct pipeline *p, const struct pipeline_config *config)
{
	struct batch *b = &p->batch;
	size_t n = config->spec_count, bytes;

	memset(p, 0, sizeof(*p));
	p->config = config;
	/*
	 * Delimited output is read back as CSV, whatever the input: a key or a text
	 * result holding the delimiter is quoted after blank-separated input too.  With
	 * --no-quotes it is read back without quoting, and nothing is quoted.
	 */
	p->quote_output = !config->no_quotes &&
	    (config->input_delimiter != 0 || !config->blank_output);
	p->quote_numbers = p->quote_output && config->output_delimiter != '\0' &&
	    strchr("0123456789.+-eEinfa", config->output_delimiter) != NULL;
	/*
	 * A record of one field, an empty null, would be a blank line, which a delimited
	 * reader (swag's too) skips: it is written as "" (swag(1), OUTPUT).  Where blanks
	 * separate the output, a blank line is a record to its readers; with --no-quotes
	 * "" would be a text of two quotes (the page says to give --null).
	 */
	p->null_quoted = !config->blank_output && !config->no_quotes &&
	    config->null_len == 0 && config->spec_count == 1 && !config->append &&
	    !config->has_group && config->bucket == 0;
	p->every_record = config->step == 1 && !config->has_group;
	p->shortest = config->precision < 0;
	for (size_t i = 0; i < config->na_count; i++)
		p->na_lengths |= UINT64_C(1) << (config->na_texts[i].len < 63 ?
		    config->na_texts[i].len : 63);
	p->time_column = config->has_time ? config->time_column.number : 0;
	/* The specs' columns are resolved by this run's first header (resolve_column). */
	for (size_t i = 0; i < n; i++)
		config->specs[i].column.taken = COLUMN_NOT_TAKEN;
	p->epoch_unit = config->epoch_unit;
	p->epoch_words = EPOCH_WORDS_START;
	p->time_memo = TIMESTAMP_MEMO_START;
	p->epoch_unit_set = config->epoch_unit_given;
	p->syslog_year.year = config->year;
	p->syslog_year.now = (int64_t)time(NULL);
	if (config->bucket > 0) {
		struct bucket *bk = &p->bucket;
		int64_t week = 7 * 86400 * NANOS_PER_SECOND;

		bk->span = config->bucket;
		bk->seen_time = INT64_MIN;	/* no timestamp is (1677-09-21T00:12:43Z) */
		bk->moved_time = INT64_MIN;
		bk->span_sec = config->bucket / NANOS_PER_SECOND;
		bk->span_nsec = (uint32_t)(config->bucket % NANOS_PER_SECOND);
		/* Weeks start on Monday, 1970-01-05 (swag(1), BUCKETS), as date_trunc's do. */
		bk->origin = config->bucket % week == 0 ? 4 * 86400 * NANOS_PER_SECOND : 0;
		/*
		 * b - origin is a multiple of S, and the origin a whole number of days:
		 * the fraction of a second in S says the digits b needs.
		 */
		for (int64_t unit = NANOS_PER_SECOND; config->bucket % unit != 0; unit /= 1000)
			bk->digits += 3;
	}
	p->time_from_end = config->has_time && config->time_column.from_end;
	p->group_column = config->has_group ? config->group_column.number : 0;
	p->group_from_end = config->has_group && config->group_column.from_end;
	/*
	 * Groups can be reclaimed when every window is a time window; with -s a key's
	 * step count must survive, so they are kept.
	 */
	p->reclaim = config->has_group && config->step == 1;
	for (size_t i = 0; i < n; i++) {
		uint64_t reach = window_reach(&config->specs[i]);

		/* UINT64_MAX: an ewma's history that outlasts any two timestamps' distance. */
		if (reach == 0 || reach == UINT64_MAX)
			p->reclaim = false;
		else if (reach > p->longest)
			p->longest = reach;
		if (window_by_time(&config->specs[i]) &&
		    config->specs[i].window.nanos > p->longest_window)
			p->longest_window = config->specs[i].window.nanos;
	}
	b->cap = BATCH_MAX;
	p->keep = (size_t)-1;
	p->split_room = 32;
	if (mem_array_size(n, sizeof(*p->columns), &bytes) != 0 ||
	    (p->columns = mem_realloc(NULL, bytes ? bytes : 1)) == NULL ||
	    mem_array_size(n * BATCH_MAX, sizeof(*b->values), &bytes) != 0 ||
	    (b->values = mem_realloc(NULL, bytes ? bytes : 1)) == NULL ||
	    mem_array_size(n * BATCH_MAX, sizeof(*b->results), &bytes) != 0 ||
	    (b->results = mem_realloc(NULL, bytes ? bytes : 1)) == NULL ||
	    mem_array_size(n, sizeof(*b->spec_values), &bytes) != 0 ||
	    (b->spec_values = mem_realloc(NULL, bytes ? bytes : 1)) == NULL ||
	    mem_array_size(n, sizeof(*b->spec_results), &bytes) != 0 ||
	    (b->spec_results = mem_realloc(NULL, bytes ? bytes : 1)) == NULL ||
	    mem_array_size(n, sizeof(*b->memos), &bytes) != 0 ||
	    (b->memos = mem_realloc(NULL, bytes ? bytes : 1)) == NULL ||
	    (b->repeats = mem_realloc(NULL, n ? n : 1)) == NULL)
		return -1;
	/* Room for fields from the start: a record's fields never point from NULL. */
	if (batch_reserve(b, 1) != 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		b->spec_results[i] = b->results + i * BATCH_MAX;
		b->repeats[i] = config->specs[i].kind->results_repeat;
		b->memos_kept |= b->repeats[i];
	}
	/*
	 * Numbers go through a memo only where they print unquoted, shortest or at a
	 * precision whose texts may fit one, and -s DURATION's buckets write through
	 * none: there the keys keep no memos.
	 */
	b->memos_kept = b->memos_kept && !p->quote_numbers &&
	    config->precision <= NUMBER_MEMO_PRECISION_MAX && config->bucket == 0;
	if (b->memos_kept) {
		b->memo_start = number_memo_start(config->precision);
		for (size_t i = 0; i < n; i++)
			b->memos[i] = b->memo_start;
	}
	for (size_t k = 0; k < BATCH_MAX; k++)
		b->rec[k].in_input = b->rec[k].trimmed = true;
	if (config->has_group) {
		if ((p->groups = keytable_create(config->hash_seed)) == NULL ||
		    (b->lists = mem_realloc(NULL, BATCH_MAX * sizeof(*b->lists))) == NULL)
			return -1;
	} else if (window_set_init(&p->single.windows, config->specs, n) != 0) {
		return -1;
	}
	if (!config->header)
		pipeline_bind_columns(p);
	return 0;
}

/*
 * Reads one input to its end, as an input of its own: a reader of its own (its
 * byte-order mark, its compression, its last line), a delimited splitter of its own
 * (its open quote), its header with -H, its lines numbered from 1.  Returns
 * PIPELINE_OK or what ends the run.
 */
static enum pipeline_status
pipeline_read_input(struct pipeline *p, int fd)
{
	const struct pipeline_config *config = p->config;
	struct reader *reader;
	enum pipeline_status status;

	/*
	 * Every input's header is read whole, whatever the last input's header made of
	 * the columns (pipeline_bind_columns sets keep again from this one's).
	 */
	p->awaiting_header = config->header;
	if (p->awaiting_header)
		p->keep = (size_t)-1;
	if (config->input_delimiter != '\0') {
		struct csvread_options options = {
			.delimiter = config->input_delimiter,
			.strict = config->strict,
			.no_quotes = config->no_quotes,
			.skip_comments = config->skip_comments,
			.keep_fields = p->awaiting_header ? (size_t)-1 : p->max_column,
			.keep_all = p->awaiting_header || config->append || p->from_end,
			.skip_fields = p->awaiting_header ? 0 : p->unread,
			.on_record = take_delimited_record,
			.context = p,
		};

		if ((p->csv = csvread_create(&options)) == NULL)
			return PIPELINE_NO_MEMORY;
	}
	if ((reader = reader_create(fd, pipeline_idle, p->out, config->stop)) == NULL) {
		status = PIPELINE_NO_MEMORY;
	} else {
		if (p->bucket.span > 0)
			reader_set_timer(reader, bucket_timer, p);
		status = pipeline_loop(p, reader);
	}
	reader_destroy(reader);
	csvread_destroy(p->csv);
	p->csv = NULL;
	return status;
}

/* keytable_each's visitor: frees a group. */
static void
free_group(void *group, void *context)
{
	(void)context;
	group_free(group);
}

/*
 * The key table of a run whose process exits after it (pipeline_config.exits), left
 * for the exit to reclaim: freeing every key's windows a block at a time visits each
 * key once more, cache misses and free's merging of blocks, seconds at millions of
 * keys, all of it after the last result and before the end of the output that a
 * reader waits for.  The pointer keeps the memory reachable for leak checkers;
 * volatile, since nothing reads it and the store would be dropped.
 */
static struct keytable *volatile pipeline_left_keys;

/*
 * An AddressSanitizer build frees them all the same: LeakSanitizer does not look into
 * mapped pages, which a large key table's slots are (mem_zalloc), and would call every
 * key's windows leaked.  (valgrind looks into them, and passes the release build.)
 */
#if defined(__SANITIZE_ADDRESS__)
#define PIPELINE_LEAVE_KEYS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PIPELINE_LEAVE_KEYS 0
#endif
#endif
#ifndef PIPELINE_LEAVE_KEYS
#define PIPELINE_LEAVE_KEYS 1
#endif

static void
pipeline_free(struct pipeline *p)
{
	window_set_free(&p->single.windows);
	if (p->groups != NULL && p->config->exits && PIPELINE_LEAVE_KEYS) {
		pipeline_left_keys = p->groups;
	} else if (p->groups != NULL) {
		keytable_each(p->groups, free_group, NULL);
		keytable_destroy(p->groups);
	}
	mem_free(p->header);
	mem_free(p->header_text);
	mem_free(p->columns);
	mem_free(p->batch.fields);
	mem_free(p->batch.texts);
	mem_free(p->batch.values);
	mem_free(p->batch.results);
	mem_free(p->batch.spec_values);
	mem_free(p->batch.spec_results);
	mem_free(p->batch.memos);
	mem_free(p->batch.repeats);
	mem_free(p->batch.lists);
	mem_free(p->bucket.keys);
}

enum pipeline_status
pipeline_run(const struct pipeline_config *config, const struct pipeline_input *inputs,
    size_t count, struct output *out, struct pipeline_report *report)
{
	struct pipeline p;
	enum pipeline_status status = PIPELINE_OK;

	memset(report, 0, sizeof(*report));
	report->epoch_unit = config->epoch_unit;
	report->epoch_unit_forced = config->epoch_unit_given;
	if (pipeline_init(&p, config) != 0) {
		status = PIPELINE_NO_MEMORY;
	} else {
		p.out = out;
		p.report = report;
		/* Only the windows and the keys carry on from one input to the next. */
		for (size_t i = 0; i < count && status == PIPELINE_OK; i++) {
			p.input_name = inputs[i].name;
			status = pipeline_read_input(&p, inputs[i].fd);
		}
		/* Whatever ends the run, the records read yield their bucket (but where the
		   windows or the output are broken). */
		if (p.bucket.span > 0 && status != PIPELINE_NO_MEMORY &&
		    status != PIPELINE_WRITE_ERROR) {
			enum pipeline_status finish = bucket_finish(&p);

			if (finish != PIPELINE_OK)
				status = finish;
		}
	}
	if (status == PIPELINE_WRITE_ERROR || out->error != 0) {
		status = PIPELINE_WRITE_ERROR;
		report->error_number = out->error;
	}
	if (status != PIPELINE_OK)
		report->failed_input = p.input_name;
	pipeline_free(&p);
	return status;
}
