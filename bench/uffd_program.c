// SPDX-License-Identifier: MIT
/*
 * A GC-compaction-like UFFDIO_MOVE workload on the Android phone profile
 * (doc/workloads.md §uffd): a 32 MiB to-space of order-0 exclusive
 * anonymous pages is moved into a registered 32 MiB heap by the GC thread in
 * runs of 512 contiguous pages, one ioctl per run. Why 512: ART's mark-compact
 * maps each contiguous run of processed pages with one ioctl, and in a densely
 * populated space the GC thread's runs are long; the kernel bounds a batch by
 * the PMD (512 pages at 4K), so every longer run behaves the same. ART's real
 * MOVE sizes are not public (UNVERIFIED in the spec); single-page calls from
 * mutator faults are left out of the published-profile workload, and
 * `ptsim-bench reproduce --detail uffd...` prints the shares for other run
 * lengths, single pages included.
 */
#include "rows.h"

#include <errno.h>
#include <string.h>

#define MIB (UINT64_C(1) << 20)
#define SPACE (32 * MIB)
#define SRC (UINT64_C(1) << 32)
#define DST (UINT64_C(2) << 32)

/* Accumulate the last move's counts, overall and per function. */
static void add_move(struct ptsim_machine *m, struct uffd_run_result *out)
{
	const enum ptsim_func fns[3] = { PTSIM_FN_MOVE_PAGES_PTE, PTSIM_FN_PTEP_CLEAR_FLUSH,
					 PTSIM_FN_VM_NORMAL_FOLIO };
	struct ptsim_stats *dst[4] = { &out->mpp, &out->clear_flush, &out->normal_folio, &out->all };
	struct ptsim_stats s;

	for (int f = 0; f < 4; f++) {
		if (f < 3)
			ptsim_last_func_stats(m, fns[f], &s);
		else
			ptsim_last_stats(m, &s);
		for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++)
			dst[f]->ev[e] += s.ev[e];
	}
}

static int move(struct ptsim_machine *m, struct ptsim_mm *mm, uint64_t off, uint64_t len,
		struct uffd_run_result *out)
{
	int64_t moved = ptsim_uffd_move(mm, DST + off, SRC + off, len, 0);

	if (moved != (int64_t)len)
		return moved < 0 ? (int)moved : -EAGAIN;
	add_move(m, out);
	return 0;
}

/* Move SPACE bytes, run_pages pages per call. */
static int program(bool batching, unsigned int run_pages, struct uffd_run_result *out)
{
	struct ptsim_machine_config cfg;
	struct ptsim_machine *m;
	struct ptsim_mm *mm;
	const unsigned int rw = PTSIM_PROT_READ | PTSIM_PROT_WRITE;
	const unsigned int flags = PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS;
	const uint64_t run = (uint64_t)run_pages * 4096;
	int err;

	ptsim_machine_config_init(&cfg);
	cfg.cpu = PTSIM_CPU_ANDROID_X1;
	err = ptsim_machine_create(&cfg, &m);
	if (err)
		return err;
	ptsim_feature_set(m, PTSIM_FEAT_UFFD_MOVE_BATCHING, batching);
	err = ptsim_mm_create(m, &mm);
	if (!err)
		err = ptsim_mmap(mm, SRC, SPACE, rw, flags, NULL);
	if (!err)
		err = ptsim_mmap(mm, DST, SPACE, rw, flags, NULL);
	if (!err)
		err = ptsim_populate(mm, SRC, SPACE, 0, true);
	if (!err)
		err = ptsim_uffd_register(mm, DST, SPACE);
	memset(out, 0, sizeof(*out));	/* only the moves are measured */
	for (uint64_t off = 0; !err && off < SPACE; off += run)
		err = move(m, mm, off, run, out);
	ptsim_machine_destroy(m);
	return err;
}

#define RUN_PAGES 512

int uffd_program(bool batching, struct uffd_run_result *out)
{
	static struct uffd_run_result cache[2];
	static bool done[2];

	if (!done[batching]) {
		int err;

		progress("simulating the UFFDIO_MOVE compaction workload, %s batching",
			 batching ? "with" : "without");
		err = program(batching, RUN_PAGES, &cache[batching]);
		if (err)
			return err;
		done[batching] = true;
	}
	*out = cache[batching];
	return 0;
}

static double ns(const struct ptsim_stats *s)
{
	struct ptsim_prediction p;

	ptsim_predict(PTSIM_CPU_ANDROID_X1, PTSIM_GRANULE_4K, s, &p);
	return p.total_ns;
}

double uffd_share(const struct ptsim_stats *part, const struct ptsim_stats *whole)
{
	return ns(part) / ns(whole);
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
		out->simulated = uffd_share(&b.clear_flush, &b.mpp);
	else if (!strcmp(row->id, "uffd.android.normal_folio_share_before"))
		out->simulated = uffd_share(&b.normal_folio, &b.mpp);
	else if (!strcmp(row->id, "uffd.android.normal_folio_share_after"))
		out->simulated = uffd_share(&a.normal_folio, &a.mpp);
	else
		out->simulated = ns(&b.mpp) / ns(&a.mpp);
	out->have_detail = true;
	out->granule = PTSIM_GRANULE_4K;
	out->before_label = "move_pages_pte before";
	out->after_label = "move_pages_ptes after";
	out->before = b.mpp;
	out->after = a.mpp;
	return 0;
}

/* The shares for other run lengths (all calls of one length), for the detail view. */
void uffd_print_sweep(void)
{
	static const unsigned int runs[] = { 1, 4, 16, 64, 256, 511, 512, 1024 };

	printf("\nsensitivity to the run length (every call moves that many pages):\n");
	printf("%8s %22s %22s %22s %10s\n", "pages", "clear_flush before", "normal_folio before",
	       "normal_folio after", "speedup");
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		struct uffd_run_result b, a;

		if (program(false, runs[i], &b) || program(true, runs[i], &a))
			return;
		printf("%8u %21.1f%% %21.1f%% %21.1f%% %10.2f\n", runs[i],
		       100 * uffd_share(&b.clear_flush, &b.mpp), 100 * uffd_share(&b.normal_folio, &b.mpp),
		       100 * uffd_share(&a.normal_folio, &a.mpp), ns(&b.mpp) / ns(&a.mpp));
	}
}
