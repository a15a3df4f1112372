# Columns counted from the end (swag(1), DESCRIPTION), against awk: on random ragged
# lines, swag AGG:-N gives what swag AGG gives on the field awk's $(NF-N+1) picks
# (an empty line where a record has fewer than N fields, which both take as missing),
# blank-separated and CSV, with -t and -g from the end too.
. tests/sh/lib.bash

cd "$TMP" || exit 1

aggs=(sum avg count min max var stddev median p90 mode distinct)
for round in $(seq 1 40); do
	# Ragged lines: 0 to 7 fields (up to 99 in the last rounds: more than split_line
	# takes at once) of numbers, words, - and the odd blank line.
	awk -v seed="$round" 'BEGIN { srand(seed); for (i = 0; i < 400; i++) {
		n = int(rand() * (seed > 30 ? 100 : 8)); line = ""
		for (k = 0; k < n; k++) {
			r = rand()
			f = r < 0.7 ? int(rand() * 2000) / 10 : r < 0.8 ? "w" int(rand() * 5) : r < 0.9 ? "-" : "x"
			line = line (k ? (rand() < 0.2 ? "\t " : " ") : "") f
		}
		print line } }' > ragged
	n=$((round % 4 + 1))
	agg=${aggs[$((round % ${#aggs[@]}))]}
	window=$((round % 7 + 1))
	awk -v n="$n" '{ print (NF >= n ? $(NF - n + 1) : "") }' ragged > picked
	"$SWAG" -q -w "$window" "$agg:-$n" ragged > got 2> /dev/null
	"$SWAG" -q -w "$window" "$agg" picked > want 2> /dev/null
	checks=$((checks + 1))
	[ "$(wc -l < got)" = 400 ] && cmp -s got want || fail "round $round: $agg:-$n@$window on ragged lines differs from awk's \$(NF-$((n - 1)))"
	# The same table as CSV (no quotes, no blanks: awk -F, splits it the same).
	tr -s ' \t' ',,' < ragged | sed 's/^,//; s/,$//' > ragged.csv
	# CSV skips blank lines: they are no records there.
	awk -F, -v n="$n" 'NF > 0 { print (NF >= n ? $(NF - n + 1) : "") }' ragged.csv > picked.csv
	"$SWAG" -q -c --null=- -w "$window" "$agg:-$n" ragged.csv > got.csv
	"$SWAG" -q -w "$window" "$agg" picked.csv > want.csv
	checks=$((checks + 1))
	[ -s got.csv ] && cmp -s got.csv want.csv || fail "round $round: CSV $agg:-$n@$window differs from awk -F,"
done

# -t and -g from the end: the timestamp and the key last, after fields of any number.
awk 'BEGIN { srand(5); t = 1700000000; for (i = 0; i < 500; i++) {
	t += int(rand() * 3); n = int(rand() * 4); line = ""
	for (k = 0; k < n; k++) line = line "w" k " "
	printf "%s%d %d k%d\n", line, int(rand() * 100), t, int(rand() * 6) } }' > timed
awk '{ print $(NF - 1), $NF, $(NF - 2) }' timed > moved
"$SWAG" -t -2 -g -1 -w 10s avg:-3 p99:-3 count:-3 timed > got 2> got.err
"$SWAG" -t 1 -g 2 -w 10s avg:3 p99:3 count:3 moved > want 2> want.err
checks=$((checks + 1))
cmp -s got want && [ -s got ] || fail "-t -2 -g -1 differ from the columns moved to the front"
expect_eq "-t -2 -g -1: no messages" "$(cat got.err want.err)" ""
finish
