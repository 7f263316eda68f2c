/* SPDX-License-Identifier: MIT */
/* A small open-addressing hash map from uint64_t keys to uint64_t values. */
#ifndef PTSIM_U64MAP_H
#define PTSIM_U64MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct u64map {
	uint64_t *keys;		/* key + 1; 0 marks an empty slot */
	uint64_t *vals;
	size_t cap;		/* power of two, or 0 */
	size_t len;
	uint64_t *charge;	/* NULL, or host bytes its tables are charged to as they grow and go */
};

void u64map_init(struct u64map *map);
void u64map_free(struct u64map *map);
/*
 * From now on the tables' growth is added to *host_bytes, and their bytes
 * taken off when freed (a machine's bookkeeping, never refused). What the
 * map holds already is not added: a new map holds nothing, and a copy's
 * bytes came with the copied machine's total.
 */
void u64map_charge_to(struct u64map *map, uint64_t *host_bytes);
/* A copy of src, charged to nothing (u64map_charge_to). */
int u64map_copy(struct u64map *dst, const struct u64map *src);
bool u64map_get(const struct u64map *map, uint64_t key, uint64_t *val);
int u64map_put(struct u64map *map, uint64_t key, uint64_t val);
/* Insert or overwrite; *existed tells which. */
int u64map_set(struct u64map *map, uint64_t key, uint64_t val, bool *existed);
bool u64map_del(struct u64map *map, uint64_t key);
/* Remove key, returning its value; false when absent. */
bool u64map_take(struct u64map *map, uint64_t key, uint64_t *val);

#endif
