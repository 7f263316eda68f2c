/* SPDX-License-Identifier: MIT */
/*
 * The per-iteration prices of the kernel's PTE loops per CPU, from the
 * kernel's own machine code (doc/loop-prices.md): the table the build
 * generates from arch/arm64/hw/loop-prices.json.
 */
#ifndef PTSIM_HW_LOOP_PRICES_H
#define PTSIM_HW_LOOP_PRICES_H

#include <ptsim/cost.h>

struct loop_price_row {
	const char *cpu;	/* ptsim_cpu_info's name */
	const char *loop;
	const char *variant;
	double cycles;
	int latency;
	int instructions;
	int uops;
	int atomics;		/* LSE atomics on the path: not in the price, counted apart */
	const char *model;
	const char *provenance;
};

extern const struct loop_price_row loop_price_rows[];
extern const unsigned int loop_price_nr_rows;
/* loop_price_rows' indices in (cpu, loop, variant) order by strcmp, for a binary search */
extern const unsigned short loop_price_sorted[];

/* The row of fn's variant on cpu (a ptsim_cpu_info name): NULL when there is none. */
const struct loop_price_row *loop_price_row_of(const char *cpu, const char *fn, const char *variant);

/* A CPU's out-of-order window as its loop prices were priced with, and where it comes from. */
struct loop_window_row {
	const char *cpu;
	int rob;		/* reorder-buffer entries */
	const char *source;
};

extern const struct loop_window_row loop_window_rows[];
extern const unsigned int loop_window_nr_rows;

/*
 * The k-th event a turn of path holds in its price and how many of it a turn
 * counts (arch/arm64/hw/overlap.c): 0, or -ENOENT past the last.
 */
int loop_path_cover(enum ptsim_loop path, unsigned int k, enum ptsim_event *ev,
		    unsigned int *per_turn);

/*
 * The k-th event that counts an atomic on path's instructions (priced apart:
 * llvm-mca 19 has no data for LSE atomics), and how many of it a turn holds:
 * 0, or -ENOENT past the last.
 */
int loop_path_atomics(enum ptsim_loop path, unsigned int k, enum ptsim_event *ev,
		      unsigned int *per_turn);

/*
 * The k-th call priced by its callee's body (arch/arm64/hw/overlap.c): the
 * event that counts the calls, and the body's function and variant in the
 * loop prices; 0, or -ENOENT past the last.
 */
int priced_call(unsigned int k, enum ptsim_event *ev, const char **function,
		const char **variant);

/*
 * The k-th event a priced call's body holds besides the call's own event,
 * and how many of it a call counts: 0, or -ENOENT past the last.
 */
int priced_call_cover(unsigned int call, unsigned int k, enum ptsim_event *ev,
		      unsigned int *per_call);

#endif
