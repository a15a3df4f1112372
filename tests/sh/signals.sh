# Whole lines whatever ends the run (man page, SIGNALS): SIGTERM, SIGINT or SIGHUP
# mid-stream, a file-size limit; and input and output that the parent set non-blocking.
. tests/sh/lib.bash

seq 1 300000 > "$TMP/numbers"

# wait_for_output FILE: until FILE has some bytes (a running swag has begun writing).
wait_for_output() {
	local i
	for i in $(seq 200); do
		[ -s "$1" ] && return 0
		sleep 0.05
	done
	fail "no output in $1 after 10 s"
}

# expect_whole_lines WHAT FILE: FILE ends in a line end, and every line is the sum of a
# window of one record of seq 1 N, that is its own line number: nothing torn.
expect_whole_lines() {
	local lines
	expect_eq "$1: last byte" "$(tail -c 1 "$2" | od -An -c | tr -d ' ')" '\n'
	lines=$(wc -l < "$2")
	checks=$((checks + 1))
	[ "$lines" -gt 0 ] || fail "$1: no lines"
	expect_eq "$1: the last line is whole" "$(tail -n 1 "$2")" "$lines"
}

# A signal mid-stream: swag finishes the records it holds and ends by that signal
# (128 + n), silently.  Input that is always ready (yes) is read without a pause, so
# the output goes out only when its buffer is full, which a record of three fields
# straddles most of the time.  SIGINT is reset to its default first: a background job
# of a script starts with it ignored, and swag leaves an ignored signal ignored.
for signal in TERM:143 INT:130 HUP:129; do
	yes 1 | env --default-signal="${signal%:*}" "$SWAG" -w 1 -p 4 sum sum sum > "$TMP/out" \
		2> "$TMP/err" &
	pid=$!
	wait_for_output "$TMP/out"
	kill -s "${signal%:*}" "$pid"
	wait "$pid" 2> /dev/null
	expect_eq "SIG${signal%:*} mid-stream: status" "$?" "${signal#*:}"
	expect_eq "SIG${signal%:*} mid-stream: last byte" \
		"$(tail -c 1 "$TMP/out" | od -An -c | tr -d ' ')" '\n'
	expect_eq "SIG${signal%:*} mid-stream: torn lines" \
		"$(grep -cvx '1.0000	1.0000	1.0000' "$TMP/out")" 0
	expect_eq "SIG${signal%:*} mid-stream: stderr" "$(cat "$TMP/err")" ""
done

# A signal while swag waits for input (tail -f): every result so far is out.
mkfifo "$TMP/fifo"
"$SWAG" -w 2 sum < "$TMP/fifo" > "$TMP/out" &
pid=$!
exec 3> "$TMP/fifo"
printf '1\n2\n5\n' >&3
for i in $(seq 200); do
	[ "$(wc -l < "$TMP/out")" = 3 ] && break
	sleep 0.05
done
kill -s TERM "$pid"
wait "$pid" 2> /dev/null
expect_eq "SIGTERM while waiting: status" "$?" 143
exec 3>&-
expect_eq "SIGTERM while waiting: output" "$(tr '\n' ' ' < "$TMP/out")" "1 3 7 "

# term_in_write WHAT PID: once swag (PID) blocks writing its results to the FIFO
# $TMP/slow, which fd 4 holds open read-write and nobody reads, sends it SIGTERM, then
# reads the FIFO into $TMP/out in the background (reader=its pid) and waits for swag
# to end, which must be by the signal.  The caller closes fd 4 and waits for reader.
term_in_write() {
	local i
	# Until its output is full (a pipe holds 64 KiB, the results 109 KiB): in the write.
	for i in $(seq 200); do
		grep -q pipe_write "/proc/$2/wchan" 2> /dev/null && break
		sleep 0.05
	done
	kill -s TERM "$2"
	# Read-only, so that it sees the end once swag and fd 4 (read-write) are gone.
	cat < "$TMP/slow" > "$TMP/out" 4<&- &
	reader=$!
	for i in $(seq 400); do
		kill -0 "$2" 2> /dev/null || break
		sleep 0.05
	done
	checks=$((checks + 1))
	if kill -0 "$2" 2> /dev/null; then
		fail "$1: still running 20 s on"
		kill -s KILL "$2"
	fi
	wait "$2" 2> /dev/null
	expect_eq "$1: status" "$?" 143
}

# A signal while swag writes to a reader that does not keep up, its input still open
# but quiet: once the write is done, swag ends by the signal, with every result of the
# records it held, and does not wait for more input first: the signal came before its
# wait for input began, which must still see it (behind a quiet tail -f no more
# input comes).
mkfifo "$TMP/slow"
exec 4<> "$TMP/slow"
seq 1 20000 > "$TMP/burst"
"$SWAG" -w 1 sum < "$TMP/fifo" > "$TMP/slow" &
pid=$!
exec 3> "$TMP/fifo"
cat "$TMP/burst" >&3
term_in_write "SIGTERM in a write, input quiet" "$pid"
exec 3>&- 4<&-
wait "$reader"
expect_whole_lines "SIGTERM in a write, input quiet" "$TMP/out"

# A signal after the input's end, in the last write: nothing is left to stop, but swag
# still ends by the signal, so that a shell loop stops at Ctrl-C.
exec 4<> "$TMP/slow"
"$SWAG" -w 1 sum < "$TMP/burst" > "$TMP/slow" &
term_in_write "SIGTERM in the last write" "$!"
exec 4<&-
wait "$reader"
expect_eq "SIGTERM in the last write: output" "$(wc -l < "$TMP/out")" 20000

# A signal that comes with the end of the input (Ctrl-C ends the writer too): swag,
# stopped in its wait for input, gets SIGTERM while its input ends, so that the wait
# finds both the input ready and the signal.  It is a stop all the same: the record
# cut short at the end (an open quote, a line without its end, which --strict would
# refuse) is not taken, nothing is said of it, and swag ends by the signal.
for args in '-c -w 2 sum|"2' '--strict -w 2 sum|x'; do
	: > "$TMP/out"
	"$SWAG" ${args%|*} < "$TMP/fifo" > "$TMP/out" 2> "$TMP/err" &
	pid=$!
	exec 3> "$TMP/fifo"
	printf '1\n%s' "${args#*|}" >&3
	wait_for_output "$TMP/out"
	# Until it waits for input (poll), where the old fault lay.
	for i in $(seq 200); do
		grep -q poll "/proc/$pid/wchan" 2> /dev/null && break
		sleep 0.05
	done
	kill -s STOP "$pid"
	kill -s TERM "$pid"
	exec 3>&-
	kill -s CONT "$pid"
	wait "$pid" 2> /dev/null
	expect_eq "SIGTERM with the end, swag ${args%|*}: status" "$?" 143
	expect_eq "SIGTERM with the end, swag ${args%|*}: output" "$(cat "$TMP/out")" 1
	expect_eq "SIGTERM with the end, swag ${args%|*}: stderr" "$(cat "$TMP/err")" ""
done

# A signal the parent ignored (nohup) stays ignored.
env --ignore-signal=HUP "$SWAG" -w 1 sum < "$TMP/fifo" > "$TMP/out" &
pid=$!
exec 3> "$TMP/fifo"
printf '1\n' >&3
wait_for_output "$TMP/out"
kill -s HUP "$pid"
printf '2\n' >&3
exec 3>&-
wait "$pid" 2> /dev/null
expect_eq "ignored SIGHUP: status" "$?" 0
expect_eq "ignored SIGHUP: output" "$(tr '\n' ' ' < "$TMP/out")" "1 2 "

# A second signal ends swag at once, even in a write that cannot finish: here nobody
# reads the FIFO it writes to.
mkfifo "$TMP/stuck"
exec 4<> "$TMP/stuck"
"$SWAG" -w 1 sum < "$TMP/numbers" > "$TMP/stuck" &
pid=$!
sleep 0.3
kill -s TERM "$pid"
sleep 0.3
checks=$((checks + 1))
kill -0 "$pid" 2> /dev/null || fail "swag ended before its write could finish"
kill -s TERM "$pid"
wait "$pid" 2> /dev/null
expect_eq "second SIGTERM: status" "$?" 143
exec 4<&-

# A file-size limit (ulimit -f, in KiB): the output stops at the last whole record
# within it, and swag says so with exit status 3 instead of dying by SIGXFSZ.
(ulimit -f 10; "$SWAG" -w 1 sum < "$TMP/numbers" > "$TMP/limited" 2> "$TMP/err")
expect_eq "file-size limit: status" "$?" 3
expect_eq "file-size limit: message" "$(cat "$TMP/err")" "swag: write error: File too large"
expect_whole_lines "file-size limit" "$TMP/limited"
size=$(wc -c < "$TMP/limited")
next=$(($(wc -l < "$TMP/limited") + 1))
checks=$((checks + 1))
[ "$size" -le 10240 ] && [ $((size + ${#next} + 1)) -gt 10240 ] ||
	fail "file-size limit: $size bytes written, the next record would fit in 10240"

# The same with -g, whose record (key and result) is written in one piece: it too stops
# at the last whole record within the limit.
awk 'BEGIN { for (i = 1; i <= 3000; i++) print "key" i % 7, i }' > "$TMP/keyed"
"$SWAG" -g 1 -w 1 sum:2 < "$TMP/keyed" > "$TMP/keyed.all"
(ulimit -f 10; "$SWAG" -g 1 -w 1 sum:2 < "$TMP/keyed" > "$TMP/limited" 2> "$TMP/err")
expect_eq "file-size limit, -g: status" "$?" 3
expect_eq "file-size limit, -g: message" "$(cat "$TMP/err")" "swag: write error: File too large"
expect_eq "file-size limit, -g: last byte" "$(tail -c 1 "$TMP/limited" | od -An -c | tr -d ' ')" '\n'
size=$(wc -c < "$TMP/limited")
next=$(sed -n "$(($(wc -l < "$TMP/limited") + 1))p" "$TMP/keyed.all")
checks=$((checks + 1))
[ "$size" -le 10240 ] && [ $((size + ${#next} + 1)) -gt 10240 ] &&
	cmp -s "$TMP/limited" <(head -c "$size" "$TMP/keyed.all") ||
	fail "file-size limit, -g: $size bytes written, or not the run's first records"

# Input and output set non-blocking by the parent (as some supervisors and Node.js
# leave them): swag waits with poll() instead of failing with EAGAIN.
nonblocking() {
	perl -MFcntl -e 'for my $fh (*STDIN, *STDOUT) {
		my $flags = fcntl($fh, F_GETFL, 0) or die "F_GETFL: $!";
		fcntl($fh, F_SETFL, $flags | O_NONBLOCK) or die "F_SETFL: $!";
	} exec @ARGV or die "exec: $!"' "$@"
}
{ sleep 0.2; seq 1 1000; sleep 0.2; seq 1001 2000; } |
	nonblocking "$SWAG" -w 1 sum > "$TMP/out" 2> "$TMP/err"
expect_eq "non-blocking input: status" "$?" 0
expect_eq "non-blocking input: stderr" "$(cat "$TMP/err")" ""
expect_whole_lines "non-blocking input" "$TMP/out"
expect_eq "non-blocking input: lines" "$(wc -l < "$TMP/out")" 2000
# Non-blocking input that stays quiet with -s DURATION and no bucket open yet (the
# timer asks for no end): swag waits on it as on blocking input, without reading it
# again and again, and a stop signal ends the wait.
mkfifo "$TMP/quiet"
exec 5<> "$TMP/quiet"
# exec, so that $! is swag's own (a function in the background is a subshell's).
(exec 5<&-; exec perl -MFcntl -e 'my $flags = fcntl(STDIN, F_GETFL, 0) or die "F_GETFL: $!";
	fcntl(STDIN, F_SETFL, $flags | O_NONBLOCK) or die "F_SETFL: $!";
	exec @ARGV or die "exec: $!"' "$SWAG" -t 1 -s 1s sum:2) < "$TMP/quiet" > "$TMP/out" \
	2> "$TMP/err" &
pid=$!
sleep 0.5
kill -s TERM "$pid"
for i in $(seq 400); do
	kill -0 "$pid" 2> /dev/null || break
	sleep 0.05
done
if kill -0 "$pid" 2> /dev/null; then
	fail "non-blocking quiet input, -s 1s: SIGTERM did not end swag in 20 s"
	kill -s KILL "$pid"
fi
wait "$pid" 2> /dev/null
expect_eq "non-blocking quiet input, -s 1s: status, output" "$?|$(cat "$TMP/out")" "143|"
exec 5<&-
nonblocking "$SWAG" -w 1 sum < "$TMP/numbers" 2> "$TMP/err" | { sleep 0.3; cat; } > "$TMP/out"
expect_eq "non-blocking output: stderr" "$(cat "$TMP/err")" ""
expect_whole_lines "non-blocking output" "$TMP/out"
expect_eq "non-blocking output: lines" "$(wc -l < "$TMP/out")" 300000
finish
