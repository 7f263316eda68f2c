/* SPDX-License-Identifier: MIT */
/*
 * The per-iteration prices of the kernel's PTE loops per CPU, from the
 * kernel's own machine code (doc/loop-prices.md): the table the build
 * generates from arch/arm64/hw/loop-prices.json.
 */
#ifndef PTSIM_HW_LOOP_PRICES_H
#define PTSIM_HW_LOOP_PRICES_H

struct loop_price_row {
	const char *cpu;	/* ptsim_cpu_info's name */
	const char *loop;
	const char *variant;
	double cycles;
	int latency;
	int instructions;
	int uops;
	const char *model;
	const char *provenance;
};

extern const struct loop_price_row loop_price_rows[];
extern const unsigned int loop_price_nr_rows;

#endif
