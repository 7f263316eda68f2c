/* SPDX-License-Identifier: MIT */
#ifndef PTSIM_PTSIM_H
#define PTSIM_PTSIM_H

#include <ptsim/export.h>
#include <ptsim/stats.h>
#include <ptsim/diag.h>
#include <ptsim/machine.h>
#include <ptsim/mm.h>
#include <ptsim/mprotect.h>
#include <ptsim/tlb.h>
#include <ptsim/cost.h>
#include <ptsim/uffd.h>
#include <ptsim/kernel.h>
#include <ptsim/file.h>
#include <ptsim/check.h>

#ifdef __cplusplus
extern "C" {
#endif

PTSIM_API const char *ptsim_version(void);
/* Text for a negative errno returned by this library. */
PTSIM_API const char *ptsim_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif
