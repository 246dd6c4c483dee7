/* ranks: 64 */
/*
 * test_tra_model.c — the K/D model of the TRA paper and the kernels that must match it.
 *
 *   mpirun -n N ./test_tra_model [maxP]
 *
 * (a) the model against the paper's figures, the literal Propositions 1-4 and a brute-force
 *     count of base-r digits; (b) for every P <= maxP (first P ranks) and every radix:
 *     A2A_Alltoall_tra and A2A_Alltoall_bruck against MPI_Alltoall, byte for byte, with a
 *     poisoned receive buffer and an untouched send buffer, and measured rounds/blocks
 *     equal to the model; (c) A2A_Alltoall_tra2 for several (P, Q) and all (r1, r2), with
 *     rounds_local = K(Q, r1), rounds_global = K(P/Q, r2), and checks that r1, r2 and ppn
 *     each change what is measured, and ppn = 0 (the real node) once; (d) at P = 6:
 *     argument errors, a derived send type, a zero count.
 * One line per failure, a summary line; exit status 0 only if everything passed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "a2a.h"
#include "test_common.h"
#include "radix_model.h"

enum { BLOCK_UINTS = 3 };

typedef enum { KERNEL_BRUCK, KERNEL_TRA, KERNEL_TRA2 } kernel_kind;

/* One kernel call to check and what its stats must show. */
typedef struct config {
    kernel_kind kind;
    int radix, radix_global, ppn;
    long long rounds, blocks, rounds_local, rounds_global; /* expected; -1: not checked */
} config;

enum {
    BAD_RETURN = 1 << 0,
    BAD_DATA = 1 << 1,
    BAD_SEND_BUFFER = 1 << 2,
    BAD_ROUNDS = 1 << 3,
    BAD_BLOCKS = 1 << 4,
    BAD_ROUNDS_LOCAL = 1 << 5,
    BAD_ROUNDS_GLOBAL = 1 << 6,
    BAD_BYTES = 1 << 7,
    BAD_MESSAGES = 1 << 8,
};

static int world_rank;
static long long checks_run, checks_failed; /* counted on world rank 0 */

/* Guarantees: a value whose every byte depends on (source, destination, index). */
static unsigned block_value(int source, int dest, int index)
{
    uint32_t h = (uint32_t)source * 0x9E3779B1u ^ (uint32_t)dest * 0x85EBCA77u ^
                 (uint32_t)(index + 1) * 0xC2B2AE3Du;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    h *= 0x297A2D39u;
    h ^= h >> 15;
    return (unsigned)h;
}

/* Guarantees: records one check on rank 0; prints a line for a failure. */
static void record(int ok, const char *what)
{
    test_count_check(&checks_run, &checks_failed, ok, what);
}

/* ---- (a) the model ------------------------------------------------------------------ */

/* Guarantees: r^e computed naively (only for small values in this test). */
static long long ipow(long long r, int e)
{
    long long v = 1;
    while (e-- > 0)
        v *= r;
    return v;
}

/* Guarantees: the model equals a brute-force count over the digits of 0..P-1, the literal
 * Proposition 3 / Proposition 2 formulas, and the sum of Proposition 4's h. */
static void check_model_against_brute_force(long long P, long long r)
{
    char what[200];
    int w = 0;
    while (ipow(r, w) < P)
        w++;
    long long *count = calloc((size_t)(w > 0 ? w : 1) * (size_t)r, sizeof *count);
    for (long long i = 0; i < P; i++) {
        long long rest = i;
        for (int x = 0; x < w; x++, rest /= r)
            count[(size_t)x * (size_t)r + (size_t)(rest % r)]++;
    }
    long long rounds = 0, blocks = 0, sum_h = 0, bad_h = 0;
    for (int x = 0; x < w; x++)
        for (long long z = 1; z < r; z++) {
            long long n = count[(size_t)x * (size_t)r + (size_t)z];
            rounds += n > 0;
            blocks += n;
            long long h = a2a_model_round_blocks(P, r, x, z);
            sum_h += h;
            bad_h += h != n;
        }
    free(count);
    long long K = a2a_model_rounds(P, r), D = a2a_model_blocks(P, r);
    int ok = a2a_model_digits(P, r) == w && K == rounds && D == blocks && sum_h == D &&
             bad_h == 0;
    if (P >= 2) {
        long long rw = ipow(r, w), rw1 = ipow(r, w - 1);
        ok = ok && K == w * (r - 1) - (rw - P) / rw1; /* Proposition 3 (1 when P = r^w) */
        if (rw == P)
            ok = ok && D == w * (r - 1) * rw1; /* Proposition 2 */
    }
    snprintf(what, sizeof what,
             "model P=%lld r=%lld: w=%d K=%lld D=%lld sum(h)=%lld, brute force w=%d K=%lld "
             "D=%lld, %lld rounds with wrong h",
             P, r, a2a_model_digits(P, r), K, D, sum_h, w, rounds, blocks, bad_h);
    record(ok, what);
}

/* Guarantees: checks the model on rank 0 (figures of the paper, edge cases, brute force). */
static void check_model(void)
{
    char what[200];
    struct {
        long long P, r, K, D;
        const char *source;
    } figures[] = {
        { 16384, 128, 254, 32512, "Section III-B, r = sqrt(P)" },
        { 16384, 2, 14, 114688, "Section III-B, r = 2" },
        { 16384, 16384, 16383, 16383, "Section III-B, r = P" },
        { 8, 3, 4, 10, "Fig. 1" },
        { 9, 3, 4, 12, "Fig. 2, Propositions 1-2" },
        { 11, 3, 5, 15, "Fig. 3, Propositions 3-4" },
        { 1, 2, 0, 0, "P = 1" },
        { 2, 2, 1, 1, "P = 2" },
        { 5, 9, 4, 4, "r > P" },
    };
    for (size_t i = 0; i < sizeof figures / sizeof figures[0]; i++) {
        long long K = a2a_model_rounds(figures[i].P, figures[i].r);
        long long D = a2a_model_blocks(figures[i].P, figures[i].r);
        printf("model P=%lld r=%lld: w=%d K=%lld D=%lld (%s: K=%lld D=%lld)\n", figures[i].P,
               figures[i].r, a2a_model_digits(figures[i].P, figures[i].r), K, D,
               figures[i].source, figures[i].K, figures[i].D);
        snprintf(what, sizeof what, "model P=%lld r=%lld: K=%lld D=%lld, expected %lld %lld",
                 figures[i].P, figures[i].r, K, D, figures[i].K, figures[i].D);
        record(K == figures[i].K && D == figures[i].D, what);
    }
    /* Fig. 3 lists the blocks of each round: 4,3 | 3,3 | 2 (x = 2 has only z = 1). */
    long long fig3[3][2] = { { 4, 3 }, { 3, 3 }, { 2, 0 } };
    for (int x = 0; x < 3; x++)
        for (int z = 1; z < 3; z++) {
            long long h = a2a_model_round_blocks(11, 3, x, z);
            snprintf(what, sizeof what, "model h(P=11, r=3, x=%d, z=%d) = %lld, expected %lld",
                     x, z, h, fig3[x][z - 1]);
            record(h == fig3[x][z - 1], what);
        }
    record(a2a_model_rounds(8, 1) == -1 && a2a_model_blocks(8, 1) == -1 &&
               a2a_model_digits(8, 0) == -1,
           "model: r < 2 must give -1");
    for (long long P = 1; P <= 200; P++)
        for (long long r = 2; r <= P + 3; r++)
            check_model_against_brute_force(P, r);
    for (long long r = 2; r <= 12; r++) /* exact powers P = r^w beyond 200 */
        for (int w = 1; ipow(r, w) <= 5000; w++)
            check_model_against_brute_force(ipow(r, w), r);
}

/* ---- (b), (c) the kernels ------------------------------------------------------------- */

/* Guarantees: a readable name of a configuration. */
static void describe(char *out, size_t n, const config *c, int P)
{
    if (c->kind == KERNEL_BRUCK)
        snprintf(out, n, "bruck P=%d", P);
    else if (c->kind == KERNEL_TRA)
        snprintf(out, n, "tra P=%d r=%d", P, c->radix);
    else
        snprintf(out, n, "tra2 P=%d ppn=%d r1=%d r2=%d", P, c->ppn, c->radix, c->radix_global);
}

/* Guarantees: runs one configuration on comm, checks data and stats on every rank, and
 * (on world rank 0, which is rank 0 of every comm here) records one result. Returns the
 * stats of rank 0 so callers can compare configurations. */
static a2a_stats run_config(MPI_Comm comm, const config *c, const unsigned *send,
                            const unsigned *send_copy, const unsigned *reference,
                            unsigned *recv, int poison)
{
    int rank, P;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &P);
    size_t bytes = (size_t)P * BLOCK_UINTS * sizeof(unsigned);
    memset(recv, poison, bytes);
    a2a_stats st;
    memset(&st, 0, sizeof st);
    int rc;
    if (c->kind == KERNEL_BRUCK)
        rc = A2A_Alltoall_bruck(send, BLOCK_UINTS, MPI_UNSIGNED, recv, BLOCK_UINTS,
                                MPI_UNSIGNED, comm, &st);
    else if (c->kind == KERNEL_TRA)
        rc = A2A_Alltoall_tra(send, BLOCK_UINTS, MPI_UNSIGNED, recv, BLOCK_UINTS, MPI_UNSIGNED,
                              comm, c->radix, &st);
    else
        rc = A2A_Alltoall_tra2(send, BLOCK_UINTS, MPI_UNSIGNED, recv, BLOCK_UINTS,
                               MPI_UNSIGNED, comm, c->radix, c->radix_global, c->ppn, &st);
    int flags = 0;
    if (rc != MPI_SUCCESS)
        flags |= BAD_RETURN;
    if (memcmp(recv, reference, bytes) != 0)
        flags |= BAD_DATA;
    if (memcmp(send, send_copy, bytes) != 0)
        flags |= BAD_SEND_BUFFER;
    if (st.rounds != c->rounds)
        flags |= BAD_ROUNDS;
    if (st.blocks != c->blocks)
        flags |= BAD_BLOCKS;
    if (c->rounds_local >= 0 && st.rounds_local != c->rounds_local)
        flags |= BAD_ROUNDS_LOCAL;
    if (c->rounds_global >= 0 && st.rounds_global != c->rounds_global)
        flags |= BAD_ROUNDS_GLOBAL;
    if (st.bytes != st.blocks * (long long)(BLOCK_UINTS * sizeof(unsigned)))
        flags |= BAD_BYTES;
    if (st.messages != st.rounds)
        flags |= BAD_MESSAGES;
    int all_flags = 0;
    MPI_Allreduce(&flags, &all_flags, 1, MPI_INT, MPI_BOR, comm);
    if (rank == 0) {
        char name[120], what[400];
        describe(name, sizeof name, c, P);
        snprintf(what, sizeof what,
                 "%s:%s%s%s%s%s%s%s%s%s (rank 0: rc=%d rounds=%lld/%lld blocks=%lld/%lld "
                 "local=%lld/%lld global=%lld/%lld bytes=%lld messages=%lld)",
                 name, all_flags & BAD_RETURN ? " error-return" : "",
                 all_flags & BAD_DATA ? " wrong-data" : "",
                 all_flags & BAD_SEND_BUFFER ? " send-buffer-modified" : "",
                 all_flags & BAD_ROUNDS ? " rounds!=model" : "",
                 all_flags & BAD_BLOCKS ? " blocks!=model" : "",
                 all_flags & BAD_ROUNDS_LOCAL ? " rounds_local!=model" : "",
                 all_flags & BAD_ROUNDS_GLOBAL ? " rounds_global!=model" : "",
                 all_flags & BAD_BYTES ? " bytes!=blocks*size" : "",
                 all_flags & BAD_MESSAGES ? " messages!=rounds" : "", rc, st.rounds, c->rounds,
                 st.blocks, c->blocks, st.rounds_local, c->rounds_local, st.rounds_global,
                 c->rounds_global, st.bytes, st.messages);
        record(all_flags == 0, what);
    }
    return st;
}

/* Guarantees: a TRA2 configuration with its model expectations. */
static config tra2_config(int P, int Q, int r1, int r2)
{
    int N = P / Q;
    config c = { KERNEL_TRA2, r1, r2, Q, 0, 0, a2a_model_rounds(Q, r1), a2a_model_rounds(N, r2) };
    c.rounds = c.rounds_local + c.rounds_global;
    c.blocks = N * a2a_model_blocks(Q, r1) + Q * a2a_model_blocks(N, r2);
    return c;
}

/* Guarantees: records that a measured value changed between two runs, as the model says. */
static void record_change(const char *what_changed, int P, long long a, long long b,
                          long long model_a, long long model_b)
{
    char what[300];
    snprintf(what, sizeof what, "P=%d: %s must change measured rounds: %lld -> %lld "
             "(model %lld -> %lld)", P, what_changed, a, b, model_a, model_b);
    record(a != b && a == model_a && b == model_b, what);
}

/* Guarantees: each of r1, r2 and ppn alone changes the measured rounds of TRA2. */
static void check_parameters_act(MPI_Comm comm, const unsigned *send, const unsigned *copy,
                                 const unsigned *reference, unsigned *recv)
{
    int P, rank;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &rank);
    int q_small = 2, q_large = P / 2; /* P = 8: Q = 2 (N = 4) vs Q = 4 (N = 2) */
    config g_low = tra2_config(P, q_small, 2, 2);
    config g_high = tra2_config(P, q_small, 2, P / q_small);
    config l_low = tra2_config(P, q_large, 2, 2);
    config l_high = tra2_config(P, q_large, q_large, 2);
    a2a_stats s_g_low = run_config(comm, &g_low, send, copy, reference, recv, 0x11);
    a2a_stats s_g_high = run_config(comm, &g_high, send, copy, reference, recv, 0x22);
    a2a_stats s_l_low = run_config(comm, &l_low, send, copy, reference, recv, 0x33);
    a2a_stats s_l_high = run_config(comm, &l_high, send, copy, reference, recv, 0x44);
    if (rank != 0)
        return;
    char what[100];
    snprintf(what, sizeof what, "r2 (Q=%d, r1=2, r2=2 vs %d) alone", q_small, P / q_small);
    record_change(what, P, s_g_low.rounds_global, s_g_high.rounds_global, g_low.rounds_global,
                  g_high.rounds_global);
    snprintf(what, sizeof what, "r1 (Q=%d, r2=2, r1=2 vs %d) alone", q_large, q_large);
    record_change(what, P, s_l_low.rounds_local, s_l_high.rounds_local, l_low.rounds_local,
                  l_high.rounds_local);
    snprintf(what, sizeof what, "ppn (r1=r2=2, Q=%d vs %d) alone", q_small, q_large);
    record_change(what, P, s_g_low.rounds_local, s_l_low.rounds_local, g_low.rounds_local,
                  l_low.rounds_local);
    record(s_g_low.rounds_local == s_g_high.rounds_local &&
               s_l_low.rounds_global == s_l_high.rounds_global,
           "TRA2: changing one radix must leave the other layer's rounds unchanged");
}

/* Guarantees: argument errors come back as MPI_ERR_ARG without communication; a strided
 * type, a contiguous derived type and a zero count work. */
static void check_arguments(MPI_Comm comm, const unsigned *send, const unsigned *reference,
                            unsigned *recv)
{
    int P, rank;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &rank);
    /* Each call returns before any communication, so the ranks need not agree on order. */
    const char *names[7] = { "tra radix 1", "tra radix P+1", "tra2 ppn=4 with P % 4 != 0",
                             "tra2 r1 = Q+1", "tra2 r2 = N+1", "tra2 r2 = 1", "tra2 ppn = -1" };
    int rcs_arg[7];
    rcs_arg[0] = A2A_Alltoall_tra(send, 3, MPI_UNSIGNED, recv, 3, MPI_UNSIGNED, comm, 1, NULL);
    rcs_arg[1] =
        A2A_Alltoall_tra(send, 3, MPI_UNSIGNED, recv, 3, MPI_UNSIGNED, comm, P + 1, NULL);
    rcs_arg[2] =
        A2A_Alltoall_tra2(send, 3, MPI_UNSIGNED, recv, 3, MPI_UNSIGNED, comm, 2, 2, 4, NULL);
    rcs_arg[3] =
        A2A_Alltoall_tra2(send, 3, MPI_UNSIGNED, recv, 3, MPI_UNSIGNED, comm, 4, 2, 3, NULL);
    rcs_arg[4] = A2A_Alltoall_tra2(send, 3, MPI_UNSIGNED, recv, 3, MPI_UNSIGNED, comm, 3,
                                   P / 3 + 1, 3, NULL);
    rcs_arg[5] =
        A2A_Alltoall_tra2(send, 3, MPI_UNSIGNED, recv, 3, MPI_UNSIGNED, comm, 2, 1, 3, NULL);
    rcs_arg[6] =
        A2A_Alltoall_tra2(send, 3, MPI_UNSIGNED, recv, 3, MPI_UNSIGNED, comm, 2, 2, -1, NULL);
    for (int i = 0; i < 7; i++) {
        char what[120];
        snprintf(what, sizeof what, "P=%d: %s must return MPI_ERR_ARG (got %d)", P, names[i],
                 rcs_arg[i]);
        if (rank == 0)
            record(rcs_arg[i] == MPI_ERR_ARG, what);
    }

    /* A strided type (3 of every 5 unsigned): packed and unpacked through MPI, the result
     * is MPI_Alltoall's, gaps of the receive buffer untouched (collective: every rank). */
    MPI_Datatype strided, triple;
    MPI_Type_vector(3, 1, 2, MPI_UNSIGNED, &strided);
    MPI_Type_commit(&strided);
    size_t strided_len = (size_t)P * 5;
    unsigned *s_send = malloc(strided_len * sizeof *s_send);
    unsigned *s_recv = malloc(strided_len * sizeof *s_recv);
    unsigned *s_ref = malloc(strided_len * sizeof *s_ref);
    for (size_t i = 0; i < strided_len; i++)
        s_send[i] = (unsigned)(rank * 1000 + i);
    memset(s_recv, 0x5b, strided_len * sizeof *s_recv);
    memset(s_ref, 0x5b, strided_len * sizeof *s_ref);
    MPI_Alltoall(s_send, 1, strided, s_ref, 1, strided, comm);
    int rc = A2A_Alltoall_tra(s_send, 1, strided, s_recv, 1, strided, comm, 2, NULL);
    int same = rc == MPI_SUCCESS && memcmp(s_recv, s_ref, strided_len * sizeof *s_ref) == 0;
    MPI_Type_free(&strided);
    free(s_send);
    free(s_recv);
    free(s_ref);
    if (rank == 0)
        record(same, "tra with a strided type must give MPI_Alltoall's result");

    /* Send as 1 x (3 unsigned), receive as 3 x unsigned. */
    MPI_Type_contiguous(3, MPI_UNSIGNED, &triple);
    MPI_Type_commit(&triple);
    size_t bytes = (size_t)P * BLOCK_UINTS * sizeof(unsigned);
    int rcs[3], bad = 0;
    memset(recv, 0x5c, bytes);
    rcs[0] = A2A_Alltoall_tra(send, 1, triple, recv, 3, MPI_UNSIGNED, comm, 3, NULL);
    bad |= memcmp(recv, reference, bytes) != 0;
    memset(recv, 0x5d, bytes);
    rcs[1] = A2A_Alltoall_bruck(send, 1, triple, recv, 3, MPI_UNSIGNED, comm, NULL);
    bad |= memcmp(recv, reference, bytes) != 0;
    memset(recv, 0x5e, bytes);
    rcs[2] = A2A_Alltoall_tra2(send, 1, triple, recv, 3, MPI_UNSIGNED, comm, 3, 2, 3, NULL);
    bad |= memcmp(recv, reference, bytes) != 0;
    MPI_Type_free(&triple);
    bad |= rcs[0] != MPI_SUCCESS || rcs[1] != MPI_SUCCESS || rcs[2] != MPI_SUCCESS;
    int any_bad = 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_LOR, comm);
    if (rank == 0)
        record(!any_bad, "contiguous derived send type vs predefined receive type");

    /* Zero count: nothing to move, the rounds still match the model. */
    a2a_stats st;
    memset(&st, 0, sizeof st);
    unsigned dummy = 0;
    rc = A2A_Alltoall_tra(&dummy, 0, MPI_UNSIGNED, recv, 0, MPI_UNSIGNED, comm, 3, &st);
    bad = rc != MPI_SUCCESS || st.rounds != a2a_model_rounds(P, 3) || st.bytes != 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_LOR, comm);
    if (rank == 0)
        record(!any_bad, "tra with count 0");
}

/* Guarantees: whether (P, Q) is one of the TRA2 layouts tested with all radices. */
static int tra2_layout_tested(int P, int Q)
{
    static const int layouts[][2] = {
        { 1, 1 },  { 2, 1 },   { 2, 2 },  { 4, 2 },  { 6, 2 },  { 6, 3 },  { 8, 2 },
        { 8, 4 },  { 9, 3 },   { 12, 1 }, { 12, 3 }, { 12, 4 }, { 12, 12 }, { 16, 2 },
        { 16, 4 }, { 16, 8 },  { 18, 6 }, { 20, 4 }, { 24, 6 }, { 30, 5 }, { 32, 8 },
        { 36, 6 }, { 48, 16 }, { 64, 8 }, { 64, 2 }, { 64, 32 },
    };
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
        if (layouts[i][0] == P && layouts[i][1] == Q)
            return 1;
    return 0;
}

/* Guarantees: all kernel checks for one communicator of P ranks. */
static void check_kernels(MPI_Comm comm, int max_p)
{
    int rank, P;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &P);
    size_t count = (size_t)P * BLOCK_UINTS;
    unsigned *send = malloc(count * sizeof *send), *copy = malloc(count * sizeof *copy);
    unsigned *reference = malloc(count * sizeof *reference), *recv = malloc(count * sizeof *recv);
    for (int dest = 0; dest < P; dest++)
        for (int k = 0; k < BLOCK_UINTS; k++)
            send[dest * BLOCK_UINTS + k] = block_value(rank, dest, k);
    memcpy(copy, send, count * sizeof *send);
    memset(reference, 0xee, count * sizeof *reference);
    MPI_Alltoall(send, BLOCK_UINTS, MPI_UNSIGNED, reference, BLOCK_UINTS, MPI_UNSIGNED, comm);
    int bad = 0, any_bad = 0;
    for (int source = 0; source < P; source++)
        for (int k = 0; k < BLOCK_UINTS; k++)
            bad |= reference[source * BLOCK_UINTS + k] != block_value(source, rank, k);
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_LOR, comm);
    if (rank == 0) {
        char what[80];
        snprintf(what, sizeof what, "P=%d: MPI_Alltoall reference differs from expectation", P);
        record(!any_bad, what);
    }

    int poison = 0;
    config bruck = { KERNEL_BRUCK, 2, 0, 0, a2a_model_rounds(P, 2), a2a_model_blocks(P, 2), -1,
                     -1 };
    run_config(comm, &bruck, send, copy, reference, recv, 0xa5 + poison++);
    for (int r = 2; r <= (P > 2 ? P : 2); r++) {
        config tra = { KERNEL_TRA, r, 0, 0, a2a_model_rounds(P, r), a2a_model_blocks(P, r), -1,
                       -1 };
        run_config(comm, &tra, send, copy, reference, recv, 0xa5 + poison++);
    }
    for (int Q = 1; Q <= P; Q++) {
        if (P % Q != 0 || !tra2_layout_tested(P, Q))
            continue;
        int N = P / Q;
        for (int r1 = 2; r1 <= (Q > 2 ? Q : 2); r1++)
            for (int r2 = 2; r2 <= (N > 2 ? N : 2); r2++) {
                config c = tra2_config(P, Q, r1, r2);
                run_config(comm, &c, send, copy, reference, recv, 0xa5 + poison++);
            }
    }
    if (P == max_p) { /* ppn = 0: Q is the size of the real shared-memory node */
        int q_real = 0;
        if (A2A_Node_layout(comm, 0, &q_real, NULL, NULL) != MPI_SUCCESS)
            q_real = 0;
        if (q_real > 0) {
            int r1 = q_real > 2 ? (q_real + 1) / 2 : 2, r2 = P / q_real > 2 ? 3 : 2;
            config c = tra2_config(P, q_real, r1, r2);
            c.ppn = 0;
            run_config(comm, &c, send, copy, reference, recv, 0x3c);
        } else if (rank == 0) {
            record(0, "A2A_Node_layout(ppn = 0) failed: ranks not laid out node by node");
        }
    }
    if (P == 8 || P == 16)
        check_parameters_act(comm, send, copy, reference, recv);
    if (P == 6)
        check_arguments(comm, send, reference, recv);
    free(send);
    free(copy);
    free(reference);
    free(recv);
}

int main(int argc, char **argv)
{
    int world_size = test_init(&argc, &argv, &world_rank);
    int max_p = world_size;
    if (argc > 1) {
        int asked = atoi(argv[1]);
        if (asked >= 1 && asked < world_size)
            max_p = asked;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();

    if (world_rank == 0)
        check_model();

    for (int P = 1; P <= max_p; P++) {
        MPI_Comm sub;
        MPI_Comm_split(MPI_COMM_WORLD, world_rank < P ? 0 : MPI_UNDEFINED, world_rank, &sub);
        if (sub != MPI_COMM_NULL) {
            check_kernels(sub, max_p);
            MPI_Comm_free(&sub);
        }
    }

    MPI_Barrier(MPI_COMM_WORLD);
    int passed = checks_failed == 0;
    MPI_Bcast(&passed, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (world_rank == 0) {
        printf("test_tra_model: %s, %lld checks, %lld failed, P = 1..%d on %d ranks, %.2f s\n",
               passed ? "PASS" : "FAIL", checks_run, checks_failed, max_p, world_size,
               MPI_Wtime() - start);
        fflush(stdout);
    }
    MPI_Finalize();
    return passed ? 0 : 1;
}
