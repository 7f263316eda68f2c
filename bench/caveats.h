/* SPDX-License-Identifier: MIT */
/*
 * Caveats: the documented limitations of the model that a figure rests on,
 * printed under the figure (reproduce and predict rows, run comparisons) and
 * carried in its JSON. One table (bench/caveats.c) says which figures each
 * applies to; each text names the doc/ section that documents it.
 */
#ifndef PTSIM_BENCH_CAVEATS_H
#define PTSIM_BENCH_CAVEATS_H

#include <stdbool.h>

/*
 * The i-th caveat of the figure with this row id (NULL: a run, which has
 * none) and these kernels (feature specs; NULL when none), or NULL past the
 * last.
 */
const char *caveat(const char *id, const char *const *kernels, unsigned int nr_kernels,
		   unsigned int i);
/* Each as "caveat: TEXT" wrapped at 80 columns, indented by indent spaces. */
void print_caveats(const char *id, const char *const *kernels, unsigned int nr_kernels,
		   unsigned int indent);
/*
 * Under a table of rows: each caveat that applies to one or more of the ids,
 * once, as "caveat (PATTERN): TEXT" (the table's pattern of ids).
 */
void print_caveats_of_rows(const char *const *ids, unsigned int nr_ids, unsigned int indent);
/* `, "caveats": [...]` (every figure has the member, [] when none). */
void print_caveats_json(const char *id, const char *const *kernels, unsigned int nr_kernels);

#endif
