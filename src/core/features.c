// SPDX-License-Identifier: MIT
/* Named kernel features and the presets that combine them (doc/architecture.md). */
#include "internal.h"

#include <string.h>

static const char *const feature_names[PTSIM_FEAT__COUNT] = {
	[PTSIM_FEAT_MPROTECT_PTE_BATCHING] = "mprotect_pte_batching",
	[PTSIM_FEAT_CONTPTE_GET_EARLY_EXIT] = "contpte_get_early_exit",
	[PTSIM_FEAT_CONTPTE_BBML2_ELISION] = "contpte_bbml2_elision",
	[PTSIM_FEAT_UFFD_MOVE_BATCHING] = "uffd_move_batching",
	[PTSIM_FEAT_LINEAR_MAP_BLOCKS] = "linear_map_blocks",
	[PTSIM_FEAT_EXEC_CONTPTE_ORDER] = "exec_contpte_order",
	[PTSIM_FEAT_EXEC_MMAP_MISS_BYPASS] = "exec_mmap_miss_bypass",
	[PTSIM_FEAT_ELF_CONTPTE_ALIGN] = "elf_contpte_align",
	[PTSIM_FEAT_UNMAPPED_AREA_CONTPTE] = "unmapped_area_contpte",
	[PTSIM_FEAT_MMAP_MISS_RA_HITS_ONLY] = "mmap_miss_ra_hits_only",
	[PTSIM_FEAT_UFFD_MOVE_ERR_RESET] = "uffd_move_err_reset",
};

const char *ptsim_feature_name(enum ptsim_feature feat)
{
	if ((unsigned int)feat >= PTSIM_FEAT__COUNT)
		return NULL;
	return feature_names[feat];
}

int ptsim_feature_lookup(const char *name, enum ptsim_feature *out)
{
	VALIDATE(name && out);
	for (unsigned int f = 0; f < PTSIM_FEAT__COUNT; f++) {
		if (!strcmp(name, feature_names[f])) {
			*out = (enum ptsim_feature)f;
			return 0;
		}
	}
	return -EINVAL;
}

/* "baseline": the kernel before every modelled series; "patched": all of them (v6.17+). */
int features_from_preset(const char *preset, bool features[PTSIM_FEAT__COUNT])
{
	bool on;

	if (!preset || !strcmp(preset, "baseline"))
		on = false;
	else if (!strcmp(preset, "patched"))
		on = true;
	else
		return -EINVAL;
	for (unsigned int f = 0; f < PTSIM_FEAT__COUNT; f++)
		features[f] = on && f != PTSIM_FEAT_UFFD_MOVE_ERR_RESET &&
			      f != PTSIM_FEAT_MMAP_MISS_RA_HITS_ONLY;
	return 0;
}

int ptsim_feature_preset(struct ptsim_machine *m, const char *preset)
{
	bool features[PTSIM_FEAT__COUNT];
	int err;

	VALIDATE(m);
	REFUSE_IN_HANDLER(m);
	err = features_from_preset(preset, features);
	if (err)
		return err;
	memcpy(m->features, features, sizeof(features));
	return 0;
}

int ptsim_feature_set(struct ptsim_machine *m, enum ptsim_feature feat, bool on)
{
	VALIDATE(m && (unsigned int)feat < PTSIM_FEAT__COUNT);
	REFUSE_IN_HANDLER(m);
	m->features[feat] = on;
	return 0;
}

int ptsim_feature_get(const struct ptsim_machine *m, enum ptsim_feature feat, bool *on)
{
	VALIDATE(m && on && (unsigned int)feat < PTSIM_FEAT__COUNT);
	*on = m->features[feat];
	return 0;
}
