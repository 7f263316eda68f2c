// SPDX-License-Identifier: MIT
/*
 * ptsim-bench fit: solve the fitted profile constants (and the mprotect
 * program's iteration count) from the rows they are fitted on, from counts
 * the model produces. Time is linear in each class constant, so two constants
 * fitted on two rows are one 2x2 linear system. The values printed are what
 * arch/arm64/hw/costs.c and bench/mprotect_program.c carry, rounded.
 */
#include "rows.h"

#include <errno.h>
#include <math.h>
#include <string.h>

/* A run's predicted time, and how much of it scales with one class constant x: T = rest + x d. */
struct split {
	double total, d;
};

static struct split class_split(const struct ptsim_stats *s, enum ptsim_cpu cpu,
				enum ptsim_granule granule, const char *klass, double *x)
{
	struct split r = { 0, 0 };

	for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++) {
		struct ptsim_cost c;
		double n = (double)s->ev[e];

		ptsim_cost_get(cpu, granule, (enum ptsim_event)e, &c);
		r.total += n * c.ns;
		if (!strcmp(c.klass, klass) && c.multiplier > 0) {
			r.d += n * c.multiplier;
			*x = c.ns / c.multiplier;
		}
	}
	return r;
}

/* The three runs the M3 fit uses, at n iterations. */
struct m3_runs {
	struct mprotect_phases t1b, t3b, t1a;
};

/* A run at n iterations as rest + X dx + Y dy, X = dsb_tlbi ns, Y = user_write_kib ns. */
struct linear_time {
	double rest, dx, dy;
};

static struct linear_time m3_time(const struct mprotect_phases *p, double n, double *x, double *y)
{
	const enum ptsim_cpu M3 = PTSIM_CPU_APPLE_M3;
	const enum ptsim_granule G = PTSIM_GRANULE_4K;
	struct ptsim_stats s;

	mprotect_total(p, n, &s);
	struct split d = class_split(&s, M3, G, "dsb_tlbi", x);
	struct split u = class_split(&s, M3, G, "user_write_kib", y);

	return (struct linear_time){ d.total - *x * d.d - *y * u.d, d.d, u.d };
}

/*
 * At n iterations, X and Y from the two ratios (a 2x2 linear system):
 * T1b = r1 T3b (mprotect.m3.t1_over_t3_before), T1b = r2 T1a
 * (mprotect.m3.t1_speedup). Returns T1b in ns with them, or -1.
 */
static double m3_solve(const struct m3_runs *r, double n, double *X, double *Y, double *x,
		       double *y)
{
	const double r1 = 7.9 / 4.2, r2 = 7.9 / 2.1;
	struct linear_time a = m3_time(&r->t1b, n, x, y), b = m3_time(&r->t3b, n, x, y);
	struct linear_time c = m3_time(&r->t1a, n, x, y);
	double a11 = a.dx - r1 * b.dx, a12 = a.dy - r1 * b.dy, b1 = r1 * b.rest - a.rest;
	double a21 = a.dx - r2 * c.dx, a22 = a.dy - r2 * c.dy, b2 = r2 * c.rest - a.rest;
	double det = a11 * a22 - a12 * a21;

	if (fabs(det) < 1e-9)
		return -1;
	*X = (b1 * a22 - a12 * b2) / det;
	*Y = (a11 * b2 - a21 * b1) / det;
	return a.rest + *X * a.dx + *Y * a.dy;
}

/*
 * Apple M3: dsb_tlbi (ns) on mprotect.m3.t1_over_t3_before, the user memset
 * bandwidth on mprotect.m3.t1_speedup and the loop's iteration count on
 * mprotect.m3.t1_before_seconds (7.9 s): for each count the two constants
 * solve the ratios; the count is the one whose T1-before time is 7.9 s
 * (bisection; the time grows with the count).
 */
static int fit_m3_mprotect(void)
{
	struct m3_runs r;
	double X, Y, x = 0, y = 0, lo = 1, hi = 4000;
	int err = mprotect_phases(STATE_T1, false, &r.t1b);

	if (!err)
		err = mprotect_phases(STATE_T3, false, &r.t3b);
	if (!err)
		err = mprotect_phases(STATE_T1, true, &r.t1a);
	if (err)
		return err;
	if (m3_solve(&r, lo, &X, &Y, &x, &y) > 7.9e9 || m3_solve(&r, hi, &X, &Y, &x, &y) < 7.9e9)
		return -EDOM;
	for (int i = 0; i < 60; i++) {
		double mid = (lo + hi) / 2;

		if (m3_solve(&r, mid, &X, &Y, &x, &y) < 7.9e9)
			lo = mid;
		else
			hi = mid;
	}
	double n = floor(lo + 0.5);

	if (m3_solve(&r, n, &X, &Y, &x, &y) < 0 || X <= 0 || Y <= 0)
		return -EDOM;
	printf("mprotect iterations     = %.0f   (%.2f before rounding; fitted on "
	       "mprotect.m3.t1_before_seconds; now %u)\n", n, lo, mprotect_iterations());
	printf("apple-m3 dsb_tlbi       = %.1f ns   (fitted on mprotect.m3.t1_over_t3_before; now %.1f)\n",
	       X, x);
	printf("apple-m3 user_write_kib = %.3f ns/KiB = %.2f GB/s   (fitted on mprotect.m3.t1_speedup; "
	       "now %.2f GB/s)\n", Y, 1024.0 / Y, 1024.0 / y);
	return 0;
}

int cmd_fit(int argc, char **argv)
{
	bool json;
	int parsed = parse_json_option("fit", argc, argv, &json);

	if (parsed)
		return parsed < 0 ? 0 : parsed;
	/*
	 * The Grace walk constant is no longer fitted: the walk's leaf is priced
	 * by the data-cache model (issue 28), and exec.grace.random_speedup is a
	 * prediction.
	 */
	return fit_m3_mprotect() ? 1 : 0;
}
