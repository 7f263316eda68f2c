/* SPDX-License-Identifier: MIT */
#ifndef PTSIM_UFFD_H
#define PTSIM_UFFD_H

#include <stdbool.h>
#include <stdint.h>
#include <ptsim/export.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ptsim_machine;
struct ptsim_mm;

#define PTSIM_UFFDIO_MOVE_MODE_DONTWAKE		0x1u
#define PTSIM_UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES	0x2u

/*
 * UFFDIO_REGISTER: register every VMA of [start, start+len) with the mm's
 * userfaultfd context (one context per mm in the model). The range needs a
 * VMA in it, and every VMA there must be anonymous private (-EINVAL
 * otherwise); holes are skipped, as userfaultfd_register does. VMAs are split at the
 * range's edges (splitting a PMD THP an edge cuts) and merged afterwards.
 */
PTSIM_API int ptsim_uffd_register(struct ptsim_mm *mm, uint64_t start, uint64_t len);

/* UFFDIO_REGISTER modes and the UFFDIO_API features of uffd-wp (the kernel's values). */
#define PTSIM_UFFDIO_REGISTER_MODE_MISSING	0x1u
#define PTSIM_UFFDIO_REGISTER_MODE_WP		0x2u
#define PTSIM_UFFD_FEATURE_PAGEFAULT_FLAG_WP	(1u << 0)
#define PTSIM_UFFD_FEATURE_WP_HUGETLBFS_SHMEM	(1u << 12)
#define PTSIM_UFFD_FEATURE_WP_UNPOPULATED	(1u << 13)
#define PTSIM_UFFD_FEATURE_WP_ASYNC		(1u << 15)

/*
 * UFFDIO_API with `features`, then UFFDIO_REGISTER of [start, start+len) in
 * `mode` (userfaultfd_api, userfaultfd_register, vma_can_userfault; v6.12
 * fs/userfaultfd.c). Each distinct feature set is its own userfaultfd
 * context: WP_ASYNC implies WP_UNPOPULATED, as userfaultfd_api makes it.
 * PAGEFAULT_FLAG_WP is accepted where the WP features are (it changes only
 * the fault message, which the model has none of) and does not make a
 * context of its own.
 * -EINVAL: an empty or unknown mode, a feature other than the four above,
 * MODE_WP or a WP feature on a preset without "uffd_wp" (arm64 before v6.10
 * has no HAVE_ARCH_USERFAULTFD_WP: userfaultfd_api drops the features,
 * userfaultfd_register refuses the mode), a bad range, a range with no VMA
 * (holes between VMAs are allowed, as in the kernel), or a VMA in it
 * that is not private anonymous memory (shmem and file memory with uffd-wp
 * are not modelled). -EBUSY: a VMA already registered with another context
 * (other features). A VMA of the same context whose modes already include
 * `mode` is left as it is (userfaultfd_register_range); another VMA gets
 * `mode` in place of its modes. The VMAs are split at the range's edges and merged
 * afterwards. On error the model is unchanged, with one exception the
 * kernel shares (userfaultfd_register_range stops where it fails): when the
 * range has holes and splitting a VMA after one runs out of memory
 * (-ENOMEM), the runs of VMAs before that hole stay registered.
 * ptsim_uffd_register is MODE_MISSING with no features.
 */
PTSIM_API int ptsim_uffd_register_mode(struct ptsim_mm *mm, uint64_t start, uint64_t len,
				       unsigned int mode, unsigned int features);

#define PTSIM_UFFDIO_WRITEPROTECT_MODE_WP	0x1u
#define PTSIM_UFFDIO_WRITEPROTECT_MODE_DONTWAKE	0x2u

/*
 * UFFDIO_WRITEPROTECT (userfaultfd_writeprotect -> mwriteprotect_range ->
 * uffd_wp_range -> change_protection, v6.12): with MODE_WP, every present
 * entry of [start, start+len) is write-protected with PTE_UFFD_WP, every
 * swap entry gets PTE_SWP_UFFD_WP, and, when the registration has
 * WP_UNPOPULATED (or WP_ASYNC), every none entry gets a uffd-wp PTE marker,
 * the page tables being allocated for it; without MODE_WP the bits and
 * markers are resolved (cleared), and an exclusive anonymous page of a
 * writable VMA becomes writable again (MM_CP_TRY_CHANGE_WRITABLE). Counted
 * as change_protection counts (the flush through the mmu_gather). -EAGAIN
 * while mmap_changing (first), -EINVAL for a bad range or mode (WP with
 * DONTWAKE), -ENOENT when a VMA of the range is not registered in WP mode
 * (or there is none), after the VMAs before it were done, as the kernel
 * does; -ENOMEM when a table cannot be allocated (what was done stays).
 */
PTSIM_API int ptsim_uffd_writeprotect(struct ptsim_mm *mm, uint64_t start, uint64_t len,
				      unsigned int mode);

/*
 * UFFDIO_MOVE: userfaultfd_move() and move_pages(). Returns the bytes moved
 * (> 0), or a negative errno when nothing was moved (-EINVAL, -ENOENT,
 * -EEXIST, -EBUSY, -EAGAIN, -ENOMEM; -EFAULT for a uffd-wp marker at the
 * source, as v6.12 move_pages_pte); a move that fails before anything
 * changed leaves the model as it was. The checks come in the kernel's order
 * (doc/uffd-move.md): mmap_changing first (-EAGAIN, whatever the arguments;
 * only a NULL or kernel mm is -EINVAL before it), then the arguments
 * (-EINVAL), then the VMAs: a missing dst or src VMA is -ENOENT with
 * PTSIM_FEAT_UFFD_PER_VMA_LOCK (v6.9), -EINVAL without; a shared VMA, a range
 * past its VMA's end, different access flags or protection, one VMA mlocked
 * and the other not, a read-only source or an unregistered dst are -EINVAL. A failure after some pages moved returns the bytes moved, as the
 * kernel does; and, as in the kernel, an error can also come back after a
 * source THP was split or (the batched variant's sticky error) after a batch
 * moved: the model keeps what happened and the totals count it.
 * PTSIM_FEAT_UFFD_MOVE_BATCHING selects the per-page
 * ptep_clear_flush path or the batched path with one flush_tlb_range per batch.
 */
PTSIM_API int64_t ptsim_uffd_move(struct ptsim_mm *mm, uint64_t dst, uint64_t src, uint64_t len,
				  unsigned int mode);

#define PTSIM_UFFDIO_COPY_MODE_DONTWAKE		0x1u
#define PTSIM_UFFDIO_ZEROPAGE_MODE_DONTWAKE	0x1u

/*
 * UFFDIO_COPY (userfaultfd_copy, mfill_atomic_copy; v6.12): at each page of
 * [dst, dst+len) a new anonymous page is allocated, the source page copied
 * in (copy_from_user; a source page not mapped yet is faulted in first, as
 * the kernel's retry outside the locks does) and mapped exclusive, dirty,
 * and writable where the VMA is; the destination range must lie in one
 * registered private anonymous VMA. UFFDIO_ZEROPAGE (mfill_atomic_zeropage)
 * maps the shared zero page instead. Returns the bytes placed (len when
 * all; the ioctl's -EAGAIN for a short copy is the caller's to derive), or
 * a negative errno when none was: -EAGAIN while mmap_changing (before the
 * arguments are looked at), -EINVAL for an unaligned or empty range or an
 * unknown mode (COPY_MODE_WP is not modelled), a
 * shared or file VMA (shmem's mfill is not modelled), -ENOENT when no VMA
 * holds the whole destination or it is not registered, -EEXIST for a page
 * already mapped (or a PMD THP; for ZEROPAGE also a uffd-wp marker, which
 * COPY overwrites, v6.12 mfill_atomic_install_pte's pte_none_mostly),
 * -EFAULT for a source that cannot be read,
 * -ENOMEM. The source address must be page aligned (the kernel allows an
 * unaligned one). A call that placed nothing leaves the model as it was;
 * what was placed before an error stays, and is counted.
 */
PTSIM_API int64_t ptsim_uffd_copy(struct ptsim_mm *mm, uint64_t dst, uint64_t src, uint64_t len,
				  unsigned int mode);
PTSIM_API int64_t ptsim_uffd_zeropage(struct ptsim_mm *mm, uint64_t start, uint64_t len,
				      unsigned int mode);

/*
 * ctx->mmap_changing: while set, UFFDIO_MOVE fails with -EAGAIN before it
 * looks at its arguments (userfaultfd_move), counting only its system call.
 */
PTSIM_API int ptsim_uffd_set_mmap_changing(struct ptsim_mm *mm, bool changing);

/*
 * Folio state a test or workload needs to set up, for the folio mapped at va:
 * pinned or its page's PageAnonExclusive. -ENOENT when no folio is mapped at va.
 *
 * A pin is a FOLL_PIN pin (pin_user_pages, unpin_user_page), and holds a
 * reference. ptsim_folio_set_pinned is a state setter, not the kernel's path
 * (that is ptsim_pin_user_pages, include/ptsim/gup.h): pinned gives the
 * folio one pin when it has none (pinning a pinned folio changes nothing),
 * with no fault, no unshare and nothing counted; !pinned drops every pin it
 * holds. A pinned folio is folio_maybe_dma_pinned: fork copies its
 * exclusive pages for the child, UFFDIO_MOVE refuses it (-EBUSY), reclaim and
 * swap-out keep it, a write fault on a page of it that is not exclusive
 * copies the page rather than reusing it. When its last
 * mapping goes (munmap, exit, a COW copy, ptsim_mm_destroy) the folio stays
 * allocated and is not handed out again until the pin is released, with
 * ptsim_unpin_user_page (or ptsim_folio_set_pinned(false) while it is still
 * mapped); destroying the machine frees it.
 */
PTSIM_API int ptsim_folio_set_pinned(struct ptsim_mm *mm, uint64_t va, bool pinned);
PTSIM_API int ptsim_folio_set_exclusive(struct ptsim_mm *mm, uint64_t va, bool exclusive);
/*
 * unpin_user_page for the page at physical address pa (the pa
 * ptsim_translate or ptsim_pin_user_pages gave for it): releases one of its
 * folio's pins, mapped or not. An anonymous folio nobody maps or holds any
 * more is freed then (folio_put; counted as this operation's FOLIO_FREE); a
 * file folio stays in the page cache. -ENOENT when no folio holds pa,
 * -EINVAL when its folio is not pinned.
 */
PTSIM_API int ptsim_unpin_user_page(struct ptsim_machine *m, uint64_t pa);
/*
 * Another thread holds the folio lock for the next `attempts` trylocks, at
 * most PTSIM_MAX_LOCK_CONTENTION (-EINVAL above): UFFDIO_MOVE retries a
 * contended large folio from the top, so each attempt costs a retry.
 * -ENOMEM when the model cannot record the contention (nothing changes).
 */
#define PTSIM_MAX_LOCK_CONTENTION 1024u
PTSIM_API int ptsim_folio_contend_lock(struct ptsim_mm *mm, uint64_t va, unsigned int attempts);

/*
 * Swap out the order-0 anonymous pages of [start, start+len): each present
 * PTE becomes a swap entry (exclusive when the page was) and the folio is
 * freed; one range flush covers the range. -EINVAL when a present page is not
 * an order-0 anonymous folio, -EBUSY when one is pinned or holds a FOLL_GET
 * reference (reclaim keeps it);
 * nothing changes then. Costs what is mapped in the range, not its length.
 */
PTSIM_API int ptsim_swapout(struct ptsim_mm *mm, uint64_t start, uint64_t len);

#ifdef __cplusplus
}
#endif

#endif
