# make demo (scripts/demo) runs every example it shows without an error, and its first
# ones, per-minute buckets and a gzip-compressed file, print what they say.
. tests/sh/lib.bash

DEMO_DIR=$TMP/demo scripts/demo "$SWAG" > "$TMP/out" 2> "$TMP/err"
expect_eq "demo status and standard error" "$?:$(cat "$TMP/err")" "0:"
checks=$((checks + 1))
grep -q '^1764466140	265\.8	60$' "$TMP/out" || fail "demo: no minute of 60 requests"
checks=$((checks + 1))
grep -q '^1764465900	web2	33\.2	420\.4$' "$TMP/out" || fail "demo: no five-minute bucket of web2"
checks=$((checks + 1))
grep -q '^1 3 6 10 14 18 22 26 30 34$' "$TMP/out" || fail "demo: no sums of seq"
finish
