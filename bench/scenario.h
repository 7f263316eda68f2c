/* SPDX-License-Identifier: MIT */
/*
 * Scenario files (doc/scenario.md): a line-oriented description of a
 * workload in public calls, parsed once and run on any machine
 * configuration. Used by `ptsim-bench run` and `ptsim-bench audit`, and
 * fuzzed by the API harness.
 */
#ifndef PTSIM_BENCH_SCENARIO_H
#define PTSIM_BENCH_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <ptsim/ptsim.h>

#define SCN_MAX_ARGS 8
#define SCN_MAX_TERMS 4
#define SCN_MAX_NAMES 16

/*
 * A numeric argument: a sum of terms, each a constant times at most one
 * variable ($i, $j, $k, $n, $bias) and at most one size (PAGE, PMD, CONT),
 * optionally divided (integer division) by one number, size or variable.
 */
enum scn_factor { F_ONE, F_VAR_I, F_VAR_J, F_VAR_K, F_PAGE, F_PMD, F_CONT, F_BIAS, F_VAR_N };

struct scn_expr {
	unsigned int nr;
	struct {
		uint64_t k;
		enum scn_factor f;	/* a variable, or F_ONE */
		enum scn_factor g;	/* a size, or F_ONE */
		uint64_t dk;		/* divisor dk * dv; 0: no division */
		enum scn_factor dv;
	} t[SCN_MAX_TERMS];
};

enum scn_kind {
	S_FEATURE, S_THP, S_MM, S_THREADS, S_MMAP, S_POPULATE, S_SPLIT, S_ACCESS, S_TOUCH,
	S_FAULT, S_MPROTECT, S_NUMA, S_FORK, S_EXIT, S_DESTROY, S_MUNMAP, S_MREMAP, S_MADVISE,
	S_MLOCK, S_MUNLOCK, S_UFFD_REGISTER, S_UFFD_MOVE, S_PIN, S_SWAPOUT, S_FILE, S_MMAP_FILE,
	S_ASLR, S_ELF_LOAD, S_EXEC_CALL, S_EXEC_RANDOM, S_KBOOT, S_KFINALIZE, S_SET_MEMORY,
	S_KSPLIT, S_CHECKPOINT, S_REPEAT, S_END, S_PTDUMP, S_CHECK, S_PIN_USER_PAGES,
	S_GET_USER_PAGES, S_PAGEMAP, S_VMAS,
	/* the raw architectural API (include/ptsim/raw.h) and self-checks */
	S_RAW_MM, S_RAW_TABLE, S_RAW_WRITE, S_RAW_BARRIER, S_RAW_TLBI, S_EXPECT, S__COUNT
};

struct scn_op {
	enum scn_kind kind;
	unsigned int line;
	unsigned int col;		/* the column of the operation's name */
	int mm, mm2;			/* name slots (mm, kernel mm or file) */
	struct scn_expr a[SCN_MAX_ARGS];
	unsigned int nr_args;
	unsigned int u;			/* bits 0-7: a keyword (prot, advice, kind); 8 on: key flags */
	bool on;
	unsigned char sub;		/* expect: what is checked (violations, pa, ...) */
	unsigned char word2;		/* expect fault: the fault kind */
	char text[48];			/* checkpoint name, feature name, kernel ranges */
};

/* The machine a scenario asks for; run options may override it. */
struct scn_machine {
	enum ptsim_cpu cpu;
	enum ptsim_granule granule;
	unsigned int va_bits, nr_cpus;
	uint64_t phys_base, phys_size;
	char preset[48];
	bool kpti, repeat_tlbi;
	enum ptsim_phys_order phys;	/* phys=: ptsim_machine_set_phys_order */
	bool caches_cold;		/* caches=cold: ptsim_machine_set_caches */
	uint64_t n;			/* the sweep variable $n for this run */
	/* break-before-make overrides, as ptsim_machine_config's (0: the CPU's) */
	unsigned int bbm_level, bbml2_noabort;
};

/* At most this many values in a sweep. */
#define SCN_MAX_SWEEP 256

struct scenario {
	struct scn_machine machine;
	struct scn_op *ops;
	size_t nr, cap;
	char names[SCN_MAX_NAMES][16];
	unsigned int nr_names;
	uint64_t sweep[SCN_MAX_SWEEP];	/* the values of $n (the sweep line; none: $n is 0) */
	unsigned int nr_sweep;
};

/*
 * A list of sweep values: comma-separated numbers (sizes allowed), A..B
 * (A, 2A, 4A, ... up to B) and A..B+S (A, A+S, ... up to B). 0, or -EINVAL
 * with the reason in err.
 */
int scenario_parse_values(const char *text, uint64_t *vals, unsigned int *nr, char *err,
			  size_t errlen);

/*
 * Parse text (file name for messages). 0, or -EINVAL with "FILE:LINE:COL:
 * message" in err. Never crashes on any input.
 */
int scenario_parse(const char *text, size_t len, const char *file, struct scenario *out,
		   char *err, size_t errlen);
void scenario_free(struct scenario *s);
/* The longest error message scenario_parse and scenario_run write (the valid names listed). */
#define SCN_ERR_MAX	2048
/*
 * The names name(0), name(1), ... up to the first NULL, comma-separated, into
 * buf: the first line goes on from column col, each line ends before column
 * 80, the next begins with indent spaces (the valid names an error lists).
 */
void names_wrapped(char *buf, size_t len, const char *(*name)(unsigned int), size_t col,
		   size_t indent);
/* The i-th feature's name (ptsim_feature_name), NULL past the last: names_wrapped's argument. */
const char *feature_name_at(unsigned int i);
/* names_wrapped of the features (ptsim_feature_name). */
void valid_features_text(char *buf, size_t len, size_t col, size_t indent);
/* Write s back as scenario text (the audit's reproducers). */
void scenario_print(const struct scenario *s, FILE *f);
int scenario_add(struct scenario *s, const struct scn_op *op);
/* The slot of a name, added when missing; -1 when the table is full. */
int scenario_name(struct scenario *s, const char *name);

struct scn_checkpoint {
	char name[48];
	struct ptsim_stats stats;	/* events since the previous checkpoint */
	struct ptsim_loop_stats loops;	/* and loop turns (ptsim_predict_overlap) */
};

/* What one run produced. */
struct scn_result {
	struct scn_checkpoint *cp;
	size_t nr_cp;
	int err;			/* 0, or the errno of the operation that failed */
	unsigned int err_line;
	size_t err_op;
	uint64_t work;			/* the work units the run used (struct scn_limits) */
	char msg[160];
};

/* At most this many checkpoints per run (each costs a struct ptsim_stats). */
#define SCN_MAX_CHECKPOINTS 4096

/*
 * Bounds on one run. Work units: op_work per operation executed, loop
 * iteration and exec-random call, and one per event the library counted. A
 * count (repeat N, exec-random count=N) whose op_work * N is more than the
 * budget left is refused before it starts; the run stops with -E2BIG once
 * the units used pass max_work (0: no bound).
 */
struct scn_limits {
	uint64_t max_work;
	uint64_t op_work;		/* 0: 1 */
	uint64_t host_memory;		/* the machine's host_memory_limit (0: none) */
	FILE *query_out;		/* where pagemap and vmas print (NULL: nowhere) */
};

/*
 * ptsim-bench run: an operation costs about as much host time as 64 events
 * counted in bulk, and 2^34 units are several times what the largest example
 * (bench/scenarios/mprotect-t1.scn) needs (doc/scenario.md).
 */
#define SCN_RUN_OP_WORK 64
/* pin-user-pages and get-user-pages take at most this many pages (the array of their addresses). */
#define SCN_MAX_GUP_PAGES (UINT64_C(1) << 20)
#define SCN_DEFAULT_MAX_WORK (UINT64_C(1) << 34)

/*
 * Called before and after each operation (op index), and once more after the
 * last one with op == s->nr, for the audit and run's invariant checks.
 */
typedef void (*scn_hook)(void *arg, struct ptsim_machine *m, size_t op, bool after);

/*
 * Run s on machine description mc (after run options), with features applied
 * from a spec ("PRESET", "+name", "-name", comma-separated; NULL: the
 * machine's preset). diag/diag_arg go to the machine's diagnostic handler
 * (NULL: silent). lim may be NULL (no bounds). Returns 0, or the failing
 * operation's errno (also in res, with a message naming its line).
 */
int scenario_run(const struct scenario *s, const struct scn_machine *mc, const char *features,
		 ptsim_diag_handler diag, void *diag_arg, scn_hook hook, void *hook_arg,
		 const struct scn_limits *lim, struct scn_result *res);
void scn_result_free(struct scn_result *res);
/*
 * The scenario's machine on another CPU and granule, as run and sweep use it:
 * a 48-bit VA asked for on 16K becomes 47 bits (16K has no 48-bit 4-level
 * layout without LPA2).
 */
struct scn_machine scenario_machine_on(const struct scenario *s, enum ptsim_cpu cpu,
				       enum ptsim_granule gr);
/* Apply a feature spec to m: 0 or -EINVAL (unknown name). */
int scenario_apply_features(struct ptsim_machine *m, const char *spec);
const char *scenario_op_name(enum scn_kind kind);

#endif
