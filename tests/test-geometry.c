// SPDX-License-Identifier: MIT
/* Granule geometry against the Arm ARM (D8.2) and pgtable-hwdef.h. */
#include "helpers.h"

static void check(enum ptsim_granule gr, unsigned int va, unsigned int levels, int start,
		  unsigned int top_entries, uint64_t pmd, uint64_t pud, unsigned int cont_ptes,
		  uint64_t cont_pte_size, unsigned int cont_pmds, uint64_t cont_pmd_size,
		  unsigned int max_dvm, bool pud_block)
{
	struct ptsim_geometry g;

	assert_int_equal(ptsim_geometry_get(gr, va, &g), 0);
	assert_int_equal(g.levels, levels);
	assert_int_equal(g.start_level, start);
	assert_int_equal(g.level_entries[level_slot(start)], top_entries);
	assert_int_equal(g.ptrs_per_table, 1u << ((unsigned int)gr - 3));
	assert_int_equal(g.pmd_size, pmd);
	assert_int_equal(g.pud_size, pud);
	assert_int_equal(g.cont_ptes, cont_ptes);
	assert_int_equal(g.cont_pte_size, cont_pte_size);
	assert_int_equal(g.cont_pmds, cont_pmds);
	assert_int_equal(g.cont_pmd_size, cont_pmd_size);
	assert_int_equal(g.max_dvm_ops, max_dvm);
	assert_int_equal(g.max_tlbi_range_pages, UINT64_C(2097152));
	assert_true(g.level_block[level_slot(2)]);
	assert_int_equal(g.level_block[level_slot(1)], pud_block);
	assert_false(g.level_block[level_slot(3)]);
	assert_int_equal(g.pmd_order, (unsigned int)__builtin_ctzll(pmd) - (unsigned int)gr);
}

#define K UINT64_C(1024)
#define M (K * K)
#define G (M * K)
#define T (G * K)

static void test_4k(void **state)
{
	(void)state;
	check(PTSIM_GRANULE_4K, 48, 4, 0, 512, 2 * M, G, 16, 64 * K, 16, 32 * M, 512, true);
	check(PTSIM_GRANULE_4K, 39, 3, 1, 512, 2 * M, G, 16, 64 * K, 16, 32 * M, 512, true);
	check(PTSIM_GRANULE_4K, 52, 5, -1, 16, 2 * M, G, 16, 64 * K, 16, 32 * M, 512, true);
}

static void test_16k(void **state)
{
	(void)state;
	/* 48-bit: four levels, L0 has only 2 entries; no PUD blocks */
	check(PTSIM_GRANULE_16K, 48, 4, 0, 2, 32 * M, 64 * G, 128, 2 * M, 32, G, 2048, false);
	check(PTSIM_GRANULE_16K, 47, 3, 1, 2048, 32 * M, 64 * G, 128, 2 * M, 32, G, 2048, false);
	check(PTSIM_GRANULE_16K, 36, 2, 2, 2048, 32 * M, 64 * G, 128, 2 * M, 32, G, 2048, false);
	check(PTSIM_GRANULE_16K, 52, 4, 0, 32, 32 * M, 64 * G, 128, 2 * M, 32, G, 2048, false);
}

static void test_64k(void **state)
{
	(void)state;
	/* 48-bit: three levels, L1 has 64 entries; PMD 512M, CONT_PMDS 32 -> 16G */
	check(PTSIM_GRANULE_64K, 48, 3, 1, 64, 512 * M, 4 * T, 32, 2 * M, 32, 16 * G, 8192, false);
	check(PTSIM_GRANULE_64K, 42, 2, 2, 8192, 512 * M, 4 * T, 32, 2 * M, 32, 16 * G, 8192, false);
	check(PTSIM_GRANULE_64K, 52, 3, 1, 1024, 512 * M, 4 * T, 32, 2 * M, 32, 16 * G, 8192, false);
}

static void test_level_sizes(void **state)
{
	struct ptsim_geometry g;

	(void)state;
	assert_int_equal(ptsim_geometry_get(PTSIM_GRANULE_4K, 48, &g), 0);
	assert_int_equal(UINT64_C(1) << g.level_shift[level_slot(0)], 512 * G);
	assert_int_equal(ptsim_geometry_get(PTSIM_GRANULE_16K, 48, &g), 0);
	assert_int_equal(UINT64_C(1) << g.level_shift[level_slot(0)], 128 * T);
	assert_int_equal(ptsim_geometry_get(PTSIM_GRANULE_64K, 48, &g), 0);
	assert_int_equal(UINT64_C(1) << g.level_shift[level_slot(3)], 64 * K);
	/* MAX_TLBI_RANGE_PAGES in bytes: 8G / 32G / 128G */
	assert_int_equal(g.max_tlbi_range_pages * g.page_size, 128 * G);
}

static void test_unsupported(void **state)
{
	struct ptsim_geometry g;

	(void)state;
	assert_int_equal(ptsim_geometry_get(PTSIM_GRANULE_4K, 47, &g), -EINVAL);
	assert_int_equal(ptsim_geometry_get(PTSIM_GRANULE_64K, 39, &g), -EINVAL);
	assert_int_equal(ptsim_geometry_get((enum ptsim_granule)13, 48, &g), -EINVAL);
	assert_int_equal(ptsim_geometry_get(PTSIM_GRANULE_4K, 48, NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_4k),
		cmocka_unit_test(test_16k),
		cmocka_unit_test(test_64k),
		cmocka_unit_test(test_level_sizes),
		cmocka_unit_test(test_unsupported),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
