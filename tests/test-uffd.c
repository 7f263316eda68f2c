// SPDX-License-Identifier: MIT
/* UFFDIO_MOVE before and after TLB-flush batching (doc/uffd-move.md). */
#include "helpers.h"

#define SRC SZ_1G
#define DST (2 * SZ_1G)
#define RW (PTSIM_PROT_READ | PTSIM_PROT_WRITE)
#define PA (PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS)

struct fx {
	struct ptsim_machine *m;
	struct ptsim_mm *mm;
};

static unsigned int bbm;
static void count_bbm(const struct ptsim_diag *d, void *arg)
{
	(void)arg;
	bbm += d->kind == PTSIM_DIAG_BBM_VIOLATION || d->kind == PTSIM_DIAG_INVARIANT;
}

/* src: len of order-0 pages; dst: a registered, empty VMA of the same size. */
static struct fx setup(enum ptsim_granule gr, bool batching, uint64_t src, uint64_t dst, uint64_t len,
		       unsigned int order)
{
	struct fx f;

	f.m = new_machine(gr, 48, PTSIM_CPU_ANDROID_X1, NULL);
	ptsim_set_diag_handler(f.m, count_bbm, NULL);
	bbm = 0;
	ptsim_feature_set(f.m, PTSIM_FEAT_UFFD_MOVE_BATCHING, batching);
	assert_int_equal(ptsim_mm_create(f.m, &f.mm), 0);
	assert_int_equal(ptsim_mmap(f.mm, src, len, RW, PA, NULL), 0);
	assert_int_equal(ptsim_mmap(f.mm, dst, len, RW, PA, NULL), 0);
	assert_int_equal(ptsim_populate(f.mm, src, len, order, true), 0);
	assert_int_equal(ptsim_uffd_register(f.mm, dst, len), 0);
	return f;
}

static struct ptsim_stats last(struct fx *f)
{
	struct ptsim_stats s;

	ptsim_last_stats(f->m, &s);
	return s;
}

/* Per page, arm64's set_pte_at read included: 7 R (doc/uffd-move.md). */
static void test_baseline_per_page(void **state)
{
	(void)state;
	for (int same_table = 0; same_table < 2; same_table++) {
		/* dst right after src shares its PTE table */
		uint64_t dst = same_table ? SRC + SZ_64K : DST;
		struct fx f = setup(PTSIM_GRANULE_4K, false, SRC, dst, SZ_64K, 0);
		struct ptsim_stats s;

		/* a first move makes the dst PTE table exist, so the second allocates nothing */
		assert_int_equal(ptsim_uffd_move(f.mm, dst + SZ_4K, SRC + SZ_4K, SZ_4K, 0), (int64_t)SZ_4K);
		assert_int_equal(ptsim_uffd_move(f.mm, dst, SRC, SZ_4K, 0), (int64_t)SZ_4K);
		s = last(&f);
		assert_int_equal(s.ev[PTSIM_EV_PTE_READ], 7);
		assert_int_equal(s.ev[PTSIM_EV_PTE_XCHG], 1);
		assert_int_equal(s.ev[PTSIM_EV_PTE_WRITE], 1);
		assert_int_equal(s.ev[PTSIM_EV_TLBI_VA], 1);
		assert_int_equal(s.ev[PTSIM_EV_DSB_ISH], 1);
		assert_int_equal(s.ev[PTSIM_EV_FOLIO_LOOKUP], 1);
		assert_int_equal(s.ev[PTSIM_EV_PTL_LOCK], same_table ? 4 : 5);
		assert_int_equal(s.ev[PTSIM_EV_FOLIO_TRYLOCK], 1);
		assert_int_equal(s.ev[PTSIM_EV_FOLIO_UNLOCK], 1);
		assert_int_equal(s.ev[PTSIM_EV_FOLIO_GET], 1);
		assert_int_equal(s.ev[PTSIM_EV_FOLIO_PUT], 1);
		assert_int_equal(s.ev[PTSIM_EV_ANON_VMA_LOCK], 1);
		assert_int_equal(s.ev[PTSIM_EV_ANON_VMA_REF], 1);
		assert_int_equal(s.ev[PTSIM_EV_RMAP_MOVE], 1);
		assert_int_equal(s.ev[PTSIM_EV_MMU_NOTIFIER_RANGE], 1);
		assert_int_equal(s.ev[PTSIM_EV_PTE_MAP], 2);
		/* move_pages's cond_resched and the notifier start's might_sleep call */
		assert_int_equal(s.ev[PTSIM_EV_COND_RESCHED], 2);
		assert_int_equal(s.ev[PTSIM_EV_TABLE_ALLOC], 0);
		ptsim_machine_destroy(f.m);
	}
}

/* A batch of k: the first page as the baseline, then 3 R (+1 set) per page, one flush. */
static void test_batched_counts(void **state)
{
	struct fx f = setup(PTSIM_GRANULE_4K, true, SRC, DST, SZ_64K, 0);
	struct ptsim_stats s;
	const uint64_t k = 16;

	(void)state;
	assert_int_equal(ptsim_uffd_move(f.mm, DST, SRC, k * SZ_4K, 0), (int64_t)(k * SZ_4K));
	s = last(&f);
	assert_int_equal(s.ev[PTSIM_EV_PTE_READ], 7 + (k - 1) * 4);
	assert_int_equal(s.ev[PTSIM_EV_PTE_XCHG], k);
	assert_int_equal(s.ev[PTSIM_EV_PTE_WRITE], k);
	/* one flush_tlb_range of k pages: no FEAT_TLBIRANGE on this CPU, so k TLBI-VA, one DSB */
	assert_int_equal(s.ev[PTSIM_EV_FLUSH_TLB_RANGE], 1);
	assert_int_equal(s.ev[PTSIM_EV_TLBI_VA], k);
	assert_int_equal(s.ev[PTSIM_EV_DSB_ISH], 1);
	assert_int_equal(s.ev[PTSIM_EV_FOLIO_LOOKUP], k);
	assert_int_equal(s.ev[PTSIM_EV_FOLIO_TRYLOCK], k);
	assert_int_equal(s.ev[PTSIM_EV_FOLIO_UNLOCK], k);
	assert_int_equal(s.ev[PTSIM_EV_FOLIO_GET], 1);
	assert_int_equal(s.ev[PTSIM_EV_FOLIO_PUT], 1);
	/*
	 * move_pages' anon_vma_prepare of the destination VMA, which has none
	 * yet: __anon_vma_prepare locks the new anon_vma and takes
	 * mm->page_table_lock, beside the move's own anon_vma lock and PTLs
	 */
	assert_int_equal(s.ev[PTSIM_EV_ANON_VMA_LOCK], 2);
	assert_int_equal(s.ev[PTSIM_EV_SLAB_ALLOC], 2);
	assert_int_equal(s.ev[PTSIM_EV_RMAP_MOVE], k);
	assert_int_equal(s.ev[PTSIM_EV_MMU_NOTIFIER_RANGE], 1);
	assert_int_equal(s.ev[PTSIM_EV_PTL_LOCK], 6);
	assert_int_equal(bbm, 0);
	ptsim_machine_destroy(f.m);
}

/* Batches never cross a PMD boundary on either side: 512 / 2048 / 8192 pages. */
static void test_batch_bounds(void **state)
{
	const enum ptsim_granule grs[] = { PTSIM_GRANULE_4K, PTSIM_GRANULE_16K, PTSIM_GRANULE_64K };

	(void)state;
	for (int i = 0; i < 3; i++) {
		struct ptsim_geometry g;

		ptsim_geometry_get(grs[i], 48, &g);
		uint64_t pmd = g.pmd_size, len = 2 * pmd;
		uint64_t src = 64 * pmd, dst = 128 * pmd;
		struct fx f = setup(grs[i], true, src, dst, len, 0);
		struct ptsim_stats s;

		assert_int_equal(ptsim_uffd_move(f.mm, dst, src, len, 0), (int64_t)len);
		s = last(&f);
		/* two batches of PTRS_PER_PTE pages, each one ASID-fallback flush */
		assert_int_equal(s.ev[PTSIM_EV_RMAP_MOVE], 2 * g.ptrs_per_table);
		assert_int_equal(s.ev[PTSIM_EV_FLUSH_TLB_MM], 2);
		assert_int_equal(s.ev[PTSIM_EV_MMU_NOTIFIER_RANGE], 2);
		ptsim_machine_destroy(f.m);
	}
	/* src 3 pages into its PMD: batches alternate 509 and 3 pages (4K) */
	struct fx f = setup(PTSIM_GRANULE_4K, true, SRC, DST, 4 * SZ_2M, 0);
	struct ptsim_stats s;

	assert_int_equal(ptsim_uffd_move(f.mm, DST, SRC + 3 * SZ_4K, SZ_2M, 0), (int64_t)SZ_2M);
	s = last(&f);
	assert_int_equal(s.ev[PTSIM_EV_MMU_NOTIFIER_RANGE], 2);	/* 509 + 3 */
	ptsim_machine_destroy(f.m);
}

static void test_errors(void **state)
{
	(void)state;
	for (int batching = 0; batching < 2; batching++) {
		struct fx f = setup(PTSIM_GRANULE_4K, batching, SRC, DST, SZ_2M, 0);
		struct ptsim_translation tr;

		/* arguments */
		assert_int_equal(ptsim_uffd_move(f.mm, DST + 1, SRC, SZ_4K, 0), -EINVAL);
		assert_int_equal(ptsim_uffd_move(f.mm, DST, SRC, 0, 0), -EINVAL);
		assert_int_equal(ptsim_uffd_move(f.mm, DST, SRC, SZ_4K, 0x80), -EINVAL);
		assert_int_equal(ptsim_uffd_move(NULL, DST, SRC, SZ_4K, 0), -EINVAL);
		assert_int_equal(ptsim_uffd_move(f.mm, UINT64_MAX & ~UINT64_C(4095), SRC, SZ_2M, 0),
				 -EINVAL);
		/* dst not registered (src is not) */
		assert_int_equal(ptsim_uffd_move(f.mm, SRC, DST, SZ_4K, 0), -EINVAL);
		/* beyond the VMA */
		assert_int_equal(ptsim_uffd_move(f.mm, DST, SRC, 2 * SZ_2M, 0), -EINVAL);
		/* mmap_changing */
		ptsim_uffd_set_mmap_changing(f.mm, true);
		assert_int_equal(ptsim_uffd_move(f.mm, DST, SRC, SZ_4K, 0), -EAGAIN);
		ptsim_uffd_set_mmap_changing(f.mm, false);
		/* non-exclusive and pinned folios */
		ptsim_folio_set_exclusive(f.mm, SRC, false);
		assert_int_equal(ptsim_uffd_move(f.mm, DST, SRC, SZ_4K, 0), -EBUSY);
		ptsim_folio_set_exclusive(f.mm, SRC, true);
		ptsim_folio_set_pinned(f.mm, SRC, true);
		assert_int_equal(ptsim_uffd_move(f.mm, DST, SRC, SZ_4K, 0), -EBUSY);
		ptsim_folio_set_pinned(f.mm, SRC, false);
		/* a partial success reports the bytes moved: the pinned third page stops it */
		ptsim_folio_set_pinned(f.mm, SRC + 2 * SZ_4K, true);
		assert_int_equal(ptsim_uffd_move(f.mm, DST, SRC, 4 * SZ_4K, 0), (int64_t)(2 * SZ_4K));
		ptsim_folio_set_pinned(f.mm, SRC + 2 * SZ_4K, false);
		/* dst not empty */
		assert_int_equal(ptsim_uffd_move(f.mm, DST, SRC + 8 * SZ_4K, SZ_4K, 0), -EEXIST);
		/* holes: -ENOENT, or counted as moved with ALLOW_SRC_HOLES */
		assert_int_equal(ptsim_uffd_move(f.mm, DST + 16 * SZ_4K, SRC, SZ_4K, 0), -ENOENT);
		assert_int_equal(ptsim_uffd_move(f.mm, DST + 16 * SZ_4K, SRC, 2 * SZ_4K,
						 PTSIM_UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES), (int64_t)(2 * SZ_4K));
		assert_int_equal(ptsim_translate(f.mm, DST + 16 * SZ_4K, &tr), -ENOENT);
		assert_int_equal(ptsim_translate(f.mm, DST, &tr), 0);
		assert_int_equal(bbm, 0);
		ptsim_machine_destroy(f.m);
	}
}

static void test_zero_swap_and_lock(void **state)
{
	(void)state;
	for (int batching = 0; batching < 2; batching++) {
		struct fx f = setup(PTSIM_GRANULE_4K, batching, SRC, DST, SZ_2M, 0);
		struct ptsim_mm *mm = f.mm;
		struct ptsim_stats s;
		struct ptsim_translation tr;
		const uint64_t Z = SRC + 2 * SZ_2M;

		/* zero-page entries: one page per call, always flushed */
		assert_int_equal(ptsim_mmap(mm, Z, SZ_2M, RW, PA, NULL), 0);
		assert_int_equal(ptsim_populate(mm, Z, 4 * SZ_4K, 0, false), 0);
		assert_int_equal(ptsim_uffd_move(mm, DST, Z, 4 * SZ_4K, 0), (int64_t)(4 * SZ_4K));
		s = last(&f);
		assert_int_equal(s.ev[PTSIM_EV_TLBI_VA], 4);
		assert_int_equal(s.ev[PTSIM_EV_DSB_ISH], 4);
		assert_int_equal(s.ev[PTSIM_EV_MMU_NOTIFIER_RANGE], 4);
		assert_int_equal(ptsim_translate(mm, DST + SZ_4K, &tr), 0);
		assert_true(!tr.write);
		/* swap entries: one page per call, no flush */
		assert_int_equal(ptsim_swapout(mm, SRC, 4 * SZ_4K), 0);
		assert_int_equal(ptsim_uffd_move(mm, DST + 8 * SZ_4K, SRC, 4 * SZ_4K, 0),
				 (int64_t)(4 * SZ_4K));
		s = last(&f);
		assert_int_equal(s.ev[PTSIM_EV_TLBI_VA] + s.ev[PTSIM_EV_TLBI_ASID], 0);
		assert_int_equal(s.ev[PTSIM_EV_SWAP_LOOKUP], 4);
		/* a contended folio lock: block, then retry */
		ptsim_folio_contend_lock(mm, SRC + 8 * SZ_4K, 1);
		assert_int_equal(ptsim_uffd_move(mm, DST + 16 * SZ_4K, SRC + 8 * SZ_4K, SZ_4K, 0),
				 (int64_t)SZ_4K);
		s = last(&f);
		assert_int_equal(s.ev[PTSIM_EV_FOLIO_LOCK_WAIT], 1);
		assert_int_equal(s.ev[PTSIM_EV_FOLIO_TRYLOCK], 1);
		assert_int_equal(bbm, 0);
		ptsim_machine_destroy(f.m);
	}
}

static void test_large_folios(void **state)
{
	(void)state;
	for (int batching = 0; batching < 2; batching++) {
		/* PTE-mapped 64K folios are split first, then moved */
		struct fx f = setup(PTSIM_GRANULE_4K, batching, SRC, DST, SZ_2M, 4);
		struct ptsim_folio_info fi;
		struct ptsim_stats s;

		assert_int_equal(ptsim_uffd_move(f.mm, DST, SRC, 2 * SZ_64K, 0), (int64_t)(2 * SZ_64K));
		s = last(&f);
		assert_int_equal(s.ev[PTSIM_EV_FOLIO_SPLIT], 2);	/* two 64K folios */
		assert_int_equal(ptsim_folio_info(f.mm, DST + 5 * SZ_4K, &fi), 0);
		assert_int_equal(fi.order, 0);
		assert_int_equal(fi.index, (DST + 5 * SZ_4K) >> 12);
		assert_int_equal(bbm, 0);
		ptsim_machine_destroy(f.m);

		/* a PMD-mapped THP: whole PMD moves when both sides are aligned */
		f = setup(PTSIM_GRANULE_4K, batching, SRC, DST, SZ_2M, 9);
		assert_int_equal(ptsim_uffd_move(f.mm, DST, SRC, SZ_2M, 0), (int64_t)SZ_2M);
		s = last(&f);
		assert_int_equal(s.ev[PTSIM_EV_PMD_XCHG], 1);
		assert_int_equal(s.ev[PTSIM_EV_FOLIO_SPLIT], 0);
		struct ptsim_translation tr;
		assert_int_equal(ptsim_translate(f.mm, DST + 12345, &tr), 0);
		assert_int_equal(tr.level, 2);
		ptsim_machine_destroy(f.m);

		/* ... and is split when the range cuts it */
		f = setup(PTSIM_GRANULE_4K, batching, SRC, DST, SZ_2M, 9);
		assert_int_equal(ptsim_uffd_move(f.mm, DST, SRC, SZ_64K, 0), (int64_t)SZ_64K);
		s = last(&f);
		assert_int_equal(s.ev[PTSIM_EV_HUGE_PMD_SPLIT], 1);
		assert_int_equal(s.ev[PTSIM_EV_FOLIO_SPLIT], 1);
		assert_int_equal(ptsim_folio_info(f.mm, SRC + SZ_64K, &fi), 0);
		assert_int_equal(fi.order, 0);
		assert_int_equal(bbm, 0);
		ptsim_machine_destroy(f.m);
	}
}

/* The merged code keeps err at -EAGAIN after a later success: the next call hits -EEXIST. */
static void test_err_quirk(void **state)
{
	(void)state;
	for (int reset = 0; reset < 2; reset++) {
		struct fx f = setup(PTSIM_GRANULE_4K, true, SRC, DST, SZ_2M, 0);
		const uint64_t L = SRC + SZ_2M;

		ptsim_feature_set(f.m, PTSIM_FEAT_UFFD_MOVE_ERR_RESET, reset);
		/* a 64K large folio right after 16 small pages, its lock held once */
		assert_int_equal(ptsim_mmap(f.mm, L, SZ_2M, RW, PA, NULL), 0);
		assert_int_equal(ptsim_populate(f.mm, L, SZ_64K, 4, true), 0);
		assert_int_equal(ptsim_populate(f.mm, L + SZ_64K, SZ_64K, 0, true), 0);
		ptsim_folio_contend_lock(f.mm, L, 1);
		assert_int_equal(ptsim_uffd_register(f.mm, DST, SZ_2M), 0);
		int64_t moved = ptsim_uffd_move(f.mm, DST, L, 2 * SZ_64K, 0);

		assert_int_equal(moved, reset ? (int64_t)(2 * SZ_64K) : -EEXIST);
		/* either way the 64K folio moved, and the totals say so */
		struct ptsim_translation tr;
		struct ptsim_stats t;
		uint64_t bad = 1;

		assert_int_equal(ptsim_translate(f.mm, DST, &tr), 0);
		ptsim_total_stats(f.m, &t);
		assert_true(t.ev[PTSIM_EV_RMAP_MOVE] >= 1);
		assert_int_equal(ptsim_check_invariants(f.m, &bad), 0);
		assert_int_equal(bad, 0);
		ptsim_machine_destroy(f.m);
	}
}

/* A move that fails before anything moved takes back the tables it linked in. */
static void test_failed_move_changes_nothing(void **state)
{
	struct fx f = setup(PTSIM_GRANULE_4K, true, SRC, DST, SZ_2M, 0);
	struct ptsim_stats before, after;
	uint64_t bytes, bytes_after;

	(void)state;
	/* a registered destination 512 GiB away: its PMD and PTE tables do not exist yet */
	assert_int_equal(ptsim_mmap(f.mm, 512 * SZ_1G, SZ_2M, RW, PA, NULL), 0);
	assert_int_equal(ptsim_uffd_register(f.mm, 512 * SZ_1G, SZ_2M), 0);
	/* a never-faulted source beside the populated one: its PMD table exists, no PTE table */
	assert_int_equal(ptsim_mmap(f.mm, SRC + 4 * SZ_2M, SZ_2M, RW, PA, NULL), 0);
	ptsim_mm_pgtable_bytes(f.mm, &bytes);
	ptsim_total_stats(f.m, &before);
	assert_int_equal(ptsim_uffd_move(f.mm, 512 * SZ_1G, SRC + 4 * SZ_2M, SZ_64K, 0), -ENOENT);
	ptsim_mm_pgtable_bytes(f.mm, &bytes_after);
	ptsim_total_stats(f.m, &after);
	assert_int_equal(bytes_after, bytes);
	assert_memory_equal(&before, &after, sizeof(before));
	ptsim_machine_destroy(f.m);
}

/* After a move returns, no CPU's TLB still translates a moved source page. */
static void test_no_stale_source(void **state)
{
	(void)state;
	for (int batching = 0; batching < 2; batching++) {
		struct fx f = setup(PTSIM_GRANULE_4K, batching, SRC, DST, SZ_2M, 0);
		unsigned int n;
		enum ptsim_fault_kind fault;

		for (uint64_t i = 0; i < 32; i++)
			assert_int_equal(ptsim_access(f.mm, 0, SRC + i * SZ_4K, PTSIM_ACCESS_READ, NULL), 0);
		assert_int_equal(ptsim_uffd_move(f.mm, DST, SRC, 32 * SZ_4K, 0), (int64_t)(32 * SZ_4K));
		for (uint64_t i = 0; i < 32; i++) {
			assert_int_equal(ptsim_tlb_probe(f.mm, 0, SRC + i * SZ_4K, PTSIM_TLB_L2, &n, NULL),
					 -ENOENT);
			assert_int_equal(ptsim_access(f.mm, 0, SRC + i * SZ_4K, PTSIM_ACCESS_READ, &fault),
					 -EFAULT);
			assert_int_equal(fault, PTSIM_FAULT_TRANSLATION);
			assert_int_equal(ptsim_access(f.mm, 0, DST + i * SZ_4K, PTSIM_ACCESS_WRITE, NULL), 0);
		}
		assert_int_equal(bbm, 0);
		ptsim_machine_destroy(f.m);
	}
}

/* Random move sequences: identical final translations and folio state before and after. */
static void test_differential(void **state)
{
	uint64_t seed = 12345;

	(void)state;
	for (int scenario = 0; scenario < 30; scenario++) {
		struct fx a = setup(PTSIM_GRANULE_4K, false, SRC, DST, 2 * SZ_2M, 0);
		struct ptsim_mm *bmm;

		assert_int_equal(ptsim_mm_clone(a.mm, &bmm), 0);
		ptsim_feature_set(ptsim_mm_machine(bmm), PTSIM_FEAT_UFFD_MOVE_BATCHING, true);
		ptsim_feature_set(ptsim_mm_machine(bmm), PTSIM_FEAT_UFFD_MOVE_ERR_RESET, true);
		for (int op = 0; op < 10; op++) {
			uint64_t pages = 1 + prng_next(&seed) % 700, s = prng_next(&seed) % 1024, d = prng_next(&seed) % 1024;

			if (s + pages > 1024)
				pages = 1024 - s;
			if (d + pages > 1024)
				pages = 1024 - d;
			if (prng_next(&seed) % 4 == 0)
				ptsim_folio_set_pinned(a.mm, SRC + (s + pages / 2) * SZ_4K, true),
				ptsim_folio_set_pinned(bmm, SRC + (s + pages / 2) * SZ_4K, true);
			unsigned int mode = prng_next(&seed) % 2 ? PTSIM_UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES : 0;
			int64_t ra = ptsim_uffd_move(a.mm, DST + d * SZ_4K, SRC + s * SZ_4K, pages * SZ_4K, mode);
			int64_t rb = ptsim_uffd_move(bmm, DST + d * SZ_4K, SRC + s * SZ_4K, pages * SZ_4K, mode);

			assert_int_equal(ra, rb);
		}
		for (uint64_t va = SRC; va < SRC + 2 * SZ_2M; va += SZ_4K) {
			struct ptsim_translation x, y;
			struct ptsim_folio_info fx, fy;
			uint64_t vas[2] = { va, va - SRC + DST };

			for (int k = 0; k < 2; k++) {
				int ex = ptsim_translate(a.mm, vas[k], &x), ey = ptsim_translate(bmm, vas[k], &y);

				assert_int_equal(ex, ey);
				if (ex)
					continue;
				assert_int_equal(x.pa, y.pa);
				assert_int_equal(x.desc & ~PTE_AF, y.desc & ~PTE_AF);
				assert_int_equal(ptsim_folio_info(a.mm, vas[k], &fx), 0);
				assert_int_equal(ptsim_folio_info(bmm, vas[k], &fy), 0);
				assert_int_equal(fx.index, fy.index);
				assert_int_equal(fx.anon_exclusive, fy.anon_exclusive);
				assert_int_equal(fx.mapcount, fy.mapcount);
			}
		}
		assert_int_equal(bbm, 0);
		ptsim_mm_destroy(bmm);
		ptsim_machine_destroy(a.m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_baseline_per_page),
		cmocka_unit_test(test_batched_counts),
		cmocka_unit_test(test_batch_bounds),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_zero_swap_and_lock),
		cmocka_unit_test(test_large_folios),
		cmocka_unit_test(test_err_quirk),
		cmocka_unit_test(test_failed_move_changes_nothing),
		cmocka_unit_test(test_no_stale_source),
		cmocka_unit_test(test_differential),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
