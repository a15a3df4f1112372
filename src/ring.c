/*
 * ring.c: the rare, out-of-line parts of the ring (see ring.h).
 */
#include <string.h>

#include "mem.h"
#include "ring.h"

int
ring_resize(struct ring *ring, size_t size, uint64_t cap)
{
	size_t bytes;
	unsigned char *slots;

	if (cap > SIZE_MAX || mem_array_size((size_t)cap, size, &bytes) != 0)
		return -1;
	slots = mem_realloc(NULL, bytes);
	if (slots == NULL)
		return -1;
	/*
	 * Position p moves from slot p mod the old cap to p mod the new one.  Consecutive
	 * positions stay consecutive until either ring wraps, so the elements go in at
	 * most three runs, a memcpy each.
	 */
	for (uint64_t pos = ring->head, run; pos != ring->tail; pos += run) {
		uint64_t from = pos & (ring->cap - 1), to = pos & (cap - 1);

		run = ring->tail - pos;
		if (run > ring->cap - from)
			run = ring->cap - from;
		if (run > cap - to)
			run = cap - to;
		memcpy(slots + (size_t)to * size, ring->slots + (size_t)from * size,
		    (size_t)run * size);
	}
	mem_free(ring->slots);
	ring->slots = slots;
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
	mem_free(ring->slots);
	ring_init(ring);
}
