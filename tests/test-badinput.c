// SPDX-License-Identifier: MIT
/*
 * Bad input: every public function called with NULL, misaligned, wrapped,
 * out-of-range and unknown-enum arguments returns -EINVAL and leaves the
 * model as it was (tables, counts, free memory, invariants).
 */
#include "helpers.h"

#define VA SZ_1G

struct world {
	struct ptsim_machine *m;
	struct ptsim_mm *mm, *k;
	unsigned int fd;
	uint64_t lm;
};

static struct world w;

struct snapshot {
	char *user, *kernel;
	struct ptsim_stats total;
	uint64_t free_bytes, allocs;
};

static struct snapshot snap(void)
{
	struct snapshot s;

	s.user = ptdump_string(w.mm);
	s.kernel = ptdump_string(w.k);
	ptsim_total_stats(w.m, &s.total);
	ptsim_phys_free_bytes(w.m, &s.free_bytes);
	ptsim_alloc_count(w.m, &s.allocs);
	return s;
}

static void same(struct snapshot *a, const char *what)
{
	struct snapshot b = snap();

	if (strcmp(a->user, b.user) || strcmp(a->kernel, b.kernel) ||
	    memcmp(&a->total, &b.total, sizeof(a->total)) || a->free_bytes != b.free_bytes ||
	    a->allocs != b.allocs)
		fail_msg("%s changed the model", what);
	assert_invariants(w.m);
	free(b.user);
	free(b.kernel);
}

#define BAD(call) do {							\
		struct snapshot s_ = snap();				\
		int64_t r_ = (int64_t)(call);				\
		if (r_ != -EINVAL)					\
			fail_msg("%s returned %lld", #call, (long long)r_); \
		same(&s_, #call);					\
		free(s_.user);						\
		free(s_.kernel);					\
	} while (0)

static int setup(void **state)
{
	struct ptsim_mem_range r = { 4 * SZ_1G, 64 * SZ_2M };
	struct ptsim_kernel_config kc = { .ranges = &r, .nr_ranges = 1 };
	unsigned int f;

	(void)state;
	w.m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_AMPEREONE, "patched");
	w.mm = new_mm_with_vma(w.m, 2 * VA, 4 * SZ_2M);
	assert_int_equal(ptsim_populate(w.mm, 2 * VA, SZ_2M, 4, true), 0);
	assert_int_equal(ptsim_uffd_register(w.mm, 2 * VA + 2 * SZ_2M, 2 * SZ_2M), 0);
	assert_int_equal(ptsim_kernel_boot(w.m, &kc, &w.k), 0);
	assert_int_equal(ptsim_kernel_finalize_caps(w.k), 0);
	assert_int_equal(ptsim_kernel_lm_addr(w.k, 4 * SZ_1G, &w.lm), 0);
	assert_int_equal(ptsim_file_create(w.m, SZ_2M, 9, &f), 0);
	assert_int_equal(ptsim_file_open(w.m, f, &w.fd), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	ptsim_machine_destroy(w.m);
	return 0;
}

static void test_machine_and_mm(void **state)
{
	struct ptsim_machine_config cfg;
	struct ptsim_machine *out = NULL;
	struct ptsim_mm *mout;
	struct ptsim_stats st;
	struct ptsim_geometry g;
	unsigned int u;
	uint64_t x;
	bool b;

	(void)state;
	ptsim_machine_config_init(&cfg);
	cfg.va_bits = 50;
	BAD(ptsim_machine_create(&cfg, &out));
	BAD(ptsim_machine_create(NULL, &out));
	ptsim_machine_config_init(&cfg);
	cfg.reserved[6] = 1;	/* room for later fields: must be zero */
	BAD(ptsim_machine_create(&cfg, &out));
	ptsim_machine_config_init(&cfg);
	cfg.bbm_level = 4;	/* 0 (the CPU's) or 1..3 (level 0..2) */
	BAD(ptsim_machine_create(&cfg, &out));
	ptsim_machine_config_init(&cfg);
	cfg.bbml2_noabort = 3;
	BAD(ptsim_machine_create(&cfg, &out));
	BAD(ptsim_machine_create(&cfg, NULL));
	BAD(ptsim_machine_clone(NULL, &out));
	BAD(ptsim_machine_geometry(w.m, NULL));
	BAD(ptsim_geometry_get(PTSIM_GRANULE_16K, 39, &g));
	BAD(ptsim_feature_set(w.m, (enum ptsim_feature)-1, true));
	BAD(ptsim_feature_get(w.m, PTSIM_FEAT__COUNT, &b));
	BAD(ptsim_feature_preset(w.m, NULL == w.m ? "" : "other"));
	BAD(ptsim_feature_lookup(NULL, NULL));
	BAD(ptsim_preset_release(NULL, &u));
	BAD(ptsim_preset_release("v9.9", &u));
	BAD(ptsim_preset_release("v6.17", NULL));
	assert_null(ptsim_preset_name(~0u));
	BAD(ptsim_cpu_lookup("none", (enum ptsim_cpu *)&u));
	BAD(ptsim_last_stats(w.m, NULL));
	BAD(ptsim_total_stats(NULL, &st));
	BAD(ptsim_last_func_stats(w.m, (enum ptsim_func)99, &st));
	BAD(ptsim_fail_nth_alloc(NULL, 1));
	BAD(ptsim_alloc_count(w.m, NULL));
	BAD(ptsim_phys_free_bytes(NULL, &x));
	BAD(ptsim_machine_host_bytes(w.m, NULL));
	BAD(ptsim_set_diag_handler(NULL, NULL, NULL));
	BAD(ptsim_diag_count(w.m, (enum ptsim_diag_kind)7, &x));
	BAD(ptsim_mm_create(NULL, &mout));
	BAD(ptsim_mm_clone(NULL, &mout));
	BAD(ptsim_mm_asid(w.mm, NULL));
	BAD(ptsim_mm_pgtable_bytes(NULL, &x));
	BAD(ptsim_cpu_info(PTSIM_CPU__COUNT, NULL));
	BAD(ptsim_check_invariants(NULL, &x));
	BAD(ptsim_cost_get(PTSIM_CPU_APPLE_M3, (enum ptsim_granule)13, PTSIM_EV_PTE_READ, NULL));
	BAD(ptsim_predict(PTSIM_CPU_APPLE_M3, PTSIM_GRANULE_4K, NULL, NULL));
}

static void test_user_algorithms(void **state)
{
	const uint64_t top = UINT64_C(1) << 48, rw = PTSIM_PROT_READ | PTSIM_PROT_WRITE;
	struct ptsim_translation tr;
	struct ptsim_folio_info fi;
	struct ptsim_ra_state ra;
	struct ptsim_elf_phdr ph = { 0, 0, SZ_4K, SZ_4K, SZ_4K, 5 };
	struct ptsim_mm *mout;
	uint64_t x;
	unsigned int u;

	(void)state;
	BAD(ptsim_mmap(w.mm, 0x5000, 0, rw, PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL));
	BAD(ptsim_mmap(w.mm, top - SZ_4K, 2 * SZ_4K, rw, PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL));
	BAD(ptsim_mmap(w.mm, 0x5000, SZ_4K, 99, PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL));
	BAD(ptsim_populate(w.mm, 2 * VA + 1, SZ_4K, 0, true));
	BAD(ptsim_populate(w.mm, 2 * VA, SZ_4K, 30, true));
	BAD(ptsim_populate(w.mm, UINT64_MAX - 4095, 8192, 0, true));
	BAD(ptsim_split_huge_pmd(NULL, 2 * VA, SZ_2M));
	BAD(ptsim_split_huge_pmd(w.mm, 2 * VA, 0));
	BAD(ptsim_translate(w.mm, top + 5, &tr));
	BAD(ptsim_folio_info(w.mm, 2 * VA, NULL));
	BAD(ptsim_ptdump(NULL, stdout));
	BAD(ptsim_mprotect(w.mm, 2 * VA + 7, SZ_4K, PTSIM_PROT_READ));
	BAD(ptsim_mprotect(w.mm, 2 * VA, SZ_4K, 0x100));
	BAD(ptsim_change_prot_numa(NULL, 2 * VA, SZ_4K));
	BAD(ptsim_uffd_register(w.mm, 2 * VA + 1, SZ_4K));
	BAD(ptsim_uffd_register(w.mm, 0x10000000, SZ_4K));	/* not mapped */
	BAD(ptsim_uffd_move(w.mm, 2 * VA + 2 * SZ_2M, 2 * VA, SZ_4K, 0x40));
	BAD(ptsim_uffd_move(w.mm, 2 * VA + 2 * SZ_2M, 2 * VA + 1, SZ_4K, 0));
	BAD(ptsim_uffd_move(w.mm, 2 * VA, 2 * VA + 2 * SZ_2M, SZ_4K, 0));	/* dst not registered */
	BAD(ptsim_uffd_set_mmap_changing(NULL, true));
	BAD(ptsim_folio_set_pinned(NULL, 2 * VA, true));
	BAD(ptsim_folio_set_exclusive(NULL, 2 * VA, true));
	BAD(ptsim_folio_contend_lock(NULL, 2 * VA, 1));
	BAD(ptsim_swapout(w.mm, 2 * VA, SZ_4K));	/* a 64K folio, not order 0 */
	BAD(ptsim_swapout(w.mm, 2 * VA + 3, SZ_4K));
	BAD(ptsim_access(w.mm, 0, top, PTSIM_ACCESS_READ, NULL));
	BAD(ptsim_access(w.mm, 9, 2 * VA, PTSIM_ACCESS_READ, NULL));
	BAD(ptsim_access(w.mm, 0, 2 * VA, (enum ptsim_access_kind)7, NULL));
	BAD(ptsim_touch(w.mm, 0, 2 * VA, 0, PTSIM_ACCESS_WRITE, NULL));
	BAD(ptsim_tlb_fill(w.mm, 0, top, PTSIM_ACCESS_READ));
	BAD(ptsim_tlb_count(w.m, 0, (enum ptsim_tlb_level)3, &u));
	BAD(ptsim_tlb_probe(w.mm, 0, 2 * VA, PTSIM_TLB_L2, NULL, NULL));
	BAD(ptsim_file_create(w.m, 0, 0, &u));
	BAD(ptsim_file_open(w.m, 77, &u));
	BAD(ptsim_file_ra(w.m, 77, &ra));
	BAD(ptsim_file_cached(w.m, 77, 0, &u));
	BAD(ptsim_mmap_file(w.mm, 0, SZ_4K, PTSIM_PROT_READ, 77, 0, &x));
	BAD(ptsim_mmap_file(w.mm, 0, SZ_4K, PTSIM_PROT_READ, w.fd, UINT64_C(1) << 60, &x));
	BAD(ptsim_madvise(w.mm, 2 * VA, SZ_4K, -5));
	BAD(ptsim_mm_set_aslr(NULL, 1));
	BAD(ptsim_fault(w.mm, top, PTSIM_ACCESS_READ));
	BAD(ptsim_exec_call(w.mm, 0, top));
	BAD(ptsim_elf_load(w.mm, w.fd, &ph, 0, &x));
	BAD(ptsim_elf_load(w.mm, 77, &ph, 1, &x));
	BAD(ptsim_munmap(NULL, 2 * VA, SZ_4K));
	BAD(ptsim_munmap(w.mm, 2 * VA + 1, SZ_4K));
	BAD(ptsim_munmap(w.mm, 2 * VA, 0));
	BAD(ptsim_munmap(w.mm, top - SZ_4K, 2 * SZ_4K));
	BAD(ptsim_munmap(w.mm, UINT64_MAX - 4095, 8192));
	BAD(ptsim_mm_exit(NULL));
	BAD(ptsim_fork(NULL, &mout));
	BAD(ptsim_fork(w.mm, NULL));
	BAD(ptsim_mremap(NULL, 2 * VA, SZ_4K, SZ_4K, 0, 0, &x));
	BAD(ptsim_mremap(w.mm, 2 * VA, SZ_4K, SZ_4K, 0x80, 0, &x));
	BAD(ptsim_mremap(w.mm, 2 * VA + 1, SZ_4K, SZ_4K, 0, 0, &x));
	BAD(ptsim_mremap(w.mm, 2 * VA, 0, SZ_4K, 0, 0, &x));
	BAD(ptsim_mremap(w.mm, 2 * VA, SZ_4K, 0, 0, 0, &x));
	BAD(ptsim_mremap(w.mm, 2 * VA, SZ_4K, SZ_4K, PTSIM_MREMAP_FIXED, 4 * VA, &x));
	BAD(ptsim_mremap(w.mm, 2 * VA, SZ_64K, SZ_64K, PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED,
			 2 * VA + SZ_4K, &x));	/* overlapping */
	BAD(ptsim_mremap(w.mm, 2 * VA, SZ_4K, SZ_64K,
			 PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_DONTUNMAP, 0, &x));
	BAD(ptsim_mremap(w.mm, 2 * VA, SZ_4K, SZ_4K, PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED,
			 top - SZ_4K + 1, &x));
	BAD(ptsim_madvise(w.mm, 2 * VA + 1, SZ_4K, PTSIM_MADV_DONTNEED));
	BAD(ptsim_madvise(w.mm, 2 * VA, UINT64_MAX - 2 * VA, PTSIM_MADV_FREE));	/* rounds up past 2^64 */
	BAD(ptsim_madvise(w.mm, 2 * VA, UINT64_MAX, PTSIM_MADV_FREE));
	BAD(ptsim_madvise(w.mm, 2 * VA, SZ_4K, 12345));	/* no such advice (madvise_behavior_valid) */
	BAD(ptsim_madvise(w.mm, 2 * VA + 1, SZ_4K, PTSIM_MADV_PAGEOUT));
	BAD(ptsim_mlock(NULL, 2 * VA, SZ_4K));
	BAD(ptsim_mlock(w.mm, 2 * VA, UINT64_MAX));
	BAD(ptsim_munlock(w.mm, 2 * VA + 1, UINT64_MAX - 2 * VA));
	BAD(ptsim_munlock(w.mm, top - SZ_4K, 2 * SZ_4K));
	/* mlock2's flags, mlockall's (SYSCALL_DEFINE3(mlock2), SYSCALL_DEFINE1(mlockall)) */
	BAD(ptsim_mlock2(w.mm, 2 * VA, SZ_4K, 2));
	BAD(ptsim_mlock2(NULL, 2 * VA, SZ_4K, PTSIM_MLOCK_ONFAULT));
	BAD(ptsim_mlock2(w.mm, 2 * VA, UINT64_MAX, PTSIM_MLOCK_ONFAULT));
	BAD(ptsim_mlockall(w.mm, 0));
	BAD(ptsim_mlockall(w.mm, PTSIM_MCL_ONFAULT));
	BAD(ptsim_mlockall(w.mm, 8));
	BAD(ptsim_mlockall(NULL, PTSIM_MCL_CURRENT));
	BAD(ptsim_munlockall(NULL));
	BAD(ptsim_madvise(w.mm, 2 * VA + 1, SZ_4K, PTSIM_MADV_POPULATE_READ));
	BAD(ptsim_madvise(w.mm, 2 * VA, UINT64_MAX, PTSIM_MADV_POPULATE_WRITE));
	BAD(ptsim_set_thp_orders(w.m, UINT64_C(1) << 10));
	BAD(ptsim_set_thp_orders(NULL, 0));
	BAD(ptsim_mm_set_threads(w.mm, 0));
	BAD(ptsim_mm_set_threads(NULL, 2));
	(void)fi;
}

/* The kernel mm in calls that take a user mm: -EINVAL, nothing changed (valid arguments otherwise). */
static void test_kernel_mm_in_user_calls(void **state)
{
	const uint64_t rw = PTSIM_PROT_READ | PTSIM_PROT_WRITE;
	const uint64_t low = w.lm & ((UINT64_C(1) << 48) - 1);	/* its VA bits, as a user VA */
	struct ptsim_elf_phdr ph = { 0, 0, SZ_4K, SZ_4K, SZ_4K, 5 };
	struct ptsim_mm *mout;
	uint64_t x;

	(void)state;
	BAD(ptsim_mmap(w.k, 0x40000000, SZ_2M, rw, PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL));
	BAD(ptsim_populate(w.k, low, SZ_4K, 0, true));
	BAD(ptsim_split_huge_pmd(w.k, low, SZ_2M));
	BAD(ptsim_split_folio(w.k, low, 0));
	BAD(ptsim_mprotect(w.k, low, SZ_4K, PTSIM_PROT_READ));
	BAD(ptsim_mprotect(w.k, w.lm, SZ_4K, PTSIM_PROT_READ));
	BAD(ptsim_change_prot_numa(w.k, low, SZ_4K));
	BAD(ptsim_madvise(w.k, low, SZ_4K, PTSIM_MADV_RANDOM));
	BAD(ptsim_uffd_register(w.k, low, SZ_4K));
	BAD(ptsim_uffd_move(w.k, low + SZ_2M, low, SZ_64K, 0));
	BAD(ptsim_uffd_copy(w.k, low + SZ_2M, low, SZ_4K, 0));
	BAD(ptsim_uffd_zeropage(w.k, low, SZ_4K, 0));
	BAD(ptsim_uffd_set_mmap_changing(w.k, true));
	BAD(ptsim_folio_set_pinned(w.k, 2 * VA, true));
	BAD(ptsim_folio_set_exclusive(w.k, 2 * VA, true));
	BAD(ptsim_folio_contend_lock(w.k, 2 * VA, 1));
	BAD(ptsim_swapout(w.k, low, SZ_4K));
	BAD(ptsim_mm_set_aslr(w.k, 1));
	BAD(ptsim_mmap_file(w.k, 0, SZ_4K, PTSIM_PROT_READ, w.fd, 0, &x));
	BAD(ptsim_fault(w.k, low, PTSIM_ACCESS_READ));
	BAD(ptsim_exec_call(w.k, 0, low));
	BAD(ptsim_elf_load(w.k, w.fd, &ph, 1, &x));
	BAD(ptsim_touch(w.mm, 0, 2 * VA, SZ_4K, (enum ptsim_access_kind)7, NULL));
	BAD(ptsim_munmap(w.k, low, SZ_4K));
	BAD(ptsim_mm_exit(w.k));
	BAD(ptsim_fork(w.k, &mout));
	BAD(ptsim_mremap(w.k, low, SZ_4K, SZ_4K, 0, 0, &x));
	BAD(ptsim_mlock(w.k, low, SZ_4K));
	BAD(ptsim_mlock2(w.k, low, SZ_4K, PTSIM_MLOCK_ONFAULT));
	BAD(ptsim_mlockall(w.k, PTSIM_MCL_CURRENT));
	BAD(ptsim_munlockall(w.k));
	BAD(ptsim_madvise(w.k, low, SZ_4K, PTSIM_MADV_POPULATE_WRITE));
	BAD(ptsim_munlock(w.k, low, SZ_4K));
	BAD(ptsim_madvise(w.k, low, SZ_4K, PTSIM_MADV_DONTNEED));
	BAD(ptsim_mm_set_threads(w.k, 2));
}

static void test_kernel(void **state)
{
	struct ptsim_mem_range bad = { 12345, SZ_4K }, good = { 8 * SZ_1G, 64 * SZ_2M };
	struct ptsim_kernel_config kc = { .ranges = &bad, .nr_ranges = 1 };
	struct ptsim_mm *k2;
	uint64_t a, b;

	(void)state;
	BAD(ptsim_kernel_boot(w.m, &kc, &k2));	/* misaligned range */
	kc.ranges = &good;
	kc.reserved[0] = 1;	/* room for later fields: must be zero */
	BAD(ptsim_kernel_boot(w.m, &kc, &k2));
	kc.reserved[0] = 0;
	kc.ranges = &bad;
	kc.nr_ranges = 0;
	BAD(ptsim_kernel_boot(w.m, &kc, &k2));
	BAD(ptsim_kernel_finalize_caps(w.k));	/* already final */
	BAD(ptsim_kernel_finalize_caps(w.mm));	/* not a kernel mm */
	BAD(ptsim_kernel_lm_addr(w.k, 0, &a));
	BAD(ptsim_split_kernel_leaf_mapping(w.k, w.lm + SZ_2M, w.lm));
	BAD(ptsim_split_kernel_leaf_mapping(w.k, w.lm + 1, w.lm + SZ_2M));
	BAD(ptsim_split_kernel_leaf_mapping(w.mm, 0, SZ_4K));
	BAD(ptsim_set_memory(w.k, w.lm + 1, 1, PTSIM_SET_MEMORY_RO));
	BAD(ptsim_set_memory(w.k, w.lm, 1, (enum ptsim_set_memory_op)42));
	BAD(ptsim_set_memory(w.k, 0x1000, 1, PTSIM_SET_MEMORY_RO));	/* not a kernel address */
	BAD(ptsim_set_memory(w.k, w.lm, UINT64_C(1) << 50, PTSIM_SET_MEMORY_RO));
	BAD(ptsim_set_direct_map(w.k, w.lm + 3, PTSIM_DIRECT_MAP_INVALID));
	BAD(ptsim_set_direct_map(w.k, w.lm, (enum ptsim_direct_map_op)9));
	BAD(ptsim_kernel_pgtable_bytes(w.k, &a, NULL));
	BAD(ptsim_kernel_pgtable_bytes(w.mm, &a, &b));
	/* every kernel-map call with a user mm */
	BAD(ptsim_kernel_lm_addr(w.mm, 4 * SZ_1G, &a));
	BAD(ptsim_set_memory(w.mm, w.lm, 1, PTSIM_SET_MEMORY_RO));
	BAD(ptsim_set_direct_map(w.mm, w.lm, PTSIM_DIRECT_MAP_INVALID));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_machine_and_mm),
		cmocka_unit_test(test_user_algorithms),
		cmocka_unit_test(test_kernel_mm_in_user_calls),
		cmocka_unit_test(test_kernel),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
