/*
 * hash.h: hashing a field's bytes, for the hash tables and sketches that identify
 * values by their exact text (hashtable.h's tables, distinct's sketch).
 *
 * The hash is xxHash's XXH3, 64-bit.  A hash table, which untrusted input fills, is
 * seeded per run (agg_params.hash_seed; hashtable_hash_bytes), so that keys crafted to
 * collide under one seed scatter under another; a sketch whose result depends on the
 * hash (HyperLogLog) uses a fixed seed instead, so that the same input always gives
 * the same output.
 *
 * Only this header includes xxhash.h, and with XXH_INLINE_ALL: xxHash is compiled,
 * static, into each file that hashes, so that a short field (most are under 16 bytes)
 * is hashed in the caller's loop, without a call, the shared library's dispatch or a
 * -lxxhash to link.  Behind one out-of-line function the call cost -g 3 -w 1000 avg:2
 * 8 instructions a record more (callgrind); the price is xxHash's text in the few
 * files that hash, nothing else sees it.
 */
#ifndef SWAG_HASH_H
#define SWAG_HASH_H

#include <stddef.h>
#include <stdint.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

/*
 * Returns the 64-bit XXH3 hash of bytes[0..len) under seed.  bytes need not be
 * NUL-terminated and may be NULL when len is 0.  Never fails, allocates nothing.
 */
static inline uint64_t
hash_bytes(const void *bytes, size_t len, uint64_t seed)
{
	static const char empty[1];

	/* XXH3 reads nothing for len 0, but a NULL pointer is not ours to hand it. */
	if (bytes == NULL)
		bytes = empty;
	return XXH3_64bits_withSeed(bytes, len, seed);
}

#endif /* SWAG_HASH_H */
