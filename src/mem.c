/*
 * mem.c: growing arrays, and the fault-injection seam of mem.h (compiled to nothing in
 * a normal build).
 */
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
