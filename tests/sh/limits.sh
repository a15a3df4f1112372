# Input at the edges (issue 7, part 3): NUL bytes and binary junk, a 100 MB line, a
# million columns, a window of 10^12 rows, a window that outgrows a memory limit.
. tests/sh/lib.bash

$asan && echo "limits.sh: AddressSanitizer build: the ulimit -v checks are skipped"

# --- NUL bytes.  -a writes the line back byte for byte, NULs included; a field
# holding one is not a number (count takes it: it is not empty).  @ stands for NUL (printf and awk differ on \0).
printf '1@2 5\n@\n7 8@\n3 4\n' | tr '@' '\000' > "$TMP/nul"
printf '1@2 5\t5\t1\n@\t5\t2\n7 8@\t-\t2\n3 4\t4\t2\n' | tr '@' '\000' > "$TMP/nul-expected"
"$SWAG" -a -w 2 sum:2 count:1 < "$TMP/nul" > "$TMP/got" 2> "$TMP/err"
expect_eq "NUL bytes, -a status" "$?" 0
checks=$((checks + 1))
cmp -s "$TMP/got" "$TMP/nul-expected" ||
	fail "NUL bytes, -a: $(od -c "$TMP/got" | head -n 4 | tr '\n' '|')"
expect_eq "NUL bytes, -a warnings" "$(tr '\n' ';' < "$TMP/err")" \
	"swag: 1 field was not a number (first: line 3, column 2);swag: 1 record had too few fields (first: line 2, column 2);"

# Binary junk, a NUL in every few bytes and lines of every length: one result per
# line in blank-separated input, and in CSV a clean exit (0, or 1 for a quote left
# open or malformed CSV with --strict), never a crash.
awk 'BEGIN {
	srand(5)
	for (i = 0; i < 300000; i++) {
		r = rand()
		c = r < 0.02 ? "\n" : r < 0.1 ? "@" : r < 0.15 ? " " : r < 0.17 ? "\"" : \
		    r < 0.19 ? "," : r < 0.2 ? "\r" : sprintf("%c", 33 + int(rand() * 94))
		printf "%s", c
	}
	print ""
	for (i = 0; i < 50; i++) print "1 2"
}' | tr '@' '\000' > "$TMP/junk"
lines=$(($(tr -dc '\n' < "$TMP/junk" | wc -c)))
"$SWAG" -w 50 sum count median mode distinct:2 < "$TMP/junk" > "$TMP/got" 2> "$TMP/err"
expect_eq "binary junk status" "$?" 0
expect_eq "binary junk: one result per line" "$(wc -l < "$TMP/got")" "$lines"
expect_eq "binary junk: last result" "$(tail -n 1 "$TMP/got" | tr '\t' ,)" "50,50,1,1,1"
expect_eq "binary junk: only swag's messages" "$(grep -cv '^swag: ' "$TMP/err")" 0
for strict in "" --strict; do
	"$SWAG" -c $strict -w 50 sum count:2 mode:3 < "$TMP/junk" > /dev/null 2> "$TMP/err"
	status=$?
	checks=$((checks + 1))
	case $status in
	0 | 1) ;;
	*) fail "binary junk as CSV $strict: status $status: $(head -c 300 "$TMP/err")" ;;
	esac
	expect_eq "binary junk as CSV $strict: only swag's messages" \
		"$(grep -cv '^swag: ' "$TMP/err")" 0
done

# --- A 100 MB line, made on the fly, between short ones: the fields at both of its
# ends are read, and -a writes all of it back.  Each run takes a second or less; the
# timeouts turn a buffer that grows linearly into a failure rather than a hang
# (libcsv's field buffer grows 128 bytes at a time unless src/csvread.c says
# otherwise: quadratic copying, hours under AddressSanitizer or valgrind).
long_line() {
	printf '5%s' "$1"
	head -c 100000000 /dev/zero | tr '\0' x
	printf '%s7\n3%s4%s5\n' "$1" "$1" "$1"
}
expect_eq "100 MB line" \
	"$(long_line ' ' | timeout 120 "$SWAG" -w 2 sum:1 count:2 sum:3 | tr '\t\n' ',;')" "5,1,7;8,2,12;"
expect_eq "100 MB line, CSV" \
	"$(long_line , | timeout 120 "$SWAG" -c -w 2 sum:1 count:2 sum:3 | tr '\n' ';')" "5,1,7;8,2,12;"
checks=$((checks + 1))
cmp -s <(long_line ' ' | timeout 120 "$SWAG" -a -w 2 sum:3) \
	<(long_line ' ' | sed -e '1s/$/\t7/' -e '2s/$/\t12/') ||
	fail "100 MB line, -a: not written back as it came"
quoted_line() {
	printf '1,"a'
	head -c 100000000 /dev/zero | tr '\0' ,
	printf '"%s\n' "$1"
}
checks=$((checks + 1))
cmp -s <(quoted_line ,2 | timeout 120 "$SWAG" -c -a -w 1 sum:3) <(quoted_line ,2,2) ||
	fail "100 MB quoted CSV field, -a: not written back as it came"

# --- A million columns on one line: the last one is read, by number and by name.
{
	seq 1 1000000 | sed 's/^/c/' | paste -s -d ' '
	seq 1 1000000 | paste -s -d ' '
	seq 2 1000001 | paste -s -d ' '
} > "$TMP/wide"
expect_eq "1,000,000 columns" \
	"$(tail -n 2 "$TMP/wide" | timeout 120 "$SWAG" -w 2 sum:1000000 max:999999 | tr '\t\n' ',;')" \
	"1000000,999999;2000001,1000000;"
expect_eq "1,000,000 columns by name" \
	"$(timeout 120 "$SWAG" -H -w 2 sum:c1000000 < "$TMP/wide" | tr '\n' ';')" \
	"sum(c1000000);1000000;2000001;"
expect_eq "1,000,000 columns, CSV, -a" \
	"$(tr ' ' , < "$TMP/wide" | timeout 120 "$SWAG" -c -H -a -w 2 sum:c1000000 | cut -d , -f 999999- | tr '\n' ';')" \
	"c999999,c1000000,sum(c1000000);999999,1000000,1000000;1000000,1000001,2000001;"
expect_eq "column 1,000,001 of 1,000,000" \
	"$(tail -n 1 "$TMP/wide" | timeout 120 "$SWAG" -w 2 count:1000001 2>&1 | tr '\n' ';')" \
	"0;swag: 1 record had too few fields (first: line 1, column 1000001);"
# A column far beyond any line's fields (the column, -t's or -g's) costs no room for
# that many fields a line: a short record, as in CSV (it asked for 2^30 fields of
# 16 bytes a line, and ran out of memory).
expect_eq "column 2,000,000,000 of 2" \
	"$(printf '1 x\n' | "$SWAG" -w 2 count:2000000000 2>&1 | tr '\n' ';')" \
	"0;swag: 1 record had too few fields (first: line 1, column 2000000000);"
expect_eq "-g column 4,294,967,297 of 2" \
	"$(printf '1 x\n' | "$SWAG" -g 4294967297 -w 2 count:2 2>&1 | tr '\n' ';')" \
	"-	1;"
expect_eq "-a, column 2,000,000,000 of 2" \
	"$(printf '1 x\n' | "$SWAG" -a -w 2 count:2000000000 2>/dev/null | tr '\t\n' ',;')" \
	"1 x,0;"

# --- A window of 10^12 rows on five records: storage follows the rows seen, so it
# fits in a small memory limit (where the sanitizer allows one).
want="1	1	1	1	1	1;3	2	1.5	1	2	2;6	3	2	1	3	3;10	4	2.5	1	4	4;15	5	3	1	5	5;"
got=$(seq 1 5 | "$SWAG" -w 1000000000000 sum count median mode distinct max | tr '\n' ';')
expect_eq "window of 10^12 rows" "$got" "$want"
if ! $asan; then
	got=$(seq 1 5 | (ulimit -v 30000 && "$SWAG" -w 1000000000000 sum count median mode \
		distinct max) | tr '\n' ';')
	expect_eq "window of 10^12 rows in 30 MB" "$got" "$want"
fi

# --- A window that outgrows a memory limit: exit 3 with a message, never a crash,
# and every result written before it is right (the sum of 1..n on line n).
if ! $asan; then
	for agg in sum median mode distinct; do
		seq 1 20000000 | (ulimit -v 50000 && exec "$SWAG" -w 100000000 "$agg") \
			> "$TMP/got" 2> "$TMP/err"
		expect_eq "$agg past ulimit -v: status" "$?" 3
		expect_eq "$agg past ulimit -v: message" "$(cat "$TMP/err")" "swag: out of memory"
		checks=$((checks + 1))
		[ "$(wc -l < "$TMP/got")" -gt 100000 ] || fail "$agg past ulimit -v: too few results"
		# Line n's result over 1..n (distinct is exact up to 512 values).
		# (An if chain: mawk, Debian's awk, reads no ternary continued on a new line.)
		bad=$(awk -v agg="$agg" '{
			if (agg == "sum")
				want = NR * (NR + 1) / 2
			else if (agg == "median")
				want = (NR + 1) / 2
			else if (agg == "mode")
				want = 1
			else
				want = NR > 512 ? $1 : NR
			if ($1 != want) { print "line " NR ": " $0; exit }
		}' "$TMP/got" 2>&1)
		expect_eq "$agg past ulimit -v: results before the failure" "$bad" ""
	done
fi
finish
