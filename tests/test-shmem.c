// SPDX-License-Identifier: MIT
/*
 * Shared anonymous memory (issue 33, item 2): MAP_SHARED|MAP_ANONYMOUS is
 * backed by a shmem object (shmem_zero_setup) that every mapping of it, in
 * the parent and its forked children, faults its pages from (shmem_fault).
 */
#include "helpers.h"

#define VA SZ_1G
#define LEN (16 * SZ_4K)
#define RW (PTSIM_PROT_READ | PTSIM_PROT_WRITE)
#define SHARED (PTSIM_MAP_SHARED | PTSIM_MAP_ANONYMOUS)

static struct ptsim_machine *machine(void)
{
	/* no test here expects a diagnostic: new_machine's handler fails on any */
	return new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "baseline");
}

static struct ptsim_mm *shared_mm(struct ptsim_machine *m)
{
	struct ptsim_mm *mm = NULL;

	assert_int_equal(ptsim_mm_create(m, &mm), 0);
	assert_int_equal(ptsim_mmap(mm, VA, LEN, RW, SHARED, NULL), 0);
	return mm;
}

/* The PFN mapped at va (0: nothing). */
static uint64_t pfn_at(const struct ptsim_mm *mm, uint64_t va)
{
	struct ptsim_translation tr;

	if (ptsim_translate(mm, va, &tr))
		return 0;
	return tr.pa >> 12;
}

static uint64_t free_bytes(const struct ptsim_machine *m)
{
	uint64_t b;

	assert_int_equal(ptsim_phys_free_bytes(m, &b), 0);
	return b;
}

/* A page first written after fork is the same page in both, whichever side writes it. */
static void test_fork_shares_pages_written_later(void **state)
{
	struct ptsim_machine *m = machine();
	struct ptsim_mm *parent = shared_mm(m), *child = NULL;
	struct ptsim_folio_info fi;

	(void)state;
	assert_int_equal(ptsim_fork(parent, &child), 0);
	/* the child writes, the parent reads */
	assert_int_equal(ptsim_fault(child, VA, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(ptsim_fault(parent, VA, PTSIM_ACCESS_READ), 0);
	assert_int_not_equal(pfn_at(child, VA), 0);
	assert_int_equal(pfn_at(parent, VA), pfn_at(child, VA));
	/* the parent writes, the child reads */
	assert_int_equal(ptsim_fault(parent, VA + SZ_4K, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(ptsim_fault(child, VA + SZ_4K, PTSIM_ACCESS_READ), 0);
	assert_int_equal(pfn_at(child, VA + SZ_4K), pfn_at(parent, VA + SZ_4K));
	assert_int_not_equal(pfn_at(parent, VA + SZ_4K), pfn_at(parent, VA));
	/* one page of the object, mapped by both: not anonymous, at its offset */
	assert_int_equal(ptsim_folio_info(parent, VA + SZ_4K, &fi), 0);
	assert_false(fi.anon);
	assert_int_equal(fi.mapcount, 2);
	assert_int_equal(fi.index, 1);
	assert_invariants(m);
	ptsim_mm_destroy(child);
	ptsim_mm_destroy(parent);
	ptsim_machine_destroy(m);
}

/* dup_mmap copies no entry of a shmem VMA (no anon_vma): the child faults the same page in. */
static void test_fork_copies_nothing(void **state)
{
	struct ptsim_machine *m = machine();
	struct ptsim_mm *parent = shared_mm(m), *child = NULL;
	struct ptsim_stats st;

	(void)state;
	assert_int_equal(ptsim_fault(parent, VA, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(ptsim_fork(parent, &child), 0);
	st = last_stats(m);
	assert_int_equal(st.ev[PTSIM_EV_TABLE_ALLOC], 1);	/* the child's PGD only */
	assert_int_equal(st.ev[PTSIM_EV_PTE_READ], 0);
	assert_int_equal(st.ev[PTSIM_EV_PTE_WRITE], 0);
	assert_int_equal(st.ev[PTSIM_EV_RMAP_DUP], 0);
	assert_int_equal(pfn_at(child, VA), 0);
	assert_int_equal(ptsim_fault(child, VA, PTSIM_ACCESS_READ), 0);
	assert_int_equal(pfn_at(child, VA), pfn_at(parent, VA));
	assert_invariants(m);
	ptsim_mm_destroy(child);
	ptsim_mm_destroy(parent);
	ptsim_machine_destroy(m);
}

/* A read fault maps the object's page (allocated and zeroed), never the zero page; no COW after. */
static void test_read_maps_object_page(void **state)
{
	struct ptsim_machine *m = machine();
	struct ptsim_mm *mm = shared_mm(m);
	struct ptsim_translation tr;
	uint64_t pfn;

	(void)state;
	assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_READ), 0);
	assert_int_equal(ptsim_translate(mm, VA, &tr), 0);
	assert_false(pte_special(tr.desc));
	assert_int_equal(m->zero_pfn, 0);	/* the zero page was never needed */
	assert_true(tr.write);			/* shared writable: PAGE_SHARED, clean */
	assert_false(tr.dirty);
	pfn = pfn_at(mm, VA);
	assert_non_null(pfn_folio(m, pfn));
	/* the write finds the same page: nothing to copy; the entry becomes dirty in place */
	assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(pfn_at(mm, VA), pfn);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_FOLIO_ALLOC], 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_PTE_CAS], 1);
	assert_int_equal(ptsim_translate(mm, VA, &tr), 0);
	assert_true(tr.dirty && tr.write);
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/* MADV_DONTNEED zaps this mm's entries; the page stays in the object and faults back. */
static void test_dontneed_keeps_content(void **state)
{
	struct ptsim_machine *m = machine();
	struct ptsim_mm *mm = shared_mm(m);
	uint64_t pfn, before;

	(void)state;
	assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_WRITE), 0);
	pfn = pfn_at(mm, VA);
	before = free_bytes(m);
	assert_int_equal(ptsim_madvise(mm, VA, LEN, PTSIM_MADV_DONTNEED), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_FOLIO_FREE], 0);
	assert_int_equal(free_bytes(m), before);
	assert_int_equal(pfn_at(mm, VA), 0);
	assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_READ), 0);
	assert_int_equal(pfn_at(mm, VA), pfn);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_FOLIO_ALLOC], 0);
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/* munmap in one process keeps the page for the other; the last unmap frees the object. */
static void test_last_unmap_frees_object(void **state)
{
	struct ptsim_machine *m = machine();
	struct ptsim_mm *parent = shared_mm(m), *child = NULL;
	struct ptsim_folio_info fi;
	uint64_t start, pfn, folios;

	(void)state;
	assert_int_equal(ptsim_fork(parent, &child), 0);
	start = free_bytes(m);
	folios = m->folios.nr_folios;
	for (uint64_t a = VA; a < VA + 4 * SZ_4K; a += SZ_4K)
		assert_int_equal(ptsim_fault(child, a, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(ptsim_fault(parent, VA, PTSIM_ACCESS_READ), 0);
	pfn = pfn_at(child, VA);
	assert_int_equal(pfn_at(parent, VA), pfn);
	assert_true(free_bytes(m) < start);

	assert_int_equal(ptsim_munmap(parent, VA, LEN), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_FOLIO_FREE], 0);
	assert_int_equal(pfn_at(child, VA), pfn);
	assert_int_equal(ptsim_folio_info(child, VA, &fi), 0);
	assert_int_equal(fi.mapcount, 1);
	assert_invariants(m);

	assert_int_equal(ptsim_munmap(child, VA, LEN), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_FOLIO_FREE], 4);
	assert_int_equal(m->folios.nr_folios, folios);
	assert_int_equal(free_bytes(m), start);
	assert_invariants(m);
	ptsim_mm_destroy(child);
	ptsim_mm_destroy(parent);
	ptsim_machine_destroy(m);
}

/*
 * The counts of one shared fault where the PTE table exists (4K, baseline).
 * Write: handle_pte_fault reads the entry (none) -> do_shared_fault ->
 * shmem_fault -> shmem_get_folio_gfp: one page-cache lookup misses, one
 * order-0 folio is allocated, then shmem_alloc_and_add_folio charges it,
 * adds it to the page cache (shmem_add_to_page_cache: the call and its
 * lock, a reference, xas_store, NR_FILE_PAGES and NR_SHMEM) and to the
 * LRU, and it is cleared; finish_fault takes the PTE
 * lock, re-reads the entry (vmf_pte_changed), and set_ptes(1) reads it once
 * more (contpte_try_unfold) and writes it: 3 reads, 1 write.
 * Read, after MADV_DONTNEED took the two written pages out of this mm:
 * handle_pte_fault reads the entry (none); do_read_fault runs the
 * fault-around first: filemap_map_pages looks up the 16 slots of the 64K
 * window and maps the two cached order-0 pages again (per page: the entry is
 * read, then set_ptes(1): a read and a write); the faulting entry is read
 * again, then the same shmem_fault and finish_fault as a write, with a
 * clean entry: 1 + 2 * 2 + 1 + 2 reads, 2 + 1 writes, 3 set_ptes.
 */
static void test_shared_fault_counts(void **state)
{
	struct ptsim_machine *m = machine();
	struct ptsim_mm *mm = shared_mm(m);
	struct ptsim_stats st;
	uint64_t pfn0;

	(void)state;
	assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_WRITE), 0);	/* takes the tables */
	assert_int_equal(last_stats(m).ev[PTSIM_EV_TABLE_ALLOC], 3);
	pfn0 = pfn_at(mm, VA);

	assert_int_equal(ptsim_fault(mm, VA + SZ_4K, PTSIM_ACCESS_WRITE), 0);
	st = last_stats(m);
	assert_int_equal(st.ev[PTSIM_EV_FAULT], 1);
	assert_int_equal(st.ev[PTSIM_EV_PAGE_CACHE_LOOKUP], 1 + 1);
	assert_int_equal(st.ev[PTSIM_EV_MEMCG_CHARGE], 1);
	/* the page cache's reference, the LRU batch's (folio_add_lru) */
	assert_int_equal(st.ev[PTSIM_EV_FOLIO_GET], 2);
	/* the page cache's two counters and the rmap's NR_FILE_MAPPED */
	assert_int_equal(st.ev[PTSIM_EV_LRUVEC_STAT], 2 + 1);
	assert_int_equal(st.ev[PTSIM_EV_FOLIO_ALLOC], 1);
	assert_int_equal(st.ev[PTSIM_EV_PAGE_ZERO], 1);
	assert_int_equal(st.ev[PTSIM_EV_PTL_LOCK], 1);
	assert_int_equal(st.ev[PTSIM_EV_PTE_READ], 3);
	assert_int_equal(st.ev[PTSIM_EV_PTE_WRITE], 1);
	assert_int_equal(st.ev[PTSIM_EV_SET_PTES], 1);
	assert_int_equal(st.ev[PTSIM_EV_TABLE_ALLOC], 0);
	assert_int_equal(st.ev[PTSIM_EV_IO_REQUEST], 0);
	assert_int_equal(st.ev[PTSIM_EV_MAJOR_FAULT], 0);
	assert_int_equal(st.ev[PTSIM_EV_FAULT_RETRY], 0);
	/* the new folio is made locked (a plain store) and unlocked by the fault */
	assert_int_equal(st.ev[PTSIM_EV_FOLIO_TRYLOCK], 0);
	assert_int_equal(st.ev[PTSIM_EV_FOLIO_UNLOCK], 1);
	assert_true(ptsim_translate(mm, VA + SZ_4K, &(struct ptsim_translation){ 0 }) == 0);

	assert_int_equal(ptsim_madvise(mm, VA, 2 * SZ_4K, PTSIM_MADV_DONTNEED), 0);
	assert_int_equal(ptsim_fault(mm, VA + 8 * SZ_4K, PTSIM_ACCESS_READ), 0);
	st = last_stats(m);
	assert_int_equal(st.ev[PTSIM_EV_FAULT], 1);
	assert_int_equal(st.ev[PTSIM_EV_PAGE_CACHE_LOOKUP], 16 + 1 + 1);
	assert_int_equal(st.ev[PTSIM_EV_MAP_PAGES], 2);
	assert_int_equal(st.ev[PTSIM_EV_FOLIO_ALLOC], 1);
	assert_int_equal(st.ev[PTSIM_EV_PAGE_ZERO], 1);
	assert_int_equal(st.ev[PTSIM_EV_PTL_LOCK], 1);
	assert_int_equal(st.ev[PTSIM_EV_PTE_READ], 1 + 2 * 2 + 1 + 2);
	assert_int_equal(st.ev[PTSIM_EV_PTE_WRITE], 2 + 1);
	assert_int_equal(st.ev[PTSIM_EV_SET_PTES], 3);
	assert_int_equal(st.ev[PTSIM_EV_IO_REQUEST], 0);
	assert_int_equal(st.ev[PTSIM_EV_MAJOR_FAULT], 0);
	/* the fault-around locks and unlocks the two cached folios; the new one is unlocked */
	assert_int_equal(st.ev[PTSIM_EV_FOLIO_TRYLOCK], 2);
	assert_int_equal(st.ev[PTSIM_EV_FOLIO_UNLOCK], 2 + 1);
	assert_int_equal(pfn_at(mm, VA), pfn0);

	/*
	 * A write to a cached page this mm no longer maps: shmem_get_folio_gfp's
	 * hit, referenced (filemap_get_entry), locked (folio_lock), tested
	 * uptodate (its smp_rmb), unlocked by the fault after the map
	 */
	assert_int_equal(ptsim_madvise(mm, VA, SZ_4K, PTSIM_MADV_DONTNEED), 0);
	assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_WRITE), 0);
	st = last_stats(m);
	assert_int_equal(st.ev[PTSIM_EV_FOLIO_ALLOC], 0);
	assert_int_equal(st.ev[PTSIM_EV_FOLIO_GET], 1);
	assert_int_equal(st.ev[PTSIM_EV_FOLIO_TRYLOCK], 1);
	assert_int_equal(st.ev[PTSIM_EV_FOLIO_UNLOCK], 1);
	assert_int_equal(st.ev[PTSIM_EV_DMB], 1);
	assert_int_equal(pfn_at(mm, VA), pfn0);
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/* ptsim_mm_clone copies the object: the copy faults the same page in, and each side is its own. */
static void test_clone_copies_object(void **state)
{
	struct ptsim_machine *m = machine();
	struct ptsim_mm *parent = shared_mm(m), *child = NULL, *copy = NULL;
	struct ptsim_machine *cm;
	uint64_t pfn, start;

	(void)state;
	assert_int_equal(ptsim_fork(parent, &child), 0);
	assert_int_equal(ptsim_fault(child, VA, PTSIM_ACCESS_WRITE), 0);
	pfn = pfn_at(child, VA);
	assert_int_equal(ptsim_mm_clone(parent, &copy), 0);
	cm = ptsim_mm_machine(copy);
	assert_int_equal(ptsim_set_diag_handler(cm, fail_on_diag, NULL), 0);
	assert_int_equal(ptsim_fault(copy, VA, PTSIM_ACCESS_READ), 0);
	assert_int_equal(pfn_at(copy, VA), pfn);
	assert_int_equal(last_stats(cm).ev[PTSIM_EV_FOLIO_ALLOC], 0);
	/* the original is untouched by the copy's fault */
	assert_int_equal(pfn_at(parent, VA), 0);
	assert_invariants(cm);
	/* in the copy, the last unmap frees the object there only */
	start = free_bytes(cm);
	assert_int_equal(ptsim_munmap(cm->mms[1], VA, LEN), 0);	/* the copy of the child */
	assert_int_equal(ptsim_munmap(copy, VA, LEN), 0);
	assert_int_equal(last_stats(cm).ev[PTSIM_EV_FOLIO_FREE], 1);
	assert_true(free_bytes(cm) > start);
	assert_invariants(cm);
	assert_int_equal(pfn_at(child, VA), pfn);
	assert_invariants(m);
	ptsim_mm_destroy(copy);
	ptsim_mm_destroy(child);
	ptsim_mm_destroy(parent);
	ptsim_machine_destroy(m);
}

/* exit and destroy drop the VMAs' references: the last one frees the pages. */
static void test_exit_and_destroy_free_object(void **state)
{
	struct ptsim_machine *m = machine();
	struct ptsim_mm *parent, *child = NULL;
	uint64_t start = free_bytes(m), folios = m->folios.nr_folios;

	(void)state;
	parent = shared_mm(m);
	assert_int_equal(ptsim_fork(parent, &child), 0);
	assert_int_equal(ptsim_fault(parent, VA, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(ptsim_fault(child, VA, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(ptsim_mm_exit(child), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_FOLIO_FREE], 0);
	assert_invariants(m);
	ptsim_mm_destroy(child);
	assert_invariants(m);
	ptsim_mm_destroy(parent);	/* without an exit */
	assert_int_equal(m->folios.nr_folios, folios);
	assert_int_equal(free_bytes(m), start);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/*
 * mremap moves the mapping with its object (the page stays); grown in place
 * it does not grow the object: past its size a fault is SIGBUS
 * (shmem_get_folio_gfp's i_size check), and leaves the model as it was.
 */
static void test_mremap_keeps_object(void **state)
{
	struct ptsim_machine *m = machine();
	struct ptsim_mm *mm = shared_mm(m);
	uint64_t pfn, to = 0, total_faults;
	struct ptsim_stats tot;

	(void)state;
	assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_WRITE), 0);
	pfn = pfn_at(mm, VA);
	assert_int_equal(ptsim_mremap(mm, VA, LEN, LEN, PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED,
				      2 * VA, &to), 0);
	assert_int_equal(to, 2 * VA);
	assert_int_equal(pfn_at(mm, to), pfn);
	assert_invariants(m);
	assert_int_equal(ptsim_madvise(mm, to, LEN, PTSIM_MADV_DONTNEED), 0);
	assert_int_equal(ptsim_fault(mm, to, PTSIM_ACCESS_READ), 0);
	assert_int_equal(pfn_at(mm, to), pfn);

	assert_int_equal(ptsim_mremap(mm, to, LEN, 2 * LEN, 0, 0, NULL), 0);
	assert_int_equal(ptsim_total_stats(m, &tot), 0);
	total_faults = tot.ev[PTSIM_EV_FAULT];
	assert_int_equal(ptsim_fault(mm, to + LEN, PTSIM_ACCESS_WRITE), -EFAULT);
	assert_int_equal(ptsim_total_stats(m, &tot), 0);
	assert_int_equal(tot.ev[PTSIM_EV_FAULT], total_faults);
	assert_int_equal(pfn_at(mm, to + LEN), 0);
	assert_int_equal(ptsim_fault(mm, to + LEN - SZ_4K, PTSIM_ACCESS_WRITE), 0);
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/* mprotect splits the VMA in three, each piece referencing the object; merging drops them again. */
static void test_split_and_merge_references(void **state)
{
	struct ptsim_machine *m = machine();
	struct ptsim_mm *mm = shared_mm(m);
	uint64_t start;

	(void)state;
	assert_int_equal(ptsim_fault(mm, VA + 4 * SZ_4K, PTSIM_ACCESS_WRITE), 0);
	start = free_bytes(m);
	assert_int_equal(ptsim_mprotect(mm, VA + 4 * SZ_4K, SZ_4K, PTSIM_PROT_READ), 0);
	assert_int_equal(mm->nr_vmas, 3);
	assert_int_equal(m->files[mm->vmas[0].shmem - 1].refs, 3);
	assert_invariants(m);
	/* the read-only piece faults the object's pages too */
	assert_int_equal(ptsim_fault(mm, VA + 4 * SZ_4K, PTSIM_ACCESS_WRITE), -EFAULT);
	assert_int_equal(ptsim_mprotect(mm, VA + 4 * SZ_4K, SZ_4K, RW), 0);
	assert_int_equal(mm->nr_vmas, 1);
	assert_int_equal(m->files[mm->vmas[0].shmem - 1].refs, 1);
	assert_invariants(m);
	/* unmapping the middle page keeps the object for the two pieces left */
	assert_int_equal(ptsim_munmap(mm, VA + 4 * SZ_4K, SZ_4K), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_FOLIO_FREE], 0);
	assert_int_equal(free_bytes(m), start);
	assert_int_equal(ptsim_munmap(mm, VA, LEN), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_FOLIO_FREE], 1);
	assert_true(m->files[0].dead);
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/*
 * ptsim_populate of a shared anonymous VMA: order 0 only (shmem_enabled
 * "never": no shmem THP), the object's pages either way; a large order is
 * -EINVAL.
 */
static void test_populate(void **state)
{
	struct ptsim_machine *m = machine();
	struct ptsim_mm *parent = shared_mm(m), *child = NULL;
	struct ptsim_translation tr;
	struct ptsim_stats st;

	(void)state;
	assert_int_equal(ptsim_populate(parent, VA, LEN, 4, true), -EINVAL);
	assert_int_equal(ptsim_fork(parent, &child), 0);
	assert_int_equal(ptsim_populate(parent, VA, LEN, 0, true), 0);
	st = last_stats(m);
	assert_int_equal(st.ev[PTSIM_EV_FAULT], 16);
	assert_int_equal(st.ev[PTSIM_EV_FOLIO_ALLOC], 16);
	assert_int_equal(st.ev[PTSIM_EV_PAGE_ZERO], 16);
	assert_int_equal(st.ev[PTSIM_EV_SET_PTES], 16);
	assert_int_equal(ptsim_translate(parent, VA, &tr), 0);
	assert_true(tr.write && tr.dirty);
	assert_int_equal(ptsim_populate(parent, VA, SZ_4K, 0, false), -EEXIST);
	/* the child's read populate finds the parent's pages */
	assert_int_equal(ptsim_populate(child, VA, LEN, 0, false), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_FOLIO_ALLOC], 0);
	for (uint64_t a = VA; a < VA + LEN; a += SZ_4K)
		assert_int_equal(pfn_at(child, a), pfn_at(parent, a));
	assert_int_equal(ptsim_translate(child, VA, &tr), 0);
	assert_false(tr.dirty);
	assert_invariants(m);
	ptsim_mm_destroy(child);
	ptsim_mm_destroy(parent);
	ptsim_machine_destroy(m);
}

/* A failed allocation in a shmem fault or populate leaves the model, and the object, as it was. */
static void test_alloc_failure_changes_nothing(void **state)
{
	struct ptsim_machine *m = machine();
	struct ptsim_mm *mm = shared_mm(m);
	uint64_t start = free_bytes(m), folios = m->folios.nr_folios;

	(void)state;
	/* three tables and the folio: each of the four allocations can fail */
	for (uint64_t n = 1; n <= 5; n++) {
		assert_int_equal(ptsim_fail_nth_alloc(m, n), 0);
		if (ptsim_fault(mm, VA, PTSIM_ACCESS_WRITE) == 0) {
			assert_int_equal(n, 5);
			break;
		}
		assert_int_equal(free_bytes(m), start);
		assert_int_equal(m->folios.nr_folios, folios);
		assert_int_equal(m->files[0].cache.len, 0);
		assert_invariants(m);
	}
	assert_int_not_equal(pfn_at(mm, VA), 0);
	assert_int_equal(ptsim_fail_nth_alloc(m, 0), 0);
	start = free_bytes(m);
	folios = m->folios.nr_folios;
	/* the 4th page's folio fails: the three before it leave the object again */
	assert_int_equal(ptsim_fail_nth_alloc(m, 4), 0);
	assert_int_equal(ptsim_populate(mm, VA + SZ_4K, 8 * SZ_4K, 0, true), -ENOMEM);
	assert_int_equal(free_bytes(m), start);
	assert_int_equal(m->folios.nr_folios, folios);
	assert_int_equal(m->files[0].cache.len, 1);
	assert_int_equal(pfn_at(mm, VA + SZ_4K), 0);
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/* MADV_PAGEOUT keeps shmem pages (shmem swap-out is not modelled); MADV_FREE is -EINVAL. */
static void test_pageout_keeps_page(void **state)
{
	struct ptsim_machine *m = machine();
	struct ptsim_mm *mm = shared_mm(m);
	uint64_t pfn;

	(void)state;
	assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_WRITE), 0);
	pfn = pfn_at(mm, VA);
	assert_int_equal(ptsim_madvise(mm, VA, LEN, PTSIM_MADV_PAGEOUT), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_FOLIO_FREE], 0);
	assert_int_equal(pfn_at(mm, VA), pfn);
	assert_int_equal(ptsim_madvise(mm, VA, LEN, PTSIM_MADV_FREE), -EINVAL);
	assert_int_equal(ptsim_madvise(mm, VA, LEN, PTSIM_MADV_COLD), 0);
	assert_int_equal(pfn_at(mm, VA), pfn);
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/* mlock's populate reads the shared pages in from the object (no FOLL_WRITE for VM_SHARED). */
static void test_mlock_populates_object(void **state)
{
	struct ptsim_machine *m = machine();
	struct ptsim_mm *parent = shared_mm(m), *child = NULL;
	struct ptsim_translation tr;

	(void)state;
	assert_int_equal(ptsim_fork(parent, &child), 0);
	assert_int_equal(ptsim_fault(child, VA + SZ_4K, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(ptsim_mlock(parent, VA, LEN), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_FOLIO_ALLOC], 15);
	assert_int_equal(pfn_at(parent, VA + SZ_4K), pfn_at(child, VA + SZ_4K));
	assert_int_equal(ptsim_translate(parent, VA, &tr), 0);
	assert_false(tr.dirty);
	assert_int_equal(m->zero_pfn, 0);
	assert_invariants(m);
	ptsim_mm_destroy(child);
	ptsim_mm_destroy(parent);
	ptsim_machine_destroy(m);
}

/* The object's file number is not a user's file: the file calls refuse it. */
static void test_object_is_not_a_user_file(void **state)
{
	struct ptsim_machine *m = machine();
	struct ptsim_mm *mm = shared_mm(m);
	unsigned int fd, order, file;

	(void)state;
	assert_int_equal(ptsim_file_open(m, 0, &fd), -EINVAL);
	assert_int_equal(ptsim_file_cached(m, 0, 0, &order), -EINVAL);
	assert_int_equal(ptsim_file_create(m, LEN, 0, &file), 0);
	assert_int_equal(file, 1);
	assert_int_equal(ptsim_file_open(m, file, &fd), 0);
	/* a dead object's slot goes to the next object */
	assert_int_equal(ptsim_munmap(mm, VA, LEN), 0);
	assert_int_equal(ptsim_mmap(mm, VA, LEN, RW, SHARED, NULL), 0);
	assert_int_equal(mm->vmas[0].shmem, 1);
	assert_int_equal(m->nr_files, 2);
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/* A fork that runs out of memory drops the references its child's VMAs took. */
static void test_fork_failure_drops_references(void **state)
{
	struct ptsim_machine *m = machine();
	struct ptsim_mm *parent = shared_mm(m), *child = NULL;
	unsigned int failed = 0;

	(void)state;
	assert_int_equal(ptsim_mmap(parent, 2 * VA, LEN, RW, PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS,
				    NULL), 0);
	assert_int_equal(ptsim_populate(parent, 2 * VA, LEN, 0, true), 0);
	assert_int_equal(ptsim_fault(parent, VA, PTSIM_ACCESS_WRITE), 0);
	for (uint64_t n = 1;; n++) {
		assert_int_equal(ptsim_fail_nth_alloc(m, n), 0);
		if (ptsim_fork(parent, &child) == 0)
			break;
		failed++;
		assert_int_equal(m->files[0].refs, 1);
		assert_invariants(m);
	}
	assert_int_equal(ptsim_fail_nth_alloc(m, 0), 0);
	assert_true(failed > 0);
	assert_int_equal(m->files[0].refs, 2);
	assert_int_equal(ptsim_fault(child, VA, PTSIM_ACCESS_READ), 0);
	assert_int_equal(pfn_at(child, VA), pfn_at(parent, VA));
	assert_invariants(m);
	ptsim_mm_destroy(child);
	ptsim_mm_destroy(parent);
	ptsim_machine_destroy(m);
}

/*
 * Random lifecycles over one shared mapping and its forks: every process
 * that maps a page sees the object's one page for it, the invariants (the
 * objects' references among them) hold after each call, and once every
 * process is gone the memory is back.
 */
static void test_random_lifecycles(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 20; seed++) {
		struct ptsim_machine *m = machine();
		struct ptsim_mm *mms[4] = { NULL };
		uint64_t rng = prng_seed(seed), start;
		unsigned int nr = 1;
		int err;

		assert_int_equal(ptsim_mm_create(m, &mms[0]), 0);
		start = free_bytes(m);
		assert_int_equal(ptsim_mmap(mms[0], VA, LEN, RW, SHARED, NULL), 0);
		for (int step = 0; step < 60; step++) {
			struct ptsim_mm *mm = mms[prng_next(&rng) % nr];
			uint64_t page = prng_next(&rng) % 16, n = 1 + prng_next(&rng) % 4;
			uint64_t a = VA + page * SZ_4K, l = MIN(n, 16 - page) * SZ_4K;

			switch (prng_next(&rng) % 9) {
			case 0:
				if (nr < 4)
					assert_int_equal(ptsim_fork(mm, &mms[nr++]), 0);
				break;
			case 1:
			case 2:
				(void)ptsim_fault(mm, a, PTSIM_ACCESS_WRITE);
				break;
			case 3:
				(void)ptsim_fault(mm, a, PTSIM_ACCESS_READ);
				break;
			case 4:
				err = ptsim_madvise(mm, a, l, PTSIM_MADV_DONTNEED);
				assert_true(err == 0 || err == -ENOMEM);	/* -ENOMEM: a hole */
				break;
			case 5:
				assert_int_equal(ptsim_munmap(mm, a, l), 0);
				break;
			case 6:
				err = ptsim_mprotect(mm, a, l, (prng_next(&rng) & 1) ? PTSIM_PROT_READ : RW);
				assert_true(err == 0 || err == -ENOMEM);
				break;
			case 7:
				(void)ptsim_madvise(mm, a, l, PTSIM_MADV_PAGEOUT);
				break;
			default:
				(void)ptsim_populate(mm, a, SZ_4K, 0, prng_next(&rng) & 1);
				break;
			}
			assert_invariants(m);
			/* a page two processes map is the same page */
			for (uint64_t p = VA; p < VA + LEN; p += SZ_4K) {
				uint64_t seen = 0;

				for (unsigned int i = 0; i < nr; i++) {
					uint64_t pfn = pfn_at(mms[i], p);

					if (pfn && seen)
						assert_int_equal(pfn, seen);
					seen = pfn ? pfn : seen;
				}
			}
		}
		for (unsigned int i = nr; i-- > 1;)
			ptsim_mm_destroy(mms[i]);
		assert_int_equal(ptsim_munmap(mms[0], VA, LEN), 0);
		assert_invariants(m);
		assert_int_equal(free_bytes(m), start);
		ptsim_mm_destroy(mms[0]);
		ptsim_machine_destroy(m);
	}
}

/*
 * A read fault whose page allocation fails, where fault-around would map
 * pages another process wrote: nothing is left behind, not even those
 * mappings (the new PTE table goes again).
 */
static void test_failed_read_fault_maps_nothing(void **state)
{
	struct ptsim_machine *m = machine();
	struct ptsim_mm *parent = shared_mm(m), *child = NULL;
	struct ptsim_folio_info fi;
	uint64_t start;

	(void)state;
	assert_int_equal(ptsim_fork(parent, &child), 0);
	assert_int_equal(ptsim_fault(parent, VA, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(ptsim_fault(parent, VA + SZ_4K, PTSIM_ACCESS_WRITE), 0);
	start = free_bytes(m);
	/* the child's PUD, PMD and PTE tables, then the page's folio, which fails */
	assert_int_equal(ptsim_fail_nth_alloc(m, 4), 0);
	assert_int_equal(ptsim_fault(child, VA + 2 * SZ_4K, PTSIM_ACCESS_READ), -ENOMEM);
	assert_int_equal(pfn_at(child, VA), 0);
	assert_int_equal(ptsim_folio_info(parent, VA, &fi), 0);
	assert_int_equal(fi.mapcount, 1);
	assert_int_equal(free_bytes(m), start);
	assert_invariants(m);
	/* again without the failure: fault-around maps the two pages */
	assert_int_equal(ptsim_fault(child, VA + 2 * SZ_4K, PTSIM_ACCESS_READ), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_MAP_PAGES], 2);
	assert_int_equal(pfn_at(child, VA), pfn_at(parent, VA));
	assert_invariants(m);
	ptsim_mm_destroy(child);
	ptsim_mm_destroy(parent);
	ptsim_machine_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fork_shares_pages_written_later),
		cmocka_unit_test(test_fork_copies_nothing),
		cmocka_unit_test(test_read_maps_object_page),
		cmocka_unit_test(test_dontneed_keeps_content),
		cmocka_unit_test(test_last_unmap_frees_object),
		cmocka_unit_test(test_shared_fault_counts),
		cmocka_unit_test(test_clone_copies_object),
		cmocka_unit_test(test_exit_and_destroy_free_object),
		cmocka_unit_test(test_mremap_keeps_object),
		cmocka_unit_test(test_split_and_merge_references),
		cmocka_unit_test(test_populate),
		cmocka_unit_test(test_alloc_failure_changes_nothing),
		cmocka_unit_test(test_pageout_keeps_page),
		cmocka_unit_test(test_mlock_populates_object),
		cmocka_unit_test(test_object_is_not_a_user_file),
		cmocka_unit_test(test_fork_failure_drops_references),
		cmocka_unit_test(test_random_lifecycles),
		cmocka_unit_test(test_failed_read_fault_maps_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
