// SPDX-License-Identifier: MIT
/*
 * A write fault on a page of a large anonymous folio that is not
 * PageAnonExclusive (do_wp_page -> wp_can_reuse_anon_folio, mm/memory.c), on
 * every preset: before v6.15 the page is always copied (v6.12:
 * wp_can_reuse_anon_folio refuses every large folio); from v6.15 ("mm:
 * Copy-on-Write (COW) reuse support for PTE-mapped THP",
 * __wp_can_reuse_large_anon_folio) it is reused when this mm alone maps the
 * folio, more than one page of it is mapped and no pin holds a reference.
 * Each case pins which PFN every VA maps after the write, and the counts the
 * copy adds. Each state is set up as fork, the child gone (or not), then a
 * write in the parent.
 */
#include "helpers.h"

#define VA SZ_1G
#define NR 16u			/* an order-4 folio: 64K of 4K pages */
#define LEN (NR * SZ_4K)

static const char *const presets[] = {
	"v6.6", "v6.8", "v6.9-midpoint", "v6.9", "v6.10", "v6.11", "v6.12", "v6.13", "v6.14",
	"v6.15", "baseline", "v6.16", "v6.17", "v6.18", "v6.19", "patched",
};
#define NR_PRESETS (sizeof(presets) / sizeof(presets[0]))

/* Kernels with __wp_can_reuse_large_anon_folio: v6.15 on ("baseline" is v6.16). */
static bool large_reuse(const char *preset)
{
	static const char *const before[] = { "v6.6", "v6.8", "v6.9-midpoint", "v6.9", "v6.10",
					      "v6.11", "v6.12", "v6.13", "v6.14" };

	for (size_t i = 0; i < sizeof(before) / sizeof(before[0]); i++)
		if (!strcmp(preset, before[i]))
			return false;
	return true;
}

static uint64_t pa_of(struct ptsim_mm *mm, uint64_t va)
{
	struct ptsim_translation tr;

	assert_int_equal(ptsim_translate(mm, va, &tr), 0);
	return tr.pa;
}

/* An order-4 folio at VA, written; fork, and the child exits unless keep_child. */
static struct ptsim_mm *large_folio_after_fork(struct ptsim_machine *m, bool keep_child,
					       struct ptsim_mm **child)
{
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, LEN);
	struct ptsim_folio_info fi;

	assert_int_equal(ptsim_populate(mm, VA, LEN, 4, true), 0);
	assert_int_equal(ptsim_folio_info(mm, VA, &fi), 0);
	assert_int_equal(fi.order, 4);
	assert_int_equal(ptsim_fork(mm, child), 0);
	if (!keep_child) {
		assert_int_equal(ptsim_mm_exit(*child), 0);
		ptsim_mm_destroy(*child);
		*child = NULL;
	}
	return mm;
}

/* Presets whose faults fold a full contpte block (contpte_autofold, v6.9). */
static bool contpte(const char *preset)
{
	return strcmp(preset, "v6.6") && strcmp(preset, "v6.8") && strcmp(preset, "v6.9-midpoint");
}

/*
 * The counts a write fault adds when it copies (wp_page_copy:
 * ptep_clear_flush, then set_ptes of the new page) or reuses (wp_page_reuse:
 * ptep_set_access_flags, one compare-and-swap, one flush_tlb_page). In a
 * contpte block either first unfolds it (contpte_convert: 16 clears, 16
 * stores and a flush; the copy adds its own clear and store).
 */
static void assert_wp_counts(struct ptsim_machine *m, bool copy, bool cont, uint64_t folio_free)
{
	uint64_t unfold = cont ? NR : 0;
	struct ptsim_stats s;
	bool layer;	/* set_ptes is the contpte wrapper (arm64_contpte), not __set_ptes */

	assert_int_equal(ptsim_feature_get(m, PTSIM_FEAT_ARM64_CONTPTE, &layer), 0);
	assert_int_equal(ptsim_last_stats(m, &s), 0);
	assert_int_equal(s.ev[PTSIM_EV_FAULT], 1);
	assert_int_equal(s.ev[PTSIM_EV_PAGE_COPY], copy);
	assert_int_equal(s.ev[PTSIM_EV_FOLIO_ALLOC], copy);
	assert_int_equal(s.ev[PTSIM_EV_FOLIO_FREE], folio_free);
	assert_int_equal(s.ev[PTSIM_EV_RMAP_REMOVE], copy);
	assert_int_equal(s.ev[PTSIM_EV_SET_PTES], copy && layer);
	assert_int_equal(s.ev[PTSIM_EV_CONTPTE_UNFOLD], cont);
	assert_int_equal(s.ev[PTSIM_EV_PTE_XCHG], unfold + copy);	/* the copy's clear; a reuse CASes */
	assert_int_equal(s.ev[PTSIM_EV_PTE_WRITE], unfold + copy);
	assert_int_equal(s.ev[PTSIM_EV_PTE_CAS], !copy);
	assert_int_equal(s.ev[PTSIM_EV_TLBI_VA], unfold + 1);
}

/* This mm maps the whole folio, nobody else does, no pin: reused from v6.15, copied before. */
static void test_whole_folio_exclusive_to_mm(void **state)
{
	(void)state;
	for (size_t p = 0; p < NR_PRESETS; p++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1,
						      presets[p]);
		struct ptsim_mm *child, *mm = large_folio_after_fork(m, false, &child);
		bool copy = !large_reuse(presets[p]);
		struct ptsim_folio_info fi;
		uint64_t before[NR];

		for (unsigned int i = 0; i < NR; i++)
			before[i] = pa_of(mm, VA + i * SZ_4K);
		assert_int_equal(ptsim_folio_info(mm, VA + SZ_4K, &fi), 0);
		assert_false(fi.anon_exclusive);
		assert_int_equal(fi.mapcount, NR);
		assert_int_equal(ptsim_fault(mm, VA + SZ_4K, PTSIM_ACCESS_WRITE), 0);
		assert_wp_counts(m, copy, contpte(presets[p]), 0);
		for (unsigned int i = 0; i < NR; i++) {
			if (i == 1)
				assert_int_equal(pa_of(mm, VA + i * SZ_4K) == before[i], !copy);
			else
				assert_int_equal(pa_of(mm, VA + i * SZ_4K), before[i]);
		}
		assert_int_equal(ptsim_folio_info(mm, VA + SZ_4K, &fi), 0);
		assert_true(fi.anon_exclusive);
		assert_int_equal(fi.order, copy ? 0 : 4);
		assert_int_equal(ptsim_folio_info(mm, VA, &fi), 0);
		assert_int_equal(fi.mapcount, copy ? NR - 1 : NR);
		assert_false(fi.anon_exclusive);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/*
 * One page of the large folio still mapped: copied on every release (from
 * v6.15 __wp_can_reuse_large_anon_folio gives the folio back when
 * folio_large_mapcount <= 1); the large folio is freed with its last mapping.
 */
static void test_last_mapped_page(void **state)
{
	(void)state;
	for (size_t p = 0; p < NR_PRESETS; p++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1,
						      presets[p]);
		struct ptsim_mm *child, *mm = large_folio_after_fork(m, false, &child);
		struct ptsim_translation tr;
		struct ptsim_folio_info fi;
		uint64_t pa = pa_of(mm, VA + 3 * SZ_4K);

		/* keep page 3 only */
		assert_int_equal(ptsim_madvise(mm, VA, 3 * SZ_4K, PTSIM_MADV_DONTNEED), 0);
		assert_int_equal(ptsim_madvise(mm, VA + 4 * SZ_4K, LEN - 4 * SZ_4K,
					       PTSIM_MADV_DONTNEED), 0);
		assert_int_equal(ptsim_folio_info(mm, VA + 3 * SZ_4K, &fi), 0);
		assert_int_equal(fi.order, 4);
		assert_int_equal(fi.mapcount, 1);
		assert_false(fi.anon_exclusive);
		assert_int_equal(ptsim_fault(mm, VA + 3 * SZ_4K, PTSIM_ACCESS_WRITE), 0);
		assert_wp_counts(m, true, false, 1);	/* one page: no contpte block */
		assert_true(pa_of(mm, VA + 3 * SZ_4K) != pa);
		assert_int_equal(ptsim_folio_info(mm, VA + 3 * SZ_4K, &fi), 0);
		assert_int_equal(fi.order, 0);
		assert_int_equal(fi.mapcount, 1);
		assert_true(fi.anon_exclusive);
		for (unsigned int i = 0; i < NR; i++)
			if (i != 3)
				assert_int_equal(ptsim_translate(mm, VA + i * SZ_4K, &tr), -ENOENT);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/* A pinned folio: the pin's reference breaks refcount == mapcount, copied on every release. */
static void test_pinned_folio(void **state)
{
	(void)state;
	for (size_t p = 0; p < NR_PRESETS; p++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1,
						      presets[p]);
		struct ptsim_mm *child, *mm = large_folio_after_fork(m, false, &child);
		struct ptsim_folio_info fi;
		uint64_t pa = pa_of(mm, VA + SZ_4K);

		assert_int_equal(ptsim_folio_set_pinned(mm, VA, true), 0);
		assert_int_equal(ptsim_fault(mm, VA + SZ_4K, PTSIM_ACCESS_WRITE), 0);
		assert_wp_counts(m, true, contpte(presets[p]), 0);
		assert_true(pa_of(mm, VA + SZ_4K) != pa);
		assert_int_equal(ptsim_folio_info(mm, VA, &fi), 0);
		assert_int_equal(fi.mapcount, NR - 1);
		assert_int_equal(fi.pins, 1);
		assert_int_equal(ptsim_folio_set_pinned(mm, VA, false), 0);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/* The child still maps the folio: copied on every release, the child keeps the old page. */
static void test_shared_with_child(void **state)
{
	(void)state;
	for (size_t p = 0; p < NR_PRESETS; p++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1,
						      presets[p]);
		struct ptsim_mm *child, *mm = large_folio_after_fork(m, true, &child);
		uint64_t pa = pa_of(mm, VA + SZ_4K);

		assert_int_equal(ptsim_fault(mm, VA + SZ_4K, PTSIM_ACCESS_WRITE), 0);
		assert_wp_counts(m, true, contpte(presets[p]), 0);
		assert_true(pa_of(mm, VA + SZ_4K) != pa);
		assert_int_equal(pa_of(child, VA + SZ_4K), pa);
		ptsim_mm_destroy(child);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/* An order-0 page the child no longer maps: reused on every release (folio_ref_count == 1). */
static void test_small_folio_reused(void **state)
{
	(void)state;
	for (size_t p = 0; p < NR_PRESETS; p++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1,
						      presets[p]);
		struct ptsim_mm *mm = new_mm_with_vma(m, VA, SZ_4K), *child = NULL;
		uint64_t pa;

		assert_int_equal(ptsim_populate(mm, VA, SZ_4K, 0, true), 0);
		pa = pa_of(mm, VA);
		assert_int_equal(ptsim_fork(mm, &child), 0);
		assert_int_equal(ptsim_mm_exit(child), 0);
		ptsim_mm_destroy(child);
		assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_WRITE), 0);
		assert_wp_counts(m, false, false, 0);
		assert_int_equal(pa_of(mm, VA), pa);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/* The feature follows the preset: on from v6.15. */
static void test_feature_follows_preset(void **state)
{
	(void)state;
	for (size_t p = 0; p < NR_PRESETS; p++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1,
						      presets[p]);
		enum ptsim_feature feat;
		bool on;

		assert_int_equal(ptsim_feature_get(m, PTSIM_FEAT_WP_REUSE_LARGE_ANON_FOLIO, &on), 0);
		assert_int_equal(on, large_reuse(presets[p]));
		assert_int_equal(ptsim_feature_lookup("wp_reuse_large_anon_folio", &feat), 0);
		assert_int_equal(feat, PTSIM_FEAT_WP_REUSE_LARGE_ANON_FOLIO);
		ptsim_machine_destroy(m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole_folio_exclusive_to_mm),
		cmocka_unit_test(test_last_mapped_page),
		cmocka_unit_test(test_pinned_folio),
		cmocka_unit_test(test_shared_with_child),
		cmocka_unit_test(test_small_folio_reused),
		cmocka_unit_test(test_feature_follows_preset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
