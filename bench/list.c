// SPDX-License-Identifier: MIT
/*
 * ptsim-bench list [cpus|features|presets|events]: every name the command
 * line takes, with a one-line meaning (as perf list does for its events).
 */
#include "rows.h"
#include "work_kind.h"

#include <errno.h>
#include <getopt.h>
#include <string.h>

/*
 * One line per feature, from the comments of enum ptsim_feature
 * (include/ptsim/machine.h), which the library has no accessor for. A
 * feature missing here makes `list features` fail (tests/check-cli.sh).
 */
static const char *const feature_meaning[PTSIM_FEAT__COUNT] = {
	[PTSIM_FEAT_MPROTECT_PTE_BATCHING] = "\"mm: optimize mprotect() by PTE batching\"",
	[PTSIM_FEAT_CONTPTE_GET_EARLY_EXIT] = "early-exit contpte_ptep_get",
	[PTSIM_FEAT_CONTPTE_BBML2_ELISION] = "contpte_convert skips the TLBI on BBML2-noabort CPUs",
	[PTSIM_FEAT_UFFD_MOVE_BATCHING] =
		"\"userfaultfd: opportunistic TLB-flush batching\" for UFFDIO_MOVE",
	[PTSIM_FEAT_LINEAR_MAP_BLOCKS] = "block linear map under rodata=full with BBML2",
	[PTSIM_FEAT_EXEC_CONTPTE_ORDER] =
		"contpte-sized exec folios 1/4: exec_folio_order = ilog2(CONT_PTES)",
	[PTSIM_FEAT_EXEC_MMAP_MISS_BYPASS] =
		"contpte-sized exec folios 2/4: VM_EXEC readahead bypasses mmap_miss",
	[PTSIM_FEAT_ELF_CONTPTE_ALIGN] =
		"contpte-sized exec folios 3/4: ET_DYN load_bias aligned for large segments",
	[PTSIM_FEAT_UNMAPPED_AREA_CONTPTE] =
		"contpte-sized exec folios 4/4: thp_get_unmapped_area falls back to the exec order",
	[PTSIM_FEAT_MMAP_MISS_RA_HITS_ONLY] =
		"behaviour switch: mmap_miss decrements only on PG_readahead hits",
	[PTSIM_FEAT_UFFD_MOVE_ERR_RESET] =
		"behaviour switch: move_pages() clears err after a successful batch",
	[PTSIM_FEAT_FORK_PTE_BATCHING] = "\"mm/memory: optimize fork() with PTE-mapped THP\"",
	[PTSIM_FEAT_ZAP_PTE_BATCHING] = "\"mm/memory: optimize unmap/zap with PTE-mapped THP\"",
	[PTSIM_FEAT_CONTPTE_WRPROTECT_HELPER] = "arm64 wrprotect_ptes() batch API",
	[PTSIM_FEAT_CONTPTE_CLEAR_HELPERS] = "arm64 [get_and_]clear_full_ptes() batch APIs",
	[PTSIM_FEAT_PTE_BATCH_HINT] = "pte_batch_hint(): skip the rest of a contiguous block",
	[PTSIM_FEAT_CONTPTE_AUTOFOLD] = "\"arm64/mm: automatically fold contpte mappings\"",
	[PTSIM_FEAT_MADV_FREE_PTE_BATCHING] = "\"mm/madvise: optimize lazyfreeing with mTHP\"",
	[PTSIM_FEAT_CONTPTE_CLEAR_YOUNG_DIRTY] = "arm64 clear_young_dirty_ptes() override",
	[PTSIM_FEAT_MREMAP_PTE_BATCHING] = "\"Optimize mremap() for large folios\"",
	[PTSIM_FEAT_MREMAP_BATCH_RESPECT_WRITE] = "\"mm/mremap: honour writable bit\" in mremap batching",
	[PTSIM_FEAT_FINISH_FAULT_WHOLE_FOLIO] = "\"mm/fault: try to map the entire file folio\"",
	[PTSIM_FEAT_FAULTAROUND_WHOLE_FOLIO] = "\"mm/filemap: map entire large folio faultaround\"",
	[PTSIM_FEAT_ARM64_PTE_NEEDS_FLUSH] = "\"arm64/mm: Elide TLB flush in certain pte\" changes",
	[PTSIM_FEAT_LINEAR_MAP_INVALID_LEAF_FIX] =
		"\"arm64: mm: Handle invalid large leaf mappings correctly\"",
	[PTSIM_FEAT_LAZYFREE_UNMAP_BATCHING] =
		"batched unmap of lazyfree large folios in reclaim (its v6.16 fix)",
	[PTSIM_FEAT_ARM64_CONTPTE] = "CONFIG_ARM64_CONTPTE: the contpte layer for user mappings",
	[PTSIM_FEAT_LARGE_MAPCOUNT] = "\"mm: track mapcount of large folios in single value\"",
	[PTSIM_FEAT_MM_ID_MAPCOUNT] = "CONFIG_MM_ID: per-MM owner tracking of large folios",
	[PTSIM_FEAT_DEFERRED_SPLIT_PARTIAL] = "only partly mapped anon large folios are deferred-split",
	[PTSIM_FEAT_UFFD_PER_VMA_LOCK] = "\"userfaultfd: use per-vma locks in userfaultfd operations\"",
	[PTSIM_FEAT_WP_REUSE_LARGE_ANON_FOLIO] = "COW reuse of a page of a PTE-mapped anon THP",
	[PTSIM_FEAT_FOLIO_PTE_BATCH_CALL] = "folio_pte_batch() out of line: one call per batch",
	[PTSIM_FEAT_MADV_POPULATE_NO_VMA_WALK] = "MADV_POPULATE_* stops at the first hole (no VMA walk)",
	[PTSIM_FEAT_SPLIT_TO_ORDER] = "a THP splits to any lower order (split_huge_page_to_list_to_order)",
	[PTSIM_FEAT_MREMAP_MULTI_VMA] = "mremap() moves of several VMAs (remap_move)",
	[PTSIM_FEAT_ZAP_SKIP_NONE_PTES] = "zap_pte_range skips a run of none entries in one loop turn",
	[PTSIM_FEAT_UFFD_WP] = "arm64 uffd write-protect (HAVE_ARCH_USERFAULTFD_WP)",
	[PTSIM_FEAT_PAGEMAP_SCAN] = "the PAGEMAP_SCAN ioctl of /proc/PID/pagemap",
	[PTSIM_FEAT_NR_PAGES_MAPPED_BATCH] = "one _nr_pages_mapped atomic per rmap batch, not per page",
	[PTSIM_FEAT_LRU_CACHE_SMALL_ONLY] = "a large folio skips the per-CPU LRU batches (moved at once)",
	[PTSIM_FEAT_SPLIT_BATCH_FLUSH] = "a folio split defers its TLBIs and completes them with one DSB",
	[PTSIM_FEAT_SPLIT_ZEROPAGE_REMAP] = "a split to order 0 checks each page for zeros before remapping it",
	[PTSIM_FEAT_LARGE_FOLIO_BATCH_FREE] = "a freed large folio joins its folio_batch (not freed alone)",
	[PTSIM_FEAT_PAGEOUT_IGNORE_REFERENCES] = "MADV_PAGEOUT skips folio_referenced (no AF clearing)",
	[PTSIM_FEAT_PCP_HIGH_AUTO] = "per-CPU page lists' drain mark and refills tuned as they are used",
	[PTSIM_FEAT_SWAP_ZEROMAP] = "a zero-filled folio is swapped out as zeromap bits, not written",
	[PTSIM_FEAT_ANON_UNMAP_BATCHING] = "reclaim unmaps a swap-backed large folio in one batch",
};

/* One line per event, from the comments of enum ptsim_event (include/ptsim/stats.h). */
static const char *const event_meaning[PTSIM_EV__COUNT] = {
	[PTSIM_EV_PTE_READ] = "__ptep_get: plain load of one L3 descriptor",
	[PTSIM_EV_PTE_WRITE] = "__set_pte_nosync: plain store of one L3 descriptor",
	[PTSIM_EV_PTE_XCHG] = "__ptep_get_and_clear: atomic exchange with 0",
	[PTSIM_EV_PTE_CAS] = "compare-and-swap of one L3 descriptor (wrprotect)",
	[PTSIM_EV_PMD_READ] = "load of one L2 descriptor",
	[PTSIM_EV_PMD_WRITE] = "store of one L2 descriptor",
	[PTSIM_EV_PMD_XCHG] = "atomic exchange or compare-and-swap of one L2 descriptor",
	[PTSIM_EV_PUD_READ] = "load of one L1 (or higher) descriptor",
	[PTSIM_EV_PUD_WRITE] = "store of one L1 (or higher) descriptor",
	[PTSIM_EV_TLBI_VA] = "TLBI VALE1IS / VAE1IS: one page by VA and ASID",
	[PTSIM_EV_TLBI_VAA] = "TLBI VAALE1IS / VAAE1IS: one page, all ASIDs",
	[PTSIM_EV_TLBI_RANGE] = "TLBI RVALE1IS / RVAE1IS (FEAT_TLBIRANGE)",
	[PTSIM_EV_TLBI_RANGE_VAA] = "TLBI RVAALE1IS / RVAAE1IS (FEAT_TLBIRANGE)",
	[PTSIM_EV_TLBI_ASID] = "TLBI ASIDE1IS",
	[PTSIM_EV_TLBI_ALL] = "TLBI VMALLE1IS",
	[PTSIM_EV_TLBI_LOCAL_ALL] = "TLBI VMALLE1 (local, a parked secondary)",
	[PTSIM_EV_TLBI_BACK_TO_BACK] = "TLBIs issued after another with no DSB between",
	[PTSIM_EV_DSB_ISHST] = "DSB ISHST before TLB maintenance",
	[PTSIM_EV_DSB_ISH] = "DSB ISH completing TLB maintenance",
	[PTSIM_EV_ISB] = "ISB",
	[PTSIM_EV_FLUSH_TLB_RANGE] = "__flush_tlb_range (inline) runs that issued ops",
	[PTSIM_EV_FLUSH_TLB_MM] = "flush_tlb_mm (inline) runs (incl. range fallback)",
	[PTSIM_EV_NOTIFIER_SECONDARY_TLBS] = "mmu_notifier_arch_invalidate_secondary_tlbs tests",
	[PTSIM_EV_MMU_NOTIFIER_RANGE] = "mmu_notifier_invalidate_range_start/end pairs (inline)",
	[PTSIM_EV_TABLE_ALLOC] = "page-table page allocated",
	[PTSIM_EV_TABLE_FREE] = "page-table page freed",
	[PTSIM_EV_FOLIO_ALLOC] = "folio allocated: taken off a free list, its pages prepared",
	[PTSIM_EV_FOLIO_FREE] = "folio freed: its head prepared and put on a free list",
	[PTSIM_EV_FOLIO_LOOKUP] = "vm_normal_page / page_folio",
	[PTSIM_EV_FOLIO_TEST] = "folio_test_large / folio_test_anon and similar",
	[PTSIM_EV_ANON_EXCL_TEST] = "PageAnonExclusive test",
	[PTSIM_EV_PTL_LOCK] = "page-table lock taken (and released)",
	[PTSIM_EV_LAZY_MMU] = "arch_enter/leave_lazy_mmu_mode pairs",
	[PTSIM_EV_PMD_ITER] = "PMD loop turns (pmd_addr_end, the PMD checks)",
	[PTSIM_EV_PTEP_GET] = "ptep_get runs (the inline contpte-aware wrapper)",
	[PTSIM_EV_CONTPTE_GATHER] = "contpte_ptep_get calls and their gathers",
	[PTSIM_EV_SET_PTES] = "set_ptes runs (inline; contpte_set_ptes is a call)",
	[PTSIM_EV_SET_PTES_CHUNK] = "__set_ptes runs (chunks, __sync_cache_and_tags)",
	[PTSIM_EV_CONTPTE_CONVERT] = "contpte_convert calls",
	[PTSIM_EV_CONTPTE_FOLD] = "successful folds",
	[PTSIM_EV_CONTPTE_UNFOLD] = "unfolds (__contpte_try_unfold calls)",
	[PTSIM_EV_FOLD_ATTEMPT] = "__contpte_try_fold entered",
	[PTSIM_EV_TLB_GATHER_ADD] = "tlb_flush_pte_range / pmd range bookkeeping",
	[PTSIM_EV_PTE_MODIFY] = "pte_modify of one (batch head) entry",
	[PTSIM_EV_PTE_BATCH] = "PTE batches formed (folio_pte_batch)",
	[PTSIM_EV_PROT_COMMIT] = "ptep_modify_prot_commit / prot_commit_flush_ptes",
	[PTSIM_EV_CAN_CHANGE_WRITABLE] = "can_change_pte_writable / maybe_change_pte_writable",
	[PTSIM_EV_PTE_LOOP] = "per-position loop iterations of a PTE walker",
	[PTSIM_EV_FAULT] = "page faults taken",
	[PTSIM_EV_PAGE_ZERO] = "pages zeroed by an anonymous fault",
	[PTSIM_EV_HUGE_PMD_SPLIT] = "__split_huge_pmd",
	[PTSIM_EV_VMA_SPLIT] = "VMA splits",
	[PTSIM_EV_VMA_MERGE] = "VMA merges",
	[PTSIM_EV_SYSCALL] = "system calls entered",
	[PTSIM_EV_MEM_ACCESS] = "memory accesses through the TLB model",
	[PTSIM_EV_TLB_L1_HIT] = "L1 dTLB/iTLB hits",
	[PTSIM_EV_TLB_L2_HIT] = "L1 misses that hit the unified L2 TLB",
	[PTSIM_EV_TLB_WALK] = "L2 misses: hardware table walks",
	[PTSIM_EV_WALK_READ] = "descriptors read by hardware walks",
	[PTSIM_EV_HW_AF_UPDATE] = "hardware Access Flag updates (FEAT_HAFDBS)",
	[PTSIM_EV_HW_DIRTY_UPDATE] = "hardware dirty-state updates (DBM)",
	[PTSIM_EV_ACCESS_FAULT] = "accesses that faulted (translation, AF, permission, conflict)",
	[PTSIM_EV_TLB_CONFLICT] = "lookups that matched more than one entry",
	[PTSIM_EV_USER_PAGE_WRITE] = "pages written by a memset-like touch",
	[PTSIM_EV_USER_PAGE_READ] = "pages read by a memchr-like touch",
	[PTSIM_EV_FOLIO_TRYLOCK] = "folio_trylock attempts",
	[PTSIM_EV_FOLIO_LOCK_WAIT] = "blocking folio_lock after a failed trylock",
	[PTSIM_EV_FOLIO_UNLOCK] = "folio_unlock",
	[PTSIM_EV_FOLIO_GET] = "folio reference taken",
	[PTSIM_EV_FOLIO_PUT] = "folio reference dropped",
	[PTSIM_EV_ANON_VMA_LOCK] = "anon_vma write lock taken (and released)",
	[PTSIM_EV_ANON_VMA_REF] = "anon_vma reference taken (and dropped)",
	[PTSIM_EV_RMAP_MOVE] = "folio_move_anon_rmap + index update",
	[PTSIM_EV_PTE_MAP] = "pte_offset_map (RCU enter) and pte_unmap pairs",
	[PTSIM_EV_COND_RESCHED] = "cond_resched / might_sleep calls (dynamic_*_resched)",
	[PTSIM_EV_FOLIO_SPLIT] = "large folio split to order 0",
	[PTSIM_EV_SWAP_LOOKUP] = "swap device get and swap-cache lookup",
	[PTSIM_EV_PAGE_CACHE_LOOKUP] = "filemap_get_folio and friends",
	[PTSIM_EV_MAJOR_FAULT] = "page-cache misses in filemap_fault",
	[PTSIM_EV_FAULT_RETRY] = "VM_FAULT_RETRY: the fault is taken again",
	[PTSIM_EV_IO_REQUEST] = "read I/O submissions (read_pages)",
	[PTSIM_EV_IO_KIB] = "KiB read from storage",
	[PTSIM_EV_MAP_PAGES] = "pages filemap_map_pages examines (fault-around): their tests",
	[PTSIM_EV_EXEC_CALL] = "calls into a stub (cold instruction line)",
	[PTSIM_EV_TLB_BATCH_SLOT] = "mmu_gather page-batch slots used (encoded_pages[])",
	[PTSIM_EV_TLB_BATCH_ALLOC] = "mmu_gather page batches allocated (tlb_next_batch)",
	[PTSIM_EV_TLB_FLUSH_MMU] = "tlb_flush_mmu_free passes: batched pages and tables freed",
	[PTSIM_EV_RMAP_REMOVE] = "folio_remove_rmap_pte(s)/_pmd calls",
	[PTSIM_EV_RMAP_DUP] = "__folio_try_dup_anon_rmap / __folio_dup_file_rmap entries (fork)",
	[PTSIM_EV_PAGE_COPY] = "pages copied (COW, pinned pages at fork)",
	[PTSIM_EV_MLOCK_FOLIO] = "mlock_folio / munlock_folio calls",
	[PTSIM_EV_HELPER_CALL] = "other out-of-line kernel helpers (anon_vma get/lock/...)",
	[PTSIM_EV_SLAB_ALLOC] = "kmem_cache_alloc: a VMA, its lock, an anon_vma, an avc, a maple node",
	[PTSIM_EV_SLAB_FREE] = "kmem_cache_free of one of those",
	[PTSIM_EV_MAPLE_NODE_WRITE] = "maple-tree nodes written by a store, a dup or a rewrite",
	[PTSIM_EV_RWSEM] = "rw_semaphore taken and released (mmap_lock, a VMA's lock)",
	[PTSIM_EV_VM_STAT] = "per-CPU or per-mm counter update (vm_stat_account, mm counters)",
	[PTSIM_EV_MEMCG_CHARGE] = "mem_cgroup_charge / mem_cgroup_swapin_charge_folio",
	[PTSIM_EV_LRU_ADD] = "a call of folio_add_lru_vma or folio_add_lru (the batch apart)",
	[PTSIM_EV_RMAP_ADD] = "folio_add_new_anon_rmap / folio_add_{anon,file}_rmap_* calls",
	[PTSIM_EV_MAPCOUNT_ATOMIC] = "atomic RMW of a page's _mapcount or a folio's mapcounts",
	[PTSIM_EV_MAPCOUNT_SET] = "plain store of a mapcount field (atomic_set, MM_ID slots)",
	[PTSIM_EV_PAGE_FLAG_ATOMIC] = "an atomic bit op on a page's flags or the swap zeromap (set/clear_bit)",
	[PTSIM_EV_LRUVEC_STAT] = "__lruvec_stat_mod_folio calls (NR_*_MAPPED, NR_ANON_THPS)",
	[PTSIM_EV_DSB_SY] = "DSB SY (the raw API)",
	[PTSIM_EV_DSB_NSH] = "DSB NSH (the raw API)",
	[PTSIM_EV_TLBI_LOCAL] = "TLBI by VA, range or ASID without the IS suffix (the raw API)",
	[PTSIM_EV_DCACHE_L1_HIT] = "data-cache model: a descriptor or struct page load that hit the L1",
	[PTSIM_EV_DCACHE_PREFETCH_HIT] = "data-cache model: a load a trained stream had prefetched into the L1",
	[PTSIM_EV_DCACHE_L2_HIT] = "data-cache model: a load that missed the L1 and hit the L2",
	[PTSIM_EV_DCACHE_LLC_HIT] = "data-cache model: a load that missed the L2 and hit the last-level cache",
	[PTSIM_EV_DCACHE_DRAM] = "data-cache model: a load that missed every cache",
	[PTSIM_EV_DCACHE_OBJ_L1_HIT] = "data-cache model: a kernel object's load or atomic (mm, VMA, anon_vma, maple or xarray node) that hit the L1",
	[PTSIM_EV_DCACHE_OBJ_PREFETCH_HIT] = "data-cache model: a kernel object's load a trained stream had prefetched",
	[PTSIM_EV_DCACHE_OBJ_L2_HIT] = "data-cache model: a kernel object's load that missed the L1 and hit the L2",
	[PTSIM_EV_DCACHE_OBJ_LLC_HIT] = "data-cache model: a kernel object's load that missed the L2 and hit the last-level cache",
	[PTSIM_EV_DCACHE_OBJ_DRAM] = "data-cache model: a kernel object's load that missed every cache",
	[PTSIM_EV_ICACHE_L2_HIT] = "cache model: a call's instruction line, missing the L1I, found in the L2",
	[PTSIM_EV_ICACHE_LLC_HIT] = "cache model: a call's instruction line found in the last-level cache",
	[PTSIM_EV_ICACHE_DRAM] = "cache model: a call's instruction line fetched from memory",
	[PTSIM_EV_FREE_TAIL_PAGE] = "free_pages_prepare's work on one tail page of a large folio freed",
	[PTSIM_EV_LRU_LOCK] = "a per-CPU LRU batch moved: the lruvec's lru_lock taken and released",
	[PTSIM_EV_LRU_MOVE] = "one folio of that batch moved between LRU lists under the lock",
	[PTSIM_EV_SPLIT_PAGE_TAIL] = "__split_huge_page_tail: one tail page's struct page made a folio's",
	[PTSIM_EV_PAGE_COUNTER] = "one memcg hierarchy level charged or uncharged: its page counter's atomic",
	[PTSIM_EV_COMPOUND_PAGE] = "prep_compound_page: one struct page of a new large folio made compound",
	[PTSIM_EV_PAGE_ALLOC_LOCK] = "a per-CPU page list's or a zone's lock around freed pages",
	[PTSIM_EV_FREE_LIST_OP] = "a free block on or off a per-CPU or buddy list (refills, drains, splits, merges)",
	[PTSIM_EV_DMB] = "smp_mb, smp_rmb or smp_wmb: a DMB with no TLB maintenance behind it",
};

enum { LIST_CPUS = 1, LIST_FEATURES = 2, LIST_PRESETS = 4, LIST_EVENTS = 8 };

/* "v6.17", "v6.9-midpoint", "unmerged" for a release as features.c encodes it. */
static void release_text(unsigned int release, char *buf, size_t len)
{
	if (release == PTSIM_RELEASE_UNMERGED)
		snprintf(buf, len, "unmerged");
	else
		snprintf(buf, len, "v%u.%u%s", release / 1000, (release % 1000 + 9) / 10,
			 release % 10 ? "-midpoint" : "");	/* 6085: v6.9-midpoint */
}

/* The features preset p turns on, read from a machine it is applied to. */
static int preset_features(const char *p, bool on[PTSIM_FEAT__COUNT])
{
	struct ptsim_machine_config cfg;
	struct ptsim_machine *m;
	int err;

	ptsim_machine_config_init(&cfg);
	cfg.preset = p;
	err = ptsim_machine_create(&cfg, &m);
	if (err)
		return err;
	for (unsigned int f = 0; f < PTSIM_FEAT__COUNT; f++)
		ptsim_feature_get(m, (enum ptsim_feature)f, &on[f]);
	ptsim_machine_destroy(m);
	return 0;
}

/*
 * The release a feature came with: the lowest release of a preset that turns
 * it on (what src/core/features.c records), "unmerged" when only "patched"
 * does, "never" for a behaviour switch no preset sets.
 */
static int feature_releases(unsigned int release[PTSIM_FEAT__COUNT])
{
	for (unsigned int f = 0; f < PTSIM_FEAT__COUNT; f++)
		release[f] = 0;
	for (unsigned int i = 0; ptsim_preset_name(i); i++) {
		bool on[PTSIM_FEAT__COUNT];
		unsigned int r;
		int err = preset_features(ptsim_preset_name(i), on);

		if (err || ptsim_preset_release(ptsim_preset_name(i), &r))
			return err ? err : -EINVAL;
		for (unsigned int f = 0; f < PTSIM_FEAT__COUNT; f++)
			if (on[f] && (!release[f] || r < release[f]))
				release[f] = r;
	}
	return 0;
}

static void sep(bool json, bool *first)
{
	if (json)
		printf("%s\n", *first ? "" : ",");
	*first = false;
}

static void list_cpus(bool json)
{
	bool first = true;

	if (!json)
		printf("CPUs (--cpu; every constant with its source: ptsim-bench cpus):\n");
	for (unsigned int c = 0; c < PTSIM_CPU__COUNT; c++) {
		struct ptsim_cpu_info ci;

		ptsim_cpu_info((enum ptsim_cpu)c, &ci);
		if (json) {
			sep(json, &first);
			printf("    {\"name\": ");
			json_string(ci.name);
			printf(", \"model\": ");
			json_string(ci.model);
			printf(", \"freq_ghz\": %.15g, \"tlbirange\": %s, \"bbm_level\": %u, "
			       "\"bbml2_noabort\": %s, \"hafdbs\": %s}",
			       ci.freq_ghz, ci.tlbirange ? "true" : "false", ci.bbm_level,
			       ci.bbml2_noabort ? "true" : "false", ci.hafdbs ? "true" : "false");
			continue;
		}
		wrap_print(stdout, 17, "  %-14s %s, %.2f GHz, L2 TLB %u, %sBBM level %u%s", ci.name,
			   ci.model, ci.freq_ghz, ci.l2_entries, ci.tlbirange ? "TLBIRANGE, " : "",
			   ci.bbm_level, ci.bbml2_noabort ? " (noabort)" : "");
	}
}

static int list_features(bool json)
{
	unsigned int release[PTSIM_FEAT__COUNT];
	bool first = true;
	int err = feature_releases(release);

	if (err) {
		fprintf(stderr, "list: presets: %s\n", ptsim_strerror(err));
		return 1;
	}
	if (!json)
		printf("features (--features NAME, +NAME, -NAME; release: the first preset with it):\n");
	for (unsigned int f = 0; f < PTSIM_FEAT__COUNT; f++) {
		const char *name = ptsim_feature_name((enum ptsim_feature)f);
		char rel[32];

		if (!feature_meaning[f]) {
			fprintf(stderr, "list: feature %s has no meaning in bench/list.c\n", name);
			return 1;
		}
		if (release[f])
			release_text(release[f], rel, sizeof(rel));
		else
			snprintf(rel, sizeof(rel), "never");
		if (json) {
			sep(json, &first);
			printf("    {\"name\": ");
			json_string(name);
			printf(", \"release\": ");
			json_string(rel);
			printf(", \"meaning\": ");
			json_string(feature_meaning[f]);
			printf("}");
			continue;
		}
		wrap_print(stdout, 45, "  %-28s %-13s %s", name, rel, feature_meaning[f]);
	}
	return 0;
}

static int list_presets(bool json)
{
	bool first = true;

	if (!json)
		printf("presets (--features, --presets; the merged features up to the release):\n");
	for (unsigned int i = 0; ptsim_preset_name(i); i++) {
		const char *p = ptsim_preset_name(i);
		bool on[PTSIM_FEAT__COUNT];
		unsigned int r, n = 0;
		char rel[32];
		int err = preset_features(p, on);

		if (!err)
			err = ptsim_preset_release(p, &r);
		if (err) {
			fprintf(stderr, "list: preset %s: %s\n", p, ptsim_strerror(err));
			return 1;
		}
		release_text(r, rel, sizeof(rel));
		if (json) {
			sep(json, &first);
			printf("    {\"name\": ");
			json_string(p);
			printf(", \"release\": ");
			json_string(rel);
			printf(", \"features\": [");
		} else {
			printf("  %-14s %s\n", p, rel);
		}
		for (unsigned int f = 0, col = 0; f < PTSIM_FEAT__COUNT; f++) {
			const char *name = ptsim_feature_name((enum ptsim_feature)f);

			if (!on[f])
				continue;
			if (json) {
				printf("%s", n ? ", " : "");
				json_string(name);
			} else {
				/* wrapped under the name, within 80 columns */
				if (col && col + 1 + strlen(name) > 79) {
					printf("\n");
					col = 0;
				}
				col += (unsigned int)printf("%s%s", col ? " " : "    ", name);
			}
			n++;
		}
		if (json)
			printf("]}");
		else
			printf("%s\n", n ? "" : "    (none of the modelled features)");
	}
	return 0;
}

static int list_events(bool json)
{
	bool first = true;

	if (!json)
		printf("events (price class on the Apple M3, 4K: ptsim-bench cpus for every CPU):\n");
	for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++) {
		const char *name = ptsim_event_name((enum ptsim_event)e);
		struct ptsim_cost k;

		enum work_kind kind = event_work_kind((enum ptsim_event)e);

		if (!event_meaning[e]) {
			fprintf(stderr, "list: event %s has no meaning in bench/list.c\n", name);
			return 1;
		}
		if (kind == WORK_UNCLASSIFIED) {
			fprintf(stderr, "list: event %s has no kind of work in bench/work_kind.c\n",
				name);
			return 1;
		}
		ptsim_cost_get(PTSIM_CPU_APPLE_M3, PTSIM_GRANULE_4K, (enum ptsim_event)e, &k);
		if (json) {
			sep(json, &first);
			printf("    {\"name\": ");
			json_string(name);
			printf(", \"class\": ");
			json_string(k.klass);
			printf(", \"meaning\": ");
			json_string(event_meaning[e]);
			printf(", \"work\": ");
			json_string(work_kind_key(kind));
			printf("}");
			continue;
		}
		wrap_print(stdout, 44, "  %-26s %-14s %s (%s)", name, k.klass, event_meaning[e],
			   work_kind_name(kind));
	}
	return 0;
}

int cmd_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct {
		const char *name;
		unsigned int bit;
	} kinds[] = {
		{ "cpus", LIST_CPUS }, { "features", LIST_FEATURES },
		{ "presets", LIST_PRESETS }, { "events", LIST_EVENTS },
	};
	unsigned int what = 0;
	bool json = false, first = true;
	int c, status = 0;

	optind = 0;	/* a fresh scan of this command's arguments (glibc) */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'h')
			return command_usage("list", stdout);
		if (c == 'j') {
			json = true;
			continue;
		}
		fprintf(stderr, "list: unknown option %s\n", argv[optind - 1]);
		return command_usage("list", stderr);
	}
	for (int i = optind; i < argc; i++) {
		unsigned int k = 0;

		while (k < sizeof(kinds) / sizeof(kinds[0]) && strcmp(argv[i], kinds[k].name))
			k++;
		if (k == sizeof(kinds) / sizeof(kinds[0])) {
			fprintf(stderr, "list: unknown list '%s'; valid: cpus, features, presets, events\n",
				argv[i]);
			return 2;
		}
		what |= kinds[k].bit;
	}
	if (!what)
		what = LIST_CPUS | LIST_FEATURES | LIST_PRESETS | LIST_EVENTS;
	if (json)
		json_begin("list", NULL);
	for (unsigned int k = 0; k < sizeof(kinds) / sizeof(kinds[0]) && !status; k++) {
		if (!(what & kinds[k].bit))
			continue;
		if (json)
			printf(",\n  \"%s\": [", kinds[k].name);
		else if (!first)
			printf("\n");
		first = false;
		switch (kinds[k].bit) {
		case LIST_CPUS: list_cpus(json); break;
		case LIST_FEATURES: status = list_features(json); break;
		case LIST_PRESETS: status = list_presets(json); break;
		default: status = list_events(json); break;
		}
		if (json)
			printf("\n  ]");
	}
	if (json) {
		printf("\n");
		json_end();
	}
	return status;
}
