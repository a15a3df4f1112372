/*
 * agg_distinct.c: distinct, the number of different fields in the window.
 *
 * A field is identified by its exact text ("1" and "1.0" are two values) through two
 * 64-bit hashes.  The sketch takes XXH3's with a fixed seed, so that the same input
 * always gives the same estimate.  The exact count takes the other, its identity,
 * seeded per run: with a known seed, XXH3-64 lets texts be made to share a hash (for
 * 17 to 128 bytes, 8 bytes that cancel the secret zero a product, and the 8 beside
 * them no longer count), and 2^64 of them would count as one.  With a seed nobody
 * knows (hash.h's short-key hash of up to 16 bytes, XXH3 beyond), two texts share an
 * identity with probability about w²/2^65 over a window of w values.  (The sketch's
 * fixed hash can be fooled the same way: the page says so.)
 *
 * Every record takes a slot of a ring (ring.h), like the two-stack engine's: the slot
 * keeps the value's two hashes (16 bytes), a "missing" flag and, on the front stack,
 * an undo record (two bytes, see struct ring_slot).  Over the slots sit two
 * structures:
 *
 * - Exact: a multiset of the identities (hashtable.h's table, identity -> count),
 *   whose number of keys is the result while the window holds at most 2^P/8
 *   values.  It is kept up to date while the window holds at most 2^P/4 values and
 *   it has taken fewer than 2^P/8 pushes past 2^P/8 (table_drops), dropped then, and
 *   rebuilt from the ring when the window falls back to 2^P/8 values, a walk that
 *   steps over the runs of missing fields (struct ring_slot): at most 2^P/4 + 1 slots,
 *   however large the window.  Rebuilds (2^P/8 insertions) thus come at most once per
 *   2^P/8 pushes, and a window that stays past 2^P/8 values (a row window of 1,000 at
 *   P = 12) soon keeps the sketch alone.
 *
 * - Estimate: a HyperLogLog sketch of 2^P registers on the two-stack scheme, whose
 *   combine is the register-wise max.  The generic engine (twostack.h) would keep one
 *   whole sketch per element; here the stacks are kept as follows:
 *
 *       oldest                                                       newest
 *       [head ........... mid)[mid ............................... tail)
 *        front stack: undo i    back stack: the slots' hashes; back is
 *        undoes x_i on front    the sketch of x_mid .. x_tail-1
 *
 *   front is the sketch of x_head .. x_mid-1.  The cumulative sketches of the front
 *   stack, F_i = sketch(x_i .. x_mid-1), differ from one to the next in at most one
 *   register, the one x_i raised (its hash's); so slot i records that register's
 *   value in F_i+1, and popping x_head restores F_head+1 in O(1).  The back becomes
 *   front by a rotation (rotation_work), a few slots a push and a pop, before the
 *   front runs empty, with a third sketch: no operation walks more than a constant of
 *   P, where a flip of the whole back in the pop that found the front empty walked a
 *   million slots in one record at -w 1000000.  Each element is folded in about
 *   2.2 times (push, rotation, and 1/7 of the elements a third time, when they are
 *   the front left under a rotation) and undone once: O(1) in every operation.
 *
 *   The window's sketch is max(front[i], back[i]), never stored: what the estimator
 *   needs is the histogram of its register values, and a change to one register of
 *   either side changes one register of the max, so the histogram (and the exact
 *   fixed-point sum Σ 2^(q-v) over it) is updated in O(1) as front or back changes.
 *   A rotation leaves the max as it was at each of its steps, so it touches no
 *   histogram.  The estimate is recomputed only when the histogram has changed since
 *   the last one, in O(64-P) steps, never O(2^P).
 *
 *   The estimator is Ertl's improved estimator ("New cardinality estimation
 *   algorithms for HyperLogLog sketches", 2017, algorithm 6): it needs only the
 *   histogram, and has no bias bump where HLL's classic form hands over from linear
 *   counting to the raw estimate.  Its relative standard error is about
 *   1.04/sqrt(2^P) at every size; tests/unit/test_distinct.c measures it.
 *
 *   The sketches are allocated the first time the window holds more than 2^P/8
 *   values and kept from then on, so a small window (say, one per group) never pays
 *   for 2^P-byte registers.
 *
 * Memory: 20 bytes per slot, 3·2^P bytes of registers (front, back and the
 * rotation's spare), and a table of 12 bytes per entry sized for at most 2^P/4 keys
 * (at most 6·2^P bytes; the cumulative window's, 20 and 10·2^P).  A row window's ring holds exactly its slots (ring.h): peak
 * RSS grows by 20.0 to 20.1 bytes a slot from window 1,000 to 100,000, 1,000,000 and
 * 10,000,000.
 *
 * Measured by tests/bench/bench_distinct.c (2 million IPv4-like fields, a step being
 * push, pop and result; the 2-core AMD EPYC VM, one core busy, so ±10%), P = 12, with
 * the sketch's hash alone (12-byte slots): 64 ns per step at window 10 (exact: table
 * only), 74 ns at window 1,000 (the sketch alone once the table has taken 2^P/8
 * pushes past 2^P/8 values; the estimate changes nearly every step), 52 ns at window
 * 100,000 (sketch only; the estimate is recomputed only when a register of the max
 * changes).  P = 16: 65 / 90 / 90 ns (window 1,000 is exact there).  swag -w W
 * distinct over 200,000 of them, callgrind, with the identities: 436.1, 534.6 and
 * 401.4 instructions a record at P = 12.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "agg_distinct.h"
#include "counters.h"
#include "hash.h"
#include "hashtable.h"
#include "mem.h"
#include "ring.h"

/*
 * A front-stack slot keeps its undo record in one of two bytes (undo[undo_field]):
 * UNDO_CHANGED says that folding the slot's value in raised its register (the hash's,
 * register_index) from (undo & UNDO_VALUE_MASK), which pop restores.  The other byte
 * takes the record of the front that a rotation builds (see rotation_work), while
 * pops still read the first.  Back-stack slots hold no record.
 */
#define UNDO_CHANGED	64
#define UNDO_VALUE_MASK	63

/*
 * The units of a rotation's work that a push or a pop does (see rotation_work): a
 * unit is a slot walked or folded, or CLEAR_UNIT bytes of a sketch cleared.  A
 * rotation starts when the back holds ROTATION_RATIO times the front.
 */
#define ROTATION_STEP	16
#define ROTATION_RATIO	7
#define CLEAR_UNIT	64

/* Where the rotation of the stacks stands (see rotation_work). */
enum rotation {
	ROTATION_CLEAN,		/* spare all zeros: a rotation may start */
	ROTATION_DIRTY,		/* spare being cleared */
	ROTATION_WALK,		/* [walk, cut) folded into spare, the next front */
	ROTATION_CLEAR,		/* the new front in place; spare, the old front, being cleared */
	ROTATION_FOLD		/* [cut, fold) folded into spare, the next back */
};

/* α∞ = 1 / (2 ln 2), the constant of the estimator's limit form. */
#define ALPHA_INFINITY 0.72134752044448170368

/* The values of σ a window keeps (a power of two; see struct distinct_window). */
#define SIGMA_CACHE 8

/*
 * A slot of the ring: the field's hash and identity, each kept as two 32-bit halves
 * so that a slot takes 20 bytes, not 24 (load_hash, store_hash), its undo records,
 * and whether the record had no value.
 *
 * The slots of missing fields come in runs, and the walks that visit every value
 * (sketch_start, multiset_rebuild) step over a run at once: the oldest slot of a run
 * still in the ring has skip set and, in place of a hash, the position of the slot
 * after the run, once a value has ended it.  A pop of that slot hands both to the
 * next slot of the run; the run at the tail, which no value has ended yet, starts at
 * gap_start.  A walk then visits at most twice the values, plus one, however many
 * missing fields lie between them: a window of a million slots with 2^P/8 values
 * among them costs a rebuild 2^P/4 + 1 slots, not a million.
 */
struct ring_slot {
	uint32_t hash[2];	/* the sketch's (agg_distinct_hash) */
	uint32_t id[2];		/* the exact count's, seeded per run */
	uint8_t undo[2];
	bool missing;
	bool skip;		/* missing, and hash holds the position the run ends at */
};

/* gap_start when the newest slot holds a value (or the ring is empty). */
#define NO_GAP UINT64_MAX

/* A slot of the exact table: an identity (two halves, as above) and its count, 0 when free. */
struct multiset_slot {
	uint32_t key[2];
	uint32_t count;
};

/*
 * The cumulative window's slot: the same, and the value's hash beside it, which its
 * sketch takes when the table is given up (a window's sketch takes the ring's).
 */
struct multiset_all_slot {
	struct multiset_slot entry;
	uint32_t hash[2];
};

struct distinct_window {
	struct agg header;
	unsigned p;			/* 2^p registers */
	unsigned q;			/* 64 - p: hash bits left for a register's value */
	uint64_t exact_limit;		/* 2^p/8: exact at or below this many values */
	uint64_t table_limit;		/* 2^p/4: the multiset is dropped above it */
	uint64_t unused_pushes;		/* pushes past 2^p/8 values since the table was made */

	struct ring ring;		/* a ring_slot per record: front, then back stack */
	uint64_t mid;			/* the first position of the back stack */
	uint64_t values;		/* slots with a value */
	uint64_t gap_start;		/* the oldest slot of the tail's run of missing fields */

	struct hashtable table;		/* the multiset: multiset_slots, seeded per run */
	uint64_t id_seed;		/* the identities' seed, the run's */
	struct hash_words_seed id_words;	/* ... made into hash_words' keys */
	bool table_valid;		/* it holds exactly the window's hashes */

	uint8_t *registers;		/* the three sketches' block, NULL until they are needed */
	uint8_t *front;			/* the front stack's sketch, NULL with registers */
	uint8_t *back;			/* the back stack's */
	uint8_t *spare;			/* what a rotation builds (see rotation_work) */
	unsigned undo_field;		/* 0 or 1: the front slots' undo byte */
	enum rotation rotation;
	size_t cleared;			/* bytes of spare cleared (ROTATION_DIRTY, _CLEAR) */
	uint64_t cut;			/* the back's start when the rotation began */
	uint64_t walk;			/* ROTATION_WALK: the oldest slot folded */
	uint64_t fold;			/* ROTATION_FOLD: the next slot to fold */
	uint64_t covered;		/* ROTATION_CLEAR, _FOLD: the first slot back covers */
	int64_t until;			/* see rotation_work */
	uint64_t deadline;
	uint32_t histogram[AGG_DISTINCT_HISTOGRAM_SIZE];
	uint64_t harmonic;		/* Σ over values 1..q of histogram[v]·2^(q-v) */
	double estimate;		/* from the histogram, when !estimate_stale */
	bool estimate_stale;
	/*
	 * σ(zeros / 2^P) for the last few counts of zero registers, at sigma[zeros %
	 * SIGMA_CACHE] (sigma_zeros UINT32_MAX: none yet).  A step changes one register,
	 * so the count of zeros walks by one at a time and comes back to the values it
	 * just left.  Where the estimate changes nearly every step (-w 1000), σ's series
	 * is about half of its work.
	 */
	uint32_t sigma_zeros[SIGMA_CACHE];
	double sigma[SIGMA_CACHE];
};

#ifdef SWAG_TEST_COUNTERS
/* See struct distinct_counters (agg_distinct.h). */
static struct distinct_counters counters;
#endif

/* The 64-bit hash kept in halves[0..1]. */
static inline uint64_t
load_hash(const uint32_t halves[2])
{
	uint64_t hash;

	memcpy(&hash, halves, sizeof(hash));
	return hash;
}

static inline void
store_hash(uint32_t halves[2], uint64_t hash)
{
	memcpy(halves, &hash, sizeof(hash));
}

/* See agg_distinct.h.  A thin wrapper, so that tests and callers hash as the window does. */
uint64_t
agg_distinct_hash(const char *text, size_t len)
{
	return hash_bytes(text, len, AGG_DISTINCT_SEED);
}

/*
 * The identity of text[0..len), seeded per run: hash.h's hash of a short key's words
 * for most fields (swag -w 1000 distinct pays 21 instructions a record for the
 * identities, where XXH3 took 33), XXH3 for a longer one.
 */
static inline uint64_t
value_identity(const struct distinct_window *w, const char *text, size_t len)
{
	uint64_t a, b;

	if (len > HASH_WORDS_MAX)
		return hash_bytes(text, len, w->id_seed);
	hash_key_words(text, len, &a, &b);
	return hash_words(&w->id_words, a, b, len);
}

/* The register that hash goes to: its top p bits, 0 .. 2^p-1. */
static inline uint32_t
register_index(uint64_t hash, unsigned p)
{
	return (uint32_t)(hash >> (64 - p));
}

/*
 * The value: one more than the leading zeros of the q = 64-p bits below the index,
 * q+1 when they are all zero.
 */
static inline unsigned
register_value(uint64_t hash, unsigned p)
{
	/* Bit p - 1 stands for the q bits all zero: below them, it counts only then. */
	return (unsigned)__builtin_clzll(hash << p | (uint64_t)1 << (p - 1)) + 1;
}

/*
 * Ertl's σ(x) = x + Σ_k≥1 x^(2^k)·2^(k-1), the linear-counting part of the estimator
 * for the share x of registers still zero; infinite at x = 1.
 */
static double
ertl_sigma(double x)
{
	double y = 1.0, z = x, previous;

	if (x == 1.0)
		return INFINITY;
	do {
		x *= x;
		previous = z;
		z += x * y;
		y += y;
	} while (z != previous);
	return z;
}

/* Ertl's τ(x), the correction for the share 1-x of registers at their maximum q+1. */
static double
ertl_tau(double x)
{
	double y = 1.0, z = 1.0 - x, previous;

	if (x == 0.0 || x == 1.0)
		return 0.0;
	do {
		x = sqrt(x);
		previous = z;
		y *= 0.5;
		z -= (1.0 - x) * (1.0 - x) * y;
	} while (z != previous);
	return z / 3.0;
}

/*
 * Ertl's improved estimate from a histogram and its sum harmonic = Σ_1≤v≤q C[v]·2^(q-v).
 * His algorithm folds C[q] .. C[1] in by halving; the exact integer sum is the same
 * number without rounding, and can be kept up to date one register at a time.
 */
static double
ertl_estimate_with(const uint32_t *histogram, uint64_t harmonic, unsigned p, double sigma)
{
	double m = (double)((uint64_t)1 << p);
	unsigned q = 64 - p;
	/* 2^-q made from its bits: ldexp() is a library call, and this runs per step. */
	union {
		uint64_t bits;
		double value;
	} scale = { (uint64_t)(1023 - q) << 52 };
	double z, saturated = 0.0;

	if (histogram[0] == (uint32_t)1 << p)
		return 0.0;
	if (histogram[q + 1] != 0)
		saturated = m * ertl_tau(1.0 - histogram[q + 1] / m);
	z = ((double)harmonic + saturated) * scale.value + m * sigma;
	return ALPHA_INFINITY * m * m / z;
}

/* The estimate of ertl_estimate_with, σ worked out for the histogram's zeros. */
static double
ertl_estimate(const uint32_t *histogram, uint64_t harmonic, unsigned p)
{
	return ertl_estimate_with(histogram, harmonic, p,
	    ertl_sigma(histogram[0] / (double)((uint64_t)1 << p)));
}

/* What a register holding value adds to the harmonic sum. */
static inline uint64_t
harmonic_weight(unsigned value, unsigned q)
{
	return value >= 1 && value <= q ? (uint64_t)1 << (q - value) : 0;
}

/* See agg_distinct.h: the harmonic sum is made from the histogram, then as in a window. */
double
agg_distinct_estimate(const uint32_t histogram[AGG_DISTINCT_HISTOGRAM_SIZE], unsigned p)
{
	unsigned q = 64 - p;
	uint64_t harmonic = 0;

	for (unsigned value = 1; value <= q; value++)
		harmonic += (uint64_t)histogram[value] << (q - value);
	return ertl_estimate(histogram, harmonic, p);
}

/* One register of the window's sketch max(front, back) went from one value to another. */
static inline void
combined_register_moved(struct distinct_window *w, unsigned from, unsigned to)
{
	if (from == to)
		return;
	w->histogram[from]--;
	w->histogram[to]++;
	/* Unsigned wrap-around is harmless: the true sum always fits in 64 bits. */
	w->harmonic += harmonic_weight(to, w->q) - harmonic_weight(from, w->q);
	w->estimate_stale = true;
}

/* The larger of two register values. */
static inline unsigned
max_value(unsigned a, unsigned b)
{
	return a > b ? a : b;
}

/* Folds a value with this hash into the back sketch (a push). */
static inline void
sketch_push(struct distinct_window *w, uint64_t hash)
{
	uint32_t index = register_index(hash, w->p);
	unsigned value = register_value(hash, w->p);
	unsigned back = w->back[index];

	if (value <= back)
		return;
	combined_register_moved(w, max_value(w->front[index], back),
	    max_value(w->front[index], value));
	w->back[index] = (uint8_t)value;
}

/*
 * Walks up to units slots more of a rotation's first step, from w->walk - 1 down to
 * head: folds each slot's value into spare, the front the rotation builds, and records
 * in the slot's other field the register's value before, which a pop of the built
 * front restores.  Returns the units left.  The window's fields are read into locals
 * first: every byte stored to spare could alias them.
 */
static size_t
rotation_walk(struct distinct_window *w, size_t units)
{
	const struct ring ring = w->ring;
	uint8_t *spare = w->spare;
	unsigned p = w->p, next = w->undo_field ^ 1;
	uint64_t walk = w->walk;

	for (; units > 0 && walk > ring.head; units--) {
		struct ring_slot *slot = RING_AT(&ring, struct ring_slot, --walk);
		uint64_t hash = load_hash(slot->hash);
		uint32_t index = register_index(hash, p);
		unsigned value = register_value(hash, p), undo = 0;

		TEST_COUNT(counters.slots_walked, 1);
		if (!slot->missing && value > spare[index]) {
			undo = UNDO_CHANGED | spare[index];
			spare[index] = (uint8_t)value;
		}
		slot->undo[next] = (uint8_t)undo;
	}
	w->walk = walk;
	return units;
}

/*
 * Folds up to units slots more of a rotation's third step, from w->fold up to tail,
 * into spare, the back the rotation builds.  Returns the units left.
 */
static size_t
rotation_fold(struct distinct_window *w, size_t units)
{
	const struct ring ring = w->ring;
	uint8_t *spare = w->spare;
	unsigned p = w->p;
	uint64_t fold = w->fold;

	for (; units > 0 && fold < ring.tail; units--) {
		const struct ring_slot *slot = RING_AT(&ring, struct ring_slot, fold++);
		uint64_t hash = load_hash(slot->hash);
		uint32_t index = register_index(hash, p);
		unsigned value = register_value(hash, p);

		TEST_COUNT(counters.slots_walked, 1);
		if (!slot->missing && value > spare[index])
			spare[index] = (uint8_t)value;
	}
	w->fold = fold;
	return units;
}

/*
 * Clears up to units * CLEAR_UNIT bytes more of spare.  Returns the units left, and
 * whether spare is now all zeros in *done.
 */
static inline size_t
rotation_clear(struct distinct_window *w, size_t units, bool *done)
{
	size_t size = (size_t)1 << w->p, n = size - w->cleared;

	if (n > units * CLEAR_UNIT)
		n = units * CLEAR_UNIT;
	memset(w->spare + w->cleared, 0, n);
	TEST_COUNT_BYTES(counters.bytes_cleared, n);
	w->cleared += n;
	*done = w->cleared == size;
	return units - (n + CLEAR_UNIT - 1) / CLEAR_UNIT;
}

/*
 * Does up to units of the rotation's work, stopping when the spare is clean.
 *
 * The flip of a two-stack folds the whole back into the front at once, when the front
 * runs empty: a million slots in one pop at -w 1000000.  A rotation does it a few
 * slots a push and a pop instead, before the front runs empty, with one more sketch,
 * spare, in the manner of Hood and Melville's real-time queue: when the back holds
 * ROTATION_RATIO times the front (the slots [mid, tail) and [head, mid)), the
 * rotation starts with cut = tail and
 *
 *   1. walks the slots from cut - 1 down to head (which pops move up), folding each
 *      into spare and recording its undo in the word's other field, while pops still
 *      undo front with the first field and pushes still go to back: when the walk
 *      meets head, spare is the sketch of [head, cut) with every undo record, and
 *      becomes the front (its slots' field the other one, mid = cut), the old front
 *      the spare.  back, the sketch of [covered, tail) with covered the old mid, still
 *      counts [covered, cut) twice, harmlessly while those slots are all in the
 *      window: the window's sketch max(front, back) stays exact while head <= covered;
 *   2. clears spare (skipped when the old front had run empty: then all zeros);
 *   3. folds [cut, tail) into spare, catching up with the pushes, and then spare,
 *      the sketch of [cut, tail), becomes back: max(front, back) is the same registers
 *      as before, front covering [covered, cut), so no histogram changes;
 *   4. clears the old back, the spare, for the next rotation.
 *
 * With C = 2^P / 64 units to clear a sketch, a step of ROTATION_STEP = 16 units on
 * every push and pop finishes steps 1 to 3 before head reaches covered whenever the
 * front held f >= 3C/16 slots at the start: the walk is at most (1 + 7) f slots and
 * C/2 more (the back's growth while step 4 delays a start), the fold one slot per
 * push, and f pops and the pushes bring 16 units each.  A pop that finds the front
 * empty or head at covered finishes the rotation at once (rotation_finish), which
 * happens only with a smaller front and then walks and clears at most about 5C
 * units: every operation's work is bounded by a constant of P, whatever the window
 * (test_distinct counts it).  The window's sketch is always max(front, back), its
 * registers those of the window, so the histogram and the estimate are exactly the
 * flip's.
 *
 * Why 7 and 16: the front left under a rotation is walked again, a share 1/(1 + 7)
 * of each walk, so a larger ratio walks less (1.14 slots a record in a row window,
 * against 1.33 at a ratio of 3), and the step must exceed the ratio by a margin for
 * the walk to finish in time.  Callgrind, -w 100000 and -w 1000 distinct over make
 * bench's ips.txt: the flip 370.7 and 679.3 instructions a record; ratio 3, step 8:
 * 414.5 and 717.9; 7 and 16: 389.6 and 703.7; 15 and 24: 400.2 and 699.2.
 */
static void
rotation_advance(struct distinct_window *w, size_t units)
{
	bool done;

	if (w->rotation == ROTATION_CLEAN) {
		uint64_t front = w->mid - w->ring.head, back = w->ring.tail - w->mid;

		if (back == 0 || back < ROTATION_RATIO * front)
			return;
		w->rotation = ROTATION_WALK;
		w->cut = w->walk = w->ring.tail;
	}
	for (;;) {
		switch (w->rotation) {
		case ROTATION_CLEAN:
			return;
		case ROTATION_DIRTY:
			units = rotation_clear(w, units, &done);
			if (done)
				w->rotation = ROTATION_CLEAN;
			else
				return;
			break;
		case ROTATION_WALK:
			units = rotation_walk(w, units);
			if (w->walk > w->ring.head)
				return;
			/* The old front's sketch is all zeros when all of it has left. */
			done = w->ring.head == w->mid;
			w->covered = w->mid;
			w->mid = w->cut;
			w->undo_field ^= 1;
			{
				uint8_t *front = w->front;

				w->front = w->spare;
				w->spare = front;
			}
			w->cleared = 0;
			w->rotation = ROTATION_CLEAR;
			if (done) {
				w->rotation = ROTATION_FOLD;
				w->fold = w->cut;
			}
			break;
		case ROTATION_CLEAR:
			units = rotation_clear(w, units, &done);
			if (!done)
				return;
			w->rotation = ROTATION_FOLD;
			w->fold = w->cut;
			break;
		case ROTATION_FOLD:
			units = rotation_fold(w, units);
			if (w->fold < w->ring.tail)
				return;
			{
				uint8_t *back = w->back;

				w->back = w->spare;
				w->spare = back;
			}
			w->cleared = 0;
			w->rotation = ROTATION_DIRTY;
			break;
		}
	}
}

/*
 * rotation_advance, then what the hot paths check: until, the pushes (or pops, which
 * count ROTATION_RATIO each) that can pass before a rotation could start, 0 while one
 * is under way; deadline, the slot whose pop must first call rotation_finish.
 */
static __attribute__((noinline)) void
rotation_work(struct distinct_window *w, size_t units)
{
	rotation_advance(w, units);
	w->until = 0;
	if (w->rotation == ROTATION_CLEAN)
		w->until = (int64_t)(ROTATION_RATIO * (w->mid - w->ring.head)) -
		    (int64_t)(w->ring.tail - w->mid);
	w->deadline = w->rotation == ROTATION_CLEAR || w->rotation == ROTATION_FOLD ?
	    w->covered : w->mid;
}

/*
 * Finishes what must be done before the pop of the slot at head: a front run empty
 * gets the whole back (a rotation done at once, as a flip), and a back that covers
 * the slot head is replaced (steps 2 and 3 of rotation_work done at once).
 */
static __attribute__((noinline)) void
rotation_finish(struct distinct_window *w)
{
	while (w->ring.head == w->mid || ((w->rotation == ROTATION_CLEAR ||
	    w->rotation == ROTATION_FOLD) && w->ring.head == w->covered))
		rotation_work(w, SIZE_MAX / CLEAR_UNIT);
}

/* Undoes what the front's top (oldest) slot did to front. */
static inline void
sketch_pop(struct distinct_window *w, const struct ring_slot *slot)
{
	unsigned undo = slot->undo[w->undo_field], previous, back;
	uint32_t index;

	if (!(undo & UNDO_CHANGED))
		return;
	index = register_index(load_hash(slot->hash), w->p);
	previous = undo & UNDO_VALUE_MASK;
	back = w->back[index];
	combined_register_moved(w, max_value(w->front[index], back), max_value(previous, back));
	w->front[index] = (uint8_t)previous;
}

/*
 * The position of the first slot with a value from pos on, the oldest slot still in
 * the ring of its run when it is missing (see struct ring_slot), or tail when none is:
 * one slot looked at.
 */
static inline uint64_t
first_value(struct distinct_window *w, uint64_t pos)
{
	const struct ring_slot *slot;

	if (pos == w->ring.tail)
		return pos;
	slot = RING_AT(&w->ring, struct ring_slot, pos);
	TEST_COUNT(counters.slots_walked, 1);
	if (!slot->missing)
		return pos;
	return slot->skip ? load_hash(slot->hash) : w->ring.tail;
}

/* The position of the first slot with a value after pos, which holds one, or tail. */
static inline uint64_t
next_value(struct distinct_window *w, uint64_t pos)
{
	return first_value(w, pos + 1);
}

/*
 * Allocates the sketches and fills them with the window's values, all on the back
 * stack.  Returns 0, or -1 when memory is short (the window is then unchanged).
 */
static int
sketch_start(struct distinct_window *w)
{
	size_t registers = (size_t)1 << w->p;
	uint8_t *block = mem_realloc(NULL, 3 * registers);

	if (block == NULL)
		return -1;
	memset(block, 0, 3 * registers);
	TEST_COUNT_BYTES(counters.bytes_cleared, 3 * registers);
	w->registers = block;
	w->front = block;
	w->back = block + registers;
	w->spare = block + 2 * registers;
	w->rotation = ROTATION_CLEAN;
	w->undo_field = 0;
	memset(w->histogram, 0, sizeof(w->histogram));
	w->histogram[0] = (uint32_t)registers;
	w->harmonic = 0;
	w->estimate_stale = true;
	w->mid = w->deadline = w->ring.head;
	w->until = 0;
	for (uint64_t pos = first_value(w, w->ring.head); pos != w->ring.tail;
	    pos = next_value(w, pos))
		sketch_push(w, load_hash(RING_AT(&w->ring, struct ring_slot, pos)->hash));
	return 0;
}

/* The exact table's slots, for hashtable.h. */
HASHTABLE_INLINE bool
multiset_occupied(const void *slot)
{
	return ((const struct multiset_slot *)slot)->count != 0;
}

HASHTABLE_INLINE uint64_t
multiset_hash(const struct hashtable *table, const void *slot)
{
	const struct multiset_slot *s = slot;

	return hashtable_hash_u64(table, load_hash(s->key));
}

/* Whether the slot holds the hash *key. */
HASHTABLE_INLINE bool
multiset_matches(const void *slot, const void *key)
{
	const struct multiset_slot *s = slot;

	return load_hash(s->key) == *(const uint64_t *)key;
}

/* Grown at once (false): at most 2^P/8 keys, and lookups that search one table only. */
static const struct hashtable_ops multiset_ops = { sizeof(struct multiset_slot),
    multiset_occupied, multiset_hash, false, false };
/* The cumulative window's: the functions read the entry at the slot's start. */
static const struct hashtable_ops multiset_all_ops = { sizeof(struct multiset_all_slot),
    multiset_occupied, multiset_hash, false, false };

/* Counts one more of key; the table must have room for one more key. */
static void
multiset_add(struct hashtable *table, uint64_t key)
{
	struct multiset_slot *slot;
	size_t index;

	if (hashtable_find(table, &multiset_ops, hashtable_hash_u64(table, key),
	    multiset_matches, &key, &index)) {
		slot = hashtable_slot(table, sizeof(*slot), index);
	} else {
		slot = hashtable_claim(table, sizeof(*slot), index);
		store_hash(slot->key, key);
	}
	slot->count++;
}

/* Takes one of key out; key must be in the table.  Its last one frees its slot. */
static void
multiset_remove(struct hashtable *table, uint64_t key)
{
	struct multiset_slot *slot;
	size_t index;

	(void)hashtable_find(table, &multiset_ops, hashtable_hash_u64(table, key),
	    multiset_matches, &key, &index);
	slot = hashtable_slot(table, sizeof(*slot), index);
	if (--slot->count == 0)
		hashtable_remove(table, &multiset_ops, index);
}

/*
 * Whether the push that leaves the window with values values drops the table: past
 * 2^P/4 values, or past 2^P/8 once the table has taken 2^P/8 pushes that left more
 * than 2^P/8 since it was made or rebuilt (a window that stays above 2^P/8 values
 * pays for no table it does not use, and a rebuild's 2^P/8 insertions come at most
 * once per 2^P/8 pushes).
 */
static inline bool
table_drops(const struct distinct_window *w, uint64_t values)
{
	return values > w->exact_limit &&
	    (values > w->table_limit || w->unused_pushes >= w->exact_limit);
}

/*
 * Refills the table with the window's hashes, after it was dropped.  The table kept
 * room for exact_limit keys when it was dropped, and the window holds no more values
 * than that now, so this allocates nothing and cannot fail: pop has no way to report
 * a failure.
 */
static void
multiset_rebuild(struct distinct_window *w)
{
	hashtable_clear(&w->table, sizeof(struct multiset_slot));
	for (uint64_t pos = first_value(w, w->ring.head); pos != w->ring.tail;
	    pos = next_value(w, pos))
		multiset_add(&w->table, load_hash(RING_AT(&w->ring, struct ring_slot, pos)->id));
	w->table_valid = true;
	w->unused_pushes = 0;
}

/*
 * Makes an empty distinct window of 2^P registers, P being params->hll_bits, or
 * AGG_DISTINCT_DEFAULT_BITS when that is outside 4..18 (0: not set).  params->hash_seed
 * seeds the exact table's probe positions and the values' identities; no result
 * depends on it but by a collision of identities (see above).  Returns the window,
 * owned by the caller until destroy, or NULL when memory is short.
 */
static struct agg *
distinct_create(const struct agg_kind *kind, const struct agg_params *params)
{
	struct distinct_window *w = mem_realloc(NULL, sizeof(*w));
	unsigned p = params->hll_bits;

	if (w == NULL)
		return NULL;
	if (p < AGG_DISTINCT_MIN_BITS || p > AGG_DISTINCT_MAX_BITS)
		p = AGG_DISTINCT_DEFAULT_BITS;
	memset(w, 0, sizeof(*w));
	w->header.kind = kind;
	w->header.params = *params;
	w->header.params.hll_bits = p;
	w->p = p;
	w->q = 64 - p;
	w->exact_limit = ((uint64_t)1 << p) / 8;
	w->table_limit = ((uint64_t)1 << p) / 4;
	ring_init(&w->ring);
	ring_set_limit(&w->ring, agg_ring_limit(params));
	hashtable_init(&w->table, params->hash_seed);
	/*
	 * Apart from the table's own use of the seed (hashtable_hash_u64), and never the
	 * sketch's fixed seed, whatever the run's: splitmix64 outputs of it.
	 */
	w->id_words = hash_words_seed(params->hash_seed ^ AGG_DISTINCT_SEED);
	w->id_seed = w->id_words.mix;
	w->table_valid = true;
	w->gap_start = NO_GAP;
	memset(w->sigma_zeros, 0xff, sizeof(w->sigma_zeros));
	w->registers = w->front = w->back = w->spare = NULL;
	return &w->header;
}

/* Frees the window and everything it owns. */
static void
distinct_destroy(struct agg *agg)
{
	struct distinct_window *w = (struct distinct_window *)agg;

	ring_free(&w->ring);
	hashtable_free(&w->table);
	mem_free(w->registers);
	mem_free(w);
}

/*
 * Appends one record: its field's text when value->has_text, else an empty slot.
 * Everything that may need memory is allocated before anything changes, so a
 * return of -1 (memory short) leaves the window as it was; 0 otherwise.
 */
static int
distinct_push(struct agg *agg, const struct agg_value *value, int64_t time)
{
	struct distinct_window *w = (struct distinct_window *)agg;
	uint64_t hash = 0, id = 0;
	struct ring_slot *slot;

	(void)time;
	if (ring_reserve(&w->ring, sizeof(struct ring_slot)) != 0)
		return -1;
	if (value->has_text) {
		uint64_t values = w->values + 1;

		hash = agg_distinct_hash(value->text, value->text_len);
		id = value_identity(w, value->text, value->text_len);
		if (w->table_valid) {
			/* A dropped table must have room for its rebuild in pop. */
			if (hashtable_reserve(&w->table, &multiset_ops, table_drops(w, values) ?
			    (size_t)w->exact_limit : w->table.count + 1) != 0)
				return -1;
		}
		if (w->front == NULL && values > w->exact_limit && sketch_start(w) != 0)
			return -1;
	}

	slot = RING_AT(&w->ring, struct ring_slot, w->ring.tail);
	store_hash(slot->hash, hash);
	store_hash(slot->id, id);
	slot->missing = !value->has_text;
	slot->skip = false;
	if (!value->has_text) {
		if (w->gap_start == NO_GAP)
			w->gap_start = w->ring.tail;
		w->ring.tail++;
		/* The slot is the rotation's to walk like any other: it brings its share. */
		if (w->front != NULL && __builtin_expect((w->until -= 1) <= 0, 0))
			rotation_work(w, ROTATION_STEP);
		return 0;
	}
	if (__builtin_expect(w->gap_start != NO_GAP, 0)) {
		/* The value ends the tail's run of missing fields. */
		struct ring_slot *gap = RING_AT(&w->ring, struct ring_slot, w->gap_start);

		store_hash(gap->hash, w->ring.tail);
		gap->skip = true;
		w->gap_start = NO_GAP;
	}
	w->ring.tail++;
	w->values++;
	if (w->table_valid) {
		if (table_drops(w, w->values)) {
			w->table_valid = false;
		} else {
			multiset_add(&w->table, id);
			w->unused_pushes += w->values > w->exact_limit;
		}
	}
	if (w->front != NULL) {
		sketch_push(w, hash);
		if (__builtin_expect((w->until -= 1) <= 0, 0))
			rotation_work(w, ROTATION_STEP);
	}
	return 0;
}

/* Removes the oldest record; the window must not be empty.  Never fails. */
static void
distinct_pop(struct agg *agg)
{
	struct distinct_window *w = (struct distinct_window *)agg;
	const struct ring_slot *slot = RING_FRONT(&w->ring, struct ring_slot);

	if (w->front != NULL) {
		if (__builtin_expect((w->until -= ROTATION_RATIO) <= 0, 0))
			rotation_work(w, ROTATION_STEP);
		if (__builtin_expect(w->ring.head == w->deadline, 0))
			rotation_finish(w);
		sketch_pop(w, slot);
	}
	w->ring.head++;
	if (slot->missing) {
		uint64_t head = w->ring.head;

		/* The run's oldest slot is now the next one, if the run goes on. */
		if (slot->skip) {
			uint64_t end = load_hash(slot->hash);

			if (head != end) {
				struct ring_slot *next = RING_AT(&w->ring, struct ring_slot, head);

				store_hash(next->hash, end);
				next->skip = true;
			}
		} else if (w->gap_start == head - 1) {
			w->gap_start = head == w->ring.tail ? NO_GAP : head;
		}
		return;
	}
	w->values--;
	if (w->table_valid)
		multiset_remove(&w->table, load_hash(slot->id));
	else if (w->values <= w->exact_limit)
		multiset_rebuild(w);
}

/* Works the sketch's estimate out again from its histogram. */
static __attribute__((noinline)) void
refresh_estimate(struct distinct_window *w)
{
	uint32_t zeros = w->histogram[0];
	unsigned i = zeros & (SIGMA_CACHE - 1);
	double sigma = 0.0;	/* σ(0), a window of many values */

	if (zeros != 0) {
		if (w->sigma_zeros[i] != zeros) {
			w->sigma[i] = ertl_sigma(zeros / (double)((uint64_t)1 << w->p));
			w->sigma_zeros[i] = zeros;
		}
		sigma = w->sigma[i];
	}
	w->estimate = ertl_estimate_with(w->histogram, w->harmonic, w->p, sigma);
	w->estimate_stale = false;
}

/* The sketch's estimate, recomputed only when a register has changed since the last. */
static inline double
current_estimate(struct distinct_window *w)
{
	if (w->estimate_stale)
		refresh_estimate(w);
	return w->estimate;
}

/*
 * Stores the window's distinct count, never null: exact while the window holds at
 * most 2^P/8 values, else the estimate rounded to the nearest integer, kept between
 * 1 and the number of values (bounds that the true count obeys too, so they only
 * ever bring the estimate nearer).  Forced inline into each of agg_move_steps' loops,
 * where the compiler would keep it out of line (12 instructions a record more for
 * -w 1000 distinct, callgrind).
 */
AGG_INLINE void
distinct_result(struct agg *agg, struct agg_result *result)
{
	struct distinct_window *w = (struct distinct_window *)agg;
	double estimate;

	result->kind = AGG_RESULT_COUNT;
	if (w->values <= w->exact_limit) {
		result->count = w->table.count;
		return;
	}
	estimate = current_estimate(w);
	if (!(estimate < (double)w->values))
		result->count = w->values;
	else if (estimate < 1.0)
		result->count = 1;
	else
		result->count = (uint64_t)(estimate + 0.5);
}

/* The number of records (slots) in the window. */
static uint64_t
distinct_size(const struct agg *agg)
{
	const struct distinct_window *w = (const struct distinct_window *)agg;

	return ring_count(&w->ring);
}

/* See agg_distinct.h.  The estimate it reports is the one result() would round. */
void
agg_distinct_inspect(struct agg *agg, struct distinct_state *state)
{
	struct distinct_window *w = (struct distinct_window *)agg;

	memset(state, 0, sizeof(*state));
	state->p = w->p;
	state->values = w->values;
	state->exact_table = w->table_valid;
	state->sketch_active = w->front != NULL;
	if (state->sketch_active) {
		memcpy(state->histogram, w->histogram, sizeof(state->histogram));
		state->estimate = current_estimate(w);
	}
	state->bytes = sizeof(*w) + (size_t)w->ring.cap * sizeof(struct ring_slot) +
	    hashtable_capacity(&w->table) * (w->header.params.cumulative ?
	    sizeof(struct multiset_all_slot) : sizeof(struct multiset_slot)) +
	    (w->front != NULL ? (size_t)3 << w->p : 0);
}

/*
 * The cumulative window (@all) never lets a value go, so it keeps no ring: the set of
 * its distinct identities (the table, each with its hash, the count unused) while
 * there are at most 2^P/8 of them, then only the sketch, its back half, into which the
 * table's hashes are folded when the 2^P/8+1st distinct value comes and the table is
 * freed.  Memory is thus at most the table's, then 2·2^P bytes, whatever the input's
 * length.
 */
static int
distinct_push_all(struct agg *agg, const struct agg_value *value, int64_t time)
{
	struct distinct_window *w = (struct distinct_window *)agg;
	uint64_t hash, id, table_hash;
	size_t index;

	(void)time;
	if (!value->has_text)
		return 0;
	hash = agg_distinct_hash(value->text, value->text_len);
	if (w->front != NULL) {
		sketch_push(w, hash);
	} else if (w->table.slots == NULL &&
	    hashtable_reserve(&w->table, &multiset_all_ops, 1) != 0) {
		return -1;
	} else if (id = value_identity(w, value->text, value->text_len),
	    hashtable_find(&w->table, &multiset_all_ops,
	    table_hash = hashtable_hash_u64(&w->table, id), multiset_matches, &id,
	    &index)) {
		/* Seen before: the count of distinct values stays. */
	} else if (w->table.count < w->exact_limit) {
		struct multiset_all_slot *slot;

		if (hashtable_make_room(&w->table, &multiset_all_ops, table_hash, &index) != 0)
			return -1;
		slot = hashtable_claim(&w->table, sizeof(*slot), index);
		store_hash(slot->entry.key, id);
		store_hash(slot->hash, hash);
		slot->entry.count = 1;
	} else {
		if (sketch_start(w) != 0)
			return -1;
		for (size_t i = 0; i < hashtable_capacity(&w->table); i++) {
			const struct multiset_all_slot *slot = hashtable_slot(&w->table,
			    sizeof(*slot), i);

			if (multiset_occupied(slot))
				sketch_push(w, load_hash(slot->hash));
		}
		hashtable_free(&w->table);
		w->table_valid = false;
		sketch_push(w, hash);
	}
	w->values++;
	return 0;
}

/*
 * The cumulative window's count: exact while the table is kept, else the estimate,
 * kept between the 2^P/8+1 distinct values the table had seen and the number of
 * values (bounds that the true count obeys too).
 */
static void
distinct_result_all(struct agg *agg, struct agg_result *result)
{
	struct distinct_window *w = (struct distinct_window *)agg;
	double estimate;

	result->kind = AGG_RESULT_COUNT;
	if (w->front == NULL) {
		result->count = w->table.count;
		return;
	}
	estimate = current_estimate(w);
	if (!(estimate < (double)w->values))
		result->count = w->values;
	else if (estimate < (double)(w->exact_limit + 1))
		result->count = w->exact_limit + 1;
	else
		result->count = (uint64_t)(estimate + 0.5);
}

static size_t
distinct_move(struct agg *agg, const struct agg_move *move)
{
	if (agg->params.cumulative)
		return agg_move_steps(agg, move, agg_size_none, agg_pop_none,
		    distinct_push_all, distinct_result_all);
	return agg_move_steps(agg, move, distinct_size, distinct_pop, distinct_push,
	    distinct_result);
}

const struct agg_kind agg_distinct = {
	"distinct", AGG_INPUT_TEXT, distinct_create, distinct_destroy, distinct_move, false,
	true
};

#ifdef SWAG_TEST_COUNTERS
/* See agg_distinct.h. */
void
agg_distinct_counters(struct distinct_counters *out)
{
	*out = counters;
}
#endif
