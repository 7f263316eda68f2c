// SPDX-License-Identifier: MIT
/*
 * CONFIG_ARM64_CONTPTE as a feature ("arm64_contpte") and the presets per
 * release: which features each preset turns on, and what a kernel without
 * the contpte layer counts (the #else branch of v6.12's
 * arch/arm64/include/asm/pgtable.h, and v6.8's helpers before it).
 */
#include "helpers.h"

#define VA SZ_1G

/* ---- presets ---- */

/* The features each merged release turns on, on top of the ones before it. */
static const char *const v67[] = { "pagemap_scan", "pcp_high_auto", NULL };
static const char *const v68[] = { "split_batch_flush", NULL };
static const char *const v69_core[] = { "fork_pte_batching", "zap_pte_batching", NULL };
static const char *const v69[] = { "contpte_wrprotect_helper", "contpte_clear_helpers",
				   "pte_batch_hint", "contpte_autofold", "arm64_contpte",
				   "uffd_per_vma_lock", "large_folio_batch_free",
				   "pageout_ignore_references", NULL };
static const char *const v610[] = { "madv_free_pte_batching", "contpte_clear_young_dirty",
					"deferred_split_partial", "madv_populate_no_vma_walk",
					"split_to_order", "uffd_wp", NULL };
static const char *const v611[] = { "large_mapcount", NULL };
static const char *const v612[] = { "nr_pages_mapped_batch", "split_zeropage_remap", "swap_zeromap",
				    NULL };
static const char *const v614[] = { "zap_skip_none_ptes", NULL };
static const char *const v615[] = { "lazyfree_unmap_batching", "mm_id_mapcount",
				    "wp_reuse_large_anon_folio", NULL };
static const char *const v617[] = { "mprotect_pte_batching", "contpte_get_early_exit",
				    "contpte_bbml2_elision", "mremap_pte_batching",
				    "folio_pte_batch_call", "mremap_multi_vma",
				    "lru_cache_small_only", NULL };
static const char *const v618[] = { "linear_map_blocks", "mremap_batch_respect_write",
				    "finish_fault_whole_folio", "faultaround_whole_folio", NULL };
static const char *const v619[] = { "arm64_pte_needs_flush", NULL };
/* posted, not merged: "patched" only */
static const char *const unmerged[] = { "uffd_move_batching", "exec_contpte_order",
					"exec_mmap_miss_bypass", "elf_contpte_align",
					"unmapped_area_contpte", "linear_map_invalid_leaf_fix",
					"anon_unmap_batching", NULL };

static const struct {
	const char *preset;
	const char *const *on[13];	/* the groups it turns on, NULL-terminated */
} preset_table[] = {
	{ "v6.6", { NULL } },
	{ "v6.8", { v67, v68, NULL } },
	{ "v6.9-midpoint", { v67, v68, v69_core, NULL } },
	{ "v6.9", { v67, v68, v69_core, v69, NULL } },
	{ "v6.10", { v67, v68, v69_core, v69, v610, NULL } },
	{ "v6.11", { v67, v68, v69_core, v69, v610, v611, NULL } },
	{ "v6.12", { v67, v68, v69_core, v69, v610, v611, v612, NULL } },
	{ "v6.13", { v67, v68, v69_core, v69, v610, v611, v612, NULL } },
	{ "v6.14", { v67, v68, v69_core, v69, v610, v611, v612, v614, NULL } },
	{ "v6.15", { v67, v68, v69_core, v69, v610, v611, v612, v614, v615, NULL } },
	{ "v6.16", { v67, v68, v69_core, v69, v610, v611, v612, v614, v615, NULL } },
	{ "baseline", { v67, v68, v69_core, v69, v610, v611, v612, v614, v615, NULL } },
	{ "v6.17", { v67, v68, v69_core, v69, v610, v611, v612, v614, v615, v617, NULL } },
	{ "v6.18", { v67, v68, v69_core, v69, v610, v611, v612, v614, v615, v617, v618, NULL } },
	{ "v6.19", { v67, v68, v69_core, v69, v610, v611, v612, v614, v615, v617, v618, v619, NULL } },
	{ "patched", { v67, v68, v69_core, v69, v610, v611, v612, v614, v615, v617, v618, v619, unmerged } },
};

/* Is feature name in one of the groups? */
static bool listed(const char *const *const groups[13], const char *name)
{
	for (int g = 0; g < 13 && groups[g]; g++)
		for (const char *const *n = groups[g]; *n; n++)
			if (!strcmp(*n, name))
				return true;
	return false;
}

/* Every preset turns on exactly its release's features; behaviour switches stay off. */
static void test_preset_feature_table(void **state)
{
	(void)state;
	for (size_t p = 0; p < sizeof(preset_table) / sizeof(preset_table[0]); p++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3,
						      preset_table[p].preset);

		for (unsigned int f = 0; f < PTSIM_FEAT__COUNT; f++) {
			const char *name = ptsim_feature_name((enum ptsim_feature)f);
			bool on;

			assert_non_null(name);
			assert_int_equal(ptsim_feature_get(m, (enum ptsim_feature)f, &on), 0);
			if (on != listed(preset_table[p].on, name))
				fail_msg("preset %s: feature %s is %s", preset_table[p].preset, name,
					 on ? "on" : "off");
		}
		ptsim_machine_destroy(m);
	}
}

/* Every preset name resolves, on a live machine too; others are refused and change nothing. */
static void test_preset_names(void **state)
{
	static const char *const bad[] = { "v6.7", "v6.20", "v6.9-mid", "V6.12", "", "v6.12 " };
	struct ptsim_machine_config cfg;
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3, "v6.12");
	enum ptsim_feature f;
	bool on;

	(void)state;
	for (size_t p = 0; p < sizeof(preset_table) / sizeof(preset_table[0]); p++)
		assert_int_equal(ptsim_feature_preset(m, preset_table[p].preset), 0);
	assert_int_equal(ptsim_feature_preset(m, "v6.12"), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ptsim_machine *none = NULL;

		assert_int_equal(ptsim_feature_preset(m, bad[i]), -EINVAL);
		ptsim_machine_config_init(&cfg);
		cfg.preset = bad[i];
		assert_int_equal(ptsim_machine_create(&cfg, &none), -EINVAL);
		assert_null(none);
	}
	assert_int_equal(ptsim_feature_get(m, PTSIM_FEAT_CONTPTE_CLEAR_YOUNG_DIRTY, &on), 0);
	assert_true(on);	/* still v6.12 */
	assert_int_equal(ptsim_feature_preset(NULL, "v6.12"), -EINVAL);
	assert_int_equal(ptsim_feature_lookup("arm64_contpte", &f), 0);
	assert_int_equal(f, PTSIM_FEAT_ARM64_CONTPTE);
	assert_string_equal(ptsim_feature_name(PTSIM_FEAT_ARM64_CONTPTE), "arm64_contpte");
	assert_null(ptsim_feature_name(PTSIM_FEAT__COUNT));
	ptsim_machine_destroy(m);
}

/* ---- a kernel without contpte ---- */

struct counts {
	uint64_t read, write, xchg, cas, set_ptes, chunk, ptep_get, tlbi_va;
};

/* Nothing of the contpte layer ran: no wrapper, gather, fold attempt, fold or unfold. */
static void assert_no_contpte(const struct ptsim_stats *st)
{
	assert_int_equal(st->ev[PTSIM_EV_PTEP_GET], 0);
	assert_int_equal(st->ev[PTSIM_EV_SET_PTES], 0);
	assert_int_equal(st->ev[PTSIM_EV_CONTPTE_GATHER], 0);
	assert_int_equal(st->ev[PTSIM_EV_CONTPTE_CONVERT], 0);
	assert_int_equal(st->ev[PTSIM_EV_CONTPTE_FOLD], 0);
	assert_int_equal(st->ev[PTSIM_EV_CONTPTE_UNFOLD], 0);
	assert_int_equal(st->ev[PTSIM_EV_FOLD_ATTEMPT], 0);
}

static void assert_counts(struct ptsim_machine *m, const char *what, const char *kernel,
			  const struct counts *want)
{
	struct ptsim_stats st;
	struct counts got = { 0 };

	assert_int_equal(ptsim_last_stats(m, &st), 0);
	got.read = st.ev[PTSIM_EV_PTE_READ];
	got.write = st.ev[PTSIM_EV_PTE_WRITE];
	got.xchg = st.ev[PTSIM_EV_PTE_XCHG];
	got.cas = st.ev[PTSIM_EV_PTE_CAS];
	got.set_ptes = st.ev[PTSIM_EV_SET_PTES];
	got.chunk = st.ev[PTSIM_EV_SET_PTES_CHUNK];
	got.ptep_get = st.ev[PTSIM_EV_PTEP_GET];
	got.tlbi_va = st.ev[PTSIM_EV_TLBI_VA];
	if (memcmp(&got, want, sizeof(got)))
		fail_msg("%s on %s: reads %llu writes %llu xchg %llu cas %llu set_ptes %llu "
			 "chunks %llu ptep_get %llu tlbi_va %llu", what, kernel,
			 (unsigned long long)got.read, (unsigned long long)got.write,
			 (unsigned long long)got.xchg, (unsigned long long)got.cas,
			 (unsigned long long)got.set_ptes, (unsigned long long)got.chunk,
			 (unsigned long long)got.ptep_get, (unsigned long long)got.tlbi_va);
	if (!want->ptep_get && !want->set_ptes)
		assert_no_contpte(&st);
}

/* No user entry of [VA, VA + len) is contiguous. */
static void assert_not_cont(struct ptsim_mm *mm, uint64_t len)
{
	struct ptsim_translation tr;

	for (uint64_t va = VA; va < VA + len; va += SZ_4K) {
		assert_int_equal(ptsim_translate(mm, va, &tr), 0);
		assert_false(tr.cont);
	}
}

/*
 * One 64K folio (one contpte block on 4K): a write fault, fork, mprotect RW ->
 * R of the parent, munmap, on Neoverse N1 (no range TLBI). With contpte
 * (v6.17): the fault's set_ptes(16) folds the block, ptep_get gathers it,
 * fork and mprotect keep it folded. Without it (v6.17 built with
 * CONFIG_ARM64_CONTPTE=n, and v6.8): plain helpers, every entry read.
 */
static void test_contpte_on_off_64k_folio(void **state)
{
	static const struct {
		const char *kernel;
		int contpte;	/* -1: the preset's */
		struct counts fault, fork, mprotect, munmap;
		bool cont;
	} rows[] = {
		{ "v6.17", -1,
		  /* do_anonymous_page: pte_range_none and the recheck, one set_ptes of 16 */
		  { 32, 16, 0, 0, 1, 1, 0, 0 },
		  /* ptep_get gathers (early exit: 2), folio_pte_batch skips the block (hint) */
		  { 19, 16, 0, 16, 1, 1, 1, 0 },
		  /* one batch: ptep_get, get_and_clear_full_ptes, set_ptes; 16 TLBI VA */
		  { 3, 16, 16, 0, 1, 1, 1, 16 },
		  { 3, 0, 16, 0, 0, 0, 1, 16 },
		  true },
		{ "v6.17", 0,
		  { 32, 16, 0, 0, 0, 1, 0, 0 },
		  /* __ptep_get, folio_pte_batch's 15, __wrprotect_ptes' 16 reads and CAS */
		  { 32, 16, 0, 16, 0, 1, 0, 0 },
		  /* folio_pte_batch reads all 16; __get_and_clear_full_ptes, __set_ptes */
		  { 16, 16, 16, 0, 0, 1, 0, 16 },
		  { 16, 0, 16, 0, 0, 0, 0, 16 },
		  false },
		{ "v6.8", -1,
		  { 32, 16, 0, 0, 0, 1, 0, 0 },
		  /* per entry: ptep_get, ptep_set_wrprotect (read, CAS), set_pte_at */
		  { 32, 16, 0, 16, 0, 16, 0, 0 },
		  /* per entry: ptep_get, ptep_modify_prot_start's exchange, set_pte_at */
		  { 16, 16, 16, 0, 0, 16, 0, 16 },
		  { 16, 0, 16, 0, 0, 0, 0, 16 },
		  false },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1,
						      rows[i].kernel);
		struct ptsim_mm *mm = NULL, *child = NULL;
		struct ptsim_translation tr;
		const char *k = rows[i].contpte == 0 ? "v6.17,-arm64_contpte" : rows[i].kernel;

		if (rows[i].contpte >= 0)
			assert_int_equal(ptsim_feature_set(m, PTSIM_FEAT_ARM64_CONTPTE,
							   rows[i].contpte), 0);
		assert_int_equal(ptsim_set_thp_orders(m, 1u << 4), 0);
		mm = new_mm_with_vma(m, VA, SZ_64K);
		assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_WRITE), 0);
		assert_counts(m, "fault", k, &rows[i].fault);
		assert_int_equal(ptsim_translate(mm, VA + 5 * SZ_4K, &tr), 0);
		assert_int_equal(tr.cont, rows[i].cont);
		assert_int_equal(ptsim_fork(mm, &child), 0);
		assert_counts(m, "fork", k, &rows[i].fork);
		if (!rows[i].cont) {
			assert_not_cont(mm, SZ_64K);
			assert_not_cont(child, SZ_64K);
		}
		assert_int_equal(ptsim_mprotect(mm, VA, SZ_64K, PTSIM_PROT_READ), 0);
		assert_counts(m, "mprotect", k, &rows[i].mprotect);
		if (!rows[i].cont)
			assert_not_cont(mm, SZ_64K);
		assert_int_equal(ptsim_munmap(mm, VA, SZ_64K), 0);
		assert_counts(m, "munmap", k, &rows[i].munmap);
		assert_invariants(m);
		ptsim_mm_destroy(child);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/*
 * Without contpte, a write to a read-only COW page that this mm alone maps is
 * reused with __ptep_set_access_flags alone (one read, one CAS), and a
 * partial mprotect or munmap of a large folio has no block to unfold.
 */
static void test_contpte_off_partial_and_reuse(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.17");
	struct ptsim_mm *mm, *child = NULL;
	struct ptsim_stats st;

	(void)state;
	assert_int_equal(ptsim_feature_set(m, PTSIM_FEAT_ARM64_CONTPTE, false), 0);
	assert_int_equal(ptsim_set_thp_orders(m, 1u << 4), 0);
	mm = new_mm_with_vma(m, VA, SZ_2M);
	assert_int_equal(ptsim_populate(mm, VA, SZ_2M, 4, true), 0);
	assert_int_equal(ptsim_fork(mm, &child), 0);
	assert_int_equal(ptsim_mm_exit(child), 0);
	ptsim_mm_destroy(child);
	/* do_wp_page reuses the page: ptep_get, pte_same, __ptep_set_access_flags */
	assert_int_equal(ptsim_fault(mm, VA + SZ_4K, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(ptsim_last_stats(m, &st), 0);
	assert_no_contpte(&st);
	assert_int_equal(st.ev[PTSIM_EV_PAGE_COPY], 0);
	assert_int_equal(st.ev[PTSIM_EV_PTE_CAS], 1);
	/* 8 pages into a folio, 8 pages out of the next: nothing to unfold */
	assert_int_equal(ptsim_mprotect(mm, VA + SZ_64K + 8 * SZ_4K, SZ_64K, PTSIM_PROT_READ), 0);
	assert_int_equal(ptsim_last_stats(m, &st), 0);
	assert_no_contpte(&st);
	assert_int_equal(st.ev[PTSIM_EV_PTE_XCHG], 16);
	assert_int_equal(ptsim_munmap(mm, VA + 3 * SZ_64K + 4 * SZ_4K, SZ_64K), 0);
	assert_int_equal(ptsim_last_stats(m, &st), 0);
	assert_no_contpte(&st);
	assert_int_equal(st.ev[PTSIM_EV_PTE_XCHG], 16);
	assert_not_cont(mm, 3 * SZ_64K);
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/*
 * The switch is a kernel build option: it is not turned off, by itself or
 * by a preset, under a contiguous user entry (-EBUSY, nothing changes); it
 * may be turned on at any time, and off again once no block is left.
 */
static void test_contpte_switch_busy(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3, "v6.17");
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, SZ_2M);
	bool on;

	(void)state;
	assert_int_equal(ptsim_populate(mm, VA, SZ_2M, 4, true), 0);
	assert_int_equal(ptsim_feature_set(m, PTSIM_FEAT_ARM64_CONTPTE, false), -EBUSY);
	assert_int_equal(ptsim_feature_preset(m, "v6.8"), -EBUSY);
	assert_int_equal(ptsim_feature_preset(m, "v6.9-midpoint"), -EBUSY);
	assert_int_equal(ptsim_feature_get(m, PTSIM_FEAT_ARM64_CONTPTE, &on), 0);
	assert_true(on);
	assert_int_equal(ptsim_feature_get(m, PTSIM_FEAT_MPROTECT_PTE_BATCHING, &on), 0);
	assert_true(on);	/* the refused preset changed nothing */
	/* presets that keep contpte, and switching it on, are fine */
	assert_int_equal(ptsim_feature_preset(m, "v6.9"), 0);
	assert_int_equal(ptsim_feature_set(m, PTSIM_FEAT_ARM64_CONTPTE, true), 0);
	assert_int_equal(ptsim_feature_preset(m, "v6.17"), 0);
	/* an mm with only order-0 pages holds no block */
	assert_int_equal(ptsim_munmap(mm, VA, SZ_2M), 0);
	assert_int_equal(ptsim_mmap(mm, VA, SZ_2M, PTSIM_PROT_READ | PTSIM_PROT_WRITE,
				    PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL), 0);
	assert_int_equal(ptsim_populate(mm, VA, SZ_2M, 0, true), 0);
	assert_int_equal(ptsim_feature_preset(m, "v6.8"), 0);
	assert_int_equal(ptsim_feature_get(m, PTSIM_FEAT_ARM64_CONTPTE, &on), 0);
	assert_false(on);
	assert_int_equal(ptsim_feature_set(m, PTSIM_FEAT_ARM64_CONTPTE, true), 0);
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/*
 * The kernel linear map (TTBR1, arch/arm64/mm/mmu.c) is not a user mapping:
 * with rodata=off its last 64K past a 2M block is a contiguous PTE group
 * whether or not contpte is built in, with the same counts; a machine whose
 * only contiguous entries are the kernel's may switch contpte off.
 */
static void test_linear_map_keeps_cont(void **state)
{
	const struct ptsim_mem_range r = { 2 * SZ_1G, SZ_2M + SZ_64K };
	const struct ptsim_kernel_config kc = { .ranges = &r, .nr_ranges = 1,
						.rodata = PTSIM_RODATA_OFF };
	struct ptsim_stats st[2];

	(void)state;
	for (int contpte = 0; contpte < 2; contpte++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1,
						      contpte ? "v6.17" : "v6.8");
		struct ptsim_mm *k = NULL;
		struct ptsim_translation tr;
		uint64_t va;

		assert_int_equal(ptsim_kernel_boot(m, &kc, &k), 0);
		assert_int_equal(ptsim_last_stats(m, &st[contpte]), 0);
		assert_int_equal(ptsim_kernel_lm_addr(k, 2 * SZ_1G + SZ_2M + SZ_4K, &va), 0);
		assert_int_equal(ptsim_translate(k, va, &tr), 0);
		assert_true(tr.level == PTE_LEVEL && tr.cont);
		if (contpte)
			assert_int_equal(ptsim_feature_set(m, PTSIM_FEAT_ARM64_CONTPTE, false), 0);
		ptsim_machine_destroy(m);
	}
	assert_memory_equal(&st[0], &st[1], sizeof(st[0]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_preset_feature_table),
		cmocka_unit_test(test_preset_names),
		cmocka_unit_test(test_contpte_on_off_64k_folio),
		cmocka_unit_test(test_contpte_off_partial_and_reuse),
		cmocka_unit_test(test_contpte_switch_busy),
		cmocka_unit_test(test_linear_map_keeps_cont),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
