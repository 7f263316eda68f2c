// SPDX-License-Identifier: MIT
/*
 * The fuzz harness: decode bytes into a sequence of public API calls with
 * arbitrary (often invalid) arguments, across all algorithms and granules,
 * and check the model's invariants after every call. Any broken invariant
 * aborts, which libFuzzer and the smoke driver report. Break-before-make
 * reports are not failures here: the model flags modelled kernel behaviour
 * (see test-bbm.c) and they are counted, not fatal.
 */
#include "fuzz-one.h"
#include "json_read.h"
#include "scenario.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ptsim/ptsim.h>
#include <ptsim/raw.h>

struct rd {
	const uint8_t *p;
	size_t n;
};

static uint8_t u8(struct rd *r)
{
	if (!r->n)
		return 0;
	r->n--;
	return *r->p++;
}

static uint64_t u64(struct rd *r)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | u8(r);
	return v;
}

/*
 * Two bytes, high first. C leaves the order of the calls in one expression
 * (and of a call's arguments) unspecified, so every value below is read
 * into a variable of its own before use: an input decodes the same under
 * every compiler, and a reproducer from one build replays in another.
 */
static unsigned int u16(struct rd *r)
{
	unsigned int hi = u8(r);

	return hi << 8 | u8(r);
}

#define GIB (UINT64_C(1) << 30)
#define OPS 32	/* the operations decoded below */
#define FUZZ_SCENARIO_WORK (UINT64_C(1) << 22)	/* work units per scenario input */

/* Mostly plausible addresses in the regions the harness maps, sometimes anything. */
static uint64_t addr(struct rd *r, uint64_t page)
{
	uint8_t k = u8(r);

	switch (k % 8) {
	case 0: return u64(r);
	case 1: return GIB + (uint64_t)u8(r) * page + (k & 0x80 ? 1 : 0);
	case 2: return 2 * GIB + (uint64_t)u16(r) * page;
	case 3: return 4 * GIB + (uint64_t)u8(r) * page;
	default: return GIB + (uint64_t)u16(r) * page;
	}
}

static uint64_t len(struct rd *r, uint64_t page)
{
	uint8_t k = u8(r);

	if (k == 0xff)
		return u64(r);
	if (k == 0xfe)
		return UINT64_C(1) << 48;	/* the whole of a 48-bit address space */
	return (uint64_t)(k % 64) * page * (k & 0x40 ? 32 : 1);
}

static unsigned int invariant_breaks;

/* A page-query callback that sometimes stops the walk, with its own value. */
static int page_stop(const struct ptsim_page_info *pi, void *arg)
{
	unsigned int *left = arg;

	(void)pi;
	return *left && !--*left ? 7 : 0;
}

static int vma_stop(const struct ptsim_vma_info *vi, void *arg)
{
	unsigned int *left = arg;

	(void)vi;
	return *left && !--*left ? 7 : 0;
}

/*
 * get_user_pages / pin_user_pages with fuzzed flags and counts; then the
 * references taken are dropped in a fuzzed order, some twice, and a fuzzed
 * address is put or unpinned (all of it must be refused or succeed cleanly).
 */
static void gup_ops(struct rd *r, struct ptsim_machine *m, struct ptsim_mm *mm, uint64_t a)
{
	uint64_t pas[64] = { 0 };
	uint8_t k = u8(r);
	unsigned int foll = u8(r);
	uint64_t nr = k & 0x80 ? u64(r) : k % 64;
	int64_t got;

	if (nr > 64 && nr != UINT64_MAX && nr < (UINT64_C(1) << 40))
		nr = 64;	/* room for the result; larger counts only with bad arguments */
	if (nr > 64)
		got = (k & 1 ? ptsim_pin_user_pages : ptsim_get_user_pages)(mm, a, nr, foll, NULL);
	else
		got = (k & 1 ? ptsim_pin_user_pages : ptsim_get_user_pages)(mm, a, nr, foll, pas);
	if (getenv("PTSIM_FUZZ_TRACE"))
		fprintf(stderr, "fuzz: gup %d nr %llu foll %u: %lld\n", k & 1, (unsigned long long)nr, foll,
			(long long)got);
	if (got > 64)
		abort();	/* more pages than asked */
	for (int64_t i = 0; i < got; i++) {
		int64_t j = (i + u8(r)) % got;

		if (k & 1)
			ptsim_unpin_user_page(m, pas[j]);
		else
			ptsim_put_page(m, pas[j]);
	}
	if (u8(r) & 1)
		ptsim_put_page(m, u64(r));
	else
		ptsim_unpin_user_page(m, u64(r));
}

/*
 * Every diagnostic also tries to call back into the library, as a careless
 * handler would: anything that changes the model must be refused.
 */
static void on_diag(const struct ptsim_diag *d, void *arg)
{
	struct ptsim_mm *mm = arg;

	if (d->kind == PTSIM_DIAG_INVARIANT) {
		invariant_breaks++;
		fprintf(stderr, "fuzz: invariant: %s (va 0x%llx)\n", d->message, (unsigned long long)d->va);
	}
	if (ptsim_mmap(mm, GIB, GIB, PTSIM_PROT_READ, PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS,
		       NULL) != -EBUSY ||
	    ptsim_mprotect(mm, GIB, GIB, PTSIM_PROT_NONE) != -EBUSY) {
		fprintf(stderr, "fuzz: a handler changed the model\n");
		abort();
	}
	ptsim_mm_destroy(mm);	/* refused: nothing happens */
}

static void check(struct ptsim_machine *m)
{
	uint64_t v = 0;

	ptsim_check_invariants(m, &v);
	if (v || invariant_breaks)
		abort();
}

/*
 * Kernel-map operations. Permission changes are issued only where the kernel
 * issues them: after the capabilities are final and when can_set_direct_map()
 * (its callers gate on it). Elsewhere a change inside a contiguous group is
 * left misprogrammed, as the kernel would leave it, and the checker says so.
 */
static void kernel_ops(struct rd *r, struct ptsim_machine *m, struct ptsim_mm **kmm, uint64_t page,
		       bool *finalized)
{
	/* small, so that checking every table after each call stays cheap */
	struct ptsim_mem_range ranges[2] = { { GIB, GIB / 4 }, { 3 * GIB, GIB / 16 } };
	uint8_t op = u8(r);
	uint64_t va = 0, x, y;
	unsigned int z;

	if (!*kmm) {
		struct ptsim_kernel_config kc = { 0 };

		kc.ranges = ranges;
		kc.nr_ranges = 1 + (op & 1);
		kc.rodata = (enum ptsim_rodata)(u8(r) % 4);
		kc.debug_pagealloc = op & 2;
		kc.secondary_lacks_bbml2 = op & 4;
		if (op & 8) {
			kc.kernel_start = GIB + (uint64_t)(u8(r) % 8) * page;
			kc.kernel_end = kc.kernel_start + (uint64_t)(u8(r) % 64) * page;
		}
		if (ptsim_kernel_boot(m, &kc, kmm))
			*kmm = NULL;
		return;
	}
	ptsim_kernel_lm_addr(*kmm, GIB, &va);
	if (op % 5 >= 2 && !(*finalized && ptsim_kernel_can_set_direct_map(*kmm)))
		return;
	switch (op % 5) {
	case 0:
		*finalized |= ptsim_kernel_finalize_caps(*kmm) != -ENOMEM;
		break;
	case 1:
		x = u8(r);
		y = u8(r);
		ptsim_split_kernel_leaf_mapping(*kmm, va + x * page, va + (y + 256) * page);
		break;
	case 2:
		x = u16(r);
		y = u8(r) % 64;
		z = u8(r) % 7;
		ptsim_set_memory(*kmm, va + x * page, y, (enum ptsim_set_memory_op)z);
		break;
	case 3:
		x = u8(r);
		z = u8(r) % 3;
		ptsim_set_direct_map(*kmm, va + x * page, (enum ptsim_direct_map_op)z);
		break;
	default:
		x = u64(r);
		y = u64(r);
		z = u8(r);
		ptsim_set_memory(*kmm, x, y, (enum ptsim_set_memory_op)z);
		break;
	}
}

/* After every scenario operation: the model's invariants hold. */
static void scenario_check(void *arg, struct ptsim_machine *m, size_t op, bool after)
{
	(void)arg;
	(void)op;
	if (after)
		check(m);
}

static void count_invariants(const struct ptsim_diag *d, void *arg)
{
	(void)arg;
	if (d->kind == PTSIM_DIAG_INVARIANT) {
		invariant_breaks++;
		fprintf(stderr, "fuzz: invariant: %s (va 0x%llx)\n", d->message, (unsigned long long)d->va);
	}
}

static void ignore_diag(const struct ptsim_diag *d, void *arg)
{
	(void)d;
	(void)arg;
}

/*
 * An input starting with 0xff is scenario text: parsed, and when it parses,
 * run with a bound on the work it does (every operation, loop iteration,
 * exec-random call and counted event; a count over the budget is refused
 * before it starts) and the invariants checked after each operation. The
 * known v6.18 linear-map finding (doc/findings.md §2) breaks an invariant by
 * design, so these runs keep its fix on.
 */
static int fuzz_scenario(const uint8_t *data, size_t size)
{
	/*
	 * The work of one input, not its number of operations, is bounded. An
	 * operation costs more here than in ptsim-bench run: every one is
	 * followed by a check of every table.
	 */
	static const struct scn_limits limits = { FUZZ_SCENARIO_WORK, 1024, 256 << 20, NULL };
	struct scenario s;
	struct scn_result res;
	char err[256];
	bool raw = false;

	if (scenario_parse((const char *)data, size, "fuzz", &s, err, sizeof(err)))
		return 0;
	if (s.machine.phys_size > 4 * GIB)
		s.machine.phys_size = 4 * GIB;
	for (size_t i = 0; i < s.nr; i++)
		if (s.ops[i].kind == S_FEATURE && !strcmp(s.ops[i].text, "linear_map_invalid_leaf_fix"))
			s.ops[i].on = true;
	/*
	 * A raw descriptor sequence (raw-* operations) may leave the tables and
	 * TLBs as broken as its writer made them, and the checker says so: such
	 * an input is run for crashes only, without the invariant checks.
	 */
	for (size_t i = 0; i < s.nr; i++)
		raw |= s.ops[i].kind >= S_RAW_MM && s.ops[i].kind <= S_RAW_TLBI;
	invariant_breaks = 0;
	scenario_run(&s, &s.machine, "+linear_map_invalid_leaf_fix", raw ? ignore_diag : count_invariants,
		     NULL, raw ? NULL : scenario_check, NULL, &limits, &res);
	scn_result_free(&res);
	scenario_free(&s);
	return 0;
}

/*
 * A leaf, table or garbage descriptor for the raw API: mostly one the
 * architecture defines at some level (with random attributes and output
 * address in the machine's memory), sometimes any 64 bits.
 */
static uint64_t raw_desc(struct rd *r, uint64_t page)
{
	uint8_t kind = u8(r);
	uint64_t pa = GIB + (u64(r) % (4 * GIB)) / page * page;
	uint64_t attrs = (uint64_t)u16(r) << 2 & 0xffc;	/* AttrIndx .. nG */
	uint64_t upper = (uint64_t)(u8(r) & 0x7f) << 51;	/* DBM, Contiguous, PXN, UXN, SW */

	switch (kind % 5) {
	case 0: return 0;
	case 1: return pa | attrs | upper | 3;	/* page (level 3), or a table */
	case 2: return pa | attrs | upper | 1;	/* block, or reserved at level 3 */
	case 3: return pa | 2;			/* invalid with bits set */
	default: return u64(r);
	}
}

/*
 * An input starting with 0xfe is a raw architectural sequence (ptsim/raw.h):
 * bare address spaces on a machine of one to four CPUs, table allocations
 * and frees, descriptor writes, CASes and reads, barriers, TLBIs of every
 * kind with arbitrary fields, TLB lookups, accesses, queries, and the calls
 * a raw mm must refuse (split_huge_pmd, mm_exit, mmap). The sequence may
 * break the architecture's rules; the checker reports that, so this is run
 * for crashes and for every call's validation (the invariant checker runs
 * after each call, its reports ignored).
 */
static int fuzz_raw(const uint8_t *data, size_t size)
{
	static const enum ptsim_granule grs[] = { PTSIM_GRANULE_4K, PTSIM_GRANULE_16K, PTSIM_GRANULE_64K };
	struct rd r = { data, size };
	struct ptsim_machine_config cfg;
	struct ptsim_machine *m;
	struct ptsim_mm *mms[3] = { NULL };
	uint8_t hdr = u8(&r);
	uint64_t page, v;

	ptsim_machine_config_init(&cfg);
	cfg.granule = grs[hdr % 3];
	cfg.va_bits = (hdr >> 2) & 1 ? 39 : 48;
	cfg.cpu = (enum ptsim_cpu)(u8(&r) % PTSIM_CPU__COUNT);
	cfg.nr_cpus = 1 + (hdr >> 3) % 4;
	cfg.bbm_level = (hdr >> 5) % 4;	/* 0: the CPU's own */
	cfg.phys_base = GIB;
	cfg.phys_size = 4 * GIB;
	if (ptsim_machine_create(&cfg, &m))
		return 0;
	ptsim_set_diag_handler(m, ignore_diag, NULL);
	page = UINT64_C(1) << cfg.granule;
	for (int step = 0; step < 64 && r.n; step++) {
		uint8_t op = u8(&r), who = u8(&r) % 3, lv = u8(&r), pick = u8(&r), c = u8(&r);
		/* now and then a CPU the machine lacks */
		unsigned int cpu = c % 8 ? c % cfg.nr_cpus : c % 6;
		/* levels 1..3 mostly, now and then 0 or 4 */
		int level = lv % 8 ? 1 + lv % 3 : (lv >> 3) % 2 * 4;
		/* mostly a few pages in four blocks, so tables fill and are reused; sometimes anything */
		uint64_t va = pick % 8 ? GIB + (pick % 4) * (page << (cfg.granule - 3)) +
					 (uint64_t)(u8(&r) % 16) * page : u64(&r);
		struct ptsim_mm *mm = mms[who];

		if (!mm && op % 12) {
			ptsim_raw_mm_create(m, &mms[who]);
			continue;
		}
		switch (op % 12) {
		case 0:
			if (mm) {
				ptsim_mm_destroy(mm);
				mms[who] = NULL;
			}
			break;
		case 1:
			/* mostly linked at once (as the kernel does), else left for a block above it */
			if (!ptsim_raw_table_alloc(mm, va, level, &v) && cpu % 3)
				ptsim_raw_write(mm, 0, va, level - 1, v | 3, 0);
			break;
		case 2:
			ptsim_raw_table_free(mm, va, level);
			break;
		case 3: {
			uint64_t desc = raw_desc(&r, page);

			ptsim_raw_write(mm, cpu, va, level, desc, u8(&r) % 3);
			break;
		}
		case 4: {
			uint64_t expected = raw_desc(&r, page), desc = raw_desc(&r, page);

			ptsim_raw_cas(mm, cpu, va, level, expected, desc, u8(&r) % 3, &v);
			break;
		}
		case 5:
			ptsim_raw_read(mm, cpu, va, level, &v);
			break;
		case 6:
			ptsim_raw_barrier(m, cpu, (enum ptsim_raw_barrier)(u8(&r) % 6));
			break;
		case 7: {
			struct ptsim_raw_tlbi t = { 0 };
			unsigned int asid = 0;

			ptsim_mm_asid(mm, &asid);
			t.kind = (enum ptsim_raw_tlbi_kind)(u8(&r) % 11);
			t.broadcast = u8(&r) & 1;
			t.asid = u8(&r) % 4 ? asid : u16(&r) << (u8(&r) % 16);
			t.va = va;
			t.pages = u8(&r) % 4 ? 1 : u64(&r) % 100000;
			t.ttl_level = (int)(u8(&r) % 6) - 1;
			ptsim_raw_tlbi(m, cpu, &t);
			break;
		}
		case 8: {
			struct ptsim_raw_tlb_entry e[4];
			unsigned int n;
			enum ptsim_fault_kind f;

			ptsim_raw_tlb_lookup(mm, cpu, va, e, u8(&r) % 5, &n);
			ptsim_access(mm, cpu, va, (enum ptsim_access_kind)(u8(&r) % 4), &f);
			break;
		}
		case 9: {
			struct ptsim_translation tr;
			struct ptsim_page_info pi;

			ptsim_translate(mm, va, &tr);
			ptsim_pagemap(mm, va, &pi);
			break;
		}
		case 10:
			/* a raw mm has no VMAs, no THPs and no exit: each is refused */
			if (ptsim_split_huge_pmd(mm, va & ~(page - 1), page) != -EINVAL ||
			    ptsim_mm_exit(mm) != -EINVAL ||
			    ptsim_mmap(mm, GIB, page, PTSIM_PROT_READ,
				       PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL) != -EINVAL) {
				fprintf(stderr, "fuzz: a raw mm took a call it must refuse\n");
				abort();
			}
			break;
		default: {
			struct ptsim_mm *copy;

			if (!ptsim_mm_clone(mm, &copy))
				ptsim_mm_destroy(copy);
			break;
		}
		}
		ptsim_check_invariants(m, &v);
	}
	for (int i = 0; i < 3; i++)
		if (mms[i])
			ptsim_mm_destroy(mms[i]);
	ptsim_machine_destroy(m);
	return 0;
}

/*
 * An input starting with 0xfd is JSON text for the reader ptsim-bench merge
 * uses (bench/json_read.c): parsed, and when it parses, walked as merge
 * walks an audit output (its members and their kinds), then freed.
 */
static int fuzz_json(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[128];
	struct json j;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;	/* the reader takes a NUL-terminated text (read_file's) */
	if (!json_parse(text, &j, err, sizeof(err))) {
		static const char *const keys[] = { "schema_version", "command", "scenarios", "seed",
						    "shard", "groups" };
		const struct json *g = json_get(&j, "groups");

		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			(void)json_get(&j, keys[k]);
		for (size_t i = 0; g && g->kind == JSON_ARRAY && i < g->n; i++)
			(void)json_get(json_get(&g->items[i], "found_on"), "cpu");
		json_free(&j);
	}
	free(text);
	return 0;
}

static int fuzz_api(const uint8_t *data, size_t size);

int fuzz_one(const uint8_t *data, size_t size)
{
	if (size && data[0] == 0xff)
		return fuzz_scenario(data + 1, size - 1);
	if (size && data[0] == 0xfe)
		return fuzz_raw(data + 1, size - 1);
	if (size && data[0] == 0xfd)
		return fuzz_json(data + 1, size - 1);
	return fuzz_api(data, size);
}

static int fuzz_api(const uint8_t *data, size_t size)
{
	static const enum ptsim_granule grs[] = { PTSIM_GRANULE_4K, PTSIM_GRANULE_16K, PTSIM_GRANULE_64K };
	static const unsigned int vas[] = { 48, 39, 47, 42, 52, 36 };
	struct rd r = { data, size };
	struct ptsim_machine_config cfg;
	struct ptsim_machine *m;
	struct ptsim_mm *user, *kmm = NULL, *kids[4] = { NULL };
	unsigned int files = 0, fds = 0, nr_kids = 0;
	bool finalized = false;
	uint8_t hdr = u8(&r);
	uint64_t page;

	invariant_breaks = 0;
	ptsim_machine_config_init(&cfg);
	cfg.granule = grs[hdr % 3];
	cfg.va_bits = vas[(hdr >> 2) % 6];
	cfg.cpu = (enum ptsim_cpu)(u8(&r) % (PTSIM_CPU__COUNT + 1));
	cfg.nr_cpus = 1 + (hdr >> 5) % 2;
	cfg.kpti = hdr & 0x80;
	cfg.phys_base = GIB;
	cfg.phys_size = 4 * GIB;
	cfg.preset = (hdr & 0x10) ? "patched" : "baseline";
	if (ptsim_machine_create(&cfg, &m))
		return 0;
	page = UINT64_C(1) << cfg.granule;
	if (ptsim_mm_create(m, &user)) {
		ptsim_machine_destroy(m);
		return 0;
	}
	ptsim_set_diag_handler(m, on_diag, user);
	for (int step = 0; step < 48 && r.n; step++) {
		uint8_t op = u8(&r), who = u8(&r);
		uint64_t a = addr(&r, page), l = len(&r, page), b;
		unsigned int x, y;
		/* now and then a user-mm call gets the kernel mm (it must be refused) or a child */
		struct ptsim_mm *mm = (op / OPS) % 4 == 3 && kmm ? kmm :
				      who % 4 && nr_kids ? kids[who % nr_kids] : user;

		if (getenv("PTSIM_FUZZ_TRACE"))
			fprintf(stderr, "fuzz: step %d op %d a 0x%llx l 0x%llx\n", step, op % OPS,
				(unsigned long long)a, (unsigned long long)l);
		switch (op % OPS) {
		case 0:
			x = u8(&r) % 9;
			y = u8(&r) % 9;
			ptsim_mmap(mm, a, l, x, y, NULL);
			break;
		case 1:
			x = u8(&r) % 16;
			y = u8(&r) & 1;
			ptsim_populate(mm, a, l, x, y);
			break;
		case 2:
			ptsim_split_huge_pmd(mm, a, l);
			break;
		case 3:
			ptsim_mprotect(mm, a, l, u8(&r) % 9);
			break;
		case 4:
			ptsim_change_prot_numa(mm, a, l);
			break;
		case 5:
			ptsim_uffd_register(mm, a, l);
			break;
		case 6:
			b = addr(&r, page);
			ptsim_uffd_move(mm, a, b, l, u8(&r) % 5);
			break;
		case 7:
			x = u8(&r) % 3;
			y = u8(&r) % 4;
			ptsim_touch(mm, x, a, l, (enum ptsim_access_kind)y, NULL);
			break;
		case 8:
			x = u8(&r) % 3;
			y = u8(&r) % 4;
			ptsim_access(mm, x, a, (enum ptsim_access_kind)y, NULL);
			break;
		case 9:
			x = u8(&r) % (PTSIM_FEAT__COUNT + 1);
			y = u8(&r) & 1;
			ptsim_feature_set(m, (enum ptsim_feature)x, y);
			break;
		case 10:
			if (!ptsim_file_create(m, l, u8(&r) % 13, &files) &&
			    !ptsim_file_open(m, files, &fds)) {
				x = u8(&r) % 8;
				y = u8(&r);
				ptsim_mmap_file(mm, a & ~(page - 1), l, x, fds, y, NULL);
			}
			break;
		case 11:
			ptsim_exec_call(mm, u8(&r) % 3, a);
			break;
		case 12:
			ptsim_fault(mm, a, (enum ptsim_access_kind)(u8(&r) % 4));
			break;
		case 13:
			ptsim_swapout(mm, a, l);
			break;
		case 14:
			ptsim_folio_set_pinned(mm, a, u8(&r) & 1);
			b = addr(&r, page);
			ptsim_folio_set_exclusive(mm, b, u8(&r) & 1);
			b = addr(&r, page);
			ptsim_folio_contend_lock(mm, b, u8(&r) % 3);
			break;
		case 15:
			kernel_ops(&r, m, &kmm, page, &finalized);
			break;
		case 16: {
			struct ptsim_mm *copy;

			if (!ptsim_mm_clone(user, &copy)) {
				ptsim_set_diag_handler(ptsim_mm_machine(copy), on_diag, copy);
				check(ptsim_mm_machine(copy));
				ptsim_mm_destroy(copy);
			}
			break;
		}
		case 17:
			ptsim_fail_nth_alloc(m, u8(&r) % 8);
			break;
		case 18:
			/* every advice up to MADV_POPULATE_WRITE, and now and then an unknown one */
			ptsim_madvise(mm, a, l, (int)(u8(&r) % 25));
			break;
		case 20:
			ptsim_munmap(mm, a, l);
			break;
		case 21:
			if (nr_kids < 4 && !ptsim_fork(mm, &kids[nr_kids]))
				nr_kids++;
			break;
		case 22:
			b = len(&r, page);
			x = u8(&r) % 9;
			ptsim_mremap(mm, a, l, b, x, addr(&r, page), NULL);
			break;
		case 23:
			if (u8(&r) & 1)
				ptsim_mlock(mm, a, l);
			else
				ptsim_munlock(mm, a, l);
			break;
		case 24:
			ptsim_set_thp_orders(m, u64(&r) & 0x3ff);
			ptsim_mm_set_threads(mm, u8(&r) % 3);
			break;
		case 25:
			/* a child exits and goes; the parent exits and stays (empty) */
			ptsim_mm_exit(mm);
			if (mm != user && mm != kmm) {
				for (unsigned int k = 0; k < nr_kids; k++)
					if (kids[k] == mm)
						kids[k] = kids[--nr_kids];
				ptsim_mm_destroy(mm);
			}
			break;
		case 26:
			gup_ops(&r, m, mm, a);
			break;
		case 27:
			switch (u8(&r) % 4) {
			case 0:
				ptsim_mlock2(mm, a, l, u8(&r) % 4);
				break;
			case 1:
				ptsim_mlockall(mm, u8(&r) % 16);
				break;
			case 2:
				ptsim_munlockall(mm);
				break;
			default:
				ptsim_mm_set_kernel_errors(mm, u8(&r) & 1);
				break;
			}
			break;
		case 28:
			ptsim_split_folio(mm, a, u8(&r) % 12);
			break;
		case 29: {
			/* the bytes read in order, so that a seed means the same to every compiler */
			bool copy = u8(&r) & 1;
			uint64_t src = copy ? addr(&r, page) : 0;
			unsigned int mode = u8(&r) % 4;

			if (copy)
				ptsim_uffd_copy(mm, a, src, l, mode);
			else
				ptsim_uffd_zeropage(mm, a, l, mode);
			break;
		}
		case 30: {
			struct ptsim_page_info pi;
			struct ptsim_folio_info fi;
			unsigned int left = u8(&r) % 4;

			ptsim_pagemap(mm, a, u8(&r) & 1 ? &pi : NULL);
			if (ptsim_pagemap_range(mm, a, l, u8(&r) & 1 ? page_stop : NULL, &left) == 7 && left)
				abort();	/* a callback's stop value from another page */
			left = u8(&r) % 4;
			ptsim_vma_foreach(mm, u8(&r) & 1 ? vma_stop : NULL, &left);
			a = addr(&r, page);
			ptsim_folio_info(mm, a, u8(&r) & 1 ? &fi : NULL);
			break;
		}
		case 31:
			switch (u8(&r) % 4) {
			case 0:
				ptsim_mm_set_kernel_errors(mm, u8(&r) & 1);
				break;
			case 1: {
				/* uffd-wp registration: any mode, the WP features and a stray bit */
				unsigned int mode = u8(&r) % 8, feat = (unsigned int)u8(&r) << 11;

				ptsim_uffd_register_mode(mm, a, l, mode, feat);
				break;
			}
			case 2:
				ptsim_uffd_writeprotect(mm, a, l, u8(&r) % 5);
				break;
			default: {
				struct ptsim_page_region vec[8];
				struct ptsim_pm_scan_arg sa = { .start = a, .end = a + l };

				sa.vec = u8(&r) & 1 ? vec : NULL;
				sa.vec_len = u8(&r) % 10;
				sa.flags = u8(&r) % 5;
				sa.max_pages = u8(&r) % 8;
				sa.category_mask = u8(&r);
				sa.category_anyof_mask = u8(&r);
				sa.category_inverted = u8(&r);
				sa.return_mask = u8(&r) | (u8(&r) & 1 ? 0x100 : 0);
				if (sa.vec && sa.vec_len > 8)
					sa.vec_len = 8;
				ptsim_pagemap_scan(mm, &sa);
				break;
			}
			}
			break;
		default: {
			struct ptsim_elf_phdr ph = { l & ~(page - 1), a & ((UINT64_C(1) << 36) - 1) & ~(page - 1),
						     0, 0, 0, 5 };
			uint64_t bias;

			/* an initializer list's expressions are unsequenced too */
			ph.p_filesz = len(&r, page);
			ph.p_memsz = len(&r, page);
			ph.p_align = page << (u8(&r) % 8);

			ptsim_mm_set_aslr(mm, u64(&r));
			if (ph.p_memsz < ph.p_filesz)
				ph.p_memsz = ph.p_filesz;
			if (!ptsim_file_create(m, 64 << 20, 5, &files) && !ptsim_file_open(m, files, &fds))
				ptsim_elf_load(mm, fds, &ph, 1, &bias);
			break;
		}
		}
		check(m);
	}
	ptsim_machine_destroy(m);
	return 0;
}
