// SPDX-License-Identifier: MIT
/*
 * A machine's features switched (ptsim_feature_preset, ptsim_feature_set):
 * the registry is core's (src/core/features.c); whether contpte may go off
 * depends on what the address spaces map, which only this top layer may ask.
 */
#include "internal.h"
#include "pcp.h"

#include <string.h>

/*
 * A kernel built without contpte never sees a contiguous user entry: it is
 * not switched off under one (its plain helpers would change one entry of a
 * block and leave the block malformed).
 */
static int may_set_contpte(const struct ptsim_machine *m, bool on)
{
	if (m->features[PTSIM_FEAT_ARM64_CONTPTE] && !on && machine_maps_user_cont(m))
		return -EBUSY;
	return 0;
}

int ptsim_feature_preset(struct ptsim_machine *m, const char *preset)
{
	bool features[PTSIM_FEAT__COUNT];
	int err;

	VALIDATE(m);
	REFUSE_IN_HANDLER(m);
	err = features_from_preset(preset, features);
	if (!err)
		err = may_set_contpte(m, features[PTSIM_FEAT_ARM64_CONTPTE]);
	if (err)
		return err;
	memcpy(m->features, features, sizeof(features));
	zone_set_pageset_high_and_batch(m);
	return 0;
}

int ptsim_feature_set(struct ptsim_machine *m, enum ptsim_feature feat, bool on)
{
	int err;

	VALIDATE(m && (unsigned int)feat < PTSIM_FEAT__COUNT);
	REFUSE_IN_HANDLER(m);
	if (feat == PTSIM_FEAT_ARM64_CONTPTE) {
		err = may_set_contpte(m, on);
		if (err)
			return err;
	}
	m->features[feat] = on;
	zone_set_pageset_high_and_batch(m);
	return 0;
}
