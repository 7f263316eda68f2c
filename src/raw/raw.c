// SPDX-License-Identifier: MIT
/*
 * The raw architectural API (include/ptsim/raw.h, doc/raw-sequences.md): a
 * user's own descriptor sequence, one store, TLBI or barrier at a time, on a
 * bare address space. No kernel function is modelled here: each call is one
 * instruction, handed to the same counted arch primitives the kernel paths
 * use (set_desc, cmpxchg_desc, read_desc, __tlbi, dsb, isb, the table page
 * allocator), run as the caller's CPU (m->exec_cpu).
 */
#include "asm/pgtable.h"
#include "asm/mmu_context.h"
#include "asm/tlbflush.h"

#include <ptsim/raw.h>

int ptsim_raw_mm_create(struct ptsim_machine *m, struct ptsim_mm **out)
{
	int err = ptsim_mm_create(m, out);

	if (!err)
		(*out)->raw = true;
	return err;
}

static bool raw_level_ok(const struct ptsim_mm *mm, int level)
{
	return level >= mm->m->geo.start_level && level <= PTE_LEVEL;
}

static bool raw_va_ok(const struct ptsim_mm *mm, uint64_t va)
{
	return va < (UINT64_C(1) << mm->m->geo.va_bits);
}

int ptsim_raw_table_alloc(struct ptsim_mm *mm, uint64_t va, int level, uint64_t *pa)
{
	struct pt_table *parent, *t;
	unsigned int idx;
	int err;

	VALIDATE(mm && mm->raw && pa && raw_va_ok(mm, va) && raw_level_ok(mm, level) &&
		 level > mm->m->geo.start_level);
	REFUSE_IN_HANDLER(mm->m);
	parent = pt_find_table(mm, va, level - 1);
	if (!parent)
		return -ENOENT;
	idx = pt_index(&mm->m->geo, level - 1, va);
	if (parent->next[idx])
		return -EEXIST;
	op_begin(mm->m);
	err = pt_table_alloc(mm, level, &t);
	if (!err) {
		parent->next[idx] = t;
		*pa = t->pfn << mm->m->geo.page_shift;
	}
	op_end(mm->m, err);
	return err;
}

int ptsim_raw_table_free(struct ptsim_mm *mm, uint64_t va, int level)
{
	struct pt_table *parent;
	unsigned int idx;

	VALIDATE(mm && mm->raw && raw_va_ok(mm, va) && raw_level_ok(mm, level) &&
		 level > mm->m->geo.start_level);
	REFUSE_IN_HANDLER(mm->m);
	parent = pt_find_table(mm, va, level - 1);
	idx = parent ? pt_index(&mm->m->geo, level - 1, va) : 0;
	if (!parent || !parent->next[idx])
		return -ENOENT;
	if (pte_valid(parent->desc[idx]) && pmd_table(parent->desc[idx]))
		return -EBUSY;
	op_begin(mm->m);
	pt_free_tree(mm, parent->next[idx]);
	parent->next[idx] = NULL;
	op_end(mm->m, 0);
	return 0;
}

/*
 * The entry at (va, level), or NULL when its table is missing; *bad when
 * desc would be a valid table descriptor not pointing at the table attached
 * there.
 */
static pte_t *raw_entry(struct ptsim_mm *mm, uint64_t va, int level, pte_t desc, bool *bad)
{
	const struct ptsim_geometry *g = &mm->m->geo;
	struct pt_table *t = pt_find_table(mm, va, level);
	unsigned int idx;

	*bad = false;
	if (!t)
		return NULL;
	idx = pt_index(g, level, va);
	if (level < PTE_LEVEL && pte_valid(desc) && pmd_table(desc))
		*bad = !t->next[idx] || pte_pfn(g, desc) != t->next[idx]->pfn;
	return &t->desc[idx];
}

/* Start a raw store: arguments checked, the operation begun as cpu. */
static int raw_store_begin(struct ptsim_mm *mm, unsigned int cpu, uint64_t va, int level,
			   pte_t desc, unsigned int flags, pte_t **p)
{
	bool bad;

	VALIDATE(mm && mm->raw && cpu < mm->m->cfg.nr_cpus && raw_va_ok(mm, va) &&
		 raw_level_ok(mm, level) && !(flags & ~(unsigned int)PTSIM_RAW_SAME_CONTENTS));
	REFUSE_IN_HANDLER(mm->m);
	*p = raw_entry(mm, va, level, desc, &bad);
	if (!*p)
		return -ENOENT;
	VALIDATE(!bad);
	op_begin(mm->m);
	mm->m->exec_cpu = cpu;
	mm->m->bbm.same_contents = flags & PTSIM_RAW_SAME_CONTENTS;
	return 0;
}

static void raw_end(struct ptsim_machine *m)
{
	m->exec_cpu = 0;
	m->bbm.same_contents = false;
	op_end(m, 0);
}

int ptsim_raw_write(struct ptsim_mm *mm, unsigned int cpu, uint64_t va, int level, uint64_t desc,
		    unsigned int flags)
{
	pte_t *p;
	int err = raw_store_begin(mm, cpu, va, level, desc, flags, &p);

	if (err)
		return err;
	set_desc(mm, va, level, p, desc);
	raw_end(mm->m);
	return 0;
}

int ptsim_raw_cas(struct ptsim_mm *mm, unsigned int cpu, uint64_t va, int level, uint64_t expected,
		  uint64_t desc, unsigned int flags, uint64_t *old)
{
	pte_t *p, found;
	int err = raw_store_begin(mm, cpu, va, level, desc, flags, &p);

	if (err)
		return err;
	found = *p;
	/* a failed compare stores nothing: only the load is counted */
	if (found == expected)
		cmpxchg_desc(mm, va, level, p, desc);
	else
		read_desc(mm, level, p);
	raw_end(mm->m);
	if (old)
		*old = found;
	return 0;
}

int ptsim_raw_read(struct ptsim_mm *mm, unsigned int cpu, uint64_t va, int level, uint64_t *out)
{
	pte_t *p;
	bool bad;

	VALIDATE(mm && mm->raw && out && cpu < mm->m->cfg.nr_cpus && raw_va_ok(mm, va) &&
		 raw_level_ok(mm, level));
	REFUSE_IN_HANDLER(mm->m);
	p = raw_entry(mm, va, level, 0, &bad);
	if (!p)
		return -ENOENT;
	op_begin(mm->m);
	*out = read_desc(mm, level, p);
	op_end(mm->m, 0);
	return 0;
}

int ptsim_raw_barrier(struct ptsim_machine *m, unsigned int cpu, enum ptsim_raw_barrier kind)
{
	VALIDATE(m && cpu < m->cfg.nr_cpus && (unsigned int)kind <= PTSIM_RAW_ISB);
	REFUSE_IN_HANDLER(m);
	op_begin(m);
	m->exec_cpu = cpu;
	switch (kind) {
	case PTSIM_RAW_DSB_SY:
		dsb_sy(m);
		break;
	case PTSIM_RAW_DSB_ISH:
		dsb_ish(m);
		break;
	case PTSIM_RAW_DSB_ISHST:
		dsb_ishst(m);
		break;
	case PTSIM_RAW_DSB_NSH:
		dsb_nsh(m);
		break;
	default:
		isb(m);
		break;
	}
	raw_end(m);
	return 0;
}

/* Is pages what a range TLBI can encode: (NUM + 1) << (5 * SCALE + 1)? (__TLBI_RANGE_PAGES) */
static bool range_encodable(uint64_t pages)
{
	for (unsigned int scale = 0; scale < 4; scale++) {
		uint64_t unit = UINT64_C(1) << (5 * scale + 1);

		if (pages % unit == 0 && pages / unit >= 1 && pages / unit <= 32)
			return true;
	}
	return false;
}

int ptsim_raw_tlbi(struct ptsim_machine *m, unsigned int cpu, const struct ptsim_raw_tlbi *op)
{
	static const enum tlbi_kind kind_of[] = {
		[PTSIM_RAW_TLBI_VA] = TLBI_KIND_VA, [PTSIM_RAW_TLBI_VAL] = TLBI_KIND_VA,
		[PTSIM_RAW_TLBI_VAA] = TLBI_KIND_VAA, [PTSIM_RAW_TLBI_VAAL] = TLBI_KIND_VAA,
		[PTSIM_RAW_TLBI_RVA] = TLBI_KIND_RANGE, [PTSIM_RAW_TLBI_RVAL] = TLBI_KIND_RANGE,
		[PTSIM_RAW_TLBI_RVAA] = TLBI_KIND_RANGE_VAA,
		[PTSIM_RAW_TLBI_RVAAL] = TLBI_KIND_RANGE_VAA,
		[PTSIM_RAW_TLBI_ASID] = TLBI_KIND_ASID, [PTSIM_RAW_TLBI_VMALL] = TLBI_KIND_ALL,
	};
	struct tlbi_op t;
	bool range;

	VALIDATE(m && op && cpu < m->cfg.nr_cpus && (unsigned int)op->kind <= PTSIM_RAW_TLBI_VMALL);
	VALIDATE(op->ttl_level >= 0 && op->ttl_level <= PTE_LEVEL);
	/* an ASID the CPU cannot hold would name, once cut to size, another address space */
	VALIDATE(op->asid < (1u << m->cpu->asid_bits));
	REFUSE_IN_HANDLER(m);
	t = (struct tlbi_op){
		.kind = kind_of[op->kind],
		.asid = op->asid,
		.va = op->va,
		.pages = 1,
		.last_level = op->kind == PTSIM_RAW_TLBI_VAL || op->kind == PTSIM_RAW_TLBI_VAAL ||
			      op->kind == PTSIM_RAW_TLBI_RVAL || op->kind == PTSIM_RAW_TLBI_RVAAL,
		.local = !op->broadcast,
		.ttl_level = op->ttl_level,
	};
	range = t.kind == TLBI_KIND_RANGE || t.kind == TLBI_KIND_RANGE_VAA;
	if (t.kind == TLBI_KIND_ASID || t.kind == TLBI_KIND_ALL) {
		VALIDATE(!op->va && op->pages <= 1 && !op->ttl_level);
		t.va = 0;
	} else {
		VALIDATE(IS_ALIGNED64(op->va, m->geo.page_size) &&
			 op->va < (UINT64_C(1) << m->geo.va_bits));
		VALIDATE(range ? m->cpu->tlbirange && range_encodable(op->pages) : op->pages <= 1);
		if (range)
			t.pages = op->pages;
	}
	op_begin(m);
	m->exec_cpu = cpu;
	__tlbi_op(m, &t);
	raw_end(m);
	return 0;
}

int ptsim_raw_tlb_lookup(const struct ptsim_mm *mm, unsigned int cpu, uint64_t va,
			 struct ptsim_raw_tlb_entry *out, unsigned int max, unsigned int *n)
{
	struct tlb_match found[16];
	struct hw_as as;
	unsigned int nr;

	VALIDATE(mm && n && (out || !max) && cpu < mm->m->cfg.nr_cpus && raw_va_ok(mm, va));
	as = mm_as(mm);
	nr = tlb_lookup_all(mm->m, &as, cpu, va, found, 16);
	for (unsigned int i = 0; i < MIN(nr, MIN(max, 16u)); i++)
		out[i] = (struct ptsim_raw_tlb_entry){
			.tlb = found[i].which, .pa = found[i].pa, .size = found[i].size,
			.desc = found[i].desc, .level = found[i].level, .global = found[i].global,
			.asid = found[i].asid,
		};
	*n = nr;
	return 0;
}
