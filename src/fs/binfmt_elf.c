// SPDX-License-Identifier: MIT
/*
 * ET_DYN load placement (models fs/binfmt_elf.c load_elf_binary and
 * maximum_alignment, with patch 3/4 of the contpte exec-folio series).
 */
#include "filemap.h"

#define PF_X 1u
#define PF_W 2u
#define PF_R 4u

uint64_t arch_mmap_rnd(struct ptsim_mm *mm);

static bool is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

/*
 * maximum_alignment: the largest power-of-two p_align; with patch 3 also the
 * largest of {HPAGE_PMD_SIZE, PAGE_SIZE << exec_folio_order()} that fits in
 * a segment and to which its p_vaddr and p_offset are both aligned.
 */
static uint64_t maximum_alignment(const struct ptsim_machine *m, const struct ptsim_elf_phdr *ph,
				  unsigned int nr)
{
	const struct ptsim_geometry *g = &m->geo;
	uint64_t align = g->page_size;

	for (unsigned int i = 0; i < nr; i++) {
		if (is_pow2(ph[i].p_align))
			align = MAX(align, ph[i].p_align);
		if (!feature(m, PTSIM_FEAT_ELF_CONTPTE_ALIGN))
			continue;
		const uint64_t cand[2] = { g->pmd_size, g->page_size << exec_folio_order(m) };

		for (int c = 0; c < 2; c++)
			if (ph[i].p_memsz >= cand[c] && IS_ALIGNED64(ph[i].p_vaddr | ph[i].p_offset, cand[c]))
				align = MAX(align, cand[c]);
	}
	return align;
}

/* Where segment ph lands at bias: its first page's address and the end of its last (bss too). */
static void segment_span(const struct ptsim_geometry *g, const struct ptsim_elf_phdr *ph,
			 uint64_t bias, uint64_t *addr, uint64_t *end)
{
	uint64_t off_in = ph->p_vaddr & (g->page_size - 1);

	*addr = bias + ph->p_vaddr - off_in;
	*end = *addr + ALIGN_UP64(ph->p_memsz + off_in, g->page_size);
}

/*
 * Whether every segment's range [addr, addr + its pages) fits the address
 * space (-EINVAL), is free, and overlaps no other segment (-EEXIST, as
 * elf_map's MAP_FIXED_NOREPLACE finds): checked before anything is mapped,
 * since a segment mapped into a VM_LOCKED mm (mlockall MCL_FUTURE) is
 * populated at once, and a mapping a neighbour took cannot be taken back.
 */
static int segments_fit(const struct ptsim_mm *mm, const struct ptsim_elf_phdr *ph, unsigned int nr,
			uint64_t bias)
{
	const struct ptsim_geometry *g = &mm->m->geo;

	for (unsigned int i = 0; i < nr; i++) {
		uint64_t addr, end;

		segment_span(g, &ph[i], bias, &addr, &end);
		if (end > (UINT64_C(1) << g->va_bits))
			return -EINVAL;
		if (!range_is_free(mm, addr, end))
			return -EEXIST;
		for (unsigned int j = 0; j < i; j++) {
			uint64_t o_addr, o_end;

			segment_span(g, &ph[j], bias, &o_addr, &o_end);
			if (addr < o_end && o_addr < end)
				return -EEXIST;
		}
	}
	return 0;
}

int ptsim_elf_load(struct ptsim_mm *mm, unsigned int fd, const struct ptsim_elf_phdr *ph,
		   unsigned int nr, uint64_t *load_bias)
{
	const struct ptsim_geometry *g;
	uint64_t bias, base, limit;
	bool mapped = false;
	int err;

	VALIDATE(mm && !mm->kernel && ph && nr && nr <= 64 && load_bias && fd < mm->m->nr_opens);
	REFUSE_IN_HANDLER(mm->m);
	g = &mm->m->geo;
	limit = UINT64_C(1) << (g->va_bits - 2);
	for (unsigned int i = 0; i < nr; i++)
		VALIDATE(ph[i].p_memsz && ph[i].p_filesz <= ph[i].p_memsz &&
			 (ph[i].p_vaddr & (g->page_size - 1)) == (ph[i].p_offset & (g->page_size - 1)) &&
			 ph[i].p_vaddr < limit && ph[i].p_memsz < limit && ph[i].p_align < limit);
	/* ELF_ET_DYN_BASE = 2/3 of the 64-bit map window, then the random offset */
	base = 2 * (UINT64_C(1) << g->va_bits) / 3;
	bias = base + arch_mmap_rnd(mm);
	bias &= ~(maximum_alignment(mm->m, ph, nr) - 1);
	bias = ALIGN_DOWN64(bias - ALIGN_DOWN64(ph[0].p_vaddr, g->page_size), g->page_size);
	/*
	 * What can fail is checked first (the ranges, the VMA array's room), so
	 * a failure leaves no segment mapped and no counts in the totals.
	 */
	err = segments_fit(mm, ph, nr, bias);
	if (!err)
		err = vma_reserve(mm, 2 * nr);
	if (err)
		return err;
	op_begin(mm->m);
	for (unsigned int i = 0; !err && i < nr; i++) {
		uint64_t off_in = ph[i].p_vaddr & (g->page_size - 1);
		uint64_t size = ALIGN_UP64(ph[i].p_filesz + off_in, g->page_size);
		uint64_t addr, end, total;
		unsigned int prot = ((ph[i].p_flags & PF_R) ? PTSIM_PROT_READ : 0) |
				    ((ph[i].p_flags & PF_W) ? PTSIM_PROT_WRITE : 0) |
				    ((ph[i].p_flags & PF_X) ? PTSIM_PROT_EXEC : 0);

		segment_span(g, &ph[i], bias, &addr, &end);
		total = end - addr;
		/* elf_map: the file-backed part */
		if (size) {
			err = ptsim_mmap_file(mm, addr, size, prot, fd,
					      (ph[i].p_offset - off_in) >> g->page_shift, NULL);
			mapped |= !err;
		}
		/* set_brk / vm_brk_flags: the bss beyond the file's last page is anonymous */
		if (!err && total > size) {
			err = ptsim_mmap(mm, addr + size, total - size, prot,
					 PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL);
			mapped |= !err;
		}
		/* not expected after the checks; what was mapped stays, counted (the exec is lost) */
		if (err && mapped)
			op_keep_partial(mm->m);
	}
	op_end(mm->m, err);
	if (!err)
		*load_bias = bias;
	return err;
}
