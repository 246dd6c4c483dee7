/* sparse.c — sparse matrix patterns (generators, Matrix Market) and the SDDE send side of
 * a row-wise partition; see sparse.h. */
#include "sparse.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- partition ---------------------------------------------------------------------- */

/* Guarantees: r * (n / P) + min(r, n % P): the first row of rank r, n for r = P. */
int sp_part_begin(int n, int P, int r)
{
    int base = n / P, extra = n % P;
    return r * base + (r < extra ? r : extra);
}

/* Guarantees: the r with sp_part_begin(n, P, r) <= i < sp_part_begin(n, P, r + 1). */
int sp_part_owner(int n, int P, int i)
{
    int base = n / P, extra = n % P;
    long long cut = (long long)extra * (base + 1);
    if (i < cut)
        return i / (base + 1);
    return extra + (int)((i - cut) / base);
}

/* ---- small helpers ------------------------------------------------------------------ */

/* Guarantees: err holds the formatted message (if err is given); returns -1. */
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Guarantees: splitmix64 step: advances *state and returns a well-mixed 64-bit value. */
static uint64_t next64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Guarantees: a generator state that depends on both the seed and the stream index. */
static uint64_t stream(uint64_t seed, uint64_t index)
{
    uint64_t s = seed ^ 0x5DEECE66Dull;
    uint64_t a = next64(&s);
    s = a ^ (index * 0xD1B54A32D192ED03ull);
    next64(&s);
    return s;
}

/* Entries (row, col) collected before they become rows. */
typedef struct pairs {
    int *rc; /* 2 ints per entry */
    size_t n, cap;
} pairs;

/* Guarantees: (row, col) appended; -1 when out of memory. */
static int pairs_add(pairs *p, int row, int col)
{
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 1024;
        int *rc = realloc(p->rc, cap * 2 * sizeof(int));
        if (!rc)
            return -1;
        p->rc = rc;
        p->cap = cap;
    }
    p->rc[2 * p->n] = row;
    p->rc[2 * p->n + 1] = col;
    p->n++;
    return 0;
}

/* Guarantees: ascending int order. */
static int int_order(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Guarantees: *rows = the pattern of the entries of p with row in [begin, end) (all of
 * p's entries must be in range), columns sorted and duplicates merged; p is freed. */
static int rows_from_pairs(pairs *p, int n_rows, int n_cols, int begin, int end, sp_rows *rows,
                           char *err, size_t errlen)
{
    int local = end - begin;
    memset(rows, 0, sizeof *rows);
    rows->n_rows = n_rows;
    rows->n_cols = n_cols;
    rows->row_begin = begin;
    rows->row_end = end;
    if (p->n > INT_MAX) {
        free(p->rc);
        return fail(err, errlen, "too many non-zeros on one rank (%zu)", p->n);
    }
    rows->row_ptr = calloc((size_t)local + 1, sizeof(int));
    rows->col = malloc((p->n ? p->n : 1) * sizeof(int));
    int *fill = calloc((size_t)local + 1, sizeof(int));
    if (!rows->row_ptr || !rows->col || !fill) {
        free(fill);
        free(p->rc);
        sp_rows_free(rows);
        return fail(err, errlen, "out of memory");
    }
    for (size_t k = 0; k < p->n; k++)
        rows->row_ptr[p->rc[2 * k] - begin + 1]++;
    for (int i = 0; i < local; i++)
        rows->row_ptr[i + 1] += rows->row_ptr[i];
    for (size_t k = 0; k < p->n; k++) {
        int i = p->rc[2 * k] - begin;
        rows->col[rows->row_ptr[i] + fill[i]++] = p->rc[2 * k + 1];
    }
    free(p->rc);
    p->rc = NULL;
    p->n = p->cap = 0;
    /* sort each row, merge duplicates, compact */
    int out = 0;
    for (int i = 0; i < local; i++) {
        int a = rows->row_ptr[i], b = rows->row_ptr[i + 1];
        qsort(rows->col + a, (size_t)(b - a), sizeof(int), int_order);
        rows->row_ptr[i] = out;
        for (int k = a; k < b; k++)
            if (k == a || rows->col[k] != rows->col[k - 1])
                rows->col[out++] = rows->col[k];
    }
    rows->row_ptr[local] = out;
    free(fill);
    return 0;
}

/* Guarantees: rows released and zeroed. */
void sp_rows_free(sp_rows *rows)
{
    free(rows->row_ptr);
    free(rows->col);
    memset(rows, 0, sizeof *rows);
}

/* Guarantees: the number of non-zeros held. */
long long sp_rows_nnz(const sp_rows *rows)
{
    return rows->row_ptr ? rows->row_ptr[rows->row_end - rows->row_begin] - rows->row_ptr[0]
                         : 0;
}

/* ---- generators -------------------------------------------------------------------- */

/* Guarantees: the 5-point (nz == 0) or 7-point pattern rows [begin, end) of the grid. */
static int gen_stencil(int nx, int ny, int nz, int begin, int end, pairs *p)
{
    int three = nz > 0;
    if (!three)
        nz = 1;
    for (int i = begin; i < end; i++) {
        int x = i % nx, y = (i / nx) % ny, z = i / (nx * ny);
        int nb[7], k = 0;
        if (three && z > 0)
            nb[k++] = i - nx * ny;
        if (y > 0)
            nb[k++] = i - nx;
        if (x > 0)
            nb[k++] = i - 1;
        nb[k++] = i;
        if (x < nx - 1)
            nb[k++] = i + 1;
        if (y < ny - 1)
            nb[k++] = i + nx;
        if (three && z < nz - 1)
            nb[k++] = i + nx * ny;
        for (int j = 0; j < k; j++)
            if (pairs_add(p, i, nb[j]))
                return -1;
    }
    return 0;
}

/* Guarantees: uniform double in (0, 1] from 53 random bits. */
static double unit_interval(uint64_t *state)
{
    return (double)((next64(state) >> 11) + 1) * (1.0 / 9007199254740992.0);
}

/* Guarantees: rows [begin, end) of the random pattern: the diagonal, and each column
 * j != i with probability density, by geometric skips from a per-row stream. */
static int gen_random(int n, double density, uint64_t seed, int begin, int end, pairs *p)
{
    double log_miss = density < 1.0 ? log1p(-density) : 0.0;
    for (int i = begin; i < end; i++) {
        if (pairs_add(p, i, i))
            return -1;
        if (density <= 0.0)
            continue;
        uint64_t state = stream(seed, (uint64_t)i);
        long long j = -1;
        for (;;) {
            if (density >= 1.0) {
                j += 1;
            } else {
                double skip = floor(log(unit_interval(&state)) / log_miss);
                j += 1 + (skip < (double)n ? (long long)skip : n);
            }
            if (j >= n)
                break;
            if (j != i && pairs_add(p, i, (int)j))
                return -1;
        }
    }
    return 0;
}

/* Guarantees: see sparse.h. */
void sp_rmat_edge(int scale, uint64_t seed, long long e, uint32_t *u, uint32_t *v)
{
    const uint32_t cut_a = (uint32_t)(0.57 * 4294967296.0);
    const uint32_t cut_b = (uint32_t)(0.76 * 4294967296.0);
    const uint32_t cut_c = (uint32_t)(0.95 * 4294967296.0);
    uint64_t state = stream(seed, (uint64_t)e);
    uint32_t a = 0, b = 0;
    for (int level = 0; level < scale; level++) {
        uint32_t r = (uint32_t)(next64(&state) >> 32);
        a = (a << 1) | (r >= cut_b);
        b = (b << 1) | ((r >= cut_a && r < cut_b) || r >= cut_c);
    }
    *u = a;
    *v = b;
}

/* Guarantees: rows [begin, end) of the symmetrised R-MAT graph (edges from
 * sp_rmat_edge); self-loops dropped. */
static int gen_rmat(int scale, int edge_factor, uint64_t seed, int begin, int end, pairs *p)
{
    long long edges = (long long)edge_factor << scale;
    for (long long e = 0; e < edges; e++) {
        uint32_t a, b;
        sp_rmat_edge(scale, seed, e, &a, &b);
        int u = (int)a, v = (int)b;
        if (u == v)
            continue;
        if (u >= begin && u < end && pairs_add(p, u, v))
            return -1;
        if (v >= begin && v < end && pairs_add(p, v, u))
            return -1;
    }
    return 0;
}

/* ---- Matrix Market --------------------------------------------------------------------- */

/* Guarantees: *value = the decimal integer at *s (after blanks), *s moved past it;
 * -1 if there is none or it does not fit a long long. */
static int read_integer(char **s, long long *value)
{
    char *end;
    errno = 0;
    long long v = strtoll(*s, &end, 10);
    if (end == *s || errno == ERANGE || (*end && !isspace((unsigned char)*end)))
        return -1;
    *value = v;
    *s = end;
    return 0;
}

/* Guarantees: *s moved past a real number (strtod syntax); -1 if there is none. */
static int read_real(char **s)
{
    char *end;
    (void)strtod(*s, &end);
    if (end == *s || (*end && !isspace((unsigned char)*end)))
        return -1;
    *s = end;
    return 0;
}

/* Guarantees: 1 if only blanks (or nothing) remain at s. */
int sp_blank(const char *s)
{
    while (*s && isspace((unsigned char)*s))
        s++;
    return *s == '\0';
}

/* Guarantees: the rows of rank `rank` of P read from a coordinate Matrix Market file;
 * every syntax or range problem reported as "path:line: what". */
int sp_read_mtx(const char *path, int P, int rank, sp_rows *rows, char *err, size_t errlen)
{
    memset(rows, 0, sizeof *rows);
    FILE *f = fopen(path, "r");
    if (!f)
        return fail(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    enum { PATTERN, REAL, INTEGER } field = REAL;
    enum { GENERAL, SYMMETRIC, SKEW } symmetry = GENERAL;
    char *line = NULL;
    size_t cap = 0;
    long line_no = 0;
    long long n_rows = 0, n_cols = 0, declared = 0, found = 0;
    int have_size = 0, begin = 0, end = 0, status = 0;
    pairs p = { NULL, 0, 0 };
    ssize_t len;
    while ((len = getline(&line, &cap, f)) >= 0) {
        line_no++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        if (line_no == 1) {
            char banner[32], object[32], format[32], fieldname[32], sym[32];
            int got = sscanf(line, "%31s %31s %31s %31s %31s", banner, object, format,
                             fieldname, sym);
            if (got < 1 || strcmp(banner, "%%MatrixMarket") != 0) {
                status = fail(err, errlen, "%s:%ld: missing %%%%MatrixMarket banner", path,
                              line_no);
                break;
            }
            if (got != 5) {
                status = fail(err, errlen, "%s:%ld: banner needs object, format, field and "
                              "symmetry", path, line_no);
                break;
            }
            if (strcasecmp(object, "matrix") != 0) {
                status = fail(err, errlen, "%s:%ld: object '%s' is not 'matrix'", path,
                              line_no, object);
                break;
            }
            if (strcasecmp(format, "coordinate") != 0) {
                status = fail(err, errlen, "%s:%ld: format '%s' not supported (only "
                              "coordinate)", path, line_no, format);
                break;
            }
            if (!strcasecmp(fieldname, "pattern"))
                field = PATTERN;
            else if (!strcasecmp(fieldname, "real"))
                field = REAL;
            else if (!strcasecmp(fieldname, "integer"))
                field = INTEGER;
            else {
                status = fail(err, errlen, "%s:%ld: field '%s' not supported (pattern, real, "
                              "integer)", path, line_no, fieldname);
                break;
            }
            if (!strcasecmp(sym, "general"))
                symmetry = GENERAL;
            else if (!strcasecmp(sym, "symmetric"))
                symmetry = SYMMETRIC;
            else if (!strcasecmp(sym, "skew-symmetric"))
                symmetry = SKEW;
            else {
                status = fail(err, errlen, "%s:%ld: symmetry '%s' not supported (general, "
                              "symmetric, skew-symmetric)", path, line_no, sym);
                break;
            }
            continue;
        }
        if (line[0] == '%' || sp_blank(line))
            continue;
        char *s = line;
        if (!have_size) {
            if (read_integer(&s, &n_rows) || read_integer(&s, &n_cols) ||
                read_integer(&s, &declared) || !sp_blank(s)) {
                status = fail(err, errlen, "%s:%ld: size line must be 'rows columns "
                              "entries'", path, line_no);
                break;
            }
            if (n_rows < 1 || n_cols < 1 || n_rows > INT_MAX || n_cols > INT_MAX ||
                declared < 0 || declared > n_rows * n_cols) {
                status = fail(err, errlen, "%s:%ld: bad size %lld x %lld with %lld entries",
                              path, line_no, n_rows, n_cols, declared);
                break;
            }
            if (symmetry != GENERAL && n_rows != n_cols) {
                status = fail(err, errlen, "%s:%ld: a symmetric matrix must be square "
                              "(%lld x %lld)", path, line_no, n_rows, n_cols);
                break;
            }
            have_size = 1;
            begin = sp_part_begin((int)n_rows, P, rank);
            end = sp_part_begin((int)n_rows, P, rank + 1);
            continue;
        }
        long long i, j;
        if (read_integer(&s, &i) || read_integer(&s, &j)) {
            status = fail(err, errlen, "%s:%ld: entry must start with 'row column'", path,
                          line_no);
            break;
        }
        if (field == REAL && read_real(&s)) {
            status = fail(err, errlen, "%s:%ld: missing or bad real value", path, line_no);
            break;
        }
        long long ignored;
        if (field == INTEGER && read_integer(&s, &ignored)) {
            status = fail(err, errlen, "%s:%ld: missing or bad integer value", path, line_no);
            break;
        }
        if (!sp_blank(s)) {
            status = fail(err, errlen, "%s:%ld: unexpected text after the entry: '%s'", path,
                          line_no, s);
            break;
        }
        if (i < 1 || i > n_rows || j < 1 || j > n_cols) {
            status = fail(err, errlen, "%s:%ld: entry (%lld, %lld) outside the %lld x %lld "
                          "matrix", path, line_no, i, j, n_rows, n_cols);
            break;
        }
        if ((symmetry == SYMMETRIC && i < j) || (symmetry == SKEW && i <= j)) {
            status = fail(err, errlen, "%s:%ld: entry (%lld, %lld) not in the lower "
                          "triangle of a %s matrix", path, line_no, i, j,
                          symmetry == SKEW ? "skew-symmetric" : "symmetric");
            break;
        }
        if (++found > declared) {
            status = fail(err, errlen, "%s:%ld: more entries than the %lld declared", path,
                          line_no, declared);
            break;
        }
        int r = (int)i - 1, c = (int)j - 1;
        if ((r >= begin && r < end && pairs_add(&p, r, c)) ||
            (symmetry != GENERAL && r != c && c >= begin && c < end && pairs_add(&p, c, r))) {
            status = fail(err, errlen, "%s:%ld: out of memory", path, line_no);
            break;
        }
    }
    if (status == 0 && ferror(f))
        status = fail(err, errlen, "%s:%ld: read error", path, line_no + 1);
    else if (status == 0 && line_no == 0)
        status = fail(err, errlen, "%s:1: empty file, missing %%%%MatrixMarket banner", path);
    else if (status == 0 && !have_size)
        status = fail(err, errlen, "%s:%ld: missing size line", path, line_no);
    else if (status == 0 && found < declared)
        status = fail(err, errlen, "%s:%ld: file ends after %lld of %lld entries", path,
                      line_no, found, declared);
    free(line);
    fclose(f);
    if (status) {
        free(p.rc);
        return status;
    }
    return rows_from_pairs(&p, (int)n_rows, (int)n_cols, begin, end, rows, err, errlen);
}

/* Guarantees: the whole matrix in rows written in coordinate format, 1-based. */
int sp_write_mtx(const char *path, const sp_rows *rows, const char *field, int symmetric,
                 double (*value)(int row, int col, void *ctx), void *ctx, const char *comment,
                 char *err, size_t errlen)
{
    if (rows->row_begin != 0 || rows->row_end != rows->n_rows)
        return fail(err, errlen, "%s: only a whole matrix can be written", path);
    int pattern = !strcmp(field, "pattern"), integer = !strcmp(field, "integer");
    if (!pattern && !integer && strcmp(field, "real"))
        return fail(err, errlen, "%s: unknown field '%s'", path, field);
    long long count = 0;
    for (int i = 0; i < rows->n_rows; i++)
        for (int k = rows->row_ptr[i]; k < rows->row_ptr[i + 1]; k++)
            count += !symmetric || rows->col[k] <= i;
    FILE *f = fopen(path, "w");
    if (!f)
        return fail(err, errlen, "%s: cannot create: %s", path, strerror(errno));
    fprintf(f, "%%%%MatrixMarket matrix coordinate %s %s\n", field,
            symmetric ? "symmetric" : "general");
    if (comment)
        fprintf(f, "%% %s\n", comment);
    fprintf(f, "%d %d %lld\n", rows->n_rows, rows->n_cols, count);
    for (int i = 0; i < rows->n_rows; i++)
        for (int k = rows->row_ptr[i]; k < rows->row_ptr[i + 1]; k++) {
            int j = rows->col[k];
            if (symmetric && j > i)
                continue;
            if (pattern)
                fprintf(f, "%d %d\n", i + 1, j + 1);
            else if (integer)
                fprintf(f, "%d %d %lld\n", i + 1, j + 1, (long long)value(i, j, ctx));
            else
                fprintf(f, "%d %d %.6g\n", i + 1, j + 1, value(i, j, ctx));
        }
    if (fclose(f) != 0)
        return fail(err, errlen, "%s: write error", path);
    return 0;
}

/* ---- specs ------------------------------------------------------------------------------ */

/* Guarantees: spec filled from text (see sparse.h); -1 with a message otherwise. */
int sp_spec_parse(const char *text, uint64_t seed, sp_spec *spec, char *err, size_t errlen)
{
    memset(spec, 0, sizeof *spec);
    spec->seed = seed;
    int used = -1;
    size_t len = strlen(text);
    if (!strncmp(text, "stencil2d:", 10)) {
        spec->kind = SP_STENCIL2D;
        if (sscanf(text + 10, "%dx%d%n", &spec->nx, &spec->ny, &used) != 2 ||
            used != (int)(len - 10) || spec->nx < 1 || spec->ny < 1 ||
            (long long)spec->nx * spec->ny > INT_MAX)
            return fail(err, errlen, "'%s': expected stencil2d:NXxNY", text);
    } else if (!strncmp(text, "stencil3d:", 10)) {
        spec->kind = SP_STENCIL3D;
        if (sscanf(text + 10, "%dx%dx%d%n", &spec->nx, &spec->ny, &spec->nz, &used) != 3 ||
            used != (int)(len - 10) || spec->nx < 1 || spec->ny < 1 || spec->nz < 1 ||
            (long long)spec->nx * spec->ny * spec->nz > INT_MAX)
            return fail(err, errlen, "'%s': expected stencil3d:NXxNYxNZ", text);
    } else if (!strncmp(text, "random:", 7)) {
        spec->kind = SP_RANDOM;
        if (sscanf(text + 7, "%d:%lf%n", &spec->n, &spec->density, &used) != 2 ||
            used != (int)(len - 7) || spec->n < 1 || !(spec->density >= 0.0) ||
            spec->density > 1.0)
            return fail(err, errlen, "'%s': expected random:N:DENSITY, N >= 1, DENSITY in "
                        "[0, 1]", text);
    } else if (!strncmp(text, "rmat:", 5)) {
        spec->kind = SP_RMAT;
        spec->edge_factor = 8;
        int got = sscanf(text + 5, "%d%n:%d%n", &spec->scale, &used, &spec->edge_factor, &used);
        if (got < 1 || used != (int)(len - 5) || spec->scale < 1 || spec->scale > 30 ||
            spec->edge_factor < 1 || ((long long)spec->edge_factor << spec->scale) > INT_MAX)
            return fail(err, errlen, "'%s': expected rmat:SCALE[:EDGEFACTOR], SCALE in 1..30",
                        text);
    } else {
        const char *path = !strncmp(text, "mtx:", 4) ? text + 4 : text;
        size_t plen = strlen(path);
        if (path == text && (plen < 4 || strcmp(path + plen - 4, ".mtx") != 0))
            return fail(err, errlen, "'%s': unknown matrix (stencil2d:, stencil3d:, random:, "
                        "rmat:, mtx:PATH or a .mtx file)", text);
        if (plen == 0 || plen >= sizeof spec->path)
            return fail(err, errlen, "'%s': bad path", text);
        spec->kind = SP_MTX;
        memcpy(spec->path, path, plen + 1);
    }
    return 0;
}

/* Guarantees: the rows of rank `rank` of P for spec. */
int sp_rows_build(const sp_spec *spec, int P, int rank, sp_rows *rows, char *err,
                  size_t errlen)
{
    memset(rows, 0, sizeof *rows);
    if (P < 1 || rank < 0 || rank >= P)
        return fail(err, errlen, "bad partition: rank %d of %d", rank, P);
    if (spec->kind == SP_MTX)
        return sp_read_mtx(spec->path, P, rank, rows, err, errlen);
    int n;
    switch (spec->kind) {
    case SP_STENCIL2D: n = spec->nx * spec->ny; break;
    case SP_STENCIL3D: n = spec->nx * spec->ny * spec->nz; break;
    case SP_RANDOM: n = spec->n; break;
    default: n = 1 << spec->scale; break;
    }
    int begin = sp_part_begin(n, P, rank), end = sp_part_begin(n, P, rank + 1);
    pairs p = { NULL, 0, 0 };
    int bad;
    switch (spec->kind) {
    case SP_STENCIL2D: bad = gen_stencil(spec->nx, spec->ny, 0, begin, end, &p); break;
    case SP_STENCIL3D: bad = gen_stencil(spec->nx, spec->ny, spec->nz, begin, end, &p); break;
    case SP_RANDOM: bad = gen_random(n, spec->density, spec->seed, begin, end, &p); break;
    default: bad = gen_rmat(spec->scale, spec->edge_factor, spec->seed, begin, end, &p); break;
    }
    if (bad) {
        free(p.rc);
        return fail(err, errlen, "out of memory generating the matrix");
    }
    return rows_from_pairs(&p, n, n, begin, end, rows, err, errlen);
}

/* ---- the SDDE send side ---------------------------------------------------------------- */

/* Guarantees: sends = for each owner q != r of a column in rows, the ascending distinct
 * columns owned by q (see sparse.h). */
int sp_sends_build(const sp_rows *rows, int P, int r, sp_sends *sends)
{
    memset(sends, 0, sizeof *sends);
    long long nnz = sp_rows_nnz(rows);
    int lo = sp_part_begin(rows->n_cols, P, r), hi = sp_part_begin(rows->n_cols, P, r + 1);
    int *cols = malloc((size_t)(nnz ? nnz : 1) * sizeof(int));
    if (!cols)
        return -1;
    int n = 0;
    const int *col = rows->row_ptr ? rows->col + rows->row_ptr[0] : NULL;
    for (long long k = 0; k < nnz; k++)
        if (col[k] < lo || col[k] >= hi)
            cols[n++] = col[k];
    qsort(cols, (size_t)n, sizeof(int), int_order);
    int size = 0, groups = 0;
    for (int k = 0; k < n; k++)
        if (k == 0 || cols[k] != cols[k - 1]) {
            if (size == 0 || sp_part_owner(rows->n_cols, P, cols[k]) !=
                                 sp_part_owner(rows->n_cols, P, cols[size - 1]))
                groups++;
            cols[size++] = cols[k];
        }
    sends->dest = malloc((size_t)(groups ? groups : 1) * sizeof(int));
    sends->counts = malloc((size_t)(groups ? groups : 1) * sizeof(int));
    sends->displs = malloc((size_t)(groups ? groups : 1) * sizeof(int));
    if (!sends->dest || !sends->counts || !sends->displs) {
        free(cols);
        sp_sends_free(sends);
        return -1;
    }
    sends->cols = cols;
    sends->size = size;
    for (int k = 0; k < size; k++) {
        int q = sp_part_owner(rows->n_cols, P, cols[k]);
        if (sends->nnz == 0 || sends->dest[sends->nnz - 1] != q) {
            sends->dest[sends->nnz] = q;
            sends->counts[sends->nnz] = 0;
            sends->displs[sends->nnz] = k;
            sends->nnz++;
        }
        sends->counts[sends->nnz - 1]++;
    }
    return 0;
}

/* Guarantees: sends released and zeroed. */
void sp_sends_free(sp_sends *sends)
{
    free(sends->dest);
    free(sends->counts);
    free(sends->displs);
    free(sends->cols);
    memset(sends, 0, sizeof *sends);
}

/* Guarantees: *sends = rank's send side of the matrix spec describes; nothing held on
 * failure. */
int sp_pattern_build(const sp_spec *spec, int P, int rank, sp_sends *sends, char *err,
                     size_t errlen)
{
    sp_rows rows;
    memset(sends, 0, sizeof *sends);
    if (sp_rows_build(spec, P, rank, &rows, err, errlen))
        return -1;
    int bad = sp_sends_build(&rows, P, rank, sends);
    sp_rows_free(&rows);
    return bad ? fail(err, errlen, "out of memory building the send lists") : 0;
}
