/* graph.c — graph specs, and edge lists turned into sorted, distinct graphs (graph.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "graph.h"
#include "workload.h"

/* Guarantees: *value = the whole text as a decimal integer in [lo, hi]; -1 otherwise. */
static int parse_number(const char *text, long long lo, long long hi, long long *value)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (end == text || *end || errno || v < lo || v > hi)
        return -1;
    *value = v;
    return 0;
}

/* Guarantees: see graph.h. */
int graph_spec_parse(const char *text, const char *folder, graph_spec *out, char *err,
                     size_t errlen)
{
    memset(out, 0, sizeof *out);
    while (*text == ' ' || *text == '\t')
        text++;
    size_t n = strlen(text);
    while (n > 0 && (text[n - 1] == ' ' || text[n - 1] == '\t'))
        n--;
    if (n == 0 || n >= sizeof out->path) {
        snprintf(err, errlen, "graph '%.*s': %s", (int)(n > 200 ? 200 : n), text,
                 n ? "too long" : "empty (rmat:SCALE[:EDGEFACTOR[:SEED]] or an edge-list file)");
        return -1;
    }
    char buf[sizeof out->path];
    memcpy(buf, text, n);
    buf[n] = '\0';
    if (strncmp(buf, "rmat:", 5) == 0) {
        char *fields[4] = { 0 }, *save = NULL;
        int nf = 0;
        for (char *f = strtok_r(buf + 5, ":", &save); f; f = strtok_r(NULL, ":", &save)) {
            if (nf == 3) {
                nf = 4;
                break;
            }
            fields[nf++] = f;
        }
        long long scale = 0, ef = 8, seed = 1;
        if (nf < 1 || nf > 3 || parse_number(fields[0], 1, 30, &scale) ||
            (nf > 1 && parse_number(fields[1], 1, 1024, &ef)) ||
            (nf > 2 && parse_number(fields[2], 0, (long long)(~0ULL >> 1), &seed))) {
            snprintf(err, errlen, "graph '%.200s': expected rmat:SCALE[:EDGEFACTOR[:SEED]] with "
                     "SCALE in 1..30, EDGEFACTOR in 1..1024, SEED >= 0", text);
            return -1;
        }
        if ((ef << scale) > (1LL << 31)) {
            snprintf(err, errlen, "graph '%.200s': %lld edges is too many (at most 2^31)", text,
                     ef << scale);
            return -1;
        }
        out->kind = GRAPH_RMAT;
        out->scale = (int)scale;
        out->edge_factor = (int)ef;
        out->seed = (uint64_t)seed;
        snprintf(out->text, sizeof out->text, "rmat:%d:%d:%llu", out->scale, out->edge_factor,
                 (unsigned long long)out->seed);
        return 0;
    }
    const char *file = strncmp(buf, "file:", 5) == 0 ? buf + 5 : buf;
    if (!*file) {
        snprintf(err, errlen, "graph '%.200s': file: needs a path", text);
        return -1;
    }
    int relative = file[0] != '/' && folder && folder[0];
    if ((size_t)snprintf(out->path, sizeof out->path, "%s%s%s", relative ? folder : "",
                         relative ? "/" : "", file) >= sizeof out->path) {
        snprintf(err, errlen, "graph '%.200s': path too long", text);
        return -1;
    }
    out->kind = GRAPH_FILE;
    snprintf(out->text, sizeof out->text, "file:%s", out->path);
    return 0;
}

/* Guarantees: qsort order of packed edges: by source, then target. */
static int compare_edges(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Guarantees: qsort order of vertex ids, increasing. */
static int compare_ids(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Guarantees: position of v in ids[0..n) (v must be there). */
static uint32_t id_index(const uint32_t *ids, size_t n, uint32_t v)
{
    size_t lo = 0, hi = n;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (ids[mid] <= v)
            lo = mid;
        else
            hi = mid;
    }
    return (uint32_t)lo;
}

/* Guarantees: see graph.h; src and dst are freed (or owned by g) in every case. */
int graph_from_edges(uint32_t *src, uint32_t *dst, long long n, int compact, uint64_t key,
                     graph *g, char *err, size_t errlen)
{
    memset(g, 0, sizeof *g);
    uint64_t *e = malloc((size_t)(n ? n : 1) * sizeof *e);
    uint32_t *ids = compact ? malloc((size_t)(2 * n + 1) * sizeof *ids) : NULL;
    if (!e || (compact && !ids)) {
        free(e);
        free(ids);
        free(src);
        free(dst);
        snprintf(err, errlen, "out of memory for %lld edges", n);
        return -1;
    }
    uint32_t vertices = 0;
    size_t nids = 0;
    if (compact) {
        for (long long i = 0; i < n; i++) {
            ids[nids++] = src[i];
            ids[nids++] = dst[i];
        }
        qsort(ids, nids, sizeof *ids, compare_ids);
        size_t u = 0;
        for (size_t i = 0; i < nids; i++)
            if (u == 0 || ids[i] != ids[u - 1])
                ids[u++] = ids[i];
        nids = u;
        vertices = (uint32_t)nids;
    }
    for (long long i = 0; i < n; i++) {
        uint32_t a = compact ? id_index(ids, nids, src[i]) : src[i];
        uint32_t c = compact ? id_index(ids, nids, dst[i]) : dst[i];
        e[i] = graph_tuple(a, c);
        if (!compact) {
            if (a >= vertices)
                vertices = a + 1;
            if (c >= vertices)
                vertices = c + 1;
        }
    }
    free(ids);
    qsort(e, (size_t)n, sizeof *e, compare_edges);
    long long m = 0;
    for (long long i = 0; i < n; i++)
        if (m == 0 || e[i] != e[m - 1])
            e[m++] = e[i];
    for (long long i = 0; i < m; i++) {
        src[i] = graph_tuple_first(e[i]);
        dst[i] = graph_tuple_second(e[i]);
    }
    free(e);
    g->vertices = vertices;
    g->edges = m;
    g->src = src;
    g->dst = dst;
    g->key = key;
    return 0;
}

/* Guarantees: the identity of a generated graph: a function of its parameters only. */
static uint64_t rmat_key(const graph_spec *spec)
{
    /* "rmat" and the generator's version (2: sp_rmat_edge), so that count matrices cached
     * from an older generator are never taken for this one's */
    uint64_t key = wl_mix64(0x726d6174ULL ^ 2 ^ ((uint64_t)spec->scale << 8));
    key = wl_mix64(key ^ (uint64_t)spec->edge_factor);
    return wl_mix64(key ^ spec->seed);
}

/* Guarantees: the identity of a read graph from the FNV-1a hash of the file's bytes. */
static uint64_t file_key(uint64_t content_hash)
{
    return wl_mix64(content_hash ^ 0x66696c65ULL);
}

/* Guarantees: see graph.h; equal to graph_load's g->key. */
int graph_spec_key(const graph_spec *spec, uint64_t *key, char *err, size_t errlen)
{
    if (spec->kind == GRAPH_RMAT) {
        *key = rmat_key(spec);
        return 0;
    }
    FILE *f = fopen(spec->path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot read the graph file: %s", spec->path, strerror(errno));
        return -1;
    }
    uint64_t h = GRAPH_FNV1A_START; /* as graph_read_edges */
    unsigned char buf[65536];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0)
        h = graph_fnv1a(h, buf, got);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        snprintf(err, errlen, "%s: read error", spec->path);
        return -1;
    }
    *key = file_key(h);
    return 0;
}

/* Guarantees: see graph.h. */
int graph_load(const graph_spec *spec, graph *g, char *err, size_t errlen)
{
    uint32_t *src = NULL, *dst = NULL;
    long long n = 0;
    memset(g, 0, sizeof *g);
    if (spec->kind == GRAPH_RMAT) {
        if (graph_rmat_edges(spec->scale, spec->edge_factor, spec->seed, &src, &dst, &n, err,
                             errlen))
            return -1;
        if (graph_from_edges(src, dst, n, 0, rmat_key(spec), g, err, errlen))
            return -1;
        if (spec->scale < 32 && g->vertices < (1u << spec->scale))
            g->vertices = 1u << spec->scale;
        return 0;
    }
    uint64_t hash = 0;
    if (graph_read_edges(spec->path, &src, &dst, &n, &hash, err, errlen))
        return -1;
    return graph_from_edges(src, dst, n, 1, file_key(hash), g, err, errlen);
}

/* Guarantees: releases g's arrays; g is left empty. */
void graph_free(graph *g)
{
    free(g->src);
    free(g->dst);
    memset(g, 0, sizeof *g);
}

/* Guarantees: see graph.h. */
long long *graph_offsets(const graph *g)
{
    long long *offset = calloc((size_t)g->vertices + 1, sizeof *offset);
    if (!offset)
        return NULL;
    for (long long e = 0; e < g->edges; e++)
        offset[g->src[e] + 1]++;
    for (uint32_t v = 0; v < g->vertices; v++)
        offset[v + 1] += offset[v];
    return offset;
}
