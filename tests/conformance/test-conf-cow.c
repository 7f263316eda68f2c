// SPDX-License-Identifier: MIT
/*
 * Conformance with the kernel's tools/testing/selftests/mm/cow.c (David
 * Hildenbrand's COW tests), written fresh from reading it: each expectation
 * the public API can express is a test function here, named after the cow.c
 * test it replays, and runs on every preset (ptsim_preset_name) and every
 * memory setup cow.c runs it with that the model has.
 *
 * Page contents are checked as translations: a page "still holds the old
 * values" when the side that did not write still reaches the page frame (or
 * swap slot) it reached before, and the writer reaches another; a pin or a
 * vmsplice()-like FOLL_GET reference "observes" a write when the writer's
 * VA maps the very frame the pin holds. vmsplice() is ptsim_get_user_pages
 * (FOLL_GET, R/O); gup_test's PIN_LONGTERM_TEST_START is
 * ptsim_pin_user_pages(FOLL_LONGTERM); io_uring's fixed buffer is
 * ptsim_pin_user_pages(FOLL_WRITE | FOLL_LONGTERM). GUP-fast falls back to
 * the slow path in every case cow.c makes it meet (gup_must_unshare with no
 * VMA), so its variants expect what the slow ones do and are not repeated.
 *
 * Setups (cow.c's run_with_*): a base page, a swapped-out base page, a PMD
 * THP, a PTE-mapped THP (PMD THP after an mprotect of one subpage, and a
 * 64K mTHP), a single PTE of a THP, a partially mremap()'ed THP and a
 * partially shared THP. Not here: swapped-out THPs (ptsim_swapout takes
 * order-0 folios only), hugetlb (not modelled), the anonymous THP collapse
 * cases (MADV_COLLAPSE is not modelled), the huge zero page and
 * memfd_hugetlb (not modelled). The non-anonymous cases run with the
 * shared zero page and with private file mappings of a memfd and a tmpfile
 * (run_with_memfd, run_with_tmpfile, below).
 *
 * Every diagnostic fails a test but one: since v6.17 (feature
 * mprotect_pte_batching) the mprotect R/O and back that some cases do
 * re-folds the contiguous blocks of a PTE-mapped THP without a break, the
 * break-before-make finding of doc/findings.md section 1, which the model
 * reports on a CPU without BBML2 (Neoverse N1 here). It is expected there
 * and nowhere else.
 */
#include "helpers.h"

#define MAX_PAGES 512u
#define ALIGN_UP(x, a) (((x) + (a) - 1) & ~((a) - 1))
#define RW (PTSIM_PROT_READ | PTSIM_PROT_WRITE)
#define ANON (PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS)

/* One memory setup of cow.c: mem..mem+size in mm, with the machine it lives on. */
struct env {
	struct ptsim_machine *m;
	struct ptsim_mm *mm;
	uint64_t mem, size;
	const char *preset, *setup;
};

/* The diagnostics of the current setup's machine, and whether its case ran mprotect_ro_rw. */
static struct diag_log diags;
static bool mprotected;

/* What a VA reaches: its page frame, or its swap slot (high bit set); 0 for nothing. */
static uint64_t view(struct ptsim_mm *mm, uint64_t va)
{
	struct ptsim_page_info pi;

	assert_int_equal(ptsim_pagemap(mm, va, &pi), 0);
	if (pi.state == PTSIM_PAGE_PRESENT)
		return pi.pfn;
	if (pi.state == PTSIM_PAGE_SWAP)
		return UINT64_C(1) << 63 | pi.swap_offset;
	return 0;
}

static void views(const struct env *e, struct ptsim_mm *mm, uint64_t *out)
{
	for (uint64_t i = 0; i < e->size / SZ_4K; i++)
		out[i] = view(mm, e->mem + i * SZ_4K);
}

/* memset(mem, 0xff, size): a write to every page (faulting where the access would). */
static void write_all(const struct env *e, struct ptsim_mm *mm)
{
	for (uint64_t va = e->mem; va < e->mem + e->size; va += SZ_4K)
		assert_int_equal(ptsim_fault(mm, va, PTSIM_ACCESS_WRITE), 0);
}

/* The child exits (cow.c's exit(), or the child that was never needed again). */
static void child_exits(struct ptsim_mm *child)
{
	assert_int_equal(ptsim_mm_exit(child), 0);
	ptsim_mm_destroy(child);
}

static void mprotect_ro_rw(const struct env *e)
{
	mprotected = true;
	assert_int_equal(ptsim_mprotect(e->mm, e->mem, e->size, PTSIM_PROT_READ), 0);
	assert_int_equal(ptsim_mprotect(e->mm, e->mem, e->size, RW), 0);
}

/* ---- anon_test_cases ---- */

/*
 * do_test_cow_in_parent with child_memcmp_fn: fork, the parent (after
 * mprotect R/O and back, when asked) writes; the child must still read the
 * old values: it reaches the frames it reached, the parent others.
 */
static void cow_in_parent(const struct env *e, bool do_mprotect)
{
	static uint64_t before[MAX_PAGES], child_now[MAX_PAGES], parent_now[MAX_PAGES];
	struct ptsim_mm *child;

	assert_int_equal(ptsim_fork(e->mm, &child), 0);
	views(e, child, before);
	if (do_mprotect)
		mprotect_ro_rw(e);
	write_all(e, e->mm);
	views(e, child, child_now);
	views(e, e->mm, parent_now);
	for (uint64_t i = 0; i < e->size / SZ_4K; i++) {
		assert_int_equal(child_now[i], before[i]);
		assert_int_not_equal(parent_now[i], child_now[i]);
	}
	child_exits(child);
}

/* cow.c test_cow_in_parent: "Basic COW after fork()". */
static void test_cow_in_parent(const struct env *e)
{
	cow_in_parent(e, false);
}

/* cow.c test_cow_in_parent_mprotect: "Basic COW after fork() with mprotect() optimization". */
static void test_cow_in_parent_mprotect(const struct env *e)
{
	cow_in_parent(e, true);
}

/*
 * do_test_cow_in_parent with child_vmsplice_memcmp_fn (CVE-2020-29374):
 * the child takes R/O references (vmsplice) and unmaps; the parent writes;
 * the pipe must still read the old values: no page the parent now maps is
 * one the child's references hold.
 */
static void vmsplice_in_child(const struct env *e, bool do_mprotect)
{
	static uint64_t refs[MAX_PAGES], parent_now[MAX_PAGES];
	const uint64_t nr = e->size / SZ_4K;
	struct ptsim_mm *child;

	assert_int_equal(ptsim_fork(e->mm, &child), 0);
	assert_int_equal(ptsim_get_user_pages(child, e->mem, nr, 0, refs), (int64_t)nr);
	assert_int_equal(ptsim_munmap(child, e->mem, e->size), 0);
	if (do_mprotect)
		mprotect_ro_rw(e);
	write_all(e, e->mm);
	views(e, e->mm, parent_now);
	for (uint64_t i = 0; i < nr; i++) {
		assert_int_not_equal(parent_now[i], refs[i] >> 12);
		assert_int_equal(ptsim_put_page(e->m, refs[i]), 0);
	}
	child_exits(child);
}

/* cow.c test_vmsplice_in_child: "vmsplice() + unmap in child". */
static void test_vmsplice_in_child(const struct env *e)
{
	vmsplice_in_child(e, false);
}

/* cow.c test_vmsplice_in_child_mprotect: "vmsplice() + unmap in child with mprotect() optimization". */
static void test_vmsplice_in_child_mprotect(const struct env *e)
{
	vmsplice_in_child(e, true);
}

/*
 * do_test_vmsplice_in_parent: the parent takes R/O references before or
 * after fork, unmaps, and the child writes; the parent's pipe must still
 * read the old values.
 */
static void vmsplice_in_parent(const struct env *e, bool before_fork)
{
	static uint64_t refs[MAX_PAGES], child_now[MAX_PAGES];
	const uint64_t nr = e->size / SZ_4K;
	struct ptsim_mm *child;

	if (before_fork)
		assert_int_equal(ptsim_get_user_pages(e->mm, e->mem, nr, 0, refs), (int64_t)nr);
	assert_int_equal(ptsim_fork(e->mm, &child), 0);
	if (!before_fork)
		assert_int_equal(ptsim_get_user_pages(e->mm, e->mem, nr, 0, refs), (int64_t)nr);
	assert_int_equal(ptsim_munmap(e->mm, e->mem, e->size), 0);
	write_all(e, child);
	views(e, child, child_now);
	for (uint64_t i = 0; i < nr; i++) {
		assert_int_not_equal(child_now[i], refs[i] >> 12);
		assert_int_equal(ptsim_put_page(e->m, refs[i]), 0);
	}
	child_exits(child);
}

/* cow.c test_vmsplice_before_fork: "vmsplice() before fork(), unmap in parent after fork()". */
static void test_vmsplice_before_fork(const struct env *e)
{
	vmsplice_in_parent(e, true);
}

/* cow.c test_vmsplice_after_fork: "vmsplice() + unmap in parent after fork()". */
static void test_vmsplice_after_fork(const struct env *e)
{
	vmsplice_in_parent(e, false);
}

/*
 * do_test_iouring: a R/W long-term pin (io_uring's fixed buffer), then a
 * fork (the pinned pages must not be shared with the child) or an
 * mprotect R/O and back; the parent writes, and the pin must observe it.
 */
static void iouring(const struct env *e, bool use_fork)
{
	static uint64_t pins[MAX_PAGES], now[MAX_PAGES];
	const uint64_t nr = e->size / SZ_4K;
	struct ptsim_mm *child = NULL;

	assert_int_equal(ptsim_pin_user_pages(e->mm, e->mem, nr, PTSIM_FOLL_WRITE | PTSIM_FOLL_LONGTERM,
					      pins), (int64_t)nr);
	if (use_fork)
		assert_int_equal(ptsim_fork(e->mm, &child), 0);
	else
		mprotect_ro_rw(e);
	write_all(e, e->mm);
	views(e, e->mm, now);
	for (uint64_t i = 0; i < nr; i++) {
		assert_int_equal(now[i], pins[i] >> 12);
		if (child)
			assert_int_not_equal(view(child, e->mem + i * SZ_4K), now[i]);
		assert_int_equal(ptsim_unpin_user_page(e->m, pins[i]), 0);
	}
	if (child)
		child_exits(child);
}

/* cow.c test_iouring_ro: "R/O-mapping a page registered as iouring fixed buffer". */
static void test_iouring_ro(const struct env *e)
{
	iouring(e, false);
}

/* cow.c test_iouring_fork: "fork() with an iouring fixed buffer". */
static void test_iouring_fork(const struct env *e)
{
	iouring(e, true);
}

enum ro_pin_test { RO_PIN_TEST, RO_PIN_TEST_SHARED, RO_PIN_TEST_PREVIOUSLY_SHARED, RO_PIN_TEST_RO_EXCLUSIVE };

/*
 * do_test_ro_pin: a R/O long-term pin (which must unshare what is shared),
 * then a write through the page tables; the pin must observe it.
 */
static void ro_pin(const struct env *e, enum ro_pin_test test)
{
	static uint64_t pins[MAX_PAGES], now[MAX_PAGES];
	const uint64_t nr = e->size / SZ_4K;
	struct ptsim_mm *child = NULL;

	if (test == RO_PIN_TEST_SHARED || test == RO_PIN_TEST_PREVIOUSLY_SHARED)
		assert_int_equal(ptsim_fork(e->mm, &child), 0);
	if (test == RO_PIN_TEST_PREVIOUSLY_SHARED) {
		child_exits(child);
		child = NULL;
	}
	if (test == RO_PIN_TEST_RO_EXCLUSIVE)
		mprotect_ro_rw(e);
	assert_int_equal(ptsim_pin_user_pages(e->mm, e->mem, nr, PTSIM_FOLL_LONGTERM, pins), (int64_t)nr);
	write_all(e, e->mm);
	views(e, e->mm, now);
	for (uint64_t i = 0; i < nr; i++) {
		assert_int_equal(now[i], pins[i] >> 12);
		assert_int_equal(ptsim_unpin_user_page(e->m, pins[i]), 0);
	}
	if (child)
		child_exits(child);
}

/* cow.c test_ro_pin_on_shared (and test_ro_fast_pin_on_shared): "R/O GUP pin on R/O-mapped shared page". */
static void test_ro_pin_on_shared(const struct env *e)
{
	ro_pin(e, RO_PIN_TEST_SHARED);
}

/* cow.c test_ro_pin_on_ro_previously_shared (and the GUP-fast one). */
static void test_ro_pin_on_ro_previously_shared(const struct env *e)
{
	ro_pin(e, RO_PIN_TEST_PREVIOUSLY_SHARED);
}

/* cow.c test_ro_pin_on_ro_exclusive (and the GUP-fast one). */
static void test_ro_pin_on_ro_exclusive(const struct env *e)
{
	ro_pin(e, RO_PIN_TEST_RO_EXCLUSIVE);
}

/* ---- the setups (cow.c's run_with_*) ---- */

static struct env env_new(const char *preset, const char *setup, uint64_t len)
{
	struct env e = { .preset = preset, .setup = setup };

	e.m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, preset);
	memset(&diags, 0, sizeof(diags));
	mprotected = false;
	assert_int_equal(ptsim_set_diag_handler(e.m, record_diag, &diags), 0);
	assert_int_equal(ptsim_mm_create(e.m, &e.mm), 0);
	assert_int_equal(ptsim_mmap(e.mm, 0, len, RW, ANON, &e.mem), 0);
	return e;
}

/* do_run_with_base_page: one page, MADV_NOHUGEPAGE, written; swapped out (MADV_PAGEOUT) if asked. */
static struct env run_with_base_page(const char *preset, bool swapout)
{
	struct env e = env_new(preset, swapout ? "swapped-out base page" : "base page", SZ_4K);

	e.size = SZ_4K;
	assert_int_equal(ptsim_madvise(e.mm, e.mem, SZ_4K, PTSIM_MADV_NOHUGEPAGE), 0);
	write_all(&e, e.mm);
	if (swapout) {
		assert_int_equal(ptsim_swapout(e.mm, e.mem, SZ_4K), 0);
		assert_int_equal(view(e.mm, e.mem) >> 63, 1);	/* pagemap_is_swapped */
	}
	return e;
}

enum thp_run { THP_RUN_PMD, THP_RUN_PTE, THP_RUN_SINGLE_PTE, THP_RUN_PARTIAL_MREMAP, THP_RUN_PARTIAL_SHARED };

/*
 * do_run_with_thp: a THP-aligned THP of thpsize (order 9 is the PMD THP,
 * order 4 a 64K mTHP), populated whole and written, then shaped as run asks.
 */
static struct env run_with_thp(const char *preset, enum thp_run run, unsigned int order)
{
	static const char *const names[] = { "THP", "PTE-mapped THP", "single PTE of THP",
					     "partially mremap()'ed THP", "partially shared THP" };
	const uint64_t thpsize = SZ_4K << order;
	struct env e = env_new(preset, names[run], 2 * thpsize);
	struct ptsim_page_info pi;
	struct ptsim_mm *child;
	uint64_t dst;

	e.mem = ALIGN_UP(e.mem + 1, thpsize);
	e.size = thpsize;
	assert_int_equal(ptsim_madvise(e.mm, e.mem, thpsize, PTSIM_MADV_HUGEPAGE), 0);
	assert_int_equal(ptsim_populate(e.mm, e.mem, thpsize, order, true), 0);
	assert_int_equal(ptsim_pagemap(e.mm, e.mem + thpsize - SZ_4K, &pi), 0);
	assert_true(pi.state == PTSIM_PAGE_PRESENT && pi.order == order);
	switch (run) {
	case THP_RUN_PMD:
		break;
	case THP_RUN_PTE:
		/* map one subpage R/O for a moment: the PMD is split to PTEs */
		assert_int_equal(ptsim_mprotect(e.mm, e.mem + SZ_4K, SZ_4K, PTSIM_PROT_READ), 0);
		assert_int_equal(ptsim_mprotect(e.mm, e.mem + SZ_4K, SZ_4K, RW), 0);
		break;
	case THP_RUN_SINGLE_PTE:
		assert_int_equal(ptsim_madvise(e.mm, e.mem + SZ_4K, thpsize - SZ_4K, PTSIM_MADV_DONTNEED), 0);
		e.size = SZ_4K;
		break;
	case THP_RUN_PARTIAL_MREMAP:
		assert_int_equal(ptsim_mmap(e.mm, 0, thpsize / 2, PTSIM_PROT_NONE, ANON, &dst), 0);
		assert_int_equal(ptsim_mremap(e.mm, e.mem + thpsize / 2, thpsize / 2, thpsize / 2,
					      PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED, dst, &dst), 0);
		e.size = thpsize / 2;
		break;
	case THP_RUN_PARTIAL_SHARED:
		assert_int_equal(ptsim_madvise(e.mm, e.mem + SZ_4K, thpsize - SZ_4K, PTSIM_MADV_DONTFORK), 0);
		assert_int_equal(ptsim_fork(e.mm, &child), 0);
		child_exits(child);
		assert_int_equal(ptsim_madvise(e.mm, e.mem + SZ_4K, thpsize - SZ_4K, PTSIM_MADV_DOFORK), 0);
		break;
	}
	return e;
}

typedef void (*test_fn)(const struct env *e);

/* Only the batched mprotect's re-fold (doc/findings.md section 1) may have been reported. */
static void env_done(struct env *e)
{
	bool batching = false;

	assert_int_equal(ptsim_feature_get(e->m, PTSIM_FEAT_MPROTECT_PTE_BATCHING, &batching), 0);
	for (int k = 0; k < PTSIM_DIAG__COUNT; k++) {
		if (k == PTSIM_DIAG_BBM_VIOLATION && batching && mprotected)
			continue;
		if (diags.count[k])
			fail_msg("%s, %s: %u %s diagnostics", e->preset, e->setup, diags.count[k],
				 ptsim_diag_kind_name((enum ptsim_diag_kind)k));
	}
	assert_invariants(e->m);
	ptsim_mm_destroy(e->mm);
	ptsim_machine_destroy(e->m);
}

/* run_anon_test_case: fn with every setup the model has, on every preset. */
static void run_anon_test_case(test_fn fn)
{
	static const unsigned int orders[] = { 9, 4 };	/* the PMD THP and a 64K mTHP */
	const char *preset;

	for (unsigned int p = 0; (preset = ptsim_preset_name(p)); p++) {
		struct env e;

		for (int swap = 0; swap < 2; swap++) {
			e = run_with_base_page(preset, swap);
			fn(&e);
			env_done(&e);
		}
		for (size_t o = 0; o < sizeof(orders) / sizeof(orders[0]); o++) {
			for (int run = THP_RUN_PMD; run <= THP_RUN_PARTIAL_SHARED; run++) {
				if (run == THP_RUN_PMD && orders[o] != 9)
					continue;	/* cow.c: only the PMD size runs with a PMD-mapped THP */
				e = run_with_thp(preset, (enum thp_run)run, orders[o]);
				fn(&e);
				env_done(&e);
			}
		}
	}
}

#define ANON_CASE(name) \
	static void run_##name(void **state) { (void)state; run_anon_test_case(name); }

ANON_CASE(test_cow_in_parent)
ANON_CASE(test_cow_in_parent_mprotect)
ANON_CASE(test_vmsplice_in_child)
ANON_CASE(test_vmsplice_in_child_mprotect)
ANON_CASE(test_vmsplice_before_fork)
ANON_CASE(test_vmsplice_after_fork)
ANON_CASE(test_iouring_ro)
ANON_CASE(test_iouring_fork)
ANON_CASE(test_ro_pin_on_shared)
ANON_CASE(test_ro_pin_on_ro_previously_shared)
ANON_CASE(test_ro_pin_on_ro_exclusive)

/* ---- non_anon_test_cases, with the shared zero page (run_with_zeropage) ---- */

/* A private writable page and a private R/O one, both reading the shared zero page. */
static void run_with_zeropage(const char *preset, struct env *e, uint64_t *smem)
{
	*e = env_new(preset, "shared zeropage", SZ_4K);
	e->size = SZ_4K;
	assert_int_equal(ptsim_mmap(e->mm, 0, SZ_4K, PTSIM_PROT_READ, ANON, smem), 0);
	assert_int_equal(ptsim_fault(e->mm, e->mem, PTSIM_ACCESS_READ), 0);
	assert_int_equal(ptsim_fault(e->mm, *smem, PTSIM_ACCESS_READ), 0);
	assert_int_equal(view(e->mm, e->mem), view(e->mm, *smem));	/* both the zero page */
}

/* cow.c test_cow ("Basic COW") with the shared zeropage: the other mapping is not modified. */
static void test_cow_zeropage(void **state)
{
	const char *preset;

	(void)state;
	for (unsigned int p = 0; (preset = ptsim_preset_name(p)); p++) {
		struct env e;
		uint64_t smem, old;

		run_with_zeropage(preset, &e, &smem);
		old = view(e.mm, smem);
		write_all(&e, e.mm);
		assert_int_equal(view(e.mm, smem), old);
		assert_int_not_equal(view(e.mm, e.mem), old);
		env_done(&e);
	}
}

/*
 * cow.c test_ro_pin ("R/O longterm GUP pin", and the GUP-fast one) with the
 * shared zeropage: the pin must observe a later write (the pin unshares the
 * zero page of the private mapping first).
 */
static void test_ro_pin_zeropage(void **state)
{
	const char *preset;

	(void)state;
	for (unsigned int p = 0; (preset = ptsim_preset_name(p)); p++) {
		struct env e;
		uint64_t smem, pin;

		run_with_zeropage(preset, &e, &smem);
		assert_int_equal(ptsim_pin_user_pages(e.mm, e.mem, 1, PTSIM_FOLL_LONGTERM, &pin), 1);
		write_all(&e, e.mm);
		assert_int_equal(view(e.mm, e.mem), pin >> 12);
		assert_int_equal(ptsim_unpin_user_page(e.m, pin), 0);
		env_done(&e);
	}
}

/* ---- non_anon_test_cases with private file mappings (run_with_memfd, run_with_tmpfile) ---- */

/*
 * cow.c's file setups: a one-page file (memfd_create or tmpfile, fallocated:
 * a page of zeroes in the page cache), mapped MAP_PRIVATE read-write at mem
 * and read-only at smem, both read once to fault the page in. The model's
 * files are page-cache files read through filemap_fault: the memfd's shmem
 * page and the tmpfile's page both become a page-cache page that the first
 * read brings in, and smem, cow.c's MAP_SHARED read-only mapping, is a
 * read-only file mapping (ptsim_mmap_file is MAP_PRIVATE), which maps the
 * same page-cache page for reading as do_read_fault does for both.
 */
static void run_with_file(const char *preset, const char *setup, struct env *e, uint64_t *smem)
{
	unsigned int file, fd;

	memset(e, 0, sizeof(*e));
	e->preset = preset;
	e->setup = setup;
	e->m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, preset);
	memset(&diags, 0, sizeof(diags));
	mprotected = false;
	assert_int_equal(ptsim_set_diag_handler(e->m, record_diag, &diags), 0);
	assert_int_equal(ptsim_mm_create(e->m, &e->mm), 0);
	assert_int_equal(ptsim_file_create(e->m, SZ_4K, 0, &file), 0);
	assert_int_equal(ptsim_file_open(e->m, file, &fd), 0);
	assert_int_equal(ptsim_mmap_file(e->mm, 0, SZ_4K, RW, fd, 0, &e->mem), 0);
	assert_int_equal(ptsim_mmap_file(e->mm, 0, SZ_4K, PTSIM_PROT_READ, fd, 0, smem), 0);
	e->size = SZ_4K;
	assert_int_equal(ptsim_fault(e->mm, e->mem, PTSIM_ACCESS_READ), 0);
	assert_int_equal(ptsim_fault(e->mm, *smem, PTSIM_ACCESS_READ), 0);
	assert_int_equal(view(e->mm, e->mem), view(e->mm, *smem));	/* both the page-cache page */
}

static const char *const file_setups[] = { "memfd", "tmpfile" };

/*
 * cow.c test_cow ("Basic COW") with memfd and tmpfile: the write to the
 * private mapping (do_wp_page's wp_page_copy of the mapped page-cache page)
 * must leave the other mapping reading the old page.
 */
static void test_cow_file(void **state)
{
	const char *preset;

	(void)state;
	for (unsigned int p = 0; (preset = ptsim_preset_name(p)); p++) {
		for (size_t k = 0; k < sizeof(file_setups) / sizeof(file_setups[0]); k++) {
			struct env e;
			uint64_t smem, old;

			run_with_file(preset, file_setups[k], &e, &smem);
			old = view(e.mm, smem);
			write_all(&e, e.mm);
			assert_int_equal(view(e.mm, smem), old);
			assert_int_not_equal(view(e.mm, e.mem), old);
			env_done(&e);
		}
	}
}

/*
 * cow.c test_ro_pin and test_ro_fast_pin ("R/O longterm GUP pin", "R/O
 * longterm GUP-fast pin") with memfd and tmpfile: the R/O long-term pin of
 * the private mapping's page-cache page must unshare it (gup_must_unshare:
 * a non-anonymous page in a COW mapping), so that it observes the later
 * write. GUP-fast refuses a page without a VMA to ask and falls back to the
 * same slow path.
 */
static void test_ro_pin_file(void **state)
{
	const char *preset;

	(void)state;
	for (unsigned int p = 0; (preset = ptsim_preset_name(p)); p++) {
		for (size_t k = 0; k < sizeof(file_setups) / sizeof(file_setups[0]); k++) {
			struct env e;
			uint64_t smem, cache, pin;

			run_with_file(preset, file_setups[k], &e, &smem);
			cache = view(e.mm, smem);
			assert_int_equal(ptsim_pin_user_pages(e.mm, e.mem, 1, PTSIM_FOLL_LONGTERM, &pin), 1);
			write_all(&e, e.mm);
			assert_int_equal(view(e.mm, e.mem), pin >> 12);
			assert_int_equal(view(e.mm, smem), cache);	/* the file is not modified */
			assert_int_equal(ptsim_unpin_user_page(e.m, pin), 0);
			env_done(&e);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(run_test_cow_in_parent),
		cmocka_unit_test(run_test_cow_in_parent_mprotect),
		cmocka_unit_test(run_test_vmsplice_in_child),
		cmocka_unit_test(run_test_vmsplice_in_child_mprotect),
		cmocka_unit_test(run_test_vmsplice_before_fork),
		cmocka_unit_test(run_test_vmsplice_after_fork),
		cmocka_unit_test(run_test_iouring_ro),
		cmocka_unit_test(run_test_iouring_fork),
		cmocka_unit_test(run_test_ro_pin_on_shared),
		cmocka_unit_test(run_test_ro_pin_on_ro_previously_shared),
		cmocka_unit_test(run_test_ro_pin_on_ro_exclusive),
		cmocka_unit_test(test_cow_zeropage),
		cmocka_unit_test(test_ro_pin_zeropage),
		cmocka_unit_test(test_cow_file),
		cmocka_unit_test(test_ro_pin_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
