/* ranks: 16, mpich: 4 */
/*
 * test_sdde.c — the SDDE kernels (Alltoall_crs / Alltoallv_crs) against an independent
 * oracle and the reference, on sparse matrix patterns; the Matrix Market reader.
 *
 *   mpirun -n N ./test_sdde [max_P]          every P from 1 to max_P (default N)
 *   ./test_sdde --write-data DIR             (re)write the .mtx files of workloads/data
 *
 * Reader (world rank 0): the data files equal the generators that wrote them, whole and
 * read by parts; a tricky valid file (CRLF, comments, blank lines, duplicates, integer
 * field, skew-symmetric); malformed files each give "file:line: ..." with the right line.
 * Generators: a rank's rows equal the slice of the whole matrix; seeds matter.
 *
 * Exchanges: for every P (a sub-communicator of the first P ranks; the others wait in a
 * sleeping barrier), every matrix (data files, stencils, random, R-MAT, a diagonal
 * matrix whose ranks have no neighbours, a 3x3 grid that leaves ranks without rows, a
 * dense random one), several payloads (the paper's counts; all-zero doubles; empty
 * messages plus a self-message; shorts received as ints; column indices placed in
 * reverse order with gaps; all-zero ints with zero-length messages and a self-message),
 * recv_nnz (and recv_size) unknown, and known for the shorts and the zero+empty+self
 * payloads: every algorithm (personalized,
 * nonblocking, rma for constant size, locality-aware personalized and nonblocking with
 * ppn = 1, 2, 3, 4 when they divide P, and 0 = the real node, the latter with the two
 * payloads with self-messages) must return exactly the
 * expected (recv_nnz, src, counts, displs, recv_size, values), which every rank computes
 * on its own from the whole matrix; the reference must too. The send buffer must be
 * unchanged and the stats must match the pattern (messages, bytes, inter- and
 * intra-region messages). Calls follow each other without barriers. Argument errors
 * return the documented codes.
 *
 * One line per failure, a summary line "test_sdde: N passed, M failed", exit 0 only if
 * all passed. For the largest P a table of the maximum inter-region messages per rank,
 * without and with aggregation. TEST_SDDE_VERBOSE=1 prints each failing rank's details.
 */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "a2a.h"
#include "sparse.h"
#include "polite.h"
#include "test_common.h"
#include "unit_check.h"

enum { DATA_SEED = 20240 };

/* ---- bookkeeping ------------------------------------------------------------------- */

static int world_rank, verbose;
static long long passed, failed; /* on world rank 0 */

/* Guarantees: one check counted on world rank 0, a line printed when it failed. */
static void record(int ok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    count_check_v(&passed, &failed, LLONG_MAX, ok, fmt, ap);
    va_end(ap);
}

/* Checks of one P: every rank runs the same checks in the same order and keeps a
 * failure mask per check; at the end of the P they are combined on rank 0. */
typedef struct checklist {
    int n, cap;
    int *mask;    /* this rank's failure bits per check */
    char **desc;  /* descriptions, kept on rank 0 of the sub-communicator */
    int keep_desc;
} checklist;

enum {
    BAD_RETURN = 1 << 0,
    BAD_NNZ = 1 << 1,
    BAD_SRC = 1 << 2,
    BAD_COUNTS = 1 << 3,
    BAD_SIZE = 1 << 4,
    BAD_VALUES = 1 << 5,
    BAD_SENDBUF = 1 << 6,
    BAD_STATS = 1 << 7,
    BAD_CODE = 1 << 8,
};
static const char *const bad_name[] = { "error-return", "recv_nnz", "src", "counts/displs",
                                        "recv_size", "values", "send-buffer-modified",
                                        "stats", "error-code" };

/* Guarantees: a check with this rank's failure mask appended. */
static void add_check(checklist *c, int mask, const char *fmt, ...)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 256;
        c->mask = realloc(c->mask, (size_t)c->cap * sizeof(int));
        c->desc = realloc(c->desc, (size_t)c->cap * sizeof(char *));
    }
    c->mask[c->n] = mask;
    c->desc[c->n] = NULL;
    if (c->keep_desc) {
        char buf[256];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        c->desc[c->n] = strdup(buf);
    }
    if (mask && verbose) {
        char buf[256];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        fprintf(stderr, "  world rank %d: %s: mask 0x%x\n", world_rank, buf, mask);
    }
    c->n++;
}

/* Guarantees: the checks of this P combined over comm and recorded on world rank 0;
 * the list emptied. */
static void flush_checks(checklist *c, MPI_Comm comm)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    int *any = malloc((size_t)(c->n ? c->n : 1) * sizeof(int));
    int *ranks = malloc((size_t)(c->n ? c->n : 1) * sizeof(int));
    int *one = malloc((size_t)(c->n ? c->n : 1) * sizeof(int));
    for (int i = 0; i < c->n; i++)
        one[i] = c->mask[i] != 0;
    MPI_Reduce(c->mask, any, c->n, MPI_INT, MPI_BOR, 0, comm);
    MPI_Reduce(one, ranks, c->n, MPI_INT, MPI_SUM, 0, comm);
    if (rank == 0)
        for (int i = 0; i < c->n; i++) {
            char why[200] = "";
            for (int b = 0; b < 9; b++)
                if (any[i] & (1 << b)) {
                    strncat(why, " ", sizeof why - strlen(why) - 1);
                    strncat(why, bad_name[b], sizeof why - strlen(why) - 1);
                }
            record(any[i] == 0, "%s: wrong on %d rank(s):%s", c->desc[i], ranks[i], why);
        }
    for (int i = 0; i < c->n; i++)
        free(c->desc[i]);
    free(any);
    free(ranks);
    free(one);
    c->n = 0;
}

/* ---- the Matrix Market reader and the generators (world rank 0) ------------------------ */

static char data_dir[1024];

/* Guarantees: 1 if a and b hold the same rows of the same matrix with the same pattern
 * (either may be a view with row_ptr[0] > 0). */
static int same_rows(const sp_rows *a, const sp_rows *b)
{
    if (a->n_rows != b->n_rows || a->n_cols != b->n_cols || a->row_begin != b->row_begin ||
        a->row_end != b->row_end)
        return 0;
    for (int i = 0; i < a->row_end - a->row_begin; i++) {
        int la = a->row_ptr[i + 1] - a->row_ptr[i], lb = b->row_ptr[i + 1] - b->row_ptr[i];
        if (la != lb ||
            memcmp(a->col + a->row_ptr[i], b->col + b->row_ptr[i], (size_t)la * sizeof(int)))
            return 0;
    }
    return 1;
}

/* Guarantees: *view = rows [begin, end) of the whole matrix, sharing its storage. */
static void slice(const sp_rows *whole, int begin, int end, sp_rows *view)
{
    view->n_rows = whole->n_rows;
    view->n_cols = whole->n_cols;
    view->row_begin = begin;
    view->row_end = end;
    view->row_ptr = whole->row_ptr + begin;
    view->col = whole->col;
}

/* The data files and the generator specs that wrote them. */
static const struct {
    const char *file, *spec, *field;
    int symmetric;
} data_files[] = {
    { "lap2d_8x8.mtx", "stencil2d:8x8", "real", 1 },
    { "random_100_2pct.mtx", "random:100:0.02", "real", 0 },
    { "rmat_128.mtx", "rmat:7:8", "pattern", 1 },
};
enum { NDATA = sizeof data_files / sizeof data_files[0] };

/* Guarantees: the value written for entry (i, j) of a data file: the Laplacian's for
 * the stencil, a fixed function of (i, j) otherwise. */
static double data_value(int i, int j, void *ctx)
{
    if (ctx)
        return i == j ? 4.0 : -1.0;
    return ((i * 37 + j * 11) % 200) / 8.0 - 12.5;
}

/* Guarantees: the data files written into dir from their specs; 0 on success. */
static int write_data(const char *dir)
{
    int bad = 0;
    for (int k = 0; k < NDATA; k++) {
        char err[512], path[1200];
        sp_spec spec;
        sp_rows rows;
        snprintf(path, sizeof path, "%s/%s", dir, data_files[k].file);
        if (sp_spec_parse(data_files[k].spec, DATA_SEED, &spec, err, sizeof err) ||
            sp_rows_build(&spec, 1, 0, &rows, err, sizeof err)) {
            fprintf(stderr, "%s\n", err);
            bad = 1;
            continue;
        }
        int laplacian = spec.kind == SP_STENCIL2D;
        char comment[200];
        snprintf(comment, sizeof comment, "a2atune: tests/test_sdde --write-data, generator "
                 "%s, seed %d", data_files[k].spec, DATA_SEED);
        if (sp_write_mtx(path, &rows, data_files[k].field, data_files[k].symmetric,
                         data_value, laplacian ? &laplacian : NULL, comment, err,
                         sizeof err)) {
            fprintf(stderr, "%s\n", err);
            bad = 1;
        } else {
            printf("wrote %s (%d x %d, %lld non-zeros)\n", path, rows.n_rows, rows.n_cols,
                   sp_rows_nnz(&rows));
        }
        sp_rows_free(&rows);
    }
    return bad;
}

/* Guarantees: the file at path holds exactly content; returns 0 on success. */
static int write_file(const char *path, const char *content)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(content, f);
    return fclose(f);
}

/* Malformed Matrix Market files: content, the line the error must name, a word of it. */
static const struct {
    const char *name, *content;
    int line;
    const char *word;
} malformed[] = {
    { "empty", "", 1, "banner" },
    { "banner", "%%MatrixMarkt matrix coordinate real general\n2 2 1\n1 1 1\n", 1, "banner" },
    { "short-banner", "%%MatrixMarket matrix coordinate\n2 2 1\n1 1 1\n", 1, "banner" },
    { "array", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 1, "format" },
    { "complex", "%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 1 1 0\n", 1,
      "field" },
    { "hermitian", "%%MatrixMarket matrix coordinate real hermitian\n2 2 1\n1 1 1\n", 1,
      "symmetry" },
    { "size-two-numbers", "%%MatrixMarket matrix coordinate real general\n% c\n3 3\n", 3,
      "size" },
    { "size-negative", "%%MatrixMarket matrix coordinate real general\n3 3 -1\n", 2, "size" },
    { "size-too-many", "%%MatrixMarket matrix coordinate real general\n2 2 5\n", 2, "size" },
    { "symmetric-rectangular", "%%MatrixMarket matrix coordinate real symmetric\n2 3 1\n",
      2, "square" },
    { "row-out-of-range",
      "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n4 1 2.0\n", 4,
      "outside" },
    { "column-zero", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n2 0\n", 3,
      "outside" },
    { "missing-value", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n1 2\n",
      4, "value" },
    { "bad-value", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 abc\n", 3,
      "value" },
    { "integer-with-real", "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 2 1.5\n",
      3, "integer" },
    { "fractional-index", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1.5 2 3\n",
      3, "row column" },
    { "extra-text", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 2 3\n", 3,
      "unexpected" },
    { "upper-in-symmetric",
      "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n1 1 1\n1 2 1\n", 4,
      "triangle" },
    { "too-few", "%%MatrixMarket matrix coordinate pattern general\n3 3 3\n1 1\n2 2\n", 4,
      "ends" },
    { "too-many", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 1\n2 2\n", 4,
      "more entries" },
    { "no-size", "%%MatrixMarket matrix coordinate pattern general\n% only a comment\n", 2,
      "size" },
};
enum { NMALFORMED = sizeof malformed / sizeof malformed[0] };

/* Guarantees: the reader and generator checks recorded (world rank 0 only). */
static void test_reader(void)
{
    char err[1024];
    /* data files = their generators, whole and by parts */
    for (int k = 0; k < NDATA; k++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/%s", data_dir, data_files[k].file);
        sp_spec spec;
        sp_rows whole, file;
        sp_spec_parse(data_files[k].spec, DATA_SEED, &spec, err, sizeof err);
        int rc = sp_rows_build(&spec, 1, 0, &whole, err, sizeof err);
        record(rc == 0, "generator %s: %s", data_files[k].spec, err);
        rc = sp_read_mtx(path, 1, 0, &file, err, sizeof err);
        record(rc == 0 && same_rows(&whole, &file), "reader: %s differs from %s (%s)", path,
               data_files[k].spec, rc ? err : "pattern");
        sp_rows_free(&file);
        for (int P = 3; P <= 7; P += 4)
            for (int r = 0; r < P; r++) {
                sp_rows part, view;
                rc = sp_read_mtx(path, P, r, &part, err, sizeof err);
                slice(&whole, sp_part_begin(whole.n_rows, P, r),
                      sp_part_begin(whole.n_rows, P, r + 1), &view);
                record(rc == 0 && same_rows(&part, &view), "reader: %s rank %d of %d", path, r,
                       P);
                sp_rows_free(&part);
                rc = sp_rows_build(&spec, P, r, &part, err, sizeof err);
                record(rc == 0 && same_rows(&part, &view), "generator %s: rank %d of %d "
                       "differs from the whole matrix's rows", data_files[k].spec, r, P);
                sp_rows_free(&part);
            }
        sp_rows_free(&whole);
    }

    /* seeds: the same seed gives the same matrix, another seed another one */
    const char *seeded[] = { "random:300:0.01", "rmat:9:4" };
    for (int k = 0; k < 2; k++) {
        sp_spec a, b;
        sp_rows ra, rb, rc2;
        sp_spec_parse(seeded[k], 7, &a, err, sizeof err);
        sp_spec_parse(seeded[k], 8, &b, err, sizeof err);
        sp_rows_build(&a, 1, 0, &ra, err, sizeof err);
        sp_rows_build(&a, 1, 0, &rb, err, sizeof err);
        sp_rows_build(&b, 1, 0, &rc2, err, sizeof err);
        record(same_rows(&ra, &rb) && !same_rows(&ra, &rc2), "generator %s: seed handling",
               seeded[k]);
        if (k == 0) {
            double expect = 300 + 0.01 * 300 * 299, got = (double)sp_rows_nnz(&ra);
            record(got > 0.8 * expect && got < 1.2 * expect,
                   "generator %s: %g non-zeros, expected about %g", seeded[k], got, expect);
        }
        sp_rows_free(&ra);
        sp_rows_free(&rb);
        sp_rows_free(&rc2);
    }
    sp_spec bad_spec;
    const char *bad_specs[] = { "stencil2d:8", "stencil3d:2x2", "random:10:1.5", "rmat:0",
                                "rmat:5:", "nothing", "stencil2d:4x4x" };
    for (int k = 0; k < 7; k++)
        record(sp_spec_parse(bad_specs[k], 1, &bad_spec, err, sizeof err) != 0,
               "spec '%s' must be rejected", bad_specs[k]);

    /* a valid but unusual file, and malformed ones, in a private directory */
    char dir[] = "/tmp/test_sdde.XXXXXX";
    if (!mkdtemp(dir)) {
        record(0, "reader: cannot create a temporary directory");
        return;
    }
    char path[1200];
    snprintf(path, sizeof path, "%s/tricky.mtx", dir);
    write_file(path, "%%MatrixMarket matrix coordinate integer general\r\n% comment\r\n\r\n"
                     "3 4 4\r\n1 1 5\r\n3 4 -2\r\n1 1 7\r\n2 3 1\r\n");
    sp_rows t;
    int rc = sp_read_mtx(path, 1, 0, &t, err, sizeof err);
    int expect_ptr[] = { 0, 1, 2, 3 }, expect_col[] = { 0, 2, 3 };
    record(rc == 0 && t.n_rows == 3 && t.n_cols == 4 &&
               !memcmp(t.row_ptr, expect_ptr, sizeof expect_ptr) &&
               !memcmp(t.col, expect_col, sizeof expect_col),
           "reader: CRLF/comments/duplicates/integer file read wrongly (%s)", rc ? err : "");
    sp_rows_free(&t);
    unlink(path);
    snprintf(path, sizeof path, "%s/skew.mtx", dir);
    write_file(path, "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1.5\n"
                     "3 2 -1e3\n");
    rc = sp_read_mtx(path, 1, 0, &t, err, sizeof err);
    int skew_ptr[] = { 0, 1, 3, 4 }, skew_col[] = { 1, 0, 2, 1 };
    record(rc == 0 && !memcmp(t.row_ptr, skew_ptr, sizeof skew_ptr) &&
               !memcmp(t.col, skew_col, sizeof skew_col),
           "reader: skew-symmetric file not mirrored (%s)", rc ? err : "");
    sp_rows_free(&t);
    unlink(path);
    for (int k = 0; k < NMALFORMED; k++) {
        snprintf(path, sizeof path, "%s/%s.mtx", dir, malformed[k].name);
        write_file(path, malformed[k].content);
        err[0] = '\0';
        rc = sp_read_mtx(path, 1, 0, &t, err, sizeof err);
        char where[1300];
        snprintf(where, sizeof where, "%s:%d: ", path, malformed[k].line);
        record(rc != 0 && !strncmp(err, where, strlen(where)) && strstr(err, malformed[k].word),
               "reader: malformed '%s' gave '%s', expected '%s...%s...'", malformed[k].name,
               rc ? err : "success", where, malformed[k].word);
        if (rc == 0)
            sp_rows_free(&t);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/missing.mtx", dir);
    rc = sp_read_mtx(path, 1, 0, &t, err, sizeof err);
    record(rc != 0 && strstr(err, path) && strstr(err, "cannot open"),
           "reader: missing file gave '%s'", rc ? err : "success");
    rmdir(dir);
}

/* ---- payloads ------------------------------------------------------------------------ */

typedef enum {
    C_COUNT,      /* 1 int per message: the number of columns (the paper's) */
    C_ZERO,       /* 2 doubles, all zero */
    C_EMPTY_SELF, /* 0 ints per message, plus a message to itself */
    C_SHORTS,     /* 4 shorts sent, received as 2 ints, plus a self-message */
    V_COLS,       /* the column indices, messages in reverse order with gaps */
    V_ZERO_SELF,  /* all-zero ints, some messages empty, plus a self-message */
    NMODES
} mode;
static const char *const mode_name[] = { "count", "zero-doubles", "empty+self",
                                         "shorts-as-ints", "columns-gapped",
                                         "zero+empty+self" };

/* The messages one rank sends in one mode. */
typedef struct outbox {
    int nnz, size;  /* messages; elements in the send buffer (v) */
    int *dest, *counts, *displs;
    int sendcount, recvcount;
    MPI_Datatype stype, rtype;
    int sbytes, rbytes;
    unsigned char *vals; /* send buffer */
    size_t vals_bytes;
} outbox;

/* Guarantees: 1 for the constant-size modes. */
static int is_constant(mode m)
{
    return m < V_COLS;
}

/* Guarantees: o = what rank s sends in mode m, from its pattern p. */
static void build_outbox(const sp_sends *p, int s, mode m, outbox *o)
{
    memset(o, 0, sizeof *o);
    int self = m == C_EMPTY_SELF || m == C_SHORTS || m == V_ZERO_SELF;
    int n = p->nnz + self;
    o->dest = malloc((size_t)(n ? n : 1) * sizeof(int));
    o->counts = malloc((size_t)(n ? n : 1) * sizeof(int));
    o->displs = malloc((size_t)(n ? n : 1) * sizeof(int));
    const int **cols_of = malloc((size_t)(n ? n : 1) * sizeof(int *));
    for (int i = 0, k = 0; i < n; i++) {
        if (self && (k == p->nnz || p->dest[k] > s)) {
            o->dest[i] = s;
            o->counts[i] = m == V_ZERO_SELF ? 3 : 0;
            cols_of[i] = NULL;
            self = 0;
            continue;
        }
        o->dest[i] = p->dest[k];
        o->counts[i] = p->counts[k];
        cols_of[i] = p->cols + p->displs[k];
        k++;
    }
    o->nnz = n;
    switch (m) {
    case C_COUNT:
        o->stype = o->rtype = MPI_INT;
        o->sendcount = o->recvcount = 1;
        break;
    case C_ZERO:
        o->stype = o->rtype = MPI_DOUBLE;
        o->sendcount = o->recvcount = 2;
        break;
    case C_EMPTY_SELF:
        o->stype = o->rtype = MPI_INT;
        o->sendcount = o->recvcount = 0;
        break;
    case C_SHORTS:
        o->stype = MPI_SHORT;
        o->rtype = MPI_INT;
        o->sendcount = 4;
        o->recvcount = 2;
        break;
    default:
        o->stype = o->rtype = MPI_INT;
        break;
    }
    int sb, rb;
    MPI_Type_size(o->stype, &sb);
    MPI_Type_size(o->rtype, &rb);
    o->sbytes = sb;
    o->rbytes = rb;
    if (is_constant(m)) {
        o->vals_bytes = (size_t)n * (size_t)o->sendcount * (size_t)sb;
        o->vals = calloc(o->vals_bytes ? o->vals_bytes : 1, 1);
        for (int i = 0; i < n; i++) {
            if (m == C_COUNT)
                memcpy(o->vals + (size_t)i * sizeof(int), &o->counts[i], sizeof(int));
            if (m == C_SHORTS)
                for (int e = 0; e < 4; e++) {
                    short v = (short)(1 + s * 613 + o->dest[i] * 37 + e);
                    memcpy(o->vals + ((size_t)i * 4 + (size_t)e) * sizeof(short), &v,
                           sizeof v);
                }
        }
        free(cols_of);
        return;
    }
    if (m == V_ZERO_SELF)
        for (int i = 0; i < n; i++)
            if (o->dest[i] != s && (s + o->dest[i]) % 3 == 0)
                o->counts[i] = 0;
    /* layout: V_COLS places message n-1 first and leaves a one-element gap after each */
    int pos = 0;
    for (int j = 0; j < n; j++) {
        int i = m == V_COLS ? n - 1 - j : j;
        o->displs[i] = pos;
        pos += o->counts[i] + (m == V_COLS);
    }
    o->size = pos;
    o->vals_bytes = (size_t)pos * sizeof(int);
    o->vals = calloc(o->vals_bytes ? o->vals_bytes : 1, 1);
    int *v = (int *)o->vals;
    if (m == V_COLS) {
        for (int e = 0; e < pos; e++)
            v[e] = -7;
        for (int i = 0; i < n; i++)
            memcpy(v + o->displs[i], cols_of[i], (size_t)o->counts[i] * sizeof(int));
    }
    free(cols_of);
}

/* Guarantees: o's memory released. */
static void free_outbox(outbox *o)
{
    free(o->dest);
    free(o->counts);
    free(o->displs);
    free(o->vals);
}

/* What a rank receives: arrays as the kernels return them. */
typedef struct inbox {
    int rc, nnz, size;
    int *src, *counts, *displs;
    void *vals;
} inbox;

/* Guarantees: the arrays of r released. */
static void free_inbox(inbox *r)
{
    free(r->src);
    free(r->counts);
    free(r->displs);
    free(r->vals);
    memset(r, 0, sizeof *r);
}

/* Guarantees: *want = what rank r must receive, computed from every rank's outbox. */
static void expected_inbox(const outbox *all, int P, int r, mode m, inbox *want)
{
    memset(want, 0, sizeof *want);
    want->src = malloc((size_t)P * sizeof(int));
    want->counts = malloc((size_t)P * sizeof(int));
    want->displs = malloc((size_t)P * sizeof(int));
    size_t bytes = 0;
    for (int s = 0; s < P; s++)
        for (int i = 0; i < all[s].nnz; i++)
            if (all[s].dest[i] == r)
                bytes += is_constant(m) ? (size_t)all[s].sendcount * (size_t)all[s].sbytes
                                        : (size_t)all[s].counts[i] * (size_t)all[s].sbytes;
    want->vals = malloc(bytes ? bytes : 1);
    size_t pos = 0;
    for (int s = 0; s < P; s++)
        for (int i = 0; i < all[s].nnz; i++)
            if (all[s].dest[i] == r) {
                const outbox *o = &all[s];
                size_t b = is_constant(m) ? (size_t)o->sendcount * (size_t)o->sbytes
                                          : (size_t)o->counts[i] * (size_t)o->sbytes;
                const unsigned char *from =
                    o->vals + (is_constant(m) ? (size_t)i * b
                                              : (size_t)o->displs[i] * (size_t)o->sbytes);
                memcpy((unsigned char *)want->vals + pos, from, b);
                want->src[want->nnz] = s;
                want->counts[want->nnz] = (int)(b / (size_t)o->rbytes);
                want->displs[want->nnz] = (int)(pos / (size_t)o->rbytes);
                want->nnz++;
                pos += b;
            }
    want->size = (int)(pos / (size_t)(all[r].rbytes));
}

/* Guarantees: the failure bits of got against want (constant: counts/displs ignored). */
static int compare(const inbox *got, const inbox *want, const outbox *o, mode m)
{
    int bad = 0;
    if (got->rc != MPI_SUCCESS)
        return BAD_RETURN;
    if (got->nnz != want->nnz)
        return BAD_NNZ;
    if (got->nnz && (!got->src || memcmp(got->src, want->src, (size_t)got->nnz * sizeof(int))))
        bad |= BAD_SRC;
    size_t bytes;
    if (is_constant(m)) {
        bytes = (size_t)got->nnz * (size_t)o->recvcount * (size_t)o->rbytes;
    } else {
        if (got->size != want->size)
            bad |= BAD_SIZE;
        if (got->nnz && (!got->counts || !got->displs ||
                         memcmp(got->counts, want->counts, (size_t)got->nnz * sizeof(int)) ||
                         memcmp(got->displs, want->displs, (size_t)got->nnz * sizeof(int))))
            bad |= BAD_COUNTS;
        bytes = (size_t)want->size * (size_t)o->rbytes;
    }
    if (bytes && (!got->vals || memcmp(got->vals, want->vals, bytes)))
        bad |= BAD_VALUES;
    if (!bytes && got->vals)
        bad |= BAD_VALUES; /* documented: NULL when there is no payload */
    return bad;
}

/* ---- kernels ------------------------------------------------------------------------- */

typedef enum { A_REF, A_PERS, A_NBX, A_RMA, A_LPERS, A_LNBX, NALGS } alg;
static const char *const alg_name[] = { "reference", "personalized", "nonblocking", "rma",
                                        "locality_personalized", "locality_nonblocking" };

/* Guarantees: one kernel call on o; the result (and its return code) in *got. With
 * known, recv_nnz (and recv_size) are passed in from want. */
static void run_kernel(alg a, int ppn, const outbox *o, mode m, int known, const inbox *want,
                       MPI_Comm comm, a2a_stats *st, inbox *got)
{
    memset(got, 0, sizeof *got);
    got->nnz = known ? want->nnz : -1;
    got->size = known ? want->size : -1;
    if (is_constant(m)) {
        int (*plain)(int, const int *, int, MPI_Datatype, const void *, int *, int **, int,
                     MPI_Datatype, void **, MPI_Comm, a2a_stats *) = NULL;
        int (*local)(int, const int *, int, MPI_Datatype, const void *, int *, int **, int,
                     MPI_Datatype, void **, int, MPI_Comm, a2a_stats *) = NULL;
        switch (a) {
        case A_REF: plain = A2A_Alltoall_crs_reference; break;
        case A_PERS: plain = A2A_Alltoall_crs_personalized; break;
        case A_NBX: plain = A2A_Alltoall_crs_nonblocking; break;
        case A_RMA: plain = A2A_Alltoall_crs_rma; break;
        case A_LPERS: local = A2A_Alltoall_crs_locality_personalized; break;
        default: local = A2A_Alltoall_crs_locality_nonblocking; break;
        }
        if (plain)
            got->rc = plain(o->nnz, o->dest, o->sendcount, o->stype, o->vals, &got->nnz,
                            &got->src, o->recvcount, o->rtype, &got->vals, comm, st);
        else
            got->rc = local(o->nnz, o->dest, o->sendcount, o->stype, o->vals, &got->nnz,
                            &got->src, o->recvcount, o->rtype, &got->vals, ppn, comm, st);
        return;
    }
    int (*plain)(int, int, const int *, const int *, const int *, MPI_Datatype, const void *,
                 int *, int *, int **, int **, int **, MPI_Datatype, void **, MPI_Comm,
                 a2a_stats *) = NULL;
    int (*local)(int, int, const int *, const int *, const int *, MPI_Datatype, const void *,
                 int *, int *, int **, int **, int **, MPI_Datatype, void **, int, MPI_Comm,
                 a2a_stats *) = NULL;
    switch (a) {
    case A_REF: plain = A2A_Alltoallv_crs_reference; break;
    case A_PERS: plain = A2A_Alltoallv_crs_personalized; break;
    case A_NBX: plain = A2A_Alltoallv_crs_nonblocking; break;
    case A_LPERS: local = A2A_Alltoallv_crs_locality_personalized; break;
    default: local = A2A_Alltoallv_crs_locality_nonblocking; break;
    }
    if (plain)
        got->rc = plain(o->nnz, o->size, o->dest, o->counts, o->displs, o->stype, o->vals,
                        &got->nnz, &got->size, &got->src, &got->counts, &got->displs,
                        o->rtype, &got->vals, comm, st);
    else
        got->rc = local(o->nnz, o->size, o->dest, o->counts, o->displs, o->stype, o->vals,
                        &got->nnz, &got->size, &got->src, &got->counts, &got->displs,
                        o->rtype, &got->vals, ppn, comm, st);
}

/* Guarantees: the failure bit BAD_STATS unless st matches what rank `rank` must have
 * sent with algorithm a (regions of q ranks for the locality-aware ones). */
static int check_stats(alg a, int q, const outbox *o, mode m, int rank, const a2a_stats *st)
{
    long long others = 0, payload = 0;
    for (int i = 0; i < o->nnz; i++)
        if (o->dest[i] != rank) {
            others++;
            payload += is_constant(m) ? (long long)o->sendcount * o->sbytes
                                      : (long long)o->counts[i] * o->sbytes;
        }
    if (a == A_LPERS || a == A_LNBX) {
        long long regions = 0;
        for (int i = 0; i < o->nnz; i++) {
            int region = o->dest[i] / q, seen = region == rank / q;
            for (int j = 0; j < i && !seen; j++)
                seen = o->dest[j] / q == region;
            regions += !seen;
        }
        int ok = st->rounds_global == regions && st->rounds_local == q - 1 &&
                 st->rounds == regions + q - 1 && st->messages == st->rounds &&
                 st->bytes >= payload && (others == 0 || st->temp_bytes > 0);
        return ok ? 0 : BAD_STATS;
    }
    int ok = st->messages == others && st->rounds == others && st->rounds_global == others &&
             st->rounds_local == 0 && st->bytes == payload && st->blocks == others &&
             st->meta_bytes == 0;
    return ok ? 0 : BAD_STATS;
}

/* ---- one P --------------------------------------------------------------------------- */

typedef struct matrix {
    const char *name;
    char spec[1200];
    sp_rows whole;
} matrix;

/* Guarantees: the send side of every rank s of P, from the rows of the whole matrix. */
static sp_sends *build_patterns(const matrix *mx, int P)
{
    sp_sends *pattern = calloc((size_t)P, sizeof(sp_sends));
    for (int s = 0; s < P; s++) {
        sp_rows view;
        slice(&mx->whole, sp_part_begin(mx->whole.n_rows, P, s),
              sp_part_begin(mx->whole.n_rows, P, s + 1), &view);
        sp_sends_build(&view, P, s, &pattern[s]);
    }
    return pattern;
}

/* Guarantees: the P send sides released. */
static void free_patterns(sp_sends *pattern, int P)
{
    for (int s = 0; s < P; s++)
        sp_sends_free(&pattern[s]);
    free(pattern);
}

/* Guarantees: 0 if p is rank r's send side of the whole matrix, found here by brute
 * force (a flag per column), and equals what sp_pattern_build makes from the spec
 * (which builds only rank r's rows); BAD_VALUES otherwise. */
static int check_pattern(const matrix *mx, int P, int r, const sp_sends *p)
{
    const sp_rows *A = &mx->whole;
    char *needed = calloc((size_t)A->n_cols, 1);
    for (int i = sp_part_begin(A->n_rows, P, r); i < sp_part_begin(A->n_rows, P, r + 1); i++)
        for (int k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
            if (sp_part_owner(A->n_cols, P, A->col[k]) != r)
                needed[A->col[k]] = 1;
    int ok = 1, k = 0, d = -1, total = 0;
    for (int c = 0; c < A->n_cols && ok; c++) {
        if (!needed[c])
            continue;
        int q = sp_part_owner(A->n_cols, P, c);
        if (d < 0 || p->dest[d] != q) {
            d++;
            ok = d < p->nnz && p->dest[d] == q && p->displs[d] == k &&
                 (d == 0 || p->dest[d - 1] < q);
        }
        ok = ok && k < p->size && p->cols[k] == c;
        k++;
        total++;
    }
    ok = ok && d + 1 == p->nnz && total == p->size;
    for (int i = 0; i < p->nnz && ok; i++)
        ok = p->counts[i] >= 1 && p->dest[i] != r &&
             p->displs[i] + p->counts[i] == (i + 1 < p->nnz ? p->displs[i + 1] : p->size);
    free(needed);
    sp_spec spec;
    sp_sends own;
    char err[1300];
    if (sp_spec_parse(mx->spec, DATA_SEED, &spec, err, sizeof err) ||
        sp_pattern_build(&spec, P, r, &own, err, sizeof err))
        return BAD_VALUES;
    ok = ok && own.nnz == p->nnz && own.size == p->size &&
         !memcmp(own.dest, p->dest, (size_t)p->nnz * sizeof(int)) &&
         !memcmp(own.counts, p->counts, (size_t)p->nnz * sizeof(int)) &&
         !memcmp(own.displs, p->displs, (size_t)p->nnz * sizeof(int)) &&
         !memcmp(own.cols, p->cols, (size_t)p->size * sizeof(int));
    sp_sends_free(&own);
    return ok ? 0 : BAD_VALUES;
}

/* Guarantees: the ppn values to try at P: 1..4 dividing P, then 0 (the real node). */
static int ppn_list(int P, int *list)
{
    int n = 0;
    for (int q = 1; q <= 4; q++)
        if (P % q == 0)
            list[n++] = q;
    list[n++] = 0;
    return n;
}

/* Guarantees: the region size the kernels use for ppn on comm. */
static int region_size(MPI_Comm comm, int ppn)
{
    int q = 1;
    A2A_Node_layout(comm, ppn, &q, NULL, NULL);
    return q;
}

/* Guarantees: every algorithm checked on every mode of one matrix at this P. */
static void test_matrix(const matrix *mx, MPI_Comm comm, checklist *checks)
{
    int P, rank;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &rank);
    sp_sends *pattern = build_patterns(mx, P);
    add_check(checks, check_pattern(mx, P, rank, &pattern[rank]),
              "P=%d %s: send lists (brute force, sp_pattern_build)", P, mx->name);
    int ppns[8], qs[8], nppn = ppn_list(P, ppns);
    for (int k = 0; k < nppn; k++)
        qs[k] = region_size(comm, ppns[k]);
    for (int m = 0; m < NMODES; m++) {
        outbox *all = calloc((size_t)P, sizeof(outbox));
        for (int s = 0; s < P; s++)
            build_outbox(&pattern[s], s, (mode)m, &all[s]);
        const outbox *mine = &all[rank];
        unsigned char *copy = malloc(mine->vals_bytes ? mine->vals_bytes : 1);
        memcpy(copy, mine->vals, mine->vals_bytes);
        inbox want;
        expected_inbox(all, P, rank, (mode)m, &want);
        /* a given recv_nnz changes only the control flow, not the payload handling: it
         * is tried with one constant and one variable payload, both with self-messages */
        int try_known = m == C_SHORTS || m == V_ZERO_SELF;
        for (int known = 0; known <= try_known; known++)
            for (int a = A_REF; a < NALGS; a++) {
                if (a == A_RMA && !is_constant((mode)m))
                    continue;
                int local = a == A_LPERS || a == A_LNBX;
                for (int k = 0; k < (local ? nppn : 1); k++) {
                    int ppn = local ? ppns[k] : 0;
                    /* ppn = 0 only changes how Q is found (an MPI_Comm_split_type per
                     * call, slow under MPICH): tried with the self-message payloads */
                    if (local && ppn == 0 && !try_known)
                        continue;
                    a2a_stats st;
                    memset(&st, 0, sizeof st);
                    inbox got;
                    run_kernel((alg)a, ppn, mine, (mode)m, known, &want, comm, &st, &got);
                    int bad = compare(&got, &want, mine, (mode)m);
                    if (memcmp(copy, mine->vals, mine->vals_bytes))
                        bad |= BAD_SENDBUF;
                    if (!bad)
                        bad |= check_stats((alg)a, local ? qs[k] : 1, mine, (mode)m, rank,
                                           &st);
                    char ppn_text[16] = "";
                    if (local)
                        snprintf(ppn_text, sizeof ppn_text, " ppn=%d", ppn);
                    add_check(checks, bad, "P=%d %s %s %s%s recv_nnz %s", P, mx->name,
                              mode_name[m], alg_name[a], ppn_text, known ? "given" : "found");
                    free_inbox(&got);
                }
            }
        free_inbox(&want);
        free(copy);
        for (int s = 0; s < P; s++)
            free_outbox(&all[s]);
        free(all);
    }
    free_patterns(pattern, P);
}

/* Guarantees: the documented error codes for bad arguments (every rank passes the same
 * kind of bad argument, so no rank is left waiting). */
static void test_arguments(MPI_Comm comm, checklist *checks)
{
    int P, rank;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &rank);
    int dest_bad = P, dest_ok = (rank + 1) % P, one = 1, zero = 0, nnz, size;
    int *src = NULL, *counts = NULL, *displs = NULL;
    void *vals = NULL;
    int value = 5;
    MPI_Datatype strided;
    MPI_Type_vector(2, 1, 2, MPI_INT, &strided);
    MPI_Type_commit(&strided);
    int rc;
    nnz = -1;
    rc = A2A_Alltoall_crs_personalized(1, &dest_bad, 1, MPI_INT, &value, &nnz, &src, 1, MPI_INT,
                                       &vals, comm, NULL);
    add_check(checks, rc == MPI_ERR_ARG && !src && !vals ? 0 : BAD_CODE,
              "P=%d destination out of range -> MPI_ERR_ARG (got %d)", P, rc);
    nnz = -1;
    rc = A2A_Alltoall_crs_nonblocking(1, &dest_ok, 1, strided, &value, &nnz, &src, 1, strided,
                                      &vals, comm, NULL);
    add_check(checks, rc == MPI_ERR_TYPE ? 0 : BAD_CODE,
              "P=%d non-contiguous type -> MPI_ERR_TYPE (got %d)", P, rc);
    nnz = -1;
    rc = A2A_Alltoall_crs_rma(1, &dest_ok, 1, MPI_INT, &value, &nnz, &src, 2, MPI_INT, &vals,
                              comm, NULL);
    add_check(checks, rc == MPI_ERR_ARG ? 0 : BAD_CODE,
              "P=%d sendcount/recvcount bytes differ -> MPI_ERR_ARG (got %d)", P, rc);
    nnz = -1;
    size = -1;
    int minus = -1;
    rc = A2A_Alltoallv_crs_personalized(1, 1, &dest_ok, &minus, &zero, MPI_INT, &value, &nnz,
                                        &size, &src, &counts, &displs, MPI_INT, &vals, comm,
                                        NULL);
    add_check(checks, rc == MPI_ERR_ARG ? 0 : BAD_CODE,
              "P=%d negative sendcount -> MPI_ERR_ARG (got %d)", P, rc);
    nnz = -1;
    rc = A2A_Alltoallv_crs_nonblocking(1, 1, &dest_ok, &one, &one, MPI_INT, &value, &nnz,
                                       &size, &src, &counts, &displs, MPI_INT, &vals, comm,
                                       NULL);
    add_check(checks, rc == MPI_ERR_ARG && !src && !counts && !displs && !vals ? 0 : BAD_CODE,
              "P=%d displacement beyond send_size -> MPI_ERR_ARG (got %d)", P, rc);
    if (P > 1) {
        int bad_ppn = P + 1;
        nnz = -1;
        rc = A2A_Alltoall_crs_locality_nonblocking(1, &dest_ok, 1, MPI_INT, &value, &nnz, &src,
                                                   1, MPI_INT, &vals, bad_ppn, comm, NULL);
        add_check(checks, rc == MPI_ERR_ARG ? 0 : BAD_CODE,
                  "P=%d ppn=%d not dividing P -> MPI_ERR_ARG (got %d)", P, bad_ppn, rc);
    }
    nnz = -1;
    rc = A2A_Alltoall_crs_locality_personalized(1, &dest_ok, 1, MPI_INT, &value, &nnz, &src, 1,
                                                MPI_INT, &vals, -1, comm, NULL);
    add_check(checks, rc == MPI_ERR_ARG ? 0 : BAD_CODE,
              "P=%d ppn=-1 -> MPI_ERR_ARG (got %d)", P, rc);
    /* a wrong recv_nnz is detected by the algorithms that do not trust it */
    nnz = 7;
    rc = A2A_Alltoall_crs_rma(1, &dest_ok, 1, MPI_INT, &value, &nnz, &src, 1, MPI_INT, &vals,
                              comm, NULL);
    add_check(checks, rc == MPI_ERR_COUNT && !src && !vals ? 0 : BAD_CODE,
              "P=%d rma with a wrong recv_nnz -> MPI_ERR_COUNT (got %d)", P, rc);
    nnz = -1;
    size = 3;
    rc = A2A_Alltoallv_crs_reference(1, 1, &dest_ok, &one, &zero, MPI_INT, &value, &nnz, &size,
                                     &src, &counts, &displs, MPI_INT, &vals, comm, NULL);
    add_check(checks, rc == MPI_ERR_COUNT ? 0 : BAD_CODE,
              "P=%d reference with a wrong recv_size -> MPI_ERR_COUNT (got %d)", P, rc);
    MPI_Type_free(&strided);
}

/* Guarantees: many calls back to back (no barrier; the ranks drift apart) of the
 * non-blocking algorithms, alternating payloads, each result checked. */
static void test_back_to_back(const matrix *mx, MPI_Comm comm, checklist *checks)
{
    int P, rank;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &rank);
    sp_sends *pattern = build_patterns(mx, P);
    mode modes[2] = { C_COUNT, C_SHORTS };
    outbox *all[2];
    inbox want[2];
    for (int k = 0; k < 2; k++) {
        all[k] = calloc((size_t)P, sizeof(outbox));
        for (int s = 0; s < P; s++)
            build_outbox(&pattern[s], s, modes[k], &all[k][s]);
        expected_inbox(all[k], P, rank, modes[k], &want[k]);
    }
    alg algs[4] = { A_NBX, A_LNBX, A_PERS, A_NBX };
    for (int a = 0; a < 4; a++) {
        int bad = 0;
        for (int it = 0; it < 12; it++) {
            int k = it % 2;
            inbox got;
            /* rank-dependent slowness makes the ranks drift apart */
            if ((rank + it) % 3 == 0) {
                struct timespec pause = { 0, 200000 };
                nanosleep(&pause, NULL);
            }
            run_kernel(algs[a], 2 - (P % 2), &all[k][rank], modes[k], a == 3, &want[k], comm,
                       NULL, &got);
            bad |= compare(&got, &want[k], &all[k][rank], modes[k]);
            free_inbox(&got);
        }
        add_check(checks, bad, "P=%d %s 12 calls back to back%s %s", P, mx->name,
                  a == 3 ? " (recv_nnz given)" : "", alg_name[algs[a]]);
    }
    for (int k = 0; k < 2; k++) {
        free_inbox(&want[k]);
        for (int s = 0; s < P; s++)
            free_outbox(&all[k][s]);
        free(all[k]);
    }
    free_patterns(pattern, P);
}

/* Guarantees: for every matrix, the maximum over ranks of messages to other ranks, and
 * for Q = 2 and 4 (when they divide P) of messages leaving the region without
 * aggregation and of the locality-aware kernel's inter-region messages, printed by
 * world rank 0. */
static void region_table(const matrix *mx, int nm, MPI_Comm comm)
{
    int P, rank;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &rank);
    int qs[2] = { 2, 4 };
    if (rank == 0) {
        printf("\nmax inter-region messages per process, P = %d (Alltoall_crs, counts):\n", P);
        printf("%-22s %10s", "matrix", "no regions");
        for (int k = 0; k < 2; k++)
            if (P % qs[k] == 0 && qs[k] < P)
                printf("   Q=%d plain  Q=%d aggregated", qs[k], qs[k]);
        printf("\n");
    }
    for (int i = 0; i < nm; i++) {
        sp_rows view;
        sp_sends p;
        slice(&mx[i].whole, sp_part_begin(mx[i].whole.n_rows, P, rank),
              sp_part_begin(mx[i].whole.n_rows, P, rank + 1), &view);
        sp_sends_build(&view, P, rank, &p);
        outbox o;
        build_outbox(&p, rank, C_COUNT, &o);
        long long mine[5] = { 0 }, max[5];
        a2a_stats st;
        memset(&st, 0, sizeof st);
        inbox got, none;
        memset(&none, 0, sizeof none);
        run_kernel(A_PERS, 0, &o, C_COUNT, 0, &none, comm, &st, &got);
        free_inbox(&got);
        mine[0] = st.rounds_global;
        for (int k = 0; k < 2; k++) {
            if (P % qs[k] != 0 || qs[k] >= P)
                continue;
            for (int j = 0; j < o.nnz; j++)
                mine[1 + 2 * k] += o.dest[j] / qs[k] != rank / qs[k];
            memset(&st, 0, sizeof st);
            run_kernel(A_LNBX, qs[k], &o, C_COUNT, 0, &none, comm, &st, &got);
            free_inbox(&got);
            mine[2 + 2 * k] = st.rounds_global;
        }
        MPI_Reduce(mine, max, 5, MPI_LONG_LONG, MPI_MAX, 0, comm);
        if (rank == 0) {
            printf("%-22s %10lld", mx[i].name, max[0]);
            for (int k = 0; k < 2; k++)
                if (P % qs[k] == 0 && qs[k] < P)
                    printf("   %10lld  %15lld", max[1 + 2 * k], max[2 + 2 * k]);
            printf("\n");
        }
        free_outbox(&o);
        sp_sends_free(&p);
    }
    if (rank == 0)
        fflush(stdout);
}

/* ---- main ---------------------------------------------------------------------------- */

/* Guarantees: data_dir = the first of workloads/data (from the working directory) and
 * <argv0>/../../../workloads/data (from build/<mpi>/tests/) that holds the data files. */
static void find_data_dir(const char *argv0)
{
    char probe[1200];
    const char *candidates[2] = { "workloads/data", NULL };
    char from_binary[1024];
    snprintf(from_binary, sizeof from_binary, "%s", argv0);
    char *slash = strrchr(from_binary, '/');
    if (slash) {
        *slash = '\0';
        strncat(from_binary, "/../../../workloads/data", sizeof from_binary - strlen(from_binary) - 1);
        candidates[1] = from_binary;
    }
    snprintf(data_dir, sizeof data_dir, "%s", candidates[0]);
    for (int k = 0; k < 2; k++) {
        if (!candidates[k])
            continue;
        snprintf(probe, sizeof probe, "%s/%s", candidates[k], data_files[0].file);
        if (access(probe, R_OK) == 0) {
            snprintf(data_dir, sizeof data_dir, "%s", candidates[k]);
            return;
        }
    }
}

/* Guarantees: exit status 0 only if every check passed (see the top of the file). */
int main(int argc, char **argv)
{
    int world_size = test_init(&argc, &argv, &world_rank);
    if (argc > 2 && !strcmp(argv[1], "--write-data")) {
        int bad = world_rank == 0 ? write_data(argv[2]) : 0;
        MPI_Finalize();
        return bad;
    }
    const char *v = getenv("TEST_SDDE_VERBOSE");
    verbose = v && *v && *v != '0';
    int max_P = test_max_ranks(argc, argv, world_size);
    find_data_dir(argv[0]);
    double start = MPI_Wtime();
    if (world_rank == 0)
        test_reader();

    matrix mx[] = {
        { "lap2d_8x8.mtx", "", { 0 } },
        { "random_100_2pct.mtx", "", { 0 } },
        { "rmat_128.mtx", "", { 0 } },
        { "stencil2d:12x10", "stencil2d:12x10", { 0 } },
        { "stencil3d:6x5x4", "stencil3d:6x5x4", { 0 } },
        { "random:200:0.03", "random:200:0.03", { 0 } },
        { "rmat:8:8", "rmat:8:8", { 0 } },
        { "diagonal:40", "random:40:0", { 0 } },
        { "stencil2d:3x3", "stencil2d:3x3", { 0 } },
        { "random:48:0.5", "random:48:0.5", { 0 } },
    };
    int nm = sizeof mx / sizeof mx[0];
    for (int i = 0; i < nm; i++) {
        if (!mx[i].spec[0])
            snprintf(mx[i].spec, sizeof mx[i].spec, "mtx:%s/%s", data_dir, mx[i].name);
        char err[1300];
        sp_spec spec;
        if (sp_spec_parse(mx[i].spec, DATA_SEED, &spec, err, sizeof err) ||
            sp_rows_build(&spec, 1, 0, &mx[i].whole, err, sizeof err)) {
            if (world_rank == 0)
                record(0, "matrix %s: %s", mx[i].name, err);
            memset(&mx[i].whole, 0, sizeof mx[i].whole);
        }
    }

    checklist checks;
    memset(&checks, 0, sizeof checks);
    checks.keep_desc = world_rank == 0;
    for (int P = 1; P <= max_P; P++) {
        MPI_Comm comm = test_first_ranks(P, world_rank);
        if (comm == MPI_COMM_NULL)
            continue;
        for (int i = 0; i < nm; i++)
            if (mx[i].whole.row_ptr)
                test_matrix(&mx[i], comm, &checks);
        test_arguments(comm, &checks);
        if (mx[5].whole.row_ptr)
            test_back_to_back(&mx[5], comm, &checks);
        flush_checks(&checks, comm);
        if (P == max_P)
            region_table(mx, nm, comm);
        if (world_rank == 0) {
            printf("P=%d done (%lld passed, %lld failed, %.1f s)\n", P, passed, failed,
                   MPI_Wtime() - start);
            fflush(stdout);
        }
        test_done_ranks(&comm);
    }
    free(checks.mask);
    free(checks.desc);
    for (int i = 0; i < nm; i++)
        sp_rows_free(&mx[i].whole);

    long long total_failed = failed;
    MPI_Bcast(&total_failed, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    if (world_rank == 0)
        printf("test_sdde: %lld passed, %lld failed (P = 1..%d, %.1f s)\n", passed, failed,
               max_P, MPI_Wtime() - start);
    MPI_Finalize();
    return total_failed == 0 ? 0 : 1;
}
