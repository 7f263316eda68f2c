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

/* What ptsim-bench audit --json prints, for the JSON reader's inputs to start from. */
static const char audit_json[] =
	"{\"schema_version\": 1, \"ptsim_version\": \"0.3.0\", \"command\": \"audit\", "
	"\"scenarios\": 45, \"seed\": 2, \"shard\": [1, 2], \"groups\": [\n  {\"kind\": "
	"\"bbm_violation\", \"chain\": \"a <- b\", \"message\": \"m\\u00e9\", \"fires\": "
	"{\"apple-m3\": [\"v6.17\", \"v6.18\"]}, \"first_scenario\": 3, \"found_on\": "
	"{\"cpu\": \"apple-m3\", \"preset\": \"v6.17\"}, \"scenario\": \"mm A\\n\"}\n]}\n";

/* The scenario seeds (files starting with 0xff), kept to mutate. */
static uint8_t seeds[4][4096];
static size_t seed_len[4], nr_seeds;

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t buf[65536];
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	if (n && buf[0] == 0xff && n <= sizeof(seeds[0]) && nr_seeds < 4) {
		memcpy(seeds[nr_seeds], buf, n);
		seed_len[nr_seeds++] = n;
	}
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
		uint8_t buf[4096];
		size_t n = 64 + i % (512 - 64);

		if (i % 8 == 5) {
			/* a raw architectural sequence (fuzz_raw) */
			for (size_t k = 0; k < n; k++)
				buf[k] = (uint8_t)prng_next(&seed);
			buf[0] = 0xfe;
		} else if (i % 8 == 6) {
			/* an audit --json output with a few bytes changed (fuzz_json: merge's reader) */
			n = 1 + strlen(audit_json);
			buf[0] = 0xfd;
			memcpy(buf + 1, audit_json, n - 1);
			for (int k = (int)(prng_next(&seed) % 5); k; k--)
				buf[1 + prng_next(&seed) % (n - 1)] = (uint8_t)prng_next(&seed);
		} else if (nr_seeds && i % 4 == 3) {
			/* a scenario seed with a few bytes changed: the parser's errors and odd runs */
			size_t s = (size_t)(prng_next(&seed) % nr_seeds);

			n = seed_len[s];
			memcpy(buf, seeds[s], n);
			for (int k = 1 + (int)(prng_next(&seed) % 4); k; k--)
				buf[1 + prng_next(&seed) % (n - 1)] = (uint8_t)prng_next(&seed);
		} else {
			for (size_t k = 0; k < n; k++)
				buf[k] = (uint8_t)prng_next(&seed);
		}
		if (only && strtoul(only, NULL, 10) != i)
			continue;
		fuzz_one(buf, n);
		done++;
	}
	printf("%lu passed, 0 failed\n", done);
	return 0;
}
