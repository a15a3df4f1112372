# Input as it comes in the wild: long lines, block boundaries, other locales.
. tests/sh/lib.bash

# A 10 MB line between two short ones: the fields at both of its ends are read.
{
	echo "1 a 2"
	printf '5 '
	head -c 10000000 /dev/zero | tr '\0' x
	printf ' 7\n'
	echo "3 b 4"
} > "$TMP/long"
expect_eq "10 MB line" "$("$SWAG" -w 2 sum:1 count:2 sum:3 < "$TMP/long" | tr '\t\n' ', ')" \
	"1,1,2 6,2,9 8,2,11 "

# Thousands of records with lines of random lengths (some longer than a read block),
# random blank runs and blank lines, compared with a naive recomputation in awk of
# every window: min, max, count and sum of integers are exact in both.
# (The padding is cut from a long string: mawk, Debian's default awk, refuses a
# sprintf of more than 8 KiB.)
awk 'BEGIN {
	srand(7)
	blanks = " "
	while (length(blanks) < 200001)
		blanks = blanks blanks
	for (i = 0; i < 20000; i++) {
		r = rand()
		if (r < 0.05) { print ""; continue }
		pad = r < 0.06 ? 200000 : int(rand() * 5)
		line = substr(blanks, 1, pad + 1) int(rand() * 2000 - 1000)
		if (rand() < 0.3) line = line "\t " int(rand() * 100)
		print line
	}
}' > "$TMP/random"
awk -v w=7 '{
	present[NR] = NF >= 1; value[NR] = $1
	n = 0; s = 0; lo = ""; hi = ""
	for (i = NR - w + 1; i <= NR; i++) {
		if (i < 1 || !present[i]) continue
		n++; s += value[i]
		if (lo == "" || value[i] < lo) lo = value[i]
		if (hi == "" || value[i] > hi) hi = value[i]
	}
	printf "%s\t%s\t%d\t%s\n", lo, hi, n, n ? s : "-"
}' "$TMP/random" > "$TMP/expected"
"$SWAG" -w 7 min max count sum < "$TMP/random" > "$TMP/got"
expect_eq "random records status" "$?" 0
checks=$((checks + 1))
cmp -s "$TMP/got" "$TMP/expected" || fail "random records: $(diff "$TMP/expected" "$TMP/got" | head -n 4)"

# The same through the general record loop (-C, with no comment in the input, turns
# off the fast loop for plain row windows): both loops must agree.
checks=$((checks + 1))
"$SWAG" -C -w 7 min max count sum < "$TMP/random" > "$TMP/got-general"
cmp -s "$TMP/got-general" "$TMP/expected" || fail "the general record loop differs"

# Column 2 alone takes the loop's single-column path (one field looked for, no field
# table); a record without a second field is a short one, counted as a problem but for
# blank lines.  Compared with awk, with the general loop, and with a second column read
# (which makes the loop split the line into a table).
awk -v w=5 '{
	present[NR] = NF >= 2; value[NR] = $2
	n = 0; s = 0
	for (i = NR - w + 1; i <= NR; i++) {
		if (i < 1 || !present[i]) continue
		n++; s += value[i]
	}
	printf "%d\t%s\n", n, n ? s : "-"
}' "$TMP/random" > "$TMP/expected2"
short=$(awk 'NF == 1' "$TMP/random" | wc -l)
"$SWAG" -w 5 count:2 sum:2 < "$TMP/random" > "$TMP/got2" 2> "$TMP/err2"
expect_eq "column 2 status" "$?" 0
checks=$((checks + 1))
cmp -s "$TMP/got2" "$TMP/expected2" || fail "column 2: $(diff "$TMP/expected2" "$TMP/got2" | head -n 4)"
expect_eq "column 2 short records" "$(grep -o '[0-9]* records* had too few fields' "$TMP/err2")" \
	"$short records had too few fields"
checks=$((checks + 1))
"$SWAG" -C -w 5 count:2 sum:2 < "$TMP/random" > "$TMP/got2" 2>/dev/null
cmp -s "$TMP/got2" "$TMP/expected2" || fail "column 2, general loop: $(diff "$TMP/expected2" "$TMP/got2" | head -n 4)"
checks=$((checks + 1))
"$SWAG" -w 5 count:2 sum:2 count:1 < "$TMP/random" 2>/dev/null | cut -f 1,2 > "$TMP/got2"
cmp -s "$TMP/got2" "$TMP/expected2" || fail "column 2 beside column 1: $(diff "$TMP/expected2" "$TMP/got2" | head -n 4)"

# Short lines in every shape that the test of a bare field (bare_line, and
# short_bare_line without SSE2) must tell apart: blanks and CRs before, inside or
# after the number, lengths around 8 and 16 bytes, blank lines, numbers, words and
# --na texts, and a last line without its LF.  That path must agree with the general
# split (which -C takes) and with awk.
awk 'BEGIN {
	srand(11)
	split(" |\t|\r| \r|\t\r", ends, "|")
	for (i = 0; i < 30000; i++) {
		r = rand()
		digits = int(rand() * 10)
		x = int(rand() * 10 ^ digits)
		if (rand() < 0.3) x = x ".5"	# sums stay exact
		if (rand() < 0.01) x = "n" x
		if (rand() < 0.1) x = "n" x x	# words of up to 21 bytes
		line = x
		if (r < 0.1) line = " " line
		else if (r < 0.15) line = "\t" line
		else if (r < 0.3) line = line ends[1 + int(rand() * 5)]
		else if (r < 0.35) line = line " " int(rand() * 9)
		else if (r < 0.38) line = ""
		else if (r < 0.40) line = "\r"
		else if (r < 0.43) line = "NA" ends[1 + int(rand() * 5)]
		printf "%s\n", line
	}
	printf "42"
}' > "$TMP/short"
awk -v w=3 '{
	sub(/\r$/, "")
	text[NR] = NF >= 1 && $1 != "NA" ? $1 : ""
	present[NR] = text[NR] != "" && $1 !~ /^n/; value[NR] = $1
	n = 0; s = 0; d = 0; split("", seen)
	for (i = NR - w + 1; i <= NR; i++) {
		if (i < 1) continue
		if (text[i] != "" && !(text[i] in seen)) { seen[text[i]]; d++ }
		if (!present[i]) continue
		n++; s += value[i]
	}
	printf "%d\t%s\t%d\n", n, n ? sprintf("%.17g", s) : "-", d
}' "$TMP/short" > "$TMP/expected-short"
checks=$((checks + 1))
"$SWAG" --na NA -w 3 count sum distinct < "$TMP/short" 2>/dev/null | cut -f 2,3 > "$TMP/got-short"
cut -f 2,3 "$TMP/expected-short" | cmp -s - "$TMP/got-short" ||
	fail "short lines: $(cut -f 2,3 "$TMP/expected-short" | diff - "$TMP/got-short" | head -n 4)"
checks=$((checks + 1))
"$SWAG" --na NA -C -w 3 count sum distinct < "$TMP/short" 2>/dev/null | cut -f 2,3 > "$TMP/got-short"
cut -f 2,3 "$TMP/expected-short" | cmp -s - "$TMP/got-short" ||
	fail "short lines, general split: $(cut -f 2,3 "$TMP/expected-short" | diff - "$TMP/got-short" | head -n 4)"
expect_eq "short lines: the first word that is not a number" \
	"$("$SWAG" --strict -w 3 sum < "$TMP/short" 2>&1 >/dev/null)" \
	"$(awk '{ sub(/\r$/, "") } $1 ~ /^n/ { printf "swag: line %d, column 1: '"'"'%s'"'"' is not a number\n", NR, $1; exit }' "$TMP/short")"

# The same input through a pipe that delivers it in small pieces.
checks=$((checks + 1))
awk '{ print; if (NR % 50 == 0) fflush() }' "$TMP/random" | "$SWAG" -w 7 min max count sum > "$TMP/got"
cmp -s "$TMP/got" "$TMP/expected" || fail "random records through a pipe differ"

# A decimal-comma locale changes nothing: numbers are read and written in the C
# locale.  make check generates de_DE.UTF-8 into its build directory and names it in
# SWAG_TEST_LOCPATH (no test relies on the machine's locales); a test that cannot set
# it fails.
checks=$((checks + 1))
decimal_comma() {
	LOCPATH=${SWAG_TEST_LOCPATH:-} LC_ALL=de_DE.UTF-8 "$@"
}
locale_check=$(decimal_comma sh -c 'printf "%s" "$(locale decimal_point)"' 2>&1)
[ "$locale_check" = "," ] || fail "de_DE.UTF-8 is not usable (decimal point '$locale_check';" \
	"SWAG_TEST_LOCPATH='${SWAG_TEST_LOCPATH:-}': run the test through make check)"
expect_eq "decimal-comma locale" \
	"$(printf '1.5\n2.25\n1,5\n' | decimal_comma "$SWAG" -w 2 avg -p 3 2>&1 | tr '\n' '|')" \
	"1.500|1.875|2.250|swag: 1 field was not a number (first: line 3, column 1)|"
expect_eq "decimal-comma locale, shortest" \
	"$(printf '0.1\n0.2\n' | decimal_comma "$SWAG" -w 2 sum | tr '\n' '|')" \
	"0.1|0.30000000000000004|"
finish
