/* SPDX-License-Identifier: MIT */
/* ptsim-bench fit (bench/fit.c): the fitted constants, jointly, and leave-one-out. */
#ifndef PTSIM_BENCH_FIT_H
#define PTSIM_BENCH_FIT_H

#include "rows.h"

#define FIT_MAX_PARAMS 16
#define FIT_MAX_ROWS 16

/* One fitted constant: a CPU's class constant, or the mprotect iteration count (klass NULL). */
struct fit_param {
	char name[64];		/* "apple-m3 dsb_tlbi", "mprotect iterations" */
	enum ptsim_cpu cpu;
	const char *klass;
	const char *fitted_on;
	double carried;		/* ns per class unit as carried, or the iteration count */
	double fitted;		/* the joint fit (a count: rounded, the others fitted again with it) */
	double unrounded;	/* a count before rounding */
	double loo_spread;	/* largest relative move over the leave-one-out fits; < 0: none */
};

/* One row a constant is fitted on. */
struct fit_row {
	const struct published *row;
	double published;	/* the value fitted to (fit --published may replace it) */
	double carried_pct;	/* error at the carried constants (reproduce's in-sample error) */
	double fit_pct;		/* error at the joint fit */
	bool loo_identified;	/* the other rows determine what this row depends on */
	double loo_pct;		/* error of the row predicted from a fit without it */
	unsigned int loo_unknowns, loo_rows;	/* the left-out fit's size */
};

struct fit_report {
	unsigned int nparams, nrows;
	bool unidentified;	/* the rows do not determine the constants: nothing fitted */
	struct fit_param p[FIT_MAX_PARAMS];
	struct fit_row r[FIT_MAX_ROWS];
};

/*
 * The joint fit and leave-one-out of the constants fitted on cpu's rows
 * (every CPU when cpu is NULL). The prices and the iteration count are
 * back to the carried ones on return. 0, or a negative errno.
 */
int fit_solve(struct fit_report *f, const char *cpu);
/* The report's row id, or NULL. */
const struct fit_row *fit_row_of(const struct fit_report *f, const char *id);
/* Fit to value instead of row id's published one (what-if; the tests' check of leave-one-out). */
int fit_set_published(const char *id, double value);

#endif
