// SPDX-License-Identifier: MIT
/*
 * Conformance with tools/testing/selftests/mm/mkdirty.c (setting a PTE or
 * PMD dirty in a read-only VMA must not make it writable), written fresh
 * from what its tests expect, on every preset. do_test_write_sigsegv's
 * "SIGSEGV generated, page not modified" is a user write (ptsim_access) that
 * takes a permission fault, the arm64 fault handler refusing it
 * (ptsim_fault: -EFAULT, SIGSEGV), and the VA still mapping its PFN,
 * read-only.
 *
 * Not expressible: test_ptrace_write and test_ptrace_write_thp (a
 * FOLL_FORCE write through /proc/self/mem: the public API has no forced GUP
 * write), test_page_migration and test_page_migration_thp (mbind
 * MPOL_MF_MOVE: page migration is not modelled).
 */
#include "helpers.h"

#define PAGE	SZ_4K
#define THP	SZ_2M
#define VA	SZ_1G

static struct ptsim_machine *machine_for(const char *preset)
{
	return new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, preset);
}

/* do_test_write_sigsegv: the write faults, the handler refuses it, the page is not modified. */
static void assert_write_sigsegv(struct ptsim_mm *mm, uint64_t va)
{
	struct ptsim_translation before, after;
	enum ptsim_fault_kind f = PTSIM_FAULT_NONE;

	assert_int_equal(ptsim_translate(mm, va, &before), 0);
	assert_true(before.read_only);
	assert_false(before.write);
	assert_int_equal(ptsim_access(mm, 0, va, PTSIM_ACCESS_WRITE, &f), -EFAULT);
	assert_int_equal(f, PTSIM_FAULT_PERMISSION);
	assert_int_equal(ptsim_fault(mm, va, PTSIM_ACCESS_WRITE), -EFAULT);
	assert_int_equal(ptsim_translate(mm, va, &after), 0);
	assert_int_equal(after.pa, before.pa);
	assert_true(after.read_only);
}

/*
 * mkdirty.c test_pte_mapped_thp: in an aligned THP of a PROT_READ|PROT_WRITE
 * VMA the first page is written (a fresh THP, dirty in the PMD), the THP is
 * made PROT_READ, its last subpage is populated (a THP), and mprotect of that
 * subpage back to PROT_READ|PROT_WRITE PTE-maps the THP; a write to the first
 * page must still raise SIGSEGV and leave the page as it was (the PMD's dirty
 * bit carried to the PTEs, not write permission). Past the selftest: the
 * same holds of the PMD-mapped THP before the split.
 */
static void test_pte_mapped_thp(void **state)
{
	(void)state;
	for (unsigned int i = 0; ptsim_preset_name(i); i++) {
		struct ptsim_machine *m = machine_for(ptsim_preset_name(i));
		struct ptsim_mm *mm = new_mm_with_vma(m, VA, 2 * THP);
		struct ptsim_translation tr;

		assert_int_equal(ptsim_madvise(mm, VA, THP, PTSIM_MADV_HUGEPAGE), 0);
		assert_int_equal(ptsim_populate(mm, VA, THP, 9, true), 0);	/* memset of the first page */
		assert_int_equal(ptsim_translate(mm, VA, &tr), 0);
		assert_true(tr.dirty && tr.level == 2);
		assert_int_equal(ptsim_mprotect(mm, VA, THP, PTSIM_PROT_READ), 0);
		assert_int_equal(ptsim_translate(mm, VA + THP - PAGE, &tr), 0);	/* a THP was populated */
		assert_write_sigsegv(mm, VA);
		assert_int_equal(ptsim_mprotect(mm, VA + THP - PAGE, PAGE,
						PTSIM_PROT_READ | PTSIM_PROT_WRITE), 0);
		assert_int_equal(ptsim_translate(mm, VA, &tr), 0);
		assert_int_equal(tr.level, 3);	/* PTE-mapped now */
		assert_write_sigsegv(mm, VA);
		assert_invariants(m);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/*
 * mkdirty.c test_uffdio_copy: UFFDIO_COPY places a page in a PROT_READ VMA
 * registered for missing faults (mfill_atomic_install_pte sets it dirty); a
 * write to it must raise SIGSEGV and leave it as it was.
 */
static void test_uffdio_copy(void **state)
{
	(void)state;
	for (unsigned int i = 0; ptsim_preset_name(i); i++) {
		struct ptsim_machine *m = machine_for(ptsim_preset_name(i));
		struct ptsim_mm *mm = NULL;
		struct ptsim_translation tr;

		assert_int_equal(ptsim_mm_create(m, &mm), 0);
		assert_int_equal(ptsim_mmap(mm, VA, PAGE, PTSIM_PROT_READ,
					    PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL), 0);
		assert_int_equal(ptsim_mmap(mm, 2 * VA, PAGE, PTSIM_PROT_READ | PTSIM_PROT_WRITE,
					    PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL), 0);
		assert_int_equal(ptsim_fault(mm, 2 * VA, PTSIM_ACCESS_WRITE), 0);	/* memset(src, 1) */
		assert_int_equal(ptsim_uffd_register(mm, VA, PAGE), 0);
		assert_int_equal(ptsim_uffd_copy(mm, VA, 2 * VA, PAGE, 0), (int64_t)PAGE);
		assert_int_equal(ptsim_translate(mm, VA, &tr), 0);
		assert_true(tr.dirty);
		assert_write_sigsegv(mm, VA);
		assert_invariants(m);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pte_mapped_thp),
		cmocka_unit_test(test_uffdio_copy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
