# Differential tests (issue 12): swag against a naive recomputation of every window,
# over random mixes of every option (row and time windows, groups, -s, -a, -H, CSV
# with and without quotes, -C, --na, -m, -p, --strict stops mid-batch...).  The
# tester is tests/diff/differential.c, which make check builds into
# $(BUILD)/differential and names in $SWAG_DIFFERENTIAL; this script builds nothing.
#
#   DIFF_CASES=20000 SWAG=./swag bash tests/sh/differential.sh    # a soak run
#
# Each failure is printed with its seed, command line and first differing line;
# "$SWAG_DIFFERENTIAL --seed N --keep DIR" writes that case's input and outputs.
. tests/sh/lib.bash

tester=${SWAG_DIFFERENTIAL:-}
if [ -z "$tester" ]; then
	# Run by hand: the default build's tester, when it was built.
	if [ ! -x build/differential ]; then
		echo "differential.sh: skipped: build/differential is not built (make build/differential)"
		exit 0
	fi
	tester=build/differential
fi
if [ ! -x "$tester" ]; then
	echo "FAIL differential.sh: the tester $tester is not built"
	exit 1
fi
SWAG=$SWAG TMPDIR=$TMP "$tester"
