// SPDX-License-Identifier: MIT
/*
 * File mappings, the unmapped-area search and ASLR (models mm/mmap.c
 * arch_get_unmapped_area_topdown, mm/huge_memory.c thp_get_unmapped_area,
 * mm/util.c arch_mmap_rnd / mmap_base; see doc/exec-folios.md).
 */
#include "filemap.h"
#include "prng.h"
#include "asm/pgtable.h"
#include "primitives.h"

#define MIN_GAP		(UINT64_C(128) << 20)	/* mmap_base sits at least 128 MiB below the top */
#define MMAP_MIN_ADDR	UINT64_C(0x10000)

/* ARCH_MMAP_RND_BITS_MIN: 18 / 16 / 14 bits for 4K / 16K / 64K */
static unsigned int mmap_rnd_bits(const struct ptsim_geometry *g)
{
	return g->page_shift == 12 ? 18 : g->page_shift == 14 ? 16 : 14;
}

static uint64_t aslr_next(struct ptsim_mm *mm)
{
	return prng_next(&mm->aslr_state);
}

/* arch_mmap_rnd: mmap_rnd_bits random bits, in whole pages; 0 without ASLR. */
uint64_t arch_mmap_rnd(struct ptsim_mm *mm)
{
	const struct ptsim_geometry *g = &mm->m->geo;

	if (!mm->aslr_state)
		return 0;
	return (aslr_next(mm) & ((UINT64_C(1) << mmap_rnd_bits(g)) - 1)) << g->page_shift;
}

int ptsim_mm_set_aslr(struct ptsim_mm *mm, uint64_t seed)
{
	VALIDATE(mm && !mm->kernel);
	REFUSE_IN_HANDLER(mm->m);
	/* mixed, so that seeds 1, 2, 3 ... give unrelated layouts; 0 keeps ASLR off */
	mm->aslr_state = seed ? prng_seed(seed) : 0;
	mm->mmap_base = 0;	/* picked again at the next mmap */
	return 0;
}

/* mmap_base: below the stack gap, lowered by the random offset. */
static uint64_t mmap_base(struct ptsim_mm *mm)
{
	const struct ptsim_geometry *g = &mm->m->geo;

	if (!mm->mmap_base)
		mm->mmap_base = ALIGN_DOWN64((UINT64_C(1) << g->va_bits) - MIN_GAP - arch_mmap_rnd(mm),
					     g->page_size);
	return mm->mmap_base;
}

/* arch_get_unmapped_area_topdown: the highest free gap of len below mmap_base. */
static int unmapped_area_topdown(struct ptsim_mm *mm, uint64_t len, uint64_t *out)
{
	uint64_t top = mmap_base(mm);

	if (len > top - MMAP_MIN_ADDR)
		return -ENOMEM;
	for (size_t i = mm->nr_vmas + 1; i-- > 0;) {
		uint64_t hi = i < mm->nr_vmas ? MIN(mm->vmas[i].start, top) : top;
		uint64_t lo = i ? mm->vmas[i - 1].end : MMAP_MIN_ADDR;

		if (hi >= lo + len && hi - len >= MMAP_MIN_ADDR) {
			*out = ALIGN_DOWN64(hi - len, mm->m->geo.page_size);
			if (*out >= lo)
				return 0;
		}
	}
	return -ENOMEM;
}

/* __thp_get_unmapped_area: pad by size, then shift so that VA = file offset (mod size). */
static uint64_t thp_unmapped_area(struct ptsim_mm *mm, uint64_t len, uint64_t off, uint64_t size)
{
	uint64_t off_end = off + len, off_align = ALIGN_UP64(off, size), ret;

	if (off_end <= off_align || off_end - off_align < size)
		return 0;
	if (unmapped_area_topdown(mm, len + size, &ret))
		return 0;
	uint64_t off_sub = (off - ret) & (size - 1);

	if (!off_sub)
		return ret + size;	/* top-down: keep the padding below */
	return ret + off_sub;
}

/* thp_get_unmapped_area_vmflags, with patch 4's exec-order fallback. */
static int file_unmapped_area(struct ptsim_mm *mm, uint64_t len, uint64_t off, uint64_t *out)
{
	const struct ptsim_geometry *g = &mm->m->geo;
	uint64_t ret = thp_unmapped_area(mm, len, off, g->pmd_size);

	if (!ret && feature(mm->m, PTSIM_FEAT_UNMAPPED_AREA_CONTPTE) && exec_folio_order(mm->m))
		ret = thp_unmapped_area(mm, len, off, g->page_size << exec_folio_order(mm->m));
	if (ret) {
		*out = ret;
		return 0;
	}
	return unmapped_area_topdown(mm, len, out);
}

int ptsim_mmap_file(struct ptsim_mm *mm, uint64_t addr, uint64_t len, unsigned int prot,
		    unsigned int fd, uint64_t pgoff, uint64_t *out_addr)
{
	const struct ptsim_geometry *g;
	struct vma v = { 0 };
	int err;

	VALIDATE(mm && !mm->kernel && !mm->raw && len && fd < mm->m->nr_opens);
	REFUSE_IN_HANDLER(mm->m);
	VALIDATE(!(prot & ~(PTSIM_PROT_READ | PTSIM_PROT_WRITE | PTSIM_PROT_EXEC)));
	g = &mm->m->geo;
	VALIDATE(IS_ALIGNED64(addr, g->page_size) && pgoff < (UINT64_C(1) << 40));
	/* do_mmap: len = PAGE_ALIGN(len), -ENOMEM when that wraps to 0 */
	if (len > UINT64_MAX - (g->page_size - 1))
		return -ENOMEM;
	len = ALIGN_UP64(len, g->page_size);
	VALIDATE(len <= (UINT64_C(1) << g->va_bits) && addr <= (UINT64_C(1) << g->va_bits) - len);
	if (vma_reserve(mm, 1))
		return -ENOMEM;
	op_begin(mm->m);
	syscall_enter(mm->m);
	mmap_write_lock(mm);	/* vm_mmap_pgoff: mmap_write_lock_killable */
	if (!addr) {
		vm_unmapped_area(mm->m);	/* the gap search, whatever alignment it asks */
		err = file_unmapped_area(mm, len, pgoff << g->page_shift, &addr);
	} else
		err = range_is_free(mm, addr, addr + len) ? 0 : -EEXIST;
	if (!err) {
		v.start = addr;
		v.end = addr + len;
		v.flags = VM_MAYREAD | VM_MAYWRITE | VM_MAYEXEC;
		v.flags |= (prot & PTSIM_PROT_READ) ? VM_READ : 0;
		v.flags |= (prot & PTSIM_PROT_WRITE) ? VM_WRITE : 0;
		v.flags |= (prot & PTSIM_PROT_EXEC) ? VM_EXEC : 0;
		v.flags |= mm->def_flags;	/* do_mmap: mlockall(MCL_FUTURE)'s VM_LOCKED */
		v.page_prot = vm_get_page_prot(v.flags);
		v.pgoff = pgoff;
		v.fd = (int)fd;
		err = vma_insert(mm, &v);
		if (!err)
			mmap_region_account(mm, vma_index(mm, find_vma(mm, addr)));
		/* vm_mmap_pgoff: a VM_LOCKED mapping is populated (mm_populate, errors ignored) */
		if (!err && (v.flags & VM_LOCKED))
			__mm_populate(mm, addr, addr + len, true);
	}
	op_end(mm->m, err);
	if (!err && out_addr)
		*out_addr = addr;
	return err;
}
