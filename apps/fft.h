/* fft.h — distributed complex FFTs whose transposes are all-to-alls (TuNA §VI-A, TRA §VI).
 *
 * A 2D transform of n0 x n1, or a 3D one of n0 x n1 x n2 (slab decomposition), in
 * FFTW's MPI layout: rank r holds rows [row_start(r), +rows(r)) of dimension 0 (blocks of
 * block[0], default ceil(n0 / P); see fft_local). The forward transform:
 *   1. serial FFTW transforms of the local rows along dimensions 1 (and 2);
 *   2. transpose: rank i sends rank j its rows x j's columns of dimension 1 (blocks of
 *      block[1], default ceil(n1 / P)) x n2 — all-to-all number one;
 *   3. serial FFTW transforms along dimension 0 (now local);
 *   4. transpose back (the second all-to-all, whose counts are the first's transposed);
 * leaving the full DFT in the input's layout. When every rank holds as many rows and as
 * many columns (n0 = P * block[0] and n1 = P * block[1]; with the default blocks: P
 * divides n0 and n1) the transposes are uniform (MPI_Alltoall shape), else non-uniform
 * (MPI_Alltoallv shape). Elements travel as MPI_C_DOUBLE_COMPLEX (16 bytes).
 *
 * Sizes are written N0xN1[xN2][/B0xB1], e.g. 1000x1000, 64x64x64, 232x8/32x1. The sizes and
 * their byte matrices need no FFTW; the transforms do: built without FFTW 3 (A2A_HAVE_FFTW
 * 0), fft_setup says that FFTW is not built in. */
#ifndef A2A_FFT_H
#define A2A_FFT_H

#include <mpi.h>
#if A2A_HAVE_FFTW
#include <fftw3.h>
typedef fftw_complex fft_complex;   /* double[2]: real, imaginary */
typedef fftw_plan fft_plan;
#else
typedef double fft_complex[2];      /* FFTW's layout; FFTW is not built in */
typedef struct fft_plan_absent *fft_plan;
#endif
#include <stdint.h>
#include "a2a_registry.h"

/* A transform's size: n[0] rows split over the ranks in blocks of block[0] before the
 * transpose, n[1] columns in blocks of block[1] after it (0: FFTW's default ceil(n / P)). */
typedef struct fft_size {
    int dims;             /* 2 or 3 */
    long long n[3];       /* n[2] = 1 for a 2D transform */
    long long block[2];
} fft_size;

/* Items (rows or columns) that rank `rank` of P holds of n in blocks of `block` (FFTW's
 * block distribution); *start, if given, receives the first one. */
long long fft_local(long long n, long long block, int P, int rank, long long *start);

/* Bytes rank src sends rank dst in the first transpose at P: src's rows x dst's columns
 * x n[2] complex doubles (the second transpose: fft_size_swapped's). */
long long fft_block_bytes(const fft_size *size, int P, int src, int dst);

/* `dist = fft`: the P x P matrix of fft_block_bytes (row = source), kept for the life of
 * the process (one per size and P); NULL when out of memory. */
const long long *fft_size_matrix(const fft_size *size, int P);

/* Parses a size. Returns 0, or -1 with a one-line message in err. */
int fft_size_parse(const char *text, fft_size *out, char *err, size_t errlen);

/* The canonical text of a size ("1000x1000", "5x28/1x4"). */
void fft_size_text(const fft_size *size, char *text, size_t len);

/* 1 if the size can be distributed over P ranks (the blocks cover every row and column,
 * MPI int counts suffice), else 0 with the reason in why. */
int fft_size_check(const fft_size *size, int P, char *why, size_t len);

/* 1 if both transposes are uniform at P (see above). */
int fft_size_uniform(const fft_size *size, int P);

/* The size whose first transpose has the counts of `size`'s second (n0 and n1, and their
 * blocks, swapped). */
fft_size fft_size_swapped(const fft_size *size);

/* One rank's transform: layout, buffers, FFTW plans (fft_setup, fft_free). */
typedef struct fft_context {
    fft_size size;
    MPI_Comm comm;
    int P, rank, uniform;
    long long rows, cols;                       /* this rank's rows of n0, columns of n1 */
    long long *row_count, *row_start;           /* per rank */
    long long *col_count, *col_start;
    fft_complex *input, *work, *trans, *sbuf, *rbuf;
    int *scounts, *sdispls, *rcounts, *rdispls; /* in elements */
    fft_plan rows_plan, cols_plan;              /* NULL when this rank holds nothing */
    uint64_t seed;
} fft_context;

/* How to transpose. */
typedef struct fft_options {
    const a2a_kernel *kernel;    /* uniform family (uniform sizes only) or nonuniform; NULL:
                                  * the tuned dispatcher (A2A_Alltoall(v), a2a_tuned.h) */
    int params[A2A_PARAM_COUNT];
    int record;                  /* keep the bytes sent to each rank by each transpose */
} fft_options;

/* What one forward transform cost (this rank). */
typedef struct fft_outcome {
    double total_s, comm_s;
    long long bytes_sent;        /* both transposes, every destination */
    long long bytes_moved;       /* both transposes, other ranks only */
    long long max_block;         /* bytes */
    long long *sendbytes;        /* record: 2 x P bytes (transpose 1, then 2); malloc'ed */
} fft_outcome;

/* Collective over comm: lays out `size` on comm's ranks, fills this rank's input
 * (pseudo-random from seed and the global index) and plans the serial transforms
 * (FFTW_ESTIMATE). Returns 0, or -1 (on every rank) with a message (without FFTW: always,
 * saying that FFTW is not built in). */
int fft_setup(const fft_size *size, MPI_Comm comm, uint64_t seed, fft_context *ctx, char *err,
              size_t errlen);
void fft_free(fft_context *ctx);
/* Releases what FFTW keeps between transforms (its planner's data); once, at the end. */
void fft_cleanup(void);

/* Collective: one forward transform of ctx->input into ctx->work. Returns MPI_SUCCESS,
 * or an error code (the same on every rank) when a kernel failed. */
int fft_forward(fft_context *ctx, const fft_options *opt, fft_outcome *out);

/* Collective: compares ctx->work with a single-rank FFTW transform of the same input
 * (gathered on rank 0). Returns 0 and the maximum relative error max|x - y| / max|y| on
 * every rank, or -1 when rank 0 lacks the memory. */
int fft_verify(const fft_context *ctx, double *max_relative_error);

/* The input value at global index (x, y, z) for a seed. */
void fft_input(uint64_t seed, long long x, long long y, long long z, double value[2]);

#endif
