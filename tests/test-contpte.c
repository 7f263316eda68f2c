// SPDX-License-Identifier: MIT
/* contpte fold/unfold/gather/set counts. */
#include "helpers.h"

#include <string.h>

#define VA UINT64_C(0x40000000)

struct fx {
	struct ptsim_machine *m;
	struct ptsim_mm *mm;
	pte_t *ptep;
	const struct ptsim_geometry *g;
};

static struct fx setup(enum ptsim_cpu cpu, const char *preset)
{
	struct fx f;

	f.m = new_machine(PTSIM_GRANULE_4K, 48, cpu, preset);
	f.mm = new_mm_with_vma(f.m, VA, SZ_2M);
	f.ptep = pte_table(f.mm, VA);
	f.g = &f.m->geo;
	return f;
}

static void teardown(struct fx *f)
{
	ptsim_machine_destroy(f->m);
}

/* A writable, dirty, young user PTE for pfn (what an anonymous write fault installs). */
static pte_t user_pte(const struct fx *f, uint64_t pfn)
{
	return pte_mkwrite(pte_mkdirty(pte_mkyoung(pfn_pte(f->g, pfn, PAGE_READONLY))));
}

static struct folio *folio(struct fx *f, unsigned int order)
{
	struct folio *fo = NULL;

	assert_int_equal(folio_alloc(f->m, order, FOLIO_ANON, &fo), 0);
	return fo;
}

static void test_set_ptes_paints_aligned_blocks(void **state)
{
	struct fx f = setup(PTSIM_CPU_APPLE_M3, "baseline");
	struct folio *fo = folio(&f, 5);

	(void)state;
	reset_counts(f.m);
	set_ptes(f.mm, VA, f.ptep, user_pte(&f, folio_pfn(f.m, fo)), 32);
	assert_int_equal(ev(f.m, PTSIM_EV_PTE_WRITE), 32);
	assert_int_equal(ev(f.m, PTSIM_EV_PTE_READ), 0);
	assert_int_equal(ev(f.m, PTSIM_EV_PTE_XCHG), 0);
	assert_int_equal(ev(f.m, PTSIM_EV_SET_PTES_CHUNK), 2);
	for (int i = 0; i < 32; i++) {
		assert_true(pte_valid_cont(f.ptep[i]));
		assert_int_equal(pte_pfn(f.g, f.ptep[i]), folio_pfn(f.m, fo) + (uint64_t)i);
	}
	/* misaligned VA: chunks end at block boundaries and none is cont */
	reset_counts(f.m);
	set_ptes(f.mm, VA + 33 * SZ_4K, f.ptep + 33, user_pte(&f, folio_pfn(f.m, fo)), 16);
	assert_int_equal(ev(f.m, PTSIM_EV_SET_PTES_CHUNK), 2);
	for (int i = 33; i < 49; i++)
		assert_false(pte_cont(f.ptep[i]));
	/* aligned VA but misaligned PA: no cont */
	set_ptes(f.mm, VA + 64 * SZ_4K, f.ptep + 64, user_pte(&f, folio_pfn(f.m, fo) + 1), 16);
	assert_false(pte_cont(f.ptep[64]));
	teardown(&f);
}

static void test_fold_on_last_single_write(void **state)
{
	struct fx f = setup(PTSIM_CPU_APPLE_M3, "baseline");
	struct folio *fo = folio(&f, 4);

	(void)state;
	reset_counts(f.m);
	for (unsigned int i = 0; i < 16; i++) {
		set_ptes(f.mm, VA + i * SZ_4K, f.ptep + i, user_pte(&f, folio_pfn(f.m, fo) + i), 1);
		if (i < 15)
			assert_false(pte_cont(f.ptep[i]));
	}
	for (int i = 0; i < 16; i++)
		assert_true(pte_valid_cont(f.ptep[i]));
	/* 16 x (1 R + 1 W), then the fold: 16 R compare + 16 X + block flush + 16 W */
	assert_int_equal(ev(f.m, PTSIM_EV_PTE_READ), 32);
	assert_int_equal(ev(f.m, PTSIM_EV_PTE_XCHG), 16);
	assert_int_equal(ev(f.m, PTSIM_EV_PTE_WRITE), 32);
	assert_int_equal(ev(f.m, PTSIM_EV_FOLD_ATTEMPT), 1);
	assert_int_equal(ev(f.m, PTSIM_EV_CONTPTE_FOLD), 1);
	assert_int_equal(ev(f.m, PTSIM_EV_CONTPTE_CONVERT), 1);
	assert_int_equal(ev(f.m, PTSIM_EV_TLBI_RANGE), 1);
	assert_int_equal(ev(f.m, PTSIM_EV_TLBI_VA), 0);
	assert_int_equal(ev(f.m, PTSIM_EV_DSB_ISHST), 1);
	assert_int_equal(ev(f.m, PTSIM_EV_DSB_ISH), 1);
	teardown(&f);
}

static void test_fold_ignores_access_and_dirty(void **state)
{
	struct fx f = setup(PTSIM_CPU_APPLE_M3, "baseline");
	struct folio *fo = folio(&f, 4);

	(void)state;
	for (unsigned int i = 0; i < 16; i++) {
		pte_t p = pfn_pte(f.g, folio_pfn(f.m, fo) + i, PAGE_READONLY) | PTE_WRITE;

		p = (i % 2) ? pte_mkold(p) : pte_mkdirty(p);
		set_ptes(f.mm, VA + i * SZ_4K, f.ptep + i, p, 1);
	}
	assert_true(pte_valid_cont(f.ptep[0]));
	/* contpte_convert wrote the gathered state into every entry */
	assert_true(pte_dirty(f.ptep[15]) && pte_young(f.ptep[15]));
	teardown(&f);
}

static void test_no_fold_small_folios(void **state)
{
	struct fx f = setup(PTSIM_CPU_APPLE_M3, "baseline");
	struct folio *fo[16];
	uint64_t first;

	(void)state;
	/* order-0 folios until the next one is block aligned, then 16 in a row */
	do {
		fo[0] = folio(&f, 0);
	} while (folio_pfn(f.m, fo[0]) % 16);
	first = folio_pfn(f.m, fo[0]);
	for (unsigned int i = 1; i < 16; i++) {
		fo[i] = folio(&f, 0);
		assert_int_equal(folio_pfn(f.m, fo[i]), first + i);
	}
	reset_counts(f.m);
	for (unsigned int i = 0; i < 16; i++)
		set_ptes(f.mm, VA + i * SZ_4K, f.ptep + i, user_pte(&f, first + i), 1);
	/* pre-filter passes at the last entry; the folio check fails before any compare read */
	assert_int_equal(ev(f.m, PTSIM_EV_FOLD_ATTEMPT), 1);
	assert_int_equal(ev(f.m, PTSIM_EV_CONTPTE_FOLD), 0);
	assert_int_equal(ev(f.m, PTSIM_EV_PTE_READ), 16);
	assert_false(pte_cont(f.ptep[15]));
	teardown(&f);
}

static void test_no_fold_mismatch(void **state)
{
	struct fx f = setup(PTSIM_CPU_APPLE_M3, "baseline");
	struct folio *fo = folio(&f, 4);

	(void)state;
	reset_counts(f.m);
	for (unsigned int i = 0; i < 16; i++) {
		pte_t p = user_pte(&f, folio_pfn(f.m, fo) + i);

		set_ptes(f.mm, VA + i * SZ_4K, f.ptep + i, i == 7 ? pte_wrprotect(p) : p, 1);
	}
	/* the compare stops at entry 7: 8 reads */
	assert_int_equal(ev(f.m, PTSIM_EV_PTE_READ), 16 + 8);
	assert_int_equal(ev(f.m, PTSIM_EV_CONTPTE_FOLD), 0);
	teardown(&f);
}

static void test_no_fold_other_conditions(void **state)
{
	struct fx f = setup(PTSIM_CPU_APPLE_M3, "baseline");
	struct folio *fo = folio(&f, 5);

	(void)state;
	/* special entries never fold */
	reset_counts(f.m);
	for (unsigned int i = 0; i < 16; i++)
		set_ptes(f.mm, VA + i * SZ_4K, f.ptep + i, pte_mkspecial(user_pte(&f, folio_pfn(f.m, fo) + i)), 1);
	assert_int_equal(ev(f.m, PTSIM_EV_FOLD_ATTEMPT), 0);
	/* written high to low: only the first write is at the last slot, and it fails at once */
	reset_counts(f.m);
	for (int i = 15; i >= 0; i--)
		set_ptes(f.mm, VA + 16 * SZ_4K + (uint64_t)i * SZ_4K, f.ptep + 16 + i,
			 user_pte(&f, folio_pfn(f.m, fo) + 16 + (uint64_t)i), 1);
	assert_int_equal(ev(f.m, PTSIM_EV_FOLD_ATTEMPT), 1);
	assert_int_equal(ev(f.m, PTSIM_EV_CONTPTE_FOLD), 0);
	assert_false(pte_cont(f.ptep[16]));
	/* PFN index not 15 at the last VA slot: the pre-filter stops it */
	reset_counts(f.m);
	pte_t *p2 = pte_table(f.mm, VA + 64 * SZ_4K);
	for (unsigned int i = 0; i < 16; i++)
		set_ptes(f.mm, VA + (64 + i) * SZ_4K, p2 + i, user_pte(&f, folio_pfn(f.m, fo) + 1 + i), 1);
	assert_int_equal(ev(f.m, PTSIM_EV_FOLD_ATTEMPT), 0);
	teardown(&f);
}

static void test_no_fold_kernel_mm(void **state)
{
	struct fx f = setup(PTSIM_CPU_APPLE_M3, "baseline");
	struct folio *fo = folio(&f, 4);

	(void)state;
	f.mm->kernel = true;
	reset_counts(f.m);
	for (unsigned int i = 0; i < 16; i++)
		set_ptes(f.mm, VA + i * SZ_4K, f.ptep + i, user_pte(&f, folio_pfn(f.m, fo) + i), 1);
	assert_int_equal(ev(f.m, PTSIM_EV_CONTPTE_FOLD), 0);
	assert_false(pte_cont(f.ptep[15]));
	/*
	 * The last entry passes contpte_try_fold's inline filter, so
	 * __contpte_try_fold is called (v6.12 contpte.c; the kernel's own file
	 * agrees, test-kernel-contpte) and returns at its mm_is_user test,
	 * before it looks up the folio.
	 */
	assert_int_equal(ev(f.m, PTSIM_EV_FOLD_ATTEMPT), 1);
	assert_int_equal(ev(f.m, PTSIM_EV_FOLIO_LOOKUP) + ev(f.m, PTSIM_EV_FOLIO_TEST), 0);
	/* a contiguous entry of init_mm: __contpte_try_unfold is called and does nothing */
	__set_ptes(f.mm, VA + 32 * SZ_4K, f.ptep + 32,
		   pte_mkcont(user_pte(&f, folio_pfn(f.m, fo))), 16);
	reset_counts(f.m);
	contpte_try_unfold(f.mm, VA + 32 * SZ_4K, f.ptep + 32, f.ptep[32]);
	assert_int_equal(ev(f.m, PTSIM_EV_CONTPTE_UNFOLD), 1);
	assert_int_equal(ev(f.m, PTSIM_EV_CONTPTE_CONVERT), 0);
	assert_int_equal(ev(f.m, PTSIM_EV_PTE_XCHG), 0);
	assert_true(pte_cont(f.ptep[32]));
	f.mm->kernel = false;
	teardown(&f);
}

/* ptep_get_and_clear on a cont entry = 1 R + unfold (16 X + flush + 16 W) + 1 X. */
static void unfold_case(enum ptsim_cpu cpu, const char *preset, uint64_t range, uint64_t va_ops,
			uint64_t dsb)
{
	struct fx f = setup(cpu, preset);
	struct folio *fo = folio(&f, 4);

	set_ptes(f.mm, VA, f.ptep, user_pte(&f, folio_pfn(f.m, fo)), 16);
	reset_counts(f.m);
	pte_t old = ptep_get_and_clear(f.mm, VA + 3 * SZ_4K, f.ptep + 3);
	assert_int_equal(pte_pfn(f.g, old), folio_pfn(f.m, fo) + 3);
	assert_int_equal(ev(f.m, PTSIM_EV_PTE_READ), 1);
	assert_int_equal(ev(f.m, PTSIM_EV_PTE_XCHG), 17);
	assert_int_equal(ev(f.m, PTSIM_EV_PTE_WRITE), 16);
	assert_int_equal(ev(f.m, PTSIM_EV_CONTPTE_UNFOLD), 1);
	assert_int_equal(ev(f.m, PTSIM_EV_TLBI_RANGE), range);
	assert_int_equal(ev(f.m, PTSIM_EV_TLBI_VA), va_ops);
	assert_int_equal(ev(f.m, PTSIM_EV_DSB_ISH), dsb);
	assert_int_equal(f.ptep[3], 0);
	for (int i = 0; i < 16; i++)
		if (i != 3)
			assert_true(pte_valid(f.ptep[i]) && !pte_cont(f.ptep[i]));
	teardown(&f);
}

static void test_convert_flush_variants(void **state)
{
	(void)state;
	unfold_case(PTSIM_CPU_APPLE_M3, "baseline", 1, 0, 1);
	unfold_case(PTSIM_CPU_NEOVERSE_N1, "baseline", 0, 16, 1);
	/* BBML2-noabort CPU: the flush is elided only with the v6.17 change */
	unfold_case(PTSIM_CPU_NEOVERSE_V3, "baseline", 1, 0, 1);
	unfold_case(PTSIM_CPU_NEOVERSE_V3, "patched", 0, 0, 0);
}

/* Build a block with one prot for all 16, then count ptep_get's reads. */
static void gather_case(const char *preset, pte_t prot, uint64_t reads, bool dirty, bool young)
{
	struct fx f = setup(PTSIM_CPU_APPLE_M3, preset);
	struct folio *fo = folio(&f, 4);
	pte_t got;

	set_ptes(f.mm, VA, f.ptep, pfn_pte(f.g, folio_pfn(f.m, fo), prot), 16);
	reset_counts(f.m);
	got = ptep_get(f.mm, f.ptep + 5);
	assert_int_equal(ev(f.m, PTSIM_EV_PTE_READ), reads);
	assert_int_equal(pte_dirty(got), dirty);
	assert_int_equal(pte_young(got), young);
	assert_true(pte_cont(got));	/* the bit leaks to core code */
	teardown(&f);
}

static void test_ptep_get_gather(void **state)
{
	pte_t dirty_young = pte_mkwrite(pte_mkdirty(PAGE_READONLY));
	pte_t young_clean = PAGE_READONLY;
	pte_t dirty_old = pte_mkold(pte_mkdirty(PAGE_READONLY));
	pte_t old_clean = pte_mkold(PAGE_READONLY);

	(void)state;
	gather_case("baseline", dirty_young, 17, true, true);
	gather_case("patched", dirty_young, 3, true, true);
	gather_case("patched", young_clean, 17, false, true);
	gather_case("patched", dirty_old, 18, true, false);
	gather_case("patched", old_clean, 17, false, false);
}

/*
 * ptep_get_none_run over 5 none entries and a valid one counts, event for
 * event (data-cache levels included), what 5 ptep_get calls count, with and
 * without contpte; a run that reaches max_nr stops there.
 */
static void none_run_case(const char *preset)
{
	struct fx a = setup(PTSIM_CPU_APPLE_M3, preset), b = setup(PTSIM_CPU_APPLE_M3, preset);
	pte_t valid = user_pte(&a, folio_pfn(a.m, folio(&a, 0)));

	set_ptes(a.mm, VA + 5 * SZ_4K, a.ptep + 5, valid, 1);
	set_ptes(b.mm, VA + 5 * SZ_4K, b.ptep + 5, valid, 1);
	reset_counts(a.m);
	reset_counts(b.m);
	for (int i = 0; i < 5; i++)
		assert_true(pte_none(ptep_get(a.mm, a.ptep + i)));
	assert_int_equal(ptep_get_none_run(b.mm, b.ptep, 16), 5);
	assert_int_equal(ev(b.m, PTSIM_EV_PTE_READ), 5);
	assert_int_equal(ev(b.m, PTSIM_EV_PTEP_GET), strcmp(preset, "v6.8") ? 5 : 0);
	for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++)
		assert_int_equal(ev(b.m, (enum ptsim_event)e), ev(a.m, (enum ptsim_event)e));
	reset_counts(b.m);
	assert_int_equal(ptep_get_none_run(b.mm, b.ptep + 6, 3), 3);
	assert_int_equal(ev(b.m, PTSIM_EV_PTE_READ), 3);
	assert_int_equal(ptep_get_none_run(b.mm, b.ptep + 5, 3), 0);
	teardown(&a);
	teardown(&b);
}

static void test_ptep_get_none_run(void **state)
{
	(void)state;
	none_run_case("v6.8");
	none_run_case("v6.12");
	none_run_case("patched");
}

static void test_get_and_clear_full(void **state)
{
	struct fx f = setup(PTSIM_CPU_APPLE_M3, "baseline");
	struct folio *fo = folio(&f, 5);
	pte_t got;

	(void)state;
	set_ptes(f.mm, VA, f.ptep, pte_mkold(user_pte(&f, folio_pfn(f.m, fo))), 32);
	f.ptep[9] |= PTE_AF;
	/* a whole aligned block: nr X, no unfold, access/dirty OR-ed into the first */
	reset_counts(f.m);
	got = get_and_clear_full_ptes(f.mm, VA, f.ptep, 16, 0);
	assert_int_equal(ev(f.m, PTSIM_EV_PTE_XCHG), 16);
	assert_int_equal(ev(f.m, PTSIM_EV_PTE_READ), 0);
	assert_int_equal(ev(f.m, PTSIM_EV_CONTPTE_CONVERT), 0);
	assert_true(pte_young(got) && pte_dirty(got) && pte_cont(got));
	/* a partial range inside the second block: head read + unfold, tail read, then nr X */
	reset_counts(f.m);
	get_and_clear_full_ptes(f.mm, VA + 20 * SZ_4K, f.ptep + 20, 8, 0);
	assert_int_equal(ev(f.m, PTSIM_EV_PTE_READ), 2);
	assert_int_equal(ev(f.m, PTSIM_EV_CONTPTE_CONVERT), 1);
	assert_int_equal(ev(f.m, PTSIM_EV_PTE_XCHG), 16 + 8);
	assert_int_equal(ev(f.m, PTSIM_EV_PTE_WRITE), 16);
	assert_true(pte_valid(f.ptep[16]) && !pte_cont(f.ptep[16]));
	/* clear_full_ptes over the rest */
	reset_counts(f.m);
	clear_full_ptes(f.mm, VA + 28 * SZ_4K, f.ptep + 28, 4, 0);
	assert_int_equal(ev(f.m, PTSIM_EV_PTE_XCHG), 4);
	teardown(&f);
}

static void test_batch_hint_and_wrprotect(void **state)
{
	struct fx f = setup(PTSIM_CPU_APPLE_M3, "baseline");
	struct folio *fo = folio(&f, 4);

	(void)state;
	set_ptes(f.mm, VA, f.ptep, user_pte(&f, folio_pfn(f.m, fo)), 16);
	assert_int_equal(pte_batch_hint(f.mm, f.ptep, f.ptep[0]), 16);
	assert_int_equal(pte_batch_hint(f.mm, f.ptep + 5, f.ptep[5]), 11);
	assert_int_equal(pte_batch_hint(f.mm, f.ptep + 5, pte_mknoncont(f.ptep[5])), 1);
	/* a fully covered block stays folded; the caller's gather flushes */
	reset_counts(f.m);
	wrprotect_ptes(f.mm, VA, f.ptep, 16);
	assert_int_equal(ev(f.m, PTSIM_EV_PTE_READ), 16);
	assert_int_equal(ev(f.m, PTSIM_EV_PTE_CAS), 16);
	assert_int_equal(ev(f.m, PTSIM_EV_CONTPTE_CONVERT), 0);
	for (int i = 0; i < 16; i++)
		assert_true(pte_valid_cont(f.ptep[i]) && !pte_write(f.ptep[i]));
	/* a single entry unfolds first */
	reset_counts(f.m);
	wrprotect_ptes(f.mm, VA + SZ_4K, f.ptep + 1, 1);
	assert_int_equal(ev(f.m, PTSIM_EV_CONTPTE_UNFOLD), 1);
	assert_false(pte_cont(f.ptep[1]) || pte_write(f.ptep[1]));
	/* a non-contiguous entry: one read, and the CAS starts from it (the kernel reads once) */
	reset_counts(f.m);
	wrprotect_ptes(f.mm, VA + 2 * SZ_4K, f.ptep + 2, 1);
	assert_int_equal(ev(f.m, PTSIM_EV_PTE_READ), 1);
	assert_int_equal(ev(f.m, PTSIM_EV_PTE_CAS), 1);
	teardown(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_ptes_paints_aligned_blocks),
		cmocka_unit_test(test_fold_on_last_single_write),
		cmocka_unit_test(test_fold_ignores_access_and_dirty),
		cmocka_unit_test(test_no_fold_small_folios),
		cmocka_unit_test(test_no_fold_mismatch),
		cmocka_unit_test(test_no_fold_other_conditions),
		cmocka_unit_test(test_no_fold_kernel_mm),
		cmocka_unit_test(test_convert_flush_variants),
		cmocka_unit_test(test_ptep_get_gather),
		cmocka_unit_test(test_ptep_get_none_run),
		cmocka_unit_test(test_get_and_clear_full),
		cmocka_unit_test(test_batch_hint_and_wrprotect),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
