# No unit test times itself: a Criterion .timeout fails a test that is only slow,
# and make check-valgrind runs the suite ten to fifty times slower than make check
# (distinct's accuracy test took 45 s there against its 60 s limit, its bound test
# 121 s against 120).  Speed is measured by make bench, never by a test.
. "$(dirname "$0")/lib.bash"
cd "$(dirname "$0")/../.." || exit 1

checks=$((checks + 1))
timed=$(grep -n '\.timeout' tests/unit/*.c tests/unit/*.h 2>/dev/null)
[ -z "$timed" ] || fail "unit tests with a time limit: $timed"
finish
