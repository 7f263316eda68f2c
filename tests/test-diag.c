// SPDX-License-Identifier: MIT
/* Diagnostics reach the handler with a record, a count and (with libunwind) a backtrace. */
#include "helpers.h"
#include "config.h"

static struct ptsim_diag seen;
static unsigned int calls;
static char first_frame[128];

static void handler(const struct ptsim_diag *d, void *arg)
{
	seen = *d;
	calls++;
	*(int *)arg = 1;
	snprintf(first_frame, sizeof(first_frame), "%s", d->nr_frames ? d->frames[0] : "");
}

static void __attribute__((noinline)) report_from_here(struct ptsim_machine *m)
{
	diag_report(m, PTSIM_DIAG_BBM_VIOLATION, 0x1000, 3, 1, 2, "test %d", 42);
}

static void test_handler_and_backtrace(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3, NULL);
	uint64_t n = 0;
	int flag = 0;

	(void)state;
	assert_int_equal(ptsim_set_diag_handler(m, handler, &flag), 0);
	report_from_here(m);
	assert_int_equal(calls, 1);
	assert_int_equal(flag, 1);
	assert_int_equal(seen.kind, PTSIM_DIAG_BBM_VIOLATION);
	assert_int_equal(seen.va, 0x1000);
	assert_int_equal(seen.level, 3);
	assert_int_equal(seen.old_desc, 1);
	assert_int_equal(seen.new_desc, 2);
	assert_int_equal(ptsim_diag_count(m, PTSIM_DIAG_BBM_VIOLATION, &n), 0);
	assert_int_equal(n, 1);
#if PTSIM_HAVE_LIBUNWIND
	assert_true(seen.nr_frames >= 2);
	assert_non_null(strstr(first_frame, "report_from_here"));
#endif
	assert_string_equal(ptsim_diag_kind_name(PTSIM_DIAG_BBM_VIOLATION), "bbm-violation");
	assert_int_equal(ptsim_diag_count(m, PTSIM_DIAG__COUNT, &n), -EINVAL);
	ptsim_machine_destroy(m);
}

static void test_version_and_errors(void **state)
{
	(void)state;
	assert_string_equal(ptsim_version(), PTSIM_VERSION);
	assert_string_equal(ptsim_strerror(-ENOMEM), "out of memory");
	assert_string_equal(ptsim_strerror(-12345), "unknown error");
	enum ptsim_feature f;
	assert_int_equal(ptsim_feature_lookup("mprotect_pte_batching", &f), 0);
	assert_int_equal(f, PTSIM_FEAT_MPROTECT_PTE_BATCHING);
	assert_int_equal(ptsim_feature_lookup("nope", &f), -EINVAL);
	for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++)
		assert_non_null(ptsim_event_name((enum ptsim_event)e));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handler_and_backtrace),
		cmocka_unit_test(test_version_and_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
