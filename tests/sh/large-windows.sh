# Windows of more than 16,384 records, where the two-stack aggregates spread their work
# over the records (swag(1), WINDOWS), as users run them: swag against an awk ring
# buffer over integers (exact in any grouping) for a row window in one column, the
# same per key (-g) and a time window (-t) whose span holds about 30,000 records, and
# through a pipe, where each result comes before the next record is written.
. tests/sh/lib.bash

awk 'BEGIN { srand(15); for (i = 0; i < 120000; i++) print int(rand() * 2001) - 1000 }' \
	>"$TMP/numbers"

# -w W sum count first last min max delta, record by record, as awk keeps them.
naive() {
	awk -v W="$1" '{
		x[NR] = $1; s += $1
		if (NR > W) s -= x[NR - W]
		lo = NR > W ? NR - W + 1 : 1
		mn = x[lo]; mx = x[lo]
		if (NR % 997 == 0 || NR < 40)
			for (i = lo; i <= NR; i++) {
				if (x[i] < mn) mn = x[i]
				if (x[i] > mx) mx = x[i]
			}
		else
			mn = mx = "-"
		print s "\t" (NR - lo + 1) "\t" x[lo] "\t" x[NR] "\t" mn "\t" mx "\t" x[NR] - x[lo]
	}' "$TMP/numbers"
}

# Min and max are compared where awk scanned the window (every 997th record).
only_scanned() {
	awk -F'\t' -v OFS='\t' 'NR % 997 != 0 && NR >= 40 { $5 = $6 = "-" } { print }'
}

for w in 16383 16385 40000; do
	"$SWAG" -w "$w" sum count first last min max delta <"$TMP/numbers" \
		>"$TMP/raw" 2>"$TMP/err"
	expect_eq "-w $w: status and stderr" "$?$(cat "$TMP/err")" 0
	only_scanned <"$TMP/raw" >"$TMP/got"
	naive "$w" >"$TMP/want"
	expect_eq "-w $w: the records that differ from awk's" \
		"$(cmp "$TMP/got" "$TMP/want" 2>&1 | head -1)" ""
done

# -g: two keys, each a row window of 20,000 of its own records.
awk '{ print $1, NR % 3 == 0 ? "a" : "b" }' "$TMP/numbers" >"$TMP/keyed"
"$SWAG" -g 2 -w 20000 sum:1 <"$TMP/keyed" >"$TMP/got"
awk -v W=20000 '{
	k = $2; n[k]++; x[k, n[k]] = $1; s[k] += $1
	if (n[k] > W) s[k] -= x[k, n[k] - W]
	print k "\t" s[k]
}' "$TMP/keyed" >"$TMP/want"
expect_eq "-g 2 -w 20000 sum:1: the records that differ from awk's" \
	"$(cmp "$TMP/got" "$TMP/want" 2>&1 | head -1)" ""

# -t: a clock of 0 to 2 seconds a record, and now and then a gap of 40,000 seconds
# that empties the window; the window holds the last 30,000 seconds.
awk 'BEGIN { srand(16) } {
	t += rand() < 0.0001 ? 40000 : int(rand() * 3); print t, $1
}' "$TMP/numbers" >"$TMP/timed"
"$SWAG" -t 1 -w 30000s sum:2 count:2 first:2 <"$TMP/timed" >"$TMP/got"
awk -v D=30000 '{
	t[NR] = $1; x[NR] = $2; s += $2
	while (t[lo + 0] <= $1 - D && lo < NR) { if (lo) s -= x[lo]; lo++ }
	if (!lo) lo = 1
	print s "\t" (NR - lo + 1) "\t" x[lo]
}' "$TMP/timed" >"$TMP/want"
expect_eq "-t 1 -w 30000s: the records that differ from awk's" \
	"$(cmp "$TMP/got" "$TMP/want" 2>&1 | head -1)" ""

# Behind a pipe, past the bound: after 20,000 records in bulk, each record's result
# comes before the next record is written (read gives up after 10 s, far beyond any
# machine's scheduling delay, so a result held back for more input is a timeout).
mkfifo "$TMP/in" "$TMP/out"
"$SWAG" -w 100000 count <"$TMP/in" >"$TMP/out" &
swag_pid=$!
exec 3>"$TMP/in" 4<"$TMP/out"
head -n 20000 "$TMP/numbers" >&3 &
bulk_pid=$!
for i in $(seq 20000); do IFS= read -r -t 10 line <&4 || break; done
wait "$bulk_pid"
got=
for record in 5 7 9; do
	echo "$record" >&3
	if IFS= read -r -t 10 line <&4; then got="$got${got:+ }$line"; else got="$got timeout"; fi
done
exec 3>&- 4<&-
wait "$swag_pid"
expect_eq "-w 100000 count behind a pipe: status" "$?" 0
expect_eq "-w 100000 count behind a pipe: results one by one" "$got" "20001 20002 20003"

# A time window after a burst (swag(1), WINDOWS): 400,000 records at one time,
# then 100,000 at a hundred a second, against awk; and through a FIFO, read while
# swag waits for more, the memory of the room the burst grew goes back to the system
# (RSS is no measure of an AddressSanitizer build's own memory).
awk 'BEGIN { srand(17)
	for (i = 0; i < 400000; i++) print 0, int(rand() * 2001) - 1000
	for (i = 0; i < 100000; i++) print 1 + int(i / 100), int(rand() * 2001) - 1000
}' >"$TMP/burst"
"$SWAG" -t 1 -w 10s sum:2 count:2 first:2 <"$TMP/burst" >"$TMP/got"
awk '{
	t[NR] = $1; x[NR] = $2; s += $2
	while (t[lo + 0] <= $1 - 10 && lo < NR) { if (lo) s -= x[lo]; lo++ }
	if (!lo) lo = 1
	print s "\t" (NR - lo + 1) "\t" x[lo]
}' "$TMP/burst" >"$TMP/want"
expect_eq "-t 1 -w 10s after a burst: the records that differ from awk's" \
	"$(cmp "$TMP/got" "$TMP/want" 2>&1 | head -1)" ""

# vm_rss_kb PID: the process's resident memory in KiB.
vm_rss_kb() {
	awk '$1 == "VmRSS:" { print $2 }' "/proc/$1/status"
}

# wait_lines FILE N: waits (up to 60 s) until FILE has N lines.
wait_lines() {
	local i
	for i in $(seq 600); do
		[ "$(wc -l <"$1")" -ge "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

# fifo_burst NAME FILE N LIMIT ARGS...: swag ARGS reads FILE through a FIFO, its first
# N lines at once, and the rest once their results are out; sets after_burst to
# VmRSS (KiB) after the first N results, after_slow after all of them, once under
# LIMIT (the free pages go back when swag waits, after the results are out: up to
# 10 s), and fifo_status; the results are in $TMP/NAME-out.
fifo_burst() {
	local name=$1 file=$2 n=$3 limit=$4 total pid i
	shift 4
	total=$(wc -l <"$file")
	mkfifo "$TMP/$name-in"
	"$SWAG" "$@" <"$TMP/$name-in" >"$TMP/$name-out" &
	pid=$!
	exec 3>"$TMP/$name-in"
	head -n "$n" "$file" >&3
	wait_lines "$TMP/$name-out" "$n" || fail "$name: no results for the burst in 60 s"
	after_burst=$(vm_rss_kb "$pid")
	tail -n +"$((n + 1))" "$file" >&3
	wait_lines "$TMP/$name-out" "$total" ||
		fail "$name: no results for the slower records in 60 s"
	for i in $(seq 100); do
		after_slow=$(vm_rss_kb "$pid")
		[ "$after_slow" -lt "$limit" ] && break
		sleep 0.1
	done
	exec 3>&-
	wait "$pid"
	fifo_status=$?
}

if ! $asan && [ -r /proc/self/status ]; then
	fifo_burst burst "$TMP/burst" 400000 6000 -t 1 -w 10s sum:2 count:2 first:2 p99:2
	expect_eq "after a burst: status" "$fifo_status" 0
	# The burst's rings hold 2^19 slots of 24 bytes, 2^19 timestamps and 2^19 ring
	# words, and p99's heaps 400,000 values and their positions: 26 MB.
	expect_eq "after a burst: the burst took more than 20 MB" \
		"$([ "$after_burst" -gt 20000 ] && echo yes || echo "no, $after_burst KiB")" yes
	expect_eq "after a burst: the room's memory went back (under 6 MB)" \
		"$([ "$after_slow" -lt 6000 ] && echo yes || echo "no, $after_slow KiB")" yes
	expect_eq "after a burst through a FIFO: the results" \
		"$(cut -f 1-3 "$TMP/burst-out" | cmp - "$TMP/want" 2>&1 | head -1)" ""
fi

# Each key's time window under -g after a burst (swag(1), WINDOWS): 300 records for
# each of 1,000 keys at one time, then 300,000 at a thousand a second, against awk;
# through a FIFO, each key's rings and heaps, smaller than the 128 KiB that return
# pages, go into fewer slots, and malloc's free pages go back while swag waits.
awk 'BEGIN { srand(23)
	for (i = 0; i < 300000; i++) print 0, int(rand() * 2001) - 1000, "k" (i % 1000)
	for (i = 0; i < 300000; i++) print 1 + int(i / 1000), int(rand() * 2001) - 1000, "k" (i % 1000)
}' >"$TMP/key-burst"
awk '{
	k = $3; n[k]++; t[k, n[k]] = $1; x[k, n[k]] = $2; s[k] += $2
	if (!(k in lo)) lo[k] = 1
	while (t[k, lo[k]] <= $1 - 10) { s[k] -= x[k, lo[k]]; delete t[k, lo[k]]; delete x[k, lo[k]]; lo[k]++ }
	print k "\t" s[k] "\t" (n[k] - lo[k] + 1)
}' "$TMP/key-burst" >"$TMP/key-want"
"$SWAG" -t 1 -g 3 -w 10s sum:2 count:2 p99:2 <"$TMP/key-burst" | cut -f 1-3 >"$TMP/key-got"
expect_eq "-t 1 -g 3 -w 10s after a burst: the records that differ from awk's" \
	"$(cmp "$TMP/key-got" "$TMP/key-want" 2>&1 | head -1)" ""

if ! $asan && [ -r /proc/self/status ]; then
	fifo_burst key-burst "$TMP/key-burst" 300000 15000 -t 1 -g 3 -w 10s sum:2 count:2 p99:2
	expect_eq "after a keyed burst: status" "$fifo_status" 0
	# Each key's rings of 512 slots (24, 8 and 8 bytes) and heaps of 512 entries
	# (16 bytes): 41 MB; after the slower records each holds a few, in some 10 MB.
	expect_eq "after a keyed burst: the burst took more than 30 MB" \
		"$([ "$after_burst" -gt 30000 ] && echo yes || echo "no, $after_burst KiB")" yes
	expect_eq "after a keyed burst: the room's memory went back (under 15 MB)" \
		"$([ "$after_slow" -lt 15000 ] && echo yes || echo "no, $after_slow KiB")" yes
	expect_eq "after a keyed burst through a FIFO: the results" \
		"$(cut -f 1-3 "$TMP/key-burst-out" | cmp - "$TMP/key-want" 2>&1 | head -1)" ""
fi

finish
