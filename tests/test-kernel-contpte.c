// SPDX-License-Identifier: MIT
/*
 * The kernel's own arch/arm64/mm/contpte.c against the model's
 * (doc/kernel-source.md). Twin machines start identical; random sequences
 * of the contpte entry points run the model's contpte layer on one and the
 * kernel file, compiled from the tree of the kernel_source build option over
 * the shim, on the other. After every call both must have made the same
 * descriptors, the same count of every event, the same TLBIs in the same
 * place among the descriptor accesses and barriers, and the same
 * diagnostics. Without a kernel tree the test is skipped (exit 77).
 *
 * Usage: test-kernel-contpte [SEQUENCES-PER-GRANULE [SEED [PRESET [FEATURE...]]]]
 * PRESET (default v6.12) is the model's release for the tree; each FEATURE
 * switches one more feature on (NAME) or off (-NAME). KSH_SURVEY=1 in the
 * environment goes on past a difference and counts them per entry point.
 */
#include "helpers.h"

#ifdef KSH_HAVE_KERNEL_SOURCE
#include "kernel-contpte.h"
#include "bridge.h"

#define WINDOW_BLOCKS	8	/* the sequences work on this many contiguous blocks */
#define MAX_TRACE	64
#define MAX_DIAGS	16
#define NR_FOLIOS	24
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static unsigned int prng_below(uint64_t *r, uint64_t n)
{
	return (unsigned int)(prng_next(r) % n);
}

/* One TLBI, with what had been counted when it was issued: its place in the order. */
struct tlbi_rec {
	struct tlbi_op op;
	uint64_t reads, writes, xchgs, cas, dsb_ish, dsb_ishst;
};

struct diag_rec {
	enum ptsim_diag_kind kind;
	uint64_t va, old_desc, new_desc;
	int level;
};

/* One machine of the pair, and what its last call did. */
struct side {
	struct ptsim_machine *m;
	struct ptsim_mm *mm;
	pte_t *table;			/* the window's first entry */
	struct folio *folios[NR_FOLIOS];
	struct tlbi_rec trace[MAX_TRACE];
	unsigned int nr_trace;
	struct diag_rec diags[MAX_DIAGS];
	unsigned int nr_diags;
	uint64_t ret;
};

struct twin {
	struct side s[2];	/* [0] the model, [1] the kernel's file */
	const struct ptsim_geometry *g;
	uint64_t va;
	unsigned int nr;	/* entries in the window */
};

static struct side *side_of(struct ptsim_machine *m, struct twin *t)
{
	return t->s[0].m == m ? &t->s[0] : &t->s[1];
}

/* The twin the observers report to (the tests run one twin at a time). */
static struct twin *observed;

static void record_tlbi(struct ptsim_machine *m, const struct tlbi_op *op)
{
	struct side *s = side_of(m, observed);
	struct tlbi_rec *r;

	if (s->nr_trace >= MAX_TRACE) {
		s->nr_trace++;
		return;
	}
	r = &s->trace[s->nr_trace++];
	r->op = *op;
	r->reads = m->op.ev[PTSIM_EV_PTE_READ];
	r->writes = m->op.ev[PTSIM_EV_PTE_WRITE];
	r->xchgs = m->op.ev[PTSIM_EV_PTE_XCHG];
	r->cas = m->op.ev[PTSIM_EV_PTE_CAS];
	r->dsb_ish = m->op.ev[PTSIM_EV_DSB_ISH];
	r->dsb_ishst = m->op.ev[PTSIM_EV_DSB_ISHST];
}

static void record_diag_rec(const struct ptsim_diag *d, void *arg)
{
	struct side *s = arg;

	fprintf(stderr, "  %s diagnostic (%s side) at va 0x%llx level %d: 0x%llx -> 0x%llx: %s\n",
		ptsim_diag_kind_name(d->kind), s == &observed->s[0] ? "model" : "kernel",
		(unsigned long long)d->va, d->level, (unsigned long long)d->old_desc,
		(unsigned long long)d->new_desc, d->message);
	if (s->nr_diags < MAX_DIAGS)
		s->diags[s->nr_diags] = (struct diag_rec){
			.kind = d->kind, .va = d->va, .old_desc = d->old_desc,
			.new_desc = d->new_desc, .level = d->level,
		};
	s->nr_diags++;
}

static const char *preset = "v6.12";
static char **features;
static unsigned int nr_features;

static const unsigned int folio_orders[NR_FOLIOS] = {
	0, 0, 1, 2, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 2, 3, 4, 5, 6, 7, 8, 9,
};

static void side_create(struct twin *t, struct side *s, enum ptsim_granule granule,
			enum ptsim_cpu cpu)
{
	struct ptsim_machine_config cfg;
	int err;

	ptsim_machine_config_init(&cfg);
	cfg.granule = granule;
	cfg.va_bits = 48;
	cfg.cpu = cpu;
	cfg.preset = preset;
	cfg.phys_size = UINT64_C(16) << 30;
	s->m = create_machine(&cfg);
	assert_int_equal(ptsim_set_diag_handler(s->m, record_diag_rec, s), 0);
	s->m->tlbi_observer = record_tlbi;
	t->g = &s->m->geo;
	t->va = 64 * t->g->pmd_size;
	s->mm = new_mm_with_vma(s->m, t->va, t->g->pmd_size);
	s->table = pte_table(s->mm, t->va);
	for (unsigned int i = 0; i < nr_features; i++) {
		const char *name = features[i] + (features[i][0] == '-');
		enum ptsim_feature f;

		err = ptsim_feature_lookup(name, &f);
		if (err)
			fail_msg("unknown feature %s", name);
		assert_int_equal(ptsim_feature_set(s->m, f, features[i][0] != '-'), 0);
	}
	for (unsigned int i = 0; i < NR_FOLIOS; i++)
		assert_int_equal(folio_alloc(s->m, folio_orders[i], FOLIO_ANON, &s->folios[i]), 0);
}

static void twin_create(struct twin *t, enum ptsim_granule granule, enum ptsim_cpu cpu)
{
	memset(t, 0, sizeof(*t));
	observed = t;
	side_create(t, &t->s[0], granule, cpu);
	side_create(t, &t->s[1], granule, cpu);
	t->g = &t->s[0].m->geo;
	t->nr = MIN(WINDOW_BLOCKS * t->g->cont_ptes, t->g->ptrs_per_table);
	for (unsigned int i = 0; i < NR_FOLIOS; i++)
		assert_int_equal(folio_pfn(t->s[0].m, t->s[0].folios[i]),
				 folio_pfn(t->s[1].m, t->s[1].folios[i]));
}

static void twin_destroy(struct twin *t)
{
	ptsim_machine_destroy(t->s[0].m);
	ptsim_machine_destroy(t->s[1].m);
	observed = NULL;
}

/* The entry-point calls a sequence is made of. */
enum op_kind {
	OP_SET_PTES,		/* contpte_set_ptes, nr > 1, over none entries */
	OP_SET_PTE_ONE,		/* set_ptes with nr == 1: unfold test, store, fold filter */
	OP_PTEP_GET,		/* contpte_ptep_get of a cont entry */
	OP_GET_AND_CLEAR_FULL,	/* contpte_get_and_clear_full_ptes, nr > 1 */
	OP_CLEAR_FULL,		/* contpte_clear_full_ptes, nr > 1 */
	OP_WRPROTECT,		/* contpte_wrprotect_ptes, nr > 1 */
	OP_CLEAR_YOUNG_DIRTY,	/* contpte_clear_young_dirty_ptes */
	OP_TRY_FOLD,		/* contpte_try_fold (the inline filter, then the call) */
	OP_FOLD,		/* __contpte_try_fold of any valid entry */
	OP_UNFOLD,		/* contpte_try_unfold of a valid cont entry */
	OP_HW_UPDATE,		/* the hardware sets an access flag or dirty state */
	OP_CLEAR_FLUSH_YOUNG,	/* contpte_ptep_clear_flush_young of a valid cont entry */
	OP__COUNT
};

static const char *const op_name[OP__COUNT] = {
	"set_ptes", "set_pte_one", "ptep_get", "get_and_clear_full_ptes", "clear_full_ptes",
	"wrprotect_ptes", "clear_young_dirty_ptes", "contpte_try_fold", "__contpte_try_fold",
	"contpte_try_unfold", "hardware update", "contpte_ptep_clear_flush_young",
};

struct op {
	enum op_kind kind;
	unsigned int idx, nr, flags;
	pte_t pte;
};

/* Protections a user mapping may carry, and the software states on top. */
static pte_t random_prot(uint64_t *r)
{
	static const pte_t prots[] = { PAGE_READONLY, PAGE_READONLY_EXEC, PAGE_SHARED,
				       PAGE_SHARED_EXEC };
	pte_t prot = prots[prng_below(r, 4)];

	if (prng_below(r, 2))
		prot = pte_mkold(prot);
	if (prng_below(r, 3) == 0)
		prot = pte_mkdirty(prot);
	if (prng_below(r, 3) == 0)
		prot = pte_wrprotect(prot);
	return prot;
}

static bool all(const struct twin *t, unsigned int idx, unsigned int nr, bool valid)
{
	for (unsigned int i = idx; i < idx + nr; i++)
		if ((valid ? pte_valid(t->s[0].table[i]) : pte_none(t->s[0].table[i])) == false)
			return false;
	return true;
}

/* A run of entries of the window all none (valid false) or all valid, with nr >= min_nr. */
static bool pick_run(uint64_t *r, const struct twin *t, bool valid, unsigned int min_nr,
		     unsigned int max_nr, unsigned int *idx, unsigned int *nr)
{
	for (int tries = 0; tries < 8; tries++) {
		unsigned int n = min_nr + prng_below(r, max_nr - min_nr + 1);
		unsigned int i;

		if (n > t->nr)
			continue;
		i = prng_below(r, t->nr - n + 1);
		if (prng_below(r, 2))	/* often from a block boundary */
			i = ALIGN_DOWN64(i, t->g->cont_ptes);
		if (i + n <= t->nr && all(t, i, n, valid)) {
			*idx = i;
			*nr = n;
			return true;
		}
	}
	return false;
}

static bool pick_entry(uint64_t *r, const struct twin *t, bool cont, unsigned int *idx)
{
	for (int tries = 0; tries < 16; tries++) {
		unsigned int i = prng_below(r, t->nr);
		pte_t pte = t->s[0].table[i];

		if (pte_valid(pte) && (!cont || pte_cont(pte))) {
			*idx = i;
			return true;
		}
	}
	return false;
}

/*
 * A mapping of nr pages of one folio at idx: the physical start is chosen
 * (mostly) to be as aligned to the block as the virtual one, so blocks fold.
 */
static bool pick_mapping(uint64_t *r, const struct twin *t, unsigned int min_nr,
			 struct op *op)
{
	const struct ptsim_geometry *g = t->g;
	unsigned int max_nr = MIN(3 * g->cont_ptes, t->nr);
	const struct folio *f = t->s[0].folios[prng_below(r, NR_FOLIOS)];
	uint64_t pages = folio_nr_pages(f), pfn = folio_pfn(t->s[0].m, f), first;

	if (pages < min_nr)
		return false;
	if (min_nr > 1 && pages >= g->cont_ptes && prng_below(r, 2)) {
		/* whole aligned blocks of a large folio: what an mTHP fault maps */
		unsigned int blocks = 1 + prng_below(r, MIN(3, (unsigned int)(pages / g->cont_ptes)));

		op->nr = blocks * g->cont_ptes;
		op->idx = prng_below(r, t->nr / g->cont_ptes - blocks + 1) * g->cont_ptes;
		if (!all(t, op->idx, op->nr, false))
			return false;
		first = prng_below(r, (unsigned int)(pages / g->cont_ptes) - blocks + 1) *
			g->cont_ptes;
		op->pte = pfn_pte(g, pfn + first, random_prot(r));
		return true;
	}
	if (!pick_run(r, t, false, min_nr, MIN(max_nr, (unsigned int)pages), &op->idx, &op->nr))
		return false;
	first = prng_below(r, pages - op->nr + 1);
	if (prng_below(r, 3)) {
		uint64_t want = op->idx & (g->cont_ptes - 1);
		uint64_t f2 = ALIGN_DOWN64(first, g->cont_ptes) + want;

		if (f2 + op->nr <= pages)
			first = f2;
		else if (want + op->nr <= pages)
			first = want;
	}
	op->pte = pfn_pte(g, pfn + first, random_prot(r));
	if (prng_below(r, 40) == 0)	/* PROT_NONE: present, not valid */
		op->pte = pfn_pte(g, pfn + first, PAGE_NONE);
	return true;
}

/* Whether the frame pfn is a page of one of the window's folios, and not its first. */
static bool next_page_in_folio(const struct twin *t, uint64_t pfn)
{
	for (unsigned int i = 0; i < NR_FOLIOS; i++) {
		const struct folio *f = t->s[0].folios[i];
		uint64_t first = folio_pfn(t->s[0].m, f);

		if (pfn > first && pfn < first + folio_nr_pages(f))
			return true;
	}
	return false;
}

static bool random_op(uint64_t *r, const struct twin *t, struct op *op)
{
	const struct ptsim_geometry *g = t->g;
	unsigned int max_nr = MIN(3 * g->cont_ptes, t->nr);

	memset(op, 0, sizeof(*op));
	op->kind = (enum op_kind)prng_below(r, OP__COUNT);
	switch (op->kind) {
	case OP_SET_PTES:
		return pick_mapping(r, t, 2, op);
	case OP_SET_PTE_ONE:
		/* (a frame past its folio's end has no folio: the kernel's fold would not cope) */
		if (prng_below(r, 4) && pick_entry(r, t, false, &op->idx) && op->idx + 1 < t->nr &&
		    pte_none(t->s[0].table[op->idx + 1]) &&
		    next_page_in_folio(t, pte_pfn(g, t->s[0].table[op->idx]) + 1)) {
			/* the next page of the same folio: faults that complete a block fold it */
			pte_t prev = pte_mknoncont(t->s[0].table[op->idx]);

			op->idx++;
			op->nr = 1;
			op->pte = pte_advance_pfn(g, prng_below(r, 2) ? pte_mkold(prev) : prev, 1);
			return true;
		}
		if (!pick_mapping(r, t, 1, op))
			return false;
		op->nr = 1;
		return true;
	case OP_GET_AND_CLEAR_FULL:
	case OP_CLEAR_FULL:
	case OP_WRPROTECT:
		op->flags = prng_below(r, 2);	/* full */
		return pick_run(r, t, true, 2, max_nr, &op->idx, &op->nr);
	case OP_CLEAR_YOUNG_DIRTY:
		op->flags = 1 + prng_below(r, 3);
		return pick_run(r, t, true, 1, max_nr, &op->idx, &op->nr);
	case OP_PTEP_GET:
	case OP_UNFOLD:
	case OP_CLEAR_FLUSH_YOUNG:
		return pick_entry(r, t, true, &op->idx);
	case OP_TRY_FOLD:
	case OP_FOLD:
	case OP_HW_UPDATE:
		if (!pick_entry(r, t, false, &op->idx))
			return false;
		op->flags = 1 + prng_below(r, 3);
		return true;
	case OP__COUNT:
		break;
	}
	return false;
}

/* Run op on one side: the model's code on side 0, the kernel's on side 1. */
static void run_op(struct twin *t, unsigned int which, const struct op *op)
{
	struct side *s = &t->s[which];
	struct ptsim_mm *mm = s->mm;
	pte_t *p = s->table + op->idx;
	uint64_t addr = t->va + ((uint64_t)op->idx << t->g->page_shift);
	pte_t pte = op->kind == OP_SET_PTES || op->kind == OP_SET_PTE_ONE ? op->pte : *p;
	bool k = which == 1;

	reset_counts(s->m);
	memset(s->m->fn_op, 0, sizeof(s->m->fn_op));
	s->nr_trace = s->nr_diags = 0;
	s->ret = 0;
	ksh_set_current(mm);
	switch (op->kind) {
	case OP_SET_PTES:
		/* set_ptes makes the entry non-cont before it calls contpte_set_ptes */
		pte = pte_mknoncont(pte);
		if (k)
			kc_contpte_set_ptes(mm, addr, p, pte, op->nr);
		else
			contpte_set_ptes(mm, addr, p, pte, op->nr);
		break;
	case OP_SET_PTE_ONE:
		if (k) {
			kc_set_pte_one(mm, addr, p, pte);
		} else {
			pte = pte_mknoncont(pte);
			contpte_try_unfold(mm, addr, p, __ptep_get(mm, p));
			__set_ptes(mm, addr, p, pte, 1);
			contpte_try_fold(mm, addr, p, pte);
		}
		break;
	case OP_PTEP_GET:
		s->ret = k ? kc_contpte_ptep_get(mm, p, pte) : contpte_ptep_get(mm, p, pte);
		break;
	case OP_GET_AND_CLEAR_FULL:
		s->ret = k ? kc_contpte_get_and_clear_full_ptes(mm, addr, p, op->nr, (int)op->flags)
			   : contpte_get_and_clear_full_ptes(mm, addr, p, op->nr);
		break;
	case OP_CLEAR_FULL:
		if (k)
			kc_contpte_clear_full_ptes(mm, addr, p, op->nr, (int)op->flags);
		else
			contpte_clear_full_ptes(mm, addr, p, op->nr);
		break;
	case OP_WRPROTECT:
		if (k)
			kc_contpte_wrprotect_ptes(mm, addr, p, op->nr);
		else
			contpte_wrprotect_ptes(mm, addr, p, op->nr);
		break;
	case OP_CLEAR_YOUNG_DIRTY:
		if (k)
			kc_contpte_clear_young_dirty_ptes(mm, addr, p, op->nr, op->flags);
		else
			contpte_clear_young_dirty_ptes(mm, addr, p, op->nr, op->flags);
		break;
	case OP_TRY_FOLD:
		if (k)
			kc_contpte_try_fold(mm, addr, p, pte);
		else
			contpte_try_fold(mm, addr, p, pte);
		break;
	case OP_FOLD:
		if (pte_special(pte))
			break;
		if (k)
			kc___contpte_try_fold(mm, addr, p, pte);
		else
			__contpte_try_fold(mm, addr, p, pte);
		break;
	case OP_UNFOLD:
		if (k)
			kc_contpte_try_unfold(mm, addr, p, pte);
		else
			contpte_try_unfold(mm, addr, p, pte);
		break;
	case OP_CLEAR_FLUSH_YOUNG:
		s->ret = k ? (pte_t)kc_contpte_ptep_clear_flush_young(mm, addr, p)
			   : (pte_t)contpte_ptep_clear_flush_young(mm, addr, p);
		break;
	case OP_HW_UPDATE:
		/* FEAT_HAFDBS: the walker sets AF, or clears RDONLY of a writable entry */
		if (op->flags & 1)
			*p = pte_mkyoung(*p);
		if ((op->flags & 2) && pte_write(*p))
			*p &= ~PTE_RDONLY;
		break;
	case OP__COUNT:
		break;
	}
}

struct tally {
	uint64_t sequences, calls[OP__COUNT], differences[OP__COUNT];
	uint64_t folds, unfolds, tlbis, known;
	bool survey;	/* go on after a difference, counting them */
};

static void print_op(const struct twin *t, const struct op *op)
{
	fprintf(stderr, "  %s idx %u nr %u flags %u pte 0x%016llx (granule %uK, cpu %s)\n",
		op_name[op->kind], op->idx, op->nr, op->flags, (unsigned long long)op->pte,
		(unsigned int)(t->g->page_size >> 10), ptsim_cpu_name(t->s[0].m->cfg.cpu));
}

/* Everything the two sides did must be the same; prints what is not. */
static bool compare(const struct twin *t, const struct op *op, bool quiet)
{
	const struct side *a = &t->s[0], *b = &t->s[1];
	bool same = true;

	if (a->ret != b->ret) {
		if (!quiet)
			fprintf(stderr, "  returned 0x%llx (model) vs 0x%llx (kernel)\n",
				(unsigned long long)a->ret, (unsigned long long)b->ret);
		same = false;
	}
	for (unsigned int i = 0; i < t->nr; i++) {
		if (a->table[i] != b->table[i]) {
			if (!quiet)
				fprintf(stderr, "  entry %u: 0x%016llx (model) vs 0x%016llx (kernel)\n",
					i, (unsigned long long)a->table[i],
					(unsigned long long)b->table[i]);
			same = false;
		}
	}
	for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++) {
		if (a->m->op.ev[e] != b->m->op.ev[e]) {
			if (!quiet)
				fprintf(stderr, "  event %s: %llu (model) vs %llu (kernel)\n",
					ptsim_event_name(e), (unsigned long long)a->m->op.ev[e],
					(unsigned long long)b->m->op.ev[e]);
			same = false;
		}
	}
	if (memcmp(&a->m->fn_op[PTSIM_FN_CONTPTE_CONVERT], &b->m->fn_op[PTSIM_FN_CONTPTE_CONVERT],
		   sizeof(a->m->fn_op[0]))) {
		if (!quiet)
			fprintf(stderr, "  counts attributed to contpte_convert differ\n");
		same = false;
	}
	if (a->nr_trace != b->nr_trace ||
	    memcmp(a->trace, b->trace, MIN(a->nr_trace, MAX_TRACE) * sizeof(a->trace[0]))) {
		if (!quiet)
			fprintf(stderr, "  TLBIs: %u (model) vs %u (kernel), or in another order\n",
				a->nr_trace, b->nr_trace);
		same = false;
	}
	if (a->nr_diags != b->nr_diags ||
	    memcmp(a->diags, b->diags, MIN(a->nr_diags, MAX_DIAGS) * sizeof(a->diags[0]))) {
		if (!quiet)
			fprintf(stderr, "  diagnostics: %u (model) vs %u (kernel)\n", a->nr_diags,
				b->nr_diags);
		same = false;
	}
	if (!same && !quiet)
		print_op(t, op);
	return same;
}

/*
 * What the callers do after the batch helpers that leave the flush to them
 * (zap's and madvise's mmu_gather, fork's flush_tlb_mm), the same on both
 * sides and outside the comparison.
 */
static void caller_flush(struct twin *t, const struct op *op)
{
	if (op->kind != OP_GET_AND_CLEAR_FULL && op->kind != OP_CLEAR_FULL &&
	    op->kind != OP_WRPROTECT && op->kind != OP_CLEAR_YOUNG_DIRTY &&
	    op->kind != OP_CLEAR_FLUSH_YOUNG)	/* its TLBIs wait for the next DSB */
		return;
	for (unsigned int w = 0; w < 2; w++)
		flush_tlb_mm(t->s[w].mm);
}

/* Back to an empty window on both sides, the same way (cleared, then flushed). */
static void twin_reset(struct twin *t)
{
	for (unsigned int w = 0; w < 2; w++) {
		struct side *s = &t->s[w];

		__get_and_clear_full_ptes(s->mm, t->va, s->table, t->nr);
		flush_tlb_mm(s->mm);
		s->nr_diags = 0;
	}
}

/*
 * The calls where the model follows v6.12.0 and a tree with later stable
 * fixes differs by design (doc/kernel-source.md, "Known differences"): set_ptes
 * of more than one not-valid (PROT_NONE) entry, which 6.12.y's contpte_set_ptes
 * stores without the contiguous bit in one __set_ptes.
 */
static bool known_difference(const struct op *op)
{
	return op->kind == OP_SET_PTES && !pte_valid(op->pte);
}

static void run_sequences(struct twin *t, uint64_t *r, unsigned int nr_seq, struct tally *tl)
{
	for (unsigned int seq = 0; seq < nr_seq; seq++) {
		unsigned int len = 1 + prng_below(r, 48);

		for (unsigned int i = 0; i < len; i++) {
			struct op op;

			if (!random_op(r, t, &op))
				continue;
			run_op(t, 0, &op);
			run_op(t, 1, &op);
			tl->calls[op.kind]++;
			tl->folds += t->s[0].m->op.ev[PTSIM_EV_CONTPTE_FOLD];
			tl->unfolds += t->s[0].m->op.ev[PTSIM_EV_CONTPTE_UNFOLD];
			tl->tlbis += t->s[0].nr_trace;
			if (known_difference(&op)) {
				/* the kernel's side is the reference for what follows */
				if (!compare(t, &op, true))
					tl->known++;
				memcpy(t->s[0].table, t->s[1].table, t->nr * sizeof(pte_t));
			} else if (!compare(t, &op, tl->survey && tl->differences[op.kind] > 0)) {
				tl->differences[op.kind]++;
				if (!tl->survey)
					fail_msg("the model and the kernel's contpte.c differ (sequence %u, call %u)",
						 seq, i);
				/* resynchronise: the kernel's side becomes the model's */
				memcpy(t->s[0].table, t->s[1].table, t->nr * sizeof(pte_t));
			}
			assert_int_equal(t->s[0].nr_diags, 0);
			caller_flush(t, &op);
		}
		twin_reset(t);
		tl->sequences++;
	}
}

static unsigned int sequences_per_granule = 200;
static uint64_t seed = 12;
static bool survey;

static void differential(enum ptsim_granule granule)
{
	static const enum ptsim_cpu cpus[] = {
		PTSIM_CPU_NEOVERSE_N1,	/* no FEAT_TLBIRANGE, BBM level 0 */
		PTSIM_CPU_NEOVERSE_V2,	/* range TLBIs, BBML2 without the noabort allow-list */
		PTSIM_CPU_AMPEREONE,	/* BBML2-noabort allow-listed */
	};
	struct tally tl = { .survey = survey };
	uint64_t r;

	r = prng_seed(seed ^ granule);
	for (unsigned int c = 0; c < ARRAY_SIZE(cpus); c++) {
		struct twin t;

		twin_create(&t, granule, cpus[c]);
		run_sequences(&t, &r, (sequences_per_granule + c) / ARRAY_SIZE(cpus), &tl);
		twin_destroy(&t);
	}
	/* and as init_mm: mm_is_user is false, nothing folds, set_ptes is __set_ptes */
	{
		struct twin t;

		twin_create(&t, granule, PTSIM_CPU_NEOVERSE_V2);
		t.s[0].mm->kernel = t.s[1].mm->kernel = true;
		run_sequences(&t, &r, MAX(sequences_per_granule / 10, 1), &tl);
		twin_destroy(&t);
	}
	printf("%uK: %llu sequences, %llu folds, %llu unfolds, %llu TLBIs; %llu calls of a known "
	       "difference differed\n",
	       (unsigned int)(1u << granule) >> 10, (unsigned long long)tl.sequences,
	       (unsigned long long)tl.folds, (unsigned long long)tl.unfolds,
	       (unsigned long long)tl.tlbis, (unsigned long long)tl.known);
	for (unsigned int k = 0; k < OP__COUNT; k++)
		printf("  %-30s %8llu calls, %llu differences\n", op_name[k],
		       (unsigned long long)tl.calls[k], (unsigned long long)tl.differences[k]);
	for (unsigned int k = 0; k < OP__COUNT; k++)
		assert_int_equal(tl.differences[k], 0);
	/* every entry point was exercised, and blocks did fold and unfold */
	for (unsigned int k = 0; k < OP__COUNT; k++)
		assert_true(tl.calls[k] > 0);
	assert_true(tl.folds > 0 && tl.unfolds > 0);
}

static void test_4k(void **state)
{
	(void)state;
	differential(PTSIM_GRANULE_4K);
}

static void test_16k(void **state)
{
	(void)state;
	differential(PTSIM_GRANULE_16K);
}

static void test_64k(void **state)
{
	(void)state;
	differential(PTSIM_GRANULE_64K);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_4k),
		cmocka_unit_test(test_16k),
		cmocka_unit_test(test_64k),
	};

	if (argc > 1)
		sequences_per_granule = (unsigned int)strtoul(argv[1], NULL, 0);
	if (argc > 2)
		seed = strtoull(argv[2], NULL, 0);
	if (argc > 3)
		preset = argv[3];
	if (argc > 4) {
		features = argv + 4;
		nr_features = (unsigned int)(argc - 4);
	}
	survey = getenv("KSH_SURVEY") != NULL;
	return cmocka_run_group_tests(tests, NULL, NULL);
}

#else

int main(void)
{
	printf("SKIP: no kernel tree configured (meson configure -Dkernel_source=DIR, "
	       "doc/kernel-source.md)\n");
	return 77;
}

#endif
