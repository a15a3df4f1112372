# Cumulative windows (@all, swag(1) WINDOWS) over a million records: the running sum,
# count, min, max, first, last and delta against awk's running totals, record by record
# (integers, so both are exact), and peak memory flat: the peak RSS over a million
# records is that over 100,000 within 512 KiB, where a row window as long as the input
# grows by megabytes (the check that the measure can fail); and an ewma with a half-life
# as flat.
. "$(dirname "$0")/lib.bash"

# records N: N lines "i v": i rising (min's deque would keep every one), v from -500
# to 499 in a scrambled order.
records() {
	awk -v n="$1" 'BEGIN { for (i = 1; i <= n; i++) print i, (i * 7919) % 1000 - 500 }'
}
records 1000000 >"$TMP/big"
records 100000 >"$TMP/small"

aggs="sum:2 count:2 min:1 max:1 min:2 max:2 first:2 last:2 delta:2"
# shellcheck disable=SC2086
"$SWAG" -w all $aggs <"$TMP/big" >"$TMP/got"
expect_eq "swag -w all status" "$?" 0
awk '{
	s += $2; n++
	if (n == 1) { lo1 = hi1 = $1; lo2 = hi2 = $2; first = $2 }
	if ($1 < lo1) lo1 = $1; if ($1 > hi1) hi1 = $1
	if ($2 < lo2) lo2 = $2; if ($2 > hi2) hi2 = $2
	printf "%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\n", s, n, lo1, hi1, lo2, hi2, first, $2, $2 - first
}' "$TMP/big" >"$TMP/want"
checks=$((checks + 1))
cmp -s "$TMP/got" "$TMP/want" ||
	fail "running totals differ: $(diff "$TMP/want" "$TMP/got" | head -n 4)"
expect_eq "records out" "$(wc -l <"$TMP/got")" 1000000

if rss_measured; then
	all="sum:2 avg:2 count:2 var:2 stddev:2 min:1 max:1 min:2 max:2 first:2 last:2"
	all="$all delta:2 rate:2 distinct:2"
	# shellcheck disable=SC2086
	small=$(peak_kb "$TMP/small" -t 1 --epoch-unit=s -w all $all)
	# shellcheck disable=SC2086
	big=$(peak_kb "$TMP/big" -t 1 --epoch-unit=s -w all $all)
	checks=$((checks + 1))
	[ -n "$small" ] && [ -n "$big" ] && [ "$((big - small))" -le 512 ] ||
		fail "@all: peak RSS $small KiB over 100,000 records, $big KiB over a million"
	# An ewma's duration is a half-life, not a window of records: no timestamps are
	# kept for it (a half-life of 30 days over a million seconds kept them all: +8 MB).
	small=$(peak_kb "$TMP/small" -t 1 --epoch-unit=s ewma:2@30d)
	big=$(peak_kb "$TMP/big" -t 1 --epoch-unit=s ewma:2@30d)
	checks=$((checks + 1))
	[ -n "$small" ] && [ -n "$big" ] && [ "$((big - small))" -le 512 ] ||
		fail "ewma@30d: peak RSS $small KiB over 100,000 records, $big KiB over a million"
	small=$(peak_kb "$TMP/small" -w 1000000000 sum:2)
	big=$(peak_kb "$TMP/big" -w 1000000000 sum:2)
	checks=$((checks + 1))
	[ -n "$small" ] && [ -n "$big" ] && [ "$((big - small))" -ge 8192 ] ||
		fail "a row window's RSS did not grow: $small KiB, then $big KiB"
fi
finish
