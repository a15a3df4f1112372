/*
 * agg.c: finding an aggregate by the name a user typed.
 */
#include <stdbool.h>
#include <string.h>

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

/*
 * Reads the N of a percentile name pN: digits with at most one decimal point
 * (99, 99.9, 0.5, 100), from 0 to 100.  Returns true and stores N / 100 in *q.
 */
static bool
parse_percentile(const char *text, size_t len, double *q)
{
	double n;
	size_t digits = 0, points = 0;

	for (size_t i = 0; i < len; i++) {
		if (text[i] == '.')
			points++;
		else if (text[i] >= '0' && text[i] <= '9')
			digits++;
		else
			return false;
	}
	if (digits == 0 || points > 1 || text[0] == '.' || text[len - 1] == '.' ||
	    !parse_number(text, len, &n) || n > 100)
		return false;
	*q = n / 100;
	return true;
}

const struct agg_kind *
agg_lookup(const char *name, size_t len, struct agg_params *params)
{
	params->percentile = 0.0;
	for (size_t i = 0; i < sizeof(agg_names) / sizeof(agg_names[0]); i++)
		if (strlen(agg_names[i].name) == len && memcmp(agg_names[i].name, name, len) == 0) {
			if (agg_names[i].kind == &agg_quantile)
				params->percentile = 0.5;
			return agg_names[i].kind;
		}
	if (len > 1 && name[0] == 'p' && parse_percentile(name + 1, len - 1, &params->percentile))
		return &agg_quantile;
	return NULL;
}

