# -s DURATION as users run it (swag(1), BUCKETS): an access log end to end against
# datamash's per-minute figures, swag in pipelines, and the buckets that the wall
# clock writes behind a slow input (a FIFO), with a record that comes late for one.
. tests/sh/lib.bash

# --- A generated access log: IPv6 and IPv4 clients, "-" fields, quoted user agents
# with spaces (so the fields after them move), Apache's [date:time zone] in fields 4
# and 5, a byte count in field 10 that is sometimes "-".  Three hours with quiet
# minutes, some seconds busy.
awk 'BEGIN {
	srand(42)
	split("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec", month, " ")
	agents[1] = "\"Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0\""
	agents[2] = "\"curl/8.5.0\""
	agents[3] = "\"-\""
	agents[4] = "\"Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15\""
	t = 1795999000	# 2026-11-30T00:36:40Z; the minutes are cut in UTC
	for (i = 0; i < 6000; i++) {
		t += rand() < 0.02 ? int(rand() * 400) : int(rand() * 3)
		client = rand() < 0.4 ? sprintf("2001:db8::%x", int(rand() * 4096)) : \
		    sprintf("192.0.2.%d", int(rand() * 250))
		bytes = rand() < 0.07 ? "-" : int(rand() * rand() * 50000)
		s = t; sec = s % 60; s = int(s / 60); min = s % 60; s = int(s / 60)
		hour = s % 24; day = int(s / 24)
		# Civil date of a day count (days since 1970-01-01).
		z = day + 719468; era = int(z / 146097); doe = z - era * 146097
		yoe = int((doe - int(doe / 1460) + int(doe / 36524) - int(doe / 146096)) / 365)
		doy = doe - (365 * yoe + int(yoe / 4) - int(yoe / 100))
		mp = int((5 * doy + 2) / 153); d = doy - int((153 * mp + 2) / 5) + 1
		m = mp < 10 ? mp + 3 : mp - 9; y = yoe + era * 400 + (m <= 2)
		printf "%s - - [%02d/%s/%d:%02d:%02d:%02d +0000] \"GET /item/%d HTTP/1.1\" %d %s \"-\" %s\n",
		    client, d, month[m], y, hour, min, sec, int(rand() * 100),
		    rand() < 0.9 ? 200 : 404, bytes, agents[int(rand() * 4) + 1]
	}
}' > "$TMP/access.log"

# swag's per-minute figures of field 10: p99, median, max, sum, count.
"$SWAG" -t 4 -s 1m p99:10 median:10 max:10 sum:10 count:10 < "$TMP/access.log" \
    > "$TMP/swag.out" 2> "$TMP/swag.err"
expect_eq "access log: status" "$?" 0
expect_eq "access log: no messages" "$(cat "$TMP/swag.err")" ""
# datamash's, on the time cut to its minute (as RFC 3339) and the byte counts that are
# numbers; its perc interpolates linearly, as swag's pN does (numpy's default).
awk '
	BEGIN { split("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec", names, " ")
		for (i = 1; i <= 12; i++) month[names[i]] = sprintf("%02d", i) }
	$10 != "-" {
		split(substr($4, 2), p, "[/:]")
		printf "%s-%s-%sT%s:%s:00Z\t%s\n", p[3], month[p[2]], p[1], p[4], p[5], $10
	}' "$TMP/access.log" |
    datamash -g 1 perc:99 2 median 2 max 2 sum 2 count 2 > "$TMP/datamash.out"
expect_eq "access log: minutes" "$(wc -l < "$TMP/swag.out")" "$(wc -l < "$TMP/datamash.out")"
checks=$((checks + 1))
# Every minute, every figure, to a relative 1e-9 (the two interpolate in different
# floating-point orders).
if ! awk -F '\t' '
	function differs(a, b) { return a - b > 1e-9 * (b < 0 ? -b : b) + 1e-9 ||
	    b - a > 1e-9 * (b < 0 ? -b : b) + 1e-9 }
	NR == FNR { want[FNR] = $0; next }
	{
		n = split(want[FNR], w, "\t")
		if (n != NF || $1 != w[1]) { print "minute " FNR ": " $0 " vs " want[FNR]; bad++; next }
		for (i = 2; i <= NF; i++)
			if (differs($i, w[i])) { print "minute " FNR ": " $0 " vs " want[FNR]; bad++; next }
	}
	END { exit bad > 0 }' "$TMP/datamash.out" "$TMP/swag.out" > "$TMP/diff"; then
	fail "access log: swag and datamash differ: $(head -n 3 "$TMP/diff" | tr '\n' '|')"
fi
# The log has quiet minutes (no record): swag writes none for them, as datamash.
checks=$((checks + 1))
gaps=$(awk -F '\t' '{ split($1, p, "[-T:]"); m = (p[4] * 60 + p[5]) }
	NR > 1 && m != (last + 1) % 1440 { gaps++ } { last = m } END { print gaps + 0 }' "$TMP/swag.out")
[ "$gaps" -gt 0 ] || fail "access log: the test log has no quiet minute"

# In a pipeline, with awk after it: the busiest minute by requests (count of field 1).
"$SWAG" -t 4 -s 1m count < "$TMP/access.log" | sort -t "$(printf '\t')" -k 2,2nr |
    head -n 1 > "$TMP/busiest"
awk '{ print substr($4, 2, 17) }' "$TMP/access.log" | uniq -c | sort -k 1,1nr |
    head -n 1 | awk '{ print $1 }' > "$TMP/busiest.want"
expect_eq "pipeline: the busiest minute's count" "$(cut -f 2 "$TMP/busiest")" \
    "$(cat "$TMP/busiest.want")"

# --- Slow input.  A pause shorter than the grace (2 s) closes no bucket, even for
# timestamps long past: a slow pipe (zcat, a replay) is bucketed by its timestamps.
got=$( (echo "1764504000 1"; sleep 0.3; echo "1764504030 2") | "$SWAG" -t 1 -s 1m sum:2)
expect_eq "a short pause closes nothing" "$got" "1764504000	3"

# Nor does a longer one, while the log's clock, run on from its newest record as time
# passes, is short of the bucket's end: a replay of old logs that stalls for 2.5 s
# keeps its minute whole, and writes no quiet minute past its last record's.
got=$( (echo "1764504001 1"; sleep 2.5; echo "1764504002 1") |
    "$SWAG" -t 1 -w 5m -s 1m count:2 2>&1)
expect_eq "a pause far from the bucket's end closes nothing" "$got" "1764504000	2"

mkfifo "$TMP/in" "$TMP/out"

# now: the wall clock in seconds, with a fraction.
now() { date +%s.%N; }

# on_fifo ARGS...: swag ARGS in the background over the FIFOs, its messages in
# $TMP/err; fd 3 writes its input, fd 4 reads its output.  start is taken before the
# records go in, as swag's wait starts after it has read them.
on_fifo() {
	"$SWAG" "$@" < "$TMP/in" > "$TMP/out" 2> "$TMP/err" &
	swag_pid=$!
	exec 3> "$TMP/in" 4< "$TMP/out"
	start=$(now)
}

# next_line: the next line of output in line ("timeout" after 20 s), and the seconds
# since start in waited.
next_line() {
	IFS= read -r -t 20 line <&4 || line=timeout
	waited=$(awk -v a="$start" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
}

# expect_waited NAME LOW HIGH: the line came LOW to HIGH seconds after start.
expect_waited() {
	checks=$((checks + 1))
	awk -v w="$waited" -v low="$2" -v high="$3" 'BEGIN { exit !(w >= low && w < high) }' ||
	    fail "$1: written after $waited s, expected $2 to $3"
}

# end_fifo: closes swag's input and output, and waits for it: its status in status.
end_fifo() {
	exec 3>&- 4<&-
	wait "$swag_pid"
	status=$?
}

# A FIFO that stays open and idle: the bucket is written when the log's clock, run on
# from its newest record (2 s into the bucket of 5 s), has passed the bucket's end by
# the grace: 3 + 2 s into the wait, though the bucket's time is long past by the wall
# clock.  A record that then comes for it goes backwards and counts in the next
# bucket, with a warning.
on_fifo -t 1 -s 5s sum:2 count:2
echo "1764504000 1" >&3
echo "1764504002 2" >&3
next_line
expect_eq "idle: the bucket written by the clock" "$line" "1764504000	3	2"
expect_waited "idle" 4.9 15
echo "1764504004 4" >&3		# late for the bucket written
echo "1764504007 8" >&3
exec 3>&-
next_line
end_fifo
expect_eq "idle: status" "$status" 0
expect_eq "idle: the late record counts in the next bucket" "$line" "1764504005	12	2"
expect_eq "idle: the late record is reported" "$(cat "$TMP/err")" \
    "swag: 1 timestamp went backwards, taken as the newest before (first: line 3, column 1)"

# With --strict the late record stops the run, and the message says what it is
# behind: though newer than every timestamp read, it goes backwards from the end of
# the bucket written while the input was idle.
on_fifo --strict -t 1 -s 1s count
echo "1764504000.5 1" >&3
next_line
expect_eq "idle, --strict: the bucket" "$line" "1764504000	1"
echo "1764504000.9 1" >&3
exec 3>&-
next_line
end_fifo
expect_eq "idle, --strict: status and message" "$status|$line|$(cat "$TMP/err")" \
    "1|timeout|swag: line 2, column 1: timestamp '1764504000.9' goes backwards (behind the end of a bucket written while the input was idle)"

# The end of the input after the clock wrote a bucket: the bucket the clock has
# reached, quiet but within the window of the record, is written too (from a file,
# where no clock runs, the record's bucket alone).  The clock writes the first
# bucket 2.5 s into the wait, the next 5 s later: time enough to end the input.
on_fifo -t 1 -w 30s -s 5s count
echo "1764504004.5 1" >&3
next_line
expect_eq "idle, the end: the bucket" "$line" "1764504000	1"
exec 3>&-
next_line
end_fifo
expect_eq "idle, the end: the bucket the clock reached" "$status|$line" "0|1764504005	1"
expect_eq "the end, from a file" "$(echo "1764504004.5 1" | "$SWAG" -t 1 -w 30s -s 5s count)" \
    "1764504000	1"

# Lines that bring no newer timestamp (here none that can be read) leave the log's
# clock running from the newest: the bucket still comes out 1.5 + 2 s into the wait,
# not 3.5 s after the last of them (6.5 s), and they count in it (with a warning).
on_fifo -t 1 -s 2s count
echo "1764504000.5 1" >&3
for i in 1 2 3; do
	sleep 1
	echo "x" >&3
done
next_line
expect_eq "idle, lines without a timestamp: the bucket" "$line" "1764504000	4"
expect_waited "idle, lines without a timestamp" 3.4 5.5
end_fifo
expect_eq "idle, lines without a timestamp: status" "$status" 0

# Nor does the timer's own move of the time to the end of the bucket it wrote: a
# record that comes late for it (3.5 s into the wait) counts in the next bucket,
# which still comes out when the log's clock, run on from 0.5 s, is 2 s past its
# end, 5.5 s into the wait, not 2 + 2 s after the late record (7.5 s).
on_fifo -t 1 -s 2s count
echo "1764504000.5 1" >&3
next_line
expect_eq "idle, a late record: the bucket" "$line" "1764504000	1"
echo "1764504000.6 2" >&3
next_line
expect_eq "idle, a late record: the next bucket" "$line" "1764504002	1"
expect_waited "idle, a late record: the next bucket" 5.4 7
end_fifo
expect_eq "idle, a late record: status" "$status" 0

# With a longer window the clock writes the quiet bucket after too, every key of
# each; then nothing, the window being empty.
on_fifo -t 1 -g 2 -w 2s -s 1s sum:3
printf '1764504000.1 a 1\n1764504000.6 b 2\n' >&3
got=
for i in 1 2 3 4; do
	next_line
	got="$got${got:+ }$line"
done
expect_eq "idle, -w 2s: the bucket and the quiet one" "$got" \
    "1764504000	a	1 1764504000	b	2 1764504001	a	1 1764504001	b	2"
exec 3>&-
IFS= read -r -t 10 line <&4 || line=end
end_fifo
expect_eq "idle, -w 2s: status" "$status" 0
expect_eq "idle, -w 2s: nothing more at the end" "$line" "end"

# Live timestamps, as tail -f of a log being written gives them, one-second buckets:
# the current second's bucket comes out about two seconds after it ends.
on_fifo -t 1 -s 1s count
stamp=$(now)
echo "$stamp" >&3
next_line
expect_eq "live: the second's bucket" "$line" "${stamp%.*}	1"
end_fifo
expect_eq "live: status" "$status" 0

# Timestamps an hour ahead of the wall clock (a local time east of UTC, read as UTC):
# their second's bucket comes out two seconds after its end by the log's clock too,
# not an hour later (next_line gives up after 20 s).
on_fifo -t 1 -s 1s count
stamp=$(awk -v t="$(now)" 'BEGIN { printf "%.3f", t + 3600 }')
echo "$stamp" >&3
next_line
expect_eq "ahead of the clock: the second's bucket" "$line" "${stamp%.*}	1"
end_fifo
expect_eq "ahead of the clock: status" "$status" 0

finish
