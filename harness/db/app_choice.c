/* app_choice.c — the app command's --kernel best (see db.h): the kernel and parameters
 * the results contract chooses for one application workload, read through the views of
 * the results contract as this a2atune defines them. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "db_internal.h"

/* One candidate of the app command's choice: a kernel with its parameters, its median (tc:
 * the sum over the closure's iterations) and noise (tc: the sum of the iterations'). */
typedef struct app_candidate {
    char family[16], kernel[64], params[512], label[600];
    double median, noise;
    int count, nparams, forced;
} app_candidate;

/* Guarantees: fills c->label ('tra radix=2': the kernel, then key=value by sorted key, as
 * scripts/a2a_tools/tuner/tune.py labels candidates), c->nparams and c->forced from c->params. */
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
 * label; scripts/a2a_tools/core/contract.py simplicity), then the lower median. */
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
                 db_read_current_views(h) == 0;
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
