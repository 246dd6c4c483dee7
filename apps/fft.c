/* fft.c — the distributed FFT with all-to-all transposes (see fft.h); without FFTW 3
 * (A2A_HAVE_FFTW 0) only the input values, and a setup that says FFTW is not built in. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "a2a.h"
#include "fft.h"
#include "workload.h"

/* Guarantees: see fft.h; values in [-1, 1) from the global index only. */
void fft_input(uint64_t seed, long long x, long long y, long long z, double value[2])
{
    uint64_t h = wl_mix64(wl_mix64(seed ^ 0x464654ULL) ^ (uint64_t)x);
    h = wl_mix64(wl_mix64(h ^ (uint64_t)y) ^ (uint64_t)z);
    value[0] = (double)(h >> 11) / 4503599627370496.0 - 1.0;
    value[1] = (double)(wl_mix64(h) >> 11) / 4503599627370496.0 - 1.0;
}

#if A2A_HAVE_FFTW

/* Guarantees: fftw_malloc'ed room for n (at least 1) elements, or NULL. */
static fftw_complex *alloc_complex(long long n)
{
    return fftw_malloc((size_t)(n > 0 ? n : 1) * sizeof(fftw_complex));
}

/* Guarantees: see fft.h. Every rank reaches the same verdict (one MPI_Allreduce). */
int fft_setup(const fft_size *size, MPI_Comm comm, uint64_t seed, fft_context *ctx, char *err,
              size_t errlen)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->size = *size;
    ctx->comm = comm;
    ctx->seed = seed;
    MPI_Comm_size(comm, &ctx->P);
    MPI_Comm_rank(comm, &ctx->rank);
    const int P = ctx->P;
    if (!fft_size_check(size, P, err, errlen))
        return -1;
    ctx->uniform = fft_size_uniform(size, P);
    const long long n0 = size->n[0], n1 = size->n[1], n2 = size->n[2];
    ctx->row_count = calloc((size_t)P, sizeof(long long));
    ctx->row_start = calloc((size_t)P, sizeof(long long));
    ctx->col_count = calloc((size_t)P, sizeof(long long));
    ctx->col_start = calloc((size_t)P, sizeof(long long));
    ctx->scounts = calloc((size_t)P, sizeof(int));
    ctx->sdispls = calloc((size_t)P, sizeof(int));
    ctx->rcounts = calloc((size_t)P, sizeof(int));
    ctx->rdispls = calloc((size_t)P, sizeof(int));
    int ok = ctx->row_count && ctx->row_start && ctx->col_count && ctx->col_start &&
             ctx->scounts && ctx->sdispls && ctx->rcounts && ctx->rdispls;
    for (int r = 0; ok && r < P; r++) {
        ctx->row_count[r] = fft_local(n0, size->block[0], P, r, &ctx->row_start[r]);
        ctx->col_count[r] = fft_local(n1, size->block[1], P, r, &ctx->col_start[r]);
    }
    if (ok) {
        ctx->rows = ctx->row_count[ctx->rank];
        ctx->cols = ctx->col_count[ctx->rank];
        long long local = ctx->rows * n1 * n2, turned = ctx->cols * n0 * n2;
        long long most = local > turned ? local : turned;
        ctx->input = alloc_complex(local);
        ctx->work = alloc_complex(local);
        ctx->trans = alloc_complex(turned);
        ctx->sbuf = alloc_complex(most);
        ctx->rbuf = alloc_complex(most);
        ok = ctx->input && ctx->work && ctx->trans && ctx->sbuf && ctx->rbuf;
    }
    if (ok) {
        for (long long r = 0; r < ctx->rows; r++)
            for (long long y = 0; y < n1; y++)
                for (long long z = 0; z < n2; z++)
                    fft_input(seed, ctx->row_start[ctx->rank] + r, y, z,
                              ctx->input[(r * n1 + y) * n2 + z]);
        /* 1: along dimensions 1 (and 2) of every local row, input -> work */
        if (ctx->rows > 0) {
            int n[2] = { (int)n1, (int)n2 };
            ctx->rows_plan = fftw_plan_many_dft(size->dims == 3 ? 2 : 1, n, (int)ctx->rows,
                                                ctx->input, NULL, 1, (int)(n1 * n2), ctx->work,
                                                NULL, 1, (int)(n1 * n2), FFTW_FORWARD,
                                                FFTW_ESTIMATE);
            ok = ctx->rows_plan != NULL;
        }
        /* 3: along dimension 0 of the transposed slab [column][row][z], in place */
        if (ok && ctx->cols > 0) {
            fftw_iodim dim = { (int)n0, (int)n2, (int)n2 };
            fftw_iodim many[2] = { { (int)ctx->cols, (int)(n0 * n2), (int)(n0 * n2) },
                                   { (int)n2, 1, 1 } };
            ctx->cols_plan = fftw_plan_guru_dft(1, &dim, 2, many, ctx->trans, ctx->trans,
                                                FFTW_FORWARD, FFTW_ESTIMATE);
            ok = ctx->cols_plan != NULL;
        }
    }
    int all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, comm);
    if (!all_ok) {
        snprintf(err, errlen, "FFT setup failed on some rank (out of memory or no FFTW plan)");
        fft_free(ctx);
        return -1;
    }
    return 0;
}

/* Guarantees: releases everything fft_setup made; ctx is left empty. */
void fft_free(fft_context *ctx)
{
    if (ctx->rows_plan)
        fftw_destroy_plan(ctx->rows_plan);
    if (ctx->cols_plan)
        fftw_destroy_plan(ctx->cols_plan);
    fftw_free(ctx->input);
    fftw_free(ctx->work);
    fftw_free(ctx->trans);
    fftw_free(ctx->sbuf);
    fftw_free(ctx->rbuf);
    free(ctx->row_count);
    free(ctx->row_start);
    free(ctx->col_count);
    free(ctx->col_start);
    free(ctx->scounts);
    free(ctx->sdispls);
    free(ctx->rcounts);
    free(ctx->rdispls);
    memset(ctx, 0, sizeof *ctx);
}

/* Guarantees: one all-to-all of ctx->sbuf into ctx->rbuf with the counts in ctx (in
 * elements): the uniform call when the kernel is of the uniform family, else the
 * non-uniform one; without a kernel, the tuned dispatcher's (A2A_Alltoall when the
 * transposes are uniform, else A2A_Alltoallv); its time is added to out->comm_s and its blocks to the byte counts
 * (and to record[] when given). */
static int transpose(fft_context *ctx, const fft_options *opt, fft_outcome *out, long long *record)
{
    const long long bytes = (long long)sizeof(fftw_complex);
    long long at = 0, in = 0;
    for (int j = 0; j < ctx->P; j++) {
        ctx->sdispls[j] = (int)at;
        ctx->rdispls[j] = (int)in;
        at += ctx->scounts[j];
        in += ctx->rcounts[j];
        out->bytes_sent += ctx->scounts[j] * bytes;
        if (j != ctx->rank)
            out->bytes_moved += ctx->scounts[j] * bytes;
        if (ctx->scounts[j] * bytes > out->max_block)
            out->max_block = ctx->scounts[j] * bytes;
        if (record)
            record[j] = ctx->scounts[j] * bytes;
    }
    double t0 = MPI_Wtime();
    int rc;
    if (!opt->kernel && ctx->uniform)
        rc = A2A_Alltoall(ctx->sbuf, ctx->scounts[0], MPI_C_DOUBLE_COMPLEX, ctx->rbuf,
                          ctx->rcounts[0], MPI_C_DOUBLE_COMPLEX, ctx->comm);
    else if (!opt->kernel)
        rc = A2A_Alltoallv(ctx->sbuf, ctx->scounts, ctx->sdispls, MPI_C_DOUBLE_COMPLEX, ctx->rbuf,
                           ctx->rcounts, ctx->rdispls, MPI_C_DOUBLE_COMPLEX, ctx->comm);
    else if (opt->kernel->family == A2A_FAMILY_UNIFORM)
        rc = opt->kernel->call.uniform(ctx->sbuf, ctx->scounts[0], MPI_C_DOUBLE_COMPLEX, ctx->rbuf,
                                       ctx->rcounts[0], MPI_C_DOUBLE_COMPLEX, ctx->comm,
                                       opt->params, NULL);
    else
        rc = opt->kernel->call.nonuniform(ctx->sbuf, ctx->scounts, ctx->sdispls,
                                          MPI_C_DOUBLE_COMPLEX, ctx->rbuf, ctx->rcounts,
                                          ctx->rdispls, MPI_C_DOUBLE_COMPLEX, ctx->comm,
                                          opt->params, NULL);
    out->comm_s += MPI_Wtime() - t0;
    return rc;
}

/* Guarantees: see fft.h; ctx->input is left unchanged, so transforms can be repeated. */
int fft_forward(fft_context *ctx, const fft_options *opt, fft_outcome *out)
{
    memset(out, 0, sizeof *out);
    const int P = ctx->P;
    const long long n0 = ctx->size.n[0], n1 = ctx->size.n[1], n2 = ctx->size.n[2];
    const size_t elem = sizeof(fftw_complex);
    if (opt->kernel && opt->kernel->family == A2A_FAMILY_UNIFORM && !ctx->uniform)
        return MPI_ERR_ARG; /* the same verdict on every rank: uniformity is global */
    if (opt->record) {
        out->sendbytes = calloc(2 * (size_t)P, sizeof *out->sendbytes);
        if (!out->sendbytes)
            return MPI_ERR_NO_MEM;
    }
    double t_start = MPI_Wtime();
    if (ctx->rows_plan)
        fftw_execute(ctx->rows_plan);

    /* transpose 1: my rows x j's columns, row by row */
    long long at = 0;
    for (int j = 0; j < P; j++) {
        ctx->scounts[j] = (int)(ctx->rows * ctx->col_count[j] * n2);
        ctx->rcounts[j] = (int)(ctx->row_count[j] * ctx->cols * n2);
        for (long long r = 0; r < ctx->rows; r++) {
            memcpy(ctx->sbuf + at, ctx->work + (r * n1 + ctx->col_start[j]) * n2,
                   (size_t)(ctx->col_count[j] * n2) * elem);
            at += ctx->col_count[j] * n2;
        }
    }
    int rc = transpose(ctx, opt, out, opt->record ? out->sendbytes : NULL);
    at = 0;
    for (int i = 0; i < P; i++) /* from rank i: its rows x my columns -> [column][row][z] */
        for (long long r = 0; r < ctx->row_count[i]; r++)
            for (long long c = 0; c < ctx->cols; c++, at += n2)
                memcpy(ctx->trans + (c * n0 + ctx->row_start[i] + r) * n2, ctx->rbuf + at,
                       (size_t)n2 * elem);
    if (ctx->cols_plan)
        fftw_execute(ctx->cols_plan);

    /* transpose 2: my columns x i's rows, column by column */
    at = 0;
    for (int i = 0; i < P; i++) {
        ctx->scounts[i] = (int)(ctx->cols * ctx->row_count[i] * n2);
        ctx->rcounts[i] = (int)(ctx->col_count[i] * ctx->rows * n2);
        for (long long c = 0; c < ctx->cols; c++) {
            memcpy(ctx->sbuf + at, ctx->trans + (c * n0 + ctx->row_start[i]) * n2,
                   (size_t)(ctx->row_count[i] * n2) * elem);
            at += ctx->row_count[i] * n2;
        }
    }
    int rc2 = transpose(ctx, opt, out, opt->record ? out->sendbytes + P : NULL);
    at = 0;
    for (int j = 0; j < P; j++) /* from rank j: its columns x my rows -> [row][column][z] */
        for (long long c = 0; c < ctx->col_count[j]; c++)
            for (long long r = 0; r < ctx->rows; r++, at += n2)
                memcpy(ctx->work + (r * n1 + ctx->col_start[j] + c) * n2, ctx->rbuf + at,
                       (size_t)n2 * elem);
    out->total_s = MPI_Wtime() - t_start;

    int failed = rc != MPI_SUCCESS || rc2 != MPI_SUCCESS, any;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_LOR, ctx->comm);
    if (any)
        return rc != MPI_SUCCESS ? rc : rc2 != MPI_SUCCESS ? rc2 : MPI_ERR_OTHER;
    return MPI_SUCCESS;
}

/* Guarantees: see fft.h. */
int fft_verify(const fft_context *ctx, double *max_relative_error)
{
    const long long n0 = ctx->size.n[0], n1 = ctx->size.n[1], n2 = ctx->size.n[2];
    const long long plane = n1 * n2, total = n0 * plane;
    int P = ctx->P, ok = 1;
    int *counts = NULL, *displs = NULL;
    fftw_complex *all = NULL, *ref = NULL, *out = NULL;
    if (ctx->rank == 0) {
        counts = calloc((size_t)P, sizeof *counts);
        displs = calloc((size_t)P, sizeof *displs);
        all = alloc_complex(total);
        ref = alloc_complex(total);
        out = alloc_complex(total);
        ok = counts && displs && all && ref && out;
        for (int r = 0; ok && r < P; r++) {
            counts[r] = (int)(ctx->row_count[r] * plane);
            displs[r] = (int)(ctx->row_start[r] * plane);
        }
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, ctx->comm);
    double error = -1;
    if (ok) {
        MPI_Gatherv(ctx->work, (int)(ctx->rows * plane), MPI_C_DOUBLE_COMPLEX, all, counts,
                    displs, MPI_C_DOUBLE_COMPLEX, 0, ctx->comm);
        if (ctx->rank == 0) {
            int n[3] = { (int)n0, (int)n1, (int)n2 };
            fftw_plan plan = fftw_plan_dft(ctx->size.dims, n, ref, out, FFTW_FORWARD,
                                           FFTW_ESTIMATE);
            for (long long x = 0; x < n0; x++)
                for (long long y = 0; y < n1; y++)
                    for (long long z = 0; z < n2; z++)
                        fft_input(ctx->seed, x, y, z, ref[(x * n1 + y) * n2 + z]);
            fftw_execute(plan);
            fftw_destroy_plan(plan);
            double diff = 0, scale = 0;
            int not_a_number = 0;
            for (long long i = 0; i < total; i++) {
                double d = hypot(all[i][0] - out[i][0], all[i][1] - out[i][1]);
                double m = hypot(out[i][0], out[i][1]);
                not_a_number |= isnan(d);
                if (d > diff)
                    diff = d;
                if (m > scale)
                    scale = m;
            }
            error = not_a_number ? INFINITY : diff / (scale > 0 ? scale : 1);
        }
        MPI_Bcast(&error, 1, MPI_DOUBLE, 0, ctx->comm);
    }
    free(counts);
    free(displs);
    fftw_free(all);
    fftw_free(ref);
    fftw_free(out);
    *max_relative_error = error;
    return ok ? 0 : -1;
}

/* Guarantees: see fft.h. */
void fft_cleanup(void)
{
    fftw_cleanup();
}

#else /* FFTW is not built in: no transform can be set up */

/* Guarantees: -1 with the message that FFTW is not built in; ctx is left empty. */
int fft_setup(const fft_size *size, MPI_Comm comm, uint64_t seed, fft_context *ctx, char *err,
              size_t errlen)
{
    (void)size, (void)comm, (void)seed;
    memset(ctx, 0, sizeof *ctx);
    snprintf(err, errlen, "FFTW is not built in (a2atune was built with FFTW=no or without FFTW 3)");
    return -1;
}

/* Guarantees: ctx is left empty (fft_setup made nothing). */
void fft_free(fft_context *ctx)
{
    memset(ctx, 0, sizeof *ctx);
}

/* Guarantees: MPI_ERR_OTHER: there is no transform without FFTW. */
int fft_forward(fft_context *ctx, const fft_options *opt, fft_outcome *out)
{
    (void)ctx, (void)opt, (void)out;
    return MPI_ERR_OTHER;
}

/* Guarantees: -1: there is nothing to verify without FFTW. */
int fft_verify(const fft_context *ctx, double *max_relative_error)
{
    (void)ctx;
    *max_relative_error = -1;
    return -1;
}

/* Guarantees: nothing to release without FFTW. */
void fft_cleanup(void)
{
}
#endif /* A2A_HAVE_FFTW */
