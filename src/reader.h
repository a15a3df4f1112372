/*
 * reader.h: reading input lines in large blocks.
 *
 * The reader hands out runs of whole lines, pointing into its own buffer; a last line
 * without a line end is a line too.  It reads with read(2) in blocks of at least
 * READER_BLOCK bytes and grows its buffer for a longer line, so lines of any length
 * are read whole.
 *
 * The READER_PAD bytes after every line handed out are readable too (what they hold is
 * unspecified), so that a scanner may load a word, or 32 bytes, at any position of a
 * line.
 *
 * Input that starts with gzip's magic bytes (1f 8b) is inflated through zlib as it
 * is read, compressed blocks of READER_BLOCK bytes at a time: concatenated members
 * are read one after the other, and input that ends inside a member, or that zlib
 * cannot inflate, is an error (swag(1), FILES).  The byte-order mark is looked for in
 * the inflated bytes.
 *
 * Before it would wait for input it calls the idle hook (swag flushes its output
 * there): a pipe that delivers a line now and then gets each result at once, while a
 * file or a fast pipe, always ready, is read without a pause.  A descriptor that its
 * parent set non-blocking is waited on as a blocking one.  Once the stop flag given to
 * reader_create is set, the next read, or the wait under way, ends with
 * READER_STOPPED: the wait tests the flag with signals blocked and waits with
 * ppoll(), which lets them in, so that no stop signal goes unseen until more input.
 */
#ifndef SWAG_READER_H
#define SWAG_READER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define READER_BLOCK (128 * 1024)
#define READER_PAD 64

enum reader_status {
	READER_LINE = 1,	/* a line was read */
	READER_END = 0,		/* no more input */
	READER_READ_ERROR = -1,	/* read(2) failed; errno tells why */
	READER_NO_MEMORY = -2,	/* a longer line did not fit in memory */
	READER_UTF16 = -3,	/* the input starts with a UTF-16 byte-order mark */
	READER_IDLE_ERROR = -4,	/* the idle hook failed */
	READER_STOPPED = -5,	/* a signal set the stop flag */
	READER_GZIP_TRUNCATED = -6, /* gzip input ends inside a member */
	READER_GZIP_CORRUPT = -7 /* gzip input that zlib cannot inflate */
};

struct z_stream_s;

/* The reader's state.  Callers use the functions, never the fields. */
struct reader {
	int fd;
	int (*idle)(void *context);
	void *context;
	const volatile sig_atomic_t *stop;	/* or NULL */
	char *buf;		/* cap bytes, then READER_PAD bytes always initialised */
	size_t cap;
	size_t start;		/* the unread data is buf[start, end) */
	size_t end;
	size_t scanned;		/* buf[start, scanned) is known to hold no LF (nor CR,
				   for reader_next_lines' cr_ends) */
	bool eof;
	bool started;		/* the byte-order mark has been looked for */
	int (*timer)(void *context, bool timed_out, int *timeout_ms);	/* or NULL */
	void *timer_context;
	struct z_stream_s *gz;	/* gzip input: its inflater, else NULL */
	unsigned char *zbuf;	/* the compressed bytes read, zcap of them */
	size_t zcap;
	bool raw_eof;		/* the compressed input has ended */
	bool member_done;	/* a gzip member has ended: another may follow */
	bool padded;		/* NUL bytes have followed it: nothing else may */
	enum reader_status gz_failed;	/* an inflate error met after bytes it made,
					   which go first: the next read's status */
};

/*
 * Makes a reader of fd.  idle(context), when not NULL, is called before every read
 * that would block; a nonzero return stops the reader with READER_IDLE_ERROR.  stop,
 * when not NULL, is a signal handler's flag: a read returns READER_STOPPED when it is
 * nonzero, and so does a wait that a signal interrupts, which is tried again when it
 * is zero.
 * Returns NULL when memory is short.
 */
struct reader *reader_create(int fd, int (*idle)(void *context), void *context,
    const volatile sig_atomic_t *stop);

void reader_destroy(struct reader *reader);

/*
 * Gives the reader a timer: once the idle hook has run and input is awaited, it calls
 * timer(context, false, &ms), then waits for input at most ms milliseconds (ms < 0: as
 * long as it takes) and, each time that wait ends without input, calls timer(context,
 * true, &ms) and waits again.  The timer does what is due (swag writes the buckets that
 * the wall clock has closed) and says how long until the next thing is; a nonzero
 * return stops the reader with READER_IDLE_ERROR.
 */
void reader_set_timer(struct reader *reader,
    int (*timer)(void *context, bool timed_out, int *timeout_ms), void *context);

/*
 * Returns the first LF in [p, end), or NULL.  The 8 bytes at p are always readable
 * (READER_PAD), so a short line's LF is found in one word, SWAR style: x - 0x01... & ~x
 * marks a zero byte of x exactly where no lower byte is zero, so the lowest mark is
 * the first LF.  memchr takes the rest: for lines of a number each, the word saves its
 * call, about 25 instructions a line.
 */
static inline const char *
reader_find_newline(const char *p, const char *end)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
	uint64_t word, x, marks;

	memcpy(&word, p, sizeof(word));
	x = word ^ (ones * '\n');
	marks = (x - ones) & ~x & highs;
	if (marks != 0) {
		p += __builtin_ctzll(marks) / 8;
		return p < end ? p : NULL;
	}
	if (end - p <= 8)
		return NULL;
	p += 8;
#endif
	return memchr(p, '\n', (size_t)(end - p));
}

/*
 * Reads the next lines: one or more whole lines, each ending in LF, except that the
 * input's last line may lack it, into *bytes and *len (valid until the next call), with
 * READER_PAD readable bytes after them.  With cr_ends, when the bytes read hold no LF
 * but a CR, the run ends at the last CR instead: delimited input's records end at a CR
 * that is not before an LF (swag(1), INPUT), and a file with such line ends has no LF
 * to wait for, so its records go on as they come and the buffer holds one block, not
 * the whole input.  The caller then takes runs that may end between a CR and its LF.
 * A UTF-8 byte-order mark at the start is skipped.  The lines are not counted: the
 * caller splits and numbers them, keeping its place in local variables, which the
 * compiler holds in registers.  Returns READER_LINE when lines were read, READER_END
 * at the end of the input, else a failure.
 */
enum reader_status reader_next_lines(struct reader *reader, const char **bytes,
    size_t *len, bool cr_ends);

#endif /* SWAG_READER_H */
