// SPDX-License-Identifier: MIT
/* Descriptor helper semantics. */
#include "helpers.h"

static const struct ptsim_geometry *geo4k(void)
{
	static struct ptsim_geometry g;

	ptsim_geometry_get(PTSIM_GRANULE_4K, 48, &g);
	return &g;
}

static void test_bit_positions(void **state)
{
	(void)state;
	assert_int_equal(PTE_WRITE, PTE_DBM);
	assert_int_equal(PTE_DBM, UINT64_C(1) << 51);
	assert_int_equal(PTE_CONT, UINT64_C(1) << 52);
	assert_int_equal(PTE_DIRTY, UINT64_C(1) << 55);
	assert_int_equal(PTE_SPECIAL, UINT64_C(1) << 56);
	assert_int_equal(PTE_UFFD_WP, UINT64_C(1) << 58);
	assert_int_equal(PTE_PRESENT_INVALID, PTE_NG);
	assert_int_equal(PTE_AF, UINT64_C(1) << 10);
	assert_int_equal(PTE_RDONLY, UINT64_C(1) << 7);
}

static void test_dirty_states(void **state)
{
	pte_t ro_clean = PAGE_READONLY;

	(void)state;
	/* the header's state table: RDONLY, WRITE, DIRTY */
	assert_false(pte_dirty(ro_clean));
	assert_false(pte_write(ro_clean));
	pte_t w_clean = ro_clean | PTE_WRITE;		/* 1, 1, 0 */
	assert_true(pte_write(w_clean));
	assert_false(pte_dirty(w_clean));
	pte_t ro_dirty = ro_clean | PTE_DIRTY;		/* 1, 0, 1 */
	assert_true(pte_dirty(ro_dirty) && pte_sw_dirty(ro_dirty) && !pte_hw_dirty(ro_dirty));
	pte_t w_dirty = (ro_clean | PTE_WRITE) & ~PTE_RDONLY;	/* 0, 1, x */
	assert_true(pte_hw_dirty(w_dirty) && pte_dirty(w_dirty));
}

static void test_mk_helpers(void **state)
{
	pte_t p = PAGE_READONLY;

	(void)state;
	/* pte_mkwrite (v6.17) clears RDONLY at once: hardware-dirty */
	assert_true(pte_hw_dirty(pte_mkwrite(p)));
	/* pte_mkdirty clears RDONLY only when writable */
	assert_true(pte_rdonly(pte_mkdirty(p)) && pte_sw_dirty(pte_mkdirty(p)));
	assert_false(pte_rdonly(pte_mkdirty(p | PTE_WRITE)));
	/* pte_mkclean: clear DIRTY, set RDONLY */
	pte_t c = pte_mkclean(pte_mkwrite(pte_mkdirty(p)));
	assert_true(pte_rdonly(c) && !pte_sw_dirty(c) && pte_write(c) && !pte_dirty(c));
	/* pte_wrprotect keeps a hardware-dirty state as PTE_DIRTY */
	pte_t wp = pte_wrprotect(pte_mkwrite(p));
	assert_true(!pte_write(wp) && pte_rdonly(wp) && pte_sw_dirty(wp));
	assert_false(pte_sw_dirty(pte_wrprotect(p | PTE_WRITE)));
	assert_false(pte_young(pte_mkold(p)));
	assert_true(pte_young(pte_mkyoung(pte_mkold(p))));
	assert_true(pte_cont(pte_mkcont(p)));
	assert_false(pte_cont(pte_mknoncont(pte_mkcont(p))));
	assert_true(pte_valid_cont(pte_mkcont(p)));
	assert_false(pte_valid_cont(pte_mkcont(PAGE_NONE)));
}

static void test_pte_modify(void **state)
{
	const struct ptsim_geometry *g = geo4k();
	pte_t p = pte_mkcont(pte_mkwrite(pte_mkdirty(pfn_pte(g, 0x1234, PAGE_READONLY))));
	pte_t ro;

	(void)state;
	/* RO: hw-dirty becomes sw PTE_DIRTY; CONT, AF and PFN survive */
	ro = __pte_modify(p, PAGE_READONLY);
	assert_false(pte_write(ro));
	assert_true(pte_rdonly(ro) && pte_sw_dirty(ro) && pte_cont(ro) && pte_young(ro));
	assert_int_equal(pte_pfn(g, ro), 0x1234);
	/* PROT_NONE: invalid to hardware, present to software */
	pte_t none = __pte_modify(p, PAGE_NONE);
	assert_false(pte_valid(none));
	assert_true(pte_present(none) && pte_protnone(none));
	/* a sw-dirty entry made writable again is hardware dirty */
	pte_t back = __pte_modify(ro, PAGE_SHARED);
	assert_true(pte_hw_dirty(back));
}

static void test_pfn(void **state)
{
	struct ptsim_geometry g64;
	pte_t p;

	(void)state;
	assert_int_equal(ptsim_geometry_get(PTSIM_GRANULE_64K, 48, &g64), 0);
	p = pfn_pte(&g64, 0xabcd, PAGE_READONLY);
	assert_int_equal(pte_pfn(&g64, p), 0xabcd);
	assert_int_equal(p & ~PTE_ADDR_MASK(16), PAGE_READONLY);
	assert_int_equal(pte_pfn(&g64, pte_advance_pfn(&g64, p, 5)), 0xabcd + 5);
	assert_int_equal(pte_pgprot(&g64, p), PAGE_READONLY);
}

static void test_vm_page_prot(void **state)
{
	(void)state;
	/* private RW maps to PAGE_READONLY: COW; shared RW has PTE_WRITE */
	assert_int_equal(vm_get_page_prot(VM_READ | VM_WRITE), PAGE_READONLY);
	assert_int_equal(vm_get_page_prot(VM_READ | VM_WRITE | VM_SHARED), PAGE_SHARED);
	assert_int_equal(vm_get_page_prot(0), PAGE_NONE);
	assert_int_equal(vm_get_page_prot(VM_EXEC), PAGE_EXECONLY);
	assert_int_equal(vm_get_page_prot(VM_READ | VM_EXEC), PAGE_READONLY_EXEC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bit_positions),
		cmocka_unit_test(test_dirty_states),
		cmocka_unit_test(test_mk_helpers),
		cmocka_unit_test(test_pte_modify),
		cmocka_unit_test(test_pfn),
		cmocka_unit_test(test_vm_page_prot),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
