# FILE arguments as users give them (swag(1), FILES): rotated logs, some of them
# gzip-compressed, read in order as one stream; corrupt and truncated gzip files; a
# FIFO among the files; columns from the end on an access log whose user agents hold
# blanks, against awk's $NF; files whose headers put the columns in other orders,
# against a naive recomputation; the messages about misspelt aggregates.
. tests/sh/lib.bash

cd "$TMP" || exit 1

# run NAME ARGUMENT...: swag's output, error and status into NAME.out, NAME.err, $status.
run() {
	local name=$1
	shift
	"$SWAG" "$@" > "$name.out" 2> "$name.err"
	status=$?
}

# A day of an access log (nginx's combined format and the request time last), as
# logrotate leaves it: access.log.2.gz, access.log.1 and access.log, oldest first.
awk 'BEGIN {
	srand(7)
	split("Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0|curl/8.5.0|Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/119|-", agents, "|")
	for (i = 0; i < 3000; i++) {
		client = i % 5 == 0 ? "2001:db8::" i % 97 : "10.0." i % 13 "." i % 7
		printf "%s - - [30/Nov/2026:%02d:%02d:%02d +0000] \"GET /p/%d HTTP/1.1\" %d %d \"-\" \"%s\" %.3f\n",
		    client, int(i / 125), int(i / 60) % 60, i % 60, i % 17,
		    i % 11 == 0 ? 500 : 200, int(rand() * 5000), agents[1 + i % 4], rand() * 2
	}
}' > day.log
head -n 1000 day.log | gzip > access.log.2.gz
sed -n '1001,2000p' day.log > access.log.1
sed -n '2001,$p' day.log > access.log

# The average and maximum of the last field over 100 lines, as awk computes them.
awk '{ v[NR] = $NF; s = 0; m = ""; for (i = NR > 99 ? NR - 99 : 1; i <= NR; i++) {
	s += v[i]; if (m == "" || v[i] + 0 > m + 0) m = v[i] }
	printf "%.9f %s\n", s / (NR < 100 ? NR : 100), m }' day.log > want
run rotated -w 100 avg:-1 max:-1 access.log.2.gz access.log.1 access.log
expect_eq "rotated logs: status" "$status" 0
expect_eq "rotated logs: messages" "$(cat rotated.err)" ""
checks=$((checks + 1))
paste rotated.out want | awk -F '[\t ]' 'NF != 4 || ($1 - $3 > 1e-9 || $3 - $1 > 1e-9) ||
	$2 + 0 != $4 + 0 { bad = 1 } END { exit bad || NR != 3000 }' ||
	fail "rotated logs: avg:-1 max:-1 differ from awk's \$NF over the day"
# The same day through standard input (gzip's magic read there too), and zcat's.
run stdin-gz -w 100 avg:-1 max:-1 - access.log.1 access.log < access.log.2.gz
checks=$((checks + 1))
cmp -s stdin-gz.out rotated.out || fail "gzip on standard input differs"
run plain -w 100 avg:-1 max:-1 < day.log
checks=$((checks + 1))
cmp -s plain.out rotated.out || fail "the day as three files differs from one stream"

# -t, -g and aggregates from the end, the timestamp a pair of fields: the per-client
# count of 500s within a minute, with the same as one stream.
run groups -t 4 -g 1 -w 1m sum:-1 count:9 access.log.2.gz access.log.1 access.log
run groups-one -t 4 -g 1 -w 1m sum:-1 count:9 < day.log
checks=$((checks + 1))
cmp -s groups.out groups-one.out && [ -s groups.out ] ||
	fail "-t -g over three files differs from one stream"

# A directory among the files is refused with the files that cannot be opened, before
# anything is written: status 3 and no result of the files before it.
mkdir -p a-directory
run directory -w 100 avg:-1 access.log.1 a-directory access.log
expect_eq "a directory: status" "$status" 3
expect_eq "a directory: message" "$(cat directory.err)" "swag: a-directory: Is a directory"
expect_eq "a directory: nothing written" "$(wc -c < directory.out)" 0
# So is standard input, given as - among the files, when it is a directory (alone it is
# read, and fails as a read error: exit-status.sh).
run stdin-directory -w 100 avg:-1 access.log.1 - < a-directory
expect_eq "standard input a directory: status" "$status" 3
expect_eq "standard input a directory: message" "$(cat stdin-directory.err)" \
    "swag: standard input: Is a directory"
expect_eq "standard input a directory: nothing written" "$(wc -c < stdin-directory.out)" 0
# And standard input closed: a file opened would take its descriptor and be read for -.
for args in "- access.log.1" "access.log.1 -"; do
	"$SWAG" -w 100 avg:-1 $args > stdin-closed.out 2> stdin-closed.err <&-
	expect_eq "standard input closed ($args): status" "$?" 3
	expect_eq "standard input closed ($args): message" "$(cat stdin-closed.err)" \
	    "swag: standard input: Bad file descriptor"
	expect_eq "standard input closed ($args): nothing written" "$(wc -c < stdin-closed.out)" 0
done

# Concatenated members (cat a.gz b.gz, or gzip's own -c >>) are one input.
{ head -n 10 day.log | gzip; sed -n '11,20p' day.log | gzip; } > two-members.gz
run members -w 5 sum:-1 two-members.gz
head -n 20 day.log > first20
run members-plain -w 5 sum:-1 first20
expect_eq "two gzip members: status" "$status" 0
checks=$((checks + 1))
cmp -s members.out members-plain.out && [ "$(wc -l < members.out)" = 20 ] ||
	fail "two gzip members: not read as one input"

# Big enough for many reader blocks, compressed and not (128 KiB reads).
seq 1 400000 | gzip > big.gz
seq 1 400000 > big
run big-gz -w 1000 sum count big.gz
run big -w 1000 sum count big
checks=$((checks + 1))
cmp -s big-gz.out big.out && [ "$(wc -l < big.out)" = 400000 ] ||
	fail "a large gzip file differs from its text"

# A truncated .gz: the lines it holds, then an error naming it, exit 1; a corrupt one.
head -c 2000 access.log.2.gz > cut.gz
run cut -w 10 sum:-1 cut.gz access.log
expect_eq "truncated gzip: status" "$status" 1
expect_eq "truncated gzip: message" "$(cat cut.err)" \
    "swag: cut.gz: gzip data ends too soon (a truncated file?)"
checks=$((checks + 1))
[ -s cut.out ] && head -n "$(wc -l < cut.out)" day.log | "$SWAG" -w 10 sum:-1 | cmp -s - cut.out ||
	fail "truncated gzip: the lines before the cut are not what they hold"
{ printf '\037\213\010\000'; head -c 300 /dev/zero; } > corrupt.gz
run corrupt -w 10 sum corrupt.gz
expect_eq "corrupt gzip: status" "$status" 1
expect_eq "corrupt gzip: message" "$(cat corrupt.err)" "swag: corrupt.gz: gzip data is corrupt"
# Corrupt data after good blocks: the lines of the blocks before it come out first
# (a stored block of "1 2 3", then a block of the invalid type 3).
printf '\037\213\010\000\000\000\000\000\000\003\000\006\000\371\3771\n2\n3\n\007' > late.gz
run late -w 10 sum late.gz
expect_eq "gzip corrupt after good blocks: status" "$status" 1
expect_eq "gzip corrupt after good blocks: output" "$(tr '\n' ' ' < late.out)" "1 3 6 "
expect_eq "gzip corrupt after good blocks: message" "$(cat late.err)" \
    "swag: late.gz: gzip data is corrupt"
{ seq 1 3 | gzip; echo trailing; } > trailing.gz
run trailing -w 10 sum trailing.gz
expect_eq "text after a gzip member: status" "$status" 1
expect_eq "text after a gzip member: output" "$(tr '\n' ' ' < trailing.out)" "1 3 6 "
# NUL bytes after the last member (a tape's or dd's padding, past a pipe's block)
# are passed over, as gzip -t and zcat pass them; anything after them is corrupt.
{ seq 1 3 | gzip; head -c 100000 /dev/zero; } > padded.gz
run padded -w 10 sum padded.gz
expect_eq "zero padding after gzip: status, output" \
    "$status $(tr '\n' ' ' < padded.out)$(cat padded.err)" "0 1 3 6 "
{ seq 1 3 | gzip; head -c 10 /dev/zero; echo 4; } > padded-text.gz
run padded-text -w 10 sum padded-text.gz
expect_eq "text after zero padding: status, output, message" \
    "$status $(tr '\n' ' ' < padded-text.out)$(cat padded-text.err)" \
    "1 1 3 6 swag: padded-text.gz: gzip data is corrupt"
# One byte 1f alone, and 1f 8b split across two writes of a pipe, are read right.
printf '\037' > one-byte
run one-byte -w 2 count one-byte
expect_eq "a lone 1f byte is text" "$status $(cat one-byte.out)" "0 1"
(printf '\037'; sleep 0.2; printf '\213\010\000\000\000\000\000\000\003'; seq 1 3 | gzip | tail -c +11) |
	"$SWAG" -w 5 sum > split.out 2> split.err
expect_eq "gzip magic split across reads" "$? $(tr '\n' ' ' < split.out)" "0 1 3 6 "

# CSV files whose headers put the columns in other orders, against a naive
# recomputation over the rows as one table.
printf 'host,latency,ts\n' > a.csv
printf 'ts,host,latency\n' > b.csv
printf 'latency,host\n' > c.csv
awk 'BEGIN { srand(3); for (i = 1; i <= 300; i++) {
	h = "h" int(rand() * 4); l = int(rand() * 1000) / 10
	if (i <= 100) printf "%s,%s,%d\n", h, l, i >> "a.csv"
	else if (i <= 200) printf "%d,%s,%s\n", i, h, l >> "b.csv"
	else printf "%s,%s\n", l, h >> "c.csv"
	print h, l > "rows" } }'
awk -F ' ' '{ l[NR] = $2; s = 0; for (i = NR - 6; i <= NR; i++) if (i >= 1) s += l[i]
	printf "%.4f\n", s / (NR < 7 ? NR : 7) }' rows > want-avg
run csv -c -H -w 7 -p 4 avg:latency mode:host a.csv b.csv c.csv
expect_eq "csv in three column orders: status" "$status" 0
checks=$((checks + 1))
head -n 1 csv.out | grep -qx 'avg(latency),mode(host)' || fail "csv: one output header"
checks=$((checks + 1))
tail -n +2 csv.out | cut -d, -f1 | cmp -s - want-avg || fail "csv: avg over three column orders"
awk '{ h[NR] = $1; delete c; best = ""; for (i = NR - 6; i <= NR; i++) if (i >= 1) c[h[i]]++
	for (k in c) if (best == "" || c[k] > c[best] || (c[k] == c[best] && k < best)) best = k
	print best }' rows > want-mode
checks=$((checks + 1))
tail -n +2 csv.out | cut -d, -f2 | cmp -s - want-mode || fail "csv: mode over three column orders"
# -a needs the same header in every file: the third differs.
run csv-append -c -H -a -w 7 avg:latency a.csv a.csv c.csv
expect_eq "csv -a, headers differ: status" "$status" 1
expect_eq "csv -a, headers differ: message" "$(cat csv-append.err)" \
    "swag: c.csv: the header differs from that of a.csv, which -a writes"
expect_eq "csv -a, headers differ: records before" "$(wc -l < csv-append.out)" 201

# Any command over files cut at random lines gives what it gives over the whole
# (only the windows, the keys, -s's counts and the newest timestamp carry on), each
# part with the header under -H, one part compressed.
awk 'BEGIN { srand(11); t = 1700000000; for (i = 0; i < 3000; i++) {
	t += int(rand() * 3); v = rand() < 0.05 ? "-" : int(rand() * 10000) / 100
	printf "%d k%d %s w%d\n", t, int(rand() * 9), v, int(rand() * 4) } }' > whole
tr ' ' ',' < whole > whole.csv
while IFS= read -r command; do
	for cut in 1 2 3; do
		a=$(( (cut * 7919) % 2900 + 1 )); b=$(( a + (cut * 104729) % (2999 - a) + 1 ))
		case $command in
		-c*) src=whole.csv; hdr='ts,key,v,word' ;;
		*) src=whole; hdr='ts key v word' ;;
		esac
		for part in 1 2 3; do
			case $part in 1) range="1,${a}p" ;; 2) range="$((a + 1)),${b}p" ;; 3) range="$((b + 1)),\$p" ;; esac
			case $command in *-H*) echo "$hdr" ;; esac > "part$part"
			sed -n "$range" "$src" >> "part$part"
		done
		gzip -c part2 > part2.gz
		{ case $command in *-H*) echo "$hdr" ;; esac; cat "$src"; } > one
		# shellcheck disable=SC2086
		"$SWAG" -q $command part1 part2.gz part3 > split.out 2> split.err
		split_status=$?
		# shellcheck disable=SC2086
		"$SWAG" -q $command < one > one.out 2> one.err
		checks=$((checks + 1))
		[ "$split_status" = 0 ] && [ -s one.out ] && cmp -s split.out one.out ||
			fail "cut $cut: swag $command over three parts differs from the whole"
	done
done << 'EOF_COMMANDS'
-w 50 sum:3 avg:3 count:3 median:3 mode:4 distinct:2
-w 7 -s 5 -m 3 -p 2 max:3 min:3 stddev:3
-g 2 -w 20 sum:3 p90:3 mode:4
-t 1 -w 30s avg:3 count:3 distinct:2
-t 1 -g 2 -w 1m sum:3 median:3
-a -w 10 sum:3 var:3
-c -H -w 40 avg:v mode:word
-c -H -t ts -g key -w 45s sum:v count:word
-c -H -a -g key -s 3 -w 5 max:v
-H -t ts -w 10s p99:v count:key
EOF_COMMANDS

# A FIFO among the files, fed slowly: each of its results comes as its line does.
# await_output WANT: what fifo.out holds (newlines as blanks) once it is WANT, or
# after 10 s, however slow the machine.
await_output() {
	local i=0 have
	while have=$(tr '\n' ' ' < fifo.out); [ "$have" != "$1" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	printf '%s' "$have"
}
mkfifo fifo
printf '1\n2\n' > part1
: > fifo.out # there before swag's shell opens it
"$SWAG" -w 2 sum part1 fifo > fifo.out &
swag_pid=$!
exec 3<> fifo
got=$(await_output '1 3 ')
echo 10 >&3
got="$got| $(await_output '1 3 12 ')"
exec 3>&-
wait "$swag_pid"
expect_eq "a FIFO after a file: results as they come" "$?|$got" "0|1 3 | 1 3 12 "

# A missing file after a FIFO that nobody writes: opening the FIFO does not wait
# for its writer, so swag fails at once (a cron job would hang).
timeout 20 "$SWAG" -w 2 sum fifo no-such-file > /dev/null 2> fifo.err
expect_eq "a FIFO, then a missing file: status and message" "$?|$(cat fifo.err)" \
	"3|swag: no-such-file: No such file or directory"

# FIFOs whose writers come one after the other, each writing more than a pipe holds:
# the second writer comes only once the first is read to its end, which swag must
# not wait for at the start (as cat fifo fifo2 does not).
mkfifo fifo2
seq 1 100000 > many
timeout 20 "$SWAG" -w 2 sum fifo fifo2 > fifos.out &
swag_pid=$!
# (timeout ends the writers, blocked in an open, should swag fail.)
timeout 30 sh -c 'cat many > fifo; cat many > fifo2' 2> /dev/null &
writers=$!
wait "$swag_pid"
expect_eq "FIFOs fed one after the other: status and records" \
	"$?|$(wc -l < fifos.out)|$(sed -n '100001p' fifos.out)" "0|200000|100001"
wait "$writers"

# An output for awk: the results line up with the records, file after file.
expect_eq "swag | awk over two files" \
    "$("$SWAG" -w 3 max:-1 access.log.1 access.log | awk 'END { print NR }')" 2000

# Misspelt aggregates, in any case, and the list of the aggregates (from agg.c's table).
run stdev -w 2 STDEV part1
expect_eq "stdev: status" "$status" 2
expect_eq "stdev: suggestion" "$(head -n 1 stdev.err)" \
    "swag: unknown aggregate 'STDEV' (and no file 'STDEV'): did you mean 'stddev'?"
checks=$((checks + 1))
sed -n 2p stdev.err | grep -q "^swag: the aggregates are avg, count, .*stddev, sum, var, pN (p0 to p100)\$" ||
	fail "stdev: the list of aggregates: $(sed -n 2p stdev.err)"
expect_eq "stdev: try --help" "$(sed -n 3p stdev.err)" "Try 'swag --help' for more information."
run medain -w 2 avg medain:3@5
expect_eq "medain:3@5" "$status $(head -n 1 medain.err)" \
    "2 swag: unknown aggregate 'medain' (and no file 'medain:3@5'): did you mean 'median'?"
run none -w 2 part1
checks=$((checks + 1))
grep -q "^swag: no aggregate given ('part1' is taken as a file); the aggregates are avg, count, " none.err ||
	fail "no aggregate: $(head -n 1 none.err)"
# A file that exists is read, whatever its name.
printf '5\n' > stdev
run stdev-file -w 2 sum stdev
expect_eq "a file named stdev" "$status $(cat stdev-file.out)" "0 5"

# A cron job that appends to the log it reads (swag ... log >> log) would read its
# own results back: the file is refused before anything is written, as cat(1)
# refuses it, given as a FILE or as standard input.  Output that truncated the file
# leaves nothing to read, and is let be when it is the first input.
seq 1 20000 > own.log
"$SWAG" -w 2 sum part1 own.log >> own.log 2> own.err
expect_eq "FILE is the output: status, message" "$?|$(cat own.err)" \
    "3|swag: own.log: input file is output file"
"$SWAG" -w 2 sum < own.log >> own.log 2> own.err
expect_eq "standard input is the output: status, message" "$?|$(cat own.err)" \
    "3|swag: standard input: input file is output file"
expect_eq "the output file is left as it was" "$(wc -l < own.log)" 20000
"$SWAG" -w 2 sum own.log > own.log 2> own.err
expect_eq "a truncated output file: status, output" "$?|$(wc -c < own.log)" "0|0"
# But not after another input, whose results would go into it before it is read.
seq 1 20000 > own.log
timeout 20 "$SWAG" -w 2 sum own.log later.log > later.log 2> own.err
expect_eq "a truncated output file after another: status, message" "$?|$(cat own.err)" \
    "3|swag: later.log: input file is output file"
# With standard output closed, a file opened in its place is not the output.
"$SWAG" -w 2 sum own.log >&- 2> own.err
expect_eq "standard output closed: status, message" "$?|$(cat own.err)" \
    "3|swag: write error: Bad file descriptor"
# A file's name in a message is shown as a field is (swag(1), BAD INPUT): a line end
# or an escape sequence in it would break the message's line or drive the terminal.
name=$(printf 'odd\n\033[2Jname')
printf '1\nx\n3\n' > "$name"
run odd-name -w 2 sum "$name"
expect_eq "a file name with control bytes in a summary" "$status|$(cat odd-name.err)" \
    '0|swag: 1 field was not a number (first: odd\x0a\x1b[2Jname: line 2, column 1)'
run odd-name-strict --strict -w 2 sum "$name"
expect_eq "a file name with control bytes in a --strict message" \
    "$status|$(cat odd-name-strict.err)" \
    "1|swag: odd\\x0a\\x1b[2Jname: line 2, column 1: 'x' is not a number"
# A long name, escaped to four times its length, is shown whole (swag(1), BAD INPUT:
# a name is cut only past 4096 bytes).
long=$(awk 'BEGIN { for (i = 0; i < 6; i++) { for (j = 0; j < 200; j++) printf "\001"; printf "/" } }')
mkdir -p "$long" && printf '1\nx\n' > "${long}f"
run long-name -w 2 sum "${long}f"
expect_eq "a long escaped name in a summary: its end" \
    "$status|$(tail -c 30 long-name.err)" '0|\x01\x01/f: line 2, column 1)'
finish
