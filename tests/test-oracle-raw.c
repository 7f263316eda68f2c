// SPDX-License-Identifier: MIT
/*
 * The content oracle for raw address spaces (meson test --suite long; issue
 * 40): random map, remap and unmap steps on a bare address space, each done
 * with the Arm ARM's break-before-make sequence (RDDMVT: write invalid,
 * DSB, TLBI, DSB, write the new entry), interleaved with accesses from every
 * CPU, held after every step against a reference of what each page must
 * translate to. The "content" of a raw page is its output address:
 *
 *  - an access succeeds exactly where the reference maps the page;
 *  - after an access, every TLB entry the accessing CPU holds for the page
 *    gives the reference's output address (no stale translation survives
 *    completed maintenance), and every CPU's TLB is checked so now and then;
 *  - ptsim_translate agrees with the reference;
 *  - the break-before-make checker reports nothing (the sequences are
 *    legal), and the invariant checker finds nothing.
 *
 * On a machine of one CPU the maintenance is sometimes the local form (TLBI
 * VALE1, DSB NSH), which completes there.
 */
#include "helpers.h"
#include "hw.h"

#include <ptsim/raw.h>

#define NPAGES	64
#define STEPS	20000

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

struct roracle {
	struct ptsim_machine *m;
	struct ptsim_mm *mm;
	struct diag_log log;
	uint64_t base, page, phys_base;
	unsigned int nr_cpus, asid;
	uint64_t ref[NPAGES];	/* the output address each page must translate to, 0: none */
};

static uint64_t va_of(const struct roracle *o, unsigned int i)
{
	return o->base + (uint64_t)i * o->page;
}

/* Complete the removal of page i's translation everywhere: DSB, TLBI by VA and ASID, DSB. */
static void invalidate(struct roracle *o, unsigned int i, unsigned int cpu, bool local)
{
	struct ptsim_raw_tlbi t = { .kind = PTSIM_RAW_TLBI_VAL, .broadcast = !local,
				    .asid = o->asid, .va = va_of(o, i), .ttl_level = 3 };
	enum ptsim_raw_barrier dsb = local ? PTSIM_RAW_DSB_NSH : PTSIM_RAW_DSB_ISH;

	assert_int_equal(ptsim_raw_barrier(o->m, cpu, dsb), 0);
	assert_int_equal(ptsim_raw_tlbi(o->m, cpu, &t), 0);
	assert_int_equal(ptsim_raw_barrier(o->m, cpu, dsb), 0);
}

/* Page i made to translate to pa (0: unmapped), break-before-make where it was mapped. */
static void set_page(struct roracle *o, unsigned int i, uint64_t pa, unsigned int cpu, bool local)
{
	if (o->ref[i]) {
		assert_int_equal(ptsim_raw_write(o->mm, cpu, va_of(o, i), 3, 0, 0), 0);
		invalidate(o, i, cpu, local);
	}
	if (pa)
		assert_int_equal(ptsim_raw_write(o->mm, cpu, va_of(o, i), 3,
						 pa | DESC_AF | (UINT64_C(3) << 8) | DESC_AP1 | DESC_NG |
						 DESC_TYPE_PAGE, 0), 0);
	o->ref[i] = pa;
}

/* Every entry cpu's TLBs hold for page i gives the reference's output address. */
static void check_tlb(struct roracle *o, unsigned int i, unsigned int cpu, unsigned long step)
{
	struct ptsim_raw_tlb_entry e[8];
	unsigned int n;

	assert_int_equal(ptsim_raw_tlb_lookup(o->mm, cpu, va_of(o, i), e, 8, &n), 0);
	for (unsigned int k = 0; k < n && k < 8; k++)
		if (e[k].pa != o->ref[i])
			fail_msg("step %lu: CPU %u holds page %u at pa 0x%llx, the tables say 0x%llx",
				 step, cpu, i, (unsigned long long)e[k].pa, (unsigned long long)o->ref[i]);
}

static void access_page(struct roracle *o, unsigned int i, unsigned int cpu, unsigned long step)
{
	struct ptsim_translation tr;
	enum ptsim_fault_kind f;
	int err = ptsim_access(o->mm, cpu, va_of(o, i), PTSIM_ACCESS_READ, &f);

	if (o->ref[i] ? err != 0 : err != -EFAULT)
		fail_msg("step %lu: CPU %u's access to page %u returned %d, the tables say %s", step,
			 cpu, i, err, o->ref[i] ? "mapped" : "unmapped");
	check_tlb(o, i, cpu, step);
	err = ptsim_translate(o->mm, va_of(o, i), &tr);
	if (o->ref[i] ? err || tr.pa != o->ref[i] : err != -ENOENT)
		fail_msg("step %lu: translate of page %u disagrees with the tables", step, i);
}

static void run(enum ptsim_granule granule, unsigned int nr_cpus, uint64_t seed)
{
	struct ptsim_machine_config cfg;
	struct roracle o = { 0 };
	uint64_t pa, bad = 0;

	ptsim_machine_config_init(&cfg);
	cfg.granule = granule;
	cfg.nr_cpus = nr_cpus;
	cfg.cpu = PTSIM_CPU_NEOVERSE_V2;
	o.m = create_machine(&cfg);
	ptsim_set_diag_handler(o.m, record_diag, &o.log);
	o.page = UINT64_C(1) << granule;
	o.base = UINT64_C(1) << 30;
	o.phys_base = cfg.phys_base;
	o.nr_cpus = nr_cpus;
	assert_int_equal(ptsim_raw_mm_create(o.m, &o.mm), 0);
	assert_int_equal(ptsim_mm_asid(o.mm, &o.asid), 0);
	for (int l = o.m->geo.start_level + 1; l <= 3; l++) {
		assert_int_equal(ptsim_raw_table_alloc(o.mm, o.base, l, &pa), 0);
		assert_int_equal(ptsim_raw_write(o.mm, 0, o.base, l - 1, pa | DESC_TYPE_TABLE, 0), 0);
	}
	for (unsigned long step = 0; step < STEPS; step++) {
		unsigned int i = (unsigned int)(next(&seed) % NPAGES);
		unsigned int cpu = (unsigned int)(next(&seed) % nr_cpus);
		uint64_t r = next(&seed) % 8;
		bool local = nr_cpus == 1 && next(&seed) % 2;

		if (r < 3)		/* map, or remap to another frame */
			set_page(&o, i, o.phys_base + (1 + next(&seed) % 4096) * o.page, cpu, local);
		else if (r < 4)		/* unmap */
			set_page(&o, i, 0, cpu, local);
		else			/* access, and what the TLBs and the tables then say */
			access_page(&o, i, cpu, step);
		if (o.log.count[PTSIM_DIAG_BBM_VIOLATION] || o.log.count[PTSIM_DIAG_BBM_CONFLICT_RISK] ||
		    o.log.count[PTSIM_DIAG_TLB_CONFLICT] || o.log.count[PTSIM_DIAG_INVARIANT])
			fail_msg("step %lu: a diagnostic on a legal sequence", step);
		if (step % 512 == 511) {
			for (unsigned int c = 0; c < nr_cpus; c++)
				for (unsigned int k = 0; k < NPAGES; k++)
					check_tlb(&o, k, c, step);
			assert_int_equal(ptsim_check_invariants(o.m, &bad), 0);
			assert_int_equal(bad, 0);
		}
	}
	ptsim_mm_destroy(o.mm);
	ptsim_machine_destroy(o.m);
}

static void test_oracle_raw_4k(void **state)
{
	(void)state;
	run(PTSIM_GRANULE_4K, 4, 0x9e3779b97f4a7c15ULL);
	run(PTSIM_GRANULE_4K, 1, 0x2545f4914f6cdd1dULL);
}

static void test_oracle_raw_16k(void **state)
{
	(void)state;
	run(PTSIM_GRANULE_16K, 2, 0x853c49e6748fea9bULL);
	run(PTSIM_GRANULE_16K, 1, 0xda3e39cb94b95bdbULL);
}

static void test_oracle_raw_64k(void **state)
{
	(void)state;
	run(PTSIM_GRANULE_64K, 3, 0x6a09e667f3bcc909ULL);
	run(PTSIM_GRANULE_64K, 1, 0xbb67ae8584caa73bULL);
}

int main(void)
{
	const struct CMUnitTest all[] = {
		cmocka_unit_test(test_oracle_raw_4k),
		cmocka_unit_test(test_oracle_raw_16k),
		cmocka_unit_test(test_oracle_raw_64k),
	};

	return cmocka_run_group_tests(all, NULL, NULL);
}
