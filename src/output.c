/*
 * output.c: buffered output (see output.h).
 */
#include <errno.h>
#include <unistd.h>

#include "output.h"

void
output_init(struct output *out, int fd)
{
	out->fd = fd;
	out->error = 0;
	out->len = 0;
}

int
output_flush(struct output *out)
{
	size_t done = 0;

	while (done < out->len && out->error == 0) {
		ssize_t n = write(out->fd, out->buf + done, out->len - done);

		if (n > 0)
			done += (size_t)n;
		else if (n < 0 && errno != EINTR)
			out->error = errno;
		else if (n == 0)
			out->error = EIO;
	}
	/*
	 * After an error the rest is dropped: swag stops at the end of the current
	 * record, and nothing could be written anyway.
	 */
	out->len = 0;
	return out->error == 0 ? 0 : -1;
}

void
output_write_long(struct output *out, const void *bytes, size_t n)
{
	const char *p = bytes;

	while (n > 0) {
		size_t room = OUTPUT_BUFFER_SIZE - out->len;
		size_t chunk = n < room ? n : room;

		memcpy(out->buf + out->len, p, chunk);
		out->len += chunk;
		p += chunk;
		n -= chunk;
		if (out->len == OUTPUT_BUFFER_SIZE && output_flush(out) != 0)
			return;
	}
}
