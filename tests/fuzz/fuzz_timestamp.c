/*
 * fuzz_timestamp.c: libFuzzer harness for the timestamp and duration parsers
 * (src/timestamp.c).
 *
 * Byte 0 chooses the epoch unit (its low two bits), byte 1 where the rest is split
 * into the two fields of a pair; the rest is the text.  Every parser runs on arbitrary
 * bytes, each from a heap block of exactly its length so that AddressSanitizer catches
 * a read past it, and these properties are checked:
 *
 *   - any timestamp accepted, written back as YYYY-MM-DDThh:mm:ss.fffffffffZ, as
 *     [dd/Mon/yyyy:hh:mm:ss.fffffffff +0000] and as an epoch in seconds and in
 *     nanoseconds, parses back to the same nanosecond;
 *   - a pair accepted has a first half that timestamp_is_first_half accepts, and the
 *     two fields joined by a space parse as one timestamp to the same nanosecond;
 *   - a duration accepted is positive and, written back as seconds with nine decimals,
 *     parses back to itself;
 *   - an epoch that epoch_exceeds_1e11_seconds flags is one that parse_timestamp
 *     refuses, and so is a date that timestamp_date_problem has words for (which
 *     fit its hint of 80 bytes);
 *   - a parser that refuses leaves its output untouched;
 *   - read_timestamp_fields over the text split at blanks takes 1 to 4 fields, never
 *     more than there are, one alone as parse_timestamp reads it, and the fields it
 *     takes, joined by one space, read as one field to the same nanosecond; every
 *     instant accepted is also written as a syslog date (three fields and one, with
 *     its year), with its zone in fields of its own, with slashes and as RFC 7231,
 *     and must read back;
 *   - read through the memo of timestamps with a clock (timestamp_read_memo), the text
 *     before the split and then that text with bytes changed (pairs of offset and byte
 *     after the split), as blank-separated fields and as one field, reads as
 *     read_timestamp_fields reads it, and carries the year of syslog dates on alike.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timestamp.h"

#define UNTOUCHED INT64_C(0x5a5a5a5a5a5a5a5a)

static const uint8_t *fuzz_data;
static size_t fuzz_size;

static void
fail(const char *what, const char *text, size_t len)
{
	fprintf(stderr, "fuzz_timestamp: %s: '%.*s'\ninput:", what, (int)len, text);
	for (size_t i = 0; i < fuzz_size; i++)
		fprintf(stderr, " %02x", fuzz_data[i]);
	fprintf(stderr, "\n");
	abort();
}

/* A heap copy of exactly len bytes (1 when len is 0). */
static char *
copy_of(const uint8_t *bytes, size_t len)
{
	char *copy = malloc(len ? len : 1);

	if (copy == NULL)
		abort();
	memcpy(copy, bytes, len);
	return copy;
}

/* Howard Hinnant's civil_from_days: the date of day z counted from 1970-01-01. */
static void
civil_from_days(int64_t z, int *year, int *month, int *day)
{
	int64_t era, y;
	unsigned day_of_era, year_of_era, day_of_year, march_month;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	day_of_era = (unsigned)(z - era * 146097);
	year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36524 -
	    day_of_era / 146096) / 365;
	y = (int64_t)year_of_era + era * 400;
	day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
	march_month = (5 * day_of_year + 2) / 153;
	*day = (int)(day_of_year - (153 * march_month + 2) / 5 + 1);
	*month = (int)(march_month < 10 ? march_month + 3 : march_month - 9);
	*year = (int)(y + (*month <= 2));
}

/* Splits nanos into floor-divided days, seconds of the day and nanoseconds. */
static void
split_nanos(int64_t nanos, int64_t *days, int *seconds_of_day, int *fraction)
{
	int64_t seconds = nanos / 1000000000, rest = nanos % 1000000000;

	if (rest < 0) {
		rest += 1000000000;
		seconds--;
	}
	*fraction = (int)rest;
	*days = seconds / 86400;
	*seconds_of_day = (int)(seconds % 86400);
	if (*seconds_of_day < 0) {
		*seconds_of_day += 86400;
		(*days)--;
	}
}

/* Parses text (NUL-terminated, from an exact heap copy) and expects nanos. */
static void
expect_parse(const char *text, enum epoch_unit unit, int64_t nanos, const char *what)
{
	size_t len = strlen(text);
	char *copy = copy_of((const uint8_t *)text, len);
	int64_t back = UNTOUCHED;

	if (!parse_timestamp(copy, len, unit, &back) || back != nanos) {
		fprintf(stderr, "expected %" PRId64 ", got %" PRId64 "\n", nanos, back);
		fail(what, text, len);
	}
	free(copy);
}

/* The names of the days of the week, Monday first. */
static const char days_of_week[7][4] = { "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun" };

/*
 * Splits text[0, len) at runs of blanks into at most max fields, each an exact heap
 * copy (freed by free_fields); returns how many.
 */
static size_t
split_fields(const char *text, size_t len, struct field *fields, size_t max)
{
	size_t count = 0, i = 0;

	while (count < max) {
		size_t start;

		while (i < len && (text[i] == ' ' || text[i] == '\t'))
			i++;
		if (i == len)
			break;
		start = i;
		while (i < len && text[i] != ' ' && text[i] != '\t')
			i++;
		fields[count].text = copy_of((const uint8_t *)text + start, i - start);
		fields[count++].len = i - start;
	}
	return count;
}

static void
free_fields(struct field *fields, size_t count)
{
	for (size_t i = 0; i < count; i++)
		free((void *)fields[i].text);
}

/*
 * Reads text, a line of blank-separated fields, with read_timestamp_fields in the given
 * year, and expects all of its fields to make one timestamp, nanos; and the same text
 * as one field.
 */
static void
expect_fields(const char *text, int year, int64_t nanos, const char *what)
{
	struct field fields[6], one;
	size_t count = split_fields(text, strlen(text), fields, 6), taken;
	struct syslog_year y = { .year = year };
	int64_t back = UNTOUCHED;

	if (!read_timestamp_fields(fields, count, EPOCH_SECONDS, &y, &back, &taken) ||
	    back != nanos || taken != count) {
		fprintf(stderr, "expected %" PRId64 " in %zu fields, got %" PRId64 " in %zu\n",
		    nanos, count, back, taken);
		fail(what, text, strlen(text));
	}
	free_fields(fields, count);
	one.text = copy_of((const uint8_t *)text, strlen(text));
	one.len = strlen(text);
	y.year = year;
	y.month = 0;
	back = UNTOUCHED;
	if (!read_timestamp_fields(&one, 1, EPOCH_SECONDS, &y, &back, &taken) || back != nanos)
		fail(what, text, strlen(text));
	free((void *)one.text);
}

/* Writes nanos back in every form and checks that each parses to it. */
static void
check_round_trip(int64_t nanos)
{
	static const char months[12][4] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul",
		"Aug", "Sep", "Oct", "Nov", "Dec" };
	char text[96];
	int64_t days;
	int seconds_of_day, fraction, year, month, day;
	uint64_t magnitude = nanos < 0 ? (uint64_t)-(nanos + 1) + 1 : (uint64_t)nanos;

	split_nanos(nanos, &days, &seconds_of_day, &fraction);
	civil_from_days(days, &year, &month, &day);
	snprintf(text, sizeof(text), "%04d-%02d-%02dT%02d:%02d:%02d.%09dZ", year, month, day,
	    seconds_of_day / 3600, seconds_of_day / 60 % 60, seconds_of_day % 60, fraction);
	expect_parse(text, EPOCH_SECONDS, nanos, "ISO round trip");
	snprintf(text, sizeof(text), "[%02d/%s/%04d:%02d:%02d:%02d.%09d +0000]", day,
	    months[month - 1], year, seconds_of_day / 3600, seconds_of_day / 60 % 60,
	    seconds_of_day % 60, fraction);
	expect_parse(text, EPOCH_SECONDS, nanos, "CLF round trip");
	snprintf(text, sizeof(text), "%s%" PRIu64 ".%09" PRIu64, nanos < 0 ? "-" : "",
	    magnitude / 1000000000, magnitude % 1000000000);
	expect_parse(text, EPOCH_SECONDS, nanos, "epoch seconds round trip");
	snprintf(text, sizeof(text), "%" PRId64, nanos);
	expect_parse(text, EPOCH_NANOSECONDS, nanos, "epoch nanoseconds round trip");
	snprintf(text, sizeof(text), "%04d/%02d/%02d %02d:%02d:%02d.%09d +0000 UTC", year,
	    month, day, seconds_of_day / 3600, seconds_of_day / 60 % 60, seconds_of_day % 60,
	    fraction);
	expect_parse(text, EPOCH_SECONDS, nanos, "ISO with slashes and a zone name");
	snprintf(text, sizeof(text), "%s, %02d %s %04d %02d:%02d:%02d.%09d GMT",
	    days_of_week[((days % 7) + 10) % 7], day, months[month - 1], year,
	    seconds_of_day / 3600, seconds_of_day / 60 % 60, seconds_of_day % 60, fraction);
	expect_parse(text, EPOCH_SECONDS, nanos, "RFC 7231 round trip");
	snprintf(text, sizeof(text), "%s %2d %02d:%02d:%02d.%09d", months[month - 1], day,
	    seconds_of_day / 3600, seconds_of_day / 60 % 60, seconds_of_day % 60, fraction);
	expect_fields(text, year, nanos, "syslog round trip");
	snprintf(text, sizeof(text), "%04d-%02d-%02d %02d:%02d:%02d.%09d Z", year, month, day,
	    seconds_of_day / 3600, seconds_of_day / 60 % 60, seconds_of_day % 60, fraction);
	expect_fields(text, year, nanos, "ISO with its zone in a field");
}

static void
check_timestamp(const uint8_t *bytes, size_t len, enum epoch_unit unit)
{
	char *text = copy_of(bytes, len);
	char hint[80];
	int64_t nanos = UNTOUCHED;
	bool accepted = parse_timestamp(text, len, unit, &nanos);

	if (accepted)
		check_round_trip(nanos);
	else if (nanos != UNTOUCHED)
		fail("refused, but *nanos was changed", text, len);
	if (epoch_exceeds_1e11_seconds(text, len, unit) && accepted)
		fail("an epoch above 1e11 s was accepted", text, len);
	if (timestamp_date_problem(text, len, hint, sizeof(hint)) &&
	    (accepted || strlen(hint) >= sizeof(hint) - 1))
		fail("a date said not to exist or to be out of range was accepted", text, len);
	timestamp_is_first_half(text, len);
	free(text);
}

static void
check_duration(const uint8_t *bytes, size_t len)
{
	char *text = copy_of(bytes, len);
	int64_t nanos = UNTOUCHED, back = UNTOUCHED;
	char again[48];
	size_t again_len;

	if (!parse_duration(text, len, &nanos)) {
		if (nanos != UNTOUCHED)
			fail("duration refused, but *nanos was changed", text, len);
		free(text);
		return;
	}
	if (nanos <= 0)
		fail("a duration must be positive", text, len);
	again_len = (size_t)snprintf(again, sizeof(again), "%" PRId64 ".%09" PRId64 "s",
	    nanos / 1000000000, nanos % 1000000000);
	if (!parse_duration(again, again_len, &back) || back != nanos)
		fail("duration round trip", again, again_len);
	free(text);
}

static void
check_pair(const uint8_t *bytes, size_t len, size_t split)
{
	char *a = copy_of(bytes, split), *b = copy_of(bytes + split, len - split);
	int64_t nanos = UNTOUCHED;

	if (parse_timestamp_pair(a, split, b, len - split, &nanos)) {
		char *joined = malloc(len + 2);
		size_t n = 0;
		int64_t whole = UNTOUCHED;

		if (!timestamp_is_first_half(a, split))
			fail("pair accepted, but its first half is no first half", a, split);
		if (joined == NULL)
			abort();
		/* Each half trimmed of blanks, as the pair reads them, and a space between. */
		{
			const char *s = a, *e = a + split;

			while (s < e && (*s == ' ' || *s == '\t'))
				s++;
			while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
				e--;
			memcpy(joined, s, (size_t)(e - s));
			n = (size_t)(e - s);
			joined[n++] = ' ';
			s = b;
			e = b + len - split;
			while (s < e && (*s == ' ' || *s == '\t'))
				s++;
			while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
				e--;
			memcpy(joined + n, s, (size_t)(e - s));
			n += (size_t)(e - s);
		}
		if (!parse_timestamp(joined, n, EPOCH_SECONDS, &whole) || whole != nanos)
			fail("pair and joined text differ", joined, n);
		check_round_trip(nanos);
		free(joined);
	} else if (nanos != UNTOUCHED) {
		fail("pair refused, but *nanos was changed", a, split);
	}
	free(a);
	free(b);
}

/*
 * True when text[0, len), blanks around it aside, is shaped as a zone in a field of its
 * own: Z, or a sign and four digits or two, ":" and two (swag(1), TIMESTAMPS).
 */
static bool
zone_shaped(const char *text, size_t len)
{
	const char *s = text, *e = text + len;
	size_t n;

	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	n = (size_t)(e - s);
	if (n == 1)
		return *s == 'Z';
	if ((n != 5 && n != 6) || (*s != '+' && *s != '-'))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!(n == 6 && i == 3 ? s[i] == ':' : s[i] >= '0' && s[i] <= '9'))
			return false;
	return true;
}

/* True when text[0, len), blanks around it aside, has a blank inside. */
static bool
inner_blank(const char *text, size_t len)
{
	const char *s = text, *e = text + len;

	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	for (; s < e; s++)
		if (*s == ' ' || *s == '\t')
			return true;
	return false;
}

/* True when text[0, len), blanks around it aside, is three letters (a syslog month). */
static bool
month_shaped(const char *text, size_t len)
{
	const char *s = text, *e = text + len;

	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	if (e - s != 3)
		return false;
	for (; s < e; s++)
		if (!((*s | 0x20) >= 'a' && (*s | 0x20) <= 'z'))
			return false;
	return true;
}

/* True when text[0, len) starts, after blanks, with an opening bracket (a CLF pair). */
static bool
opens_bracket(const char *text, size_t len)
{
	const char *s = text;

	while (s < text + len && (*s == ' ' || *s == '\t'))
		s++;
	return s < text + len && *s == '[';
}

/*
 * parse_timestamp_fields, the rule of whitespace input, against its parts: two fields
 * are taken only after a first half, and then exactly when a CLF bracket is open or the
 * second field is shaped like a time; what two fields give is the pair's reading, what
 * one gives is parse_timestamp's; every time the pair reads is time-shaped.
 */
static void
check_fields(const uint8_t *bytes, size_t len, size_t split, enum epoch_unit unit)
{
	char *a = copy_of(bytes, split), *b = copy_of(bytes + split, len - split);
	size_t blen = len - split, taken = 0, taken_alone = 0;
	int64_t nanos = UNTOUCHED, single = UNTOUCHED, pair = UNTOUCHED, alone = UNTOUCHED;
	bool ok = parse_timestamp_fields(a, split, b, blen, unit, &nanos, &taken);
	bool single_ok = parse_timestamp(a, split, unit, &single);
	bool pair_ok = parse_timestamp_pair(a, split, b, blen, &pair);
	bool shaped = timestamp_is_time_shaped(b, blen);
	bool first = timestamp_is_first_half(a, split);
	bool clf = opens_bracket(a, split);

	if (taken != 1 && taken != 2)
		fail("fields: taken is neither 1 nor 2", a, split);
	if (!ok && nanos != UNTOUCHED)
		fail("fields refused, but *nanos was changed", a, split);
	if (taken == 2 && !first && !zone_shaped(b, blen) && !(month_shaped(a, split) && !ok))
		fail("fields: two taken without a first half, a zone or a month", a, split);
	if (ok && taken == 2 && first && (!pair_ok || nanos != pair))
		fail("fields: two taken, but not as the pair reads them", b, blen);
	if (taken == 1 && (ok != single_ok || (ok && nanos != single)))
		fail("fields: one taken, but not as parse_timestamp reads it", a, split);
	if (first && clf && taken != 2)
		fail("fields: an open bracket took one field", a, split);
	/* (A zone after a blank inside b, which the splitter never gives, may join too.) */
	if (first && !clf && (taken == 2) != (pair_ok || shaped) && !inner_blank(b, blen))
		fail("fields: a date took the next field, or left it, wrongly", b, blen);
	if (pair_ok && !clf && !shaped && !inner_blank(b, blen))
		fail("a time the pair reads is not time-shaped", b, blen);
	if (!parse_timestamp_fields(a, split, NULL, 0, unit, &alone, &taken_alone) != !single_ok ||
	    taken_alone != 1 || (single_ok && alone != single))
		fail("fields without a next field differ from parse_timestamp", a, split);
	free(a);
	free(b);
}

/*
 * read_timestamp_fields over the text split at blanks, the rule of blank-separated input
 * (swag(1), TIMESTAMPS), against one field: the fields taken, joined by a space, read as
 * one field to the same instant, and one field taken alone is parse_timestamp's reading.
 */
static void
check_many_fields(const uint8_t *bytes, size_t len, enum epoch_unit unit, int year)
{
	struct field fields[6], joined;
	size_t count = split_fields((const char *)bytes, len, fields, 6), taken = 99, n = 0;
	struct syslog_year y = { .year = year, .now = 1796040000 }, before;
	int64_t nanos = UNTOUCHED, whole = UNTOUCHED;
	char *text;
	bool ok;

	if (count == 0)
		return;
	before = y;
	ok = read_timestamp_fields(fields, count, unit, &y, &nanos, &taken);
	if (taken < 1 || taken > 4 || taken > count)
		fail("fields: taken out of range", fields[0].text, fields[0].len);
	if (!ok && nanos != UNTOUCHED)
		fail("fields refused, but *nanos was changed", fields[0].text, fields[0].len);
	if (ok && taken == 1 && (!parse_timestamp(fields[0].text, fields[0].len, unit,
	    &whole) || whole != nanos)) {
		/* A syslog date needs more than one field: one alone is never one. */
		fail("fields: one taken, but not as parse_timestamp reads it", fields[0].text,
		    fields[0].len);
	}
	if (ok && taken > 1) {
		for (size_t i = 0; i < taken; i++)
			n += fields[i].len + 1;
		text = malloc(n);
		if (text == NULL)
			abort();
		n = 0;
		for (size_t i = 0; i < taken; i++) {
			if (i > 0)
				text[n++] = ' ';
			memcpy(text + n, fields[i].text, fields[i].len);
			n += fields[i].len;
		}
		joined.text = text;
		joined.len = n;
		whole = UNTOUCHED;
		if (!read_timestamp_fields(&joined, 1, unit, &before, &whole, &taken) ||
		    whole != nanos)
			fail("fields taken, joined, read otherwise", text, n);
		check_round_trip(nanos);
		free(text);
	}
	free_fields(fields, count);
}

/* Whether two years of syslog dates carried are the same. */
static bool
same_year(const struct syslog_year *a, const struct syslog_year *b)
{
	return a->year == b->year && a->month == b->month && a->newest == b->newest &&
	    a->now == b->now;
}

/*
 * Reads fields with read_timestamp_fields, in the year *slow_year carries, and through
 * *memo (timestamp_read_memo, then read_timestamp_fields_memo, which keeps), in the year
 * *memo_year carries, and fails unless they agree: whether the text reads, the instant,
 * the fields taken, and the years carried on.
 */
static void
memo_agrees(struct timestamp_memo *memo, const struct field *fields, size_t count,
    struct syslog_year *slow_year, struct syslog_year *memo_year)
{
	int64_t slow = UNTOUCHED, fast = UNTOUCHED, kept = UNTOUCHED;
	size_t slow_taken = 99, fast_taken = 99, kept_taken = 99;
	struct syslog_year probe = *memo_year;
	bool ok = read_timestamp_fields(fields, count, EPOCH_SECONDS, slow_year, &slow,
	    &slow_taken);
	bool hit = timestamp_read_memo(memo, fields, count, &probe, &fast, &fast_taken);
	bool kept_ok = read_timestamp_fields_memo(fields, count, EPOCH_SECONDS, memo_year, memo,
	    &kept, &kept_taken);

	if (!same_year(slow_year, memo_year))
		fail("the memo carries another year", fields[0].text, fields[0].len);
	if (hit && !same_year(&probe, memo_year))
		fail("the memo read twice carries two years", fields[0].text, fields[0].len);
	if (hit && (!ok || fast != slow || fast_taken != slow_taken))
		fail("the memo reads otherwise", fields[0].text, fields[0].len);
	if (!hit && (fast != UNTOUCHED || fast_taken != 99))
		fail("the memo missed, but stored", fields[0].text, fields[0].len);
	if (kept_ok != ok || kept_taken != slow_taken || (ok && kept != slow))
		fail("read_timestamp_fields_memo reads otherwise", fields[0].text, fields[0].len);
}

/*
 * The memo (timestamp_read_memo): the text before split, split at blanks, read and kept,
 * then the same text with bytes changed, pairs (offset, byte) from the rest of the
 * input, a change a record, each read through the memo and by read_timestamp_fields
 * alone; and again with the text as one field, as delimited input gives a timestamp.
 */
static void
check_memo(const uint8_t *bytes, size_t len, size_t split)
{
	struct timestamp_memo memo = TIMESTAMP_MEMO_START, one_memo = TIMESTAMP_MEMO_START;
	struct syslog_year years[4] = { { .now = 1796040000 }, { .now = 1796040000 },
	    { .now = 1796040000 }, { .now = 1796040000 } };
	struct field fields[6], one;
	uint8_t *text;
	size_t count;

	if (split == 0)
		return;
	text = (uint8_t *)copy_of(bytes, split);
	for (size_t at = split; ; at += 2) {
		count = split_fields((const char *)text, split, fields, 6);
		if (count > 0)
			memo_agrees(&memo, fields, count, &years[0], &years[1]);
		free_fields(fields, count);
		one.text = copy_of(text, split);
		one.len = split;
		memo_agrees(&one_memo, &one, 1, &years[2], &years[3]);
		free((void *)one.text);
		if (at + 1 >= len)
			break;
		text[bytes[at] % split] = bytes[at + 1];
	}
	free(text);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum epoch_unit unit;
	size_t split;

	fuzz_data = data;
	fuzz_size = size;
	if (size < 2)
		return 0;
	unit = (enum epoch_unit)(data[0] & 3);
	split = data[1] % (size - 1);
	data += 2;
	size -= 2;
	check_timestamp(data, size, unit);
	check_duration(data, size);
	check_pair(data, size, split);
	check_fields(data, size, split, unit);
	check_many_fields(data, size, unit, fuzz_data[0] & 4 ? 0 : 1970 + (fuzz_data[0] >> 3));
	check_memo(data, size, split);
	return 0;
}
