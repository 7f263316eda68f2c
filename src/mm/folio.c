// SPDX-License-Identifier: MIT
/*
 * Folios: metadata for naturally aligned groups of pages, found from any PFN
 * through lazily allocated sections (as SPARSEMEM does for struct page).
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#define SECTION_PAGES (UINT64_C(1) << FOLIO_SECTION_SHIFT)

int folio_store_init(struct folio_store *fs, uint64_t base_pfn, uint64_t nr_pages)
{
	memset(fs, 0, sizeof(*fs));
	fs->base_pfn = base_pfn;
	fs->nr_sections = (size_t)((nr_pages + SECTION_PAGES - 1) >> FOLIO_SECTION_SHIFT);
	fs->sections = calloc(fs->nr_sections ? fs->nr_sections : 1, sizeof(*fs->sections));
	return fs->sections ? 0 : -ENOMEM;
}

static void folio_meta_free(struct folio *f)
{
	free(f->excl);
	free(f);
}

static int set_range(struct folio_store *fs, uint64_t pfn, uint64_t nr, struct folio *f);

void folio_store_free(struct folio_store *fs)
{
	for (size_t s = 0; fs->sections && s < fs->nr_sections; s++) {
		struct folio **sec = fs->sections[s];

		if (!sec)
			continue;
		for (uint64_t i = 0; i < SECTION_PAGES; i++) {
			struct folio *f = sec[i];

			/* the head comes first: clear every slot of the folio, then free it once */
			if (f) {
				set_range(fs, f->pfn, folio_nr_pages(f), NULL);
				folio_meta_free(f);
			}
		}
		free(sec);
		fs->sections[s] = NULL;
	}
	free(fs->sections);
	memset(fs, 0, sizeof(*fs));
}

static struct folio **slot(const struct folio_store *fs, uint64_t pfn, bool *in_range)
{
	uint64_t rel = pfn - fs->base_pfn;
	size_t s = (size_t)(rel >> FOLIO_SECTION_SHIFT);

	*in_range = pfn >= fs->base_pfn && s < fs->nr_sections;
	if (!*in_range || !fs->sections[s])
		return NULL;
	return &fs->sections[s][rel & (SECTION_PAGES - 1)];
}

struct folio *pfn_folio(const struct ptsim_machine *m, uint64_t pfn)
{
	bool in_range;
	struct folio **p = slot(&m->folios, pfn, &in_range);

	return p ? *p : NULL;
}

static int set_range(struct folio_store *fs, uint64_t pfn, uint64_t nr, struct folio *f)
{
	for (uint64_t i = 0; i < nr; i++) {
		uint64_t rel = pfn + i - fs->base_pfn;
		size_t s = (size_t)(rel >> FOLIO_SECTION_SHIFT);

		if (s >= fs->nr_sections)
			return -EINVAL;
		if (!fs->sections[s]) {
			fs->sections[s] = calloc(SECTION_PAGES, sizeof(struct folio *));
			if (!fs->sections[s])
				return -ENOMEM;
		}
		fs->sections[s][rel & (SECTION_PAGES - 1)] = f;
	}
	return 0;
}

static struct folio *folio_meta_dup(const struct folio *src)
{
	struct folio *f = malloc(sizeof(*f));
	size_t words = (size_t)((folio_nr_pages(src) + 63) / 64);

	if (!f)
		return NULL;
	*f = *src;
	if (src->excl) {
		f->excl = malloc(words * sizeof(uint64_t));
		if (!f->excl) {
			free(f);
			return NULL;
		}
		memcpy(f->excl, src->excl, words * sizeof(uint64_t));
	}
	return f;
}

int folio_store_copy(struct folio_store *dst, const struct folio_store *src)
{
	int err = folio_store_init(dst, src->base_pfn, (uint64_t)src->nr_sections << FOLIO_SECTION_SHIFT);

	if (err)
		return err;
	dst->nr_folios = src->nr_folios;
	for (size_t s = 0; s < src->nr_sections; s++) {
		struct folio **sec = src->sections[s];

		if (!sec)
			continue;
		for (uint64_t i = 0; i < SECTION_PAGES; i++) {
			struct folio *f = sec[i], *copy;
			uint64_t pfn = src->base_pfn + (s << FOLIO_SECTION_SHIFT) + i;

			if (!f || f->pfn != pfn)
				continue;
			copy = folio_meta_dup(f);
			if (!copy || set_range(dst, pfn, folio_nr_pages(f), copy)) {
				free(copy ? copy->excl : NULL);
				free(copy);
				folio_store_free(dst);
				return -ENOMEM;
			}
		}
	}
	return 0;
}

int folio_alloc(struct ptsim_machine *m, unsigned int order, unsigned int flags,
		struct folio **out)
{
	struct folio *f;
	uint64_t pfn;
	int err;

	if (alloc_should_fail(m) || host_charge(m, folio_host_bytes(order)))
		return -ENOMEM;
	f = calloc(1, sizeof(*f));
	if (f && order > 6) {
		f->excl = calloc((size_t)((UINT64_C(1) << order) / 64), sizeof(uint64_t));
		if (!f->excl) {
			free(f);
			f = NULL;
		}
	}
	err = f ? physmem_alloc(&m->phys, order, &pfn) : -ENOMEM;
	if (err) {
		if (f)
			folio_meta_free(f);
		host_uncharge(m, folio_host_bytes(order));
		return err;
	}
	f->pfn = pfn;
	f->order = order;
	f->flags = flags;
	err = set_range(&m->folios, pfn, UINT64_C(1) << order, f);
	if (!err) {
		struct undo_entry e = { .kind = UNDO_FOLIO, .ptr = f };

		err = undo_record(m, &e);
	}
	if (err) {
		set_range(&m->folios, pfn, UINT64_C(1) << order, NULL);
		physmem_free(&m->phys, pfn, order);
		folio_meta_free(f);
		host_uncharge(m, folio_host_bytes(order));
		return err;
	}
	m->folios.nr_folios++;
	count(m, PTSIM_EV_FOLIO_ALLOC, 1);
	*out = f;
	return 0;
}

void folio_free(struct ptsim_machine *m, struct folio *f)
{
	set_range(&m->folios, f->pfn, folio_nr_pages(f), NULL);
	physmem_free(&m->phys, f->pfn, f->order);
	m->folios.nr_folios--;
	count(m, PTSIM_EV_FOLIO_FREE, 1);
	host_uncharge(m, folio_host_bytes(f->order));
	folio_meta_free(f);
}

bool folio_page_anon_exclusive(const struct folio *f, uint64_t idx)
{
	const uint64_t *w = f->excl ? &f->excl[idx / 64] : &f->excl_inline;

	return (*w >> (idx % 64)) & 1;
}

void folio_set_page_anon_exclusive(struct folio *f, uint64_t idx, bool excl)
{
	uint64_t *w = f->excl ? &f->excl[idx / 64] : &f->excl_inline;
	uint64_t bit = UINT64_C(1) << (idx % 64);

	*w = excl ? (*w | bit) : (*w & ~bit);
}

void folio_store_set(struct ptsim_machine *m, struct folio *f)
{
	if (!set_range(&m->folios, f->pfn, folio_nr_pages(f), f))
		m->folios.nr_folios++;
}

/* The folio mapped at va, and the page's index inside it. */
static struct folio *folio_at(const struct ptsim_mm *mm, uint64_t va, uint64_t *idx)
{
	struct ptsim_translation tr;
	uint64_t pfn;
	struct folio *f;

	if (ptsim_translate(mm, va, &tr))
		return NULL;
	pfn = tr.pa >> mm->m->geo.page_shift;
	f = pfn_folio(mm->m, pfn);
	if (f && idx)
		*idx = pfn - f->pfn;
	return f;
}

int ptsim_folio_set_pinned(struct ptsim_mm *mm, uint64_t va, bool pinned)
{
	struct folio *f;

	VALIDATE(mm && !mm->kernel);
	REFUSE_IN_HANDLER(mm->m);
	f = folio_at(mm, va, NULL);
	if (!f)
		return -ENOENT;
	f->pincount = pinned ? 1 : 0;
	return 0;
}

int ptsim_folio_set_exclusive(struct ptsim_mm *mm, uint64_t va, bool exclusive)
{
	uint64_t idx = 0;
	struct folio *f;

	VALIDATE(mm && !mm->kernel);
	REFUSE_IN_HANDLER(mm->m);
	f = folio_at(mm, va, &idx);
	if (!f)
		return -ENOENT;
	folio_set_page_anon_exclusive(f, idx, exclusive);
	return 0;
}

int ptsim_folio_contend_lock(struct ptsim_mm *mm, uint64_t va, unsigned int attempts)
{
	struct folio *f;

	VALIDATE(mm && !mm->kernel && attempts <= PTSIM_MAX_LOCK_CONTENTION);
	REFUSE_IN_HANDLER(mm->m);
	f = folio_at(mm, va, NULL);
	if (!f)
		return -ENOENT;
	f->lock_contention = attempts;
	return 0;
}
