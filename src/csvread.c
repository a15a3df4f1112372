/*
 * csvread.c: delimited records through libcsv (see csvread.h).
 *
 * libcsv runs with CSV_REPALL_NL, so it reports every unquoted CR and LF as the end
 * of a record, a blank line's too (those come with no field and are skipped).  The
 * input is fed to it one physical line at a time: after a piece that ends with an
 * LF, that LF was reported exactly when it was outside quotes, which tells whether
 * the next line begins a record.  That is all that the line numbers, -C and the
 * open-quote error need, and it holds whatever the block sizes.  Lines without a
 * quote are split directly (split_record), and with --no-quotes every line is
 * (feed_unquoted).
 */
#include <csv.h>
#include <string.h>

#include "blank.h"
#include "csvread.h"
#include "mem.h"
#include "split.h"

/* A field of the current record: where its copy is in the arena, if kept. */
struct span {
	size_t offset;
	size_t len;
	bool kept;
};

/* What the start of the current line has shown: see csvread_feed. */
enum line_mode {
	LINE_UNDECIDED,		/* only blanks so far, held in pending; a '#' may follow */
	LINE_FEED,		/* the line goes to libcsv */
	LINE_SKIP		/* a comment line, dropped up to its LF */
};

struct csvread {
	struct csv_parser parser;
	struct csvread_options options;
	struct span *spans;		/* the current record's fields */
	size_t span_count, span_cap;
	char *arena;			/* their kept bytes */
	size_t arena_len, arena_cap;
	struct field *fields;		/* handed to on_record */
	size_t field_cap;
	size_t split_keep;		/* split_delimited's keep: keep_fields, or all */
	uint64_t line;			/* the physical line of the next byte */
	uint64_t record_line;		/* where the current record started */
	bool at_line_start;
	bool record_open;		/* the last LF fed was inside quotes */
	bool saw_line_end;		/* libcsv reported the LF of the piece being fed */
	/* The last field or record end libcsv reported, for the open-quote error. */
	uint64_t event_line;
	bool event_was_line_end;
	enum line_mode line_mode;
	char *pending;			/* the blanks that begin an undecided line, or with
					   no_quotes a line before its LF */
	size_t pending_len, pending_cap;
	bool stopped;			/* on_record asked to stop */
	bool no_memory;
	uint64_t error_line;
	size_t error_column;
};

static void *
csvread_realloc(void *p, size_t n)
{
	return mem_realloc(p, n);
}

static void
csvread_free_memory(void *p)
{
	mem_free(p);
}

/* Blanks that libcsv trims around unquoted fields, less the delimiter itself. */
static int
blank_not_tab(unsigned char c)
{
	return c == ' ';
}

static int
blank_not_space(unsigned char c)
{
	return c == '\t';
}

/* libcsv's field callback: keeps the field if it may be read. */
static void
on_field(void *text, size_t len, void *context)
{
	struct csvread *r = context;
	struct span *span;

	r->event_line = r->line;
	r->event_was_line_end = false;
	if (r->stopped || r->no_memory)
		return;
	if (r->span_count == r->span_cap &&
	    mem_grow(&r->spans, &r->span_cap, r->span_count + 1, sizeof(*r->spans), 16) != 0) {
		r->no_memory = true;
		return;
	}
	span = &r->spans[r->span_count++];
	span->offset = r->arena_len;
	span->len = len;
	span->kept = r->options.keep_all || (r->span_count <= r->options.keep_fields &&
	    (r->span_count > 64 || (r->options.skip_fields >> (r->span_count - 1) & 1) == 0));
	if (!span->kept || len == 0)
		return;
	if (r->arena_len + len > r->arena_cap &&
	    mem_grow(&r->arena, &r->arena_cap, r->arena_len + len, 1, 16) != 0) {
		r->no_memory = true;
		return;
	}
	memcpy(r->arena + r->arena_len, text, len);
	r->arena_len += len;
}

/* libcsv's record callback: hands a record with fields to the caller. */
static void
on_record_end(int c, void *context)
{
	struct csvread *r = context;
	struct record record;

	r->event_line = r->line;
	r->event_was_line_end = true;
	if (c == '\n')
		r->saw_line_end = true;
	if (r->span_count == 0 || r->stopped || r->no_memory)
		return;
	if (r->span_count > r->field_cap &&
	    mem_grow(&r->fields, &r->field_cap, r->span_count, sizeof(*r->fields), 16) != 0) {
		r->no_memory = true;
		return;
	}
	for (size_t i = 0; i < r->span_count; i++) {
		/* A kept empty field is "", never NULL, even before the arena exists. */
		r->fields[i].text = !r->spans[i].kept ? NULL :
		    r->arena != NULL ? r->arena + r->spans[i].offset : "";
		r->fields[i].len = r->spans[i].len;
	}
	record.fields = r->fields;
	record.field_count = r->span_count;
	record.line = r->record_line;
	record.raw = NULL;
	record.raw_len = 0;
	record.in_input = false;
	record.trimmed = false;	/* a quoted field keeps its blanks */
	r->span_count = 0;
	r->arena_len = 0;
	if (r->options.on_record(r->options.context, &record) != 0)
		r->stopped = true;
}

struct csvread *
csvread_create(const struct csvread_options *options)
{
	struct csvread *r = mem_realloc(NULL, sizeof(*r));

	if (r == NULL)
		return NULL;
	memset(r, 0, sizeof(*r));
	r->options = *options;
	r->split_keep = options->keep_all ? (size_t)-1 : options->keep_fields;
	if (csv_init(&r->parser, (unsigned char)(CSV_REPALL_NL |
	    (options->strict ? CSV_STRICT : 0))) != 0) {
		mem_free(r);
		return NULL;
	}
	csv_set_realloc_func(&r->parser, csvread_realloc);
	csv_set_free_func(&r->parser, csvread_free_memory);
	csv_set_delim(&r->parser, (unsigned char)options->delimiter);
	if (options->delimiter == '\t')
		csv_set_space_func(&r->parser, blank_not_tab);
	else if (options->delimiter == ' ')
		csv_set_space_func(&r->parser, blank_not_space);
	r->line = 1;
	r->at_line_start = true;
	r->event_was_line_end = true;
	return r;
}

void
csvread_destroy(struct csvread *r)
{
	if (r == NULL)
		return;
	csv_free(&r->parser);
	mem_free(r->spans);
	mem_free(r->arena);
	mem_free(r->fields);
	mem_free(r->pending);
	mem_free(r);
}

void
csvread_keep(struct csvread *r, size_t keep_fields, bool keep_all, uint64_t skip_fields)
{
	r->options.keep_fields = keep_fields;
	r->options.keep_all = keep_all;
	r->options.skip_fields = skip_fields;
	r->split_keep = keep_all ? (size_t)-1 : keep_fields;
}

uint64_t
csvread_error_line(const struct csvread *r)
{
	return r->error_line;
}

size_t
csvread_error_column(const struct csvread *r)
{
	return r->error_column;
}

/* Hands len bytes of one line (at most one LF, at the end) to libcsv. */
static enum csvread_status
parse_piece(struct csvread *r, const char *bytes, size_t len)
{
	/*
	 * libcsv grows its field buffer by a fixed block (128 bytes by default), which
	 * makes a long field cost quadratic time in copies.  Asking, every 64 KiB, for a
	 * block as large as the buffer already is makes the growth geometric (a line of
	 * 100 MB comes in one piece).
	 */
	for (size_t at = 0; at < len;) {
		size_t chunk = len - at < 65536 ? len - at : 65536, done;

		if (csv_get_buffer_size(&r->parser) > 128)
			csv_set_blk_size(&r->parser, csv_get_buffer_size(&r->parser));
		done = csv_parse(&r->parser, bytes + at, chunk, on_field, on_record_end, r);
		if (r->no_memory)
			return CSVREAD_NO_MEMORY;
		/*
		 * A stop comes before any error libcsv met later in the same piece (a record
		 * may end at a lone CR mid-line): the caller's reason to stop stands,
		 * whatever the block sizes.
		 */
		if (r->stopped)
			return CSVREAD_STOPPED;
		if (done < chunk) {
			if (csv_error(&r->parser) != CSV_EPARSE)
				return CSVREAD_NO_MEMORY;
			r->error_line = r->line;
			r->error_column = r->span_count + 1;
			return CSVREAD_MALFORMED;
		}
		at += chunk;
	}
	return CSVREAD_OK;
}

/*
 * Gives the line [bytes, lf), its n fields split into r->fields, to the callback, if it
 * is a record: not a comment (with -C) nor a line of blanks.  in_input: the fields point
 * into the bytes fed.  Returns CSVREAD_OK, or CSVREAD_STOPPED.
 */
static inline __attribute__((always_inline)) int
hand_line(struct csvread *r, const char *bytes, const char *lf, size_t n, bool in_input)
{
	const char *end, *s;
	struct record record;

	r->record_line = r->line;
	r->event_line = r->line;
	r->event_was_line_end = true;
	/*
	 * A line of one field, which may be all blanks: a comment, with -C, is skipped
	 * ('#' after blanks, the delimiter or not), and a line of nothing but the blanks
	 * libcsv trims is no record.  (A line with a delimiter is neither: a comment's
	 * '#' is its first byte after blanks, and a delimiter splits it into fields.)
	 */
	if (n == 1 || r->options.skip_comments) {
		end = lf > bytes && lf[-1] == '\r' ? lf - 1 : lf;
		if (r->options.skip_comments) {
			for (s = bytes; s < end && is_blank(*s);)
				s++;
			if (s < end && *s == '#')
				return CSVREAD_OK;
		}
		for (s = bytes; s < end && split_is_trimmed(*s, r->options.delimiter);)
			s++;
		if (s == end)
			return CSVREAD_OK;
	}
	record.fields = r->fields;
	record.field_count = n;
	record.line = r->line;
	record.raw = NULL;
	record.raw_len = 0;
	record.in_input = in_input;
	record.trimmed = true;
	if (r->options.on_record(r->options.context, &record) != 0) {
		r->stopped = true;
		return CSVREAD_STOPPED;
	}
	return CSVREAD_OK;
}

/*
 * Splits the line that begins at bytes, before bytes + len, and begins a record, on
 * the delimiter (split.h's split_delimited), when libcsv is not needed for it: it
 * holds no quote and no CR but one before the LF.  Gives the record, if any, to the
 * callback, with the fields libcsv would give, and stores the line's length with its
 * LF in *piece.  Returns CSVREAD_OK, CSVREAD_STOPPED or CSVREAD_NO_MEMORY, or -1 when
 * the line must go to libcsv.
 */
static int
split_record(struct csvread *r, const char *bytes, size_t len, size_t *piece)
{
	const char *lf;
	size_t n;

	/*
	 * A line that opens with a quote goes to libcsv at once (every field quoted, as
	 * many programs write CSV): 50 instructions a record less than the search.
	 */
	if (bytes[0] == '"')
		return -1;
	while ((lf = split_delimited(bytes, bytes + len, r->options.delimiter, r->fields,
	    r->field_cap, r->split_keep, &n)) != NULL && n > r->field_cap)
		if (mem_grow(&r->fields, &r->field_cap, n, sizeof(*r->fields), 16) != 0)
			return CSVREAD_NO_MEMORY;
	if (lf == NULL)
		return -1;
	*piece = (size_t)(lf - bytes) + 1;
	return hand_line(r, bytes, lf, n, true);
}

/*
 * The line [bytes, lf), lf its LF or the input's end, without quoting (--no-quotes):
 * split at every delimiter, a CR before lf dropped, and handed on as hand_line does;
 * in_input as hand_line's.  Returns CSVREAD_OK, CSVREAD_STOPPED or CSVREAD_NO_MEMORY.
 */
static int
unquoted_line(struct csvread *r, const char *bytes, const char *lf, bool in_input)
{
	const char *end = lf > bytes && lf[-1] == '\r' ? lf - 1 : lf;
	size_t n;

	for (;;) {
		split_delimited_fields(bytes, end, r->options.delimiter, r->fields, r->field_cap,
		    r->split_keep, &n);
		if (n <= r->field_cap)
			break;
		if (mem_grow(&r->fields, &r->field_cap, n, sizeof(*r->fields), 16) != 0)
			return CSVREAD_NO_MEMORY;
	}
	return hand_line(r, bytes, lf, n, in_input);
}

/*
 * csvread_feed without quoting: each whole line is split directly; the start of a line
 * whose LF has not come yet waits in pending (a line is a record only at its LF).
 */
static enum csvread_status
feed_unquoted(struct csvread *r, const char *bytes, size_t len)
{
	while (len > 0) {
		const char *lf = memchr(bytes, '\n', len);
		size_t piece = lf != NULL ? (size_t)(lf - bytes) + 1 : len;
		int status;

		if (lf == NULL || r->pending_len > 0) {
			if (mem_grow(&r->pending, &r->pending_cap, r->pending_len + piece, 1,
			    16) != 0)
				return CSVREAD_NO_MEMORY;
			memcpy(r->pending + r->pending_len, bytes, piece);
			r->pending_len += piece;
		}
		if (lf != NULL) {
			status = r->pending_len > 0 ? unquoted_line(r, r->pending,
			    r->pending + r->pending_len - 1, false) :
			    unquoted_line(r, bytes, lf, true);
			r->pending_len = 0;
			if (status != CSVREAD_OK)
				return (enum csvread_status)status;
			r->line++;
		}
		bytes += piece;
		len -= piece;
	}
	return CSVREAD_OK;
}

enum csvread_status
csvread_feed(struct csvread *r, const char *bytes, size_t len)
{
	enum csvread_status status;

	if (r->options.no_quotes)
		return feed_unquoted(r, bytes, len);
	while (len > 0) {
		const char *newline;
		size_t piece;

		/*
		 * Whole lines that begin a record, split directly while they can be: a line
		 * split leaves the reader at a line's start with no record open, so the loop
		 * does not test that again.  A line that opens with a quote, which
		 * split_record hands to libcsv at once, does not enter the loop.
		 */
		if (r->at_line_start && !r->record_open && !r->options.libcsv_only &&
		    bytes[0] != '"') {
			int split;

			while ((split = split_record(r, bytes, len, &piece)) >= 0) {
				if (split != CSVREAD_OK)
					return (enum csvread_status)split;
				r->line++;
				bytes += piece;
				len -= piece;
				if (len == 0)
					return CSVREAD_OK;
			}
		}
		if (r->at_line_start) {
			r->at_line_start = false;
			if (!r->record_open)
				r->record_line = r->line;
			r->line_mode = r->options.skip_comments && !r->record_open ?
			    LINE_UNDECIDED : LINE_FEED;
		}
		if (r->line_mode == LINE_UNDECIDED) {
			/* Hold the leading blanks until the first other byte decides. */
			size_t blanks = 0;

			while (blanks < len && is_blank(bytes[blanks]))
				blanks++;
			if (blanks > 0) {
				if (mem_grow(&r->pending, &r->pending_cap, r->pending_len + blanks,
				    1, 16) != 0)
					return CSVREAD_NO_MEMORY;
				memcpy(r->pending + r->pending_len, bytes, blanks);
				r->pending_len += blanks;
				bytes += blanks;
				len -= blanks;
			}
			if (len == 0)
				return CSVREAD_OK;
			if (bytes[0] == '#') {
				r->line_mode = LINE_SKIP;
			} else {
				r->line_mode = LINE_FEED;
				if (r->pending_len > 0 &&
				    (status = parse_piece(r, r->pending, r->pending_len)) != CSVREAD_OK)
					return status;
			}
			r->pending_len = 0;
		}
		newline = memchr(bytes, '\n', len);
		piece = newline != NULL ? (size_t)(newline - bytes) + 1 : len;
		if (r->line_mode == LINE_FEED) {
			r->saw_line_end = false;
			if ((status = parse_piece(r, bytes, piece)) != CSVREAD_OK)
				return status;
		}
		if (newline != NULL) {
			if (r->line_mode == LINE_SKIP) {
				/* A skipped comment ends like a record for the open-quote error. */
				r->event_line = r->line;
				r->event_was_line_end = true;
			} else {
				r->record_open = !r->saw_line_end;
			}
			r->line++;
			r->at_line_start = true;
		}
		bytes += piece;
		len -= piece;
	}
	return CSVREAD_OK;
}

enum csvread_status
csvread_finish(struct csvread *r)
{
	enum csvread_status status;

	if (r->options.no_quotes) {
		int last = CSVREAD_OK;

		if (r->stopped)
			return CSVREAD_STOPPED;
		/* The last line, without its LF: it ends where the LF would be. */
		if (r->pending_len > 0) {
			last = unquoted_line(r, r->pending, r->pending + r->pending_len, false);
			r->pending_len = 0;
		}
		return (enum csvread_status)last;
	}
	if (r->line_mode == LINE_UNDECIDED && !r->at_line_start && r->pending_len > 0) {
		if ((status = parse_piece(r, r->pending, r->pending_len)) != CSVREAD_OK)
			return status;
		r->pending_len = 0;
	}
	/*
	 * Strict at the end even in lax mode: libcsv then refuses a quoted field that
	 * never closed instead of handing it over with the rest of the file in it.
	 */
	csv_set_opts(&r->parser, (unsigned char)(csv_get_opts(&r->parser) | CSV_STRICT |
	    CSV_STRICT_FINI));
	if (csv_fini(&r->parser, on_field, on_record_end, r) != 0) {
		if (csv_error(&r->parser) != CSV_EPARSE)
			return CSVREAD_NO_MEMORY;
		r->error_line = r->event_was_line_end ? r->event_line + 1 : r->event_line;
		r->error_column = r->span_count + 1;
		return CSVREAD_OPEN_QUOTE;
	}
	if (r->no_memory)
		return CSVREAD_NO_MEMORY;
	return r->stopped ? CSVREAD_STOPPED : CSVREAD_OK;
}
