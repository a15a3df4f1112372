/*
 * record.h: one input record as the readers hand it to the pipeline.
 */
#ifndef SWAG_RECORD_H
#define SWAG_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A field's text; text is NULL for a field that was counted but not kept. */
struct field {
	const char *text;
	size_t len;
};

struct record {
	const struct field *fields;
	size_t field_count;	/* every field of the record, kept or not */
	uint64_t line;		/* the physical line where the record starts */
	const char *raw;	/* whitespace input: the line as it came, for -a */
	size_t raw_len;
	bool in_input;		/* the fields point into the input bytes, and live as long */
	/*
	 * No field has blanks around it: split at blanks, or a delimited line split
	 * without libcsv (split.h trims as libcsv trims), so that nothing trims again.
	 */
	bool trimmed;
};

#endif /* SWAG_RECORD_H */
