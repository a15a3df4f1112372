/*
 * reader.c: block reading of lines (see reader.h).
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "mem.h"
#include "reader.h"

struct reader *
reader_create(int fd, int (*idle)(void *context), void *context,
    const volatile sig_atomic_t *stop)
{
	struct reader *r = mem_realloc(NULL, sizeof(*r));

	if (r == NULL)
		return NULL;
	r->buf = mem_realloc(NULL, READER_BLOCK + READER_PAD);
	if (r->buf == NULL) {
		mem_free(r);
		return NULL;
	}
	memset(r->buf, 0, READER_PAD);
	r->fd = fd;
	r->idle = idle;
	r->context = context;
	r->stop = stop;
	r->cap = READER_BLOCK;
	r->start = r->end = r->scanned = 0;
	r->eof = false;
	r->started = false;
	r->timer = NULL;
	r->timer_context = NULL;
	r->gz = NULL;
	r->zbuf = NULL;
	r->zcap = 0;
	r->raw_eof = r->member_done = r->padded = false;
	r->gz_failed = 0;
	return r;
}

void
reader_set_timer(struct reader *r, int (*timer)(void *context, bool timed_out,
    int *timeout_ms), void *context)
{
	r->timer = timer;
	r->timer_context = context;
}

void
reader_destroy(struct reader *r)
{
	if (r == NULL)
		return;
	if (r->gz != NULL) {
		inflateEnd(r->gz);
		mem_free(r->gz);
	}
	mem_free(r->zbuf);
	mem_free(r->buf);
	mem_free(r);
}

/*
 * True when a read of r->fd would not block (data or end of input is there); false
 * too when poll fails (a signal), so that the read waits through reader_poll.
 */
static bool
reader_ready(struct reader *r)
{
	struct pollfd p = { .fd = r->fd, .events = POLLIN };

	return poll(&p, 1, 0) > 0;
}

/*
 * Waits up to ms milliseconds (-1: without end) for input, as poll(2) does, but ends
 * with READER_STOPPED once the stop flag is set, before the wait or during it:
 * signals are blocked from the test of the flag until ppoll(2) unblocks them as it
 * starts waiting, so that a stop signal coming between the two interrupts the wait,
 * where it would otherwise be noticed only at the next input (behind a quiet tail -f,
 * never).  Returns poll's count, 0 when the time is up or a signal came without a
 * stop, or a negative reader_status.
 */
static int
reader_poll(struct reader *r, int ms)
{
	struct pollfd p = { .fd = r->fd, .events = POLLIN };
	struct timespec limit = { ms / 1000, (long)(ms % 1000) * 1000000 };
	sigset_t all, old;
	int n, saved;

	if (r->stop == NULL) {
		n = poll(&p, 1, ms);
	} else {
		sigfillset(&all);
		if (sigprocmask(SIG_BLOCK, &all, &old) != 0)
			return READER_READ_ERROR;
		if (*r->stop) {
			n = -1;
			errno = EINTR;
		} else {
			n = ppoll(&p, 1, ms >= 0 ? &limit : NULL, &old);
		}
		saved = errno;
		(void)sigprocmask(SIG_SETMASK, &old, NULL);
		errno = saved;
	}
	/*
	 * A signal pending when ppoll found the input ready (a Ctrl-C that also closed
	 * the pipe: the writer's end and the signal come together) is handled as the
	 * mask is restored, after ppoll returned: it stops the run all the same.
	 */
	if (r->stop != NULL && *r->stop)
		return READER_STOPPED;
	if (n >= 0)
		return n;
	return errno != EINTR ? READER_READ_ERROR : 0;
}

/*
 * Waits until input is there, calling the timer whenever a wait of the length it
 * asked for (-1: without end) ends without input (see reader_set_timer), or without
 * a timer for as long as it takes.  Every wait is reader_poll's, which a stop ends.
 * Returns 0 or a negative reader_status.
 */
static enum reader_status
reader_wait(struct reader *r)
{
	int ms = -1, n;

	if (r->timer != NULL && r->timer(r->timer_context, false, &ms) != 0)
		return READER_IDLE_ERROR;
	for (;;) {
		if ((n = reader_poll(r, ms)) > 0)
			return 0;
		if (n < 0)
			return (enum reader_status)n;
		/* A signal without a stop, or the time is up: the timer says what now. */
		if (r->timer != NULL && r->timer(r->timer_context, true, &ms) != 0)
			return READER_IDLE_ERROR;
	}
}

/*
 * Reads up to cap bytes of r->fd into dst, as read(2) does; when the read would
 * block, it calls the idle hook first and waits for input with reader_wait, so that a
 * stop ends the wait.  Returns the bytes read (0 at the end of the input), or a
 * negative reader_status; READER_STOPPED once the stop flag is set, so that no record
 * read after a stop signal is taken.
 */
static ssize_t
reader_read(struct reader *r, void *dst, size_t cap)
{
	enum reader_status status;
	ssize_t n;

	if (r->stop != NULL && *r->stop)
		return READER_STOPPED;
	if (!reader_ready(r)) {
		if (r->idle != NULL && r->idle(r->context) != 0)
			return READER_IDLE_ERROR;
		if ((status = reader_wait(r)) != 0)
			return status;
	}
	while ((n = read(r->fd, dst, cap)) < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			/* Non-blocking input (the parent's choice): wait as a read would. */
			if ((status = reader_wait(r)) != 0)
				return status;
		} else if (errno != EINTR) {
			return READER_READ_ERROR;
		} else if (r->stop != NULL && *r->stop) {
			return READER_STOPPED;
		}
	}
	/* The end that a stop signal came with is a stop (reader_poll). */
	if (n == 0 && r->stop != NULL && *r->stop)
		return READER_STOPPED;
	return n;
}

/* zlib's allocator: through mem_realloc, so that a fault-injection build reaches it. */
static void *
reader_zalloc(void *opaque, unsigned items, unsigned size)
{
	size_t bytes;

	(void)opaque;
	if (mem_array_size(items, size, &bytes) != 0)
		return NULL;
	return mem_realloc(NULL, bytes);
}

static void
reader_zfree(void *opaque, void *p)
{
	(void)opaque;
	mem_free(p);
}

/*
 * Inflates gzip input into dst, up to cap bytes, reading compressed blocks as it
 * needs them; a member that ends is followed by the next, if any.  Returns the bytes
 * inflated, at least one, or 0 at the end of the last member, or a negative
 * reader_status.  The bytes that the call meeting corrupt data made before it come
 * out first and the error at the next call, so that the records before it are
 * processed (swag(1), FILES).
 */
static ssize_t
reader_inflate(struct reader *r, char *dst, size_t cap)
{
	z_stream *z = r->gz;

	if (r->gz_failed != 0)
		return r->gz_failed;
	for (;;) {
		enum reader_status failed = 0;
		size_t made;
		ssize_t n;
		int ret;

		if (z->avail_in == 0 && !r->raw_eof) {
			if ((n = reader_read(r, r->zbuf, r->zcap)) < 0)
				return n;
			r->raw_eof = n == 0;
			z->next_in = r->zbuf;
			z->avail_in = (unsigned)n;
			continue;
		}
		if (r->member_done) {
			/*
			 * NUL bytes after the last member, a tape's or dd's padding, which
			 * gzip and zcat pass over: to the end, with nothing after them.
			 */
			while (z->avail_in > 0 && *z->next_in == 0) {
				z->next_in++;
				z->avail_in--;
				r->padded = true;
			}
			if (z->avail_in == 0) {
				if (!r->raw_eof)
					continue;
				return 0;	/* the last member has ended */
			}
			if (r->padded)
				return READER_GZIP_CORRUPT;
			/* Concatenated members (cat a.gz b.gz): the next one's header. */
			if (inflateReset(z) != Z_OK)
				return READER_GZIP_CORRUPT;
			r->member_done = false;
		}
		if (z->avail_in == 0)
			return READER_GZIP_TRUNCATED;	/* r->raw_eof inside a member */
		z->next_out = (unsigned char *)dst;
		z->avail_out = (unsigned)(cap < UINT_MAX ? cap : UINT_MAX);
		ret = inflate(z, Z_NO_FLUSH);
		made = (size_t)((unsigned char *)z->next_out - (unsigned char *)dst);
		if (ret == Z_STREAM_END)
			r->member_done = true;
		else if (ret == Z_MEM_ERROR)
			failed = READER_NO_MEMORY;
		else if (ret != Z_OK && ret != Z_BUF_ERROR)
			failed = READER_GZIP_CORRUPT;
		if (failed != 0 && made == 0)
			return failed;
		r->gz_failed = failed;
		if (made > 0)
			return (ssize_t)made;
	}
}

/*
 * Turns the reader to gzip input: the bytes read so far, buf[0, end), are the start
 * of the compressed input.  Returns 0 or a negative reader_status.
 */
static enum reader_status
reader_start_gzip(struct reader *r)
{
	size_t zcap = r->end > READER_BLOCK ? r->end : READER_BLOCK;

	if ((r->gz = mem_realloc(NULL, sizeof(*r->gz))) == NULL)
		return READER_NO_MEMORY;
	memset(r->gz, 0, sizeof(*r->gz));
	r->gz->zalloc = reader_zalloc;
	r->gz->zfree = reader_zfree;
	/* 16 + 15: a gzip header and trailer, the largest window. */
	if (inflateInit2(r->gz, 16 + MAX_WBITS) != Z_OK) {
		mem_free(r->gz);
		r->gz = NULL;
		return READER_NO_MEMORY;
	}
	if ((r->zbuf = mem_realloc(NULL, zcap)) == NULL)
		return READER_NO_MEMORY;
	r->zcap = zcap;
	memcpy(r->zbuf, r->buf, r->end);
	r->gz->next_in = r->zbuf;
	r->gz->avail_in = (unsigned)r->end;
	r->raw_eof = r->eof;
	r->eof = false;
	r->start = r->end = r->scanned = 0;
	memset(r->buf, 0, READER_PAD);
	return 0;
}

/*
 * Reads more input after what is buffered, first moving the unread part to the
 * front and growing the buffer when less than a block is free.  Returns 0 (r->eof
 * set at the end of input) or a negative reader_status.
 */
static enum reader_status
reader_fill(struct reader *r)
{
	ssize_t n;

	if (r->start > 0) {
		memmove(r->buf, r->buf + r->start, r->end - r->start);
		r->end -= r->start;
		r->scanned -= r->start;
		r->start = 0;
	}
	if (r->cap - r->end < READER_BLOCK) {
		size_t cap = r->cap * 2;
		char *buf;

		if (cap < r->cap || cap > SIZE_MAX - READER_PAD ||
		    (buf = mem_realloc(r->buf, cap + READER_PAD)) == NULL)
			return READER_NO_MEMORY;
		r->buf = buf;
		r->cap = cap;
	}
	n = r->gz != NULL ? reader_inflate(r, r->buf + r->end, r->cap - r->end) :
	    reader_read(r, r->buf + r->end, r->cap - r->end);
	if (n < 0)
		return (enum reader_status)n;
	if (n == 0)
		r->eof = true;
	r->end += (size_t)n;
	/* The bytes after the data are read by word scanners: keep them initialised. */
	memset(r->buf + r->end, 0, READER_PAD);
	return 0;
}

/* True while the bytes read so far may be the start of a byte-order mark. */
static bool
reader_maybe_bom(const struct reader *r)
{
	static const unsigned char marks[3][3] = {
		{ 0xEF, 0xBB, 0xBF }, { 0xFF, 0xFE, 0 }, { 0xFE, 0xFF, 0 }
	};

	for (int i = 0; i < 3; i++)
		if (memcmp(r->buf, marks[i], r->end) == 0)
			return true;
	return false;
}

/*
 * Looks at the first bytes: skips a UTF-8 byte-order mark, refuses a UTF-16 one.  It
 * reads until three bytes are there, since a pipe may deliver them one at a time.
 */
static enum reader_status
reader_start(struct reader *r)
{
	static const unsigned char utf8_bom[3] = { 0xEF, 0xBB, 0xBF };
	enum reader_status status;

	while (r->end < 3 && !r->eof && reader_maybe_bom(r))
		if ((status = reader_fill(r)) != 0)
			return status;
	if (r->end >= 2 && (((unsigned char)r->buf[0] == 0xFF && (unsigned char)r->buf[1] == 0xFE) ||
	    ((unsigned char)r->buf[0] == 0xFE && (unsigned char)r->buf[1] == 0xFF)))
		return READER_UTF16;
	if (r->end >= 3 && memcmp(r->buf, utf8_bom, 3) == 0)
		r->start = r->scanned = 3;
	r->started = true;
	return 0;
}

/* True when the bytes read so far may be the start of gzip's magic bytes, 1f 8b. */
static bool
reader_maybe_gzip(const struct reader *r)
{
	return r->gz == NULL && r->end > 0 && (unsigned char)r->buf[0] == 0x1f &&
	    (r->end == 1 || (unsigned char)r->buf[1] == 0x8b);
}

/*
 * Reads the first bytes and looks at them, once: gzip's magic turns the reader to
 * inflating, then the byte-order mark is looked for (reader_start).  Returns 0 or an
 * error.
 */
static enum reader_status
reader_begin(struct reader *r)
{
	enum reader_status status;

	if (r->started)
		return 0;
	if (r->end == 0 && (status = reader_fill(r)) != 0)
		return status;
	/* A pipe may deliver the two bytes one at a time. */
	while (r->end < 2 && !r->eof && reader_maybe_gzip(r))
		if ((status = reader_fill(r)) != 0)
			return status;
	if (r->end >= 2 && reader_maybe_gzip(r) &&
	    ((status = reader_start_gzip(r)) != 0 || (status = reader_fill(r)) != 0))
		return status;
	return reader_start(r);
}

enum reader_status
reader_next_lines(struct reader *r, const char **bytes, size_t *len, bool cr_ends)
{
	enum reader_status status;
	const char *last;
	size_t end;

	if ((status = reader_begin(r)) != 0)
		return status;
	for (;;) {
		last = memrchr(r->buf + r->scanned, '\n', r->end - r->scanned);
		if (last == NULL && cr_ends)
			last = memrchr(r->buf + r->scanned, '\r', r->end - r->scanned);
		if (last != NULL) {
			end = (size_t)(last - r->buf) + 1;
			break;
		}
		r->scanned = r->end;
		if (r->eof) {
			if (r->start == r->end)
				return READER_END;
			end = r->end;
			break;
		}
		if ((status = reader_fill(r)) != 0)
			return status;
	}
	*bytes = r->buf + r->start;
	*len = end - r->start;
	r->start = r->scanned = end;
	return READER_LINE;
}
