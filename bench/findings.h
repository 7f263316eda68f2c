/* SPDX-License-Identifier: MIT */
/*
 * The audit's findings of one scenario run: break-before-make, TLB-conflict
 * and invariant diagnostics, each keyed by the kernel call chain that made
 * the write and what it changed (or, for an invariant, the operation after
 * which it broke). Shared by `ptsim-bench audit` and `ptsim-bench run
 * --findings`, so that a reproducer the audit prints is checked by the same
 * key when it is run again (doc/scenario.md, "Audit").
 */
#ifndef PTSIM_BENCH_FINDINGS_H
#define PTSIM_BENCH_FINDINGS_H

#include "scenario.h"

#define FINDINGS_MAX 16

struct findings {
	const struct scenario *s;	/* the scenario being run */
	size_t op;			/* the operation in progress */
	unsigned int nr;
	enum ptsim_diag_kind kinds[FINDINGS_MAX];
	char keys[FINDINGS_MAX][192];
	char msgs[FINDINGS_MAX][96];
};

/* Start collecting for a run of s. */
void findings_reset(struct findings *f, const struct scenario *s);
/* The diagnostic handler (arg: the struct findings). */
void findings_diag(const struct ptsim_diag *d, void *arg);
/* The scenario hook: the invariants checked after every operation. */
void findings_hook(void *arg, struct ptsim_machine *m, size_t op, bool after);

#endif
