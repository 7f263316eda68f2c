// SPDX-License-Identifier: MIT
/*
 * What mremap leaves in the VMAs (v6.12 mm/mremap.c move_vma, fs/userfaultfd.c
 * mremap_userfaultfd_prep), on every preset: MREMAP_DONTUNMAP's old VMA
 * loses VM_LOCKED / VM_LOCKONFAULT (an mlocked one is split at the range's
 * edges first) and, when it is exactly the moved range, its anon_vma and its
 * faulted page offset; a moved uffd-registered VMA drops its registration
 * (the model's userfaultfd context has no UFFD_FEATURE_EVENT_REMAP).
 */
#include "helpers.h"

#define RW (PTSIM_PROT_READ | PTSIM_PROT_WRITE)
#define ANON (PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS)
#define VA SZ_1G
#define DST (4 * SZ_1G)

struct vmas {
	struct ptsim_vma_info v[8];
	unsigned int n;
};

static int collect(const struct ptsim_vma_info *vi, void *arg)
{
	struct vmas *s = arg;

	if (s->n < 8)
		s->v[s->n] = *vi;
	s->n++;
	return 0;
}

static struct vmas vmas_of(struct ptsim_mm *mm)
{
	struct vmas s = { .n = 0 };

	assert_int_equal(ptsim_vma_foreach(mm, collect, &s), 0);
	return s;
}

/* The VMA that holds va. */
static struct ptsim_vma_info vma_at(struct ptsim_mm *mm, uint64_t va)
{
	struct vmas s = vmas_of(mm);

	for (unsigned int i = 0; i < s.n && i < 8; i++)
		if (s.v[i].start <= va && va < s.v[i].end)
			return s.v[i];
	fail_msg("no VMA at 0x%llx", (unsigned long long)va);
	return s.v[0];
}

static void mm_done(struct ptsim_machine *m, struct ptsim_mm *mm)
{
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/* A DONTUNMAP move of a whole mlocked VMA: the old one stays, unlocked, unfaulted. */
static void test_dontunmap_whole_locked(void **state)
{
	const char *preset;

	(void)state;
	for (unsigned int p = 0; (preset = ptsim_preset_name(p)); p++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, preset);
		struct ptsim_mm *mm = new_mm_with_vma(m, VA, 4 * SZ_4K);
		struct ptsim_vma_info old, moved;
		uint64_t out;

		assert_int_equal(ptsim_mlock(mm, VA, 4 * SZ_4K), 0);
		assert_true(vma_at(mm, VA).anon_vma);
		assert_int_equal(ptsim_mremap(mm, VA, 4 * SZ_4K, 4 * SZ_4K,
					      PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_DONTUNMAP, 0, &out), 0);
		old = vma_at(mm, VA);
		moved = vma_at(mm, out);
		assert_int_equal(old.start, VA);
		assert_int_equal(old.end, VA + 4 * SZ_4K);
		assert_false(old.locked);
		assert_false(old.anon_vma);
		assert_int_equal(old.rss, 0);
		assert_int_equal(old.pgoff, VA >> 12);
		assert_true(moved.locked);
		assert_true(moved.anon_vma);
		assert_int_equal(moved.rss, 4 * SZ_4K);
		assert_int_equal(moved.pgoff, VA >> 12);	/* the pages keep their offset */
		mm_done(m, mm);
	}
}

/* A DONTUNMAP move of part of an mlocked VMA: split first; only the moved part loses VM_LOCKED. */
static void test_dontunmap_part_locked(void **state)
{
	const char *preset;

	(void)state;
	for (unsigned int p = 0; (preset = ptsim_preset_name(p)); p++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, preset);
		struct ptsim_mm *mm = new_mm_with_vma(m, VA, 4 * SZ_4K);
		struct ptsim_vma_info old;
		struct vmas s;
		uint64_t out;

		assert_int_equal(ptsim_mlock(mm, VA, 4 * SZ_4K), 0);
		assert_int_equal(ptsim_mremap(mm, VA + SZ_4K, 2 * SZ_4K, 2 * SZ_4K,
					      PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_DONTUNMAP | PTSIM_MREMAP_FIXED,
					      DST, &out), 0);
		s = vmas_of(mm);
		assert_int_equal(s.n, 4);	/* locked, the unlocked old range, locked, the moved range */
		assert_true(vma_at(mm, VA).locked);
		assert_int_equal(vma_at(mm, VA).end, VA + SZ_4K);
		old = vma_at(mm, VA + SZ_4K);
		assert_int_equal(old.start, VA + SZ_4K);
		assert_int_equal(old.end, VA + 3 * SZ_4K);
		assert_false(old.locked);
		assert_false(old.anon_vma);
		assert_int_equal(old.pgoff, (VA + SZ_4K) >> 12);
		assert_true(vma_at(mm, VA + 3 * SZ_4K).locked);
		assert_true(vma_at(mm, DST).locked);
		assert_int_equal(vma_at(mm, DST).rss, 2 * SZ_4K);
		mm_done(m, mm);
	}
}

/* Not locked, part of a VMA: no split; the old VMA keeps its anon_vma (it still maps the rest). */
static void test_dontunmap_part_unlocked(void **state)
{
	const char *preset;

	(void)state;
	for (unsigned int p = 0; (preset = ptsim_preset_name(p)); p++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, preset);
		struct ptsim_mm *mm = new_mm_with_vma(m, VA, 4 * SZ_4K);
		struct ptsim_vma_info old;
		uint64_t out;

		for (uint64_t i = 0; i < 4; i++)
			assert_int_equal(ptsim_fault(mm, VA + i * SZ_4K, PTSIM_ACCESS_WRITE), 0);
		assert_int_equal(ptsim_mremap(mm, VA + SZ_4K, SZ_4K, SZ_4K,
					      PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_DONTUNMAP | PTSIM_MREMAP_FIXED,
					      DST, &out), 0);
		old = vma_at(mm, VA);
		assert_int_equal(old.start, VA);
		assert_int_equal(old.end, VA + 4 * SZ_4K);
		assert_true(old.anon_vma);
		assert_int_equal(old.pgoff, VA >> 12);
		assert_int_equal(old.rss, 3 * SZ_4K);
		mm_done(m, mm);
	}
}

/* mremap_userfaultfd_prep without UFFD_FEATURE_EVENT_REMAP: the moved VMA is no longer registered. */
static void test_uffd_dropped_by_move(void **state)
{
	const char *preset;

	(void)state;
	for (unsigned int p = 0; (preset = ptsim_preset_name(p)); p++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, preset);
		struct ptsim_mm *mm = new_mm_with_vma(m, VA, 4 * SZ_4K);
		uint64_t out;

		assert_int_equal(ptsim_uffd_register(mm, VA, 4 * SZ_4K), 0);
		assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_WRITE), 0);
		assert_true(vma_at(mm, VA).uffd);
		assert_int_equal(ptsim_mremap(mm, VA, 4 * SZ_4K, 4 * SZ_4K,
					      PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED, DST, &out), 0);
		assert_false(vma_at(mm, DST).uffd);
		assert_int_equal(vma_at(mm, DST).rss, SZ_4K);
		/* DONTUNMAP: the old VMA stays registered, the new one is not */
		assert_int_equal(ptsim_mmap(mm, VA, 4 * SZ_4K, RW, ANON, NULL), 0);
		assert_int_equal(ptsim_uffd_register(mm, VA, 4 * SZ_4K), 0);
		assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_WRITE), 0);
		assert_int_equal(ptsim_mremap(mm, VA, 4 * SZ_4K, 4 * SZ_4K,
					      PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_DONTUNMAP, 0, &out), 0);
		assert_true(vma_at(mm, VA).uffd);
		assert_false(vma_at(mm, out).uffd);
		mm_done(m, mm);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dontunmap_whole_locked),
		cmocka_unit_test(test_dontunmap_part_locked),
		cmocka_unit_test(test_dontunmap_part_unlocked),
		cmocka_unit_test(test_uffd_dropped_by_move),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
