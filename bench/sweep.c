// SPDX-License-Identifier: MIT
/*
 * ptsim-bench sweep FILE: a scenario once per value of its variable $n, on
 * each CPU, granule and kernel asked for, with each checkpoint's predicted
 * time per value: the table, CSV, or JSON that tools/ptsim-plot draws
 * (doc/scenario.md, "Sweeps").
 */
#include "findings.h"
#include "rows.h"
#include "scenario.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SWEEP_MAX_SETS 8
#define SWEEP_TEXT_COLUMNS 5	/* checkpoints a text row shows: 8 + 5 * 14 < 80 columns */

enum sweep_format { SWEEP_TEXT, SWEEP_CSV, SWEEP_JSON };

struct sweep {
	const struct scenario *s;
	const char *file, *only;	/* only: one checkpoint's name, or NULL */
	const uint64_t *vals;
	unsigned int nr_vals;
	enum sweep_format format;
	bool first;			/* JSON: no run printed yet */
	struct findings fs;		/* the diagnostics of the run in progress */
	uint64_t nr_diags;		/* every run's diagnostics, for --check */
	unsigned int done, total;	/* runs, for the progress counter */
	bool counter;			/* the counter only while the table goes elsewhere */
};

static bool wanted(const struct sweep *w, const char *name)
{
	return !w->only || !strcmp(w->only, name);
}

static void print_csv_header(void)
{
	printf("cpu,granule,features,n,checkpoint,ns");
	for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++)
		printf(",%s", ptsim_event_name((enum ptsim_event)e));
	printf("\n");
}

/* One run's checkpoints, in the format asked for. */
static void print_run(struct sweep *w, const struct scn_machine *mc, const char *set,
		      const struct scn_result *res)
{
	if (w->format == SWEEP_CSV) {
		for (size_t k = 0; k < res->nr_cp; k++) {
			if (!wanted(w, res->cp[k].name))
				continue;
			printf("%s,%uK,%s,%llu,%s,%.17g", ptsim_cpu_name(mc->cpu), (1u << mc->granule) / 1024,
			       set, (unsigned long long)mc->n, res->cp[k].name,
			       predict_ns(mc->cpu, mc->granule, &res->cp[k]));
			for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++)
				printf(",%llu", (unsigned long long)res->cp[k].stats.ev[e]);
			printf("\n");
		}
		return;
	}
	if (w->format == SWEEP_JSON) {
		printf("%s\n    {\"cpu\": \"%s\", \"granule\": \"%uK\", \"features\": ", w->first ? "" : ",",
		       ptsim_cpu_name(mc->cpu), (1u << mc->granule) / 1024);
		json_string(set);
		printf(", \"n\": %llu, \"error\": ", (unsigned long long)mc->n);
		if (res->err)
			json_string(res->msg);
		else
			printf("null");
		printf(", \"checkpoints\": [");
		for (size_t k = 0, nr = 0; k < res->nr_cp; k++) {
			if (!wanted(w, res->cp[k].name))
				continue;
			printf("%s{\"name\": ", nr++ ? ", " : "");
			json_string(res->cp[k].name);
			printf(", \"ns\": ");
			json_double(predict_ns(mc->cpu, mc->granule, &res->cp[k]));
			printf(", \"events\": {");
			for (unsigned int e = 0, f = 0; e < PTSIM_EV__COUNT; e++)
				if (res->cp[k].stats.ev[e])
					printf("%s\"%s\": %llu", f++ ? ", " : "",
					       ptsim_event_name((enum ptsim_event)e),
					       (unsigned long long)res->cp[k].stats.ev[e]);
			printf("}}");
		}
		printf("]");
		print_findings_json(&w->fs);
		printf("}");
		w->first = false;
		return;
	}
	printf("%8llu", (unsigned long long)mc->n);
	for (size_t k = 0, nr = 0; k < res->nr_cp && nr < SWEEP_TEXT_COLUMNS; k++) {
		if (!wanted(w, res->cp[k].name))
			continue;
		printf(" %13.3f", predict_ns(mc->cpu, mc->granule, &res->cp[k]) / 1e3);
		nr++;
	}
	printf("%s", res->err ? "  (stopped by an error)" : "");
	if (findings_total(&w->fs))
		printf("  (%llu diagnostic%s)", (unsigned long long)findings_total(&w->fs),
		       findings_total(&w->fs) == 1 ? "" : "s");
	printf("\n");
}

/* The text header of one combination: the checkpoints' names over their columns. */
static void print_text_header(const struct sweep *w, const struct scn_machine *mc, const char *set,
			      const struct scn_result *res)
{
	size_t shown = 0, all = 0;

	printf("%s, %uK, %s: predicted us per checkpoint\n%8s", ptsim_cpu_name(mc->cpu),
	       (1u << mc->granule) / 1024, set, "n");
	for (size_t k = 0; k < res->nr_cp; k++) {
		if (!wanted(w, res->cp[k].name))
			continue;
		all++;
		if (shown == SWEEP_TEXT_COLUMNS)
			continue;
		printf(" %13.13s", res->cp[k].name);
		shown++;
	}
	printf("\n");
	if (all > shown)
		printf("  (%zu more checkpoints: --checkpoint NAME, --csv or --json show them)\n",
		       all - shown);
}

/*
 * Every value on one combination; 0, or 1 when a run stopped with an error.
 * Each run's diagnostics are collected as run collects them (the invariants
 * checked after each operation outside a loop and after each outermost
 * loop): counted on the run's row (text) or in its JSON, and in text each
 * distinct finding listed once after the combination's table, labelled with
 * the first value of n that met it.
 */
static int sweep_one(struct sweep *w, struct scn_machine mc, const char *set)
{
	struct scn_limits lim = { SCN_DEFAULT_MAX_WORK, SCN_RUN_OP_WORK, 0, NULL };
	struct findings *listed = NULL;
	char label[160];
	int status = 0;

	if (w->format == SWEEP_TEXT) {
		listed = calloc(1, sizeof(*listed));
		if (!listed)
			return 1;
	}
	for (unsigned int v = 0; v < w->nr_vals; v++) {
		struct scn_result res;

		mc.n = w->vals[v];
		findings_reset_for_user(&w->fs, w->s, true);
		if (scenario_run(w->s, &mc, set, findings_diag, &w->fs, findings_hook, &w->fs, &lim,
				 &res)) {
			fprintf(stderr, "%s:%s (n=%llu)\n", w->file,
				res.msg[0] ? res.msg : " error: failed", (unsigned long long)mc.n);
			status = 1;
		}
		if (w->format == SWEEP_TEXT && !v)
			print_text_header(w, &mc, set, &res);
		print_run(w, &mc, set, &res);
		w->nr_diags += findings_total(&w->fs);
		if (listed && findings_total(&w->fs) && !findings_total(listed)) {
			*listed = w->fs;
			snprintf(label, sizeof(label), "%s, %uK, %s, n=%llu", ptsim_cpu_name(mc.cpu),
				 (1u << mc.granule) / 1024, set, (unsigned long long)mc.n);
		}
		scn_result_free(&res);
		w->done++;
		if (w->counter && progress_due())
			progress_line("sweep: run %u of %u", w->done, w->total);
	}
	if (listed && findings_total(listed))
		print_findings_text(listed, label, true);
	if (w->format == SWEEP_TEXT)
		printf("\n");
	free(listed);
	return status;
}

int cmd_sweep(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "values", required_argument, NULL, 'v' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "granule", required_argument, NULL, 'g' },
		{ "features", required_argument, NULL, 'f' },
		{ "checkpoint", required_argument, NULL, 'k' },
		{ "csv", no_argument, NULL, 'C' },
		{ "json", no_argument, NULL, 'j' },
		{ "check", no_argument, NULL, 'K' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *sets[SWEEP_MAX_SETS], *values = NULL;
	unsigned int nr_sets = 0, cpus = 0, granules = 0, nr_cpus = 0;
	enum ptsim_cpu cpu_order[PTSIM_CPU__COUNT];
	uint64_t vals[SCN_MAX_SWEEP];
	static struct sweep w;
	bool check = false;
	struct scenario s;
	char err[SCN_ERR_MAX], *text;
	size_t len;
	int c, status = 0;

	memset(&w, 0, sizeof(w));
	w.first = true;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'v': values = optarg; break;
		case 'c':
			if (parse_cpus("sweep", optarg, &cpus, cpu_order, &nr_cpus))
				return 2;
			break;
		case 'g':
			if (parse_granules("sweep", optarg, &granules))
				return 2;
			break;
		case 'f':
			if (nr_sets == SWEEP_MAX_SETS) {
				fprintf(stderr, "sweep: at most %d --features\n", SWEEP_MAX_SETS);
				return 2;
			}
			sets[nr_sets++] = optarg;
			break;
		case 'k': w.only = optarg; break;
		case 'C': w.format = SWEEP_CSV; break;
		case 'j': w.format = SWEEP_JSON; break;
		case 'K': check = true; break;
		case 'h': return command_usage("sweep", stdout);
		default:
			if (optopt)
				fprintf(stderr, "sweep: option %s needs an argument\n", argv[optind - 1]);
			else
				fprintf(stderr, "sweep: unknown option %s\n", argv[optind - 1]);
			return command_usage("sweep", stderr);
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "sweep: expected one scenario file\n");
		return command_usage("sweep", stderr);
	}
	w.file = argv[optind];
	text = read_file(w.file, &len);
	if (!text) {
		fprintf(stderr, "sweep: cannot read %s: %s\n", w.file, read_file_error(errno));
		return 1;
	}
	if (scenario_parse(text, len, w.file, &s, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		free(text);
		return 2;
	}
	free(text);
	w.s = &s;
	if (values) {
		if (scenario_parse_values(values, vals, &w.nr_vals, err, sizeof(err))) {
			fprintf(stderr, "sweep: --values %s: %s\n", values, err);
			scenario_free(&s);
			return 2;
		}
		w.vals = vals;
	} else {
		w.vals = s.sweep;
		w.nr_vals = s.nr_sweep;
	}
	if (!w.nr_vals || !s.nr) {
		fprintf(stderr, "sweep: %s: %s\n", w.file, s.nr ? "no values: add a `sweep n VALUES` line "
			"or give --values" : "no operations");
		scenario_free(&s);
		return 2;
	}
	if (!cpus)
		cpu_order[nr_cpus++] = s.machine.cpu;
	if (!granules)
		granules = 1u << s.machine.granule;
	if (!nr_sets)
		sets[nr_sets++] = s.machine.preset;
	for (unsigned int i = 0; i < nr_sets; i++) {
		int ret = check_feature_spec("sweep", sets[i]);

		if (ret) {
			scenario_free(&s);
			return ret;
		}
	}
	if (w.format == SWEEP_CSV)
		print_csv_header();
	if (w.format == SWEEP_JSON) {
		json_begin("sweep", NULL);
		printf(", \"file\": ");
		json_string(w.file);
		printf(", \"variable\": \"n\", \"runs\": [");
	}
	w.total = nr_cpus * (unsigned int)__builtin_popcount(granules) * nr_sets * w.nr_vals;
	w.counter = !isatty(STDOUT_FILENO);	/* on the terminal it would break the table's lines */
	progress_start();
	for (unsigned int ci = 0; ci < nr_cpus; ci++) {
		for (unsigned int gr = PTSIM_GRANULE_4K; gr <= PTSIM_GRANULE_64K; gr += 2) {
			if (!(granules & (1u << gr)))
				continue;
			for (unsigned int i = 0; i < nr_sets; i++)
				status |= sweep_one(&w, scenario_machine_on(&s, cpu_order[ci],
									   (enum ptsim_granule)gr), sets[i]);
		}
	}
	progress_end();
	if (w.format == SWEEP_JSON) {
		printf("\n]");
		json_end();
	}
	scenario_free(&s);
	if (check && w.nr_diags && !status) {
		fprintf(stderr, "sweep: --check: %llu diagnostic%s\n", (unsigned long long)w.nr_diags,
			w.nr_diags == 1 ? "" : "s");
		return 3;
	}
	return status;
}
