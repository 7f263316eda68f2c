// SPDX-License-Identifier: MIT
/*
 * ptsim-bench predict: the mm-lifecycle workloads of the batching series
 * (doc/workloads.md §lifecycle) on the model, per kernel variant. Nothing
 * here was published in a form the model can be checked against, and no
 * profile constant is fitted on these rows: every figure is a prediction from
 * the counts the model produced and the CPU profiles as they are.
 */
#include "rows.h"

#include <getopt.h>
#include <string.h>

#define MIB (UINT64_C(1) << 20)
#define GIB (UINT64_C(1) << 30)
#define RW (PTSIM_PROT_READ | PTSIM_PROT_WRITE)
#define ANON (PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS)

/* A workload: set-up (not measured), then the measured part, on one mm. */
struct workload {
	const char *id;
	enum ptsim_cpu cpu;
	const char *what;
	int (*setup)(struct ptsim_mm *mm, int arg);
	int (*measured)(struct ptsim_mm *mm, int arg);
	int arg;
	const char *variants[4];	/* presets; the first is the "before" */
};

/* 1 GiB at 1 GiB of PTE-mapped 2M THPs (the contpte series' fork and munmap tests). */
/* An anonymous mapping of len at 1 GiB, written through folios of the order. */
static int mmap_populated(struct ptsim_mm *mm, uint64_t len, unsigned int order)
{
	int err = ptsim_mmap(mm, GIB, len, RW, ANON, NULL);

	return err ? err : ptsim_populate(mm, GIB, len, order, true);
}

static int setup_pte_mapped_thp(struct ptsim_mm *mm, int arg)
{
	int err = mmap_populated(mm, GIB, 9);

	(void)arg;
	if (!err)
		err = ptsim_split_huge_pmd(mm, GIB, GIB);
	return err;
}

static int measure_fork(struct ptsim_mm *mm, int arg)
{
	struct ptsim_mm *child;
	int err = ptsim_fork(mm, &child);

	(void)arg;
	if (!err)
		ptsim_mm_destroy(child);	/* uncounted: the row is the fork alone */
	return err;
}

static int measure_munmap(struct ptsim_mm *mm, int arg)
{
	(void)arg;
	return ptsim_munmap(mm, GIB, GIB);
}

/* 64 MiB of 64K mTHP, written once. */
static int setup_64k_folios(struct ptsim_mm *mm, int arg)
{
	(void)arg;
	return mmap_populated(mm, 64 * MIB, 4);
}

/* MADV_DONTNEED one page at a time over 64K mTHP (contpte blocks where contpte is built in). */
static int measure_dontneed_per_page(struct ptsim_mm *mm, int arg)
{
	const uint64_t page = 4096;
	int err = 0;

	(void)arg;
	for (uint64_t va = GIB; !err && va < GIB + 64 * MIB; va += page)
		err = ptsim_madvise(mm, va, page, PTSIM_MADV_DONTNEED);
	return err;
}

#define MREMAP_LOOPS 1000

/*
 * Dev Jain's mremap loop: mmap 1 MiB at 1 GiB, memset it (64K mTHP faults),
 * move it 1 MiB up with MREMAP_FIXED, unmap it. 1,000 of the 10,000
 * iterations: every iteration does the same, so the ratio is the same.
 */
static int measure_mremap_loop(struct ptsim_mm *mm, int arg)
{
	struct ptsim_machine *m = ptsim_mm_machine(mm);
	int err = ptsim_set_thp_orders(m, 1u << 4);

	(void)arg;
	for (int i = 0; !err && i < MREMAP_LOOPS; i++) {
		err = ptsim_mmap(mm, GIB, MIB, RW, ANON, NULL);
		for (uint64_t va = GIB; !err && va < GIB + MIB; va += 64 * 1024)
			err = ptsim_fault(mm, va, PTSIM_ACCESS_WRITE);
		if (!err)
			err = ptsim_touch(mm, 0, GIB, MIB, PTSIM_ACCESS_WRITE, NULL);
		if (!err)
			err = ptsim_mremap(mm, GIB, MIB, MIB, PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED,
					   GIB + MIB, NULL);
		if (!err)
			err = ptsim_munmap(mm, GIB + MIB, MIB);
	}
	return err;
}

enum { YOUNG_DIRTY, ONE_YOUNG, OLD_CLEAN };

/*
 * Xavier Xia's mlock test: 64 MiB aligned to 64K, every page written and
 * read; then MADV_FREE and a read of page 8 of every block (one young entry,
 * none dirty), or MADV_FREE and MADV_COLD (none young or dirty).
 */
static int setup_mlock_state(struct ptsim_mm *mm, int state)
{
	int err = setup_64k_folios(mm, 0);

	if (!err)
		err = ptsim_touch(mm, 0, GIB, 64 * MIB, PTSIM_ACCESS_WRITE, NULL);
	if (!err)
		err = ptsim_touch(mm, 0, GIB, 64 * MIB, PTSIM_ACCESS_READ, NULL);
	if (!err && state != YOUNG_DIRTY)
		err = ptsim_madvise(mm, GIB, 64 * MIB, PTSIM_MADV_FREE);
	for (uint64_t va = GIB + 8 * 4096; !err && state == ONE_YOUNG && va < GIB + 64 * MIB;
	     va += 64 * 1024) {
		enum ptsim_fault_kind f;

		err = ptsim_access(mm, 0, va, PTSIM_ACCESS_READ, &f);
	}
	if (!err && state == OLD_CLEAN)
		err = ptsim_madvise(mm, GIB, 64 * MIB, PTSIM_MADV_COLD);
	return err;
}

#define MLOCK_LOOPS 20

/* 20 of the 500 mlock/munlock pairs (each is the same). */
static int measure_mlock_loop(struct ptsim_mm *mm, int arg)
{
	int err = 0;

	(void)arg;
	for (int i = 0; !err && i < MLOCK_LOOPS; i++) {
		err = ptsim_mlock(mm, GIB, 64 * MIB);
		if (!err)
			err = ptsim_munlock(mm, GIB, 64 * MIB);
	}
	return err;
}

/* 4 MiB of order-0 pages, written, then PROT_NONE. */
static int setup_prot_none(struct ptsim_mm *mm, int arg)
{
	int err = mmap_populated(mm, 4 * MIB, 0);

	(void)arg;
	if (!err)
		err = ptsim_mprotect(mm, GIB, 4 * MIB, PTSIM_PROT_NONE);
	return err;
}

/* One mprotect(PROT_READ | PROT_WRITE) per page, as a growing malloc heap does. */
static int measure_none_to_rw(struct ptsim_mm *mm, int arg)
{
	int err = 0;

	(void)arg;
	for (uint64_t va = GIB; !err && va < GIB + 4 * MIB; va += 4096)
		err = ptsim_mprotect(mm, va, 4096, RW);
	return err;
}

/* 1 GiB of 64K mTHP, written, then MADV_FREE'd: lazyfree and clean. */
static int setup_lazyfree_64k(struct ptsim_mm *mm, int arg)
{
	int err = mmap_populated(mm, GIB, 4);

	(void)arg;
	if (!err)
		err = ptsim_madvise(mm, GIB, GIB, PTSIM_MADV_FREE);
	return err;
}

static int measure_pageout(struct ptsim_mm *mm, int arg)
{
	(void)arg;
	return ptsim_madvise(mm, GIB, GIB, PTSIM_MADV_PAGEOUT);
}

static const struct workload workloads[] = {
	{ "lifecycle.altra.fork_1g_pte_mapped_thp", PTSIM_CPU_NEOVERSE_N1,
	  "fork of 1 GiB of PTE-mapped 2M THPs (contpte series, fork test)",
	  setup_pte_mapped_thp, measure_fork, 0, { "v6.8", "v6.9-midpoint", "v6.9" } },
	{ "lifecycle.altra.munmap_1g_pte_mapped_thp", PTSIM_CPU_NEOVERSE_N1,
	  "munmap of 1 GiB of PTE-mapped 2M THPs (contpte series, munmap test)",
	  setup_pte_mapped_thp, measure_munmap, 0, { "v6.8", "v6.9-midpoint", "v6.9" } },
	{ "lifecycle.altra.madv_dontneed_per_page", PTSIM_CPU_NEOVERSE_N1,
	  "MADV_DONTNEED of every 4K page of 64 MiB of 64K mTHP, one call each",
	  setup_64k_folios, measure_dontneed_per_page, 0, { "v6.8", "v6.9-midpoint", "v6.9", "v6.17" } },
	{ "lifecycle.m3.mremap_loop", PTSIM_CPU_APPLE_M3,
	  "1,000 x (mmap 1 MiB, memset with 64K mTHP, mremap FIXED +1 MiB, munmap)",
	  NULL, measure_mremap_loop, 0, { "v6.16", "v6.17" } },
	{ "lifecycle.altra.mlock_loop_young_dirty", PTSIM_CPU_NEOVERSE_N1,
	  "20 x (mlock; munlock) of 64 MiB of 64K mTHP, every entry young and dirty",
	  setup_mlock_state, measure_mlock_loop, YOUNG_DIRTY, { "v6.16", "v6.17" } },
	{ "lifecycle.altra.mlock_loop_one_young", PTSIM_CPU_NEOVERSE_N1,
	  "the same after MADV_FREE and a read of page 8 of each block",
	  setup_mlock_state, measure_mlock_loop, ONE_YOUNG, { "v6.16", "v6.17" } },
	{ "lifecycle.altra.mlock_loop_old_clean", PTSIM_CPU_NEOVERSE_N1,
	  "the same after MADV_FREE and MADV_COLD",
	  setup_mlock_state, measure_mlock_loop, OLD_CLEAN, { "v6.16", "v6.17" } },
	{ "lifecycle.altra.mprotect_none_to_rw_page", PTSIM_CPU_NEOVERSE_N1,
	  "mprotect PROT_NONE -> RW, one 4K page per call, over 4 MiB",
	  setup_prot_none, measure_none_to_rw, 0, { "v6.18", "v6.19" } },
	{ "lifecycle.m3.mprotect_none_to_rw_page", PTSIM_CPU_APPLE_M3,
	  "mprotect PROT_NONE -> RW, one 4K page per call, over 4 MiB",
	  setup_prot_none, measure_none_to_rw, 0, { "v6.18", "v6.19" } },
	{ "lifecycle.altra.pageout_lazyfree_1g_64k", PTSIM_CPU_NEOVERSE_N1,
	  "MADV_PAGEOUT of 1 GiB of MADV_FREE'd 64K mTHP (lazyfree, discarded)",
	  setup_lazyfree_64k, measure_pageout, 0, { "v6.10", "v6.16" } },
	{ "lifecycle.v2.pageout_lazyfree_1g_64k", PTSIM_CPU_NEOVERSE_V2,
	  "the same on a CPU with range TLBIs",
	  setup_lazyfree_64k, measure_pageout, 0, { "v6.10", "v6.16" } },
};

/* Run one workload on one kernel: the measured part's counts and predicted time. */
static int run_variant(const struct workload *w, const char *preset, struct ptsim_stats *st,
		       double *ns)
{
	struct ptsim_machine_config cfg;
	struct ptsim_machine *m;
	struct ptsim_mm *mm;
	struct ptsim_stats s0, s1;
	struct ptsim_prediction p;
	int err;

	ptsim_machine_config_init(&cfg);
	cfg.cpu = w->cpu;
	cfg.preset = preset;
	cfg.phys_size = 4 * GIB;
	err = ptsim_machine_create(&cfg, &m);
	if (err)
		return err;
	err = ptsim_mm_create(m, &mm);
	if (!err && w->setup)
		err = w->setup(mm, w->arg);
	ptsim_total_stats(m, &s0);
	if (!err)
		err = w->measured(mm, w->arg);
	ptsim_total_stats(m, &s1);
	memset(st, 0, sizeof(*st));
	for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++)
		st->ev[e] = s1.ev[e] - s0.ev[e];
	if (!err)
		err = ptsim_predict(w->cpu, PTSIM_GRANULE_4K, st, &p);
	*ns = p.total_ns;
	ptsim_machine_destroy(m);
	return err;
}

int cmd_predict(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "only", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *only = NULL;
	bool json = false, first = true;
	int c;

	opterr = 0;
	optind = 0;	/* a fresh scan of this command's arguments (glibc) */
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = true; break;
		case 'o': only = optarg; break;
		case 'h': return command_usage("predict", stdout);
		default:
			fprintf(stderr, "ptsim-bench predict: unknown option %s\n", argv[optind - 1]);
			return command_usage("predict", stderr);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "ptsim-bench predict: unexpected argument %s\n", argv[optind]);
		return command_usage("predict", stderr);
	}
	if (json)
		printf("[\n");
	else
		printf("%-42s %-12s %-14s %12s %9s\n", "id", "cpu", "kernel", "time (ms)", "speed-up");
	for (size_t i = 0; i < sizeof(workloads) / sizeof(workloads[0]); i++) {
		const struct workload *w = &workloads[i];
		double before = 0;

		if (only && strncmp(w->id, only, strlen(only)))
			continue;
		progress("simulating %s", w->id);
		if (json) {
			printf("%s  {\"id\": ", first ? "" : ",\n");
			json_string(w->id);
			printf(", \"role\": \"prediction\", \"published\": null, \"cpu\": ");
			json_string(ptsim_cpu_name(w->cpu));
			printf(", \"workload\": ");
			json_string(w->what);
			printf(", \"variants\": [");
		}
		first = false;
		for (unsigned int v = 0; v < 4 && w->variants[v]; v++) {
			struct ptsim_stats st;
			double ns;
			int err = run_variant(w, w->variants[v], &st, &ns);

			if (err) {
				fprintf(stderr, "ptsim-bench predict: %s on %s failed (%d)\n", w->id,
					w->variants[v], err);
				return 1;
			}
			if (!v)
				before = ns;
			if (json)
				printf("%s{\"kernel\": \"%s\", \"ns\": %.6g, \"speedup_vs_first\": %.6g}",
				       v ? ", " : "", w->variants[v], ns, before / ns);
			else
				printf("%-42s %-12s %-14s %12.3f %9.3f\n", v ? "" : w->id,
				       v ? "" : ptsim_cpu_name(w->cpu), w->variants[v], ns / 1e6,
				       before / ns);
		}
		if (json)
			printf("]}");
	}
	if (json)
		printf("\n]\n");
	else
		printf("\nPredictions only: no constant is fitted on these rows and none has a "
		       "published value.\nKernels: v6.8 has no contpte (CONFIG_ARM64_CONTPTE came "
		       "with v6.9); v6.9-midpoint is v6.9's core-mm\nbatching without contpte (v6.9 "
		       "built with CONFIG_ARM64_CONTPTE=n).\n"
		       "Workloads: doc/workloads.md (lifecycle).\n");
	return 0;
}
