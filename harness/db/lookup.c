/* lookup.c — what resuming and replaying read (see db.h): the run a --resume continues
 * (a sweep's or the tuner's), the configurations recorded already (in a run, or by any run
 * of the same host class), the tuner's recorded rows, and a replayed database's run and
 * newest result of a configuration. */
#include <stdio.h>
#include "db_internal.h"

/* Guarantees: binds the launch of in to parameters i and i + 1 of st: its launch group
 * (NULL for none) and its index in the group (0 when it is not part of a series). */
static void bind_launch(sqlite3_stmt *st, int i, const run_info *in)
{
    db_bind_text_or_null(st, i, in->launch_group);
    sqlite3_bind_int(st, i + 1, in->launches > 0 ? in->launch_index : 0);
}

/* Guarantees: sql prepared on d with in's sweep text, section filter ('' for none) and
 * world size bound to parameters 1..3 (a run is resumed only by the same sweep at the
 * same size); NULL on an SQLite error. */
static sqlite3_stmt *prepare_same_sweep(db *d, const char *sql, const run_info *in)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->handle, sql, -1, &st, NULL) != SQLITE_OK)
        return NULL;
    db_bind_text_or_null(st, 1, in->sweep_text);
    sqlite3_bind_text(st, 2, in->section ? in->section : "", -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 3, in->world_size);
    return st;
}

/* Guarantees: runs st (NULL: its preparing failed), a query of run ids, and finalizes it:
 * 1 with the first id in *run_id, 0 when it yields none, -1 on an SQLite error. */
static int first_run(sqlite3_stmt *st, long long *run_id)
{
    int rc = st ? sqlite3_step(st) : SQLITE_ERROR, found = 0;
    if (rc == SQLITE_ROW) {
        *run_id = sqlite3_column_int64(st, 0);
        found = 1;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? found : -1;
}

/* Guarantees: see db.h. */
int db_find_resumable_run(db *d, const run_info *in, long long *run_id)
{
    sqlite3_stmt *st =
        prepare_same_sweep(d, "SELECT id FROM runs WHERE sweep_text IS ?1"
                           " AND IFNULL(section, '') = ?2 AND world_size = ?3"
                           " AND mpi_library IS ?4 AND mpi_version IS ?5"
                           " AND launch_group IS ?6 AND IFNULL(launch_index, 0) = ?7"
                           " AND status <> 'running' ORDER BY id DESC LIMIT 1", in);
    if (st) {
        sqlite3_bind_text(st, 4, in->mpi_library, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 5, in->mpi_version, -1, SQLITE_TRANSIENT);
        bind_launch(st, 6, in);
    }
    return first_run(st, run_id);
}

/* Guarantees: see db.h. */
int db_find_tuner_run(db *d, const run_info *in, long long *run_id)
{
    return first_run(prepare_same_sweep(d, "SELECT id FROM runs r WHERE sweep_text IS ?1"
                                        " AND IFNULL(section, '') = ?2 AND world_size = ?3"
                                        " AND EXISTS (SELECT 1 FROM results"
                                        " WHERE run_id = r.id AND chosen_by = 'tuner')"
                                        " ORDER BY id DESC LIMIT 1", in),
                     run_id);
}

/* Guarantees: seen() is called once per recorded configuration key of the run. */
int db_recorded_keys(db *d, long long run_id, void (*seen)(const char *key, void *ctx), void *ctx)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->handle, "SELECT config_key FROM results WHERE run_id = ?", -1, &st,
                           NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(st, 1, run_id);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        seen((const char *)sqlite3_column_text(st, 0), ctx);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* Guarantees: see db.h. The identity is the configuration key without its section
 * (config_key = section "|" identity). */
int db_recorded_identities(db *d, const run_info *in,
                           void (*seen)(const char *identity, result_status status, void *ctx),
                           void *ctx)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->handle,
                           "SELECT DISTINCT substr(r.config_key, length(r.section) + 2), r.status"
                           " FROM results r JOIN runs u ON u.id = r.run_id"
                           " WHERE r.status IN ('ok', 'skipped') AND substr(r.config_key, 1, length(r.section) + 1)"
                           " = r.section || '|' AND u.mpi_library IS ? AND u.mpi_version IS ?"
                           " AND u.cpu_model IS ? AND u.cores_per_node IS ?"
                           " AND IFNULL(u.backend, '') = ?"
                           /* launch i of a launch group measures everything again */
                           " AND u.launch_group IS ? AND IFNULL(u.launch_index, 0) = ?",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(st, 1, in->mpi_library, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, in->mpi_version, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, in->cpu_model, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 4, in->cores_per_node);
    sqlite3_bind_text(st, 5, in->backend, -1, SQLITE_TRANSIENT);
    bind_launch(st, 6, in);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        seen((const char *)sqlite3_column_text(st, 0), db_status_from_text(sqlite3_column_text(st, 1)),
             ctx);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* Copies column `col` (text or NULL) into out. */
static void column_text(sqlite3_stmt *st, int col, char *out, size_t len)
{
    const unsigned char *text = sqlite3_column_text(st, col);
    snprintf(out, len, "%s", text ? (const char *)text : "");
}

/* Fills r's status, message and summary from columns status, message, median_s, q1_s,
 * q3_s, min_s, max_s, mean_s, stddev_s, iterations starting at column `at`. */
static void read_summary(sqlite3_stmt *st, int at, result_record *r)
{
    r->status = db_status_from_text(sqlite3_column_text(st, at));
    column_text(st, at + 1, r->message, sizeof r->message);
    int timed = sqlite3_column_type(st, at + 2) != SQLITE_NULL;
    double *fields[] = { &r->summary.median, &r->summary.q1, &r->summary.q3, &r->summary.min,
                         &r->summary.max, &r->summary.mean, &r->summary.stddev };
    for (int k = 0; k < 7; k++)
        *fields[k] = timed ? sqlite3_column_double(st, at + 2 + k) : 0;
    r->summary.n = timed ? sqlite3_column_int(st, at + 9) : 0;
}

/* Guarantees: see db.h. */
int db_recorded_results(db *d, long long run_id,
                        void (*seen)(const char *key, const result_record *r, int step, void *ctx),
                        void *ctx)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->handle,
                           "SELECT config_key, IFNULL(tuner_step, -1), status, message, median_s,"
                           " q1_s, q3_s, min_s, max_s, mean_s, stddev_s, iterations FROM results"
                           " WHERE run_id = ? ORDER BY id", -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(st, 1, run_id);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        result_record r = { 0 };
        read_summary(st, 2, &r);
        seen((const char *)sqlite3_column_text(st, 0), &r, sqlite3_column_int(st, 1), ctx);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* Guarantees: see db.h. */
int db_replay_run_info(db *d, const char *sweep_text, run_info *info, char *err, size_t errlen)
{
    /* the newest run of the sweep (else the newest), and the largest world of its backend */
    sqlite3_stmt *st = db_prepare(
        d, "SELECT host, hosts, nodes,"
        " (SELECT max(o.world_size) FROM runs o WHERE o.backend IS runs.backend), ppn,"
        " cores_per_node, oversubscribed, mpi_library, mpi_version, compiler, git_revision,"
        " cpu_model, l1d_bytes, l2_bytes, l3_bytes, backend,"
        " id FROM runs ORDER BY sweep_text IS ? DESC, id DESC LIMIT 1", err, errlen);
    if (!st)
        return -1;
    db_bind_text_or_null(st, 1, sweep_text);
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        snprintf(err, errlen, "%s", rc == SQLITE_DONE ? "holds no runs" : sqlite3_errmsg(d->handle));
        sqlite3_finalize(st);
        return -1;
    }
    column_text(st, 0, info->host, sizeof info->host);
    column_text(st, 1, info->hosts, sizeof info->hosts);
    info->nodes = sqlite3_column_int(st, 2);
    info->world_size = sqlite3_column_int(st, 3);
    info->ppn = sqlite3_column_int(st, 4);
    info->cores_per_node = sqlite3_column_int(st, 5);
    info->oversubscribed = sqlite3_column_int(st, 6);
    column_text(st, 7, info->mpi_library, sizeof info->mpi_library);
    column_text(st, 8, info->mpi_version, sizeof info->mpi_version);
    column_text(st, 9, info->compiler, sizeof info->compiler);
    column_text(st, 10, info->git_revision, sizeof info->git_revision);
    column_text(st, 11, info->cpu_model, sizeof info->cpu_model);
    info->l1d_bytes = sqlite3_column_int64(st, 12);
    info->l2_bytes = sqlite3_column_int64(st, 13);
    info->l3_bytes = sqlite3_column_int64(st, 14);
    char backend[32];
    column_text(st, 15, backend, sizeof backend);
    snprintf(info->backend, sizeof info->backend, "replay:%.20s", backend[0] ? backend : "mpi");
    sqlite3_finalize(st);
    return 0;
}

/* Guarantees: see db.h. */
int db_replay_result(db *d, const char *key, result_record *r, double *samples, int max_samples,
                     int *nsamples)
{
    const char *sql =
        "SELECT id, status, message, median_s, q1_s, q3_s, min_s, max_s, mean_s, stddev_s,"
        " iterations, oversubscribed, IFNULL(bytes_moved, 0), IFNULL(rounds, 0),"
        " IFNULL(rounds_local, 0), IFNULL(rounds_global, 0), IFNULL(blocks, 0),"
        " IFNULL(bytes_sent, 0), IFNULL(meta_bytes, 0), IFNULL(messages, 0),"
        " IFNULL(temp_bytes, 0) FROM results WHERE config_key = ? AND status <> 'skipped'"
        " ORDER BY run_id DESC, id DESC LIMIT 1";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->handle, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(st);
    *nsamples = 0;
    if (rc != SQLITE_ROW) {
        sqlite3_finalize(st);
        return rc == SQLITE_DONE ? 0 : -1;
    }
    long long id = sqlite3_column_int64(st, 0);
    read_summary(st, 1, r);
    r->oversubscribed = sqlite3_column_int(st, 11);
    r->bytes_moved = sqlite3_column_int64(st, 12);
    long long *counts[] = { &r->stats.rounds, &r->stats.rounds_local, &r->stats.rounds_global,
                            &r->stats.blocks, &r->stats.bytes, &r->stats.meta_bytes,
                            &r->stats.messages, &r->stats.temp_bytes };
    for (int k = 0; k < 8; k++)
        *counts[k] = sqlite3_column_int64(st, 13 + k);
    sqlite3_finalize(st);
    if (samples && sqlite3_prepare_v2(d->handle, "SELECT seconds FROM samples WHERE result_id = ?"
                                      " ORDER BY iteration", -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, id);
        while (*nsamples < max_samples && sqlite3_step(st) == SQLITE_ROW)
            samples[(*nsamples)++] = sqlite3_column_double(st, 0);
        sqlite3_finalize(st);
    }
    return 1;
}
