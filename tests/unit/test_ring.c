/*
 * test_ring.c: the growable ring (ring.h) against a naive queue: positions kept across
 * growth and shrinking, wrap-around, pops from both ends, and elements of many sizes.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ring.h"

/* Fills element (size bytes) with a pattern made from its position. */
static void
fill(unsigned char *element, size_t size, uint64_t pos)
{
	for (size_t i = 0; i < size; i++)
		element[i] = (unsigned char)(pos * 131 + i * 7 + 1);
}

/* Asserts that element holds the pattern of position pos. */
static void
check(const unsigned char *element, size_t size, uint64_t pos)
{
	for (size_t i = 0; i < size; i++)
		cr_assert_eq(element[i], (unsigned char)(pos * 131 + i * 7 + 1),
		    "position %llu, byte %zu of %zu", (unsigned long long)pos, i, size);
}

/* Asserts that ring holds positions [head, tail), each with its pattern. */
static void
check_all(const struct ring *ring, size_t size, uint64_t head, uint64_t tail)
{
	cr_assert_eq(ring->head, head);
	cr_assert_eq(ring->tail, tail);
	cr_assert_eq(ring_count(ring), tail - head);
	cr_assert_leq(ring_count(ring), ring->cap);
	cr_assert_eq(ring->cap & (ring->cap - 1), 0, "cap %llu", (unsigned long long)ring->cap);
	for (uint64_t pos = head; pos != tail; pos++)
		check(ring_at(ring, size, pos), size, pos);
}

/*
 * Random pushes, pops from the front and the back, and shrinks, for element sizes
 * from 1 to 40 bytes: every element stays at its position, whatever the ring did.
 */
static void
random_run(size_t size, unsigned seed)
{
	struct ring ring;
	uint64_t head = 0, tail = 0;
	size_t target = 0;

	ring_init(&ring);
	cr_assert_eq(ring.cap, 0);
	for (int step = 0; step < 20000; step++) {
		int r = rand_r(&seed) % 100;

		if (step % 500 == 0)
			target = (size_t)rand_r(&seed) % (rand_r(&seed) % 2 ? 20 : 1500);
		if (tail - head < target ? r < 70 : r < 30) {
			unsigned char *slot = ring_push(&ring, size);

			cr_assert_not_null(slot);
			fill(slot, size, tail++);
		} else if (tail != head && r < 90) {
			ring.head++;
			head++;
		} else if (tail != head) {
			ring.tail--;
			tail--;
		}
		/* Give memory back as mode's window does, a quarter full. */
		if (ring.cap > RING_FIRST_CAP && ring_count(&ring) * 4 < ring.cap)
			cr_assert_eq(ring_resize(&ring, size, ring.cap / 2), 0);
		if (step % 97 == 0 || tail - head < 4)
			check_all(&ring, size, head, tail);
	}
	check_all(&ring, size, head, tail);
	ring_free(&ring);
	cr_assert_eq(ring.cap, 0);
	cr_assert_null(ring.slots);
}

Test(ring, many_sizes_against_a_naive_queue)
{
	for (size_t size = 1; size <= 40; size++)
		random_run(size, (unsigned)size * 7919);
}

/*
 * A ring that wraps: a steady window of 10 moves a million positions on in its 16
 * slots, the newest element at slot pos & 15, and never grows.
 */
Test(ring, wraps_around_without_growing)
{
	struct ring ring;

	ring_init(&ring);
	for (uint64_t pos = 0; pos < 1000000; pos++) {
		uint64_t *slot;

		if (ring_count(&ring) == 10)
			ring.head++;
		slot = RING_PUSH(&ring, uint64_t);
		cr_assert_not_null(slot);
		*slot = pos;
		cr_assert_eq((unsigned char *)slot - ring.slots, (ptrdiff_t)((pos & 15) * 8));
		cr_assert_eq(*RING_FRONT(&ring, uint64_t), ring.head);
		cr_assert_eq(*RING_BACK(&ring, uint64_t), pos);
	}
	cr_assert_eq(ring.cap, RING_FIRST_CAP);
	ring_free(&ring);
}

/*
 * Growth while the ring has wrapped: the elements keep their positions, each moved
 * to position mod the new cap, and the pointer to a position changes but not what
 * it holds.
 */
Test(ring, growth_keeps_positions_after_wrapping)
{
	struct ring ring;
	struct element {
		uint64_t pos;
		uint32_t tag;
	} *e;

	ring_init(&ring);
	/* Positions 0..99 pushed and popped, so the next elements start mid-ring. */
	for (uint64_t pos = 0; pos < 100; pos++) {
		cr_assert_not_null(e = RING_PUSH(&ring, struct element));
		*e = (struct element){ pos, (uint32_t)pos * 3 };
		ring.head++;
	}
	cr_assert_eq(ring.cap, RING_FIRST_CAP);
	for (uint64_t pos = 100; pos < 100 + 5000; pos++) {
		uint64_t cap = ring.cap;

		cr_assert_not_null(e = RING_PUSH(&ring, struct element));
		*e = (struct element){ pos, (uint32_t)pos * 3 };
		if (ring.cap != cap) {
			cr_assert_eq(ring.cap, 2 * cap);
			for (uint64_t p = ring.head; p != ring.tail - 1; p++) {
				const struct element *held = RING_AT(&ring, struct element, p);

				cr_assert_eq(held->pos, p);
				cr_assert_eq(held->tag, (uint32_t)p * 3);
			}
		}
	}
	cr_assert_eq(ring.cap, 8192);
	cr_assert_eq(RING_FRONT(&ring, struct element)->pos, 100);
	cr_assert_eq(RING_BACK(&ring, struct element)->pos, 5099);
	ring_free(&ring);
}

/* ring_reserve makes the slot of position tail writable before the push is counted. */
Test(ring, reserve_then_push)
{
	struct ring ring;

	ring_init(&ring);
	for (uint32_t i = 0; i < 100; i++) {
		cr_assert_eq(ring_reserve(&ring, sizeof(uint32_t)), 0);
		*RING_AT(&ring, uint32_t, ring.tail) = i;
		cr_assert_eq(ring_count(&ring), i, "a reserve is not a push");
		ring.tail++;
	}
	for (uint32_t i = 0; i < 100; i++)
		cr_assert_eq(*RING_AT(&ring, uint32_t, i), i);
	cr_assert_eq(ring.cap, 128);
	ring_free(&ring);
}
