// SPDX-License-Identifier: MIT
/*
 * UFFDIO_COPY and UFFDIO_ZEROPAGE (v6.12 mm/userfaultfd.c mfill_atomic,
 * mfill_atomic_pte_copy, mfill_atomic_pte_zeropage,
 * mfill_atomic_install_pte; fs/userfaultfd.c userfaultfd_copy): what each
 * places, its errors in the kernel's order, and what it counts.
 */
#include "helpers.h"

#define DST SZ_1G
#define SRC (2 * SZ_1G)
#define NR 8u

static struct ptsim_mm *setup(struct ptsim_machine *m, unsigned int dst_prot)
{
	struct ptsim_mm *mm = NULL;

	assert_int_equal(ptsim_mm_create(m, &mm), 0);
	assert_int_equal(ptsim_mmap(mm, DST, NR * SZ_4K, dst_prot,
				    PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL), 0);
	assert_int_equal(ptsim_mmap(mm, SRC, NR * SZ_4K, PTSIM_PROT_READ | PTSIM_PROT_WRITE,
				    PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL), 0);
	assert_int_equal(ptsim_uffd_register(mm, DST, NR * SZ_4K), 0);
	return mm;
}

/*
 * UFFDIO_COPY of NR written source pages: NR new exclusive pages, each its
 * own PFN, dirty and writable; per page one folio allocation, one
 * copy_from_user, one charge, one rmap add and one set_ptes.
 */
static void test_copy(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.12");
	struct ptsim_mm *mm = setup(m, PTSIM_PROT_READ | PTSIM_PROT_WRITE);

	(void)state;
	assert_int_equal(ptsim_populate(mm, SRC, NR * SZ_4K, 0, true), 0);
	assert_int_equal(ptsim_uffd_copy(mm, DST, SRC, NR * SZ_4K, 0), NR * SZ_4K);
	assert_int_equal(ev(m, PTSIM_EV_FOLIO_ALLOC), NR);
	assert_int_equal(ev(m, PTSIM_EV_PAGE_COPY), NR);
	assert_int_equal(ev(m, PTSIM_EV_MEMCG_CHARGE), NR);
	assert_int_equal(ev(m, PTSIM_EV_RMAP_ADD), NR);
	assert_int_equal(ev(m, PTSIM_EV_PTE_WRITE), NR);
	assert_int_equal(ev(m, PTSIM_EV_FAULT), 0);
	assert_int_equal(ev(m, PTSIM_EV_SYSCALL), 1);
	for (unsigned int i = 0; i < NR; i++) {
		struct ptsim_translation tr, src;
		struct ptsim_folio_info fi;

		assert_int_equal(ptsim_translate(mm, DST + i * SZ_4K, &tr), 0);
		assert_int_equal(ptsim_translate(mm, SRC + i * SZ_4K, &src), 0);
		assert_int_not_equal(tr.pa, src.pa);
		assert_true(tr.dirty && tr.write && !tr.read_only);
		assert_int_equal(ptsim_folio_info(mm, DST + i * SZ_4K, &fi), 0);
		assert_true(fi.anon && fi.anon_exclusive);
		assert_int_equal(fi.mapcount, 1);
	}
	/* a second copy over them: -EEXIST, nothing placed, nothing changed */
	assert_int_equal(ptsim_uffd_copy(mm, DST, SRC, SZ_4K, 0), -EEXIST);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/*
 * A source never touched: each page is faulted in first (a read fault: the
 * zero page), as the kernel's copy_from_user outside the locks does, then
 * copied. Into a read-only destination the copy is dirty but not writable.
 */
static void test_copy_faults_source_read_only_dst(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.12");
	struct ptsim_mm *mm = setup(m, PTSIM_PROT_READ);
	struct ptsim_translation tr;

	(void)state;
	assert_int_equal(ptsim_uffd_copy(mm, DST, SRC, 2 * SZ_4K, 0), 2 * SZ_4K);
	assert_int_equal(ev(m, PTSIM_EV_FAULT), 2);
	assert_int_equal(ptsim_translate(mm, SRC, &tr), 0);
	assert_true(tr.read_only);
	assert_int_equal(ptsim_translate(mm, DST, &tr), 0);
	assert_true(tr.read_only && !tr.write && tr.dirty);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/* UFFDIO_ZEROPAGE: the shared zero page at every page, special, read-only; no folio. */
static void test_zeropage(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.12");
	struct ptsim_mm *mm = setup(m, PTSIM_PROT_READ | PTSIM_PROT_WRITE);
	struct ptsim_translation a, b;

	(void)state;
	assert_int_equal(ptsim_uffd_zeropage(mm, DST, NR * SZ_4K, 0), NR * SZ_4K);
	assert_int_equal(ev(m, PTSIM_EV_FOLIO_ALLOC), 0);
	assert_int_equal(ev(m, PTSIM_EV_PTE_WRITE), NR);
	assert_int_equal(ptsim_translate(mm, DST, &a), 0);
	assert_int_equal(ptsim_translate(mm, DST + (NR - 1) * SZ_4K, &b), 0);
	assert_int_equal(a.pa, b.pa);
	assert_true(a.read_only);
	assert_int_equal(ptsim_folio_info(mm, DST, &(struct ptsim_folio_info){ 0 }), -ENOENT);
	/* a write fault replaces it with a page of its own */
	assert_int_equal(ptsim_fault(mm, DST, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(ptsim_translate(mm, DST, &b), 0);
	assert_int_not_equal(a.pa, b.pa);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/*
 * The refusals, each leaving the model and the totals as they were:
 * mmap_changing (-EAGAIN, before the arguments), bad ranges and modes
 * (-EINVAL), an unregistered or too short destination VMA (-ENOENT), a
 * destination already mapped (-EEXIST).
 */
static void test_refusals(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.12");
	struct ptsim_mm *mm = setup(m, PTSIM_PROT_READ | PTSIM_PROT_WRITE);
	struct ptsim_stats before, after;

	(void)state;
	assert_int_equal(ptsim_fault(mm, DST + SZ_4K, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(ptsim_total_stats(m, &before), 0);
	assert_int_equal(ptsim_uffd_copy(mm, DST + 1, SRC, SZ_4K, 0), -EINVAL);
	assert_int_equal(ptsim_uffd_copy(mm, DST, SRC, 0, 0), -EINVAL);
	assert_int_equal(ptsim_uffd_copy(mm, DST, SRC, SZ_4K, 2), -EINVAL);	/* MODE_WP */
	assert_int_equal(ptsim_uffd_zeropage(mm, DST, SZ_4K, 2), -EINVAL);
	assert_int_equal(ptsim_uffd_zeropage(NULL, DST, SZ_4K, 0), -EINVAL);
	assert_int_equal(ptsim_total_stats(m, &after), 0);
	assert_memory_equal(&before, &after, sizeof(before));
	assert_int_equal(ptsim_uffd_zeropage(mm, SRC, SZ_4K, 0), -ENOENT);	/* not registered */
	assert_int_equal(ptsim_uffd_zeropage(mm, DST, (NR + 1) * SZ_4K, 0), -ENOENT);
	assert_int_equal(ptsim_uffd_zeropage(mm, DST + SZ_4K, SZ_4K, 0), -EEXIST);
	assert_int_equal(ptsim_uffd_set_mmap_changing(mm, true), 0);
	assert_int_equal(ptsim_uffd_zeropage(mm, DST + 1, 0, 0), -EAGAIN);
	assert_int_equal(ptsim_uffd_set_mmap_changing(mm, false), 0);
	assert_int_equal(ptsim_translate(mm, DST, &(struct ptsim_translation){ 0 }), -ENOENT);
	/* a range whose second page is mapped: the first is placed, then -EEXIST ends it */
	assert_int_equal(ptsim_uffd_zeropage(mm, DST, 2 * SZ_4K, 0), SZ_4K);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copy),
		cmocka_unit_test(test_copy_faults_source_read_only_dst),
		cmocka_unit_test(test_zeropage),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
