/* db.c — the results database (see db.h). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "db.h"

#define A2A_APPLICATION_ID 0x61326174 /* "a2at" */
#define A2A_SCHEMA_VERSION 3

struct db {
    sqlite3 *handle;
};

static const char *const schema =
    "CREATE TABLE runs("
    " id INTEGER PRIMARY KEY, started TEXT NOT NULL, ended TEXT, status TEXT NOT NULL,"
    " host TEXT, hosts TEXT, nodes INTEGER, world_size INTEGER, ppn INTEGER,"
    " cores_per_node INTEGER, oversubscribed INTEGER, mpi_library TEXT, mpi_version TEXT,"
    " compiler TEXT, git_revision TEXT, cpu_model TEXT, l1d_bytes INTEGER, l2_bytes INTEGER,"
    " l3_bytes INTEGER, backend TEXT, sweep_file TEXT, sweep_text TEXT, section TEXT,"
    " command_line TEXT, platform TEXT, platform_sha256 TEXT, simgrid_version TEXT,"
    " smpi_options TEXT);"
    "CREATE TABLE results("
    " id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    " config_key TEXT NOT NULL, section TEXT NOT NULL, family TEXT NOT NULL, kernel TEXT NOT NULL,"
    " P INTEGER NOT NULL, Q INTEGER, S INTEGER NOT NULL, dist TEXT NOT NULL, dist_params TEXT,"
    " payload TEXT, datatype TEXT, gap INTEGER, radix INTEGER, radix2 INTEGER,"
    " block_count INTEGER, ppn INTEGER, params TEXT, iterations INTEGER, warmup INTEGER,"
    " seed INTEGER, oversubscribed INTEGER, median_s REAL, q1_s REAL, q3_s REAL, min_s REAL,"
    " max_s REAL, mean_s REAL, stddev_s REAL, bytes_moved INTEGER, rounds INTEGER,"
    " rounds_local INTEGER, rounds_global INTEGER, blocks INTEGER, bytes_sent INTEGER,"
    " meta_bytes INTEGER, messages INTEGER, temp_bytes INTEGER,"
    " status TEXT NOT NULL CHECK (status IN ('ok','wrong','skipped','timeout','error')),"
    " message TEXT, started TEXT, ended TEXT, validated INTEGER, UNIQUE (run_id, config_key));"
    "CREATE INDEX results_lookup ON results(family, kernel, P, S, dist);"
    "CREATE TABLE samples("
    " result_id INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE,"
    " iteration INTEGER NOT NULL, seconds REAL NOT NULL, PRIMARY KEY (result_id, iteration));"
    "CREATE TABLE counters("
    " result_id INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE, event TEXT NOT NULL,"
    " max_value INTEGER, sum_value INTEGER, rank0_value INTEGER, calls INTEGER,"
    " available INTEGER NOT NULL, reason TEXT, PRIMARY KEY (result_id, event));"
    "%s"
    /* For every tunable configuration group: the radix with the lowest median. */
    "CREATE VIEW best_radix AS"
    " SELECT run_id, section, family, kernel, P, Q, S, dist, payload, datatype, radix, radix2,"
    "  block_count, median_s FROM ("
    "  SELECT r.*, ROW_NUMBER() OVER (PARTITION BY run_id, family, kernel, P, Q, S, dist,"
    "   payload, datatype ORDER BY median_s) AS rank_in_group"
    "  FROM results r WHERE status = 'ok' AND radix IS NOT NULL)"
    " WHERE rank_in_group = 1;"
    /* Every ok result next to the vendor collective of the same run, P, S and data. */
    "CREATE VIEW speedup_vs_baseline AS"
    " SELECT r.id AS result_id, r.run_id, r.section, r.family, r.kernel, r.P, r.Q, r.S, r.dist,"
    "  r.payload, r.datatype, r.radix, r.radix2, r.block_count, r.median_s,"
    "  b.median_s AS baseline_median_s, b.median_s / r.median_s AS speedup"
    " FROM results r JOIN results b ON b.run_id = r.run_id AND b.family = r.family"
    "  AND b.kernel = 'vendor' AND b.P = r.P AND b.S = r.S AND b.dist = r.dist"
    "  AND b.payload = r.payload AND b.datatype = r.datatype AND b.gap = r.gap"
    "  AND b.status = 'ok' AND IFNULL(json_extract(b.params, '$.vendor_algorithm'), 0) = 0"
    " WHERE r.status = 'ok';";

/* Schema 3, added to older files: the simulation backend's provenance (runs) and whether
 * a result's payloads were compared byte for byte (results.validated: 1 yes, 0 no — a
 * simulation above its validation limit, payloads in shared memory; NULL when not run). */
static const char *const schema3_columns =
    "ALTER TABLE runs ADD COLUMN platform TEXT;"
    "ALTER TABLE runs ADD COLUMN platform_sha256 TEXT;"
    "ALTER TABLE runs ADD COLUMN simgrid_version TEXT;"
    "ALTER TABLE runs ADD COLUMN smpi_options TEXT;"
    "ALTER TABLE results ADD COLUMN validated INTEGER;";

/* Named figures of a measurement beyond its timings (schema 2; added to schema-1 files). */
static const char *const metrics_table =
    "CREATE TABLE IF NOT EXISTS metrics("
    " result_id INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE, name TEXT NOT NULL,"
    " value REAL, unit TEXT, PRIMARY KEY (result_id, name));";

static int exec(db *d, const char *sql, char *err, size_t errlen)
{
    char *msg = NULL;
    if (sqlite3_exec(d->handle, sql, NULL, NULL, &msg) != SQLITE_OK) {
        if (err)
            snprintf(err, errlen, "%s", msg ? msg : sqlite3_errmsg(d->handle));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

static int pragma_int(sqlite3 *h, const char *sql, long long *value)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *value = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : -1;
}

/* Guarantees: see db.h. */
int db_open(const char *path, db **out, char *err, size_t errlen)
{
    struct stat sb;
    int exists = stat(path, &sb) == 0;
    if (exists && !S_ISREG(sb.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file", path);
        return -1;
    }
    db *d = calloc(1, sizeof *d);
    int rc = sqlite3_open_v2(path, &d->handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    if (rc != SQLITE_OK) {
        snprintf(err, errlen, "%s: cannot open database: %s (does the directory exist and is it "
                 "writable?)", path, d->handle ? sqlite3_errmsg(d->handle) : "out of memory");
        goto fail;
    }
    sqlite3_busy_timeout(d->handle, 30000);
    if (sqlite3_db_readonly(d->handle, "main") == 1) {
        snprintf(err, errlen, "%s: database is read-only", path);
        goto fail;
    }
    long long app_id, version, objects;
    if (pragma_int(d->handle, "PRAGMA application_id", &app_id) ||
        pragma_int(d->handle, "SELECT count(*) FROM sqlite_master", &objects)) {
        snprintf(err, errlen, "%s: not an a2atune database (%s)", path, sqlite3_errmsg(d->handle));
        goto fail;
    }
    if (app_id != A2A_APPLICATION_ID && (app_id != 0 || objects != 0)) {
        snprintf(err, errlen, "%s: not an a2atune database (it holds other tables); "
                 "choose another path with --db", path);
        goto fail;
    }
    pragma_int(d->handle, "PRAGMA user_version", &version);
    if (app_id == A2A_APPLICATION_ID && version > A2A_SCHEMA_VERSION) {
        snprintf(err, errlen, "%s: written by a newer a2atune (schema %lld, this one reads %d)",
                 path, version, A2A_SCHEMA_VERSION);
        goto fail;
    }
    char msg[256];
    if (exec(d, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;", msg, sizeof msg)) {
        snprintf(err, errlen, "%s: %s", path, msg);
        goto fail;
    }
    if (app_id == 0 || version < A2A_SCHEMA_VERSION) {
        char tables[8192], create[8400];
        snprintf(tables, sizeof tables, schema, metrics_table);
        if (app_id == 0)
            snprintf(create, sizeof create, "BEGIN IMMEDIATE; %s PRAGMA application_id = %d;"
                     " PRAGMA user_version = %d; COMMIT;", tables, A2A_APPLICATION_ID,
                     A2A_SCHEMA_VERSION);
        else /* an older schema of ours: add what it lacks */
            snprintf(create, sizeof create, "BEGIN IMMEDIATE; %s %s PRAGMA user_version = %d; COMMIT;",
                     metrics_table, version < 3 ? schema3_columns : "", A2A_SCHEMA_VERSION);
        if (exec(d, create, msg, sizeof msg)) {
            exec(d, "ROLLBACK", NULL, 0);
            snprintf(err, errlen, "%s: cannot create the schema: %s", path, msg);
            goto fail;
        }
    }
    *out = d;
    return 0;
fail:
    sqlite3_close(d->handle);
    free(d);
    return -1;
}

/* Guarantees: closes the handle and frees d; NULL is fine. */
void db_close(db *d)
{
    if (!d)
        return;
    sqlite3_close(d->handle);
    free(d);
}

static void bind_text_or_null(sqlite3_stmt *st, int i, const char *s)
{
    if (s)
        sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i);
}

/* Guarantees: a new row in runs with status 'running' and the start time. */
int db_begin_run(db *d, const run_info *in, long long *run_id, char *err, size_t errlen)
{
    const char *sql =
        "INSERT INTO runs(started, status, host, hosts, nodes, world_size, ppn, cores_per_node,"
        " oversubscribed, mpi_library, mpi_version, compiler, git_revision, cpu_model, l1d_bytes,"
        " l2_bytes, l3_bytes, backend, sweep_file, sweep_text, section, command_line)"
        " VALUES (strftime('%Y-%m-%dT%H:%M:%fZ','now'), 'running', ?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->handle, sql, -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s", sqlite3_errmsg(d->handle));
        return -1;
    }
    int i = 1;
    sqlite3_bind_text(st, i++, in->host, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, i++, in->hosts, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, i++, in->nodes);
    sqlite3_bind_int(st, i++, in->world_size);
    sqlite3_bind_int(st, i++, in->ppn);
    sqlite3_bind_int(st, i++, in->cores_per_node);
    sqlite3_bind_int(st, i++, in->oversubscribed);
    sqlite3_bind_text(st, i++, in->mpi_library, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, i++, in->mpi_version, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, i++, in->compiler, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, i++, in->git_revision, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, i++, in->cpu_model, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, i++, in->l1d_bytes);
    sqlite3_bind_int64(st, i++, in->l2_bytes);
    sqlite3_bind_int64(st, i++, in->l3_bytes);
    sqlite3_bind_text(st, i++, in->backend, -1, SQLITE_TRANSIENT);
    bind_text_or_null(st, i++, in->sweep_file);
    bind_text_or_null(st, i++, in->sweep_text);
    bind_text_or_null(st, i++, in->section);
    bind_text_or_null(st, i++, in->command_line);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        snprintf(err, errlen, "cannot record the run: %s", sqlite3_errmsg(d->handle));
        return -1;
    }
    *run_id = sqlite3_last_insert_rowid(d->handle);
    /* schema 3: the simulation's provenance (NULL for real runs) */
    if (sqlite3_prepare_v2(d->handle, "UPDATE runs SET platform = ?, platform_sha256 = ?,"
                           " simgrid_version = ?, smpi_options = ? WHERE id = ?", -1, &st,
                           NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s", sqlite3_errmsg(d->handle));
        return -1;
    }
    const char *sim[4] = { in->platform, in->platform_sha256, in->simgrid_version,
                           in->smpi_options };
    for (int k = 0; k < 4; k++)
        bind_text_or_null(st, k + 1, sim[k][0] ? sim[k] : NULL);
    sqlite3_bind_int64(st, 5, *run_id);
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        snprintf(err, errlen, "cannot record the run: %s", sqlite3_errmsg(d->handle));
        return -1;
    }
    return 0;
}

/* Guarantees: see db.h. */
int db_find_resumable_run(db *d, const run_info *in, long long *run_id)
{
    const char *sql = "SELECT id FROM runs WHERE sweep_text IS ? AND IFNULL(section, '') = ?"
                      " AND world_size = ? ORDER BY id DESC LIMIT 1";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->handle, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    bind_text_or_null(st, 1, in->sweep_text);
    sqlite3_bind_text(st, 2, in->section ? in->section : "", -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 3, in->world_size);
    int rc = sqlite3_step(st), found = 0;
    if (rc == SQLITE_ROW) {
        *run_id = sqlite3_column_int64(st, 0);
        found = 1;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? found : -1;
}

/* Guarantees: the run is 'running' with no end time. */
int db_reopen_run(db *d, long long run_id)
{
    char sql[128];
    snprintf(sql, sizeof sql, "UPDATE runs SET status = 'running', ended = NULL WHERE id = %lld",
             run_id);
    return exec(d, sql, NULL, 0);
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

static void bind_param_or_null(sqlite3_stmt *st, int i, const config *c, a2a_param p)
{
    if (a2a_kernel_takes(c->kernel, p))
        sqlite3_bind_int(st, i, c->params[p]);
    else
        sqlite3_bind_null(st, i);
}

static char *params_json(const config *c)
{
    json_t *obj = json_object();
    for (int p = 0; p < A2A_PARAM_COUNT; p++)
        if (a2a_kernel_takes(c->kernel, (a2a_param)p)) {
            int n;
            const char *const *names = a2a_param_value_names((a2a_param)p, &n);
            json_object_set_new(obj, a2a_param_name((a2a_param)p),
                                names && c->params[p] >= 1 && c->params[p] <= n
                                    ? json_string(names[c->params[p] - 1])
                                    : json_integer(c->params[p]));
        }
    if (c->alloc != SWEEP_ALLOC_PRIVATE) /* where the buffers lived (private is the default) */
        json_object_set_new(obj, "alloc", json_string(sweep_alloc_name(c->alloc)));
    char *text = json_dumps(obj, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(obj);
    return text;
}

/* The distribution's parameters as a JSON object ({} when it has none). */
static char *dist_params_json(const config *c)
{
    json_t *obj = json_object();
    const wl_params p = wl_params_effective(c->S, c->dist_params);
    if (c->dist == WL_DIST_NORMAL) {
        json_object_set_new(obj, "mean", json_real(p.mean));
        json_object_set_new(obj, "sd", json_real(p.sd));
    } else if (c->dist == WL_DIST_POWERLAW) {
        json_object_set_new(obj, "exponent", json_real(p.exponent));
    } else if (c->dist == WL_DIST_MATRIX && c->matrix_path) {
        json_object_set_new(obj, "file", json_string(c->matrix_path));
    } else if (c->dist == WL_DIST_GRAPH && c->dist_instance) {
        json_object_set_new(obj, "graph", json_string(c->dist_instance));
        json_object_set_new(obj, "iteration", json_integer(c->graph_iteration));
        json_object_set_new(obj, "iterations", json_integer(c->graph_iterations));
    } else if (c->dist == WL_DIST_FFT && c->dist_instance) {
        json_object_set_new(obj, "fft", json_string(c->dist_instance));
    }
    if (c->pattern)
        json_object_set_new(obj, "pattern", json_string(c->pattern));
    char *text = json_dumps(obj, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(obj);
    return text;
}

/* Guarantees: the result row and its samples, or nothing (one transaction). */
int db_store_result(db *d, long long run_id, const sweep_section *sec, const config *c,
                    const result_record *r, const double *samples, int nsamples, char *err,
                    size_t errlen)
{
    const char *sql =
        "INSERT INTO results(run_id, config_key, section, family, kernel, P, Q, S, dist,"
        " dist_params, payload, datatype, gap, radix, radix2, block_count, ppn, params,"
        " iterations, warmup, seed, oversubscribed, median_s, q1_s, q3_s, min_s, max_s, mean_s,"
        " stddev_s, bytes_moved, rounds, rounds_local, rounds_global, blocks, bytes_sent,"
        " meta_bytes, messages, temp_bytes, status, message, started, ended)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
        " strftime('%Y-%m-%dT%H:%M:%fZ', ?, 'unixepoch'), strftime('%Y-%m-%dT%H:%M:%fZ', ?, 'unixepoch'))";
    sqlite3_stmt *st = NULL, *ss = NULL;
    if (exec(d, "BEGIN IMMEDIATE", err, errlen))
        return -1;
    if (sqlite3_prepare_v2(d->handle, sql, -1, &st, NULL) != SQLITE_OK)
        goto fail;
    int i = 1, ok = strcmp(r->status, "ok") == 0, measured = ok || strcmp(r->status, "wrong") == 0;
    char *json = params_json(c);
    sqlite3_bind_int64(st, i++, run_id);
    sqlite3_bind_text(st, i++, c->key, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, i++, sec->name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, i++, a2a_family_name(c->kernel->family), -1, SQLITE_STATIC);
    sqlite3_bind_text(st, i++, c->kernel->name, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, i++, c->P);
    sqlite3_bind_int(st, i++, c->Q);
    sqlite3_bind_int64(st, i++, c->S);
    sqlite3_bind_text(st, i++, wl_dist_name(c->dist), -1, SQLITE_STATIC);
    char *dist_json = dist_params_json(c);
    bind_text_or_null(st, i++, dist_json);
    free(dist_json);
    sqlite3_bind_text(st, i++, wl_payload_name(c->payload), -1, SQLITE_STATIC);
    sqlite3_bind_text(st, i++, sweep_datatype_name(c->datatype), -1, SQLITE_STATIC);
    sqlite3_bind_int(st, i++, c->gap);
    bind_param_or_null(st, i++, c, A2A_PARAM_RADIX);
    bind_param_or_null(st, i++, c, A2A_PARAM_RADIX2);
    bind_param_or_null(st, i++, c, A2A_PARAM_BLOCK_COUNT);
    bind_param_or_null(st, i++, c, A2A_PARAM_PPN);
    bind_text_or_null(st, i++, json);
    free(json);
    sqlite3_bind_int(st, i++, c->iterations);
    sqlite3_bind_int(st, i++, c->warmup);
    sqlite3_bind_int64(st, i++, (sqlite3_int64)c->seed);
    sqlite3_bind_int(st, i++, r->oversubscribed);
    const double stat_values[] = { r->summary.median, r->summary.q1, r->summary.q3, r->summary.min,
                                   r->summary.max, r->summary.mean, r->summary.stddev };
    for (int k = 0; k < 7; k++) {
        if (ok && r->summary.n > 0)
            sqlite3_bind_double(st, i++, stat_values[k]);
        else
            sqlite3_bind_null(st, i++);
    }
    const long long counts[] = { r->bytes_moved, r->stats.rounds, r->stats.rounds_local,
                                 r->stats.rounds_global, r->stats.blocks, r->stats.bytes,
                                 r->stats.meta_bytes, r->stats.messages, r->stats.temp_bytes };
    for (int k = 0; k < 9; k++) {
        if (measured)
            sqlite3_bind_int64(st, i++, counts[k]);
        else
            sqlite3_bind_null(st, i++);
    }
    sqlite3_bind_text(st, i++, r->status, -1, SQLITE_STATIC);
    bind_text_or_null(st, i++, r->message[0] ? r->message : NULL);
    sqlite3_bind_double(st, i++, r->started);
    sqlite3_bind_double(st, i++, r->ended);
    if (sqlite3_step(st) != SQLITE_DONE)
        goto fail;
    long long result_id = sqlite3_last_insert_rowid(d->handle);
    /* schema 3: validated = 1 when the payloads were compared, 0 when not (shared) */
    if (measured) {
        char update[128];
        snprintf(update, sizeof update, "UPDATE results SET validated = %d WHERE id = %lld",
                 !r->unvalidated, result_id);
        if (exec(d, update, err, errlen))
            goto fail;
    }
    if (nsamples > 0) {
        if (sqlite3_prepare_v2(d->handle,
                               "INSERT INTO samples(result_id, iteration, seconds) VALUES (?,?,?)",
                               -1, &ss, NULL) != SQLITE_OK)
            goto fail;
        for (int k = 0; k < nsamples; k++) {
            sqlite3_bind_int64(ss, 1, result_id);
            sqlite3_bind_int(ss, 2, k);
            sqlite3_bind_double(ss, 3, samples[k]);
            if (sqlite3_step(ss) != SQLITE_DONE)
                goto fail;
            sqlite3_reset(ss);
        }
    }
    if (r->counted.n > 0) {
        sqlite3_finalize(ss);
        ss = NULL;
        if (sqlite3_prepare_v2(d->handle,
                               "INSERT INTO counters(result_id, event, max_value, sum_value,"
                               " rank0_value, calls, available, reason) VALUES (?,?,?,?,?,?,?,?)",
                               -1, &ss, NULL) != SQLITE_OK)
            goto fail;
        for (int k = 0; k < r->counted.n; k++) {
            const counted_event *e = &r->counted.event[k];
            sqlite3_bind_int64(ss, 1, result_id);
            sqlite3_bind_text(ss, 2, e->name, -1, SQLITE_TRANSIENT);
            for (int v = 0; v < 3; v++) {
                long long value = v == 0 ? e->max : v == 1 ? e->sum : e->rank0;
                if (e->available)
                    sqlite3_bind_int64(ss, 3 + v, value);
                else
                    sqlite3_bind_null(ss, 3 + v);
            }
            sqlite3_bind_int64(ss, 6, r->counted.calls);
            sqlite3_bind_int(ss, 7, e->available);
            bind_text_or_null(ss, 8, e->reason[0] ? e->reason : NULL);
            if (sqlite3_step(ss) != SQLITE_DONE)
                goto fail;
            sqlite3_reset(ss);
        }
    }
    sqlite3_finalize(st);
    sqlite3_finalize(ss);
    return exec(d, "COMMIT", err, errlen);
fail:
    snprintf(err, errlen, "cannot store %s: %s", c->key, sqlite3_errmsg(d->handle));
    sqlite3_finalize(st);
    sqlite3_finalize(ss);
    exec(d, "ROLLBACK", NULL, 0);
    return -1;
}

/* Guarantees: the run has an end time and the given status. */
int db_end_run(db *d, long long run_id, const char *status)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->handle,
                           "UPDATE runs SET status = ?, ended = strftime('%Y-%m-%dT%H:%M:%fZ','now')"
                           " WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(st, 1, status, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, run_id);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* Binds the integer field `name` of the JSON object text, or NULL. */
static void bind_json_int_or_null(sqlite3_stmt *st, int i, json_t *obj, const char *name)
{
    json_t *v = obj ? json_object_get(obj, name) : NULL;
    if (json_is_integer(v))
        sqlite3_bind_int64(st, i, json_integer_value(v));
    else
        sqlite3_bind_null(st, i);
}

/* Guarantees: see db.h. */
int db_store_measurement(db *d, long long run_id, const measurement *m, char *err, size_t errlen)
{
    const char *sql =
        "INSERT INTO results(run_id, config_key, section, family, kernel, P, Q, S, dist,"
        " dist_params, payload, datatype, gap, radix, radix2, block_count, ppn, params,"
        " iterations, warmup, seed, oversubscribed, median_s, q1_s, q3_s, min_s, max_s, mean_s,"
        " stddev_s, bytes_moved, status, message, started, ended)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,0,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
        " strftime('%Y-%m-%dT%H:%M:%fZ', ?, 'unixepoch'), strftime('%Y-%m-%dT%H:%M:%fZ', ?, 'unixepoch'))";
    char key[1024];
    snprintf(key, sizeof key, "%s|%s|%s|P=%d|Q=%d|S=%lld|%s|%s|%s", m->section, m->family,
             m->kernel, m->P, m->Q, m->S, m->dist, m->params_json ? m->params_json : "{}",
             m->dist_params_json ? m->dist_params_json : "{}");
    json_t *params = m->params_json ? json_loads(m->params_json, 0, NULL) : NULL;
    sqlite3_stmt *st = NULL, *ss = NULL;
    if (exec(d, "BEGIN IMMEDIATE", err, errlen)) {
        json_decref(params);
        return -1;
    }
    if (sqlite3_prepare_v2(d->handle, sql, -1, &st, NULL) != SQLITE_OK)
        goto fail;
    int i = 1, ok = strcmp(m->status, "ok") == 0;
    sqlite3_bind_int64(st, i++, run_id);
    sqlite3_bind_text(st, i++, key, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, i++, m->section, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, i++, m->family, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, i++, m->kernel, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, i++, m->P);
    sqlite3_bind_int(st, i++, m->Q);
    sqlite3_bind_int64(st, i++, m->S);
    sqlite3_bind_text(st, i++, m->dist, -1, SQLITE_TRANSIENT);
    bind_text_or_null(st, i++, m->dist_params_json);
    bind_text_or_null(st, i++, m->payload);
    bind_text_or_null(st, i++, m->datatype);
    bind_json_int_or_null(st, i++, params, "radix");
    bind_json_int_or_null(st, i++, params, "radix2");
    bind_json_int_or_null(st, i++, params, "block_count");
    bind_json_int_or_null(st, i++, params, "ppn");
    bind_text_or_null(st, i++, m->params_json);
    sqlite3_bind_int(st, i++, m->nsamples);
    sqlite3_bind_int(st, i++, m->warmup);
    sqlite3_bind_int64(st, i++, (sqlite3_int64)m->seed);
    sqlite3_bind_int(st, i++, m->oversubscribed);
    sample_summary sum = summarize_samples(m->samples, m->nsamples);
    const double stat_values[] = { sum.median, sum.q1, sum.q3, sum.min, sum.max, sum.mean, sum.stddev };
    for (int k = 0; k < 7; k++) {
        if (ok && m->nsamples > 0)
            sqlite3_bind_double(st, i++, stat_values[k]);
        else
            sqlite3_bind_null(st, i++);
    }
    if (m->bytes_moved >= 0)
        sqlite3_bind_int64(st, i++, m->bytes_moved);
    else
        sqlite3_bind_null(st, i++);
    sqlite3_bind_text(st, i++, m->status, -1, SQLITE_TRANSIENT);
    bind_text_or_null(st, i++, m->message && m->message[0] ? m->message : NULL);
    sqlite3_bind_double(st, i++, m->started);
    sqlite3_bind_double(st, i++, m->ended);
    if (sqlite3_step(st) != SQLITE_DONE)
        goto fail;
    long long result_id = sqlite3_last_insert_rowid(d->handle);
    if (sqlite3_prepare_v2(d->handle,
                           "INSERT INTO samples(result_id, iteration, seconds) VALUES (?,?,?)",
                           -1, &ss, NULL) != SQLITE_OK)
        goto fail;
    for (int k = 0; k < m->nsamples; k++) {
        sqlite3_bind_int64(ss, 1, result_id);
        sqlite3_bind_int(ss, 2, k);
        sqlite3_bind_double(ss, 3, m->samples[k]);
        if (sqlite3_step(ss) != SQLITE_DONE)
            goto fail;
        sqlite3_reset(ss);
    }
    sqlite3_finalize(ss);
    if (sqlite3_prepare_v2(d->handle,
                           "INSERT INTO metrics(result_id, name, value, unit) VALUES (?,?,?,?)",
                           -1, &ss, NULL) != SQLITE_OK)
        goto fail;
    for (int k = 0; k < m->nmetrics; k++) {
        sqlite3_bind_int64(ss, 1, result_id);
        sqlite3_bind_text(ss, 2, m->metrics[k].name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_double(ss, 3, m->metrics[k].value);
        bind_text_or_null(ss, 4, m->metrics[k].unit);
        if (sqlite3_step(ss) != SQLITE_DONE)
            goto fail;
        sqlite3_reset(ss);
    }
    sqlite3_finalize(st);
    sqlite3_finalize(ss);
    json_decref(params);
    return exec(d, "COMMIT", err, errlen);
fail:
    snprintf(err, errlen, "cannot store %s: %s", key, sqlite3_errmsg(d->handle));
    sqlite3_finalize(st);
    sqlite3_finalize(ss);
    json_decref(params);
    exec(d, "ROLLBACK", NULL, 0);
    return -1;
}
