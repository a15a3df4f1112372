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
# At 80 columns no line of the page is wider: an example too long for a terminal
# runs past its edge (the \e continuation lines).  Overstrikes and escapes off,
# a UTF-8 character counted once.
width=$(groff -man -Tutf8 -rLL=80n "$TMP/root/opt/swag/share/man/man1/swag.1" 2> /dev/null |
	sed 's/\x1b\[[0-9;]*m//g; s/.\x08//g' | LC_ALL=C sed 's/[\x80-\xbf]//g' |
	LC_ALL=C awk '{ if (length > m) m = length } END { print m + 0 }')
expect_eq "the widest line of the page at 80 columns" "$((width <= 80 && width > 60))" 1
for product in '1)×q,' 'lo)×(x' '3×2^P'; do
	checks=$((checks + 1))
	grep -qF -- "$product" "$TMP/man.txt" || fail "man page: no '$product' in the rendered text"
done
# A second install while the installed swag runs (tail -f | swag) replaces it; cp over
# a running executable fails with "Text file busy".
mkfifo "$TMP/in" "$TMP/out"
"$TMP/root/opt/swag/bin/swag" -w 2 sum < "$TMP/in" > "$TMP/out" &
running=$!
exec 3> "$TMP/in" 4< "$TMP/out"
echo 1 >&3
read -r -t 10 first <&4	# its first result: it runs
# (--no-print-directory: under make check-sanitize this make is a sub-make.)
make -s --no-print-directory install DESTDIR="$TMP/root" PREFIX=/opt/swag > "$TMP/log" 2>&1
expect_eq "make install over a running swag" "$?:$first:$(cat "$TMP/log")" "0:1:"
exec 3>&- 4<&-
wait "$running"
checks=$((checks + 1))
[ -z "$(find "$TMP/root" -name '.swag*')" ] || fail "make install left its temporary files"
make -s uninstall DESTDIR="$TMP/root" PREFIX=/opt/swag > "$TMP/log" 2>&1
checks=$((checks + 1))
[ ! -e "$TMP/root/opt/swag/bin/swag" ] && [ ! -e "$TMP/root/opt/swag/share/man/man1/swag.1" ] ||
	fail "make uninstall left files"

# Two runs of scripts/install-deps at once (make -j2 check on a new machine runs
# deps and test-deps together) take turns: two apt-get runs at once fail on apt's
# lock.  A stand-in apt-get fails as apt's does when another holds its lock.
mkdir "$TMP/fake"
cat > "$TMP/fake/apt-get" << 'EOF_APT'
#!/bin/sh
mkdir "$APT_LOCK" 2> /dev/null || { echo "E: Could not get lock $APT_LOCK" >&2; exit 100; }
sleep 0.3
echo "apt-get $*" >> "$APT_LOG"
rmdir "$APT_LOCK"
EOF_APT
printf '#!/bin/sh\necho 0\n' > "$TMP/fake/id"
chmod +x "$TMP/fake/apt-get" "$TMP/fake/id"
for i in 1 2; do
	APT_LOCK=$TMP/apt.lock APT_LOG=$TMP/apt.log TMPDIR=$TMP SWAG_DEPS_ROOT=$TMP/none \
		PATH="$TMP/fake:$PATH" scripts/install-deps build > "$TMP/deps$i.log" 2>&1 &
done
wait %1; s1=$?
wait %2; s2=$?
expect_eq "two install-deps at once" "$s1 $s2 $(grep -c install "$TMP/apt.log")" "0 0 2"
checks=$((checks + 1))
grep -q DPkg::Lock::Timeout "$TMP/apt.log" || fail "apt-get does not wait for another's lock"

# fast_float is in the bench set only (bench_numparse's shim), which make bench installs.
for need in build test bench; do
	SWAG_DEPS_ROOT=$TMP/none scripts/install-deps --check $need > /dev/null 2> "$TMP/need-$need"
	case $(grep -c libfast-float-dev "$TMP/need-$need") in 1) got=yes ;; *) got=no ;; esac
	want=no
	[ $need = bench ] && want=yes
	expect_eq "install-deps $need names libfast-float-dev" "$got" "$want"
	# ... and the goal that installs what it names.
	goal="make check or make demo, which install them"
	[ $need = bench ] && goal="make bench, which installs them"
	expect_eq "install-deps $need names the goal" "$(sed -n 2p "$TMP/need-$need" | sed 's/.*or run //')" "$goal"
done
checks=$((checks + 1))
make -n bench 2> /dev/null | grep -q 'install-deps *bench' || fail "make bench does not run install-deps bench"
finish
