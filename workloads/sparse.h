/* sparse.h — sparse communication patterns for the SDDE kernels, from sparse matrices
 * partitioned row-wise.
 *
 * Partition (as in the SDDE paper): of n rows and P ranks, rank r holds the contiguous
 * rows [sp_part_begin(n, P, r), sp_part_begin(n, P, r + 1)); the first n % P ranks hold
 * one row more. The vector x of y = A x is partitioned the same way over the n_cols
 * columns, so x[j] lives on rank sp_part_owner(n_cols, P, j).
 *
 * The exchange: for y = A x, rank r needs x[j] for every column j of a non-zero in its
 * rows, and the ranks owning those j are known to r (it can compute the owners). What r
 * does NOT know is which ranks need its own x entries. The SDDE finds out: rank r sends
 * to each owner q != r of such columns the list of global column indices it needs from
 * q (ascending). After the exchange, q knows, for each source r, exactly which of its
 * entries to send r in every later product — q's send side of the SpMV, which is what
 * the SDDE computes, not its input. So, for rank r (sp_sends_build):
 *   dest   = the owners q != r of columns in r's rows, ascending;
 *   v variant (MPIX_Alltoallv_crs): message to dest[i] = those column indices (MPI_INT);
 *   constant variant (MPIX_Alltoall_crs): message to dest[i] = 1 MPI_INT, their number.
 * Ranks with no rows, or whose rows only touch their own columns, send nothing.
 *
 * Sources of matrices, all deterministic (seeded explicitly, never the clock):
 *   stencil2d:NXxNY        5-point Laplacian pattern on an NX x NY grid (row x + NX*y);
 *   stencil3d:NXxNYxNZ     7-point Laplacian pattern on an NX x NY x NZ grid;
 *   random:N:DENSITY       N x N, diagonal plus each off-diagonal entry with probability
 *                          DENSITY (independently, geometric skips; row i drawn from
 *                          a generator seeded by (seed, i));
 *   rmat:SCALE[:EF]        R-MAT power-law graph, 2^SCALE vertices, EF * 2^SCALE edges
 *                          (default EF 8), quadrant probabilities 0.57/0.19/0.19/0.05,
 *                          edge e drawn from a generator seeded by (seed, e);
 *                          symmetrised, self-loops dropped, vertices not permuted (so
 *                          the high-degree vertices cluster on the low ranks);
 *   mtx:PATH or PATH.mtx   a Matrix Market file: coordinate format, real / integer /
 *                          pattern, general / symmetric / skew-symmetric (mirrored).
 * Each rank builds only its own rows (R-MAT and Matrix Market scan everything once).
 * Duplicate entries are merged; values are read, checked and dropped (patterns only).
 */
#ifndef A2A_SPARSE_H
#define A2A_SPARSE_H

#include <stddef.h>
#include <stdint.h>

/* The rows [row_begin, row_end) of an n_rows x n_cols sparse pattern. Row i's columns
 * are col[row_ptr[i - row_begin] .. row_ptr[i - row_begin + 1]), ascending, distinct.
 * Built rows have row_ptr[0] == 0; a view into a bigger matrix (row_ptr and col of the
 * whole matrix offset to row_begin) may have row_ptr[0] > 0 and is accepted everywhere
 * except by sp_rows_free. */
typedef struct sp_rows {
    int n_rows, n_cols;
    int row_begin, row_end;
    int *row_ptr; /* row_end - row_begin + 1 entries */
    int *col;
} sp_rows;

typedef enum sp_kind { SP_STENCIL2D, SP_STENCIL3D, SP_RANDOM, SP_RMAT, SP_MTX } sp_kind;

/* What to build; sp_spec_parse fills it from text. */
typedef struct sp_spec {
    sp_kind kind;
    int nx, ny, nz;         /* stencils */
    int n;                  /* random: order */
    double density;         /* random: probability of an off-diagonal entry, [0, 1] */
    int scale, edge_factor; /* rmat */
    uint64_t seed;          /* random, rmat */
    char path[512];         /* mtx */
} sp_spec;

/* The send side of rank r's SDDE (see above). Arrays malloc'ed; sp_sends_free. */
typedef struct sp_sends {
    int nnz;     /* number of destinations */
    int *dest;   /* nnz ranks, ascending, never r */
    int *counts; /* nnz column counts (each >= 1) */
    int *displs; /* nnz offsets into cols (prefix sums of counts) */
    int size;    /* total column indices = sum of counts */
    int *cols;   /* size global column indices; dest[i]'s are ascending */
} sp_sends;

/* First row of rank r when n rows are split over P ranks (r in [0, P]; r = P gives n). */
/* 1 if only blanks (or nothing) remain at s: the end of a line of a text format. */
int sp_blank(const char *s);

int sp_part_begin(int n, int P, int r);
/* The rank that holds row (or vector entry) i of n over P ranks. */
int sp_part_owner(int n, int P, int i);

/* Parses a spec ("stencil2d:64x64", "random:1000:0.01", "rmat:10:16", "mtx:f.mtx" or
 * "f.mtx"). Returns 0, or -1 with a message in err. */
int sp_spec_parse(const char *text, uint64_t seed, sp_spec *spec, char *err, size_t errlen);

/* Builds the rows of rank `rank` of P (the whole matrix for P = 1). Returns 0, or -1
 * with a message in err (for files: "path:line: what"). *rows is then empty. */
int sp_rows_build(const sp_spec *spec, int P, int rank, sp_rows *rows, char *err,
                  size_t errlen);

/* Edge e of the R-MAT graph of 2^scale vertices (seed): both endpoints chosen bit by bit,
 * from the top, among the four quadrants with the Graph500 probabilities 0.57 (0,0),
 * 0.19 (0,1), 0.19 (1,0), 0.05 (1,1), from a stream that depends only on (seed, e).
 * Directed; may be a self-loop. Shared by the rmat sparse pattern and the rmat graphs of
 * the applications. */
void sp_rmat_edge(int scale, uint64_t seed, long long e, uint32_t *u, uint32_t *v);

/* Reads rows of rank `rank` of P from a Matrix Market file, as sp_rows_build. */
int sp_read_mtx(const char *path, int P, int rank, sp_rows *rows, char *err, size_t errlen);

/* Writes rows (which must hold the whole matrix) as a Matrix Market coordinate file.
 * field "pattern", "real" or "integer"; symmetric != 0 writes only entries with
 * row >= col and declares the matrix symmetric (the caller makes sure it is). value
 * gives each entry's value (unused for pattern); comment (may be NULL) becomes a '%'
 * line after the banner. Returns 0, or -1 with err set. */
int sp_write_mtx(const char *path, const sp_rows *rows, const char *field, int symmetric,
                 double (*value)(int row, int col, void *ctx), void *ctx, const char *comment,
                 char *err, size_t errlen);

void sp_rows_free(sp_rows *rows);

/* Rank r's send side from its rows (rows->row_begin.. must be rank r's partition of
 * P). Returns 0, or -1 when out of memory. */
int sp_sends_build(const sp_rows *rows, int P, int r, sp_sends *sends);
void sp_sends_free(sp_sends *sends);

/* The send side of rank `rank` of P straight from a spec: sp_rows_build, then
 * sp_sends_build, rows released. Returns 0, or -1 with a message in err. */
int sp_pattern_build(const sp_spec *spec, int P, int rank, sp_sends *sends, char *err,
                     size_t errlen);

/* Number of rows x non-zeros held (row_ptr's last entry). */
long long sp_rows_nnz(const sp_rows *rows);

#endif
