// SPDX-License-Identifier: MIT
/* Which simulation produces each published row (by id prefix). */
#include "rows.h"

#include <string.h>

static const struct {
	const char *prefix;
	row_sim_fn fn;
} simulations[] = {
	{ "mprotect.", mprotect_rows },
	{ "uffd.", uffd_rows },
	{ "linear_map.", linear_map_rows },
	{ "exec.", exec_rows },
};

row_sim_fn row_simulation(const char *id)
{
	for (size_t i = 0; i < sizeof(simulations) / sizeof(simulations[0]); i++)
		if (!strncmp(id, simulations[i].prefix, strlen(simulations[i].prefix)))
			return simulations[i].fn;
	return NULL;
}
