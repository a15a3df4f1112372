# CSV through two swags: the output of swag -a -c reads back as CSV, with quoted
# fields intact, and every record keeps its line.
. tests/sh/lib.bash

{
	echo 'name,note,v'
	echo '"Smith, J","said ""hi""",1'
	echo 'ana,"two'
	echo 'lines",2'
	echo ' bob ,plain,3'
	echo '"  padded  ",,4'
} > "$TMP/in.csv"
"$SWAG" -a -c -H -w 2 sum:v < "$TMP/in.csv" | "$SWAG" -a -c -H -w 3 count:name 'sum:sum(v)' > "$TMP/out.csv"
expect_eq "status" "$?" 0
expect_eq "two passes" "$(cat "$TMP/out.csv")" 'name,note,v,sum(v),count(name),sum(sum(v))
"Smith, J","said ""hi""",1,1,1,1
ana,"two
lines",2,3,2,4
bob,plain,3,5,3,9
"  padded  ",,4,7,3,15'
finish
