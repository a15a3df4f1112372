/*
 * agg.c: finding an aggregate by the name a user typed.
 */
#include <string.h>

#include "agg.h"
#include "agg_mode.h"

static const struct {
	const char *name;
	const struct agg_kind *kind;
} agg_names[] = {
	{ "avg", &agg_avg },
	{ "count", &agg_count },
	{ "max", &agg_max },
	{ "mean", &agg_avg },
	{ "min", &agg_min },
	{ "mode", &agg_mode },
	{ "stddev", &agg_stddev },
	{ "sum", &agg_sum },
	{ "var", &agg_var },
};

const struct agg_kind *
agg_lookup(const char *name, size_t len, struct agg_params *params)
{
	params->percentile = 0.0;
	for (size_t i = 0; i < sizeof(agg_names) / sizeof(agg_names[0]); i++)
		if (strlen(agg_names[i].name) == len && memcmp(agg_names[i].name, name, len) == 0)
			return agg_names[i].kind;
	return NULL;
}
