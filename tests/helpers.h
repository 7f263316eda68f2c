/* SPDX-License-Identifier: MIT */
/* Shared set-up for the CMocka suites. */
#ifndef PTSIM_TEST_HELPERS_H
#define PTSIM_TEST_HELPERS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "internal.h"
#include "prng.h"
#include "asm/pgtable.h"
#include "asm/tlbflush.h"

#define SZ_4K	UINT64_C(0x1000)
#define SZ_64K	UINT64_C(0x10000)
#define SZ_2M	UINT64_C(0x200000)
#define SZ_1G	UINT64_C(0x40000000)

/* The events of the machine's last operation (ptsim_last_stats, which must succeed). */
static inline struct ptsim_stats last_stats(const struct ptsim_machine *m)
{
	struct ptsim_stats st;

	assert_int_equal(ptsim_last_stats(m, &st), 0);
	return st;
}

/*
 * The tests' default diagnostic handler: a diagnostic the test did not ask for
 * fails it, with the report's kind, place and message. A test that expects
 * diagnostics installs its own handler (record_diag below).
 */
static inline void fail_on_diag(const struct ptsim_diag *d, void *arg)
{
	(void)arg;
	fail_msg("unexpected %s diagnostic at va 0x%llx level %d (0x%llx -> 0x%llx): %s",
		 ptsim_diag_kind_name(d->kind), (unsigned long long)d->va, d->level,
		 (unsigned long long)d->old_desc, (unsigned long long)d->new_desc, d->message);
}

/* ptsim_machine_create for a test: it must succeed, and diagnostics fail the test. */
static inline struct ptsim_machine *create_machine(const struct ptsim_machine_config *cfg)
{
	struct ptsim_machine *m = NULL;

	assert_int_equal(ptsim_machine_create(cfg, &m), 0);
	assert_int_equal(ptsim_set_diag_handler(m, fail_on_diag, NULL), 0);
	return m;
}

static inline struct ptsim_machine *new_machine(enum ptsim_granule granule, unsigned int va_bits,
						enum ptsim_cpu cpu, const char *preset)
{
	struct ptsim_machine_config cfg;

	ptsim_machine_config_init(&cfg);
	cfg.granule = granule;
	cfg.va_bits = va_bits;
	cfg.cpu = cpu;
	cfg.preset = preset;
	cfg.phys_size = UINT64_C(8) << 30;
	return create_machine(&cfg);
}

static inline struct ptsim_mm *new_mm_with_vma(struct ptsim_machine *m, uint64_t addr, uint64_t len)
{
	struct ptsim_mm *mm = NULL;

	assert_int_equal(ptsim_mm_create(m, &mm), 0);
	assert_int_equal(ptsim_mmap(mm, addr, len, PTSIM_PROT_READ | PTSIM_PROT_WRITE,
				    PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL), 0);
	return mm;
}

/*
 * Empty this CPU's LRU folio batches (the lru_add batch the faults fill,
 * the lazyfree one), so that the next operation's counts are its own: the
 * munmap of a scratch VMA nothing populated calls lru_add_drain
 * (vms_clear_ptes) and does nothing else to mm's other mappings.
 */
static inline void drain_lru_batches(struct ptsim_mm *mm)
{
	const uint64_t scratch = UINT64_C(0x7f0000000000);

	assert_int_equal(ptsim_mmap(mm, scratch, 4096, PTSIM_PROT_READ,
				    PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL), 0);
	assert_int_equal(ptsim_munmap(mm, scratch, 4096), 0);
}

/*
 * An mm with a private RW anonymous VMA of vma_len at addr, len of it written
 * in folios of order, and this CPU's LRU batches drained after the faults
 * (so the next operation's counts are its own).
 */
static inline struct ptsim_mm *new_mm_populated(struct ptsim_machine *m, uint64_t addr,
						uint64_t vma_len, uint64_t len, unsigned int order)
{
	struct ptsim_mm *mm = new_mm_with_vma(m, addr, vma_len);

	assert_int_equal(ptsim_populate(mm, addr, len, order, true), 0);
	drain_lru_batches(mm);
	return mm;
}

/*
 * A diagnostic handler for tests that expect diagnostics: it counts what it
 * receives by kind, so the test can assert on it and nothing is printed.
 */
struct diag_log {
	unsigned int count[PTSIM_DIAG__COUNT];
};

static inline void record_diag(const struct ptsim_diag *d, void *arg)
{
	((struct diag_log *)arg)->count[d->kind]++;
}

/* Start counting afresh, as a public operation does. */
static inline void reset_counts(struct ptsim_machine *m)
{
	memset(&m->op, 0, sizeof(m->op));
}

static inline uint64_t ev(const struct ptsim_machine *m, enum ptsim_event e)
{
	return m->op.ev[e];
}

/* The PTE table covering va (allocated if missing). */
static inline pte_t *pte_table(struct ptsim_mm *mm, uint64_t va)
{
	int err;
	struct pt_table *t = pt_walk_table(mm, va, PTE_LEVEL, true, &err);

	assert_non_null(t);
	return &t->desc[pt_index(&mm->m->geo, PTE_LEVEL, va)];
}

/* Same PA, permissions, attributes and folio state for every page of [va, va+len). */
static inline void assert_same_translations(struct ptsim_mm *a, struct ptsim_mm *b, uint64_t va,
					    uint64_t len, uint64_t page)
{
	for (uint64_t p = va; p < va + len; p += page) {
		struct ptsim_translation x, y;
		struct ptsim_folio_info fx, fy;
		int ex = ptsim_translate(a, p, &x), ey = ptsim_translate(b, p, &y);

		assert_int_equal(ex, ey);
		if (ex)
			continue;
		assert_int_equal(x.pa, y.pa);
		assert_int_equal(x.valid, y.valid);
		assert_int_equal(x.read_only, y.read_only);
		assert_int_equal(x.write, y.write);
		assert_int_equal(x.user, y.user);
		assert_int_equal(x.pxn, y.pxn);
		assert_int_equal(x.uxn, y.uxn);
		assert_int_equal(x.attrindx, y.attrindx);
		if (ptsim_folio_info(a, p, &fx) == 0) {
			assert_int_equal(ptsim_folio_info(b, p, &fy), 0);
			assert_int_equal(fx.mapcount, fy.mapcount);
			assert_int_equal(fx.anon_exclusive, fy.anon_exclusive);
			assert_int_equal(fx.index, fy.index);
		}
	}
}

/* The whole model passes ptsim_check_invariants with no violation. */
static inline void assert_invariants(struct ptsim_machine *m)
{
	uint64_t v = 1;

	assert_int_equal(ptsim_check_invariants(m, &v), 0);
	assert_int_equal(v, 0);
}

/* ptdump of mm into a malloc'd string. */
static inline char *ptdump_string(const struct ptsim_mm *mm)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(ptsim_ptdump(mm, f), 0);
	fclose(f);
	return buf;
}

/*
 * A 1 MiB file of folios up to max_order, read in whole through mm (sequential
 * faults: readahead reaches order 4 by page 128), mapped again, and a read
 * fault at its page 128: the fault-around maps from the page cache. The
 * fault is the machine's last operation.
 */
static inline void cached_file_fault_around(struct ptsim_machine *m, struct ptsim_mm *mm,
					    unsigned int max_order)
{
	const uint64_t len = 256 * 4096;
	unsigned int file, fd, order;
	uint64_t at;

	assert_int_equal(ptsim_file_create(m, len, max_order, &file), 0);
	assert_int_equal(ptsim_file_open(m, file, &fd), 0);
	assert_int_equal(ptsim_mmap_file(mm, 0, len, PTSIM_PROT_READ, fd, 0, &at), 0);
	for (uint64_t off = 0; off < len; off += 4096)
		assert_int_equal(ptsim_fault(mm, at + off, PTSIM_ACCESS_READ), 0);
	if (max_order >= 4) {
		assert_int_equal(ptsim_file_cached(m, file, 128, &order), 0);
		assert_int_equal(order, 4);
	}
	assert_int_equal(ptsim_munmap(mm, at, len), 0);
	assert_int_equal(ptsim_mmap_file(mm, 0, len, PTSIM_PROT_READ, fd, 0, &at), 0);
	assert_int_equal(ptsim_fault(mm, at + 128 * 4096, PTSIM_ACCESS_READ), 0);
}

#endif
