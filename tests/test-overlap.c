// SPDX-License-Identifier: MIT
/*
 * ptsim_predict_overlap: the loop prices composed with the events
 * (doc/overlap.md). The paths' turns cost their prices, the events their
 * instructions hold drop out and never more than the model counted; with
 * no turns it is ptsim_predict with the misses in series.
 */
#include "helpers.h"
#include "loop_prices.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#define VA UINT64_C(0x10000000)
#define PAGES 512

struct run {
	struct ptsim_stats s;
	struct ptsim_loop_stats l;
};

static void last(struct ptsim_machine *m, struct run *r)
{
	assert_int_equal(ptsim_last_stats(m, &r->s), 0);
	assert_int_equal(ptsim_last_loop_stats(m, &r->l), 0);
}

#define NR_RUNS 31

/* UFFDIO_MOVE of fresh order-0 pages at VA into a registered range at to. */
static void uffd_move(struct ptsim_machine *m, struct ptsim_mm *mm, uint64_t to, struct run *r)
{
	const unsigned int rw = PTSIM_PROT_READ | PTSIM_PROT_WRITE;
	const unsigned int flags = PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS;

	assert_int_equal(ptsim_mmap(mm, VA, PAGES * 4096, rw, flags, NULL), 0);
	assert_int_equal(ptsim_populate(mm, VA, PAGES / 2 * 4096, 0, true), 0);
	assert_int_equal(ptsim_mmap(mm, to, PAGES * 4096, rw, flags, NULL), 0);
	assert_int_equal(ptsim_uffd_register(mm, to, PAGES * 4096), 0);
	assert_int_equal(ptsim_uffd_move(mm, to, VA, PAGES / 2 * 4096, 0), PAGES / 2 * 4096);
	last(m, r);
}

/*
 * madvise COLD, FREE and PAGEOUT of order-0 and 64K folios at `at`: the
 * walks' turns, and contpte_clear_young_dirty_ptes's over the blocks; then
 * PAGEOUT of the 64K folios as before v6.9 (references checked): the rmap
 * walk's contpte_ptep_clear_flush_young over each block.
 */
static void madvise_runs(struct ptsim_machine *m, struct ptsim_mm *mm, uint64_t at, struct run *r)
{
	const uint64_t half = PAGES / 2 * 4096;

	assert_int_equal(ptsim_mmap(mm, at, PAGES * 4096, PTSIM_PROT_READ | PTSIM_PROT_WRITE,
				    PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL), 0);
	assert_int_equal(ptsim_populate(mm, at, half, 0, true), 0);
	assert_int_equal(ptsim_populate(mm, at + half, half, 4, true), 0);
	assert_int_equal(ptsim_madvise(mm, at, PAGES * 4096, PTSIM_MADV_COLD), 0);
	last(m, &r[0]);
	assert_int_equal(ptsim_madvise(mm, at, PAGES * 4096, PTSIM_MADV_FREE), 0);
	last(m, &r[1]);
	assert_int_equal(ptsim_madvise(mm, at, half, PTSIM_MADV_PAGEOUT), 0);
	last(m, &r[2]);
	assert_int_equal(ptsim_feature_set(m, PTSIM_FEAT_PAGEOUT_IGNORE_REFERENCES, false), 0);
	assert_int_equal(ptsim_madvise(mm, at + half, half, PTSIM_MADV_PAGEOUT), 0);
	last(m, &r[3]);
}

/*
 * MADV_PAGEOUT of zero-filled order-0 pages at `at` (v6.12's zeromap): the
 * zero test reads each page through.
 */
static void zero_pageout(struct ptsim_machine *m, struct ptsim_mm *mm, uint64_t at, struct run *r)
{
	assert_int_equal(ptsim_mmap(mm, at, 16 * 4096, PTSIM_PROT_READ | PTSIM_PROT_WRITE,
				    PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL), 0);
	assert_int_equal(ptsim_populate(mm, at, 16 * 4096, 0, true), 0);
	assert_int_equal(ptsim_set_zero_filled(mm, at, 16 * 4096), 0);
	assert_int_equal(ptsim_madvise(mm, at, 16 * 4096, PTSIM_MADV_PAGEOUT), 0);
	last(m, r);
}

/*
 * A read fault on a file of 64K folios already in the page cache: the
 * fault-around maps them through filemap_map_folio_range.
 */
static void file_fault_around(struct ptsim_machine *m, struct ptsim_mm *mm, struct run *r)
{
	cached_file_fault_around(m, mm, 4);
	last(m, r);
}

/*
 * Operations that take every counted path, on kernels with and without
 * contpte and batching: the whole sequence on v6.12 with and without contpte
 * (a folio split among it; UFFDIO_MOVE, madvise and file fault-around with
 * it only), the batched
 * mprotect (both ways, with and without contpte) and early-exit gathers of
 * v6.17, and a zero-filled swap-out.
 */
static void runs(enum ptsim_cpu cpu, struct run r[NR_RUNS])
{
	unsigned int n = 0;

	for (unsigned int k = 0; k < 4; k++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, cpu, k >= 2 ? "v6.17" : "v6.12");
		struct ptsim_mm *mm = new_mm_with_vma(m, VA, PAGES * 4096), *child;
		uint64_t to = VA + (UINT64_C(1) << 30) + 8 * 4096, out;
		const uint64_t split_at = VA + (UINT64_C(3) << 30);
		bool all = k < 2;

		if (k == 1 || k == 3)
			assert_int_equal(ptsim_feature_set(m, PTSIM_FEAT_ARM64_CONTPTE, false), 0);
		assert_int_equal(ptsim_populate(mm, VA, PAGES / 2 * 4096, 0, true), 0);
		assert_int_equal(ptsim_populate(mm, VA + PAGES / 2 * 4096, PAGES / 4 * 4096, 4, true), 0);
		assert_int_equal(ptsim_mprotect(mm, VA, PAGES * 4096, PTSIM_PROT_READ), 0);
		last(m, &r[n++]);
		assert_int_equal(ptsim_mprotect(mm, VA, PAGES * 4096, PTSIM_PROT_READ | PTSIM_PROT_WRITE), 0);
		last(m, &r[n++]);
		assert_int_equal(ptsim_fork(mm, &child), 0);
		last(m, &r[n++]);
		assert_int_equal(ptsim_mm_exit(child), 0);
		if (all)
			last(m, &r[n++]);
		if (!all) {
			ptsim_machine_destroy(m);
		} else {
			assert_int_equal(ptsim_mremap(mm, VA, PAGES * 4096, PAGES * 4096,
						      PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED, to, &out), 0);
			last(m, &r[n++]);
			assert_int_equal(ptsim_mlock(mm, to, PAGES * 4096), 0);
			last(m, &r[n++]);
			assert_int_equal(ptsim_munlock(mm, to, PAGES * 4096), 0);
			last(m, &r[n++]);
			assert_int_equal(ptsim_munmap(mm, to, PAGES * 4096), 0);
			last(m, &r[n++]);
			/* a 64K folio split to order 0 (__split_huge_page's tails) */
			assert_int_equal(ptsim_mmap(mm, split_at, 16 * 4096,
						    PTSIM_PROT_READ | PTSIM_PROT_WRITE,
						    PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL), 0);
			assert_int_equal(ptsim_populate(mm, split_at, 16 * 4096, 4, true), 0);
			assert_int_equal(ptsim_split_folio(mm, split_at, 0), 0);
			last(m, &r[n++]);
			if (!k) {	/* these loops are priced with contpte only */
				uffd_move(m, mm, to, &r[n++]);
				madvise_runs(m, mm, VA + (UINT64_C(2) << 30), &r[n]);
				n += 4;
				file_fault_around(m, mm, &r[n++]);
				zero_pageout(m, mm, VA + (UINT64_C(4) << 30), &r[n++]);
			}
			ptsim_machine_destroy(m);
		}
	}
	assert_int_equal(n, NR_RUNS);
}

/* A table of what each path's turns hold or count apart (overlap.c). */
typedef int (*path_table)(enum ptsim_loop path, unsigned int k, enum ptsim_event *ev,
			  unsigned int *per_turn);

/* How many of ev the turns of r take by table. */
static uint64_t by_table(const struct run *r, enum ptsim_event ev, path_table table)
{
	uint64_t n = 0;

	for (unsigned int p = 0; p < PTSIM_LOOP__COUNT; p++) {
		enum ptsim_event e;
		unsigned int per_turn;

		for (unsigned int k = 0; !table((enum ptsim_loop)p, k, &e, &per_turn); k++)
			if (e == ev)
				n += r->l.iter[p] * per_turn;
	}
	return n;
}

/* What the turns of r hold of ev, by the cover tables. */
static uint64_t held(const struct run *r, enum ptsim_event ev)
{
	return by_table(r, ev, loop_path_cover);
}

/* What the turns of r count apart of ev: the atomics on the paths, by their events. */
static uint64_t atomics_apart(const struct run *r, enum ptsim_event ev)
{
	return by_table(r, ev, loop_path_atomics);
}

/*
 * The atomics on every priced path (its loop price's "atomics": llvm-mca
 * prices a stand-in) are counted apart by the events the table names: as
 * many per turn as the machine code has, on every CPU's price of the path,
 * none of them an event the path holds, and each run's turns need no more
 * of such an event than the model counted.
 */
static void test_atomics_counted_apart(void **state)
{
	struct run r[NR_RUNS];

	(void)state;
	for (unsigned int p = 0; p < PTSIM_LOOP__COUNT; p++) {
		const char *fn, *variant;
		unsigned int listed = 0, per_turn, priced = 0;
		enum ptsim_event e, h;

		assert_int_equal(ptsim_loop_name((enum ptsim_loop)p, &fn, &variant), 0);
		for (unsigned int k = 0; !loop_path_atomics((enum ptsim_loop)p, k, &e, &per_turn); k++) {
			struct ptsim_cost c;
			unsigned int held_per_turn;

			listed += per_turn;
			assert_int_equal(ptsim_cost_get(PTSIM_CPU_NEOVERSE_N1, PTSIM_GRANULE_4K, e, &c), 0);
			if (strcmp(c.klass, "atomic"))
				fail_msg("%s/%s: %s is no atomic", fn, variant, ptsim_event_name(e));
			for (unsigned int j = 0;
			     !loop_path_cover((enum ptsim_loop)p, j, &h, &held_per_turn); j++)
				if (h == e)
					fail_msg("%s/%s holds %s it counts apart", fn, variant,
						 ptsim_event_name(e));
		}
		for (unsigned int i = 0; i < loop_price_nr_rows; i++) {
			const struct loop_price_row *row = &loop_price_rows[i];

			if (strcmp(row->loop, fn) || strcmp(row->variant, variant))
				continue;
			priced++;
			if ((unsigned int)row->atomics != listed)
				fail_msg("%s/%s on %s: %d atomics in its machine code, %u counted apart",
					 fn, variant, row->cpu, row->atomics, listed);
		}
		assert_int_equal(priced, PTSIM_CPU__COUNT);
	}
	runs(PTSIM_CPU_NEOVERSE_N1, r);
	for (unsigned int i = 0; i < NR_RUNS; i++)
		for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++)
			if (atomics_apart(&r[i], (enum ptsim_event)e) > r[i].s.ev[e])
				fail_msg("run %u: the paths' atomics need %llu of %s, the model counted %llu",
					 i, (unsigned long long)atomics_apart(&r[i], (enum ptsim_event)e),
					 ptsim_event_name((enum ptsim_event)e),
					 (unsigned long long)r[i].s.ev[e]);
}

/* The cover tables take no more of an event than the model counted on those turns */
static void test_cover_within_counts(void **state)
{
	struct run r[NR_RUNS];
	uint64_t taken[PTSIM_LOOP__COUNT] = { 0 };

	(void)state;
	runs(PTSIM_CPU_NEOVERSE_N1, r);
	for (unsigned int i = 0; i < NR_RUNS; i++) {
		for (unsigned int p = 0; p < PTSIM_LOOP__COUNT; p++)
			taken[p] += r[i].l.iter[p];
		for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++)
			if (held(&r[i], (enum ptsim_event)e) > r[i].s.ev[e])
				fail_msg("run %u: the paths hold %llu of %s, the model counted %llu", i,
					 (unsigned long long)held(&r[i], (enum ptsim_event)e),
					 ptsim_event_name((enum ptsim_event)e),
					 (unsigned long long)r[i].s.ev[e]);
	}
	/* every path but the file ones was taken */
	for (unsigned int p = 0; p < PTSIM_LOOP__COUNT; p++) {
		const char *fn, *variant;

		assert_int_equal(ptsim_loop_name((enum ptsim_loop)p, &fn, &variant), 0);
		if (!taken[p] && strncmp(variant, "present_file", 12))
			fail_msg("no run took %s/%s", fn, variant);
	}
}

/* The price of fn's variant on cpu (ptsim_loop_price_get), in ns. */
static double body_ns(enum ptsim_cpu cpu, const char *fn, const char *variant)
{
	struct ptsim_loop_price p;

	for (unsigned int i = 0; !ptsim_loop_price_get(cpu, i, &p); i++)
		if (!strcmp(p.loop, fn) && !strcmp(p.variant, variant))
			return p.ns;
	fail_msg("no price of %s/%s", fn, variant);
	return 0;
}

static double price_ns(enum ptsim_cpu cpu, enum ptsim_loop path)
{
	const char *fn, *variant;

	assert_int_equal(ptsim_loop_name(path, &fn, &variant), 0);
	return body_ns(cpu, fn, variant);
}

/* The parts add up; the loop part is price x turns; the held events are gone from the rest */
static void test_composition(void **state)
{
	(void)state;
	for (unsigned int cpu = 0; cpu < PTSIM_CPU__COUNT; cpu++) {
		struct run r[NR_RUNS];

		runs((enum ptsim_cpu)cpu, r);
		for (unsigned int i = 0; i < NR_RUNS; i++) {
			struct ptsim_overlap_prediction o;
			struct ptsim_prediction p;
			double loop = 0, events = 0;

			assert_int_equal(ptsim_predict_overlap((enum ptsim_cpu)cpu, PTSIM_GRANULE_4K,
							       &r[i].s, &r[i].l, &o), 0);
			assert_int_equal(ptsim_predict((enum ptsim_cpu)cpu, PTSIM_GRANULE_4K,
						       &r[i].s, &p), 0);
			for (unsigned int l = 0; l < PTSIM_LOOP__COUNT; l++) {
				double want = (double)r[i].l.iter[l] * price_ns((enum ptsim_cpu)cpu,
										 (enum ptsim_loop)l);

				assert_float_equal(o.loop_path_ns[l], want, 1e-9 * (1 + want));
				loop += o.loop_path_ns[l];
			}
			for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++)
				events += o.event_ns[e];
			assert_float_equal(o.loop_ns, loop, 1e-9 * (1 + loop));
			assert_float_equal(o.serial_ns + o.miss_ns + o.rest_ns, events, 1e-9 * (1 + events));
			assert_float_equal(o.total_ns, o.loop_ns + events, 1e-9 * o.total_ns);
			assert_true(o.overlap >= 1);
			if (!(o.loop_ns > 0))
				fail_msg("run %u on CPU %u: no priced turn", i, cpu);
			/* the entry reads the turns hold are gone from the rest (a split's hold none) */
			if (held(&r[i], PTSIM_EV_PTE_READ))
				assert_true(o.event_ns[PTSIM_EV_PTE_READ] <
					    p.event_ns[PTSIM_EV_PTE_READ]);
			else
				assert_float_equal(o.event_ns[PTSIM_EV_PTE_READ],
						   p.event_ns[PTSIM_EV_PTE_READ],
						   1e-9 * (1 + p.event_ns[PTSIM_EV_PTE_READ]));
		}
	}
}

/* The runs' counts without the calls priced by their bodies. */
static void drop_priced_calls(struct run *r)
{
	enum ptsim_event ev;
	const char *fn, *variant;

	for (unsigned int k = 0; !priced_call(k, &ev, &fn, &variant); k++)
		r->s.ev[ev] = 0;
}

/*
 * No turns: every event at its own price, as ptsim_predict, but the calls
 * priced by their bodies; the misses in series
 */
static void test_no_turns_is_predict(void **state)
{
	struct run r[NR_RUNS];
	struct ptsim_loop_stats none;
	struct ptsim_overlap_prediction o;
	struct ptsim_prediction p;

	(void)state;
	memset(&none, 0, sizeof(none));
	runs(PTSIM_CPU_APPLE_M3, r);
	for (unsigned int i = 0; i < NR_RUNS; i++) {
		drop_priced_calls(&r[i]);
		assert_int_equal(ptsim_predict_overlap(PTSIM_CPU_APPLE_M3, PTSIM_GRANULE_4K, &r[i].s,
						       &none, &o), 0);
		assert_int_equal(ptsim_predict(PTSIM_CPU_APPLE_M3, PTSIM_GRANULE_4K, &r[i].s, &p), 0);
		assert_float_equal(o.total_ns, p.total_ns, 1e-9 * p.total_ns);
		assert_true(o.overlap == 1);
		assert_true(o.loop_ns == 0);
		for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++)
			assert_float_equal(o.event_ns[e], p.event_ns[e], 1e-9 * (1 + p.event_ns[e]));
	}
}

/*
 * A call priced by its body: each call the counts hold costs the body's
 * price (UFFDIO_MOVE's folio_move_anon_rmap, one per page moved), on every
 * CPU, with turns or without; the events it holds drop out of the rest
 */
static void test_priced_calls(void **state)
{
	struct ptsim_loop_stats none;
	unsigned int calls = 0;

	(void)state;
	memset(&none, 0, sizeof(none));
	for (unsigned int cpu = 0; cpu < PTSIM_CPU__COUNT; cpu++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, (enum ptsim_cpu)cpu, "v6.12");
		struct ptsim_mm *mm;
		struct run r;
		enum ptsim_event ev;
		const char *fn, *variant;

		assert_int_equal(ptsim_mm_create(m, &mm), 0);
		uffd_move(m, mm, VA + (UINT64_C(1) << 30), &r);
		for (unsigned int k = 0; !priced_call(k, &ev, &fn, &variant); k++) {
			struct ptsim_overlap_prediction with, without;
			struct ptsim_prediction p;
			enum ptsim_event h;
			unsigned int per_call;
			double want = (double)r.s.ev[ev] * body_ns((enum ptsim_cpu)cpu, fn, variant);

			if (ev != PTSIM_EV_RMAP_MOVE)
				continue;	/* the run makes these calls */
			calls++;
			assert_int_equal(r.s.ev[ev], PAGES / 2);
			assert_int_equal(ptsim_predict_overlap((enum ptsim_cpu)cpu, PTSIM_GRANULE_4K,
							       &r.s, &r.l, &with), 0);
			assert_int_equal(ptsim_predict_overlap((enum ptsim_cpu)cpu, PTSIM_GRANULE_4K,
							       &r.s, &none, &without), 0);
			assert_int_equal(ptsim_predict((enum ptsim_cpu)cpu, PTSIM_GRANULE_4K, &r.s, &p), 0);
			assert_float_equal(with.event_ns[ev], want, 1e-9 * want);
			assert_float_equal(without.event_ns[ev], want, 1e-9 * want);
			assert_true(want < p.event_ns[ev]);	/* below the call's ESTIMATE */
			for (unsigned int j = 0; !priced_call_cover(k, j, &h, &per_call); j++)
				assert_true(without.event_ns[h] < p.event_ns[h]);
		}
		ptsim_machine_destroy(m);
	}
	assert_int_equal(calls, PTSIM_CPU__COUNT);
}

/* The binary search finds every row of the table by its names, and nothing else */
static void test_price_lookup(void **state)
{
	(void)state;
	for (unsigned int i = 0; i < loop_price_nr_rows; i++) {
		const struct loop_price_row *r = &loop_price_rows[i];

		assert_ptr_equal(loop_price_row_of(r->cpu, r->loop, r->variant), r);
	}
	assert_null(loop_price_row_of("apple-m3", "zap_pte_range", "no_such_variant"));
	assert_null(loop_price_row_of("no-such-cpu", "zap_pte_range", "none"));
	assert_null(loop_price_row_of("", "", ""));
}

/* Misses between drains overlap, at most as far as the window holds turns */
static void test_misses_overlap(void **state)
{
	struct ptsim_stats s;
	struct ptsim_loop_stats l;
	struct ptsim_overlap_prediction o;
	struct ptsim_cost dram;

	(void)state;
	memset(&s, 0, sizeof(s));
	memset(&l, 0, sizeof(l));
	l.iter[PTSIM_LOOP_ZAP_PTE_RANGE_PRESENT_ANON] = 1000;
	s.ev[PTSIM_EV_PTE_LOOP] = 1000;
	s.ev[PTSIM_EV_DCACHE_DRAM] = 1000;
	assert_int_equal(ptsim_cost_get(PTSIM_CPU_APPLE_M3, PTSIM_GRANULE_4K, PTSIM_EV_DCACHE_DRAM,
					&dram), 0);
	assert_int_equal(ptsim_predict_overlap(PTSIM_CPU_APPLE_M3, PTSIM_GRANULE_4K, &s, &l, &o), 0);
	/* apple-m3: a 600-entry window over 81-instruction turns */
	assert_true(o.overlap > 7 && o.overlap < 8);
	assert_float_equal(o.miss_ns, 1000 * dram.ns / o.overlap, 1e-6);
	/* a DSB after every miss: nothing to overlap */
	s.ev[PTSIM_EV_DSB_ISH] = 1000;
	assert_int_equal(ptsim_predict_overlap(PTSIM_CPU_APPLE_M3, PTSIM_GRANULE_4K, &s, &l, &o), 0);
	assert_true(o.overlap < 1.01);
	assert_true(o.serial_ns > 0);
}

static void test_bad_input(void **state)
{
	struct ptsim_stats s;
	struct ptsim_loop_stats l;
	struct ptsim_overlap_prediction o, keep;

	(void)state;
	memset(&s, 0, sizeof(s));
	memset(&l, 0, sizeof(l));
	memset(&o, 0x5a, sizeof(o));
	keep = o;
	assert_int_equal(ptsim_predict_overlap(PTSIM_CPU__COUNT, PTSIM_GRANULE_4K, &s, &l, &o), -EINVAL);
	assert_int_equal(ptsim_predict_overlap(PTSIM_CPU_APPLE_M3, (enum ptsim_granule)13, &s, &l, &o),
			 -EINVAL);
	assert_int_equal(ptsim_predict_overlap(PTSIM_CPU_APPLE_M3, PTSIM_GRANULE_4K, NULL, &l, &o), -EINVAL);
	assert_int_equal(ptsim_predict_overlap(PTSIM_CPU_APPLE_M3, PTSIM_GRANULE_4K, &s, NULL, &o), -EINVAL);
	assert_int_equal(ptsim_predict_overlap(PTSIM_CPU_APPLE_M3, PTSIM_GRANULE_4K, &s, &l, NULL), -EINVAL);
	assert_memory_equal(&o, &keep, sizeof(o));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cover_within_counts),
		cmocka_unit_test(test_composition),
		cmocka_unit_test(test_no_turns_is_predict),
		cmocka_unit_test(test_priced_calls),
		cmocka_unit_test(test_price_lookup),
		cmocka_unit_test(test_atomics_counted_apart),
		cmocka_unit_test(test_misses_overlap),
		cmocka_unit_test(test_bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
