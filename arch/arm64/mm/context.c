// SPDX-License-Identifier: MIT
/*
 * The ASID allocator (models arch/arm64/mm/context.c: new_context,
 * flush_context, check_and_switch_context). An mm's context is a generation
 * and an ASID. ASIDs are handed out from a bitmap and never freed; when the
 * bitmap is full the generation rolls over: the bitmap is cleared, every CPU
 * flushes its whole TLB (local_flush_tlb_all at its next switch) and each mm
 * of an older generation gets a new ASID the next time it runs, keeping its
 * old number when that is still free. So no ASID is ever live for two mms
 * whose TLB entries could both be cached. Reserved ASIDs (the ones running on
 * other CPUs during the rollover) are not modelled: the model has no notion of
 * which mm each CPU is running, so every mm revalidates.
 */
#include "asm/mmu_context.h"
#include "asm/tlbflush.h"

#include <string.h>

static bool asid_test_and_set(struct ptsim_machine *m, unsigned int asid)
{
	uint64_t bit = UINT64_C(1) << (asid % 64);
	bool was = m->asid_map[asid / 64] & bit;

	m->asid_map[asid / 64] |= bit;
	return was;
}

/* find_next_zero_bit over the ASID bitmap, from `from`; nr when all are taken. */
static unsigned int asid_next_free(const struct ptsim_machine *m, unsigned int from)
{
	unsigned int nr = 1u << m->cpu->asid_bits;

	for (unsigned int a = from; a < nr; a++)
		if (!(m->asid_map[a / 64] & (UINT64_C(1) << (a % 64))))
			return a;
	return nr;
}

/*
 * flush_context: start a new generation with an empty bitmap (ASID 0 stays
 * reserved) and flush every CPU's TLB: each CPU issues a local TLBI VMALLE1
 * at its next switch, which removes global entries too.
 */
static void flush_context(struct ptsim_machine *m)
{
	const struct tlbi_op all = { .kind = TLBI_KIND_ALL };

	memset(m->asid_map, 0, sizeof(m->asid_map));
	m->asid_map[0] = 1;
	m->asid_generation++;
	local_flush_tlb_all(m, m->cfg.nr_cpus);
	tlb_drop_all(m);
	bbm_tlbi(m, &all);
	bbm_dsb(m);
}

/* new_context: an ASID for mm in the current generation. */
static unsigned int new_context(struct ptsim_machine *m, struct ptsim_mm *mm)
{
	unsigned int nr = 1u << m->cpu->asid_bits, asid;

	/* an ASID from an earlier generation is kept if nobody took it since */
	if (mm->asid && mm->asid < nr && !asid_test_and_set(m, mm->asid))
		return mm->asid;
	asid = asid_next_free(m, m->asid_cur);
	if (asid == nr) {
		flush_context(m);
		asid = asid_next_free(m, 1);
	}
	asid_test_and_set(m, asid);
	m->asid_cur = asid;
	return asid;
}

void check_and_switch_context(struct ptsim_mm *mm)
{
	struct ptsim_machine *m = mm->m;

	if (mm->kernel || (mm->asid && mm->asid_generation == m->asid_generation))
		return;
	mm->asid = new_context(m, mm);
	mm->asid_generation = m->asid_generation;
}
