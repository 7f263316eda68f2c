// SPDX-License-Identifier: MIT
/*
 * Break-before-make checker: expected-violation tests (hand-written descriptor
 * sequences that break the rules must be reported; the same with the BBM
 * dance must not), and silence on the kernel's own sequences.
 */
#include "helpers.h"
#include "hw.h"
#include "prng.h"

#include <string.h>

#define VA SZ_1G

static unsigned int violations, conflict_risks;

static void count_violations(const struct ptsim_diag *d, void *arg)
{
	(void)arg;
	violations += d->kind == PTSIM_DIAG_BBM_VIOLATION;
	conflict_risks += d->kind == PTSIM_DIAG_BBM_CONFLICT_RISK;
}

struct fx {
	struct ptsim_machine *m;
	struct ptsim_mm *mm;
};

static struct fx setup(enum ptsim_cpu cpu, unsigned int order)
{
	struct fx f;

	f.m = new_machine(PTSIM_GRANULE_4K, 48, cpu, NULL);
	f.mm = new_mm_with_vma(f.m, VA, SZ_2M);
	assert_int_equal(ptsim_populate(f.mm, VA, SZ_2M, order, true), 0);
	ptsim_set_diag_handler(f.m, count_violations, NULL);
	violations = 0;
	conflict_risks = 0;
	return f;
}

static pte_t *slot(struct fx *f, int level)
{
	int err;
	struct pt_table *t = pt_walk_table(f->mm, VA, level, false, &err);

	assert_non_null(t);
	return &t->desc[pt_index(&f->m->geo, level, VA)];
}

/* The RDDMVT sequence around a change: invalid, DSB, TLBI, DSB, new. */
static void bbm_write(struct fx *f, int level, pte_t *p, pte_t val, bool with_break)
{
	if (with_break) {
		set_desc(f->mm, VA, level, p, 0);
		__flush_tlb_range(f->mm, VA, VA + SZ_4K, SZ_4K, level == PTE_LEVEL, level);
	}
	set_desc(f->mm, VA, level, p, val);
}

static void test_oa_change_every_level(void **state)
{
	(void)state;
	for (int with_break = 0; with_break < 2; with_break++) {
		/* level 3 */
		struct fx f = setup(PTSIM_CPU_NEOVERSE_V3, 0);
		pte_t *p = slot(&f, 3);

		bbm_write(&f, 3, p, pte_advance_pfn(&f.m->geo, *p, 1000), with_break);
		assert_int_equal(violations, with_break ? 0 : 1);
		ptsim_machine_destroy(f.m);
		/* level 2 (a block) */
		f = setup(PTSIM_CPU_NEOVERSE_V3, 9);
		p = slot(&f, 2);
		bbm_write(&f, 2, p, *p + SZ_2M * 4, with_break);
		assert_int_equal(violations, with_break ? 0 : 1);
		ptsim_machine_destroy(f.m);
		/* level 1 (a table pointer moved): even BBML2 does not allow it in place */
		f = setup(PTSIM_CPU_NEOVERSE_V3, 9);
		p = slot(&f, 1);
		bbm_write(&f, 1, p, *p + SZ_4K * 8, with_break);
		assert_int_equal(violations, with_break ? 0 : 1);
		*p -= SZ_4K * 8;	/* restore the real pointer before teardown */
		ptsim_machine_destroy(f.m);
	}
}

static void test_table_needs_walk_cache_tlbi(void **state)
{
	struct fx f = setup(PTSIM_CPU_NEOVERSE_V3, 9);
	pte_t *p = slot(&f, 1), old = *p;

	(void)state;
	/* a last-level TLBI leaves walk caches alone: no break for a table entry */
	set_desc(f.mm, VA, PUD_LEVEL, p, 0);
	__flush_tlb_range(f.mm, VA, VA + SZ_4K, SZ_4K, true, 3);
	set_desc(f.mm, VA, PUD_LEVEL, p, old + SZ_4K * 8);
	assert_int_equal(violations, 1);
	*p = old;
	ptsim_machine_destroy(f.m);
}

static void test_block_split(void **state)
{
	const enum ptsim_cpu cpus[] = { PTSIM_CPU_APPLE_M3, PTSIM_CPU_NEOVERSE_V3 };

	(void)state;
	for (int i = 0; i < 2; i++) {
		struct fx f = setup(cpus[i], 9);
		pte_t *p = slot(&f, 2);
		struct pt_table *pte;

		assert_int_equal(pt_table_alloc(f.mm, PTE_LEVEL, &pte), 0);
		for (unsigned int k = 0; k < 512; k++)
			pte->desc[k] = pmd_leaf_to_pte(*p) + ((uint64_t)k << 12);
		/* block -> table in place: level 0 flags it; BBML2-noabort allows it */
		set_desc(f.mm, VA, PMD_LEVEL, p, pfn_pte(&f.m->geo, pte->pfn, PMD_TYPE_TABLE));
		pt_walk_table(f.mm, VA, PMD_LEVEL, false, &(int){ 0 })->next[pt_index(&f.m->geo, PMD_LEVEL, VA)] = pte;
		assert_int_equal(violations, i == 0 ? 1 : 0);
		ptsim_machine_destroy(f.m);
	}
}

static void test_cont_bit_change(void **state)
{
	const enum ptsim_cpu cpus[] = { PTSIM_CPU_APPLE_M3, PTSIM_CPU_NEOVERSE_V3 };

	(void)state;
	for (int i = 0; i < 2; i++) {
		struct fx f = setup(cpus[i], 4);
		pte_t *p = slot(&f, 3);

		/* clearing the contiguous bit of a live group in place */
		for (int k = 0; k < 16; k++)
			set_desc(f.mm, VA + (uint64_t)k * SZ_4K, 3, p + k, pte_mknoncont(p[k]));
		assert_int_equal(violations, i == 0 ? 16 : 0);
		ptsim_machine_destroy(f.m);
	}
}

static void test_kernel_sequences_silent(void **state)
{
	const enum ptsim_cpu cpus[] = { PTSIM_CPU_APPLE_M3, PTSIM_CPU_NEOVERSE_N1,
					PTSIM_CPU_NEOVERSE_V2, PTSIM_CPU_NEOVERSE_V3 };

	(void)state;
	for (int i = 0; i < 4; i++) {
		struct fx f = setup(cpus[i], 4);
		pte_t *p = slot(&f, 3);

		ptsim_feature_preset(f.m, "patched");
		/* contpte_convert via unfold (ptep_get_and_clear) and fold (set_ptes(1)) */
		pte_t old = ptep_get_and_clear(f.mm, VA + 15 * SZ_4K, p + 15);
		set_ptes(f.mm, VA + 15 * SZ_4K, p + 15, old, 1);
		assert_true(pte_cont(p[0]));
		/* permission-only changes in place */
		set_desc(f.mm, VA + SZ_64K, PTE_LEVEL, p + 16, pte_wrprotect(p[16]));
		assert_int_equal(violations, 0);
		assert_int_equal(conflict_risks, 0);
		ptsim_machine_destroy(f.m);
	}
}

/* The published mprotect states stay silent before and after batching. */
static void test_mprotect_benchmark_silent(void **state)
{
	(void)state;
	for (int batching = 0; batching < 2; batching++) {
		for (unsigned int order = 0; order <= 9; order += 9) {
			struct fx f = setup(PTSIM_CPU_APPLE_M3, order);

			if (order == 9)
				assert_int_equal(ptsim_split_huge_pmd(f.mm, VA, SZ_2M), 0);
			ptsim_feature_set(f.m, PTSIM_FEAT_MPROTECT_PTE_BATCHING, batching);
			for (int i = 0; i < 3; i++) {
				assert_int_equal(ptsim_mprotect(f.mm, VA, SZ_2M, PTSIM_PROT_READ), 0);
				assert_int_equal(ptsim_mprotect(f.mm, VA, SZ_2M,
								PTSIM_PROT_READ | PTSIM_PROT_WRITE), 0);
				assert_int_equal(ptsim_touch(f.mm, 0, VA, SZ_2M, PTSIM_ACCESS_WRITE, NULL), 0);
			}
			assert_int_equal(violations, 0);
			ptsim_machine_destroy(f.m);
		}
	}
}

/*
 * Finding: the batched mprotect (v6.17) repaints the contiguous bit on a block
 * that was live non-contiguous (unfolded earlier by a partial mprotect) with
 * no TLBI between the clear and the write. On a CPU without BBML1/2 that is a
 * contiguous-bit change without break-before-make; BBML2 CPUs allow it.
 */
static void test_batched_refold_flagged_without_bbml(void **state)
{
	/* BBM level 0; level 2 without BBML2-noabort; BBML2-noabort */
	const enum ptsim_cpu cpus[] = { PTSIM_CPU_APPLE_M3, PTSIM_CPU_NEOVERSE_V2,
					PTSIM_CPU_NEOVERSE_V3 };

	(void)state;
	for (int i = 0; i < 3; i++) {
		struct fx f = setup(cpus[i], 4);
		struct ptsim_translation tr;

		ptsim_feature_set(f.m, PTSIM_FEAT_MPROTECT_PTE_BATCHING, true);
		assert_int_equal(ptsim_mprotect(f.mm, VA + 4 * SZ_4K, SZ_4K, PTSIM_PROT_READ), 0);
		assert_int_equal(ptsim_mprotect(f.mm, VA + 4 * SZ_4K, SZ_4K,
						PTSIM_PROT_READ | PTSIM_PROT_WRITE), 0);
		assert_int_equal(violations, 0);
		assert_int_equal(ptsim_mprotect(f.mm, VA, SZ_2M, PTSIM_PROT_READ), 0);
		assert_int_equal(ptsim_translate(f.mm, VA, &tr), 0);
		assert_true(tr.cont);
		assert_int_equal(violations, i == 0 ? 16 : 0);
		assert_int_equal(conflict_risks, i == 1 ? 16 : 0);
		ptsim_machine_destroy(f.m);
	}
}

/*
 * Finding, the other direction: a fully covered contiguous block whose pages
 * differ in PageAnonExclusive is cleared as one batch and committed back by
 * commit_anon_folio_batch in runs (here 5, 1 and 10 pages). The runs are not
 * whole blocks, so they are written without the contiguous bit: CONT to
 * non-CONT on live entries, with no TLBI between the clear and the writes.
 */
static void test_batched_unfold_flagged_without_bbml(void **state)
{
	const enum ptsim_cpu cpus[] = { PTSIM_CPU_APPLE_M3, PTSIM_CPU_NEOVERSE_V2,
					PTSIM_CPU_NEOVERSE_V3 };

	(void)state;
	for (int i = 0; i < 3; i++) {
		struct fx f = setup(cpus[i], 4);
		struct ptsim_translation tr;

		ptsim_feature_set(f.m, PTSIM_FEAT_MPROTECT_PTE_BATCHING, true);
		assert_int_equal(ptsim_mprotect(f.mm, VA, SZ_2M, PTSIM_PROT_READ), 0);
		assert_int_equal(ptsim_translate(f.mm, VA, &tr), 0);
		assert_true(tr.cont);
		/* page 5 of the first block is no longer exclusive (a fork's child still maps it) */
		assert_int_equal(ptsim_folio_set_exclusive(f.mm, VA + 5 * SZ_4K, false), 0);
		violations = conflict_risks = 0;
		assert_int_equal(ptsim_mprotect(f.mm, VA, SZ_2M, PTSIM_PROT_READ | PTSIM_PROT_WRITE), 0);
		assert_int_equal(ptsim_translate(f.mm, VA, &tr), 0);
		assert_false(tr.cont);
		assert_int_equal(ptsim_translate(f.mm, VA + 5 * SZ_4K, &tr), 0);
		assert_true(tr.read_only);	/* not exclusive: no write upgrade */
		assert_int_equal(violations, i == 0 ? 16 : 0);
		assert_int_equal(conflict_risks, i == 1 ? 16 : 0);
		ptsim_machine_destroy(f.m);
	}
}

/*
 * The write check's fast path skips bbm_needs_break when only
 * BBM_IN_PLACE_BITS change: each of those bits, flipped alone on a valid
 * page or block, in every granule and with 52-bit (LPA2) addresses, must be
 * one bbm_needs_break lets through and neither a size nor a contiguity
 * change. The bits outside it that change the output address must not be.
 */
static void test_in_place_bits_need_no_break(void **state)
{
	static const enum ptsim_granule granules[] = { PTSIM_GRANULE_4K, PTSIM_GRANULE_16K,
						       PTSIM_GRANULE_64K };

	(void)state;
	for (unsigned int gi = 0; gi < 3; gi++) {
		for (unsigned int va_bits = 48; va_bits <= 52; va_bits += 4) {
			struct ptsim_machine *m = new_machine(granules[gi], va_bits, PTSIM_CPU_NEOVERSE_N1,
							      NULL);
			const struct ptsim_geometry *g = &m->geo;

			for (int level = 2; level <= PTE_LEVEL; level++) {
				pte_t d = pfn_pte(g, UINT64_C(0x12345), PTE_AF | PTE_ATTRINDX(MT_NORMAL) |
						  (level == PTE_LEVEL ? PTE_TYPE_PAGE : PMD_TYPE_SECT));

				for (unsigned int bit = 0; bit < 64; bit++) {
					pte_t n = d ^ (UINT64_C(1) << bit);

					if (!(BBM_IN_PLACE_BITS & (UINT64_C(1) << bit)))
						continue;
					assert_null(bbm_needs_break(m, level, d, n));
					assert_true(pte_valid(n) && !pte_cont(n) &&
						    (n & PTE_TYPE_MASK) == (d & PTE_TYPE_MASK));
				}
				/* an output-address bit is not in the set, and needs the break */
				assert_non_null(bbm_needs_break(m, level, d,
								pfn_pte(g, 0x12346, pte_pgprot(g, d))));
			}
			ptsim_machine_destroy(m);
		}
	}
}

/* ---- the batch checks against one bbm_check_write per entry ---- */

struct seen_diag {
	enum ptsim_diag_kind kind;
	uint64_t va;
	pte_t old_desc, new_desc;
};

struct diag_trace {
	struct seen_diag d[8192];
	unsigned int n;
};

static void log_diag(const struct ptsim_diag *d, void *arg)
{
	struct diag_trace *log = arg;

	if (log->n < 8192)
		log->d[log->n++] = (struct seen_diag){ d->kind, d->va, d->old_desc, d->new_desc };
}

static bool in_run(const struct bbm_state *b, uint64_t key)
{
	uint64_t i = key - b->run_key0;

	return b->run_count && i < b->run_n && ((b->run_present[i / 64] >> (i % 64)) & 1);
}

/* The break b tracks under key, from its run (the newer) or its map. */
static bool tracked(const struct bbm_state *b, uint64_t key, uint64_t *val)
{
	if (in_run(b, key)) {
		*val = b->run_val[key - b->run_key0];
		return true;
	}
	return u64map_get(&b->broken, key, val);
}

/* Every break a tracks, b tracks with the same value; how many a tracks. */
static size_t tracked_in_both(const struct bbm_state *a, const struct bbm_state *b)
{
	size_t n = 0;
	uint64_t vb;

	for (unsigned int i = 0; a->run_count && i < a->run_n; i++) {
		if (!in_run(a, a->run_key0 + i))
			continue;
		assert_true(tracked(b, a->run_key0 + i, &vb) && vb == a->run_val[i]);
		n++;
	}
	for (size_t i = 0; i < a->broken.cap; i++) {
		uint64_t key = a->broken.keys[i] - 1;

		if (!a->broken.keys[i] || in_run(a, key))
			continue;	/* counted with the run, whose value is the newer */
		assert_true(tracked(b, key, &vb) && vb == a->broken.vals[i]);
		n++;
	}
	return n;
}

/*
 * The two checkers track the same breaks with the same values (TLBI seen or
 * not), whether in their runs or in their maps.
 */
static void assert_same_tracking(const struct bbm_state *a, const struct bbm_state *b)
{
	assert_int_equal(tracked_in_both(a, b), tracked_in_both(b, a));
}

#define TABLE_ENTRIES 1200	/* more than a run holds (BBM_RUN) */

/*
 * One table, checked batch-wise on machine mb and entry by entry on ms; at
 * each TLBI, ms's run is moved to its map first.
 */
struct twin {
	struct ptsim_machine *mb, *ms;
	struct hw_as as;
	pte_t tab[TABLE_ENTRIES];
	uint64_t writes;
};

static uint64_t twin_va(const struct twin *t, unsigned int at)
{
	return VA + ((uint64_t)at << t->mb->geo.page_shift);
}

static void twin_clear(struct twin *t, unsigned int at, unsigned int nr)
{
	bbm_check_clear_ptes(t->mb, &t->as, twin_va(t, at), &t->tab[at], nr);
	for (unsigned int i = 0; i < nr; i++)
		bbm_check_write(t->ms, &t->as, twin_va(t, at + i), 3, t->tab[at + i], 0);
	memset(&t->tab[at], 0, nr * sizeof(pte_t));
	t->writes += nr;
}

static void twin_set(struct twin *t, unsigned int at, unsigned int nr, pte_t pte)
{
	bbm_check_set_ptes(t->mb, &t->as, twin_va(t, at), &t->tab[at], pte, nr);
	for (unsigned int i = 0; i < nr; i++, pte = pte_advance_pfn(&t->mb->geo, pte, 1)) {
		bbm_check_write(t->ms, &t->as, twin_va(t, at + i), 3, t->tab[at + i], pte);
		t->tab[at + i] = pte;
	}
	t->writes += nr;
}

/* A TLBI of pages at to at + nr - 1 (the table's ASID, another, or all), then maybe a DSB. */
static void twin_tlbi(struct twin *t, unsigned int at, unsigned int nr, bool dsb, unsigned int how)
{
	static const enum tlbi_kind kinds[] = { TLBI_KIND_RANGE, TLBI_KIND_RANGE, TLBI_KIND_VA,
						TLBI_KIND_RANGE_VAA, TLBI_KIND_ASID, TLBI_KIND_ALL };
	enum tlbi_kind kind = kinds[how % 6];
	const struct tlbi_op op = {
		.kind = kind, .asid = how % 6 == 1 ? t->as.asid + 1 : t->as.asid,
		.va = twin_va(t, at), .pages = kind == TLBI_KIND_VA ? 1 : nr, .last_level = how & 8,
	};

	/* the breaks visible to walks first (the DSB ISHST a kernel flush begins with) */
	bbm_dsb_store(t->mb);
	bbm_dsb_store(t->ms);
	/* ms finds every break in its map: the run's TLBI is checked against the map's */
	bbm_spill_run(t->ms);
	bbm_tlbi(t->mb, &op);
	bbm_tlbi(t->ms, &op);
	if (dsb) {
		bbm_dsb(t->mb);
		bbm_dsb(t->ms);
	}
}

/*
 * The whole table in batches: each batch cleared and written back (as
 * mprotect does), or every batch cleared before any is written back (as a
 * remap does), which fills runs up and spills them; one flush at the end.
 */
static void twin_sweep(struct twin *t, uint64_t *rng, bool interleaved, pte_t prot)
{
	unsigned int nr[TABLE_ENTRIES], at = 0, n = 0;

	while (at < TABLE_ENTRIES) {
		unsigned int len = 1 + (unsigned int)(prng_next(rng) % 40);

		nr[n] = MIN(len, TABLE_ENTRIES - at);	/* MIN evaluates its arguments twice */
		twin_clear(t, at, nr[n]);
		if (interleaved)
			twin_set(t, at, nr[n], pfn_pte(&t->mb->geo, 0x1000 + at, prot));
		at += nr[n++];
	}
	for (unsigned int b = 0, at = 0; !interleaved && b < n; at += nr[b++])
		twin_set(t, at, nr[b], pfn_pte(&t->mb->geo, 0x1000 + at, prot));
	twin_tlbi(t, 0, TABLE_ENTRIES, true, 0);
}

/*
 * Random batches of clears and stores over a table of entries (some
 * invalid, some global, some of another page or attributes), with TLBIs and
 * DSBs between them, and now and then a sweep of the whole table in batches
 * (as mprotect makes): the same diagnostics in the same order from both
 * machines, and the same breaks tracked after every batch.
 */
static void test_batch_checks_match_single_writes(void **state)
{
	static struct diag_trace log_batch, log_single;
	static struct twin t;
	const enum ptsim_cpu cpus[] = { PTSIM_CPU_NEOVERSE_N1, PTSIM_CPU_APPLE_M3 };

	(void)state;
	for (unsigned int c = 0; c < 2; c++) {
		uint64_t rng = 0x5eed + c;

		t.mb = new_machine(PTSIM_GRANULE_4K, 48, cpus[c], NULL);
		t.ms = new_machine(PTSIM_GRANULE_4K, 48, cpus[c], NULL);
		t.as = (struct hw_as){ .root = NULL, .asid = 7, .ttbr1 = false };
		memset(t.tab, 0, sizeof(t.tab));
		t.writes = 0;
		log_batch.n = log_single.n = 0;
		ptsim_set_diag_handler(t.mb, log_diag, &log_batch);
		ptsim_set_diag_handler(t.ms, log_diag, &log_single);
		for (unsigned int step = 0; step < 10000; step++) {
			unsigned int r = (unsigned int)prng_next(&rng), nr = 1 + r % 40;
			unsigned int at = (unsigned int)(prng_next(&rng) % (TABLE_ENTRIES - nr));
			/* the page each entry maps, unless a step below changes it */
			pte_t pte = pfn_pte(&t.mb->geo, 0x1000 + at,
					    PTE_TYPE_PAGE | PTE_AF | PTE_NG | PTE_ATTRINDX(MT_NORMAL));

			if (step % 500 == 499) {
				/* the first leaves every entry valid: the second's batches fill runs */
				twin_sweep(&t, &rng, true, pte_pgprot(&t.mb->geo, pte));
				twin_sweep(&t, &rng, false, pte_pgprot(&t.mb->geo, pte));
				continue;
			}
			switch ((r >> 8) % 8) {
			case 0:
				twin_tlbi(&t, at, nr, r & (1u << 20), r >> 24);
				break;
			case 1:	/* now and then another page or attributes, global, or invalid */
				if ((r >> 21) % 16)
					pte = 0;
				else if (r & (1u << 16))
					pte ^= PTE_NG;
				else if (r & (1u << 17))
					pte ^= PTE_ATTRINDX(MT_DEVICE_nGnRnE);
				else if (r & (1u << 18))
					pte = 0;
				else
					pte = pte_advance_pfn(&t.mb->geo, pte, 1 + r % 3);
				/* fall through */
			case 2:
			case 3:
			case 4:
				twin_set(&t, at, nr, pte);
				break;
			default:
				twin_clear(&t, at, nr);
				break;
			}
			assert_same_tracking(&t.mb->bbm, &t.ms->bbm);
		}
		assert_int_equal(log_batch.n, log_single.n);
		assert_true(log_batch.n < 8192);	/* every report compared */
		for (unsigned int i = 0; i < log_batch.n; i++) {
			assert_int_equal(log_batch.d[i].kind, log_single.d[i].kind);
			assert_true(log_batch.d[i].va == log_single.d[i].va);
			assert_true(log_batch.d[i].old_desc == log_single.d[i].old_desc);
			assert_true(log_batch.d[i].new_desc == log_single.d[i].new_desc);
		}
		/* the sequence is not trivial: reports, and enough writes to fill runs */
		assert_true(log_batch.n > 100 && t.writes > 100000);
		ptsim_machine_destroy(t.mb);
		ptsim_machine_destroy(t.ms);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_oa_change_every_level),
		cmocka_unit_test(test_table_needs_walk_cache_tlbi),
		cmocka_unit_test(test_block_split),
		cmocka_unit_test(test_cont_bit_change),
		cmocka_unit_test(test_kernel_sequences_silent),
		cmocka_unit_test(test_mprotect_benchmark_silent),
		cmocka_unit_test(test_batched_refold_flagged_without_bbml),
		cmocka_unit_test(test_batched_unfold_flagged_without_bbml),
		cmocka_unit_test(test_in_place_bits_need_no_break),
		cmocka_unit_test(test_batch_checks_match_single_writes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
