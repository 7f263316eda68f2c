// SPDX-License-Identifier: MIT
/* The kernel linear map: painting, the split primitive, set_memory, the repaint (doc/linear-map.md). */
#include "helpers.h"
#include "asm/kernel_map.h"

#define GIB (UINT64_C(1) << 30)
#define MIB (UINT64_C(1) << 20)

static unsigned int bbm, warns;
static void count_diags(const struct ptsim_diag *d, void *arg)
{
	(void)arg;
	bbm += d->kind == PTSIM_DIAG_BBM_VIOLATION;
	warns += d->kind == PTSIM_DIAG_WARN;
}

struct kfx {
	struct ptsim_machine *m;
	struct ptsim_mm *k;
};

/* Boot with an explicit kernel config (ranges at 1 GiB and above). */
static struct kfx boot_cfg(enum ptsim_granule gr, enum ptsim_cpu cpu,
			   const struct ptsim_kernel_config *kc, uint64_t phys_end, bool blocks)
{
	struct ptsim_machine_config cfg;
	struct kfx f;

	ptsim_machine_config_init(&cfg);
	cfg.granule = gr;
	cfg.cpu = cpu;
	cfg.nr_cpus = 4;
	cfg.phys_base = GIB;
	cfg.phys_size = phys_end - GIB;
	f.m = create_machine(&cfg);
	ptsim_set_diag_handler(f.m, count_diags, NULL);
	bbm = warns = 0;
	ptsim_feature_set(f.m, PTSIM_FEAT_LINEAR_MAP_BLOCKS, blocks);
	assert_int_equal(ptsim_kernel_boot(f.m, kc, &f.k), 0);
	return f;
}

/* One memory range (blocks on: the v6.18 feature), optionally with the caps finalised. */
static struct kfx boot(enum ptsim_granule gr, enum ptsim_cpu cpu, uint64_t start, uint64_t size,
		       bool finalize, bool secondary_lacks)
{
	struct ptsim_mem_range r = { start, size };
	struct ptsim_kernel_config kc = { .ranges = &r, .nr_ranges = 1,
					  .secondary_lacks_bbml2 = secondary_lacks };
	struct kfx f = boot_cfg(gr, cpu, &kc, GIB + ALIGN_UP64(start + size - GIB, GIB), true);

	if (finalize)
		assert_int_equal(ptsim_kernel_finalize_caps(f.k), 0);
	return f;
}

static uint64_t lm(struct kfx *f, uint64_t pa)
{
	uint64_t va;

	assert_int_equal(ptsim_kernel_lm_addr(f->k, pa, &va), 0);
	return va;
}

static uint64_t writes(const struct ptsim_stats *s)
{
	return s->ev[PTSIM_EV_PTE_WRITE] + s->ev[PTSIM_EV_PMD_WRITE] + s->ev[PTSIM_EV_PUD_WRITE];
}

/* A split with one boundary at va; the other end is aligned beyond any leaf (a no-op). */
static struct ptsim_stats split_at(struct kfx *f, uint64_t va)
{
	struct ptsim_stats s;

	assert_int_equal(ptsim_split_kernel_leaf_mapping(f->k, va, ALIGN_UP64(va + 1, 64 * GIB)), 0);
	ptsim_last_stats(f->m, &s);
	assert_int_equal(s.ev[PTSIM_EV_TLBI_VA] + s.ev[PTSIM_EV_TLBI_VAA] + s.ev[PTSIM_EV_TLBI_ALL] +
			 s.ev[PTSIM_EV_TLBI_RANGE_VAA], 0);
	return s;
}

static void expect_split(uint64_t start, uint64_t size, uint64_t off, uint64_t a, uint64_t w,
			 uint64_t d)
{
	struct kfx f = boot(PTSIM_GRANULE_4K, PTSIM_CPU_AMPEREONE, start, size, true, false);
	struct ptsim_stats s = split_at(&f, lm(&f, start) + off);

	assert_int_equal(s.ev[PTSIM_EV_TABLE_ALLOC], a);
	assert_int_equal(writes(&s), w);
	/* explicit DSB ISHSTs, plus the lazy leave's one when anything was written */
	assert_int_equal(s.ev[PTSIM_EV_DSB_ISHST], d + (w ? 1 : 0));
	assert_int_equal(s.ev[PTSIM_EV_ISB], w ? 1 : 0);
	assert_int_equal(bbm, 0);
	ptsim_machine_destroy(f.m);
}

/* Descriptor writes per split, 4K (doc/linear-map.md). */
static void test_split_counts_4k(void **state)
{
	(void)state;
	expect_split(GIB, 2 * GIB, 4096, 2, 1058, 2);		/* PUD, not 64K aligned */
	expect_split(GIB, 2 * GIB, 64 * 1024, 2, 1042, 2);	/* PUD, 64K aligned */
	expect_split(GIB, 2 * GIB, 2 * MIB, 1, 529, 1);		/* PUD, 2M aligned */
	expect_split(GIB, 2 * GIB, 32 * MIB, 1, 513, 1);	/* PUD, 32M aligned */
	expect_split(GIB, 512 * MIB, 4096, 1, 545, 1);		/* CONT_PMD, no PUD leaf */
	expect_split(GIB + 2 * MIB, 4 * MIB, 2 * MIB + 4096, 1, 529, 1);	/* plain PMD */
	expect_split(GIB + 64 * 1024, 64 * 1024, 4096, 0, 16, 0);	/* CONT_PTE */
	expect_split(GIB + 4096, 8 * 1024, 4096, 0, 0, 0);	/* plain PTEs */
	expect_split(GIB, 2 * GIB, GIB, 0, 0, 0);		/* aligned to the leaf */
}

static void test_split_worst_16k_64k(void **state)
{
	(void)state;
	/* 16K: CONT_PMD + PMD + CONT_PTE = 32 + 2049 + 128; 64K: 32 + 8193 + 32 */
	const enum ptsim_granule grs[] = { PTSIM_GRANULE_16K, PTSIM_GRANULE_64K };
	const uint64_t want[] = { 2209, 8257 };

	for (int i = 0; i < 2; i++) {
		struct ptsim_geometry g;

		ptsim_geometry_get(grs[i], 48, &g);
		struct kfx f = boot(grs[i], PTSIM_CPU_AMPEREONE, 64 * GIB, g.cont_pmd_size, true, false);
		struct ptsim_stats s = split_at(&f, lm(&f, 64 * GIB) + g.page_size);

		assert_int_equal(writes(&s), want[i]);
		assert_int_equal(s.ev[PTSIM_EV_TABLE_ALLOC], 1);
		assert_int_equal(bbm, 0);
		ptsim_machine_destroy(f.m);
	}
}

static void test_split_rules(void **state)
{
	struct kfx f = boot(PTSIM_GRANULE_4K, PTSIM_CPU_AMPEREONE, GIB, GIB, false, false);
	uint64_t va = lm(&f, GIB);
	struct ptsim_stats s;

	(void)state;
	/* before the caps are finalised system_supports_bbml2_noabort() is false: a no-op */
	assert_int_equal(ptsim_split_kernel_leaf_mapping(f.k, va + 4096, va + 8192), 0);
	ptsim_last_stats(f.m, &s);
	assert_int_equal(writes(&s), 0);
	assert_int_equal(ptsim_kernel_finalize_caps(f.k), 0);
	assert_int_equal(ptsim_kernel_finalize_caps(f.k), -EINVAL);
	/* misaligned: -EINVAL */
	assert_int_equal(ptsim_split_kernel_leaf_mapping(f.k, va + 1, va + 8192), -EINVAL);
	/* -ENOMEM after the PUD split: consistent partial split, translations unchanged */
	struct ptsim_translation before, after;

	assert_int_equal(ptsim_translate(f.k, va + 12345, &before), 0);
	ptsim_fail_nth_alloc(f.m, 2);
	assert_int_equal(ptsim_split_kernel_leaf_mapping(f.k, va + 4096, va + 8192), -ENOMEM);
	assert_int_equal(ptsim_translate(f.k, va + 12345, &after), 0);
	assert_int_equal(before.pa, after.pa);
	assert_int_equal(after.level, 2);	/* the PUD was split, the PMD not */
	/* the retry finishes the job */
	assert_int_equal(ptsim_split_kernel_leaf_mapping(f.k, va + 4096, va + 8192), 0);
	assert_int_equal(ptsim_translate(f.k, va + 12345, &after), 0);
	assert_int_equal(after.level, 3);
	assert_int_equal(before.pa, after.pa);
	assert_int_equal(bbm, 0);
	ptsim_machine_destroy(f.m);
}

/* The same split on a CPU without BBML2 breaks break-before-make. */
static void test_split_flagged_without_bbml2(void **state)
{
	struct ptsim_mem_range r = { GIB, GIB };
	struct ptsim_kernel_config kc = { .ranges = &r, .nr_ranges = 1, .rodata = PTSIM_RODATA_OFF };
	struct kfx f = boot_cfg(PTSIM_GRANULE_4K, PTSIM_CPU_NEOVERSE_N1, &kc, 2 * GIB, true);
	uint64_t va = lm(&f, GIB);

	(void)state;
	assert_int_equal(ptsim_kernel_finalize_caps(f.k), 0);
	/* rodata=off: blocks, and the kernel never splits them on this CPU */
	assert_int_equal(ptsim_split_kernel_leaf_mapping(f.k, va + 4096, va + 8192), 0);
	assert_int_equal(bbm, 0);
	/* forced through, as if the CPU were allow-listed: the checker flags the size changes */
	f.k->kmap->system_bbml2 = true;
	assert_int_equal(ptsim_split_kernel_leaf_mapping(f.k, va + 4096, va + 8192), 0);
	assert_true(bbm >= 2);
	ptsim_machine_destroy(f.m);
}

/* After a split, stale large TLB entries and new small ones coexist without an abort. */
static void test_stale_entries_coexist(void **state)
{
	const enum ptsim_cpu cpus[] = { PTSIM_CPU_AMPEREONE, PTSIM_CPU_NEOVERSE_V3 };

	(void)state;
	for (int i = 0; i < 2; i++) {
		struct kfx f = boot(PTSIM_GRANULE_4K, cpus[i], GIB, GIB, true, false);
		uint64_t va = lm(&f, GIB);
		enum ptsim_fault_kind fault;
		unsigned int n;
		uint64_t conflicts;

		assert_int_equal(ptsim_access(f.k, 0, va + 8192, PTSIM_ACCESS_READ, NULL), 0);
		assert_int_equal(ptsim_split_kernel_leaf_mapping(f.k, va + 4096, va + 8192), 0);
		/* a speculative walk caches the new 4K translation next to the stale 1G one */
		assert_int_equal(ptsim_tlb_fill(f.k, 0, va + 8192, PTSIM_ACCESS_READ), 0);
		assert_int_equal(ptsim_tlb_probe(f.k, 0, va + 8192, PTSIM_TLB_L2, &n, NULL), 0);
		assert_int_equal(n, 2);
		assert_int_equal(ptsim_access(f.k, 0, va + 8192, PTSIM_ACCESS_READ, &fault), 0);
		assert_int_equal(fault, PTSIM_FAULT_NONE);
		ptsim_diag_count(f.m, PTSIM_DIAG_TLB_CONFLICT, &conflicts);
		assert_int_equal(conflicts, 1);
		assert_int_equal(bbm, 0);
		ptsim_machine_destroy(f.m);
	}
}

/* The repaint of an all-PUD linear map costs, per GiB, 513 tables and 263,169 writes. */
static void test_repaint_counts(void **state)
{
	struct kfx f = boot(PTSIM_GRANULE_4K, PTSIM_CPU_AMPEREONE, GIB, 4 * GIB, false, true);
	struct ptsim_stats s;
	struct ptsim_translation tr;
	uint64_t boot_b, late_b;

	(void)state;
	assert_true(ptsim_kernel_linear_map_requires_bbml2(f.k));
	assert_int_equal(ptsim_translate(f.k, lm(&f, GIB), &tr), 0);
	assert_int_equal(tr.level, 1);	/* painted with PUD blocks by the BBML2 boot CPU */
	assert_int_equal(ptsim_kernel_finalize_caps(f.k), 0);
	ptsim_last_stats(f.m, &s);
	assert_int_equal(s.ev[PTSIM_EV_TABLE_ALLOC], 4 * 513);
	assert_int_equal(writes(&s), 4 * 263169);
	/*
	 * explicit DSB ISHSTs per split, the lazy-leave pair of the range call that
	 * wrote (the one past the absent kernel alias writes nothing), and the flush's
	 */
	assert_int_equal(s.ev[PTSIM_EV_DSB_ISHST], 4 * 513 + 1 + 1);
	assert_int_equal(s.ev[PTSIM_EV_TLBI_ALL], 1);
	assert_int_equal(s.ev[PTSIM_EV_TLBI_LOCAL_ALL], 3);
	assert_int_equal(ptsim_translate(f.k, lm(&f, GIB) + 12345, &tr), 0);
	assert_true(tr.level == PTE_LEVEL && !tr.cont);
	ptsim_kernel_pgtable_bytes(f.k, &boot_b, &late_b);
	assert_int_equal(late_b, 4 * 513 * 4096);	/* buddy pages, inside MemTotal */
	ptsim_machine_destroy(f.m);
}

/* Page-table memory for 256 GiB, PTE-mapped vs block-mapped. */
static void test_pgtable_memory_256g(void **state)
{
	const enum ptsim_granule grs[] = { PTSIM_GRANULE_4K, PTSIM_GRANULE_16K, PTSIM_GRANULE_64K };
	const uint64_t pte_kib[] = { 525316, 131152, 32832 }, blk_kib[] = { 4, 80, 64 };

	(void)state;
	for (int i = 0; i < 3; i++) {
		for (int blocks = 0; blocks < 2; blocks++) {
			struct ptsim_mem_range r = { 64 * GIB, 256 * GIB };
			struct ptsim_kernel_config kc = { .ranges = &r, .nr_ranges = 1 };
			/* AmpereOne is allow-listed: the v6.18 feature alone decides */
			struct kfx f = boot_cfg(grs[i], PTSIM_CPU_AMPEREONE, &kc, 320 * GIB, blocks);
			uint64_t b, l;

			ptsim_kernel_pgtable_bytes(f.k, &b, &l);
			assert_int_equal(b / 1024, blocks ? blk_kib[i] : pte_kib[i]);
			assert_int_equal(l, 0);
			ptsim_machine_destroy(f.m);
		}
	}
}

/* map_mem's shapes: the kernel alias (blocks, no CONT), the KFENCE pool (PTEs), forced PTEs. */
static void test_painting(void **state)
{
	struct ptsim_mem_range r = { GIB, GIB };
	struct ptsim_kernel_config kc = {
		.ranges = &r, .nr_ranges = 1, .kernel_start = GIB + 2 * MIB,
		.kernel_end = GIB + 34 * MIB, .kfence_pool = GIB + 64 * MIB,
	};
	struct ptsim_translation tr;
	struct kfx f = boot_cfg(PTSIM_GRANULE_4K, PTSIM_CPU_AMPEREONE, &kc, 2 * GIB, true);

	(void)state;
	assert_int_equal(ptsim_translate(f.k, lm(&f, GIB + 4 * MIB), &tr), 0);
	assert_true(tr.level == PMD_LEVEL && !tr.cont);			/* kernel alias */
	assert_int_equal(ptsim_translate(f.k, lm(&f, GIB + 65 * MIB), &tr), 0);
	assert_true(tr.level == PTE_LEVEL && !tr.cont);			/* KFENCE pool */
	assert_int_equal(ptsim_translate(f.k, lm(&f, GIB + 512 * MIB), &tr), 0);
	assert_true(tr.level == PMD_LEVEL && tr.cont && tr.pxn && tr.uxn && !tr.read_only);
	assert_int_equal(ptsim_translate(f.k, lm(&f, GIB + 36 * MIB), &tr), 0);
	assert_true(tr.level == PMD_LEVEL && !tr.cont);			/* edge next to the alias */
	assert_false(ptsim_kernel_force_pte_mapping(f.k));
	assert_true(ptsim_kernel_linear_map_requires_bbml2(f.k));
	ptsim_machine_destroy(f.m);

	/* the same on a CPU without BBML2 (rodata=on): all PTE but the alias; no CONT */
	f = boot_cfg(PTSIM_GRANULE_4K, PTSIM_CPU_NEOVERSE_V2, &kc, 2 * GIB, true);
	assert_int_equal(ptsim_translate(f.k, lm(&f, GIB + 512 * MIB), &tr), 0);
	assert_true(tr.level == PTE_LEVEL && !tr.cont);
	assert_int_equal(ptsim_translate(f.k, lm(&f, GIB + 4 * MIB), &tr), 0);
	assert_int_equal(tr.level, 2);
	assert_true(ptsim_kernel_force_pte_mapping(f.k));
	ptsim_machine_destroy(f.m);

	/* debug_pagealloc forces PTEs even with BBML2; rodata=noalias allows blocks without it */
	kc.debug_pagealloc = true;
	f = boot_cfg(PTSIM_GRANULE_4K, PTSIM_CPU_AMPEREONE, &kc, 2 * GIB, true);
	assert_int_equal(ptsim_translate(f.k, lm(&f, GIB + 512 * MIB), &tr), 0);
	assert_int_equal(tr.level, 3);
	ptsim_machine_destroy(f.m);
	kc.debug_pagealloc = false;
	kc.rodata = PTSIM_RODATA_NOALIAS;
	f = boot_cfg(PTSIM_GRANULE_4K, PTSIM_CPU_NEOVERSE_V2, &kc, 2 * GIB, true);
	assert_int_equal(ptsim_translate(f.k, lm(&f, GIB + 512 * MIB), &tr), 0);
	assert_int_equal(tr.level, 2);
	assert_false(ptsim_kernel_can_set_direct_map(f.k));
	ptsim_machine_destroy(f.m);
}

static struct {
	uint64_t start, end;
	unsigned int ops;
} flushed;

static void record_flush(struct ptsim_machine *m, const struct tlbi_op *op)
{
	uint64_t mask = (UINT64_C(1) << m->geo.va_bits) - 1;

	if (!flushed.ops++)
		flushed.start = op->va & mask;
	flushed.end = (op->va & mask) + op->pages * m->geo.page_size;
}

/* A permission change splits the two boundaries and flushes exactly its range. */
static void test_set_memory(void **state)
{
	struct kfx f = boot(PTSIM_GRANULE_4K, PTSIM_CPU_AMPEREONE, GIB, GIB, true, false);
	uint64_t va = lm(&f, GIB) + 5 * MIB + 3 * 4096, mask = (UINT64_C(1) << 48) - 1;
	struct ptsim_translation tr;
	struct ptsim_stats s;

	(void)state;
	f.m->tlbi_observer = record_flush;
	memset(&flushed, 0, sizeof(flushed));
	assert_int_equal(ptsim_set_memory(f.k, va, 7, PTSIM_SET_MEMORY_RO), 0);
	assert_int_equal(flushed.start, va & mask);
	assert_int_equal(flushed.end, (va & mask) + 7 * 4096);
	assert_int_equal(ptsim_translate(f.k, va, &tr), 0);
	assert_true(tr.read_only && tr.level == PTE_LEVEL);
	assert_int_equal(ptsim_translate(f.k, va - 4096, &tr), 0);
	assert_false(tr.read_only);
	assert_int_equal(ptsim_translate(f.k, va + 7 * 4096, &tr), 0);
	assert_false(tr.read_only);
	/* a whole 2M block inside the range is rewritten once, not split */
	assert_int_equal(ptsim_set_memory(f.k, lm(&f, GIB) + 64 * MIB, 512, PTSIM_SET_MEMORY_NX), 0);
	ptsim_last_stats(f.m, &s);
	assert_int_equal(s.ev[PTSIM_EV_TABLE_ALLOC], 0);
	/* making pages valid needs no flush; invalid does */
	memset(&flushed, 0, sizeof(flushed));
	assert_int_equal(ptsim_set_memory(f.k, va, 1, PTSIM_SET_MEMORY_INVALID), 0);
	assert_int_equal(flushed.ops, 1);
	assert_int_equal(ptsim_set_memory(f.k, va, 1, PTSIM_SET_MEMORY_VALID), 0);
	assert_int_equal(flushed.ops, 1);
	/* set_direct_map_*_noflush never flushes */
	assert_int_equal(ptsim_set_direct_map(f.k, va, PTSIM_DIRECT_MAP_INVALID), 0);
	assert_int_equal(ptsim_set_direct_map(f.k, va, PTSIM_DIRECT_MAP_DEFAULT), 0);
	assert_int_equal(flushed.ops, 1);
	assert_int_equal(ptsim_set_memory(f.k, va + 1, 1, PTSIM_SET_MEMORY_RO), -EINVAL);
	assert_int_equal(ptsim_set_memory(f.k, va, 1, (enum ptsim_set_memory_op)77), -EINVAL);
	assert_int_equal(bbm, 0);
	assert_int_equal(warns, 0);
	ptsim_machine_destroy(f.m);
}

/*
 * Finding: v6.18's splitter stops at a non-present entry, so after a range of
 * whole contiguous groups is made invalid, re-validating part of one group
 * cannot split it: valid+CONT and invalid+CONT entries end up in one group, a
 * misprogrammed contiguous group (Arm ARM D8.7.1.1). The invariant checker
 * flags it. With the 2026 fix ("arm64: mm: Handle invalid large leaf mappings
 * correctly", feature linear_map_invalid_leaf_fix) invalidated leaves stay
 * present-invalid, the splitter splits the group, and the finding is gone.
 */
static void test_partial_revalidation_misprograms_group(void **state)
{
	(void)state;
	for (int fix = 0; fix < 2; fix++) {
		struct kfx f = boot(PTSIM_GRANULE_4K, PTSIM_CPU_AMPEREONE, GIB, 128 * MIB, true, false);
		uint64_t va = lm(&f, GIB), violations = 0;
		struct ptsim_translation tr;

		assert_int_equal(ptsim_feature_set(f.m, PTSIM_FEAT_LINEAR_MAP_INVALID_LEAF_FIX, fix), 0);
		/* pages 16748..17242 invalid: the groups inside keep CONT */
		assert_int_equal(ptsim_set_memory(f.k, va + 16748 * 4096ull, 495,
						  PTSIM_SET_MEMORY_INVALID), 0);
		assert_int_equal(ptsim_check_invariants(f.m, &violations), 0);
		assert_int_equal(violations, 0);
		/* valid again up to page 17156, inside the group 17152..17167 */
		assert_int_equal(ptsim_set_memory(f.k, va + 16737 * 4096ull, 420,
						  PTSIM_SET_MEMORY_VALID), 0);
		assert_int_equal(ptsim_check_invariants(f.m, &violations), 0);
		assert_int_equal(violations, fix ? 0 : 1);
		assert_int_equal(ptsim_translate(f.k, va + 17156 * 4096ull, &tr), 0);
		assert_true(tr.valid);
		assert_int_equal(tr.cont, !fix);
		/* still invalid */
		int r = ptsim_translate(f.k, va + 17157 * 4096ull, &tr);

		assert_true(r == -ENOENT || (r == 0 && !tr.valid));
		ptsim_machine_destroy(f.m);
	}
}

/* Without BBML2 a partly covered block is a WARN and -EINVAL. */
static void test_partial_block_without_bbml2(void **state)
{
	struct ptsim_mem_range r = { GIB, GIB };
	struct ptsim_kernel_config kc = { .ranges = &r, .nr_ranges = 1, .rodata = PTSIM_RODATA_OFF };
	struct kfx f = boot_cfg(PTSIM_GRANULE_4K, PTSIM_CPU_NEOVERSE_N1, &kc, 2 * GIB, true);

	(void)state;
	assert_int_equal(ptsim_kernel_finalize_caps(f.k), 0);
	assert_int_equal(ptsim_set_memory(f.k, lm(&f, GIB) + 4096, 1, PTSIM_SET_MEMORY_RO), -EINVAL);
	assert_int_equal(warns, 1);
	assert_int_equal(bbm, 0);
	ptsim_machine_destroy(f.m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_counts_4k),
		cmocka_unit_test(test_split_worst_16k_64k),
		cmocka_unit_test(test_split_rules),
		cmocka_unit_test(test_split_flagged_without_bbml2),
		cmocka_unit_test(test_stale_entries_coexist),
		cmocka_unit_test(test_repaint_counts),
		cmocka_unit_test(test_pgtable_memory_256g),
		cmocka_unit_test(test_painting),
		cmocka_unit_test(test_set_memory),
		cmocka_unit_test(test_partial_block_without_bbml2),
		cmocka_unit_test(test_partial_revalidation_misprograms_group),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
