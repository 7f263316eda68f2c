// SPDX-License-Identifier: MIT
/*
 * Page-table dump in the layout of the kernel's arm64 ptdump
 * (arch/arm64/mm/ptdump.c): one line per run of leaves at the same level
 * with identical attributes, "start-end size level attributes".
 */
#include "asm/pgtable.h"

struct prot_bit {
	pte_t mask, val;
	const char *set, *clear;
};

static const struct prot_bit prot_bits[] = {
	{ PTE_VALID, PTE_VALID, " ", "F" },
	{ PTE_USER, PTE_USER, "USR", "   " },
	{ PTE_RDONLY, PTE_RDONLY, "ro", "RW" },
	{ PTE_PXN, PTE_PXN, "NX", "x " },
	{ PTE_SHARED, PTE_SHARED, "SHD", "   " },
	{ PTE_AF, PTE_AF, "AF", "  " },
	{ PTE_NG, PTE_NG, "NG", "  " },
	{ PTE_CONT, PTE_CONT, "CON", "   " },
	{ PTE_TABLE_BIT, PTE_TABLE_BIT, "   ", "BLK" },
	{ PTE_UXN, PTE_UXN, "UXN", "   " },
	{ PTE_GP, PTE_GP, "GP", "  " },
	{ PTE_ATTRINDX_MASK, PTE_ATTRINDX(MT_DEVICE_nGnRnE), "DEVICE/nGnRnE", NULL },
	{ PTE_ATTRINDX_MASK, PTE_ATTRINDX(MT_DEVICE_nGnRE), "DEVICE/nGnRE", NULL },
	{ PTE_ATTRINDX_MASK, PTE_ATTRINDX(MT_NORMAL_NC), "MEM/NORMAL-NC", NULL },
	{ PTE_ATTRINDX_MASK, PTE_ATTRINDX(MT_NORMAL), "MEM/NORMAL", NULL },
	{ PTE_ATTRINDX_MASK, PTE_ATTRINDX(MT_NORMAL_TAGGED), "MEM/NORMAL-TAGGED", NULL },
};

/* Attribute bits compared when merging runs (everything but the output address). */
#define PTDUMP_PROT_MASK (PTE_VALID | PTE_USER | PTE_RDONLY | PTE_PXN | PTE_SHARED | PTE_AF | \
			  PTE_NG | PTE_CONT | PTE_TABLE_BIT | PTE_UXN | PTE_GP | PTE_ATTRINDX_MASK)

struct dump_state {
	FILE *out;
	const struct ptsim_geometry *g;
	bool open;
	int level;
	pte_t prot;
	uint64_t start, end;
};

/* Linux's names: the top level is always the PGD; below it P4D, PUD, PMD, PTE by level. */
static const char *level_name(const struct ptsim_geometry *g, int level)
{
	static const char *const names[] = { "P4D", "PUD", "PMD", "PTE" };

	return level == g->start_level ? "PGD" : names[level];
}

static void flush_run(struct dump_state *st)
{
	static const char units[] = "KMGTPE";
	uint64_t delta;
	int unit = 0;

	if (!st->open)
		return;
	delta = (st->end - st->start) >> 10;
	while (!(delta & 1023) && units[unit + 1]) {
		delta >>= 10;
		unit++;
	}
	fprintf(st->out, "0x%016llx-0x%016llx   %9llu%c %s", (unsigned long long)st->start,
		(unsigned long long)st->end, (unsigned long long)delta, units[unit],
		level_name(st->g, st->level));
	for (size_t i = 0; i < sizeof(prot_bits) / sizeof(prot_bits[0]); i++) {
		const struct prot_bit *b = &prot_bits[i];
		const char *s = (st->prot & b->mask) == b->val ? b->set : b->clear;

		if (s)
			fprintf(st->out, " %s", s);
	}
	fputc('\n', st->out);
	st->open = false;
}

static void note_leaf(struct dump_state *st, int level, uint64_t va, uint64_t size, pte_t d)
{
	pte_t prot = d & PTDUMP_PROT_MASK;

	if (st->open && st->level == level && st->prot == prot && st->end == va) {
		st->end = va + size;
		return;
	}
	flush_run(st);
	st->open = true;
	st->level = level;
	st->prot = prot;
	st->start = va;
	st->end = va + size;
}

static void walk(struct dump_state *st, const struct pt_table *t, uint64_t base)
{
	uint64_t size = pt_level_size(st->g, t->level);

	for (unsigned int i = 0; i < t->entries; i++) {
		uint64_t va = base + i * size;
		pte_t d = t->desc[i];

		if (t->level < PTE_LEVEL && t->next[i])
			walk(st, t->next[i], va);
		else if (pte_present(d))
			note_leaf(st, t->level, va, size, d);
		else
			flush_run(st);
	}
}

int ptsim_ptdump(const struct ptsim_mm *mm, FILE *out)
{
	struct dump_state st = { 0 };

	VALIDATE(mm && out);
	st.out = out;
	st.g = &mm->m->geo;
	fprintf(out, "---[ %s (ASID %u) ]---\n", mm->kernel ? "Kernel space" : "User space",
		mm->asid);
	/* the kernel mm maps the TTBR1 half, which starts at -(1 << va_bits) */
	walk(&st, mm->pgd, mm->kernel ? ~((UINT64_C(1) << st.g->va_bits) - 1) : 0);
	flush_run(&st);
	fprintf(out, "---[ End ]---\n");
	return 0;
}
