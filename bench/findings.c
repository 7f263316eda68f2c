// SPDX-License-Identifier: MIT
/* The audit's findings of one scenario run, keyed by kernel call chain (findings.h). */
#include "findings.h"
#include "rows.h"

#include <stdio.h>
#include <string.h>

#define BIT_CONT (UINT64_C(1) << 52)	/* the descriptors' contiguous bit */

/* Frames of the simulator itself, not of a modelled kernel function. */
static bool internal_frame(const char *f)
{
	static const char *const prefixes[] = {
		"ptsim_", "scenario_", "run_op", "audit", "bbm_", "tlb_", "hw_", "diag_", "op_",
		"count", "main", "__libc", "_start", "set_desc", "xchg_desc", "read_desc", "dsb_",
		"tlbi", "__tlbi", "fuzz", "cmd_", "check_", "invariant", "on_diag", "record",
		"kernel_set_desc", "findings", "run_combination", "sweep_",
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
	memset(f, 0, sizeof(*f));
	f->s = s;
	f->check = true;
	f->every_op = true;
}

void findings_reset_for_user(struct findings *f, const struct scenario *s, bool check)
{
	findings_reset(f, s);
	f->check = check;
	f->keep_warn = true;
	f->every_op = false;	/* after each loop, not each iteration */
}

uint64_t findings_total(const struct findings *f)
{
	uint64_t n = 0;

	for (unsigned int k = 0; k < PTSIM_DIAG__COUNT; k++)
		n += f->total[k];
	return n;
}

void findings_diag(const struct ptsim_diag *d, void *arg)
{
	struct findings *fs = arg;
	char key[192];

	if ((unsigned int)d->kind < PTSIM_DIAG__COUNT)
		fs->total[d->kind]++;
	if (d->kind == PTSIM_DIAG_WARN && !fs->keep_warn)
		return;	/* the kernel's own WARN_ONs on bad requests are not findings */
	if (d->kind == PTSIM_DIAG_INVARIANT || d->kind == PTSIM_DIAG_WARN) {
		snprintf(key, sizeof(key), "%s %s: %s", d->kind == PTSIM_DIAG_WARN ? "in" : "after",
			 fs->op < fs->s->nr ? scenario_op_name(fs->s->ops[fs->op].kind) : "the last loop",
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
	for (unsigned int i = 0; i < fs->nr; i++) {
		if (fs->kinds[i] == d->kind && !strcmp(fs->keys[i], key)) {
			fs->hits[i]++;
			return;
		}
	}
	if (fs->nr == FINDINGS_MAX) {
		fs->unlisted++;	/* may count one finding twice: it is not kept to compare */
		return;
	}
	fs->kinds[fs->nr] = d->kind;
	fs->hits[fs->nr] = 1;
	fs->va[fs->nr] = d->va;
	fs->level[fs->nr] = d->level;
	fs->first_op[fs->nr] = fs->op;
	snprintf(fs->keys[fs->nr], sizeof(fs->keys[0]), "%s", key);
	snprintf(fs->msgs[fs->nr], sizeof(fs->msgs[0]), "%s", d->message);
	fs->nr++;
}

/* Whether operation op of s is inside a repeat loop. */
static bool in_loop(const struct scenario *s, size_t op)
{
	int depth = 0;

	for (size_t i = 0; i < op && i < s->nr; i++)
		depth += s->ops[i].kind == S_REPEAT ? 1 : s->ops[i].kind == S_END ? -1 : 0;
	return depth > 0;
}

/* After an operation the invariants are checked, so a broken one is tied to it. */
void findings_hook(void *arg, struct ptsim_machine *m, size_t op, bool after)
{
	struct findings *fs = arg;
	uint64_t v;

	if (!fs->check) {
		fs->op = op;
		return;
	}
	if (fs->every_op) {
		fs->op = op;
		if (after && op < fs->s->nr)
			ptsim_check_invariants(m, &v);
		return;
	}
	if (fs->loop_ran && (op == fs->s->nr || !in_loop(fs->s, op))) {
		/* a loop ended: check what it left, tied to "the last loop" */
		fs->op = fs->s->nr;
		fs->loop_ran = false;
		ptsim_check_invariants(m, &v);
	}
	if (op == fs->s->nr)
		return;
	fs->op = op;
	if (in_loop(fs->s, op))
		fs->loop_ran = true;
	else if (after)
		ptsim_check_invariants(m, &v);
}

/*
 * Where finding k was first reported: the scenario line of the operation
 * in progress (0 at the end of a loop) and the last checkpoint before it
 * (NULL: none yet).
 */
static unsigned int first_line(const struct findings *f, unsigned int k, const char **checkpoint)
{
	size_t op = f->first_op[k];

	*checkpoint = NULL;
	for (size_t i = 0; i < op && i < f->s->nr; i++)
		if (f->s->ops[i].kind == S_CHECKPOINT)
			*checkpoint = f->s->ops[i].text;
	return op < f->s->nr ? f->s->ops[op].line : 0;
}

/* "invariant 3, bbm-violation 1", or "none": the diagnostics of one run per kind. */
void print_diag_counts(const struct findings *f)
{
	unsigned int n = 0;

	for (unsigned int k = 0; k < PTSIM_DIAG__COUNT; k++)
		if (f->total[k])
			printf("%s%s %llu", n++ ? ", " : "", ptsim_diag_kind_name((enum ptsim_diag_kind)k),
			       (unsigned long long)f->total[k]);
	if (!n)
		printf("none");
}

/*
 * Each distinct diagnostic once, labelled with the run's CPU, granule and
 * kernel: its kind, how often it fired, the kernel call chain (the
 * simulator's own frames dropped) and the message.
 */
void print_findings_text(const struct findings *f, const char *label, bool checked)
{
	printf("  diagnostics: ");
	print_diag_counts(f);
	printf("%s\n", checked ? "" : " (invariants not checked: --no-check-invariants)");
	for (unsigned int k = 0; k < f->nr; k++) {
		bool keyed_by_op = f->kinds[k] == PTSIM_DIAG_INVARIANT || f->kinds[k] == PTSIM_DIAG_WARN;

		printf("  [%s] %s x%llu\n    %s\n", label, ptsim_diag_kind_name(f->kinds[k]),
		       (unsigned long long)f->hits[k], f->keys[k]);
		if (!keyed_by_op)
			printf("    %s\n", f->msgs[k]);
		const char *cp;
		unsigned int line = first_line(f, k, &cp);

		printf("    first at va 0x%llx, level %d", (unsigned long long)f->va[k], f->level[k]);
		if (line)
			printf(", line %u (%s)", line, scenario_op_name(f->s->ops[f->first_op[k]].kind));
		else
			printf(", at the end of a loop");
		printf("%s%s\n", cp ? " after checkpoint " : "", cp ? cp : "");
	}
	if (f->unlisted)
		printf("  (%u more distinct diagnostics not listed)\n", f->unlisted);
}

void print_findings_json(const struct findings *f)
{
	printf(", \"diagnostics\": {");
	for (unsigned int k = 0; k < PTSIM_DIAG__COUNT; k++)
		printf("%s\"%s\": %llu", k ? ", " : "", ptsim_diag_kind_name((enum ptsim_diag_kind)k),
		       (unsigned long long)f->total[k]);
	printf("}, \"findings\": [");
	for (unsigned int k = 0; k < f->nr; k++) {
		printf("%s{\"kind\": \"%s\", \"count\": %llu, \"chain\": ", k ? ", " : "",
		       ptsim_diag_kind_name(f->kinds[k]), (unsigned long long)f->hits[k]);
		json_string(f->keys[k]);
		printf(", \"message\": ");
		json_string(f->msgs[k]);
		const char *cp;
		unsigned int line = first_line(f, k, &cp);

		printf(", \"first_va\": %llu, \"level\": %d, \"first_line\": %u, \"after_checkpoint\": ",
		       (unsigned long long)f->va[k], f->level[k], line);
		if (cp)
			json_string(cp);
		else
			printf("null");
		printf("}");
	}
	printf("], \"findings_unlisted\": %u", f->unlisted);
}
