/* app_dist.c — the provider of the application distributions of sweep files, `dist =
 * graph` and `dist = fft` (workloads/dist_provider.h: the sweep reader and the expansion
 * reach it only through wl_app_provider).
 *
 * Keys (docs/sweeps.md, "Application traffic"):
 *   graph = SPEC, ...            graphs (graph.h: rmat:SCALE[:EF[:SEED]] or an edge-list /
 *                                Matrix Market file, relative to the sweep file)
 *   graph_iteration = all        which closure iterations become configurations: all
 *                                (default), peak (the one moving the most bytes), last,
 *                                numbers and ranges (1, 3..5); numbers beyond the closure's
 *                                iterations are recorded as skipped
 *   fft = SIZE, ...              FFT sizes (fft.h: N0xN1[xN2][/B0xB1])
 * Each (graph, iteration) and each FFT size is one instance of its distribution: its own
 * configurations, with S = the largest block in bytes (the sweep's S does not apply: only
 * its first value expands, so a list of S values makes no duplicates). An FFT size that
 * cannot be laid out at some P, or one that is not uniform there in the uniform family,
 * is recorded as skipped with the reason. Graph count matrices come from graph_counts_get
 * (computed and cached on first use). */
#include <ctype.h>
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "app_dist.h"
#include "fft.h"
#include "graph.h"
#include "graph_counts.h"

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

/* The parsed keys of one section. */
typedef struct app_dist_keys {
    graph_spec *graphs;
    int ngraphs;
    int graph_line, fft_line;    /* where `graph` and `fft` were set (messages) */
    int all, peak, last;         /* graph_iteration selectors */
    int *ranges, nranges;        /* graph_iteration: pairs (lo, hi), 1-based, inclusive */
    fft_size *ffts;
    char (*fft_texts)[64];       /* canonical sizes (configurations point here) */
    int nffts;
} app_dist_keys;

/* Guarantees: 1 for graph and fft. */
static int app_dist_handles(wl_dist dist)
{
    return dist == WL_DIST_GRAPH || dist == WL_DIST_FFT;
}

/* Guarantees: the next comma-separated item of *s, trimmed, in item (NUL-terminated);
 * *s moved past it and its comma. 0, or -1 at the end of the text. */
static int next_item(const char **s, char *item, size_t len)
{
    if (!**s)
        return -1;
    size_t n = strcspn(*s, ",");
    const char *b = *s, *e = *s + n;
    *s = *e ? e + 1 : e;
    while (b < e && isspace((unsigned char)*b))
        b++;
    while (e > b && isspace((unsigned char)e[-1]))
        e--;
    n = (size_t)(e - b) < len - 1 ? (size_t)(e - b) : len - 1;
    memcpy(item, b, n);
    item[n] = '\0';
    return 0;
}

/* Guarantees: *v = the positive decimal integer that is the whole text, 0; else -1. */
static int positive(const char *text, long long *v)
{
    char *end;
    errno = 0;
    *v = strtoll(text, &end, 10);
    return end != text && !*end && !errno && *v >= 1 && *v <= 100000000 ? 0 : -1;
}

/* Guarantees: the graphs of `graph = SPEC, ...` in k (duplicates once, files resolved
 * against folder and readable); 0, or -1 with "path:line: message" in err. */
static int parse_graphs(const char *path, const char *folder, wl_key g, wl_key dist,
                        app_dist_keys *k, char *err, size_t errlen)
{
    char item[1100], msg[600];
    if (!g.text)
        FAIL("%s:%d: dist = graph needs 'graph = SPEC' (rmat:SCALE[:EDGEFACTOR[:SEED]] or an "
             "edge-list file)", path, dist.line);
    for (const char *s = g.text; next_item(&s, item, sizeof item) == 0;) {
        graph_spec spec;
        if (graph_spec_parse(item, folder, &spec, msg, sizeof msg))
            FAIL("%s:%d: %s", path, g.line, msg);
        if (spec.kind == GRAPH_FILE && access(spec.path, R_OK) != 0)
            FAIL("%s:%d: graph '%s': cannot read %s: %s", path, g.line, item, spec.path,
                 strerror(errno));
        int seen = 0;
        for (int i = 0; i < k->ngraphs; i++)
            seen |= strcmp(k->graphs[i].text, spec.text) == 0;
        if (seen)
            continue;
        k->graphs = realloc(k->graphs, (size_t)(k->ngraphs + 1) * sizeof *k->graphs);
        k->graphs[k->ngraphs++] = spec;
    }
    if (k->ngraphs == 0)
        FAIL("%s:%d: graph = '%s' names no graph", path, g.line, g.text);
    k->graph_line = g.line;
    return 0;
}

/* Guarantees: the selectors of `graph_iteration` (default all) in k; 0, or -1 with
 * "path:line: message" in err. */
static int parse_iterations(const char *path, wl_key it, app_dist_keys *k, char *err,
                            size_t errlen)
{
    char item[1100];
    const char *sel = it.text ? it.text : "all";
    for (const char *s = sel; next_item(&s, item, sizeof item) == 0;) {
        long long lo, hi;
        char *dots = strstr(item, "..");
        if (strcmp(item, "all") == 0)
            k->all = 1;
        else if (strcmp(item, "peak") == 0)
            k->peak = 1;
        else if (strcmp(item, "last") == 0)
            k->last = 1;
        else if (dots && (*dots = '\0', positive(item, &lo) == 0) && positive(dots + 2, &hi) == 0 &&
                 lo <= hi) {
            k->ranges = realloc(k->ranges, (size_t)(k->nranges + 1) * 2 * sizeof *k->ranges);
            k->ranges[2 * k->nranges] = (int)lo;
            k->ranges[2 * k->nranges++ + 1] = (int)hi;
        } else if (!dots && positive(item, &lo) == 0) {
            k->ranges = realloc(k->ranges, (size_t)(k->nranges + 1) * 2 * sizeof *k->ranges);
            k->ranges[2 * k->nranges] = k->ranges[2 * k->nranges + 1] = (int)lo;
            k->nranges++;
        } else
            FAIL("%s:%d: graph_iteration = '%s': items are all, peak, last, N or N..M "
                 "(iterations count from 1)", path, it.line, sel);
    }
    if (!k->all && !k->peak && !k->last && !k->nranges)
        FAIL("%s:%d: graph_iteration = '%s' selects nothing", path, it.line, sel);
    return 0;
}

/* Guarantees: the FFT sizes of `fft = SIZE, ...` in k (canonical texts, duplicates once);
 * 0, or -1 with "path:line: message" in err. */
static int parse_ffts(const char *path, wl_key f, wl_key dist, app_dist_keys *k, char *err,
                      size_t errlen)
{
    char item[1100], msg[600];
    if (!f.text)
        FAIL("%s:%d: dist = fft needs 'fft = SIZE' (N0xN1 or N0xN1xN2, e.g. 1000x1000)", path,
             dist.line);
    for (const char *s = f.text; next_item(&s, item, sizeof item) == 0;) {
        fft_size size;
        if (fft_size_parse(item, &size, msg, sizeof msg))
            FAIL("%s:%d: %s", path, f.line, msg);
        k->ffts = realloc(k->ffts, (size_t)(k->nffts + 1) * sizeof *k->ffts);
        k->fft_texts = realloc(k->fft_texts, (size_t)(k->nffts + 1) * sizeof *k->fft_texts);
        k->ffts[k->nffts] = size;
        fft_size_text(&size, k->fft_texts[k->nffts], sizeof k->fft_texts[0]);
        int seen = 0;
        for (int i = 0; i < k->nffts; i++)
            seen |= strcmp(k->fft_texts[i], k->fft_texts[k->nffts]) == 0;
        k->nffts += !seen;
    }
    if (k->nffts == 0)
        FAIL("%s:%d: fft = '%s' names no size", path, f.line, f.text);
    k->fft_line = f.line;
    return 0;
}

/* Guarantees: frees what app_dist_parse made; NULL is fine. */
static void app_dist_free(void *keys)
{
    app_dist_keys *k = keys;
    if (!k)
        return;
    free(k->graphs);
    free(k->ranges);
    free(k->ffts);
    free(k->fft_texts);
    free(k);
}

/* Guarantees: see wl_provider.parse (dist_provider.h). */
static int app_dist_parse(const char *path, const int *dists, int ndists, wl_key dist,
                          wl_key_reader read, void *ctx, void **out, char *err, size_t errlen)
{
    *out = NULL;
    int uses_graph = 0, uses_fft = 0;
    for (int i = 0; i < ndists; i++) {
        uses_graph |= dists[i] == WL_DIST_GRAPH;
        uses_fft |= dists[i] == WL_DIST_FFT;
    }
    if (!uses_graph && !uses_fft)
        return 0;
    app_dist_keys *k = calloc(1, sizeof *k);
    char *folder_buf = strdup(path);
    const char *folder = dirname(folder_buf);
    int rc = 0;
    if (uses_graph)
        rc = parse_graphs(path, folder, read(ctx, "graph"), dist, k, err, errlen) ||
             parse_iterations(path, read(ctx, "graph_iteration"), k, err, errlen) ? -1 : 0;
    if (rc == 0 && uses_fft)
        rc = parse_ffts(path, read(ctx, "fft"), dist, k, err, errlen);
    free(folder_buf);
    if (rc == 0)
        *out = k;
    else
        app_dist_free(k);
    return rc;
}

/* Guarantees: 1 if graph_iteration selects iteration t (1-based) of a closure with
 * `iterations` iterations whose peak is `peak`. */
static int selected(const app_dist_keys *k, int t, int iterations, int peak)
{
    if (k->all || (k->peak && t == peak) || (k->last && t == iterations))
        return 1;
    for (int r = 0; r < k->nranges; r++)
        if (t >= k->ranges[2 * r] && t <= k->ranges[2 * r + 1])
            return 1;
    return 0;
}

/* Guarantees: room for one more instance at the end of *list, zeroed, named `text`. */
static wl_instance *add(wl_instance **list, int *n, const char *text)
{
    *list = realloc(*list, (size_t)(*n + 1) * sizeof **list);
    wl_instance *x = &(*list)[(*n)++];
    memset(x, 0, sizeof *x);
    x->text = text;
    return x;
}

/* Guarantees: see wl_provider.instances (dist_provider.h). */
static int app_dist_instances(const char *path, const void *keys, wl_dist dist,
                              a2a_family family, int P, wl_instance **out, int *n, char *err,
                              size_t errlen)
{
    const app_dist_keys *k = keys;
    *out = NULL;
    *n = 0;
    char msg[700];
    if (dist == WL_DIST_GRAPH) {
        for (int gi = 0; gi < k->ngraphs; gi++) {
            const graph_counts *c;
            if (graph_counts_get(&k->graphs[gi], P, &c, msg, sizeof msg)) {
                snprintf(err, errlen, "%s:%d: graph '%s': %s", path,
                         k->graph_line, k->graphs[gi].text, msg);
                free(*out);
                *out = NULL;
                *n = 0;
                return -1;
            }
            size_t PP = (size_t)P * (size_t)P;
            for (int t = 1; t <= c->iterations; t++) {
                if (!selected(k, t, c->iterations, c->peak))
                    continue;
                wl_instance *x = add(out, n, k->graphs[gi].text);
                x->matrix = c->bytes + (size_t)(t - 1) * PP;
                x->iteration = t;
                x->iterations = c->iterations;
                for (size_t b = 0; b < PP; b++)
                    if (x->matrix[b] > x->S)
                        x->S = x->matrix[b];
            }
            for (int r = 0; r < k->nranges; r++) { /* asked for, but beyond the closure */
                int t = k->ranges[2 * r] > c->iterations ? k->ranges[2 * r] : c->iterations + 1;
                int seen = t > k->ranges[2 * r + 1];
                for (int i = 0; i < *n && !seen; i++)
                    seen = (*out)[i].text == k->graphs[gi].text && (*out)[i].iteration == t;
                if (!seen) {
                    wl_instance *x = add(out, n, k->graphs[gi].text);
                    x->iteration = t;
                    x->iterations = c->iterations;
                    x->skip = 1;
                    snprintf(x->reason, sizeof x->reason, "the closure of %.100s has %d "
                             "iterations (graph_iteration %d..%d)", k->graphs[gi].text,
                             c->iterations, k->ranges[2 * r], k->ranges[2 * r + 1]);
                }
            }
        }
        return 0;
    }
    for (int fi = 0; fi < k->nffts; fi++) {
        const fft_size *size = &k->ffts[fi];
        wl_instance *x = add(out, n, k->fft_texts[fi]);
        if (!fft_size_check(size, P, msg, sizeof msg)) {
            x->skip = 1;
            snprintf(x->reason, sizeof x->reason, "fft %s: %.150s", k->fft_texts[fi], msg);
            continue;
        }
        if (family == A2A_FAMILY_UNIFORM && !fft_size_uniform(size, P)) {
            x->skip = 1;
            snprintf(x->reason, sizeof x->reason, "fft %s is not uniform at P = %d (its "
                     "transpose is an alltoallv: use the nonuniform family)", k->fft_texts[fi], P);
            continue;
        }
        if (!(x->matrix = fft_size_matrix(size, P))) {
            snprintf(err, errlen, "%s:%d: fft %s: out of memory at P = %d", path,
                     k->fft_line, k->fft_texts[fi], P);
            free(*out);
            *out = NULL;
            *n = 0;
            return -1;
        }
        for (size_t b = 0; b < (size_t)P * (size_t)P; b++)
            if (x->matrix[b] > x->S)
                x->S = x->matrix[b];
    }
    return 0;
}

/* The provider of dist = graph and dist = fft. */
const wl_provider wl_app_provider = { app_dist_handles, app_dist_parse, app_dist_free,
                                      app_dist_instances, graph_counts_progress };
