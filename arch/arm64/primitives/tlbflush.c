// SPDX-License-Identifier: MIT
/*
 * TLB maintenance: the instruction sequences of arch/arm64/include/asm/tlbflush.h
 * (v6.17) counted as events, with every TLBI applied to the TLB model and the BBM checker.
 */
#include "hw.h"

#define USER_ASID_FLAG	(1u << 16)	/* KPTI: the EL0 half of an ASID pair */

/*
 * The barriers run on CPU m->exec_cpu (0 on the kernel paths). A DSB ISHST
 * waits for that CPU's stores: its breaks become visible to every table
 * walk, so that a TLBI after it covers them. It does not complete TLBIs.
 */
void dsb_ishst(struct ptsim_machine *m)
{
	count(m, PTSIM_EV_DSB_ISHST, 1);
	bbm_dsb_store(m);
}

/* What a full DSB of the inner-shareable domain (or wider) does: stores visible, TLBIs complete. */
static void dsb_complete(struct ptsim_machine *m)
{
	m->broadcast_tlbis_pending[m->exec_cpu] = 0;
	/* the DSB completes every TLBI this CPU issued before it */
	tlb_dsb(m, false);
	bbm_dsb(m);
}

void dsb_ish(struct ptsim_machine *m)
{
	count(m, PTSIM_EV_DSB_ISH, 1);
	dsb_complete(m);
}

void dsb_sy(struct ptsim_machine *m)
{
	count(m, PTSIM_EV_DSB_SY, 1);
	dsb_complete(m);
}

/*
 * DSB NSH waits only for the CPU's own non-shareable view: on a machine of
 * one CPU that is everything; otherwise it completes that CPU's local
 * TLBIs in its own TLBs (Arm ARM R_PSMWS: a DSB NSH is enough for TLB
 * maintenance that applies to a single PE) and nothing the other CPUs'
 * walks depend on, so its broadcast TLBIs stay pending.
 */
void dsb_nsh(struct ptsim_machine *m)
{
	count(m, PTSIM_EV_DSB_NSH, 1);
	if (m->cfg.nr_cpus == 1) {
		dsb_complete(m);
		return;
	}
	tlb_dsb(m, true);
}

void isb(struct ptsim_machine *m)
{
	count(m, PTSIM_EV_ISB, 1);
}

void local_flush_tlb_all(struct ptsim_machine *m, unsigned int nr_cpus)
{
	count(m, PTSIM_EV_TLBI_LOCAL_ALL, nr_cpus);
}

static const enum ptsim_event tlbi_event[] = {
	[TLBI_KIND_VA] = PTSIM_EV_TLBI_VA,
	[TLBI_KIND_VAA] = PTSIM_EV_TLBI_VAA,
	[TLBI_KIND_RANGE] = PTSIM_EV_TLBI_RANGE,
	[TLBI_KIND_RANGE_VAA] = PTSIM_EV_TLBI_RANGE_VAA,
	[TLBI_KIND_ASID] = PTSIM_EV_TLBI_ASID,
	[TLBI_KIND_ALL] = PTSIM_EV_TLBI_ALL,
};

/*
 * __tlbi: one instruction; twice with a DSB ISH between under ARM64_WORKAROUND_REPEAT_TLBI.
 *
 * A lone broadcast TLBI is cheap to issue; a further one issued before the
 * CPU's DSB ISH has completed the first queues behind it on the DVM
 * interconnect and is counted back to back (doc/cpu-profiles.md §9, §10.3:
 * every measurement behind that price is of broadcast TLBIs). A local TLBI
 * (no IS suffix) is carried out in the issuing CPU's own TLBs and sends no
 * DVM message (spec/cpus.md's TLBI table; Huang Ying's 2025 local-flush
 * patch), so it never queues there: it is not back to back, and it does not
 * make the next broadcast one so.
 */
static void __tlbi(struct ptsim_machine *m, const struct tlbi_op *in)
{
	unsigned int times = m->cfg.repeat_tlbi ? 2 : 1;
	struct tlbi_op op_copy = *in, *op = &op_copy;

	op->cpu = m->exec_cpu;
	for (unsigned int i = 0; i < times; i++) {
		if (i)
			dsb_ish(m);
		/* one without the IS suffix: VMALLE1 is local_flush_tlb_all's event */
		count(m, !op->local ? tlbi_event[op->kind] :
			 op->kind == TLBI_KIND_ALL ? PTSIM_EV_TLBI_LOCAL_ALL : PTSIM_EV_TLBI_LOCAL, 1);
		if (!op->local && m->broadcast_tlbis_pending[op->cpu]++)
			count(m, PTSIM_EV_TLBI_BACK_TO_BACK, 1);
		tlb_invalidate(m, op);
		bbm_tlbi(m, op);
		if (m->tlbi_observer)
			m->tlbi_observer(m, op);
	}
}

void __tlbi_op(struct ptsim_machine *m, const struct tlbi_op *op)
{
	__tlbi(m, op);
}

/* __tlbi_user: the same operation again for the EL0 ASID when KPTI is on. */
static void __tlbi_user(struct ptsim_machine *m, const struct tlbi_op *op)
{
	struct tlbi_op user = *op;

	if (!m->cfg.kpti)
		return;
	user.asid |= USER_ASID_FLAG;
	__tlbi(m, &user);
}

static void tlbi_both(struct ptsim_machine *m, const struct tlbi_op *op, bool user)
{
	__tlbi(m, op);
	if (user)
		__tlbi_user(m, op);
}

/* __TLBI_RANGE_PAGES(num, scale) */
static uint64_t tlbi_range_pages(uint64_t num, unsigned int scale)
{
	return (num + 1) << (5 * scale + 1);
}

/*
 * __flush_tlb_range_op: per-page ops without FEAT_TLBIRANGE (or for a last
 * single page, or an LPA2 address not 64K aligned); otherwise range ops with
 * scale counting down from 3.
 */
static void __flush_tlb_range_op(struct ptsim_machine *m, bool kernel, unsigned int asid,
				 uint64_t start, uint64_t pages, uint64_t stride, bool last_level)
{
	const struct ptsim_geometry *g = &m->geo;
	int scale = 3;

	while (pages > 0) {
		struct tlbi_op op = { .asid = asid, .last_level = last_level };

		if (!m->cpu->tlbirange || pages == 1 ||
		    (g->lpa2 && !IS_ALIGNED64(start, 0x10000))) {
			op.kind = kernel ? TLBI_KIND_VAA : TLBI_KIND_VA;
			op.va = start;
			op.pages = stride >> g->page_shift;
			tlbi_both(m, &op, !kernel);
			start += stride;
			pages -= stride >> g->page_shift;
			continue;
		}
		int64_t num = (int64_t)(MIN(pages, tlbi_range_pages(31, (unsigned int)scale)) >>
					(5 * scale + 1)) - 1;
		if (num >= 0) {
			uint64_t covered = tlbi_range_pages((uint64_t)num, (unsigned int)scale);

			op.kind = kernel ? TLBI_KIND_RANGE_VAA : TLBI_KIND_RANGE;
			op.va = start;
			op.pages = covered;
			tlbi_both(m, &op, !kernel);
			start += covered << g->page_shift;
			pages -= covered;
		}
		scale--;
	}
}

/* __flush_tlb_range_limit_excess */
static bool flush_limit_excess(const struct ptsim_machine *m, uint64_t start, uint64_t end,
			       uint64_t pages, uint64_t stride)
{
	if (!m->cpu->tlbirange && (end - start) >= m->geo.max_dvm_ops * stride)
		return true;
	return pages > m->geo.max_tlbi_range_pages;
}

void flush_tlb_mm(struct ptsim_mm *mm)
{
	struct ptsim_machine *m = mm->m;
	struct tlbi_op op = { .kind = TLBI_KIND_ASID, .asid = mm->asid };

	count(m, PTSIM_EV_FLUSH_TLB_MM, 1);
	dsb_ishst(m);
	tlbi_both(m, &op, true);
	dsb_ish(m);
	count(m, PTSIM_EV_NOTIFIER_SECONDARY_TLBS, 1);
}

bool __flush_tlb_range_nosync(struct ptsim_mm *mm, uint64_t start, uint64_t end, uint64_t stride,
			      bool last_level)
{
	struct ptsim_machine *m = mm->m;
	uint64_t pages;

	start = ALIGN_DOWN64(start, stride);
	end = ALIGN_UP64(end, stride);
	if (end <= start)
		return false;
	pages = (end - start) >> m->geo.page_shift;
	if (flush_limit_excess(m, start, end, pages, stride)) {
		flush_tlb_mm(mm);
		return true;
	}
	count(m, PTSIM_EV_FLUSH_TLB_RANGE, 1);
	dsb_ishst(m);
	__flush_tlb_range_op(m, false, mm->asid, start, pages, stride, last_level);
	count(m, PTSIM_EV_NOTIFIER_SECONDARY_TLBS, 1);
	return true;
}

void __flush_tlb_range(struct ptsim_mm *mm, uint64_t start, uint64_t end, uint64_t stride,
		       bool last_level, int tlb_level)
{
	(void)tlb_level;	/* the TTL hint changes no count */
	/* after a flush_tlb_mm fallback the DSB ISH still follows */
	if (__flush_tlb_range_nosync(mm, start, end, stride, last_level))
		dsb_ish(mm->m);
}

void arch_tlbbatch_add_pending(struct ptsim_mm *mm, uint64_t start, uint64_t end)
{
	__flush_tlb_range_nosync(mm, start, end, mm->m->geo.page_size, true);
}

void arch_tlbbatch_flush(struct ptsim_machine *m)
{
	dsb_ish(m);
}

void flush_pmd_tlb_range(struct ptsim_mm *mm, uint64_t start, uint64_t end)
{
	__flush_tlb_range(mm, start, end, mm->m->geo.pmd_size, false, 2);
}

void flush_tlb_range(struct ptsim_mm *mm, uint64_t start, uint64_t end)
{
	/* flush_tlb_range: all levels, since tables may have been freed */
	__flush_tlb_range(mm, start, end, mm->m->geo.page_size, false, TLBI_TTL_UNKNOWN);
}

/* __flush_tlb_page_nosync (v6.12, static inline: no helper call is charged) */
void flush_tlb_page_nosync(struct ptsim_mm *mm, uint64_t uaddr)
{
	struct ptsim_machine *m = mm->m;
	struct tlbi_op op = {
		.kind = TLBI_KIND_VA, .asid = mm->asid, .pages = 1, .last_level = true,
		.va = ALIGN_DOWN64(uaddr, m->geo.page_size),
	};

	dsb_ishst(m);
	tlbi_both(m, &op, true);
	count(m, PTSIM_EV_NOTIFIER_SECONDARY_TLBS, 1);
}

void flush_tlb_page(struct ptsim_mm *mm, uint64_t uaddr)
{
	flush_tlb_page_nosync(mm, uaddr);
	dsb_ish(mm->m);
}

void flush_tlb_all(struct ptsim_machine *m)
{
	struct tlbi_op op = { .kind = TLBI_KIND_ALL };

	dsb_ishst(m);
	__tlbi(m, &op);
	dsb_ish(m);
	isb(m);
}

void flush_tlb_kernel_range(struct ptsim_machine *m, uint64_t start, uint64_t end)
{
	uint64_t pages;

	start = ALIGN_DOWN64(start, m->geo.page_size);
	end = ALIGN_UP64(end, m->geo.page_size);
	if (end <= start)
		return;
	pages = (end - start) >> m->geo.page_shift;
	if (flush_limit_excess(m, start, end, pages, m->geo.page_size)) {
		flush_tlb_all(m);
		return;
	}
	count(m, PTSIM_EV_FLUSH_TLB_RANGE, 1);
	dsb_ishst(m);
	__flush_tlb_range_op(m, true, 0, start, pages, m->geo.page_size, true);
	dsb_ish(m);
	isb(m);
}
