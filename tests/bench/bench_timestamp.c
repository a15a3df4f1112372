/*
** bench_timestamp: parse_timestamp and parse_timestamp_fields, in nanoseconds per timestamp,
** for each form, against strptime + timegm on the ISO form.
**
**   cc -std=c11 -D_GNU_SOURCE -O2 -Isrc -o /tmp/bench_timestamp \
**       tests/bench/bench_timestamp.c src/timestamp.c && /tmp/bench_timestamp
**
** For each form it writes 5 million random instants of 2000 to 2037 (fields from gmtime_r,
** fixed seed) one after another in memory, then times the parser over them, best of a few
** runs. The pair forms time what the whitespace reader does per record:
** parse_timestamp_fields on the first field and the next. Not part of the test suite: the
** figures belong in
** timestamp.c's comments and in the commit message.
*/
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "timestamp.h"

enum { TIMESTAMP_COUNT = 5000000, FIELD_SIZE_MAX = 48, RUNS = 3 };

/* The forms, one generated set each. */
enum form {
	FORM_EPOCH_SECONDS,       /* 1796005736 */
	FORM_EPOCH_DECIMAL,       /* 1796005736.250 */
	FORM_EPOCH_MILLISECONDS,  /* 1796005736250, with --epoch-unit=ms */
	FORM_ISO_UTC,             /* 2026-11-30T02:28:56Z */
	FORM_ISO_FRACTION_OFFSET, /* 2026-11-30T03:28:56.250+01:00 */
	FORM_ISO_SPACE,           /* 2026-11-30 02:28:56 */
	FORM_CLF,                 /* [30/Nov/2026:02:28:56 +0000] */
	FORM_PAIR_ISO,            /* 2026-11-30 | 02:28:56.250 */
	FORM_PAIR_CLF,            /* [30/Nov/2026:02:28:56 | +0000] */
	FORM_STRPTIME_ISO,        /* 2026-11-30T02:28:56 through strptime + timegm */
	FORM_COUNT
};

static const char *form_names[FORM_COUNT] = {
	"epoch seconds      1796005736",
	"epoch decimal      1796005736.250",
	"epoch ms           1796005736250",
	"ISO UTC            2026-11-30T02:28:56Z",
	"ISO fraction+zone  2026-11-30T03:28:56.250+01:00",
	"ISO space          2026-11-30 02:28:56",
	"CLF                [30/Nov/2026:02:28:56 +0000]",
	"pair ISO           2026-11-30 02:28:56.250",
	"pair CLF           [30/Nov/2026:02:28:56 +0000]",
	"strptime+timegm    2026-11-30T02:28:56 (reference)",
};

/*
** The fields of a set, NUL-terminated one after another as a reader's line buffer holds
** them (a pair's second field right after its first), and their lengths. The timed loop
** walks text with a pointer, so it reads little more memory than the text itself.
*/
typedef struct {
	char *text;
	uint8_t *first_len;
	uint8_t *second_len;
} TimestampSet;

/* xorshift64*, fixed seed: every run times the same timestamps. */
static uint64_t random_next(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 0x2545F4914F6CDD1DU;
}

static void generate(TimestampSet *set, enum form form, uint64_t seed)
{
	static const char *month_names[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
	                                    "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
	char *a = set->text;
	for (size_t i = 0; i < TIMESTAMP_COUNT; i++) {
		uint64_t r = random_next(&seed);
		time_t seconds = (time_t)(946684800 + r % (38ULL * 365 * 86400));
		unsigned millis = (unsigned)(r >> 40) % 1000;
		time_t local = seconds + 3600;
		struct tm f, g;
		gmtime_r(&seconds, &f);
		gmtime_r(&local, &g);
		char b[FIELD_SIZE_MAX];
		int alen = 0, blen = 0;
		switch (form) {
		case FORM_EPOCH_SECONDS:
			alen = sprintf(a, "%lld", (long long)seconds);
			break;
		case FORM_EPOCH_DECIMAL:
			alen = sprintf(a, "%lld.%03u", (long long)seconds, millis);
			break;
		case FORM_EPOCH_MILLISECONDS:
			alen = sprintf(a, "%lld%03u", (long long)seconds, millis);
			break;
		case FORM_ISO_UTC:
			alen = (int)strftime(a, FIELD_SIZE_MAX, "%Y-%m-%dT%H:%M:%SZ", &f);
			break;
		case FORM_ISO_FRACTION_OFFSET:
			alen = (int)strftime(a, FIELD_SIZE_MAX, "%Y-%m-%dT%H:%M:%S", &g);
			alen += sprintf(a + alen, ".%03u+01:00", millis);
			break;
		case FORM_ISO_SPACE:
			alen = (int)strftime(a, FIELD_SIZE_MAX, "%Y-%m-%d %H:%M:%S", &f);
			break;
		case FORM_CLF:
			alen = sprintf(a, "[%02d/%s/%04d:%02d:%02d:%02d +0000]", f.tm_mday,
			               month_names[f.tm_mon], f.tm_year + 1900, f.tm_hour, f.tm_min,
			               f.tm_sec);
			break;
		case FORM_PAIR_ISO:
			alen = (int)strftime(a, FIELD_SIZE_MAX, "%Y-%m-%d", &f);
			blen = (int)strftime(b, FIELD_SIZE_MAX, "%H:%M:%S", &f);
			blen += sprintf(b + blen, ".%03u", millis);
			break;
		case FORM_PAIR_CLF:
			alen = sprintf(a, "[%02d/%s/%04d:%02d:%02d:%02d", f.tm_mday, month_names[f.tm_mon],
			               f.tm_year + 1900, f.tm_hour, f.tm_min, f.tm_sec);
			blen = sprintf(b, "+0000]");
			break;
		default:
			alen = (int)strftime(a, FIELD_SIZE_MAX, "%Y-%m-%dT%H:%M:%S", &f);
			break;
		}
		set->first_len[i] = (uint8_t)alen;
		set->second_len[i] = (uint8_t)blen;
		memcpy(a + alen + 1, b, (size_t)blen);
		a[alen + 1 + blen] = '\0';
		a += alen + 1 + (blen ? blen + 1 : 0);
	}
}

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/*
** Parses the timestamp at *cursor, timestamp i of the set, as the form says, moves *cursor
** past it and returns its nanoseconds, or -1 when refused.
*/
static inline int64_t parse_one(const TimestampSet *set, size_t i, enum form form,
                                const char **cursor)
{
	int64_t nanos = -1;
	const char *a = *cursor;
	size_t alen = set->first_len[i], blen = set->second_len[i];
	*cursor = a + alen + 1 + (blen ? blen + 1 : 0);
	switch (form) {
	case FORM_EPOCH_MILLISECONDS:
		if (!parse_timestamp(a, alen, EPOCH_MILLISECONDS, &nanos))
			nanos = -1;
		break;
	case FORM_PAIR_ISO:
	case FORM_PAIR_CLF:
	{
		size_t taken;

		if (!parse_timestamp_fields(a, alen, a + alen + 1, blen, EPOCH_SECONDS, &nanos,
		                            &taken) || taken != 2)
			nanos = -1;
		break;
	}
	case FORM_STRPTIME_ISO: {
		struct tm fields = {0};
		if (strptime(a, "%Y-%m-%dT%H:%M:%S", &fields))
			nanos = (int64_t)timegm(&fields) * 1000000000;
		break;
	}
	default:
		if (!parse_timestamp(a, alen, EPOCH_SECONDS, &nanos))
			nanos = -1;
	}
	return nanos;
}

/*
** Returns the best of RUNS timings over the set, in ns per timestamp, and counts the
** timestamps refused in *refused (it must stay 0) and adds the results to *checksum so the
** compiler cannot drop the work.
*/
static double time_form(const TimestampSet *set, enum form form, size_t *refused,
                        uint64_t *checksum)
{
	double best = 1e300;
	for (int run = 0; run < RUNS; run++) {
		uint64_t sum = 0;
		size_t bad = 0;
		const char *cursor = set->text;
		double start = now_ns();
		for (size_t i = 0; i < TIMESTAMP_COUNT; i++) {
			int64_t nanos = parse_one(set, i, form, &cursor);
			bad += nanos == -1;
			sum += (uint64_t)nanos;
		}
		double elapsed = (now_ns() - start) / TIMESTAMP_COUNT;
		if (elapsed < best)
			best = elapsed;
		*checksum += sum;
		*refused = bad;
	}
	return best;
}

int main(void)
{
	TimestampSet set = {
		malloc((size_t)TIMESTAMP_COUNT * FIELD_SIZE_MAX),
		malloc(TIMESTAMP_COUNT),
		malloc(TIMESTAMP_COUNT),
	};
	if (!set.text || !set.first_len || !set.second_len) {
		fprintf(stderr, "bench_timestamp: out of memory\n");
		return 3;
	}
	/* strptime and timegm are the reference only; the result must not depend on TZ. */
	setenv("TZ", "UTC0", 1);
	tzset();
	uint64_t checksum = 0;
	printf("%d timestamps per form, best of %d runs:\n", TIMESTAMP_COUNT, RUNS);
	for (int form = 0; form < FORM_COUNT; form++) {
		generate(&set, (enum form)form, 1 + (uint64_t)form);
		size_t refused = 0;
		double ns = time_form(&set, (enum form)form, &refused, &checksum);
		printf("  %-52s %6.1f ns/timestamp", form_names[form], ns);
		if (refused)
			printf("  (%zu REFUSED)", refused);
		printf("\n");
	}
	printf("(checksum %llu)\n", (unsigned long long)checksum);
	return 0;
}
