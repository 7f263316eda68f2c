/* SPDX-License-Identifier: MIT */
#ifndef PTSIM_KERNEL_H
#define PTSIM_KERNEL_H

#include <stdbool.h>
#include <stdint.h>
#include <ptsim/export.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ptsim_machine;
struct ptsim_mm;

/* A memblock "memory" range (physical). */
struct ptsim_mem_range {
	uint64_t start;
	uint64_t size;
};

enum ptsim_rodata {
	PTSIM_RODATA_ON,	/* default since v6.18 (the old "full") */
	PTSIM_RODATA_NOALIAS,
	PTSIM_RODATA_OFF,
};

struct ptsim_kernel_config {
	const struct ptsim_mem_range *ranges;	/* sorted, non-overlapping, page aligned */
	unsigned int nr_ranges;
	uint64_t kernel_start, kernel_end;	/* physical [_text, __init_begin); 0, 0: none */
	uint64_t kfence_pool;			/* physical early KFENCE pool, 0: none */
	enum ptsim_rodata rodata;
	bool debug_pagealloc;
	bool kfence_late;			/* CONFIG_KFENCE, pool not initialised early */
	bool secondary_lacks_bbml2;		/* an early secondary CPU is not BBML2-noabort */
	/* Room for later fields: must be zero. */
	uint64_t reserved[4];
};

/*
 * Boot: paint the kernel linear map (map_mem / __create_pgd_mapping) into a
 * new kernel mm of m, as the boot CPU sees the system. Boot table pages are
 * memblock pages (outside MemTotal). The kernel mm is destroyed with m.
 */
PTSIM_API int ptsim_kernel_boot(struct ptsim_machine *m, const struct ptsim_kernel_config *cfg,
				struct ptsim_mm **kmm);

/*
 * setup_system_features: finalise the capabilities (BBML2-noabort becomes
 * system-wide only if no early CPU lacks it) and, when the linear map needed
 * BBML2 but the system does not have it, repaint it to PTEs
 * (linear_map_split_to_ptes). -ENOMEM where the kernel would panic.
 */
PTSIM_API int ptsim_kernel_finalize_caps(struct ptsim_mm *kmm);

/* The linear-map virtual address of a physical address. */
PTSIM_API int ptsim_kernel_lm_addr(const struct ptsim_mm *kmm, uint64_t pa, uint64_t *va);

/* split_kernel_leaf_mapping(start, end): make both addresses leaf boundaries. */
PTSIM_API int ptsim_split_kernel_leaf_mapping(struct ptsim_mm *kmm, uint64_t start, uint64_t end);

enum ptsim_set_memory_op {
	PTSIM_SET_MEMORY_RO,
	PTSIM_SET_MEMORY_RW,
	PTSIM_SET_MEMORY_NX,
	PTSIM_SET_MEMORY_X,
	PTSIM_SET_MEMORY_VALID,
	PTSIM_SET_MEMORY_INVALID,
};

/*
 * __change_memory_common on linear-map addresses (what set_memory_ro/rw/nx/x
 * do to each linear-alias page, and set_memory_valid): update_range_prot,
 * then flush_tlb_kernel_range unless only making pages valid. vmalloc areas
 * are not modelled.
 */
PTSIM_API int ptsim_set_memory(struct ptsim_mm *kmm, uint64_t addr, uint64_t numpages,
			       enum ptsim_set_memory_op op);

enum ptsim_direct_map_op {
	PTSIM_DIRECT_MAP_INVALID,	/* set_direct_map_invalid_noflush */
	PTSIM_DIRECT_MAP_DEFAULT,	/* set_direct_map_default_noflush */
};

/* set_direct_map_*_noflush for one page: no TLB flush; 0 unless can_set_direct_map(). */
PTSIM_API int ptsim_set_direct_map(struct ptsim_mm *kmm, uint64_t addr, enum ptsim_direct_map_op op);

/*
 * Page-table bytes of the kernel map: boot (memblock, outside MemTotal) and
 * later (buddy). swapper_pg_dir is part of the kernel image and in neither.
 */
PTSIM_API int ptsim_kernel_pgtable_bytes(const struct ptsim_mm *kmm, uint64_t *boot, uint64_t *late);

/* The decision helpers, as the kernel would answer now. */
/* false for NULL or a user mm. */
PTSIM_API bool ptsim_kernel_force_pte_mapping(const struct ptsim_mm *kmm);
PTSIM_API bool ptsim_kernel_can_set_direct_map(const struct ptsim_mm *kmm);
PTSIM_API bool ptsim_kernel_linear_map_requires_bbml2(const struct ptsim_mm *kmm);

#ifdef __cplusplus
}
#endif

#endif
