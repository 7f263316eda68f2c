// SPDX-License-Identifier: MIT
/*
 * The host memory a machine reports (ptsim_machine_host_bytes) is the memory
 * the process spends on it (issue 32): measured as resident set growth from
 * /proc/self/statm, and as the peak the host saw (getrusage ru_maxrss). Under
 * a sanitizer the allocator's shadow and quarantine are in the RSS too, so
 * the suite is skipped there (exit 77).
 */
#include "helpers.h"

#include <sys/resource.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define PTSIM_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PTSIM_TEST_SANITIZED 1
#endif
#endif

/* What the process holds apart from the model: the allocator's slack, the C library's buffers. */
#define SLACK (UINT64_C(2) << 20)

/*
 * The process's anonymous and shmem RSS (RssAnon + RssShmem of
 * /proc/self/status): what a machine's memory adds. File-backed RSS is left
 * out: the library's code pages that an operation runs for the first time
 * fault in (fault-around, 64K at a time) and would count as the machine's;
 * an -O0 build's larger text put a comparison over its 10 % that way.
 */
static uint64_t rss_bytes(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	unsigned long kib;
	uint64_t total = 0;
	int found = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "RssAnon: %lu kB", &kib) == 1 || sscanf(line, "RssShmem: %lu kB", &kib) == 1) {
			total += (uint64_t)kib << 10;
			found++;
		}
	}
	fclose(f);
	assert_int_equal(found, 2);
	return total;
}

static uint64_t peak_rss_bytes(void)
{
	struct rusage ru;

	assert_int_equal(getrusage(RUSAGE_SELF, &ru), 0);
	return (uint64_t)ru.ru_maxrss << 10;
}

static struct ptsim_machine *machine(uint64_t phys, uint64_t host_limit)
{
	struct ptsim_machine_config cfg;

	ptsim_machine_config_init(&cfg);
	cfg.phys_size = phys;
	cfg.host_memory_limit = host_limit;
	return create_machine(&cfg);
}

static struct ptsim_mm *anon_mm(struct ptsim_machine *m, uint64_t len)
{
	struct ptsim_mm *mm;

	assert_int_equal(ptsim_mm_create(m, &mm), 0);
	assert_int_equal(ptsim_mmap(mm, SZ_1G, len, PTSIM_PROT_READ | PTSIM_PROT_WRITE,
				    PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL), 0);
	return mm;
}

/*
 * Populating order-0 anonymous memory 1 GiB at a time under a 32 MiB cap
 * until -ENOMEM: the process's peak RSS grows by no more than the cap and a
 * small constant. First in the suite, so the peak is this test's own. Before
 * issue 32 the undo log (40 bytes a folio, kept at its peak after the
 * populate), the pending faults and the table pool's ready chunks were
 * resident but uncharged.
 */
static void test_cap_holds(void **state)
{
	const uint64_t cap = UINT64_C(32) << 20, step = SZ_1G, len = UINT64_C(8) << 30;
	uint64_t rss0 = rss_bytes(), host = 0, done = 0;
	struct ptsim_machine *m = machine(len + SZ_1G, cap);
	struct ptsim_mm *mm = anon_mm(m, len);
	int err = 0;

	(void)state;
	while (!err && done < len) {
		err = ptsim_populate(mm, SZ_1G + done, step, 0, true);
		done += err ? 0 : step;
	}
	assert_int_equal(err, -ENOMEM);
	assert_true(done >= 2 * SZ_1G);	/* the cap, not something else, stopped it */
	assert_int_equal(ptsim_machine_host_bytes(m, &host), 0);
	assert_true(host <= cap);
	if (peak_rss_bytes() > rss0 + cap + SLACK)
		fail_msg("peak RSS grew by %llu KiB under a %llu KiB cap",
			 (unsigned long long)((peak_rss_bytes() - rss0) >> 10),
			 (unsigned long long)(cap >> 10));
	ptsim_machine_destroy(m);
}

/*
 * 1 GiB of order-0 anonymous memory populated: the machine's host bytes are
 * within 10 % of the RSS it added (the machine, its TLB arrays, the folio
 * records, the table pages and every list the model keeps).
 */
static void test_host_bytes_are_rss(void **state)
{
	uint64_t rss0, rss, host = 0;
	struct ptsim_machine *m;
	struct ptsim_mm *mm;

	(void)state;
	/*
	 * the earlier tests' machines left their cache levels for reuse,
	 * resident already: given back, this machine's are its own again
	 */
	ptsim_host_memory_trim();
	rss0 = rss_bytes();
	m = machine(2 * SZ_1G, 0);
	mm = anon_mm(m, SZ_1G);
	assert_int_equal(ptsim_populate(mm, SZ_1G, SZ_1G, 0, true), 0);
	rss = rss_bytes() - rss0;
	assert_int_equal(ptsim_machine_host_bytes(m, &host), 0);
	if (rss > host + host / 10 || host > rss + rss / 10)
		fail_msg("host bytes %llu KiB, RSS added %llu KiB", (unsigned long long)(host >> 10),
			 (unsigned long long)(rss >> 10));
	assert_invariants(m);
	/*
	 * unmapped, the folio records' host pages and the tables' pages go back
	 * to the host (the table pool keeps 32 free pages resident for reuse)
	 */
	assert_int_equal(ptsim_munmap(mm, SZ_1G, SZ_1G), 0);
	rss = rss_bytes() - rss0;
	assert_int_equal(ptsim_machine_host_bytes(m, &host), 0);
	if (rss > host + SLACK)
		fail_msg("after munmap: host bytes %llu KiB, RSS added %llu KiB",
			 (unsigned long long)(host >> 10), (unsigned long long)(rss >> 10));
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/*
 * A small machine pays for the cache lines it used, not for its caches'
 * size: on Grace (a 114 MiB L3, 1.8 M lines of tags) eight machines that
 * each populated and mlocked 8 MiB (GUP loads 2,048 PTEs and struct pages,
 * spread by the L2's and the L3's hash over all their sets) add under
 * 2 MiB of RSS each (arch/arm64/hw/dcache.c gives a set its tags on first
 * use; when every set had its place, each such machine added 8.8 MiB).
 */
static void test_small_machine_pays_for_lines_used(void **state)
{
	struct ptsim_machine *ms[8];
	uint64_t rss0 = rss_bytes(), rss;

	(void)state;
	for (int i = 0; i < 8; i++) {
		struct ptsim_machine_config cfg;
		struct ptsim_mm *mm;

		ptsim_machine_config_init(&cfg);
		cfg.cpu = PTSIM_CPU_NEOVERSE_V2;
		ms[i] = create_machine(&cfg);
		mm = anon_mm(ms[i], 8 << 20);
		assert_int_equal(ptsim_populate(mm, SZ_1G, 8 << 20, 0, true), 0);
		assert_int_equal(ptsim_mlock(mm, SZ_1G, 8 << 20), 0);
	}
	rss = (rss_bytes() - rss0) / 8;
	if (rss > SLACK)
		fail_msg("each machine added %llu KiB of RSS", (unsigned long long)(rss >> 10));
	for (int i = 0; i < 8; i++)
		ptsim_machine_destroy(ms[i]);
}

static void assert_rss_near_host(const struct ptsim_machine *m, uint64_t rss0, const char *what)
{
	uint64_t rss = rss_bytes() - rss0, host = 0;

	assert_int_equal(ptsim_machine_host_bytes(m, &host), 0);
	if (rss > host + host / 10 || host > rss + rss / 10)
		fail_msg("%s: host bytes %llu KiB, RSS added %llu KiB", what,
			 (unsigned long long)(host >> 10), (unsigned long long)(rss >> 10));
}

/*
 * 512 MiB of a shared anonymous mapping populated: every page is its shmem
 * object's, and the object's page-cache map (16 bytes a slot, at most three
 * quarters full) is charged with the rest. Before, it was not: RSS was 1.7
 * times the host bytes.
 */
static void test_host_bytes_are_rss_shmem(void **state)
{
	const uint64_t len = UINT64_C(512) << 20;
	uint64_t rss0 = rss_bytes();
	struct ptsim_machine *m = machine(2 * SZ_1G, 0);
	struct ptsim_mm *mm;

	(void)state;
	assert_int_equal(ptsim_mm_create(m, &mm), 0);
	assert_int_equal(ptsim_mmap(mm, SZ_1G, len, PTSIM_PROT_READ | PTSIM_PROT_WRITE,
				    PTSIM_MAP_SHARED | PTSIM_MAP_ANONYMOUS, NULL), 0);
	assert_int_equal(ptsim_populate(mm, SZ_1G, len, 0, true), 0);
	assert_rss_near_host(m, rss0, "shmem");
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/*
 * Every other page of 512 MiB populated, then one munmap of it all: the
 * entries it clears are not consecutive, so the BBM checker remembers each
 * in its map and its per-CPU arrays until the flush, and keeps their room.
 * That room is charged. Before, it was not: RSS was 1.18 times the host bytes.
 */
static void test_host_bytes_are_rss_bbm(void **state)
{
	const uint64_t len = UINT64_C(512) << 20;
	uint64_t rss0 = rss_bytes();
	struct ptsim_machine *m = machine(2 * SZ_1G, 0);
	struct ptsim_mm *mm = anon_mm(m, len);

	(void)state;
	for (uint64_t a = SZ_1G; a < SZ_1G + len; a += 2 * SZ_4K)
		assert_int_equal(ptsim_populate(mm, a, SZ_4K, 0, true), 0);
	assert_int_equal(ptsim_munmap(mm, SZ_1G, len), 0);
	assert_true(bbm_host_bytes(&m->bbm) > (UINT64_C(256) << 10));
	assert_rss_near_host(m, rss0, "BBM checker");
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/*
 * A destroyed machine's cache levels are kept for the next machine of its
 * CPU; ptsim_host_memory_trim gives them back, and a second call finds
 * nothing left. The next machine maps fresh ones and works as before.
 */
static void test_trim_gives_back_kept_levels(void **state)
{
	struct ptsim_machine *m = machine(SZ_1G, 0);
	struct ptsim_mm *mm = anon_mm(m, 8 << 20);

	(void)state;
	ptsim_host_memory_trim();
	assert_int_equal(ptsim_populate(mm, SZ_1G, 8 << 20, 0, true), 0);
	ptsim_machine_destroy(m);
	assert_true(ptsim_host_memory_trim() > 0);
	assert_int_equal(ptsim_host_memory_trim(), 0);
	m = machine(SZ_1G, 0);
	mm = anon_mm(m, 8 << 20);
	assert_int_equal(ptsim_populate(mm, SZ_1G, 8 << 20, 0, true), 0);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/*
 * Each RSS comparison of a machine's contents runs in a process of its own
 * (meson passes its name): memory an earlier test freed would be reused
 * resident, and the RSS a machine adds would read low.
 */
int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cap_holds),
		cmocka_unit_test(test_host_bytes_are_rss),
		cmocka_unit_test(test_small_machine_pays_for_lines_used),
		cmocka_unit_test(test_trim_gives_back_kept_levels),
	};
	const struct CMUnitTest shmem[] = { cmocka_unit_test(test_host_bytes_are_rss_shmem) };
	const struct CMUnitTest bbm[] = { cmocka_unit_test(test_host_bytes_are_rss_bbm) };

#ifdef PTSIM_TEST_SANITIZED
	printf("skipped: a sanitizer's shadow memory and quarantine are in the RSS\n");
	return 77;
#endif
	if (argc > 1 && !strcmp(argv[1], "shmem"))
		return cmocka_run_group_tests(shmem, NULL, NULL);
	if (argc > 1 && !strcmp(argv[1], "bbm"))
		return cmocka_run_group_tests(bbm, NULL, NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
