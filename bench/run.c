// SPDX-License-Identifier: MIT
/*
 * ptsim-bench run FILE: a scenario on every combination of CPU, granule and
 * feature set asked for, with each checkpoint's counts and predicted time,
 * and the feature sets side by side (doc/scenario.md).
 */
#include "findings.h"
#include "rows.h"
#include "scenario.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_SETS 8
#define MAX_JOBS 64

char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0;
	int err;

	if (!f)
		return NULL;
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
	}
	/* a read error (a directory: EISDIR) is not an empty file */
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

/* "4K,64k": bit per granule shift (any case). */
static int parse_granules(const char *list, unsigned int *mask)
{
	char buf[64];

	*mask = 0;
	if (strlen(list) >= sizeof(buf)) {
		fprintf(stderr, "run: --granule: expected 4K, 16K or 64K, comma-separated\n");
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
			fprintf(stderr, "run: --granule: unknown granule '%s'; valid: 4K, 16K, 64K\n", t);
			return -EINVAL;
		}
	}
	if (!*mask)
		fprintf(stderr, "run: --granule: expected 4K, 16K or 64K, comma-separated\n");
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

static double predict_ns(enum ptsim_cpu cpu, enum ptsim_granule g, const struct ptsim_stats *s)
{
	struct ptsim_prediction p;

	return ptsim_predict(cpu, g, s, &p) ? 0 : p.total_ns;
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

static void print_events_text(const struct ptsim_stats *s)
{
	unsigned int col = 6;

	printf("      ");
	for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++) {
		char item[64];
		int n;

		if (!s->ev[e])
			continue;
		n = snprintf(item, sizeof(item), "%s=%llu ", ptsim_event_name((enum ptsim_event)e),
			     (unsigned long long)s->ev[e]);
		if (col + (unsigned int)n > 98) {
			printf("\n      ");
			col = 6;
		}
		printf("%s", item);
		col += (unsigned int)n;
	}
	printf("\n");
}

/* What every run of the scenario shares: the combinations' parts and the output form. */
struct run_ctx {
	const struct scenario *s;
	const char *path;
	const char *const *sets;
	unsigned int nr_sets;
	const struct scn_limits *lim;
	bool json, want_findings;
};

/*
 * The scenario on one CPU and granule with every feature set, printed; the
 * unit-th combination of the run (the first prints no JSON separator).
 * 0, or 1 when a run failed (reported on stderr).
 */
static int run_unit(const struct run_ctx *c, enum ptsim_cpu cpu, unsigned int gr, unsigned int unit)
{
	struct scn_result res[MAX_SETS];
	struct findings fs[MAX_SETS];
	struct scn_machine mc = c->s->machine;
	const unsigned int nr_sets = c->nr_sets;
	const char *const *sets = c->sets;
	const bool json = c->json, want_findings = c->want_findings;
	bool first = unit == 0;
	int status = 0;

	mc.cpu = cpu;
	mc.granule = (enum ptsim_granule)gr;
	if (gr != c->s->machine.granule && mc.va_bits == 48 && gr == PTSIM_GRANULE_16K)
		mc.va_bits = 47;	/* 16K has no 48-bit 4-level layout without LPA2 */
	for (unsigned int i = 0; i < nr_sets; i++) {
		progress("running %s on %s, %uK, %s", c->path, ptsim_cpu_name(mc.cpu),
			 (1u << gr) / 1024, sets[i]);
		findings_reset(&fs[i], c->s);
		if (scenario_run(c->s, &mc, sets[i], want_findings ? findings_diag : NULL, &fs[i],
				 want_findings ? findings_hook : NULL, &fs[i], c->lim, &res[i])) {
			fprintf(stderr, "%s:%s%s\n", c->path,
				res[i].msg[0] ? res[i].msg : " failed",
				strstr(res[i].msg, "work budget") ? " (--max-work)" : "");
			status = 1;
		}
	}
	for (unsigned int i = 0; i < nr_sets; i++) {
		if (json) {
			printf("%s\n  {\"cpu\": \"%s\", \"granule\": \"%uK\", \"features\": ",
			       first ? "" : ",", ptsim_cpu_name(mc.cpu), (1u << gr) / 1024);
			json_string(sets[i]);
			printf(", \"error\": ");
			if (res[i].err)
				json_string(res[i].msg);
			else
				printf("null");
			printf(", \"checkpoints\": [");
			for (size_t k = 0; k < res[i].nr_cp; k++) {
				printf("%s{\"name\": ", k ? ", " : "");
				json_string(res[i].cp[k].name);
				printf(", \"ns\": %.6g, \"events\": ",
				       predict_ns(mc.cpu, mc.granule, &res[i].cp[k].stats));
				print_events_json(&res[i].cp[k].stats);
				printf("}");
			}
			printf("]");
			if (want_findings) {
				printf(", \"findings\": [");
				for (unsigned int k = 0; k < fs[i].nr; k++) {
					printf("%s{\"kind\": \"%s\", \"chain\": ", k ? ", " : "",
					       ptsim_diag_kind_name(fs[i].kinds[k]));
					json_string(fs[i].keys[k]);
					printf(", \"message\": ");
					json_string(fs[i].msgs[k]);
					printf("}");
				}
				printf("]");
			}
			printf("}");
			first = false;
			continue;
		}
		printf("%s, %uK, %s%s\n", ptsim_cpu_name(mc.cpu), (1u << gr) / 1024, sets[i],
		       res[i].err ? " (stopped by an error)" : "");
		for (size_t k = 0; k < res[i].nr_cp; k++) {
			printf("  %-24s %14.3f us\n", res[i].cp[k].name,
			       predict_ns(mc.cpu, mc.granule, &res[i].cp[k].stats) / 1e3);
			print_events_text(&res[i].cp[k].stats);
		}
		if (want_findings && !fs[i].nr)
			printf("  no findings\n");
		for (unsigned int k = 0; want_findings && k < fs[i].nr; k++)
			printf("  finding: %s %s\n    %s\n",
			       ptsim_diag_kind_name(fs[i].kinds[k]), fs[i].keys[k], fs[i].msgs[k]);
	}
	if (!json && nr_sets > 1) {
		printf("\n  %-24s", "checkpoint (us)");
		for (unsigned int i = 0; i < nr_sets; i++)
			printf(" %14.14s", sets[i]);
		printf("  speed-up vs the first\n");
		for (size_t k = 0; k < res[0].nr_cp; k++) {
			double t0 = predict_ns(mc.cpu, mc.granule, &res[0].cp[k].stats);

			printf("  %-24s", res[0].cp[k].name);
			for (unsigned int i = 0; i < nr_sets; i++)
				printf(" %14.3f", k < res[i].nr_cp ?
				       predict_ns(mc.cpu, mc.granule, &res[i].cp[k].stats) / 1e3 : 0);
			for (unsigned int i = 1; i < nr_sets; i++) {
				double t = k < res[i].nr_cp ?
					   predict_ns(mc.cpu, mc.granule, &res[i].cp[k].stats) : 0;

				printf("  x%.3f", t > 0 ? t0 / t : 0);
			}
			printf("\n");
		}
	}
	if (!json)
		printf("\n");
	for (unsigned int i = 0; i < nr_sets; i++)
		scn_result_free(&res[i]);
	return status;
}

static int write_all(int fd, const void *buf, size_t len)
{
	for (const char *p = buf; len;) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/*
 * Units taken by jobs fork()ed workers, worker j every jobs-th from j: each
 * unit's output captured (stdout pointed at a memory stream, as glibc lets a
 * program set it) and sent to the parent, which prints them in order.
 */
static int run_in_workers(const struct run_ctx *c, const enum ptsim_cpu *unit_cpu,
			  const unsigned int *unit_gr, unsigned int nr_units, unsigned int jobs)
{
	pid_t pids[MAX_JOBS];
	FILE *from[MAX_JOBS];
	bool broken = false;	/* a worker died or its report is cut short */
	int status = 0;

	fflush(stdout);
	fflush(stderr);
	for (unsigned int j = 0; j < jobs; j++) {
		int fds[2];

		if (pipe(fds) || (pids[j] = fork()) < 0) {
			fprintf(stderr, "run: --jobs: %s\n", strerror(errno));
			for (unsigned int k = 0; k < j; k++) {
				fclose(from[k]);
				waitpid(pids[k], NULL, 0);
			}
			return 1;
		}
		if (!pids[j]) {
			FILE *out = stdout;
			int bad = 0;

			close(fds[0]);
			for (unsigned int k = 0; k < j; k++)
				fclose(from[k]);
			for (unsigned int u = j; u < nr_units && !bad; u += jobs) {
				char *text = NULL;
				size_t len = 0;
				int st;

				stdout = open_memstream(&text, &len);
				if (!stdout)
					_exit(1);
				st = run_unit(c, unit_cpu[u], unit_gr[u], u);
				fclose(stdout);
				bad = write_all(fds[1], &st, sizeof(st)) || write_all(fds[1], &len, sizeof(len)) ||
				      write_all(fds[1], text, len);
				free(text);
			}
			stdout = out;
			_exit(bad);
		}
		close(fds[1]);
		from[j] = fdopen(fds[0], "r");
		if (!from[j]) {
			close(fds[0]);
			broken = true;
		}
	}
	for (unsigned int u = 0; u < nr_units && !broken; u++) {
		FILE *f = from[u % jobs];
		char buf[4096];
		size_t len;
		int st;

		if (fread(&st, sizeof(st), 1, f) != 1 || fread(&len, sizeof(len), 1, f) != 1) {
			broken = true;
			break;
		}
		status |= st;	/* a unit's failed run: reported, and the others still print */
		while (len) {
			size_t n = fread(buf, 1, len < sizeof(buf) ? len : sizeof(buf), f);

			if (!n) {
				broken = true;
				break;
			}
			fwrite(buf, 1, n, stdout);
			len -= n;
		}
	}
	for (unsigned int j = 0; j < jobs; j++) {
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
		{ "jobs", required_argument, NULL, 'J' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct scn_limits lim = { SCN_DEFAULT_MAX_WORK, SCN_RUN_OP_WORK, 0 };
	const char *sets[MAX_SETS];
	unsigned int nr_sets = 0, cpus = 0, granules = 0, nr_cpus = 0;
	enum ptsim_cpu cpu_order[PTSIM_CPU__COUNT];
	bool json = false, want_findings = false;
	unsigned int jobs = 1;
	struct scenario s;
	char err[256], *text;
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
			if (parse_granules(optarg, &granules))
				return 2;
			break;
		case 'f':
			if (nr_sets == MAX_SETS) {
				fprintf(stderr, "run: at most %d --features\n", MAX_SETS);
				return 2;
			}
			sets[nr_sets++] = optarg;
			break;
		case 'w': {
			char *end = NULL;

			errno = 0;
			lim.max_work = strtoull(optarg, &end, 0);
			if (!isdigit((unsigned char)*optarg) || *end || errno || !lim.max_work) {
				fprintf(stderr, "run: --max-work needs a positive number\n");
				return 2;
			}
			break;
		}
		case 'F': want_findings = true; break;
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
		case 'j': json = true; break;
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
	text = read_file(argv[optind], &len);
	if (!text) {
		fprintf(stderr, "run: cannot read %s: %s\n", argv[optind], strerror(errno));
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
	if (!nr_sets)
		sets[nr_sets++] = s.machine.preset;
	for (unsigned int i = 0; i < nr_sets; i++) {
		struct ptsim_machine_config cfg;
		struct ptsim_machine *m;

		int ret;

		ptsim_machine_config_init(&cfg);
		ret = ptsim_machine_create(&cfg, &m);
		if (ret) {
			fprintf(stderr, "run: machine: %s\n", ptsim_strerror(ret));
			scenario_free(&s);
			return 1;
		}
		if (scenario_apply_features(m, sets[i])) {
			char buf[256];
			const char *bad = unknown_feature(sets[i], buf, sizeof(buf));

			fprintf(stderr, "run: --features %s: unknown feature or preset '%s'\n  presets: ",
				sets[i], bad ? bad : sets[i]);
			print_valid_presets(stderr);
			fprintf(stderr, "\n  features: ");
			print_valid_features(stderr);
			fprintf(stderr, "\n");
			ptsim_machine_destroy(m);
			scenario_free(&s);
			return 2;
		}
		ptsim_machine_destroy(m);
	}
	if (!s.nr) {
		fprintf(stderr, "run: %s: no operations\n", argv[optind]);
		scenario_free(&s);
		return 2;
	}
	struct run_ctx ctx = { &s, argv[optind], sets, nr_sets, &lim, json, want_findings };
	enum ptsim_cpu unit_cpu[PTSIM_CPU__COUNT * 3];
	unsigned int unit_gr[PTSIM_CPU__COUNT * 3], nr_units = 0;

	/* the combinations, CPUs in the order --cpu names them */
	for (unsigned int ci = 0; ci < nr_cpus; ci++)
		for (unsigned int gr = PTSIM_GRANULE_4K; gr <= PTSIM_GRANULE_64K; gr += 2)
			if (granules & (1u << gr)) {
				unit_cpu[nr_units] = cpu_order[ci];
				unit_gr[nr_units++] = gr;
			}
	if (json)
		printf("[");
	if (jobs > nr_units)
		jobs = nr_units;
	if (jobs > 1)
		status = run_in_workers(&ctx, unit_cpu, unit_gr, nr_units, jobs);
	else
		for (unsigned int u = 0; u < nr_units; u++)
			status |= run_unit(&ctx, unit_cpu[u], unit_gr[u], u);
	if (json)
		printf("\n]\n");
	scenario_free(&s);
	return status;
}
