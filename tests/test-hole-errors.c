// SPDX-License-Identifier: MIT
/*
 * A call that meets a hole part-way (issue 27 item 4), both contracts
 * (ptsim_mm_set_kernel_errors): by default mprotect, MADV_DONTNEED and mlock
 * change nothing and return -ENOMEM, totals included; with the kernel's
 * behaviour on (v6.12 do_mprotect_pkey, madvise_walk_vmas,
 * apply_vma_lock_flags) they change what the kernel changes before returning
 * -ENOMEM, and count it as a call over that part counts it.
 *
 * The layout: A = [VA, VA + 16 pages) written, a hole of 16 pages, B = the
 * next 16 pages written; the calls cover A, the hole and B.
 */
#include "helpers.h"

#define VA SZ_1G
#define NR 16u
#define PART (NR * SZ_4K)
#define RANGE (3 * PART)
#define B (VA + 2 * PART)

static struct ptsim_mm *two_vmas(struct ptsim_machine *m)
{
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, RANGE);

	assert_int_equal(ptsim_populate(mm, VA, RANGE, 0, true), 0);
	assert_int_equal(ptsim_munmap(mm, VA + PART, PART), 0);
	return mm;
}

static bool writable(const struct ptsim_mm *mm, uint64_t va)
{
	struct ptsim_translation t;

	assert_int_equal(ptsim_translate(mm, va, &t), 0);
	return t.write || !t.read_only;
}

static bool mapped(const struct ptsim_mm *mm, uint64_t va)
{
	struct ptsim_translation t;

	return ptsim_translate(mm, va, &t) == 0;
}

static bool locked(const struct ptsim_mm *mm, uint64_t va)
{
	const struct vma *v = find_vma(mm, va);

	assert_non_null(v);
	return v->flags & VM_LOCKED;
}

static struct ptsim_stats totals(const struct ptsim_machine *m)
{
	struct ptsim_stats st;

	assert_int_equal(ptsim_total_stats(m, &st), 0);
	return st;
}

/* The failed call's counts are in the totals: after = before + last. */
static void assert_counted(const struct ptsim_stats *before, const struct ptsim_stats *after,
			   const struct ptsim_stats *last)
{
	for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++)
		assert_int_equal(after->ev[e], before->ev[e] + last->ev[e]);
}

static void assert_same_stats(const struct ptsim_stats *a, const struct ptsim_stats *b)
{
	for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++)
		if (a->ev[e] != b->ev[e])
			fail_msg("%s: %llu, expected %llu", ptsim_event_name((enum ptsim_event)e),
				 (unsigned long long)a->ev[e], (unsigned long long)b->ev[e]);
}

/* Default: mprotect over A, the hole and B changes nothing, totals included. */
static void test_mprotect_hole_unchanged(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.12");
	struct ptsim_mm *mm = two_vmas(m);
	struct ptsim_stats before = totals(m), after;

	(void)state;
	assert_int_equal(ptsim_mprotect(mm, VA, RANGE, PTSIM_PROT_READ), -ENOMEM);
	after = totals(m);
	assert_same_stats(&after, &before);
	assert_true(writable(mm, VA) && writable(mm, B));
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/*
 * Kernel errors: A becomes read-only, then -ENOMEM at the hole; B keeps its
 * protection. The call counts what an mprotect of A alone counts
 * (mprotect_fixup of A, the one mmu_gather), and the totals keep it.
 */
static void test_mprotect_hole_kernel(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.12");
	struct ptsim_mm *mm = two_vmas(m), *ref;
	struct ptsim_stats before, after, last, want;

	(void)state;
	assert_int_equal(ptsim_mm_set_kernel_errors(mm, true), 0);
	assert_int_equal(ptsim_mm_clone(mm, &ref), 0);
	before = totals(m);
	assert_int_equal(ptsim_mprotect(mm, VA, RANGE, PTSIM_PROT_READ), -ENOMEM);
	last = last_stats(m);
	after = totals(m);
	assert_counted(&before, &after, &last);
	for (unsigned int i = 0; i < NR; i++) {
		assert_false(writable(mm, VA + i * SZ_4K));
		assert_true(writable(mm, B + i * SZ_4K));
	}
	assert_int_equal(ptsim_mprotect(ref, VA, PART, PTSIM_PROT_READ), 0);
	want = last_stats(ptsim_mm_machine(ref));
	assert_same_stats(&last, &want);
	/* no VMA at the start: -ENOMEM before anything, even so */
	before = totals(m);
	assert_int_equal(ptsim_mprotect(mm, VA + PART, 2 * PART, PTSIM_PROT_NONE), -ENOMEM);
	after = totals(m);
	assert_same_stats(&after, &before);
	assert_true(writable(mm, B));
	assert_invariants(m);
	ptsim_mm_destroy(ref);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/* Default: MADV_DONTNEED over A, the hole and B changes nothing. */
static void test_dontneed_hole_unchanged(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.12");
	struct ptsim_mm *mm = two_vmas(m);
	struct ptsim_stats before = totals(m), after;

	(void)state;
	assert_int_equal(ptsim_madvise(mm, VA, RANGE, PTSIM_MADV_DONTNEED), -ENOMEM);
	after = totals(m);
	assert_same_stats(&after, &before);
	assert_true(mapped(mm, VA) && mapped(mm, B));
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/*
 * Kernel errors: madvise_walk_vmas zaps A and B, skipping the hole, then
 * returns -ENOMEM; a range that starts in the hole zaps B. The call counts
 * the two DONTNEEDs of A and of B, less one system call and one mmap_lock
 * hold.
 */
static void test_dontneed_hole_kernel(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.12");
	struct ptsim_mm *mm = two_vmas(m), *ref, *from_hole;
	struct ptsim_stats before, after, last, want = { { 0 } }, one;

	(void)state;
	assert_int_equal(ptsim_mm_set_kernel_errors(mm, true), 0);
	assert_int_equal(ptsim_mm_clone(mm, &ref), 0);
	assert_int_equal(ptsim_mm_clone(mm, &from_hole), 0);
	before = totals(m);
	assert_int_equal(ptsim_madvise(mm, VA, RANGE, PTSIM_MADV_DONTNEED), -ENOMEM);
	last = last_stats(m);
	after = totals(m);
	assert_counted(&before, &after, &last);
	for (unsigned int i = 0; i < NR; i++) {
		assert_false(mapped(mm, VA + i * SZ_4K));
		assert_false(mapped(mm, B + i * SZ_4K));
	}
	for (int i = 0; i < 2; i++) {
		assert_int_equal(ptsim_madvise(ref, VA + 2 * i * PART, PART, PTSIM_MADV_DONTNEED), 0);
		one = last_stats(ptsim_mm_machine(ref));
		for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++)
			want.ev[e] += one.ev[e];
	}
	want.ev[PTSIM_EV_SYSCALL]--;
	want.ev[PTSIM_EV_RWSEM]--;
	/* and that hold's two atomics on mm->mmap_lock, L1 hits (mmap_read_lock's lines) */
	want.ev[PTSIM_EV_DCACHE_OBJ_L1_HIT] -= 2;
	assert_same_stats(&last, &want);
	/* from inside the hole: B is zapped, A kept */
	assert_int_equal(ptsim_madvise(from_hole, VA + PART, 2 * PART, PTSIM_MADV_DONTNEED),
			 -ENOMEM);
	assert_true(mapped(from_hole, VA));
	assert_false(mapped(from_hole, B));
	/* no VMA at all in the range: nothing */
	before = totals(m);
	assert_int_equal(ptsim_madvise(mm, VA + PART, PART, PTSIM_MADV_DONTNEED), -ENOMEM);
	after = totals(m);
	assert_same_stats(&after, &before);
	assert_invariants(m);
	ptsim_mm_destroy(from_hole);
	ptsim_mm_destroy(ref);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/* Default: mlock over A, the hole and B locks nothing. */
static void test_mlock_hole_unchanged(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.12");
	struct ptsim_mm *mm = two_vmas(m);
	struct ptsim_stats before = totals(m), after;

	(void)state;
	assert_int_equal(ptsim_mlock(mm, VA, RANGE), -ENOMEM);
	after = totals(m);
	assert_same_stats(&after, &before);
	assert_false(locked(mm, VA) || locked(mm, B));
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/*
 * Kernel errors: apply_vma_lock_flags locks A (mlock_fixup and its page
 * walk), stops at the hole with -ENOMEM, and do_mlock does not populate: the
 * call counts what munlock of A then counts in reverse, the walk of A's
 * pages (an mlock of A alone adds its populate). munlock likewise unlocks A
 * only.
 */
static void test_mlock_hole_kernel(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.12");
	struct ptsim_mm *mm = two_vmas(m), *ref;
	struct ptsim_stats before, after, last, lock_a, unlock_a;

	(void)state;
	assert_int_equal(ptsim_mm_set_kernel_errors(mm, true), 0);
	assert_int_equal(ptsim_mm_clone(mm, &ref), 0);
	before = totals(m);
	assert_int_equal(ptsim_mlock(mm, VA, RANGE), -ENOMEM);
	last = last_stats(m);
	after = totals(m);
	assert_counted(&before, &after, &last);
	assert_true(locked(mm, VA));
	assert_false(locked(mm, B));
	assert_int_equal(last.ev[PTSIM_EV_SYSCALL], 1);
	/* an mlock of A alone does the same and then populates (GUP over present pages) */
	assert_int_equal(ptsim_mlock(ref, VA, PART), 0);
	lock_a = last_stats(ptsim_mm_machine(ref));
	for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++)
		assert_true(last.ev[e] <= lock_a.ev[e]);
	assert_true(last.ev[PTSIM_EV_PTE_READ] < lock_a.ev[PTSIM_EV_PTE_READ]);
	assert_int_equal(last.ev[PTSIM_EV_PTE_READ], 2 * NR);	/* the walk and folio_mlock_step */
	/* munlock over the hole: A unlocked, as munlock of A alone */
	assert_int_equal(ptsim_munlock(mm, VA, RANGE), -ENOMEM);
	last = last_stats(m);
	assert_false(locked(mm, VA));
	assert_int_equal(ptsim_munlock(ref, VA, PART), 0);
	unlock_a = last_stats(ptsim_mm_machine(ref));
	assert_same_stats(&last, &unlock_a);
	assert_invariants(m);
	ptsim_mm_destroy(ref);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/* The switch: a NULL mm is refused; a fork's child keeps it. */
static void test_switch(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.12");
	struct ptsim_mm *mm = two_vmas(m), *child;

	(void)state;
	assert_int_equal(ptsim_mm_set_kernel_errors(NULL, true), -EINVAL);
	assert_int_equal(ptsim_mm_set_kernel_errors(mm, true), 0);
	assert_int_equal(ptsim_fork(mm, &child), 0);
	assert_int_equal(ptsim_mlock(child, VA, RANGE), -ENOMEM);
	assert_true(locked(child, VA));
	assert_int_equal(ptsim_mm_set_kernel_errors(mm, false), 0);
	assert_int_equal(ptsim_mlock(mm, VA, RANGE), -ENOMEM);
	assert_false(locked(mm, VA));
	assert_invariants(m);
	ptsim_mm_destroy(child);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mprotect_hole_unchanged),
		cmocka_unit_test(test_mprotect_hole_kernel),
		cmocka_unit_test(test_dontneed_hole_unchanged),
		cmocka_unit_test(test_dontneed_hole_kernel),
		cmocka_unit_test(test_mlock_hole_unchanged),
		cmocka_unit_test(test_mlock_hole_kernel),
		cmocka_unit_test(test_switch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
