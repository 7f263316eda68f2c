// SPDX-License-Identifier: MIT
#include "group_text.h"
#include "rows.h"

#include <stdio.h>
#include <string.h>

/* The scenario's operations: its lines but the machine and sweep lines. */
static size_t nr_operations(const char *scenario)
{
	size_t n = 0;

	for (const char *line = scenario; line && *line;) {
		const char *nl = strchr(line, '\n');

		n += strncmp(line, "machine ", 8) && strncmp(line, "sweep ", 6);
		line = nl ? nl + 1 : NULL;
	}
	return n;
}

/* "v6.17, v6.18": the names of the kernels whose bit (1 << i: names[i]) is in mask. */
static void kernels_text(char *buf, size_t len, uint64_t mask, const char *const *names,
			 size_t nr_names)
{
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < nr_names && i < 64 && at < len; i++)
		if (mask & (UINT64_C(1) << i))
			at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? ", " : "", names[i]);
}

void group_print_text(const char *kind, const char *chain, const char *message,
		      const uint64_t fires[PTSIM_CPU__COUNT], const char *const *names,
		      size_t nr_names, const char *scenario)
{
	char kernels[2048];

	wrap_print(stdout, 4, "[%s] %s", kind, chain);
	wrap_print(stdout, 4, "  %s", message);
	printf("  fires on:\n");
	for (unsigned int c = 0; c < PTSIM_CPU__COUNT; c++) {
		if (!fires[c])
			continue;
		kernels_text(kernels, sizeof(kernels), fires[c], names, nr_names);
		wrap_print(stdout, 17, "    %-12s %s", ptsim_cpu_name((enum ptsim_cpu)c), kernels);
	}
	printf("  minimal scenario (%zu operations):\n", nr_operations(scenario));
	for (const char *line = scenario; line && *line;) {
		const char *nl = strchr(line, '\n');

		printf("    %.*s\n", (int)(nl ? nl - line : (long)strlen(line)), line);
		line = nl ? nl + 1 : NULL;
	}
	printf("\n");
}
