/* views.c — the views of the results contract (result_data, measurement, best_radix,
 * speedup_vs_baseline): their SQL, keeping a writable file's views current on open, and
 * reading a file as it is through this a2atune's definitions (TEMP views). */
#include <stdio.h>
#include <string.h>
#include "db_internal.h"

/* The views: the results contract (docs/database.md, "The results contract"), which
 * scripts/a2a_tools/core/contract.py states in Python for the tools; tests/parts/contract.sh
 * checks that both name the same best, baseline and speedup. One grouping defines "the same
 * data set" (data_set: family, P, Q, S, dist and its parameters, payload, datatype, gap and
 * buffer allocation, params.alloc, 'private' when absent) and one "the same measurement"
 * (a configuration, config_key, in one run group: the runs of a launch group, else a run
 * alone, named by its newest run). Created in this order (later views read earlier ones)
 * and replaced on open when the stored text differs (db_sync_views), so a file written by an
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

#define VIEW_COUNT (sizeof views / sizeof views[0])
#define VIEW_SQL_LEN 8300

/* Guarantees: see db.h. */
const db_view *db_views(int *count)
{
    *count = (int)VIEW_COUNT;
    return views;
}

/* Guarantees: out holds "CREATE <kind> <name> AS <select>" of view v (kind "VIEW" or
 * "TEMP VIEW"); with kind "VIEW", the text SQLite keeps for the view in sqlite_master. */
static void view_definition(char *out, size_t len, const char *kind, const db_view *v)
{
    snprintf(out, len, "CREATE %s %s AS %s", kind, v->name, v->select);
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
    for (size_t v = 0; current == 1 && v < VIEW_COUNT; v++) {
        char want[VIEW_SQL_LEN];
        view_definition(want, sizeof want, "VIEW", &views[v]);
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

/* Guarantees: every view of views[] created on h in order (later views read earlier ones)
 * as kind ("VIEW" or "TEMP VIEW"); 0, or -1 at the first failure with the reason in h's
 * error. */
static int create_views(sqlite3 *h, const char *kind)
{
    for (size_t v = 0; v < VIEW_COUNT; v++) {
        char sql[VIEW_SQL_LEN];
        view_definition(sql, sizeof sql, kind, &views[v]);
        if (sqlite3_exec(h, sql, NULL, NULL, NULL) != SQLITE_OK)
            return -1;
    }
    return 0;
}

/* Guarantees: see db_internal.h; the views are dropped newest first, then created in
 * order. */
int db_sync_views(db *d, char *msg, size_t msglen)
{
    int current = views_current(d->handle);
    if (current == 1)
        return 0;
    if (current < 0 || db_exec(d, "BEGIN IMMEDIATE", msg, msglen)) {
        snprintf(msg, msglen, "%s", sqlite3_errmsg(d->handle));
        return -1;
    }
    /* decided again under the write lock: another launch may have replaced them since */
    current = views_current(d->handle);
    int failed = current < 0;
    for (size_t v = VIEW_COUNT; current == 0 && !failed && v-- > 0;) {
        char sql[VIEW_SQL_LEN];
        snprintf(sql, sizeof sql, "DROP VIEW IF EXISTS %s", views[v].name);
        failed = db_exec(d, sql, msg, msglen) != 0;
    }
    if (current == 0 && !failed)
        failed = create_views(d->handle, "VIEW") != 0;
    if (failed)
        snprintf(msg, msglen, "%s", sqlite3_errmsg(d->handle));
    else
        failed = db_exec(d, "COMMIT", msg, msglen) != 0;
    if (failed)
        db_exec(d, "ROLLBACK", NULL, 0);
    return failed ? -1 : 0;
}

/* Guarantees: see db_internal.h. */
int db_read_current_views(sqlite3 *h)
{
    sqlite3_stmt *st = NULL;
    int grouped = sqlite3_prepare_v2(h, "SELECT 1 FROM pragma_table_info('runs') WHERE name ="
                                     " 'launch_group'", -1, &st, NULL) == SQLITE_OK &&
                  sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    if (!grouped && sqlite3_exec(h, "CREATE TEMP VIEW runs AS SELECT *, NULL AS launch_group"
                                 " FROM main.runs", NULL, NULL, NULL) != SQLITE_OK)
        return -1;
    return create_views(h, "TEMP VIEW");
}
