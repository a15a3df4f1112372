/*
 * test_ring.c: the growable ring (ring.h) against a naive queue: positions kept across
 * growth and shrinking, wrap-around, pops from both ends, and elements of many sizes,
 * in small rings and in mapped ones; and the bytes a filling ring copies, counted.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"
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
random_run(size_t size, unsigned seed, int steps, int most)
{
	struct ring ring;
	uint64_t head = 0, tail = 0;
	size_t target = 0;

	ring_init(&ring);
	cr_assert_eq(ring.cap, 0);
	for (int step = 0; step < steps; step++) {
		int r = rand_r(&seed) % 100;

		if (step % 500 == 0)
			target = (size_t)rand_r(&seed) % (rand_r(&seed) % 2 ? 20 : most);
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
		random_run(size, (unsigned)size * 7919, 20000, 1500);
}

/*
 * The same with rings of up to 20,000 elements, past MEM_MAP_MIN bytes: mapped rings
 * that grow in place with their elements wrapped (only those whose slot changes
 * move), and shrink into a smaller block.
 */
Test(ring, mapped_rings_against_a_naive_queue)
{
	for (size_t size = 8; size <= 40; size += 16)
		random_run(size, (unsigned)size * 31, 200000, 20000);
}

/*
 * A row window filling: 2^21 elements of 24 bytes pushed from position 0, as every
 * aggregate's ring fills; past MEM_MAP_MIN bytes the ring grows in place and copies
 * nothing, so no push copies more than MEM_MAP_MIN bytes (a doubling by copying
 * would move 24 MB in the last growth), and all of them less than twice that (the
 * small rings' doublings).  Counted with
 * ring.c's ring_bytes_copied (the Makefile's TEST_COUNTED_ring).
 */
Test(ring, filling_copies_at_most_a_small_ring)
{
	struct ring ring;
	uint64_t before = ring_bytes_copied, last;

	ring_init(&ring);
	for (uint64_t pos = 0; pos < (UINT64_C(1) << 21); pos++) {
		uint64_t *slot;

		last = ring_bytes_copied;
		cr_assert_not_null(slot = ring_push(&ring, 24));
		slot[0] = pos;
		slot[2] = ~pos;
		cr_assert_leq(ring_bytes_copied - last, MEM_MAP_MIN, "push %llu",
		    (unsigned long long)pos);
	}
	cr_assert_lt(ring_bytes_copied - before, 2 * MEM_MAP_MIN);
	cr_assert_eq(ring.cap, UINT64_C(1) << 21);
	cr_assert_neq(ring.mapped, 0);
	for (uint64_t pos = 0; pos < (UINT64_C(1) << 21); pos++) {
		const uint64_t *slot = ring_at(&ring, 24, pos);

		cr_assert(slot[0] == pos && slot[2] == ~pos, "position %llu",
		    (unsigned long long)pos);
	}
	ring_free(&ring);
	cr_assert_eq(ring.mapped, 0);
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

/*
 * The same for a mapped ring, which grows in place: 4,096 elements of 40 bytes (160
 * KiB), 1,000 popped and as many pushed, so that the ring has wrapped when the next
 * push grows it: the elements past the wrap move up by the old cap, the others stay,
 * and only those are copied.
 */
Test(ring, mapped_growth_keeps_positions_after_wrapping)
{
	struct ring ring;
	uint64_t copied;

	ring_init(&ring);
	for (uint64_t pos = 0; pos < 5096; pos++) {
		if (pos == 4096)
			ring.head = 1000;
		cr_assert_not_null(ring_push(&ring, 40));
		fill(ring_at(&ring, 40, pos), 40, pos);
	}
	cr_assert_eq(ring.cap, 4096);
	cr_assert_neq(ring.mapped, 0);
	copied = ring_bytes_copied;
	cr_assert_not_null(ring_push(&ring, 40));
	fill(ring_at(&ring, 40, 5096), 40, 5096);
	cr_assert_eq(ring.cap, 8192);
	/* Positions 4096..5095 were in slots 0..999 and are now in 4096..5095. */
	cr_assert_eq(ring_bytes_copied - copied, 1000 * 40);
	check_all(&ring, 40, 1000, 5097);
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
