// SPDX-License-Identifier: MIT
/*
 * reproduce --detail's sensitivity: for each price (cost class) a row's
 * counts pay for, its share of the row's before and after totals, and how
 * far the row's result moves when that price alone moves by its documented
 * uncertainty (ptsim_cost.uncertainty, doc/cpu-profiles.md §12). The move
 * is not derived from the shares: the row is simulated again through its
 * own row function with that class re-priced (cost_class_scale), so a
 * ratio, a share or an absolute time each moves as it really does.
 */
#include "sensitivity.h"
#include "core.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int by_price_share(const void *a, const void *b)
{
	const struct price_sensitivity *x = a, *y = b;
	double sx = x->before_share + x->after_share, sy = y->before_share + y->after_share;

	return sx < sy ? 1 : sx > sy ? -1 : strcmp(x->klass, y->klass);
}

/* The row's result with klass priced at factor times the profile's. */
static int rerun(const struct published *row, enum ptsim_cpu cpu, const char *klass, double factor,
		 double *result)
{
	row_sim_fn sim = row_simulation(row->id);
	struct row_result res;
	int err = sim ? cost_class_scale(cpu, klass, factor) : -ENOENT;

	if (!err)
		err = sim(row, &res);
	cost_class_scale_reset();
	if (!err)
		*result = res.simulated;
	return err;
}

int row_sensitivity(const struct published *row, const struct row_result *res,
		    struct price_sensitivity *out, unsigned int max)
{
	struct ptsim_overlap_prediction pb, pa;
	enum ptsim_cpu cpu;
	unsigned int n = 0;
	int err;

	if (!row || !res || !out || !res->have_detail || ptsim_cpu_lookup(row->cpu, &cpu))
		return -EINVAL;
	err = ptsim_predict_overlap(cpu, res->granule, &res->before, &res->before_loops, &pb);
	if (!err)
		err = ptsim_predict_overlap(cpu, res->granule, &res->after, &res->after_loops, &pa);
	if (err)
		return err;
	for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++) {
		struct ptsim_cost c;
		unsigned int i;

		if (!pb.event_ns[e] && !pa.event_ns[e])
			continue;
		err = ptsim_cost_get(cpu, res->granule, (enum ptsim_event)e, &c);
		if (err)
			return err;
		for (i = 0; i < n && strcmp(out[i].klass, c.klass); i++)
			;
		if (i == n) {
			if (n == max)
				return -E2BIG;
			memset(&out[n], 0, sizeof(out[n]));
			out[n].klass = c.klass;
			out[n].uncertainty = c.uncertainty;
			out[n].uncertainty_source = c.uncertainty_source;
			n++;
		}
		out[i].before_share += pb.total_ns > 0 ? pb.event_ns[e] / pb.total_ns : 0;
		out[i].after_share += pa.total_ns > 0 ? pa.event_ns[e] / pa.total_ns : 0;
	}
	for (unsigned int i = 0; i < n; i++) {
		double u = out[i].uncertainty;

		/* an uncertainty of 100 % or more: the price at a thousandth of its value */
		err = rerun(row, cpu, out[i].klass, u < 1 ? 1 - u : 1e-3, &out[i].result_minus);
		if (!err)
			err = rerun(row, cpu, out[i].klass, 1 + u, &out[i].result_plus);
		if (err)
			return err;
	}
	qsort(out, n, sizeof(out[0]), by_price_share);
	return (int)n;
}
