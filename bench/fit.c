// SPDX-License-Identifier: MIT
/*
 * ptsim-bench fit: solve every fitted constant again, jointly, from the rows
 * it is fitted on, and cross-validate the fit by leaving each row out.
 *
 * Which constants are fitted is read from the profile data (a class whose
 * ptsim_cost says fitted_on, on any CPU) and from the mprotect program's
 * iteration count (mprotect_iterations_fitted_on): never from a list here.
 * The rows are the ones those constants name. A trial value is applied by
 * re-pricing (cost_class_scale, mprotect_iterations_set) and the rows are
 * simulated again through their own row functions (their counts are cached:
 * the cache decides prices only, so counts do not depend on the trial).
 *
 * The fit: Gauss-Newton on the rows' relative errors (simulated / published
 * - 1), over the logarithm of each constant (they stay positive), with a
 * Jacobian by finite differences. Leave-one-out: for each fit row, the
 * constants it depends on and every other row that depends on any of them
 * are fitted again without it, and the row is predicted with the result.
 * When the other rows do not determine those constants (fewer rows than
 * unknowns, or rows that cannot tell them apart) the row's leave-one-out
 * error is unidentified: no value is made up.
 */
#include "fit.h"
#include "core.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* fit --published ID=VALUE: the value the fit and leave-one-out use for that row */
static struct {
	const char *id;
	double value;
} published_override[FIT_MAX_ROWS];
static unsigned int nr_overrides;

int fit_set_published(const char *id, double value)
{
	if (!id || !(value > 0) || !isfinite(value) || nr_overrides == FIT_MAX_ROWS)
		return -EINVAL;
	for (unsigned int i = 0; i < nr_published_rows; i++) {
		if (!strcmp(published_rows[i].id, id)) {
			published_override[nr_overrides].id = published_rows[i].id;
			published_override[nr_overrides++].value = value;
			return 0;
		}
	}
	return -ENOENT;
}

static double published_value(const struct published *row)
{
	for (unsigned int i = nr_overrides; i-- > 0;)
		if (!strcmp(published_override[i].id, row->id))
			return published_override[i].value;
	return row->value;
}

/* Every fitted constant of the profiles of cpu (all CPUs when cpu is NULL), and the rows. */
static int discover(struct fit_report *f, const char *cpu)
{
	memset(f, 0, sizeof(*f));
	for (unsigned int c = 0; c < PTSIM_CPU__COUNT; c++) {
		const char *name = ptsim_cpu_name((enum ptsim_cpu)c);

		if (cpu && strcmp(cpu, name))
			continue;
		for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++) {
			struct ptsim_cost k;
			bool seen = false;

			if (ptsim_cost_get((enum ptsim_cpu)c, PTSIM_GRANULE_4K, (enum ptsim_event)e, &k) ||
			    !k.fitted_on || !(k.multiplier > 0))
				continue;
			for (unsigned int i = 0; i < f->nparams; i++)
				seen |= f->p[i].cpu == (enum ptsim_cpu)c && !strcmp(f->p[i].klass, k.klass);
			if (seen)
				continue;
			if (f->nparams == FIT_MAX_PARAMS)
				return -E2BIG;
			struct fit_param *p = &f->p[f->nparams++];

			snprintf(p->name, sizeof(p->name), "%s %s", name, k.klass);
			p->cpu = (enum ptsim_cpu)c;
			p->klass = k.klass;
			p->fitted_on = k.fitted_on;
			p->carried = k.ns / k.multiplier;
		}
	}
	/* the mprotect program's iteration count: a workload parameter fitted on an M3 row */
	if (!cpu || !strcmp(cpu, ptsim_cpu_name(PTSIM_CPU_APPLE_M3))) {
		if (f->nparams == FIT_MAX_PARAMS)
			return -E2BIG;
		struct fit_param *p = &f->p[f->nparams++];

		snprintf(p->name, sizeof(p->name), "mprotect iterations");
		p->cpu = PTSIM_CPU_APPLE_M3;
		p->klass = NULL;
		p->fitted_on = mprotect_iterations_fitted_on;
		p->carried = mprotect_iterations();
	}
	for (unsigned int i = 0; i < nr_published_rows; i++) {
		bool fitted = false;

		for (unsigned int k = 0; k < f->nparams; k++) {
			fitted |= !strcmp(f->p[k].fitted_on, published_rows[i].id);
			/* a joint-fit row of a CPU that has fitted constants */
			fitted |= published_rows[i].joint_fit &&
				  !strcmp(published_rows[i].cpu, ptsim_cpu_name(f->p[k].cpu));
		}
		if (!fitted)
			continue;
		if (f->nrows == FIT_MAX_ROWS)
			return -E2BIG;
		f->r[f->nrows].row = &published_rows[i];
		f->r[f->nrows++].published = published_value(&published_rows[i]);
	}
	return 0;
}

/* Price every constant at carried x exp(u). */
static int apply(const struct fit_report *f, const double *u)
{
	for (unsigned int k = 0; k < f->nparams; k++) {
		const struct fit_param *p = &f->p[k];

		if (!p->klass)
			mprotect_iterations_set(p->carried * exp(u[k]));
		else if (cost_class_scale(p->cpu, p->klass, exp(u[k])))
			return -EINVAL;
	}
	return 0;
}

/* Row i's relative error at u. */
static int residual(const struct fit_report *f, const double *u, unsigned int i, double *r)
{
	struct row_result res;
	row_sim_fn sim = row_simulation(f->r[i].row->id);
	int err = apply(f, u);

	if (!err)
		err = sim ? sim(f->r[i].row, &res) : -ENOENT;
	if (err)
		return err;
	*r = res.simulated / f->r[i].published - 1;
	return isfinite(*r) ? 0 : -EDOM;
}

#define STEP 1e-4	/* the finite difference, in log of a constant */

/* d r_i / d u_k for the rows in rows[] and the constants in cols[]. */
static int jacobian(const struct fit_report *f, double *u, const unsigned int *rows,
		    unsigned int nr, const unsigned int *cols, unsigned int nc,
		    double J[FIT_MAX_ROWS][FIT_MAX_PARAMS], double *r)
{
	for (unsigned int a = 0; a < nr; a++) {
		int err = residual(f, u, rows[a], &r[a]);

		if (err)
			return err;
	}
	for (unsigned int b = 0; b < nc; b++) {
		double keep = u[cols[b]];

		u[cols[b]] = keep + STEP;
		for (unsigned int a = 0; a < nr; a++) {
			double rp;
			int err = residual(f, u, rows[a], &rp);

			if (err) {
				u[cols[b]] = keep;
				return err;
			}
			J[a][b] = (rp - r[a]) / STEP;
		}
		u[cols[b]] = keep;
	}
	return 0;
}

/*
 * The rank of the nr x nc matrix (modified Gram-Schmidt on its columns,
 * a column counted when more than 1e-6 of its norm is new).
 */
static unsigned int rank_of(double J[FIT_MAX_ROWS][FIT_MAX_PARAMS], unsigned int nr, unsigned int nc)
{
	double q[FIT_MAX_PARAMS][FIT_MAX_ROWS];
	unsigned int rank = 0;

	for (unsigned int b = 0; b < nc; b++) {
		double v[FIT_MAX_ROWS], n0 = 0, n1 = 0;

		for (unsigned int a = 0; a < nr; a++) {
			v[a] = J[a][b];
			n0 += v[a] * v[a];
		}
		for (unsigned int k = 0; k < rank; k++) {
			double d = 0;

			for (unsigned int a = 0; a < nr; a++)
				d += q[k][a] * v[a];
			for (unsigned int a = 0; a < nr; a++)
				v[a] -= d * q[k][a];
		}
		for (unsigned int a = 0; a < nr; a++)
			n1 += v[a] * v[a];
		if (n0 > 0 && sqrt(n1) > 1e-6 * sqrt(n0)) {
			for (unsigned int a = 0; a < nr; a++)
				q[rank][a] = v[a] / sqrt(n1);
			rank++;
		}
	}
	return rank;
}

/* Solve the n x n system A x = b in place (partial pivoting); -EDOM when singular. */
static int solve(double A[FIT_MAX_PARAMS][FIT_MAX_PARAMS], double *b, unsigned int n)
{
	for (unsigned int c = 0; c < n; c++) {
		unsigned int piv = c;

		for (unsigned int r = c + 1; r < n; r++)
			if (fabs(A[r][c]) > fabs(A[piv][c]))
				piv = r;
		if (fabs(A[piv][c]) < 1e-300)
			return -EDOM;
		for (unsigned int k = 0; k < n; k++) {
			double t = A[c][k];

			A[c][k] = A[piv][k];
			A[piv][k] = t;
		}
		double t = b[c];

		b[c] = b[piv];
		b[piv] = t;
		for (unsigned int r = c + 1; r < n; r++) {
			double m = A[r][c] / A[c][c];

			for (unsigned int k = c; k < n; k++)
				A[r][k] -= m * A[c][k];
			b[r] -= m * b[c];
		}
	}
	for (unsigned int c = n; c-- > 0;) {
		for (unsigned int k = c + 1; k < n; k++)
			b[c] -= A[c][k] * b[k];
		b[c] /= A[c][c];
	}
	return 0;
}

/*
 * Least squares over the constants cols[] on the rows rows[] (the others
 * held at u): Gauss-Newton from u. -ERANGE when the rows do not determine
 * the constants.
 */
static int least_squares(const struct fit_report *f, double *u, const unsigned int *rows,
			 unsigned int nr, const unsigned int *cols, unsigned int nc)
{
	double J[FIT_MAX_ROWS][FIT_MAX_PARAMS], r[FIT_MAX_ROWS];

	if (nr < nc)
		return -ERANGE;
	for (int it = 0; it < 60; it++) {
		double A[FIT_MAX_PARAMS][FIT_MAX_PARAMS] = { { 0 } }, g[FIT_MAX_PARAMS] = { 0 }, step = 0;
		int err = jacobian(f, u, rows, nr, cols, nc, J, r);

		if (err)
			return err;
		if (it == 0 && rank_of(J, nr, nc) < nc)
			return -ERANGE;
		for (unsigned int i = 0; i < nc; i++) {
			for (unsigned int j = 0; j < nc; j++)
				for (unsigned int a = 0; a < nr; a++)
					A[i][j] += J[a][i] * J[a][j];
			for (unsigned int a = 0; a < nr; a++)
				g[i] -= J[a][i] * r[a];
		}
		if (solve(A, g, nc))
			return -ERANGE;
		for (unsigned int i = 0; i < nc; i++) {
			/* at most a factor e a step: the rows are far from linear in the count */
			double d = fmax(-1, fmin(1, g[i]));

			u[cols[i]] += d;
			step = fmax(step, fabs(d));
		}
		if (step < 1e-12)
			break;
	}
	return 0;
}

/* Which constants each row depends on (at u). */
static int dependencies(const struct fit_report *f, double *u, bool dep[FIT_MAX_ROWS][FIT_MAX_PARAMS])
{
	double J[FIT_MAX_ROWS][FIT_MAX_PARAMS], r[FIT_MAX_ROWS];
	unsigned int rows[FIT_MAX_ROWS], cols[FIT_MAX_PARAMS];
	int err;

	for (unsigned int i = 0; i < f->nrows; i++)
		rows[i] = i;
	for (unsigned int k = 0; k < f->nparams; k++)
		cols[k] = k;
	err = jacobian(f, u, rows, f->nrows, cols, f->nparams, J, r);
	for (unsigned int i = 0; !err && i < f->nrows; i++)
		for (unsigned int k = 0; k < f->nparams; k++)
			dep[i][k] = fabs(J[i][k]) > 1e-9;
	return err;
}

/* Leave row out: the constants it depends on, closed over the other rows that share them. */
static void closure(const struct fit_report *f, bool dep[FIT_MAX_ROWS][FIT_MAX_PARAMS],
		    unsigned int out, unsigned int *rows, unsigned int *nr, unsigned int *cols,
		    unsigned int *nc)
{
	bool in_p[FIT_MAX_PARAMS] = { false }, in_r[FIT_MAX_ROWS] = { false }, grew = true;

	for (unsigned int k = 0; k < f->nparams; k++)
		in_p[k] = dep[out][k];
	while (grew) {
		grew = false;
		for (unsigned int i = 0; i < f->nrows; i++) {
			bool shares = false;

			if (i == out || in_r[i])
				continue;
			for (unsigned int k = 0; k < f->nparams; k++)
				shares |= in_p[k] && dep[i][k];
			if (!shares)
				continue;
			in_r[i] = grew = true;
			for (unsigned int k = 0; k < f->nparams; k++)
				in_p[k] |= dep[i][k];
		}
	}
	*nr = *nc = 0;
	for (unsigned int i = 0; i < f->nrows; i++)
		if (in_r[i])
			rows[(*nr)++] = i;
	for (unsigned int k = 0; k < f->nparams; k++)
		if (in_p[k])
			cols[(*nc)++] = k;
}

/* Every row's error in percent with the constants at u: as carried, or as fitted. */
static int row_errors(struct fit_report *f, const double *u, bool fitted)
{
	for (unsigned int i = 0; i < f->nrows; i++) {
		double r;
		int err = residual(f, u, i, &r);

		if (err)
			return err;
		if (fitted)
			f->r[i].fit_pct = 100 * r;
		else
			f->r[i].carried_pct = 100 * r;
	}
	return 0;
}

static int fit_solve_inner(struct fit_report *f)
{
	double u[FIT_MAX_PARAMS] = { 0 }, fit[FIT_MAX_PARAMS];
	bool dep[FIT_MAX_ROWS][FIT_MAX_PARAMS];
	unsigned int rows[FIT_MAX_ROWS], cols[FIT_MAX_PARAMS], nr, nc;
	int err;

	/* the carried constants: the in-sample errors reproduce shows */
	err = row_errors(f, u, false);
	if (err)
		return err;
	for (unsigned int i = 0; i < f->nrows; i++)
		rows[i] = i;
	for (unsigned int k = 0; k < f->nparams; k++)
		cols[k] = k;
	err = least_squares(f, u, rows, f->nrows, cols, f->nparams);
	if (err == -ERANGE) {
		f->unidentified = true;
		return 0;
	}
	if (err)
		return err;
	/* a count is whole: round it, and fit the other constants again with it held */
	nc = 0;
	for (unsigned int k = 0; k < f->nparams; k++) {
		if (!f->p[k].klass) {
			f->p[k].unrounded = f->p[k].carried * exp(u[k]);
			u[k] = log(fmax(1, floor(f->p[k].unrounded + 0.5)) / f->p[k].carried);
		} else {
			cols[nc++] = k;
		}
	}
	if (nc < f->nparams && nc) {
		err = least_squares(f, u, rows, f->nrows, cols, nc);
		if (err)
			return err;
	}
	memcpy(fit, u, sizeof(fit));
	for (unsigned int k = 0; k < f->nparams; k++) {
		f->p[k].fitted = f->p[k].carried * exp(u[k]);
		if (!f->p[k].klass)
			f->p[k].fitted = floor(f->p[k].fitted + 0.5);
		f->p[k].loo_spread = -1;
	}
	err = row_errors(f, u, true);
	if (err)
		return err;
	err = dependencies(f, u, dep);
	if (err)
		return err;
	for (unsigned int i = 0; i < f->nrows; i++) {
		struct fit_row *row = &f->r[i];
		double r;

		closure(f, dep, i, rows, &nr, cols, &nc);
		row->loo_rows = nr;
		row->loo_unknowns = nc;
		memcpy(u, fit, sizeof(fit));
		err = least_squares(f, u, rows, nr, cols, nc);
		if (err == -ERANGE)
			continue;
		if (!err)
			err = residual(f, u, i, &r);
		if (err)
			return err;
		row->loo_identified = true;
		row->loo_pct = 100 * r;
		for (unsigned int b = 0; b < nc; b++) {
			struct fit_param *p = &f->p[cols[b]];

			p->loo_spread = fmax(p->loo_spread, fabs(exp(u[cols[b]] - fit[cols[b]]) - 1));
		}
	}
	return 0;
}

int fit_solve(struct fit_report *f, const char *cpu)
{
	int err = discover(f, cpu);

	if (!err)
		err = fit_solve_inner(f);
	cost_class_scale_reset();
	mprotect_iterations_set(0);
	return err;
}

const struct fit_row *fit_row_of(const struct fit_report *f, const char *id)
{
	for (unsigned int i = 0; i < f->nrows; i++)
		if (!strcmp(f->r[i].row->id, id))
			return &f->r[i];
	return NULL;
}

/* "12.3 ns", "143", "140.71 GB/s (7.278 ns/KiB)" */
static void print_value(const struct fit_param *p, double v, char *buf, size_t len)
{
	size_t n = p->klass ? strlen(p->klass) : 0;

	if (!p->klass)
		snprintf(buf, len, "%.2f", v);
	else if (n > 4 && !strcmp(p->klass + n - 4, "_kib"))
		snprintf(buf, len, "%.2f GB/s", 1024.0 / v);
	else
		snprintf(buf, len, "%.2f ns", v);
}

static void print_text(const struct fit_report *f)
{
	wrap_print(stdout, 0, "Joint fit of %u constants on %u rows (Gauss-Newton on the rows' "
		   "relative errors).\n", f->nparams, f->nrows);
	putchar('\n');
	if (f->unidentified) {
		wrap_print(stdout, 0, "The rows do not determine the constants (fewer rows than "
			   "unknowns, or rows that cannot tell them apart): nothing fitted.");
		return;
	}
	printf("%-22s %11s %13s %8s  %s\n", "constant", "carried", "joint fit", "change",
	       "leave-one-out");
	for (unsigned int k = 0; k < f->nparams; k++) {
		const struct fit_param *p = &f->p[k];
		char a[32], b[32], spread[48];

		print_value(p, p->carried, a, sizeof(a));
		print_value(p, p->fitted, b, sizeof(b));
		if (!p->klass)
			snprintf(b, sizeof(b), "%.0f (%.2f)", p->fitted, p->unrounded);
		if (p->loo_spread >= 0)
			snprintf(spread, sizeof(spread), "spread %.1f %%", 100 * p->loo_spread);
		else
			snprintf(spread, sizeof(spread), "none (no row left out determines it)");
		wrap_print(stdout, 2, "%-22s %11s %13s %+7.2f%%  %s", p->name, a, b,
			   100 * (p->fitted / p->carried - 1), spread);
		printf("  fitted on %s\n", p->fitted_on);
	}
	printf("\n%-30s %9s %12s %9s  %s\n", "fit row", "published", "carried err", "fit err",
	       "left out");
	for (unsigned int i = 0; i < f->nrows; i++) {
		const struct fit_row *r = &f->r[i];
		char loo[96];

		if (r->loo_identified)
			snprintf(loo, sizeof(loo), "%+.2f%%", r->loo_pct);
		else
			snprintf(loo, sizeof(loo), "unidentified: %u unknowns on %u other rows",
				 r->loo_unknowns, r->loo_rows);
		wrap_print(stdout, 2, "%-30s %9.6g %+11.2f%% %+8.2f%%  %s", r->row->id, r->published,
			   r->carried_pct, r->fit_pct, loo);
	}
	wrap_print(stdout, 0, "\nThe carried values are what arch/arm64/hw/costs.c and "
		   "bench/mprotect_program.c hold; the iteration count is rounded (unrounded in "
		   "brackets) and the other constants fitted again with it held. A fit error above "
		   "5 %% is a MISS: the model lacks something the constants cannot absorb. \"left "
		   "out\" is the row's error when the fit leaves it out (a prediction). reproduce "
		   "shows the carried errors and, for fit rows, the leave-one-out error beside them.");
}

static void print_fit_json(const struct fit_report *f)
{
	json_begin("fit", "constants");
	printf("[");
	for (unsigned int k = 0; !f->unidentified && k < f->nparams; k++) {
		const struct fit_param *p = &f->p[k];

		printf("%s\n  {\"constant\": ", k ? "," : "");
		json_string(p->name);
		printf(", \"class\": ");
		if (p->klass)
			json_string(p->klass);
		else
			printf("null");
		printf(", \"unit\": \"%s\", \"carried\": ", p->klass ? "ns" : "iterations");
		json_double(p->carried);
		printf(", \"fitted\": ");
		json_double(p->fitted);
		printf(", \"fitted_on\": ");
		json_string(p->fitted_on);
		printf(", \"loo_spread\": ");
		json_double(p->loo_spread >= 0 ? p->loo_spread : NAN);
		printf("}");
	}
	printf("\n], \"identified\": %s, \"rows\": [", f->unidentified ? "false" : "true");
	for (unsigned int i = 0; i < f->nrows; i++) {
		const struct fit_row *r = &f->r[i];

		printf("%s\n  {\"id\": ", i ? "," : "");
		json_string(r->row->id);
		printf(", \"published\": ");
		json_double(r->published);
		printf(", \"carried_error_pct\": ");
		json_double(r->carried_pct);
		printf(", \"fit_error_pct\": ");
		json_double(f->unidentified ? NAN : r->fit_pct);
		printf(", \"loo_error_pct\": ");
		json_double(r->loo_identified ? r->loo_pct : NAN);
		printf(", \"loo_unknowns\": %u, \"loo_rows\": %u}", r->loo_unknowns, r->loo_rows);
	}
	printf("\n]");
	json_end();
}

int cmd_fit(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "published", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct fit_report *f;
	bool json = false;
	int c, err;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = true; break;
		case 'p': {
			char id[128];
			double v;

			if (sscanf(optarg, "%127[^=]=%lf", id, &v) != 2 || fit_set_published(id, v)) {
				fprintf(stderr, "fit: --published wants ID=VALUE with a row's id and a "
					"positive value, not %s\n", optarg);
				return 2;
			}
			break;
		}
		case 'h': return command_usage("fit", stdout);
		default:
			if (optopt)
				fprintf(stderr, "fit: option --published needs ID=VALUE\n");
			else
				fprintf(stderr, "fit: unknown option %s\n", argv[optind - 1]);
			return command_usage("fit", stderr);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "fit: unexpected argument %s\n", argv[optind]);
		return command_usage("fit", stderr);
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return 1;
	err = fit_solve(f, NULL);
	if (err)
		fprintf(stderr, "fit: %s\n", ptsim_strerror(err));
	else if (json)
		print_fit_json(f);
	else
		print_text(f);
	free(f);
	return err ? 1 : 0;
}
