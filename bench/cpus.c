// SPDX-License-Identifier: MIT
/* ptsim-bench cpus: the CPU descriptions and every profile constant with its source. */
#include "rows.h"

#include <string.h>

/*
 * The CPU's loop prices from the kernel's machine code (doc/loop-prices.md):
 * in text one line per loop and path, the model that priced them once (it
 * is one per CPU); in JSON every field.
 */
static void print_loop_prices(enum ptsim_cpu cpu, bool json)
{
	struct ptsim_loop_price p;

	if (json)
		printf("   \"loop_prices\": [\n");
	for (unsigned int i = 0; ptsim_loop_price_get(cpu, i, &p) == 0; i++) {
		if (json) {
			printf("%s     {\"loop\": ", i ? ",\n" : "");
			json_string(p.loop);
			printf(", \"variant\": ");
			json_string(p.variant);
			printf(", \"cycles\": ");
			json_double(p.cycles);
			printf(", \"ns\": ");
			json_double(p.ns);
			printf(", \"latency\": %u, \"instructions\": %u, \"uops\": %u, \"model\": ",
			       p.latency, p.instructions, p.uops);
			json_string(p.model);
			printf(", \"provenance\": ");
			json_string(p.provenance);
			printf("}");
			continue;
		}
		if (!i)
			printf("  loop (v6.12 machine code)          path               cycles      ns\n"
			       "  priced by %.*s\n", (int)strcspn(p.model, ":"), p.model);
		printf("  %-34s %-18s %6.2f %7.2f\n", p.loop, p.variant, p.cycles, p.ns);
	}
	if (json)
		printf("\n   ]\n");
}

int cmd_cpus(int argc, char **argv)
{
	bool json;
	int parsed = parse_json_option("cpus", argc, argv, &json);

	if (parsed)
		return parsed < 0 ? 0 : parsed;
	if (json) {
		json_begin("cpus", "cpus");
		printf("[\n");
	}
	for (unsigned int c = 0; c < PTSIM_CPU__COUNT; c++) {
		struct ptsim_cpu_info ci;

		ptsim_cpu_info((enum ptsim_cpu)c, &ci);
		if (json) {
			printf("  {\"name\": ");
			json_string(ci.name);
			printf(", \"model\": ");
			json_string(ci.model);
			printf(", \"freq_ghz\": %.15g, \"l1d\": [%u, %u], \"l1i\": [%u, %u], \"l2\": [%u, %u], "
			       "\"coalesce_cont\": %s, \"tlbirange\": %s, \"bbm_level\": %u, "
			       "\"bbml2_noabort\": %s, \"hafdbs\": %s, \"asid_bits\": %u, \"source\": ",
			       ci.freq_ghz, ci.l1d_entries, ci.l1d_ways, ci.l1i_entries, ci.l1i_ways,
			       ci.l2_entries, ci.l2_ways, ci.coalesce_cont ? "true" : "false",
			       ci.tlbirange ? "true" : "false", ci.bbm_level,
			       ci.bbml2_noabort ? "true" : "false", ci.hafdbs ? "true" : "false",
			       ci.asid_bits);
			json_string(ci.source);
			printf(", \"dcache_kib\": [%u, %u, %u], \"dcache_ways\": [%u, %u, %u], "
			       "\"cache_source\": ", ci.dcache_kib[0], ci.dcache_kib[1], ci.dcache_kib[2],
			       ci.dcache_ways[0], ci.dcache_ways[1], ci.dcache_ways[2]);
			json_string(ci.cache_source);
			printf(",\n   \"costs\": [\n");
		} else {
			/* 80 columns: long lines wrap under their text, each source below its row */
			wrap_print(stdout, 4, "%s: %s, %.2f GHz\n  TLB: L1d %u (%u-way), L1i %u "
				   "(%u-way), L2 %u (%u-way)%s\n  FEAT_TLBIRANGE %s, BBM level %u%s, "
				   "HAFDBS %s, ASID %u bits\n  source: %s",
				   ci.name, ci.model, ci.freq_ghz, ci.l1d_entries, ci.l1d_ways,
				   ci.l1i_entries, ci.l1i_ways, ci.l2_entries, ci.l2_ways,
				   ci.coalesce_cont ? ", contiguous runs coalesced" : "",
				   ci.tlbirange ? "yes" : "no", ci.bbm_level,
				   ci.bbml2_noabort ? ", BBML2-noabort" : "", ci.hafdbs ? "yes" : "no",
				   ci.asid_bits, ci.source);
			wrap_print(stdout, 4, "  data caches: L1D %u KiB (%u-way), L2 %u KiB (%u-way), "
				   "last level %u KiB (%u-way), 64-byte lines\n  source: %s",
				   ci.dcache_kib[0], ci.dcache_ways[0], ci.dcache_kib[1],
				   ci.dcache_ways[1], ci.dcache_kib[2], ci.dcache_ways[2],
				   ci.cache_source);
			printf("  %-26s %10s %-14s %5s\n      %s\n", "event (4K granule)", "ns", "class",
			       "unc.", "source (the uncertainty's reason: --json)");
		}
		for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++) {
			struct ptsim_cost k;

			ptsim_cost_get((enum ptsim_cpu)c, PTSIM_GRANULE_4K, (enum ptsim_event)e, &k);
			if (json) {
				printf("     {\"event\": \"%s\", \"ns\": ", ptsim_event_name((enum ptsim_event)e));
				json_double(k.ns);
				printf(", \"class\": \"%s\", \"multiplier\": ", k.klass);
				json_double(k.multiplier);
				printf(", \"fitted_on\": ");
				if (k.fitted_on)
					json_string(k.fitted_on);
				else
					printf("null");
				printf(", \"source\": ");
				json_string(k.source);
				printf(", \"uncertainty\": ");
				json_double(k.uncertainty);
				printf(", \"uncertainty_source\": ");
				json_string(k.uncertainty_source);
				printf("}%s\n", e + 1 < PTSIM_EV__COUNT ? "," : "");
			} else {
				printf("  %-26s %10.3f %-14s +-%2.0f%%\n",
				       ptsim_event_name((enum ptsim_event)e), k.ns, k.klass,
				       100 * k.uncertainty);
				wrap_print(stdout, 6, "      %s", k.source);
			}
		}
		if (json)
			printf("   ],\n");
		print_loop_prices((enum ptsim_cpu)c, json);
		if (json)
			printf("   }%s\n", c + 1 < PTSIM_CPU__COUNT ? "," : "");
		else
			printf("\n");
	}
	if (json) {
		printf("]");
		json_end();
	}
	return 0;
}
