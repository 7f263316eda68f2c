// SPDX-License-Identifier: MIT
/* Simulated results shared by the processes of one test run (sim_cache.h). */
#include "sim_cache.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char magic[8] = "PTSIMSC1";

/* FNV-1a over this executable's bytes: 0 when it cannot be read. */
static uint64_t exe_hash(void)
{
	static uint64_t hash;
	static bool done;
	unsigned char block[65536];
	FILE *f;
	size_t n;

	if (done)
		return hash;
	done = true;
	f = fopen("/proc/self/exe", "rb");
	if (!f)
		return 0;
	hash = UINT64_C(0xcbf29ce484222325);
	while ((n = fread(block, 1, sizeof(block), f)) > 0)
		for (size_t i = 0; i < n; i++)
			hash = (hash ^ block[i]) * UINT64_C(0x100000001b3);
	if (ferror(f))
		hash = 0;
	fclose(f);
	return hash;
}

/* The file that keeps result name, or false when the cache is off. */
static bool cache_path(const char *name, char *path, size_t size)
{
	const char *dir = getenv("PTSIM_BENCH_SIM_CACHE");
	uint64_t h;
	int n;

	if (!dir || !*dir || !(h = exe_hash()))
		return false;
	n = snprintf(path, size, "%s/%s-%016" PRIx64 ".bin", dir, name, h);
	return n > 0 && (size_t)n < size;
}

bool sim_cache_load(const char *name, void *buf, size_t len)
{
	char path[4096], head[sizeof(magic)];
	uint64_t stored;
	bool ok;
	FILE *f;

	if (!cache_path(name, path, sizeof(path)) || !(f = fopen(path, "rb")))
		return false;
	ok = fread(head, 1, sizeof(head), f) == sizeof(head) && !memcmp(head, magic, sizeof(magic)) &&
	     fread(&stored, sizeof(stored), 1, f) == 1 && stored == len &&
	     fread(buf, 1, len, f) == len && fgetc(f) == EOF;
	fclose(f);
	return ok;
}

void sim_cache_store(const char *name, const void *buf, size_t len)
{
	char path[4096], tmp[4200];
	uint64_t stored = len;
	bool ok;
	FILE *f;

	if (!cache_path(name, path, sizeof(path)))
		return;
	mkdir(getenv("PTSIM_BENCH_SIM_CACHE"), 0777);	/* made by the first to keep something */
	snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid());
	f = fopen(tmp, "wb");
	if (!f)
		return;
	ok = fwrite(magic, 1, sizeof(magic), f) == sizeof(magic) &&
	     fwrite(&stored, sizeof(stored), 1, f) == 1 && fwrite(buf, 1, len, f) == len;
	ok = !fclose(f) && ok;
	/* the rename makes it whole at once for a process reading it beside this one */
	if (!ok || rename(tmp, path))
		remove(tmp);
}
