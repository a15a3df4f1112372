# make install honours PREFIX and DESTDIR and installs the man page; uninstall removes both.
. tests/sh/lib.bash

make -s install DESTDIR="$TMP/root" PREFIX=/opt/swag > "$TMP/log" 2>&1
expect_eq "make install status" "$?" 0
checks=$((checks + 1))
[ -x "$TMP/root/opt/swag/bin/swag" ] || fail "no executable $TMP/root/opt/swag/bin/swag"
checks=$((checks + 1))
[ -f "$TMP/root/opt/swag/share/man/man1/swag.1" ] || fail "no man page installed"
expect_eq "installed swag runs" "$(seq 1 3 | "$TMP/root/opt/swag/bin/swag" -w 2 sum | tr '\n' ' ')" "1 3 5 "
# The installed man page renders (groff, from scripts/install-deps) without a warning,
# and its multiplication signs are signs (\(mul once rendered as "×l").
groff -man -Tutf8 -ww "$TMP/root/opt/swag/share/man/man1/swag.1" > "$TMP/man.txt" 2> "$TMP/man.err"
expect_eq "man page renders without warnings" "$?:$(cat "$TMP/man.err")" "0:"
checks=$((checks + 1))
grep -q 'sliding-window' "$TMP/man.txt" || fail "the installed man page does not render"
for product in '1)×q,' 'lo)×(x' '2×2^P'; do
	checks=$((checks + 1))
	grep -qF -- "$product" "$TMP/man.txt" || fail "man page: no '$product' in the rendered text"
done
make -s uninstall DESTDIR="$TMP/root" PREFIX=/opt/swag > "$TMP/log" 2>&1
checks=$((checks + 1))
[ ! -e "$TMP/root/opt/swag/bin/swag" ] && [ ! -e "$TMP/root/opt/swag/share/man/man1/swag.1" ] ||
	fail "make uninstall left files"
finish
