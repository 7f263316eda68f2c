// SPDX-License-Identifier: MIT
/*
 * Long differential suites (meson test --suite long): 10,000 random
 * scenarios per algorithm, each run before and after its kernel change on
 * identical starting states, comparing the translations and folio state they
 * leave, and checking the model's invariants at the end.
 */
#include "helpers.h"

/*
 * PTSIM_LONG_SCALE=N runs a N-th of the scenarios: .ci/run's sanitizer pass
 * uses it, where every machine costs several times as much; the plain build
 * runs them all.
 */
static int scale(int n)
{
	const char *e = getenv("PTSIM_LONG_SCALE");
	int k = e ? atoi(e) : 1;

	return k > 1 ? (n + k - 1) / k : n;
}

#define SCENARIOS scale(10000)
#define VA SZ_1G
#define RW (PTSIM_PROT_READ | PTSIM_PROT_WRITE)
#define PA (PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS)

static unsigned int invariant_diags;
static void on_diag(const struct ptsim_diag *d, void *arg)
{
	(void)arg;
	if (d->kind == PTSIM_DIAG_INVARIANT && invariant_diags++ < 3)
		fprintf(stderr, "invariant: %s (va 0x%llx level %d desc 0x%llx)\n", d->message,
			(unsigned long long)d->va, d->level, (unsigned long long)d->old_desc);
}

static struct ptsim_machine *machine(enum ptsim_granule gr, enum ptsim_cpu cpu)
{
	struct ptsim_machine *m = new_machine(gr, 48, cpu, NULL);

	ptsim_set_diag_handler(m, on_diag, NULL);
	return m;
}

static void invariants(struct ptsim_machine *m)
{
	assert_invariants(m);
	assert_int_equal(invariant_diags, 0);
}

static void test_mprotect_differential(void **state)
{
	const unsigned int prots[] = { PTSIM_PROT_READ, RW, PTSIM_PROT_NONE,
				       PTSIM_PROT_READ | PTSIM_PROT_EXEC };
	uint64_t seed = 1;

	(void)state;
	for (int n = 0; n < SCENARIOS; n++) {
		struct ptsim_machine *m = machine(PTSIM_GRANULE_4K, PTSIM_CPU_APPLE_M3);
		struct ptsim_mm *a = new_mm_with_vma(m, VA, SZ_2M), *b;
		const unsigned int orders[] = { 0, 3, 4, 9 };
		unsigned int order = orders[prng_next(&seed) % 4];

		assert_int_equal(ptsim_populate(a, VA, SZ_2M, order, true), 0);
		if (order == 9 && prng_next(&seed) % 2)
			assert_int_equal(ptsim_split_huge_pmd(a, VA, SZ_2M), 0);
		assert_int_equal(ptsim_mm_clone(a, &b), 0);
		ptsim_set_diag_handler(ptsim_mm_machine(b), on_diag, NULL);
		ptsim_feature_preset(ptsim_mm_machine(b), "patched");
		for (int op = 0; op < 4; op++) {
			uint64_t s = prng_next(&seed) % 512, len = 1 + prng_next(&seed) % (512 - s);
			unsigned int prot = prots[prng_next(&seed) % 4];

			assert_int_equal(ptsim_mprotect(a, VA + s * SZ_4K, len * SZ_4K, prot),
					 ptsim_mprotect(b, VA + s * SZ_4K, len * SZ_4K, prot));
		}
		assert_same_translations(a, b, VA, SZ_2M, SZ_4K);
		invariants(m);
		invariants(ptsim_mm_machine(b));
		ptsim_mm_destroy(b);
		ptsim_machine_destroy(m);
	}
}

static void test_uffd_differential(void **state)
{
	uint64_t seed = 2;

	(void)state;
	for (int n = 0; n < SCENARIOS; n++) {
		struct ptsim_machine *m = machine(PTSIM_GRANULE_4K, PTSIM_CPU_ANDROID_X1);
		struct ptsim_mm *a, *b;
		const uint64_t src = VA, dst = 2 * VA, len = SZ_2M;

		assert_int_equal(ptsim_mm_create(m, &a), 0);
		assert_int_equal(ptsim_mmap(a, src, len, RW, PA, NULL), 0);
		assert_int_equal(ptsim_mmap(a, dst, len, RW, PA, NULL), 0);
		assert_int_equal(ptsim_populate(a, src, len / 2, prng_next(&seed) % 2 ? 4 : 0, true), 0);
		assert_int_equal(ptsim_uffd_register(a, dst, len), 0);
		assert_int_equal(ptsim_mm_clone(a, &b), 0);
		ptsim_set_diag_handler(ptsim_mm_machine(b), on_diag, NULL);
		ptsim_feature_set(ptsim_mm_machine(b), PTSIM_FEAT_UFFD_MOVE_BATCHING, true);
		ptsim_feature_set(ptsim_mm_machine(b), PTSIM_FEAT_UFFD_MOVE_ERR_RESET, true);
		for (int op = 0; op < 4; op++) {
			uint64_t pages = 1 + prng_next(&seed) % 300, s = prng_next(&seed) % 256, d = prng_next(&seed) % 512;
			unsigned int mode = (unsigned int)(prng_next(&seed) % 4);

			if (d + pages > 512)
				pages = 512 - d;
			assert_int_equal(ptsim_uffd_move(a, dst + d * SZ_4K, src + s * SZ_4K, pages * SZ_4K, mode),
					 ptsim_uffd_move(b, dst + d * SZ_4K, src + s * SZ_4K, pages * SZ_4K, mode));
		}
		assert_same_translations(a, b, src, len, SZ_4K);
		assert_same_translations(a, b, dst, len, SZ_4K);
		invariants(m);
		invariants(ptsim_mm_machine(b));
		ptsim_mm_destroy(b);
		ptsim_machine_destroy(m);
	}
}

/* The file page a VA maps, or -1. */
static int64_t file_page(struct ptsim_mm *mm, uint64_t va, bool *exec)
{
	struct ptsim_translation t;
	struct ptsim_folio_info fi;

	if (ptsim_translate(mm, va, &t) || ptsim_folio_info(mm, va, &fi))
		return -1;
	*exec = !t.uxn;
	return (int64_t)(fi.index + ((t.pa >> 12) - fi.pfn));
}

/* Exec faults before/after the four patches: every faulted VA maps its own file page. */
static void test_exec_fault_differential(void **state)
{
	uint64_t seed = 3;

	(void)state;
	for (int n = 0; n < SCENARIOS; n++) {
		struct ptsim_mm *mm[2];
		struct ptsim_machine *m[2];
		uint64_t va[2], faults[16];
		const uint64_t pages = 256, pgoff = prng_next(&seed) % 16;

		for (int k = 0; k < 16; k++)
			faults[k] = prng_next(&seed) % pages;
		for (int v = 0; v < 2; v++) {
			unsigned int f, fd;

			m[v] = machine(PTSIM_GRANULE_4K, PTSIM_CPU_NEOVERSE_V2);
			ptsim_feature_preset(m[v], v ? "patched" : "baseline");
			assert_int_equal(ptsim_mm_create(m[v], &mm[v]), 0);
			assert_int_equal(ptsim_file_create(m[v], (pages + 16) * SZ_4K, 9, &f), 0);
			assert_int_equal(ptsim_file_open(m[v], f, &fd), 0);
			assert_int_equal(ptsim_mmap_file(mm[v], VA, pages * SZ_4K,
							 PTSIM_PROT_READ | PTSIM_PROT_EXEC, fd, pgoff, &va[v]), 0);
			for (int k = 0; k < 16; k++)
				assert_int_equal(ptsim_exec_call(mm[v], 0, VA + faults[k] * SZ_4K), 0);
		}
		for (uint64_t p = 0; p < pages; p++) {
			bool xa = false, xb = false;
			int64_t fa = file_page(mm[0], VA + p * SZ_4K, &xa), fb = file_page(mm[1], VA + p * SZ_4K, &xb);

			if (fa >= 0)
				assert_true(fa == (int64_t)(pgoff + p) && xa);
			if (fb >= 0)
				assert_true(fb == (int64_t)(pgoff + p) && xb);
		}
		for (int k = 0; k < 16; k++) {
			bool x;

			assert_int_equal(file_page(mm[0], VA + faults[k] * SZ_4K, &x), (int64_t)(pgoff + faults[k]));
			assert_int_equal(file_page(mm[1], VA + faults[k] * SZ_4K, &x), (int64_t)(pgoff + faults[k]));
		}
		for (int v = 0; v < 2; v++) {
			invariants(m[v]);
			ptsim_machine_destroy(m[v]);
		}
	}
}

/*
 * set_memory on a PTE-mapped (v6.17) and a block-mapped (v6.18, BBML2) linear
 * map. Making pages invalid is left out: v6.18 cannot split at an invalid
 * entry, so a later partial re-validation leaves a misprogrammed contiguous
 * group (test-linear-map.c shows it); the differential would only find that.
 */
static void test_set_memory_differential(void **state)
{
	const uint64_t G = SZ_1G, size = 64 * SZ_2M;
	uint64_t seed = 4;

	(void)state;
	for (int n = 0; n < SCENARIOS; n++) {
		struct ptsim_mm *k[2];
		struct ptsim_machine *m[2];
		struct ptsim_mem_range r = { G, size };
		struct ptsim_kernel_config kc = { .ranges = &r, .nr_ranges = 1 };
		uint64_t ops[4][3], base = 0;

		for (int i = 0; i < 4; i++) {
			ops[i][0] = prng_next(&seed) % (size / SZ_4K);
			ops[i][1] = 1 + prng_next(&seed) % 1024;
			ops[i][2] = prng_next(&seed) % 5;	/* RO, RW, NX, X, VALID */
			if (ops[i][0] + ops[i][1] > size / SZ_4K)
				ops[i][1] = size / SZ_4K - ops[i][0];
		}
		for (int v = 0; v < 2; v++) {
			struct ptsim_machine_config cfg;

			ptsim_machine_config_init(&cfg);
			cfg.cpu = PTSIM_CPU_AMPEREONE;
			cfg.phys_base = G;
			cfg.phys_size = G;
			m[v] = create_machine(&cfg);
			ptsim_set_diag_handler(m[v], on_diag, NULL);
			ptsim_feature_set(m[v], PTSIM_FEAT_LINEAR_MAP_BLOCKS, v);
			assert_int_equal(ptsim_kernel_boot(m[v], &kc, &k[v]), 0);
			assert_int_equal(ptsim_kernel_finalize_caps(k[v]), 0);
			assert_int_equal(ptsim_kernel_lm_addr(k[v], G, &base), 0);
			for (int i = 0; i < 4; i++)
				assert_int_equal(ptsim_set_memory(k[v], base + ops[i][0] * SZ_4K, ops[i][1],
								  (enum ptsim_set_memory_op)ops[i][2]), 0);
		}
		assert_same_translations(k[0], k[1], base, size, SZ_4K);
		for (int v = 0; v < 2; v++) {
			invariants(m[v]);
			ptsim_machine_destroy(m[v]);
		}
	}
}

/*
 * The mm lifecycle across kernels: the same random scenario (fork, writes,
 * child exit, munmap, mremap, madvise with PAGEOUT's swap-out, mlock) on
 * v6.8, the v6.9 midpoint, v6.9, v6.16, v6.18 and v6.19 leaves the same
 * translations, folio state and free memory, whatever the batching did on
 * the way (every kernel with v6.15's COW reuse of large folios). v6.17 is
 * left out:
 * its mremap batches ignore the write bit (fixed in v6.18; test-lifecycle.c
 * shows the difference), which this suite found.
 */
#define LIFECYCLE_SCENARIOS scale(3000)
#define NR_KERNELS 6

struct life {
	struct ptsim_machine *m;
	struct ptsim_mm *mm, *child;
	struct diag_log log;
};

static int64_t life_op(struct life *l, uint64_t r[4], unsigned int op)
{
	const uint64_t span = 2 * SZ_2M, page = SZ_4K;
	uint64_t s = r[0] % (span / page), n = 1 + r[1] % (span / page - s);
	uint64_t a = VA + s * page, len = n * page;
	struct ptsim_mm *mm = l->child && (r[2] & 1) ? l->child : l->mm;

	switch (op) {
	case 0:
		if (l->child)
			return 0;
		return ptsim_fork(l->mm, &l->child);
	case 1:
		return ptsim_fault(mm, a, PTSIM_ACCESS_WRITE);
	case 2:
		if (!l->child)
			return 0;
		ptsim_mm_exit(l->child);
		ptsim_mm_destroy(l->child);
		l->child = NULL;
		return 0;
	case 3:
		return ptsim_munmap(mm, a, len);
	case 4:
		return ptsim_mremap(mm, a, len, len, PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED,
				    8 * VA + (r[3] % 1024) * page, NULL);
	case 5:
		return ptsim_madvise(mm, a, len, r[3] % 3 == 0 ? PTSIM_MADV_DONTNEED :
						  r[3] % 3 == 1 ? PTSIM_MADV_COLD : PTSIM_MADV_PAGEOUT);
	default:
		return r[3] & 1 ? ptsim_mlock(mm, a, len) : ptsim_munlock(mm, a, len);
	}
}

static void test_lifecycle_differential(void **state)
{
	static const char *const kernels[NR_KERNELS] = { "v6.8", "v6.9-midpoint", "v6.9", "v6.16",
							 "v6.18", "v6.19" };
	uint64_t seed = 5;

	(void)state;
	for (int n = 0; n < LIFECYCLE_SCENARIOS; n++) {
		const unsigned int orders[] = { 0, 4, 9, 9 };
		unsigned int order = orders[prng_next(&seed) % 4];
		uint64_t r[8][5];
		bool failed[8];
		struct life l[NR_KERNELS];
		uint64_t free0 = 0;

		for (int op = 0; op < 8; op++)
			for (int k = 0; k < 5; k++)
				r[op][k] = prng_next(&seed);
		for (int v = 0; v < NR_KERNELS; v++) {
			memset(&l[v], 0, sizeof(l[v]));
			l[v].m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, kernels[v]);
			ptsim_set_diag_handler(l[v].m, record_diag, &l[v].log);
			/*
			 * The COW reuse rule for large folios changed in v6.15
			 * (__wp_can_reuse_large_anon_folio): a semantic change,
			 * not batching, so every kernel here takes the v6.15
			 * rule and the page states it leaves behind.
			 */
			ptsim_feature_set(l[v].m, PTSIM_FEAT_WP_REUSE_LARGE_ANON_FOLIO, true);
			/*
			 * So did which mremap moves may span several VMAs
			 * (v6.17, remap_move): every kernel here takes it.
			 */
			ptsim_feature_set(l[v].m, PTSIM_FEAT_MREMAP_MULTI_VMA, true);
			l[v].mm = new_mm_with_vma(l[v].m, VA, 2 * SZ_2M);
			assert_int_equal(ptsim_populate(l[v].mm, VA, 2 * SZ_2M, order, true), 0);
			if (order == 9 && (r[0][4] & 1))
				assert_int_equal(ptsim_split_huge_pmd(l[v].mm, VA, 2 * SZ_2M), 0);
			for (int op = 0; op < 8; op++) {
				int64_t ret = life_op(&l[v], r[op], (unsigned int)(r[op][4] % 7));

				if (!v)
					failed[op] = ret != 0;	/* every kernel must agree */
				else
					assert_int_equal(ret != 0, failed[op]);
			}
		}
		for (int v = 0; v < NR_KERNELS; v++) {
			uint64_t free_bytes;

			ptsim_phys_free_bytes(l[v].m, &free_bytes);
			if (!v)
				free0 = free_bytes;
			assert_int_equal(free_bytes, free0);
			assert_int_equal((l[v].child != NULL), (l[0].child != NULL));
			if (v) {
				assert_same_translations(l[0].mm, l[v].mm, VA, 2 * SZ_2M, SZ_4K);
				assert_same_translations(l[0].mm, l[v].mm, 8 * VA, 4 * SZ_2M, SZ_4K);
				if (l[v].child)
					assert_same_translations(l[0].child, l[v].child, VA, 2 * SZ_2M, SZ_4K);
			}
			assert_int_equal(l[v].log.count[PTSIM_DIAG_INVARIANT], 0);
			assert_int_equal(l[v].log.count[PTSIM_DIAG_BBM_VIOLATION], 0);
			ptsim_set_diag_handler(l[v].m, on_diag, NULL);	/* says what is broken */
			if (invariant_diags == 0 && ptsim_check_invariants(l[v].m, &(uint64_t){ 0 }) == 0 &&
			    invariant_diags)
				fprintf(stderr, "scenario %d, kernel %s, order %u\n", n, kernels[v], order);
			invariants(l[v].m);
		}
		for (int v = 0; v < NR_KERNELS; v++)
			ptsim_machine_destroy(l[v].m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mprotect_differential),
		cmocka_unit_test(test_uffd_differential),
		cmocka_unit_test(test_exec_fault_differential),
		cmocka_unit_test(test_set_memory_differential),
		cmocka_unit_test(test_lifecycle_differential),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
