/* SPDX-License-Identifier: MIT */
/* ptsim-bench: reproduce rows, the published data table and the workloads behind it. */
#ifndef PTSIM_BENCH_ROWS_H
#define PTSIM_BENCH_ROWS_H

#include <stdbool.h>
#include <stdio.h>
#include <ptsim/ptsim.h>

/* One published result (bench/published.c): the only place published numbers live. */
struct published {
	const char *id;
	const char *source;	/* patch series, version, date (short) */
	const char *citation;	/* where exactly the number was published */
	const char *cpu;	/* profile name (ptsim_cpu_name) */
	const char *metric;
	double value;
	/*
	 * Target: a fitted row must be within 5 %; a prediction within tol_pct
	 * (0: report only), or inside [lo, hi] when lo < hi.
	 */
	double tol_pct;
	double lo, hi;
	/*
	 * A fit row no constant is named after: ptsim-bench fit fits its CPU's
	 * fitted constants on it too (a constant's fitted_on names one row; a
	 * joint fit may use more rows than constants).
	 */
	bool joint_fit;
};

extern const struct published published_rows[];
extern const unsigned int nr_published_rows;

/* What simulating a row produced. */
struct row_result {
	double simulated;
	bool have_detail;
	const char *before_label, *after_label;
	enum ptsim_granule granule;
	struct ptsim_stats before, after;
	/* the loop turns behind them (ptsim_predict_overlap); all zero where none is counted */
	struct ptsim_loop_stats before_loops, after_loops;
};

typedef int (*row_sim_fn)(const struct published *row, struct row_result *out);

/* Row id -> simulation (bench/rows.c). */
row_sim_fn row_simulation(const char *id);

/* The mprotect benchmark program (bench/mprotect_program.c). */
enum mprotect_state { STATE_T1, STATE_T2, STATE_T3, NR_STATES };
struct program_run {
	struct ptsim_stats stats;	/* every event of the whole program */
	struct ptsim_loop_stats loops;	/* and every loop turn */
	double seconds;			/* predicted on the Apple M3 profile (ptsim_predict_overlap) */
};
/* The whole process at the fitted iteration count (mprotect_iterations()). */
int mprotect_program(enum mprotect_state state, bool batching, struct program_run *out);
int mprotect_program_at(enum mprotect_state state, bool batching, unsigned int iterations,
			struct program_run *out);
unsigned int mprotect_iterations(void);
/*
 * ptsim-bench fit's trial iteration count (fractional while it solves; 0
 * or less: back to the carried count), and the count the rows use now.
 */
void mprotect_iterations_set(double n);
double mprotect_iterations_now(void);
/* The row the iteration count is fitted on. */
extern const char *const mprotect_iterations_fitted_on;
/* Counts of each phase: N iterations = first + (N - 1) x iteration. */
struct mprotect_phases {
	struct ptsim_stats setup, first, iteration, exit;
	struct ptsim_loop_stats loops_setup, loops_first, loops_iteration, loops_exit;
};
int mprotect_phases(enum mprotect_state state, bool batching, struct mprotect_phases *out);
void mprotect_total(const struct mprotect_phases *p, double iterations, struct ptsim_stats *out,
		    struct ptsim_loop_stats *loops);
void mprotect_print_40(bool json);
/*
 * The state before the measured loop: 1 GiB at 1 GiB, memset (with faults of
 * the state's folio size), MADV_NOHUGEPAGE, explicit_bzero, and the
 * DONTFORK/DOFORK pair at every 2 MiB that leaves T1's THPs PTE-mapped.
 */
int mprotect_state_create(enum mprotect_state state, bool batching, struct ptsim_machine **m,
			  struct ptsim_mm **mm);
/* Write s as a JSON string. */
void json_string(const char *s);
/*
 * The JSON schema of every --json output (doc/json.md): one object that
 * starts with schema_version, ptsim_version and command. json_begin prints
 * that head, then `, "member": ` when member is not NULL (the command prints
 * its value); json_end closes the object and the line.
 */
#define JSON_SCHEMA_VERSION 1
#define JSON_SCHEMA_VERSION_TEXT "1"
void json_begin(const char *command, const char *member);
void json_end(void);
/*
 * A double with every digit it needs to read back as the same double (%.15g
 * to %.17g, the fewest that do); NaN or inf: null.
 */
void json_double(double v);
int mprotect_rows(const struct published *row, struct row_result *out);

/* The UFFDIO_MOVE compaction workload (bench/uffd_program.c). */
struct uffd_run_result {
	struct ptsim_stats all, mpp, clear_flush, normal_folio;	/* the moves; per function */
	struct ptsim_stats gc;		/* the GC's compaction between them (not measured) */
	struct ptsim_loop_stats mpp_loops;	/* the loop turns inside move_pages_pte */
};
int uffd_program(bool batching, struct uffd_run_result *out);
/* part's time over whole's, whole composed with its loop turns (ptsim_predict_overlap). */
double uffd_share(const struct ptsim_stats *part, const struct ptsim_stats *whole,
		  const struct ptsim_loop_stats *whole_loops);
int uffd_rows(const struct published *row, struct row_result *out);
void uffd_print_sweep(void);

int linear_map_rows(const struct published *row, struct row_result *out);
/* Every count of booting the AmpereOne of the MemTotal row (the PTE or the block linear map). */
int linear_map_boot_stats(bool blocks, struct ptsim_stats *out);

/* The exec-folio benchmark (bench/exec_program.c). */
int exec_program(enum ptsim_granule granule, bool patched, struct ptsim_stats *cold,
		 struct ptsim_stats *random);
int exec_rows(const struct published *row, struct row_result *out);
void exec_print_16k(void);
/* predict's i-th row id ("lifecycle.altra.fork_1g_pte_mapped_thp", ...), NULL past the last. */
const char *lifecycle_row_id(unsigned int i);

/* Progress on stderr for long steps. */
void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * A counter for a long loop, on stderr only when it is a terminal: start it,
 * ask progress_due() each turn (true after the first second, at most twice a
 * second), then progress_line() rewrites one line in place; progress_end()
 * erases it and stops the counter (progress() erases it and prints its line).
 */
void progress_start(void);
bool progress_due(void);
void progress_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void progress_end(void);
/*
 * One formatted line (or several, split at newlines) on f, wrapped at 80
 * columns, its continuation lines indented by hang spaces.
 */
void wrap_print(FILE *f, size_t hang, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Print a command's usage to f; 0 for stdout, 2 for stderr (the exit status). */
int command_usage(const char *name, FILE *f);
/*
 * An option's number: decimal, or hex with 0x; no sign, nothing after it,
 * not past 2^64 - 1 (strtoull would take "-1" and saturate). false if not.
 */
bool parse_u64(const char *text, uint64_t *out);
/*
 * Parse a command that takes only --json (and --help): 0 to go on, -1 when
 * --help was printed (exit 0), 2 on a usage error.
 */
int parse_json_option(const char *name, int argc, char **argv, bool *json);

/* The subcommands (bench/ptsim-bench-util.c). */
struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *args, *what;
	const char *options;	/* one line per option: what it does (the --help text) */
};
extern const struct command commands[];
extern const size_t nr_commands;
/* The general usage text on f: 0 for stdout, 2 for stderr. */
int usage(FILE *f);

/* Subcommands. */
int cmd_reproduce(int argc, char **argv);
int cmd_cpus(int argc, char **argv);
int cmd_speed(int argc, char **argv);
int cmd_fit(int argc, char **argv);
int cmd_predict(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_audit(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_completion(int argc, char **argv);
/*
 * A comma-separated list of CPU names ("all": every profile) as a bit per CPU
 * in *mask and, when order is not NULL, the CPUs in the order named (each
 * once; *nr of them). -EINVAL after printing "CMD: --cpu: unknown CPU 'X';
 * valid: ..." (or an empty list) on stderr.
 */
int parse_cpus(const char *cmd, const char *list, unsigned int *mask, enum ptsim_cpu *order,
	       unsigned int *nr);
/* The valid names, comma-separated, on f (for error messages). */
void print_valid_cpus(FILE *f);
void print_valid_presets(FILE *f);
void print_valid_features(FILE *f);

/* "4K,64k": a bit per granule shift in *mask (any case); -EINVAL after a message naming cmd. */
int parse_granules(const char *cmd, const char *list, unsigned int *mask);
/*
 * 0 when spec (presets and features, comma-separated, +name/-name) names only
 * known ones; otherwise prints the unknown name and the valid ones and
 * returns the exit status (2; 1 when no machine could be made).
 */
int check_feature_spec(const char *cmd, const char *spec);
/* The predicted time of s on cpu and granule g, in ns (0 for bad arguments). */
struct scn_checkpoint;
/* A checkpoint's time on cpu: its counts and loop turns composed (ptsim_predict_overlap). */
double predict_ns(enum ptsim_cpu cpu, enum ptsim_granule g, const struct scn_checkpoint *cp);
/*
 * The --jobs workers' pipes: all of buf written to fd (retrying after
 * EINTR), or len bytes read from f. 0, or -1 when the other side is gone.
 */
int write_all(int fd, const void *buf, size_t len);
int read_all(FILE *f, void *buf, size_t len);
/*
 * The whole file at path (malloc'd; *len bytes, then a NUL), or NULL with
 * errno set: a directory EISDIR, any other file that is not a regular one
 * (a device, a FIFO) EINVAL, one over READ_FILE_MAX bytes EFBIG.
 */
#define READ_FILE_MAX		(INT64_C(256) << 20)
#define READ_FILE_MAX_TEXT	"256 MiB"
char *read_file(const char *path, size_t *len);
/* What read_file's errno means, for a message. */
const char *read_file_error(int err);

#endif
