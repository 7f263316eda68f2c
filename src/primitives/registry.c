// SPDX-License-Identifier: MIT
/* The registry of counted primitives (primitives.h): name, linkage, event, where. */
#include "primitives.h"

static const struct prim_info registry[PRIM__COUNT] = {
#define PRIM_INFO(id, kname, link, ev, wh) \
	[PRIM_##id] = { .name = kname, .linkage = link, .event = ev, .where = wh },
	PTSIM_PRIMITIVES(PRIM_INFO)
#undef PRIM_INFO
};

const struct prim_info *prim_info(enum prim p)
{
	return (unsigned int)p < PRIM__COUNT ? &registry[p] : NULL;
}
