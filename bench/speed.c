// SPDX-License-Identifier: MIT
/*
 * ptsim-bench speed: how fast the simulator runs the published mprotect
 * workload (1 GiB; 40 x mprotect RO, RW, write every page; 4K), and, on a
 * Linux host, how long the host kernel takes for the same 80 real mprotect
 * calls, measured side by side in one run.
 */
#include "rows.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>

#define GIB (UINT64_C(1) << 30)
#define ITERATIONS 40

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct sim_speed {
	double mprotect_s;	/* wall time of the 80 simulated mprotect calls */
	double mprotect_cpu_s;	/* and their CPU time */
	uint64_t pte_ops;	/* descriptor reads, writes and atomics they performed */
	double touch_s;		/* wall time of the simulated write passes */
	uint64_t accesses;	/* memory accesses through the TLB model */
};

static uint64_t pte_ops(const struct ptsim_stats *s)
{
	return s->ev[PTSIM_EV_PTE_READ] + s->ev[PTSIM_EV_PTE_WRITE] + s->ev[PTSIM_EV_PTE_XCHG] +
	       s->ev[PTSIM_EV_PTE_CAS];
}

static int simulate(enum mprotect_state state, bool batching, struct sim_speed *out)
{
	const unsigned int rw = PTSIM_PROT_READ | PTSIM_PROT_WRITE;
	struct ptsim_machine *m;
	struct ptsim_mm *mm;
	struct ptsim_stats s;
	int err;

	memset(out, 0, sizeof(*out));
	err = mprotect_state_create(state, batching, &m, &mm);
	if (err)
		return err;
	for (int i = 0; !err && i < ITERATIONS; i++) {
		double t0 = now(), c0 = cpu_now();

		err = ptsim_mprotect(mm, GIB, GIB, PTSIM_PROT_READ);
		ptsim_last_stats(m, &s);
		out->pte_ops += pte_ops(&s);
		if (!err)
			err = ptsim_mprotect(mm, GIB, GIB, rw);
		ptsim_last_stats(m, &s);
		out->pte_ops += pte_ops(&s);
		double t1 = now(), c1 = cpu_now();

		if (!err)
			err = ptsim_touch(mm, 0, GIB, GIB, PTSIM_ACCESS_WRITE, NULL);
		ptsim_last_stats(m, &s);
		out->accesses += s.ev[PTSIM_EV_MEM_ACCESS];
		out->mprotect_s += t1 - t0;
		out->mprotect_cpu_s += c1 - c0;
		out->touch_s += now() - t1;
	}
	ptsim_machine_destroy(m);
	return err;
}

/*
 * Host time of the 80 real mprotect calls: wall, and CPU (the calls' system
 * time); and how much of the buffer the host backed with huge pages, which
 * T1 asks for (MADV_HUGEPAGE) and the host may not grant.
 */
struct native_time {
	double wall_s, cpu_s;
	long huge_kib;	/* -1: unknown */
};

/* The process's anonymous memory in huge pages (AnonHugePages of /proc/self/smaps_rollup). */
static long anon_huge_kib(void)
{
	FILE *f = fopen("/proc/self/smaps_rollup", "r");
	char line[256];
	long kib = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "AnonHugePages: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

/* The same 80 mprotect calls on real memory; false when the host cannot do them. */
static bool native(enum mprotect_state state, struct native_time *out)
{
	char *p = mmap((void *)GIB, GIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long huge_before = anon_huge_kib();

	out->wall_s = out->cpu_s = 0;
	if (p == MAP_FAILED)
		return false;
	madvise(p, GIB, state == STATE_T1 ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	memset(p, 1, GIB);
	/* the growth is the buffer's: the rest of the process does not fault meanwhile */
	long huge_after = anon_huge_kib();

	out->huge_kib = huge_before < 0 || huge_after < 0 ? -1 : huge_after - huge_before;
	if (state == STATE_T1) {
		/* the published program's trick: split each PMD by splitting the VMA and back */
		for (uint64_t off = 0; off < GIB; off += 2 << 20) {
			madvise(p + off, 4096, MADV_DONTFORK);
			madvise(p + off, 4096, MADV_DOFORK);
		}
	}
	for (int i = 0; i < ITERATIONS; i++) {
		double t0 = now(), c0 = cpu_now();

		if (mprotect(p, GIB, PROT_READ) || mprotect(p, GIB, PROT_READ | PROT_WRITE)) {
			munmap(p, GIB);
			return false;
		}
		out->wall_s += now() - t0;
		out->cpu_s += cpu_now() - c0;
		memset(p, 2, GIB);
	}
	munmap(p, GIB);
	return true;
}

/*
 * Paint a 256 GiB linear map with blocks on an AmpereOne whose secondary lacks
 * BBML2, then repaint it to PTEs (linear_map_split_to_ptes): wall time of each.
 */
static int linear_map_repaint(double *paint_s, double *repaint_s)
{
	struct ptsim_machine_config cfg;
	struct ptsim_machine *m;
	struct ptsim_mm *k;
	struct ptsim_mem_range r = { GIB, 256 * GIB };
	struct ptsim_kernel_config kc = { .ranges = &r, .nr_ranges = 1,
					  .secondary_lacks_bbml2 = true };
	double t0;
	int err;

	ptsim_machine_config_init(&cfg);
	cfg.cpu = PTSIM_CPU_AMPEREONE;
	cfg.nr_cpus = 4;
	cfg.phys_base = GIB;
	cfg.phys_size = 256 * GIB;
	err = ptsim_machine_create(&cfg, &m);
	if (err)
		return err;
	ptsim_feature_preset(m, "patched");
	t0 = now();
	err = ptsim_kernel_boot(m, &kc, &k);
	*paint_s = now() - t0;
	t0 = now();
	if (!err)
		err = ptsim_kernel_finalize_caps(k);
	*repaint_s = now() - t0;
	ptsim_machine_destroy(m);
	return err;
}

/* Microseconds to create a machine with one (empty) mm and destroy it again. */
static double machine_create_destroy_us(enum ptsim_granule granule)
{
	const int n = 2000;
	double t0 = now();

	for (int i = 0; i < n; i++) {
		struct ptsim_machine_config cfg;
		struct ptsim_machine *m;
		struct ptsim_mm *mm;

		ptsim_machine_config_init(&cfg);
		cfg.granule = granule;
		if (ptsim_machine_create(&cfg, &m))
			return -1;
		if (ptsim_mm_create(m, &mm)) {
			ptsim_machine_destroy(m);
			return -1;
		}
		ptsim_machine_destroy(m);
	}
	return 1e6 * (now() - t0) / n;
}

/* Seconds for 80,000 anonymous mmaps that let the model choose the address (first fit). */
static double many_mmaps_s(void)
{
	struct ptsim_machine_config cfg;
	struct ptsim_machine *m;
	struct ptsim_mm *mm;
	double t0;

	ptsim_machine_config_init(&cfg);
	if (ptsim_machine_create(&cfg, &m))
		return -1;
	if (ptsim_mm_create(m, &mm)) {
		ptsim_machine_destroy(m);
		return -1;
	}
	t0 = now();
	for (int i = 0; i < 80000; i++)
		if (ptsim_mmap(mm, 0, 4096 * (1 + i % 3), PTSIM_PROT_READ | PTSIM_PROT_WRITE,
			       PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL))
			break;
	t0 = now() - t0;
	ptsim_machine_destroy(m);
	return t0;
}

/* The access paths of the TLB model, and the model's memory per mapped page. */
struct access_speed {
	double hit_ns, call_ns, miss_ns;	/* CPU ns per access */
	double bytes_per_page;
	double table_bytes_per_page;	/* of which the page-table pages at their real size */
};

static int access_speed(struct access_speed *out)
{
	const uint64_t va = GIB, len = 256 << 20, pages = len / 4096;
	struct ptsim_machine_config cfg;
	struct ptsim_machine *m;
	struct ptsim_mm *mm;
	uint64_t host0, host1;
	enum ptsim_fault_kind f;
	double t;
	int err;

	ptsim_machine_config_init(&cfg);
	err = ptsim_machine_create(&cfg, &m);
	if (err)
		return err;
	ptsim_machine_host_bytes(m, &host0);
	err = ptsim_mm_create(m, &mm);
	if (!err)
		err = ptsim_mmap(mm, va, len, PTSIM_PROT_READ | PTSIM_PROT_WRITE,
				 PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL);
	if (!err)
		err = ptsim_populate(mm, va, len, 0, true);
	if (err) {
		ptsim_machine_destroy(m);
		return err;
	}
	ptsim_machine_host_bytes(m, &host1);
	out->bytes_per_page = (double)(host1 - host0) / (double)pages;
	ptsim_mm_pgtable_bytes(mm, &host1);
	out->table_bytes_per_page = (double)host1 / (double)pages;
	/* hits: 16 pages the L1 dTLB holds, touched again and again */
	ptsim_touch(mm, 0, va, 16 * 4096, PTSIM_ACCESS_READ, NULL);
	t = cpu_now();
	for (int i = 0; i < 100000; i++)
		ptsim_touch(mm, 0, va, 16 * 4096, PTSIM_ACCESS_READ, NULL);
	out->hit_ns = 1e9 * (cpu_now() - t) / (100000.0 * 16);
	t = cpu_now();
	for (int i = 0; i < 1000000; i++)
		ptsim_access(mm, 0, va, PTSIM_ACCESS_READ, &f);
	out->call_ns = 1e9 * (cpu_now() - t) / 1e6;
	/* misses: one access per page over 256 MiB, far beyond every TLB */
	t = cpu_now();
	ptsim_touch(mm, 0, va, len, PTSIM_ACCESS_READ, NULL);
	out->miss_ns = 1e9 * (cpu_now() - t) / (double)pages;
	ptsim_machine_destroy(m);
	return 0;
}

/* CPU seconds to simulate every reproduce row (what `ptsim-bench reproduce` does). */
static double reproduce_cpu_s(void)
{
	double t = cpu_now();

	for (unsigned int i = 0; i < nr_published_rows; i++) {
		struct row_result r;
		row_sim_fn sim = row_simulation(published_rows[i].id);

		if (sim)
			sim(&published_rows[i], &r);
	}
	return cpu_now() - t;
}

static long peak_rss_kib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

int cmd_speed(int argc, char **argv)
{
	static const char *const names[NR_STATES] = { "T1", "T2", "T3" };
	bool json;
	int parsed = parse_json_option("speed", argc, argv, &json);
	bool first = true;
	double ns_cpu[NR_STATES][2], sim_nat[NR_STATES][2];
	long native_t1_huge_kib = -1;
	struct access_speed acc;

	if (parsed)
		return parsed < 0 ? 0 : parsed;
	/* first, so that its peak RSS is its own */
	double paint, repaint;

	progress("painting and repainting a 256 GiB linear map");
	if (linear_map_repaint(&paint, &repaint)) {
		fprintf(stderr, "speed: linear map repaint failed\n");
		return 1;
	}
	long rss_repaint = peak_rss_kib();
	static const enum ptsim_granule granules[3] = { PTSIM_GRANULE_4K, PTSIM_GRANULE_16K,
							PTSIM_GRANULE_64K };
	double create_us[3];

	progress("creating and destroying machines");
	for (int g = 0; g < 3; g++)
		create_us[g] = machine_create_destroy_us(granules[g]);
	progress("80,000 mmaps");
	double mmaps_s = many_mmaps_s();

	if (json) {
		json_begin("speed", "mprotect");
		printf("[\n");
	}
	else
		printf("%-4s %-6s %10s %12s %10s %12s %10s %10s %8s\n", "", "", "sim s", "PTE ops",
		       "ns/op", "ops/s", "ns/access", "native s", "sim/nat");
	for (int st = 0; st < NR_STATES; st++) {
		struct native_time nt = { 0, 0, -1 };
		bool have_native = st != STATE_T2 && (progress("native mprotect, %s", names[st]),
						      native((enum mprotect_state)st, &nt));

		if (st == STATE_T1)
			native_t1_huge_kib = have_native ? nt.huge_kib : -1;
		/* the table's rows compare wall times; the goal compares CPU times */
		double nat = have_native && nt.wall_s > 0 ? nt.wall_s : -1;

		for (int b = 0; b < 2; b++) {
			struct sim_speed s;
			int err;

			progress("simulating 80 mprotect calls, %s, %s", names[st], b ? "after" : "before");
			err = simulate((enum mprotect_state)st, b, &s);
			if (err) {
				fprintf(stderr, "speed: %s\n", ptsim_strerror(err));
				return 1;
			}
			double ns_op = 1e9 * s.mprotect_s / (double)s.pte_ops;

			ns_cpu[st][b] = 1e9 * s.mprotect_cpu_s / (double)s.pte_ops;
			sim_nat[st][b] = have_native && nt.cpu_s > 0 ? s.mprotect_cpu_s / nt.cpu_s : -1;
			double ns_acc = 1e9 * s.touch_s / (double)s.accesses;

			if (json) {
				printf("%s  {\"state\": \"%s\", \"variant\": \"%s\", \"sim_seconds\": %.4f, "
				       "\"pte_ops\": %llu, \"ns_per_pte_op\": %.3f, \"pte_ops_per_second\": %.4g, "
				       "\"ns_per_access\": %.3f, ", first ? "" : ",\n", names[st],
				       b ? "after" : "before", s.mprotect_s, (unsigned long long)s.pte_ops,
				       ns_op, (double)s.pte_ops / s.mprotect_s, ns_acc);
				if (nat > 0)
					printf("\"native_seconds\": %.4f, \"native_cpu_seconds\": %.4f, "
					       "\"sim_over_native\": %.4f}", nat, nt.cpu_s,
					       s.mprotect_s / nat);
				else
					printf("\"native_seconds\": null, \"native_cpu_seconds\": null, "
					       "\"sim_over_native\": null}");
			} else {
				printf("%-4s %-6s %10.3f %12llu %10.2f %12.4g %10.2f ", names[st],
				       b ? "after" : "before", s.mprotect_s, (unsigned long long)s.pte_ops,
				       ns_op, (double)s.pte_ops / s.mprotect_s, ns_acc);
				if (nat > 0)
					printf("%10.3f %8.3f\n", nat, s.mprotect_s / nat);
				else
					printf("%10s %8s\n", "-", "-");
			}
			first = false;
		}
	}
	progress("access paths and memory per page");
	if (access_speed(&acc)) {
		fprintf(stderr, "speed: access measurement failed\n");
		return 1;
	}
	progress("every reproduce row");
	double repro_cpu = reproduce_cpu_s();

	if (json)
		printf("\n], \"targets\": {\"sim_over_native_cpu\": {\"t1_before\": %.3f, \"t1_after\": %.3f, "
		       "\"target\": 0.5}, \"ns_per_pte_op_cpu_batched\": [%.2f, %.2f, %.2f], "
		       "\"batched_target\": 3, \"ns_per_pte_op_cpu_unbatched\": [%.2f, %.2f], "
		       "\"unbatched_target\": 10, \"ns_per_hit_access\": %.2f, \"hit_target\": 5, "
		       "\"ns_per_access_call\": %.2f, \"call_target\": 15, \"ns_per_miss_access\": %.2f, "
		       "\"miss_target\": 20, \"bytes_per_4k_page\": %.1f, \"bytes_target\": 24, "
		       "\"page_table_bytes_per_4k_page\": %.2f, "
		       "\"reproduce_cpu_seconds\": %.2f, \"reproduce_target\": 5}",
		       sim_nat[0][0], sim_nat[0][1], ns_cpu[0][1], ns_cpu[1][1], ns_cpu[2][1],
		       ns_cpu[0][0], ns_cpu[1][0], acc.hit_ns, acc.call_ns, acc.miss_ns,
		       acc.bytes_per_page, acc.table_bytes_per_page, repro_cpu);
	if (json)
		printf(", \"linear_map_256g\": {\"paint_seconds\": %.3f, \"repaint_seconds\": %.3f, "
		       "\"peak_rss_kib\": %ld}, \"machine_create_destroy_us\": {\"4k\": %.2f, "
		       "\"16k\": %.2f, \"64k\": %.2f}, \"mmaps_80000_seconds\": %.3f, "
		       "\"native_t1_huge_kib\": %ld, \"peak_rss_kib\": %ld}\n", paint, repaint,
		       rss_repaint, create_us[0], create_us[1], create_us[2], mmaps_s,
		       native_t1_huge_kib, peak_rss_kib());
	else
		printf("\n256 GiB linear map (4K, AmpereOne): paint %.3f s, repaint to PTEs %.3f s, peak RSS "
		       "%ld KiB\npeak RSS of the whole run (includes the native 1 GiB buffer): %ld KiB\n",
		       paint, repaint, rss_repaint, peak_rss_kib());
	if (!json)
		printf("native T1 buffer in host huge pages (MADV_HUGEPAGE asks for all 1048576 KiB): "
		       "%ld KiB\n", native_t1_huge_kib);
	if (!json)
		printf("machine + empty mm, create and destroy: %.2f us (4K), %.2f us (16K), "
		       "%.2f us (64K)\n80,000 first-fit anonymous mmaps: %.3f s\n", create_us[0],
		       create_us[1], create_us[2], mmaps_s);
	if (json)
		return 0;
	printf("\n%-52s %16s %16s\n", "goal (CPU time)", "now", "target");
	printf("%-52s %7.2f / %6.2f %16s\n", "simulated / native time, T1 before / after",
	       sim_nat[0][0], sim_nat[0][1], "<= 0.5");
	printf("%-52s %5.1f/%4.1f/%4.1f %16s\n", "ns per PTE op, batched (T1 / T2 / T3 after)",
	       ns_cpu[0][1], ns_cpu[1][1], ns_cpu[2][1], "<= 3");
	printf("%-52s %7.1f / %6.1f %16s\n", "ns per PTE op, unbatched (T1 / T2 before)",
	       ns_cpu[0][0], ns_cpu[1][0], "<= 10");
	printf("%-52s %16.1f %16s\n", "ns per access, TLB hits (ptsim_touch, L1)", acc.hit_ns, "<= 5");
	printf("%-52s %16.1f %16s\n", "one ptsim_access call, ns", acc.call_ns, "<= 15");
	printf("%-52s %16.1f %16s\n", "ns per access on the TLB miss path (walk + fill)", acc.miss_ns,
	       "<= 20");
	printf("%-52s %6.2f s %5ld MiB %16s\n", "256 GiB linear map repaint (wall), peak RSS", repaint,
	       rss_repaint / 1024, "< 1 s, < 600 MiB");
	printf("%-52s %16.1f %16s\n", "model bytes per mapped 4K page (order-0 folios)",
	       acc.bytes_per_page, "<= 24");
	printf("%-52s %16.2f %16s\n", "  of which page-table pages (their real size)",
	       acc.table_bytes_per_page, "");
	printf("%-52s %16.2f %16s\n", "every reproduce row, CPU s", repro_cpu, "<= 5");
	return 0;
}
