// SPDX-License-Identifier: MIT
#include "json_read.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct reader {
	const char *p, *start;
	char *err;
	size_t errlen;
};

static int json_fail(struct reader *r, const char *why)
{
	snprintf(r->err, r->errlen, "offset %zu: %s", (size_t)(r->p - r->start), why);
	return -1;
}

static void skip_space(struct reader *r)
{
	while (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')
		r->p++;
}

static int hex4(const char *p, unsigned int *out)
{
	*out = 0;
	for (int i = 0; i < 4; i++) {
		char c = p[i];
		unsigned int d = c >= '0' && c <= '9' ? (unsigned int)(c - '0') :
				 c >= 'a' && c <= 'f' ? (unsigned int)(c - 'a' + 10) :
				 c >= 'A' && c <= 'F' ? (unsigned int)(c - 'A' + 10) : 16;

		if (d == 16)
			return -1;
		*out = *out * 16 + d;
	}
	return 0;
}

/* A string at r->p (after its opening quote) into a new buffer. */
static int parse_string(struct reader *r, char **out)
{
	size_t cap = 32, len = 0;
	char *s = malloc(cap);

	if (!s)
		return json_fail(r, "out of memory");
	for (;;) {
		unsigned int c = (unsigned char)*r->p++;
		bool escaped = c == '\\';

		if (len + 4 >= cap) {
			char *n = realloc(s, cap *= 2);

			if (!n) {
				free(s);
				return json_fail(r, "out of memory");
			}
			s = n;
		}
		if (c == '"')
			break;
		if (c < 0x20) {
			free(s);
			r->p--;
			return json_fail(r, c ? "control character in a string" : "unterminated string");
		}
		if (c == '\\') {
			char e = *r->p++;

			switch (e) {
			case '"': case '\\': case '/': c = (unsigned int)e; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case 't': c = '\t'; break;
			case 'u':
				if (hex4(r->p, &c) || (c >= 0xd800 && c < 0xe000)) {
					free(s);
					return json_fail(r, "bad or surrogate \\u escape");
				}
				/* the strings are NUL-terminated: a NUL would cut one short */
				if (!c) {
					free(s);
					return json_fail(r, "\\u0000 in a string");
				}
				r->p += 4;
				break;
			default:
				free(s);
				return json_fail(r, "bad escape");
			}
		}
		/* a byte of the input passes as it is; a \u escape is written as UTF-8 */
		if (c < 0x80 || !escaped) {
			s[len++] = (char)c;
		} else if (c < 0x800) {
			s[len++] = (char)(0xc0 | c >> 6);
			s[len++] = (char)(0x80 | (c & 0x3f));
		} else {
			s[len++] = (char)(0xe0 | c >> 12);
			s[len++] = (char)(0x80 | ((c >> 6) & 0x3f));
			s[len++] = (char)(0x80 | (c & 0x3f));
		}
	}
	s[len] = 0;
	*out = s;
	return 0;
}

static int parse_value(struct reader *r, struct json *out, int depth);

/* The items of an array or object after its opening bracket, up to close. */
static int parse_items(struct reader *r, struct json *out, char close, int depth)
{
	size_t cap = 0;

	skip_space(r);
	if (*r->p == close) {
		r->p++;
		return 0;
	}
	for (;;) {
		char *key = NULL;

		if (out->n == cap) {
			size_t ncap = cap ? 2 * cap : 8;
			struct json *items = realloc(out->items, ncap * sizeof(*items));
			char **keys = close == '}' ? realloc(out->keys, ncap * sizeof(*keys)) : NULL;

			if (items)
				out->items = items;
			if (keys)
				out->keys = keys;
			if (!items || (close == '}' && !keys))
				return json_fail(r, "out of memory");
			cap = ncap;
		}
		skip_space(r);
		if (close == '}') {
			if (*r->p != '"')
				return json_fail(r, "expected a key");
			r->p++;
			if (parse_string(r, &key))
				return -1;
			skip_space(r);
			if (*r->p != ':') {
				free(key);
				return json_fail(r, "expected ':'");
			}
			r->p++;
			out->keys[out->n] = key;
		}
		memset(&out->items[out->n], 0, sizeof(out->items[0]));
		out->n++;
		if (parse_value(r, &out->items[out->n - 1], depth + 1))
			return -1;
		skip_space(r);
		if (*r->p == ',') {
			r->p++;
			continue;
		}
		if (*r->p != close)
			return json_fail(r, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
		r->p++;
		return 0;
	}
}

static int parse_value(struct reader *r, struct json *out, int depth)
{
	char *end;

	memset(out, 0, sizeof(*out));
	if (depth > 64)
		return json_fail(r, "nested too deep");
	skip_space(r);
	switch (*r->p) {
	case '{':
		r->p++;
		out->kind = JSON_OBJECT;
		return parse_items(r, out, '}', depth);
	case '[':
		r->p++;
		out->kind = JSON_ARRAY;
		return parse_items(r, out, ']', depth);
	case '"':
		r->p++;
		out->kind = JSON_STRING;
		return parse_string(r, &out->string);
	default:
		break;
	}
	if (!strncmp(r->p, "null", 4) || !strncmp(r->p, "true", 4) || !strncmp(r->p, "false", 5)) {
		out->kind = *r->p == 'n' ? JSON_NULL : JSON_BOOL;
		out->boolean = *r->p == 't';
		r->p += *r->p == 'f' ? 5 : 4;
		return 0;
	}
	if (*r->p != '-' && (*r->p < '0' || *r->p > '9'))
		return json_fail(r, "expected a value");
	out->kind = JSON_NUMBER;
	out->number = strtod(r->p, &end);
	/* a count or a seed: digits only, kept exactly (a double holds 53 bits) */
	if (strspn(r->p, "0123456789") == (size_t)(end - r->p)) {
		char *uend;

		errno = 0;
		out->u64 = strtoull(r->p, &uend, 10);
		out->exact = !errno && uend == end;
	}
	r->p = end;
	return 0;
}

int json_parse(const char *text, struct json *out, char *err, size_t errlen)
{
	struct reader r = { text, text, err, errlen };

	if (parse_value(&r, out, 0)) {
		json_free(out);
		return -1;
	}
	skip_space(&r);
	if (*r.p) {
		json_free(out);
		return json_fail(&r, "text after the value");
	}
	return 0;
}

void json_free(struct json *j)
{
	for (size_t i = 0; i < j->n; i++) {
		json_free(&j->items[i]);
		if (j->keys)
			free(j->keys[i]);
	}
	free(j->items);
	free(j->keys);
	free(j->string);
	memset(j, 0, sizeof(*j));
}

const struct json *json_get(const struct json *j, const char *key)
{
	if (!j || j->kind != JSON_OBJECT)
		return NULL;
	for (size_t i = 0; i < j->n; i++)
		if (!strcmp(j->keys[i], key))
			return &j->items[i];
	return NULL;
}
