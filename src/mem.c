/*
 * mem.c: growing arrays, and the fault-injection seam of mem.h (compiled to nothing in
 * a normal build).
 */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef __GLIBC__		/* defined by the headers above */
#include <malloc.h>
#endif

#include "mem.h"

int
mem_grow(void *items, size_t *cap, size_t need, size_t item_size, size_t first)
{
	size_t new_cap = *cap ? *cap : first, bytes;
	void *p;

	while (new_cap < need) {
		if (new_cap > (size_t)-1 / 2)
			return -1;
		new_cap *= 2;
	}
	if (new_cap == *cap)
		return 0;
	if (mem_array_size(new_cap, item_size, &bytes) != 0 ||
	    (p = mem_realloc(*(void **)items, bytes)) == NULL)
		return -1;
	*(void **)items = p;
	*cap = new_cap;
	return 0;
}

void *
mem_zalloc(size_t n)
{
	void *p;

	if (n < MEM_MAP_MIN) {
		if ((p = mem_realloc(NULL, n)) != NULL)
			memset(p, 0, n);
		return p;
	}
	if (mem_fault())
		return NULL;
	p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p != MAP_FAILED ? p : NULL;
}

void *
mem_remap(void *p, size_t n, size_t size)
{
	void *q;

	if (mem_fault())
		return NULL;
#ifdef MREMAP_MAYMOVE
	q = mremap(p, n, size, MREMAP_MAYMOVE);
	return q != MAP_FAILED ? q : NULL;
#else
	q = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (q == MAP_FAILED)
		return NULL;
	memcpy(q, p, n < size ? n : size);
	(void)munmap(p, n);
	return q;
#endif
}

void
mem_zfree(void *p, size_t n)
{
	if (p == NULL)
		return;
	if (n < MEM_MAP_MIN)
		mem_free(p);
	else
		(void)munmap(p, n);
}

size_t
mem_page_size(void)
{
	static size_t page;

	if (page == 0)
		page = (size_t)sysconf(_SC_PAGESIZE);
	return page;
}

/* Bytes of blocks that mem_note_freed counted since the last trim (mem_idle). */
static size_t freed_since_trim;

void
mem_note_freed(size_t n)
{
	freed_since_trim += n;
}

void
mem_idle(void)
{
	if (freed_since_trim < MEM_TRIM_MIN)
		return;
	freed_since_trim = 0;
#ifdef __GLIBC__
	(void)malloc_trim(0);
#endif
}

void
mem_release(void *p, size_t n)
{
	(void)madvise(p, n, MADV_DONTNEED);
}

int
mem_zfree_part(void *p, size_t *n)
{
	size_t keep;
	/*
	 * The end goes and the start stays mapped: shrinking a mapping from its end never
	 * splits it, so munmap cannot fail for want of a map entry.  The start is
	 * page-aligned, so keep is a whole number of pages; what is left stays at least
	 * MEM_MAP_MIN, so that mem_zfree still knows the block for a mapped one.
	 */
	keep = *n >= MEM_MAP_MIN + MEM_FREE_STEP ? mem_page_round(*n - MEM_FREE_STEP) : 0;
	if (keep < MEM_MAP_MIN || keep >= *n) {
		mem_zfree(p, *n);
		*n = 0;
		return 1;
	}
	(void)munmap((char *)p + keep, *n - keep);
	*n = keep;
	return 0;
}

#ifdef SWAG_FAULT_INJECTION
#include <stdint.h>
#include <stdio.h>

/* The allocations asked for so far in the process. */
static uint64_t calls;

/*
 * Returns true for the Nth call in the process, N being SWAG_FAIL_ALLOC (1-based;
 * unset or 0: never), and for no other call, so a sweep over N = 1, 2, ... fails
 * each allocation site in turn.
 */
int
mem_fault(void)
{
	static uint64_t fail_at;
	static int initialised;

	if (!initialised) {
		const char *text = getenv("SWAG_FAIL_ALLOC");

		fail_at = text != NULL ? strtoull(text, NULL, 10) : 0;
		initialised = 1;
	}
	return ++calls == fail_at;
}

/*
 * At exit, writes the number of allocations asked for to the file that
 * SWAG_COUNT_ALLOC names, so that a sweep (scripts/check-faults) knows the last N
 * worth failing.  A process ended by a signal writes nothing.
 */
__attribute__((destructor)) static void
mem_report_calls(void)
{
	const char *path = getenv("SWAG_COUNT_ALLOC");
	FILE *file;

	if (path == NULL || *path == '\0' || (file = fopen(path, "w")) == NULL)
		return;
	fprintf(file, "%llu\n", (unsigned long long)calls);
	fclose(file);
}
#endif
