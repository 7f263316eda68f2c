// SPDX-License-Identifier: MIT
/* Scenario files: the parser, the runner and the printer (doc/scenario.md). */
#include "scenario.h"
#include "prng.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- the operations and their arguments ---- */

/*
 * Positional arguments: 'n' a name (mm, kernel, file), 'c' a name created by
 * the operation, 'e' a number, 'p' a protection, 'a' an access kind, 'v'
 * madvise advice, 'o' on/off, 's' a set_memory op, 't' text. Keys: "key="
 * takes a number into the next argument slot, "key" alone sets a flag bit.
 */
#define SCN_MAX_KEYS 10

struct op_spec {
	const char *name;
	enum scn_kind kind;
	const char *pos;
	const char *keys[SCN_MAX_KEYS];	/* "order=" (number) or "read" (flag bit i) */
};

static const struct op_spec specs[] = {
	{ "feature", S_FEATURE, "to", { 0 } },
	{ "thp", S_THP, "", { 0 } },	/* sizes follow, or "none" */
	{ "mm", S_MM, "c", { 0 } },
	{ "threads", S_THREADS, "ne", { 0 } },
	{ "mmap", S_MMAP, "neep", { "shared" } },
	{ "populate", S_POPULATE, "nee", { "order=", "read" } },
	{ "split", S_SPLIT, "nee", { 0 } },
	{ "access", S_ACCESS, "nea", { "cpu=" } },
	{ "touch", S_TOUCH, "neea", { "cpu=", "zero" } },
	{ "fault", S_FAULT, "nea", { 0 } },
	{ "mprotect", S_MPROTECT, "neep", { 0 } },
	{ "numa", S_NUMA, "nee", { 0 } },
	{ "fork", S_FORK, "nc", { 0 } },
	{ "exit", S_EXIT, "n", { 0 } },
	{ "destroy", S_DESTROY, "n", { 0 } },
	{ "munmap", S_MUNMAP, "nee", { 0 } },
	{ "mremap", S_MREMAP, "neee", { "fixed=", "maymove", "dontunmap" } },
	{ "madvise", S_MADVISE, "neev", { 0 } },
	{ "mlock", S_MLOCK, "nee", { 0 } },
	{ "munlock", S_MUNLOCK, "nee", { 0 } },
	{ "uffd-register", S_UFFD_REGISTER, "nee", { 0 } },
	{ "uffd-move", S_UFFD_MOVE, "neee", { "mode=" } },
	{ "pin", S_PIN, "neo", { 0 } },
	{ "swapout", S_SWAPOUT, "nee", { 0 } },
	{ "file", S_FILE, "c", { "size=", "order=" } },
	{ "mmap-file", S_MMAP_FILE, "neepn", { "pgoff=" } },
	{ "aslr", S_ASLR, "ne", { 0 } },
	{ "elf-load", S_ELF_LOAD, "nneee", { 0 } },
	{ "exec-call", S_EXEC_CALL, "ne", { "cpu=" } },
	{ "exec-random", S_EXEC_RANDOM, "nee", { "count=", "seed=" } },
	{ "kernel", S_KBOOT, "c", { "ranges=", "kernel=", "kfence=", "rodata=", "debug-pagealloc",
				    "secondary-lacks-bbml2" } },
	{ "kernel-finalize", S_KFINALIZE, "n", { 0 } },
	{ "set-memory", S_SET_MEMORY, "nees", { "guarded" } },
	{ "kernel-split", S_KSPLIT, "nee", { 0 } },
	{ "checkpoint", S_CHECKPOINT, "t", { 0 } },
	{ "repeat", S_REPEAT, "e", { 0 } },	/* optional loop variable follows */
	{ "end", S_END, "", { 0 } },
	{ "ptdump", S_PTDUMP, "n", { 0 } },
	{ "check", S_CHECK, "", { 0 } },
	{ "pin-user-pages", S_PIN_USER_PAGES, "nee", { "write", "longterm" } },
	{ "get-user-pages", S_GET_USER_PAGES, "nee", { "write" } },
	{ "pagemap", S_PAGEMAP, "ne", { "len=" } },
	{ "vmas", S_VMAS, "n", { 0 } },
	{ "raw-mm", S_RAW_MM, "c", { 0 } },
	{ "raw-table", S_RAW_TABLE, "nee", { "nolink" } },
	{ "raw-write", S_RAW_WRITE, "nee", { "page=", "cpu=", "block=", "table", "ng", "cont", "ro",
					     "noaf", "same" } },
	{ "raw-barrier", S_RAW_BARRIER, "b", { "cpu=" } },
	{ "raw-tlbi", S_RAW_TLBI, "Tn", { "va=", "pages=", "ttl=", "cpu=", "local" } },
	{ "expect", S_EXPECT, "", { 0 } },	/* what follows: one of expect_specs */
};

/*
 * expect WHAT ...: the checks a scenario makes of itself. The diagnostic
 * counts are the run's totals so far. Each applies only where its bbm= and
 * noabort/abort keys match the machine (none: everywhere).
 */
enum expect_what { X_VIOLATIONS, X_CONFLICT_RISKS, X_CONFLICTS, X_INVARIANTS, X_PA, X_ENTRIES,
		   X_FAULT };
static const struct op_spec expect_specs[] = {
	[X_VIOLATIONS] = { "violations", S_EXPECT, "e", { "cpu=", "bbm=", "noabort", "abort" } },
	[X_CONFLICT_RISKS] = { "conflict-risks", S_EXPECT, "e", { "cpu=", "bbm=", "noabort", "abort" } },
	[X_CONFLICTS] = { "conflicts", S_EXPECT, "e", { "cpu=", "bbm=", "noabort", "abort" } },
	[X_INVARIANTS] = { "invariants", S_EXPECT, "e", { "cpu=", "bbm=", "noabort", "abort" } },
	[X_PA] = { "pa", S_EXPECT, "nee", { "cpu=", "bbm=", "noabort", "abort" } },
	[X_ENTRIES] = { "entries", S_EXPECT, "nee", { "cpu=", "bbm=", "noabort", "abort" } },
	[X_FAULT] = { "fault", S_EXPECT, "neaf", { "cpu=", "bbm=", "noabort", "abort" } },
};
#define NR_EXPECT (sizeof(expect_specs) / sizeof(expect_specs[0]))

static const char *const barriers[] = { "dsb-sy", "dsb-ish", "dsb-ishst", "dsb-nsh", "isb" };
/* in enum ptsim_raw_tlbi_kind's order */
static const char *const tlbis[] = { "vae1", "vale1", "vaae1", "vaale1", "rvae1", "rvale1",
				     "rvaae1", "rvaale1", "aside1", "vmalle1" };
/* in enum ptsim_fault_kind's order */
static const char *const faults[] = { "none", "translation", "access-flag", "permission",
				      "conflict" };

const char *scenario_op_name(enum scn_kind kind)
{
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
		if (specs[i].kind == kind)
			return specs[i].name;
	return "?";
}

static const char *const prots[] = { "none", "r", "w", "rw", "x", "rx", "wx", "rwx" };
static const char *const kinds[] = { "read", "write", "exec" };
static const struct {
	const char *name;
	int advice;
} advices[] = {
	{ "normal", PTSIM_MADV_NORMAL }, { "random", PTSIM_MADV_RANDOM },
	{ "sequential", PTSIM_MADV_SEQUENTIAL }, { "hugepage", PTSIM_MADV_HUGEPAGE },
	{ "nohugepage", PTSIM_MADV_NOHUGEPAGE }, { "dontfork", PTSIM_MADV_DONTFORK },
	{ "dofork", PTSIM_MADV_DOFORK }, { "wipeonfork", PTSIM_MADV_WIPEONFORK },
	{ "keeponfork", PTSIM_MADV_KEEPONFORK }, { "dontneed", PTSIM_MADV_DONTNEED },
	{ "free", PTSIM_MADV_FREE }, { "cold", PTSIM_MADV_COLD },
	{ "pageout", PTSIM_MADV_PAGEOUT },
};
static const char *const setmem[] = { "ro", "rw", "nx", "x", "valid", "invalid" };
static const char *const rodata[] = { "on", "noalias", "off" };

/* ---- parsing ---- */

struct parser {
	const char *file;
	unsigned int line;
	char *err;
	size_t errlen;
	struct scenario *s;
};

const char *feature_name_at(unsigned int i)
{
	return i < PTSIM_FEAT__COUNT ? ptsim_feature_name((enum ptsim_feature)i) : NULL;
}

/*
 * The names name(0), name(1), ... up to the first NULL, comma-separated,
 * into buf: the first line goes on from column col, each line ends before
 * column 80 and the next begins with indent spaces.
 */
void names_wrapped(char *buf, size_t len, const char *(*name)(unsigned int), size_t col,
			  size_t indent)
{
	size_t at = 0;

	buf[0] = 0;
	for (unsigned int i = 0; name(i) && at < len; i++) {
		size_t n = strlen(name(i)) + (name(i + 1) ? 1 : 0);	/* the comma after it */
		int w;

		if (i && col + 1 + n > 80) {
			w = snprintf(buf + at, len - at, "\n%*s", (int)indent, "");
			col = indent;
		} else {
			w = snprintf(buf + at, len - at, "%s", i ? " " : "");
			col += i ? 1 : 0;
		}
		if (w < 0 || (size_t)w >= len - at)
			break;
		at += (size_t)w;
		w = snprintf(buf + at, len - at, "%s%s", name(i), name(i + 1) ? "," : "");
		if (w < 0 || (size_t)w >= len - at)
			break;
		at += (size_t)w;
		col += n;
	}
}

void valid_features_text(char *buf, size_t len, size_t col, size_t indent)
{
	names_wrapped(buf, len, feature_name_at, col, indent);
}

static int fail(struct parser *p, unsigned int col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct parser *p, unsigned int col, const char *fmt, ...)
{
	char msg[SCN_ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(p->err, p->errlen, "%s:%u:%u: error: %s", p->file, p->line, col, msg);
	return -EINVAL;
}

/* A number: decimal or 0x hex, with an optional binary size suffix K, M, G or T. */
static bool parse_number(const char *t, size_t n, uint64_t *out)
{
	uint64_t v = 0, mul = 1;
	int base = 10;
	size_t i = 0;

	if (n >= 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (n > i && base == 10 && strchr("KMGT", t[n - 1])) {
		mul = UINT64_C(1) << (10 * (strchr("KMGT", t[n - 1]) - "KMGT" + 1));
		n--;
	}
	if (i >= n)
		return false;
	for (; i < n; i++) {
		int d = isdigit((unsigned char)t[i]) ? t[i] - '0' :
			base == 16 && isxdigit((unsigned char)t[i]) ? tolower((unsigned char)t[i]) - 'a' + 10 : -1;

		if (d < 0 || v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return false;
		v = v * (uint64_t)base + (uint64_t)d;
	}
	if (mul > 1 && v > UINT64_MAX / mul)
		return false;
	*out = v * mul;
	return true;
}

/*
 * expr := product ('+' product)*; product := factor ('*' factor)* ['/' factor],
 * at most one variable and one size among the factors before the '/'.
 */
static int parse_factor(struct parser *p, const char *t, size_t n, unsigned int col,
			enum scn_factor *sym, uint64_t *num)
{
	static const struct {
		const char *name;
		enum scn_factor f;
	} syms[] = { { "$i", F_VAR_I }, { "$j", F_VAR_J }, { "$k", F_VAR_K }, { "PAGE", F_PAGE },
		     { "PMD", F_PMD }, { "CONT", F_CONT }, { "$bias", F_BIAS },
		     { "$n", F_VAR_N } };

	*sym = F_ONE;
	*num = 1;
	for (size_t s = 0; s < sizeof(syms) / sizeof(syms[0]); s++)
		if (strlen(syms[s].name) == n && !strncmp(t, syms[s].name, n)) {
			*sym = syms[s].f;
			return 0;
		}
	if (!parse_number(t, n, num))
		return fail(p, col, "expected a number, a size (64K, 2M, 1G), PAGE, PMD, "
			    "CONT, $bias, $n or $i/$j/$k");
	return 0;
}

static bool is_size(enum scn_factor f)
{
	return f >= F_PAGE && f <= F_CONT;
}

static int parse_expr(struct parser *p, const char *t, size_t n, unsigned int col, struct scn_expr *e)
{
	uint64_t constant = 0;
	size_t i = 0;

	memset(e, 0, sizeof(*e));
	while (i < n) {
		uint64_t k = 1, dk = 0;
		enum scn_factor f = F_ONE, g = F_ONE, dv = F_ONE;
		size_t start = i;
		bool divide = false;
		int err;

		if (e->nr == SCN_MAX_TERMS)
			return fail(p, col + (unsigned int)i, "too many terms (at most %d)", SCN_MAX_TERMS);
		for (;;) {
			size_t j = i;
			enum scn_factor sym;
			uint64_t v;

			while (j < n && t[j] != '+' && t[j] != '*' && t[j] != '/')
				j++;
			if ((err = parse_factor(p, t + i, j - i, col + (unsigned int)i, &sym, &v)))
				return err;
			if (divide) {
				if (sym == F_ONE && !v)
					return fail(p, col + (unsigned int)i, "division by zero");
				dk = v;
				dv = sym;
			} else if (sym != F_ONE) {
				enum scn_factor *slot = is_size(sym) ? &g : &f;

				if (*slot != F_ONE)
					return fail(p, col + (unsigned int)i,
						    "one variable and one size per product");
				*slot = sym;
			} else {
				if (v && k > UINT64_MAX / v)
					return fail(p, col + (unsigned int)i, "number too large");
				k *= v;
			}
			i = j;
			if (i < n && t[i] == '/') {
				if (divide)
					return fail(p, col + (unsigned int)i, "one '/' per product");
				divide = true;
				i++;
				continue;
			}
			if (i < n && t[i] == '*') {
				if (divide)
					return fail(p, col + (unsigned int)i,
						    "the divisor ends the product: write A*B/C");
				i++;
				continue;
			}
			break;
		}
		/* a sum of constants that wraps is as wrong as a product that does */
		if (f == F_ONE && g == F_ONE && !divide && __builtin_add_overflow(constant, k, &constant))
			return fail(p, col + (unsigned int)start, "number too large");
		e->t[e->nr].k = k;
		e->t[e->nr].g = g;
		e->t[e->nr].dk = dk;
		e->t[e->nr].dv = dv;
		e->t[e->nr++].f = f;
		if (i < n && t[i] == '+')
			i++;
		if (i == n && t[n - 1] == '+')
			return fail(p, col + (unsigned int)n, "expected a term after '+'");
	}
	if (!e->nr)
		return fail(p, col, "expected a number");
	return 0;
}

static int keyword(const char *t, size_t n, const char *const *list, size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (strlen(list[i]) == n && !strncmp(t, list[i], n))
			return (int)i;
	return -1;
}

int scenario_name(struct scenario *s, const char *name)
{
	for (unsigned int i = 0; i < s->nr_names; i++)
		if (!strcmp(s->names[i], name))
			return (int)i;
	if (s->nr_names == SCN_MAX_NAMES || strlen(name) >= sizeof(s->names[0]))
		return -1;
	strcpy(s->names[s->nr_names], name);
	return (int)s->nr_names++;
}

static int find_name(const struct scenario *s, const char *name)
{
	for (unsigned int i = 0; i < s->nr_names; i++)
		if (!strcmp(s->names[i], name))
			return (int)i;
	return -1;
}

int scenario_add(struct scenario *s, const struct scn_op *op)
{
	if (s->nr == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 32;
		struct scn_op *n = realloc(s->ops, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		s->ops = n;
		s->cap = cap;
	}
	s->ops[s->nr++] = *op;
	return 0;
}

/* The names ptsim_cpu_name (cpus) or ptsim_preset_name (presets) gives, comma-separated. */
static const char *valid_names(char *buf, size_t len, bool presets)
{
	size_t at = 0;

	buf[0] = 0;
	for (unsigned int i = 0; at < len; i++) {
		const char *name = presets ? ptsim_preset_name(i) :
			i < PTSIM_CPU__COUNT ? ptsim_cpu_name((enum ptsim_cpu)i) : NULL;

		if (!name)
			break;
		at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? ", " : "", name);
	}
	return buf;
}

/* What a machine key takes, for the message that refuses a value. */
static const char *machine_key_values(const char *key, size_t klen)
{
	static const struct { const char *key, *values; } keys[] = {
		{ "granule", "4K, 16K or 64K" }, { "va", "at most 64" },
		{ "cpus", "1 to 256" }, { "bbm", "0, 1 or 2" },
	};

	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		if (klen == strlen(keys[k].key) && !strncmp(key, keys[k].key, klen))
			return keys[k].values;
	return "a number";
}

/* An operation's positional arguments as doc/scenario.md writes them: "feature NAME on|off". */
static const char *op_usage(const struct op_spec *sp, char *buf, size_t len)
{
	static const struct { char pos; const char *word; } words[] = {
		{ 'n', "NAME" }, { 'c', "NAME" }, { 't', "NAME" }, { 'e', "NUMBER" },
		{ 'p', "PROT" }, { 'a', "KIND" }, { 'v', "ADVICE" }, { 'o', "on|off" },
		{ 's', "OP" }, { 'b', "BARRIER" }, { 'T', "TLBI" }, { 'f', "FAULT" },
	};
	size_t at = (size_t)snprintf(buf, len, "%s", sp->name);

	for (const char *c = sp->pos; *c && at < len; c++)
		for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++)
			if (words[w].pos == *c)
				at += (size_t)snprintf(buf + at, len - at, " %s", words[w].word);
	return buf;
}

/* The machine line: every argument is key=value or a flag. */
static int parse_machine(struct parser *p, char **tok, unsigned int *col, int n)
{
	struct scn_machine *mc = &p->s->machine;

	for (int i = 1; i < n; i++) {
		char *eq = strchr(tok[i], '=');
		const char *v = eq ? eq + 1 : NULL;
		size_t klen = eq ? (size_t)(eq - tok[i]) : strlen(tok[i]);
		uint64_t x = 0;

#define KEY(s) (klen == strlen(s) && !strncmp(tok[i], s, klen))
		if (KEY("kpti") && !v) {
			mc->kpti = true;
		} else if (KEY("noabort") && v && (!strcmp(v, "on") || !strcmp(v, "off"))) {
			mc->bbml2_noabort = !strcmp(v, "on") ? 2 : 1;
		} else if (KEY("repeat-tlbi") && !v) {
			mc->repeat_tlbi = true;
		} else if (KEY("phys") && v && (!strcmp(v, "sequential") || !strcmp(v, "fragmented") ||
						 !strcmp(v, "shuffled"))) {
			mc->phys = !strcmp(v, "fragmented") ? PTSIM_PHYS_FRAGMENTED :
				   !strcmp(v, "shuffled") ? PTSIM_PHYS_SHUFFLED : PTSIM_PHYS_SEQUENTIAL;
		} else if (KEY("caches") && v && (!strcmp(v, "warm") || !strcmp(v, "cold"))) {
			mc->caches_cold = !strcmp(v, "cold");
		} else if (KEY("cpu") && v) {
			char names[256];

			if (ptsim_cpu_lookup(v, &mc->cpu))
				return fail(p, col[i] + (unsigned int)klen + 1, "unknown CPU %s (cpus: %s)",
					    v, valid_names(names, sizeof(names), false));
		} else if (KEY("preset") && v) {
			char names[320];
			unsigned int release;

			if (strlen(v) >= sizeof(mc->preset) || ptsim_preset_release(v, &release))
				return fail(p, col[i] + (unsigned int)klen + 1,
					    "unknown preset %s (presets: %s)", v,
					    valid_names(names, sizeof(names), true));
			strcpy(mc->preset, v);
		} else if (v && parse_number(v, strlen(v), &x) &&
			   (KEY("granule") || KEY("va") || KEY("mem") || KEY("base") || KEY("cpus") ||
			    KEY("bbm"))) {
			if (KEY("granule") && (x == 4096 || x == 16384 || x == 65536))
				mc->granule = (enum ptsim_granule)__builtin_ctzll(x);
			else if (KEY("va") && x <= 64)
				mc->va_bits = (unsigned int)x;
			else if (KEY("mem"))
				mc->phys_size = x;
			else if (KEY("base"))
				mc->phys_base = x;
			else if (KEY("cpus") && x >= 1 && x <= 256)
				mc->nr_cpus = (unsigned int)x;
			else if (KEY("bbm") && x <= 2)
				mc->bbm_level = (unsigned int)x + 1;
			else
				return fail(p, col[i] + (unsigned int)klen + 1, "bad value %s (%.*s: %s)",
					    v, (int)klen, tok[i], machine_key_values(tok[i], klen));
		} else {
			return fail(p, col[i], "expected cpu=, granule=, va=, mem=, base=, cpus=, "
				    "preset=, bbm=, noabort=, phys=sequential|fragmented|shuffled, "
				    "caches=warm|cold, kpti or repeat-tlbi");
		}
#undef KEY
	}
	return 0;
}

/* ranges=START:SIZE[,START:SIZE] or kernel=START:END into two argument slots each. */
static int parse_pairs(struct parser *p, const char *v, unsigned int col, struct scn_op *op,
		       unsigned int first, unsigned int max_pairs)
{
	unsigned int k = 0;

	while (*v) {
		const char *colon = strchr(v, ':'), *comma = strchr(v, ',');
		size_t end = comma ? (size_t)(comma - v) : strlen(v);

		if (k == max_pairs || !colon || (size_t)(colon - v) >= end)
			return fail(p, col, "expected START:SIZE pairs (at most %u)", max_pairs);
		if (parse_expr(p, v, (size_t)(colon - v), col, &op->a[first + 2 * k]) ||
		    parse_expr(p, colon + 1, end - (size_t)(colon - v) - 1, col, &op->a[first + 2 * k + 1]))
			return -EINVAL;
		k++;
		v += end + (comma ? 1 : 0);
	}
	return k ? 0 : fail(p, col, "expected START:SIZE");
}

int scenario_parse_values(const char *text, uint64_t *vals, unsigned int *nr, char *err,
			  size_t errlen)
{
	const char *item = text;

	*nr = 0;
	for (;;) {
		const char *end = strchr(item, ',');
		size_t len = end ? (size_t)(end - item) : strlen(item);
		const char *dots = memmem(item, len, "..", 2);
		const char *plus = dots ? memchr(dots, '+', len - (size_t)(dots - item)) : NULL;
		uint64_t a, b, step = 0;

		if (!dots) {
			if (!parse_number(item, len, &a))
				goto bad;
			b = a;
		} else if (!parse_number(item, (size_t)(dots - item), &a) ||
			   !parse_number(dots + 2, (size_t)((plus ? plus : item + len) - dots - 2), &b) ||
			   (plus && (!parse_number(plus + 1, (size_t)(item + len - plus - 1), &step) ||
				     !step)) ||
			   (!plus && !a) || b < a) {
			goto bad;
		}
		for (uint64_t v = a; v <= b;) {
			if (*nr == SCN_MAX_SWEEP) {
				snprintf(err, errlen, "more than %d values", SCN_MAX_SWEEP);
				return -EINVAL;
			}
			vals[(*nr)++] = v;
			if (dots ? plus ? __builtin_add_overflow(v, step, &v) :
				   __builtin_mul_overflow(v, 2, &v) : true)
				break;
		}
		if (!end)
			return 0;
		item = end + 1;
	}
bad:
	snprintf(err, errlen, "expected values: N, A..B (doubling) or A..B+STEP, comma-separated");
	return -EINVAL;
}

/* sweep n VALUES: the values $n takes in ptsim-bench sweep (the first one elsewhere); lines add up. */
static int parse_sweep(struct parser *p, char **tok, unsigned int *col, int n)
{
	char why[96];

	if (n != 3 || strcmp(tok[1], "n"))
		return fail(p, col[0], "expected sweep n VALUES (N, A..B or A..B+STEP, comma-separated)");
	uint64_t vals[SCN_MAX_SWEEP];
	unsigned int nr;

	if (scenario_parse_values(tok[2], vals, &nr, why, sizeof(why)))
		return fail(p, col[2], "%s", why);
	if (nr > SCN_MAX_SWEEP - p->s->nr_sweep)	/* a further sweep line adds values */
		return fail(p, col[2], "more than %d values", SCN_MAX_SWEEP);
	memcpy(p->s->sweep + p->s->nr_sweep, vals, nr * sizeof(vals[0]));
	p->s->nr_sweep += nr;
	p->s->machine.n = p->s->sweep[0];
	return 0;
}

static int parse_line(struct parser *p, char **tok, unsigned int *col, int n)
{
	struct scenario *s = p->s;
	const struct op_spec *sp = NULL;
	unsigned int op_col;
	struct scn_op op;
	int i;

	if (!strcmp(tok[0], "machine"))
		return parse_machine(p, tok, col, n);
	if (!strcmp(tok[0], "sweep"))
		return parse_sweep(p, tok, col, n);
	for (size_t k = 0; k < sizeof(specs) / sizeof(specs[0]); k++)
		if (!strcmp(tok[0], specs[k].name))
			sp = &specs[k];
	if (!sp)
		return fail(p, col[0], "unknown operation %s", tok[0]);
	op_col = col[0];
	memset(&op, 0, sizeof(op));
	if (sp->kind == S_EXPECT) {
		size_t k;

		for (k = 0; n > 1 && k < NR_EXPECT; k++)
			if (!strcmp(tok[1], expect_specs[k].name))
				break;
		if (n < 2 || k == NR_EXPECT)
			return fail(p, n < 2 ? col[0] + 6 : col[1], "expect: expected violations, "
				    "conflict-risks, conflicts, invariants, pa, entries or fault");
		sp = &expect_specs[k];
		op.sub = (unsigned char)k;
		tok++;
		col++;
		n--;
	}
	op.kind = sp->kind;
	op.line = p->line;
	op.col = op_col;
	op.mm = op.mm2 = -1;
	for (i = 1; sp->pos[i - 1]; i++) {
		char c = sp->pos[i - 1];
		int v;

		if (i >= n) {
			char usage[128];

			return fail(p, col[n - 1] + (unsigned int)strlen(tok[n - 1]),
				    "%s: missing argument %d (%s)", sp->name, i,
				    op_usage(sp, usage, sizeof(usage)));
		}
		switch (c) {
		case 'n':
		case 'c':
			v = c == 'c' ? scenario_name(s, tok[i]) : find_name(s, tok[i]);
			if (v < 0)
				return fail(p, col[i], c == 'c' ? "too many names or name too long" :
					    "unknown name %s", tok[i]);
			if (op.mm < 0)
				op.mm = v;
			else
				op.mm2 = v;
			break;
		case 'e':
			if (op.nr_args == SCN_MAX_ARGS)
				return fail(p, col[i], "too many numbers");
			if (parse_expr(p, tok[i], strlen(tok[i]), col[i], &op.a[op.nr_args++]))
				return -EINVAL;
			break;
		case 'p':
			v = keyword(tok[i], strlen(tok[i]), prots, 8);
			if (v < 0)
				return fail(p, col[i], "expected a protection: none, r, rw, rx, rwx, ...");
			op.u = (unsigned int)v;
			break;
		case 'a':
			v = keyword(tok[i], strlen(tok[i]), kinds, 3);
			if (v < 0)
				return fail(p, col[i], "expected read, write or exec");
			op.u = (unsigned int)v;
			break;
		case 'v':
			v = -1;
			for (size_t k = 0; k < sizeof(advices) / sizeof(advices[0]); k++)
				if (!strcmp(tok[i], advices[k].name))
					v = advices[k].advice;
			if (v < 0)
				return fail(p, col[i], "expected advice: dontneed, free, cold, pageout, dontfork, ...");
			op.u = (unsigned int)v;
			break;
		case 'o':
			if (strcmp(tok[i], "on") && strcmp(tok[i], "off"))
				return fail(p, col[i], "expected on or off");
			op.on = !strcmp(tok[i], "on");
			break;
		case 's':
			v = keyword(tok[i], strlen(tok[i]), setmem, 6);
			if (v < 0)
				return fail(p, col[i], "expected ro, rw, nx, x, valid or invalid");
			op.u = (unsigned int)v;
			break;
		case 'b':
			v = keyword(tok[i], strlen(tok[i]), barriers, 5);
			if (v < 0)
				return fail(p, col[i], "expected dsb-sy, dsb-ish, dsb-ishst, dsb-nsh or isb");
			op.u = (unsigned int)v;
			break;
		case 'T':
			v = keyword(tok[i], strlen(tok[i]), tlbis, 10);
			if (v < 0)
				return fail(p, col[i], "expected a TLBI: vae1, vale1, vaae1, vaale1, rvae1, "
					    "rvale1, rvaae1, rvaale1, aside1 or vmalle1");
			op.u = (unsigned int)v;
			break;
		case 'f':
			v = keyword(tok[i], strlen(tok[i]), faults, 5);
			if (v < 0)
				return fail(p, col[i], "expected a fault: none, translation, access-flag, "
					    "permission or conflict");
			op.word2 = (unsigned char)v;
			break;
		case 't':
			if (strlen(tok[i]) >= sizeof(op.text))
				return fail(p, col[i], "name too long");
			strcpy(op.text, tok[i]);
			if (op.kind == S_FEATURE) {
				enum ptsim_feature f;

				if (ptsim_feature_lookup(op.text, &f)) {
					char names[1536];

					valid_features_text(names, sizeof(names), 12, 4);
					return fail(p, col[i], "unknown feature %s\n  features: %s",
						    op.text, names);
				}
			}
			break;
		}
	}
	/* what follows: sizes (thp), a loop variable (repeat), keys */
	for (; i < n; i++) {
		char *eq = strchr(tok[i], '=');
		size_t klen = eq ? (size_t)(eq - tok[i]) + 1 : strlen(tok[i]);
		bool done = false;

		if (op.kind == S_THP) {
			if (!strcmp(tok[i], "none"))
				continue;
			if (op.nr_args == SCN_MAX_ARGS)
				return fail(p, col[i], "too many sizes");
			if (parse_expr(p, tok[i], strlen(tok[i]), col[i], &op.a[op.nr_args++]))
				return -EINVAL;
			continue;
		}
		if (op.kind == S_REPEAT && !op.text[0] && i + 1 == n &&
		    (!strcmp(tok[i], "i") || !strcmp(tok[i], "j") || !strcmp(tok[i], "k"))) {
			strcpy(op.text, tok[i]);
			continue;
		}
		for (int k = 0; k < SCN_MAX_KEYS && sp->keys[k] && !done; k++) {
			const char *key = sp->keys[k];
			bool takes = key[strlen(key) - 1] == '=';

			if (strlen(key) != klen || strncmp(tok[i], key, klen) || takes != (eq != NULL))
				continue;
			done = true;
			if (!takes) {
				op.u |= 1u << (8 + k);
			} else if (op.kind == S_KBOOT && k == 0) {
				if (parse_pairs(p, eq + 1, col[i] + (unsigned int)klen, &op, 0, 2))
					return -EINVAL;
				op.u |= (eq[1] && strchr(eq + 1, ',')) ? 1u << 16 : 0;
			} else if (op.kind == S_KBOOT && k == 1) {
				if (parse_pairs(p, eq + 1, col[i] + (unsigned int)klen, &op, 4, 1))
					return -EINVAL;
			} else if (op.kind == S_KBOOT && k == 3) {
				int r = keyword(eq + 1, strlen(eq + 1), rodata, 3);

				if (r < 0)
					return fail(p, col[i] + (unsigned int)klen, "expected on, noalias or off");
				op.u |= (unsigned int)r;
			} else if (k > 3) {
				return fail(p, col[i], "%s: too many numeric keys", sp->name);
			} else {
				/* a numeric key: slot 4 + its index (kfence= of kernel: 6) */
				unsigned int slot = op.kind == S_KBOOT ? 6 : 4 + (unsigned int)k;

				if (parse_expr(p, eq + 1, strlen(eq + 1), col[i] + (unsigned int)klen, &op.a[slot]))
					return -EINVAL;
				/* expect's bbm=: a level the checker has, written as a number */
				if (op.kind == S_EXPECT && k == 1 &&
				    (op.a[slot].nr != 1 || op.a[slot].t[0].f != F_ONE ||
				     op.a[slot].t[0].g != F_ONE || op.a[slot].t[0].dk ||
				     op.a[slot].t[0].k > 2))
					return fail(p, col[i] + (unsigned int)klen, "expected bbm=0, 1 or 2");
				op.u |= 1u << (8 + k);
			}
		}
		if (!done)
			return fail(p, col[i], "%s: unexpected %s", sp->name, tok[i]);
	}
	if (op.kind == S_KBOOT && !op.a[0].nr)
		return fail(p, col[0], "kernel: ranges= is required");
	/* zero says what a write stores */
	if (op.kind == S_TOUCH && (op.u >> 9 & 1) && (op.u & 0xff) != PTSIM_ACCESS_WRITE)
		return fail(p, col[0], "touch: zero goes with write (the zeros a write stores)");
	/* noabort and abort together would match no machine: the line would never be checked */
	if (op.kind == S_EXPECT && (op.u >> 10 & 3) == 3)
		return fail(p, col[0], "expect: noabort and abort exclude each other");
	return scenario_add(s, &op) ? fail(p, col[0], "out of memory") : 0;
}

void scenario_free(struct scenario *s)
{
	free(s->ops);
	memset(s, 0, sizeof(*s));
}

static void machine_defaults(struct scn_machine *mc)
{
	struct ptsim_machine_config cfg;

	ptsim_machine_config_init(&cfg);
	memset(mc, 0, sizeof(*mc));
	mc->cpu = cfg.cpu;
	mc->granule = cfg.granule;
	mc->va_bits = cfg.va_bits;
	mc->nr_cpus = cfg.nr_cpus;
	mc->phys_base = cfg.phys_base;
	mc->phys_size = cfg.phys_size;
	strcpy(mc->preset, "baseline");
}

int scenario_parse(const char *text, size_t len, const char *file, struct scenario *out,
		   char *err, size_t errlen)
{
	struct parser p = { .file = file, .err = err, .errlen = errlen, .s = out };
	size_t depth = 0;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	machine_defaults(&out->machine);
	for (size_t pos = 0; pos < len && !ret;) {
		char buf[512], *tok[24];
		unsigned int col[24];
		size_t end = pos, n = 0;
		int ntok = 0;

		p.line++;
		while (end < len && text[end] != '\n')
			end++;
		n = end - pos;
		if (n >= sizeof(buf)) {
			ret = fail(&p, 1, "line longer than %zu characters", sizeof(buf) - 1);
			break;
		}
		memcpy(buf, text + pos, n);
		buf[n] = 0;
		pos = end + 1;
		for (size_t i = 0; i < n; i++)
			if (buf[i] == '#' || buf[i] == '\r' || buf[i] == 0)
				buf[i] = buf[i] == '#' ? 0 : ' ';
		for (char *c = buf; *c;) {
			while (*c == ' ' || *c == '\t')
				c++;
			if (!*c)
				break;
			if (ntok == 24) {
				ret = fail(&p, (unsigned int)(c - buf) + 1, "too many words");
				break;
			}
			col[ntok] = (unsigned int)(c - buf) + 1;
			tok[ntok++] = c;
			while (*c && *c != ' ' && *c != '\t')
				c++;
			if (*c)
				*c++ = 0;
		}
		if (ret || !ntok)
			continue;
		ret = parse_line(&p, tok, col, ntok);
		if (!ret && out->nr && out->ops[out->nr - 1].line == p.line) {
			enum scn_kind k = out->ops[out->nr - 1].kind;

			if (k == S_REPEAT && ++depth > 3)
				ret = fail(&p, col[0], "repeat nested deeper than 3");
			if (k == S_END && depth-- == 0)
				ret = fail(&p, col[0], "end without repeat");
		}
	}
	if (!ret && depth) {
		p.line++;
		ret = fail(&p, 1, "expected end (%zu repeat still open)", depth);
	}
	if (ret)
		scenario_free(out);
	return ret;
}

/* ---- printing ---- */

static void print_expr(FILE *f, const struct scn_expr *e)
{
	static const char *const sym[] = { "", "$i", "$j", "$k", "PAGE", "PMD", "CONT", "$bias", "$n" };

	for (unsigned int i = 0; i < e->nr; i++) {
		const char *sep = "";

		if (i)
			fputc('+', f);
		if (e->t[i].k != 1 || (e->t[i].f == F_ONE && e->t[i].g == F_ONE)) {
			fprintf(f, "0x%llx", (unsigned long long)e->t[i].k);
			sep = "*";
		}
		if (e->t[i].f != F_ONE) {
			fprintf(f, "%s%s", sep, sym[e->t[i].f]);
			sep = "*";
		}
		if (e->t[i].g != F_ONE)
			fprintf(f, "%s%s", sep, sym[e->t[i].g]);
		if (e->t[i].dk && e->t[i].dv != F_ONE)
			fprintf(f, "/%s", sym[e->t[i].dv]);
		else if (e->t[i].dk)
			fprintf(f, "/0x%llx", (unsigned long long)e->t[i].dk);
	}
}

/* A size as the scenario grammar reads it: 256M, 2G, or hex when not whole. */
static const char *size_text(char *buf, size_t len, uint64_t v)
{
	static const char suffix[] = "TGMK";

	for (unsigned int i = 0; i < 4; i++) {
		unsigned int shift = 10 * (4 - i);

		if (v && !(v & ((UINT64_C(1) << shift) - 1))) {
			snprintf(buf, len, "%llu%c", (unsigned long long)(v >> shift), suffix[i]);
			return buf;
		}
	}
	snprintf(buf, len, "0x%llx", (unsigned long long)v);
	return buf;
}

/*
 * The machine: one line when it fits 76 columns (an audit prints it indented
 * by four), else two machine lines, which the parser adds up.
 */
static void machine_print(const struct scn_machine *mc, FILE *f)
{
	char cpu[128], rest[192], mem[24], base[24];
	int n = snprintf(cpu, sizeof(cpu), "machine cpu=%s granule=%uK preset=%s",
			 ptsim_cpu_name(mc->cpu), (1u << mc->granule) / 1024, mc->preset);
	int m = snprintf(rest, sizeof(rest), "va=%u mem=%s base=%s cpus=%u%s%s", mc->va_bits,
			 size_text(mem, sizeof(mem), mc->phys_size),
			 size_text(base, sizeof(base), mc->phys_base), mc->nr_cpus,
			 mc->kpti ? " kpti" : "", mc->repeat_tlbi ? " repeat-tlbi" : "");

	if (mc->bbm_level)
		m += snprintf(rest + m, sizeof(rest) - (size_t)m, " bbm=%u", mc->bbm_level - 1);
	if (mc->bbml2_noabort)
		m += snprintf(rest + m, sizeof(rest) - (size_t)m, " noabort=%s",
			      mc->bbml2_noabort == 2 ? "on" : "off");
	if (mc->phys != PTSIM_PHYS_SEQUENTIAL)
		m += snprintf(rest + m, sizeof(rest) - (size_t)m, " phys=%s",
			      mc->phys == PTSIM_PHYS_FRAGMENTED ? "fragmented" : "shuffled");
	if (mc->caches_cold)
		m += snprintf(rest + m, sizeof(rest) - (size_t)m, " caches=cold");
	fprintf(f, "%s%s%s\n", cpu, n + 1 + m <= 76 ? " " : "\nmachine ", rest);
}

void scenario_print(const struct scenario *s, FILE *f)
{
	machine_print(&s->machine, f);
	for (unsigned int i = 0; i < s->nr_sweep; i++)	/* 16 a line: lines stay under 512 */
		fprintf(f, "%s0x%llx%s", i % 16 ? "," : "sweep n ", (unsigned long long)s->sweep[i],
			i % 16 == 15 || i + 1 == s->nr_sweep ? "\n" : "");
	for (size_t i = 0; i < s->nr; i++) {
		const struct scn_op *op = &s->ops[i];
		const struct op_spec *sp = NULL;
		unsigned int e = 0;

		for (size_t k = 0; k < sizeof(specs) / sizeof(specs[0]); k++)
			if (specs[k].kind == op->kind)
				sp = &specs[k];
		if (op->kind == S_EXPECT) {
			fputs("expect ", f);
			sp = &expect_specs[op->sub % NR_EXPECT];
		}
		fputs(sp->name, f);
		for (const char *c = sp->pos; *c; c++) {
			fputc(' ', f);
			switch (*c) {
			case 'n':
			case 'c':
				/* the first name is op->mm, a second op->mm2 */
				fputs(s->names[strpbrk(sp->pos, "nc") == c ? op->mm : op->mm2], f);
				break;
			case 'e':
				print_expr(f, &op->a[e++]);
				break;
			case 'p': fputs(prots[op->u & 7], f); break;
			case 'a': fputs(kinds[(op->u & 0xff) % 3], f); break;
			case 'o': fputs(op->on ? "on" : "off", f); break;
			case 's': fputs(setmem[(op->u & 0xff) % 6], f); break;
			case 't': fputs(op->text, f); break;
			case 'b': fputs(barriers[(op->u & 0xff) % 5], f); break;
			case 'T': fputs(tlbis[(op->u & 0xff) % 10], f); break;
			case 'f': fputs(faults[op->word2 % 5], f); break;
			case 'v':
				for (size_t k = 0; k < sizeof(advices) / sizeof(advices[0]); k++)
					if ((unsigned int)advices[k].advice == op->u)
						fputs(advices[k].name, f);
				break;
			}
		}
		if (op->kind == S_THP)
			for (unsigned int k = 0; k < op->nr_args; k++) {
				fputc(' ', f);
				print_expr(f, &op->a[k]);
			}
		if (op->kind == S_THP && !op->nr_args)
			fputs(" none", f);
		if (op->kind == S_REPEAT && op->text[0])
			fprintf(f, " %s", op->text);
		for (int k = 0; k < SCN_MAX_KEYS && sp->keys[k]; k++) {
			const char *key = sp->keys[k];

			if (!(op->u & (1u << (8 + k))) && !(op->kind == S_KBOOT && k != 2 && k < 4))
				continue;
			if (op->kind == S_KBOOT && k == 0) {
				fputs(" ranges=", f);
				print_expr(f, &op->a[0]);
				fputc(':', f);
				print_expr(f, &op->a[1]);
				if (op->u & (1u << 16)) {
					fputc(',', f);
					print_expr(f, &op->a[2]);
					fputc(':', f);
					print_expr(f, &op->a[3]);
				}
			} else if (op->kind == S_KBOOT && k == 1) {
				if (op->a[4].nr) {
					fputs(" kernel=", f);
					print_expr(f, &op->a[4]);
					fputc(':', f);
					print_expr(f, &op->a[5]);
				}
			} else if (op->kind == S_KBOOT && k == 3) {
				fprintf(f, " rodata=%s", rodata[op->u & 3]);
			} else if (key[strlen(key) - 1] == '=') {
				fprintf(f, " %s", key);
				print_expr(f, &op->a[op->kind == S_KBOOT ? 6 : 4 + k]);
			} else {
				fprintf(f, " %s", key);
			}
		}
		fputc('\n', f);
	}
}

/* ---- running ---- */

struct runner {
	const struct scenario *s;
	FILE *out;			/* the queries' output, or NULL */
	struct ptsim_machine *m;
	struct ptsim_geometry geo;
	const struct ptsim_geometry *g;
	struct ptsim_mm *mm[SCN_MAX_NAMES];
	unsigned int fd[SCN_MAX_NAMES];
	bool is_file[SCN_MAX_NAMES];
	uint64_t var[3], bias, n;
	char why[96];			/* what the failing operation has to say, or "" */
	/* the raw tables allocated: where, and their physical address (for raw-write table) */
	struct {
		int mm, level;
		uint64_t base, pa;
	} table[64];
	unsigned int nr_tables;
	unsigned int bbm_level;	/* the machine's, for expect's conditions */
	bool noabort;
};

static uint64_t factor(const struct runner *r, enum scn_factor f)
{
	switch (f) {
	case F_VAR_I: return r->var[0];
	case F_VAR_J: return r->var[1];
	case F_VAR_K: return r->var[2];
	case F_PAGE: return r->g->page_size;
	case F_PMD: return r->g->pmd_size;
	case F_CONT: return r->g->cont_pte_size;
	case F_BIAS: return r->bias;
	case F_VAR_N: return r->n;
	default: return 1;
	}
}

/* The value of e: 0, -EOVERFLOW when a product or the sum passes 64 bits, -EDOM for a division by 0. */
static int eval_checked(const struct runner *r, const struct scn_expr *e, uint64_t *out)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < e->nr; i++) {
		uint64_t t, d;

		if (__builtin_mul_overflow(e->t[i].k, factor(r, e->t[i].f), &t) ||
		    __builtin_mul_overflow(t, factor(r, e->t[i].g), &t))
			return -EOVERFLOW;
		if (e->t[i].dk) {
			if (__builtin_mul_overflow(e->t[i].dk, factor(r, e->t[i].dv), &d))
				return -EOVERFLOW;
			if (!d)
				return -EDOM;
			t /= d;
		}
		if (__builtin_add_overflow(v, t, &v))
			return -EOVERFLOW;
	}
	*out = v;
	return 0;
}

/* The runner checks every argument with eval_checked() before the operation runs. */
static uint64_t eval(const struct runner *r, const struct scn_expr *e)
{
	uint64_t v = 0;

	eval_checked(r, e, &v);
	return v;
}

struct scn_machine scenario_machine_on(const struct scenario *s, enum ptsim_cpu cpu,
				       enum ptsim_granule gr)
{
	struct scn_machine mc = s->machine;

	mc.cpu = cpu;
	mc.granule = gr;
	if (gr != s->machine.granule && mc.va_bits == 48 && gr == PTSIM_GRANULE_16K)
		mc.va_bits = 47;
	return mc;
}

int scenario_apply_features(struct ptsim_machine *m, const char *spec)
{
	char buf[256];

	if (!spec)
		return 0;
	if (strlen(spec) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, spec);
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		enum ptsim_feature f;
		bool on = *t != '-';

		if (*t == '+' || *t == '-')
			t++;
		if (!ptsim_feature_lookup(t, &f))
			ptsim_feature_set(m, f, on);
		else if (ptsim_feature_preset(m, t))
			return -EINVAL;
	}
	return 0;
}

static struct ptsim_mm *need_mm(struct runner *r, const struct scn_op *op)
{
	return op->mm >= 0 ? r->mm[op->mm] : NULL;
}

/* The PTSIM_PROT_* of a protection keyword: bit 0 r, 1 w, 2 x as listed in prots[]. */
static unsigned int prot_of(unsigned int u)
{
	return ((u & 1) ? PTSIM_PROT_READ : 0) | ((u & 2) ? PTSIM_PROT_WRITE : 0) |
	       ((u & 4) ? PTSIM_PROT_EXEC : 0);
}

/*
 * True when every page of [start, start + len) is mapped so that a kind access
 * cannot fault: valid, user, AF set, writable for a write, executable for a
 * fetch (a software walk: counts nothing).
 */
static bool touch_cannot_fault(const struct runner *r, struct ptsim_mm *mm, uint64_t start,
			       uint64_t len, enum ptsim_access_kind kind)
{
	uint64_t page = r->g->page_size;

	for (uint64_t va = start & ~(page - 1); va < start + len; ) {
		struct ptsim_translation t;

		if (ptsim_translate(mm, va, &t) || !t.valid || !t.user || !t.af ||
		    (kind == PTSIM_ACCESS_WRITE && t.read_only) ||
		    (kind == PTSIM_ACCESS_EXEC && t.uxn))
			return false;
		va = t.va_base + t.size;
	}
	return true;
}

/*
 * touch as a user program's memset or read scan: every page once, and a page
 * that faults is faulted in (handle_mm_fault) and the access retried, as the
 * CPU re-executes the faulting instruction. A range that is all mapped runs
 * as one ptsim_touch; any other page by page. A fault the kernel would answer
 * with SIGSEGV/SIGBUS stops the run (-EFAULT), so nothing is skipped silently.
 */
static int64_t run_touch(struct runner *r, struct ptsim_mm *mm, unsigned int cpu, uint64_t start,
			 uint64_t len, enum ptsim_access_kind kind)
{
	uint64_t page = r->g->page_size, faults = 0;
	int err;

	if (!mm || !len || start + len < start)
		return -EINVAL;
	if (touch_cannot_fault(r, mm, start, len, kind)) {
		err = ptsim_touch(mm, cpu, start, len, kind, &faults);
		return err ? err : faults ? -EFAULT : 0;	/* a conflict abort */
	}
	for (uint64_t va = start & ~(page - 1); va < start + len; va += page) {
		enum ptsim_fault_kind f;

		err = ptsim_access(mm, cpu, va, kind, &f);
		if (err == -EFAULT && f != PTSIM_FAULT_TLB_CONFLICT) {
			err = ptsim_fault(mm, va, kind);
			if (!err)
				err = ptsim_access(mm, cpu, va, kind, &f);
		}
		if (err) {
			snprintf(r->why, sizeof(r->why), "%s at 0x%llx: %s", kind == PTSIM_ACCESS_WRITE ?
				 "write" : kind == PTSIM_ACCESS_EXEC ? "fetch" : "read",
				 (unsigned long long)va, err == -EFAULT ?
				 "the fault is not resolved (SIGSEGV/SIGBUS or a conflict abort)" :
				 ptsim_strerror(err));
			return err;
		}
	}
	return 0;
}

/* The queries' callbacks when a run prints nothing. */
static int query_ignore_page(const struct ptsim_page_info *p, void *arg)
{
	(void)p;
	(void)arg;
	return 0;
}

static int query_ignore_vma(const struct ptsim_vma_info *v, void *arg)
{
	(void)v;
	(void)arg;
	return 0;
}

/* The VA a level-`level` table covering va starts at. */
static uint64_t table_base(const struct runner *r, uint64_t va, int level)
{
	return va & ~((UINT64_C(1) << r->g->level_shift[level]) - 1);	/* the level - 1 entry */
}

/* raw-table MM VA LEVEL [nolink] */
static int raw_table(struct runner *r, struct ptsim_mm *mm, const struct scn_op *op, uint64_t va,
		     uint64_t level)
{
	uint64_t pa;
	int err;

	if (level < 1 || level > 3 || r->nr_tables == 64)
		return -EINVAL;
	err = ptsim_raw_table_alloc(mm, va, (int)level, &pa);
	if (err)
		return err;
	r->table[r->nr_tables].mm = op->mm;
	r->table[r->nr_tables].level = (int)level;
	r->table[r->nr_tables].base = table_base(r, va, (int)level);
	r->table[r->nr_tables++].pa = pa;
	if ((op->u >> 8) & 1)
		return 0;	/* nolink: the table descriptor is the file's to write */
	return ptsim_raw_write(mm, 0, va, (int)level - 1, pa | 3, 0);
}

/*
 * An argument the library takes as unsigned int (a CPU, an order, a count,
 * a mode): one that does not fit is refused, naming it, not cut to 32 bits.
 */
static int eval_uint(struct runner *r, const struct scn_expr *e, const char *name,
		     unsigned int *out)
{
	uint64_t v = eval(r, e);

	if (v > UINT_MAX) {
		snprintf(r->why, sizeof(r->why), "%s%llu is out of range (at most %u)", name,
			 (unsigned long long)v, UINT_MAX);
		return -EINVAL;
	}
	*out = (unsigned int)v;
	return 0;
}

/* raw-write MM VA LEVEL [page=PA|block=PA|table] [ng] [cont] [ro] [noaf] [same] [cpu=N] */
static int raw_write(struct runner *r, struct ptsim_mm *mm, const struct scn_op *op, uint64_t va,
		     uint64_t level)
{
	const uint64_t attrs = (UINT64_C(1) << 10) | (UINT64_C(3) << 8) | (UINT64_C(1) << 6);
	uint64_t desc = 0;
	unsigned int f = op->u >> 8, cpu;

	if (level > 3 || eval_uint(r, &op->a[5], "cpu=", &cpu))
		return -EINVAL;
	if (f & 1)
		desc = eval(r, &op->a[4]) | attrs | 3;		/* page= */
	else if (f & 4)
		desc = eval(r, &op->a[6]) | attrs | 1;		/* block= */
	if (f & 8) {						/* table */
		desc = 0;
		for (unsigned int i = 0; i < r->nr_tables; i++)
			if (r->table[i].mm == op->mm && r->table[i].level == (int)level + 1 &&
			    r->table[i].base == table_base(r, va, (int)level + 1))
				desc = r->table[i].pa | 3;
		if (!desc)
			return -ENOENT;
	} else if (desc) {
		desc |= (f & 16 ? UINT64_C(1) << 11 : 0) | (f & 32 ? UINT64_C(1) << 52 : 0) |
			(f & 64 ? UINT64_C(1) << 7 : 0);
		if (f & 128)
			desc &= ~(UINT64_C(1) << 10);
	}
	return ptsim_raw_write(mm, cpu, va, (int)level, desc,
			       f & 256 ? PTSIM_RAW_SAME_CONTENTS : 0);
}

static int raw_tlbi(struct runner *r, struct ptsim_mm *mm, const struct scn_op *op)
{
	struct ptsim_raw_tlbi t = {
		.kind = (enum ptsim_raw_tlbi_kind)(op->u & 0xff),
		.broadcast = !((op->u >> 12) & 1),
		.va = eval(r, &op->a[4]),
		.pages = eval(r, &op->a[5]),
		.ttl_level = eval(r, &op->a[6]) > 3 ? -1 : (int)eval(r, &op->a[6]),
	};
	unsigned int cpu;
	int err = eval_uint(r, &op->a[7], "cpu=", &cpu);

	if (!err)
		err = ptsim_mm_asid(mm, &t.asid);
	return err ? err : ptsim_raw_tlbi(r->m, cpu, &t);
}

static int expect_failed(struct runner *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int expect_failed(struct runner *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	return -EPROTO;
}

/* expect ...: -EPROTO with the reason in r->why when it does not hold. */
static int expect(struct runner *r, struct ptsim_mm *mm, const struct scn_op *op, uint64_t a0,
		  uint64_t a1, uint64_t a2)
{
	static const enum ptsim_diag_kind diag[] = {
		[X_VIOLATIONS] = PTSIM_DIAG_BBM_VIOLATION,
		[X_CONFLICT_RISKS] = PTSIM_DIAG_BBM_CONFLICT_RISK,
		[X_CONFLICTS] = PTSIM_DIAG_TLB_CONFLICT, [X_INVARIANTS] = PTSIM_DIAG_INVARIANT,
	};
	unsigned int f = op->u >> 8, cpu;
	struct ptsim_raw_tlb_entry e[16];
	enum ptsim_fault_kind fault = PTSIM_FAULT_NONE;
	unsigned int n, with = 0;
	uint64_t count;
	int err;

	if (eval_uint(r, &op->a[4], "cpu=", &cpu))
		return -EINVAL;
	/* bbm=L, noabort, abort: only on machines that match */
	if (((f & 2) && eval(r, &op->a[5]) != r->bbm_level) || ((f & 4) && !r->noabort) ||
	    ((f & 8) && r->noabort))
		return 0;
	switch (op->sub) {
	case X_VIOLATIONS:
	case X_CONFLICT_RISKS:
	case X_CONFLICTS:
	case X_INVARIANTS:
		err = ptsim_diag_count(r->m, diag[op->sub], &count);
		if (err)
			return err;
		return count == a0 ? 0 : expect_failed(r, "%llu %s, expected %llu",
						       (unsigned long long)count,
						       expect_specs[op->sub].name, (unsigned long long)a0);
	case X_PA:
	case X_ENTRIES:
		if (!mm)
			return -EINVAL;
		err = ptsim_raw_tlb_lookup(mm, cpu, a0, e, 16, &n);
		if (err)
			return err;
		for (unsigned int i = 0; i < n && i < 16; i++)
			with += e[i].pa == a1;
		if (op->sub == X_ENTRIES)
			return n == a1 ? 0 : expect_failed(r, "%u TLB entries for 0x%llx on CPU %u, "
							   "expected %llu", n, (unsigned long long)a0,
							   cpu, (unsigned long long)a1);
		return with ? 0 : expect_failed(r, "no TLB entry of CPU %u gives 0x%llx PA 0x%llx "
						"(%u entries)", cpu, (unsigned long long)a0,
						(unsigned long long)a1, n);
	default:
		if (!mm)
			return -EINVAL;
		err = ptsim_access(mm, cpu, a0, (enum ptsim_access_kind)(op->u & 0xff), &fault);
		if (err && err != -EFAULT)
			return err;
		(void)a2;
		return (unsigned int)fault == op->word2 ? 0 :
		       expect_failed(r, "the access faults: %s, expected %s", faults[fault % 5],
				     faults[op->word2 % 5]);
	}
}

static int64_t run_op(struct runner *r, const struct scn_op *op)
{
	struct ptsim_mm *mm = need_mm(r, op);
	uint64_t a0 = eval(r, &op->a[0]), a1 = eval(r, &op->a[1]), a2 = eval(r, &op->a[2]);
	unsigned int u;

	switch (op->kind) {
	case S_FEATURE: {
		enum ptsim_feature f;

		return ptsim_feature_lookup(op->text, &f) ? -EINVAL : ptsim_feature_set(r->m, f, op->on);
	}
	case S_THP: {
		uint64_t orders = 0;

		for (unsigned int i = 0; i < op->nr_args; i++) {
			uint64_t size = eval(r, &op->a[i]);

			if (!size || size % r->g->page_size || (size & (size - 1))) {
				snprintf(r->why, sizeof(r->why), "size %llu: a power of two, at least "
					 "the page size %lluK", (unsigned long long)size,
					 (unsigned long long)r->g->page_size >> 10);
				return -EINVAL;
			}
			orders |= UINT64_C(1) << __builtin_ctzll(size / r->g->page_size);
		}
		return ptsim_set_thp_orders(r->m, orders);
	}
	case S_MM:
		if (r->mm[op->mm])
			return -EEXIST;
		return ptsim_mm_create(r->m, &r->mm[op->mm]);
	case S_THREADS:
		return eval_uint(r, &op->a[0], "", &u) ? -EINVAL : ptsim_mm_set_threads(mm, u);
	case S_MMAP:
		return ptsim_mmap(mm, a0, a1, prot_of(op->u), PTSIM_MAP_ANONYMOUS |
				  ((op->u >> 8) & 1 ? PTSIM_MAP_SHARED : PTSIM_MAP_PRIVATE), NULL);
	case S_POPULATE:
		return eval_uint(r, &op->a[4], "order ", &u) ? -EINVAL :
		       ptsim_populate(mm, a0, a1, u, !((op->u >> 9) & 1));
	case S_SPLIT: return ptsim_split_huge_pmd(mm, a0, a1);
	case S_ACCESS: {
		enum ptsim_fault_kind f;

		return eval_uint(r, &op->a[4], "cpu=", &u) ? -EINVAL :
		       ptsim_access(mm, u, a0, (enum ptsim_access_kind)(op->u & 0xff), &f);
	}
	case S_TOUCH: {
		/* zero: the program writes zeros (memset(p, 0, len)) */
		bool zero = (op->u >> 9) & 1;
		int64_t err;

		err = eval_uint(r, &op->a[4], "cpu=", &u) ? -EINVAL :
		      run_touch(r, mm, u, a0, a1, (enum ptsim_access_kind)(op->u & 0xff));
		return err || !zero ? err : ptsim_set_zero_filled(mm, a0, a1);
	}
	case S_PTDUMP:
		if (!mm)
			return -EINVAL;
		if (!r->out)	/* nothing printed, and the walk is the same */
			return 0;
		fprintf(r->out, "# line %u: ptdump %s\n", op->line, r->s->names[op->mm]);
		return ptsim_ptdump(mm, r->out);
	case S_FAULT: return ptsim_fault(mm, a0, (enum ptsim_access_kind)op->u);
	case S_MPROTECT: return ptsim_mprotect(mm, a0, a1, prot_of(op->u));
	case S_NUMA: return ptsim_change_prot_numa(mm, a0, a1);
	case S_FORK:
		if (!mm || r->mm[op->mm2])
			return -EINVAL;
		return ptsim_fork(mm, &r->mm[op->mm2]);
	case S_EXIT: return ptsim_mm_exit(mm);
	case S_DESTROY:
		if (!mm)
			return -EINVAL;
		ptsim_mm_destroy(mm);
		r->mm[op->mm] = NULL;
		return 0;
	case S_MUNMAP: return ptsim_munmap(mm, a0, a1);
	case S_MREMAP: {
		unsigned int fl = ((op->u >> 8) & 1 ? PTSIM_MREMAP_FIXED : 0) |
				  ((op->u >> 9) & 1 ? PTSIM_MREMAP_MAYMOVE : 0) |
				  ((op->u >> 10) & 1 ? PTSIM_MREMAP_DONTUNMAP : 0);

		return ptsim_mremap(mm, a0, a1, a2, fl, eval(r, &op->a[4]), NULL);
	}
	case S_MADVISE: return ptsim_madvise(mm, a0, a1, (int)op->u);
	case S_MLOCK: return ptsim_mlock(mm, a0, a1);
	case S_MUNLOCK: return ptsim_munlock(mm, a0, a1);
	case S_UFFD_REGISTER: return ptsim_uffd_register(mm, a0, a1);
	case S_UFFD_MOVE: {
		int64_t moved = eval_uint(r, &op->a[4], "mode=", &u) ? -EINVAL :
				ptsim_uffd_move(mm, a0, a1, a2, u);

		return moved < 0 ? moved : 0;
	}
	case S_PIN: return ptsim_folio_set_pinned(mm, a0, op->on);
	case S_PIN_USER_PAGES:
	case S_GET_USER_PAGES: {
		/* the pins and references stay until the machine goes (no unpin operation) */
		uint64_t nr = a1 / r->g->page_size, *pas;
		unsigned int foll = ((op->u >> 8) & 1 ? PTSIM_FOLL_WRITE : 0) |
				    ((op->u >> 9) & 1 ? PTSIM_FOLL_LONGTERM : 0);
		int64_t got;

		if (!mm || a1 % r->g->page_size || nr > SCN_MAX_GUP_PAGES)
			return -EINVAL;
		pas = malloc((nr ? nr : 1) * sizeof(*pas));
		if (!pas)
			return -ENOMEM;
		got = op->kind == S_PIN_USER_PAGES ? ptsim_pin_user_pages(mm, a0, nr, foll, pas)
						   : ptsim_get_user_pages(mm, a0, nr, foll, pas);
		free(pas);
		return got < 0 ? got : 0;
	}
	case S_PAGEMAP: {
		uint64_t len = (op->u >> 8) & 1 ? eval(r, &op->a[4]) : r->g->page_size;

		if (!r->out)	/* the same checks, nothing printed */
			return ptsim_pagemap_range(mm, a0, len, query_ignore_page, NULL);
		fprintf(r->out, "# line %u: pagemap\n", op->line);
		return ptsim_pagemap_print(mm, a0, len, r->out);
	}
	case S_VMAS:
		if (!r->out)
			return ptsim_vma_foreach(mm, query_ignore_vma, NULL);
		fprintf(r->out, "# line %u: vmas\n", op->line);
		return ptsim_vmas_print(mm, r->out);
	case S_SWAPOUT: return ptsim_swapout(mm, a0, a1);
	case S_FILE: {
		unsigned int file;
		int err = eval_uint(r, &op->a[5], "order=", &u) ? -EINVAL :
			  ptsim_file_create(r->m, eval(r, &op->a[4]), u, &file);

		if (!err)
			err = ptsim_file_open(r->m, file, &r->fd[op->mm]);
		r->is_file[op->mm] = !err;
		return err;
	}
	case S_MMAP_FILE:
		if (op->mm2 < 0 || !r->is_file[op->mm2])
			return -EINVAL;
		return ptsim_mmap_file(mm, a0, a1, prot_of(op->u), r->fd[op->mm2], eval(r, &op->a[4]),
				       NULL);
	case S_ASLR: return ptsim_mm_set_aslr(mm, a0);
	case S_ELF_LOAD: {
		struct ptsim_elf_phdr ph = { 0, 0, a0, a1, a2, 5 };	/* R+X at offset 0 */

		if (op->mm2 < 0 || !r->is_file[op->mm2])
			return -EINVAL;
		return ptsim_elf_load(mm, r->fd[op->mm2], &ph, 1, &r->bias);
	}
	case S_EXEC_CALL:
		return eval_uint(r, &op->a[4], "cpu=", &u) ? -EINVAL : ptsim_exec_call(mm, u, a0);
	case S_EXEC_RANDOM: {
		uint64_t seed = eval(r, &op->a[5]), n = eval(r, &op->a[4]);
		uint64_t pages = a1 / r->g->page_size;
		int err = pages ? 0 : -EINVAL;

		for (uint64_t i = 0; !err && i < n; i++)
			err = ptsim_exec_call(mm, 0, a0 + (prng_next(&seed) % pages) * r->g->page_size);
		return err;
	}
	case S_KBOOT: {
		struct ptsim_mem_range ranges[2] = { { a0, a1 }, { a2, eval(r, &op->a[3]) } };
		struct ptsim_kernel_config kc = {
			.ranges = ranges, .nr_ranges = (op->u & (1u << 16)) ? 2 : 1,
			.kernel_start = eval(r, &op->a[4]), .kernel_end = eval(r, &op->a[5]),
			.kfence_pool = eval(r, &op->a[6]), .rodata = (enum ptsim_rodata)(op->u & 3),
			.debug_pagealloc = (op->u >> 12) & 1, .secondary_lacks_bbml2 = (op->u >> 13) & 1,
		};

		if (r->mm[op->mm])
			return -EEXIST;
		return ptsim_kernel_boot(r->m, &kc, &r->mm[op->mm]);
	}
	case S_KFINALIZE: return ptsim_kernel_finalize_caps(mm);
	case S_RAW_MM:
		if (r->mm[op->mm])
			return -EEXIST;
		return ptsim_raw_mm_create(r->m, &r->mm[op->mm]);
	case S_RAW_TABLE: return raw_table(r, mm, op, a0, a1);
	case S_RAW_WRITE: return raw_write(r, mm, op, a0, a1);
	case S_RAW_BARRIER:
		return eval_uint(r, &op->a[4], "cpu=", &u) ? -EINVAL :
		       ptsim_raw_barrier(r->m, u, (enum ptsim_raw_barrier)(op->u & 0xff));
	case S_RAW_TLBI: return raw_tlbi(r, mm, op);
	case S_EXPECT: return expect(r, mm, op, a0, a1, a2);
	case S_SET_MEMORY:
	case S_KSPLIT: {
		uint64_t va;
		int err = ptsim_kernel_lm_addr(mm, a0, &va);

		if (err)
			return err;
		if (op->kind == S_KSPLIT)
			return ptsim_split_kernel_leaf_mapping(mm, va, va + a1);
		/* guarded: only where the kernel's callers change the linear map at all */
		if ((op->u >> 8) & 1 && !ptsim_kernel_can_set_direct_map(mm))
			return 0;
		return ptsim_set_memory(mm, va, a1, (enum ptsim_set_memory_op)(op->u & 0xff));
	}
	default:
		return 0;
	}
}

/* A checkpoint of the counts and loop turns since the last one (last, last_loops move on). */
static int push_checkpoint(struct scn_result *res, size_t *cap, const char *name,
			   const struct ptsim_machine *m, struct ptsim_stats *last,
			   struct ptsim_loop_stats *last_loops)
{
	struct ptsim_stats now;
	struct ptsim_loop_stats now_loops;

	ptsim_total_stats(m, &now);
	ptsim_total_loop_stats(m, &now_loops);
	if (res->nr_cp == *cap) {
		size_t n = *cap ? 2 * *cap : 8;
		struct scn_checkpoint *cp = realloc(res->cp, n * sizeof(*cp));

		if (!cp)
			return -ENOMEM;
		res->cp = cp;
		*cap = n;
	}
	memset(&res->cp[res->nr_cp], 0, sizeof(res->cp[0]));
	snprintf(res->cp[res->nr_cp].name, sizeof(res->cp[0].name), "%s", name);
	for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++)
		res->cp[res->nr_cp].stats.ev[e] = now.ev[e] - last->ev[e];
	for (unsigned int l = 0; l < PTSIM_LOOP__COUNT; l++)
		res->cp[res->nr_cp].loops.iter[l] = now_loops.iter[l] - last_loops->iter[l];
	res->nr_cp++;
	*last = now;
	*last_loops = now_loops;
	return 0;
}

/* A checkpoint's name with $i, $j and $k replaced by the loop variables' values ("step-$i"). */
static void checkpoint_name(const struct runner *r, const char *text, char *out, size_t size)
{
	size_t n = 0;

	for (const char *c = text; *c && n + 1 < size; c++) {
		if (c[0] == '$' && c[1] >= 'i' && c[1] <= 'k') {
			int w = snprintf(out + n, size - n, "%llu", (unsigned long long)r->var[c[1] - 'i']);

			n = w < 0 || (size_t)w >= size - n ? size - 1 : n + (size_t)w;
			c++;
			continue;
		}
		out[n++] = *c;
	}
	out[n] = 0;
}

static uint64_t sum_events(const struct ptsim_stats *st)
{
	uint64_t n = 0;

	for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++)
		n += st->ev[e];
	return n;
}

/* Charge n work units; false when that passes the budget. */
static bool charge(struct scn_result *res, const struct scn_limits *lim, uint64_t n)
{
	if (__builtin_add_overflow(res->work, n, &res->work))
		res->work = UINT64_MAX;
	return !lim || !lim->max_work || res->work <= lim->max_work;
}

/* The count an operation asks for up front (repeat N, exec-random count=N), or 0. */
static uint64_t op_count(const struct runner *r, const struct scn_op *op)
{
	if (op->kind == S_REPEAT)
		return eval(r, &op->a[0]);
	if (op->kind == S_EXEC_RANDOM)
		return eval(r, &op->a[4]);
	return 0;
}

void scn_result_free(struct scn_result *res)
{
	free(res->cp);
	memset(res, 0, sizeof(*res));
}

/* Stop the run at op with err and a message naming its line. */
static int stop(struct scn_result *res, const struct scn_op *op, size_t i, int err, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int stop(struct scn_result *res, const struct scn_op *op, size_t i, int err, const char *fmt, ...)
{
	char why[96];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	res->err_line = op->line;
	res->err_op = i;
	snprintf(res->msg, sizeof(res->msg), "%u:%u: error: %s failed: %s", op->line, op->col,
		 scenario_op_name(op->kind), why);
	return err;
}

int scenario_run(const struct scenario *s, const struct scn_machine *mc, const char *features,
		 ptsim_diag_handler diag, void *diag_arg, scn_hook hook, void *hook_arg,
		 const struct scn_limits *lim, struct scn_result *res)
{
	struct ptsim_machine_config cfg;
	struct runner r = { .s = s, .n = mc->n, .out = lim ? lim->query_out : NULL };
	struct ptsim_stats last, now;
	struct ptsim_loop_stats last_loops;
	char name[sizeof(res->cp[0].name)];
	struct {
		size_t start;
		uint64_t left;
		int var;
	} loops[4];
	int depth = 0, err;
	uint64_t events, op_work = lim && lim->op_work ? lim->op_work : 1;
	size_t cap = 0;

	memset(res, 0, sizeof(*res));
	ptsim_machine_config_init(&cfg);
	cfg.cpu = mc->cpu;
	cfg.granule = mc->granule;
	cfg.va_bits = mc->va_bits;
	cfg.nr_cpus = mc->nr_cpus;
	cfg.phys_base = mc->phys_base;
	cfg.phys_size = mc->phys_size;
	cfg.kpti = mc->kpti;
	cfg.repeat_tlbi = mc->repeat_tlbi;
	cfg.preset = mc->preset;
	cfg.bbm_level = mc->bbm_level;
	cfg.bbml2_noabort = mc->bbml2_noabort;
	if (lim)
		cfg.host_memory_limit = lim->host_memory;
	err = ptsim_machine_create(&cfg, &r.m);
	if (err) {
		snprintf(res->msg, sizeof(res->msg), "machine: %s", ptsim_strerror(err));
		return res->err = err;
	}
	/* seed 1: a scenario's fragmented or shuffled frames are the same on every run */
	if (mc->phys != PTSIM_PHYS_SEQUENTIAL)
		ptsim_machine_set_phys_order(r.m, mc->phys, 1);
	if (mc->caches_cold)
		ptsim_machine_set_caches(r.m, PTSIM_CACHES_COLD);
	if (scenario_apply_features(r.m, features)) {
		ptsim_machine_destroy(r.m);
		snprintf(res->msg, sizeof(res->msg), "unknown feature or preset in %s", features);
		return res->err = -EINVAL;
	}
	ptsim_machine_geometry(r.m, &r.geo);
	r.g = &r.geo;
	{
		struct ptsim_cpu_info ci;

		ptsim_cpu_info(mc->cpu, &ci);
		r.bbm_level = mc->bbm_level ? mc->bbm_level - 1 : ci.bbm_level;
		r.noabort = mc->bbml2_noabort ? mc->bbml2_noabort == 2 : ci.bbml2_noabort;
	}
	if (diag)
		ptsim_set_diag_handler(r.m, diag, diag_arg);
	ptsim_total_stats(r.m, &last);
	ptsim_total_loop_stats(r.m, &last_loops);
	events = sum_events(&last);
	for (size_t i = 0; i < s->nr && !err; i++) {
		const struct scn_op *op = &s->ops[i];
		int64_t ret = 0;
		uint64_t v, n, cost;

		for (unsigned int k = 0; k < SCN_MAX_ARGS && !err; k++) {
			int e = eval_checked(&r, &op->a[k], &v);

			if (e)
				err = stop(res, op, i, -EINVAL, "%s", e == -EDOM ? "division by zero" :
					   "a number overflows 64 bits");
		}
		if (err)
			break;
		n = op_count(&r, op);
		if (__builtin_mul_overflow(n, op_work, &cost))
			cost = UINT64_MAX;
		if (!charge(res, lim, op_work) ||
		    (lim && lim->max_work && cost > lim->max_work - res->work)) {
			err = stop(res, op, i, -E2BIG, "over the work budget of %llu units",
				   (unsigned long long)lim->max_work);
			break;
		}
		if (op->kind == S_REPEAT) {
			int var = op->text[0] ? op->text[0] - 'i' : depth;

			if (!n) {	/* skip to the matching end */
				int d = 0;

				for (i++; i < s->nr; i++) {
					d += s->ops[i].kind == S_REPEAT;
					if (s->ops[i].kind == S_END && d-- == 0)
						break;
				}
				continue;
			}
			if (depth == 4 || var > 2) {
				err = stop(res, op, i, -EINVAL, "loops nested too deep");
				break;
			}
			loops[depth].start = i;
			loops[depth].left = n - 1;
			loops[depth].var = var;
			r.var[var] = 0;
			depth++;
			continue;
		}
		if (op->kind == S_END) {
			if (depth && loops[depth - 1].left) {
				loops[depth - 1].left--;
				r.var[loops[depth - 1].var]++;
				i = loops[depth - 1].start;
			} else if (depth) {
				depth--;
			}
			continue;
		}
		if (op->kind == S_CHECKPOINT) {
			if (res->nr_cp == SCN_MAX_CHECKPOINTS) {
				err = stop(res, op, i, -E2BIG, "more than %d checkpoints", SCN_MAX_CHECKPOINTS);
				break;
			}
			checkpoint_name(&r, op->text, name, sizeof(name));
			err = push_checkpoint(res, &cap, name, r.m, &last, &last_loops);
			if (err)
				stop(res, op, i, err, "%s", ptsim_strerror(err));
			continue;
		}
		if (op->kind == S_CHECK) {
			uint64_t bad = 0;
			int e = ptsim_check_invariants(r.m, &bad);

			if (e)
				err = stop(res, op, i, e, "%s", ptsim_strerror(e));
			else if (bad)
				err = stop(res, op, i, -EUCLEAN, "%llu invariant violation%s",
					   (unsigned long long)bad, bad == 1 ? "" : "s");
			if (err)
				break;
			continue;
		}
		if ((op->mm >= 0 && !r.mm[op->mm] && op->kind != S_MM && op->kind != S_KBOOT &&
		     op->kind != S_FILE && op->kind != S_RAW_MM) ||
		    (op->kind == S_FILE && r.is_file[op->mm])) {
			ret = -EINVAL;	/* a name used before it exists */
		} else {
			if (hook)
				hook(hook_arg, r.m, i, false);
			r.why[0] = 0;
			ret = run_op(&r, op);
			if (hook)
				hook(hook_arg, r.m, i, true);
		}
		if (ret < 0) {
			err = stop(res, op, i, (int)ret, "%s", r.why[0] ? r.why : ptsim_strerror((int)ret));
			break;
		}
		/* what the library did: every event it counted; each exec-random call (n) */
		ptsim_total_stats(r.m, &now);
		v = sum_events(&now);
		if (!charge(res, lim, v - events) || !charge(res, lim, op->kind == S_EXEC_RANDOM ? cost : 0)) {
			err = stop(res, op, i, -E2BIG, "over the work budget of %llu units",
				   (unsigned long long)lim->max_work);
			break;
		}
		events = v;
	}
	if (hook && !err)
		hook(hook_arg, r.m, s->nr, true);	/* the end of the run */
	ptsim_total_stats(r.m, &now);
	if (!err && (!res->nr_cp || memcmp(&now, &last, sizeof(now)))) {
		if (res->nr_cp == SCN_MAX_CHECKPOINTS) {
			err = -E2BIG;
			snprintf(res->msg, sizeof(res->msg), "%u:1: error: more than %d checkpoints "
				 "with the end's", s->ops[s->nr - 1].line, SCN_MAX_CHECKPOINTS);
		} else if ((err = push_checkpoint(res, &cap, "end", r.m, &last, &last_loops))) {
			snprintf(res->msg, sizeof(res->msg), "%u:1: error: end checkpoint: %s",
				 s->ops[s->nr - 1].line, ptsim_strerror(err));
		}
	}
	ptsim_machine_destroy(r.m);
	res->err = err;
	return err;
}
