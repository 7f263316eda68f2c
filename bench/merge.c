// SPDX-License-Identifier: MIT
/*
 * ptsim-bench merge FILE...: the findings of several `audit --json` runs (the
 * shards of one campaign, or separate campaigns) as one audit output. A group
 * is its kind and call chain; its CPUs and kernels are joined, and it keeps
 * the reproducer of its earliest scenario (then CPU, then file), which for the
 * shards of one campaign is the reproducer one process would have printed
 * (doc/scenario.md, "Audit").
 */
#include "group_text.h"
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
	uint64_t first_scenario;
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
	    first->kind != JSON_NUMBER || !first->exact || !found_cpu || !str(g, "scenario") ||
	    !str(g, "message")) {
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
		m->first_scenario = first->u64;
		m->found_cpu = cpu;
	} else if (first->u64 < m->first_scenario ||
		   (first->u64 == m->first_scenario && cpu < m->found_cpu)) {
		m->g = g;
		m->first_scenario = first->u64;
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
	printf("}, \"first_scenario\": %llu, \"found_on\": {\"cpu\": ",
	       (unsigned long long)m->first_scenario);
	json_string(str(found, "cpu"));
	printf(", \"preset\": ");
	json_string(str(found, "preset") ? str(found, "preset") : "");
	printf("}, \"scenario\": ");
	json_string(str(m->g, "scenario"));
	printf("}");
}

/* One merged group as audit's text prints it (bench/group_text.c). */
static void print_merged_text(const struct merge *mg, const struct merged *m)
{
	group_print_text(m->kind, m->chain, str(m->g, "message"), m->fires, mg->presets,
			 mg->nr_presets, str(m->g, "scenario"));
}

/* One input: the campaign (its seed) and which of its N shards it ran. */
struct shard {
	const char *path;
	uint64_t seed, k, n;
};

/* A count, a seed or a shard number: a JSON integer of at most 64 bits, no sign. */
static const struct json *count_of(const struct json *j, const char *key)
{
	const struct json *v = json_get(j, key);

	return v && v->kind == JSON_NUMBER && v->exact ? v : NULL;
}

/*
 * The top of one audit --json output: 0 with its scenarios and shard, or -1
 * with the reason in why.
 */
static int read_run(const struct json *run, uint64_t *scenarios, struct shard *sh,
		    const char **why)
{
	const struct json *version = count_of(run, "schema_version"), *groups;
	const struct json *n = count_of(run, "scenarios"), *seed = count_of(run, "seed");
	const struct json *shard = json_get(run, "shard");
	const char *command = str(run, "command");

	groups = json_get(run, "groups");
	if (!command || strcmp(command, "audit") || !groups || groups->kind != JSON_ARRAY) {
		*why = "not the --json output of ptsim-bench audit";
		return -1;
	}
	if (!version || version->u64 != JSON_SCHEMA_VERSION) {
		*why = "a schema_version this merge does not read (it reads "
		       JSON_SCHEMA_VERSION_TEXT ")";
		return -1;
	}
	if (!n || !seed) {
		*why = "scenarios and seed must be whole numbers from 0 to 2^64 - 1";
		return -1;
	}
	if (!shard || shard->kind != JSON_ARRAY || shard->n != 2 || !shard->items[0].exact ||
	    !shard->items[1].exact || !shard->items[0].u64 ||
	    shard->items[0].u64 > shard->items[1].u64) {
		*why = "shard must be [K, N] with 1 <= K <= N";
		return -1;
	}
	*scenarios = n->u64;
	sh->seed = seed->u64;
	sh->k = shard->items[0].u64;
	sh->n = shard->items[1].u64;
	return 0;
}

/*
 * The runs of one seed are the shards of one campaign: each once, all of the
 * same N, and every one of them. 0, or 1 with the reason on stderr.
 */
static int check_shards(const struct shard *sh, int nr)
{
	for (int i = 0; i < nr; i++) {
		uint64_t have = 0;

		for (int j = 0; j < i; j++) {
			if (sh[j].seed != sh[i].seed)
				continue;
			if (sh[j].n != sh[i].n) {
				fprintf(stderr, "merge: %s and %s: one campaign (seed %llu) in %llu and "
					"in %llu shards\n", sh[j].path, sh[i].path,
					(unsigned long long)sh[i].seed, (unsigned long long)sh[j].n,
					(unsigned long long)sh[i].n);
				return 1;
			}
			if (sh[j].k == sh[i].k) {
				fprintf(stderr, "merge: %s and %s: the same shard %llu/%llu of seed %llu "
					"twice\n", sh[j].path, sh[i].path, (unsigned long long)sh[i].k,
					(unsigned long long)sh[i].n, (unsigned long long)sh[i].seed);
				return 1;
			}
		}
		for (int j = 0; j < nr; j++)
			have += sh[j].seed == sh[i].seed;
		if (have < sh[i].n) {
			fprintf(stderr, "merge: the campaign of seed %llu has %llu of its %llu shards; "
				"missing:", (unsigned long long)sh[i].seed, (unsigned long long)have,
				(unsigned long long)sh[i].n);
			for (uint64_t k = 1, shown = 0; k <= sh[i].n && shown < 16; k++) {
				bool found = false;

				for (int j = 0; j < nr; j++)
					found |= sh[j].seed == sh[i].seed && sh[j].k == k;
				if (!found) {
					fprintf(stderr, " %llu/%llu", (unsigned long long)k,
						(unsigned long long)sh[i].n);
					shown++;
				}
			}
			fprintf(stderr, "\n");
			return 1;
		}
	}
	return 0;
}

int cmd_merge(int argc, char **argv)
{
	static struct merge mg;
	struct json *runs;
	struct shard *shards;
	uint64_t scenarios = 0, seed = 0;
	bool same_seed = true;
	const char **paths;
	int nfiles = 0, status = 0;
	bool json = false;

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
		return command_usage("merge", stdout);
	/* files and --json; any other option is refused, not read as a file name */
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "merge: unknown option %s (merge takes --json and the --json "
					"outputs of audit runs)\n", argv[i]);
			return command_usage("merge", stderr);
		} else {
			nfiles++;
		}
	}
	if (nfiles < 1) {
		fprintf(stderr, "merge: expected the --json outputs of audit runs\n");
		return command_usage("merge", stderr);
	}
	runs = calloc((size_t)nfiles, sizeof(*runs));
	shards = calloc((size_t)nfiles, sizeof(*shards));
	paths = calloc((size_t)nfiles, sizeof(*paths));
	if (!runs || !shards || !paths) {
		free(runs);
		free(shards);
		free(paths);
		return 1;
	}
	for (int i = 1, n = 0; i < argc; i++)
		if (strcmp(argv[i], "--json"))
			paths[n++] = argv[i];
	for (int i = 0; i < nfiles && !status; i++) {
		const char *path = paths[i], *why = NULL;
		size_t len;
		char *text = read_file(path, &len), err[128];
		const struct json *groups;
		uint64_t n;

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
		shards[i].path = path;
		if (read_run(&runs[i], &n, &shards[i], &why)) {
			fprintf(stderr, "merge: %s: %s\n", path, why);
			status = 1;
			break;
		}
		if (__builtin_add_overflow(scenarios, n, &scenarios)) {
			fprintf(stderr, "merge: %s: the scenarios add up past 2^64 - 1\n", path);
			status = 1;
			break;
		}
		same_seed = same_seed && (!i || seed == shards[i].seed);
		seed = shards[i].seed;
		groups = json_get(&runs[i], "groups");
		for (size_t g = 0; g < groups->n && !why; g++)
			if (add_group(&mg, &groups->items[g], &why))
				fprintf(stderr, "merge: %s: %s\n", path, why);
		if (why)
			status = 1;
	}
	if (!status)
		status = check_shards(shards, nfiles);
	if (!status)
		qsort(mg.m, mg.nr, sizeof(mg.m[0]), cmp_merged);
	if (!status && !json) {
		/* audit's text: the same header, then each group */
		printf("%llu random scenarios, every one on each CPU and kernel: %zu groups\n",
		       (unsigned long long)scenarios, mg.nr);
		if (same_seed)
			printf("  merged from %d runs; seed %llu: --seed %llu runs the same "
			       "scenarios\n\n", nfiles, (unsigned long long)seed,
			       (unsigned long long)seed);
		else
			printf("  merged from %d runs of several campaigns (seeds)\n\n", nfiles);
		for (size_t i = 0; i < mg.nr; i++)
			print_merged_text(&mg, &mg.m[i]);
	} else if (!status) {
		json_begin("merge", NULL);
		printf(", \"runs\": %d, \"scenarios\": %llu, \"seed\": ", nfiles,
		       (unsigned long long)scenarios);
		if (same_seed)
			printf("%llu", (unsigned long long)seed);
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
	free(shards);
	free(paths);
	return status;
}
