/* graph_read.c — the edge-list reader of graph.h: SNAP-style lists and Matrix Market. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "graph.h"
#include "sparse.h"

typedef struct edge_buffer {
    uint32_t *src, *dst;
    long long n, cap;
} edge_buffer;

/* Guarantees: appends (a, c); -1 when out of memory. */
static int push(edge_buffer *b, uint32_t a, uint32_t c)
{
    if (b->n == b->cap) {
        long long cap = b->cap ? 2 * b->cap : 1024;
        uint32_t *s = realloc(b->src, (size_t)cap * sizeof *s);
        if (s)
            b->src = s;
        uint32_t *d = realloc(b->dst, (size_t)cap * sizeof *d);
        if (d)
            b->dst = d;
        if (!s || !d)
            return -1;
        b->cap = cap;
    }
    b->src[b->n] = a;
    b->dst[b->n++] = c;
    return 0;
}

/* Guarantees: *value = the unsigned decimal integer at *s (after blanks) if it is in
 * [lo, hi], *s moved past it; -1 otherwise (nothing there, a sign, a fraction, too big). */
static int read_id(char **s, unsigned long long lo, unsigned long long hi, unsigned long long *value)
{
    char *p = *s, *end;
    while (*p == ' ' || *p == '\t')
        p++;
    if (!isdigit((unsigned char)*p))
        return -1;
    errno = 0;
    unsigned long long v = strtoull(p, &end, 10);
    if (errno || v < lo || v > hi || (*end && !isspace((unsigned char)*end) && *end != ','))
        return -1;
    *value = v;
    *s = end + (*end == ',');
    return 0;
}

/* Guarantees: see graph.h. */
uint64_t graph_fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *bytes = data;
    for (size_t i = 0; i < n; i++) {
        h ^= bytes[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

/* Guarantees: see graph.h. Every problem is reported as "path:line: what" (or "path:
 * what" for the file as a whole); *content_hash covers every byte of the file. */
int graph_read_edges(const char *path, uint32_t **src, uint32_t **dst, long long *n,
                     uint64_t *content_hash, char *err, size_t errlen)
{
    *src = *dst = NULL;
    *n = 0;
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot read the graph file: %s", path, strerror(errno));
        return -1;
    }
    edge_buffer b = { 0 };
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    long line_no = 0, entries = 0, declared = -1;
    unsigned long long rows = 0, cols = 0;
    enum { UNKNOWN, EDGE_LIST, MATRIX_MARKET } format = UNKNOWN;
    int symmetric = 0, values = 0, rc = -1;
    uint64_t hash = GRAPH_FNV1A_START;
    while ((len = getline(&line, &cap, f)) > 0) {
        line_no++;
        hash = graph_fnv1a(hash, line, (size_t)len);
        if (format == UNKNOWN && strncmp(line, "%%MatrixMarket", 14) == 0) {
            char object[32] = "", layout[32] = "", field[32] = "", sym[32] = "";
            if (sscanf(line + 14, "%31s %31s %31s %31s", object, layout, field, sym) != 4 ||
                strcasecmp(object, "matrix") != 0 || strcasecmp(layout, "coordinate") != 0) {
                snprintf(err, errlen, "%s:%ld: only 'matrix coordinate' Matrix Market files are "
                         "graphs", path, line_no);
                goto out;
            }
            if (strcasecmp(field, "pattern") != 0 && strcasecmp(field, "real") != 0 &&
                strcasecmp(field, "integer") != 0) {
                snprintf(err, errlen, "%s:%ld: field '%s' not supported (pattern, real, integer)",
                         path, line_no, field);
                goto out;
            }
            values = strcasecmp(field, "pattern") != 0;
            if (strcasecmp(sym, "general") == 0)
                symmetric = 0;
            else if (strcasecmp(sym, "symmetric") == 0 || strcasecmp(sym, "skew-symmetric") == 0)
                symmetric = 1;
            else {
                snprintf(err, errlen, "%s:%ld: symmetry '%s' not supported (general, symmetric, "
                         "skew-symmetric)", path, line_no, sym);
                goto out;
            }
            format = MATRIX_MARKET;
            continue;
        }
        char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s == '%' || *s == '#' || sp_blank(s))
            continue;
        if (format == UNKNOWN)
            format = EDGE_LIST;
        unsigned long long a, c;
        if (format == MATRIX_MARKET && declared < 0) {
            unsigned long long nnz;
            if (read_id(&s, 0, ~0ULL >> 1, &rows) || read_id(&s, 0, ~0ULL >> 1, &cols) ||
                read_id(&s, 0, ~0ULL >> 2, &nnz) || !sp_blank(s)) {
                snprintf(err, errlen, "%s:%ld: expected the size line 'rows cols entries'", path,
                         line_no);
                goto out;
            }
            if (rows > 0xfffffffeULL || cols > 0xfffffffeULL) {
                snprintf(err, errlen, "%s:%ld: more than 2^32 - 2 vertices", path, line_no);
                goto out;
            }
            declared = (long)nnz;
            continue;
        }
        if (format == MATRIX_MARKET) {
            if (read_id(&s, 1, rows, &a) || read_id(&s, 1, cols, &c)) {
                snprintf(err, errlen, "%s:%ld: expected 'row col%s' with row in 1..%llu and col "
                         "in 1..%llu", path, line_no, values ? " value" : "", rows, cols);
                goto out;
            }
            char *end;
            if (values && (strtod(s, &end), end == s)) {
                snprintf(err, errlen, "%s:%ld: missing the entry's value", path, line_no);
                goto out;
            }
            if (values)
                s = end;
            if (!sp_blank(s)) {
                snprintf(err, errlen, "%s:%ld: unexpected text after the entry", path, line_no);
                goto out;
            }
            if (++entries > declared) {
                snprintf(err, errlen, "%s:%ld: more entries than the %ld of the size line", path,
                         line_no, declared);
                goto out;
            }
            a--;
            c--;
        } else if (read_id(&s, 0, 0xfffffffeULL, &a) || read_id(&s, 0, 0xfffffffeULL, &c)) {
            snprintf(err, errlen, "%s:%ld: expected 'source target' (vertex ids 0..2^32-2; "
                     "'#' or '%%' start comments)", path, line_no);
            goto out;
        }
        if (push(&b, (uint32_t)a, (uint32_t)c) || (format == MATRIX_MARKET && symmetric &&
                                                   a != c && push(&b, (uint32_t)c, (uint32_t)a))) {
            snprintf(err, errlen, "%s:%ld: out of memory", path, line_no);
            goto out;
        }
    }
    if (ferror(f)) {
        snprintf(err, errlen, "%s: read error: %s", path, strerror(errno));
        goto out;
    }
    if (format == MATRIX_MARKET && (declared < 0 || entries != declared)) {
        snprintf(err, errlen, "%s:%ld: %ld entries, the size line says %ld", path, line_no,
                 entries, declared < 0 ? 0 : declared);
        goto out;
    }
    if (b.n == 0) {
        snprintf(err, errlen, "%s:%ld: no edges", path, line_no);
        goto out;
    }
    rc = 0;
out:
    free(line);
    fclose(f);
    if (rc) {
        free(b.src);
        free(b.dst);
        return -1;
    }
    *src = b.src;
    *dst = b.dst;
    *n = b.n;
    *content_hash = hash;
    return 0;
}
