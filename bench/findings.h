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
	bool check;			/* check the invariants (findings_hook) */
	/*
	 * Check after every operation, in loops too (the audit). Otherwise
	 * (run): after each operation outside a loop and after each outermost
	 * loop as a whole, which keeps long loops fast.
	 */
	bool every_op;
	bool loop_ran;			/* an operation in a loop ran since the last check */
	bool keep_warn;			/* list the kernel's WARN_ONs too (run), not only count them */
	unsigned int nr;
	unsigned int unlisted;		/* distinct findings past FINDINGS_MAX: counted, not kept */
	uint64_t total[PTSIM_DIAG__COUNT];	/* every diagnostic, per kind */
	enum ptsim_diag_kind kinds[FINDINGS_MAX];
	uint64_t hits[FINDINGS_MAX];	/* how often each distinct finding was reported */
	uint64_t va[FINDINGS_MAX];	/* where it was first reported */
	int level[FINDINGS_MAX];
	size_t first_op[FINDINGS_MAX];	/* the operation in progress when it was first reported */
	char keys[FINDINGS_MAX][192];
	char msgs[FINDINGS_MAX][256];
};

/* Start collecting for a run of s, checking the invariants after every operation. */
void findings_reset(struct findings *f, const struct scenario *s);
/*
 * Start collecting for a run or sweep of s as a user reads it: the kernel's
 * WARN_ONs listed too, the invariants (when check) checked after each
 * operation outside a loop and after each outermost loop.
 */
void findings_reset_for_user(struct findings *f, const struct scenario *s, bool check);
/* Every diagnostic of the run, all kinds. */
uint64_t findings_total(const struct findings *f);
/* The diagnostic handler (arg: the struct findings). */
void findings_diag(const struct ptsim_diag *d, void *arg);
/*
 * The scenario hook: the invariants checked after operations (unless
 * !f->check; see every_op). op == f->s->nr: the end of the run.
 */
void findings_hook(void *arg, struct ptsim_machine *m, size_t op, bool after);
/* "invariant 3, bbm-violation 1", or "none", on standard output. */
void print_diag_counts(const struct findings *f);
/*
 * The diagnostics: line and each distinct finding once, labelled (run's
 * CPU, granule and kernel); checked: whether the invariants were checked.
 */
void print_findings_text(const struct findings *f, const char *label, bool checked);
/* ", \"diagnostics\": {...}, \"findings\": [...], \"findings_unlisted\": N" of a run's JSON. */
void print_findings_json(const struct findings *f);

#endif
