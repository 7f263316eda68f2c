// SPDX-License-Identifier: MIT
/*
 * ptsim-bench fit: solve the fitted profile constants from the rows they are
 * fitted on, from counts the model produces. Time is linear in each class
 * constant, so two constants fitted on two rows are one 2x2 linear system.
 * The values printed are what arch/arm64/costs.c carries, rounded.
 */
#include "rows.h"

#include <errno.h>
#include <math.h>
#include <string.h>

/* Time of a run split as T = rest + x * d(class_x) + y * d(class_y). */
struct split {
	double total, dx, dy;
};

static struct split split_of(const struct ptsim_stats *s, enum ptsim_cpu cpu, const char *cx,
			     const char *cy, double *x, double *y)
{
	struct split r = { 0, 0, 0 };

	for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++) {
		struct ptsim_cost c;
		double n = (double)s->ev[e];

		ptsim_cost_get(cpu, PTSIM_GRANULE_4K, (enum ptsim_event)e, &c);
		r.total += n * c.ns;
		if (!strcmp(c.klass, cx) && c.multiplier > 0) {
			r.dx += n * c.multiplier;
			*x = c.ns / c.multiplier;
		} else if (!strcmp(c.klass, cy) && c.multiplier > 0) {
			r.dy += n * c.multiplier;
			*y = c.ns / c.multiplier;
		}
	}
	return r;
}

/*
 * Apple M3: dsb_tlbi (ns) on mprotect.m3.t1_over_t3_before and the user
 * memset bandwidth on mprotect.m3.t1_speedup.
 */
static int fit_m3_mprotect(void)
{
	struct program_run t1b, t3b, t1a;
	double x = 0, y = 0;
	const double r1 = 7.9 / 4.2, r2 = 7.9 / 2.1;
	int err = mprotect_program(STATE_T1, false, &t1b);

	if (!err)
		err = mprotect_program(STATE_T3, false, &t3b);
	if (!err)
		err = mprotect_program(STATE_T1, true, &t1a);
	if (err)
		return err;
	struct split a = split_of(&t1b.stats, PTSIM_CPU_APPLE_M3, "dsb_tlbi", "user_write_kib", &x, &y);
	struct split b = split_of(&t3b.stats, PTSIM_CPU_APPLE_M3, "dsb_tlbi", "user_write_kib", &x, &y);
	struct split c = split_of(&t1a.stats, PTSIM_CPU_APPLE_M3, "dsb_tlbi", "user_write_kib", &x, &y);
	/* rest of each run without the two constants */
	double ra = a.total - x * a.dx - y * a.dy, rb = b.total - x * b.dx - y * b.dy;
	double rc = c.total - x * c.dx - y * c.dy;
	/* (ra + X da + Y ya) = r1 (rb + X db + Y yb); (ra + X da + Y ya) = r2 (rc + X dc + Y yc) */
	double a11 = a.dx - r1 * b.dx, a12 = a.dy - r1 * b.dy, b1 = r1 * rb - ra;
	double a21 = a.dx - r2 * c.dx, a22 = a.dy - r2 * c.dy, b2 = r2 * rc - ra;
	double det = a11 * a22 - a12 * a21;

	if (fabs(det) < 1e-9)
		return -EDOM;
	double X = (b1 * a22 - a12 * b2) / det, Y = (a11 * b2 - a21 * b1) / det;

	printf("apple-m3 dsb_tlbi       = %.1f ns   (fitted on mprotect.m3.t1_over_t3_before; now %.1f)\n",
	       X, x);
	printf("apple-m3 user_write_kib = %.3f ns/KiB = %.2f GB/s   (fitted on mprotect.m3.t1_speedup; "
	       "now %.2f GB/s)\n", Y, 1024.0 / Y, 1024.0 / y);
	return 0;
}

/*
 * Android phone: the folio_lookup class (vm_normal_folio with its struct page
 * reads) on uffd.android.normal_folio_share_before: share = n x / (rest + n x).
 */
static int fit_android_uffd(void)
{
	struct uffd_run_result b;
	double x = 0, unused = 0;
	int err = uffd_program(false, &b);

	if (err)
		return err;
	struct split s = split_of(&b.mpp, PTSIM_CPU_ANDROID_X1, "folio_lookup", "-", &x, &unused);
	double rest = s.total - x * s.dx, target = 0.20;
	double fitted = target * rest / ((1 - target) * s.dx);

	printf("android-x1 folio_lookup = %.1f ns   (fitted on uffd.android.normal_folio_share_before; "
	       "now %.1f)\n", fitted, x);
	return 0;
}

int cmd_fit(int argc, char **argv)
{
	(void)argv;
	if (argc > 1) {
		fprintf(stderr, "usage: ptsim-bench fit\n");
		return 2;
	}
	return fit_m3_mprotect() || fit_android_uffd() ? 1 : 0;
}
