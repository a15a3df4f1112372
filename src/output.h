/*
 * output.h: buffered output to a file descriptor.
 *
 * Results are formatted straight into one buffer that goes out with write(2) when it
 * is full and whenever the reader is about to wait for input, so a pipeline sees
 * each result at once while bulk input leaves in large blocks.  A failed write is
 * remembered: every later call does nothing, and output_error() tells the errno.
 */
#ifndef SWAG_OUTPUT_H
#define SWAG_OUTPUT_H

#include <stddef.h>
#include <string.h>

#define OUTPUT_BUFFER_SIZE (64 * 1024)

struct output {
	int fd;
	int error;		/* errno of the first failed write, or 0 */
	size_t len;
	char buf[OUTPUT_BUFFER_SIZE];
};

/* Prepares out to write to fd. */
void output_init(struct output *out, int fd);

/* Writes what is buffered.  Returns 0, or -1 when a write fails (errno in out->error). */
int output_flush(struct output *out);

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

#endif /* SWAG_OUTPUT_H */
