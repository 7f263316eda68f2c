// SPDX-License-Identifier: MIT
/*
 * Allocation-failure sweeps: for each algorithm, fail the n-th allocation for
 * every n up to the number the operation makes. Each run returns -ENOMEM (or
 * the kernel's documented partial result), the invariants hold, and nothing
 * leaks (ASan/LSan in CI).
 */
#include "helpers.h"

#define VA SZ_1G
#define RW (PTSIM_PROT_READ | PTSIM_PROT_WRITE)

typedef struct ptsim_machine *(*build_fn)(void);
typedef int64_t (*op_fn)(struct ptsim_machine *m);

static struct ptsim_mm *the_mm(struct ptsim_machine *m, bool kernel)
{
	for (size_t i = 0; i < m->nr_mms; i++)
		if (m->mms[i]->kernel == kernel)
			return m->mms[i];
	return NULL;
}

static unsigned int warnings;
static void count_warnings(const struct ptsim_diag *d, void *arg)
{
	(void)arg;
	warnings += d->kind == PTSIM_DIAG_WARN;	/* update_range_prot WARNs on -ENOMEM, as the kernel */
}

/* Run op on fresh machines, failing allocation n = 1, 2, ... until it succeeds. */
static unsigned int sweep(build_fn build, op_fn op, int64_t ok_min)
{
	unsigned int n;

	for (n = 1;; n++) {
		struct ptsim_machine *m = build();
		int64_t ret;

		ptsim_set_diag_handler(m, count_warnings, NULL);
		ptsim_fail_nth_alloc(m, n);
		ret = op(m);
		assert_invariants(m);
		if (ret >= ok_min) {	/* the injected failure was never reached */
			ptsim_machine_destroy(m);
			return n - 1;
		}
		assert_int_equal(ret, -ENOMEM);
		ptsim_machine_destroy(m);
		assert_true(n < 10000);
	}
}

/*
 * As sweep, for operations that promise to change nothing on -ENOMEM: the
 * user mm's tables (ptdump), its VMA count and the free memory are as before.
 */
static unsigned int sweep_unchanged(build_fn build, op_fn op)
{
	unsigned int n;

	for (n = 1;; n++) {
		struct ptsim_machine *m = build();
		struct ptsim_mm *mm = the_mm(m, false);
		char *before = ptdump_string(mm), *after;
		size_t vmas = mm->nr_vmas, mms = m->nr_mms;
		uint64_t free0, free1;
		int64_t ret;

		ptsim_phys_free_bytes(m, &free0);
		ptsim_fail_nth_alloc(m, n);
		ret = op(m);
		assert_invariants(m);
		if (ret >= 0) {
			free(before);
			ptsim_machine_destroy(m);
			return n - 1;
		}
		assert_int_equal(ret, -ENOMEM);
		after = ptdump_string(mm);
		ptsim_phys_free_bytes(m, &free1);
		assert_string_equal(before, after);
		assert_int_equal(mm->nr_vmas, vmas);
		assert_int_equal(m->nr_mms, mms);
		assert_int_equal(free0, free1);
		free(before);
		free(after);
		ptsim_machine_destroy(m);
		assert_true(n < 10000);
	}
}

/* mprotect cutting a PMD THP: the split's PTE table is allocated first. */
static struct ptsim_machine *build_thp(void)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3, "patched");
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, 2 * SZ_2M);

	assert_int_equal(ptsim_populate(mm, VA, 2 * SZ_2M, 9, true), 0);
	return m;
}

static int64_t op_mprotect(struct ptsim_machine *m)
{
	return ptsim_mprotect(the_mm(m, false), VA + SZ_64K, SZ_2M, PTSIM_PROT_READ);
}

/* madvise and uffd_register cutting both THPs: the two splits' PTE tables come first. */
static int64_t op_madvise(struct ptsim_machine *m)
{
	return ptsim_madvise(the_mm(m, false), VA + SZ_64K, SZ_2M, PTSIM_MADV_RANDOM);
}

static int64_t op_uffd_register(struct ptsim_machine *m)
{
	return ptsim_uffd_register(the_mm(m, false), VA + SZ_64K, SZ_2M);
}

/* munmap and MADV_DONTNEED cutting both THPs: the two splits' tables come first. */
static int64_t op_munmap(struct ptsim_machine *m)
{
	return ptsim_munmap(the_mm(m, false), VA + SZ_64K, SZ_2M);
}

static int64_t op_dontneed(struct ptsim_machine *m)
{
	return ptsim_madvise(the_mm(m, false), VA + SZ_64K, SZ_2M, PTSIM_MADV_DONTNEED);
}

static int64_t op_pageout(struct ptsim_machine *m)
{
	return ptsim_madvise(the_mm(m, false), VA + SZ_64K, SZ_2M, PTSIM_MADV_PAGEOUT);
}

/* fork of THPs, a pinned one among them (split in the parent, copied page by page). */
static struct ptsim_machine *build_fork(void)
{
	struct ptsim_machine *m = build_thp();
	struct ptsim_mm *mm = the_mm(m, false);

	assert_int_equal(ptsim_mmap(mm, 4 * VA, SZ_2M, RW, PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS,
				    NULL), 0);
	assert_int_equal(ptsim_populate(mm, 4 * VA, SZ_2M, 4, true), 0);
	assert_int_equal(ptsim_folio_set_pinned(mm, VA + SZ_2M, true), 0);
	assert_int_equal(ptsim_folio_set_pinned(mm, 4 * VA, true), 0);
	return m;
}

static int64_t op_fork(struct ptsim_machine *m)
{
	struct ptsim_mm *child;

	return ptsim_fork(the_mm(m, false), &child);	/* the child goes with the machine */
}

/* mremap of THPs and mTHP to a place misaligned with them: table moves impossible. */
static int64_t op_mremap(struct ptsim_machine *m)
{
	return ptsim_mremap(the_mm(m, false), VA, 2 * SZ_2M, 2 * SZ_2M,
			    PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED, 8 * VA + SZ_64K, NULL);
}

/* The invariant checker allocates nothing: under any injected failure it still sees all. */
static int64_t op_check(struct ptsim_machine *m)
{
	uint64_t bad = 1;
	int err = ptsim_check_invariants(m, &bad);

	assert_int_equal(bad, 0);
	return err;
}

/* UFFDIO_MOVE into a fresh registered range: its page tables are allocated on the way. */
static struct ptsim_machine *build_uffd(void)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_ANDROID_X1, "patched");
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, 2 * SZ_2M);

	assert_int_equal(ptsim_mmap(mm, 512 * SZ_1G, 2 * SZ_2M, RW,
				    PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL), 0);
	assert_int_equal(ptsim_populate(mm, VA, 2 * SZ_2M, 0, true), 0);
	assert_int_equal(ptsim_uffd_register(mm, 512 * SZ_1G, 2 * SZ_2M), 0);
	return m;
}

static int64_t op_uffd(struct ptsim_machine *m)
{
	int64_t r = ptsim_uffd_move(the_mm(m, false), 512 * SZ_1G, VA, 2 * SZ_2M, 0);

	/* a failure after the first PMD's batch is the kernel's short move */
	return r == (int64_t)SZ_2M ? -ENOMEM : r;
}

/* An exec fault on an empty page cache: readahead and page-table allocations. */
static struct ptsim_machine *build_exec(void)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_64K, 48, PTSIM_CPU_NEOVERSE_V2, "patched");
	struct ptsim_mm *mm;
	unsigned int f, fd;

	assert_int_equal(ptsim_mm_create(m, &mm), 0);
	assert_int_equal(ptsim_file_create(m, 64 << 20, 11, &f), 0);
	assert_int_equal(ptsim_file_open(m, f, &fd), 0);
	assert_int_equal(ptsim_mmap_file(mm, SZ_1G, 64 << 20, PTSIM_PROT_READ | PTSIM_PROT_EXEC, fd, 0,
					 NULL), 0);
	return m;
}

static int64_t op_exec(struct ptsim_machine *m)
{
	return ptsim_fault(the_mm(m, false), SZ_1G + 5 * 65536, PTSIM_ACCESS_EXEC);
}

/* split_kernel_leaf_mapping inside a PUD block: two tables; -ENOMEM leaves a partial split. */
static struct ptsim_machine *build_kernel(void)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_AMPEREONE, "patched");
	struct ptsim_mem_range r = { 4 * SZ_1G, SZ_1G };
	struct ptsim_kernel_config kc = { .ranges = &r, .nr_ranges = 1 };
	struct ptsim_mm *k;

	assert_int_equal(ptsim_kernel_boot(m, &kc, &k), 0);
	assert_int_equal(ptsim_kernel_finalize_caps(k), 0);
	return m;
}

static int64_t op_kernel(struct ptsim_machine *m)
{
	struct ptsim_mm *k = the_mm(m, true);
	uint64_t va;

	ptsim_kernel_lm_addr(k, 4 * SZ_1G, &va);
	return ptsim_set_memory(k, va + 4096, 3, PTSIM_SET_MEMORY_RO);
}

/* Boot itself: early_pgtable_alloc would panic; the model returns -ENOMEM, nothing left. */
static struct ptsim_machine *build_bare(void)
{
	return new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_V2, "patched");
}

static int64_t op_boot(struct ptsim_machine *m)
{
	struct ptsim_mem_range r = { 4 * SZ_1G, 3 * SZ_2M + SZ_64K };
	struct ptsim_kernel_config kc = { .ranges = &r, .nr_ranges = 1 };
	struct ptsim_mm *k;

	return ptsim_kernel_boot(m, &kc, &k);
}

/* A boot that runs out of memory leaves the totals exactly as they were. */
static void test_failed_boot_counts_nothing(void **state)
{
	(void)state;
	for (unsigned int n = 1; n < 64; n++) {
		struct ptsim_machine *m = build_bare();
		struct ptsim_stats before, after;
		int64_t ret;

		ptsim_total_stats(m, &before);
		ptsim_fail_nth_alloc(m, n);
		ret = op_boot(m);
		ptsim_total_stats(m, &after);
		if (ret == -ENOMEM)
			assert_memory_equal(&before, &after, sizeof(before));
		ptsim_machine_destroy(m);
		if (!ret)
			return;
	}
	fail_msg("the boot never succeeded");
}

static void test_sweeps(void **state)
{
	(void)state;
	assert_int_equal(sweep(build_thp, op_mprotect, 0), 2);	/* both edges cut a THP */
	assert_int_equal(sweep(build_thp, op_madvise, 0), 2);
	assert_int_equal(sweep(build_thp, op_uffd_register, 0), 2);
	assert_int_equal(sweep(build_thp, op_check, 0), 0);
	assert_int_equal(sweep_unchanged(build_thp, op_munmap), 2);
	assert_int_equal(sweep_unchanged(build_thp, op_dontneed), 2);
	assert_int_equal(sweep_unchanged(build_thp, op_pageout), 2);
	assert_true(sweep_unchanged(build_fork, op_fork) > 512);
	assert_true(sweep_unchanged(build_thp, op_mremap) >= 2);
	assert_true(sweep(build_uffd, op_uffd, 1) >= 1);
	assert_true(sweep(build_exec, op_exec, 0) >= 1);
	assert_int_equal(sweep(build_kernel, op_kernel, 0), 2);
	assert_true(sweep(build_bare, op_boot, 0) >= 3);
}

/*
 * Reclaim splits a whole PMD THP with a table the model allocates (the kernel
 * deposited one at fault time): when that fails the folio stays mapped, the
 * call still succeeds and the next THP is swapped out.
 */
static void test_pageout_split_failure(void **state)
{
	struct ptsim_machine *m = build_thp();
	struct ptsim_mm *mm = the_mm(m, false);
	struct ptsim_translation t;

	(void)state;
	ptsim_fail_nth_alloc(m, 1);
	assert_int_equal(ptsim_madvise(mm, VA, 2 * SZ_2M, PTSIM_MADV_PAGEOUT), 0);
	assert_int_equal(ptsim_translate(mm, VA, &t), 0);
	assert_int_equal(t.level, 2);
	assert_int_equal(ptsim_translate(mm, VA + SZ_2M, &t), -ENOENT);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}


/*
 * Every lifecycle call and every fault kind, swept at every allocation index
 * and under every host-memory cap up to what the call needs (issue 33). A
 * case is a machine built to a state and one call on it.
 */

#define PAGE4K SZ_4K

enum fail_kind {
	UNCHANGED,	/* -ENOMEM leaves every user mm, the free memory and the totals as they were */
	PARTIAL,	/* a documented partial result: -ENOMEM and the invariants only */
};

struct lc_case {
	const char *name;
	build_fn build;
	op_fn op;
	enum fail_kind kind;
	int64_t ok_min;		/* a return at or above it is success */
};

static struct ptsim_mm *mm0(struct ptsim_machine *m)
{
	return the_mm(m, false);
}

static struct ptsim_machine *machine4k(void)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_V2, "patched");

	/* mTHP order 4 and PMD THPs may serve anonymous faults */
	assert_int_equal(ptsim_set_thp_orders(m, (UINT64_C(1) << 4) | (UINT64_C(1) << 9)), 0);
	return m;
}

/* An empty 4 MiB VMA; the faults below choose the folio size by alignment and orders. */
static struct ptsim_machine *build_empty(void)
{
	struct ptsim_machine *m = machine4k();

	new_mm_with_vma(m, VA, 2 * SZ_2M);
	return m;
}

/* Order-0 pages: PMD orders off, so every fault and populate maps one page. */
static struct ptsim_machine *build_small(void)
{
	struct ptsim_machine *m = build_empty();

	assert_int_equal(ptsim_set_thp_orders(m, 0), 0);
	assert_int_equal(ptsim_populate(the_mm(m, false), VA, SZ_2M, 0, true), 0);
	return m;
}

/* An mTHP-populated first PMD, a PMD THP second. */
static struct ptsim_machine *build_mixed(void)
{
	struct ptsim_machine *m = build_empty();
	struct ptsim_mm *mm = the_mm(m, false);

	assert_int_equal(ptsim_populate(mm, VA, SZ_2M, 4, true), 0);
	assert_int_equal(ptsim_populate(mm, VA + SZ_2M, SZ_2M, 9, true), 0);
	return m;
}

static struct ptsim_machine *forked(struct ptsim_machine *m)
{
	struct ptsim_mm *child;

	assert_int_equal(ptsim_fork(the_mm(m, false), &child), 0);
	return m;
}

static struct ptsim_machine *build_small_forked(void)
{
	return forked(build_small());
}

static struct ptsim_machine *build_mixed_forked(void)
{
	return forked(build_mixed());
}

/* Order-0 pages swapped out; with a fork, the swap entries are shared. */
static struct ptsim_machine *build_swapped(void)
{
	struct ptsim_machine *m = build_small();

	assert_int_equal(ptsim_swapout(the_mm(m, false), VA, SZ_64K), 0);
	return m;
}

static struct ptsim_machine *build_swapped_forked(void)
{
	return forked(build_swapped());
}

/* The shared zero page mapped at VA (a read fault). */
static struct ptsim_machine *build_zero(void)
{
	struct ptsim_machine *m = build_empty();

	assert_int_equal(ptsim_fault(the_mm(m, false), VA, PTSIM_ACCESS_READ), 0);
	return m;
}

/* A registered destination and a populated source, for UFFDIO_MOVE of mTHPs. */
static struct ptsim_machine *build_uffd_large(void)
{
	struct ptsim_machine *m = build_mixed();
	struct ptsim_mm *mm = the_mm(m, false);

	assert_int_equal(ptsim_mmap(mm, 512 * SZ_1G, SZ_2M, RW, PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS,
				    NULL), 0);
	assert_int_equal(ptsim_uffd_register(mm, 512 * SZ_1G, SZ_2M), 0);
	return m;
}

/* A file mapping (read only) on an empty page cache. */
static struct ptsim_machine *build_file(void)
{
	struct ptsim_machine *m = machine4k();
	struct ptsim_mm *mm;
	unsigned int f, fd;

	assert_int_equal(ptsim_mm_create(m, &mm), 0);
	assert_int_equal(ptsim_file_create(m, 8 << 20, 4, &f), 0);
	assert_int_equal(ptsim_file_open(m, f, &fd), 0);
	assert_int_equal(ptsim_mmap_file(mm, SZ_1G, 8 << 20, PTSIM_PROT_READ, fd, 0, NULL), 0);
	return m;
}

/* Three pinned exclusive PMD THPs (issue 33's fork case). */
static struct ptsim_machine *build_pinned_thps(void)
{
	struct ptsim_machine *m = machine4k();
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, 3 * SZ_2M);

	assert_int_equal(ptsim_populate(mm, VA, 3 * SZ_2M, 9, true), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(ptsim_folio_set_pinned(mm, VA + (uint64_t)i * SZ_2M, true), 0);
	return m;
}

static int64_t lc_mmap(struct ptsim_machine *m)
{
	return ptsim_mmap(mm0(m), 8 * VA, SZ_2M, RW, PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL);
}
static int64_t lc_munmap_cut(struct ptsim_machine *m)
{
	return ptsim_munmap(mm0(m), VA + SZ_64K, SZ_2M);
}
static int64_t lc_mprotect_cut(struct ptsim_machine *m)
{
	return ptsim_mprotect(mm0(m), VA + SZ_64K, SZ_2M, PTSIM_PROT_READ);
}
/* Something right after the VMA, so growing it must move it. */
static struct ptsim_machine *build_mixed_blocked(void)
{
	struct ptsim_machine *m = build_mixed();

	assert_int_equal(ptsim_mmap(mm0(m), VA + 2 * SZ_2M, PAGE4K, RW,
				    PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL), 0);
	return m;
}

static int64_t lc_mremap_grow_move(struct ptsim_machine *m)
{
	return ptsim_mremap(mm0(m), VA, 2 * SZ_2M, 3 * SZ_2M, PTSIM_MREMAP_MAYMOVE, 0, NULL);
}
static int64_t lc_mremap_fixed_aligned(struct ptsim_machine *m)
{
	return ptsim_mremap(mm0(m), VA, 2 * SZ_2M, 2 * SZ_2M,
			    PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED, 8 * VA, NULL);
}
static int64_t lc_mremap_dontunmap(struct ptsim_machine *m)
{
	return ptsim_mremap(mm0(m), VA + SZ_64K, SZ_64K, SZ_64K,
			    PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_DONTUNMAP, 0, NULL);
}
static int64_t lc_mremap_shrink(struct ptsim_machine *m)
{
	return ptsim_mremap(mm0(m), VA, 2 * SZ_2M, SZ_2M + SZ_64K, 0, 0, NULL);
}
static int64_t lc_madv(struct ptsim_machine *m, int adv)
{
	return ptsim_madvise(mm0(m), VA + SZ_64K, SZ_2M, adv);
}
static int64_t lc_dontneed(struct ptsim_machine *m) { return lc_madv(m, PTSIM_MADV_DONTNEED); }
static int64_t lc_free(struct ptsim_machine *m) { return lc_madv(m, PTSIM_MADV_FREE); }
static int64_t lc_cold(struct ptsim_machine *m) { return lc_madv(m, PTSIM_MADV_COLD); }
static int64_t lc_pageout(struct ptsim_machine *m) { return lc_madv(m, PTSIM_MADV_PAGEOUT); }
/* mlock's populate out of memory is -EAGAIN to the caller (__mlock_posix_error_return). */
static int64_t lc_mlock(struct ptsim_machine *m)
{
	int err = ptsim_mlock(mm0(m), VA + SZ_64K, SZ_2M);

	return err == -EAGAIN ? -ENOMEM : err;
}
static struct ptsim_machine *build_mixed_locked(void)
{
	struct ptsim_machine *m = build_mixed();

	assert_int_equal(ptsim_mlock(mm0(m), VA, 2 * SZ_2M), 0);
	return m;
}

static int64_t lc_munlock(struct ptsim_machine *m)
{
	return ptsim_munlock(mm0(m), VA + SZ_64K, SZ_2M);
}
static int64_t lc_fork(struct ptsim_machine *m)
{
	struct ptsim_mm *child;

	return ptsim_fork(mm0(m), &child);
}
static int64_t lc_exit(struct ptsim_machine *m)
{
	return ptsim_mm_exit(mm0(m));
}
static int64_t lc_swapout(struct ptsim_machine *m)
{
	return ptsim_swapout(mm0(m), VA, SZ_64K);
}
static int64_t lc_uffd_move_large(struct ptsim_machine *m)
{
	int64_t r = ptsim_uffd_move(mm0(m), 512 * SZ_1G, VA, SZ_2M, 0);

	return r > 0 && r < (int64_t)SZ_2M ? -ENOMEM : r;	/* a short move is the kernel's partial result */
}
static int64_t lc_populate(struct ptsim_machine *m, unsigned int order)
{
	return ptsim_populate(mm0(m), VA, SZ_2M, order, true);
}
static int64_t lc_populate0(struct ptsim_machine *m) { return lc_populate(m, 0); }
static int64_t lc_populate_mthp(struct ptsim_machine *m) { return lc_populate(m, 4); }
static int64_t lc_populate_pmd(struct ptsim_machine *m) { return lc_populate(m, 9); }
static int64_t lc_populate_read(struct ptsim_machine *m)
{
	return ptsim_populate(mm0(m), VA, SZ_64K, 0, false);
}
static int64_t lc_fault(struct ptsim_machine *m, uint64_t va, enum ptsim_access_kind kind)
{
	return ptsim_fault(mm0(m), va, kind);
}
/* VA + SZ_2M is PMD aligned in an empty PMD: a PMD THP; VA + 64K in a PTE table: mTHP */
static int64_t lc_fault_read(struct ptsim_machine *m) { return lc_fault(m, VA, PTSIM_ACCESS_READ); }
static int64_t lc_fault_write_pmd(struct ptsim_machine *m) { return lc_fault(m, VA + SZ_2M, PTSIM_ACCESS_WRITE); }
static struct ptsim_machine *build_no_thp(void)
{
	struct ptsim_machine *m = build_empty();

	assert_int_equal(ptsim_set_thp_orders(m, 0), 0);
	return m;
}

/* A populated page in the first PMD keeps the PMD THP away: faults there map mTHP of order 4. */
static struct ptsim_machine *build_pte_table(void)
{
	struct ptsim_machine *m = build_empty();

	assert_int_equal(ptsim_populate(mm0(m), VA, PAGE4K, 0, true), 0);
	return m;
}

static int64_t lc_fault_write_small(struct ptsim_machine *m) { return lc_fault(m, VA, PTSIM_ACCESS_WRITE); }
static int64_t lc_fault_write_mthp(struct ptsim_machine *m) { return lc_fault(m, VA + SZ_64K, PTSIM_ACCESS_WRITE); }
static int64_t lc_cow_small(struct ptsim_machine *m) { return lc_fault(m, VA + PAGE4K, PTSIM_ACCESS_WRITE); }
static int64_t lc_cow_mthp(struct ptsim_machine *m) { return lc_fault(m, VA + SZ_64K + PAGE4K, PTSIM_ACCESS_WRITE); }
static int64_t lc_cow_pmd(struct ptsim_machine *m) { return lc_fault(m, VA + SZ_2M + SZ_64K, PTSIM_ACCESS_WRITE); }
static int64_t lc_cow_zero(struct ptsim_machine *m) { return lc_fault(m, VA, PTSIM_ACCESS_WRITE); }
static int64_t lc_swapin_read(struct ptsim_machine *m) { return lc_fault(m, VA + PAGE4K, PTSIM_ACCESS_READ); }
static int64_t lc_swapin_write(struct ptsim_machine *m) { return lc_fault(m, VA + PAGE4K, PTSIM_ACCESS_WRITE); }
static int64_t lc_file_read(struct ptsim_machine *m) { return lc_fault(m, SZ_1G + 5 * PAGE4K, PTSIM_ACCESS_READ); }

static const struct lc_case lc_cases[] = {
	{ "mmap", build_empty, lc_mmap, UNCHANGED, 0 },
	{ "munmap cutting THPs", build_mixed, lc_munmap_cut, UNCHANGED, 0 },
	{ "mprotect cutting THPs", build_mixed, lc_mprotect_cut, PARTIAL, 0 },
	{ "mremap grow, moving", build_mixed_blocked, lc_mremap_grow_move, UNCHANGED, 0 },
	{ "mremap MAYMOVE|FIXED aligned", build_mixed, lc_mremap_fixed_aligned, UNCHANGED, 0 },
	{ "mremap DONTUNMAP of part of an mTHP", build_mixed, lc_mremap_dontunmap, UNCHANGED, 0 },
	{ "mremap shrink cutting a THP", build_mixed, lc_mremap_shrink, UNCHANGED, 0 },
	{ "madvise DONTNEED", build_mixed, lc_dontneed, UNCHANGED, 0 },
	{ "madvise FREE", build_mixed, lc_free, PARTIAL, 0 },
	{ "madvise COLD", build_mixed, lc_cold, PARTIAL, 0 },
	{ "madvise PAGEOUT", build_mixed, lc_pageout, UNCHANGED, 0 },
	{ "mlock (populates: partial)", build_empty, lc_mlock, PARTIAL, 0 },
	{ "munlock cutting THPs", build_mixed_locked, lc_munlock, PARTIAL, 0 },
	{ "fork of mTHP and PMD THP", build_mixed, lc_fork, UNCHANGED, 0 },
	{ "fork of shared swap entries", build_swapped, lc_fork, UNCHANGED, 0 },
	{ "fork of 3 pinned PMD THPs", build_pinned_thps, lc_fork, UNCHANGED, 0 },
	{ "exit", build_mixed_forked, lc_exit, UNCHANGED, 0 },
	{ "swapout", build_small, lc_swapout, UNCHANGED, 0 },
	{ "uffd move of mTHPs", build_uffd_large, lc_uffd_move_large, PARTIAL, 1 },
	{ "populate order 0", build_empty, lc_populate0, UNCHANGED, 0 },
	{ "populate mTHP", build_empty, lc_populate_mthp, UNCHANGED, 0 },
	{ "populate PMD", build_empty, lc_populate_pmd, UNCHANGED, 0 },
	{ "populate read (zero page)", build_empty, lc_populate_read, UNCHANGED, 0 },
	{ "read fault (zero page)", build_empty, lc_fault_read, UNCHANGED, 0 },
	{ "write fault order 0", build_no_thp, lc_fault_write_small, UNCHANGED, 0 },
	{ "write fault mTHP", build_pte_table, lc_fault_write_mthp, UNCHANGED, 0 },
	{ "write fault PMD THP", build_empty, lc_fault_write_pmd, UNCHANGED, 0 },
	{ "write fault on the zero page", build_zero, lc_cow_zero, UNCHANGED, 0 },
	{ "COW of a small folio", build_small_forked, lc_cow_small, UNCHANGED, 0 },
	{ "COW of an mTHP", build_mixed_forked, lc_cow_mthp, UNCHANGED, 0 },
	/* do_huge_pmd_wp_page keeps its split when the copy fails (tests/test-fault.c) */
	{ "COW of a PMD THP (keeps the split)", build_mixed_forked, lc_cow_pmd, PARTIAL, 0 },
	{ "swap-in, read", build_swapped, lc_swapin_read, UNCHANGED, 0 },
	{ "swap-in, write", build_swapped, lc_swapin_write, UNCHANGED, 0 },
	{ "swap-in of a fork-shared entry, write", build_swapped_forked, lc_swapin_write, UNCHANGED, 0 },
	{ "file read fault (keeps the page cache)", build_file, lc_file_read, PARTIAL, 0 },
};

/* What UNCHANGED compares: every user mm's tables and VMAs, free memory, mms, the totals. */
struct snapshot {
	char *dump[8];
	size_t vmas[8];
	size_t mms;
	uint64_t free_bytes;
	struct ptsim_stats total;
};

static void snap(struct ptsim_machine *m, struct snapshot *s)
{
	memset(s, 0, sizeof(*s));
	s->mms = m->nr_mms;
	assert_true(m->nr_mms <= 8);
	for (size_t i = 0; i < m->nr_mms; i++) {
		s->dump[i] = ptdump_string(m->mms[i]);
		s->vmas[i] = m->mms[i]->nr_vmas;
	}
	ptsim_phys_free_bytes(m, &s->free_bytes);
	ptsim_total_stats(m, &s->total);
}

static void snap_free(struct snapshot *s)
{
	for (size_t i = 0; i < 8; i++)
		free(s->dump[i]);
}

static void check_failure(const struct lc_case *c, struct ptsim_machine *m, const struct snapshot *before,
			  int64_t ret, const char *how, uint64_t n)
{
	struct snapshot after;

	if (ret != -ENOMEM)
		fail_msg("%s: %s %llu: returned %lld, not -ENOMEM", c->name, how, (unsigned long long)n,
			 (long long)ret);
	assert_invariants(m);
	if (c->kind != UNCHANGED)
		return;
	snap(m, &after);
	if (after.mms != before->mms)
		fail_msg("%s: %s %llu: %zu mms, %zu before", c->name, how, (unsigned long long)n,
			 after.mms, before->mms);
	for (size_t i = 0; i < after.mms; i++) {
		if (strcmp(after.dump[i], before->dump[i]) || after.vmas[i] != before->vmas[i])
			fail_msg("%s: %s %llu: mm %zu changed", c->name, how, (unsigned long long)n, i);
	}
	if (after.free_bytes != before->free_bytes)
		fail_msg("%s: %s %llu: free memory %llu, %llu before", c->name, how, (unsigned long long)n,
			 (unsigned long long)after.free_bytes, (unsigned long long)before->free_bytes);
	if (memcmp(&after.total, &before->total, sizeof(after.total)))
		fail_msg("%s: %s %llu: the totals counted the failed call", c->name, how,
			 (unsigned long long)n);
	snap_free(&after);
}

/* Fail allocation n = 1, 2, ... until the call succeeds; returns the allocations it makes. */
static uint64_t lc_sweep_allocs(const struct lc_case *c)
{
	for (uint64_t n = 1;; n++) {
		struct ptsim_machine *m = c->build();
		struct snapshot before;
		int64_t ret;

		ptsim_set_diag_handler(m, count_warnings, NULL);
		snap(m, &before);
		ptsim_fail_nth_alloc(m, n);
		ret = c->op(m);
		if (ret >= c->ok_min) {
			assert_invariants(m);
			snap_free(&before);
			ptsim_machine_destroy(m);
			return n - 1;
		}
		check_failure(c, m, &before, ret, "allocation", n);
		snap_free(&before);
		ptsim_machine_destroy(m);
		assert_true(n < 20000);
	}
}

/*
 * The host-memory cap: the call's growth of host bytes measured once, then
 * every cap from none of it to all of it (in at most 64 steps, and each of
 * the last 8 bytes' worth of host pages) must give -ENOMEM and an unchanged
 * model, or succeed.
 */
static void lc_sweep_host(const struct lc_case *c)
{
	struct ptsim_machine *m = c->build();
	uint64_t b0, b1, need, step;

	ptsim_set_diag_handler(m, count_warnings, NULL);
	ptsim_machine_host_bytes(m, &b0);
	if (c->op(m) < c->ok_min) {
		ptsim_machine_destroy(m);
		fail_msg("%s: fails without a cap", c->name);
	}
	ptsim_machine_host_bytes(m, &b1);
	ptsim_machine_destroy(m);
	need = b1 > b0 ? b1 - b0 : 0;
	step = need / 64 ? need / 64 : 1;
	for (uint64_t cap = 0; cap <= need + step; cap += step) {
		struct snapshot before;
		int64_t ret;

		m = c->build();
		ptsim_set_diag_handler(m, count_warnings, NULL);
		ptsim_machine_host_bytes(m, &b0);
		m->cfg.host_memory_limit = b0 + cap ? b0 + cap : 1;
		snap(m, &before);
		ret = c->op(m);
		if (ret < c->ok_min)
			check_failure(c, m, &before, ret, "host cap +", cap);
		else
			assert_invariants(m);
		snap_free(&before);
		ptsim_machine_destroy(m);
	}
}

static void test_lifecycle_sweeps(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(lc_cases) / sizeof(lc_cases[0]); i++) {
		const struct lc_case *c = &lc_cases[i];
		uint64_t n = lc_sweep_allocs(c);

		if (getenv("ALLOCFAIL_VERBOSE"))
			fprintf(stderr, "%-45s %llu allocations swept\n", c->name, (unsigned long long)n);
		lc_sweep_host(c);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sweeps),
		cmocka_unit_test(test_failed_boot_counts_nothing),
		cmocka_unit_test(test_pageout_split_failure),
		cmocka_unit_test(test_lifecycle_sweeps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
