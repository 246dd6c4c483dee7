/* db.h — the results database (SQLite): runs, results, samples, counters, metrics.
 *
 * Only rank 0 touches the database. Every configuration is written in one transaction,
 * so a run killed at any moment leaves whole configurations or nothing. */
#ifndef A2A_DB_H
#define A2A_DB_H

#include <sqlite3.h>
#include <stddef.h>
#include "configs.h"
#include "counting.h"
#include "stats.h"

typedef struct db db;

/* Where and how a run was measured. */
typedef struct run_info {
    char host[256], hosts[1024];
    int nodes, world_size, ppn, cores_per_node, oversubscribed;
    char mpi_library[64], mpi_version[512], compiler[128], git_revision[64], cpu_model[256];
    long long l1d_bytes, l2_bytes, l3_bytes;
    char backend[32];
    /* backend simgrid: the platform file's name and sha256, SimGrid's version, the
     * smpirun options (empty for real runs) */
    char platform[256], platform_sha256[65], simgrid_version[32], smpi_options[1024];
    /* backend simgrid: the network model (JSON, `a2a simulate` writes it; schema 4) */
    char network_model[4096];
    const char *sweep_file, *sweep_text, *section, *command_line;
    /* schema 3: launches of one experiment, order, MPI environment, binding, load */
    const char *launch_group;    /* shared by the launches of one experiment, or NULL */
    int launch_index, launches;  /* 1..launches; launches = 0: not part of a series */
    int shuffled;                /* configurations ran in the order drawn from order_seed */
    unsigned long long order_seed;
    char mpi_env[8192];          /* JSON: MPI variables and parameter files */
    char binding[4096];          /* CPUs each rank may run on: "0-1:0-1" (ranks:cpus) */
    double load_start;           /* 1-minute load average at the start, -1 if unknown */
} run_info;

/* The outcome of one configuration, stored by name in results.status (db_status_name).
 * Zero is STATUS_ERROR: a record nobody filled in is never taken for a result. */
typedef enum result_status {
    STATUS_ERROR,
    STATUS_OK,
    STATUS_WRONG,
    STATUS_SKIPPED,
    STATUS_TIMEOUT,
    STATUS_COUNT
} result_status;

/* One view of the results contract: its name and the SELECT it stands for. */
typedef struct db_view {
    const char *name, *select;
} db_view;

/* The views every database opened for writing holds (result_data, measurement,
 * best_radix, speedup_vs_baseline: the results contract), in creation order; *count is set to their number. The scripts
 * read them through `a2atune list --json` to query an older file the same way. */
const db_view *db_views(int *count);

/* The stored name of a status: "error", "ok", "wrong", "skipped", "timeout". */
const char *db_status_name(result_status status);

/* The outcome of one configuration. */
typedef struct result_record {
    result_status status;
    char message[512];
    sample_summary summary;      /* of the timed samples (ok rows only) */
    long long bytes_moved;       /* payload bytes sent between distinct ranks, all ranks */
    long long bytes_copied;      /* payload bytes arriving in receive buffers, every rank's
                                    own block included (P^2 S for alltoall): what HINT copies */
    a2a_stats stats;             /* per-rank maximum of each field, first (validated) call */
    int oversubscribed;          /* more ranks alive (measured or idle) than cores on some
                                    node of the sub-communicator */
    int idle_ranks;              /* ranks of the launch alive outside the sub-communicator */
    int iterations, warmup;      /* timed and warm-up calls made (iterations = auto: chosen) */
    double started, ended;       /* Unix time */
    counted_events counted;      /* counters (counted.n == 0: none asked) */
    int unvalidated;             /* payloads not compared (simulation above the validation
                                    limit: shared buffers); the row says validated = 0 */
} result_record;

/* Opens or creates the database at path. Refuses (returns -1, one line in err) a file
 * that is not SQLite, an SQLite database that is not ours or from a newer a2atune, a
 * path that cannot be created, and a read-only file. Never modifies a refused file. */
int db_open(const char *path, db **out, char *err, size_t errlen);
void db_close(db *d);

/* Starts a run (status running, this process's pid, a first heartbeat) and returns its id. */
int db_begin_run(db *d, const run_info *info, long long *run_id, char *err, size_t errlen);

/* The newest run, not running, of the same sweep text, section filter, launch size and
 * MPI library and version, and the same launch of the same launch group (or none), if
 * any: returns 1 and its id, 0 if there is none, -1 on error. */
int db_find_resumable_run(db *d, const run_info *info, long long *run_id);

/* BEGIN IMMEDIATE, COMMIT or ROLLBACK (verb): groups the calls below into one atomic
 * step. Returns 0, or -1 with the reason in err (may be NULL). */
int db_transaction(db *d, const char *verb, char *err, size_t errlen);

/* Runs left 'running' whose launch is gone become 'interrupted': no heartbeat within
 * stale_seconds, or (on this_host) no process with their pid; a simulated run (no
 * heartbeat) when no process of this machine with its pid runs a2atune. *marked counts
 * them. Returns 0 or -1. */
int db_mark_dead_runs(db *d, const char *this_host, double stale_seconds, int *marked);

/* Calls seen(identity, run_id, ctx) for every configuration a live ('running') run
 * planned. Returns 0 or -1. */
int db_live_plans(db *d, void (*seen)(const char *identity, long long run_id, void *ctx), void *ctx);

/* Makes run_id this process's: its pid, a fresh heartbeat and its plan (identities one
 * a line, NULL for none). Returns 0 or -1. */
int db_claim_run(db *d, long long run_id, const char *planned);

/* A fresh heartbeat for run_id while it is 'running'. Returns 0 or -1. */
int db_heartbeat(db *d, long long run_id);

/* Calls seen(identity, status, ctx) once for every configuration identity (config_key
 * without its section) and status ('ok' or 'skipped') recorded by any run with the same
 * MPI library and version, CPU model, cores per node and backend (the host class) as
 * `in`, in the same launch of the same launch group (or in no group, as `in`): launch i of
 * a group measures again what the other launches measured. Returns 0 or -1. */
int db_recorded_identities(db *d, const run_info *in,
                           void (*seen)(const char *identity, result_status status, void *ctx),
                           void *ctx);

/* Records in run_id the platform prior its search used (schema 5: runs.tuner_prior, the
 * file's name, platform and line counts; runs.tuner_prior_text, its content). 0, or -1 with
 * the reason in err. */
int db_record_tuner_prior(db *d, long long run_id, const char *prior, const char *content,
                          char *err, size_t errlen);

/* Marks run_id running again (for --resume). */
int db_reopen_run(db *d, long long run_id);

/* Calls seen(key, ctx) for every configuration already recorded in run_id. */
int db_recorded_keys(db *d, long long run_id, void (*seen)(const char *key, void *ctx), void *ctx);

/* Stores one configuration and its samples in one transaction (all or nothing). Returns
 * 0, or -1 with SQLite's reason in err ("database or disk is full"). */
int db_store_result(db *d, long long run_id, const sweep_section *sec, const config *c,
                    const result_record *r, const double *samples, int nsamples, char *err,
                    size_t errlen);

/* A named figure of a measurement beyond its timings ("comm_s", "iterations", "GB/s"). */
typedef struct metric {
    const char *name;
    double value;
    const char *unit; /* may be NULL */
} metric;

/* A measurement made outside a sweep (an application run, a copy-bandwidth test): one
 * row of results with its samples (summarised like sweep rows) and metrics. The row's
 * config_key is built from every identifying field, so two measurements that differ in
 * any of them never collide; radix, radix2, block_count and ppn columns are filled from
 * params_json when it holds them. */
typedef struct measurement {
    const char *section, *family, *kernel, *dist; /* family: e.g. "app", "copy" */
    int P, Q;
    long long S;                 /* bytes (the measurement's own notion of size) */
    const char *params_json;     /* JSON object or NULL */
    const char *dist_params_json;/* JSON object or NULL */
    const char *payload, *datatype; /* may be NULL */
    unsigned long long seed;
    int warmup, oversubscribed;
    result_status status;
    const char *message;         /* may be NULL */
    const double *samples;       /* seconds, nsamples of them (iterations = nsamples) */
    int nsamples;
    long long bytes_moved;       /* -1: not applicable */
    const metric *metrics;
    int nmetrics;
    double started, ended;       /* Unix time */
} measurement;

/* Stores one measurement, its samples and metrics in one transaction (all or nothing).
 * Returns 0, or -1 with one line in err. */
int db_store_measurement(db *d, long long run_id, const measurement *m, char *err, size_t errlen);

/* Records the 1-minute load average at the end of the run (nothing if load < 0). */
int db_note_run_load(db *d, long long run_id, double load);

/* Sets the run's end time and final status ("done", "failed", "timeout"). */
int db_end_run(db *d, long long run_id, const char *status);

/* ---- for `a2atune tune` ---- */

/* Opens an a2atune database for reading only (a replay source): -1 with one line in err
 * for a file that is missing, not SQLite or not ours. */
int db_open_readonly(const char *path, db **out, char *err, size_t errlen);

/* The newest run of the same sweep text, section filter and launch size holding rows
 * the tuner chose: 1 and its id, 0 if there is none, -1 on error. */
int db_find_tuner_run(db *d, const run_info *info, long long *run_id);

/* Calls seen(key, record, tuner_step or -1, ctx) for every row of run_id, oldest first;
 * record holds status, message and the timing summary (summary.n = iterations). */
int db_recorded_results(db *d, long long run_id,
                        void (*seen)(const char *key, const result_record *r, int step, void *ctx),
                        void *ctx);

/* Provenance of the run a replayed database measured: its newest run of the same sweep
 * text (else its newest run), backend "replay:<backend>", and as the world size the
 * largest of any run of that backend (a simulation runs one launch of exactly P ranks
 * per P, so its newest run alone would hide the larger P). -1 with a message if it has
 * no run. */
int db_replay_run_info(db *d, const char *sweep_text, run_info *info, char *err, size_t errlen);

/* The newest non-skipped row of configuration key: status, message, summary, oversubscribed,
 * bytes moved, measured counts, and up to max_samples samples. Returns 1, 0 if the
 * database has no such row, -1 on error. */
int db_replay_result(db *d, const char *key, result_record *r, double *samples, int max_samples,
                     int *nsamples);

/* ---- for `a2atune app` ---- */

/* The dist_params JSON of an application row (malloc'ed text, keys sorted, compact, as
 * every row's): a closure's graph {"edges", "graph", "vertices"}, an FFT {"fft",
 * "uniform"}. */
char *db_graph_dist_json(const char *graph, unsigned vertices, long long edges);
char *db_fft_dist_json(const char *size, int uniform);


/* The kernel (family, name) and parameters the results contract chooses for one
 * application workload in the sweep results of `path` (measurements of the view
 * measurement; shared buffers excluded): per candidate, tc (dist = graph, nonuniform family)
 * the sum over every iteration of the closure of its best median per iteration (noise: the
 * sum of theirs); else (dist = fft, uniform or nonuniform) its best median. The choice is
 * the lowest of those unless others are within the noise of it; then the simplest of them
 * (scripts/a2a_tools/core/contract.py). instance: the graph spec or FFT size as stored. Fills
 * summary ("median 1.234 ms (noise 0.010 ms) over 1 configuration(s); the fastest"); 0, or
 * -1 with the reason in err. Opens the database read-only. */
int db_best_app_kernel(const char *path, int tc, const char *instance, int P, int *family,
                       char *name, size_t namelen, int params[A2A_PARAM_COUNT], char *summary,
                       size_t sumlen, char *err, size_t errlen);

#endif
