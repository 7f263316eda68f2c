/* SPDX-License-Identifier: MIT */
/*
 * ptsim-bench run with two or more kernels or CPUs: the counts of one
 * checkpoint of two runs compared event by event, as `perf diff` compares two
 * profiles (doc/scenario.md, "Comparisons").
 */
#ifndef PTSIM_BENCH_RUN_DIFF_H
#define PTSIM_BENCH_RUN_DIFF_H

#include <stdbool.h>
#include <ptsim/ptsim.h>

/* Events a comparison lists by default, the largest share of time first (run --events). */
#define RUN_DIFF_TOP	10

/* One side of a comparison: what ran, on which CPU, and its counts. */
struct diff_side {
	const char *label;		/* "v6.8", or "apple-m3" */
	enum ptsim_cpu cpu;
	enum ptsim_granule granule;
	const struct ptsim_stats *stats;
	const struct ptsim_loop_stats *loops;	/* the loop turns behind them */
};

/*
 * The text table: each event whose count differs (all_events: each event
 * counted, for CPUs compared, where the counts are mostly the same), the
 * largest share of time first, at most top of them (0: all) and a line for
 * the rest, with the count before and after, the delta, the ratio (after /
 * before) and each side's share of its predicted time (composed:
 * ptsim_predict_overlap, an event's part after the loop prices took theirs);
 * then the events whose counts are equal on one line, the loop prices'
 * share, and the times with the speed-up (before / after). Two CPUs' runs
 * are labelled A and B, named above the table, not before and after. Fits 80
 * columns.
 */
void run_diff_text(const char *checkpoint, const struct diff_side *before,
		   const struct diff_side *after, bool all_events, unsigned int top);
/* The same as one JSON object, every event either side counted. */
void run_diff_json(const char *checkpoint, const struct diff_side *before,
		   const struct diff_side *after);

#endif
