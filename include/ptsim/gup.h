/* SPDX-License-Identifier: MIT */
#ifndef PTSIM_GUP_H
#define PTSIM_GUP_H

#include <stdint.h>
#include <ptsim/export.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ptsim_machine;
struct ptsim_mm;

/* GUP flags: the kernel's FOLL_* of the same name (include/linux/mm_types.h). */
#define PTSIM_FOLL_WRITE	0x1u	/* the pages will be written: break COW, fault writable */
#define PTSIM_FOLL_LONGTERM	0x2u	/* a long-term pin (pin only) */

/*
 * pin_user_pages (v6.12 mm/gup.c, with the caller's mmap_read_lock, as
 * gup_test and io_uring take it): FOLL_PIN on nr_pages pages from start
 * (page aligned), one page at a time as __get_user_pages follows them. A
 * missing page, or with PTSIM_FOLL_WRITE one that is not writable, is
 * faulted in (faultin_page: a write fault breaks COW) and followed again.
 * Without PTSIM_FOLL_WRITE, a page gup_must_unshare refuses (an anonymous
 * page that is not PageAnonExclusive; with PTSIM_FOLL_LONGTERM also the
 * shared zero page or a page-cache page of a private mapping, a COW
 * mapping even when read-only) takes an unshare fault first
 * (FAULT_FLAG_UNSHARE): do_wp_page reuses it, marking it exclusive, or maps
 * a read-only exclusive anonymous copy. So a pinned anonymous page is always
 * exclusive. In a private file mapping a write (PTSIM_FOLL_WRITE) faults in
 * a private copy (do_cow_fault, or do_wp_page for a mapped page-cache page). The pin (try_grab_folio) adds GUP_PIN_COUNTING_BIAS (1024) to
 * a small folio's refcount, one reference and one _pincount to a large one;
 * the shared zero page takes no pin. FOLL_LONGTERM's migration of
 * unpinnable folios (check_and_migrate_movable_folios) never moves a page:
 * the model has no ZONE_MOVABLE, CMA or fsdax memory.
 *
 * pas (nr_pages entries) receives each page's physical address, for
 * ptsim_unpin_user_page. Returns the pages pinned; a failure part way
 * returns the pages pinned before it, keeping their pins and what the
 * faults mapped, as the kernel does; a failure at the first page returns
 * the error: -EFAULT when no VMA holds the page or the VMA does not allow
 * the access (check_vma_flags: VM_WRITE for a write, else VM_READ), or a
 * file fault is a SIGBUS (past the end of the file); -ENOMEM when memory
 * runs out. -EINVAL for bad arguments
 * (nothing changes then). Counted: the walk (cond_resched, the PTE lock,
 * ptep_get, vm_normal_page), the faults, and the references taken.
 */
PTSIM_API int64_t ptsim_pin_user_pages(struct ptsim_mm *mm, uint64_t start, uint64_t nr_pages,
				       unsigned int foll_flags, uint64_t *pas);
/*
 * get_user_pages (FOLL_GET | FOLL_TOUCH): as above, but each page gets a
 * plain reference (folio_ref_add(1), as vmsplice's does; the shared zero
 * page gets one too, v6.12 try_grab_folio), which ptsim_put_page drops; no
 * unshare fault (gup_must_unshare is for FOLL_PIN
 * only) and no PTSIM_FOLL_LONGTERM (-EINVAL, is_valid_gup_args). A page
 * held so is not pinned: fork shares it, but a write fault cannot reuse it
 * (its refcount is above its mapcount) and reclaim keeps it.
 */
PTSIM_API int64_t ptsim_get_user_pages(struct ptsim_mm *mm, uint64_t start, uint64_t nr_pages,
				       unsigned int foll_flags, uint64_t *pas);
/*
 * put_page for one reference ptsim_get_user_pages took on the page at pa:
 * an anonymous folio nobody maps or holds any more is freed; the shared
 * zero page, which FOLL_GET references too (v6.12 try_grab_folio), never
 * is. -ENOENT when no folio (nor the zero page) holds pa, -EINVAL when it
 * holds no such reference.
 */
PTSIM_API int ptsim_put_page(struct ptsim_machine *m, uint64_t pa);

#ifdef __cplusplus
}
#endif

#endif
