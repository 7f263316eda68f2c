// SPDX-License-Identifier: MIT
/*
 * The data-cache model's representation (arch/arm64/hw/dcache.c: sets kept
 * in place for the L1, given a block on first use for the L2 and the
 * last-level cache, generations per set) decides exactly what a plain
 * set-associative LRU hierarchy decides. A long random stream of descriptor
 * loads and stores, struct-page loads and program streaming is fed to the
 * model and to the straightforward hierarchy below (every set in place, one
 * array of tags, emptied by clearing), and every load's level must agree, on
 * every CPU, also in a clone made halfway through.
 */
#include "helpers.h"

#define LINE_SHIFT	6
#define REGION_LINES	64	/* the prefetcher's 4 KiB region */
#define NR_STREAMS	8
#define VMEMMAP_LINE	(UINT64_C(1) << 50)	/* the vmemmap's first line: 1 << 56 bytes */
#define NR_TABLES	64	/* fake table pages the stream's descriptors are in */

/* One level of the reference: every set in place, tags line + 1, MRU first. */
struct ref_level {
	uint64_t *tag;
	uint64_t sets, ways, bytes, user_bytes;
	bool hashed;
};

struct ref_stream {
	uint64_t last;
	uint32_t stamp;
	int dir;
};

struct ref_cache {
	struct ref_level lv[3];
	struct ref_stream stream[NR_STREAMS];
	uint32_t stamp;
};

static void ref_init(struct ref_cache *r, const struct ptsim_cpu_info *ci)
{
	memset(r, 0, sizeof(*r));
	for (int i = 0; i < 3; i++) {
		struct ref_level *l = &r->lv[i];

		l->bytes = (uint64_t)ci->dcache_kib[i] * 1024;
		l->ways = ci->dcache_ways[i];
		l->sets = (l->bytes >> LINE_SHIFT) / l->ways;
		l->hashed = i > 0;
		l->tag = calloc(l->sets * l->ways, sizeof(*l->tag));
		assert_non_null(l->tag);
	}
}

static void ref_copy(struct ref_cache *dst, const struct ref_cache *src)
{
	*dst = *src;
	for (int i = 0; i < 3; i++) {
		dst->lv[i].tag = malloc(src->lv[i].sets * src->lv[i].ways * sizeof(uint64_t));
		assert_non_null(dst->lv[i].tag);
		memcpy(dst->lv[i].tag, src->lv[i].tag, src->lv[i].sets * src->lv[i].ways * sizeof(uint64_t));
	}
}

static void ref_free(struct ref_cache *r)
{
	for (int i = 0; i < 3; i++)
		free(r->lv[i].tag);
}

/* The model's set mapping: the L1 by the low bits, the others by the multiplicative hash. */
static uint64_t *ref_set(struct ref_level *l, uint64_t line)
{
	uint64_t set = l->hashed ? (((line * UINT64_C(0x9e3779b97f4a7c15)) >> 32) * l->sets) >> 32 :
				   line % l->sets;

	return &l->tag[set * l->ways];
}

static bool ref_lookup(struct ref_level *l, uint64_t line)
{
	uint64_t *set = ref_set(l, line);

	for (uint64_t w = 0; w < l->ways; w++) {
		if (set[w] == line + 1) {
			for (uint64_t k = w; k > 0; k--)
				set[k] = set[k - 1];
			set[0] = line + 1;
			return true;
		}
	}
	return false;
}

static void ref_fill(struct ref_level *l, uint64_t line)
{
	uint64_t *set = ref_set(l, line);

	for (uint64_t k = l->ways - 1; k > 0; k--)
		set[k] = set[k - 1];
	set[0] = line + 1;
}

static bool ref_prefetched(struct ref_cache *r, uint64_t line)
{
	struct ref_stream *lru = &r->stream[0];

	r->stamp++;
	for (int i = 0; i < NR_STREAMS; i++) {
		struct ref_stream *s = &r->stream[i];
		int dir = line == s->last + 1 ? 1 : line + 1 == s->last ? -1 : 0;

		if (s->stamp && dir && s->last / REGION_LINES == line / REGION_LINES) {
			bool ready = s->dir == dir;

			s->dir = dir;
			s->last = line;
			s->stamp = r->stamp;
			return ready;
		}
		if (s->stamp < lru->stamp)
			lru = s;
	}
	lru->last = line;
	lru->dir = 0;
	lru->stamp = r->stamp;
	return false;
}

/* One access; the event of the level a load hit, or PTSIM_EV__COUNT for a store. */
static enum ptsim_event ref_access(struct ref_cache *r, uint64_t line, bool load)
{
	enum ptsim_event ev;

	if (ref_lookup(&r->lv[0], line))
		return load ? PTSIM_EV_DCACHE_L1_HIT : PTSIM_EV__COUNT;
	if (!load) {
		ref_fill(&r->lv[0], line);
		return PTSIM_EV__COUNT;
	}
	if (ref_prefetched(r, line)) {
		ev = PTSIM_EV_DCACHE_PREFETCH_HIT;
		if (!ref_lookup(&r->lv[1], line))
			ref_fill(&r->lv[1], line);
		if (!ref_lookup(&r->lv[2], line))
			ref_fill(&r->lv[2], line);
	} else if (ref_lookup(&r->lv[1], line)) {
		ev = PTSIM_EV_DCACHE_L2_HIT;
	} else if (ref_lookup(&r->lv[2], line)) {
		ev = PTSIM_EV_DCACHE_LLC_HIT;
		ref_fill(&r->lv[1], line);
	} else {
		ev = PTSIM_EV_DCACHE_DRAM;
		ref_fill(&r->lv[2], line);
		ref_fill(&r->lv[1], line);
	}
	ref_fill(&r->lv[0], line);
	return ev;
}

static void ref_user_stream(struct ref_cache *r, uint64_t bytes)
{
	memset(r->stream, 0, sizeof(r->stream));
	for (int i = 0; i < 3; i++) {
		struct ref_level *l = &r->lv[i];

		l->user_bytes += bytes;
		if (l->user_bytes >= l->bytes) {
			l->user_bytes = 0;
			memset(l->tag, 0, l->sets * l->ways * sizeof(*l->tag));
		}
	}
}

static const enum ptsim_event level_ev[] = {
	PTSIM_EV_DCACHE_L1_HIT, PTSIM_EV_DCACHE_PREFETCH_HIT, PTSIM_EV_DCACHE_L2_HIT,
	PTSIM_EV_DCACHE_LLC_HIT, PTSIM_EV_DCACHE_DRAM,
};

/* The model's per-level counts, as they stand. */
static void model_levels(const struct ptsim_machine *m, uint64_t out[5])
{
	for (int i = 0; i < 5; i++)
		out[i] = m->op.ev[level_ev[i]];
}

struct driver {
	uint64_t rng;
	uint8_t *tables;	/* NR_TABLES fake table pages, never read or written */
	uint64_t pfn[NR_TABLES];
};

static uint64_t next(struct driver *d)
{
	d->rng ^= d->rng << 13;
	d->rng ^= d->rng >> 7;
	d->rng ^= d->rng << 17;
	return d->rng;
}

static void register_tables(struct ptsim_machine *m, const struct driver *d)
{
	for (int t = 0; t < NR_TABLES; t++)
		assert_int_equal(dcache_table_add(m, d->tables + (size_t)t * SZ_4K, d->pfn[t]), 0);
}

/*
 * n random steps on the model and the reference: descriptor runs (loads,
 * stores) in the fake tables, struct pages of a working set larger than the
 * L2 (some in sequential runs, for the prefetcher), and now and then the
 * program streaming enough to empty a level.
 */
static void run_steps(struct ptsim_machine *m, struct ref_cache *r, struct driver *d, unsigned int n,
		      uint64_t working_pfns)
{
	static uint64_t seq_pfn;

	for (unsigned int i = 0; i < n; i++) {
		uint64_t before[5], after[5], want[5] = { 0 };
		uint64_t x = next(d), kind = x % 100;

		model_levels(m, before);
		if (kind < 40) {
			unsigned int t = (unsigned int)(x >> 8) % NR_TABLES;
			unsigned int idx = (unsigned int)(x >> 16) % 512, nr = 1 + (unsigned int)(x >> 32) % 16;
			uint64_t addr = d->pfn[t] << 12 | (uint64_t)idx * 8;
			bool load = kind < 32;

			nr = MIN(nr, 512 - idx);
			if (load)
				dcache_desc_load(m, d->tables + (size_t)t * SZ_4K + idx * 8, nr);
			else
				dcache_desc_store(m, d->tables + (size_t)t * SZ_4K + idx * 8, nr);
			for (unsigned int k = 0; k < nr; k++) {
				enum ptsim_event ev = ref_access(r, (addr + k * 8) >> LINE_SHIFT, load);

				for (int e = 0; e < 5; e++)
					want[e] += ev == level_ev[e];
			}
		} else if (kind < 99) {
			uint64_t pfn = kind < 90 ? (x >> 8) % working_pfns : seq_pfn++ % working_pfns;
			enum ptsim_event ev;

			dcache_page_load(m, pfn);
			ev = ref_access(r, VMEMMAP_LINE + pfn, true);
			for (int e = 0; e < 5; e++)
				want[e] += ev == level_ev[e];
		} else {
			uint64_t bytes = ((x >> 8) % 4096) << 12;

			dcache_user_stream(m, bytes);
			ref_user_stream(r, bytes);
		}
		model_levels(m, after);
		for (int e = 0; e < 5; e++)
			if (after[e] - before[e] != want[e])
				fail_msg("step %u: %s %llu, the reference %llu", i,
					 ptsim_event_name(level_ev[e]),
					 (unsigned long long)(after[e] - before[e]),
					 (unsigned long long)want[e]);
	}
}

static void check_cpu(enum ptsim_cpu cpu)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, cpu, NULL), *copy;
	struct ptsim_cpu_info ci;
	struct ref_cache r, rc;
	struct driver d = { .rng = 0x9e3779b97f4a7c15u ^ (uint64_t)cpu };
	/* twice the L2's lines: every level sees hits, evictions and misses */
	uint64_t working;

	assert_int_equal(ptsim_cpu_info(cpu, &ci), 0);
	working = (uint64_t)ci.dcache_kib[1] * 1024 / 64 * 2;
	d.tables = aligned_alloc(SZ_4K, (size_t)NR_TABLES * SZ_4K);
	assert_non_null(d.tables);
	for (int t = 0; t < NR_TABLES; t++)
		d.pfn[t] = 0x80000 + (uint64_t)t * 37;
	register_tables(m, &d);
	ref_init(&r, &ci);
	run_steps(m, &r, &d, 200000, working);
	/* the clone holds what the source holds */
	assert_int_equal(ptsim_machine_clone(m, &copy), 0);
	register_tables(copy, &d);
	ref_copy(&rc, &r);
	{
		struct driver dc = d;

		run_steps(copy, &rc, &dc, 100000, working);
	}
	run_steps(m, &r, &d, 100000, working);
	ref_free(&rc);
	ref_free(&r);
	ptsim_machine_destroy(copy);
	ptsim_machine_destroy(m);
	free(d.tables);
}

static void test_every_cpu_matches_reference(void **state)
{
	(void)state;
	for (unsigned int cpu = 0; cpu < PTSIM_CPU__COUNT; cpu++)
		check_cpu((enum ptsim_cpu)cpu);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_cpu_matches_reference),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
