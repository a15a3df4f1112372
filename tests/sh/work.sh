# The instrumented build (make swag-work, src/work.h), which make bench's work table
# runs: it must give every output byte the plain build gives, although its window.c
# moves each window one step at a time, and it must charge a record the work that
# record caused (the two-stack's flip to the record that flips, the key table's
# incremental moves to the records that look keys up).  $SWAG_WORK is the binary
# (the Makefile exports it), $SWAG the plain one.
. tests/sh/lib.bash

SWAG_WORK=${SWAG_WORK:-build/work/swag}
if [ ! -x "$SWAG_WORK" ]; then
	fail "no instrumented swag at $SWAG_WORK (make swag-work builds it)"
	finish
fi

awk 'BEGIN { srand(7); for (i = 0; i < 60000; i++) print int(rand() * 2001) - 1000 }' \
	>"$TMP/numbers"
# time value key: about 100 records a second over 7 keys, in bursts.
awk 'BEGIN { srand(8); t = 1700000000
	for (i = 0; i < 30000; i++) {
		t += rand() < 0.9 ? 0.001 * int(rand() * 20) : rand() * 30
		printf "%.3f %d k%d\n", t, int(rand() * 1000), int(rand() * 7)
	} }' >"$TMP/timed"
awk '{ print $3 "," $2 "," $1 }' "$TMP/timed" | sed '1i key,value,time' >"$TMP/csv"

# same ARGS... INPUT: the two builds' output and status agree.
same() {
	local input=${*: -1} args=("${@:1:$#-1}")

	"$SWAG" "${args[@]}" <"$input" >"$TMP/plain" 2>/dev/null
	local plain=$?
	"$SWAG_WORK" "${args[@]}" <"$input" >"$TMP/work" 2>/dev/null
	local work=$?
	expect_eq "swag ${args[*]}: the instrumented build's status" "$work" "$plain"
	cmp -s "$TMP/plain" "$TMP/work" ||
		fail "swag ${args[*]}: the instrumented build's output differs"
	checks=$((checks + 1))
}

same -w 1000 sum avg var min max median p99 mode distinct first last delta "$TMP/numbers"
same -w 20000 sum avg count var stddev min max median p99 "$TMP/numbers"
same -w 37 -s 5 avg p50 mode "$TMP/numbers"
same -t 1 -w 10s avg:2 p99:2 rate:2 max:2 "$TMP/timed"
same -t 1 -g 3 -w 1m p99:2 avg:2 distinct:2 "$TMP/timed"
same -g 3 -w 100 -a avg:2 median:2 mode:2 "$TMP/timed"
same -c -H -t time -g key -w 5s avg:value p90:value "$TMP/csv"

# most ARGS... INPUT: "UNITS LINE", the most work of one record and its line.
most() {
	local input=${*: -1} args=("${@:1:$#-1}")

	SWAG_HASH_SEED=1 "$SWAG_WORK" "${args[@]}" <"$input" 2>&1 >/dev/null |
		sed -n 's/^swag: work: at most \([0-9]*\) units in one record (line \([0-9]*\))$/\1 \2/p'
}

# A window of 1,000 flips its 1,000 records at record 1,001 (1,000 combines, and the
# new value's), with or without -s leaving results out.
head -n 3000 "$TMP/numbers" >"$TMP/3000"
expect_eq "-w 1000 sum: the flip's record" "$(most -w 1000 sum "$TMP/3000")" "1001 1001"
expect_eq "-w 1000 -s 7 sum: the flip's record" "$(most -w 1000 -s 7 sum "$TMP/3000")" \
	"1001 1001"
# Past 16,384 records the window turns by DABA Lite: the last eager flip, at record
# 16,385, is the most any record does (swag(1), WINDOWS).
expect_eq "-w 50000 avg: the last flip's record" "$(most -w 50000 avg "$TMP/numbers")" \
	"16386 16385"

# A new key a record: the key table grows by moving 16 slots an operation and frees an
# old mapped table 256 KiB at a time, so no record's work grows with the number of
# keys (at most 384 KiB unmapped, 6,144 units of 64 bytes, and a few probes).
for n in 50000 300000; do
	awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) print "key" i, i }' >"$TMP/keys"
	set -- $(most -g 1 -w 10 avg:2 "$TMP/keys")
	checks=$((checks + 1))
	[ "${1:-0}" -gt 0 ] && [ "${1:-0}" -le 6400 ] ||
		fail "-g 1 over $n new keys: at most ${1:-?} units in one record (line ${2:-?})"
done

# distinct over 5,000 values and then only missing fields: when the window falls back
# to 2^P/8 values its exact table is rebuilt from the values alone, stepping over the
# runs of missing fields (at P = 14, 2^P/8 values and their runs), where a walk of
# the window's 100,000 slots took 100,000 units in one record.
awk 'BEGIN { for (i = 0; i < 160000; i++) print (i < 5000 ? "v" i : "-") }' >"$TMP/sparse"
same --na=- -w 100000 distinct "$TMP/sparse"
set -- $(most --na=- -w 100000 distinct "$TMP/sparse")
checks=$((checks + 1))
[ "${1:-0}" -gt 0 ] && [ "${1:-0}" -le 6000 ] ||
	fail "distinct falling back among missing fields: at most ${1:-?} units in one record (line ${2:-?})"

finish
