// SPDX-License-Identifier: MIT
/*
 * UFFDIO_MOVE's validation, in the kernel's order (doc/uffd-move.md), on every
 * preset: userfaultfd_move (fs/userfaultfd.c) reads mmap_changing before the
 * arguments; move_pages' uffd_move_lock (mm/userfaultfd.c) finds dst then src
 * (-ENOENT since "userfaultfd: use per-vma locks in userfaultfd operations",
 * v6.9; -EINVAL in v6.8's find_vma lookup); validate_move_areas refuses an
 * mlocked VMA paired with one that is not (-EINVAL). The expectations follow
 * the kernel source of v6.8 (the UFFDIO_MOVE series) and v6.12.
 */
#include "helpers.h"

#define SRC SZ_1G
#define DST (2 * SZ_1G)
#define HOLE (3 * SZ_1G)	/* no VMA here */
#define LEN (4 * SZ_4K)
#define RW (PTSIM_PROT_READ | PTSIM_PROT_WRITE)
#define PA (PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS)

static const char *const presets[] = {
	"v6.8", "v6.9-midpoint", "v6.9", "v6.10", "baseline", "v6.16", "v6.17", "v6.18", "v6.19",
	"patched",
};
#define NR_PRESETS (sizeof(presets) / sizeof(presets[0]))

/* Kernels with the per-VMA-lock lookup: every preset from v6.9 on. */
static bool per_vma_lock(const char *preset)
{
	return strcmp(preset, "v6.8") && strcmp(preset, "v6.9-midpoint");
}

struct fx {
	struct ptsim_machine *m;
	struct ptsim_mm *mm;
	uint64_t src_pa;	/* what SRC maps */
};

/* src: LEN of order-0 pages; dst: a registered, empty VMA of LEN. */
static struct fx setup(const char *preset)
{
	struct ptsim_translation tr;
	struct fx f;

	f.m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_ANDROID_X1, preset);
	assert_int_equal(ptsim_mm_create(f.m, &f.mm), 0);
	assert_int_equal(ptsim_mmap(f.mm, SRC, LEN, RW, PA, NULL), 0);
	assert_int_equal(ptsim_mmap(f.mm, DST, LEN, RW, PA, NULL), 0);
	assert_int_equal(ptsim_populate(f.mm, SRC, LEN, 0, true), 0);
	assert_int_equal(ptsim_uffd_register(f.mm, DST, LEN), 0);
	assert_int_equal(ptsim_translate(f.mm, SRC, &tr), 0);
	f.src_pa = tr.pa;
	return f;
}

/* The refused call counted its system call and nothing else, and left the totals alone. */
static void assert_only_syscall(struct fx *f, const struct ptsim_stats *before)
{
	struct ptsim_stats s, t;

	assert_int_equal(ptsim_last_stats(f->m, &s), 0);
	for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++)
		assert_int_equal(s.ev[e], e == PTSIM_EV_SYSCALL ? 1 : 0);
	assert_int_equal(ptsim_total_stats(f->m, &t), 0);
	assert_memory_equal(&t, before, sizeof(t));
}

/* Nothing moved: SRC still maps its page, DST nothing. */
static void assert_unmoved(struct fx *f)
{
	struct ptsim_translation tr;

	assert_int_equal(ptsim_translate(f->mm, SRC, &tr), 0);
	assert_int_equal(tr.pa, f->src_pa);
	assert_int_equal(ptsim_translate(f->mm, DST, &tr), -ENOENT);
}

/* userfaultfd_move answers -EAGAIN while the mm is changing, before it reads the arguments. */
static void test_mmap_changing_before_arguments(void **state)
{
	(void)state;
	for (size_t p = 0; p < NR_PRESETS; p++) {
		struct fx f = setup(presets[p]);
		struct ptsim_stats before;

		assert_int_equal(ptsim_uffd_set_mmap_changing(f.mm, true), 0);
		assert_int_equal(ptsim_total_stats(f.m, &before), 0);
		/* a zeroed argument block */
		assert_int_equal(ptsim_uffd_move(f.mm, 0, 0, 0, 0), -EAGAIN);
		assert_only_syscall(&f, &before);
		/* unaligned, wrapping, unknown mode bits: still -EAGAIN */
		assert_int_equal(ptsim_uffd_move(f.mm, DST + 1, SRC, SZ_4K, 0), -EAGAIN);
		assert_int_equal(ptsim_uffd_move(f.mm, UINT64_MAX & ~UINT64_C(4095), SRC, SZ_2M, 0),
				 -EAGAIN);
		assert_int_equal(ptsim_uffd_move(f.mm, DST, SRC, SZ_4K, 0x80), -EAGAIN);
		/* valid arguments, missing VMAs: -EAGAIN too */
		assert_int_equal(ptsim_uffd_move(f.mm, HOLE, HOLE, SZ_4K, 0), -EAGAIN);
		assert_int_equal(ptsim_uffd_move(f.mm, DST, SRC, SZ_4K, 0), -EAGAIN);
		assert_only_syscall(&f, &before);
		assert_unmoved(&f);
		/* a NULL mm is still a bad argument */
		assert_int_equal(ptsim_uffd_move(NULL, 0, 0, 0, 0), -EINVAL);
		/* not changing: the zeroed block is the argument error it is */
		assert_int_equal(ptsim_uffd_set_mmap_changing(f.mm, false), 0);
		assert_int_equal(ptsim_uffd_move(f.mm, 0, 0, 0, 0), -EINVAL);
		assert_int_equal(ptsim_uffd_move(f.mm, DST, SRC, SZ_4K, 0), (int64_t)SZ_4K);
		ptsim_machine_destroy(f.m);
	}
}

/* validate_move_areas: both VMAs mlocked or neither. */
static void test_mlocked_mismatch(void **state)
{
	(void)state;
	for (size_t p = 0; p < NR_PRESETS; p++) {
		struct fx f = setup(presets[p]);
		struct ptsim_translation tr;

		/* src mlocked, dst not */
		assert_int_equal(ptsim_mlock(f.mm, SRC, LEN), 0);
		assert_int_equal(ptsim_uffd_move(f.mm, DST, SRC, SZ_4K, 0), -EINVAL);
		assert_unmoved(&f);
		assert_int_equal(ptsim_munlock(f.mm, SRC, LEN), 0);
		/* neither: the move goes through, the page now maps at DST */
		assert_int_equal(ptsim_uffd_move(f.mm, DST, SRC, SZ_4K, 0), (int64_t)SZ_4K);
		assert_int_equal(ptsim_translate(f.mm, DST, &tr), 0);
		assert_int_equal(tr.pa, f.src_pa);
		assert_int_equal(ptsim_translate(f.mm, SRC, &tr), -ENOENT);
		/*
		 * dst mlocked (its populate filled it), src not: -EINVAL, from
		 * validate_move_areas before the walk could see dst occupied (-EEXIST)
		 */
		assert_int_equal(ptsim_mlock(f.mm, DST + SZ_4K, SZ_4K), 0);
		assert_int_equal(ptsim_translate(f.mm, DST + SZ_4K, &tr), 0);
		assert_int_equal(ptsim_uffd_move(f.mm, DST + SZ_4K, SRC + SZ_4K, SZ_4K, 0), -EINVAL);
		assert_int_equal(ptsim_translate(f.mm, SRC + SZ_4K, &tr), 0);
		ptsim_machine_destroy(f.m);
	}
}

/* uffd_move_lock: a missing VMA, dst looked up first. */
static void test_missing_vma(void **state)
{
	(void)state;
	for (size_t p = 0; p < NR_PRESETS; p++) {
		struct fx f = setup(presets[p]);
		int64_t missing = per_vma_lock(presets[p]) ? -ENOENT : -EINVAL;
		struct ptsim_stats before;

		assert_int_equal(ptsim_total_stats(f.m, &before), 0);
		assert_int_equal(ptsim_uffd_move(f.mm, HOLE, SRC, SZ_4K, 0), missing);
		assert_only_syscall(&f, &before);
		assert_int_equal(ptsim_uffd_move(f.mm, DST, HOLE, SZ_4K, 0), missing);
		assert_only_syscall(&f, &before);
		assert_int_equal(ptsim_uffd_move(f.mm, HOLE, HOLE, SZ_4K, 0), missing);
		/* src missing, dst not registered: the lookup comes before validate_move_areas */
		assert_int_equal(ptsim_uffd_move(f.mm, SRC, HOLE, SZ_4K, 0), missing);
		/* dst missing, src mlocked: the same */
		assert_int_equal(ptsim_mlock(f.mm, SRC, LEN), 0);
		assert_int_equal(ptsim_total_stats(f.m, &before), 0);
		assert_int_equal(ptsim_uffd_move(f.mm, HOLE, SRC, SZ_4K, 0), missing);
		assert_only_syscall(&f, &before);
		assert_int_equal(ptsim_munlock(f.mm, SRC, LEN), 0);
		/* both VMAs there, the range past dst's end: -EINVAL on every release */
		assert_int_equal(ptsim_uffd_move(f.mm, DST, SRC, 2 * LEN, 0), -EINVAL);
		/* just before the hole: dst's VMA ends at DST + LEN */
		assert_int_equal(ptsim_uffd_move(f.mm, DST + LEN, SRC, SZ_4K, 0), missing);
		assert_unmoved(&f);
		ptsim_machine_destroy(f.m);
	}
}

/* The feature follows the preset: on from v6.9. */
static void test_feature_follows_preset(void **state)
{
	(void)state;
	for (size_t p = 0; p < NR_PRESETS; p++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_ANDROID_X1,
						      presets[p]);
		enum ptsim_feature feat;
		bool on;

		assert_int_equal(ptsim_feature_get(m, PTSIM_FEAT_UFFD_PER_VMA_LOCK, &on), 0);
		assert_int_equal(on, per_vma_lock(presets[p]));
		assert_int_equal(ptsim_feature_lookup("uffd_per_vma_lock", &feat), 0);
		assert_int_equal(feat, PTSIM_FEAT_UFFD_PER_VMA_LOCK);
		ptsim_machine_destroy(m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mmap_changing_before_arguments),
		cmocka_unit_test(test_mlocked_mismatch),
		cmocka_unit_test(test_missing_vma),
		cmocka_unit_test(test_feature_follows_preset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
