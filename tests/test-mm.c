// SPDX-License-Identifier: MIT
/*
 * Address spaces: T1/T2/T3 population (ptdump golden files), clone
 * independence, argument validation, and allocation-failure injection.
 */
#include "helpers.h"
#include <unistd.h>

#define VA UINT64_C(0x40000000)
#define LEN (UINT64_C(4) << 20)

static const char *golden_dir;

/* T1: PMD THPs then PTE-mapped; T2: 64K mTHP; T3: order-0 (the states of doc/workloads.md §mprotect). */
enum tstate { T1_PMD, T1, T2, T3 };

static struct ptsim_mm *populate_state(struct ptsim_machine *m, enum tstate t)
{
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, LEN);

	switch (t) {
	case T1_PMD:
	case T1:
		assert_int_equal(ptsim_populate(mm, VA, LEN, m->geo.pmd_order, true), 0);
		if (t == T1)
			assert_int_equal(ptsim_split_huge_pmd(mm, VA, LEN), 0);
		break;
	case T2:
		assert_int_equal(ptsim_populate(mm, VA, LEN, 4, true), 0);
		break;
	case T3:
		assert_int_equal(ptsim_populate(mm, VA, LEN, 0, true), 0);
		break;
	}
	return mm;
}

static char *read_file(const char *name)
{
	char path[512];
	FILE *f;
	char *buf;
	long len;

	snprintf(path, sizeof(path), "%s/%s", golden_dir, name);
	f = fopen(path, "r");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, (size_t)len + 1);
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	return buf;
}

static void check_golden(enum tstate t, const char *name)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3, NULL);
	struct ptsim_mm *mm = populate_state(m, t);
	char *got = ptdump_string(mm), *want = read_file(name);

	if (strcmp(got, want))
		print_error("ptdump differs from %s:\n%s", name, got);
	assert_string_equal(got, want);
	free(got);
	free(want);
	ptsim_machine_destroy(m);
}

static void test_ptdump_golden(void **state)
{
	(void)state;
	check_golden(T1_PMD, "t1-pmd.txt");
	check_golden(T1, "t1.txt");
	check_golden(T2, "t2.txt");
	check_golden(T3, "t3.txt");
}

static void test_population_counts(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3, NULL);
	struct ptsim_mm *mm = populate_state(m, T1_PMD);
	struct ptsim_stats s;
	struct ptsim_folio_info fi;

	(void)state;
	/* split of 2 PMD THPs: per PMD 1 read + 1 xchg (pmdp_invalidate), one flush of
	 * the 2M range at PMD stride, one set_ptes(512) = 32 cont chunks, 1 PMD write */
	assert_int_equal(ptsim_split_huge_pmd(mm, VA, LEN), 0);
	assert_int_equal(ptsim_last_stats(m, &s), 0);
	assert_int_equal(s.ev[PTSIM_EV_HUGE_PMD_SPLIT], 2);
	assert_int_equal(s.ev[PTSIM_EV_PMD_XCHG], 2);
	assert_int_equal(s.ev[PTSIM_EV_PTE_WRITE], 1024);
	assert_int_equal(s.ev[PTSIM_EV_SET_PTES], 2);
	assert_int_equal(s.ev[PTSIM_EV_SET_PTES_CHUNK], 64);
	assert_int_equal(s.ev[PTSIM_EV_TLBI_RANGE], 2);
	assert_int_equal(s.ev[PTSIM_EV_TABLE_ALLOC], 2);
	assert_int_equal(s.ev[PTSIM_EV_PTE_READ], 0);
	assert_int_equal(ptsim_folio_info(mm, VA + 5 * 4096, &fi), 0);
	assert_int_equal(fi.order, 9);
	assert_int_equal(fi.mapcount, 512);
	assert_true(fi.anon && fi.anon_exclusive);
	ptsim_machine_destroy(m);

	/* T2: one set_ptes(16) per folio, nothing read */
	m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3, NULL);
	mm = new_mm_with_vma(m, VA, LEN);
	assert_int_equal(ptsim_populate(mm, VA, LEN, 4, true), 0);
	assert_int_equal(ptsim_last_stats(m, &s), 0);
	assert_int_equal(s.ev[PTSIM_EV_FAULT], 64);
	assert_int_equal(s.ev[PTSIM_EV_SET_PTES], 64);
	assert_int_equal(s.ev[PTSIM_EV_PTE_WRITE], 1024);
	assert_int_equal(s.ev[PTSIM_EV_PTE_READ], 1024);	/* pte_range_none */
	assert_int_equal(s.ev[PTSIM_EV_TABLE_ALLOC], 4);	/* PUD, PMD and 2 PTE tables */
	ptsim_machine_destroy(m);
}

static void test_other_granules(void **state)
{
	const enum ptsim_granule grs[] = { PTSIM_GRANULE_16K, PTSIM_GRANULE_64K };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		struct ptsim_machine *m = new_machine(grs[i], 48, PTSIM_CPU_NEOVERSE_V2, NULL);
		const struct ptsim_geometry *g = &m->geo;
		uint64_t len = g->pmd_size;
		struct ptsim_mm *mm = NULL;
		struct ptsim_translation tr;
		uint64_t addr;

		assert_int_equal(ptsim_mm_create(m, &mm), 0);
		assert_int_equal(ptsim_mmap(mm, 0, len, PTSIM_PROT_READ | PTSIM_PROT_WRITE,
					    PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, &addr), 0);
		assert_true(IS_ALIGNED64(addr, g->pmd_size));
		/* a PMD THP split: every CONT_PTES block folded */
		assert_int_equal(ptsim_populate(mm, addr, len, g->pmd_order, true), 0);
		assert_int_equal(ptsim_translate(mm, addr, &tr), 0);
		assert_int_equal(tr.level, 2);
		assert_int_equal(tr.size, g->pmd_size);
		assert_int_equal(ptsim_split_huge_pmd(mm, addr, len), 0);
		for (uint64_t a = addr; a < addr + len; a += g->cont_pte_size) {
			assert_int_equal(ptsim_translate(mm, a, &tr), 0);
			assert_int_equal(tr.level, 3);
			assert_true(tr.cont && tr.valid && tr.write && tr.dirty && tr.af);
		}
		ptsim_machine_destroy(m);
	}
}

static void test_clone_independent(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3, NULL);
	struct ptsim_mm *mm = populate_state(m, T1_PMD), *copy = NULL;
	char *before = ptdump_string(mm), *after, *cdump;
	struct ptsim_translation a, b;

	(void)state;
	assert_int_equal(ptsim_mm_clone(mm, &copy), 0);
	assert_ptr_not_equal(ptsim_mm_machine(copy), m);
	cdump = ptdump_string(copy);
	assert_string_equal(before, cdump);
	assert_int_equal(ptsim_translate(mm, VA + 12345, &a), 0);
	assert_int_equal(ptsim_translate(copy, VA + 12345, &b), 0);
	assert_memory_equal(&a, &b, sizeof(a));
	/* changing the copy (features and tables) leaves the original as it was */
	assert_int_equal(ptsim_feature_set(ptsim_mm_machine(copy), PTSIM_FEAT_CONTPTE_GET_EARLY_EXIT,
					   true), 0);
	assert_int_equal(ptsim_split_huge_pmd(copy, VA, LEN), 0);
	after = ptdump_string(mm);
	assert_string_equal(before, after);
	bool on = true;
	assert_int_equal(ptsim_feature_get(m, PTSIM_FEAT_CONTPTE_GET_EARLY_EXIT, &on), 0);
	assert_false(on);
	ptsim_mm_destroy(copy);
	/* the original keeps working after the copy is gone */
	assert_int_equal(ptsim_split_huge_pmd(mm, VA, LEN), 0);
	assert_int_equal(ptsim_translate(mm, VA + 12345, &a), 0);
	assert_int_equal(a.level, 3);
	free(before);
	free(after);
	free(cdump);
	ptsim_machine_destroy(m);
}

static void test_bad_arguments(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3, NULL);
	struct ptsim_mm *mm = populate_state(m, T2);
	struct ptsim_machine_config cfg;
	struct ptsim_machine *bad = NULL;
	const unsigned int rw = PTSIM_PROT_READ | PTSIM_PROT_WRITE;
	const unsigned int pa = PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS;
	char *before = ptdump_string(mm), *after;
	struct ptsim_stats total_before, total_after;
	struct ptsim_translation tr;
	uint64_t top = UINT64_C(1) << 48;

	(void)state;
	assert_int_equal(ptsim_total_stats(m, &total_before), 0);
	assert_int_equal(ptsim_mmap(NULL, VA, 4096, rw, pa, NULL), -EINVAL);
	assert_int_equal(ptsim_mmap(mm, 0x50000000, 0, rw, pa, NULL), -EINVAL);
	assert_int_equal(ptsim_mmap(mm, 0x50000001, 4096, rw, pa, NULL), -EINVAL);
	/* do_mmap's PAGE_ALIGN(len) wraps to 0: -ENOMEM */
	assert_int_equal(ptsim_mmap(mm, 0x50000000, UINT64_MAX - 100, rw, pa, NULL), -ENOMEM);
	assert_int_equal(ptsim_mmap(mm, top - 4096, 8192, rw, pa, NULL), -EINVAL);
	assert_int_equal(ptsim_mmap(mm, UINT64_MAX & ~UINT64_C(4095), 8192, rw, pa, NULL), -EINVAL);
	assert_int_equal(ptsim_mmap(mm, 0x50000000, 4096, 0x80, pa, NULL), -EINVAL);
	assert_int_equal(ptsim_mmap(mm, 0x50000000, 4096, rw, PTSIM_MAP_ANONYMOUS, NULL), -EINVAL);
	assert_int_equal(ptsim_mmap(mm, 0x50000000, 4096, rw,
				    PTSIM_MAP_PRIVATE | PTSIM_MAP_SHARED | PTSIM_MAP_ANONYMOUS, NULL),
			 -EINVAL);
	assert_int_equal(ptsim_mmap(mm, 0x50000000, 4096, rw, PTSIM_MAP_PRIVATE, NULL), -EINVAL);
	assert_int_equal(ptsim_mmap(mm, VA, 4096, rw, pa, NULL), -EEXIST);
	assert_int_equal(ptsim_populate(mm, VA, LEN, 4, true), -EEXIST);
	assert_int_equal(ptsim_populate(mm, VA + 4096, 65536, 4, true), -EINVAL);
	assert_int_equal(ptsim_populate(mm, VA, 4096, 10, true), -EINVAL);
	assert_int_equal(ptsim_populate(mm, VA, 65536, 4, false), -EINVAL);
	assert_int_equal(ptsim_populate(mm, 0x70000000, 4096, 0, true), -EFAULT);
	assert_int_equal(ptsim_populate(mm, VA + LEN - 4096, 8192, 0, true), -EFAULT);
	assert_int_equal(ptsim_populate(NULL, VA, 4096, 0, true), -EINVAL);
	assert_int_equal(ptsim_split_huge_pmd(mm, VA + 1, 4096), -EINVAL);
	assert_int_equal(ptsim_split_huge_pmd(mm, UINT64_MAX - 4095, 8192), -EINVAL);
	assert_int_equal(ptsim_translate(mm, top, &tr), -EINVAL);
	assert_int_equal(ptsim_translate(mm, 0x70000000, &tr), -ENOENT);
	assert_int_equal(ptsim_translate(mm, VA, NULL), -EINVAL);
	assert_int_equal(ptsim_ptdump(mm, NULL), -EINVAL);
	assert_int_equal(ptsim_feature_set(m, PTSIM_FEAT__COUNT, true), -EINVAL);
	assert_int_equal(ptsim_feature_preset(m, "nonsense"), -EINVAL);
	assert_int_equal(ptsim_mm_create(NULL, &mm), -EINVAL);
	assert_int_equal(ptsim_last_stats(NULL, &total_after), -EINVAL);
	assert_null(ptsim_event_name(PTSIM_EV__COUNT));
	assert_null(ptsim_cpu_name(PTSIM_CPU__COUNT));

	ptsim_machine_config_init(&cfg);
	cfg.granule = (enum ptsim_granule)13;
	assert_int_equal(ptsim_machine_create(&cfg, &bad), -EINVAL);
	ptsim_machine_config_init(&cfg);
	cfg.phys_base = 0x1234;
	assert_int_equal(ptsim_machine_create(&cfg, &bad), -EINVAL);
	ptsim_machine_config_init(&cfg);
	cfg.cpu = PTSIM_CPU__COUNT;
	assert_int_equal(ptsim_machine_create(&cfg, &bad), -EINVAL);
	ptsim_machine_config_init(&cfg);
	cfg.preset = "nonsense";
	assert_int_equal(ptsim_machine_create(&cfg, &bad), -EINVAL);
	assert_null(bad);

	/* nothing changed: tables, and no work counted */
	after = ptdump_string(mm);
	assert_string_equal(before, after);
	assert_int_equal(ptsim_total_stats(m, &total_after), 0);
	assert_memory_equal(&total_before, &total_after, sizeof(total_before));
	free(before);
	free(after);
	ptsim_machine_destroy(m);
}

/* Every allocation of an operation can fail; each failure leaves the model as it was. */
static void sweep_alloc_failures(unsigned int order, bool split)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3, NULL);
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, LEN), *probe;
	uint64_t n0, n1, free0, free1, bytes0, bytes1;
	char *before, *after;
	int err;

	if (split)
		assert_int_equal(ptsim_populate(mm, VA, LEN, order, true), 0);
	/* count the allocations of a successful run on a copy */
	assert_int_equal(ptsim_mm_clone(mm, &probe), 0);
	assert_int_equal(ptsim_alloc_count(ptsim_mm_machine(probe), &n0), 0);
	err = split ? ptsim_split_huge_pmd(probe, VA, LEN) : ptsim_populate(probe, VA, LEN, order, true);
	assert_int_equal(err, 0);
	assert_int_equal(ptsim_alloc_count(ptsim_mm_machine(probe), &n1), 0);
	ptsim_mm_destroy(probe);
	assert_true(n1 > n0);

	before = ptdump_string(mm);
	assert_int_equal(ptsim_phys_free_bytes(m, &free0), 0);
	assert_int_equal(ptsim_mm_pgtable_bytes(mm, &bytes0), 0);
	for (uint64_t k = 1; k <= n1 - n0; k++) {
		assert_int_equal(ptsim_fail_nth_alloc(m, k), 0);
		err = split ? ptsim_split_huge_pmd(mm, VA, LEN) : ptsim_populate(mm, VA, LEN, order, true);
		assert_int_equal(err, -ENOMEM);
		after = ptdump_string(mm);
		assert_string_equal(before, after);
		free(after);
		assert_int_equal(ptsim_phys_free_bytes(m, &free1), 0);
		assert_int_equal(ptsim_mm_pgtable_bytes(mm, &bytes1), 0);
		assert_int_equal(free0, free1);
		assert_int_equal(bytes0, bytes1);
	}
	assert_int_equal(ptsim_fail_nth_alloc(m, 0), 0);
	err = split ? ptsim_split_huge_pmd(mm, VA, LEN) : ptsim_populate(mm, VA, LEN, order, true);
	assert_int_equal(err, 0);
	free(before);
	ptsim_machine_destroy(m);
}

static void test_alloc_failure(void **state)
{
	(void)state;
	sweep_alloc_failures(0, false);		/* T3 population */
	sweep_alloc_failures(4, false);		/* T2 */
	sweep_alloc_failures(9, false);		/* PMD THPs */
	sweep_alloc_failures(9, true);		/* their split to T1 */
}

static void test_destroy_frees_memory(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3, NULL);
	uint64_t free0, free1;
	struct ptsim_mm *mm;

	(void)state;
	assert_int_equal(ptsim_phys_free_bytes(m, &free0), 0);
	mm = populate_state(m, T1);
	assert_int_equal(ptsim_phys_free_bytes(m, &free1), 0);
	assert_true(free1 < free0);
	ptsim_mm_destroy(mm);
	assert_int_equal(ptsim_phys_free_bytes(m, &free1), 0);
	assert_int_equal(free0, free1);
	ptsim_machine_destroy(m);
}

/* do_swap_page and the zero page's write fault (wp_page_copy). */
static void test_swap_in_and_zero_page_cow(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3, NULL);
	struct ptsim_mm *mm = new_mm_with_vma(m, SZ_1G, SZ_2M);
	struct ptsim_translation tr, zero;
	struct ptsim_stats s;

	(void)state;
	/* a swapped-out exclusive page: a read maps it read-only, a write writable */
	assert_int_equal(ptsim_populate(mm, SZ_1G, 2 * SZ_4K, 0, true), 0);
	assert_int_equal(ptsim_swapout(mm, SZ_1G, 2 * SZ_4K), 0);
	assert_int_equal(ptsim_fault(mm, SZ_1G, PTSIM_ACCESS_READ), 0);
	ptsim_last_stats(m, &s);
	assert_int_equal(s.ev[PTSIM_EV_IO_KIB], 4);
	assert_int_equal(s.ev[PTSIM_EV_FOLIO_ALLOC], 1);
	assert_int_equal(ptsim_translate(mm, SZ_1G, &tr), 0);
	assert_true(tr.read_only);
	assert_int_equal(ptsim_fault(mm, SZ_1G + SZ_4K, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(ptsim_translate(mm, SZ_1G + SZ_4K, &tr), 0);
	assert_true(tr.write && !tr.read_only);
	/* a read fault maps the zero page; a write then gets a page of its own */
	assert_int_equal(ptsim_fault(mm, SZ_1G + SZ_64K, PTSIM_ACCESS_READ), 0);
	assert_int_equal(ptsim_translate(mm, SZ_1G + SZ_64K, &zero), 0);
	assert_int_equal(ptsim_fault(mm, SZ_1G + SZ_64K, PTSIM_ACCESS_WRITE), 0);
	ptsim_last_stats(m, &s);
	assert_int_equal(s.ev[PTSIM_EV_PAGE_ZERO], 1);
	assert_int_equal(s.ev[PTSIM_EV_TLBI_VA], 1);	/* ptep_clear_flush of the zero-page entry */
	assert_int_equal(ptsim_translate(mm, SZ_1G + SZ_64K, &tr), 0);
	assert_true(tr.write && !tr.read_only);
	assert_true(tr.pa != zero.pa);
	ptsim_machine_destroy(m);
}

/*
 * Issue 40 item 10: do_mmap rounds len up to whole pages (PAGE_ALIGN), so a
 * scenario written with 4K lengths runs on 16K and 64K machines: the VMA
 * covers the whole page, anonymous and file alike.
 */
static void test_mmap_len_rounds_up(void **state)
{
	static const enum ptsim_granule gran[] = { PTSIM_GRANULE_4K, PTSIM_GRANULE_16K,
						   PTSIM_GRANULE_64K };

	(void)state;
	for (unsigned int i = 0; i < 3; i++) {
		struct ptsim_machine *m = new_machine(gran[i], 48, PTSIM_CPU_NEOVERSE_V2, "baseline");
		const uint64_t page = m->geo.page_size;
		struct ptsim_mm *mm;
		unsigned int file, fd;
		const struct vma *v;

		assert_int_equal(ptsim_mm_create(m, &mm), 0);
		assert_int_equal(ptsim_mmap(mm, VA, 4096 + 1, PTSIM_PROT_READ | PTSIM_PROT_WRITE,
					    PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL), 0);
		v = find_vma(mm, VA);
		assert_non_null(v);
		assert_int_equal(v->end - v->start, ALIGN_UP64(4097, page));
		assert_int_equal(ptsim_fault(mm, VA + ALIGN_UP64(4097, page) - 1, PTSIM_ACCESS_WRITE), 0);
		assert_int_equal(ptsim_file_create(m, 16 * SZ_64K, 0, &file), 0);
		assert_int_equal(ptsim_file_open(m, file, &fd), 0);
		assert_int_equal(ptsim_mmap_file(mm, VA + SZ_1G, 4096, PTSIM_PROT_READ, fd, 0, NULL), 0);
		v = find_vma(mm, VA + SZ_1G);
		assert_non_null(v);
		assert_int_equal(v->end - v->start, page);
		assert_invariants(m);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/* host_memory_limit: a populate past it is -ENOMEM and leaves everything as it was. */
static void test_host_memory_limit(void **state)
{
	struct ptsim_machine_config cfg;
	struct ptsim_machine *m;
	struct ptsim_mm *mm;
	struct ptsim_translation tr;
	uint64_t before, after, base, bad = 1, bbm_before;

	(void)state;
	/* 1 MiB beyond what a machine takes before it maps anything (its TLBs and caches) */
	ptsim_machine_config_init(&cfg);
	m = create_machine(&cfg);
	assert_int_equal(ptsim_machine_host_bytes(m, &base), 0);
	ptsim_machine_destroy(m);
	cfg.host_memory_limit = base + (UINT64_C(1) << 20);
	m = create_machine(&cfg);
	mm = new_mm_with_vma(m, SZ_1G, SZ_1G);
	assert_int_equal(ptsim_populate(mm, SZ_1G, SZ_64K, 0, true), 0);
	assert_int_equal(ptsim_machine_host_bytes(m, &before), 0);
	assert_true(before > base + 16 * sizeof(struct folio) && before <= cfg.host_memory_limit);
	/* 262,144 folios' metadata alone is far past 1 MiB */
	assert_int_equal(ptsim_populate(mm, SZ_1G + SZ_2M, SZ_1G - SZ_2M, 0, true), -ENOMEM);
	assert_int_equal(ptsim_machine_host_bytes(m, &after), 0);
	assert_int_equal(after, before);
	assert_int_equal(ptsim_translate(mm, SZ_1G + SZ_2M, &tr), -ENOENT);
	assert_int_equal(ptsim_check_invariants(m, &bad), 0);
	assert_int_equal(bad, 0);
	/*
	 * freeing gives it back: swapping out the 16 pages frees the only live
	 * folio records in their chunk of host pages (three 4 KiB pages of
	 * 12-byte records), which is uncharged; the BBM checker's arrays grow
	 * by what its breaks need, and that is charged
	 */
	bbm_before = bbm_host_bytes(&m->bbm);
	assert_int_equal(ptsim_swapout(mm, SZ_1G, SZ_64K), 0);
	assert_int_equal(ptsim_machine_host_bytes(m, &after), 0);
	assert_true(bbm_host_bytes(&m->bbm) > bbm_before);
	assert_int_equal(after, before - m->folios.chunk_records * sizeof(struct folio) +
				bbm_host_bytes(&m->bbm) - bbm_before);
	assert_int_equal(m->folios.chunk_records * sizeof(struct folio) % (uint64_t)sysconf(_SC_PAGESIZE), 0);
	ptsim_machine_destroy(m);
}

/* What a diagnostic handler sees of a folio while the invariant checker reports it. */
static struct ptsim_mm *seen_mm;
static int seen_mapcount, seen_reports;

static void read_folio_in_handler(const struct ptsim_diag *d, void *arg)
{
	struct ptsim_folio_info fi;

	(void)arg;
	if (d->kind != PTSIM_DIAG_INVARIANT || ptsim_folio_info(seen_mm, SZ_1G, &fi))
		return;
	seen_mapcount = fi.mapcount;
	seen_reports++;
}

/*
 * Folio records, one per page frame: a tail page finds its head, each page
 * keeps its own exclusivity, a split turns tails into folios in place, a
 * clone copies the records, and the invariant checker finds a wrong
 * mapcount without changing it (or showing a handler a changed one).
 */
static void test_folio_records(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, NULL), *c;
	struct ptsim_mm *mm = new_mm_with_vma(m, SZ_1G, SZ_2M);
	struct ptsim_folio_info head, fi;
	struct folio *f;
	uint64_t bad = 0;

	(void)state;
	assert_int_equal(ptsim_populate(mm, SZ_1G, SZ_64K, 4, true), 0);
	assert_int_equal(ptsim_folio_info(mm, SZ_1G, &head), 0);
	assert_int_equal(head.order, 4);
	f = pfn_folio(m, head.pfn + 9);	/* a tail page's record leads to the head */
	assert_non_null(f);
	assert_int_equal(folio_pfn(m, f), head.pfn);
	assert_int_equal(f->order, 4);
	assert_int_equal(ptsim_folio_set_exclusive(mm, SZ_1G + 5 * SZ_4K, false), 0);
	for (uint64_t i = 4; i < 7; i++) {
		assert_int_equal(ptsim_folio_info(mm, SZ_1G + i * SZ_4K, &fi), 0);
		assert_int_equal(fi.anon_exclusive, i != 5);
	}
	/* the clone has its own records */
	assert_int_equal(ptsim_machine_clone(m, &c), 0);
	assert_int_equal(pfn_folio(c, head.pfn + 9)->order, 4);
	assert_int_equal(folio_mapcount(c, pfn_folio(c, head.pfn)), 16);
	pfn_folio(c, head.pfn)[5].anon_exclusive = 1;
	assert_int_equal(ptsim_folio_info(mm, SZ_1G + 5 * SZ_4K, &fi), 0);
	assert_false(fi.anon_exclusive);
	ptsim_machine_destroy(c);
	/* a mapcount one too high is found, and stays as it was */
	folio_mapcount_add(m, f, 1);
	seen_mm = mm;
	ptsim_set_diag_handler(m, read_folio_in_handler, NULL);
	assert_int_equal(ptsim_check_invariants(m, &bad), 0);
	assert_int_equal(bad, 1);
	assert_int_equal(seen_reports, 1);
	assert_int_equal(seen_mapcount, 17);
	assert_int_equal(folio_mapcount(m, f), 17);
	folio_mapcount_add(m, f, -1);
	ptsim_set_diag_handler(m, NULL, NULL);
	assert_invariants(m);
	/* split in place: every page its own order-0 folio, index and exclusivity kept */
	assert_int_equal(split_folio(mm, f), 0);
	for (uint64_t i = 0; i < 16; i++) {
		struct folio *p = pfn_folio(m, head.pfn + i);

		assert_ptr_equal(p, &f[i]);
		assert_int_equal(p->order, 0);
		assert_int_equal(p->index, head.index + i);
		assert_int_equal(folio_mapcount(m, p), 1);
		assert_int_equal(p->anon_exclusive, i != 5);
	}
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/* anon_vma ids are 31 bits wide (they share folio->mapping with the file tag): none left is -ENOMEM. */
static void test_anon_vma_ids_run_out(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, NULL);
	struct ptsim_mm *mm = new_mm_with_vma(m, SZ_1G, SZ_2M);
	struct ptsim_translation tr;

	(void)state;
	m->next_anon_vma = ANON_VMA_MAX + 1;
	assert_int_equal(ptsim_populate(mm, SZ_1G, SZ_4K, 0, true), -ENOMEM);
	assert_int_equal(ptsim_fault(mm, SZ_1G, PTSIM_ACCESS_WRITE), -ENOMEM);
	assert_int_equal(ptsim_translate(mm, SZ_1G, &tr), -ENOENT);
	m->next_anon_vma = ANON_VMA_MAX;	/* the last id still works */
	assert_int_equal(ptsim_populate(mm, SZ_1G, SZ_4K, 0, true), 0);
	assert_int_equal(ptsim_populate(mm, SZ_1G + SZ_4K, SZ_4K, 0, true), 0);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/*
 * ASLR seeds are mixed (splitmix64) before the xorshift stream starts, so
 * consecutive seeds start unrelated streams: about half of the 64 bits
 * differ, where one xorshift step of the raw seed changes only a few.
 */
static void test_aslr_seed_mixing(void **state)
{
	double bits = 0;

	(void)state;
	for (uint64_t s = 1; s <= 1000; s++)
		bits += __builtin_popcountll(prng_seed(s) ^ prng_seed(s + 1));
	bits /= 1000;
	assert_true(bits > 30 && bits < 34);
	assert_true(prng_seed(UINT64_C(0) - UINT64_C(0x9e3779b97f4a7c15)) != 0);	/* never 0 */
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_swap_in_and_zero_page_cow),
		cmocka_unit_test(test_host_memory_limit),
		cmocka_unit_test(test_mmap_len_rounds_up),
		cmocka_unit_test(test_folio_records),
		cmocka_unit_test(test_anon_vma_ids_run_out),
		cmocka_unit_test(test_aslr_seed_mixing),
		cmocka_unit_test(test_ptdump_golden),
		cmocka_unit_test(test_population_counts),
		cmocka_unit_test(test_other_granules),
		cmocka_unit_test(test_clone_independent),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_alloc_failure),
		cmocka_unit_test(test_destroy_frees_memory),
	};

	golden_dir = argc > 1 ? argv[1] : "tests/golden";
	return cmocka_run_group_tests(tests, NULL, NULL);
}
