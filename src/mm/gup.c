// SPDX-License-Identifier: MIT
/*
 * get_user_pages (models mm/gup.c, v6.12): as mlock's populate and
 * MADV_POPULATE_(READ|WRITE) use it (__mm_populate, populate_vma_page_range,
 * faultin_page_range, __get_user_pages), and pin_user_pages /
 * get_user_pages with FOLL_PIN or FOLL_GET, FOLL_WRITE, FOLL_LONGTERM and the
 * unshare fault. Each page is followed (follow_page_pte) and, when missing or
 * not writable where GUP writes, faulted in (faultin_page) and followed again.
 */
#include "asm/pgtable.h"
#include "primitives.h"

#include <ptsim/gup.h>

/* FOLL_PIN (include/linux/mm_types.h): internal to the model, set by ptsim_pin_user_pages. */
#define FOLL_PIN 0x100u

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
			/* follow_page_pte's vm_normal_page reads the struct page */
			vm_normal_page(mm, pte);
			/* try_grab_folio's reference on the head, and the caller's put */
			folio_get(mm->m, pfn_folio(mm->m, pte_pfn(g, pte)));
			folio_put_ref(mm->m, pfn_folio(mm->m, pte_pfn(g, pte)));
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

/*
 * populate_vma_page_range: get_user_pages over the range, FOLL_WRITE or
 * FOLL_FORCE. A VM_LOCKONFAULT VMA is not faulted in (v6.12: "has never used
 * faultin_page() to break COW"): its pages are mlocked as they fault.
 */
static int64_t populate_vma_page_range(struct ptsim_mm *mm, struct vma *v, uint64_t start,
				       uint64_t end)
{
	if (v->flags & VM_LOCKONFAULT)
		return (int64_t)((end - start) >> mm->m->geo.page_shift);
	if (populate_refuses(v))
		return -EFAULT;
	return __get_user_pages(mm, v, start, end, populate_writes(v));
}

/*
 * __mm_populate: VMA by VMA over those that intersect the range (holes are
 * skipped, as find_vma_intersection does); a short result goes on from the
 * page that failed, which then fails first (its fault is tried twice).
 * With ignore_errors 0 (mlock) the first error ends the populate and is
 * returned; with 1 (mm_populate: mlockall, mmap of a VM_LOCKED VMA) a VMA
 * that fails is left and the populate goes on at the next one.
 */
int __mm_populate(struct ptsim_mm *mm, uint64_t start, uint64_t end, bool ignore_errors)
{
	const struct ptsim_geometry *g = &mm->m->geo;

	for (size_t i = 0; i < mm->nr_vmas && mm->vmas[i].start < end; i++) {
		struct vma *v = &mm->vmas[i];
		uint64_t nstart = MAX(start, v->start), nend = MIN(end, v->end);

		while (nstart < nend) {
			int64_t ret = populate_vma_page_range(mm, v, nstart, nend);

			if (ret < 0 && ignore_errors)
				break;	/* continue at the next VMA */
			if (ret < 0)
				return (int)ret;
			nstart += (uint64_t)ret << g->page_shift;
		}
	}
	return 0;
}

/*
 * check_vma_flags without FOLL_FORCE, as MADV_POPULATE_(READ|WRITE) asks
 * (v6.12 mm/gup.c): a write needs VM_WRITE, a read VM_READ. The model has
 * no VM_IO / VM_PFNMAP, secretmem or hugetlb VMAs, and arm64's
 * arch_vma_access_permitted allows every VMA without POE keys.
 */
static bool check_vma_flags_refuses(const struct vma *v, bool write)
{
	return !(v->flags & (write ? VM_WRITE : VM_READ));
}

/*
 * faultin_page_range (v6.10 on): __get_user_pages with FOLL_TOUCH |
 * FOLL_MADV_POPULATE (and FOLL_WRITE) from start, which looks each VMA up
 * itself: none at an address is -ENOMEM, one check_vma_flags refuses is
 * -EINVAL. Returns the pages done before the first error, or that error
 * when it is the first page; lru_add_drain after it.
 */
static int64_t faultin_page_range(struct ptsim_mm *mm, uint64_t start, uint64_t end, bool write)
{
	const struct ptsim_geometry *g = &mm->m->geo;
	int64_t done = 0, ret = 0;

	for (uint64_t a = start; a < end;) {
		struct vma *v = find_vma(mm, a);
		uint64_t vend;

		if (!v || v->start > a) {
			ret = -ENOMEM;	/* vma_lookup found none */
			break;
		}
		if (check_vma_flags_refuses(v, write)) {
			ret = -EINVAL;
			break;
		}
		vend = MIN(end, v->end);
		ret = __get_user_pages(mm, v, a, vend, write);
		if (ret < 0)
			break;
		done += ret;
		if (a + ((uint64_t)ret << g->page_shift) < vend)
			break;	/* a fault failed part-way: the next call starts there */
		a = vend;
		ret = 0;
	}
	lru_add_drain(mm->m);
	return done ? done : ret;
}

/*
 * madvise_populate (mm/madvise.c): faultin_page_range until the range is
 * done or it fails (a short result goes on from the page that failed,
 * whose fault then fails first). Errors as the kernel maps them: -ENOMEM
 * (a hole, or no memory), -EINVAL (a VMA the access may not make), -EFAULT
 * (SIGBUS/SIGSEGV: past the end of a file, a shmem object). What was
 * faulted in before the error stays. From v6.10 (feature
 * "madv_populate_no_vma_walk") it runs over the whole range and stops at
 * the first hole; before it madvise_walk_vmas called it per VMA, skipping
 * holes, and returned -ENOMEM for one only after populating every VMA.
 */
int madvise_populate(struct ptsim_mm *mm, uint64_t start, uint64_t end, bool write)
{
	const struct ptsim_geometry *g = &mm->m->geo;
	if (!feature(mm->m, PTSIM_FEAT_MADV_POPULATE_NO_VMA_WALK)) {
		bool hole = false;

		for (uint64_t a = start; a < end && !hole;) {
			const struct vma *v = find_vma(mm, a);

			hole = !v;
			a = v ? v->end : a;
		}
		/* madvise_walk_vmas: each VMA's part of the range, holes skipped */
		for (size_t i = 0; i < mm->nr_vmas && mm->vmas[i].start < end; i++) {
			const struct vma *v = &mm->vmas[i];
			uint64_t a = MAX(start, v->start), vend = MIN(end, v->end);

			if (v->end <= start)
				continue;
			/* faultin_vma_page_range of v6.6..v6.9: the same checks and walk */
			while (a < vend) {
				int64_t ret = faultin_page_range(mm, a, vend, write);

				if (ret < 0)
					return (int)ret;
				a += (uint64_t)ret << g->page_shift;
			}
		}
		return hole ? -ENOMEM : 0;
	}
	while (start < end) {
		int64_t ret = faultin_page_range(mm, start, end, write);

		if (ret < 0)
			return (int)ret;
		start += (uint64_t)ret << g->page_shift;
	}
	return 0;
}

/*
 * Which populate the host-memory bound is for: mlock's, mlockall's (mm_populate,
 * which skips holes and VMAs it cannot populate), or MADV_POPULATE_READ / _WRITE.
 */
enum populate_kind { POPULATE_MLOCK, POPULATE_MLOCKALL, POPULATE_READ, POPULATE_WRITE };

/*
 * Whether the PTE tables the populate of the range needs at least fit: a
 * table for every PMD slot without one in the anonymous VMAs it reads (it
 * maps the zero page there), up to the first VMA (or hole) it stops at
 * (mlockall's goes on past both: __mm_populate with ignore_errors). They
 * must fit the machine's free memory, where the kernel's pte_alloc takes
 * them, and what host_memory_limit leaves. Written VMAs and file pages are
 * bounded by the simulated memory as they fault; the zero page is not, and
 * a huge read-only range would otherwise build tables for minutes, or until
 * the host limit stopped it half way. A slot with no PMD table counts whole,
 * so the check costs what is mapped.
 */
static bool populate_fits_host(const struct ptsim_mm *mm, uint64_t start, uint64_t end,
			       enum populate_kind kind)
{
	const struct ptsim_geometry *g = &mm->m->geo;
	const uint64_t room = host_room(mm->m), per = table_host_bytes(g, PTE_LEVEL);
	/* the tables that fit: each is a page of the machine's memory and per bytes of the host's */
	const uint64_t max_tables = MIN(mm->m->phys.nr_free, room == UINT64_MAX ? UINT64_MAX : room / per);
	uint64_t tables = 0;

	for (uint64_t a = start; a < end && tables <= max_tables;) {
		const struct vma *v = find_vma_intersection(mm, a, end);
		const bool mlock = kind == POPULATE_MLOCK || kind == POPULATE_MLOCKALL;
		uint64_t vend;
		bool writes;

		if (!v)
			break;
		if (v->start > a) {
			if (kind != POPULATE_MLOCKALL)
				break;	/* a hole: the populate stops here */
			a = v->start;
		}
		vend = MIN(v->end, end);
		/* (a VM_LOCKONFAULT VMA loses the flag first: mlock and mlockall without ONFAULT) */
		if (mlock ? populate_refuses(v) :
		    check_vma_flags_refuses(v, kind == POPULATE_WRITE)) {
			if (kind != POPULATE_MLOCKALL)
				break;	/* the populate stops here */
			a = vend;
			continue;
		}
		writes = mlock ? populate_writes(v) : kind == POPULATE_WRITE;
		if (writes || v->fd >= 0) {
			a = vend;
			continue;
		}
		while (a < vend && tables <= max_tables) {
			const struct pt_table *t = pt_find_table(mm, a, PMD_LEVEL);
			unsigned int i = pt_index(g, PMD_LEVEL, a);
			uint64_t next;

			if (!t) {
				/* no PMD table (so there is a level above): each PMD slot of its range needs one */
				uint64_t pud_size = pt_level_size(g, PUD_LEVEL);

				next = MIN(ALIGN_DOWN64(a, pud_size) + pud_size, vend);
				tables += (ALIGN_UP64(next, g->pmd_size) - ALIGN_DOWN64(a, g->pmd_size)) /
					  g->pmd_size;
			} else {
				next = MIN(ALIGN_DOWN64(a, g->pmd_size) + g->pmd_size, vend);
				if (!t->next[i] && !pmd_is_leaf(t, i))
					tables++;
			}
			a = next;
		}
	}
	return tables <= max_tables;
}

/*
 * gup_must_unshare (v6.12 mm/internal.h) for a read-only entry: only a R/O
 * FOLL_PIN; an anonymous page unless it is PageAnonExclusive; any other page
 * (the shared zero page, a page-cache page) only for FOLL_LONGTERM in a COW
 * mapping, where the pin must see what later writes store.
 */
static bool gup_must_unshare(const struct vma *v, unsigned int foll, const struct page_ref *ref)
{
	if ((foll & (PTSIM_FOLL_WRITE | FOLL_PIN)) != FOLL_PIN)
		return false;
	if (!ref->folio || !(ref->folio->flags & FOLIO_ANON))
		return (foll & PTSIM_FOLL_LONGTERM) && is_cow_mapping(v->flags);
	return !folio_page_anon_exclusive(ref->folio, ref->idx);
}

/*
 * try_grab_folio (v6.12 mm/gup.c): FOLL_GET adds a reference
 * (folio_ref_add), the shared zero page's folio included (follow_page_pte
 * returns the zero page for it); FOLL_PIN adds GUP_PIN_COUNTING_BIAS
 * references to a small folio (one folio_ref_add), or one reference and one
 * _pincount to a large folio (two atomic adds), and nothing for the zero
 * page ("it's not going anywhere"). The model keeps the zero page's FOLL_GET
 * references only so that put_page can drop them: they never decide its
 * lifetime. The NR_FOLL_PIN_ACQUIRED node statistic is not counted.
 */
static int try_grab_folio(struct ptsim_machine *m, struct folio *f, unsigned int foll)
{
	uint32_t pins, gets;
	int err;

	if (!f) {
		if (foll & FOLL_PIN)
			return 0;
		if (m->zero_page_gets == UINT64_MAX)
			return -ENOMEM;
		m->zero_page_gets++;
		folio_ref_add(m, NULL);	/* the zero folio has no record: its struct page is not cached */
		return 0;
	}
	folio_gup_counts(m, f, &pins, &gets);
	if (foll & FOLL_PIN)
		err = pins == UINT32_MAX ? -ENOMEM : folio_gup_set(m, f, pins + 1, gets);
	else
		err = gets == UINT32_MAX ? -ENOMEM : folio_gup_set(m, f, pins, gets + 1);
	if (err)
		return err;
	folio_ref_add(m, f);
	if ((foll & FOLL_PIN) && f->order)
		folio_pincount_add(m, f);	/* atomic_add(refs, &folio->_pincount) */
	return 0;
}

/*
 * check_vma_flags (v6.12 mm/gup.c) without FOLL_FORCE: a write needs
 * VM_WRITE, a read VM_READ; -EFAULT otherwise.
 */
static bool gup_vma_allows(const struct vma *v, unsigned int foll)
{
	return (v->flags & ((foll & PTSIM_FOLL_WRITE) ? VM_WRITE : VM_READ)) != 0;
}

/*
 * __get_user_pages with FOLL_GET or FOLL_PIN: per page, cond_resched and
 * follow_page_mask (follow_page_pte, or follow_huge_pmd for a PMD THP,
 * under the table lock: ptep_get, vm_normal_page), then either grab the
 * page or fault (faultin_page) and follow it again. At most two faults a
 * page: a read of a missing page maps the zero page, which a long-term
 * pin then unshares.
 */
static int64_t gup_pages(struct ptsim_mm *mm, uint64_t start, uint64_t nr, unsigned int foll,
			 uint64_t *pas)
{
	struct ptsim_machine *m = mm->m;
	const struct ptsim_geometry *g = &m->geo;
	uint64_t done = 0;
	unsigned int faults = 0;
	int err = 0;

	while (done < nr) {
		uint64_t addr = start + (done << g->page_shift);
		struct vma *v = find_vma(mm, addr);
		struct page_ref ref = { 0 };
		struct pt_table *t;
		unsigned int idx;
		pte_t pte = 0;
		bool write = foll & PTSIM_FOLL_WRITE, unshare = false;

		if (!v || addr < v->start || !gup_vma_allows(v, foll)) {
			err = -EFAULT;
			break;
		}
		cond_resched(m, 1);	/* before every follow_page_mask */
		t = pt_lookup_leaf(mm, addr, &idx);
		ptl_spin_lock(m);	/* follow_page_pte's pte_offset_map_lock, follow_huge_pmd's pmd_lock */
		if (t)
			pte = t->level == PTE_LEVEL ? ptep_get(mm, &t->desc[idx])
						    : read_desc(mm, t->level, &t->desc[idx]);
		if (pte_present(pte) && !pte_protnone(pte) && (!write || pte_write(pte))) {
			ref = vm_normal_page(mm, pte);
			if (t->level != PTE_LEVEL && ref.folio)
				ref.idx = (addr - ALIGN_DOWN64(addr, pt_level_size(g, t->level))) >>
					  g->page_shift;
			unshare = !pte_write(pte) && gup_must_unshare(v, foll, &ref);
			if (!unshare) {
				err = try_grab_folio(m, ref.folio, foll);
				if (err)
					break;
				pas[done++] = (pte_pfn(g, pte) << g->page_shift) +
					      (t->level == PTE_LEVEL ? 0 : (ref.idx << g->page_shift));
				faults = 0;
				continue;
			}
		}
		if (faults == 2) {
			err = -EFAULT;	/* the model's faults settle a page in two */
			break;
		}
		faults++;
		err = unshare ? handle_mm_fault_unshare(mm, v, addr) : __handle_mm_fault(mm, v, addr, write);
		if (err)
			break;
		op_keep_partial(m);	/* a fault that mapped something stays, counted, whatever follows */
	}
	if (done)
		return (int64_t)done;
	return err;
}

/* The checks of pin_user_pages / get_user_pages (is_valid_gup_args) and the model's own. */
static int64_t gup_call(struct ptsim_mm *mm, uint64_t start, uint64_t nr, unsigned int foll,
			uint64_t *pas)
{
	const struct ptsim_geometry *g;
	int64_t ret;

	VALIDATE(mm && !mm->kernel && pas);
	REFUSE_IN_HANDLER(mm->m);
	g = &mm->m->geo;
	VALIDATE(!(foll & ~(PTSIM_FOLL_WRITE | PTSIM_FOLL_LONGTERM | FOLL_PIN)));
	VALIDATE((foll & FOLL_PIN) || !(foll & PTSIM_FOLL_LONGTERM));
	VALIDATE(IS_ALIGNED64(start, g->page_size) && nr <= (UINT64_C(1) << g->va_bits) >> g->page_shift &&
		 start + (nr << g->page_shift) <= (UINT64_C(1) << g->va_bits));
	if (!nr)
		return 0;
	op_begin(mm->m);
	mmap_read_lock(mm);	/* the caller's */
	ret = gup_pages(mm, start, nr, foll, pas);
	/*
	 * a failure at the first page, before any fault succeeded, leaves the
	 * model and the totals as they were; pins taken and faults done stay
	 */
	op_end(mm->m, ret < 0 ? (int)ret : 0);
	return ret;
}

int64_t ptsim_pin_user_pages(struct ptsim_mm *mm, uint64_t start, uint64_t nr_pages,
			     unsigned int foll_flags, uint64_t *pas)
{
	if (foll_flags & FOLL_PIN)
		return -EINVAL;	/* not a flag of the API */
	return gup_call(mm, start, nr_pages, foll_flags | FOLL_PIN, pas);
}

int64_t ptsim_get_user_pages(struct ptsim_mm *mm, uint64_t start, uint64_t nr_pages,
			     unsigned int foll_flags, uint64_t *pas)
{
	if (foll_flags & FOLL_PIN)
		return -EINVAL;
	return gup_call(mm, start, nr_pages, foll_flags, pas);
}

bool mm_populate_fits_host(const struct ptsim_mm *mm, uint64_t start, uint64_t end,
			   bool ignore_errors)
{
	return populate_fits_host(mm, start, end, ignore_errors ? POPULATE_MLOCKALL : POPULATE_MLOCK);
}

bool madvise_populate_fits_host(const struct ptsim_mm *mm, uint64_t start, uint64_t end, bool write)
{
	return populate_fits_host(mm, start, end, write ? POPULATE_WRITE : POPULATE_READ);
}
