// SPDX-License-Identifier: MIT
/*
 * The data-cache model (arch/arm64/hw/dcache.c): it prices the kernel's
 * loads of descriptors and struct pages by the level they hit and never
 * changes a kernel count. Cold struct pages come from memory, hot ones from
 * the L1; a sequential run trains the prefetcher (two misses per 4 KiB,
 * then prefetched); the program's own streaming evicts the kernel's lines.
 */
#include "helpers.h"

#define VA	(UINT64_C(1) << 32)
#define EVICT	(UINT64_C(2) << 32)
#define NR	512	/* pages of the test VMA: one PTE table, 8 KiB of struct pages */

static uint64_t levels(const struct ptsim_stats *s)
{
	return s->ev[PTSIM_EV_DCACHE_L1_HIT] + s->ev[PTSIM_EV_DCACHE_PREFETCH_HIT] +
	       s->ev[PTSIM_EV_DCACHE_L2_HIT] + s->ev[PTSIM_EV_DCACHE_LLC_HIT] +
	       s->ev[PTSIM_EV_DCACHE_DRAM];
}

/* A phone (4 MiB last-level cache) with NR populated pages and a 5 MiB buffer to stream. */
static struct ptsim_mm *setup(enum ptsim_cpu cpu, struct ptsim_machine **mp)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, cpu, NULL);
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, NR * SZ_4K);

	assert_int_equal(ptsim_populate(mm, VA, NR * SZ_4K, 0, true), 0);
	assert_int_equal(ptsim_mmap(mm, EVICT, 5 << 20, PTSIM_PROT_READ | PTSIM_PROT_WRITE,
				    PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL), 0);
	assert_int_equal(ptsim_populate(mm, EVICT, 5 << 20, 0, true), 0);
	*mp = m;
	return mm;
}

/*
 * mlock's GUP walk reads each page's PTE and struct page (follow_page_pte,
 * v6.12 mm/gup.c). After the program streamed 5 MiB, more than every level
 * holds, both are cold: per 4 KiB of PTEs or of struct pages (512 PTEs,
 * 64 struct pages) the first two lines come from memory and train the
 * stream, the rest are prefetched; a line's other PTEs hit the L1.
 */
static void test_gup_cold_after_streaming(void **state)
{
	struct ptsim_machine *m;
	struct ptsim_mm *mm = setup(PTSIM_CPU_ANDROID_X1, &m);
	struct ptsim_stats s;

	(void)state;
	assert_int_equal(ptsim_touch(mm, 0, EVICT, 5 << 20, PTSIM_ACCESS_WRITE, NULL), 0);
	drain_lru_batches(mm);	/* the streaming faults' lru_add batch: not mlock's work */
	assert_int_equal(ptsim_mlock(mm, VA, NR * SZ_4K), 0);
	s = last_stats(m);
	/*
	 * From memory: two lines of the PTE table, the two upper-level
	 * entries the walk reads (pud_read), and two lines in each of the 9
	 * vmemmap regions the 512 struct pages straddle (their first PFN is
	 * not a multiple of 64). Prefetched: the PTE table's other 62 lines and
	 * the other 494 struct pages. The rest of the 1,536 PTE reads, the
	 * 1,024 struct page loads (the mlock walk's and GUP's), the 2
	 * upper-level reads and GUP's 1,024 reference atomics on the heads
	 * (try_grab_folio's folio_ref_add and the put) hit the L1.
	 */
	assert_int_equal(s.ev[PTSIM_EV_PTE_READ], 1536);
	assert_int_equal(s.ev[PTSIM_EV_DCACHE_DRAM], 2 + 2 + 9 * 2);
	assert_int_equal(s.ev[PTSIM_EV_DCACHE_PREFETCH_HIT], 62 + 512 - 9 * 2);
	assert_int_equal(s.ev[PTSIM_EV_FOLIO_GET] + s.ev[PTSIM_EV_FOLIO_PUT], 1024);
	assert_int_equal(levels(&s), 1536 + 1024 + 2 + 1024);
	assert_int_equal(s.ev[PTSIM_EV_DCACHE_L2_HIT] + s.ev[PTSIM_EV_DCACHE_LLC_HIT], 0);
	ptsim_machine_destroy(m);
}

/* The same walk again at once: every line is in the L1, nothing from memory or prefetched. */
static void test_gup_hot(void **state)
{
	struct ptsim_machine *m;
	struct ptsim_mm *mm = setup(PTSIM_CPU_ANDROID_X1, &m);
	struct ptsim_stats cold, hot;

	(void)state;
	assert_int_equal(ptsim_mlock(mm, VA, NR * SZ_4K), 0);
	assert_int_equal(ptsim_munlock(mm, VA, NR * SZ_4K), 0);
	assert_int_equal(ptsim_mlock(mm, VA, NR * SZ_4K), 0);
	hot = last_stats(m);
	assert_int_equal(hot.ev[PTSIM_EV_DCACHE_L1_HIT], levels(&hot));
	assert_int_equal(ptsim_munlock(mm, VA, NR * SZ_4K), 0);
	assert_int_equal(ptsim_touch(mm, 0, EVICT, 5 << 20, PTSIM_ACCESS_WRITE, NULL), 0);
	drain_lru_batches(mm);	/* the streaming faults' lru_add batch: not mlock's work */
	assert_int_equal(ptsim_mlock(mm, VA, NR * SZ_4K), 0);
	cold = last_stats(m);
	assert_int_equal(cold.ev[PTSIM_EV_DCACHE_DRAM], 22);
	/* the cache decides prices only: the kernel's counts are the same, hot or cold */
	for (unsigned int e = 0; e < PTSIM_EV_DCACHE_L1_HIT; e++)
		assert_int_equal(hot.ev[e], cold.ev[e]);
	assert_int_equal(levels(&hot), levels(&cold));
	ptsim_machine_destroy(m);
}

/*
 * A machine whose caches are cold between calls (PTSIM_CACHES_COLD): the
 * mlock walk finds what it finds after the program streamed more than every
 * level holds (test_gup_cold_after_streaming), and again after a munlock
 * that the warm machine would have left it in the L1; warm again, the next
 * walk hits the L1 throughout. The kernel's counts never change.
 */
static void test_caches_cold_between_calls(void **state)
{
	struct ptsim_machine *m;
	struct ptsim_mm *mm = setup(PTSIM_CPU_ANDROID_X1, &m);
	struct ptsim_stats first, again, warm;

	(void)state;
	assert_int_equal(ptsim_machine_set_caches(NULL, PTSIM_CACHES_COLD), -EINVAL);
	assert_int_equal(ptsim_machine_set_caches(m, (enum ptsim_cache_state)2), -EINVAL);
	assert_int_equal(ptsim_machine_set_caches(m, (enum ptsim_cache_state)-1), -EINVAL);
	assert_int_equal(ptsim_machine_set_caches(m, PTSIM_CACHES_COLD), 0);
	drain_lru_batches(mm);
	assert_int_equal(ptsim_mlock(mm, VA, NR * SZ_4K), 0);
	first = last_stats(m);
	assert_int_equal(first.ev[PTSIM_EV_DCACHE_DRAM], 2 + 2 + 9 * 2);
	assert_int_equal(first.ev[PTSIM_EV_DCACHE_PREFETCH_HIT], 62 + 512 - 9 * 2);
	assert_int_equal(first.ev[PTSIM_EV_DCACHE_L2_HIT] + first.ev[PTSIM_EV_DCACHE_LLC_HIT], 0);
	assert_true(first.ev[PTSIM_EV_DCACHE_OBJ_DRAM] > 0);
	assert_int_equal(first.ev[PTSIM_EV_DCACHE_OBJ_L2_HIT] + first.ev[PTSIM_EV_DCACHE_OBJ_LLC_HIT], 0);
	assert_int_equal(ptsim_munlock(mm, VA, NR * SZ_4K), 0);
	assert_int_equal(ptsim_mlock(mm, VA, NR * SZ_4K), 0);
	again = last_stats(m);
	for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++)
		assert_int_equal(again.ev[e], first.ev[e]);
	assert_int_equal(ptsim_munlock(mm, VA, NR * SZ_4K), 0);
	assert_int_equal(ptsim_machine_set_caches(m, PTSIM_CACHES_WARM), 0);
	assert_int_equal(ptsim_mlock(mm, VA, NR * SZ_4K), 0);
	warm = last_stats(m);
	assert_int_equal(warm.ev[PTSIM_EV_DCACHE_L1_HIT], levels(&warm));
	for (unsigned int e = 0; e < PTSIM_EV_DCACHE_L1_HIT; e++)
		assert_int_equal(warm.ev[e], first.ev[e]);
	ptsim_machine_destroy(m);
}

/* The price of a miss is the CPU's memory latency (doc/cpu-profiles.md §11.2), of a hit nothing more. */
static void test_level_prices(void **state)
{
	struct ptsim_cost c;

	(void)state;
	assert_int_equal(ptsim_cost_get(PTSIM_CPU_ANDROID_X1, PTSIM_GRANULE_4K, PTSIM_EV_DCACHE_DRAM,
					&c), 0);
	assert_string_equal(c.klass, "dram_extra");
	assert_true(c.ns > 100 && c.ns < 200);
	assert_null(c.fitted_on);
	assert_int_equal(ptsim_cost_get(PTSIM_CPU_ANDROID_X1, PTSIM_GRANULE_4K,
					PTSIM_EV_DCACHE_PREFETCH_HIT, &c), 0);
	assert_true(c.ns == 0);
	/* vm_normal_page is the call alone: its struct page load is the cache's */
	assert_int_equal(ptsim_cost_get(PTSIM_CPU_ANDROID_X1, PTSIM_GRANULE_4K, PTSIM_EV_FOLIO_LOOKUP,
					&c), 0);
	assert_null(c.fitted_on);
	assert_true(c.ns < 10);
}

/*
 * The rmap's atomics are struct page accesses (v6.12 __folio_remove_rmap:
 * atomic_add_negative on each page's _mapcount, at its vmemmap address).
 * munmap after streaming: zap_pte_range reads each PTE and struct page
 * (cold: from memory or prefetched, as for GUP), clears the PTE, and the
 * order-0 folio's _mapcount atomic then finds its struct page in the L1.
 * Every fed access is counted once by level: PTE loads and clears, the
 * two upper-level walks' reads, the struct page loads and the atomics.
 */
static void test_rmap_atomics_on_struct_pages(void **state)
{
	struct ptsim_machine *m;
	struct ptsim_mm *mm = setup(PTSIM_CPU_ANDROID_X1, &m);
	struct ptsim_stats s;

	(void)state;
	assert_int_equal(ptsim_touch(mm, 0, EVICT, 5 << 20, PTSIM_ACCESS_WRITE, NULL), 0);
	drain_lru_batches(mm);	/* the streaming faults' lru_add batch: not the munmap's work */
	assert_int_equal(ptsim_munmap(mm, VA, NR * SZ_4K), 0);
	s = last_stats(m);
	assert_int_equal(s.ev[PTSIM_EV_MAPCOUNT_ATOMIC], NR);
	assert_int_equal(levels(&s), s.ev[PTSIM_EV_PTE_READ] + s.ev[PTSIM_EV_PTE_XCHG] +
				     s.ev[PTSIM_EV_PMD_READ] + s.ev[PTSIM_EV_PUD_READ] +
				     s.ev[PTSIM_EV_FOLIO_LOOKUP] + NR);
	/* the atomics add only L1 hits: memory and prefetch are the reads' */
	assert_int_equal(s.ev[PTSIM_EV_DCACHE_DRAM], 2 + 3 + 9 * 2);
	assert_int_equal(s.ev[PTSIM_EV_DCACHE_PREFETCH_HIT], 62 + NR - 9 * 2);
	ptsim_machine_destroy(m);
}

/*
 * Page zeroing streams through the caches (doc/cpu-profiles.md §11.6):
 * clear_page's DC ZVA passes the L1 by (write streaming) and fills the L2
 * and the last-level cache. setup zeroes NR pages and then 5 MiB more,
 * more than the phone's 4 MiB last level holds, so the mlock walk right
 * after it finds the NR pages' PTEs and struct pages in neither: from
 * memory or prefetched, as after the program's own 5 MiB (22 lines from
 * memory), and nothing from the L2 or the last level.
 */
static void test_zeroing_evicts_l2_and_llc(void **state)
{
	struct ptsim_machine *m;
	struct ptsim_mm *mm = setup(PTSIM_CPU_ANDROID_X1, &m);
	struct ptsim_stats s;

	(void)state;
	assert_int_equal(ptsim_mlock(mm, VA, NR * SZ_4K), 0);
	s = last_stats(m);
	assert_int_equal(s.ev[PTSIM_EV_PAGE_ZERO], 0);
	assert_int_equal(s.ev[PTSIM_EV_DCACHE_L2_HIT] + s.ev[PTSIM_EV_DCACHE_LLC_HIT], 0);
	assert_int_equal(s.ev[PTSIM_EV_DCACHE_DRAM], 22);
	ptsim_machine_destroy(m);
}

/* What ops added to the machine's totals since before. */
static struct ptsim_stats since(const struct ptsim_machine *m, const struct ptsim_stats *before)
{
	struct ptsim_stats now;

	assert_int_equal(ptsim_total_stats(m, &now), 0);
	for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++)
		now.ev[e] -= before->ev[e];
	return now;
}

/*
 * The hardware walker's reads (doc/cpu-profiles.md §11.4): a walk's upper
 * levels hit the walk cache, its leaf read looks the data caches up. After
 * the program streamed 5 MiB the NR PTEs' table (one 4 KiB page, 64 lines)
 * is cold: walking each page in order, the walker's table prefetcher takes
 * two misses to train and has the other 62 lines ready; a line's other
 * seven PTEs are in the L1. The walks' own counts are what they were.
 */
static void test_walker_reads_leaf_through_cache(void **state)
{
	struct ptsim_machine *m;
	struct ptsim_mm *mm = setup(PTSIM_CPU_ANDROID_X1, &m);
	struct ptsim_stats before, s;

	(void)state;
	assert_int_equal(ptsim_touch(mm, 0, EVICT, 5 << 20, PTSIM_ACCESS_WRITE, NULL), 0);
	assert_int_equal(ptsim_total_stats(m, &before), 0);
	for (unsigned int i = 0; i < NR; i++)
		assert_int_equal(ptsim_tlb_fill(mm, 0, VA + (uint64_t)i * SZ_4K, PTSIM_ACCESS_READ), 0);
	s = since(m, &before);
	assert_int_equal(s.ev[PTSIM_EV_TLB_WALK], NR);
	assert_int_equal(s.ev[PTSIM_EV_WALK_READ], 4 * NR);	/* 48-bit VA: four levels */
	assert_int_equal(s.ev[PTSIM_EV_DCACHE_DRAM], 2);
	assert_int_equal(s.ev[PTSIM_EV_DCACHE_PREFETCH_HIT], 62);
	assert_int_equal(s.ev[PTSIM_EV_DCACHE_L1_HIT], NR - 64);
	assert_int_equal(levels(&s), NR);
	ptsim_machine_destroy(m);
}

/*
 * A touch of a hole walks once per page to the same empty level-1 entry
 * (the touch counts the pages after the first at once): that entry's line
 * comes from memory for the first walk, the other 15 find it in the L1.
 */
static void test_walker_reads_of_a_hole(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, NULL);
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, SZ_4K);
	struct ptsim_stats before, s;
	uint64_t faults = 0;

	(void)state;
	assert_int_equal(ptsim_populate(mm, VA, SZ_4K, 0, true), 0);
	assert_int_equal(ptsim_total_stats(m, &before), 0);
	/* 12 GiB: level-1 entry 12, a line of the level-1 table nothing read or wrote */
	assert_int_equal(ptsim_touch(mm, 0, UINT64_C(12) << 30, 16 * SZ_4K, PTSIM_ACCESS_READ,
				     &faults), 0);
	s = since(m, &before);
	assert_int_equal(faults, 16);
	assert_int_equal(s.ev[PTSIM_EV_TLB_WALK], 16);
	assert_int_equal(s.ev[PTSIM_EV_DCACHE_DRAM], 1);
	assert_int_equal(s.ev[PTSIM_EV_DCACHE_L1_HIT], 15);
	assert_int_equal(levels(&s), 16);
	ptsim_machine_destroy(m);
}

/* The walk class is the walker's fixed cost on every CPU, fitted on no row: the leaf's level is the cache's. */
static void test_walk_price_not_fitted(void **state)
{
	(void)state;
	for (unsigned int cpu = 0; cpu < PTSIM_CPU__COUNT; cpu++) {
		struct ptsim_cost c;

		assert_int_equal(ptsim_cost_get((enum ptsim_cpu)cpu, PTSIM_GRANULE_64K, PTSIM_EV_TLB_WALK,
						&c), 0);
		assert_string_equal(c.klass, "walk");
		assert_null(c.fitted_on);
		assert_true(c.ns > 0 && c.ns < 20);
	}
}

/* An mm's clone starts with the same cache contents: the same operation hits the same levels. */
static void test_clone_keeps_cache(void **state)
{
	struct ptsim_machine *m;
	struct ptsim_mm *mm = setup(PTSIM_CPU_NEOVERSE_N1, &m), *copy = NULL;
	struct ptsim_stats a, b;

	(void)state;
	assert_int_equal(ptsim_touch(mm, 0, EVICT, 5 << 20, PTSIM_ACCESS_WRITE, NULL), 0);
	assert_int_equal(ptsim_mm_clone(mm, &copy), 0);
	assert_int_equal(ptsim_set_diag_handler(ptsim_mm_machine(copy), fail_on_diag, NULL), 0);
	assert_int_equal(ptsim_mlock(mm, VA, NR * SZ_4K), 0);
	a = last_stats(m);
	assert_int_equal(ptsim_mlock(copy, VA, NR * SZ_4K), 0);
	b = last_stats(ptsim_mm_machine(copy));
	assert_true(a.ev[PTSIM_EV_DCACHE_L2_HIT] + a.ev[PTSIM_EV_DCACHE_LLC_HIT] > 0);
	assert_memory_equal(&a, &b, sizeof(a));
	ptsim_mm_destroy(copy);
	ptsim_machine_destroy(m);
}

/* The kernel objects' verdicts (doc/cpu-profiles.md §11.7), all five levels. */
static uint64_t obj_levels(const struct ptsim_stats *s)
{
	return s->ev[PTSIM_EV_DCACHE_OBJ_L1_HIT] + s->ev[PTSIM_EV_DCACHE_OBJ_PREFETCH_HIT] +
	       s->ev[PTSIM_EV_DCACHE_OBJ_L2_HIT] + s->ev[PTSIM_EV_DCACHE_OBJ_LLC_HIT] +
	       s->ev[PTSIM_EV_DCACHE_OBJ_DRAM];
}

static uint64_t obj_misses(const struct ptsim_stats *s)
{
	return s->ev[PTSIM_EV_DCACHE_OBJ_L2_HIT] + s->ev[PTSIM_EV_DCACHE_OBJ_LLC_HIT] +
	       s->ev[PTSIM_EV_DCACHE_OBJ_DRAM];
}

#define RO	PTSIM_PROT_READ
#define RW	(PTSIM_PROT_READ | PTSIM_PROT_WRITE)

/*
 * mprotect of a whole VMA (v6.12 mprotect_fixup, no split or merge): the
 * mmap_lock's two atomics and mm_lock_seq (mmap_write_lock), the VMA's
 * vm_lock_seq and the mm's mm_lock_seq, then its vm_lock pointer and the
 * vma_lock's two atomics (vma_start_write), total_vm's and data_vm's lines
 * twice (vm_stat_account of the old and the new flags): 12 loads. After the
 * program streamed 5 MiB they are cold; the same mprotect back at once
 * finds every one in the L1. The kernel's counts are the same both times.
 */
static void test_mprotect_again_hits_objects(void **state)
{
	struct ptsim_machine *m;
	struct ptsim_mm *mm = setup(PTSIM_CPU_ANDROID_X1, &m);
	struct ptsim_stats cold, hot;

	(void)state;
	assert_int_equal(ptsim_touch(mm, 0, EVICT, 5 << 20, PTSIM_ACCESS_WRITE, NULL), 0);
	assert_int_equal(ptsim_mprotect(mm, VA, NR * SZ_4K, RO), 0);
	cold = last_stats(m);
	assert_int_equal(ptsim_mprotect(mm, VA, NR * SZ_4K, RW), 0);
	hot = last_stats(m);
	assert_int_equal(obj_levels(&cold), 12);
	assert_int_equal(obj_levels(&hot), 12);
	assert_int_equal(hot.ev[PTSIM_EV_DCACHE_OBJ_L1_HIT], 12);
	assert_true(cold.ev[PTSIM_EV_DCACHE_OBJ_DRAM] >= 3);	/* the mm's lines and the VMA's */
	assert_int_equal(cold.ev[PTSIM_EV_RWSEM], hot.ev[PTSIM_EV_RWSEM]);
	assert_int_equal(cold.ev[PTSIM_EV_VM_STAT], hot.ev[PTSIM_EV_VM_STAT]);
	ptsim_machine_destroy(m);
}

/* After a stream larger than every level, the VMA's and the mm's lines come from memory again. */
static void test_stream_evicts_objects(void **state)
{
	struct ptsim_machine *m;
	struct ptsim_mm *mm = setup(PTSIM_CPU_ANDROID_X1, &m);
	struct ptsim_stats first, again;

	(void)state;
	assert_int_equal(ptsim_touch(mm, 0, EVICT, 5 << 20, PTSIM_ACCESS_WRITE, NULL), 0);
	assert_int_equal(ptsim_mprotect(mm, VA, NR * SZ_4K, RO), 0);
	first = last_stats(m);
	assert_int_equal(ptsim_touch(mm, 0, EVICT, 5 << 20, PTSIM_ACCESS_WRITE, NULL), 0);
	assert_int_equal(ptsim_mprotect(mm, VA, NR * SZ_4K, RW), 0);
	again = last_stats(m);
	assert_true(again.ev[PTSIM_EV_DCACHE_OBJ_DRAM] >= 3);
	assert_int_equal(again.ev[PTSIM_EV_DCACHE_OBJ_DRAM], first.ev[PTSIM_EV_DCACHE_OBJ_DRAM]);
	assert_int_equal(again.ev[PTSIM_EV_DCACHE_OBJ_L2_HIT] + again.ev[PTSIM_EV_DCACHE_OBJ_LLC_HIT], 0);
	ptsim_machine_destroy(m);
}

/*
 * fork (v6.12 dup_mmap): the child's mm_struct and vm_area_structs are new
 * slab objects nothing touched before, so vm_area_dup's free-pointer load
 * of the child's VMA comes from memory; the parent's VMA, just written by
 * vma_start_write, is in the L1.
 */
static void test_fork_child_objects_cold(void **state)
{
	struct ptsim_machine *m;
	struct ptsim_mm *mm = setup(PTSIM_CPU_ANDROID_X1, &m), *child;
	struct ptsim_stats s;

	(void)state;
	assert_int_equal(ptsim_fork(mm, &child), 0);
	s = last_stats(m);
	assert_true(s.ev[PTSIM_EV_DCACHE_OBJ_DRAM] >= 2);	/* one per child VMA at least */
	assert_int_equal(obj_levels(&s) - obj_misses(&s), s.ev[PTSIM_EV_DCACHE_OBJ_L1_HIT] +
							   s.ev[PTSIM_EV_DCACHE_OBJ_PREFETCH_HIT]);
	ptsim_mm_destroy(child);
	ptsim_machine_destroy(m);
}

/*
 * The VMA slab hands the last freed object back first (kobj.h): a new
 * mapping right after a munmap gets the freed VMA's object, whose lines
 * vm_area_free just wrote, so vm_area_alloc's free-pointer load hits the L1;
 * a second new mapping gets a never-used object, from memory.
 */
static void test_vma_slab_reuses_freed_object(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_ANDROID_X1, NULL);
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, NR * SZ_4K);
	struct ptsim_stats reused, fresh;

	(void)state;
	assert_int_equal(ptsim_munmap(mm, VA, NR * SZ_4K), 0);
	assert_int_equal(ptsim_mmap(mm, VA, SZ_4K, RW, PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL),
			 0);
	reused = last_stats(m);
	assert_int_equal(ptsim_mmap(mm, EVICT, SZ_4K, RW, PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS,
				    NULL), 0);
	fresh = last_stats(m);
	assert_int_equal(reused.ev[PTSIM_EV_SLAB_ALLOC], fresh.ev[PTSIM_EV_SLAB_ALLOC]);
	assert_true(fresh.ev[PTSIM_EV_DCACHE_OBJ_DRAM] > reused.ev[PTSIM_EV_DCACHE_OBJ_DRAM]);
	ptsim_machine_destroy(m);
}

/*
 * A page-cache lookup (filemap_get_entry's xas_load, v6.12 lib/xarray.c):
 * the address_space's xa_head, then per level of the file's xarray the
 * node's shift and the slot (a 1 MiB file of 4 KiB pages: 256 entries, two
 * levels). After the program's 5 MiB stream they come from memory; the
 * same lookups at once are L1 hits.
 */
static void test_page_cache_lookup_cold_then_hot(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_ANDROID_X1, NULL);
	struct ptsim_mm *mm;
	struct ptsim_stats cold, hot;
	unsigned int file, fd;
	uint64_t mem, buf;

	(void)state;
	assert_int_equal(ptsim_mm_create(m, &mm), 0);
	assert_int_equal(ptsim_file_create(m, 1 << 20, 0, &file), 0);
	assert_int_equal(ptsim_file_open(m, file, &fd), 0);
	assert_int_equal(ptsim_mmap_file(mm, 0, 1 << 20, RO, fd, 0, &mem), 0);
	assert_int_equal(ptsim_mmap(mm, EVICT, 5 << 20, RW, PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS,
				    NULL), 0);
	buf = EVICT;
	assert_int_equal(ptsim_populate(mm, buf, 5 << 20, 0, true), 0);
	assert_int_equal(ptsim_fault(mm, mem, PTSIM_ACCESS_READ), 0);	/* read in, cached */
	assert_int_equal(ptsim_munmap(mm, mem, 1 << 20), 0);
	assert_int_equal(ptsim_mmap_file(mm, 0, 1 << 20, RO, fd, 0, &mem), 0);
	assert_int_equal(ptsim_touch(mm, 0, buf, 5 << 20, PTSIM_ACCESS_WRITE, NULL), 0);
	assert_int_equal(ptsim_fault(mm, mem, PTSIM_ACCESS_READ), 0);
	cold = last_stats(m);
	assert_int_equal(ptsim_munmap(mm, mem, 1 << 20), 0);
	assert_int_equal(ptsim_mmap_file(mm, 0, 1 << 20, RO, fd, 0, &mem), 0);
	assert_int_equal(ptsim_fault(mm, mem, PTSIM_ACCESS_READ), 0);
	hot = last_stats(m);
	assert_true(cold.ev[PTSIM_EV_PAGE_CACHE_LOOKUP] > 0);
	assert_int_equal(cold.ev[PTSIM_EV_PAGE_CACHE_LOOKUP], hot.ev[PTSIM_EV_PAGE_CACHE_LOOKUP]);
	/* cold: the mapping's line and the two nodes' lines at least, from memory */
	assert_true(cold.ev[PTSIM_EV_DCACHE_OBJ_DRAM] >= 3);
	assert_int_equal(obj_misses(&hot) + hot.ev[PTSIM_EV_DCACHE_OBJ_PREFETCH_HIT], 0);
	assert_int_equal(hot.ev[PTSIM_EV_DCACHE_OBJ_L1_HIT], obj_levels(&hot));
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/* The data-cache verdicts of populating `pages` of a fresh VMA on machine m, then mlocking them. */
static struct ptsim_stats mlock_verdicts(struct ptsim_machine *m, uint64_t pages)
{
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, pages * SZ_4K);
	struct ptsim_stats s;

	assert_int_equal(ptsim_populate(mm, VA, pages * SZ_4K, 0, true), 0);
	s = last_stats(m);
	assert_int_equal(ptsim_mlock(mm, VA, pages * SZ_4K), 0);
	for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++)
		s.ev[e] += last_stats(m).ev[e];
	return s;
}

/*
 * A destroyed machine leaves its cache levels to the next machine of its
 * CPU (the arrays are kept, not mapped and faulted in again): the next
 * machine's caches are empty all the same. Machine a is made while x still
 * holds its own levels; x touches the very lines a will (the same PFNs,
 * tables and struct pages, and more), then goes, and b takes its levels: b's
 * verdicts are a's, line for line, or a line x left would hit in b.
 */
static void test_kept_levels_start_empty(void **state)
{
	struct ptsim_machine *x = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_V2, NULL);
	struct ptsim_machine *a, *b;
	struct ptsim_stats sa, sb;

	(void)state;
	mlock_verdicts(x, 4 * NR);
	a = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_V2, NULL);
	sa = mlock_verdicts(a, NR);
	ptsim_machine_destroy(x);
	b = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_V2, NULL);
	sb = mlock_verdicts(b, NR);
	assert_true(sa.ev[PTSIM_EV_DCACHE_DRAM] > 0);
	for (unsigned int e = PTSIM_EV_DCACHE_L1_HIT; e <= PTSIM_EV_DCACHE_OBJ_DRAM; e++)
		assert_int_equal(sb.ev[e], sa.ev[e]);
	assert_int_equal(levels(&sb), levels(&sa));
	ptsim_machine_destroy(a);
	ptsim_machine_destroy(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gup_cold_after_streaming),
		cmocka_unit_test(test_gup_hot),
		cmocka_unit_test(test_caches_cold_between_calls),
		cmocka_unit_test(test_level_prices),
		cmocka_unit_test(test_clone_keeps_cache),
		cmocka_unit_test(test_walker_reads_leaf_through_cache),
		cmocka_unit_test(test_walker_reads_of_a_hole),
		cmocka_unit_test(test_walk_price_not_fitted),
		cmocka_unit_test(test_rmap_atomics_on_struct_pages),
		cmocka_unit_test(test_zeroing_evicts_l2_and_llc),
		cmocka_unit_test(test_mprotect_again_hits_objects),
		cmocka_unit_test(test_stream_evicts_objects),
		cmocka_unit_test(test_fork_child_objects_cold),
		cmocka_unit_test(test_vma_slab_reuses_freed_object),
		cmocka_unit_test(test_page_cache_lookup_cold_then_hot),
		cmocka_unit_test(test_kept_levels_start_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
