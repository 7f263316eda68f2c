// SPDX-License-Identifier: MIT
/*
 * The kernel linear map (models arch/arm64/mm/mmu.c, v6.18 with the block
 * mapping and repaint series; doc/linear-map.md): painting
 * by map_mem / __create_pgd_mapping, the decision helpers, the
 * split_kernel_leaf_mapping primitive and linear_map_split_to_ptes.
 */
#include "asm/pgtable.h"
#include "asm/tlbflush.h"
#include "asm/kernel_map.h"
#include "primitives.h"

#include <stdlib.h>
#include <string.h>

#define NO_BLOCK_MAPPINGS	0x1u
#define NO_CONT_MAPPINGS	0x2u
#define NO_EXEC_MAPPINGS	0x4u

void kernel_map_free(struct kernel_map *k)
{
	if (k)
		free(k->ranges);
	free(k);
}

struct kernel_map *kernel_map_copy(const struct kernel_map *k)
{
	struct kernel_map *c = malloc(sizeof(*c));

	if (!c)
		return NULL;
	*c = *k;
	c->ranges = malloc(k->nr_ranges * sizeof(*c->ranges));
	if (!c->ranges) {
		free(c);
		return NULL;
	}
	memcpy(c->ranges, k->ranges, k->nr_ranges * sizeof(*c->ranges));
	return c;
}

/* system_supports_bbml2_noabort(): false until the caps are finalised. */
/*
 * Whether ptep_modify_prot_start's priced body is the path one entry takes:
 * outside a contpte block (an entry in one takes the unfold, counted by its
 * events).
 */
static bool prot_start_priced(const struct ptsim_mm *mm, const pte_t *ptep)
{
	return !config_arm64_contpte(mm->m) || !pte_valid_cont(*ptep);
}

/*
 * Whether ptep_modify_prot_commit's priced body is the path storing pte at
 * ptep takes: a non-executable entry (no __sync_icache_dcache) outside a
 * contpte block whose store calls no __contpte_try_fold.
 */
static bool prot_commit_priced(const struct ptsim_mm *mm, uint64_t addr, const pte_t *ptep,
			       pte_t pte)
{
	const struct ptsim_machine *m = mm->m;

	if (pte_user_exec(pte))
		return false;
	if (!config_arm64_contpte(m))
		return true;
	return !pte_valid_cont(*ptep) &&
	       !(feature(m, PTSIM_FEAT_CONTPTE_AUTOFOLD) &&
		 contpte_try_fold_calls(&m->geo, addr, pte_mknoncont(pte)));
}

/*
 * ptep_modify_prot_start (v6.12 arch/arm64/mm/mmu.c): erratum 2645198's
 * break-before-make is patched out on every modelled CPU, so it is
 * ptep_get_and_clear.
 */
pte_t ptep_modify_prot_start(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep)
{
	kernel_call(mm->m, PTEP_MODIFY_PROT_START);
	if (prot_start_priced(mm, ptep))
		count_loop_path(mm->m, PTSIM_LOOP_PTEP_MODIFY_PROT_START_ENTRY);
	return ptep_get_and_clear(mm, addr, ptep);
}

/* ptep_modify_prot_commit (v6.12 arch/arm64/mm/mmu.c): set_pte_at */
void ptep_modify_prot_commit(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, pte_t pte)
{
	kernel_call(mm->m, PTEP_MODIFY_PROT_COMMIT);
	if (prot_commit_priced(mm, addr, ptep, pte))
		count_loop_path(mm->m, PTSIM_LOOP_PTEP_MODIFY_PROT_COMMIT_ENTRY);
	set_ptes(mm, addr, ptep, pte, 1);
}

/*
 * modify_prot_start_ptes (v6.17 arch/arm64/mm/mmu.c): get_and_clear_ptes of
 * nr entries. Its own body is not priced yet (the later kernel's mmu.o is
 * built, doc/loop-prices.md); for one entry it runs what v6.12's
 * ptep_modify_prot_start runs (ptep_get_and_clear), so that turn is priced
 * as its body. A batch of more is counted by its events.
 */
pte_t modify_prot_start_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, unsigned int nr)
{
	kernel_call(mm->m, MODIFY_PROT_START_PTES);
	if (nr == 1 && prot_start_priced(mm, ptep))
		count_loop_path(mm->m, PTSIM_LOOP_PTEP_MODIFY_PROT_START_ENTRY);
	return get_and_clear_full_ptes(mm, addr, ptep, nr, 0);
}

/*
 * modify_prot_commit_ptes (v6.17 arch/arm64/mm/mmu.c): set_ptes of nr
 * entries; one entry is priced as v6.12's ptep_modify_prot_commit body (the
 * same set_pte_at), a batch of more by its events.
 */
void modify_prot_commit_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, pte_t pte,
			     unsigned int nr)
{
	kernel_call(mm->m, MODIFY_PROT_COMMIT_PTES);
	if (nr == 1 && prot_commit_priced(mm, addr, ptep, pte))
		count_loop_path(mm->m, PTSIM_LOOP_PTEP_MODIFY_PROT_COMMIT_ENTRY);
	set_ptes(mm, addr, ptep, pte, nr);
}

static bool system_supports_bbml2_noabort(const struct kernel_map *k)
{
	return k->caps_finalized && k->system_bbml2;
}

/* force_pte_mapping(): boot CPU's view before finalisation, the system's after. */
bool force_pte_mapping(const struct ptsim_mm *kmm)
{
	const struct kernel_map *k = kmm->kmap;
	bool bbml2 = k->caps_finalized ? k->system_bbml2 : k->boot_bbml2;

	if (k->debug_pagealloc)
		return true;
	if (bbml2 && feature(kmm->m, PTSIM_FEAT_LINEAR_MAP_BLOCKS))
		return false;
	return k->rodata_full || k->kfence_late;
}

/* can_set_direct_map() (pageattr.c); realm guests are not modelled. */
bool can_set_direct_map(const struct ptsim_mm *kmm)
{
	const struct kernel_map *k = kmm->kmap;

	return k->rodata_full || k->debug_pagealloc || k->kfence_late;
}

uint64_t kfence_pool_size(const struct ptsim_geometry *g)
{
	/* (CONFIG_KFENCE_NUM_OBJECTS + 1) * 2 pages, 255 objects by default */
	return UINT64_C(256) * 2 * g->page_size;
}

bool is_kfence_address(const struct kernel_map *k, uint64_t va)
{
	return k->kfence_va && va >= k->kfence_va && va < k->kfence_va + k->kfence_size;
}

/* lazy-MMU barrier batching: queued barriers become one DSB ISHST + ISB at leave. */
static void queue_pte_barriers(struct ptsim_mm *kmm)
{
	if (kmm->kmap->lazy) {
		kmm->kmap->pending_barrier = true;
		return;
	}
	dsb_ishst(kmm->m);
	isb(kmm->m);
}

void kernel_lazy_enter(struct ptsim_mm *kmm)
{
	arch_enter_lazy_mmu_mode(kmm->m);
	kmm->kmap->lazy = true;
}

void kernel_lazy_leave(struct ptsim_mm *kmm)
{
	kmm->kmap->lazy = false;
	if (kmm->kmap->pending_barrier) {
		kmm->kmap->pending_barrier = false;
		dsb_ishst(kmm->m);
		isb(kmm->m);
	}
}

/* set_pmd / set_pud / __set_pte for kernel entries: a store, then the queued barriers. */
void kernel_set_desc(struct ptsim_mm *kmm, uint64_t va, int level, pte_t *p, pte_t val)
{
	set_desc(kmm, va, level, p, val);
	if (pte_valid(val))
		queue_pte_barriers(kmm);
}

static pte_t table_desc(const struct ptsim_geometry *g, uint64_t pfn, bool pxn)
{
	return pfn_pte(g, pfn, PMD_TYPE_TABLE | PMD_TABLE_UXN | PMD_TABLE_AF |
			       (pxn ? PMD_TABLE_PXN : 0));
}

/*
 * The CONT rule of alloc_init_cont_pte / alloc_init_cont_pmd: the step is cut
 * at group boundaries, and a piece gets CONT when its start, its end and its
 * PA are all group aligned.
 */
static bool cont_piece(uint64_t va, uint64_t call_start, uint64_t end, uint64_t pa, uint64_t size)
{
	uint64_t cs = MAX(ALIGN_DOWN64(va, size), call_start);
	uint64_t ce = MIN(ALIGN_DOWN64(va, size) + size, end);
	uint64_t cpa = pa - (va - cs);

	return ((cs | ce | cpa) & (size - 1)) == 0;
}

/*
 * __create_pgd_mapping, one level: a block where the level allows it and VA,
 * step end and PA are aligned; otherwise a table (allocated when the entry is
 * empty) and the next level.
 */
static int create_mapping_level(struct ptsim_mm *kmm, struct pt_table *t, uint64_t va, uint64_t end,
				uint64_t pa, pte_t prot, unsigned int flags)
{
	const struct ptsim_geometry *g = &kmm->m->geo;
	int level = t->level;
	uint64_t size = pt_level_size(g, level), call_start = va;

	while (va < end) {
		uint64_t next = MIN(ALIGN_DOWN64(va, size) + size, end);
		unsigned int idx = pt_index(g, level, va);
		bool cont = false;
		int err;

		if (level >= PMD_LEVEL && !(flags & NO_CONT_MAPPINGS))
			cont = cont_piece(va, call_start, end, pa,
					  level == PTE_LEVEL ? g->cont_pte_size : g->cont_pmd_size);
		if (level == PTE_LEVEL) {
			pte_t pte = pfn_pte(g, pa >> g->page_shift, prot);
			unsigned int nr = 1;

			/*
			 * init_pte: __set_pte_nosync, the fixmap clear supplies the
			 * barrier; the entries of one CONT state in a row, as one run
			 */
			while (va + nr * size < end && idx + nr < t->entries &&
			       (flags & NO_CONT_MAPPINGS ? false :
				cont_piece(va + nr * size, call_start, end, pa + nr * size,
					   g->cont_pte_size)) == cont)
				nr++;
			set_desc_pte_run(kmm, va, &t->desc[idx], cont ? pte_mkcont(pte) : pte, nr);
			next = va + nr * size;
		} else if (g->level_block[level_slot(level)] && !(flags & NO_BLOCK_MAPPINGS) &&
			   ((va | next | pa) & (size - 1)) == 0 && !t->next[idx]) {
			pte_t blk = pte_to_pmd_leaf(pfn_pte(g, pa >> g->page_shift, prot));

			kernel_set_desc(kmm, va, level, &t->desc[idx], cont ? pte_mkcont(blk) : blk);
		} else {
			if (!t->next[idx]) {
				struct pt_table *child;

				err = pt_table_alloc(kmm, level + 1, &child);
				if (err)
					return err;
				t->next[idx] = child;
				kernel_set_desc(kmm, va, level, &t->desc[idx],
						table_desc(g, child->pfn, flags & NO_EXEC_MAPPINGS));
			}
			err = create_mapping_level(kmm, t->next[idx], va, next, pa, prot, flags);
			if (err)
				return err;
		}
		pa += next - va;
		va = next;
	}
	return 0;
}

static int __create_pgd_mapping(struct ptsim_mm *kmm, uint64_t pa, uint64_t va, uint64_t size,
				pte_t prot, unsigned int flags)
{
	return create_mapping_level(kmm, kmm->pgd, va, va + size, pa, prot, flags);
}

/* The phys/virt offset alignment (ARM64_MEMSTART_ALIGN, approximately). */
static uint64_t memstart_align(const struct ptsim_geometry *g)
{
	if (g->page_shift == 12)
		return g->pud_size;
	return g->page_shift == 14 ? g->cont_pmd_size : g->pmd_size;
}

static uint64_t lm_addr(const struct kernel_map *k, uint64_t pa)
{
	return k->page_offset + (pa - k->phys_offset);
}

/* Map [pa, pa+size) minus the NOMAP carve-outs (kernel alias, early KFENCE pool). */
static int map_without(struct ptsim_mm *kmm, uint64_t pa, uint64_t end, uint64_t hole0,
		       uint64_t hole0_end, uint64_t hole1, uint64_t hole1_end, unsigned int flags)
{
	while (pa < end) {
		uint64_t stop = end, resume = end;
		int err;

		if (hole0 < hole0_end && hole0_end > pa && hole0 < stop)
			stop = MAX(hole0, pa), resume = hole0_end;
		if (hole1 < hole1_end && hole1_end > pa && hole1 < stop)
			stop = MAX(hole1, pa), resume = hole1_end;
		if (stop > pa) {
			err = __create_pgd_mapping(kmm, pa, lm_addr(kmm->kmap, pa), stop - pa, PAGE_KERNEL,
						   flags);
			if (err)
				return err;
		}
		pa = MAX(resume, stop);
	}
	return 0;
}

/* map_mem: memory ranges, then the kernel alias (blocks, no CONT), then the KFENCE pool (PTEs). */
static int map_mem(struct ptsim_mm *kmm, const struct ptsim_kernel_config *cfg)
{
	struct kernel_map *k = kmm->kmap;
	const struct ptsim_geometry *g = &kmm->m->geo;
	uint64_t kfence_end = cfg->kfence_pool ? cfg->kfence_pool + kfence_pool_size(g) : 0;
	unsigned int flags = NO_EXEC_MAPPINGS;
	int err = 0;

	k->requires_bbml2 = !force_pte_mapping(kmm) && can_set_direct_map(kmm);
	if (force_pte_mapping(kmm))
		flags |= NO_BLOCK_MAPPINGS | NO_CONT_MAPPINGS;
	for (unsigned int i = 0; !err && i < k->nr_ranges; i++)
		err = map_without(kmm, k->ranges[i].start, k->ranges[i].start + k->ranges[i].size,
				  cfg->kernel_start, cfg->kernel_end, cfg->kfence_pool, kfence_end, flags);
	if (!err && cfg->kernel_end > cfg->kernel_start)
		err = __create_pgd_mapping(kmm, cfg->kernel_start, lm_addr(k, cfg->kernel_start),
					   cfg->kernel_end - cfg->kernel_start, PAGE_KERNEL,
					   NO_CONT_MAPPINGS);
	if (!err && cfg->kfence_pool)
		err = __create_pgd_mapping(kmm, cfg->kfence_pool, lm_addr(k, cfg->kfence_pool),
					   kfence_pool_size(g), PAGE_KERNEL,
					   NO_BLOCK_MAPPINGS | NO_CONT_MAPPINGS);
	return err;
}

static bool in_memory(const struct ptsim_kernel_config *cfg, uint64_t pa, uint64_t end)
{
	for (unsigned int i = 0; i < cfg->nr_ranges; i++)
		if (pa >= cfg->ranges[i].start && end <= cfg->ranges[i].start + cfg->ranges[i].size)
			return true;
	return false;
}

static int validate_config(const struct ptsim_machine *m, const struct ptsim_kernel_config *cfg)
{
	const struct ptsim_geometry *g = &m->geo;
	uint64_t prev_end = 0;

	VALIDATE(cfg->ranges && cfg->nr_ranges && cfg->nr_ranges <= 4096);
	for (size_t i = 0; i < sizeof(cfg->reserved) / sizeof(cfg->reserved[0]); i++)
		VALIDATE(!cfg->reserved[i]);	/* room for later fields */
	VALIDATE((unsigned int)cfg->rodata <= PTSIM_RODATA_OFF);
	for (unsigned int i = 0; i < cfg->nr_ranges; i++) {
		const struct ptsim_mem_range *r = &cfg->ranges[i];

		VALIDATE(r->size && IS_ALIGNED64(r->start | r->size, g->page_size));
		VALIDATE(r->start >= prev_end && r->start >= m->cfg.phys_base &&
			 r->start + r->size > r->start &&
			 r->start + r->size <= m->cfg.phys_base + m->cfg.phys_size);
		prev_end = r->start + r->size;
	}
	VALIDATE(prev_end - ALIGN_DOWN64(cfg->ranges[0].start, memstart_align(g)) <=
		 (UINT64_C(1) << (g->va_bits - 1)));
	VALIDATE(IS_ALIGNED64(cfg->kernel_start | cfg->kernel_end, g->page_size));
	VALIDATE(cfg->kernel_end >= cfg->kernel_start);
	VALIDATE(cfg->kernel_end == cfg->kernel_start ||
		 in_memory(cfg, cfg->kernel_start, cfg->kernel_end));
	VALIDATE(IS_ALIGNED64(cfg->kfence_pool, g->page_size));
	VALIDATE(!cfg->kfence_pool || (!cfg->kfence_late &&
		 in_memory(cfg, cfg->kfence_pool, cfg->kfence_pool + kfence_pool_size(g))));
	return 0;
}

int ptsim_kernel_boot(struct ptsim_machine *m, const struct ptsim_kernel_config *cfg,
		      struct ptsim_mm **out)
{
	const struct ptsim_geometry *g;
	struct kernel_map *k;
	struct ptsim_mm *kmm;
	int err;

	VALIDATE(m && cfg && out);
	REFUSE_IN_HANDLER(m);
	g = &m->geo;
	err = validate_config(m, cfg);
	if (err)
		return err;
	for (size_t i = 0; i < m->nr_mms; i++)
		VALIDATE(!m->mms[i]->kernel);	/* one kernel per machine */
	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	k->ranges = malloc(cfg->nr_ranges * sizeof(*k->ranges));
	if (!k->ranges) {
		free(k);
		return -ENOMEM;
	}
	memcpy(k->ranges, cfg->ranges, cfg->nr_ranges * sizeof(*k->ranges));
	k->nr_ranges = cfg->nr_ranges;
	k->page_offset = ~((UINT64_C(1) << g->va_bits) - 1);
	k->page_end = k->page_offset + (UINT64_C(1) << (g->va_bits - 1));
	k->phys_offset = ALIGN_DOWN64(cfg->ranges[0].start, memstart_align(g));
	k->rodata_full = cfg->rodata == PTSIM_RODATA_ON;
	k->debug_pagealloc = cfg->debug_pagealloc;
	k->kfence_late = cfg->kfence_late;
	k->boot_bbml2 = m->cpu->bbml2_noabort;
	k->system_bbml2 = k->boot_bbml2 && !cfg->secondary_lacks_bbml2;
	if (cfg->kernel_end > cfg->kernel_start) {
		k->kernel_va = lm_addr(k, cfg->kernel_start);
		k->kernel_va_end = lm_addr(k, cfg->kernel_end);
	}
	if (cfg->kfence_pool) {
		k->kfence_va = lm_addr(k, cfg->kfence_pool);
		k->kfence_size = kfence_pool_size(g);
	}
	/* one operation: a failed boot leaves nothing, not even its counts, in the totals */
	op_begin(m);
	err = ptsim_mm_create(m, &kmm);
	if (err) {
		op_end(m, err);
		kernel_map_free(k);
		return err;
	}
	kmm->kernel = true;
	kmm->asid = 0;
	kmm->kmap = k;
	/* the PGD is swapper_pg_dir, part of the kernel image: counted in neither */
	kmm->booting = true;
	err = map_mem(kmm, cfg);
	kmm->booting = false;
	if (err)
		mm_destroy(kmm);	/* early_pgtable_alloc would panic */
	op_end(m, err);
	if (!err)
		*out = kmm;
	return err;
}

int ptsim_kernel_lm_addr(const struct ptsim_mm *kmm, uint64_t pa, uint64_t *va)
{
	const struct kernel_map *k;

	VALIDATE(kmm && kmm->kmap && va);
	k = kmm->kmap;
	VALIDATE(pa >= k->phys_offset && pa - k->phys_offset < k->page_end - k->page_offset);
	*va = lm_addr(k, pa);
	return 0;
}

int ptsim_kernel_pgtable_bytes(const struct ptsim_mm *kmm, uint64_t *boot, uint64_t *late)
{
	VALIDATE(kmm && kmm->kmap && boot && late);
	*boot = kmm->boot_pgtable_bytes;
	*late = kmm->pgtable_bytes - kmm->boot_pgtable_bytes - kmm->pgd->entries * sizeof(pte_t);
	return 0;
}

bool ptsim_kernel_force_pte_mapping(const struct ptsim_mm *kmm)
{
	return kmm && kmm->kmap && force_pte_mapping(kmm);
}

bool ptsim_kernel_can_set_direct_map(const struct ptsim_mm *kmm)
{
	return kmm && kmm->kmap && can_set_direct_map(kmm);
}

bool ptsim_kernel_linear_map_requires_bbml2(const struct ptsim_mm *kmm)
{
	return kmm && kmm->kmap && kmm->kmap->requires_bbml2;
}

/*
 * split_pud / split_pmd: a complete table of next-level leaves with the
 * block's attributes (CONT where to_cont), an explicit DSB ISHST, then one
 * write publishing the table. No intermediate invalid state, no TLBI.
 */
static int split_block(struct ptsim_mm *kmm, struct pt_table *t, unsigned int idx, uint64_t base,
		       bool to_cont)
{
	const struct ptsim_geometry *g = &kmm->m->geo;
	int level = t->level;
	pte_t blk = read_desc(kmm, level, &t->desc[idx]);
	uint64_t child_size = pt_level_size(g, level + 1), pa = pte_pfn(g, blk) << g->page_shift;
	pte_t prot = pte_pgprot(g, pte_mknoncont(blk));
	struct pt_table *child;
	int err = pt_table_alloc(kmm, level + 1, &child);

	if (err)
		return err;
	if (level + 1 == PTE_LEVEL)
		prot = pmd_leaf_to_pte(prot);
	if (to_cont)
		prot = pte_mkcont(prot);
	/*
	 * the child is not linked yet: no walker sees these writes. Under lazy
	 * MMU mode (both callers) each entry's queued barrier only sets the
	 * pending flag, so the entries are stored as one run, then queued once.
	 */
	if (kmm->kmap->lazy) {
		pte_t d = pfn_pte(g, pa >> g->page_shift, prot);

		set_descs_unlinked(kmm, base, level + 1, child->desc, d, child_size, child->entries);
		if (pte_valid(d))
			queue_pte_barriers(kmm);
	} else {
		for (unsigned int i = 0; i < child->entries; i++) {
			pte_t d = pfn_pte(g, (pa + i * child_size) >> g->page_shift, prot);

			set_desc_unlinked(kmm, base + i * child_size, level + 1, &child->desc[i], d);
			if (pte_valid(d))
				queue_pte_barriers(kmm);
		}
	}
	dsb_ishst(kmm->m);	/* entries visible before the pointer; never deferred */
	t->next[idx] = child;
	kernel_set_desc(kmm, base, level, &t->desc[idx], table_desc(g, child->pfn, blk & PTE_PXN));
	return 0;
}

/* split_contpmd / split_contpte: rewrite the group with CONT cleared. */
static void split_cont(struct ptsim_mm *kmm, struct pt_table *t, unsigned int idx, uint64_t va)
{
	const struct ptsim_geometry *g = &kmm->m->geo;
	unsigned int n = t->level == PTE_LEVEL ? g->cont_ptes : g->cont_pmds;
	unsigned int first = idx & ~(n - 1);
	uint64_t size = pt_level_size(g, t->level);
	uint64_t base = ALIGN_DOWN64(va, size * n);

	for (unsigned int i = 0; i < n; i++)
		kernel_set_desc(kmm, base + i * size, t->level, &t->desc[first + i],
				pte_mknoncont(t->desc[first + i]));
}

/* split_kernel_leaf_mapping_locked: make addr a leaf boundary, top-down. */
static int split_kernel_leaf_mapping_locked(struct ptsim_mm *kmm, uint64_t addr)
{
	const struct ptsim_geometry *g = &kmm->m->geo;
	struct pt_table *t = kmm->pgd;
	int err;

	for (int level = g->start_level; level <= PTE_LEVEL; level++) {
		uint64_t align = level == PTE_LEVEL ? g->cont_pte_size :
				 level == PMD_LEVEL ? g->cont_pmd_size : pt_level_size(g, level);
		unsigned int idx = pt_index(g, level, addr);
		pte_t d;

		if (IS_ALIGNED64(addr, align))
			return 0;
		d = read_desc(kmm, level, &t->desc[idx]);
		if (!pte_present(d))
			return 0;
		if (level < PTE_LEVEL && !t->next[idx]) {	/* a leaf */
			if (level == PMD_LEVEL && pte_cont(d))
				split_cont(kmm, t, idx, addr);
			if (level == PMD_LEVEL && IS_ALIGNED64(addr, g->pmd_size))
				return 0;
			err = split_block(kmm, t, idx, ALIGN_DOWN64(addr, pt_level_size(g, level)), true);
			if (err)
				return err;
		}
		if (level == PTE_LEVEL) {
			if (pte_cont(d))
				split_cont(kmm, t, idx, addr);
			return 0;
		}
		t = t->next[idx];
	}
	return 0;
}

/* split_kernel_leaf_mapping(start, end) with its entry checks. */
int split_kernel_leaf_mapping(struct ptsim_mm *kmm, uint64_t start, uint64_t end)
{
	const struct ptsim_geometry *g = &kmm->m->geo;
	struct kernel_map *k = kmm->kmap;
	int ret;

	if (!feature(kmm->m, PTSIM_FEAT_LINEAR_MAP_BLOCKS) || !system_supports_bbml2_noabort(k))
		return 0;
	if (force_pte_mapping(kmm) || is_kfence_address(k, start))
		return 0;
	if (!IS_ALIGNED64(start | end, g->page_size))
		return -EINVAL;
	mutex_lock(kmm->m);	/* pgtable_split_lock */
	kernel_lazy_enter(kmm);
	if (end - start == g->page_size) {
		/* one split, at the less aligned end */
		uint64_t addr = __builtin_ctzll(start) < __builtin_ctzll(end) ? start : end;

		ret = split_kernel_leaf_mapping_locked(kmm, addr);
	} else {
		ret = split_kernel_leaf_mapping_locked(kmm, start);
		if (!ret)
			ret = split_kernel_leaf_mapping_locked(kmm, end);
	}
	kernel_lazy_leave(kmm);
	return ret;
}

int ptsim_split_kernel_leaf_mapping(struct ptsim_mm *kmm, uint64_t start, uint64_t end)
{
	int ret;

	VALIDATE(kmm && kmm->kmap && end > start);
	REFUSE_IN_HANDLER(kmm->m);
	VALIDATE(start >= kmm->kmap->page_offset && end <= kmm->kmap->page_end);
	op_begin(kmm->m);
	ret = split_kernel_leaf_mapping(kmm, start, end);
	op_end(kmm->m, 0);	/* -ENOMEM leaves the kernel's partial split: its counts stay */
	return ret;
}

/* range_split_to_ptes: every leaf of [start, end) down to plain PTEs (to_cont = false). */
static int split_to_ptes(struct ptsim_mm *kmm, struct pt_table *t, uint64_t base, uint64_t start,
			 uint64_t end)
{
	const struct ptsim_geometry *g = &kmm->m->geo;
	uint64_t size = pt_level_size(g, t->level);

	for (unsigned int i = 0; i < t->entries; i++) {
		uint64_t va = base + i * size;
		pte_t d;
		int err;

		if (va + size <= start || va >= end)
			continue;
		d = read_desc(kmm, t->level, &t->desc[i]);
		if (!pte_present(d))
			continue;
		if (t->level == PTE_LEVEL) {
			if (pte_cont(d))
				split_cont(kmm, t, i, va);
			continue;
		}
		if (!t->next[i]) {
			if (t->level == PMD_LEVEL && pte_cont(d))
				split_cont(kmm, t, i, va);
			err = split_block(kmm, t, i, va, false);
			if (err)
				return err;
			if (t->level == PMD_LEVEL)
				continue;	/* ACTION_CONTINUE: the fresh PTEs are not visited */
		}
		err = split_to_ptes(kmm, t->next[i], va, start, end);
		if (err)
			return err;
	}
	return 0;
}

static int range_split_to_ptes(struct ptsim_mm *kmm, uint64_t start, uint64_t end)
{
	int err;

	if (start >= end)
		return 0;
	kernel_lazy_enter(kmm);
	/* the TTBR1 half starts at -(1 << va_bits): entry 0 of the PGD */
	err = split_to_ptes(kmm, kmm->pgd, kmm->kmap->page_offset, start, end);
	kernel_lazy_leave(kmm);
	return err;
}

/*
 * linear_map_split_to_ptes under stop_machine: the secondaries park on the
 * idmap with a reserved TTBR1 and a local TLBI VMALLE1; CPU 0 splits
 * everything but the kernel alias, then one flush of the whole linear map.
 */
static int linear_map_split_to_ptes(struct ptsim_mm *kmm)
{
	struct kernel_map *k = kmm->kmap;
	uint64_t kstart = k->kernel_va ? k->kernel_va : k->page_end;
	uint64_t kend = k->kernel_va ? k->kernel_va_end : k->page_end;
	int err;

	local_flush_tlb_all(kmm->m, kmm->m->cfg.nr_cpus - 1);
	err = range_split_to_ptes(kmm, k->page_offset, kstart);
	if (!err)
		err = range_split_to_ptes(kmm, kend, k->page_end);
	if (err) {
		diag_report(kmm->m, PTSIM_DIAG_WARN, 0, -1, 0, 0, "Failed to split linear map (panic)");
		return err;
	}
	flush_tlb_kernel_range(kmm->m, k->page_offset, k->page_end);
	return 0;
}

int ptsim_kernel_finalize_caps(struct ptsim_mm *kmm)
{
	struct kernel_map *k;
	int err = 0;

	VALIDATE(kmm && kmm->kmap && !kmm->kmap->caps_finalized);
	REFUSE_IN_HANDLER(kmm->m);
	k = kmm->kmap;
	op_begin(kmm->m);
	k->caps_finalized = true;	/* setup_system_capabilities */
	if (k->requires_bbml2 && !k->system_bbml2)
		err = linear_map_split_to_ptes(kmm);
	op_end(kmm->m, 0);	/* an -ENOMEM repaint (a kernel panic) stays half done, and counted */
	return err;
}
