// SPDX-License-Identifier: MIT
/* The machine: physical memory, folios, address spaces, features, counts. */
#include "internal.h"
#include "filemap.h"
#include "host_array.h"

#include <stdlib.h>
#include <string.h>

static int undo_init(struct ptsim_machine *m);

void ptsim_machine_config_init(struct ptsim_machine_config *cfg)
{
	if (!cfg)
		return;
	memset(cfg, 0, sizeof(*cfg));
	cfg->granule = PTSIM_GRANULE_4K;
	cfg->va_bits = 48;
	cfg->phys_base = UINT64_C(0x80000000);
	cfg->phys_size = UINT64_C(4) << 30;
	cfg->nr_cpus = 1;
	cfg->cpu = PTSIM_CPU_APPLE_M3;
	cfg->preset = "baseline";
}

#define MAX_PHYS (UINT64_C(1) << 48)	/* 48-bit output addresses in this model */

int ptsim_machine_create(const struct ptsim_machine_config *cfg, struct ptsim_machine **out)
{
	struct ptsim_machine *m;
	struct ptsim_geometry g;
	bool features[PTSIM_FEAT__COUNT];
	int err;

	VALIDATE(cfg && out);
	err = ptsim_geometry_get(cfg->granule, cfg->va_bits, &g);
	if (err)
		return err;
	VALIDATE(cpu_desc_get(cfg->cpu) && cfg->nr_cpus >= 1 && cfg->nr_cpus <= MACHINE_MAX_CPUS);
	VALIDATE(cfg->bbm_level <= 3 && cfg->bbml2_noabort <= 2);
	VALIDATE(IS_ALIGNED64(cfg->phys_base, g.page_size) && IS_ALIGNED64(cfg->phys_size, g.page_size));
	for (size_t i = 0; i < sizeof(cfg->reserved) / sizeof(cfg->reserved[0]); i++)
		VALIDATE(!cfg->reserved[i]);	/* room for later fields, which give 0 its meaning */
	VALIDATE(cfg->phys_size >= g.pmd_size && cfg->phys_base < MAX_PHYS &&
		 cfg->phys_size <= MAX_PHYS - cfg->phys_base);
	err = features_from_preset(cfg->preset, features);
	if (err)
		return err;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->cfg = *cfg;
	m->cfg.preset = NULL;	/* the caller's string is not ours to keep */
	m->geo = g;
	m->cpu = cpu_desc_get(cfg->cpu);
	if (cfg->bbm_level || cfg->bbml2_noabort) {
		/* the CPU described, with the break-before-make support asked for */
		m->cpu_override = *m->cpu;
		if (cfg->bbm_level)
			m->cpu_override.bbm_level = cfg->bbm_level - 1;
		if (cfg->bbml2_noabort)
			m->cpu_override.bbml2_noabort = cfg->bbml2_noabort == 2;
		m->cpu = &m->cpu_override;
	}
	memcpy(m->features, features, sizeof(features));
	m->asid_map[0] = 1;	/* ASID 0 is reserved, as in the kernel */
	m->asid_cur = 1;
	m->next_anon_vma = 1;
	m->hot_page_pfn = UINT64_MAX;
	page_pool_init(&m->table_pages, g.page_size);
	/* MAX_PAGE_ORDER is at least the PMD order so PMD-size THPs can be allocated */
	err = physmem_init(&m->phys, cfg->phys_base >> g.page_shift, cfg->phys_size >> g.page_shift,
			   MAX(g.pmd_order, 10), &m->host_bytes);
	if (!err)
		err = undo_init(m);
	if (!err)
		err = folio_store_init(&m->folios, cfg->phys_base >> g.page_shift,
				       cfg->phys_size >> g.page_shift, &m->host_bytes);
	if (!err)
		err = hw_init(m);
	if (err) {
		ptsim_machine_destroy(m);
		return err;
	}
	m->host_bytes += sizeof(*m) + hw_host_bytes(m);
	*out = m;
	return 0;
}

void ptsim_machine_destroy(struct ptsim_machine *m)
{
	if (!m || m->diag.in_handler)
		return;	/* from a diagnostic handler: refused, the operation still runs */
	while (m->nr_mms) {
		struct ptsim_mm *mm = m->mms[m->nr_mms - 1];

		mm_free_contents(mm);
		free(mm);
		m->nr_mms--;
	}
	free(m->mms);
	host_array_free(m->undo, m->undo_cap * sizeof(*m->undo));
	hw_free(m);
	files_free(m);
	page_pool_destroy(&m->table_pages);
	folio_store_free(&m->folios);
	physmem_free_all(&m->phys);
	free(m);
}

int machine_add_mm(struct ptsim_machine *m, struct ptsim_mm *mm)
{
	if (m->nr_mms == m->cap_mms) {
		size_t cap = m->cap_mms ? m->cap_mms * 2 : 4;
		struct ptsim_mm **n = realloc(m->mms, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		m->mms = n;
		m->cap_mms = cap;
	}
	m->mms[m->nr_mms++] = mm;
	return 0;
}

void machine_remove_mm(struct ptsim_machine *m, struct ptsim_mm *mm)
{
	for (size_t i = 0; i < m->nr_mms; i++) {
		if (m->mms[i] == mm) {
			memmove(&m->mms[i], &m->mms[i + 1], (m->nr_mms - i - 1) * sizeof(*m->mms));
			m->nr_mms--;
			return;
		}
	}
}

int ptsim_machine_clone(const struct ptsim_machine *src, struct ptsim_machine **out)
{
	struct ptsim_machine *m;

	VALIDATE(src && out);
	REFUSE_IN_HANDLER(src);
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	*m = *src;
	if (src->cpu == &src->cpu_override)
		m->cpu = &m->cpu_override;
	m->mms = NULL;
	m->nr_mms = m->cap_mms = 0;
	m->undo = NULL;
	m->undo_len = m->undo_cap = 0;
	m->undo_active = false;
	/* the copy's undo log is a new one at its resting size */
	m->host_bytes -= src->undo_cap * sizeof(*src->undo);
	page_pool_init(&m->table_pages, src->geo.page_size);
	memset(&m->folios, 0, sizeof(m->folios));
	m->tlb = NULL;
	m->dcache = NULL;
	memset(&m->bbm, 0, sizeof(m->bbm));
	if (physmem_copy(&m->phys, &src->phys, &m->host_bytes)) {
		free(m);
		return -ENOMEM;
	}
	if (undo_init(m)) {
		physmem_free_all(&m->phys);
		free(m);
		return -ENOMEM;
	}
	m->files = NULL;
	m->opens = NULL;
	m->nr_files = m->nr_opens = 0;
	if (folio_store_copy(&m->folios, &src->folios, &m->host_bytes) || hw_copy(m, src) || files_copy(m, src))
		goto fail;
	for (size_t i = 0; i < src->nr_mms; i++) {
		struct ptsim_mm *mm;

		if (mm_copy_into(m, src->mms[i], &mm))
			goto fail;
	}
	*out = m;
	return 0;
fail:
	ptsim_machine_destroy(m);
	return -ENOMEM;
}

int ptsim_machine_geometry(const struct ptsim_machine *m, struct ptsim_geometry *out)
{
	VALIDATE(m && out);
	*out = m->geo;
	return 0;
}

/* Call fn(m, e) for every event the operation counted. */
static void for_each_touched(struct ptsim_machine *m,
			     void (*fn)(struct ptsim_machine *m, unsigned int e))
{
	for (unsigned int w = 0; w < 2; w++)
		for (uint64_t t = m->op_touched[w]; t; t &= t - 1)
			fn(m, w * 64 + (unsigned int)__builtin_ctzll(t));
}

/* Each count of e (in the op, and in each function it counted for) set e's touched bit. */
static void zero_event(struct ptsim_machine *m, unsigned int e)
{
	m->op.ev[e] = 0;
	for (uint32_t t = m->fn_touched; t; t &= t - 1)
		m->fn_op[__builtin_ctz(t)].ev[e] = 0;
}

static void total_event(struct ptsim_machine *m, unsigned int e)
{
	m->total.ev[e] += m->op.ev[e];
	for (uint32_t t = m->fn_touched; t; t &= t - 1)
		m->fn_total[__builtin_ctz(t)].ev[e] += m->fn_op[__builtin_ctz(t)].ev[e];
}

/*
 * A public call's bookkeeping touches only the events it counted (a handful):
 * zeroing and summing whole stats blocks was most of the time of a small call.
 */
/* The loop iterations the operation counted: zeroed, or added to the totals. */
static void loops_zero(struct ptsim_machine *m)
{
	for (uint64_t t = m->loop_touched; t; t &= t - 1)
		m->loop_op.iter[__builtin_ctzll(t)] = 0;
	m->loop_touched = 0;
}

static void loops_total(struct ptsim_machine *m)
{
	for (uint64_t t = m->loop_touched; t; t &= t - 1)
		m->loop_total.iter[__builtin_ctzll(t)] += m->loop_op.iter[__builtin_ctzll(t)];
}

void op_begin(struct ptsim_machine *m)
{
	if (m->op_depth++)
		return;
	for_each_touched(m, zero_event);
	loops_zero(m);
	m->op_touched[0] = m->op_touched[1] = 0;
	m->fn_touched = 0;
	m->op_partial = false;
}

void op_end(struct ptsim_machine *m, int err)
{
	/* a failed operation leaves the model, totals included, as it was (or kept its part) */
	if (--m->op_depth || (err && !m->op_partial))
		return;
	for_each_touched(m, total_event);
	loops_total(m);
}

void op_end_uncounted(struct ptsim_machine *m)
{
	if (--m->op_depth)
		return;
	/* the invariant checker's balance of table pages still holds without them */
	m->uncounted_table_frees += m->op.ev[PTSIM_EV_TABLE_FREE];
	for_each_touched(m, zero_event);
	loops_zero(m);
	m->op_touched[0] = m->op_touched[1] = 0;
	m->fn_touched = 0;
	m->op_partial = false;
}

int ptsim_last_func_stats(const struct ptsim_machine *m, enum ptsim_func fn, struct ptsim_stats *out)
{
	VALIDATE(m && out && (unsigned int)fn < PTSIM_FN__COUNT);
	*out = m->fn_op[fn];
	return 0;
}

int ptsim_total_func_stats(const struct ptsim_machine *m, enum ptsim_func fn, struct ptsim_stats *out)
{
	VALIDATE(m && out && (unsigned int)fn < PTSIM_FN__COUNT);
	*out = m->fn_total[fn];
	return 0;
}

int ptsim_last_stats(const struct ptsim_machine *m, struct ptsim_stats *out)
{
	VALIDATE(m && out);
	*out = m->op;
	return 0;
}

int ptsim_total_stats(const struct ptsim_machine *m, struct ptsim_stats *out)
{
	VALIDATE(m && out);
	*out = m->total;
	return 0;
}

int ptsim_last_loop_stats(const struct ptsim_machine *m, struct ptsim_loop_stats *out)
{
	VALIDATE(m && out);
	*out = m->loop_op;
	return 0;
}

int ptsim_total_loop_stats(const struct ptsim_machine *m, struct ptsim_loop_stats *out)
{
	VALIDATE(m && out);
	*out = m->loop_total;
	return 0;
}

int ptsim_fail_nth_alloc(struct ptsim_machine *m, uint64_t n)
{
	VALIDATE(m);
	REFUSE_IN_HANDLER(m);
	m->fail_at = n ? m->alloc_count + n : 0;
	return 0;
}

int ptsim_alloc_count(const struct ptsim_machine *m, uint64_t *out)
{
	VALIDATE(m && out);
	*out = m->alloc_count;
	return 0;
}

int ptsim_phys_free_bytes(const struct ptsim_machine *m, uint64_t *out)
{
	VALIDATE(m && out);
	*out = m->phys.nr_free << m->geo.page_shift;
	return 0;
}

int host_charge(struct ptsim_machine *m, uint64_t bytes)
{
	if (bytes > host_room(m))
		return -ENOMEM;
	m->host_bytes += bytes;
	return 0;
}

void host_uncharge(struct ptsim_machine *m, uint64_t bytes)
{
	m->host_bytes -= bytes;
}

uint64_t machine_bookkeeping_host_bytes(const struct ptsim_machine *m)
{
	uint64_t bytes = sizeof(*m) + hw_host_bytes(m) + m->undo_cap * sizeof(*m->undo) +
			 physmem_host_bytes(&m->phys) + u64map_host_bytes(&m->folios.mapcount) +
			 u64map_host_bytes(&m->folios.gup) + u64map_host_bytes(&m->folios.lock_contention) +
			 bbm_host_bytes(&m->bbm) + m->nr_files * sizeof(*m->files) +
			 m->nr_opens * sizeof(*m->opens);

	for (size_t i = 0; i < m->nr_mms; i++)
		bytes += m->mms[i]->cap_vmas * sizeof(*m->mms[i]->vmas);
	for (size_t i = 0; i < m->nr_files; i++)
		bytes += u64map_host_bytes(&m->files[i].cache);
	return bytes;
}

int ptsim_machine_host_bytes(const struct ptsim_machine *m, uint64_t *out)
{
	VALIDATE(m && out);
	*out = m->host_bytes;
	return 0;
}

bool alloc_should_fail(struct ptsim_machine *m)
{
	m->alloc_count++;
	if (m->fail_at && m->alloc_count == m->fail_at) {
		m->fail_at = 0;
		return true;
	}
	return false;
}

/*
 * The undo log rests at UNDO_KEEP entries, allocated with the machine and
 * charged as part of it; an operation that records more (a populate records
 * one entry per folio) grows it under the host-memory limit, and it shrinks
 * back when the operation commits or rolls back, so its peak is not kept.
 */
#define UNDO_KEEP 64

static int undo_init(struct ptsim_machine *m)
{
	m->undo = host_array_alloc(UNDO_KEEP * sizeof(*m->undo));
	if (!m->undo)
		return -ENOMEM;
	m->undo_cap = UNDO_KEEP;
	m->host_bytes += UNDO_KEEP * sizeof(*m->undo);
	return 0;
}

static void undo_shrink(struct ptsim_machine *m)
{
	struct undo_entry *n;

	if (m->undo_cap <= UNDO_KEEP)
		return;
	n = host_array_resize(m->undo, m->undo_cap * sizeof(*n), UNDO_KEEP * sizeof(*n));
	if (!n)
		return;	/* kept, and still charged */
	host_uncharge(m, (m->undo_cap - UNDO_KEEP) * sizeof(*n));
	m->undo = n;
	m->undo_cap = UNDO_KEEP;
}

void undo_start(struct ptsim_machine *m)
{
	m->undo_len = 0;
	m->undo_active = true;
}

/* The log grown to cap entries, the growth charged under the host-memory limit. */
static int undo_grow(struct ptsim_machine *m, size_t cap)
{
	const size_t more = (cap - m->undo_cap) * sizeof(*m->undo);
	struct undo_entry *n;

	if (host_charge(m, more))
		return -ENOMEM;
	n = host_array_resize(m->undo, m->undo_cap * sizeof(*n), cap * sizeof(*n));
	if (!n) {
		host_uncharge(m, more);
		return -ENOMEM;
	}
	m->undo = n;
	m->undo_cap = cap;
	return 0;
}

int undo_reserve(struct ptsim_machine *m, size_t n)
{
	return n <= m->undo_cap ? 0 : undo_grow(m, n);
}

int undo_record(struct ptsim_machine *m, const struct undo_entry *e)
{
	if (!m->undo_active)
		return 0;
	if (m->undo_len == m->undo_cap && undo_grow(m, m->undo_cap * 2))
		return -ENOMEM;
	m->undo[m->undo_len++] = *e;
	return 0;
}

void undo_commit(struct ptsim_machine *m)
{
	m->undo_len = 0;
	m->undo_active = false;
	undo_shrink(m);
}

void undo_rollback(struct ptsim_machine *m)
{
	m->undo_active = false;
	while (m->undo_len) {
		struct undo_entry *e = &m->undo[--m->undo_len];

		if (e->kind == UNDO_FOLIO) {
			folio_free(m, e->ptr);
		} else {
			/* unlink the new table from its parent without counting: it never existed */
			e->parent->desc[e->parent_idx] = 0;
			e->parent->next[e->parent_idx] = NULL;
			pt_table_free(e->mm, e->ptr);
		}
	}
	undo_shrink(m);
}
