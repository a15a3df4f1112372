/*
 * agg_ewma.c: ewma, the exponentially weighted moving average of every number seen,
 * each weighted by its age: the one aggregate whose history decays but never leaves.
 *
 * With a row window W it is pandas' Series.ewm(span=W).mean() with its defaults
 * (adjust=True, ignore_na=False): the value k records old weighs c^k, c = 1 - α and
 * α = 2 / (W + 1), both rounded to doubles as pandas rounds them, and a record without
 * a number still ages the older values.  With a time window D it is
 * ewm(halflife=D, times=t).mean(): the value t - t' nanoseconds old weighs 2^-(t-t')/D.
 * The result is Σ w·x / Σ w over the numbers seen, null before the first (or below
 * -m's count of numbers seen).  The window's evictions are ignored: a time window's D
 * is the half-life, not an extent.  But a record that comes 64 half-lives or more
 * after the one before it, when the history weighs 2^-64 of a new value or less,
 * starts afresh, as if the window had just been made: so under -g, where pipeline.c
 * forgets a key once its windows' reach has passed (window_reach), the results are
 * the same whether the key was forgotten or not, however the input was batched.
 *
 * Accuracy.  Both sums are kept as double-doubles (hi + lo, the rounding errors of
 * each product and sum carried exactly by fma and TwoSum), so that the error of the
 * result is a few units of rounding of Σ w·|x| / Σ w, whatever the number of steps.
 * The weights themselves must not gather rounding errors step by step:
 *
 * - rows: each record multiplies both sums by c, an exact double, so the value k
 *   records old weighs exactly c^k, up to the double-double's own error (2^-104 a
 *   step).  A record without a number only counts a pending step, applied at the
 *   next number, so that the result in between is the last mean even where the
 *   weights underflow (W = 1, c = 0, makes a missing field weigh the history to 0).
 * - time: a factor 2^-Δ/D per step would be rounded at each step, and the k-th oldest
 *   value's weight would carry k roundings.  Instead a value's weight is computed once,
 *   relative to a reference time r: w = 2^((t - r)/D), in [1, 2), with one rounding.
 *   When a value comes a whole number k of half-lives after r or later, r moves by
 *   k·D and both sums are multiplied by 2^-k, exactly.
 *
 * NaN and the infinities never enter the sums: they are added to special, which is 0
 * until one comes and then ±inf or NaN until a fresh start forgets the history, and is
 * then the result, as any recursive mean gives it (inf stays inf, inf and -inf make
 * NaN, NaN stays NaN).  pandas reads a NaN as a missing value: that is --na=nan.
 *
 * Overflow.  Values are kept scaled by 2^-scale, scale being 0 until a sum would pass
 * 2^1000, which can happen only with values beyond about 1e300 (the sums of weights
 * are below 2^62 for rows, and below 2·n for n records within a half-life); the sums
 * then go to a form scaled by 2^-128 more, losing only values under 2^-894 beside
 * them, and come back when they have aged below 2^870, so that the numbers after a
 * huge one that has weighed away are summed as they are (1e308 and then 1e-300 at
 * W = 1 is 1e-300, not 0): what was lost stays below a unit of rounding of
 * Σ w·|x|, as all of it ages alike.  The result is scaled back (and is finite: a
 * mean lies within its values' range).
 *
 * O(1) memory and time a record; 176 bytes a window whatever its span.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "agg.h"
#include "mem.h"

#define EWMA_SUM_MAX 0x1p1000
#define EWMA_SCALE_STEP 128

struct ewma_window {
	struct agg header;
	double decay;		/* rows: c, the weight of a value one record old */
	int64_t halflife;	/* time: D in nanoseconds; 0 for rows */
	uint64_t forget_after;	/* time: a gap this long starts afresh (64 D), or
				   UINT64_MAX: none does (agg_history_reach) */
	int64_t reference;	/* time: a weight is 2^((t - reference)/D) */
	bool started;		/* time: reference and last are set */
	int64_t last;		/* time: the last record's timestamp */
	uint64_t pending;	/* rows: records since the last number, not yet aged */
	/*
	 * Σ w·x·2^-scale of the finite numbers (sum) and Σ w over every number, finite
	 * or not (weight), each as hi + lo.  A pair's hi and lo are not side by side:
	 * there gcc 12 stores them as one 16-byte vector, which waits for lo, and the
	 * next record's load of hi waits with it (swag -w 1000 ewma over 2 million
	 * numbers: 108 ms side by side, 96 ms apart).
	 */
	double sum_hi, weight_hi;
	double sum_lo, weight_lo;
	double special;		/* 0, or the sum of the NaNs and infinities seen */
	int scale;
	uint64_t n;		/* numbers seen */
};

/* The man page gives this size (AGGREGATES, ewma): a window whatever its span. */
_Static_assert(sizeof(struct ewma_window) == 176, "an ewma window takes 176 bytes");

/* hi + lo + x, renormalised (TwoSum). */
static inline void
dd_add(double *hi, double *lo, double x)
{
	double s = *hi + x, b = s - *hi;
	double e = ((*hi - (s - b)) + (x - b)) + *lo;

	*hi = s + e;
	*lo = e - (*hi - s);
}

/* hi + lo + a·b, the product's rounding error recovered by fma. */
static inline void
dd_add_product(double *hi, double *lo, double a, double b)
{
	double p = a * b;

	*lo += fma(a, b, -p);
	dd_add(hi, lo, p);
}

/* (hi + lo)·c, renormalised. */
static inline void
dd_scale(double *hi, double *lo, double c)
{
	double p = *hi * c, e = fma(*hi, c, -p) + *lo * c;

	*hi = p + e;
	*lo = e - (*hi - p);
}

/*
 * Makes an empty ewma of span params->window_rows (a row window) or half-life
 * params->window_nanos (a time window).  Returns NULL when memory is short.
 */
static struct agg *
ewma_create(const struct agg_kind *kind, const struct agg_params *params)
{
	struct ewma_window *w = mem_realloc(NULL, sizeof(*w));

	if (w == NULL)
		return NULL;
	memset(w, 0, sizeof(*w));
	w->header.kind = kind;
	w->header.params = *params;
	w->halflife = params->window_nanos;
	if (w->halflife == 0) {
		/* pandas: alpha = 2 / (span + 1), old_wt_factor = 1 - alpha. */
		double alpha = 2.0 / ((double)(params->window_rows > 0 ?
		    params->window_rows : 1) + 1.0);

		w->decay = 1.0 - alpha;
	} else {
		w->forget_after = agg_history_reach(w->halflife);
	}
	return &w->header;
}

/* Frees the window. */
static void
ewma_destroy(struct agg *agg)
{
	mem_free(agg);
}

/* Multiplies both sums by f (a decay or a power of two). */
static inline void
ewma_age(struct ewma_window *w, double f)
{
	dd_scale(&w->sum_hi, &w->sum_lo, f);
	dd_scale(&w->weight_hi, &w->weight_lo, f);
}

/* Scales the sums down by 2^-EWMA_SCALE_STEP more (see Overflow above). */
static __attribute__((noinline, cold)) void
ewma_scale_down(struct ewma_window *w)
{
	w->sum_hi = ldexp(w->sum_hi, -EWMA_SCALE_STEP);
	w->sum_lo = ldexp(w->sum_lo, -EWMA_SCALE_STEP);
	w->scale += EWMA_SCALE_STEP;
}

/*
 * Scales the sums back up by 2^EWMA_SCALE_STEP while they stay below EWMA_SUM_MAX
 * with room to spare (see Overflow above): the huge values have aged away.
 */
static __attribute__((noinline, cold)) void
ewma_scale_up(struct ewma_window *w)
{
	while (w->scale != 0 && fabs(w->sum_hi) < EWMA_SUM_MAX * 0x1p-130) {
		w->sum_hi = ldexp(w->sum_hi, EWMA_SCALE_STEP);
		w->sum_lo = ldexp(w->sum_lo, EWMA_SCALE_STEP);
		w->scale -= EWMA_SCALE_STEP;
	}
}

/* Adds the finite x with weight wt to the sums. */
static inline void
ewma_add(struct ewma_window *w, double x, double wt)
{
	double scaled = x;

	if (__builtin_expect(w->scale != 0, 0)) {
		ewma_scale_up(w);
		scaled = ldexp(x, -w->scale);
	}
	while (__builtin_expect(!(fabs(w->sum_hi + 2 * wt * scaled) < EWMA_SUM_MAX), 0)) {
		ewma_scale_down(w);
		scaled = ldexp(x, -w->scale);
	}
	dd_add_product(&w->sum_hi, &w->sum_lo, wt, scaled);
}

/* The weight of a value at time t, after moving the reference as far as it goes. */
static inline double
ewma_time_weight(struct ewma_window *w, int64_t t)
{
	uint64_t since, k;

	if (!w->started) {
		w->started = true;
		w->reference = t;
		return 1.0;
	}
	/* Timestamps never go back, and the unsigned difference cannot overflow. */
	since = (uint64_t)t - (uint64_t)w->reference;
	k = since / (uint64_t)w->halflife;
	if (k > 0) {
		/* Past 2200 half-lives every weight is below the smallest double. */
		double f = k > 2200 ? 0.0 : ldexp(1.0, -(int)k);

		ewma_age(w, f);
		w->reference = (int64_t)((uint64_t)w->reference + k * (uint64_t)w->halflife);
		since -= k * (uint64_t)w->halflife;
	}
	return exp2((double)since / (double)w->halflife);
}

/* Forgets the history: the window is as ewma_create made it. */
static __attribute__((noinline, cold)) void
ewma_forget(struct ewma_window *w)
{
	struct ewma_window fresh = { .header = w->header, .decay = w->decay,
	    .halflife = w->halflife, .forget_after = w->forget_after };

	*w = fresh;
}

/*
 * Takes one record: its number, weighted as the span or the half-life says, or, for a
 * record without one, only its age (a pending step; with a half-life, its time).
 * Never fails.
 */
AGG_INLINE int
ewma_push(struct agg *agg, const struct agg_value *value, int64_t time)
{
	struct ewma_window *w = (struct ewma_window *)agg;
	double wt = 1.0, x = value->number;

	if (w->halflife == 0) {
		if (!value->has_number) {
			w->pending++;
			return 0;
		}
		/* A history whose weight is 0 stays 0: no need to age it further. */
		for (uint64_t k = w->pending + 1; k > 0 && w->weight_hi != 0; k--)
			ewma_age(w, w->decay);
		w->pending = 0;
	} else {
		/* Timestamps never go back: the unsigned difference cannot overflow. */
		if (w->started && (uint64_t)time - (uint64_t)w->last >= w->forget_after &&
		    w->forget_after != UINT64_MAX)
			ewma_forget(w);
		if (!value->has_number) {
			if (w->started)
				w->last = time;
			return 0;
		}
		wt = ewma_time_weight(w, time);
		w->last = time;
	}
	w->n++;
	dd_add(&w->weight_hi, &w->weight_lo, wt);
	if (isfinite(x))
		ewma_add(w, x, wt);
	else
		w->special += x;
	return 0;
}

/* Stores Σ w·x / Σ w, special once a NaN or an infinity came, null before a number. */
AGG_INLINE void
ewma_result(struct agg *agg, struct agg_result *result)
{
	struct ewma_window *w = (struct ewma_window *)agg;
	double mean;

	if (w->n == 0 || w->n < agg->params.min_count) {
		result->kind = AGG_RESULT_NULL;
		return;
	}
	result->kind = AGG_RESULT_NUMBER;
	if (w->special != 0 || isnan(w->special)) {
		result->number = w->special;
		return;
	}
	/* The quotient of the double-doubles, corrected by its remainder once. */
	mean = w->sum_hi / w->weight_hi;
	mean += (fma(-mean, w->weight_hi, w->sum_hi) + w->sum_lo - mean * w->weight_lo) /
	    w->weight_hi;
	result->number = w->scale != 0 ? ldexp(mean, w->scale) : mean;
}

static size_t
ewma_move(struct agg *agg, const struct agg_move *move)
{
	return agg_move_steps(agg, move, agg_size_none, agg_pop_none, ewma_push, ewma_result);
}

const struct agg_kind agg_ewma = {
	"ewma", AGG_INPUT_NUMBER, ewma_create, ewma_destroy, ewma_move, true, false
};
