/* SPDX-License-Identifier: MIT */
#ifndef PTSIM_MM_H
#define PTSIM_MM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <ptsim/export.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ptsim_machine;
struct ptsim_mm;

#define PTSIM_PROT_NONE		0x0u
#define PTSIM_PROT_READ		0x1u
#define PTSIM_PROT_WRITE	0x2u
#define PTSIM_PROT_EXEC		0x4u

#define PTSIM_MAP_PRIVATE	0x1u
#define PTSIM_MAP_SHARED	0x2u
#define PTSIM_MAP_ANONYMOUS	0x4u

/*
 * A user address space on m, with its own page tables and an ASID from the
 * kernel's allocator (a full ASID space rolls the generation over and
 * flushes every TLB, counted in this call).
 */
PTSIM_API int ptsim_mm_create(struct ptsim_machine *m, struct ptsim_mm **out);
/*
 * Frees mm: its tables, the folios only it maps, its VMAs. Counts nothing:
 * the machine's totals stay as they were and ptsim_last_stats reads zero
 * afterwards (the counted teardown is ptsim_mm_exit's, exit_mmap). Also
 * frees a machine made by ptsim_mm_clone.
 */
PTSIM_API void ptsim_mm_destroy(struct ptsim_mm *mm);
/*
 * Identical copy of mm for before/after runs. Features are machine-wide, so the
 * copy lives in a private copy of mm's machine (ptsim_mm_machine() returns it);
 * ptsim_mm_destroy() of the copy destroys that machine too.
 */
PTSIM_API int ptsim_mm_clone(const struct ptsim_mm *mm, struct ptsim_mm **out);
/* The machine mm lives on (NULL for NULL), and the ASID it has now (it may change at a rollover). */
PTSIM_API struct ptsim_machine *ptsim_mm_machine(const struct ptsim_mm *mm);
PTSIM_API int ptsim_mm_asid(const struct ptsim_mm *mm, unsigned int *out);
/*
 * How many threads share mm (mm_users; 1 when created). It matters where the
 * kernel treats a single-threaded process specially, as NUMA hinting does.
 */
PTSIM_API int ptsim_mm_set_threads(struct ptsim_mm *mm, unsigned int threads);
/*
 * What a call that meets a hole part-way does. Off (the default): it changes
 * nothing and returns -ENOMEM (libptsim's all-or-nothing contract). On: it
 * does what the kernel does, for replaying a kernel test: ptsim_mprotect and
 * ptsim_mlock / ptsim_munlock change the VMAs before the first hole, then
 * return -ENOMEM (do_mprotect_pkey, apply_vma_lock_flags; mlock does not
 * populate then); ptsim_madvise applies the advice to every VMA of the
 * range, skipping the holes, then returns -ENOMEM (madvise_walk_vmas'
 * unmapped_error). Either way no VMA at the range's start (mprotect, mlock)
 * or none in it (madvise) is -ENOMEM with nothing changed, and with it on
 * the totals count the work done before the -ENOMEM, as the kernel does it.
 * A clone and a forked child keep the setting. -EINVAL for a NULL or kernel
 * mm.
 */
PTSIM_API int ptsim_mm_set_kernel_errors(struct ptsim_mm *mm, bool on);
/* Bytes of page-table pages this mm owns (mm_pgtables_bytes). */
PTSIM_API int ptsim_mm_pgtable_bytes(const struct ptsim_mm *mm, uint64_t *out);

/*
 * mmap: anonymous mappings for now. addr must be page aligned and the range
 * free (MAP_FIXED_NOREPLACE semantics); len is rounded up to whole pages, as
 * do_mmap's PAGE_ALIGN does (-ENOMEM if that passes 2^64); addr 0 lets the
 * model choose (first fit above 4 GiB), so no fixed mapping can lie below
 * mmap_min_addr (4096).
 * MAP_SHARED gives the mapping a shmem object of len bytes
 * (shmem_zero_setup): every mapping of it, in this mm and in forked children,
 * faults the same pages from it, and the last VMA mapping it frees it (see
 * doc/mm-lifecycle.md). A new private mapping that continues a compatible
 * neighbour (the same flags, protection and userfaultfd registration, for a
 * file the same open file at the next offset, and a compatible anon_vma) is
 * taken by it, as __mmap_region's vma_merge_new_range does: one VMA, as
 * /proc/PID/maps shows (a shared anonymous mapping has an object of its own
 * and never merges). After
 * ptsim_mlockall(MCL_FUTURE) the VMA is
 * VM_LOCKED and populated (mm_populate) unless MCL_ONFAULT was given.
 * *out_addr may be NULL. -EEXIST when the range is
 * taken, -ENOMEM when no free range is large enough (or no memory is left).
 */
PTSIM_API int ptsim_mmap(struct ptsim_mm *mm, uint64_t addr, uint64_t len, unsigned int prot,
			 unsigned int flags, uint64_t *out_addr);

/*
 * Fault in [addr, addr+len) of an anonymous VMA with folios of the given
 * order, as the anonymous fault path does (write fault: dirty, young and
 * writable where the VMA allows). order 0: one set_ptes(1) per page; mTHP
 * orders below the PMD order: one set_ptes(nr) per folio (aligned blocks get
 * the contiguous bit); the PMD order: one PMD leaf per folio. The range must be
 * aligned to the folio size and not yet populated. A shared anonymous VMA
 * takes order 0 only (shmem_enabled "never": no shmem THP): each page is its
 * shmem object's, found or allocated, mapped with set_ptes(1). -EFAULT when
 * the range is not inside one VMA, the VMA is PROT_NONE, or (shared) the
 * range goes past the shmem object; -EEXIST when part of it is already
 * populated; -EINVAL for a file mapping, a read fault of order above 0, or a
 * shared anonymous VMA with an order above 0. A failure changes nothing.
 */
PTSIM_API int ptsim_populate(struct ptsim_mm *mm, uint64_t addr, uint64_t len,
			     unsigned int order, bool write);

/*
 * __split_huge_pmd on every PMD-mapped THP in [addr, addr+len): the PMD is
 * replaced by a PTE table filled with one set_ptes(HPAGE_PMD_NR). Costs what
 * is mapped in the range, not its length. -EINVAL for a kernel or raw mm
 * (a raw mm's blocks are the caller's to split, ptsim/raw.h).
 */
PTSIM_API int ptsim_split_huge_pmd(struct ptsim_mm *mm, uint64_t addr, uint64_t len);

/*
 * Split the anonymous THP mapped at va into folios of new_order, as the
 * debugfs split_huge_pages interface does for one address
 * (split_huge_pages_pid -> split_folio_to_order ->
 * split_huge_page_to_list_to_order, v6.12): the folio's mappings are
 * unmapped and mapped again page by page (a PMD-mapped THP has its PMD split
 * first), every page keeps its PFN, exclusivity and index, and a new folio
 * no entry maps any more is freed. -EINVAL for a new_order not below the
 * folio's order, for order 1 (not supported for anonymous THP), for a
 * nonzero new_order before v6.10 (feature "split_to_order"), for an order-0
 * or file folio (file and shmem THP splits are not modelled); -ENOENT when
 * nothing is mapped at va; -EBUSY when a pin holds the folio or another mm
 * maps it too (can_split_folio's extra references; the model unmaps from no
 * other mm); -EAGAIN when its lock is held (split_huge_pages_pid skips it);
 * -ENOMEM when memory runs out (nothing changed; a PMD already split stays
 * split). The counts of a PMD-mapped split are an approximation: PTEs are
 * written where the kernel writes migration entries.
 */
PTSIM_API int ptsim_split_folio(struct ptsim_mm *mm, uint64_t va, unsigned int new_order);

/*
 * munmap (do_vmi_munmap): the VMAs of [addr, addr+len) go; VMAs the range
 * cuts are split first (a PMD THP an edge cuts is split to PTEs). Every
 * mapping is zapped (zap_pte_range, batched per folio with
 * "zap_pte_batching"), the tables no other VMA shares are freed, and the
 * mmu_gather flushes: at every VMA's end, when its page batches fill, and
 * for the freed tables. len is rounded up to pages; nothing mapped there is
 * not an error. -EINVAL for an unaligned addr, len 0 or a range past the
 * address space; -ENOMEM when host memory runs out (nothing changed).
 */
PTSIM_API int ptsim_munmap(struct ptsim_mm *mm, uint64_t addr, uint64_t len);

/*
 * The address-space teardown of process exit (exit_mmap): every VMA is
 * zapped with a full-mm gather, which on arm64 issues no last-level TLBI
 * (the ASID is not reused before a rollover flushes it), then every table
 * below the PGD is freed and one ASID flush covers the walk caches. Counted
 * like any operation; the mm is left empty and ptsim_mm_destroy frees it
 * (destroying without an exit counts nothing). -EINVAL for a kernel or raw
 * mm: a raw mm has no VMAs, and its tables are freed one by one with
 * ptsim_raw_table_free or all at once, uncounted, by ptsim_mm_destroy.
 */
PTSIM_API int ptsim_mm_exit(struct ptsim_mm *mm);

/*
 * fork's copy of parent's address space (dup_mmap): *child is a new mm on the
 * same machine with the parent's VMAs (not VM_DONTCOPY ones; WIPEONFORK ones
 * empty, uffd registration and mlock dropped: VM_LOCKED and VM_LOCKONFAULT
 * are cleared, and the child has no mlockall(MCL_FUTURE) flags). Anonymous
 * memory is shared copy-on-write:
 * the parent's writable entries are write-protected (per folio batch with
 * "fork_pte_batching"), the child's set with set_ptes, pages lose their
 * exclusive mark; a pinned exclusive page is copied for the child instead.
 * File VMAs without anonymous pages are not copied (the child faults them
 * in), nor are shared anonymous ones: the child maps the same shmem object
 * and faults its pages in. One ASID flush of the parent ends it; the child
 * gets its ASID as it first runs. -ENOMEM changes nothing.
 */
PTSIM_API int ptsim_fork(struct ptsim_mm *parent, struct ptsim_mm **child);

#define PTSIM_MREMAP_MAYMOVE	0x1u
#define PTSIM_MREMAP_FIXED	0x2u
#define PTSIM_MREMAP_DONTUNMAP	0x4u

/*
 * mremap of [old, old+old_len) to new_len bytes. Shrinking unmaps the tail
 * (which may span several VMAs and holes: only [old, old+new_len) must lie
 * in the VMA at old); growing extends the VMA in place when the space after
 * it is free; otherwise, with MAYMOVE, the mapping moves (to new_addr with
 * FIXED, which unmaps what is there first; else to a free range): whole
 * PUD/PMD tables when old and new are aligned alike, else move_ptes per
 * extent, batched per folio with "mremap_pte_batching"; then the old range
 * is unmapped (kept, empty, with DONTUNMAP, which takes shared and file
 * mappings too: as v6.12 move_vma, the old VMA loses VM_LOCKED and
 * VM_LOCKONFAULT, an mlocked one being split at the range's edges first,
 * and when it is exactly the range its anon_vma goes and an anonymous one
 * gets back an unfaulted page offset). A moved uffd-registered VMA is no
 * longer registered (mremap_userfaultfd_prep: the model's context has no
 * UFFD_FEATURE_EVENT_REMAP). What grows or moves must lie inside the VMA at old, except
 * with "mremap_multi_vma" (v6.17): a FIXED move that keeps the size may
 * span several VMAs and the holes between them, each VMA moved in turn to
 * new_addr plus its offset (holes kept, the target unmapped only where a VMA
 * lands). A uffd-registered VMA stops such a move with -EFAULT: when it is
 * the first and more of the range follows, nothing moves; when it comes
 * later, the VMAs before it have moved, as in the kernel, and the totals
 * count that work. *out (may be NULL) is where the mapping is now. -EFAULT
 * when no VMA is at old or the range passes its VMA's end, -ENOMEM when it
 * must move and may not or no space is free, -EPERM for a FIXED new_addr
 * below mmap_min_addr (4096, the kernel's default
 * CONFIG_DEFAULT_MMAP_MIN_ADDR; security_mmap_addr), -EINVAL for bad
 * arguments (DONTUNMAP with old_len != new_len among them). Apart from that
 * multi-VMA -EFAULT, nothing changes on any of these.
 */
PTSIM_API int ptsim_mremap(struct ptsim_mm *mm, uint64_t old, uint64_t old_len, uint64_t new_len,
			   unsigned int flags, uint64_t new_addr, uint64_t *out);

/*
 * mlock / munlock (mlock_fixup, mlock_pte_range): the VMAs of the range whose
 * VM_LOCKED changes are split and merged, and their folios are locked or
 * unlocked: each entry is read twice (the walk, folio_mlock_step), a large
 * folio mapped whole is one step. mlock then populates the range as
 * __mm_populate does: VMA by VMA, faulting missing pages, writing for private
 * writable VMAs and reading (FOLL_FORCE) the others, exec-only ones included.
 * The range is widened to pages (start rounded down, start + len up); an
 * empty one (len 0 at an aligned start) succeeds doing nothing but the
 * syscall. -EINVAL when start + len wraps or passes the address space.
 * Errors that change nothing, totals included: -ENOMEM for a hole in the
 * range (with ptsim_mm_set_kernel_errors on: after the VMAs before the first
 * hole were locked or unlocked, without the populate, as
 * apply_vma_lock_flags does), when a VMA split runs out of memory, or (mlock) when the tables the
 * populate would need alone pass the machine's free memory (pte_alloc takes
 * them from it) or host_memory_limit. mlock's populate stops at
 * its first error and returns it as the syscall does
 * (__mlock_posix_error_return): -ENOMEM for a PROT_NONE VMA or a fault past
 * the end of a file (-EFAULT), -EAGAIN when memory runs out (-ENOMEM). The
 * VMAs then stay locked and what was faulted in stays mapped, as in the
 * kernel, and the totals count that work.
 */
PTSIM_API int ptsim_mlock(struct ptsim_mm *mm, uint64_t start, uint64_t len);
PTSIM_API int ptsim_munlock(struct ptsim_mm *mm, uint64_t start, uint64_t len);

#define PTSIM_MLOCK_ONFAULT	0x1u

/*
 * mlock2 (v6.12 mm/mlock.c): flags 0 is ptsim_mlock; PTSIM_MLOCK_ONFAULT
 * sets VM_LOCKED | VM_LOCKONFAULT instead and populates nothing
 * (populate_vma_page_range leaves a VM_LOCKONFAULT VMA to its faults, which
 * mlock the folios they map; pages already mapped are mlocked by the walk).
 * A VMA that is VM_LOCKED already only changes VM_LOCKONFAULT (split and
 * merged, no page walk). The range, errors and counts are ptsim_mlock's;
 * -EINVAL for an unknown flag.
 */
PTSIM_API int ptsim_mlock2(struct ptsim_mm *mm, uint64_t start, uint64_t len, unsigned int flags);

#define PTSIM_MCL_CURRENT	0x1u
#define PTSIM_MCL_FUTURE	0x2u
#define PTSIM_MCL_ONFAULT	0x4u

/*
 * mlockall / munlockall (apply_mlockall_flags, v6.12 mm/mlock.c).
 * MCL_FUTURE: every later mapping (ptsim_mmap, ptsim_mmap_file) is VM_LOCKED
 * (and VM_LOCKONFAULT with MCL_ONFAULT), and populated as it is made unless
 * on-fault (mm->def_flags; a later mlockall without MCL_FUTURE, or
 * munlockall, clears it). MCL_CURRENT: every VMA is locked as ptsim_mlock2
 * locks a range (on fault with MCL_ONFAULT), then the whole address space
 * is populated as mm_populate does, a VMA that fails left as it is (a
 * PROT_NONE one, a fault past the end of a file). munlockall unlocks every
 * VMA and clears the future flags. -EINVAL for flags 0, an unknown flag or
 * MCL_ONFAULT alone; -ENOMEM when memory runs out for the calls's own work
 * or the zero-page tables of the populate alone would pass the machine's
 * free memory or host_memory_limit (nothing changed). A VMA whose split runs out of memory
 * is left unlocked, as the kernel ignores mlock_fixup's errors.
 */
PTSIM_API int ptsim_mlockall(struct ptsim_mm *mm, unsigned int flags);
PTSIM_API int ptsim_munlockall(struct ptsim_mm *mm);

/* A software walk of the tables (counts nothing). */
struct ptsim_translation {
	uint64_t va_base;	/* start of the leaf mapping */
	uint64_t size;		/* size of the leaf: page or block */
	uint64_t pa;		/* output address of va */
	int level;		/* level of the leaf descriptor */
	uint64_t desc;		/* the raw leaf descriptor */
	bool valid;		/* hardware valid (false: PROT_NONE-style present-invalid) */
	bool user, read_only, pxn, uxn, cont, af, dirty, write;
	unsigned int attrindx;
	/* Room for later fields (zero): the struct keeps its size across versions. */
	uint64_t reserved[4];
};
/*
 * -ENOENT when nothing is mapped at va, or the leaf is an encoding the
 * hardware walk faults on (a reserved level-3 descriptor, bits[1:0] = 0b01,
 * or a block at a level without blocks); -EINVAL for a bad argument.
 */
PTSIM_API int ptsim_translate(const struct ptsim_mm *mm, uint64_t va,
			      struct ptsim_translation *out);

struct ptsim_folio_info {
	uint64_t pfn;		/* head PFN */
	unsigned int order;
	bool anon;
	bool anon_exclusive;	/* PageAnonExclusive of the page at va */
	int mapcount;		/* PTE + PMD mappings of the whole folio */
	uint64_t index;		/* folio->index (page offset for anon: va >> PAGE_SHIFT) */
	/*
	 * FOLL_PIN pins of the folio (_pincount; ptsim_pin_user_pages takes one
	 * per page, ptsim_folio_set_pinned one at most), FOLL_GET references
	 * (ptsim_get_user_pages), and folio_ref_count: a reference per PTE or
	 * PMD mapping, the page cache's one per page of a file or shmem folio,
	 * one per FOLL_GET reference, and per pin GUP_PIN_COUNTING_BIAS (1024)
	 * on a small folio or 1 on a large one (v6.12 try_grab_folio). The
	 * swap cache and LRU batches, which the model does not keep, add none.
	 * Taken from the reserved room (0.3): the struct's size and the fields
	 * before them are unchanged.
	 */
	uint32_t pins;
	uint32_t gets;
	uint64_t refcount;
	/* Room for later fields (zero): the struct keeps its size across versions. */
	uint64_t reserved[2];
};
/* The folio mapped at va: order, mapcount, pins, references, exclusivity. -ENOENT when none is. */
PTSIM_API int ptsim_folio_info(const struct ptsim_mm *mm, uint64_t va,
			       struct ptsim_folio_info *out);

/*
 * Print the tables in the format of the kernel's page-table dump: runs of
 * identical attributes merged, size, level, attributes, CON/BLK.
 */
PTSIM_API int ptsim_ptdump(const struct ptsim_mm *mm, FILE *out);

#ifdef __cplusplus
}
#endif

#endif
