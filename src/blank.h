/*
 * blank.h: the blanks of swag(1), space and TAB, nothing else: they separate the
 * fields of blank-separated input, and they are trimmed around a delimited field's
 * text, a number, a key and a timestamp.  One definition for every module that
 * meets them.
 */
#ifndef SWAG_BLANK_H
#define SWAG_BLANK_H

#include <stdbool.h>

/* True for a blank: space or TAB. */
static inline bool
is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Moves *start forward and *end back past blanks; leaves an empty range when all blank. */
static inline void
trim_blanks(const char **start, const char **end)
{
	while (*start < *end && is_blank(**start))
		(*start)++;
	while (*end > *start && is_blank((*end)[-1]))
		(*end)--;
}

#endif /* SWAG_BLANK_H */
