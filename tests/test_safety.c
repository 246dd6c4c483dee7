/* ranks: 5, mpich: 5 */
/*
 * test_safety.c — every dense kernel of liba2a, called directly, under legal MPI programs
 * that are easy to get wrong:
 *   A. intercommunicators (groups 2 + 2 and 2 + 3): MPI_ERR_COMM on every rank, nothing
 *      sent (the kernels implement the intracommunicator exchange only);
 *   B. types whose data is "contiguous" but not in typemap order, or that differ between
 *      ranks with matching signatures: a permuted pair of ints (MPI_Type_indexed {1, 0})
 *      and an overlapping hindexed pair resized to 8 bytes, on every rank or on one rank,
 *      and MPI_2INT on one rank against MPI_INT elsewhere. Each call must return the same
 *      code on every rank, and on success give byte for byte MPI's own result (poisoned
 *      receive buffers, gaps included); MPI_ERR_TYPE on every rank is also accepted;
 *   C. the per-message byte limit, lowered to 24 bytes (A2A_MAX_MESSAGE_BYTES, set here
 *      before MPI_Init) so that blocks of 40 bytes exceed it: every call returns the same
 *      code on every rank (success with the right bytes, or MPI_ERR_COUNT), and the kernels
 *      that send rounds of bytes (bruck, tra, tra2) never send a message over the limit
 *      (watched through PMPI wrappers of MPI_Send, MPI_Isend and MPI_Sendrecv).
 * Run on P = 5 (MPI_COMM_WORLD) and P = 3 (its first ranks). One FAIL line per failure,
 * a summary line; exit 0 only if everything passed.
 *
 *   mpirun -n 5 ./test_safety [max_P [kernel]]   (max_P is not used: the program needs 5)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "a2a.h"
#include "a2a_registry.h"

enum { LIMIT = 24, INTS = 10 }; /* ints per block: 40 bytes, above the limit */

static int world_rank;
static long long checks, failures;

static void check(int ok, const char *what, const char *kernel, const char *detail)
{
    checks++;
    if (!ok) {
        failures++;
        printf("FAIL [world rank %d] %s %s: %s\n", world_rank, what, kernel, detail);
        fflush(stdout);
    }
}

/* ---- PMPI watch: the largest MPI_BYTE message sent ---------------------------------- */

static long long largest_bytes;

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    if (type == MPI_BYTE && count > largest_bytes)
        largest_bytes = count;
    return PMPI_Send(buf, count, type, dest, tag, comm);
}

int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    if (type == MPI_BYTE && count > largest_bytes)
        largest_bytes = count;
    return PMPI_Isend(buf, count, type, dest, tag, comm, req);
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf,
                 int rcount, MPI_Datatype rtype, int source, int rtag, MPI_Comm comm,
                 MPI_Status *status)
{
    if (stype == MPI_BYTE && scount > largest_bytes)
        largest_bytes = scount;
    return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag,
                         comm, status);
}

/* ---- kernels and parameters --------------------------------------------------------- */

/* The lowest valid parameters at P with one rank per node (ppn = 1). */
static void lowest_params(const a2a_kernel *k, int P, int *params)
{
    memset(params, 0, sizeof(int) * A2A_PARAM_COUNT);
    params[A2A_PARAM_RADIX] = 2;
    params[A2A_PARAM_RADIX2] = 2;
    params[A2A_PARAM_BLOCK_COUNT] = 1;
    params[A2A_PARAM_PPN] = 1;
    params[A2A_PARAM_ORDER] = A2A_ORDER_ROW;
    for (int p = 0; p < A2A_PARAM_COUNT; p++)
        if (!a2a_kernel_takes(k, (a2a_param)p))
            params[p] = 0;
    (void)P;
}

/* Calls kernel k (uniform or non-uniform family) on the arguments. */
static int call(const a2a_kernel *k, const void *sb, const int *sc, const int *sd, MPI_Datatype st,
                void *rb, const int *rc, const int *rd, MPI_Datatype rt, MPI_Comm comm,
                const int *params)
{
    if (k->family == A2A_FAMILY_UNIFORM)
        return k->call.uniform(sb, sc[0], st, rb, rc[0], rt, comm, params, NULL);
    return k->call.nonuniform(sb, sc, sd, st, rb, rc, rd, rt, comm, params, NULL);
}

/* ---- A: intercommunicators ------------------------------------------------------------ */

static void intercommunicators(const a2a_kernel *k)
{
    static const int groups[2][2] = { { 4, 2 }, { 5, 2 } }; /* first n ranks, split */
    for (int g = 0; g < 2; g++) {
        int n = groups[g][0], split = groups[g][1];
        MPI_Comm local, inter = MPI_COMM_NULL;
        MPI_Comm_split(MPI_COMM_WORLD, world_rank < n ? world_rank < split : MPI_UNDEFINED,
                       world_rank, &local);
        int rc = MPI_ERR_COMM;
        if (local != MPI_COMM_NULL) {
            MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, world_rank < split ? split : 0, 91,
                                 &inter);
            MPI_Comm_free(&local);
            int counts[8], displs[8], params[A2A_PARAM_COUNT];
            int sbuf[8 * INTS], rbuf[8 * INTS];
            for (int i = 0; i < 8; i++)
                counts[i] = INTS, displs[i] = i * INTS;
            lowest_params(k, n, params);
            memset(sbuf, 1, sizeof sbuf);
            rc = call(k, sbuf, counts, displs, MPI_INT, rbuf, counts, displs, MPI_INT, inter,
                      params);
            MPI_Comm_free(&inter);
        }
        char detail[96];
        snprintf(detail, sizeof detail, "intercommunicator %d+%d: returned %d, not MPI_ERR_COMM",
                 split, n - split, rc);
        check(rc == MPI_ERR_COMM, "A", k->name, detail);
    }
}

/* ---- B and C: one exchange against MPI's ---------------------------------------------- */

enum kind { INT, TWOINT, PERM, OVERLAP, KINDS };
static const int kind_bytes[KINDS] = { 4, 8, 8, 8 };
static MPI_Datatype kind_type[KINDS];

typedef struct types_case {
    const char *name;
    enum kind send_all, recv_all;
    int odd_rank; /* sends odd_send and receives odd_recv (-1: none) */
    enum kind odd_send, odd_recv;
} types_case;

static const types_case cases[] = {
    { "int", INT, INT, -1, INT, INT },
    { "permuted-send", PERM, INT, -1, INT, INT },
    { "permuted-one-rank", INT, INT, 1, PERM, PERM },
    { "overlapping-send", OVERLAP, INT, -1, INT, INT },
    { "overlapping-one-rank", INT, TWOINT, 0, OVERLAP, TWOINT },
    { "2int-one-rank", INT, INT, 0, INT, TWOINT },
};

/* Runs kernel k and MPI's collective on the same arguments (types of case tc on comm) and
 * compares return codes across ranks and the bytes. */
static void exchange(const a2a_kernel *k, const types_case *tc, MPI_Comm comm, const char *what)
{
    int P, me;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    const int v = k->family == A2A_FAMILY_NONUNIFORM;
    enum kind sk = me == tc->odd_rank ? tc->odd_send : tc->send_all;
    enum kind rk = me == tc->odd_rank ? tc->odd_recv : tc->recv_all;
    int *sc = malloc(sizeof(int) * (size_t)P), *sd = malloc(sizeof(int) * (size_t)P);
    int *rc = malloc(sizeof(int) * (size_t)P), *rd = malloc(sizeof(int) * (size_t)P);
    long long so = 0, ro = 0;
    for (int j = 0; j < P; j++) { /* v: blocks of 0, 16 or 32 bytes and gaps; else 40 */
        int sbytes = v ? (me + 2 * j) % 3 * 16 : 4 * INTS;
        int rbytes = v ? (j + 2 * me) % 3 * 16 : 4 * INTS;
        sc[j] = sbytes / kind_bytes[sk];
        rc[j] = rbytes / kind_bytes[rk];
        sd[j] = (int)so + v;
        rd[j] = (int)ro + v;
        so += sc[j] + v;
        ro += rc[j] + v;
    }
    size_t slen = (size_t)(so + 1) * (size_t)kind_bytes[sk];
    size_t rlen = (size_t)(ro + 1) * (size_t)kind_bytes[rk];
    unsigned char *sbuf = malloc(slen), *copy = malloc(slen);
    unsigned char *rbuf = malloc(rlen), *ref = malloc(rlen);
    for (size_t i = 0; i < slen; i++)
        sbuf[i] = (unsigned char)(world_rank * 71 + i * 13 + 5);
    memcpy(copy, sbuf, slen);
    memset(rbuf, 0xa5, rlen);
    memset(ref, 0xa5, rlen);
    if (v)
        PMPI_Alltoallv(sbuf, sc, sd, kind_type[sk], ref, rc, rd, kind_type[rk], comm);
    else
        PMPI_Alltoall(sbuf, sc[0], kind_type[sk], ref, rc[0], kind_type[rk], comm);
    int params[A2A_PARAM_COUNT];
    lowest_params(k, P, params);
    largest_bytes = 0;
    int code = call(k, sbuf, sc, sd, kind_type[sk], rbuf, rc, rd, kind_type[rk], comm, params);
    int codes[2] = { code, -code }, all[2];
    PMPI_Allreduce(codes, all, 2, MPI_INT, MPI_MIN, comm);
    char detail[200];
    snprintf(detail, sizeof detail, "%s at P=%d: return codes differ between ranks (%d..%d)",
             tc->name, P, all[0], -all[1]);
    check(all[0] == -all[1], what, k->name, detail);
    if (all[0] == -all[1] && code == MPI_SUCCESS) {
        snprintf(detail, sizeof detail, "%s at P=%d: result differs from MPI's", tc->name, P);
        check(memcmp(rbuf, ref, rlen) == 0, what, k->name, detail);
    } else if (all[0] == -all[1]) {
        int accepted = code == MPI_ERR_TYPE || code == MPI_ERR_COUNT;
        snprintf(detail, sizeof detail, "%s at P=%d: returned %d on every rank", tc->name, P, code);
        check(accepted, what, k->name, detail);
    }
    snprintf(detail, sizeof detail, "%s at P=%d: the send buffer changed", tc->name, P);
    check(memcmp(sbuf, copy, slen) == 0, what, k->name, detail);
    if (!strcmp(k->name, "bruck") || !strncmp(k->name, "tra", 3)) {
        snprintf(detail, sizeof detail, "%s at P=%d: a message of %lld bytes, over the limit %d",
                 tc->name, P, largest_bytes, LIMIT);
        check(largest_bytes <= LIMIT, what, k->name, detail);
    }
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(sbuf);
    free(copy);
    free(rbuf);
    free(ref);
}

int main(int argc, char **argv)
{
    setenv("A2A_MAX_MESSAGE_BYTES", "24", 1); /* read by liba2a at its first large message */
    MPI_Init(&argc, &argv);
    int world;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int len[2] = { 1, 1 }, at[2] = { 1, 0 };
    MPI_Aint overlap_at[2] = { 0, 2 };
    MPI_Datatype overlap;
    kind_type[INT] = MPI_INT;
    kind_type[TWOINT] = MPI_2INT;
    MPI_Type_indexed(2, len, at, MPI_INT, &kind_type[PERM]);
    MPI_Type_commit(&kind_type[PERM]);
    MPI_Type_create_hindexed(2, len, overlap_at, MPI_INT, &overlap);
    MPI_Type_create_resized(overlap, 0, 8, &kind_type[OVERLAP]);
    MPI_Type_commit(&kind_type[OVERLAP]);
    MPI_Type_free(&overlap);
    MPI_Comm three;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank < 3 ? 0 : MPI_UNDEFINED, world_rank, &three);

    int n;
    const a2a_kernel *table = a2a_registry(&n);
    for (int i = 0; i < n; i++) {
        const a2a_kernel *k = &table[i];
        if ((k->family != A2A_FAMILY_UNIFORM && k->family != A2A_FAMILY_NONUNIFORM) ||
            k->is_baseline || (argc > 2 && strcmp(argv[2], k->name) != 0))
            continue;
        int shared = a2a_kernel_needs_shared(k); /* hint: buffers from A2A_Hint_alloc */
        if (world >= 5)
            intercommunicators(k);
        for (size_t c = 0; c < sizeof cases / sizeof cases[0] && !shared; c++) {
            exchange(k, &cases[c], MPI_COMM_WORLD, "B/C");
            if (three != MPI_COMM_NULL)
                exchange(k, &cases[c], three, "B/C");
        }
    }
    if (three != MPI_COMM_NULL)
        MPI_Comm_free(&three);
    MPI_Type_free(&kind_type[PERM]);
    MPI_Type_free(&kind_type[OVERLAP]);
    long long totals[2] = { checks, failures }, sums[2];
    PMPI_Allreduce(totals, sums, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (world_rank == 0)
        printf("test_safety: %lld checks on %d ranks, %lld failed\n", sums[0], world, sums[1]);
    MPI_Finalize();
    return sums[1] ? 1 : 0;
}
