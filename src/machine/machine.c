// SPDX-License-Identifier: MIT
/*
 * A whole machine built, copied and freed (ptsim_machine_create, _clone,
 * _destroy): the one place that knows every layer it composes, the
 * hardware model (arch/arm64/hw), physical memory, folios, files and
 * address spaces (src/mm, src/fs) and core's machinery (src/core).
 */
#include "internal.h"
#include "filemap.h"
#include "host_array.h"
#include "pcp.h"

#include <stdlib.h>
#include <string.h>

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
	m->as_of_asid = mm_as_of_asid;	/* the hardware asks the address spaces' layer */
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
	zone_set_pageset_high_and_batch(m);
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

uint64_t ptsim_host_memory_trim(void)
{
	return dcache_spare_release();
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
	/* nor does it keep the source's free table pages */
	m->host_bytes -= page_pool_resident_free_bytes(&src->table_pages);
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

void ptsim_mm_destroy(struct ptsim_mm *mm)
{
	if (!mm || mm->m->diag.in_handler)
		return;	/* from a diagnostic handler: refused, the operation still runs */
	if (mm->owns_machine)
		ptsim_machine_destroy(mm->m);	/* a clone's: its whole machine */
	else
		mm_destroy(mm);
}

/* The mm's copy in a copy of its whole machine, which it owns (mm.h). */
int ptsim_mm_clone(const struct ptsim_mm *mm, struct ptsim_mm **out)
{
	struct ptsim_machine *copy;
	size_t idx = 0;
	int err;

	VALIDATE(mm && out);
	REFUSE_IN_HANDLER(mm->m);
	while (idx < mm->m->nr_mms && mm->m->mms[idx] != mm)
		idx++;
	VALIDATE(idx < mm->m->nr_mms);
	err = ptsim_machine_clone(mm->m, &copy);
	if (err)
		return err;
	*out = copy->mms[idx];
	(*out)->owns_machine = true;
	return 0;
}
