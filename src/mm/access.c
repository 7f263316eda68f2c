// SPDX-License-Identifier: MIT
/*
 * Memory accesses by a running mm: what a load, store or instruction fetch
 * does on a CPU, handed to the TLB model with the address space the mm gives
 * the MMU. Switching to the mm first revalidates its ASID (check_and_switch_context).
 */
#include "asm/mmu_context.h"

static bool valid_cpu_va(const struct ptsim_mm *mm, unsigned int cpu, uint64_t va)
{
	const struct ptsim_geometry *g = &mm->m->geo;

	if (cpu >= mm->m->cfg.nr_cpus)
		return false;
	return mm->kernel ? va >= ~((UINT64_C(1) << g->va_bits) - 1)
			  : va < (UINT64_C(1) << g->va_bits);
}

/* Start an operation with mm running: its ASID revalidated, its address space for the MMU. */
static struct hw_as run_mm(struct ptsim_mm *mm)
{
	op_begin(mm->m);
	check_and_switch_context(mm);
	return mm_as(mm);
}

int ptsim_access(struct ptsim_mm *mm, unsigned int cpu, uint64_t va, enum ptsim_access_kind kind,
		 enum ptsim_fault_kind *fault)
{
	enum ptsim_fault_kind f;
	struct hw_as as;

	VALIDATE(mm && (unsigned int)kind <= PTSIM_ACCESS_EXEC && valid_cpu_va(mm, cpu, va));
	REFUSE_IN_HANDLER(mm->m);
	as = run_mm(mm);
	f = tlb_access(mm->m, &as, cpu, va, kind);
	if (kind == PTSIM_ACCESS_WRITE && !f)
		user_data_written(mm, va, 1);
	op_end(mm->m, 0);
	if (fault)
		*fault = f;
	return f ? -EFAULT : 0;
}

int ptsim_touch(struct ptsim_mm *mm, unsigned int cpu, uint64_t start, uint64_t len,
		enum ptsim_access_kind kind, uint64_t *faults)
{
	const struct ptsim_geometry *g;
	uint64_t nfault = 0, hits = 0;
	struct hw_as as;

	VALIDATE(mm && len && start + len > start && (unsigned int)kind <= PTSIM_ACCESS_WRITE);
	REFUSE_IN_HANDLER(mm->m);
	g = &mm->m->geo;
	VALIDATE(valid_cpu_va(mm, cpu, start) && valid_cpu_va(mm, cpu, start + len - 1));
	as = run_mm(mm);
	fn_enter(mm->m, PTSIM_FN_USER_MEMSET);
	for (uint64_t va = ALIGN_DOWN64(start, g->page_size); va < start + len;) {
		enum ptsim_fault_kind f;
		unsigned int reads = 0;
		const void *last = NULL;
		uint64_t n;

		/* plain L1 hits are counted together after the loop */
		va = tlb_access_run(mm->m, &as, cpu, va, start + len, kind, &hits, &f);
		if (va >= start + len)
			break;
		nfault++;
		va += g->page_size;
		if (f != PTSIM_FAULT_TRANSLATION || va >= start + len)
			continue;
		/* in a hole the next pages miss, walk as far and fault the same way: count them at once */
		n = tlb_fault_run(mm->m, &as, cpu, va, start + len, kind, &reads, &last);
		tlb_count_fault_run(mm->m, n, reads, last);
		nfault += n;
		va += n << g->page_shift;
	}
	if (hits) {
		tlb_count_hits(mm->m, hits, kind);
	}
	if (kind == PTSIM_ACCESS_WRITE)
		user_data_written(mm, start, len);
	fn_exit(mm->m);
	op_end(mm->m, 0);
	if (faults)
		*faults = nfault;
	return 0;
}

int ptsim_tlb_fill(struct ptsim_mm *mm, unsigned int cpu, uint64_t va, enum ptsim_access_kind kind)
{
	enum ptsim_fault_kind f;
	struct hw_as as;

	VALIDATE(mm && (unsigned int)kind <= PTSIM_ACCESS_EXEC && valid_cpu_va(mm, cpu, va));
	REFUSE_IN_HANDLER(mm->m);
	as = run_mm(mm);
	f = tlb_fill(mm->m, &as, cpu, va, kind);
	op_end(mm->m, 0);
	return f ? -EFAULT : 0;
}

int ptsim_tlb_probe(const struct ptsim_mm *mm, unsigned int cpu, uint64_t va,
		    enum ptsim_tlb_level which, unsigned int *matches, uint64_t *size)
{
	struct hw_as as;

	VALIDATE(mm && matches && (unsigned int)which <= PTSIM_TLB_L2 && valid_cpu_va(mm, cpu, va));
	as = mm_as(mm);
	*matches = tlb_probe(mm->m, &as, cpu, va, which, size);
	return *matches ? 0 : -ENOENT;
}
