// SPDX-License-Identifier: MIT
/* ptsim-bench's command table, usage, progress and JSON helpers (main is in ptsim-bench.c). */
#include "rows.h"

#include <getopt.h>
#include <stdarg.h>
#include <string.h>

void progress(const char *fmt, ...)
{
	va_list ap;

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

const struct command commands[] = {
	{ "reproduce", cmd_reproduce, "[--json] [--svg FILE] [--only PREFIX] [--detail ID] [--check]",
	  "every modelled published result: published vs simulated" },
	{ "cpus", cmd_cpus, "[--json]", "CPU descriptions and every cost-profile constant with its source" },
	{ "fit", cmd_fit, "", "solve the fitted profile constants again from their rows" },
	{ "run", cmd_run,
	  "FILE [--cpu LIST|all] [--granule LIST] [--features SPEC]... [--max-work N] [--findings] [--json]",
	  "a scenario file on each CPU, granule and feature set; counts and time per checkpoint" },
	{ "audit", cmd_audit,
	  "[--cpu LIST|all] [--seconds N | --scenarios N] [--seed S] [--presets LIST] [--reproducers DIR] [--json]",
	  "random scenarios on every CPU and kernel: break-before-make findings, grouped, shrunk" },
	{ "predict", cmd_predict, "[--json] [--only PREFIX] [--cpu NAME]",
	  "the mm-lifecycle benchmarks as published, per kernel (predictions, no fits)" },
	{ "speed", cmd_speed, "[--json]", "the simulator's own speed, and the host kernel's" },
};

const size_t nr_commands = sizeof(commands) / sizeof(commands[0]);

int usage(FILE *f)
{
	fprintf(f, "usage: ptsim-bench COMMAND [OPTIONS]\n"
		   "       ptsim-bench COMMAND --help | --help | --version\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n  %-10s %s\n", commands[i].name, commands[i].args, "",
			commands[i].what);
	return f == stdout ? 0 : 2;
}

int command_usage(const char *name, FILE *f)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			fprintf(f, "usage: ptsim-bench %s%s%s\n  %s\n", name,
				*commands[i].args ? " " : "", commands[i].args, commands[i].what);
	return f == stdout ? 0 : 2;
}

int parse_json_option(const char *name, int argc, char **argv, bool *json)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool takes_json = strcmp(name, "fit") != 0;
	int c;

	*json = false;
	optind = 0;	/* a fresh scan of this command's arguments (glibc) */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'h')
			return command_usage(name, stdout) - 1;	/* -1: done, exit 0 */
		if (c == 'j' && takes_json) {
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

