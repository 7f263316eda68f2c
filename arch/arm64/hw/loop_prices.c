// SPDX-License-Identifier: MIT
/* ptsim_loop_price_get: the loop prices of one CPU, in the order of the generated table. */
#include "core.h"
#include "loop_prices.h"

#include <string.h>

/* Rows ordered by cpu, then loop, then variant: <0, 0, >0 as strcmp. */
static int row_cmp(const struct loop_price_row *r, const char *cpu, const char *fn,
		   const char *variant)
{
	int c = strcmp(r->cpu, cpu);

	if (!c)
		c = strcmp(r->loop, fn);
	return c ? c : strcmp(r->variant, variant);
}

const struct loop_price_row *loop_price_row_of(const char *cpu, const char *fn, const char *variant)
{
	unsigned int lo = 0, hi = loop_price_nr_rows;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;
		const struct loop_price_row *r = &loop_price_rows[loop_price_sorted[mid]];
		int c = row_cmp(r, cpu, fn, variant);

		if (!c)
			return r;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int ptsim_loop_price_get(enum ptsim_cpu cpu, unsigned int index, struct ptsim_loop_price *out)
{
	const struct cpu_desc *d = cpu_desc_get(cpu);
	unsigned int seen = 0;

	VALIDATE(d && out);
	for (unsigned int i = 0; i < loop_price_nr_rows; i++) {
		const struct loop_price_row *r = &loop_price_rows[i];

		if (strcmp(r->cpu, d->name) || seen++ != index)
			continue;
		memset(out, 0, sizeof(*out));
		out->loop = r->loop;
		out->variant = r->variant;
		out->cycles = r->cycles;
		out->ns = r->cycles / d->freq_ghz;
		out->latency = (unsigned int)r->latency;
		out->instructions = (unsigned int)r->instructions;
		out->uops = (unsigned int)r->uops;
		out->model = r->model;
		out->provenance = r->provenance;
		return 0;
	}
	return -ENOENT;
}
