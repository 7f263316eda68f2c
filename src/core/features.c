// SPDX-License-Identifier: MIT
/* Named kernel features and the presets that combine them (doc/architecture.md). */
#include "core.h"

#include <string.h>

/*
 * Name and release of each feature. The release is major * 100 + minor, times
 * ten (v6.17 = 6170); 6085 is the v6.9 merge window after David Hildenbrand's
 * fork and zap batching and before Ryan Roberts' contpte series
 * (4602e5757bcc wired contpte up, then came the arm64 batch helpers): the
 * same counts as v6.9 built with CONFIG_ARM64_CONTPTE=n. UNMERGED is a
 * posted series ("patched" only); NEVER a behaviour switch no preset sets.
 * The releases were checked against the v6.12 tree (what it has, what it has
 * not) and the merge logs in spec/mm-lifecycle.md.
 */
#define UNMERGED PTSIM_RELEASE_UNMERGED
#define NEVER 0u

static const struct {
	const char *name;
	unsigned int release;
} features[PTSIM_FEAT__COUNT] = {
	[PTSIM_FEAT_MPROTECT_PTE_BATCHING] = { "mprotect_pte_batching", 6170 },
	[PTSIM_FEAT_CONTPTE_GET_EARLY_EXIT] = { "contpte_get_early_exit", 6170 },
	[PTSIM_FEAT_CONTPTE_BBML2_ELISION] = { "contpte_bbml2_elision", 6170 },
	[PTSIM_FEAT_UFFD_MOVE_BATCHING] = { "uffd_move_batching", UNMERGED },
	[PTSIM_FEAT_LINEAR_MAP_BLOCKS] = { "linear_map_blocks", 6180 },
	[PTSIM_FEAT_EXEC_CONTPTE_ORDER] = { "exec_contpte_order", UNMERGED },
	[PTSIM_FEAT_EXEC_MMAP_MISS_BYPASS] = { "exec_mmap_miss_bypass", UNMERGED },
	[PTSIM_FEAT_ELF_CONTPTE_ALIGN] = { "elf_contpte_align", UNMERGED },
	[PTSIM_FEAT_UNMAPPED_AREA_CONTPTE] = { "unmapped_area_contpte", UNMERGED },
	[PTSIM_FEAT_MMAP_MISS_RA_HITS_ONLY] = { "mmap_miss_ra_hits_only", NEVER },
	[PTSIM_FEAT_UFFD_MOVE_ERR_RESET] = { "uffd_move_err_reset", NEVER },
	[PTSIM_FEAT_FORK_PTE_BATCHING] = { "fork_pte_batching", 6085 },
	[PTSIM_FEAT_ZAP_PTE_BATCHING] = { "zap_pte_batching", 6085 },
	[PTSIM_FEAT_CONTPTE_WRPROTECT_HELPER] = { "contpte_wrprotect_helper", 6090 },
	[PTSIM_FEAT_CONTPTE_CLEAR_HELPERS] = { "contpte_clear_helpers", 6090 },
	[PTSIM_FEAT_PTE_BATCH_HINT] = { "pte_batch_hint", 6090 },
	[PTSIM_FEAT_CONTPTE_AUTOFOLD] = { "contpte_autofold", 6090 },
	[PTSIM_FEAT_MADV_FREE_PTE_BATCHING] = { "madv_free_pte_batching", 6100 },
	[PTSIM_FEAT_CONTPTE_CLEAR_YOUNG_DIRTY] = { "contpte_clear_young_dirty", 6100 },
	[PTSIM_FEAT_MREMAP_PTE_BATCHING] = { "mremap_pte_batching", 6170 },
	[PTSIM_FEAT_MREMAP_BATCH_RESPECT_WRITE] = { "mremap_batch_respect_write", 6180 },
	[PTSIM_FEAT_FINISH_FAULT_WHOLE_FOLIO] = { "finish_fault_whole_folio", 6180 },
	[PTSIM_FEAT_FAULTAROUND_WHOLE_FOLIO] = { "faultaround_whole_folio", 6180 },
	[PTSIM_FEAT_ARM64_PTE_NEEDS_FLUSH] = { "arm64_pte_needs_flush", 6190 },
	[PTSIM_FEAT_LINEAR_MAP_INVALID_LEAF_FIX] = { "linear_map_invalid_leaf_fix", UNMERGED },
	/*
	 * 354dffd29575 is v6.15; the model has the form of its fix ddd05742b45b
	 * (v6.16, Cc stable: 6.15.y has it too), which also batches a folio
	 * not mapped whole from its first page.
	 */
	[PTSIM_FEAT_LAZYFREE_UNMAP_BATCHING] = { "lazyfree_unmap_batching", 6150 },
	[PTSIM_FEAT_ARM64_CONTPTE] = { "arm64_contpte", 6090 },
	[PTSIM_FEAT_LARGE_MAPCOUNT] = { "large_mapcount", 6110 },
	[PTSIM_FEAT_MM_ID_MAPCOUNT] = { "mm_id_mapcount", 6150 },
	[PTSIM_FEAT_DEFERRED_SPLIT_PARTIAL] = { "deferred_split_partial", 6100 },
	[PTSIM_FEAT_UFFD_PER_VMA_LOCK] = { "uffd_per_vma_lock", 6090 },
	[PTSIM_FEAT_WP_REUSE_LARGE_ANON_FOLIO] = { "wp_reuse_large_anon_folio", 6150 },
	[PTSIM_FEAT_FOLIO_PTE_BATCH_CALL] = { "folio_pte_batch_call", 6170 },
	/* posted 2024-03-14 (lkml 20240314161300.382526-3), merged for v6.10 */
	[PTSIM_FEAT_MADV_POPULATE_NO_VMA_WALK] = { "madv_populate_no_vma_walk", 6100 },
	[PTSIM_FEAT_SPLIT_TO_ORDER] = { "split_to_order", 6100 },
	/* "mm/mremap: permit mremap() move of multiple VMAs" and its fix "mm/mremap: catch
	 * invalid multi VMA moves earlier" (L. Stoakes), both in v6.17 */
	[PTSIM_FEAT_MREMAP_MULTI_VMA] = { "mremap_multi_vma", 6170 },
	/*
	 * Q. Zheng, "mm: zap_pte_range: skip all consecutive none ptes", of the series
	 * "synchronously scan and reclaim empty user PTE pages" (posted December 2024,
	 * after v6.13-rc1): v6.14. v6.12's zap_pte_range takes one loop turn per none entry.
	 */
	[PTSIM_FEAT_ZAP_SKIP_NONE_PTES] = { "zap_skip_none_ptes", 6140 },
	/*
	 * R. Roberts, "arm64/mm: Add uffd write-protect support" (5b32510af77b),
	 * posted 2024-05-03 on v6.9-rc5, merged into arm64 for-next/core for
	 * v6.10 (W. Deacon, 2024-05-07); v6.12's arch/arm64/Kconfig selects
	 * HAVE_ARCH_USERFAULTFD_WP.
	 */
	[PTSIM_FEAT_UFFD_WP] = { "uffd_wp", 6100 },
	/* PAGEMAP_SCAN ("Implement IOCTL to get and optionally clear info about PTEs", v33): v6.7 */
	[PTSIM_FEAT_PAGEMAP_SCAN] = { "pagemap_scan", 6070 },
	/* posted 2024-08-07 on v6.11's rmap.c (with _large_mapcount), merged for v6.12 */
	[PTSIM_FEAT_NR_PAGES_MAPPED_BATCH] = { "nr_pages_mapped_batch", 6120 },
	/* mm-hotfixes, September 2025 (v6.17-rc), Cc stable: Debian's 6.12.118 has it too */
	[PTSIM_FEAT_LRU_CACHE_SMALL_ONLY] = { "lru_cache_small_only", 6170 },
	/* 3027c6f8eb9d, merged for v6.8-rc1 */
	[PTSIM_FEAT_SPLIT_BATCH_FLUSH] = { "split_batch_flush", 6080 },
	/* b1f202060afe, the "split underused THPs" series, merged for v6.12 */
	[PTSIM_FEAT_SPLIT_ZEROPAGE_REMAP] = { "split_zeropage_remap", 6120 },
	/* f77171d241e3 and its series: in mm-stable on 2024-03-05 (after the contpte series), v6.9 */
	[PTSIM_FEAT_LARGE_FOLIO_BATCH_FREE] = { "large_folio_batch_free", 6090 },
	/* 2864f3d0f583: in mm-stable on 2024-03-05, v6.9 */
	[PTSIM_FEAT_PAGEOUT_IGNORE_REFERENCES] = { "pageout_ignore_references", 6090 },
	/* 51a755c56dc0 and its series ("mm: PCP high auto-tuning"), v6.7 */
	[PTSIM_FEAT_PCP_HIGH_AUTO] = { "pcp_high_auto", 6070 },
	/* 0ca0c24e3211 ("mm: store zero pages to be swapped out in a bitmap"), v6.12 */
	[PTSIM_FEAT_SWAP_ZEROMAP] = { "swap_zeromap", 6120 },
	/* Dev Jain's "Optimize anonymous large folio unmapping", v4 2026-05-26: posted */
	[PTSIM_FEAT_ANON_UNMAP_BATCHING] = { "anon_unmap_batching", UNMERGED },
};

/*
 * Presets: each turns on the features released up to its release. v6.6 has
 * none of the modelled ones (it has set_ptes already), v6.8 only
 * pagemap_scan and pcp_high_auto (v6.7; anonymous mTHP came with v6.8,
 * which the model does not tie to a preset); v6.10 adds uffd_wp among others; v6.11 to
 * v6.13 have what v6.10 has (v6.11 adds large_mapcount, v6.12
 * nr_pages_mapped_batch and swap_zeromap among others), v6.14 adds
 * zap_skip_none_ptes.
 */
static const struct {
	const char *name;
	unsigned int release;
} presets[] = {
	{ "baseline", 6160 }, { "patched", UNMERGED }, { "v6.6", 6060 }, { "v6.8", 6080 },
	{ "v6.9-midpoint", 6085 }, { "v6.9", 6090 }, { "v6.10", 6100 }, { "v6.11", 6110 },
	{ "v6.12", 6120 }, { "v6.13", 6130 }, { "v6.14", 6140 }, { "v6.15", 6150 },
	{ "v6.16", 6160 }, { "v6.17", 6170 }, { "v6.18", 6180 }, { "v6.19", 6190 },
};

const char *ptsim_feature_name(enum ptsim_feature feat)
{
	if ((unsigned int)feat >= PTSIM_FEAT__COUNT)
		return NULL;
	return features[feat].name;
}

int ptsim_feature_lookup(const char *name, enum ptsim_feature *out)
{
	VALIDATE(name && out);
	for (unsigned int f = 0; f < PTSIM_FEAT__COUNT; f++) {
		if (!strcmp(name, features[f].name)) {
			*out = (enum ptsim_feature)f;
			return 0;
		}
	}
	return -EINVAL;
}

const char *ptsim_preset_name(unsigned int i)
{
	return i < sizeof(presets) / sizeof(presets[0]) ? presets[i].name : NULL;
}

int ptsim_preset_release(const char *preset, unsigned int *out)
{
	VALIDATE(preset && out);
	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++) {
		if (!strcmp(preset, presets[i].name)) {
			*out = presets[i].release;
			return 0;
		}
	}
	return -EINVAL;
}

/* The feature set of a preset (NULL: "baseline"). */
int features_from_preset(const char *preset, bool on[PTSIM_FEAT__COUNT])
{
	unsigned int release = 0;

	if (!preset)
		preset = "baseline";
	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		if (!strcmp(preset, presets[i].name))
			release = presets[i].release;
	if (!release)
		return -EINVAL;
	for (unsigned int f = 0; f < PTSIM_FEAT__COUNT; f++)
		on[f] = features[f].release != NEVER && features[f].release <= release;
	return 0;
}

int ptsim_set_thp_orders(struct ptsim_machine *m, uint64_t orders)
{
	VALIDATE(m);
	REFUSE_IN_HANDLER(m);
	VALIDATE(!(orders >> (m->geo.pmd_order + 1)));
	m->thp_orders = orders;
	return 0;
}

int ptsim_feature_get(const struct ptsim_machine *m, enum ptsim_feature feat, bool *on)
{
	VALIDATE(m && on && (unsigned int)feat < PTSIM_FEAT__COUNT);
	*on = m->features[feat];
	return 0;
}
