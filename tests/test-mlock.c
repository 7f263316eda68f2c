// SPDX-License-Identifier: MIT
/*
 * mlock and munlock as mm/mlock.c and mm/gup.c do them (do_mlock,
 * apply_vma_lock_flags, __mm_populate, populate_vma_page_range,
 * __get_user_pages, __mlock_posix_error_return), and the argument rules
 * madvise, mlock and mremap share with the kernel (do_madvise's length,
 * mmap_min_addr).
 */
#include "helpers.h"

#define VA	(UINT64_C(1) << 32)
#define NR	64	/* pages of the test VMAs */

/* Any diagnostic fails the test: none of these paths may raise one. */
static void no_diag(const struct ptsim_diag *d, void *arg)
{
	(void)arg;
	fail_msg("unexpected diagnostic of kind %d", (int)d->kind);
}

static struct ptsim_machine *machine_phys(uint64_t host_limit, uint64_t phys_size)
{
	struct ptsim_machine_config cfg;
	struct ptsim_machine *m = NULL;

	ptsim_machine_config_init(&cfg);
	cfg.host_memory_limit = host_limit;
	if (phys_size)
		cfg.phys_size = phys_size;
	assert_int_equal(ptsim_machine_create(&cfg, &m), 0);
	assert_int_equal(ptsim_set_diag_handler(m, no_diag, NULL), 0);
	return m;
}

static struct ptsim_machine *machine(uint64_t host_limit)
{
	return machine_phys(host_limit, 0);
}

static struct ptsim_mm *mm_with(struct ptsim_machine *m, uint64_t addr, uint64_t len,
				unsigned int prot)
{
	struct ptsim_mm *mm = NULL;

	assert_int_equal(ptsim_mm_create(m, &mm), 0);
	assert_int_equal(ptsim_mmap(mm, addr, len, prot, PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS,
				    NULL), 0);
	return mm;
}

static bool locked(const struct ptsim_mm *mm, uint64_t addr)
{
	const struct vma *v = find_vma(mm, addr);

	assert_non_null(v);
	return v->flags & VM_LOCKED;
}

static unsigned int mapped_pages(const struct ptsim_mm *mm, uint64_t addr, unsigned int nr)
{
	struct ptsim_translation tr;
	unsigned int n = 0;

	for (unsigned int i = 0; i < nr; i++)
		n += ptsim_translate(mm, addr + i * SZ_4K, &tr) == 0;
	return n;
}

/* The totals grew by exactly the last operation's counts. */
static void assert_totals_took(const struct ptsim_machine *m, const struct ptsim_stats *before)
{
	struct ptsim_stats now, last;

	assert_int_equal(ptsim_total_stats(m, &now), 0);
	assert_int_equal(ptsim_last_stats(m, &last), 0);
	for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++)
		assert_int_equal(now.ev[e], before->ev[e] + last.ev[e]);
}

static void assert_dump(const struct ptsim_mm *mm, const char *dump)
{
	char *now = ptdump_string(mm);

	assert_string_equal(now, dump);
	free(now);
}

static void assert_totals_same(const struct ptsim_machine *m, const struct ptsim_stats *before)
{
	struct ptsim_stats now;

	assert_int_equal(ptsim_total_stats(m, &now), 0);
	assert_memory_equal(&now, before, sizeof(now));
}

/*
 * An exec-only VMA is populated: populate_vma_page_range reads it with
 * FOLL_FORCE, which check_vma_flags allows for VM_MAYREAD, and the read
 * fault maps the zero page, one fault and one follow-up lookup per page.
 */
static void test_mlock_exec_only(void **state)
{
	struct ptsim_machine *m = machine(0);
	struct ptsim_mm *mm = mm_with(m, VA, NR * SZ_4K, PTSIM_PROT_EXEC);
	struct ptsim_translation tr;
	struct ptsim_stats before;

	(void)state;
	ptsim_total_stats(m, &before);
	assert_int_equal(ptsim_mlock(mm, VA, NR * SZ_4K), 0);
	assert_true(locked(mm, VA));
	assert_int_equal(mapped_pages(mm, VA, NR), NR);
	assert_int_equal(ptsim_translate(mm, VA, &tr), 0);
	assert_true(tr.valid && tr.read_only && !tr.uxn);
	assert_int_equal(ev(m, PTSIM_EV_FAULT), NR);
	assert_int_equal(ev(m, PTSIM_EV_FOLIO_LOOKUP), NR);
	assert_int_equal(ev(m, PTSIM_EV_PTE_WRITE), NR);
	assert_int_equal(ev(m, PTSIM_EV_SYSCALL), 1);
	assert_totals_took(m, &before);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/*
 * PROT_NONE: populate_vma_page_range refuses it (-EFAULT), __mm_populate
 * stops there, and mlock reports -ENOMEM (__mlock_posix_error_return). The
 * VMAs stay locked and the totals count the call; the VMA after the
 * PROT_NONE one is not populated.
 */
static void test_mlock_prot_none(void **state)
{
	struct ptsim_machine *m = machine(0);
	struct ptsim_mm *mm = mm_with(m, VA, NR * SZ_4K, PTSIM_PROT_NONE);
	struct ptsim_stats before;

	(void)state;
	assert_int_equal(ptsim_mmap(mm, VA + NR * SZ_4K, NR * SZ_4K, PTSIM_PROT_READ,
				    PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL), 0);
	ptsim_total_stats(m, &before);
	assert_int_equal(ptsim_mlock(mm, VA, 2 * NR * SZ_4K), -ENOMEM);
	assert_true(locked(mm, VA));
	assert_true(locked(mm, VA + NR * SZ_4K));
	assert_int_equal(mapped_pages(mm, VA, 2 * NR), 0);
	assert_int_equal(ev(m, PTSIM_EV_FAULT), 0);
	assert_int_equal(ev(m, PTSIM_EV_SYSCALL), 1);
	assert_totals_took(m, &before);
	/* the read-only VMA alone populates */
	assert_int_equal(ptsim_mlock(mm, VA + NR * SZ_4K, NR * SZ_4K), 0);
	assert_int_equal(mapped_pages(mm, VA + NR * SZ_4K, NR), NR);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/*
 * A file VMA past EOF: the fault of the first page past it is a SIGBUS
 * (-EFAULT). __get_user_pages returns the pages before it, __mm_populate
 * starts again at the failing page, whose fault fails again, and mlock
 * returns -ENOMEM. The VMA stays locked with the pages before EOF mapped,
 * and the totals count all of it.
 */
static void test_mlock_file_past_eof(void **state)
{
	struct ptsim_machine *m = machine(0);
	struct ptsim_mm *mm = NULL;
	struct ptsim_stats before;
	unsigned int f, fd;
	uint64_t addr;

	(void)state;
	assert_int_equal(ptsim_mm_create(m, &mm), 0);
	assert_int_equal(ptsim_file_create(m, 2 * SZ_4K, 0, &f), 0);
	assert_int_equal(ptsim_file_open(m, f, &fd), 0);
	assert_int_equal(ptsim_mmap_file(mm, VA, 4 * SZ_4K, PTSIM_PROT_READ, fd, 0, &addr), 0);
	assert_int_equal(addr, VA);
	ptsim_total_stats(m, &before);
	assert_int_equal(ptsim_mlock(mm, VA, 4 * SZ_4K), -ENOMEM);
	assert_true(locked(mm, VA));
	assert_int_equal(mapped_pages(mm, VA, 2), 2);
	assert_int_equal(mapped_pages(mm, VA + 2 * SZ_4K, 2), 0);
	/* page 0 (fault-around maps page 1 too), then page 2 twice */
	assert_int_equal(ev(m, PTSIM_EV_FAULT), 3);
	assert_int_equal(ev(m, PTSIM_EV_FOLIO_LOOKUP), 2);
	assert_totals_took(m, &before);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/*
 * A populate that runs out of simulated memory: the fault's -ENOMEM ends a
 * short __get_user_pages, the populate starts again at that page, fails
 * there again, and mlock returns -EAGAIN (__mlock_posix_error_return). The
 * VMA stays locked, what was faulted stays, and the totals count it.
 */
static void test_mlock_populate_oom(void **state)
{
	struct ptsim_machine *m = machine_phys(0, 2 * SZ_2M);
	struct ptsim_mm *mm = mm_with(m, VA, 2 * SZ_2M, PTSIM_PROT_READ | PTSIM_PROT_WRITE);
	struct ptsim_stats before;
	unsigned int n;

	(void)state;
	ptsim_total_stats(m, &before);
	assert_int_equal(ptsim_mlock(mm, VA, 2 * SZ_2M), -EAGAIN);
	assert_true(locked(mm, VA));
	n = mapped_pages(mm, VA, 1024);
	assert_true(n > 0 && n < 1024);
	assert_int_equal(ev(m, PTSIM_EV_FAULT), n + 2);
	assert_int_equal(ev(m, PTSIM_EV_FOLIO_LOOKUP), n);
	assert_totals_took(m, &before);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/*
 * One failed allocation in the populate: the page that failed is faulted
 * again when __mm_populate goes on from it, and this time it succeeds.
 */
static void test_mlock_populate_transient_oom(void **state)
{
	struct ptsim_machine *m = machine(0);
	struct ptsim_mm *mm = mm_with(m, VA, NR * SZ_4K, PTSIM_PROT_READ | PTSIM_PROT_WRITE);

	(void)state;
	assert_int_equal(ptsim_fail_nth_alloc(m, 10), 0);
	assert_int_equal(ptsim_mlock(mm, VA, NR * SZ_4K), 0);
	assert_int_equal(mapped_pages(mm, VA, NR), NR);
	assert_int_equal(ev(m, PTSIM_EV_FAULT), NR + 1);
	assert_int_equal(ev(m, PTSIM_EV_FOLIO_LOOKUP), NR);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/*
 * mlock and munlock whose VMA split fails (the PMD THP an edge cuts needs a
 * PTE table) change nothing, totals included.
 */
static void test_mlock_split_enomem(void **state)
{
	struct ptsim_machine *m = machine(0);
	struct ptsim_mm *mm = mm_with(m, VA, 2 * SZ_2M, PTSIM_PROT_READ | PTSIM_PROT_WRITE);
	struct ptsim_stats before;
	char *dump;

	(void)state;
	assert_int_equal(ptsim_populate(mm, VA, SZ_2M, 9, true), 0);
	dump = ptdump_string(mm);
	ptsim_total_stats(m, &before);
	assert_int_equal(ptsim_fail_nth_alloc(m, 1), 0);
	assert_int_equal(ptsim_mlock(mm, VA + SZ_4K, SZ_4K), -ENOMEM);
	assert_false(locked(mm, VA));
	assert_int_equal(mm->nr_vmas, 1);
	assert_dump(mm, dump);
	assert_totals_same(m, &before);
	/* lock it whole, then fail the munlock of a page inside the THP */
	assert_int_equal(ptsim_fail_nth_alloc(m, 0), 0);
	assert_int_equal(ptsim_mlock(mm, VA, 2 * SZ_2M), 0);
	free(dump);
	dump = ptdump_string(mm);
	ptsim_total_stats(m, &before);
	assert_int_equal(ptsim_fail_nth_alloc(m, 1), 0);
	assert_int_equal(ptsim_munlock(mm, VA + SZ_4K, SZ_4K), -ENOMEM);
	assert_int_equal(ptsim_fail_nth_alloc(m, 0), 0);
	assert_true(locked(mm, VA));
	assert_int_equal(mm->nr_vmas, 1);
	assert_dump(mm, dump);
	assert_totals_same(m, &before);
	free(dump);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/*
 * A read-only range too large for the host-memory limit fails at once with
 * -ENOMEM, before it locks or maps anything; under the limit it populates.
 */
static void test_mlock_host_limit(void **state)
{
	struct ptsim_machine *m = machine(UINT64_C(8) << 20);
	struct ptsim_mm *mm = mm_with(m, VA, 64 * SZ_1G, PTSIM_PROT_READ);
	struct ptsim_stats before;
	uint64_t host, host_after, allocs, allocs_after;

	(void)state;
	ptsim_total_stats(m, &before);
	ptsim_machine_host_bytes(m, &host);
	ptsim_alloc_count(m, &allocs);
	assert_int_equal(ptsim_mlock(mm, VA, 64 * SZ_1G), -ENOMEM);
	ptsim_machine_host_bytes(m, &host_after);
	ptsim_alloc_count(m, &allocs_after);
	assert_int_equal(host_after, host);
	assert_int_equal(allocs_after, allocs);
	assert_false(locked(mm, VA));
	assert_int_equal(mapped_pages(mm, VA, 1), 0);
	assert_totals_same(m, &before);
	assert_int_equal(ptsim_mlock(mm, VA, 4 * SZ_2M), 0);
	assert_int_equal(ev(m, PTSIM_EV_FAULT), 4 * 512);
	assert_int_equal(ev(m, PTSIM_EV_TABLE_ALLOC), 4 + 2);	/* PTE tables, a PMD and a PUD table */
	assert_int_equal(mapped_pages(mm, VA, 4 * 512), 4 * 512);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/*
 * Issue 40 items 3 and 11. mlockall(MCL_CURRENT) populates with mm_populate,
 * which skips holes and VMAs it cannot populate: the host-memory bound must
 * look past the hole below the first VMA and past a PROT_NONE one, so the
 * 64 GiB read-only VMA fails at once as mlock's does. MLOCK_ONFAULT and
 * MCL_CURRENT | MCL_ONFAULT populate nothing: under the same cap they lock.
 */
static void test_mlockall_host_limit(void **state)
{
	struct ptsim_machine *m = machine(UINT64_C(8) << 20);
	struct ptsim_mm *mm = mm_with(m, VA, SZ_2M, PTSIM_PROT_NONE);
	struct ptsim_stats before;
	uint64_t host, host_after;

	(void)state;
	assert_int_equal(ptsim_mmap(mm, VA + SZ_1G, 64 * SZ_1G, PTSIM_PROT_READ,
				    PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL), 0);
	ptsim_total_stats(m, &before);
	ptsim_machine_host_bytes(m, &host);
	assert_int_equal(ptsim_mlockall(mm, PTSIM_MCL_CURRENT), -ENOMEM);
	ptsim_machine_host_bytes(m, &host_after);
	assert_int_equal(host_after, host);
	assert_false(locked(mm, VA + SZ_1G));
	assert_int_equal(mapped_pages(mm, VA + SZ_1G, 1), 0);
	assert_totals_same(m, &before);
	/* nothing populated: both lock, and still nothing is mapped */
	assert_int_equal(ptsim_mlock2(mm, VA + SZ_1G, 64 * SZ_1G, PTSIM_MLOCK_ONFAULT), 0);
	assert_true(locked(mm, VA + SZ_1G));
	assert_int_equal(ptsim_munlock(mm, VA + SZ_1G, 64 * SZ_1G), 0);
	assert_int_equal(ptsim_mlockall(mm, PTSIM_MCL_CURRENT | PTSIM_MCL_ONFAULT), 0);
	assert_true(locked(mm, VA + SZ_1G));
	assert_int_equal(mapped_pages(mm, VA + SZ_1G, 1), 0);
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/*
 * Issue 40 item 3, without a host cap: the page tables a read-only populate
 * needs come from the machine's memory (pte_alloc). A 1 TiB read-only VMA
 * needs 524,288 PTE tables, 2 GiB, on a machine of 1 GiB: mlock and
 * mlockall fail at once with -ENOMEM and change nothing (before, they built
 * tables for minutes and gigabytes of host memory).
 */
static void test_mlock_bounded_by_machine_memory(void **state)
{
	struct ptsim_machine *m = machine_phys(0, SZ_1G);
	struct ptsim_mm *mm = mm_with(m, VA, UINT64_C(1) << 40, PTSIM_PROT_READ);
	struct ptsim_stats before;

	(void)state;
	ptsim_total_stats(m, &before);
	assert_int_equal(ptsim_mlock(mm, VA, UINT64_C(1) << 40), -ENOMEM);
	assert_int_equal(ptsim_mlockall(mm, PTSIM_MCL_CURRENT), -ENOMEM);
	assert_totals_same(m, &before);
	assert_false(locked(mm, VA));
	/* 1 GiB of it needs 512 tables, 2 MiB: that fits */
	assert_int_equal(ptsim_mlock(mm, VA, SZ_1G), 0);
	assert_int_equal(mapped_pages(mm, VA, 1), 1);
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/*
 * Length 0 at an aligned start is an empty range: do_mlock, munlock and
 * do_madvise succeed doing nothing but the syscall. At an unaligned start
 * mlock's range widens to the page it starts in.
 */
static void test_len_zero(void **state)
{
	struct ptsim_machine *m = machine(0);
	struct ptsim_mm *mm = mm_with(m, VA, NR * SZ_4K, PTSIM_PROT_READ);
	char *dump = ptdump_string(mm), *now;

	(void)state;
	assert_int_equal(ptsim_mlock(mm, VA, 0), 0);
	assert_int_equal(ev(m, PTSIM_EV_SYSCALL), 1);
	assert_int_equal(ev(m, PTSIM_EV_FAULT), 0);
	assert_int_equal(ptsim_munlock(mm, VA, 0), 0);
	assert_int_equal(ev(m, PTSIM_EV_SYSCALL), 1);
	assert_int_equal(ptsim_madvise(mm, VA, 0, PTSIM_MADV_DONTNEED), 0);
	assert_int_equal(ev(m, PTSIM_EV_SYSCALL), 1);
	assert_int_equal(ptsim_madvise(mm, VA, 0, PTSIM_MADV_WIPEONFORK), 0);
	assert_int_equal(ptsim_mlock(mm, 2 * VA, 0), 0);	/* nothing mapped there: still empty */
	assert_false(locked(mm, VA));
	assert_int_equal(mm->nr_vmas, 1);
	now = ptdump_string(mm);
	assert_string_equal(now, dump);
	free(now);
	/* unknown advice is -EINVAL even for an empty range */
	assert_int_equal(ptsim_madvise(mm, VA, 0, 12345), -EINVAL);
	assert_int_equal(ptsim_mlock(mm, VA + 1, 0), 0);
	assert_true(locked(mm, VA));
	assert_false(locked(mm, VA + SZ_4K));
	assert_int_equal(mm->nr_vmas, 2);
	assert_int_equal(mapped_pages(mm, VA, NR), 1);
	free(dump);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/* do_madvise rounds the length up to pages (PAGE_ALIGN(len_in)). */
static void test_madvise_len_rounds_up(void **state)
{
	struct ptsim_machine *m = machine(0);
	struct ptsim_mm *mm = mm_with(m, VA, NR * SZ_4K, PTSIM_PROT_READ | PTSIM_PROT_WRITE);

	(void)state;
	assert_int_equal(ptsim_populate(mm, VA, NR * SZ_4K, 0, true), 0);
	assert_int_equal(ptsim_madvise(mm, VA, SZ_4K + 1, PTSIM_MADV_DONTNEED), 0);
	assert_int_equal(mapped_pages(mm, VA, NR), NR - 2);
	assert_int_equal(mapped_pages(mm, VA + 2 * SZ_4K, 1), 1);
	/* flag advice: the VMA splits at the rounded end */
	assert_int_equal(ptsim_madvise(mm, VA, 3 * SZ_4K - 5, PTSIM_MADV_DONTFORK), 0);
	assert_int_equal(mm->nr_vmas, 2);
	assert_int_equal(find_vma(mm, VA)->end, VA + 3 * SZ_4K);
	/* a length that rounds up past the end of the address space wraps: -EINVAL */
	assert_int_equal(ptsim_madvise(mm, VA, UINT64_MAX - VA, PTSIM_MADV_DONTNEED), -EINVAL);
	assert_int_equal(ptsim_madvise(mm, VA + 1, SZ_4K, PTSIM_MADV_DONTNEED), -EINVAL);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/*
 * mremap to a fixed address below mmap_min_addr (4096, the kernel's
 * default): get_unmapped_area's security_mmap_addr refuses it with -EPERM
 * and nothing changes; at mmap_min_addr it moves.
 */
static void test_mremap_fixed_below_min_addr(void **state)
{
	struct ptsim_machine *m = machine(0);
	struct ptsim_mm *mm = mm_with(m, VA, 4 * SZ_4K, PTSIM_PROT_READ | PTSIM_PROT_WRITE);
	const unsigned int fixed = PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED;
	struct ptsim_stats before;
	struct ptsim_translation tr;
	char *dump, *now;
	uint64_t out = 1;

	(void)state;
	assert_int_equal(ptsim_populate(mm, VA, 4 * SZ_4K, 0, true), 0);
	dump = ptdump_string(mm);
	ptsim_total_stats(m, &before);
	assert_int_equal(ptsim_mremap(mm, VA, 4 * SZ_4K, 4 * SZ_4K, fixed, 0, &out), -EPERM);
	assert_int_equal(out, 1);
	now = ptdump_string(mm);
	assert_string_equal(now, dump);
	free(now);
	assert_totals_same(m, &before);
	assert_int_equal(ptsim_translate(mm, 0, &tr), -ENOENT);
	assert_string_equal(ptsim_strerror(-EPERM), "operation not permitted");
	assert_int_equal(ptsim_mremap(mm, VA, 4 * SZ_4K, 4 * SZ_4K, fixed, SZ_4K, &out), 0);
	assert_int_equal(out, SZ_4K);
	assert_int_equal(mapped_pages(mm, SZ_4K, 4), 4);
	free(dump);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/* The folio record mapped at va is mlocked (FOLIO_MLOCKED: mlock_folio / mlock_new_folio). */
static bool folio_mlocked(const struct ptsim_mm *mm, uint64_t va)
{
	struct ptsim_translation tr;

	assert_int_equal(ptsim_translate(mm, va, &tr), 0);
	return pfn_folio(mm->m, tr.pa >> 12)->flags & FOLIO_MLOCKED;
}

/*
 * A fault in a VM_LOCKED VMA mlocks the new folio (v6.12
 * folio_add_lru_vma -> mlock_new_folio): after mlock's populate every page
 * is mlocked, and a fault after mlock2(MLOCK_ONFAULT) mlocks its page.
 */
static void test_fault_mlocks_new_folio(void **state)
{
	struct ptsim_machine *m = machine(0);
	struct ptsim_mm *mm = mm_with(m, VA, NR * SZ_4K, PTSIM_PROT_READ | PTSIM_PROT_WRITE);

	(void)state;
	assert_int_equal(ptsim_mlock(mm, VA, NR * SZ_4K), 0);
	for (unsigned int i = 0; i < NR; i++)
		assert_true(folio_mlocked(mm, VA + i * SZ_4K));
	assert_int_equal(ptsim_munlock(mm, VA, NR * SZ_4K), 0);
	assert_false(folio_mlocked(mm, VA));
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/*
 * mlock2(MLOCK_ONFAULT): VM_LOCKED | VM_LOCKONFAULT and no populate
 * (populate_vma_page_range returns at once for VM_LOCKONFAULT); the page
 * mapped before is mlocked by the walk (one mlock_folio), a later fault
 * mlocks its folio. mlock over it then only clears VM_LOCKONFAULT: no page
 * walk (mlock_fixup: "mlocking twice would be wrong"), and the VMA, no longer
 * VM_LOCKONFAULT, is populated: __mm_populate faults the rest in.
 */
static void test_mlock2_onfault(void **state)
{
	struct ptsim_machine *m = machine(0);
	struct ptsim_mm *mm = mm_with(m, VA, NR * SZ_4K, PTSIM_PROT_READ | PTSIM_PROT_WRITE);
	const struct vma *v;

	(void)state;
	assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_WRITE), 0);
	assert_false(folio_mlocked(mm, VA));
	assert_int_equal(ptsim_mlock2(mm, VA, NR * SZ_4K, PTSIM_MLOCK_ONFAULT), 0);
	v = find_vma(mm, VA);
	assert_int_equal(v->flags & VM_LOCKED_MASK, VM_LOCKED | VM_LOCKONFAULT);
	assert_int_equal(ev(m, PTSIM_EV_FAULT), 0);
	assert_int_equal(ev(m, PTSIM_EV_MLOCK_FOLIO), 1);
	assert_int_equal(ev(m, PTSIM_EV_SYSCALL), 1);
	assert_int_equal(mapped_pages(mm, VA, NR), 1);
	assert_true(folio_mlocked(mm, VA));
	assert_int_equal(ptsim_fault(mm, VA + SZ_4K, PTSIM_ACCESS_WRITE), 0);
	assert_true(folio_mlocked(mm, VA + SZ_4K));
	/* already VM_LOCKED: the flags change, the pages are not walked again */
	assert_int_equal(ptsim_mlock(mm, VA, NR * SZ_4K), 0);
	v = find_vma(mm, VA);
	assert_int_equal(v->flags & VM_LOCKED_MASK, VM_LOCKED);
	assert_int_equal(ev(m, PTSIM_EV_MLOCK_FOLIO), 0);
	assert_int_equal(ev(m, PTSIM_EV_FAULT), NR - 2);
	assert_int_equal(mapped_pages(mm, VA, NR), NR);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/*
 * mlockall / munlockall (apply_mlockall_flags): MCL_CURRENT locks and
 * populates every VMA, a PROT_NONE one is locked, left unpopulated and is
 * not an error (mm_populate ignores errors); MCL_FUTURE makes the next mmap
 * locked and populated, MCL_FUTURE | MCL_ONFAULT locked on fault and not
 * populated; munlockall unlocks everything and clears mm->def_flags.
 */
static void test_mlockall(void **state)
{
	struct ptsim_machine *m = machine(0);
	struct ptsim_mm *mm = mm_with(m, VA, NR * SZ_4K, PTSIM_PROT_READ | PTSIM_PROT_WRITE);
	const uint64_t b = VA + 2 * NR * SZ_4K, c = VA + 4 * NR * SZ_4K, d = VA + 6 * NR * SZ_4K;

	(void)state;
	assert_int_equal(ptsim_mmap(mm, b, NR * SZ_4K, PTSIM_PROT_NONE,
				    PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL), 0);
	assert_int_equal(ptsim_mlockall(mm, PTSIM_MCL_CURRENT), 0);
	assert_true(locked(mm, VA) && locked(mm, b));
	assert_int_equal(mapped_pages(mm, VA, NR), NR);
	assert_int_equal(mapped_pages(mm, b, NR), 0);
	assert_int_equal(ev(m, PTSIM_EV_FAULT), NR);
	assert_int_equal(ev(m, PTSIM_EV_SYSCALL), 1);
	assert_int_equal(mm->def_flags, 0);
	/* MCL_FUTURE: the next mapping is locked and populated as it is made */
	assert_int_equal(ptsim_mlockall(mm, PTSIM_MCL_FUTURE), 0);
	assert_int_equal(mm->def_flags, VM_LOCKED);
	assert_int_equal(ptsim_mmap(mm, c, NR * SZ_4K, PTSIM_PROT_READ | PTSIM_PROT_WRITE,
				    PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL), 0);
	assert_true(locked(mm, c));
	assert_int_equal(mapped_pages(mm, c, NR), NR);
	assert_int_equal(ev(m, PTSIM_EV_FAULT), NR);
	/* MCL_FUTURE | MCL_ONFAULT: locked, nothing faulted */
	assert_int_equal(ptsim_mlockall(mm, PTSIM_MCL_FUTURE | PTSIM_MCL_ONFAULT), 0);
	assert_int_equal(mm->def_flags, VM_LOCKED | VM_LOCKONFAULT);
	assert_int_equal(ptsim_mmap(mm, d, NR * SZ_4K, PTSIM_PROT_READ | PTSIM_PROT_WRITE,
				    PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL), 0);
	assert_int_equal(find_vma(mm, d)->flags & VM_LOCKED_MASK, VM_LOCKED | VM_LOCKONFAULT);
	assert_int_equal(mapped_pages(mm, d, NR), 0);
	assert_int_equal(ev(m, PTSIM_EV_FAULT), 0);
	assert_int_equal(ptsim_fault(mm, d, PTSIM_ACCESS_WRITE), 0);
	assert_true(folio_mlocked(mm, d));
	/* munlockall: every VMA unlocked (each page walked once), def_flags cleared */
	assert_int_equal(ptsim_munlockall(mm), 0);
	assert_int_equal(mm->def_flags, 0);
	for (size_t i = 0; i < mm->nr_vmas; i++)
		assert_int_equal(mm->vmas[i].flags & VM_LOCKED_MASK, 0);
	assert_int_equal(ev(m, PTSIM_EV_MLOCK_FOLIO), 2 * NR + 1);
	assert_false(folio_mlocked(mm, VA));
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/*
 * fork after mlockall(MCL_CURRENT | MCL_FUTURE): the child's VMAs are not
 * locked (dup_mmap clears VM_LOCKED_MASK) and its def_flags are empty
 * (mm_init keeps only VM_INIT_DEF_MASK, VM_NOHUGEPAGE), so its next mmap is
 * not locked either; the parent stays locked.
 */
static void test_fork_drops_locks(void **state)
{
	struct ptsim_machine *m = machine(0);
	struct ptsim_mm *mm = mm_with(m, VA, NR * SZ_4K, PTSIM_PROT_READ | PTSIM_PROT_WRITE);
	struct ptsim_mm *child = NULL;

	(void)state;
	assert_int_equal(ptsim_mlockall(mm, PTSIM_MCL_CURRENT | PTSIM_MCL_FUTURE), 0);
	assert_int_equal(ptsim_fork(mm, &child), 0);
	assert_true(locked(mm, VA));
	assert_false(locked(child, VA));
	assert_int_equal(child->def_flags, 0);
	assert_int_equal(ptsim_mmap(child, 2 * VA, NR * SZ_4K, PTSIM_PROT_READ | PTSIM_PROT_WRITE,
				    PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL), 0);
	assert_false(locked(child, 2 * VA));
	assert_int_equal(mapped_pages(child, 2 * VA, NR), 0);
	assert_invariants(m);
	ptsim_mm_destroy(child);
	ptsim_machine_destroy(m);
}

/*
 * MADV_POPULATE_WRITE counts what faultin_page_range executes: per page a
 * follow that misses, the fault, the follow again (a cond_resched before
 * each follow) and, once, lru_add_drain; POPULATE_READ over the written
 * range then faults nothing and follows each page once. -EINVAL leaves the
 * range as it was.
 */
static void test_madv_populate_counts(void **state)
{
	struct ptsim_machine *m = machine(0);
	struct ptsim_mm *mm = mm_with(m, VA, NR * SZ_4K, PTSIM_PROT_READ | PTSIM_PROT_WRITE);
	struct ptsim_stats before;

	(void)state;
	ptsim_total_stats(m, &before);
	assert_int_equal(ptsim_madvise(mm, VA, NR * SZ_4K, PTSIM_MADV_POPULATE_WRITE), 0);
	assert_int_equal(mapped_pages(mm, VA, NR), NR);
	assert_int_equal(ev(m, PTSIM_EV_FAULT), NR);
	assert_int_equal(ev(m, PTSIM_EV_FOLIO_LOOKUP), NR);
	assert_int_equal(ev(m, PTSIM_EV_PTE_WRITE), NR);
	assert_int_equal(ev(m, PTSIM_EV_SYSCALL), 1);
	assert_int_equal(ev(m, PTSIM_EV_MLOCK_FOLIO), 0);
	assert_totals_took(m, &before);
	assert_int_equal(ptsim_madvise(mm, VA, NR * SZ_4K, PTSIM_MADV_POPULATE_READ), 0);
	assert_int_equal(ev(m, PTSIM_EV_FAULT), 0);
	assert_int_equal(ev(m, PTSIM_EV_FOLIO_LOOKUP), NR);
	assert_int_equal(ev(m, PTSIM_EV_COND_RESCHED), NR + 1);
	assert_int_equal(ev(m, PTSIM_EV_PTE_WRITE), 0);
	assert_int_equal(ptsim_mprotect(mm, VA, NR * SZ_4K, PTSIM_PROT_READ), 0);
	ptsim_total_stats(m, &before);
	assert_int_equal(ptsim_madvise(mm, VA, NR * SZ_4K, PTSIM_MADV_POPULATE_WRITE), -EINVAL);
	assert_int_equal(ev(m, PTSIM_EV_FAULT), 0);
	assert_totals_took(m, &before);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mlock_exec_only),
		cmocka_unit_test(test_mlock_prot_none),
		cmocka_unit_test(test_mlock_file_past_eof),
		cmocka_unit_test(test_mlock_populate_oom),
		cmocka_unit_test(test_mlock_populate_transient_oom),
		cmocka_unit_test(test_mlock_split_enomem),
		cmocka_unit_test(test_mlock_host_limit),
		cmocka_unit_test(test_mlockall_host_limit),
		cmocka_unit_test(test_mlock_bounded_by_machine_memory),
		cmocka_unit_test(test_len_zero),
		cmocka_unit_test(test_madvise_len_rounds_up),
		cmocka_unit_test(test_mremap_fixed_below_min_addr),
		cmocka_unit_test(test_fault_mlocks_new_folio),
		cmocka_unit_test(test_mlock2_onfault),
		cmocka_unit_test(test_mlockall),
		cmocka_unit_test(test_fork_drops_locks),
		cmocka_unit_test(test_madv_populate_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
