/* SPDX-License-Identifier: MIT */
/*
 * The raw architectural API: descriptor sequences of your own, checked by the
 * same break-before-make checker and TLB model as the modelled kernel paths
 * (doc/raw-sequences.md). It works on bare address spaces: tables and an
 * ASID, no VMA and no folio. Every call counts its events through the same
 * primitives as the kernel paths (descriptor reads and writes, TLBIs, DSBs,
 * ISBs, table allocations), in the operation's stats (ptsim_last_stats).
 *
 * Levels are the Arm ARM's: 3 is the last level; the root is the
 * geometry's start level. Descriptors are VMSAv8-64 stage-1 encodings.
 */
#ifndef PTSIM_RAW_H
#define PTSIM_RAW_H

#include <stdint.h>
#include <ptsim/export.h>
#include <ptsim/tlb.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ptsim_machine;
struct ptsim_mm;

/*
 * A bare user (TTBR0) address space of m: a root table and an ASID from the
 * kernel's allocator, no VMAs (ptsim_mmap and ptsim_mmap_file refuse it with
 * -EINVAL). Its leaves map no folio: the invariant checker checks its tables
 * and TLB entries, not folio mapcounts. Free it with ptsim_mm_destroy; clone
 * and ptsim_access work as on any mm. -EINVAL for bad arguments, -ENOMEM.
 */
PTSIM_API int ptsim_raw_mm_create(struct ptsim_machine *m, struct ptsim_mm **out);

/*
 * Allocate a table page for the `level` table covering va and attach it
 * below the level - 1 entry covering va (the level - 1 table must exist, and
 * have no table attached at that entry): counted as a table allocation.
 * The descriptor pointing at it is not written: write it yourself
 * (*pa | 3, or keep a block there and write the table descriptor later, for
 * a block-to-table change). level: start level + 1 .. 3. -EINVAL for a bad
 * mm or level, -ENOENT when the level - 1 table is missing, -EEXIST when
 * a table is attached there, -ENOMEM.
 */
PTSIM_API int ptsim_raw_table_alloc(struct ptsim_mm *mm, uint64_t va, int level, uint64_t *pa);

/*
 * Detach and free the `level` table covering va (and every table below it):
 * the parent entry must not be a valid table descriptor any more (write it
 * invalid, or a block, first). Counted as table frees. -EINVAL, -ENOENT when
 * no such table, -EBUSY when the parent entry still points at it.
 */
PTSIM_API int ptsim_raw_table_free(struct ptsim_mm *mm, uint64_t va, int level);

enum ptsim_raw_write_flags {
	/*
	 * The old and new output addresses hold the same bytes: an output
	 * address change between two read-only entries (AP[2] set, DBM clear)
	 * needs no break (Arm ARM RWHZWS).
	 */
	PTSIM_RAW_SAME_CONTENTS = 1u << 0,
};

/*
 * Store desc in the entry at (va, level), as `cpu` executes it: counted as
 * one descriptor write and shown to the break-before-make checker. The
 * table at `level` covering va must exist. A valid table descriptor must
 * point at the table attached there (ptsim_raw_table_alloc). -EINVAL for a
 * bad mm, CPU, level, flag or table descriptor, -ENOENT when the table is
 * missing.
 */
PTSIM_API int ptsim_raw_write(struct ptsim_mm *mm, unsigned int cpu, uint64_t va, int level,
			      uint64_t desc, unsigned int flags);

/*
 * Compare-and-swap of the entry at (va, level) as `cpu` executes it: when it
 * holds expected, desc is stored (checked as ptsim_raw_write); *old (may be
 * NULL) gets the value found. Counted as one atomic (pte_cas at level 3),
 * or as one read when the comparison fails. Errors as ptsim_raw_write; a
 * failed comparison is not an error (compare *old).
 */
PTSIM_API int ptsim_raw_cas(struct ptsim_mm *mm, unsigned int cpu, uint64_t va, int level,
			    uint64_t expected, uint64_t desc, unsigned int flags, uint64_t *old);

/* Load the entry at (va, level) as `cpu`: counted as one descriptor read. Errors as ptsim_raw_write. */
PTSIM_API int ptsim_raw_read(struct ptsim_mm *mm, unsigned int cpu, uint64_t va, int level,
			     uint64_t *out);

enum ptsim_raw_barrier {
	/* Full DSBs: this CPU's stores visible to every walk, its TLBIs complete. */
	PTSIM_RAW_DSB_SY,
	PTSIM_RAW_DSB_ISH,
	/* Stores only: this CPU's breaks become visible to walks; TLBIs stay pending. */
	PTSIM_RAW_DSB_ISHST,
	/*
	 * This CPU only: completes its local TLBIs; on a machine of one CPU it
	 * is a full DSB, on several it makes nothing visible to the others.
	 */
	PTSIM_RAW_DSB_NSH,
	/* Context synchronisation: counted; the checker needs nothing from it. */
	PTSIM_RAW_ISB,
};

/* One barrier executed by cpu, counted as its event. -EINVAL for a bad CPU or kind. */
PTSIM_API int ptsim_raw_barrier(struct ptsim_machine *m, unsigned int cpu,
				enum ptsim_raw_barrier kind);

enum ptsim_raw_tlbi_kind {
	PTSIM_RAW_TLBI_VA,	/* VAE1: one page, one ASID (and global entries) */
	PTSIM_RAW_TLBI_VAL,	/* VALE1: last level only */
	PTSIM_RAW_TLBI_VAA,	/* VAAE1: one page, every ASID */
	PTSIM_RAW_TLBI_VAAL,	/* VAALE1 */
	PTSIM_RAW_TLBI_RVA,	/* RVAE1 (FEAT_TLBIRANGE): a range, one ASID */
	PTSIM_RAW_TLBI_RVAL,	/* RVALE1 */
	PTSIM_RAW_TLBI_RVAA,	/* RVAAE1: a range, every ASID */
	PTSIM_RAW_TLBI_RVAAL,	/* RVAALE1 */
	PTSIM_RAW_TLBI_ASID,	/* ASIDE1: that ASID's non-global entries only */
	PTSIM_RAW_TLBI_VMALL,	/* VMALLE1: everything */
};

struct ptsim_raw_tlbi {
	enum ptsim_raw_tlbi_kind kind;
	int broadcast;		/* nonzero: the IS form, reaching every CPU; 0: this CPU only */
	/* for the by-ASID kinds (ptsim_mm_asid); below 2^(the CPU's ASID bits) for every kind */
	unsigned int asid;
	uint64_t va;		/* page aligned; the range forms' start */
	/*
	 * Pages covered by a range form: (NUM + 1) << (5 * SCALE + 1) for
	 * NUM 0..31, SCALE 0..3, as the instruction encodes it. Others: 0 or 1.
	 */
	uint64_t pages;
	/* The TTL hint: the level (1..3) of the entries to invalidate, 0 for none. */
	int ttl_level;
};

/*
 * One TLBI executed by cpu: counted as its event (tlbi_va, tlbi_range,
 * tlbi_local, ...), applied to the TLB model (the IS form on every CPU, the
 * local form on cpu only; with a TTL hint only entries of that level) and
 * to the checker (a break is covered only once a DSB of its writer has made
 * it visible, and the TLBI completes at a DSB of cpu). The range forms need
 * FEAT_TLBIRANGE on the machine's CPU. -EINVAL for a bad CPU, kind, range,
 * alignment, hint or ASID (one with more bits than the CPU's 8 or 16).
 */
PTSIM_API int ptsim_raw_tlbi(struct ptsim_machine *m, unsigned int cpu,
			     const struct ptsim_raw_tlbi *op);

/* One TLB entry a lookup matched. */
struct ptsim_raw_tlb_entry {
	enum ptsim_tlb_level tlb;	/* the structure holding it */
	uint64_t pa;			/* the output address it gives the looked-up VA */
	uint64_t size;			/* bytes it covers */
	uint64_t desc;			/* the leaf descriptor as the walk read it */
	int level;			/* the level of that descriptor */
	int global;			/* nonzero: nG was clear */
	unsigned int asid;
};

/*
 * Every entry of cpu's TLBs (L1 data, L1 instruction, L2) that translates va
 * for mm, so that a stale translation can be seen: *n gets how many there
 * are, out (may be NULL when max is 0) the first max of them. Counts nothing
 * and changes nothing (no LRU update). -EINVAL for bad arguments.
 */
PTSIM_API int ptsim_raw_tlb_lookup(const struct ptsim_mm *mm, unsigned int cpu, uint64_t va,
				   struct ptsim_raw_tlb_entry *out, unsigned int max,
				   unsigned int *n);

#ifdef __cplusplus
}
#endif

#endif
