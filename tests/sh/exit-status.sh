# Every exit status that swag(1) documents, for each of the reasons it lists, with
# the message that goes with it (issue 7, part 3).
. tests/sh/lib.bash

# check STATUS 'STDERR' 'INPUT' ARGUMENT...: swag with INPUT (printf %b) on standard
# input exits with STATUS and the first line of its standard error is STDERR.
check() {
	local want_status=$1 want_message=$2 input=$3 status
	shift 3
	printf '%b' "$input" | "$SWAG" "$@" > "$TMP/out" 2> "$TMP/err"
	status=$?
	expect_eq "swag $*: status" "$status" "$want_status"
	expect_eq "swag $*: message" "$(head -n 1 "$TMP/err")" "$want_message"
}

# 0: success, bad fields counted and reported.
check 0 '' '1\n2\n' -w 2 sum
check 0 'swag: 1 field was not a number (first: line 2, column 1)' '1\nx\n3\n' -w 2 sum
check 0 'swag: 1 record had too few fields (first: line 1, column 2)' '1\n' -w 2 sum:2
check 0 '' '' -w 2 sum
check 0 '' '' --help
check 0 '' '' --version

# 1: bad input data: a problem under --strict, a quoted field never closed, UTF-16.
check 1 "swag: line 2, column 1: 'x' is not a number" '1\nx\n3\n' --strict -w 2 sum
check 1 'swag: line 1, column 2: the record has only 1 field' '1\n' --strict -w 2 sum:2
check 1 "swag: line 2, column 1: 'x' is not a timestamp" '1 5\nx 6\n' --strict -t 1 -w 5s sum:2
check 1 "swag: line 2, column 1: timestamp '1' goes backwards" '2 5\n1 6\n' --strict -t 1 -w 5s sum:2
check 1 'swag: line 1, column 1: malformed CSV (a quote inside an unquoted field, or text after a closing quote)' \
	'a"b,1\n' -c --strict -w 2 sum:2
check 1 'swag: line 2, column 1: a quoted field opened here is never closed' '1\n"2\n3\n' -c -w 2 sum
check 1 'swag: input is UTF-16' '\xff\xfe1\x00\n\x00' -w 2 sum

# 2: usage errors.
check 2 "swag: unrecognized option '--no-such-option'" '' --no-such-option -w 2 sum
check 2 "swag: invalid window '0': a row count from 1 to 4611686018427387904, a duration such as 30s (under 2^63 ns, 292 years), or all" \
	'' -w 0 sum
check 2 "swag: unknown aggregate in 'p101': a percentile is p and digits with at most one point between them, from p0 to p100 (p99, p99.9)" '' -w 2 p101
check 2 "swag: invalid column in 'sum:0': a field number from 1, from the end from -1, or a name with -H" '' -w 2 sum:0
check 2 "swag: no window for 'sum': give -w or sum@WINDOW" '' sum
check 2 'swag: no aggregate given' '' -w 2
check 2 "swag: column 'price' in 'sum:price' is a name: names need -H (--header)" '' -w 2 sum:price
check 2 "swag: unknown column 'price'; the header has: a, b" 'a,b\n1,2\n' -c -H -w 2 sum:price
# The names are escaped as a field is in other messages: a NUL would end the message.
check 2 "swag: unknown column 'a'; the header has: a\\x00b, c\\\\d, \\x7f" 'a\0b,c\\d,\x7f\n1,2\n' -c -H -w 2 sum:a
check 2 "swag: window of 'sum' is a duration: durations need -t (--time)" '' -w 5s sum
check 2 "swag: invalid precision '31': not an integer from 0 to 30" '' -p 31 -w 2 sum

# 3: input/output and resource errors.
seq 1 1000 | "$SWAG" -w 2 sum > /dev/full 2> "$TMP/err"
expect_eq "write error: status" "$?" 3
expect_eq "write error: message" "$(cat "$TMP/err")" "swag: write error: No space left on device"
"$SWAG" -w 2 sum < / > /dev/null 2> "$TMP/err"
expect_eq "read error: status" "$?" 3
expect_eq "read error: message" "$(cat "$TMP/err")" "swag: read error: Is a directory"
# Memory that could not be had (an AddressSanitizer build cannot run under ulimit -v).
if ! grep -qa __asan_init "$SWAG"; then
	seq 1 10000000 | (ulimit -v 50000 && exec "$SWAG" -w 100000000 sum) > /dev/null 2> "$TMP/err"
	expect_eq "out of memory: status" "$?" 3
	expect_eq "out of memory: message" "$(cat "$TMP/err")" "swag: out of memory"
fi
finish
