// SPDX-License-Identifier: MIT
/*
 * The scenario interpreter of ptsim-bench (bench/scenario.c): keys beside
 * keywords, numbers that overflow, the checkpoint bound and the work budget
 * (doc/scenario.md).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "scenario.h"
#include "internal.h"
#include <asm/pgtable-hwdef.h>

static int parse(const char *text, struct scenario *s, char *err)
{
	return scenario_parse(text, strlen(text), "t.scn", s, err, 256);
}

static int run_text(const char *text, const struct scn_limits *lim, struct scn_result *res)
{
	struct scenario s;
	char err[256];
	int ret;

	assert_int_equal(parse(text, &s, err), 0);
	ret = scenario_run(&s, &s.machine, NULL, NULL, NULL, NULL, NULL, lim, res);
	scenario_free(&s);
	return ret;
}

/* The PTE slot of va in mm (its table exists: the scenario populated it). */
static pte_t *pte_table_of(struct ptsim_mm *mm, uint64_t va)
{
	int err;
	struct pt_table *t = pt_walk_table(mm, va, PTE_LEVEL, false, &err);

	assert_non_null(t);
	return &t->desc[pt_index(&mm->m->geo, PTE_LEVEL, va)];
}

/* The scenario's text as scenario_print() writes it (free it). */
static char *print(const struct scenario *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	scenario_print(s, f);
	fclose(f);
	return text;
}

/*
 * The query and GUP operations: pagemap and vmas print where the limits
 * say (doc/scenario.md's formats), and nothing, with the same checks,
 * without; pin-user-pages and get-user-pages take their keys; the text
 * round-trips.
 */
static void test_query_operations(void **state)
{
	static const char text[] = "machine preset=v6.12\nmm A\nmmap A 1G 2M rw\n"
				   "populate A 1G 64K order=4\nfork A B\n"
				   "pin-user-pages A 1G+4K 4K longterm\nget-user-pages B 1G+8K 8K\n"
				   "pin-user-pages A 1G+16K PAGE write\n"
				   "pagemap A 1G len=64K\npagemap B 1G+8K\nvmas B\n";
	static const char expect[] =
		"# line 9: pagemap\n"
		"0x40000000-0x40001000 present pfn=0x80010 level=3 anon order=4 mapcount=30 refcount=32 pins=0 gets=2 dirty young\n"
		"0x40001000-0x40002000 present pfn=0x80008 level=3 anon order=0 mapcount=1 refcount=1025 pins=1 gets=0 exclusive mmap-exclusive young\n"
		"0x40002000-0x40004000 present pfn=0x80012 level=3 anon order=4 mapcount=30 refcount=32 pins=0 gets=2 dirty young\n"
		"0x40004000-0x40005000 present pfn=0x80009 level=3 anon order=0 mapcount=1 refcount=1025 pins=1 gets=0 exclusive mmap-exclusive write dirty young\n"
		"0x40005000-0x40010000 present pfn=0x80015 level=3 anon order=4 mapcount=30 refcount=32 pins=0 gets=2 dirty young\n"
		"# line 10: pagemap\n"
		"0x40002000-0x40003000 present pfn=0x80012 level=3 anon order=4 mapcount=30 refcount=32 pins=0 gets=2 dirty\n"
		"# line 11: vmas\n"
		"0x40000000-0x40200000 rw-p pgoff=0x40000 anon anon_vma rss=64kB anonymous=64kB anonhuge=0kB swap=0kB\n";
	struct scn_limits lim = { 1u << 24, 64, 0, NULL };
	struct scenario s, again;
	struct scn_result res;
	char err[256], *out = NULL, *printed, *printed2;
	size_t len = 0;

	(void)state;
	lim.query_out = open_memstream(&out, &len);
	assert_non_null(lim.query_out);
	assert_int_equal(run_text(text, &lim, &res), 0);
	scn_result_free(&res);
	fclose(lim.query_out);
	assert_string_equal(out, expect);
	free(out);
	lim.query_out = NULL;
	assert_int_equal(run_text(text, &lim, &res), 0);
	scn_result_free(&res);
	assert_int_equal(run_text("mm A\nmmap A 1G 2M rw\npin-user-pages A 1G 100\n", &lim, &res), -EINVAL);
	scn_result_free(&res);
	assert_int_equal(run_text("mm A\nmmap A 1G 2M rw\npagemap A 1G len=0x1000000000000\n", &lim, &res),
			 -EINVAL);
	scn_result_free(&res);
	assert_int_equal(parse(text, &s, err), 0);
	printed = print(&s);
	assert_int_equal(parse(printed, &again, err), 0);
	printed2 = print(&again);
	assert_string_equal(printed, printed2);
	assert_non_null(strstr(printed, "pin-user-pages A"));
	assert_non_null(strstr(printed, " longterm"));
	assert_non_null(strstr(printed, "len="));
	free(printed);
	free(printed2);
	scenario_free(&s);
	scenario_free(&again);
}

/* access/touch with cpu=: the access kind is the keyword's, not ORed with the key's flag. */
static void test_access_cpu_key(void **state)
{
	static const char text[] = "machine cpus=2\nmm A\nmmap A 1G 2M rw\nfault A 1G write\n"
				   "access A 1G write cpu=1\ntouch A 1G 2M read cpu=1\n";
	struct scenario s, again;
	struct scn_result res;
	char err[256], *out, *out2;

	(void)state;
	assert_int_equal(run_text(text, NULL, &res), 0);
	scn_result_free(&res);
	/* printed back with the same kinds, and the print parses to itself */
	assert_int_equal(parse(text, &s, err), 0);
	out = print(&s);
	assert_non_null(strstr(out, "\naccess A 0x40000000 write cpu=0x1\n"));
	assert_non_null(strstr(out, "\ntouch A 0x40000000 0x200000 read cpu=0x1\n"));
	assert_int_equal(parse(out, &again, err), 0);
	out2 = print(&again);
	assert_string_equal(out, out2);
	free(out);
	free(out2);
	scenario_free(&s);
	scenario_free(&again);
}

/*
 * The raw operations and expect lines: run, printed back, the print parsing
 * to itself; a failed expectation stops the run naming its line.
 */
static void test_raw_ops_and_expect(void **state)
{
	static const char text[] =
		"machine cpu=neoverse-v2 cpus=2 bbm=1 noabort=off\nraw-mm A\n"
		"raw-table A 1G 1\nraw-table A 1G 2\nraw-table A 1G 3 nolink\n"
		"raw-write A 1G 2 table\nraw-write A 1G 3 page=0x100000000 ng cont same cpu=1\n"
		"access A 1G read cpu=1\nexpect pa A 1G 0x100000000 cpu=1\n"
		"raw-write A 1G 3 cpu=1\nraw-barrier dsb-ishst cpu=1\n"
		"raw-tlbi rvae1 A va=1G pages=16 ttl=3\nraw-tlbi vmalle1 A local\n"
		"raw-barrier dsb-sy\nexpect entries A 1G 0 cpu=1\n"
		"raw-write A 1G 3 block=0x100000000 noaf ro\nexpect violations 0\n"
		"expect fault A 1G read translation cpu=1\nexpect conflict-risks 5 bbm=2 noabort\n";
	struct scenario s, again;
	struct scn_result res;
	char err[256], *out, *out2;

	(void)state;
	assert_int_equal(run_text(text, NULL, &res), 0);
	scn_result_free(&res);
	assert_int_equal(parse(text, &s, err), 0);
	out = print(&s);
	assert_non_null(strstr(out, " bbm=1 noabort=off\n"));
	assert_non_null(strstr(out, "\nraw-write A 0x40000000 0x3 page=0x100000000 cpu=0x1 ng cont same\n"));
	assert_non_null(strstr(out, "\nraw-tlbi vmalle1 A local\n"));
	assert_non_null(strstr(out, "\nexpect fault A 0x40000000 read translation cpu=0x1\n"));
	assert_int_equal(parse(out, &again, err), 0);
	out2 = print(&again);
	assert_string_equal(out, out2);
	free(out);
	free(out2);
	scenario_free(&s);
	scenario_free(&again);
	/* an expectation that does not hold: -EPROTO, at its line, with why */
	assert_int_equal(run_text("raw-mm A\nexpect violations 1\n", NULL, &res), -EPROTO);
	assert_int_equal(res.err_line, 2);
	assert_string_equal(res.msg, "2:1: error: expect failed: 0 violations, expected 1");
	scn_result_free(&res);
	/* parse errors name what was expected */
	assert_int_equal(parse("expect nothing 1\n", &s, err), -EINVAL);
	assert_non_null(strstr(err, "expect: expected violations"));
	assert_int_equal(parse("raw-barrier dsb\n", &s, err), -EINVAL);
	assert_int_equal(parse("raw-mm A\nraw-tlbi vae2 A\n", &s, err), -EINVAL);
}

/* A sum of constants that wraps is refused when parsed, as a product that wraps is. */
static void test_sum_overflow_parse(void **state)
{
	struct scenario s;
	char err[256];

	(void)state;
	assert_int_equal(parse("mm A\nmmap A 0xffffffffffffffff+1 2M rw\n", &s, err), -EINVAL);
	assert_string_equal(err, "t.scn:2:27: error: number too large");
	assert_int_equal(parse("mm A\nmmap A 0xfffffffffffff000+4K 2M rw\n", &s, err), -EINVAL);
	assert_int_equal(parse("mm A\nmmap A 0x8000000000000000*2 2M rw\n", &s, err), -EINVAL);
	/* the largest number still parses */
	assert_int_equal(parse("mm A\naslr A 0xfffffffffffff000+0xfff\n", &s, err), 0);
	scenario_free(&s);
}

/* A sum or product with a variable or a size that wraps stops the run at its line. */
static void test_overflow_at_run_time(void **state)
{
	static const char *const texts[] = {
		"mm A\nrepeat 2 i\naslr A 0xffffffffffffffff+$i\nend\n",
		"mm A\nrepeat 3 i\naslr A $i*0x8000000000000000\nend\n",
		"mm A\nrepeat 1\naslr A 0xffffffffffffffff*PAGE\nend\n",
	};
	struct scn_result res;

	(void)state;
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		assert_int_equal(run_text(texts[i], NULL, &res), -EINVAL);
		assert_int_equal(res.err_line, 3);
		assert_string_equal(res.msg, "3:1: error: aslr failed: a number overflows 64 bits");
		scn_result_free(&res);
	}
}

/* Checkpoints in a loop are bounded, and the failure says why. */
static void test_checkpoint_bound(void **state)
{
	struct scn_result res;

	(void)state;
	assert_int_equal(run_text("repeat 5000\ncheckpoint c\nend\n", NULL, &res), -E2BIG);
	assert_int_equal(res.nr_cp, SCN_MAX_CHECKPOINTS);
	assert_string_equal(res.msg, "2:1: error: checkpoint failed: more than 4096 checkpoints");
	scn_result_free(&res);
	/* 4096 of them, and no implicit end checkpoint after them: fine */
	assert_int_equal(run_text("repeat 4096\ncheckpoint c\nend\n", NULL, &res), 0);
	assert_int_equal(res.nr_cp, SCN_MAX_CHECKPOINTS);
	scn_result_free(&res);
}

/* A count over the budget is refused before it starts; loops are charged per iteration. */
static void test_work_budget(void **state)
{
	static const struct scn_limits lim = { 1u << 20, 64, 0, NULL };
	struct scn_result res;

	(void)state;
	assert_int_equal(run_text("mm A\nmmap A 1G 2M rx\nexec-random A 1G 2M count=1T seed=1\n",
				  &lim, &res), -E2BIG);
	assert_int_equal(res.err_line, 3);
	assert_string_equal(res.msg, "3:1: error: exec-random failed: over the work budget of 1048576 units");
	assert_true(res.work <= lim.max_work);
	scn_result_free(&res);
	assert_int_equal(run_text("repeat 1T\nend\n", &lim, &res), -E2BIG);
	assert_int_equal(res.err_line, 1);
	scn_result_free(&res);
	/* nested loops, each under the budget: stopped once the iterations use it up */
	assert_int_equal(run_text("repeat 10000\nrepeat 10000\nend\nend\n", &lim, &res), -E2BIG);
	assert_true(res.work > lim.max_work - 10000 * 64 && res.work <= lim.max_work + 64);
	scn_result_free(&res);
	/* the events the library counted are charged too: 2 MiB of writes in pages */
	assert_int_equal(run_text("mm A\nmmap A 1G 2M rw\nthp none\npopulate A 1G 2M\n"
				  "touch A 1G 2M write\n", &lim, &res), 0);
	assert_true(res.work > 2 * 512 && res.work < lim.max_work);
	scn_result_free(&res);
	assert_int_equal(run_text("mm A\nmmap A 1G 2M rw\nthp none\nrepeat 1000\n"
				  "touch A 1G 2M write\nend\n", &lim, &res), -E2BIG);
	/* in the loop: its touch or its end, whichever the events carry past the budget */
	assert_true(res.err_line == 5 || res.err_line == 6);
	scn_result_free(&res);
	/* 2^34 units are enough for 100000 exec-random calls (bench/scenarios/exec-grace.scn) */
	assert_int_equal(run_text("mm A\nmmap A 1G 2M rx\nexec-random A 1G 2M count=100000 seed=1\n",
				  &(struct scn_limits){ SCN_DEFAULT_MAX_WORK, SCN_RUN_OP_WORK, 0, NULL }, &res), 0);
	scn_result_free(&res);
}

/* Division: granule-portable sizes (PMD/8), printed back and parsed to the same value. */
static void test_division(void **state)
{
	static const char text[] = "machine granule=16K\nmm A\nmmap A 1G PMD/8 rw\n"
				   "populate A 1G PMD/8\ncheckpoint pop\n";
	struct scenario s, again;
	struct scn_result res;
	char err[256], *out;

	(void)state;
	assert_int_equal(run_text(text, NULL, &res), 0);
	/* 16K: PMD is 32M, an eighth of it 4M, 256 pages written */
	assert_int_equal(res.cp[0].stats.ev[PTSIM_EV_PTE_WRITE], 256);
	scn_result_free(&res);
	assert_int_equal(parse(text, &s, err), 0);
	out = print(&s);
	assert_non_null(strstr(out, "\nmmap A 0x40000000 PMD/0x8 rw\n"));
	assert_int_equal(parse(out, &again, err), 0);
	free(out);
	scenario_free(&s);
	scenario_free(&again);
	/* errors: by zero when parsed, or at run time through a variable; two '/'; '*' after '/' */
	assert_int_equal(parse("mm A\nmmap A 1G 64K/0 rw\n", &s, err), -EINVAL);
	assert_string_equal(err, "t.scn:2:15: error: division by zero");
	assert_int_equal(parse("mm A\nmmap A 1G 1M/2/2 rw\n", &s, err), -EINVAL);
	assert_non_null(strstr(err, "one '/' per product"));
	assert_int_equal(parse("mm A\nmmap A 1G 1M/2*2 rw\n", &s, err), -EINVAL);
	assert_non_null(strstr(err, "the divisor ends the product"));
	assert_int_equal(run_text("repeat 1 i\nmm A\nmmap A 1G 1M/$i rw\nend\n", NULL, &res), -EINVAL);
	assert_non_null(strstr(res.msg, "3:1: error: mmap failed: division by zero"));
	scn_result_free(&res);
}

/* touch faults unpopulated pages in (as memset would) instead of skipping them. */
static void test_touch_faults_in(void **state)
{
	struct scn_result res;

	(void)state;
	assert_int_equal(run_text("mm A\nmmap A 1G 64K rw\ntouch A 1G 64K write\ncheckpoint t\n"
				  "touch A 1G 64K write\ncheckpoint again\n", NULL, &res), 0);
	assert_int_equal(res.nr_cp, 2);
	/* 16 pages: one fault each, a PTE written each; the second touch faults nothing */
	assert_int_equal(res.cp[0].stats.ev[PTSIM_EV_FAULT], 16);
	assert_int_equal(res.cp[0].stats.ev[PTSIM_EV_PTE_WRITE], 16);
	assert_int_equal(res.cp[1].stats.ev[PTSIM_EV_FAULT], 0);
	assert_int_equal(res.cp[1].stats.ev[PTSIM_EV_ACCESS_FAULT], 0);
	scn_result_free(&res);
	/* a write to a read-only mapping: SIGSEGV stops the run, naming the page */
	assert_int_equal(run_text("mm A\nmmap A 1G 64K r\ntouch A 1G 64K write\n", NULL, &res), -EFAULT);
	assert_non_null(strstr(res.msg, "3:1: error: touch failed: write at 0x40000000"));
	scn_result_free(&res);
}

/* checkpoint names take the loop variables' values. */
static void test_checkpoint_loop_names(void **state)
{
	struct scn_result res;

	(void)state;
	assert_int_equal(run_text("mm A\nmmap A 1G 1M rw\npopulate A 1G 1M\nrepeat 2 i\nrepeat 2 j\n"
				  "mprotect A 1G+$i*64K+$j*PAGE PAGE r\ncheckpoint p-$i-$j\nend\nend\n",
				  NULL, &res), 0);
	assert_int_equal(res.nr_cp, 4);
	assert_string_equal(res.cp[0].name, "p-0-0");
	assert_string_equal(res.cp[1].name, "p-0-1");
	assert_string_equal(res.cp[2].name, "p-1-0");
	assert_string_equal(res.cp[3].name, "p-1-1");
	scn_result_free(&res);
}

/* ptdump prints the tables where the queries print, in the kernel's dump format; it counts nothing. */
static void test_ptdump_op(void **state)
{
	struct scn_limits lim = { SCN_DEFAULT_MAX_WORK, SCN_RUN_OP_WORK, 0, NULL };
	struct scn_result res;
	char *text = NULL;
	size_t len = 0;

	(void)state;
	lim.query_out = open_memstream(&text, &len);
	assert_non_null(lim.query_out);
	assert_int_equal(run_text("mm A\nmmap A 1G 64K rw\npopulate A 1G 64K\ncheckpoint pop\n"
				  "ptdump A\n", &lim, &res), 0);
	fclose(lim.query_out);
	assert_non_null(strstr(text, "# line 5: ptdump A\n---[ User space (ASID 1) ]---\n"
			       "0x0000000040000000-0x0000000040010000          64K PTE   USR RW"));
	assert_int_equal(res.nr_cp, 1);	/* no end checkpoint: ptdump counted nothing */
	scn_result_free(&res);
	free(text);
	/* without an output it only checks its name */
	assert_int_equal(run_text("mm A\nptdump A\n", NULL, &res), 0);
	scn_result_free(&res);
}

/* A model corrupted behind the library's back: one PTE with the contiguous bit alone. */
static void corrupt_after_populate(void *arg, struct ptsim_machine *m, size_t op, bool after)
{
	size_t *corrupt_op = arg;

	if (op != *corrupt_op || !after)
		return;
	*pte_table_of(m->mms[0], UINT64_C(0x40000000)) |= PTE_CONT;
}

/* check runs the invariant checker: silent on a sound model, stops the run on a broken one. */
static void test_check_op(void **state)
{
	static const char text[] = "mm A\nmmap A 1G 64K rw\npopulate A 1G 64K\ncheck\n";
	struct scenario s;
	struct scn_result res;
	char err[256];
	size_t populate_op = 2;

	(void)state;
	assert_int_equal(run_text(text, NULL, &res), 0);
	scn_result_free(&res);
	assert_int_equal(parse(text, &s, err), 0);
	assert_int_equal(scenario_run(&s, &s.machine, NULL, NULL, NULL, corrupt_after_populate, &populate_op,
				      NULL, &res), -EUCLEAN);
	assert_non_null(strstr(res.msg, "4:1: error: check failed: "));
	assert_non_null(strstr(res.msg, "invariant violation"));
	scn_result_free(&res);
	scenario_free(&s);
}

/* sweep n VALUES: lists, doubling and stepped ranges, lines that add up; $n takes the first value. */
static void test_sweep_values(void **state)
{
	struct scenario s, again;
	struct scn_result res;
	uint64_t v[SCN_MAX_SWEEP];
	unsigned int nr;
	char err[256], *out;

	(void)state;
	assert_int_equal(scenario_parse_values("1..16,100,3..9+3", v, &nr, err, sizeof(err)), 0);
	assert_int_equal(nr, 9);
	assert_int_equal(v[0], 1);
	assert_int_equal(v[4], 16);
	assert_int_equal(v[5], 100);
	assert_int_equal(v[6], 3);
	assert_int_equal(v[8], 9);
	assert_int_equal(scenario_parse_values("4K", v, &nr, err, sizeof(err)), 0);
	assert_int_equal(v[0], 4096);
	assert_int_equal(scenario_parse_values("0..4", v, &nr, err, sizeof(err)), -EINVAL);
	assert_int_equal(scenario_parse_values("8..4", v, &nr, err, sizeof(err)), -EINVAL);
	assert_int_equal(scenario_parse_values("1..9+0", v, &nr, err, sizeof(err)), -EINVAL);
	assert_int_equal(scenario_parse_values("1,,2", v, &nr, err, sizeof(err)), -EINVAL);
	assert_int_equal(scenario_parse_values("1..1000+1", v, &nr, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "more than 256 values");

	assert_int_equal(parse("sweep n 2..8\nsweep n 20\nmm A\nmmap A 1G $n*64K rw\n", &s, err), 0);
	assert_int_equal(s.nr_sweep, 4);
	assert_int_equal(s.machine.n, 2);
	assert_int_equal(s.sweep[3], 20);
	out = print(&s);
	assert_non_null(strstr(out, "\nsweep n 0x2,0x4,0x8,0x14\n"));
	assert_non_null(strstr(out, "\nmmap A 0x40000000 0x10000*$n rw\n"));
	assert_int_equal(parse(out, &again, err), 0);
	assert_int_equal(again.nr_sweep, 4);
	free(out);
	scenario_free(&again);
	scenario_free(&s);
	/* a run takes $n from the machine it is given: 3 * 64K populated, 48 PTEs written */
	assert_int_equal(parse("sweep n 1\nmm A\nmmap A 1G $n*64K rw\npopulate A 1G $n*64K\n", &s, err), 0);
	s.machine.n = 3;
	assert_int_equal(scenario_run(&s, &s.machine, NULL, NULL, NULL, NULL, NULL, NULL, &res), 0);
	assert_int_equal(res.cp[0].stats.ev[PTSIM_EV_PTE_WRITE], 48);
	scn_result_free(&res);
	scenario_free(&s);
	assert_int_equal(parse("sweep m 1\n", &s, err), -EINVAL);
	assert_int_equal(parse("sweep n 0..3\n", &s, err), -EINVAL);
	assert_non_null(strstr(err, "t.scn:1:9: error: expected values"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_access_cpu_key),
		cmocka_unit_test(test_raw_ops_and_expect),
		cmocka_unit_test(test_sum_overflow_parse),
		cmocka_unit_test(test_overflow_at_run_time),
		cmocka_unit_test(test_checkpoint_bound),
		cmocka_unit_test(test_work_budget),
		cmocka_unit_test(test_division),
		cmocka_unit_test(test_touch_faults_in),
		cmocka_unit_test(test_checkpoint_loop_names),
		cmocka_unit_test(test_ptdump_op),
		cmocka_unit_test(test_check_op),
		cmocka_unit_test(test_sweep_values),
		cmocka_unit_test(test_query_operations),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
