// SPDX-License-Identifier: MIT
/* __flush_tlb_range decomposition: worked cases by page count, stride and CPU. */
#include "helpers.h"
#include "mmu_gather.h"

#define VA UINT64_C(0x40000000)

static uint64_t hook_pages;
static unsigned int hook_ops;

static void record(struct ptsim_machine *m, const struct tlbi_op *op)
{
	(void)m;
	hook_ops++;
	hook_pages += op->pages;
}

struct flush_case {
	enum ptsim_granule granule;
	enum ptsim_cpu cpu;
	uint64_t bytes;
	uint64_t range_ops, va_ops, asid_ops;
};

static void run_case(const struct flush_case *c)
{
	struct ptsim_machine *m = new_machine(c->granule, 48, c->cpu, "baseline");
	struct ptsim_mm *mm = NULL;

	assert_int_equal(ptsim_mm_create(m, &mm), 0);
	m->tlbi_observer = record;
	hook_pages = 0;
	hook_ops = 0;
	reset_counts(m);
	__flush_tlb_range(mm, VA, VA + c->bytes, m->geo.page_size, true, 3);
	assert_int_equal(ev(m, PTSIM_EV_TLBI_RANGE), c->range_ops);
	assert_int_equal(ev(m, PTSIM_EV_TLBI_VA), c->va_ops);
	assert_int_equal(ev(m, PTSIM_EV_TLBI_ASID), c->asid_ops);
	assert_int_equal(ev(m, PTSIM_EV_DSB_ISHST), 1);
	/* the ASID fallback's flush_tlb_mm has its own DSB ISH; __flush_tlb_range adds one */
	assert_int_equal(ev(m, PTSIM_EV_DSB_ISH), 1 + c->asid_ops);
	assert_int_equal(ev(m, PTSIM_EV_NOTIFIER_SECONDARY_TLBS), 1);
	assert_int_equal(ev(m, PTSIM_EV_FLUSH_TLB_MM), c->asid_ops);
	if (!c->asid_ops)	/* the ops cover exactly the range */
		assert_int_equal(hook_pages, c->bytes / m->geo.page_size);
	ptsim_machine_destroy(m);
}

static void test_worked_cases(void **state)
{
	const uint64_t G = UINT64_C(1) << 30;
	const struct flush_case cases[] = {
		/* contpte blocks */
		{ PTSIM_GRANULE_4K, PTSIM_CPU_APPLE_M3, 16 * 4096, 1, 0, 0 },
		{ PTSIM_GRANULE_4K, PTSIM_CPU_NEOVERSE_N1, 16 * 4096, 0, 16, 0 },
		{ PTSIM_GRANULE_16K, PTSIM_CPU_NEOVERSE_V2, 128 * 16384, 1, 0, 0 },
		{ PTSIM_GRANULE_16K, PTSIM_CPU_NEOVERSE_N1, 128 * 16384, 0, 128, 0 },
		{ PTSIM_GRANULE_64K, PTSIM_CPU_NEOVERSE_V2, 32 * 65536, 1, 0, 0 },
		{ PTSIM_GRANULE_64K, PTSIM_CPU_NEOVERSE_N1, 32 * 65536, 0, 32, 0 },
		/* 1 GiB: one range op, or the ASID fallback without FEAT_TLBIRANGE */
		{ PTSIM_GRANULE_4K, PTSIM_CPU_APPLE_M3, G, 1, 0, 0 },
		{ PTSIM_GRANULE_4K, PTSIM_CPU_NEOVERSE_N1, G, 0, 0, 1 },
		{ PTSIM_GRANULE_16K, PTSIM_CPU_NEOVERSE_V2, G, 1, 0, 0 },
		{ PTSIM_GRANULE_16K, PTSIM_CPU_NEOVERSE_N1, G, 0, 0, 1 },
		{ PTSIM_GRANULE_64K, PTSIM_CPU_NEOVERSE_V2, G, 1, 0, 0 },
		{ PTSIM_GRANULE_64K, PTSIM_CPU_NEOVERSE_N1, G, 0, 0, 1 },
		/* just under MAX_DVM_OPS without range ops: per page */
		{ PTSIM_GRANULE_4K, PTSIM_CPU_NEOVERSE_N1, 511 * 4096, 0, 511, 0 },
		{ PTSIM_GRANULE_4K, PTSIM_CPU_NEOVERSE_N1, 512 * 4096, 0, 0, 1 },
		/* 3 pages: one range op of 2 (scale 0, num 0) and one single page */
		{ PTSIM_GRANULE_4K, PTSIM_CPU_APPLE_M3, 3 * 4096, 1, 1, 0 },
		/* 1000 pages: scale 1 (num 14: 960) + scale 0 (num 19: 40) */
		{ PTSIM_GRANULE_4K, PTSIM_CPU_APPLE_M3, 1000 * 4096, 2, 0, 0 },
		/* above MAX_TLBI_RANGE_PAGES (8 GiB of 4K pages) even range ops fall back */
		{ PTSIM_GRANULE_4K, PTSIM_CPU_APPLE_M3, 8 * G + 4096, 0, 0, 1 },
		{ PTSIM_GRANULE_4K, PTSIM_CPU_APPLE_M3, 8 * G, 1, 0, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
}

static void test_kpti_and_repeat(void **state)
{
	struct ptsim_machine_config cfg;
	struct ptsim_machine *m;
	struct ptsim_mm *mm;

	(void)state;
	ptsim_machine_config_init(&cfg);
	cfg.cpu = PTSIM_CPU_NEOVERSE_N1;
	cfg.kpti = true;
	m = create_machine(&cfg);
	assert_int_equal(ptsim_mm_create(m, &mm), 0);
	reset_counts(m);
	__flush_tlb_range(mm, VA, VA + 16 * 4096, 4096, true, 3);
	assert_int_equal(ev(m, PTSIM_EV_TLBI_VA), 32);	/* every op again for the user ASID */
	reset_counts(m);
	flush_tlb_mm(mm);
	assert_int_equal(ev(m, PTSIM_EV_TLBI_ASID), 2);
	ptsim_machine_destroy(m);

	cfg.kpti = false;
	cfg.repeat_tlbi = true;
	m = create_machine(&cfg);
	assert_int_equal(ptsim_mm_create(m, &mm), 0);
	reset_counts(m);
	__flush_tlb_range(mm, VA, VA + 2 * 4096, 4096, true, 3);
	/* TLBI; DSB ISH; TLBI per op, then the completing DSB */
	assert_int_equal(ev(m, PTSIM_EV_TLBI_VA), 4);
	assert_int_equal(ev(m, PTSIM_EV_DSB_ISH), 2 + 1);
	ptsim_machine_destroy(m);
}

static void test_kernel_range_and_page(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, NULL);
	struct ptsim_mm *mm = NULL;
	const uint64_t K = UINT64_C(0xffff000000000000);

	(void)state;
	assert_int_equal(ptsim_mm_create(m, &mm), 0);
	reset_counts(m);
	flush_tlb_kernel_range(m, K, K + 4 * 4096);
	assert_int_equal(ev(m, PTSIM_EV_TLBI_VAA), 4);
	assert_int_equal(ev(m, PTSIM_EV_ISB), 1);
	reset_counts(m);
	flush_tlb_kernel_range(m, K, K + 512 * 4096);
	assert_int_equal(ev(m, PTSIM_EV_TLBI_ALL), 1);
	assert_int_equal(ev(m, PTSIM_EV_TLBI_VAA), 0);
	reset_counts(m);
	flush_tlb_page(mm, VA + 5);
	assert_int_equal(ev(m, PTSIM_EV_TLBI_VA), 1);
	assert_int_equal(ev(m, PTSIM_EV_DSB_ISH), 1);
	ptsim_machine_destroy(m);

	m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3, NULL);
	reset_counts(m);
	flush_tlb_kernel_range(m, K, K + 512 * 4096);
	assert_int_equal(ev(m, PTSIM_EV_TLBI_RANGE_VAA), 1);
	ptsim_machine_destroy(m);
}

static void test_lpa2_alignment(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 52, PTSIM_CPU_APPLE_M3, NULL);
	struct ptsim_mm *mm = NULL;

	(void)state;
	assert_int_equal(ptsim_mm_create(m, &mm), 0);
	reset_counts(m);
	/* with LPA2, single-page ops until the address is 64K aligned: 15 pages, then 2 ranges */
	__flush_tlb_range(mm, VA + 4096, VA + 4096 + 32 * 4096, 4096, true, 3);
	assert_int_equal(ev(m, PTSIM_EV_TLBI_VA), 15 + 1);
	assert_int_equal(ev(m, PTSIM_EV_TLBI_RANGE), 1);
	ptsim_machine_destroy(m);
}

/* A gather that only freed tables flushes with the page stride (tlb_get_unmap_size), not leaf-only. */
static void test_gather_freed_tables_stride(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3, "baseline");
	struct ptsim_mm *mm = NULL;
	struct mmu_gather tlb;

	(void)state;
	assert_int_equal(ptsim_mm_create(m, &mm), 0);
	m->tlbi_observer = record;
	hook_pages = 0;
	hook_ops = 0;
	tlb_gather_mmu(&tlb, mm);
	tlb.start = VA;
	tlb.end = VA + 4 * 4096;
	tlb.freed_tables = true;
	tlb_finish_mmu(&tlb);
	assert_int_equal(hook_ops, 1);
	assert_int_equal(hook_pages, 4);	/* a PUD stride would have covered 1 GiB */
	ptsim_machine_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_worked_cases),
		cmocka_unit_test(test_gather_freed_tables_stride),
		cmocka_unit_test(test_kpti_and_repeat),
		cmocka_unit_test(test_kernel_range_and_page),
		cmocka_unit_test(test_lpa2_alignment),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
