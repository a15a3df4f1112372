# Results appear as lines arrive: a FIFO fed one line at a time gets each result at
# once, because swag flushes before it waits for more input.
. tests/sh/lib.bash

mkfifo "$TMP/in" "$TMP/out"
"$SWAG" -w 2 sum < "$TMP/in" > "$TMP/out" &
swag_pid=$!
exec 3> "$TMP/in" 4< "$TMP/out"
got=
for x in 1 2 3 4; do
	echo "$x" >&3
	# A result held back until more input (or the end) came would never arrive:
	# read gives up after 10 s, far beyond any machine's scheduling delay.
	if IFS= read -r -t 10 line <&4; then
		got="$got${got:+ }$line"
	else
		got="$got${got:+ }timeout"
	fi
done
exec 3>&- 4<&-
wait $swag_pid
expect_eq "swag status" "$?" 0
expect_eq "results one by one" "$got" "1 3 5 7"
# The same with a time window per key, as tail -f over a log would feed it.
"$SWAG" -t 1 -g 2 -w 10s sum:3 < "$TMP/in" > "$TMP/out" &
swag_pid=$!
exec 3> "$TMP/in" 4< "$TMP/out"
got=
for record in "100 a 1" "101 b 2" "105 a 3" "120 a 4"; do
	echo "$record" >&3
	if IFS= read -r -t 10 line <&4; then
		got="$got${got:+ }$line"
	else
		got="$got${got:+ }timeout"
	fi
done
exec 3>&- 4<&-
wait $swag_pid
expect_eq "timed swag status" "$?" 0
expect_eq "timed results one by one" "$got" "a	1 b	2 a	4 a	4"
finish
