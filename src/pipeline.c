/*
 * pipeline.c: records in, results out (see pipeline.h).
 */
#include <errno.h>
#include <string.h>

#include "agg.h"
#include "mem.h"
#include "numparse.h"
#include "numprint.h"
#include "pipeline.h"
#include "reader.h"

/* A field of the current line. */
struct field {
	const char *text;
	size_t len;
};

/* One column that some aggregate reads, and its value in the current record. */
struct column {
	size_t number;			/* 1-based */
	bool numeric;			/* a numeric aggregate reads it */
	struct agg_value value;
};

struct pipeline {
	const struct pipeline_config *config;
	struct output *out;
	struct pipeline_report *report;
	struct agg **aggs;		/* one per spec */
	size_t *agg_column;		/* index into columns, per spec */
	struct column *columns;		/* the distinct columns read */
	size_t column_count;
	size_t max_column;
	struct field *fields;		/* the current line's first fields */
	size_t field_cap;
	uint64_t records;		/* data records so far */
};

/* The idle hook of the reader: flushes what is written before input is awaited. */
static int
pipeline_idle(void *context)
{
	return output_flush(context);
}

/*
 * Splits line into fields at runs of blanks (spaces and TABs), as awk does, up to
 * the largest column read.  Returns the number of fields found, or -1 when memory
 * for the field table is short.
 */
static ptrdiff_t
split_blank_fields(struct pipeline *p, const char *line, size_t len)
{
	const char *s = line, *end = line + len;
	size_t n = 0;

	while (n < p->max_column) {
		const char *start;

		while (s < end && (*s == ' ' || *s == '\t'))
			s++;
		if (s == end)
			break;
		start = s;
		while (s < end && *s != ' ' && *s != '\t')
			s++;
		if (n == p->field_cap) {
			size_t cap = p->field_cap ? p->field_cap * 2 : 16, bytes;
			struct field *fields;

			if (mem_array_size(cap, sizeof(*fields), &bytes) != 0 ||
			    (fields = mem_realloc(p->fields, bytes)) == NULL)
				return -1;
			p->fields = fields;
			p->field_cap = cap;
		}
		p->fields[n].text = start;
		p->fields[n].len = (size_t)(s - start);
		n++;
	}
	return (ptrdiff_t)n;
}

/* True when the field text is one that --na lists as missing. */
static bool
is_na_text(const struct pipeline_config *config, const char *text, size_t len)
{
	for (size_t i = 0; i < config->na_count; i++)
		if (strlen(config->na_texts[i]) == len && memcmp(config->na_texts[i], text, len) == 0)
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
	return true;
}

/*
 * Turns the fields of one line into the value of every column read.  Returns false
 * when --strict stops the run.
 */
static bool
pipeline_read_columns(struct pipeline *p, size_t field_count, uint64_t line)
{
	const struct pipeline_config *config = p->config;
	bool short_counted = false;

	for (size_t i = 0; i < p->column_count; i++) {
		struct column *c = &p->columns[i];
		struct agg_value *v = &c->value;

		v->has_text = v->has_number = false;
		if (c->number > field_count) {
			/*
			 * A blank line is a record whose fields are all missing, not a
			 * problem: it keeps swag's output aligned with its input.
			 */
			if (field_count > 0 && !short_counted) {
				short_counted = true;
				if (pipeline_problem(p, PROBLEM_SHORT_RECORD, line, c->number,
				    NULL, field_count))
					return false;
			}
			continue;
		}
		v->text = p->fields[c->number - 1].text;
		v->text_len = p->fields[c->number - 1].len;
		if (v->text_len == 0 || (config->na_count > 0 &&
		    is_na_text(config, v->text, v->text_len)))
			continue;
		v->has_text = true;
		if (!c->numeric)
			continue;
		v->has_number = parse_number(v->text, v->text_len, &v->number);
		if (!v->has_number && pipeline_problem(p, PROBLEM_NOT_NUMBER, line, c->number,
		    &p->fields[c->number - 1], field_count))
			return false;
	}
	return true;
}

/* Writes one result field. */
static void
write_result(struct pipeline *p, const struct agg_result *result)
{
	const struct pipeline_config *config = p->config;
	struct output *out = p->out;
	char *buf;

	switch (result->kind) {
	case AGG_RESULT_NULL:
		output_write(out, config->null_text, config->null_len);
		break;
	case AGG_RESULT_NUMBER:
		if (config->precision < 0) {
			buf = output_reserve(out, NUMPRINT_SHORTEST_MAX);
			output_commit(out, format_number(result->number, buf));
		} else {
			buf = output_reserve(out, NUMPRINT_FIXED_MAX);
			output_commit(out, format_fixed(result->number, config->precision, buf));
		}
		break;
	case AGG_RESULT_COUNT:
		buf = output_reserve(out, 20);
		output_commit(out, format_uint(result->count, buf));
		break;
	case AGG_RESULT_TEXT:
		output_write(out, result->text, result->text_len);
		break;
	}
}

/*
 * Moves every window one record on and, on a step, writes the result record.
 * Returns 0, or -1 when a window cannot grow.
 */
static int
pipeline_record(struct pipeline *p, const char *line, size_t len)
{
	const struct pipeline_config *config = p->config;
	bool write = ++p->records % config->step == 0;
	struct agg_result result;

	if (write && config->append) {
		output_write(p->out, line, len);
		output_byte(p->out, config->output_delimiter);
	}
	for (size_t i = 0; i < config->spec_count; i++) {
		struct agg *agg = p->aggs[i];
		const struct agg_kind *kind = agg->kind;

		/* Pop first: a full window of W slots never needs a W+1st. */
		if (kind->size(agg) == config->specs[i].window.rows)
			kind->pop(agg);
		if (kind->push(agg, &p->columns[p->agg_column[i]].value) != 0)
			return -1;
		if (write) {
			if (i > 0)
				output_byte(p->out, config->output_delimiter);
			kind->result(agg, &result);
			write_result(p, &result);
		}
	}
	if (write)
		output_byte(p->out, '\n');
	return 0;
}

/* True when the line begins with '#' after optional blanks. */
static bool
is_comment(const char *line, size_t len)
{
	size_t i = 0;

	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	return i < len && line[i] == '#';
}

/*
 * Builds the windows and the column table.  Returns 0, or -1 when memory is short
 * (what was built is freed by pipeline_free).
 */
static int
pipeline_init(struct pipeline *p, const struct pipeline_config *config)
{
	size_t n = config->spec_count, bytes;

	p->aggs = NULL;
	p->agg_column = NULL;
	p->columns = NULL;
	p->column_count = 0;
	p->max_column = 0;
	p->fields = NULL;
	p->field_cap = 0;
	p->records = 0;
	if (mem_array_size(n, sizeof(*p->aggs), &bytes) != 0 ||
	    (p->aggs = mem_realloc(NULL, bytes)) == NULL)
		return -1;
	for (size_t i = 0; i < n; i++)
		p->aggs[i] = NULL;
	if (mem_array_size(n, sizeof(*p->agg_column), &bytes) != 0 ||
	    (p->agg_column = mem_realloc(NULL, bytes)) == NULL ||
	    mem_array_size(n, sizeof(*p->columns), &bytes) != 0 ||
	    (p->columns = mem_realloc(NULL, bytes)) == NULL)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct agg_spec *spec = &config->specs[i];
		size_t c = 0;

		if ((p->aggs[i] = spec->kind->create(spec->kind, &spec->params)) == NULL)
			return -1;
		while (c < p->column_count && p->columns[c].number != spec->column)
			c++;
		if (c == p->column_count) {
			p->columns[c].number = spec->column;
			p->columns[c].numeric = false;
			p->column_count++;
		}
		if (spec->kind->input == AGG_INPUT_NUMBER)
			p->columns[c].numeric = true;
		p->agg_column[i] = c;
		if (spec->column > p->max_column)
			p->max_column = spec->column;
	}
	return 0;
}

static void
pipeline_free(struct pipeline *p)
{
	if (p->aggs != NULL)
		for (size_t i = 0; i < p->config->spec_count; i++)
			if (p->aggs[i] != NULL)
				p->aggs[i]->kind->destroy(p->aggs[i]);
	mem_free(p->aggs);
	mem_free(p->agg_column);
	mem_free(p->columns);
	mem_free(p->fields);
}

enum pipeline_status
pipeline_run(const struct pipeline_config *config, int in_fd, struct output *out,
    struct pipeline_report *report)
{
	struct pipeline p;
	struct reader *reader = NULL;
	enum pipeline_status status = PIPELINE_OK;
	const char *line;
	size_t len;
	uint64_t line_number;

	memset(report, 0, sizeof(*report));
	p.config = config;
	p.out = out;
	p.report = report;
	if (pipeline_init(&p, config) != 0 ||
	    (reader = reader_create(in_fd, pipeline_idle, out)) == NULL) {
		status = PIPELINE_NO_MEMORY;
		goto done;
	}
	for (;;) {
		enum reader_status rs = reader_next(reader, &line, &len, &line_number);
		ptrdiff_t field_count;

		if (rs != READER_LINE) {
			if (rs == READER_READ_ERROR) {
				report->error_number = errno;
				status = PIPELINE_READ_ERROR;
			} else if (rs == READER_NO_MEMORY)
				status = PIPELINE_NO_MEMORY;
			else if (rs == READER_UTF16)
				status = PIPELINE_UTF16;
			else if (rs == READER_IDLE_ERROR)
				status = PIPELINE_WRITE_ERROR;
			break;
		}
		if (config->skip_comments && is_comment(line, len))
			continue;
		if ((field_count = split_blank_fields(&p, line, len)) < 0) {
			status = PIPELINE_NO_MEMORY;
			break;
		}
		if (!pipeline_read_columns(&p, (size_t)field_count, line_number)) {
			status = PIPELINE_BAD_INPUT;
			break;
		}
		if (pipeline_record(&p, line, len) != 0) {
			status = PIPELINE_NO_MEMORY;
			break;
		}
		if (out->error != 0) {
			status = PIPELINE_WRITE_ERROR;
			break;
		}
	}
done:
	if (status == PIPELINE_WRITE_ERROR || out->error != 0) {
		status = PIPELINE_WRITE_ERROR;
		report->error_number = out->error;
	}
	reader_destroy(reader);
	pipeline_free(&p);
	return status;
}
