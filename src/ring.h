/*
 * ring.h: the growable ring of fixed-size elements that every window structure keeps
 * its records in, oldest first.
 *
 * Elements are named by positions that only grow: the ring holds the positions
 * [head, tail), and position p lives in slot p & (cap - 1), cap being a power of two
 * (or 0 before the first element).  A push takes position tail, a pop from the front
 * position head, a pop from the back position tail - 1.  Growth doubles cap and puts
 * each element in its slot of the larger ring, so an element keeps its position for
 * life: a structure may name it by position (the quantile heap's entries do) across a
 * growth.  The ring grows with the elements actually held, so a window of 10^9 rows
 * over ten records holds sixteen slots.
 *
 * A ring of MEM_MAP_MIN bytes or more lives in mapped pages (mem_zalloc) and grows in
 * place by mem_remap, which moves pages, not bytes: only the elements whose slot
 * changes are copied, from slot s to s + the old cap, and a ring that fills from
 * position 0 (every row window, until it is full) has none.  Copying every element
 * would hold one record of -w 1000000 avg for 10 ms (6 MB); the mremap takes about
 * 40 us at any size.  A smaller ring grows by copying, under MEM_MAP_MIN
 * bytes.
 *
 * The element size is an argument of every function, and each caller passes a
 * constant (RING_AT and friends pass sizeof): the functions are forced inline, so a
 * slot's address compiles to the shift or scaled add of a ring written for the type.
 * Only growth, which happens log2(w) times in a window's life, is out of line.
 */
#ifndef SWAG_RING_H
#define SWAG_RING_H

#include <stddef.h>
#include <stdint.h>

/* The first ring holds this many elements: a window over ten rows stays in one small block. */
#define RING_FIRST_CAP 16

/* Forces inlining, so that the constant element size folds into the address arithmetic. */
#define RING_INLINE static inline __attribute__((always_inline))

struct ring {
	unsigned char *slots;	/* cap elements, or NULL when cap is 0 */
	uint64_t cap;		/* 0 or a power of two */
	uint64_t head;		/* the oldest element's position */
	uint64_t tail;		/* the position the next push takes */
	size_t mapped;		/* the bytes of slots when mapped (mem_zalloc), else 0 */
};

#ifdef SWAG_TEST_COUNTERS
/* The bytes that ring.c's resizes copied (counters.h: test builds only). */
extern uint64_t ring_bytes_copied;
#endif

/*
 * Moves the elements into a ring of cap slots (a power of two, at least their number),
 * each at its position.  Returns 0, or -1 when memory is short (the ring is then
 * unchanged).  Growing is ring_reserve's business; a caller calls this to shrink.
 */
int ring_resize(struct ring *ring, size_t size, uint64_t cap);

/* Doubles the ring (or makes the first one): ring_resize to the next size up. */
int ring_grow(struct ring *ring, size_t size);

/* Makes an empty ring that owns no memory yet. */
RING_INLINE void
ring_init(struct ring *ring)
{
	ring->slots = NULL;
	ring->cap = 0;
	ring->head = ring->tail = 0;
	ring->mapped = 0;
}

/* Frees the ring's memory; the ring is empty afterwards and may be used again. */
void ring_free(struct ring *ring);

/* The number of elements held. */
RING_INLINE uint64_t
ring_count(const struct ring *ring)
{
	return ring->tail - ring->head;
}

/* The slot of position pos, which the ring must hold (or be about to, see ring_reserve). */
RING_INLINE void *
ring_at(const struct ring *ring, size_t size, uint64_t pos)
{
	return ring->slots + (size_t)(pos & (ring->cap - 1)) * size;
}

/*
 * Makes room for one more element, so that the slot of position tail may be written
 * before the push is counted (tail++).  Returns 0, or -1 when memory is short (the
 * ring is then unchanged).
 */
RING_INLINE int
ring_reserve(struct ring *ring, size_t size)
{
	if (ring->tail - ring->head == ring->cap && ring_grow(ring, size) != 0)
		return -1;
	return 0;
}

/*
 * Appends an element: returns the slot of the new newest position for the caller to
 * fill, or NULL when memory is short (the ring is then unchanged).
 */
RING_INLINE void *
ring_push(struct ring *ring, size_t size)
{
	if (ring_reserve(ring, size) != 0)
		return NULL;
	return ring_at(ring, size, ring->tail++);
}

/* The ring's slot for position pos as a pointer to type. */
#define RING_AT(ring, type, pos) ((type *)ring_at((ring), sizeof(type), (pos)))
/* The oldest and the newest element as pointers to type; the ring must not be empty. */
#define RING_FRONT(ring, type) RING_AT((ring), type, (ring)->head)
#define RING_BACK(ring, type) RING_AT((ring), type, (ring)->tail - 1)
/* ring_push for elements of type: the new slot as a pointer to type, or NULL. */
#define RING_PUSH(ring, type) ((type *)ring_push((ring), sizeof(type)))

#endif /* SWAG_RING_H */
