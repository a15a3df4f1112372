/*
 * hash.h: hashing a field's bytes, for the hash tables and sketches that identify
 * values by their exact text (hashtable.h's tables, distinct's sketch).
 *
 * The hash is xxHash's XXH3, 64-bit, but for the key table's short keys (at most 16
 * bytes), which hash_words hashes from their two words.  A hash table, which untrusted
 * input fills, is seeded per run (agg_params.hash_seed; hashtable_hash_bytes,
 * hash_words_seed), so that keys crafted to collide under one seed scatter under
 * another; a sketch whose result depends on the hash (HyperLogLog) uses a fixed seed
 * instead, so that the same input always gives the same output.
 *
 * Only this header includes xxhash.h, and with XXH_INLINE_ALL: xxHash is compiled,
 * static, into each file that hashes, so that a short field (most are under 16 bytes)
 * is hashed in the caller's loop, without a call, the shared library's dispatch or a
 * -lxxhash to link; the price is xxHash's text in the files that hash.
 */
#ifndef SWAG_HASH_H
#define SWAG_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

/* The longest key that hash_key_words and hash_words take: two words. */
#define HASH_WORDS_MAX 16

/*
 * The words of a key of at most HASH_WORDS_MAX bytes, read without a byte outside it:
 * 8 to 16 bytes as its first 8 and its last 8 (they overlap below 16), 4 to 7 as its
 * first 4 and its last 4, 1 to 3 as its first, middle and last bytes in a, none as
 * zeros.  With the length they say the key exactly: two keys of one length are equal
 * when their words are.  A longer key's are its first 8 and last 8 bytes, which do not.
 */
static inline void
hash_key_words(const void *bytes, size_t len, uint64_t *a, uint64_t *b)
{
	const unsigned char *p = bytes;

	if (len >= 8) {
		memcpy(a, p, 8);
		memcpy(b, p + len - 8, 8);
	} else if (len >= 4) {
		uint32_t x, y;

		memcpy(&x, p, 4);
		memcpy(&y, p + len - 4, 4);
		*a = x;
		*b = y;
	} else {
		*a = len == 0 ? 0 : (uint64_t)p[0] | (uint64_t)p[len / 2] << 8 |
		    (uint64_t)p[len - 1] << 16;
		*b = 0;
	}
}

/* hash_words' keys, made from the run's seed (hash_words_seed). */
struct hash_words_seed {
	uint64_t a, b, len, mix;
};

/* x times y, the high and low words of the 128-bit product XORed (wyhash's mum). */
static inline uint64_t
hash_mum(uint64_t x, uint64_t y)
{
	__extension__ unsigned __int128 m = (unsigned __int128)x * y;

	return (uint64_t)m ^ (uint64_t)(m >> 64);
}

/* Makes hash_words' keys from seed, each a splitmix64 output of it (the mix odd). */
static inline struct hash_words_seed
hash_words_seed(uint64_t seed)
{
	uint64_t k[4];

	for (int i = 0; i < 4; i++) {
		uint64_t z = (seed += UINT64_C(0x9E3779B97F4A7C15));

		z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
		z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
		k[i] = z ^ (z >> 31);
	}
	return (struct hash_words_seed){ k[0], k[1], k[2], k[3] | 1 };
}

/*
 * The seeded hash of a key of at most HASH_WORDS_MAX bytes, from its words and length
 * (hash_key_words): the words XORed with two keys are multiplied (hash_mum), and that
 * with the length and a third key by the odd fourth, as wyhash hashes a short key and
 * XXH3 one of 9 to 16 bytes, but without XXH3's dispatch on the length and reads of
 * its secret (12 instructions where XXH3 takes 34).  The keys come from the run's seed
 * and are secret, so that keys crafted to collide under one seed scatter under another.
 */
static inline uint64_t
hash_words(const struct hash_words_seed *seed, uint64_t a, uint64_t b, size_t len)
{
	return hash_mum(hash_mum(a ^ seed->a, b ^ seed->b) ^ len ^ seed->len, seed->mix);
}

#endif /* SWAG_HASH_H */
