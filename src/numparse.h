/*
 * numparse.h: reading a field of text as a double.
 *
 * Every input field that a numeric aggregate sees passes through parse_number, so it
 * is written for speed, but its result is always the one glibc's strtod gives in the C
 * locale: the same double, bit for bit, whatever the process locale is.
 */
#ifndef SWAG_NUMPARSE_H
#define SWAG_NUMPARSE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Parses the whole of s[0..len) as a number.  s need not be NUL-terminated and may hold
 * any byte; no byte outside s[0..len) is read, so the field needs no padding after it.
 * The grammar (swag(1), INPUT):
 *
 *     number  := blank* [+-]? body blank*          blank is a space or a TAB
 *     body    := digits ("." digits?)? exponent?   at least one digit in the body,
 *              | "." digits exponent?              before or after the point
 *              | "nan" | "inf" | "infinity"        in any case
 *     exponent := [eE] [+-]? digits
 *
 * Anything else is refused: an empty or all-blank field, hex ("0x10"), "1,5", "1.5x",
 * "nan(123)", blanks inside the number, a NUL byte anywhere.
 *
 * On success returns true and stores in *out the double nearest to the decimal value
 * (ties to even), exactly as strtod would in the C locale: subnormals, overflow to
 * +-inf, underflow to +-0, "-0" as negative zero, "-nan" as a NaN with the sign bit
 * set.  On failure returns false and leaves *out untouched.  It never fails for any
 * other reason: it allocates nothing, and does not read or change the process locale.
 */
bool parse_number(const char *s, size_t len, double *out);

#endif /* SWAG_NUMPARSE_H */
