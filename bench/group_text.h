/* SPDX-License-Identifier: MIT */
/*
 * One group of break-before-make findings as text, the same from `audit` and
 * from `merge`: its kind and call chain, its message, a line per CPU with the
 * kernels it fires on, and its minimal reproducer, all within 80 columns.
 */
#ifndef PTSIM_BENCH_GROUP_TEXT_H
#define PTSIM_BENCH_GROUP_TEXT_H

#include <ptsim/ptsim.h>

#include <stddef.h>
#include <stdint.h>

/* The length group_kernels_text needs for up to 64 kernels. */
#define GROUP_KERNELS_TEXT 2048

/* "v6.17, v6.18": the names of the kernels whose bit (1 << i: names[i]) is in mask. */
void group_kernels_text(char *buf, size_t len, uint64_t mask, const char *const *names,
			size_t nr_names);

/*
 * fires[c]: CPU c's kernels, comma-separated ("v6.17, v6.18"), or NULL when
 * the group does not fire on it. scenario: the reproducer as scenario text.
 */
void group_print_text(const char *kind, const char *chain, const char *message,
		      const char *const fires[PTSIM_CPU__COUNT], const char *scenario);

#endif
