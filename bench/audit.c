// SPDX-License-Identifier: MIT
/*
 * ptsim-bench audit: drive the modelled kernel paths over random states on
 * every CPU profile and kernel, collect break-before-make, TLB-conflict and
 * invariant diagnostics, group them by the kernel call chain that made the
 * write, and shrink one reproducer per group to a minimal scenario file
 * (doc/scenario.md, "Audit").
 */
#include "findings.h"
#include "group_text.h"
#include "rows.h"
#include "scenario.h"
#include "prng.h"

#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_GROUPS 32
#define MAX_PRESETS 8
#define MAX_JOBS 64
#define MB (UINT64_C(1) << 20)
#define GB (UINT64_C(1) << 30)

/* Far above what the random scenarios need; small machines stay small. */
static const struct scn_limits audit_limits = { UINT64_C(1) << 26, SCN_RUN_OP_WORK, 256 * MB, NULL };

struct group {
	enum ptsim_diag_kind kind;
	char chain[192];	/* kernel frames, outermost last; or "after OP" for an invariant */
	unsigned int fires[PTSIM_CPU__COUNT];	/* bit per preset */
	struct scenario repro;	/* shrunk */
	enum ptsim_cpu cpu;
	unsigned int preset;
	unsigned long first_scenario;
	char message[256];
};

struct audit {
	struct group g[MAX_GROUPS];
	unsigned int nr;
	const char *presets[MAX_PRESETS];
	unsigned int nr_presets;
	struct findings f;	/* of the run in progress */
};

/* Run s; the diagnostic groups it raised are in a->f. */
static void run_one(struct audit *a, const struct scenario *s, enum ptsim_cpu cpu, const char *preset)
{
	struct scn_machine mc = s->machine;
	struct scn_result res;

	mc.cpu = cpu;
	snprintf(mc.preset, sizeof(mc.preset), "%s", preset);
	findings_reset(&a->f, s);
	scenario_run(s, &mc, NULL, findings_diag, &a->f, findings_hook, &a->f, &audit_limits, &res);
	scn_result_free(&res);
}

static bool fires(struct audit *a, const struct scenario *s, enum ptsim_cpu cpu, const char *preset,
		  enum ptsim_diag_kind kind, const char *key)
{
	run_one(a, s, cpu, preset);
	for (unsigned int i = 0; i < a->f.nr; i++)
		if (a->f.kinds[i] == kind && !strcmp(a->f.keys[i], key))
			return true;
	return false;
}

static int copy_scenario(struct scenario *dst, const struct scenario *src)
{
	*dst = *src;
	dst->ops = malloc(src->cap * sizeof(*dst->ops));
	if (!dst->ops)
		return -1;
	memcpy(dst->ops, src->ops, src->nr * sizeof(*dst->ops));
	return 0;
}

/* Remove operations one by one, last first, while the group still fires. */
static void shrink(struct audit *a, struct group *g)
{
	bool changed = true;

	while (changed) {
		changed = false;
		for (size_t i = g->repro.nr; i-- > 0;) {
			struct scn_op saved = g->repro.ops[i];

			memmove(&g->repro.ops[i], &g->repro.ops[i + 1],
				(g->repro.nr - i - 1) * sizeof(saved));
			g->repro.nr--;
			if (fires(a, &g->repro, g->cpu, a->presets[g->preset], g->kind, g->chain)) {
				changed = true;
				continue;
			}
			memmove(&g->repro.ops[i + 1], &g->repro.ops[i],
				(g->repro.nr - i) * sizeof(saved));
			g->repro.ops[i] = saved;
			g->repro.nr++;
		}
	}
}

/* ---- random scenarios ---- */

static struct scn_expr num(uint64_t v)
{
	return (struct scn_expr){ .nr = 1, .t = { { .k = v, .f = F_ONE, .g = F_ONE } } };
}

/*
 * Add an operation with nr positional numbers args[0..nr-1]. A numeric key
 * flagged in u (bit 8 + k, as the parser sets it) takes args[4 + k], the
 * slot the parser gives it: mremap's fixed= target, populate's order=.
 */
static void add(struct scenario *s, enum scn_kind kind, int mm, int mm2, unsigned int u,
		unsigned int nr, const uint64_t *args)
{
	struct scn_op op;

	memset(&op, 0, sizeof(op));
	op.kind = kind;
	op.line = (unsigned int)s->nr + 2;
	op.mm = mm;
	op.mm2 = mm2;
	op.u = u;
	op.nr_args = nr;
	for (unsigned int i = 0; i < nr; i++)
		op.a[i] = num(args[i]);
	if (kind == S_MREMAP && (u & 1u << 8))
		op.a[4] = num(args[4]);
	if (kind == S_POPULATE && (u & 1u << 8))
		op.a[4] = num(args[4]);
	scenario_add(s, &op);
}

/* A page range of the 8 MiB area, often on 64K or 2M boundaries, as real callers use. */
static void range(uint64_t *seed, uint64_t *start, uint64_t *len)
{
	static const uint64_t units[] = { 4096, 4096, 65536, 65536, 2 * MB };
	uint64_t u = units[prng_next(seed) % 5], n = 8 * MB / u;
	uint64_t a = prng_next(seed) % n, b = 1 + prng_next(seed) % (n - a);

	*start = GB + a * u + (prng_next(seed) % 4 == 0 ? 4096 * (prng_next(seed) % 16) : 0);
	*len = b * u;
	if (*start + *len > GB + 8 * MB)
		*len = GB + 8 * MB - *start;
	if (!*len)
		*len = 4096;
}

/* An anonymous process: 8 MiB of THP, mTHP or pages, then a random mix of mm calls. */
static void user_scenario(struct scenario *s, uint64_t *seed)
{
	static const unsigned int orders[] = { 0, 4, 4, 9 };
	static const unsigned int prots[] = { 1, 3, 3, 0 };	/* r, rw, rw, none */
	static const int advice[] = { PTSIM_MADV_DONTNEED, PTSIM_MADV_FREE, PTSIM_MADV_COLD,
				      PTSIM_MADV_PAGEOUT, PTSIM_MADV_DONTFORK, PTSIM_MADV_DOFORK };
	int a = scenario_name(s, "A"), b = scenario_name(s, "B");
	bool child = false;
	uint64_t args[5];
	unsigned int steps = 6 + (unsigned int)(prng_next(seed) % 8);

	s->machine.phys_size = 256 * MB;	/* small machines start fast */
	add(s, S_MM, a, -1, 0, 0, NULL);
	args[0] = GB, args[1] = 8 * MB;
	add(s, S_MMAP, a, -1, 3, 2, args);
	args[4] = orders[prng_next(seed) % 4];
	add(s, S_POPULATE, a, -1, 1u << 8, 2, args);	/* order= given */
	if (args[4] == 9 && prng_next(seed) % 2) {
		args[0] = GB, args[1] = 8 * MB;
		add(s, S_SPLIT, a, -1, 0, 2, args);
	}
	for (unsigned int i = 0; i < steps; i++) {
		uint64_t st, len;
		int who = child && prng_next(seed) % 3 == 0 ? b : a;

		range(seed, &st, &len);
		args[0] = st, args[1] = len;
		switch (prng_next(seed) % 10) {
		case 0:
		case 1:
		case 2: {
			unsigned int prot = prots[prng_next(seed) % 4];

			add(s, S_MPROTECT, who, -1, prot, 2, args);
			/* often undone at once, as W^X toggling and guard pages do */
			if (prot != 3 && prng_next(seed) % 2)
				add(s, S_MPROTECT, who, -1, 3, 2, args);
			break;
		}
		case 3:
			if (!child && prng_next(seed) % 2) {
				/* a short-lived child: fork, it exits, the parent writes */
				add(s, S_FORK, a, b, 0, 0, NULL);
				add(s, S_EXIT, b, -1, 0, 0, NULL);
				add(s, S_DESTROY, b, -1, 0, 0, NULL);
				add(s, S_FAULT, a, -1, 1, 1, args);
			} else if (!child) {
				add(s, S_FORK, a, b, 0, 0, NULL);
				child = true;
			} else {
				add(s, S_EXIT, b, -1, 0, 0, NULL);
				add(s, S_DESTROY, b, -1, 0, 0, NULL);
				child = false;
			}
			break;
		case 4:
			add(s, S_FAULT, who, -1, 1, 1, args);	/* a write */
			break;
		case 5:
			add(s, S_MADVISE, who, -1,
			    (unsigned int)advice[prng_next(seed) % (sizeof(advice) / sizeof(advice[0]))],
			    2, args);
			break;
		case 6:
			args[2] = len;
			args[4] = 4 * GB + (st - GB);
			add(s, S_MREMAP, who, -1, 3u << 8, 3, args);	/* fixed, maymove */
			break;
		case 7:
			add(s, prng_next(seed) % 2 ? S_MLOCK : S_MUNLOCK, who, -1, 0, 2, args);
			break;
		case 8:
			add(s, S_MUNMAP, who, -1, 0, 2, args);
			break;
		default:
			add(s, S_TOUCH, who, -1, prng_next(seed) % 2, 2, args);
			break;
		}
	}
}

/* A kernel: the linear map booted, then permission and validity changes. */
static void kernel_scenario(struct scenario *s, uint64_t *seed)
{
	static const unsigned int rodata_kinds[] = { 0, 0, 1, 2 };
	int k = scenario_name(s, "K");
	struct scn_op op;
	unsigned int steps = 3 + (unsigned int)(prng_next(seed) % 6);

	s->machine.phys_base = GB;
	s->machine.phys_size = 256 * MB;
	memset(&op, 0, sizeof(op));
	op.kind = S_KBOOT;
	op.mm = k;
	op.mm2 = -1;
	op.a[0] = num(GB);
	op.a[1] = num(128 * MB);
	op.u = rodata_kinds[prng_next(seed) % 4];
	op.line = 2;
	scenario_add(s, &op);
	add(s, S_KFINALIZE, k, -1, 0, 0, NULL);
	for (unsigned int i = 0; i < steps; i++) {
		static const unsigned int ops[] = { 4, 5, 4, 5, 0, 1, 2, 3 };	/* valid/invalid mostly */
		uint64_t args[2];
		unsigned int unit = prng_next(seed) % 2 ? 16 : 1;

		/* a 4 MiB window, so that changes overlap as direct-map users' do */
		args[0] = GB + 64 * MB + 4096 * unit * (prng_next(seed) % (1024 / unit));
		args[1] = unit * (1 + prng_next(seed) % 64);
		/* guarded: issued only where can_set_direct_map(), as the kernel's callers do */
		add(s, S_SET_MEMORY, k, -1, ops[prng_next(seed) % 8] | 1u << 8, 2, args);
	}
}

/* ---- the command ---- */

/*
 * Replace s by the parse of its own text, so that what the audit runs is
 * what its reproducers print: 0, or -EINVAL with the parser's message
 * (s freed).
 */
static int reparse(struct scenario *s, char *err, size_t errlen)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int ret;

	if (!f) {
		scenario_free(s);
		snprintf(err, errlen, "%s", strerror(errno));
		return -ENOMEM;
	}
	scenario_print(s, f);
	fclose(f);
	scenario_free(s);
	ret = scenario_parse(text, len, "audit", s, err, errlen);
	free(text);
	return ret;
}

static void record(struct audit *a, const struct scenario *s, enum ptsim_cpu cpu, unsigned int p,
		   unsigned long n)
{
	for (unsigned int i = 0; i < a->f.nr; i++) {
		struct group *g = NULL;

		for (unsigned int k = 0; k < a->nr; k++)
			if (a->g[k].kind == a->f.kinds[i] && !strcmp(a->g[k].chain, a->f.keys[i]))
				g = &a->g[k];
		if (!g && a->nr < MAX_GROUPS) {
			g = &a->g[a->nr];
			memset(g, 0, sizeof(*g));
			g->kind = a->f.kinds[i];
			memcpy(g->chain, a->f.keys[i], sizeof(g->chain));
			memcpy(g->message, a->f.msgs[i], sizeof(g->message));
			g->cpu = cpu;
			g->preset = p;
			g->first_scenario = n;
			if (copy_scenario(&g->repro, s))
				continue;
			a->nr++;
		}
		if (g)
			g->fires[cpu] |= 1u << p;
	}
}

/* The reproducer as scenario text, on the CPU and kernel it was found on (free it). */
static char *repro_text(const struct audit *a, const struct group *g)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct scenario repro = g->repro;

	repro.machine.cpu = g->cpu;
	snprintf(repro.machine.preset, sizeof(repro.machine.preset), "%s", a->presets[g->preset]);
	if (f) {
		scenario_print(&repro, f);
		fclose(f);
	}
	return text;
}

/* The directory of --reproducers, created when missing: 0, or 1 with the reason printed. */
static int make_dir(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "audit: --reproducers %s: %s\n", dir, strerror(errno));
		return 1;
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "audit: --reproducers %s: %s\n", dir,
			strerror(S_ISDIR(st.st_mode) ? errno : ENOTDIR));
		return 1;
	}
	return 0;
}

/*
 * --reproducers DIR: each group's reproducer as DIR/NN.scn, its finding in
 * the first line as `ptsim-bench run --findings` prints it. 0, or 1 with the
 * reason printed.
 */
static int write_reproducers(const struct audit *a, const char *dir)
{
	for (unsigned int i = 0; i < a->nr; i++) {
		const struct group *g = &a->g[i];
		char path[4096], *text = repro_text(a, g);
		FILE *f;
		int bad;

		snprintf(path, sizeof(path), "%s/%02u.scn", dir, i + 1);
		f = fopen(path, "w");
		if (!f || !text) {
			fprintf(stderr, "audit: %s: %s\n", path, strerror(f ? ENOMEM : errno));
			if (f)
				fclose(f);
			free(text);
			return 1;
		}
		fprintf(f, "# finding: %s %s\n# %s\n", ptsim_diag_kind_name(g->kind), g->chain,
			g->message);
		fputs(text, f);
		free(text);
		bad = ferror(f);
		if (fclose(f) || bad) {
			fprintf(stderr, "audit: %s: %s\n", path, strerror(errno));
			return 1;
		}
	}
	return 0;
}

static void print_group(const struct audit *a, const struct group *g, bool json, bool first)
{
	char *text = repro_text(a, g);
	if (json) {
		printf("%s\n  {\"kind\": \"%s\", \"chain\": ", first ? "" : ",", ptsim_diag_kind_name(g->kind));
		json_string(g->chain);
		printf(", \"message\": ");
		json_string(g->message);
		printf(", \"fires\": {");
		for (unsigned int c = 0, n = 0; c < PTSIM_CPU__COUNT; c++) {
			if (!g->fires[c])
				continue;
			printf("%s\"%s\": [", n++ ? ", " : "", ptsim_cpu_name((enum ptsim_cpu)c));
			for (unsigned int p = 0, m = 0; p < a->nr_presets; p++)
				if (g->fires[c] & (1u << p))
					printf("%s\"%s\"", m++ ? ", " : "", a->presets[p]);
			printf("]");
		}
		printf("}, \"first_scenario\": %lu, \"found_on\": {\"cpu\": \"%s\", \"preset\": \"%s\"}, "
		       "\"scenario\": ", g->first_scenario, ptsim_cpu_name(g->cpu), a->presets[g->preset]);
		json_string(text ? text : "");
		printf("}");
	} else {
		uint64_t fires[PTSIM_CPU__COUNT];

		for (unsigned int c = 0; c < PTSIM_CPU__COUNT; c++)
			fires[c] = g->fires[c];
		group_print_text(ptsim_diag_kind_name(g->kind), g->chain, g->message, fires,
				 a->presets, a->nr_presets, text ? text : "");
	}
	free(text);
}

static int cmp_group(const void *x, const void *y)
{
	const struct group *a = x, *b = y;

	return a->kind != b->kind ? (int)a->kind - (int)b->kind : strcmp(a->chain, b->chain);
}

/*
 * A campaign: the random scenarios from seed on, numbered from 0 as they are
 * generated (each from the generator's state the one before left), so that
 * scenario n is the same however the campaign is split. A run takes those
 * with n % stride == offset: a shard of N takes every N-th, a worker of J in
 * it every (N * J)-th. Up to max_scenarios numbers (0: until seconds pass).
 */
struct campaign {
	uint64_t seed;
	unsigned int cpus;
	unsigned long max_scenarios, seconds;
	time_t t0;
	unsigned long stride, offset;
	bool report;	/* this process shows the progress counter (one of the workers) */
};

#define AUDIT_PARSE_FAILED ULONG_MAX

/* Run c's share of scenarios into a's groups: how many ran (AUDIT_PARSE_FAILED: stopped). */
static unsigned long audit_scenarios(struct audit *a, const struct campaign *c)
{
	uint64_t seed = c->seed;
	unsigned long ran = 0;

	for (unsigned long n = 0; c->max_scenarios ? n < c->max_scenarios :
	     (unsigned long)(time(NULL) - c->t0) < c->seconds; n++) {
		struct scenario s;
		char err[SCN_ERR_MAX];

		scenario_parse("", 0, "audit", &s, err, sizeof(err));	/* an empty one: the defaults */
		if (n % 3 == 2)
			kernel_scenario(&s, &seed);
		else
			user_scenario(&s, &seed);
		if (n % c->stride != c->offset) {
			scenario_free(&s);
			continue;
		}
		if (reparse(&s, err, sizeof(err))) {
			fprintf(stderr, "audit: random scenario %lu does not parse as printed: %s\n", n, err);
			return AUDIT_PARSE_FAILED;
		}
		for (unsigned int cpu = 0; cpu < PTSIM_CPU__COUNT; cpu++) {
			if (!(c->cpus & (1u << cpu)))
				continue;
			for (unsigned int p = 0; p < a->nr_presets; p++) {
				run_one(a, &s, (enum ptsim_cpu)cpu, a->presets[p]);
				record(a, &s, (enum ptsim_cpu)cpu, p, n);
			}
		}
		scenario_free(&s);
		ran++;
		if (c->report && progress_due()) {
			if (c->max_scenarios)
				progress_line("audit: scenario %lu of %lu", n + 1, c->max_scenarios);
			else
				progress_line("audit: scenario %lu, %ld of %lu s", n + 1,
					      (long)(time(NULL) - c->t0), c->seconds);
		}
	}
	return ran;
}

/* Whether group x was found before y: by scenario, then CPU, then preset, as one process finds them. */
static bool found_before(const struct group *x, const struct group *y)
{
	if (x->first_scenario != y->first_scenario)
		return x->first_scenario < y->first_scenario;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu;
	return x->preset < y->preset;
}

/* A worker's groups into a's: the same group's CPUs and kernels joined, the first-found kept. */
static void merge_group(struct audit *a, struct group *in)
{
	struct group *g = NULL;

	for (unsigned int k = 0; k < a->nr; k++)
		if (a->g[k].kind == in->kind && !strcmp(a->g[k].chain, in->chain))
			g = &a->g[k];
	if (!g) {
		if (a->nr < MAX_GROUPS) {
			a->g[a->nr++] = *in;
			return;
		}
		scenario_free(&in->repro);
		return;
	}
	for (unsigned int c = 0; c < PTSIM_CPU__COUNT; c++)
		in->fires[c] |= g->fires[c];
	if (found_before(in, g)) {
		scenario_free(&g->repro);
		*g = *in;
	} else {
		memcpy(g->fires, in->fires, sizeof(g->fires));
		scenario_free(&in->repro);
	}
}

/* A worker's report: how many scenarios it ran, then each group and its (unshrunk) scenario. */
static int send_groups(int fd, const struct audit *a, unsigned long ran)
{
	if (write_all(fd, &ran, sizeof(ran)) || write_all(fd, &a->nr, sizeof(a->nr)))
		return -1;
	for (unsigned int i = 0; i < a->nr; i++) {
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		int err;

		if (!f)
			return -1;
		scenario_print(&a->g[i].repro, f);
		fclose(f);
		err = write_all(fd, &a->g[i], sizeof(a->g[i])) || write_all(fd, &len, sizeof(len)) ||
		      write_all(fd, text, len);
		free(text);
		if (err)
			return -1;
	}
	return 0;
}

static int receive_groups(FILE *f, struct audit *a, unsigned long *ran)
{
	unsigned int nr;

	if (read_all(f, ran, sizeof(*ran)) || read_all(f, &nr, sizeof(nr)) || nr > MAX_GROUPS)
		return -1;
	for (unsigned int i = 0; i < nr; i++) {
		struct group g;
		char err[SCN_ERR_MAX], *text;
		size_t len;

		if (read_all(f, &g, sizeof(g)) || read_all(f, &len, sizeof(len)) ||
		    !(text = malloc(len + 1)))
			return -1;
		if (read_all(f, text, len) ||
		    scenario_parse(text, len, "audit", &g.repro, err, sizeof(err))) {
			free(text);
			return -1;
		}
		free(text);
		merge_group(a, &g);
	}
	return 0;
}

/*
 * c's share run by jobs fork()ed processes, worker j taking the scenarios of
 * offset c->offset + shard_n * j: their groups merged into a as one process
 * would have found them, *total the scenarios they ran. 0, or 1 with the
 * reason printed.
 */
static int audit_in_workers(struct audit *a, const struct campaign *c, unsigned int jobs,
			    unsigned long shard_n, unsigned long *total)
{
	pid_t pids[MAX_JOBS];
	FILE *from[MAX_JOBS];
	int status = 0;

	fflush(stdout);
	fflush(stderr);
	for (unsigned int j = 0; j < jobs; j++) {
		int fds[2];

		if (pipe(fds) || (pids[j] = fork()) < 0) {
			fprintf(stderr, "audit: --jobs: %s\n", strerror(errno));
			jobs = j;
			status = 1;
			break;
		}
		if (!pids[j]) {
			struct campaign mine = *c;
			unsigned long ran;

			close(fds[0]);
			for (unsigned int k = 0; k < j; k++)
				fclose(from[k]);
			mine.offset = c->offset + shard_n * j;
			mine.report = j == 0;	/* its scenario numbers stand for the campaign's */
			ran = audit_scenarios(a, &mine);
			progress_end();
			_exit(ran == AUDIT_PARSE_FAILED || send_groups(fds[1], a, ran) ? 1 : 0);
		}
		close(fds[1]);
		from[j] = fdopen(fds[0], "r");
	}
	*total = 0;
	for (unsigned int j = 0; j < jobs; j++) {
		unsigned long ran = 0;
		int st;

		if (!from[j] || receive_groups(from[j], a, &ran))
			status = 1;
		*total += ran;
		if (from[j])
			fclose(from[j]);
		if (waitpid(pids[j], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			status = 1;
	}
	if (status)
		fprintf(stderr, "audit: --jobs: a worker failed\n");
	return status;
}

/* --shard K/N: two numbers and one '/', 1 <= K <= N <= 1000000. */
static bool parse_shard(const char *text, unsigned long *k, unsigned long *n)
{
	const char *slash = strchr(text, '/');
	char first[24];
	uint64_t a, b;

	if (!slash || (size_t)(slash - text) >= sizeof(first))
		return false;
	memcpy(first, text, (size_t)(slash - text));
	first[slash - text] = 0;
	if (strspn(text, "0123456789/") != strlen(text) || strchr(slash + 1, '/') ||
	    !parse_u64(first, &a) || !parse_u64(slash + 1, &b) || !a || a > b || b > 1000000)
		return false;
	*k = (unsigned long)a;
	*n = (unsigned long)b;
	return true;
}

int cmd_audit(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cpu", required_argument, NULL, 'c' },
		{ "seconds", required_argument, NULL, 's' },
		{ "scenarios", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 'r' },
		{ "presets", required_argument, NULL, 'p' },
		{ "reproducers", required_argument, NULL, 'o' },
		{ "jobs", required_argument, NULL, 'J' },
		{ "shard", required_argument, NULL, 'S' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct audit a;
	const char *repro_dir = NULL;
	static char preset_buf[256] = "v6.16,v6.17,v6.18,v6.19,patched";
	unsigned int cpus = (1u << PTSIM_CPU__COUNT) - 1;
	unsigned long seconds = 60, max_scenarios = 0, n = 0, shard_k = 1, shard_n = 1;
	unsigned int jobs = 1;
	uint64_t seed = 1, user_seed;
	bool json = false, seconds_given = false;
	time_t t0 = time(NULL);
	int c, status;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		char *end = NULL;

		switch (c) {
		case 'c':
			if (parse_cpus("audit", optarg, &cpus, NULL, NULL))
				return 2;
			break;
		case 's':
		case 'n':
		case 'r': {
			uint64_t v;
			const char *opt = c == 's' ? "--seconds" : c == 'n' ? "--scenarios" : "--seed";

			/* no sign, nothing past 2^64 - 1: -1 or 2^64 is not taken as 2^64 - 1 */
			if (!parse_u64(optarg, &v) || v > ULONG_MAX) {
				fprintf(stderr, "audit: %s needs a number\n", opt);
				return 2;
			}
			if (!v && c != 'r') {
				/* 0 seconds or 0 scenarios would audit nothing */
				fprintf(stderr, "audit: %s needs a positive number\n", opt);
				return 2;
			}
			if (c == 's') {
				seconds = (unsigned long)v;
				seconds_given = true;
			} else if (c == 'n') {
				max_scenarios = (unsigned long)v;
			} else {
				seed = v;
			}
			break;
		}
		case 'p':
			if (strlen(optarg) >= sizeof(preset_buf)) {
				fprintf(stderr, "audit: --presets too long\n");
				return 2;
			}
			strcpy(preset_buf, optarg);
			break;
		case 'o': repro_dir = optarg; break;
		case 'J': {
			unsigned long v = strtoul(optarg, &end, 10);

			if (*optarg < '0' || *optarg > '9' || *end || !v || v > MAX_JOBS) {
				fprintf(stderr, "audit: --jobs: want 1..%d, not '%s'\n", MAX_JOBS, optarg);
				return 2;
			}
			jobs = (unsigned int)v;
			break;
		}
		case 'S':
			if (!parse_shard(optarg, &shard_k, &shard_n)) {
				fprintf(stderr, "audit: --shard: want K/N with 1 <= K <= N, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'j': json = true; break;
		case 'h': return command_usage("audit", stdout);
		default:
			if (optopt)
				fprintf(stderr, "audit: option %s needs an argument\n", argv[optind - 1]);
			else
				fprintf(stderr, "audit: unknown option %s\n", argv[optind - 1]);
			return command_usage("audit", stderr);
		}
	}
	if (optind != argc) {
		fprintf(stderr, "audit: unexpected argument %s\n", argv[optind]);
		return command_usage("audit", stderr);
	}
	if (seconds_given && max_scenarios) {
		fprintf(stderr, "audit: --seconds and --scenarios exclude each other\n");
		return 2;
	}
	for (char *save = NULL, *t = strtok_r(preset_buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		struct ptsim_machine_config cfg;
		struct ptsim_machine *m;
		int err;

		if (a.nr_presets == MAX_PRESETS) {
			fprintf(stderr, "audit: --presets: at most %d presets\n", MAX_PRESETS);
			return 2;
		}
		ptsim_machine_config_init(&cfg);
		cfg.preset = t;
		err = ptsim_machine_create(&cfg, &m);
		if (err == -EINVAL) {
			fprintf(stderr, "audit: unknown preset '%s'\n  presets: ", t);
			print_valid_presets(stderr);
			fprintf(stderr, "\n");
			return 2;
		} else if (err) {
			fprintf(stderr, "audit: preset %s: %s\n", t, ptsim_strerror(err));
			return 1;
		}
		ptsim_machine_destroy(m);
		a.presets[a.nr_presets++] = t;
	}
	if (!a.nr_presets) {
		fprintf(stderr, "audit: --presets: expected a comma-separated list of presets\n");
		return 2;
	}
	if (repro_dir && make_dir(repro_dir))
		return 1;
	/*
	 * The seed is the generator's first state, so every seed but 0 keeps its
	 * stream; xorshift stays at 0 forever, so 0 starts from splitmix64's state for 0.
	 */
	user_seed = seed;
	if (!seed)
		seed = prng_seed(0);
	progress("auditing %s", max_scenarios ? "a fixed number of scenarios" : "until the time is up");
	progress_start();
	if (jobs == 1) {
		n = audit_scenarios(&a, &(struct campaign){ seed, cpus, max_scenarios, seconds, t0,
							    shard_n, shard_k - 1, true });
	} else if (audit_in_workers(&a, &(struct campaign){ seed, cpus, max_scenarios, seconds, t0,
								  shard_n * jobs, shard_k - 1, false },
				    jobs, shard_n, &n)) {
		progress_end();
		return 1;
	}
	progress_end();
	if (n == AUDIT_PARSE_FAILED)
		return 1;
	progress("%lu scenarios on %u kernels; shrinking %u reproducers", n, a.nr_presets, a.nr);
	for (unsigned int i = 0; i < a.nr; i++)
		shrink(&a, &a.g[i]);
	qsort(a.g, a.nr, sizeof(a.g[0]), cmp_group);
	if (json) {
		json_begin("audit", NULL);
		printf(", \"scenarios\": %lu, \"seed\": %llu, \"shard\": [%lu, %lu], \"groups\": [", n,
		       (unsigned long long)user_seed, shard_k, shard_n);
	} else {
		printf("%lu random scenarios, every one on each CPU and kernel: %u groups\n", n, a.nr);
		/* the seed says how to run the same campaign again */
		printf("  seed %llu: --seed %llu runs the same scenarios\n\n",
		       (unsigned long long)user_seed, (unsigned long long)user_seed);
	}
	for (unsigned int i = 0; i < a.nr; i++)
		print_group(&a, &a.g[i], json, i == 0);
	if (json) {
		printf("\n]");
		json_end();
	}
	status = repro_dir ? write_reproducers(&a, repro_dir) : 0;
	for (unsigned int i = 0; i < a.nr; i++)
		scenario_free(&a.g[i].repro);
	return status;
}
