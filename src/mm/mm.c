// SPDX-License-Identifier: MIT
/* Address spaces and VMAs (models the parts of mm/mmap.c and mm/vma.c the algorithms use). */
#include "asm/pgtable.h"
#include "asm/mmu_context.h"
#include "primitives.h"

#include <stdlib.h>
#include <string.h>

int mm_alloc(struct ptsim_machine *m, struct ptsim_mm **out)
{
	struct ptsim_mm *mm = calloc(1, sizeof(*mm));
	int err;

	if (!mm)
		return -ENOMEM;
	mm->m = m;
	mm->users = 1;
	u64map_charge_to(&mm->zero_swap, &m->host_bytes);
	mm->obj = kobj_slab_alloc(&m->mm_slab);
	err = pt_table_alloc(mm, m->geo.start_level, &mm->pgd);
	if (!err)
		err = machine_add_mm(m, mm);
	if (err) {
		if (mm->pgd)
			pt_table_free(mm, mm->pgd);
		kobj_slab_free(&m->mm_slab, mm->obj);
		free(mm);
		return err;
	}
	*out = mm;
	return 0;
}

int ptsim_mm_create(struct ptsim_machine *m, struct ptsim_mm **out)
{
	struct ptsim_mm *mm;
	int err;

	VALIDATE(m && out);
	REFUSE_IN_HANDLER(m);
	op_begin(m);
	err = mm_alloc(m, &mm);
	if (!err)
		check_and_switch_context(mm);	/* its first ASID */
	op_end(m, err);
	if (!err)
		*out = mm;
	return err;
}

void mm_free_contents(struct ptsim_mm *mm)
{
	if (mm->pgd)
		pt_free_tree(mm, mm->pgd);
	mm->pgd = NULL;
	kernel_map_free(mm->kmap);
	mm->kmap = NULL;
	u64map_free(&mm->zero_swap);
	for (size_t i = 0; i < mm->nr_vmas; i++) {
		vma_put_shmem(mm->m, &mm->vmas[i]);	/* after the tables: nobody maps them now */
		kobj_slab_free(&mm->m->vma_slab, mm->vmas[i].obj);
	}
	kobj_slab_free(&mm->m->mm_slab, mm->obj);
	mm->obj = 0;
	free(mm->vmas);
	mm->vmas = NULL;
	mm->nr_vmas = 0;
	vmas_charge(mm, 0);
}

void vmas_charge(struct ptsim_mm *mm, size_t cap)
{
	mm->m->host_bytes -= mm->cap_vmas * sizeof(*mm->vmas);
	mm->m->host_bytes += cap * sizeof(*mm->vmas);
	mm->cap_vmas = cap;
}

/*
 * An mm that does not own its machine taken off it and freed (ptsim_mm_destroy,
 * src/machine/machine.c, frees an owning mm's whole machine instead).
 */
void mm_destroy(struct ptsim_mm *mm)
{
	struct ptsim_machine *m = mm->m;

	machine_remove_mm(m, mm);
	/*
	 * Freeing the model's mm counts nothing (mm.h): the kernel's teardown
	 * is ptsim_mm_exit's (exit_mmap, free_pgtables included); what is left
	 * here (the PGD, and whatever an mm destroyed without an exit still
	 * maps) goes uncounted, and the machine's totals do not move.
	 */
	op_begin(m);
	/* user ASIDs stay taken until the next rollover; the kernel's global entries must go now */
	if (mm->kernel)
		tlb_drop_global(m);
	mm_free_contents(mm);
	op_end_uncounted(m);
	free(mm);
}

int mm_copy_into(struct ptsim_machine *m, const struct ptsim_mm *src, struct ptsim_mm **out)
{
	struct ptsim_mm *mm = calloc(1, sizeof(*mm));

	if (!mm)
		return -ENOMEM;
	*mm = *src;
	mm->m = m;
	mm->owns_machine = false;
	mm->pgd = NULL;
	mm->vmas = NULL;
	/* a copy's bytes came with the copied machine's total */
	if (u64map_copy(&mm->zero_swap, &src->zero_swap))
		goto fail;
	u64map_charge_to(&mm->zero_swap, &m->host_bytes);
	if (src->nr_vmas) {
		mm->vmas = malloc(src->cap_vmas * sizeof(*mm->vmas));
		if (!mm->vmas)
			goto fail;
		memcpy(mm->vmas, src->vmas, src->nr_vmas * sizeof(*mm->vmas));
	}
	if (src->kmap && !(mm->kmap = kernel_map_copy(src->kmap)))
		goto fail;
	if (pt_copy_tree(mm, src->pgd, &mm->pgd)) {
		kernel_map_free(mm->kmap);
		goto fail;
	}
	if (machine_add_mm(m, mm)) {
		pt_delete_copy(m, mm->pgd);
		goto fail;
	}
	*out = mm;
	return 0;
fail:
	free(mm->vmas);
	u64map_free(&mm->zero_swap);
	free(mm);
	return -ENOMEM;
}

/*
 * The address space live for an ASID, for the hardware model (m->as_of_asid,
 * which src/machine/machine.c installs): none while no mm has it.
 */
bool mm_as_of_asid(const struct ptsim_machine *m, unsigned int asid, bool global,
		   struct hw_as *out)
{
	for (size_t i = 0; i < m->nr_mms; i++) {
		const struct ptsim_mm *mm = m->mms[i];

		if (mm->kernel ? global
			       : !global && mm->asid == asid &&
				 mm->asid_generation == m->asid_generation) {
			*out = mm_as(mm);
			return true;
		}
	}
	return false;
}

/* A valid contiguous entry in the last-level tables under t. */
static bool table_maps_cont(const struct pt_table *t)
{
	for (unsigned int i = 0; i < t->entries; i++) {
		if (t->level == PTE_LEVEL ? pte_valid_cont(t->desc[i])
					  : t->next[i] && table_maps_cont(t->next[i]))
			return true;
	}
	return false;
}

bool machine_maps_user_cont(const struct ptsim_machine *m)
{
	for (size_t i = 0; i < m->nr_mms; i++)
		if (!m->mms[i]->kernel && m->mms[i]->pgd && table_maps_cont(m->mms[i]->pgd))
			return true;
	return false;
}

int ptsim_mm_set_threads(struct ptsim_mm *mm, unsigned int threads)
{
	VALIDATE(mm && !mm->kernel && threads >= 1);
	REFUSE_IN_HANDLER(mm->m);
	mm->users = threads;
	return 0;
}

int ptsim_mm_set_kernel_errors(struct ptsim_mm *mm, bool on)
{
	VALIDATE(mm && !mm->kernel);
	REFUSE_IN_HANDLER(mm->m);
	mm->kernel_errors = on;
	return 0;
}

uint64_t covered_end(const struct ptsim_mm *mm, uint64_t start, uint64_t end)
{
	for (uint64_t a = start; a < end;) {
		const struct vma *v = find_vma(mm, a);

		if (!v)
			return a;
		a = v->end;
	}
	return end;
}

struct ptsim_machine *ptsim_mm_machine(const struct ptsim_mm *mm)
{
	return mm ? mm->m : NULL;
}

int ptsim_mm_asid(const struct ptsim_mm *mm, unsigned int *out)
{
	VALIDATE(mm && out);
	*out = mm->asid;
	return 0;
}

int ptsim_mm_pgtable_bytes(const struct ptsim_mm *mm, uint64_t *out)
{
	VALIDATE(mm && out);
	*out = mm->pgtable_bytes;
	return 0;
}

/* vm_get_page_prot: arm64 protection_map; private writable is COW (read-only). */
pte_t vm_get_page_prot(unsigned int vm_flags)
{
	bool r = vm_flags & VM_READ, w = vm_flags & VM_WRITE, x = vm_flags & VM_EXEC;
	bool shared = vm_flags & VM_SHARED;

	if (!r && !w && !x)
		return PAGE_NONE;
	if (x)
		return (shared && w) ? PAGE_SHARED_EXEC : (r || w) ? PAGE_READONLY_EXEC : PAGE_EXECONLY;
	return (shared && w) ? PAGE_SHARED : PAGE_READONLY;
}

struct vma *find_vma(const struct ptsim_mm *mm, uint64_t addr)
{
	size_t lo = 0, hi = mm->nr_vmas;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (mm->vmas[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < mm->nr_vmas && mm->vmas[lo].start <= addr)
		return &mm->vmas[lo];
	return NULL;
}

/* The index of the first VMA ending above addr (binary search). */
static size_t vma_index_after(const struct ptsim_mm *mm, uint64_t addr)
{
	size_t lo = 0, hi = mm->nr_vmas;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (mm->vmas[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* find_vma_intersection: the first VMA that overlaps [start, end), or NULL. */
struct vma *find_vma_intersection(const struct ptsim_mm *mm, uint64_t start, uint64_t end)
{
	size_t i = vma_index_after(mm, start);

	return i < mm->nr_vmas && mm->vmas[i].start < end ? &mm->vmas[i] : NULL;
}

bool range_is_free(const struct ptsim_mm *mm, uint64_t start, uint64_t end)
{
	size_t i = vma_index_after(mm, start);

	return i == mm->nr_vmas || mm->vmas[i].start >= end;
}

/*
 * __mmap_region's work for the new VMA at idx (v6.12 mm/mmap.c): the
 * commit charge of a VM_ACCOUNT (private writable) mapping
 * (security_vm_enough_memory_mm); vma_merge_new_range, which lets prev or
 * next take the range; else a new vm_area_struct (vm_area_alloc),
 * write-locked and stored in the tree where it adds a range; then the mm's
 * counts (vm_stat_account). Returns the index of the VMA covering the new
 * range. khugepaged_enter_vma, perf_event_mmap (an atomic test with no perf
 * event) and a file's vma_link_file (the i_mmap lock) are not counted.
 */
size_t mmap_region_account(struct ptsim_mm *mm, size_t idx)
{
	struct vma *v = &mm->vmas[idx];

	if (accountable_mapping(v))
		security_vm_enough_memory_mm(mm->m);
	if (!vma_merge_new_range(mm, &idx)) {
		vm_area_alloc(mm->m, v);
		vma_start_write(mm, v);
		vma_iter_store(mm, v, true);
	}
	vm_stat_account(mm);
	return idx;
}

int vma_insert(struct ptsim_mm *mm, const struct vma *v)
{
	size_t i = vma_index_after(mm, v->start);

	if (mm->raw)
		return -EINVAL;	/* a bare address space of the raw API has no VMAs */

	if (mm->nr_vmas == mm->cap_vmas) {
		size_t cap = mm->cap_vmas ? mm->cap_vmas * 2 : 8;
		struct vma *n = realloc(mm->vmas, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		vmas_charge(mm, cap);
		mm->vmas = n;
	}
	memmove(&mm->vmas[i + 1], &mm->vmas[i], (mm->nr_vmas - i) * sizeof(*v));
	mm->vmas[i] = *v;
	if (!mm->vmas[i].obj)	/* a new VMA: its vm_area_struct's slab id (a copy has its own) */
		mm->vmas[i].obj = kobj_slab_alloc(&mm->m->vma_slab);
	mm->nr_vmas++;
	vma_get_shmem(mm->m, v);
	return 0;
}

/*
 * Where the gapless run of VMAs from base ends (base itself when base is
 * free). The answer is cached: it only grows while VMAs are added, split or
 * merged, and vma_remove forgets it. Each VMA is passed over once between two
 * removals, so N first-fit mmaps cost O(N log N), not O(N^2).
 */
static uint64_t covered_from(struct ptsim_mm *mm, uint64_t base)
{
	uint64_t end = mm->gapless_base == base && mm->gapless_end ? mm->gapless_end : base;

	for (size_t i = vma_index_after(mm, end); i < mm->nr_vmas && mm->vmas[i].start <= end; i++)
		end = mm->vmas[i].end;
	mm->gapless_base = base;
	mm->gapless_end = end;
	return end;
}

/* First fit above 4 GiB, PMD aligned for PMD-sized requests (THP-friendly, as thp_get_unmapped_area). */
int get_unmapped_area(struct ptsim_mm *mm, uint64_t len, uint64_t *out)
{
	const struct ptsim_geometry *g = &mm->m->geo;
	uint64_t align = len >= g->pmd_size ? g->pmd_size : g->page_size;
	uint64_t limit = UINT64_C(1) << g->va_bits;
	/* nothing fits below the end of the gapless run from the floor: start the search there */
	uint64_t addr = ALIGN_UP64(covered_from(mm, MIN(UINT64_C(1) << 32, limit / 4)), align);

	for (size_t i = vma_index_after(mm, addr); addr + len <= limit; i++) {
		if (i == mm->nr_vmas || mm->vmas[i].start >= addr + len) {
			*out = addr;
			return 0;
		}
		addr = ALIGN_UP64(mm->vmas[i].end, align);
	}
	return -ENOMEM;
}

int ptsim_mmap(struct ptsim_mm *mm, uint64_t addr, uint64_t len, unsigned int prot,
	       unsigned int flags, uint64_t *out_addr)
{
	const struct ptsim_geometry *g;
	unsigned int share;
	struct vma v = { 0 };
	bool search;
	int err;

	VALIDATE(mm && !mm->kernel && !mm->raw && len && !(prot & ~(PTSIM_PROT_READ | PTSIM_PROT_WRITE | PTSIM_PROT_EXEC)));
	REFUSE_IN_HANDLER(mm->m);
	g = &mm->m->geo;
	share = flags & (PTSIM_MAP_PRIVATE | PTSIM_MAP_SHARED);
	VALIDATE(share == PTSIM_MAP_PRIVATE || share == PTSIM_MAP_SHARED);
	VALIDATE(flags & PTSIM_MAP_ANONYMOUS);
	VALIDATE(!(flags & ~(PTSIM_MAP_PRIVATE | PTSIM_MAP_SHARED | PTSIM_MAP_ANONYMOUS)));
	VALIDATE(IS_ALIGNED64(addr, g->page_size));
	/* do_mmap: len = PAGE_ALIGN(len), -ENOMEM when that wraps to 0 */
	if (len > UINT64_MAX - (g->page_size - 1))
		return -ENOMEM;
	len = ALIGN_UP64(len, g->page_size);
	VALIDATE(len <= (UINT64_C(1) << g->va_bits) && addr <= (UINT64_C(1) << g->va_bits) - len);
	search = !addr;
	if (!addr) {
		err = get_unmapped_area(mm, len, &addr);
		if (err)
			return err;
	} else if (!range_is_free(mm, addr, addr + len)) {
		return -EEXIST;
	}
	v.start = addr;
	v.end = addr + len;
	v.pgoff = addr >> g->page_shift;	/* anonymous: the page offset is the VA */
	v.fd = -1;
	v.flags = VM_MAYREAD | VM_MAYWRITE | VM_MAYEXEC | VM_ANON;
	v.flags |= (prot & PTSIM_PROT_READ) ? VM_READ : 0;
	v.flags |= (prot & PTSIM_PROT_WRITE) ? VM_WRITE : 0;
	v.flags |= (prot & PTSIM_PROT_EXEC) ? VM_EXEC : 0;
	v.flags |= mm->def_flags;	/* do_mmap: mlockall(MCL_FUTURE)'s VM_LOCKED */
	op_begin(mm->m);
	syscall_enter(mm->m);
	mmap_write_lock(mm);	/* vm_mmap_pgoff: mmap_write_lock_killable */
	if (search)
		vm_unmapped_area(mm->m);	/* arch_get_unmapped_area_topdown */
	err = 0;
	if (share == PTSIM_MAP_SHARED) {
		/*
		 * do_mmap ignores pgoff for a shared anonymous mapping (0), and
		 * mmap_region's shmem_zero_setup backs it with a shmem object:
		 * vma_is_anonymous() is false from here on.
		 */
		v.pgoff = 0;
		v.flags = (v.flags & ~VM_ANON) | VM_SHARED;
		err = shmem_zero_setup(mm->m, len, &v.shmem);
	}
	v.page_prot = vm_get_page_prot(v.flags);
	if (!err) {
		err = vma_insert(mm, &v);
		if (err && v.shmem)
			shmem_evict(mm->m, v.shmem - 1);	/* no VMA took it */
	}
	if (!err)
		mmap_region_account(mm, vma_index(mm, find_vma(mm, addr)));
	/* vm_mmap_pgoff: a VM_LOCKED mapping is populated (mm_populate, errors ignored) */
	if (!err && (v.flags & VM_LOCKED))
		__mm_populate(mm, addr, addr + len, true);
	op_end(mm->m, err);
	if (err)
		return err;
	if (out_addr)
		*out_addr = addr;
	return 0;
}

int ptsim_translate(const struct ptsim_mm *mm, uint64_t va, struct ptsim_translation *out)
{
	const struct ptsim_geometry *g;
	const struct pt_table *t;
	unsigned int idx;
	uint64_t size;
	pte_t d;

	VALIDATE(mm && out);
	g = &mm->m->geo;
	/* user mms translate TTBR0 addresses, the kernel mm TTBR1 ones */
	VALIDATE(mm->kernel ? va >= ~((UINT64_C(1) << g->va_bits) - 1) : va < (UINT64_C(1) << g->va_bits));
	t = pt_lookup_leaf(mm, va, &idx);
	if (!t)
		return -ENOENT;
	d = t->desc[idx];
	if (!pte_present(d) || leaf_encoding_reserved(g, t->level, d))
		return -ENOENT;
	size = pt_level_size(g, t->level);
	memset(out, 0, sizeof(*out));
	out->va_base = ALIGN_DOWN64(va, size);
	out->size = size;
	out->pa = (pte_pfn(g, d) << g->page_shift) + (va - out->va_base);
	out->level = t->level;
	out->desc = d;
	out->valid = pte_valid(d);
	out->user = pte_user(d);
	out->read_only = pte_rdonly(d);
	out->pxn = d & PTE_PXN;
	out->uxn = d & PTE_UXN;
	out->cont = pte_cont(d);
	out->af = pte_young(d);
	out->dirty = pte_dirty(d);
	out->write = pte_write(d);
	out->attrindx = (unsigned int)((d & PTE_ATTRINDX_MASK) >> PTE_ATTRINDX_SHIFT);
	return 0;
}

/* pins came out of the reserved room: the struct keeps the size it had (ABI). */
_Static_assert(sizeof(struct ptsim_folio_info) == 64, "struct ptsim_folio_info keeps its size");

int ptsim_folio_info(const struct ptsim_mm *mm, uint64_t va, struct ptsim_folio_info *out)
{
	struct ptsim_translation tr;
	const struct folio *f;
	uint64_t pfn;
	int err;

	VALIDATE(out);
	memset(out, 0, sizeof(*out));
	err = ptsim_translate(mm, va, &tr);
	if (err)
		return err;
	pfn = tr.pa >> mm->m->geo.page_shift;
	f = pfn_folio(mm->m, pfn);
	if (!f)
		return -ENOENT;
	out->pfn = folio_pfn(mm->m, f);
	out->order = f->order;
	out->anon = f->flags & FOLIO_ANON;
	out->anon_exclusive = folio_page_anon_exclusive(f, pfn - folio_pfn(mm->m, f));
	out->mapcount = folio_mapcount(mm->m, f);
	out->index = f->index;
	folio_gup_counts(mm->m, f, &out->pins, &out->gets);
	out->refcount = folio_ref_count(mm->m, f);
	return 0;
}
