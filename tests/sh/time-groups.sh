# Time windows and groups against a naive recomputation in awk of every window, over
# random streams: equal timestamps, bursts, gaps longer than the windows, keys that
# come and go.  Sums, counts, minima and maxima of integers are exact in both.
. tests/sh/lib.bash

awk 'BEGIN {
	srand(11)
	t = 1000
	for (i = 0; i < 6000; i++) {
		r = rand()
		if (r < 0.3) t += 0                      # equal timestamps
		else if (r < 0.9) t += int(rand() * 3)   # a steady stream
		else if (r < 0.97) t += int(rand() * 40) # gaps past the windows
		else t += 500
		# Keys drift: a few live at a time, new ones keep coming.
		key = "k" int(i / 300) + int(rand() * 4)
		v = rand() < 0.1 ? "-" : int(rand() * 200 - 100)
		printf "%d %s %s\n", t, key, v
	}
}' > "$TMP/stream"

# The reference: per record, each window over the records of the same key.
awk -v D=10 -v W=5 '{
	n++; T[n] = $1; K[n] = $2; V[n] = $3
	s = 0; c = 0; lo = ""; hi = ""; rs = 0; rc = 0; seen = 0
	for (j = n; j >= 1; j--) {
		if (K[j] != $2) continue
		seen++
		if (T[j] > $1 - D && V[j] != "-") {
			s += V[j]; c++
			if (lo == "" || V[j] + 0 < lo + 0) lo = V[j]
			if (hi == "" || V[j] + 0 > hi + 0) hi = V[j]
		}
		if (seen <= W && V[j] != "-") { rs += V[j]; rc++ }
		if (T[j] <= $1 - D && seen > W) break
	}
	printf "%s\t%s\t%d\t%s\t%s\t%s\t%d\n", $2, (c ? s : "-"), c, (c ? lo : "-"), (c ? hi : "-"), (rc ? rs : "-"), rc
}' "$TMP/stream" > "$TMP/expected"

"$SWAG" -t 1 -g 2 --na=- -w 10s sum:3 count:3 min:3 max:3 sum:3@5 count:3@5 \
	< "$TMP/stream" > "$TMP/got" 2> "$TMP/err"
expect_eq "status" "$?" 0
expect_eq "warnings" "$(cat "$TMP/err")" ""
checks=$((checks + 1))
cmp -s "$TMP/got" "$TMP/expected" ||
	fail "time and group windows differ: $(diff "$TMP/expected" "$TMP/got" | head -n 6)"

# Only time windows: groups whose windows have emptied are reclaimed, which must
# change nothing in the results.
cut -f 1-5 "$TMP/expected" > "$TMP/expected-time"
"$SWAG" -t 1 -g 2 --na=- -w 10s sum:3 count:3 min:3 max:3 < "$TMP/stream" > "$TMP/got"
checks=$((checks + 1))
cmp -s "$TMP/got" "$TMP/expected-time" ||
	fail "reclaimed groups differ: $(diff "$TMP/expected-time" "$TMP/got" | head -n 6)"

# Without -g, the same stream's time windows over every record.
awk -v D=7 '{
	n++; T[n] = $1; V[n] = $3
	s = 0; c = 0
	for (j = n; j >= 1 && T[j] > $1 - D; j--)
		if (V[j] != "-") { s += V[j]; c++ }
	printf "%s\t%d\n", (c ? s : "-"), c
}' "$TMP/stream" > "$TMP/expected"
"$SWAG" -t 1 --na=- -w 7s sum:3 count:3 < "$TMP/stream" > "$TMP/got"
checks=$((checks + 1))
cmp -s "$TMP/got" "$TMP/expected" ||
	fail "time windows differ: $(diff "$TMP/expected" "$TMP/got" | head -n 6)"
# A new key on every record (request ids, say) with time windows only: keys whose
# records have all left the window are reclaimed, so a million keys run under a
# 200 MB address-space limit (they would need far more if kept: each key's windows
# take about a kilobyte).
awk 'BEGIN { for (i = 0; i < 1000000; i++) printf "%d id%d %d\n", i / 100, i, i % 7 }' > "$TMP/keys"
if $asan; then
	echo "time-groups.sh: AddressSanitizer build: the ulimit -v checks are skipped"
else
	status=$( (ulimit -v 200000; "$SWAG" -t 1 -g 2 -w 10s sum:3 count:3 < "$TMP/keys" > "$TMP/got" 2> "$TMP/err"; echo $?) )
	expect_eq "a million keys, status" "$status" 0
	expect_eq "a million keys, output records" "$(wc -l < "$TMP/got")" 1000000
	expect_eq "a million keys, last record" "$(tail -n 1 "$TMP/got")" "id999999	0	1"
	# With a row window the keys must be kept: memory grows with them, and running out
	# is a clean error (exit 3 and a message), not a crash.
	status=$( (ulimit -v 60000; "$SWAG" -g 2 -w 1000 sum:3 < "$TMP/keys" > /dev/null 2> "$TMP/err"; echo $?) )
	expect_eq "row windows out of memory, status" "$status" 3
	expect_eq "row windows out of memory, message" "$(cat "$TMP/err")" "swag: out of memory"
fi
finish
