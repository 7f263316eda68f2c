// SPDX-License-Identifier: MIT
/* The machine's state before each replayed workload, from one table (machine_state.h). */
#include "machine_state.h"
#include "rows.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const struct machine_state states[] = {
	{ "mprotect.m3.", PTSIM_PHYS_SEQUENTIAL, PTSIM_CACHES_WARM,
	  "the program maps and fills its 1 GiB once at start, then repeats mprotect and bzero "
	  "back to back in the same process; the VM's memory is taken as freshly booted (the "
	  "publication says nothing of its uptime) (doc/workloads.md §mprotect)" },
	{ "uffd.android.", PTSIM_PHYS_FRAGMENTED, PTSIM_CACHES_WARM,
	  "a phone up for days hands the GC scattered page frames; the GC's compaction of each "
	  "page just before its move is replayed, so the caches hold what that left "
	  "(doc/workloads.md §uffd, The machine before the moves)" },
	{ "linear_map.ampereone.", PTSIM_PHYS_SEQUENTIAL, PTSIM_CACHES_WARM,
	  "the linear map is painted at boot, before anything is allocated; the kernel's "
	  "accesses follow one another with nothing between them (doc/workloads.md "
	  "§linear-map)" },
	{ "exec.grace.", PTSIM_PHYS_SEQUENTIAL, PTSIM_CACHES_WARM,
	  "each run execs the program in a fresh process; its text comes from the page cache "
	  "or by I/O, which no cache sees, and its calls follow one another (doc/workloads.md "
	  "§exec)" },
	{ "lifecycle.", PTSIM_PHYS_SEQUENTIAL, PTSIM_CACHES_WARM,
	  "each benchmark sets its memory up in a fresh process and times the calls right "
	  "after it, back to back: the timed call finds what the set-up and the calls before "
	  "it left in the caches (doc/workloads.md §lifecycle)" },
};

const struct machine_state *machine_state_of(const char *id)
{
	for (size_t i = 0; id && i < sizeof(states) / sizeof(states[0]); i++)
		if (!strncmp(id, states[i].family, strlen(states[i].family)))
			return &states[i];
	return NULL;
}

int machine_state_apply(struct ptsim_machine *m, const char *id, uint64_t seed)
{
	const struct machine_state *s = machine_state_of(id);
	int err;

	if (!s)
		return -ENOENT;
	err = ptsim_machine_set_phys_order(m, s->phys, seed);
	return err ? err : ptsim_machine_set_caches(m, s->caches);
}

static const char *phys_name(enum ptsim_phys_order o)
{
	return o == PTSIM_PHYS_FRAGMENTED ? "fragmented" : o == PTSIM_PHYS_SHUFFLED ? "shuffled" :
										       "sequential";
}

void print_machine_state(const char *id, unsigned int indent)
{
	const struct machine_state *s = machine_state_of(id);

	if (s)
		wrap_print(stdout, indent + 2, "%*smachine: %s frames, caches %s: %s", (int)indent, "",
			   phys_name(s->phys), s->caches == PTSIM_CACHES_COLD ? "cold" : "warm",
			   s->why);
}

void print_machine_state_json(const char *id)
{
	const struct machine_state *s = machine_state_of(id);

	printf(", \"machine\": ");
	if (!s) {
		printf("null");
		return;
	}
	printf("{\"phys\": \"%s\", \"caches\": \"%s\", \"why\": ", phys_name(s->phys),
	       s->caches == PTSIM_CACHES_COLD ? "cold" : "warm");
	json_string(s->why);
	printf("}");
}
