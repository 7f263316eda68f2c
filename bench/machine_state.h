/* SPDX-License-Identifier: MIT */
/*
 * The machine's state before a workload (issue 43): where each replay's page
 * frames come from and what its caches hold between calls, with the
 * publication's reason, from one table (bench/machine_state.c). The
 * programs that replay the rows set their machines from it; reproduce
 * --detail, predict and the JSON of both print it.
 */
#ifndef PTSIM_BENCH_MACHINE_STATE_H
#define PTSIM_BENCH_MACHINE_STATE_H

#include <ptsim/ptsim.h>

struct machine_state {
	const char *family;		/* the ids it holds for start with this */
	enum ptsim_phys_order phys;
	enum ptsim_cache_state caches;
	const char *why;		/* why the replay picks it: the publication's setting */
};

/* The state of the row (or program family) id, or NULL when the table has none. */
const struct machine_state *machine_state_of(const char *id);
/*
 * m set as id's state says (seed for a fragmented or shuffled order): 0, or
 * -ENOENT when the table has no state for id, or ptsim's error.
 */
int machine_state_apply(struct ptsim_machine *m, const char *id, uint64_t seed);
/* "machine: FRAMES, caches CACHES: WHY" wrapped at 80 columns, indented; nothing without a state. */
void print_machine_state(const char *id, unsigned int indent);
/* `, "machine": {"phys": ..., "caches": ..., "why": ...}` (null without a state). */
void print_machine_state_json(const char *id);

#endif
