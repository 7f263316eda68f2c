/* SPDX-License-Identifier: MIT */
/*
 * Large arrays the model needs for one operation (a populate's pending
 * faults, the undo log at its peak), mapped from the host directly and
 * unmapped when done: from malloc, glibc would keep them in its heap once
 * freed (its mmap threshold rises to the size of the last big free), and the
 * process would stay resident at the operation's peak though the model
 * charges it no more.
 */
#ifndef PTSIM_HOST_ARRAY_H
#define PTSIM_HOST_ARRAY_H

#include <stddef.h>

/* bytes of host memory (not zeroed); NULL when the host has none. */
void *host_array_alloc(size_t bytes);
/* bytes of zeroed host memory; mapped ones are zero-filled by the host as they are touched. */
void *host_array_zalloc(size_t bytes);
/* The array of old_bytes resized to new_bytes, contents kept; NULL (and p kept) on failure. */
void *host_array_resize(void *p, size_t old_bytes, size_t new_bytes);
void host_array_free(void *p, size_t bytes);

#endif
