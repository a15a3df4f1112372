# No data lost (issue 7, part 4).  For random inputs, with and without bad fields,
# short records and blank lines, in blank-separated and CSV input: every input record
# yields exactly one output record; with -a each output record starts with the input
# record intact; and the summary at exit counts exactly the problems planted, with
# the line of the first.
. tests/sh/lib.bash

# generate SEED MODE DIRTY: writes $TMP/input, the records that swag must take, and
# $TMP/expect, what -a must write back: one line per physical line of each record,
# "L" and its text for a line inside a record, "E" and its text for a record's last
# line (the results follow it).  $TMP/planted gets "bad COUNT FIRST_LINE" and "short
# COUNT FIRST_LINE".  A CSV field is quoted exactly when it needs it, so that it is
# written back as it came.
generate() {
	awk -v seed="$1" -v mode="$2" -v dirty="$3" -v dir="$TMP" '
	function pick(list,    n, a) { n = split(list, a, " "); return a[1 + int(rand() * n)] }
	function number() {
		if (rand() < 0.5)
			return int(rand() * 2000 - 1000) / pick("1 4 10")
		return pick("1 -2 3.5 -0.25 1e3 1.25E-2 +7 -.5 inf -INF nan 1234567 0 -0 2.5e-300")
	}
	function blanks(    x) { x = rand(); return x < 0.4 ? " " : x < 0.6 ? "\t" : x < 0.8 ? "  " : " \t " }
	# A CSV field, quoted when it needs it.
	function csv(text) {
		if (text ~ /[",\n]/ || text ~ /^[ \t]/ || text ~ /[ \t]$/) {
			gsub(/"/, "\"\"", text)
			return "\"" text "\""
		}
		return text
	}
	BEGIN {
		srand(seed)
		input = dir "/input"; expect = dir "/expect"
		bad = 0; short = 0; line = 1
		for (r = 1; r <= 3000; r++) {
			x = rand()
			if (dirty && x < 0.03) {
				# A blank line: a record of missing fields in blank-separated input,
				# no record at all in CSV.
				text = rand() < 0.5 ? "" : blanks()
				print text > input
				if (mode == "ws") print "E" text > expect
				line++
				continue
			}
			value = number()
			if (dirty && x < 0.10) {
				value = pick("x 1,5 0x10 1.5x abc 1..2 -- e5 .")
				if (bad++ == 0) bad_line = line
			} else if (dirty && x < 0.13) {
				value = "NA"
			}
			key = "k" int(rand() * 40)
			note = pick("plain a,b say\"hi\" two\nlines \"\" x\n\ny")
			if (mode == "ws") {
				gsub(/[ \t\n"]/, "_", note)
				if (dirty && x >= 0.13 && x < 0.15) {
					text = (rand() < 0.5 ? blanks() : "") r
					if (short++ == 0) short_line = line
				} else {
					text = (rand() < 0.2 ? blanks() : "") r blanks() value blanks() key \
					    blanks() note (rand() < 0.2 ? blanks() : "")
				}
				print text > input
				print "E" text > expect
				line++
				continue
			}
			if (dirty && x >= 0.13 && x < 0.15) {
				text = r
				if (short++ == 0) short_line = line
			} else {
				text = r "," csv(value) "," key "," csv(note)
			}
			print text > input
			n = split(text, parts, "\n")
			for (i = 1; i < n; i++) print "L" parts[i] > expect
			print "E" parts[n] > expect
			line += n
		}
		print "bad", bad, bad ? bad_line : 0 > dir "/planted"
		print "short", short, short ? short_line : 0 > dir "/planted"
	}'
}

# The count and the first line in the summary line that matches a regular
# expression, or "0 0".
summary() {
	awk -v what="$1" '
		$0 ~ what { sub(/^swag: /, ""); n = $1; sub(/.*first: line /, ""); print n, $1 + 0; found = 1 }
		END { if (!found) print 0, 0 }' "$TMP/err"
}

# check_appended LABEL DELIMITER RESULTS: every output line is the expected input
# line; after a record's last line come the delimiter and RESULTS result fields.
check_appended() {
	local problem
	problem=$(awk -v d="$2" -v results="$3" '
		NR == FNR { expect[FNR] = $0; n = FNR; next }
		{
			kind = substr(expect[FNR], 1, 1); text = substr(expect[FNR], 2)
			if (FNR > n) problem = "an extra line " FNR
			else if (kind == "L" && $0 != text) problem = "line " FNR " changed"
			else if (kind == "E" && substr($0, 1, length(text) + 1) != text d)
				problem = "the record ending on line " FNR " changed"
			else if (kind == "E" && (split(substr($0, length(text) + 2), f, d) != results ||
			    substr($0, length(text) + 2) ~ /"/))
				problem = "line " FNR ": results " substr($0, length(text) + 2)
			if (problem != "") exit
		}
		END {
			if (problem == "" && FNR != n) problem = "output has " FNR " lines, expected " n
			print problem
		}
	' "$TMP/expect" "$TMP/out")
	checks=$((checks + 1))
	[ -z "$problem" ] || fail "$1: $problem"
}

for seed in 1 2 3 4; do
	for mode in ws csv; do
		for dirty in 0 1; do
			label="seed $seed, $mode, $([ $dirty = 1 ] && echo dirty || echo clean)"
			generate $seed $mode $dirty
			records=$(grep -c '^E' "$TMP/expect")
			if [ $mode = csv ]; then
				options=(-c --na=NA)
				d=,
			else
				options=(--na=NA)
				d=$'\t'
			fi
			# The number of results, and the arguments.
			for aggs in "8 -w 7 sum:2 avg:2 median:2 max:2 count:3 mode:3 distinct:3 p99:2" \
			    "3 -g 3 -w 5 sum:2 var:2 count:4"; do
				# shellcheck disable=SC2086
				set -- $aggs
				n_results=$1
				shift
				aggs=$*
				"$SWAG" "${options[@]}" "$@" < "$TMP/input" > "$TMP/out" 2> "$TMP/err"
				expect_eq "$label, $aggs: status" "$?" 0
				expect_eq "$label, $aggs: one output record per record" \
					"$(wc -l < "$TMP/out")" "$records"
				read -r _ planted_bad bad_line < <(grep '^bad' "$TMP/planted")
				read -r _ planted_short short_line < <(grep '^short' "$TMP/planted")
				expect_eq "$label, $aggs: bad fields counted" \
					"$(summary 'not (a number|numbers) ')" "$planted_bad $bad_line"
				# -g reads column 3 too: a short record lacks column 2 first anyway.
				expect_eq "$label, $aggs: short records counted" \
					"$(summary 'too few fields')" "$planted_short $short_line"
				"$SWAG" "${options[@]}" -a "$@" < "$TMP/input" > "$TMP/out" 2> /dev/null
				expect_eq "$label, -a $aggs: status" "$?" 0
				check_appended "$label, -a $aggs" "$d" "$n_results"
			done
		done
	done
done
finish
