# CSV through two swags: the output of swag -a -c reads back as CSV, with quoted
# fields intact, and every record keeps its line.
. tests/sh/lib.bash

{
	echo 'name,note,v'
	echo '"Smith, J","said ""hi""",1'
	echo 'ana,"two'
	echo 'lines",2'
	echo ' bob ,plain,3'
	echo '"  padded  ",,4'
} > "$TMP/in.csv"
"$SWAG" -a -c -H -w 2 sum:v < "$TMP/in.csv" | "$SWAG" -a -c -H -w 3 count:name 'sum:sum(v)' > "$TMP/out.csv"
expect_eq "status" "$?" 0
expect_eq "two passes" "$(cat "$TMP/out.csv")" 'name,note,v,sum(v),count(name),sum(sum(v))
"Smith, J","said ""hi""",1,1,1,1
ana,"two
lines",2,3,2,4
bob,plain,3,5,3,9
"  padded  ",,4,7,3,15'

# A CSV file whose records end by a lone CR (old Mac files: swag(1), INPUT) has no LF:
# swag reads it a block at a time, as it reads LF-ended lines, not whole.  Its peak RSS
# over 2 million records (30 MB) is within 4 MiB of that over 200,000, as with LFs,
# where holding the input cost 27 MiB more.
records_cr() {
	awk -v n="$1" 'BEGIN { for (i = 1; i <= n; i++) printf "%d,%d.%03d\r", i, i % 97, i % 1000 }'
}
records_cr 2000000 > "$TMP/big-cr.csv"
records_cr 200000 > "$TMP/small-cr.csv"
"$SWAG" -c -w 2 sum:1 < "$TMP/big-cr.csv" | tail -n 1 > "$TMP/last"
expect_eq "CR-ended records: the last result" "$(cat "$TMP/last")" 3999999
if rss_measured; then
	small=$(peak_kb "$TMP/small-cr.csv" -c -w 100 avg:2)
	big=$(peak_kb "$TMP/big-cr.csv" -c -w 100 avg:2)
	checks=$((checks + 1))
	[ -n "$small" ] && [ -n "$big" ] && [ "$((big - small))" -le 4096 ] ||
		fail "CR-ended CSV: peak RSS $small KiB over 200,000 records, $big KiB over 2 million"
fi
finish
