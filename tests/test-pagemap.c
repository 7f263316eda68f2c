// SPDX-License-Identifier: MIT
/*
 * The /proc queries (fs/proc/task_mmu.c, v6.12): the pagemap page query
 * (none, present, swap; PFN, PageAnonExclusive, PM_MMAP_EXCLUSIVE, folio
 * order, mapcount, refcount, pins), its range walk, the VMA list with the
 * smaps sums (smap_gather_stats: Rss, Anonymous, AnonHugePages, Swap), and
 * their text forms. They count nothing and change nothing.
 */
#include "helpers.h"

#define VA SZ_1G

static struct ptsim_machine *machine(void)
{
	return new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.12");
}

static struct ptsim_page_info page(struct ptsim_mm *mm, uint64_t va)
{
	struct ptsim_page_info pi;

	assert_int_equal(ptsim_pagemap(mm, va, &pi), 0);
	for (size_t i = 0; i < sizeof(pi.reserved) / sizeof(pi.reserved[0]); i++)
		assert_int_equal(pi.reserved[i], 0);
	assert_int_equal(pi.reserved32, 0);
	return pi;
}

/* A 2M THP, an order-4 folio, a small page, a swapped-out page and the zero page. */
static struct ptsim_mm *populated(struct ptsim_machine *m)
{
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, 2 * SZ_2M);

	assert_int_equal(ptsim_populate(mm, VA, SZ_2M, 9, true), 0);
	assert_int_equal(ptsim_populate(mm, VA + SZ_2M, SZ_64K, 4, true), 0);
	assert_int_equal(ptsim_fault(mm, VA + SZ_2M + SZ_64K, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(ptsim_fault(mm, VA + SZ_2M + SZ_64K + SZ_4K, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(ptsim_swapout(mm, VA + SZ_2M + SZ_64K + SZ_4K, SZ_4K), 0);
	assert_int_equal(ptsim_fault(mm, VA + SZ_2M + SZ_64K + 2 * SZ_4K, PTSIM_ACCESS_READ), 0);
	return mm;
}

static void test_page_states(void **state)
{
	struct ptsim_machine *m = machine();
	struct ptsim_mm *mm = populated(m), *child;
	struct ptsim_translation tr;
	struct ptsim_page_info pi;
	struct ptsim_stats before, after;

	(void)state;
	ptsim_total_stats(m, &before);
	pi = page(mm, VA + 5 * SZ_4K + 123);
	assert_int_equal(ptsim_translate(mm, VA + 5 * SZ_4K, &tr), 0);
	assert_true(pi.state == PTSIM_PAGE_PRESENT && pi.level == 2 && pi.order == 9);
	assert_true(pi.va == VA + 5 * SZ_4K && pi.pfn == tr.pa >> 12);
	assert_true(pi.anon && pi.exclusive && pi.mmap_exclusive && pi.write && pi.dirty && pi.young);
	assert_true(pi.mapcount == 1 && pi.refcount == 1 && pi.pins == 0 && !pi.soft_dirty);
	pi = page(mm, VA + SZ_2M + 3 * SZ_4K);
	assert_true(pi.level == 3 && pi.order == 4 && pi.mapcount == 16 && pi.refcount == 16);
	pi = page(mm, VA + SZ_2M + SZ_64K + SZ_4K);
	assert_true(pi.state == PTSIM_PAGE_SWAP && pi.exclusive && pi.swap_type == 0);
	assert_int_not_equal(pi.swap_offset, 0);
	pi = page(mm, VA + SZ_2M + SZ_64K + 2 * SZ_4K);
	assert_true(pi.state == PTSIM_PAGE_PRESENT && pi.zero_page && !pi.anon && pi.refcount == 0);
	pi = page(mm, VA + SZ_2M + SZ_64K + 3 * SZ_4K);
	assert_true(pi.state == PTSIM_PAGE_NONE && pi.va == VA + SZ_2M + SZ_64K + 3 * SZ_4K);
	assert_int_equal(page(mm, 0).state, PTSIM_PAGE_NONE);
	/* after fork: shared, not exclusive in either sense */
	assert_int_equal(ptsim_fork(mm, &child), 0);
	ptsim_total_stats(m, &before);
	pi = page(child, VA + SZ_2M + SZ_64K);
	assert_true(pi.mapcount == 2 && pi.refcount == 2 && !pi.exclusive && !pi.mmap_exclusive);
	pi = page(mm, VA + SZ_2M);
	assert_true(pi.mapcount == 32 && !pi.mmap_exclusive);
	ptsim_total_stats(m, &after);
	assert_memory_equal(&before, &after, sizeof(before));
	assert_int_equal(ptsim_pagemap(mm, UINT64_C(1) << 48, &pi), -EINVAL);
	assert_int_equal(ptsim_pagemap(mm, VA, NULL), -EINVAL);
	assert_int_equal(ptsim_pagemap(NULL, VA, &pi), -EINVAL);
	ptsim_mm_destroy(child);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

struct walk {
	uint64_t nr, present, swap, stop_at;
	uint64_t last_va;
};

static int walk_page(const struct ptsim_page_info *p, void *arg)
{
	struct walk *w = arg;

	assert_true(w->nr == 0 || p->va > w->last_va);
	w->last_va = p->va;
	w->nr++;
	w->present += p->state == PTSIM_PAGE_PRESENT;
	w->swap += p->state == PTSIM_PAGE_SWAP;
	return w->nr == w->stop_at ? 42 : 0;
}

/* The range walk: mapped and swapped pages in order, an early stop, and the whole address space. */
static void test_pagemap_range(void **state)
{
	struct ptsim_machine *m = machine();
	struct ptsim_mm *mm = populated(m);
	struct walk w = { 0 };

	(void)state;
	assert_int_equal(ptsim_pagemap_range(mm, 0, UINT64_C(1) << 48, walk_page, &w), 0);
	assert_int_equal(w.nr, 512 + 16 + 1 + 1 + 1);
	assert_int_equal(w.swap, 1);
	memset(&w, 0, sizeof(w));
	assert_int_equal(ptsim_pagemap_range(mm, VA + SZ_2M - SZ_4K, 2 * SZ_4K + 1, walk_page, &w), 0);
	assert_int_equal(w.nr, 3);	/* widened to pages */
	memset(&w, 0, sizeof(w));
	w.stop_at = 2;
	assert_int_equal(ptsim_pagemap_range(mm, VA, SZ_2M, walk_page, &w), 42);
	assert_int_equal(w.nr, 2);
	assert_int_equal(ptsim_pagemap_range(mm, VA, UINT64_MAX, walk_page, &w), -EINVAL);
	assert_int_equal(ptsim_pagemap_range(mm, VA, SZ_4K, NULL, &w), -EINVAL);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

struct vmas {
	struct ptsim_vma_info v[4];
	unsigned int nr;
};

static int collect_vma(const struct ptsim_vma_info *v, void *arg)
{
	struct vmas *vs = arg;

	assert_true(vs->nr < 4);
	vs->v[vs->nr++] = *v;
	return 0;
}

/* The VMA list: flags as maps shows them, and smaps' sums (the zero page is not in Rss). */
static void test_vma_list(void **state)
{
	struct ptsim_machine *m = machine();
	struct ptsim_mm *mm = populated(m);
	struct vmas vs = { 0 };

	(void)state;
	assert_int_equal(ptsim_mmap(mm, VA + SZ_1G, SZ_64K, PTSIM_PROT_READ,
				    PTSIM_MAP_SHARED | PTSIM_MAP_ANONYMOUS, NULL), 0);
	assert_int_equal(ptsim_mlock(mm, VA + SZ_1G, SZ_64K), 0);
	assert_int_equal(ptsim_uffd_register(mm, VA, 2 * SZ_2M), 0);
	assert_int_equal(ptsim_vma_foreach(mm, collect_vma, &vs), 0);
	assert_int_equal(vs.nr, 2);
	assert_true(vs.v[0].start == VA && vs.v[0].end == VA + 2 * SZ_2M && vs.v[0].fd == -1);
	assert_true(vs.v[0].prot == (PTSIM_PROT_READ | PTSIM_PROT_WRITE) && !vs.v[0].shared);
	assert_true(vs.v[0].anon && vs.v[0].anon_vma && vs.v[0].uffd && !vs.v[0].locked);
	assert_int_equal(vs.v[0].rss, SZ_2M + SZ_64K + SZ_4K);
	assert_int_equal(vs.v[0].anonymous, SZ_2M + SZ_64K + SZ_4K);
	assert_int_equal(vs.v[0].anon_huge, SZ_2M);
	assert_int_equal(vs.v[0].swap, SZ_4K);
	assert_true(vs.v[1].shared && vs.v[1].shmem && vs.v[1].locked && !vs.v[1].anon_vma);
	assert_true(vs.v[1].prot == PTSIM_PROT_READ && vs.v[1].rss == SZ_64K && vs.v[1].anonymous == 0);
	assert_false(vs.v[1].locked_onfault);
	/* mlock2(MLOCK_ONFAULT) on a locked VMA only adds VM_LOCKONFAULT, which the list shows */
	assert_int_equal(ptsim_mlock2(mm, VA + SZ_1G, SZ_64K, PTSIM_MLOCK_ONFAULT), 0);
	vs.nr = 0;
	assert_int_equal(ptsim_vma_foreach(mm, collect_vma, &vs), 0);
	assert_true(vs.v[1].locked && vs.v[1].locked_onfault && !vs.v[0].locked_onfault);
	assert_int_equal(ptsim_vma_foreach(mm, NULL, &vs), -EINVAL);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

static char *printed(struct ptsim_mm *mm, bool vmas, uint64_t start, uint64_t len)
{
	char *buf = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);

	assert_non_null(f);
	assert_int_equal(vmas ? ptsim_vmas_print(mm, f) : ptsim_pagemap_print(mm, start, len, f), 0);
	fclose(f);
	return buf;
}

/* The text forms the scenario operations print (doc/scenario.md). */
static void test_print(void **state)
{
	struct ptsim_machine *m = machine();
	struct ptsim_mm *mm = populated(m);
	uint64_t pa = 0;
	char *s, expect[1024];
	struct ptsim_page_info thp, small;

	(void)state;
	assert_int_equal(ptsim_pin_user_pages(mm, VA + SZ_2M + SZ_64K, 1, 0, &pa), 1);
	thp = page(mm, VA);
	small = page(mm, VA + SZ_2M + SZ_64K);
	s = printed(mm, false, VA, 2 * SZ_2M);
	snprintf(expect, sizeof(expect),
		 "0x40000000-0x40200000 present pfn=0x%llx level=2 anon order=9 mapcount=1 refcount=1 pins=0 gets=0 exclusive mmap-exclusive write dirty young\n"
		 "0x40200000-0x40210000 present pfn=0x%llx level=3 anon order=4 mapcount=16 refcount=16 pins=0 gets=0 exclusive mmap-exclusive write dirty young\n"
		 "0x40210000-0x40211000 present pfn=0x%llx level=3 anon order=0 mapcount=1 refcount=1025 pins=1 gets=0 exclusive mmap-exclusive write dirty young\n"
		 "0x40211000-0x40212000 swap type=0 offset=0x%llx exclusive\n"
		 "0x40212000-0x40213000 present pfn=0x%llx level=3 zero-page young\n",
		 (unsigned long long)thp.pfn, (unsigned long long)page(mm, VA + SZ_2M).pfn,
		 (unsigned long long)small.pfn,
		 (unsigned long long)page(mm, VA + SZ_2M + SZ_64K + SZ_4K).swap_offset,
		 (unsigned long long)page(mm, VA + SZ_2M + SZ_64K + 2 * SZ_4K).pfn);
	assert_string_equal(s, expect);
	free(s);
	s = printed(mm, true, 0, 0);
	assert_string_equal(s, "0x40000000-0x40400000 rw-p pgoff=0x40000 anon anon_vma rss=2116kB anonymous=2116kB anonhuge=2048kB swap=4kB\n");
	free(s);
	assert_int_equal(ptsim_unpin_user_page(m, pa), 0);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_page_states),
		cmocka_unit_test(test_pagemap_range),
		cmocka_unit_test(test_vma_list),
		cmocka_unit_test(test_print),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
