// SPDX-License-Identifier: MIT
/* The model invariant checker (ptsim_check_invariants). */
#include "asm/pgtable.h"
#include "filemap.h"
#include "hw.h"

struct inv {
	struct ptsim_machine *m;
	uint64_t violations;
	uint64_t host_bytes;	/* what the tables and folios found should have charged */
	uint64_t tables;	/* tables found */
};

static void broken(struct inv *c, uint64_t va, int level, pte_t d, const char *what)
{
	c->violations++;
	diag_report(c->m, PTSIM_DIAG_INVARIANT, va, level, d, 0, "%s", what);
}

/* A contiguous group: aligned, all with the bit, consecutive OAs, same normalised attributes. */
static void check_cont_group(struct inv *c, const struct pt_table *t, unsigned int i, uint64_t va)
{
	const struct ptsim_geometry *g = &c->m->geo;
	unsigned int n = t->level == PTE_LEVEL ? g->cont_ptes : g->cont_pmds;
	unsigned int first = i & ~(n - 1);
	uint64_t size = pt_level_size(g, t->level);
	pte_t ref = t->desc[first];

	if (i != first)
		return;	/* checked once, from the group's first entry */
	for (unsigned int k = 0; k < n; k++) {
		pte_t d = t->desc[first + k];

		if (!pte_valid(d) || !pte_cont(d) || (t->level < PTE_LEVEL && t->next[first + k]) ||
		    pte_pfn(g, d) != pte_pfn(g, ref) + k * (size >> g->page_shift) ||
		    (pte_pgprot(g, pte_mkold(pte_mkclean(d))) != pte_pgprot(g, pte_mkold(pte_mkclean(ref))))) {
			broken(c, va + k * size, t->level, d, "malformed contiguous group");
			return;
		}
	}
	if (pte_pfn(g, ref) & ((UINT64_C(1) << __builtin_ctzll(n * (size >> g->page_shift))) - 1))
		broken(c, va, t->level, ref, "contiguous group with a misaligned output address");
}

/* The first non-empty entry of a last-level table from i on, or n: empty runs eight at a time. */
NO_FUZZ_TRACE static unsigned int next_pte(const pte_t *d, unsigned int i, unsigned int n)
{
	while (i + 8 <= n && !(d[i] | d[i + 1] | d[i + 2] | d[i + 3] | d[i + 4] | d[i + 5] | d[i + 6] | d[i + 7]))
		i += 8;
	while (i < n && !d[i])
		i++;
	return i;
}

/*
 * Mappings are counted against the folios' own mapcounts: down (delta -1),
 * then back up (+1), with no report in between, so a diagnostic handler
 * never sees a lowered mapcount. Between the two passes every mapcount must
 * be zero.
 */
NO_FUZZ_TRACE static void count_mappings(struct inv *c, const struct pt_table *t, int delta)
{
	const bool last = t->level == PTE_LEVEL;

	for (unsigned int i = 0; i < t->entries; i++) {
		pte_t d;
		struct folio *f;

		if (last && (i = next_pte(t->desc, i, t->entries)) == t->entries)
			break;
		d = t->desc[i];
		if (!last && t->next[i]) {
			count_mappings(c, t->next[i], delta);
			continue;
		}
		if (!pte_present(d) || pte_special(d))
			continue;
		f = pfn_folio(c->m, pte_pfn(&c->m->geo, d));
		if (f && folio_mapcount_add_in_place(c->m, f, delta))
			f->inv_mismatch = 1;	/* more mappings than its mapcount */
	}
}

/* count_mappings over every user mm (a kernel mapping is not in any mapcount). */
static void count_user_mappings(struct inv *c, int delta)
{
	for (size_t i = 0; i < c->m->nr_mms; i++)
		if (!c->m->mms[i]->kernel && !c->m->mms[i]->raw)	/* raw leaves map no folio */
			count_mappings(c, c->m->mms[i]->pgd, delta);
}

NO_FUZZ_TRACE static uint64_t check_table(struct inv *c, const struct ptsim_mm *mm, const struct pt_table *t,
			    uint64_t base)
{
	const struct ptsim_geometry *g = &c->m->geo;
	uint64_t size = pt_level_size(g, t->level), bytes = (uint64_t)t->entries * sizeof(pte_t);
	const bool last = t->level == PTE_LEVEL;

	c->host_bytes += table_host_bytes(g, t->level);
	c->tables++;

	for (unsigned int i = 0; i < t->entries; i++) {
		uint64_t va;
		pte_t d;

		if (last && (i = next_pte(t->desc, i, t->entries)) == t->entries)
			break;
		va = base + i * size;
		d = t->desc[i];
		if (!last && t->next[i]) {
			const bool linked = pte_valid(d) && pmd_table(d);

			/*
			 * A raw mm's table may be attached and not linked yet, or
			 * unlinked and not freed yet: its entry then holds no table
			 * descriptor, but an invalid entry or a block (raw.h,
			 * ptsim_raw_table_alloc and ptsim_raw_table_free).
			 */
			if ((!linked && !mm->raw) || (linked && pte_pfn(g, d) != t->next[i]->pfn) ||
			    t->next[i]->level != t->level + 1)
				broken(c, va, t->level, d, "table descriptor and table disagree");
			bytes += check_table(c, mm, t->next[i], va);
			if (linked || !d)
				continue;
			/* the block the walk finds above the detached table is checked as a leaf below */
		}
		if (!d)
			continue;
		if (t->level < PTE_LEVEL && pte_valid(d) &&
		    (pmd_table(d) || leaf_encoding_reserved(g, t->level, d)))
			broken(c, va, t->level, d, "table descriptor without a table, or block not allowed");
		if (t->level == PTE_LEVEL && leaf_encoding_reserved(g, t->level, d))
			broken(c, va, t->level, d, "reserved level-3 encoding");
		if (pte_valid(d) && pte_cont(d) && t->level >= PMD_LEVEL)
			check_cont_group(c, t, i, va);
	}
	return bytes;
}

/* With no maintenance outstanding, no user TLB entry may grant more than the tables. */
static void check_tlb(struct inv *c);

/*
 * The store's books, with every mapping counted down: each folio's mapcount
 * must be zero (a folio that is not is marked, to be reported once the
 * counts are back); live records per host page, and the host memory they
 * are charged. Returns the folios marked; *bad_chunk is the first PFN of the
 * first host page whose live count is wrong (UINT64_MAX: none).
 */
static uint64_t check_folio_store(struct inv *c, uint64_t *bad_chunk)
{
	const struct folio_store *fs = &c->m->folios;
	uint64_t marked = 0;

	*bad_chunk = UINT64_MAX;
	c->host_bytes += folio_store_chunks(fs) * sizeof(*fs->chunk_live);
	for (uint64_t first = 0; first < fs->nr_pages; first += fs->chunk_records) {
		uint32_t live_count = fs->chunk_live[first / fs->chunk_records];
		uint64_t live = 0;

		if (!live_count)
			continue;
		c->host_bytes += fs->chunk_records * sizeof(struct folio);
		for (uint64_t r = first; r < MIN(first + fs->chunk_records, fs->nr_pages); r++) {
			struct folio *f = &fs->map[r];

			live += f->live;
			if (f->live && !f->tail && (folio_mapcount(c->m, f) || f->inv_mismatch)) {
				f->inv_mismatch = 1;
				marked++;
			}
		}
		if (live != live_count && *bad_chunk == UINT64_MAX)
			*bad_chunk = fs->base_pfn + first;
	}
	return marked;
}

/* The folios check_folio_store marked, reported (and unmarked). */
static void report_mapcounts(struct inv *c)
{
	const struct folio_store *fs = &c->m->folios;

	for (uint64_t first = 0; first < fs->nr_pages; first += fs->chunk_records) {
		if (!fs->chunk_live[first / fs->chunk_records])
			continue;
		for (uint64_t r = first; r < MIN(first + fs->chunk_records, fs->nr_pages); r++) {
			struct folio *f = &fs->map[r];

			if (f->inv_mismatch)
				broken(c, f->index, -1, folio_pfn(c->m, f),
				       "folio mapcount differs from its mappings");
			f->inv_mismatch = 0;
		}
	}
}

/*
 * With the mapcounts checked: an anonymous folio holds a reference from a
 * mapping or from GUP, else nothing would ever free it (a leak). A pinned
 * or FOLL_GET-referenced one with no mapping is fine: unpin_user_page or
 * put_page frees it.
 */
static void check_unreferenced(struct inv *c)
{
	const struct folio_store *fs = &c->m->folios;

	for (uint64_t first = 0; first < fs->nr_pages; first += fs->chunk_records) {
		if (!fs->chunk_live[first / fs->chunk_records])
			continue;
		for (uint64_t r = first; r < MIN(first + fs->chunk_records, fs->nr_pages); r++) {
			const struct folio *f = &fs->map[r];

			if (f->live && !f->tail && (f->flags & FOLIO_ANON) && folio_mapcount(c->m, f) <= 0 &&
			    !f->gup_refs)
				broken(c, f->index, -1, fs->base_pfn + r,
				       "anonymous folio nobody maps or pins");
		}
	}
}

/* Every folio's mapcount equals the mappings the user page tables hold; the store's books. */
static void check_folios(struct inv *c)
{
	uint64_t marked, bad_chunk;

	count_user_mappings(c, -1);
	marked = check_folio_store(c, &bad_chunk);
	count_user_mappings(c, +1);
	if (marked)
		report_mapcounts(c);
	else
		check_unreferenced(c);
	if (bad_chunk != UINT64_MAX)
		broken(c, 0, -1, bad_chunk, "live folio records differ from their host page's count");
}

/*
 * Shmem objects: each live one is referenced by exactly the VMAs that name
 * it, in every mm, and caches only live folios of its own; a dead one holds
 * nothing, and no VMA names it.
 */
static void check_shmem(struct inv *c)
{
	struct ptsim_machine *m = c->m;

	for (size_t n = 0; n < m->nr_files; n++) {
		const struct file_obj *f = &m->files[n];
		uint64_t refs = 0;

		if (!f->shmem)
			continue;
		for (size_t i = 0; i < m->nr_mms; i++)
			for (size_t k = 0; k < m->mms[i]->nr_vmas; k++)
				refs += m->mms[i]->vmas[k].shmem == n + 1;
		if (refs != f->refs || (f->dead && (refs || f->cache.len)))
			broken(c, 0, -1, n, "shmem object references differ from the VMAs naming it");
		for (size_t i = 0; i < f->cache.cap; i++) {
			const struct folio *fo;

			if (!f->cache.keys[i])
				continue;
			fo = pfn_folio(m, f->cache.vals[i]);
			if (!fo || fo->mapping != FILE_MAPPING(n) ||
			    f->cache.keys[i] - 1 - fo->index >= folio_nr_pages(fo))
				broken(c, f->cache.keys[i] - 1, -1, f->cache.vals[i],
				       "shmem object caches a page that is not its own");
		}
	}
}

/*
 * Host memory of the machine's own bookkeeping, charged as it grows and never
 * refused: the machine and its TLB arrays, the undo log, the page allocator's
 * lists and map, the VMA arrays, the folio store's side maps (wide
 * mapcounts, GUP references, lock contention), the BBM checker's map of
 * broken entries, the file table, open files and each file's page-cache
 * map, and the free table pages the pool keeps resident. The checker recomputes it here, the one place that asks.
 */
static uint64_t machine_bookkeeping_host_bytes(const struct ptsim_machine *m)
{
	uint64_t bytes = sizeof(*m) + hw_host_bytes(m) + m->undo_cap * sizeof(*m->undo) +
			 physmem_host_bytes(&m->phys) + u64map_host_bytes(&m->folios.mapcount) +
			 u64map_host_bytes(&m->folios.gup) + u64map_host_bytes(&m->folios.lock_contention) +
			 u64map_host_bytes(&m->folios.zero_filled) +
			 bbm_host_bytes(&m->bbm) + m->nr_files * sizeof(*m->files) +
			 page_pool_resident_free_bytes(&m->table_pages) +
			 m->nr_opens * sizeof(*m->opens);

	for (size_t i = 0; i < m->nr_mms; i++)
		bytes += m->mms[i]->cap_vmas * sizeof(*m->mms[i]->vmas) +
			 u64map_host_bytes(&m->mms[i]->zero_swap);
	for (size_t i = 0; i < m->nr_files; i++)
		bytes += u64map_host_bytes(&m->files[i].cache);
	return bytes;
}

/*
 * The checker allocates nothing (mappings are counted against the folios), so it
 * cannot fail half-way and report what it did not see.
 */
int ptsim_check_invariants(struct ptsim_machine *m, uint64_t *violations)
{
	struct inv c = { .m = m };

	VALIDATE(m);
	REFUSE_IN_HANDLER(m);
	c.host_bytes = machine_bookkeeping_host_bytes(m);
	for (size_t i = 0; i < m->nr_mms; i++) {
		const struct ptsim_mm *mm = m->mms[i];
		uint64_t base = mm->kernel ? ~((UINT64_C(1) << m->geo.va_bits) - 1) : 0;
		uint64_t bytes = check_table(&c, mm, mm->pgd, base);

		if (bytes != mm->pgtable_bytes)
			broken(&c, 0, -1, bytes, "page-table bytes differ from the tables");
	}
	check_folios(&c);
	check_shmem(&c);
	/*
	 * the totals count every table that exists: no operation's work went
	 * missing (ptsim_mm_destroy's frees are uncounted, and tallied apart)
	 */
	if (m->total.ev[PTSIM_EV_TABLE_ALLOC] - m->total.ev[PTSIM_EV_TABLE_FREE] -
	    m->uncounted_table_frees != c.tables)
		broken(&c, 0, -1, c.tables, "the totals' table allocations and frees disagree with the tables");
	if (c.host_bytes != m->host_bytes)
		broken(&c, 0, -1, m->host_bytes, "host memory charged differs from the tables, folios and bookkeeping");
	check_tlb(&c);
	if (violations)
		*violations = c.violations;
	return 0;
}

static void check_tlb(struct inv *c)
{
	uint64_t found = tlb_check_user_entries(c->m);

	if (!c->m->bbm.broken.len && !c->m->bbm.run_count && found) {
		c->violations += found;
		diag_report(c->m, PTSIM_DIAG_INVARIANT, 0, -1, found, 0,
			    "%llu user TLB entries grant more than the tables", (unsigned long long)found);
	}
}
