// SPDX-License-Identifier: MIT
#include "u64map.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static size_t slot_of(uint64_t key, size_t cap)
{
	/* splitmix64 finaliser: PFNs are dense, so spread them */
	key += UINT64_C(0x9e3779b97f4a7c15);
	key = (key ^ (key >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	key = (key ^ (key >> 27)) * UINT64_C(0x94d049bb133111eb);
	key ^= key >> 31;
	return (size_t)key & (cap - 1);
}

void u64map_init(struct u64map *map)
{
	memset(map, 0, sizeof(*map));
}

void u64map_charge_to(struct u64map *map, uint64_t *host_bytes)
{
	map->charge = host_bytes;
}

void u64map_free(struct u64map *map)
{
	if (map->charge)
		*map->charge -= (uint64_t)map->cap * 2 * sizeof(uint64_t);
	free(map->keys);
	free(map->vals);
	u64map_init(map);
}

int u64map_copy(struct u64map *dst, const struct u64map *src)
{
	u64map_init(dst);
	if (!src->cap)
		return 0;
	dst->keys = malloc(src->cap * sizeof(uint64_t));
	dst->vals = malloc(src->cap * sizeof(uint64_t));
	if (!dst->keys || !dst->vals) {
		u64map_free(dst);
		return -ENOMEM;
	}
	memcpy(dst->keys, src->keys, src->cap * sizeof(uint64_t));
	memcpy(dst->vals, src->vals, src->cap * sizeof(uint64_t));
	dst->cap = src->cap;
	dst->len = src->len;
	return 0;
}

bool u64map_get(const struct u64map *map, uint64_t key, uint64_t *val)
{
	if (!map->cap)
		return false;
	for (size_t i = slot_of(key, map->cap);; i = (i + 1) & (map->cap - 1)) {
		if (!map->keys[i])
			return false;
		if (map->keys[i] == key + 1) {
			if (val)
				*val = map->vals[i];
			return true;
		}
	}
}

static int grow(struct u64map *map)
{
	struct u64map bigger;
	size_t cap = map->cap ? map->cap * 2 : 64;

	bigger.keys = calloc(cap, sizeof(uint64_t));
	bigger.vals = calloc(cap, sizeof(uint64_t));
	if (!bigger.keys || !bigger.vals) {
		free(bigger.keys);
		free(bigger.vals);
		return -ENOMEM;
	}
	bigger.cap = cap;
	bigger.len = 0;
	bigger.charge = NULL;	/* the entries move uncharged; the growth is charged below */
	for (size_t i = 0; i < map->cap; i++)
		if (map->keys[i])
			u64map_put(&bigger, map->keys[i] - 1, map->vals[i]);
	free(map->keys);
	free(map->vals);
	if (map->charge)
		*map->charge += (uint64_t)(cap - map->cap) * 2 * sizeof(uint64_t);
	bigger.charge = map->charge;
	*map = bigger;
	return 0;
}

int u64map_put(struct u64map *map, uint64_t key, uint64_t val)
{
	bool existed;

	return u64map_set(map, key, val, &existed);
}

int u64map_set(struct u64map *map, uint64_t key, uint64_t val, bool *existed)
{
	/*
	 * An existing key is updated in place, never by growing the table: a
	 * caller may update the entries of the map while it walks its slots.
	 */
	for (size_t i = map->cap ? slot_of(key, map->cap) : 0; map->cap && map->keys[i];
	     i = (i + 1) & (map->cap - 1)) {
		if (map->keys[i] == key + 1) {
			map->vals[i] = val;
			*existed = true;
			return 0;
		}
	}
	if ((map->len + 1) * 4 > map->cap * 3) {
		int err = grow(map);

		if (err)
			return err;
	}
	for (size_t i = slot_of(key, map->cap);; i = (i + 1) & (map->cap - 1)) {
		if (!map->keys[i]) {
			map->keys[i] = key + 1;
			map->vals[i] = val;
			map->len++;
			*existed = false;
			return 0;
		}
		if (map->keys[i] == key + 1) {
			map->vals[i] = val;
			*existed = true;
			return 0;
		}
	}
}

bool u64map_del(struct u64map *map, uint64_t key)
{
	return u64map_take(map, key, NULL);
}

bool u64map_take(struct u64map *map, uint64_t key, uint64_t *val)
{
	size_t mask = map->cap - 1, i, j;

	if (!map->cap)
		return false;
	for (i = slot_of(key, map->cap);; i = (i + 1) & mask) {
		if (!map->keys[i])
			return false;
		if (map->keys[i] == key + 1)
			break;
	}
	if (val)
		*val = map->vals[i];
	/* backward-shift deletion keeps probe chains intact without tombstones */
	for (j = (i + 1) & mask; map->keys[j]; j = (j + 1) & mask) {
		size_t home = slot_of(map->keys[j] - 1, map->cap);
		bool movable = (j > i) ? (home <= i || home > j) : (home <= i && home > j);

		if (movable) {
			map->keys[i] = map->keys[j];
			map->vals[i] = map->vals[j];
			i = j;
		}
	}
	map->keys[i] = 0;
	map->len--;
	return true;
}
