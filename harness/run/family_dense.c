/* family_dense.c — the dense families (alltoall, alltoallv, in-place) and their
 * shared-window variants (alloc = shared): buffers laid out from the workload, a poisoned
 * receive buffer with a guard tail, the MPI library's collective as the reference. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "a2a_hint.h"
#include "family.h"

#define GUARD_BYTES 64 /* poisoned tail after every receive buffer: catches overruns */

/* Buffers and layout of one configuration on one rank. */
typedef struct workload {
    MPI_Datatype type;
    int type_bytes;
    int *scounts, *sdispls, *rcounts, *rdispls; /* in elements */
    size_t sbytes, rbytes;                      /* buffer sizes, guard included for r */
    unsigned char *sbuf, *pristine, *rbuf, *vendor, *expected;
    void *shared; /* alloc = shared: the A2A_Hint_alloc segment holding sbuf and rbuf */
    int sim_shared; /* SimGrid above the validation limit: sbuf and rbuf in SMPI shared
                       memory (one physical copy for all ranks, contents meaningless) */
} workload;

#ifdef A2A_SIMGRID
/* SimGrid above the validation limit (family_sim_unvalidated): every rank's send and
 * receive buffers are SMPI shared memory and the vendor reference is not called. */
#define SIM_SHARED_MALLOC(n) SMPI_SHARED_MALLOC(n)
#define SIM_SHARED_FREE(p) SMPI_SHARED_FREE(p)
#else
#define SIM_SHARED_MALLOC(n) malloc(n)
#define SIM_SHARED_FREE(p) free(p)
#endif

/* The poison value of byte i: never a constant run, so a shifted copy shows. */
static unsigned char poison_byte(size_t i)
{
    return (unsigned char)(0xA5 ^ (i * 29));
}

/* Fills buf[0..n) with the poison pattern. */
static void poison(unsigned char *buf, size_t n)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = poison_byte(i);
}

/* Releases everything of w (NULL accepted); collective when the buffers are shared. */
static void free_dense(void *state)
{
    workload *w = state;
    if (!w)
        return;
    free(w->scounts);
    free(w->sdispls);
    free(w->rcounts);
    free(w->rdispls);
    if (w->shared) { /* collective: every rank of the configuration gets here */
        A2A_Hint_free(w->shared);
    } else if (w->sim_shared) {
        SIM_SHARED_FREE(w->sbuf);
        SIM_SHARED_FREE(w->rbuf);
    } else {
        free(w->sbuf);
        free(w->rbuf);
    }
    free(w->pristine);
    free(w->vendor);
    free(w->expected);
    free(w);
}

/* Lays out blocks one after another with `gap` free elements after each; fails (-1)
 * when a displacement would not fit in an int. */
static int lay_out(const int *counts, int P, int gap, int *displs, long long *total)
{
    long long at = 0;
    for (int j = 0; j < P; j++) {
        if (at > 2147483647LL)
            return -1;
        displs[j] = (int)at;
        at += counts[j] + gap;
    }
    *total = at;
    return at > 2147483647LL ? -1 : 0;
}

/* Bytes of the block from rank `from` to rank `to`; symmetric: the pair's size both ways. */
static long long block_bytes(const wl_spec *spec, int symmetric, int from, int to)
{
    if (symmetric)
        return wl_block_bytes(spec, from < to ? from : to, from < to ? to : from);
    return wl_block_bytes(spec, from, to);
}

/* Sets the element counts of this rank's blocks (symmetric: in-place, the pair's size both
 * ways) and load's byte totals; -1 with a message when a block exceeds an int count. */
static int set_counts(const wl_spec *spec, int symmetric, int rank, workload *w,
                      family_load *load, char *msg, size_t len)
{
    for (int j = 0; j < spec->P; j++) {
        long long out = block_bytes(spec, symmetric, rank, j);
        long long in = block_bytes(spec, symmetric, j, rank);
        if (out / w->type_bytes > 2147483647LL || in / w->type_bytes > 2147483647LL) {
            snprintf(msg, len, "a block exceeds 2^31 elements (MPI int counts)");
            return -1;
        }
    }
    for (int j = 0; j < spec->P; j++) {
        w->scounts[j] = (int)(block_bytes(spec, symmetric, rank, j) / w->type_bytes);
        w->rcounts[j] = (int)(block_bytes(spec, symmetric, j, rank) / w->type_bytes);
        if (j != rank)
            load->sent += (long long)w->scounts[j] * w->type_bytes;
        load->arrived += (long long)w->rcounts[j] * w->type_bytes;
    }
    return 0;
}

/* Allocates w's payload buffers and fills the send buffer, its pristine copy and the
 * expected receive buffer (poison where no block lands); SimGrid above the validation
 * limit: shared send and receive buffers only. -1 when memory runs out. */
static int fill_buffers(const config *c, const wl_spec *spec, int rank, workload *w)
{
    if (family_sim_unvalidated(c->P) && c->alloc != SWEEP_ALLOC_SHARED) {
        /* simulation above the validation limit: no payloads, no reference */
        w->sim_shared = 1;
        w->sbuf = SIM_SHARED_MALLOC(w->sbytes ? w->sbytes : 1);
        w->rbuf = SIM_SHARED_MALLOC(w->rbytes);
        return w->sbuf && w->rbuf ? 0 : -1;
    }
    w->sbuf = malloc(w->sbytes ? w->sbytes : 1);
    w->pristine = malloc(w->sbytes ? w->sbytes : 1);
    w->rbuf = malloc(w->rbytes);
    w->vendor = malloc(w->rbytes);
    w->expected = malloc(w->rbytes);
    if (!w->sbuf || !w->pristine || !w->rbuf || !w->vendor || !w->expected)
        return -1;
    poison(w->sbuf, w->sbytes);
    poison(w->expected, w->rbytes);
    for (int j = 0; j < c->P; j++) {
        wl_fill_payload(spec, rank, j, 0, w->sbuf + (size_t)w->sdispls[j] * w->type_bytes,
                        (long long)w->scounts[j] * w->type_bytes);
        wl_fill_payload(spec, j, rank, 0, w->expected + (size_t)w->rdispls[j] * w->type_bytes,
                        (long long)w->rcounts[j] * w->type_bytes);
    }
    memcpy(w->pristine, w->sbuf, w->sbytes);
    return 0;
}

/* Builds the buffers of c for this rank into w (zeroed by the caller); returns 0, or -1
 * with a message. Block sizes and payloads come from the seed, never the clock. */
static int build_workload(const config *c, int rank, int symmetric, workload *w,
                          family_load *load, char *msg, size_t len)
{
    int P = c->P;
    w->type = sweep_datatype(c->datatype);
    MPI_Type_size(w->type, &w->type_bytes);
    wl_spec spec = { c->dist, c->payload, c->S, P, c->seed, c->dist_params };
    long long *matrix = NULL;
    if (c->dist == WL_DIST_MATRIX) {
        if (wl_load_matrix(c->matrix_path, P, &matrix, msg, len) != 0)
            return -1;
        spec.params.matrix = matrix;
    }
    int rc = -1;
    w->scounts = calloc((size_t)P, sizeof(int));
    w->sdispls = calloc((size_t)P, sizeof(int));
    w->rcounts = calloc((size_t)P, sizeof(int));
    w->rdispls = calloc((size_t)P, sizeof(int));
    long long stotal, rtotal;
    if (!w->scounts || !w->sdispls || !w->rcounts || !w->rdispls) {
        snprintf(msg, len, "out of memory building the workload");
    } else if (set_counts(&spec, symmetric, rank, w, load, msg, len) == 0) {
        if (lay_out(w->scounts, P, c->gap, w->sdispls, &stotal) ||
            lay_out(w->rcounts, P, c->gap, w->rdispls, &rtotal)) {
            snprintf(msg, len, "buffers exceed 2^31 elements (MPI int displacements)");
        } else {
            w->sbytes = (size_t)stotal * (size_t)w->type_bytes;
            w->rbytes = (size_t)rtotal * (size_t)w->type_bytes + GUARD_BYTES;
            rc = fill_buffers(c, &spec, rank, w);
            if (rc != 0 && !w->sim_shared)
                snprintf(msg, len, "out of memory building the workload");
        }
    }
    free(matrix);
    return rc;
}

/* alloc = shared: moves this rank's send and receive buffers into one A2A_Hint_alloc window
 * over comm's node (send first, the receive buffer at the next 64-byte boundary), the send
 * data copied. Collective over comm. Returns CHECK_OK, or CHECK_ERROR with a message (the
 * private buffers then stay). */
static int share_buffers(workload *w, MPI_Comm comm, char *msg, size_t len)
{
    size_t send_span = (w->sbytes + 63) / 64 * 64;
    void *segment = NULL;
    int rc = A2A_Hint_alloc(comm, (MPI_Aint)(send_span + w->rbytes), &segment);
    if (rc != MPI_SUCCESS) {
        char text[MPI_MAX_ERROR_STRING];
        int n = 0;
        MPI_Error_string(rc, text, &n);
        snprintf(msg, len, "alloc = shared: A2A_Hint_alloc of %zu bytes failed: %.300s",
                 send_span + w->rbytes, text);
        return CHECK_ERROR;
    }
    unsigned char *sbuf = segment, *rbuf = (unsigned char *)segment + send_span;
    memcpy(sbuf, w->sbuf, w->sbytes);
    free(w->sbuf);
    free(w->rbuf);
    w->sbuf = sbuf;
    w->rbuf = rbuf;
    w->shared = segment;
    return CHECK_OK;
}

/* The build of every dense table: the workload (in-place blocks symmetric: the pair's
 * size both ways), agreed over comm, then with `shared` the buffers moved into a node
 * window, agreed again. */
static int build_dense(const config *c, MPI_Comm comm, int shared, family_load *load,
                       char *msg, size_t len)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    workload *w = calloc(1, sizeof *w);
    load->state = w;
    int status = CHECK_ERROR, symmetric = c->kernel->family == A2A_FAMILY_INPLACE;
    if (!w)
        snprintf(msg, len, "out of memory building the workload");
    else if (build_workload(c, rank, symmetric, w, load, msg, len) == 0)
        status = CHECK_OK;
    status = family_agree(status, msg, len, comm);
    if (status == CHECK_OK && shared)
        status = family_agree(share_buffers(w, comm, msg, len), msg, len, comm);
    load->unvalidated = status == CHECK_OK && w->sim_shared;
    load->unvalidated_why = "payloads in SMPI shared memory";
    return status;
}

/* build of the dense tables: private buffers (SMPI shared ones above the validation limit). */
static int build_private(const config *c, MPI_Comm comm, family_load *load, char *msg, size_t len)
{
    return build_dense(c, comm, 0, load, msg, len);
}

/* build of the shared-window tables (alloc = shared): buffers in an A2A_Hint_alloc window. */
static int build_shared(const config *c, MPI_Comm comm, family_load *load, char *msg, size_t len)
{
    return build_dense(c, comm, 1, load, msg, len);
}

/* Poisons the kernel's and the reference's receive buffers, guard tails included. */
static void poison_receivers(workload *w)
{
    poison(w->rbuf, w->rbytes);
    poison(w->vendor, w->rbytes);
}

/* call of alltoall: the kernel on the uniform block count. */
static int call_alltoall(const config *c, void *state, MPI_Comm comm, a2a_stats *stats)
{
    workload *w = state;
    int count = w->scounts[0];
    return c->kernel->call.uniform(w->sbuf, count, w->type, w->rbuf, count, w->type, comm,
                                   c->params, stats);
}

/* call_reference of alltoall: MPI_Alltoall into the poisoned reference buffer. */
static int reference_alltoall(const config *c, void *state, MPI_Comm comm)
{
    (void)c;
    workload *w = state;
    poison_receivers(w);
    int count = w->scounts[0];
    return MPI_Alltoall(w->sbuf, count, w->type, w->vendor, count, w->type, comm);
}

/* call of alltoallv. */
static int call_alltoallv(const config *c, void *state, MPI_Comm comm, a2a_stats *stats)
{
    workload *w = state;
    return c->kernel->call.nonuniform(w->sbuf, w->scounts, w->sdispls, w->type, w->rbuf,
                                      w->rcounts, w->rdispls, w->type, comm, c->params, stats);
}

/* call_reference of alltoallv: MPI_Alltoallv into the poisoned reference buffer. */
static int reference_alltoallv(const config *c, void *state, MPI_Comm comm)
{
    (void)c;
    workload *w = state;
    poison_receivers(w);
    return MPI_Alltoallv(w->sbuf, w->scounts, w->sdispls, w->type, w->vendor, w->rcounts,
                         w->rdispls, w->type, comm);
}

/* call of in-place: the data travel in the receive buffer itself. */
static int call_inplace(const config *c, void *state, MPI_Comm comm, a2a_stats *stats)
{
    workload *w = state;
    return c->kernel->call.inplace(w->rbuf, w->rcounts, w->rdispls, w->type, comm, c->params,
                                   stats);
}

/* call_reference of in-place: both receive buffers poisoned, then given the send data
 * (same layout both ways: symmetric), then MPI_Alltoallv(MPI_IN_PLACE) on the reference. */
static int reference_inplace(const config *c, void *state, MPI_Comm comm)
{
    (void)c;
    workload *w = state;
    poison_receivers(w);
    memcpy(w->rbuf, w->sbuf, w->sbytes);
    memcpy(w->vendor, w->sbuf, w->sbytes);
    return MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, w->vendor, w->rcounts,
                         w->rdispls, w->type, comm);
}

/* Index of the first differing byte of a and b, or -1. */
static long long first_difference(const unsigned char *a, const unsigned char *b, size_t n)
{
    if (memcmp(a, b, n) == 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return (long long)i;
    return -1;
}

/* Describes where byte `at` of this rank's receive buffer lies. */
static void describe_offset(const config *c, const workload *w, int rank, long long at,
                            const unsigned char *got, const unsigned char *want, const char *what,
                            char *msg, size_t len)
{
    long long element = at / w->type_bytes;
    int src = -1;
    for (int j = 0; j < c->P; j++)
        if (element >= w->rdispls[j] && element < (long long)w->rdispls[j] + w->rcounts[j])
            src = j;
    if (src >= 0)
        snprintf(msg, len, "rank %d: %s byte %lld (block from rank %d, byte %lld): got 0x%02x, "
                 "expected 0x%02x", rank, what, at, src,
                 at - (long long)w->rdispls[src] * w->type_bytes, got[at], want[at]);
    else
        snprintf(msg, len, "rank %d: %s byte %lld outside every block (gap or guard) was "
                 "written: 0x%02x instead of the poison 0x%02x", rank, what, at, got[at], want[at]);
}

/* check of the dense families: the send buffer untouched; right after the reference the
 * reference equal to the expected data and the receive buffer (gaps and guard included)
 * byte for byte equal to the reference; after the timed calls equal to the expected data. */
static int check_dense(const config *c, void *state, int rank, int after_timing,
                       long long calls, char *msg, size_t len)
{
    (void)calls;
    const workload *w = state;
    long long at;
    if ((at = first_difference(w->pristine, w->sbuf, w->sbytes)) >= 0) {
        snprintf(msg, len, "rank %d: the kernel wrote to its send buffer (byte %lld)", rank, at);
        return CHECK_WRONG;
    }
    if (!after_timing && (at = first_difference(w->vendor, w->expected, w->rbytes)) >= 0) {
        describe_offset(c, w, rank, at, w->vendor, w->expected, "vendor result", msg, len);
        return CHECK_ERROR; /* the reference itself disagrees with the workload */
    }
    const unsigned char *reference = after_timing ? w->expected : w->vendor;
    if ((at = first_difference(w->rbuf, reference, w->rbytes)) >= 0) {
        describe_offset(c, w, rank, at, w->rbuf, reference, "receive", msg, len);
        return CHECK_WRONG;
    }
    return CHECK_OK;
}

/* check of in-place: as check_dense, except that after an even number of exchanges every
 * block is back home, so the expected data are the send data. */
static int check_inplace(const config *c, void *state, int rank, int after_timing,
                         long long calls, char *msg, size_t len)
{
    workload *w = state;
    if (after_timing && calls % 2 == 0)
        memcpy(w->expected, w->sbuf, w->sbytes);
    return check_dense(c, state, rank, after_timing, calls, msg, len);
}

/* The dense tables, [family][alloc = shared]. */
static const family_ops dense_tables[3][2] = {
    { { "the vendor collective", build_private, call_alltoall, reference_alltoall, NULL,
        check_dense, free_dense },
      { "the vendor collective", build_shared, call_alltoall, reference_alltoall, NULL,
        check_dense, free_dense } },
    { { "the vendor collective", build_private, call_alltoallv, reference_alltoallv, NULL,
        check_dense, free_dense },
      { "the vendor collective", build_shared, call_alltoallv, reference_alltoallv, NULL,
        check_dense, free_dense } },
    { { "the vendor collective", build_private, call_inplace, reference_inplace,
        NULL, check_inplace, free_dense },
      { "the vendor collective", build_shared, call_inplace, reference_inplace,
        NULL, check_inplace, free_dense } },
};

/* The table of a dense family (uniform, nonuniform, in-place) under c's buffer placement. */
const family_ops *family_dense_ops(const config *c)
{
    int shared = c->alloc == SWEEP_ALLOC_SHARED;
    switch (c->kernel->family) {
    case A2A_FAMILY_UNIFORM:
        return &dense_tables[0][shared];
    case A2A_FAMILY_NONUNIFORM:
        return &dense_tables[1][shared];
    default:
        return &dense_tables[2][shared];
    }
}
