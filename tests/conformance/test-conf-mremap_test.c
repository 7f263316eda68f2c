// SPDX-License-Identifier: MIT
/*
 * Conformance: the expectations of the kernel selftest
 * tools/testing/selftests/mm/mremap_test.c (as of v6.17, with the
 * multiple-VMA tests of "mm/mremap: permit mremap() move of multiple VMAs"),
 * written afresh over the public API. Each test names the selftest case it
 * follows and runs on every preset; where the release decides (moves of
 * several VMAs, v6.17: "mremap_multi_vma"), it asserts what that release
 * does. The selftest compares byte patterns; here a page's content is its
 * translation: the PFN each VA maps before and after the call.
 *
 * Whether a range is mapped is probed as the selftest's
 * is_remap_region_valid() does: an mmap of it that refuses to replace
 * (-EEXIST when anything is there). Whether one VMA covers a range (its
 * is_range_mapped() over /proc/self/maps) reads the model's VMA list, which
 * the public API does not list yet.
 */
#include "helpers.h"

#define SZ_1M	(SZ_2M / 2)
#define RW	(PTSIM_PROT_READ | PTSIM_PROT_WRITE)
#define PRIV	(PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS)
#define SHARED	(PTSIM_MAP_SHARED | PTSIM_MAP_ANONYMOUS)
#define PAGE	SZ_4K
#define BASE	(UINT64_C(1) << 36)	/* well above mmap_min_addr and the first-fit start */
#define MAX_PAGES 1024u			/* the selftest validates 4 MB (its default threshold) */

static struct ptsim_machine *preset_machine(unsigned int i)
{
	return new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, ptsim_preset_name(i));
}

static bool multi_vma(const struct ptsim_machine *m)
{
	bool on;

	assert_int_equal(ptsim_feature_get(m, PTSIM_FEAT_MREMAP_MULTI_VMA, &on), 0);
	return on;
}

static struct ptsim_mm *new_mm(struct ptsim_machine *m)
{
	struct ptsim_mm *mm = NULL;

	assert_int_equal(ptsim_mm_create(m, &mm), 0);
	return mm;
}

static void map_at(struct ptsim_mm *mm, uint64_t addr, uint64_t len, unsigned int prot,
		   unsigned int flags)
{
	uint64_t out;

	assert_int_equal(ptsim_mmap(mm, addr, len, prot, flags, &out), 0);
	assert_int_equal(out, addr);
}

/* Fault every page of [addr, addr + len) in for writing: the selftest's memset. */
static void fill(struct ptsim_mm *mm, uint64_t addr, uint64_t len)
{
	assert_int_equal(ptsim_populate(mm, addr, len, 0, true), 0);
}

static uint64_t pfn_at(const struct ptsim_mm *mm, uint64_t va)
{
	struct ptsim_translation t;

	assert_int_equal(ptsim_translate(mm, va, &t), 0);
	return t.pa >> 12;
}

static bool has_pte(const struct ptsim_mm *mm, uint64_t va)
{
	struct ptsim_translation t;

	return ptsim_translate(mm, va, &t) == 0;
}

/* The PFNs of the pages of [addr, addr + n pages). */
static void record(const struct ptsim_mm *mm, uint64_t addr, unsigned int n, uint64_t *pfn)
{
	for (unsigned int i = 0; i < n; i++)
		pfn[i] = pfn_at(mm, addr + i * PAGE);
}

/* [addr, addr + n pages) maps exactly the recorded PFNs: the data moved with its pages. */
static void assert_pfns(const struct ptsim_mm *mm, uint64_t addr, unsigned int n,
			const uint64_t *pfn)
{
	for (unsigned int i = 0; i < n; i++)
		if (pfn_at(mm, addr + i * PAGE) != pfn[i])
			fail_msg("va 0x%llx maps pfn 0x%llx, not 0x%llx",
				 (unsigned long long)(addr + i * PAGE),
				 (unsigned long long)pfn_at(mm, addr + i * PAGE),
				 (unsigned long long)pfn[i]);
}

/* is_remap_region_valid: is any part of [addr, addr + len) mapped? */
static bool is_mapped(struct ptsim_mm *mm, uint64_t addr, uint64_t len)
{
	uint64_t out;
	int err = ptsim_mmap(mm, addr, len, RW, PRIV, &out);

	if (err == -EEXIST)
		return true;
	assert_int_equal(err, 0);
	assert_int_equal(ptsim_munmap(mm, addr, len), 0);
	return false;
}

/* is_range_mapped: one VMA covers [start, end). */
static bool one_vma_covers(const struct ptsim_mm *mm, uint64_t start, uint64_t end)
{
	for (size_t i = 0; i < mm->nr_vmas; i++)
		if (mm->vmas[i].start <= start && end <= mm->vmas[i].end)
			return true;
	return false;
}

static void done(struct ptsim_machine *m, struct ptsim_mm *mm)
{
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/* ---- remap_region(): the test_cases table ---- */

/*
 * An address aligned to align but not to twice it (get_source_mapping's
 * rule against coincidental alignment), at or above from.
 */
static uint64_t aligned_only(uint64_t from, uint64_t align)
{
	uint64_t a = ALIGN_UP64(from, 2 * align) + align;

	return a;
}

/*
 * remap_region: a MAP_SHARED anonymous source of size bytes at src_align,
 * its first 4 MB written, moved with MREMAP_MAYMOVE | MREMAP_FIXED to a free
 * destination at dest_align past its end (after a written preamble mapping
 * of preamble bytes when asked); the data must be at the destination and the
 * preamble untouched.
 */
static void remap_region(uint64_t src_align, uint64_t dest_align, uint64_t size,
			 uint64_t preamble)
{
	static uint64_t pfn[MAX_PAGES], pre[MAX_PAGES];

	for (unsigned int p = 0; ptsim_preset_name(p); p++) {
		struct ptsim_machine *m = preset_machine(p);
		struct ptsim_mm *mm = new_mm(m);
		uint64_t src = aligned_only(BASE, src_align), dest, out = 0;
		uint64_t check = MIN(size, (uint64_t)MAX_PAGES * PAGE);
		unsigned int n = (unsigned int)(check / PAGE);
		unsigned int npre = (unsigned int)(MIN(preamble, (uint64_t)MAX_PAGES * PAGE) / PAGE);

		map_at(mm, src, size, RW, SHARED);
		fill(mm, src, check);
		record(mm, src, n, pfn);
		dest = aligned_only(src + size + dest_align + preamble, dest_align);
		if (preamble) {
			map_at(mm, dest - preamble, preamble, RW, SHARED);
			fill(mm, dest - preamble, npre * PAGE);
			record(mm, dest - preamble, npre, pre);
		}
		assert_int_equal(ptsim_mremap(mm, src, size, size,
					      PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED, dest, &out), 0);
		assert_int_equal(out, dest);
		assert_pfns(mm, dest, n, pfn);
		assert_false(is_mapped(mm, src, size));
		if (preamble)
			assert_pfns(mm, dest - preamble, npre, pre);
		done(m, mm);
	}
}

/* mremap_test: "mremap - Source and Destination Regions Overlapping" (expected failure) */
static void test_overlapping(void **state)
{
	(void)state;
	for (unsigned int p = 0; ptsim_preset_name(p); p++) {
		struct ptsim_machine *m = preset_machine(p);
		struct ptsim_mm *mm = new_mm(m);
		uint64_t src = aligned_only(BASE, PAGE), pfn;

		map_at(mm, src, PAGE, RW, SHARED);
		fill(mm, src, PAGE);
		pfn = pfn_at(mm, src);
		/* the destination starts one page before the source's end */
		assert_int_equal(ptsim_mremap(mm, src, PAGE, PAGE,
					      PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED,
					      src + PAGE - PAGE, NULL), -EINVAL);
		assert_int_equal(ptsim_mremap(mm, src, 2 * PAGE, 2 * PAGE,
					      PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED,
					      src + PAGE, NULL), -EINVAL);
		assert_int_equal(pfn_at(mm, src), pfn);
		done(m, mm);
	}
}

/* mremap_test: "mremap - Destination Address Misaligned (1KB-aligned)" (expected failure) */
static void test_dest_misaligned(void **state)
{
	(void)state;
	for (unsigned int p = 0; ptsim_preset_name(p); p++) {
		struct ptsim_machine *m = preset_machine(p);
		struct ptsim_mm *mm = new_mm(m);
		uint64_t src = aligned_only(BASE, PAGE), pfn;

		map_at(mm, src, PAGE, RW, SHARED);
		fill(mm, src, PAGE);
		pfn = pfn_at(mm, src);
		assert_int_equal(ptsim_mremap(mm, src, PAGE, PAGE,
					      PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED,
					      src + 16 * PAGE + 1024, NULL), -EINVAL);
		assert_int_equal(pfn_at(mm, src), pfn);
		done(m, mm);
	}
}

/*
 * mremap_test: "mremap - Source Address Misaligned (1KB-aligned)" (expected
 * failure): the selftest's mmap of the source already fails; an mremap of a
 * source address off a page boundary is -EINVAL too (check_mremap_params).
 */
static void test_source_misaligned(void **state)
{
	(void)state;
	for (unsigned int p = 0; ptsim_preset_name(p); p++) {
		struct ptsim_machine *m = preset_machine(p);
		struct ptsim_mm *mm = new_mm(m);
		uint64_t src = aligned_only(BASE, PAGE);

		assert_int_equal(ptsim_mmap(mm, src + 1024, PAGE, RW, SHARED, NULL), -EINVAL);
		map_at(mm, src, 2 * PAGE, RW, SHARED);
		assert_int_equal(ptsim_mremap(mm, src + 1024, PAGE, PAGE,
					      PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED,
					      src + 16 * PAGE, NULL), -EINVAL);
		done(m, mm);
	}
}

/* mremap_test: "8KB mremap - Source PTE-aligned, Destination PTE-aligned" */
static void test_8k_pte_pte(void **state)
{
	(void)state;
	remap_region(PAGE, PAGE, 2 * PAGE, 0);
}

/* mremap_test: "2MB mremap - Source 1MB-aligned, Destination PTE-aligned" and "... 1MB-aligned" */
static void test_2m_1m_aligned(void **state)
{
	(void)state;
	remap_region(SZ_1M, PAGE, SZ_2M, 0);
	remap_region(SZ_1M, SZ_1M, SZ_2M, 0);
}

/* mremap_test: "4MB mremap - Source PMD-aligned, Destination PTE-/1MB-/PMD-aligned" */
static void test_4m_pmd_aligned(void **state)
{
	(void)state;
	remap_region(SZ_2M, PAGE, 2 * SZ_2M, 0);
	remap_region(SZ_2M, SZ_1M, 2 * SZ_2M, 0);
	remap_region(SZ_2M, SZ_2M, 2 * SZ_2M, 0);
}

/* mremap_test: "2GB mremap - Source PUD-aligned, Destination PTE-/1MB-/PMD-/PUD-aligned" */
static void test_2g_pud_aligned(void **state)
{
	(void)state;
	remap_region(SZ_1G, PAGE, 2 * SZ_1G, 0);
	remap_region(SZ_1G, SZ_1M, 2 * SZ_1G, 0);
	remap_region(SZ_1G, SZ_2M, 2 * SZ_1G, 0);
	remap_region(SZ_1G, SZ_1G, 2 * SZ_1G, 0);
}

/*
 * mremap_test: "5MB mremap - Source 1MB-aligned, Destination 1MB-aligned"
 * and "... Dest 1MB-aligned with 40MB Preamble" (the preamble must keep its
 * data: a realigned move may not take the mapping before the destination)
 */
static void test_5m_1m_aligned(void **state)
{
	(void)state;
	remap_region(SZ_1M, SZ_1M, 5 * SZ_1M, 0);
	remap_region(SZ_1M, SZ_1M, 5 * SZ_1M, 40 * SZ_1M);
}

/* ---- the miscellaneous tests ---- */

/*
 * mremap_test: "mremap expand merge": three pages, the middle one unmapped,
 * the first grown in place over the hole merges with the third.
 */
static void test_expand_merge(void **state)
{
	(void)state;
	for (unsigned int p = 0; ptsim_preset_name(p); p++) {
		struct ptsim_machine *m = preset_machine(p);
		struct ptsim_mm *mm = new_mm(m);
		uint64_t out = 0;

		map_at(mm, BASE, 3 * PAGE, RW, PRIV);
		assert_int_equal(ptsim_munmap(mm, BASE + PAGE, PAGE), 0);
		assert_int_equal(ptsim_mremap(mm, BASE, PAGE, 2 * PAGE, 0, 0, &out), 0);
		assert_int_equal(out, BASE);
		assert_true(one_vma_covers(mm, BASE, BASE + 3 * PAGE));
		done(m, mm);
	}
}

/*
 * mremap_test: "mremap expand merge offset": the last page unmapped, the
 * middle one grown in place over it: one VMA again.
 */
static void test_expand_merge_offset(void **state)
{
	(void)state;
	for (unsigned int p = 0; ptsim_preset_name(p); p++) {
		struct ptsim_machine *m = preset_machine(p);
		struct ptsim_mm *mm = new_mm(m);
		uint64_t out = 0;

		map_at(mm, BASE, 3 * PAGE, RW, PRIV);
		assert_int_equal(ptsim_munmap(mm, BASE + 2 * PAGE, PAGE), 0);
		assert_int_equal(ptsim_mremap(mm, BASE + PAGE, PAGE, 2 * PAGE, 0, 0, &out), 0);
		assert_int_equal(out, BASE + PAGE);
		assert_true(one_vma_covers(mm, BASE, BASE + 3 * PAGE));
		done(m, mm);
	}
}

/*
 * mremap_test: "mremap mremap move within range": in a written 20 MB private
 * mapping, the second MB of a 2 MB-aligned block moves 2 MB down; the first
 * MB of the block (not moved) keeps its data.
 */
static void test_move_within_range(void **state)
{
	static uint64_t pfn[SZ_1M / PAGE], moved[SZ_1M / PAGE];

	(void)state;
	for (unsigned int p = 0; ptsim_preset_name(p); p++) {
		struct ptsim_machine *m = preset_machine(p);
		struct ptsim_mm *mm = new_mm(m);
		uint64_t ptr = BASE + 5 * PAGE, src, dest, out = 0;
		const unsigned int n = (unsigned int)(SZ_1M / PAGE);

		map_at(mm, ptr, 20 * SZ_1M, RW, PRIV);
		fill(mm, ptr, 20 * SZ_1M);
		src = ALIGN_DOWN64(ptr + 6 * SZ_1M, SZ_2M);
		dest = src - SZ_2M;
		record(mm, src, n, pfn);
		record(mm, src + SZ_1M, n, moved);
		assert_int_equal(ptsim_mremap(mm, src + SZ_1M, SZ_1M, SZ_1M,
					      PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED,
					      dest + SZ_1M, &out), 0);
		assert_int_equal(out, dest + SZ_1M);
		assert_pfns(mm, src, n, pfn);
		assert_pfns(mm, dest + SZ_1M, n, moved);
		done(m, mm);
	}
}

/*
 * mremap_test: "mremap move 1mb from start at 1MB+256KB aligned src": a
 * move whose addresses realign down to a PMD boundary where the destination
 * has nothing mapped must not take the source's first MB with it.
 */
static void test_move_1mb_from_start(void **state)
{
	static uint64_t pfn[SZ_1M / PAGE];

	(void)state;
	for (unsigned int p = 0; ptsim_preset_name(p); p++) {
		struct ptsim_machine *m = preset_machine(p);
		struct ptsim_mm *mm = new_mm(m);
		const uint64_t align = SZ_1M + SZ_1M / 4;
		uint64_t src = 64 * align, dest = 96 * align, out = 0;
		const unsigned int n = (unsigned int)(SZ_1M / PAGE);

		map_at(mm, src, 6 * SZ_1M, RW, SHARED);
		map_at(mm, dest, 6 * SZ_1M, RW, SHARED);
		fill(mm, src, SZ_2M);
		record(mm, src, n, pfn);
		assert_int_equal(ptsim_munmap(mm, dest, SZ_1M), 0);
		assert_int_equal(ptsim_mremap(mm, src + SZ_1M, SZ_1M, SZ_1M,
					      PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED,
					      dest + SZ_1M, &out), 0);
		assert_int_equal(out, dest + SZ_1M);
		assert_pfns(mm, src, n, pfn);
		done(m, mm);
	}
}

/*
 * mremap_test: "mremap shrink multiple vmas" [inplace] and without: ten
 * pages with every odd one unmapped shrink to the first page, in place and
 * with MREMAP_FIXED to a free target. The tail spans VMAs and holes; every
 * release unmaps it first (do_vmi_munmap), so this succeeds on every preset.
 */
static void shrink_multiple_vmas(bool inplace)
{
	for (unsigned int p = 0; ptsim_preset_name(p); p++) {
		struct ptsim_machine *m = preset_machine(p);
		struct ptsim_mm *mm = new_mm(m);
		const uint64_t ptr = BASE, tgt = BASE + 64 * PAGE;
		uint64_t out = 0, pfn;

		map_at(mm, ptr, 10 * PAGE, RW, PRIV);
		fill(mm, ptr, 10 * PAGE);
		pfn = pfn_at(mm, ptr);
		for (unsigned int i = 1; i < 10; i += 2)
			assert_int_equal(ptsim_munmap(mm, ptr + i * PAGE, PAGE), 0);
		if (inplace)
			assert_int_equal(ptsim_mremap(mm, ptr, 10 * PAGE, PAGE, 0, 0, &out), 0);
		else
			assert_int_equal(ptsim_mremap(mm, ptr, 10 * PAGE, PAGE,
						      PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED,
						      tgt, &out), 0);
		assert_int_equal(out, inplace ? ptr : tgt);
		assert_int_equal(pfn_at(mm, out), pfn);
		assert_false(is_mapped(mm, ptr + PAGE, 9 * PAGE));
		assert_false(inplace ? is_mapped(mm, tgt, PAGE) : is_mapped(mm, ptr, PAGE));
		done(m, mm);
	}
}

static void test_shrink_multiple_vmas_inplace(void **state)
{
	(void)state;
	shrink_multiple_vmas(true);
}

static void test_shrink_multiple_vmas(void **state)
{
	(void)state;
	shrink_multiple_vmas(false);
}

/* The written pages of the multiple-VMA layout: 0, 2, 4, 5, 6, 8, 10 of 11. */
static bool written_page(unsigned int i)
{
	return !(i & 1) || i == 5;
}

/*
 * The pages of [from, from + 11 pages) in the multiple-VMA layout map the
 * recorded PFNs, and its holes are free.
 */
static void assert_layout(struct ptsim_mm *mm, uint64_t from, const uint64_t *pfn)
{
	for (unsigned int i = 0; i < 11; i++) {
		if (written_page(i))
			assert_int_equal(pfn_at(mm, from + i * PAGE), pfn[i]);
		else
			assert_false(is_mapped(mm, from + i * PAGE, PAGE));
	}
}

/*
 * mremap_test: "mremap move multiple vmas" (and [dontunmap]): eleven pages
 * with pages 1, 3, 7 and 9 unmapped (five VMAs), written, moved whole with
 * MREMAP_FIXED to a free target, then next to itself, then back over a
 * PROT_NONE mapping. From v6.17 each move succeeds and keeps the layout
 * (holes included); before it the first is -EFAULT ("We can't remap across
 * vm area boundaries") and nothing moves.
 */
static void move_multiple_vmas(bool dontunmap)
{
	const unsigned int flags = PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED |
				   (dontunmap ? PTSIM_MREMAP_DONTUNMAP : 0);
	const uint64_t size = 11 * PAGE;

	for (unsigned int p = 0; ptsim_preset_name(p); p++) {
		struct ptsim_machine *m = preset_machine(p);
		struct ptsim_mm *mm = new_mm(m);
		const uint64_t ptr = BASE, tgt = BASE + 64 * PAGE;
		uint64_t pfn[11] = { 0 }, out = 0;

		map_at(mm, ptr, size, RW, PRIV);
		for (unsigned int i = 1; i < 10; i += 2)
			if (i != 5)
				assert_int_equal(ptsim_munmap(mm, ptr + i * PAGE, PAGE), 0);
		for (unsigned int i = 0; i < 11; i++) {
			if (written_page(i)) {
				fill(mm, ptr + i * PAGE, PAGE);
				pfn[i] = pfn_at(mm, ptr + i * PAGE);
			}
		}
		if (!multi_vma(m)) {
			assert_int_equal(ptsim_mremap(mm, ptr, size, size, flags, tgt, &out), -EFAULT);
			assert_layout(mm, ptr, pfn);
			assert_false(is_mapped(mm, tgt, size));
			done(m, mm);
			continue;
		}
		/* first, just move the whole thing */
		assert_int_equal(ptsim_mremap(mm, ptr, size, size, flags, tgt, &out), 0);
		assert_int_equal(out, tgt);
		assert_layout(mm, tgt, pfn);
		for (unsigned int i = 0; i < 11; i++)
			if (written_page(i))
				assert_false(has_pte(mm, ptr + i * PAGE));
		/* DONTUNMAP keeps the source VMAs, emptied; else they are gone */
		assert_true(is_mapped(mm, ptr, PAGE) == dontunmap);
		/* move next to itself */
		assert_int_equal(ptsim_mremap(mm, tgt, size, size, flags, tgt + size, &out), 0);
		assert_int_equal(out, tgt + size);
		assert_layout(mm, tgt + size, pfn);
		/* map a range to overwrite (MAP_FIXED: unmap, then map), move over it */
		assert_int_equal(ptsim_munmap(mm, tgt, size), 0);
		map_at(mm, tgt, size, PTSIM_PROT_NONE, PRIV);
		assert_int_equal(ptsim_mremap(mm, tgt + size, size, size, flags, tgt, &out), 0);
		assert_int_equal(out, tgt);
		for (unsigned int i = 0; i < 11; i++)
			if (written_page(i))
				assert_int_equal(pfn_at(mm, tgt + i * PAGE), pfn[i]);
		/*
		 * remap_move unmaps the target only where a VMA lands
		 * (mremap_to per VMA): the holes keep the PROT_NONE mapping
		 */
		assert_true(is_mapped(mm, tgt + PAGE, PAGE));
		done(m, mm);
	}
}

static void test_move_multiple_vmas(void **state)
{
	(void)state;
	move_multiple_vmas(false);
}

static void test_move_multiple_vmas_dontunmap(void **state)
{
	(void)state;
	move_multiple_vmas(true);
}

/*
 * mremap_test: "mremap move multiple vmas split" (and [dontunmap]): ten
 * pages with page 5 unmapped; [2, 9) moves to a free target, splitting both
 * VMAs: pages 2-4 and 6-8 land at target pages 0-2 and 4-6, the hole at 3
 * kept (v6.17). Before v6.17: -EFAULT, nothing moved.
 */
static void move_multiple_vmas_split(bool dontunmap)
{
	const unsigned int flags = PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED |
				   (dontunmap ? PTSIM_MREMAP_DONTUNMAP : 0);

	for (unsigned int p = 0; ptsim_preset_name(p); p++) {
		struct ptsim_machine *m = preset_machine(p);
		struct ptsim_mm *mm = new_mm(m);
		const uint64_t ptr = BASE, tgt = BASE + 64 * PAGE;
		uint64_t pfn[10] = { 0 }, out = 0;

		map_at(mm, ptr, 10 * PAGE, RW, PRIV);
		fill(mm, ptr, 10 * PAGE);
		assert_int_equal(ptsim_munmap(mm, ptr + 5 * PAGE, PAGE), 0);
		for (unsigned int i = 0; i < 10; i++)
			if (i != 5)
				pfn[i] = pfn_at(mm, ptr + i * PAGE);
		if (!multi_vma(m)) {
			assert_int_equal(ptsim_mremap(mm, ptr + 2 * PAGE, 7 * PAGE, 7 * PAGE, flags,
						      tgt, &out), -EFAULT);
			for (unsigned int i = 0; i < 10; i++)
				if (i != 5)
					assert_int_equal(pfn_at(mm, ptr + i * PAGE), pfn[i]);
			done(m, mm);
			continue;
		}
		assert_int_equal(ptsim_mremap(mm, ptr + 2 * PAGE, 7 * PAGE, 7 * PAGE, flags, tgt,
					      &out), 0);
		assert_int_equal(out, tgt);
		for (unsigned int i = 0; i < 7; i++) {
			if (i == 3)
				assert_false(is_mapped(mm, tgt + i * PAGE, PAGE));
			else
				assert_int_equal(pfn_at(mm, tgt + i * PAGE), pfn[i + 2]);
		}
		/* what was outside the range stays */
		for (unsigned int i = 0; i < 10; i++)
			if (i < 2 || i == 9)
				assert_int_equal(pfn_at(mm, ptr + i * PAGE), pfn[i]);
		done(m, mm);
	}
}

static void test_move_multiple_vmas_split(void **state)
{
	(void)state;
	move_multiple_vmas_split(false);
}

static void test_move_multiple_vmas_split_dontunmap(void **state)
{
	(void)state;
	move_multiple_vmas_split(true);
}

/*
 * mremap_test: "mremap move multiple invalid vmas": five one-page VMAs
 * (every other page of ten), each registered with userfaultfd. A move of
 * the whole range is -EFAULT and moves nothing (the first VMA is uffd-armed
 * and more follow: vma_multi_allowed, checked before the first move); one
 * VMA alone moves. With a plain VMA first, the whole-range move moves it and
 * stops at the next (-EFAULT); with only the last one armed, all but the
 * last move. Before v6.17 every multiple-VMA move is -EFAULT with nothing
 * moved.
 */
static void test_move_multi_invalid_vmas(void **state)
{
	const unsigned int flags = PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED;
	const uint64_t size = 10 * PAGE;

	(void)state;
	for (unsigned int p = 0; ptsim_preset_name(p); p++) {
		struct ptsim_machine *m = preset_machine(p);
		struct ptsim_mm *mm = new_mm(m);
		const uint64_t ptr = BASE, tgt = BASE + 64 * PAGE;
		bool multi = multi_vma(m);
		uint64_t out = 0;

		map_at(mm, ptr, size, RW, PRIV);
		for (unsigned int i = 0; i < 10; i += 2) {
			assert_int_equal(ptsim_uffd_register(mm, ptr + i * PAGE, PAGE), 0);
			assert_int_equal(ptsim_munmap(mm, ptr + (i + 1) * PAGE, PAGE), 0);
		}
		assert_int_equal(ptsim_mremap(mm, ptr, size, size, flags, tgt, &out), -EFAULT);
		assert_false(is_mapped(mm, tgt, PAGE));
		/* a single VMA: not a multiple-VMA move, uffd or not */
		assert_int_equal(ptsim_mremap(mm, ptr, PAGE, PAGE, flags, tgt, &out), 0);
		assert_int_equal(out, tgt);
		/* a valid VMA first */
		assert_int_equal(ptsim_munmap(mm, tgt, PAGE), 0);
		map_at(mm, ptr, PAGE, RW, PRIV);
		assert_int_equal(ptsim_mremap(mm, ptr, size, size, flags, tgt, &out), -EFAULT);
		assert_true(is_mapped(mm, tgt, PAGE) == multi);
		assert_true(is_mapped(mm, ptr, PAGE) == !multi);
		/* valid VMAs at 0, 2, 4 and 6, the armed one at 8 */
		if (multi)
			assert_int_equal(ptsim_munmap(mm, tgt, PAGE), 0);
		assert_int_equal(ptsim_munmap(mm, ptr, size - 2 * PAGE), 0);
		for (unsigned int i = 0; i < 8; i += 2)
			map_at(mm, ptr + i * PAGE, PAGE, RW, PRIV);
		assert_int_equal(ptsim_mremap(mm, ptr, size, size, flags, tgt, &out), -EFAULT);
		for (unsigned int i = 0; i < 10; i += 2)
			assert_true(is_mapped(mm, tgt + i * PAGE, PAGE) == (multi && i < 8));
		assert_true(is_mapped(mm, ptr + 8 * PAGE, PAGE));
		done(m, mm);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_overlapping),
		cmocka_unit_test(test_dest_misaligned),
		cmocka_unit_test(test_source_misaligned),
		cmocka_unit_test(test_8k_pte_pte),
		cmocka_unit_test(test_2m_1m_aligned),
		cmocka_unit_test(test_4m_pmd_aligned),
		cmocka_unit_test(test_2g_pud_aligned),
		cmocka_unit_test(test_5m_1m_aligned),
		cmocka_unit_test(test_expand_merge),
		cmocka_unit_test(test_expand_merge_offset),
		cmocka_unit_test(test_move_within_range),
		cmocka_unit_test(test_move_1mb_from_start),
		cmocka_unit_test(test_shrink_multiple_vmas_inplace),
		cmocka_unit_test(test_shrink_multiple_vmas),
		cmocka_unit_test(test_move_multiple_vmas),
		cmocka_unit_test(test_move_multiple_vmas_dontunmap),
		cmocka_unit_test(test_move_multiple_vmas_split),
		cmocka_unit_test(test_move_multiple_vmas_split_dontunmap),
		cmocka_unit_test(test_move_multi_invalid_vmas),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
