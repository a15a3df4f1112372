# Results appear as lines arrive: a FIFO fed one line at a time gets each result at
# once, because swag flushes before it waits for more input.
. tests/sh/lib.bash

mkfifo "$TMP/in" "$TMP/out"

# feed_one_by_one NAME EXPECTED SWAG-ARGUMENTS... -- LINE...: starts swag on the
# FIFO, writes each line (ended by $record_end, an LF unless set) and reads its result
# before writing the next.  A result held back until more input (or the end) came would
# never arrive: read gives up after 10 s, far beyond any machine's scheduling delay.
record_end=$'\n'
feed_one_by_one() {
	local name=$1 expected=$2 got= line
	local -a args=()

	shift 2
	while [ "$1" != -- ]; do
		args+=("$1")
		shift
	done
	shift
	"$SWAG" "${args[@]}" < "$TMP/in" > "$TMP/out" &
	local swag_pid=$!
	exec 3> "$TMP/in" 4< "$TMP/out"
	for record in "$@"; do
		printf '%s%s' "$record" "$record_end" >&3
		if IFS= read -r -t 10 line <&4; then
			got="$got${got:+ }$line"
		else
			got="$got${got:+ }timeout"
		fi
	done
	exec 3>&- 4<&-
	wait "$swag_pid"
	expect_eq "$name: status" "$?" 0
	expect_eq "$name: results one by one" "$got" "$expected"
}

feed_one_by_one "row window" "1 3 5 7" -w 2 sum -- 1 2 3 4
# A time window per key, as tail -f over a log would feed it.
feed_one_by_one "time window per key" "a	1 b	2 a	4 a	4" -t 1 -g 2 -w 10s sum:3 -- \
	"100 a 1" "101 b 2" "105 a 3" "120 a 4"
# CSV records ended by a lone CR (old Mac files: swag(1), INPUT), which no LF follows:
# each is a record as soon as its CR arrives, the header too.
record_end=$'\r'
feed_one_by_one "CSV records ended by CR" "1 3 5 7" -c -w 2 sum:2 -- 1,1 2,2 3,3 4,4
feed_one_by_one "CSV with a header, ended by CR" "v,sum(v) 1,1 2,3 3,5" -a -c -H -w 2 sum:v -- \
	v 1 2 3
record_end=$'\r\n'
feed_one_by_one "CSV records ended by CRLF" "1 3 5" -c -w 2 sum:2 -- 1,1 2,2 3,3
finish
