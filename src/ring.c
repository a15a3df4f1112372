/*
 * ring.c: the rare, out-of-line parts of the ring (see ring.h).
 */
#include <string.h>

#include "counters.h"
#include "mem.h"
#include "ring.h"

#ifdef SWAG_TEST_COUNTERS
uint64_t ring_bytes_copied;
#endif

/*
 * Copies the elements of ring, whose slots are in from (of from_cap slots), each to
 * its slot in to (of to_cap slots), skipping those whose slot is the same in a block
 * shared by both.  Consecutive positions stay consecutive until either ring wraps, so
 * the elements go in at most three runs, a memcpy each; within a run the slot moves by
 * a constant.
 */
static void
place(const struct ring *ring, size_t size, const unsigned char *from, uint64_t from_cap,
    unsigned char *to, uint64_t to_cap)
{
	for (uint64_t pos = ring->head, run; pos != ring->tail; pos += run) {
		uint64_t f = pos & (from_cap - 1), t = pos & (to_cap - 1);

		run = ring->tail - pos;
		if (run > from_cap - f)
			run = from_cap - f;
		if (run > to_cap - t)
			run = to_cap - t;
		if (from == to && f == t)
			continue;
		memcpy(to + (size_t)t * size, from + (size_t)f * size, (size_t)run * size);
		TEST_COUNT_BYTES(ring_bytes_copied, run * size);
	}
}

int
ring_resize(struct ring *ring, size_t size, uint64_t cap)
{
	size_t bytes;
	unsigned char *slots;

	if (cap > SIZE_MAX || mem_array_size((size_t)cap, size, &bytes) != 0)
		return -1;
	if (ring->mapped != 0 && cap > ring->cap) {
		/*
		 * In place: the first cap slots keep their bytes, and an element whose
		 * slot changes goes up by a multiple of the old cap, into the new slots, so
		 * no copy overwrites an element not yet copied.
		 */
		uint64_t old_cap = ring->cap;

		if ((slots = mem_remap(ring->slots, ring->mapped, bytes)) == NULL)
			return -1;
		place(ring, size, slots, old_cap, slots, cap);
		ring->slots = slots;
		ring->mapped = bytes;
		ring->cap = cap;
		return 0;
	}
	slots = bytes >= MEM_MAP_MIN ? mem_zalloc(bytes) : mem_realloc(NULL, bytes);
	if (slots == NULL)
		return -1;
	place(ring, size, ring->slots, ring->cap, slots, cap);
	mem_zfree(ring->slots, ring->mapped);	/* mapped 0: a block of mem_realloc's */
	ring->slots = slots;
	ring->mapped = bytes >= MEM_MAP_MIN ? bytes : 0;
	ring->cap = cap;
	return 0;
}

int
ring_grow(struct ring *ring, size_t size)
{
	if (ring->cap > UINT64_MAX / 2)
		return -1;
	return ring_resize(ring, size, ring->cap == 0 ? RING_FIRST_CAP : ring->cap * 2);
}

void
ring_free(struct ring *ring)
{
	mem_zfree(ring->slots, ring->mapped);
	ring_init(ring);
}
