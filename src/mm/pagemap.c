// SPDX-License-Identifier: MIT
/*
 * The queries of /proc: pagemap with kpageflags and kpagecount for a page
 * (fs/proc/task_mmu.c pte_to_pagemap_entry / pagemap_pmd_range, and
 * fs/proc/page.c, v6.12), and the VMA list with the sums smaps reports
 * (show_smap, smap_gather_stats: smaps_pte_entry, smaps_pmd_entry). They
 * read the model and count nothing.
 */
#include "asm/pgtable.h"
#include "internal.h"

#include <inttypes.h>
#include <ptsim/query.h>
#include <string.h>

/* struct ptsim_page_info and ptsim_vma_info keep their sizes (ABI): later fields come out of reserved. */
_Static_assert(sizeof(struct ptsim_page_info) == 104, "struct ptsim_page_info keeps its size");
_Static_assert(sizeof(struct ptsim_vma_info) == 112, "struct ptsim_vma_info keeps its size");

/*
 * PM_MMAP_EXCLUSIVE: v6.12 asks page_mapcount(page) == 1. The model keeps a
 * folio's mapcount, not a page's: a folio mapped once (a small folio's
 * PTE, a THP's PMD) maps its page once; a PTE-mapped large anonymous
 * folio's page is mapped once when no other mm maps the folio (an anonymous
 * page has one address per mm); a large file folio only when the folio is
 * mapped once.
 */
static bool page_mmap_exclusive(const struct ptsim_mm *mm, const struct folio *f)
{
	if (folio_mapcount(mm->m, f) == 1 || !f->order || !(f->flags & FOLIO_ANON))
		return folio_mapcount(mm->m, f) == 1;	/* one mapping: a PTE, or the PMD of a THP */
	/* folio_mappings_in (PTE mappings) only reads mm (its walk is uncounted) */
	return folio_mappings_in((struct ptsim_mm *)mm, f) == (uint64_t)folio_mapcount(mm->m, f);
}

/* The page at va of a leaf entry d at level in t (pte_to_pagemap_entry and its kpage* reads). */
static void page_info_of(const struct ptsim_mm *mm, uint64_t va, int level, pte_t d,
			 struct ptsim_page_info *out)
{
	const struct ptsim_geometry *g = &mm->m->geo;
	const struct folio *f;
	uint64_t block = pt_level_size(g, level);

	memset(out, 0, sizeof(*out));
	out->va = ALIGN_DOWN64(va, g->page_size);
	if (is_swap_pte(d)) {
		out->state = PTSIM_PAGE_SWAP;
		out->swap_offset = pte_swp_offset(d);
		out->exclusive = d & PTE_SWP_EXCLUSIVE;
		out->uffd_wp = pte_swp_uffd_wp_any(d);
		if (is_pte_marker(d))
			out->swap_type = SWP_PTE_MARKER;	/* swp_type of the marker entry */
		return;
	}
	if (!pte_present(d) || leaf_encoding_reserved(g, level, d))
		return;
	out->state = PTSIM_PAGE_PRESENT;
	out->uffd_wp = pte_uffd_wp(d);
	out->level = (uint32_t)level;
	out->pfn = pte_pfn(g, d) + ((va - ALIGN_DOWN64(va, block)) >> g->page_shift);
	out->write = pte_write(d);
	out->dirty = pte_dirty(d);
	out->young = pte_young(d);
	out->zero_page = is_zero_pte(mm, d);
	f = out->zero_page ? NULL : pfn_folio(mm->m, out->pfn);
	if (!f)
		return;
	out->order = f->order;
	out->mapcount = folio_mapcount(mm->m, f);
	out->refcount = folio_ref_count(mm->m, f);
	folio_gup_counts(mm->m, f, &out->pins, &out->gets);
	out->anon = f->flags & FOLIO_ANON;
	out->exclusive = out->anon && folio_page_anon_exclusive(f, out->pfn - folio_pfn(mm->m, f));
	out->mmap_exclusive = page_mmap_exclusive(mm, f);
}

int ptsim_pagemap(const struct ptsim_mm *mm, uint64_t va, struct ptsim_page_info *out)
{
	const struct pt_table *t;
	unsigned int idx;

	VALIDATE(mm && !mm->kernel && out && va < (UINT64_C(1) << mm->m->geo.va_bits));
	t = pt_lookup_leaf(mm, va, &idx);
	page_info_of(mm, va, t ? t->level : PTE_LEVEL, t ? t->desc[idx] : 0, out);
	return 0;
}

int ptsim_pagemap_range(const struct ptsim_mm *mm, uint64_t start, uint64_t len, ptsim_page_fn fn,
			void *arg)
{
	const struct ptsim_geometry *g;
	uint64_t end;

	VALIDATE(mm && !mm->kernel && fn);
	g = &mm->m->geo;
	end = start + len;
	VALIDATE(end >= start && end <= (UINT64_C(1) << g->va_bits));
	start = ALIGN_DOWN64(start, g->page_size);
	end = ALIGN_UP64(end, g->page_size);
	for (uint64_t va = start; (va = pt_next_used(mm, va, end)) < end; va += g->page_size) {
		const struct pt_table *t;
		struct ptsim_page_info pi;
		unsigned int idx;
		int ret;

		t = pt_lookup_leaf(mm, va, &idx);
		if (!t || !t->desc[idx])
			continue;
		page_info_of(mm, va, t->level, t->desc[idx], &pi);
		if (pi.state == PTSIM_PAGE_NONE)
			continue;
		ret = fn(&pi, arg);
		if (ret)
			return ret;
	}
	return 0;
}

/* smaps_pte_entry / smaps_pmd_entry over one VMA: Rss, Anonymous, AnonHugePages, Swap. */
static void smap_gather_stats(const struct ptsim_mm *mm, const struct vma *v, struct ptsim_vma_info *out)
{
	const struct ptsim_geometry *g = &mm->m->geo;

	for (uint64_t va = v->start; (va = pt_next_used(mm, va, v->end)) < v->end;) {
		unsigned int idx;
		const struct pt_table *t = pt_lookup_leaf(mm, va, &idx);
		pte_t d = t ? t->desc[idx] : 0;
		uint64_t size = t ? pt_level_size(g, t->level) : g->page_size;
		const struct folio *f;

		if (size != g->page_size)
			size -= va - ALIGN_DOWN64(va, size);	/* the rest of the block */
		if (is_swap_pte(d)) {
			/* smaps_pte_entry: a marker is a non_swap_entry, not Swap */
			if (!is_pte_marker(d))
				out->swap += g->page_size;
		} else if (pte_present(d) && !leaf_encoding_reserved(g, t->level, d) &&
			   !is_zero_pte(mm, d) &&
			   (f = pfn_folio(mm->m, pte_pfn(g, d)))) {
			/* vm_normal_page: the zero page is special, not counted */
			out->rss += size;
			if (f->flags & FOLIO_ANON) {
				out->anonymous += size;
				if (t->level != PTE_LEVEL)
					out->anon_huge += size;
			}
		}
		va += size;
	}
}

int ptsim_vma_foreach(const struct ptsim_mm *mm, ptsim_vma_fn fn, void *arg)
{
	VALIDATE(mm && !mm->kernel && fn);
	for (size_t k = 0; k < mm->nr_vmas; k++) {
		const struct vma *v = &mm->vmas[k];
		struct ptsim_vma_info vi;
		int ret;

		memset(&vi, 0, sizeof(vi));
		vi.start = v->start;
		vi.end = v->end;
		vi.pgoff = v->pgoff;
		vi.prot = ((v->flags & VM_READ) ? PTSIM_PROT_READ : 0) |
			  ((v->flags & VM_WRITE) ? PTSIM_PROT_WRITE : 0) |
			  ((v->flags & VM_EXEC) ? PTSIM_PROT_EXEC : 0);
		vi.fd = v->fd;
		vi.shared = v->flags & VM_SHARED;
		vi.anon = v->fd < 0;
		vi.shmem = v->shmem != 0;
		vi.anon_vma = v->anon_vma != 0;
		vi.locked = v->flags & VM_LOCKED;
		vi.locked_onfault = v->flags & VM_LOCKONFAULT;
		vi.uffd = v->uffd;
		vi.uffd_wp = v->uffd_wp;
		vi.hugepage = v->flags & VM_HUGEPAGE;
		vi.nohugepage = v->flags & VM_NOHUGEPAGE;
		vi.dontcopy = v->flags & VM_DONTCOPY;
		vi.wipeonfork = v->flags & VM_WIPEONFORK;
		smap_gather_stats(mm, v, &vi);
		ret = fn(&vi, arg);
		if (ret)
			return ret;
	}
	return 0;
}

/* A run of pages ptsim_pagemap_print puts on one line. */
struct page_run {
	FILE *out;
	const struct ptsim_geometry *g;
	struct ptsim_page_info first;
	uint64_t nr;
};

static void page_run_print(const struct page_run *r)
{
	const struct ptsim_page_info *p = &r->first;
	uint64_t end = p->va + (r->nr << r->g->page_shift);

	if (!r->nr)
		return;
	fprintf(r->out, "0x%" PRIx64 "-0x%" PRIx64, p->va, end);
	if (p->state == PTSIM_PAGE_SWAP) {
		fprintf(r->out, " swap type=%u offset=0x%" PRIx64 "%s\n", p->swap_type, p->swap_offset,
			p->exclusive ? " exclusive" : "");
		return;
	}
	fprintf(r->out, " present pfn=0x%" PRIx64 " level=%u", p->pfn, p->level);
	if (p->zero_page)
		fputs(" zero-page", r->out);
	else
		fprintf(r->out, " %s order=%u mapcount=%d refcount=%" PRIu64 " pins=%u gets=%u",
			p->anon ? "anon" : "file", p->order, p->mapcount, p->refcount, p->pins, p->gets);
	fprintf(r->out, "%s%s%s%s%s\n", p->exclusive ? " exclusive" : "",
		p->mmap_exclusive ? " mmap-exclusive" : "", p->write ? " write" : "",
		p->dirty ? " dirty" : "", p->young ? " young" : "");
}

/* A present page's folio head (folios are naturally aligned). */
static uint64_t page_head_pfn(const struct ptsim_page_info *p)
{
	return ALIGN_DOWN64(p->pfn, UINT64_C(1) << p->order);
}

/*
 * Whether p continues the run: the next page, and the next page of the same
 * folio (or the next swap slot), in the same state otherwise.
 */
static bool page_run_continues(const struct page_run *r, const struct ptsim_page_info *p)
{
	const struct ptsim_page_info *a = &r->first;
	struct ptsim_page_info x = *p;

	if (!r->nr || p->va != a->va + (r->nr << r->g->page_shift))
		return false;
	if (p->state == PTSIM_PAGE_SWAP) {
		if (p->swap_offset != a->swap_offset + r->nr)
			return false;
	} else if (p->zero_page || p->pfn != a->pfn + r->nr || page_head_pfn(p) != page_head_pfn(a)) {
		return false;
	}
	x.va = a->va;
	x.pfn = a->pfn;
	x.swap_offset = a->swap_offset;
	return !memcmp(&x, a, sizeof(x));
}

static int page_run_add(const struct ptsim_page_info *p, void *arg)
{
	struct page_run *r = arg;

	if (page_run_continues(r, p)) {
		r->nr++;
		return 0;
	}
	page_run_print(r);
	r->first = *p;
	r->nr = 1;
	return 0;
}

int ptsim_pagemap_print(const struct ptsim_mm *mm, uint64_t start, uint64_t len, FILE *out)
{
	struct page_run r = { .out = out };
	int err;

	VALIDATE(mm && out);
	r.g = &mm->m->geo;
	err = ptsim_pagemap_range(mm, start, len, page_run_add, &r);
	if (!err)
		page_run_print(&r);
	return err;
}

static int vma_print(const struct ptsim_vma_info *v, void *arg)
{
	FILE *out = arg;

	fprintf(out, "0x%" PRIx64 "-0x%" PRIx64 " %c%c%c%c pgoff=0x%" PRIx64 " %s", v->start, v->end,
		(v->prot & PTSIM_PROT_READ) ? 'r' : '-', (v->prot & PTSIM_PROT_WRITE) ? 'w' : '-',
		(v->prot & PTSIM_PROT_EXEC) ? 'x' : '-', v->shared ? 's' : 'p', v->pgoff,
		v->shmem ? "shmem" : v->anon ? "anon" : "file");
	if (v->fd >= 0)
		fprintf(out, " fd=%d", v->fd);
	fprintf(out, "%s%s%s%s%s%s%s", v->anon_vma ? " anon_vma" : "", v->locked ? " locked" : "",
		v->uffd ? " uffd" : "", v->hugepage ? " hugepage" : "", v->nohugepage ? " nohugepage" : "",
		v->dontcopy ? " dontfork" : "", v->wipeonfork ? " wipeonfork" : "");
	fprintf(out, " rss=%" PRIu64 "kB anonymous=%" PRIu64 "kB anonhuge=%" PRIu64 "kB swap=%" PRIu64
		"kB\n", v->rss >> 10, v->anonymous >> 10, v->anon_huge >> 10, v->swap >> 10);
	return 0;
}

int ptsim_vmas_print(const struct ptsim_mm *mm, FILE *out)
{
	VALIDATE(out);
	return ptsim_vma_foreach(mm, vma_print, out);
}
