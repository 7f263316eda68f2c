// SPDX-License-Identifier: MIT
/* ptsim-bench reproduce: published vs simulated for every modelled result. */
#include "caveats.h"
#include "machine_state.h"
#include "fit.h"
#include "rows.h"
#include "detail_svg.h"
#include "sensitivity.h"
#include "work_kind.h"
#include "commit.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct outcome {
	const struct published *row;
	struct row_result res;
	double error_pct;
	bool fitted;
	bool has_target;
	bool within;
	int err;
	/* a fit row: its error when the joint fit leaves it out (ptsim-bench fit) */
	bool has_loo, loo_identified;
	double loo_pct;
	unsigned int loo_unknowns, loo_rows;
};

/* A row is "fit" when some constant of its CPU profile was fitted on it. */
static bool row_is_fitted(const struct published *row)
{
	enum ptsim_cpu cpu;

	if (!strcmp(row->id, mprotect_iterations_fitted_on))
		return true;	/* a workload parameter, not a profile constant, is fitted on it */
	if (row->joint_fit)
		return true;	/* in the joint fit of its CPU's constants */
	if (ptsim_cpu_lookup(row->cpu, &cpu))
		return false;
	for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++) {
		struct ptsim_cost c;

		if (!ptsim_cost_get(cpu, PTSIM_GRANULE_4K, (enum ptsim_event)e, &c) && c.fitted_on &&
		    !strcmp(c.fitted_on, row->id))
			return true;
	}
	return false;
}

static void judge(struct outcome *o)
{
	const struct published *r = o->row;

	o->error_pct = 100.0 * (o->res.simulated - r->value) / r->value;
	o->fitted = row_is_fitted(r);
	if (r->lo < r->hi) {
		o->has_target = true;
		o->within = o->res.simulated >= r->lo && o->res.simulated <= r->hi;
	} else if (o->fitted || r->tol_pct > 0) {
		o->has_target = true;
		o->within = fabs(o->error_pct) <= (o->fitted ? 5.0 : r->tol_pct);
	}
}

/* The target column: "ok <=15%", "MISS [0.7, 1]", "report only". */
static void target_text(const struct outcome *o, char *buf, size_t len)
{
	const struct published *r = o->row;

	if (r->lo < r->hi)
		snprintf(buf, len, "%s [%g, %g]", o->within ? "ok" : "MISS", r->lo, r->hi);
	else if (o->has_target && o->has_loo && o->loo_identified)
		snprintf(buf, len, "%s <=5%%, left-out %+.1f%%", o->within ? "ok" : "MISS", o->loo_pct);
	else if (o->has_target && o->has_loo)
		snprintf(buf, len, "%s <=5%%, left-out: unidentified", o->within ? "ok" : "MISS");
	else if (o->has_target)
		snprintf(buf, len, "%s <=%g%%", o->within ? "ok" : "MISS", o->fitted ? 5.0 : r->tol_pct);
	else
		snprintf(buf, len, "report only");
}

/* Fits and predictions counted apart: a constant was chosen on a fit row. */
struct summary {
	unsigned int fits, fits_ok, predictions, pred_targets, pred_ok, failed;
};

static struct summary summarise(const struct outcome *o, unsigned int n)
{
	struct summary s = { 0 };

	for (unsigned int i = 0; i < n; i++) {
		if (o[i].err) {
			s.failed++;
		} else if (o[i].fitted) {
			s.fits++;
			s.fits_ok += o[i].within;
		} else {
			s.predictions++;
			s.pred_targets += o[i].has_target;
			s.pred_ok += o[i].has_target && o[i].within;
		}
	}
	return s;
}

static bool has_mprotect_rows(const struct outcome *o, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		if (!o[i].err && !strncmp(o[i].row->id, "mprotect.", 9))
			return true;
	return false;
}

/*
 * One line per row; metric, source and citation are in --detail and --json.
 * 80 columns: an id longer than the column gets a line of its own (--wide:
 * one line per row, up to 100 columns).
 */
static void print_table(const struct outcome *o, unsigned int n, bool wide)
{
	struct summary s = summarise(o, n);
	int idw = wide ? 46 : 28;
	const char **ids = calloc(n ? n : 1, sizeof(*ids));

	printf("%-*s %-4s %10s %10s %7s  %s\n", idw, "id", "role", "published", "simulated", "error",
	       "target");
	for (unsigned int i = 0; i < n; i++) {
		const struct published *r = o[i].row;
		char target[48];

		const char *id = r->id;

		if (o[i].err) {
			printf("%-*s simulation failed: %s\n", idw, r->id, ptsim_strerror(o[i].err));
			continue;
		}
		if ((int)strlen(id) > idw) {
			printf("%s\n", id);
			id = "";
		}
		target_text(&o[i], target, sizeof(target));
		if (wide) {
			printf("%-*s %-4s %10.6g %10.6g %+6.1f%%  %s\n", idw, id,
			       o[i].fitted ? "fit" : "pred", r->value, o[i].res.simulated,
			       o[i].error_pct, target);
			continue;
		}
		/* 80 columns: a long target continues under itself */
		wrap_print(stdout, (size_t)idw + 37, "%-*s %-4s %10.6g %10.6g %+6.1f%%  %s", idw, id,
			   o[i].fitted ? "fit" : "pred", r->value, o[i].res.simulated,
			   o[i].error_pct, target);
	}
	for (unsigned int i = 0; ids && i < n; i++)
		ids[i] = o[i].row->id;
	if (ids)
		print_caveats_of_rows(ids, n, 0);
	free(ids);
	printf("\nfits:        %u of %u within 5%% (the fitted constants were fitted on them;\n"
	       "             \"left-out\": the row's error when the joint fit leaves it out,\n"
	       "             a prediction; unidentified when the other rows do not determine\n"
	       "             what it depends on: ptsim-bench fit)\n", s.fits_ok, s.fits);
	printf("predictions: %u of %u with a target within it; %u report only\n", s.pred_ok,
	       s.pred_targets, s.predictions - s.pred_targets);
	if (s.failed)
		printf("failed:      %u rows could not be simulated\n", s.failed);
	if (has_mprotect_rows(o, n))
		mprotect_print_40(false);
	printf("Each row's metric, source and per-event breakdown:\n  ptsim-bench reproduce --detail ID\n");
}

/* One row as a JSON object (reproduce --json and --detail ID --json). */
static void print_row_json(const struct outcome *o)
{
	const struct published *r = o->row;

	printf("{\"id\": ");
	json_string(r->id);
	printf(", \"source\": ");
	json_string(r->source);
	printf(", \"citation\": ");
	json_string(r->citation);
	printf(", \"cpu\": ");
	json_string(r->cpu);
	printf(", \"metric\": ");
	json_string(r->metric);
	printf(", \"published\": ");
	json_double(r->value);
	printf(", \"simulated\": ");
	json_double(o->err ? NAN : o->res.simulated);
	printf(", \"error_pct\": ");
	json_double(o->err ? NAN : o->error_pct);
	printf(", \"role\": \"%s\", \"target\": ", o->fitted ? "fit" : "prediction");
	if (r->lo < r->hi) {
		printf("{\"lo\": ");
		json_double(r->lo);
		printf(", \"hi\": ");
		json_double(r->hi);
		printf("}");
	} else if (o->fitted || r->tol_pct > 0) {
		printf("{\"max_abs_error_pct\": ");
		json_double(o->fitted ? 5.0 : r->tol_pct);
		printf("}");
	} else {
		printf("null");
	}
	printf(", \"within_target\": %s",
	       !o->has_target || o->err ? "null" : o->within ? "true" : "false");
	if (o->has_loo) {
		printf(", \"leave_one_out\": {\"identified\": %s, \"error_pct\": ",
		       o->loo_identified ? "true" : "false");
		json_double(o->loo_identified ? o->loo_pct : NAN);
		printf(", \"unknowns\": %u, \"rows\": %u}", o->loo_unknowns, o->loo_rows);
	} else {
		printf(", \"leave_one_out\": null");
	}
	print_caveats_json(r->id, NULL, 0);
	print_machine_state_json(r->id);
	printf("}");
}

static void print_json(const struct outcome *o, unsigned int n)
{
	json_begin("reproduce", "rows");
	printf("[\n");
	for (unsigned int i = 0; i < n; i++) {
		printf("  ");
		print_row_json(&o[i]);
		printf("%s", i + 1 < n ? ",\n" : "");
	}
	if (has_mprotect_rows(o, n))
		mprotect_print_40(true);
	printf("\n]");
	json_end();
}

/* The target as a band of signed error in percent; false for a report-only row. */
static bool target_band(const struct outcome *o, double *lo, double *hi)
{
	const struct published *r = o->row;

	if (r->lo < r->hi) {
		*lo = 100.0 * (r->lo - r->value) / r->value;
		*hi = 100.0 * (r->hi - r->value) / r->value;
		return true;
	}
	if (!o->has_target)
		return false;
	*hi = o->fitted ? 5.0 : r->tol_pct;
	*lo = -*hi;
	return true;
}

/*
 * One panel: each row's signed error (simulated against published, in %) on
 * one shared axis, its target band shaded behind it; predictions are dots,
 * fits are hollow diamonds; green inside the target, red outside, grey for
 * report-only rows. The axis spans at least -40..+40 % and widens (in steps of
 * 10 %) to every error and target band: nothing is clamped, so two different
 * errors never share a place.
 */
static int write_svg(FILE *f, const struct outcome *o, unsigned int n)
{
	double axis_lo = -40, axis_hi = 40;
	const int row_h = 26, left = 360, plot_w = 520, top = 70;
	const int width = left + plot_w + 90, height = top + (int)n * row_h + 50;
	int err;

	for (unsigned int i = 0; i < n; i++) {
		double lo, hi;

		if (o[i].err)
			continue;
		axis_lo = fmin(axis_lo, 10 * floor(o[i].error_pct / 10));
		axis_hi = fmax(axis_hi, 10 * ceil(o[i].error_pct / 10));
		if (target_band(&o[i], &lo, &hi)) {
			axis_lo = fmin(axis_lo, 10 * floor(lo / 10));
			axis_hi = fmax(axis_hi, 10 * ceil(hi / 10));
		}
	}
	const int step = axis_hi - axis_lo > 200 ? 50 : axis_hi - axis_lo > 100 ? 20 : 10;

#define X(v) (left + (int)(((v) - axis_lo) / (axis_hi - axis_lo) * plot_w))
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		   "font-family=\"sans-serif\" font-size=\"12\">\n"
		   "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		   "<text x=\"10\" y=\"22\" font-size=\"15\">libptsim %s (%s): simulated against published, "
		   "signed error (%%)</text>\n"
		   "<text x=\"10\" y=\"42\" fill=\"#555\">shaded: target; dot: prediction; hollow "
		   "diamond: fit (a constant was fitted on it); green ok, red miss, grey report only</text>\n",
		width, height, ptsim_version(), PTSIM_BENCH_COMMIT);
	for (int t = step * (int)ceil(axis_lo / step); t <= (int)axis_hi; t += step) {
		fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\"/>\n", X(t), top - 6,
			X(t), top + (int)n * row_h, t ? "#e4e4e4" : "#888");
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%+d</text>\n", X(t),
			top + (int)n * row_h + 16, t);
	}
	for (unsigned int i = 0; i < n; i++) {
		const struct published *r = o[i].row;
		int y = top + (int)i * row_h + row_h / 2;
		double lo, hi, e = o[i].error_pct;
		const char *colour = !o[i].has_target ? "#888" : o[i].within ? "#2a9d4a" : "#d83a3a";

		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", left - 10, y + 4,
			r->id);
		if (o[i].err) {
			fprintf(f, "<text x=\"%d\" y=\"%d\">simulation failed</text>\n", left + 4, y + 4);
			continue;
		}
		if (target_band(&o[i], &lo, &hi))
			fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#cfe8d6\"/>\n",
				X(lo), y - 8, X(hi) - X(lo), 16);
		if (o[i].fitted)
			fprintf(f, "<path d=\"M%d %d l6 6 l-6 6 l-6 -6 z\" fill=\"white\" stroke=\"%s\" "
				   "stroke-width=\"2\"/>\n", X(e), y - 6, colour);
		else
			fprintf(f, "<circle cx=\"%d\" cy=\"%d\" r=\"5\" fill=\"%s\"/>\n", X(e), y, colour);
		fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"%s\">%+.1f%%</text>\n",
			X(e) + 9, y + 4, colour, e);
	}
#undef X
	fprintf(f, "</svg>\n");
	err = ferror(f) ? errno : 0;
	if (fclose(f) && !err)
		err = errno;
	errno = err;
	return err ? -1 : 0;
}

/*
 * The composed predictions of a row's two sides on its CPU, for the --detail
 * outputs (text, JSON, SVG); false when the row has no per-event breakdown.
 */
static bool detail_predictions(const struct outcome *o, struct ptsim_overlap_prediction *pb,
			       struct ptsim_overlap_prediction *pa)
{
	const struct row_result *r = &o->res;
	enum ptsim_cpu cpu;

	return !o->err && r->have_detail && !ptsim_cpu_lookup(o->row->cpu, &cpu) &&
	       !ptsim_predict_overlap(cpu, r->granule, &r->before, &r->before_loops, pb) &&
	       !ptsim_predict_overlap(cpu, r->granule, &r->after, &r->after_loops, pa);
}

/*
 * --detail ID --svg FILE: the row's own picture, its time by kind of work and
 * its largest events before and after (bench/detail_svg.c); -1 (errno 0)
 * when the row has no breakdown, f closed either way.
 */
static int write_detail_svg(FILE *f, const struct outcome *o)
{
	const struct row_result *r = &o->res;
	struct ptsim_overlap_prediction pb, pa;

	if (!detail_predictions(o, &pb, &pa)) {
		fclose(f);
		errno = 0;
		return -1;
	}
	return detail_svg_write(f, o->row->id, r->before_label ? r->before_label : "before",
				r->after_label ? r->after_label : "after", &pb, &pa);
}

#define MAX_PRICES 32
/* the --detail table's name column; 22 + two sides of 29 = 80 */
#define DETAIL_NAME_COLUMNS 22

/*
 * Each price the row pays: its share of the before and after totals, its
 * uncertainty, and the row's result simulated again with that price moved
 * down and up by it (bench/sensitivity.c).
 */
static void print_sensitivity(const struct outcome *o, bool wide)
{
	struct price_sensitivity ps[MAX_PRICES];
	int n = row_sensitivity(o->row, &o->res, ps, MAX_PRICES);

	if (n < 0) {
		printf("\n  no sensitivity: %s\n", ptsim_strerror(n));
		return;
	}
	printf("\nSensitivity: each price's share of the totals, and the result (%.6g)\n"
	       "simulated again with that price alone at -/+ its uncertainty\n"
	       "(doc/cpu-profiles.md §12)%s:\n",
	       o->res.simulated, wide ? "" : "; why this uncertainty below each class");
	printf("%-16s %8s %8s %6s %11s %11s %8s%s\n", "class", o->res.before_label ? "before" : "",
	       "after", "+-", "result -u", "result +u", "moves", wide ? "  why this uncertainty" : "");
	for (int i = 0; i < n; i++) {
		double lo = ps[i].result_minus, hi = ps[i].result_plus, s = o->res.simulated;
		double moves = s ? 100 * fmax(fabs(lo - s), fabs(hi - s)) / fabs(s) : 0;

		printf("%-16s %7.2f%% %7.2f%% %5.0f%% %11.6g %11.6g %7.2f%%", ps[i].klass,
		       100 * ps[i].before_share, 100 * ps[i].after_share, 100 * ps[i].uncertainty, lo,
		       hi, moves);
		if (wide)
			printf("  %s\n", ps[i].uncertainty_source);
		else
			wrap_print(stdout, 4, "\n    %s", ps[i].uncertainty_source);
	}
}

/*
 * One row of the --detail table: a count, its time and its share on each
 * side. 80 columns: a name longer than its column gets a line of its own
 * (--wide: one line, the old widths).
 */
static void print_detail_row(const char *name, unsigned long long before, double before_ns,
			     double before_total, unsigned long long after, double after_ns,
			     double after_total, bool wide)
{
	if (wide) {
		printf("%-40s %16llu %12.3f %6.2f%%   %16llu %12.3f %6.2f%%\n", name, before,
		       before_ns / 1e6, 100 * before_ns / before_total, after, after_ns / 1e6,
		       100 * after_ns / after_total);
		return;
	}
	if (strlen(name) > DETAIL_NAME_COLUMNS)
		printf("%s\n%-*s", name, DETAIL_NAME_COLUMNS, "");
	else
		printf("%-*s", DETAIL_NAME_COLUMNS, name);
	printf(" %10llu %9.3f %6.2f%% %10llu %9.3f %6.2f%%\n", before, before_ns / 1e6,
	       100 * before_ns / before_total, after, after_ns / 1e6, 100 * after_ns / after_total);
}

/* The --detail table's loop paths: each priced path's turns and time, before and after. */
static void print_detail_loops(const struct row_result *r, const struct ptsim_overlap_prediction *pb,
			       const struct ptsim_overlap_prediction *pa, bool wide)
{
	for (unsigned int l = 0; l < PTSIM_LOOP__COUNT; l++) {
		const char *fn, *variant;
		char name[64];

		if (!r->before_loops.iter[l] && !r->after_loops.iter[l])
			continue;
		ptsim_loop_name((enum ptsim_loop)l, &fn, &variant);
		snprintf(name, sizeof(name), "%s/%s", fn, variant);
		print_detail_row(name, (unsigned long long)r->before_loops.iter[l], pb->loop_path_ns[l],
				 pb->total_ns, (unsigned long long)r->after_loops.iter[l],
				 pa->loop_path_ns[l], pa->total_ns, wide);
	}
}

/* The --detail composition: the loop, serialising, miss and other shares (doc/overlap.md). */
static void print_detail_parts(const struct ptsim_overlap_prediction *pb,
			       const struct ptsim_overlap_prediction *pa)
{
	const char *names[4] = { "loop prices", "serialising", "misses", "other events" };
	double b[4] = { pb->loop_ns, pb->serial_ns, pb->miss_ns, pb->rest_ns };
	double a[4] = { pa->loop_ns, pa->serial_ns, pa->miss_ns, pa->rest_ns };

	printf("\nComposed (doc/overlap.md): misses overlapped %.2fx before, %.2fx after\n",
	       pb->overlap, pa->overlap);
	for (unsigned int i = 0; i < 4; i++)
		printf("  %-24s %12.3f ms %6.2f%%   %12.3f ms %6.2f%%\n", names[i], b[i] / 1e6,
		       100 * b[i] / pb->total_ns, a[i] / 1e6, 100 * a[i] / pa->total_ns);
}

/* The --detail split by kind of work: the per-folio machinery beside the PTE walks (issue 43). */
static void print_detail_kinds(const struct ptsim_overlap_prediction *pb,
			       const struct ptsim_overlap_prediction *pa)
{
	double b[WORK__COUNT], a[WORK__COUNT];

	work_kind_sums(pb, b);
	work_kind_sums(pa, a);
	printf("\nBy kind of work (ptsim-bench list events names each event's):\n");
	for (unsigned int k = 0; k < WORK__COUNT; k++) {
		if (k == WORK_UNCLASSIFIED && !b[k] && !a[k])
			continue;
		printf("  %-24s %12.3f ms %6.2f%%   %12.3f ms %6.2f%%\n",
		       work_kind_name((enum work_kind)k), b[k] / 1e6, 100 * b[k] / pb->total_ns,
		       a[k] / 1e6, 100 * a[k] / pa->total_ns);
	}
}

static void print_detail(const struct outcome *o, bool wide)
{
	const struct row_result *r = &o->res;
	struct ptsim_overlap_prediction pb, pa;
	char target[48];

	if (wide)
		printf("%s: %s\n  source: %s\n  %s\n", o->row->id, o->row->metric, o->row->source,
		       o->row->citation);
	else
		wrap_print(stdout, 4, "%s: %s\n  source: %s\n  %s", o->row->id, o->row->metric,
			   o->row->source, o->row->citation);
	if (!o->err) {
		target_text(o, target, sizeof(target));
		wrap_print(stdout, 4, "  published %.6g, simulated %.6g, error %+.2f%%, %s, target %s",
			   o->row->value, r->simulated, o->error_pct,
			   o->fitted ? "fit" : "prediction", target);
	}
	print_machine_state(o->row->id, 2);
	if (!detail_predictions(o, &pb, &pa)) {
		printf("  no per-event breakdown for this row\n");
		return;
	}
	if (wide) {
		printf("\n%-40s %16s %12s %7s   %16s %12s %7s\n", "event or loop path",
		       r->before_label, "ms", "%", r->after_label, "ms", "%");
	} else {
		wrap_print(stdout, 10, "\n  before: %s", r->before_label);
		wrap_print(stdout, 10, "  after:  %s", r->after_label);
		printf("%-*s %10s %9s %7s %10s %9s %7s\n", DETAIL_NAME_COLUMNS, "event or loop path",
		       "before", "ms", "%", "after", "ms", "%");
	}
	print_detail_loops(r, &pb, &pa, wide);
	for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++) {
		if (!r->before.ev[e] && !r->after.ev[e])
			continue;
		print_detail_row(ptsim_event_name((enum ptsim_event)e),
				 (unsigned long long)r->before.ev[e], pb.event_ns[e], pb.total_ns,
				 (unsigned long long)r->after.ev[e], pa.event_ns[e], pa.total_ns, wide);
	}
	if (wide)
		printf("%-40s %16s %12.3f %7s   %16s %12.3f\n", "total", "", pb.total_ns / 1e6, "",
		       "", pa.total_ns / 1e6);
	else
		printf("%-*s %10s %9.3f %7s %10s %9.3f\n", DETAIL_NAME_COLUMNS, "total", "",
		       pb.total_ns / 1e6, "", "", pa.total_ns / 1e6);
	print_detail_parts(&pb, &pa);
	print_detail_kinds(&pb, &pa);
	print_sensitivity(o, wide);
	if (!strncmp(o->row->id, "uffd.", 5))
		uffd_print_sweep();
	if (!strncmp(o->row->id, "exec.", 5))
		exec_print_16k();
}

/* --detail ID --json's "sensitivity": the --detail sensitivity table's rows. */
static void print_sensitivity_json(const struct outcome *o)
{
	struct price_sensitivity ps[MAX_PRICES];
	int n = row_sensitivity(o->row, &o->res, ps, MAX_PRICES);

	printf(", \"sensitivity\": ");
	if (n < 0) {
		printf("null");
		return;
	}
	printf("[");
	for (int i = 0; i < n; i++) {
		printf("%s\n    {\"class\": ", i ? "," : "");
		json_string(ps[i].klass);
		printf(", \"uncertainty\": ");
		json_double(ps[i].uncertainty);
		printf(", \"uncertainty_source\": ");
		json_string(ps[i].uncertainty_source);
		printf(", \"before_share\": ");
		json_double(ps[i].before_share);
		printf(", \"after_share\": ");
		json_double(ps[i].after_share);
		printf(", \"result_minus\": ");
		json_double(ps[i].result_minus);
		printf(", \"result_plus\": ");
		json_double(ps[i].result_plus);
		printf("}");
	}
	printf("\n  ]");
}

/*
 * --detail ID --json: the row, then each event counted before or after with
 * its count and predicted ns on the row's CPU (the --detail table's columns).
 */
/* --detail ID --json's composition of one side: its parts and its loop paths. */
static void print_parts_json(const char *side, const struct ptsim_overlap_prediction *p,
			     const struct ptsim_loop_stats *loops)
{
	double kinds[WORK__COUNT];
	bool first = true;

	printf(", \"%s_parts\": {\"loop_ns\": ", side);
	json_double(p->loop_ns);
	printf(", \"serial_ns\": ");
	json_double(p->serial_ns);
	printf(", \"miss_ns\": ");
	json_double(p->miss_ns);
	printf(", \"rest_ns\": ");
	json_double(p->rest_ns);
	printf(", \"overlap\": ");
	json_double(p->overlap);
	work_kind_sums(p, kinds);
	printf(", \"work_ns\": {");
	for (unsigned int k = WORK_UNCLASSIFIED + 1; k < WORK__COUNT; k++) {
		printf("%s\"%s\": ", k > WORK_UNCLASSIFIED + 1 ? ", " : "",
		       work_kind_key((enum work_kind)k));
		json_double(kinds[k]);
	}
	printf("}");
	printf(", \"loops\": [");
	for (unsigned int l = 0; l < PTSIM_LOOP__COUNT; l++) {
		const char *fn, *variant;

		if (!loops->iter[l])
			continue;
		ptsim_loop_name((enum ptsim_loop)l, &fn, &variant);
		printf("%s{\"loop\": ", first ? "" : ", ");
		json_string(fn);
		printf(", \"variant\": ");
		json_string(variant);
		printf(", \"turns\": %llu, \"ns\": ", (unsigned long long)loops->iter[l]);
		json_double(p->loop_path_ns[l]);
		printf("}");
		first = false;
	}
	printf("]}");
}

static void print_detail_json(const struct outcome *o)
{
	const struct row_result *r = &o->res;
	struct ptsim_overlap_prediction pb, pa;
	bool first = true;

	json_begin("reproduce", "row");
	print_row_json(o);
	if (!detail_predictions(o, &pb, &pa)) {
		printf(", \"detail\": null");
		json_end();
		return;
	}
	printf(", \"detail\": {\"granule\": \"%uK\", \"before_label\": ",
	       (1u << r->granule) / 1024);
	json_string(r->before_label);
	printf(", \"after_label\": ");
	json_string(r->after_label);
	printf(", \"before_ns\": ");
	json_double(pb.total_ns);
	printf(", \"after_ns\": ");
	json_double(pa.total_ns);
	print_parts_json("before", &pb, &r->before_loops);
	print_parts_json("after", &pa, &r->after_loops);
	printf(", \"events\": [");
	for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++) {
		if (!r->before.ev[e] && !r->after.ev[e])
			continue;
		printf("%s\n    {\"event\": \"%s\", \"before\": %llu, \"before_ns\": ", first ? "" : ",",
		       ptsim_event_name((enum ptsim_event)e), (unsigned long long)r->before.ev[e]);
		json_double(pb.event_ns[e]);
		printf(", \"after\": %llu, \"after_ns\": ", (unsigned long long)r->after.ev[e]);
		json_double(pa.event_ns[e]);
		printf("}");
		first = false;
	}
	printf("\n  ]");
	print_sensitivity_json(o);
	printf("}");
	json_end();
}

/*
 * The leave-one-out errors of the fit rows shown: ptsim-bench fit's joint
 * fit of each of their CPUs (the prices are back to the carried ones after).
 */
static void attach_leave_one_out(struct outcome *o, unsigned int n)
{
	struct fit_report *f = calloc(1, sizeof(*f));

	for (unsigned int i = 0; f && i < n; i++) {
		bool done = false;

		if (o[i].err || !o[i].fitted)
			continue;
		for (unsigned int j = 0; j < i; j++)
			done |= o[j].has_loo && !strcmp(o[j].row->cpu, o[i].row->cpu);
		if (done || fit_solve(f, o[i].row->cpu) || f->unidentified)
			continue;
		for (unsigned int j = i; j < n; j++) {
			const struct fit_row *r = fit_row_of(f, o[j].row->id);

			if (!r || o[j].err)
				continue;
			o[j].has_loo = true;
			o[j].loo_identified = r->loo_identified;
			o[j].loo_pct = r->loo_pct;
			o[j].loo_unknowns = r->loo_unknowns;
			o[j].loo_rows = r->loo_rows;
		}
	}
	free(f);
}

static void list_ids(FILE *f)
{
	fprintf(f, "rows:\n");
	for (unsigned int i = 0; i < nr_published_rows; i++)
		fprintf(f, "  %s\n", published_rows[i].id);
}

int cmd_reproduce(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "svg", required_argument, NULL, 's' },
		{ "only", required_argument, NULL, 'o' },
		{ "detail", required_argument, NULL, 'd' },
		{ "check", no_argument, NULL, 'c' },
		{ "wide", no_argument, NULL, 'W' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *only = "", *svg = NULL, *detail = NULL;
	FILE *svg_file = NULL;
	bool json = false, check = false, wide = false;
	struct outcome *o;
	unsigned int n = 0;
	int status = 0, c;

	optind = 0;	/* a fresh scan of this command's arguments (glibc) */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = true; break;
		case 's': svg = optarg; break;
		case 'o': only = optarg; break;
		case 'd': detail = optarg; break;
		case 'c': check = true; break;
		case 'W': wide = true; break;
		case 'h': return command_usage("reproduce", stdout);
		default:
			if (optopt)
				fprintf(stderr, "reproduce: option --%s needs an argument\n",
					optopt == 's' ? "svg FILE" : optopt == 'o' ? "only PREFIX" :
					"detail ID");
			else
				fprintf(stderr, "reproduce: unknown option %s\n", argv[optind - 1]);
			return command_usage("reproduce", stderr);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "reproduce: unexpected argument %s\n", argv[optind]);
		return command_usage("reproduce", stderr);
	}
	for (unsigned int i = 0; i < nr_published_rows; i++)
		n += !strncmp(published_rows[i].id, only, strlen(only)) &&
		     (!detail || !strcmp(published_rows[i].id, detail));
	if (!n) {
		fprintf(stderr, "reproduce: no row %s %s\n", detail ? "is" : "starts with",
			detail ? detail : only);
		list_ids(stderr);
		return 2;
	}
	/* an unwritable --svg fails before the simulation, not after it */
	if (svg && !(svg_file = fopen(svg, "w"))) {
		fprintf(stderr, "reproduce: cannot write %s: %s\n", svg, strerror(errno));
		return 1;
	}
	o = calloc(n, sizeof(*o));
	if (!o) {
		if (svg_file)
			fclose(svg_file);
		return 1;
	}
	n = 0;
	for (unsigned int i = 0; i < nr_published_rows; i++) {
		const struct published *r = &published_rows[i];
		row_sim_fn sim = row_simulation(r->id);

		if (strncmp(r->id, only, strlen(only)) || (detail && strcmp(r->id, detail)))
			continue;
		o[n].row = r;
		o[n].err = sim ? sim(r, &o[n].res) : -ENOENT;
		if (!o[n].err)
			judge(&o[n]);
		n++;
	}
	attach_leave_one_out(o, n);
	if (detail && json)
		print_detail_json(&o[0]);
	else if (detail)
		print_detail(&o[0], wide);
	else if (json)
		print_json(o, n);
	else
		print_table(o, n, wide);
	if (svg_file && detail && write_detail_svg(svg_file, &o[0])) {
		fprintf(stderr, "reproduce: cannot write %s: %s\n", svg,
			errno ? strerror(errno) : "the row has no per-event breakdown");
		status = 1;
	} else if (svg_file && !detail && write_svg(svg_file, o, n)) {
		fprintf(stderr, "reproduce: cannot write %s: %s\n", svg, strerror(errno));
		status = 1;
	}
	for (unsigned int i = 0; i < n; i++) {
		if (o[i].err)
			status = 1;
		else if (check && o[i].has_target && !o[i].within && !status)
			status = 3;	/* --check: a row misses its target */
	}
	for (unsigned int i = 0; status == 3 && i < n; i++) {
		char target[64];

		if (o[i].err || !o[i].has_target || o[i].within)
			continue;
		/* --check: one line per row that misses, then exit 3 */
		target_text(&o[i], target, sizeof(target));
		fprintf(stderr, "reproduce: --check: %s misses its target: simulated %.4g, "
			"published %.4g (%+.1f%%), target %s\n", o[i].row->id, o[i].res.simulated,
			o[i].row->value, o[i].error_pct, target);
	}
	free(o);
	return status;
}
