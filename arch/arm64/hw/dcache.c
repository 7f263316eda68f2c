// SPDX-License-Identifier: MIT
/*
 * The data-cache model: the L1D / L2 / LLC hierarchy of the core that runs
 * the operations, over the lines the kernel's memory accesses touch. It
 * decides prices only: every kernel count stays what it is, and each load
 * or atomic of a descriptor or a struct page is counted once more, by the
 * level it hit (PTSIM_EV_DCACHE_*), which the cost profile prices with that
 * level's latency (arch/arm64/hw/costs.c). Plain stores allocate their line
 * in the L1 only and are not priced by level: they retire into the store
 * buffer and their miss is off the critical path. (Placing them in the L2
 * and LLC as well made painting a 256 GiB linear map, 8 M lines of PTEs,
 * twice as slow to simulate.)
 *
 * Geometry per CPU (sizes, ways, 64-byte lines) is in cpus.c with its
 * source. Each level is set-associative with LRU replacement and is filled
 * on the way in (a mostly-inclusive hierarchy, no back-invalidation).
 *
 * The prefetch rule (doc/cpu-profiles.md §11.2): a stream is trained by two
 * L1 misses to adjacent lines of one 4 KiB region in one direction; from
 * then on each next line of that region in that direction is in the L1 when
 * the core asks for it (a prefetch hit, priced as an L1 hit). A stream never
 * crosses a 4 KiB boundary, where it has to train again. Eight streams are
 * tracked, the least recently used replaced. This follows the Arm Cortex-A76
 * / Neoverse N1 / Cortex-X1 TRMs' description of the L1 data prefetcher
 * (stride detection on L1 misses, within a page) and is applied to every
 * profile alike.
 *
 * Addresses: a descriptor's is its table page's PFN and its offset in the
 * page; a struct page's is its vmemmap address, 64 bytes per PFN; a kernel
 * object's is its synthetic slab address (src/primitives/kobj.h), from
 * 1 << 58 up, clear of both.
 */
#include "hw.h"
#include "host_array.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define LINE_SHIFT	6
#define REGION_SHIFT	12	/* the prefetcher's 4 KiB region */
#define NR_STREAMS	8
/* vmemmap: one 64-byte struct page per PFN, in a region of its own */
#define VMEMMAP_BASE	(UINT64_C(1) << 56)
/* descriptors of a table page the model does not know (none today) */
#define UNKNOWN_TABLE	(UINT64_C(1) << 60)

/*
 * A level's sets are blocks of 1 + ways words: the generation the set was
 * last used in, then its tags (line + 1, 0 an empty way), most recently used
 * first, up to the first empty way. A set whose generation is older than the
 * level's is empty (emptying a level is a new generation; its sets are
 * emptied as they are next used).
 *
 * The L1 (a few thousand lines) keeps every set in place. The L2 and the
 * last-level cache (up to 1.8 M lines, Grace's 114 MiB L3) are sparse: a set
 * gets its block on first use, from the front of the level's pool, and a
 * directory maps the set to it. The hash spreads even a short scan over the
 * whole cache, so in place the blocks a small machine touches would be
 * spread over every host page of the tags; in the pool they are side by
 * side, and only the touched part of the pool and of the directory become
 * resident. Which line hits which level is the same either way.
 */
struct dcache_level {
	uint64_t *pool;		/* the sets' blocks; in place for the L1, in order of first use otherwise */
	uint32_t *dir;		/* sparse levels: per set, 1 + its block in pool, 0 until first used */
	uint32_t used;		/* sparse levels: blocks handed out */
	uint64_t gen;		/* the current generation */
	uint64_t bytes;		/* the level's size */
	uint64_t user_bytes;	/* bytes the program streamed since the level was last emptied */
	uint32_t sets, ways;
	uint64_t set_mask;	/* sets - 1, for the unhashed L1 (its sets are a power of two) */
	bool hashed;		/* set index hashed from the line, not its low bits */
};

struct dcache_stream {
	uint64_t last;		/* the last line of the stream */
	uint32_t stamp;		/* for LRU replacement */
	int dir;		/* +1, -1, 0 while untrained */
};

struct dcache {
	struct dcache_level lv[3];
	struct dcache_stream stream[NR_STREAMS];
	/* the walker's translation table prefetcher, trained by its own reads (dcache_walk_load) */
	struct dcache_stream walk_stream[NR_STREAMS];
	uint32_t stamp;
	/* host page of a table -> its PFN, with a one-entry memo */
	struct u64map table_pfn;
	uint64_t memo_key, memo_pfn;
	unsigned int page_shift;
};

static size_t level_pool_bytes(const struct dcache_level *l)
{
	return (size_t)l->sets * (l->ways + 1) * sizeof(*l->pool);
}

static size_t level_dir_bytes(const struct dcache_level *l)
{
	return l->hashed ? (size_t)l->sets * sizeof(*l->dir) : 0;
}

/*
 * Levels a destroyed machine leaves for the next one of the same geometry.
 * A process makes many machines (a test, an audit campaign, reproduce's
 * rows), and each fresh level would be host memory mapped and faulted in
 * anew: a sparse level's directory is touched at random, a host page fault
 * every few sets, which made most of the system time of such a process. A
 * kept level needs no clearing: its sets are of older generations, emptied
 * as they are next used (set_renew), and its directory's set-to-block map
 * stays valid for the blocks already handed out. The charge is unchanged
 * (dcache_host_bytes: every level in full). At most SPARE_LEVELS are kept,
 * holding at most SPARE_BYTES of touched memory; machines on different
 * threads share them under a lock.
 */
#define SPARE_LEVELS	8
#define SPARE_BYTES	((uint64_t)64 << 20)

static struct dcache_level spare[SPARE_LEVELS];
static unsigned int nr_spare;
static atomic_flag spare_lock = ATOMIC_FLAG_INIT;

static void spare_take_lock(void)
{
	while (atomic_flag_test_and_set_explicit(&spare_lock, memory_order_acquire))
		;
}

static void spare_release_lock(void)
{
	atomic_flag_clear_explicit(&spare_lock, memory_order_release);
}

/* The host memory a kept level holds at most: its handed-out blocks (or every set) and its directory. */
static uint64_t level_touched_bytes(const struct dcache_level *l)
{
	if (!l->hashed)
		return level_pool_bytes(l);
	return (uint64_t)l->used * (l->ways + 1) * sizeof(*l->pool) + level_dir_bytes(l);
}

static bool level_same_geometry(const struct dcache_level *a, const struct dcache_level *b)
{
	return a->sets == b->sets && a->ways == b->ways && a->hashed == b->hashed;
}

/* Keep l's arrays for the next level of its geometry: true if kept (l no longer owns them). */
static bool spare_put(const struct dcache_level *l)
{
	uint64_t bytes = level_touched_bytes(l);
	bool kept = false;

	spare_take_lock();
	for (unsigned int i = 0; i < nr_spare; i++)
		bytes += level_touched_bytes(&spare[i]);
	if (nr_spare < SPARE_LEVELS && bytes <= SPARE_BYTES) {
		spare[nr_spare++] = *l;
		kept = true;
	}
	spare_release_lock();
	return kept;
}

/* l's arrays from a kept level of its geometry, a generation on: true if one was there. */
static bool spare_get(struct dcache_level *l)
{
	bool found = false;

	spare_take_lock();
	for (unsigned int i = 0; i < nr_spare; i++) {
		if (!level_same_geometry(&spare[i], l))
			continue;
		l->pool = spare[i].pool;
		l->dir = spare[i].dir;
		l->used = spare[i].used;
		l->gen = spare[i].gen + 1;	/* every set it holds is of an older generation */
		spare[i] = spare[--nr_spare];
		found = true;
		break;
	}
	spare_release_lock();
	return found;
}

uint64_t dcache_spare_release(void)
{
	uint64_t bytes = 0;

	spare_take_lock();
	while (nr_spare) {
		struct dcache_level *l = &spare[--nr_spare];

		bytes += level_pool_bytes(l) + level_dir_bytes(l);
		host_array_free(l->pool, level_pool_bytes(l));
		host_array_free(l->dir, level_dir_bytes(l));
	}
	spare_release_lock();
	return bytes;
}

static void level_free(struct dcache_level *l)
{
	if (!l->pool || (l->hashed && !l->dir) || !spare_put(l)) {
		host_array_free(l->pool, level_pool_bytes(l));
		host_array_free(l->dir, level_dir_bytes(l));
	}
	l->pool = NULL;
	l->dir = NULL;
}

static int level_init(struct dcache_level *l, const struct dcache_geometry *g, bool hashed)
{
	uint64_t lines = (uint64_t)g->kib * 1024 >> LINE_SHIFT;

	l->ways = g->ways;
	l->sets = (uint32_t)(lines / g->ways);
	l->bytes = (uint64_t)g->kib * 1024;
	l->hashed = hashed;
	l->set_mask = l->sets - 1;
	if (!hashed && (l->sets & (l->sets - 1)))
		return -EINVAL;	/* an L1 whose sets are not a power of two: no such CPU */
	if (spare_get(l))
		return 0;
	/* mapped, not calloc'd: a machine's tags are touched as the caches fill, not all at its creation */
	l->pool = host_array_zalloc(level_pool_bytes(l));
	if (hashed)
		l->dir = host_array_zalloc(level_dir_bytes(l));
	return l->pool && (!hashed || l->dir) ? 0 : -ENOMEM;
}

int dcache_init(struct ptsim_machine *m)
{
	struct dcache *c = calloc(1, sizeof(*c));
	const struct dcache_geometry *g[3] = { &m->cpu->dl1, &m->cpu->dl2, &m->cpu->llc };

	m->dcache = c;
	if (!c)
		return -ENOMEM;
	c->page_shift = m->geo.page_shift;
	c->memo_key = UINT64_MAX;
	u64map_init(&c->table_pfn);
	for (int i = 0; i < 3; i++)
		if (level_init(&c->lv[i], g[i], i > 0))
			return -ENOMEM;
	return 0;
}

void dcache_free(struct ptsim_machine *m)
{
	struct dcache *c = m->dcache;

	if (!c)
		return;
	for (int i = 0; i < 3; i++)
		level_free(&c->lv[i]);
	u64map_free(&c->table_pfn);
	free(c);
	m->dcache = NULL;
}

/*
 * The host memory the caches' tags take, charged in full when the machine is
 * made (every set's block, and the sparse levels' directories): the blocks
 * become resident as the workload fills the caches (a large populate uses
 * nearly all of them), and a cap is safer counting them early. The table-page map (16 bytes a table page) grows with the tables
 * and is left out, as the fixed charge cannot follow it.
 */
uint64_t dcache_host_bytes(const struct ptsim_machine *m)
{
	const struct dcache *c = m->dcache;
	uint64_t bytes;

	if (!c)
		return 0;
	bytes = sizeof(*c);
	for (int i = 0; i < 3; i++)
		bytes += level_pool_bytes(&c->lv[i]) + level_dir_bytes(&c->lv[i]);
	return bytes;
}

/* A copy of level s in l (already a copy of *s): the blocks in use and the directory's used entries. */
static int level_copy(struct dcache_level *l, const struct dcache_level *s)
{
	const size_t block = s->ways + 1;

	l->pool = host_array_zalloc(level_pool_bytes(s));
	l->dir = s->dir ? host_array_zalloc(level_dir_bytes(s)) : NULL;
	if (!l->pool || (s->dir && !l->dir)) {
		level_free(l);
		return -ENOMEM;
	}
	if (!s->dir) {
		memcpy(l->pool, s->pool, level_pool_bytes(s));
		return 0;
	}
	memcpy(l->pool, s->pool, (size_t)s->used * block * sizeof(*s->pool));
	/* reading the unused part of the source's directory maps no memory; writing only used entries keeps the copy's sparse */
	for (uint32_t set = 0; set < s->sets; set++)
		if (s->dir[set])
			l->dir[set] = s->dir[set];
	return 0;
}

/* The copy's caches hold what the source's hold; its tables register themselves (table_new). */
int dcache_copy(struct ptsim_machine *dst, const struct ptsim_machine *src)
{
	const struct dcache *s = src->dcache;
	struct dcache *c = calloc(1, sizeof(*c));

	dst->dcache = c;
	if (!c)
		return -ENOMEM;
	*c = *s;
	u64map_init(&c->table_pfn);
	c->memo_key = UINT64_MAX;
	for (int i = 0; i < 3; i++) {
		c->lv[i].pool = NULL;
		c->lv[i].dir = NULL;
	}
	for (int i = 0; i < 3; i++)
		if (level_copy(&c->lv[i], &s->lv[i]))
			return -ENOMEM;
	return 0;
}

int dcache_table_add(struct ptsim_machine *m, const void *host, uint64_t pfn)
{
	struct dcache *c = m->dcache;

	c->memo_key = UINT64_MAX;
	return u64map_put(&c->table_pfn, (uintptr_t)host >> c->page_shift, pfn);
}

void dcache_table_del(struct ptsim_machine *m, const void *host)
{
	struct dcache *c = m->dcache;

	if (!c)
		return;
	c->memo_key = UINT64_MAX;
	u64map_del(&c->table_pfn, (uintptr_t)host >> c->page_shift);
}

/*
 * The set of a line. The L1 is indexed by the line's low bits (VIPT, as the
 * TRMs describe); the L2 and the last-level cache by a hash of the whole
 * line, as large caches spread strided addresses over their sets (the
 * CMN mesh's SLC hashes addresses over its slices). Without it every 16th
 * line (a folio head every 16 struct pages) would use a sixteenth of them.
 * Returns the set's tags, emptied first if the set is of an older
 * generation; a sparse level's set gets its block here on first use.
 */
static inline void set_renew(struct dcache_level *l, uint64_t *b)
{
	b[0] = l->gen;
	b[1] = 0;	/* the first way empty: the ones after it are not looked at (level_access) */
}

static inline __attribute__((always_inline)) uint64_t *level_set(struct dcache_level *l,
								  uint64_t line)
{
	const size_t block = l->ways + 1;
	uint64_t *b;

	if (!l->hashed) {
		b = &l->pool[(size_t)(line & l->set_mask) * block];
	} else {	/* the hash's top 32 bits scaled to the sets: no division */
		size_t set = (size_t)((((line * UINT64_C(0x9e3779b97f4a7c15)) >> 32) * l->sets) >> 32);

		if (!l->dir[set])
			l->dir[set] = ++l->used;	/* a fresh block: zero, an empty set of generation 0 */
		b = &l->pool[(size_t)(l->dir[set] - 1) * block];
	}
	if (b[0] != l->gen)
		set_renew(l, b);
	return &b[1];
}

/*
 * One access to line in one level, LRU: true if it hit. The line ends at
 * the front of its set either way: a hit moves it there, a miss fills it
 * there and the least recently used way leaves. The ways are shifted down
 * during the one scan that looks for the line (each way read is written one
 * place further back), so a miss needs no second pass. The set's lines are
 * the ways before its first empty one (0): the ways fill from the front and
 * are only ever emptied all together, when set_renew empties the first, so
 * the ways after the first empty one are never looked at (they may hold
 * tags of an older generation). A miss that fills the first empty way moves
 * the empty mark to the next.
 */
static inline __attribute__((always_inline)) bool level_access(struct dcache_level *l,
								uint64_t line)
{
	uint64_t *set = level_set(l, line);
	const uint64_t tag = line + 1;
	uint64_t carry = tag;

	if (set[0] == tag)
		return true;	/* already the most recently used: nothing moves */
	for (uint32_t w = 0; w < l->ways; w++) {
		uint64_t cur = set[w];

		set[w] = carry;
		if (cur == tag)
			return true;
		if (!cur) {
			if (w + 1 < l->ways)
				set[w + 1] = 0;
			return false;
		}
		carry = cur;
	}
	return false;
}

/* Empty a level: a new generation (64 bits: it never runs out). */
static void level_empty(struct dcache_level *l)
{
	l->user_bytes = 0;
	l->gen++;
}

/*
 * A cold machine's caches as a public operation begins (PTSIM_CACHES_COLD,
 * the machine's op_begin_hook): every level emptied and the prefetchers'
 * streams forgotten.
 */
static void caches_empty(struct ptsim_machine *m)
{
	struct dcache *c = m->dcache;

	for (int i = 0; i < 3; i++)
		level_empty(&c->lv[i]);
	memset(c->stream, 0, sizeof(c->stream));
	memset(c->walk_stream, 0, sizeof(c->walk_stream));
}

int ptsim_machine_set_caches(struct ptsim_machine *m, enum ptsim_cache_state state)
{
	VALIDATE(m && (state == PTSIM_CACHES_WARM || state == PTSIM_CACHES_COLD));
	REFUSE_IN_HANDLER(m);
	m->op_begin_hook = state == PTSIM_CACHES_COLD ? caches_empty : NULL;
	return 0;
}

/*
 * The program's own loads and stores (ptsim_touch and the accesses behind
 * it: memset, bzero, reads) go through the same caches. The model does not
 * place each of their lines: a level is emptied once the program has
 * streamed as many bytes as the level holds since it was last emptied
 * (what a streaming pass does to an LRU cache), and the prefetcher's
 * streams are taken over by the program's (doc/cpu-profiles.md §11.3).
 */
void dcache_user_stream(struct ptsim_machine *m, uint64_t bytes)
{
	struct dcache *c = m->dcache;

	memset(c->stream, 0, sizeof(c->stream));
	for (int i = 0; i < 3; i++) {
		c->lv[i].user_bytes += bytes;
		if (c->lv[i].user_bytes >= c->lv[i].bytes)
			level_empty(&c->lv[i]);
	}
}

/* bytes streamed into one level: emptied once they reach its size (§11.3's rule) */
static void level_stream(struct dcache_level *l, uint64_t bytes)
{
	l->user_bytes += bytes;
	if (l->user_bytes >= l->bytes)
		level_empty(l);
}

/*
 * The kernel's page clearing and copying (doc/cpu-profiles.md §11.6), placed
 * as the program's streams are, by bytes: v6.12 arch/arm64/lib/clear_page.S
 * zeroes a page with DC ZVA, one 64-byte block at a time, and copy_page.S
 * copies it with LDP loads and STNP stores. Full-line writes put the L1 in
 * write streaming mode (Cortex-A76 TRM, "Write streaming mode": a store or
 * DC ZVA that misses writes out to the L2 or beyond, no L1 linefill), so the
 * zeroed or copied-to lines pass the L1 by and go to the L2 and the
 * last-level cache; a copy's source is loaded through all three levels.
 * Not priced here: the zeroing and copying bandwidth classes price them.
 */
void dcache_page_clear(struct ptsim_machine *m, uint64_t bytes)
{
	struct dcache *c = m->dcache;

	level_stream(&c->lv[1], bytes);
	level_stream(&c->lv[2], bytes);
}

void dcache_page_copy(struct ptsim_machine *m, uint64_t bytes)
{
	struct dcache *c = m->dcache;

	level_stream(&c->lv[0], bytes);		/* the source's loads */
	level_stream(&c->lv[1], 2 * bytes);	/* and the destination's streamed stores */
	level_stream(&c->lv[2], 2 * bytes);
}

/*
 * An L1 miss seen by the prefetcher: true if a trained stream had line
 * ready (then the stream moves on); otherwise the miss trains a stream or
 * starts one.
 */
static bool stream_prefetched(struct dcache *c, struct dcache_stream *stream, uint64_t line)
{
	const uint64_t region = line >> (REGION_SHIFT - LINE_SHIFT);
	struct dcache_stream *lru = &stream[0];

	c->stamp++;
	for (int i = 0; i < NR_STREAMS; i++) {
		struct dcache_stream *s = &stream[i];
		int dir = line == s->last + 1 ? 1 : line + 1 == s->last ? -1 : 0;

		if (s->stamp && dir && s->last >> (REGION_SHIFT - LINE_SHIFT) == region) {
			bool ready = s->dir == dir;

			s->dir = dir;
			s->last = line;
			s->stamp = c->stamp;
			return ready;
		}
		if (s->stamp < lru->stamp)
			lru = s;
	}
	lru->last = line;
	lru->dir = 0;
	lru->stamp = c->stamp;
	return false;
}

/*
 * One access to the line of addr; the level it hit is counted when priced.
 * stream: the prefetcher that sees the access's L1 miss, the core's L1 data
 * prefetcher for its loads, the walker's table prefetcher for its reads.
 */
/* l1: the family's L1-hit event; its prefetch, L2, LLC and memory events follow it in that order */
_Static_assert(PTSIM_EV_DCACHE_DRAM - PTSIM_EV_DCACHE_L1_HIT == 4 &&
		       PTSIM_EV_DCACHE_OBJ_DRAM - PTSIM_EV_DCACHE_OBJ_L1_HIT == 4 &&
		       PTSIM_EV_DCACHE_OBJ_L2_HIT - PTSIM_EV_DCACHE_OBJ_L1_HIT ==
			       PTSIM_EV_DCACHE_L2_HIT - PTSIM_EV_DCACHE_L1_HIT,
	       "the two families of level events line up");

static inline __attribute__((always_inline)) void access_line_ev(struct ptsim_machine *m,
								  uint64_t addr, bool priced,
								  struct dcache_stream *stream,
								  enum ptsim_event l1)
{
	struct dcache *c = m->dcache;
	const uint64_t line = addr >> LINE_SHIFT;
	enum ptsim_event ev;

	/* a miss fills the L1 here; a plain store (not priced) allocates in the L1 only */
	if (level_access(&c->lv[0], line)) {
		if (priced)
			count(m, l1, 1);
		return;
	}
	if (!priced)
		return;
	/* each level missed is filled on the way in (level_access), as the L1 was */
	if (stream_prefetched(c, stream, line)) {
		ev = PTSIM_EV_DCACHE_PREFETCH_HIT;
		level_access(&c->lv[1], line);
		level_access(&c->lv[2], line);
	} else if (level_access(&c->lv[1], line)) {
		ev = PTSIM_EV_DCACHE_L2_HIT;
	} else if (level_access(&c->lv[2], line)) {
		ev = PTSIM_EV_DCACHE_LLC_HIT;
	} else {
		ev = PTSIM_EV_DCACHE_DRAM;
	}
	count(m, (enum ptsim_event)(l1 + (ev - PTSIM_EV_DCACHE_L1_HIT)), 1);
}

static void access_line(struct ptsim_machine *m, uint64_t addr, bool priced,
			struct dcache_stream *stream)
{
	access_line_ev(m, addr, priced, stream, PTSIM_EV_DCACHE_L1_HIT);
}

/*
 * Is line the most recently used of its L1 set (of the current generation)?
 * An access to it is then an L1 hit that changes nothing (level_access's
 * first test, without its call): the hit path the descriptor loops take for
 * nearly every access after a line's first.
 */
static inline bool l1_front_hit(const struct dcache *c, uint64_t line)
{
	const struct dcache_level *l = &c->lv[0];
	const uint64_t *b = &l->pool[(size_t)(line & l->set_mask) * (l->ways + 1)];

	return b[1] == line + 1 && b[0] == l->gen;
}

/* desc_addr's memo missed: look the table page up, and remember it when known. */
static __attribute__((noinline)) uint64_t desc_addr_lookup(struct dcache *c, uint64_t key,
							   uint64_t off)
{
	uint64_t pfn;

	if (!u64map_get(&c->table_pfn, key, &pfn))
		return UNKNOWN_TABLE | off;
	c->memo_key = key;
	c->memo_pfn = pfn;
	return pfn << c->page_shift | off;
}

/*
 * The address the cache sees for a descriptor: its table page's PFN and its
 * offset. The memo hit is in line; the lookup is out of line, so the hit
 * paths that use this make no call.
 */
static inline uint64_t desc_addr(struct dcache *c, const void *p)
{
	const uint64_t key = (uintptr_t)p >> c->page_shift;
	const uint64_t off = (uintptr_t)p & ((UINT64_C(1) << c->page_shift) - 1);

	if (key != c->memo_key)
		return desc_addr_lookup(c, key, off);
	return c->memo_pfn << c->page_shift | off;
}

/*
 * nr descriptors from desc, all in one table page (the callers' batches never
 * cross one), accessed in order. The first access to each line leaves that
 * line at the front of its L1 set (access_line), so the line's next
 * descriptors are L1 hits that change nothing: one access per line, and the
 * rest of the line's loads counted as L1 hits together.
 */
static inline __attribute__((always_inline)) void desc_access(struct ptsim_machine *m,
							       const void *desc, unsigned int nr,
							       bool load)
{
	struct dcache *c = m->dcache;
	const uint64_t addr = desc_addr(c, desc);
	const uint64_t per_line = (UINT64_C(1) << LINE_SHIFT) / sizeof(uint64_t);
	uint64_t i = 0, l1_hits = 0;

	while (i < nr) {
		uint64_t a = addr + i * sizeof(uint64_t);
		/* this line's descriptors from i: up to the line's end, or the batch's */
		uint64_t in_line = MIN(per_line - ((a >> 3) & (per_line - 1)), nr - i);

		if (l1_front_hit(c, a >> LINE_SHIFT)) {
			l1_hits += in_line;
		} else {
			access_line(m, a, load, load ? c->stream : NULL);
			l1_hits += in_line - 1;
		}
		i += in_line;
	}
	if (load && l1_hits)
		count(m, PTSIM_EV_DCACHE_L1_HIT, l1_hits);
}

static __attribute__((noinline)) void desc_load_lines(struct ptsim_machine *m, const void *desc,
						      unsigned int nr)
{
	desc_access(m, desc, nr, true);
}

static __attribute__((noinline)) void desc_store_lines(struct ptsim_machine *m, const void *desc,
						       unsigned int nr)
{
	desc_access(m, desc, nr, false);
}

/*
 * Is the whole batch in one line, and that line the front of its L1 set?
 * Then the batch is nr L1 hits (for a load) and changes nothing: the most
 * common call, answered without a loop or a call below it.
 */
static inline bool desc_front_hit(struct dcache *c, const void *desc, unsigned int nr)
{
	const uint64_t addr = desc_addr(c, desc);
	const uint64_t per_line = (UINT64_C(1) << LINE_SHIFT) / sizeof(uint64_t);

	return ((addr >> 3) & (per_line - 1)) + nr <= per_line && l1_front_hit(c, addr >> LINE_SHIFT);
}

void dcache_desc_load(struct ptsim_machine *m, const void *desc, unsigned int nr)
{
	if (nr && desc_front_hit(m->dcache, desc, nr))
		count(m, PTSIM_EV_DCACHE_L1_HIT, nr);
	else
		desc_load_lines(m, desc, nr);
}

void dcache_desc_store(struct ptsim_machine *m, const void *desc, unsigned int nr)
{
	if (!nr || !desc_front_hit(m->dcache, desc, nr))
		desc_store_lines(m, desc, nr);
}

void dcache_page_load(struct ptsim_machine *m, uint64_t pfn)
{
	access_line(m, VMEMMAP_BASE + (pfn << LINE_SHIFT), true, m->dcache->stream);
}

/* A plain store to pfn's struct page: allocates its line, not priced. */
void dcache_page_store(struct ptsim_machine *m, uint64_t pfn)
{
	access_line(m, VMEMMAP_BASE + (pfn << LINE_SHIFT), false, NULL);
}

/*
 * The kernel's own objects (mm_struct, vm_area_struct, anon_vma, maple and
 * xarray nodes, address_space): the primitives form their synthetic slab
 * addresses (src/primitives/kobj.h, doc/cpu-profiles.md §11.7) in a region
 * of their own, and their loads and atomics are priced here as a struct
 * page's are, through the core's L1 data prefetcher, and counted in the
 * PTSIM_EV_DCACHE_OBJ_* family.
 */
void dcache_kobj_load(struct ptsim_machine *m, uint64_t addr)
{
	access_line_ev(m, addr, true, m->dcache->stream, PTSIM_EV_DCACHE_OBJ_L1_HIT);
}

void dcache_kobj_store(struct ptsim_machine *m, uint64_t addr)
{
	access_line_ev(m, addr, false, NULL, PTSIM_EV_DCACHE_OBJ_L1_HIT);
}

/*
 * An instruction fetch that missed the L1I (doc/cpu-profiles.md §11.8): the
 * L1I is not modelled, so the line (at its physical address, the same
 * address space as the table pages') is looked up in the unified L2 and the
 * last level, filled there on a miss, never in the L1D, and counted by the
 * level it hit.
 */
void dcache_ifetch(struct ptsim_machine *m, uint64_t pa)
{
	struct dcache *c = m->dcache;
	const uint64_t line = pa >> LINE_SHIFT;

	/* each level missed is filled on the way in (level_access) */
	if (level_access(&c->lv[1], line))
		count(m, PTSIM_EV_ICACHE_L2_HIT, 1);
	else if (level_access(&c->lv[2], line))
		count(m, PTSIM_EV_ICACHE_LLC_HIT, 1);
	else
		count(m, PTSIM_EV_ICACHE_DRAM, 1);
}

/*
 * n hardware walks whose last read is the descriptor at desc (n > 1 only
 * for the walks of a hole, which all end at one empty entry). The walker's
 * rule (doc/cpu-profiles.md §11.4): its upper-level reads hit the walk
 * cache and are not memory accesses; the last read looks the data caches
 * up as a load does (the Cortex-A76 TRM's "MMU memory accesses": with
 * write-back table attributes, which Linux's TCR_EL1 sets, the walk looks
 * up the data cache) and fills them on a miss. It is not seen by the core's
 * L1 data prefetcher but by the walker's translation table prefetcher (the
 * TRM's MMU components: it detects walks of contiguous table entries and
 * prefetches the next), modelled with the L1 prefetcher's rule over the
 * walker's own streams: two misses to adjacent lines of a 4 KiB region
 * train it. The first of the n looks the line up; the others find it in the
 * L1.
 */
void dcache_walk_load(struct ptsim_machine *m, const void *desc, uint64_t n)
{
	if (!n)
		return;
	access_line(m, desc_addr(m->dcache, desc), true, m->dcache->walk_stream);
	if (n > 1)
		count(m, PTSIM_EV_DCACHE_L1_HIT, n - 1);
}
