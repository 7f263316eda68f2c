// SPDX-License-Identifier: MIT
/*
 * The AmpereOne linear-map rows (doc/workloads.md §linear-map): boot the
 * same machine with the PTE-mapped (v6.17, rodata=full) and the block-mapped
 * (v6.18, BBML2-noabort) linear map and compare.
 *
 * Memory layout (256 GB machine, 4K, 48-bit VA; assumed, UNVERIFIED): a low
 * DRAM window [2 GiB, 4 GiB - 16 MiB) whose top 16 MiB firmware keeps out of
 * memblock, and 254 GiB at 0x88_0000_0000; the kernel image [2 GiB + 4 MiB,
 * +32 MiB) as in the v6/v7 ptdump listings; the early KFENCE pool (2 MiB) at
 * the top of memory, where memblock's top-down allocation puts it.
 */
#include "machine_state.h"
#include "rows.h"
#include "prng.h"

#include <errno.h>
#include <string.h>

#define MIB (UINT64_C(1) << 20)
#define GIB (UINT64_C(1) << 30)
#define HIGH UINT64_C(0x8800000000)

static int boot(bool blocks, const struct ptsim_mem_range *r, unsigned int nr, uint64_t kfence,
		struct ptsim_machine **m, struct ptsim_mm **k)
{
	struct ptsim_machine_config cfg;
	struct ptsim_kernel_config kc = {
		.ranges = r, .nr_ranges = nr, .kernel_start = 2 * GIB + 4 * MIB,
		.kernel_end = 2 * GIB + 36 * MIB, .kfence_pool = kfence, .rodata = PTSIM_RODATA_ON,
	};
	int err;

	ptsim_machine_config_init(&cfg);
	cfg.cpu = PTSIM_CPU_AMPEREONE;
	cfg.nr_cpus = 4;	/* 192 in the machine; TLB state is per CPU, one is used */
	cfg.phys_base = 2 * GIB;
	cfg.phys_size = r[nr - 1].start + r[nr - 1].size - cfg.phys_base;
	err = ptsim_machine_create(&cfg, m);
	if (err)
		return err;
	ptsim_feature_set(*m, PTSIM_FEAT_LINEAR_MAP_BLOCKS, blocks);
	err = machine_state_apply(*m, "linear_map.ampereone.", 1);
	if (!err)
		err = ptsim_kernel_boot(*m, &kc, k);
	if (!err)
		err = ptsim_kernel_finalize_caps(*k);
	if (err)
		ptsim_machine_destroy(*m);
	return err;
}

/* MemTotal gain: boot (memblock) page tables the block map does not need. */
static int memtotal_gain_kib(double *out)
{
	static const struct ptsim_mem_range r[] = {
		{ 2 * GIB, 2 * GIB - 16 * MIB },
		{ HIGH, 254 * GIB },
	};
	uint64_t boot_b[2], late;	/* the layout of linear_map_boot_stats, too */

	for (int blocks = 0; blocks < 2; blocks++) {
		struct ptsim_machine *m;
		struct ptsim_mm *k;
		int err;

		progress("booting a 256 GB AmpereOne, %s linear map", blocks ? "block" : "PTE");
		err = boot(blocks, r, 2, HIGH + 254 * GIB - 2 * MIB, &m, &k);
		if (err)
			return err;
		ptsim_kernel_pgtable_bytes(k, &boot_b[blocks], &late);
		ptsim_machine_destroy(m);
	}
	*out = (double)(boot_b[0] - boot_b[1]) / 1024;
	return 0;
}

int linear_map_boot_stats(bool blocks, struct ptsim_stats *out)
{
	static const struct ptsim_mem_range r[] = {
		{ 2 * GIB, 2 * GIB - 16 * MIB },
		{ HIGH, 254 * GIB },
	};
	struct ptsim_machine *m;
	struct ptsim_mm *k;
	int err = boot(blocks, r, 2, HIGH + 254 * GIB - 2 * MIB, &m, &k);

	if (err)
		return err;
	ptsim_total_stats(m, out);
	ptsim_machine_destroy(m);
	return 0;
}

#define REQUESTS 200000
#define WARMUP 20000

/*
 * A synthetic memcached-like kernel side (documented assumption, not a
 * trace): per request the kernel touches one page of socket-buffer data,
 * randomly in a 4 GiB region of the linear map, and one socket/slab page in a
 * 512 MiB region, and copies the value from the item store (random pages of
 * a 2 GiB user mapping, 4K pages) and into the connection's buffer (random
 * pages of 1 GiB of user buffers). Kernel-mode TLB walks are counted after a
 * warm-up, on one CPU; machine: 32 GiB at 2 GiB.
 */
static int kernel_tlb_walks(bool blocks, uint64_t *walks)
{
	static const struct ptsim_mem_range r[] = { { 2 * GIB, 32 * GIB } };
	const uint64_t user = UINT64_C(1) << 40, items = 2 * GIB, bufs = 1 * GIB;
	struct ptsim_machine *m;
	struct ptsim_mm *k, *mm;
	uint64_t seed = 0x5eed, base, before = 0;
	int err = boot(blocks, r, 1, 0, &m, &k);

	if (err)
		return err;
	err = ptsim_mm_create(m, &mm);
	if (!err)
		err = ptsim_mmap(mm, user, items + bufs, PTSIM_PROT_READ | PTSIM_PROT_WRITE,
				 PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL);
	if (!err)
		err = ptsim_populate(mm, user, items + bufs, 0, true);
	if (!err)
		err = ptsim_kernel_lm_addr(k, 8 * GIB, &base);
	for (unsigned int i = 0; !err && i < REQUESTS; i++) {
		struct ptsim_stats s;

		if (i == WARMUP) {
			ptsim_total_stats(m, &s);
			before = s.ev[PTSIM_EV_TLB_WALK];
		}
		err = ptsim_access(k, 0, base + (prng_next(&seed) % (4 * GIB)), PTSIM_ACCESS_READ, NULL);
		if (!err)
			err = ptsim_access(k, 0, base + 4 * GIB + prng_next(&seed) % (512 * MIB),
					   PTSIM_ACCESS_WRITE, NULL);
		if (!err)
			err = ptsim_access(mm, 0, user + prng_next(&seed) % items, PTSIM_ACCESS_READ, NULL);
		if (!err)
			err = ptsim_access(mm, 0, user + items + prng_next(&seed) % bufs, PTSIM_ACCESS_WRITE,
					   NULL);
	}
	if (!err) {
		struct ptsim_stats s;

		ptsim_total_stats(m, &s);
		*walks = s.ev[PTSIM_EV_TLB_WALK] - before;
	}
	ptsim_machine_destroy(m);
	return err;
}

int linear_map_rows(const struct published *row, struct row_result *out)
{
	int err;

	out->have_detail = false;
	if (!strcmp(row->id, "linear_map.ampereone.memtotal_gain_kib"))
		return memtotal_gain_kib(&out->simulated);
	uint64_t pte = 0, blk = 0;

	progress("running the memcached-like kernel workload on both linear maps");
	err = kernel_tlb_walks(false, &pte);
	if (!err)
		err = kernel_tlb_walks(true, &blk);
	if (err)
		return err;
	out->simulated = pte ? 1.0 - (double)blk / (double)pte : 0;
	return 0;
}
