/* family_sparse.c — the sparse dynamic data exchange families (sdde: constant size, sddev:
 * variable size): the send side from the configuration's pattern, the family's
 * `reference` algorithm as the reference, compared by sources, counts and values. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "family.h"
#include "sparse.h"

/* What one crs call returned; every array malloc'ed by the kernel (or NULL). */
typedef struct crs_result {
    int nnz, size;
    int *src, *counts, *displs;
    void *vals;
} crs_result;

/* One rank's sparse exchange: the send side, the reference's result and the newest call's. */
typedef struct crs_state {
    int constant;         /* sdde: one int per destination; sddev: the pattern's columns */
    sp_sends sends;
    int *vals, *pristine; /* the send values and their untouched copy */
    int nvals;
    const a2a_kernel *reference;
    crs_result want, got;
} crs_state;

/* Frees what r holds and empties it. */
static void crs_free(crs_result *r)
{
    free(r->src);
    free(r->counts);
    free(r->displs);
    free(r->vals);
    memset(r, 0, sizeof *r);
}

/* Calls kernel k on the send side into *out (emptied first: the algorithm finds nnz and
 * size); an MPI error code. */
static int crs_call(const config *c, const a2a_kernel *k, const crs_state *s, MPI_Comm comm,
                    crs_result *out, a2a_stats *stats)
{
    memset(out, 0, sizeof *out);
    out->nnz = out->size = -1; /* unknown: the algorithm finds them */
    const sp_sends *p = &s->sends;
    if (s->constant)
        return k->call.sdde(p->nnz, p->dest, 1, MPI_INT, s->vals, &out->nnz, &out->src, 1,
                            MPI_INT, &out->vals, comm, c->params, stats);
    return k->call.sddev(p->nnz, p->size, p->dest, p->counts, p->displs, MPI_INT, s->vals,
                         &out->nnz, &out->size, &out->src, &out->counts, &out->displs, MPI_INT,
                         &out->vals, comm, c->params, stats);
}

/* Fills the send values: constant, one value per destination from the seed; variable, the
 * pattern's columns; zero payloads leave them 0. 0, or -1 when memory runs out. */
static int fill_values(const config *c, int rank, crs_state *s)
{
    s->nvals = s->constant ? s->sends.nnz : s->sends.size;
    s->vals = calloc((size_t)s->nvals + 1, sizeof(int));
    s->pristine = calloc((size_t)s->nvals + 1, sizeof(int));
    if (!s->vals || !s->pristine)
        return -1;
    for (int i = 0; i < s->nvals && c->payload != WL_PAYLOAD_ZERO; i++)
        s->vals[i] = s->constant ? (int)(wl_mix64(c->seed ^ ((uint64_t)rank << 32 | (uint32_t)s->sends.dest[i])) & 0x7fffffff)
                                 : s->sends.cols[i];
    memcpy(s->pristine, s->vals, (size_t)s->nvals * sizeof(int));
    return 0;
}

/* The build of both sparse tables: the pattern parsed and built for this rank, the send
 * values filled; agreed over comm. */
static int build_crs(const config *c, MPI_Comm comm, int constant, family_load *load,
                     char *msg, size_t len)
{
    int rank, P;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &P);
    crs_state *s = calloc(1, sizeof *s);
    load->state = s;
    int status = CHECK_ERROR;
    sp_spec spec;
    if (!s) {
        snprintf(msg, len, "out of memory building the workload");
    } else if (sp_spec_parse(c->pattern, c->seed, &spec, msg, len) == 0 &&
               sp_pattern_build(&spec, P, rank, &s->sends, msg, len) == 0) {
        s->constant = constant;
        s->reference = a2a_find_kernel(c->kernel->family, "reference");
        if (fill_values(c, rank, s) == 0)
            status = CHECK_OK;
        else
            snprintf(msg, len, "out of memory building the workload");
        load->sent = load->arrived = (long long)s->nvals * (long long)sizeof(int);
    }
    status = family_agree(status, msg, len, comm);
    /* above SimGrid's validation limit the reference (a dense MPI_Alltoall and
     * MPI_Alltoallv: P^2 messages) is not called; the payloads stay real */
    load->unvalidated = status == CHECK_OK && family_sim_unvalidated(P);
    load->unvalidated_why = "the dense reference not called";
    return status;
}

/* build of sdde. */
static int build_sdde(const config *c, MPI_Comm comm, family_load *load, char *msg, size_t len)
{
    return build_crs(c, comm, 1, load, msg, len);
}

/* build of sddev. */
static int build_sddev(const config *c, MPI_Comm comm, family_load *load, char *msg, size_t len)
{
    return build_crs(c, comm, 0, load, msg, len);
}

/* call of both sparse tables: the kernel into the state's newest result. */
static int call_crs(const config *c, void *state, MPI_Comm comm, a2a_stats *stats)
{
    crs_state *s = state;
    return crs_call(c, c->kernel, s, comm, &s->got, stats);
}

/* call_reference of both sparse tables: the family's reference algorithm. */
static int reference_crs(const config *c, void *state, MPI_Comm comm)
{
    crs_state *s = state;
    return crs_call(c, s->reference, s, comm, &s->want, NULL);
}

/* discard of both sparse tables: the newest result freed. */
static void discard_crs(void *state)
{
    crs_free(&((crs_state *)state)->got);
}

/* CHECK_OK if got equals want (sources, counts, values), else CHECK_WRONG + message. */
static int crs_compare(const crs_state *s, int rank, char *msg, size_t len)
{
    const crs_result *got = &s->got, *want = &s->want;
    if (got->nnz != want->nnz) {
        snprintf(msg, len, "rank %d: %d messages received, the reference received %d", rank,
                 got->nnz, want->nnz);
        return CHECK_WRONG;
    }
    for (int i = 0; i < want->nnz; i++) {
        if (got->src[i] != want->src[i]) {
            snprintf(msg, len, "rank %d: message %d comes from rank %d, the reference's from %d",
                     rank, i, got->src[i], want->src[i]);
            return CHECK_WRONG;
        }
        int n = s->constant ? 1 : want->counts[i];
        const int *g = (const int *)got->vals + (s->constant ? i : got->displs[i]);
        const int *w = (const int *)want->vals + (s->constant ? i : want->displs[i]);
        if (!s->constant && got->counts[i] != n) {
            snprintf(msg, len, "rank %d: message from rank %d has %d values, the reference %d",
                     rank, want->src[i], got->counts[i], n);
            return CHECK_WRONG;
        }
        if (n > 0 && memcmp(g, w, (size_t)n * sizeof(int)) != 0) {
            snprintf(msg, len, "rank %d: the values of the message from rank %d differ from the "
                     "reference's", rank, want->src[i]);
            return CHECK_WRONG;
        }
    }
    return CHECK_OK;
}

/* check of both sparse tables: the newest result equal to the reference's; right after
 * the reference also the send values untouched. */
static int check_crs(const config *c, void *state, int rank, int after_timing,
                     long long calls, char *msg, size_t len)
{
    (void)c;
    (void)calls;
    const crs_state *s = state;
    int status = crs_compare(s, rank, msg, len);
    if (status == CHECK_OK && !after_timing &&
        memcmp(s->vals, s->pristine, (size_t)s->nvals * sizeof(int))) {
        snprintf(msg, len, "rank %d: the kernel wrote to its send values", rank);
        status = CHECK_WRONG;
    }
    return status;
}

/* free of both sparse tables (NULL accepted). */
static void free_crs(void *state)
{
    crs_state *s = state;
    if (!s)
        return;
    crs_free(&s->want);
    crs_free(&s->got);
    free(s->vals);
    free(s->pristine);
    sp_sends_free(&s->sends);
    free(s);
}

static const family_ops sdde_ops = { "the reference", build_sdde, call_crs, reference_crs,
                                     discard_crs, check_crs, free_crs };
static const family_ops sddev_ops = { "the reference", build_sddev, call_crs, reference_crs,
                                      discard_crs, check_crs, free_crs };

/* The table of a sparse family: sdde, else sddev. */
const family_ops *family_sparse_ops(const config *c)
{
    return c->kernel->family == A2A_FAMILY_SDDE ? &sdde_ops : &sddev_ops;
}
