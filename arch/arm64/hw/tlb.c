// SPDX-License-Identifier: MIT
/*
 * The TLB model: per CPU an L1 dTLB, an L1 iTLB and a unified L2 TLB,
 * set-associative with LRU. An entry caches one translation of the size the
 * walk found (a page, a contiguous run when the CPU coalesces it, or a
 * block). TLBIs remove what the Arm ARM says they remove; a lookup matching
 * several entries is a TLB conflict (D8.17.3).
 *
 * Replacement is true LRU on every CPU, the documented default
 * (doc/cpu-profiles.md §10.1): the Cortex-A76 TRM gives the TLBs' geometry
 * but not their replacement policy, and Apple publishes none.
 */
#include "hw.h"

#include <stdlib.h>
#include <string.h>

struct tlb_entry {
	uint64_t va;		/* base, aligned to the entry size */
	uint64_t pa;		/* output address of va */
	pte_t desc;		/* the leaf descriptor as the walk read it */
	unsigned int asid;
	uint8_t shift;		/* log2 of the entry size */
	uint8_t level;
	bool valid;
	bool global;
};

#define HINT_SLOTS 256u

struct tlb_array {
	unsigned int sets, ways;
	struct tlb_entry *e;
	/*
	 * Per entry, the tick of its last use, 0 while invalid: a victim search
	 * reads one packed array, and its first minimum is the first invalid way,
	 * else the least recently used one.
	 */
	uint64_t *age;
	/*
	 * Per entry, its VA with its size in the low bits (va | shift), 0 while
	 * invalid: a lookup compares one packed word per way.
	 */
	uint64_t *tag;
	uint64_t shifts;	/* bit s set: valid entries of size 2^s are present */
	uint32_t nr_shift[64];	/* ... how many */
	/*
	 * Inserts that found a valid entry overlapping the new one (same ASID,
	 * or either global). While it is 0 no VA has two entries, so the entry
	 * a hint points at is the only match. Reset when the array empties.
	 */
	uint64_t overlaps;
	unsigned int page_shift;
	uint32_t hint[HINT_SLOTS];	/* by page number: 1 + the index of the entry last found */
};

struct cpu_tlb {
	struct tlb_array arr[3];	/* PTSIM_TLB_L1D, L1I, L2 */
};

#define MAX_PENDING_RANGES 32

/* A range an issued TLBI covered, checked at the completing DSB. */
struct tlbi_range {
	uint64_t start, end;
	unsigned int asid;
	bool any_asid;
	bool local;		/* a TLBI without the IS suffix */
	unsigned int cpu;	/* the CPU that issued it: its DSB completes it */
	uint64_t inserts;	/* the model's inserts when the TLBI ran */
};

struct tlb_model {
	unsigned int nr_cpus;
	struct cpu_tlb *cpu;
	uint64_t tick;
	uint64_t inserts;	/* entries filled, ever */
	struct tlbi_range pending[MAX_PENDING_RANGES];
	unsigned int nr_pending;
	int drop_level;		/* the TLBI in progress has a TTL hint: only this level goes */
};

static int array_init(struct tlb_array *a, const struct tlb_geometry *g, unsigned int page_shift)
{
	memset(a, 0, sizeof(*a));
	a->ways = g->ways;
	a->sets = g->entries / g->ways;
	a->page_shift = page_shift;
	a->e = calloc(g->entries, sizeof(*a->e));
	a->age = calloc(g->entries, sizeof(*a->age));
	a->tag = calloc(g->entries, sizeof(*a->tag));
	return a->e && a->age && a->tag ? 0 : -ENOMEM;
}

int hw_init(struct ptsim_machine *m)
{
	struct tlb_model *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	m->tlb = t;
	t->nr_cpus = m->cfg.nr_cpus;
	t->cpu = calloc(t->nr_cpus, sizeof(*t->cpu));
	if (!t->cpu)
		return -ENOMEM;
	for (unsigned int c = 0; c < t->nr_cpus; c++) {
		const struct tlb_geometry *g[3] = { &m->cpu->l1d, &m->cpu->l1i, &m->cpu->l2 };

		for (int i = 0; i < 3; i++)
			if (array_init(&t->cpu[c].arr[i], g[i], m->geo.page_shift))
				return -ENOMEM;
	}
	if (bbm_init(&m->bbm, t->nr_cpus))
		return -ENOMEM;
	/* the BBM checker's state is bookkeeping: charged as it grows */
	u64map_charge_to(&m->bbm.broken, &m->host_bytes);
	m->bbm.host_bytes = &m->host_bytes;
	m->host_bytes += bbm_host_bytes(&m->bbm);
	return dcache_init(m);
}

uint64_t hw_host_bytes(const struct ptsim_machine *m)
{
	const struct tlb_model *t = m->tlb;
	uint64_t bytes = sizeof(*t) + t->nr_cpus * sizeof(*t->cpu);

	for (unsigned int c = 0; c < t->nr_cpus; c++)
		for (int i = 0; i < 3; i++) {
			const struct tlb_array *a = &t->cpu[c].arr[i];
			uint64_t n = (uint64_t)a->sets * a->ways;

			bytes += n * (sizeof(*a->e) + sizeof(*a->age) + sizeof(*a->tag));
		}
	return bytes + dcache_host_bytes(m);
}

void hw_free(struct ptsim_machine *m)
{
	struct tlb_model *t = m->tlb;

	if (t) {
		for (unsigned int c = 0; t->cpu && c < t->nr_cpus; c++)
			for (int i = 0; i < 3; i++) {
				free(t->cpu[c].arr[i].e);
				free(t->cpu[c].arr[i].age);
				free(t->cpu[c].arr[i].tag);
			}
		free(t->cpu);
		free(t);
		m->tlb = NULL;
	}
	bbm_free(&m->bbm);
	dcache_free(m);
}

int hw_copy(struct ptsim_machine *dst, const struct ptsim_machine *src)
{
	const struct tlb_model *s = src->tlb;
	struct tlb_model *t = calloc(1, sizeof(*t));
	int err;

	memset(&dst->bbm, 0, sizeof(dst->bbm));
	dst->tlb = t;
	if (!t || dcache_copy(dst, src))
		return -ENOMEM;
	*t = *s;
	t->cpu = calloc(s->nr_cpus, sizeof(*t->cpu));
	if (!t->cpu)
		return -ENOMEM;
	for (unsigned int c = 0; c < s->nr_cpus; c++) {
		for (int i = 0; i < 3; i++) {
			const struct tlb_array *a = &s->cpu[c].arr[i];
			size_t n = (size_t)a->sets * a->ways;

			t->cpu[c].arr[i] = *a;
			t->cpu[c].arr[i].e = malloc(n * sizeof(*a->e));
			t->cpu[c].arr[i].age = malloc(n * sizeof(*a->age));
			t->cpu[c].arr[i].tag = malloc(n * sizeof(*a->tag));
			if (!t->cpu[c].arr[i].e || !t->cpu[c].arr[i].age || !t->cpu[c].arr[i].tag)
				return -ENOMEM;
			memcpy(t->cpu[c].arr[i].e, a->e, n * sizeof(*a->e));
			memcpy(t->cpu[c].arr[i].age, a->age, n * sizeof(*a->age));
			memcpy(t->cpu[c].arr[i].tag, a->tag, n * sizeof(*a->tag));
		}
	}
	err = bbm_copy(&dst->bbm, &src->bbm);
	/* src's total came with the copy; the copy's arrays are as long as their contents */
	u64map_charge_to(&dst->bbm.broken, &dst->host_bytes);
	dst->bbm.host_bytes = &dst->host_bytes;
	dst->host_bytes += bbm_host_bytes(&dst->bbm);
	dst->host_bytes -= bbm_host_bytes(&src->bbm);
	return err;
}

/*
 * The VA an entry is tagged with: the bits the walk uses, plus which TTBR
 * translated it, so that a user VA never matches a kernel (TTBR1) entry with
 * the same low bits. Bit 62 is above every VA width (52 at most) and below the
 * bits set-indexing can reach.
 */
#define TTBR1_TAG	(UINT64_C(1) << 62)

static uint64_t tlb_key(const struct ptsim_machine *m, uint64_t va)
{
	uint64_t low = va & ((UINT64_C(1) << m->geo.va_bits) - 1);

	return va >> 63 ? low | TTBR1_TAG : low;
}

static struct tlb_entry *set_of(const struct tlb_array *a, uint64_t va, unsigned int shift)
{
	return &a->e[((va >> shift) & (a->sets - 1)) * a->ways];
}

static bool entry_matches(const struct tlb_entry *e, uint64_t va, unsigned int asid)
{
	return e->valid && (va & ~((UINT64_C(1) << e->shift) - 1)) == e->va &&
	       (e->global || e->asid == asid);
}

/*
 * Two entries for one VA that differ only where a change may be made in place
 * (permissions, AF, the dirty state, software bits: what bbm_needs_break lets
 * through) translate it the same way, and a PE may hold both and use either
 * (a hardware dirty update leaves exactly this behind). Only a difference in
 * size, output address, attributes or nG makes a TLB conflict.
 */
static bool same_translation(const struct tlb_entry *a, const struct tlb_entry *b)
{
	const pte_t attr = DESC_ATTRINDX_MASK | DESC_SH_MASK | DESC_NG;

	return a->shift == b->shift && a->va == b->va && a->pa == b->pa &&
	       !((a->desc ^ b->desc) & attr);
}

/* The tag of a valid entry of size 2^shift holding va: its base, with the size in the low bits. */
static uint64_t tag_for(uint64_t va, unsigned int shift)
{
	return (va & ~((UINT64_C(1) << shift) - 1)) | shift;
}

/* The first entry translating va for asid, and how many translate it differently. */
static struct tlb_entry *array_lookup(const struct tlb_array *a, uint64_t va, unsigned int asid,
				      unsigned int *matches)
{
	struct tlb_entry *found = NULL;

	*matches = 0;
	for (uint64_t shifts = a->shifts; shifts; shifts &= shifts - 1) {
		unsigned int s = (unsigned int)__builtin_ctzll(shifts);
		struct tlb_entry *set = set_of(a, va, s);
		const uint64_t *tag = &a->tag[set - a->e];
		const uint64_t want = tag_for(va, s);

		for (unsigned int w = 0; w < a->ways; w++) {
			if (tag[w] != want || !(set[w].global || set[w].asid == asid))
				continue;
			if (!found)
				found = &set[w];
			if (found == &set[w] || !same_translation(found, &set[w]))
				(*matches)++;
		}
	}
	return found;
}

static uint32_t *hint_of(struct tlb_array *a, uint64_t va)
{
	return &a->hint[(va >> a->page_shift) & (HINT_SLOTS - 1)];
}

/* While no VA has two entries, the entry the hint names, if it still translates va, is the one. */
static struct tlb_entry *hinted_entry(struct tlb_array *a, uint64_t va, unsigned int asid)
{
	uint32_t hint = *hint_of(a, va);

	if (a->overlaps || !hint || !entry_matches(&a->e[hint - 1], va, asid))
		return NULL;
	return &a->e[hint - 1];
}

/* array_lookup through the hint. */
static inline struct tlb_entry *array_find(struct tlb_array *a, uint64_t va, unsigned int asid,
				    unsigned int *matches)
{
	uint32_t *hint = hint_of(a, va);
	struct tlb_entry *e = hinted_entry(a, va, asid);

	if (e) {
		*matches = 1;
		return e;
	}
	e = array_lookup(a, va, asid, matches);
	if (e)
		*hint = (uint32_t)(e - a->e) + 1;
	return e;
}

/* Do two entries cover a common VA that one lookup could match in both? */
static bool entries_overlap(const struct tlb_entry *e, const struct tlb_entry *n)
{
	uint64_t e_end = e->va + (UINT64_C(1) << e->shift), n_end = n->va + (UINT64_C(1) << n->shift);

	return e->valid && e->va < n_end && n->va < e_end &&
	       (e->global || n->global || e->asid == n->asid);
}

/*
 * Does a valid entry other than skip overlap n? An entry as large as n or
 * larger would hold n's whole range; with key_absent the caller's lookup has
 * just found none, so only smaller ones are looked for.
 */
static bool array_overlap(const struct tlb_array *a, const struct tlb_entry *n,
			  const struct tlb_entry *skip, bool key_absent)
{
	for (uint64_t shifts = a->shifts; shifts; shifts &= shifts - 1) {
		unsigned int s = (unsigned int)__builtin_ctzll(shifts);
		uint64_t pieces = s >= n->shift ? 1 : UINT64_C(1) << (n->shift - s);

		if (s >= n->shift && key_absent && !n->global)
			continue;
		if (pieces >= a->sets) {
			for (size_t k = 0; k < (size_t)a->sets * a->ways; k++)
				if (&a->e[k] != skip && a->e[k].shift == s && entries_overlap(&a->e[k], n))
					return true;
			continue;
		}
		for (uint64_t i = 0; i < pieces; i++) {
			const struct tlb_entry *set = set_of(a, n->va + (i << s), s);

			for (unsigned int w = 0; w < a->ways; w++)
				if (&set[w] != skip && set[w].shift == s && entries_overlap(&set[w], n))
					return true;
		}
	}
	return false;
}

/* Mark e used now. */
static void entry_touch(struct tlb_model *t, struct tlb_array *a, const struct tlb_entry *e)
{
	a->age[e - a->e] = ++t->tick;
}

/* Count e in (or out of) the sizes present. */
static void shift_add(struct tlb_array *a, const struct tlb_entry *e)
{
	if (!a->nr_shift[e->shift]++)
		a->shifts |= UINT64_C(1) << e->shift;
}

static void shift_remove(struct tlb_array *a, const struct tlb_entry *e)
{
	if (!--a->nr_shift[e->shift])
		a->shifts &= ~(UINT64_C(1) << e->shift);
}

/* Invalidate e; an array left empty has no overlapping entries any more. */
static void entry_drop(struct tlb_array *a, struct tlb_entry *e)
{
	if (e->valid)
		shift_remove(a, e);
	if (!a->shifts)
		a->overlaps = 0;
	e->valid = false;
	a->age[e - a->e] = 0;
	a->tag[e - a->e] = 0;
}

static void array_insert(struct tlb_model *t, struct tlb_array *a, const struct tlb_entry *n,
			 bool key_absent)
{
	struct tlb_entry *set = set_of(a, n->va, n->shift), *victim;
	const uint64_t *age = &a->age[set - a->e];
	unsigned int v = 0;

	/* the first least age: the first invalid way (age 0), else the least recently used */
	for (unsigned int w = 1; w < a->ways; w++)
		v = age[w] < age[v] ? w : v;
	victim = &set[v];
	if (!a->overlaps && array_overlap(a, n, victim, key_absent))
		a->overlaps++;
	if (victim->valid)
		shift_remove(a, victim);
	*victim = *n;
	a->tag[victim - a->e] = tag_for(n->va, n->shift);
	shift_add(a, victim);
	entry_touch(t, a, victim);
	t->inserts++;
}

/* The L1 array an access of this kind looks in: the iTLB for fetches, the dTLB otherwise. */
static struct tlb_array *l1_of(struct cpu_tlb *ct, enum ptsim_access_kind kind)
{
	return &ct->arr[kind == PTSIM_ACCESS_EXEC ? PTSIM_TLB_L1I : PTSIM_TLB_L1D];
}

/* Does the entry overlap [start, end) and belong to asid (or any, for all-ASID ops)? */
static bool entry_in(const struct tlb_entry *e, uint64_t start, uint64_t end, bool any_asid,
		     unsigned int asid)
{
	uint64_t e_end = e->va + (UINT64_C(1) << e->shift);

	return e->valid && e->va < end && start < e_end && (any_asid || e->global || e->asid == asid);
}

/* Small ranges probe the sets their pages index; large ones scan everything. */
#define PROBE_PAGES_MAX 32

typedef void (*entry_fn)(struct ptsim_machine *m, struct tlb_array *a, struct tlb_entry *e);

static void for_each_in_range(struct ptsim_machine *m, struct tlb_array *a, uint64_t start,
			      uint64_t end, bool any, unsigned int asid, entry_fn fn)
{
	uint64_t page = m->geo.page_size;

	if (!a->shifts)
		return;	/* no valid entry of any size */
	if ((end - start) / page <= PROBE_PAGES_MAX) {
		for (uint64_t va = start; va < end; va += page) {
			for (uint64_t shifts = a->shifts; shifts; shifts &= shifts - 1) {
				unsigned int s = (unsigned int)__builtin_ctzll(shifts);
				struct tlb_entry *set = set_of(a, va, s);
				const uint64_t *tag = &a->tag[set - a->e];
				/* the valid entry of size s holding the page, if any (entry_in) */
				const uint64_t want = tag_for(va, s);

				for (unsigned int w = 0; w < a->ways; w++)
					if (tag[w] == want &&
					    (any || set[w].global || set[w].asid == asid))
						fn(m, a, &set[w]);
			}
		}
		return;
	}
	for (size_t k = 0; k < (size_t)a->sets * a->ways; k++)
		if (entry_in(&a->e[k], start, end, any, asid))
			fn(m, a, &a->e[k]);
}

static void drop_entry(struct ptsim_machine *m, struct tlb_array *a, struct tlb_entry *e)
{
	/* a TTL hint naming another level: the entry may stay, and the model keeps it */
	if (!m->tlb->drop_level || m->tlb->drop_level == e->level)
		entry_drop(a, e);
}

void tlb_invalidate(struct ptsim_machine *m, const struct tlbi_op *op)
{
	struct tlb_model *t = m->tlb;
	uint64_t start = tlb_key(m, op->va);
	uint64_t end = start + (op->pages << m->geo.page_shift);
	bool any = op->kind == TLBI_KIND_VAA || op->kind == TLBI_KIND_RANGE_VAA;

	if (op->kind == TLBI_KIND_ALL || op->kind == TLBI_KIND_ASID) {
		start = 0;
		end = UINT64_MAX;
		any = op->kind == TLBI_KIND_ALL;
	}
	t->drop_level = op->ttl_level;
	/* inner-shareable maintenance reaches every CPU; a local one only the issuer */
	for (unsigned int c = 0; c < t->nr_cpus; c++) {
		if (op->local && c != op->cpu)
			continue;
		for (int i = 0; i < 3; i++) {
			struct tlb_array *a = &t->cpu[c].arr[i];

			if (op->kind == TLBI_KIND_ASID) {
				/* ASIDE1: that ASID's non-global entries only (IDMCXY) */
				for (size_t k = 0; k < (size_t)a->sets * a->ways; k++)
					if (!a->e[k].global && a->e[k].asid == op->asid)
						entry_drop(a, &a->e[k]);
			} else {
				for_each_in_range(m, a, start, end, any, op->asid, drop_entry);
			}
		}
	}
	t->drop_level = 0;
	if (t->nr_pending < MAX_PENDING_RANGES && op->kind != TLBI_KIND_ASID)
		t->pending[t->nr_pending++] = (struct tlbi_range){ start, end, op->asid, any,
								   op->local, op->cpu, t->inserts };
}

struct walk_result {
	pte_t *leaf;		/* the descriptor, in its table */
	pte_t desc;
	int level;
	unsigned int reads;	/* descriptors the walk read */
	const pte_t *last;	/* the last of them: a leaf, or the empty or reserved entry */
	enum ptsim_fault_kind fault;
};

/*
 * The last-level table the walks of one tlb_access_run last reached.
 * Nothing writes a table descriptor while it runs (the hardware's access-flag
 * and dirty updates write leaves only), so a later walk of a VA that table
 * translates reads the same descriptors above it, and starts there: what
 * hw_walk would read, without reading it again.
 */
struct walk_memo {
	struct pt_table *table;	/* NULL: none yet */
	uint64_t span;		/* the VAs it translates: key >> the level-2 entry shift */
	unsigned int reads;	/* descriptors read above it */
};

/*
 * The hardware walk from the TTBR's table, one descriptor read per level;
 * with memo (NULL: none), from the last-level table it holds when that table
 * translates va, and it is updated to each last-level table reached.
 */
static struct walk_result hw_walk_memo(const struct ptsim_machine *m, const struct hw_as *as,
				       uint64_t va, struct walk_memo *memo)
{
	const struct ptsim_geometry *g = &m->geo;
	const unsigned int span_shift = g->level_shift[level_slot(PTE_LEVEL - 1)];
	struct pt_table *t = as->root;
	struct walk_result r = { .fault = PTSIM_FAULT_TRANSLATION };
	int l = g->start_level;

	if (memo && memo->table && va >> span_shift == memo->span) {
		t = memo->table;
		l = PTE_LEVEL;
		r.reads = memo->reads;
	}
	for (; l <= 3; l++) {
		unsigned int idx = pt_index(g, l, va);
		pte_t d = t->desc[idx];

		r.reads++;
		r.last = &t->desc[idx];
		if (!(d & DESC_VALID))
			return r;
		if (l < PTE_LEVEL && desc_is_table(d) && t->next[idx]) {
			t = t->next[idx];
			if (memo && l == PTE_LEVEL - 1)
				*memo = (struct walk_memo){ t, va >> span_shift, r.reads };
			continue;
		}
		if ((l == PTE_LEVEL && (d & DESC_TYPE_MASK) != DESC_TYPE_PAGE) ||
		    (l < PTE_LEVEL && !g->level_block[level_slot(l)] && l != 2))
			return r;	/* reserved encoding: a translation fault */
		r.leaf = &t->desc[idx];
		r.desc = d;
		r.level = l;
		r.fault = PTSIM_FAULT_NONE;
		return r;
	}
	return r;
}

static struct walk_result hw_walk(const struct ptsim_machine *m, const struct hw_as *as,
				  uint64_t va)
{
	return hw_walk_memo(m, as, va, NULL);
}

/* The entry a walk of key (a tagged VA) creates. */
static struct tlb_entry make_entry(const struct ptsim_machine *m, const struct hw_as *as,
				   uint64_t key, const struct walk_result *w)
{
	const struct ptsim_geometry *g = &m->geo;
	struct tlb_entry e = { 0 };
	unsigned int shift = g->level_shift[level_slot(w->level)];
	uint64_t leaf_base = ALIGN_DOWN64(key, UINT64_C(1) << shift);
	uint64_t leaf_pa = desc_oa_pfn(w->desc, g->page_shift) << g->page_shift;

	/* a contiguous run is one entry on CPUs that coalesce it (D8.7.1) */
	if (desc_cont(w->desc) && m->cpu->coalesce_cont)
		shift += (unsigned int)__builtin_ctz(w->level == PTE_LEVEL ? g->cont_ptes : g->cont_pmds);
	e.va = ALIGN_DOWN64(key, UINT64_C(1) << shift);
	e.pa = leaf_pa + (key - leaf_base);
	e.pa -= key - e.va;
	e.desc = w->desc;
	e.asid = as->asid;
	e.global = !(w->desc & DESC_NG);
	e.shift = (uint8_t)shift;
	e.level = (uint8_t)w->level;
	e.valid = true;
	return e;
}

/* EL0 through TTBR0, EL1 through TTBR1 (AP[2:1], PXN/UXN; PAN not modelled). */
static bool permitted(const struct hw_as *as, pte_t d, enum ptsim_access_kind kind)
{
	if (as->ttbr1)
		return kind == PTSIM_ACCESS_EXEC ? !(d & DESC_PXN) :
		       kind == PTSIM_ACCESS_WRITE ? !(d & DESC_AP2) : true;
	switch (kind) {
	case PTSIM_ACCESS_EXEC:
		return !(d & DESC_UXN);
	case PTSIM_ACCESS_WRITE:
		return (d & DESC_AP1) && !(d & DESC_AP2);
	default:
		return d & DESC_AP1;
	}
}

/*
 * permitted(as, d, kind) as one masked compare: d permits the access when
 * (d & mask) == want. The same test also excludes needs_dirty_update, which
 * only a write to a read-only (AP[2] set) entry can need.
 */
struct perm_test {
	pte_t mask, want;
};

static struct perm_test perm_test_of(const struct hw_as *as, enum ptsim_access_kind kind)
{
	if (as->ttbr1)
		return kind == PTSIM_ACCESS_EXEC ? (struct perm_test){ DESC_PXN, 0 } :
		       kind == PTSIM_ACCESS_WRITE ? (struct perm_test){ DESC_AP2, 0 } :
		       (struct perm_test){ 0, 0 };
	switch (kind) {
	case PTSIM_ACCESS_EXEC:
		return (struct perm_test){ DESC_UXN, 0 };
	case PTSIM_ACCESS_WRITE:
		return (struct perm_test){ DESC_AP1 | DESC_AP2, DESC_AP1 };
	default:
		return (struct perm_test){ DESC_AP1, DESC_AP1 };
	}
}

/*
 * The entry the L1 hint names when it is a plain hit for key: the only entry
 * translating it (no overlaps), and one that permits the access. NULL when
 * that is not known, and the full lookup decides.
 */
static inline struct tlb_entry *hinted_plain_hit(struct tlb_array *a, uint64_t key,
						 unsigned int asid, struct perm_test p)
{
	uint32_t hint = *hint_of(a, key);
	struct tlb_entry *e;

	if (a->overlaps || !hint)
		return NULL;
	e = &a->e[hint - 1];
	return entry_matches(e, key, asid) && (e->desc & p.mask) == p.want ? e : NULL;
}

/* A write to a clean DBM page: the hardware walks again to set the dirty state. */
static bool needs_dirty_update(const struct ptsim_machine *m, pte_t desc,
			       enum ptsim_access_kind kind)
{
	return kind == PTSIM_ACCESS_WRITE && (desc & DESC_AP2) && (desc & DESC_DBM) &&
	       m->cpu->hafdbs;
}

/*
 * Walk, apply FEAT_HAFDBS updates to the descriptor in memory (hardware
 * writes: not seen by the BBM checker, which checks software), and fill L1
 * and L2.
 */
static enum ptsim_fault_kind walk_and_fill(struct ptsim_machine *m, const struct hw_as *as,
					   struct cpu_tlb *ct, uint64_t key,
					   enum ptsim_access_kind kind, bool key_absent,
					   struct walk_memo *memo, struct tlb_entry *out)
{
	struct walk_result w = hw_walk_memo(m, as, key, memo);
	struct tlb_entry e;

	count(m, PTSIM_EV_TLB_WALK, 1);
	count(m, PTSIM_EV_WALK_READ, w.reads);
	dcache_walk_load(m, w.last, 1);	/* the upper levels hit the walk cache */
	if (w.fault)
		return w.fault;
	if (!(w.desc & DESC_AF)) {
		if (!m->cpu->hafdbs)
			return PTSIM_FAULT_ACCESS_FLAG;
		w.desc |= DESC_AF;
		*w.leaf = w.desc;
		count(m, PTSIM_EV_HW_AF_UPDATE, 1);
	}
	if (needs_dirty_update(m, w.desc, kind) && permitted(as, w.desc & ~DESC_AP2, kind)) {
		w.desc &= ~DESC_AP2;	/* hardware dirty: DBM=1 makes the page writable */
		*w.leaf = w.desc;
		count(m, PTSIM_EV_HW_DIRTY_UPDATE, 1);
	}
	e = make_entry(m, as, key, &w);
	array_insert(m->tlb, l1_of(ct, kind), &e, key_absent);
	array_insert(m->tlb, &ct->arr[PTSIM_TLB_L2], &e, key_absent);
	*out = e;
	return PTSIM_FAULT_NONE;
}

static enum ptsim_fault_kind conflict(struct ptsim_machine *m, uint64_t va, unsigned int matches)
{
	count(m, PTSIM_EV_TLB_CONFLICT, 1);
	diag_report(m, PTSIM_DIAG_TLB_CONFLICT, va, -1, matches, 0,
		    "%u TLB entries translate one VA%s", matches,
		    m->cpu->bbml2_noabort ? "" : ": TLB conflict abort");
	/* BBML2-noabort CPUs promise to use one of them instead of aborting */
	return m->cpu->bbml2_noabort ? PTSIM_FAULT_NONE : PTSIM_FAULT_TLB_CONFLICT;
}

/* tlb_access once the L1 lookup for va (key) has found e (or nothing), with matches entries. */
static inline enum ptsim_fault_kind access_after_l1(struct ptsim_machine *m,
						    const struct hw_as *as, struct cpu_tlb *ct,
						    uint64_t va, uint64_t key,
						    enum ptsim_access_kind kind,
						    struct tlb_entry *e, unsigned int matches,
						    struct walk_memo *memo)
{
	struct tlb_array *l1 = l1_of(ct, kind), *ea = l1;	/* the array e is in */
	enum ptsim_fault_kind f = PTSIM_FAULT_NONE;
	struct tlb_entry filled;
	bool dropped = false;

	count(m, PTSIM_EV_MEM_ACCESS, 1);
	if (e) {
		count(m, PTSIM_EV_TLB_L1_HIT, 1);
	} else {
		ea = &ct->arr[PTSIM_TLB_L2];
		e = array_find(ea, key, as->asid, &matches);
		if (e) {
			count(m, PTSIM_EV_TLB_L2_HIT, 1);
			array_insert(m->tlb, l1, e, true);
		}
	}
	if (e && matches > 1)
		f = conflict(m, va, matches);
	if (!f && e) {
		entry_touch(m->tlb, ea, e);
		if (needs_dirty_update(m, e->desc, kind)) {
			entry_drop(ea, e);
			e = NULL;
			dropped = true;
		}
	}
	if (!f && !e) {
		/* both lookups missed, unless a dirty update dropped the entry found */
		f = walk_and_fill(m, as, ct, key, kind, !dropped, memo, &filled);
		e = f ? NULL : &filled;
	}
	if (!f && !permitted(as, e->desc, kind))
		f = PTSIM_FAULT_PERMISSION;
	if (f)
		count(m, PTSIM_EV_ACCESS_FAULT, 1);
	return f;
}

/* tlb_access when the hint gives no plain L1 hit: the full lookup, out of line. */
static __attribute__((noinline)) enum ptsim_fault_kind
access_looked_up(struct ptsim_machine *m, const struct hw_as *as, struct cpu_tlb *ct, uint64_t va,
		 uint64_t key, enum ptsim_access_kind kind)
{
	unsigned int matches;
	struct tlb_entry *e = array_find(l1_of(ct, kind), key, as->asid, &matches);

	return access_after_l1(m, as, ct, va, key, kind, e, matches, NULL);
}

enum ptsim_fault_kind tlb_access(struct ptsim_machine *m, const struct hw_as *as, unsigned int cpu,
				 uint64_t va, enum ptsim_access_kind kind)
{
	struct cpu_tlb *ct = &m->tlb->cpu[cpu];
	struct tlb_array *l1 = l1_of(ct, kind);
	uint64_t key = tlb_key(m, va);
	struct tlb_entry *e = hinted_plain_hit(l1, key, as->asid, perm_test_of(as, kind));

	if (!e)
		return access_looked_up(m, as, ct, va, key, kind);
	/* what access_after_l1 does for a plain L1 hit */
	count(m, PTSIM_EV_MEM_ACCESS, 1);
	count(m, PTSIM_EV_TLB_L1_HIT, 1);
	entry_touch(m->tlb, l1, e);
	return PTSIM_FAULT_NONE;
}

/* The pages of a plain L1 hit on e from va (tagged key): all up to e's end, while no VA has two entries. */
static inline uint64_t hit_pages(const struct tlb_array *a, const struct tlb_entry *e, uint64_t va,
				 uint64_t key, uint64_t end, unsigned int page_shift)
{
	if (a->overlaps || e->shift == page_shift)
		return 1;
	return (MIN(end - va, e->va + (UINT64_C(1) << e->shift) - key) +
		(UINT64_C(1) << page_shift) - 1) >> page_shift;
}

/*
 * The plain L1 hits from *va on that the hints name, taken as
 * tlb_access_run takes them, with the loop's state in locals: *va is
 * advanced past them and how many pages they were is returned. Where they
 * stop, *hinted is the entry the hint names if it is the only one for that
 * VA but not a plain hit, else NULL and the hint names no entry for it.
 * Only while no VA has two entries (a->overlaps == 0). VAs from *va up to
 * end are in one half of the VA space, so their tags advance with them.
 */
static uint64_t hinted_hits(struct tlb_model *t, struct tlb_array *a, const struct hw_as *as,
			    struct perm_test perm, uint64_t key, uint64_t *va, uint64_t end,
			    struct tlb_entry **hinted)
{
	const unsigned int ps = a->page_shift, asid = as->asid;
	uint64_t tick = t->tick, done = 0, v = *va;

	*hinted = NULL;
	while (v < end) {
		uint32_t hint = a->hint[(key >> ps) & (HINT_SLOTS - 1)];
		struct tlb_entry *e;
		uint64_t n;

		if (!hint)
			break;
		e = &a->e[hint - 1];
		if (!entry_matches(e, key, asid))
			break;
		if ((e->desc & perm.mask) != perm.want) {
			*hinted = e;	/* the only entry for key, but not a plain hit */
			break;
		}
		n = hit_pages(a, e, v, key, end, ps);
		tick += n;	/* n touches of e: its age is the last */
		a->age[hint - 1] = tick;
		done += n;
		v += n << ps;
		key += n << ps;
	}
	t->tick = tick;
	*va = v;
	return done;
}

uint64_t tlb_access_run(struct ptsim_machine *m, const struct hw_as *as, unsigned int cpu,
			uint64_t va, uint64_t end, enum ptsim_access_kind kind, uint64_t *hits,
			enum ptsim_fault_kind *fault)
{
	struct cpu_tlb *ct = &m->tlb->cpu[cpu];
	struct tlb_array *l1 = l1_of(ct, kind);
	const struct perm_test perm = perm_test_of(as, kind);
	const unsigned int ps = m->geo.page_shift;
	struct walk_memo memo = { 0 };

	while (va < end) {
		uint64_t key = tlb_key(m, va), n;
		unsigned int matches = 1;
		enum ptsim_fault_kind f;
		struct tlb_entry *e;

		if (l1->overlaps) {
			e = array_find(l1, key, as->asid, &matches);
		} else {
			n = hinted_hits(m->tlb, l1, as, perm, key, &va, end, &e);
			*hits += n;
			if (va >= end)
				break;
			if (n)
				key = tlb_key(m, va);
			/* array_find once the hint has been tried */
			if (!e) {
				e = array_lookup(l1, key, as->asid, &matches);
				if (e)
					*hint_of(l1, key) = (uint32_t)(e - l1->e) + 1;
			}
		}
		if (e && matches == 1 && permitted(as, e->desc, kind) &&
		    !needs_dirty_update(m, e->desc, kind)) {
			/*
			 * A plain hit. While no VA has two entries, the pages after va
			 * up to e's end find e again: n touches of it. Otherwise each
			 * page is looked up.
			 */
			n = hit_pages(l1, e, va, key, end, ps);
			m->tlb->tick += n - 1;
			entry_touch(m->tlb, l1, e);	/* the n-th touch */
			*hits += n;
			va += n << ps;
			continue;
		}
		/* not a plain hit: the page goes the whole way */
		f = access_after_l1(m, as, ct, va, key, kind, e, matches, &memo);
		if (f) {
			*fault = f;
			return va;
		}
		user_page_access(m, kind, 1);
		va += UINT64_C(1) << ps;
	}
	return end;
}

enum ptsim_fault_kind tlb_fill(struct ptsim_machine *m, const struct hw_as *as, unsigned int cpu,
			       uint64_t va, enum ptsim_access_kind kind)
{
	struct tlb_entry e;

	return walk_and_fill(m, as, &m->tlb->cpu[cpu], tlb_key(m, va), kind, false, NULL, &e);
}

/* Does any valid entry of a for asid (or global) overlap the tagged range [start, end)? */
static bool array_overlaps(const struct tlb_array *a, uint64_t start, uint64_t end,
			   unsigned int asid)
{
	for (size_t k = 0; k < (size_t)a->sets * a->ways; k++)
		if (entry_in(&a->e[k], start, end, false, asid))
			return true;
	return false;
}

void user_exec_call(struct ptsim_machine *m)
{
	count(m, PTSIM_EV_EXEC_CALL, 1);
}

void user_exec_fetch(struct ptsim_machine *m, uint64_t pa)
{
	dcache_ifetch(m, pa);
}

void user_page_access(struct ptsim_machine *m, enum ptsim_access_kind kind, uint64_t n)
{
	count(m, kind == PTSIM_ACCESS_WRITE ? PTSIM_EV_USER_PAGE_WRITE : PTSIM_EV_USER_PAGE_READ, n);
	dcache_user_stream(m, n << m->geo.page_shift);
}

void tlb_count_hits(struct ptsim_machine *m, uint64_t n, enum ptsim_access_kind kind)
{
	count(m, PTSIM_EV_MEM_ACCESS, n);
	count(m, PTSIM_EV_TLB_L1_HIT, n);
	user_page_access(m, kind, n);
}

void tlb_count_fault_run(struct ptsim_machine *m, uint64_t n, unsigned int reads,
			 const void *last)
{
	count(m, PTSIM_EV_MEM_ACCESS, n);
	count(m, PTSIM_EV_TLB_WALK, n);
	count(m, PTSIM_EV_WALK_READ, n * reads);
	count(m, PTSIM_EV_ACCESS_FAULT, n);
	dcache_walk_load(m, last, n);
}

uint64_t tlb_fault_run(const struct ptsim_machine *m, const struct hw_as *as, unsigned int cpu,
		       uint64_t va, uint64_t end, enum ptsim_access_kind kind, unsigned int *reads,
		       const void **last)
{
	const struct ptsim_geometry *g = &m->geo;
	struct cpu_tlb *ct = &m->tlb->cpu[cpu];
	uint64_t key = tlb_key(m, va), size, run_end;
	struct walk_result w = hw_walk(m, as, key);
	int level = g->start_level + (int)w.reads - 1;

	if (w.fault != PTSIM_FAULT_TRANSLATION || level == PTE_LEVEL)
		return 0;
	/* the empty entry at `level` covers this much: every page in it walks the same way */
	size = pt_level_size(g, level);
	run_end = ALIGN_DOWN64(va, size) + size;
	if (run_end <= va || run_end > end)
		run_end = end;
	if (array_overlaps(l1_of(ct, kind), key, key + (run_end - va), as->asid) ||
	    array_overlaps(&ct->arr[PTSIM_TLB_L2], key, key + (run_end - va), as->asid))
		return 0;
	*reads = w.reads;
	*last = w.last;
	return (run_end - va) >> g->page_shift;
}

int ptsim_tlb_count(const struct ptsim_machine *m, unsigned int cpu, enum ptsim_tlb_level which,
		    unsigned int *out)
{
	const struct tlb_array *a;
	unsigned int n = 0;

	VALIDATE(m && out && cpu < m->tlb->nr_cpus && (unsigned int)which <= PTSIM_TLB_L2);
	a = &m->tlb->cpu[cpu].arr[which];
	for (size_t k = 0; k < (size_t)a->sets * a->ways; k++)
		n += a->e[k].valid;
	*out = n;
	return 0;
}

unsigned int tlb_probe(const struct ptsim_machine *m, const struct hw_as *as, unsigned int cpu,
		       uint64_t va, enum ptsim_tlb_level which, uint64_t *size)
{
	const struct tlb_array *a = &m->tlb->cpu[cpu].arr[which];
	uint64_t key = tlb_key(m, va), biggest = 0;
	unsigned int n = 0;

	for (size_t k = 0; k < (size_t)a->sets * a->ways; k++) {
		if (entry_matches(&a->e[k], key, as->asid)) {
			n++;
			biggest = MAX(biggest, UINT64_C(1) << a->e[k].shift);
		}
	}
	if (size)
		*size = biggest;
	return n;
}

static void drop_where(struct ptsim_machine *m, bool global, bool non_global)
{
	struct tlb_model *t = m->tlb;

	for (unsigned int c = 0; c < t->nr_cpus; c++)
		for (int i = 0; i < 3; i++) {
			struct tlb_array *a = &t->cpu[c].arr[i];

			for (size_t k = 0; k < (size_t)a->sets * a->ways; k++)
				if (a->e[k].global ? global : non_global)
					entry_drop(a, &a->e[k]);
		}
}

void tlb_drop_global(struct ptsim_machine *m)
{
	drop_where(m, true, false);
}

void tlb_drop_all(struct ptsim_machine *m)
{
	drop_where(m, true, true);
}

/* Does a cached entry allow more than the tables do now? */
static bool grants_more(const struct ptsim_machine *m, const struct tlb_entry *e)
{
	struct hw_as as;
	struct walk_result w;
	pte_t now;

	/* a global entry of a TTBR0 table (the raw API can write one) belongs to its filler's ASID */
	if (!hw_as_of_asid(m, e->asid, e->global && (e->va & TTBR1_TAG), &as))
		return false;
	w = hw_walk(m, &as, e->va);
	if (w.fault)
		return true;
	now = w.desc;
	if ((desc_oa_pfn(now, m->geo.page_shift) << m->geo.page_shift) !=
	    ALIGN_DOWN64(e->pa, pt_level_size(&m->geo, w.level)))
		return true;
	/*
	 * A contiguous run cached as one entry may come from any descriptor of
	 * the run, and hardware records access and dirty state only in the one
	 * it walked: the run is writable when any of its descriptors is dirty
	 * (what contpte_ptep_get gathers).
	 */
	if (w.level == PTE_LEVEL && (now & DESC_CONT) && (now & DESC_AP2)) {
		const pte_t *first = w.leaf - ((e->va >> m->geo.page_shift) & (m->geo.cont_ptes - 1));

		for (unsigned int i = 0; i < m->geo.cont_ptes; i++)
			if (first[i] & DESC_VALID && !(first[i] & DESC_AP2))
				now &= ~DESC_AP2;
	}
	return (!(e->desc & DESC_AP2) && (now & DESC_AP2)) ||
	       (!(e->desc & DESC_UXN) && (now & DESC_UXN)) ||
	       (!(e->desc & DESC_PXN) && (now & DESC_PXN)) ||
	       ((e->desc & DESC_AP1) && !(now & DESC_AP1));
}

static void check_entry(struct ptsim_machine *m, struct tlb_array *a, struct tlb_entry *e)
{
	(void)a;
	if (grants_more(m, e))
		diag_report(m, PTSIM_DIAG_INVARIANT, e->va, e->level, e->desc, 0,
			    "TLB entry survived a completed TLBI");
}

/*
 * At a DSB completing TLB maintenance, no cached entry for a VA an issued TLBI
 * covered may still grant more than the tables allow.
 */
void tlb_dsb(struct ptsim_machine *m, bool local_only)
{
	struct tlb_model *t = m->tlb;
	unsigned int kept = 0;

	for (unsigned int r = 0; r < t->nr_pending; r++) {
		const struct tlbi_range *p = &t->pending[r];

		/* another CPU's TLBI, or a broadcast one a DSB NSH does not wait for: still pending */
		if (p->cpu != m->exec_cpu || (local_only && !p->local)) {
			t->pending[kept++] = *p;
			continue;
		}
		/* nothing filled since the TLBI dropped every entry of its range: none to check */
		if (p->inserts == t->inserts)
			continue;
		for (unsigned int c = 0; c < t->nr_cpus; c++) {
			if (p->local && c != p->cpu)
				continue;
			for (int i = 0; i < 3; i++)
				for_each_in_range(m, &t->cpu[c].arr[i], p->start, p->end, p->any_asid,
						  p->asid, check_entry);
		}
	}
	t->nr_pending = kept;
}

unsigned int tlb_lookup_all(const struct ptsim_machine *m, const struct hw_as *as,
			    unsigned int cpu, uint64_t va, struct tlb_match *out, unsigned int max)
{
	uint64_t key = tlb_key(m, va);
	unsigned int n = 0;

	for (int i = 0; i < 3; i++) {
		const struct tlb_array *a = &m->tlb->cpu[cpu].arr[i];

		for (size_t k = 0; k < (size_t)a->sets * a->ways; k++) {
			const struct tlb_entry *e = &a->e[k];

			if (!entry_matches(e, key, as->asid))
				continue;
			if (n < max)
				out[n] = (struct tlb_match){
					.which = (enum ptsim_tlb_level)i,
					.pa = e->pa + (key - e->va),
					.size = UINT64_C(1) << e->shift,
					.desc = e->desc,
					.level = e->level,
					.global = e->global,
					.asid = e->asid,
				};
			n++;
		}
	}
	return n;
}

uint64_t tlb_check_user_entries(struct ptsim_machine *m)
{
	struct tlb_model *t = m->tlb;
	uint64_t n = 0;

	for (unsigned int c = 0; c < t->nr_cpus; c++)
		for (int i = 0; i < 3; i++) {
			const struct tlb_array *a = &t->cpu[c].arr[i];

			for (size_t k = 0; k < (size_t)a->sets * a->ways; k++)
				n += a->e[k].valid && !a->e[k].global && grants_more(m, &a->e[k]);
		}
	return n;
}
