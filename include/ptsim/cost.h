/* SPDX-License-Identifier: MIT */
#ifndef PTSIM_COST_H
#define PTSIM_COST_H

#include <stdint.h>
#include <ptsim/export.h>
#include <ptsim/machine.h>
#include <ptsim/stats.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Kernel functions the model attributes events to. Attribution is inclusive:
 * an event counts for every listed function on the simulated call stack.
 */
enum ptsim_func {
	PTSIM_FN_CHANGE_PTE_RANGE,
	PTSIM_FN_CHANGE_HUGE_PMD,
	PTSIM_FN_FOLIO_PTE_BATCH,
	PTSIM_FN_CONTPTE_CONVERT,
	PTSIM_FN_TLB_FLUSH_MMU,		/* the mmu_gather's deferred flush */
	PTSIM_FN_HANDLE_MM_FAULT,	/* anonymous faults (population) */
	PTSIM_FN_SPLIT_HUGE_PMD,
	PTSIM_FN_USER_MEMSET,		/* user code touching memory */
	PTSIM_FN_MOVE_PAGES_PTE,	/* move_pages_pte (baseline) / move_pages_ptes (batched) */
	PTSIM_FN_PTEP_CLEAR_FLUSH,
	PTSIM_FN_VM_NORMAL_FOLIO,
	PTSIM_FN_FLUSH_TLB_RANGE,	/* the batched MOVE's one flush per batch */
	PTSIM_FN_ZAP_PTE_RANGE,		/* munmap, exit, MADV_DONTNEED: one PTE table's teardown */
	PTSIM_FN_FREE_PGTABLES,
	PTSIM_FN_COPY_PTE_RANGE,	/* fork: one PTE table copied */
	PTSIM_FN_DO_WP_PAGE,		/* write faults on write-protected entries (COW) */
	PTSIM_FN__COUNT
};

/* The kernel function name of fn ("change_pte_range", ...); NULL for an unknown value. */
PTSIM_API const char *ptsim_func_name(enum ptsim_func fn);

/* Events attributed to fn by the last public operation, and since creation. */
PTSIM_API int ptsim_last_func_stats(const struct ptsim_machine *m, enum ptsim_func fn,
				    struct ptsim_stats *out);
/* The same attribution summed over every successful operation since the machine was created. */
PTSIM_API int ptsim_total_func_stats(const struct ptsim_machine *m, enum ptsim_func fn,
				     struct ptsim_stats *out);

/*
 * The kernel PTE loops whose iterations the model counts, one value per loop
 * and path through it: the loop/variant pairs of the loop prices
 * (ptsim_loop_price_get, doc/loop-prices.md). An iteration is one turn of
 * the kernel's loop (a batch of a large folio's entries is one turn). An
 * iteration whose path has no price (a swap entry, a NUMA-hinting turn, ...)
 * is counted by its events alone. Since 0.3.
 */
enum ptsim_loop {
	PTSIM_LOOP_CHANGE_PTE_RANGE_PRESENT,		/* change_pte_range, "present" */
	PTSIM_LOOP_CHANGE_PTE_RANGE_PRESENT_WRITABLE,	/* ... made writable: "present_writable" */
	PTSIM_LOOP_ZAP_PTE_RANGE_NONE,			/* zap_pte_range, "none" */
	PTSIM_LOOP_ZAP_PTE_RANGE_PRESENT_ANON,		/* ... an order-0 anonymous folio */
	PTSIM_LOOP_ZAP_PTE_RANGE_PRESENT_ANON_BATCH,	/* ... a large anonymous folio's batch */
	PTSIM_LOOP_ZAP_PTE_RANGE_PRESENT_FILE,		/* ... an order-0 file folio */
	PTSIM_LOOP_COPY_PTE_RANGE_NONE,			/* copy_pte_range, "none" */
	PTSIM_LOOP_COPY_PTE_RANGE_PRESENT_ANON,		/* ... an order-0 anonymous folio */
	PTSIM_LOOP_COPY_PTE_RANGE_PRESENT_ANON_BATCH,	/* ... a large anonymous folio's batch */
	PTSIM_LOOP_COPY_PTE_RANGE_PRESENT_FILE,		/* ... an order-0 file folio */
	PTSIM_LOOP_FOLIO_PTE_BATCH_MATCH,		/* folio_pte_batch: one more entry matches */
	PTSIM_LOOP_MOVE_PTES_NONE,			/* move_ptes, "none" */
	PTSIM_LOOP_MOVE_PTES_PRESENT,			/* ... a present entry moved */
	PTSIM_LOOP_MLOCK_PTE_RANGE_MLOCK,		/* mlock_pte_range, an order-0 folio locked */
	PTSIM_LOOP_MLOCK_PTE_RANGE_MUNLOCK,		/* ... unlocked */
	PTSIM_LOOP_CONTPTE_PTEP_GET_CLEAN,		/* contpte_ptep_get: one entry gathered */
	PTSIM_LOOP_CONTPTE_PTEP_GET_DIRTY,		/* ... a dirty one */
	/*
	 * The same paths on a kernel without contpte, priced from objects
	 * built without CONFIG_ARM64_CONTPTE ("present_nocontpte", ...): the
	 * model counts these where the feature arm64_contpte is off. A large
	 * anonymous folio's zap batch has none (doc/loop-prices.md).
	 */
	PTSIM_LOOP_CHANGE_PTE_RANGE_PRESENT_NOCONTPTE,
	PTSIM_LOOP_CHANGE_PTE_RANGE_PRESENT_WRITABLE_NOCONTPTE,
	PTSIM_LOOP_ZAP_PTE_RANGE_NONE_NOCONTPTE,
	PTSIM_LOOP_ZAP_PTE_RANGE_PRESENT_ANON_NOCONTPTE,
	PTSIM_LOOP_ZAP_PTE_RANGE_PRESENT_FILE_NOCONTPTE,
	PTSIM_LOOP_COPY_PTE_RANGE_NONE_NOCONTPTE,
	PTSIM_LOOP_COPY_PTE_RANGE_PRESENT_ANON_NOCONTPTE,
	PTSIM_LOOP_COPY_PTE_RANGE_PRESENT_ANON_BATCH_NOCONTPTE,
	PTSIM_LOOP_COPY_PTE_RANGE_PRESENT_FILE_NOCONTPTE,
	PTSIM_LOOP_FOLIO_PTE_BATCH_MATCH_NOCONTPTE,
	PTSIM_LOOP_MOVE_PTES_NONE_NOCONTPTE,
	PTSIM_LOOP_MOVE_PTES_PRESENT_NOCONTPTE,
	PTSIM_LOOP_MLOCK_PTE_RANGE_MLOCK_NOCONTPTE,
	PTSIM_LOOP_MLOCK_PTE_RANGE_MUNLOCK_NOCONTPTE,
	/*
	 * UFFDIO_MOVE's loops as v6.12 runs them (one page a call of
	 * move_pages_pte), with contpte only; the batched move of v6.18's
	 * series has no price and is counted by its events.
	 */
	PTSIM_LOOP_MOVE_PAGES_PTE,			/* move_pages, "pte": one page's turn */
	PTSIM_LOOP_MOVE_PAGES_PTE_PRESENT,		/* move_pages_pte, "present": its body */
	/* madvise's PTE walks as v6.12 runs them (order-0 folios), with contpte only */
	PTSIM_LOOP_MADVISE_COLD_YOUNG,	/* madvise_cold_or_pageout_pte_range, "cold_young" */
	PTSIM_LOOP_MADVISE_PAGEOUT,	/* madvise_cold_or_pageout_pte_range, "pageout" */
	PTSIM_LOOP_MADVISE_FREE_YOUNG_DIRTY,	/* madvise_free_pte_range, "young_dirty" */
	/* contpte_clear_young_dirty_ptes's loop: one entry, both bits (a store) or young only (a CAS) */
	PTSIM_LOOP_CLEAR_YOUNG_DIRTY_PTES_YOUNG_AND_DIRTY,	/* __clear_young_dirty_ptes */
	PTSIM_LOOP_CLEAR_YOUNG_DIRTY_PTES_YOUNG,
	/* filemap_map_folio_range, "batch": a large folio's page whose empty entry joins the batch */
	PTSIM_LOOP_FILEMAP_MAP_FOLIO_RANGE_BATCH,
	/*
	 * change_pte_range's out-of-line ptep_modify_prot_start before v6.17
	 * (arm64 mmu.c), its body once per entry outside a contpte block (an
	 * entry in one takes the unfold, counted by its events), and its twin
	 * without contpte. Since 0.3.
	 */
	PTSIM_LOOP_PTEP_MODIFY_PROT_START_ENTRY,	/* ptep_modify_prot_start, "entry" */
	PTSIM_LOOP_PTEP_MODIFY_PROT_START_ENTRY_NOCONTPTE,
	/*
	 * ptep_modify_prot_commit's body once per non-executable entry outside
	 * a contpte block whose store calls no fold (__contpte_try_fold), and
	 * its twin without contpte. Since 0.3.
	 */
	PTSIM_LOOP_PTEP_MODIFY_PROT_COMMIT_ENTRY,	/* ptep_modify_prot_commit, "entry" */
	PTSIM_LOOP_PTEP_MODIFY_PROT_COMMIT_ENTRY_NOCONTPTE,
	/*
	 * vm_normal_page's body (mm/memory.c, out of line) once per normal
	 * page it finds (not for a special entry), and its twin without
	 * contpte. Since 0.3.
	 */
	PTSIM_LOOP_VM_NORMAL_PAGE_NORMAL,		/* vm_normal_page, "normal" */
	PTSIM_LOOP_VM_NORMAL_PAGE_NORMAL_NOCONTPTE,
	/*
	 * change_pte_range as v6.17 batches it ("change_pte_range_batched",
	 * priced from a later kernel's object, doc/loop-prices.md): one turn
	 * per order-0 entry or per large folio's batch, made writable where
	 * commit_anon_folio_batch sets the write bit (a private VMA's anonymous
	 * folio), each with its twin without contpte. Since 0.3.
	 */
	PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_PRESENT,		/* "present": a batch of one */
	PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_PRESENT_NOCONTPTE,
	PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_PRESENT_WRITABLE,	/* "present_writable" */
	PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_PRESENT_WRITABLE_NOCONTPTE,
	PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_LARGE,	/* "large": a large folio's */
	PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_LARGE_NOCONTPTE,
	PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_LARGE_WRITABLE,	/* "large_writable" */
	PTSIM_LOOP_CHANGE_PTE_RANGE_BATCHED_LARGE_WRITABLE_NOCONTPTE,
	/* page_anon_exclusive_sub_batch, "match": one further page of a sub-batch. Since 0.3. */
	PTSIM_LOOP_PAGE_ANON_EXCLUSIVE_SUB_BATCH_MATCH,
	PTSIM_LOOP_PAGE_ANON_EXCLUSIVE_SUB_BATCH_MATCH_NOCONTPTE,
	/* mprotect_folio_pte_batch's body, "order0": an order-0 folio's batch of one. Since 0.3. */
	PTSIM_LOOP_MPROTECT_FOLIO_PTE_BATCH_ORDER0,
	PTSIM_LOOP_MPROTECT_FOLIO_PTE_BATCH_ORDER0_NOCONTPTE,
	/*
	 * The per-CPU LRU batch of MADV_FREE (v6.12 mm/swap.c), with contpte
	 * only: folio_mark_lazyfree's body for a folio it adds ("add"),
	 * __folio_batch_add_and_move's for a folio added to a batch it does not
	 * fill ("add"), folio_batch_move_lru's turn for each folio of a moved
	 * batch after the first ("same_lruvec": no relock), lru_lazyfree's body
	 * for each order-0 folio moved ("move"). Since 0.3.
	 */
	PTSIM_LOOP_FOLIO_MARK_LAZYFREE_ADD,
	PTSIM_LOOP_FOLIO_BATCH_ADD_AND_MOVE_ADD,
	PTSIM_LOOP_FOLIO_BATCH_MOVE_LRU_SAME_LRUVEC,
	PTSIM_LOOP_LRU_LAZYFREE_MOVE,
	/*
	 * __split_huge_page's turn for one tail of an anonymous folio split to
	 * order 0 ("tail_anon": __split_huge_page_tail inline). Since 0.3.
	 */
	PTSIM_LOOP_SPLIT_HUGE_PAGE_TAIL_ANON,
	PTSIM_LOOP_SPLIT_HUGE_PAGE_TAIL_ANON_NOCONTPTE,
	/*
	 * can_change_pte_writable's body (mm/mprotect.c, out of line) for an
	 * entry of a private VMA whose anonymous page it tests for
	 * PageAnonExclusive ("anon_exclusive"). Its code does not depend on
	 * contpte: kernels with and without it count this one path. Since 0.3.
	 */
	PTSIM_LOOP_CAN_CHANGE_PTE_WRITABLE_ANON_EXCLUSIVE,
	/*
	 * contpte_ptep_test_and_clear_young's loop (arch/arm64/mm/contpte.c,
	 * inline in contpte_ptep_clear_flush_young) for one entry of the
	 * block ("entry"): its AF cleared by a compare-and-swap. contpte
	 * only: no twin. Since 0.3.
	 */
	PTSIM_LOOP_CONTPTE_PTEP_TEST_AND_CLEAR_YOUNG_ENTRY,
	/*
	 * is_folio_zero_filled's loop (mm/page_io.c, inline in swap_writepage;
	 * v6.12, feature swap_zeromap) for one word of a page, zero
	 * ("zero_word"): a load and its test. Its code does not depend on
	 * contpte: kernels with and without it count this one path. Since 0.3.
	 */
	PTSIM_LOOP_IS_FOLIO_ZERO_FILLED_ZERO_WORD,
	/*
	 * xas_store's body (lib/xarray.c, out of line) storing an entry into
	 * an existing node's slot ("slot"), as the swap cache's add and delete
	 * do a page at a time: its xas_create and xa_update callback are calls
	 * of their own. No contpte dependence: kernels with and without it
	 * count this one path. Since 0.3.
	 */
	PTSIM_LOOP_XAS_STORE_SLOT,
	PTSIM_LOOP__COUNT
};

#define PTSIM_LOOP_CAPACITY 128

/* Iterations per loop path (enum ptsim_loop); entries from PTSIM_LOOP__COUNT on are zero. */
struct ptsim_loop_stats {
	uint64_t iter[PTSIM_LOOP_CAPACITY];
};

/*
 * The kernel function a loop path is written in and the path's name, as the
 * loop prices name them ("zap_pte_range", "present_anon"): 0, or -EINVAL for
 * an unknown value or a NULL pointer.
 */
PTSIM_API int ptsim_loop_name(enum ptsim_loop loop, const char **function, const char **variant);

/* The loop iterations of the last public operation, and since creation (as ptsim_last_stats). */
PTSIM_API int ptsim_last_loop_stats(const struct ptsim_machine *m, struct ptsim_loop_stats *out);
PTSIM_API int ptsim_total_loop_stats(const struct ptsim_machine *m, struct ptsim_loop_stats *out);

/* One profile constant: the cost of one event on one CPU and where it comes from. */
struct ptsim_cost {
	double ns;		/* nanoseconds per event */
	const char *klass;	/* the cost class the event belongs to */
	double multiplier;	/* events cost multiplier x the class constant */
	const char *source;	/* published fact, measurement, ESTIMATE, or "fitted on ROW" */
	const char *fitted_on;	/* row id the class constant was fitted on, or NULL */
	/*
	 * The class constant's relative uncertainty (0.3: +-30 %) and its
	 * reason: an ESTIMATE's range, a measurement's spread, a fit's
	 * leave-one-out spread (doc/cpu-profiles.md §12); 0 and "carried by
	 * other events" for the free class. Since 0.3, from the reserved room:
	 * the struct keeps its size.
	 */
	double uncertainty;
	union {
		const char *uncertainty_source;
		uint64_t reserved_source_;	/* keeps the layout on 32-bit targets */
	};
	/* Room for later fields (zero): the struct keeps its size across versions. */
	uint64_t reserved[2];
};

/* Cost of one event on cpu for a granule (per-byte classes scale with the page size). */
PTSIM_API int ptsim_cost_get(enum ptsim_cpu cpu, enum ptsim_granule granule, enum ptsim_event ev,
			     struct ptsim_cost *out);

/*
 * One kernel loop's price per iteration on one CPU, from the kernel's own
 * arm64 machine code (v6.12 built with clang-19): the path one iteration
 * takes through the loop, priced by llvm-mca 19 on the CPUs LLVM models and
 * by our pipeline model on the others (doc/loop-prices.md). What a pipeline
 * model cannot see (barriers, TLB maintenance, cache misses, the atomics and
 * the out-of-line calls the path makes) is not in the price. Since 0.3.
 */
struct ptsim_loop_price {
	const char *loop;	/* the kernel function the loop is written in: "zap_pte_range" */
	const char *variant;	/* the path through it: "present_anon", "none", ... */
	double cycles;		/* steady-state cycles per iteration */
	double ns;		/* the same at the CPU's clock (ptsim_cpu_info's freq_ghz) */
	unsigned int latency;	/* cycles of one iteration from an empty pipeline */
	unsigned int instructions;	/* instructions on the path */
	unsigned int uops;	/* micro-ops on the path */
	const char *model;	/* what priced it: "llvm-mca-19 -mcpu=neoverse-n1", "ptsim pipeline model ..." */
	const char *provenance;	/* kernel, object, function, source lines, compiler */
	/* Room for later fields (zero): the struct keeps its size across versions. */
	uint64_t reserved[4];
};

/*
 * The index-th loop price of cpu (0, 1, ... in a fixed order: by loop as
 * arch/arm64/hw/loop-prices.json lists them, then by variant): 0, -ENOENT
 * past the last, -EINVAL for a bad cpu or a NULL out.
 */
PTSIM_API int ptsim_loop_price_get(enum ptsim_cpu cpu, unsigned int index,
				   struct ptsim_loop_price *out);

/*
 * A prediction that composes the loop prices with the events (DESIGN §1.9,
 * doc/overlap.md): each priced loop path costs its price per turn times the
 * turns the model counted, and the events its instructions hold drop out;
 * serialising work (DSB, ISB, TLBI, exceptions) adds in series; data-cache
 * misses beyond the L1 overlap up to what the reorder window holds; every
 * other event keeps its own price, in series. Since 0.3.
 */
struct ptsim_overlap_prediction {
	double total_ns;	/* loop_ns + serial_ns + miss_ns + rest_ns */
	double loop_ns;		/* the priced loop paths: price x turns */
	double serial_ns;	/* DSB, ISB, TLBI, exception entry: in series */
	double miss_ns;		/* misses beyond the L1 after their overlap */
	double rest_ns;		/* the other events at their own prices (calls, atomics, ...) */
	double overlap;		/* the misses' overlap factor used (1: in series) */
	/* each event's part of serial_ns + miss_ns + rest_ns, after the loop paths took theirs */
	double event_ns[PTSIM_EV_CAPACITY];
	/* each loop path's part of loop_ns */
	double loop_path_ns[PTSIM_LOOP_CAPACITY];
	/* Room for later fields (zero): the struct keeps its size across versions. */
	uint64_t reserved[8];
};

/*
 * The composed prediction of a set of counts and the loop turns behind them
 * on cpu (ptsim_last_loop_stats or a difference of ptsim_total_loop_stats):
 * 0, or -EINVAL for a NULL pointer or a bad cpu or granule. Turns of a path
 * with more turns than the counts hold of a covered event take only what
 * the counts hold. A call whose kernel function's body is priced
 * (doc/overlap.md, Calls priced by their bodies: folio_move_anon_rmap's
 * rmap_move events) costs that price, turns or not. loops all zero: the
 * same events as ptsim_predict, those calls aside, with the misses in series.
 */
PTSIM_API int ptsim_predict_overlap(enum ptsim_cpu cpu, enum ptsim_granule granule,
				    const struct ptsim_stats *stats,
				    const struct ptsim_loop_stats *loops,
				    struct ptsim_overlap_prediction *out);

struct ptsim_prediction {
	double total_ns;
	double event_ns[PTSIM_EV_CAPACITY];	/* from PTSIM_EV__COUNT on: 0 */
};

/* Predicted time of a set of counts on cpu: counts x profile. */
PTSIM_API int ptsim_predict(enum ptsim_cpu cpu, enum ptsim_granule granule,
			    const struct ptsim_stats *stats, struct ptsim_prediction *out);

/*
 * ptsim_predict on the CPU profile and granule m was created with: the usual
 * call after ptsim_last_stats(m, ...) or ptsim_stats_diff of its totals.
 * -EINVAL for a NULL argument.
 */
PTSIM_API int ptsim_machine_predict(const struct ptsim_machine *m, const struct ptsim_stats *stats,
				    struct ptsim_prediction *out);

#ifdef __cplusplus
}
#endif

#endif
