/* ranks: 16, mpich: 8 */
/*
 * test_vendor_baselines.c — the vendors' selections rebuilt on liba2a's kernels take the
 * branch their library takes, and give MPI's result.
 *
 *   mpirun -n N ./test_vendor_baselines [max_P]    (P = 1, 2, 3, 5, 8, 16 up to max_P)
 *
 * For every P, on a sub-communicator of the first P ranks, and block sizes on both sides of
 * each bound (0, 2, 16, 256, 257, 512, 8192, 32768, 32769 bytes):
 *   - the branch: A2A_Alltoall_mpich_selection_choice and ..._ompi_tuned_selection_choice
 *     name the algorithm a table written here from the libraries' sources expects
 *     (MPICH: bruck up to 256 B at P >= 8, scattered(min(32, P)) up to 32 KiB, pairwise
 *     with XOR partners above; Open MPI 4.1: its fixed decision's rows at P <= 16), and
 *     spot checks of the Open MPI table at large P;
 *   - the call ran that branch: the selection's a2a_stats equal those of the named kernel
 *     called directly, and carry the branch's own signature (Bruck: ceil(log2 P) rounds;
 *     scattered and linear_sync: P - 1 rounds and a request array; pairwise: P - 1
 *     rounds, no temporary memory; nothing at 0 bytes), so a selection that ran another
 *     kernel fails;
 *   - pairwise_xor's partners (through an MPI_Sendrecv wrapper): rank XOR i when P is a
 *     power of two, rank + i otherwise;
 *   - alltoallv: MPICH's selection, and the direct exchanges both libraries run
 *     (linear, spread_out, scattered), send no message for an empty block (counted
 *     against the blocks); Open MPI's selection runs pairwise below P = 4 and linear from 4;
 *   - blocks of 0 bytes, whatever their count (uniform spread_out and scattered at 0
 *     elements; alltoallv linear, spread_out, scattered with a type of size 0): no
 *     message, no round, nothing written;
 *   - every result equals MPI_Alltoall(v)'s, byte for byte, receive buffers poisoned.
 * One line per failure, a summary line; exit status 0 only if everything passed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "a2a.h"
#include "polite.h"
#include "test_common.h"

static int world_rank;
static long long checks_run, checks_failed;

/* ---- pairwise partners, recorded through MPI_Sendrecv ---------------------------------- */

enum { MAX_P = 16 };
static int recording, partners[MAX_P + 1], npartners;

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag,
                 void *rbuf, int rcount, MPI_Datatype rtype, int source, int rtag, MPI_Comm comm,
                 MPI_Status *status)
{
    if (recording && npartners <= MAX_P)
        partners[npartners++] = dest;
    return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag,
                         comm, status);
}

/* Guarantees: counts one check; prints `what` on a failure. */
static void expect(int ok, const char *what)
{
    checks_run++;
    if (!ok) {
        checks_failed++;
        printf("FAIL %s\n", what);
    }
}

/* ---- what the libraries' sources say --------------------------------------------------- */

/* MPICH 4's kernel for (P, block bytes), written from MPIR_Alltoall_intra_auto. */
static const char *mpich_expected(int P, long long b)
{
    if (b == 0)
        return NULL;
    if (b <= 256 && P >= 8)
        return "bruck";
    return b <= 32768 ? "scattered" : "pairwise_xor";
}

/* Open MPI 4.1's algorithm name for (P, block bytes) at P <= 16, written from
 * ompi_coll_tuned_alltoall_intra_dec_fixed's first rows. */
static const char *ompi_expected(int P, long long b)
{
    if (P == 2) {
        static const long long bound[] = { 2, 4, 16, 64, 256, 4096, 32768, 262144, 1048576 };
        static const char *const name[] = { "pairwise", "two_proc", "pairwise", "two_proc",
                                            "pairwise", "two_proc", "pairwise", "linear_sync",
                                            "two_proc", "pairwise" };
        int i = 0;
        while (i < 9 && b >= bound[i])
            i++;
        return name[i];
    }
    if (P < 8)
        return b < 8192 ? "linear_sync" : b < 16384 ? "linear" : b < 65536 ? "linear_sync"
                                                                             : "linear";
    if (P < 16)
        return b < 262144 ? "linear_sync" : "linear";
    if (b < 4)
        return "linear_sync";
    if (b < 512)
        return "modified_bruck";
    return b < 8192 ? "linear_sync" : b < 32768 ? "linear" : b < 262144 ? "linear_sync"
                                                                        : "linear";
}

/* ---- one uniform call ----------------------------------------------------------------- */

typedef int (*uniform_fn)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm,
                          a2a_stats *);

static int ceil_log2(int P)
{
    int k = 0;
    while ((1 << k) < P)
        k++;
    return k;
}

/* Guarantees: the direct call of liba2a's uniform kernel `kernel` with block_count. */
static int run_kernel(const char *kernel, int block_count, const char *sbuf, int S, char *rbuf,
                      MPI_Comm comm, a2a_stats *stats)
{
    if (strcmp(kernel, "bruck") == 0)
        return A2A_Alltoall_bruck(sbuf, S, MPI_BYTE, rbuf, S, MPI_BYTE, comm, stats);
    if (strcmp(kernel, "scattered") == 0)
        return A2A_Alltoall_scattered(sbuf, S, MPI_BYTE, rbuf, S, MPI_BYTE, comm, block_count,
                                      stats);
    if (strcmp(kernel, "pairwise_xor") == 0)
        return A2A_Alltoall_pairwise_xor(sbuf, S, MPI_BYTE, rbuf, S, MPI_BYTE, comm, stats);
    if (strcmp(kernel, "pairwise") == 0)
        return A2A_Alltoall_pairwise(sbuf, S, MPI_BYTE, rbuf, S, MPI_BYTE, comm, stats);
    return A2A_Alltoall_linear_sync(sbuf, S, MPI_BYTE, rbuf, S, MPI_BYTE, comm, block_count,
                                    stats);
}

/* Guarantees: checks one selection at (comm, S) against its choice: same stats as the
 * chosen kernel, the branch's signature, MPI_Alltoall's bytes. Collective on comm. */
static void check_uniform(MPI_Comm comm, const char *label, uniform_fn selection,
                          a2a_vendor_choice choice, int S)
{
    int rank, P;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &P);
    size_t bytes = (size_t)P * S;
    char *sbuf = malloc(bytes + 1), *rbuf = malloc(bytes + 1), *ref = malloc(bytes + 1);
    for (size_t i = 0; i < bytes; i++)
        sbuf[i] = (char)(rank * 131 + i * 7 + i / (S ? S : 1));
    char what[200];
    snprintf(what, sizeof what, "%s P=%d S=%d rank %d", label, P, S, rank);

    MPI_Alltoall(sbuf, S, MPI_BYTE, ref, S, MPI_BYTE, comm);
    memset(rbuf, 0xA5, bytes + 1);
    a2a_stats by_selection = { 0 }, by_kernel = { 0 };
    int rc = selection(sbuf, S, MPI_BYTE, rbuf, S, MPI_BYTE, comm, &by_selection);
    char line[300];
    snprintf(line, sizeof line, "%s: MPI_SUCCESS and MPI_Alltoall's bytes", what);
    expect(rc == MPI_SUCCESS && memcmp(rbuf, ref, bytes) == 0, line);

    if (!choice.kernel) {
        snprintf(line, sizeof line, "%s: nothing sent for empty blocks", what);
        expect(by_selection.messages == 0 && by_selection.rounds == 0, line);
    } else {
        memset(rbuf, 0xA5, bytes + 1);
        rc = run_kernel(choice.kernel, choice.block_count, sbuf, S, rbuf, comm, &by_kernel);
        snprintf(line, sizeof line, "%s: the same stats as %s(%d) called directly", what,
                 choice.kernel, choice.block_count);
        expect(rc == MPI_SUCCESS && memcmp(&by_selection, &by_kernel, sizeof by_kernel) == 0,
               line);
        long long rounds = strcmp(choice.kernel, "bruck") == 0 ? ceil_log2(P) : P - 1;
        int has_requests = strcmp(choice.kernel, "scattered") == 0 ||
                           strcmp(choice.kernel, "linear_sync") == 0;
        int requests_ok = has_requests ? by_selection.temp_bytes > 0 || P == 1
                                       : strcmp(choice.kernel, "bruck") == 0 ||
                                             by_selection.temp_bytes == 0;
        snprintf(line, sizeof line, "%s: %s's signature (%lld rounds, got %lld; temp %lld)",
                 what, choice.kernel, rounds, by_selection.rounds, by_selection.temp_bytes);
        expect(by_selection.rounds == rounds && requests_ok, line);
    }
    free(sbuf);
    free(rbuf);
    free(ref);
}

/* Guarantees: pairwise_xor's partner in round i is rank ^ i (P a power of two) or
 * rank + i, on every rank. Collective on comm. */
static void check_xor_partners(MPI_Comm comm)
{
    int rank, P;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &P);
    char sbuf[MAX_P], rbuf[MAX_P];
    memset(sbuf, rank, sizeof sbuf);
    npartners = 0;
    recording = 1;
    A2A_Alltoall_pairwise_xor(sbuf, 1, MPI_BYTE, rbuf, 1, MPI_BYTE, comm, NULL);
    recording = 0;
    int ok = npartners == P, pow2 = (P & (P - 1)) == 0;
    for (int i = 0; ok && i < P; i++)
        ok = partners[i] == (pow2 ? rank ^ i : (rank + i) % P);
    char line[120];
    snprintf(line, sizeof line, "pairwise_xor P=%d rank %d: partners %s", P, rank,
             pow2 ? "rank ^ i" : "rank + i");
    expect(ok, line);
}

/* ---- alltoallv -------------------------------------------------------------------------- */

/* The direct alltoallv exchanges both libraries run, as check_v and check_zero_bytes call
 * them: linear, spread_out, scattered with block_count 2 (1 at P = 1) and P. */
enum { DIRECT_V = 4 };
static const char *const direct_v_names[DIRECT_V] = { "linear", "spread_out", "scattered(2)",
                                                      "scattered(P)" };

/* Guarantees: runs direct exchange k (direct_v_names) on the arguments; its return code. */
static int direct_v(int k, const void *sbuf, const int *sc, const int *sd, MPI_Datatype type,
                    void *rbuf, const int *rc, const int *rd, MPI_Comm comm, int P, a2a_stats *st)
{
    if (k == 0)
        return A2A_Alltoallv_linear(sbuf, sc, sd, type, rbuf, rc, rd, type, comm, st);
    if (k == 1)
        return A2A_Alltoallv_spread_out(sbuf, sc, sd, type, rbuf, rc, rd, type, comm, st);
    return A2A_Alltoallv_scattered(sbuf, sc, sd, type, rbuf, rc, rd, type, comm,
                                   k == 2 ? (P < 2 ? 1 : 2) : P, st);
}

/* Guarantees: both alltoallv selections and the direct exchanges on blocks of
 * (src * 5 + dst * 3) % 7 bytes (some empty): MPI_Alltoallv's bytes; MPICH's selection,
 * linear, spread_out and scattered (block_count 2 and P) send exactly one message per
 * non-empty block to another rank; Open MPI's has the stats of the kernel its table names.
 * Collective. */
static void check_v(MPI_Comm comm)
{
    int rank, P;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &P);
    int sc[MAX_P], sd[MAX_P], rc[MAX_P], rd[MAX_P], stotal = 0, rtotal = 0, nonempty = 0;
    for (int j = 0; j < P; j++) {
        sc[j] = (rank * 5 + j * 3) % 7;
        rc[j] = (j * 5 + rank * 3) % 7;
        sd[j] = stotal;
        rd[j] = rtotal;
        stotal += sc[j];
        rtotal += rc[j];
        nonempty += j != rank && sc[j] > 0;
    }
    char *sbuf = malloc(stotal + 1), *rbuf = malloc(rtotal + 1), *ref = malloc(rtotal + 1);
    for (int i = 0; i < stotal; i++)
        sbuf[i] = (char)(rank * 17 + i);
    MPI_Alltoallv(sbuf, sc, sd, MPI_BYTE, ref, rc, rd, MPI_BYTE, comm);
    char line[160];

    a2a_stats mpich = { 0 };
    memset(rbuf, 0xA5, rtotal + 1);
    int err = A2A_Alltoallv_mpich_selection(sbuf, sc, sd, MPI_BYTE, rbuf, rc, rd, MPI_BYTE, comm,
                                            &mpich);
    snprintf(line, sizeof line, "alltoallv mpich_selection P=%d rank %d: bytes, %d messages "
             "(got %lld)", P, rank, nonempty, mpich.messages);
    expect(err == MPI_SUCCESS && memcmp(rbuf, ref, rtotal) == 0 && mpich.messages == nonempty,
           line);

    for (int k = 0; k < DIRECT_V; k++) {
        a2a_stats st = { 0 };
        memset(rbuf, 0xA5, rtotal + 1);
        err = direct_v(k, sbuf, sc, sd, MPI_BYTE, rbuf, rc, rd, comm, P, &st);
        snprintf(line, sizeof line, "alltoallv %s P=%d rank %d: bytes, %d messages (got %lld)",
                 direct_v_names[k], P, rank, nonempty, st.messages);
        expect(err == MPI_SUCCESS && memcmp(rbuf, ref, rtotal) == 0 && st.messages == nonempty,
               line);
    }

    a2a_stats ompi = { 0 }, direct = { 0 };
    a2a_vendor_choice choice = A2A_Alltoallv_ompi_tuned_selection_choice(P);
    memset(rbuf, 0xA5, rtotal + 1);
    err = A2A_Alltoallv_ompi_tuned_selection(sbuf, sc, sd, MPI_BYTE, rbuf, rc, rd, MPI_BYTE,
                                             comm, &ompi);
    int same = err == MPI_SUCCESS && memcmp(rbuf, ref, rtotal) == 0;
    if (strcmp(choice.kernel, "pairwise") == 0)
        err = A2A_Alltoallv_pairwise(sbuf, sc, sd, MPI_BYTE, rbuf, rc, rd, MPI_BYTE, comm,
                                     &direct);
    else
        err = A2A_Alltoallv_linear(sbuf, sc, sd, MPI_BYTE, rbuf, rc, rd, MPI_BYTE, comm,
                                   &direct);
    snprintf(line, sizeof line, "alltoallv ompi_tuned_selection P=%d rank %d: bytes, %s "
             "(expected %s)", P, rank, choice.kernel, P < 4 ? "pairwise" : "linear");
    expect(same && err == MPI_SUCCESS && memcmp(&ompi, &direct, sizeof direct) == 0 &&
               strcmp(choice.kernel, P < 4 ? "pairwise" : "linear") == 0,
           line);
    free(sbuf);
    free(rbuf);
    free(ref);
}

/* Guarantees: the direct exchanges post nothing for blocks of 0 bytes, whatever their
 * count: uniform spread_out and scattered (block_count 2 and P) at 0 elements, and
 * alltoallv linear, spread_out and scattered with 3 elements of a type of size 0 in every
 * block: MPI_SUCCESS, no message, no round, the (poisoned) receive buffer untouched, as
 * MPI's result leaves it. Collective. */
static void check_zero_bytes(MPI_Comm comm)
{
    int rank, P;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &P);
    MPI_Datatype empty;
    MPI_Type_contiguous(0, MPI_INT, &empty);
    MPI_Type_commit(&empty);
    int counts[MAX_P], displs[MAX_P];
    for (int j = 0; j < P; j++) {
        counts[j] = 3;
        displs[j] = j;
    }
    char sbuf[4] = { 1, 2, 3, 4 }, rbuf[4], poison[4] = { 'Z', 'Z', 'Z', 'Z' };
    static const char *const names[] = { "spread_out", "scattered(2)", "scattered(P)",
                                         "linear (v, size-0 type)", "spread_out (v, size-0 type)",
                                         "scattered(2) (v, size-0 type)" };
    int two = P < 2 ? 1 : 2;
    for (int k = 0; k < 6; k++) {
        a2a_stats st = { 0 };
        int err;
        memcpy(rbuf, poison, sizeof rbuf);
        if (k == 0)
            err = A2A_Alltoall_spread_out(sbuf, 0, MPI_BYTE, rbuf, 0, MPI_BYTE, comm, &st);
        else if (k < 3)
            err = A2A_Alltoall_scattered(sbuf, 0, MPI_BYTE, rbuf, 0, MPI_BYTE, comm,
                                         k == 1 ? two : P, &st);
        else
            err = direct_v(k - 3, sbuf, counts, displs, empty, rbuf, counts, displs, comm, P,
                           &st);
        char line[160];
        snprintf(line, sizeof line, "%s P=%d rank %d, 0 bytes a block: no message (got %lld), "
                 "no round, nothing written", names[k], P, rank, st.messages);
        expect(err == MPI_SUCCESS && st.messages == 0 && st.rounds == 0 &&
                   memcmp(rbuf, poison, sizeof rbuf) == 0,
               line);
    }
    MPI_Type_free(&empty);
}

/* Guarantees: spot checks of the Open MPI table where no launch here reaches. */
static void check_large_p_table(void)
{
    static const struct { int P; long long b; const char *name; } cases[] = {
        { 100, 1000, "modified_bruck" }, { 100, 1024, "linear" }, { 100, 300000, "pairwise" },
        { 600, 100000, "linear_sync" }, { 1500, 1500, "linear" }, { 3000, 5000, "linear" },
        { 8192, 1000, "modified_bruck" }, { 16384, 20000, "linear_sync" },
        { 16384, 40000, "linear" }, { 16384, 100000, "linear_sync" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        a2a_vendor_choice c = A2A_Alltoall_ompi_tuned_selection_choice(cases[i].P, cases[i].b);
        char line[120];
        snprintf(line, sizeof line, "Open MPI table P=%d b=%lld: %s (got %s)", cases[i].P,
                 cases[i].b, cases[i].name, c.vendor_algorithm);
        expect(strcmp(c.vendor_algorithm, cases[i].name) == 0, line);
    }
    a2a_vendor_choice m = A2A_Alltoall_mpich_selection_choice(4096, 256);
    expect(strcmp(m.kernel, "bruck") == 0, "MPICH P=4096 b=256: bruck");
    m = A2A_Alltoall_mpich_selection_choice(4096, 1000);
    expect(strcmp(m.kernel, "scattered") == 0 && m.block_count == 32,
           "MPICH P=4096 b=1000: scattered, 32 peers a batch");
}

int main(int argc, char **argv)
{
    int world_size = test_init(&argc, &argv, &world_rank);
    int max_P = test_max_ranks(argc, argv, world_size);
    if (world_rank == 0)
        check_large_p_table();

    static const int Ps[] = { 1, 2, 3, 5, 8, 16 };
    static const int sizes[] = { 0, 2, 16, 256, 257, 512, 8192, 32768, 32769 };
    for (size_t p = 0; p < sizeof Ps / sizeof Ps[0] && Ps[p] <= max_P; p++) {
        int P = Ps[p];
        MPI_Comm comm = test_first_ranks(P, world_rank);
        if (comm == MPI_COMM_NULL)
            continue;
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            int S = sizes[s];
            char line[160];
            a2a_vendor_choice m = A2A_Alltoall_mpich_selection_choice(P, S);
            const char *want = mpich_expected(P, S);
            snprintf(line, sizeof line, "MPICH choice P=%d S=%d: %s (got %s)", P, S,
                     want ? want : "none", m.kernel ? m.kernel : "none");
            expect(want ? m.kernel && strcmp(m.kernel, want) == 0 &&
                              (strcmp(want, "scattered") != 0 || m.block_count == P)
                        : m.kernel == NULL,
                   line);
            check_uniform(comm, "mpich_selection", A2A_Alltoall_mpich_selection, m, S);

            a2a_vendor_choice o = A2A_Alltoall_ompi_tuned_selection_choice(P, S);
            if (P > 1) {
                snprintf(line, sizeof line, "Open MPI choice P=%d S=%d: %s (got %s)", P, S,
                         ompi_expected(P, S), o.vendor_algorithm);
                expect(strcmp(o.vendor_algorithm, ompi_expected(P, S)) == 0, line);
            }
            check_uniform(comm, "ompi_tuned_selection", A2A_Alltoall_ompi_tuned_selection, o,
                          S);
        }
        check_xor_partners(comm);
        check_v(comm);
        check_zero_bytes(comm);
        test_done_ranks(&comm);
    }

    long long totals[2] = { checks_run, checks_failed }, sums[2];
    MPI_Allreduce(totals, sums, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (world_rank == 0)
        printf("test_vendor_baselines: %lld checks, %lld failed (P = 1, 2, 3, 5, 8, 16 up to "
               "%d)\n", sums[0], sums[1], max_P);
    MPI_Finalize();
    return sums[1] == 0 ? 0 : 1;
}
