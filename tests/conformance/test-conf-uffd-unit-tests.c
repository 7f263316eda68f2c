// SPDX-License-Identifier: MIT
/*
 * Conformance with tools/testing/selftests/mm/uffd-unit-tests.c, its UFFDIO_MOVE
 * tests ("move", "move-pmd", "move-pmd-split"), written afresh from what they
 * expect (v6.12's file). The selftest reads each destination page, takes the
 * missing fault in a handler thread and resolves it with UFFDIO_MOVE of the
 * page (or PMD) at the same offset of the source, mode ALLOW_SRC_HOLES, and
 * then checks the destination holds the source's old contents and the source
 * reads back zero. Here contents are translations: after the move the
 * destination maps the source's old PFNs and the source maps nothing (an
 * anonymous read of it would see the zero page).
 *
 * Not expressible: the missing-fault delivery itself (handle_userfault and the
 * poll thread; the model faults a registered VMA in as an unregistered one),
 * so the selftest's missing_faults == step_count check has no counterpart; the
 * minor-fault, write-protect, event (fork/remap/remove), sigbus, poison and
 * zeropage tests, which need uffd modes the model does not have.
 *
 * Every preset with UFFDIO_MOVE (v6.8 on) runs every test.
 */
#include "helpers.h"

#define SRC SZ_1G
#define DST (SZ_1G + SZ_1G / 2)

/* Presets with UFFDIO_MOVE: merged in v6.8 ("userfaultfd: UFFDIO_MOVE uABI"). */
static bool has_uffd_move(const char *preset)
{
	unsigned int rel;

	assert_int_equal(ptsim_preset_release(preset, &rel), 0);
	return rel >= 6080;
}

static uint64_t pa_of(struct ptsim_mm *mm, uint64_t va, int *level)
{
	struct ptsim_translation tr;

	assert_int_equal(ptsim_translate(mm, va, &tr), 0);
	if (level)
		*level = tr.level;
	return tr.pa;
}

/*
 * The selftest's areas: src and dst anonymous private, len bytes each; src
 * advised hugepage or nohugepage (its post_alloc hook) and written; dst
 * registered for missing faults (and advised as the test does).
 */
static struct ptsim_mm *areas(struct ptsim_machine *m, uint64_t len, int src_advice, int dst_advice,
			      unsigned int order)
{
	struct ptsim_mm *mm = new_mm_with_vma(m, SRC, len);

	assert_int_equal(ptsim_mmap(mm, DST, len, PTSIM_PROT_READ | PTSIM_PROT_WRITE,
				    PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL), 0);
	/* "Prevent source pages from being mapped more than once" */
	assert_int_equal(ptsim_madvise(mm, SRC, len, PTSIM_MADV_DONTFORK), 0);
	assert_int_equal(ptsim_madvise(mm, SRC, len, src_advice), 0);
	assert_int_equal(ptsim_populate(mm, SRC, len, order, true), 0);
	assert_int_equal(ptsim_uffd_register(mm, DST, len), 0);
	if (dst_advice >= 0)
		assert_int_equal(ptsim_madvise(mm, DST, len, dst_advice), 0);
	return mm;
}

/* "move": page by page; each move returns the page size, dst gets the page, src reads zero. */
static void test_move(void **state)
{
	(void)state;
	for (unsigned int p = 0; ptsim_preset_name(p); p++) {
		const char *preset = ptsim_preset_name(p);
		struct ptsim_machine *m;
		struct ptsim_mm *mm;
		uint64_t page = SZ_4K, len = 32 * page, old[32];

		if (!has_uffd_move(preset))
			continue;
		m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_ANDROID_X1, preset);
		mm = areas(m, len, PTSIM_MADV_NOHUGEPAGE, -1, 0);
		for (unsigned int i = 0; i < 32; i++)
			old[i] = pa_of(mm, SRC + i * page, NULL);
		for (unsigned int i = 0; i < 32; i++) {
			struct ptsim_translation tr;

			/* source content intact before the move */
			assert_int_equal(pa_of(mm, SRC + i * page, NULL), old[i]);
			assert_int_equal(ptsim_uffd_move(mm, DST + i * page, SRC + i * page, page,
							 PTSIM_UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES), (int64_t)page);
			assert_int_equal(pa_of(mm, DST + i * page, NULL), old[i]);
			assert_int_equal(ptsim_translate(mm, SRC + i * page, &tr), -ENOENT);
		}
		assert_invariants(m);
		ptsim_machine_destroy(m);
	}
}

/* "move-pmd": a PMD THP moved whole, one PMD per move: dst maps the same block, src nothing. */
static void test_move_pmd(void **state)
{
	(void)state;
	for (unsigned int p = 0; ptsim_preset_name(p); p++) {
		const char *preset = ptsim_preset_name(p);
		struct ptsim_machine *m;
		struct ptsim_mm *mm;
		struct ptsim_translation tr;
		uint64_t old;
		int level;

		if (!has_uffd_move(preset))
			continue;
		m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_ANDROID_X1, preset);
		mm = areas(m, 2 * SZ_2M, PTSIM_MADV_HUGEPAGE, PTSIM_MADV_HUGEPAGE, 9);
		for (unsigned int i = 0; i < 2; i++) {
			old = pa_of(mm, SRC + i * SZ_2M, &level);
			assert_int_equal(level, 2);
			assert_int_equal(ptsim_uffd_move(mm, DST + i * SZ_2M, SRC + i * SZ_2M, SZ_2M,
							 PTSIM_UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES), (int64_t)SZ_2M);
			assert_int_equal(ptsim_translate(mm, DST + i * SZ_2M + 5 * SZ_4K, &tr), 0);
			assert_int_equal(tr.level, 2);
			assert_int_equal(tr.size, SZ_2M);
			assert_int_equal(tr.pa, old + 5 * SZ_4K);
			assert_int_equal(ptsim_translate(mm, SRC + i * SZ_2M, &tr), -ENOENT);
		}
		assert_invariants(m);
		ptsim_machine_destroy(m);
	}
}

/*
 * "move-pmd-split": dst is NOHUGEPAGE, so the selftest's missing fault on it
 * went down the PTE path and left an empty PTE table under dst (pte_alloc in
 * do_anonymous_page runs before handle_userfault). move_pages then finds dst's
 * PMD not none, splits the source PMD and moves page by page (the THP split by
 * move_pages_pte): the move still returns the whole PMD and every page keeps its
 * PFN. The empty table is made here as the kernel leaves one: a page faulted in
 * and zapped again (MADV_DONTNEED keeps the table).
 */
static void test_move_pmd_split(void **state)
{
	(void)state;
	for (unsigned int p = 0; ptsim_preset_name(p); p++) {
		const char *preset = ptsim_preset_name(p);
		struct ptsim_machine *m;
		struct ptsim_mm *mm;
		struct ptsim_translation tr;
		uint64_t old;
		int level;

		if (!has_uffd_move(preset))
			continue;
		m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_ANDROID_X1, preset);
		mm = areas(m, SZ_2M, PTSIM_MADV_HUGEPAGE, PTSIM_MADV_NOHUGEPAGE, 9);
		assert_int_equal(ptsim_fault(mm, DST, PTSIM_ACCESS_WRITE), 0);
		assert_int_equal(ptsim_madvise(mm, DST, SZ_4K, PTSIM_MADV_DONTNEED), 0);
		assert_int_equal(ptsim_translate(mm, DST, &tr), -ENOENT);
		old = pa_of(mm, SRC, &level);
		assert_int_equal(level, 2);
		assert_int_equal(ptsim_uffd_move(mm, DST, SRC, SZ_2M, PTSIM_UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES),
				 (int64_t)SZ_2M);
		for (uint64_t off = 0; off < SZ_2M; off += 37 * SZ_4K) {
			assert_int_equal(ptsim_translate(mm, DST + off, &tr), 0);
			assert_int_equal(tr.level, 3);
			assert_int_equal(tr.pa, old + off);
			assert_int_equal(ptsim_translate(mm, SRC + off, &tr), -ENOENT);
		}
		assert_invariants(m);
		ptsim_machine_destroy(m);
	}
}

/*
 * move_page() in uffd-common.c accepts -EEXIST (the page is already there: a
 * fault raced the move) and wakes the range; any other error fails. A move
 * onto a mapped destination page is -EEXIST and changes nothing.
 */
static void test_move_onto_mapped_is_eexist(void **state)
{
	(void)state;
	for (unsigned int p = 0; ptsim_preset_name(p); p++) {
		const char *preset = ptsim_preset_name(p);
		struct ptsim_machine *m;
		struct ptsim_mm *mm;
		uint64_t src_pa, dst_pa;

		if (!has_uffd_move(preset))
			continue;
		m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_ANDROID_X1, preset);
		mm = areas(m, 4 * SZ_4K, PTSIM_MADV_NOHUGEPAGE, -1, 0);
		assert_int_equal(ptsim_fault(mm, DST, PTSIM_ACCESS_WRITE), 0);
		src_pa = pa_of(mm, SRC, NULL);
		dst_pa = pa_of(mm, DST, NULL);
		assert_int_equal(ptsim_uffd_move(mm, DST, SRC, SZ_4K, PTSIM_UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES),
				 -EEXIST);
		assert_int_equal(pa_of(mm, SRC, NULL), src_pa);
		assert_int_equal(pa_of(mm, DST, NULL), dst_pa);
		assert_invariants(m);
		ptsim_machine_destroy(m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_move),
		cmocka_unit_test(test_move_pmd),
		cmocka_unit_test(test_move_pmd_split),
		cmocka_unit_test(test_move_onto_mapped_is_eexist),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
