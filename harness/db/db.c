/* db.c — the results database's schema and its opening (see db.h): the tables, the
 * migrations that bring a file of an older schema to this one, the parameters' columns,
 * opening for writing (creating or migrating, the views made current) and for reading,
 * transactions, and the stored names of the result statuses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "db_internal.h"

#define A2A_APPLICATION_ID 0x61326174 /* "a2at" */
#define A2A_SCHEMA_VERSION 5

/* The tables of a file created by this a2atune (A2A_SCHEMA_VERSION); %s: metrics_table. */
static const char *const schema =
    "CREATE TABLE runs("
    " id INTEGER PRIMARY KEY, started TEXT NOT NULL, ended TEXT, status TEXT NOT NULL,"
    " host TEXT, hosts TEXT, nodes INTEGER, world_size INTEGER, ppn INTEGER,"
    " cores_per_node INTEGER, oversubscribed INTEGER, mpi_library TEXT, mpi_version TEXT,"
    " compiler TEXT, git_revision TEXT, cpu_model TEXT, l1d_bytes INTEGER, l2_bytes INTEGER,"
    " l3_bytes INTEGER, backend TEXT, sweep_file TEXT, sweep_text TEXT, section TEXT,"
    " command_line TEXT, pid INTEGER, heartbeat TEXT, planned TEXT, launch_group TEXT,"
    " launch_index INTEGER, launches INTEGER, order_seed INTEGER, mpi_env TEXT, binding TEXT,"
    " load_start REAL, load_end REAL, platform TEXT, platform_sha256 TEXT,"
    " simgrid_version TEXT, smpi_options TEXT, network_model TEXT, tuner_prior TEXT,"
    " tuner_prior_text TEXT);"
    "CREATE TABLE results("
    " id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    " config_key TEXT NOT NULL, section TEXT NOT NULL, family TEXT NOT NULL, kernel TEXT NOT NULL,"
    " P INTEGER NOT NULL, Q INTEGER, S INTEGER NOT NULL, dist TEXT NOT NULL, dist_params TEXT,"
    " payload TEXT, datatype TEXT, gap INTEGER," A2A_PARAMS(COLUMN_DEF_)
    " params TEXT, iterations INTEGER, warmup INTEGER,"
    " seed INTEGER, oversubscribed INTEGER, median_s REAL, q1_s REAL, q3_s REAL, min_s REAL,"
    " max_s REAL, mean_s REAL, stddev_s REAL, bytes_moved INTEGER, rounds INTEGER,"
    " rounds_local INTEGER, rounds_global INTEGER, blocks INTEGER, bytes_sent INTEGER,"
    " meta_bytes INTEGER, messages INTEGER, temp_bytes INTEGER,"
    " status TEXT NOT NULL CHECK (status IN ('ok','wrong','skipped','timeout','error')),"
    " message TEXT, started TEXT, ended TEXT, idle_ranks INTEGER, bytes_copied INTEGER,"
    " chosen_by TEXT, tuner_step INTEGER, validated INTEGER,"
    " UNIQUE (run_id, config_key));"
    "CREATE INDEX results_lookup ON results(family, kernel, P, S, dist);"
    "CREATE TABLE samples("
    " result_id INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE,"
    " iteration INTEGER NOT NULL, seconds REAL NOT NULL, PRIMARY KEY (result_id, iteration));"
    "CREATE TABLE counters("
    " result_id INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE, event TEXT NOT NULL,"
    " max_value INTEGER, sum_value INTEGER, rank0_value INTEGER, calls INTEGER,"
    " available INTEGER NOT NULL, reason TEXT, PRIMARY KEY (result_id, event));"
    "%s";

/* Schema 3 adds to a schema-2 (or 1) file: launches and the conditions of a run, idle ranks
 * per result, and the one-row-per-result speedup view. */
static const char *const schema3_migration =
    "ALTER TABLE runs ADD COLUMN launch_group TEXT;"
    "ALTER TABLE runs ADD COLUMN launch_index INTEGER;"
    "ALTER TABLE runs ADD COLUMN launches INTEGER;"
    "ALTER TABLE runs ADD COLUMN order_seed INTEGER;"
    "ALTER TABLE runs ADD COLUMN mpi_env TEXT;"
    "ALTER TABLE runs ADD COLUMN binding TEXT;"
    "ALTER TABLE runs ADD COLUMN load_start REAL;"
    "ALTER TABLE runs ADD COLUMN load_end REAL;"
    "ALTER TABLE results ADD COLUMN idle_ranks INTEGER;"
    "ALTER TABLE results ADD COLUMN bytes_copied INTEGER;"
    "DROP VIEW IF EXISTS speedup_vs_baseline;";

/* Schema 3: who chose to measure a row ('tuner': `a2atune tune`, with its step; NULL: the
 * sweep), added to older files. */
static const char *const tuner_columns =
    "ALTER TABLE results ADD COLUMN chosen_by TEXT;"
    "ALTER TABLE results ADD COLUMN tuner_step INTEGER;";

/* Schema 3, added to older files: the simulation backend's provenance (runs) and whether
 * a result's payloads were compared byte for byte (results.validated: 1 yes, 0 no — a
 * simulation above its validation limit, payloads in shared memory; NULL when not run). */
static const char *const schema3_columns =
    "ALTER TABLE runs ADD COLUMN platform TEXT;"
    "ALTER TABLE runs ADD COLUMN platform_sha256 TEXT;"
    "ALTER TABLE runs ADD COLUMN simgrid_version TEXT;"
    "ALTER TABLE runs ADD COLUMN smpi_options TEXT;"
    "ALTER TABLE results ADD COLUMN validated INTEGER;";

/* Schema 4, added to older files: the network model a simulated run was timed under (JSON:
 * each SimGrid network option with its value and where it came from; NULL for real runs). */
static const char *const schema4_columns = "ALTER TABLE runs ADD COLUMN network_model TEXT;";

/* Schema 5, added to older files: the platform prior a tuner run searched with (`a2atune
 * tune --prior`: the file's name and platform, and its content; NULL: none). */
static const char *const schema5_columns = "ALTER TABLE runs ADD COLUMN tuner_prior TEXT;"
                                           "ALTER TABLE runs ADD COLUMN tuner_prior_text TEXT;";

/* Named figures of a measurement beyond its timings (schema 2; added to schema-1 files). */
static const char *const metrics_table =
    "CREATE TABLE IF NOT EXISTS metrics("
    " result_id INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE, name TEXT NOT NULL,"
    " value REAL, unit TEXT, PRIMARY KEY (result_id, name));";

/* Schema 3: a launch's liveness in its run (rank 0's pid, a heartbeat written every few
 * seconds) and the identities of the configurations it is about to run (one a line,
 * cleared when it ends), so another launch can tell a live run from a dead one. */
static const char *const liveness_columns =
    "ALTER TABLE runs ADD COLUMN pid INTEGER;"
    "ALTER TABLE runs ADD COLUMN heartbeat TEXT;"
    "ALTER TABLE runs ADD COLUMN planned TEXT;";

/* Stored names of the result statuses, indexed by result_status (the schema's CHECK). */
static const char *const status_names[STATUS_COUNT] = {
    [STATUS_ERROR] = "error", [STATUS_OK] = "ok", [STATUS_WRONG] = "wrong",
    [STATUS_SKIPPED] = "skipped", [STATUS_TIMEOUT] = "timeout",
};

/* Guarantees: see db.h; "error" for a value outside the enumeration. */
const char *db_status_name(result_status status)
{
    return status >= 0 && status < STATUS_COUNT ? status_names[status] : "error";
}

/* Guarantees: see db_internal.h. */
result_status db_status_from_text(const unsigned char *text)
{
    for (int s = 0; s < STATUS_COUNT; s++)
        if (text && strcmp((const char *)text, status_names[s]) == 0)
            return (result_status)s;
    return STATUS_ERROR;
}

/* Guarantees: see db_internal.h. */
int db_exec(db *d, const char *sql, char *err, size_t errlen)
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

/* Guarantees: see db_internal.h. */
sqlite3_stmt *db_prepare(db *d, const char *sql, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->handle, sql, -1, &st, NULL) == SQLITE_OK)
        return st;
    if (err)
        snprintf(err, errlen, "%s", sqlite3_errmsg(d->handle));
    return NULL;
}

/* Guarantees: see db_internal.h. */
void db_bind_text_or_null(sqlite3_stmt *st, int i, const char *s)
{
    if (s)
        sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i);
}

/* Guarantees: see db.h. */
int db_transaction(db *d, const char *verb, char *err, size_t errlen)
{
    return db_exec(d, verb, err, errlen);
}

/* Guarantees: *value is the integer the one-row statement sql yields; 0, or -1 on an SQLite
 * error or no row. */
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

/* Guarantees: the number of parameters declared with A2A_PARAM_COLUMN that the results
 * table lacks (a parameter declared after the file was written), with the statements adding
 * their columns in alter; -1 on an SQLite error. */
static int missing_param_columns(sqlite3 *h, char *alter, size_t len)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h, "SELECT 1 FROM pragma_table_info('results') WHERE name = ?", -1,
                           &st, NULL) != SQLITE_OK)
        return -1;
    int missing = 0;
    size_t used = 0;
    alter[0] = '\0';
    for (int p = 0; missing >= 0 && p < A2A_PARAM_COUNT; p++) {
        if (!a2a_param_decl((a2a_param)p)->column)
            continue;
        sqlite3_reset(st);
        sqlite3_bind_text(st, 1, a2a_param_name((a2a_param)p), -1, SQLITE_STATIC);
        int rc = sqlite3_step(st);
        if (rc == SQLITE_DONE && used < len) {
            used += (size_t)snprintf(alter + used, len - used,
                                     "ALTER TABLE results ADD COLUMN %s INTEGER;",
                                     a2a_param_name((a2a_param)p));
            missing++;
        } else if (rc != SQLITE_ROW)
            missing = -1;
    }
    sqlite3_finalize(st);
    return missing;
}

/* Guarantees: on return 0 the results table has a column for every parameter declared with
 * A2A_PARAM_COLUMN (those it lacked added in one write transaction; a file that has them
 * all is not written); -1 with the reason in msg otherwise. */
static int add_param_columns(db *d, char *msg, size_t msglen)
{
    char alter[2048];
    int missing = missing_param_columns(d->handle, alter, sizeof alter);
    if (missing == 0)
        return 0;
    if (missing < 0 || db_exec(d, "BEGIN IMMEDIATE", msg, msglen)) {
        if (missing < 0)
            snprintf(msg, msglen, "%s", sqlite3_errmsg(d->handle));
        return -1;
    }
    /* decided again under the write lock: another launch may have added them since */
    missing = missing_param_columns(d->handle, alter, sizeof alter);
    int failed = missing < 0;
    if (failed)
        snprintf(msg, msglen, "%s", sqlite3_errmsg(d->handle));
    else
        failed = (missing > 0 && db_exec(d, alter, msg, msglen)) || db_exec(d, "COMMIT", msg, msglen);
    if (failed)
        db_exec(d, "ROLLBACK", NULL, 0);
    return failed ? -1 : 0;
}

/* Guarantees: on return 0, *app_id, *objects (entries of sqlite_master) and *version
 * (user_version) as one snapshot of the file (one statement, one read transaction: a
 * launch creating the file in between cannot show its tables beside the header it had
 * before); -1 on an SQLite error. */
static int read_header(sqlite3 *h, long long *app_id, long long *objects, long long *version)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h, "SELECT (SELECT * FROM pragma_application_id()), "
                           "(SELECT count(*) FROM sqlite_master), "
                           "(SELECT * FROM pragma_user_version())", -1, &st, NULL) != SQLITE_OK)
        return -1;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *app_id = sqlite3_column_int64(st, 0);
        *objects = sqlite3_column_int64(st, 1);
        *version = sqlite3_column_int64(st, 2);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : -1;
}

/* Guarantees: 0 when a file whose header reads app_id, objects and version may be opened:
 * ours and of a schema this a2atune reads, or empty (no application id, no objects);
 * else -1 with one line in err. */
static int check_header(const char *path, long long app_id, long long objects,
                        long long version, char *err, size_t errlen)
{
    if (app_id != A2A_APPLICATION_ID && (app_id != 0 || objects != 0)) {
        snprintf(err, errlen, "%s: not an a2atune database (it holds other tables); "
                 "choose another path with --db", path);
        return -1;
    }
    if (app_id == A2A_APPLICATION_ID && version > A2A_SCHEMA_VERSION) {
        snprintf(err, errlen, "%s: written by a newer a2atune (schema %lld, this one reads %d)",
                 path, version, A2A_SCHEMA_VERSION);
        return -1;
    }
    return 0;
}

/* Guarantees: a new handle on path opened with SQLite's flags and a busy timeout of 30 s;
 * NULL with "path: cannot open database: <reason><hint>" in err. */
static db *open_handle(const char *path, int flags, const char *hint, char *err, size_t errlen)
{
    db *d = calloc(1, sizeof *d);
    if (sqlite3_open_v2(path, &d->handle, flags, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: cannot open database: %s%s", path,
                 d->handle ? sqlite3_errmsg(d->handle) : "out of memory", hint);
        db_close(d);
        return NULL;
    }
    sqlite3_busy_timeout(d->handle, 30000);
    return d;
}

/* Guarantees: on return 0 the file of d, of application id app_id and schema version, has
 * this a2atune's schema: created whole in an empty file, or what an older schema of ours
 * lacks added (user_version set to A2A_SCHEMA_VERSION), in one write transaction in which
 * the header is read and checked again (another launch may have created or upgraded the
 * file since it was looked at); a file already current is not written. -1 with one line
 * in err otherwise. */
static int migrate(db *d, const char *path, long long app_id, long long version, char *err,
                   size_t errlen)
{
    if (app_id != 0 && version >= A2A_SCHEMA_VERSION)
        return 0;
    char msg[256];
    long long objects;
    if (db_exec(d, "BEGIN IMMEDIATE", msg, sizeof msg)) {
        snprintf(err, errlen, "%s: cannot create the schema: %s", path, msg);
        return -1;
    }
    if (read_header(d->handle, &app_id, &objects, &version)) {
        snprintf(err, errlen, "%s: %s", path, sqlite3_errmsg(d->handle));
        db_exec(d, "ROLLBACK", NULL, 0);
        return -1;
    }
    if (check_header(path, app_id, objects, version, err, errlen)) {
        db_exec(d, "ROLLBACK", NULL, 0);
        return -1;
    }
    char tables[12288], create[12800];
    create[0] = '\0';
    if (app_id == 0) {
        snprintf(tables, sizeof tables, schema, metrics_table);
        snprintf(create, sizeof create, "%s PRAGMA application_id = %d;", tables,
                 A2A_APPLICATION_ID);
    } else { /* an older schema of ours: add what it lacks */
        if (version < 2)
            snprintf(create + strlen(create), sizeof create - strlen(create), "%s",
                     metrics_table);
        if (version < 3)
            snprintf(create + strlen(create), sizeof create - strlen(create), "%s%s%s%s",
                     schema3_migration, liveness_columns, tuner_columns, schema3_columns);
        if (version < 4)
            snprintf(create + strlen(create), sizeof create - strlen(create), "%s",
                     schema4_columns);
        if (version < 5)
            snprintf(create + strlen(create), sizeof create - strlen(create), "%s",
                     schema5_columns);
    }
    if (version < A2A_SCHEMA_VERSION)
        snprintf(create + strlen(create), sizeof create - strlen(create),
                 " PRAGMA user_version = %d;", A2A_SCHEMA_VERSION);
    if (db_exec(d, create, msg, sizeof msg) || db_exec(d, "COMMIT", msg, sizeof msg)) {
        db_exec(d, "ROLLBACK", NULL, 0);
        snprintf(err, errlen, "%s: cannot create the schema: %s", path, msg);
        return -1;
    }
    return 0;
}

/* Returns 0 (opened), -1 (refused, the reason in err) or 1 (found busy: try again). */
static int open_attempt(const char *path, db **out, char *err, size_t errlen)
{
    struct stat sb;
    int exists = stat(path, &sb) == 0;
    if (exists && !S_ISREG(sb.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file", path);
        return -1;
    }
    db *d = open_handle(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                        " (does the directory exist and is it writable?)", err, errlen);
    if (!d)
        return -1;
    if (sqlite3_db_readonly(d->handle, "main") == 1) {
        snprintf(err, errlen, "%s: database is read-only", path);
        goto fail;
    }
    long long app_id, version, objects;
    if (read_header(d->handle, &app_id, &objects, &version)) {
        snprintf(err, errlen, "%s: not an a2atune database (%s)", path, sqlite3_errmsg(d->handle));
        goto fail;
    }
    if (check_header(path, app_id, objects, version, err, errlen))
        goto fail;
    char msg[256];
    if (db_exec(d, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;", msg, sizeof msg)) {
        snprintf(err, errlen, "%s: %s", path, msg);
        goto fail;
    }
    if (migrate(d, path, app_id, version, err, errlen))
        goto fail;
    if (add_param_columns(d, msg, sizeof msg)) {
        snprintf(err, errlen, "%s: cannot add the parameters' columns: %s", path, msg);
        goto fail;
    }
    if (db_sync_views(d, msg, sizeof msg)) {
        snprintf(err, errlen, "%s: cannot create the views: %s", path, msg);
        goto fail;
    }
    *out = d;
    return 0;
fail:;
    int code = sqlite3_errcode(d->handle) & 0xff;
    db_close(d);
    return code == SQLITE_BUSY || code == SQLITE_LOCKED ? 1 : -1;
}

/* Guarantees: see db.h. A launch that finds the file locked by another launch creating,
 * upgrading or converting it (an SQLite "busy" the busy timeout does not cover, such as
 * a journal-mode change racing a first read) tries again for up to 30 s. */
int db_open(const char *path, db **out, char *err, size_t errlen)
{
    time_t give_up = time(NULL) + 30;
    int rc;
    while ((rc = open_attempt(path, out, err, errlen)) == 1) {
        if (time(NULL) >= give_up)
            return -1;
        usleep(100000);
    }
    return rc;
}

/* Guarantees: see db.h. */
int db_open_readonly(const char *path, db **out, char *err, size_t errlen)
{
    db *d = open_handle(path, SQLITE_OPEN_READONLY, "", err, errlen);
    if (!d)
        return -1;
    long long app_id;
    if (pragma_int(d->handle, "PRAGMA application_id", &app_id) || app_id != A2A_APPLICATION_ID) {
        snprintf(err, errlen, "%s: not an a2atune database", path);
        db_close(d);
        return -1;
    }
    *out = d;
    return 0;
}

/* Guarantees: closes the handle and frees d; NULL is fine. */
void db_close(db *d)
{
    if (!d)
        return;
    sqlite3_close(d->handle);
    free(d);
}
