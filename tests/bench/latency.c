/*
 * latency: the round trip of single records through swag, as a stream filter behind
 * tail -f meets it: each record is written to swag's standard input (a pipe) and its
 * result line awaited on swag's standard output (a pipe) before the next is written.
 *
 *   latency BULK COUNT SWAG [ARG]... < INPUT
 *
 * INPUT's first BULK lines go in without waiting (while swag's output is drained), so
 * that the window is full and the tables are large before anything is timed; the next
 * COUNT lines are then timed one at a time.  Every input line must give one output
 * line (no -s, no -H).  Prints one line: the median, the 99.9th percentile and the
 * largest round trip in microseconds, and the record (1-based in INPUT) that took the
 * largest.  scripts/bench builds it and runs it for its latency table.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void
die(const char *what)
{
	fprintf(stderr, "latency: %s: %s\n", what, errno != 0 ? strerror(errno) : "failed");
	exit(1);
}

/* All of standard input, in *len bytes (a last line without its end gets one). */
static char *
read_all(size_t *len)
{
	size_t cap = 1 << 20, n = 0;
	char *buf = malloc(cap);
	ssize_t got;

	if (buf == NULL)
		die("malloc");
	while ((got = read(0, buf + n, cap - n - 1)) != 0) {
		if (got < 0) {
			if (errno == EINTR)
				continue;
			die("reading the input");
		}
		n += (size_t)got;
		if (cap - n - 1 == 0 && (buf = realloc(buf, cap *= 2)) == NULL)
			die("realloc");
	}
	if (n > 0 && buf[n - 1] != '\n')
		buf[n++] = '\n';
	*len = n;
	return buf;
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Counts the line ends that one read of fd brings; 0 at its end. */
static size_t
read_lines(int fd, int *eof)
{
	char buf[1 << 16];
	ssize_t got;
	size_t lines = 0;

	do
		got = read(fd, buf, sizeof(buf));
	while (got < 0 && errno == EINTR);
	if (got < 0)
		die("reading swag's output");
	*eof = got == 0;
	for (const char *p = buf, *end = buf + got; (p = memchr(p, '\n', (size_t)(end - p)));
	    p++)
		lines++;
	return lines;
}

static void
write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t put = write(fd, p, n);

		if (put < 0) {
			if (errno == EINTR)
				continue;
			die("writing to swag");
		}
		p += put;
		n -= (size_t)put;
	}
}

static int
compare(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

int
main(int argc, char **argv)
{
	size_t len, bulk, count, written = 0, lines_in = 0, lines_out = 0, at = 0, worst = 0;
	size_t timed;
	int to_swag[2], from_swag[2], eof = 0, status;
	uint64_t *trip;
	char *input;
	pid_t pid;

	if (argc < 4) {
		fprintf(stderr, "usage: latency BULK COUNT SWAG [ARG]... < INPUT\n");
		return 2;
	}
	bulk = strtoul(argv[1], NULL, 10);
	count = strtoul(argv[2], NULL, 10);
	input = read_all(&len);
	if ((trip = malloc((count ? count : 1) * sizeof(*trip))) == NULL)
		die("malloc");
	signal(SIGPIPE, SIG_IGN);
	if (pipe(to_swag) != 0 || pipe(from_swag) != 0)
		die("pipe");
	if ((pid = fork()) < 0)
		die("fork");
	if (pid == 0) {
		dup2(to_swag[0], 0);
		dup2(from_swag[1], 1);
		close(to_swag[0]);
		close(to_swag[1]);
		close(from_swag[0]);
		close(from_swag[1]);
		execv(argv[3], argv + 3);
		die(argv[3]);
	}
	close(to_swag[0]);
	close(from_swag[1]);

	/* The bulk: written as fast as swag takes it, its output drained meanwhile. */
	while (lines_in < bulk && at < len) {
		at = (size_t)((char *)memchr(input + at, '\n', len - at) - input) + 1;
		lines_in++;
	}
	fcntl(to_swag[1], F_SETFL, O_NONBLOCK);
	while ((written < at || lines_out < lines_in) && !eof) {
		struct pollfd fds[2] = { { from_swag[0], POLLIN, 0 }, { to_swag[1], POLLOUT, 0 } };

		if (poll(fds, written < at ? 2 : 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			die("poll");
		}
		if (fds[0].revents != 0)
			lines_out += read_lines(from_swag[0], &eof);
		if (written < at && fds[1].revents != 0) {
			size_t n = at - written < 65536 ? at - written : 65536;
			ssize_t put = write(to_swag[1], input + written, n);

			if (put < 0 && errno != EAGAIN && errno != EINTR)
				die("writing to swag");
			if (put > 0)
				written += (size_t)put;
		}
	}
	fcntl(to_swag[1], F_SETFL, 0);

	/* The timed records: one line in, its result line out. */
	for (timed = 0; timed < count && at < len && !eof; timed++) {
		size_t end = (size_t)((char *)memchr(input + at, '\n', len - at) - input) + 1;
		size_t want = lines_out + 1;
		uint64_t t0 = now_ns();

		write_all(to_swag[1], input + at, end - at);
		while (lines_out < want && !eof)
			lines_out += read_lines(from_swag[0], &eof);
		trip[timed] = now_ns() - t0;
		if (trip[timed] > trip[worst])
			worst = timed;
		at = end;
		lines_in++;
	}
	close(to_swag[1]);
	while (!eof)
		lines_out += read_lines(from_swag[0], &eof);
	if (waitpid(pid, &status, 0) < 0)
		die("waitpid");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "latency: swag failed (status %d)\n", status);
		return 1;
	}
	if (lines_out != lines_in) {
		fprintf(stderr, "latency: %zu lines in, %zu out\n", lines_in, lines_out);
		return 1;
	}
	if (timed == 0) {
		fprintf(stderr, "latency: no record left to time after the first %zu\n", bulk);
		return 1;
	}
	{
		uint64_t max = trip[worst];
		size_t worst_line = bulk + worst + 1;

		qsort(trip, timed, sizeof(*trip), compare);
		printf("%.1f %.1f %.1f %zu\n", trip[timed / 2] / 1e3,
		    trip[timed - 1 - timed / 1000] / 1e3, max / 1e3, worst_line);
	}
	return 0;
}
