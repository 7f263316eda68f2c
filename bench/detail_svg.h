/* SPDX-License-Identifier: MIT */
/*
 * reproduce --detail ID --svg FILE: the row's own picture (the whole-report
 * calibration chart is what --svg draws without --detail): its before and
 * after time by kind of work, then its ten events of the largest time, each
 * as two bars in milliseconds.
 */
#ifndef PTSIM_BENCH_DETAIL_SVG_H
#define PTSIM_BENCH_DETAIL_SVG_H

#include <stdio.h>
#include <ptsim/ptsim.h>

/* The events the picture lists, the largest time first. */
#define DETAIL_SVG_EVENTS 10

/*
 * The picture of row id on f from its two sides' composed predictions; 0, or
 * -1 with errno when writing fails (f is closed either way).
 */
int detail_svg_write(FILE *f, const char *id, const char *before_label, const char *after_label,
		     const struct ptsim_overlap_prediction *before,
		     const struct ptsim_overlap_prediction *after);

#endif
