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
    const char *sweep_file, *sweep_text, *section, *command_line;
} run_info;

/* The outcome of one configuration. */
typedef struct result_record {
    const char *status;          /* ok | wrong | skipped | timeout | error */
    char message[512];
    sample_summary summary;      /* of the timed samples (ok rows only) */
    long long bytes_moved;       /* payload bytes sent between distinct ranks, all ranks */
    a2a_stats stats;             /* per-rank maximum of each field, first (validated) call */
    int oversubscribed;          /* more ranks than cores on some node of the sub-communicator */
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

/* Starts a run and returns its id. */
int db_begin_run(db *d, const run_info *info, long long *run_id, char *err, size_t errlen);

/* The newest run of the same sweep text, section filter and launch size, if any:
 * returns 1 and its id, 0 if there is none, -1 on error. */
int db_find_resumable_run(db *d, const run_info *info, long long *run_id);

/* Marks run_id running again (for --resume). */
int db_reopen_run(db *d, long long run_id);

/* Calls seen(key, ctx) for every configuration already recorded in run_id. */
int db_recorded_keys(db *d, long long run_id, void (*seen)(const char *key, void *ctx), void *ctx);

/* Stores one configuration and its samples in one transaction. */
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
    const char *status;          /* ok | wrong | error | ... */
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

/* Sets the run's end time and final status ("done", "failed", "timeout"). */
int db_end_run(db *d, long long run_id, const char *status);

#endif
