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

/* The presets enumerate in features.c's order, each one a machine accepts, with its release. */
static void test_preset_enumeration(void **state)
{
	static const struct {
		const char *name;
		unsigned int release;
	} want[] = {
		{ "baseline", 6160 }, { "patched", PTSIM_RELEASE_UNMERGED }, { "v6.6", 6060 },
		{ "v6.8", 6080 }, { "v6.9-midpoint", 6085 }, { "v6.9", 6090 }, { "v6.10", 6100 },
		{ "v6.11", 6110 }, { "v6.12", 6120 }, { "v6.13", 6130 }, { "v6.14", 6140 },
		{ "v6.15", 6150 }, { "v6.16", 6160 }, { "v6.17", 6170 }, { "v6.18", 6180 },
		{ "v6.19", 6190 },
	};
	const unsigned int n = sizeof(want) / sizeof(want[0]);
	struct ptsim_machine_config cfg;
	struct ptsim_machine *m;
	unsigned int r;

	(void)state;
	ptsim_machine_config_init(&cfg);
	assert_int_equal(ptsim_machine_create(&cfg, &m), 0);
	for (unsigned int i = 0; i < n; i++) {
		assert_non_null(ptsim_preset_name(i));
		assert_string_equal(ptsim_preset_name(i), want[i].name);
		assert_int_equal(ptsim_preset_release(want[i].name, &r), 0);
		assert_int_equal(r, want[i].release);
		assert_int_equal(ptsim_feature_preset(m, want[i].name), 0);
	}
	assert_null(ptsim_preset_name(n));
	assert_int_equal(ptsim_preset_release("v6.7", &r), -EINVAL);
	ptsim_machine_destroy(m);
}

/* A handler that tries to change the model from inside an operation. */
struct reentry {
	struct ptsim_mm *mm;
	int mmap_err, mprotect_err, create_err;
	unsigned int calls;
};

static void reenter(const struct ptsim_diag *d, void *arg)
{
	struct reentry *r = arg;
	struct ptsim_mm *other;
	struct ptsim_stats st;

	(void)d;
	r->calls++;
	r->mmap_err = ptsim_mmap(r->mm, 0x7f0000000000, SZ_2M, PTSIM_PROT_READ,
				 PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL);
	r->mprotect_err = ptsim_mprotect(r->mm, SZ_1G, SZ_4K, PTSIM_PROT_NONE);
	r->create_err = ptsim_mm_create(ptsim_mm_machine(r->mm), &other);
	ptsim_mm_destroy(r->mm);			/* refused: nothing happens */
	ptsim_machine_destroy(ptsim_mm_machine(r->mm));	/* refused too */
	assert_int_equal(ptsim_last_stats(ptsim_mm_machine(r->mm), &st), 0);	/* queries work */
}

/*
 * Re-entry from a handler is refused with -EBUSY and the operation finishes:
 * v6.17's batched mprotect refolds an unfolded contpte block without a break
 * (a BBM violation on the M3), and the handler tries to mmap, mprotect,
 * create and destroy meanwhile.
 */
static void test_handler_reentry_refused(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3, "patched");
	struct ptsim_mm *mm = new_mm_with_vma(m, SZ_1G, SZ_2M);
	struct reentry r = { .mm = mm };
	struct ptsim_translation tr;
	uint64_t bad = 1;

	(void)state;
	assert_int_equal(ptsim_populate(mm, SZ_1G, SZ_2M, 4, true), 0);
	/* unfold one block, then make its pages alike again */
	assert_int_equal(ptsim_mprotect(mm, SZ_1G, SZ_4K, PTSIM_PROT_READ), 0);
	assert_int_equal(ptsim_mprotect(mm, SZ_1G, SZ_4K, PTSIM_PROT_READ | PTSIM_PROT_WRITE), 0);
	ptsim_set_diag_handler(m, reenter, &r);
	assert_int_equal(ptsim_mprotect(mm, SZ_1G, SZ_2M, PTSIM_PROT_READ), 0);	/* refold */
	assert_true(r.calls > 0);
	assert_int_equal(r.mmap_err, -EBUSY);
	assert_int_equal(r.mprotect_err, -EBUSY);
	assert_int_equal(r.create_err, -EBUSY);
	assert_int_equal(mm->nr_vmas, 1);
	assert_int_equal(ptsim_translate(mm, SZ_1G, &tr), 0);
	assert_true(tr.read_only);
	ptsim_set_diag_handler(m, NULL, NULL);
	assert_int_equal(ptsim_check_invariants(m, &bad), 0);
	assert_int_equal(bad, 0);
	ptsim_machine_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handler_reentry_refused),
		cmocka_unit_test(test_handler_and_backtrace),
		cmocka_unit_test(test_version_and_errors),
		cmocka_unit_test(test_preset_enumeration),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
