// SPDX-License-Identifier: MIT
/*
 * ptsim-bench merge FILE...: the findings of several `audit --json` runs (the
 * shards of one campaign, or separate campaigns) as one audit output. A group
 * is its kind and call chain; its CPUs and kernels are joined, and it keeps
 * the reproducer of its earliest scenario (then CPU, then file), which for the
 * shards of one campaign is the reproducer one process would have printed
 * (doc/scenario.md, "Audit").
 */
#include "json_read.h"
#include "rows.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MERGE_MAX_GROUPS 256
#define MERGE_MAX_PRESETS 64

struct merged {
	const struct json *g;		/* the representative: its message, scenario, found_on */
	const char *kind, *chain;
	double first_scenario;
	int found_cpu;
	/* per CPU, the kernels it fires on: bit i = presets[i] */
	uint64_t fires[PTSIM_CPU__COUNT];
};

struct merge {
	struct merged m[MERGE_MAX_GROUPS];
	size_t nr;
	const char *presets[MERGE_MAX_PRESETS];
	size_t nr_presets;
};

static int cpu_index(const char *name)
{
	for (int c = 0; c < PTSIM_CPU__COUNT; c++)
		if (!strcmp(ptsim_cpu_name((enum ptsim_cpu)c), name))
			return c;
	return -1;
}

static int kind_index(const char *name)
{
	for (int k = 0; k < PTSIM_DIAG__COUNT; k++)
		if (!strcmp(ptsim_diag_kind_name((enum ptsim_diag_kind)k), name))
			return k;
	return PTSIM_DIAG__COUNT;
}

static int preset_bit(struct merge *mg, const char *name)
{
	for (size_t i = 0; i < mg->nr_presets; i++)
		if (!strcmp(mg->presets[i], name))
			return (int)i;
	if (mg->nr_presets == MERGE_MAX_PRESETS)
		return -1;
	mg->presets[mg->nr_presets] = name;
	return (int)mg->nr_presets++;
}

static const char *str(const struct json *j, const char *key)
{
	const struct json *v = json_get(j, key);

	return v && v->kind == JSON_STRING ? v->string : NULL;
}

/* One group of a file into mg: 0, or -1 with the reason in why. */
static int add_group(struct merge *mg, const struct json *g, const char **why)
{
	const char *kind = str(g, "kind"), *chain = str(g, "chain");
	const struct json *fires = json_get(g, "fires"), *first = json_get(g, "first_scenario");
	const struct json *found = json_get(g, "found_on");
	const char *found_cpu = found ? str(found, "cpu") : NULL;
	struct merged *m = NULL;
	int cpu;

	if (!kind || !chain || !fires || fires->kind != JSON_OBJECT || !first ||
	    first->kind != JSON_NUMBER || !found_cpu || !str(g, "scenario") || !str(g, "message")) {
		*why = "a group without kind, chain, message, fires, first_scenario, found_on or scenario";
		return -1;
	}
	cpu = cpu_index(found_cpu);
	for (size_t i = 0; i < mg->nr; i++)
		if (!strcmp(mg->m[i].kind, kind) && !strcmp(mg->m[i].chain, chain))
			m = &mg->m[i];
	if (!m) {
		if (mg->nr == MERGE_MAX_GROUPS) {
			*why = "more groups than merge keeps";
			return -1;
		}
		m = &mg->m[mg->nr++];
		memset(m, 0, sizeof(*m));
		m->kind = kind;
		m->chain = chain;
		m->g = g;
		m->first_scenario = first->number;
		m->found_cpu = cpu;
	} else if (first->number < m->first_scenario ||
		   (first->number == m->first_scenario && cpu < m->found_cpu)) {
		m->g = g;
		m->first_scenario = first->number;
		m->found_cpu = cpu;
	}
	for (size_t i = 0; i < fires->n; i++) {
		int c = cpu_index(fires->keys[i]);
		const struct json *kernels = &fires->items[i];

		if (c < 0 || kernels->kind != JSON_ARRAY) {
			*why = "fires names an unknown CPU";
			return -1;
		}
		for (size_t k = 0; k < kernels->n; k++) {
			int bit = kernels->items[k].kind == JSON_STRING ?
				  preset_bit(mg, kernels->items[k].string) : -1;

			if (bit < 0) {
				*why = "fires holds too many kernels, or not names";
				return -1;
			}
			m->fires[c] |= UINT64_C(1) << bit;
		}
	}
	return 0;
}

static int cmp_merged(const void *x, const void *y)
{
	const struct merged *a = x, *b = y;
	int ka = kind_index(a->kind), kb = kind_index(b->kind);

	return ka != kb ? ka - kb : strcmp(a->chain, b->chain);
}

static void print_merged(const struct merge *mg, const struct merged *m, bool first)
{
	const struct json *found = json_get(m->g, "found_on");

	printf("%s\n  {\"kind\": ", first ? "" : ",");
	json_string(m->kind);
	printf(", \"chain\": ");
	json_string(m->chain);
	printf(", \"message\": ");
	json_string(str(m->g, "message"));
	printf(", \"fires\": {");
	for (unsigned int c = 0, n = 0; c < PTSIM_CPU__COUNT; c++) {
		if (!m->fires[c])
			continue;
		printf("%s\"%s\": [", n++ ? ", " : "", ptsim_cpu_name((enum ptsim_cpu)c));
		for (size_t p = 0, k = 0; p < mg->nr_presets; p++)
			if (m->fires[c] & (UINT64_C(1) << p))
				printf("%s\"%s\"", k++ ? ", " : "", mg->presets[p]);
		printf("]");
	}
	printf("}, \"first_scenario\": %.0f, \"found_on\": {\"cpu\": ", m->first_scenario);
	json_string(str(found, "cpu"));
	printf(", \"preset\": ");
	json_string(str(found, "preset") ? str(found, "preset") : "");
	printf("}, \"scenario\": ");
	json_string(str(m->g, "scenario"));
	printf("}");
}

int cmd_merge(int argc, char **argv)
{
	static struct merge mg;
	struct json *runs;
	double scenarios = 0, seed = -1;
	bool same_seed = true;
	int nfiles = argc - 1, status = 0;

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
		return command_usage("merge", stdout);
	if (nfiles < 1) {
		fprintf(stderr, "merge: expected the --json outputs of audit runs\n");
		return command_usage("merge", stderr);
	}
	runs = calloc((size_t)nfiles, sizeof(*runs));
	if (!runs)
		return 1;
	for (int i = 0; i < nfiles && !status; i++) {
		const char *path = argv[i + 1], *why = NULL;
		size_t len;
		char *text = read_file(path, &len), err[128];
		const struct json *groups, *n, *s;

		if (!text) {
			fprintf(stderr, "merge: cannot read %s: %s\n", path, read_file_error(errno));
			status = 1;
			break;
		}
		if (json_parse(text, &runs[i], err, sizeof(err))) {
			fprintf(stderr, "merge: %s: not JSON: %s\n", path, err);
			free(text);
			status = 1;
			break;
		}
		free(text);
		groups = json_get(&runs[i], "groups");
		n = json_get(&runs[i], "scenarios");
		s = json_get(&runs[i], "seed");
		if (!groups || groups->kind != JSON_ARRAY || !n || n->kind != JSON_NUMBER || !s ||
		    s->kind != JSON_NUMBER) {
			fprintf(stderr, "merge: %s: not the --json output of ptsim-bench audit\n", path);
			status = 1;
			break;
		}
		scenarios += n->number;
		same_seed = same_seed && (seed < 0 || seed == s->number);
		seed = s->number;
		for (size_t g = 0; g < groups->n && !why; g++)
			if (add_group(&mg, &groups->items[g], &why))
				fprintf(stderr, "merge: %s: %s\n", path, why);
		if (why)
			status = 1;
	}
	if (!status) {
		qsort(mg.m, mg.nr, sizeof(mg.m[0]), cmp_merged);
		json_begin("merge", NULL);
		printf(", \"runs\": %d, \"scenarios\": %.0f, \"seed\": ", nfiles, scenarios);
		if (same_seed)
			printf("%.0f", seed);
		else
			printf("null");
		printf(", \"groups\": [");
		for (size_t i = 0; i < mg.nr; i++)
			print_merged(&mg, &mg.m[i], i == 0);
		printf("\n]");
		json_end();
	}
	for (int i = 0; i < nfiles; i++)
		json_free(&runs[i]);
	free(runs);
	return status;
}
