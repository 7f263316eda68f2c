// SPDX-License-Identifier: MIT
/*
 * Conformance with tools/testing/selftests/mm/pagemap_ioctl.c (issue 27),
 * written fresh from its expectations: the PAGEMAP_SCAN ioctl over memory
 * registered with userfaultfd in WP mode with UFFD_FEATURE_WP_ASYNC
 * (init_uffd, wp_init: UFFDIO_REGISTER_MODE_WP and UFFDIO_WRITEPROTECT;
 * wp_addr_range: a scan with PM_SCAN_WP_MATCHING | PM_SCAN_CHECK_WPASYNC).
 * Each test names the selftest's function and case. They run on every
 * preset with uffd-wp (arm64 from v6.10); before it init_uffd fails and the
 * selftest passes without testing anything, which is checked too. A
 * "memset" is a write to every page, a fault taken wherever the write
 * cannot go through (the async resolution, a marker's two faults).
 */
#include "helpers.h"

#define MEM SZ_1G
#define W PTSIM_PAGE_IS_WRITTEN
#define WP_SCAN (PTSIM_PM_SCAN_WP_MATCHING | PTSIM_PM_SCAN_CHECK_WPASYNC)
#define BITS_ALL (PTSIM_PAGE_IS_WPALLOWED | PTSIM_PAGE_IS_WRITTEN | PTSIM_PAGE_IS_FILE |	\
		  PTSIM_PAGE_IS_PRESENT | PTSIM_PAGE_IS_SWAPPED | PTSIM_PAGE_IS_PFNZERO |	\
		  PTSIM_PAGE_IS_HUGE)
#define NON_WRITTEN_BITS (BITS_ALL & ~PTSIM_PAGE_IS_WRITTEN)
#define PAGE SZ_4K

static struct ptsim_machine *machine_for(const char *preset)
{
	return new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, preset);
}

/* Does the preset have arm64 uffd-wp? */
static bool has_uffd_wp(const char *preset)
{
	struct ptsim_machine *m = machine_for(preset);
	bool on = false;

	assert_int_equal(ptsim_feature_get(m, PTSIM_FEAT_UFFD_WP, &on), 0);
	ptsim_machine_destroy(m);
	return on;
}

/* Run fn on every preset with uffd-wp. */
static void for_wp_presets(void (*fn)(const char *preset))
{
	unsigned int ran = 0;

	for (unsigned int i = 0; ptsim_preset_name(i); i++) {
		if (!has_uffd_wp(ptsim_preset_name(i)))
			continue;
		fn(ptsim_preset_name(i));
		ran++;
	}
	assert_true(ran >= 10);	/* v6.10 .. v6.19, baseline, patched */
}

/* pagemap_ioctl(): the selftest's wrapper; returns the ioctl's result. */
static int64_t ioc(struct ptsim_mm *mm, uint64_t start, uint64_t len, struct ptsim_page_region *vec,
		   uint64_t vec_len, uint64_t flags, uint64_t max_pages, uint64_t required,
		   uint64_t anyof, uint64_t excluded, uint64_t ret_mask, uint64_t *walk_end)
{
	struct ptsim_pm_scan_arg a = {
		.start = start, .end = start + len, .vec = vec, .vec_len = vec_len, .flags = flags,
		.max_pages = max_pages, .category_mask = required, .category_anyof_mask = anyof,
		.category_inverted = excluded, .return_mask = ret_mask,
	};
	int64_t ret = ptsim_pagemap_scan(mm, &a);

	if (walk_end)
		*walk_end = a.walk_end;
	return ret;
}

/* wp_init: register [start, start+len) WP (the context's WP_ASYNC) and write-protect it. */
static void wp_init(struct ptsim_mm *mm, uint64_t start, uint64_t len)
{
	assert_int_equal(ptsim_uffd_register_mode(mm, start, len, PTSIM_UFFDIO_REGISTER_MODE_WP,
						  PTSIM_UFFD_FEATURE_WP_UNPOPULATED |
						  PTSIM_UFFD_FEATURE_WP_ASYNC |
						  PTSIM_UFFD_FEATURE_WP_HUGETLBFS_SHMEM), 0);
	assert_int_equal(ptsim_uffd_writeprotect(mm, start, len, PTSIM_UFFDIO_WRITEPROTECT_MODE_WP), 0);
}

/* wp_addr_range: write-protect what was written (a WP scan, no output) */
static void wp_addr_range(struct ptsim_mm *mm, uint64_t start, uint64_t len)
{
	assert_true(ioc(mm, start, len, NULL, 0, WP_SCAN, 0, W, 0, 0, W, NULL) >= 0);
}

/* One write to the page at va: faults until the write can go through. */
static void write_page(struct ptsim_mm *mm, uint64_t va)
{
	for (int i = 0; i < 3; i++) {
		struct ptsim_page_info pi;

		assert_int_equal(ptsim_pagemap(mm, va, &pi), 0);
		if (pi.state == PTSIM_PAGE_PRESENT && pi.write)
			return;
		assert_int_equal(ptsim_fault(mm, va, PTSIM_ACCESS_WRITE), 0);
	}
	fail_msg("a write to 0x%llx did not go through", (unsigned long long)va);
}

/* memset of [start, start+len) */
static void memset_range(struct ptsim_mm *mm, uint64_t start, uint64_t len)
{
	for (uint64_t va = start; va < start + len; va += PAGE)
		write_page(mm, va);
}

static uint64_t pages(const struct ptsim_page_region *r)
{
	return (r->end - r->start) / PAGE;
}

/* An anonymous private RW mapping of len at addr. */
static struct ptsim_mm *mapped(struct ptsim_machine *m, uint64_t addr, uint64_t len)
{
	return new_mm_with_vma(m, addr, len);
}

/* sanity_tests_sd: "1. wrong operation" */
static void sanity_sd_wrong_operation(const char *preset)
{
	const uint64_t n = 1000, len = n * PAGE, vec_size = n / 2;
	struct ptsim_machine *m = machine_for(preset);
	struct ptsim_mm *mm = mapped(m, MEM, len);
	struct ptsim_page_region *vec = calloc(vec_size, sizeof(*vec));

	assert_non_null(vec);
	wp_init(mm, MEM, len);
	wp_addr_range(mm, MEM, len);
	/* "Zero range size is valid" */
	assert_int_equal(ioc(mm, MEM, 0, vec, vec_size, 0, 0, BITS_ALL, 0, 0, BITS_ALL, NULL), 0);
	/* "output buffer must be specified with size" */
	assert_true(ioc(mm, MEM, len, NULL, vec_size, 0, 0, BITS_ALL, 0, 0, BITS_ALL, NULL) < 0);
	/* "output buffer can be 0" (twice) */
	assert_int_equal(ioc(mm, MEM, len, vec, 0, 0, 0, BITS_ALL, 0, 0, BITS_ALL, NULL), 0);
	assert_int_equal(ioc(mm, MEM, len, NULL, 0, 0, 0, BITS_ALL, 0, 0, BITS_ALL, NULL), 0);
	/* "wrong flag specified" */
	assert_true(ioc(mm, MEM, len, vec, vec_size, UINT64_MAX, 0, W, 0, 0, W, NULL) < 0);
	/* "flag has extra bits specified" */
	assert_true(ioc(mm, MEM, len, vec, vec_size, WP_SCAN | 0xFF, 0, W, 0, 0, W, NULL) < 0);
	/* "no selection mask is specified" */
	assert_true(ioc(mm, MEM, len, vec, vec_size, 0, 0, 0, 0, 0, W, NULL) >= 0);
	/* "no return mask is specified" */
	assert_int_equal(ioc(mm, MEM, len, vec, vec_size, 0, 0, W, W, 0, 0, NULL), 0);
	/* "wrong return mask specified" */
	assert_true(ioc(mm, MEM, len, vec, vec_size, 0, 0, W, 0, 0, 0x1000, NULL) < 0);
	/* "mixture of correct and wrong flag" */
	assert_true(ioc(mm, MEM, len, vec, vec_size, WP_SCAN, 0, 0xFFF, W, 0, W, NULL) < 0);
	/* "PAGEMAP_BITS_ALL can be specified with PM_SCAN_WP_MATCHING | PM_SCAN_CHECK_WPASYNC" */
	assert_true(ioc(mm, MEM, len, vec, vec_size, WP_SCAN, 0, 0, 0, BITS_ALL, W, NULL) >= 0);
	/* "2. Clear area with larger vec size" */
	assert_true(ioc(mm, MEM, len, vec, vec_size, WP_SCAN, 0, W, 0, 0, W, NULL) >= 0);
	free(vec);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/* sanity_tests_sd: 3. to 6., the written-pages patterns of 1000 pages */
static void sanity_sd_patterns(const char *preset)
{
	const uint64_t n = 1000, len = n * PAGE, vec_size = n / 2;
	struct ptsim_machine *m = machine_for(preset);
	struct ptsim_mm *mm = mapped(m, MEM, len);
	struct ptsim_page_region *vec = calloc(n, sizeof(*vec)), *vec2 = calloc(n, sizeof(*vec));
	int64_t ret, ret2, ret3;

	assert_true(vec && vec2);
	wp_init(mm, MEM, len);
	wp_addr_range(mm, MEM, len);
	assert_true(ioc(mm, MEM, len, vec, vec_size, WP_SCAN, 0, W, 0, 0, W, NULL) >= 0);
	/* "3. Repeated pattern of written and non-written pages" */
	for (uint64_t i = 0; i < n; i += 2)
		write_page(mm, MEM + i * PAGE);
	ret = ioc(mm, MEM, len, vec, vec_size, 0, 0, W, 0, 0, W, NULL);
	assert_int_equal(ret, n / 2);
	/* "4. ... in parts" */
	ret = ioc(mm, MEM, len, vec, vec_size, WP_SCAN, n / 2 - 2, W, 0, 0, W, NULL);
	ret2 = ioc(mm, MEM, len, vec, 2, 0, 0, W, 0, 0, W, NULL);
	ret3 = ioc(mm, MEM, len, vec, vec_size, WP_SCAN, 0, W, 0, 0, W, NULL);
	assert_int_equal(ret + ret3, n / 2);
	assert_int_equal(ret2, 2);
	/* "5. ... max_pages": every other page and the last one */
	for (uint64_t i = 0; i < n; i += 2)
		write_page(mm, MEM + i * PAGE);
	write_page(mm, MEM + (n - 1) * PAGE);
	ret = ioc(mm, MEM, len, vec, vec_size, WP_SCAN, n / 2, W, 0, 0, W, NULL);
	ret2 = ioc(mm, MEM, len, vec, vec_size, WP_SCAN, 0, W, 0, 0, W, NULL);
	assert_int_equal(ret, n / 2);
	assert_int_equal(ret2, 1);
	/* "6. only get 2 written pages and clear them as well" */
	memset_range(mm, MEM, len);
	ret = ioc(mm, MEM + PAGE, 2 * PAGE, vec, 1, WP_SCAN, 2, W, 0, 0, W, NULL);
	ret2 = ioc(mm, MEM, len, vec2, n, 0, 0, W, 0, 0, W, NULL);
	assert_int_equal(ret, 1);
	assert_int_equal(pages(&vec[0]), 2);
	assert_int_equal(vec[0].start, MEM + PAGE);
	assert_int_equal(ret2, 2);
	assert_int_equal(pages(&vec2[0]), 1);
	assert_int_equal(vec2[0].start, MEM);
	assert_int_equal(pages(&vec2[1]), n - 3);
	assert_int_equal(vec2[1].start, MEM + 3 * PAGE);
	free(vec);
	free(vec2);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/* sanity_tests_sd: "7. Two regions" */
static void sanity_sd_two_regions(const char *preset)
{
	const uint64_t len = 1000 * PAGE, m1 = MEM + 2 * len;
	struct ptsim_machine *m = machine_for(preset);
	struct ptsim_mm *mm = mapped(m, MEM, len);
	struct ptsim_page_region vec[1];

	assert_int_equal(ptsim_mmap(mm, m1, len, PTSIM_PROT_READ | PTSIM_PROT_WRITE,
				    PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL), 0);
	wp_init(mm, MEM, len);
	wp_init(mm, m1, len);
	wp_addr_range(mm, MEM, len);
	wp_addr_range(mm, m1, len);
	memset_range(mm, MEM, len);
	memset_range(mm, m1, len);
	wp_addr_range(mm, MEM, len);
	assert_int_equal(ioc(mm, m1, len, vec, 1, 0, 0, W, 0, 0, W, NULL), 1);
	assert_int_equal(pages(&vec[0]), len / PAGE);
	ptsim_machine_destroy(m);
}

/* sanity_tests_sd: "8. Smaller max_pages" (1050 pages, every other one written) */
static void sanity_sd_smaller_max_pages(const char *preset)
{
	const uint64_t len = 1050 * PAGE, vec_size = len / (2 * PAGE);
	struct ptsim_machine *m = machine_for(preset);
	struct ptsim_mm *mm = mapped(m, MEM, len);
	struct ptsim_page_region *vec = calloc(vec_size, sizeof(*vec));
	int64_t total = 0;

	assert_non_null(vec);
	wp_init(mm, MEM, len);
	wp_addr_range(mm, MEM, len);
	assert_true(ioc(mm, MEM, len, vec, vec_size, WP_SCAN, 0, W, 0, 0, W, NULL) >= 0);
	for (uint64_t i = 0; i < len / PAGE; i += 2)
		write_page(mm, MEM + i * PAGE);
	for (int r = 0; r < 3; r++) {
		int64_t ret = ioc(mm, MEM, len, vec, vec_size, WP_SCAN, len / (5 * PAGE), W, 0, 0, W,
				  NULL);

		assert_true(ret >= 0);
		total += ret;
	}
	assert_int_equal(total, len / (2 * PAGE));
	free(vec);
	ptsim_machine_destroy(m);
}

/*
 * sanity_tests_sd: "9. Smaller vec": random writes over 10000 pages, read
 * back (and protected again) with a 50-region buffer from walk_end on until
 * every written page was seen. The selftest runs 100 rounds; 3 here, with
 * the tests' PRNG.
 */
static void sanity_sd_smaller_vec(const char *preset)
{
	const uint64_t len = 10000 * PAGE, vec_size = 50;
	struct ptsim_machine *m = machine_for(preset);
	struct ptsim_mm *mm = mapped(m, MEM, len);
	struct ptsim_page_region vec[50];
	uint64_t rng = prng_seed(9);
	wp_init(mm, MEM, len);
	wp_addr_range(mm, MEM, len);
	for (int count = 0; count < 3; count++) {
		uint64_t writes = 0, reads = 0, walk_end = MEM;

		for (uint64_t va = MEM; va < MEM + len; va += PAGE) {
			if (prng_next(&rng) & 1) {
				write_page(mm, va);
				writes++;
			}
		}
		while (reads < writes) {
			int64_t ret = ioc(mm, walk_end, len - (walk_end - MEM), vec, vec_size, WP_SCAN, 0,
					  W, 0, 0, W, &walk_end);

			assert_true(ret >= 0 && ret <= (int64_t)vec_size);
			for (int64_t i = 0; i < ret; i++)
				reads += pages(&vec[i]);
		}
		assert_int_equal(reads, writes);
	}
	ptsim_machine_destroy(m);
}

/* sanity_tests_sd: "10. Walk_end tester" (1000 pages) */
static void sanity_sd_walk_end(const char *preset)
{
	const uint64_t vec_size = 1000, len = vec_size * PAGE, end = MEM + len;
	struct ptsim_machine *m = machine_for(preset);
	struct ptsim_mm *mm = mapped(m, MEM, len);
	struct ptsim_page_region *vec = calloc(vec_size, sizeof(*vec));
	uint64_t we = 0;

	assert_non_null(vec);
	wp_init(mm, MEM, len);
	wp_addr_range(mm, MEM, len);
	memset_range(mm, MEM, len);
	/* "Walk_end: Same start and end address", "... with WP", "... with 0 output buffer" */
	assert_int_equal(ioc(mm, MEM, 0, vec, vec_size, 0, 0, W, 0, 0, W, &we), 0);
	assert_int_equal(we, MEM);
	assert_int_equal(ioc(mm, MEM, 0, vec, vec_size, WP_SCAN, 0, W, 0, 0, W, &we), 0);
	assert_int_equal(we, MEM);
	assert_int_equal(ioc(mm, MEM, 0, vec, 0, WP_SCAN, 0, W, 0, 0, W, &we), 0);
	assert_int_equal(we, MEM);
	/* "Walk_end: Big vec", "vec of minimum length", "Max pages specified" */
	assert_int_equal(ioc(mm, MEM, len, vec, vec_size, 0, 0, W, 0, 0, W, &we), 1);
	assert_int_equal(we, end);
	assert_int_equal(ioc(mm, MEM, len, vec, 1, 0, 0, W, 0, 0, W, &we), 1);
	assert_int_equal(we, end);
	assert_int_equal(ioc(mm, MEM, len, vec, 1, 0, vec_size, W, 0, 0, W, &we), 1);
	assert_int_equal(we, end);
	/* "Walk_end: Half max pages", "1 max page", "max pages" (-1) */
	assert_int_equal(ioc(mm, MEM, len, vec, vec_size, 0, vec_size / 2, W, 0, 0, W, &we), 1);
	assert_int_equal(we, MEM + len / 2);
	assert_int_equal(ioc(mm, MEM, len, vec, vec_size, 0, 1, W, 0, 0, W, &we), 1);
	assert_int_equal(we, MEM + PAGE);
	assert_int_equal(ioc(mm, MEM, len, vec, vec_size, 0, UINT64_MAX, W, 0, 0, W, &we), 1);
	assert_int_equal(we, end);
	/* the sparse cases: every other page written */
	wp_addr_range(mm, MEM, len);
	for (uint64_t i = 0; i < vec_size; i += 2)
		write_page(mm, MEM + i * PAGE);
	assert_int_equal(ioc(mm, MEM, len, vec, vec_size, 0, 0, W, 0, 0, W, &we), vec_size / 2);
	assert_int_equal(we, end);
	assert_int_equal(ioc(mm, MEM, len, vec, 1, 0, 0, W, 0, 0, W, &we), 1);
	assert_int_equal(we, MEM + 2 * PAGE);
	assert_int_equal(ioc(mm, MEM, len, vec, 1, 0, vec_size, W, 0, 0, W, &we), 1);
	assert_int_equal(we, MEM + 2 * PAGE);
	assert_int_equal(ioc(mm, MEM, len, vec, vec_size / 2, 0, vec_size, W, 0, 0, W, &we),
			 vec_size / 2);
	assert_int_equal(we, end);
	assert_int_equal(ioc(mm, MEM, len, vec, vec_size, 0, vec_size, W, 0, 0, W, &we), vec_size / 2);
	assert_int_equal(we, end);
	assert_int_equal(ioc(mm, MEM, len, vec, vec_size, 0, vec_size / 2, W, 0, 0, W, &we),
			 vec_size / 2);
	assert_int_equal(we, end);
	assert_int_equal(ioc(mm, MEM, len, vec, vec_size, 0, 1, W, 0, 0, W, &we), 1);
	assert_int_equal(we, MEM + 2 * PAGE);
	free(vec);
	ptsim_machine_destroy(m);
}

/* base_tests over [mem, mem+len) after wp_init and wp_addr_range */
static void base_tests(struct ptsim_mm *mm, uint64_t mem, uint64_t len)
{
	const uint64_t vec_size = len / PAGE, mid = mem + vec_size / 2 * PAGE;
	struct ptsim_page_region *vec = calloc(vec_size, sizeof(*vec));
	int64_t written;

	assert_non_null(vec);
	/* "1. all new pages must not be written (dirty)" */
	written = ioc(mm, mem, len, vec, 1, WP_SCAN, vec_size - 2, W, 0, 0, W, NULL);
	assert_int_equal(written, 0);
	/* "2. all pages must be written (dirty)" */
	memset_range(mm, mem, len);
	written = ioc(mm, mem, len, vec, 1, 0, 0, W, 0, 0, W, NULL);
	assert_int_equal(written, 1);
	assert_int_equal(pages(&vec[0]), vec_size);
	/* "3. all pages dirty other than first and the last one" */
	assert_true(ioc(mm, mem, len, vec, 1, WP_SCAN, 0, W, 0, 0, W, NULL) >= 0);
	memset_range(mm, mem + PAGE, len - 2 * PAGE);
	written = ioc(mm, mem, len, vec, 1, WP_SCAN, 0, W, 0, 0, W, NULL);
	assert_int_equal(written, 1);
	assert_true(pages(&vec[0]) >= vec_size - 2 && pages(&vec[0]) <= vec_size);
	/* "PM_SCAN_WP_MATCHING | PM_SCAN_CHECK_WPASYNC" */
	assert_int_equal(ioc(mm, mem, len, vec, 1, 0, 0, W, 0, 0, W, NULL), 0);
	/* "4. only middle page dirty" */
	assert_true(ioc(mm, mem, len, vec, 1, WP_SCAN, 0, W, 0, 0, W, NULL) >= 0);
	write_page(mm, mid);
	written = ioc(mm, mem, len, vec, vec_size, 0, 0, W, 0, 0, W, NULL);
	assert_int_equal(written, 1);
	assert_true(pages(&vec[0]) >= 1);
	/* "5. only two middle pages dirty" */
	assert_true(ioc(mm, mem, len, vec, 1, WP_SCAN, 0, W, 0, 0, W | PTSIM_PAGE_IS_HUGE, NULL) >= 0);
	write_page(mm, mid);
	write_page(mm, mid + PAGE);
	written = ioc(mm, mid, 2 * PAGE, vec, 1, 0, 0, W, 0, 0, W | PTSIM_PAGE_IS_HUGE, NULL);
	assert_int_equal(written, 1);
	assert_int_equal(vec[0].start, mid);
	assert_int_equal(pages(&vec[0]), 2);
	free(vec);
}

/* main: "2. Normal page testing" (10 pages) and "3. Large Page testing" (5120 pages) */
static void base_page_testing(const char *preset)
{
	static const uint64_t sizes[] = { 10 * PAGE, 512 * 10 * PAGE };

	for (size_t i = 0; i < 2; i++) {
		struct ptsim_machine *m = machine_for(preset);
		struct ptsim_mm *mm = mapped(m, MEM, sizes[i]);

		wp_init(mm, MEM, sizes[i]);
		wp_addr_range(mm, MEM, sizes[i]);
		base_tests(mm, MEM, sizes[i]);
		assert_invariants(m);
		ptsim_machine_destroy(m);
	}
}

/*
 * gethugepage: PMD-aligned memory with MADV_HUGEPAGE, memset before any
 * registration: PMD THPs (the model populates them as the fault would).
 */
static struct ptsim_mm *gethugepage(struct ptsim_machine *m, uint64_t len)
{
	struct ptsim_mm *mm = mapped(m, MEM, len);

	assert_int_equal(ptsim_madvise(mm, MEM, len, PTSIM_MADV_HUGEPAGE), 0);
	assert_int_equal(ptsim_populate(mm, MEM, len, 9, true), 0);
	return mm;
}

/* hpage_unit_tests' start of every case: a THP, registered async and write-protected whole. */
static struct ptsim_mm *protected_hugepage(struct ptsim_machine *m, uint64_t len)
{
	struct ptsim_mm *mm = gethugepage(m, len);

	wp_init(mm, MEM, len);
	wp_addr_range(mm, MEM, len);
	return mm;
}

/* main: "4. Huge page testing": base_tests on one THP */
static void base_huge_page_testing(const char *preset)
{
	struct ptsim_machine *m = machine_for(preset);
	struct ptsim_mm *mm = gethugepage(m, SZ_2M);

	wp_init(mm, MEM, SZ_2M);
	wp_addr_range(mm, MEM, SZ_2M);
	base_tests(mm, MEM, SZ_2M);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/* hpage_unit_tests over 10 THPs */
static void hpage_unit_tests(const char *preset)
{
	const uint64_t len = 10 * SZ_2M, vec_size = len / PAGE;
	struct ptsim_page_region *vec = calloc(vec_size, sizeof(*vec));
	struct ptsim_machine *m;
	struct ptsim_mm *mm;
	int64_t ret;

	assert_non_null(vec);
	m = machine_for(preset);
	mm = protected_hugepage(m, len);
	/* "1. all new huge page must not be written (dirty)", "2. ... must not be written" */
	assert_int_equal(ioc(mm, MEM, len, vec, vec_size, WP_SCAN, 0, W, 0, 0, W, NULL), 0);
	assert_int_equal(ioc(mm, MEM, len, vec, vec_size, 0, 0, W, 0, 0, W, NULL), 0);
	/* "3. all the huge page must be written and clear dirty as well" */
	memset_range(mm, MEM, len);
	ret = ioc(mm, MEM, len, vec, vec_size, WP_SCAN, 0, W, 0, 0, W, NULL);
	assert_int_equal(ret, 1);
	assert_int_equal(vec[0].start, MEM);
	assert_int_equal(pages(&vec[0]), vec_size);
	assert_int_equal(vec[0].categories, W);
	ptsim_machine_destroy(m);

	/* "4. only middle page written" */
	m = machine_for(preset);
	mm = protected_hugepage(m, len);
	write_page(mm, MEM + vec_size / 2 * PAGE);
	ret = ioc(mm, MEM, len, vec, vec_size, 0, 0, W, 0, 0, W, NULL);
	assert_int_equal(ret, 1);
	assert_true(pages(&vec[0]) > 0);
	ptsim_machine_destroy(m);

	/* "5. clear first half of huge page" */
	m = machine_for(preset);
	mm = protected_hugepage(m, len);
	memset_range(mm, MEM, len);
	wp_addr_range(mm, MEM, len / 2);
	ret = ioc(mm, MEM, len, vec, vec_size, 0, 0, W, 0, 0, W, NULL);
	assert_int_equal(ret, 1);
	assert_int_equal(pages(&vec[0]), vec_size / 2);
	assert_int_equal(vec[0].start, MEM + len / 2);
	ptsim_machine_destroy(m);

	/* "6. clear first half of huge page with limited buffer" */
	m = machine_for(preset);
	mm = protected_hugepage(m, len);
	memset_range(mm, MEM, len);
	assert_true(ioc(mm, MEM, len, vec, vec_size, WP_SCAN, vec_size / 2, W, 0, 0, W, NULL) >= 0);
	ret = ioc(mm, MEM, len, vec, vec_size, 0, 0, W, 0, 0, W, NULL);
	assert_int_equal(ret, 1);
	assert_int_equal(pages(&vec[0]), vec_size / 2);
	assert_int_equal(vec[0].start, MEM + len / 2);
	ptsim_machine_destroy(m);

	/* "7. clear second half of huge page" */
	m = machine_for(preset);
	mm = protected_hugepage(m, len);
	memset_range(mm, MEM, len);
	assert_true(ioc(mm, MEM + len / 2, len / 2, vec, vec_size, WP_SCAN, vec_size / 2, W, 0, 0, W,
			NULL) >= 0);
	ret = ioc(mm, MEM, len, vec, vec_size, 0, 0, W, 0, 0, W, NULL);
	assert_int_equal(ret, 1);
	assert_int_equal(pages(&vec[0]), vec_size / 2);
	ptsim_machine_destroy(m);

	/* "8. get half huge page" */
	m = machine_for(preset);
	mm = protected_hugepage(m, len);
	memset_range(mm, MEM, len);
	ret = ioc(mm, MEM, len, vec, 1, WP_SCAN, SZ_2M / (2 * PAGE), W, 0, 0, W, NULL);
	assert_int_equal(ret, 1);
	assert_int_equal(pages(&vec[0]), SZ_2M / (2 * PAGE));
	ret = ioc(mm, MEM, len, vec, vec_size, 0, 0, W, 0, 0, W, NULL);
	assert_int_equal(ret, 1);
	assert_int_equal(pages(&vec[0]), (len - SZ_2M / 2) / PAGE);
	assert_invariants(m);
	ptsim_machine_destroy(m);
	free(vec);
}

/* hpage_unit_tests' first two on THPs still whole: the THP's categories (pagemap_thp_category) */
static void hpage_categories(const char *preset)
{
	struct ptsim_machine *m = machine_for(preset);
	struct ptsim_mm *mm = gethugepage(m, SZ_2M);
	struct ptsim_page_region vec[4];

	wp_init(mm, MEM, SZ_2M);
	assert_int_equal(ioc(mm, MEM, SZ_2M, vec, 4, 0, 0, 0, BITS_ALL, 0, BITS_ALL, NULL), 1);
	assert_int_equal(vec[0].categories, PTSIM_PAGE_IS_WPALLOWED | PTSIM_PAGE_IS_PRESENT |
					    PTSIM_PAGE_IS_HUGE);
	assert_int_equal(pages(&vec[0]), 512);
	ptsim_machine_destroy(m);
}

/* test_simple: one page, written and protected again, 100 times */
static void test_simple(const char *preset)
{
	struct ptsim_machine *m = machine_for(preset);
	struct ptsim_mm *mm = mapped(m, MEM, PAGE);
	struct ptsim_page_region vec;
	int i;

	wp_init(mm, MEM, PAGE);
	wp_addr_range(mm, MEM, PAGE);
	for (i = 0; i < 100; i++) {
		if (ioc(mm, MEM, PAGE, &vec, 1, 0, 0, W, 0, 0, W, NULL) == 1)
			break;	/* "written bit was 1, but should be 0" */
		wp_addr_range(mm, MEM, PAGE);
		write_page(mm, MEM);
		if (ioc(mm, MEM, PAGE, &vec, 1, 0, 0, W, 0, 0, W, NULL) == 0)
			break;	/* "written bit was 0, but should be 1" */
		wp_addr_range(mm, MEM, PAGE);
	}
	assert_int_equal(i, 100);
	ptsim_machine_destroy(m);
}

/* sanity_tests: 1. to 8. on 10 pages */
static void sanity_tests(const char *preset)
{
	const uint64_t vec_size = 10, len = vec_size * PAGE;
	struct ptsim_machine *m = machine_for(preset);
	struct ptsim_mm *mm = mapped(m, MEM, len);
	struct ptsim_page_region vec[10], seen;
	int64_t ret;

	wp_init(mm, MEM, len);
	wp_addr_range(mm, MEM, len);
	/* "WP op can be specified with !PAGE_IS_WRITTEN", "required_mask specified", ... */
	assert_true(ioc(mm, MEM, len, vec, vec_size, WP_SCAN, 0, BITS_ALL, 0, 0, BITS_ALL, NULL) >= 0);
	assert_true(ioc(mm, MEM, len, vec, vec_size, 0, 0, BITS_ALL, 0, 0, BITS_ALL, NULL) >= 0);
	assert_true(ioc(mm, MEM, len, vec, vec_size, 0, 0, 0, BITS_ALL, 0, BITS_ALL, NULL) >= 0);
	assert_true(ioc(mm, MEM, len, vec, vec_size, 0, 0, 0, 0, BITS_ALL, BITS_ALL, NULL) >= 0);
	assert_true(ioc(mm, MEM, len, vec, vec_size, 0, 0, BITS_ALL, BITS_ALL, 0, BITS_ALL, NULL) >= 0);
	ptsim_machine_destroy(m);

	/* "2. Get sd and present pages with anyof_mask" */
	m = machine_for(preset);
	mm = mapped(m, MEM, len);
	wp_init(mm, MEM, len);
	wp_addr_range(mm, MEM, len);
	memset_range(mm, MEM, len);
	ret = ioc(mm, MEM, len, vec, vec_size, 0, 0, 0, BITS_ALL, 0, BITS_ALL, NULL);
	assert_true(ret >= 0);
	assert_int_equal(vec[0].start, MEM);
	assert_int_equal(pages(&vec[0]), vec_size);
	assert_int_equal(vec[0].categories & (W | PTSIM_PAGE_IS_PRESENT), W | PTSIM_PAGE_IS_PRESENT);
	seen = vec[0];
	/*
	 * "3. Get all the pages with required_mask": every category required
	 * (FILE and SWAPPED among them) matches no page, so nothing is written
	 * to vec and the selftest checks what case 2 left in it
	 */
	assert_int_equal(ioc(mm, MEM, len, vec, vec_size, 0, 0, BITS_ALL, 0, 0, BITS_ALL, NULL), 0);
	assert_memory_equal(&vec[0], &seen, sizeof(seen));
	/* "4. Get sd and present pages with required_mask and anyof_mask" */
	ret = ioc(mm, MEM, len, vec, vec_size, 0, 0, W, PTSIM_PAGE_IS_PRESENT, 0, BITS_ALL, NULL);
	assert_int_equal(ret, 1);
	assert_int_equal(pages(&vec[0]), vec_size);
	assert_int_equal(vec[0].categories & (W | PTSIM_PAGE_IS_PRESENT), W | PTSIM_PAGE_IS_PRESENT);
	/* "5. Don't get sd pages", "6. Don't get present pages" */
	assert_int_equal(ioc(mm, MEM, len, vec, vec_size, 0, 0, W, 0, W, BITS_ALL, NULL), 0);
	assert_int_equal(ioc(mm, MEM, len, vec, vec_size, 0, 0, PTSIM_PAGE_IS_PRESENT, 0,
			     PTSIM_PAGE_IS_PRESENT, BITS_ALL, NULL), 0);
	ptsim_machine_destroy(m);

	/* "8. Find written present pages with return mask" */
	m = machine_for(preset);
	mm = mapped(m, MEM, len);
	wp_init(mm, MEM, len);
	wp_addr_range(mm, MEM, len);
	memset_range(mm, MEM, len);
	ret = ioc(mm, MEM, len, vec, vec_size, WP_SCAN, 0, 0, BITS_ALL, 0, W, NULL);
	assert_true(ret >= 0);
	assert_int_equal(vec[0].start, MEM);
	assert_int_equal(pages(&vec[0]), vec_size);
	assert_int_equal(vec[0].categories, W);
	ptsim_machine_destroy(m);
}

/* sanity_tests: "9. Memory mapped file": a read-only private file mapping, read through */
static void sanity_memory_mapped_file(const char *preset)
{
	const uint64_t size = 5 * PAGE + 100;	/* a source file's size: not page aligned */
	struct ptsim_machine *m = machine_for(preset);
	struct ptsim_mm *mm = NULL;
	struct ptsim_page_region vec[10];
	unsigned int file, fd;
	uint64_t fmem = MEM;
	int64_t ret;

	assert_int_equal(ptsim_mm_create(m, &mm), 0);
	assert_int_equal(ptsim_file_create(m, size, 0, &file), 0);
	assert_int_equal(ptsim_file_open(m, file, &fd), 0);
	assert_int_equal(ptsim_mmap_file(mm, fmem, ALIGN_UP64(size, PAGE), PTSIM_PROT_READ, fd, 0, NULL),
			 0);
	for (uint64_t va = fmem; va < fmem + size; va += PAGE)	/* memcpy(tmp_buf, fmem, size) */
		assert_int_equal(ptsim_fault(mm, va, PTSIM_ACCESS_READ), 0);
	ret = ioc(mm, fmem, size, vec, 10, 0, 0, 0, NON_WRITTEN_BITS, 0, NON_WRITTEN_BITS, NULL);
	assert_true(ret >= 0);
	assert_int_equal(vec[0].start, fmem);
	assert_int_equal(pages(&vec[0]), (size + PAGE - 1) / PAGE);
	assert_true(vec[0].categories & PTSIM_PAGE_IS_FILE);
	ptsim_machine_destroy(m);
}

/* mprotect_tests */
static void mprotect_tests(const char *preset)
{
	struct ptsim_machine *m = machine_for(preset);
	struct ptsim_mm *mm = mapped(m, MEM, 2 * PAGE);
	struct ptsim_page_region vec;

	wp_init(mm, MEM, 2 * PAGE);
	wp_addr_range(mm, MEM, 2 * PAGE);
	/* "1. Map two pages": "Both pages written" */
	memset_range(mm, MEM, 2 * PAGE);
	assert_int_equal(ioc(mm, MEM, 2 * PAGE, &vec, 1, 0, 0, W, 0, 0, W, NULL), 1);
	assert_int_equal(pages(&vec), 2);
	/* "2. Start tracking": "Both pages are not written (dirty)" */
	wp_addr_range(mm, MEM, 2 * PAGE);
	assert_int_equal(ioc(mm, MEM, 2 * PAGE, &vec, 1, 0, 0, W, 0, 0, W, NULL), 0);
	/* "3. Remap the second page" (MAP_FIXED: unmapped, mapped anew), protect + unprotect */
	assert_int_equal(ptsim_munmap(mm, MEM + PAGE, PAGE), 0);
	assert_int_equal(ptsim_mmap(mm, MEM + PAGE, PAGE, PTSIM_PROT_READ | PTSIM_PROT_WRITE,
				    PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL), 0);
	wp_init(mm, MEM + PAGE, PAGE);
	wp_addr_range(mm, MEM + PAGE, PAGE);
	assert_int_equal(ptsim_mprotect(mm, MEM, PAGE, PTSIM_PROT_NONE), 0);
	assert_int_equal(ptsim_mprotect(mm, MEM, 2 * PAGE, PTSIM_PROT_READ), 0);
	assert_int_equal(ptsim_mprotect(mm, MEM, 2 * PAGE, PTSIM_PROT_READ | PTSIM_PROT_WRITE), 0);
	memset_range(mm, MEM, 2 * PAGE);
	assert_int_equal(ptsim_mprotect(mm, MEM, PAGE, PTSIM_PROT_NONE), 0);
	assert_int_equal(ptsim_mprotect(mm, MEM, PAGE, PTSIM_PROT_READ), 0);
	assert_int_equal(ptsim_mprotect(mm, MEM, PAGE, PTSIM_PROT_READ | PTSIM_PROT_WRITE), 0);
	/* "Both pages written after remap and mprotect" */
	assert_int_equal(ioc(mm, MEM, 2 * PAGE, &vec, 1, 0, 0, W, 0, 0, W, NULL), 1);
	assert_int_equal(pages(&vec), 2);
	/* "4. Clear and make the pages written" */
	wp_addr_range(mm, MEM, 2 * PAGE);
	memset_range(mm, MEM, 2 * PAGE);
	assert_int_equal(ioc(mm, MEM, 2 * PAGE, &vec, 1, 0, 0, W, 0, 0, W, NULL), 1);
	assert_int_equal(pages(&vec), 2);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/*
 * transact_test without its threads: get_dirty_pages_reset after a memset
 * finds pages, a second finds none; then rounds in which each of the 6
 * "threads" writes 8 of its 32 pages and two resets together find exactly
 * those 48 (the selftest's concurrency, and its extra pages, cannot be
 * expressed: the model runs one access at a time).
 */
static void transact_test(const char *preset)
{
	const unsigned int nthreads = 6, per_thread = 32, access = 8, n = nthreads * per_thread;
	struct ptsim_machine *m = machine_for(preset);
	struct ptsim_mm *mm = mapped(m, MEM, n * PAGE);
	struct ptsim_page_region rgns[256];
	uint64_t count;

	wp_init(mm, MEM, n * PAGE);
	wp_addr_range(mm, MEM, n * PAGE);
	memset_range(mm, MEM, n * PAGE);
	count = 0;
	for (int64_t i = 0, r = ioc(mm, MEM, n * PAGE, rgns, 256, WP_SCAN, n, W, 0, 0, W, NULL); i < r; i++)
		count += pages(&rgns[i]);
	assert_true(count > 0);
	assert_int_equal(ioc(mm, MEM, n * PAGE, rgns, 256, WP_SCAN, n, W, 0, 0, W, NULL), 0);
	for (int iter = 0; iter < 20; iter++) {
		count = 0;
		for (unsigned int t = 0; t < nthreads; t++)
			for (unsigned int i = 0; i < access; i++)
				write_page(mm, MEM + (t * per_thread + i) * PAGE);
		for (int reset = 0; reset < 2; reset++) {
			int64_t r = ioc(mm, MEM, n * PAGE, rgns, 256, WP_SCAN, n, W, 0, 0, W, NULL);

			for (int64_t i = 0; i < r; i++) {
				assert_int_equal(rgns[i].categories, W);	/* "wrong flags" */
				count += pages(&rgns[i]);
			}
		}
		assert_int_equal(count, nthreads * access);
	}
	ptsim_machine_destroy(m);
}

/* unmapped_region_tests: "Get status of pages" of an unmapped range */
static void unmapped_region_tests(const char *preset)
{
	struct ptsim_machine *m = machine_for(preset);
	struct ptsim_mm *mm = mapped(m, MEM, PAGE);
	struct ptsim_page_region vec[64];

	assert_true(ioc(mm, 0x10000000, 0x40000, vec, 64, 0, 0, NON_WRITTEN_BITS, 0, 0,
			NON_WRITTEN_BITS, NULL) >= 0);
	ptsim_machine_destroy(m);
}

/* userfaultfd_tests: "all new pages must not be written (dirty)", over mprotect'ed parts */
static void userfaultfd_tests(const char *preset)
{
	const uint64_t len = 16 * PAGE, e = len / 8;
	static const unsigned int prot[8] = {
		PTSIM_PROT_READ | PTSIM_PROT_WRITE, PTSIM_PROT_READ, PTSIM_PROT_READ | PTSIM_PROT_WRITE,
		PTSIM_PROT_READ, PTSIM_PROT_READ | PTSIM_PROT_WRITE, PTSIM_PROT_NONE,
		PTSIM_PROT_READ | PTSIM_PROT_WRITE, PTSIM_PROT_READ,
	};
	struct ptsim_machine *m = machine_for(preset);
	struct ptsim_mm *mm = NULL;
	struct ptsim_page_region vec[16];

	assert_int_equal(ptsim_mm_create(m, &mm), 0);
	assert_int_equal(ptsim_mmap(mm, MEM, len, PTSIM_PROT_NONE, PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS,
				    NULL), 0);
	wp_init(mm, MEM, len);
	for (unsigned int i = 0; i < 8; i++)
		assert_int_equal(ptsim_mprotect(mm, MEM + i * e, e, prot[i]), 0);
	wp_addr_range(mm, MEM + len / 16, len - 2 * e);
	wp_addr_range(mm, MEM, len);
	assert_int_equal(ioc(mm, MEM, len, vec, 1, WP_SCAN, 16 - 2, W, 0, 0, W, NULL), 0);
	ptsim_machine_destroy(m);
}

#define PER_PRESET(name)						\
	static void test_##name(void **state)				\
	{								\
		(void)state;						\
		for_wp_presets(name);					\
	}

PER_PRESET(sanity_sd_wrong_operation)
PER_PRESET(sanity_sd_patterns)
PER_PRESET(sanity_sd_two_regions)
PER_PRESET(sanity_sd_smaller_max_pages)
PER_PRESET(sanity_sd_smaller_vec)
PER_PRESET(sanity_sd_walk_end)
PER_PRESET(base_page_testing)
PER_PRESET(base_huge_page_testing)
PER_PRESET(hpage_unit_tests)
PER_PRESET(hpage_categories)
PER_PRESET(test_simple)
PER_PRESET(sanity_tests)
PER_PRESET(sanity_memory_mapped_file)
PER_PRESET(mprotect_tests)
PER_PRESET(transact_test)
PER_PRESET(unmapped_region_tests)
PER_PRESET(userfaultfd_tests)

/*
 * main: init_uffd fails before arm64 had uffd-wp (v6.6 .. v6.9): UFFDIO_API
 * refuses UFFD_FEATURE_WP_ASYNC, UFFDIO_REGISTER refuses MODE_WP, and the
 * selftest exits with a pass having tested nothing.
 */
static void test_init_uffd_refused(void **state)
{
	unsigned int refused = 0;

	(void)state;
	for (unsigned int i = 0; ptsim_preset_name(i); i++) {
		struct ptsim_machine *m;
		struct ptsim_mm *mm;

		if (has_uffd_wp(ptsim_preset_name(i)))
			continue;
		m = machine_for(ptsim_preset_name(i));
		mm = mapped(m, MEM, PAGE);
		assert_int_equal(ptsim_uffd_register_mode(mm, MEM, PAGE, PTSIM_UFFDIO_REGISTER_MODE_MISSING,
							  PTSIM_UFFD_FEATURE_WP_ASYNC), -EINVAL);
		assert_int_equal(ptsim_uffd_register_mode(mm, MEM, PAGE, PTSIM_UFFDIO_REGISTER_MODE_WP, 0),
				 -EINVAL);
		refused++;
		ptsim_machine_destroy(m);
	}
	assert_int_equal(refused, 4);	/* v6.6, v6.8, v6.9-midpoint, v6.9 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_uffd_refused),
		cmocka_unit_test(test_sanity_sd_wrong_operation),
		cmocka_unit_test(test_sanity_sd_patterns),
		cmocka_unit_test(test_sanity_sd_two_regions),
		cmocka_unit_test(test_sanity_sd_smaller_max_pages),
		cmocka_unit_test(test_sanity_sd_smaller_vec),
		cmocka_unit_test(test_sanity_sd_walk_end),
		cmocka_unit_test(test_base_page_testing),
		cmocka_unit_test(test_base_huge_page_testing),
		cmocka_unit_test(test_hpage_unit_tests),
		cmocka_unit_test(test_hpage_categories),
		cmocka_unit_test(test_test_simple),
		cmocka_unit_test(test_sanity_tests),
		cmocka_unit_test(test_sanity_memory_mapped_file),
		cmocka_unit_test(test_mprotect_tests),
		cmocka_unit_test(test_transact_test),
		cmocka_unit_test(test_unmapped_region_tests),
		cmocka_unit_test(test_userfaultfd_tests),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
