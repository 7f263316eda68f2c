// SPDX-License-Identifier: MIT
/*
 * Conformance with tools/testing/selftests/mm/madv_populate.c (MADV_POPULATE_READ
 * and MADV_POPULATE_WRITE), written fresh from what its tests expect, on every
 * preset. The selftest's 2 MiB of private anonymous memory is the test range;
 * "populated" (pagemap's present bit) is a translation at the VA, and page
 * contents are which PFN each VA maps: a read populate maps the shared zero
 * page, a write populate one page of its own per VA.
 *
 * Not expressible: test_softdirty (pagemap's soft-dirty bit; arm64 kernels
 * have no CONFIG_MEM_SOFT_DIRTY, and the model keeps no soft-dirty state).
 */
#include "helpers.h"

#define VA	SZ_1G
#define SIZE	SZ_2M	/* the selftest's SIZE */
#define PAGE	SZ_4K

static struct ptsim_machine *machine_for(const char *preset)
{
	return new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, preset);
}

static struct ptsim_mm *mm_with(struct ptsim_machine *m, uint64_t len, unsigned int prot)
{
	struct ptsim_mm *mm = NULL;

	assert_int_equal(ptsim_mm_create(m, &mm), 0);
	assert_int_equal(ptsim_mmap(mm, VA, len, prot, PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS,
				    NULL), 0);
	return mm;
}

/* pagemap_is_populated for one page: a translation (present entry) at va. */
static bool populated(const struct ptsim_mm *mm, uint64_t va)
{
	struct ptsim_translation tr;

	return ptsim_translate(mm, va, &tr) == 0;
}

/* range_is_populated / range_is_not_populated: every page, or none. */
static bool range_populated(const struct ptsim_mm *mm, uint64_t va, uint64_t len, bool want)
{
	for (uint64_t a = va; a < va + len; a += PAGE)
		if (populated(mm, a) != want)
			return false;
	return true;
}

static uint64_t pa_of(const struct ptsim_mm *mm, uint64_t va)
{
	struct ptsim_translation tr;

	assert_int_equal(ptsim_translate(mm, va, &tr), 0);
	return tr.pa;
}

static bool writable(const struct ptsim_mm *mm, uint64_t va)
{
	struct ptsim_translation tr;

	assert_int_equal(ptsim_translate(mm, va, &tr), 0);
	return tr.write && !tr.read_only;
}

/* Kernels whose madvise_populate stops at the first hole (v6.10 on). */
static bool stops_at_hole(struct ptsim_machine *m)
{
	bool on = false;

	assert_int_equal(ptsim_feature_get(m, PTSIM_FEAT_MADV_POPULATE_NO_VMA_WALK, &on), 0);
	return on;
}

/* madv_populate.c sense_support: both advices work on one page. */
static void test_sense_support(void **state)
{
	(void)state;
	for (unsigned int i = 0; ptsim_preset_name(i); i++) {
		struct ptsim_machine *m = machine_for(ptsim_preset_name(i));
		struct ptsim_mm *mm = mm_with(m, PAGE, PTSIM_PROT_READ | PTSIM_PROT_WRITE);

		assert_int_equal(ptsim_madvise(mm, VA, PAGE, PTSIM_MADV_POPULATE_READ), 0);
		assert_int_equal(ptsim_madvise(mm, VA, PAGE, PTSIM_MADV_POPULATE_WRITE), 0);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/*
 * madv_populate.c test_prot_read: "MADV_POPULATE_READ with PROT_READ" succeeds
 * and "MADV_POPULATE_WRITE with PROT_READ" is -EINVAL (check_vma_flags without
 * FOLL_FORCE). The read maps the zero page at every VA.
 */
static void test_prot_read(void **state)
{
	(void)state;
	for (unsigned int i = 0; ptsim_preset_name(i); i++) {
		struct ptsim_machine *m = machine_for(ptsim_preset_name(i));
		struct ptsim_mm *mm = mm_with(m, SIZE, PTSIM_PROT_READ);

		assert_int_equal(ptsim_madvise(mm, VA, SIZE, PTSIM_MADV_POPULATE_READ), 0);
		assert_true(range_populated(mm, VA, SIZE, true));
		for (uint64_t a = VA + PAGE; a < VA + SIZE; a += PAGE)
			assert_int_equal(pa_of(mm, a), pa_of(mm, VA));	/* the zero page */
		assert_int_equal(ptsim_madvise(mm, VA, SIZE, PTSIM_MADV_POPULATE_WRITE), -EINVAL);
		assert_int_equal(pa_of(mm, VA + SIZE - PAGE), pa_of(mm, VA));
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/*
 * madv_populate.c test_prot_write: "MADV_POPULATE_READ with PROT_WRITE" is
 * -EINVAL (PROT_WRITE alone gives no VM_READ) and "MADV_POPULATE_WRITE with
 * PROT_WRITE" succeeds.
 */
static void test_prot_write(void **state)
{
	(void)state;
	for (unsigned int i = 0; ptsim_preset_name(i); i++) {
		struct ptsim_machine *m = machine_for(ptsim_preset_name(i));
		struct ptsim_mm *mm = mm_with(m, SIZE, PTSIM_PROT_WRITE);

		assert_int_equal(ptsim_madvise(mm, VA, SIZE, PTSIM_MADV_POPULATE_READ), -EINVAL);
		assert_true(range_populated(mm, VA, SIZE, false));
		assert_int_equal(ptsim_madvise(mm, VA, SIZE, PTSIM_MADV_POPULATE_WRITE), 0);
		assert_true(range_populated(mm, VA, SIZE, true));
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/*
 * madv_populate.c test_holes: with the second page unmapped, both advices are
 * -ENOMEM for a hole in the middle, at the end and at the beginning. Past the
 * selftest: what the populate leaves. From v6.10 it stops at the hole, so
 * only the first page is populated; before, madvise_walk_vmas went on past
 * it and populated the rest of the range too.
 */
static void test_holes(void **state)
{
	(void)state;
	for (unsigned int i = 0; ptsim_preset_name(i); i++) {
		struct ptsim_machine *m = machine_for(ptsim_preset_name(i));
		struct ptsim_mm *mm = mm_with(m, SIZE, PTSIM_PROT_READ | PTSIM_PROT_WRITE);
		bool stops = stops_at_hole(m);

		assert_int_equal(ptsim_munmap(mm, VA + PAGE, PAGE), 0);
		/* hole in the middle */
		assert_int_equal(ptsim_madvise(mm, VA, SIZE, PTSIM_MADV_POPULATE_READ), -ENOMEM);
		assert_true(populated(mm, VA));
		assert_false(populated(mm, VA + PAGE));
		assert_true(range_populated(mm, VA + 2 * PAGE, SIZE - 2 * PAGE, !stops));
		assert_int_equal(ptsim_madvise(mm, VA, SIZE, PTSIM_MADV_POPULATE_WRITE), -ENOMEM);
		assert_true(writable(mm, VA));
		if (!stops)
			assert_true(writable(mm, VA + SIZE - PAGE));
		/* hole at the end */
		assert_int_equal(ptsim_madvise(mm, VA, 2 * PAGE, PTSIM_MADV_POPULATE_READ), -ENOMEM);
		assert_int_equal(ptsim_madvise(mm, VA, 2 * PAGE, PTSIM_MADV_POPULATE_WRITE), -ENOMEM);
		/* hole at the beginning */
		assert_int_equal(ptsim_madvise(mm, VA + PAGE, PAGE, PTSIM_MADV_POPULATE_READ), -ENOMEM);
		assert_int_equal(ptsim_madvise(mm, VA + PAGE, PAGE, PTSIM_MADV_POPULATE_WRITE), -ENOMEM);
		assert_false(populated(mm, VA + PAGE));
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/*
 * madv_populate.c test_populate_read: the range is not populated, then
 * MADV_POPULATE_READ succeeds and every page is: the zero page, read-only.
 */
static void test_populate_read(void **state)
{
	(void)state;
	for (unsigned int i = 0; ptsim_preset_name(i); i++) {
		struct ptsim_machine *m = machine_for(ptsim_preset_name(i));
		struct ptsim_mm *mm = mm_with(m, SIZE, PTSIM_PROT_READ | PTSIM_PROT_WRITE);

		assert_true(range_populated(mm, VA, SIZE, false));
		assert_int_equal(ptsim_madvise(mm, VA, SIZE, PTSIM_MADV_POPULATE_READ), 0);
		assert_true(range_populated(mm, VA, SIZE, true));
		for (uint64_t a = VA; a < VA + SIZE; a += PAGE) {
			assert_int_equal(pa_of(mm, a), pa_of(mm, VA));
			assert_false(writable(mm, a));
		}
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/*
 * madv_populate.c test_populate_write: the range is not populated, then
 * MADV_POPULATE_WRITE succeeds and every page is, writable, each VA its own
 * page. Past the selftest: a write populate after a read one replaces the
 * zero page everywhere (the COW of the zero page).
 */
static void test_populate_write(void **state)
{
	(void)state;
	for (unsigned int i = 0; ptsim_preset_name(i); i++) {
		struct ptsim_machine *m = machine_for(ptsim_preset_name(i));
		struct ptsim_mm *mm = mm_with(m, SIZE, PTSIM_PROT_READ | PTSIM_PROT_WRITE);
		uint64_t zero;

		assert_true(range_populated(mm, VA, SIZE, false));
		assert_int_equal(ptsim_madvise(mm, VA, SIZE, PTSIM_MADV_POPULATE_WRITE), 0);
		assert_true(range_populated(mm, VA, SIZE, true));
		for (uint64_t a = VA; a < VA + SIZE; a += PAGE) {
			assert_true(writable(mm, a));
			if (a > VA)
				assert_int_not_equal(pa_of(mm, a), pa_of(mm, a - PAGE));
		}
		ptsim_mm_destroy(mm);
		mm = mm_with(m, SIZE, PTSIM_PROT_READ | PTSIM_PROT_WRITE);
		assert_int_equal(ptsim_madvise(mm, VA, SIZE, PTSIM_MADV_POPULATE_READ), 0);
		zero = pa_of(mm, VA);
		assert_int_equal(ptsim_madvise(mm, VA, SIZE, PTSIM_MADV_POPULATE_WRITE), 0);
		for (uint64_t a = VA; a < VA + SIZE; a += PAGE) {
			assert_int_not_equal(pa_of(mm, a), zero);
			assert_true(writable(mm, a));
		}
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sense_support),
		cmocka_unit_test(test_prot_read),
		cmocka_unit_test(test_prot_write),
		cmocka_unit_test(test_holes),
		cmocka_unit_test(test_populate_read),
		cmocka_unit_test(test_populate_write),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
