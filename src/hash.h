/*
 * hash.h: hashing a field's bytes, for the hash tables and sketches that identify
 * values by their exact text (hashtable.h's tables, distinct's sketch).
 *
 * The hash is xxHash's XXH3, 64-bit.  A hash table, which untrusted input fills, is
 * seeded per run (agg_params.hash_seed; hashtable_hash_bytes), so that keys crafted to
 * collide under one seed scatter under another; a sketch whose result depends on the
 * hash (HyperLogLog) uses a fixed seed instead, so that the same input always gives
 * the same output.
 */
#ifndef SWAG_HASH_H
#define SWAG_HASH_H

#include <stddef.h>
#include <stdint.h>

/*
 * Returns the 64-bit XXH3 hash of bytes[0..len) under seed.  bytes need not be
 * NUL-terminated and may be NULL when len is 0.  Never fails, allocates nothing.
 */
uint64_t hash_bytes(const void *bytes, size_t len, uint64_t seed);

#endif /* SWAG_HASH_H */
