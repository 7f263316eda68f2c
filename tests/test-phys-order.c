// SPDX-License-Identifier: MIT
/*
 * ptsim_machine_set_phys_order: where the page allocator takes page frames
 * from. Sequential (the default) hands out neighbours; fragmented scatters
 * order-0 pages over the block it broke up, the same way for the same seed,
 * keeps large folios naturally aligned, and merges freed pages back.
 */
#include "helpers.h"

#include <errno.h>
#include <string.h>

#define VA UINT64_C(0x10000000)
#define PAGES 256

/* The PFNs of the PAGES order-0 pages populated at VA on a fresh machine. */
static void populate_pfns(bool fragmented, uint64_t seed, uint64_t pfn[PAGES])
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3, "v6.12");
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, PAGES * 4096);
	struct ptsim_page_info info;

	if (fragmented)
		assert_int_equal(ptsim_machine_set_phys_order(m, PTSIM_PHYS_FRAGMENTED, seed), 0);
	assert_int_equal(ptsim_populate(mm, VA, PAGES * 4096, 0, true), 0);
	for (unsigned int i = 0; i < PAGES; i++) {
		assert_int_equal(ptsim_pagemap(mm, VA + i * UINT64_C(4096), &info), 0);
		assert_int_equal(info.state, PTSIM_PAGE_PRESENT);
		pfn[i] = info.pfn;
	}
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/* How many pages follow their predecessor's frame directly (either way). */
static unsigned int neighbours(const uint64_t pfn[PAGES])
{
	unsigned int n = 0;

	for (unsigned int i = 1; i < PAGES; i++)
		n += pfn[i] == pfn[i - 1] + 1 || pfn[i] + 1 == pfn[i - 1];
	return n;
}

static void test_sequential_default(void **state)
{
	uint64_t pfn[PAGES];

	(void)state;
	populate_pfns(false, 0, pfn);
	/* the page-table page comes first; then the pages in order */
	assert_true(neighbours(pfn) >= PAGES - 2);
}

static void test_fragmented_scatters(void **state)
{
	uint64_t a[PAGES], b[PAGES], c[PAGES];
	unsigned int same_block = 0;

	(void)state;
	populate_pfns(true, 7, a);
	populate_pfns(true, 7, b);
	populate_pfns(true, 8, c);
	assert_memory_equal(a, b, sizeof(a));		/* the seed decides */
	assert_memory_not_equal(a, c, sizeof(a));
	/* a random order of 1024 frames: few direct neighbours (expected about 0.5) */
	assert_true(neighbours(a) <= 8);
	for (unsigned int i = 0; i < PAGES; i++) {
		for (unsigned int j = 0; j < i; j++)
			assert_true(a[i] != a[j]);
		same_block += a[i] >> 10 == a[0] >> 10;	/* MAX_PAGE_ORDER 10: one 4 MiB block */
	}
	assert_int_equal(same_block, PAGES);
}

/* Large folios stay aligned blocks; freed pages merge back to whole blocks. */
static void test_fragmented_large_and_free(void **state)
{
	struct ptsim_machine_config cfg;
	struct ptsim_machine *m;
	struct ptsim_mm *mm;
	struct ptsim_page_info info;
	const uint64_t len = UINT64_C(16) << 20;

	(void)state;
	ptsim_machine_config_init(&cfg);
	cfg.phys_size = UINT64_C(32) << 20;
	cfg.cpu = PTSIM_CPU_APPLE_M3;
	cfg.preset = "v6.12";
	m = create_machine(&cfg);
	assert_int_equal(ptsim_machine_set_phys_order(m, PTSIM_PHYS_FRAGMENTED, 1), 0);
	mm = new_mm_with_vma(m, VA, len);
	/* half of memory in single pages, then give it back */
	assert_int_equal(ptsim_populate(mm, VA, len, 0, true), 0);
	assert_int_equal(ptsim_munmap(mm, VA, len), 0);
	assert_invariants(m);
	/* the freed pages merged: 16 MiB of 2 MiB folios fit again, aligned */
	assert_int_equal(ptsim_mmap(mm, VA, len, PTSIM_PROT_READ | PTSIM_PROT_WRITE,
				    PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL), 0);
	assert_int_equal(ptsim_populate(mm, VA, len, 9, true), 0);
	for (uint64_t va = VA; va < VA + len; va += UINT64_C(2) << 20) {
		assert_int_equal(ptsim_pagemap(mm, va, &info), 0);
		assert_int_equal(info.pfn & 511, 0);
	}
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/* Running out of memory fails cleanly, fragmented or not. */
static void test_fragmented_exhaustion(void **state)
{
	struct ptsim_machine_config cfg;
	struct ptsim_machine *m;
	struct ptsim_mm *mm;
	const uint64_t len = UINT64_C(8) << 20;

	(void)state;
	ptsim_machine_config_init(&cfg);
	cfg.phys_size = UINT64_C(4) << 20;
	m = create_machine(&cfg);
	assert_int_equal(ptsim_machine_set_phys_order(m, PTSIM_PHYS_FRAGMENTED, 3), 0);
	mm = new_mm_with_vma(m, VA, len);
	assert_int_equal(ptsim_populate(mm, VA, len, 0, true), -ENOMEM);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

#define BLOCKS 16	/* a 64 MiB machine: 16 max-order (4 MiB) blocks */

/* A 64 MiB machine of 4K pages, shuffled with seed (or sequential when seed is 0). */
static struct ptsim_machine *small_machine(uint64_t seed)
{
	struct ptsim_machine_config cfg;
	struct ptsim_machine *m;

	ptsim_machine_config_init(&cfg);
	cfg.phys_size = UINT64_C(4) * BLOCKS << 20;
	m = create_machine(&cfg);
	if (seed)
		assert_int_equal(ptsim_machine_set_phys_order(m, PTSIM_PHYS_SHUFFLED, seed), 0);
	return m;
}

/* The machine's 16 max-order blocks in the order the allocator hands them out, then none. */
static void take_blocks(struct ptsim_machine *m, uint64_t idx[BLOCKS])
{
	const unsigned int order = m->phys.max_order;
	bool seen[BLOCKS] = { false };
	uint64_t pfn;

	for (unsigned int i = 0; i < BLOCKS; i++) {
		assert_int_equal(physmem_alloc(&m->phys, order, &pfn, NULL), 0);
		idx[i] = (pfn - m->phys.base_pfn) >> order;
		assert_int_equal(pfn & ((UINT64_C(1) << order) - 1), 0);
		assert_true(idx[i] < BLOCKS);
		assert_false(seen[idx[i]]);	/* every block once */
		seen[idx[i]] = true;
	}
	assert_int_equal(physmem_alloc(&m->phys, order, &pfn, NULL), -ENOMEM);
}

/*
 * page_alloc.shuffle: the max-order blocks come in a random order (each
 * once), the same for the same seed and another for another; the default
 * hands them out in address order.
 */
static void test_shuffled_blocks(void **state)
{
	uint64_t seq[BLOCKS], a[BLOCKS], b[BLOCKS], c[BLOCKS];
	struct ptsim_machine *m;
	unsigned int in_order = 0;

	(void)state;
	m = small_machine(0);
	take_blocks(m, seq);
	ptsim_machine_destroy(m);
	for (unsigned int i = 0; i < BLOCKS; i++)
		assert_int_equal(seq[i], i);
	m = small_machine(7);
	take_blocks(m, a);
	ptsim_machine_destroy(m);
	m = small_machine(7);
	take_blocks(m, b);
	ptsim_machine_destroy(m);
	m = small_machine(8);
	take_blocks(m, c);
	ptsim_machine_destroy(m);
	assert_memory_equal(a, b, sizeof(a));
	assert_memory_not_equal(a, c, sizeof(a));
	for (unsigned int i = 1; i < BLOCKS; i++)
		in_order += a[i] == a[i - 1] + 1;
	assert_true(in_order < BLOCKS / 2);
}

/*
 * Within a block the pages still come in order (the block is split in
 * halves as a fresh machine's are): 256 pages populated on a shuffled
 * machine are neighbours, in the block the shuffle hands out first.
 */
static void test_shuffled_pages_within_a_block(void **state)
{
	struct ptsim_machine *m = small_machine(7);
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, PAGES * 4096);
	const unsigned int order = m->phys.max_order;
	uint64_t pfn[PAGES], first[BLOCKS];
	struct ptsim_page_info info;

	(void)state;
	assert_int_equal(ptsim_populate(mm, VA, PAGES * 4096, 0, true), 0);
	for (unsigned int i = 0; i < PAGES; i++) {
		assert_int_equal(ptsim_pagemap(mm, VA + i * UINT64_C(4096), &info), 0);
		pfn[i] = info.pfn;
		assert_true(pfn[i] >= m->phys.base_pfn);
	}
	assert_true(neighbours(pfn) >= PAGES - 2);
	assert_invariants(m);
	ptsim_machine_destroy(m);
	m = small_machine(7);
	take_blocks(m, first);
	assert_int_equal((pfn[PAGES - 1] - m->phys.base_pfn) >> order, first[0]);
	ptsim_machine_destroy(m);
}

/*
 * A freed max-order block goes to the tail or the head of its list at
 * random (shuffle_pick_tail): with every block taken, A then B freed, the
 * next allocation is B (at the head) or A (B went to the tail); over 16
 * seeds both happen. Without the shuffle the list is LIFO: always B.
 */
static void test_shuffled_free_either_end(void **state)
{
	unsigned int got_a = 0, got_b = 0;

	(void)state;
	for (uint64_t seed = 0; seed <= 16; seed++) {
		struct ptsim_machine *m = small_machine(seed);
		const unsigned int order = m->phys.max_order;
		uint64_t idx[BLOCKS], pa, pb, pfn;

		take_blocks(m, idx);
		pa = m->phys.base_pfn + (idx[0] << order);
		pb = m->phys.base_pfn + (idx[1] << order);
		physmem_free(&m->phys, pa, order);
		physmem_free(&m->phys, pb, order);
		assert_int_equal(physmem_alloc(&m->phys, order, &pfn, NULL), 0);
		assert_true(pfn == pa || pfn == pb);
		if (!seed)
			assert_int_equal(pfn, pb);
		else
			pfn == pa ? got_a++ : got_b++;
		ptsim_machine_destroy(m);
	}
	assert_true(got_a > 0);
	assert_true(got_b > 0);
}

static void test_bad_input(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3, "v6.12");
	uint64_t before[PAGES], after[PAGES];

	(void)state;
	assert_int_equal(ptsim_machine_set_phys_order(NULL, PTSIM_PHYS_FRAGMENTED, 1), -EINVAL);
	assert_int_equal(ptsim_machine_set_phys_order(m, (enum ptsim_phys_order)3, 1), -EINVAL);
	assert_int_equal(ptsim_machine_set_phys_order(m, (enum ptsim_phys_order)-1, 1), -EINVAL);
	ptsim_machine_destroy(m);
	/* a refused order changes nothing: still the default's neighbours */
	populate_pfns(false, 0, before);
	m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3, "v6.12");
	assert_int_equal(ptsim_machine_set_phys_order(m, (enum ptsim_phys_order)5, 1), -EINVAL);
	{
		struct ptsim_mm *mm = new_mm_with_vma(m, VA, PAGES * 4096);
		struct ptsim_page_info info;

		assert_int_equal(ptsim_populate(mm, VA, PAGES * 4096, 0, true), 0);
		for (unsigned int i = 0; i < PAGES; i++) {
			assert_int_equal(ptsim_pagemap(mm, VA + i * UINT64_C(4096), &info), 0);
			after[i] = info.pfn;
		}
	}
	assert_memory_equal(before, after, sizeof(before));
	ptsim_machine_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sequential_default),
		cmocka_unit_test(test_fragmented_scatters),
		cmocka_unit_test(test_fragmented_large_and_free),
		cmocka_unit_test(test_fragmented_exhaustion),
		cmocka_unit_test(test_shuffled_blocks),
		cmocka_unit_test(test_shuffled_pages_within_a_block),
		cmocka_unit_test(test_shuffled_free_either_end),
		cmocka_unit_test(test_bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
