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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sweeps),
		cmocka_unit_test(test_failed_boot_counts_nothing),
		cmocka_unit_test(test_pageout_split_failure),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
