# The README's examples print what it shows: each "$ command" of an indented block
# that is followed by its output is run (in a scratch directory, with swag the
# binary under test), standard error merged, and its output compared line for line;
# "$ cat FILE" with its lines makes FILE for the examples after it, and a line "..."
# stands for the rest of the output.  Commands shown without output (tail -f, files
# the README does not give) are not run.
. tests/sh/lib.bash

readme=$(pwd)/README.md
mkdir -p "$TMP/bin" "$TMP/run" && ln -s "$SWAG" "$TMP/bin/swag"

# run_example COMMAND EXPECTED: one example, its expected lines in EXPECTED's file.
run_example() {
	local command=$1 expected=$2 got want
	case $command in
	'cat '*)
		cp "$expected" "$TMP/run/${command#cat }"
		return
		;;
	esac
	got=$(cd "$TMP/run" && PATH=$TMP/bin:$PATH bash -c "$command" 2>&1)
	want=$(cat "$expected")
	if [ "$(tail -n 1 "$expected")" = "..." ]; then
		# The first lines only, as many as the README shows before "...".
		want=$(sed '$d' "$expected")
		got=$(printf '%s\n' "$got" | head -n "$(($(wc -l < "$expected") - 1))")
	fi
	expect_eq "README: \$ $command" "$got" "$want"
}

# The example read so far, if its output has begun.
flush_example() {
	if [ -n "$command" ] && $in_output; then
		run_example "$command" "$TMP/expected"
	fi
}

command=
in_output=false
: > "$TMP/expected"
while IFS= read -r line || [ -n "$line" ]; do
	case $line in
	'    $ '*)
		flush_example
		command=${line#    \$ }
		in_output=false
		: > "$TMP/expected"
		continue
		;;
	esac
	if [ -n "$command" ] && ! $in_output && [ "${command%|}" != "$command" ]; then
		# A command continued on the next line, after its pipe.
		command="$command ${line#"${line%%[! ]*}"}"
		continue
	fi
	case $line in
	'    '*)
		if [ -n "$command" ]; then
			printf '%s\n' "${line#    }" >> "$TMP/expected"
			in_output=true
		fi
		;;
	*)
		flush_example
		command=
		in_output=false
		;;
	esac
done < "$readme"
flush_example
# The README has examples: a parse that found none would pass vacuously.
[ "$checks" -ge 10 ] || fail "README: only $checks examples found"
finish
