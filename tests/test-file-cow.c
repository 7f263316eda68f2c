// SPDX-License-Identifier: MIT
/*
 * MAP_PRIVATE file mappings and copy-on-write (v6.12 mm/memory.c): a write
 * fault on an empty entry is do_fault's do_cow_fault (a private anonymous
 * copy of the page-cache page, mapped writable and exclusive; the
 * page-cache folio stays); a write to a read-only page-cache entry is
 * do_wp_page's wp_page_copy; fork shares the copies as any anonymous page;
 * MADV_DONTNEED drops them, and the next read finds the page cache again;
 * GUP's FOLL_WRITE breaks COW through the same faults, and a R/O
 * FOLL_LONGTERM pin unshares a page-cache page (gup_must_unshare in a COW
 * mapping) where a short-term one takes it as it is. Every case runs on
 * every preset: the paths are the same in every modelled release.
 */
#include "helpers.h"

#define RW (PTSIM_PROT_READ | PTSIM_PROT_WRITE)
#define LEN (16 * SZ_4K)

struct file_env {
	struct ptsim_machine *m;
	struct ptsim_mm *mm;
	unsigned int file;
	uint64_t mem;	/* MAP_PRIVATE, PROT_READ | PROT_WRITE */
	uint64_t smem;	/* a second, read-only mapping of the same pages */
};

static struct file_env file_env(const char *preset)
{
	struct file_env e;
	unsigned int fd;

	e.m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, preset);
	assert_int_equal(ptsim_mm_create(e.m, &e.mm), 0);
	assert_int_equal(ptsim_file_create(e.m, LEN, 0, &e.file), 0);
	assert_int_equal(ptsim_file_open(e.m, e.file, &fd), 0);
	assert_int_equal(ptsim_mmap_file(e.mm, 0, LEN, RW, fd, 0, &e.mem), 0);
	assert_int_equal(ptsim_mmap_file(e.mm, 0, LEN, PTSIM_PROT_READ, fd, 0, &e.smem), 0);
	return e;
}

static void file_env_done(struct file_env *e)
{
	assert_invariants(e->m);
	ptsim_mm_destroy(e->mm);
	ptsim_machine_destroy(e->m);
}

static struct ptsim_page_info page(struct ptsim_mm *mm, uint64_t va)
{
	struct ptsim_page_info pi;

	assert_int_equal(ptsim_pagemap(mm, va, &pi), 0);
	return pi;
}

/* The page-cache page of file index idx, read through the R/O mapping. */
static struct ptsim_page_info cache_page(struct file_env *e, uint64_t idx)
{
	struct ptsim_page_info pi;
	unsigned int order;

	assert_int_equal(ptsim_fault(e->mm, e->smem + idx * SZ_4K, PTSIM_ACCESS_READ), 0);
	assert_int_equal(ptsim_file_cached(e->m, e->file, idx, &order), 0);
	pi = page(e->mm, e->smem + idx * SZ_4K);
	assert_int_equal(pi.state, PTSIM_PAGE_PRESENT);
	assert_false(pi.anon);
	return pi;
}

/* The private copy at va: anonymous, exclusive, writable, dirty, mapped once, not pfn. */
static void assert_private_copy(struct ptsim_mm *mm, uint64_t va, uint64_t cache_pfn, bool writable)
{
	struct ptsim_page_info pi = page(mm, va);

	assert_int_equal(pi.state, PTSIM_PAGE_PRESENT);
	assert_true(pi.anon);
	assert_true(pi.exclusive);
	assert_int_equal(pi.mapcount, 1);
	assert_int_not_equal(pi.pfn, cache_pfn);
	assert_int_equal(pi.write, writable);
	assert_int_equal(pi.dirty, writable);
}

/* do_cow_fault: a first write copies the page-cache page; the other mapping still reads the cache. */
static void test_write_fault_copies(void **state)
{
	const char *preset;

	(void)state;
	for (unsigned int p = 0; (preset = ptsim_preset_name(p)); p++) {
		struct file_env e = file_env(preset);
		struct ptsim_page_info cache = cache_page(&e, 3);
		struct ptsim_stats st;

		assert_int_equal(ptsim_fault(e.mm, e.mem + 3 * SZ_4K, PTSIM_ACCESS_WRITE), 0);
		st = last_stats(e.m);
		assert_private_copy(e.mm, e.mem + 3 * SZ_4K, cache.pfn, true);
		/*
		 * a cache hit: one allocation, one copy, one memcg charge, one
		 * LRU add (folio_add_lru_vma and folio_add_lru), one PTE
		 */
		assert_int_equal(st.ev[PTSIM_EV_FOLIO_ALLOC], 1);
		assert_int_equal(st.ev[PTSIM_EV_PAGE_COPY], 1);
		assert_int_equal(st.ev[PTSIM_EV_MEMCG_CHARGE], 1);
		assert_int_equal(st.ev[PTSIM_EV_LRU_ADD], 2);
		assert_int_equal(st.ev[PTSIM_EV_PAGE_ZERO], 0);
		/* the cached page locked by filemap_fault, unlocked by do_cow_fault */
		assert_int_equal(st.ev[PTSIM_EV_FOLIO_TRYLOCK], 1);
		assert_int_equal(st.ev[PTSIM_EV_FOLIO_UNLOCK], 1);
		/* the page cache keeps its page, mapped by the R/O mapping alone */
		assert_int_equal(page(e.mm, e.smem + 3 * SZ_4K).pfn, cache.pfn);
		assert_int_equal(page(e.mm, e.smem + 3 * SZ_4K).mapcount, 1);
		/* a write fault is never a fault-around: the neighbours stay unmapped */
		assert_int_equal(page(e.mm, e.mem + 2 * SZ_4K).state, PTSIM_PAGE_NONE);
		assert_int_equal(page(e.mm, e.mem + 4 * SZ_4K).state, PTSIM_PAGE_NONE);
		file_env_done(&e);
	}
}

/* do_cow_fault on a page not yet cached: filemap_fault reads it (VM_FAULT_RETRY), then the copy. */
static void test_write_fault_uncached(void **state)
{
	const char *preset;

	(void)state;
	for (unsigned int p = 0; (preset = ptsim_preset_name(p)); p++) {
		struct file_env e = file_env(preset);
		struct ptsim_stats st;
		unsigned int order;

		assert_int_equal(ptsim_fault(e.mm, e.mem + 5 * SZ_4K, PTSIM_ACCESS_WRITE), 0);
		st = last_stats(e.m);
		assert_int_equal(ptsim_file_cached(e.m, e.file, 5, &order), 0);
		assert_private_copy(e.mm, e.mem + 5 * SZ_4K, cache_page(&e, 5).pfn, true);
		/* the first try's private page went back with VM_FAULT_RETRY */
		assert_int_equal(st.ev[PTSIM_EV_MEMCG_CHARGE], 2);
		assert_int_equal(st.ev[PTSIM_EV_PAGE_COPY], 1);
		assert_true(st.ev[PTSIM_EV_FOLIO_ALLOC] >= 2);
		file_env_done(&e);
	}
}

/* A read fault maps the page cache read-only; a write then goes to do_wp_page's wp_page_copy. */
static void test_read_then_write(void **state)
{
	const char *preset;

	(void)state;
	for (unsigned int p = 0; (preset = ptsim_preset_name(p)); p++) {
		struct file_env e = file_env(preset);
		struct ptsim_page_info cache = cache_page(&e, 0), pi;
		struct ptsim_stats st;

		assert_int_equal(ptsim_fault(e.mm, e.mem, PTSIM_ACCESS_READ), 0);
		pi = page(e.mm, e.mem);
		assert_int_equal(pi.pfn, cache.pfn);
		assert_false(pi.write);
		assert_false(pi.anon);
		assert_int_equal(pi.mapcount, 2);
		assert_int_equal(ptsim_fault(e.mm, e.mem, PTSIM_ACCESS_WRITE), 0);
		st = last_stats(e.m);
		assert_private_copy(e.mm, e.mem, cache.pfn, true);
		assert_int_equal(st.ev[PTSIM_EV_PAGE_COPY], 1);
		assert_int_equal(st.ev[PTSIM_EV_FOLIO_ALLOC], 1);
		/* the old entry is cleared and flushed before the copy is mapped */
		assert_true(st.ev[PTSIM_EV_DSB_ISH] >= 1);
		assert_int_equal(page(e.mm, e.smem).mapcount, 1);
		/* a second write reuses the exclusive copy */
		pi = page(e.mm, e.mem);
		assert_int_equal(ptsim_fault(e.mm, e.mem, PTSIM_ACCESS_WRITE), 0);
		assert_int_equal(page(e.mm, e.mem).pfn, pi.pfn);
		file_env_done(&e);
	}
}

/* fork shares the private copy (anon_vma: vma_needs_copy); each side's write copies its own. */
static void test_fork_shares_copy(void **state)
{
	const char *preset;

	(void)state;
	for (unsigned int p = 0; (preset = ptsim_preset_name(p)); p++) {
		struct file_env e = file_env(preset);
		struct ptsim_page_info cache = cache_page(&e, 1), copy;
		struct ptsim_mm *child;

		assert_int_equal(ptsim_fault(e.mm, e.mem + SZ_4K, PTSIM_ACCESS_WRITE), 0);
		copy = page(e.mm, e.mem + SZ_4K);
		assert_int_equal(ptsim_fork(e.mm, &child), 0);
		assert_int_equal(page(child, e.mem + SZ_4K).pfn, copy.pfn);
		assert_false(page(child, e.mem + SZ_4K).write);
		assert_false(page(e.mm, e.mem + SZ_4K).exclusive);
		assert_int_equal(ptsim_fault(child, e.mem + SZ_4K, PTSIM_ACCESS_WRITE), 0);
		assert_private_copy(child, e.mem + SZ_4K, copy.pfn, true);
		assert_int_not_equal(page(child, e.mem + SZ_4K).pfn, cache.pfn);
		assert_int_equal(page(e.mm, e.mem + SZ_4K).pfn, copy.pfn);
		/* the parent's write now reuses its page (no other mapping is left) */
		assert_int_equal(ptsim_fault(e.mm, e.mem + SZ_4K, PTSIM_ACCESS_WRITE), 0);
		assert_int_equal(page(e.mm, e.mem + SZ_4K).pfn, copy.pfn);
		assert_int_equal(ptsim_mm_exit(child), 0);
		ptsim_mm_destroy(child);
		file_env_done(&e);
	}
}

/* MADV_DONTNEED drops the private copy: the next read maps the page-cache page again. */
static void test_dontneed_drops_copy(void **state)
{
	const char *preset;

	(void)state;
	for (unsigned int p = 0; (preset = ptsim_preset_name(p)); p++) {
		struct file_env e = file_env(preset);
		struct ptsim_page_info cache = cache_page(&e, 2), pi;

		assert_int_equal(ptsim_fault(e.mm, e.mem + 2 * SZ_4K, PTSIM_ACCESS_WRITE), 0);
		assert_private_copy(e.mm, e.mem + 2 * SZ_4K, cache.pfn, true);
		assert_int_equal(ptsim_madvise(e.mm, e.mem + 2 * SZ_4K, SZ_4K, PTSIM_MADV_DONTNEED), 0);
		assert_int_equal(page(e.mm, e.mem + 2 * SZ_4K).state, PTSIM_PAGE_NONE);
		assert_int_equal(ptsim_fault(e.mm, e.mem + 2 * SZ_4K, PTSIM_ACCESS_READ), 0);
		pi = page(e.mm, e.mem + 2 * SZ_4K);
		assert_int_equal(pi.pfn, cache.pfn);
		assert_false(pi.anon);
		assert_false(pi.write);
		file_env_done(&e);
	}
}

/* GUP: FOLL_WRITE breaks COW; a R/O long-term pin unshares the page-cache page, a short-term one not. */
static void test_gup(void **state)
{
	const char *preset;

	(void)state;
	for (unsigned int p = 0; (preset = ptsim_preset_name(p)); p++) {
		struct file_env e = file_env(preset);
		struct ptsim_page_info c0 = cache_page(&e, 0), c1 = cache_page(&e, 1), c2 = cache_page(&e, 2);
		uint64_t pa;

		/* FOLL_WRITE on an empty entry: do_cow_fault, the pin holds the copy */
		assert_int_equal(ptsim_pin_user_pages(e.mm, e.mem, 1, PTSIM_FOLL_WRITE, &pa), 1);
		assert_private_copy(e.mm, e.mem, c0.pfn, true);
		assert_int_equal(pa >> 12, page(e.mm, e.mem).pfn);
		assert_int_equal(ptsim_unpin_user_page(e.m, pa), 0);

		/* R/O FOLL_LONGTERM on a mapped page-cache page: unshared to a R/O anonymous copy */
		assert_int_equal(ptsim_fault(e.mm, e.mem + SZ_4K, PTSIM_ACCESS_READ), 0);
		assert_int_equal(ptsim_pin_user_pages(e.mm, e.mem + SZ_4K, 1, PTSIM_FOLL_LONGTERM, &pa), 1);
		assert_private_copy(e.mm, e.mem + SZ_4K, c1.pfn, false);
		assert_int_equal(pa >> 12, page(e.mm, e.mem + SZ_4K).pfn);
		/* the write the pin must observe reuses the pinned exclusive page */
		assert_int_equal(ptsim_fault(e.mm, e.mem + SZ_4K, PTSIM_ACCESS_WRITE), 0);
		assert_int_equal(page(e.mm, e.mem + SZ_4K).pfn, pa >> 12);
		assert_int_equal(ptsim_unpin_user_page(e.m, pa), 0);

		/* a short-term R/O pin takes the page-cache page itself */
		assert_int_equal(ptsim_fault(e.mm, e.mem + 2 * SZ_4K, PTSIM_ACCESS_READ), 0);
		assert_int_equal(ptsim_pin_user_pages(e.mm, e.mem + 2 * SZ_4K, 1, 0, &pa), 1);
		assert_int_equal(pa >> 12, c2.pfn);
		assert_false(page(e.mm, e.mem + 2 * SZ_4K).anon);
		assert_int_equal(ptsim_unpin_user_page(e.m, pa), 0);

		/* a R/O mapping is a COW mapping too (VM_MAYWRITE): a long-term pin unshares there */
		assert_int_equal(ptsim_pin_user_pages(e.mm, e.smem + 3 * SZ_4K, 1, PTSIM_FOLL_LONGTERM, &pa), 1);
		assert_true(page(e.mm, e.smem + 3 * SZ_4K).anon);
		assert_int_equal(pa >> 12, page(e.mm, e.smem + 3 * SZ_4K).pfn);
		assert_int_equal(ptsim_unpin_user_page(e.m, pa), 0);
		file_env_done(&e);
	}
}

/*
 * MADV_PAGEOUT swaps the private copy out (an anonymous folio, whatever the
 * VMA) and a fault reads it back (do_swap_page); mlock of the writable
 * mapping populates with FOLL_WRITE (populate_vma_page_range), so it copies.
 */
static void test_pageout_and_mlock(void **state)
{
	const char *preset;

	(void)state;
	for (unsigned int p = 0; (preset = ptsim_preset_name(p)); p++) {
		struct file_env e = file_env(preset);
		struct ptsim_page_info cache = cache_page(&e, 6), pi;

		assert_int_equal(ptsim_fault(e.mm, e.mem + 6 * SZ_4K, PTSIM_ACCESS_WRITE), 0);
		assert_int_equal(ptsim_madvise(e.mm, e.mem + 6 * SZ_4K, SZ_4K, PTSIM_MADV_PAGEOUT), 0);
		assert_int_equal(page(e.mm, e.mem + 6 * SZ_4K).state, PTSIM_PAGE_SWAP);
		assert_int_equal(ptsim_fault(e.mm, e.mem + 6 * SZ_4K, PTSIM_ACCESS_READ), 0);
		pi = page(e.mm, e.mem + 6 * SZ_4K);
		assert_int_equal(pi.state, PTSIM_PAGE_PRESENT);
		assert_true(pi.anon);
		assert_int_not_equal(pi.pfn, cache.pfn);

		assert_int_equal(ptsim_mlock(e.mm, e.mem + 8 * SZ_4K, 2 * SZ_4K), 0);
		for (uint64_t i = 8; i < 10; i++)
			assert_private_copy(e.mm, e.mem + i * SZ_4K, cache_page(&e, i).pfn, true);
		file_env_done(&e);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_fault_copies),
		cmocka_unit_test(test_write_fault_uncached),
		cmocka_unit_test(test_read_then_write),
		cmocka_unit_test(test_fork_shares_copy),
		cmocka_unit_test(test_dontneed_drops_copy),
		cmocka_unit_test(test_gup),
		cmocka_unit_test(test_pageout_and_mlock),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
