/*
 * test_twostack.c: the two-stack engine, state by state and against a naive queue.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "twostack.h"

/*
 * A concatenation aggregate, "+"-joined: combine("2+3", "4") is "2+3+4".  It is
 * not commutative, so any operand swapped by the engine shows, and its Aggs print
 * as the seed's table writes them.
 */
struct text_agg {
	char text[TWOSTACK_AGG_MAX];
};

static void
text_empty(void *agg)
{
	((struct text_agg *)agg)->text[0] = '\0';
}

static void
text_combine(void *out, const void *older, const void *newer)
{
	const struct text_agg *a = older, *b = newer;
	struct text_agg r;

	if (a->text[0] == '\0')
		r = *b;
	else if (b->text[0] == '\0')
		r = *a;
	else
		cr_assert(snprintf(r.text, sizeof(r.text), "%s+%s", a->text, b->text) <
		    (int)sizeof(r.text));
	*(struct text_agg *)out = r;
}

static const struct twostack_ops text_ops = { sizeof(struct text_agg), text_empty, text_combine,
    NULL };

/* The same with a suffix function (twostack.h's TWOSTACK_SUFFIX), counting its calls. */
static unsigned suffix_calls;

/* Defines name as combine's suffix function, counting its calls in suffix_calls. */
#define COUNTED_SUFFIX(name, type, combine)						\
	TWOSTACK_SUFFIX(name##_uncounted, type, combine)				\
	static void									\
	name(unsigned char *newest, size_t count)					\
	{										\
		suffix_calls++;								\
		name##_uncounted(newest, count);					\
	}

COUNTED_SUFFIX(text_suffix_counted, struct text_agg, text_combine)

static const struct twostack_ops text_suffix_ops = { sizeof(struct text_agg), text_empty,
    text_combine, text_suffix_counted };

static void
text_push(struct twostack *ts, const struct twostack_ops *ops, int value)
{
	struct text_agg unit;

	snprintf(unit.text, sizeof(unit.text), "%d", value);
	cr_assert_eq(twostack_push(ts, ops, &unit), 0);
}

/*
 * Writes the state as the seed's table does: "[cum_aggs] | [values] | = result",
 * cum_aggs bottom to top (the top being the aggregate of the oldest elements).
 */
static void
describe(const struct twostack *ts, char *buf, size_t size)
{
	struct text_agg result;
	size_t n = 0;

	n += (size_t)snprintf(buf + n, size - n, "[");
	for (uint64_t pos = ts->mid; pos > ts->ring.head; pos--)
		n += (size_t)snprintf(buf + n, size - n, "%s%s", pos == ts->mid ? "" : ", ",
		    ((const struct text_agg *)twostack_slot(ts, sizeof(result), pos - 1))->text);
	n += (size_t)snprintf(buf + n, size - n, "] | [");
	for (uint64_t pos = ts->mid; pos < ts->ring.tail; pos++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s", pos == ts->mid ? "" : ", ",
		    ((const struct text_agg *)twostack_slot(ts, sizeof(result), pos))->text);
	twostack_eval(ts, &text_ops, &result);
	snprintf(buf + n, size - n, "] | = %s", result.text[0] ? result.text : "0");
}

/*
 * The seed's table: summing 1..10 over a window of four, the state at every eval.
 * The window pops before it pushes once full, as the seed does.
 */
static void
seed_table(const struct twostack_ops *ops)
{
	static const char *const expected[] = {
		"[] | [] | = 0",
		"[] | [1] | = 1",
		"[] | [1, 2] | = 1+2",
		"[] | [1, 2, 3] | = 1+2+3",
		"[] | [1, 2, 3, 4] | = 1+2+3+4",
		"[4, 3+4, 2+3+4] | [5] | = 2+3+4+5",
		"[4, 3+4] | [5, 6] | = 3+4+5+6",
		"[4] | [5, 6, 7] | = 4+5+6+7",
		"[] | [5, 6, 7, 8] | = 5+6+7+8",
		"[8, 7+8, 6+7+8] | [9] | = 6+7+8+9",
		"[8, 7+8] | [9, 10] | = 7+8+9+10",
		"[8] | [9, 10] | = 8+9+10",
		"[] | [9, 10] | = 9+10",
		"[10] | [] | = 10",
		"[] | [] | = 0",
	};
	struct twostack ts;
	char state[256];
	size_t row = 0;

	twostack_init(&ts, ops);
	describe(&ts, state, sizeof(state));
	cr_assert_str_eq(state, expected[row++]);
	for (int x = 1; x <= 10; x++) {
		if (twostack_size(&ts) == 4)
			twostack_pop(&ts, ops);
		text_push(&ts, ops, x);
		describe(&ts, state, sizeof(state));
		cr_assert_str_eq(state, expected[row], "row %zu", row);
		row++;
	}
	while (twostack_size(&ts) > 0) {
		twostack_pop(&ts, ops);
		describe(&ts, state, sizeof(state));
		cr_assert_str_eq(state, expected[row], "row %zu", row);
		row++;
	}
	cr_assert_eq(row, sizeof(expected) / sizeof(expected[0]));
	twostack_free(&ts);
}

Test(twostack, seed_table)
{
	seed_table(&text_ops);
}

/* The three flips by the suffix function leave the slots the combines leave. */
Test(twostack, seed_table_suffix)
{
	suffix_calls = 0;
	seed_table(&text_suffix_ops);
	cr_assert_eq(suffix_calls, 3, "%u flips by the suffix", suffix_calls);
}

/* One-character units without separators, so windows of up to 63 fit in an Agg. */
static void
chars_combine(void *out, const void *older, const void *newer)
{
	const struct text_agg *a = older, *b = newer;
	struct text_agg r;
	size_t la = strlen(a->text), lb = strlen(b->text);

	cr_assert_lt(la + lb, sizeof(r.text));
	memcpy(r.text, a->text, la);
	memcpy(r.text + la, b->text, lb + 1);
	*(struct text_agg *)out = r;
}

static const struct twostack_ops chars_ops = { sizeof(struct text_agg), text_empty,
    chars_combine, NULL };

COUNTED_SUFFIX(chars_suffix_counted, struct text_agg, chars_combine)

static const struct twostack_ops chars_suffix_ops = { sizeof(struct text_agg), text_empty,
    chars_combine, chars_suffix_counted };

/*
 * Random pushes and pops in any order, the window growing and shrinking between 0
 * and 63 elements: the engine's aggregate is always the queue's concatenation,
 * oldest first.
 */
static void
random_order_preserved(const struct twostack_ops *ops)
{
	struct twostack ts;
	char naive[64];
	size_t naive_len = 0;
	struct text_agg unit, result;
	unsigned seed = 12345;

	twostack_init(&ts, ops);
	for (int step = 0; step < 200000; step++) {
		int r = rand_r(&seed) % 100;
		/* Drift between growing and shrinking phases to cover every size. */
		int push_bias = (step / 1000) % 2 ? 70 : 35;

		if ((r < push_bias && naive_len < 63) || naive_len == 0) {
			char c = (char)('a' + rand_r(&seed) % 26);

			unit.text[0] = c;
			unit.text[1] = '\0';
			cr_assert_eq(twostack_push(&ts, ops, &unit), 0);
			naive[naive_len++] = c;
		} else {
			twostack_pop(&ts, ops);
			memmove(naive, naive + 1, --naive_len);
		}
		naive[naive_len] = '\0';
		cr_assert_eq(twostack_size(&ts), naive_len);
		twostack_eval(&ts, ops, &result);
		cr_assert_str_eq(result.text, naive, "step %d", step);
	}
	twostack_free(&ts);
}

Test(twostack, random_order_preserved)
{
	random_order_preserved(&chars_ops);
}

/* The same with the suffix function, which flips every back, in two runs where it wraps. */
Test(twostack, random_order_preserved_suffix)
{
	suffix_calls = 0;
	random_order_preserved(&chars_suffix_ops);
	cr_assert_gt(suffix_calls, 1000);
}

/*
 * Sliding windows of 1 to 40 elements over 300 values each, with the suffix function:
 * as the ring's positions move on, the back that flips wraps the ring at every place
 * in it, and each result is the window's concatenation, oldest first.
 */
Test(twostack, suffix_flips_across_the_wrap)
{
	for (size_t size = 1; size <= 40; size++) {
		struct twostack ts;
		struct text_agg unit, result;
		char naive[64];
		size_t len = 0;

		twostack_init(&ts, &chars_suffix_ops);
		for (int i = 0; i < 300; i++) {
			char c = (char)('a' + i % 26);

			if (len == size) {
				twostack_pop(&ts, &chars_suffix_ops);
				memmove(naive, naive + 1, --len);
			}
			unit.text[0] = c;
			unit.text[1] = '\0';
			cr_assert_eq(twostack_push(&ts, &chars_suffix_ops, &unit), 0);
			naive[len++] = c;
			naive[len] = '\0';
			twostack_eval(&ts, &chars_suffix_ops, &result);
			cr_assert_str_eq(result.text, naive, "window %zu, value %d", size, i);
		}
		twostack_free(&ts);
	}
}

/*
 * first, last, count and an integer sum: order-sensitive and exact in any grouping;
 * its combines are counted.
 */
struct exact_agg {
	int64_t first, last, sum;
	uint64_t n;
};

static uint64_t exact_combines;

static void
exact_empty(void *agg)
{
	*(struct exact_agg *)agg = (struct exact_agg){ 0, 0, 0, 0 };
}

static void
exact_combine(void *out, const void *older, const void *newer)
{
	const struct exact_agg *a = older, *b = newer;
	struct exact_agg r;

	exact_combines++;
	if (a->n == 0)
		r = *b;
	else if (b->n == 0)
		r = *a;
	else
		r = (struct exact_agg){ a->first, b->last, a->sum + b->sum, a->n + b->n };
	*(struct exact_agg *)out = r;
}

static const struct twostack_ops exact_ops = { sizeof(struct exact_agg), exact_empty,
    exact_combine, NULL };

/*
 * Windows of up to 100,000 elements with the ring growing while the front and back
 * stacks both hold elements: first and last are always the queue's ends.
 */
Test(twostack, large_windows_and_growth)
{
	struct twostack ts;
	struct exact_agg unit, result;
	int64_t oldest = 0, next = 0;
	unsigned seed = 99;

	twostack_init(&ts, &exact_ops);
	for (int phase = 0; phase < 40; phase++) {
		int64_t target = (int64_t)(rand_r(&seed) % 100000);

		while (next - oldest != target) {
			if (next - oldest < target && (rand_r(&seed) % 4 != 0 || next == oldest)) {
				unit = (struct exact_agg){ next, next, 0, 1 };
				cr_assert_eq(twostack_push(&ts, &exact_ops, &unit), 0);
				next++;
			} else {
				twostack_pop(&ts, &exact_ops);
				oldest++;
			}
			twostack_eval(&ts, &exact_ops, &result);
			cr_assert_eq(result.n, (uint64_t)(next - oldest));
			if (result.n > 0) {
				cr_assert_eq(result.first, oldest);
				cr_assert_eq(result.last, next - 1);
			}
		}
	}
	cr_assert_leq(ts.ring.cap, 2 * 131072);
	twostack_free(&ts);
}

/* The ring grows with the elements held, not with a window's nominal size. */
Test(twostack, memory_follows_elements)
{
	struct twostack ts;
	struct exact_agg unit = { 1, 1, 1, 1 };

	twostack_init(&ts, &exact_ops);
	cr_assert_eq(ts.ring.cap, 0);
	for (int i = 0; i < 10; i++)
		cr_assert_eq(twostack_push(&ts, &exact_ops, &unit), 0);
	cr_assert_eq(ts.ring.cap, 16);
	for (int i = 0; i < 1000000; i++) {
		twostack_pop(&ts, &exact_ops);
		cr_assert_eq(twostack_push(&ts, &exact_ops, &unit), 0);
	}
	cr_assert_eq(ts.ring.cap, 16);
	twostack_free(&ts);
}

/*
 * Windows across the engine's bound (twostack.h, "Bounded work"), of exact_agg: every
 * push, pop and eval is checked against the queue it stands for, and its combines
 * against the bound: at most TWOSTACK_EAGER_MAX + 1, and more than a turned window's
 * 2 + TWOSTACK_TURN_RATIO only in a window that flips (at most TWOSTACK_EAGER_MAX
 * elements before the operation) or that has just passed that size.
 *
 * The queue [oldest, next) of the values v(i) = i % 1000 - 500, with its running sum.
 */
struct exact_queue {
	struct twostack ts;
	int64_t oldest, next, sum;
	uint64_t worst;		/* the most combines of one operation */
};

static int64_t
exact_value(int64_t i)
{
	return i % 1000 - 500;
}

/* Checks the operation that just did `combines` combines, the window holding before. */
static void
exact_check(struct exact_queue *q, uint64_t combines, uint64_t before, const char *what)
{
	struct exact_agg result;
	uint64_t n = (uint64_t)(q->next - q->oldest);

	if (combines > q->worst)
		q->worst = combines;
	cr_assert_leq(combines, TWOSTACK_EAGER_MAX + 1, "%s of %" PRIu64 ": %" PRIu64 " combines",
	    what, before, combines);
	if (combines > 2 + TWOSTACK_TURN_RATIO)
		cr_assert(before <= TWOSTACK_EAGER_MAX,
		    "%s of %" PRIu64 " elements: %" PRIu64 " combines", what, before, combines);
	exact_combines = 0;
	twostack_eval(&q->ts, &exact_ops, &result);
	cr_assert_leq(exact_combines, 1);
	cr_assert_eq(twostack_size(&q->ts), n);
	cr_assert_eq(result.n, n, "%s: n %" PRIu64 " of %" PRIu64, what, result.n, n);
	cr_assert_eq(result.sum, q->sum, "%s: sum %" PRId64 " of %" PRId64 " (%" PRIu64
	    " elements)", what, result.sum, q->sum, n);
	if (n > 0) {
		cr_assert_eq(result.first, q->oldest);
		cr_assert_eq(result.last, q->next - 1);
	}
}

static void
exact_push(struct exact_queue *q)
{
	struct exact_agg unit = { q->next, q->next, exact_value(q->next), 1 };
	uint64_t before = twostack_size(&q->ts);

	exact_combines = 0;
	cr_assert_eq(twostack_push(&q->ts, &exact_ops, &unit), 0);
	q->sum += exact_value(q->next++);
	exact_check(q, exact_combines, before, "push");
}

static void
exact_pop(struct exact_queue *q)
{
	uint64_t before = twostack_size(&q->ts);

	exact_combines = 0;
	twostack_pop(&q->ts, &exact_ops);
	q->sum -= exact_value(q->oldest++);
	exact_check(q, exact_combines, before, "pop");
}

/* A long fill, then a steady slide: past the first flip, five combines at most. */
Test(twostack, bounded_fill_then_slide)
{
	static const uint64_t windows[] = { TWOSTACK_EAGER_MAX - 1, TWOSTACK_EAGER_MAX,
	    TWOSTACK_EAGER_MAX + 1, 2 * TWOSTACK_EAGER_MAX + 3, 300000 };

	for (size_t k = 0; k < sizeof(windows) / sizeof(windows[0]); k++) {
		struct exact_queue q = { .oldest = 0 };

		twostack_init(&q.ts, &exact_ops);
		for (uint64_t i = 0; i < windows[k]; i++)
			exact_push(&q);
		q.worst = 0;
		for (uint64_t i = 0; i < 3 * windows[k]; i++) {
			exact_pop(&q);
			exact_push(&q);
		}
		if (windows[k] > TWOSTACK_EAGER_MAX)
			cr_assert_leq(q.worst, 2 + TWOSTACK_TURN_RATIO, "window %" PRIu64
			    ": %" PRIu64 " combines", windows[k], q.worst);
		else
			cr_assert_leq(q.worst, windows[k]);
		twostack_free(&q.ts);
	}
}

/*
 * Random pushes and pops, the window drifting between empty and 200,000 elements,
 * with bursts that evict most of it at once (a time window's gap) and bursts of
 * pushes (many records at one time).
 */
Test(twostack, bounded_random_and_bursts)
{
	struct exact_queue q = { .oldest = 0 };
	unsigned seed = 2021;

	twostack_init(&q.ts, &exact_ops);
	for (int phase = 0; phase < 60; phase++) {
		int64_t target = (int64_t)(rand_r(&seed) % 200000);
		int burst = rand_r(&seed) % 4;

		if (burst == 0) {
			/* Evict all but a few, one pop after another. */
			while (q.next - q.oldest > rand_r(&seed) % 3)
				exact_pop(&q);
		} else if (burst == 1) {
			for (int i = rand_r(&seed) % 50000; i > 0; i--)
				exact_push(&q);
		}
		while (q.next - q.oldest != target) {
			bool grow = q.next - q.oldest < target;

			if (rand_r(&seed) % 4 == 0 && q.next > q.oldest)
				exact_pop(&q);
			else if (rand_r(&seed) % 4 == 0 || !grow)
				exact_push(&q), exact_pop(&q);
			else
				exact_push(&q);
		}
	}
	twostack_free(&q.ts);
}

/*
 * The count passing TWOSTACK_EAGER_MAX with every size of front: the window turns then
 * with a back of any size beside it, finishing at once when the steps could not, and
 * then slides or is evicted whole, pop after pop, when the steps have least room.
 */
Test(twostack, bounded_crossing)
{
	/* Where the back, TWOSTACK_EAGER_MAX + 1 - front, is the most the steps finish. */
	const uint64_t edge = (TWOSTACK_EAGER_MAX - 3) / (TWOSTACK_TURN_RATIO + 1);

	for (uint64_t front = 1; front < TWOSTACK_EAGER_MAX;
	    front = front + 8 >= edge && front <= edge + 8 ? front + 1 :
	    front < edge - 8 && front + front / 8 + 1 > edge - 8 ? edge - 8 :
	    front + front / 8 + 1)
		for (int slide = 0; slide < 2; slide++) {
			struct exact_queue q = { .oldest = 0 };

			twostack_init(&q.ts, &exact_ops);
			for (uint64_t i = 0; i <= front; i++)
				exact_push(&q);
			exact_pop(&q);	/* a flip: the front holds front elements */
			while (twostack_size(&q.ts) <= TWOSTACK_EAGER_MAX)
				exact_push(&q);
			for (uint64_t i = 0; slide && i < 2 * TWOSTACK_EAGER_MAX; i++) {
				exact_pop(&q);
				exact_push(&q);
			}
			while (twostack_size(&q.ts) > 0)
				exact_pop(&q);
			twostack_free(&q.ts);
		}
}
