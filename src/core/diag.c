// SPDX-License-Identifier: MIT
/*
 * Diagnostics: broken invariants, break-before-make violations and TLB
 * conflicts go to a user handler with a structured record and a backtrace of
 * the simulator's call chain (libunwind when built with it). Never abort.
 */
#include "core.h"
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#if PTSIM_HAVE_LIBUNWIND
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#endif

static const char *const kind_names[PTSIM_DIAG__COUNT] = {
	[PTSIM_DIAG_INVARIANT] = "invariant",
	[PTSIM_DIAG_BBM_VIOLATION] = "bbm-violation",
	[PTSIM_DIAG_TLB_CONFLICT] = "tlb-conflict",
	[PTSIM_DIAG_WARN] = "warn",
	[PTSIM_DIAG_BBM_CONFLICT_RISK] = "bbm-conflict-risk",
};

const char *ptsim_diag_kind_name(enum ptsim_diag_kind kind)
{
	if ((unsigned int)kind >= PTSIM_DIAG__COUNT)
		return NULL;
	return kind_names[kind];
}

static void default_handler(const struct ptsim_diag *d, void *arg)
{
	(void)arg;
	fprintf(stderr, "ptsim: %s: %s (va 0x%llx level %d old 0x%016llx new 0x%016llx)\n",
		kind_names[d->kind], d->message, (unsigned long long)d->va, d->level,
		(unsigned long long)d->old_desc, (unsigned long long)d->new_desc);
	for (unsigned int i = 0; i < d->nr_frames; i++)
		fprintf(stderr, "    #%u %s\n", i, d->frames[i]);
}

int ptsim_set_diag_handler(struct ptsim_machine *m, ptsim_diag_handler handler, void *arg)
{
	VALIDATE(m);
	m->diag.handler = handler;
	m->diag.arg = arg;
	return 0;
}

int ptsim_diag_count(const struct ptsim_machine *m, enum ptsim_diag_kind kind, uint64_t *out)
{
	VALIDATE(m && out && (unsigned int)kind < PTSIM_DIAG__COUNT);
	*out = m->diag.count[kind];
	return 0;
}

#define FRAME_LEN 96

#if PTSIM_HAVE_LIBUNWIND
/*
 * unw_get_proc_name reads the ELF symbol tables on every call; diagnostics
 * from one code path repeat the same return addresses, so the names are
 * cached per thread by address (direct-mapped).
 */
#define NAME_CACHE 256
static _Thread_local struct {
	unw_word_t ip, off;
	char name[FRAME_LEN - 24];
} name_cache[NAME_CACHE];

static void proc_name(unw_cursor_t *cursor, char *name, size_t len, unw_word_t *off)
{
	unw_word_t ip = 0;
	unsigned int slot;

	if (unw_get_reg(cursor, UNW_REG_IP, &ip) == 0) {
		slot = (unsigned int)((ip >> 2) % NAME_CACHE);
		if (name_cache[slot].ip == ip && ip) {
			snprintf(name, len, "%s", name_cache[slot].name);
			*off = name_cache[slot].off;
			return;
		}
	}
	if (unw_get_proc_name(cursor, name, len, off))
		snprintf(name, len, "??");
	if (ip) {
		slot = (unsigned int)((ip >> 2) % NAME_CACHE);
		name_cache[slot].ip = ip;
		name_cache[slot].off = *off;
		snprintf(name_cache[slot].name, sizeof(name_cache[slot].name), "%s", name);
	}
}
#endif

/*
 * Fill frames with "function+0xoff" of the callers of diag_report. Always
 * inlined, so the context it takes is diag_report's own at every
 * optimisation level and the first frame is diag_report's caller.
 */
static inline __attribute__((always_inline)) unsigned int backtrace_frames(char buf[][FRAME_LEN], unsigned int max)
{
	unsigned int n = 0;
#if PTSIM_HAVE_LIBUNWIND
	unw_context_t ctx;
	unw_cursor_t cursor;

	if (unw_getcontext(&ctx) || unw_init_local(&cursor, &ctx))
		return 0;
	while (n < max && unw_step(&cursor) > 0) {
		unw_word_t off = 0;
		char name[FRAME_LEN - 24];

		proc_name(&cursor, name, sizeof(name), &off);
		snprintf(buf[n++], FRAME_LEN, "%s+0x%lx", name, (unsigned long)off);
	}
#else
	(void)buf;
	(void)max;
#endif
	return n;
}

void diag_report(struct ptsim_machine *m, enum ptsim_diag_kind kind, uint64_t va, int level,
		 uint64_t old_desc, uint64_t new_desc, const char *fmt, ...)
{
	char message[256];
	char frames[PTSIM_DIAG_MAX_FRAMES][FRAME_LEN];
	struct ptsim_diag d;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	memset(&d, 0, sizeof(d));
	d.kind = kind;
	d.message = message;
	d.va = va;
	d.level = level;
	d.old_desc = old_desc;
	d.new_desc = new_desc;
	d.nr_frames = backtrace_frames(frames, PTSIM_DIAG_MAX_FRAMES);
	for (unsigned int i = 0; i < d.nr_frames; i++)
		d.frames[i] = frames[i];
	m->diag.count[kind]++;
	if (m->diag.handler) {
		m->diag.in_handler++;
		m->diag.handler(&d, m->diag.arg);
		m->diag.in_handler--;
	} else
		default_handler(&d, NULL);
}
