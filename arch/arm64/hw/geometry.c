// SPDX-License-Identifier: MIT
/*
 * Granule geometry computed the way pgtable-hwdef.h does (Arm ARM D8.2):
 * levels = (VA_BITS - 4) / (PAGE_SHIFT - 3), level n maps (PAGE_SHIFT - 3)(4 - n) + 3 bits.
 * The translation regime's shape is the hardware's: the hardware model and
 * the kernel code above it both read it from here.
 */
#include "core.h"

/* The VA widths Linux offers per granule (arch/arm64/Kconfig ARM64_VA_BITS_*). */
static bool va_bits_supported(enum ptsim_granule granule, unsigned int va_bits)
{
	switch (granule) {
	case PTSIM_GRANULE_4K:
		return va_bits == 39 || va_bits == 48 || va_bits == 52;
	case PTSIM_GRANULE_16K:
		return va_bits == 36 || va_bits == 47 || va_bits == 48 || va_bits == 52;
	case PTSIM_GRANULE_64K:
		return va_bits == 42 || va_bits == 48 || va_bits == 52;
	}
	return false;
}

/* CONFIG_ARM64_CONT_PTE_SHIFT / CONFIG_ARM64_CONT_PMD_SHIFT defaults */
static unsigned int cont_pte_shift(enum ptsim_granule granule)
{
	return granule == PTSIM_GRANULE_4K ? 4 : granule == PTSIM_GRANULE_16K ? 7 : 5;
}

static unsigned int cont_pmd_shift(enum ptsim_granule granule)
{
	return granule == PTSIM_GRANULE_4K ? 4 : 5;
}

int ptsim_geometry_get(enum ptsim_granule granule, unsigned int va_bits,
		       struct ptsim_geometry *out)
{
	struct ptsim_geometry g = { 0 };
	unsigned int bits;

	if (!out || !va_bits_supported(granule, va_bits))
		return -EINVAL;
	g.page_shift = (unsigned int)granule;
	g.page_size = UINT64_C(1) << g.page_shift;
	g.va_bits = va_bits;
	g.bits_per_level = g.page_shift - 3;
	g.ptrs_per_table = 1u << g.bits_per_level;
	g.levels = (va_bits - 4) / g.bits_per_level;
	g.start_level = 4 - (int)g.levels;
	for (int level = g.start_level; level <= PTE_LEVEL; level++) {
		unsigned int shift = g.bits_per_level * (unsigned int)(4 - level) + 3;

		g.level_shift[level_slot(level)] = shift;
		bits = level == g.start_level ? va_bits - shift : g.bits_per_level;
		g.level_entries[level_slot(level)] = 1u << bits;
	}
	/* pmd_sect always; pud_sect_supported() only with 4K pages and >= 3 levels */
	g.level_block[level_slot(2)] = true;
	g.level_block[level_slot(1)] = granule == PTSIM_GRANULE_4K && g.start_level <= 1;
	g.pmd_size = UINT64_C(1) << g.level_shift[level_slot(2)];
	g.pud_size = UINT64_C(1) << (g.bits_per_level * 3 + 3);
	g.pmd_order = g.level_shift[level_slot(2)] - g.page_shift;
	g.cont_ptes = 1u << cont_pte_shift(granule);
	g.cont_pte_size = (uint64_t)g.cont_ptes << g.page_shift;
	g.cont_pmds = 1u << cont_pmd_shift(granule);
	g.cont_pmd_size = (uint64_t)g.cont_pmds * g.pmd_size;
	g.max_dvm_ops = g.ptrs_per_table;
	g.max_tlbi_range_pages = UINT64_C(32) << 16;	/* __TLBI_RANGE_PAGES(31, 3) */
	g.lpa2 = va_bits == 52 && granule != PTSIM_GRANULE_64K;
	*out = g;
	return 0;
}
