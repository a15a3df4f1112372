/*
 * fuzz_csvread.c: libFuzzer harness for the delimited reader (src/csvread.c).
 *
 * The first bytes choose the options and how the input is cut into blocks:
 *
 *   byte 0   bit 0 strict, bit 1 skip comments (-C), bit 2 keep all fields,
 *            bit 3 no quotes (--no-quotes), bits 4-7 how many fields to keep
 *   byte 1   the delimiter: 0-7 pick , TAB ; space | and three more commas, any
 *            other byte is itself (but never a quote or a line end, as main.c refuses)
 *   byte 2   bits 0-3: stop after that many records (0: never); bit 4: after the
 *            first record keep only as many fields as bits 5-7 say, as the pipeline
 *            does once a header is read
 *   bytes 3-6  block sizes, 1 to 256, used in turn
 *
 * The rest is the input.  It is read four times, fed whole, in the chosen blocks,
 * one byte at a time and whole with every record through libcsv (libcsv_only: no
 * line split directly), and the transcripts (every record with its line, fields and
 * which were kept, then the end status and the error's line and column) must be
 * identical.  When strict mode finds nothing wrong, lax mode must give the same
 * transcript too.  Without quotes, libcsv is never used: the transcript must instead
 * be that of a naive split of each line (unquoted_model).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csvread.h"

struct transcript {
	char *text;
	size_t len, cap;
};

struct run {
	struct transcript t;
	struct csvread *reader;
	unsigned records;
	unsigned stop_after;		/* 0: never */
	bool narrow_after_first;
	size_t narrow_to;
	enum csvread_status status;	/* how the input ended */
};

static void
append(struct transcript *t, const void *bytes, size_t len)
{
	if (t->len + len > t->cap) {
		size_t cap = t->cap ? t->cap : 256;

		while (cap < t->len + len)
			cap *= 2;
		if ((t->text = realloc(t->text, cap)) == NULL)
			abort();
		t->cap = cap;
	}
	memcpy(t->text + t->len, bytes, len);
	t->len += len;
}

static void
append_number(struct transcript *t, uint64_t n)
{
	char buf[32];

	append(t, buf, (size_t)snprintf(buf, sizeof(buf), "%llu,", (unsigned long long)n));
}

/* The record callback: writes the record to the transcript. */
static int
collect(void *context, const struct record *record)
{
	struct run *run = context;
	struct transcript *t = &run->t;

	append(t, "R", 1);
	append_number(t, record->line);
	append_number(t, record->field_count);
	if (record->raw != NULL)
		abort();	/* only the blank-separated reader gives the raw line */
	for (size_t i = 0; i < record->field_count; i++) {
		const struct field *f = &record->fields[i];

		if (f->text == NULL) {
			append(t, "~", 1);
			continue;
		}
		append(t, "F", 1);
		append_number(t, f->len);
		append(t, f->text, f->len);
	}
	append(t, "\n", 1);
	run->records++;
	if (run->narrow_after_first && run->records == 1)
		csvread_keep(run->reader, run->narrow_to, false, 0);
	return run->stop_after != 0 && run->records >= run->stop_after;
}

/*
 * Reads input, fed in blocks whose sizes come from sizes[] in turn (the whole input at
 * once when count is 0), into run->t.
 */
static void
read_input(struct run *run, const struct csvread_options *base, const uint8_t *input,
    size_t len, const size_t *sizes, size_t count)
{
	struct csvread_options options = *base;
	enum csvread_status status = CSVREAD_OK;
	size_t at = 0, turn = 0;

	options.on_record = collect;
	options.context = run;
	if ((run->reader = csvread_create(&options)) == NULL)
		abort();
	while (at < len && status == CSVREAD_OK) {
		size_t block = count == 0 ? len : sizes[turn++ % count];

		if (block > len - at)
			block = len - at;
		status = csvread_feed(run->reader, (const char *)input + at, block);
		at += block;
	}
	if (status == CSVREAD_OK)
		status = csvread_finish(run->reader);
	run->status = status;
	append(&run->t, "=", 1);
	append_number(&run->t, (uint64_t)status);
	if (status == CSVREAD_MALFORMED || status == CSVREAD_OPEN_QUOTE) {
		append_number(&run->t, csvread_error_line(run->reader));
		append_number(&run->t, csvread_error_column(run->reader));
	}
	csvread_destroy(run->reader);
	run->reader = NULL;
}

static bool
is_trimmed(char c, char delimiter)
{
	return (c == ' ' || c == '\t') && c != delimiter;
}

/*
 * The transcript of input read without quotes, as csvread.h's no_quotes says, line by
 * line: a CR before the LF dropped, comments and lines of one blank field skipped, the
 * rest split at every delimiter and trimmed; the run's stop and narrowing as collect's.
 */
static void
unquoted_model(struct run *run, const struct csvread_options *o, const uint8_t *input,
    size_t len)
{
	const char *text = (const char *)input;
	size_t keep = o->keep_all ? (size_t)-1 : o->keep_fields, line = 1, at = 0;
	uint64_t status = CSVREAD_OK;

	for (; at < len && status == CSVREAD_OK; line++) {
		const char *lf = memchr(text + at, '\n', len - at);
		size_t end = lf != NULL ? (size_t)(lf - text) : len, next = end + 1, i, n = 1;

		if (end > at && text[end - 1] == '\r')
			end--;
		for (i = at; i < end; i++)
			n += text[i] == o->delimiter;
		for (i = at; i < end && (text[i] == ' ' || text[i] == '\t'); i++)
			continue;
		if (o->skip_comments && i < end && text[i] == '#') {
			at = next;
			continue;
		}
		for (i = at; i < end && is_trimmed(text[i], o->delimiter); i++)
			continue;
		if (n == 1 && i == end) {
			at = next;
			continue;
		}
		append(&run->t, "R", 1);
		append_number(&run->t, line);
		append_number(&run->t, n);
		for (size_t start = at, k = 0; k < n; k++) {
			size_t stop = start, s0, e0;

			while (stop < end && text[stop] != o->delimiter)
				stop++;
			if (k >= keep) {
				append(&run->t, "~", 1);
			} else {
				for (s0 = start; s0 < stop && is_trimmed(text[s0], o->delimiter);)
					s0++;
				for (e0 = stop; e0 > s0 && is_trimmed(text[e0 - 1], o->delimiter);)
					e0--;
				append(&run->t, "F", 1);
				append_number(&run->t, e0 - s0);
				append(&run->t, text + s0, e0 - s0);
			}
			start = stop + 1;
		}
		append(&run->t, "\n", 1);
		run->records++;
		if (run->narrow_after_first && run->records == 1)
			keep = run->narrow_to;
		if (run->stop_after != 0 && run->records >= run->stop_after)
			status = CSVREAD_STOPPED;
		at = next;
	}
	append(&run->t, "=", 1);
	append_number(&run->t, status);
}

static void
compare(const struct transcript *a, const struct transcript *b, const char *what)
{
	if (a->len == b->len && memcmp(a->text, b->text, a->len) == 0)
		return;
	fprintf(stderr, "fuzz_csvread: %s\n--- whole:\n%.*s\n--- other:\n%.*s\n", what,
	    (int)a->len, a->text, (int)b->len, b->text);
	abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char delimiters[8] = { ',', '\t', ';', ' ', '|', ',', ',', ',' };
	struct csvread_options options = { 0 };
	struct run whole = { 0 }, blocks = { 0 }, bytes = { 0 }, lax = { 0 }, parsed = { 0 };
	size_t sizes[4], one = 1;
	uint8_t flags, stop;

	if (size < 7)
		return 0;
	flags = data[0];
	options.strict = flags & 1;
	options.skip_comments = flags & 2;
	options.keep_all = flags & 4;
	options.no_quotes = flags & 8;
	options.keep_fields = flags >> 4;
	options.delimiter = data[1] < 8 ? delimiters[data[1]] : (char)data[1];
	if (options.delimiter == '"' || options.delimiter == '\n' || options.delimiter == '\r')
		options.delimiter = ',';
	stop = data[2];
	for (size_t i = 0; i < 4; i++)
		sizes[i] = (size_t)data[3 + i] + 1;
	data += 7;
	size -= 7;

	whole.stop_after = blocks.stop_after = bytes.stop_after = lax.stop_after =
	    parsed.stop_after = stop & 15;
	whole.narrow_after_first = blocks.narrow_after_first = bytes.narrow_after_first =
	    lax.narrow_after_first = parsed.narrow_after_first = stop & 16;
	whole.narrow_to = blocks.narrow_to = bytes.narrow_to = lax.narrow_to =
	    parsed.narrow_to = stop >> 5;

	read_input(&whole, &options, data, size, NULL, 0);
	read_input(&blocks, &options, data, size, sizes, 4);
	compare(&whole.t, &blocks.t, "fed in blocks, the records differ");
	read_input(&bytes, &options, data, size, &one, 1);
	compare(&whole.t, &bytes.t, "fed byte by byte, the records differ");
	if (options.no_quotes) {
		unquoted_model(&parsed, &options, data, size);
		compare(&whole.t, &parsed.t, "without quotes, the records differ from lines split");
	} else {
		options.libcsv_only = true;
		read_input(&parsed, &options, data, size, NULL, 0);
		compare(&whole.t, &parsed.t, "split directly and by libcsv, the records differ");
		options.libcsv_only = false;
	}
	if (options.strict && (whole.status == CSVREAD_OK || whole.status == CSVREAD_STOPPED)) {
		options.strict = false;
		read_input(&lax, &options, data, size, NULL, 0);
		compare(&whole.t, &lax.t, "well-formed input, but lax and strict modes differ");
	}
	free(whole.t.text);
	free(blocks.t.text);
	free(bytes.t.text);
	free(lax.t.text);
	free(parsed.t.text);
	return 0;
}
