# Shared by the process-level tests: sourced, not run.  $SWAG is the binary under test.
set -u
SWAG=${SWAG:-./swag}
case $SWAG in /*) ;; *) SWAG=$(pwd)/$SWAG ;; esac
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT
failures=0
checks=0

# An AddressSanitizer build reserves terabytes of address space at start, so it
# cannot run under ulimit -v at all: tests leave their memory-limit checks out.
if grep -qa __asan_init "$SWAG"; then
	asan=true
else
	asan=false
fi

# rss_measured: true when peak_kb measures swag's own memory: not in a sanitizer
# build, whose shadow memory makes RSS no measure of swag's, and with GNU time there
# (its absence is a failed check: scripts/install-deps installs the package time).
rss_measured() {
	if $asan; then
		echo "${0##*/}: AddressSanitizer build: the peak RSS checks are skipped"
		return 1
	fi
	if [ ! -x /usr/bin/time ]; then
		fail "needs /usr/bin/time (Debian package time: scripts/install-deps)"
		return 1
	fi
}

# peak_kb FILE ARGS...: swag's peak RSS in KiB over FILE (GNU time's %M; the tests
# that call it ask rss_measured first).
peak_kb() {
	local file=$1
	shift
	/usr/bin/time -f %M -o "$TMP/rss" "$SWAG" "$@" <"$file" >/dev/null || return 1
	tail -n 1 "$TMP/rss"
}

# fail MESSAGE: records a failed check.
fail() {
	echo "FAIL ${0##*/}: $*"
	failures=$((failures + 1))
}

# expect_eq WHAT GOT WANT
expect_eq() {
	checks=$((checks + 1))
	[ "$2" = "$3" ] || fail "$1: got '$2', expected '$3'"
}

# finish: prints the tally and exits non-zero on any failure.
finish() {
	echo "${0##*/}: $((checks - failures)) passed, $failures failed"
	[ "$failures" = 0 ]
	exit $?
}
