// SPDX-License-Identifier: MIT
/*
 * CPU descriptions: the architectural capabilities the algorithms branch on.
 * Every value is from spec/cpus.md §8 (cross-CPU summary) unless noted.
 */
#include "internal.h"

static const struct cpu_desc cpus[PTSIM_CPU__COUNT] = {
	[PTSIM_CPU_APPLE_M3] = {
		.id = PTSIM_CPU_APPLE_M3, .name = "apple-m3",
		/* ISAR0.TLB = 2 read on an M3; HAFDBS = 0; ASID 8 bits (cpus.md §1) */
		.tlbirange = true, .bbml2_noabort = false, .bbm_level = 0,
		.hafdbs = false, .asid_bits = 8,
	},
	[PTSIM_CPU_NEOVERSE_V2] = {
		.id = PTSIM_CPU_NEOVERSE_V2, .name = "neoverse-v2",
		/* TLBIRANGE and BBM 2 marked UNVERIFIED in cpus.md; not allow-listed */
		.tlbirange = true, .bbml2_noabort = false, .bbm_level = 2,
		.hafdbs = true, .asid_bits = 16,
	},
	[PTSIM_CPU_AMPEREONE] = {
		.id = PTSIM_CPU_AMPEREONE, .name = "ampereone",
		/* allow-listed since v6.18 (cpus.md §0.2) */
		.tlbirange = true, .bbml2_noabort = true, .bbm_level = 2,
		.hafdbs = true, .asid_bits = 16,
	},
	[PTSIM_CPU_NEOVERSE_N1] = {
		.id = PTSIM_CPU_NEOVERSE_N1, .name = "neoverse-n1",
		/* Ampere Altra: no FEAT_TLBIRANGE (cpus.md §6) */
		.tlbirange = false, .bbml2_noabort = false, .bbm_level = 0,
		.hafdbs = true, .asid_bits = 16,
	},
	[PTSIM_CPU_NEOVERSE_V1] = {
		.id = PTSIM_CPU_NEOVERSE_V1, .name = "neoverse-v1",
		/* Graviton3: no FEAT_TLBIRANGE, BBM level 2, not allow-listed (cpus.md §7) */
		.tlbirange = false, .bbml2_noabort = false, .bbm_level = 2,
		.hafdbs = true, .asid_bits = 16,
	},
	[PTSIM_CPU_NEOVERSE_V3] = {
		.id = PTSIM_CPU_NEOVERSE_V3, .name = "neoverse-v3",
		/* Neoverse-V3 >= r0p2 / Cortex-X4 >= r0p3 allow-listed in v6.17 (cpus.md §0.2) */
		.tlbirange = true, .bbml2_noabort = true, .bbm_level = 2,
		.hafdbs = true, .asid_bits = 16,
	},
	[PTSIM_CPU_ANDROID_X1] = {
		.id = PTSIM_CPU_ANDROID_X1, .name = "android-x1",
		/* Tensor G2 class X1/A78/A55: no TLBIRANGE, BBM 0 (cpus.md §4) */
		.tlbirange = false, .bbml2_noabort = false, .bbm_level = 0,
		.hafdbs = true, .asid_bits = 16,
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
