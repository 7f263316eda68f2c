// SPDX-License-Identifier: MIT
/*
 * fuzz-smoke: replay every file of the seed corpus, then a fixed number of
 * pseudo-random inputs, through the fuzz harness. Prints "N passed, 0 failed"
 * (a failure aborts).
 */
#include "fuzz-one.h"
#include "prng.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t buf[65536];
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	return fuzz_one(buf, n);
}

int main(int argc, char **argv)
{
	unsigned long runs = argc > 2 ? strtoul(argv[2], NULL, 10) : 2000, done = 0;
	uint64_t seed = 0x2545f4914f6cdd1dULL;
	DIR *d;

	if (argc < 2) {
		fprintf(stderr, "usage: fuzz-smoke CORPUS_DIR [RANDOM_RUNS]\n");
		return 2;
	}
	d = opendir(argv[1]);
	if (!d) {
		perror(argv[1]);
		return 1;
	}
	for (struct dirent *e; (e = readdir(d));) {
		char path[4096];

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", argv[1], e->d_name);
		if (replay_file(path))
			return 1;
		done++;
	}
	closedir(d);
	/* FUZZ_ONLY=N runs just the N-th random input (to reproduce a failure) */
	const char *only = getenv("FUZZ_ONLY");

	if (getenv("FUZZ_SEED"))	/* another stream of inputs than CI's */
		seed = strtoull(getenv("FUZZ_SEED"), NULL, 0);
	for (unsigned long i = 0; i < runs; i++) {
		uint8_t buf[512];
		size_t n = 64 + i % (sizeof(buf) - 64);

		for (size_t k = 0; k < n; k++)
			buf[k] = (uint8_t)prng_next(&seed);
		if (only && strtoul(only, NULL, 10) != i)
			continue;
		fuzz_one(buf, n);
		done++;
	}
	printf("%lu passed, 0 failed\n", done);
	return 0;
}
