/*
 * test_spec.c: aggregate specs (AGG[:COLUMN][@WINDOW]) and counts.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "agg_quantile.h"
#include "spec.h"

Test(spec, name_only)
{
	struct agg_spec spec;

	cr_assert_eq(spec_parse("avg", &spec), SPEC_OK);
	cr_assert_eq(spec.kind, &agg_avg);
	cr_assert_eq(spec.column.number, 1);
	cr_assert_not(spec.has_window);
	cr_assert_str_eq(spec.text, "avg");
}

Test(spec, holistic_names)
{
	struct agg_spec spec;

	cr_assert_eq(spec_parse("median:2", &spec), SPEC_OK);
	cr_assert_float_eq(spec.params.percentile, 0.5, 0);
	cr_assert_eq(spec_parse("p99", &spec), SPEC_OK);
	cr_assert_float_eq(spec.params.percentile, 0.99, 1e-15);
	cr_assert_eq(spec_parse("p99.9@10", &spec), SPEC_OK);
	cr_assert_float_eq(spec.params.percentile, 0.999, 1e-15);
	/* Exactly too: 999 / 10^3; trailing zeros aside, up to 16 decimals. */
	cr_assert_eq(spec.params.percentile_num, 999);
	cr_assert_eq(spec.params.percentile_scale, 3);
	cr_assert_eq(spec_parse("p014.50000", &spec), SPEC_OK);
	cr_assert_eq(spec.params.percentile_num, 145);
	cr_assert_eq(spec.params.percentile_scale, 3);
	cr_assert_eq(spec_parse("p0.0000000000000001", &spec), SPEC_OK);
	cr_assert_eq(spec.params.percentile_num, 1);
	cr_assert_eq(spec.params.percentile_scale, 18);
	cr_assert_eq(spec_parse("p0.00000000000000001", &spec), SPEC_OK);
	cr_assert_eq(spec.params.percentile_scale, 0);
	cr_assert_float_eq(spec.params.percentile, 1e-19, 1e-34);
	cr_assert_eq(spec_parse("p0", &spec), SPEC_OK);
	cr_assert_eq(spec.params.percentile, 0);
	cr_assert_eq(spec_parse("p100", &spec), SPEC_OK);
	cr_assert_eq(spec.params.percentile, 1);
	cr_assert_eq(spec_parse("mode:3", &spec), SPEC_OK);
	cr_assert_eq(spec_parse("distinct", &spec), SPEC_OK);
}

Test(spec, column_and_window)
{
	struct agg_spec spec;

	cr_assert_eq(spec_parse("max:3@1000", &spec), SPEC_OK);
	cr_assert_eq(spec.kind, &agg_max);
	cr_assert_eq(spec.column.number, 3);
	cr_assert(spec.has_window);
	cr_assert_eq(spec.window.rows, 1000);
	cr_assert_eq(spec_parse("sum@7", &spec), SPEC_OK);
	cr_assert_eq(spec.column.number, 1);
	cr_assert_eq(spec.window.rows, 7);
	cr_assert_eq(spec_parse("mean:12", &spec), SPEC_OK);
	cr_assert_eq(spec.kind, &agg_avg);
	cr_assert_eq(spec.column.number, 12);
}

Test(spec, errors)
{
	struct agg_spec spec;

	cr_assert_eq(spec_parse("", &spec), SPEC_UNKNOWN_AGGREGATE);
	cr_assert_eq(spec_parse("medain", &spec), SPEC_UNKNOWN_AGGREGATE);
	/* p and a number is a percentile, right or wrong; anything else is a file. */
	cr_assert_eq(spec_parse("p100.5", &spec), SPEC_BAD_PERCENTILE);
	cr_assert_eq(spec_parse("p101", &spec), SPEC_BAD_PERCENTILE);
	cr_assert_eq(spec_parse("P101:2", &spec), SPEC_BAD_PERCENTILE);
	/* Above 100 though the double rounds to it; below 100 rounding to it is N. */
	cr_assert_eq(spec_parse("p100.00000000000000000001", &spec), SPEC_BAD_PERCENTILE);
	cr_assert_eq(spec_parse("p0100.00000000000000000001", &spec), SPEC_BAD_PERCENTILE);
	cr_assert_eq(spec_parse("p099.99999999999999999999", &spec), SPEC_OK);
	cr_assert_eq(spec.params.percentile, 1);
	cr_assert_eq(spec_parse("p100.000", &spec), SPEC_OK);
	cr_assert_eq(spec_parse("p-1", &spec), SPEC_BAD_PERCENTILE);
	cr_assert_eq(spec_parse("p", &spec), SPEC_UNKNOWN_AGGREGATE);
	cr_assert_eq(spec_parse("p.5", &spec), SPEC_BAD_PERCENTILE);
	cr_assert_eq(spec_parse("p1e1", &spec), SPEC_UNKNOWN_AGGREGATE);
	cr_assert_eq(spec_parse("p99.txt", &spec), SPEC_UNKNOWN_AGGREGATE);
	cr_assert_eq(spec_parse("./avg", &spec), SPEC_UNKNOWN_AGGREGATE);
	cr_assert_eq(spec_parse("avg.csv", &spec), SPEC_UNKNOWN_AGGREGATE);
	cr_assert_eq(spec_parse(":2", &spec), SPEC_UNKNOWN_AGGREGATE);
	/* Digits that make no field number are names that need -H (main checks). */
	cr_assert_eq(spec_parse("avg:-0", &spec), SPEC_OK);
	cr_assert(spec.column.digits);
	cr_assert_eq(spec_parse("avg:-", &spec), SPEC_OK);	/* a name */
	cr_assert_eq(spec.column.name_len, 1);
	cr_assert(!spec.column.digits);
	cr_assert_eq(spec_parse("avg:", &spec), SPEC_BAD_COLUMN);
	cr_assert_eq(spec_parse("avg:0", &spec), SPEC_OK);
	cr_assert(spec.column.digits);
	cr_assert_eq(spec_parse("avg:99999999999999999999999", &spec), SPEC_OK);
	cr_assert(spec.column.digits);
	cr_assert_eq(spec_parse("avg@", &spec), SPEC_BAD_WINDOW);
	cr_assert_eq(spec_parse("avg@0", &spec), SPEC_BAD_WINDOW);
	cr_assert_eq(spec_parse("avg@5x", &spec), SPEC_BAD_WINDOW);
	cr_assert_eq(spec_parse("avg@5m", &spec), SPEC_OK);	/* a duration: main checks -t */
	cr_assert_eq(spec.window.nanos, INT64_C(300000000000));
	cr_assert_eq(spec_parse("avg@ 5", &spec), SPEC_OK);	/* as avg@ 5s is */
	cr_assert_eq(spec.window.rows, 5);
	cr_assert_eq(spec_parse("avg@5 5", &spec), SPEC_BAD_WINDOW);
	cr_assert_eq(spec_parse("avg:2@3@4", &spec), SPEC_OK);	/* the last @ splits: a name */
	cr_assert_eq(spec.column.name_len, 3);
}

/* Names are read without regard to case (swag(1), AGGREGATES). */
Test(spec, case_insensitive)
{
	struct agg_spec spec;

	cr_assert_eq(spec_parse("AVG", &spec), SPEC_OK);
	cr_assert_eq(spec.kind, &agg_avg);
	cr_assert_eq(spec_parse("Avg:2", &spec), SPEC_OK);
	cr_assert_eq(spec.kind, &agg_avg);
	cr_assert_eq(spec_parse("P99", &spec), SPEC_OK);
	cr_assert_eq(spec.kind, &agg_quantile);
	cr_assert_float_eq(spec.params.percentile, 0.99, 1e-12);
	cr_assert_eq(spec_parse("MEDIAN", &spec), SPEC_OK);
	cr_assert_float_eq(spec.params.percentile, 0.5, 1e-12);
	cr_assert_eq(spec_parse("StdDev@5", &spec), SPEC_OK);
	cr_assert_eq(spec.kind, &agg_stddev);
}

/* -N counts from the last field, as awk's $(NF-N+1) (swag(1), DESCRIPTION). */
Test(spec, columns_from_end)
{
	struct agg_spec spec;
	struct column_ref ref;

	cr_assert_eq(spec_parse("sum:-1", &spec), SPEC_OK);
	cr_assert_null(spec.column.name);
	cr_assert(spec.column.from_end);
	cr_assert_eq(spec.column.number, 1);
	cr_assert_eq(spec_parse("sum:-12@3", &spec), SPEC_OK);
	cr_assert(spec.column.from_end);
	cr_assert_eq(spec.column.number, 12);
	cr_assert_eq(spec.column.text_len, 3);
	cr_assert_eq(spec_parse("sum:12", &spec), SPEC_OK);
	cr_assert(!spec.column.from_end);
	cr_assert_eq(spec_parse("sum", &spec), SPEC_OK);
	cr_assert(!spec.column.from_end);
	cr_assert_null(spec.column.text);
	cr_assert_eq(column_parse("-3", 2, &ref), 0);
	cr_assert(ref.from_end);
	cr_assert_eq(ref.number, 3);
	cr_assert_eq(column_parse("--1", 3, &ref), 0);	/* a name */
	cr_assert_not_null(ref.name);
	cr_assert(!ref.digits);
	/* Digits that make no field number: a header's name only (swag(1), -H). */
	cr_assert_eq(column_parse("-0", 2, &ref), 1);
	cr_assert(ref.digits);
	cr_assert_eq(ref.name_len, 2);
	cr_assert_eq(memcmp(ref.name, "-0", 2), 0);
	cr_assert_eq(column_parse("0", 1, &ref), 1);
	cr_assert(ref.digits && ref.name_len == 1);
	cr_assert_eq(column_parse("99999999999999999999", 20, &ref), 1);
	cr_assert(ref.digits && ref.name_len == 20);
	cr_assert_eq(column_parse("", 0, &ref), -1);
	cr_assert_eq(spec_parse("sum:0", &spec), SPEC_OK);
	cr_assert(spec.column.digits);
	cr_assert_eq(spec_parse("sum:", &spec), SPEC_BAD_COLUMN);
}

/* The suggestion for a misspelt name reads the aggregates' table. */
Test(spec, suggestions)
{
	cr_assert_str_eq(agg_suggest("stdev", 5), "stddev");
	cr_assert_str_eq(agg_suggest("STDEV", 5), "stddev");
	cr_assert_str_eq(agg_suggest("medain", 6), "median");
	cr_assert_str_eq(agg_suggest("avgg", 4), "avg");
	cr_assert_str_eq(agg_suggest("mena", 4), "mean");
	cr_assert_str_eq(agg_suggest("distinc", 7), "distinct");
	cr_assert_null(agg_suggest("total", 5));
	cr_assert_null(agg_suggest("nums.txt", 8));
	cr_assert_null(agg_suggest("ab", 2));
	/* The one aggregate a name of three letters or more begins. */
	cr_assert_str_eq(agg_suggest("dist", 4), "distinct");
	cr_assert_str_eq(agg_suggest("MED", 3), "median");
	cr_assert_str_eq(agg_suggest("std", 3), "stddev");
	cr_assert_str_eq(agg_suggest("fir", 3), "first");
	/* A percentile with a byte too many. */
	cr_assert_str_eq(agg_suggest("p99x", 4), "p99");
	cr_assert_str_eq(agg_suggest("pp99", 4), "p99");
	cr_assert_str_eq(agg_suggest("p99.9.9", 7), "p99.99");
	cr_assert_null(agg_suggest("p101x", 5));
	cr_assert(agg_is_name("p101", 4));
	cr_assert(agg_is_name("Sum", 3));
	cr_assert(!agg_is_name("p99x", 4));
	cr_assert(!agg_is_name("sums", 4));
	cr_assert_str_eq(agg_name(0), "avg");
	for (size_t i = 0; agg_name(i) != NULL; i++)
		cr_assert(agg_is_name(agg_name(i), strlen(agg_name(i))));
}

/* A header name is anything but digits, and may hold ':' and '@' itself. */
Test(spec, column_names)
{
	struct agg_spec spec;

	cr_assert_eq(spec_parse("avg:latency", &spec), SPEC_OK);
	cr_assert_eq(spec.column.number, 0);
	cr_assert_eq(spec.column.name_len, 7);
	cr_assert(memcmp(spec.column.name, "latency", 7) == 0);
	cr_assert_eq(spec.name_len, 3);
	cr_assert_eq(spec_parse("max:a:b@c@10", &spec), SPEC_OK);
	cr_assert_eq(spec.column.name_len, 5);
	cr_assert(memcmp(spec.column.name, "a:b@c", 5) == 0);
	cr_assert_eq(spec.window.rows, 10);
	cr_assert_eq(spec_parse("sum:12x", &spec), SPEC_OK);
	cr_assert_eq(spec.column.name_len, 3);
	cr_assert_eq(spec_parse("sum:12", &spec), SPEC_OK);
	cr_assert_null(spec.column.name);
	cr_assert_eq(spec.column.number, 12);
}

Test(spec, counts)
{
	uint64_t v;

	cr_assert_eq(parse_count("1", 1, 10, &v), 0);
	cr_assert_eq(v, 1);
	cr_assert_eq(parse_count("10", 2, 10, &v), 0);
	cr_assert_eq(parse_count("11", 2, 10, &v), -1);
	cr_assert_eq(parse_count("0", 1, 10, &v), -1);
	cr_assert_eq(parse_count("", 0, 10, &v), -1);
	cr_assert_eq(parse_count("+1", 2, 10, &v), -1);
	cr_assert_eq(parse_count("18446744073709551615", 20, UINT64_MAX, &v), 0);
	cr_assert_eq(v, UINT64_MAX);
	cr_assert_eq(parse_count("18446744073709551616", 20, UINT64_MAX, &v), -1);
	cr_assert_eq(parse_count("4611686018427387904", 19, WINDOW_ROWS_MAX, &v), 0);
	cr_assert_eq(parse_count("4611686018427387905", 19, WINDOW_ROWS_MAX, &v), -1);
}

/* The new aggregates' names, and all: a cumulative window, rows WINDOW_ROWS_ALL. */
Test(spec, new_names_and_all)
{
	static const struct {
		const char *text;
		const struct agg_kind *kind;
	} names[] = { { "first", &agg_first }, { "last", &agg_last },
	    { "delta", &agg_delta }, { "rate", &agg_rate }, { "ewma", &agg_ewma } };
	struct agg_spec spec;
	struct window_size window;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		cr_assert_eq(spec_parse(names[i].text, &spec), SPEC_OK);
		cr_assert_eq(spec.kind, names[i].kind);
	}
	cr_assert_eq(spec_parse("sum:2@all", &spec), SPEC_OK);
	cr_assert(spec.has_window);
	cr_assert_eq(spec.window.rows, WINDOW_ROWS_ALL);
	cr_assert_eq(spec.window.nanos, 0);
	cr_assert_eq(window_parse("all", 3, &window), 0);
	cr_assert_eq(window.rows, WINDOW_ROWS_ALL);
	cr_assert_eq(window_parse("al", 2, &window), -1);
	cr_assert_eq(window_parse("alll", 4, &window), -1);
	cr_assert_eq(window_parse("ALL", 3, &window), -1);
	cr_assert_eq(spec_parse("sum@all1", &spec), SPEC_BAD_WINDOW);
	/* Blanks around a window's size are ignored, inside it they are not. */
	cr_assert_eq(window_parse(" all\t", 5, &window), 0);
	cr_assert_eq(window.rows, WINDOW_ROWS_ALL);
	cr_assert_eq(window_parse(" 12 ", 4, &window), 0);
	cr_assert_eq(window.rows, 12);
	cr_assert_eq(window_parse("1 2", 3, &window), -1);
	cr_assert_eq(window_parse("  ", 2, &window), -1);
}
