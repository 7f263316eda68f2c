/* SPDX-License-Identifier: MIT */
#ifndef PTSIM_PTSIM_H
#define PTSIM_PTSIM_H

#include <ptsim/export.h>
#include <ptsim/version.h>
#include <ptsim/stats.h>
#include <ptsim/diag.h>
#include <ptsim/machine.h>
#include <ptsim/mm.h>
#include <ptsim/mprotect.h>
#include <ptsim/tlb.h>
#include <ptsim/cost.h>
#include <ptsim/uffd.h>
#include <ptsim/gup.h>
#include <ptsim/query.h>
#include <ptsim/kernel.h>
#include <ptsim/file.h>
#include <ptsim/check.h>
#include <ptsim/raw.h>

/*
 * Conventions every call follows.
 *
 * Errors: a call returns 0 (or a count) on success and a negative errno on
 * failure, and a failed call leaves the model as it was: tables, folios,
 * VMAs and the running totals (ptsim_total_stats); its own counts stay
 * readable through ptsim_last_stats. The exceptions are the kernel's own
 * partial results, documented at each call (a short UFFDIO_MOVE, a
 * set_memory or split_kernel_leaf_mapping that ran out of memory half way,
 * an mlock whose populate failed): there the model keeps what happened and
 * the totals count it. Errors
 * common to all calls:
 *   -EINVAL  a bad argument: NULL, misaligned, out of range, an unknown
 *            enum value, or the kernel mm given to a call for user mms;
 *   -ENOMEM  simulated memory ran out, the machine's host_memory_limit was
 *            reached, or the host refused an allocation;
 *   -EBUSY   a call that changes the model, made from a diagnostic handler.
 * Call-specific errors are listed with each call.
 *
 * Ownership: ptsim_machine_destroy frees the machine and every mm, file and
 * folio in it. ptsim_mm_destroy frees one mm; for a copy made by
 * ptsim_mm_clone it frees the copy's private machine too.
 *
 * Threads: a machine and everything in it belong to one thread at a time.
 * Different machines are independent.
 */

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version string, as PTSIM_VERSION_STRING was when it was built. */
PTSIM_API const char *ptsim_version(void);
/* Text for a negative errno returned by this library. */
PTSIM_API const char *ptsim_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif
