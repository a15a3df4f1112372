/*
 * pipeline.c: records in, results out (see pipeline.h).
 */
#include <errno.h>
#include <string.h>

#include "agg.h"
#include "csvread.h"
#include "keytable.h"
#include "mem.h"
#include "numparse.h"
#include "numprint.h"
#include "pipeline.h"
#include "reader.h"
#include "record.h"
#include "timestamp.h"
#include "window.h"

/*
 * The steps of every record, forced inline into both record loops (run_plain_rows and
 * pipeline_record): as calls they cost about 50 instructions a record more.
 */
#define PIPELINE_HOT static inline __attribute__((always_inline))

/*
 * The loop for plain row windows takes the records of a run of lines in batches of this
 * many: first the values of all, then each window moved over them, then the results
 * written.  Each phase is then a tight loop whose iterations the processor overlaps,
 * where one record at a time is a chain of dependent steps (parse, window, divide,
 * print) that leaves it waiting.
 */
#define PLAIN_BATCH 64

/* One column that some aggregate reads, and its value in the current record. */
struct column {
	size_t number;			/* 1-based */
	bool numeric;			/* a numeric aggregate reads it */
	struct agg_value value;
};

/*
 * One key's windows (the only one without -g).  With -g the groups are also in a
 * list from the least to the most recently seen, so that those whose windows have
 * all emptied with time can be found at its head and reclaimed.
 */
struct group {
	struct window_set windows;
	uint64_t records;		/* data records with this key, for -s */
	int64_t newest;			/* the timestamp of its last record */
	struct group *older, *newer;
	char *key;			/* the key's text, owned */
	size_t key_len;
};

struct pipeline {
	const struct pipeline_config *config;
	struct output *out;
	struct pipeline_report *report;
	enum pipeline_status status;	/* what stopped the run, from a callback */
	const struct agg_value **values; /* per spec: the value of its column */
	struct agg_result *results;	/* per spec: its result for the current record */
	struct column *columns;		/* the distinct columns read */
	size_t column_count;
	size_t max_column;		/* the largest field number anything reads */
	size_t time_column;		/* -t's field number, or 0 */
	size_t group_column;		/* -g's field number, or 0 */
	struct group single;		/* the windows without -g */
	struct keytable *groups;	/* with -g: key -> struct group */
	struct group *oldest, *newest;	/* with -g: the groups, least recent first */
	bool reclaim;			/* groups whose windows emptied are freed */
	int64_t longest;		/* the longest time window */
	bool have_time;			/* a timestamp has been read */
	int64_t time;			/* the newest timestamp read */
	bool awaiting_header;		/* -H and no record read yet */
	bool quote_output;		/* delimited output: quote fields that need it */
	bool quote_numbers;		/* ... even numbers: the delimiter may be in one */
	struct field *fields;		/* whitespace input: the current line's fields */
	size_t field_cap;
	uint64_t records;		/* data records so far */
};

/*
 * What the loop for plain row windows needs of each spec, side by side, so that moving a
 * window costs the call and not the lookups of its operands.
 */
struct plain_spec {
	int (*slide)(struct agg *agg, uint64_t rows, const struct agg_value *value,
	    struct agg_result *result);
	size_t (*slide_many)(struct agg *agg, uint64_t rows, const struct agg_value *values,
	    size_t n, struct agg_result *results);	/* or NULL */
	struct agg *agg;
	uint64_t rows;
	const struct agg_value *values;	/* its column's values in the batch */
	struct agg_result *results;	/* its results in the batch */
};

/* True once a signal has asked the run to end (config->stop). */
static inline bool
stop_requested(const struct pipeline *p)
{
	return p->config->stop != NULL && *p->config->stop != 0;
}

/* The idle hook of the reader: flushes what is written before input is awaited. */
static int
pipeline_idle(void *context)
{
	return output_flush(context);
}

/*
 * Returns the position of the first blank (space or TAB) among the 8 bytes at s,
 * or 8.  It tests the 8 bytes at once (the reader makes them readable past a line's
 * end): x - 0x01... & ~x marks a zero byte of x exactly where no lower byte is zero,
 * so the lowest mark is exact.  On 7-byte numbers this costs about 15 instructions
 * where a byte loop costs 55.
 */
static inline size_t
first_blank_of_8(const char *s)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
	uint64_t word, spaces, tabs, marks;

	memcpy(&word, s, sizeof(word));
	spaces = word ^ (ones * ' ');
	tabs = word ^ (ones * '\t');
	marks = (((spaces - ones) & ~spaces) | ((tabs - ones) & ~tabs)) & highs;
	return marks != 0 ? (size_t)__builtin_ctzll(marks) / 8 : 8;
#else
	size_t i = 0;

	while (i < 8 && s[i] != ' ' && s[i] != '\t')
		i++;
	return i;
#endif
}

/*
 * Returns the length, 1 to 15, of the line at s when it is one short field alone (such
 * as "37.922" or "10.2.235.47" and its LF, the LF before end); else 0.  A word at a time
 * is tested for bytes below '!', among them LF, CR, space and TAB, as first_blank_of_8
 * tests for blanks: x - 0x21... & ~x marks a byte below 0x21 exactly where no lower byte
 * is one, so the lowest mark is the line's first control character or blank, and the
 * line is a bare field when that is its LF.  That costs about 10 instructions a word,
 * where a search for the LF and then one for the field's end cost about 70.  The second
 * word is read only when the first is all field, so its LF is further on and the 8
 * bytes are there (the lines end in LF, or the reader's padding follows the last).
 */
static inline size_t
short_bare_line(const char *s, const char *end)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
	uint64_t word, marks;
	size_t len = 0;

	memcpy(&word, s, sizeof(word));
	marks = (word - ones * '!') & ~word & highs;
	if (marks == 0) {
		len = 8;
		memcpy(&word, s + 8, sizeof(word));
		marks = (word - ones * '!') & ~word & highs;
		if (marks == 0)
			return 0;
	}
	len += (size_t)__builtin_ctzll(marks) / 8;
	return s[len] == '\n' && (size_t)(end - s) > len ? len : 0;
#else
	(void)s;
	(void)end;
	return 0;
#endif
}

/*
 * Finds the next blank-separated field at or after s, before end: stores its text in
 * *field and returns the position after it, or returns NULL when only blanks are left.
 */
PIPELINE_HOT const char *
next_blank_field(const char *s, const char *end, struct field *field)
{
	size_t k;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (s == end)
		return NULL;
	field->text = s;
	do {
		k = first_blank_of_8(s);
		s += k;
	} while (k == 8 && s < end);
	if (s > end)
		s = end;
	field->len = (size_t)(s - field->text);
	return s;
}

/*
 * Splits line into fields at runs of blanks (spaces and TABs), as awk does, up to
 * field limit.  Returns the number of fields found, or -1 when memory for the
 * field table is short.
 */
PIPELINE_HOT ptrdiff_t
split_blank_fields(struct pipeline *p, const char *line, size_t len, size_t limit)
{
	const char *s = line, *end = line + len;
	size_t n = 0;

	while (n < limit) {
		struct field field;

		if ((s = next_blank_field(s, end, &field)) == NULL)
			break;
		if (n == p->field_cap) {
			size_t cap = p->field_cap ? p->field_cap * 2 : 16, bytes;
			struct field *fields;

			if (mem_array_size(cap, sizeof(*fields), &bytes) != 0 ||
			    (fields = mem_realloc(p->fields, bytes)) == NULL)
				return -1;
			p->fields = fields;
			p->field_cap = cap;
		}
		p->fields[n++] = field;
	}
	return (ptrdiff_t)n;
}

/* True when the field text is one that --na lists as missing. */
static bool
is_na_text(const struct pipeline_config *config, const char *text, size_t len)
{
	for (size_t i = 0; i < config->na_count; i++)
		if (config->na_texts[i].len == len && memcmp(config->na_texts[i].text, text, len) == 0)
			return true;
	return false;
}

/*
 * Counts a problem at line/column, or, with --strict, records it as the fatal one.
 * Returns true when the run must stop.
 */
static bool
pipeline_problem(struct pipeline *p, enum problem_kind kind, uint64_t line, size_t column,
    const struct field *field, size_t field_count)
{
	struct problem *problem = &p->report->problems[kind];
	struct pipeline_report *r = p->report;

	if (problem->count++ == 0) {
		problem->first_line = line;
		problem->first_column = column;
	}
	if (!p->config->strict)
		return false;
	r->failed_kind = kind;
	r->failed_line = line;
	r->failed_column = column;
	r->failed_field_count = field_count;
	r->failed_text_len = 0;
	r->failed_text_cut = false;
	if (field != NULL) {
		r->failed_text_cut = field->len > sizeof(r->failed_text);
		r->failed_text_len = r->failed_text_cut ? sizeof(r->failed_text) : field->len;
		memcpy(r->failed_text, field->text, r->failed_text_len);
	}
	p->status = PIPELINE_BAD_INPUT;
	return true;
}

/* True for the blanks trimmed around a field's text. */
static inline bool
is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Returns text without its surrounding blanks, its length in *len. */
static const char *
trim_blanks(const char *text, size_t n, size_t *len)
{
	while (n > 0 && is_blank(text[0])) {
		text++;
		n--;
	}
	while (n > 0 && is_blank(text[n - 1]))
		n--;
	*len = n;
	return text;
}

/*
 * Points v at the field's text without surrounding blanks (a quoted CSV field keeps
 * them; a value is identified without).  Returns false when the field is missing:
 * empty, or an --na text.
 */
PIPELINE_HOT bool
field_value(const struct pipeline_config *config, const struct field *field,
    struct agg_value *v)
{
	/* A field split at blanks has none around it: the trimming is for delimited input. */
	if (config->input_delimiter == '\0') {
		v->text = field->text;
		v->text_len = field->len;
	} else {
		v->text = trim_blanks(field->text, field->len, &v->text_len);
	}
	return v->text_len > 0 && !(config->na_count > 0 &&
	    is_na_text(config, v->text, v->text_len));
}

/*
 * Sets *v, the value of column c, from its field in a record of field_count fields (read
 * up to the highest column) on line line.  Returns false when --strict stops the run.
 */
PIPELINE_HOT bool
read_column(struct pipeline *p, const struct column *c, struct agg_value *v,
    const struct field *field, uint64_t line, size_t field_count)
{
	v->has_text = v->has_number = false;
	if (!field_value(p->config, field, v))
		return true;
	v->has_text = true;
	if (!c->numeric)
		return true;
	v->has_number = parse_number(v->text, v->text_len, &v->number);
	return v->has_number || !pipeline_problem(p, PROBLEM_NOT_NUMBER, line, c->number,
	    field, field_count);
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
 * Turns the record's fields into the value of every column read.  Returns false
 * when --strict stops the run.
 */
PIPELINE_HOT bool
pipeline_read_columns(struct pipeline *p, const struct record *record)
{
	bool short_counted = false;

	for (size_t i = 0; i < p->column_count; i++) {
		struct column *c = &p->columns[i];

		c->value.has_text = c->value.has_number = false;
		if (c->number == 0)
			continue;
		if (c->number > record->field_count) {
			/* Counted once per record, however many columns it lacks. */
			if (!short_counted) {
				short_counted = true;
				if (!short_record(p, record->line, c->number, record->field_count))
					return false;
			}
			continue;
		}
		if (!read_column(p, c, &c->value, &record->fields[c->number - 1], record->line,
		    record->field_count))
			return false;
	}
	return true;
}

/*
 * pipeline_read_columns for a blank-separated line when only one column is read (as in
 * awk '{print $NF}' | swag avg p99), into *v: it looks for that one field instead of
 * splitting the line into a table, which saves about 80 instructions a record of the 750
 * of swag -w 1000 avg (callgrind).
 */
PIPELINE_HOT bool
read_single_column(struct pipeline *p, const char *line, size_t len, uint64_t line_number,
    struct agg_value *v)
{
	const struct column *c = &p->columns[0];
	const char *s = line, *end = line + len;
	struct field field;
	size_t count = 0;

	v->has_text = v->has_number = false;
	if (c->number == 0)
		return true;
	while ((s = next_blank_field(s, end, &field)) != NULL)
		if (++count == c->number)
			return read_column(p, c, v, &field, line_number, count);
	return short_record(p, line_number, c->number, count);
}

/* True when a CSV reader would not read text back as it is without quotes. */
static bool
needs_quotes(const struct pipeline *p, const char *text, size_t len)
{
	if (len == 0)
		return false;
	if (is_blank(text[0]) || is_blank(text[len - 1]))
		return true;
	for (size_t i = 0; i < len; i++) {
		char c = text[i];

		if (c == p->config->output_delimiter || c == '"' || c == '\n' || c == '\r')
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

/* Writes one result field. */
PIPELINE_HOT void
write_result(struct pipeline *p, const struct agg_result *result)
{
	const struct pipeline_config *config = p->config;
	struct output *out = p->out;
	char *buf;

	/* The common case first: a number, printed shortest. */
	if (result->kind == AGG_RESULT_NUMBER && config->precision < 0) {
		buf = output_reserve(out, NUMPRINT_SHORTEST_MAX);
		commit_number(p, buf, format_number(result->number, buf));
		return;
	}
	switch (result->kind) {
	case AGG_RESULT_NULL:
		write_text(p, config->null_text, config->null_len);
		break;
	case AGG_RESULT_NUMBER:	/* with -p */
		buf = output_reserve(out, NUMPRINT_FIXED_MAX);
		commit_number(p, buf, format_fixed(result->number, config->precision, buf));
		break;
	case AGG_RESULT_COUNT:
		buf = output_reserve(out, 20);
		commit_number(p, buf, format_uint(result->count, buf));
		break;
	case AGG_RESULT_TEXT:
		write_text(p, result->text, result->text_len);
		break;
	}
}

/* Writes the input record for -a: the line as it came, or its fields re-quoted. */
static void
write_input_record(struct pipeline *p, const struct record *record)
{
	if (record->raw != NULL) {
		output_write(p->out, record->raw, record->raw_len);
		return;
	}
	for (size_t i = 0; i < record->field_count; i++) {
		if (i > 0)
			output_byte(p->out, p->config->output_delimiter);
		write_text(p, record->fields[i].text, record->fields[i].len);
	}
}

/*
 * Reads the record's timestamp into p->time: the newest seen when the field is
 * missing, unreadable, or older than that.  Returns false when --strict stops the
 * run.
 */
static bool
pipeline_read_time(struct pipeline *p, const struct record *record)
{
	const struct pipeline_config *config = p->config;
	const struct field *field, *next = NULL;
	struct field joined_field;
	char joined[PIPELINE_QUOTE_MAX];
	struct agg_value v;
	size_t taken = 1;
	int64_t t;
	bool ok;

	if (p->time_column > record->field_count)
		return true;	/* counted with the record's other missing fields */
	field = &record->fields[p->time_column - 1];
	if (!field_value(config, field, &v))
		return true;
	/*
	 * In blank-separated input a date and a time, or "[date" and "zone]", are two
	 * fields; a date followed by no time is its midnight, the next field a field.
	 */
	if (config->input_delimiter == '\0' && p->time_column < record->field_count) {
		next = &record->fields[p->time_column];
		ok = parse_timestamp_fields(v.text, v.text_len, next->text, next->len,
		    config->epoch_unit, &t, &taken);
	} else {
		ok = parse_timestamp(v.text, v.text_len, config->epoch_unit, &t);
	}
	if (ok && !(p->have_time && t < p->time)) {
		p->time = t;
		p->have_time = true;
		return true;
	}
	/* A problem: a message quotes both fields of a pair, a space between. */
	if (taken == 2) {
		size_t n = field->len < sizeof(joined) ? field->len : sizeof(joined);

		memcpy(joined, field->text, n);
		if (n < sizeof(joined))
			joined[n++] = ' ';
		memcpy(joined + n, next->text,
		    next->len < sizeof(joined) - n ? next->len : sizeof(joined) - n);
		joined_field.text = joined;
		joined_field.len = field->len + 1 + next->len;	/* quoted up to sizeof(joined) */
		field = &joined_field;
	}
	if (!ok) {
		/* An epoch beyond 1e11 s (past 2262, unreadable) is probably in milliseconds. */
		if (epoch_exceeds_1e11_seconds(v.text, v.text_len, config->epoch_unit)) {
			struct problem *hint = &p->report->problems[PROBLEM_EPOCH_UNIT];

			if (hint->count++ == 0) {
				hint->first_line = record->line;
				hint->first_column = p->time_column;
			}
		}
		return !pipeline_problem(p, PROBLEM_BAD_TIMESTAMP, record->line, p->time_column,
		    field, record->field_count);
	}
	return !pipeline_problem(p, PROBLEM_TIME_BACKWARDS, record->line, p->time_column,
	    field, record->field_count);
}

/* Frees a group and its windows. */
static void
group_free(struct group *g)
{
	window_set_free(&g->windows);
	mem_free(g->key);
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
 * Finds the group of the record's key, making it when it is new.  The key is the
 * field's exact text (without surrounding blanks); a missing field is the empty key.
 * Returns NULL when memory is short.
 */
static struct group *
pipeline_group(struct pipeline *p, const struct record *record)
{
	const char *key = "";
	size_t len = 0;
	struct group *g;

	if (p->group_column <= record->field_count)
		key = trim_blanks(record->fields[p->group_column - 1].text,
		    record->fields[p->group_column - 1].len, &len);
	if ((g = keytable_find(p->groups, key, len)) != NULL)
		return g;
	if ((g = mem_realloc(NULL, sizeof(*g))) == NULL)
		return NULL;
	memset(g, 0, sizeof(*g));
	if ((g->key = mem_realloc(NULL, len ? len : 1)) == NULL) {
		group_free(g);
		return NULL;
	}
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
 * Frees the groups whose windows are all time windows and have all emptied: every
 * record of theirs is older than the longest window, so the key's next record would
 * find them empty anyway.  A long tail -f over ever-new keys thus keeps only the
 * live ones.
 */
static void
pipeline_reclaim(struct pipeline *p)
{
	while (p->oldest != NULL && p->oldest != p->newest &&
	    (uint64_t)p->time - (uint64_t)p->oldest->newest >= (uint64_t)p->longest) {
		struct group *g = p->oldest;

		group_unlink(p, g);
		keytable_remove(p->groups, g->key, g->key_len);
		group_free(g);
	}
}

/*
 * Moves the record's key's windows one record on and, on a step, writes the result
 * record.  Returns 0, or -1 with p->status set when the run must stop.  (run_plain_rows
 * repeats these steps for the common case: keep the two in step.)
 */
static int
pipeline_data_record(struct pipeline *p, const struct record *record)
{
	const struct pipeline_config *config = p->config;
	struct group *g = &p->single;
	struct agg_result *results;
	bool write;

	if (config->has_time && !pipeline_read_time(p, record))
		return -1;
	if (config->has_group) {
		if ((g = pipeline_group(p, record)) == NULL) {
			p->status = PIPELINE_NO_MEMORY;
			return -1;
		}
		group_unlink(p, g);
		group_link_newest(p, g);
		g->newest = p->time;
	}
	g->records++;
	write = config->step == 1 || g->records % config->step == 0;
	/* The windows give their results as they move, when they are to be written. */
	results = write ? p->results : NULL;
	/* A record before any readable timestamp belongs to no window. */
	if (config->has_time && !p->have_time) {
		if (write)
			window_set_results(&g->windows, results);
	} else if (window_set_push(&g->windows, config->specs, p->time, p->values,
	    results) != 0) {
		p->status = PIPELINE_NO_MEMORY;
		return -1;
	}
	if (write) {
		if (config->append) {
			write_input_record(p, record);
			output_byte(p->out, config->output_delimiter);
		} else if (config->has_group) {
			write_text(p, g->key, g->key_len);
			output_byte(p->out, config->output_delimiter);
		}
		for (size_t i = 0; i < config->spec_count; i++) {
			if (i > 0)
				output_byte(p->out, config->output_delimiter);
			write_result(p, &results[i]);
		}
		output_end_record(p->out);
	}
	if (p->reclaim)
		pipeline_reclaim(p);
	return 0;
}

/*
 * Builds the column table from the specs' field numbers, once they are known (at
 * the start, or after the header).
 */
static void
pipeline_bind_columns(struct pipeline *p)
{
	const struct pipeline_config *config = p->config;

	for (size_t i = 0; i < config->spec_count; i++) {
		const struct agg_spec *spec = &config->specs[i];
		size_t c = 0;

		while (c < p->column_count && p->columns[c].number != spec->column)
			c++;
		if (c == p->column_count) {
			p->columns[c].number = spec->column;
			p->columns[c].numeric = false;
			p->column_count++;
		}
		if (spec->kind->input == AGG_INPUT_NUMBER)
			p->columns[c].numeric = true;
		p->values[i] = &p->columns[c].value;
		if (spec->column > p->max_column)
			p->max_column = spec->column;
	}
	/* A timestamp may take the field after its own (a date, then a time). */
	if (p->time_column + 1 > p->max_column && config->input_delimiter == '\0')
		p->max_column = p->time_column + 1;
	if (p->time_column > p->max_column)
		p->max_column = p->time_column;
	if (p->group_column > p->max_column)
		p->max_column = p->group_column;
}

/* Appends ", "-separated header names for the unknown-column message. */
static char *
join_header_names(const struct record *record)
{
	size_t bytes = 1;
	char *names, *s;

	for (size_t i = 0; i < record->field_count; i++)
		bytes += record->fields[i].len + 2;
	if ((names = mem_realloc(NULL, bytes)) == NULL)
		return NULL;
	s = names;
	for (size_t i = 0; i < record->field_count; i++) {
		if (i > 0) {
			memcpy(s, ", ", 2);
			s += 2;
		}
		memcpy(s, record->fields[i].text, record->fields[i].len);
		s += record->fields[i].len;
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
	char number[24], *label;

	if (spec->column <= header->field_count) {
		name = header->fields[spec->column - 1].text;
		name_len = header->fields[spec->column - 1].len;
	} else {
		name = number;
		name_len = format_uint(spec->column, number);
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
 * Finds the header field called name; stores its number in *number.  Returns false,
 * with the unknown-column report filled, when there is none.
 */
static bool
resolve_column(struct pipeline *p, const struct record *header, const char *name,
    size_t len, size_t *number)
{
	for (size_t c = 0; c < header->field_count; c++)
		if (header->fields[c].len == len && memcmp(header->fields[c].text, name, len) == 0) {
			*number = c + 1;
			return true;
		}
	p->report->failed_column_name = name;
	p->report->failed_column_name_len = len;
	p->report->header_names = join_header_names(header);
	p->status = PIPELINE_UNKNOWN_COLUMN;
	return false;
}

/* Writes a column's name for the output header: its header text, or its number. */
static void
write_column_name(struct pipeline *p, const struct record *header, size_t number)
{
	if (number <= header->field_count) {
		write_text(p, header->fields[number - 1].text, header->fields[number - 1].len);
	} else {
		char *buf = output_reserve(p->out, 20);

		output_commit(p->out, format_uint(number, buf));
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

	for (size_t i = 0; i < config->spec_count; i++) {
		struct agg_spec *spec = &config->specs[i];

		if (spec->column_name != NULL && !resolve_column(p, record, spec->column_name,
		    spec->column_name_len, &spec->column))
			return false;
	}
	if (config->time_column.name != NULL && !resolve_column(p, record,
	    config->time_column.name, config->time_column.name_len, &p->time_column))
		return false;
	if (config->group_column.name != NULL && !resolve_column(p, record,
	    config->group_column.name, config->group_column.name_len, &p->group_column))
		return false;
	pipeline_bind_columns(p);
	if (config->append) {
		write_input_record(p, record);
		output_byte(out, config->output_delimiter);
	} else if (config->has_group) {
		write_column_name(p, record, p->group_column);
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

/*
 * Takes one record of either reader: the header, or data.  Returns 0 to go on, or
 * -1 with p->status set when the run must stop.
 */
static int
pipeline_record(void *context, const struct record *record)
{
	struct pipeline *p = context;

	if (p->awaiting_header) {
		p->awaiting_header = false;
		if (!pipeline_header(p, record))
			return -1;
	} else {
		if (!pipeline_read_columns(p, record))
			return -1;
		if (pipeline_data_record(p, record) != 0)
			return -1;
	}
	if (p->out->error != 0) {
		p->status = PIPELINE_WRITE_ERROR;
		return -1;
	}
	if (stop_requested(p)) {
		p->status = PIPELINE_STOPPED;
		return -1;
	}
	return 0;
}

/* True when the line begins with '#' after optional blanks. */
static bool
is_comment(const char *line, size_t len)
{
	size_t i = 0;

	while (i < len && is_blank(line[i]))
		i++;
	return i < len && line[i] == '#';
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
		return PIPELINE_WRITE_ERROR;
	case READER_STOPPED:
		return PIPELINE_STOPPED;
	default:
		return PIPELINE_OK;
	}
}

/* Reads blank-separated lines to the end. */
static enum pipeline_status
run_blank_separated(struct pipeline *p, struct reader *reader)
{
	struct record record;
	const char *line;
	size_t len;
	enum reader_status rs;

	while ((rs = reader_next(reader, &line, &len, &record.line)) == READER_LINE) {
		/* A header is split whole: -a writes it back and any column may be named. */
		size_t limit = p->awaiting_header ? (size_t)-1 : p->max_column;
		ptrdiff_t field_count;

		if (p->config->skip_comments && is_comment(line, len))
			continue;
		if ((field_count = split_blank_fields(p, line, len, limit)) < 0)
			return PIPELINE_NO_MEMORY;
		/* A blank line is no header: the header is the first record with fields. */
		if (p->awaiting_header && field_count == 0)
			continue;
		record.fields = p->fields;
		record.field_count = (size_t)field_count;
		record.raw = line;
		record.raw_len = len;
		if (pipeline_record(p, &record) != 0)
			return p->status;
	}
	return reader_failure(p, rs);
}

/*
 * True when run_plain_rows can take every record: blank-separated lines, windows of
 * rows only, and none of -H, -C, -a, -s, -t, -g.
 */
static bool
plain_rows(const struct pipeline *p)
{
	const struct pipeline_config *config = p->config;

	if (config->input_delimiter != '\0' || config->header || config->skip_comments ||
	    config->append || config->step != 1 || config->has_time || config->has_group)
		return false;
	for (size_t i = 0; i < config->spec_count; i++)
		if (config->specs[i].window.nanos != 0)
			return false;
	return true;
}

/*
 * run_blank_separated for the common case that plain_rows() admits: the steps of
 * pipeline_record and pipeline_data_record without the options that they test, over
 * the lines already read, in batches of up to batch records (PLAIN_BATCH, or 1 when a
 * result may be text): the values of the batch into values (batch per column), then
 * each window moved over them by its slide_many() or slide(), then the results written.
 * When a single column is read (single, a constant in each of the two copies), its
 * field is looked for directly, and a line of one short field is recognised a word at a
 * time.  A --strict stop or a memory failure at a record ends the run after the
 * results of the records before it are written.  A new option must either be handled
 * here or make plain_rows() false.  (The first version of this loop, record by record,
 * saved about 140 of 930 instructions a record of swag -w 1000 avg against
 * run_blank_separated; the loop as it is costs about 110 of 470.)
 */
/*
 * Reads the values of up to limit records from the lines at *s, before end, into values
 * (batch per column), numbering them on from *line_number; moves *s and *line_number
 * past them and stores their count in *count.  Returns PIPELINE_OK, or the status that
 * stops the run at record *count (--strict, or no memory), the records before it read.
 */
PIPELINE_HOT enum pipeline_status
plain_rows_values(struct pipeline *p, const char **s, const char *end, uint64_t *line_number,
    bool single, struct agg_value *values, size_t batch, size_t limit, size_t *count)
{
	size_t k;

	for (k = 0; k < limit && *s < end; k++) {
		const char *newline, *line = *s;
		size_t len;

		++*line_number;
		if (single && p->columns[0].number == 1 &&
		    (len = short_bare_line(line, end)) != 0) {
			struct field field = { line, len };

			*s = line + len + 1;
			if (!read_column(p, &p->columns[0], &values[k], &field, *line_number, 1))
				goto stop;
			continue;
		}
		if ((newline = reader_find_newline(line, end)) == NULL)
			newline = end;	/* the last line, without its LF */
		*s = newline + 1;
		len = (size_t)(newline - line);
		if (len > 0 && line[len - 1] == '\r')
			len--;
		if (single) {
			if (!read_single_column(p, line, len, *line_number, &values[k]))
				goto stop;
		} else {
			struct record record;
			ptrdiff_t field_count = split_blank_fields(p, line, len, p->max_column);

			if (field_count < 0) {
				p->status = PIPELINE_NO_MEMORY;
				goto stop;
			}
			record.fields = p->fields;
			record.field_count = (size_t)field_count;
			record.raw = line;
			record.raw_len = len;
			record.line = *line_number;
			if (!pipeline_read_columns(p, &record))
				goto stop;
			for (size_t c = 0; c < p->column_count; c++)
				values[c * batch + k] = p->columns[c].value;
		}
	}
	*count = k;
	return PIPELINE_OK;
stop:
	*count = k;
	return p->status;
}

PIPELINE_HOT enum pipeline_status
plain_rows_loop(struct pipeline *p, struct reader *reader, bool single,
    const struct plain_spec *specs, struct agg_value *values, size_t batch)
{
	const struct pipeline_config *config = p->config;
	const struct plain_spec *specs_end = specs + config->spec_count;
	struct output *out = p->out;
	uint64_t line_number = 0;
	enum reader_status rs;
	const char *s;
	size_t n;

	while ((rs = reader_next_lines(reader, &s, &n)) == READER_LINE) {
		const char *end = s + n;

		while (s < end) {
			const char *batch_start = s;
			uint64_t batch_line = line_number;
			struct problem problems[PROBLEM_KINDS];
			enum pipeline_status stop;
			size_t count, done;

			/* One record at a time (batch 1), its problems count as in the general loop. */
			if (batch > 1)
				memcpy(problems, p->report->problems, sizeof(problems));
			stop = plain_rows_values(p, &s, end, &line_number, single, values, batch,
			    batch, &count);
			/* Each window moved over them... */
			for (const struct plain_spec *spec = specs; spec < specs_end; spec++) {
				done = 0;
				if (spec->slide_many != NULL)
					done = spec->slide_many(spec->agg, spec->rows, spec->values,
					    count, spec->results);
				else
					while (done < count && spec->slide(spec->agg, spec->rows,
					    &spec->values[done], &spec->results[done]) == 0)
						done++;
				if (done < count) {
					/*
					 * Out of memory at record done: the run ends after the
					 * records before it, and the problems counted are
					 * theirs, not those of the batch's later records.
					 */
					count = done;
					stop = PIPELINE_NO_MEMORY;
					if (batch > 1) {
						memcpy(p->report->problems, problems, sizeof(problems));
						s = batch_start;
						line_number = batch_line;
						(void)plain_rows_values(p, &s, end, &line_number,
						    single, values, batch, done, &count);
					}
				}
			}
			/* ... and their results written. */
			for (size_t k = 0; k < count; k++) {
				for (const struct plain_spec *spec = specs; spec < specs_end; spec++) {
					if (spec > specs)
						output_byte(out, config->output_delimiter);
					write_result(p, &spec->results[k]);
				}
				output_end_record(out);
			}
			if (out->error != 0)
				return PIPELINE_WRITE_ERROR;
			if (stop != PIPELINE_OK)
				return stop;
			if (stop_requested(p))
				return PIPELINE_STOPPED;
		}
	}
	return reader_failure(p, rs);
}

static enum pipeline_status
run_plain_rows(struct pipeline *p, struct reader *reader)
{
	size_t n = p->config->spec_count, batch = PLAIN_BATCH, bytes;
	struct plain_spec *specs = NULL;
	struct agg_value *values = NULL;
	struct agg_result *results = NULL;
	enum pipeline_status status = PIPELINE_NO_MEMORY;

	/* A text result lives only until its window moves again: one record at a time. */
	for (size_t i = 0; i < n; i++)
		if (p->single.windows.aggs[i]->kind->text_results)
			batch = 1;
	if (mem_array_size(n, sizeof(*specs), &bytes) != 0 ||
	    (specs = mem_realloc(NULL, bytes)) == NULL ||
	    mem_array_size(p->column_count * batch, sizeof(*values), &bytes) != 0 ||
	    (values = mem_realloc(NULL, bytes)) == NULL ||
	    mem_array_size(n * batch, sizeof(*results), &bytes) != 0 ||
	    (results = mem_realloc(NULL, bytes)) == NULL)
		goto done;
	for (size_t i = 0; i < n; i++) {
		struct agg *agg = p->single.windows.aggs[i];
		size_t c = (size_t)((const char *)p->values[i] - (const char *)p->columns) /
		    sizeof(*p->columns);

		specs[i].slide = agg->kind->slide != NULL ? agg->kind->slide : agg_slide_by_parts;
		specs[i].slide_many = agg->kind->slide_many;
		specs[i].agg = agg;
		specs[i].rows = p->config->specs[i].window.rows;
		specs[i].values = values + c * batch;
		specs[i].results = results + i * batch;
	}
	if (p->column_count == 1)
		status = plain_rows_loop(p, reader, true, specs, values, batch);
	else
		status = plain_rows_loop(p, reader, false, specs, values, batch);
done:
	mem_free(specs);
	mem_free(values);
	mem_free(results);
	return status;
}

/* Reads delimited records through csvread to the end. */
static enum pipeline_status
run_delimited(struct pipeline *p, struct reader *reader)
{
	const struct pipeline_config *config = p->config;
	struct csvread_options options = {
		.delimiter = config->input_delimiter,
		.strict = config->strict,
		.skip_comments = config->skip_comments,
		.keep_fields = p->max_column,
		.keep_all = config->append || config->header,
		.on_record = pipeline_record,
		.context = p,
	};
	struct csvread *csv = csvread_create(&options);
	enum csvread_status cs = CSVREAD_OK;
	enum pipeline_status status = PIPELINE_OK;
	enum reader_status rs;
	const char *bytes;
	size_t len;

	if (csv == NULL)
		return PIPELINE_NO_MEMORY;
	while ((rs = reader_next_block(reader, &bytes, &len)) == READER_LINE) {
		if ((cs = csvread_feed(csv, bytes, len)) != CSVREAD_OK)
			break;
		/* Once the header is read, only the columns read need keeping. */
		if (!p->awaiting_header)
			csvread_keep(csv, p->max_column, config->append);
	}
	if (cs == CSVREAD_OK) {
		status = reader_failure(p, rs);
		if (status == PIPELINE_OK)
			cs = csvread_finish(csv);
	}
	switch (cs) {
	case CSVREAD_OK:
		break;
	case CSVREAD_STOPPED:
		status = p->status;
		break;
	case CSVREAD_MALFORMED:
	case CSVREAD_OPEN_QUOTE:
		p->report->failed_line = csvread_error_line(csv);
		p->report->failed_column = csvread_error_column(csv);
		status = cs == CSVREAD_MALFORMED ? PIPELINE_MALFORMED_CSV : PIPELINE_OPEN_QUOTE;
		break;
	case CSVREAD_NO_MEMORY:
		status = PIPELINE_NO_MEMORY;
		break;
	}
	csvread_destroy(csv);
	return status;
}

/*
 * Builds the windows (without -g) and, unless a header must name them first, the
 * column table.  Returns 0, or -1 when memory is short (what was built is freed by
 * pipeline_free).
 */
static int
pipeline_init(struct pipeline *p, const struct pipeline_config *config)
{
	size_t n = config->spec_count, bytes;

	memset(p, 0, sizeof(*p));
	p->config = config;
	p->awaiting_header = config->header;
	p->quote_output = config->input_delimiter != 0;
	p->quote_numbers = p->quote_output && config->output_delimiter != '\0' &&
	    strchr("0123456789.+-eEinfa", config->output_delimiter) != NULL;
	p->time_column = config->has_time ? config->time_column.number : 0;
	p->group_column = config->has_group ? config->group_column.number : 0;
	/*
	 * Groups can be reclaimed when every window is a time window; with -s a key's
	 * step count must survive, so they are kept.
	 */
	p->reclaim = config->has_group && config->step == 1;
	for (size_t i = 0; i < n; i++) {
		if (config->specs[i].window.nanos == 0)
			p->reclaim = false;
		else if (config->specs[i].window.nanos > p->longest)
			p->longest = config->specs[i].window.nanos;
	}
	if (mem_array_size(n, sizeof(*p->values), &bytes) != 0 ||
	    (p->values = mem_realloc(NULL, bytes ? bytes : 1)) == NULL ||
	    mem_array_size(n, sizeof(*p->results), &bytes) != 0 ||
	    (p->results = mem_realloc(NULL, bytes ? bytes : 1)) == NULL ||
	    mem_array_size(n + 2, sizeof(*p->columns), &bytes) != 0 ||
	    (p->columns = mem_realloc(NULL, bytes)) == NULL)
		return -1;
	if (config->has_group) {
		if ((p->groups = keytable_create(config->hash_seed)) == NULL)
			return -1;
	} else if (window_set_init(&p->single.windows, config->specs, n) != 0) {
		return -1;
	}
	if (!config->header)
		pipeline_bind_columns(p);
	return 0;
}

/* keytable_each's visitor: frees a group. */
static void
free_group(void *group, void *context)
{
	(void)context;
	group_free(group);
}

static void
pipeline_free(struct pipeline *p)
{
	window_set_free(&p->single.windows);
	if (p->groups != NULL) {
		keytable_each(p->groups, free_group, NULL);
		keytable_destroy(p->groups);
	}
	mem_free(p->values);
	mem_free(p->results);
	mem_free(p->columns);
	mem_free(p->fields);
}

enum pipeline_status
pipeline_run(const struct pipeline_config *config, int in_fd, struct output *out,
    struct pipeline_report *report)
{
	struct pipeline p;
	struct reader *reader = NULL;
	enum pipeline_status status;

	memset(report, 0, sizeof(*report));
	if (pipeline_init(&p, config) != 0 ||
	    (reader = reader_create(in_fd, pipeline_idle, out, config->stop)) == NULL) {
		status = PIPELINE_NO_MEMORY;
	} else {
		p.out = out;
		p.report = report;
		status = config->input_delimiter != 0 ? run_delimited(&p, reader) :
		    plain_rows(&p) ? run_plain_rows(&p, reader) : run_blank_separated(&p, reader);
	}
	if (status == PIPELINE_WRITE_ERROR || out->error != 0) {
		status = PIPELINE_WRITE_ERROR;
		report->error_number = out->error;
	}
	reader_destroy(reader);
	pipeline_free(&p);
	return status;
}
