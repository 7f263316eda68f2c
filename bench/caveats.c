// SPDX-License-Identifier: MIT
/* The model limitations each figure rests on, from one table (caveats.h). */
#include "caveats.h"
#include "rows.h"

#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

static const struct {
	const char *ids;	/* fnmatch pattern of row ids; NULL: any figure, runs too */
	const char *kernel;	/* a kernel's preset (the spec's first name); NULL: any */
	const char *text;
} caveats[] = {
	{ NULL, "v6.8",
	  "v6.8 is modelled without contpte (CONFIG_ARM64_CONTPTE came with v6.9): a "
	  "comparison with it includes all of contpte's change, not only the one measured "
	  "(doc/workloads.md, Kernels without contpte)" },
	{ "mprotect.m3.*_seconds", NULL,
	  "absolute seconds rest on the fitted iteration count (ptsim-bench fit); with the "
	  "memset bandwidth priced from a measurement the joint fit does not meet all its "
	  "rows (the fit rows' errors): the model lacks time the per-iteration cost does not "
	  "carry (doc/workloads.md §mprotect)" },
	{ "uffd.android.*", NULL,
	  "the machine as the publication's phone, not fresh: page frames from a fragmented "
	  "allocator (PTSIM_PHYS_FRAGMENTED), the GC compacting each page before it moves it "
	  "(doc/workloads.md §uffd, The machine before the moves)" },
	{ "uffd.android.normal_folio_share_after", NULL,
	  "the published share fits only a mix of nearly all long PMD-aligned moves; the "
	  "workload's mix of run lengths is unknown (doc/workloads.md §uffd, Where the model "
	  "lands after the patch)" },
	{ "linear_map.ampereone.kernel_tlb_miss_reduction", NULL,
	  "a synthetic mix of kernel accesses stands for the memcached run "
	  "(doc/workloads.md §linear-map)" },
	{ "lifecycle.altra.dontneed_*", NULL,
	  "the published after is contpte v4 with v4's own batching, replaced before the "
	  "merge; the modelled after is the merged v6.9, a different code path "
	  "(doc/workloads.md, MADV_DONTNEED)" },
	{ "lifecycle.x1.mlock_loop_*", NULL,
	  "the chip is not named (android-x1 assumed), and the published profiles show lock "
	  "debugging (42% of the cycles) that the model does not price: the seconds are not "
	  "comparable (doc/workloads.md, mlock over contpte blocks)" },
	{ "lifecycle.m3.mprotect_none_to_rw_toggle", NULL,
	  "region size, iteration count and CPU are not stated (one 4K page on the Apple M3 "
	  "assumed): the microseconds rest on that guess (doc/workloads.md, mprotect "
	  "PROT_NONE -> RW)" },
	{ "lifecycle.m3.pageout_swap_*", NULL,
	  "measured on mm-unstable of spring 2026, replayed on v6.19 (the newest release the "
	  "model has); the swap device is not stated, and none is written: the pages are "
	  "zeros, which v6.12 and later keep as zeromap bits; the series' batched swap-entry "
	  "store is modelled as one run of stores per run of equal exclusivity "
	  "(doc/workloads.md, MADV_PAGEOUT of zero-filled 64K mTHP)" },
	{ "lifecycle.x1.pageout_*", NULL,
	  "the CPU is not stated (android-x1 assumed): the seconds rest on that profile "
	  "(doc/workloads.md, MADV_PAGEOUT of lazyfree 64K mTHP)" },
};

/* Whether spec's preset (its first comma-separated name) is preset. */
static bool kernel_is(const char *spec, const char *preset)
{
	size_t n = strcspn(spec, ",");

	return n == strlen(preset) && !strncmp(spec, preset, n);
}

const char *caveat(const char *id, const char *const *kernels, unsigned int nr_kernels,
		   unsigned int i)
{
	for (size_t c = 0; c < sizeof(caveats) / sizeof(caveats[0]); c++) {
		bool applies = !caveats[c].ids || (id && !fnmatch(caveats[c].ids, id, 0));

		if (applies && caveats[c].kernel) {
			applies = false;
			for (unsigned int k = 0; k < nr_kernels; k++)
				applies |= kernel_is(kernels[k], caveats[c].kernel);
		}
		if (applies && !i--)
			return caveats[c].text;
	}
	return NULL;
}

/* "caveat: TEXT" (label: "caveat (LABEL): TEXT") wrapped at 80 columns. */
static void print_wrapped(const char *label, const char *t, unsigned int indent)
{
	int n = printf("%*scaveat%s%s%s:", (int)indent, "", label ? " (" : "", label ? label : "",
		       label ? ")" : "");
	unsigned int col = n > 0 ? (unsigned int)n : 0;

	for (;;) {
		size_t w;

		while (*t == ' ')
			t++;
		w = strcspn(t, " ");
		if (!w)
			break;
		if (col + 1 + w > 80) {	/* the next line, two more spaces in */
			printf("\n%*s", (int)indent + 1, "");
			col = indent + 1;
		}
		printf(" %.*s", (int)w, t);
		col += 1 + (unsigned int)w;
		t += w;
	}
	printf("\n");
}

void print_caveats(const char *id, const char *const *kernels, unsigned int nr_kernels,
		   unsigned int indent)
{
	const char *t;

	for (unsigned int i = 0; (t = caveat(id, kernels, nr_kernels, i)); i++)
		print_wrapped(NULL, t, indent);
}

void print_caveats_of_rows(const char *const *ids, unsigned int nr_ids, unsigned int indent)
{
	for (size_t c = 0; c < sizeof(caveats) / sizeof(caveats[0]); c++) {
		bool any = false;

		if (!caveats[c].ids || caveats[c].kernel)
			continue;	/* rows here have no kernels */
		for (unsigned int i = 0; i < nr_ids && !any; i++)
			any = !fnmatch(caveats[c].ids, ids[i], 0);
		if (any)
			print_wrapped(caveats[c].ids, caveats[c].text, indent);
	}
}

void print_caveats_json(const char *id, const char *const *kernels, unsigned int nr_kernels)
{
	const char *t;

	printf(", \"caveats\": [");
	for (unsigned int i = 0; (t = caveat(id, kernels, nr_kernels, i)); i++) {
		printf("%s", i ? ", " : "");
		json_string(t);
	}
	printf("]");
}
