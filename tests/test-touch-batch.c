// SPDX-License-Identifier: MIT
/*
 * ptsim_touch over a range takes its plain L1 hits in runs, its misses in one
 * loop and its holes at once (tlb_access_run, tlb_fault_run). This checks the
 * batched form against the per-page one: the same touches made one page per
 * call, over a random stream of ranges, kinds and CPUs on a machine with
 * holes, order-0 pages, contiguous runs, PMD blocks and read-only and clean
 * pages, on several CPUs and granules. Every event must agree, and so must
 * every TLB entry. The data-cache events only in their total: the batched
 * form streams the program's bytes of its hits after its walks, the
 * per-page one between them, so the levels those loads hit may differ.
 */
#include "helpers.h"

#define VA SZ_1G
#define LEN (UINT64_C(64) << 20)
#define NR_CPUS 2

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The same machine, mm and mappings for a seed. */
static struct ptsim_mm *build(enum ptsim_granule gr, enum ptsim_cpu cpu, uint64_t seed)
{
	struct ptsim_machine_config cfg;
	struct ptsim_machine *m;
	struct ptsim_geometry g;
	struct ptsim_mm *mm;
	uint64_t chunk;

	ptsim_machine_config_init(&cfg);
	cfg.granule = gr;
	cfg.va_bits = 48;
	cfg.cpu = cpu;
	cfg.nr_cpus = NR_CPUS;
	cfg.phys_size = UINT64_C(8) << 30;
	m = create_machine(&cfg);
	assert_int_equal(ptsim_machine_geometry(m, &g), 0);
	mm = new_mm_with_vma(m, VA, LEN);
	/* chunks of a contiguous run's size, or of a PMD block's */
	for (uint64_t va = VA; va < VA + LEN; va += chunk) {
		uint64_t r = rng_next(&seed);
		unsigned int order = 0;

		chunk = g.cont_pte_size;
		switch (r % 8) {
		case 0:
		case 1:
			continue;	/* a hole */
		case 2:
			if (va % g.pmd_size == 0 && va + g.pmd_size <= VA + LEN) {
				chunk = g.pmd_size;
				order = g.pmd_order;
			}
			break;
		case 3:
			order = (unsigned int)__builtin_ctzll(g.cont_pte_size / g.page_size);
			break;
		default:
			break;
		}
		/* some order-0 pages only read (a read fault maps order 0 only) */
		assert_int_equal(ptsim_populate(mm, va, chunk, order, order || (r >> 8) % 4), 0);
		if ((r >> 16) % 8 == 0)
			assert_int_equal(ptsim_mprotect(mm, va, chunk, PTSIM_PROT_READ), 0);
	}
	return mm;
}

static void assert_same_counts(struct ptsim_machine *a, struct ptsim_machine *b)
{
	struct ptsim_stats x, y;
	uint64_t dx = 0, dy = 0;

	assert_int_equal(ptsim_total_stats(a, &x), 0);
	assert_int_equal(ptsim_total_stats(b, &y), 0);
	for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++) {
		if (e >= PTSIM_EV_DCACHE_L1_HIT) {
			dx += x.ev[e];
			dy += y.ev[e];
			continue;
		}
		if (x.ev[e] != y.ev[e])
			fail_msg("%s: batched %llu, per page %llu", ptsim_event_name(e),
				 (unsigned long long)x.ev[e], (unsigned long long)y.ev[e]);
	}
	assert_int_equal(dx, dy);
}

static void assert_same_tlbs(struct ptsim_mm *a, struct ptsim_mm *b, uint64_t page)
{
	for (unsigned int c = 0; c < NR_CPUS; c++)
		for (int w = PTSIM_TLB_L1D; w <= PTSIM_TLB_L2; w++) {
			unsigned int na, nb;

			assert_int_equal(ptsim_tlb_count(a->m, c, (enum ptsim_tlb_level)w, &na), 0);
			assert_int_equal(ptsim_tlb_count(b->m, c, (enum ptsim_tlb_level)w, &nb), 0);
			assert_int_equal(na, nb);
			for (uint64_t va = VA; va < VA + LEN; va += page) {
				uint64_t sa = 0, sb = 0;

				ptsim_tlb_probe(a, c, va, (enum ptsim_tlb_level)w, &na, &sa);
				ptsim_tlb_probe(b, c, va, (enum ptsim_tlb_level)w, &nb, &sb);
				if (na != nb || sa != sb)
					fail_msg("cpu %u TLB %d at 0x%llx: batched %u of %llu, per page %u of %llu",
						 c, w, (unsigned long long)va, na, (unsigned long long)sa, nb,
						 (unsigned long long)sb);
			}
		}
}

static void run_stream(enum ptsim_granule gr, enum ptsim_cpu cpu, uint64_t seed)
{
	struct ptsim_mm *a = build(gr, cpu, seed), *b = build(gr, cpu, seed);
	struct ptsim_geometry g;

	assert_int_equal(ptsim_machine_geometry(a->m, &g), 0);
	for (int op = 0; op < 300; op++) {
		uint64_t r = rng_next(&seed), fa = 0, fb = 0;
		/* mostly a few pages, sometimes far beyond every TLB */
		uint64_t len = r % 4 ? 1 + rng_next(&seed) % (64 * g.page_size) :
				       1 + rng_next(&seed) % (LEN / 2);
		uint64_t start = VA + rng_next(&seed) % (LEN - len + 1);
		enum ptsim_access_kind kind = (r >> 8) % 3 ? PTSIM_ACCESS_READ : PTSIM_ACCESS_WRITE;
		unsigned int c = (unsigned int)(r >> 16) % NR_CPUS;

		/* now and then the same range again, to hit what the last touch filled */
		if ((r >> 24) % 4 == 0 && op) {
			start = VA + (rng_next(&seed) % 64) * g.page_size;
			len = (1 + (r >> 32) % 32) * g.page_size;
		}
		assert_int_equal(ptsim_touch(a, c, start, len, kind, &fa), 0);
		for (uint64_t p = ALIGN_DOWN64(start, g.page_size); p < start + len; p += g.page_size) {
			uint64_t s = MAX(p, start), e = MIN(p + g.page_size, start + len), f = 0;

			assert_int_equal(ptsim_touch(b, c, s, e - s, kind, &f), 0);
			fb += f;
		}
		assert_int_equal(fa, fb);
		/* maintenance between touches: a TLBI of a range through mprotect */
		if ((r >> 40) % 16 == 0) {
			uint64_t at = VA + ALIGN_DOWN64(rng_next(&seed) % LEN, g.page_size);
			unsigned int prot = (r >> 44) % 2 ? PTSIM_PROT_READ :
							     PTSIM_PROT_READ | PTSIM_PROT_WRITE;
			uint64_t n = MIN(VA + LEN - at, 16 * g.page_size);

			assert_int_equal(ptsim_mprotect(a, at, n, prot), 0);
			assert_int_equal(ptsim_mprotect(b, at, n, prot), 0);
		}
	}
	assert_same_counts(a->m, b->m);
	assert_same_tlbs(a, b, g.page_size);
	ptsim_machine_destroy(a->m);
	ptsim_machine_destroy(b->m);
}

static void test_batched_touch_matches_per_page(void **state)
{
	const enum ptsim_granule grs[] = { PTSIM_GRANULE_4K, PTSIM_GRANULE_16K, PTSIM_GRANULE_64K };
	const enum ptsim_cpu cpus[] = { PTSIM_CPU_APPLE_M3, PTSIM_CPU_NEOVERSE_N1,
					PTSIM_CPU_NEOVERSE_V2, PTSIM_CPU_ANDROID_X1 };

	(void)state;
	for (unsigned int i = 0; i < sizeof(grs) / sizeof(grs[0]); i++)
		for (unsigned int j = 0; j < sizeof(cpus) / sizeof(cpus[0]); j++)
			run_stream(grs[i], cpus[j], 0x9e3779b97f4a7c15u + i * 7 + j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batched_touch_matches_per_page),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
