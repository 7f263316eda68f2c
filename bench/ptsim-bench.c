// SPDX-License-Identifier: MIT
/* ptsim-bench: the project's main job. */
#include "rows.h"

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
		if (*s == '"' || *s == '\\')
			putchar('\\');
		putchar(*s);
	}
	putchar('"');
}

static int usage(FILE *f)
{
	fprintf(f,
		"usage: ptsim-bench COMMAND [OPTIONS]\n"
		"  reproduce [--json] [--svg FILE] [--only PREFIX] [--detail ID]\n"
		"            every modelled published result: published vs simulated\n"
		"  cpus [--json]        CPU descriptions and every cost-profile constant\n"
		"  fit                  solve the fitted profile constants from their rows\n"
		"  speed [--json]       the simulator's own speed, and the host kernel's\n");
	return f == stdout ? 0 : 2;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage(stderr);
	if (!strcmp(argv[1], "reproduce"))
		return cmd_reproduce(argc - 1, argv + 1);
	if (!strcmp(argv[1], "cpus"))
		return cmd_cpus(argc - 1, argv + 1);
	if (!strcmp(argv[1], "speed"))
		return cmd_speed(argc - 1, argv + 1);
	if (!strcmp(argv[1], "fit"))
		return cmd_fit(argc - 1, argv + 1);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return usage(stdout);
	return usage(stderr);
}
