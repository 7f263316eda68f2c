# SPDX-License-Identifier: MIT
"""The kernel loops the model counts, and the paths through them it prices.

Each loop names the object and the function the loop is written in (the
compiler inlines it into its caller: the path finder follows the inlining
chain, not the symbol), the line of the loop's head (the statement each
iteration starts with), and per variant the points its path must pass
through and must not: a line of the loop's function (an inlined helper's
instructions count as the line that calls it), or "helper:line" for a line
of a helper inlined into it. The lines are those of Debian's
linux-source-6.12 (6.12.x); tools/prices/check-loops.py checks them
against the tree before anything is priced.
"""

# Boot-time cpucaps of every CPU we price, as the kernel's alternatives see
# them on those machines (a Linux guest or host of 48-bit VA, 4K pages):
# LSE atomics present (every profiled core is Armv8.1 or later), no 52-bit
# VA, no MTE in use, no KPTI, no errata workarounds, no POE. A path that
# meets an alternative of another cpucap is an error, so the table grows
# only where a priced path needs it.
CPUCAPS = {
    "ARM64_ALWAYS_BOOT": True,
    "ARM64_ALWAYS_SYSTEM": True,
    "ARM64_HAS_LSE_ATOMICS": True,
    "ARM64_HAS_VA52": False,
    "ARM64_MTE": False,
    "ARM64_UNMAP_KERNEL_AT_EL0": False,
    "ARM64_WORKAROUND_REPEAT_TLBI": False,
    "ARM64_HAS_S1POE": False,
    # Cortex-A715's erratum 2645198 (ptep_modify_prot_start's break-before-make
    # of an executable entry): none of the priced cores has it
    "ARM64_WORKAROUND_2645198": False,
    # VHE: the kernel at EL2 reads this CPU's per-CPU offset from TPIDR_EL2, at
    # EL1 (a guest, Android's pKVM host) from TPIDR_EL1; one MRS either way,
    # which llvm-mca prices alike on every model (the LRU batches' paths)
    "ARM64_HAS_VIRT_HOST_EXTN": False,
}

# The CPUs llvm-mca 19 has scheduling models of their own for (the ids of
# `ptsim-bench cpus`, and llvm-mca's -mcpu). Apple M3, Cortex-X1 and
# Neoverse V3 have none in LLVM 19 (its apple-* names are the Cyclone model,
# cortex-x1 the Cortex-A57 one, neoverse-v3 the V2 one): they are priced by
# our own pipeline model, not here.
MCA_CPUS = [
    ("neoverse-n1", "neoverse-n1"),
    ("neoverse-v1", "neoverse-v1"),
    ("neoverse-v2", "neoverse-v2"),
    ("ampereone", "ampere1"),
]

# The CPUs our own pipeline model prices (tools/prices/pipeline.py, parameters
# in pipeline_cpus.py, each with its source).
OUR_CPUS = ["android-x1", "apple-m3", "neoverse-v3"]

# llvm-mca's latency for a bl: the callee is an out-of-line function the
# model counts as a primitive of its own and prices apart, so the call
# itself is one cycle (llvm-mca's default of 100 would stand for the
# callee and fill the reorder buffer).
CALL_LATENCY = 1

# An out-of-line body ("head": None) is priced as a function called back to
# back: the block repeats its prologue and epilogue, and each call's bl writes
# x30 afresh. Without that write a repeated block would chain each call's
# PACIASP to the previous call's AUTIASP through x30; this line stands for
# it (no sources, one ALU micro-op: the bl itself is in the caller's price).
BODY_PROLOGUE = ["adr\tx30, loop"]

# A loop marked "nocontpte" is priced twice: from the objects built as above,
# and from the same built without CONFIG_ARM64_CONTPTE (build-objects.sh TREE
# nocontpte), where ptep_get, set_ptes and the batch hint lose their cont-bit
# tests. The second pricing's variants are named with this suffix; the model
# counts them on kernels without contpte.
NOCONTPTE_SUFFIX = "_nocontpte"


def variants_of(loop):
    """A loop's variants as priced: {name: (spec, built with contpte)}. A
    variant's "nocontpte" entry replaces points of its spec where the object
    without contpte has no instruction of a line (the compiler moved it); a
    "contpte_only" variant is not priced without contpte."""
    out = {name: (spec, True) for name, spec in loop["variants"].items()}
    if loop.get("nocontpte"):
        for name, spec in loop["variants"].items():
            if spec.get("contpte_only"):
                continue
            other = dict(spec)
            other.update(spec.get("nocontpte", {}))
            other.pop("nocontpte", None)
            out[name + NOCONTPTE_SUFFIX] = (other, False)
    return out


LOOPS = [
    {
        "name": "change_pte_range",
        "nocontpte": True,
        "object": "mm/mprotect.o",
        "function": "change_pte_range",
        "source": "mm/mprotect.c",
        "head": 111,
        "variants": {
            # a present entry: ptep_modify_prot_start/commit, the flush range, pages++
            # (without contpte no instruction is pages++'s, line 198: the
            # count is kept in the loop's induction)
            "present": {"via": [169, 195, 198], "nocontpte": {"via": [169, 195]}},
            # and made writable (MM_CP_TRY_CHANGE_WRITABLE, can_change_pte_writable)
            "present_writable": {"via": [169, 193, 195, 198],
                                 "nocontpte": {"via": [169, 193, 195]}},
        },
    },
    {
        # change_pte_range as v6.17 batched it (Dev Jain, "Optimize mprotect()
        # for large folios"), priced from the later kernel's object
        # (build-objects.sh later): v6.17's own source is no longer in Debian's
        # archive. The later loop looks up every present entry's page
        # (vm_normal_page), asks the out-of-line mprotect_folio_pte_batch how
        # many entries go together, and special-cases a batch of one; the
        # commit and the gather's widening are one tail that clang merged from
        # the inlined copies of prot_commit_flush_ptes, which the line table
        # leaves at line 0: the path is named through an instruction of it
        "name": "change_pte_range_batched",
        "later": True,
        "nocontpte": True,
        "object": "mm/mprotect.o",
        "function": "change_pte_range",
        "source": "mm/mprotect.c",
        "head": 343,
        "variants": {
            # an order-0 folio (a batch of one): modify_prot_start_ptes and
            # modify_prot_commit_ptes of one entry, the gather widened
            # (the point is the gather's load of its range, in each object)
            "present": {"via": [380, "@0x9c8"], "nocontpte": {"via": [380, "@0xad8"]}},
            # ... made writable: maybe_change_pte_writable, the anon test and
            # the one page's PageAnonExclusive (commit_anon_folio_batch)
            "present_writable": {"via": [380, "@0x9c8", "commit_anon_folio_batch:181"],
                                 "nocontpte": {"via": [380, "@0xad8",
                                                       "commit_anon_folio_batch:181"]}},
            # a large folio's batch (per batch): the same calls for nr entries
            "large": {"via": [383, "@0xe04"], "nocontpte": {"via": [383, "@0xd54"]}},
            # ... made writable: commit_anon_folio_batch's first page and one
            # sub-batch committed by its own copy of prot_commit_flush_ptes
            # (each further page of the sub-batch is page_anon_exclusive_sub_batch's)
            "large_writable": {"via": [383, "commit_anon_folio_batch:181",
                                               "prot_commit_flush_ptes:138"]},
        },
    },
    {
        # commit_anon_folio_batch's scan for the end of a sub-batch (v6.17): one
        # further page whose PageAnonExclusive matches the first's
        "name": "page_anon_exclusive_sub_batch",
        "later": True,
        "nocontpte": True,
        "object": "mm/mprotect.o",
        "function": "page_anon_exclusive_sub_batch",
        "source": "mm/mprotect.c",
        "head": 152,
        "variants": {"match": {}},
    },
    {
        # v6.17's out-of-line batch size of change_pte_range (clang's choice):
        # for an order-0 folio, its body is the folio's large test and return 1
        "name": "mprotect_folio_pte_batch",
        "later": True,
        "nocontpte": True,
        "object": "mm/mprotect.o",
        "function": "mprotect_folio_pte_batch",
        "source": "mm/mprotect.c",
        "head": None,
        "variants": {"order0": {"via": [113], "avoid": [116]}},
    },
    {
        "name": "zap_pte_range",
        "nocontpte": True,
        "object": "mm/memory.o",
        "function": "zap_pte_range",
        "source": "mm/memory.c",
        "head": 1605,
        "variants": {
            # an order-0 anonymous folio: clear_full_ptes, folio_remove_rmap_ptes, batched free
            # (without contpte the order-0 copy's clear carries line 0: the path
            # avoids the file folio's mm_counter, line 1504, instead)
            "present_anon": {"via": ["zap_present_ptes:1577", "zap_present_folio_ptes:1507",
                                     "zap_present_folio_ptes:1518"],
                             "nocontpte": {"via": ["zap_present_ptes:1577",
                                                   "zap_present_folio_ptes:1518"],
                                           "avoid": ["zap_present_folio_ptes:1504"]}},
            # a large anonymous folio, batched by folio_pte_batch (per batch, not per
            # page). Not priced without contpte: there our pipeline model and llvm-mca
            # disagree by 12.5 % on V1 (18 against 16 cycles), past the 10 % the
            # validation allows, over a loop-carried chain through the batch size
            "present_anon_batch": {"contpte_only": True,
                                   "via": ["zap_present_ptes:1569",
                                           "zap_present_folio_ptes:1507",
                                           "zap_present_folio_ptes:1518"]},
            # an order-0 file folio: get_and_clear_full_ptes, its dirty and young bits
            "present_file": {"via": ["zap_present_ptes:1577", "zap_present_folio_ptes:1494",
                                     "zap_present_folio_ptes:1518"],
                             "nocontpte": {"via": ["zap_present_ptes:1577",
                                                   "zap_present_folio_ptes:1504",
                                                   "zap_present_folio_ptes:1518"]}},
            # an empty entry (pte_none): the loop's own step
            "none": {"via": [1611], "avoid": [1614]},
        },
    },
    {
        "name": "copy_pte_range",
        "nocontpte": True,
        "object": "mm/memory.o",
        "function": "copy_pte_range",
        "source": "mm/memory.c",
        "head": 1132,
        "variants": {
            # an order-0 anonymous folio shared with the child (folio_try_dup_anon_rmap_pte)
            "present_anon": {"via": ["copy_present_ptes:1038", 1188],
                             "avoid": ["copy_present_ptes:1040", "copy_present_ptes:1008"]},
            # a large anonymous folio, batched by folio_pte_batch
            "present_anon_batch": {"via": ["copy_present_ptes:1008", "copy_present_ptes:1012",
                                           1188],
                                   "avoid": ["copy_present_ptes:1014"]},
            # an order-0 file folio (folio_dup_file_rmap_pte)
            "present_file": {"via": ["copy_present_ptes:1048", 1188],
                             "avoid": ["copy_present_ptes:1008"]},
            "none": {"via": [1139], "avoid": [1143]},
        },
    },
    {
        "name": "folio_pte_batch",
        "nocontpte": True,
        "object": "mm/memory.o",
        "function": "folio_pte_batch",
        "source": "mm/internal.h",
        "head": 232,
        # one step of the batch: the next entry matches (per entry, or per contpte
        # block where pte_batch_hint says the block is whole)
        # (without contpte the hint is the constant 1: no instruction is line 254's)
        "variants": {"match": {"via": [241, 254], "nocontpte": {"via": [241]}}},
    },
    {
        "name": "move_ptes",
        "nocontpte": True,
        "object": "mm/mremap.o",
        "function": "move_ptes",
        "source": "mm/mremap.c",
        "head": 192,
        "variants": {
            "present": {"via": [195, 221]},
            "none": {"via": [192], "avoid": [195]},
        },
    },
    {
        "name": "mlock_pte_range",
        "nocontpte": True,
        "object": "mm/mlock.o",
        "function": "mlock_pte_range",
        "source": "mm/mlock.c",
        "head": 385,
        "variants": {
            "mlock": {"via": [388, 397, 402]},
            "munlock": {"via": [388, 399, 402]},
        },
    },
    {
        "name": "madvise_cold_or_pageout_pte_range",
        "object": "mm/madvise.o",
        "function": "madvise_cold_or_pageout_pte_range",
        "source": "mm/madvise.c",
        "head": 449,
        "variants": {
            # MADV_COLD of a young order-0 folio: clear young, deactivate
            "cold_young": {"via": [526, 549, "clear_young_dirty_ptes:1803"],
                           "avoid": [479, 542]},
            # MADV_PAGEOUT of an order-0 folio: isolate it for reclaim
            "pageout": {"via": [542, 546], "avoid": [479, 526, 549]},
        },
    },
    {
        "name": "madvise_free_pte_range",
        "object": "mm/madvise.o",
        "function": "madvise_free_pte_range",
        "source": "mm/madvise.c",
        "head": 678,
        "variants": {
            # a young or dirty order-0 folio, not dirty in the folio and not in the swap cache
            "young_dirty": {"via": [785, 788, "clear_young_dirty_ptes:1803"], "avoid": [753]},
        },
    },
    {
        "name": "contpte_ptep_get",
        "object": "arch/arm64/mm/contpte.o",
        "function": "contpte_ptep_get",
        "source": "arch/arm64/mm/contpte.c",
        "head": 170,
        "variants": {"clean": {"avoid": [173]}, "dirty": {"via": [173]}},
    },
    {
        "name": "contpte_ptep_test_and_clear_young",
        "object": "arch/arm64/mm/contpte.o",
        "function": "contpte_ptep_test_and_clear_young",
        "source": "arch/arm64/mm/contpte.c",
        "head": 321,
        "variants": {"entry": {}},
    },
    {
        # xas_store is out of line (lib/xarray.c): its body, entry to return, is one
        # store of an entry into an existing node's slot, as the swap cache's add and
        # delete make it: xas_create (a call) finds the node, the slot is written,
        # update_node calls the xa_update callback (@0xbe4: its blr, which the line
        # table gives to update_node's line only)
        "name": "xas_store",
        "object": "lib/xarray.o",
        "function": "xas_store",
        "source": "lib/xarray.c",
        "head": None,
        "variants": {
            "slot": {"via": [788, 820, "@0xbe4"],
                     "avoid": [790, 822, 833, "update_node:760"]},
        },
    },
    {
        # swap_writepage's zero test (v6.12, "mm: store zero pages to be swapped
        # out in a bitmap"): one word of a page, zero, read and tested
        "name": "is_folio_zero_filled",
        "object": "mm/page_io.o",
        "function": "is_folio_zero_filled",
        "source": "mm/page_io.c",
        "head": 194,
        "variants": {"zero_word": {}},
    },
    {
        "name": "__clear_young_dirty_ptes",
        "object": "arch/arm64/mm/contpte.o",
        "function": "__clear_young_dirty_ptes",
        "source": "arch/arm64/include/asm/pgtable.h",
        "head": 1392,
        "variants": {
            # MADV_FREE's flags: one plain store of the old and clean entry
            "young_and_dirty": {"via": [1395]},
            # MADV_COLD's: the cmpxchg loop of __clear_young_dirty_pte, first try
            "young": {"via": [1397]},
        },
    },
    {
        "name": "filemap_map_folio_range",
        "object": "mm/filemap.o",
        "function": "filemap_map_folio_range",
        "source": "mm/filemap.c",
        "head": 3551,
        "variants": {
            # an empty entry joins the batch that set_pte_range maps at once
            "batch": {"via": [3569, 3572], "avoid": [3576]},
        },
    },
    {
        "name": "move_pages",
        "object": "mm/userfaultfd.o",
        "function": "move_pages",
        "source": "mm/userfaultfd.c",
        "head": 1770,
        # one page: the PMDs looked up (the destination's allocated if missing), then move_pages_pte
        "variants": {"pte": {"via": [1850, 1872], "avoid": [1776, 1839]}},
    },
    {
        # move_pages_pte is out of line: its body, entry to return, is one page's move
        "name": "move_pages_pte",
        "object": "mm/userfaultfd.o",
        "function": "move_pages_pte",
        "source": "mm/userfaultfd.c",
        "head": None,
        "variants": {
            # a present, exclusive order-0 anonymous page onto an empty entry
            # (its folio taken, locked at once, its anon_vma locked at once: no retry;
            # the shortest such path has both entries under one PTE lock, so
            # double_pt_lock takes one spinlock)
            "present": {"via": [1193, 1195, 1203, 1224, 1232, 1277, 1284, 1298, 1344, 1350,
                                "move_present_pte:1049", "move_present_pte:1057",
                                "move_present_pte:1069", 1431, 1435, 1447],
                        "avoid": [1250, 1308, 1324, 1355,
                                  "move_present_pte:1039", "move_present_pte:1045",
                                  "move_present_pte:1053"]},
        },
    },
    {
        # change_pte_range's callees before v6.17 (arm64 mmu.c, out of line):
        # each body, entry to return, is one entry's start or commit
        "name": "ptep_modify_prot_start",
        "nocontpte": True,
        "object": "arch/arm64/mm/mmu.o",
        "function": "ptep_modify_prot_start",
        "source": "arch/arm64/mm/mmu.c",
        "head": None,
        "variants": {
            # an entry that is not part of a contpte block: ptep_get_and_clear's
            # unfold test (contpte only), then the exchange; the erratum's
            # break-before-make is patched out
            "entry": {"via": ["__ptep_get_and_clear:1282"],
                      "avoid": [1545, "contpte_try_unfold:1601"],
                      "nocontpte": {"avoid": [1545]}},
        },
    },
    {
        "name": "ptep_modify_prot_commit",
        "nocontpte": True,
        "object": "arch/arm64/mm/mmu.o",
        "function": "ptep_modify_prot_commit",
        "source": "arch/arm64/mm/mmu.c",
        "head": None,
        "variants": {
            # set_pte_at of a non-executable entry outside a contpte block that
            # does not end one: set_ptes's unfold test and fold pre-filter
            # (contpte only), __set_ptes's store; no cache maintenance
            "entry": {"avoid": ["contpte_try_unfold:1601", "contpte_try_fold:1593",
                                "__sync_cache_and_tags:392"],
                      "nocontpte": {"avoid": ["__sync_cache_and_tags:392"]}},
        },
    },
    {
        # MADV_FREE's folio into the per-CPU lru_lazyfree batch (mm/swap.c, out
        # of line, as the three below), with contpte only: its tests pass (an
        # anonymous, swap-backed folio on the LRU, not in the swap cache nor
        # unevictable), then the call of __folio_batch_add_and_move
        "name": "folio_mark_lazyfree",
        "object": "mm/swap.o",
        "function": "folio_mark_lazyfree",
        "source": "mm/swap.c",
        "head": None,
        "variants": {"add": {"via": [726]}},
    },
    {
        # the folio_get (an LSE STADD, priced apart), local_lock (preemption
        # off and on: the lazyfree batch takes no IRQ lock), the folio added to
        # a batch it does not fill; the rare preempt_schedule call avoided
        "name": "__folio_batch_add_and_move",
        "object": "mm/swap.o",
        "function": "__folio_batch_add_and_move",
        "source": "mm/swap.c",
        "head": None,
        "variants": {"add": {"via": [223, 232], "avoid": [221, 227, 230, "@0x42c"]}},
    },
    {
        # one folio of a full batch moved (the loop of folio_batch_move_lru): PG_lru
        # cleared (the LDCLRAL at 0x104c: a batch other than lru_add's) and set
        # (LSE atomics, apart), the lruvec the same as the last folio's (no
        # relock), move_fn called through its pointer
        "name": "folio_batch_move_lru",
        "object": "mm/swap.o",
        "function": "folio_batch_move_lru",
        "source": "mm/swap.c",
        "head": 196,
        "variants": {"same_lruvec": {"via": [203, 205, "@0x104c"],
                                     "avoid": ["@0x10a4", "@0x10b0"]}},
    },
    {
        # lru_lazyfree, the lazyfree batch's move_fn: an order-0 folio unlinked
        # from its list and linked to the inactive file list (PG_active,
        # PG_referenced and PG_swapbacked cleared, LSE atomics apart), its seven
        # calls (the LRU size and memcg counters) out of line
        "name": "lru_lazyfree",
        "object": "mm/swap.o",
        "function": "lru_lazyfree",
        "source": "mm/swap.c",
        "head": None,
        "variants": {"move": {"via": ["lruvec_del_folio:368", "lruvec_add_folio:342", 634]}},
    },
    {
        # one tail of __split_huge_page's loop (v6.12 mm/huge_memory.c) for an
        # anonymous folio outside the swap cache split to order 0 with no list
        # (split_folio): __split_huge_page_tail inline (the flags, ->mapping,
        # ->index, the smp_wmb, compound_head, the refcount's release store,
        # the folio_xchg_last_cpupid call, lru_add_page_tail's list_add_tail
        # and SetPageLRU, an LSE atomic apart), then the index and PageAnon
        # tests; the turn starts at the inlined tail (line 3349's first
        # instruction is the check before the loop)
        "name": "__split_huge_page",
        "nocontpte": True,
        "object": "mm/huge_memory.o",
        "function": "__split_huge_page",
        "source": "mm/huge_memory.c",
        "head": 3350,
        "variants": {
            "tail_anon": {"via": ["lru_add_page_tail:3198", 3363, 3366],
                          "avoid": ["lru_add_page_tail:3191", "lru_add_page_tail:3196",
                                    "__split_huge_page_tail:3270",
                                    "__split_huge_page_tail:3273",
                                    "__split_huge_page_tail:3286",
                                    "__split_huge_page_tail:3292", 3354, 3367]},
        },
    },
    {
        # mprotect's MM_CP_TRY_CHANGE_WRITABLE test of one entry (v6.12
        # mm/mprotect.c, global, so out of line): a private VMA's exclusive
        # anonymous page, its body entry to return: the VMA and entry tests,
        # the vm_normal_page call (its body priced apart), PageAnon (the
        # compound_head test, ->mapping) and PageAnonExclusive (the hugetlb
        # page-type test, then the flag). Its code does not depend on
        # CONFIG_ARM64_CONTPTE: kernels without contpte count the same path
        "name": "can_change_pte_writable",
        "object": "mm/mprotect.o",
        "function": "can_change_pte_writable",
        "source": "mm/mprotect.c",
        "head": None,
        "variants": {
            "anon_exclusive": {"via": [70, "PageAnonExclusive:1140"]},
        },
    },
    {
        # an exclusive anonymous folio's rmap moved to another VMA's anon_vma
        # (v6.12 mm/rmap.c, out of line: UFFDIO_MOVE's move_present_pte,
        # do_wp_page's reuse of a folio from another anon_vma): the
        # anon_vma's load and ->mapping's store, entry to return
        "name": "folio_move_anon_rmap",
        "object": "mm/rmap.o",
        "function": "folio_move_anon_rmap",
        "source": "mm/rmap.c",
        "head": None,
        "variants": {"move": {"via": [1229]}},
    },
    {
        # the struct page of a present entry (zap, fork, mprotect, gup, ...):
        # out of line, its body entry to return
        "name": "vm_normal_page",
        "nocontpte": True,
        "object": "mm/memory.o",
        "function": "vm_normal_page",
        "source": "mm/memory.c",
        "head": None,
        "variants": {
            # a normal page: not special, its PFN within the memory map
            "normal": {"via": [646, 657], "avoid": [602]},
        },
    },
]
