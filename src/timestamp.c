/*
 * timestamp.c: parse_timestamp, parse_duration, and read_timestamp_fields, which reads
 * a timestamp over the blank-separated fields it spans (see timestamp.h).
 *
 * Each form is read by a hand-written scanner over [cursor, end) that checks each
 * character once, with integer arithmetic only.  A calendar date becomes a day number
 * by Howard Hinnant's days_from_civil ("chrono-Compatible Low-Level Date Algorithms"):
 * a few multiplications, no table, no loop, valid for every Gregorian date, and
 * independent of TZ, unlike mktime, and of the locale, unlike strptime's month names.
 *
 * Why by hand: it runs once per record.  tests/bench/bench_timestamp.c measures, per
 * timestamp (5 million of each form, gcc 12 -O2, 2-core Xeon VM): epoch 16-21 ns, ISO
 * 21-29 ns, CLF 26 ns, against 117 ns for strptime + timegm on the ISO form, which also
 * depend on the locale; parse_timestamp_fields, which reads the first field once, takes
 * 26 ns for an ISO pair, 28 ns for a CLF pair, 25 ns for a date followed by a number
 * and 20 ns for an epoch followed by one.
 */
#include <stdio.h>
#include <string.h>

#include "blank.h"
#include "swar.h"
#include "timestamp.h"

#define SECONDS_PER_DAY 86400

/* The limits of an int64_t nanosecond count, as unsigned magnitudes. */
#define MAX_POSITIVE_MAGNITUDE ((uint64_t)INT64_MAX)
#define MAX_NEGATIVE_MAGNITUDE ((uint64_t)INT64_MAX + 1)

const uint64_t nanos_per_epoch_unit[EPOCH_NANOSECONDS + 1] = {
	[EPOCH_SECONDS] = 1000000000,
	[EPOCH_MILLISECONDS] = 1000000,
	[EPOCH_MICROSECONDS] = 1000,
	[EPOCH_NANOSECONDS] = 1,
};

static bool
is_digit(char c)
{
	return timestamp_is_digit(c);
}

/*
 * Reads exactly digit_count decimal digits at *cursor as a number into *value and moves
 * *cursor past them.  Returns false when fewer digits than that precede end or another
 * byte.
 */
static bool
scan_fixed_digits(const char **cursor, const char *end, int digit_count, int *value)
{
	const char *p = *cursor;
	int number = 0;

	if (end - p < digit_count)
		return false;
	for (int i = 0; i < digit_count; i++) {
		if (!is_digit(p[i]))
			return false;
		number = number * 10 + (p[i] - '0');
	}
	*value = number;
	*cursor = p + digit_count;
	return true;
}

/* Moves *cursor past the byte expected and returns true, or returns false. */
static bool
scan_char(const char **cursor, const char *end, char expected)
{
	if (*cursor == end || **cursor != expected)
		return false;
	(*cursor)++;
	return true;
}

/*
 * Reads an unsigned decimal number, digits ("." digits?)? | "." digits, at *cursor.
 * Stores the integer part in *whole and where the fraction's digits start and how many
 * there are in *fraction_digits and *fraction_count, and moves *cursor past the number.
 * Returns false when there is no digit at all or when the integer part exceeds
 * UINT64_MAX.
 */
static bool
scan_unsigned_decimal(const char **cursor, const char *end, uint64_t *whole,
    const char **fraction_digits, size_t *fraction_count)
{
	const char *p = *cursor;
	const char *whole_start = p, *fraction_start;
	uint64_t number = 0;
	size_t whole_count, digits_after_point;

	for (; p < end && is_digit(*p); p++) {
		unsigned digit = (unsigned)(*p - '0');

		/* number * 10 + digit > UINT64_MAX = 18446744073709551615, without dividing. */
		if (number >= UINT64_MAX / 10 &&
		    (number > UINT64_MAX / 10 || digit > UINT64_MAX % 10))
			return false;
		number = number * 10 + digit;
	}
	whole_count = (size_t)(p - whole_start);
	fraction_start = p;
	if (p < end && *p == '.') {
		fraction_start = ++p;
		while (p < end && is_digit(*p))
			p++;
	}
	digits_after_point = (size_t)(p - fraction_start);
	if (whole_count == 0 && digits_after_point == 0)
		return false;
	*whole = number;
	*fraction_digits = fraction_start;
	*fraction_count = digits_after_point;
	*cursor = p;
	return true;
}

/*
 * Returns floor(0.d1d2...dn * unit_nanos) for the n = digit_count decimal digits at
 * digits, exactly, however many digits there are, and sets *inexact when the product
 * was not a whole number.  It works from the last digit back, carrying floor(partial /
 * 10) leftward; floor(floor(x) / 10) = floor(x / 10) keeps every step exact, and each
 * carry stays below unit_nanos, so nothing overflows for units up to a day (8.64e13
 * ns).
 */
static uint64_t
scale_fraction(const char *digits, size_t digit_count, uint64_t unit_nanos, bool *inexact)
{
	uint64_t carry = 0;
	bool dropped_nonzero = false;

	for (size_t i = digit_count; i > 0; i--) {
		uint64_t partial = (uint64_t)(digits[i - 1] - '0') * unit_nanos + carry;

		dropped_nonzero |= partial % 10 != 0;
		carry = partial / 10;
	}
	*inexact = dropped_nonzero;
	return carry;
}

/*
 * Stores whole * unit_nanos + fraction_nanos, negated when negative is set, in *nanos
 * and returns true; returns false when it does not fit an int64_t.  fraction_nanos <=
 * unit_nanos.
 */
static bool
combine_magnitude(uint64_t whole, uint64_t unit_nanos, uint64_t fraction_nanos,
    bool negative, int64_t *nanos)
{
	uint64_t limit = negative ? MAX_NEGATIVE_MAGNITUDE : MAX_POSITIVE_MAGNITUDE;
	uint64_t magnitude;

#if defined(__GNUC__)
	/* The checked builtins spare the 64-bit division of the portable check (about 1 ns). */
	if (__builtin_mul_overflow(whole, unit_nanos, &magnitude) ||
	    __builtin_add_overflow(magnitude, fraction_nanos, &magnitude) || magnitude > limit)
		return false;
#else
	if (whole > (limit - fraction_nanos) / unit_nanos)
		return false;
	magnitude = whole * unit_nanos + fraction_nanos;
#endif
	/* Negating through magnitude - 1 keeps -2^63 from passing through +2^63. */
	*nanos = negative && magnitude > 0 ? -(int64_t)(magnitude - 1) - 1 : (int64_t)magnitude;
	return true;
}

/*
 * Stores seconds * 1e9 + fraction_nanos (0 <= fraction_nanos < 1e9) in *nanos and
 * returns true, or returns false when that falls outside int64_t.  The lowest second in
 * range, -9223372037, only fits with a fraction of at least 145224192 ns, and its
 * product alone does not fit at all, so it is formed from the second above it.
 */
static bool
nanos_from_seconds(int64_t seconds, uint64_t fraction_nanos, int64_t *nanos)
{
	const int64_t max_seconds = INT64_MAX / NANOS_PER_SECOND;
	const int64_t min_seconds = INT64_MIN / NANOS_PER_SECOND - 1;
	int64_t fraction = (int64_t)fraction_nanos;

	if (seconds > max_seconds || seconds < min_seconds)
		return false;
	if (seconds == max_seconds && fraction > INT64_MAX % NANOS_PER_SECOND)
		return false;
	if (seconds == min_seconds) {
		if (fraction < NANOS_PER_SECOND + INT64_MIN % NANOS_PER_SECOND)
			return false;
		*nanos = (seconds + 1) * NANOS_PER_SECOND + (fraction - NANOS_PER_SECOND);
		return true;
	}
	*nanos = seconds * NANOS_PER_SECOND + fraction;
	return true;
}

/*
 * The calendar.
 */

static bool
is_leap_year(int year)
{
	return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
}

/* Returns the number of days in month 1-12 of year. */
static int
days_in_month(int year, int month)
{
	static const int days_in_common_year_month[] = {
		31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31
	};

	return month == 2 && is_leap_year(year) ? 29 : days_in_common_year_month[month - 1];
}

/*
 * Returns the number of days from 1970-01-01 to year-month-day (negative before it),
 * for any valid Gregorian date of a year 0 to 9999.  Hinnant's algorithm counts years
 * from March, so that the leap day ends a year, and in 400-year eras of 146097 days;
 * the day of a March-based year is (153 * month + 2) / 5 + day - 1, month 0 being
 * March.
 */
static int64_t
days_from_civil(int year, int month, int day)
{
	int march_year = year - (month <= 2);
	int era = (march_year >= 0 ? march_year : march_year - 399) / 400;
	int year_of_era = march_year - era * 400;			/* [0, 399] */
	int march_month = month > 2 ? month - 3 : month + 9;		/* [0, 11] */
	int day_of_year = (153 * march_month + 2) / 5 + day - 1;	/* [0, 365] */
	int day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 +
	    day_of_year;						/* [0, 146096] */

	return (int64_t)era * 146097 + day_of_era - 719468;	/* 0000-03-01 to 1970 */
}

void
civil_from_seconds(int64_t seconds, struct civil_time *civil)
{
	/* Hinnant's civil_from_days: days_from_civil backwards, in the same eras. */
	int64_t days = seconds >= 0 ? seconds / SECONDS_PER_DAY :
	    -((-seconds + SECONDS_PER_DAY - 1) / SECONDS_PER_DAY);
	int64_t z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
	int64_t day_of_era = z - era * 146097;				/* [0, 146096] */
	int64_t year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36524 -
	    day_of_era / 146096) / 365;					/* [0, 399] */
	int64_t day_of_year = day_of_era -
	    (365 * year_of_era + year_of_era / 4 - year_of_era / 100);	/* [0, 365] */
	int64_t march_month = (5 * day_of_year + 2) / 153;		/* [0, 11] */

	civil->day = (int)(day_of_year - (153 * march_month + 2) / 5 + 1);
	civil->month = (int)(march_month < 10 ? march_month + 3 : march_month - 9);
	civil->year = year_of_era + era * 400 + (civil->month <= 2);
	civil->second_of_day = (int)(seconds - days * SECONDS_PER_DAY);
}

/*
 * Returns 1-12 for an English month abbreviation at p[0..3), in any case, or 0.
 *
 * A perfect hash picks the one candidate: multiplying the three lowered bytes by
 * MONTH_HASH_MULTIPLIER (found by search) sends the twelve names to twelve distinct top
 * four bits.  A loop over the names cost CLF parsing 10 ns in mispredicted branches.
 */
#define MONTH_HASH_MULTIPLIER 0x2c4a3699u
static int
month_from_abbreviation(const char *p)
{
	static const struct {
		char name[4];
		int month;
	} by_hash[16] = {
		{ "nov", 11 }, { "mar", 3 }, { "sep", 9 }, { "jul", 7 },
		{ "may", 5 }, { "", 0 }, { "aug", 8 }, { "oct", 10 },
		{ "jun", 6 }, { "", 0 }, { "", 0 }, { "dec", 12 },
		{ "jan", 1 }, { "", 0 }, { "apr", 4 }, { "feb", 2 },
	};
	/* OR-ing 0x20 lowers an ASCII capital and turns no other byte into a small letter. */
	unsigned char c0 = (unsigned char)(p[0] | 0x20), c1 = (unsigned char)(p[1] | 0x20),
	    c2 = (unsigned char)(p[2] | 0x20);
	uint32_t key = (uint32_t)c0 << 16 | (uint32_t)c1 << 8 | c2;
	unsigned slot = (uint32_t)(key * MONTH_HASH_MULTIPLIER) >> 28;
	const char *name = by_hash[slot].name;

	if ((unsigned char)name[0] != c0 || (unsigned char)name[1] != c1 ||
	    (unsigned char)name[2] != c2)
		return 0;
	return by_hash[slot].month;
}

/*
 * The pieces of a date and time.  Each scanner reads one piece at *cursor, checks its
 * ranges, moves *cursor past it and returns true, or returns false.
 */

/*
 * The numbers of the dates, whatever their ranges (timestamp_date_problem words what is
 * wrong with them); the scanners below check the ranges.
 */

/* YYYY-MM-DD or YYYY/MM/DD, the same separator twice. */
static bool
scan_iso_date_numbers(const char **cursor, const char *end, int *year, int *month,
    int *day)
{
	const char *p = *cursor;
	char separator;

	/* '-' | 2 is '/', and no other byte but '/' itself. */
	if (!scan_fixed_digits(&p, end, 4, year) || p == end || (*p | 2) != '/')
		return false;
	separator = *p++;
	if (!scan_fixed_digits(&p, end, 2, month) || !scan_char(&p, end, separator) ||
	    !scan_fixed_digits(&p, end, 2, day))
		return false;
	*cursor = p;
	return true;
}

/* A month's three-letter name at *cursor (any case), into 1 to 12. */
static bool
scan_month_name(const char **cursor, const char *end, int *month)
{
	if (end - *cursor < 3 || (*month = month_from_abbreviation(*cursor)) == 0)
		return false;
	*cursor += 3;
	return true;
}

/* CLF's dd/Mon/yyyy. */
static bool
scan_clf_date_numbers(const char **cursor, const char *end, int *year, int *month,
    int *day)
{
	const char *p = *cursor;

	if (!scan_fixed_digits(&p, end, 2, day) || !scan_char(&p, end, '/') ||
	    !scan_month_name(&p, end, month) || !scan_char(&p, end, '/') ||
	    !scan_fixed_digits(&p, end, 4, year))
		return false;
	*cursor = p;
	return true;
}

/* RFC 7231's dd Mon yyyy, or RFC 5322's d Mon yyyy, as mail's Date headers write it. */
static bool
scan_http_date_numbers(const char **cursor, const char *end, int *year, int *month,
    int *day)
{
	const char *p = *cursor;

	if ((!scan_fixed_digits(&p, end, 2, day) && !scan_fixed_digits(&p, end, 1, day)) ||
	    !scan_char(&p, end, ' ') || !scan_month_name(&p, end, month) ||
	    !scan_char(&p, end, ' ') || !scan_fixed_digits(&p, end, 4, year))
		return false;
	*cursor = p;
	return true;
}

/* Whether year-month-day is a date of the calendar. */
static bool
is_real_date(int year, int month, int day)
{
	return month >= 1 && month <= 12 && day >= 1 && day <= days_in_month(year, month);
}

/* YYYY-MM-DD or YYYY/MM/DD (the same separator twice), into days since 1970-01-01. */
static bool
scan_iso_date(const char **cursor, const char *end, int64_t *days)
{
	int year, month, day;

	if (!scan_iso_date_numbers(cursor, end, &year, &month, &day) ||
	    !is_real_date(year, month, day))
		return false;
	*days = days_from_civil(year, month, day);
	return true;
}

/*
 * hh:mm:ss ([.,] digits)?, or hh:mm alone when seconds_optional is set (ISO, not CLF),
 * into seconds since midnight (86400 for 23:59:60) and the fraction's nanoseconds,
 * truncated (none for a leap second).
 */
static bool
scan_clock(const char **cursor, const char *end, bool seconds_optional,
    int *seconds_of_day, uint64_t *fraction_nanos)
{
	int hour, minute, second = 0;
	uint64_t fraction = 0;
	const char *p;

	if (!scan_fixed_digits(cursor, end, 2, &hour) || hour > 23 ||
	    !scan_char(cursor, end, ':') || !scan_fixed_digits(cursor, end, 2, &minute) ||
	    minute > 59)
		return false;
	if (!scan_char(cursor, end, ':')) {
		/* hh:mm: no seconds, so no fraction either (a zone may follow). */
		if (!seconds_optional)
			return false;
		*seconds_of_day = hour * 3600 + minute * 60;
		*fraction_nanos = 0;
		return true;
	}
	if (!scan_fixed_digits(cursor, end, 2, &second) || second > 60)
		return false;
	p = *cursor;
	if (p < end && (*p == '.' || *p == ',')) {
		const char *digits = ++p;
		bool inexact;

		while (p < end && is_digit(*p))
			p++;
		if (p == digits)
			return false;
		fraction = scale_fraction(digits, (size_t)(p - digits), NANOS_PER_SECOND,
		    &inexact);
	}
	*cursor = p;
	*seconds_of_day = hour * 3600 + minute * 60 + second;
	/*
	 * A leap second, whatever its fraction, is the next minute's first instant, so that
	 * 23:59:60.5 is not after the 00:00:00.1 that follows it in an ordered log.
	 */
	*fraction_nanos = second == 60 ? 0 : fraction;
	return true;
}

/* Z | z | [+-]hh | [+-]hhmm | [+-]hh:mm, into seconds east of UTC. */
static bool
scan_zone(const char **cursor, const char *end, int *offset_seconds)
{
	const char *p = *cursor;
	int sign, hours, minutes = 0;

	if (p < end && (*p == 'Z' || *p == 'z')) {
		*offset_seconds = 0;
		*cursor = p + 1;
		return true;
	}
	if (p == end || (*p != '+' && *p != '-'))
		return false;
	sign = *p++ == '-' ? -1 : 1;
	if (!scan_fixed_digits(&p, end, 2, &hours) || hours > 23)
		return false;
	if (p < end && *p == ':') {
		p++;
		if (!scan_fixed_digits(&p, end, 2, &minutes))
			return false;
	} else if (p < end && is_digit(*p) && !scan_fixed_digits(&p, end, 2, &minutes)) {
		return false;
	}
	if (minutes > 59)
		return false;
	*offset_seconds = sign * (hours * 3600 + minutes * 60);
	*cursor = p;
	return true;
}

/*
 * dd/Mon/yyyy:hh:mm:ss ([.,] digits)?, as Apache's %t and nginx's $time_local write it
 * without the zone, into seconds since the epoch (UTC) and the fraction's nanoseconds.
 */
static bool
scan_clf_date_time(const char **cursor, const char *end, int64_t *seconds,
    uint64_t *fraction_nanos)
{
	int day, month, year, seconds_of_day;
	const char *p = *cursor;

	if (!scan_clf_date_numbers(&p, end, &year, &month, &day) ||
	    !is_real_date(year, month, day) || !scan_char(&p, end, ':') ||
	    !scan_clock(&p, end, false, &seconds_of_day, fraction_nanos))
		return false;
	*seconds = days_from_civil(year, month, day) * SECONDS_PER_DAY + seconds_of_day;
	*cursor = p;
	return true;
}

/*
 * The forms, each over a range already trimmed of blanks.
 */

/*
 * The common epoch number, read in one pass: up to 18 digits (below 10^18, so no
 * digit can overflow), maybe a point and no more decimals than the unit has below it
 * (1732933736.250 in seconds, 1732933736250 in milliseconds), which then scale
 * exactly.  Returns false when the text is not so shaped or does not fit, for
 * parse_epoch's general path to decide; that path costs about 340 instructions for
 * 1700000000.010, this one about 160 with the form's classification (callgrind).
 */
static inline bool
parse_epoch_plain(const char *p, const char *end, enum epoch_unit unit, int64_t *nanos)
{
	static const unsigned unit_decimals[] = {
		[EPOCH_SECONDS] = 9, [EPOCH_MILLISECONDS] = 6, [EPOCH_MICROSECONDS] = 3,
		[EPOCH_NANOSECONDS] = 0,
	};
	static const uint64_t powers[] = {
		1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000
	};
	const char *start = p, *decimals;
	uint64_t whole = 0, fraction = 0, total;
	unsigned digit;

#if SWAR_LITTLE_ENDIAN
	/* Eight digits at a time while there are eight (swar.h): an epoch has ten. */
	while (end - p >= 8) {
		uint64_t word = load_u64((const unsigned char *)p) ^ SWAR_ZEROS;

		if (swar_nondigits(word) != 0)
			break;
		whole = whole * 100000000 + swar_digits_value(word);
		p += 8;
	}
#endif
	while (p < end && (digit = (unsigned)(*p - '0')) < 10) {
		whole = whole * 10 + digit;
		p++;
	}
	if (p == start || p - start > 18)
		return false;
	if (p < end && *p == '.') {
		decimals = ++p;
		while (p < end && (digit = (unsigned)(*p - '0')) < 10) {
			fraction = fraction * 10 + digit;
			p++;
		}
		if ((size_t)(p - decimals) > unit_decimals[unit])
			return false;
		fraction *= powers[unit_decimals[unit] - (size_t)(p - decimals)];
	}
	if (p != end || __builtin_mul_overflow(whole, nanos_per_epoch_unit[unit], &total) ||
	    __builtin_add_overflow(total, fraction, &total) || total > INT64_MAX)
		return false;
	*nanos = (int64_t)total;
	return true;
}

static bool
parse_epoch(const char *p, const char *end, enum epoch_unit unit, int64_t *nanos)
{
	bool negative = false, inexact;
	uint64_t whole, unit_nanos, fraction;
	const char *fraction_digits;
	size_t fraction_count;

	if (parse_epoch_plain(p, end, unit, nanos))
		return true;
	if (p < end && (*p == '+' || *p == '-'))
		negative = *p++ == '-';
	if (!scan_unsigned_decimal(&p, end, &whole, &fraction_digits, &fraction_count) ||
	    p != end)
		return false;
	unit_nanos = nanos_per_epoch_unit[unit];
	fraction = scale_fraction(fraction_digits, fraction_count, unit_nanos, &inexact);
	/* Dropped sub-nanosecond digits round toward the past: away from zero when negative. */
	if (negative && inexact)
		fraction++;
	return combine_magnitude(whole, unit_nanos, fraction, negative, nanos);
}

/*
 * Reads, at *cursor, a zone as scan_zone does, then, after a numeric zone, maybe a
 * blank and a zone's name that ends the text, which says nothing more: the ends of
 * "2026-11-30T12:00:01+0100" and "2026-11-30 12:00:01+01 CET".  Stores the zone's
 * seconds east of UTC and moves *cursor past it, or returns false.
 */
static bool
scan_zone_named(const char **cursor, const char *end, int *offset_seconds)
{
	const char *zone = *cursor;

	if (!scan_zone(cursor, end, offset_seconds))
		return false;
	if ((*zone | 0x20) != 'z' && *cursor < end && **cursor == ' ' &&
	    timestamp_is_zone_name(*cursor + 1, (size_t)(end - *cursor - 1)))
		*cursor = end;
	return true;
}

/*
 * Reads, at *cursor, a blank and a zone as scan_zone_named does, all that is left of
 * the text: "2026-11-30 12:00:01 +0100", "2026-11-30 12:00:01 +01" and
 * "2026-11-30 12:00:01.123 +0100 CET" in one field, where nothing but a zone can
 * follow the time (a lower-case z aside).  Stores the zone's seconds east of UTC and
 * moves *cursor to end, or returns false.
 */
static bool
scan_blank_zone(const char **cursor, const char *end, int *offset_seconds)
{
	const char *p = *cursor;

	if (end - p < 2 || p[0] != ' ' || p[1] == 'z')
		return false;
	p++;
	if (!scan_zone_named(&p, end, offset_seconds) || p != end)
		return false;
	*cursor = end;
	return true;
}

/*
 * Reads an ISO 8601 date and time over p to end into seconds since the epoch and the
 * fraction's nanoseconds.  Sets *zone_missing when a time ends the text without a zone,
 * so that a zone in the next field may join it.
 */
static bool
scan_iso(const char *p, const char *end, int64_t *seconds, uint64_t *fraction,
    bool *zone_missing)
{
	int64_t days;
	int seconds_of_day = 0, offset_seconds = 0;

	*fraction = 0;
	*zone_missing = false;
	if (!scan_iso_date(&p, end, &days))
		return false;
	if (p < end) {
		if (*p != 'T' && *p != 't' && *p != ' ')
			return false;
		p++;
		if (!scan_clock(&p, end, true, &seconds_of_day, fraction))
			return false;
		if (p == end)
			*zone_missing = true;
		else if (!scan_zone_named(&p, end, &offset_seconds) &&
		    !scan_blank_zone(&p, end, &offset_seconds))
			return false;
		if (p != end)
			return false;
	}
	*seconds = days * SECONDS_PER_DAY + seconds_of_day - offset_seconds;
	return true;
}

static bool
parse_iso(const char *p, const char *end, int64_t *nanos)
{
	int64_t seconds;
	uint64_t fraction;
	bool zone_missing;

	return scan_iso(p, end, &seconds, &fraction, &zone_missing) &&
	    nanos_from_seconds(seconds, fraction, nanos);
}

/*
 * Common Log Format in one field: "[30/Nov/2026:02:28:56 +0000]", or without the
 * brackets, where a numeric zone may be followed by a zone's name, as when its
 * fields are joined in blank-separated input ("30/Nov/2026:02:28:56 +0100 CET").
 */
static bool
parse_clf(const char *p, const char *end, int64_t *nanos)
{
	int64_t seconds;
	uint64_t fraction;
	int offset_seconds;
	bool bracketed = *p == '[';

	if (bracketed) {
		if (end - p < 2 || end[-1] != ']')
			return false;
		p++;
		end--;
	}
	offset_seconds = 0;
	if (!scan_clf_date_time(&p, end, &seconds, &fraction))
		return false;
	if (p < end && (!scan_char(&p, end, ' ') || !(bracketed ?
	    scan_zone(&p, end, &offset_seconds) : scan_zone_named(&p, end, &offset_seconds))))
		return false;
	if (p != end)
		return false;
	return nanos_from_seconds(seconds - offset_seconds, fraction, nanos);
}

/* True for an ASCII letter. */
static bool
is_letter(char c)
{
	return (unsigned)((c | 0x20) - 'a') < 26;
}

/*
 * Ddd, dd Mon yyyy hh:mm:ss GMT, RFC 7231's IMF-fixdate, as HTTP headers and some CSV
 * exports write it.  The day's name must be one (in any case), and is not checked
 * against the date; GMT may also be written UTC, or as a zone +hhmm, and the day of
 * the month with one digit, as RFC 5322 allows.
 */
static bool
parse_http_date(const char *p, const char *end, int64_t *nanos)
{
	static const char day_names[7][4] = {
		"mon", "tue", "wed", "thu", "fri", "sat", "sun"
	};
	int day, month, year, seconds_of_day, offset_seconds = 0;
	uint64_t fraction;
	size_t i;

	if (end - p < 28 || p[3] != ',' || p[4] != ' ')
		return false;
	for (i = 0; i < 7; i++)
		if ((p[0] | 0x20) == day_names[i][0] && (p[1] | 0x20) == day_names[i][1] &&
		    (p[2] | 0x20) == day_names[i][2])
			break;
	if (i == 7)
		return false;
	p += 5;
	if (!scan_http_date_numbers(&p, end, &year, &month, &day) ||
	    !is_real_date(year, month, day) || !scan_char(&p, end, ' ') ||
	    !scan_clock(&p, end, false, &seconds_of_day, &fraction) ||
	    !scan_char(&p, end, ' '))
		return false;
	/* GMT, or UTC; or a numeric zone, +hhmm, as RFC 5322 and date -R write it. */
	if (end - p == 3 && ((p[0] == 'G' && p[1] == 'M' && p[2] == 'T') ||
	    (p[0] == 'U' && p[1] == 'T' && p[2] == 'C')))
		p = end;
	else if (end - p != 5 || !timestamp_is_zone_shaped(p, 5) ||
	    !scan_zone(&p, end, &offset_seconds))
		return false;
	return nanos_from_seconds(days_from_civil(year, month, day) * SECONDS_PER_DAY +
	    seconds_of_day - offset_seconds, fraction, nanos);
}

/* Returns the year (UTC) of the instant that is seconds since the epoch. */
static int
year_of(int64_t seconds)
{
	struct civil_time civil;

	civil_from_seconds(seconds, &civil);
	return (int)civil.year;
}

/*
 * Reads the three parts of a syslog (RFC 3164) date, a month's name, its day (one or two
 * digits) and hh:mm:ss ([.,] digits)?, each p to end without blanks, in the year that
 * *year carries (see struct syslog_year), and moves that year on.
 */
static bool
read_syslog(const char *month_text, size_t month_len, const char *day_text,
    size_t day_len, const char *clock, size_t clock_len, struct syslog_year *year,
    int64_t *nanos)
{
	const char *p = day_text, *clock_end = clock + clock_len;
	int month, day, seconds_of_day, y;
	uint64_t fraction;
	int64_t seconds;

	if (year == NULL || month_len != 3 ||
	    (month = month_from_abbreviation(month_text)) == 0 || day_len < 1 ||
	    day_len > 2 || !scan_fixed_digits(&p, day_text + day_len, (int)day_len, &day) ||
	    day < 1 ||
	    !scan_clock(&clock, clock_end, false, &seconds_of_day, &fraction) ||
	    clock != clock_end)
		return false;
	y = year->year;
	if (y == 0) {
		/*
		 * The latest year that has the date and puts it at most a day ahead of the
		 * clock: the next year's Jan 1 00:30 read at Dec 31 23:30 (UTC, a log in local
		 * time east of it), else the clock's year, or the one before; for Feb 29, the
		 * latest leap year (at most 8 years back).  A day past 29 in February is no
		 * date in any year.
		 */
		if (day > days_in_month(2000, month))
			return false;
		y = year_of(year->now) + 1;
		while (day > days_in_month(y, month) ||
		    days_from_civil(y, month, day) * SECONDS_PER_DAY + seconds_of_day >
		    year->now + SECONDS_PER_DAY)
			y--;
	} else if (year->month - month > 6) {
		/* From December to January: the next year. */
		y++;
	} else if (year->month > 0 && month - year->month > 6) {
		/* A late line of the year before (December after January): the year stays. */
		y--;
	}
	if (day > days_in_month(y, month))
		return false;
	seconds = days_from_civil(y, month, day) * SECONDS_PER_DAY + seconds_of_day;
	if (!nanos_from_seconds(seconds, fraction, nanos))
		return false;
	/* The newest date, and no older one, carries the year on (struct syslog_year). */
	if (year->month == 0 || seconds >= year->newest) {
		year->year = y;
		year->month = month;
		year->newest = seconds;
	}
	return true;
}

/* Moves *cursor past the blanks (at least one) and returns true, or returns false. */
static bool
skip_blanks(const char **cursor, const char *end)
{
	const char *p = *cursor;

	while (p < end && is_blank(*p))
		p++;
	if (p == *cursor)
		return false;
	*cursor = p;
	return true;
}

/* A syslog date in one field, "Nov 30 12:00:01" or "Nov  3 02:00:01" (from CSV). */
static bool
parse_syslog(const char *p, const char *end, struct syslog_year *year, int64_t *nanos)
{
	const char *day, *day_end, *clock;

	if (end - p < 3)
		return false;
	day = p + 3;
	if (!skip_blanks(&day, end))
		return false;
	for (day_end = day; day_end < end && is_digit(*day_end); day_end++)
		continue;
	clock = day_end;
	if (!skip_blanks(&clock, end))
		return false;
	return read_syslog(p, 3, day, (size_t)(day_end - day), clock, (size_t)(end - clock),
	    year, nanos);
}

/*
 * parse_timestamp of text without blanks around it, p to end; year, when not NULL, gives
 * syslog dates their year.
 */
static bool
parse_trimmed(const char *p, const char *end, enum epoch_unit unit, struct syslog_year *year,
    int64_t *nanos)
{
	if ((unsigned)unit > EPOCH_NANOSECONDS || p == end)
		return false;
	/* The first bytes tell the forms apart: "[" or "dd/" is CLF, "dddd-" or "dddd/" ISO. */
	if (*p == '[' || (end - p > 2 && p[2] == '/'))
		return parse_clf(p, end, nanos);
	/* '-' | 2 is '/', and no other byte but '/' itself. */
	if (end - p > 4 && (p[4] | 2) == '/')
		return parse_iso(p, end, nanos);
	if (parse_epoch(p, end, unit, nanos))
		return true;
	/* The forms that start with a name: RFC 7231's day, syslog's month. */
	if (!is_letter(*p))
		return false;
	if (end - p > 3 && p[3] == ',')
		return parse_http_date(p, end, nanos);
	return parse_syslog(p, end, year, nanos);
}

bool
parse_timestamp(const char *text, size_t len, enum epoch_unit unit, int64_t *nanos)
{
	const char *p = text, *end = text + len;

	trim_blanks(&p, &end);
	return parse_trimmed(p, end, unit, NULL, nanos);
}

/*
 * Durations, the fields a timestamp spans, and the epoch unit.
 */

bool
parse_duration(const char *text, size_t len, int64_t *nanos)
{
	/* The units from the longest: a duration names each once, longest first. */
	static const struct {
		char name[4];
		uint64_t nanos;
	} units[] = {
		{ "w", 604800000000000 },
		{ "d", 86400000000000 },
		{ "h", 3600000000000 },
		{ "m", 60000000000 },
		{ "min", 60000000000 },
		{ "s", 1000000000 },
		{ "sec", 1000000000 },
		{ "ms", 1000000 },
		{ "us", 1000 },
		{ "ns", 1 },
	};
	const size_t unit_count = sizeof(units) / sizeof(units[0]);
	const char *p = text, *end = text + len;
	uint64_t total = 0;
	size_t next_unit = 0;

	trim_blanks(&p, &end);
	if (p == end)
		return false;
	while (p < end) {
		uint64_t whole, fraction, nanos_per_unit;
		const char *fraction_digits, *name;
		size_t fraction_count, name_len, i;
		int64_t part;
		bool inexact;

		if (!scan_unsigned_decimal(&p, end, &whole, &fraction_digits, &fraction_count))
			return false;
		for (name = p; p < end && *p >= 'a' && *p <= 'z'; p++)
			continue;
		name_len = (size_t)(p - name);
		for (i = next_unit; i < unit_count; i++)
			if (name_len == strnlen(units[i].name, sizeof(units[i].name)) &&
			    memcmp(name, units[i].name, name_len) == 0)
				break;
		/* No unit, an unknown one, or one out of order ("30s1m", "1h1h"). */
		if (name_len == 0 || i == unit_count)
			return false;
		nanos_per_unit = units[i].nanos;
		/* "m" and "min", "s" and "sec" are one unit: neither may follow the other. */
		next_unit = i + 1;
		if (next_unit < unit_count && units[next_unit].nanos == nanos_per_unit)
			next_unit++;
		fraction = scale_fraction(fraction_digits, fraction_count, nanos_per_unit,
		    &inexact);
		if (!combine_magnitude(whole, nanos_per_unit, fraction, false, &part) ||
		    __builtin_add_overflow(total, (uint64_t)part, &total) || total > INT64_MAX)
			return false;
	}
	if (total == 0)
		return false;
	*nanos = (int64_t)total;
	return true;
}

bool
timestamp_is_first_half(const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	int64_t days;

	trim_blanks(&p, &end);
	if (p < end && *p == '[') {
		int64_t seconds;
		uint64_t fraction;

		p++;
		return scan_clf_date_time(&p, end, &seconds, &fraction) && p == end;
	}
	return scan_iso_date(&p, end, &days) && p == end;
}

/* Moves *cursor past one or more digits and returns true, or returns false. */
static bool
skip_digits(const char **cursor, const char *end)
{
	const char *p = *cursor;

	while (p < end && is_digit(*p))
		p++;
	if (p == *cursor)
		return false;
	*cursor = p;
	return true;
}

/* Whether [p, end) is a MAC address, six pairs of hex digits between colons. */
static bool
is_mac_address(const char *p, const char *end)
{
	if (end - p != 17)
		return false;
	for (int i = 0; i < 17; i++)
		if (i % 3 == 2 ? p[i] != ':' : !is_digit(p[i]) &&
		    !((p[i] | 0x20) >= 'a' && (p[i] | 0x20) <= 'f'))
			return false;
	return true;
}

/* Whether [p, end) begins with h:mm or hh:mm. */
static bool
begins_as_clock(const char *p, const char *end)
{
	const char *q = p;
	int minute;

	while (q < end && q - p < 2 && is_digit(*q))
		q++;
	return q > p && scan_char(&q, end, ':') && scan_fixed_digits(&q, end, 2, &minute);
}

bool
timestamp_is_time_shaped(const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	trim_blanks(&p, &end);
	if (is_mac_address(p, end))
		return false;
	/* h:mm or hh:mm and anything after it (09:15:02:123, 12:00:01PM): a time. */
	if (begins_as_clock(p, end))
		return true;
	/* Or d+ (:d+)+ */
	if (!skip_digits(&p, end) || !scan_char(&p, end, ':') || !skip_digits(&p, end))
		return false;
	while (scan_char(&p, end, ':'))
		if (!skip_digits(&p, end))
			return false;
	/* ([.,] d*)? */
	if (p < end && (*p == '.' || *p == ',')) {
		p++;
		while (p < end && is_digit(*p))
			p++;
	}
	/* (Z | z | [+-] d+ (: d+)?)? */
	if (p < end && (*p == 'Z' || *p == 'z')) {
		p++;
	} else if (p < end && (*p == '+' || *p == '-')) {
		p++;
		if (!skip_digits(&p, end))
			return false;
		if (scan_char(&p, end, ':') && !skip_digits(&p, end))
			return false;
	}
	return p == end;
}

/*
 * The second halves of the pairs, each over b[0..b_end) already trimmed of blanks,
 * storing the pair's instant in *nanos or returning false.  This one reads the time of
 * the date that is days since the epoch.
 */
static bool
parse_pair_time(int64_t days, const char *b, const char *b_end, int64_t *nanos)
{
	int seconds_of_day, offset_seconds = 0;
	uint64_t fraction;

	if (!scan_clock(&b, b_end, true, &seconds_of_day, &fraction))
		return false;
	if (b < b_end && !scan_zone(&b, b_end, &offset_seconds) &&
	    !scan_blank_zone(&b, b_end, &offset_seconds))
		return false;
	if (b != b_end)
		return false;
	return nanos_from_seconds(days * SECONDS_PER_DAY + seconds_of_day - offset_seconds,
	    fraction, nanos);
}

/* This one reads the zone and "]" of a CLF date and time, seconds since the epoch (UTC). */
static bool
parse_pair_clf_zone(int64_t seconds, uint64_t fraction, const char *b, const char *b_end,
    int64_t *nanos)
{
	int offset_seconds;

	if (b == b_end || b_end[-1] != ']')
		return false;
	b_end--;
	if (!scan_zone(&b, b_end, &offset_seconds) || b != b_end)
		return false;
	return nanos_from_seconds(seconds - offset_seconds, fraction, nanos);
}

bool
parse_timestamp_pair(const char *a, size_t alen, const char *b, size_t blen,
    int64_t *nanos)
{
	const char *a_end = a + alen, *b_end = b + blen;
	int64_t days;

	trim_blanks(&a, &a_end);
	trim_blanks(&b, &b_end);
	if (a < a_end && *a == '[') {
		int64_t seconds;
		uint64_t fraction;

		a++;
		if (!scan_clf_date_time(&a, a_end, &seconds, &fraction) || a != a_end)
			return false;
		return parse_pair_clf_zone(seconds, fraction, b, b_end, nanos);
	}
	if (!scan_iso_date(&a, a_end, &days) || a != a_end)
		return false;
	return parse_pair_time(days, b, b_end, nanos);
}

/*
 * After a date and time without a zone, over fields[0..count): a field shaped as a zone
 * joins the timestamp, its seconds east of UTC taken from *seconds, and after a numeric
 * zone a zone's name joins it too (and says nothing more).  Adds the fields taken to
 * *fields_taken.  Returns false when a field shaped as a zone is out of range.
 */
static __attribute__((noinline)) bool
join_zone(const struct field *fields, size_t count, int64_t *seconds, size_t *fields_taken)
{
	const char *zone, *zone_end;
	int offset_seconds;

	zone = fields[0].text;
	zone_end = zone + fields[0].len;
	(*fields_taken)++;
	if (!scan_zone(&zone, zone_end, &offset_seconds) || zone != zone_end)
		return false;
	*seconds -= offset_seconds;
	if (count > 1 && fields[0].text[0] != 'Z' &&
	    timestamp_is_zone_name(fields[1].text, fields[1].len))
		(*fields_taken)++;
	return true;
}

/* join_zone when fields[0] is shaped as a zone: the common field is turned away here. */
static inline bool
join_zone_fields(const struct field *fields, size_t count, int64_t *seconds,
    size_t *fields_taken)
{
	if (count == 0 || !timestamp_is_zone_shaped(fields[0].text, fields[0].len))
		return true;
	return join_zone(fields, count, seconds, fields_taken);
}

/*
 * read_timestamp_fields of a first field that starts with a date (its fifth byte is a
 * "-" or "/"), with count >= 2.
 */
static bool
read_dated_fields(const struct field *fields, size_t count, int64_t *nanos,
    size_t *fields_taken)
{
	const char *p = fields[0].text, *end = p + fields[0].len;
	int64_t seconds;
	uint64_t fraction;
	bool zone_missing;

	if (end - p == 10) {
		const char *b = fields[1].text, *b_end = b + fields[1].len;
		int64_t days;
		int seconds_of_day, offset_seconds = 0;

		if (!scan_iso_date(&p, end, &days))
			return false;
		if (scan_clock(&b, b_end, true, &seconds_of_day, &fraction)) {
			const char *clock_end = b;

			if (b == b_end || ((scan_zone(&b, b_end, &offset_seconds) ||
			    scan_blank_zone(&b, b_end, &offset_seconds)) && b == b_end)) {
				*fields_taken = 2;
				seconds = days * SECONDS_PER_DAY + seconds_of_day -
				    offset_seconds;
				/* No zone in the time: one may stand in the next field. */
				if (clock_end == b_end && !join_zone_fields(fields + 2,
				    count - 2, &seconds, fields_taken))
					return false;
				return nanos_from_seconds(seconds, fraction, nanos);
			}
		}
		/* A time written wrong is unreadable, not midnight; any other field is none. */
		if (timestamp_is_time_shaped(fields[1].text, fields[1].len)) {
			*fields_taken = 2;
			return false;
		}
		return nanos_from_seconds(days * SECONDS_PER_DAY, 0, nanos);
	}
	/* A date and time in one field, maybe with its zone in the next. */
	if (!scan_iso(p, end, &seconds, &fraction, &zone_missing) ||
	    (zone_missing && !join_zone_fields(fields + 1, count - 1, &seconds,
	    fields_taken)))
		return false;
	return nanos_from_seconds(seconds, fraction, nanos);
}

/*
 * read_timestamp_fields of a syslog date over three fields (count >= 2): the month's
 * name, the day if shaped as one (one or two digits), the time if shaped as one.
 */
static bool
read_syslog_fields(const struct field *fields, size_t count, struct syslog_year *year,
    int64_t *nanos, size_t *fields_taken)
{
	const struct field *day = &fields[1];

	if (fields[0].len != 3 || month_from_abbreviation(fields[0].text) == 0 ||
	    day->len < 1 || day->len > 2 || !is_digit(day->text[0]) ||
	    !is_digit(day->text[day->len - 1]))
		return false;
	*fields_taken = 2;
	if (count < 3 || !timestamp_is_time_shaped(fields[2].text, fields[2].len))
		return false;
	*fields_taken = 3;
	return read_syslog(fields[0].text, 3, day->text, day->len, fields[2].text,
	    fields[2].len, year, nanos);
}

bool
read_timestamp_fields(const struct field *fields, size_t count, enum epoch_unit unit,
    struct syslog_year *year, int64_t *nanos, size_t *fields_taken)
{
	const char *p = fields[0].text, *end = p + fields[0].len;

	*fields_taken = 1;
	if (p == end)
		return false;
	/* A date, "dddd-" or "dddd/" ('-' | 2 is '/'): an epoch number is told at once. */
	if (end - p > 4 && (p[4] | 2) == '/')
		return count >= 2 ? read_dated_fields(fields, count, nanos, fields_taken) :
		    parse_iso(p, end, nanos);
	if (*p == '[' && count >= 2) {
		/* An unclosed bracket: its zone and "]" must be the next field. */
		const char *b = fields[1].text, *date = p + 1;
		int64_t seconds;
		uint64_t fraction;

		if (scan_clf_date_time(&date, end, &seconds, &fraction) && date == end) {
			*fields_taken = 2;
			return parse_pair_clf_zone(seconds, fraction, b, b + fields[1].len,
			    nanos);
		}
	}
	if (*p == '[' || (end - p > 2 && p[2] == '/')) {
		const char *date = p;
		int64_t seconds;
		uint64_t fraction;

		/* CLF without its brackets and zone: a time without a zone, which may be next. */
		if (*p != '[' && count >= 2 &&
		    scan_clf_date_time(&date, end, &seconds, &fraction) && date == end)
			return join_zone_fields(fields + 1, count - 1, &seconds,
			    fields_taken) && nanos_from_seconds(seconds, fraction, nanos);
		return parse_clf(p, end, nanos);
	}
	if ((unsigned)unit <= EPOCH_NANOSECONDS && parse_epoch(p, end, unit, nanos))
		return true;
	/* The forms that start with a name: RFC 7231's day, syslog's month. */
	if (!is_letter(*p))
		return false;
	if (end - p > 3 && p[3] == ',')
		return parse_http_date(p, end, nanos);
	if (count >= 2)
		return read_syslog_fields(fields, count, year, nanos, fields_taken);
	return parse_syslog(p, end, year, nanos);
}

/*
 * The memo of read_timestamp_fields_memo (timestamp.h).  Why it reads exactly what
 * read_timestamp_fields would: in the forms kept, the seconds are two digits that
 * scan_clock reads as they are, and their fraction the digits after a "." or "," up to
 * the first byte that is not one, floored to nanoseconds by scale_fraction; every other
 * byte of the fields taken is compared with the kept text's.  A text that differs from
 * the kept one only in those digits, as many of them, thus takes every branch that the
 * kept one took, and its instant is days * 86400 + hh * 3600 + mm * 60 - zone + ss
 * seconds plus the fraction: the kept minute's instant plus ss seconds and the
 * fraction, for ss up to 59 (60 is a leap second, the next minute's first instant,
 * which read_timestamp_fields reads) and a minute inside the range (one kept at least
 * MEMO_MARGIN from either end of it).  The fields after those taken decide nothing but
 * whether one more joins: none may after a zone in the clock's field or CLF's "]"; a
 * field shaped as a zone may after a clock that ends its field (join_zone_fields), and
 * after such a zone, when numeric, a zone's name (join_zone); such a field goes to
 * read_timestamp_fields.  A syslog date in one field is read so only without a field
 * after it (with one, read_syslog_fields wants three).  A syslog date's year comes
 * from the year and month carried (struct syslog_year) and its own month, so a date of
 * the kept one's minute, read while the year and month carried are those the kept one
 * left, takes the kept one's year; and read_syslog moves on only the newest date then:
 * the year and month carried change only for a date not older than the newest, which
 * in the kept one's minute is in the month carried (a month ends at a minute's end, so
 * a newest date of another month lies past the whole minute, or before the kept one,
 * which then moved the month carried to its own).  The forms without a clock, and
 * RFC 7231's, are not kept.
 *
 * Over make bench's lines with ISO 8601 times ("2023-11-14T22:13:20.000Z"), the memo
 * reads a timestamp in about 94 instructions, where read_timestamp_fields takes 509
 * (callgrind, swag -t 1 -w 10s avg:2).
 */

/* A minute kept is at least this far inside the range of int64_t nanoseconds. */
#define MEMO_MARGIN (INT64_C(61) * NANOS_PER_SECOND)

/*
 * Keeps in *m the timestamp that read_timestamp_fields read as nanos from fields, taking
 * the first taken of them, when it has a clock; else *m keeps nothing.  year is the
 * struct syslog_year that the reading was given, as it left it.
 */
static void
memo_keep(struct timestamp_memo *m, const struct field *fields, size_t taken,
    const struct syslog_year *year, int64_t nanos)
{
	const char *p = fields[0].text, *c;
	size_t clock, at, end, len, used = 0, digits = 0, chunks;
	uint64_t fraction = 0, varies;
	unsigned second;
	bool syslog = false, inexact;

	m->taken = 0;
	if (taken > TIMESTAMP_MEMO_FIELDS || nanos < INT64_MIN + MEMO_MARGIN ||
	    nanos > INT64_MAX - MEMO_MARGIN)
		return;
	/* Where read_timestamp_fields' forms put the seconds. */
	if (fields[0].len > 4 && (p[4] | 2) == '/') {
		clock = fields[0].len == 10;	/* a date alone: the clock is the next field */
		at = clock ? 6 : 17;		/* hh:mm:ss, or YYYY-MM-DDThh:mm:ss */
	} else if (fields[0].len > 2 && (p[0] == '[' || p[2] == '/')) {
		clock = 0;
		at = p[0] == '[' ? 19 : 18;	/* [dd/Mon/yyyy:hh:mm:ss */
	} else if (fields[0].len == 3 && is_letter(p[0]) && taken == 3) {
		clock = 2;			/* Mon dd hh:mm:ss, three fields */
		at = 6;
		syslog = true;
	} else if (fields[0].len > 3 && is_letter(p[0]) && p[3] != ',' && taken == 1) {
		/* Mon dd hh:mm:ss in one field: the clock is its last blank-separated part. */
		for (at = fields[0].len; at > 0 && !is_blank(p[at - 1]);)
			at--;
		clock = 0;
		at += 6;
		syslog = true;
	} else {
		return;
	}
	if (clock >= taken || (syslog && year == NULL))
		return;
	for (size_t i = 0; i < taken; i++) {
		if (fields[i].len > TIMESTAMP_MEMO_TEXT - used)
			return;
		m->at[i] = (uint8_t)used;
		m->len[i] = (uint8_t)fields[i].len;
		memcpy(m->text + used, fields[i].text, fields[i].len);
		used += fields[i].len;
	}
	c = fields[clock].text;
	len = fields[clock].len;
	if (len < at + 2 || c[at - 1] != ':' || c[at - 4] != ':' || !is_digit(c[at]) ||
	    !is_digit(c[at + 1]))
		return;
	second = (unsigned)(c[at] - '0') * 10 + (unsigned)(c[at + 1] - '0');
	if (second > 59)
		return;
	end = at + 2;
	if (end < len && (c[end] == '.' || c[end] == ',')) {
		while (end + 1 + digits < len && is_digit(c[end + 1 + digits]))
			digits++;
		if (digits == 0)
			return;
		fraction = scale_fraction(c + end + 1, digits, NANOS_PER_SECOND, &inexact);
		end += 1 + digits;
	}
	/*
	 * The clock field's masks: its seconds' and fraction's digits are not compared.
	 * varies has bit i set for byte i of the field (len <= 64), and each chunk's 8 bits
	 * of it are spread to a byte each.
	 */
	varies = UINT64_C(3) << at |
	    (digits > 0 ? ((UINT64_C(1) << digits) - 1) << (at + 3) : 0);
	chunks = (len + 7) / 8;
	for (size_t k = 0; k < chunks; k++) {
		uint64_t bits = varies >> (k + 1 < chunks ? k * 8 : len - 8) & 0xFF;

		bits = (bits | bits << 28) & UINT64_C(0x0000000F0000000F);
		bits = (bits | bits << 14) & UINT64_C(0x0003000300030003);
		bits = (bits | bits << 7) & UINT64_C(0x0101010101010101);
#if !SWAR_LITTLE_ENDIAN
		bits = __builtin_bswap64(bits);
#endif
		m->masks[k] = ~(bits * 0xFF);
	}
	m->join = TIMESTAMP_JOIN_NONE;
	if (syslog && clock == 0) {
		/* With a field after it, a syslog date in one field is read as three. */
		m->join = TIMESTAMP_JOIN_ANY;
	} else if (end == len && p[0] != '[' && !syslog) {
		if (taken == clock + 1)
			m->join = TIMESTAMP_JOIN_ZONE;
		else if (taken == clock + 2 && fields[clock + 1].text[0] != 'Z')
			m->join = TIMESTAMP_JOIN_NAME;
	}
	m->minute = nanos - (int64_t)second * NANOS_PER_SECOND - (int64_t)fraction;
	m->minute_seconds = m->minute / NANOS_PER_SECOND;
	m->syslog = syslog;
	if (syslog) {
		m->syslog_year = year->year;
		m->syslog_month = year->month;
	}
	m->clock = (uint8_t)clock;
	m->seconds_at = (uint8_t)at;
	m->fraction_digits = (uint8_t)digits;
	m->hits = 0;
	m->taken = (uint8_t)taken;
}

/*
 * The longest run of timestamps read by the parser that the memo keeps none of, after
 * kept ones that it read no other timestamp by.  Each timestamp of its own minute (a
 * metric a minute) would otherwise pay for a keep that no reading repays: about 250
 * instructions on top of read_timestamp_fields' 509 (callgrind, ISO 8601 times).
 */
#define MEMO_SKIP_MAX 63

bool
read_timestamp_fields_memo(const struct field *fields, size_t count, enum epoch_unit unit,
    struct syslog_year *year, struct timestamp_memo *memo, int64_t *nanos,
    size_t *fields_taken)
{
	if (timestamp_read_memo(memo, fields, count, year, nanos, fields_taken))
		return true;
	if (!read_timestamp_fields(fields, count, unit, year, nanos, fields_taken))
		return false;
	/*
	 * A kept timestamp that read no other: the next ones are kept after runs of 1, 3,
	 * 7... up to MEMO_SKIP_MAX timestamps, until one kept reads another.
	 */
	if (memo->taken != 0) {
		if (memo->hits > 0) {
			memo->skip = memo->backoff = 0;
		} else {
			memo->skip = memo->backoff;
			memo->backoff = memo->backoff < MEMO_SKIP_MAX / 2 ?
			    memo->backoff * 2 + 1 : MEMO_SKIP_MAX;
		}
		memo->taken = 0;
	}
	if (memo->skip > 0)
		memo->skip--;
	else
		memo_keep(memo, fields, *fields_taken, year, *nanos);
	return true;
}

bool
parse_timestamp_fields(const char *a, size_t alen, const char *b, size_t blen,
    enum epoch_unit unit, int64_t *nanos, size_t *fields_taken)
{
	const char *a_end = a + alen;
	struct field fields[2];

	trim_blanks(&a, &a_end);
	fields[0].text = a;
	fields[0].len = (size_t)(a_end - a);
	if (b != NULL) {
		const char *b_end = b + blen;

		trim_blanks(&b, &b_end);
		fields[1].text = b;
		fields[1].len = (size_t)(b_end - b);
	}
	return read_timestamp_fields(fields, b != NULL ? 2 : 1, unit, NULL, nanos,
	    fields_taken);
}

bool
timestamp_epoch_unit(const char *text, size_t len, enum epoch_unit *unit)
{
	const char *p = text, *end = text + len, *whole;
	size_t digits;
	bool any_digit = false;

	trim_blanks(&p, &end);
	if (p < end && (*p == '+' || *p == '-'))
		p++;
	for (; p < end && *p == '0'; p++)
		any_digit = true;
	whole = p;
	while (p < end && is_digit(*p))
		p++;
	digits = (size_t)(p - whole);
	any_digit |= digits > 0;
	if (p < end && *p == '.')
		for (p++; p < end && is_digit(*p); p++)
			any_digit = true;
	if (p != end || !any_digit)
		return false;
	/* Below 1e11, 11 digits at the most, seconds; below 1e14 milliseconds... */
	*unit = digits <= 11 ? EPOCH_SECONDS : digits <= 14 ? EPOCH_MILLISECONDS :
	    digits <= 17 ? EPOCH_MICROSECONDS : EPOCH_NANOSECONDS;
	return true;
}

bool
epoch_exceeds_1e11_seconds(const char *text, size_t len, enum epoch_unit unit)
{
	/* 1e11 s in each unit is a 1 followed by this many zeros. */
	static const size_t threshold_zeros[] = {
		[EPOCH_SECONDS] = 11,
		[EPOCH_MILLISECONDS] = 14,
		[EPOCH_MICROSECONDS] = 17,
		[EPOCH_NANOSECONDS] = 20,
	};
	const char *p = text, *end = text + len;
	const char *whole;
	size_t whole_count, threshold_count;
	bool fraction_nonzero = false;

	if ((unsigned)unit > EPOCH_NANOSECONDS)
		return false;
	trim_blanks(&p, &end);
	if (p < end && *p == '+')
		p++;
	while (p < end && *p == '0')
		p++;
	/* The significant whole digits, compared with the threshold's by length, then text. */
	whole = p;
	while (p < end && is_digit(*p))
		p++;
	whole_count = (size_t)(p - whole);
	if (p < end && *p == '.') {
		for (p++; p < end && is_digit(*p); p++)
			fraction_nonzero |= *p != '0';
	}
	if (p != end || whole_count == 0)
		return false;
	threshold_count = threshold_zeros[unit] + 1;
	if (whole_count != threshold_count)
		return whole_count > threshold_count;
	if (whole[0] != '1' || fraction_nonzero)
		return true;
	for (size_t i = 1; i < whole_count; i++)
		if (whole[i] != '0')
			return true;
	return false;
}

/*
 * The date that opens text[p..end), its numbers read whatever their ranges: ISO 8601's
 * or its slashed form's, CLF's (after an optional bracket, before ':') or RFC 7231's
 * (after a day's name, before a blank).  Returns false for any other text.
 */
static bool
date_numbers(const char *p, const char *end, int *year, int *month, int *day)
{
	const char *q = p;

	if (scan_iso_date_numbers(&q, end, year, month, day))
		return q == end || !is_digit(*q);
	if (end - q >= 5 && is_letter(q[0]) && is_letter(q[1]) && is_letter(q[2]) &&
	    q[3] == ',' && q[4] == ' ') {
		q += 5;
		return scan_http_date_numbers(&q, end, year, month, day) &&
		    scan_char(&q, end, ' ');
	}
	if (q < end && *q == '[')
		q++;
	return scan_clf_date_numbers(&q, end, year, month, day) && scan_char(&q, end, ':');
}

bool
timestamp_date_problem(const char *text, size_t len, char *hint, size_t size)
{
	static const char *const month_names[12] = {
		"January", "February", "March", "April", "May", "June", "July",
		"August", "September", "October", "November", "December",
	};
	/*
	 * int64_t nanoseconds span 1677-09-21T00:12:43Z to 2262-04-11T23:47:16Z; a zone
	 * may move a date's times by a day or so, so only days further out are surely
	 * outside.
	 */
	const int64_t first_day = days_from_civil(1677, 9, 21) - 2;
	const int64_t last_day = days_from_civil(2262, 4, 11) + 2;
	const char *p = text, *end = text + len;
	int year, month, day;
	int64_t days;

	trim_blanks(&p, &end);
	if (!date_numbers(p, end, &year, &month, &day))
		return false;
	if (month < 1 || month > 12) {
		snprintf(hint, size, "there is no month %d", month);
		return true;
	}
	if (!is_real_date(year, month, day)) {
		snprintf(hint, size, "%s %04d has no day %d", month_names[month - 1], year, day);
		return true;
	}
	days = days_from_civil(year, month, day);
	if (days >= first_day && days <= last_day)
		return false;
	snprintf(hint, size, "outside swag's range, the years 1677 to 2262");
	return true;
}
