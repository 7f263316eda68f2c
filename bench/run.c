// SPDX-License-Identifier: MIT
/*
 * ptsim-bench run FILE: a scenario on every combination of CPU, granule and
 * feature set asked for, with each checkpoint's counts and predicted time,
 * and the feature sets side by side (doc/scenario.md).
 */
#include "caveats.h"
#include "findings.h"
#include "rows.h"
#include "run_diff.h"
#include "scenario.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_SETS 8
#define MAX_JOBS 64

char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0;
	struct stat st;
	int err;

	if (!f)
		return NULL;
	/* /dev/zero or a FIFO would be read until memory runs out: regular files only */
	err = fstat(fileno(f), &st) ? errno : S_ISDIR(st.st_mode) ? EISDIR :
	      !S_ISREG(st.st_mode) ? EINVAL : st.st_size > READ_FILE_MAX ? EFBIG : 0;
	if (err) {
		fclose(f);
		errno = err;
		return NULL;
	}
	for (;;) {
		if (n + 4096 > cap) {
			char *b = realloc(buf, cap = 2 * cap + 4096);

			if (!b) {
				free(buf);
				fclose(f);
				errno = ENOMEM;
				return NULL;
			}
			buf = b;
		}
		size_t got = fread(buf + n, 1, cap - n, f);

		n += got;
		if (!got)
			break;
		if (n > READ_FILE_MAX) {	/* it grew while being read */
			free(buf);
			fclose(f);
			errno = EFBIG;
			return NULL;
		}
	}
	/* a read error is not an empty file */
	err = ferror(f) ? errno : 0;
	fclose(f);
	if (err) {
		free(buf);
		errno = err;
		return NULL;
	}
	buf[n] = 0;	/* room: the last read had 4096 bytes of it */
	*len = n;
	return buf;
}

const char *read_file_error(int err)
{
	if (err == EINVAL)
		return "not a regular file";
	if (err == EFBIG)
		return "larger than " READ_FILE_MAX_TEXT;
	return strerror(err);
}

int parse_granules(const char *cmd, const char *list, unsigned int *mask)
{
	char buf[64];

	*mask = 0;
	if (strlen(list) >= sizeof(buf)) {
		fprintf(stderr, "%s: --granule: expected 4K, 16K or 64K, comma-separated\n", cmd);
		return -EINVAL;
	}
	strcpy(buf, list);
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (!strcasecmp(t, "4K")) {
			*mask |= 1u << PTSIM_GRANULE_4K;
		} else if (!strcasecmp(t, "16K")) {
			*mask |= 1u << PTSIM_GRANULE_16K;
		} else if (!strcasecmp(t, "64K")) {
			*mask |= 1u << PTSIM_GRANULE_64K;
		} else {
			fprintf(stderr, "%s: --granule: unknown granule '%s'; valid: 4K, 16K, 64K\n", cmd, t);
			return -EINVAL;
		}
	}
	if (!*mask)
		fprintf(stderr, "%s: --granule: expected 4K, 16K or 64K, comma-separated\n", cmd);
	return *mask ? 0 : -EINVAL;
}

/*
 * The first name of a --features SPEC that is neither a feature nor a preset
 * (the check scenario_apply_features makes), or NULL; in buf.
 */
static const char *unknown_feature(const char *spec, char *buf, size_t len)
{
	if (strlen(spec) >= len)
		return spec;
	strcpy(buf, spec);
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		enum ptsim_feature f;
		unsigned int r;

		if (*t == '+' || *t == '-')
			t++;
		if (ptsim_feature_lookup(t, &f) && ptsim_preset_release(t, &r))
			return t;
	}
	return NULL;
}

int check_feature_spec(const char *cmd, const char *spec)
{
	struct ptsim_machine_config cfg;
	struct ptsim_machine *m;
	int ret;

	ptsim_machine_config_init(&cfg);
	ret = ptsim_machine_create(&cfg, &m);
	if (ret) {
		fprintf(stderr, "%s: machine: %s\n", cmd, ptsim_strerror(ret));
		return 1;
	}
	ret = scenario_apply_features(m, spec);
	ptsim_machine_destroy(m);
	if (ret) {
		char buf[256];
		const char *bad = unknown_feature(spec, buf, sizeof(buf));

		fprintf(stderr, "%s: --features %s: unknown feature or preset '%s'\n  presets: ",
			cmd, spec, bad ? bad : spec);
		print_valid_presets(stderr);
		fprintf(stderr, "\n  features: ");
		print_valid_features(stderr);
		fprintf(stderr, "\n");
		return 2;
	}
	return 0;
}

double predict_ns(enum ptsim_cpu cpu, enum ptsim_granule g, const struct scn_checkpoint *cp)
{
	struct ptsim_overlap_prediction p;

	return ptsim_predict_overlap(cpu, g, &cp->stats, &cp->loops, &p) ? 0 : p.total_ns;
}

/* A checkpoint's composed parts and loop paths (doc/overlap.md), for run --json. */
static void print_checkpoint_parts_json(enum ptsim_cpu cpu, enum ptsim_granule g, const struct scn_checkpoint *cp)
{
	struct ptsim_overlap_prediction p;
	bool first = true;

	if (ptsim_predict_overlap(cpu, g, &cp->stats, &cp->loops, &p)) {
		printf(", \"parts\": null, \"loops\": {}");
		return;
	}
	printf(", \"parts\": {\"loop_ns\": ");
	json_double(p.loop_ns);
	printf(", \"serial_ns\": ");
	json_double(p.serial_ns);
	printf(", \"miss_ns\": ");
	json_double(p.miss_ns);
	printf(", \"rest_ns\": ");
	json_double(p.rest_ns);
	printf(", \"overlap\": ");
	json_double(p.overlap);
	printf("}, \"loops\": {");
	for (unsigned int l = 0; l < PTSIM_LOOP__COUNT; l++) {
		const char *fn, *variant;

		if (!cp->loops.iter[l])
			continue;
		ptsim_loop_name((enum ptsim_loop)l, &fn, &variant);
		printf("%s\"%s/%s\": %llu", first ? "" : ", ", fn, variant,
		       (unsigned long long)cp->loops.iter[l]);
		first = false;
	}
	printf("}");
}

static void print_events_json(const struct ptsim_stats *s)
{
	bool first = true;

	printf("{");
	for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++) {
		if (!s->ev[e])
			continue;
		printf("%s\"%s\": %llu", first ? "" : ", ", ptsim_event_name((enum ptsim_event)e),
		       (unsigned long long)s->ev[e]);
		first = false;
	}
	printf("}");
}

/* name=count of each event counted, wrapped at 80 columns (--wide: on one line). */
static void print_events_text(const struct ptsim_stats *s, bool wide)
{
	unsigned int col = 6;

	printf("      ");
	for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++) {
		char item[64];
		int n;

		if (!s->ev[e])
			continue;
		n = snprintf(item, sizeof(item), "%s=%llu", ptsim_event_name((enum ptsim_event)e),
			     (unsigned long long)s->ev[e]);
		if (col > 6 && !wide && col + 1 + (unsigned int)n > 80) {
			printf("\n      ");
			col = 6;
		}
		printf("%s%s", col > 6 ? " " : "", item);
		col += (col > 6) + (unsigned int)n;
	}
	printf("\n");
}


/* One run of the scenario: a CPU, a granule and a kernel. */
struct one_run {
	enum ptsim_cpu cpu;
	enum ptsim_granule granule;
	const char *set;
	struct scn_result res;
	struct findings fs;
};

#define RUN_AT(ci, gi, i) (((ci) * nr_grans + (gi)) * nr_sets + (i))

static void run_label(const struct one_run *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s, %uK, %s", ptsim_cpu_name(r->cpu), (1u << r->granule) / 1024, r->set);
}

static void print_run_json(const struct one_run *r, bool first, bool checked)
{
	printf("%s\n  {\"cpu\": \"%s\", \"granule\": \"%uK\", \"features\": ", first ? "" : ",",
	       ptsim_cpu_name(r->cpu), (1u << r->granule) / 1024);
	json_string(r->set);
	printf(", \"error\": ");
	if (r->res.err)
		json_string(r->res.msg);
	else
		printf("null");
	printf(", \"checkpoints\": [");
	for (size_t k = 0; k < r->res.nr_cp; k++) {
		printf("%s{\"name\": ", k ? ", " : "");
		json_string(r->res.cp[k].name);
		printf(", \"ns\": ");
		json_double(predict_ns(r->cpu, r->granule, &r->res.cp[k]));
		print_checkpoint_parts_json(r->cpu, r->granule, &r->res.cp[k]);
		printf(", \"events\": ");
		print_events_json(&r->res.cp[k].stats);
		printf("}");
	}
	printf("]");
	printf(", \"invariants_checked\": %s", checked ? "true" : "false");
	print_findings_json(&r->fs);
	print_caveats_json(NULL, &r->set, 1);
	printf("}");
}

static void print_run_text(const struct one_run *r, bool wide, bool checked)
{
	char label[96];

	run_label(r, label, sizeof(label));
	printf("%s%s\n", label, r->res.err ? " (stopped by an error)" : "");
	for (size_t k = 0; k < r->res.nr_cp; k++) {
		printf("  %-24s %14.3f us\n", r->res.cp[k].name,
		       predict_ns(r->cpu, r->granule, &r->res.cp[k]) / 1e3);
		print_events_text(&r->res.cp[k].stats, wide);
	}
	print_findings_text(&r->fs, label, checked);
}

/*
 * The checkpoints' times side by side, one line per checkpoint and run, the
 * speed-up labelled with the run it is against (the first): names whole, 80
 * columns for kernel names up to 26 characters.
 */
static void print_times_of(struct one_run *const *r, unsigned int n, const char *what,
			   bool by_cpu)
{
	char against[64];

	snprintf(against, sizeof(against), "speed-up vs %s",
		 by_cpu ? ptsim_cpu_name(r[0]->cpu) : r[0]->set);
	if (by_cpu)
		printf("%uK, %s: the CPUs compared\n", (1u << r[0]->granule) / 1024, r[0]->set);
	printf("%s  %-16s %-26s %12s  %s\n", by_cpu ? "" : "\n", "checkpoint", what, "time (us)",
	       against);
	for (size_t k = 0; k < r[0]->res.nr_cp; k++) {
		double t0 = predict_ns(r[0]->cpu, r[0]->granule, &r[0]->res.cp[k]);

		for (unsigned int i = 0; i < n; i++) {
			double t = k < r[i]->res.nr_cp ?
				   predict_ns(r[i]->cpu, r[i]->granule, &r[i]->res.cp[k]) : 0;

			printf("  %-16s %-26s %12.3f  x%.3f\n", i ? "" : r[0]->res.cp[k].name,
			       by_cpu ? ptsim_cpu_name(r[i]->cpu) : r[i]->set, t / 1e3,
			       t > 0 ? t0 / t : 0);
		}
	}
}

static void print_times(struct one_run *first, unsigned int n, const char *what)
{
	struct one_run *r[MAX_SETS];
	const char *sets[MAX_SETS];

	for (unsigned int i = 0; i < n; i++)
		r[i] = &first[i];
	print_times_of(r, n, what, false);
	for (unsigned int i = 0; i < n; i++)
		sets[i] = first[i].set;
	print_caveats(NULL, sets, n, 2);
}

static void print_times_by_cpu(struct one_run *const *r, unsigned int n)
{
	print_times_of(r, n, "cpu", true);
}

/* Run b against run a, checkpoint by checkpoint (the same names in both). */
static void compare(const struct one_run *a, const struct one_run *b, bool by_cpu, bool json,
		    unsigned int top, bool *first)
{
	char la[96], lb[96];

	if (by_cpu) {
		snprintf(la, sizeof(la), "%s", ptsim_cpu_name(a->cpu));
		snprintf(lb, sizeof(lb), "%s", ptsim_cpu_name(b->cpu));
	} else {
		snprintf(la, sizeof(la), "%s", a->set);
		snprintf(lb, sizeof(lb), "%s", b->set);
	}
	if (!json)
		printf("%s -> %s on %s, %uK: per event\n", la, lb,
		       by_cpu ? a->set : ptsim_cpu_name(a->cpu), (1u << a->granule) / 1024);
	for (size_t k = 0; k < a->res.nr_cp && k < b->res.nr_cp; k++) {
		struct diff_side sa = { la, a->cpu, a->granule, &a->res.cp[k].stats, &a->res.cp[k].loops };
		struct diff_side sb = { lb, b->cpu, b->granule, &b->res.cp[k].stats, &b->res.cp[k].loops };

		if (json) {
			printf("%s\n  ", *first ? "" : ",");
			run_diff_json(a->res.cp[k].name, &sa, &sb);
			*first = false;
		} else {
			run_diff_text(a->res.cp[k].name, &sa, &sb, by_cpu, top);
		}
	}
	if (!json)
		printf("\n");
}

/* A time in the unit that suits it, four significant digits: "2.217 ms", "498.2 us". */
static void scaled_time(double ns, char *buf, size_t len)
{
	static const char *const unit[] = { "ns", "us", "ms", "s" };
	unsigned int u = 0;

	while (u < 3 && fabs(ns) >= 999.95) {
		ns /= 1000;
		u++;
	}
	snprintf(buf, len, "%.*f %s", fabs(ns) >= 99.995 ? 1 : fabs(ns) >= 9.9995 ? 2 : 3, ns,
		 unit[u]);
}

/* A run's time: its checkpoints' (k < 0: all of them, the whole scenario). */
static double run_ns(const struct one_run *r, int k)
{
	double ns = 0;

	for (size_t i = 0; i < r->res.nr_cp; i++)
		if (k < 0 || (size_t)k == i)
			ns += predict_ns(r->cpu, r->granule, &r->res.cp[i]);
	return ns;
}

#define SUMMARY_KERNELS	4	/* kernels per table: 80 columns */
#define SUMMARY_COL	16	/* a kernel's column: " 2.334 ms x0.950" */

/* A kernel's column heading: its name, or [i] (with a legend below) when it does not fit. */
static void kernel_heading(const char *set, unsigned int i, char *buf, size_t len)
{
	if (strlen(set) <= SUMMARY_COL - 1)
		snprintf(buf, len, "%s", set);
	else
		snprintf(buf, len, "[%u]", i + 1);
}

/* One row of a summary table: a checkpoint's (k) or the whole scenario's (k < 0) times. */
static void summary_row(const struct one_run *r, const unsigned int *idx, unsigned int n,
			const char *name, int k)
{
	double t0 = run_ns(&r[0], k);

	printf("  %-14s", name);
	for (unsigned int j = 0; j < n; j++) {
		double t = run_ns(&r[idx[j]], k);
		char time[24], cell[40];

		scaled_time(t, time, sizeof(time));
		if (idx[j] && t > 0)
			snprintf(cell, sizeof(cell), "%s x%.3f", time, t0 / t);
		else
			snprintf(cell, sizeof(cell), "%s", time);
		printf(" %*s", SUMMARY_COL - 1, cell);
	}
	printf("\n");
}

/* One summary table: the runs r[idx[0..n-1]] (idx[0] is 0, the first kernel) as columns. */
static void summary_table(const struct one_run *r, const unsigned int *idx, unsigned int n,
			  const char *label)
{
	printf("%-16s", label);
	for (unsigned int j = 0; j < n; j++) {
		char head[24];

		kernel_heading(r[idx[j]].set, idx[j], head, sizeof(head));
		printf(" %*s", SUMMARY_COL - 1, head);
	}
	printf("\n");
	for (size_t k = 0; k < r[0].res.nr_cp; k++)
		summary_row(r, idx, n, r[0].res.cp[k].name, (int)k);
	summary_row(r, idx, n, "whole scenario", -1);
	printf("  %-14s", "diagnostics");
	for (unsigned int j = 0; j < n; j++) {
		uint64_t d = findings_total(&r[idx[j]].fs);
		char cell[24];

		snprintf(cell, sizeof(cell), d ? "%llu" : "none", (unsigned long long)d);
		printf(" %*s", SUMMARY_COL - 1, r[idx[j]].res.err ? "stopped" : cell);
	}
	printf("\n");
	for (unsigned int j = 0; j < n; j++)
		if (strlen(r[idx[j]].set) > SUMMARY_COL - 1)
			printf("  [%u] %s\n", idx[j] + 1, r[idx[j]].set);
}

/*
 * run's summary for one CPU and granule (issue 47: the answer first): each
 * checkpoint's time on each kernel in a unit that suits it, each kernel's
 * speed-up against the first beside it, the whole scenario's, and each
 * run's diagnostics; SUMMARY_KERNELS kernels a table, the first in each.
 */
static void print_summary(const struct one_run *r, unsigned int nr_sets)
{
	unsigned int idx[SUMMARY_KERNELS], next = 1;
	const char *sets[MAX_SETS];
	char label[64];

	snprintf(label, sizeof(label), "%s, %uK", ptsim_cpu_name(r[0].cpu),
		 (1u << r[0].granule) / 1024);
	do {
		unsigned int n = 0;

		idx[n++] = 0;
		while (n < SUMMARY_KERNELS && next < nr_sets)
			idx[n++] = next++;
		summary_table(r, idx, n, label);
	} while (next < nr_sets);
	for (unsigned int i = 0; i < nr_sets; i++)
		sets[i] = r[i].set;
	print_caveats(NULL, sets, nr_sets, 2);
}

/* The verdict line on the diagnostics of every run. */
static void print_verdict(unsigned int nr_runs, uint64_t nr_diags, bool checked)
{
	if (nr_diags)
		printf("verdict: %llu diagnostic%s (listed above the per-event diffs; run --check "
		       "exits 3 on one)\n", (unsigned long long)nr_diags, nr_diags == 1 ? "" : "s");
	else
		printf("verdict: no diagnostics in %u run%s%s\n", nr_runs, nr_runs == 1 ? "" : "s",
		       checked ? "" : " (invariants not checked: --no-check-invariants)");
}

/*
 * The end of run's text when per-event diffs followed the summary (issue 47:
 * the answer on the last screen too): each CPU and granule's whole-scenario
 * speed-up of every kernel against the first, and the verdict again.
 */
static void print_recap(const struct one_run *runs, unsigned int nr_units, unsigned int nr_sets,
			uint64_t nr_diags, bool checked)
{
	printf("the answer (summary at the top): the whole scenario, each kernel against %s\n",
	       runs[0].set);
	for (unsigned int u = 0; u < nr_units; u++) {
		const struct one_run *r = &runs[u * nr_sets];
		double t0 = run_ns(&r[0], -1);
		char line[1024];
		size_t at;

		at = (size_t)snprintf(line, sizeof(line), "  %s, %uK:", ptsim_cpu_name(r[0].cpu),
				      (1u << r[0].granule) / 1024);
		for (unsigned int i = 1; i < nr_sets && at < sizeof(line); i++) {
			double t = run_ns(&r[i], -1);

			at += (size_t)snprintf(line + at, sizeof(line) - at, " %s x%.3f%s", r[i].set,
					       t > 0 ? t0 / t : 0, i + 1 < nr_sets ? "," : "");
		}
		wrap_print(stdout, 4, "%s", line);
	}
	print_verdict(nr_units * nr_sets, nr_diags, checked);
}

/*
 * run's text without --verbose: the summary of every CPU and granule, a
 * verdict on the diagnostics, and each run's that had any listed (the
 * per-event comparisons follow it).
 */
static void print_answer(const struct one_run *runs, unsigned int nr_units, unsigned int nr_sets,
			 uint64_t nr_diags, bool checked)
{
	char label[96];

	for (unsigned int u = 0; u < nr_units; u++) {
		print_summary(&runs[u * nr_sets], nr_sets);
		printf("\n");
	}
	if (nr_diags)
		printf("verdict: %llu diagnostic%s (listed below; run --check exits 3 on one)\n",
		       (unsigned long long)nr_diags, nr_diags == 1 ? "" : "s");
	else
		print_verdict(nr_units * nr_sets, nr_diags, checked);
	for (unsigned int k = 0; k < nr_units * nr_sets; k++) {
		if (!findings_total(&runs[k].fs))
			continue;
		run_label(&runs[k], label, sizeof(label));
		printf("%s\n", label);
		print_findings_text(&runs[k].fs, label, checked);
	}
	printf("\n");
}

/* What every combination of a run shares. */
struct run_ctx {
	const struct scenario *s;
	const char *path;
	const char *const *sets;
	unsigned int nr_sets;
	struct scn_limits lim;
	bool check_invariants;
	unsigned int bbm_level, bbml2_noabort;	/* --bbm, --noabort (0: the scenario's) */
};

/*
 * The scenario on one CPU and granule with every feature set, into out[0..
 * nr_sets-1]; failures are reported on stderr. 0, or 1 when a run failed.
 */
static int run_combination(const struct run_ctx *c, enum ptsim_cpu cpu, enum ptsim_granule gr,
			   struct one_run *out)
{
	struct scn_machine mc = scenario_machine_on(c->s, cpu, gr);
	int status = 0;

	if (c->bbm_level)
		mc.bbm_level = c->bbm_level;
	if (c->bbml2_noabort)
		mc.bbml2_noabort = c->bbml2_noabort;
	for (unsigned int i = 0; i < c->nr_sets; i++) {
		struct one_run *r = &out[i];

		progress("running %s on %s, %uK, %s", c->path, ptsim_cpu_name(cpu), (1u << gr) / 1024,
			 c->sets[i]);
		r->cpu = cpu;
		r->granule = gr;
		r->set = c->sets[i];
		findings_reset_for_user(&r->fs, c->s, c->check_invariants);
		if (scenario_run(c->s, &mc, c->sets[i], findings_diag, &r->fs, findings_hook, &r->fs,
				 &c->lim, &r->res)) {
			fprintf(stderr, "%s:%s%s\n", c->path, r->res.msg[0] ? r->res.msg : " error: failed",
				strstr(r->res.msg, "work budget") ? " (--max-work)" : "");
			status = 1;
		}
	}
	return status;
}

/*
 * What a worker's queries print (pagemap, vmas, ptdump) goes to the parent
 * as it is printed, in chunks of [size_t n][n bytes] ended by n = 0, so a
 * long output costs no memory (a worker that buffered it all could run
 * short and cut it); the parent copies each chunk to stdout in order.
 */
static ssize_t query_chunk_write(void *cookie, const char *buf, size_t n)
{
	int fd = *(int *)cookie;

	if (!n)
		return 0;
	if (write_all(fd, &n, sizeof(n)) || write_all(fd, buf, n))
		return -1;
	return (ssize_t)n;
}

/*
 * A worker's report of one combination, after its query output: its
 * status, and each run's result, checkpoints and findings as they are in
 * memory (the parent mends the pointers: the same binary on both sides).
 */
static int send_combination(int fd, int status, const struct one_run *runs, unsigned int nr)
{
	const size_t end = 0;

	if (write_all(fd, &end, sizeof(end)) || write_all(fd, &status, sizeof(status)))
		return -1;
	for (unsigned int i = 0; i < nr; i++)
		if (write_all(fd, &runs[i].res, sizeof(runs[i].res)) ||
		    write_all(fd, runs[i].res.cp, runs[i].res.nr_cp * sizeof(runs[i].res.cp[0])) ||
		    write_all(fd, &runs[i].fs, sizeof(runs[i].fs)))
			return -1;
	return 0;
}

/* The parent's side of send_combination: the query text printed, the runs in out. */
static bool receive_combination(FILE *f, const struct run_ctx *c, enum ptsim_cpu cpu,
				enum ptsim_granule gr, struct one_run *out, int *status)
{
	char buf[4096];
	size_t len;

	for (;;) {	/* the query output's chunks, to the empty one */
		if (read_all(f, &len, sizeof(len)))
			return false;
		if (!len)
			break;
		while (len) {
			size_t n = fread(buf, 1, len < sizeof(buf) ? len : sizeof(buf), f);

			if (!n)
				return false;
			fwrite(buf, 1, n, stdout);
			len -= n;
		}
	}
	if (read_all(f, status, sizeof(*status)))
		return false;
	for (unsigned int i = 0; i < c->nr_sets; i++) {
		struct one_run *r = &out[i];

		if (read_all(f, &r->res, sizeof(r->res)))
			return false;
		r->res.cp = r->res.nr_cp ? calloc(r->res.nr_cp, sizeof(r->res.cp[0])) : NULL;
		if ((r->res.nr_cp && !r->res.cp) ||
		    read_all(f, r->res.cp, r->res.nr_cp * sizeof(r->res.cp[0])) ||
		    read_all(f, &r->fs, sizeof(r->fs))) {
			free(r->res.cp);
			memset(&r->res, 0, sizeof(r->res));
			return false;
		}
		r->fs.s = c->s;
		r->cpu = cpu;
		r->granule = gr;
		r->set = c->sets[i];
	}
	return true;
}

/* The units' worker: every jobs-th combination from j, its queries' output captured. */
static void combination_worker(const struct run_ctx *c, const enum ptsim_cpu *ucpu,
			       const enum ptsim_granule *ugr, unsigned int nr_units, unsigned int j,
			       unsigned int jobs, struct one_run *runs, int fd)
{
	static const cookie_io_functions_t chunks = { .write = query_chunk_write };
	struct run_ctx mine = *c;
	int bad = 0;

	for (unsigned int u = j; u < nr_units && !bad; u += jobs) {
		int st;

		mine.lim.query_out = c->lim.query_out ? fopencookie(&fd, "w", chunks) : NULL;
		if (c->lim.query_out && !mine.lim.query_out)
			_exit(1);
		st = run_combination(&mine, ucpu[u], ugr[u], &runs[u * c->nr_sets]);
		/* a chunk that did not reach the parent fails the worker: no output is cut silently */
		if (mine.lim.query_out) {
			bool lost = fflush(mine.lim.query_out) || ferror(mine.lim.query_out);

			if (fclose(mine.lim.query_out) || lost)
				_exit(1);
		}
		bad = send_combination(fd, st, &runs[u * c->nr_sets], c->nr_sets);
	}
	_exit(bad);
}

/*
 * One combination's runs as the JSON of run, or with --verbose as its text
 * (each checkpoint's time and counts; with several kernels, their times);
 * the text without --verbose waits for the summary (print_summary).
 */
static void print_combination(struct one_run *r, unsigned int nr_sets, bool json, bool wide,
			      bool verbose, bool checked, bool *first)
{
	if (!json && !verbose)
		return;
	for (unsigned int i = 0; i < nr_sets; i++) {
		if (json) {
			print_run_json(&r[i], *first, checked);
			*first = false;
			continue;
		}
		print_run_text(&r[i], wide, checked);
	}
	if (!json && nr_sets > 1)
		print_times(r, nr_sets, "kernel");
	if (!json)
		printf("\n");
}

/*
 * run --jobs: the combinations in jobs fork()ed workers (worker j takes
 * every jobs-th from j); the parent takes their reports in order, so what
 * it prints, the comparisons after, and the exit status are one process's.
 */
static int run_in_workers(const struct run_ctx *c, const enum ptsim_cpu *ucpu,
			  const enum ptsim_granule *ugr, unsigned int nr_units, unsigned int jobs,
			  struct one_run *runs, bool json, bool wide, bool verbose, bool *first)
{
	pid_t pids[MAX_JOBS];
	FILE *from[MAX_JOBS];
	bool broken = false;
	int status = 0;
	unsigned int started = 0;

	fflush(stdout);
	fflush(stderr);
	for (unsigned int j = 0; j < jobs; j++, started++) {
		int fds[2];

		if (pipe(fds))
			break;
		pids[j] = fork();
		if (pids[j] < 0) {
			close(fds[0]);
			close(fds[1]);
			break;
		}
		if (!pids[j]) {
			close(fds[0]);
			for (unsigned int k = 0; k < j; k++)
				fclose(from[k]);
			combination_worker(c, ucpu, ugr, nr_units, j, jobs, runs, fds[1]);
		}
		close(fds[1]);
		from[j] = fdopen(fds[0], "r");
		if (!from[j]) {
			close(fds[0]);
			broken = true;
		}
	}
	if (started < jobs) {
		fprintf(stderr, "run: --jobs: %s\n", strerror(errno));
		broken = true;
	}
	for (unsigned int u = 0; u < nr_units && !broken; u++) {
		int st;

		if (!receive_combination(from[u % jobs], c, ucpu[u], ugr[u], &runs[u * c->nr_sets], &st)) {
			broken = true;
			break;
		}
		status |= st;	/* a failed run is reported, and the others still print */
		print_combination(&runs[u * c->nr_sets], c->nr_sets, json, wide, verbose,
				  c->check_invariants, first);
	}
	for (unsigned int j = 0; j < started; j++) {
		int st;

		if (from[j])
			fclose(from[j]);
		if (waitpid(pids[j], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			broken = true;
	}
	if (broken)
		fprintf(stderr, "run: --jobs: a worker failed\n");
	return status | broken;
}

int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cpu", required_argument, NULL, 'c' },
		{ "granule", required_argument, NULL, 'g' },
		{ "features", required_argument, NULL, 'f' },
		{ "max-work", required_argument, NULL, 'w' },
		{ "findings", no_argument, NULL, 'F' },
		{ "no-check-invariants", no_argument, NULL, 'n' },
		{ "check", no_argument, NULL, 'C' },
		{ "json", no_argument, NULL, 'j' },
		{ "wide", no_argument, NULL, 'W' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "events", required_argument, NULL, 'e' },
		{ "jobs", required_argument, NULL, 'J' },
		{ "bbm", required_argument, NULL, 'b' },
		{ "noabort", required_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct scn_limits lim = { SCN_DEFAULT_MAX_WORK, SCN_RUN_OP_WORK, 0, NULL };
	const char *sets[MAX_SETS];
	unsigned int nr_sets = 0, cpus = 0, granules = 0, nr_cpus = 0;
	enum ptsim_cpu cpu_order[PTSIM_CPU__COUNT];
	bool json = false, first = true, check_invariants = true, check = false, wide = false;
	bool verbose = false;
	unsigned int top = RUN_DIFF_TOP;
	enum ptsim_granule gran_order[3];
	unsigned int nr_grans, nr_runs, jobs = 1, bbm = 0, noabort = 0;
	struct one_run *runs;
	uint64_t nr_diags = 0;
	struct scenario s;
	char err[SCN_ERR_MAX], *text;
	size_t len;
	int c, status = 0;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (parse_cpus("run", optarg, &cpus, cpu_order, &nr_cpus))
				return 2;
			break;
		case 'g':
			if (parse_granules("run", optarg, &granules))
				return 2;
			break;
		case 'f':
			if (nr_sets == MAX_SETS) {
				fprintf(stderr, "run: at most %d --features\n", MAX_SETS);
				return 2;
			}
			sets[nr_sets++] = optarg;
			break;
		case 'w':
			if (!parse_u64(optarg, &lim.max_work) || !lim.max_work) {
				fprintf(stderr, "run: --max-work needs a positive number\n");
				return 2;
			}
			break;
		case 'F': break;	/* findings are always listed now; kept for scripts */
		case 'n': check_invariants = false; break;
		case 'C': check = true; break;
		case 'j': json = true; break;
		case 'W': wide = true; break;
		case 'v': verbose = true; break;
		case 'e': {
			char *end = NULL;
			unsigned long v = strtoul(optarg, &end, 10);

			if (!strcmp(optarg, "all")) {
				top = 0;
			} else if (isdigit((unsigned char)*optarg) && !*end && v && v <= PTSIM_EV__COUNT) {
				top = (unsigned int)v;
			} else {
				fprintf(stderr, "run: --events: want all or 1..%d, not '%s'\n",
					PTSIM_EV__COUNT, optarg);
				return 2;
			}
			break;
		}
		case 'b':	/* stored + 1, as scn_machine keeps it: 0 is the CPU's own */
			if (strlen(optarg) != 1 || optarg[0] < '0' || optarg[0] > '2') {
				fprintf(stderr, "run: --bbm needs 0, 1 or 2\n");
				return 2;
			}
			bbm = (unsigned int)(optarg[0] - '0') + 1;
			break;
		case 'A':
			if (strcmp(optarg, "on") && strcmp(optarg, "off")) {
				fprintf(stderr, "run: --noabort needs on or off\n");
				return 2;
			}
			noabort = !strcmp(optarg, "on") ? 2 : 1;
			break;
		case 'J': {
			char *end = NULL;
			unsigned long v = strtoul(optarg, &end, 10);

			if (!isdigit((unsigned char)*optarg) || *end || !v || v > MAX_JOBS) {
				fprintf(stderr, "run: --jobs: want 1..%d, not '%s'\n", MAX_JOBS, optarg);
				return 2;
			}
			jobs = (unsigned int)v;
			break;
		}
		case 'h': return command_usage("run", stdout);
		default:
			if (optopt)
				fprintf(stderr, "run: option %s needs an argument\n", argv[optind - 1]);
			else
				fprintf(stderr, "run: unknown option %s\n", argv[optind - 1]);
			return command_usage("run", stderr);
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "run: expected one scenario file\n");
		return command_usage("run", stderr);
	}
	/* the options first: a usage error is one whatever the file holds */
	for (unsigned int i = 0; i < nr_sets; i++) {
		int ret = check_feature_spec("run", sets[i]);

		if (ret)
			return ret;
	}
	text = read_file(argv[optind], &len);
	if (!text) {
		fprintf(stderr, "run: cannot read %s: %s\n", argv[optind], read_file_error(errno));
		return 1;
	}
	if (scenario_parse(text, len, argv[optind], &s, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		free(text);
		return 2;
	}
	free(text);
	if (!cpus) {
		cpus = 1u << s.machine.cpu;
		cpu_order[nr_cpus++] = s.machine.cpu;
	}
	if (!granules)
		granules = 1u << s.machine.granule;
	if (!nr_sets) {
		int ret = check_feature_spec("run", s.machine.preset);

		if (ret) {
			scenario_free(&s);
			return ret;
		}
		sets[nr_sets++] = s.machine.preset;
	}
	if (!s.nr) {
		fprintf(stderr, "run: %s: no operations\n", argv[optind]);
		scenario_free(&s);
		return 2;
	}
	nr_grans = 0;
	for (unsigned int gr = PTSIM_GRANULE_4K; gr <= PTSIM_GRANULE_64K; gr += 2)
		if (granules & (1u << gr))
			gran_order[nr_grans++] = (enum ptsim_granule)gr;
	nr_runs = nr_cpus * nr_grans * nr_sets;
	runs = calloc(nr_runs, sizeof(*runs));
	if (!runs) {
		scenario_free(&s);
		return 1;
	}
	if (json) {
		json_begin("run", "runs");
		printf("[");
	} else {
		lim.query_out = stdout;	/* pagemap, vmas and ptdump print as each run reaches them */
	}
	struct run_ctx ctx = { &s, argv[optind], sets, nr_sets, lim, check_invariants, bbm, noabort };
	enum ptsim_cpu ucpu[PTSIM_CPU__COUNT * 3];
	enum ptsim_granule ugr[PTSIM_CPU__COUNT * 3];
	unsigned int nr_units = 0;

	/* the combinations, CPUs in the order --cpu names them: unit u's runs at runs[u * nr_sets] */
	for (unsigned int ci = 0; ci < nr_cpus; ci++)
		for (unsigned int gi = 0; gi < nr_grans; gi++) {
			ucpu[nr_units] = cpu_order[ci];
			ugr[nr_units++] = gran_order[gi];
		}
	if (jobs > nr_units)
		jobs = nr_units;
	if (jobs > 1)
		status |= run_in_workers(&ctx, ucpu, ugr, nr_units, jobs, runs, json, wide, verbose,
					 &first);
	else
		for (unsigned int u = 0; u < nr_units; u++) {
			status |= run_combination(&ctx, ucpu[u], ugr[u], &runs[u * nr_sets]);
			print_combination(&runs[u * nr_sets], nr_sets, json, wide, verbose,
					  check_invariants, &first);
		}
	for (unsigned int k = 0; k < nr_runs; k++)
		nr_diags += findings_total(&runs[k].fs);
	if (json)
		printf("\n], \"comparisons\": [");
	else if (!verbose)
		print_answer(runs, nr_units, nr_sets, nr_diags, check_invariants);
	first = true;
	/* each kernel against the first, on each CPU and granule */
	for (unsigned int ci = 0; ci < nr_cpus; ci++)
		for (unsigned int gi = 0; gi < nr_grans; gi++)
			for (unsigned int i = 1; i < nr_sets; i++)
				compare(&runs[RUN_AT(ci, gi, 0)], &runs[RUN_AT(ci, gi, i)], false, json,
					top, &first);
	/* each CPU against the first, with each kernel and granule (text: --verbose) */
	for (unsigned int gi = 0; nr_cpus > 1 && (json || verbose) && gi < nr_grans; gi++) {
		for (unsigned int i = 0; i < nr_sets; i++) {
			struct one_run *by_cpu[PTSIM_CPU__COUNT];

			for (unsigned int ci = 0; ci < nr_cpus; ci++)
				by_cpu[ci] = &runs[RUN_AT(ci, gi, i)];
			if (!json) {
				print_times_by_cpu(by_cpu, nr_cpus);
				printf("\n");
			}
			for (unsigned int ci = 1; ci < nr_cpus; ci++)
				compare(by_cpu[0], by_cpu[ci], true, json, top, &first);
		}
	}
	if (json) {
		printf("]");
		json_end();
	} else if (!verbose && nr_sets > 1) {
		print_recap(runs, nr_units, nr_sets, nr_diags, check_invariants);
	}
	for (unsigned int k = 0; k < nr_runs; k++)
		scn_result_free(&runs[k].res);
	free(runs);
	scenario_free(&s);
	if (check && nr_diags && !status) {
		fprintf(stderr, "run: --check: %llu diagnostic%s\n", (unsigned long long)nr_diags,
			nr_diags == 1 ? "" : "s");
		status = 3;
	}
	return status;
}
