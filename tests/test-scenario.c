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

/* A sum of constants that wraps is refused when parsed, as a product that wraps is. */
static void test_sum_overflow_parse(void **state)
{
	struct scenario s;
	char err[256];

	(void)state;
	assert_int_equal(parse("mm A\nmmap A 0xffffffffffffffff+1 2M rw\n", &s, err), -EINVAL);
	assert_string_equal(err, "t.scn:2:27: number too large");
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
		assert_string_equal(res.msg, "line 3: aslr failed: a number overflows 64 bits");
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
	assert_string_equal(res.msg, "line 2: checkpoint failed: more than 4096 checkpoints");
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
	assert_string_equal(res.msg, "line 3: exec-random failed: over the work budget of 1048576 units");
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
	assert_int_equal(res.err_line, 5);
	scn_result_free(&res);
	/* 2^34 units are enough for 100000 exec-random calls (bench/scenarios/exec-grace.scn) */
	assert_int_equal(run_text("mm A\nmmap A 1G 2M rx\nexec-random A 1G 2M count=100000 seed=1\n",
				  &(struct scn_limits){ SCN_DEFAULT_MAX_WORK, SCN_RUN_OP_WORK, 0, NULL }, &res), 0);
	scn_result_free(&res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_access_cpu_key),
		cmocka_unit_test(test_sum_overflow_parse),
		cmocka_unit_test(test_overflow_at_run_time),
		cmocka_unit_test(test_checkpoint_bound),
		cmocka_unit_test(test_work_budget),
		cmocka_unit_test(test_query_operations),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
