// SPDX-License-Identifier: MIT
/* ptsim-bench: the project's main job. */
#include "rows.h"

#include <string.h>

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage(stderr);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return usage(stdout);
	if (!strcmp(argv[1], "--version")) {
		printf("ptsim-bench %s (libptsim %s)\n", PTSIM_VERSION_STRING, ptsim_version());
		return 0;
	}
	if (!strcmp(argv[1], "help"))
		return argc > 2 ? command_usage(argv[2], stdout) : usage(stdout);
	for (size_t i = 0; i < nr_commands; i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "ptsim-bench: unknown command %s\n", argv[1]);
	return usage(stderr);
}
