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

/*
 * fires[c]: the kernels the group fires on with CPU c, bit i for names[i]
 * (at most 64 names; 0: not on that CPU). scenario: the reproducer as
 * scenario text.
 */
void group_print_text(const char *kind, const char *chain, const char *message,
		      const uint64_t fires[PTSIM_CPU__COUNT], const char *const *names,
		      size_t nr_names, const char *scenario);

#endif
