// SPDX-License-Identifier: MIT
/*
 * The published mprotect benchmark (doc/workloads.md §mprotect) on the model:
 * mmap 1 GiB anonymous at 1 GiB, memset it (T1: PMD THPs, then every PMD split
 * to PTEs as the MADV_DONTFORK/DOFORK loop does; T2: 64K mTHP; T3: 4K),
 * explicit_bzero it, then 40 x { mprotect RO; mprotect RW; bzero 1 GiB }, on an
 * Apple M3 with 4K pages. Before = no batching; after = "mprotect PTE
 * batching". The contpte gather is the pre-v6.17 full scan in both: the series
 * was measured on v6.15-era trees (v1 April, v4 June 2025) before the
 * early-exit gather reached arm64 for-next (3 July 2025).
 */
#include "rows.h"

#include <string.h>

#define GIB (UINT64_C(1) << 30)
#define ITERATIONS 40

int mprotect_state_create(enum mprotect_state state, bool batching, struct ptsim_machine **mp,
			  struct ptsim_mm **mmp)
{
	struct ptsim_machine_config cfg;
	struct ptsim_machine *m;
	struct ptsim_mm *mm;
	const unsigned int order[NR_STATES] = { 9, 4, 0 };
	int err;

	ptsim_machine_config_init(&cfg);
	cfg.cpu = PTSIM_CPU_APPLE_M3;
	cfg.phys_size = 2 * GIB;
	err = ptsim_machine_create(&cfg, &m);
	if (err)
		return err;
	ptsim_feature_set(m, PTSIM_FEAT_MPROTECT_PTE_BATCHING, batching);
	err = ptsim_mm_create(m, &mm);
	if (!err)
		err = ptsim_mmap(mm, GIB, GIB, PTSIM_PROT_READ | PTSIM_PROT_WRITE,
				 PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL);
	if (!err)
		err = ptsim_populate(mm, GIB, GIB, order[state], true);	/* memset */
	if (!err && state == STATE_T1)
		err = ptsim_split_huge_pmd(mm, GIB, GIB);
	if (err) {
		ptsim_machine_destroy(m);
		return err;
	}
	*mp = m;
	*mmp = mm;
	return 0;
}

static int program(enum mprotect_state state, bool batching, struct program_run *out)
{
	struct ptsim_machine *m;
	struct ptsim_mm *mm;
	struct ptsim_prediction p;
	const unsigned int rw = PTSIM_PROT_READ | PTSIM_PROT_WRITE;
	int err = mprotect_state_create(state, batching, &m, &mm);

	if (err)
		return err;
	if (!err)
		err = ptsim_touch(mm, 0, GIB, GIB, PTSIM_ACCESS_WRITE, NULL);	/* explicit_bzero */
	for (int i = 0; !err && i < ITERATIONS; i++) {
		err = ptsim_mprotect(mm, GIB, GIB, PTSIM_PROT_READ);
		if (!err)
			err = ptsim_mprotect(mm, GIB, GIB, rw);
		if (!err)
			err = ptsim_touch(mm, 0, GIB, GIB, PTSIM_ACCESS_WRITE, NULL);
	}
	if (!err)
		err = ptsim_total_stats(m, &out->stats);
	if (!err)
		err = ptsim_predict(PTSIM_CPU_APPLE_M3, PTSIM_GRANULE_4K, &out->stats, &p);
	out->seconds = p.total_ns / 1e9;
	ptsim_machine_destroy(m);
	return err;
}

/* Runs are deterministic, so each (state, batching) pair is simulated once per process. */
int mprotect_program(enum mprotect_state state, bool batching, struct program_run *out)
{
	static struct program_run cache[NR_STATES][2];
	static bool done[NR_STATES][2];
	static const char *const names[NR_STATES] = { "T1", "T2", "T3" };

	if (!done[state][batching]) {
		int err;

		progress("simulating the mprotect program, %s, %s batching", names[state],
			 batching ? "with" : "without");
		err = program(state, batching, &cache[state][batching]);
		if (err)
			return err;
		done[state][batching] = true;
	}
	*out = cache[state][batching];
	return 0;
}

int mprotect_rows(const struct published *row, struct row_result *out)
{
	struct program_run a, b;
	enum mprotect_state sa, sb;
	bool batch_a, batch_b;
	int err;

	if (!strcmp(row->id, "mprotect.m3.t1_over_t3_before")) {
		sa = STATE_T1, batch_a = false, sb = STATE_T3, batch_b = false;
		out->before_label = "T1 before", out->after_label = "T3 before";
	} else {
		sa = sb = !strcmp(row->id, "mprotect.m3.t1_speedup") ? STATE_T1 :
			  !strcmp(row->id, "mprotect.m3.t2_speedup") ? STATE_T2 : STATE_T3;
		batch_a = false, batch_b = true;
		out->before_label = "before", out->after_label = "after (PTE batching)";
	}
	err = mprotect_program(sa, batch_a, &a);
	if (!err)
		err = mprotect_program(sb, batch_b, &b);
	if (err)
		return err;
	out->simulated = a.seconds / b.seconds;
	out->have_detail = true;
	out->granule = PTSIM_GRANULE_4K;
	out->before = a.stats;
	out->after = b.stats;
	return 0;
}
