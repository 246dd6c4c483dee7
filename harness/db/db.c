/* db.c — the results database (see db.h). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <signal.h>
#include <errno.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "db.h"

#define A2A_APPLICATION_ID 0x61326174 /* "a2at" */
#define A2A_SCHEMA_VERSION 4

/* The operating system's id of this process. Under SMPI getpid() names the simulated
 * rank (1 for rank 0), which no other launch can look up; the system call cannot be
 * redirected. */
static long long os_pid(void)
{
    return (long long)syscall(SYS_getpid);
}

struct db {
    sqlite3 *handle;
};

/* The results table's columns of the parameters declared with A2A_PARAM_COLUMN
 * (a2a_registry.h), expanded from A2A_PARAMS in declaration order into the schema and the
 * views and INSERTs below (A2A_PARAMS(COLUMN_DEF_): " radix INTEGER, radix2 INTEGER, ...,";
 * COLUMN_, COLUMN_N_, COLUMN_M_: " radix, radix2, ...," bare, or of the views' n. and m.;
 * COLUMN_VALUE_: a bind marker "?," each), so that a parameter with a column is declared
 * there alone. A declaration's column field is A2A_PARAM_COLUMN or 0: WHEN_COLUMN_ keeps
 * the text for the one and drops it for the other. */
#define WHEN_COLUMN_A2A_PARAM_COLUMN(text) text
#define WHEN_COLUMN_0(text)
#define COLUMN_DEF_(ID, name, sweep_default, column, value_names, nvalues, meaning) \
    WHEN_COLUMN_##column(" " name " INTEGER,")
#define COLUMN_(ID, name, sweep_default, column, value_names, nvalues, meaning) \
    WHEN_COLUMN_##column(" " name ",")
#define COLUMN_N_(ID, name, sweep_default, column, value_names, nvalues, meaning) \
    WHEN_COLUMN_##column(" n." name ",")
#define COLUMN_M_(ID, name, sweep_default, column, value_names, nvalues, meaning) \
    WHEN_COLUMN_##column(" m." name ",")
#define COLUMN_VALUE_(ID, name, sweep_default, column, value_names, nvalues, meaning) \
    WHEN_COLUMN_##column("?,")

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
    " simgrid_version TEXT, smpi_options TEXT, network_model TEXT);"
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

/* The views: the results contract (docs/database.md, "The results contract"), which
 * scripts/a2a_tools/contract.py states in Python for the tools; tests/parts/contract.sh
 * checks that both name the same best, baseline and speedup. One grouping defines "the same
 * data set" (data_set: family, P, Q, S, dist and its parameters, payload, datatype, gap and
 * buffer allocation, params.alloc, 'private' when absent) and one "the same measurement"
 * (a configuration, config_key, in one run group: the runs of a launch group, else a run
 * alone, named by its newest run). Created in this order (later views read earlier ones)
 * and replaced on open when the stored text differs (sync_views), so a file written by an
 * older a2atune gets these definitions. */
static const db_view views[] = {
    /* Every result with its allocation, whether it is the library's own choice
     * (vendor_algorithm 0), and its data set as one comparable value (a JSON array; NULLs
     * compare equal in it). */
    {"result_data",
     "SELECT r.*, IFNULL(json_extract(r.params, '$.alloc'), 'private') AS alloc,"
     " IFNULL(json_extract(r.params, '$.vendor_algorithm'), 0) = 0 AS own_choice,"
     " json_array(r.family, r.P, r.Q, r.S, r.dist, r.dist_params, r.payload, r.datatype, r.gap,"
     "  IFNULL(json_extract(r.params, '$.alloc'), 'private')) AS data_set"
     " FROM results r"},
    /* One row per measurement: a configuration's ok, timed rows in one run group combined.
     * run_id names the group (its newest run); median_s is the median of the launches'
     * medians (one launch: its median); noise_s the spread between them (largest - smallest;
     * one launch: its interquartile range); the other columns are the newest row's. */
    {"measurement",
     "WITH grouped AS (SELECT d.*, IFNULL((SELECT MAX(o.id) FROM runs o"
     "  WHERE o.launch_group = u.launch_group), d.run_id) AS run_group"
     "  FROM result_data d JOIN runs u ON u.id = d.run_id"
     "  WHERE d.status = 'ok' AND d.median_s IS NOT NULL),"
     " ranked AS (SELECT g.*, COUNT(*) OVER (PARTITION BY run_group, config_key) AS launches,"
     "  ROW_NUMBER() OVER (PARTITION BY run_group, config_key ORDER BY median_s) AS by_median,"
     "  ROW_NUMBER() OVER (PARTITION BY run_group, config_key ORDER BY run_id DESC, id DESC)"
     "   AS newest FROM grouped g),"
     " combined AS (SELECT run_group, config_key, MAX(launches) AS launches,"
     "  AVG(CASE WHEN by_median IN ((launches + 1) / 2, (launches + 2) / 2) THEN median_s END)"
     "   AS median_s,"
     "  CASE WHEN MAX(launches) > 1 THEN MAX(median_s) - MIN(median_s)"
     "   ELSE MAX(0, MAX(IFNULL(q3_s, median_s) - IFNULL(q1_s, median_s))) END AS noise_s"
     "  FROM ranked GROUP BY run_group, config_key)"
     " SELECT n.run_group AS run_id, n.id AS result_id, n.section, n.config_key, n.family,"
     "  n.kernel, n.P, n.Q, n.S, n.dist, n.payload, n.datatype, n.gap, n.alloc, n.data_set,"
     "  n.dist_params," A2A_PARAMS(COLUMN_N_) " n.params, n.own_choice, n.oversubscribed,"
     "  c.launches, c.median_s, c.noise_s"
     " FROM ranked n JOIN combined c ON c.run_group = n.run_group AND c.config_key = n.config_key"
     " WHERE n.newest = 1"},
    /* Best: for every kernel with a radix, run group and data set of a collective family,
     * the measurement with the lowest median (of equal medians, the lower radix, then the
     * first recorded). */
    {"best_radix",
     "SELECT run_id, section, family, kernel, P, Q, S, dist, payload, datatype, gap, alloc,"
     " data_set," A2A_PARAMS(COLUMN_) " params, result_id, launches, median_s, noise_s"
     " FROM (SELECT m.*, ROW_NUMBER() OVER (PARTITION BY run_id, kernel, data_set"
     "  ORDER BY median_s, radix, result_id) AS rank_in_group"
     " FROM measurement m WHERE radix IS NOT NULL AND family NOT IN ('app', 'copy'))"
     " WHERE rank_in_group = 1"},
    /* Baseline and speedup: every measurement next to each baseline kernel of its run group
     * and data set (a kernel without a radix, baseline_kernel: its fastest measurement that
     * is the library's own choice); speedup = baseline median / median; within_noise = 1
     * when the two medians differ by no more than the smaller of their noises. Select one
     * baseline with WHERE baseline_kernel = 'vendor' (or another name). CROSS JOIN keeps
     * the measurements outside, so that SQLite indexes the baselines for the join (a plain
     * JOIN scanned every measurement per baseline: 19 s instead of 0.75 s at 12,500 rows). */
    {"speedup_vs_baseline",
     "WITH baseline AS (SELECT * FROM (SELECT m.*, ROW_NUMBER() OVER"
     "  (PARTITION BY run_id, kernel, data_set ORDER BY median_s, result_id) AS rank_in_group"
     "  FROM measurement m WHERE own_choice AND radix IS NULL) WHERE rank_in_group = 1)"
     " SELECT m.result_id, m.run_id, m.section, m.family, m.kernel, m.P, m.Q, m.S, m.dist,"
     "  m.payload, m.datatype, m.gap, m.alloc, m.data_set," A2A_PARAMS(COLUMN_M_)
     "  m.params, m.launches, m.median_s, m.noise_s, b.kernel AS baseline_kernel,"
     "  b.result_id AS baseline_result_id, b.median_s AS baseline_median_s,"
     "  b.noise_s AS baseline_noise_s, b.median_s / m.median_s AS speedup,"
     "  ABS(m.median_s - b.median_s) <= MIN(m.noise_s, b.noise_s) AS within_noise"
     " FROM measurement m CROSS JOIN baseline b ON b.run_id = m.run_id AND b.data_set = m.data_set"},
};

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

/* Guarantees: the status whose stored name is text; STATUS_ERROR for anything else. */
static result_status status_from_text(const unsigned char *text)
{
    for (int s = 0; s < STATUS_COUNT; s++)
        if (text && strcmp((const char *)text, status_names[s]) == 0)
            return (result_status)s;
    return STATUS_ERROR;
}

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
const db_view *db_views(int *count)
{
    *count = (int)(sizeof views / sizeof views[0]);
    return views;
}

/* Guarantees: 1 when every view is stored with exactly the text views[] gives it, 0 when
 * one differs or is missing, -1 on an SQLite error. */
static int views_current(sqlite3 *h)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h, "SELECT sql FROM sqlite_master WHERE type = 'view' AND name = ?",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    int current = 1;
    for (size_t v = 0; current == 1 && v < sizeof views / sizeof views[0]; v++) {
        char want[8192];
        snprintf(want, sizeof want, "CREATE VIEW %s AS %s", views[v].name, views[v].select);
        sqlite3_reset(st);
        sqlite3_bind_text(st, 1, views[v].name, -1, SQLITE_STATIC);
        int rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
            const unsigned char *have = sqlite3_column_text(st, 0);
            current = have && strcmp((const char *)have, want) == 0;
        } else
            current = rc == SQLITE_DONE ? 0 : -1;
    }
    sqlite3_finalize(st);
    return current;
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
    if (missing < 0 || exec(d, "BEGIN IMMEDIATE", msg, msglen)) {
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
        failed = (missing > 0 && exec(d, alter, msg, msglen)) || exec(d, "COMMIT", msg, msglen);
    if (failed)
        exec(d, "ROLLBACK", NULL, 0);
    return failed ? -1 : 0;
}

/* Guarantees: on return 0 the file holds the views of views[] with their current text
 * (each dropped and created again, all in one write transaction, when any differed; a
 * file already current is not written); -1 with the reason in msg otherwise. */
static int sync_views(db *d, char *msg, size_t msglen)
{
    int current = views_current(d->handle);
    if (current == 1)
        return 0;
    if (current < 0 || exec(d, "BEGIN IMMEDIATE", msg, msglen))
        goto sql_error;
    if ((current = views_current(d->handle)) < 0)
        goto rollback;
    size_t n = sizeof views / sizeof views[0];
    for (size_t v = n; current == 0 && v-- > 0;) {
        char sql[8300];
        snprintf(sql, sizeof sql, "DROP VIEW IF EXISTS %s", views[v].name);
        if (exec(d, sql, msg, msglen))
            goto rollback;
    }
    for (size_t v = 0; current == 0 && v < n; v++) {
        char sql[8300];
        snprintf(sql, sizeof sql, "CREATE VIEW %s AS %s", views[v].name, views[v].select);
        if (exec(d, sql, msg, msglen))
            goto rollback;
    }
    if (exec(d, "COMMIT", msg, msglen))
        goto rollback;
    return 0;
rollback:
    exec(d, "ROLLBACK", NULL, 0);
    return -1;
sql_error:
    snprintf(msg, msglen, "%s", sqlite3_errmsg(d->handle));
    return -1;
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

static int open_attempt(const char *path, db **out, char *err, size_t errlen);

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

/* Returns 0 (opened), -1 (refused, the reason in err) or 1 (found busy: try again). */
static int open_attempt(const char *path, db **out, char *err, size_t errlen)
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
    if (read_header(d->handle, &app_id, &objects, &version)) {
        snprintf(err, errlen, "%s: not an a2atune database (%s)", path, sqlite3_errmsg(d->handle));
        goto fail;
    }
    if (app_id != A2A_APPLICATION_ID && (app_id != 0 || objects != 0)) {
        snprintf(err, errlen, "%s: not an a2atune database (it holds other tables); "
                 "choose another path with --db", path);
        goto fail;
    }
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
        /* Decided again under the write lock: another launch may have created or
         * upgraded the file since it was looked at above. */
        if (exec(d, "BEGIN IMMEDIATE", msg, sizeof msg)) {
            snprintf(err, errlen, "%s: cannot create the schema: %s", path, msg);
            goto fail;
        }
        if (read_header(d->handle, &app_id, &objects, &version)) {
            snprintf(err, errlen, "%s: %s", path, sqlite3_errmsg(d->handle));
            exec(d, "ROLLBACK", NULL, 0);
            goto fail;
        }
        if (app_id != A2A_APPLICATION_ID && (app_id != 0 || objects != 0)) {
            snprintf(err, errlen, "%s: not an a2atune database (it holds other tables); "
                     "choose another path with --db", path);
            exec(d, "ROLLBACK", NULL, 0);
            goto fail;
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
        }
        if (version < A2A_SCHEMA_VERSION)
            snprintf(create + strlen(create), sizeof create - strlen(create),
                     " PRAGMA user_version = %d;", A2A_SCHEMA_VERSION);
        if (exec(d, create, msg, sizeof msg) || exec(d, "COMMIT", msg, sizeof msg)) {
            exec(d, "ROLLBACK", NULL, 0);
            snprintf(err, errlen, "%s: cannot create the schema: %s", path, msg);
            goto fail;
        }
    }
    if (add_param_columns(d, msg, sizeof msg)) {
        snprintf(err, errlen, "%s: cannot add the parameters' columns: %s", path, msg);
        goto fail;
    }
    if (sync_views(d, msg, sizeof msg)) {
        snprintf(err, errlen, "%s: cannot create the views: %s", path, msg);
        goto fail;
    }
    *out = d;
    return 0;
fail:;
    int code = d->handle ? sqlite3_errcode(d->handle) & 0xff : SQLITE_OK;
    sqlite3_close(d->handle);
    free(d);
    return code == SQLITE_BUSY || code == SQLITE_LOCKED ? 1 : -1;
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

/* Binds launch_group .. load_start of runs (schema 3) from parameter i on. */
static void bind_run_conditions(sqlite3_stmt *st, int i, const run_info *in)
{
    bind_text_or_null(st, i++, in->launch_group);
    if (in->launches > 0) {
        sqlite3_bind_int(st, i++, in->launch_index);
        sqlite3_bind_int(st, i++, in->launches);
    } else {
        sqlite3_bind_null(st, i++);
        sqlite3_bind_null(st, i++);
    }
    if (in->shuffled)
        sqlite3_bind_int64(st, i++, (sqlite3_int64)in->order_seed);
    else
        sqlite3_bind_null(st, i++);
    bind_text_or_null(st, i++, in->mpi_env[0] ? in->mpi_env : NULL);
    bind_text_or_null(st, i++, in->binding[0] ? in->binding : NULL);
    if (in->load_start >= 0)
        sqlite3_bind_double(st, i++, in->load_start);
    else
        sqlite3_bind_null(st, i++);
}

/* Guarantees: a new row in runs with status 'running', the start time, this process's
 * pid, a first heartbeat and the launch's conditions. */
int db_begin_run(db *d, const run_info *in, long long *run_id, char *err, size_t errlen)
{
    const char *sql =
        "INSERT INTO runs(started, status, host, hosts, nodes, world_size, ppn, cores_per_node,"
        " oversubscribed, mpi_library, mpi_version, compiler, git_revision, cpu_model, l1d_bytes,"
        " l2_bytes, l3_bytes, backend, sweep_file, sweep_text, section, command_line, pid,"
        " launch_group, launch_index, launches, order_seed, mpi_env, binding, load_start,"
        " heartbeat)"
        " VALUES (strftime('%Y-%m-%dT%H:%M:%fZ','now'), 'running', ?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
        " ?,?,?,?,?,?,?,?, strftime('%Y-%m-%dT%H:%M:%fZ','now'))";
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
    sqlite3_bind_int64(st, i++, (sqlite3_int64)os_pid()); /* alive while this process is */
    bind_run_conditions(st, i, in);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        snprintf(err, errlen, "cannot record the run: %s", sqlite3_errmsg(d->handle));
        return -1;
    }
    *run_id = sqlite3_last_insert_rowid(d->handle);
    /* schema 3 and 4: the simulation's provenance and network model (NULL for real runs) */
    if (sqlite3_prepare_v2(d->handle, "UPDATE runs SET platform = ?, platform_sha256 = ?,"
                           " simgrid_version = ?, smpi_options = ?, network_model = ? WHERE id = ?",
                           -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s", sqlite3_errmsg(d->handle));
        return -1;
    }
    const char *sim[5] = { in->platform, in->platform_sha256, in->simgrid_version,
                           in->smpi_options, in->network_model };
    for (int k = 0; k < 5; k++)
        bind_text_or_null(st, k + 1, sim[k][0] ? sim[k] : NULL);
    sqlite3_bind_int64(st, 6, *run_id);
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
                      " AND world_size = ? AND mpi_library IS ? AND mpi_version IS ?"
                      " AND launch_group IS ? AND IFNULL(launch_index, 0) = ?"
                      " AND status <> 'running' ORDER BY id DESC LIMIT 1";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->handle, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    bind_text_or_null(st, 1, in->sweep_text);
    sqlite3_bind_text(st, 2, in->section ? in->section : "", -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 3, in->world_size);
    sqlite3_bind_text(st, 4, in->mpi_library, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 5, in->mpi_version, -1, SQLITE_TRANSIENT);
    bind_text_or_null(st, 6, in->launch_group);
    sqlite3_bind_int(st, 7, in->launches > 0 ? in->launch_index : 0);
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

/* Guarantees: see db.h. */
int db_transaction(db *d, const char *verb, char *err, size_t errlen)
{
    return exec(d, verb, err, errlen);
}

/* 1 when process pid of this host exists and is not a zombie (a killed launch whose
 * processes nobody reaped yet is gone all the same). */
static int process_exists(long long pid)
{
    if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
        return 0;
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%lld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 1; /* no /proc: kill's answer stands */
    int alive = 1;
    if (fgets(line, sizeof line, f)) {
        const char *close = strrchr(line, ')'); /* "pid (comm) S ..." */
        alive = !(close && close[1] == ' ' && (close[2] == 'Z' || close[2] == 'X'));
    }
    fclose(f);
    return alive;
}

/* 1 when process pid runs a2atune: one of its arguments names it (a simulation runs it
 * as an argument of SimGrid's launcher), or there is no /proc to tell. */
static int runs_a2atune(long long pid)
{
    char path[64], args[4096];
    snprintf(path, sizeof path, "/proc/%lld/cmdline", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 1;
    size_t n = fread(args, 1, sizeof args - 1, f);
    fclose(f);
    args[n] = '\0';
    for (size_t at = 0; at < n; at += strlen(args + at) + 1)
        if (strstr(args + at, "a2atune"))
            return 1;
    return 0;
}

/* 1 when a run last seen by `pid` on `host` with a heartbeat `age` seconds old may still
 * be alive. A run on the MPI backend: its heartbeat is recent and, on this host, its
 * process exists. A simulated run has no heartbeat (a thread beside SMPI's actors
 * crashes it) and its host is a simulated one: it is alive while its process (the
 * simulation, on this machine) exists and runs a2atune. */
static int run_alive(const char *host, long long pid, double age, int has_heartbeat,
                     int simulated, const char *this_host, double stale_seconds)
{
    if (simulated)
        return pid > 1 && process_exists(pid) && runs_a2atune(pid);
    if (!has_heartbeat || age > stale_seconds)
        return 0;
    if (host && strcmp(host, this_host) == 0 && pid > 0 && !process_exists(pid))
        return 0;
    return 1;
}

/* Guarantees: see db.h. */
int db_mark_dead_runs(db *d, const char *this_host, double stale_seconds, int *marked)
{
    sqlite3_stmt *st, *up;
    *marked = 0;
    if (sqlite3_prepare_v2(d->handle,
                           "SELECT id, host, pid, heartbeat IS NOT NULL,"
                           " (julianday('now') - julianday(heartbeat)) * 86400.0,"
                           " backend = 'simgrid'"
                           " FROM runs WHERE status = 'running'", -1, &st, NULL) != SQLITE_OK)
        return -1;
    if (sqlite3_prepare_v2(d->handle,
                           "UPDATE runs SET status = 'interrupted', planned = NULL WHERE id = ?",
                           -1, &up, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return -1;
    }
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (run_alive((const char *)sqlite3_column_text(st, 1), sqlite3_column_int64(st, 2),
                      sqlite3_column_double(st, 4), sqlite3_column_int(st, 3),
                      sqlite3_column_int(st, 5), this_host, stale_seconds))
            continue;
        sqlite3_bind_int64(up, 1, sqlite3_column_int64(st, 0));
        if (sqlite3_step(up) != SQLITE_DONE) {
            rc = SQLITE_ERROR;
            break;
        }
        sqlite3_reset(up);
        (*marked)++;
    }
    sqlite3_finalize(st);
    sqlite3_finalize(up);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* Guarantees: see db.h. */
int db_live_plans(db *d, void (*seen)(const char *identity, long long run_id, void *ctx), void *ctx)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->handle, "SELECT id, planned FROM runs WHERE status = 'running'"
                           " AND planned IS NOT NULL", -1, &st, NULL) != SQLITE_OK)
        return -1;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        long long id = sqlite3_column_int64(st, 0);
        char *plan = strdup((const char *)sqlite3_column_text(st, 1)), *save = NULL;
        for (char *line = strtok_r(plan, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
            seen(line, id, ctx);
        free(plan);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* Guarantees: see db.h. */
int db_claim_run(db *d, long long run_id, const char *planned)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->handle,
                           "UPDATE runs SET pid = ?, planned = ?,"
                           " heartbeat = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE id = ?",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(st, 1, (sqlite3_int64)os_pid());
    bind_text_or_null(st, 2, planned);
    sqlite3_bind_int64(st, 3, run_id);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* Guarantees: see db.h. */
int db_heartbeat(db *d, long long run_id)
{
    char sql[160];
    snprintf(sql, sizeof sql, "UPDATE runs SET heartbeat = strftime('%%Y-%%m-%%dT%%H:%%M:%%fZ',"
             "'now') WHERE id = %lld AND status = 'running'", run_id);
    return exec(d, sql, NULL, 0);
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
    bind_text_or_null(st, 6, in->launch_group);
    sqlite3_bind_int(st, 7, in->launches > 0 ? in->launch_index : 0);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        seen((const char *)sqlite3_column_text(st, 0), status_from_text(sqlite3_column_text(st, 1)),
             ctx);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* Guarantees: binds, from index *i on, each parameter with a column of its own: c's value
 * where its kernel takes the parameter, else NULL; *i ends past them. */
static void bind_param_columns(sqlite3_stmt *st, int *i, const config *c)
{
    for (int p = 0; p < A2A_PARAM_COUNT; p++) {
        if (!a2a_param_decl((a2a_param)p)->column)
            continue;
        if (a2a_kernel_takes(c->kernel, (a2a_param)p))
            sqlite3_bind_int(st, (*i)++, c->params[p]);
        else
            sqlite3_bind_null(st, (*i)++);
    }
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
    static const char *const sql =
        "INSERT INTO results(run_id, config_key, section, family, kernel, P, Q, S, dist,"
        " dist_params, payload, datatype, gap," A2A_PARAMS(COLUMN_) " params,"
        " iterations, warmup, seed, oversubscribed, median_s, q1_s, q3_s, min_s, max_s, mean_s,"
        " stddev_s, bytes_moved, rounds, rounds_local, rounds_global, blocks, bytes_sent,"
        " meta_bytes, messages, temp_bytes, status, message, started, ended, idle_ranks,"
        " bytes_copied, chosen_by, tuner_step)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?," A2A_PARAMS(COLUMN_VALUE_)
        "?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
        " strftime('%Y-%m-%dT%H:%M:%fZ', ?, 'unixepoch'), strftime('%Y-%m-%dT%H:%M:%fZ', ?, 'unixepoch'),"
        " ?, ?, ?, ?)";
    sqlite3_stmt *st = NULL, *ss = NULL;
    if (exec(d, "BEGIN IMMEDIATE", err, errlen))
        return -1;
    if (sqlite3_prepare_v2(d->handle, sql, -1, &st, NULL) != SQLITE_OK)
        goto fail;
    int i = 1, ok = r->status == STATUS_OK, measured = ok || r->status == STATUS_WRONG;
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
    bind_param_columns(st, &i, c);
    bind_text_or_null(st, i++, json);
    free(json);
    if (c->iterations != SWEEP_ITERATIONS_AUTO) {
        sqlite3_bind_int(st, i++, c->iterations);
        sqlite3_bind_int(st, i++, c->warmup);
    } else if (measured) { /* the counts the time budget gave */
        sqlite3_bind_int(st, i++, r->iterations);
        sqlite3_bind_int(st, i++, r->warmup);
    } else {
        sqlite3_bind_null(st, i++);
        sqlite3_bind_null(st, i++);
    }
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
    sqlite3_bind_text(st, i++, db_status_name(r->status), -1, SQLITE_STATIC);
    bind_text_or_null(st, i++, r->message[0] ? r->message : NULL);
    sqlite3_bind_double(st, i++, r->started);
    sqlite3_bind_double(st, i++, r->ended);
    sqlite3_bind_int(st, i++, r->idle_ranks);
    if (measured)
        sqlite3_bind_int64(st, i++, r->bytes_copied);
    else
        sqlite3_bind_null(st, i++);
    bind_text_or_null(st, i++, c->chosen_by);
    if (c->chosen_by)
        sqlite3_bind_int(st, i++, c->tuner_step);
    else
        sqlite3_bind_null(st, i++);
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
    if (exec(d, "COMMIT", err, errlen)) {
        exec(d, "ROLLBACK", NULL, 0);
        return -1;
    }
    return 0;
fail:
    snprintf(err, errlen, "%s", sqlite3_errmsg(d->handle));
    sqlite3_finalize(st);
    sqlite3_finalize(ss);
    exec(d, "ROLLBACK", NULL, 0);
    return -1;
}

/* Guarantees: the run's load_end is the 1-minute load average now (when readable). */
int db_note_run_load(db *d, long long run_id, double load)
{
    if (load < 0)
        return 0;
    char sql[160];
    snprintf(sql, sizeof sql, "UPDATE runs SET load_end = %.2f WHERE id = %lld", load, run_id);
    return exec(d, sql, NULL, 0);
}

/* Guarantees: the run has an end time and the given status. */
int db_end_run(db *d, long long run_id, const char *status)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->handle,
                           "UPDATE runs SET status = ?, ended = strftime('%Y-%m-%dT%H:%M:%fZ','now'),"
                           " planned = NULL WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
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
    static const char *const sql =
        "INSERT INTO results(run_id, config_key, section, family, kernel, P, Q, S, dist,"
        " dist_params, payload, datatype, gap," A2A_PARAMS(COLUMN_) " params,"
        " iterations, warmup, seed, oversubscribed, median_s, q1_s, q3_s, min_s, max_s, mean_s,"
        " stddev_s, bytes_moved, status, message, started, ended)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,0," A2A_PARAMS(COLUMN_VALUE_)
        "?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
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
    int i = 1, ok = m->status == STATUS_OK;
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
    for (int p = 0; p < A2A_PARAM_COUNT; p++)
        if (a2a_param_decl((a2a_param)p)->column)
            bind_json_int_or_null(st, i++, params, a2a_param_name((a2a_param)p));
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
    sqlite3_bind_text(st, i++, db_status_name(m->status), -1, SQLITE_STATIC);
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

/* ---- for `a2atune tune`: resuming a tuner run, replaying an exhaustive database ------- */

/* Guarantees: see db.h. */
int db_open_readonly(const char *path, db **out, char *err, size_t errlen)
{
    db *d = calloc(1, sizeof *d);
    if (sqlite3_open_v2(path, &d->handle, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: cannot open database: %s", path,
                 d->handle ? sqlite3_errmsg(d->handle) : "out of memory");
        goto fail;
    }
    sqlite3_busy_timeout(d->handle, 30000);
    long long app_id;
    if (pragma_int(d->handle, "PRAGMA application_id", &app_id) || app_id != A2A_APPLICATION_ID) {
        snprintf(err, errlen, "%s: not an a2atune database", path);
        goto fail;
    }
    *out = d;
    return 0;
fail:
    sqlite3_close(d->handle);
    free(d);
    return -1;
}

/* Guarantees: see db.h. */
int db_find_tuner_run(db *d, const run_info *in, long long *run_id)
{
    const char *sql = "SELECT id FROM runs r WHERE sweep_text IS ? AND IFNULL(section, '') = ?"
                      " AND world_size = ? AND EXISTS (SELECT 1 FROM results WHERE run_id = r.id"
                      " AND chosen_by = 'tuner') ORDER BY id DESC LIMIT 1";
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


/* Fills r's status, message and summary from columns status, message, median_s, q1_s,
 * q3_s, min_s, max_s, mean_s, stddev_s, iterations starting at column `at`. */
static void read_summary(sqlite3_stmt *st, int at, result_record *r)
{
    r->status = status_from_text(sqlite3_column_text(st, at));
    const unsigned char *message = sqlite3_column_text(st, at + 1);
    snprintf(r->message, sizeof r->message, "%s", message ? (const char *)message : "");
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

/* Copies column `col` (text or NULL) into out. */
static void column_text(sqlite3_stmt *st, int col, char *out, size_t len)
{
    const unsigned char *text = sqlite3_column_text(st, col);
    snprintf(out, len, "%s", text ? (const char *)text : "");
}

/* Guarantees: see db.h. */
int db_replay_run_info(db *d, const char *sweep_text, run_info *info, char *err, size_t errlen)
{
    const char *sql =
        "SELECT host, hosts, nodes,"
        " (SELECT max(o.world_size) FROM runs o WHERE o.backend IS runs.backend), ppn,"
        " cores_per_node, oversubscribed, mpi_library, mpi_version, compiler, git_revision,"
        " cpu_model, l1d_bytes, l2_bytes, l3_bytes, backend,"
        " id FROM runs ORDER BY sweep_text IS ? DESC, id DESC LIMIT 1";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->handle, sql, -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s", sqlite3_errmsg(d->handle));
        return -1;
    }
    bind_text_or_null(st, 1, sweep_text);
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

/* ---- for `a2atune app` ---- */

/* The compact, key-sorted text of obj (malloc'ed), obj released. */
static char *dump_json(json_t *obj)
{
    char *text = json_dumps(obj, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(obj);
    return text;
}

/* Guarantees: see db.h; the graph's spec is stored byte for byte (not checked as UTF-8). */
char *db_graph_dist_json(const char *graph, unsigned vertices, long long edges)
{
    json_t *obj = json_object();
    json_object_set_new(obj, "edges", json_integer(edges));
    json_object_set_new(obj, "graph", json_string_nocheck(graph));
    json_object_set_new(obj, "vertices", json_integer((json_int_t)vertices));
    return dump_json(obj);
}

/* Guarantees: see db.h. */
char *db_fft_dist_json(const char *size, int uniform)
{
    json_t *obj = json_object();
    json_object_set_new(obj, "fft", json_string_nocheck(size));
    json_object_set_new(obj, "uniform", json_integer(uniform));
    return dump_json(obj);
}


/* One candidate of the app command's choice: a kernel with its parameters, its median (tc:
 * the sum over the closure's iterations) and noise (tc: the sum of the iterations'). */
typedef struct app_candidate {
    char family[16], kernel[64], params[512], label[600];
    double median, noise;
    int count, nparams, forced;
} app_candidate;

/* Guarantees: fills c->label ('tra radix=2': the kernel, then key=value by sorted key, as
 * scripts/a2a_tools/tune.py labels candidates), c->nparams and c->forced from c->params. */
static void label_candidate(app_candidate *c)
{
    json_t *obj = json_loads(c->params, 0, NULL);
    const char *keys[64];
    int n = 0;
    const char *key;
    json_t *value;
    json_object_foreach(obj, key, value)
        if (n < 64)
            keys[n++] = key;
    for (int a = 1; a < n; a++) /* insertion sort: a few keys */
        for (int b = a; b > 0 && strcmp(keys[b - 1], keys[b]) > 0; b--) {
            const char *t = keys[b];
            keys[b] = keys[b - 1];
            keys[b - 1] = t;
        }
    size_t used = (size_t)snprintf(c->label, sizeof c->label, "%s", c->kernel);
    for (int a = 0; a < n && used < sizeof c->label; a++) {
        json_t *v = json_object_get(obj, keys[a]);
        if (json_is_integer(v))
            used += (size_t)snprintf(c->label + used, sizeof c->label - used, " %s=%lld", keys[a],
                                     (long long)json_integer_value(v));
        else
            used += (size_t)snprintf(c->label + used, sizeof c->label - used, " %s=%s", keys[a],
                                     json_is_string(v) ? json_string_value(v) : "?");
    }
    json_t *forced = json_object_get(obj, "vendor_algorithm");
    c->forced = json_is_integer(forced) && json_integer_value(forced) != 0;
    c->nparams = n;
    json_decref(obj);
}

/* Guarantees: < 0 when a is simpler than b by the results contract's order (the library's
 * own choice, then its forced algorithms, then kernels by number of parameters, then by
 * label; scripts/a2a_tools/contract.py simplicity), then the lower median. */
static int simpler(const app_candidate *a, const app_candidate *b)
{
    int va = strcmp(a->kernel, "vendor") == 0, vb = strcmp(b->kernel, "vendor") == 0;
    if (va != vb)
        return va ? -1 : 1;
    int d = va ? a->forced - b->forced : a->nparams - b->nparams;
    if (d)
        return d;
    if (!va && (d = strcmp(a->label, b->label)) != 0)
        return d;
    return (a->median > b->median) - (a->median < b->median);
}

/* Guarantees: connection h (of a file opened as it is) reads the views of the results
 * contract as this a2atune defines them, as TEMP views that shadow the file's own; a file
 * from before launch groups has its runs read with launch_group NULL (each run alone), as
 * scripts/a2a_tools/db.py current_views does. 0, or -1 with the reason in h's error. */
static int read_current_views(sqlite3 *h)
{
    sqlite3_stmt *st = NULL;
    int grouped = sqlite3_prepare_v2(h, "SELECT 1 FROM pragma_table_info('runs') WHERE name ="
                                     " 'launch_group'", -1, &st, NULL) == SQLITE_OK &&
                  sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    if (!grouped && sqlite3_exec(h, "CREATE TEMP VIEW runs AS SELECT *, NULL AS launch_group"
                                 " FROM main.runs", NULL, NULL, NULL) != SQLITE_OK)
        return -1;
    for (size_t v = 0; v < sizeof views / sizeof views[0]; v++) {
        char sql[8300];
        snprintf(sql, sizeof sql, "CREATE TEMP VIEW %s AS %s", views[v].name, views[v].select);
        if (sqlite3_exec(h, sql, NULL, NULL, NULL) != SQLITE_OK)
            return -1;
    }
    return 0;
}

/* Guarantees: see db.h (read-only; the file is opened as it is, without db_open's checks,
 * so that any SQLite file with results answers or says why not; the views of the results
 * contract are read as this a2atune defines them, as TEMP views of this connection). */
int db_best_app_kernel(const char *path, int tc, const char *instance, int P, int *family,
                       char *name, size_t namelen, int params[A2A_PARAM_COUNT], char *summary,
                       size_t sumlen, char *err, size_t errlen)
{
    /* per candidate and closure iteration its best measurement; summed over a closure */
    static const char *const graph_sql =
        "WITH per AS (SELECT family, kernel, params, median_s, noise_s,"
        " json_extract(dist_params, '$.iterations') AS total, ROW_NUMBER() OVER (PARTITION BY"
        "  family, kernel, params, json_extract(dist_params, '$.iteration')"
        "  ORDER BY median_s, result_id) AS rank_in_iteration"
        " FROM measurement WHERE dist = 'graph' AND family = 'nonuniform' AND P = ?1"
        " AND json_extract(dist_params, '$.graph') = ?2 AND alloc = 'private')"
        " SELECT family, kernel, params, SUM(median_s), SUM(noise_s), COUNT(*) FROM per"
        " WHERE rank_in_iteration = 1 GROUP BY family, kernel, params"
        " HAVING COUNT(*) = MAX(total) ORDER BY SUM(median_s)";
    static const char *const fft_sql =
        "SELECT family, kernel, params, median_s, noise_s, 1 FROM (SELECT m.*, ROW_NUMBER() OVER"
        " (PARTITION BY family, kernel, params ORDER BY median_s, result_id) AS rank_in_kernel"
        " FROM measurement m WHERE dist = 'fft' AND family IN ('uniform', 'nonuniform')"
        " AND P = ?1 AND json_extract(dist_params, '$.fft') = ?2 AND alloc = 'private')"
        " WHERE rank_in_kernel = 1 ORDER BY median_s";
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    app_candidate *cand = NULL;
    int rc = -1, n = 0, cap = 0;
    int opened = sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
                 read_current_views(h) == 0;
    if (!opened || sqlite3_prepare_v2(h, tc ? graph_sql : fft_sql, -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "--kernel best: cannot read the results in %.300s: %.200s", path,
                 h ? sqlite3_errmsg(h) : "out of memory");
        goto out;
    }
    sqlite3_bind_int(st, 1, P);
    sqlite3_bind_text(st, 2, instance, -1, SQLITE_STATIC);
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (n == cap) {
            app_candidate *more = realloc(cand, (size_t)(cap = cap ? 2 * cap : 16) * sizeof *cand);
            if (!more) {
                snprintf(err, errlen, "--kernel best: out of memory");
                goto out;
            }
            cand = more;
        }
        app_candidate *c = &cand[n++];
        snprintf(c->family, sizeof c->family, "%s", (const char *)sqlite3_column_text(st, 0));
        snprintf(c->kernel, sizeof c->kernel, "%s", (const char *)sqlite3_column_text(st, 1));
        const unsigned char *p = sqlite3_column_text(st, 2);
        snprintf(c->params, sizeof c->params, "%s", p ? (const char *)p : "{}");
        c->median = sqlite3_column_double(st, 3);
        c->noise = sqlite3_column_double(st, 4);
        c->count = sqlite3_column_int(st, 5);
        label_candidate(c);
    }
    if (n == 0) {
        snprintf(err, errlen, "--kernel best: %.300s has no timed dist = %s results for %.300s at P = %d "
                 "(run a sweep first, e.g. sweeps/apps.ini)", path, tc ? "graph" : "fft",
                 instance, P);
        goto out;
    }
    /* the results contract's choice: the best (cand[0], the lowest median) unless others are
     * within the noise of it; then the simplest of those */
    const app_candidate *best = &cand[0], *chosen = best;
    for (int k = 1; k < n; k++)
        if (fabs(cand[k].median - best->median) <= fmin(cand[k].noise, best->noise) &&
            simpler(&cand[k], chosen) < 0)
            chosen = &cand[k];
    *family = a2a_family_by_name(chosen->family);
    snprintf(name, namelen, "%s", chosen->kernel);
    json_t *obj = json_loads(chosen->params, 0, NULL);
    memset(params, 0, A2A_PARAM_COUNT * sizeof *params);
    for (int p = 0; p < A2A_PARAM_COUNT; p++) {
        json_t *v = json_object_get(obj, a2a_param_name((a2a_param)p));
        int nv;
        const char *const *names = a2a_param_value_names((a2a_param)p, &nv);
        if (json_is_integer(v))
            params[p] = (int)json_integer_value(v);
        for (int i = 0; json_is_string(v) && names && i < nv; i++)
            if (strcmp(names[i], json_string_value(v)) == 0)
                params[p] = i + 1;
    }
    json_decref(obj);
    snprintf(summary, sumlen, "%s %.3f ms (noise %.3f ms) over %d %s; %s%.200s", tc ? "sum of medians" : "median",
             chosen->median * 1e3, chosen->noise * 1e3, chosen->count,
             tc ? "closure iterations" : "configuration(s)",
             chosen == best ? "the fastest" : "the simplest within the noise of ",
             chosen == best ? "" : best->label);
    rc = *family >= 0 ? 0 : -1;
    if (rc)
        snprintf(err, errlen, "--kernel best: unknown family in %.300s", path);
out:
    free(cand);
    sqlite3_finalize(st);
    sqlite3_close(h);
    return rc;
}
