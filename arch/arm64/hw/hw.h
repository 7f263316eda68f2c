/* SPDX-License-Identifier: MIT */
/*
 * The hardware model: what the silicon does, below Linux. The arch layer
 * drives it: TLB maintenance reaches the TLB model and the break-before-make
 * checker from tlbflush.c, every descriptor store reaches the checker from
 * pgtable.c, and memory accesses reach the TLB model from mm/access.c. It
 * knows descriptors, translation tables, TLBIs, DSBs and events; never an mm,
 * a VMA or a folio.
 */
#ifndef PTSIM_HW_H
#define PTSIM_HW_H

#include "core.h"
#include "desc.h"

enum tlbi_kind {
	TLBI_KIND_VA,		/* VA(L)E1IS: one page of one ASID */
	TLBI_KIND_VAA,		/* VAA(L)E1IS: one page, every ASID (kernel) */
	TLBI_KIND_RANGE,	/* RVA(L)E1IS */
	TLBI_KIND_RANGE_VAA,	/* RVAA(L)E1IS */
	TLBI_KIND_ASID,		/* ASIDE1IS */
	TLBI_KIND_ALL,		/* VMALLE1IS */
};

/* One TLBI instruction as the TLB model sees it. */
/* No TTL hint: the level of the entries to invalidate is not known (INT_MAX since v6.9). */
#define TLBI_TTL_UNKNOWN	0x7fffffff

struct tlbi_op {
	enum tlbi_kind kind;
	unsigned int asid;
	uint64_t va;		/* start, page aligned */
	uint64_t pages;		/* pages covered (1 for by-VA ops) */
	bool last_level;	/* the *L* forms: leaf entries only */
	/*
	 * Without the IS suffix: only the issuing CPU's TLBs (every kernel
	 * path but local_flush_tlb_all broadcasts; the raw API can choose).
	 */
	bool local;
	unsigned int cpu;	/* the issuing CPU (m->exec_cpu when issued) */
	/* The TTL hint: the level of the entries to invalidate, 0 for none (raw API only). */
	int ttl_level;
};

/*
 * One address space as the MMU sees it: the table a TTBR points at, the ASID
 * its non-global entries are tagged with, and which half of the VA space it
 * translates (TTBR1: the kernel's, with EL1 permissions).
 */
struct hw_as {
	struct pt_table *root;
	unsigned int asid;
	bool ttbr1;
};

/*
 * The address space live for an ASID (or, with global, the TTBR1 one that
 * the kernel's global entries come from):
 * what the TTBRs hold, for the DSB-time check. The hardware knows no address
 * space: it asks the layer that owns them, through m->as_of_asid (installed
 * by src/machine/machine.c); none live while none is installed.
 */
static inline bool hw_as_of_asid(const struct ptsim_machine *m, unsigned int asid, bool global,
				 struct hw_as *out)
{
	return m->as_of_asid && m->as_of_asid(m, asid, global, out);
}

/* tlb.c */
/* One load, store or fetch by cpu: TLB lookup, walk and fill on a miss, permission check. */
enum ptsim_fault_kind tlb_access(struct ptsim_machine *m, const struct hw_as *as, unsigned int cpu,
				 uint64_t va, enum ptsim_access_kind kind);
/*
 * tlb_access for the pages from va (page-aligned) up to end, in one half of
 * the VA space, until one faults. Plain L1 hits (the entry found is the only
 * one, permits the access and needs no hardware update) are taken uncounted
 * and added to *hits: the caller counts them with tlb_count_hits, exactly
 * what tlb_access would have counted. The pages one entry covers all hit it,
 * so a large entry is looked up once for all of them (while no VA has two
 * entries). Every other page goes through tlb_access (counted there), and
 * when it does not fault the program's bytes of it are counted at once
 * (user_page_access). Returns end, or the page that faulted, with *fault
 * its result.
 */
uint64_t tlb_access_run(struct ptsim_machine *m, const struct hw_as *as, unsigned int cpu,
			uint64_t va, uint64_t end, enum ptsim_access_kind kind, uint64_t *hits,
			enum ptsim_fault_kind *fault);
/* The n plain L1 hits tlb_access_run took uncounted: accesses, hits, the pages' bytes. */
void tlb_count_hits(struct ptsim_machine *m, uint64_t n, enum ptsim_access_kind kind);
/*
 * The n walks tlb_fault_run found: accesses, walks of `reads` descriptors
 * each, faults, and the walker's reads of the empty entry `last`.
 */
void tlb_count_fault_run(struct ptsim_machine *m, uint64_t n, unsigned int reads,
			 const void *last);
/* n pages of a user access that hit or walked: the bytes the program reads or writes. */
void user_page_access(struct ptsim_machine *m, enum ptsim_access_kind kind, uint64_t n);
/* The program's call into a page it executes (ptsim_exec_call's branch and return). */
void user_exec_call(struct ptsim_machine *m);
/* That call's instruction line, at physical address pa, fetched past the L1I (§11.8). */
void user_exec_fetch(struct ptsim_machine *m, uint64_t pa);
/* A walk and fill with no access (a speculative or prefetching walk). */
enum ptsim_fault_kind tlb_fill(struct ptsim_machine *m, const struct hw_as *as, unsigned int cpu,
			       uint64_t va, enum ptsim_access_kind kind);
/*
 * How many pages from va (page aligned) up to end would each miss every TLB
 * and fault in the same walk, because the walk stops at an empty entry above
 * the last level and no cached entry overlaps what that entry covers; 0 when
 * that is not so. *reads: the descriptors each of those walks reads, *last:
 * the empty entry where they stop. Lets an
 * access loop over a hole cost what is mapped, with the same counts.
 */
uint64_t tlb_fault_run(const struct ptsim_machine *m, const struct hw_as *as, unsigned int cpu,
		       uint64_t va, uint64_t end, enum ptsim_access_kind kind, unsigned int *reads,
		       const void **last);
/* Entries of one TLB array of cpu that translate va in as; the largest entry's size. */
unsigned int tlb_probe(const struct ptsim_machine *m, const struct hw_as *as, unsigned int cpu,
		       uint64_t va, enum ptsim_tlb_level which, uint64_t *size);
/* Drop every global (TTBR1) entry: the kernel's tables are gone. Uncounted. */
void tlb_drop_global(struct ptsim_machine *m);
/* Drop every entry on every CPU, uncounted (the local TLBI VMALLE1 of each CPU). */
void tlb_drop_all(struct ptsim_machine *m);
void tlb_invalidate(struct ptsim_machine *m, const struct tlbi_op *op);
/*
 * The DSB of CPU m->exec_cpu completing its TLBIs: the broadcast and local
 * ones, or with local_only (a DSB NSH on a multi-CPU machine) only the local ones.
 */
void tlb_dsb(struct ptsim_machine *m, bool local_only);
/* One entry a lookup of va matches, for the raw API's TLB lookup. */
struct tlb_match {
	enum ptsim_tlb_level which;
	uint64_t pa;		/* the output address of va through it */
	uint64_t size;
	pte_t desc;
	int level;
	bool global;
	unsigned int asid;
};
/* Every entry of cpu's TLBs that translates va for as, up to max of them; how many there are. */
unsigned int tlb_lookup_all(const struct ptsim_machine *m, const struct hw_as *as,
			    unsigned int cpu, uint64_t va, struct tlb_match *out, unsigned int max);
/* Valid user TLB entries that grant more than the tables now do. */
uint64_t tlb_check_user_entries(struct ptsim_machine *m);

/* bbm.c */
void bbm_check_write(struct ptsim_machine *m, const struct hw_as *as, uint64_t va, int level,
		     pte_t old_desc, pte_t new_desc);
/*
 * bbm_check_write for nr consecutive level-3 entries from va, before the
 * stores: ptep[i] cleared to 0, or replaced by pte advanced i pages. The
 * checker ends exactly as nr bbm_check_write calls leave it, and reports
 * the same diagnostics in the same order.
 */
void bbm_check_clear_ptes(struct ptsim_machine *m, const struct hw_as *as, uint64_t va,
			  const pte_t *ptep, unsigned int nr);
void bbm_check_set_ptes(struct ptsim_machine *m, const struct hw_as *as, uint64_t va,
			const pte_t *ptep, pte_t pte, unsigned int nr);
void bbm_tlbi(struct ptsim_machine *m, const struct tlbi_op *op);
/*
 * Move the run of recent breaks into the map: the checker tracks the same
 * breaks, each found by hashing (tests check the run against the map).
 */
void bbm_spill_run(struct ptsim_machine *m);
/*
 * A DSB of CPU m->exec_cpu. Every kind makes the breaks that CPU wrote
 * visible to table walks, so that a TLBI after it covers them (the DSB
 * between the break and the TLBI: RDDMVT's second step); bbm_dsb also
 * completes that CPU's TLBIs, bbm_dsb_store (DSB ISHST) does not.
 */
void bbm_dsb(struct ptsim_machine *m);
void bbm_dsb_store(struct ptsim_machine *m);
int bbm_init(struct bbm_state *b, unsigned int nr_cpus);
int bbm_copy(struct bbm_state *dst, const struct bbm_state *src);
void bbm_free(struct bbm_state *b);

/*
 * No break of a level-`level` entry is tracked: a write making such an entry
 * valid where it was not has nothing to be checked against.
 */
bool bbm_level_untracked(const struct ptsim_machine *m, int level);

/*
 * Descriptor bits a change of which alone bbm_needs_break lets through and
 * that are neither size nor contiguity: none is an output-address bit in any
 * descriptor format (LPA2 puts OA[51:50] in bits 9:8, 52-bit 64K pages
 * OA[51:48] in bits 15:12).
 */
#define BBM_IN_PLACE_BITS (DESC_AP1 | DESC_AP2 | DESC_AF | DESC_GP | DESC_DBM | DESC_PXN | \
			   DESC_UXN | DESC_SW_MASK)

/* Does a valid -> valid change of one live descriptor need break-before-make on this CPU? */
const char *bbm_needs_break(const struct ptsim_machine *m, int level, pte_t old_desc,
			    pte_t new_desc);

#endif
