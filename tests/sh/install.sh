# make install honours PREFIX and DESTDIR and installs the man page; uninstall removes both.
. tests/sh/lib.bash

make -s install DESTDIR="$TMP/root" PREFIX=/opt/swag > "$TMP/log" 2>&1
expect_eq "make install status" "$?" 0
checks=$((checks + 1))
[ -x "$TMP/root/opt/swag/bin/swag" ] || fail "no executable $TMP/root/opt/swag/bin/swag"
checks=$((checks + 1))
[ -f "$TMP/root/opt/swag/share/man/man1/swag.1" ] || fail "no man page installed"
expect_eq "installed swag runs" "$(seq 1 3 | "$TMP/root/opt/swag/bin/swag" -w 2 sum | tr '\n' ' ')" "1 3 5 "
if command -v man > /dev/null 2>&1; then
	checks=$((checks + 1))
	MANWIDTH=80 man -l "$TMP/root/opt/swag/share/man/man1/swag.1" 2>&1 | grep -q 'sliding-window' ||
		fail "the installed man page does not render"
fi
make -s uninstall DESTDIR="$TMP/root" PREFIX=/opt/swag > "$TMP/log" 2>&1
checks=$((checks + 1))
[ ! -e "$TMP/root/opt/swag/bin/swag" ] && [ ! -e "$TMP/root/opt/swag/share/man/man1/swag.1" ] ||
	fail "make uninstall left files"
finish
