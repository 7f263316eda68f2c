// SPDX-License-Identifier: MIT
/* ptsim-bench run: two runs' counts compared event by event (run_diff.h). */
#include "run_diff.h"
#include "rows.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A side's composed prediction (doc/overlap.md); all zero when it cannot be made. */
static void predict(const struct diff_side *s, struct ptsim_overlap_prediction *p)
{
	if (ptsim_predict_overlap(s->cpu, s->granule, s->stats, s->loops, p))
		memset(p, 0, sizeof(*p));
}

static double share(const struct ptsim_overlap_prediction *p, unsigned int e)
{
	return p->total_ns > 0 ? 100.0 * p->event_ns[e] / p->total_ns : 0;
}

/* The events listed, by the larger of their two time shares, largest first. */
static const struct ptsim_overlap_prediction *sort_b, *sort_a;

static int by_share(const void *x, const void *y)
{
	unsigned int e = *(const unsigned int *)x, f = *(const unsigned int *)y;
	double se = fmax(share(sort_b, e), share(sort_a, e));
	double sf = fmax(share(sort_b, f), share(sort_a, f));

	return se < sf ? 1 : se > sf ? -1 : (e > f) - (e < f);
}

void run_diff_text(const char *checkpoint, const struct diff_side *b, const struct diff_side *a,
		   bool all_events, unsigned int top)
{
	struct ptsim_overlap_prediction pb, pa;
	unsigned int same = 0, listed = 0, changed = 0, order[PTSIM_EV__COUNT];
	double same_share = 0, rest_share = 0;
	/* two kernels: before and after the change; two CPUs: A and B, named above the table */
	bool cpus = b->cpu != a->cpu;
	const char *l0 = cpus ? "A" : "before", *l1 = cpus ? "B" : "after";
	const char *on_l1 = cpus ? "on B" : "after";	/* "of the time ..." */

	predict(b, &pb);
	predict(a, &pa);
	if (cpus)
		printf("\n  %s: A = %s, B = %s\n", checkpoint, b->label, a->label);
	else
		printf("\n  %s: %s -> %s\n", checkpoint, b->label, a->label);
	printf("  %-23s %10s %10s %10s %7s %13s\n", "", "", "", "", "", "time share %");
	printf("  %-23s %10s %10s %10s %7s %6s %6s\n", "event", l0, l1, "delta", "ratio", l0, l1);
	for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++) {
		unsigned long long x = b->stats->ev[e], y = a->stats->ev[e];

		if (x == y && (!all_events || !x)) {
			same += x != 0;
			same_share += share(&pa, e);
			continue;
		}
		order[changed++] = e;
	}
	sort_b = &pb;
	sort_a = &pa;
	qsort(order, changed, sizeof(*order), by_share);
	for (unsigned int i = 0; i < changed; i++) {
		unsigned int e = order[i];
		unsigned long long x = b->stats->ev[e], y = a->stats->ev[e];
		char ratio[16];

		if (top && listed == top) {
			rest_share += share(&pa, e);
			continue;
		}
		if (x)
			snprintf(ratio, sizeof(ratio), (double)y / (double)x < 100 ? "%.3f" : "%.0f",
				 (double)y / (double)x);
		else
			snprintf(ratio, sizeof(ratio), "new");
		listed++;
		printf("  %-23s %10llu %10llu %+10lld %7s %6.1f %6.1f\n",
		       ptsim_event_name((enum ptsim_event)e), x, y, (long long)(y - x), ratio,
		       share(&pb, e), share(&pa, e));
	}
	if (changed > listed)
		printf("  (%u more events %s; %.1f%% of the time %s: --events all)\n",
		       changed - listed, all_events ? "counted" : "changed", rest_share, on_l1);
	if (same)
		printf("  (%s%u %sevents counted the same; %.1f%% of the time %s)\n",
		       listed ? "" : "all ", same, listed ? "more " : "", same_share, on_l1);
	if (pb.loop_ns > 0 || pa.loop_ns > 0)
		printf("  %-23s %10s %10s %10s %7s %6.1f %6.1f\n", "(loop prices)", "", "", "", "",
		       pb.total_ns > 0 ? 100 * pb.loop_ns / pb.total_ns : 0,
		       pa.total_ns > 0 ? 100 * pa.loop_ns / pa.total_ns : 0);
	printf("  %-23s %10.3f %10.3f %+10.3f %7.3f\n", "time (us)", pb.total_ns / 1e3,
	       pa.total_ns / 1e3, (pa.total_ns - pb.total_ns) / 1e3,
	       pb.total_ns > 0 ? pa.total_ns / pb.total_ns : 0);
	if (pa.total_ns > 0)
		printf("  speed-up (%s / %s): x%.3f\n", l0, l1, pb.total_ns / pa.total_ns);
}

void run_diff_json(const char *checkpoint, const struct diff_side *b, const struct diff_side *a)
{
	struct ptsim_overlap_prediction pb, pa;
	const struct diff_side *side[2] = { b, a };
	bool first = true;

	predict(b, &pb);
	predict(a, &pa);
	printf("{\"checkpoint\": ");
	json_string(checkpoint);
	for (int i = 0; i < 2; i++) {
		printf(", \"%s\": {\"label\": ", i ? "after" : "before");
		json_string(side[i]->label);
		printf(", \"cpu\": \"%s\", \"granule\": \"%uK\", \"ns\": ",
		       ptsim_cpu_name(side[i]->cpu), (1u << side[i]->granule) / 1024);
		json_double(i ? pa.total_ns : pb.total_ns);
		printf(", \"loop_ns\": ");
		json_double(i ? pa.loop_ns : pb.loop_ns);
		printf("}");
	}
	printf(", \"speedup\": ");
	json_double(pa.total_ns > 0 ? pb.total_ns / pa.total_ns : NAN);
	printf(", \"events\": [");
	for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++) {
		unsigned long long x = b->stats->ev[e], y = a->stats->ev[e];

		if (!x && !y)
			continue;
		printf("%s{\"event\": \"%s\", \"before\": %llu, \"after\": %llu, \"delta\": %lld, "
		       "\"ratio\": ", first ? "" : ", ", ptsim_event_name((enum ptsim_event)e), x, y,
		       (long long)(y - x));
		json_double(x ? (double)y / (double)x : NAN);
		printf(", \"before_ns\": ");
		json_double(pb.event_ns[e]);
		printf(", \"after_ns\": ");
		json_double(pa.event_ns[e]);
		printf(", \"before_share_pct\": ");
		json_double(share(&pb, e));
		printf(", \"after_share_pct\": ");
		json_double(share(&pa, e));
		printf("}");
		first = false;
	}
	printf("]}");
}
