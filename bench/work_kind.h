/* SPDX-License-Identifier: MIT */
/*
 * Which kind of kernel work each event and loop path counts (bench/work_kind.c):
 * reproduce --detail and list events group by it, so the per-folio machinery
 * (issue 43) reads apart from the page-table walks that call into it.
 */
#ifndef PTSIM_BENCH_WORK_KIND_H
#define PTSIM_BENCH_WORK_KIND_H

#include <ptsim/cost.h>
#include <ptsim/stats.h>

enum work_kind {
	WORK_UNCLASSIFIED,	/* an event or loop added without a kind: a defect */
	WORK_PAGE_TABLE,	/* descriptors, TLB maintenance, the PTE walks' own per-entry work */
	WORK_PER_FOLIO,		/* folio references, locks, rmap, LRU, memcg, split, freeing */
	WORK_ACCESS,		/* user accesses: TLB lookups and walks, caches, page contents */
	WORK_SYSCALL,		/* entry, faults, VMAs, mmap_lock, slab, counters, I/O */
	WORK__COUNT
};

/* The kind of work event e counts; WORK_UNCLASSIFIED past the last event. */
enum work_kind event_work_kind(enum ptsim_event e);

/* The kind of work loop path l's turns are; WORK_UNCLASSIFIED past the last path. */
enum work_kind loop_work_kind(enum ptsim_loop l);

/*
 * p's total (ptsim_predict_overlap) split by kind: each event's and each
 * loop path's part added to its kind's sum in out (zeroed first).
 */
void work_kind_sums(const struct ptsim_overlap_prediction *p, double out[WORK__COUNT]);

/* A short name of kind ("page tables and TLB", "per-folio work", ...). */
const char *work_kind_name(enum work_kind kind);

/* The short JSON key of kind ("page_table", "per_folio", "access", "syscall"). */
const char *work_kind_key(enum work_kind kind);

#endif
