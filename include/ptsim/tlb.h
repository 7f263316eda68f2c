/* SPDX-License-Identifier: MIT */
#ifndef PTSIM_TLB_H
#define PTSIM_TLB_H

#include <stdint.h>
#include <ptsim/export.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ptsim_machine;
struct ptsim_mm;

enum ptsim_access_kind {
	PTSIM_ACCESS_READ,
	PTSIM_ACCESS_WRITE,
	PTSIM_ACCESS_EXEC,	/* an instruction fetch: through the iTLB */
};

enum ptsim_fault_kind {
	PTSIM_FAULT_NONE,
	PTSIM_FAULT_TRANSLATION,	/* no valid descriptor */
	PTSIM_FAULT_ACCESS_FLAG,	/* AF clear on a CPU without hardware AF */
	PTSIM_FAULT_PERMISSION,
	PTSIM_FAULT_TLB_CONFLICT,	/* conflict abort (CPU not BBML2-noabort) */
};

/*
 * One memory access by `cpu` in `mm`: TLB lookup, table walk on a miss,
 * hardware AF/dirty updates where the CPU has FEAT_HAFDBS, permission check
 * (EL0 for user mms, EL1 for the kernel mm). Returns 0 when the access
 * completes, -EFAULT when it faults (*fault says why; handling it is the
 * caller's business), -EINVAL for bad arguments.
 */
PTSIM_API int ptsim_access(struct ptsim_mm *mm, unsigned int cpu, uint64_t va,
			   enum ptsim_access_kind kind, enum ptsim_fault_kind *fault);

/*
 * Touch every page of [start, start+len) once, as memset/bzero (WRITE) or a
 * read scan (READ) does. Faulting pages are counted in *faults (may be NULL)
 * and skipped.
 */
PTSIM_API int ptsim_touch(struct ptsim_mm *mm, unsigned int cpu, uint64_t start, uint64_t len,
			  enum ptsim_access_kind kind, uint64_t *faults);

/*
 * The program's data in [start, start+len) is all zeros, as after
 * memset(p, 0, len) or bzero (ptsim_touch does the writes themselves): each
 * anonymous folio mapped wholly inside the range is marked as holding only
 * zeros, until a write (ptsim_touch, ptsim_access or ptsim_fault for a
 * write) reaches it or it is freed. The model keeps no contents otherwise
 * and takes any written page to hold data. What reads it: v6.12's swap-out
 * (swap_writepage's is_folio_zero_filled, feature swap_zeromap), which
 * keeps a zero-filled folio as zeromap bits and writes nothing; a swap-in
 * of such a page then zeroes it and reads nothing. Counts nothing. -EINVAL
 * for a kernel or raw mm, an empty or wrapping range, or one past the
 * address space.
 */
PTSIM_API int ptsim_set_zero_filled(struct ptsim_mm *mm, uint64_t start, uint64_t len);

/* A speculative walk: fill the TLBs of `cpu` for va without looking them up first. */
PTSIM_API int ptsim_tlb_fill(struct ptsim_mm *mm, unsigned int cpu, uint64_t va,
			     enum ptsim_access_kind kind);

enum ptsim_tlb_level {
	PTSIM_TLB_L1D,
	PTSIM_TLB_L1I,
	PTSIM_TLB_L2,
};

/* Valid entries in one TLB structure of one CPU. */
PTSIM_API int ptsim_tlb_count(const struct ptsim_machine *m, unsigned int cpu,
			      enum ptsim_tlb_level which, unsigned int *out);

/* Entries of one structure that translate va for mm: how many, and the largest's size. */
PTSIM_API int ptsim_tlb_probe(const struct ptsim_mm *mm, unsigned int cpu, uint64_t va,
			      enum ptsim_tlb_level which, unsigned int *matches, uint64_t *size);

#ifdef __cplusplus
}
#endif

#endif
