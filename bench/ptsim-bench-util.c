// SPDX-License-Identifier: MIT
/* ptsim-bench's command table, usage, progress and JSON helpers (main is in ptsim-bench.c). */
#include "rows.h"
#include "scenario.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The counter line progress_line keeps rewritten in place, and when it last did. */
static struct {
	double t0, last;
	bool started, tty, shown;
} counter;

static double monotonic_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void progress_start(void)
{
	counter.t0 = counter.last = monotonic_s();
	counter.started = true;
	counter.tty = isatty(STDERR_FILENO);	/* asked once, not every turn */
}

bool progress_due(void)
{
	double now;

	if (!counter.started || !counter.tty)
		return false;
	now = monotonic_s();
	if (now - counter.t0 < 1 || now - counter.last < 0.5)
		return false;
	counter.last = now;
	return true;
}

void progress_line(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("\rptsim-bench: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputs("\033[K", stderr);	/* the rest of the old line erased */
	va_end(ap);
	counter.shown = true;
}

/* The counter's line erased, if one is shown; the count goes on. */
static void counter_erase(void)
{
	if (counter.shown)
		fputs("\r\033[K", stderr);
	counter.shown = false;
}

void progress_end(void)
{
	counter_erase();
	counter.started = false;
}

void progress(const char *fmt, ...)
{
	va_list ap;

	counter_erase();
	va_start(ap, fmt);
	fputs("ptsim-bench: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputs(" ...\n", stderr);
	va_end(ap);
}

void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);	/* control characters (RFC 8259 §7) */
		else
			putchar(c);
	}
	putchar('"');
}

void json_begin(const char *command, const char *member)
{
	printf("{\"schema_version\": %d, \"ptsim_version\": ", JSON_SCHEMA_VERSION);
	json_string(ptsim_version());
	printf(", \"command\": ");
	json_string(command);
	if (member)
		printf(", \"%s\": ", member);
}

void json_end(void)
{
	printf("}\n");
}

void json_double(double v)
{
	char buf[32];

	if (!isfinite(v)) {
		printf("null");
		return;
	}
	/* the fewest digits that read back as v: 4.05, not 4.0499999999999998 */
	for (int digits = 15; digits <= 17; digits++) {
		snprintf(buf, sizeof(buf), "%.*g", digits, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	printf("%s", buf);
}

const struct command commands[] = {
	{ "reproduce", cmd_reproduce,
	  "[--json] [--svg FILE] [--only PREFIX] [--detail ID] [--check] [--wide]",
	  "every modelled published result: published vs simulated",
	  "  --json         the rows as JSON instead of the table\n"
	  "  --svg FILE     also draw each row's error against its target band into FILE\n"
	  "                 (with --detail: the row's time by kind of work and its largest\n"
	  "                 events, before and after)\n"
	  "  --only PREFIX  only the rows whose id starts with PREFIX (e.g. mprotect.)\n"
	  "  --detail ID    one row: its counts before and after, event by event, and each\n"
	  "                 price's share and weight (the row again at -/+ its uncertainty)\n"
	  "  --check        exit 3 when a row misses its target, naming each on stderr\n"
	  "  --wide         one line per row, up to 100 columns (default: 80 columns);\n"
	  "                 with --detail, one line per event, loop path and price\n" },
	{ "cpus", cmd_cpus, "[--json]", "CPU descriptions and every cost-profile constant with its source",
	  "  --json         as JSON\n" },
	{ "list", cmd_list, "[cpus|features|presets|events]... [--json]",
	  "the names --cpu, --features and --presets take, and the events, with their meaning",
	  "  cpus           CPU profiles with a summary (every constant: ptsim-bench cpus)\n"
	  "  features       kernel features with the release that merged them\n"
	  "  presets        presets with their release and the features they turn on\n"
	  "  events         counted events with their price class\n"
	  "                 (no list named: all four)\n"
	  "  --json         as one JSON object with a member per list\n" },
	{ "fit", cmd_fit, "[--json] [--published ID=VALUE]...",
	  "fit the fitted constants jointly on their rows, and leave each row out",
	  "  --json         as JSON\n"
	  "  --published ID=VALUE\n"
	  "                 fit to VALUE instead of row ID's published value (what-if)\n" },
	{ "run", cmd_run,
	  "FILE [--cpu LIST|all] [--granule LIST] [--features SPEC]... [--bbm L] [--noabort on|off] "
	  "[--max-work N] [--no-check-invariants] [--check] [--findings] [--wide] "
	  "[--verbose] [--events all|N] [--jobs N] [--json]",
	  "a scenario file on each CPU, granule and feature set: the times per checkpoint and "
	  "kernel, the verdict, then what changed event by event",
	  "  FILE           the scenario (doc/scenario.md)\n"
	  "  --cpu LIST     comma-separated CPU names, or all; printed in the order given\n"
	  "                 (default: the scenario's; names: ptsim-bench list cpus)\n"
	  "  --granule LIST comma-separated 4K, 16K, 64K (any case; default: the scenario's)\n"
	  "  --features SPEC  a kernel: presets and features, comma-separated, +name/-name\n"
	  "                 to switch one on/off; repeat to compare kernels (at most 8)\n"
	  "                 (names: ptsim-bench list presets features)\n"
	  "  --bbm L        the CPUs' break-before-make level, 0, 1 or 2 (default: each CPU's)\n"
	  "  --noabort on|off  the CPUs on or off the BBML2-noabort list (default: each CPU's)\n"
	  "  --max-work N   stop a run after N units of simulated work (a positive number)\n"
	  "  --no-check-invariants  do not check the model's invariants after each operation\n"
	  "                 (break-before-make and TLB diagnostics are still counted)\n"
	  "  --check        exit 3 when any run reported a diagnostic, counting them on stderr\n"
	  "  --findings     accepted for older scripts: diagnostics are always listed\n"
	  "  --wide         with --verbose, each checkpoint's events on one line\n"
	  "  --verbose      each run's report too: every checkpoint's events, the CPUs compared\n"
	  "  --events all|N list every changed event in a diff, or the N of largest share\n"
	  "                 (default 10)\n"
	  "  --jobs N       run the CPU and granule combinations in N worker processes (1..64;\n"
	  "                 default 1); the output is the same, in the same order\n"
	  "  --json         as JSON\n" },
	{ "sweep", cmd_sweep,
	  "FILE [--values LIST] [--cpu LIST|all] [--granule LIST] [--features SPEC]... [--checkpoint NAME] "
	  "[--check] [--csv|--json]",
	  "a scenario once per value of its $n: each checkpoint's predicted time per value",
	  "  FILE           the scenario; its `sweep n VALUES` line gives the values\n"
	  "  --values LIST  the values instead: N, A..B (doubling) or A..B+STEP, comma-separated\n"
	  "  --cpu LIST     comma-separated CPU names, or all (default: the scenario's)\n"
	  "  --granule LIST comma-separated 4K, 16K, 64K (default: the scenario's)\n"
	  "  --features SPEC  a kernel (presets and features); repeat to compare (at most 8)\n"
	  "  --checkpoint NAME  only this checkpoint\n"
	  "  --check        exit 3 when any run reported a diagnostic, counting them on stderr\n"
	  "  --csv          one line per run and checkpoint: time and every event count\n"
	  "  --json         as JSON (tools/ptsim-plot sweep draws it)\n" },
	{ "audit", cmd_audit,
	  "[--cpu LIST|all] [--seconds N | --scenarios N] [--seed S] [--presets LIST] [--jobs N] "
	  "[--shard K/N] [--reproducers DIR] [--json]",
	  "random scenarios on every CPU and kernel: break-before-make findings, grouped, shrunk",
	  "  --cpu LIST     comma-separated CPU names, or all (default: all)\n"
	  "  --seconds N    stop after N seconds (N > 0; default 60)\n"
	  "  --scenarios N  stop after N scenarios instead (N > 0; with --shard, of the whole campaign)\n"
	  "  --seed S       the first scenario's seed (default 1)\n"
	  "  --jobs N       run the scenarios in N worker processes (1..64; default 1): the same\n"
	  "                 findings as one process\n"
	  "  --shard K/N    run only the K-th of N shares of the campaign (scenario n where\n"
	  "                 n mod N = K-1); ptsim-bench merge joins the shards' --json outputs\n"
	  "  --presets LIST comma-separated presets to run each scenario on\n"
	  "                 (default v6.16,v6.17,v6.18,v6.19,patched; ptsim-bench list presets)\n"
	  "  --reproducers DIR  write each finding's shrunk scenario into DIR\n"
	  "  --json         as JSON\n" },
	{ "merge", cmd_merge, "FILE... [--json]",
	  "the findings of several audit --json runs (shards, campaigns) as one, as audit prints "
	  "them",
	  "  FILE           the --json output of an audit run; its groups are joined by kind and\n"
	  "                 chain, each keeping the reproducer of its earliest scenario\n"
	  "  --json         as audit's JSON (its groups in the order of one process's)\n" },
	{ "predict", cmd_predict, "[--json] [--only PREFIX] [--cpu NAME] [--wide]",
	  "the mm-lifecycle benchmarks as published, per kernel (predictions, no fits)",
	  "  --json         as JSON\n"
	  "  --only PREFIX  only the workloads whose id starts with PREFIX\n"
	  "  --cpu NAME     price every workload on this CPU instead of the published one\n"
	  "  --wide         one line per kernel, with the feature spec (default: 80 columns)\n" },
	{ "speed", cmd_speed, "[--best-of N] [--json]",
	  "the simulator's own speed, and the host kernel's, each figure against its target",
	  "  --best-of N    each timed figure is the best of N runs by CPU time (1..100; default 3)\n"
	  "  --json         as JSON\n" },
	{ "completion", cmd_completion, "bash",
	  "a bash completion script for ptsim-bench, from the same table as this help",
	  "  bash           the script, for example into\n"
	  "                 ~/.local/share/bash-completion/completions/ptsim-bench\n"
	  "                 (meson install puts it into share/bash-completion/completions)\n" },
};

const size_t nr_commands = sizeof(commands) / sizeof(commands[0]);

#define HELP_COLUMNS 80

/* The column the option tables' descriptions start at ("  --cpu LIST     ..."). */
#define HELP_OPTION_COLUMN 17

/*
 * The column a help line's continuation lines start at: a usage line under
 * its command, an option line under the options' descriptions, a table row
 * ("  run        FILE ...") under its text, any other line under itself.
 */
static size_t help_hang(const char *line, size_t len)
{
	size_t lead = strspn(line, " ");

	if (!strncmp(line, "usage: ", 7))
		return 7;
	if (lead < len && line[lead] == '-')
		return HELP_OPTION_COLUMN;
	for (size_t i = lead; i + 1 < len && i < 24; i++)
		if (line[i] == ' ' && line[i + 1] == ' ')
			return i + strspn(line + i, " ");
	return lead;
}

/*
 * The length of the word at text: up to a space or the line's end, or, for
 * a word that opens a bracket ("[--bbm L]"), up to the space after the
 * bracket that closes it, so that a synopsis breaks between options.
 */
static size_t word_len(const char *text, size_t left)
{
	size_t w = 0;
	int depth = 0;

	if (*text != '[') {
		w = strcspn(text, " \n");
		return w < left ? w : left;
	}
	for (; w < left && text[w] != '\n' && (depth > 0 || text[w] != ' '); w++)
		depth += text[w] == '[' ? 1 : text[w] == ']' ? -1 : 0;
	return w;
}

/*
 * text on f, each line wrapped at 80 columns: its continuation lines start at
 * hang, or (hang SIZE_MAX) where help_hang puts them.
 */
static void wrap_text(FILE *f, size_t hang_all, const char *text)
{
	while (*text) {
		size_t len = strcspn(text, "\n"), col = 0, at = 0;
		size_t hang = hang_all == SIZE_MAX ? help_hang(text, len) : hang_all;

		while (at < len) {
			size_t sp = strspn(text + at, " ");
			size_t w = at + sp < len ? word_len(text + at + sp, len - at - sp) : 0;
			size_t to = hang;

			if (at + sp >= len)
				break;
			/* a word too long for the hang goes as far left as it must */
			if (to + w > HELP_COLUMNS)
				to = w < HELP_COLUMNS - 2 ? HELP_COLUMNS - w : 2;
			if (col && col + sp + w > HELP_COLUMNS && col + sp > to) {
				fprintf(f, "\n%*s", (int)to, "");
				col = to;
				sp = 0;
				at += strspn(text + at, " ");
			}
			fprintf(f, "%*s%.*s", (int)sp, "", (int)w, text + at + sp);
			col += sp + w;
			at += sp + w;
		}
		fputc('\n', f);
		text += len + (text[len] == '\n');
	}
}

/* Help text on f, each line wrapped under its hang (help_hang). */
static void help_print(FILE *f, const char *text)
{
	wrap_text(f, SIZE_MAX, text);
}

void wrap_print(FILE *f, size_t hang, const char *fmt, ...)
{
	char line[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	wrap_text(f, hang, line);
}

int usage(FILE *f)
{
	char line[1024];

	help_print(f, "usage: ptsim-bench COMMAND [OPTIONS]\n"
		      "       ptsim-bench COMMAND --help | help COMMAND | --help | --version\n\n"
		      "commands:");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		snprintf(line, sizeof(line), "  %-10s %s\n  %-10s %s", commands[i].name,
			 commands[i].args, "", commands[i].what);
		help_print(f, line);
	}
	return f == stdout ? 0 : 2;
}

int command_usage(const char *name, FILE *f)
{
	char line[1024];

	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(commands[i].name, name))
			continue;
		/* the synopsis's continuation lines under its first option */
		wrap_print(f, strlen("usage: ptsim-bench  ") + strlen(name), "usage: ptsim-bench %s%s%s",
			   name, *commands[i].args ? " " : "", commands[i].args);
		snprintf(line, sizeof(line), "  %s", commands[i].what);
		help_print(f, line);
		if (*commands[i].options) {
			fprintf(f, "\noptions:\n");
			help_print(f, commands[i].options);
		}
		fprintf(f, "  --help         this text\n");
		return f == stdout ? 0 : 2;
	}
	fprintf(stderr, "ptsim-bench: unknown command %s\n", name);
	return 2;
}

/* "a, b, c": the names of one kind on f. */
void print_valid_cpus(FILE *f)
{
	for (unsigned int c = 0; c < PTSIM_CPU__COUNT; c++)
		fprintf(f, "%s%s", c ? ", " : "", ptsim_cpu_name((enum ptsim_cpu)c));
}

void print_valid_presets(FILE *f)
{
	char buf[1024];

	names_wrapped(buf, sizeof(buf), ptsim_preset_name, 11, 4);
	fputs(buf, f);
}

void print_valid_features(FILE *f)
{
	char buf[2048];

	valid_features_text(buf, sizeof(buf), 12, 4);
	fputs(buf, f);
}

int parse_cpus(const char *cmd, const char *list, unsigned int *mask, enum ptsim_cpu *order,
	       unsigned int *nr)
{
	char buf[256];
	unsigned int n = 0;

	*mask = 0;
	if (!strcmp(list, "all")) {
		for (unsigned int c = 0; c < PTSIM_CPU__COUNT; c++) {
			if (order)
				order[n] = (enum ptsim_cpu)c;
			n++;
		}
		*mask = (1u << PTSIM_CPU__COUNT) - 1;
	} else if (strlen(list) < sizeof(buf)) {
		strcpy(buf, list);
		for (char *save = NULL, *t = strtok_r(buf, ",", &save); t;
		     t = strtok_r(NULL, ",", &save)) {
			enum ptsim_cpu c;

			if (ptsim_cpu_lookup(t, &c)) {
				fprintf(stderr, "%s: --cpu: unknown CPU '%s'; valid: ", cmd, t);
				print_valid_cpus(stderr);
				fprintf(stderr, ", all\n");
				return -EINVAL;
			}
			if (*mask & (1u << c))
				continue;	/* named twice: printed once */
			*mask |= 1u << c;
			if (order)
				order[n] = c;
			n++;
		}
	}
	if (nr)
		*nr = n;
	if (!*mask) {
		fprintf(stderr, "%s: --cpu: expected a comma-separated list of CPUs, or all\n", cmd);
		return -EINVAL;
	}
	return 0;
}

bool parse_u64(const char *text, uint64_t *out)
{
	char *end = NULL;
	unsigned long long v;

	if (!isdigit((unsigned char)*text))
		return false;
	errno = 0;
	v = strtoull(text, &end, 0);
	if (*end || errno)
		return false;
	*out = v;
	return true;
}

int parse_json_option(const char *name, int argc, char **argv, bool *json)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*json = false;
	optind = 0;	/* a fresh scan of this command's arguments (glibc) */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'h')
			return command_usage(name, stdout) - 1;	/* -1: done, exit 0 */
		if (c == 'j') {
			*json = true;
			continue;
		}
		fprintf(stderr, "%s: unknown option %s\n", name, argv[optind - 1]);
		return command_usage(name, stderr);
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument %s\n", name, argv[optind]);
		return command_usage(name, stderr);
	}
	return 0;
}

int write_all(int fd, const void *buf, size_t len)
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

int read_all(FILE *f, void *buf, size_t len)
{
	return fread(buf, 1, len, f) == len ? 0 : -1;
}
