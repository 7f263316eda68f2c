// SPDX-License-Identifier: MIT
/*
 * The break-before-make checker (Arm ARM D8.17; doc/tlb-and-bbm.md).
 * Every software descriptor store is classified. A live valid entry may be
 * changed in place only when the change is permission-only (or allowed by the
 * CPU's BBM level: size and contiguous-bit changes); otherwise the old entry
 * must have been written invalid and a TLBI covering it completed by a DSB
 * before the new valid entry is written (RDDMVT). Entries written invalid are
 * tracked per (ASID, level, VA) until that happens.
 *
 * Which CPU does what matters (m->exec_cpu: 0 on the kernel paths, the
 * caller's CPU in the raw API): a break is visible to table walks only once
 * a DSB of the CPU that wrote it has run, and a TLBI issued before that does
 * not cover it (RDDMVT's step 2); a TLBI completes only at a DSB of the CPU
 * that issued it; a TLBI without the IS suffix reaches only its own CPU's
 * TLBs, so on a machine of several CPUs it completes no break.
 */
#include "hw.h"

#include <stdlib.h>
#include <string.h>

#define KEY_VA_BITS	40
#define KEY_ASID_SHIFT	40
#define KEY_LEVEL_SHIFT	56
#define TLBI_SEEN	DESC_VALID	/* bit 0 of a stored (valid) old descriptor */

static uint64_t key_of(const struct ptsim_machine *m, unsigned int asid, int level, uint64_t va)
{
	uint64_t page = (va & ((UINT64_C(1) << m->geo.va_bits) - 1)) >> m->geo.page_shift;

	return (page & ((UINT64_C(1) << KEY_VA_BITS) - 1)) |
	       ((uint64_t)(asid & 0xffff) << KEY_ASID_SHIFT) | ((uint64_t)level_slot(level) << KEY_LEVEL_SHIFT);
}

/* What key_of packed: the level, the ASID (0: global) and the entry's VA. */
static inline int key_level(uint64_t key)
{
	return (int)(key >> KEY_LEVEL_SHIFT) - 1;
}

static inline unsigned int key_asid(uint64_t key)
{
	return (unsigned int)((key >> KEY_ASID_SHIFT) & 0xffff);
}

static inline uint64_t key_va(const struct ptsim_machine *m, uint64_t key)
{
	return (key & ((UINT64_C(1) << KEY_VA_BITS) - 1)) << m->geo.page_shift;
}

/* Global (kernel) entries are tracked under ASID 0, which user mms never get. */
static unsigned int tag_of(const struct hw_as *as, pte_t desc, int level)
{
	bool global = level == PTE_LEVEL || desc_is_block(desc) ? !(desc & DESC_NG) : as->ttbr1;

	return global ? 0 : as->asid;
}

static bool is_table(int level, pte_t d)
{
	return level < PTE_LEVEL && desc_is_table(d);
}

/*
 * IWZCBG: when hardware access-flag management is off, a leaf with AF=0 is
 * never cached in a TLB (the walk faults instead), so neither a change of it
 * in place nor its break has anything in a TLB to be made safe against.
 */
static inline bool never_cached(const struct ptsim_machine *m, int level, pte_t d)
{
	return !(d & DESC_AF) && !m->cpu->hafdbs && !is_table(level, d);
}

/* Read-only at EL0 and EL1, and DBM clear so the hardware cannot make it writable. */
static inline bool desc_read_only(pte_t d)
{
	return (d & DESC_AP2) && !(d & DESC_DBM);
}

/*
 * Why a valid -> valid change needs break-before-make on this CPU, or NULL
 * when it may be written in place (RPVTFW; RKHRBC and RNGLXZ for the
 * contiguous bit and block size per BBM level; RWHZWS for an output
 * address change between read-only pages of the same contents).
 */
const char *bbm_needs_break(const struct ptsim_machine *m, int level, pte_t o, pte_t n)
{
	const struct ptsim_geometry *g = &m->geo;
	pte_t attr = DESC_ATTRINDX_MASK | DESC_SH_MASK;
	bool tagged_swap = ((o ^ n) & DESC_ATTRINDX_MASK) ==
			   (DESC_ATTRINDX(MAIR_IDX_NORMAL) ^ DESC_ATTRINDX(MAIR_IDX_NORMAL_TAGGED)) &&
			   ((o & DESC_ATTRINDX_MASK) == DESC_ATTRINDX(MAIR_IDX_NORMAL) ||
			    (o & DESC_ATTRINDX_MASK) == DESC_ATTRINDX(MAIR_IDX_NORMAL_TAGGED));

	if (is_table(level, o) != is_table(level, n))
		return m->cpu->bbm_level >= 2 ? NULL : "block size change without BBML2";
	if (is_table(level, o))
		return desc_oa_pfn(o, g->page_shift) != desc_oa_pfn(n, g->page_shift) ? "table address change" : NULL;
	/*
	 * RWHZWS: between two read-only locations holding the same bytes the
	 * output address may change in place (the raw API's caller says so;
	 * DBM would let the hardware make either writable).
	 */
	if (desc_oa_pfn(o, g->page_shift) != desc_oa_pfn(n, g->page_shift) &&
	    !(m->bbm.same_contents && desc_read_only(o) && desc_read_only(n)))
		return "output address change";
	if (((o ^ n) & attr) && !tagged_swap)
		return "memory attribute change";
	if ((o & DESC_NG) && !(n & DESC_NG))
		return "nG to G change";
	if ((o ^ n) & DESC_CONT)
		return m->cpu->bbm_level >= 1 ? NULL : "contiguous bit change without BBML1";
	return NULL;	/* permissions, AF, dirty, software bits: in place */
}

static void violation(struct ptsim_machine *m, uint64_t va, int level, pte_t o, pte_t n,
		      const char *why)
{
	diag_report(m, PTSIM_DIAG_BBM_VIOLATION, va, level, o, n,
		    "break-before-make violation: %s (BBM level %u%s)", why, m->cpu->bbm_level,
		    m->cpu->bbml2_noabort ? ", BBML2-noabort" : "");
}

/* A size or contiguous-bit change: what BBM levels 1 and 2 relax. */
static bool size_or_cont_change(int level, pte_t o, pte_t n)
{
	return is_table(level, o) != is_table(level, n) || ((o ^ n) & DESC_CONT);
}

/*
 * A valid entry o the TLB may hold, replaced by n without a completed break:
 * a violation where the architecture needs the break; where it does not, but
 * the CPU is not BBML2-noabort (Linux's criterion everywhere,
 * system_supports_bbml2_noabort()), a TLB conflict abort is still possible.
 */
static void check_live_change(struct ptsim_machine *m, uint64_t va, int level, pte_t o, pte_t n)
{
	const char *why;

	if (never_cached(m, level, o))
		return;	/* no TLB holds o: any change is safe */
	why = bbm_needs_break(m, level, o, n);
	if (why)
		violation(m, va, level, o, n, why);
	else if (!m->cpu->bbml2_noabort && size_or_cont_change(level, o, n))
		diag_report(m, PTSIM_DIAG_BBM_CONFLICT_RISK, va, level, o, n,
			    "%s change without break-before-make: allowed at BBM level %u, but not "
			    "BBML2-noabort, so a TLB conflict abort is possible",
			    (o ^ n) & DESC_CONT ? "contiguous-bit" : "block-size", m->cpu->bbm_level);
}

static inline void check_live_write(struct ptsim_machine *m, uint64_t va, int level, pte_t o,
				    pte_t n)
{
	/* permissions, AF, dirty and software bits: in place at every level (the common case) */
	if ((o ^ n) & ~BBM_IN_PLACE_BITS)
		check_live_change(m, va, level, o, n);
}

static void forget(struct bbm_state *b, uint64_t key)
{
	if (u64map_del(&b->broken, key))
		b->per_level[key >> KEY_LEVEL_SHIFT]--;
}

/*
 * Remember key for the completing DSB of the CPU whose TLBI covered it;
 * false when there is no room (a later TLBI retries).
 */
static bool push_pending(struct bbm_state *b, unsigned int cpu, uint64_t key)
{
	struct bbm_cpu *c = &b->cpus[cpu];

	if (c->nr_pending == c->cap_pending) {
		size_t cap = c->cap_pending ? c->cap_pending * 2 : 64;
		uint64_t *n = realloc(c->pending, cap * sizeof(*n));

		if (!n)
			return false;
		if (b->host_bytes)
			*b->host_bytes += (cap - c->cap_pending) * sizeof(*n);	/* bookkeeping */
		c->pending = n;
		c->cap_pending = cap;
	}
	c->pending[c->nr_pending++] = key;
	return true;
}

/*
 * nr breaks from key (consecutive keys), written by m->exec_cpu, are not
 * visible to table walks until a DSB of that CPU. No room to remember them:
 * they are taken as visible (the checker is then as lenient as before W3).
 * note_unseen below is the entry point; this records a new range.
 */
__attribute__((noinline)) static void note_unseen_range(struct ptsim_machine *m,
							  struct bbm_cpu *c, uint64_t key,
							  unsigned int nr)
{
	if (c->nr_unseen == c->cap_unseen) {
		size_t cap = c->cap_unseen ? c->cap_unseen * 2 : 16;
		uint64_t *k = realloc(c->unseen_key, cap * sizeof(*k));

		if (!k)
			return;
		c->unseen_key = k;
		uint32_t *n = realloc(c->unseen_nr, cap * sizeof(*n));

		if (!n)
			return;
		c->unseen_nr = n;
		if (m->bbm.host_bytes)
			*m->bbm.host_bytes += (cap - c->cap_unseen) * (sizeof(*k) + sizeof(*n));
		c->cap_unseen = cap;
	}
	c->unseen_key[c->nr_unseen] = key;
	c->unseen_nr[c->nr_unseen++] = nr;
}

/* The common case, a break next to the last one, extends its range in line; a new range is recorded out of line. */
static inline void note_unseen(struct ptsim_machine *m, uint64_t key, unsigned int nr)
{
	struct bbm_cpu *c = &m->bbm.cpus[m->exec_cpu];

	if (c->nr_unseen && c->unseen_key[c->nr_unseen - 1] + c->unseen_nr[c->nr_unseen - 1] == key) {
		c->unseen_nr[c->nr_unseen - 1] += nr;
		return;
	}
	note_unseen_range(m, c, key, nr);
}

/* The run's first entry at or after i, or run_n when none is left. */
static unsigned int run_next(const struct bbm_state *b, unsigned int i)
{
	while (i < b->run_n) {
		uint64_t bits = b->run_present[i / 64] >> (i % 64);

		if (bits)
			return i + (unsigned int)__builtin_ctzll(bits);
		i = (i / 64 + 1) * 64;
	}
	return b->run_n;
}

/* Entry i leaves the run; an empty run starts afresh. */
static void run_remove(struct bbm_state *b, unsigned int i)
{
	b->run_present[i / 64] &= ~(UINT64_C(1) << (i % 64));
	if (!--b->run_count)
		b->run_n = 0;
}

/*
 * Move the run of recent breaks into the map (when a break elsewhere comes).
 * Rare, and kept out of line so the write check stays a small function.
 */
__attribute__((noinline)) static void spill_run_entries(struct bbm_state *b)
{
	for (unsigned int i = run_next(b, 0); i < b->run_n; i = run_next(b, i + 1)) {
		uint64_t key = b->run_key0 + i, val = b->run_val[i];
		bool known;

		/* only CPU 0's broadcast TLBIs mark the run (bbm_tlbi spills it for others) */
		if (u64map_set(&b->broken, key, (val & TLBI_SEEN) && !push_pending(b, 0, key) ?
			       val & ~TLBI_SEEN : val, &known))
			continue;
		if (!known)
			b->per_level[key >> KEY_LEVEL_SHIFT]++;
	}
	memset(b->run_present, 0, sizeof(b->run_present));
	b->run_count = 0;
	b->run_n = 0;
}

static inline void spill_run(struct bbm_state *b)
{
	if (b->run_count)
		spill_run_entries(b);
	else
		b->run_n = 0;	/* nothing to move, and no bit set */
}

void bbm_spill_run(struct ptsim_machine *m)
{
	spill_run(&m->bbm);
}

bool bbm_level_untracked(const struct ptsim_machine *m, int level)
{
	const struct bbm_state *b = &m->bbm;

	return !b->per_level[level_slot(level)] &&
	       (!b->run_count || key_level(b->run_key0) != level);
}

static bool run_has(const struct bbm_state *b, uint64_t i)
{
	return i < b->run_n && (b->run_present[i / 64] >> (i % 64)) & 1;
}

/* A break joins the run when it is the run's next entry (or one of its own, again). */
static void run_add(struct bbm_state *b, uint64_t key, uint64_t val)
{
	if (!b->run_n || key - b->run_key0 >= BBM_RUN ||
	    (key - b->run_key0 > b->run_n && key != b->run_key0 + b->run_n)) {
		spill_run(b);
		b->run_key0 = key;
	}
	uint64_t i = key - b->run_key0;

	if (i >= b->run_n)
		b->run_n = (unsigned int)i + 1;
	b->run_val[i] = val;
	if (!run_has(b, i)) {
		b->run_present[i / 64] |= UINT64_C(1) << (i % 64);
		b->run_count++;
	}
}

/* The key the entry desc at va and level is tracked under. */
static uint64_t desc_key(const struct ptsim_machine *m, const struct hw_as *as, uint64_t va,
			 int level, pte_t desc)
{
	return key_of(m, tag_of(as, desc, level), level,
		      ALIGN_DOWN64(va, pt_level_size(&m->geo, level)));
}

/* A valid entry o made invalid: the break. Remember what was live until a TLBI for it completes. */
static void check_break(struct ptsim_machine *m, const struct hw_as *as, uint64_t va, int level,
			pte_t o)
{
	uint64_t key = desc_key(m, as, va, level, o);

	if (never_cached(m, level, o))
		return;	/* IWZCBG: nothing in any TLB to wait for */
	run_add(&m->bbm, key, o & ~TLBI_SEEN);
	note_unseen(m, key, 1);
}

/* The break tracked under key, if any, taken out of the run or the map into *prev. */
static bool take_break(struct bbm_state *b, uint64_t key, int level, uint64_t *prev)
{
	uint64_t i = key - b->run_key0, older;

	if (run_has(b, i)) {
		*prev = b->run_val[i];
		run_remove(b, (unsigned int)i);
		if (b->broken.len && u64map_take(&b->broken, key, &older))
			b->per_level[level_slot(level)]--;
		return true;
	}
	if (b->broken.len && u64map_take(&b->broken, key, prev)) {
		b->per_level[level_slot(level)]--;
		return true;
	}
	return false;
}

/*
 * An invalid entry made valid (n): if it was broken and no TLBI has
 * completed for it, the TLBs may still hold the old value, and n must be
 * compatible with it. The old entry is looked for under both tags, n's and
 * the other nG value's: a break of a global entry refilled non-global (or
 * the reverse) still has the old entry in the TLBs.
 */
static void check_refill(struct ptsim_machine *m, const struct hw_as *as, uint64_t va, int level,
			 pte_t n)
{
	struct bbm_state *b = &m->bbm;
	uint64_t key = desc_key(m, as, va, level, n);
	/* the same key under the other nG value's tag (key_of's ASID field replaced) */
	uint64_t other = (key & ~(UINT64_C(0xffff) << KEY_ASID_SHIFT)) |
			 ((uint64_t)(tag_of(as, n ^ DESC_NG, level) & 0xffff) << KEY_ASID_SHIFT);
	uint64_t prev;

	if (take_break(b, key, level, &prev))
		check_live_write(m, va, level, prev | DESC_VALID, n);
	if (other != key && take_break(b, other, level, &prev))
		check_live_write(m, va, level, prev | DESC_VALID, n);
}

static inline void check_write(struct ptsim_machine *m, const struct hw_as *as, uint64_t va,
			       int level, pte_t o, pte_t n)
{
	if (desc_valid(o) && desc_valid(n))
		check_live_write(m, va, level, o, n);
	else if (desc_valid(o))
		check_break(m, as, va, level, o);
	else if (desc_valid(n) && (m->bbm.broken.len || m->bbm.run_count))
		check_refill(m, as, va, level, n);
}

void bbm_check_write(struct ptsim_machine *m, const struct hw_as *as, uint64_t va, int level,
		     pte_t o, pte_t n)
{
	check_write(m, as, va, level, o, n);
}

/*
 * Where the run would put a break of key: its index, after spilling the run
 * when key does not continue it (what run_add does for the first break of a
 * batch). -1, with nothing changed, when nr breaks from key would not all fit.
 */
static int run_place(struct bbm_state *b, uint64_t key, unsigned int nr)
{
	bool continues = b->run_n && key - b->run_key0 < BBM_RUN && key - b->run_key0 <= b->run_n;
	uint64_t i = continues ? key - b->run_key0 : 0;

	if (i + nr > BBM_RUN)
		return -1;
	if (!continues) {
		spill_run(b);
		b->run_key0 = key;
	}
	return (int)i;
}

/*
 * nr valid level-3 entries from ptep, all tracked under one tag (so their
 * keys are consecutive), and each one a TLB may hold (not never_cached).
 */
static bool ptes_valid_one_tag(const struct ptsim_machine *m, const pte_t *ptep, unsigned int nr)
{
	for (unsigned int i = 0; i < nr; i++)
		if (!desc_valid(ptep[i]) || ((ptep[i] ^ ptep[0]) & DESC_NG) ||
		    never_cached(m, 3, ptep[i]))
			return false;
	return true;
}

/* Entries lo to hi - 1 join the run (their values already stored). */
static void run_add_range(struct bbm_state *b, unsigned int lo, unsigned int hi)
{
	for (unsigned int w = lo / 64; w <= (hi - 1) / 64; w++) {
		uint64_t bits = UINT64_MAX;

		if (w == lo / 64)
			bits &= UINT64_MAX << (lo % 64);
		if (w == (hi - 1) / 64)
			bits &= UINT64_MAX >> (63 - (hi - 1) % 64);
		/* usually none of them is in the run yet: no bits to count one by one */
		if (b->run_present[w] & bits)
			b->run_count += (unsigned int)__builtin_popcountll(bits & ~b->run_present[w]);
		else
			b->run_count += (unsigned int)(MIN(hi, w * 64 + 64) - MAX(lo, w * 64));
		b->run_present[w] |= bits;
	}
	b->run_n = MAX(b->run_n, hi);
}

void bbm_check_clear_ptes(struct ptsim_machine *m, const struct hw_as *as, uint64_t va,
			  const pte_t *ptep, unsigned int nr)
{
	struct bbm_state *b = &m->bbm;
	int at;

	if (nr == 1) {	/* one entry: the single check costs less */
		check_write(m, as, va, 3, ptep[0], 0);
		return;
	}
	/* the common case: nr breaks joining the run together, as nr run_add calls would */
	if (nr && ptes_valid_one_tag(m, ptep, nr) &&
	    (at = run_place(b, desc_key(m, as, va, 3, ptep[0]), nr)) >= 0) {
		for (unsigned int i = 0; i < nr; i++)
			b->run_val[(unsigned int)at + i] = ptep[i] & ~TLBI_SEEN;
		run_add_range(b, (unsigned int)at, (unsigned int)at + nr);
		note_unseen(m, b->run_key0 + (unsigned int)at, nr);
		return;
	}
	for (unsigned int i = 0; i < nr; i++, va += m->geo.page_size)
		check_write(m, as, va, 3, ptep[i], 0);
}

void bbm_check_set_ptes(struct ptsim_machine *m, const struct hw_as *as, uint64_t va,
			const pte_t *ptep, pte_t pte, unsigned int nr)
{
	const pte_t addr_mask = DESC_OA_MASK(m->geo.page_shift);
	const uint64_t page_size = m->geo.page_size;
	struct bbm_state *b = &m->bbm;
	unsigned int i;

	if (nr == 1) {	/* one entry: the single check costs less */
		check_write(m, as, va, 3, ptep[0], pte);
		return;
	}
	for (i = 0; i < nr && !desc_valid(ptep[i]); i++)
		;
	/*
	 * Every entry invalid, no break tracked outside the run, the run under
	 * pte's own tag: refills, each checked against the run's old value and
	 * leaving it, as check_refill.
	 */
	if (i == nr && !b->broken.len &&
	    (!b->run_count || !desc_valid(pte) || tag_of(as, pte, 3) == key_asid(b->run_key0))) {
		uint64_t first;

		if (!desc_valid(pte) || !b->run_count)
			return;
		first = desc_key(m, as, va, 3, pte) - b->run_key0;
		for (i = 0; i < nr; i++, pte = desc_advance_oa(pte, addr_mask, page_size)) {
			uint64_t k = first + i;
			pte_t prev;

			if (!run_has(b, k))
				continue;
			prev = b->run_val[k];
			run_remove(b, (unsigned int)k);
			check_live_write(m, va + i * page_size, 3, prev | DESC_VALID, pte);
		}
		return;
	}
	for (i = 0; i < nr; i++, va += page_size, pte = desc_advance_oa(pte, addr_mask, page_size))
		check_write(m, as, va, 3, ptep[i], pte);
}

/*
 * Entries a TLBI of cpu covers get TLBI_SEEN; that CPU's completing DSB
 * forgets them. One another CPU's TLBI already covered is remembered for
 * this CPU's DSB too.
 */
static void mark(struct bbm_state *b, unsigned int cpu, uint64_t key, uint64_t val)
{
	if (val & TLBI_SEEN) {
		if (cpu)
			push_pending(b, cpu, key);
		return;
	}
	/* no room to remember it: it stays tracked, and a later TLBI marks it again */
	if (!u64map_put(&b->broken, key, val | TLBI_SEEN) && !push_pending(b, cpu, key))
		u64map_put(&b->broken, key, val);
}

struct tlbi_scope {
	uint64_t start, end;	/* VA bits the keys hold */
	bool any_asid;
	bool non_global_only;	/* TLBI ASIDE1(IS): that ASID's non-global entries only */
	unsigned int asid;
	bool last_level;
	int ttl_level;		/* a TTL hint: only entries of that level; 0: none */
};

/*
 * Does the TLBI reach entries tracked under asid (0: global ones)? By VA
 * it reaches the global entries too; by ASID only that ASID's non-global
 * ones (Arm ARM IDMCXY).
 */
static inline bool scope_reaches_asid(const struct tlbi_scope *sc, unsigned int asid)
{
	return sc->any_asid || (asid ? asid == sc->asid : !sc->non_global_only);
}

static inline bool covers(const struct ptsim_machine *m, const struct tlbi_scope *sc, uint64_t key,
			  uint64_t val)
{
	int level = key_level(key);
	uint64_t va = key_va(m, key);

	/* last-level TLBIs leave walk caches alone: not enough for a table entry */
	if (sc->last_level && is_table(level, val | DESC_VALID))
		return false;
	/* with a TTL hint, entries of another level may survive (the hint was wrong) */
	if (sc->ttl_level && sc->ttl_level != level)
		return false;
	return scope_reaches_asid(sc, key_asid(key)) &&
	       va < sc->end && sc->start < va + pt_level_size(&m->geo, level);
}

/*
 * The run's entries sc covers get TLBI_SEEN. A run of level-3 entries (one
 * ASID, one page each) is covered as one range of indices.
 */
static void run_tlbi(const struct ptsim_machine *m, struct bbm_state *b,
		     const struct tlbi_scope *sc)
{
	unsigned int shift = m->geo.page_shift, i;
	uint64_t va0, lo, hi;

	if (!b->run_count)
		return;
	if (key_level(b->run_key0) != 3) {
		for (i = run_next(b, 0); i < b->run_n; i = run_next(b, i + 1))
			if (covers(m, sc, b->run_key0 + i, b->run_val[i]))
				b->run_val[i] |= TLBI_SEEN;
		return;
	}
	if (!scope_reaches_asid(sc, key_asid(b->run_key0)) || (sc->ttl_level && sc->ttl_level != 3))
		return;
	va0 = key_va(m, b->run_key0);
	/* entry i is the page at va0 + (i << shift): covered from the one holding start to end */
	lo = sc->start <= va0 ? 0 : (sc->start - va0) >> shift;
	hi = sc->end <= va0 ? 0 : ((sc->end - va0) >> shift) + !!((sc->end - va0) & (m->geo.page_size - 1));
	hi = MIN(hi, (uint64_t)b->run_n);
	for (i = lo < hi ? run_next(b, (unsigned int)lo) : b->run_n; i < hi; i = run_next(b, i + 1))
		b->run_val[i] |= TLBI_SEEN;
}

/*
 * Breaks a TLBI has just marked but that no DSB of their writer had made
 * visible to walks when it ran: a walk may still refill the old entry
 * after the TLBI, which therefore did not cover them (RDDMVT step 2). Such
 * a break was written after its writer's last DSB, so no earlier TLBI
 * covered it either.
 */
static void unmark_unseen(struct ptsim_machine *m)
{
	struct bbm_state *b = &m->bbm;

	for (unsigned int c = 0; c < b->nr_cpus; c++) {
		const struct bbm_cpu *bc = &b->cpus[c];

		for (size_t r = 0; r < bc->nr_unseen; r++) {
			for (uint32_t k = 0; k < bc->unseen_nr[r]; k++) {
				uint64_t key = bc->unseen_key[r] + k, val;

				if (run_has(b, key - b->run_key0))
					b->run_val[key - b->run_key0] &= ~TLBI_SEEN;
				else if (b->broken.len && u64map_get(&b->broken, key, &val) &&
					 (val & TLBI_SEEN))
					u64map_put(&b->broken, key, val & ~TLBI_SEEN);
			}
		}
	}
}

static bool any_unseen(const struct bbm_state *b)
{
	for (unsigned int c = 0; c < b->nr_cpus; c++)
		if (b->cpus[c].nr_unseen)
			return true;
	return false;
}

static void tlbi_mark(struct ptsim_machine *m, const struct tlbi_op *op);

void bbm_tlbi(struct ptsim_machine *m, const struct tlbi_op *op)
{
	/* a local TLBI leaves the other CPUs' TLBs as they were: no break completes */
	if (op->local && m->cfg.nr_cpus > 1)
		return;
	/* the run's marks are CPU 0's: another CPU's TLBI marks in the map */
	if (op->cpu)
		spill_run(&m->bbm);
	tlbi_mark(m, op);
	if (any_unseen(&m->bbm))
		unmark_unseen(m);
}

static void tlbi_mark(struct ptsim_machine *m, const struct tlbi_op *op)
{
	struct bbm_state *b = &m->bbm;
	uint64_t mask = (UINT64_C(1) << m->geo.va_bits) - 1;
	struct tlbi_scope sc = {
		.start = op->va & mask,
		.asid = op->asid,
		.any_asid = op->kind == TLBI_KIND_VAA || op->kind == TLBI_KIND_RANGE_VAA ||
			    op->kind == TLBI_KIND_ALL,
		.non_global_only = op->kind == TLBI_KIND_ASID,
		.last_level = op->last_level,
		.ttl_level = op->ttl_level,
	};

	sc.end = sc.start + (op->pages << m->geo.page_shift);
	if (op->kind == TLBI_KIND_ALL || op->kind == TLBI_KIND_ASID) {
		sc.start = 0;
		sc.end = UINT64_MAX;
		sc.last_level = false;
	}
	run_tlbi(m, b, &sc);	/* the run's entries are marked in place, the map's below */
	if (!b->broken.len)
		return;
	if (op->kind != TLBI_KIND_ALL && op->kind != TLBI_KIND_ASID && op->pages <= 64 &&
	    b->broken.len > 64) {
		/* few pages, many tracked entries: look the candidates up */
		for (uint64_t va = sc.start; va < sc.end; va += m->geo.page_size) {
			for (int l = m->geo.start_level; l <= 3; l++) {
				const unsigned int tags[2] = { op->asid, 0 };

				if (!b->per_level[level_slot(l)])
					continue;
				for (int t = 0; t < 2; t++) {
					uint64_t key = key_of(m, tags[t], l,
							      ALIGN_DOWN64(va, pt_level_size(&m->geo, l))), val;

					if (u64map_get(&b->broken, key, &val) && covers(m, &sc, key, val))
						mark(b, op->cpu, key, val);
				}
			}
		}
		return;
	}
	for (size_t i = 0; i < b->broken.cap; i++) {
		uint64_t key = b->broken.keys[i] - 1, val = b->broken.vals[i];

		if (b->broken.keys[i] && covers(m, &sc, key, val))
			mark(b, op->cpu, key, val);
	}
}

void bbm_dsb_store(struct ptsim_machine *m)
{
	m->bbm.cpus[m->exec_cpu].nr_unseen = 0;
}

void bbm_dsb(struct ptsim_machine *m)
{
	struct bbm_state *b = &m->bbm;
	struct bbm_cpu *c = &b->cpus[m->exec_cpu];

	c->nr_unseen = 0;
	/* the run's entries a TLBI of CPU 0 covered are gone from every TLB now */
	unsigned int words = b->run_count && !m->exec_cpu ? (b->run_n + 63) / 64 : 0, dropped = 0;

	for (unsigned int w = 0; w < words; w++) {
		uint64_t seen = 0;

		for (uint64_t bits = b->run_present[w]; bits; bits &= bits - 1) {
			unsigned int bit = (unsigned int)__builtin_ctzll(bits);
			bool covered = b->run_val[w * 64 + bit] & TLBI_SEEN;

			seen |= (uint64_t)covered << bit;
			dropped += covered;
		}
		b->run_present[w] &= ~seen;
	}
	b->run_count -= dropped;
	if (!b->run_count)
		b->run_n = 0;
	for (size_t i = 0; i < c->nr_pending; i++) {
		uint64_t val;

		if (u64map_get(&b->broken, c->pending[i], &val) && (val & TLBI_SEEN))
			forget(b, c->pending[i]);
	}
	c->nr_pending = 0;
}

int bbm_init(struct bbm_state *b, unsigned int nr_cpus)
{
	u64map_init(&b->broken);
	b->cpus = calloc(nr_cpus, sizeof(*b->cpus));
	if (!b->cpus)
		return -ENOMEM;
	b->nr_cpus = nr_cpus;
	return 0;
}

static int copy_keys(uint64_t **dst, const uint64_t *src, size_t n)
{
	*dst = NULL;
	if (!n)
		return 0;
	*dst = malloc(n * sizeof(**dst));
	if (!*dst)
		return -ENOMEM;
	memcpy(*dst, src, n * sizeof(**dst));
	return 0;
}

int bbm_copy(struct bbm_state *dst, const struct bbm_state *src)
{
	*dst = *src;
	u64map_init(&dst->broken);
	dst->cpus = calloc(src->nr_cpus, sizeof(*dst->cpus));
	if (!dst->cpus) {
		dst->nr_cpus = 0;
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < src->nr_cpus; i++) {
		const struct bbm_cpu *s = &src->cpus[i];
		struct bbm_cpu *d = &dst->cpus[i];

		if (copy_keys(&d->pending, s->pending, s->nr_pending) ||
		    copy_keys(&d->unseen_key, s->unseen_key, s->nr_unseen))
			return -ENOMEM;
		d->nr_pending = d->cap_pending = s->nr_pending;
		if (s->nr_unseen) {
			d->unseen_nr = malloc(s->nr_unseen * sizeof(*d->unseen_nr));
			if (!d->unseen_nr)
				return -ENOMEM;
			memcpy(d->unseen_nr, s->unseen_nr, s->nr_unseen * sizeof(*d->unseen_nr));
		}
		d->nr_unseen = d->cap_unseen = s->nr_unseen;
	}
	return u64map_copy(&dst->broken, &src->broken);
}

uint64_t bbm_host_bytes(const struct bbm_state *b)
{
	uint64_t bytes = u64map_host_bytes(&b->broken) + b->nr_cpus * sizeof(*b->cpus);

	for (unsigned int i = 0; b->cpus && i < b->nr_cpus; i++)
		bytes += b->cpus[i].cap_pending * sizeof(uint64_t) +
			 b->cpus[i].cap_unseen * (sizeof(uint64_t) + sizeof(uint32_t));
	return bytes;
}

void bbm_free(struct bbm_state *b)
{
	u64map_free(&b->broken);
	for (unsigned int i = 0; b->cpus && i < b->nr_cpus; i++) {
		free(b->cpus[i].pending);
		free(b->cpus[i].unseen_key);
		free(b->cpus[i].unseen_nr);
	}
	free(b->cpus);
	b->cpus = NULL;
	b->nr_cpus = 0;
}
