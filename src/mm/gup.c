// SPDX-License-Identifier: MIT
/*
 * get_user_pages as mlock's populate uses it (models mm/gup.c):
 * __mm_populate, populate_vma_page_range, __get_user_pages. Each page is
 * followed (follow_page_pte) and, when missing or not writable where the
 * populate writes, faulted in (faultin_page) and followed again.
 */
#include "asm/pgtable.h"
#include "primitives.h"

/*
 * faultin_page: the fault at va of v, which check_vma_flags allowed; with
 * FOLL_FORCE a read fault reaches a VMA without VM_READ, an exec-only one.
 */
static int faultin_page(struct ptsim_mm *mm, struct vma *v, uint64_t va, bool write)
{
	return __handle_mm_fault(mm, v, va, write);
}

/*
 * __get_user_pages over [start, end) of v, one page at a time: a present
 * page (writable where the populate writes) is looked up (follow_page_pte)
 * and its reference dropped again; a missing or write-protected one is
 * faulted (faultin_page) and followed again. Returns the pages done, or the
 * fault's error when it is the first page that failed.
 */
static int64_t __get_user_pages(struct ptsim_mm *mm, struct vma *v, uint64_t start, uint64_t end,
				bool write)
{
	const struct ptsim_geometry *g = &mm->m->geo;
	/*
	 * The simulator's own walk, not the kernel's (uncounted): the PTE table
	 * of addr's PMD slot is found once per slot and again after a fault that
	 * may have made it, so a huge populate costs the host little per page.
	 */
	struct pt_table *pte_table = NULL;
	uint64_t slot = 0;
	bool stale = true, retried = false;
	uint64_t addr = start;

	while (addr < end) {
		struct pt_table *t;
		unsigned int idx;
		pte_t pte;
		int err;

		if (stale || ALIGN_DOWN64(addr, g->pmd_size) != slot) {
			slot = ALIGN_DOWN64(addr, g->pmd_size);
			pte_table = pt_find_table(mm, addr, PTE_LEVEL);
			stale = false;
		}
		if (pte_table) {
			idx = pt_index(g, PTE_LEVEL, addr);
			t = pte_table->desc[idx] ? pte_table : NULL;
		} else {
			t = pt_lookup_leaf(mm, addr, &idx);
		}
		cond_resched(mm->m, 1);	/* before every follow_page_mask (v6.12 __get_user_pages) */
		ptl_spin_lock(mm->m);	/* follow_page_pte */
		pte = t && t->level == PTE_LEVEL ? ptep_get(mm, &t->desc[idx]) : t ? read_desc(mm, PMD_LEVEL, &t->desc[idx]) : 0;
		if ((pte_present(pte) && (!write || pte_write(pte))) || retried) {
			kernel_call(mm->m, VM_NORMAL_PAGE);
			/* follow_page_pte's vm_normal_page reads the struct page */
			dcache_page_load(mm->m, pte_pfn(g, pte));
			folio_get(mm->m);
			folio_put_ref(mm->m);
			retried = false;
			addr += g->page_size;
			continue;
		}
		err = faultin_page(mm, v, addr, write);
		if (err)
			return addr > start ? (int64_t)((addr - start) >> g->page_shift) : err;
		retried = true;	/* follow the page again, as GUP retries after a fault */
		stale = !pte_table;
	}
	return (int64_t)((end - start) >> g->page_shift);
}

/* populate_vma_page_range writes a private writable VMA (to break COW) and reads the others. */
static bool populate_writes(const struct vma *v)
{
	return (v->flags & (VM_WRITE | VM_SHARED)) == VM_WRITE;
}

/*
 * Whether populate_vma_page_range refuses v with -EFAULT: a PROT_NONE VMA
 * (!vma_is_accessible), or a read of one check_vma_flags refuses (FOLL_FORCE
 * reads a VMA without VM_READ, an exec-only one, only if it is VM_MAYREAD).
 */
static bool populate_refuses(const struct vma *v)
{
	return !(v->flags & (VM_READ | VM_WRITE | VM_EXEC)) ||
	       (!populate_writes(v) && !(v->flags & (VM_READ | VM_MAYREAD)));
}

/* populate_vma_page_range: get_user_pages over the range, FOLL_WRITE or FOLL_FORCE. */
static int64_t populate_vma_page_range(struct ptsim_mm *mm, struct vma *v, uint64_t start,
				       uint64_t end)
{
	if (populate_refuses(v))
		return -EFAULT;
	return __get_user_pages(mm, v, start, end, populate_writes(v));
}

/*
 * __mm_populate with ignore_errors 0, as mlock calls it: VMA by VMA; a
 * short result goes on from the page that failed, which then fails first
 * (its fault is tried twice), and the first error ends the populate.
 */
int __mm_populate(struct ptsim_mm *mm, uint64_t start, uint64_t end)
{
	const struct ptsim_geometry *g = &mm->m->geo;

	for (uint64_t nstart = start, nend; nstart < end; nstart = nend) {
		struct vma *v = find_vma(mm, nstart);
		int64_t ret;

		if (!v)
			break;
		nend = MIN(end, v->end);
		ret = populate_vma_page_range(mm, v, nstart, nend);
		if (ret < 0)
			return (int)ret;
		nend = nstart + ((uint64_t)ret << g->page_shift);
	}
	return 0;
}

/*
 * Whether a lower bound of the host memory __mm_populate of the range needs
 * fits in what host_memory_limit leaves: a PTE table for every PMD slot
 * without one in the anonymous VMAs it reads (it maps the zero page there),
 * up to the first VMA it stops at. Written VMAs and file pages are bounded
 * by the simulated memory; the zero page is not, and a huge read-only range
 * would otherwise fill tables until the limit stopped it half way. A slot
 * with no PMD table counts whole, so the check costs what is mapped.
 */
bool mm_populate_fits_host(const struct ptsim_mm *mm, uint64_t start, uint64_t end)
{
	const struct ptsim_geometry *g = &mm->m->geo;
	const uint64_t room = host_room(mm->m), per = table_host_bytes(g, PTE_LEVEL);
	uint64_t need = 0;

	if (room == UINT64_MAX)
		return true;	/* no limit */
	for (uint64_t a = start; a < end && need <= room;) {
		const struct vma *v = find_vma(mm, a);
		uint64_t vend = MIN(v->end, end);

		if (populate_refuses(v))
			break;	/* the populate stops here */
		if (populate_writes(v) || v->fd >= 0) {
			a = vend;
			continue;
		}
		while (a < vend && need <= room) {
			const struct pt_table *t = pt_find_table(mm, a, PMD_LEVEL);
			unsigned int i = pt_index(g, PMD_LEVEL, a);
			uint64_t next;

			if (!t) {
				/* no PMD table (so there is a level above): each PMD slot of its range needs one */
				uint64_t pud_size = pt_level_size(g, PUD_LEVEL);

				next = MIN(ALIGN_DOWN64(a, pud_size) + pud_size, vend);
				need += (ALIGN_UP64(next, g->pmd_size) - ALIGN_DOWN64(a, g->pmd_size)) /
					g->pmd_size * per;
			} else {
				next = MIN(ALIGN_DOWN64(a, g->pmd_size) + g->pmd_size, vend);
				if (!t->next[i] && !pmd_is_leaf(t, i))
					need += per;
			}
			a = next;
		}
	}
	return need <= room;
}
