// SPDX-License-Identifier: MIT
/*
 * A GC-compaction-like UFFDIO_MOVE workload on the Android phone profile
 * (doc/workloads.md §uffd): order-0 exclusive anonymous pages of a to-space
 * are moved into a registered heap by the GC thread, one ioctl per run of
 * contiguous pages. ART's real MOVE sizes are not public (UNVERIFIED in the
 * spec); the patch's author wrote that calls with several pages are "quite
 * common" and single-page calls happen "quite a bit". With nothing to rank
 * them, the workload moves equal shares of 2,560 pages in each of the three
 * classes the spec names: single pages (mutator faults), short runs of 2 to
 * 16 pages (cycling), and long runs of 512 (a dense space, one PMD each).
 * `ptsim-bench reproduce --detail uffd...` prints the shares per run length.
 */
#include "machine_state.h"
#include "rows.h"

#include <errno.h>
#include <string.h>

#define MIB (UINT64_C(1) << 20)
#define SPACE (32 * MIB)
#define SRC (UINT64_C(1) << 32)
#define DST (UINT64_C(2) << 32)
#define FROM (UINT64_C(3) << 32)	/* the from-space the GC evacuates */
/* Any fixed seed: the order the fragmented allocator hands frames out in. */
#define PHYS_SEED 1

/* Accumulate the last move's counts, overall and per function. */
static void add_move(struct ptsim_machine *m, struct uffd_run_result *out)
{
	const enum ptsim_func fns[3] = { PTSIM_FN_MOVE_PAGES_PTE, PTSIM_FN_PTEP_CLEAR_FLUSH,
					 PTSIM_FN_VM_NORMAL_FOLIO };
	struct ptsim_stats *dst[4] = { &out->mpp, &out->clear_flush, &out->normal_folio, &out->all };
	struct ptsim_stats s;
	struct ptsim_loop_stats l;

	for (int f = 0; f < 4; f++) {
		if (f < 3)
			ptsim_last_func_stats(m, fns[f], &s);
		else
			ptsim_last_stats(m, &s);
		for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++)
			dst[f]->ev[e] += s.ev[e];
	}
	/* move_pages_pte's own turns (move_pages's are outside it) */
	ptsim_last_loop_stats(m, &l);
	out->mpp_loops.iter[PTSIM_LOOP_MOVE_PAGES_PTE_PRESENT] +=
		l.iter[PTSIM_LOOP_MOVE_PAGES_PTE_PRESENT];
}

/*
 * The GC thread's work before a move (ART's concurrent mark-compact): it
 * reads the live objects of the from-space and compacts them into the
 * source pages, one page read and one written per page moved. Not measured;
 * what it streams through the caches evicts what the moves last touched.
 */
static int compact(struct ptsim_machine *m, struct ptsim_mm *mm, uint64_t off, uint64_t len,
		   struct uffd_run_result *out)
{
	const struct { uint64_t base; enum ptsim_access_kind kind; } pass[2] = {
		{ FROM, PTSIM_ACCESS_READ }, { SRC, PTSIM_ACCESS_WRITE },
	};
	struct ptsim_stats s;

	for (int i = 0; i < 2; i++) {
		int err = ptsim_touch(mm, 0, pass[i].base + off, len, pass[i].kind, NULL);

		if (err)
			return err;
		ptsim_last_stats(m, &s);
		ptsim_stats_add(&out->gc, &s);
	}
	return 0;
}

static int move(struct ptsim_machine *m, struct ptsim_mm *mm, uint64_t off, uint64_t len,
		struct uffd_run_result *out)
{
	int err = compact(m, mm, off, len, out);
	int64_t moved = err ? err : ptsim_uffd_move(mm, DST + off, SRC + off, len, 0);

	if (moved != (int64_t)len)
		return moved < 0 ? (int)moved : -EAGAIN;
	add_move(m, out);
	return 0;
}

/*
 * Move runs of nr[i] pages, one call each, back to back from start_page of
 * the space (src and dst at the same offset in their PMDs).
 */
static int run_uffd_program(bool batching, const unsigned int *nr, size_t calls, uint64_t start_page,
		   struct uffd_run_result *out)
{
	struct ptsim_machine_config cfg;
	struct ptsim_machine *m;
	struct ptsim_mm *mm;
	const unsigned int rw = PTSIM_PROT_READ | PTSIM_PROT_WRITE;
	const unsigned int flags = PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS;
	uint64_t off = start_page * 4096;
	int err;

	ptsim_machine_config_init(&cfg);
	cfg.cpu = PTSIM_CPU_ANDROID_X1;
	err = ptsim_machine_create(&cfg, &m);
	if (err)
		return err;
	ptsim_feature_set(m, PTSIM_FEAT_UFFD_MOVE_BATCHING, batching);
	/* a phone that has been up for days: the GC's pages come from scattered frames */
	err = machine_state_apply(m, "uffd.android.", PHYS_SEED);
	if (!err)
		err = ptsim_mm_create(m, &mm);
	if (!err)
		err = ptsim_mmap(mm, SRC, SPACE, rw, flags, NULL);
	if (!err)
		err = ptsim_mmap(mm, DST, SPACE, rw, flags, NULL);
	if (!err)
		err = ptsim_mmap(mm, FROM, SPACE, rw, flags, NULL);
	if (!err)
		err = ptsim_populate(mm, FROM, SPACE, 0, true);
	if (!err)
		err = ptsim_populate(mm, SRC, SPACE, 0, true);
	if (!err)
		err = ptsim_uffd_register(mm, DST, SPACE);
	memset(out, 0, sizeof(*out));	/* only the moves are measured */
	for (size_t i = 0; !err && i < calls; i++) {
		uint64_t len = (uint64_t)nr[i] * 4096;

		err = off + len <= SPACE ? move(m, mm, off, len, out) : -ERANGE;
		off += len;
	}
	ptsim_machine_destroy(m);
	return err;
}

#define CLASS_PAGES 2560

/* The stated mix: 5 runs of 512, short runs cycling 2..16, then single pages. */
static size_t workload_mix(unsigned int *nr)
{
	size_t calls = 0;
	unsigned int left = CLASS_PAGES;

	for (int i = 0; i < CLASS_PAGES / 512; i++)
		nr[calls++] = 512;
	for (unsigned int k = 0; left; k++) {
		unsigned int run = 2 + k % 15 < left ? 2 + k % 15 : left;

		nr[calls++] = run;
		left -= run;
	}
	for (left = CLASS_PAGES; left; left--)
		nr[calls++] = 1;
	return calls;
}

int uffd_program(bool batching, struct uffd_run_result *out)
{
	static struct uffd_run_result cache[2];
	static bool done[2];
	static unsigned int nr[3 * CLASS_PAGES];

	if (!done[batching]) {
		int err;

		progress("simulating UFFDIO_MOVE compaction, %s batching",
			 batching ? "with" : "without");
		err = run_uffd_program(batching, nr, workload_mix(nr), 0, &cache[batching]);
		if (err)
			return err;
		done[batching] = true;
	}
	*out = cache[batching];
	return 0;
}

/* s composed with the turns l (doc/overlap.md); no turns: the events in series. */
static double uffd_ns(const struct ptsim_stats *s, const struct ptsim_loop_stats *l)
{
	static const struct ptsim_loop_stats none;
	struct ptsim_overlap_prediction p;

	ptsim_predict_overlap(PTSIM_CPU_ANDROID_X1, PTSIM_GRANULE_4K, s, l ? l : &none, &p);
	return p.total_ns;
}

double uffd_share(const struct ptsim_stats *part, const struct ptsim_stats *whole,
		  const struct ptsim_loop_stats *whole_loops)
{
	return uffd_ns(part, NULL) / uffd_ns(whole, whole_loops);
}

int uffd_rows(const struct published *row, struct row_result *out)
{
	struct uffd_run_result b, a;
	int err = uffd_program(false, &b);

	if (!err)
		err = uffd_program(true, &a);
	if (err)
		return err;
	if (!strcmp(row->id, "uffd.android.clear_flush_share_before"))
		out->simulated = uffd_share(&b.clear_flush, &b.mpp, &b.mpp_loops);
	else if (!strcmp(row->id, "uffd.android.normal_folio_share_before"))
		out->simulated = uffd_share(&b.normal_folio, &b.mpp, &b.mpp_loops);
	else if (!strcmp(row->id, "uffd.android.normal_folio_share_after"))
		out->simulated = uffd_share(&a.normal_folio, &a.mpp, &a.mpp_loops);
	else
		out->simulated = uffd_ns(&b.mpp, &b.mpp_loops) / uffd_ns(&a.mpp, &a.mpp_loops);
	out->have_detail = true;
	out->granule = PTSIM_GRANULE_4K;
	out->before_label = "move_pages_pte before";
	out->after_label = "move_pages_ptes after";
	out->before = b.mpp;
	out->after = a.mpp;
	out->before_loops = b.mpp_loops;
	out->after_loops = a.mpp_loops;
	return 0;
}

/*
 * The shares when every call moves the same number of pages: runs starting
 * on a PMD boundary of both sides ("aligned") or one page after it.
 */
void uffd_print_sweep(void)
{
	static const unsigned int runs[] = { 1, 16, 32, 64, 128, 256, 512, 1024 };
	static unsigned int nr[SPACE / 4096];

	printf("\nsensitivity to the run length (every call moves that many pages; 32 MiB):\n");
	printf("%8s %9s %12s %13s %13s\n", "", "", "clear_flush", "normal_folio", "normal_folio");
	printf("%8s %9s %12s %13s %13s %8s\n", "pages", "start", "before", "before", "after",
	       "speedup");
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		for (int shift = 0; shift < (runs[i] > 1 ? 2 : 1); shift++) {
			size_t calls = SPACE / 4096 / runs[i] - (size_t)shift;
			struct uffd_run_result b, a;

			for (size_t c = 0; c < calls; c++)
				nr[c] = runs[i];
			if (run_uffd_program(false, nr, calls, (uint64_t)shift, &b) ||
			    run_uffd_program(true, nr, calls, (uint64_t)shift, &a))
				return;
			printf("%8u %9s %11.1f%% %12.1f%% %12.1f%% %8.2f\n", runs[i],
			       shift ? "+1 page" : "aligned",
			       100 * uffd_share(&b.clear_flush, &b.mpp, &b.mpp_loops),
			       100 * uffd_share(&b.normal_folio, &b.mpp, &b.mpp_loops),
			       100 * uffd_share(&a.normal_folio, &a.mpp, &a.mpp_loops),
			       uffd_ns(&b.mpp, &b.mpp_loops) / uffd_ns(&a.mpp, &a.mpp_loops));
		}
	}
}
