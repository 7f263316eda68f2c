// SPDX-License-Identifier: MIT
/* The audit's findings of one scenario run, keyed by kernel call chain (findings.h). */
#include "findings.h"

#include <string.h>

#define BIT_CONT (UINT64_C(1) << 52)	/* the descriptors' contiguous bit */

/* Frames of the simulator itself, not of a modelled kernel function. */
static bool internal_frame(const char *f)
{
	static const char *const prefixes[] = {
		"ptsim_", "scenario_", "run_op", "audit", "bbm_", "tlb_", "hw_", "diag_", "op_",
		"count", "main", "__libc", "_start", "set_desc", "xchg_desc", "read_desc", "dsb_",
		"tlbi", "__tlbi", "fuzz", "cmd_", "check_", "invariant", "on_diag", "record",
		"kernel_set_desc", "findings",
	};

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(f, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/* The call chain as kernel function names: up to five, innermost first. */
static void chain_of(const struct ptsim_diag *d, char *out, size_t len)
{
	unsigned int n = 0;

	out[0] = 0;
	for (unsigned int i = 0; i < d->nr_frames && n < 5; i++) {
		char name[64];
		size_t k = strcspn(d->frames[i], "+ (.");	/* no offset, no .constprop suffix */

		if (!k || k >= sizeof(name))
			continue;
		memcpy(name, d->frames[i], k);
		name[k] = 0;
		/* an address libunwind could not name is no kernel function either */
		if (internal_frame(name) || !strcmp(name, "??"))
			continue;
		snprintf(out + strlen(out), len - strlen(out), "%s%s", n ? " < " : "", name);
		n++;
	}
	if (!n)
		snprintf(out, len, "(no kernel frame)");
}

void findings_reset(struct findings *f, const struct scenario *s)
{
	f->s = s;
	f->op = 0;
	f->nr = 0;
}

void findings_diag(const struct ptsim_diag *d, void *arg)
{
	struct findings *fs = arg;
	char key[192];

	if (d->kind == PTSIM_DIAG_WARN)
		return;	/* the kernel's own WARN_ONs on bad requests are not findings */
	if (d->kind == PTSIM_DIAG_INVARIANT) {
		snprintf(key, sizeof(key), "after %s: %s", scenario_op_name(fs->s->ops[fs->op].kind),
			 d->message);
	} else {
		/* what changed tells the directions of one path apart */
		uint64_t diff = d->old_desc ^ d->new_desc;
		const char *what = (diff & BIT_CONT) ? (d->new_desc & BIT_CONT ? "contiguous bit set" :
							 "contiguous bit cleared") :
				   "descriptor changed";

		chain_of(d, key, sizeof(key) - 32);
		snprintf(key + strlen(key), 32, " [%s]", what);
	}
	for (unsigned int i = 0; i < fs->nr; i++)
		if (fs->kinds[i] == d->kind && !strcmp(fs->keys[i], key))
			return;
	if (fs->nr == FINDINGS_MAX)
		return;
	fs->kinds[fs->nr] = d->kind;
	snprintf(fs->keys[fs->nr], sizeof(fs->keys[0]), "%s", key);
	snprintf(fs->msgs[fs->nr], sizeof(fs->msgs[0]), "%s", d->message);
	fs->nr++;
}

/* After each operation the invariants are checked, so a broken one is tied to it. */
void findings_hook(void *arg, struct ptsim_machine *m, size_t op, bool after)
{
	struct findings *fs = arg;
	uint64_t v;

	fs->op = op;
	if (after)
		ptsim_check_invariants(m, &v);
}
