/*
 * agg.c: finding an aggregate by the name a user typed.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "agg.h"
#include "agg_distinct.h"
#include "agg_mode.h"
#include "agg_quantile.h"
#include "numparse.h"

static const struct {
	const char *name;
	const struct agg_kind *kind;
} agg_names[] = {
	{ "avg", &agg_avg },
	{ "count", &agg_count },
	{ "delta", &agg_delta },
	{ "distinct", &agg_distinct },
	{ "ewma", &agg_ewma },
	{ "first", &agg_first },
	{ "last", &agg_last },
	{ "max", &agg_max },
	{ "mean", &agg_avg },
	{ "median", &agg_quantile },
	{ "min", &agg_min },
	{ "mode", &agg_mode },
	{ "rate", &agg_rate },
	{ "stddev", &agg_stddev },
	{ "sum", &agg_sum },
	{ "var", &agg_var },
};

/* The most significant digits of N that percentile_of keeps (see there). */
#define PERCENTILE_DIGITS_MAX 800

/*
 * The double nearest to N / 100, rounded once (N / 100 in doubles rounds N first):
 * text, the digits of N with at most one point (parse_percentile checks them), goes
 * to parse_number as an integer of
 * its significant digits and a power of ten, the point moved two places left.  Past
 * PERCENTILE_DIGITS_MAX significant digits only whether the rest is all zeros can
 * matter to the rounding, since no half-way point between two doubles has more than
 * 767: the rest is kept as one digit 1 after the last (or dropped, if all zeros).
 */
static double
percentile_of(const char *text, size_t len)
{
	char number[PERCENTILE_DIGITS_MAX + 32];
	size_t digits = 0;
	long long exponent = -2;
	bool point = false, rest = false;
	double q = 0.0;

	for (size_t i = 0; i < len; i++) {
		if (text[i] == '.') {
			point = true;
		} else if (digits == PERCENTILE_DIGITS_MAX) {
			/* N <= 100: a digit past the limit lies after the point. */
			rest |= text[i] != '0';
		} else {
			exponent -= point;
			if (digits > 0 || text[i] != '0')
				number[digits++] = text[i];
		}
	}
	if (digits == 0)
		return 0.0;
	if (rest) {
		number[digits++] = '1';
		exponent--;
	}
	digits += (size_t)snprintf(number + digits, sizeof(number) - digits, "e%lld", exponent);
	(void)parse_number(number, digits, &q);
	return q;
}

/*
 * Reads the N of a percentile name pN: digits with at most one decimal point
 * (99, 99.9, 0.5, 100), from 0 to 100.  Returns true and stores N / 100 in params:
 * the double nearest to it, and with at most AGG_PERCENTILE_DECIMALS decimals
 * (trailing zeros aside) exactly too, a fraction whose denominator is a power of ten, from which
 * quantile_rank works h out exactly (p14 of 51 values is x[7], where 50 * 0.14 rounds
 * to 7.000000000000001).  More decimals keep the double alone, from which
 * quantile_rank works h out exactly too.
 */
static bool
parse_percentile(const char *text, size_t len, struct agg_params *params)
{
	const char *point = memchr(text, '.', len), *end = text + len, *d;
	size_t digits = 0, points = 0;
	uint64_t num = 0;
	uint8_t scale = 2;
	double q;

	for (size_t i = 0; i < len; i++) {
		if (text[i] == '.')
			points++;
		else if (text[i] >= '0' && text[i] <= '9')
			digits++;
		else
			return false;
	}
	if (digits == 0 || points > 1 || text[0] == '.' || text[len - 1] == '.' ||
	    (q = percentile_of(text, len)) > 1)
		return false;
	if (q == 1) {
		/*
		 * A number just above 100 gives q = 1 too: an integer part of 100 (not
		 * 99.99...) and a fraction not all zeros (100.00000000000000000001) is no N.
		 */
		for (d = text; *d == '0';)
			d++;
		if (point != NULL && point - d == 3)
			for (d = point + 1; d < text + len; d++)
				if (*d != '0')
					return false;
	}
	params->percentile = q;
	params->percentile_num = 0;
	params->percentile_scale = 0;
	if (point != NULL)
		while (end[-1] == '0')
			end--;
	if (point != NULL && end - point - 1 > AGG_PERCENTILE_DECIMALS)
		return true;
	/* At most 100 with 16 decimals: 10^18, as is 10^scale. */
	for (d = text; d < end; d++)
		if (*d != '.') {
			num = num * 10 + (uint64_t)(*d - '0');
			scale += point != NULL && d > point;
		}
	params->percentile_num = num;
	params->percentile_scale = scale;
	return true;
}

const struct agg_kind *
agg_lookup(const char *name, size_t len, struct agg_params *params)
{
	params->percentile = 0.0;
	params->percentile_num = 0;
	params->percentile_scale = 0;
	for (size_t i = 0; i < sizeof(agg_names) / sizeof(agg_names[0]); i++)
		if (strlen(agg_names[i].name) == len &&
		    strncasecmp(agg_names[i].name, name, len) == 0) {
			if (agg_names[i].kind == &agg_quantile) {
				params->percentile = 0.5;
				params->percentile_num = 50;
				params->percentile_scale = 2;
			}
			return agg_names[i].kind;
		}
	if (len > 1 && (name[0] == 'p' || name[0] == 'P') &&
	    parse_percentile(name + 1, len - 1, params))
		return &agg_quantile;
	return NULL;
}

bool
agg_is_name(const char *name, size_t len)
{
	struct agg_params params;

	if (agg_lookup(name, len, &params) != NULL)
		return true;
	if (len < 2 || (name[0] != 'p' && name[0] != 'P'))
		return false;
	/* p and a number: a sign, then digits with at most one point among them. */
	{
		size_t i = 1, digits = 0, points = 0;

		if (name[i] == '+' || name[i] == '-')
			i++;
		for (; i < len; i++) {
			if (name[i] >= '0' && name[i] <= '9')
				digits++;
			else if (name[i] == '.' && points++ == 0)
				continue;
			else
				return false;
		}
		return digits > 0;
	}
}

const char *
agg_name(size_t i)
{
	return i < sizeof(agg_names) / sizeof(agg_names[0]) ? agg_names[i].name : NULL;
}

/* The lowest case of an ASCII letter, any other byte as it is. */
static unsigned char
lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c - 'A' + 'a') : (unsigned char)c;
}

/*
 * The edit distance of a[0, n) and b[0, m), without regard to case, counting a
 * letter added, left out or changed, or two neighbours swapped, as one edit each
 * (optimal string alignment); names longer than 31 bytes are far from any.
 */
static size_t
edit_distance(const char *a, size_t n, const char *b, size_t m)
{
	size_t d[32][32];

	if (n > 31 || m > 31)
		return 32;
	for (size_t i = 0; i <= n; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= m; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= n; i++)
		for (size_t j = 1; j <= m; j++) {
			size_t cost = lower(a[i - 1]) != lower(b[j - 1]);
			size_t best = d[i - 1][j - 1] + cost;

			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) &&
			    lower(a[i - 2]) == lower(b[j - 1]) && d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[n][m];
}

/*
 * The aggregate that name, of three letters or more, begins and no other does (dist,
 * med, std), or NULL.
 */
static const char *
unique_prefix(const char *name, size_t len)
{
	const char *found = NULL;

	if (len < 3)
		return NULL;
	for (size_t i = 0; i < sizeof(agg_names) / sizeof(agg_names[0]); i++) {
		const char *candidate = agg_names[i].name;
		size_t j = 0;

		while (j < len && candidate[j] != '\0' && lower(name[j]) == candidate[j])
			j++;
		if (j < len)
			continue;
		if (found != NULL)
			return NULL;
		found = candidate;
	}
	return found;
}

/*
 * The percentile that name is with one byte left out (p99x, pp99, p99.9.9), or NULL;
 * in a buffer of its own, which the next call overwrites.
 */
static const char *
percentile_without_one(const char *name, size_t len)
{
	static char candidate[32];
	struct agg_params params;

	if (len < 3 || len > sizeof(candidate))
		return NULL;
	for (size_t skip = 0; skip < len; skip++) {
		memcpy(candidate, name, skip);
		memcpy(candidate + skip, name + skip + 1, len - skip - 1);
		candidate[len - 1] = '\0';
		if (lower(candidate[0]) == 'p' && agg_lookup(candidate, len - 1, &params) != NULL)
			return candidate;
	}
	return NULL;
}

const char *
agg_suggest(const char *name, size_t len)
{
	const char *nearest = unique_prefix(name, len);
	size_t best = 3;

	if (nearest != NULL)
		return nearest;
	for (size_t i = 0; i < sizeof(agg_names) / sizeof(agg_names[0]); i++) {
		size_t limit = strlen(agg_names[i].name) <= 4 ? 1 : 2;
		size_t d = edit_distance(name, len, agg_names[i].name, strlen(agg_names[i].name));

		if (d <= limit && d < best) {
			best = d;
			nearest = agg_names[i].name;
		}
	}
	return nearest != NULL ? nearest : percentile_without_one(name, len);
}
