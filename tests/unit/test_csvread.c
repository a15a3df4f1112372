/*
 * test_csvread.c: delimited records through libcsv: quoting, line numbers,
 * comments, errors, and the same records whatever block sizes the input comes in.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "csvread.h"

/*
 * What the records of an input look like, as one string: each record as
 * "LINE:field|field|...\n", a field not kept as "~", then "=STATUS@LINE,COLUMN" for
 * how the input ended.
 */
struct transcript {
	char text[8192];
	size_t len;
};

static void
append(struct transcript *t, const char *bytes, size_t len)
{
	cr_assert_lt(t->len + len, sizeof(t->text));
	memcpy(t->text + t->len, bytes, len);
	t->len += len;
	t->text[t->len] = '\0';
}

static int
collect(void *context, const struct record *record)
{
	struct transcript *t = context;
	char prefix[32];

	append(t, prefix, (size_t)snprintf(prefix, sizeof(prefix), "%llu:",
	    (unsigned long long)record->line));
	for (size_t i = 0; i < record->field_count; i++) {
		if (i > 0)
			append(t, "|", 1);
		if (record->fields[i].text == NULL)
			append(t, "~", 1);
		else
			append(t, record->fields[i].text, record->fields[i].len);
	}
	append(t, "\n", 1);
	return 0;
}

struct settings {
	char delimiter;
	bool strict;
	bool skip_comments;
	size_t keep_fields;
	bool libcsv_only;
	bool no_quotes;
};

/* Reads input (len bytes) fed in blocks of block bytes; returns the transcript. */
static struct transcript
read_in_blocks(const struct settings *s, const char *input, size_t len, size_t block)
{
	struct transcript t = { .len = 0 };
	struct csvread_options options = {
		.delimiter = s->delimiter ? s->delimiter : ',',
		.strict = s->strict,
		.skip_comments = s->skip_comments,
		.keep_fields = s->keep_fields ? s->keep_fields : 100,
		.keep_all = false,
		.libcsv_only = s->libcsv_only,
		.no_quotes = s->no_quotes,
		.on_record = collect,
		.context = &t,
	};
	struct csvread *r = csvread_create(&options);
	enum csvread_status status = CSVREAD_OK;
	char end[64];

	cr_assert_not_null(r);
	t.text[0] = '\0';
	for (size_t at = 0; at < len && status == CSVREAD_OK; at += block)
		status = csvread_feed(r, input + at, len - at < block ? len - at : block);
	if (status == CSVREAD_OK)
		status = csvread_finish(r);
	append(&t, end, (size_t)snprintf(end, sizeof(end), "=%d@%llu,%zu", (int)status,
	    (unsigned long long)csvread_error_line(r), csvread_error_column(r)));
	csvread_destroy(r);
	return t;
}

/*
 * Checks that input gives the expected transcript when fed whole, and the same one
 * when fed in blocks of every size from 1 to its length, and with every record parsed
 * by libcsv (none split directly).
 */
static void
check(const struct settings *s, const char *input, size_t len, const char *expected)
{
	struct transcript whole = read_in_blocks(s, input, len, len ? len : 1);
	struct settings parsed = *s;

	cr_assert_str_eq(whole.text, expected, "input:\n%.*s", (int)len, input);
	for (size_t block = 1; block < len; block++) {
		struct transcript t = read_in_blocks(s, input, len, block);

		cr_assert_str_eq(t.text, expected, "block size %zu", block);
	}
	if (s->no_quotes)
		return;
	parsed.libcsv_only = true;
	whole = read_in_blocks(&parsed, input, len, len ? len : 1);
	cr_assert_str_eq(whole.text, expected, "through libcsv only, input:\n%.*s", (int)len,
	    input);
}

#define CHECK(settings, input, expected) check(settings, input, sizeof(input) - 1, expected)

static const struct settings csv = { 0 };

Test(csvread, plain_records)
{
	CHECK(&csv, "a,b,c\n1,2,3\n", "1:a|b|c\n2:1|2|3\n=0@0,0");
	/* A last record without a line end. */
	CHECK(&csv, "a,b\n1,2", "1:a|b\n2:1|2\n=0@0,0");
	CHECK(&csv, "", "=0@0,0");
}

Test(csvread, quoting)
{
	/* Quoted delimiters, doubled quotes, quoted line ends; blanks around unquoted
	   fields trimmed, kept inside quotes. */
	CHECK(&csv, "x,\"1,5\",\"say \"\"hi\"\"\"\n  y , \" z \" ,\"two\nlines\"\n",
	    "1:x|1,5|say \"hi\"\n2:y| z |two\nlines\n=0@0,0");
	/* An empty quoted field is a field; an empty line is no record. */
	CHECK(&csv, "\"\"\n\n,\n", "1:\n3:|\n=0@0,0");
}

Test(csvread, line_numbers_follow_physical_lines)
{
	/* Records start on the line of their first byte, after quoted line ends and
	   blank lines. */
	CHECK(&csv, "a,\"1\n2\n3\"\nb,4\n\n\nc,\"5\r\n6\"\r\nd,7\n",
	    "1:a|1\n2\n3\n4:b|4\n7:c|5\r\n6\n9:d|7\n=0@0,0");
}

Test(csvread, crlf_split_anywhere)
{
	/* CR LF line ends give no empty records, whichever block holds the CR. */
	CHECK(&csv, "a,b\r\n1,2\r\n3,4\r\n", "1:a|b\n2:1|2\n3:3|4\n=0@0,0");
}

Test(csvread, embedded_nul)
{
	CHECK(&csv, "1\0002,3\n", "1:1\0002|3\n=0@0,0");
}

Test(csvread, fields_not_kept)
{
	static const struct settings two = { .keep_fields = 2 };

	CHECK(&two, "a,b,c,d\n1,2\n", "1:a|b|~|~\n2:1|2\n=0@0,0");
}

Test(csvread, tsv_and_other_delimiters)
{
	static const struct settings tsv = { .delimiter = '\t' };
	static const struct settings semicolon = { .delimiter = ';' };
	static const struct settings space = { .delimiter = ' ' };

	/* With TAB as the delimiter, a TAB is not a blank to trim: empty fields stay. */
	CHECK(&tsv, "a\tb\t\tc\n \t1 \n", "1:a|b||c\n2:|1\n=0@0,0");
	CHECK(&semicolon, "1,5;2\n", "1:1,5|2\n=0@0,0");
	CHECK(&space, "a b  c\n", "1:a|b||c\n=0@0,0");
}

Test(csvread, comments_only_where_records_begin)
{
	static const struct settings comments = { .skip_comments = true };

	/* A '#' line inside a quoted field is data; one after blanks is a comment. */
	CHECK(&comments, "# head\na,\"x\n# not a comment\"\n   # comment\nb,#c\n",
	    "2:a|x\n# not a comment\n5:b|#c\n=0@0,0");
	/* Without -C, '#' is data. */
	CHECK(&csv, "# x,y\n", "1:# x|y\n=0@0,0");
	/* Blanks at the end of the input, undecided, are not lost or misread. */
	CHECK(&comments, "a\n  ", "1:a\n=0@0,0");
}

Test(csvread, open_quote_names_its_line)
{
	/* Lax libcsv would hand over the rest of the file as one field. */
	CHECK(&csv, "a,b\n1,\"2\n3,4\n5,6\n", "1:a|b\n=3@2,2");
	CHECK(&csv, "a,b\n\n\n\"x\n", "1:a|b\n=3@4,1");
	/* A stray quote after a closing one reopens the field in lax mode. */
	CHECK(&csv, "a,b\n\"e\"f,1\nz\n", "1:a|b\n=3@2,1");
}

Test(csvread, strict_malformed)
{
	static const struct settings strict = { .strict = true };

	CHECK(&strict, "a,b\n1,x\"y\n", "1:a|b\n=2@2,2");
	CHECK(&strict, "a,b\n1,\"x\"y\n", "1:a|b\n=2@2,2");
	/* Well-formed input is read as in lax mode. */
	CHECK(&strict, "a,\"b\"\"c\"\n", "1:a|b\"c\n=0@0,0");
	/* Strict or not, an open quote at the end is the same error. */
	CHECK(&strict, "a\n\"b\n", "1:a\n=3@2,1");
}

/* on_record's stop request ends the feed with CSVREAD_STOPPED. */
static int
stop_at_second(void *context, const struct record *record)
{
	(void)record;
	return ++*(int *)context == 2;
}

Test(csvread, stop)
{
	int seen = 0;
	struct csvread_options options = {
		.delimiter = ',', .keep_fields = 10, .on_record = stop_at_second, .context = &seen,
	};
	struct csvread *r = csvread_create(&options);

	cr_assert_eq(csvread_feed(r, "1\n2\n3\n4\n", 8), CSVREAD_STOPPED);
	cr_assert_eq(seen, 2);
	csvread_destroy(r);
}

/*
 * A stop stands even when libcsv, going on through the rest of the piece, meets bad
 * quoting after it: a lone CR ends a record in mid-line.  Whatever the block sizes,
 * the feed ends with the stop, not with the later error (found by
 * tests/fuzz/fuzz_csvread).
 */
Test(csvread, stop_before_later_bad_quoting)
{
	static const char input[] = "1\r2\r3,a\"b\n";
	size_t len = sizeof(input) - 1;

	for (size_t block = 1; block <= len; block++) {
		int seen = 0;
		struct csvread_options options = {
			.delimiter = ',', .strict = true, .keep_fields = 10,
			.on_record = stop_at_second, .context = &seen,
		};
		struct csvread *r = csvread_create(&options);
		enum csvread_status status = CSVREAD_OK;

		cr_assert_not_null(r);
		for (size_t at = 0; at < len && status == CSVREAD_OK; at += block)
			status = csvread_feed(r, input + at, len - at < block ? len - at : block);
		cr_assert_eq(status, CSVREAD_STOPPED, "block size %zu", block);
		cr_assert_eq(seen, 2, "block size %zu", block);
		csvread_destroy(r);
	}
}

/*
 * Lines without quotes are split on the delimiter directly, not by libcsv: the fields
 * must be libcsv's (check() compares with libcsv_only too) whatever the blanks, the
 * delimiter (a blank one included), comments, CRs and the quoted records between.
 */
Test(csvread, direct_split_gives_libcsv_fields)
{
	static const struct settings tab = { .delimiter = '\t' };
	static const struct settings space = { .delimiter = ' ' };
	static const struct settings comments = { .skip_comments = true };
	static const struct settings narrow = { .keep_fields = 2 };
	static const struct settings space_comments = { .delimiter = ' ', .skip_comments = true };

	CHECK(&csv, " a , b\t,\tc \n,,\n \t \n\t,\n", "1:a|b|c\n2:||\n4:|\n=0@0,0");
	CHECK(&csv, "a,b\r\n\r\nc,d\r\n", "1:a|b\n3:c|d\n=0@0,0");
	CHECK(&csv, "a\rb,c\n", "1:a\n1:b|c\n=0@0,0");
	CHECK(&tab, " a \t b\t\t\n \t\n", "1:a|b||\n2:|\n=0@0,0");
	CHECK(&space, "a  b\t\n  \n", "1:a||b\n2:||\n=0@0,0");
	CHECK(&comments, " # x,y\na,b\n#\"open\nc\n", "2:a|b\n4:c\n=0@0,0");
	/* A comment's blanks are blanks even when one is the delimiter (found by fuzzing). */
	CHECK(&space_comments, "  # x\na b\n", "2:a|b\n=0@0,0");
	CHECK(&narrow, "a,b,c,d\n1,\"2\",3\n", "1:a|b|~|~\n2:1|2|~\n=0@0,0");
	CHECK(&csv, "a,\"1\n2\",b\nc,d\n\"e\"\nf\n", "1:a|1\n2|b\n3:c|d\n4:e\n5:f\n=0@0,0");
}

/*
 * --no-quotes: a quote and a CR inside a line are ordinary bytes; every line is split at
 * every delimiter, whatever the block sizes (a line waits for its LF).
 */
Test(csvread, no_quotes)
{
	static const struct settings tsv = { .delimiter = '\t', .no_quotes = true };
	static const struct settings comma = { .no_quotes = true };
	static const struct settings comments = { .no_quotes = true, .skip_comments = true };
	static const struct settings narrow = { .no_quotes = true, .keep_fields = 2 };

	CHECK(&tsv, "\"Deluxe\" widget\t3\nplain\t4\npipe 12\"\t6\n",
	    "1:\"Deluxe\" widget|3\n2:plain|4\n3:pipe 12\"|6\n=0@0,0");
	CHECK(&comma, "\"a,b\"\n\"\"\n\"open\nx\n", "1:\"a|b\"\n2:\"\"\n3:\"open\n4:x\n=0@0,0");
	CHECK(&comma, "a\rb,c\r\n d ,\r\r\n", "1:a\rb|c\n2:d|\r\n=0@0,0");
	CHECK(&comma, " \t \n\n,\nlast, 1", "3:|\n4:last|1\n=0@0,0");
	CHECK(&comments, " # \"x\n#\na,#\n", "3:a|#\n=0@0,0");
	CHECK(&narrow, "a,\"b,c\n", "1:a|\"b|~\n=0@0,0");
	/* An open quote at the end is no error: there are no quotes. */
	CHECK(&comma, "\"", "1:\"\n=0@0,0");
	CHECK(&comma, "", "=0@0,0");
}

/* The records of input as --no-quotes reads it, computed naively line by line. */
static struct transcript
unquoted_model(const char *input, size_t len, char delimiter, bool skip_comments)
{
	struct transcript t = { .len = 0 };
	size_t line = 1;

	t.text[0] = '\0';
	for (size_t at = 0; at < len; line++) {
		const char *lf = memchr(input + at, '\n', len - at);
		size_t end = lf != NULL ? (size_t)(lf - input) : len, next = end + 1, i = at;
		bool fields = false;
		char prefix[32];

		if (end > at && input[end - 1] == '\r')
			end--;
		while (i < end && (input[i] == ' ' || input[i] == '\t'))
			i++;
		if (skip_comments && i < end && input[i] == '#') {
			at = next;
			continue;
		}
		for (size_t j = at; j < end; j++)
			fields |= input[j] == delimiter ||
			    !(input[j] == ' ' || input[j] == '\t');
		if (fields) {
			append(&t, prefix, (size_t)snprintf(prefix, sizeof(prefix), "%zu:", line));
			for (size_t start = at; start <= end;) {
				size_t stop = start, s0 = start, e0;

				while (stop < end && input[stop] != delimiter)
					stop++;
				e0 = stop;
				while (s0 < e0 && input[s0] != delimiter &&
				    (input[s0] == ' ' || input[s0] == '\t'))
					s0++;
				while (e0 > s0 && (input[e0 - 1] == ' ' || input[e0 - 1] == '\t'))
					e0--;
				if (start > at)
					append(&t, "|", 1);
				append(&t, input + s0, e0 - s0);
				start = stop + 1;
			}
			append(&t, "\n", 1);
		}
		at = next;
	}
	append(&t, "=0@0,0", 6);
	return t;
}

/* Random lines of quotes, CRs, blanks, delimiters and '#' against the naive model. */
Test(csvread, no_quotes_against_a_model)
{
	static const char alphabet[] = "a1\",\t \r\n#";
	uint64_t state = 42;

	for (int round = 0; round < 3000; round++) {
		char input[48];
		size_t len;
		char delimiter = round % 3 == 0 ? '\t' : round % 3 == 1 ? ',' : ' ';
		bool skip = round % 2 == 0;
		struct settings s = { .delimiter = delimiter, .no_quotes = true,
		                      .skip_comments = skip };
		struct transcript expected, got;

		state = state * 6364136223846793005u + 1442695040888963407u;
		len = (size_t)(state >> 33) % sizeof input;
		for (size_t i = 0; i < len; i++) {
			state = state * 6364136223846793005u + 1442695040888963407u;
			input[i] = alphabet[(state >> 33) % (sizeof alphabet - 1)];
		}
		expected = unquoted_model(input, len, delimiter, skip);
		got = read_in_blocks(&s, input, len, len ? len : 1);
		cr_assert_str_eq(got.text, expected.text, "input \"%.*s\", delimiter %d",
		    (int)len, input, delimiter);
		got = read_in_blocks(&s, input, len, 1 + round % 5);
		cr_assert_str_eq(got.text, expected.text, "input \"%.*s\" in blocks of %d",
		    (int)len, input, 1 + round % 5);
	}
}
