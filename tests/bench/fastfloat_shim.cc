/*
 * fastfloat_shim.cc: fast_float's from_chars behind parse_number's C interface, for
 * bench_numparse (the build is in its top comment).
 *
 * from_chars reads "-"? digits ("." digits?)? exponent?, ".5", and "nan", "inf",
 * "infinity" in any case, within [first, last) and without a NUL after it.  swag(1)'s
 * numbers (INPUT) are more: blanks (space, TAB) around the field and a leading '+',
 * which from_chars refuses, so the shim trims and skips them first; and fewer:
 * "nan(123)", which from_chars takes, is refused.  Those steps are the work a
 * parse_number on fast_float would do, so the timings include them.
 */
#include <cmath>
#include <cstddef>
#include <system_error>

#include <fast_float/fast_float.h>

/*
 * Parses the whole of s[0..len) as swag(1) reads a number, as numparse.h's
 * parse_number does: on success stores the double in *out and returns true; on
 * refusal returns false and leaves *out untouched.  Reads no byte outside s[0..len).
 */
extern "C" bool
fastfloat_parse(const char *s, size_t len, double *out)
{
	const char *first = s, *last = s + len;
	while (first != last && (*first == ' ' || *first == '\t'))
		first++;
	while (last != first && (last[-1] == ' ' || last[-1] == '\t'))
		last--;
	if (first != last && *first == '+') {
		first++;
		/* from_chars would take the '-' of "+-1" as the sign. */
		if (first != last && *first == '-')
			return false;
	}
	double value;
	fast_float::from_chars_result r = fast_float::from_chars(first, last, value);
	if (r.ec != std::errc() || r.ptr != last)
		return false;
	/* "nan" or "-nan" only: from_chars also takes "nan(chars)". */
	if (std::isnan(value) && last - first != 3 + (*first == '-'))
		return false;
	*out = value;
	return true;
}

/*
 * from_chars alone, for the cost of the shim's steps: the whole of s[0..len) as
 * from_chars reads it (no blanks, no '+'; "nan(chars)" taken).
 */
extern "C" bool
fastfloat_from_chars(const char *s, size_t len, double *out)
{
	fast_float::from_chars_result r = fast_float::from_chars(s, s + len, *out);
	return r.ec == std::errc() && r.ptr == s + len;
}

#ifdef FASTFLOAT_SHIM_SWAG
extern "C" bool parse_number_numparse(const char *s, size_t len, double *out);

/*
 * The variant swag's parse_number (bench_numparse's top comment builds it): fast_float
 * for every field it reads, numparse.c's parser, renamed, for the fields it refuses,
 * so that the variant's output is the real swag's whatever the shim misses.
 */
extern "C" bool
parse_number(const char *s, size_t len, double *out)
{
	return fastfloat_parse(s, len, out) || parse_number_numparse(s, len, out);
}
#endif
