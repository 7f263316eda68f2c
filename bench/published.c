// SPDX-License-Identifier: MIT
/*
 * Published results the model reproduces: values and sources only. Simulated
 * values never come from here; bench/rows.c runs the model for each id.
 */
#include "rows.h"

#define MPROTECT_SRC "mprotect large folios v3/v4, 2025-05-19/06-28"
#define MPROTECT_CITE "Dev Jain, [PATCH v4 0/4] Optimize mprotect() for large folios, 28 Jun 2025, " \
	"<20250628113435.46678-1-dev.jain@arm.com>; same times in v3, 19 May 2025 " \
	"(spec/mprotect-contpte.md §6). Whole-process seconds on an Apple M3, 4K pages."

const struct published published_rows[] = {
	{ "mprotect.m3.t1_speedup", MPROTECT_SRC, MPROTECT_CITE, "apple-m3",
	  "T1 time before/after (7.9 s / 2.1 s)", 7.9 / 2.1, 15, 0, 0 },
	{ "mprotect.m3.t2_speedup", MPROTECT_SRC, MPROTECT_CITE, "apple-m3",
	  "T2 time before/after (7.9 s / 2.2 s)", 7.9 / 2.2, 15, 0, 0 },
	{ "mprotect.m3.t3_speedup", MPROTECT_SRC, MPROTECT_CITE, "apple-m3",
	  "T3 time before/after (4.2 s / 4.3 s)", 4.2 / 4.3, 15, 0, 0 },
	{ "mprotect.m3.t1_over_t3_before", MPROTECT_SRC, MPROTECT_CITE, "apple-m3",
	  "before: T1 time / T3 time (7.9 s / 4.2 s)", 7.9 / 4.2, 15, 0, 0 },
};

const unsigned int nr_published_rows = sizeof(published_rows) / sizeof(published_rows[0]);
