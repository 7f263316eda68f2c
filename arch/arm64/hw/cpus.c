// SPDX-License-Identifier: MIT
/*
 * CPU descriptions: the architectural capabilities the algorithms branch on
 * and the TLB geometry the TLB model uses. Values are from doc/cpu-profiles.md §8
 * (cross-CPU summary) and §10.1 (suggested defaults, marked ESTIMATE there).
 */
#include "core.h"

/* Where each source string points: a section of this page in the repository. */
#define DOC "doc/cpu-profiles.md "

#include <string.h>

static const struct cpu_desc cpus[PTSIM_CPU__COUNT] = {
	[PTSIM_CPU_APPLE_M3] = {
		.id = PTSIM_CPU_APPLE_M3, .name = "apple-m3",
		.model = "Apple M3 P-core (Linux VM, 4K pages)",
		.freq_ghz = 4.05,
		.l1d = { 160, 5 }, .l1i = { 192, 6 }, .l2 = { 3072, 12 },
		.dl1 = { 128, 8 }, .dl2 = { 16384, 16 }, .llc = { 8192, 16 },
		.cache_source = DOC "§11.1: L1D 128 KiB, L2 16 MiB per P-cluster (Apple, M3 "
				"specifications), SLC 8 MiB (M1/M3 base die, published die analyses); "
				"ways ESTIMATE (M1 measured 8-way L1D)",
		.coalesce_cont = false,
		.tlbirange = true, .bbml2_noabort = false, .bbm_level = 0,
		.hafdbs = false, .asid_bits = 8,
		.source = DOC "§1/§8: ISAR0.TLB=2, HAFDBS=0, 8-bit ASID read on an M3; "
			  "dTLB 160 (5w x 32, M1 measured), L2 3072 12-way; iTLB 192 (ways ESTIMATE); "
			  "no coalescing (§10.1, nothing published)",
	},
	[PTSIM_CPU_NEOVERSE_V2] = {
		.id = PTSIM_CPU_NEOVERSE_V2, .name = "neoverse-v2",
		.model = "Neoverse V2 (NVIDIA Grace)",
		.freq_ghz = 2.6,
		.l1d = { 48, 48 }, .l1i = { 48, 48 }, .l2 = { 2048, 8 },
		.dl1 = { 64, 4 }, .dl2 = { 1024, 8 }, .llc = { 116736, 16 },
		.cache_source = DOC "§11.1: L1D 64 KiB 4-way (Arm Neoverse V2 TRM), L2 1 MiB 8-way and 114 "
				"MiB L3 (NVIDIA Grace, per die); L3 ways ESTIMATE",
		.coalesce_cont = true,
		.tlbirange = true, .bbml2_noabort = false, .bbm_level = 2,
		.hafdbs = true, .asid_bits = 16,
		.source = DOC "§2/§8: 48 FA / 48 FA / 2048 8-way; TLBIRANGE and BBM 2 UNVERIFIED; "
			  "not allow-listed; contiguous entries cached as one (§0.4)",
	},
	[PTSIM_CPU_AMPEREONE] = {
		.id = PTSIM_CPU_AMPEREONE, .name = "ampereone",
		.model = "AmpereOne (192 cores)",
		.freq_ghz = 3.0,
		.l1d = { 48, 48 }, .l1i = { 48, 48 }, .l2 = { 2048, 8 },
		.dl1 = { 64, 4 }, .dl2 = { 2048, 8 }, .llc = { 65536, 16 },
		.cache_source = DOC "§11.1: L1D 64 KiB, L2 2 MiB per core, SLC 64 MiB (Ampere product "
				"brief); ways ESTIMATE (N1 class)",
		.coalesce_cont = true,
		.tlbirange = true, .bbml2_noabort = true, .bbm_level = 2,
		.hafdbs = true, .asid_bits = 16,
		.source = DOC "§3/§8/§10.1: TLBs ESTIMATE (N1/V1 class), coalescing on (low "
			  "confidence); BBML2-noabort allow-listed since v6.18 (§0.2)",
	},
	[PTSIM_CPU_NEOVERSE_N1] = {
		.id = PTSIM_CPU_NEOVERSE_N1, .name = "neoverse-n1",
		.model = "Neoverse N1 (Ampere Altra)",
		.freq_ghz = 3.0,
		.l1d = { 48, 48 }, .l1i = { 48, 48 }, .l2 = { 1280, 5 },
		.dl1 = { 64, 4 }, .dl2 = { 1024, 8 }, .llc = { 32768, 16 },
		.cache_source = DOC "§11.1: L1D 64 KiB 4-way, L2 1 MiB 8-way (Arm Neoverse N1 TRM; Altra "
				"configures 1 MiB), SLC 32 MiB (Ampere Altra); SLC ways ESTIMATE",
		.coalesce_cont = true,
		.tlbirange = false, .bbml2_noabort = false, .bbm_level = 0,
		.hafdbs = true, .asid_bits = 16,
		.source = DOC "§6/§8: 48 FA / 48 FA / 1280 5-way, no FEAT_TLBIRANGE, BBM 0; "
			  "contiguous caching ESTIMATE",
	},
	[PTSIM_CPU_NEOVERSE_V1] = {
		.id = PTSIM_CPU_NEOVERSE_V1, .name = "neoverse-v1",
		.model = "Neoverse V1 (AWS Graviton3)",
		.freq_ghz = 2.6,
		.l1d = { 40, 40 }, .l1i = { 48, 48 }, .l2 = { 2048, 8 },
		.dl1 = { 64, 4 }, .dl2 = { 1024, 8 }, .llc = { 32768, 16 },
		.cache_source = DOC "§11.1: L1D 64 KiB 4-way, L2 1 MiB 8-way (Arm Neoverse V1 TRM; "
				"Graviton3), L3 32 MiB (AWS); L3 ways ESTIMATE",
		.coalesce_cont = true,
		.tlbirange = false, .bbml2_noabort = false, .bbm_level = 2,
		.hafdbs = true, .asid_bits = 16,
		.source = DOC "§7/§8/§10.1: 48 FA iTLB, 40 FA dTLB, 2048 8-way (ways ESTIMATE); "
			  "no FEAT_TLBIRANGE; BBM 2, not allow-listed",
	},
	[PTSIM_CPU_NEOVERSE_V3] = {
		.id = PTSIM_CPU_NEOVERSE_V3, .name = "neoverse-v3",
		.model = "Neoverse V3 / Cortex-X4",
		.freq_ghz = 3.2,
		.l1d = { 96, 96 }, .l1i = { 48, 48 }, .l2 = { 2048, 8 },
		.dl1 = { 64, 4 }, .dl2 = { 2048, 8 }, .llc = { 32768, 16 },
		.cache_source = DOC "§11.1: L1D 64 KiB 4-way, L2 2 MiB 8-way (Arm Neoverse V3 TRM, a "
				"configuration); LLC 32 MiB ESTIMATE (as V1 systems)",
		.coalesce_cont = true,
		.tlbirange = true, .bbml2_noabort = true, .bbm_level = 2,
		.hafdbs = true, .asid_bits = 16,
		.source = DOC "§5/§8: 48 FA / 96 FA / 2048 8-way; allow-listed (X4 >= r0p3, "
			  "V3 >= r0p2) since v6.17; TLBIRANGE UNVERIFIED",
	},
	[PTSIM_CPU_ANDROID_X1] = {
		.id = PTSIM_CPU_ANDROID_X1, .name = "android-x1",
		.model = "Android phone big core (Cortex-X1, Tensor G2 class)",
		.freq_ghz = 2.85,
		.l1d = { 40, 40 }, .l1i = { 48, 48 }, .l2 = { 2048, 8 },
		.dl1 = { 64, 4 }, .dl2 = { 1024, 8 }, .llc = { 4096, 16 },
		.cache_source = DOC "§11.1: L1D 64 KiB 4-way (Arm Cortex-X1 TRM), L2 1 MiB (Tensor, SD888: "
				"AnandTech), DSU L3 4 MiB 16-way; the SoC's SLC beyond it not modelled",
		.coalesce_cont = true,
		.tlbirange = false, .bbml2_noabort = false, .bbm_level = 0,
		.hafdbs = true, .asid_bits = 16,
		.source = DOC "§4/§8/§10.1: X1 40 FA dTLB, 48 FA iTLB, 2048 8-way L2; no "
			  "TLBIRANGE; BBM 0",
	},
};

const struct cpu_desc *cpu_desc_get(enum ptsim_cpu id)
{
	if ((unsigned int)id >= PTSIM_CPU__COUNT)
		return NULL;
	return &cpus[id];
}

const char *ptsim_cpu_name(enum ptsim_cpu cpu)
{
	const struct cpu_desc *d = cpu_desc_get(cpu);

	return d ? d->name : NULL;
}

int ptsim_cpu_lookup(const char *name, enum ptsim_cpu *out)
{
	VALIDATE(name && out);
	for (unsigned int i = 0; i < PTSIM_CPU__COUNT; i++) {
		if (!strcmp(cpus[i].name, name)) {
			*out = (enum ptsim_cpu)i;
			return 0;
		}
	}
	return -EINVAL;
}

int ptsim_cpu_info(enum ptsim_cpu cpu, struct ptsim_cpu_info *out)
{
	const struct cpu_desc *d = cpu_desc_get(cpu);

	VALIDATE(d && out);
	memset(out, 0, sizeof(*out));
	out->name = d->name;
	out->model = d->model;
	out->source = d->source;
	out->freq_ghz = d->freq_ghz;
	out->l1d_entries = d->l1d.entries;
	out->l1d_ways = d->l1d.ways;
	out->l1i_entries = d->l1i.entries;
	out->l1i_ways = d->l1i.ways;
	out->l2_entries = d->l2.entries;
	out->l2_ways = d->l2.ways;
	out->coalesce_cont = d->coalesce_cont;
	out->tlbirange = d->tlbirange;
	out->bbml2_noabort = d->bbml2_noabort;
	out->hafdbs = d->hafdbs;
	out->bbm_level = d->bbm_level;
	out->asid_bits = d->asid_bits;
	out->dcache_kib[0] = d->dl1.kib;
	out->dcache_kib[1] = d->dl2.kib;
	out->dcache_kib[2] = d->llc.kib;
	out->dcache_ways[0] = d->dl1.ways;
	out->dcache_ways[1] = d->dl2.ways;
	out->dcache_ways[2] = d->llc.ways;
	out->cache_source = d->cache_source;
	return 0;
}
