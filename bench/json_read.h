/* SPDX-License-Identifier: MIT */
/*
 * A small reader of JSON text (RFC 8259) into a tree: enough for
 * `ptsim-bench merge` to read back what the commands print with --json.
 */
#ifndef PTSIM_BENCH_JSON_READ_H
#define PTSIM_BENCH_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum json_kind { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json {
	enum json_kind kind;
	bool boolean;
	double number;
	/* JSON_NUMBER written as digits only that fit in 64 bits: exact, that value in u64 */
	bool exact;
	uint64_t u64;
	char *string;		/* JSON_STRING: UTF-8, NUL-terminated */
	size_t n;		/* JSON_ARRAY, JSON_OBJECT: items */
	struct json *items;
	char **keys;		/* JSON_OBJECT: the items' keys */
};

/* Parse text into *out: 0, or -1 with the place and reason in err. */
int json_parse(const char *text, struct json *out, char *err, size_t errlen);
void json_free(struct json *j);
/* An object's member named key, NULL when absent (or j is NULL or no object). */
const struct json *json_get(const struct json *j, const char *key);

#endif
