/*
 * mem.h: the one door through which swag allocates memory.
 *
 * Every allocation goes through mem_realloc() so that a fault-injection build
 * (make FAULT=1, which defines SWAG_FAULT_INJECTION) can make the Nth allocation
 * fail, N taken from the environment variable SWAG_FAIL_ALLOC, and prove that every
 * failure ends in a clean "out of memory" exit rather than a crash.  In a normal
 * build the seam compiles to a plain realloc().
 */
#ifndef SWAG_MEM_H
#define SWAG_MEM_H

#include <stddef.h>
#include <stdlib.h>

#ifdef SWAG_FAULT_INJECTION
/* Returns true when the allocation about to be made must fail. */
int mem_fault(void);
#else
#define mem_fault() 0
#endif

/*
 * Resizes the block at p (NULL for a new one) to n bytes, as realloc(3).  Returns the
 * block, or NULL when memory is short, in which case p is untouched and still owned by
 * the caller.  n * count overflow is the caller's to check (see mem_array_size).
 */
static inline void *
mem_realloc(void *p, size_t n)
{
	if (mem_fault())
		return NULL;
	return realloc(p, n);
}

/* Frees a block from mem_realloc(); NULL is allowed. */
static inline void
mem_free(void *p)
{
	free(p);
}

/*
 * Stores count * size in *bytes and returns 0, or returns -1 when the product does not
 * fit in a size_t.
 */
static inline int
mem_array_size(size_t count, size_t size, size_t *bytes)
{
	if (size != 0 && count > (size_t)-1 / size)
		return -1;
	*bytes = count * size;
	return 0;
}

/*
 * Grows the array *items, of *cap items of item_size bytes (NULL and 0 for none yet),
 * to hold at least need items: its capacity doubles from first, so that a growing
 * array costs linear time; an array without items yet is made even when need is 0.
 * Returns 0, or -1 when memory is short (the array is then as it was).
 */
int mem_grow(void *items, size_t *cap, size_t need, size_t item_size, size_t first);

/*
 * Blocks of at least this many bytes come from mmap(2) in mem_zalloc: their pages
 * are zero until first touched, so a large zeroed block costs no memset in the
 * operation that asks for it, and mem_zfree_part returns it a piece at a time.
 */
#define MEM_MAP_MIN ((size_t)128 << 10)
/* The most bytes mem_zfree_part returns in one call: 256 KiB unmap in about 15 us. */
#define MEM_FREE_STEP ((size_t)256 << 10)

/*
 * A block of n bytes, all zero (n > 0): mapped pages when n >= MEM_MAP_MIN, else
 * from mem_realloc, cleared.  Returns NULL when memory is short.  It must be freed
 * with mem_zfree or mem_zfree_part, given the same n.
 */
void *mem_zalloc(size_t n);

/*
 * Resizes the block p of n bytes from mem_zalloc, n and size both at least
 * MEM_MAP_MIN, to size bytes, keeping the first min(n, size): mremap(2) moves its pages
 * and not its bytes (about 40 us whatever the size; copying 16 MB takes 11 ms),
 * and the bytes past n are zero.  Returns the block, which may have moved, or NULL when
 * memory is short (p is then untouched).
 */
void *mem_remap(void *p, size_t n, size_t size);

/* Frees a block of n bytes from mem_zalloc; NULL is allowed. */
void mem_zfree(void *p, size_t n);

/*
 * Frees MEM_FREE_STEP bytes at the most from the end of the block p of *n bytes from
 * mem_zalloc, or all of a block under MEM_MAP_MIN + MEM_FREE_STEP (so that what stays
 * is at least MEM_MAP_MIN), and stores in *n the bytes left.  Returns true when the
 * block is all freed.
 */
int mem_zfree_part(void *p, size_t *n);

/* The size of a page (sysconf(3), asked once). */
size_t mem_page_size(void);

/* n rounded up to whole pages. */
static inline size_t
mem_page_round(size_t n)
{
	size_t page = mem_page_size();

	return (n + page - 1) / page * page;
}

/*
 * Returns the pages [p, p + n) of a block from mem_zalloc that is mapped (n and p's
 * offset in it whole pages) to the system, which zeroes them on next use: the block
 * keeps them in its address space, and they cost memory again when next written.
 */
void mem_release(void *p, size_t n);

/*
 * The bytes of small blocks given up after a burst (mem_note_freed) from which an idle
 * moment returns malloc's free pages to the system (mem_idle).
 */
#define MEM_TRIM_MIN ((size_t)1 << 20)

/*
 * Counts n bytes of a block from mem_realloc that a structure freed to hold less after
 * a burst (a ring gone into fewer slots): free(3) keeps such blocks' pages when other
 * blocks lie past them, and mem_idle returns them.
 */
void mem_note_freed(size_t n);

/*
 * Called when swag is about to wait for input, its output flushed: once
 * MEM_TRIM_MIN bytes or more were counted by mem_note_freed, asks malloc to return the
 * pages it holds free to the system (malloc_trim(3), where the C library is glibc's).
 */
void mem_idle(void);

#endif /* SWAG_MEM_H */
