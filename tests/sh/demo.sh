# make demo (scripts/demo) runs every example it shows without an error, and its first
# ones, per-minute buckets and a gzip-compressed file, print what they say, whichever
# awk (mawk, gawk) is awk: the sample log is the same under each.
. tests/sh/lib.bash

DEMO_DIR=$TMP/demo scripts/demo "$SWAG" > "$TMP/out" 2> "$TMP/err"
expect_eq "demo status and standard error" "$?:$(cat "$TMP/err")" "0:"
checks=$((checks + 1))
grep -q '^1764466140	78\.2	60$' "$TMP/out" || fail "demo: no minute of 60 requests"
checks=$((checks + 1))
grep -q '^1764465900	web2	28\.6	119\.3$' "$TMP/out" || fail "demo: no five-minute bucket of web2"
checks=$((checks + 1))
grep -q '^1 3 6 10 14 18 22 26 30 34$' "$TMP/out" || fail "demo: no sums of seq"
# The same demo under each awk installed as awk (a fresh Debian has mawk alone).
for a in mawk gawk original-awk; do
	command -v "$a" >/dev/null || continue
	mkdir -p "$TMP/$a" && ln -s "$(command -v "$a")" "$TMP/$a/awk"
	PATH=$TMP/$a:$PATH DEMO_DIR=$TMP/demo scripts/demo "$SWAG" > "$TMP/out-$a" 2>&1
	checks=$((checks + 1))
	cmp -s "$TMP/out" "$TMP/out-$a" || fail "demo: another output with $a as awk"
done
finish
