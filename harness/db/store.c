/* store.c — storing what was measured (see db.h): a sweep configuration's result row
 * with its samples and counters, a measurement made outside a sweep with its samples and
 * metrics, each in one transaction; and the JSON of the parameters and distributions the
 * rows hold. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include "db_internal.h"

/* The compact, key-sorted text of obj (malloc'ed), obj released: every JSON column a row
 * holds is written so. */
static char *dump_json(json_t *obj)
{
    char *text = json_dumps(obj, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(obj);
    return text;
}

/* Guarantees: the params JSON of c's row (malloc'ed): each parameter its kernel takes, by
 * its value's name where the parameter names its values, and the buffers' allocation when
 * it is not private (the default). */
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
    return dump_json(obj);
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
    return dump_json(obj);
}

/* The columns every row of results starts with, in this order: the row's identity
 * (run_id .. dist, bound by bind_row_key), the workload, the parameters' columns, params,
 * the counts of calls and the timing summary (bind_timings). */
#define RESULT_ROW_COLUMNS                                                                   \
    "INSERT INTO results(run_id, config_key, section, family, kernel, P, Q, S, dist,"       \
    " dist_params, payload, datatype, gap," A2A_PARAMS(COLUMN_) " params,"                   \
    " iterations, warmup, seed, oversubscribed, median_s, q1_s, q3_s, min_s, max_s, mean_s,"  \
    " stddev_s, bytes_moved,"

/* A row's start and end (Unix time, bound as a number) as stored. */
#define ROW_TIMES                                                                            \
    " strftime('%Y-%m-%dT%H:%M:%fZ', ?, 'unixepoch'), strftime('%Y-%m-%dT%H:%M:%fZ', ?, 'unixepoch')"

/* What names a row of results: its run, configuration key and where it belongs. */
typedef struct row_key {
    const char *config_key, *section, *family, *kernel, *dist;
    int P, Q;
    long long S;
} row_key;

/* Guarantees: binds run_id and k to parameters 1..9 of st (texts copied); returns 10, the
 * next parameter. */
static int bind_row_key(sqlite3_stmt *st, long long run_id, const row_key *k)
{
    sqlite3_bind_int64(st, 1, run_id);
    const char *texts[] = { k->config_key, k->section, k->family, k->kernel };
    for (int t = 0; t < 4; t++)
        sqlite3_bind_text(st, 2 + t, texts[t], -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 6, k->P);
    sqlite3_bind_int(st, 7, k->Q);
    sqlite3_bind_int64(st, 8, k->S);
    sqlite3_bind_text(st, 9, k->dist, -1, SQLITE_TRANSIENT);
    return 10;
}

/* Guarantees: binds, from index *i on, median_s, q1_s, q3_s, min_s, max_s, mean_s and
 * stddev_s of s when timed, else seven NULLs; *i ends past them. */
static void bind_timings(sqlite3_stmt *st, int *i, const sample_summary *s, int timed)
{
    const double values[] = { s->median, s->q1, s->q3, s->min, s->max, s->mean, s->stddev };
    for (int k = 0; k < 7; k++) {
        if (timed)
            sqlite3_bind_double(st, (*i)++, values[k]);
        else
            sqlite3_bind_null(st, (*i)++);
    }
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

/* Guarantees: binds every parameter of the INSERT of db_store_result for configuration c
 * of section sec and its outcome r. */
static void bind_result_row(sqlite3_stmt *st, long long run_id, const sweep_section *sec,
                            const config *c, const result_record *r)
{
    const row_key key = { c->key, sec->name, a2a_family_name(c->kernel->family),
                          c->kernel->name, wl_dist_name(c->dist), c->P, c->Q, c->S };
    int i = bind_row_key(st, run_id, &key);
    int measured = r->status == STATUS_OK || r->status == STATUS_WRONG;
    char *dist_json = dist_params_json(c);
    db_bind_text_or_null(st, i++, dist_json);
    free(dist_json);
    sqlite3_bind_text(st, i++, wl_payload_name(c->payload), -1, SQLITE_STATIC);
    sqlite3_bind_text(st, i++, sweep_datatype_name(c->datatype), -1, SQLITE_STATIC);
    sqlite3_bind_int(st, i++, c->gap);
    bind_param_columns(st, &i, c);
    char *json = params_json(c);
    db_bind_text_or_null(st, i++, json);
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
    bind_timings(st, &i, &r->summary, r->status == STATUS_OK && r->summary.n > 0);
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
    db_bind_text_or_null(st, i++, r->message[0] ? r->message : NULL);
    sqlite3_bind_double(st, i++, r->started);
    sqlite3_bind_double(st, i++, r->ended);
    sqlite3_bind_int(st, i++, r->idle_ranks);
    if (measured)
        sqlite3_bind_int64(st, i++, r->bytes_copied);
    else
        sqlite3_bind_null(st, i++);
    db_bind_text_or_null(st, i++, c->chosen_by);
    if (c->chosen_by)
        sqlite3_bind_int(st, i++, c->tuner_step);
    else
        sqlite3_bind_null(st, i++);
}

/* Guarantees: binds the integer field `name` of the JSON object obj, or NULL. */
static void bind_json_int_or_null(sqlite3_stmt *st, int i, json_t *obj, const char *name)
{
    json_t *v = obj ? json_object_get(obj, name) : NULL;
    if (json_is_integer(v))
        sqlite3_bind_int64(st, i, json_integer_value(v));
    else
        sqlite3_bind_null(st, i);
}

/* Guarantees: binds every parameter of the INSERT of db_store_measurement for m, named
 * config_key; the parameters' columns from params (m's params_json read, or NULL). */
static void bind_measurement_row(sqlite3_stmt *st, long long run_id, const measurement *m,
                                 const char *config_key, json_t *params)
{
    const row_key key = { config_key, m->section, m->family, m->kernel, m->dist,
                          m->P, m->Q, m->S };
    int i = bind_row_key(st, run_id, &key);
    db_bind_text_or_null(st, i++, m->dist_params_json);
    db_bind_text_or_null(st, i++, m->payload);
    db_bind_text_or_null(st, i++, m->datatype);
    for (int p = 0; p < A2A_PARAM_COUNT; p++)
        if (a2a_param_decl((a2a_param)p)->column)
            bind_json_int_or_null(st, i++, params, a2a_param_name((a2a_param)p));
    db_bind_text_or_null(st, i++, m->params_json);
    sqlite3_bind_int(st, i++, m->nsamples);
    sqlite3_bind_int(st, i++, m->warmup);
    sqlite3_bind_int64(st, i++, (sqlite3_int64)m->seed);
    sqlite3_bind_int(st, i++, m->oversubscribed);
    sample_summary sum = summarize_samples(m->samples, m->nsamples);
    bind_timings(st, &i, &sum, m->status == STATUS_OK && m->nsamples > 0);
    if (m->bytes_moved >= 0)
        sqlite3_bind_int64(st, i++, m->bytes_moved);
    else
        sqlite3_bind_null(st, i++);
    sqlite3_bind_text(st, i++, db_status_name(m->status), -1, SQLITE_STATIC);
    db_bind_text_or_null(st, i++, m->message && m->message[0] ? m->message : NULL);
    sqlite3_bind_double(st, i++, m->started);
    sqlite3_bind_double(st, i++, m->ended);
}

/* Guarantees: runs st, an INSERT into results prepared on h (NULL: its preparing failed),
 * and finalizes it; 0 with the new row's id in *result_id, or -1 with the reason in h's
 * error. */
static int insert_row(sqlite3 *h, sqlite3_stmt *st, long long *result_id)
{
    int rc = st ? sqlite3_step(st) : SQLITE_ERROR;
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return -1;
    *result_id = sqlite3_last_insert_rowid(h);
    return 0;
}

/* Binds row k of rows (an array of child rows of one result) to parameters 2 on of st. */
typedef void bind_child_row(sqlite3_stmt *st, int k, const void *rows);

/* Guarantees: the INSERT sql (parameter 1: the result's id) run once for each k in
 * [0, n), bind(st, k, rows) binding the rest: n rows of a table belonging to result_id;
 * 0, or -1 at the first failure with the reason in h's error. */
static int insert_children(sqlite3 *h, const char *sql, long long result_id, int n,
                           bind_child_row *bind, const void *rows)
{
    sqlite3_stmt *st;
    if (n <= 0)
        return 0;
    if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    int rc = SQLITE_DONE;
    for (int k = 0; k < n && rc == SQLITE_DONE; k++) {
        sqlite3_bind_int64(st, 1, result_id);
        bind(st, k, rows);
        rc = sqlite3_step(st);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* Binds sample k of the array of seconds rows: its iteration (k) and seconds. */
static void bind_sample(sqlite3_stmt *st, int k, const void *rows)
{
    sqlite3_bind_int(st, 2, k);
    sqlite3_bind_double(st, 3, ((const double *)rows)[k]);
}

/* Binds event k of the counted_events rows: its name, its maximum, sum and rank-0 values
 * (NULL where the event was not available), the calls counted, availability, reason. */
static void bind_counter(sqlite3_stmt *st, int k, const void *rows)
{
    const counted_events *counted = rows;
    const counted_event *e = &counted->event[k];
    sqlite3_bind_text(st, 2, e->name, -1, SQLITE_TRANSIENT);
    const long long values[] = { e->max, e->sum, e->rank0 };
    for (int v = 0; v < 3; v++) {
        if (e->available)
            sqlite3_bind_int64(st, 3 + v, values[v]);
        else
            sqlite3_bind_null(st, 3 + v);
    }
    sqlite3_bind_int64(st, 6, counted->calls);
    sqlite3_bind_int(st, 7, e->available);
    db_bind_text_or_null(st, 8, e->reason[0] ? e->reason : NULL);
}

/* Binds metric k of the metric array rows: its name, value and unit. */
static void bind_metric(sqlite3_stmt *st, int k, const void *rows)
{
    const metric *m = &((const metric *)rows)[k];
    sqlite3_bind_text(st, 2, m->name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(st, 3, m->value);
    db_bind_text_or_null(st, 4, m->unit);
}

/* The INSERTs of the rows belonging to a result (parameter 1: its id). */
static const char *const samples_sql =
    "INSERT INTO samples(result_id, iteration, seconds) VALUES (?,?,?)";
static const char *const counters_sql =
    "INSERT INTO counters(result_id, event, max_value, sum_value, rank0_value, calls,"
    " available, reason) VALUES (?,?,?,?,?,?,?,?)";
static const char *const metrics_sql =
    "INSERT INTO metrics(result_id, name, value, unit) VALUES (?,?,?,?)";

/* Guarantees: ends the transaction db_store_result or db_store_measurement began: COMMIT
 * when nothing failed (0), else ROLLBACK (also after a failed COMMIT, whose reason is then
 * in err) and -1. */
static int end_store(db *d, int failed, char *err, size_t errlen)
{
    if (!failed && db_exec(d, "COMMIT", err, errlen) == 0)
        return 0;
    db_exec(d, "ROLLBACK", NULL, 0);
    return -1;
}

/* Guarantees: the result row with its samples and counters, or nothing (one transaction). */
int db_store_result(db *d, long long run_id, const sweep_section *sec, const config *c,
                    const result_record *r, const double *samples, int nsamples, char *err,
                    size_t errlen)
{
    static const char *const sql =
        RESULT_ROW_COLUMNS " rounds, rounds_local, rounds_global, blocks, bytes_sent,"
        " meta_bytes, messages, temp_bytes, status, message, started, ended, idle_ranks,"
        " bytes_copied, chosen_by, tuner_step)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?," A2A_PARAMS(COLUMN_VALUE_)
        "?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?," ROW_TIMES ", ?, ?, ?, ?)";
    if (db_exec(d, "BEGIN IMMEDIATE", err, errlen))
        return -1;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(d->handle, sql, -1, &st, NULL) == SQLITE_OK)
        bind_result_row(st, run_id, sec, c, r);
    long long result_id = 0;
    int failed = insert_row(d->handle, st, &result_id) != 0;
    /* schema 3: validated = 1 when the payloads were compared, 0 when not (shared) */
    if (!failed && (r->status == STATUS_OK || r->status == STATUS_WRONG)) {
        char update[128];
        snprintf(update, sizeof update, "UPDATE results SET validated = %d WHERE id = %lld",
                 !r->unvalidated, result_id);
        failed = db_exec(d, update, NULL, 0) != 0;
    }
    failed = failed ||
             insert_children(d->handle, samples_sql, result_id, nsamples, bind_sample, samples) ||
             insert_children(d->handle, counters_sql, result_id, r->counted.n, bind_counter,
                             &r->counted);
    if (failed)
        snprintf(err, errlen, "%s", sqlite3_errmsg(d->handle));
    return end_store(d, failed, err, errlen);
}

/* Guarantees: see db.h. */
int db_store_measurement(db *d, long long run_id, const measurement *m, char *err, size_t errlen)
{
    static const char *const sql =
        RESULT_ROW_COLUMNS " status, message, started, ended)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,0," A2A_PARAMS(COLUMN_VALUE_)
        "?,?,?,?,?,?,?,?,?,?,?,?,?,?,?," ROW_TIMES ")";
    char key[1024];
    snprintf(key, sizeof key, "%s|%s|%s|P=%d|Q=%d|S=%lld|%s|%s|%s", m->section, m->family,
             m->kernel, m->P, m->Q, m->S, m->dist, m->params_json ? m->params_json : "{}",
             m->dist_params_json ? m->dist_params_json : "{}");
    if (db_exec(d, "BEGIN IMMEDIATE", err, errlen))
        return -1;
    json_t *params = m->params_json ? json_loads(m->params_json, 0, NULL) : NULL;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(d->handle, sql, -1, &st, NULL) == SQLITE_OK)
        bind_measurement_row(st, run_id, m, key, params);
    json_decref(params);
    long long result_id = 0;
    int failed = insert_row(d->handle, st, &result_id) ||
                 insert_children(d->handle, samples_sql, result_id, m->nsamples, bind_sample,
                                 m->samples) ||
                 insert_children(d->handle, metrics_sql, result_id, m->nmetrics, bind_metric,
                                 m->metrics);
    if (failed)
        snprintf(err, errlen, "cannot store %s: %s", key, sqlite3_errmsg(d->handle));
    return end_store(d, failed, err, errlen);
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
