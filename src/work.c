/*
 * work.c: the instrumented build's accounting of work per record (see work.h).  Only
 * make swag-work links it; in any other build (the fuzzers compile every file of src/)
 * it holds nothing.
 */
#ifdef SWAG_WORK_COUNTERS
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "counters.h"
#include "mem.h"
#include "window.h"
#include "work.h"

uint64_t work_units;

/*
 * work_units at the last charge, what each record of the batch took (a batch is at most
 * one key's move, WINDOW_STEPS_MAX records: pipeline.c asserts it), and the most.
 */
static uint64_t charged;
static uint64_t record_work[WINDOW_STEPS_MAX];
static uint64_t most, most_line;

/* work_keep_text's store: blocks that never move, the newest first. */
struct text_block {
	struct text_block *next;
	size_t used, cap;
	char bytes[];
};
static struct text_block *texts;

#define TEXT_BLOCK_MIN 65536

void
work_charge(size_t k)
{
	if (k < WINDOW_STEPS_MAX)
		record_work[k] += work_units - charged;
	charged = work_units;
}

void
work_batch_done(const struct record *records, size_t n)
{
	for (size_t k = 0; k < n && k < WINDOW_STEPS_MAX; k++) {
		if (record_work[k] > most) {
			most = record_work[k];
			most_line = records[k].line;
		}
		record_work[k] = 0;
	}
	while (texts != NULL) {
		struct text_block *next = texts->next;

		mem_free(texts);
		texts = next;
	}
}

const char *
work_keep_text(const char *text, size_t len)
{
	/* The copy is a text result too: AGG_TEXT_READABLE bytes readable (agg.h). */
	if (texts == NULL || texts->cap - texts->used < len + AGG_TEXT_READABLE) {
		size_t cap = len + AGG_TEXT_READABLE > TEXT_BLOCK_MIN ? len + AGG_TEXT_READABLE :
		    TEXT_BLOCK_MIN;
		struct text_block *b = mem_realloc(NULL, sizeof(*b) + cap);

		if (b == NULL)
			return NULL;
		b->next = texts;
		b->used = 0;
		b->cap = cap;
		texts = b;
	}
	memcpy(texts->bytes + texts->used, text, len);
	texts->used += len;
	return texts->bytes + texts->used - len;
}

uint64_t
work_most(uint64_t *line)
{
	*line = most_line;
	return most;
}
#else
typedef int work_not_counted;	/* ISO C wants a declaration in every file */
#endif
