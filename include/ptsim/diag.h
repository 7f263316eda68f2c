/* SPDX-License-Identifier: MIT */
#ifndef PTSIM_DIAG_H
#define PTSIM_DIAG_H

#include <stdint.h>
#include <ptsim/export.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ptsim_machine;

enum ptsim_diag_kind {
	PTSIM_DIAG_INVARIANT,		/* a model invariant broken by an algorithm */
	PTSIM_DIAG_BBM_VIOLATION,	/* a descriptor write that breaks break-before-make */
	PTSIM_DIAG_TLB_CONFLICT,	/* several TLB entries match one VA */
	PTSIM_DIAG_WARN,		/* a kernel WARN_ON the model reproduces */
	/*
	 * A change the Arm ARM allows in place at the CPU's BBM level (the
	 * contiguous bit at level 1, a block size at level 2) on a CPU that is
	 * not BBML2-noabort: the TLB may hold both entries and raise a TLB
	 * conflict abort, and Linux itself breaks first on such CPUs.
	 */
	PTSIM_DIAG_BBM_CONFLICT_RISK,
	PTSIM_DIAG__COUNT
};

#define PTSIM_DIAG_MAX_FRAMES 32

struct ptsim_diag {
	enum ptsim_diag_kind kind;
	const char *message;
	uint64_t va;
	int level;
	uint64_t old_desc;
	uint64_t new_desc;
	/* Simulator call chain (function+offset), innermost first; 0 without libunwind. */
	unsigned int nr_frames;
	const char *frames[PTSIM_DIAG_MAX_FRAMES];
};

typedef void (*ptsim_diag_handler)(const struct ptsim_diag *diag, void *arg);

/*
 * Diagnostics of machine m go to handler(diag, arg); NULL restores the default
 * handler, which prints to stderr. The handler runs in the middle of the
 * operation that found the problem, with the model half-changed. It may call
 * queries (stats, counts, translate, ptdump, ...). Calls that would change the
 * model or report diagnostics return -EBUSY from it, and ptsim_mm_destroy and
 * ptsim_machine_destroy do nothing. The diag record and its strings live only
 * until the handler returns. Returns -EINVAL when m is NULL.
 */
PTSIM_API int ptsim_set_diag_handler(struct ptsim_machine *m, ptsim_diag_handler handler,
				     void *arg);
/* How many diagnostics of kind m has reported since it was created (handler or not). */
PTSIM_API int ptsim_diag_count(const struct ptsim_machine *m, enum ptsim_diag_kind kind,
			       uint64_t *out);
/* "invariant", "bbm-violation", "tlb-conflict", "warn"; NULL for an unknown kind. */
PTSIM_API const char *ptsim_diag_kind_name(enum ptsim_diag_kind kind);

#ifdef __cplusplus
}
#endif

#endif
