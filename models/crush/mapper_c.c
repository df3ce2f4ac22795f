/*
 * crush_do_rule for straw2 maps, in C: the compiled twin of mapper.py (see mapper_c.py).
 *
 * A port of Ceph's src/crush/mapper.c and hash.c (Pacific, 16.2) restricted to what the numpy
 * model covers: straw2 buckets, rjenkins1, no choose_args, choose_local_fallback_tries 0
 * (mapper.do_rule refuses the rest before calling in). Names and control flow follow mapper.c,
 * so the two read side by side; the numpy model (mapper.py) stays the reference the tests hold
 * this file to, on top of crushtool.
 *
 * No headers: the fixed-width types are spelled out, so a bare gcc without libc headers builds it.
 */

typedef unsigned int u32;
typedef int s32;
typedef long long s64;
typedef unsigned long long u64;

#define ITEM_NONE 0x7fffffff    /* CRUSH_ITEM_NONE */
#define ITEM_UNDEF 0x7ffffffe   /* CRUSH_ITEM_UNDEF */
#define S64_MIN (-0x7fffffffffffffffLL - 1)

/* Rule step opcodes, crush.h enum crush_opcodes (the same numbers as crushmap.OPS). */
enum {
	TAKE = 1, CHOOSE_FIRSTN = 2, CHOOSE_INDEP = 3, EMIT = 4, CHOOSELEAF_FIRSTN = 6,
	CHOOSELEAF_INDEP = 7, SET_CHOOSE_TRIES = 8, SET_CHOOSELEAF_TRIES = 9,
	SET_CHOOSE_LOCAL_TRIES = 10, SET_CHOOSE_LOCAL_FALLBACK_TRIES = 11,
	SET_CHOOSELEAF_VARY_R = 12, SET_CHOOSELEAF_STABLE = 13,
};

/* The map as flat arrays (filled by mapper_c.py from a CompiledMap). Bucket id b sits at
 * position p = -1 - b: its items are items[off[p] .. off[p] + size[p]) (8 spare entries follow
 * the last bucket, for straws()), with their 16.16 weights alongside (64-bit, as the numpy
 * model's: a bucket's weight can pass 2**32); type[p] < 0 marks a position without a bucket,
 * uniform[p] != 0 one whose items all weigh the same w > 0. */
struct cmap {
	const s32 *items;
	const s64 *weights;
	const s32 *off;
	const s32 *size;
	const s32 *type;
	const s32 *uniform;
	s32 max_buckets;                /* number of positions */
	s32 max_devices;
	const s64 *ln;                  /* crush_ln(u) - 2**48 for u = 0 .. 0xffff (ln.LN_MINUS_ONE) */
	const u32 *weight;              /* device reweights (16.16), weight_max of them */
	s32 weight_max;
	s32 choose_total_tries, choose_local_tries, chooseleaf_descend_once;
	s32 chooseleaf_vary_r, chooseleaf_stable;
};

/* ---- hash.c ---------------------------------------------------------------------------- */

#define SEED 1315423911u

#define hashmix(a, b, c) do {                           \
		a = a - b;  a = a - c;  a = a ^ (c >> 13);      \
		b = b - c;  b = b - a;  b = b ^ (a << 8);       \
		c = c - a;  c = c - b;  c = c ^ (b >> 13);      \
		a = a - b;  a = a - c;  a = a ^ (c >> 12);      \
		b = b - c;  b = b - a;  b = b ^ (a << 16);      \
		c = c - a;  c = c - b;  c = c ^ (b >> 5);       \
		a = a - b;  a = a - c;  a = a ^ (c >> 3);       \
		b = b - c;  b = b - a;  b = b ^ (a << 10);      \
		c = c - a;  c = c - b;  c = c ^ (b >> 15);      \
	} while (0)

static u32 hash32_2(u32 a, u32 b)
{
	u32 hash = SEED ^ a ^ b, x = 231232, y = 1232;
	hashmix(a, b, hash);
	hashmix(x, a, hash);
	hashmix(b, y, hash);
	return hash;
}

static u32 hash32_3(u32 a, u32 b, u32 c)
{
	u32 hash = SEED ^ a ^ b ^ c, x = 231232, y = 1232;
	hashmix(a, b, hash);
	hashmix(c, x, hash);
	hashmix(y, a, hash);
	hashmix(b, x, hash);
	hashmix(y, c, hash);
	return hash;
}

/* ---- mapper.c: straw2, is_out ----------------------------------------------------------- */

/* straw2 hashes every item of a bucket: BLOCK at a time, in vector code (straws()); the hash is
 * 180 dependent integer operations, and one item at a time would wait on each. */
#define BLOCK 16
#ifdef __AVX2__
#define LANES 8                 /* straws per vector instruction */
#else
#define LANES 4
#endif

/* u[j] = hash32_3(x, ids[j], r) & 0xffff for j < n, in whole vectors: up to LANES - 1 straws
 * past n are hashed too (mapper_c.py pads the item array), which costs less than finishing the
 * last few one at a time. A function of its own, so the loop stays simple enough to vectorise. */
static __attribute__((noinline)) void straws(u32 x, const s32 *restrict ids, u32 r,
					     u32 *restrict u, s32 n)
{
	s32 j, k;
	for (j = 0; j < n; j += LANES)
		for (k = 0; k < LANES; k++)
			u[j + k] = hash32_3(x, (u32)ids[j + k], r) & 0xffff;
}

/* The item with the longest straw: draw = (crush_ln(u) - 2**48) / weight, the first on a tie.
 * crush_ln(u) - 2**48 is looked up in the model's table (ln.LN_MINUS_ONE, checked against
 * Ceph's) rather than computed as mapper.c does: one load instead of twenty operations. */
static s32 straw2_choose(const struct cmap *m, s32 pos, u32 x, u32 r)
{
	const s32 *ids = m->items + m->off[pos];
	const s64 *weights = m->weights + m->off[pos];
	s32 n = m->size[pos], i, j, len, high = 0;
	s64 draw, high_draw = 0;
	u32 u[BLOCK + LANES];

	if (m->uniform[pos] && n <= BLOCK) {
		/* Every item weighs w: draw_i = -floor(L_i / w), L_i = 2**48 - crush_ln(u_i) >= 0.
		 * The longest straw is then the first item whose floor is the smallest L's floor,
		 * the first with L_i < (floor(Lmin / w) + 1) * w: one division, not one per item. */
		u64 w = (u64)weights[0], lmin = ~0ULL, bound, L[BLOCK];
		straws(x, ids, r, u, n);
		for (j = 0; j < n; j++) {
			L[j] = (u64)-m->ln[u[j]];
			lmin = L[j] < lmin ? L[j] : lmin;
		}
		bound = (lmin / w + 1) * w;
		for (j = 0; L[j] >= bound; j++)
			;
		return ids[j];
	}
	for (i = 0; i < n; i += BLOCK) {
		len = n - i < BLOCK ? n - i : BLOCK;
		straws(x, ids + i, r, u, len);
		for (j = 0; j < len; j++) {
			if (weights[i + j])
				/* C division truncates toward zero, as the kernel's div64_s64 */
				draw = m->ln[u[j]] / weights[i + j];
			else
				draw = S64_MIN;
			if (i + j == 0 || draw > high_draw) {
				high = i + j;
				high_draw = draw;
			}
		}
	}
	return ids[high];
}

static int is_out(const struct cmap *m, s32 item, s32 x)
{
	if (item >= m->weight_max)
		return 1;
	if (m->weight[item] >= 0x10000)
		return 0;
	if (m->weight[item] == 0)
		return 1;
	return (hash32_2((u32)x, (u32)item) & 0xffff) >= m->weight[item];
}

/* The type of an item: 0 for a device, the bucket's type, or -1 where no bucket is (mapper.c
 * would read past its array there; the numpy model gives up on the replica, and so does this). */
static s32 item_type(const struct cmap *m, s32 item)
{
	s32 pos = -1 - item;
	if (item >= 0)
		return 0;
	return pos < m->max_buckets ? m->type[pos] : -1;
}

/* ---- mapper.c: crush_choose_firstn ------------------------------------------------------ */

static int choose_firstn(const struct cmap *m, s32 bucket, s32 x, int numrep, int type,
			 s32 *out, int outpos, int out_size, unsigned tries,
			 unsigned recurse_tries, unsigned local_retries, int recurse_to_leaf,
			 unsigned vary_r, unsigned stable, s32 *out2, int parent_r)
{
	int rep, r, i, collide, reject, skip_rep, retry_descent, retry_bucket;
	unsigned ftotal, flocal;
	s32 in, item = 0, itemtype;
	int count = out_size;

	for (rep = stable ? 0 : outpos; rep < numrep && count > 0; rep++) {
		ftotal = 0;
		skip_rep = 0;
		do {
			retry_descent = 0;
			in = bucket;
			flocal = 0;
			do {
				collide = 0;
				retry_bucket = 0;
				r = rep + parent_r + (int)ftotal;
				if (m->size[-1 - in] == 0) {
					reject = 1;
					goto reject;
				}
				item = straw2_choose(m, -1 - in, (u32)x, (u32)r);
				if (item >= m->max_devices) {
					skip_rep = 1;
					break;
				}
				itemtype = item_type(m, item);
				if (itemtype != type) {
					if (item >= 0 || itemtype < 0) {
						skip_rep = 1;
						break;
					}
					in = item;
					retry_bucket = 1;
					continue;
				}
				for (i = 0; i < outpos; i++) {
					if (out[i] == item) {
						collide = 1;
						break;
					}
				}
				reject = 0;
				if (!collide && recurse_to_leaf) {
					if (item < 0) {
						int sub_r = vary_r ? r >> (vary_r - 1) : 0;
						if (choose_firstn(m, item, x, stable ? 1 : outpos + 1, 0,
								  out2, outpos, count, recurse_tries, 0,
								  local_retries, 0, vary_r, stable, 0,
								  sub_r) <= outpos)
							reject = 1;     /* no leaf below */
					} else {
						out2[outpos] = item;
					}
				}
				if (!reject && !collide && itemtype == 0)
					reject = is_out(m, item, x);
reject:
				if (reject || collide) {
					ftotal++;
					flocal++;
					if (collide && flocal <= local_retries)
						retry_bucket = 1;
					else if (ftotal < tries)
						retry_descent = 1;
					else
						skip_rep = 1;
				}
			} while (retry_bucket);
		} while (retry_descent);

		if (skip_rep)
			continue;
		out[outpos] = item;
		outpos++;
		count--;
	}
	return outpos;
}

/* ---- mapper.c: crush_choose_indep ------------------------------------------------------- */

static void choose_indep(const struct cmap *m, s32 bucket, s32 x, int left, int numrep,
			 int type, s32 *out, int outpos, unsigned tries, unsigned recurse_tries,
			 int recurse_to_leaf, s32 *out2, int parent_r)
{
	int endpos = outpos + left, rep, r, i, collide;
	unsigned ftotal;
	s32 in, item, itemtype;

	for (rep = outpos; rep < endpos; rep++) {
		out[rep] = ITEM_UNDEF;
		if (out2)
			out2[rep] = ITEM_UNDEF;
	}
	for (ftotal = 0; left > 0 && ftotal < tries; ftotal++) {
		for (rep = outpos; rep < endpos; rep++) {
			if (out[rep] != ITEM_UNDEF)
				continue;
			in = bucket;
			for (;;) {
				/* straw2 is never a uniform bucket: r' = r + numrep * ftotal */
				r = rep + parent_r + numrep * (int)ftotal;
				if (m->size[-1 - in] == 0)
					break;
				item = straw2_choose(m, -1 - in, (u32)x, (u32)r);
				if (item >= m->max_devices) {
					out[rep] = ITEM_NONE;
					if (out2)
						out2[rep] = ITEM_NONE;
					left--;
					break;
				}
				itemtype = item_type(m, item);
				if (itemtype != type) {
					if (item >= 0 || itemtype < 0) {
						out[rep] = ITEM_NONE;
						if (out2)
							out2[rep] = ITEM_NONE;
						left--;
						break;
					}
					in = item;
					continue;
				}
				collide = 0;
				for (i = outpos; i < endpos; i++) {
					if (out[i] == item) {
						collide = 1;
						break;
					}
				}
				if (collide)
					break;
				if (recurse_to_leaf) {
					if (item < 0) {
						choose_indep(m, item, x, 1, numrep, 0, out2, rep,
							     recurse_tries, 0, 0, 0, r);
						if (out2[rep] == ITEM_NONE)
							break;  /* no leaf below */
					} else {
						out2[rep] = item;
					}
				}
				if (itemtype == 0 && is_out(m, item, x))
					break;
				out[rep] = item;
				left--;
				break;
			}
		}
	}
	for (rep = outpos; rep < endpos; rep++) {
		if (out[rep] == ITEM_UNDEF)
			out[rep] = ITEM_NONE;
		if (out2 && out2[rep] == ITEM_UNDEF)
			out2[rep] = ITEM_NONE;
	}
}

/* ---- mapper.c: crush_do_rule ------------------------------------------------------------ */

static int is_bucket(const struct cmap *m, s32 id)
{
	return id < 0 && -1 - id < m->max_buckets && m->type[-1 - id] >= 0;
}

static int do_rule(const struct cmap *m, const s32 *steps, int nsteps, s32 x, s32 *result,
		   int result_max, s32 *scratch)
{
	s32 *w = scratch, *o = scratch + result_max, *c = scratch + 2 * result_max, *tmp;
	int wsize = 0, osize, result_len = 0, step, i, numrep, firstn, recurse_to_leaf;
	unsigned choose_tries = m->choose_total_tries + 1;     /* the tunable counts retries */
	unsigned choose_leaf_tries = 0;
	unsigned choose_local_retries = m->choose_local_tries;
	unsigned vary_r = m->chooseleaf_vary_r, stable = m->chooseleaf_stable;

	for (step = 0; step < nsteps; step++) {
		s32 op = steps[3 * step], arg1 = steps[3 * step + 1], arg2 = steps[3 * step + 2];
		firstn = 0;
		switch (op) {
		case TAKE:
			if ((arg1 >= 0 && arg1 < m->max_devices) || is_bucket(m, arg1)) {
				w[0] = arg1;
				wsize = 1;
			}
			break;
		case SET_CHOOSE_TRIES:
			if (arg1 > 0)
				choose_tries = arg1;
			break;
		case SET_CHOOSELEAF_TRIES:
			if (arg1 > 0)
				choose_leaf_tries = arg1;
			break;
		case SET_CHOOSE_LOCAL_TRIES:
			if (arg1 >= 0)
				choose_local_retries = arg1;
			break;
		case SET_CHOOSELEAF_VARY_R:
			if (arg1 >= 0)
				vary_r = arg1;
			break;
		case SET_CHOOSELEAF_STABLE:
			if (arg1 >= 0)
				stable = arg1;
			break;
		case CHOOSELEAF_FIRSTN:
		case CHOOSE_FIRSTN:
			firstn = 1;
			/* fall through */
		case CHOOSELEAF_INDEP:
		case CHOOSE_INDEP:
			if (wsize == 0)
				break;
			recurse_to_leaf = op == CHOOSELEAF_FIRSTN || op == CHOOSELEAF_INDEP;
			osize = 0;
			for (i = 0; i < wsize; i++) {
				numrep = arg1;
				if (numrep <= 0) {
					numrep += result_max;
					if (numrep <= 0)
						continue;
				}
				if (!is_bucket(m, w[i]))
					continue;       /* a device, or ITEM_NONE from indep */
				if (firstn) {
					unsigned recurse_tries = choose_leaf_tries ? choose_leaf_tries
						: m->chooseleaf_descend_once ? 1 : choose_tries;
					osize += choose_firstn(m, w[i], x, numrep, arg2, o + osize, 0,
							       result_max - osize, choose_tries,
							       recurse_tries, choose_local_retries,
							       recurse_to_leaf, vary_r, stable,
							       c + osize, 0);
				} else {
					int out_size = numrep < result_max - osize ? numrep
						: result_max - osize;
					choose_indep(m, w[i], x, out_size, numrep, arg2, o + osize, 0,
						     choose_tries, choose_leaf_tries ? choose_leaf_tries : 1,
						     recurse_to_leaf, c + osize, 0);
					osize += out_size;
				}
			}
			if (recurse_to_leaf)
				for (i = 0; i < osize; i++)
					o[i] = c[i];
			tmp = o;
			o = w;
			w = tmp;
			wsize = osize;
			break;
		case EMIT:
			for (i = 0; i < wsize && result_len < result_max; i++)
				result[result_len++] = w[i];
			wsize = 0;
			break;
		default:
			break;
		}
	}
	return result_len;
}

/* ---- entry points (mapper_c.py) --------------------------------------------------------- */

/* Run the rule for xs[0..n): row k of result (result_max wide) gets the placement of xs[k] and
 * length[k] its size; entries past the length are left as they are. scratch: 4 * result_max. */
void crush_do_rule_many(const struct cmap *m, const s32 *steps, int nsteps, const u32 *xs,
			s64 n, int result_max, s32 *scratch, s64 *result, s64 *length)
{
	s32 *row = scratch + 3 * result_max;
	s64 k;
	int j, len;

	for (k = 0; k < n; k++) {
		len = do_rule(m, steps, nsteps, (s32)xs[k], row, result_max, scratch);
		for (j = 0; j < len; j++)
			result[k * result_max + j] = row[j];
		length[k] = len;
	}
}
