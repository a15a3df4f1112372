# -g over many keys, each record a new one: every record gets its result, a key of row
# windows costs at most 1,000 bytes (peak RSS), and the end of the run leaves the keys'
# windows to the process's exit instead of freeing them one block at a time, which at
# 1.6 million keys held the end of the output 2.8 s behind the last result.  The frees
# are counted by a library preloaded before libc's.
. "$(dirname "$0")/lib.bash"

awk 'BEGIN { for (i = 0; i < 20000; i++) print "k" i, i % 100 }' >"$TMP/keys"
"$SWAG" -g 1 -w 10 avg:2 count:2 <"$TMP/keys" >"$TMP/got"
expect_eq "20,000 keys: status" "$?" 0
checks=$((checks + 1))
awk -v OFS='\t' '{ print $1, $2, 1 }' "$TMP/keys" | cmp -s - "$TMP/got" ||
	fail "20,000 keys: results differ from each key's one value"

# The growth of peak RSS from 20,000 keys to 200,000, a key: 905 bytes for -g 1 -w 10
# avg:2 (the key table's slots, the group with its key, its one window and ring).  A key
# that kept an unused ring of timestamps and its text in a block of its own costs 1,082:
# the check can fail.  (The key table has finished growing at both counts.)
if rss_measured; then
	awk 'BEGIN { for (i = 0; i < 200000; i++) print "k" i, i % 100 }' >"$TMP/more-keys"
	small=$(peak_kb "$TMP/keys" -g 1 -w 10 avg:2)
	large=$(peak_kb "$TMP/more-keys" -g 1 -w 10 avg:2)
	checks=$((checks + 1))
	if [ -z "$small" ] || [ -z "$large" ]; then
		fail "peak RSS not measured ('$small', '$large')"
	elif [ $(((large - small) * 1024 / 180000)) -gt 1000 ]; then
		fail "a key costs $(((large - small) * 1024 / 180000)) bytes (at most 1,000)"
	fi
fi

# An AddressSanitizer build replaces free itself: a library preloaded before it would
# not see the sanitizer's free, and the sanitizer refuses to start after it.
if $asan; then
	echo "many-keys.sh: AddressSanitizer build: the count of frees is skipped"
else
	cat >"$TMP/countfree.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>

/* glibc's own free, which every free but this one reaches. */
extern void __libc_free(void *p);

static unsigned long frees;

void
free(void *p)
{
	frees += p != NULL;
	__libc_free(p);
}

/* At the exit: the frees of blocks, into $COUNT_FREE_FILE. */
__attribute__((destructor)) static void
report(void)
{
	const char *name = getenv("COUNT_FREE_FILE");
	FILE *f = name != NULL ? fopen(name, "w") : NULL;

	if (f != NULL) {
		fprintf(f, "%lu\n", frees);
		fclose(f);
	}
}
EOF
	${CC:-cc} -shared -fPIC -O2 -o "$TMP/countfree.so" "$TMP/countfree.c" ||
		fail "the free-counting library does not build"
	# The library counts: a run without -g over the same records frees its few blocks.
	COUNT_FREE_FILE=$TMP/frees LD_PRELOAD=$TMP/countfree.so \
		"$SWAG" -w 10 avg:2 <"$TMP/keys" >/dev/null
	expect_eq "without -g: status" "$?" 0
	single=$(cat "$TMP/frees" 2>/dev/null)
	checks=$((checks + 1))
	[ -n "$single" ] && [ "$single" -gt 0 ] ||
		fail "the library counted no frees ('$single')"
	COUNT_FREE_FILE=$TMP/frees LD_PRELOAD=$TMP/countfree.so \
		"$SWAG" -g 1 -w 10 avg:2 count:2 <"$TMP/keys" >/dev/null
	expect_eq "20,000 keys, counted: status" "$?" 0
	keyed=$(cat "$TMP/frees" 2>/dev/null)
	# Each key holds four blocks (its group with its key, its list of windows, its
	# window and its ring): freed at the end, 80,000 frees.
	checks=$((checks + 1))
	[ -n "$keyed" ] && [ "$keyed" -le $((single + 100)) ] ||
		fail "20,000 keys: $keyed frees at the end, $single without -g"
fi

finish
