/*
 * output.c: buffered output in whole records (see output.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"

/*
 * The bytes a file-size limit leaves for fd: the limit less the offset writes start at
 * (the file's end with O_APPEND).  UINT64_MAX when fd is no regular file or there is
 * no limit; then a write past it cannot fail with EFBIG.
 */
static uint64_t
file_size_room(int fd)
{
	struct rlimit limit;
	struct stat st;
	off_t offset;
	int flags;

	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    getrlimit(RLIMIT_FSIZE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
		return UINT64_MAX;
	flags = fcntl(fd, F_GETFL);
	offset = flags != -1 && (flags & O_APPEND) ? st.st_size : lseek(fd, 0, SEEK_CUR);
	if (offset < 0)
		offset = st.st_size;
	return (uint64_t)offset < limit.rlim_cur ? limit.rlim_cur - (uint64_t)offset : 0;
}

void
output_init(struct output *out, int fd)
{
	out->fd = fd;
	out->error = 0;
	out->room = file_size_room(fd);
	out->len = out->record_end = 0;
}

/*
 * Writes the first n bytes of the buffer, carrying on after a short write, a signal
 * (EINTR) or a non-blocking descriptor's EAGAIN, and moves what follows them to the
 * front.  Returns 0, or -1 with out->error set.
 */
static int
output_write_out(struct output *out, size_t n)
{
	size_t done = 0;

	while (done < n) {
		ssize_t k = write(out->fd, out->buf + done, n - done);

		if (k > 0) {
			done += (size_t)k;
		} else if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct pollfd p = { .fd = out->fd, .events = POLLOUT };

			(void)poll(&p, 1, -1);	/* EINTR or not, the write is tried again */
		} else if (k < 0 && errno != EINTR) {
			out->error = errno;
			break;
		} else if (k == 0) {
			out->error = EIO;
			break;
		}
	}
	if (out->room != UINT64_MAX)
		out->room -= done;
	if (out->error != 0) {
		/* After an error the rest is dropped: swag stops at the end of the record. */
		out->len = out->record_end = 0;
		return -1;
	}
	memmove(out->buf, out->buf + n, out->len - n);
	out->len -= n;
	out->record_end = out->record_end > n ? out->record_end - n : 0;
	return 0;
}

void
output_limit_reached(struct output *out)
{
	if (out->error == 0 && output_write_out(out, out->record_end) == 0)
		out->error = EFBIG;
	out->len = out->record_end = 0;
}

int
output_flush(struct output *out)
{
	size_t n = out->len;

	if (out->error != 0) {
		out->len = out->record_end = 0;
		return -1;
	}
	/* An unfinished record waits for its end, unless it is long. */
	if (n - out->record_end <= OUTPUT_BUFFER_SIZE / 2)
		n = out->record_end;
	else if (n > out->room) {
		output_limit_reached(out);
		return -1;
	}
	return n == 0 ? 0 : output_write_out(out, n);
}

int
output_finish(struct output *out)
{
	if (out->error != 0) {
		out->len = out->record_end = 0;
		return -1;
	}
	if (out->len > out->room) {
		output_limit_reached(out);
		return -1;
	}
	return out->len == 0 ? 0 : output_write_out(out, out->len);
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
