/*
 * fuzz_pipeline.c: libFuzzer harness for the whole pipeline, bytes in to results out
 * (src/pipeline.c and everything it calls), configured as main.c configures it.
 *
 * The first 7 bytes choose the configuration; the rest is the input, handed to
 * pipeline_run through a memfd, with the output going to another memfd; a byte 1c at
 * the start of a line cuts it into two inputs, two FILE arguments (second_input).
 *
 *   byte 0   bit 0 delimited input (else blank-separated), 1 -H, 2 -a, 3 -g, 4 -t,
 *            5 --strict, 6 -C, 7 -s
 *   byte 1   bits 0-2 the input delimiter (, TAB ; space | . - ,), bits 3-4 the
 *            output delimiter (default, ",", TAB, "."), bits 5-7 the precision (-p)
 *   byte 2   the first two aggregates (a nibble each, from the table below)
 *   byte 3   2 bits each: the columns of the first two aggregates, -t's, -g's (1-4)
 *   byte 4   bits 0-2 the rows of -w (1-8), bits 3-5 its duration with -t, bit 6
 *            --epoch-unit=ms, bit 7 the second aggregate's own window @3
 *   byte 5   bits 0-1 -m (1-4), bits 2-3 -s (2-5), bit 4 --na=-,NA, bit 5
 *            --hll-bits=4, bit 6 --null= (else --null=N), bit 7 a third aggregate
 *   byte 6   the third aggregate (low nibble) and its column (bits 4-5); bit 6: with
 *            -H, name the columns a, b, c, d rather than number them; bit 7: the
 *            aggregates from the second table (first, last, delta, rate, ewma...),
 *            and the second one's own window @all (ewma's stays @3: main.c refuses
 *            ewma@all)
 *
 * Beyond no crash, no leak and no undefined behaviour, it checks what the man page
 * promises of a run that ends well (and, of one that stops, that nothing more was
 * written):
 *
 *   - every data record yields exactly one output record, and the header one more
 *     (every step-th without -g);
 *   - delimited output reads back, with strict quoting, as records of the expected
 *     width; with -a each begins with the input record's fields, intact;
 *   - with -a, each blank-separated output line begins with its input line, intact.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "csvread.h"
#include "mem.h"
#include "output.h"
#include "pipeline.h"
#include "spec.h"

static const char *const aggregate_names[16] = {
	"sum", "avg", "count", "min", "max", "var", "stddev", "median",
	"mode", "distinct", "p99", "p0", "p100", "p99.9", "mean", "p50",
};
static const char *const more_aggregate_names[16] = {
	"first", "last", "delta", "rate", "ewma", "first", "last", "delta",
	"rate", "ewma", "sum", "count", "min", "distinct", "median", "mode",
};
static const char *const durations[8] = {
	"1s", "500ms", "2s", "1m", "1h", "1d", "1.5s", "3ms",
};
static const char *const column_names[4] = { "a", "b", "c", "d" };

static int in_fd = -1, in2_fd = -1, out_fd = -1;

/*
 * Where the input is cut into two inputs: at a byte 1c (the file separator) that
 * starts a line, when the second part starts as no byte-order mark or gzip member
 * does and no header is read (one in each file would count twice); then the two
 * inputs give the records of the input without that byte (swag(1), FILES).  Returns
 * the separator's position, or size for one input.
 */
static size_t
second_input(const uint8_t *data, size_t size, bool header)
{
	for (size_t i = 0; i < size && !header; i++)
		if (data[i] == 0x1c && (i == 0 || data[i - 1] == '\n'))
			return i + 1 < size && (data[i + 1] == 0xef || data[i + 1] == 0xfe ||
			    data[i + 1] == 0xff || data[i + 1] == 0x1f) ? size : i;
	return size;
}
static struct output out;

static void
fail(const char *what)
{
	fprintf(stderr, "fuzz_pipeline: %s\n", what);
	abort();
}

/* The records of a delimited text, kept whole, for comparing input and output. */
struct record_list {
	char **fields;			/* every field of every record, in order */
	size_t *lens;
	size_t field_total, fields_cap, lens_cap;
	size_t *widths;			/* the number of fields of each record */
	size_t count, widths_cap;
};

static void *
grow(void *p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return p;
	*cap = need * 2;
	if ((p = realloc(p, *cap * size)) == NULL)
		abort();
	return p;
}

static int
collect_record(void *context, const struct record *record)
{
	struct record_list *list = context;

	list->widths = grow(list->widths, &list->widths_cap, list->count + 1, sizeof(size_t));
	list->widths[list->count++] = record->field_count;
	for (size_t i = 0; i < record->field_count; i++) {
		char *copy = malloc(record->fields[i].len + 1);

		if (copy == NULL)
			abort();
		memcpy(copy, record->fields[i].text, record->fields[i].len);
		list->fields = grow(list->fields, &list->fields_cap, list->field_total + 1,
		    sizeof(char *));
		list->lens = grow(list->lens, &list->lens_cap, list->field_total + 1,
		    sizeof(size_t));
		list->fields[list->field_total] = copy;
		list->lens[list->field_total++] = record->fields[i].len;
	}
	return 0;
}

static void
free_records(struct record_list *list)
{
	for (size_t i = 0; i < list->field_total; i++)
		free(list->fields[i]);
	free(list->fields);
	free(list->lens);
	free(list->widths);
}

/* Reads text as delimited records, every field kept.  Returns the csvread_status. */
static enum csvread_status
read_records(const char *text, size_t len, char delimiter, bool strict, bool skip_comments,
    struct record_list *list)
{
	struct csvread_options options = {
		.delimiter = delimiter,
		.strict = strict,
		.skip_comments = skip_comments,
		.keep_all = true,
		.on_record = collect_record,
		.context = list,
	};
	struct csvread *reader = csvread_create(&options);
	enum csvread_status status;

	if (reader == NULL)
		abort();
	status = csvread_feed(reader, text, len);
	if (status == CSVREAD_OK)
		status = csvread_finish(reader);
	csvread_destroy(reader);
	return status;
}

/* Counts the records of delimited output: line ends outside quotes. */
static size_t
count_quoted_lines(const char *text, size_t len)
{
	bool quoted = false;
	size_t n = 0;

	for (size_t i = 0; i < len; i++) {
		if (text[i] == '"')
			quoted = !quoted;
		else if (text[i] == '\n' && !quoted)
			n++;
	}
	if (quoted || (len > 0 && text[len - 1] != '\n'))
		fail("delimited output ends inside a quote or without a line end");
	return n;
}

/* True when the line begins with '#' after blanks. */
static bool
is_comment(const char *line, size_t len)
{
	size_t i = 0;

	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	return i < len && line[i] == '#';
}

static bool
has_field(const char *line, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (line[i] != ' ' && line[i] != '\t')
			return true;
	return false;
}

/*
 * Blank-separated input: the lines that make output lines (the header, then data),
 * as the reader hands them out: without the line end and one CR before it, after a
 * UTF-8 byte-order mark, without comment lines (-C) and blank lines before the header
 * (-H).  Stores up to max of them in lines/lens; returns how many there are.
 */
static size_t
record_lines(const char *text, size_t len, bool skip_comments, bool header,
    const char **lines, size_t *lens, size_t max)
{
	size_t n = 0, at = 0;
	bool awaiting_header = header;

	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		at = 3;
	while (at < len) {
		const char *line = text + at, *newline = memchr(line, '\n', len - at);
		size_t line_len = newline != NULL ? (size_t)(newline - line) : len - at;

		at += line_len + (newline != NULL);
		if (line_len > 0 && line[line_len - 1] == '\r')
			line_len--;
		if (skip_comments && is_comment(line, line_len))
			continue;
		if (awaiting_header) {
			if (!has_field(line, line_len))
				continue;
			awaiting_header = false;
		}
		if (n < max) {
			lines[n] = line;
			lens[n] = line_len;
		}
		n++;
	}
	return n;
}

/*
 * The number of output records for records input records, header included: every
 * step-th data record's.  With -g the steps count per key: then only a bound is
 * known, and *exact is cleared.
 */
static size_t
expected_output(const struct pipeline_config *config, size_t records, bool *exact)
{
	if (config->step == 1 || records == 0)
		return records;
	if (config->has_group) {
		*exact = false;
		return records;
	}
	return config->header + (records - config->header) / config->step;
}

/* Reads the output memfd back whole; the caller frees *text. */
static size_t
read_output(char **text)
{
	off_t size = lseek(out_fd, 0, SEEK_END);
	size_t len = size > 0 ? (size_t)size : 0;

	if (size < 0 || (*text = malloc(len + 1)) == NULL ||
	    pread(out_fd, *text, len, 0) != (ssize_t)len)
		abort();
	return len;
}

/* Checks a blank-separated run's output lines against its input lines. */
static void
check_blank_separated(const struct pipeline_config *config, const char *input,
    size_t input_len, const char *output, size_t output_len, bool complete)
{
	size_t max = input_len + 1, expected, got = 0, at = 0;
	const char **lines = malloc(max * sizeof(*lines));
	size_t *lens = malloc(max * sizeof(*lens));

	if (lines == NULL || lens == NULL)
		abort();
	expected = expected_output(config, record_lines(input, input_len,
	    config->skip_comments, config->header, lines, lens, max), &complete);
	for (size_t i = 0; i < output_len; i++)
		got += output[i] == '\n';
	if (output_len > 0 && output[output_len - 1] != '\n')
		fail("output ends without a line end");
	if (complete ? got != expected : got > expected) {
		fprintf(stderr, "%zu output lines for %zu records\n", got, expected);
		fail("not one output line per record");
	}
	/* With -a, each output line begins with its input line and the delimiter. */
	for (size_t i = 0; config->append && config->step == 1 && i < got; i++) {
		const char *line = output + at, *newline = memchr(line, '\n', output_len - at);
		size_t len = (size_t)(newline - line);

		if (len <= lens[i] || memcmp(line, lines[i], lens[i]) != 0 ||
		    line[lens[i]] != config->output_delimiter)
			fail("-a: the input line is not intact");
		at += len + 1;
	}
	free(lines);
	free(lens);
}

/* Checks a delimited run's output records against its input records. */
static void
check_delimited(const struct pipeline_config *config, const char *input, size_t input_len,
    const char *output, size_t output_len, bool complete)
{
	struct record_list in = { 0 }, back = { 0 };
	size_t expected, got = count_quoted_lines(output, output_len), width, at_in = 0,
	    at_out = 0;
	size_t skip = input_len >= 3 && memcmp(input, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;

	if (read_records(input + skip, input_len - skip, config->input_delimiter,
	    config->strict, config->skip_comments, &in) != CSVREAD_OK) {
		if (complete)
			fail("the run ended well, but the input does not read as records");
		free_records(&in);
		return;
	}
	expected = expected_output(config, in.count, &complete);
	if (complete ? got != expected : got > expected) {
		fprintf(stderr, "%zu output records for %zu records\n", got, expected);
		fail("not one output record per record");
	}
	/*
	 * The output reads back with strict quoting, a record for a record: an empty
	 * null alone in its record is written "", not as a blank line, which a reader
	 * skips.
	 */
	if (read_records(output, output_len, config->output_delimiter, true, false,
	    &back) != CSVREAD_OK)
		fail("the output does not read back as strict CSV");
	if (config->step == 1) {
		if (back.count != got)
			fail("the output's records do not read back one for one");
		for (size_t r = 0; r < back.count; r++) {
			width = config->append ? in.widths[r] : config->has_group;
			if (back.widths[r] != width + config->spec_count)
				fail("an output record of the wrong width");
			/* With -a, the input record's fields come first, intact. */
			for (size_t f = 0; config->append && f < in.widths[r]; f++)
				if (in.lens[at_in + f] != back.lens[at_out + f] ||
				    memcmp(in.fields[at_in + f], back.fields[at_out + f],
				    in.lens[at_in + f]) != 0)
					fail("-a: the input record is not intact");
			at_in += in.widths[r];
			at_out += back.widths[r];
		}
	}
	free_records(&in);
	free_records(&back);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char input_delimiters[8] = { ',', '\t', ';', ' ', '|', '.', '-', ',' };
	static const int precisions[8] = { -1, 0, 1, 2, 3, 6, 17, 30 };
	static const struct field na_texts[2] = { { "-", 1 }, { "NA", 2 } };
	char texts[3][64];
	struct agg_spec specs[3];
	struct window_size default_window;
	struct pipeline_config config = { 0 };
	struct pipeline_report report;
	struct pipeline_input inputs[2];
	uint8_t *joined = NULL;
	size_t cut;
	enum pipeline_status status;
	unsigned kinds[3], columns[3];
	bool names;
	char *output;
	size_t output_len;

	if (in_fd < 0) {
		in_fd = memfd_create("fuzz-input", 0);
		in2_fd = memfd_create("fuzz-input-2", 0);
		out_fd = memfd_create("fuzz-output", 0);
		if (in_fd < 0 || in2_fd < 0 || out_fd < 0)
			abort();
	}
	if (size < 7)
		return 0;

	config.input_delimiter = data[0] & 1 ? input_delimiters[data[1] & 7] : '\0';
	config.header = data[0] & 2;
	config.append = data[0] & 4;
	config.has_group = data[0] & 8;
	config.has_time = data[0] & 16;
	config.strict = data[0] & 32;
	config.skip_comments = data[0] & 64;
	config.step = data[0] & 128 ? 2 + (data[5] >> 2 & 3) : 1;
	switch (data[1] >> 3 & 3) {
	case 0:
		config.output_delimiter = config.input_delimiter ? config.input_delimiter : '\t';
		break;
	case 1:
		config.output_delimiter = ',';
		break;
	case 2:
		config.output_delimiter = '\t';
		break;
	default:
		config.output_delimiter = '.';
		break;
	}
	/* As main.c sets it: blanks separate the output, the input is not TSV. */
	config.blank_output = (config.output_delimiter == '\t' ||
	    config.output_delimiter == ' ') && config.input_delimiter != '\t';
	config.precision = precisions[data[1] >> 5];
	config.null_text = data[5] & 64 ? "" : "N";
	config.null_len = strlen(config.null_text);
	if (data[5] & 16) {
		config.na_texts = na_texts;
		config.na_count = 2;
	}
	config.epoch_unit = data[4] & 64 ? EPOCH_MILLISECONDS : EPOCH_SECONDS;
	config.hash_seed = 42;
	names = config.header && (data[6] & 64);

	kinds[0] = data[2] & 15;
	kinds[1] = data[2] >> 4;
	kinds[2] = data[6] & 15;
	columns[0] = 1 + (data[3] & 3);
	columns[1] = 1 + (data[3] >> 2 & 3);
	columns[2] = 1 + (data[6] >> 4 & 3);
	config.spec_count = data[5] & 128 ? 3 : 2;
	if (config.has_time) {
		unsigned c = 1 + (data[3] >> 4 & 3);

		config.time_column.number = names ? 0 : c;
		config.time_column.name = names ? column_names[c - 1] : NULL;
		config.time_column.name_len = names ? 1 : 0;
	}
	if (config.has_group) {
		unsigned c = 1 + (data[3] >> 6);

		config.group_column.number = names ? 0 : c;
		config.group_column.name = names ? column_names[c - 1] : NULL;
		config.group_column.name_len = names ? 1 : 0;
	}
	default_window.rows = 1 + (data[4] & 7);
	default_window.nanos = 0;
	if (config.has_time && (data[4] & 8) &&
	    window_parse(durations[data[4] >> 3 & 7], strlen(durations[data[4] >> 3 & 7]),
	    &default_window) != 0)
		fail("a duration of the table does not parse");
	for (size_t i = 0; i < config.spec_count; i++) {
		struct agg_spec *spec = &specs[i];
		bool more = data[6] & 128;
		const char *name = more ? more_aggregate_names[kinds[i]] :
		    aggregate_names[kinds[i]];

		if (names)
			snprintf(texts[i], sizeof(texts[i]), "%s:%s", name,
			    column_names[columns[i] - 1]);
		else
			snprintf(texts[i], sizeof(texts[i]), "%s:%u", name, columns[i]);
		if (i == 1 && (data[4] & 128))
			strcat(texts[i], more && strcmp(name, "ewma") != 0 ? "@all" : "@3");
		if (spec_parse(texts[i], spec) != SPEC_OK)
			fail("a spec of the table does not parse");
		if (!spec->has_window)
			spec->window = default_window;
		spec->params.min_count = 1 + (data[5] & 3);
		spec->params.hll_bits = data[5] & 32 ? 4 : 12;
		spec->params.hash_seed = config.hash_seed;
	}
	config.specs = specs;
	data += 7;
	size -= 7;

	cut = second_input(data, size, config.header);
	if (ftruncate(in_fd, 0) != 0 || ftruncate(in2_fd, 0) != 0 || ftruncate(out_fd, 0) != 0 ||
	    (cut > 0 && pwrite(in_fd, data, cut, 0) != (ssize_t)cut) ||
	    (cut + 1 < size && pwrite(in2_fd, data + cut + 1, size - cut - 1, 0) !=
	    (ssize_t)(size - cut - 1)) ||
	    lseek(in_fd, 0, SEEK_SET) != 0 || lseek(in2_fd, 0, SEEK_SET) != 0 ||
	    lseek(out_fd, 0, SEEK_SET) != 0)
		abort();
	output_init(&out, out_fd);
	inputs[0].name = "first";
	inputs[0].fd = in_fd;
	inputs[1].name = "second";
	inputs[1].fd = in2_fd;
	status = pipeline_run(&config, inputs, cut < size ? 2 : 1, &out, &report);
	if (cut < size) {
		/* The checks below read the input as one: without the separator. */
		if ((joined = malloc(size)) == NULL)
			abort();
		memcpy(joined, data, cut);
		memcpy(joined + cut, data + cut + 1, size - cut - 1);
		data = joined;
		size--;
	}
	if (output_finish(&out) != 0)
		fail("cannot write to the output memfd");
	mem_free(report.header_names);

	switch (status) {
	case PIPELINE_OK:
	case PIPELINE_BAD_INPUT:
	case PIPELINE_NO_TIMESTAMP:
	case PIPELINE_MALFORMED_CSV:
	case PIPELINE_OPEN_QUOTE:
	case PIPELINE_UTF16:
	case PIPELINE_UNKNOWN_COLUMN:
	case PIPELINE_GZIP_TRUNCATED:	/* an input that starts with gzip's magic */
	case PIPELINE_GZIP_CORRUPT:
		break;
	case PIPELINE_READ_ERROR:
	case PIPELINE_WRITE_ERROR:
	case PIPELINE_NO_MEMORY:
		fail("an input/output or memory error from a memfd and a small input");
		break;
	case PIPELINE_STOPPED:
		fail("a stop without a stop flag");
		break;
	default:
		fail("a status outside enum pipeline_status");
	}
	if (status == PIPELINE_BAD_INPUT && (!config.strict || report.failed_kind >= PROBLEM_KINDS ||
	    report.failed_text_len > PIPELINE_QUOTE_MAX))
		fail("a bad input report out of range");
	/* Before any timestamp, an unreadable one or a short record stops the run. */
	if (status == PIPELINE_NO_TIMESTAMP && (!config.has_time ||
	    (report.failed_kind != PROBLEM_BAD_TIMESTAMP &&
	    report.failed_kind != PROBLEM_SHORT_RECORD) ||
	    report.failed_text_len > PIPELINE_QUOTE_MAX))
		fail("a first-timestamp report out of range");
	if (status != PIPELINE_OK && status != PIPELINE_BAD_INPUT &&
	    status != PIPELINE_NO_TIMESTAMP && config.strict &&
	    report.problems[PROBLEM_NOT_NUMBER].count + report.problems[PROBLEM_SHORT_RECORD].count +
	    report.problems[PROBLEM_BAD_TIMESTAMP].count +
	    report.problems[PROBLEM_TIME_BACKWARDS].count > 0)
		fail("--strict met a problem but did not stop for it");

	if (status == PIPELINE_UTF16 || status == PIPELINE_UNKNOWN_COLUMN) {
		free(joined);
		return 0;
	}
	output_len = read_output(&output);
	if (config.input_delimiter == '\0')
		check_blank_separated(&config, (const char *)data, size, output, output_len,
		    status == PIPELINE_OK);
	else if (status == PIPELINE_OK || status == PIPELINE_BAD_INPUT ||
	    status == PIPELINE_NO_TIMESTAMP)
		check_delimited(&config, (const char *)data, size, output, output_len,
		    status == PIPELINE_OK);
	free(output);
	free(joined);
	return 0;
}
