/*
 * ring.h: the growable ring of fixed-size elements that every window structure keeps
 * its records in, oldest first.
 *
 * Elements are named by positions that only grow: the ring holds the positions
 * [head, tail), a push takes position tail, a pop from the front position head, a pop
 * from the back position tail - 1.  An element keeps its position for life, across
 * growth: a structure may name it by position (the quantile heap's entries do).
 *
 * Slots.  Position p lives in slot r = p - base, less cap when r is wrap or more
 * (ring_index); wrap is cap but while the ring grows (below).  base is a position at
 * most head and within cap of it, so that every position from head to tail is less
 * than 2 * cap past it and one compare finds its slot: ring_at selects one of two
 * origins (struct ring_map) and adds p * size.  The ring moves base on by cap once the
 * head has passed base + cap, in the slow path of a push (stop).  A mask would need
 * cap to be a power of two: at a window of 10,000,000 rows, 2^24 slots, 40 % of them
 * unused, and avg's 24-byte slots cost 40.3 bytes each, var's 32 53.7 (peak RSS over 30
 * million records).  So cap is any size: a ring doubles from RING_FIRST_CAP, but not
 * past its limit (ring_set_limit) while it holds fewer.  A row window of w rows (w at
 * least RING_LIMIT_MIN) sets w, and its ring ends at exactly w slots (24.0 and 32.0
 * bytes a slot); the ring grows with the elements actually held, so a window of 10^9
 * rows over ten records holds sixteen slots.  The compare, the select and the push's
 * second test cost about 7 instructions a record for swag -w 1000 min (the deque: a
 * few ring_at a record), 2.5 for p99 and 1 for avg (whose runs walk the slots by
 * pointer), measured against a mask when they came in.
 *
 * Growth.  A ring of MEM_MAP_MIN bytes or more lives in mapped pages (mem_zalloc) and
 * grows in place by mem_remap, which moves pages, not bytes (about 40 us at any size;
 * copying 24 MB, -w 1000000 avg's ring, would hold one record for 10 ms); a smaller one
 * by mem_realloc.  Either way the slots keep their bytes, so a ring whose elements do
 * not wrap past its last slot (every row window while it fills, from position 0)
 * copies nothing when it grows.  A ring whose elements wrap holds the newest of them
 * in its first slots, and they must move up past the old end.  A ring without a limit
 * (a time window's, the min/max deque's) therefore grows when three quarters full:
 * into twice the slots, and then each push moves RING_MOVE_STEP of the wrapped
 * elements up, oldest first, wrap counting them (positions base + cap to base + wrap -
 * 1 are then in their new slots, r, the rest still in their old ones, r - cap), while
 * the pushes fill the quarter left of the old slots; the elements left are fewer by
 * RING_MOVE_STEP - 1 a push, so the move ends before that quarter is full, and no
 * push moves more than RING_MOVE_STEP elements (a mapped ring; a small one grows at
 * once, moving fewer than MEM_MAP_MIN bytes).  A batch of n (ring_make_room) brings
 * n steps, and ends the move at once if it would go past the slots, base + 2 cap:
 * then it moves the elements left, fewer than the old slots, cap / 2, for n pushes,
 * where that can happen only with n above a twentieth of cap (window.c's batches of
 * timestamps, up to WINDOW_STEPS_MAX, 1,024, can in the smallest mapped ring of them,
 * 16,384 slots: at most 8 elements for each of the batch's pushes).  A window's
 * runs, which push without ring_reserve, stop where a push would take
 * ring_make_room (at room, not at the full ring, so that growth starts with a quarter
 * of the slots free) and wait for the move to end (ring_moving).  A ring with a limit
 * grows when full, at once.
 *
 * Release.  A ring without a limit keeps its slots when it holds fewer elements:
 * after a burst, a time window's ring holds a few records in slots grown for millions
 * (65 MB for -w 10s avg after 2 million records in one second).  A copy into fewer
 * slots would move every element held in one push; instead, a mapped ring that holds
 * less than a quarter of its slots returns the pages of its free slots to the system
 * (mem_release), RING_RELEASE_STEP bytes a push at the most: a sweep goes round the
 * free slots from the tail to the head, and then follows the head, page after page,
 * as the elements leave; the slots stay, and a page costs memory again only when the
 * tail comes round to it.  A push to such a ring takes ring_make_room every
 * RING_RELEASE_EVERY bytes of elements, every push while the sweep has pages left.
 * A smaller ring without a limit (RING_SHRINK_MIN bytes or more, but not mapped), such
 * as each key's under -g, looks every half of its slots' pushes, and when it holds
 * less than a quarter of them it goes into twice the slots it holds, by a copy of
 * fewer than MEM_MAP_MIN / 4 bytes, so that a burst's room does not stay with every
 * key; its block's pages go back through mem_note_freed and mem_idle.
 *
 * The element size is an argument of every function, and each caller passes a
 * constant (RING_AT and friends pass sizeof): the functions are forced inline, so a
 * slot's address compiles to the scaled add of a ring written for the type.  Only
 * growth, the move and the rebase are out of line, behind two tests of a push (room
 * and stop).
 */
#ifndef SWAG_RING_H
#define SWAG_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The first ring holds this many elements: a window over ten rows stays in one small block. */
#define RING_FIRST_CAP 16

/* Forces inlining, so that the constant element size folds into the address arithmetic. */
#define RING_INLINE static inline __attribute__((always_inline))

/*
 * Where the slots of positions are, as ring_map_at finds them: position p's slot is at
 * address near + p * size when p < wrap_pos, else far + p * size (the element size
 * folded in: near is slots - base * size, far near - cap * size, wrap_pos base +
 * wrap), so that a slot's address is a compare, a select and a scaled add.
 */
struct ring_map {
	uintptr_t near;
	uintptr_t far;
	uint64_t wrap_pos;
};

struct ring {
	struct ring_map map;	/* the slots' addresses (ring_at), from the fields below */
	unsigned char *slots;	/* the slots, or NULL when there are none */
	uint64_t cap;		/* the most elements the ring holds (slots, but while moving) */
	uint64_t wrap;		/* cap, or while moving, cap + the elements moved */
	uint64_t head;		/* the oldest element's position */
	uint64_t tail;		/* the position the next push takes */
	uint64_t base;		/* the position of slot 0, or of slot 0 a cap earlier */
	uint64_t room;		/* a push to a ring of room elements takes ring_make_room, */
	uint64_t stop;		/* and so does one to tail >= stop */
	uint64_t limit;		/* the most slots growth doubles to, or 0 for no limit */
	uint64_t moving;	/* while moving, the slots the ring grows to, else 0 */
	size_t size;		/* while moving, the element size */
	size_t mapped;		/* the bytes of slots when mapped (mem_zalloc), else 0 */
	size_t released;	/* the page where returning free slots' pages goes on */
};

/* ring.released when no sweep of free pages goes on (ring.c's release_some). */
#define RING_SWEEP_NONE SIZE_MAX

#ifdef SWAG_TEST_COUNTERS
/* The bytes that ring.c's resizes copied, and that it returned to the system
   (counters.h: test builds only). */
extern uint64_t ring_bytes_copied, ring_bytes_released;
#endif

/*
 * The most bytes of pages a push returns (see Release above), and the bytes of
 * elements pushed between two looks for pages to return once none is left.
 */
#define RING_RELEASE_STEP ((size_t)256 << 10)
#define RING_RELEASE_EVERY ((size_t)16 << 10)

/* The bytes of slots from which a ring under MEM_MAP_MIN may shrink (see Release). */
#define RING_SHRINK_MIN ((size_t)4 << 10)

/* Elements a push moves while the ring grows (see above): 4 fewer left a push. */
#define RING_MOVE_STEP 5

/*
 * Moves the elements into a ring of cap slots (at least their number, and more than
 * 0), each at its position, ending a move.  Returns 0, or -1 when memory is short (the
 * ring is then unchanged).  Growing is ring_reserve's business; a caller calls this to
 * shrink.
 */
int ring_resize(struct ring *ring, size_t size, uint64_t cap);

/*
 * Makes room for n more elements at tail, as ring_reserve does for one: moves base on,
 * takes n steps of a move, or grows (see above).  Returns 0, or -1 when memory is
 * short (the ring then holds what it held).
 */
int ring_make_room(struct ring *ring, size_t size, uint64_t n);

/* Makes an empty ring that owns no memory yet. */
RING_INLINE void
ring_init(struct ring *ring)
{
	ring->map.near = ring->map.far = 0;
	ring->map.wrap_pos = 0;
	ring->slots = NULL;
	ring->cap = ring->wrap = 0;
	ring->head = ring->tail = ring->base = ring->room = ring->stop = 0;
	ring->limit = ring->moving = 0;
	ring->size = 0;
	ring->mapped = 0;
	ring->released = RING_SWEEP_NONE;
}

/*
 * The least limit ring_set_limit keeps.  A smaller window's ring doubles as a ring
 * without a limit does, from RING_FIRST_CAP: a ring of exactly 1, 2 or 4 slots wraps
 * at every push or every few, and the runs of src/monoid.h stop at every wrap
 * (callgrind, -w W sum over make bench's numbers, instructions a record with a ring of
 * exactly W slots against one of 16: W = 1, 485.5 against 455.0; W = 2, 528.9 against
 * 496.4; W = 4, 526.6 against 513.3).  From 8 rows on the exact ring costs about what
 * the larger one does (W = 8, 489.4 against 485.6; W = 10, 482.0 against 493.3).
 */
#define RING_LIMIT_MIN 8

/*
 * The most slots the ring grows to by doubling while it holds fewer elements: a row
 * window's rows, so that its ring ends at the window's size (0, or less than
 * RING_LIMIT_MIN: no limit).  A ring asked for more elements than that still grows,
 * by doubling.
 */
RING_INLINE void
ring_set_limit(struct ring *ring, uint64_t limit)
{
	ring->limit = limit >= RING_LIMIT_MIN ? limit : 0;
}

/*
 * Frees the ring's memory; the ring is empty afterwards and may be used again, with
 * the same limit.
 */
void ring_free(struct ring *ring);

/* The number of elements held. */
RING_INLINE uint64_t
ring_count(const struct ring *ring)
{
	return ring->tail - ring->head;
}

/*
 * The slot number of position pos, which the ring must hold, or be about to (see
 * ring_reserve); position tail of a ring whose newest element is in its last slot may
 * give the number of slots, ring_run 0.
 */
RING_INLINE uint64_t
ring_index(const struct ring *ring, uint64_t pos)
{
	uint64_t r = pos - ring->base;

	return r < ring->wrap ? r : r - ring->cap;
}

/*
 * The slot of position pos in a ring of elements of size bytes whose map is map: for
 * a caller that keeps the map in a local.
 */
RING_INLINE void *
ring_map_at(const struct ring_map *map, size_t size, uint64_t pos)
{
	return (void *)((pos < map->wrap_pos ? map->near : map->far) + (uintptr_t)pos * size);
}

/* The slot of position pos (see ring_index), ring_index's slot of ring->slots. */
RING_INLINE void *
ring_at(const struct ring *ring, size_t size, uint64_t pos)
{
	return ring_map_at(&ring->map, size, pos);
}

/*
 * The positions from pos on whose slots follow pos's, one after the other: a loop may
 * walk that many by pointer.
 */
RING_INLINE uint64_t
ring_run(const struct ring *ring, uint64_t pos)
{
	uint64_t r = pos - ring->base;

	return r < ring->wrap ? ring->wrap - r : 2 * ring->cap - r;
}

/*
 * For a loop that walks down by pointer, from newer positions to older: the slots hold
 * consecutive positions, one below the other, down to ring_lowest's, and the position
 * before the one there is in ring_highest's (slot 0 and the last, but while moving: see
 * above, where slot wrap - cap holds the oldest not moved and wrap - 1 the newest moved).
 */
RING_INLINE unsigned char *
ring_lowest(const struct ring *ring, size_t size)
{
	return ring->slots + (size_t)(ring->wrap - ring->cap) * size;
}

RING_INLINE unsigned char *
ring_highest(const struct ring *ring, size_t size)
{
	return ring->slots + (size_t)(ring->wrap - 1) * size;
}

/* True while the ring grows by moves (see above): pushes must take ring_reserve. */
RING_INLINE bool
ring_moving(const struct ring *ring)
{
	return ring->moving != 0;
}

/*
 * Makes room for one more element, so that the slot of position tail may be written
 * before the push is counted (tail++).  Returns 0, or -1 when memory is short (the
 * ring is then unchanged).
 */
RING_INLINE int
ring_reserve(struct ring *ring, size_t size)
{
	if (__builtin_expect(ring->tail - ring->head >= ring->room ||
	    ring->tail >= ring->stop, 0))
		return ring_make_room(ring, size, 1);
	return 0;
}

/*
 * ring_reserve for a push that follows a pop from the front, so that the count does
 * not grow: only stop is tested (one test less).
 */
RING_INLINE int
ring_reserve_slide(struct ring *ring, size_t size)
{
	if (__builtin_expect(ring->tail >= ring->stop, 0))
		return ring_make_room(ring, size, 1);
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
