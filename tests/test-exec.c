// SPDX-License-Identifier: MIT
/* Exec folios: readahead order, mmap_miss, fault-around, alignment, ASLR, iTLB (doc/exec-folios.md). */
#include "helpers.h"
#include "filemap.h"

#define MIB (UINT64_C(1) << 20)
#define TEXT (512 * MIB)

struct efx {
	struct ptsim_machine *m;
	struct ptsim_mm *mm;
	unsigned int file, fd;
};

static struct efx setup(enum ptsim_granule gr, bool patched, uint64_t size)
{
	struct ptsim_machine_config cfg;
	struct efx f;

	ptsim_machine_config_init(&cfg);
	cfg.granule = gr;
	cfg.cpu = PTSIM_CPU_NEOVERSE_V2;
	cfg.phys_size = UINT64_C(2) << 30;
	f.m = create_machine(&cfg);
	ptsim_feature_preset(f.m, patched ? "patched" : "baseline");
	assert_int_equal(ptsim_mm_create(f.m, &f.mm), 0);
	assert_int_equal(ptsim_file_create(f.m, size, gr == PTSIM_GRANULE_4K ? 9 : 11, &f.file), 0);
	assert_int_equal(ptsim_file_open(f.m, f.file, &f.fd), 0);
	return f;
}

static void test_orders_and_fault_around(void **state)
{
	const enum ptsim_granule grs[] = { PTSIM_GRANULE_4K, PTSIM_GRANULE_16K, PTSIM_GRANULE_64K };
	const unsigned int before[] = { 4, 2, 0 }, after[] = { 4, 7, 5 }, around[] = { 16, 4, 1 };

	(void)state;
	for (int i = 0; i < 3; i++) {
		struct efx f = setup(grs[i], false, MIB);

		assert_int_equal(exec_folio_order(f.m), before[i]);
		assert_int_equal(fault_around_pages(&f.m->geo), around[i]);
		ptsim_feature_set(f.m, PTSIM_FEAT_EXEC_CONTPTE_ORDER, true);
		assert_int_equal(exec_folio_order(f.m), after[i]);
		ptsim_machine_destroy(f.m);
	}
}

/* The exec window: [round_down(pgoff, 2^o) v S, round_up(start + R, 2^o) ^ E). */
static void test_readahead_window(void **state)
{
	(void)state;
	for (int patched = 0; patched < 2; patched++) {
		struct efx f = setup(PTSIM_GRANULE_64K, patched, TEXT);
		struct ptsim_ra_state ra;
		unsigned int order;
		uint64_t va;

		/* a mapping of file pages [4, 4 + 100): the window is clamped to it */
		assert_int_equal(ptsim_mmap_file(f.mm, 0, 100 * 65536, PTSIM_PROT_READ | PTSIM_PROT_EXEC,
						 f.fd, 4, &va), 0);
		assert_int_equal(ptsim_fault(f.mm, va + 50 * 65536, PTSIM_ACCESS_EXEC), 0);
		ptsim_file_ra(f.m, f.fd, &ra);
		assert_int_equal(ra.ra_pages, 2);
		if (patched) {
			/* pgoff 54: start = round_down(54, 32) = 32, end = round_up(34, 32) = 64 */
			assert_int_equal(ra.start, 32);
			assert_int_equal(ra.size, 32);
			assert_int_equal(ra.order, 5);
			assert_int_equal(ptsim_file_cached(f.m, f.file, 40, &order), 0);
			assert_int_equal(order, 5);
		} else {
			assert_int_equal(ra.start, 54);
			assert_int_equal(ra.size, 2);
			assert_int_equal(ra.order, 0);
		}
		assert_int_equal(ra.async_size, 0);	/* never a PG_readahead marker for exec */
		/* at the start of the VMA the window starts at the VMA (pgoff 4), not at 0 */
		assert_int_equal(ptsim_fault(f.mm, va, PTSIM_ACCESS_EXEC), 0);
		ptsim_file_ra(f.m, f.fd, &ra);
		assert_int_equal(ra.start, 4);
		assert_int_equal(ra.size, patched ? 28 : 2);
		if (patched) {
			/* folio orders by alignment: 4 = order 2, 8 = order 3, 16 = order 4 */
			assert_int_equal(ptsim_file_cached(f.m, f.file, 4, &order), 0);
			assert_int_equal(order, 2);
			assert_int_equal(ptsim_file_cached(f.m, f.file, 16, &order), 0);
			assert_int_equal(order, 4);
		}
		ptsim_machine_destroy(f.m);
	}
}

/* 64K baseline: misses push mmap_miss past 100 and readahead stops; patch 2 never stops. */
static void test_mmap_miss(void **state)
{
	(void)state;
	for (int bypass = 0; bypass < 2; bypass++) {
		struct efx f = setup(PTSIM_GRANULE_64K, false, TEXT);
		struct ptsim_ra_state ra;
		struct ptsim_stats s;
		uint64_t va, seed = 99, pages = TEXT / 65536;

		ptsim_feature_set(f.m, PTSIM_FEAT_EXEC_MMAP_MISS_BYPASS, bypass);
		assert_int_equal(ptsim_mmap_file(f.mm, 0, TEXT, PTSIM_PROT_READ | PTSIM_PROT_EXEC, f.fd, 0,
						 &va), 0);
		/* scattered calls: every fault a miss (pages 4 apart, never read yet) */
		for (int i = 0; i < 150; i++)
			assert_int_equal(ptsim_exec_call(f.mm, 0, va + (prng_next(&seed) % (pages / 4)) * 4 * 65536),
					 0);
		ptsim_file_ra(f.m, f.fd, &ra);
		if (bypass) {
			assert_int_equal(ra.mmap_miss, 0);
		} else {
			assert_true(ra.mmap_miss > 100);
		}
		/* past the throttle a miss reads only its own page */
		assert_int_equal(ptsim_exec_call(f.mm, 0, va + 1 * 65536 + 2 * 65536), 0);
		ptsim_last_stats(f.m, &s);
		assert_int_equal(s.ev[PTSIM_EV_IO_KIB], bypass ? 128 : 64);
		ptsim_machine_destroy(f.m);
	}
	/* the sequential sweep alternates miss and hit: m oscillates and never reaches 100 */
	struct efx f = setup(PTSIM_GRANULE_64K, false, TEXT);
	struct ptsim_ra_state ra;
	uint64_t va;

	assert_int_equal(ptsim_mmap_file(f.mm, 0, TEXT, PTSIM_PROT_READ | PTSIM_PROT_EXEC, f.fd, 0, &va), 0);
	for (uint64_t off = 0; off < 64 * 65536; off += 65536)
		assert_int_equal(ptsim_exec_call(f.mm, 0, va + off), 0);
	ptsim_file_ra(f.m, f.fd, &ra);
	assert_true(ra.mmap_miss <= 1);
	ptsim_machine_destroy(f.m);
}

/*
 * P(VA = file offset mod 2M) under ASLR: 1/32 (64K), 1/128 (16K); 1 with patches 3 and 4.
 * Sampling needs a fresh address space per seed, not a fresh machine: one machine, one mm each.
 */
static double aligned_fraction(enum ptsim_granule gr, bool patched, bool elf, unsigned int seeds)
{
	struct efx f = setup(gr, false, TEXT);
	uint64_t page = UINT64_C(1) << gr;
	struct ptsim_elf_phdr ph = { 0, 0, TEXT, TEXT, page, 5 };
	unsigned int hits = 0;

	ptsim_feature_set(f.m, PTSIM_FEAT_EXEC_CONTPTE_ORDER, true);
	ptsim_feature_set(f.m, PTSIM_FEAT_ELF_CONTPTE_ALIGN, patched);
	ptsim_feature_set(f.m, PTSIM_FEAT_UNMAPPED_AREA_CONTPTE, patched);
	ptsim_mm_destroy(f.mm);
	for (unsigned int s = 1; s <= seeds; s++) {
		uint64_t va;

		assert_int_equal(ptsim_mm_create(f.m, &f.mm), 0);
		ptsim_mm_set_aslr(f.mm, UINT64_C(0x9e3779b97f4a7c15) * s);
		if (elf)
			assert_int_equal(ptsim_elf_load(f.mm, f.fd, &ph, 1, &va), 0);
		else	/* a 64 MiB library: smaller than a 64K-page PMD (512M) */
			assert_int_equal(ptsim_mmap_file(f.mm, 0, 64 * MIB, PTSIM_PROT_READ | PTSIM_PROT_EXEC,
							 f.fd, 0, &va), 0);
		hits += IS_ALIGNED64(va, 2 * MIB);
		ptsim_mm_destroy(f.mm);
	}
	ptsim_machine_destroy(f.m);
	return (double)hits / seeds;
}

static void test_aslr_alignment(void **state)
{
	(void)state;
	double p64 = aligned_fraction(PTSIM_GRANULE_64K, false, true, 4000);
	double p16 = aligned_fraction(PTSIM_GRANULE_16K, false, true, 8000);

	assert_true(fabs(p64 - 1.0 / 32) < 0.012);
	assert_true(fabs(p16 - 1.0 / 128) < 0.004);
	assert_true(aligned_fraction(PTSIM_GRANULE_64K, true, true, 200) == 1.0);
	assert_true(aligned_fraction(PTSIM_GRANULE_16K, true, true, 200) == 1.0);
	/* libraries through get_unmapped_area: only patch 4's fallback aligns them on 64K */
	assert_true(aligned_fraction(PTSIM_GRANULE_64K, true, false, 200) == 1.0);
	assert_true(aligned_fraction(PTSIM_GRANULE_64K, false, false, 2000) < 0.1);
}

/* Sweep the text once; how many contpte blocks end up mapped with the contiguous bit. */
static uint64_t sweep_cont_blocks(struct efx *f, uint64_t va, uint64_t len)
{
	const uint64_t page = f->m->geo.page_size, block = f->m->geo.cont_pte_size;
	uint64_t cont = 0;

	for (uint64_t off = 0; off < len; off += page)
		assert_int_equal(ptsim_exec_call(f->mm, 0, va + off), 0);
	for (uint64_t b = ALIGN_UP64(va, block); b + block <= va + len; b += block) {
		struct ptsim_translation t;

		assert_int_equal(ptsim_translate(f->mm, b, &t), 0);
		cont += t.cont;
	}
	return cont;
}

static void test_cont_needs_congruence(void **state)
{
	(void)state;
	for (int shift = 0; shift < 2; shift++) {
		struct efx f = setup(PTSIM_GRANULE_64K, true, 64 * MIB);
		uint64_t va = UINT64_C(1) << 40;

		/* VA = file offset (mod 2M) only without the one-page shift */
		assert_int_equal(ptsim_mmap_file(f.mm, va + shift * 65536, 32 * MIB,
						 PTSIM_PROT_READ | PTSIM_PROT_EXEC, f.fd, 0, NULL), 0);
		assert_int_equal(sweep_cont_blocks(&f, va + shift * 65536, 32 * MIB), shift ? 0 : 16);
		ptsim_machine_destroy(f.m);
	}
}

/* A fully mapped 512 MiB text: 8192 iTLB entries (64K pages) vs 256 (2M contpte blocks). */
static void test_itlb_entries(void **state)
{
	(void)state;
	for (int patched = 0; patched < 2; patched++) {
		struct efx f = setup(PTSIM_GRANULE_64K, patched, TEXT);
		struct ptsim_elf_phdr ph = { 0, 0, TEXT, TEXT, 65536, 5 };
		struct ptsim_stats a, b;
		uint64_t bias;

		ptsim_mm_set_aslr(f.mm, 7);
		assert_int_equal(ptsim_elf_load(f.mm, f.fd, &ph, 1, &bias), 0);
		sweep_cont_blocks(&f, bias, TEXT);
		flush_tlb_all(f.m);
		ptsim_total_stats(f.m, &a);
		sweep_cont_blocks(&f, bias, TEXT);
		ptsim_total_stats(f.m, &b);
		/* a cold iTLB walks once per distinct entry the text needs */
		assert_int_equal(b.ev[PTSIM_EV_TLB_WALK] - a.ev[PTSIM_EV_TLB_WALK], patched ? 256 : 8192);
		ptsim_machine_destroy(f.m);
	}
}

static void test_bad_arguments(void **state)
{
	struct efx f = setup(PTSIM_GRANULE_4K, false, MIB);
	unsigned int x;
	uint64_t va;
	struct ptsim_elf_phdr ph = { 0, 1, 4096, 4096, 4096, 5 };

	(void)state;
	assert_int_equal(ptsim_file_create(f.m, 0, 0, &x), -EINVAL);
	assert_int_equal(ptsim_file_create(f.m, MIB, 12, &x), -EINVAL);
	assert_int_equal(ptsim_file_open(f.m, 99, &x), -EINVAL);
	assert_int_equal(ptsim_mmap_file(f.mm, 0, 4096, PTSIM_PROT_READ, 99, 0, &va), -EINVAL);
	assert_int_equal(ptsim_mmap_file(f.mm, 1, 4096, PTSIM_PROT_READ, f.fd, 0, &va), -EINVAL);
	assert_int_equal(ptsim_elf_load(f.mm, f.fd, &ph, 1, &va), -EINVAL);	/* vaddr/offset */
	assert_int_equal(ptsim_madvise(f.mm, 0, 4096, 12345), -EINVAL);
	assert_int_equal(ptsim_madvise(f.mm, 0x100000, 4096, PTSIM_MADV_RANDOM), -ENOMEM);
	assert_int_equal(ptsim_fault(f.mm, UINT64_C(1) << 50, PTSIM_ACCESS_READ), -EINVAL);
	/* a fault outside any mapping is a SIGSEGV; past EOF a SIGBUS */
	assert_int_equal(ptsim_fault(f.mm, 0x100000, PTSIM_ACCESS_READ), -EFAULT);
	assert_int_equal(ptsim_mmap_file(f.mm, 0, 2 * MIB, PTSIM_PROT_READ, f.fd, 0, &va), 0);
	assert_int_equal(ptsim_fault(f.mm, va + MIB + 4096, PTSIM_ACCESS_READ), -EFAULT);
	assert_int_equal(ptsim_fault(f.mm, va, PTSIM_ACCESS_WRITE), -EFAULT);
	assert_int_equal(ptsim_fault(f.mm, va, PTSIM_ACCESS_READ), 0);
	/* madvise splits the VMA at the range's edges */
	assert_int_equal(ptsim_madvise(f.mm, va + 4096, 4096, PTSIM_MADV_RANDOM), 0);
	assert_int_equal(f.mm->nr_vmas, 3);
	assert_true(f.mm->vmas[1].flags & VM_RAND_READ);
	assert_false(f.mm->vmas[0].flags & VM_RAND_READ);
	ptsim_machine_destroy(f.m);
}

/* elf_load: bss as anonymous memory, no absurd alignment, and a failure maps nothing. */
static void test_elf_load_segments(void **state)
{
	struct efx f = setup(PTSIM_GRANULE_4K, false, 4 * MIB);
	struct ptsim_elf_phdr bss[2] = { { 0, 0, MIB, MIB, 4096, 5 }, { MIB, MIB, 0, 64 * 1024, 4096, 6 } };
	struct ptsim_elf_phdr clash[2] = { { 0, 0, MIB, MIB, 4096, 5 }, { 0, 0, MIB, MIB, 4096, 5 } };
	struct ptsim_elf_phdr align = { 0, 0, MIB, MIB, UINT64_C(1) << 47, 5 };
	struct ptsim_stats before, after;
	uint64_t bias = 0;
	size_t nr;

	(void)state;
	ptsim_mm_set_aslr(f.mm, 3);
	assert_int_equal(ptsim_elf_load(f.mm, f.fd, bss, 2, &bias), 0);
	assert_int_equal(f.mm->nr_vmas, 2);
	assert_true(f.mm->vmas[1].flags & VM_ANON);
	assert_int_equal(f.mm->vmas[1].start, bias + MIB);
	assert_int_equal(f.mm->vmas[1].end - f.mm->vmas[1].start, 64 * 1024);
	/* the second segment lands on the first: -EEXIST, and the first is gone again */
	nr = f.mm->nr_vmas;
	ptsim_total_stats(f.m, &before);
	assert_int_equal(ptsim_elf_load(f.mm, f.fd, clash, 2, &bias), -EEXIST);
	ptsim_total_stats(f.m, &after);
	assert_int_equal(f.mm->nr_vmas, nr);
	assert_memory_equal(&before, &after, sizeof(before));
	assert_int_equal(ptsim_elf_load(f.mm, f.fd, &align, 1, &bias), -EINVAL);
	/*
	 * After mlockall(MCL_FUTURE) a mapped segment is populated at once, so
	 * the clash is found before anything is mapped: no pages or tables stay
	 * behind uncounted (the fuzzer's 7,560th input).
	 */
	assert_int_equal(ptsim_mlockall(f.mm, PTSIM_MCL_FUTURE), 0);
	ptsim_total_stats(f.m, &before);
	assert_int_equal(ptsim_elf_load(f.mm, f.fd, clash, 2, &bias), -EEXIST);
	ptsim_total_stats(f.m, &after);
	assert_int_equal(f.mm->nr_vmas, nr);
	assert_memory_equal(&before, &after, sizeof(before));
	assert_invariants(f.m);
	ptsim_machine_destroy(f.m);
}

/*
 * A call's instruction line past the L1I (doc/cpu-profiles.md §11.8): the
 * first call into a page fetches the stub's line from memory (the page came
 * in by I/O, which no cache saw); a sweep of 64 pages later (64 lines, far
 * below Grace's 1 MiB L2) the same call finds it in the L2. The kernel's
 * counts are the same both times; only the fetch's level differs.
 */
static void test_exec_call_line_through_l2(void **state)
{
	struct efx f = setup(PTSIM_GRANULE_64K, false, 64 * 65536);
	struct ptsim_elf_phdr ph = { 0, 0, 64 * 65536, 64 * 65536, 65536, 5 };
	struct ptsim_stats first, again;
	uint64_t bias;

	(void)state;
	assert_int_equal(ptsim_elf_load(f.mm, f.fd, &ph, 1, &bias), 0);
	for (uint64_t off = 0; off < 64 * 65536; off += 65536)
		assert_int_equal(ptsim_exec_call(f.mm, 0, bias + off), 0);
	assert_int_equal(ptsim_exec_call(f.mm, 0, bias + 65536 + 4096), 0);
	first = last_stats(f.m);
	assert_int_equal(ptsim_exec_call(f.mm, 0, bias + 65536 + 4096), 0);
	again = last_stats(f.m);
	assert_int_equal(first.ev[PTSIM_EV_ICACHE_DRAM], 1);
	assert_int_equal(again.ev[PTSIM_EV_ICACHE_L2_HIT], 1);
	assert_int_equal(again.ev[PTSIM_EV_ICACHE_DRAM] + again.ev[PTSIM_EV_ICACHE_LLC_HIT], 0);
	assert_int_equal(first.ev[PTSIM_EV_EXEC_CALL], again.ev[PTSIM_EV_EXEC_CALL]);
	ptsim_machine_destroy(f.m);
}

/*
 * The fault-around's per-folio work (v6.12 filemap_map_pages and
 * next_uptodate_folio): for each cached folio of the 16-page window, its
 * PG_locked test, a reference (folio_try_get), PG_uptodate tested twice
 * (each with folio_test_uptodate's smp_rmb) and PG_readahead once, the
 * folio lock tried; after its pages, the unlock and the reference dropped;
 * set_pte_range's folio_ref_add per run mapped. Sixteen order-0 folios, or
 * one 64K folio; the fault into the remapped file also allocates its PUD,
 * PMD and PTE tables (an smp_wmb each).
 */
static void test_fault_around_folio_work(void **state)
{
	static const struct {
		unsigned int max_order;
		uint64_t folios;
	} cases[] = { { 0, 16 }, { 4, 1 } };

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3, "v6.12");
		const uint64_t n = cases[i].folios;
		struct ptsim_mm *mm = NULL;
		struct ptsim_stats st;

		assert_int_equal(ptsim_mm_create(m, &mm), 0);
		cached_file_fault_around(m, mm, cases[i].max_order);
		st = last_stats(m);
		assert_int_equal(st.ev[PTSIM_EV_PAGE_CACHE_LOOKUP], n);
		assert_int_equal(st.ev[PTSIM_EV_FOLIO_TRYLOCK], n);
		assert_int_equal(st.ev[PTSIM_EV_FOLIO_UNLOCK], n);
		assert_int_equal(st.ev[PTSIM_EV_FOLIO_GET], 2 * n);
		assert_int_equal(st.ev[PTSIM_EV_FOLIO_PUT], n);
		/* four flag tests each, and folio_test_large's */
		assert_int_equal(st.ev[PTSIM_EV_FOLIO_TEST], 5 * n);
		assert_int_equal(st.ev[PTSIM_EV_TABLE_ALLOC], 3);
		assert_int_equal(st.ev[PTSIM_EV_DMB], 2 * n + 3);
		assert_int_equal(st.ev[PTSIM_EV_MAP_PAGES], 16);
		ptsim_machine_destroy(m);
	}
}

/*
 * A read fault that fault-around does not map (64K pages: a window of one)
 * finds its folio through filemap_fault: filemap_get_entry's reference,
 * the folio locked (lock_folio_maybe_drop_mmap) and tested uptodate (its
 * smp_rmb); do_read_fault unlocks it after finish_fault, and the reference
 * stays with the mapping. The first fault misses, reads, and is retried
 * to that same hit (and allocates the PMD and PTE tables: an smp_wmb each).
 */
static void test_filemap_fault_folio_work(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_64K, 48, PTSIM_CPU_NEOVERSE_V2, "v6.12");
	const uint64_t page = 65536, len = 16 * page;
	struct ptsim_mm *mm = NULL;
	unsigned int file, fd;
	struct ptsim_stats st;
	uint64_t at;

	(void)state;
	assert_int_equal(ptsim_mm_create(m, &mm), 0);
	assert_int_equal(ptsim_file_create(m, len, 0, &file), 0);
	assert_int_equal(ptsim_file_open(m, file, &fd), 0);
	assert_int_equal(ptsim_mmap_file(mm, 0, len, PTSIM_PROT_READ, fd, 0, &at), 0);
	for (uint64_t i = 0; i < 2; i++) {
		assert_int_equal(ptsim_fault(mm, at + i * page, PTSIM_ACCESS_READ), 0);
		st = last_stats(m);
		assert_int_equal(st.ev[PTSIM_EV_FAULT_RETRY], i ? 0 : 1);
		assert_int_equal(st.ev[PTSIM_EV_IO_REQUEST], i ? 0 : 1);
		assert_int_equal(st.ev[PTSIM_EV_FOLIO_GET], 1);
		assert_int_equal(st.ev[PTSIM_EV_FOLIO_TRYLOCK], 1);
		assert_int_equal(st.ev[PTSIM_EV_FOLIO_UNLOCK], 1);
		assert_int_equal(st.ev[PTSIM_EV_FOLIO_PUT], 0);
		assert_int_equal(st.ev[PTSIM_EV_TABLE_ALLOC], i ? 0 : 2);
		assert_int_equal(st.ev[PTSIM_EV_DMB], (i ? 0 : 2) + 1);
	}
	ptsim_machine_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_orders_and_fault_around),
		cmocka_unit_test(test_readahead_window),
		cmocka_unit_test(test_mmap_miss),
		cmocka_unit_test(test_aslr_alignment),
		cmocka_unit_test(test_cont_needs_congruence),
		cmocka_unit_test(test_itlb_entries),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_elf_load_segments),
		cmocka_unit_test(test_exec_call_line_through_l2),
		cmocka_unit_test(test_fault_around_folio_work),
		cmocka_unit_test(test_filemap_fault_folio_work),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
