/* runner.c — validating and timing one configuration (see runner.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "polite.h"
#include "runner.h"
#include "sparse.h"

#define GUARD_BYTES 64 /* poisoned tail after every receive buffer: catches overruns */

enum { CHECK_OK = 0, CHECK_WRONG = 1, CHECK_ERROR = 2 };

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
/* The largest P whose payloads are real and compared byte for byte under SimGrid
 * (A2A_SIM_VALIDATE_UP_TO, set by `scripts/a2a simulate`; default 64). Above it every
 * rank's send and receive buffers are SMPI shared memory, the vendor reference is not
 * called and the row says validated = 0. */
static int sim_payloads_shared(int P)
{
    const char *limit = getenv("A2A_SIM_VALIDATE_UP_TO");
    return P > (limit && *limit ? atoi(limit) : 64);
}
#define SIM_SHARED_MALLOC(n) SMPI_SHARED_MALLOC(n)
#define SIM_SHARED_FREE(p) SMPI_SHARED_FREE(p)
#else
static int sim_payloads_shared(int P)
{
    (void)P;
    return 0;
}
#define SIM_SHARED_MALLOC(n) malloc(n)
#define SIM_SHARED_FREE(p) free(p)
#endif

static unsigned char poison_byte(size_t i)
{
    return (unsigned char)(0xA5 ^ (i * 29));
}

static void poison(unsigned char *buf, size_t n)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = poison_byte(i);
}

static void free_workload(workload *w)
{
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

/* Builds the buffers of c for this rank; returns 0, or -1 with a message. */
static int build_workload(const config *c, int rank, workload *w, char *msg, size_t len)
{
    int P = c->P;
    memset(w, 0, sizeof *w);
    w->type = sweep_datatype(c->datatype);
    MPI_Type_size(w->type, &w->type_bytes);
    wl_spec spec = { c->dist, c->payload, c->S, P, c->seed, c->dist_params };
    long long *matrix = NULL;
    if (c->dist == WL_DIST_MATRIX) {
        if (wl_load_matrix(c->matrix_path, P, &matrix, msg, len) != 0)
            return -1;
        spec.params.matrix = matrix;
    }
    w->scounts = calloc((size_t)P, sizeof(int));
    w->sdispls = calloc((size_t)P, sizeof(int));
    w->rcounts = calloc((size_t)P, sizeof(int));
    w->rdispls = calloc((size_t)P, sizeof(int));
    if (!w->scounts || !w->sdispls || !w->rcounts || !w->rdispls)
        goto nomem;
    for (int j = 0; j < P; j++) {
        long long out = wl_block_bytes(&spec, rank, j), in = wl_block_bytes(&spec, j, rank);
        if (c->kernel->family == A2A_FAMILY_INPLACE)
            out = in = wl_block_bytes(&spec, rank < j ? rank : j, rank < j ? j : rank);
        if (out / w->type_bytes > 2147483647LL || in / w->type_bytes > 2147483647LL) {
            free(matrix);
            snprintf(msg, len, "a block exceeds 2^31 elements (MPI int counts)");
            return -1;
        }
    }
    for (int j = 0; j < P; j++) {
        if (c->kernel->family == A2A_FAMILY_INPLACE) { /* symmetric: size of the pair */
            int lo = rank < j ? rank : j, hi = rank < j ? j : rank;
            w->scounts[j] = w->rcounts[j] = (int)(wl_block_bytes(&spec, lo, hi) / w->type_bytes);
            continue;
        }
        w->scounts[j] = (int)(wl_block_bytes(&spec, rank, j) / w->type_bytes);
        w->rcounts[j] = (int)(wl_block_bytes(&spec, j, rank) / w->type_bytes);
    }
    long long stotal, rtotal;
    if (lay_out(w->scounts, P, c->gap, w->sdispls, &stotal) ||
        lay_out(w->rcounts, P, c->gap, w->rdispls, &rtotal)) {
        free(matrix);
        snprintf(msg, len, "buffers exceed 2^31 elements (MPI int displacements)");
        return -1;
    }
    w->sbytes = (size_t)stotal * (size_t)w->type_bytes;
    w->rbytes = (size_t)rtotal * (size_t)w->type_bytes + GUARD_BYTES;
    if (sim_payloads_shared(P) && c->alloc != SWEEP_ALLOC_SHARED) {
        /* simulation above the validation limit: no payloads, no reference */
        w->sim_shared = 1;
        w->sbuf = SIM_SHARED_MALLOC(w->sbytes ? w->sbytes : 1);
        w->rbuf = SIM_SHARED_MALLOC(w->rbytes);
        free(matrix);
        return w->sbuf && w->rbuf ? 0 : -1;
    }
    w->sbuf = malloc(w->sbytes ? w->sbytes : 1);
    w->pristine = malloc(w->sbytes ? w->sbytes : 1);
    w->rbuf = malloc(w->rbytes);
    w->vendor = malloc(w->rbytes);
    w->expected = malloc(w->rbytes);
    if (!w->sbuf || !w->pristine || !w->rbuf || !w->vendor || !w->expected)
        goto nomem;
    poison(w->sbuf, w->sbytes);
    poison(w->expected, w->rbytes);
    for (int j = 0; j < P; j++) {
        wl_fill_payload(&spec, rank, j, 0, w->sbuf + (size_t)w->sdispls[j] * w->type_bytes,
                        (long long)w->scounts[j] * w->type_bytes);
        wl_fill_payload(&spec, j, rank, 0, w->expected + (size_t)w->rdispls[j] * w->type_bytes,
                        (long long)w->rcounts[j] * w->type_bytes);
    }
    memcpy(w->pristine, w->sbuf, w->sbytes);
    free(matrix);
    return 0;
nomem:
    free(matrix);
    snprintf(msg, len, "out of memory building the workload");
    return -1;
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

/* One call of c's kernel (or of the vendor collective when vendor is set). */
static int call_kernel(const config *c, const workload *w, int vendor, void *rbuf, MPI_Comm comm,
                       a2a_stats *stats)
{
    if (c->kernel->family == A2A_FAMILY_INPLACE) { /* the data travel in rbuf itself */
        if (vendor)
            return MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, rbuf, w->rcounts,
                                 w->rdispls, w->type, comm);
        return c->kernel->call.inplace(rbuf, w->rcounts, w->rdispls, w->type, comm, c->params,
                                       stats);
    }
    if (c->kernel->family == A2A_FAMILY_UNIFORM) {
        int count = w->scounts[0];
        if (vendor)
            return MPI_Alltoall(w->sbuf, count, w->type, rbuf, count, w->type, comm);
        return c->kernel->call.uniform(w->sbuf, count, w->type, rbuf, count, w->type, comm,
                                       c->params, stats);
    }
    if (vendor)
        return MPI_Alltoallv(w->sbuf, w->scounts, w->sdispls, w->type, rbuf, w->rcounts,
                             w->rdispls, w->type, comm);
    return c->kernel->call.nonuniform(w->sbuf, w->scounts, w->sdispls, w->type, rbuf, w->rcounts,
                                      w->rdispls, w->type, comm, c->params, stats);
}

/* A kernel call as count_calls wants it. */
typedef struct counted_call {
    const config *c;
    const workload *w;
    MPI_Comm comm;
    int rc;
} counted_call;

static int call_counted(void *arg)
{
    counted_call *cc = arg;
    int rc = call_kernel(cc->c, cc->w, 0, cc->w->rbuf, cc->comm, NULL);
    if (rc != MPI_SUCCESS)
        cc->rc = rc;
    return rc;
}

/* iterations = auto: warm-up calls in doubling batches until at least c->warmup calls and a
 * tenth of c->time_budget have passed on the slowest rank's clock, then as many timed calls
 * as the budget holds at the last batch's time per call, within SWEEP_AUTO_MIN_ITERATIONS ..
 * SWEEP_AUTO_MAX_ITERATIONS. Every rank of comm returns the same count and *warmup_done;
 * 0 when a call failed on some rank (the failing call's code is in its argument's rc). */
static int choose_iterations(const config *c, MPI_Comm comm, int (*call)(void *), void *arg,
                             int *warmup_done)
{
    double spent = 0, per_call = 0;
    int done = 0;
    for (long batch = 1;; batch *= 2) {
        MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        int failed = 0;
        for (long i = 0; i < batch && !failed; i++)
            failed = call(arg) != MPI_SUCCESS;
        double mine[2] = { MPI_Wtime() - t0, failed }, most[2];
        MPI_Allreduce(mine, most, 2, MPI_DOUBLE, MPI_MAX, comm);
        done += (int)batch;
        spent += most[0];
        per_call = most[0] / (double)batch;
        if (most[1] != 0) {
            *warmup_done = done;
            return 0;
        }
        if (done >= c->warmup && spent >= c->time_budget / 10)
            break;
    }
    *warmup_done = done;
    double n = per_call > 0 ? c->time_budget / per_call : SWEEP_AUTO_MAX_ITERATIONS;
    if (n < SWEEP_AUTO_MIN_ITERATIONS)
        n = SWEEP_AUTO_MIN_ITERATIONS;
    if (n > SWEEP_AUTO_MAX_ITERATIONS)
        n = SWEEP_AUTO_MAX_ITERATIONS;
    return (int)n;
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

/* Compares this rank's buffers after a call; returns CHECK_* with a message. */
static int check_buffers(const config *c, const workload *w, int rank, int against_vendor,
                         char *msg, size_t len)
{
    long long at;
    if ((at = first_difference(w->pristine, w->sbuf, w->sbytes)) >= 0) {
        snprintf(msg, len, "rank %d: the kernel wrote to its send buffer (byte %lld)", rank, at);
        return CHECK_WRONG;
    }
    if (against_vendor && (at = first_difference(w->vendor, w->expected, w->rbytes)) >= 0) {
        describe_offset(c, w, rank, at, w->vendor, w->expected, "vendor result", msg, len);
        return CHECK_ERROR; /* the reference itself disagrees with the workload */
    }
    const unsigned char *reference = against_vendor ? w->vendor : w->expected;
    if ((at = first_difference(w->rbuf, reference, w->rbytes)) >= 0) {
        describe_offset(c, w, rank, at, w->rbuf, reference, "receive", msg, len);
        return CHECK_WRONG;
    }
    return CHECK_OK;
}

/* Agrees on the worst status over comm and brings the message of the lowest failing
 * rank to rank 0. */
static int agree(int status, char *msg, size_t len, MPI_Comm comm)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    int mine[2] = { status, status ? rank : 1 << 30 }, worst[2];
    polite_allreduce(&mine[0], &worst[0], 1, MPI_INT, MPI_MAX, comm);
    polite_allreduce(&mine[1], &worst[1], 1, MPI_INT, MPI_MIN, comm);
    if (worst[0] != CHECK_OK && worst[1] != 0) {
        if (rank == worst[1])
            MPI_Send(msg, (int)len, MPI_CHAR, 0, 7, comm);
        else if (rank == 0)
            MPI_Recv(msg, (int)len, MPI_CHAR, worst[1], 7, comm, MPI_STATUS_IGNORE);
    }
    return worst[0];
}

static void stats_max(const a2a_stats *mine, a2a_stats *out, MPI_Comm comm)
{
    long long v[8] = { mine->rounds, mine->rounds_local, mine->rounds_global, mine->blocks,
                       mine->bytes, mine->meta_bytes, mine->messages, mine->temp_bytes };
    long long m[8];
    polite_allreduce(v, m, 8, MPI_LONG_LONG, MPI_MAX, comm);
    *out = (a2a_stats){ m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7] };
}

static void mpi_error_text(int code, const char *what, char *msg, size_t len)
{
    char text[MPI_MAX_ERROR_STRING];
    int n = 0;
    if (MPI_Error_string(code, text, &n) != MPI_SUCCESS)
        snprintf(text, sizeof text, "code %d", code);
    snprintf(msg, len, "%.100s returned an MPI error: %.300s", what, text);
}

/* ---- sparse dynamic data exchange (families sdde and sddev) ---------------------- */

/* What one crs call returned; every array malloc'ed by the kernel (or NULL). */
typedef struct crs_result {
    int nnz, size;
    int *src, *counts, *displs;
    void *vals;
} crs_result;

static void crs_free(crs_result *r)
{
    free(r->src);
    free(r->counts);
    free(r->displs);
    free(r->vals);
    memset(r, 0, sizeof *r);
}

/* The send side of one rank, from the configuration's pattern. */
typedef struct crs_sends {
    sp_sends sends;
    int *vals, *pristine; /* constant: one int per destination; variable: the columns */
    int nvals;
} crs_sends;

static int crs_call(const config *c, const a2a_kernel *k, const crs_sends *in, MPI_Comm comm,
                    crs_result *out, a2a_stats *stats)
{
    memset(out, 0, sizeof *out);
    out->nnz = out->size = -1; /* unknown: the algorithm finds them */
    const sp_sends *s = &in->sends;
    if (c->kernel->family == A2A_FAMILY_SDDE)
        return k->call.sdde(s->nnz, s->dest, 1, MPI_INT, in->vals, &out->nnz, &out->src, 1,
                            MPI_INT, &out->vals, comm, c->params, stats);
    return k->call.sddev(s->nnz, s->size, s->dest, s->counts, s->displs, MPI_INT, in->vals,
                         &out->nnz, &out->size, &out->src, &out->counts, &out->displs, MPI_INT,
                         &out->vals, comm, c->params, stats);
}

/* CHECK_OK if got equals want (sources, counts, values), else CHECK_WRONG + message. */
static int crs_compare(const config *c, int rank, const crs_result *got, const crs_result *want,
                       char *msg, size_t len)
{
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
        int n = c->kernel->family == A2A_FAMILY_SDDE ? 1 : want->counts[i];
        const int *g = (const int *)got->vals + (c->kernel->family == A2A_FAMILY_SDDE ? i : got->displs[i]);
        const int *w = (const int *)want->vals + (c->kernel->family == A2A_FAMILY_SDDE ? i : want->displs[i]);
        if (c->kernel->family == A2A_FAMILY_SDDEV && got->counts[i] != n) {
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

/* A sparse kernel call as count_calls wants it: the newest result stays in *got. */
typedef struct counted_crs_call {
    const config *c;
    const crs_sends *in;
    MPI_Comm comm;
    crs_result *got;
    int rc;
} counted_crs_call;

static int crs_call_counted(void *arg)
{
    counted_crs_call *cc = arg;
    crs_free(cc->got);
    int rc = crs_call(cc->c, cc->c->kernel, cc->in, cc->comm, cc->got, NULL);
    if (rc != MPI_SUCCESS)
        cc->rc = rc;
    return rc;
}

/* run_config for the sdde families: validated against the reference algorithm. */
static void run_sparse_config(const config *c, MPI_Comm comm, result_record *out, double *samples)
{
    int rank, P;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &P);
    char msg[512] = "";
    crs_sends in = { 0 };
    sp_spec spec;
    int status = CHECK_OK;
    if (sp_spec_parse(c->pattern, c->seed, &spec, msg, sizeof msg) != 0 ||
        sp_pattern_build(&spec, P, rank, &in.sends, msg, sizeof msg) != 0)
        status = CHECK_ERROR;
    if (status == CHECK_OK) {
        int constant = c->kernel->family == A2A_FAMILY_SDDE;
        in.nvals = constant ? in.sends.nnz : in.sends.size;
        in.vals = calloc((size_t)in.nvals + 1, sizeof(int));
        in.pristine = calloc((size_t)in.nvals + 1, sizeof(int));
        for (int i = 0; i < in.nvals && c->payload != WL_PAYLOAD_ZERO; i++)
            in.vals[i] = constant ? (int)(wl_mix64(c->seed ^ ((uint64_t)rank << 32 | (uint32_t)in.sends.dest[i])) & 0x7fffffff)
                                  : in.sends.cols[i];
        memcpy(in.pristine, in.vals, (size_t)in.nvals * sizeof(int));
    }
    status = agree(status, msg, sizeof msg, comm);

    const a2a_kernel *reference = a2a_find_kernel(c->kernel->family, "reference");
    crs_result want = { 0 }, got = { 0 };
    a2a_stats stats = { 0 };
    if (status == CHECK_OK) {
        int rc = crs_call(c, reference, &in, comm, &want, NULL);
        if (rc != MPI_SUCCESS) {
            mpi_error_text(rc, "the reference", msg, sizeof msg);
            status = CHECK_ERROR;
        }
        rc = crs_call(c, c->kernel, &in, comm, &got, &stats);
        if (rc != MPI_SUCCESS && status == CHECK_OK) {
            mpi_error_text(rc, c->kernel->name, msg, sizeof msg);
            status = CHECK_ERROR;
        }
        if (status == CHECK_OK)
            status = crs_compare(c, rank, &got, &want, msg, sizeof msg);
        if (status == CHECK_OK && memcmp(in.vals, in.pristine, (size_t)in.nvals * sizeof(int))) {
            snprintf(msg, sizeof msg, "rank %d: the kernel wrote to its send values", rank);
            status = CHECK_WRONG;
        }
        crs_free(&got);
        status = agree(status, msg, sizeof msg, comm);
    }
    if (rank == 0) {
        out->status = status == CHECK_OK ? STATUS_OK : status == CHECK_WRONG ? STATUS_WRONG : STATUS_ERROR;
        snprintf(out->message, sizeof out->message, "%s", msg);
    }
    if (status != CHECK_ERROR) {
        stats_max(&stats, &out->stats, comm);
        long long sent = (long long)in.nvals * (long long)sizeof(int), total = 0;
        polite_allreduce(&sent, &total, 1, MPI_LONG_LONG, MPI_SUM, comm);
        if (rank == 0)
            out->bytes_moved = out->bytes_copied = total;
    }
    int rc = MPI_SUCCESS, iterations = c->iterations, warmup = c->warmup;
    if (status == CHECK_OK && iterations == SWEEP_ITERATIONS_AUTO) {
        counted_crs_call calibration = { c, &in, comm, &got, MPI_SUCCESS };
        iterations = choose_iterations(c, comm, crs_call_counted, &calibration, &warmup);
        rc = calibration.rc;
        crs_free(&got);
    } else if (status == CHECK_OK && iterations > 0) {
        for (int i = 0; i < warmup && rc == MPI_SUCCESS; i++) {
            rc = crs_call(c, c->kernel, &in, comm, &got, NULL);
            crs_free(&got);
        }
    }
    out->iterations = iterations > 0 ? iterations : 0;
    out->warmup = warmup;
    if (status == CHECK_OK && (iterations > 0 || rc != MPI_SUCCESS)) {
        for (int i = 0; i < iterations && rc == MPI_SUCCESS; i++) {
            crs_free(&got);
            MPI_Barrier(comm);
            double t0 = MPI_Wtime();
            rc = crs_call(c, c->kernel, &in, comm, &got, NULL);
            double elapsed = MPI_Wtime() - t0, slowest = 0;
            MPI_Reduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
            if (rank == 0)
                samples[i] = slowest;
        }
        if (rc == MPI_SUCCESS && c->counters) {
            /* counted in separate calls after the timed ones; the last result is checked */
            counted_crs_call cc = { c, &in, comm, &got, MPI_SUCCESS };
            count_calls(c->counters, iterations, crs_call_counted, &cc, comm, &out->counted);
            rc = cc.rc;
        }
        if (rc != MPI_SUCCESS) {
            mpi_error_text(rc, c->kernel->name, msg, sizeof msg);
            status = CHECK_ERROR;
        } else {
            status = crs_compare(c, rank, &got, &want, msg, sizeof msg);
        }
        crs_free(&got);
        status = agree(status, msg, sizeof msg, comm);
        if (rank == 0) {
            if (status == CHECK_OK) {
                out->summary = summarize_samples(samples, iterations);
            } else {
                out->status = status == CHECK_WRONG ? STATUS_WRONG : STATUS_ERROR;
                snprintf(out->message, sizeof out->message, "after the timed calls: %.480s", msg);
            }
        }
    }
    crs_free(&want);
    free(in.vals);
    free(in.pristine);
    sp_sends_free(&in.sends);
}

/* Guarantees: see runner.h. */
void run_config(const config *c, MPI_Comm comm, result_record *out, double *samples)
{
    if (c->kernel->family == A2A_FAMILY_SDDE || c->kernel->family == A2A_FAMILY_SDDEV) {
        run_sparse_config(c, comm, out, samples);
        return;
    }
    int rank;
    MPI_Comm_rank(comm, &rank);
    char msg[512] = "";
    workload w;
    int status = build_workload(c, rank, &w, msg, sizeof msg) ? CHECK_ERROR : CHECK_OK;
    status = agree(status, msg, sizeof msg, comm);
    if (status == CHECK_OK && c->alloc == SWEEP_ALLOC_SHARED)
        status = agree(share_buffers(&w, comm, msg, sizeof msg), msg, sizeof msg, comm);

    a2a_stats stats = { 0 };
    if (status == CHECK_OK && w.sim_shared) { /* one untimed call, nothing compared */
        int rc = call_kernel(c, &w, 0, w.rbuf, comm, &stats);
        if (rc != MPI_SUCCESS)
            mpi_error_text(rc, c->kernel->name, msg, sizeof msg);
        status = agree(rc == MPI_SUCCESS ? CHECK_OK : CHECK_ERROR, msg, sizeof msg, comm);
        out->unvalidated = 1;
        if (status == CHECK_OK)
            snprintf(msg, sizeof msg, "not validated: simulated above the validation limit, "
                     "payloads in SMPI shared memory");
    } else if (status == CHECK_OK) {
        poison(w.rbuf, w.rbytes);
        poison(w.vendor, w.rbytes);
        if (c->kernel->family == A2A_FAMILY_INPLACE) { /* same layout both ways: symmetric */
            memcpy(w.rbuf, w.sbuf, w.sbytes);
            memcpy(w.vendor, w.sbuf, w.sbytes);
        }
        int rc = call_kernel(c, &w, 1, w.vendor, comm, NULL);
        if (rc != MPI_SUCCESS) {
            mpi_error_text(rc, "the vendor collective", msg, sizeof msg);
            status = CHECK_ERROR;
        }
        /* a failing rank still joins the kernel call so that peers are not left hanging */
        rc = call_kernel(c, &w, 0, w.rbuf, comm, &stats);
        if (rc != MPI_SUCCESS && status == CHECK_OK) {
            mpi_error_text(rc, c->kernel->name, msg, sizeof msg);
            status = CHECK_ERROR;
        }
        if (status == CHECK_OK)
            status = check_buffers(c, &w, rank, 1, msg, sizeof msg);
        status = agree(status, msg, sizeof msg, comm);
    }
    if (rank == 0) {
        out->status = status == CHECK_OK ? STATUS_OK : status == CHECK_WRONG ? STATUS_WRONG : STATUS_ERROR;
        snprintf(out->message, sizeof out->message, "%s", msg);
    }
    if (status != CHECK_ERROR) {
        stats_max(&stats, &out->stats, comm);
        long long mine[2] = { 0, 0 }, total[2]; /* between ranks; arriving, own block included */
        for (int j = 0; j < c->P; j++) {
            if (j != rank)
                mine[0] += (long long)w.scounts[j] * w.type_bytes;
            mine[1] += (long long)w.rcounts[j] * w.type_bytes;
        }
        polite_allreduce(mine, total, 2, MPI_LONG_LONG, MPI_SUM, comm);
        if (rank == 0) {
            out->bytes_moved = total[0];
            out->bytes_copied = total[1];
        }
    }
    if (status != CHECK_OK || c->iterations == 0) { /* iterations = 0: validate only */
        free_workload(&w);
        return;
    }

    int rc = MPI_SUCCESS, iterations = c->iterations, warmup = c->warmup;
    if (iterations == SWEEP_ITERATIONS_AUTO) {
        counted_call calibration = { c, &w, comm, MPI_SUCCESS };
        iterations = choose_iterations(c, comm, call_counted, &calibration, &warmup);
        rc = calibration.rc;
    } else {
        for (int i = 0; i < warmup && rc == MPI_SUCCESS; i++)
            rc = call_kernel(c, &w, 0, w.rbuf, comm, NULL);
    }
    out->iterations = iterations;
    out->warmup = warmup;
    for (int i = 0; i < iterations && rc == MPI_SUCCESS; i++) {
        MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        rc = call_kernel(c, &w, 0, w.rbuf, comm, NULL);
        double elapsed = MPI_Wtime() - t0, slowest = 0;
        MPI_Reduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
        if (rank == 0)
            samples[i] = slowest;
    }
    if (rc == MPI_SUCCESS && c->counters) {
        /* counted in separate calls after the timed ones: counting never perturbs timing */
        counted_call cc = { c, &w, comm, MPI_SUCCESS };
        count_calls(c->counters, iterations, call_counted, &cc, comm, &out->counted);
        rc = cc.rc;
    }
    if (rc != MPI_SUCCESS) {
        mpi_error_text(rc, c->kernel->name, msg, sizeof msg);
        status = CHECK_ERROR;
    } else {
        long long calls = 1 + warmup + iterations + (c->counters ? iterations : 0);
        if (c->kernel->family == A2A_FAMILY_INPLACE && calls % 2 == 0 && !w.sim_shared) {
            /* an even number of in-place exchanges brings every block back home */
            memcpy(w.expected, w.sbuf, w.sbytes);
        }
        status = w.sim_shared ? CHECK_OK : check_buffers(c, &w, rank, 0, msg, sizeof msg);
        if (status != CHECK_OK) {
            char first[sizeof msg];
            memcpy(first, msg, sizeof first);
            snprintf(msg, sizeof msg, "after the timed calls: %.480s", first);
        }
    }
    status = agree(status, msg, sizeof msg, comm);
    if (rank == 0) {
        if (status == CHECK_OK) {
            out->summary = summarize_samples(samples, iterations);
        } else {
            out->status = status == CHECK_WRONG ? STATUS_WRONG : STATUS_ERROR;
            snprintf(out->message, sizeof out->message, "%s", msg);
        }
    }
    free_workload(&w);
}
