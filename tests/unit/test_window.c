/*
 * test_window.c: a key's windows (window.c) moved as swag's buckets move them
 * (swag(1), BUCKETS): records one at a time or in runs, and at each bucket's end the
 * step without a value, window_set_boundary, whose results are checked against a
 * naive recomputation: a time window of D holds the records with b + S - D <= t <
 * b + S, a row window the last R records.  count, sum, max, median, mode and distinct,
 * over random timestamps (equal ones, nanosecond steps, gaps) and missing values, with
 * durations shorter than, equal to and longer than the bucket.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec.h"
#include "window.h"

#define RECORDS 3000
#define SPECS 8

static uint64_t
next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* One input record: its timestamp and its value (v < 0: missing). */
struct rec {
	int64_t t;
	int v;
};

/* The naive result of spec kind name over records [0, n) in the bucket ending at end. */
static double
naive(const char *name, const struct window_size *w, const struct rec *r, size_t n,
    int64_t end, bool *null)
{
	int values[RECORDS], count = 0;
	size_t first = 0;

	if (w->nanos > 0)
		while (first < n && r[first].t < end - w->nanos)
			first++;
	else
		first = n > w->rows ? n - w->rows : 0;
	for (size_t i = first; i < n; i++)
		if (r[i].v >= 0)
			values[count++] = r[i].v;
	*null = false;
	if (strcmp(name, "count") == 0)
		return count;
	if (strcmp(name, "distinct") == 0) {
		int d = 0;

		for (int i = 0; i < count; i++) {
			bool seen = false;

			for (int j = 0; j < i; j++)
				seen |= values[j] == values[i];
			d += !seen;
		}
		return d;
	}
	if (count == 0) {
		*null = true;
		return 0;
	}
	if (strcmp(name, "sum") == 0) {
		double s = 0;

		for (int i = 0; i < count; i++)
			s += values[i];
		return s;
	}
	if (strcmp(name, "max") == 0) {
		int m = values[0];

		for (int i = 1; i < count; i++)
			m = values[i] > m ? values[i] : m;
		return m;
	}
	if (strcmp(name, "mode") == 0) {
		int best = 0, best_count = 0;

		/* The most frequent, ties to the smallest (numbers: numerically). */
		for (int i = 0; i < count; i++) {
			int c = 0;

			for (int j = 0; j < count; j++)
				c += values[j] == values[i];
			if (c > best_count || (c == best_count && values[i] < best)) {
				best = values[i];
				best_count = c;
			}
		}
		return best;
	}
	/* median: the mean of the two middle values, or the middle one. */
	for (int i = 1; i < count; i++)
		for (int j = i; j > 0 && values[j - 1] > values[j]; j--) {
			int x = values[j];

			values[j] = values[j - 1];
			values[j - 1] = x;
		}
	return count % 2 ? values[count / 2] : (values[count / 2 - 1] + values[count / 2]) / 2.0;
}

/* The result as a number: a count, a number, or a mode's text. */
static double
result_number(const struct agg_result *r, bool *null)
{
	char text[32];

	*null = r->kind == AGG_RESULT_NULL;
	switch (r->kind) {
	case AGG_RESULT_COUNT:
		return (double)r->count;
	case AGG_RESULT_NUMBER:
		return r->number;
	case AGG_RESULT_TEXT:
		cr_assert(r->text_len < sizeof(text));
		memcpy(text, r->text, r->text_len);
		text[r->text_len] = '\0';
		return atof(text);
	default:
		return 0;
	}
}

/*
 * Runs RECORDS random records through one key's windows for the specs, the bucket
 * span S, checking every bucket's results; records go in runs of up to run_max.
 */
static void
check_buckets(const char *const *texts, size_t nspecs, int64_t span, size_t run_max,
    uint64_t seed)
{
	static struct rec recs[RECORDS];
	static char value_texts[RECORDS][8];
	struct agg_spec specs[SPECS];
	struct agg_value values[SPECS][WINDOW_STEPS_MAX];
	const struct agg_value *value_of[SPECS];
	struct agg_result results[SPECS][WINDOW_STEPS_MAX];
	struct agg_result *result_of[SPECS];
	int64_t times[WINDOW_STEPS_MAX], longest = 0, start;
	uint64_t state = seed;
	struct window_set set;
	size_t i = 0, buckets = 0;

	for (size_t s = 0; s < nspecs; s++) {
		cr_assert(spec_parse(texts[s], &specs[s]) == SPEC_OK, "%s", texts[s]);
		specs[s].params.min_count = 1;
		specs[s].params.hll_bits = 12;
		specs[s].params.hash_seed = seed;
		value_of[s] = values[s];
		result_of[s] = results[s];
		if (specs[s].window.nanos > longest)
			longest = specs[s].window.nanos;
	}
	cr_assert(window_set_init(&set, specs, nspecs) == 0);
	/*
	 * Timestamps: equal ones, nanosecond steps, round steps (which meet the buckets'
	 * and windows' edges exactly), any steps, gaps past the windows.
	 */
	for (size_t k = 0; k < RECORDS; k++) {
		uint64_t r = next_random(&state) % 100;
		int64_t t = k > 0 ? recs[k - 1].t : 1699999980000000000;
		int64_t step = r < 25 ? 0 : r < 35 ? 1 : r < 40 ? -1 : r < 70 ?
		    (int64_t)(next_random(&state) % 6 + 1) * 500000000 : r < 92 ?
		    (int64_t)(next_random(&state) % 3000000000u) :
		    (int64_t)(next_random(&state) % 40 + 1) * 10000000000;

		/* To a nanosecond before the next round time: an edge missed by one. */
		if (step < 0)
			step = 500000000 - t % 500000000 - 1;
		recs[k].t = t + step;
		recs[k].v = next_random(&state) % 10 == 0 ? -1 : (int)(next_random(&state) % 50);
		snprintf(value_texts[k], sizeof(value_texts[k]), "%d", recs[k].v);
	}
	start = recs[0].t - recs[0].t % span;
	while (i < RECORDS) {
		size_t n = 0;

		/* A run of records within the bucket, through window_set_move. */
		while (i + n < RECORDS && n < run_max && recs[i + n].t < start + span) {
			for (size_t s = 0; s < nspecs; s++) {
				struct agg_value *v = &values[s][n];

				v->has_text = v->has_number = recs[i + n].v >= 0;
				v->number = recs[i + n].v;
				v->text = value_texts[i + n];
				v->text_len = strlen(value_texts[i + n]);
			}
			times[n] = recs[i + n].t;
			n++;
		}
		if (n > 0) {
			/* As the buckets stage moves them: no result wanted. */
			static const unsigned char none[WINDOW_STEPS_MAX];
			struct window_steps steps = {
				.n = n, .times = times, .values = value_of, .want = none,
				.results = result_of,
			};

			cr_assert(window_set_move(&set, specs, &steps) == n);
			i += n;
			if (i < RECORDS && recs[i].t < start + span)
				continue;
		}
		/* The bucket's end: every result against the naive one. */
		cr_assert(window_set_boundary(&set, specs, (uint64_t)(start + span), result_of,
		    0) == 0);
		buckets++;
		for (size_t s = 0; s < nspecs; s++) {
			bool null, want_null;
			double got = result_number(&results[s][0], &null);
			double want = naive(specs[s].kind->name, &specs[s].window, recs, i,
			    start + span, &want_null);

			cr_assert(null == want_null && (null || fabs(got - want) < 1e-9),
			    "%s, bucket %zu at %lld: got %g%s, want %g%s", texts[s], buckets,
			    (long long)start, got, null ? " (null)" : "", want,
			    want_null ? " (null)" : "");
		}
		/* The next bucket, or the next record's when no time window reaches it. */
		start += span;
		if (i < RECORDS && recs[i].t >= start + span &&
		    (longest == 0 || recs[i - 1].t < start + span - longest))
			start = recs[i].t - recs[i].t % span;
	}
	cr_assert(buckets > 20);
	window_set_free(&set);
}

static const char *const mixed[] = {
	"count@1m", "sum@1m", "max@30s", "median@5m", "mode@1m", "distinct@2m", "count@7",
	"sum@1",
};

Test(window, boundary_equal_to_the_bucket)
{
	check_buckets(mixed, 2, 60000000000, 128, 1);
}

Test(window, boundary_mixed_windows_every_record)
{
	check_buckets(mixed, SPECS, 60000000000, 1, 2);
}

Test(window, boundary_mixed_windows_in_runs)
{
	check_buckets(mixed, SPECS, 60000000000, 128, 3);
	check_buckets(mixed, SPECS, 10000000000, 37, 4);
	check_buckets(mixed, SPECS, 1000000001, 5, 5);
}

/*
 * One key's windows moved over batches as the windows stage moves them, every step's
 * result checked against a naive recomputation (counts and sums of the records with t
 * - D < t' <= t, from prefix sums): batches of 1 to WINDOW_STEPS_MAX records (so that
 * an index names records past 255) of which the key's are some (an index) or all
 * (none), timestamps in bursts of equal ones, nanosecond steps
 * and gaps past every window, so that the walks evict nothing, one, many and all at
 * once, cross the ring's wrap in the middle of a step and, with a window holding
 * over 20,000 records, meet a mapped ring growing by moves (ring.h).  count@1us and
 * sum@1us share a walk; count@1us and count@30us walk apart.
 */
#define STEPS_RECORDS 120000

/*
 * The block of timestamps is there when some window evicts by time, and only then:
 * with -g a set of row windows a key does without it (an ewma's duration is a
 * half-life, which evicts nothing).  The moves of both kinds of set are checked above
 * and below.
 */
Test(window, timestamps_only_for_time_windows)
{
	static const char *const with[] = { "sum@10", "count@1s", "max@5" };
	static const char *const without[] = { "sum@10", "ewma@1s", "max@all" };
	struct agg_spec specs[3];
	struct window_set set;

	memset(specs, 0, sizeof(specs));
	for (size_t s = 0; s < 3; s++) {
		cr_assert(spec_parse(with[s], &specs[s]) == SPEC_OK, "%s", with[s]);
		specs[s].params.min_count = 1;
	}
	cr_assert(window_set_init(&set, specs, 3) == 0);
	cr_assert(set.times != NULL);
	window_set_free(&set);
	cr_assert(set.times == NULL && set.aggs == NULL);
	for (size_t s = 0; s < 3; s++) {
		cr_assert(spec_parse(without[s], &specs[s]) == SPEC_OK, "%s", without[s]);
		specs[s].params.min_count = 1;
	}
	cr_assert(window_set_init(&set, specs, 3) == 0);
	cr_assert(set.times == NULL);
	window_set_free(&set);
}

Test(window, time_windows_every_step_against_naive)
{
	static const char *const texts[] = {
		"count@1us", "sum@1us", "count@30us", "count@5ns", "sum@4", "count@30us",
	};
	enum { NSPECS = sizeof(texts) / sizeof(texts[0]) };
	static int64_t t_of[STEPS_RECORDS];
	static uint64_t prefix_sum[STEPS_RECORDS + 1];
	static char value_texts[STEPS_RECORDS][8];
	struct agg_spec specs[NSPECS];
	struct agg_value values[NSPECS][WINDOW_STEPS_MAX];
	const struct agg_value *value_of[NSPECS];
	struct agg_result results[NSPECS][WINDOW_STEPS_MAX];
	struct agg_result *result_of[NSPECS];
	int64_t times[WINDOW_STEPS_MAX], t = 1700000000000000000;
	agg_index index[WINDOW_STEPS_MAX];
	uint64_t state = 7;
	struct window_set set;
	size_t done = 0, batches = 0, indexed = 0, moving = 0;
	uint64_t most = 0;

	for (size_t s = 0; s < NSPECS; s++) {
		cr_assert(spec_parse(texts[s], &specs[s]) == SPEC_OK, "%s", texts[s]);
		specs[s].params.min_count = 1;
		value_of[s] = values[s];
		result_of[s] = results[s];
	}
	cr_assert(window_set_init(&set, specs, NSPECS) == 0);
	prefix_sum[0] = 0;
	while (done < STEPS_RECORDS) {
		size_t len = next_random(&state) % WINDOW_STEPS_MAX + 1, n = 0;
		bool all = next_random(&state) % 4 == 0;

		/* The batch's records: each the key's or another's (all: no index). */
		for (size_t r = 0; r < len && done + n < STEPS_RECORDS; r++) {
			uint64_t x = next_random(&state) % 100000;
			size_t k = done + n;

			/*
			 * Mostly 0 to 2 ns apart, bursts of equal ones, now and then a
			 * gap of 40 ns (which empties count@5ns) or of 1 ms (all).
			 */
			t += x < 3 ? 1000000 : x < 300 ? 40 : x < 30000 ? 0 : (int64_t)(x % 3);
			times[r] = t;
			if (!all && next_random(&state) % 3 == 0)
				continue;
			t_of[k] = t;
			prefix_sum[k + 1] = prefix_sum[k] + k % 97;
			snprintf(value_texts[k], sizeof(value_texts[k]), "%zu", k % 97);
			for (size_t s = 0; s < NSPECS; s++) {
				struct agg_value *v = &values[s][r];

				v->has_text = v->has_number = true;
				v->number = (double)(k % 97);
				v->text = value_texts[k];
				v->text_len = strlen(value_texts[k]);
			}
			index[n++] = (agg_index)r;
		}
		if (n == 0)
			continue;
		{
			struct window_steps steps = {
				.n = n, .index = all ? NULL : index, .times = times,
				.values = value_of, .want = NULL, .results = result_of,
			};

			cr_assert(window_set_move(&set, specs, &steps) == n);
		}
		moving += set.times->ring.moving != 0;
		if (ring_count(&set.times->ring) > most)
			most = ring_count(&set.times->ring);
		batches++;
		indexed += !all;
		for (size_t j = 0; j < n; j++) {
			size_t k = done + j, r = all ? j : index[j];

			for (size_t s = 0; s < NSPECS; s++) {
				size_t first = k + 1;
				const struct agg_result *got = &results[s][r];

				if (specs[s].window.nanos > 0) {
					/* The first with t - t' < D: timestamps never go back. */
					size_t lo = 0, hi = k;

					while (lo < hi) {
						size_t mid = lo + (hi - lo) / 2;

						if (t_of[k] - t_of[mid] < specs[s].window.nanos)
							hi = mid;
						else
							lo = mid + 1;
					}
					first = lo;
				} else
					first = k + 1 > specs[s].window.rows ?
					    k + 1 - specs[s].window.rows : 0;
				if (strncmp(texts[s], "count", 5) == 0) {
					cr_assert(got->kind == AGG_RESULT_COUNT &&
					    got->count == k + 1 - first,
					    "%s, record %zu: got %llu, want %zu", texts[s], k,
					    (unsigned long long)got->count, k + 1 - first);
				} else {
					cr_assert(got->kind == AGG_RESULT_NUMBER &&
					    got->number == (double)(prefix_sum[k + 1] -
					    prefix_sum[first]), "%s, record %zu: got %g, want %llu",
					    texts[s], k, got->number, (unsigned long long)
					    (prefix_sum[k + 1] - prefix_sum[first]));
				}
			}
		}
		done += n;
	}
	cr_assert(batches > 250 && indexed > 150, "%zu batches, %zu indexed", batches, indexed);
	/* The ring held over 20,000 timestamps, and grew by moves. */
	cr_assert(most > 20000 && moving > 0, "at most %llu timestamps, moving %zu times",
	    (unsigned long long)most, moving);
	window_set_free(&set);
}
