// SPDX-License-Identifier: MIT
/*
 * The PAGEMAP_SCAN ioctl of /proc/PID/pagemap (models fs/proc/task_mmu.c of
 * the v6.12 tree, 6.12.117: do_pagemap_scan, pagemap_scan_get_args,
 * pagemap_scan_test_walk, pagemap_scan_pmd_entry, pagemap_scan_thp_entry,
 * pagemap_scan_pte_hole, pagemap_scan_output and the bounce buffer), with
 * walk_page_range's descent over the model's tables. It came with v6.7
 * (feature "pagemap_scan"); its write-protect needs arm64 uffd-wp (v6.10,
 * feature "uffd_wp"). doc/uffd-wp.md has the walk and its counts.
 */
#include <stdlib.h>
#include <string.h>

#include "asm/pgtable.h"
#include "asm/tlbflush.h"
#include "primitives.h"

#define PM_SCAN_CATEGORIES	(PTSIM_PAGE_IS_WPALLOWED | PTSIM_PAGE_IS_WRITTEN |	\
				 PTSIM_PAGE_IS_FILE | PTSIM_PAGE_IS_PRESENT |		\
				 PTSIM_PAGE_IS_SWAPPED | PTSIM_PAGE_IS_PFNZERO |	\
				 PTSIM_PAGE_IS_HUGE | PTSIM_PAGE_IS_SOFT_DIRTY)
#define PM_SCAN_FLAGS		(PTSIM_PM_SCAN_WP_MATCHING | PTSIM_PM_SCAN_CHECK_WPASYNC)

/* struct pagemap_scan_private */
struct scan {
	struct ptsim_mm *mm;
	struct ptsim_pm_scan_arg arg;	/* max_pages fixed up, vec_len what is left */
	uint64_t masks_of_interest, cur_vma_category;
	struct ptsim_page_region *vec_buf;	/* the bounce buffer */
	uint64_t vec_buf_len, vec_buf_index, found_pages;
	struct ptsim_page_region *vec_out;	/* where the next flush goes */
	const struct vma *vma;		/* walk->vma */
};

/* pagemap_page_category for one PTE (SOFT_DIRTY never: arm64 has no soft-dirty). */
static uint64_t pagemap_page_category(struct scan *p, pte_t pte)
{
	uint64_t categories = 0;

	/*
	 * 6.12.117: an unpopulated entry carries no marker, so it is not
	 * protected: WRITTEN, as the PAGE_IS_WRITTEN fast path reports it
	 */
	if (pte_none(pte))
		return PTSIM_PAGE_IS_WRITTEN;
	if (pte_present(pte)) {
		categories |= PTSIM_PAGE_IS_PRESENT;
		if (!pte_uffd_wp(pte))
			categories |= PTSIM_PAGE_IS_WRITTEN;
		if (p->masks_of_interest & PTSIM_PAGE_IS_FILE) {
			struct page_ref ref = vm_normal_page(p->mm, pte);

			if (ref.folio && !(ref.folio->flags & FOLIO_ANON))
				categories |= PTSIM_PAGE_IS_FILE;
		}
		if (is_zero_pte(p->mm, pte))
			categories |= PTSIM_PAGE_IS_PFNZERO;
	} else if (is_swap_pte(pte)) {
		/* a uffd-wp marker is a swap pte too: SWAPPED, and protected */
		categories |= PTSIM_PAGE_IS_SWAPPED;
		if (!pte_swp_uffd_wp_any(pte))
			categories |= PTSIM_PAGE_IS_WRITTEN;
		/* FILE only for a PFN swap entry (migration): none in the model */
	}
	return categories;
}

/* pagemap_thp_category for a present PMD leaf (the model has no swapped or huge zero PMD). */
static uint64_t pagemap_thp_category(struct scan *p, pte_t pmd)
{
	uint64_t categories = PTSIM_PAGE_IS_HUGE | PTSIM_PAGE_IS_PRESENT;

	if (!pte_uffd_wp(pmd))
		categories |= PTSIM_PAGE_IS_WRITTEN;
	if (p->masks_of_interest & PTSIM_PAGE_IS_FILE) {
		struct page_ref ref = vm_normal_page(p->mm, pmd);	/* vm_normal_page_pmd */

		if (ref.folio && !(ref.folio->flags & FOLIO_ANON))
			categories |= PTSIM_PAGE_IS_FILE;
	}
	return categories;
}

/*
 * make_uffd_wp_pte: a present entry through ptep_modify_prot_start/commit
 * with pte_mkuffd_wp (v6.12's single-entry helpers), a swap entry with
 * pte_swp_mkuffd_wp, a none entry with a uffd-wp marker (set_pte_at).
 */
static void make_uffd_wp_pte(struct scan *p, uint64_t addr, pte_t *ptep, pte_t ptent)
{
	struct ptsim_mm *mm = p->mm;

	if (pte_present(ptent)) {
		pte_t old;

		old = ptep_modify_prot_start(mm, addr, ptep);
		ptep_modify_prot_commit(mm, addr, ptep, pte_mkuffd_wp(old));
	} else if (is_swap_pte(ptent)) {
		set_ptes(mm, addr, ptep, pte_swp_mkuffd_wp(ptent), 1);
	} else {
		set_ptes(mm, addr, ptep, make_pte_marker_uffd_wp(), 1);
	}
}

/* pagemap_scan_backout_range: the pages of [addr, end) come out of the current region. */
static void pagemap_scan_backout_range(struct scan *p, uint64_t addr, uint64_t end)
{
	struct ptsim_page_region *cur = &p->vec_buf[p->vec_buf_index];

	if (!p->vec_buf)
		return;
	if (cur->start != addr)
		cur->end = addr;
	else
		cur->start = cur->end = 0;
	p->found_pages -= (end - addr) >> p->mm->m->geo.page_shift;
}

static bool pagemap_scan_is_interesting_page(uint64_t categories, const struct scan *p)
{
	categories ^= p->arg.category_inverted;
	if ((categories & p->arg.category_mask) != p->arg.category_mask)
		return false;
	return !p->arg.category_anyof_mask || (categories & p->arg.category_anyof_mask);
}

static bool pagemap_scan_is_interesting_vma(uint64_t categories, const struct scan *p)
{
	uint64_t required = p->arg.category_mask & PTSIM_PAGE_IS_WPALLOWED;

	categories ^= p->arg.category_inverted;
	return (categories & required) == required;
}

/*
 * pagemap_scan_test_walk: WPALLOWED is userfaultfd_wp_async with
 * userfaultfd_wp_use_markers. 0: walk the VMA; 1: skip it; -EPERM.
 */
static int pagemap_scan_test_walk(struct scan *p, const struct vma *v)
{
	bool wp_allowed = v->uffd_wp && userfaultfd_wp_async(v) &&
			  (v->uffd_features & UFFD_CTX_WP_UNPOPULATED);
	uint64_t vma_category = 0;

	if (!wp_allowed) {
		if (p->arg.flags & PTSIM_PM_SCAN_CHECK_WPASYNC)
			return -EPERM;
		if (p->arg.flags & PTSIM_PM_SCAN_WP_MATCHING)
			return 1;
	}
	if (wp_allowed)
		vma_category |= PTSIM_PAGE_IS_WPALLOWED;
	if (!pagemap_scan_is_interesting_vma(vma_category, p))
		return 1;
	p->cur_vma_category = vma_category;
	return 0;
}

/* pagemap_scan_push_range: extend the current region or start the next one (false: full). */
static bool pagemap_scan_push_range(uint64_t categories, struct scan *p, uint64_t addr,
				    uint64_t end)
{
	struct ptsim_page_region *cur = &p->vec_buf[p->vec_buf_index];

	if (addr == cur->end && categories == cur->categories) {
		cur->end = end;
		return true;
	}
	if (cur->end) {
		if (p->vec_buf_index >= p->vec_buf_len - 1)
			return false;
		cur = &p->vec_buf[++p->vec_buf_index];
	}
	cur->start = addr;
	cur->end = end;
	cur->categories = categories;
	return true;
}

/*
 * pagemap_scan_output: [addr, *end) with its categories, trimmed to
 * max_pages; -ENOSPC (and walk_end) when it was trimmed or the buffer is
 * full. Without an output buffer nothing is reported or counted.
 */
static int pagemap_scan_output(uint64_t categories, struct scan *p, uint64_t addr, uint64_t *end)
{
	unsigned int shift = p->mm->m->geo.page_shift;
	uint64_t n_pages, total;
	int ret = 0;

	if (!p->vec_buf)
		return 0;
	categories &= p->arg.return_mask;
	n_pages = (*end - addr) >> shift;
	total = p->found_pages + n_pages;
	if (total < p->found_pages || total > p->arg.max_pages) {
		uint64_t too_much = total - p->arg.max_pages;

		*end -= too_much << shift;
		n_pages -= too_much;
		ret = -ENOSPC;
	}
	if (!pagemap_scan_push_range(categories, p, addr, *end)) {
		*end = addr;
		n_pages = 0;
		ret = -ENOSPC;
	}
	p->found_pages += n_pages;
	if (ret)
		p->arg.walk_end = *end;
	return ret;
}

/*
 * pagemap_scan_thp_entry for a PMD leaf (pmd_trans_huge_lock: the PMD
 * lock): report it whole; with WP_MATCHING a written THP is write-protected
 * (pmdp_invalidate_ad, pmd_mkuffd_wp, set_pmd_at, flush_tlb_range) when all
 * of it was reported, else split (split_huge_pmd) and walked as PTEs
 * (-ENOENT, the pages backed out of the output first).
 */
static int pagemap_scan_thp_entry(struct scan *p, struct pt_table *t, unsigned int idx,
				  uint64_t start, uint64_t end)
{
	struct ptsim_mm *mm = p->mm;
	const struct ptsim_geometry *g = &mm->m->geo;
	pte_t pmd;
	uint64_t categories;
	int ret;

	pmd_lock(mm->m);
	pmd = read_desc(mm, PMD_LEVEL, &t->desc[idx]);
	categories = p->cur_vma_category | pagemap_thp_category(p, pmd);
	if (!pagemap_scan_is_interesting_page(categories, p))
		return 0;
	ret = pagemap_scan_output(categories, p, start, &end);
	if (start == end)
		return ret;
	if (!(p->arg.flags & PTSIM_PM_SCAN_WP_MATCHING) || !(categories & PTSIM_PAGE_IS_WRITTEN))
		return ret;
	if (end != start + g->pmd_size) {
		struct spare_tables spare = { .n = 0 };
		int err = pt_table_alloc(mm, PTE_LEVEL, &spare.t[0]);

		/* the kernel splits into the table deposited at fault time: it cannot fail */
		if (err)
			return err;
		spare.n = 1;
		split_huge_pmd_spare(mm, t, ALIGN_DOWN64(start, g->pmd_size), &spare);
		pagemap_scan_backout_range(p, start, end);
		return -ENOENT;
	}
	pmd = pmdp_invalidate(mm, start, &t->desc[idx], pmd);	/* pmdp_invalidate_ad */
	set_pmd_at(mm, start, &t->desc[idx], pte_mkuffd_wp(pmd));
	flush_tlb_range(mm, start, end);
	return ret;
}

/* Is the entry protected already (present with the bit, or a protected swap entry or marker)? */
static bool uffd_wp_protected(pte_t ptent)
{
	return (pte_present(ptent) && pte_uffd_wp(ptent)) || pte_swp_uffd_wp_any(ptent);
}

/*
 * pagemap_scan_pmd_entry over [start, end) of one PMD entry: a THP, or its
 * PTE table under the table lock and lazy MMU mode, with the kernel's two
 * fast paths (write-protect everything when there is no output; the plain
 * WRITTEN query) and the general loop; one flush_tlb_range of what was
 * write-protected, then cond_resched.
 */
static int pagemap_scan_pmd_entry(struct scan *p, struct pt_table *t, unsigned int idx,
				  uint64_t start, uint64_t end)
{
	struct ptsim_mm *mm = p->mm;
	struct ptsim_machine *m = mm->m;
	const struct ptsim_geometry *g = &m->geo;
	bool wp = p->arg.flags & PTSIM_PM_SCAN_WP_MATCHING;
	uint64_t addr, flush_end = 0;
	pte_t *ptep;
	int ret;

	arch_enter_lazy_mmu_mode(m);
	if (pmd_is_leaf(t, idx)) {
		ret = pagemap_scan_thp_entry(p, t, idx, start, end);
		if (ret != -ENOENT)
			return ret;
	}
	ret = 0;
	pte_offset_map_lock(m);
	ptep = &t->next[idx]->desc[pt_index(g, PTE_LEVEL, start)];
	if (wp && !p->vec_out) {
		for (addr = start; addr != end; ptep++, addr += g->page_size) {
			pte_t ptent;

			pte_loop_step(m);
			ptent = ptep_get(mm, ptep);
			if (uffd_wp_protected(ptent))
				continue;
			make_uffd_wp_pte(p, addr, ptep, ptent);
			if (!flush_end)
				start = addr;
			flush_end = addr + g->page_size;
		}
		goto flush_and_return;
	}
	if (!p->arg.category_anyof_mask && !p->arg.category_inverted &&
	    p->arg.category_mask == PTSIM_PAGE_IS_WRITTEN &&
	    p->arg.return_mask == PTSIM_PAGE_IS_WRITTEN) {
		for (addr = start; addr < end; ptep++, addr += g->page_size) {
			uint64_t next = addr + g->page_size;
			pte_t ptent;

			pte_loop_step(m);
			ptent = ptep_get(mm, ptep);
			if (uffd_wp_protected(ptent))
				continue;
			ret = pagemap_scan_output(p->cur_vma_category | PTSIM_PAGE_IS_WRITTEN, p, addr,
						  &next);
			if (next == addr)
				break;
			if (!wp)
				continue;
			make_uffd_wp_pte(p, addr, ptep, ptent);
			if (!flush_end)
				start = addr;
			flush_end = next;
		}
		goto flush_and_return;
	}
	for (addr = start; addr != end; ptep++, addr += g->page_size) {
		uint64_t next = addr + g->page_size, categories;
		pte_t ptent;

		pte_loop_step(m);
		ptent = ptep_get(mm, ptep);
		categories = p->cur_vma_category | pagemap_page_category(p, ptent);
		if (!pagemap_scan_is_interesting_page(categories, p))
			continue;
		ret = pagemap_scan_output(categories, p, addr, &next);
		if (next == addr)
			break;
		if (!wp || !(categories & PTSIM_PAGE_IS_WRITTEN))
			continue;
		make_uffd_wp_pte(p, addr, ptep, ptent);
		if (!flush_end)
			start = addr;
		flush_end = next;
	}
flush_and_return:
	if (flush_end)
		flush_tlb_range(mm, start, addr);
	cond_resched(m, 1);
	return ret;
}

/*
 * pagemap_scan_pte_hole over [addr, end) with no table: in a uffd-wp VMA
 * it is WRITTEN (6.12.117: WP_UNPOPULATED registration put markers
 * everywhere, so a missing one means a zap); with WP_MATCHING uffd_wp_range
 * puts the tables and markers in.
 */
static int pagemap_scan_pte_hole(struct scan *p, uint64_t addr, uint64_t end)
{
	uint64_t categories = p->cur_vma_category;
	struct spare_tables none = { .n = 0 };
	int ret, err;

	if (p->vma->uffd_wp)
		categories |= PTSIM_PAGE_IS_WRITTEN;
	if (!pagemap_scan_is_interesting_page(categories, p))
		return 0;
	ret = pagemap_scan_output(categories, p, addr, &end);
	if (addr == end || !(p->arg.flags & PTSIM_PM_SCAN_WP_MATCHING))
		return ret;
	err = uffd_wp_range(p->mm, p->vma, addr, end, true, &none);
	return err < 0 ? err : ret;
}

/*
 * walk_page_range's descent over [addr, end) of one VMA (walk_pgd_range ..
 * walk_pmd_range): a missing table is one hole for the whole entry above
 * it; at the PMD level each entry is a hole, a THP or a PTE table.
 */
static int walk_vma_range(struct scan *p, uint64_t addr, uint64_t end)
{
	struct ptsim_mm *mm = p->mm;
	const struct ptsim_geometry *g = &mm->m->geo;
	int err = 0;

	while (addr < end && !err) {
		struct pt_table *t = NULL;
		uint64_t next;
		int level;

		for (level = g->start_level + 1; level <= PMD_LEVEL; level++) {
			t = pt_find_table(mm, addr, level);
			if (!t)
				break;
		}
		if (!t) {
			uint64_t size = pt_level_size(g, level - 1);

			next = MIN(ALIGN_DOWN64(addr, size) + size, end);
			err = pagemap_scan_pte_hole(p, addr, next);
			addr = next;
			continue;
		}
		next = MIN(ALIGN_DOWN64(addr, g->pmd_size) + g->pmd_size, end);
		pmd_loop_step(mm->m);
		{
			unsigned int idx = pt_index(g, PMD_LEVEL, addr);
			pte_t pmd = read_desc(mm, PMD_LEVEL, &t->desc[idx]);

			if (pte_none(pmd) && !t->next[idx])
				err = pagemap_scan_pte_hole(p, addr, next);
			else
				err = pagemap_scan_pmd_entry(p, t, idx, addr, next);
		}
		addr = next;
	}
	return err;
}

/* walk_page_range over [start, end): VMA by VMA (gaps are holes without a VMA: nothing). */
static int walk_page_range(struct scan *p, uint64_t start, uint64_t end)
{
	struct ptsim_mm *mm = p->mm;
	int err = 0;

	for (size_t i = 0; i < mm->nr_vmas && !err; i++) {
		const struct vma *v = &mm->vmas[i];
		uint64_t s = MAX(start, v->start), e = MIN(end, v->end);

		if (v->end <= start)
			continue;
		if (v->start >= end)
			break;
		p->vma = v;
		err = pagemap_scan_test_walk(p, v);
		if (err > 0) {
			err = 0;
			continue;
		}
		if (!err)
			err = walk_vma_range(p, s, e);
	}
	return err;
}

/* pagemap_scan_flush_buffer: the round's regions out to vec; how many. */
static uint64_t pagemap_scan_flush_buffer(struct scan *p)
{
	uint64_t n = p->vec_buf_index;

	if (!p->vec_buf)
		return 0;
	if (p->vec_buf[n].end != p->vec_buf[n].start)
		n++;
	if (!n)
		return 0;
	memcpy(p->vec_out, p->vec_buf, n * sizeof(*p->vec_buf));
	p->arg.vec_len -= n;
	p->vec_out += n;
	p->vec_buf_index = 0;
	p->vec_buf_len = MIN(p->vec_buf_len, p->arg.vec_len);
	p->vec_buf->start = p->vec_buf->end = 0;
	return n;
}

/* pagemap_scan_get_args: the checks, in the kernel's order, and the defaults. */
static int pagemap_scan_get_args(const struct ptsim_mm *mm, struct ptsim_pm_scan_arg *arg)
{
	const struct ptsim_geometry *g = &mm->m->geo;
	uint64_t top = UINT64_C(1) << g->va_bits;

	if (arg->flags & ~(uint64_t)PM_SCAN_FLAGS)
		return -EINVAL;
	if ((arg->category_inverted | arg->category_mask | arg->category_anyof_mask |
	     arg->return_mask) & ~(uint64_t)PM_SCAN_CATEGORIES)
		return -EINVAL;
	if (!IS_ALIGNED64(arg->start, g->page_size))
		return -EINVAL;
	/* access_ok(start, end - start): TASK_SIZE bounds the range */
	if (arg->end < arg->start || arg->end > top)
		return -EFAULT;
	if (!arg->vec && arg->vec_len)
		return -EINVAL;
	arg->end = ALIGN_UP64(arg->end, g->page_size);
	arg->walk_end = 0;
	if (!arg->max_pages)
		arg->max_pages = UINT64_MAX;
	return 0;
}

int64_t ptsim_pagemap_scan(struct ptsim_mm *mm, struct ptsim_pm_scan_arg *uarg)
{
	struct scan p = { .mm = mm };
	uint64_t walk_start, n_ranges_out = 0;
	int64_t ret;
	int err;

	VALIDATE(mm && !mm->kernel && uarg);
	REFUSE_IN_HANDLER(mm->m);
	if (!feature(mm->m, PTSIM_FEAT_PAGEMAP_SCAN))
		return -ENOTTY;	/* v6.6: proc_pagemap_operations has no unlocked_ioctl */
	p.arg = *uarg;
	err = pagemap_scan_get_args(mm, &p.arg);
	if (err)
		return err;
	p.masks_of_interest = p.arg.category_mask | p.arg.category_anyof_mask | p.arg.return_mask;
	/* pagemap_scan_init_bounce_buffer: PAGEMAP_WALK_SIZE (a PMD) worth of pages at most */
	if (p.arg.vec_len) {
		p.vec_buf_len = MIN(mm->m->geo.pmd_size >> mm->m->geo.page_shift, p.arg.vec_len);
		p.vec_buf = calloc(p.vec_buf_len, sizeof(*p.vec_buf));
		if (!p.vec_buf)
			return -ENOMEM;
		p.vec_out = p.arg.vec;
	}
	op_begin(mm->m);
	syscall_enter(mm->m);
	err = 0;
	for (walk_start = p.arg.start; walk_start < p.arg.end; walk_start = p.arg.walk_end) {
		mmap_read_lock(mm);
		if (p.arg.flags & PTSIM_PM_SCAN_WP_MATCHING)
			mmu_notifier_invalidate_range_start(mm->m);	/* MMU_NOTIFY_PROTECTION_VMA */
		err = walk_page_range(&p, walk_start, p.arg.end);
		n_ranges_out += pagemap_scan_flush_buffer(&p);
		if (err != -ENOSPC)
			break;
		if (p.arg.vec_len == 0 || p.found_pages == p.arg.max_pages)
			break;
	}
	ret = !err || err == -ENOSPC ? (int64_t)n_ranges_out : err;
	if (!p.arg.walk_end)
		p.arg.walk_end = p.arg.end;
	uarg->walk_end = p.arg.walk_end;	/* pagemap_scan_writeback_args */
	free(p.vec_buf);
	op_keep_partial(mm->m);	/* what a write-protect did before an error stays */
	op_end(mm->m, ret < 0 ? (int)ret : 0);
	return ret;
}
