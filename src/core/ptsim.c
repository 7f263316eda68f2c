// SPDX-License-Identifier: MIT
/* Library-wide entry points: version, error text, event names. */
#include "internal.h"
#include "config.h"

#include <string.h>

const char *ptsim_version(void)
{
	return PTSIM_VERSION;
}

const char *ptsim_strerror(int err)
{
	switch (err) {
	case 0: return "success";
	case -EINVAL: return "invalid argument";
	case -ENOMEM: return "out of memory";
	case -EFAULT: return "bad address";
	case -ENOENT: return "nothing mapped";
	case -EEXIST: return "already mapped";
	case -EBUSY: return "busy";
	case -EAGAIN: return "try again";
	case -EPERM: return "operation not permitted";
	default: return "unknown error";
	}
}

static const char *const event_names[PTSIM_EV__COUNT] = {
	[PTSIM_EV_PTE_READ] = "pte_read",
	[PTSIM_EV_PTE_WRITE] = "pte_write",
	[PTSIM_EV_PTE_XCHG] = "pte_xchg",
	[PTSIM_EV_PTE_CAS] = "pte_cas",
	[PTSIM_EV_PMD_READ] = "pmd_read",
	[PTSIM_EV_PMD_WRITE] = "pmd_write",
	[PTSIM_EV_PMD_XCHG] = "pmd_xchg",
	[PTSIM_EV_PUD_READ] = "pud_read",
	[PTSIM_EV_PUD_WRITE] = "pud_write",
	[PTSIM_EV_TLBI_VA] = "tlbi_va",
	[PTSIM_EV_TLBI_VAA] = "tlbi_vaa",
	[PTSIM_EV_TLBI_RANGE] = "tlbi_range",
	[PTSIM_EV_TLBI_RANGE_VAA] = "tlbi_range_vaa",
	[PTSIM_EV_TLBI_ASID] = "tlbi_asid",
	[PTSIM_EV_TLBI_ALL] = "tlbi_all",
	[PTSIM_EV_TLBI_LOCAL_ALL] = "tlbi_local_all",
	[PTSIM_EV_TLBI_BACK_TO_BACK] = "tlbi_back_to_back",
	[PTSIM_EV_DSB_ISHST] = "dsb_ishst",
	[PTSIM_EV_DSB_ISH] = "dsb_ish",
	[PTSIM_EV_ISB] = "isb",
	[PTSIM_EV_FLUSH_TLB_RANGE] = "flush_tlb_range",
	[PTSIM_EV_FLUSH_TLB_MM] = "flush_tlb_mm",
	[PTSIM_EV_NOTIFIER_SECONDARY_TLBS] = "notifier_secondary_tlbs",
	[PTSIM_EV_MMU_NOTIFIER_RANGE] = "mmu_notifier_range",
	[PTSIM_EV_TABLE_ALLOC] = "table_alloc",
	[PTSIM_EV_TABLE_FREE] = "table_free",
	[PTSIM_EV_FOLIO_ALLOC] = "folio_alloc",
	[PTSIM_EV_FOLIO_FREE] = "folio_free",
	[PTSIM_EV_FOLIO_LOOKUP] = "folio_lookup",
	[PTSIM_EV_FOLIO_TEST] = "folio_test",
	[PTSIM_EV_ANON_EXCL_TEST] = "anon_excl_test",
	[PTSIM_EV_PTL_LOCK] = "ptl_lock",
	[PTSIM_EV_LAZY_MMU] = "lazy_mmu",
	[PTSIM_EV_PMD_ITER] = "pmd_iter",
	[PTSIM_EV_PTEP_GET] = "ptep_get",
	[PTSIM_EV_CONTPTE_GATHER] = "contpte_gather",
	[PTSIM_EV_SET_PTES] = "set_ptes",
	[PTSIM_EV_SET_PTES_CHUNK] = "set_ptes_chunk",
	[PTSIM_EV_CONTPTE_CONVERT] = "contpte_convert",
	[PTSIM_EV_CONTPTE_FOLD] = "contpte_fold",
	[PTSIM_EV_CONTPTE_UNFOLD] = "contpte_unfold",
	[PTSIM_EV_FOLD_ATTEMPT] = "fold_attempt",
	[PTSIM_EV_TLB_GATHER_ADD] = "tlb_gather_add",
	[PTSIM_EV_PTE_MODIFY] = "pte_modify",
	[PTSIM_EV_PTE_BATCH] = "pte_batch",
	[PTSIM_EV_PROT_COMMIT] = "prot_commit",
	[PTSIM_EV_CAN_CHANGE_WRITABLE] = "can_change_writable",
	[PTSIM_EV_PTE_LOOP] = "pte_loop",
	[PTSIM_EV_FAULT] = "fault",
	[PTSIM_EV_PAGE_ZERO] = "page_zero",
	[PTSIM_EV_HUGE_PMD_SPLIT] = "huge_pmd_split",
	[PTSIM_EV_VMA_SPLIT] = "vma_split",
	[PTSIM_EV_VMA_MERGE] = "vma_merge",
	[PTSIM_EV_SYSCALL] = "syscall",
	[PTSIM_EV_MEM_ACCESS] = "mem_access",
	[PTSIM_EV_TLB_L1_HIT] = "tlb_l1_hit",
	[PTSIM_EV_TLB_L2_HIT] = "tlb_l2_hit",
	[PTSIM_EV_TLB_WALK] = "tlb_walk",
	[PTSIM_EV_WALK_READ] = "walk_read",
	[PTSIM_EV_HW_AF_UPDATE] = "hw_af_update",
	[PTSIM_EV_HW_DIRTY_UPDATE] = "hw_dirty_update",
	[PTSIM_EV_ACCESS_FAULT] = "access_fault",
	[PTSIM_EV_TLB_CONFLICT] = "tlb_conflict",
	[PTSIM_EV_USER_PAGE_WRITE] = "user_page_write",
	[PTSIM_EV_USER_PAGE_READ] = "user_page_read",
	[PTSIM_EV_FOLIO_TRYLOCK] = "folio_trylock",
	[PTSIM_EV_FOLIO_LOCK_WAIT] = "folio_lock_wait",
	[PTSIM_EV_FOLIO_UNLOCK] = "folio_unlock",
	[PTSIM_EV_FOLIO_GET] = "folio_get",
	[PTSIM_EV_FOLIO_PUT] = "folio_put",
	[PTSIM_EV_ANON_VMA_LOCK] = "anon_vma_lock",
	[PTSIM_EV_ANON_VMA_REF] = "anon_vma_ref",
	[PTSIM_EV_RMAP_MOVE] = "rmap_move",
	[PTSIM_EV_PTE_MAP] = "pte_map",
	[PTSIM_EV_COND_RESCHED] = "cond_resched",
	[PTSIM_EV_FOLIO_SPLIT] = "folio_split",
	[PTSIM_EV_SWAP_LOOKUP] = "swap_lookup",
	[PTSIM_EV_PAGE_CACHE_LOOKUP] = "page_cache_lookup",
	[PTSIM_EV_MAJOR_FAULT] = "major_fault",
	[PTSIM_EV_FAULT_RETRY] = "fault_retry",
	[PTSIM_EV_IO_REQUEST] = "io_request",
	[PTSIM_EV_IO_KIB] = "io_kib",
	[PTSIM_EV_MAP_PAGES] = "map_pages",
	[PTSIM_EV_EXEC_CALL] = "exec_call",
	[PTSIM_EV_TLB_BATCH_SLOT] = "tlb_batch_slot",
	[PTSIM_EV_TLB_BATCH_ALLOC] = "tlb_batch_alloc",
	[PTSIM_EV_TLB_FLUSH_MMU] = "tlb_flush_mmu",
	[PTSIM_EV_RMAP_REMOVE] = "rmap_remove",
	[PTSIM_EV_RMAP_DUP] = "rmap_dup",
	[PTSIM_EV_PAGE_COPY] = "page_copy",
	[PTSIM_EV_MLOCK_FOLIO] = "mlock_folio",
	[PTSIM_EV_HELPER_CALL] = "helper_call",
	[PTSIM_EV_SLAB_ALLOC] = "slab_alloc",
	[PTSIM_EV_SLAB_FREE] = "slab_free",
	[PTSIM_EV_MAPLE_NODE_WRITE] = "maple_node_write",
	[PTSIM_EV_RWSEM] = "rwsem",
	[PTSIM_EV_VM_STAT] = "vm_stat",
	[PTSIM_EV_MEMCG_CHARGE] = "memcg_charge",
	[PTSIM_EV_LRU_ADD] = "lru_add",
	[PTSIM_EV_RMAP_ADD] = "rmap_add",
	[PTSIM_EV_MAPCOUNT_ATOMIC] = "mapcount_atomic",
	[PTSIM_EV_MAPCOUNT_SET] = "mapcount_set",
	[PTSIM_EV_PAGE_FLAG_ATOMIC] = "page_flag_atomic",
	[PTSIM_EV_LRUVEC_STAT] = "lruvec_stat",
	[PTSIM_EV_DSB_SY] = "dsb_sy",
	[PTSIM_EV_DSB_NSH] = "dsb_nsh",
	[PTSIM_EV_TLBI_LOCAL] = "tlbi_local",
	[PTSIM_EV_DCACHE_L1_HIT] = "dcache_l1_hit",
	[PTSIM_EV_DCACHE_OBJ_L1_HIT] = "dcache_obj_l1_hit",
	[PTSIM_EV_DCACHE_OBJ_PREFETCH_HIT] = "dcache_obj_prefetch_hit",
	[PTSIM_EV_DCACHE_OBJ_L2_HIT] = "dcache_obj_l2_hit",
	[PTSIM_EV_DCACHE_OBJ_LLC_HIT] = "dcache_obj_llc_hit",
	[PTSIM_EV_DCACHE_OBJ_DRAM] = "dcache_obj_dram",
	[PTSIM_EV_ICACHE_L2_HIT] = "icache_l2_hit",
	[PTSIM_EV_ICACHE_LLC_HIT] = "icache_llc_hit",
	[PTSIM_EV_ICACHE_DRAM] = "icache_dram",
	[PTSIM_EV_FREE_TAIL_PAGE] = "free_tail_page",
	[PTSIM_EV_LRU_LOCK] = "lru_lock",
	[PTSIM_EV_LRU_MOVE] = "lru_move",
	[PTSIM_EV_SPLIT_PAGE_TAIL] = "split_page_tail",
	[PTSIM_EV_PAGE_COUNTER] = "page_counter",
	[PTSIM_EV_COMPOUND_PAGE] = "compound_page",
	[PTSIM_EV_PAGE_ALLOC_LOCK] = "page_alloc_lock",
	[PTSIM_EV_FREE_LIST_OP] = "free_list_op",
	[PTSIM_EV_DMB] = "dmb",
	[PTSIM_EV_DCACHE_PREFETCH_HIT] = "dcache_prefetch_hit",
	[PTSIM_EV_DCACHE_L2_HIT] = "dcache_l2_hit",
	[PTSIM_EV_DCACHE_LLC_HIT] = "dcache_llc_hit",
	[PTSIM_EV_DCACHE_DRAM] = "dcache_dram",
};

const char *ptsim_event_name(enum ptsim_event ev)
{
	if ((unsigned int)ev >= PTSIM_EV__COUNT)
		return NULL;
	return event_names[ev];
}

static const char *const func_names[PTSIM_FN__COUNT] = {
	[PTSIM_FN_CHANGE_PTE_RANGE] = "change_pte_range",
	[PTSIM_FN_CHANGE_HUGE_PMD] = "change_huge_pmd",
	[PTSIM_FN_FOLIO_PTE_BATCH] = "folio_pte_batch",
	[PTSIM_FN_CONTPTE_CONVERT] = "contpte_convert",
	[PTSIM_FN_TLB_FLUSH_MMU] = "tlb_flush_mmu",
	[PTSIM_FN_HANDLE_MM_FAULT] = "handle_mm_fault",
	[PTSIM_FN_SPLIT_HUGE_PMD] = "split_huge_pmd",
	[PTSIM_FN_ZAP_PTE_RANGE] = "zap_pte_range",
	[PTSIM_FN_FREE_PGTABLES] = "free_pgtables",
	[PTSIM_FN_COPY_PTE_RANGE] = "copy_pte_range",
	[PTSIM_FN_DO_WP_PAGE] = "do_wp_page",
	[PTSIM_FN_USER_MEMSET] = "user_memset",
	[PTSIM_FN_MOVE_PAGES_PTE] = "move_pages_pte",
	[PTSIM_FN_PTEP_CLEAR_FLUSH] = "ptep_clear_flush",
	[PTSIM_FN_VM_NORMAL_FOLIO] = "vm_normal_folio",
	[PTSIM_FN_FLUSH_TLB_RANGE] = "flush_tlb_range",
};

const char *ptsim_func_name(enum ptsim_func fn)
{
	if ((unsigned int)fn >= PTSIM_FN__COUNT)
		return NULL;
	return func_names[fn];
}

/* Each loop path as arch/arm64/hw/loop-prices.json names it: the loop, then the variant. */
static const char *const loop_names[PTSIM_LOOP__COUNT][2] = {
	[PTSIM_LOOP_CHANGE_PTE_RANGE_PRESENT] = { "change_pte_range", "present" },
	[PTSIM_LOOP_CHANGE_PTE_RANGE_PRESENT_WRITABLE] = { "change_pte_range", "present_writable" },
	[PTSIM_LOOP_ZAP_PTE_RANGE_NONE] = { "zap_pte_range", "none" },
	[PTSIM_LOOP_ZAP_PTE_RANGE_PRESENT_ANON] = { "zap_pte_range", "present_anon" },
	[PTSIM_LOOP_ZAP_PTE_RANGE_PRESENT_ANON_BATCH] = { "zap_pte_range", "present_anon_batch" },
	[PTSIM_LOOP_ZAP_PTE_RANGE_PRESENT_FILE] = { "zap_pte_range", "present_file" },
	[PTSIM_LOOP_COPY_PTE_RANGE_NONE] = { "copy_pte_range", "none" },
	[PTSIM_LOOP_COPY_PTE_RANGE_PRESENT_ANON] = { "copy_pte_range", "present_anon" },
	[PTSIM_LOOP_COPY_PTE_RANGE_PRESENT_ANON_BATCH] = { "copy_pte_range", "present_anon_batch" },
	[PTSIM_LOOP_COPY_PTE_RANGE_PRESENT_FILE] = { "copy_pte_range", "present_file" },
	[PTSIM_LOOP_FOLIO_PTE_BATCH_MATCH] = { "folio_pte_batch", "match" },
	[PTSIM_LOOP_MOVE_PTES_NONE] = { "move_ptes", "none" },
	[PTSIM_LOOP_MOVE_PTES_PRESENT] = { "move_ptes", "present" },
	[PTSIM_LOOP_MLOCK_PTE_RANGE_MLOCK] = { "mlock_pte_range", "mlock" },
	[PTSIM_LOOP_MLOCK_PTE_RANGE_MUNLOCK] = { "mlock_pte_range", "munlock" },
	[PTSIM_LOOP_CONTPTE_PTEP_GET_CLEAN] = { "contpte_ptep_get", "clean" },
	[PTSIM_LOOP_CONTPTE_PTEP_GET_DIRTY] = { "contpte_ptep_get", "dirty" },
	[PTSIM_LOOP_CHANGE_PTE_RANGE_PRESENT_NOCONTPTE] = { "change_pte_range", "present_nocontpte" },
	[PTSIM_LOOP_CHANGE_PTE_RANGE_PRESENT_WRITABLE_NOCONTPTE] = {
		"change_pte_range", "present_writable_nocontpte" },
	[PTSIM_LOOP_ZAP_PTE_RANGE_NONE_NOCONTPTE] = { "zap_pte_range", "none_nocontpte" },
	[PTSIM_LOOP_ZAP_PTE_RANGE_PRESENT_ANON_NOCONTPTE] = { "zap_pte_range", "present_anon_nocontpte" },
	[PTSIM_LOOP_ZAP_PTE_RANGE_PRESENT_FILE_NOCONTPTE] = { "zap_pte_range", "present_file_nocontpte" },
	[PTSIM_LOOP_COPY_PTE_RANGE_NONE_NOCONTPTE] = { "copy_pte_range", "none_nocontpte" },
	[PTSIM_LOOP_COPY_PTE_RANGE_PRESENT_ANON_NOCONTPTE] = { "copy_pte_range", "present_anon_nocontpte" },
	[PTSIM_LOOP_COPY_PTE_RANGE_PRESENT_ANON_BATCH_NOCONTPTE] = {
		"copy_pte_range", "present_anon_batch_nocontpte" },
	[PTSIM_LOOP_COPY_PTE_RANGE_PRESENT_FILE_NOCONTPTE] = { "copy_pte_range", "present_file_nocontpte" },
	[PTSIM_LOOP_FOLIO_PTE_BATCH_MATCH_NOCONTPTE] = { "folio_pte_batch", "match_nocontpte" },
	[PTSIM_LOOP_MOVE_PTES_NONE_NOCONTPTE] = { "move_ptes", "none_nocontpte" },
	[PTSIM_LOOP_MOVE_PTES_PRESENT_NOCONTPTE] = { "move_ptes", "present_nocontpte" },
	[PTSIM_LOOP_MLOCK_PTE_RANGE_MLOCK_NOCONTPTE] = { "mlock_pte_range", "mlock_nocontpte" },
	[PTSIM_LOOP_MLOCK_PTE_RANGE_MUNLOCK_NOCONTPTE] = { "mlock_pte_range", "munlock_nocontpte" },
	[PTSIM_LOOP_MOVE_PAGES_PTE] = { "move_pages", "pte" },
	[PTSIM_LOOP_MOVE_PAGES_PTE_PRESENT] = { "move_pages_pte", "present" },
	[PTSIM_LOOP_MADVISE_COLD_YOUNG] = { "madvise_cold_or_pageout_pte_range", "cold_young" },
	[PTSIM_LOOP_MADVISE_PAGEOUT] = { "madvise_cold_or_pageout_pte_range", "pageout" },
	[PTSIM_LOOP_MADVISE_FREE_YOUNG_DIRTY] = { "madvise_free_pte_range", "young_dirty" },
	[PTSIM_LOOP_CLEAR_YOUNG_DIRTY_PTES_YOUNG_AND_DIRTY] = { "__clear_young_dirty_ptes",
								"young_and_dirty" },
	[PTSIM_LOOP_CLEAR_YOUNG_DIRTY_PTES_YOUNG] = { "__clear_young_dirty_ptes", "young" },
	[PTSIM_LOOP_FILEMAP_MAP_FOLIO_RANGE_BATCH] = { "filemap_map_folio_range", "batch" },
	[PTSIM_LOOP_PTEP_MODIFY_PROT_START_ENTRY] = { "ptep_modify_prot_start", "entry" },
	[PTSIM_LOOP_PTEP_MODIFY_PROT_START_ENTRY_NOCONTPTE] = { "ptep_modify_prot_start",
								 "entry_nocontpte" },
	[PTSIM_LOOP_PTEP_MODIFY_PROT_COMMIT_ENTRY] = { "ptep_modify_prot_commit", "entry" },
	[PTSIM_LOOP_PTEP_MODIFY_PROT_COMMIT_ENTRY_NOCONTPTE] = { "ptep_modify_prot_commit",
								  "entry_nocontpte" },
	[PTSIM_LOOP_VM_NORMAL_PAGE_NORMAL] = { "vm_normal_page", "normal" },
	[PTSIM_LOOP_VM_NORMAL_PAGE_NORMAL_NOCONTPTE] = { "vm_normal_page", "normal_nocontpte" },
	[PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_PRESENT] = { "change_pte_range_batched", "present" },
	[PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_PRESENT_NOCONTPTE] = { "change_pte_range_batched",
								     "present_nocontpte" },
	[PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_PRESENT_WRITABLE] = { "change_pte_range_batched",
								    "present_writable" },
	[PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_PRESENT_WRITABLE_NOCONTPTE] = {
		"change_pte_range_batched", "present_writable_nocontpte" },
	[PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_LARGE] = { "change_pte_range_batched", "large" },
	[PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_LARGE_NOCONTPTE] = {
		"change_pte_range_batched", "large_nocontpte" },
	[PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_LARGE_WRITABLE] = {
		"change_pte_range_batched", "large_writable" },
	[PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_LARGE_WRITABLE_NOCONTPTE] = {
		"change_pte_range_batched", "large_writable_nocontpte" },
	[PTSIM_LOOP_PAGE_ANON_EXCLUSIVE_SUB_BATCH_MATCH] = { "page_anon_exclusive_sub_batch",
							      "match" },
	[PTSIM_LOOP_PAGE_ANON_EXCLUSIVE_SUB_BATCH_MATCH_NOCONTPTE] = {
		"page_anon_exclusive_sub_batch", "match_nocontpte" },
	[PTSIM_LOOP_MPROTECT_FOLIO_PTE_BATCH_ORDER0] = { "mprotect_folio_pte_batch", "order0" },
	[PTSIM_LOOP_MPROTECT_FOLIO_PTE_BATCH_ORDER0_NOCONTPTE] = { "mprotect_folio_pte_batch",
								    "order0_nocontpte" },
	[PTSIM_LOOP_FOLIO_MARK_LAZYFREE_ADD] = { "folio_mark_lazyfree", "add" },
	[PTSIM_LOOP_FOLIO_BATCH_ADD_AND_MOVE_ADD] = { "__folio_batch_add_and_move", "add" },
	[PTSIM_LOOP_FOLIO_BATCH_MOVE_LRU_SAME_LRUVEC] = { "folio_batch_move_lru", "same_lruvec" },
	[PTSIM_LOOP_LRU_LAZYFREE_MOVE] = { "lru_lazyfree", "move" },
	[PTSIM_LOOP_SPLIT_HUGE_PAGE_TAIL_ANON] = { "__split_huge_page", "tail_anon" },
	[PTSIM_LOOP_SPLIT_HUGE_PAGE_TAIL_ANON_NOCONTPTE] = { "__split_huge_page",
							      "tail_anon_nocontpte" },
	[PTSIM_LOOP_CONTPTE_PTEP_TEST_AND_CLEAR_YOUNG_ENTRY] = { "contpte_ptep_test_and_clear_young",
								 "entry" },
	[PTSIM_LOOP_CAN_CHANGE_PTE_WRITABLE_ANON_EXCLUSIVE] = { "can_change_pte_writable",
								 "anon_exclusive" },
	[PTSIM_LOOP_IS_FOLIO_ZERO_FILLED_ZERO_WORD] = { "is_folio_zero_filled", "zero_word" },
	[PTSIM_LOOP_XAS_STORE_SLOT] = { "xas_store", "slot" },
};

/*
 * Each path's twin priced from objects without CONFIG_ARM64_CONTPTE. A path
 * without one is left out (0: PTSIM_LOOP_CHANGE_PTE_RANGE_PRESENT is a
 * contpte path, never a twin): a large anonymous folio's zap batch, the
 * contpte gathers (they exist only with contpte) and the loops priced from
 * the contpte build only (UFFDIO_MOVE, madvise, __clear_young_dirty_ptes,
 * filemap_map_folio_range). A path whose code does not depend on contpte
 * is its own twin: kernels without contpte count it as it is.
 */
static const enum ptsim_loop nocontpte_twin[PTSIM_LOOP__COUNT] = {
	[PTSIM_LOOP_CHANGE_PTE_RANGE_PRESENT] = PTSIM_LOOP_CHANGE_PTE_RANGE_PRESENT_NOCONTPTE,
	[PTSIM_LOOP_CHANGE_PTE_RANGE_PRESENT_WRITABLE] =
		PTSIM_LOOP_CHANGE_PTE_RANGE_PRESENT_WRITABLE_NOCONTPTE,
	[PTSIM_LOOP_ZAP_PTE_RANGE_NONE] = PTSIM_LOOP_ZAP_PTE_RANGE_NONE_NOCONTPTE,
	[PTSIM_LOOP_ZAP_PTE_RANGE_PRESENT_ANON] = PTSIM_LOOP_ZAP_PTE_RANGE_PRESENT_ANON_NOCONTPTE,
	[PTSIM_LOOP_ZAP_PTE_RANGE_PRESENT_FILE] = PTSIM_LOOP_ZAP_PTE_RANGE_PRESENT_FILE_NOCONTPTE,
	[PTSIM_LOOP_COPY_PTE_RANGE_NONE] = PTSIM_LOOP_COPY_PTE_RANGE_NONE_NOCONTPTE,
	[PTSIM_LOOP_COPY_PTE_RANGE_PRESENT_ANON] = PTSIM_LOOP_COPY_PTE_RANGE_PRESENT_ANON_NOCONTPTE,
	[PTSIM_LOOP_COPY_PTE_RANGE_PRESENT_ANON_BATCH] =
		PTSIM_LOOP_COPY_PTE_RANGE_PRESENT_ANON_BATCH_NOCONTPTE,
	[PTSIM_LOOP_COPY_PTE_RANGE_PRESENT_FILE] = PTSIM_LOOP_COPY_PTE_RANGE_PRESENT_FILE_NOCONTPTE,
	[PTSIM_LOOP_FOLIO_PTE_BATCH_MATCH] = PTSIM_LOOP_FOLIO_PTE_BATCH_MATCH_NOCONTPTE,
	[PTSIM_LOOP_MOVE_PTES_NONE] = PTSIM_LOOP_MOVE_PTES_NONE_NOCONTPTE,
	[PTSIM_LOOP_MOVE_PTES_PRESENT] = PTSIM_LOOP_MOVE_PTES_PRESENT_NOCONTPTE,
	[PTSIM_LOOP_MLOCK_PTE_RANGE_MLOCK] = PTSIM_LOOP_MLOCK_PTE_RANGE_MLOCK_NOCONTPTE,
	[PTSIM_LOOP_MLOCK_PTE_RANGE_MUNLOCK] = PTSIM_LOOP_MLOCK_PTE_RANGE_MUNLOCK_NOCONTPTE,
	[PTSIM_LOOP_PTEP_MODIFY_PROT_START_ENTRY] = PTSIM_LOOP_PTEP_MODIFY_PROT_START_ENTRY_NOCONTPTE,
	[PTSIM_LOOP_PTEP_MODIFY_PROT_COMMIT_ENTRY] =
		PTSIM_LOOP_PTEP_MODIFY_PROT_COMMIT_ENTRY_NOCONTPTE,
	[PTSIM_LOOP_VM_NORMAL_PAGE_NORMAL] = PTSIM_LOOP_VM_NORMAL_PAGE_NORMAL_NOCONTPTE,
	[PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_PRESENT] =
		PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_PRESENT_NOCONTPTE,
	[PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_PRESENT_WRITABLE] =
		PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_PRESENT_WRITABLE_NOCONTPTE,
	[PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_LARGE] =
		PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_LARGE_NOCONTPTE,
	[PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_LARGE_WRITABLE] =
		PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_LARGE_WRITABLE_NOCONTPTE,
	[PTSIM_LOOP_PAGE_ANON_EXCLUSIVE_SUB_BATCH_MATCH] =
		PTSIM_LOOP_PAGE_ANON_EXCLUSIVE_SUB_BATCH_MATCH_NOCONTPTE,
	[PTSIM_LOOP_MPROTECT_FOLIO_PTE_BATCH_ORDER0] =
		PTSIM_LOOP_MPROTECT_FOLIO_PTE_BATCH_ORDER0_NOCONTPTE,
	[PTSIM_LOOP_SPLIT_HUGE_PAGE_TAIL_ANON] = PTSIM_LOOP_SPLIT_HUGE_PAGE_TAIL_ANON_NOCONTPTE,
	[PTSIM_LOOP_CAN_CHANGE_PTE_WRITABLE_ANON_EXCLUSIVE] =
		PTSIM_LOOP_CAN_CHANGE_PTE_WRITABLE_ANON_EXCLUSIVE,
	[PTSIM_LOOP_IS_FOLIO_ZERO_FILLED_ZERO_WORD] = PTSIM_LOOP_IS_FOLIO_ZERO_FILLED_ZERO_WORD,
	[PTSIM_LOOP_XAS_STORE_SLOT] = PTSIM_LOOP_XAS_STORE_SLOT,
};

/*
 * A twin is a value of the table (the enum holds them in more than one run);
 * 0 marks no twin, and path 0 is never one.
 */
static bool is_nocontpte_twin(enum ptsim_loop path)
{
	if (path == 0)
		return false;
	for (unsigned int p = 0; p < PTSIM_LOOP__COUNT; p++)
		if (nocontpte_twin[p] == path)
			return true;
	return false;
}

enum ptsim_loop loop_path_nocontpte(enum ptsim_loop path)
{
	/* the table first: every turn of a kernel without contpte asks (a twin has no twin) */
	if (nocontpte_twin[path])
		return nocontpte_twin[path];
	return is_nocontpte_twin(path) ? path : PTSIM_LOOP__COUNT;
}

enum ptsim_loop loop_path_contpte(enum ptsim_loop path)
{
	if (!is_nocontpte_twin(path))
		return path;
	for (unsigned int p = 0; p < PTSIM_LOOP__COUNT; p++)
		if (nocontpte_twin[p] == path)
			return (enum ptsim_loop)p;
	return path;
}

int ptsim_loop_name(enum ptsim_loop loop, const char **function, const char **variant)
{
	VALIDATE((unsigned int)loop < PTSIM_LOOP__COUNT && function && variant);
	*function = loop_names[loop][0];
	*variant = loop_names[loop][1];
	return 0;
}
