// SPDX-License-Identifier: MIT
/*
 * The VMA machinery and a fault's fixed work as counted work (v6.12
 * mm/vma.c __split_vma, vma_merge_existing_range, commit_merge,
 * vma_complete, vms_gather_munmap_vmas, vms_complete_munmap_vmas;
 * mm/mmap.c __mmap_region, exit_mmap; mm/mremap.c move_vma, copy_vma;
 * kernel/fork.c dup_mmap, vm_area_alloc/dup/free; mm/rmap.c
 * __anon_vma_prepare, anon_vma_clone, anon_vma_fork, unlink_anon_vmas;
 * lib/maple_tree.c mas_store_prealloc; arch/arm64/mm/fault.c
 * do_page_fault, mm/memory.c do_anonymous_page), and ptsim_mm_destroy's
 * contract: it counts nothing. The model follows v6.12 on every preset, so
 * each case is pinned on a pre-contpte and a recent preset alike (but for
 * how v6.8 frees a gather's folios: release_pages, "large_folio_batch_free").
 */
#include "helpers.h"

#define A	(UINT64_C(1) << 32)		/* a VMA of 16 pages */
#define B	(UINT64_C(2) << 32)		/* far from it */
#define NR	16
#define RW	(PTSIM_PROT_READ | PTSIM_PROT_WRITE)
#define ANON	(PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS)

static const char *const presets[] = { "v6.8", "v6.17" };

struct want {
	enum ptsim_event ev;
	uint64_t n;
};

/* The last operation's count of each listed event is exactly as wanted. */
static void check(struct ptsim_machine *m, const struct want *w, size_t n, const char *what)
{
	struct ptsim_stats s;
	bool bad = false;

	assert_int_equal(ptsim_last_stats(m, &s), 0);
	for (size_t i = 0; i < n; i++) {
		if (s.ev[w[i].ev] != w[i].n) {
			print_message("%s: %s is %llu, want %llu\n", what, ptsim_event_name(w[i].ev),
				      (unsigned long long)s.ev[w[i].ev], (unsigned long long)w[i].n);
			bad = true;
		}
	}
	assert_false(bad);
}

#define CHECK(m, what, ...) do {							\
		const struct want w_[] = { __VA_ARGS__ };				\
		check((m), w_, sizeof(w_) / sizeof(w_[0]), (what));			\
	} while (0)

/* An mm with the 16-page private RW anonymous VMA at A, every page faulted in. */
static struct ptsim_mm *populated(struct ptsim_machine *m)
{
	struct ptsim_mm *mm = new_mm_with_vma(m, A, NR * SZ_4K);

	assert_int_equal(ptsim_populate(mm, A, NR * SZ_4K, 0, true), 0);
	return mm;
}

static struct ptsim_machine *machine(const char *preset)
{
	return new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, preset);
}

static int count_vma(const struct ptsim_vma_info *v, void *arg)
{
	(void)v;
	(*(unsigned int *)arg)++;
	return 0;
}

/* How many VMAs mm has (ptsim_vma_foreach, as /proc/PID/maps lists them). */
static unsigned int nr_vmas(const struct ptsim_mm *mm)
{
	unsigned int n = 0;

	assert_int_equal(ptsim_vma_foreach(mm, count_vma, &n), 0);
	return n;
}

/*
 * Issue 40 item 2: a new mapping next to a compatible one is taken by it
 * (__mmap_region -> vma_merge_new_range -> vma_expand): one VMA, as
 * /proc/PID/maps shows, with no vm_area_struct allocated, one merge and one
 * store of the stretched range. Filling the gap between two VMAs joins all
 * three and frees next. A populate and an mremap across the join then work.
 * A different protection, a shared mapping, or prev and next with different
 * anon_vmas (only prev takes it) keep their VMAs apart.
 */
static void test_mmap_merges_new_range(void **state)
{
	(void)state;
	for (size_t p = 0; p < 2; p++) {
		struct ptsim_machine *m = machine(presets[p]);
		struct ptsim_mm *mm;

		assert_int_equal(ptsim_mm_create(m, &mm), 0);
		assert_int_equal(ptsim_mmap(mm, A, NR * SZ_4K, RW, ANON, NULL), 0);
		assert_int_equal(ptsim_mmap(mm, A + NR * SZ_4K, NR * SZ_4K, RW, ANON, NULL), 0);
		CHECK(m, "mmap RW beside prev", { PTSIM_EV_SYSCALL, 1 }, { PTSIM_EV_VMA_MERGE, 1 },
		      { PTSIM_EV_SLAB_ALLOC, 1 }, { PTSIM_EV_SLAB_FREE, 1 },
		      { PTSIM_EV_MAPLE_NODE_WRITE, 1 }, { PTSIM_EV_VM_STAT, 2 });
		assert_int_equal(nr_vmas(mm), 1);
		/* a gap of 16 pages, then a third mapping, then the gap filled: one VMA */
		assert_int_equal(ptsim_mmap(mm, A + 3 * NR * SZ_4K, NR * SZ_4K, RW, ANON, NULL), 0);
		assert_int_equal(nr_vmas(mm), 2);
		assert_int_equal(ptsim_mmap(mm, A + 2 * NR * SZ_4K, NR * SZ_4K, RW, ANON, NULL), 0);
		CHECK(m, "mmap RW filling the gap", { PTSIM_EV_VMA_MERGE, 1 }, { PTSIM_EV_SLAB_ALLOC, 1 },
		      { PTSIM_EV_SLAB_FREE, 3 }, { PTSIM_EV_MAPLE_NODE_WRITE, 1 });
		assert_int_equal(nr_vmas(mm), 1);
		assert_int_equal(ptsim_populate(mm, A, 4 * NR * SZ_4K, 0, true), 0);
		assert_int_equal(ptsim_mremap(mm, A, 4 * NR * SZ_4K, 5 * NR * SZ_4K, 0, 0, NULL), 0);
		assert_int_equal(nr_vmas(mm), 1);
		/* not compatible: another protection, a shared mapping */
		assert_int_equal(ptsim_mmap(mm, A + 5 * NR * SZ_4K, NR * SZ_4K, PTSIM_PROT_READ, ANON,
					    NULL), 0);
		assert_int_equal(ptsim_mmap(mm, A + 6 * NR * SZ_4K, NR * SZ_4K, RW,
					    PTSIM_MAP_SHARED | PTSIM_MAP_ANONYMOUS, NULL), 0);
		assert_int_equal(ptsim_mmap(mm, A + 7 * NR * SZ_4K, NR * SZ_4K, RW,
					    PTSIM_MAP_SHARED | PTSIM_MAP_ANONYMOUS, NULL), 0);
		CHECK(m, "mmap shared beside shared", { PTSIM_EV_VMA_MERGE, 0 });
		assert_int_equal(nr_vmas(mm), 4);
		assert_invariants(m);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/*
 * prev and next faulted into different anon_vmas: a mapping between them
 * joins prev only (can_vma_merge_right refuses next), and next stays.
 */
static void test_mmap_merge_anon_vmas_differ(void **state)
{
	(void)state;
	struct ptsim_machine *m = machine("v6.17");
	struct ptsim_mm *mm;

	assert_int_equal(ptsim_mm_create(m, &mm), 0);
	assert_int_equal(ptsim_mmap(mm, A, NR * SZ_4K, RW, ANON, NULL), 0);
	assert_int_equal(ptsim_mmap(mm, A + 2 * NR * SZ_4K, NR * SZ_4K, RW, ANON, NULL), 0);
	assert_int_equal(ptsim_populate(mm, A, NR * SZ_4K, 0, true), 0);
	assert_int_equal(ptsim_populate(mm, A + 2 * NR * SZ_4K, NR * SZ_4K, 0, true), 0);
	assert_int_equal(ptsim_mmap(mm, A + NR * SZ_4K, NR * SZ_4K, RW, ANON, NULL), 0);
	CHECK(m, "mmap between two anon_vmas", { PTSIM_EV_VMA_MERGE, 1 }, { PTSIM_EV_SLAB_FREE, 1 });
	assert_int_equal(nr_vmas(mm), 2);
	assert_non_null(find_vma(mm, A + NR * SZ_4K));
	assert_int_equal(find_vma(mm, A + NR * SZ_4K)->start, A);
	assert_int_equal(find_vma(mm, A + NR * SZ_4K)->end, A + 2 * NR * SZ_4K);
	/*
	 * prev without an anon_vma, next with one: the gap filled joins all
	 * three, and the merged VMA takes next's anon_vma (dup_anon_vma), so
	 * the rmap still finds next's pages
	 */
	{
		const uint64_t c = A + 4 * NR * SZ_4K;
		uint64_t anon;
		struct ptsim_folio_info fi;

		assert_int_equal(ptsim_mmap(mm, c, NR * SZ_4K, RW, ANON, NULL), 0);
		assert_int_equal(ptsim_mmap(mm, c + 2 * NR * SZ_4K, NR * SZ_4K, RW, ANON, NULL), 0);
		assert_int_equal(ptsim_populate(mm, c + 2 * NR * SZ_4K, NR * SZ_4K, 0, true), 0);
		anon = find_vma(mm, c + 2 * NR * SZ_4K)->anon_vma;
		assert_int_not_equal(anon, 0);
		assert_int_equal(find_vma(mm, c)->anon_vma, 0);
		assert_int_equal(ptsim_mmap(mm, c + NR * SZ_4K, NR * SZ_4K, RW, ANON, NULL), 0);
		assert_int_equal(find_vma(mm, c)->end, c + 3 * NR * SZ_4K);
		assert_int_equal(find_vma(mm, c)->anon_vma, anon);
		assert_int_equal(ptsim_folio_info(mm, c + 2 * NR * SZ_4K, &fi), 0);
		assert_int_equal(ptsim_madvise(mm, c, 3 * NR * SZ_4K, PTSIM_MADV_PAGEOUT), 0);
		assert_int_equal(last_stats(m).ev[PTSIM_EV_FOLIO_FREE], NR);
	}
	/* file mappings merge only within one open file (is_mergeable_vma: the same vm_file) */
	{
		unsigned int file, fd1, fd2;

		assert_int_equal(ptsim_file_create(m, 4 * NR * SZ_4K, 0, &file), 0);
		assert_int_equal(ptsim_file_open(m, file, &fd1), 0);
		assert_int_equal(ptsim_file_open(m, file, &fd2), 0);
		assert_int_equal(ptsim_mmap_file(mm, B, NR * SZ_4K, PTSIM_PROT_READ, fd1, 0, NULL), 0);
		assert_int_equal(ptsim_mmap_file(mm, B + NR * SZ_4K, NR * SZ_4K, PTSIM_PROT_READ, fd2,
						 NR, NULL), 0);
		assert_int_equal(nr_vmas(mm), 5);
		assert_int_equal(ptsim_mmap_file(mm, B - NR * SZ_4K, NR * SZ_4K, PTSIM_PROT_READ, fd1,
						 0, NULL), 0);
		assert_int_equal(nr_vmas(mm), 6);	/* pgoff 0 again: not contiguous */
		assert_int_equal(ptsim_mmap_file(mm, B + 2 * NR * SZ_4K, NR * SZ_4K, PTSIM_PROT_READ,
						 fd2, 2 * NR, NULL), 0);
		assert_int_equal(nr_vmas(mm), 6);	/* fd2's next pages: taken by its VMA */
	}
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/*
 * mmap of a new private RW mapping, the address left to the model:
 * mmap_write_lock, the gap search (vm_unmapped_area), the commit charge
 * (security_vm_enough_memory_mm: a call and the percpu add),
 * vm_area_alloc (the VMA and its vma_lock), vma_start_write, the store of
 * a new range (one preallocated node written, the old leaf freed) and
 * vm_stat_account. A read-only fixed mapping searches nothing and is not
 * charged.
 */
static void test_mmap(void **state)
{
	(void)state;
	for (size_t p = 0; p < 2; p++) {
		struct ptsim_machine *m = machine(presets[p]);
		struct ptsim_mm *mm;
		uint64_t at;

		assert_int_equal(ptsim_mm_create(m, &mm), 0);
		assert_int_equal(ptsim_mmap(mm, 0, NR * SZ_4K, RW, ANON, &at), 0);
		CHECK(m, "mmap RW", { PTSIM_EV_SYSCALL, 1 }, { PTSIM_EV_RWSEM, 2 },
		      { PTSIM_EV_HELPER_CALL, 2 }, { PTSIM_EV_VM_STAT, 2 }, { PTSIM_EV_SLAB_ALLOC, 3 },
		      { PTSIM_EV_SLAB_FREE, 1 }, { PTSIM_EV_MAPLE_NODE_WRITE, 1 },
		      { PTSIM_EV_VMA_SPLIT, 0 }, { PTSIM_EV_VMA_MERGE, 0 });
		assert_int_equal(ptsim_mmap(mm, B, NR * SZ_4K, PTSIM_PROT_READ, ANON, NULL), 0);
		CHECK(m, "mmap RO fixed", { PTSIM_EV_SYSCALL, 1 }, { PTSIM_EV_RWSEM, 2 },
		      { PTSIM_EV_HELPER_CALL, 0 }, { PTSIM_EV_VM_STAT, 1 }, { PTSIM_EV_SLAB_ALLOC, 3 },
		      { PTSIM_EV_SLAB_FREE, 1 }, { PTSIM_EV_MAPLE_NODE_WRITE, 1 });
		ptsim_machine_destroy(m);
	}
}

/*
 * munmap of the VMA's last 4 pages: one __split_vma (vm_area_dup: 2
 * objects; anon_vma_clone of the one-entry chain: an avc and the root
 * lock; both pieces write-locked; the anon_vma locked around the change;
 * a store that adds a boundary), then the tail detached (already
 * write-locked; the first entry of the detach tree is its root pointer:
 * no node), the range cleared from the tree (a second store), its chain
 * unlinked by free_pgtables (an avc freed under the lock), and
 * vms_complete_munmap_vmas: the counts, vm_area_free (call_rcu, 2
 * objects), vm_unacct_memory. The gather's flush frees the 4 pages
 * through one folios_put_refs: its call, lruvec_del_folio's three LRU size
 * calls for each, mem_cgroup_uncharge_folios and free_unref_folios. Before
 * that, vms_clear_ptes's lru_add_drain moves the 16 folios the faults left
 * in this CPU's lru_add batch (lru_add's six calls each). The memcg: each
 * freed folio's uncharge_folio (a call, a css_put), and the batch's
 * uncharge_batch (its call, page_counter_uncharge, page_counter_cancel at
 * three levels; a css_get and a css_put). The page allocator: each page's
 * free_pages_prepare, get_pfnblock_flags_mask and free_unref_page_commit
 * and its PGFREE count.
 */
static void test_munmap_split(void **state)
{
	(void)state;
	for (size_t p = 0; p < 2; p++) {
		struct ptsim_machine *m = machine(presets[p]);
		struct ptsim_mm *mm = populated(m);

		assert_int_equal(ptsim_munmap(mm, A + 12 * SZ_4K, 4 * SZ_4K), 0);
		CHECK(m, "munmap tail", { PTSIM_EV_SYSCALL, 1 }, { PTSIM_EV_VMA_SPLIT, 1 },
		      { PTSIM_EV_RWSEM, 3 }, { PTSIM_EV_SLAB_ALLOC, 5 }, { PTSIM_EV_SLAB_FREE, 5 },
		      { PTSIM_EV_MAPLE_NODE_WRITE, 2 }, { PTSIM_EV_ANON_VMA_LOCK, 3 },
		      { PTSIM_EV_VM_STAT, 2 + 4 + 2 + 4 },
		      { PTSIM_EV_HELPER_CALL, 1 + 1 + 3 * 4 + 2 + 16 * 6 + 4 + 2 + 3 + 3 * 4 },
		      { PTSIM_EV_PAGE_COUNTER, 3 }, { PTSIM_EV_MMU_NOTIFIER_RANGE, 1 });
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/*
 * mprotect of pages 4..7 to read-only: two splits (the second splits the
 * new tail, so only the newest piece is write-locked again), each a
 * vm_area_dup, an avc, the anon_vma lock twice and a store; then
 * mprotect_fixup write-locks the middle (already locked) and accounts the
 * old and the new flags. Back to RW, the middle merges with both
 * neighbours in one vma_merge_existing_range: prev and next write-locked,
 * the anon_vma locked, one store of prev's new range, the middle's and
 * next's chains unlinked and both VMAs freed.
 */
static void test_mprotect_split_merge(void **state)
{
	(void)state;
	for (size_t p = 0; p < 2; p++) {
		struct ptsim_machine *m = machine(presets[p]);
		struct ptsim_mm *mm = populated(m);

		assert_int_equal(ptsim_mprotect(mm, A + 4 * SZ_4K, 4 * SZ_4K, PTSIM_PROT_READ), 0);
		CHECK(m, "mprotect middle", { PTSIM_EV_SYSCALL, 1 }, { PTSIM_EV_VMA_SPLIT, 2 },
		      { PTSIM_EV_VMA_MERGE, 0 }, { PTSIM_EV_RWSEM, 4 }, { PTSIM_EV_SLAB_ALLOC, 8 },
		      { PTSIM_EV_SLAB_FREE, 2 }, { PTSIM_EV_MAPLE_NODE_WRITE, 2 },
		      { PTSIM_EV_ANON_VMA_LOCK, 4 }, { PTSIM_EV_VM_STAT, 2 },
		      { PTSIM_EV_HELPER_CALL, 4 });	/* a prot start call per PTE */
		assert_int_equal(ptsim_mprotect(mm, A + 4 * SZ_4K, 4 * SZ_4K, RW), 0);
		CHECK(m, "mprotect merge back", { PTSIM_EV_SYSCALL, 1 }, { PTSIM_EV_VMA_SPLIT, 0 },
		      { PTSIM_EV_VMA_MERGE, 1 }, { PTSIM_EV_RWSEM, 4 }, { PTSIM_EV_SLAB_ALLOC, 1 },
		      { PTSIM_EV_SLAB_FREE, 7 }, { PTSIM_EV_MAPLE_NODE_WRITE, 1 },
		      { PTSIM_EV_ANON_VMA_LOCK, 3 }, { PTSIM_EV_VM_STAT, 2 },
		      { PTSIM_EV_HELPER_CALL, 2 + 4 });	/* 2 vm_area_free, the starts */
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/*
 * mremap of the whole VMA to B (MAYMOVE | FIXED): move_vma charges the
 * VM_ACCOUNT mapping and write-locks the old VMA; copy_vma's vm_area_dup,
 * anon_vma_clone (an avc, the lock) and vma_link (write lock, a store);
 * vm_stat_account of the new range; then do_vmi_munmap of the old: detach
 * (locked already), clear (a store), unlink (an avc), the counts, the VMA
 * freed, the charge given back.
 */
static void test_mremap_move(void **state)
{
	(void)state;
	for (size_t p = 0; p < 2; p++) {
		struct ptsim_machine *m = machine(presets[p]);
		struct ptsim_mm *mm = populated(m);
		uint64_t at;

		assert_int_equal(ptsim_mremap(mm, A, NR * SZ_4K, NR * SZ_4K,
					      PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED, B, &at), 0);
		assert_int_equal(at, B);
		CHECK(m, "mremap move", { PTSIM_EV_SYSCALL, 1 }, { PTSIM_EV_VMA_SPLIT, 0 },
		      { PTSIM_EV_VMA_MERGE, 0 }, { PTSIM_EV_RWSEM, 3 }, { PTSIM_EV_SLAB_ALLOC, 5 },
		      { PTSIM_EV_SLAB_FREE, 5 }, { PTSIM_EV_MAPLE_NODE_WRITE, 2 },
		      { PTSIM_EV_ANON_VMA_LOCK, 2 }, { PTSIM_EV_VM_STAT, 4 },
		      /* and the old range's unmap drains the faults' 16 folios (six calls each) */
		      { PTSIM_EV_HELPER_CALL, 2 + 16 * 6 });
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/*
 * The first write fault of an anonymous VMA: the exception and
 * handle_mm_fault (FAULT), lock_vma_under_rcu (a call and the VMA's read
 * lock), mm_account_fault (PGFAULT twice), __anon_vma_prepare (an avc and
 * an anon_vma, the anon_vma lock, mm->page_table_lock), the folio's
 * charge, MM_ANONPAGES and LRU add (folio_add_lru_vma and folio_add_lru,
 * then __folio_batch_add_and_move into the lru_add batch, which it does not
 * fill), beside its PTE lock. The second fault finds the anon_vma. The
 * charge (v6.12 __mem_cgroup_charge): get_mem_cgroup_from_mm,
 * try_charge_memcg and mem_cgroup_commit_charge (three calls), css_tryget,
 * consume_stock, css_get and css_put (four per-CPU updates); the machine's
 * first charge finds the stock empty: page_counter_try_charge (three levels)
 * and __refill_stock, two calls more, and the second takes a page from it.
 * The page allocator (v6.12 mm/page_alloc.c): __alloc_pages_noprof,
 * get_page_from_freelist, __rmqueue_pcplist, prep_new_page and
 * post_alloc_hook (five calls), the PGALLOC, NUMA_HIT and NUMA_LOCAL counts;
 * the machine's first allocation finds this CPU's list empty and refills it
 * with a batch of 63 pages (rmqueue_bulk, inline: account_freepages' call
 * per page), and the second takes a page from it.
 */
static void test_first_anon_fault(void **state)
{
	(void)state;
	for (size_t p = 0; p < 2; p++) {
		struct ptsim_machine *m = machine(presets[p]);
		struct ptsim_mm *mm = new_mm_with_vma(m, A, NR * SZ_4K);

		assert_int_equal(ptsim_fault(mm, A, PTSIM_ACCESS_WRITE), 0);
		CHECK(m, "first fault", { PTSIM_EV_FAULT, 1 },
		      { PTSIM_EV_HELPER_CALL, 1 + 1 + 3 + 2 + 5 + 63 },
		      { PTSIM_EV_RWSEM, 1 }, { PTSIM_EV_VM_STAT, 3 + 4 + 3 }, { PTSIM_EV_MEMCG_CHARGE, 1 },
		      { PTSIM_EV_PAGE_COUNTER, 3 },
		      { PTSIM_EV_LRU_ADD, 2 }, { PTSIM_EV_SLAB_ALLOC, 2 }, { PTSIM_EV_ANON_VMA_LOCK, 1 },
		      { PTSIM_EV_PTL_LOCK, 2 }, { PTSIM_EV_FOLIO_ALLOC, 1 }, { PTSIM_EV_PAGE_ZERO, 1 });
		assert_int_equal(ptsim_fault(mm, A + SZ_4K, PTSIM_ACCESS_WRITE), 0);
		CHECK(m, "second fault", { PTSIM_EV_FAULT, 1 }, { PTSIM_EV_HELPER_CALL, 1 + 1 + 3 + 5 },
		      { PTSIM_EV_RWSEM, 1 }, { PTSIM_EV_VM_STAT, 3 + 4 + 3 }, { PTSIM_EV_MEMCG_CHARGE, 1 },
		      { PTSIM_EV_PAGE_COUNTER, 0 },
		      { PTSIM_EV_LRU_ADD, 2 }, { PTSIM_EV_SLAB_ALLOC, 0 }, { PTSIM_EV_ANON_VMA_LOCK, 0 },
		      { PTSIM_EV_PTL_LOCK, 1 });
		/* a read fault maps the zero page: no folio, nothing charged or counted */
		assert_int_equal(ptsim_fault(mm, A + 8 * SZ_4K, PTSIM_ACCESS_READ), 0);
		CHECK(m, "zero-page fault", { PTSIM_EV_FAULT, 1 }, { PTSIM_EV_HELPER_CALL, 1 },
		      { PTSIM_EV_RWSEM, 1 }, { PTSIM_EV_VM_STAT, 2 }, { PTSIM_EV_MEMCG_CHARGE, 0 },
		      { PTSIM_EV_LRU_ADD, 0 });
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/*
 * fork of an mm with 3 populated private RW VMAs: both mmap_locks, the
 * parent's tree duplicated (7 ranges: one leaf allocated and written),
 * then per VMA the parent write-locked, the charge, vm_area_dup (2
 * objects), anon_vma_fork (the one-entry chain cloned: an avc and the
 * lock; the child's own anon_vma and avc: 2 more and the lock) and an
 * exact-fit store. The child's chains have 2 entries, so the grandchild's
 * anon_vma_clone allocates 2 avcs a VMA. The child's exit frees each VMA
 * (2 objects, no RCU), unlinks each 2-entry chain, destroys the tree's
 * leaf and gives the charge back.
 */
static void test_fork_three_vmas(void **state)
{
	(void)state;
	for (size_t p = 0; p < 2; p++) {
		struct ptsim_machine *m = machine(presets[p]);
		struct ptsim_mm *mm, *child, *grandchild;

		assert_int_equal(ptsim_mm_create(m, &mm), 0);
		for (uint64_t i = 0; i < 3; i++) {
			uint64_t at = A + i * (NR + 16) * SZ_4K;

			assert_int_equal(ptsim_mmap(mm, at, NR * SZ_4K, RW, ANON, NULL), 0);
			assert_int_equal(ptsim_populate(mm, at, NR * SZ_4K, 0, true), 0);
		}
		assert_int_equal(ptsim_fork(mm, &child), 0);
		CHECK(m, "fork", { PTSIM_EV_SYSCALL, 1 }, { PTSIM_EV_RWSEM, 5 },
		      { PTSIM_EV_SLAB_ALLOC, 16 }, { PTSIM_EV_SLAB_FREE, 0 },
		      { PTSIM_EV_MAPLE_NODE_WRITE, 4 }, { PTSIM_EV_ANON_VMA_LOCK, 6 },
		      { PTSIM_EV_VM_STAT, 3 }, { PTSIM_EV_HELPER_CALL, 3 });
		assert_int_equal(ptsim_fork(child, &grandchild), 0);
		CHECK(m, "fork of the child", { PTSIM_EV_RWSEM, 5 }, { PTSIM_EV_SLAB_ALLOC, 19 },
		      { PTSIM_EV_MAPLE_NODE_WRITE, 4 }, { PTSIM_EV_ANON_VMA_LOCK, 6 });
		assert_int_equal(ptsim_mm_exit(child), 0);
		/*
		 * the 48 shared pages' references go in two folios_put_refs calls
		 * (31 + 17), none the last; exit_mmap's lru_add_drain moves the 17
		 * folios the parent's faults left in the lru_add batch (six calls
		 * each). v6.8 drops them a gather batch at a time: the on-stack
		 * bundle's 7 and the next batch's 41, each through release_pages,
		 * mem_cgroup_uncharge_list and free_unref_page_list (issue 43)
		 */
		CHECK(m, "exit of the child", { PTSIM_EV_RWSEM, 2 }, { PTSIM_EV_SLAB_ALLOC, 0 },
		      { PTSIM_EV_SLAB_FREE, 13 }, { PTSIM_EV_ANON_VMA_LOCK, 3 },
		      { PTSIM_EV_VM_STAT, 1 },
		      { PTSIM_EV_HELPER_CALL, (p ? 2 : 2 * 3) + 17 * 6 });
		ptsim_mm_destroy(grandchild);
		ptsim_mm_destroy(child);
		ptsim_mm_destroy(mm);
		assert_invariants(m);
		ptsim_machine_destroy(m);
	}
}

/*
 * ptsim_mm_destroy counts nothing (mm.h): destroying a populated mm that
 * never exited leaves the machine's totals as they were and the last
 * operation's stats empty; the invariants' table balance still holds. The
 * counted teardown is ptsim_mm_exit's.
 */
static void test_destroy_counts_nothing(void **state)
{
	(void)state;
	for (size_t p = 0; p < 2; p++) {
		struct ptsim_machine *m = machine(presets[p]);
		struct ptsim_mm *mm = populated(m), *other = populated(m);
		struct ptsim_stats before, after, last;

		assert_int_equal(ptsim_total_stats(m, &before), 0);
		ptsim_mm_destroy(mm);
		assert_int_equal(ptsim_total_stats(m, &after), 0);
		assert_memory_equal(&before, &after, sizeof(before));
		assert_int_equal(ptsim_last_stats(m, &last), 0);
		for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++)
			assert_int_equal(last.ev[e], 0);
		assert_invariants(m);
		/* after an exit, which counts its table frees, destroy frees the PGD uncounted */
		assert_int_equal(ptsim_mm_exit(other), 0);
		assert_int_equal(ptsim_last_stats(m, &last), 0);
		assert_int_equal(last.ev[PTSIM_EV_TABLE_FREE], 3);
		assert_int_equal(ptsim_total_stats(m, &before), 0);
		ptsim_mm_destroy(other);
		assert_int_equal(ptsim_total_stats(m, &after), 0);
		assert_memory_equal(&before, &after, sizeof(before));
		assert_invariants(m);
		ptsim_machine_destroy(m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mmap),
		cmocka_unit_test(test_mmap_merges_new_range),
		cmocka_unit_test(test_mmap_merge_anon_vmas_differ),
		cmocka_unit_test(test_munmap_split),
		cmocka_unit_test(test_mprotect_split_merge),
		cmocka_unit_test(test_mremap_move),
		cmocka_unit_test(test_first_anon_fault),
		cmocka_unit_test(test_fork_three_vmas),
		cmocka_unit_test(test_destroy_counts_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
