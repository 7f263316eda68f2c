/* SPDX-License-Identifier: MIT */
/* reproduce --detail's sensitivity (bench/sensitivity.c): each price's share and weight. */
#ifndef PTSIM_BENCH_SENSITIVITY_H
#define PTSIM_BENCH_SENSITIVITY_H

#include "rows.h"

/* One cost class of the row's CPU that the row's counts pay for. */
struct price_sensitivity {
	const char *klass;
	double uncertainty;		/* relative, from the profile (ptsim_cost) */
	const char *uncertainty_source;
	double before_share, after_share;	/* of the row's before and after totals */
	/* the row's result simulated again with the price at (1 - u) and (1 + u) times its own */
	double result_minus, result_plus;
};

/*
 * For row (simulated as res), every priced class its counts use, the
 * largest share first: at most max of them in out. The count, or a
 * negative errno (the prices are back to the profile's on return).
 */
int row_sensitivity(const struct published *row, const struct row_result *res,
		    struct price_sensitivity *out, unsigned int max);

#endif
