// SPDX-License-Identifier: MIT
/*
 * Conformance: the expectations of the kernel selftest
 * tools/testing/selftests/mm/mremap_dontunmap.c, written afresh over the
 * public API, on every preset (MREMAP_DONTUNMAP is v5.8, on shared and file
 * mappings since v5.13: older than every preset). A page's content is its
 * translation: "the destination contains the a's" is "the destination maps
 * the source's PFNs"; "the source has no PTEs" is "nothing is mapped there"
 * while its VMA stays (an mmap that refuses to replace is -EEXIST).
 */
#include "helpers.h"

#define RW	(PTSIM_PROT_READ | PTSIM_PROT_WRITE)
#define PRIV	(PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS)
#define PAGE	SZ_4K
#define BASE	(UINT64_C(1) << 36)
#define DONTUNMAP (PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_DONTUNMAP)

static struct ptsim_machine *preset_machine(unsigned int i)
{
	return new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3, ptsim_preset_name(i));
}

static struct ptsim_mm *new_mm(struct ptsim_machine *m)
{
	struct ptsim_mm *mm = NULL;

	assert_int_equal(ptsim_mm_create(m, &mm), 0);
	return mm;
}

/* An mmap at addr, written (the selftest's memset): its pages' PFNs in pfn. */
static void map_written(struct ptsim_mm *mm, uint64_t addr, unsigned int n, unsigned int flags,
			uint64_t *pfn)
{
	uint64_t out;
	struct ptsim_translation t;

	assert_int_equal(ptsim_mmap(mm, addr, n * PAGE, RW, flags, &out), 0);
	assert_int_equal(out, addr);
	assert_int_equal(ptsim_populate(mm, addr, n * PAGE, 0, true), 0);
	for (unsigned int i = 0; i < n; i++) {
		assert_int_equal(ptsim_translate(mm, addr + i * PAGE, &t), 0);
		pfn[i] = t.pa >> 12;
	}
}

static void assert_pfns(const struct ptsim_mm *mm, uint64_t addr, unsigned int n,
			const uint64_t *pfn)
{
	struct ptsim_translation t;

	for (unsigned int i = 0; i < n; i++) {
		assert_int_equal(ptsim_translate(mm, addr + i * PAGE, &t), 0);
		assert_int_equal(t.pa >> 12, pfn[i]);
	}
}

/* Nothing is mapped in [addr, addr + n pages), but a VMA still covers it. */
static void assert_no_ptes(struct ptsim_mm *mm, uint64_t addr, unsigned int n)
{
	struct ptsim_translation t;

	for (unsigned int i = 0; i < n; i++) {
		assert_int_equal(ptsim_translate(mm, addr + i * PAGE, &t), -ENOENT);
		assert_int_equal(ptsim_mmap(mm, addr + i * PAGE, PAGE, RW, PRIV, NULL), -EEXIST);
	}
}

static void done(struct ptsim_machine *m, struct ptsim_mm *mm)
{
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/*
 * mremap_dontunmap: kernel_support_for_mremap_dontunmap: a one-page
 * PROT_NONE private mapping moves with MREMAP_DONTUNMAP | MREMAP_MAYMOVE.
 */
static void test_kernel_support(void **state)
{
	(void)state;
	for (unsigned int p = 0; ptsim_preset_name(p); p++) {
		struct ptsim_machine *m = preset_machine(p);
		struct ptsim_mm *mm = new_mm(m);
		uint64_t out = 0;

		assert_int_equal(ptsim_mmap(mm, BASE, PAGE, PTSIM_PROT_NONE, PRIV, NULL), 0);
		assert_int_equal(ptsim_mremap(mm, BASE, PAGE, PAGE, DONTUNMAP, 0, &out), 0);
		assert_true(out != BASE);
		assert_int_equal(ptsim_munmap(mm, out, PAGE), 0);
		done(m, mm);
	}
}

/* mremap_dontunmap: mremap_dontunmap_simple: five written pages move anywhere; the source keeps its VMA, empty. */
static void test_simple(void **state)
{
	(void)state;
	for (unsigned int p = 0; ptsim_preset_name(p); p++) {
		struct ptsim_machine *m = preset_machine(p);
		struct ptsim_mm *mm = new_mm(m);
		uint64_t pfn[5], out = 0;

		map_written(mm, BASE, 5, PRIV, pfn);
		assert_int_equal(ptsim_mremap(mm, BASE, 5 * PAGE, 5 * PAGE, DONTUNMAP, 0, &out), 0);
		assert_true(out != BASE);
		assert_pfns(mm, out, 5, pfn);
		assert_no_ptes(mm, BASE, 5);
		done(m, mm);
	}
}

/*
 * mremap_dontunmap: mremap_dontunmap_simple_shmem: the selftest maps a
 * memfd MAP_SHARED; the model's shmem-backed mapping is shared anonymous
 * memory (the same shmem_vm_ops). DONTUNMAP moves it (allowed since v5.13:
 * vma_to_resize refuses only VM_DONTEXPAND and VM_PFNMAP); the source, still
 * mapping the shmem object, sees the same pages: a fault there maps the
 * destination's PFNs.
 */
static void test_simple_shmem(void **state)
{
	(void)state;
	for (unsigned int p = 0; ptsim_preset_name(p); p++) {
		struct ptsim_machine *m = preset_machine(p);
		struct ptsim_mm *mm = new_mm(m);
		uint64_t pfn[5], out = 0;

		map_written(mm, BASE, 5, PTSIM_MAP_SHARED | PTSIM_MAP_ANONYMOUS, pfn);
		assert_int_equal(ptsim_mremap(mm, BASE, 5 * PAGE, 5 * PAGE, DONTUNMAP, 0, &out), 0);
		assert_true(out != BASE);
		assert_pfns(mm, out, 5, pfn);
		for (unsigned int i = 0; i < 5; i++)
			assert_int_equal(ptsim_fault(mm, BASE + i * PAGE, PTSIM_ACCESS_READ), 0);
		assert_pfns(mm, BASE, 5, pfn);
		done(m, mm);
	}
}

/*
 * mremap_dontunmap: mremap_dontunmap_simple_fixed: with MREMAP_FIXED onto a
 * written mapping, that mapping is replaced by the source's pages and the
 * source keeps its VMA, empty.
 */
static void test_simple_fixed(void **state)
{
	(void)state;
	for (unsigned int p = 0; ptsim_preset_name(p); p++) {
		struct ptsim_machine *m = preset_machine(p);
		struct ptsim_mm *mm = new_mm(m);
		const uint64_t dest = BASE, src = BASE + 64 * PAGE;
		uint64_t xs[5], pfn[5], out = 0;

		map_written(mm, dest, 5, PRIV, xs);
		map_written(mm, src, 5, PRIV, pfn);
		assert_int_equal(ptsim_mremap(mm, src, 5 * PAGE, 5 * PAGE,
					      DONTUNMAP | PTSIM_MREMAP_FIXED, dest, &out), 0);
		assert_int_equal(out, dest);
		assert_pfns(mm, dest, 5, pfn);
		assert_no_ptes(mm, src, 5);
		done(m, mm);
	}
}

/*
 * mremap_dontunmap: mremap_dontunmap_partial_mapping: the last five of ten
 * written pages move anywhere; the first five keep their pages, the last
 * five of the source are empty, the destination has them.
 */
static void test_partial_mapping(void **state)
{
	(void)state;
	for (unsigned int p = 0; ptsim_preset_name(p); p++) {
		struct ptsim_machine *m = preset_machine(p);
		struct ptsim_mm *mm = new_mm(m);
		uint64_t pfn[10], out = 0;

		map_written(mm, BASE, 10, PRIV, pfn);
		assert_int_equal(ptsim_mremap(mm, BASE + 5 * PAGE, 5 * PAGE, 5 * PAGE, DONTUNMAP, 0,
					      &out), 0);
		assert_pfns(mm, BASE, 5, pfn);
		assert_no_ptes(mm, BASE + 5 * PAGE, 5);
		assert_pfns(mm, out, 5, pfn + 5);
		done(m, mm);
	}
}

/*
 * mremap_dontunmap: mremap_dontunmap_partial_mapping_overwrite: five written
 * pages move with MREMAP_FIXED over the first half of a written ten-page
 * mapping; its second half keeps its pages.
 */
static void test_partial_mapping_overwrite(void **state)
{
	(void)state;
	for (unsigned int p = 0; ptsim_preset_name(p); p++) {
		struct ptsim_machine *m = preset_machine(p);
		struct ptsim_mm *mm = new_mm(m);
		const uint64_t src = BASE, dest = BASE + 64 * PAGE;
		uint64_t pfn[5], xs[10], out = 0;

		map_written(mm, src, 5, PRIV, pfn);
		map_written(mm, dest, 10, PRIV, xs);
		assert_int_equal(ptsim_mremap(mm, src, 5 * PAGE, 5 * PAGE,
					      DONTUNMAP | PTSIM_MREMAP_FIXED, dest, &out), 0);
		assert_int_equal(out, dest);
		assert_no_ptes(mm, src, 5);
		assert_pfns(mm, dest, 5, pfn);
		assert_pfns(mm, dest + 5 * PAGE, 5, xs + 5);
		done(m, mm);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_support),
		cmocka_unit_test(test_simple),
		cmocka_unit_test(test_simple_shmem),
		cmocka_unit_test(test_simple_fixed),
		cmocka_unit_test(test_partial_mapping),
		cmocka_unit_test(test_partial_mapping_overwrite),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
