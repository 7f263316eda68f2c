// SPDX-License-Identifier: MIT
/*
 * The reproduce workloads written as scenario files (bench/scenarios/) count
 * exactly what the C programs behind the reproduce rows count: every event,
 * run by run; and every example in the directory runs to its end.
 * Usage: scenario-check SCENARIO_DIR.
 */
#include "rows.h"
#include "scenario.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *dir;
static int failures;

static int load(const char *name, struct scenario *s)
{
	char path[4096], err[SCN_ERR_MAX], *text;
	size_t len;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	text = read_file(path, &len);
	if (!text) {
		fprintf(stderr, "cannot read %s: %s\n", path, read_file_error(errno));
		return -1;
	}
	ret = scenario_parse(text, len, path, s, err, sizeof(err));
	if (ret)
		fprintf(stderr, "%s\n", err);
	free(text);
	return ret;
}

/* The sum of checkpoints [from, to) of a run. */
static void sum(const struct scn_result *r, size_t from, size_t to, struct ptsim_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t k = from; k < to && k < r->nr_cp; k++)
		for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++)
			out->ev[e] += r->cp[k].stats.ev[e];
}

static void same(const char *what, const struct ptsim_stats *a, const struct ptsim_stats *b)
{
	for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++) {
		if (a->ev[e] != b->ev[e]) {
			fprintf(stderr, "%s: %s: scenario %llu, program %llu\n", what,
				ptsim_event_name((enum ptsim_event)e), (unsigned long long)a->ev[e],
				(unsigned long long)b->ev[e]);
			failures++;
			return;
		}
	}
	printf("ok: %s\n", what);
}

/* The mprotect program: the whole process, with the loop cut to 3 iterations. */
static void check_mprotect(void)
{
	static const char *const files[NR_STATES] = { "mprotect-t1.scn", "mprotect-t2.scn",
						      "mprotect-t3.scn" };

	for (int st = 0; st < NR_STATES; st++) {
		struct scenario s;

		if (load(files[st], &s)) {
			failures++;
			continue;
		}
		for (size_t i = 0; i + 1 < s.nr; i++)	/* the loop's repeat: the one before mprotect */
			if (s.ops[i].kind == S_REPEAT && s.ops[i + 1].kind == S_MPROTECT)
				s.ops[i].a[0] = (struct scn_expr){ .nr = 1, .t = { { .k = 3, .f = F_ONE, .g = F_ONE } } };
		for (int batching = 0; batching < 2; batching++) {
			struct mprotect_phases p;
			struct ptsim_stats want, got;
			struct scn_result r;
			char what[64];

			snprintf(what, sizeof(what), "%s, %s batching", files[st], batching ? "with" : "without");
			if (mprotect_phases((enum mprotect_state)st, batching, &p) ||
			    scenario_run(&s, &s.machine, batching ? "baseline,+mprotect_pte_batching" :
					 "baseline", NULL, NULL, NULL, NULL, NULL, &r)) {
				fprintf(stderr, "%s: %s\n", what, r.msg);
				failures++;
				continue;
			}
			mprotect_total(&p, 3, &want, NULL);
			sum(&r, 0, r.nr_cp, &got);
			same(what, &got, &want);
			scn_result_free(&r);
		}
		scenario_free(&s);
	}
}

/* The UFFDIO_MOVE workload: the moves, summed call by call in the program. */
static void check_uffd(void)
{
	struct scenario s;

	if (load("uffd-gc.scn", &s)) {
		failures++;
		return;
	}
	for (int batching = 0; batching < 2; batching++) {
		struct uffd_run_result want;
		struct ptsim_stats got;
		struct scn_result r;
		const char *what = batching ? "uffd-gc.scn, batched" : "uffd-gc.scn, per page";

		if (uffd_program(batching, &want) ||
		    scenario_run(&s, &s.machine, batching ? "baseline,+uffd_move_batching" : "baseline",
				 NULL, NULL, NULL, NULL, NULL, &r)) {
			failures++;
			continue;
		}
		sum(&r, 1, 2, &got);	/* the "moves" checkpoint: the GC's compaction and the moves */
		ptsim_stats_add(&want.all, &want.gc);
		same(what, &got, &want.all);
		scn_result_free(&r);
	}
	scenario_free(&s);
}

/* The exec program: the cold phase and the random phase. */
static void check_exec(void)
{
	struct scenario s;

	if (load("exec-grace.scn", &s)) {
		failures++;
		return;
	}
	for (int patched = 0; patched < 2; patched++) {
		struct ptsim_stats cold, random, got;
		struct scn_result r;
		const char *after = "v6.18,+exec_contpte_order,+exec_mmap_miss_bypass,+elf_contpte_align,"
				    "+unmapped_area_contpte";

		if (exec_program(PTSIM_GRANULE_64K, patched, &cold, &random) ||
		    scenario_run(&s, &s.machine, patched ? after : "v6.18", NULL, NULL, NULL, NULL, NULL,
				 &r)) {
			failures++;
			continue;
		}
		sum(&r, 1, 2, &got);
		same(patched ? "exec-grace.scn cold, 4 patches" : "exec-grace.scn cold", &got, &cold);
		sum(&r, 3, 4, &got);
		same(patched ? "exec-grace.scn random, 4 patches" : "exec-grace.scn random", &got, &random);
		scn_result_free(&r);
	}
	scenario_free(&s);
}

/* The linear-map MemTotal row's boots: every count up to the finalized capabilities. */
static void check_linear_map(void)
{
	struct scenario s;

	if (load("linear-map-boot.scn", &s)) {
		failures++;
		return;
	}
	for (int blocks = 0; blocks < 2; blocks++) {
		struct ptsim_stats want, got;
		struct scn_result r;

		if (linear_map_boot_stats(blocks, &want) ||
		    scenario_run(&s, &s.machine, blocks ? "baseline,+linear_map_blocks" : "baseline",
				 NULL, NULL, NULL, NULL, NULL, &r)) {
			failures++;
			continue;
		}
		sum(&r, 0, r.nr_cp, &got);
		same(blocks ? "linear-map-boot.scn, blocks" : "linear-map-boot.scn, pages", &got, &want);
		scn_result_free(&r);
	}
	scenario_free(&s);
}

/* The files the checks above compare with the C programs (and so run already). */
static bool compared(const char *name)
{
	static const char *const names[] = { "mprotect-t1.scn", "mprotect-t2.scn", "mprotect-t3.scn",
					     "uffd-gc.scn", "exec-grace.scn", "linear-map-boot.scn" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

/*
 * Every other scenario file in the directory parses and runs without a failing
 * operation, within ptsim-bench run's default work budget.
 */
static void check_all_run(void)
{
	static const struct scn_limits lim = { SCN_DEFAULT_MAX_WORK, SCN_RUN_OP_WORK, 0, NULL };
	DIR *d = opendir(dir);
	struct dirent *de;
	unsigned int n = 0;

	if (!d) {
		fprintf(stderr, "cannot open %s: %s\n", dir, strerror(errno));
		failures++;
		return;
	}
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		struct scenario s;
		struct scn_result r;

		if (len < 5 || strcmp(de->d_name + len - 4, ".scn"))
			continue;
		n++;
		if (compared(de->d_name))
			continue;
		if (load(de->d_name, &s)) {
			failures++;
			continue;
		}
		if (scenario_run(&s, &s.machine, NULL, NULL, NULL, NULL, NULL, &lim, &r)) {
			fprintf(stderr, "%s:%s\n", de->d_name, r.msg);
			failures++;
		} else {
			printf("ok: %s runs (%zu checkpoints, %llu work units)\n", de->d_name, r.nr_cp,
			       (unsigned long long)r.work);
		}
		scn_result_free(&r);
		scenario_free(&s);
	}
	closedir(d);
	if (!n) {
		fprintf(stderr, "no scenario files in %s\n", dir);
		failures++;
	}
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: scenario-check SCENARIO_DIR\n");
		return 2;
	}
	dir = argv[1];
	check_mprotect();
	check_uffd();
	check_exec();
	check_linear_map();
	check_all_run();
	printf("%d failures\n", failures);
	return failures ? 1 : 0;
}
