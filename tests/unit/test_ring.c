/*
 * test_ring.c: the growable ring (ring.h) against a naive queue: positions kept across
 * growth, moves and shrinking, wrap-around, pops from both ends, and elements of many
 * sizes, in small rings and in mapped ones, with and without a limit; a row window's
 * ring at exactly its window's size; and the bytes a push copies, counted.
 */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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
	/* A failure alone is reported: Criterion's passed asserts cost microseconds. */
	for (size_t i = 0; i < size; i++)
		if (element[i] != (unsigned char)(pos * 131 + i * 7 + 1))
			cr_assert_fail("position %llu, byte %zu of %zu: %u", (unsigned long long)pos,
			    i, size, element[i]);
}

/*
 * Asserts that ring holds positions [head, tail), each with its pattern, found by
 * ring_at and by walking ring_run's runs by pointer, and that no slot is out of the
 * ring's memory.
 */
static void
check_all(const struct ring *ring, size_t size, uint64_t head, uint64_t tail)
{
	uint64_t slots = ring_moving(ring) ? ring->moving : ring->cap;

	cr_assert_eq(ring->head, head);
	cr_assert_eq(ring->tail, tail);
	cr_assert_eq(ring_count(ring), tail - head);
	cr_assert_leq(ring_count(ring), ring->cap);
	for (uint64_t pos = head; pos != tail; pos++) {
		cr_assert_lt(ring_index(ring, pos), slots, "position %llu",
		    (unsigned long long)pos);
		check(ring_at(ring, size, pos), size, pos);
	}
	for (uint64_t pos = head, run; pos != tail; pos += run) {
		const unsigned char *at = ring_at(ring, size, pos);

		run = ring_run(ring, pos);
		cr_assert_gt(run, 0, "position %llu", (unsigned long long)pos);
		if (run > tail - pos)
			run = tail - pos;
		cr_assert_leq(ring_index(ring, pos) + run, slots);
		for (uint64_t i = 0; i < run; i++)
			check(at + i * size, size, pos + i);
	}
	/* Down by pointer, as the two-stack's flip walks (ring_lowest, ring_highest). */
	if (tail != head) {
		const unsigned char *at = ring_at(ring, size, tail - 1);

		for (uint64_t pos = tail - 1;; pos--) {
			check(at, size, pos);
			if (pos == head)
				break;
			at = at == ring_lowest(ring, size) ? ring_highest(ring, size) : at - size;
		}
	}
}

/*
 * Random pushes, pops from the front and the back, and shrinks, for element sizes
 * from 1 to 40 bytes: every element stays at its position, whatever the ring did.
 */
static void
random_run(size_t size, unsigned seed, int steps, int most, bool shrink)
{
	struct ring ring;
	uint64_t head = 0, tail = 0;
	size_t target = 0;

	ring_init(&ring);
	cr_assert_eq(ring.cap, 0);
	/* Half the runs as a row window's, with a limit (of any size, not a power of 2). */
	if (seed % 2)
		ring_set_limit(&ring, (uint64_t)rand_r(&seed) % (uint64_t)most + 1);
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
		/* Give memory back as mode's window does, a quarter full, or to any size. */
		if (shrink && ring.cap > RING_FIRST_CAP && ring_count(&ring) * 4 < ring.cap)
			cr_assert_eq(ring_resize(&ring, size, ring.cap / 2), 0);
		else if (shrink && r == 99 && rand_r(&seed) % 50 == 0)
			cr_assert_eq(ring_resize(&ring, size, ring_count(&ring) + 1 +
			    (uint64_t)rand_r(&seed) % 100), 0);
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
	for (size_t size = 1; size <= 40; size++) {
		random_run(size, (unsigned)size * 7919, 20000, 1500, true);
		random_run(size, (unsigned)size * 7919 + 1, 20000, 1500, true);
	}
}

/*
 * The same with rings of up to 20,000 elements, past MEM_MAP_MIN bytes: mapped rings
 * that grow in place with their elements wrapped (only those whose slot changes
 * move), and shrink into a smaller block.
 */
Test(ring, mapped_rings_against_a_naive_queue)
{
	for (size_t size = 8; size <= 40; size += 16) {
		random_run(size, (unsigned)size * 31, 200000, 20000, true);
		random_run(size, (unsigned)size * 31 + 1, 200000, 20000, true);
	}
}

static void push_batch(struct ring *ring, size_t size, uint64_t n);

/* Pushes the element of position tail. */
static void
push_one(struct ring *ring, size_t size)
{
	unsigned char *slot = ring_push(ring, size);

	if (slot == NULL)
		cr_assert_fail("ring_push: no memory");
	fill(slot, size, ring->tail - 1);
}

/*
 * Bursts into a ring without a limit, each followed by a long stretch that holds a
 * few hundred elements at the most, as a time window after a burst: pushes one at a
 * time and in batches, pops from the front and the back.  A ring a quarter full
 * returns its free slots' pages (ring.h: Release), which read as zeros afterwards, so
 * an element's page returned with them would fail its pattern: every element is
 * checked after each push that returned pages, and every 1,009 steps.
 */
static void
sparse_run(size_t size, unsigned seed)
{
	struct ring ring;
	uint64_t head = 0;

	ring_init(&ring);
	for (int burst = 0; burst < 5; burst++) {
		uint64_t n = 20000 + (uint64_t)rand_r(&seed) % 150000;

		for (uint64_t i = 0; i < n; i++)
			push_one(&ring, size);
		ring.head = head = ring.tail - (uint64_t)rand_r(&seed) % 200;
		for (int step = 0; step < 30000; step++) {
			int r = rand_r(&seed) % 100;
			uint64_t count = ring.tail - head, released = ring_bytes_released;

			if (r < 45 && count < 400) {
				push_one(&ring, size);
			} else if (r < 50 && count < 400) {
				push_batch(&ring, size, 1 + (uint64_t)rand_r(&seed) % 64);
			} else if (r < 97 && count > 0) {
				ring.head++;
				head++;
			} else if (count > 0) {
				ring.tail--;
			}
			if (ring_bytes_released != released || step % 1009 == 0)
				check_all(&ring, size, head, ring.tail);
		}
	}
	ring_free(&ring);
}

Test(ring, sparse_rings_return_pages_against_a_naive_queue)
{
	static const size_t sizes[] = { 8, 24, 40, 3 };
	uint64_t before = ring_bytes_released;

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		sparse_run(sizes[i], (unsigned)i * 17 + 2);
	cr_assert_gt(ring_bytes_released, before, "no page was returned: nothing tested");
}

/* The pages of ring's slots in memory (mincore(2)). */
static size_t
resident_pages(const struct ring *ring)
{
	size_t page = mem_page_size(), pages = (ring->mapped + page - 1) / page, n = 0;
	unsigned char *in = malloc(pages);

	cr_assert_not_null(in);
	cr_assert_eq(mincore(ring->slots, ring->mapped, in), 0);
	for (size_t i = 0; i < pages; i++)
		n += in[i] & 1;
	free(in);
	return n;
}

/*
 * A time window after a burst: a million elements of 24 bytes, then a hundred held
 * while a million more slide through.  The ring keeps its slots, but all but the
 * pages of the elements held and of those pushed since the last look go back to the
 * system, and no push returns more than RING_RELEASE_STEP bytes.
 */
Test(ring, a_burst_leaves_few_pages_in_memory)
{
	const size_t size = 24;
	size_t page = mem_page_size(), most;
	struct ring ring;

	ring_init(&ring);
	for (uint64_t i = 0; i < 1000000; i++)
		fill(ring_push(&ring, size), size, i);
	cr_assert_geq(resident_pages(&ring), 1000000 * size / page);
	ring.head = ring.tail - 100;
	for (uint64_t i = 0; i < 1000000; i++) {
		uint64_t released = ring_bytes_released;
		unsigned char *slot = ring_push(&ring, size);

		cr_assert_not_null(slot);
		fill(slot, size, ring.tail - 1);
		ring.head++;
		cr_assert_leq(ring_bytes_released - released, RING_RELEASE_STEP);
	}
	check_all(&ring, size, ring.head, ring.tail);
	/* The elements held and the last look's RING_RELEASE_EVERY, with their ends. */
	most = (100 * size + RING_RELEASE_EVERY + size) / page + 3;
	cr_assert_leq(resident_pages(&ring), most, "%zu pages of %zu in memory, at most %zu",
	    resident_pages(&ring), ring.mapped / page, most);
	ring_free(&ring);
}

/*
 * A sweep returns each page once, not again and again: after a burst, a ring emptied
 * before every push (a time window whose every record is past the last one's span),
 * and one that holds an element more a push for a while (a window that grows again),
 * return at most their block and the pages their pushes wrote, and a little more for
 * each sweep's start.  A sweep that started afresh whenever it met an element's page,
 * or went round an empty ring, returned 256 KiB a push.
 */
Test(ring, a_sweep_returns_each_page_once)
{
	const size_t size = 24;
	struct ring ring;

	for (int grow = 0; grow < 2; grow++) {
		uint64_t released;

		ring_init(&ring);
		for (uint64_t i = 0; i < 1000000; i++)
			push_one(&ring, size);
		ring.head = ring.tail;
		released = ring_bytes_released;
		for (uint64_t i = 0; i < 200000; i++) {
			push_one(&ring, size);
			if (!grow || i % 2 == 0)
				ring.head++;
		}
		released = ring_bytes_released - released;
		cr_assert_leq(released, ring.mapped + 200000 * size + RING_RELEASE_STEP,
		    "grow %d: %llu bytes returned, of a block of %zu", grow,
		    (unsigned long long)released, ring.mapped);
		cr_assert_geq(released, ring.mapped / 2, "grow %d: only %llu bytes returned",
		    grow, (unsigned long long)released);
		check_all(&ring, size, ring.head, ring.tail);
		ring_free(&ring);
	}
}

/*
 * A sweep cut short by its limit goes on to the end, though the ring is emptied
 * before every later push: an empty ring that started again from its first slot
 * moved the tail's page, where a sweep ends, before the burst's pages still to go,
 * and they stayed in memory (3,909 pages of 8,192 here).
 */
Test(ring, a_sweep_cut_short_goes_on_when_the_ring_empties)
{
	const size_t size = 8;
	size_t page = mem_page_size(), most;
	struct ring ring;
	uint64_t released;

	ring_init(&ring);
	for (uint64_t i = 0; i < 2000000; i++)
		push_one(&ring, size);
	ring.head = ring.tail - 5;
	/* Five held, until the sweep has begun. */
	for (released = ring_bytes_released; ring_bytes_released == released; ring.head++)
		push_one(&ring, size);
	for (int i = 0; i < 300000; i++) {
		ring.head = ring.tail;
		push_one(&ring, size);
	}
	check_all(&ring, size, ring.head, ring.tail);
	most = (RING_RELEASE_EVERY + size) / page + 4;
	cr_assert_leq(resident_pages(&ring), most, "%zu pages of %zu in memory, at most %zu",
	    resident_pages(&ring), ring.mapped / page, most);
	ring_free(&ring);
}

/*
 * A row window filling: 2^21 elements of 24 bytes pushed from position 0, as every
 * row window's ring fills (its limit the window); past MEM_MAP_MIN bytes the ring grows in place and copies
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
	ring_set_limit(&ring, UINT64_C(1) << 21);
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
 * The same for a mapped ring, which grows in place, by moves: 4,096 elements of 40
 * bytes (160 KiB), with 1,000 popped and as many pushed, have wrapped when the push
 * that fills three quarters of the slots grows the ring to 8,192; from then on each
 * push moves RING_MOVE_STEP of the elements past the wrap (positions 4,096 on, in
 * slots 0 on) up past the old end, in position order, until none is left; every
 * element is where ring_at says at every step.
 */
Test(ring, mapped_growth_moves_a_few_a_push)
{
	struct ring ring;
	uint64_t pos = 0, copied, moves = 0;

	ring_init(&ring);
	for (; pos < 3000; pos++) {
		cr_assert_not_null(ring_push(&ring, 40));
		fill(ring_at(&ring, 40, pos), 40, pos);
	}
	ring.head = 2000;	/* popped: the next pushes wrap */
	for (; ring.cap == 4096 && !ring_moving(&ring); pos++) {
		cr_assert_not_null(ring_push(&ring, 40));
		fill(ring_at(&ring, 40, pos), 40, pos);
	}
	/* At 16 slots, 32, ..., 4,096 (its trigger 3,072) and now 8,192. */
	cr_assert(ring_moving(&ring));
	cr_assert_eq(ring.moving, 8192);
	cr_assert_neq(ring.mapped, 0);
	cr_assert_eq(ring_count(&ring), 3073);
	check_all(&ring, 40, 2000, pos);
	while (ring_moving(&ring)) {
		copied = ring_bytes_copied;
		cr_assert_not_null(ring_push(&ring, 40));
		fill(ring_at(&ring, 40, pos), 40, pos);
		pos++;
		cr_assert_leq(ring_bytes_copied - copied, RING_MOVE_STEP * 40);
		moves++;
		check_all(&ring, 40, 2000, pos);
	}
	/*
	 * 2,000 + 3,073 - 4,096 wrapped; each push adds one and first moves five, the
	 * last the five or fewer left.
	 */
	cr_assert_eq(moves, (5073 - 4096 - RING_MOVE_STEP) / (RING_MOVE_STEP - 1) + 1);
	cr_assert_eq(ring.cap, 8192);
	cr_assert_eq(ring.wrap, 8192);
	check_all(&ring, 40, 2000, pos);
	ring_free(&ring);
}

/*
 * A row window's ring, its limit the window: pushed and popped as a window of w moves
 * (the pop first when it holds w), it ends at exactly w slots, or for a window under
 * RING_LIMIT_MIN rows at a ring's first RING_FIRST_CAP, and a push
 * never copies more than a small ring while it fills from position 0.
 */
Test(ring, row_window_holds_exactly_its_window)
{
	static const uint64_t windows[] = { 1, 3, 7, 8, 10, 1000, 10007, 100000, 300001 };
	static const size_t sizes[] = { 4, 24, 32, 8, 16, 8, 24, 32, 8 };

	for (size_t k = 0; k < sizeof(windows) / sizeof(windows[0]); k++) {
		struct ring ring;
		uint64_t w = windows[k];
		size_t size = sizes[k];

		ring_init(&ring);
		ring_set_limit(&ring, w);
		for (uint64_t pos = 0; pos < 3 * w + 100; pos++) {
			uint64_t copied = ring_bytes_copied;

			if (ring_count(&ring) == w)
				ring.head++;
			cr_assert_not_null(ring_push(&ring, size));
			fill(ring_at(&ring, size, pos), size, pos);
			cr_assert_leq(ring.cap, w < RING_LIMIT_MIN ? RING_FIRST_CAP : w);
			cr_assert_leq(ring_bytes_copied - copied, MEM_MAP_MIN);
			cr_assert(!ring_moving(&ring));
			if (pos % 9973 == 0)
				check_all(&ring, size, ring.head, pos + 1);
		}
		/* A window under RING_LIMIT_MIN rows: a ring's first RING_FIRST_CAP slots. */
		cr_assert_eq(ring.cap, w >= RING_LIMIT_MIN ? w : RING_FIRST_CAP,
		    "window %llu: %llu slots", (unsigned long long)w,
		    (unsigned long long)ring.cap);
		check_all(&ring, size, 2 * w + 100, 3 * w + 100);
		ring_free(&ring);
	}
}

/*
 * Bounded growth: long random mixes of pushes, pops from the front and pops of runs
 * from the back (the min/max deque's), whose count drifts up and down so that the
 * ring wraps at every size it grows through, for rings without a limit (a time
 * window's).  No push copies more than RING_MOVE_STEP elements once the ring is
 * mapped, nor more than a small ring (MEM_MAP_MIN bytes) before; counted with
 * ring_bytes_copied, and the elements checked against a naive queue throughout.
 */
static void
bounded_run(size_t size, unsigned seed, int steps)
{
	struct ring ring;
	uint64_t head = 0, tail = 0, most = 0, moving = 0;
	int up = 60;

	ring_init(&ring);
	for (int step = 0; step < steps; step++) {
		int r = rand_r(&seed) % 100;

		if (step % 20000 == 0)
			up = 46 + rand_r(&seed) % 16;	/* mostly up, now and then down */
		if (r < up) {
			uint64_t copied = ring_bytes_copied;
			bool mapped = ring.mapped != 0;
			unsigned char *slot = ring_push(&ring, size);

			cr_assert_not_null(slot);
			fill(slot, size, tail++);
			cr_assert_leq(ring_bytes_copied - copied, mapped ?
			    RING_MOVE_STEP * size : MEM_MAP_MIN, "push %llu of %zu bytes, cap %llu",
			    (unsigned long long)tail - 1, size, (unsigned long long)ring.cap);
		} else if (tail != head && r < 99) {
			ring.head++;
			head++;
		} else if (tail != head) {
			uint64_t n = (uint64_t)rand_r(&seed) % 8 + 1;

			if (n > tail - head)
				n = tail - head;

			ring.tail -= n;
			tail -= n;
		}
		if (tail - head > most)
			most = tail - head;
		moving += ring_moving(&ring);
		if (step % 10007 == 0 || (ring_moving(&ring) && step % 101 == 0))
			check_all(&ring, size, head, tail);
	}
	check_all(&ring, size, head, tail);
	cr_assert_gt(moving, 1000, "the test must see rings grow by moves (%llu, most %llu)",
	    (unsigned long long)moving, (unsigned long long)most);
	cr_assert_gt(ring.mapped, 0);
	cr_assert_leq(ring.cap, 4 * most);
	ring_free(&ring);
}

Test(ring, growth_copies_a_few_elements_a_push)
{
	bounded_run(8, 11, 3000000);
	bounded_run(24, 12, 1500000);
	bounded_run(4, 13, 3000000);
	bounded_run(40, 14, 1000000);
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

/*
 * Pushes n elements at once as window.c's push_times does: ring_make_room, then the
 * slots from tail to the end of the run and on from the first slot.
 */
static void
push_batch(struct ring *ring, size_t size, uint64_t n)
{
	uint64_t run, j = 0;
	unsigned char *slots;

	cr_assert_eq(ring_make_room(ring, size, n), 0);
	slots = ring_at(ring, size, ring->tail);
	run = ring_run(ring, ring->tail);
	for (; j < n && j < run; j++)
		fill(slots + j * size, size, ring->tail + j);
	for (; j < n; j++)
		fill(ring->slots + (j - run) * size, size, ring->tail + j);
	ring->tail += n;
}

/*
 * A batch that makes room while the ring grows by moves must keep every position in a
 * slot of its own: a batch of 51 into a ring of 256 slots wrapped 181 deep starts a
 * move whose wrapped part is more than the move can finish before the pushes reach
 * base + 2 cap, the end of the slots, where positions had no slot and the move
 * copied past the block.  Then random batches of 1 to 64 in mapped rings, with pops at
 * both ends, against the positions' patterns.
 */
Test(ring, batches_keep_positions_while_moving)
{
	static const size_t sizes[] = { 256, 8, 40 };
	struct ring ring;
	uint64_t head;

	ring_init(&ring);
	while (ring.tail < 250) {
		cr_assert_eq(ring_reserve(&ring, 256), 0);
		fill(ring_at(&ring, 256, ring.tail), 256, ring.tail);
		ring.tail++;
		if (ring_count(&ring) > 100)
			ring.head++;
	}
	ring.head = ring.tail - 1;
	for (int i = 0; i < 180; i++) {
		cr_assert_eq(ring_reserve(&ring, 256), 0);
		fill(ring_at(&ring, 256, ring.tail), 256, ring.tail);
		ring.tail++;
	}
	push_batch(&ring, 256, 51);
	check_all(&ring, 256, ring.head, ring.tail);
	for (int i = 0; i < 300; i++) {
		ring.head++;
		cr_assert_eq(ring_reserve(&ring, 256), 0);
		fill(ring_at(&ring, 256, ring.tail), 256, ring.tail);
		ring.tail++;
		check_all(&ring, 256, ring.head, ring.tail);
	}
	ring_free(&ring);

	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t size = sizes[s];
		unsigned seed = 12 + (unsigned)s;
		uint64_t most = 4 * MEM_MAP_MIN / size;

		ring_init(&ring);
		head = 0;
		for (int step = 0; step < 60000; step++) {
			int r = rand_r(&seed) % 100;
			uint64_t count = ring.tail - head;

			if (r < 40 && count < most) {
				push_batch(&ring, size, 1 + (uint64_t)rand_r(&seed) % 64);
			} else if (r < 50 && count < most) {
				cr_assert_eq(ring_reserve(&ring, size), 0);
				fill(ring_at(&ring, size, ring.tail), size, ring.tail);
				ring.tail++;
			} else if (r < 90 && count > 0) {
				uint64_t k = 1 + (uint64_t)rand_r(&seed) % (count < 48 ? count : 48);

				ring.head += k;
				head += k;
			} else if (count > 0) {
				ring.tail--;
			}
			if (step % 211 == 0 || ring_moving(&ring))
				check_all(&ring, size, head, ring.tail);
		}
		check_all(&ring, size, head, ring.tail);
		ring_free(&ring);
	}
}

/*
 * A small ring without a limit (each key's time window under -g) goes into fewer
 * slots when it holds less than a quarter of them (ring.h, Release): it looks every
 * half of its slots' pushes, and its copy moves fewer than MEM_MAP_MIN / 4 bytes.
 * A ring with a limit (a row window's) and one under RING_SHRINK_MIN bytes keep theirs.
 */
Test(ring, a_small_ring_shrinks_after_a_burst)
{
	static const size_t sizes[] = { 4, 8, 24 };

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t size = sizes[k];

		for (int limited = 0; limited < 2; limited++) {
			struct ring ring;
			uint64_t head = 0, tail = 0, burst_cap;

			ring_init(&ring);
			ring_set_limit(&ring, limited ? 3000 : 0);
			for (; tail < 3000; tail++)
				fill(ring_push(&ring, size), size, tail);
			burst_cap = ring.cap;
			cr_assert_lt(burst_cap * size, MEM_MAP_MIN, "a ring of malloc's");
			for (int step = 0; step < 20000; step++) {
				uint64_t copied = ring_bytes_copied;

				/* Down to 10, two leaving a push, then one each. */
				ring.head += tail - head > 10 ? 2 : 1;
				head += tail - head > 10 ? 2 : 1;
				fill(ring_push(&ring, size), size, tail++);
				cr_assert_lt(ring_bytes_copied - copied, MEM_MAP_MIN / 4);
				if (step % 101 == 0 || tail - head < 12)
					check_all(&ring, size, head, tail);
			}
			check_all(&ring, size, head, tail);
			if (limited)
				cr_assert_eq(ring.cap, burst_cap, "size %zu: a row window's ring",
				    size);
			else	/* shrunk at each look while of RING_SHRINK_MIN bytes or more */
				cr_assert(ring.cap <= 64 || ring.cap * size < RING_SHRINK_MIN,
				    "size %zu: %llu slots after a burst's %llu", size,
				    (unsigned long long)ring.cap, (unsigned long long)burst_cap);
			ring_free(&ring);
		}
	}
	/* 200 slots of 8 bytes, under RING_SHRINK_MIN: kept. */
	{
		struct ring ring;
		uint64_t tail = 0;

		ring_init(&ring);
		for (; tail < 200; tail++)
			fill(ring_push(&ring, 8), 8, tail);
		cr_assert_lt(ring.cap * 8, RING_SHRINK_MIN);
		for (int step = 0; step < 2000; step++) {
			ring.head = tail - 1;
			fill(ring_push(&ring, 8), 8, tail++);
		}
		check_all(&ring, 8, tail - 2, tail);
		cr_assert_eq(ring.cap, 256);
		ring_free(&ring);
	}
}
