/*
 * output.h: buffered output to a file descriptor, in whole records.
 *
 * Results are formatted straight into one buffer that goes out with write(2) when it
 * is full and whenever the reader is about to wait for input, so a pipeline sees
 * each result at once while bulk input leaves in large blocks.
 *
 * What goes out is whole records, each closed by output_end_record(): a record still
 * being formatted when the buffer fills stays in it for the next write, unless it is
 * longer than half the buffer.  So whatever ends swag between two writes (a signal, a
 * crash) leaves the output ending with a whole record.  A write that stops short, is
 * interrupted by a signal, or meets a descriptor set non-blocking (EAGAIN: swag waits
 * with poll()) is carried on to its end.  Under a file-size limit (RLIMIT_FSIZE) on a
 * regular file, the output stops at the last record end within the limit and the
 * write fails with EFBIG.
 *
 * A failed write is remembered: every later call does nothing, and out->error tells
 * the errno.
 */
#ifndef SWAG_OUTPUT_H
#define SWAG_OUTPUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define OUTPUT_BUFFER_SIZE (64 * 1024)

struct output {
	int fd;
	int error;		/* errno of the first failed write, or 0 */
	uint64_t room;		/* bytes the file-size limit still allows, or UINT64_MAX */
	size_t len;
	size_t record_end;	/* buf[0, record_end) holds whole records */
	char buf[OUTPUT_BUFFER_SIZE];
};

/* Prepares out to write to fd, noting the file-size limit when fd is a regular file. */
void output_init(struct output *out, int fd);

/*
 * Writes the whole records buffered (an unfinished last record too when it is longer
 * than half the buffer).  Returns 0, or -1 when a write fails (errno in out->error).
 */
int output_flush(struct output *out);

/* Writes everything buffered, whole records or not: at the end of the run. */
int output_finish(struct output *out);

/* Writes the records before a record that crosses the file-size limit; fails with EFBIG. */
void output_limit_reached(struct output *out);

/* Appends n bytes of any length. */
void output_write_long(struct output *out, const void *bytes, size_t n);

/*
 * Returns a pointer to at least n (at most OUTPUT_BUFFER_SIZE) free bytes at the end of
 * the buffer, flushing first if needed; the caller writes into it and then calls
 * output_commit() with the number written.
 */
static inline char *
output_reserve(struct output *out, size_t n)
{
	if (OUTPUT_BUFFER_SIZE - out->len < n)
		output_flush(out);
	return out->buf + out->len;
}

static inline void
output_commit(struct output *out, size_t n)
{
	out->len += n;
}

/*
 * A short text: output_write_short copies this many bytes whatever its length, in one
 * fixed-size move instead of a memcpy call of the length (group keys, text results).
 */
#define OUTPUT_SHORT_MAX 16

/*
 * Appends the n bytes of text, n at most OUTPUT_SHORT_MAX; OUTPUT_SHORT_MAX bytes must
 * be readable from text.
 */
static inline void
output_write_short(struct output *out, const void *text, size_t n)
{
	memcpy(output_reserve(out, OUTPUT_SHORT_MAX), text, OUTPUT_SHORT_MAX);
	out->len += n;
}

/* Appends n bytes. */
static inline void
output_write(struct output *out, const void *bytes, size_t n)
{
	if (OUTPUT_BUFFER_SIZE - out->len < n) {
		output_write_long(out, bytes, n);
		return;
	}
	memcpy(out->buf + out->len, bytes, n);
	out->len += n;
}

static inline void
output_byte(struct output *out, char c)
{
	if (out->len == OUTPUT_BUFFER_SIZE)
		output_flush(out);
	out->buf[out->len++] = c;
}

/*
 * Commits n bytes reserved (output_reserve) that end a record, its line end written:
 * what is buffered so far may go out.
 */
static inline void
output_commit_record(struct output *out, size_t n)
{
	out->len += n;
	if (__builtin_expect(out->len > out->room, 0))
		output_limit_reached(out);
	else
		out->record_end = out->len;
}

/* Ends a record with its line end: what is buffered so far may go out. */
static inline void
output_end_record(struct output *out)
{
	output_byte(out, '\n');
	output_commit_record(out, 0);
}

#endif /* SWAG_OUTPUT_H */
