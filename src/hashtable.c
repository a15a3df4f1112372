/*
 * hashtable.c: the rare, out-of-line parts of the hash table (see hashtable.h).
 */
#include "hashtable.h"
#include "mem.h"

void
hashtable_free(struct hashtable *table)
{
	mem_free(table->slots);
	hashtable_init(table, table->seed);
}

int
hashtable_resize(struct hashtable *table, const struct hashtable_ops *ops, unsigned bits)
{
	size_t size = ops->slot_size, old_capacity = hashtable_capacity(table), bytes;
	unsigned char *old = table->slots, *slots;

	if (bits >= sizeof(size_t) * 8 ||
	    mem_array_size((size_t)1 << bits, size, &bytes) != 0 ||
	    (slots = mem_realloc(NULL, bytes)) == NULL)
		return -1;
	memset(slots, 0, bytes);
	table->slots = slots;
	table->mask = ((size_t)1 << bits) - 1;
	table->shift = 64 - bits;
	/* The keys are distinct, so each goes to the first free slot from its home. */
	for (size_t i = 0; i < old_capacity; i++) {
		const unsigned char *slot = old + i * size;
		size_t index;

		if (!ops->occupied(slot))
			continue;
		index = hashtable_free_index(table, ops, ops->hash(table, slot));
		memcpy(hashtable_slot(table, size, index), slot, size);
	}
	mem_free(old);
	return 0;
}

int
hashtable_grow(struct hashtable *table, const struct hashtable_ops *ops, size_t n)
{
	unsigned bits = table->slots != NULL ? 64 - table->shift : HASHTABLE_MIN_BITS;

	while (((size_t)1 << bits) / 2 < n) {
		if (bits + 1 >= sizeof(size_t) * 8)
			return -1;
		bits++;
	}
	if (table->slots != NULL && bits == 64 - table->shift)
		return 0;
	return hashtable_resize(table, ops, bits);
}
