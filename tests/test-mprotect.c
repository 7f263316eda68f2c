// SPDX-License-Identifier: MIT
/* mprotect before and after PTE batching: the counts of doc/mprotect.md. */
#include "helpers.h"

#define VA SZ_1G
#define RO PTSIM_PROT_READ
#define RW (PTSIM_PROT_READ | PTSIM_PROT_WRITE)

enum tstate { T1, T2, T3 };

struct setup {
	struct ptsim_machine *m;
	struct ptsim_mm *mm;
};

static void set_features(struct ptsim_machine *m, bool batching, bool early_exit)
{
	ptsim_feature_set(m, PTSIM_FEAT_MPROTECT_PTE_BATCHING, batching);
	ptsim_feature_set(m, PTSIM_FEAT_CONTPTE_GET_EARLY_EXIT, early_exit);
}

static struct setup make(enum ptsim_granule gr, enum ptsim_cpu cpu, enum tstate t, uint64_t len,
			 unsigned int mthp_order)
{
	struct setup s;

	s.m = new_machine(gr, 48, cpu, NULL);
	s.mm = new_mm_with_vma(s.m, VA, len);
	switch (t) {
	case T1:
		assert_int_equal(ptsim_populate(s.mm, VA, len, s.m->geo.pmd_order, true), 0);
		assert_int_equal(ptsim_split_huge_pmd(s.mm, VA, len), 0);
		break;
	case T2:
		assert_int_equal(ptsim_populate(s.mm, VA, len, mthp_order, true), 0);
		break;
	case T3:
		assert_int_equal(ptsim_populate(s.mm, VA, len, 0, true), 0);
		break;
	}
	return s;
}

static struct ptsim_stats mprotect_counts_at(struct ptsim_machine *m)
{
	struct ptsim_stats st;

	assert_int_equal(ptsim_last_stats(m, &st), 0);
	return st;
}

static struct ptsim_stats mprotect_counts(struct setup *s, unsigned int prot)
{
	struct ptsim_stats st;

	assert_int_equal(ptsim_mprotect(s->mm, VA, s->m->geo.pmd_size, prot), 0);
	assert_int_equal(ptsim_last_stats(s->m, &st), 0);
	return st;
}

/* One PMD of 4K pages: 32 contpte blocks; the final gather flush adds 1 range op. */
static void test_per_block_4k(void **state)
{
	const enum tstate states[] = { T1, T2 };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		struct setup s = make(PTSIM_GRANULE_4K, PTSIM_CPU_APPLE_M3, states[i], SZ_2M, 4);
		struct ptsim_stats st;

		for (unsigned int prot = RO; prot <= RW; prot += 2) {
			/* before: 80 R, 48 X, 48 W, 2 block flushes per block */
			set_features(s.m, false, false);
			st = mprotect_counts(&s, prot);
			assert_int_equal(st.ev[PTSIM_EV_PTE_READ], 80 * 32);
			assert_int_equal(st.ev[PTSIM_EV_PTE_XCHG], 48 * 32);
			assert_int_equal(st.ev[PTSIM_EV_PTE_WRITE], 48 * 32);
			assert_int_equal(st.ev[PTSIM_EV_CONTPTE_CONVERT], 2 * 32);
			assert_int_equal(st.ev[PTSIM_EV_TLBI_RANGE], 2 * 32 + 1);
			/* after, full-scan gather: 17 R, 16 X, 16 W, no flush */
			set_features(s.m, true, false);
			st = mprotect_counts(&s, prot ^ 2);
			assert_int_equal(st.ev[PTSIM_EV_PTE_READ], 17 * 32);
			assert_int_equal(st.ev[PTSIM_EV_PTE_XCHG], 16 * 32);
			assert_int_equal(st.ev[PTSIM_EV_PTE_WRITE], 16 * 32);
			assert_int_equal(st.ev[PTSIM_EV_CONTPTE_CONVERT], 0);
			assert_int_equal(st.ev[PTSIM_EV_TLBI_RANGE], 1);
			/* after, v6.17 early-exit gather: 3 R per block */
			set_features(s.m, true, true);
			st = mprotect_counts(&s, prot);
			assert_int_equal(st.ev[PTSIM_EV_PTE_READ], 3 * 32);
			assert_int_equal(st.ev[PTSIM_EV_PTE_XCHG], 16 * 32);
			assert_int_equal(st.ev[PTSIM_EV_PTE_WRITE], 16 * 32);
		}
		/* T1 is one batch per folio, T2 one per block */
		assert_int_equal(st.ev[PTSIM_EV_PTE_BATCH], states[i] == T1 ? 1 : 32);
		ptsim_machine_destroy(s.m);
	}
}

static void test_t3_per_16(void **state)
{
	struct setup s = make(PTSIM_GRANULE_4K, PTSIM_CPU_APPLE_M3, T3, SZ_2M, 0);

	(void)state;
	for (int batching = 0; batching < 2; batching++) {
		set_features(s.m, batching, true);
		for (unsigned int prot = RO; prot <= RW; prot += 2) {
			struct ptsim_stats st = mprotect_counts(&s, prot);

			assert_int_equal(st.ev[PTSIM_EV_PTE_READ], 48 * 32);
			assert_int_equal(st.ev[PTSIM_EV_PTE_XCHG], 16 * 32);
			assert_int_equal(st.ev[PTSIM_EV_PTE_WRITE], 16 * 32);
			assert_int_equal(st.ev[PTSIM_EV_CONTPTE_CONVERT], 0);
			assert_int_equal(st.ev[PTSIM_EV_TLBI_RANGE], 1);
			/* RO gained a folio lookup per PTE with batching */
			if (prot == RO)
				assert_int_equal(st.ev[PTSIM_EV_FOLIO_LOOKUP] >= 512, batching);
		}
	}
	ptsim_machine_destroy(s.m);
}

/* Totals per 1 GiB call and the final flush with and without TLBIRANGE. */
static void test_totals_1g(void **state)
{
	const uint64_t G = SZ_1G;

	(void)state;
	for (int cpu = 0; cpu < 2; cpu++) {
		enum ptsim_cpu id = cpu ? PTSIM_CPU_NEOVERSE_N1 : PTSIM_CPU_APPLE_M3;
		struct setup s = make(PTSIM_GRANULE_4K, id, T1, G, 0);
		struct ptsim_stats st;

		set_features(s.m, false, false);
		assert_int_equal(ptsim_mprotect(s.mm, VA, G, RO), 0);
		ptsim_last_stats(s.m, &st);
		assert_int_equal(st.ev[PTSIM_EV_PTE_READ], 1310720);
		assert_int_equal(st.ev[PTSIM_EV_PTE_XCHG], 786432);
		assert_int_equal(st.ev[PTSIM_EV_PTE_WRITE], 786432);
		assert_int_equal(st.ev[PTSIM_EV_CONTPTE_CONVERT], 32768);
		assert_int_equal(st.ev[PTSIM_EV_PTL_LOCK], 512);
		assert_int_equal(st.ev[PTSIM_EV_MMU_NOTIFIER_RANGE], 1);
		assert_int_equal(st.ev[PTSIM_EV_TLB_GATHER_ADD], 262144);
		if (cpu) {
			/* 16 TLBI-VA per block flush; the 1 GiB final flush falls back to the ASID */
			assert_int_equal(st.ev[PTSIM_EV_TLBI_VA], 524288);
			assert_int_equal(st.ev[PTSIM_EV_TLBI_ASID], 1);
		} else {
			assert_int_equal(st.ev[PTSIM_EV_TLBI_RANGE], 32768 + 1);
		}
		/* the ASID fallback (N1) issues a second DSB ISH after flush_tlb_mm's own */
		assert_int_equal(st.ev[PTSIM_EV_DSB_ISHST] + st.ev[PTSIM_EV_DSB_ISH], 65536 + 2 + cpu);
		set_features(s.m, true, true);
		assert_int_equal(ptsim_mprotect(s.mm, VA, G, RW), 0);
		ptsim_last_stats(s.m, &st);
		assert_int_equal(st.ev[PTSIM_EV_PTE_READ], 49152);
		assert_int_equal(st.ev[PTSIM_EV_PTE_XCHG], 262144);
		assert_int_equal(st.ev[PTSIM_EV_PTE_WRITE], 262144);
		assert_int_equal(st.ev[PTSIM_EV_PTE_BATCH], 512);
		assert_int_equal(st.ev[PTSIM_EV_ANON_EXCL_TEST], 262144);
		assert_int_equal(st.ev[cpu ? PTSIM_EV_TLBI_ASID : PTSIM_EV_TLBI_RANGE], 1);
		assert_int_equal(st.ev[PTSIM_EV_DSB_ISHST] + st.ev[PTSIM_EV_DSB_ISH], 2 + cpu);
		ptsim_machine_destroy(s.m);
	}
}

/* General forms for 16K (G = 128) and 64K (G = 32): one 2 MiB mTHP = one block. */
static void test_other_granules(void **state)
{
	const enum ptsim_granule grs[] = { PTSIM_GRANULE_16K, PTSIM_GRANULE_64K };
	const unsigned int orders[] = { 7, 5 };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		struct setup s = make(grs[i], PTSIM_CPU_NEOVERSE_V2, T2, SZ_2M, orders[i]);
		uint64_t G = s.m->geo.cont_ptes;
		struct ptsim_stats st;

		set_features(s.m, false, false);
		assert_int_equal(ptsim_mprotect(s.mm, VA, SZ_2M, RO), 0);
		ptsim_last_stats(s.m, &st);
		assert_int_equal(st.ev[PTSIM_EV_PTE_READ], 5 * G);
		assert_int_equal(st.ev[PTSIM_EV_PTE_XCHG], 3 * G);
		assert_int_equal(st.ev[PTSIM_EV_PTE_WRITE], 3 * G);
		assert_int_equal(st.ev[PTSIM_EV_TLBI_RANGE], 2 + 1);
		set_features(s.m, true, false);
		assert_int_equal(ptsim_mprotect(s.mm, VA, SZ_2M, RW), 0);
		ptsim_last_stats(s.m, &st);
		assert_int_equal(st.ev[PTSIM_EV_PTE_READ], 1 + G);
		assert_int_equal(st.ev[PTSIM_EV_PTE_XCHG], G);
		assert_int_equal(st.ev[PTSIM_EV_PTE_WRITE], G);
		assert_int_equal(st.ev[PTSIM_EV_TLBI_RANGE], 1);
		ptsim_machine_destroy(s.m);
	}
}

/* RW makes exclusive anonymous pages writable (hardware dirty); RO takes it away. */
static void test_write_upgrade_and_vmas(void **state)
{
	for (int batching = 0; batching < 2; batching++) {
		struct setup s = make(PTSIM_GRANULE_4K, PTSIM_CPU_APPLE_M3, T2, SZ_2M, 4);
		struct ptsim_translation tr;

		(void)state;
		set_features(s.m, batching, true);
		assert_int_equal(ptsim_mprotect(s.mm, VA, SZ_2M, RO), 0);
		assert_int_equal(ptsim_translate(s.mm, VA + 5 * SZ_4K, &tr), 0);
		assert_true(tr.read_only && !tr.write && tr.dirty && tr.cont);
		assert_int_equal(ptsim_mprotect(s.mm, VA, SZ_2M, RW), 0);
		assert_int_equal(ptsim_translate(s.mm, VA + 5 * SZ_4K, &tr), 0);
		assert_true(!tr.read_only && tr.write && tr.cont);
		/* a sub-range splits the VMA in three; restoring merges it back */
		assert_int_equal(ptsim_mprotect(s.mm, VA + SZ_64K, SZ_64K, RO), 0);
		assert_int_equal(s.mm->nr_vmas, 3);
		assert_int_equal(ptsim_mprotect(s.mm, VA + SZ_64K, SZ_64K, RW), 0);
		assert_int_equal(s.mm->nr_vmas, 1);
		/* same flags again: mprotect_fixup returns early, touching nothing */
		struct ptsim_stats st;
		assert_int_equal(ptsim_mprotect(s.mm, VA, SZ_2M, RW), 0);
		ptsim_last_stats(s.m, &st);
		assert_int_equal(st.ev[PTSIM_EV_PTE_READ], 0);
		/* a hole in the range: -ENOMEM and nothing changed */
		char *before = ptdump_string(s.mm), *after;
		assert_int_equal(ptsim_mprotect(s.mm, VA, 2 * SZ_2M, RO), -ENOMEM);
		after = ptdump_string(s.mm);
		assert_string_equal(before, after);
		assert_int_equal(ptsim_mprotect(s.mm, VA + 1, SZ_4K, RO), -EINVAL);
		assert_int_equal(ptsim_mprotect(s.mm, VA, SZ_4K, 0x10), -EINVAL);
		assert_int_equal(ptsim_mprotect(NULL, VA, SZ_4K, RO), -EINVAL);
		assert_int_equal(ptsim_mprotect(s.mm, VA, 0, RO), 0);
		free(before);
		free(after);
		ptsim_machine_destroy(s.m);
	}
}

/* A partial range inside a contpte block unfolds that edge block. */
static void test_partial_block(void **state)
{
	struct setup s = make(PTSIM_GRANULE_4K, PTSIM_CPU_APPLE_M3, T2, SZ_2M, 4);
	struct ptsim_translation tr;
	struct ptsim_stats st;

	(void)state;
	set_features(s.m, true, true);
	assert_int_equal(ptsim_mprotect(s.mm, VA + 4 * SZ_4K, 8 * SZ_4K, RO), 0);
	ptsim_last_stats(s.m, &st);
	assert_int_equal(st.ev[PTSIM_EV_CONTPTE_UNFOLD], 1);
	assert_int_equal(ptsim_translate(s.mm, VA + 4 * SZ_4K, &tr), 0);
	assert_true(tr.read_only && !tr.cont);
	assert_int_equal(ptsim_translate(s.mm, VA, &tr), 0);
	assert_true(!tr.read_only && !tr.cont);
	ptsim_machine_destroy(s.m);
}

static unsigned int leaf_only_tlbis, all_level_tlbis;
static void count_tlbi_levels(struct ptsim_machine *m, const struct tlbi_op *op)
{
	(void)m;
	if (op->last_level)
		leaf_only_tlbis++;
	else
		all_level_tlbis++;
}

/* PMD-mapped THP: change_huge_pmd when covered, a split when only partly covered. */
static void test_huge_pmd(void **state)
{
	struct setup s = make(PTSIM_GRANULE_4K, PTSIM_CPU_APPLE_M3, T3, SZ_2M, 0);
	struct ptsim_mm *mm;
	struct ptsim_translation tr;
	struct ptsim_stats st;

	(void)state;
	ptsim_machine_destroy(s.m);
	s.m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3, NULL);
	mm = new_mm_with_vma(s.m, VA, 2 * SZ_2M);
	assert_int_equal(ptsim_populate(mm, VA, 2 * SZ_2M, 9, true), 0);
	s.m->tlbi_observer = count_tlbi_levels;
	assert_int_equal(ptsim_mprotect(mm, VA, 2 * SZ_2M, RO), 0);
	s.m->tlbi_observer = NULL;
	ptsim_last_stats(s.m, &st);
	assert_int_equal(st.ev[PTSIM_EV_PMD_XCHG], 2);
	assert_int_equal(st.ev[PTSIM_EV_PMD_WRITE], 2);
	/* each pmdp_invalidate flushes with flush_pmd_tlb_range: not leaf-only */
	assert_int_equal(all_level_tlbis, 2);
	assert_int_equal(ptsim_translate(mm, VA, &tr), 0);
	assert_true(tr.level == PMD_LEVEL && tr.read_only);
	assert_int_equal(ptsim_mprotect(mm, VA, 2 * SZ_2M, RW), 0);
	assert_int_equal(ptsim_translate(mm, VA, &tr), 0);
	assert_true(tr.level == PMD_LEVEL && tr.write && !tr.read_only);
	/* a range ending inside the second THP splits it */
	assert_int_equal(ptsim_mprotect(mm, VA, SZ_2M + SZ_64K, RO), 0);
	ptsim_last_stats(s.m, &st);
	assert_int_equal(st.ev[PTSIM_EV_HUGE_PMD_SPLIT], 1);
	assert_int_equal(ptsim_translate(mm, VA + SZ_2M, &tr), 0);
	assert_true(tr.level == PTE_LEVEL && tr.read_only && tr.cont);
	assert_int_equal(ptsim_translate(mm, VA + SZ_2M + SZ_64K, &tr), 0);
	assert_true(tr.level == PTE_LEVEL && !tr.read_only);
	assert_int_equal(ptsim_translate(mm, VA, &tr), 0);
	assert_true(tr.level == PMD_LEVEL && tr.read_only);
	ptsim_machine_destroy(s.m);
}

static void test_prot_numa(void **state)
{
	for (int batching = 0; batching < 2; batching++) {
		struct setup s = make(PTSIM_GRANULE_4K, PTSIM_CPU_APPLE_M3, T2, SZ_2M, 4);
		struct ptsim_translation tr;
		struct ptsim_stats st;

		(void)state;
		set_features(s.m, batching, true);
		/* single-threaded: every folio is already on the (one) target node */
		assert_int_equal(ptsim_change_prot_numa(s.mm, VA, SZ_2M), 0);
		ptsim_last_stats(s.m, &st);
		assert_int_equal(st.ev[PTSIM_EV_PTE_WRITE] + st.ev[PTSIM_EV_PTE_XCHG], 0);
		assert_int_equal(ptsim_translate(s.mm, VA + SZ_64K, &tr), 0);
		assert_true(tr.valid);
		/* two threads: no target node, the entries become protnone */
		assert_int_equal(ptsim_mm_set_threads(s.mm, 2), 0);
		assert_int_equal(ptsim_change_prot_numa(s.mm, VA, SZ_2M), 0);
		assert_int_equal(ptsim_translate(s.mm, VA + SZ_64K, &tr), 0);
		assert_true(!tr.valid);
		assert_int_equal(s.mm->nr_vmas, 1);	/* no VMA change */
		/* a second pass skips the protnone entries: nothing written */
		assert_int_equal(ptsim_change_prot_numa(s.mm, VA, SZ_2M), 0);
		ptsim_last_stats(s.m, &st);
		assert_int_equal(st.ev[PTSIM_EV_PTE_WRITE], 0);
		assert_int_equal(st.ev[PTSIM_EV_PTE_LOOP], batching ? 32 : 512);
		ptsim_machine_destroy(s.m);
	}
}

/* Differential: random ranges, protections and folio mixes leave the same translations. */
static void test_differential(void **state)
{
	const uint64_t len = 4 * SZ_2M;
	const unsigned int prots[] = { RO, RW, PTSIM_PROT_NONE, PTSIM_PROT_READ | PTSIM_PROT_EXEC };
	uint64_t seed = 0x9e3779b97f4a7c15u;
	struct diag_log diags[2] = { 0 };	/* before, after */

	(void)state;
	for (int scenario = 0; scenario < 40; scenario++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3, NULL);
		struct ptsim_mm *before = new_mm_with_vma(m, VA, len), *after;

		/* a folio mix: each 2M is a THP, a split THP, 64K/32K mTHPs or order-0 pages */
		for (uint64_t pmd = 0; pmd < 4; pmd++) {
			uint64_t a = VA + pmd * SZ_2M;

			switch (prng_next(&seed) % 5) {
			case 0: assert_int_equal(ptsim_populate(before, a, SZ_2M, 9, true), 0); break;
			case 1:
				assert_int_equal(ptsim_populate(before, a, SZ_2M, 9, true), 0);
				assert_int_equal(ptsim_split_huge_pmd(before, a, SZ_2M), 0);
				break;
			case 2: assert_int_equal(ptsim_populate(before, a, SZ_2M, 4, true), 0); break;
			case 3: assert_int_equal(ptsim_populate(before, a, SZ_2M, 3, true), 0); break;
			default: assert_int_equal(ptsim_populate(before, a, SZ_2M, 0, true), 0); break;
			}
		}
		assert_int_equal(ptsim_mm_clone(before, &after), 0);
		ptsim_feature_preset(ptsim_mm_machine(after), "patched");
		ptsim_set_diag_handler(m, record_diag, &diags[0]);
		ptsim_set_diag_handler(ptsim_mm_machine(after), record_diag, &diags[1]);
		for (int op = 0; op < 12; op++) {
			uint64_t start = VA + (prng_next(&seed) % (len / SZ_4K)) * SZ_4K;
			uint64_t n = 1 + prng_next(&seed) % ((VA + len - start) / SZ_4K);
			unsigned int prot = prots[prng_next(&seed) % 4];

			assert_int_equal(ptsim_mprotect(before, start, n * SZ_4K, prot),
					 ptsim_mprotect(after, start, n * SZ_4K, prot));
		}
		assert_same_translations(before, after, VA, len, SZ_4K);
		ptsim_mm_destroy(after);
		ptsim_machine_destroy(m);
	}
	/*
	 * v6.16 makes no break-before-make violation; v6.17's batched commit refolds
	 * contpte blocks with no break (the refold finding) and nothing else goes wrong.
	 */
	for (int k = 0; k < PTSIM_DIAG__COUNT; k++)
		assert_int_equal(diags[0].count[k], 0);
	assert_true(diags[1].count[PTSIM_DIAG_BBM_VIOLATION] > 0);
	assert_int_equal(diags[1].count[PTSIM_DIAG_INVARIANT], 0);
	assert_int_equal(diags[1].count[PTSIM_DIAG_TLB_CONFLICT], 0);
	assert_int_equal(diags[1].count[PTSIM_DIAG_WARN], 0);
}

/*
 * A VMA boundary inside a PMD THP splits the THP when the VMA is split
 * (vma_adjust_trans_huge), so a later mprotect or NUMA scan over the whole
 * THP finds PTEs on both sides, never a PMD leaf straddling two VMAs.
 */
static void test_vma_boundary_inside_thp(void **state)
{
	(void)state;
	for (int how = 0; how < 4; how++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3, NULL);
		struct ptsim_mm *mm = new_mm_with_vma(m, VA, SZ_2M);
		struct ptsim_translation tr;
		struct ptsim_stats st;
		uint64_t bad = 1;

		assert_int_equal(ptsim_populate(mm, VA, SZ_2M, 9, true), 0);
		if (how < 2)
			assert_int_equal(ptsim_madvise(mm, VA + SZ_2M / 2, SZ_2M / 2,
						       PTSIM_MADV_SEQUENTIAL), 0);
		else
			assert_int_equal(ptsim_uffd_register(mm, VA + SZ_2M / 2, SZ_2M / 2), 0);
		/* the split and its counts belong to the call that made the boundary */
		ptsim_last_stats(m, &st);
		assert_int_equal(st.ev[PTSIM_EV_VMA_SPLIT], 1);
		assert_int_equal(st.ev[PTSIM_EV_HUGE_PMD_SPLIT], 1);
		assert_int_equal(mm->nr_vmas, 2);
		if (how % 2)
			assert_int_equal(ptsim_change_prot_numa(mm, VA, SZ_2M), 0);
		else
			assert_int_equal(ptsim_mprotect(mm, VA, SZ_2M, RO), 0);
		for (uint64_t off = 0; off < SZ_2M; off += SZ_2M / 2) {
			assert_int_equal(ptsim_translate(mm, VA + off, &tr), 0);
			assert_int_equal(tr.level, 3);
		}
		assert_int_equal(ptsim_check_invariants(m, &bad), 0);
		assert_int_equal(bad, 0);
		ptsim_machine_destroy(m);
	}
}

/* VMAs merge again when they become alike (vma_modify_*), and a no-op changes nothing. */
static void test_vmas_merge(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3, NULL);
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, SZ_2M);
	struct ptsim_stats st;

	(void)state;
	assert_int_equal(ptsim_madvise(mm, VA + SZ_64K, SZ_64K, PTSIM_MADV_NORMAL), 0);
	ptsim_last_stats(m, &st);
	assert_int_equal(st.ev[PTSIM_EV_VMA_SPLIT], 0);
	assert_int_equal(mm->nr_vmas, 1);
	assert_int_equal(ptsim_madvise(mm, VA + SZ_64K, SZ_64K, PTSIM_MADV_RANDOM), 0);
	assert_int_equal(mm->nr_vmas, 3);
	assert_int_equal(ptsim_madvise(mm, VA + SZ_64K, SZ_64K, PTSIM_MADV_NORMAL), 0);
	assert_int_equal(mm->nr_vmas, 1);
	/* uffd registered in two halves is one VMA: a populate and a MOVE span it */
	assert_int_equal(ptsim_uffd_register(mm, VA, SZ_2M / 2), 0);
	assert_int_equal(ptsim_uffd_register(mm, VA + SZ_2M / 2, SZ_2M / 2), 0);
	assert_int_equal(mm->nr_vmas, 1);
	assert_int_equal(ptsim_populate(mm, VA, SZ_2M, 0, true), 0);
	ptsim_machine_destroy(m);
}

/*
 * arm64_pte_needs_flush (v6.19): PROT_NONE -> RW of one page needs no TLBI
 * (the old entry was not valid); RW -> PROT_NONE still flushes.
 */
static void test_pte_needs_flush(void **state)
{
	(void)state;
	for (int elide = 0; elide < 2; elide++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3, "v6.18");
		struct ptsim_mm *mm = new_mm_with_vma(m, VA, SZ_2M);
		struct ptsim_stats st;

		ptsim_feature_set(m, PTSIM_FEAT_ARM64_PTE_NEEDS_FLUSH, elide);
		assert_int_equal(ptsim_populate(mm, VA, SZ_2M, 0, true), 0);
		assert_int_equal(ptsim_mprotect(mm, VA, SZ_4K, PTSIM_PROT_NONE), 0);
		st = mprotect_counts_at(m);
		assert_int_equal(st.ev[PTSIM_EV_TLBI_VA] + st.ev[PTSIM_EV_TLBI_RANGE], 1);
		assert_int_equal(ptsim_mprotect(mm, VA, SZ_4K, RW), 0);
		st = mprotect_counts_at(m);
		assert_int_equal(st.ev[PTSIM_EV_TLBI_VA] + st.ev[PTSIM_EV_TLBI_RANGE], elide ? 0 : 1);
		assert_int_equal(st.ev[PTSIM_EV_DSB_ISH], elide ? 0 : 1);
		assert_invariants(m);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_per_block_4k),
		cmocka_unit_test(test_t3_per_16),
		cmocka_unit_test(test_totals_1g),
		cmocka_unit_test(test_other_granules),
		cmocka_unit_test(test_write_upgrade_and_vmas),
		cmocka_unit_test(test_partial_block),
		cmocka_unit_test(test_huge_pmd),
		cmocka_unit_test(test_prot_numa),
		cmocka_unit_test(test_differential),
		cmocka_unit_test(test_vma_boundary_inside_thp),
		cmocka_unit_test(test_vmas_merge),
		cmocka_unit_test(test_pte_needs_flush),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
