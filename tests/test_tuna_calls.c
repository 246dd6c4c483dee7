/* ranks: 6, mpich: 4 */
/*
 * test_tuna_calls.c — what the TuNA kernels and two-phase Bruck ask of MPI, counted
 * through PMPI wrappers defined here (they take the place of the library's MPI_Isend,
 * MPI_Type_commit ... for liba2a, which this program links statically).
 *
 *   mpirun -n N ./test_tuna_calls [max_P]     (every P from 1 to max_P, default N)
 *
 * Runs with A2A_MAX_MESSAGE_BYTES = 1000 (set before the first kernel call). For every P,
 * on a sub-communicator of the first P ranks, every result checked byte for byte against
 * MPI_Alltoallv (receive buffers poisoned first):
 *   - small blocks (1..40 bytes, none empty): tuna at radix P sends exactly P - 1
 *     messages (no size message: the receiver knows every block's size from rcounts),
 *     commits no datatype and calls no MPI_Allreduce; tuna at radix 2 and 3, two-phase
 *     Bruck and coalesced TuNA_l^g commit no datatype (small blocks are packed), and the
 *     messages tuna and two-phase Bruck send are the data messages plus one size message
 *     per round carrying more than its direct block, as stats->messages says too;
 *   - blocks of 2500 bytes (every block, or only rank 0's): every kernel returns the same
 *     code on every rank, MPI_SUCCESS or MPI_ERR_COUNT, correct data when MPI_SUCCESS,
 *     and never posts a message above 1000 bytes; tuna at radix P, and the hierarchical
 *     kernels with one rank per node, succeed (their blocks go in pieces).
 * One line per failure, a summary line; exit status 0 only if everything passed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "a2a.h"
#include "polite.h"
#include "test_common.h"

enum { LIMIT = 1000 };

/* ---- the wrappers -------------------------------------------------------------------- */

static int counting;                 /* count only inside a kernel call */
static long long sends, commits, allreduces, largest_message;

static void note_message(int count, MPI_Datatype type)
{
    int size = 0;
    PMPI_Type_size(type, &size);
    long long bytes = (long long)count * size;
    if (bytes > largest_message)
        largest_message = bytes;
}

int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    if (counting) {
        sends++;
        note_message(count, type);
    }
    return PMPI_Isend(buf, count, type, dest, tag, comm, req);
}

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    if (counting) {
        sends++;
        note_message(count, type);
    }
    return PMPI_Send(buf, count, type, dest, tag, comm);
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag,
                 void *rbuf, int rcount, MPI_Datatype rtype, int source, int rtag,
                 MPI_Comm comm, MPI_Status *status)
{
    if (counting) {
        sends++;
        note_message(scount, stype);
        note_message(rcount, rtype);
    }
    return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag,
                         comm, status);
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    if (counting)
        note_message(count, type);
    return PMPI_Irecv(buf, count, type, source, tag, comm, req);
}

int MPI_Type_commit(MPI_Datatype *type)
{
    if (counting)
        commits++;
    return PMPI_Type_commit(type);
}

int MPI_Allreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm)
{
    if (counting)
        allreduces++;
    return PMPI_Allreduce(in, out, count, type, op, comm);
}

/* ---- checks -------------------------------------------------------------------------- */

static int world_rank;
static long long checks_run, checks_failed;

/* Guarantees: records one check; prints a line for a failure. */
static void record(int ok, const char *what)
{
    test_count_check(&checks_run, &checks_failed, ok, what);
}

typedef enum { TWOPHASE, TUNA, STAGGERED, COALESCED } kernel_kind;
static const char *const kernel_name[] = { "twophase_bruck", "tuna", "tuna_staggered",
                                           "tuna_coalesced" };

/* Block sizes of one exchange: small (1..40 bytes), all 2500 bytes, or 2500 bytes from
 * rank 0 only (10 from the others). */
typedef enum { SMALL, LARGE_ALL, LARGE_FROM_0 } sizes_kind;
static const char *const sizes_name[] = { "small", "2500-all", "2500-from-rank-0" };

static int block_bytes(sizes_kind k, int src, int dst)
{
    switch (k) {
    case SMALL:
        return 1 + (int)((uint32_t)(src * 7919 + dst * 104729 + 17) % 40u);
    case LARGE_ALL:
        return 2500;
    default:
        return src == 0 ? 2500 : 10;
    }
}

/* Counted calls of one kernel call. */
typedef struct {
    int rc;
    long long sends, commits, allreduces, largest_message;
    a2a_stats stats;
} call_counts;

/* Guarantees: runs the kernel once on comm for the exchange `k` with counting on, checks
 * the receive buffer against MPI_Alltoallv when it returns MPI_SUCCESS (data_ok), and
 * returns the counts. Collective on comm. */
static call_counts run_kernel(MPI_Comm comm, kernel_kind kind, int radix, int block_count,
                              int ppn, sizes_kind k, int *data_ok)
{
    int P, rank;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &rank);
    int *counts = malloc(4 * (size_t)P * sizeof(int));
    int *sdispls = counts + P, *rcounts = sdispls + P, *rdispls = rcounts + P;
    size_t stotal = 0, rtotal = 0;
    for (int d = 0; d < P; d++) {
        counts[d] = block_bytes(k, rank, d);
        sdispls[d] = (int)stotal;
        stotal += (size_t)counts[d];
        rcounts[d] = block_bytes(k, d, rank);
        rdispls[d] = (int)rtotal;
        rtotal += (size_t)rcounts[d];
    }
    unsigned char *send = malloc(stotal + 1), *recv = malloc(rtotal + 1),
                  *reference = malloc(rtotal + 1);
    for (size_t b = 0; b < stotal; b++)
        send[b] = (unsigned char)(rank * 31 + b * 7 + 1);
    MPI_Alltoallv(send, counts, sdispls, MPI_BYTE, reference, rcounts, rdispls, MPI_BYTE, comm);
    memset(recv, 0xA5, rtotal + 1);

    call_counts c;
    memset(&c, 0, sizeof c);
    sends = commits = allreduces = largest_message = 0;
    counting = 1;
    switch (kind) {
    case TWOPHASE:
        c.rc = A2A_Alltoallv_twophase_bruck(send, counts, sdispls, MPI_BYTE, recv, rcounts,
                                            rdispls, MPI_BYTE, comm, &c.stats);
        break;
    case TUNA:
        c.rc = A2A_Alltoallv_tuna(send, counts, sdispls, MPI_BYTE, recv, rcounts, rdispls,
                                  MPI_BYTE, comm, radix, block_count, &c.stats);
        break;
    case STAGGERED:
        c.rc = A2A_Alltoallv_tuna_staggered(send, counts, sdispls, MPI_BYTE, recv, rcounts,
                                            rdispls, MPI_BYTE, comm, radix, block_count, ppn,
                                            &c.stats);
        break;
    case COALESCED:
        c.rc = A2A_Alltoallv_tuna_coalesced(send, counts, sdispls, MPI_BYTE, recv, rcounts,
                                            rdispls, MPI_BYTE, comm, radix, block_count, ppn,
                                            &c.stats);
        break;
    }
    counting = 0;
    c.sends = sends;
    c.commits = commits;
    c.allreduces = allreduces;
    c.largest_message = largest_message;
    *data_ok = c.rc != MPI_SUCCESS || memcmp(recv, reference, rtotal) == 0;
    free(send);
    free(recv);
    free(reference);
    free(counts);
    return c;
}

/* Guarantees: the rounds (x, z) of radix-r TuNA over P ranks with more than one block:
 * those send a size message. */
static long long size_rounds(int P, int r)
{
    long long rounds = 0;
    for (long long span = 1; span < P; span *= r)
        for (int z = 1; z < r; z++) {
            long long n = 0;
            for (int i = 1; i < P; i++)
                n += (i / span) % r == z;
            rounds += n > 1;
        }
    return rounds;
}

/* Guarantees: K, the rounds of radix-r TuNA over P ranks. */
static long long tuna_rounds(int P, int r)
{
    long long K = 0;
    for (long long span = 1; span < P; span *= r)
        K += (P - 1) / span < r - 1 ? (P - 1) / span : r - 1;
    return K;
}

/* Guarantees: one kernel call on comm with the small blocks: correct data, and on every
 * rank the message count (when expected_sends >= 0), no datatype commit, and no
 * MPI_Allreduce when no_allreduce. */
static void check_small(MPI_Comm comm, kernel_kind kind, int radix, int block_count, int ppn,
                        long long expected_sends, int no_allreduce)
{
    int P, rank, ok;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &rank);
    call_counts c = run_kernel(comm, kind, radix, block_count, ppn, SMALL, &ok);
    char what[300];
    snprintf(what, sizeof what, "%s P=%d radix=%d block_count=%d ppn=%d small blocks rank %d: "
             "rc=%d data %s, %lld sends (expected %lld, stats %lld), %lld commits, "
             "%lld allreduces", kernel_name[kind], P, radix, block_count, ppn, rank, c.rc,
             ok ? "ok" : "WRONG", c.sends, expected_sends, c.stats.messages, c.commits,
             c.allreduces);
    record(c.rc == MPI_SUCCESS && ok, what);
    if (expected_sends >= 0)
        record(c.sends == expected_sends && c.stats.messages == expected_sends, what);
    record(c.commits == 0, what);
    if (no_allreduce)
        record(c.allreduces == 0, what);
}

/* Guarantees: one kernel call on comm with blocks above the message limit: the same return
 * code on every rank, MPI_SUCCESS or MPI_ERR_COUNT (MPI_SUCCESS when must_succeed),
 * correct data on success, and no message above LIMIT on any rank. */
static void check_limit(MPI_Comm comm, kernel_kind kind, int radix, int block_count, int ppn,
                        sizes_kind k, int must_succeed)
{
    int P, rank, ok;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &rank);
    call_counts c = run_kernel(comm, kind, radix, block_count, ppn, k, &ok);
    int codes[2] = { c.rc, -c.rc }, span[2];
    MPI_Allreduce(codes, span, 2, MPI_INT, MPI_MAX, comm);
    char what[300];
    snprintf(what, sizeof what, "%s P=%d radix=%d block_count=%d ppn=%d %s blocks, limit %d, "
             "rank %d: rc=%d (codes over ranks %d..%d) data %s, largest message %lld",
             kernel_name[kind], P, radix, block_count, ppn, sizes_name[k], LIMIT, rank, c.rc,
             -span[1], span[0], ok ? "ok" : "WRONG", c.largest_message);
    record(span[0] == -span[1], what);
    record(c.rc == MPI_SUCCESS || c.rc == MPI_ERR_COUNT, what);
    if (must_succeed)
        record(c.rc == MPI_SUCCESS, what);
    record(ok, what);
    record(c.largest_message <= LIMIT, what);
}

int main(int argc, char **argv)
{
    setenv("A2A_MAX_MESSAGE_BYTES", "1000", 1);
    int world_size = test_init(&argc, &argv, &world_rank);
    int max_P = test_max_ranks(argc, argv, world_size);

    for (int P = 1; P <= max_P; P++) {
        MPI_Comm comm = test_first_ranks(P, world_rank);
        if (comm == MPI_COMM_NULL)
            continue;
        int top = P > 2 ? P : 2;
        /* radix P: P - 1 data messages, no size message, no type, no Allreduce */
        check_small(comm, TUNA, top, 1, 0, P - 1, 1);
        check_small(comm, TUNA, top, top - 1, 0, P - 1, 1);
        for (int r = 2; r <= 3 && r <= top; r++)
            check_small(comm, TUNA, r, 1, 0, tuna_rounds(P, r) + size_rounds(P, r), 0);
        check_small(comm, TWOPHASE, 2, 1, 0, tuna_rounds(P, 2) + size_rounds(P, 2), 0);
        for (int q = 1; q <= P; q++)
            if (P % q == 0 && q < P && P / q > 1) {
                check_small(comm, COALESCED, 2, 1, q, -1, 0);
                break;
            }

        for (sizes_kind k = LARGE_ALL; k <= LARGE_FROM_0; k++) {
            check_limit(comm, TUNA, top, 1, 0, k, 1);
            check_limit(comm, TUNA, top, top - 1, 0, k, 1);
            check_limit(comm, TUNA, 2, 1, 0, k, 0);
            check_limit(comm, TWOPHASE, 2, 1, 0, k, 0);
            check_limit(comm, STAGGERED, 2, 1, 1, k, 1);
            check_limit(comm, COALESCED, 2, 1, 1, k, 1);
            check_limit(comm, STAGGERED, top, 1, P, k, 0);
            if (P % 2 == 0)
                check_limit(comm, COALESCED, 2, 1, 2, k, 0);
        }
        test_done_ranks(&comm);
    }

    long long totals[2] = { checks_run, checks_failed }, sums[2];
    PMPI_Allreduce(totals, sums, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (world_rank == 0)
        printf("test_tuna_calls: %lld checks, %lld failed (P = 1..%d)\n", sums[0], sums[1],
               max_P);
    MPI_Finalize();
    return sums[1] == 0 ? 0 : 1;
}
