/*
 * swar.h: digits read 8 at a time in one 64-bit word (SWAR, SIMD within a register),
 * for the number parser and the timestamp parser; and short byte strings compared a
 * word at a time, for the key table.
 *
 * A word holds 8 characters, the first in the lowest byte (little-endian loads), each
 * XORed with '0' (SWAR_ZEROS): a digit becomes its value 0 to 9, every other byte
 * something above 9.  SWAR_LITTLE_ENDIAN says whether this machine loads them so.
 */
#ifndef SWAG_SWAR_H
#define SWAG_SWAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SWAR_LITTLE_ENDIAN 1
#else
#define SWAR_LITTLE_ENDIAN 0
#endif

#define SWAR_ZEROS 0x3030303030303030U

static inline uint64_t
load_u32(const unsigned char *p)
{
	uint32_t word;

	memcpy(&word, p, sizeof(word));
	return word;
}

static inline uint64_t
load_u64(const unsigned char *p)
{
	uint64_t word;

	memcpy(&word, p, sizeof(word));
	return word;
}

/*
 * Returns 0x80 in every byte of the aligned word that is not a digit (above 9), and 0
 * elsewhere, except that a byte just above a flagged one may be flagged too: adding
 * 0x76 sets the high bit of a byte from 10 to 0x7F, the OR flags 0x80 to 0xFF, and only
 * a byte from 0x8A up, itself flagged, carries into the next.  So the word is all
 * digits exactly when the result is 0, and the lowest flag is always a true one; a
 * result with a single flag flags the word's only non-digit.
 */
static inline uint64_t
swar_nondigits(uint64_t word)
{
	return ((word + 0x7676767676767676U) | word) & 0x8080808080808080U;
}

/*
 * Returns the value of the 8 digits of an aligned word (at most 99999999): pairs, then
 * fours, then all eight, each step one multiplication that adds a lane times 10, 100 or
 * 10000 to its neighbour (the well-known 3-multiplication form of simdjson and
 * fast_float).
 */
static inline uint64_t
swar_digits_value(uint64_t word)
{
	word = ((word * (1 + (10 << 8))) >> 8) & 0x00FF00FF00FF00FFU;
	word = ((word * (1 + (100 << 16))) >> 16) & 0x0000FFFF0000FFFFU;
	return (word * (1 + (10000ULL << 32))) >> 32;
}

#endif /* SWAG_SWAR_H */
