/*
 * agg_twostack.c: agg.c with "min" and "max" naming agg_monoid.c's two-stack kinds
 * instead of agg_minmax.c's deque.  Linked in place of agg.o, it makes the benchmark's
 * second swag (make BUILD/swag-twostack), which scripts/bench times beside the first.
 */
#include "agg.h"

#undef agg_min
#undef agg_max
#define agg_min agg_min_twostack
#define agg_max agg_max_twostack

#include "agg.c"
