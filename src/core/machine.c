// SPDX-License-Identifier: MIT
/*
 * The machine's machinery: its address spaces' list, its counts, the host
 * memory it is charged, the undo log. Building, copying and freeing a whole
 * machine is src/machine/machine.c's, above the layers it composes.
 */
#include "internal.h"
#include "host_array.h"

#include <stdlib.h>
#include <string.h>

int machine_add_mm(struct ptsim_machine *m, struct ptsim_mm *mm)
{
	if (m->nr_mms == m->cap_mms) {
		size_t cap = m->cap_mms ? m->cap_mms * 2 : 4;
		struct ptsim_mm **n = realloc(m->mms, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		m->mms = n;
		m->cap_mms = cap;
	}
	m->mms[m->nr_mms++] = mm;
	return 0;
}

void machine_remove_mm(struct ptsim_machine *m, struct ptsim_mm *mm)
{
	for (size_t i = 0; i < m->nr_mms; i++) {
		if (m->mms[i] == mm) {
			memmove(&m->mms[i], &m->mms[i + 1], (m->nr_mms - i - 1) * sizeof(*m->mms));
			m->nr_mms--;
			return;
		}
	}
}

int ptsim_machine_geometry(const struct ptsim_machine *m, struct ptsim_geometry *out)
{
	VALIDATE(m && out);
	*out = m->geo;
	return 0;
}

/* Call fn(m, e) for every event the operation counted. */
static void for_each_touched(struct ptsim_machine *m,
			     void (*fn)(struct ptsim_machine *m, unsigned int e))
{
	for (unsigned int w = 0; w < OP_TOUCHED_WORDS; w++)
		for (uint64_t t = m->op_touched[w]; t; t &= t - 1)
			fn(m, w * 64 + (unsigned int)__builtin_ctzll(t));
}

/* Each count of e (in the op, and in each function it counted for) set e's touched bit. */
static void zero_event(struct ptsim_machine *m, unsigned int e)
{
	m->op.ev[e] = 0;
	for (uint32_t t = m->fn_touched; t; t &= t - 1)
		m->fn_op[__builtin_ctz(t)].ev[e] = 0;
}

static void total_event(struct ptsim_machine *m, unsigned int e)
{
	m->total.ev[e] += m->op.ev[e];
	for (uint32_t t = m->fn_touched; t; t &= t - 1)
		m->fn_total[__builtin_ctz(t)].ev[e] += m->fn_op[__builtin_ctz(t)].ev[e];
}

/*
 * A public call's bookkeeping touches only the events it counted (a handful):
 * zeroing and summing whole stats blocks was most of the time of a small call.
 */
/* The loop iterations the operation counted: zeroed, or added to the totals. */
static void loops_zero(struct ptsim_machine *m)
{
	for (unsigned int w = 0; w < 2; w++) {
		for (uint64_t t = m->loop_touched[w]; t; t &= t - 1)
			m->loop_op.iter[w * 64 + (unsigned int)__builtin_ctzll(t)] = 0;
		m->loop_touched[w] = 0;
	}
}

static void loops_total(struct ptsim_machine *m)
{
	for (unsigned int w = 0; w < 2; w++) {
		for (uint64_t t = m->loop_touched[w]; t; t &= t - 1) {
			unsigned int loop = w * 64 + (unsigned int)__builtin_ctzll(t);

			m->loop_total.iter[loop] += m->loop_op.iter[loop];
		}
	}
}

void op_begin(struct ptsim_machine *m)
{
	if (m->op_depth++)
		return;
	if (m->op_begin_hook)
		m->op_begin_hook(m);
	for_each_touched(m, zero_event);
	loops_zero(m);
	memset(m->op_touched, 0, sizeof(m->op_touched));
	m->fn_touched = 0;
	m->op_partial = false;
}

void op_end(struct ptsim_machine *m, int err)
{
	/* a failed operation leaves the model, totals included, as it was (or kept its part) */
	if (--m->op_depth || (err && !m->op_partial))
		return;
	for_each_touched(m, total_event);
	loops_total(m);
}

void op_end_uncounted(struct ptsim_machine *m)
{
	if (--m->op_depth)
		return;
	/* the invariant checker's balance of table pages still holds without them */
	m->uncounted_table_frees += m->op.ev[PTSIM_EV_TABLE_FREE];
	for_each_touched(m, zero_event);
	loops_zero(m);
	memset(m->op_touched, 0, sizeof(m->op_touched));
	m->fn_touched = 0;
	m->op_partial = false;
}

int ptsim_last_func_stats(const struct ptsim_machine *m, enum ptsim_func fn, struct ptsim_stats *out)
{
	VALIDATE(m && out && (unsigned int)fn < PTSIM_FN__COUNT);
	*out = m->fn_op[fn];
	return 0;
}

int ptsim_total_func_stats(const struct ptsim_machine *m, enum ptsim_func fn, struct ptsim_stats *out)
{
	VALIDATE(m && out && (unsigned int)fn < PTSIM_FN__COUNT);
	*out = m->fn_total[fn];
	return 0;
}

int ptsim_last_stats(const struct ptsim_machine *m, struct ptsim_stats *out)
{
	VALIDATE(m && out);
	*out = m->op;
	return 0;
}

int ptsim_total_stats(const struct ptsim_machine *m, struct ptsim_stats *out)
{
	VALIDATE(m && out);
	*out = m->total;
	return 0;
}

int ptsim_last_loop_stats(const struct ptsim_machine *m, struct ptsim_loop_stats *out)
{
	VALIDATE(m && out);
	*out = m->loop_op;
	return 0;
}

int ptsim_total_loop_stats(const struct ptsim_machine *m, struct ptsim_loop_stats *out)
{
	VALIDATE(m && out);
	*out = m->loop_total;
	return 0;
}

int ptsim_fail_nth_alloc(struct ptsim_machine *m, uint64_t n)
{
	VALIDATE(m);
	REFUSE_IN_HANDLER(m);
	m->fail_at = n ? m->alloc_count + n : 0;
	return 0;
}

int ptsim_alloc_count(const struct ptsim_machine *m, uint64_t *out)
{
	VALIDATE(m && out);
	*out = m->alloc_count;
	return 0;
}

int ptsim_phys_free_bytes(const struct ptsim_machine *m, uint64_t *out)
{
	VALIDATE(m && out);
	/* the buddy's free pages and those on this CPU's per-CPU lists */
	*out = (m->phys.nr_free + (uint64_t)m->phys.pcp.count) << m->geo.page_shift;
	return 0;
}

int host_charge(struct ptsim_machine *m, uint64_t bytes)
{
	if (bytes > host_room(m))
		return -ENOMEM;
	m->host_bytes += bytes;
	return 0;
}

void host_uncharge(struct ptsim_machine *m, uint64_t bytes)
{
	m->host_bytes -= bytes;
}

int ptsim_machine_host_bytes(const struct ptsim_machine *m, uint64_t *out)
{
	VALIDATE(m && out);
	*out = m->host_bytes;
	return 0;
}

bool alloc_should_fail(struct ptsim_machine *m)
{
	m->alloc_count++;
	if (m->fail_at && m->alloc_count == m->fail_at) {
		m->fail_at = 0;
		return true;
	}
	return false;
}

/*
 * The undo log rests at UNDO_KEEP entries, allocated with the machine and
 * charged as part of it; an operation that records more (a populate records
 * one entry per folio) grows it under the host-memory limit, and it shrinks
 * back when the operation commits or rolls back, so its peak is not kept.
 */
#define UNDO_KEEP 64

int undo_init(struct ptsim_machine *m)
{
	m->undo = host_array_alloc(UNDO_KEEP * sizeof(*m->undo));
	if (!m->undo)
		return -ENOMEM;
	m->undo_cap = UNDO_KEEP;
	m->host_bytes += UNDO_KEEP * sizeof(*m->undo);
	return 0;
}

void undo_shrink(struct ptsim_machine *m)
{
	struct undo_entry *n;

	if (m->undo_cap <= UNDO_KEEP)
		return;
	n = host_array_resize(m->undo, m->undo_cap * sizeof(*n), UNDO_KEEP * sizeof(*n));
	if (!n)
		return;	/* kept, and still charged */
	host_uncharge(m, (m->undo_cap - UNDO_KEEP) * sizeof(*n));
	m->undo = n;
	m->undo_cap = UNDO_KEEP;
}

void undo_start(struct ptsim_machine *m)
{
	m->undo_len = 0;
	m->undo_active = true;
}

/* The log grown to cap entries, the growth charged under the host-memory limit. */
static int undo_grow(struct ptsim_machine *m, size_t cap)
{
	const size_t more = (cap - m->undo_cap) * sizeof(*m->undo);
	struct undo_entry *n;

	if (host_charge(m, more))
		return -ENOMEM;
	n = host_array_resize(m->undo, m->undo_cap * sizeof(*n), cap * sizeof(*n));
	if (!n) {
		host_uncharge(m, more);
		return -ENOMEM;
	}
	m->undo = n;
	m->undo_cap = cap;
	return 0;
}

int undo_reserve(struct ptsim_machine *m, size_t n)
{
	return n <= m->undo_cap ? 0 : undo_grow(m, n);
}

int undo_record(struct ptsim_machine *m, const struct undo_entry *e)
{
	if (!m->undo_active)
		return 0;
	if (m->undo_len == m->undo_cap && undo_grow(m, m->undo_cap * 2))
		return -ENOMEM;
	m->undo[m->undo_len++] = *e;
	return 0;
}

void undo_commit(struct ptsim_machine *m)
{
	m->undo_len = 0;
	m->undo_active = false;
	undo_shrink(m);
}
