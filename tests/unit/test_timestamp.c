/*
** Unit tests of parse_timestamp, parse_duration and the two-field pairs
** (src/timestamp.c).
**
** Tables state the grammar: the forms accepted and the instant each one names, and what is
** refused. Then the calendar is checked day by day, 1677 to 2262, against a naive day
** counter and against glibc's timegm, and random instants over the whole int64_t range are
** written in each form (fields from gmtime_r) and must read back to the same nanosecond.
** Every generator uses a fixed seed, so a failure names its text and reproduces.
*/
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "timestamp.h"

#define NS 1000000000LL
#define DAY_NS (86400 * NS)

/* 2026-11-30T02:28:56Z, the instant most tables write in several forms. */
#define EXAMPLE_SECONDS 1796005736LL
#define EXAMPLE_NS (EXAMPLE_SECONDS * NS)

/* ---------------------------------------------------------------------------------------
** Helpers.
*/

/*
** Copies text[0..len) to the very end of a heap block of exactly len bytes and parses it
** from there, so that AddressSanitizer catches a read past the field and a parser that
** wanted a NUL terminator finds none. Returns what parse_timestamp returns.
*/
static bool parse_at_end_of_block(const char *text, size_t len, enum epoch_unit unit,
                                  int64_t *nanos)
{
	char *block = malloc(len ? len : 1);
	cr_assert_not_null(block);
	memcpy(block, text, len);
	bool accepted = parse_timestamp(block, len, unit, nanos);
	free(block);
	return accepted;
}

static void expect_timestamp_in(enum epoch_unit unit, const char *text, int64_t expected)
{
	int64_t actual = 12345;
	if (!parse_at_end_of_block(text, strlen(text), unit, &actual))
		cr_assert_fail("\"%s\" (unit %d) refused, expected %lld", text, (int)unit,
		               (long long)expected);
	if (actual != expected)
		cr_assert_fail("\"%s\" (unit %d): got %lld, expected %lld", text, (int)unit,
		               (long long)actual, (long long)expected);
}

static void expect_timestamp(const char *text, int64_t expected)
{
	expect_timestamp_in(EPOCH_SECONDS, text, expected);
}

/* Asserts that text[0..len) is refused in unit and leaves the output untouched. */
static void expect_refused_bytes_in(enum epoch_unit unit, const char *text, size_t len)
{
	int64_t actual = 12345;
	if (parse_at_end_of_block(text, len, unit, &actual))
		cr_assert_fail("\"%.*s\" (length %zu, unit %d) accepted as %lld", (int)len, text,
		               len, (int)unit, (long long)actual);
	cr_assert_eq(actual, 12345, "\"%.*s\": output changed on failure", (int)len, text);
}

/* Asserts that text[0..len) is refused in every unit. */
static void expect_refused_bytes(const char *text, size_t len)
{
	for (int unit = EPOCH_SECONDS; unit <= EPOCH_NANOSECONDS; unit++)
		expect_refused_bytes_in((enum epoch_unit)unit, text, len);
}

static void expect_refused_in(enum epoch_unit unit, const char *text)
{
	expect_refused_bytes_in(unit, text, strlen(text));
}

static void expect_refused(const char *text)
{
	expect_refused_bytes(text, strlen(text));
}

static void expect_same_instant(const char *a, const char *b)
{
	int64_t from_a, from_b;
	cr_assert(parse_timestamp(a, strlen(a), EPOCH_SECONDS, &from_a), "\"%s\" refused", a);
	cr_assert(parse_timestamp(b, strlen(b), EPOCH_SECONDS, &from_b), "\"%s\" refused", b);
	cr_assert_eq(from_a, from_b, "\"%s\" gives %lld but \"%s\" gives %lld", a,
	             (long long)from_a, b, (long long)from_b);
}

static void expect_pair(const char *a, const char *b, int64_t expected)
{
	cr_assert(timestamp_is_first_half(a, strlen(a)), "\"%s\" not seen as a first half", a);
	int64_t actual = 12345;
	if (!parse_timestamp_pair(a, strlen(a), b, strlen(b), &actual))
		cr_assert_fail("pair \"%s\" \"%s\" refused", a, b);
	cr_assert_eq(actual, expected, "pair \"%s\" \"%s\": got %lld, expected %lld", a, b,
	             (long long)actual, (long long)expected);
}

static void expect_pair_refused(const char *a, const char *b)
{
	int64_t actual = 12345;
	cr_assert_not(parse_timestamp_pair(a, strlen(a), b, strlen(b), &actual),
	              "pair \"%s\" \"%s\" accepted as %lld", a, b, (long long)actual);
	cr_assert_eq(actual, 12345);
}

static void expect_duration(const char *text, int64_t expected)
{
	int64_t actual = 12345;
	if (!parse_duration(text, strlen(text), &actual))
		cr_assert_fail("duration \"%s\" refused, expected %lld", text, (long long)expected);
	cr_assert_eq(actual, expected, "duration \"%s\": got %lld, expected %lld", text,
	             (long long)actual, (long long)expected);
}

static void expect_duration_refused(const char *text)
{
	int64_t actual = 12345;
	cr_assert_not(parse_duration(text, strlen(text), &actual),
	              "duration \"%s\" accepted as %lld", text, (long long)actual);
	cr_assert_eq(actual, 12345);
}

/* xorshift64*: small, fast and fully determined by its seed. */
static uint64_t random_next(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 0x2545F4914F6CDD1DU;
}

/* Returns floor(a / b) for b > 0, which C's truncating division is not for a < 0. */
static int64_t floor_divide(int64_t a, int64_t b)
{
	return a / b - (a % b != 0 && a < 0);
}

/* ---------------------------------------------------------------------------------------
** Epoch numbers.
*/

Test(epoch, seconds_with_and_without_decimals)
{
	expect_timestamp("1732933736", 1732933736 * NS);
	expect_timestamp("1732933736.25", 1732933736 * NS + 250000000);
	expect_timestamp(" \t1732933736 \t", 1732933736 * NS);
	expect_timestamp("0", 0);
	expect_timestamp("-0", 0);
	expect_timestamp("+5", 5 * NS);
	expect_timestamp("-5.5", -5500000000LL);
	expect_timestamp(".5", 500000000);
	expect_timestamp("-.5", -500000000);
	expect_timestamp("5.", 5 * NS);
	expect_timestamp("0001", NS);
	expect_timestamp("1.123456789", 1123456789);
}

Test(epoch, units)
{
	expect_timestamp_in(EPOCH_MILLISECONDS, "1732933736123", 1732933736123000000LL);
	expect_timestamp_in(EPOCH_MICROSECONDS, "1732933736123456", 1732933736123456000LL);
	expect_timestamp_in(EPOCH_NANOSECONDS, "1732933736123456789", 1732933736123456789LL);
	expect_timestamp_in(EPOCH_MILLISECONDS, "1.5", 1500000);
	expect_timestamp_in(EPOCH_MICROSECONDS, "1.5", 1500);
	expect_timestamp_in(EPOCH_MICROSECONDS, "-2.001", -2001);
	expect_timestamp_in(EPOCH_MILLISECONDS, "1732933736123.456789", 1732933736123456789LL);
}

/* Digits below a nanosecond round toward the past, in every unit and for either sign. */
Test(epoch, sub_nanosecond_digits_round_toward_the_past)
{
	expect_timestamp("0.0000000009", 0);
	expect_timestamp("-0.0000000001", -1);
	expect_timestamp("1.1234567891", 1123456789);
	expect_timestamp("-1.1234567891", -1123456790);
	expect_timestamp("-1.1234567890000", -1123456789);
	expect_timestamp_in(EPOCH_NANOSECONDS, "1.5", 1);
	expect_timestamp_in(EPOCH_NANOSECONDS, "-1.5", -2);
	expect_timestamp_in(EPOCH_NANOSECONDS, "-1.0", -1);
	expect_timestamp_in(EPOCH_MILLISECONDS, "1.0000005", 1000000);
	expect_timestamp_in(EPOCH_MILLISECONDS, "-1.0000005", -1000001);
	/* The same instant as a date: 1969-12-31T23:59:58.9999999999 truncated. */
	expect_same_instant("-1.0000000001", "1969-12-31T23:59:58.9999999999Z");
}

/*
** timestamp_read_epoch_words (the -t stage's inline reader) against read_timestamp_fields
** on random texts of 1 to 20 bytes, mostly digits and points, in every unit: where the
** words reader takes a text it must give what the parser gives, in one field; and it must
** take the common shapes (it takes 9 to 16 bytes, the first 8 digits). The reader keeps
** the first 8 bytes of the texts it reads across the rounds, as the stage does, and half
** the texts open with the previous text's 8 bytes (a stream's timestamps mostly do), so
** that a text is read both with its first 8 bytes known and not. Each text sits at the
** end of a block of its own size, for AddressSanitizer.
*/
Test(epoch, words_reader_agrees_with_the_parser)
{
	static const char alphabet[] = "0123456789012345678901234567890123456789..-/+ eZ:";
	uint64_t state = 0x9E3779B97F4A7C15U;
	size_t taken_count = 0, by_length[17] = { 0 };
	char text[24], previous[8] = { 0 };
	struct epoch_words last = EPOCH_WORDS_START;
	size_t known_heads = 0;
	enum epoch_unit last_unit = EPOCH_SECONDS;
	for (int round = 0; round < 400000; round++) {
		uint64_t r = random_next(&state);
		size_t len = 1 + r % 20;
		/* A unit for 64 texts: what the reader keeps is for one unit (timestamp.h). */
		enum epoch_unit unit = (enum epoch_unit)(round >> 6 & 3);
		if (unit != last_unit)
			last = EPOCH_WORDS_START;
		last_unit = unit;
		bool plain = (r >> 10 & 3) != 0; /* digits and at most one point */
		bool same_head = (r >> 12 & 1) != 0 && len >= 8;
		for (size_t i = 0; i < len; i++) {
			r = random_next(&state);
			text[i] = plain ? (char)('0' + r % 10) : alphabet[r % (sizeof(alphabet) - 1)];
		}
		if (plain && (r >> 20) % 3 != 0)
			text[(r >> 24) % len] = '.';
		if (same_head)
			memcpy(text, previous, 8);
		if (len >= 8)
			memcpy(previous, text, 8);
		char *block = malloc(len);
		cr_assert_not_null(block);
		memcpy(block, text, len);
		int64_t fast = 12345, slow = 12345;
		size_t taken = 0;
		struct field field = { .text = block, .len = len };
		uint64_t head_before = last.head;
		if (timestamp_read_epoch_words(block, len, unit, &last, &fast)) {
			uint64_t head;
			memcpy(&head, block, 8);
			known_heads += head == head_before;
			cr_assert_eq(last.head, head, "\"%.*s\": the reader kept another head", (int)len,
			             text);
			bool ok = read_timestamp_fields(&field, 1, unit, NULL, &slow, &taken);
			if (!ok || taken != 1 || fast != slow)
				cr_assert_fail("\"%.*s\" (unit %d): words %lld, parser %s %lld, %zu fields",
				               (int)len, text, (int)unit, (long long)fast,
				               ok ? "reads" : "refuses", (long long)slow, taken);
			taken_count++;
			by_length[len]++;
		}
		free(block);
	}
	cr_assert_gt(taken_count, 20000, "the words reader took only %zu texts", taken_count);
	cr_assert_gt(known_heads, 10000, "only %zu texts read with their head known", known_heads);
	for (size_t len = 9; len <= 16; len++)
		cr_assert_gt(by_length[len], 1000, "length %zu taken %zu times", len, by_length[len]);
	int64_t nanos = 0;
	last = EPOCH_WORDS_START;
	cr_assert(timestamp_read_epoch_words("1700000000.010", 14, EPOCH_SECONDS, &last, &nanos));
	cr_expect_eq(nanos, 1700000000 * NS + 10000000);
	cr_assert(timestamp_read_epoch_words("1700000000010", 13, EPOCH_MILLISECONDS, &last,
	                                     &nanos));
	cr_expect_eq(nanos, 1700000000 * NS + 10000000);
	cr_assert(timestamp_read_epoch_words("9223372036.85477", 16, EPOCH_SECONDS, &last, &nanos));
	cr_expect_eq(nanos, 9223372036854770000LL);
	cr_assert_not(timestamp_read_epoch_words("9223372037", 10, EPOCH_SECONDS, &last, &nanos));
	/* A head of 8 NULs, or "00000000" with a bad tail, is no epoch, whatever was read. */
	last = EPOCH_WORDS_START;
	cr_assert_not(timestamp_read_epoch_words("\0\0\0\0\0\0\0\0" "1", 9, EPOCH_SECONDS, &last,
	                                         &nanos));
	cr_assert_not(timestamp_read_epoch_words("00000000x", 9, EPOCH_SECONDS, &last, &nanos));
	cr_assert(timestamp_read_epoch_words("000000001", 9, EPOCH_SECONDS, &last, &nanos));
	cr_expect_eq(nanos, NS);
}

/*
** timestamp_read_epoch_words on streams of one shape, as a log's timestamps come: a text
** of 9 to 16 bytes, the point at one place or none, in one unit, under one head of 8
** bytes, each next text the last with a few bytes changed (most to digits, some to a
** point, a date's '-' or '/', a blank, a NUL, 0xFF), with the head now and then changed
** too, near INT64_MAX's nanoseconds among them. Each text is compared with
** read_timestamp_fields, and most must be read by the shape the reader kept of the text
** before (its shape and head unchanged), so that the word path is what is tested.
*/
Test(epoch, words_reader_on_streams_of_one_shape)
{
	static const char odd[] = ".-/ \0\xff:+eZ";
	static const char *const heads[] = { "17000000", "92233720", "00000000", "99999999",
	                                     "00000922", "12345678" };
	uint64_t state = 0xD1B54A32D192ED03U;
	size_t shaped = 0, read = 0, total = 0;
	for (int stream = 0; stream < 4000; stream++) {
		uint64_t r = random_next(&state);
		size_t len = 9 + r % 8;
		size_t point = (r >> 3) % (len - 7); /* len - 8: none */
		enum epoch_unit unit = (enum epoch_unit)(r >> 8 & 3);
		char text[16];
		struct epoch_words last = EPOCH_WORDS_START;
		memcpy(text, heads[(r >> 10) % 6], 8);
		for (size_t i = 8; i < len; i++)
			text[i] = (char)('0' + random_next(&state) % 10);
		if (point < len - 8)
			text[8 + point] = '.';
		for (int round = 0; round < 100; round++) {
			r = random_next(&state);
			for (int change = 0; change < (int)(r % 3); change++) {
				uint64_t c = random_next(&state);
				size_t at = 8 + c % (len - 8);
				if (c >> 8 & 1 && text[at] != '.')
					text[at] = (char)('0' + (c >> 16) % 10);
				else if ((c >> 9) % 4 == 0)
					text[at] = odd[(c >> 16) % (sizeof(odd) - 1)];
			}
			if ((r >> 4) % 50 == 0)
				text[(r >> 10) % 8] = (char)('0' + (r >> 20) % 10);
			char *block = malloc(len);
			cr_assert_not_null(block);
			memcpy(block, text, len);
			uint64_t head;
			memcpy(&head, block, 8);
			bool by_shape = last.shape == len && last.head == head;
			int64_t fast = 12345, slow = 12345;
			size_t taken = 0;
			struct field field = { .text = block, .len = len };
			bool ok = read_timestamp_fields(&field, 1, unit, NULL, &slow, &taken);
			total++;
			if (timestamp_read_epoch_words(block, len, unit, &last, &fast)) {
				if (!ok || taken != 1 || fast != slow)
					cr_assert_fail("\"%.*s\" (unit %d): words %lld, parser %s %lld",
					               (int)len, text, (int)unit, (long long)fast,
					               ok ? "reads" : "refuses", (long long)slow);
				read++;
				shaped += by_shape;
			}
			free(block);
		}
	}
	cr_assert_gt(read, total / 3, "the reader took %zu texts of %zu", read, total);
	cr_assert_gt(shaped, read / 2, "only %zu of %zu read by their shape", shaped, read);
}

Test(epoch, limits_of_int64_nanoseconds)
{
	expect_timestamp("9223372036.854775807", INT64_MAX);
	expect_timestamp("-9223372036.854775808", INT64_MIN);
	expect_timestamp("-9223372036.8547758079", INT64_MIN);
	expect_refused_in(EPOCH_SECONDS, "9223372036.854775808");
	expect_refused_in(EPOCH_SECONDS, "-9223372036.8547758081");
	expect_refused_in(EPOCH_SECONDS, "9223372037");
	expect_timestamp_in(EPOCH_NANOSECONDS, "9223372036854775807", INT64_MAX);
	expect_timestamp_in(EPOCH_NANOSECONDS, "-9223372036854775808", INT64_MIN);
	expect_timestamp_in(EPOCH_MILLISECONDS, "9223372036854.775807", INT64_MAX);
	expect_refused_in(EPOCH_NANOSECONDS, "9223372036854775808");
	expect_refused_in(EPOCH_NANOSECONDS, "-9223372036854775809");
	expect_refused_in(EPOCH_NANOSECONDS, "18446744073709551616");
	expect_refused_in(EPOCH_MILLISECONDS, "9223372036854.775808");
	expect_refused("99999999999999999999999999");
	/* Milliseconds read as seconds: past 2262. */
	expect_refused_in(EPOCH_SECONDS, "1732933736123");
}

Test(epoch, exceeding_1e11_seconds_is_told_apart_from_garbage)
{
	const char *above[] = {"100000000000.1", "100000000001", "1732933736123", " +1732933736123 ",
	                       "0001732933736123.5", "99999999999999999999999999"};
	const char *not_above[] = {"100000000000", "100000000000.000", "1732933736", "-1732933736123",
	                           "1e12", "1732933736123x", "", "0", "2026-11-30", "."};
	for (size_t i = 0; i < sizeof above / sizeof above[0]; i++)
		cr_assert(epoch_exceeds_1e11_seconds(above[i], strlen(above[i]), EPOCH_SECONDS),
		          "\"%s\"", above[i]);
	for (size_t i = 0; i < sizeof not_above / sizeof not_above[0]; i++)
		cr_assert_not(epoch_exceeds_1e11_seconds(not_above[i], strlen(not_above[i]),
		                                         EPOCH_SECONDS), "\"%s\"", not_above[i]);
	cr_assert_not(epoch_exceeds_1e11_seconds("1732933736123", 13, EPOCH_MILLISECONDS));
	cr_assert(epoch_exceeds_1e11_seconds("100000000000001", 15, EPOCH_MILLISECONDS));
	cr_assert(epoch_exceeds_1e11_seconds("100000000000000000001", 21, EPOCH_NANOSECONDS));
	cr_assert_not(epoch_exceeds_1e11_seconds("9223372036854775807", 19, EPOCH_NANOSECONDS));
}

/* ---------------------------------------------------------------------------------------
** ISO 8601 and RFC 3339.
*/

Test(iso, forms_of_one_instant)
{
	expect_timestamp("2026-11-30T02:28:56Z", EXAMPLE_NS);
	expect_timestamp("2026-11-30t02:28:56z", EXAMPLE_NS);
	expect_timestamp("2026-11-30 02:28:56", EXAMPLE_NS);
	expect_timestamp("2026-11-30T02:28:56", EXAMPLE_NS);
	expect_timestamp("2026-11-30T02:28:56+00:00", EXAMPLE_NS);
	expect_timestamp("2026-11-30T02:28:56-00:00", EXAMPLE_NS);
	expect_timestamp("2026-11-30T02:28:56+0000", EXAMPLE_NS);
	expect_timestamp("2026-11-30 02:28:56+00", EXAMPLE_NS);
	expect_timestamp("  2026-11-30T02:28:56Z\t", EXAMPLE_NS);
	expect_timestamp("1970-01-01", 0);
	expect_timestamp("1970-01-01T00:00:00Z", 0);
	expect_timestamp("2026-11-30", EXAMPLE_NS - (2 * 3600 + 28 * 60 + 56) * NS);
	/* Blanks around the field are ignored, so a trailing space leaves a date alone. */
	expect_same_instant("2026-11-30 ", "2026-11-30");
}

Test(iso, leap_years)
{
	expect_timestamp("2024-02-29", 19782 * DAY_NS);
	expect_timestamp("2024-03-01", 19783 * DAY_NS);
	expect_timestamp("2000-02-29", 11016 * DAY_NS);
	expect_timestamp("1972-02-29", 789 * DAY_NS);
	expect_timestamp("1968-02-29", -672 * DAY_NS);
	expect_refused("2023-02-29");
	expect_refused("1900-02-29");
	expect_refused("2100-02-29");
	expect_refused("2024-02-30");
	expect_timestamp("2023-02-28", 19416 * DAY_NS);
	expect_timestamp("1900-03-01", -25508 * DAY_NS);
}

Test(iso, month_ends)
{
	static const int days_2023[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	char text[48];
	for (int year = 2023; year <= 2024; year++) {
		for (int month = 1; month <= 12; month++) {
			int last = days_2023[month - 1] + (year == 2024 && month == 2);
			int64_t last_day, next_day;
			snprintf(text, sizeof text, "%04d-%02d-%02d", year, month, last);
			cr_assert(parse_timestamp(text, strlen(text), EPOCH_SECONDS, &last_day), "%s", text);
			snprintf(text, sizeof text, "%04d-%02d-01", year + (month == 12),
			         month == 12 ? 1 : month + 1);
			cr_assert(parse_timestamp(text, strlen(text), EPOCH_SECONDS, &next_day), "%s", text);
			cr_assert_eq(next_day - last_day, DAY_NS, "%s", text);
			snprintf(text, sizeof text, "%04d-%02d-%02d", year, month, last + 1);
			expect_refused(text);
			snprintf(text, sizeof text, "%04d-%02d-00", year, month);
			expect_refused(text);
		}
	}
	expect_refused("2026-04-31");
	expect_refused("2026-00-10");
	expect_refused("2026-13-01");
}

Test(iso, offsets_across_midnight)
{
	expect_same_instant("2026-11-30T00:30:00+01:00", "2026-11-29T23:30:00Z");
	expect_same_instant("2026-11-29T23:45:00-00:30", "2026-11-30T00:15:00Z");
	expect_same_instant("2026-12-31T23:00:00-0200", "2027-01-01T01:00:00Z");
	expect_same_instant("2026-03-01T00:00:00+00:01", "2026-02-28T23:59:00Z");
	expect_same_instant("2024-03-01T05:00:00+05:30", "2024-02-29T23:30:00Z");
	expect_same_instant("2026-11-30T02:28:56+0530", "2026-11-30T02:28:56+05:30");
	expect_same_instant("2026-11-30T02:28:56+05", "2026-11-29T21:28:56Z");
	expect_same_instant("2026-11-30T02:28:56+23:59", "2026-11-29T02:29:56Z");
	expect_same_instant("2026-11-30T02:28:56-23:59", "2026-12-01T02:27:56Z");
	expect_same_instant("1970-01-01T00:00:00+01:00", "1969-12-31T23:00:00Z");
	expect_timestamp("1970-01-01T00:00:00+01:00", -3600 * NS);
	expect_refused("2026-11-30T02:28:56+24:00");
	expect_refused("2026-11-30T02:28:56+05:60");
	expect_refused("2026-11-30T02:28:56+5:30");
	expect_refused("2026-11-30T02:28:56+05:3");
	expect_refused("2026-11-30T02:28:56+053");
	expect_refused("2026-11-30T02:28:56+05:");
	expect_refused("2026-11-30T02:28:56+05:30:00");
	expect_refused("2026-11-30T02:28:56+");
	/* A zone after a blank, as Go writes it (swag(1), TIMESTAMPS). */
	expect_timestamp("2026-11-30T02:28:56 +01:00", EXAMPLE_NS - 3600 * NS);
	expect_refused("2026-11-30T02:28:56ZZ");
}

Test(iso, fractional_seconds)
{
	expect_timestamp("2026-11-30T02:28:56.5Z", EXAMPLE_NS + 500000000);
	expect_timestamp("2026-11-30T02:28:56,5Z", EXAMPLE_NS + 500000000);
	expect_timestamp("2026-11-30 02:28:56,123", EXAMPLE_NS + 123000000);
	expect_timestamp("2026-11-30T02:28:56.123456789Z", EXAMPLE_NS + 123456789);
	expect_timestamp("2026-11-30T02:28:56.1234567891Z", EXAMPLE_NS + 123456789);
	expect_timestamp("2026-11-30T02:28:56.9999999999999999999999Z", EXAMPLE_NS + 999999999);
	expect_timestamp("2026-11-30T02:28:56.000000001+00:00", EXAMPLE_NS + 1);
	expect_timestamp("2026-11-30T02:28:56.0", EXAMPLE_NS);
	expect_timestamp("1969-12-31T23:59:59.75Z", -250000000);
	expect_refused("2026-11-30T02:28:56.Z");
	expect_refused("2026-11-30T02:28:56.");
	expect_refused("2026-11-30T02:28:56..5");
	expect_refused("2026-11-30T02:28:56.5.5");
	expect_refused("2026-11-30T02:28:56.-5");
}

Test(iso, leap_second_is_the_next_minute)
{
	expect_same_instant("2026-12-31T23:59:60Z", "2027-01-01T00:00:00Z");
	/* Its fraction is dropped, so that it stays before 00:00:00.1 (swag(1), TIMESTAMPS). */
	expect_same_instant("2026-12-31T23:59:60.5Z", "2027-01-01T00:00:00Z");
	expect_same_instant("2026-12-31 23:59:60,999 +0000", "2027-01-01T00:00:00Z");
	expect_same_instant("[31/Dec/2026:23:59:60.75 +0000]", "2027-01-01T00:00:00Z");
	expect_same_instant("2016-12-31T18:59:60-05:00", "2017-01-01T00:00:00Z");
	expect_same_instant("2026-11-30T12:00:60", "2026-11-30T12:01:00");
	expect_refused("2026-12-31T23:59:61Z");
}

/* Seconds may be left out: hh:mm is hh:mm:00, with a zone or without, but no fraction. */
Test(iso, hours_and_minutes_without_seconds)
{
	expect_timestamp("2026-11-30T02:28", EXAMPLE_NS - 56 * NS);
	expect_timestamp("2026-11-30 02:28", EXAMPLE_NS - 56 * NS);
	expect_timestamp("2026-11-30t02:28z", EXAMPLE_NS - 56 * NS);
	expect_timestamp("2026-11-30T03:28+01:00", EXAMPLE_NS - 56 * NS);
	expect_timestamp("2026-11-30T03:28+0100", EXAMPLE_NS - 56 * NS);
	expect_timestamp("2026-11-30T03:28+01", EXAMPLE_NS - 56 * NS);
	expect_timestamp("2026-11-29T21:58-0430", EXAMPLE_NS - 56 * NS);
	expect_same_instant("2026-11-30T12:05", "2026-11-30T12:05:00");
	expect_same_instant("2026-12-31T23:59", "2026-12-31T23:59:00Z");
	expect_same_instant("2026-11-30T00:00", "2026-11-30");
	const char *refused[] = {
		"2026-11-30T12:60", "2026-11-30T24:00", "2026-11-30T25:00", "2026-11-30T12:05.5",
		"2026-11-30T12:05,5", "2026-11-30T12:05:", "2026-11-30T12:5", "2026-11-30T1:05",
		"2026-11-30T12", "2026-11-30T12:", "2026-11-30T1205", "2026-11-30T12:05Zx",
		"2026-11-30T12:05+", "2026-11-30T12:05+01:",
	};
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
		expect_refused(refused[i]);
}

/* ---------------------------------------------------------------------------------------
** Common Log Format.
*/

Test(clf, forms_of_one_instant)
{
	expect_timestamp("[30/Nov/2026:02:28:56 +0000]", EXAMPLE_NS);
	expect_timestamp("30/Nov/2026:02:28:56 +0000", EXAMPLE_NS);
	expect_timestamp("[30/nov/2026:02:28:56 +0000]", EXAMPLE_NS);
	expect_timestamp("[30/NOV/2026:02:28:56 -0000]", EXAMPLE_NS);
	expect_timestamp("[30/Nov/2026:03:28:56 +0100]", EXAMPLE_NS);
	expect_timestamp("[29/Nov/2026:21:28:56 -05:00]", EXAMPLE_NS);
	expect_timestamp("[30/Nov/2026:02:28:56]", EXAMPLE_NS);
	expect_timestamp("30/Nov/2026:02:28:56", EXAMPLE_NS);
	/* Without brackets a zone's name may follow a numeric zone, as in joined fields. */
	expect_timestamp("30/Nov/2026:03:28:56 +0100 CET", EXAMPLE_NS);
	expect_refused("30/Nov/2026:02:28:56 Z UTC");
	expect_refused("30/Nov/2026:03:28:56 +0100 cet");
	expect_refused("30/Nov/2026:03:28:56 +0100  CET");
	expect_refused("[30/Nov/2026:03:28:56 +0100 CET]");
	expect_timestamp(" [30/Nov/2026:02:28:56 +0000] ", EXAMPLE_NS);
	expect_timestamp("[30/Nov/2026:02:28:56.250 +0000]", EXAMPLE_NS + 250000000);
}

Test(clf, every_month_name)
{
	static const char *names[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
	                              "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
	char clf[64], iso[64];
	for (int month = 1; month <= 12; month++) {
		snprintf(clf, sizeof clf, "[28/%s/2026:12:00:00 +0000]", names[month - 1]);
		snprintf(iso, sizeof iso, "2026-%02d-28T12:00:00Z", month);
		expect_same_instant(clf, iso);
	}
}

/* Every three bytes from a set of letters, digits and tricky bytes: only the 12 names pass. */
Test(clf, month_names_and_nothing_else)
{
	static const char *names = "janfebmaraprmayjunjulaugsepoctnovdec";
	char bytes[128];
	size_t count = 0;
	for (char c = 'a'; c <= 'z'; c++) {
		bytes[count++] = c;
		bytes[count++] = (char)(c - 'a' + 'A');
	}
	for (char c = '0'; c <= '9'; c++)
		bytes[count++] = c;
	const char tricky[] = {'\0', '@', '`', '[', '{', '/', ' ', (char)0x80, (char)0xC1,
	                       (char)0xE1, (char)0xEE, (char)0xCE, (char)0xFF};
	memcpy(bytes + count, tricky, sizeof tricky);
	count += sizeof tricky;
	char text[] = "28/Xxx/2026:02:28:56";
	int accepted = 0;
	for (size_t i = 0; i < count; i++) {
		for (size_t j = 0; j < count; j++) {
			for (size_t k = 0; k < count; k++) {
				text[3] = bytes[i], text[4] = bytes[j], text[5] = bytes[k];
				int64_t nanos;
				if (!parse_timestamp(text, sizeof text - 1, EPOCH_SECONDS, &nanos))
					continue;
				accepted++;
				char lowered[3] = {(char)(text[3] | 0x20), (char)(text[4] | 0x20),
				                   (char)(text[5] | 0x20)};
				const char *found = NULL;
				for (int month = 0; month < 12 && !found; month++)
					if (memcmp(names + 3 * month, lowered, 3) == 0)
						found = names + 3 * month;
				cr_assert_not_null(found, "month \"%.3s\" accepted", text + 3);
			}
		}
	}
	cr_assert_eq(accepted, 12 * 8, "12 names, each in 8 mixes of case");
}

Test(clf, refused)
{
	expect_refused("[30/Nov/2026:02:28:56 +0000");
	expect_refused("30/Nov/2026:02:28:56 +0000]");
	expect_refused("[30/Foo/2026:02:28:56 +0000]");
	expect_refused("[31/Nov/2026:02:28:56 +0000]");
	expect_refused("[29/Feb/2026:02:28:56 +0000]");
	expect_refused("[00/Nov/2026:02:28:56 +0000]");
	expect_refused("[30/Nov/2026:24:28:56 +0000]");
	expect_refused("[30/Nov/2026:02:28 +0000]");
	expect_refused("30/Nov/2026:02:28");
	expect_refused("[30/Nov/2026:02:28:56  +0000]");
	expect_refused("[30/Nov/2026:02:28:56+0000]");
	expect_refused("[30/Nov/2026 02:28:56 +0000]");
	expect_refused("[3/Nov/2026:02:28:56 +0000]");
	expect_refused("[30/11/2026:02:28:56 +0000]");
	expect_refused("[30/No/2026:02:28:56 +0000]");
	expect_refused("[30/Nov/26:02:28:56 +0000]");
	expect_refused("[30/Nov/2026:02:28:56 +0000]]");
	expect_refused("[[30/Nov/2026:02:28:56 +0000]");
	expect_refused("[30/Nov/2026:02:28:56 +0000] x");
	expect_refused("[30/Nov/2026:02:28:56 ]");
	expect_refused("[]");
	expect_refused("[");
	expect_refused("]");
	expect_refused("30/");
}

/* ---------------------------------------------------------------------------------------
** One instant in every form, and the pairs of whitespace input.
*/

Test(forms, all_give_the_same_instant)
{
	const char *forms[] = {
		"1796005736.25",
		"2026-11-30T02:28:56.25Z",
		"2026-11-30 02:28:56.250000",
		"2026-11-30T03:28:56.25+01:00",
		"2026-11-29T21:58:56.25-0430",
		"[30/Nov/2026:02:28:56.25 +0000]",
		"30/Nov/2026:04:28:56.25 +0200",
	};
	for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
		expect_timestamp(forms[i], EXAMPLE_NS + 250000000);
	expect_timestamp_in(EPOCH_MILLISECONDS, "1796005736250", EXAMPLE_NS + 250000000);
	expect_timestamp_in(EPOCH_MICROSECONDS, "1796005736250000", EXAMPLE_NS + 250000000);
	expect_timestamp_in(EPOCH_NANOSECONDS, "1796005736250000000", EXAMPLE_NS + 250000000);
	expect_pair("2026-11-30", "02:28:56.25", EXAMPLE_NS + 250000000);
	/* The unit applies only to epoch numbers. */
	expect_timestamp_in(EPOCH_MILLISECONDS, "2026-11-30T02:28:56.25Z", EXAMPLE_NS + 250000000);
}

Test(pairs, first_halves)
{
	const char *first[] = {"2026-11-30", " 2026-11-30\t", "2024-02-29", "[30/Nov/2026:02:28:56",
	                       "[30/nov/2026:02:28:56.5"};
	const char *not_first[] = {"",
	                           "2026-11-31",
	                           "2023-02-29",
	                           "2026-11-30T02:28:56",
	                           "2026-11-30T",
	                           "2026-11",
	                           "1796005736",
	                           "[30/Nov/2026:02:28:56]",
	                           "30/Nov/2026:02:28:56",
	                           "[30/Nov/2026:02:28",
	                           "[30/Foo/2026:02:28:56",
	                           "[",
	                           "02:28:56"};
	for (size_t i = 0; i < sizeof first / sizeof first[0]; i++)
		cr_assert(timestamp_is_first_half(first[i], strlen(first[i])), "\"%s\"", first[i]);
	for (size_t i = 0; i < sizeof not_first / sizeof not_first[0]; i++)
		cr_assert_not(timestamp_is_first_half(not_first[i], strlen(not_first[i])), "\"%s\"",
		              not_first[i]);
	cr_assert_not(timestamp_is_first_half("2026-11-30\0", 11));
}

Test(pairs, values)
{
	expect_pair("2026-11-30", "02:28:56", EXAMPLE_NS);
	expect_pair("2026-11-30", "02:28:56Z", EXAMPLE_NS);
	expect_pair("2026-11-30", "03:28:56.5+01:00", EXAMPLE_NS + 500000000);
	expect_pair("2026-11-30", "02:28:56,123", EXAMPLE_NS + 123000000);
	expect_pair("2026-11-30", "00:30:00+01", EXAMPLE_NS - (2 * 3600 + 28 * 60 + 56 + 3600 - 1800) * NS);
	expect_pair("[30/Nov/2026:02:28:56", "+0000]", EXAMPLE_NS);
	expect_pair("[30/Nov/2026:03:28:56", "+0100]", EXAMPLE_NS);
	expect_pair(" [30/Nov/2026:02:28:56 ", " -00:00] ", EXAMPLE_NS);
	expect_pair_refused("2026-11-30", "GET");
	expect_pair_refused("2026-11-30", "");
	expect_pair_refused("2026-11-30", "25:00:00");
	expect_pair("2026-11-30", "02:28", EXAMPLE_NS - 56 * NS);
	expect_pair("2026-11-30", "03:28+01:00", EXAMPLE_NS - 56 * NS);
	expect_pair("2026-11-30", "12:00:60", EXAMPLE_NS + (9 * 3600 + 32 * 60 - 56 + 60) * NS);
	expect_pair_refused("2026-11-30", "02:28.5");
	expect_pair_refused("2026-11-30", "12:60");
	expect_pair_refused("2026-11-30", "12:00:61");
	expect_pair_refused("2026-11-30", "09:15:02:123");
	expect_pair_refused("2026-11-30", "12:00:01PM");
	/* A leap second's fraction is dropped: it is the next minute's first instant. */
	expect_pair("2026-11-30", "02:27:60.5", EXAMPLE_NS - 56 * NS);
	expect_pair_refused("[30/Nov/2026:02:28", "+0000]");
	expect_pair_refused("2026-11-30", "T02:28:56");
	expect_pair_refused("2026-11-30", "02:28:56Zx");
	expect_pair_refused("2026-11-30", "+0000]");
	expect_pair_refused("2026-11-31", "02:28:56");
	expect_pair_refused("[30/Nov/2026:02:28:56", "+0000");
	expect_pair_refused("[30/Nov/2026:02:28:56", "]");
	expect_pair_refused("[30/Nov/2026:02:28:56", "+0000]]");
	expect_pair_refused("[30/Nov/2026:02:28:56", "02:28:56");
	expect_pair_refused("[30/Nov/2026:02:28:56]", "+0000]");
	expect_pair_refused("30/Nov/2026:02:28:56", "+0000");
	expect_pair_refused("1796005736", "02:28:56");
	expect_pair_refused("", "");
	int64_t nanos;
	cr_assert_not(parse_timestamp_pair("2026-11-30", 10, "02:28:56\0", 9, &nanos));
	/* Past 2262 as a pair too. */
	expect_pair_refused("2262-04-11", "23:47:17");
	expect_pair("2262-04-11", "23:47:16.854775807", INT64_MAX);
}

/*
** What may follow a date as its time: digits and colons, in range or not, with a fraction
** and a zone, or anything that begins as h:mm or hh:mm; a number, a word or anything else
** is no time.
*/
Test(pairs, time_shapes)
{
	const char *shaped[] = {
		"02:28", "02:28:56", "02:28:56.250", "02:28:56,5", "02:28:56Z", "02:28z",
		"03:28:56+01:00", "03:28:56-0100", "03:28+01", " 02:28:56\t", "25:00:00", "12:60",
		"12:00:61", "24:00", "2:28", "123:4:5", "02:28.5", "02:28:56.", "02:28:56+1",
		"02:28:56+99:99", "0:0", "1:2:3:4", "09:15:02:123", "12:00:01PM", "2:28am",
		"02:28:56x", "02:28:56ZZ", "02:28:56+", "02:28:56+01:00:00", "02:28:56 Z",
		"12:00:01.123+01:00[Europe/Paris]", "2001:0:0:1",
	};
	const char *not_shaped[] = {
		"", " ", "10", "10.5", "-3", "+3", "1e3", "GET", "-", "02", "02:", ":28", "02::28",
		"2:2x", "123:4x", "T02:28:56", "t02:28", "02-28-56", "02.28", "+0000]",
		"[02:28:56]", "2001:db8::1", "2001:0db8:85a3::1", "00:1a:2b", "1:2:3:", "١٢:٣٠",
		"52:54:00:12:34:56", "08:00:27:AB:cd:EF", " 00:50:56:00:00:01\t",
	};
	for (size_t i = 0; i < sizeof shaped / sizeof shaped[0]; i++)
		cr_assert(timestamp_is_time_shaped(shaped[i], strlen(shaped[i])), "\"%s\"",
		          shaped[i]);
	for (size_t i = 0; i < sizeof not_shaped / sizeof not_shaped[0]; i++)
		cr_assert_not(timestamp_is_time_shaped(not_shaped[i], strlen(not_shaped[i])),
		              "\"%s\"", not_shaped[i]);
	/* Only len bytes are read, a NUL is no digit. */
	cr_assert_not(timestamp_is_time_shaped("2:2\0", 4));
	cr_assert(timestamp_is_time_shaped("2:2x", 3));
}

/*
** Reads a and b (NULL: no field after a) as the whitespace reader does, from heap blocks
** of exactly their lengths; expects the number of fields taken and, when readable is set,
** the instant, or else a refusal that leaves the output untouched.
*/
static void expect_fields(const char *a, const char *b, bool readable, size_t fields,
                          int64_t expected)
{
	size_t alen = strlen(a), blen = b ? strlen(b) : 0;
	char *a_copy = malloc(alen ? alen : 1), *b_copy = malloc(blen ? blen : 1);
	cr_assert(a_copy && b_copy);
	memcpy(a_copy, a, alen);
	if (b)
		memcpy(b_copy, b, blen);
	int64_t actual = 12345;
	size_t taken = 99;
	bool read = parse_timestamp_fields(a_copy, alen, b ? b_copy : NULL, blen, EPOCH_SECONDS,
	                                   &actual, &taken);
	free(a_copy);
	free(b_copy);
	if (read != readable)
		cr_assert_fail("\"%s\" \"%s\": %s, expected %s", a, b ? b : "(none)",
		               read ? "read" : "unreadable", readable ? "read" : "unreadable");
	cr_assert_eq(taken, fields, "\"%s\" \"%s\": took %zu fields, expected %zu", a,
	             b ? b : "(none)", taken, fields);
	if (readable)
		cr_assert_eq(actual, expected, "\"%s\" \"%s\": got %lld, expected %lld", a,
		             b ? b : "(none)", (long long)actual, (long long)expected);
	else
		cr_assert_eq(actual, 12345, "\"%s\" \"%s\": output changed", a, b ? b : "(none)");
}

/* 2026-11-30T00:00:00Z, the midnight of the example's date. */
#define EXAMPLE_MIDNIGHT_NS (EXAMPLE_NS - (2 * 3600 + 28 * 60 + 56) * NS)

Test(pairs, fields_a_date_and_a_time)
{
	expect_fields("2026-11-30", "02:28:56", true, 2, EXAMPLE_NS);
	expect_fields("2026-11-30", "02:28:56.25", true, 2, EXAMPLE_NS + 250000000);
	expect_fields("2026-11-30", "03:28:56+01:00", true, 2, EXAMPLE_NS);
	expect_fields("2026-11-30", "02:28:56Z", true, 2, EXAMPLE_NS);
	expect_fields(" 2026-11-30\t", "\t02:28:56 ", true, 2, EXAMPLE_NS);
	/* A leap second is the next minute's first, as in one field. */
	expect_fields("2026-12-31", "23:59:60", true, 2, 1798761600LL * NS);
}

Test(pairs, fields_a_date_and_hours_and_minutes)
{
	expect_fields("2026-11-30", "02:28", true, 2, EXAMPLE_NS - 56 * NS);
	expect_fields("2026-11-30", "03:28+01:00", true, 2, EXAMPLE_NS - 56 * NS);
	expect_fields("2026-11-30", "02:28Z", true, 2, EXAMPLE_NS - 56 * NS);
	expect_fields("2026-11-30", "00:00", true, 2, EXAMPLE_MIDNIGHT_NS);
}

/* A time shaped but out of range or written otherwise is unreadable, never a midnight. */
Test(pairs, fields_a_date_and_an_invalid_time)
{
	const char *invalid[] = {
		"25:00:00", "24:00", "12:60", "12:00:61", "2:28", "02:28:5", "02:28.5",
		"02:28:56.", "02:28:56+24:00", "02:28:56+5", "123:00", "09:15:02:123", "1:2:3:4",
		"12:00:01PM", "02:28:56x", "02:28:56+", "12:00:01.123+01:00[Europe/Paris]",
	};
	for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++)
		expect_fields("2026-11-30", invalid[i], false, 2, 0);
	/* Past 2262: the pair is the instant, and it is out of range. */
	expect_fields("2262-04-11", "23:47:17", false, 2, 0);
	expect_fields("2262-04-11", "23:47:16.854775807", true, 2, INT64_MAX);
}

/* Any other field after a date is an ordinary field: the date alone is its midnight. */
Test(pairs, fields_a_date_and_no_time)
{
	const char *values[] = {"10", "10.5", "-3", "+3", "1e3", "0", "GET", "-", "T02:28:56",
	                        "2026-11-30", "[30/Nov/2026:02:28:56", "+0000]", "nan",
	                        "2001:db8::1", "00:1a:2b:3c:4d:5e", "52:54:00:12:34:56",
	                        "1:2x", ""};
	for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
		expect_fields("2026-11-30", values[i], true, 1, EXAMPLE_MIDNIGHT_NS);
	expect_fields("2026-11-30", NULL, true, 1, EXAMPLE_MIDNIGHT_NS);
	expect_fields("1970-01-01", "10", true, 1, 0);
	expect_fields("1677-09-21", "10", false, 1, 0);	/* its midnight is out of range */
}

/* A field that is not a date alone is read alone, whatever follows it. */
Test(pairs, fields_other_first_fields)
{
	expect_fields("1796005736", "02:28:56", true, 1, EXAMPLE_NS);
	expect_fields("1796005736.5", "10", true, 1, EXAMPLE_NS + 500000000);
	expect_fields("2026-11-30T02:28:56Z", "02:28:56", true, 1, EXAMPLE_NS);
	expect_fields("2026-11-30T02:28", "10", true, 1, EXAMPLE_NS - 56 * NS);
	expect_fields("[30/Nov/2026:02:28:56]", "10", true, 1, EXAMPLE_NS);
	expect_fields("30/Nov/2026:02:28:56", "10", true, 1, EXAMPLE_NS);
	expect_fields("2026-11-31", "02:28:56", false, 1, 0);
	expect_fields("2026-11-3", "02:28:56", false, 1, 0);
	expect_fields("GET", "02:28:56", false, 1, 0);
	expect_fields("", "02:28:56", false, 1, 0);
}

/* An unclosed bracket takes the next field, which must close it with its zone. */
Test(pairs, fields_common_log_format)
{
	expect_fields("[30/Nov/2026:02:28:56", "+0000]", true, 2, EXAMPLE_NS);
	expect_fields("[30/Nov/2026:03:28:56", "+01:00]", true, 2, EXAMPLE_NS);
	/* Without brackets, a time without a zone: a zone may follow, as after ISO 8601's. */
	expect_fields("30/Nov/2026:03:28:56", "+0100", true, 2, EXAMPLE_NS);
	expect_fields("30/Nov/2026:01:28:56", "-01:00", true, 2, EXAMPLE_NS);
	expect_fields("30/Nov/2026:02:28:56", "Z", true, 2, EXAMPLE_NS);
	expect_fields("30/Nov/2026:02:28:56", "-12", true, 1, EXAMPLE_NS);
	expect_fields("30/Nov/2026:02:28:56", "+2500", false, 2, 0);
	expect_fields("30/Nov/2026:02:28:56 +0000", "+0100", true, 1, EXAMPLE_NS);
	expect_fields("[30/Nov/2026:02:28:56.5", "-0000]", true, 2, EXAMPLE_NS + 500000000);
	expect_fields("[30/Nov/2026:02:28:56", "+0000", false, 2, 0);
	expect_fields("[30/Nov/2026:02:28:56", "GET", false, 2, 0);
	expect_fields("[30/Nov/2026:02:28:56", "10", false, 2, 0);
	expect_fields("[30/Nov/2026:02:28:56", NULL, false, 1, 0);
	expect_fields("[30/Nov/2026:02:28", "+0000]", false, 1, 0);
	expect_fields("[31/Nov/2026:02:28:56", "+0000]", false, 1, 0);
}

/* ---------------------------------------------------------------------------------------
** Garbage, and the edges of the range.
*/

Test(garbage, refused)
{
	const char *garbage[] = {
		"", " ", "\t \t", "-", "+", ".", "-.", "+-5", "--5", "5-", "1 2", "1e9", "1E9",
		"1.5e3", "0x10", "1,5", "nan", "inf", "1732933736s", "١٢٣",
		"2026-13-01", "2026-00-01", "2026-11-30T25:00:00", "2026-11-30T24:00:00",
		"2026-11-30T02:60:00", "2026-11-30T", "2026-11-30 T02:28:56", "2026-11-30  02:28:56",
		"2026-11-30T02:28:56Zx", "2026-11-30T02:2", "2026-11-30T2:28:56", "2026-11-30T02:28:5",
		"2026-11-30T02-28-56", "2026-11-30X02:28:56", "2026-1-30", "2026-11-3", "26-11-30",
		"2026/11-30", "2026-11/30", "+2026-11-30", "-2026-11-30", "02026-11-30", "2026-11-30Z",
		"02:28:56", "T02:28:56", "2026-11-30_02:28:56",
		("\xef\xbb\xbf" "2026-11-30"),
	};
	for (size_t i = 0; i < sizeof garbage / sizeof garbage[0]; i++)
		expect_refused(garbage[i]);
}

Test(garbage, nul_bytes)
{
	expect_refused_bytes("\0", 1);
	expect_refused_bytes("17329\0", 6);
	expect_refused_bytes("17\0" "329", 6);
	expect_refused_bytes("\0 17329", 7);
	expect_refused_bytes("2026-11-30\0", 11);
	expect_refused_bytes("2026-11-30T02:28:56\0Z", 21);
	expect_refused_bytes("2026-11-30T02:28:56.5\0", 22);
	expect_refused_bytes("[30/Nov/2026:02:28:56 +0000]\0", 29);
	expect_refused_bytes("30/N\0v/2026:02:28:56", 20);
	int64_t nanos;
	cr_assert_not(parse_duration("5s\0", 3, &nanos));
	cr_assert_not(parse_duration("5\0s", 3, &nanos));
}

Test(garbage, only_len_bytes_are_read)
{
	/* A valid timestamp cut short must be judged on the bytes given, not on what follows. */
	int64_t nanos;
	cr_assert(parse_timestamp("1796005736999", 10, EPOCH_SECONDS, &nanos));
	cr_assert_eq(nanos, EXAMPLE_NS);
	cr_assert(parse_timestamp("2026-11-30T02:28:56Zjunk", 20, EPOCH_SECONDS, &nanos));
	cr_assert_eq(nanos, EXAMPLE_NS);
	cr_assert_not(parse_timestamp("2026-11-30T02:28:56Z", 19 - 1, EPOCH_SECONDS, &nanos));
	for (size_t len = 0; len < 28; len++)
		expect_refused_bytes("[30/Nov/2026:02:28:56 +0000]", len);
	cr_assert_not(parse_timestamp("0", 1, (enum epoch_unit)4, &nanos));
}

Test(range, edges_of_int64_nanoseconds)
{
	expect_timestamp("2262-04-11T23:47:16.854775807Z", INT64_MAX);
	expect_refused("2262-04-11T23:47:16.854775808Z");
	expect_refused("2262-04-11T23:47:17Z");
	expect_refused("2262-04-12");
	expect_refused("9999-12-31T23:59:59Z");
	expect_timestamp("2262-04-12T00:47:16.854775807+01:00", INT64_MAX);
	expect_refused("2262-04-11T23:47:16.854775807-00:01");
	expect_timestamp("1677-09-21T00:12:43.145224192Z", INT64_MIN);
	expect_timestamp("1677-09-21T00:12:43.1452241925Z", INT64_MIN);
	expect_refused("1677-09-21T00:12:43.145224191Z");
	expect_refused("1677-09-21T00:12:43Z");
	expect_refused("1677-09-21");
	expect_refused("0000-01-01T00:00:00Z");
	expect_timestamp("1677-09-21T01:12:43.145224192+01:00", INT64_MIN);
	expect_timestamp("1677-09-20T23:12:43.145224192-01:00", INT64_MIN);
	expect_refused("1677-09-21T00:12:43.145224192+00:01");
	expect_timestamp("1677-09-22", -106751 * DAY_NS);
	expect_timestamp("[11/Apr/2262:23:47:16.854775807 +0000]", INT64_MAX);
	expect_refused("[11/Apr/2262:23:47:17 +0000]");
	expect_refused("[21/Sep/1677:00:12:43 +0000]");
}

Test(range, independent_of_tz)
{
	const char *zones[] = {"UTC0", "America/New_York", "Pacific/Kiritimati", "EST5EDT",
	                       "<+1345>-13:45"};
	for (size_t i = 0; i < sizeof zones / sizeof zones[0]; i++) {
		setenv("TZ", zones[i], 1);
		tzset();
		expect_timestamp("2026-11-30T02:28:56", EXAMPLE_NS);
		expect_timestamp("2026-11-30", EXAMPLE_NS - (2 * 3600 + 28 * 60 + 56) * NS);
		expect_timestamp("30/Nov/2026:02:28:56", EXAMPLE_NS);
		expect_pair("2026-11-30", "02:28:56", EXAMPLE_NS);
	}
}

/* ---------------------------------------------------------------------------------------
** The calendar, day by day, and random instants in every form.
*/

/* The Gregorian month lengths, counted here without sharing code with timestamp.c. */
static int naive_month_length(int year, int month)
{
	if (month == 2) {
		bool leap = year % 400 == 0 || (year % 4 == 0 && year % 100 != 0);
		return leap ? 29 : 28;
	}
	return month == 4 || month == 6 || month == 9 || month == 11 ? 30 : 31;
}

static void expect_date_is_day(int year, int month, int day, int64_t day_number)
{
	char text[48];
	snprintf(text, sizeof text, "%04d-%02d-%02d", year, month, day);
	int64_t nanos;
	if (!parse_timestamp(text, strlen(text), EPOCH_SECONDS, &nanos))
		cr_assert_fail("%s refused", text);
	if (nanos != day_number * DAY_NS)
		cr_assert_fail("%s: day %lld, counted %lld", text, (long long)(nanos / DAY_NS),
		               (long long)day_number);
}

/* Every date the range holds, counting one day at a time away from 1970-01-01. */
Test(calendar, every_day_against_a_naive_count)
{
	int year = 1970, month = 1, day = 1;
	int64_t count = 0;
	for (;; count++) { /* forward to 2262-04-11, the last whole day in range */
		expect_date_is_day(year, month, day, count);
		if (year == 2262 && month == 4 && day == 11)
			break;
		if (++day > naive_month_length(year, month)) {
			day = 1;
			if (++month > 12) {
				month = 1;
				year++;
			}
		}
	}
	cr_assert_eq(count, 106751);
	year = 1970, month = 1, day = 1, count = 0;
	for (;; count--) { /* back to 1677-09-22, the first whole day in range */
		expect_date_is_day(year, month, day, count);
		if (year == 1677 && month == 9 && day == 22)
			break;
		if (--day < 1) {
			if (--month < 1) {
				month = 12;
				year--;
			}
			day = naive_month_length(year, month);
		}
	}
	cr_assert_eq(count, -106751);
}

Test(calendar, every_day_against_timegm)
{
	setenv("TZ", "UTC0", 1);
	tzset();
	for (int year = 1678; year <= 2261; year++) {
		for (int month = 1; month <= 12; month++) {
			for (int day = 1; day <= 31; day++) {
				struct tm fields = {.tm_year = year - 1900, .tm_mon = month - 1, .tm_mday = day};
				time_t seconds = timegm(&fields);
				bool valid = fields.tm_mday == day; /* timegm normalises 31 Apr to 1 May */
				char text[48];
				snprintf(text, sizeof text, "%04d-%02d-%02d", year, month, day);
				if (!valid) {
					expect_refused(text);
					continue;
				}
				expect_date_is_day(year, month, day, (int64_t)seconds / 86400);
			}
		}
	}
}

/*
** Writes the instant nanos, as seen from a zone offset_minutes east of UTC, into text in
** one of several forms chosen by style, keeping fraction_digits digits of its fraction (so
** that what it names is nanos truncated to that many digits). Returns that truncated value.
*/
static int64_t write_instant(char *text, size_t size, int64_t nanos, int offset_minutes,
                             int fraction_digits, int style)
{
	static const char *month_names[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
	                                    "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
	int64_t seconds = floor_divide(nanos, NS);
	int64_t nanos_of_second = nanos % NS < 0 ? nanos % NS + NS : nanos % NS;
	int64_t scale = 1;
	for (int i = fraction_digits; i < 9; i++)
		scale *= 10;
	int64_t fraction = nanos_of_second / scale; /* fraction_digits digits */
	time_t local_seconds = (time_t)(seconds + offset_minutes * 60);
	struct tm fields;
	cr_assert_not_null(gmtime_r(&local_seconds, &fields));
	char fraction_text[16] = "";
	if (fraction_digits > 0) {
		fraction_text[0] = style == 2 ? ',' : '.';
		for (int i = fraction_digits; i > 0; i--, fraction /= 10)
			fraction_text[i] = (char)('0' + fraction % 10);
		fraction_text[fraction_digits + 1] = '\0';
	}
	char zone[32];
	int magnitude = abs(offset_minutes);
	char sign = offset_minutes < 0 ? '-' : '+';
	switch (style % 3) {
	case 0: snprintf(zone, sizeof zone, "%c%02d:%02d", sign, magnitude / 60, magnitude % 60); break;
	case 1: snprintf(zone, sizeof zone, "%c%02d%02d", sign, magnitude / 60, magnitude % 60); break;
	default: snprintf(zone, sizeof zone, "%s", offset_minutes == 0 ? "Z" : "");
	}
	if (style % 3 == 2 && offset_minutes != 0)
		snprintf(zone, sizeof zone, "%c%02d%02d", sign, magnitude / 60, magnitude % 60);
	if (style >= 3)
		snprintf(text, size, "[%02d/%s/%04d:%02d:%02d:%02d%s %s]", fields.tm_mday,
		         month_names[fields.tm_mon], fields.tm_year + 1900, fields.tm_hour,
		         fields.tm_min, fields.tm_sec, fraction_text, zone);
	else
		snprintf(text, size, "%04d-%02d-%02d%c%02d:%02d:%02d%s%s", fields.tm_year + 1900,
		         fields.tm_mon + 1, fields.tm_mday, style == 1 ? ' ' : 'T', fields.tm_hour,
		         fields.tm_min, fields.tm_sec, fraction_text, zone);
	return nanos - nanos_of_second % scale;
}

Test(calendar, random_instants_round_trip_through_gmtime)
{
	uint64_t state = 0x9E3779B97F4A7C15U;
	char text[96];
	for (int i = 0; i < 300000; i++) {
		int64_t nanos = (int64_t)random_next(&state);
		/* Keep the wall clock of any zone, which gmtime_r must show, inside the range. */
		if (nanos > INT64_MAX - 2 * DAY_NS || nanos < INT64_MIN + 2 * DAY_NS)
			continue;
		int offset_minutes = (int)(random_next(&state) % (2 * 1440 - 1)) - 1439;
		if (i % 4 == 0)
			offset_minutes = 0;
		int fraction_digits = (int)(random_next(&state) % 10);
		int style = (int)(random_next(&state) % 5);
		int64_t expected = write_instant(text, sizeof text, nanos, offset_minutes,
		                                 fraction_digits, style);
		expect_timestamp(text, expected);
	}
}

Test(calendar, random_epochs_round_trip)
{
	uint64_t state = 0x243F6A8885A308D3U;
	char text[64];
	static const int64_t nanos_per_unit[] = {NS, 1000000, 1000, 1};
	for (int i = 0; i < 300000; i++) {
		int64_t nanos = (int64_t)random_next(&state);
		if (i % 2)
			nanos >>= (random_next(&state) % 60); /* small magnitudes too */
		int unit = (int)(random_next(&state) % 4);
		int64_t per_unit = nanos_per_unit[unit];
		uint64_t magnitude = nanos < 0 ? 0 - (uint64_t)nanos : (uint64_t)nanos;
		int digits = unit == 0 ? 9 : unit == 1 ? 6 : unit == 2 ? 3 : 0;
		if (digits)
			snprintf(text, sizeof text, "%s%llu.%0*llu", nanos < 0 ? "-" : "",
			         (unsigned long long)(magnitude / (uint64_t)per_unit), digits,
			         (unsigned long long)(magnitude % (uint64_t)per_unit));
		else
			snprintf(text, sizeof text, "%s%llu", nanos < 0 ? "-" : "",
			         (unsigned long long)magnitude);
		expect_timestamp_in((enum epoch_unit)unit, text, nanos);
	}
}

/*
** Valid timestamps of every form with random bytes changed, deleted or repeated, read from
** the end of a heap block so that AddressSanitizer sees any read past a field. Whenever the
** text splits at its space into a first half and a rest, reading the two as a pair must
** agree with reading the whole, when a single space separates them: the whitespace reader
** and the CSV reader see one instant.
*/
Test(garbage, mutated_timestamps)
{
	static const char *seeds[] = {
		"2026-11-30T02:28:56.250+01:00", "2026-11-30 02:28:56,5Z", "2024-02-29 23:59:60-0030",
		"[30/Nov/2026:02:28:56 +0000]", "[29/Feb/2024:02:28:56.5 -05:30]", "1796005736.25",
		"-9223372036.854775808", "2262-04-11 23:47:16.854775807", "250ms", "1.5m",
	};
	static const char alphabet[] = "0123456789-+:.,/ TtZz[]NnOoVv\0\t\xff";
	uint64_t state = 0xC0FFEE;
	int pairs_compared = 0, pairs_accepted = 0;
	char text[64], *block = malloc(sizeof text);
	cr_assert_not_null(block);
	for (int round = 0; round < 200000; round++) {
		const char *seed = seeds[random_next(&state) % (sizeof seeds / sizeof seeds[0])];
		size_t len = strlen(seed);
		memcpy(text, seed, len);
		for (int edits = 1 + (int)(random_next(&state) % 3); edits > 0 && len > 0; edits--) {
			size_t at = random_next(&state) % len;
			char byte = alphabet[random_next(&state) % (sizeof alphabet - 1)];
			switch (random_next(&state) % 3) {
			case 0: text[at] = byte; break;
			case 1: memmove(text + at, text + at + 1, len - at - 1), len--; break;
			default:
				if (len < sizeof text - 1) {
					memmove(text + at + 1, text + at, len - at);
					text[at] = byte;
					len++;
				}
			}
		}
		/* Each parser reads the text as the last bytes of the block. */
		char *field = block + sizeof text - len;
		memcpy(field, text, len);
		int64_t whole = 0, pair = 0;
		bool whole_ok = parse_timestamp(field, len, EPOCH_SECONDS, &whole);
		(void)parse_duration(field, len, &pair);
		(void)epoch_exceeds_1e11_seconds(field, len, EPOCH_MILLISECONDS);
		/* Only one blank between the halves: the pair ignores more, a single field not. */
		char *space = memchr(field, ' ', len);
		if (!space || space == field || space == field + len - 1 || space[-1] == '\t'
		    || space[1] == ' ' || space[1] == '\t')
			continue;
		size_t first_len = (size_t)(space - field);
		if (!timestamp_is_first_half(field, first_len))
			continue;
		const char *second = space + 1;
		size_t second_len = len - first_len - 1;
		bool pair_ok = parse_timestamp_pair(field, first_len, second, second_len, &pair);
		pairs_compared++;
		pairs_accepted += pair_ok;
		if (pair_ok != whole_ok || whole != pair)
			cr_assert_fail("\"%.*s\": whole %d %lld, as a pair %d %lld", (int)len, text,
			               whole_ok, (long long)whole, pair_ok, (long long)pair);
		/* A time that a date takes is shaped like one; the whitespace reader agrees. */
		int64_t from_fields = 0;
		size_t taken = 0;
		bool fields_ok = parse_timestamp_fields(field, first_len, second, second_len,
		                                        EPOCH_SECONDS, &from_fields, &taken);
		bool shaped = timestamp_is_time_shaped(second, second_len);
		size_t lead = 0;
		while (lead < first_len && field[lead] == '\t')
			lead++;
		bool clf = lead < first_len && field[lead] == '[';
		/* A zone after a blank ("02:28:56 +0100") is a pair of one field, not two. */
		if (memchr(second, ' ', second_len))
			continue;
		if (pair_ok && !clf && !shaped)
			cr_assert_fail("\"%.*s\": a pair whose time is not shaped", (int)len, text);
		if (pair_ok && (!fields_ok || taken != 2 || from_fields != pair))
			cr_assert_fail("\"%.*s\": pair %lld, fields %d %zu %lld", (int)len, text,
			               (long long)pair, fields_ok, taken, (long long)from_fields);
		/* A date and no time: the date alone; a date and a bad time: unreadable. */
		int64_t date = 0;
		bool date_ok = parse_timestamp(field, first_len, EPOCH_SECONDS, &date);
		if (!pair_ok && !clf
		    && (shaped ? fields_ok || taken != 2
		               : fields_ok != date_ok || taken != 1 || from_fields != date))
			cr_assert_fail("\"%.*s\": refused pair, fields %d %zu", (int)len, text,
			               fields_ok, taken);
	}
	free(block);
	cr_log_info("%d pairs compared, %d accepted", pairs_compared, pairs_accepted);
	cr_assert_gt(pairs_accepted, 1000, "the generator rarely makes a pair: %d", pairs_accepted);
	cr_assert_gt(pairs_compared - pairs_accepted, 1000, "and rarely a refused one");
}

/* ---------------------------------------------------------------------------------------
** Durations.
*/

Test(duration, accepted)
{
	expect_duration("250ms", 250000000);
	expect_duration("30s", 30 * NS);
	expect_duration("1.5m", 90 * NS);
	expect_duration("2h", 7200 * NS);
	expect_duration("1d", 86400 * NS);
	expect_duration("0.5ms", 500000);
	expect_duration(".5s", 500000000);
	expect_duration("5.s", 5 * NS);
	expect_duration(" 10s\t", 10 * NS);
	expect_duration("0.000000001s", 1);
	expect_duration("1.0000000009s", NS);
	expect_duration("0.1m", 6 * NS);
	expect_duration("0.333333333333333333333h", 1199999999999);
	expect_duration("1.23456789012345678d", 106666665706666);
	expect_duration("007s", 7 * NS);
	expect_duration("106751d", 106751 * DAY_NS);
	expect_duration("9223372036.854775807s", INT64_MAX);
	expect_duration("9223372036854.775807ms", INT64_MAX);
}

Test(duration, refused)
{
	const char *refused[] = {
		"", " ", "5", "1.5", "5x", "-5s", "+5s", "0s", "0.0ms", "0.0000000001s", "s", "ms",
		".s", "5 s", "5S", "5MS", "5Min", "5ms5", "1e3s", "0x10s", "5s s",
		"106752d", "9223372036.854775808s", "99999999999999999999999s",
		"2562047.79h", "inf s", "nans",
	};
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
		expect_duration_refused(refused[i]);
	int64_t nanos;
	cr_assert_not(parse_duration("5s", 1, &nanos));
}

/* ---------------------------------------------------------------------------------------
** The forms logs write (swag(1), TIMESTAMPS): durations as people write them, slashes,
** RFC 7231, zones in their own field, syslog dates and their year, epoch units by size.
*/

Test(duration, parts_and_unit_names)
{
	expect_duration("5min", 300 * NS);
	expect_duration("90sec", 90 * NS);
	expect_duration("1h30m", 5400 * NS);
	expect_duration("2h45m30s", (2 * 3600 + 45 * 60 + 30) * NS);
	expect_duration("1w", 7 * DAY_NS);
	expect_duration("500us", 500000);
	expect_duration("5ns", 5);
	expect_duration("1w2d", 9 * DAY_NS);
	expect_duration("1m30s", 90 * NS);
	expect_duration("1min30sec", 90 * NS);
	expect_duration("1s500ms", 1500000000);
	expect_duration("1.5h30m", 2 * 3600 * NS);
	expect_duration("0h30m", 1800 * NS);
	expect_duration("1d1h1m1s1ms1us1ns", DAY_NS + 3661 * NS + 1001001);
	expect_duration("15250w", 15250 * 7 * DAY_NS);
}

Test(duration, parts_refused)
{
	const char *refused[] = {
		/* a part without a unit, units out of order or named twice */
		"1m30", "1h30", "30s1m", "1h1h", "1m1min", "1min1m", "1s1sec", "1ms1s", "1us1ms",
		/* unknown units, capitals, blanks inside, signs between parts */
		"1mo", "1y", "1M", "5Min", "1hr", "1h 30m", "1h-30m", "1h+30m", "1mins", "1secs",
		/* nothing, zero, overflow */
		"0h0m", "0w0s", "15251w", "106751d1d", "9223372036s1s", "h30m", "1h.m",
	};
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
		expect_duration_refused(refused[i]);
}

Test(iso, slashes_for_dashes)
{
	expect_timestamp("2026/11/30", EXAMPLE_NS - (2 * 3600 + 28 * 60 + 56) * NS);
	expect_timestamp("2026/11/30 02:28:56", EXAMPLE_NS);
	expect_timestamp("2026/11/30T02:28:56Z", EXAMPLE_NS);
	expect_refused("2026/11-30 02:28:56");
	expect_refused("2026-11/30 02:28:56");
	expect_refused("2026/13/30 02:28:56");
	expect_refused("2026/02/29");
}

Test(iso, zone_after_a_blank)
{
	expect_timestamp("2026-11-30 03:28:56 +0100", EXAMPLE_NS);
	expect_timestamp("2026-11-30 03:28:56 +01:00", EXAMPLE_NS);
	expect_timestamp("2026-11-30 02:28:56 Z", EXAMPLE_NS);
	expect_timestamp("2026-11-30 03:28:56.000 +0100 CET", EXAMPLE_NS);
	expect_timestamp("2026-11-29 21:28:56 -0500 EST", EXAMPLE_NS);
	/* Inside one field, +hh is a zone too, and a name may follow any numeric zone. */
	expect_timestamp("2026-11-30 03:28:56 +01", EXAMPLE_NS);
	expect_timestamp("2026-11-30T03:28:56 +01 CET", EXAMPLE_NS);
	expect_timestamp("2026-11-29 21:28:56 -05", EXAMPLE_NS);
	expect_timestamp("2026-11-30 03:28:56+0100 CET", EXAMPLE_NS);
	expect_timestamp("2026-11-30 03:28:56+01:00 CET", EXAMPLE_NS);
	expect_timestamp("2026-11-30 03:28:56.5+01 CET", EXAMPLE_NS + 500000000);
	const char *refused[] = {
		"2026-11-30 03:28:56 CET", "2026-11-30 03:28:56 Z UTC",
		"2026-11-30 03:28:56 +0100 cet", "2026-11-30 03:28:56 +0100 C",
		"2026-11-30 03:28:56 +0100 ABCDEF", "2026-11-30 03:28:56  +0100",
		"2026-11-30 03:28:56 +0100  CET", "2026-11-30 03:28:56 +2500",
		"2026-11-30 03:28:56 +0160", "2026-11-30 03:28:56 +0100 CET x",
		"2026-11-30 03:28:56 +1", "2026-11-30 03:28:56 +012", "2026-11-30 03:28:56 +25",
		"2026-11-30 03:28:56Z UTC", "2026-11-30 03:28:56z UTC",
		"2026-11-30 03:28:56+0100 cet", "2026-11-30 03:28:56+0100  CET",
		"2026-11-30 03:28:56+0100 CET x",
	};
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
		expect_refused(refused[i]);
}

Test(http_date, rfc_7231)
{
	expect_timestamp("Mon, 30 Nov 2026 02:28:56 GMT", EXAMPLE_NS);
	expect_timestamp("sun, 30 nov 2026 02:28:56 UTC", EXAMPLE_NS);
	expect_timestamp("Thu, 01 Jan 1970 00:00:00 GMT", 0);
	expect_timestamp("Tue, 29 Feb 2028 00:00:00 GMT", 1835395200LL * NS);
	/* RFC 5322's numeric zone, as date -R writes it. */
	expect_timestamp("Mon, 30 Nov 2026 03:28:56 +0100", EXAMPLE_NS);
	expect_timestamp("Sun, 29 Nov 2026 21:28:56 -0500", EXAMPLE_NS);
	/* And its day of one digit, as mail's Date headers write it. */
	expect_same_instant("Thu, 3 Dec 2026 12:00:01 +0000", "Thu, 03 Dec 2026 12:00:01 GMT");
	expect_same_instant("Fri, 1 Jan 2027 00:00:00 GMT", "2027-01-01T00:00:00Z");
	const char *refused[] = {
		"Mon, 30 Nov 2026 02:28:56", "Mon, 30 Nov 2026 02:28:56 CET",
		"Mon, 30 Nov 2026 02:28:56 +00:00", "Mon, 30 Nov 2026 02:28:56 Z",
		"Mon, 30 Nov 2026 02:28:56 +2400", "Mon, 30 Nov 2026 02:28:56 +0000 UTC",
		"Mon 30 Nov 2026 02:28:56 GMT",
		"Mon,  30 Nov 2026 02:28:56 GMT", "Mon,  3 Nov 2026 02:28:56 GMT",
		"Mon, 0 Nov 2026 02:28:56 GMT", "Mon, 123 Nov 2026 02:28:56 GMT",
		"Mon, 3Nov 2026 02:28:56 GMT",
		"Xyz, 30 Nov 2026 02:28:56 GMT", "Mon, 31 Nov 2026 02:28:56 GMT",
		"Mon, 30 Nov 2026 02:28 GMT", "Mon, 30 Nov 2026 24:00:00 GMT",
		"Mon, 29 Feb 2026 02:28:56 GMT", "Mon, 30 Nov 2026 02:28:56 GMTX",
	};
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
		expect_refused(refused[i]);
}

Test(syslog, refused_without_a_year)
{
	expect_refused("Nov 30 02:28:56");
}

/* Splits line at spaces, as the splitter does, into at most max fields; returns how many. */
static size_t split_at_spaces(const char *line, struct field *fields, size_t max)
{
	size_t count = 0;
	for (const char *p = line; *p != '\0';) {
		while (*p == ' ')
			p++;
		if (*p == '\0')
			break;
		const char *start = p;
		while (*p != '\0' && *p != ' ')
			p++;
		cr_assert_lt(count, max);
		fields[count].text = start;
		fields[count++].len = (size_t)(p - start);
	}
	return count;
}

/* Reads fields (blank-separated, as the splitter gives them) with read_timestamp_fields. */
static bool read_fields(const char *line, struct syslog_year *year, int64_t *nanos,
                        size_t *taken)
{
	struct field fields[8];
	size_t count = split_at_spaces(line, fields, 8);
	cr_assert_gt(count, 0);
	return read_timestamp_fields(fields, count, EPOCH_SECONDS, year, nanos, taken);
}

static void expect_line(const char *line, int64_t expected, size_t expected_taken)
{
	struct syslog_year year = { .year = 2026 };
	int64_t nanos = 12345;
	size_t taken = 99;
	if (!read_fields(line, &year, &nanos, &taken))
		cr_assert_fail("\"%s\" refused, expected %lld", line, (long long)expected);
	cr_assert_eq(nanos, expected, "\"%s\": got %lld, expected %lld", line, (long long)nanos,
	             (long long)expected);
	cr_assert_eq(taken, expected_taken, "\"%s\": took %zu fields, expected %zu", line,
	             taken, expected_taken);
}

static void expect_line_refused(const char *line, size_t expected_taken)
{
	struct syslog_year year = { .year = 2026 };
	int64_t nanos = 12345;
	size_t taken = 99;
	if (read_fields(line, &year, &nanos, &taken))
		cr_assert_fail("\"%s\" accepted as %lld", line, (long long)nanos);
	cr_assert_eq(nanos, 12345, "\"%s\": output changed on failure", line);
	cr_assert_eq(taken, expected_taken, "\"%s\": took %zu fields, expected %zu", line,
	             taken, expected_taken);
}

Test(fields, zone_in_its_own_field)
{
	expect_line("2026-11-30 03:28:56 +0100 5", EXAMPLE_NS, 3);
	expect_line("2026-11-30 03:28:56 +01:00 5", EXAMPLE_NS, 3);
	expect_line("2026-11-30 02:28:56 Z 5", EXAMPLE_NS, 3);
	expect_line("2026-11-30 03:28:56.000 +0100 CET 5", EXAMPLE_NS, 4);
	expect_line("2026-11-29 18:28:56 -0800 PST", EXAMPLE_NS, 4);
	expect_line("2026/11/30 03:28:56 +0100", EXAMPLE_NS, 3);
	expect_line("2026-11-30T03:28:56 +0100 CET x", EXAMPLE_NS, 3);
	expect_line("2026-11-30T03:28 +0100", EXAMPLE_NS - 56 * NS, 2);
	expect_line("30/Nov/2026:03:28:56 +0100 CET 5", EXAMPLE_NS, 3);
	expect_line("30/Nov/2026:03:28:56 +0100 5", EXAMPLE_NS, 2);
	expect_line("30/Nov/2026:03:28:56 +0100 CET", EXAMPLE_NS, 3);
	/* Not zones: values, and a zone after a zone or after a date alone. */
	expect_line("2026-11-30 02:28:56 -12 5", EXAMPLE_NS, 2);
	expect_line("2026-11-30 02:28:56 +5", EXAMPLE_NS, 2);
	expect_line("2026-11-30 02:28:56 -123", EXAMPLE_NS, 2);
	expect_line("2026-11-30 02:28:56 -12345", EXAMPLE_NS, 2);
	expect_line("2026-11-30 02:28:56 CET", EXAMPLE_NS, 2);
	expect_line("2026-11-30 02:28:56 z", EXAMPLE_NS, 2);
	expect_line("2026-11-30 02:28:56 +01:0", EXAMPLE_NS, 2);
	expect_line("2026-11-30 02:28:56Z +0100", EXAMPLE_NS, 2);
	expect_line("2026-11-30T02:28:56Z +0100", EXAMPLE_NS, 1);
	expect_line("2026-11-30 02:28:56 Z CET", EXAMPLE_NS, 3);
	expect_line("2026-11-30 03:28:56 +0100 cet", EXAMPLE_NS, 3);
	expect_line("2026-11-30 03:28:56 +0100 ABCDEF", EXAMPLE_NS, 3);
	expect_line("2026-11-30 +0100", EXAMPLE_NS - (2 * 3600 + 28 * 60 + 56) * NS, 1);
	/* Shaped as a zone, out of range: unreadable. */
	expect_line_refused("2026-11-30 02:28:56 +2500 5", 3);
	expect_line_refused("2026-11-30 02:28:56 +01:60", 3);
	expect_line_refused("2026-11-30T02:28:56 +2400", 2);
}

Test(fields, syslog_dates)
{
	int64_t nov30 = EXAMPLE_NS;
	expect_line("Nov 30 02:28:56 host sshd[1]: fail 5", nov30, 3);
	expect_line("nov 30 02:28:56", nov30, 3);
	expect_line("Nov 3 02:28:56", nov30 - 27 * DAY_NS, 3);
	expect_line("Nov 03 02:28:56", nov30 - 27 * DAY_NS, 3);
	expect_line("Nov 30 02:28:56.250", nov30 + 250000000, 3);
	/* The month alone, or a day without a time, is no timestamp. */
	expect_line_refused("Nov x 02:28:56", 1);
	expect_line_refused("Nov 300 02:28:56", 1);
	expect_line_refused("Nov", 1);
	expect_line_refused("Nov 30", 2);
	expect_line_refused("Nov 30 host", 2);
	expect_line_refused("Nov 30 02:28", 3);
	expect_line_refused("Nov 31 02:28:56", 3);
	expect_line_refused("Nov 0 02:28:56", 3);
	expect_line_refused("Nov 30 25:00:00", 3);
	expect_line_refused("Nov 30 02:28:56Z", 3);
	expect_line_refused("Nox 30 02:28:56", 1);
	expect_line_refused("November 30 02:28:56", 1);
	expect_line_refused("Feb 29 00:00:00", 3);	/* 2026 is no leap year */
}

Test(fields, syslog_in_one_field)
{
	struct syslog_year year = { .year = 2026 };
	struct field field = { "Nov  3 02:28:56", 15 };
	int64_t nanos;
	size_t taken;
	cr_assert(read_timestamp_fields(&field, 1, EPOCH_SECONDS, &year, &nanos, &taken));
	cr_assert_eq(nanos, EXAMPLE_NS - 27 * DAY_NS);
	field.text = "Nov 30 02:28:56";
	cr_assert(read_timestamp_fields(&field, 1, EPOCH_SECONDS, &year, &nanos, &taken));
	cr_assert_eq(nanos, EXAMPLE_NS);
	const char *refused[] = { "Nov 30", "Nov30 02:28:56", "Nov 30 02:28:56 x", "Nov 30  x" };
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		field.text = refused[i];
		field.len = strlen(refused[i]);
		cr_assert_not(read_timestamp_fields(&field, 1, EPOCH_SECONDS, &year, &nanos,
		                                    &taken), "\"%s\"", refused[i]);
	}
	cr_assert_not(read_timestamp_fields(&field, 1, EPOCH_SECONDS, NULL, &nanos, &taken));
}

/* The seconds since the epoch of year-month-day hh:mm:ss UTC, by timegm. */
static int64_t utc(int year, int month, int day, int hour, int minute, int second)
{
	struct tm tm = { .tm_year = year - 1900, .tm_mon = month - 1, .tm_mday = day,
	                 .tm_hour = hour, .tm_min = minute, .tm_sec = second };
	return (int64_t)timegm(&tm);
}

static int64_t syslog_at(struct syslog_year *year, const char *line)
{
	int64_t nanos = 0;
	size_t taken;
	cr_assert(read_fields(line, year, &nanos, &taken), "\"%s\" refused", line);
	return nanos / NS;
}

/* The instant of line, the first syslog date read at now (seconds since the epoch). */
static int64_t first_syslog_at(int64_t now, const char *line)
{
	struct syslog_year year = { .now = now };
	return syslog_at(&year, line);
}

Test(syslog, the_year_from_the_clock)
{
	struct syslog_year year;

	/* The first date alone, read at now: the instant its year gives it. */
	const struct { int64_t now; const char *line; int64_t expected; } first[] = {
		/* Now is 2026-12-01 12:00:00: a date up to a day ahead is this year's. */
		{ utc(2026, 12, 1, 12, 0, 0), "Dec 2 12:00:00", utc(2026, 12, 2, 12, 0, 0) },
		{ utc(2026, 12, 1, 12, 0, 0), "Dec 2 12:00:01", utc(2025, 12, 2, 12, 0, 1) },
		{ utc(2026, 12, 1, 12, 0, 0), "Nov 30 12:00:01", utc(2026, 11, 30, 12, 0, 1) },
		/* A day ahead at most, the next year's (east of UTC on New Year's Eve)... */
		{ utc(2026, 12, 31, 15, 0, 0), "Jan 1 09:00:00", utc(2027, 1, 1, 9, 0, 0) },
		/* ... but more than a day ahead in it, this year's. */
		{ utc(2026, 12, 30, 23, 0, 0), "Jan 1 00:00:01", utc(2026, 1, 1, 0, 0, 1) },
		{ utc(2027, 2, 27, 12, 0, 0), "Feb 28 11:00:00", utc(2027, 2, 28, 11, 0, 0) },
		/* A leap day, in the leap year of the clock. */
		{ utc(2028, 3, 1, 0, 0, 0), "Feb 29 00:00:00", utc(2028, 2, 29, 0, 0, 0) },
		/* Else in the latest leap year: no year near the clock's has the date. */
		{ utc(2026, 12, 4, 0, 0, 0), "Feb 29 00:00:00", utc(2024, 2, 29, 0, 0, 0) },
		{ utc(2028, 2, 28, 0, 0, 0), "Feb 29 00:00:00", utc(2028, 2, 29, 0, 0, 0) },
		{ utc(2028, 2, 27, 23, 59, 59), "Feb 29 00:00:00", utc(2024, 2, 29, 0, 0, 0) },
		{ utc(2028, 2, 26, 0, 0, 0), "Feb 29 00:00:00", utc(2024, 2, 29, 0, 0, 0) },
		/* 2100 is no leap year: eight years back. */
		{ utc(2103, 6, 1, 0, 0, 0), "Feb 29 12:00:00", utc(2096, 2, 29, 12, 0, 0) },
		/* The clock's year in January and February too, which end a March-based year. */
		{ utc(2027, 2, 10, 0, 0, 0), "Feb 9 10:00:00", utc(2027, 2, 9, 10, 0, 0) },
		{ utc(2027, 1, 20, 0, 0, 0), "Jan 19 10:00:00", utc(2027, 1, 19, 10, 0, 0) },
	};

	for (size_t i = 0; i < sizeof first / sizeof first[0]; i++)
		cr_assert_eq(first_syslog_at(first[i].now, first[i].line), first[i].expected,
		             "%s read at %lld", first[i].line, (long long)first[i].now);
	/* On New Year's Day, last night's lines are last year's. */
	year = (struct syslog_year){ .now = utc(2027, 1, 1, 0, 5, 0) };
	cr_assert_eq(syslog_at(&year, "Dec 31 23:59:59"), utc(2026, 12, 31, 23, 59, 59));
	cr_assert_eq(year.year, 2026);
	cr_assert_eq(syslog_at(&year, "Jan 1 00:00:01"), utc(2027, 1, 1, 0, 0, 1));
	/*
	 * On New Year's Eve (UTC), a log in local time east of UTC is already in January:
	 * the next year's, up to a day ahead.
	 */
	year = (struct syslog_year){ .now = utc(2026, 12, 31, 23, 30, 0) };
	cr_assert_eq(syslog_at(&year, "Jan 1 00:30:00"), utc(2027, 1, 1, 0, 30, 0));
	cr_assert_eq(year.year, 2027);
	/* The first date sets the year; later ones do not look at the clock. */
	year = (struct syslog_year){ .now = utc(2026, 6, 1, 0, 0, 0) };
	cr_assert_eq(syslog_at(&year, "Jan 1 00:00:00"), utc(2026, 1, 1, 0, 0, 0));
	cr_assert_eq(syslog_at(&year, "Jul 1 00:00:00"), utc(2026, 7, 1, 0, 0, 0));
	cr_assert_eq(syslog_at(&year, "Dec 31 00:00:00"), utc(2026, 12, 31, 0, 0, 0));
}

Test(syslog, a_replay_from_december_to_january)
{
	struct syslog_year year = { .year = 2025 };
	cr_assert_eq(syslog_at(&year, "Nov 30 12:00:00"), utc(2025, 11, 30, 12, 0, 0));
	cr_assert_eq(syslog_at(&year, "Dec 31 23:59:59"), utc(2025, 12, 31, 23, 59, 59));
	cr_assert_eq(syslog_at(&year, "Jan 1 00:00:00"), utc(2026, 1, 1, 0, 0, 0));
	cr_assert_eq(syslog_at(&year, "Jan 1 00:00:00"), utc(2026, 1, 1, 0, 0, 0));
	/* Six months back or ahead is the same year. */
	cr_assert_eq(syslog_at(&year, "Jul 1 00:00:00"), utc(2026, 7, 1, 0, 0, 0));
	cr_assert_eq(syslog_at(&year, "Jan 2 00:00:00"), utc(2026, 1, 2, 0, 0, 0));
	/* Lines that go backwards leave the year to the newest date, July's. */
	cr_assert_eq(syslog_at(&year, "Feb 1 00:00:00"), utc(2026, 2, 1, 0, 0, 0));
	cr_assert_eq(year.year, 2026);
	cr_assert_eq(year.month, 7);
	cr_assert_eq(syslog_at(&year, "Sep 1 00:00:00"), utc(2026, 9, 1, 0, 0, 0));
	cr_assert_eq(syslog_at(&year, "Mar 1 00:00:00"), utc(2026, 3, 1, 0, 0, 0));
	/* More than six back is the next year. */
	cr_assert_eq(syslog_at(&year, "Jan 3 00:00:00"), utc(2027, 1, 3, 0, 0, 0));
	/* More than six ahead is a late line of the year before, which moves nothing. */
	cr_assert_eq(syslog_at(&year, "Dec 31 23:59:59"), utc(2026, 12, 31, 23, 59, 59));
	cr_assert_eq(syslog_at(&year, "Aug 1 00:00:00"), utc(2026, 8, 1, 0, 0, 0));
	cr_assert_eq(year.year, 2027);
	cr_assert_eq(year.month, 1);
	cr_assert_eq(syslog_at(&year, "Jan 4 00:00:00"), utc(2027, 1, 4, 0, 0, 0));
	/* A refused date leaves the year as it was. */
	int64_t nanos;
	size_t taken;
	cr_assert_not(read_fields("Feb 30 00:00:00", &year, &nanos, &taken));
	cr_assert_eq(year.year, 2027);
	cr_assert_eq(year.month, 1);
}

/*
 * One line of an earlier month among later ones (a stray message, a host whose clock
 * is off) goes backwards and moves nothing: the lines after it are read against the
 * newest date, not against it (against the stray line, September after February
 * would be of the year before, and January after June of the same year).
 */
Test(syslog, a_stray_line_moves_nothing)
{
	struct syslog_year year = { .year = 2027 };
	cr_assert_eq(syslog_at(&year, "Jan 1 00:00:01"), utc(2027, 1, 1, 0, 0, 1));
	cr_assert_eq(syslog_at(&year, "Jul 31 00:00:00"), utc(2027, 7, 31, 0, 0, 0));
	cr_assert_eq(syslog_at(&year, "Feb 1 00:00:00"), utc(2027, 2, 1, 0, 0, 0));
	cr_assert_eq(syslog_at(&year, "Sep 1 00:00:00"), utc(2027, 9, 1, 0, 0, 0));
	cr_assert_eq(syslog_at(&year, "Sep 2 00:00:00"), utc(2027, 9, 2, 0, 0, 0));

	year = (struct syslog_year){ .year = 2027 };
	cr_assert_eq(syslog_at(&year, "Dec 31 00:00:01"), utc(2027, 12, 31, 0, 0, 1));
	cr_assert_eq(syslog_at(&year, "Jun 1 00:00:00"), utc(2027, 6, 1, 0, 0, 0));
	cr_assert_eq(syslog_at(&year, "Jan 1 00:00:00"), utc(2028, 1, 1, 0, 0, 0));
}

Test(epoch, unit_by_size)
{
	static const struct {
		const char *text;
		enum epoch_unit unit;
	} cases[] = {
		{ "0", EPOCH_SECONDS }, { "1764504001", EPOCH_SECONDS },
		{ "99999999999", EPOCH_SECONDS }, { "99999999999.999", EPOCH_SECONDS },
		{ "-99999999999", EPOCH_SECONDS }, { "000000000000001", EPOCH_SECONDS },
		{ ".5", EPOCH_SECONDS }, { "+5.", EPOCH_SECONDS },
		{ "100000000000", EPOCH_MILLISECONDS }, { "1764504001000", EPOCH_MILLISECONDS },
		{ "99999999999999", EPOCH_MILLISECONDS }, { "-100000000000", EPOCH_MILLISECONDS },
		{ "100000000000000", EPOCH_MICROSECONDS },
		{ "99999999999999999", EPOCH_MICROSECONDS },
		{ "100000000000000000", EPOCH_NANOSECONDS },
		{ "1764504001000000000", EPOCH_NANOSECONDS },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		enum epoch_unit unit = 99;
		cr_assert(timestamp_epoch_unit(cases[i].text, strlen(cases[i].text), &unit),
		          "\"%s\" not an epoch", cases[i].text);
		cr_assert_eq(unit, cases[i].unit, "\"%s\": unit %d, expected %d", cases[i].text,
		             (int)unit, (int)cases[i].unit);
	}
	const char *not_epochs[] = { "", "-", ".", "+.", "1e5", "2026-11-30", "0x10", "1.2.3",
	                             "12:00", "abc", "5s" };
	for (size_t i = 0; i < sizeof not_epochs / sizeof not_epochs[0]; i++) {
		enum epoch_unit unit = 99;
		cr_assert_not(timestamp_epoch_unit(not_epochs[i], strlen(not_epochs[i]), &unit),
		              "\"%s\"", not_epochs[i]);
		cr_assert_eq(unit, 99);
	}
}

/* The words for a text that opens with a date but is no timestamp (swag(1), BAD INPUT). */
Test(date_problem, words)
{
	static const struct {
		const char *text, *words;
	} cases[] = {
		{ "9999-12-31T23:59:59Z", "outside swag's range, the years 1677 to 2262" },
		{ "9999-12-31", "outside swag's range, the years 1677 to 2262" },
		{ "0000-01-01T00:00:00Z", "outside swag's range, the years 1677 to 2262" },
		{ "1677-09-18T00:00:00Z", "outside swag's range, the years 1677 to 2262" },
		{ "2262-04-14T00:00:00Z", "outside swag's range, the years 1677 to 2262" },
		{ " 3000/01/01 00:00:00 ", "outside swag's range, the years 1677 to 2262" },
		{ "2027-02-29T10:00:00Z", "February 2027 has no day 29" },
		{ "2100-02-29", "February 2100 has no day 29" },
		{ "2026-11-31 10:00:00", "November 2026 has no day 31" },
		{ "2026/04/00", "April 2026 has no day 0" },
		{ "2023-13-01T00:00:00Z", "there is no month 13" },
		{ "2023-00-10", "there is no month 0" },
		{ "[29/Feb/2027:10:00:00 +0000]", "February 2027 has no day 29" },
		{ "31/jun/2026:10:00:00", "June 2026 has no day 31" },
		{ "[01/Jan/9999:00:00:00 +0000]", "outside swag's range, the years 1677 to 2262" },
		{ "Mon, 29 Feb 2027 10:00:00 GMT", "February 2027 has no day 29" },
		{ "Sun, 30 Nov 9999 12:00:01 GMT", "outside swag's range, the years 1677 to 2262" },
		{ "Sat, 9 Feb 9999 00:00:00 GMT", "outside swag's range, the years 1677 to 2262" },
		{ "Sun, 31 Jun 2026 10:00:00 +0200", "June 2026 has no day 31" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char hint[80] = "unset";
		cr_assert(timestamp_date_problem(cases[i].text, strlen(cases[i].text), hint,
		                                 sizeof hint),
		          "\"%s\": no words", cases[i].text);
		cr_assert_str_eq(hint, cases[i].words, "\"%s\"", cases[i].text);
	}
	/*
	 * No words where the date is real and in range (the time or the zone is wrong), near
	 * the range's ends where a zone may still bring it in, or where no date opens it.
	 */
	const char *none[] = { "2026-11-30T25:00:00Z", "2024-02-29T10:00:00", "2026-11-30",
	                       "2262-04-12T00:00:00+01:00", "1677-09-20T23:00:00Z",
	                       "2026-11-301", "20261130", "Nov 30 12:00:01", "Feb 29 10:00:00",
	                       "1764504001", "99999999999", "[30/Foo/2026:10:00:00",
	                       "30/Nov/2026", "Sun, 30 Nov 2026", "", "abc", "12:00:00" };
	for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
		char hint[80] = "unset";
		cr_assert_not(timestamp_date_problem(none[i], strlen(none[i]), hint, sizeof hint),
		              "\"%s\": \"%s\"", none[i], hint);
		cr_assert_str_eq(hint, "unset");
	}
}

/*
 * Against parse_timestamp over random ISO texts, dates real or not, in range or not: a
 * text with words is never a timestamp, and one with a real date well inside the range
 * has none.
 */
Test(date_problem, agrees_with_parse_timestamp)
{
	uint64_t state = 0x9e3779b97f4a7c15u;

	for (int i = 0; i < 200000; i++) {
		char text[64], hint[80];
		int64_t nanos;
		state = state * 6364136223846793005u + 1442695040888963407u;
		int year = (int)((state >> 33) % 10000), month = (int)((state >> 20) % 14),
		    day = (int)((state >> 10) % 33), hour = (int)((state >> 5) % 25);
		snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:00:00Z", year, month, day, hour);
		bool words = timestamp_date_problem(text, strlen(text), hint, sizeof hint);
		bool parsed = parse_timestamp(text, strlen(text), EPOCH_SECONDS, &nanos);
		cr_assert(!(words && parsed), "\"%s\" read, and yet \"%s\"", text, hint);
		bool real = month >= 1 && month <= 12 && day >= 1 &&
		            day <= (month == 2 ? (year % 4 == 0 && (year % 100 != 0 ||
		                                                    year % 400 == 0)) ? 29 : 28
		                               : month == 4 || month == 6 || month == 9 ||
		                                 month == 11 ? 30 : 31);
		if (real && year >= 1678 && year <= 2261)
			cr_assert_not(words, "\"%s\": \"%s\"", text, hint);
		if (!real || year < 1677 || year > 2262)
			cr_assert(words, "\"%s\": no words", text);
	}
}

/* ---------------------------------------------------------------------------------------
** The memo of timestamps with a clock (timestamp_read_memo, read_timestamp_fields_memo).
*/

/* Up to 6 fields of a record from the time column on, each a heap block of its length. */
struct memo_record {
	struct field fields[6];
	size_t count;
};

static void memo_record_make(struct memo_record *r, char texts[][80], const size_t *lens,
                             size_t count)
{
	r->count = count;
	for (size_t i = 0; i < count; i++) {
		char *block = malloc(lens[i] ? lens[i] : 1);
		cr_assert_not_null(block);
		memcpy(block, texts[i], lens[i]);
		r->fields[i].text = block;
		r->fields[i].len = lens[i];
	}
}

static void memo_record_free(struct memo_record *r)
{
	for (size_t i = 0; i < r->count; i++)
		free((char *)(uintptr_t)r->fields[i].text);
}

/*
** The year of syslog dates as each way carries it: read_timestamp_fields alone, and
** through the memo. They start alike (no year: the first date takes it from now,
** 2026-11-30T12:00:00Z) and must stay alike.
*/
struct memo_years {
	struct syslog_year slow, memo;
};

#define MEMO_YEARS_START { .slow = { .now = 1796040000 }, .memo = { .now = 1796040000 } }

static bool same_year(const struct syslog_year *a, const struct syslog_year *b)
{
	return a->year == b->year && a->month == b->month && a->newest == b->newest &&
	       a->now == b->now;
}

/*
** Reads r through the memo as the -t stage does (timestamp_read_memo, then
** read_timestamp_fields_memo, which keeps), and with read_timestamp_fields alone: the
** two must agree on whether it reads, the instant, the fields taken and the year of
** syslog dates they carry on. Returns whether the memo read it.
*/
static bool memo_check(struct timestamp_memo *memo, struct memo_years *years,
                       const struct memo_record *r)
{
	int64_t slow = 12345, fast = 12345, kept = 12345;
	size_t slow_taken = 99, fast_taken = 99, kept_taken = 99;
	struct syslog_year probe = years->memo;
	bool ok = read_timestamp_fields(r->fields, r->count, EPOCH_SECONDS, &years->slow, &slow,
	                                &slow_taken);
	bool hit = timestamp_read_memo(memo, r->fields, r->count, &probe, &fast, &fast_taken);
	bool kept_ok = read_timestamp_fields_memo(r->fields, r->count, EPOCH_SECONDS,
	                                          &years->memo, memo, &kept, &kept_taken);
	char line[400];
	size_t used = 0;
	for (size_t i = 0; i < r->count; i++)
		used += (size_t)snprintf(line + used, sizeof line - used, "%s\"%.*s\"",
		                         i > 0 ? " " : "", (int)r->fields[i].len, r->fields[i].text);
	if (hit && (!ok || fast != slow || fast_taken != slow_taken))
		cr_assert_fail("%s: the memo reads %lld (%zu fields), the parser %s %lld (%zu)", line,
		               (long long)fast, fast_taken, ok ? "reads" : "refuses",
		               (long long)slow, slow_taken);
	if (!hit)
		cr_assert(fast == 12345 && fast_taken == 99, "%s: a miss stored something", line);
	cr_assert(same_year(&years->slow, &years->memo),
	          "%s: the year carried %d-%d (newest %lld), the parser's %d-%d (%lld)", line,
	          years->memo.year, years->memo.month, (long long)years->memo.newest,
	          years->slow.year, years->slow.month, (long long)years->slow.newest);
	if (hit)
		cr_assert(same_year(&probe, &years->memo), "%s: two readings of the memo differ", line);
	cr_assert_eq(kept_ok, ok, "%s: read_timestamp_fields_memo %d, the parser %d", line,
	             (int)kept_ok, (int)ok);
	cr_assert_eq(kept_taken, slow_taken, "%s: %zu fields taken, the parser %zu", line,
	             kept_taken, slow_taken);
	if (ok)
		cr_assert_eq(kept, slow, "%s: %lld, the parser %lld", line, (long long)kept,
		             (long long)slow);
	return hit;
}

/*
** Streams of one layout, as a log's timestamps come: each record the last with its
** seconds and their fraction's digits changed (to 60 to 69 now and then), or a byte
** anywhere changed (to a digit, a separator, a letter), or a next field that may join
** (a zone, a zone's name) or not, or fewer fields; the layouts are every form kept, the
** ends of the range among them. Each record is compared with read_timestamp_fields, and
** most must be read by the memo, so that its way is what is tested.
*/
Test(memo, reads_as_the_parser_on_streams_of_one_layout)
{
	static const char *const layouts[][4] = {
		{ "2026-11-30T02:28:56.123Z", "5" },
		{ "2026-11-30T02:28:56Z" },
		{ "2026-11-30t02:28:56,5+01:00", "7" },
		{ "2026-11-30T02:28:56", "+0100", "CET", "9" },
		{ "2026-11-30T02:28:56", "Z", "CET" },
		{ "2026-11-30T02:28:56.250", "5", "x" },
		{ "2026-11-30 02:28:56 +0100 CET" },
		{ "2026-11-30 02:28:56.1234567", "-05:00" },
		{ "2026-11-30", "02:28:56,123", "INFO", "x" },
		{ "2026-11-30", "02:28:56.123456789", "-05:00", "v" },
		{ "2026-11-30", "02:28:56+01", "v" },
		{ "2026/11/30", "02:28:56", "+0100", "CEST" },
		{ "[30/Nov/2026:02:28:56", "+0000]", "GET" },
		{ "[30/Nov/2026:02:28:56.25", "-0130]" },
		{ "[30/Nov/2026:02:28:56]", "x" },
		{ "[30/Nov/2026:02:28:56 +0000]" },
		{ "30/Nov/2026:02:28:56", "+0100", "CET" },
		{ "30/Nov/2026:02:28:56", "5" },
		{ "2262-04-11T23:47:16.854775807Z" },
		{ "2262-04-11T23:46:15Z", "1" },
		{ "2262-04-11T23:45:59.999999999Z" },
		{ "1677-09-21T00:12:43.145224192Z" },
		{ "1677-09-21T00:13:44Z" },
		{ "2026-11-30T02:28:56.123456789012Z", "5" },
		{ "2024-02-29T23:59:59.9-23:59" },
		{ "2026-11-30T02:28:56.12345678901234567890123456789012345+01:00" },
		{ "2026-11-30T02:28:56.123456789012345678901234567890123456789012345+01:00" },
		{ "Nov", "30", "02:28:56", "host" },
		{ "Nov", "3", "02:28:56.25", "x" },
		{ "Dec", "31", "23:59:58" },
		{ "Feb", "29", "12:00:00", "+0100" },
		{ "Nov 30 02:28:56" },
		{ "Nov  3 02:28:56,5" },
		{ "Sun, 30 Nov 2026 12:00:01 GMT" },
	};
	static const char odd[] = "0123456789:.,-+/ZzT []\xff";
	static const char *const next_fields[] = { "5", "-12", "+0100", "-05:00", "Z", "z", "CET",
	                                           "+2500", "INFO", "AEDT", "+01", "" };
	uint64_t state = 0x9E3779B97F4A7C15U;
	size_t hits = 0, total = 0;
	for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++) {
		for (int stream = 0; stream < 40; stream++) {
			char texts[6][80];
			size_t lens[6], count = 0;
			struct timestamp_memo memo = TIMESTAMP_MEMO_START;
			struct memo_years years = MEMO_YEARS_START;
			for (; count < 4 && layouts[l][count] != NULL; count++) {
				lens[count] = strlen(layouts[l][count]);
				cr_assert_lt(lens[count], sizeof texts[0]);
				memcpy(texts[count], layouts[l][count], lens[count]);
			}
			/* The clock: the seconds are the two digits after the second ':' of it. */
			size_t clock = lens[0] == 10 && count > 1 ? 1 : lens[0] == 3 ? 2 : 0;
			size_t seconds = 0;
			for (size_t i = 0, colons = 0; i < lens[clock]; i++)
				if (texts[clock][i] == ':' && ++colons == (texts[clock][0] == '[' ||
				    texts[clock][2] == '/' ? 3 : 2)) {
					seconds = i + 1;
					break;
				}
			cr_assert_gt(seconds, 0, "layout %zu", l);
			for (int round = 0; round < 60; round++) {
				uint64_t r = random_next(&state);
				char (*c)[80] = &texts[clock];
				/* Most rounds: new seconds and fraction digits. */
				(*c)[seconds] = (char)('0' + (r % 16 == 0 ? 6 : (r >> 4) % 6));
				(*c)[seconds + 1] = (char)('0' + (r >> 8) % 10);
				for (size_t i = seconds + 3; i < lens[clock] && (*c)[seconds + 2] != '\0' &&
				     ((*c)[seconds + 2] == '.' || (*c)[seconds + 2] == ',') &&
				     (*c)[i] >= '0' && (*c)[i] <= '9'; i++)
					(*c)[i] = (char)('0' + random_next(&state) % 10);
				if ((r >> 12) % 8 == 0) {
					/* A byte anywhere in a field, the next one's included. */
					size_t f = (size_t)((r >> 16) % count);
					if (lens[f] > 0)
						texts[f][(r >> 20) % lens[f]] =
						    odd[(r >> 28) % (sizeof odd - 1)];
				}
				if ((r >> 32) % 6 == 0 && count < 6) {
					/* A next field that may join, or not. */
					const char *next = next_fields[(r >> 36) % 12];
					lens[count] = strlen(next);
					memcpy(texts[count], next, lens[count]);
					count++;
				} else if ((r >> 32) % 6 == 1 && count > 1) {
					count--;
				}
				struct memo_record record;
				memo_record_make(&record, texts, lens, count);
				hits += memo_check(&memo, &years, &record);
				total++;
				memo_record_free(&record);
				/* Now and then the layout again, as a log's next line after a bad one. */
				if ((r >> 40) % 16 == 0) {
					for (size_t f = 0; f < 4 && layouts[l][f] != NULL; f++)
						memcpy(texts[f], layouts[l][f], lens[f] = strlen(layouts[l][f]));
				}
			}
		}
	}
	cr_assert_gt(hits, total / 3, "the memo read %zu records of %zu", hits, total);
}

/* A record of blank-separated fields, for the tests below: at most 6. */
static void memo_record_of(struct memo_record *r, const char *line)
{
	struct field fields[6];
	char texts[6][80];
	size_t lens[6], count = split_at_spaces(line, fields, 6);
	for (size_t i = 0; i < count; i++) {
		cr_assert_lt(fields[i].len, sizeof texts[i]);
		memcpy(texts[i], fields[i].text, lens[i] = fields[i].len);
	}
	memo_record_make(r, texts, lens, count);
}

/* Whether the memo kept from a reads b, both checked against the parser; frees both. */
static bool memo_reads_second(struct memo_record *a, struct memo_record *b)
{
	struct timestamp_memo memo = TIMESTAMP_MEMO_START;
	struct memo_years years = MEMO_YEARS_START;
	memo_check(&memo, &years, a);
	bool hit = memo_check(&memo, &years, b);
	memo_record_free(a);
	memo_record_free(b);
	return hit;
}

/* memo_reads_second of two lines of blank-separated fields. */
static bool memo_reads_after(const char *first, const char *second)
{
	struct memo_record a, b;
	memo_record_of(&a, first);
	memo_record_of(&b, second);
	return memo_reads_second(&a, &b);
}

/* memo_reads_second of two fields with blanks inside, as a delimited record gives them. */
static bool memo_reads_field_after(const char *first, const char *second)
{
	struct memo_record a, b;
	char texts[2][80];
	size_t lens[2] = { strlen(first), strlen(second) };
	memcpy(texts[0], first, lens[0]);
	memcpy(texts[1], second, lens[1]);
	memo_record_make(&a, texts, lens, 1);
	memo_record_make(&b, texts + 1, lens + 1, 1);
	return memo_reads_second(&a, &b);
}

/* A first timestamp kept, a second one, whether they are one field each, and a hit. */
struct memo_case {
	const char *first, *second;
	bool one_field, hit;
};

static void expect_memo_cases(const struct memo_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct memo_case *c = &cases[i];
		bool hit = c->one_field ? memo_reads_field_after(c->first, c->second) :
		                          memo_reads_after(c->first, c->second);
		cr_expect_eq(hit, c->hit, "\"%s\" after \"%s\": the memo %s", c->second, c->first,
		             hit ? "read it" : "left it");
	}
}

Test(memo, reads_the_next_seconds_of_every_form_kept)
{
	static const struct memo_case cases[] = {
		{ "2026-11-30T02:28:56.123Z 5",
		  "2026-11-30T02:28:07.999Z 6", false, true },
		{ "2026-11-30T02:28:56+01:00",
		  "2026-11-30T02:28:59+01:00", false, true },
		{ "2026-11-30 02:28:56,123 INFO",
		  "2026-11-30 02:28:57,001 WARN", false, true },
		{ "2026-11-30T02:28:56 +0100 CET 1",
		  "2026-11-30T02:28:58 +0100 CET 2", false, true },
		{ "[30/Nov/2026:02:28:56 +0000] GET",
		  "[30/Nov/2026:02:28:58 +0000] PUT", false, true },
		{ "30/Nov/2026:02:28:56 5",
		  "30/Nov/2026:02:28:59 6", false, true },
		{ "2026-11-30T02:28:56.123456789Z",
		  "2026-11-30T02:28:56.123456790Z", false, true },
		{ "2026-11-30T02:28:56.1234567890Z",
		  "2026-11-30T02:28:56.9999999999Z", false, true },
		{ "2026-11-30 02:28:56.5 +0100 CET",
		  "2026-11-30 02:28:57.0 +0100 CET", true, true },
		{ "[30/Nov/2026:02:28:56 +0000]",
		  "[30/Nov/2026:02:28:00 +0000]", true, true },
		{ "Nov 30 02:28:56 host",
		  "Nov 30 02:28:58 host", false, true },
		{ "Nov  3 02:28:56.5",
		  "Nov  3 02:28:57.0", true, true },
	};
	expect_memo_cases(cases, sizeof cases / sizeof cases[0]);
}

Test(memo, leaves_to_the_parser_what_it_cannot_read_alike)
{
	static const struct memo_case cases[] = {
		/* A leap second, read as the next minute's first instant, and seconds past it. */
		{ "2026-11-30T23:59:59Z",
		  "2026-11-30T23:59:60Z", false, false },
		{ "2026-11-30T23:59:59Z",
		  "2026-11-30T23:59:61Z", false, false },
		{ "2026-11-30T23:59:60Z",
		  "2026-11-30T23:59:59Z", false, false },
		/* Another minute, zone, separator or number of fraction digits. */
		{ "2026-11-30T02:28:56Z",
		  "2026-11-30T02:29:56Z", false, false },
		{ "2026-11-30T02:28:56+01:00",
		  "2026-11-30T02:28:56+02:00", false, false },
		{ "2026-11-30T02:28:56.5Z",
		  "2026-11-30T02:28:56,5Z", false, false },
		{ "2026-11-30T02:28:56.5Z",
		  "2026-11-30T02:28:56.25Z", false, false },
		{ "2026-11-30T02:28:56.5Z",
		  "2026-11-30T02:28:56.xZ", false, false },
		/* A next field that joins: a zone after a clock that ends its field, a zone's name. */
		{ "2026-11-30T02:28:56 5",
		  "2026-11-30T02:28:57 +0100", false, false },
		{ "2026-11-30T02:28:56 5",
		  "2026-11-30T02:28:57 +2500", false, false },
		{ "2026-11-30 02:28:56 5",
		  "2026-11-30 02:28:57 Z", false, false },
		{ "2026-11-30T02:28:56 +0100 5",
		  "2026-11-30T02:28:57 +0100 CET", false, false },
		{ "2026-11-30T02:28:56 Z 5",
		  "2026-11-30T02:28:57 Z CET", false, true },
		{ "2026-11-30T02:28:56Z 5",
		  "2026-11-30T02:28:57Z +0100", false, true },
		/* Fewer fields than the timestamp took. */
		{ "2026-11-30 02:28:56",
		  "2026-11-30", false, false },
		/* Minutes within 61 s of the ends of the range are not kept. */
		{ "2262-04-11T23:47:10Z",
		  "2262-04-11T23:47:11Z", false, false },
		{ "1677-09-21T00:13:40Z",
		  "1677-09-21T00:13:41Z", false, false },
		{ "2262-04-11T23:45:10Z",
		  "2262-04-11T23:45:11Z", false, true },
		/* Forms without a clock, or not kept. */
		{ "2026-11-30T02:28 5",
		  "2026-11-30T02:28 5", false, false },
		{ "2026-11-30 5",
		  "2026-11-30 5", false, false },
		{ "1764469736 5",
		  "1764469737 5", false, false },
		{ "Sun, 30 Nov 2026 12:00:01 GMT",
		  "Sun, 30 Nov 2026 12:00:02 GMT", true, false },
		/* A syslog date: another month, or a blank after the clock (no date then). */
		{ "Nov 30 02:28:56",
		  "Dec 30 02:28:56", false, false },
		{ "Nov 30 02:28:56",
		  "Nov 30 02:28:56 ", true, false },
	};
	expect_memo_cases(cases, sizeof cases / sizeof cases[0]);
}

/*
** Syslog dates across a new year, a late line of the year before among them: the memo
** reads a date of the last kept one's month in the year carried, and keeps nothing of
** a date that did not leave the year carried at its own (the late line).
*/
Test(memo, syslog_dates_carry_the_year_alike)
{
	static const struct {
		const char *line;
		bool hit;
	} lines[] = {
		{ "Dec 31 23:59:58 a", false }, /* the first: 2025, a month ahead of now */
		{ "Dec 31 23:59:59 b", true },
		{ "Jan 1 00:00:01 c", false },  /* 2026 */
		{ "Jan 1 00:00:03 d", true },
		{ "Dec 31 23:59:57 e", false }, /* a late line of 2025: the year stays 2026 */
		{ "Jan 1 00:00:02 f", false },  /* nothing kept of the late line */
		{ "Jan 1 00:00:04 g", true },
		{ "Jan 1 00:00:01 h", true },   /* older: the newest stays */
	};
	struct timestamp_memo memo = TIMESTAMP_MEMO_START;
	struct memo_years years = MEMO_YEARS_START;
	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		struct memo_record r;
		memo_record_of(&r, lines[i].line);
		bool hit = memo_check(&memo, &years, &r);
		memo_record_free(&r);
		cr_expect_eq(hit, lines[i].hit, "\"%s\": the memo %s it", lines[i].line,
		             hit ? "read" : "left");
	}
	cr_expect_eq(years.memo.year, 2026);
	cr_expect_eq(years.memo.month, 1);
}

/* A syslog date kept under one year carried is not read from the memo under another. */
Test(memo, a_syslog_date_is_read_only_in_the_year_it_was_kept_in)
{
	struct timestamp_memo memo = TIMESTAMP_MEMO_START;
	struct memo_years years = MEMO_YEARS_START;
	struct memo_record a, b;
	memo_record_of(&a, "Nov 30 02:28:56 x");
	memo_record_of(&b, "Nov 30 02:28:57 x");
	memo_check(&memo, &years, &a);
	struct syslog_year later = years.memo, probe;
	later.year++;
	probe = later;
	int64_t fast = 12345, slow = 12345;
	size_t taken = 99;
	cr_expect_not(timestamp_read_memo(&memo, b.fields, b.count, &probe, &fast, &taken));
	cr_expect_eq(fast, 12345);
	cr_expect(same_year(&probe, &later));
	cr_assert(read_timestamp_fields(b.fields, b.count, EPOCH_SECONDS, &later, &slow, &taken));
	cr_expect_eq(slow, (EXAMPLE_SECONDS + 1 + 365 * 86400) * NS);
	cr_expect(memo_check(&memo, &years, &b), "the same year: the memo reads it");
	memo_record_free(&a);
	memo_record_free(&b);
}

/*
** A timestamp of its own minute each, as a metric a minute comes: after kept ones that
** read no other, the memo keeps ever fewer (after runs of up to 63 unkept), and one
** that reads another again keeps the next at once. Counted in timestamps kept.
*/
Test(memo, keeps_fewer_where_no_timestamp_shares_a_minute)
{
	struct timestamp_memo memo = TIMESTAMP_MEMO_START;
	struct syslog_year year = { .now = 1796040000 };
	size_t kept = 0, hits = 0;
	for (int i = 0; i < 4000; i++) {
		/* 2000 minutes apart, then 2000 records 3 s apart (20 a minute). */
		int64_t s = i < 2000 ? EXAMPLE_SECONDS + i * 60 : EXAMPLE_SECONDS + 200000 + i * 3;
		time_t t = (time_t)s;
		struct tm tm;
		char text[32];
		gmtime_r(&t, &tm);
		struct field field = { text, strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm) };
		int64_t nanos = 0;
		size_t taken = 0;
		bool hit = timestamp_read_memo(&memo, &field, 1, &year, &nanos, &taken);
		cr_assert(read_timestamp_fields_memo(&field, 1, EPOCH_SECONDS, &year, &memo, &nanos,
		                                     &taken));
		cr_assert_eq(nanos, s * NS, "\"%s\"", text);
		if (i < 2000)
			kept += memo.taken != 0;
		else
			hits += hit;
	}
	cr_expect_lt(kept, 2000 / 32, "%zu of 2000 timestamps of their own minute kept", kept);
	cr_expect_gt(hits, 2000 * 9 / 10, "%zu of 2000 timestamps 3 s apart read by the memo",
	             hits);
}
