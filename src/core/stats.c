// SPDX-License-Identifier: MIT
/* Arithmetic on event counts: what a before/after comparison needs. */
#include <ptsim/stats.h>

#include <errno.h>
#include <stddef.h>

int ptsim_stats_add(struct ptsim_stats *dst, const struct ptsim_stats *src)
{
	struct ptsim_stats sum;

	if (!dst || !src)
		return -EINVAL;
	for (size_t i = 0; i < PTSIM_EV_CAPACITY; i++)
		if (__builtin_add_overflow(dst->ev[i], src->ev[i], &sum.ev[i]))
			return -EOVERFLOW;
	*dst = sum;
	return 0;
}

int ptsim_stats_diff(struct ptsim_stats *out, const struct ptsim_stats *after,
		     const struct ptsim_stats *before)
{
	struct ptsim_stats d;

	if (!out || !after || !before)
		return -EINVAL;
	for (size_t i = 0; i < PTSIM_EV_CAPACITY; i++) {
		if (after->ev[i] < before->ev[i])
			return -ERANGE;
		d.ev[i] = after->ev[i] - before->ev[i];
	}
	*out = d;
	return 0;
}
