/*
 * hash.c: XXH3 behind one function, so that only this file sees xxhash.h.
 *
 * XXH_INLINE_ALL compiles xxHash into this file rather than calling libxxhash: the
 * short-input paths (a field is most often under 16 bytes) then skip the shared
 * library's call and dispatch, and the program needs no -lxxhash to link.
 */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "hash.h"

uint64_t
hash_bytes(const void *bytes, size_t len, uint64_t seed)
{
	static const char empty[1];

	/* XXH3 reads nothing for len 0, but a NULL pointer is not ours to hand it. */
	if (bytes == NULL)
		bytes = empty;
	return XXH3_64bits_withSeed(bytes, len, seed);
}
