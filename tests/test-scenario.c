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
	assert_string_equal(res.msg, "line 2: expect failed: 0 violations, expected 1");
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
	static const struct scn_limits lim = { 1u << 20, 64, 0 };
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
				  &(struct scn_limits){ SCN_DEFAULT_MAX_WORK, SCN_RUN_OP_WORK, 0 }, &res), 0);
	scn_result_free(&res);
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
