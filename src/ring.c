/*
 * ring.c: the rare, out-of-line parts of the ring (see ring.h): growth, the move of a
 * growing ring's wrapped elements, and the rebase.
 */
#include <string.h>

#include "counters.h"
#include "mem.h"
#include "ring.h"

#ifdef SWAG_TEST_COUNTERS
uint64_t ring_bytes_copied, ring_bytes_released;
#endif

/* Copies n elements from slot from to slot to of ring (the runs may overlap). */
static void
move_slots(struct ring *ring, size_t size, uint64_t to, uint64_t from, uint64_t n)
{
	memmove(ring->slots + (size_t)to * size, ring->slots + (size_t)from * size,
	    (size_t)n * size);
	TEST_COUNT_BYTES(ring_bytes_copied, n * size);
}

/* Moves base on by as many caps as head has passed (not while moving). */
static void
rebase(struct ring *ring)
{
	if (ring->cap != 0 && ring->head - ring->base >= ring->cap)
		ring->base += (ring->head - ring->base) / ring->cap * ring->cap;
}

/*
 * The elements of a ring (not moving) whose next push grows it: all its slots with a
 * limit or under MEM_MAP_MIN / 2 bytes, else three quarters of them (see ring.h).
 */
static uint64_t
trigger(const struct ring *ring, size_t size)
{
	if (ring->limit == 0 && ring->cap * size >= MEM_MAP_MIN / 2)
		return ring->cap - ring->cap / 4;
	return ring->cap;
}

/*
 * True for a ring that may return the pages of its free slots (ring.h: Release):
 * mapped, without a limit, not moving.
 */
static bool
may_release(const struct ring *ring)
{
	return ring->mapped != 0 && ring->limit == 0 && ring->moving == 0;
}

/*
 * True for a ring that may go into fewer slots by a copy (ring.h: Release): without a
 * limit, not moving, of RING_SHRINK_MIN bytes or more but not mapped, so that the copy
 * moves fewer than MEM_MAP_MIN / 4 bytes.
 */
static bool
may_shrink(const struct ring *ring, size_t size)
{
	return ring->mapped == 0 && ring->limit == 0 && ring->moving == 0 &&
	    ring->cap * size >= RING_SHRINK_MIN;
}

/*
 * Sets room and stop, which send a push to ring_make_room: while moving, every push;
 * else one that fills the ring to its trigger, or whose slot is past base + 2 * cap,
 * where base must move on; and the map, after any change of slots, base, wrap or cap.
 */
static void
set_stop(struct ring *ring, size_t size)
{
	uint64_t every = RING_RELEASE_EVERY / size + 1;

	ring->room = ring->moving != 0 ? 0 : trigger(ring, size);
	ring->stop = ring->moving != 0 ? 0 : ring->base + 2 * ring->cap;
	/*
	 * Such a ring looks for free pages to return every so many pushes, and a small
	 * one whether it holds few enough to shrink every half of its slots.
	 */
	if (may_release(ring) && ring->tail + every < ring->stop)
		ring->stop = ring->tail + every;
	else if (may_shrink(ring, size) && ring->tail + ring->cap / 2 < ring->stop)
		ring->stop = ring->tail + ring->cap / 2;
	ring->map.near = (uintptr_t)ring->slots - (uintptr_t)ring->base * size;
	ring->map.far = ring->map.near - (uintptr_t)ring->cap * size;
	ring->map.wrap_pos = ring->base + ring->wrap;
}

/*
 * Grows the slots of ring to cap, more than it has, each slot keeping its bytes: by
 * mem_remap when they are mapped, by mem_realloc under MEM_MAP_MIN bytes, else into
 * new mapped pages (copying fewer than MEM_MAP_MIN bytes).  Sets only slots and
 * mapped.  Returns 0, or -1 when memory is short (the ring is then unchanged).
 */
static int
extend(struct ring *ring, size_t size, uint64_t cap)
{
	unsigned char *slots;
	size_t bytes, old = ring->moving != 0 ? (size_t)ring->moving * size :
	    (size_t)ring->cap * size;

	if (cap > SIZE_MAX || mem_array_size((size_t)cap, size, &bytes) != 0)
		return -1;
	if (ring->mapped != 0) {
		if ((slots = mem_remap(ring->slots, ring->mapped, bytes)) == NULL)
			return -1;
	} else if (bytes < MEM_MAP_MIN) {
		uintptr_t was = (uintptr_t)ring->slots;

		if ((slots = mem_realloc(ring->slots, bytes)) == NULL)
			return -1;
		if ((uintptr_t)slots != was && old != 0)	/* realloc copied the block */
			TEST_COUNT_BYTES(ring_bytes_copied, old);
	} else {
		if ((slots = mem_zalloc(bytes)) == NULL)
			return -1;
		if (old != 0) {
			memcpy(slots, ring->slots, old);
			TEST_COUNT_BYTES(ring_bytes_copied, old);
		}
		mem_free(ring->slots);
	}
	ring->slots = slots;
	ring->mapped = bytes >= MEM_MAP_MIN ? bytes : 0;
	return 0;
}

/*
 * Takes up to steps steps of the move: position base + wrap, when the ring holds
 * it, from slot wrap - cap up to slot wrap; ends the move when none is left.
 */
static void
move_on(struct ring *ring, size_t size, uint64_t steps)
{
	uint64_t left = ring->tail - ring->base > ring->wrap ?
	    ring->tail - ring->base - ring->wrap : 0;

	if (steps > left)
		steps = left;
	if (steps != 0) {
		move_slots(ring, size, ring->wrap, ring->wrap - ring->cap, steps);
		ring->wrap += steps;
	}
	if (steps == left) {
		/* Every position from base on is in slot p - base now. */
		ring->cap = ring->wrap = ring->moving;
		ring->moving = 0;
	}
}

/* Ends a move at once. */
static void
move_all(struct ring *ring, size_t size)
{
	if (ring->moving != 0)
		move_on(ring, size, UINT64_MAX);
}

/*
 * Grows ring (not moving, rebased) to cap slots, more than it has: at once when its
 * elements do not wrap or when it is small, moving the shorter of the wrapped part
 * (the newest, up past the old end, when it fits) and the oldest (up to the new end,
 * base moving down with it); else by moves, when cap is at least twice the old (see
 * ring.h).
 */
static int
grow(struct ring *ring, size_t size, uint64_t cap)
{
	uint64_t old_cap = ring->cap, h = ring->head - ring->base;
	uint64_t wrapped = ring->tail - ring->base > old_cap ?
	    ring->tail - ring->base - old_cap : 0;

	if (extend(ring, size, cap) != 0)
		return -1;
	if (wrapped != 0 && ring->mapped != 0 && cap >= 2 * old_cap) {
		ring->moving = cap;
		ring->size = size;
		return 0;
	}
	if (wrapped != 0 && wrapped <= old_cap - h && wrapped <= cap - old_cap) {
		/* Positions base + old_cap on stay at p - base, now below cap. */
		move_slots(ring, size, old_cap, 0, wrapped);
	} else if (wrapped != 0) {
		move_slots(ring, size, h + (cap - old_cap), h, old_cap - h);
		ring->base -= cap - old_cap;
	}
	ring->cap = ring->wrap = cap;
	return 0;
}

/*
 * True when the slots' bytes in page number i of ring's, of bytes bytes in all, are
 * all free: among the free_len bytes from start on, round the ring (those of the
 * positions from tail to head + cap - 1).
 */
static bool
page_free(size_t i, size_t page, size_t bytes, size_t start, size_t free_len)
{
	size_t lo = i * page, hi = lo + page < bytes ? lo + page : bytes;
	size_t d = lo >= start ? lo - start : lo + bytes - start;

	return d + (hi - lo) <= free_len;
}

/*
 * Returns the pages of a mapped ring's free slots to the system (see ring.h), page
 * after page, RING_RELEASE_STEP bytes at the most.  A sweep starts at the page after
 * the tail's (ring->released RING_SWEEP_NONE), goes round the free slots up to the
 * page of the oldest element, and then follows the head from there, one call to the
 * next (ring->released); it never takes the tail's page, so that an empty ring's
 * sweep ends there.  Returns true when it stopped for the limit.
 */
static bool
release_some(struct ring *ring, size_t size)
{
	size_t page = mem_page_size(), bytes = (size_t)ring->cap * size;
	size_t pages = (bytes + page - 1) / page, left = RING_RELEASE_STEP / page;
	size_t start = (size_t)(ring_index(ring, ring->tail) % ring->cap) * size;
	size_t free_len = bytes - (size_t)(ring->tail - ring->head) * size;
	size_t tail_page = start / page, at = ring->released;

	if (at >= pages)
		at = (tail_page + 1) % pages;
	while (left > 0 && at != tail_page && page_free(at, page, bytes, start, free_len)) {
		size_t first = at;

		while (left > 0 && at < pages && at != tail_page &&
		    page_free(at, page, bytes, start, free_len)) {
			at++;
			left--;
		}
		mem_release(ring->slots + first * page, (at - first) * page);
		TEST_COUNT_BYTES(ring_bytes_released, (at - first) * page);
		if (at == pages)
			at = 0;		/* round the ring */
	}
	ring->released = at;
	return left == 0;
}

/* The slots a growing ring doubles to: twice, or its limit when it holds fewer. */
static uint64_t
next_cap(const struct ring *ring, uint64_t need)
{
	uint64_t cap = ring->cap == 0 ? RING_FIRST_CAP : ring->cap * 2;

	if (ring->limit != 0 && cap > ring->limit && ring->limit >= need &&
	    ring->limit > ring->cap)
		cap = ring->limit;
	while (cap < need)
		cap *= 2;
	return cap;
}

int
ring_make_room(struct ring *ring, size_t size, uint64_t n)
{
	uint64_t need;

	if (ring->moving != 0)
		move_on(ring, size, n * RING_MOVE_STEP);
	if (ring->moving == 0) {
		/*
		 * An empty ring starts again from its first slot, but not while a sweep of
		 * its free pages goes on: the sweep ends at the tail's page, and would end
		 * there before the pages it had still to return.
		 */
		if (ring->cap == 0 || (ring->tail == ring->head &&
		    ring->released == RING_SWEEP_NONE))
			ring->base = ring->head;
		rebase(ring);
	}
	/*
	 * A small ring less than a quarter full goes into twice the slots it is about to
	 * hold (at least RING_FIRST_CAP); should memory be short, it stays as it is.
	 */
	if (may_shrink(ring, size) && ring->tail - ring->head < ring->cap / 4 &&
	    n < ring->cap / 4) {
		uint64_t cap = 2 * (ring->tail - ring->head + n);

		(void)ring_resize(ring, size, cap > RING_FIRST_CAP ? cap : RING_FIRST_CAP);
	}
	need = ring->tail - ring->head + n;
	/*
	 * While moving, positions up to base + 2 cap have slots (ring_index): a batch
	 * that would go past them, or one that does not fit, ends the move first.  A
	 * move's steps keep single pushes below that end; a batch n of them at once
	 * brings n steps only.
	 */
	if (ring->moving != 0 && (need > ring->cap ||
	    ring->tail - ring->base + n > 2 * ring->cap))
		move_all(ring, size);
	if (ring->moving == 0 && need > trigger(ring, size) &&
	    (ring->cap > UINT64_MAX / 4 || need < n ||
	    grow(ring, size, next_cap(ring, need)) != 0)) {
		set_stop(ring, size);
		return -1;
	}
	if (ring->moving != 0 && need > ring->cap)
		move_all(ring, size);	/* grown when full: no slot is free to move into */
	set_stop(ring, size);
	/*
	 * Less than a quarter full: the free slots' pages go back, the next push goes on
	 * while some are left.  Else a later sweep starts afresh: the tail may come round
	 * to pages swept before.
	 */
	if (may_release(ring) && (ring->tail - ring->head) * 4 < ring->cap) {
		if (release_some(ring, size))
			ring->stop = ring->tail + 1;
	} else {
		ring->released = RING_SWEEP_NONE;
	}
	return 0;
}

int
ring_resize(struct ring *ring, size_t size, uint64_t cap)
{
	size_t bytes;
	unsigned char *slots;
	uint64_t count = ring->tail - ring->head, first;

	if (cap == 0 || cap < count || cap > SIZE_MAX ||
	    mem_array_size((size_t)cap, size, &bytes) != 0)
		return -1;
	move_all(ring, size);
	if (ring->cap == 0 || count == 0)
		ring->base = ring->head;
	rebase(ring);
	if (cap > ring->cap) {
		if (grow(ring, size, cap) != 0) {
			set_stop(ring, size);
			return -1;
		}
		move_all(ring, size);
		set_stop(ring, size);
		return 0;
	}
	/* Smaller: into a new block, the oldest element in slot 0. */
	slots = bytes >= MEM_MAP_MIN ? mem_zalloc(bytes) : mem_realloc(NULL, bytes);
	if (slots == NULL) {
		set_stop(ring, size);
		return -1;
	}
	first = count == 0 ? 0 : ring_run(ring, ring->head);
	if (first > count)
		first = count;
	if (count != 0) {
		memcpy(slots, ring_at(ring, size, ring->head), (size_t)first * size);
		memcpy(slots + (size_t)first * size, ring->slots, (size_t)(count - first) * size);
		TEST_COUNT_BYTES(ring_bytes_copied, count * size);
	}
	if (ring->mapped == 0 && ring->slots != NULL)
		mem_note_freed((size_t)ring->cap * size);
	mem_zfree(ring->slots, ring->mapped);	/* mapped 0: a block of mem_realloc's */
	ring->slots = slots;
	ring->mapped = bytes >= MEM_MAP_MIN ? bytes : 0;
	ring->cap = ring->wrap = cap;
	ring->base = ring->head;
	ring->released = RING_SWEEP_NONE;
	set_stop(ring, size);
	return 0;
}

void
ring_free(struct ring *ring)
{
	uint64_t limit = ring->limit;

	mem_zfree(ring->slots, ring->mapped);
	ring_init(ring);
	ring->limit = limit;
}
