/*
 * timestamp.h: reading a record's timestamp, and a window's duration, as integer
 * nanoseconds.
 *
 * Time windows compare t - D < t' <= t exactly (swag(1), WINDOWS), so every
 * timestamp and every duration is an int64_t count of nanoseconds, never a double.  That
 * covers 1677-09-21T00:12:43.145224192Z to 2262-04-11T23:47:16.854775807Z; anything
 * outside is refused rather than wrapped.
 *
 * The parsers never call strptime, mktime or timegm and never read TZ or the locale: the
 * same text gives the same instant on every machine.  They allocate nothing, need no NUL
 * terminator, and refuse any text holding a byte outside their grammar (a NUL included).
 * "Blank" below means a space or a TAB, as in parse_number.
 */
#ifndef SWAG_TIMESTAMP_H
#define SWAG_TIMESTAMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"
#include "swar.h"

#define NANOS_PER_SECOND INT64_C(1000000000)

/* 10^0 to 10^9: the nanoseconds of a digit of a second's fraction, from the 9th up. */
static const uint64_t timestamp_powers_of_ten[10] = {
	1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000
};

/* The unit of an epoch number, chosen by --epoch-unit. */
enum epoch_unit {
	EPOCH_SECONDS,
	EPOCH_MILLISECONDS,
	EPOCH_MICROSECONDS,
	EPOCH_NANOSECONDS
};

/* An instant's date and time of day (UTC), in the proleptic Gregorian calendar. */
struct civil_time {
	int64_t year;
	int month, day;		/* 1-12, 1-31 */
	int second_of_day;	/* 0-86399 */
};

/*
 * Stores the date and time of day of the instant that is seconds since
 * 1970-01-01T00:00:00Z (negative before it) in *civil.
 */
void civil_from_seconds(int64_t seconds, struct civil_time *civil);

/* Nanoseconds in one unit of each enum epoch_unit. */
extern const uint64_t nanos_per_epoch_unit[EPOCH_NANOSECONDS + 1];

/*
 * Parses text[0..len) as one timestamp.  Blanks around it are ignored.  The forms:
 *
 *   epoch     [+-]? digits ("." digits?)? | [+-]? "." digits       in the given unit
 *             1732933736   1732933736.25   -5.5   (no exponent, no hex)
 *   ISO 8601  YYYY-MM-DD ([Tt ] hh:mm (:ss ([.,] digits)?)? zone?)?
 *             zone := Z | z | +hh | +hhmm | +hh:mm   (or - for +)
 *             2026-11-30   2026-11-30T02:28:56Z   2026-11-30 02:28:56.250+01:00
 *             2026-11-30T02:28   2026-11-30 02:28+01:00
 *             "/" may stand for both "-" of the date: 2026/11/30 12:00:03
 *             and the zone may follow the time after a space, a numeric one then maybe
 *             a space and a zone's name (2 to 5 capitals), which says nothing more:
 *             2026-11-30 12:00:01 +0100   2026-11-30 12:00:01.123 +0100 CET
 *   CLF       "[" dd/Mon/yyyy:hh:mm:ss ([.,] digits)? (" " zone)? "]", brackets optional
 *             [30/Nov/2026:02:28:56 +0000]   30/Nov/2026:02:28:56 +0000
 *   RFC 7231  Ddd, dd Mon yyyy hh:mm:ss GMT (or UTC, or RFC 5322's +hhmm), the day's
 *             name not checked:  Sun, 30 Nov 2026 12:00:01 GMT
 *
 * Ranges are checked: month 1-12, day 1 to the month's length (Gregorian leap years),
 * hour 0-23, minute 0-59, second 0-60, zone hours 0-23 and minutes 0-59.  A date alone
 * means its midnight; no zone means UTC.  The month names are English, in any case.
 *
 * Decisions the man page states (swag(1), TIMESTAMPS):
 *   - Precision: digits finer than a nanosecond are dropped by rounding toward the past
 *     (floor), in every form.  For an ISO fraction that is plain truncation; for a
 *     negative epoch it rounds away from zero ("-0.0000000001" is -1 ns), so that an
 *     instant written as an epoch and as a date gives the same nanosecond.
 *   - A leap second, hh:mm:60, is accepted and counts as the next minute's first
 *     instant, its fraction dropped, as POSIX time (which has no leap seconds) would count
 *     it: 23:59:60.5 is then not after the 00:00:00.1 that follows it.
 *   - "," may stand for "." before a fraction, as ISO 8601 allows and Python's logging
 *     and log4j write ("2026-11-30 02:28:56,123"); "+hh" is a zone, as PostgreSQL writes.
 *   - Seconds may be left out in the ISO form, "2026-11-30T02:28" being 02:28:00, but a
 *     fraction needs them ("02:28.5" is refused); hour 24 is refused.  CLF always has
 *     seconds.
 *   - A CLF zone is optional (UTC without one) and may take any form of zone above.
 *
 * A syslog date (Nov 30 12:00:01) has no year: parse_timestamp refuses it, and
 * read_timestamp_fields reads it.
 *
 * On success stores the nanoseconds since 1970-01-01T00:00:00Z in *nanos and returns
 * true.  On failure (text outside the grammar, a date or time out of range, an instant
 * outside int64_t nanoseconds, or unit not an enum epoch_unit) returns false and leaves
 * *nanos untouched.
 */
bool parse_timestamp(const char *text, size_t len, enum epoch_unit unit, int64_t *nanos);

/*
 * Parses text[0..len) as a window duration: one or more parts, each a number without
 * sign or exponent (digits ("." digits?)? | "." digits) followed at once by a unit, the
 * parts' units each named once and from the longest down.  The units, in lower case:
 * "w" (a week), "d", "h", "m" or "min", "s" or "sec", "ms", "us", "ns".  Blanks around
 * it are ignored: "250ms", "30s", "1.5m", "5min", "90sec", "1h30m", "2h45m30s", "1w",
 * "500us".  Digits finer than a nanosecond are dropped ("1.0000000009s" is 1 s).
 *
 * On success stores the duration in nanoseconds, always > 0, in *nanos and returns true.
 * Returns false, leaving *nanos untouched, for anything else: a bare number ("5", which
 * the caller reads as a row count), a part without a unit ("1m30"), an unknown unit, units
 * out of order or repeated ("30s1m", "1h1h", "1m1min"), a sign, blanks inside, a
 * duration that is 0 once truncated to nanoseconds, or one above INT64_MAX nanoseconds
 * (about 292 years).
 */
bool parse_duration(const char *text, size_t len, int64_t *nanos);

/*
 * Whitespace input splits "2026-11-30 02:28:56" and "[30/Nov/2026:02:28:56 +0000]" into
 * two fields each.  Returns true when text[0..len) (blanks around it ignored) can open such
 * a pair: a valid date alone, "YYYY-MM-DD" or "YYYY/MM/DD", or an opening bracket and a
 * valid CLF date and time without zone or closing bracket, "[30/Nov/2026:02:28:56".
 * Returns false otherwise.
 * A date opens a pair only when a time follows it: see parse_timestamp_fields.
 */
bool timestamp_is_first_half(const char *text, size_t len);

/*
 * Returns true when text[0..len) (blanks around it ignored) is shaped like the time of a
 * date-and-time pair, whether or not its numbers are in range: either it begins as a
 * time does, h:mm or hh:mm, whatever follows; or it is digits and colons, as h:m, h:m:s
 * or more groups with any number of digits each, then optionally "." or "," and digits,
 * then optionally a zone shaped as Z, z, or "+" or "-", digits, and optionally ":" and
 * digits:
 *
 *   shaped      02:28   02:28:56   02:28:56.250Z   03:28:56+01:00   25:00:00   2:28   12:60
 *               1:2:3:4   09:15:02:123   12:00:01PM   02:28:56x
 *   not shaped  10   10.5   -3   GET   02   02:   :28   T02:28:56   2001:db8::1   00:1a:2b
 *               52:54:00:12:34:56 (a MAC address, six pairs of hex digits)
 *
 * Every time that parse_timestamp_pair reads is shaped; what else is shaped is a time
 * written wrong (log4j's HH:mm:ss:SSS, a 12-hour clock's PM), which must not pass
 * silently for a date's midnight.
 */
bool timestamp_is_time_shaped(const char *text, size_t len);

/*
 * Parses the two fields a[0..alen) and b[0..blen) of a pair (blanks around each ignored)
 * as one timestamp.  The pairs:
 *
 *   a = YYYY-MM-DD               b = hh:mm (:ss ([.,] digits)?)? zone?
 *   a = [dd/Mon/yyyy:hh:mm:ss    b = zone "]"
 *
 * with the ranges and decisions of parse_timestamp.  Stores the nanoseconds since the epoch
 * in *nanos and returns true, or returns false leaving *nanos untouched.  Whether b belongs
 * to a at all is parse_timestamp_fields' decision, which whitespace input should use.
 */
bool parse_timestamp_pair(const char *a, size_t alen, const char *b, size_t blen,
    int64_t *nanos);

/*
 * read_timestamp_fields of the two fields a[0..alen) and b[0..blen) (b NULL when there is
 * none), blanks around each ignored, without syslog dates.  The two fields make one
 * timestamp when
 *
 *   - a is a date alone (YYYY-MM-DD, YYYY/MM/DD) and b is shaped like a time
 *     (timestamp_is_time_shaped):
 *     "2026-11-30" "02:28:56", read as parse_timestamp_pair reads them; a time shaped but
 *     invalid ("25:00:00", "12:60", "12:00:61") makes the timestamp unreadable;
 *   - a opens a bracket that it does not close ("[30/Nov/2026:02:28:56"): b must close it
 *     with its zone ("+0000]"), or the timestamp is unreadable;
 *   - a is a date and time without a zone ("2026-11-30T02:28:56", or CLF's without
 *     brackets, "30/Nov/2026:02:28:56") and b is shaped as a zone, as
 *     read_timestamp_fields says.
 *
 * Otherwise a is read alone, as parse_timestamp reads it, and b is none of the timestamp's
 * business: "2026-11-30" "10" is the date's midnight (UTC), 10 being an ordinary field.
 *
 * Stores in *fields_taken the number of fields the timestamp took, 1 or 2, whether it
 * could be read or not.  On success stores the nanoseconds since the epoch in *nanos and
 * returns true; when the timestamp cannot be read returns false, leaving *nanos untouched.
 */
bool parse_timestamp_fields(const char *a, size_t alen, const char *b, size_t blen,
    enum epoch_unit unit, int64_t *nanos, size_t *fields_taken);

/*
 * The year of syslog dates, which have none, carried from one date of a run to the next.
 * year is --year's, or 0 until the first date sets it from now: the latest year that has
 * the date and puts it at most a day ahead of now (UTC), the next one, this one or the
 * last (for Feb 29, the latest leap year).
 * After that, a date whose month is more than six months before the newest date's
 * (December, then January) moves the year on by one, and one more than six months
 * after it (December after January) is a late line of the year before.  Only a date
 * not older than the newest moves year and month on: a stray line that goes backwards
 * (February after July) leaves them to the newest, whose month is month, 0 before the
 * first.
 */
struct syslog_year {
	int year;
	int month;
	int64_t newest;		/* the newest date, seconds since the epoch */
	int64_t now;		/* seconds since the epoch */
};

/*
 * Reads the timestamp of blank-separated input as swag -t does: fields[0] is the
 * timestamp's field, fields[1..count) those after it (count >= 1), none with blanks
 * around it.  A following field joins the timestamp only when it is shaped as the part
 * it would be:
 *
 *   - after a date alone (YYYY-MM-DD or YYYY/MM/DD), a field shaped as a time
 *     (timestamp_is_time_shaped); "25:00:00" or "12:60" so shaped make the timestamp
 *     unreadable, any other field leaves the date alone, its midnight (UTC);
 *   - after a time without a zone (in its own field or in the date's, ISO 8601's or
 *     CLF's without its brackets, "30/Nov/2026:02:28:56"), a field shaped
 *     as a zone: exactly Z, +hhmm, -hhmm, +hh:mm or -hh:mm ("-12" is a value), out of
 *     range ("+2500") making the timestamp unreadable; after a numeric zone, a zone's
 *     name (2 to 5 capitals, CET) joins and says nothing more;
 *   - after "[" and a CLF date and time, the next field must close it with its zone;
 *   - after a month's name, a day (one or two digits) and then a time (hh:mm:ss, maybe
 *     a fraction): a syslog date, in the year *year carries (NULL: refused).
 *
 * A field alone is read as parse_timestamp reads it, and a syslog date in one field
 * ("Nov  3 02:00:01", from CSV) too.  Stores in *fields_taken the number of fields the
 * timestamp took (1 to 4), whether it could be read or not.  On success stores the
 * nanoseconds since the epoch in *nanos and returns true; when the timestamp cannot be
 * read returns false, leaving *nanos untouched.
 */
bool read_timestamp_fields(const struct field *fields, size_t count, enum epoch_unit unit,
    struct syslog_year *year, int64_t *nanos, size_t *fields_taken);

/* Whether c is a decimal digit. */
static inline bool
timestamp_is_digit(char c)
{
	return (unsigned)(c - '0') <= 9;
}

/*
 * True when p[0..len) is shaped as a zone standing in a field of its own: Z, or "+" or
 * "-" and four digits or two digits, ":" and two digits, whether or not the numbers are
 * in range.  A bare "-12" is no zone: it is a value.
 */
static inline bool
timestamp_is_zone_shaped(const char *p, size_t len)
{
	/* One test turns most fields away: '+' | 6 and '-' | 6 are '/', a digit's is not. */
	if (len == 0 || (p[0] | 6) != '/')
		return len == 1 && p[0] == 'Z';
	if ((len != 5 && len != 6) || (p[0] != '+' && p[0] != '-') ||
	    !timestamp_is_digit(p[1]) || !timestamp_is_digit(p[2]))
		return false;
	if (len == 5)
		return timestamp_is_digit(p[3]) && timestamp_is_digit(p[4]);
	return p[3] == ':' && timestamp_is_digit(p[4]) && timestamp_is_digit(p[5]);
}

/* True when p[0..len) is shaped as a zone's name: two to five capitals (CET, UTC, AEDT). */
static inline bool
timestamp_is_zone_name(const char *p, size_t len)
{
	if (len < 2 || len > 5)
		return false;
	for (size_t i = 0; i < len; i++)
		if (p[i] < 'A' || p[i] > 'Z')
			return false;
	return true;
}

/*
 * What timestamp_read_memo keeps of the last timestamp with a clock that
 * read_timestamp_fields read (ISO 8601 with seconds, in one field or a date's two, CLF,
 * and a syslog date in its three fields or one; not an epoch or RFC 7231's form): the
 * fields it took, as they were, where the seconds' two digits and their fraction's
 * digits stand in them, the instant of the same text at second 00 with no fraction, and
 * whether a next field may join the timestamp; for a syslog date, the year and month
 * that struct syslog_year carried after it, which its reading needs again.  A log's
 * timestamps mostly differ from the last one's in those digits alone, for a minute at
 * a time.  Start it with TIMESTAMP_MEMO_START.
 */
#define TIMESTAMP_MEMO_TEXT 64
#define TIMESTAMP_MEMO_FIELDS 4
struct timestamp_memo {
	int64_t minute;			/* the instant at second 00, no fraction */
	int64_t minute_seconds;		/* the same in seconds, for a syslog date's newest
					   date without a division a record */
	uint64_t masks[TIMESTAMP_MEMO_TEXT / 8];	/* the clock field's bytes compared */
	uint8_t taken;			/* the fields taken; 0: nothing kept */
	uint8_t clock;			/* the field of the seconds */
	uint8_t seconds_at;		/* where the seconds' two digits start in it */
	uint8_t fraction_digits;	/* after the seconds' "." or ","; 0 without */
	uint8_t join;			/* an enum timestamp_join: what a next field may be */
	uint8_t skip, backoff;		/* timestamps not to keep (timestamp.c) */
	uint32_t hits;			/* timestamps read since it was kept */
	bool syslog;			/* a syslog date, read in syslog_year's year */
	int syslog_year, syslog_month;	/* struct syslog_year's after it */
	uint8_t len[TIMESTAMP_MEMO_FIELDS];
	uint8_t at[TIMESTAMP_MEMO_FIELDS];	/* each field's start in text */
	char text[TIMESTAMP_MEMO_TEXT];
};

#define TIMESTAMP_MEMO_START ((struct timestamp_memo){ .taken = 0 })

/* Which field after those taken would join a timestamp kept (read_timestamp_fields). */
enum timestamp_join {
	TIMESTAMP_JOIN_NONE,	/* none: a zone in the clock's field, or CLF's "]" */
	TIMESTAMP_JOIN_ZONE,	/* one shaped as a zone, after a clock that ends its field */
	TIMESTAMP_JOIN_NAME,	/* a zone's name, after a numeric zone in a field of its own */
	TIMESTAMP_JOIN_ANY	/* any: a syslog date in one field is read as three then */
};

/*
 * Whether a[0..len) and b[0..len) agree in the bytes that masks keep (0xFF), a mask for
 * each 8 bytes from the start and one for the last 8 (len >= 8); masks NULL: all bytes.
 * Reads nothing outside the two.
 */
static inline bool
timestamp_memo_same(const char *a, const char *b, size_t len, const uint64_t *masks)
{
	const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
	size_t i, k = 0;

	if (len < 8) {
		for (i = 0; i < len; i++)
			if (x[i] != y[i])
				return false;
		return true;
	}
	for (i = 0; i + 8 < len; i += 8, k++)
		if (((load_u64(x + i) ^ load_u64(y + i)) &
		    (masks != NULL ? masks[k] : ~UINT64_C(0))) != 0)
			return false;
	return ((load_u64(x + len - 8) ^ load_u64(y + len - 8)) &
	    (masks != NULL ? masks[k] : ~UINT64_C(0))) == 0;
}

/*
 * Reads fields[0..count) as read_timestamp_fields would, in the year *year carries
 * (moved on as it would move it), when they differ from the timestamp *m keeps only in
 * its seconds (00 to 59) and their fraction's digits, as many of them, no next field
 * would join, and for a syslog date *year carries the year and month it carried after
 * the one kept: stores the nanoseconds since the epoch in *nanos and the fields taken in
 * *fields_taken and returns true.  Returns false, storing nothing, for
 * read_timestamp_fields to decide (timestamp.c says why the two agree).  Inline, for
 * the timestamps stage's loop.
 */
static inline bool
timestamp_read_memo(struct timestamp_memo *m, const struct field *fields,
    size_t count, struct syslog_year *year, int64_t *nanos, size_t *fields_taken)
{
	const char *c;
	size_t i, at = m->seconds_at, taken = m->taken, digits = m->fraction_digits;
	uint64_t fraction = 0;
	unsigned tens, ones;

	if (taken == 0 || count < taken)
		return false;
	for (i = 0; i < taken; i++)
		if (fields[i].len != m->len[i] || (i != m->clock &&
		    !timestamp_memo_same(fields[i].text, m->text + m->at[i], m->len[i], NULL)))
			return false;
	c = fields[m->clock].text;
	if (!timestamp_memo_same(c, m->text + m->at[m->clock], m->len[m->clock], m->masks))
		return false;
	tens = (unsigned)(c[at] - '0');
	ones = (unsigned)(c[at + 1] - '0');
	if (tens > 5 || ones > 9)
		return false;
#if SWAR_LITTLE_ENDIAN
	if (digits - 1 < 8) {
		/* The 8 bytes that end with the fraction, those before it made zeros. */
		uint64_t word = (load_u64((const unsigned char *)c + at + 3 + digits - 8) ^
		    SWAR_ZEROS) & (~UINT64_C(0) << (8 * (8 - digits)));

		if (swar_nondigits(word) != 0)
			return false;
		fraction = swar_digits_value(word) * timestamp_powers_of_ten[9 - digits];
	} else
#endif
	{
		for (i = 0; i < digits; i++) {
			unsigned digit = (unsigned)(c[at + 3 + i] - '0');

			if (digit > 9)
				return false;
			if (i < 9)
				fraction = fraction * 10 + digit;
		}
		if (digits < 9)
			fraction *= timestamp_powers_of_ten[9 - digits];
	}
	if (count > taken && (m->join == TIMESTAMP_JOIN_ZONE ?
	    timestamp_is_zone_shaped(fields[taken].text, fields[taken].len) :
	    m->join == TIMESTAMP_JOIN_NAME ?
	    timestamp_is_zone_name(fields[taken].text, fields[taken].len) :
	    m->join == TIMESTAMP_JOIN_ANY))
		return false;
	if (m->syslog) {
		int64_t seconds = m->minute_seconds + (int64_t)(tens * 10 + ones);

		if (year == NULL || year->year != m->syslog_year || year->month != m->syslog_month)
			return false;
		/* The newest date, and no older one, carries the year on: here its second. */
		if (seconds >= year->newest)
			year->newest = seconds;
	}
	*nanos = m->minute + (int64_t)(tens * 10 + ones) * NANOS_PER_SECOND + (int64_t)fraction;
	*fields_taken = taken;
	m->hits++;
	return true;
}

/*
 * read_timestamp_fields, with the same arguments and results, through *memo: what
 * timestamp_read_memo reads, it reads so; anything else read_timestamp_fields reads,
 * and *memo keeps, but that after kept timestamps that no other was read by, it keeps
 * fewer (a metric a minute pays for no keep that no reading repays).
 */
bool read_timestamp_fields_memo(const struct field *fields, size_t count,
    enum epoch_unit unit, struct syslog_year *year, struct timestamp_memo *memo,
    int64_t *nanos, size_t *fields_taken);

/*
 * What timestamp_read_epoch_words keeps of the last epoch number it read: its first 8
 * bytes, as they are in memory, and their value (a stream's timestamps mostly share
 * them: an epoch in seconds or milliseconds for 100 s), and its shape, which the
 * stream's next timestamps mostly share too (the same length, the point at the same
 * place), with what reads a text of that shape and those first 8 bytes in a few word
 * operations, in the unit of the last text.  Start it with EPOCH_WORDS_START, and again
 * when the unit changes.
 */
struct epoch_words {
	uint64_t head;
	uint64_t value;
	size_t shape;		/* the length, or EPOCH_NO_SHAPE */
	uint64_t pattern;	/* '0' in each byte of the last 8, '.' in the point's */
	uint64_t limits;	/* 0x76 in each byte, 0x7F in the point's (see swar.h) */
	uint64_t mask;		/* the last 8 bytes' that are not among the first 8 */
	uint64_t high;		/* the last 8 bytes' above the point (all, without one) */
	uint64_t low;		/* those below the point (none without one) */
	uint64_t base;		/* the nanoseconds of the first 8 bytes' digits */
	uint64_t scale;		/* the nanoseconds of the last digit */
};

/* No shape: no text is SIZE_MAX bytes long. */
#define EPOCH_NO_SHAPE SIZE_MAX

/* "00000000", worth 0, and no shape. */
#define EPOCH_WORDS_START ((struct epoch_words){ .head = 0x3030303030303030U, \
	.shape = EPOCH_NO_SHAPE })

/* The lengths that timestamp_read_epoch_words reads, a bit per length: 9 to 16. */
#define EPOCH_WORDS_LENGTHS ((uint64_t)0xFF << 9)

#if SWAR_LITTLE_ENDIAN
/*
 * Reads text[0..len) as read_timestamp_fields would when it is the common epoch number:
 * 9 to 16 bytes, the first 8 digits, then digits and maybe one point, with no more
 * decimals than the unit has below it (1700000000.010 in seconds, 1700000000010 in
 * milliseconds), unit being one of enum epoch_unit's.  Such a text is no other form's,
 * takes one field and is read exactly.  *last holds what the reader kept of an earlier
 * text read in the same unit (EPOCH_WORDS_START when the unit changes), and is given
 * this text's.
 * Stores the nanoseconds since the epoch in *nanos and returns true, or returns false
 * for read_timestamp_fields to decide.  Forced inline (the timestamps stage reads
 * from two loops, and a call costs 11 instructions a record) and without a loop.
 *
 * A text of the last one's shape and first 8 bytes is read by its last 8 alone: XORed
 * with the shape's pattern, its digits become their values and its point a zero, so
 * that one test finds it all digits with the point in its place (swar_nondigits', but
 * adding 0x7F in the point's byte, where any byte but 0 is refused: a '/' there, 1
 * after the XOR, is no digit); the
 * point goes (the digits below it move up over it), and the digits' value times the
 * shape's scale, plus the nanoseconds of the first 8 bytes, is the instant.  The shape
 * is kept only when no text of it can overflow, so this path tests nothing more:
 * 33 instructions a record for 1700000000.010 where the general path below takes 86
 * (callgrind, -t 1 -w 10s avg:2 over make bench's lines).
 *
 * Any other text takes the general path: a word of the first 8 bytes (its value
 * *last's when the bytes are) and one of the last 8, whose bytes shared with the first
 * become leading zeros; the point, the one non-digit left, is taken out by moving the
 * digits before it up a byte, and the two words make one number of all the digits,
 * scaled by the unit.  It then keeps the text's shape.
 */
static inline __attribute__((always_inline)) bool
timestamp_read_epoch_words(const char *text, size_t len, enum epoch_unit unit,
    struct epoch_words *last, int64_t *nanos)
{
	const uint64_t *powers_of_ten = timestamp_powers_of_ten;
	size_t point = 8, unit_decimals, digits, decimals = 0;
	uint64_t head, tail, flags, total, mask, high = ~(uint64_t)0, low = 0, scale, top;

	/* The last text's shape and first 8 bytes: len is 9 to 16, the first 8 digits. */
	if (__builtin_expect(len == last->shape, 1) &&
	    __builtin_expect(load_u64((const unsigned char *)text) == last->head, 1)) {
		tail = (load_u64((const unsigned char *)text + len - 8) ^ last->pattern) &
		    last->mask;
		if (__builtin_expect((((tail + last->limits) | tail) &
		    0x8080808080808080U) == 0, 1)) {
			tail = (tail & last->high) | (tail & last->low) << 8;
			*nanos = (int64_t)(last->base + swar_digits_value(tail) * last->scale);
			return true;
		}
	}
	/* Dates ("dddd-", "dddd/"; '-' | 2 is '/') are told at once, as in the parser. */
	if (len - 9 > 16 - 9 || (text[4] | 2) == '/')
		return false;
	head = load_u64((const unsigned char *)text);
	if (head != last->head) {
		if (swar_nondigits(head ^ SWAR_ZEROS) != 0)
			return false;
		last->head = head;
		last->value = swar_digits_value(head ^ SWAR_ZEROS);
		last->shape = EPOCH_NO_SHAPE;	/* its base was the old head's */
	}
	unit_decimals = 9 - 3 * (size_t)unit;
	digits = len - 8;
	mask = ~(uint64_t)0 << (8 * (16 - len));
	tail = (load_u64((const unsigned char *)text + len - 8) ^ SWAR_ZEROS) & mask;
	if ((flags = swar_nondigits(tail)) != 0) {
		/* A point's flag comes alone: '.' ^ '0' carries into no neighbour (swar.h). */
		point = (size_t)__builtin_ctzll(flags) / 8;
		decimals = 7 - point;
		if (flags != (uint64_t)0x80 << (8 * point) ||
		    (tail >> (8 * point) & 0xFF) != ('.' ^ '0') || decimals > unit_decimals)
			return false;
		/* The digits before the point move up over it (two shifts: 64 is undefined). */
		high = (~(uint64_t)0 << 8) << (8 * point);
		low = ((uint64_t)1 << (8 * point)) - 1;
		tail = (tail & high) | (tail & low) << 8;
		digits--;
	}
	/* All the digits as one number, scaled by the decimals the unit has beyond them. */
	scale = powers_of_ten[unit_decimals - decimals];
	top = last->value * powers_of_ten[digits];
	if (__builtin_mul_overflow(top + swar_digits_value(tail), scale, &total) ||
	    total > INT64_MAX)
		return false;
	*nanos = (int64_t)total;
	/* The shape, when its largest text does not overflow (top has at most 16 digits). */
	if (__builtin_mul_overflow(top + powers_of_ten[digits] - 1, scale, &total) ||
	    total > INT64_MAX)
		return true;
	last->shape = len;
	last->pattern = SWAR_ZEROS ^ (point < 8 ? (uint64_t)('.' ^ '0') << (8 * point) : 0);
	last->limits = 0x7676767676767676U | (point < 8 ? (uint64_t)0x7F << (8 * point) : 0);
	last->mask = mask;
	last->high = high;
	last->low = low;
	last->base = top * scale;
	last->scale = scale;
	return true;
}
#else
/* Big-endian machines leave every timestamp to read_timestamp_fields. */
static inline bool
timestamp_read_epoch_words(const char *text, size_t len, enum epoch_unit unit,
    struct epoch_words *last, int64_t *nanos)
{
	(void)text, (void)len, (void)unit, (void)last, (void)nanos;
	return false;
}
#endif

/*
 * Returns true when text[0..len) (blanks around it ignored) is shaped as an epoch number,
 * [+-]? digits ("." digits?)? | [+-]? "." digits, storing in *unit the unit its size says
 * (swag(1), TIMESTAMPS): below 1e11 seconds, below 1e14 milliseconds, below 1e17
 * microseconds, else nanoseconds.  Returns false otherwise, leaving *unit untouched.
 */
bool timestamp_epoch_unit(const char *text, size_t len, enum epoch_unit *unit);

/*
 * Words why a text that is not a timestamp but opens with a date (blanks around it
 * ignored) cannot be one, where the date alone says so: a month that does not exist
 * ("there is no month 13"), a day its month lacks ("February 2027 has no day 29"), or
 * a date more than a day or so outside the instants swag reads, int64_t nanoseconds
 * from the epoch ("outside swag's range, the years 1677 to 2262").  The dates are
 * ISO 8601's and its slashed form's, CLF's and RFC 7231's (not syslog's, whose year
 * is inferred).  Writes the words into hint[0..size) and returns true, or returns
 * false when the text opens with no such date or its date is a real one in range.
 */
bool timestamp_date_problem(const char *text, size_t len, char *hint, size_t size);

/*
 * Returns true when text[0..len) is an epoch number, as parse_timestamp reads it in the
 * given unit, whose value is above 1e11 seconds.  Such a number is probably in another
 * unit (swag(1), TIMESTAMPS, asks for a warning); it is also past 2262, so
 * parse_timestamp refuses it, and this is how the caller tells that case from plain
 * garbage.  Returns false for anything else, negative numbers and dates included.
 */
bool epoch_exceeds_1e11_seconds(const char *text, size_t len, enum epoch_unit unit);

#endif /* SWAG_TIMESTAMP_H */
