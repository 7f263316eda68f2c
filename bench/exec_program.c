// SPDX-License-Identifier: MIT
/*
 * The exec-folio benchmark of "[PATCH v7 0/2] mm: improve large folio
 * readahead for exec memory" (doc/workloads.md §exec) on the model:
 * Neoverse V2 (Grace), 64K pages, a 512 MiB executable on a filesystem with
 * large folios (ext4, max order 11), mapped as a PIE text segment with ASLR.
 * "Cold": a stub call at every page offset in order, from an empty page cache
 * (faults, readahead, I/O). "Random": after an unmeasured sequential sweep,
 * RANDOM_CALLS calls at random page offsets (iTLB misses and walks). The
 * published run counts are not stated; 100,000 calls is about 12 per page,
 * past the point where the iTLB reaches a steady state. The series was
 * measured on a 2026 kernel, so both runs are v6.18 (a large file folio is
 * mapped whole by finish_fault and fault-around); before: none of the four
 * patches; after: all four.
 */
#include "machine_state.h"
#include "rows.h"
#include "prng.h"

#include <string.h>

#define TEXT (UINT64_C(512) << 20)
#define RANDOM_CALLS 100000

struct exec_run {
	struct ptsim_stats cold, random;
};

static int run_exec_program(enum ptsim_granule granule, bool patched, struct exec_run *out)
{
	struct ptsim_machine_config cfg;
	struct ptsim_machine *m;
	struct ptsim_mm *mm;
	struct ptsim_stats s0, s1, s2;
	const uint64_t page = UINT64_C(1) << granule;
	struct ptsim_elf_phdr ph = { 0, 0, TEXT, TEXT, page, 5 };	/* R+X, p_align = PAGE_SIZE */
	unsigned int file, fd, max_order = granule == PTSIM_GRANULE_4K ? 9 : 11;
	uint64_t bias, seed = 0x0123456789abcdefu;
	int err;

	ptsim_machine_config_init(&cfg);
	cfg.cpu = PTSIM_CPU_NEOVERSE_V2;
	cfg.granule = granule;
	cfg.phys_size = UINT64_C(2) << 30;
	err = ptsim_machine_create(&cfg, &m);
	if (err)
		return err;
	ptsim_feature_preset(m, "v6.18");
	ptsim_feature_set(m, PTSIM_FEAT_EXEC_CONTPTE_ORDER, patched);
	ptsim_feature_set(m, PTSIM_FEAT_EXEC_MMAP_MISS_BYPASS, patched);
	ptsim_feature_set(m, PTSIM_FEAT_ELF_CONTPTE_ALIGN, patched);
	ptsim_feature_set(m, PTSIM_FEAT_UNMAPPED_AREA_CONTPTE, patched);
	err = machine_state_apply(m, "exec.grace.", 1);
	if (!err)
		err = ptsim_mm_create(m, &mm);
	if (!err)
		err = ptsim_file_create(m, TEXT, max_order, &file);
	if (!err)
		err = ptsim_file_open(m, file, &fd);
	if (!err)
		err = ptsim_mm_set_aslr(mm, 0x5eed);
	if (!err)
		err = ptsim_elf_load(mm, fd, &ph, 1, &bias);
	ptsim_total_stats(m, &s0);
	for (uint64_t off = 0; !err && off < TEXT; off += page)
		err = ptsim_exec_call(mm, 0, bias + off);
	ptsim_total_stats(m, &s1);
	for (uint64_t off = 0; !err && off < TEXT; off += page)	/* unmeasured sweep */
		err = ptsim_exec_call(mm, 0, bias + off);
	ptsim_total_stats(m, &s2);
	for (unsigned int i = 0; !err && i < RANDOM_CALLS; i++) {
		err = ptsim_exec_call(mm, 0, bias + (prng_next(&seed) % (TEXT / page)) * page);
	}
	if (!err) {
		struct ptsim_stats s3;

		ptsim_total_stats(m, &s3);
		memset(out, 0, sizeof(*out));
		for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++) {
			out->cold.ev[e] = s1.ev[e] - s0.ev[e];
			out->random.ev[e] = s3.ev[e] - s2.ev[e];
		}
	}
	ptsim_machine_destroy(m);
	return err;
}

int exec_program(enum ptsim_granule granule, bool patched, struct ptsim_stats *cold,
		 struct ptsim_stats *random)
{
	static struct exec_run cache[3][2];
	static bool done[3][2];
	int g = granule == PTSIM_GRANULE_4K ? 0 : granule == PTSIM_GRANULE_16K ? 1 : 2;

	if (!done[g][patched]) {
		int err;

		progress("simulating the exec benchmark, %uK pages, %s", 1u << (granule - 10),
			 patched ? "all four patches" : "baseline");
		err = run_exec_program(granule, patched, &cache[g][patched]);
		if (err)
			return err;
		done[g][patched] = true;
	}
	*cold = cache[g][patched].cold;
	*random = cache[g][patched].random;
	return 0;
}

static double exec_ns(const struct ptsim_stats *s, enum ptsim_granule granule)
{
	struct ptsim_prediction p;

	ptsim_predict(PTSIM_CPU_NEOVERSE_V2, granule, s, &p);
	return p.total_ns;
}

int exec_rows(const struct published *row, struct row_result *out)
{
	struct ptsim_stats cb, rb, ca, ra;
	bool cold = !strcmp(row->id, "exec.grace.cold_speedup");
	int err = exec_program(PTSIM_GRANULE_64K, false, &cb, &rb);

	if (!err)
		err = exec_program(PTSIM_GRANULE_64K, true, &ca, &ra);
	if (err)
		return err;
	out->before = cold ? cb : rb;
	out->after = cold ? ca : ra;
	out->simulated = exec_ns(&out->before, PTSIM_GRANULE_64K) / exec_ns(&out->after, PTSIM_GRANULE_64K);
	out->have_detail = true;
	out->granule = PTSIM_GRANULE_64K;
	out->before_label = "before";
	out->after_label = "after (4 patches)";
	return 0;
}

/* What the model expects on 16K pages, where nothing has been published. */
void exec_print_16k(void)
{
	struct ptsim_stats cb, rb, ca, ra;

	if (exec_program(PTSIM_GRANULE_16K, false, &cb, &rb) ||
	    exec_program(PTSIM_GRANULE_16K, true, &ca, &ra))
		return;
	wrap_print(stdout, 2,
		   "\n16K pages, same workload (no published numbers): cold %.3f ms -> %.3f ms (x%.3f), "
		   "random %.3f ms -> %.3f ms (x%.3f); I/Os %llu -> %llu, random-phase walks %llu -> %llu",
	       exec_ns(&cb, PTSIM_GRANULE_16K) / 1e6, exec_ns(&ca, PTSIM_GRANULE_16K) / 1e6,
	       exec_ns(&cb, PTSIM_GRANULE_16K) / exec_ns(&ca, PTSIM_GRANULE_16K), exec_ns(&rb, PTSIM_GRANULE_16K) / 1e6,
	       exec_ns(&ra, PTSIM_GRANULE_16K) / 1e6, exec_ns(&rb, PTSIM_GRANULE_16K) / exec_ns(&ra, PTSIM_GRANULE_16K),
	       (unsigned long long)cb.ev[PTSIM_EV_IO_REQUEST], (unsigned long long)ca.ev[PTSIM_EV_IO_REQUEST],
	       (unsigned long long)rb.ev[PTSIM_EV_TLB_WALK],
	       (unsigned long long)ra.ev[PTSIM_EV_TLB_WALK]);
}
