/*
 * mem.c: the fault-injection seam of mem.h (compiled to nothing in a normal build).
 */
#include "mem.h"

#ifdef SWAG_FAULT_INJECTION
#include <stdint.h>

/*
 * Returns true for the Nth call in the process, N being SWAG_FAIL_ALLOC (1-based;
 * unset or 0: never), and for no other call, so a sweep over N = 1, 2, ... fails
 * each allocation site in turn.
 */
int
mem_fault(void)
{
	static uint64_t calls, fail_at;
	static int initialised;

	if (!initialised) {
		const char *text = getenv("SWAG_FAIL_ALLOC");

		fail_at = text != NULL ? strtoull(text, NULL, 10) : 0;
		initialised = 1;
	}
	return ++calls == fail_at;
}
#endif
