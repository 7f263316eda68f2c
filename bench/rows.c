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

static row_sim_fn lookup(const char *id)
{
	for (size_t i = 0; i < sizeof(simulations) / sizeof(simulations[0]); i++)
		if (!strncmp(id, simulations[i].prefix, strlen(simulations[i].prefix)))
			return simulations[i].fn;
	return NULL;
}

/* Every row's result starts from zero: a row without loop turns leaves them so. */
static int simulate(const struct published *row, struct row_result *out)
{
	memset(out, 0, sizeof(*out));
	return lookup(row->id)(row, out);
}

row_sim_fn row_simulation(const char *id)
{
	return lookup(id) ? simulate : NULL;
}
