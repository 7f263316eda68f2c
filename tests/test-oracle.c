// SPDX-License-Identifier: MIT
/*
 * The content oracle (meson test --suite long): random lifecycle calls over
 * several processes on one machine, held after every call against a
 * reference model of what each page must contain.
 *
 * The model cannot store bytes in a frame, so content is a token: an
 * abstract name for "what a read of this page returns". A user write makes a
 * new token; fork hands the child the parent's tokens; a MAP_SHARED
 * anonymous mapping reads the tokens of its shared object (one per mmap,
 * indexed by page offset) in every process that maps it; a page never
 * written (or zapped by DONTNEED, or moved away) reads zero. The frame
 * identity of a token is learnt by watching: after every call the oracle
 * walks every VA of every process and
 *
 *  - a VA with no VMA has no entry;
 *  - a zero VA has no entry, the shared zero page (never writable), or a
 *    frame of its own, which then becomes a new "zero" token (a zeroed
 *    folio a read fault or mlock's populate allocated);
 *  - a private token VA has a present entry or a swap entry, never none
 *    (its content would be lost), unless the token is a zero one;
 *  - a shared VA may have no entry: its content stays in the shmem object
 *    (shmem_fault finds it in the object's page cache), and whenever it is
 *    mapped it is the same frame, for as long as the object lives; never a
 *    swap entry, never the zero page;
 *  - one frame holds one token: two VAs with different tokens on one frame
 *    means one read sees the other's write;
 *  - one token lives in one frame: two VAs with the same token on
 *    different frames means sharing the kernel keeps (COW after fork, a
 *    MAP_SHARED object) was lost. A private copy may legitimately diverge
 *    where the kernel copies without a write: a page swapped in again (the
 *    model has no swap cache), a page mlock's write-populate breaks COW
 *    on, a pinned exclusive page fork copies for the child. Those VAs get
 *    a new token with the same content instead of a violation;
 *  - a mapped frame is a live folio, and a pinned folio stays live and
 *    pinned until the oracle unpins it (its frame is never reused), through
 *    a VA that maps it or, mapped or not, with ptsim_unpin_user_page;
 *  - MADV_FREE'd content may be kept or read back as zero;
 *  - a user access that faulted succeeds on the access right after the one
 *    fault that handled it (the fault made the page present, writable for a
 *    write, young and dirty where the CPU has no hardware AF/DBM); a write
 *    populate, and mlock's populate of a private writable VMA, leave every
 *    page present and writable;
 *  - private anonymous content lives in VMAs with an anon_vma (else fork
 *    skips it),
 *    and the rmap of a PTE-mapped large folio (folio_mappings_in over every
 *    process) finds as many mappings as its mapcount;
 *  - a VA with a fault refused (SIGSEGV) is one its VMA does not allow;
 *  - ptsim_check_invariants reports nothing, and no entry lies outside the
 *    arena (after every call on 4K, every 2nd on 16K, every 8th on 64K and
 *    after the last: they walk every table entry, 8192 per 64K table, and
 *    would otherwise take most of the time).
 *
 * A call that fails leaves the reference as it was (every public call
 * promises that), except the documented partial results (mlock's populate,
 * uffd move's short count). One call in ~25 runs with an allocation failure
 * injected a few allocations ahead.
 *
 * Usage: test-oracle [seeds [calls [granule-kib|0 [first-seed [invariants-every]]]]];
 * default 100 seeds x 3000 calls on each of 4K, 16K and 64K (10 seeds under
 * ASan). ORACLE_VERBOSE=1 in the environment prints every call;
 * ORACLE_WATCH=(proc << 60 | va) prints that VA's entry and VMA after each.
 *
 * Each seed picks a CPU (so with and without hardware AF/DBM), the "baseline"
 * or "patched" features, and the anonymous THP orders (none; mTHP; mTHP and
 * PMD); up to 4 processes live at once, over an arena at 4 GiB where first
 * fit puts addr-0 mmaps and moves too.
 */
#include "helpers.h"

#define MAX_PROCS	4
#define ARENA		(UINT64_C(4) << 30)	/* first fit starts here (get_unmapped_area) */

enum { ST_UNMAPPED, ST_ZERO, ST_TOK, ST_LAZY };
enum { OBS_NONE, OBS_SWAP, OBS_PRESENT };

struct pg {
	uint32_t tok;		/* private content (ST_TOK, ST_LAZY) */
	uint32_t obj, objpg;	/* shared: object and page offset in it */
	uint8_t st;		/* private: ST_*; shared: ST_ZERO while mapped */
	uint8_t prot;
	bool shared;
	uint8_t obs;		/* what the last check saw */
	uint64_t pfn;
};

struct obj {
	uint32_t *tok;
	uint8_t *st;
	uint64_t *pfn;		/* the frame each page was seen in (0: none yet) */
	uint64_t npages;
};

struct proc {
	struct ptsim_mm *mm;
	struct pg *pg;
	uint64_t *need;		/* bit i: page i must be looked at even where its table is empty */
};

/* The table the last lookup ended in, and the VAs it spans. */
struct cursor {
	const struct pt_table *t;
	uint64_t lo, hi;
};

struct pin {
	uint64_t pfn;		/* head */
};

struct oracle {
	struct ptsim_machine *m;
	const struct ptsim_geometry *g;
	uint64_t seed, rng, call;
	uint64_t np, half;	/* pages the arrays cover; explicit calls use the first half */
	struct proc procs[MAX_PROCS];
	unsigned int nr_procs;
	struct obj *objs;
	size_t nr_objs;
	/* tokens: zero content?, and the frame this check saw them in */
	uint8_t *tok_zero, *tok_div;	/* tok_div: its first holder in this check may diverge */
	uint64_t *tok_gen, *tok_pfn;
	uint32_t *tok_proc;
	uint64_t *tok_idx;
	size_t nr_toks, cap_toks;
	/* frames, indexed by pfn - base: the token seen there in this check */
	uint64_t *fr_gen, *rmap_gen;	/* rmap_gen: head frames whose rmap this check saw */
	uint32_t *fr_tok;
	uint64_t nr_frames, base_pfn, gen;
	uint8_t *scratch;	/* np entries */
	struct pin pins[64];
	unsigned int nr_pins;
	/* the VAs of this call that may diverge from their token's other holders */
	int cow_proc;
	uint64_t cow_lo, cow_hi;
	char log[32][160];
	unsigned int diags;
	bool verbose;
	struct cursor cur;
	uint64_t inv_every, nr_calls;
	const struct vma *vma_cache;	/* during a check: the VMA the last page was in */
};

static void on_diag(const struct ptsim_diag *d, void *arg)
{
	struct oracle *o = arg;

	if (d->kind != PTSIM_DIAG_INVARIANT && d->kind != PTSIM_DIAG_BBM_VIOLATION &&
	    d->kind != PTSIM_DIAG_TLB_CONFLICT)
		return;
	if (o->diags++ < 3)
		fprintf(stderr, "diagnostic %d: %s (va 0x%llx level %d desc 0x%llx)\n", d->kind,
			d->message, (unsigned long long)d->va, d->level,
			(unsigned long long)d->old_desc);
}

static uint64_t rnd(struct oracle *o, uint64_t n)
{
	return n ? prng_next(&o->rng) % n : 0;
}

static void logf_call(struct oracle *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logf_call(struct oracle *o, const char *fmt, ...)
{
	va_list ap;
	char *s = o->log[o->call % 32];

	va_start(ap, fmt);
	vsnprintf(s, sizeof(o->log[0]), fmt, ap);
	va_end(ap);
	if (o->verbose)
		fprintf(stderr, "%llu: %s\n", (unsigned long long)o->call, s);
}

static void violation(struct oracle *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void violation(struct oracle *o, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ORACLE: granule %uK seed %llu call %llu: ", (unsigned int)(o->g->page_size >> 10),
		(unsigned long long)o->seed, (unsigned long long)o->call);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nlast calls:\n");
	for (uint64_t c = o->call >= 31 ? o->call - 31 : 0; c <= o->call; c++)
		fprintf(stderr, "  %llu: %s\n", (unsigned long long)c, o->log[c % 32]);
	fail_msg("content oracle violation");
}

static uint64_t va_of(const struct oracle *o, uint64_t i)
{
	return ARENA + i * o->g->page_size;
}

static void need_sync(struct proc *pr, uint64_t lo, uint64_t n)
{
	for (uint64_t i = lo; i < lo + n; i++) {
		const struct pg *pg = &pr->pg[i];
		/* a shared page's content is its object's, with or without an entry */
		bool need = !pg->shared && (pg->st == ST_TOK || pg->st == ST_LAZY || pg->obs == OBS_SWAP);

		if (need)
			pr->need[i / 64] |= UINT64_C(1) << (i % 64);
		else
			pr->need[i / 64] &= ~(UINT64_C(1) << (i % 64));
	}
}

static uint64_t next_need(const struct oracle *o, const struct proc *pr, uint64_t i)
{
	uint64_t w;

	if (i >= o->np)
		return o->np;
	w = pr->need[i / 64] & (~UINT64_C(0) << (i % 64));
	for (uint64_t k = i / 64;;) {
		if (w)
			return MIN(o->np, k * 64 + (uint64_t)__builtin_ctzll(w));
		if (++k >= (o->np + 63) / 64)
			return o->np;
		w = pr->need[k];
	}
}

/* The table holding va's entry (a PTE table, or the table whose entry at va is a leaf or empty). */
static const struct pt_table *cursor_at(struct oracle *o, const struct ptsim_mm *mm, uint64_t va,
					unsigned int *idx)
{
	const struct ptsim_geometry *g = o->g;
	const struct pt_table *t = o->cur.t;

	if (!t || va < o->cur.lo || va >= o->cur.hi ||
	    (t->level < PTE_LEVEL && t->next[pt_index(g, t->level, va)])) {
		uint64_t span;

		t = mm->pgd;
		for (int l = g->start_level; l < 3; l++) {
			const struct pt_table *n = t->next[pt_index(g, l, va)];

			if (!n)
				break;
			t = n;
		}
		span = pt_level_size(g, t->level) * t->entries;
		o->cur.t = t;
		o->cur.lo = ALIGN_DOWN64(va, span);
		o->cur.hi = o->cur.lo + span;
	}
	*idx = pt_index(g, t->level, va);
	return t;
}

/* The first non-empty entry of d[j, n), or n: eight at a time where they are empty. */
static unsigned int skip_empty(const pte_t *d, unsigned int j, unsigned int n)
{
	while (j + 8 <= n && !(d[j] | d[j + 1] | d[j + 2] | d[j + 3] | d[j + 4] | d[j + 5] | d[j + 6] | d[j + 7]))
		j += 8;
	while (j < n && !d[j])
		j++;
	return j;
}

/* The first page from i on that has an entry or that the reference needs looked at. */
static uint64_t next_interesting(struct oracle *o, const struct proc *pr, uint64_t i)
{
	const uint64_t nb = next_need(o, pr, i);

	while (i < nb) {
		unsigned int idx;
		const struct pt_table *t = cursor_at(o, pr->mm, va_of(o, i), &idx);

		if (t->desc[idx])
			return i;
		if (t->level == PTE_LEVEL) {
			i += skip_empty(t->desc, idx + 1, t->entries) - idx;
		} else {
			uint64_t size = pt_level_size(o->g, t->level), va = va_of(o, i);

			i += (ALIGN_DOWN64(va, size) + size - va) >> o->g->page_shift;
		}
	}
	return nb;
}

static uint32_t new_tok(struct oracle *o, bool zero)
{
	if (o->nr_toks == o->cap_toks) {
		o->cap_toks = o->cap_toks ? 2 * o->cap_toks : 4096;
		o->tok_zero = realloc(o->tok_zero, o->cap_toks);
		o->tok_div = realloc(o->tok_div, o->cap_toks);
		assert_non_null(o->tok_div);
		o->tok_gen = realloc(o->tok_gen, o->cap_toks * sizeof(uint64_t));
		o->tok_pfn = realloc(o->tok_pfn, o->cap_toks * sizeof(uint64_t));
		o->tok_proc = realloc(o->tok_proc, o->cap_toks * sizeof(uint32_t));
		o->tok_idx = realloc(o->tok_idx, o->cap_toks * sizeof(uint64_t));
		assert_non_null(o->tok_zero);
		assert_non_null(o->tok_gen);
		assert_non_null(o->tok_pfn);
		assert_non_null(o->tok_proc);
		assert_non_null(o->tok_idx);
	}
	o->tok_zero[o->nr_toks] = zero;
	o->tok_gen[o->nr_toks] = 0;
	return (uint32_t)o->nr_toks++;
}

/* The content of page i of p: state and token (private, or its shared object's). */
static uint8_t *content(struct oracle *o, struct pg *pg, uint32_t **tok)
{
	if (pg->shared) {
		struct obj *ob = &o->objs[pg->obj];

		*tok = &ob->tok[pg->objpg];
		return &ob->st[pg->objpg];
	}
	*tok = &pg->tok;
	return &pg->st;
}

static void write_page(struct oracle *o, struct pg *pg)
{
	uint32_t *tok;
	uint8_t *st = content(o, pg, &tok);

	*st = ST_TOK;
	*tok = new_tok(o, false);
}

/* ---- the check ---- */

static void observe(struct oracle *o, struct ptsim_mm *mm, uint64_t va, uint8_t *obs, uint64_t *pfn,
		    pte_t *desc)
{
	unsigned int idx;
	const struct pt_table *t = cursor_at(o, mm, va, &idx);
	pte_t d = t->desc[idx];

	*desc = d;
	*pfn = 0;
	if (!d) {
		*obs = OBS_NONE;
	} else if (pte_present(d)) {
		*obs = OBS_PRESENT;
		*pfn = pte_pfn(o->g, d) + ((va & (pt_level_size(o->g, t->level) - 1)) >> o->g->page_shift);
	} else if (t->level == PTE_LEVEL && is_swap_pte(d)) {
		*obs = OBS_SWAP;
	} else {
		violation(o, "va 0x%llx: an entry neither present nor swap: 0x%llx",
			  (unsigned long long)va, (unsigned long long)d);
	}
}

static bool may_diverge(const struct oracle *o, unsigned int p, uint64_t i, const struct pg *pg,
			uint8_t obs)
{
	if (pg->shared)
		return false;
	if (pg->obs == OBS_SWAP && obs == OBS_PRESENT)
		return true;	/* swapped in again: the model has no swap cache */
	return (int)p == o->cow_proc && i >= o->cow_lo && i < o->cow_hi;
}

/*
 * The reverse map of a PTE-mapped large anonymous folio finds every mapping
 * its mapcount counts: the sum over the processes of folio_mappings_in (the
 * anon_vma and index walk that COW reuse, split_folio and reclaim trust).
 */
static void check_rmap(struct oracle *o, const struct folio *f, uint64_t va)
{
	uint64_t head = folio_pfn(o->m, f), found = 0;

	if (!f->order || f->order >= o->g->pmd_order || !(f->flags & FOLIO_ANON) ||
	    o->rmap_gen[head - o->base_pfn] == o->gen)
		return;
	o->rmap_gen[head - o->base_pfn] = o->gen;
	for (unsigned int q = 0; q < o->nr_procs; q++)
		found += folio_mappings_in(o->procs[q].mm, f);
	if (found != (uint64_t)folio_mapcount(o->m, f)) {
		const struct vma *v = find_vma(o->procs[0].mm, va);

		for (unsigned int q = 0; q < o->nr_procs; q++) {
			v = find_vma(o->procs[q].mm, va);
			if (v)
				fprintf(stderr, "proc %u: vma [0x%llx, 0x%llx) pgoff 0x%llx anon_vma %llu\n", q,
					(unsigned long long)v->start, (unsigned long long)v->end,
					(unsigned long long)v->pgoff, (unsigned long long)v->anon_vma);
		}
		violation(o, "folio at pfn 0x%llx (order %u, mapping %u index 0x%llx, mapped at 0x%llx): mapcount %d, the rmap finds %llu",
			  (unsigned long long)head, (unsigned int)f->order, f->mapping,
			  (unsigned long long)f->index, (unsigned long long)va, folio_mapcount(o->m, f),
			  (unsigned long long)found);
	}
}

static void check_page_inner(struct oracle *o, unsigned int p, uint64_t i)
{
	struct proc *pr = &o->procs[p];
	struct pg *pg = &pr->pg[i];
	uint64_t va = va_of(o, i), pfn;
	uint32_t *tok;
	uint8_t *st, obs = OBS_NONE;
	pte_t d;

	observe(o, pr->mm, va, &obs, &pfn, &d);
	pg->pfn = pfn;
	if (obs == OBS_SWAP || (obs == OBS_PRESENT && pfn != o->m->zero_pfn)) {
		const struct vma *v = o->vma_cache;

		if (!v || va < v->start || va >= v->end)
			v = o->vma_cache = find_vma(pr->mm, va);
		/* fork copies a VMA's pages only when it has an anon_vma (vma_needs_copy) */
		if (v && !v->anon_vma && !v->shmem)
			violation(o, "proc %u va 0x%llx: anonymous content (0x%llx) in VMA [0x%llx, 0x%llx) without an anon_vma",
				  p, (unsigned long long)va, (unsigned long long)d,
				  (unsigned long long)v->start, (unsigned long long)v->end);
	}
	if (pg->st == ST_UNMAPPED) {
		if (obs != OBS_NONE)
			violation(o, "proc %u va 0x%llx: an entry (0x%llx) outside every VMA", p,
				  (unsigned long long)va, (unsigned long long)d);
		pg->obs = obs;
		return;
	}
	st = content(o, pg, &tok);
	if (pg->shared) {
		struct obj *ob = &o->objs[pg->obj];

		/* shmem_fault maps a page of the object's page cache: never a swap entry, nor the zero page */
		if (obs == OBS_SWAP || (obs == OBS_PRESENT && o->m->zero_pfn && pfn == o->m->zero_pfn))
			violation(o, "proc %u va 0x%llx: shared anonymous page mapped by 0x%llx, not a page of its object",
				  p, (unsigned long long)va, (unsigned long long)d);
		if (obs == OBS_NONE) {
			pg->obs = obs;	/* the content stays in the object */
			return;
		}
		/* ... the same page each time: the object keeps it until its last mapping goes */
		if (ob->pfn[pg->objpg] && ob->pfn[pg->objpg] != pfn)
			violation(o, "proc %u va 0x%llx: page %u of shared object %u mapped from pfn 0x%llx, before from pfn 0x%llx",
				  p, (unsigned long long)va, pg->objpg, pg->obj, (unsigned long long)pfn,
				  (unsigned long long)ob->pfn[pg->objpg]);
		ob->pfn[pg->objpg] = pfn;
	}
	if (obs == OBS_PRESENT && o->m->zero_pfn && pfn == o->m->zero_pfn) {
		if (pte_valid(d) && !pte_rdonly(d))
			violation(o, "proc %u va 0x%llx: the shared zero page mapped writable", p,
				  (unsigned long long)va);
		if (*st == ST_TOK && !o->tok_zero[*tok])
			violation(o, "proc %u va 0x%llx: written content (token %u) lost: reads zero",
				  p, (unsigned long long)va, *tok);
		*st = ST_ZERO;
		pg->obs = obs;
		return;
	}
	if (*st == ST_LAZY && obs == OBS_NONE)
		*st = ST_ZERO;	/* MADV_FREE: dropped, reads zero */
	if (*st == ST_ZERO) {
		if (obs == OBS_NONE) {
			pg->obs = obs;
			return;
		}
		*st = ST_TOK;	/* a zeroed frame of its own */
		*tok = new_tok(o, true);
	}
	if (obs == OBS_NONE) {
		if (!o->tok_zero[*tok]) {
			for (unsigned int q = 0; q < o->nr_procs; q++) {
				pte_t dq;
				uint64_t fq;
				uint8_t oq;

				o->cur.t = NULL;
				observe(o, o->procs[q].mm, va, &oq, &fq, &dq);
				const struct vma *vq = find_vma(o->procs[q].mm, va);

				fprintf(stderr, "proc %u at va 0x%llx: desc 0x%llx st %u tok %u; vma [0x%llx, 0x%llx) flags 0x%x anon_vma %llu\n",
					q, (unsigned long long)va, (unsigned long long)dq, o->procs[q].pg[i].st,
					o->procs[q].pg[i].tok, vq ? (unsigned long long)vq->start : 0,
					vq ? (unsigned long long)vq->end : 0, vq ? vq->flags : 0,
					vq ? (unsigned long long)vq->anon_vma : 0);
			}
			violation(o, "proc %u va 0x%llx: written content (token %u) lost: no entry", p,
				  (unsigned long long)va, *tok);
		}
		*st = ST_ZERO;
		pg->obs = obs;
		return;
	}
	if (obs == OBS_PRESENT) {
		uint64_t f = pfn - o->base_pfn;

		assert_true(f < o->nr_frames);
		if (o->tok_gen[*tok] == o->gen && o->tok_pfn[*tok] != pfn) {
			/* the same content in two frames */
			unsigned int q = o->tok_proc[*tok];
			uint64_t j = o->tok_idx[*tok];
			struct pg *other = &o->procs[q].pg[j];

			if (may_diverge(o, p, i, pg, obs)) {
				*tok = new_tok(o, o->tok_zero[*tok]);
			} else if (o->tok_div[*tok]) {
				uint32_t nt = new_tok(o, o->tok_zero[*tok]);
				uint32_t *otok;

				content(o, other, &otok);
				o->fr_tok[o->tok_pfn[*tok] - o->base_pfn] = nt;
				o->tok_gen[nt] = o->gen;
				o->tok_pfn[nt] = o->tok_pfn[*tok];
				o->tok_proc[nt] = q;
				o->tok_idx[nt] = j;
				o->tok_div[nt] = 1;
				*otok = nt;
				o->tok_gen[*tok] = 0;
			} else {
				violation(o, "token %u in two frames: proc %u va 0x%llx pfn 0x%llx, proc %u va 0x%llx pfn 0x%llx (sharing lost)",
					  *tok, q, (unsigned long long)va_of(o, j),
					  (unsigned long long)o->tok_pfn[*tok], p,
					  (unsigned long long)va, (unsigned long long)pfn);
			}
		}
		if (o->fr_gen[f] == o->gen && o->fr_tok[f] != *tok)
			violation(o, "pfn 0x%llx holds two contents: token %u and token %u (proc %u va 0x%llx)",
				  (unsigned long long)pfn, o->fr_tok[f], *tok, p, (unsigned long long)va);
		o->fr_gen[f] = o->gen;
		o->fr_tok[f] = *tok;
		if (o->tok_gen[*tok] != o->gen) {
			o->tok_gen[*tok] = o->gen;
			o->tok_pfn[*tok] = pfn;
			o->tok_proc[*tok] = p;
			o->tok_idx[*tok] = i;
			o->tok_div[*tok] = may_diverge(o, p, i, pg, obs);
		}
	}
	pg->obs = obs;
	if (obs == OBS_PRESENT && pfn != o->m->zero_pfn) {
		const struct folio *fo = pfn_folio(o->m, pfn);

		if (!fo || !fo->live)
			violation(o, "proc %u va 0x%llx maps pfn 0x%llx, a freed frame", p,
				  (unsigned long long)va, (unsigned long long)pfn);
		if (fo->tail)
			fo -= fo->index;
		check_rmap(o, fo, va);
	}
}

static void check_page(struct oracle *o, unsigned int p, uint64_t i)
{
	check_page_inner(o, p, i);
	need_sync(&o->procs[p], i, 1);
}

static void check_all(struct oracle *o)
{
	const bool full = o->call % o->inv_every == 0 || o->call + 1 == o->nr_calls;
	uint64_t bad = 1;

	o->gen++;
	/* the process whose VAs may diverge goes last, so the others claim their tokens first */
	for (unsigned int n = 0; n < o->nr_procs; n++) {
		unsigned int p = o->cow_proc >= 0 ? (n + (unsigned int)o->cow_proc + 1) % o->nr_procs : n;
		struct proc *pr = &o->procs[p];

		o->cur.t = NULL;
		o->vma_cache = NULL;
		for (uint64_t i = next_interesting(o, pr, 0); i < o->np; i = next_interesting(o, pr, i + 1))
			check_page(o, p, i);
		/* and nothing outside the arrays (with the invariants: a 64K table above holds 8192) */
		if (full && (pt_next_used(pr->mm, 0, ARENA) != ARENA ||
			     pt_next_used(pr->mm, va_of(o, o->np), UINT64_C(1) << o->g->va_bits) !=
			     UINT64_C(1) << o->g->va_bits))
			violation(o, "proc %u: an entry outside the arena", p);
	}
	o->cur.t = NULL;
	for (unsigned int k = 0; k < o->nr_pins; k++) {
		const struct folio *f = pfn_folio(o->m, o->pins[k].pfn);

		if (!f || !f->live || f->tail || !f->pinned)
			violation(o, "pinned folio at pfn 0x%llx freed or reused while pinned",
				  (unsigned long long)o->pins[k].pfn);
	}
	if (full)
		assert_int_equal(ptsim_check_invariants(o->m, &bad), 0);
	else
		bad = 0;
	if (bad || o->diags)
		violation(o, "%llu invariant violations, %u diagnostics", (unsigned long long)bad, o->diags);
	o->cow_proc = -1;
}

/* ---- choosing arguments ---- */

/* A page-aligned range of [1, max] pages, mostly inside one of p's VMAs. */
static void pick_range(struct oracle *o, struct proc *pr, uint64_t max, uint64_t align,
		       uint64_t *lo, uint64_t *n)
{
	const struct ptsim_mm *mm = pr->mm;
	uint64_t a = align ? align : 1;

	if (mm->nr_vmas && rnd(o, 8)) {
		const struct vma *v = &mm->vmas[rnd(o, mm->nr_vmas)];
		uint64_t s = (v->start - ARENA) >> o->g->page_shift, e = (v->end - ARENA) >> o->g->page_shift;

		if (e <= o->np) {
			uint64_t len = e - s;

			*n = 1 + rnd(o, MIN(len, max));
			*lo = s + rnd(o, len - *n + 1);
			if (align > 1) {
				*lo = ALIGN_DOWN64(*lo, a);
				*n = ALIGN_UP64(*n, a);
			}
			if (*lo + *n <= o->np)
				return;
		}
	}
	*n = 1 + rnd(o, max);
	*lo = rnd(o, o->half);
	if (align > 1) {
		*lo = ALIGN_DOWN64(*lo, a);
		*n = ALIGN_UP64(*n, a);
	}
	if (*lo + *n > o->np)
		*n = o->np - *lo;
}

static struct proc *pick_proc(struct oracle *o, unsigned int *p)
{
	*p = (unsigned int)rnd(o, o->nr_procs);
	return &o->procs[*p];
}

static void set_unmapped(struct proc *pr, uint64_t lo, uint64_t n)
{
	for (uint64_t i = lo; i < lo + n; i++)
		memset(&pr->pg[i], 0, sizeof(pr->pg[i]));
	need_sync(pr, lo, n);
}

/* ---- the calls ---- */

static int do_mmap(struct oracle *o)
{
	unsigned int p;
	struct proc *pr = pick_proc(o, &p);
	uint64_t pmd = o->g->pmd_size >> o->g->page_shift, lo, n, addr = 0;
	bool shared = !rnd(o, 5), fixed = rnd(o, 4);
	unsigned int prot = rnd(o, 6) ? PTSIM_PROT_READ | PTSIM_PROT_WRITE : PTSIM_PROT_READ;
	int err;

	/* PMD-sized ones (for PMD THPs) less often where a PMD holds more pages: 64K's is 8192 */
	if (!rnd(o, 4 * MAX(1, pmd / 2048)))
		n = pmd * (1 + rnd(o, 2));
	else
		n = 1 + rnd(o, 64);
	lo = rnd(o, 3) ? ALIGN_DOWN64(rnd(o, o->half), MIN(n, pmd)) : rnd(o, o->half);
	if (lo + n > o->half)
		return 0;
	if (fixed)
		addr = va_of(o, lo);
	logf_call(o, "mmap(p%u, 0x%llx, %llu pages, prot %u, %s)", p, (unsigned long long)addr,
		  (unsigned long long)n, prot, shared ? "shared" : "private");
	err = ptsim_mmap(pr->mm, addr, n * o->g->page_size, prot,
			 (shared ? PTSIM_MAP_SHARED : PTSIM_MAP_PRIVATE) | PTSIM_MAP_ANONYMOUS, &addr);
	if (err)
		return err;
	lo = (addr - ARENA) >> o->g->page_shift;
	if (lo + n > o->np) {
		/* first fit went past what the arrays cover: give it back */
		assert_int_equal(ptsim_munmap(pr->mm, addr, n * o->g->page_size), 0);
		return 0;
	}
	if (shared) {
		struct obj ob = { calloc(n, 4), calloc(n, 1), calloc(n, 8), n };

		assert_non_null(ob.tok);
		assert_non_null(ob.st);
		assert_non_null(ob.pfn);
		memset(ob.st, ST_ZERO, n);
		o->objs = realloc(o->objs, (o->nr_objs + 1) * sizeof(*o->objs));
		assert_non_null(o->objs);
		o->objs[o->nr_objs++] = ob;
	}
	for (uint64_t i = 0; i < n; i++) {
		struct pg *pg = &pr->pg[lo + i];

		memset(pg, 0, sizeof(*pg));
		pg->st = ST_ZERO;
		pg->prot = (uint8_t)prot;
		pg->shared = shared;
		if (shared) {
			pg->obj = (uint32_t)(o->nr_objs - 1);
			pg->objpg = (uint32_t)i;
		}
	}
	need_sync(pr, lo, n);
	return 0;
}

static int do_munmap(struct oracle *o)
{
	unsigned int p;
	struct proc *pr = pick_proc(o, &p);
	uint64_t lo, n;
	int err;

	pick_range(o, pr, 96, 0, &lo, &n);
	logf_call(o, "munmap(p%u, 0x%llx, %llu pages)", p, (unsigned long long)va_of(o, lo),
		  (unsigned long long)n);
	err = ptsim_munmap(pr->mm, va_of(o, lo), n * o->g->page_size);
	if (!err)
		set_unmapped(pr, lo, n);
	return err;
}

static int do_mprotect(struct oracle *o)
{
	static const unsigned int prots[] = { PTSIM_PROT_NONE, PTSIM_PROT_READ,
					      PTSIM_PROT_READ | PTSIM_PROT_WRITE,
					      PTSIM_PROT_READ | PTSIM_PROT_WRITE };
	unsigned int p, prot = prots[rnd(o, 4)];
	struct proc *pr = pick_proc(o, &p);
	uint64_t lo, n;
	int err;

	pick_range(o, pr, 96, 0, &lo, &n);
	logf_call(o, "mprotect(p%u, 0x%llx, %llu pages, %u)", p, (unsigned long long)va_of(o, lo),
		  (unsigned long long)n, prot);
	err = ptsim_mprotect(pr->mm, va_of(o, lo), n * o->g->page_size, prot);
	if (!err)
		for (uint64_t i = lo; i < lo + n; i++)
			pr->pg[i].prot = (uint8_t)prot;
	return err;
}

/* A user access per page of a range: fault when the access faults, then access again. */
static int do_access(struct oracle *o)
{
	unsigned int p;
	struct proc *pr = pick_proc(o, &p);
	bool write = rnd(o, 2);
	enum ptsim_access_kind kind = write ? PTSIM_ACCESS_WRITE : PTSIM_ACCESS_READ;
	uint64_t lo, n;

	pick_range(o, pr, 16, 0, &lo, &n);
	logf_call(o, "access(p%u, 0x%llx, %llu pages, %s)", p, (unsigned long long)va_of(o, lo),
		  (unsigned long long)n, write ? "write" : "read");
	for (uint64_t i = lo; i < lo + n; i++) {
		uint64_t va = va_of(o, i);
		enum ptsim_fault_kind fk;
		int err = ptsim_access(pr->mm, 0, va, kind, &fk);

		if (err) {
			const struct pg *pg = &pr->pg[i];
			bool allowed = pg->st != ST_UNMAPPED &&
				       (write ? pg->prot & PTSIM_PROT_WRITE : pg->prot != PTSIM_PROT_NONE);

			assert_int_equal(err, -EFAULT);
			err = ptsim_fault(pr->mm, va, kind);
			if (err == -ENOMEM)
				return err;
			if (err == -EFAULT && allowed)
				violation(o, "proc %u va 0x%llx: %s fault refused in a VMA that allows it",
					  p, (unsigned long long)va, write ? "write" : "read");
			if (err == 0 && !allowed)
				violation(o, "proc %u va 0x%llx: %s fault handled in a VMA that forbids it",
					  p, (unsigned long long)va, write ? "write" : "read");
			if (err)
				continue;
			err = ptsim_access(pr->mm, 0, va, kind, &fk);
			if (err)
				violation(o, "proc %u va 0x%llx: the %s faults again (kind %d) after its fault was handled",
					  p, (unsigned long long)va, write ? "write" : "read", fk);
		}
		if (write) {
			write_page(o, &pr->pg[i]);
			need_sync(pr, i, 1);
		}
	}
	return 0;
}

static unsigned int pick_order(struct oracle *o)
{
	const unsigned int cont = (unsigned int)__builtin_ctz(o->g->cont_ptes);

	switch (rnd(o, 4)) {
	case 0:
		return o->g->pmd_order;
	case 1:
		return cont;
	case 2:
		return 2;
	default:
		return 0;
	}
}

static int do_populate(struct oracle *o)
{
	unsigned int p, order = pick_order(o);
	struct proc *pr = pick_proc(o, &p);
	bool write = order ? true : rnd(o, 2);
	uint64_t lo, n, nr = UINT64_C(1) << order;
	int err;

	pick_range(o, pr, nr * (1 + rnd(o, 2)), nr, &lo, &n);
	logf_call(o, "populate(p%u, 0x%llx, %llu pages, order %u, %s)", p,
		  (unsigned long long)va_of(o, lo), (unsigned long long)n, order, write ? "write" : "read");
	err = ptsim_populate(pr->mm, va_of(o, lo), n * o->g->page_size, order, write);
	if (err || !write)
		return err;
	for (uint64_t i = lo; i < lo + n; i++) {
		struct ptsim_translation t;

		/*
		 * without VM_WRITE do_anonymous_page maps the new zeroed folio
		 * clean and read-only: nothing is written, and reclaim may drop
		 * it as lazyfree after an MADV_FREE even where fork shares it
		 */
		if (!(pr->pg[i].prot & PTSIM_PROT_WRITE))
			continue;
		write_page(o, &pr->pg[i]);
		need_sync(pr, i, 1);
		if (ptsim_translate(pr->mm, va_of(o, i), &t) || !t.valid || (t.read_only && !t.write))
			violation(o, "proc %u va 0x%llx: not writable after a write populate", p,
				  (unsigned long long)va_of(o, i));
	}
	return 0;
}

static int do_fork(struct oracle *o)
{
	unsigned int p, c = o->nr_procs;
	struct proc *pr = pick_proc(o, &p), *ch;
	struct ptsim_mm *child;
	int err;

	if (o->nr_procs == MAX_PROCS)
		return 0;
	/* a pinned exclusive page is copied for the child (copy_present_page): note them first */
	for (uint64_t i = 0; i < o->np; i++) {
		struct pg *pg = &pr->pg[i];
		struct ptsim_folio_info fi;
		const struct folio *f;

		o->scratch[i] = 0;
		if (pg->shared || (pg->st != ST_TOK && pg->st != ST_LAZY))
			continue;
		if (ptsim_folio_info(pr->mm, va_of(o, i), &fi))
			continue;
		f = pfn_folio(o->m, fi.pfn);
		o->scratch[i] = f && f->pinned && fi.anon_exclusive;
	}
	logf_call(o, "fork(p%u) -> p%u", p, c);
	err = ptsim_fork(pr->mm, &child);
	if (err)
		return err;
	ch = &o->procs[o->nr_procs++];
	ch->mm = child;
	memcpy(ch->pg, pr->pg, o->np * sizeof(*pr->pg));
	for (uint64_t i = 0; i < o->np; i++) {
		if (o->scratch[i])	/* same content, the child's own frame */
			ch->pg[i].tok = new_tok(o, o->tok_zero[ch->pg[i].tok]);
	}
	need_sync(ch, 0, o->np);
	return 0;
}

static int do_exit(struct oracle *o)
{
	unsigned int p;
	struct proc *pr = pick_proc(o, &p);
	struct pg *keep = pr->pg;
	uint64_t *keep_need = pr->need;
	int err;

	if (o->nr_procs == 1)
		return 0;
	logf_call(o, "exit(p%u)", p);
	err = ptsim_mm_exit(pr->mm);
	if (err)
		return err;
	ptsim_mm_destroy(pr->mm);
	*pr = o->procs[--o->nr_procs];
	o->procs[o->nr_procs].pg = keep;
	o->procs[o->nr_procs].need = keep_need;
	o->procs[o->nr_procs].mm = NULL;
	return 0;
}

static void move_pages(struct proc *from, uint64_t src, struct proc *to, uint64_t dst, uint64_t n)
{
	if (dst < src)
		for (uint64_t i = 0; i < n; i++)
			to->pg[dst + i] = from->pg[src + i];
	else
		for (uint64_t i = n; i-- > 0;)
			to->pg[dst + i] = from->pg[src + i];
}

static int do_mremap_in(struct oracle *o, unsigned int p)
{
	unsigned int flags = 0;
	struct proc *pr = &o->procs[p];
	const struct vma *v;
	uint64_t lo, n, nn, out = 0, dst = 0, vs;
	int err;

	if (!pr->mm->nr_vmas)
		return 0;
	v = &pr->mm->vmas[rnd(o, pr->mm->nr_vmas)];
	vs = (v->start - ARENA) >> o->g->page_shift;
	n = (v->end - v->start) >> o->g->page_shift;
	if (vs + n > o->np)
		return 0;
	lo = vs + rnd(o, n);
	n = 1 + rnd(o, vs + n - lo);
	nn = rnd(o, 2) ? n : 1 + rnd(o, 2 * n);
	if (pr->pg[lo].shared && nn > n)
		nn = n;	/* a shared object does not grow */
	switch (rnd(o, 4)) {
	case 0:
		break;
	case 1:
		flags = PTSIM_MREMAP_MAYMOVE;
		break;
	case 2:
		flags = PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED;
		break;
	default:
		flags = PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_DONTUNMAP | (rnd(o, 2) ? PTSIM_MREMAP_FIXED : 0);
		nn = n;
		break;
	}
	if (flags & PTSIM_MREMAP_FIXED) {
		uint64_t a = rnd(o, 2) ? o->g->pmd_size >> o->g->page_shift : 1;

		dst = ALIGN_DOWN64(rnd(o, o->half), a) + (rnd(o, 4) ? 0 : lo % a);
		if (dst + nn > o->half || !(dst + nn <= lo || lo + n <= dst))
			return 0;
	}
	logf_call(o, "mremap(p%u, 0x%llx, %llu pages -> %llu, flags %u, 0x%llx)", p,
		  (unsigned long long)va_of(o, lo), (unsigned long long)n, (unsigned long long)nn,
		  flags, (unsigned long long)va_of(o, dst));
	err = ptsim_mremap(pr->mm, va_of(o, lo), n * o->g->page_size, nn * o->g->page_size, flags,
			   va_of(o, dst), &out);
	if (err)
		return err;
	dst = (out - ARENA) >> o->g->page_shift;
	if (out < ARENA || dst + nn > o->np) {
		/* first fit went past what the arrays cover: unmap it there, as if munmap followed */
		assert_int_equal(ptsim_munmap(pr->mm, out, nn * o->g->page_size), 0);
		if (flags & PTSIM_MREMAP_DONTUNMAP) {
			for (uint64_t i = lo; i < lo + n; i++) {
				pr->pg[i].st = ST_ZERO;
				pr->pg[i].obs = OBS_NONE;
			}
		} else {
			set_unmapped(pr, lo, n);
		}
		return 0;
	}
	if (nn < n)
		set_unmapped(pr, lo + nn, n - nn);
	if (dst == lo) {
		for (uint64_t i = n; i < nn; i++) {
			pr->pg[lo + i] = pr->pg[lo + n - 1];
			pr->pg[lo + i].st = ST_ZERO;
			pr->pg[lo + i].obs = OBS_NONE;
		}
		return 0;
	}
	{
		uint64_t k = MIN(n, nn);
		struct pg last = pr->pg[lo + k - 1];

		move_pages(pr, lo, pr, dst, k);
		for (uint64_t i = k; i < nn; i++) {
			pr->pg[dst + i] = last;
			pr->pg[dst + i].st = ST_ZERO;
			pr->pg[dst + i].obs = OBS_NONE;
		}
		/* the old range: unmapped, or kept empty (DONTUNMAP, private only) */
		for (uint64_t i = lo; i < lo + k; i++) {
			if (i >= dst && i < dst + nn)
				continue;
			if (flags & PTSIM_MREMAP_DONTUNMAP) {
				pr->pg[i].st = ST_ZERO;
				pr->pg[i].obs = OBS_NONE;
			} else {
				memset(&pr->pg[i], 0, sizeof(pr->pg[i]));
			}
		}
	}
	return 0;
}

static int do_mremap(struct oracle *o)
{
	unsigned int p = (unsigned int)rnd(o, o->nr_procs);
	int err = do_mremap_in(o, p);

	need_sync(&o->procs[p], 0, o->np);
	return err;
}

static int do_madvise(struct oracle *o)
{
	static const int advs[] = { PTSIM_MADV_DONTNEED, PTSIM_MADV_FREE, PTSIM_MADV_COLD,
				    PTSIM_MADV_PAGEOUT };
	unsigned int p;
	int adv = advs[rnd(o, 4)], err;
	struct proc *pr = pick_proc(o, &p);
	uint64_t lo, n;

	pick_range(o, pr, 64, 0, &lo, &n);
	logf_call(o, "madvise(p%u, 0x%llx, %llu pages, %d)", p, (unsigned long long)va_of(o, lo),
		  (unsigned long long)n, adv);
	err = ptsim_madvise(pr->mm, va_of(o, lo), n * o->g->page_size, adv);
	if (err)
		return err;
	for (uint64_t i = lo; i < lo + n; i++) {
		struct pg *pg = &pr->pg[i];

		if (pg->shared)
			continue;	/* the shared object keeps its content */
		if (adv == PTSIM_MADV_DONTNEED)
			pg->st = ST_ZERO;
		else if (adv == PTSIM_MADV_FREE && pg->st == ST_TOK)
			pg->st = ST_LAZY;
	}
	need_sync(pr, lo, n);
	return 0;
}

static int do_swapout(struct oracle *o)
{
	unsigned int p;
	struct proc *pr = pick_proc(o, &p);
	uint64_t lo, n;

	pick_range(o, pr, 16, 0, &lo, &n);
	for (uint64_t i = lo; i < lo + n; i++)
		if (pr->pg[i].shared)
			return 0;
	logf_call(o, "swapout(p%u, 0x%llx, %llu pages)", p, (unsigned long long)va_of(o, lo),
		  (unsigned long long)n);
	return ptsim_swapout(pr->mm, va_of(o, lo), n * o->g->page_size);
}

static int do_mlock(struct oracle *o)
{
	unsigned int p;
	struct proc *pr = pick_proc(o, &p);
	bool lock = rnd(o, 2);
	uint64_t lo, n;
	int err;

	pick_range(o, pr, 64, 0, &lo, &n);
	logf_call(o, "%s(p%u, 0x%llx, %llu pages)", lock ? "mlock" : "munlock", p,
		  (unsigned long long)va_of(o, lo), (unsigned long long)n);
	if (!lock)
		return ptsim_munlock(pr->mm, va_of(o, lo), n * o->g->page_size);
	err = ptsim_mlock(pr->mm, va_of(o, lo), n * o->g->page_size);
	/* get_user_pages with FOLL_WRITE breaks COW: same content, a frame of its own */
	o->cow_proc = (int)p;
	o->cow_lo = lo;
	o->cow_hi = lo + n;
	if (err)
		return err;
	/* __mm_populate: every accessible page is in, writable where a private VMA may write */
	for (uint64_t i = lo; i < lo + n; i++) {
		const struct pg *pg = &pr->pg[i];
		struct ptsim_translation t;
		int r;

		if (pg->prot == PTSIM_PROT_NONE)
			continue;
		r = ptsim_translate(pr->mm, va_of(o, i), &t);
		if (r)
			violation(o, "proc %u va 0x%llx: not populated by mlock", p,
				  (unsigned long long)va_of(o, i));
		if (!r && (pg->prot & PTSIM_PROT_WRITE) && !pg->shared && t.read_only && !t.write)
			violation(o, "proc %u va 0x%llx: read-only after mlock's write populate (desc 0x%llx, vma flags 0x%x)",
				  p, (unsigned long long)va_of(o, i), (unsigned long long)t.desc,
				  find_vma(pr->mm, va_of(o, i))->flags);
	}
	return 0;
}

static int do_pin(struct oracle *o)
{
	unsigned int p;
	struct proc *pr = pick_proc(o, &p);
	uint64_t lo, n;
	struct ptsim_folio_info fi;

	if (o->nr_pins && rnd(o, 2)) {
		unsigned int k = (unsigned int)rnd(o, o->nr_pins);
		uint64_t pfn = o->pins[k].pfn;
		bool via_va = rnd(o, 2);

		/* half the time through a VA that still maps it, if one does */
		for (unsigned int q = 0; via_va && q < o->nr_procs; q++)
			for (uint64_t i = 0; i < o->np; i++) {
				struct pg *pg = &o->procs[q].pg[i];

				if (pg->obs != OBS_PRESENT)
					continue;
				if (ptsim_folio_info(o->procs[q].mm, va_of(o, i), &fi) || fi.pfn != pfn)
					continue;
				logf_call(o, "unpin(p%u, 0x%llx)", q, (unsigned long long)va_of(o, i));
				assert_int_equal(ptsim_folio_set_pinned(o->procs[q].mm, va_of(o, i), false), 0);
				o->pins[k] = o->pins[--o->nr_pins];
				return 0;
			}
		/* unpin_user_page: mapped or not (a pin outlives the folio's mappings) */
		logf_call(o, "unpin_user_page(pfn 0x%llx)", (unsigned long long)pfn);
		assert_int_equal(ptsim_unpin_user_page(o->m, pfn << o->g->page_shift), 0);
		o->pins[k] = o->pins[--o->nr_pins];
		return 0;
	}
	if (o->nr_pins == 64)
		return 0;
	pick_range(o, pr, 1, 0, &lo, &n);
	if (ptsim_folio_info(pr->mm, va_of(o, lo), &fi) || !fi.anon)
		return 0;
	for (unsigned int k = 0; k < o->nr_pins; k++)
		if (o->pins[k].pfn == fi.pfn)
			return 0;
	logf_call(o, "pin(p%u, 0x%llx) pfn 0x%llx order %u", p, (unsigned long long)va_of(o, lo),
		  (unsigned long long)fi.pfn, fi.order);
	assert_int_equal(ptsim_folio_set_pinned(pr->mm, va_of(o, lo), true), 0);
	o->pins[o->nr_pins++] = (struct pin){ fi.pfn };
	return 0;
}

static int do_uffd(struct oracle *o)
{
	unsigned int p;
	struct proc *pr = pick_proc(o, &p);
	uint64_t lo, n, src, sn;
	int64_t r;
	unsigned int mode;

	pick_range(o, pr, 32, 0, &lo, &n);
	if (rnd(o, 3) == 0) {
		logf_call(o, "uffd_register(p%u, 0x%llx, %llu pages)", p,
			  (unsigned long long)va_of(o, lo), (unsigned long long)n);
		return ptsim_uffd_register(pr->mm, va_of(o, lo), n * o->g->page_size);
	}
	pick_range(o, pr, n, 0, &src, &sn);
	n = MIN(n, sn);
	if (!(src + n <= lo || lo + n <= src))
		return 0;
	mode = rnd(o, 2) ? PTSIM_UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES : 0;
	logf_call(o, "uffd_move(p%u, dst 0x%llx, src 0x%llx, %llu pages, mode %u)", p,
		  (unsigned long long)va_of(o, lo), (unsigned long long)va_of(o, src),
		  (unsigned long long)n, mode);
	r = ptsim_uffd_move(pr->mm, va_of(o, lo), va_of(o, src), n * o->g->page_size, mode);
	if (r <= 0)
		return (int)r;
	n = (uint64_t)r >> o->g->page_shift;
	for (uint64_t i = 0; i < n; i++) {
		struct pg *d = &pr->pg[lo + i], *s = &pr->pg[src + i];

		d->st = s->st;
		d->tok = s->tok;
		d->obs = s->obs;
		s->st = ST_ZERO;
		s->obs = OBS_NONE;
	}
	need_sync(pr, lo, n);
	need_sync(pr, src, n);
	return 0;
}

static int do_split(struct oracle *o)
{
	unsigned int p;
	struct proc *pr = pick_proc(o, &p);
	uint64_t lo, n;

	pick_range(o, pr, 2 * (o->g->pmd_size >> o->g->page_shift), 0, &lo, &n);
	logf_call(o, "split_huge_pmd(p%u, 0x%llx, %llu pages)", p, (unsigned long long)va_of(o, lo),
		  (unsigned long long)n);
	return ptsim_split_huge_pmd(pr->mm, va_of(o, lo), n * o->g->page_size);
}

typedef int (*call_fn)(struct oracle *o);

static const struct {
	call_fn fn;
	unsigned int weight;
} calls[] = {
	{ do_mmap, 8 }, { do_munmap, 4 }, { do_mprotect, 5 }, { do_access, 20 },
	{ do_populate, 8 }, { do_fork, 3 }, { do_exit, 2 }, { do_mremap, 5 },
	{ do_madvise, 6 }, { do_swapout, 4 }, { do_mlock, 4 }, { do_pin, 4 },
	{ do_uffd, 4 }, { do_split, 2 },
};

static void run_seed(enum ptsim_granule gr, uint64_t seed, uint64_t nr_calls, uint64_t inv_every,
		     bool verbose)
{
	struct ptsim_machine_config cfg;
	struct oracle o = { .seed = seed, .cow_proc = -1, .verbose = verbose,
			    .inv_every = inv_every ? inv_every : 1, .nr_calls = nr_calls };
	unsigned int total = 0;
	uint64_t pmd_pages, watch = getenv("ORACLE_WATCH") ? strtoull(getenv("ORACLE_WATCH"), NULL, 0) : 0;

	ptsim_machine_config_init(&cfg);
	cfg.granule = gr;
	cfg.phys_size = gr == PTSIM_GRANULE_64K ? UINT64_C(16) << 30 : UINT64_C(2) << 30;
	o.rng = prng_seed(seed * 3 + (uint64_t)gr);
	cfg.preset = rnd(&o, 2) ? "patched" : NULL;
	cfg.cpu = (enum ptsim_cpu)rnd(&o, PTSIM_CPU__COUNT);
	assert_int_equal(ptsim_machine_create(&cfg, &o.m), 0);
	ptsim_set_diag_handler(o.m, on_diag, &o);
	o.g = &o.m->geo;
	pmd_pages = o.g->pmd_size >> o.g->page_shift;
	o.half = MAX(2048, pmd_pages + pmd_pages / 2);
	o.np = 2 * o.half;
	o.base_pfn = o.m->phys.base_pfn;
	o.nr_frames = o.m->phys.nr_pages;
	o.fr_gen = calloc(o.nr_frames, sizeof(uint64_t));
	o.fr_tok = calloc(o.nr_frames, sizeof(uint32_t));
	o.rmap_gen = calloc(o.nr_frames, sizeof(uint64_t));
	assert_non_null(o.rmap_gen);
	assert_non_null(o.fr_gen);
	assert_non_null(o.fr_tok);
	o.scratch = calloc(o.np, 1);
	assert_non_null(o.scratch);
	/* a random subset of orders: 0 only, mTHP, PMD */
	ptsim_set_thp_orders(o.m, rnd(&o, 3) ? (UINT64_C(1) << (__builtin_ctz(o.g->cont_ptes))) |
					       (rnd(&o, 2) ? UINT64_C(1) << o.g->pmd_order : 0) | 4 : 0);
	for (unsigned int p = 0; p < MAX_PROCS; p++) {
		o.procs[p].pg = calloc(o.np, sizeof(struct pg));
		o.procs[p].need = calloc((o.np + 63) / 64, sizeof(uint64_t));
		assert_non_null(o.procs[p].pg);
		assert_non_null(o.procs[p].need);
	}
	assert_int_equal(ptsim_mm_create(o.m, &o.procs[0].mm), 0);
	o.nr_procs = 1;
	for (size_t k = 0; k < sizeof(calls) / sizeof(calls[0]); k++)
		total += calls[k].weight;
	for (o.call = 0; o.call < nr_calls; o.call++) {
		unsigned int w = (unsigned int)rnd(&o, total);
		size_t k = 0;
		bool inject = !rnd(&o, 25);
		int err;

		while (w >= calls[k].weight)
			w -= calls[k++].weight;
		snprintf(o.log[o.call % 32], sizeof(o.log[0]), "(nothing)");
		if (inject)
			ptsim_fail_nth_alloc(o.m, 1 + rnd(&o, 4));
		err = calls[k].fn(&o);
		ptsim_fail_nth_alloc(o.m, 0);
		if (inject || err) {
			size_t l = strlen(o.log[o.call % 32]);

			snprintf(o.log[o.call % 32] + l, sizeof(o.log[0]) - l, "%s = %d",
				 inject ? " [alloc failure injected]" : "", err);
		}
		if (err && err != -ENOMEM && err != -EINVAL && err != -EFAULT && err != -EEXIST &&
		    err != -EBUSY && err != -EAGAIN && err != -ENOENT)
			violation(&o, "unexpected error %d", err);
		if (watch) {
			unsigned int wp = (unsigned int)(watch >> 60);
			uint64_t wva = watch & ((UINT64_C(1) << 60) - 1);

			if (wp < o.nr_procs) {
				const struct vma *v = find_vma(o.procs[wp].mm, wva);
				pte_t d;
				uint64_t pfn;
				uint8_t obs;

				o.cur.t = NULL;
				observe(&o, o.procs[wp].mm, wva, &obs, &pfn, &d);
				fprintf(stderr, "  watch p%u 0x%llx: desc 0x%llx vma [0x%llx, 0x%llx) anon_vma %llu\n",
					wp, (unsigned long long)wva, (unsigned long long)d,
					v ? (unsigned long long)v->start : 0, v ? (unsigned long long)v->end : 0,
					v ? (unsigned long long)v->anon_vma : 0);
			}
		}
		check_all(&o);
	}
	for (unsigned int p = 0; p < MAX_PROCS; p++) {
		free(o.procs[p].pg);
		free(o.procs[p].need);
	}
	for (size_t k = 0; k < o.nr_objs; k++) {
		free(o.objs[k].tok);
		free(o.objs[k].st);
		free(o.objs[k].pfn);
	}
	free(o.objs);
	free(o.tok_zero);
	free(o.tok_div);
	free(o.tok_gen);
	free(o.tok_pfn);
	free(o.tok_proc);
	free(o.tok_idx);
	free(o.fr_gen);
	free(o.fr_tok);
	free(o.rmap_gen);
	free(o.scratch);
	ptsim_machine_destroy(o.m);
}

/*
 * Under ASan (CI's sanitizer job runs every suite again) 10 seeds per granule
 * look for memory errors; the coverage is the plain build's.
 */
#if defined(__SANITIZE_ADDRESS__)
#define DEFAULT_SEEDS 10
#else
#define DEFAULT_SEEDS 100
#endif
static uint64_t arg_seeds = DEFAULT_SEEDS, arg_calls = 3000, arg_first = 1, arg_inv_every;
static unsigned int arg_granule;

static void run_granule(enum ptsim_granule gr)
{
	bool verbose = getenv("ORACLE_VERBOSE") != NULL;

	for (uint64_t s = arg_first; s < arg_first + arg_seeds; s++)
		run_seed(gr, s, arg_calls, arg_inv_every ? arg_inv_every : gr == PTSIM_GRANULE_64K ? 8 : gr == PTSIM_GRANULE_16K ? 2 : 1,
			 verbose);
}

static void test_oracle_4k(void **state)
{
	(void)state;
	run_granule(PTSIM_GRANULE_4K);
}

static void test_oracle_16k(void **state)
{
	(void)state;
	run_granule(PTSIM_GRANULE_16K);
}

static void test_oracle_64k(void **state)
{
	(void)state;
	run_granule(PTSIM_GRANULE_64K);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest all[] = {
		cmocka_unit_test(test_oracle_4k),
		cmocka_unit_test(test_oracle_16k),
		cmocka_unit_test(test_oracle_64k),
	};

	if (argc > 1)
		arg_seeds = strtoull(argv[1], NULL, 0);
	if (argc > 2)
		arg_calls = strtoull(argv[2], NULL, 0);
	if (argc > 3)
		arg_granule = (unsigned int)strtoul(argv[3], NULL, 0);
	if (argc > 4)
		arg_first = strtoull(argv[4], NULL, 0);
	if (argc > 5)
		arg_inv_every = strtoull(argv[5], NULL, 0);
	switch (arg_granule) {
	case 4:
		return _cmocka_run_group_tests("oracle-4k", &all[0], 1, NULL, NULL);
	case 16:
		return _cmocka_run_group_tests("oracle-16k", &all[1], 1, NULL, NULL);
	case 64:
		return _cmocka_run_group_tests("oracle-64k", &all[2], 1, NULL, NULL);
	default:
		return cmocka_run_group_tests(all, NULL, NULL);
	}
}
