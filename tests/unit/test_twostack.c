/*
 * test_twostack.c: the two-stack engine, state by state and against a naive queue.
 */
#include <criterion/criterion.h>
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

static const struct twostack_ops text_ops = { sizeof(struct text_agg), text_empty, text_combine };

static void
text_push(struct twostack *ts, int value)
{
	struct text_agg unit;

	snprintf(unit.text, sizeof(unit.text), "%d", value);
	cr_assert_eq(twostack_push(ts, &text_ops, &unit), 0);
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
Test(twostack, seed_table)
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

	twostack_init(&ts, &text_ops);
	describe(&ts, state, sizeof(state));
	cr_assert_str_eq(state, expected[row++]);
	for (int x = 1; x <= 10; x++) {
		if (twostack_size(&ts) == 4)
			twostack_pop(&ts, &text_ops);
		text_push(&ts, x);
		describe(&ts, state, sizeof(state));
		cr_assert_str_eq(state, expected[row], "row %zu", row);
		row++;
	}
	while (twostack_size(&ts) > 0) {
		twostack_pop(&ts, &text_ops);
		describe(&ts, state, sizeof(state));
		cr_assert_str_eq(state, expected[row], "row %zu", row);
		row++;
	}
	cr_assert_eq(row, sizeof(expected) / sizeof(expected[0]));
	twostack_free(&ts);
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

static const struct twostack_ops chars_ops = { sizeof(struct text_agg), text_empty, chars_combine };

/*
 * Random pushes and pops in any order, the window growing and shrinking between 0
 * and 63 elements: the engine's aggregate is always the queue's concatenation,
 * oldest first.
 */
Test(twostack, random_order_preserved)
{
	struct twostack ts;
	char naive[64];
	size_t naive_len = 0;
	struct text_agg unit, result;
	unsigned seed = 12345;

	twostack_init(&ts, &chars_ops);
	for (int step = 0; step < 200000; step++) {
		int r = rand_r(&seed) % 100;
		/* Drift between growing and shrinking phases to cover every size. */
		int push_bias = (step / 1000) % 2 ? 70 : 35;

		if ((r < push_bias && naive_len < 63) || naive_len == 0) {
			char c = (char)('a' + rand_r(&seed) % 26);

			unit.text[0] = c;
			unit.text[1] = '\0';
			cr_assert_eq(twostack_push(&ts, &chars_ops, &unit), 0);
			naive[naive_len++] = c;
		} else {
			twostack_pop(&ts, &chars_ops);
			memmove(naive, naive + 1, --naive_len);
		}
		naive[naive_len] = '\0';
		cr_assert_eq(twostack_size(&ts), naive_len);
		twostack_eval(&ts, &chars_ops, &result);
		cr_assert_str_eq(result.text, naive, "step %d", step);
	}
	twostack_free(&ts);
}

/* first/last/count: order-sensitive, small, for large windows and ring growth. */
struct ends_agg {
	int64_t first, last;
	uint64_t n;
};

static void
ends_empty(void *agg)
{
	*(struct ends_agg *)agg = (struct ends_agg){ 0, 0, 0 };
}

static void
ends_combine(void *out, const void *older, const void *newer)
{
	const struct ends_agg *a = older, *b = newer;
	struct ends_agg r;

	if (a->n == 0)
		r = *b;
	else if (b->n == 0)
		r = *a;
	else
		r = (struct ends_agg){ a->first, b->last, a->n + b->n };
	*(struct ends_agg *)out = r;
}

static const struct twostack_ops ends_ops = { sizeof(struct ends_agg), ends_empty, ends_combine };

/*
 * Windows of up to 100,000 elements with the ring growing while the front and back
 * stacks both hold elements: first and last are always the queue's ends.
 */
Test(twostack, large_windows_and_growth)
{
	struct twostack ts;
	struct ends_agg unit, result;
	int64_t oldest = 0, next = 0;
	unsigned seed = 99;

	twostack_init(&ts, &ends_ops);
	for (int phase = 0; phase < 40; phase++) {
		int64_t target = (int64_t)(rand_r(&seed) % 100000);

		while (next - oldest != target) {
			if (next - oldest < target && (rand_r(&seed) % 4 != 0 || next == oldest)) {
				unit = (struct ends_agg){ next, next, 1 };
				cr_assert_eq(twostack_push(&ts, &ends_ops, &unit), 0);
				next++;
			} else {
				twostack_pop(&ts, &ends_ops);
				oldest++;
			}
			twostack_eval(&ts, &ends_ops, &result);
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
	struct ends_agg unit = { 1, 1, 1 };

	twostack_init(&ts, &ends_ops);
	cr_assert_eq(ts.ring.cap, 0);
	for (int i = 0; i < 10; i++)
		cr_assert_eq(twostack_push(&ts, &ends_ops, &unit), 0);
	cr_assert_eq(ts.ring.cap, 16);
	for (int i = 0; i < 1000000; i++) {
		twostack_pop(&ts, &ends_ops);
		cr_assert_eq(twostack_push(&ts, &ends_ops, &unit), 0);
	}
	cr_assert_eq(ts.ring.cap, 16);
	twostack_free(&ts);
}
