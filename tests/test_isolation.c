/* ranks: 6, mpich: 4 */
/*
 * test_isolation.c — kernels never match the application's messages, and the
 * application never matches theirs (as MPI's own collectives, which run in a context of
 * their own).
 *
 *   mpirun -n N ./test_isolation [max_P [family/kernel]]   (default: every P from 1 to N,
 *                                                            every kernel)
 *
 * For every P (a sub-communicator of the first P ranks, with MPI_ERRORS_RETURN) and every
 * registered kernel of the uniform, nonuniform, inplace, sdde and sddev families but the
 * baselines, which are MPI's own collectives (the
 * lowest valid value of each parameter, ppn = 1 where valid so that the hierarchical
 * kernels send between "nodes"; HINT on buffers from A2A_Hint_alloc), two calls:
 *   A. every rank posts MPI_Irecv(MPI_ANY_SOURCE, MPI_ANY_TAG) on the communicator, runs
 *      the kernel, compares its result byte for byte with MPI_Alltoall(v) of the same
 *      data (sdde/sddev: with the reference kernel, which only uses MPI collectives), then
 *      rank (r + 1) % P sends rank r one message whose tag is a tag liba2a's kernels use;
 *      the pending receive must get exactly that message;
 *   B. rank (r + 1) % P sends rank r one message with every tag the kernels use BEFORE the
 *      call; after it, rank r receives them by tag and each must hold what was sent
 *      (the kernel must not have taken them), and the result must be right.
 * A kernel whose message is taken by the application's receive never returns: a watchdog
 * ends the program after TEST_ISOLATION_TIMEOUT seconds (default 20) with a FAIL line
 * naming the kernel. One line per failure, a summary line; exit status 0 only if
 * everything passed.
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep, clock_gettime */
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "a2a.h"
#include "a2a_registry.h"
#include "polite.h"
#include "test_common.h"

/* Tags of liba2a's point-to-point kernels (0: scattered, linear, pairwise and the
 * in-place ones; 0x2a0x: bruck, tra, tra2, hint; 0x7axx: tuna, staggered, coalesced,
 * two-phase bruck). The SDDE tags depend on the call number (see sdde_tags). */
static const int kernel_tags[] = { 0,      0x2a01, 0x2a02, 0x2a03, 0x2a07, 0x7a10,
                                   0x7a11, 0x7a20, 0x7a30, 0x7a40, 0x7a41 };
enum { NKERNEL_TAGS = sizeof kernel_tags / sizeof kernel_tags[0], MAX_TAGS = 64 };
enum { MAGIC = 0x15013710 };

static int world_rank;
static long long checks_run, checks_failed;

/* ---- watchdog ------------------------------------------------------------------------ */

static pthread_mutex_t dog_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t dog_cond = PTHREAD_COND_INITIALIZER;
static char dog_label[160];
static int dog_armed;
static struct timespec dog_deadline;
static double dog_seconds = 20;

/* Guarantees: while a call is armed and its deadline passes, prints a FAIL line naming it
 * and ends the process (mpirun then ends the others); never calls MPI. */
static void *watchdog(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&dog_lock);
    for (;;) {
        if (!dog_armed) {
            pthread_cond_wait(&dog_cond, &dog_lock);
            continue;
        }
        struct timespec deadline = dog_deadline;
        if (pthread_cond_timedwait(&dog_cond, &dog_lock, &deadline) != 0 && dog_armed &&
            dog_deadline.tv_sec == deadline.tv_sec && dog_deadline.tv_nsec == deadline.tv_nsec) {
            fprintf(stderr, "FAIL %s: no return within %.0f s on world rank %d (a message of "
                    "the kernel was taken by the application's pending receive, or the "
                    "kernel took the application's)\n", dog_label, dog_seconds, world_rank);
            fflush(stderr);
            _exit(3);
        }
    }
    return NULL;
}

/* Guarantees: the watchdog watches `label` from now for dog_seconds. */
static void arm(const char *label)
{
    pthread_mutex_lock(&dog_lock);
    snprintf(dog_label, sizeof dog_label, "%s", label);
    clock_gettime(CLOCK_REALTIME, &dog_deadline);
    dog_deadline.tv_sec += (time_t)dog_seconds;
    dog_armed = 1;
    pthread_cond_signal(&dog_cond);
    pthread_mutex_unlock(&dog_lock);
}

/* Guarantees: the watchdog stops watching. */
static void disarm(void)
{
    pthread_mutex_lock(&dog_lock);
    dog_armed = 0;
    pthread_cond_signal(&dog_cond);
    pthread_mutex_unlock(&dog_lock);
}

/* Guarantees: counts one check; prints a FAIL line (with the world rank) if it failed. */
static void check(int ok, const char *fmt, ...)
{
    checks_run++;
    if (ok)
        return;
    checks_failed++;
    char text[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    printf("FAIL [world rank %d] %s\n", world_rank, text);
    fflush(stdout);
}

/* ---- one exchange of each family ------------------------------------------------------ */

/* The data of one kernel call on a communicator of P ranks (this rank: r). */
typedef struct exchange {
    int P, r;
    /* uniform */
    int n;
    int *usend, *urecv, *uref;
    /* nonuniform and in-place (symmetric counts) */
    int *scounts, *sdispls, *rcounts, *rdispls;
    int vsend_len, vrecv_len;
    int *vsend, *vrecv, *vref;
    int *icounts, *idispls, ilen;
    int *ibuf, *iorig, *iref;
    /* sdde: messages to (r + 1) % P and (r + 3) % P (distinct ones) */
    int nnz, dest[2], svcounts[2], svdispls[2], svals[16];
} exchange;

/* Guarantees: a value that tells apart source, destination and element. */
static int value(int from, int to, int i) { return MAGIC ^ (from << 20) ^ (to << 10) ^ i; }

/* Guarantees: every buffer and reference of ex built; references from MPI_Alltoall(v). */
static void build(exchange *ex, MPI_Comm comm)
{
    memset(ex, 0, sizeof *ex);
    MPI_Comm_size(comm, &ex->P);
    MPI_Comm_rank(comm, &ex->r);
    const int P = ex->P, r = ex->r;
    ex->n = 5;
    ex->usend = malloc(sizeof(int) * (size_t)(P * ex->n));
    ex->urecv = malloc(sizeof(int) * (size_t)(P * ex->n));
    ex->uref = malloc(sizeof(int) * (size_t)(P * ex->n));
    for (int d = 0; d < P; d++)
        for (int i = 0; i < ex->n; i++)
            ex->usend[d * ex->n + i] = value(r, d, i);
    MPI_Alltoall(ex->usend, ex->n, MPI_INT, ex->uref, ex->n, MPI_INT, comm);

    /* nonuniform: count from s to d is (s + 2d) % 4, blocks one element apart */
    ex->scounts = malloc(sizeof(int) * (size_t)P);
    ex->sdispls = malloc(sizeof(int) * (size_t)P);
    ex->rcounts = malloc(sizeof(int) * (size_t)P);
    ex->rdispls = malloc(sizeof(int) * (size_t)P);
    int so = 0, ro = 0;
    for (int d = 0; d < P; d++) {
        ex->scounts[d] = (r + 2 * d) % 4;
        ex->rcounts[d] = (d + 2 * r) % 4;
        ex->sdispls[d] = so + 1;
        ex->rdispls[d] = ro + 1;
        so += ex->scounts[d] + 1;
        ro += ex->rcounts[d] + 1;
    }
    ex->vsend_len = so + 1;
    ex->vrecv_len = ro + 1;
    ex->vsend = malloc(sizeof(int) * (size_t)ex->vsend_len);
    ex->vrecv = malloc(sizeof(int) * (size_t)ex->vrecv_len);
    ex->vref = malloc(sizeof(int) * (size_t)ex->vrecv_len);
    for (int i = 0; i < ex->vsend_len; i++)
        ex->vsend[i] = -1;
    for (int d = 0; d < P; d++)
        for (int i = 0; i < ex->scounts[d]; i++)
            ex->vsend[ex->sdispls[d] + i] = value(r, d, i);
    for (int i = 0; i < ex->vrecv_len; i++)
        ex->vref[i] = -2;
    MPI_Alltoallv(ex->vsend, ex->scounts, ex->sdispls, MPI_INT, ex->vref, ex->rcounts,
                  ex->rdispls, MPI_INT, comm);

    /* in-place: symmetric counts (r + d) % 3 + 1, blocks two elements apart */
    ex->icounts = malloc(sizeof(int) * (size_t)P);
    ex->idispls = malloc(sizeof(int) * (size_t)P);
    int io = 0;
    for (int d = 0; d < P; d++) {
        ex->icounts[d] = (r + d) % 3 + 1;
        ex->idispls[d] = io + 2;
        io += ex->icounts[d] + 2;
    }
    ex->ilen = io + 2;
    ex->ibuf = malloc(sizeof(int) * (size_t)ex->ilen);
    ex->iorig = malloc(sizeof(int) * (size_t)ex->ilen);
    ex->iref = malloc(sizeof(int) * (size_t)ex->ilen);
    for (int i = 0; i < ex->ilen; i++)
        ex->iorig[i] = -3 - i;
    for (int d = 0; d < P; d++)
        for (int i = 0; i < ex->icounts[d]; i++)
            ex->iorig[ex->idispls[d] + i] = value(r, d, i);
    memcpy(ex->iref, ex->iorig, sizeof(int) * (size_t)ex->ilen);
    MPI_Alltoallv(ex->iorig, ex->icounts, ex->idispls, MPI_INT, ex->iref, ex->icounts,
                  ex->idispls, MPI_INT, comm);

    /* sdde: two elements per message (constant), 1 or 3 elements (variable) */
    ex->dest[ex->nnz++] = (r + 1) % P;
    if ((r + 3) % P != (r + 1) % P)
        ex->dest[ex->nnz++] = (r + 3) % P;
    int off = 0;
    for (int m = 0; m < ex->nnz; m++) {
        ex->svcounts[m] = m == 0 ? 1 : 3;
        ex->svdispls[m] = off;
        off += ex->svcounts[m];
    }
    for (int i = 0; i < 16; i++)
        ex->svals[i] = value(r, 0, i + 100);
}

/* Guarantees: everything build() allocated is freed. */
static void release(exchange *ex)
{
    free(ex->usend); free(ex->urecv); free(ex->uref);
    free(ex->scounts); free(ex->sdispls); free(ex->rcounts); free(ex->rdispls);
    free(ex->vsend); free(ex->vrecv); free(ex->vref);
    free(ex->icounts); free(ex->idispls); free(ex->ibuf); free(ex->iorig); free(ex->iref);
}

/* The output of one SDDE call (arrays the kernel allocated). */
typedef struct sdde_out {
    int nnz, size;
    int *src, *counts, *displs;
    int *vals;
} sdde_out;

/* Guarantees: the SDDE call of `kernel` (family sdde or sddev) on ex's messages. */
static int call_sdde(const a2a_kernel *kernel, const exchange *ex, MPI_Comm comm,
                     const int *params, sdde_out *out)
{
    memset(out, 0, sizeof *out);
    out->nnz = -1;
    out->size = -1;
    void *vals = NULL;
    int err;
    if (kernel->family == A2A_FAMILY_SDDE)
        err = kernel->call.sdde(ex->nnz, ex->dest, 2, MPI_INT, ex->svals, &out->nnz, &out->src,
                                2, MPI_INT, &vals, comm, params, NULL);
    else
        err = kernel->call.sddev(ex->nnz, 16, ex->dest, ex->svcounts, ex->svdispls, MPI_INT,
                                 ex->svals, &out->nnz, &out->size, &out->src, &out->counts,
                                 &out->displs, MPI_INT, &vals, comm, params, NULL);
    out->vals = vals;
    return err;
}

/* Guarantees: 1 if the two SDDE outputs are identical. */
static int same_sdde(const a2a_kernel *kernel, const sdde_out *a, const sdde_out *b)
{
    if (a->nnz != b->nnz)
        return 0;
    if (a->nnz > 0 && memcmp(a->src, b->src, sizeof(int) * (size_t)a->nnz) != 0)
        return 0;
    if (kernel->family == A2A_FAMILY_SDDE)
        return a->nnz == 0 || memcmp(a->vals, b->vals, sizeof(int) * 2 * (size_t)a->nnz) == 0;
    if (a->size != b->size)
        return 0;
    if (a->nnz > 0 && (memcmp(a->counts, b->counts, sizeof(int) * (size_t)a->nnz) != 0 ||
                       memcmp(a->displs, b->displs, sizeof(int) * (size_t)a->nnz) != 0))
        return 0;
    return a->size == 0 || memcmp(a->vals, b->vals, sizeof(int) * (size_t)a->size) == 0;
}

/* Guarantees: the arrays of out freed. */
static void free_sdde(sdde_out *out)
{
    free(out->src);
    free(out->counts);
    free(out->displs);
    free(out->vals);
}

/* Guarantees: the tags the SDDE kernels use in their call number `seq` on a communicator
 * (0x4000 | seq << 5 | algorithm << 2 | phase, as sdde_common.c documents) in tags[],
 * their count returned. */
static int sdde_tags(int seq, int *tags)
{
    int n = 0;
    for (int alg = 1; alg <= 4; alg++)
        for (int phase = 0; phase < 4; phase++)
            tags[n++] = 0x4000 | ((seq % 128) << 5) | (alg << 2) | phase;
    return n;
}

/* Guarantees: params holds, for each parameter the kernel takes in its table order, the
 * lowest valid value at P (Q = ppn), with ppn = 1 when valid. Returns 1 if the set is
 * valid for the kernel. */
static int choose_params(const a2a_kernel *kernel, int P, int params[A2A_PARAM_COUNT])
{
    memset(params, 0, sizeof(int) * A2A_PARAM_COUNT);
    for (int i = 0; i < kernel->nparams; i++) {
        a2a_param p = kernel->params[i].param;
        int Q = params[A2A_PARAM_PPN] > 0 ? params[A2A_PARAM_PPN] : P;
        params[p] = 1;
        if (p == A2A_PARAM_PPN && a2a_param_in_range(kernel, p, P, 1, params))
            continue;
        int v;
        for (v = 0; v <= P + 2; v++) {
            params[p] = v;
            if (a2a_param_in_range(kernel, p, P, Q, params))
                break;
        }
        if (v > P + 2)
            return 0;
    }
    int Q = params[A2A_PARAM_PPN] > 0 ? params[A2A_PARAM_PPN] : P;
    char why[200];
    return a2a_params_valid(kernel, P, Q, params, why, sizeof why);
}

/* ---- the checks ----------------------------------------------------------------------- */

/* Guarantees: one call of `kernel` on ex's data: MPI_SUCCESS and the result equal to the
 * reference byte for byte are checked. `hint_send`/`hint_recv`: the shared buffers HINT
 * needs (NULL for other kernels). */
static void run_kernel(const a2a_kernel *kernel, exchange *ex, MPI_Comm comm, const int *params,
                       const sdde_out *sref, void *hint_send, void *hint_recv,
                       const char *label)
{
    const int P = ex->P;
    int err = MPI_SUCCESS, ok = 1;
    switch (kernel->family) {
    case A2A_FAMILY_UNIFORM: {
        size_t bytes = sizeof(int) * (size_t)(P * ex->n);
        void *sb = hint_send ? hint_send : ex->usend, *rb = hint_recv ? hint_recv : ex->urecv;
        if (hint_send)
            memcpy(sb, ex->usend, bytes);
        memset(rb, 0x5a, bytes);
        err = kernel->call.uniform(sb, ex->n, MPI_INT, rb, ex->n, MPI_INT, comm, params, NULL);
        ok = memcmp(rb, ex->uref, bytes) == 0;
        break;
    }
    case A2A_FAMILY_NONUNIFORM:
        for (int i = 0; i < ex->vrecv_len; i++)
            ex->vrecv[i] = -2;
        err = kernel->call.nonuniform(ex->vsend, ex->scounts, ex->sdispls, MPI_INT, ex->vrecv,
                                      ex->rcounts, ex->rdispls, MPI_INT, comm, params, NULL);
        ok = memcmp(ex->vrecv, ex->vref, sizeof(int) * (size_t)ex->vrecv_len) == 0;
        break;
    case A2A_FAMILY_INPLACE:
        memcpy(ex->ibuf, ex->iorig, sizeof(int) * (size_t)ex->ilen);
        err = kernel->call.inplace(ex->ibuf, ex->icounts, ex->idispls, MPI_INT, comm, params,
                                   NULL);
        ok = memcmp(ex->ibuf, ex->iref, sizeof(int) * (size_t)ex->ilen) == 0;
        break;
    default: {
        sdde_out out;
        err = call_sdde(kernel, ex, comm, params, &out);
        ok = err == MPI_SUCCESS && same_sdde(kernel, &out, sref);
        free_sdde(&out);
        break;
    }
    }
    check(err == MPI_SUCCESS, "%s: returned %d", label, err);
    check(ok, "%s: result differs from the MPI collective's", label);
}

/* Guarantees: checks A and B (see the head of the file) for one kernel (registry entry
 * `index`) on comm. `seq`
 * counts the SDDE calls made on comm so far (advanced here). */
static void test_kernel(const a2a_kernel *kernel, int index, exchange *ex, MPI_Comm comm,
                        int *seq)
{
    const int P = ex->P, r = ex->r, from = (r + 1) % P, to = (r - 1 + P) % P;
    int params[A2A_PARAM_COUNT];
    /* baselines are MPI's own collectives (isolated by MPI; MPICH 4's MPI_Alltoall on one
     * rank was seen not to return with an MPI_ANY_SOURCE receive pending) */
    if (kernel->is_baseline || !choose_params(kernel, P, params))
        return;
    int is_sdde = kernel->family == A2A_FAMILY_SDDE || kernel->family == A2A_FAMILY_SDDEV;
    char label[160];

    sdde_out sref;
    memset(&sref, 0, sizeof sref);
    if (is_sdde) { /* reference output: the reference kernel (MPI collectives only) */
        const a2a_kernel *ref = a2a_find_kernel(kernel->family, "reference");
        int none[A2A_PARAM_COUNT] = { 0 };
        int err = call_sdde(ref, ex, comm, none, &sref);
        (*seq)++;
        check(err == MPI_SUCCESS, "%s/reference P=%d: returned %d",
              a2a_family_name(kernel->family), P, err);
    }
    void *hint_send = NULL, *hint_recv = NULL;
    if (a2a_kernel_needs_shared(kernel)) {
        MPI_Aint bytes = (MPI_Aint)(sizeof(int) * (size_t)(P * ex->n));
        int e1 = A2A_Hint_alloc(comm, bytes, &hint_send);
        int e2 = A2A_Hint_alloc(comm, bytes, &hint_recv);
        check(e1 == MPI_SUCCESS && e2 == MPI_SUCCESS, "A2A_Hint_alloc P=%d failed", P);
    }

    int tags[MAX_TAGS], ntags = 0;
    for (int i = 0; i < NKERNEL_TAGS; i++)
        tags[ntags++] = kernel_tags[i];

    /* A: a pending receive from any source with any tag during the call */
    int user_tag;
    if (is_sdde) { /* the tag of phase 0 of this kernel's algorithm in this call */
        static const char *const algs[] = { "personalized", "nonblocking",
                                            "locality_personalized", "locality_nonblocking" };
        int st[16], alg = 0;
        sdde_tags(*seq, st);
        for (int i = 0; i < 4; i++)
            if (strcmp(kernel->name, algs[i]) == 0)
                alg = i;
        user_tag = st[alg * 4];
    } else { /* the same on every rank: a tag of the kernels, varied over kernels and P */
        user_tag = kernel_tags[(index + P) % NKERNEL_TAGS];
    }
    int got[8] = { 0 };
    MPI_Request pending;
    MPI_Irecv(got, 8, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &pending);
    snprintf(label, sizeof label, "%s/%s P=%d (A: pending receive)",
             a2a_family_name(kernel->family), kernel->name, P);
    arm(label);
    run_kernel(kernel, ex, comm, params, &sref, hint_send, hint_recv, label);
    MPI_Status status;
    int msg[3] = { MAGIC, r, user_tag };
    MPI_Request sreq;
    MPI_Isend(msg, 3, MPI_INT, to, user_tag, comm, &sreq);
    MPI_Wait(&pending, &status);
    MPI_Wait(&sreq, MPI_STATUS_IGNORE);
    disarm();
    if (is_sdde)
        (*seq)++;
    int count = -1;
    MPI_Get_count(&status, MPI_INT, &count);
    check(status.MPI_SOURCE == from && status.MPI_TAG == user_tag && count == 3 &&
          got[0] == MAGIC && got[1] == from && got[2] == user_tag,
          "%s: the pending receive got source %d tag %#x count %d [%#x %d %#x], expected "
          "source %d tag %#x [%#x %d %#x]", label, status.MPI_SOURCE, status.MPI_TAG, count,
          got[0], got[1], got[2], from, user_tag, MAGIC, from, user_tag);

    /* B: messages with the kernels' tags sent before the call, received after it */
    if (is_sdde)
        ntags += sdde_tags(*seq, tags + ntags);
    int early[MAX_TAGS][3];
    MPI_Request reqs[MAX_TAGS];
    for (int i = 0; i < ntags; i++) {
        early[i][0] = MAGIC + 1;
        early[i][1] = r;
        early[i][2] = tags[i];
        MPI_Isend(early[i], 3, MPI_INT, to, tags[i], comm, &reqs[i]);
    }
    snprintf(label, sizeof label, "%s/%s P=%d (B: messages sent before the call)",
             a2a_family_name(kernel->family), kernel->name, P);
    arm(label);
    run_kernel(kernel, ex, comm, params, &sref, hint_send, hint_recv, label);
    if (is_sdde)
        (*seq)++;
    for (int i = 0; i < ntags; i++) {
        int in[8] = { 0 };
        MPI_Status st;
        int rc = MPI_Recv(in, 8, MPI_INT, from, tags[i], comm, &st);
        int n = -1;
        MPI_Get_count(&st, MPI_INT, &n);
        check(rc == MPI_SUCCESS && n == 3 && in[0] == MAGIC + 1 && in[1] == from &&
              in[2] == tags[i], "%s: the message with tag %#x from %d arrived as "
              "[%#x %d %#x] (%d ints, rc %d)", label, tags[i], from, in[0], in[1], in[2], n, rc);
    }
    MPI_Waitall(ntags, reqs, MPI_STATUSES_IGNORE);
    disarm();

    if (hint_send) {
        A2A_Hint_free(hint_recv);
        A2A_Hint_free(hint_send);
    }
    free_sdde(&sref);
}

int main(int argc, char **argv)
{
    int world_size = test_init(&argc, &argv, &world_rank);
    int max_P = test_max_ranks(argc, argv, world_size);
    const char *only = argc > 2 ? argv[2] : NULL;
    const char *t = getenv("TEST_ISOLATION_TIMEOUT");
    if (t && atof(t) > 0)
        dog_seconds = atof(t);
    pthread_t dog;
    pthread_create(&dog, NULL, watchdog, NULL);
    pthread_detach(dog);

    int nkernels;
    const a2a_kernel *kernels = a2a_registry(&nkernels);
    double start = MPI_Wtime();
    for (int P = 1; P <= max_P; P++) {
        MPI_Comm comm = test_first_ranks(P, world_rank);
        if (comm == MPI_COMM_NULL)
            continue;
        MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
        exchange ex;
        build(&ex, comm);
        int seq = 0;
        for (int k = 0; k < nkernels; k++) {
            const a2a_kernel *kernel = &kernels[k];
            char name[120];
            snprintf(name, sizeof name, "%s/%s", a2a_family_name(kernel->family), kernel->name);
            if (only && strcmp(only, name) != 0)
                continue;
            test_kernel(kernel, k, &ex, comm, &seq);
        }
        release(&ex);
        test_done_ranks(&comm);
    }

    long long failed = checks_failed, total_failed = 0, total_run = 0;
    MPI_Reduce(&failed, &total_failed, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&checks_run, &total_run, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Bcast(&total_failed, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    if (world_rank == 0)
        printf("%s test_isolation: %lld checks, %lld failed (P = 1..%d, %.1f s)\n",
               total_failed == 0 ? "PASS" : "FAIL", total_run, total_failed, max_P,
               MPI_Wtime() - start);
    MPI_Finalize();
    return total_failed == 0 ? 0 : 1;
}
