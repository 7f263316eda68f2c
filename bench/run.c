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

#define MAX_SETS 8

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

int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cpu", required_argument, NULL, 'c' },
		{ "granule", required_argument, NULL, 'g' },
		{ "features", required_argument, NULL, 'f' },
		{ "max-work", required_argument, NULL, 'w' },
		{ "bbm", required_argument, NULL, 'b' },
		{ "noabort", required_argument, NULL, 'n' },
		{ "findings", no_argument, NULL, 'F' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct scn_limits lim = { SCN_DEFAULT_MAX_WORK, SCN_RUN_OP_WORK, 0 };
	const char *sets[MAX_SETS];
	unsigned int nr_sets = 0, cpus = 0, granules = 0, nr_cpus = 0, bbm = 0, noabort = 0;
	enum ptsim_cpu cpu_order[PTSIM_CPU__COUNT];
	bool json = false, first = true, want_findings = false;
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
		case 'b':
			if (strlen(optarg) != 1 || optarg[0] < '0' || optarg[0] > '2') {
				fprintf(stderr, "run: --bbm needs 0, 1 or 2\n");
				return 2;
			}
			bbm = (unsigned int)(optarg[0] - '0') + 1;
			break;
		case 'n':
			if (strcmp(optarg, "on") && strcmp(optarg, "off")) {
				fprintf(stderr, "run: --noabort needs on or off\n");
				return 2;
			}
			noabort = !strcmp(optarg, "on") ? 2 : 1;
			break;
		case 'F': want_findings = true; break;
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
	if (json)
		printf("[");
	for (unsigned int ci = 0; ci < nr_cpus; ci++) {
		enum ptsim_cpu cpu = cpu_order[ci];	/* in the order --cpu names them */

		for (unsigned int gr = PTSIM_GRANULE_4K; gr <= PTSIM_GRANULE_64K; gr += 2) {
			struct scn_result res[MAX_SETS];
			struct findings fs[MAX_SETS];
			struct scn_machine mc = s.machine;

			if (!(granules & (1u << gr)))
				continue;
			mc.cpu = cpu;
			mc.granule = (enum ptsim_granule)gr;
			if (bbm)
				mc.bbm_level = bbm;
			if (noabort)
				mc.bbml2_noabort = noabort;
			if (gr != s.machine.granule && mc.va_bits == 48 && gr == PTSIM_GRANULE_16K)
				mc.va_bits = 47;	/* 16K has no 48-bit 4-level layout without LPA2 */
			for (unsigned int i = 0; i < nr_sets; i++) {
				progress("running %s on %s, %uK, %s", argv[optind], ptsim_cpu_name(mc.cpu),
					 (1u << gr) / 1024, sets[i]);
				findings_reset(&fs[i], &s);
				if (scenario_run(&s, &mc, sets[i], want_findings ? findings_diag : NULL, &fs[i],
						 want_findings ? findings_hook : NULL, &fs[i], &lim, &res[i])) {
					fprintf(stderr, "%s:%s%s\n", argv[optind],
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
		}
	}
	if (json)
		printf("\n]\n");
	scenario_free(&s);
	return status;
}
