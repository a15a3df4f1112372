# Write and read errors, SIGPIPE and a closed stdout end as swag(1) says (EXIT STATUS).
. tests/sh/lib.bash

seq 1 100000 > "$TMP/numbers"

# A full disk: exit 3 with the errno's words.
"$SWAG" -w 10 sum < "$TMP/numbers" > /dev/full 2> "$TMP/err"
expect_eq "/dev/full status" "$?" 3
expect_eq "/dev/full message" "$(cat "$TMP/err")" "swag: write error: No space left on device"

# A closed standard output.
"$SWAG" -w 10 sum < "$TMP/numbers" >&- 2> "$TMP/err"
expect_eq "closed stdout status" "$?" 3
expect_eq "closed stdout message" "$(cat "$TMP/err")" "swag: write error: Bad file descriptor"

# The reader goes away, SIGPIPE at its default: swag dies by the signal, silently.
status=$( ( "$SWAG" -w 10 sum < "$TMP/numbers" 2> "$TMP/err"; echo $? > "$TMP/status" ) | head -n 1 > "$TMP/out"; cat "$TMP/status")
expect_eq "head -n1 output" "$(cat "$TMP/out")" 1
expect_eq "SIGPIPE default status" "$status" 141
expect_eq "SIGPIPE default message" "$(cat "$TMP/err")" ""

# SIGPIPE ignored: exit 3 with a message, not an endless loop.
status=$( ( trap '' PIPE; "$SWAG" -w 10 sum < "$TMP/numbers" 2> "$TMP/err"; echo $? > "$TMP/status" ) | head -n 1 > /dev/null; cat "$TMP/status")
expect_eq "SIGPIPE ignored status" "$status" 3
expect_eq "SIGPIPE ignored message" "$(cat "$TMP/err")" "swag: write error: Broken pipe"

# A read error: a directory as standard input.
"$SWAG" -w 10 sum < / > /dev/null 2> "$TMP/err"
expect_eq "read error status" "$?" 3
expect_eq "read error message" "$(cat "$TMP/err")" "swag: read error: Is a directory"

# --help and --version go to standard output with status 0, and fail on a full disk.
"$SWAG" --help > "$TMP/help"
expect_eq "--help status" "$?" 0
expect_eq "--help synopsis" "$(head -n 1 "$TMP/help")" "usage: swag [OPTION]... AGG[:COLUMN][@WINDOW]... [FILE]..."
"$SWAG" --version > "$TMP/version"
expect_eq "--version status" "$?" 0
expect_eq "--version" "$(cut -d ' ' -f 1 "$TMP/version")" swag
# Like every other write, theirs fail with a message (once, silently).
"$SWAG" --help > /dev/full 2> "$TMP/err"
expect_eq "--help to /dev/full status" "$?" 3
expect_eq "--help to /dev/full message" "$(cat "$TMP/err")" \
	"swag: write error: No space left on device"
"$SWAG" -V > /dev/full 2> "$TMP/err"
expect_eq "-V to /dev/full status" "$?" 3
expect_eq "-V to /dev/full message" "$(cat "$TMP/err")" "swag: write error: No space left on device"
"$SWAG" --help >&- 2> "$TMP/err"
expect_eq "--help to a closed stdout status" "$?" 3
expect_eq "--help to a closed stdout message" "$(cat "$TMP/err")" \
	"swag: write error: Bad file descriptor"
finish
