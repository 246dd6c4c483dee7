/* ranks: 16 */
/*
 * test_tuna.c — two-phase non-uniform Bruck, TuNA and TuNA_l^g (staggered, coalesced)
 * against MPI_Alltoallv.
 *
 *   mpirun -n N ./test_tuna [max_P [min_P]]      (default: every P from 1 to N)
 *
 * For every P in range (a sub-communicator of the first P ranks; the other ranks only take
 * part in MPI_Comm_split and a sleeping barrier on MPI_COMM_WORLD), every valid radix and
 * block_count, and for the hierarchical kernels every Q dividing P as ppn (and ppn = 0
 * when all ranks share one node), under several block-size workloads (non-uniform with
 * empty blocks, all blocks non-empty, all-zero payloads, all blocks empty, a 6-byte derived
 * type with blocks up to 12 KB; blocks placed out of order with gaps in both buffers):
 *   - the receive buffer, poisoned first, equals MPI_Alltoallv's byte for byte, gaps
 *     included; the send buffer is unchanged; the kernel returns MPI_SUCCESS;
 *   - rounds (and rounds_local / rounds_global) equal the TRA count K, computed here by
 *     enumerating the base-r digits of the distances; blocks, meta_bytes and the payload
 *     bytes equal what the routing implies (computed here per rank from the block sizes);
 *     messages are exact when every block is non-empty or every block is empty, bounded
 *     otherwise;
 *   - temp_bytes lies between the paper's temporary buffer ((P - K - 1) slots of the
 *     largest block for TuNA) and that buffer plus the staging of blocks whose slot is
 *     refilled in the same round plus O(P + block_count) bytes of metadata arrays.
 * Then large blocks (up to 160 KiB, far above the eager limits) at P = 8 and 16: the trap
 * case P = 8, r = 4, block_count = 3 and forwarding-heavy configurations; up to 320 KiB
 * at P = 5 and 12 with block_count > 1; then argument
 * errors. One line per failure, a summary line; exit status 0 only if everything passed.
 * Set TEST_TUNA_VERBOSE=1 for a detail line from every failing rank.
 *
 * Two TuNA rounds in flight that both stage blocks (digit x >= 1 with two values z whose
 * distances have non-zero digits below and above x) first occur at P = 17 (r = 3, b = 2);
 * to cover them run more ranks, e.g. mpirun -n 32 ./test_tuna 32 17.
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "a2a.h"
#include "polite.h"
#include "test_common.h"

typedef enum { KERNEL_TWOPHASE, KERNEL_TUNA, KERNEL_STAGGERED, KERNEL_COALESCED } kernel_kind;
static const char *const kernel_name[] = { "twophase_bruck", "tuna", "tuna_staggered",
                                           "tuna_coalesced" };

/* One kernel call: the kernel and its parameters (unused ones 0). */
typedef struct {
    kernel_kind kind;
    int radix, block_count, ppn;
} config;

/* Block sizes and contents of one exchange, a deterministic function of (src, dst). */
typedef struct {
    const char *name;
    MPI_Datatype type;
    int max_elements;  /* a non-empty block has 1..max_elements elements */
    int empty_percent; /* share of empty blocks */
    int zero_payload;  /* every payload byte is 0 */
    unsigned seed;
} workload;

/* The buffers of one workload on one communicator, with MPI_Alltoallv's result. */
typedef struct {
    const workload *w;
    int P, rank;
    MPI_Aint elem; /* bytes per element */
    int *scounts, *sdispls, *rcounts, *rdispls;
    size_t send_bytes, recv_bytes;
    unsigned char *send, *send_copy, *recv, *reference;
    long long max_block; /* largest block of the whole exchange, bytes */
    int node_q;          /* ranks per real node when one node holds them all, else 0 */
    int dense;           /* every block non-empty */
    int empty;           /* every block empty */
} exchange;

enum {
    BAD_RETURN = 1 << 0,
    BAD_DATA = 1 << 1,
    BAD_SEND_BUFFER = 1 << 2,
    BAD_ROUNDS = 1 << 3,
    BAD_ROUNDS_LAYERS = 1 << 4,
    BAD_BLOCKS = 1 << 5,
    BAD_BYTES = 1 << 6,
    BAD_META = 1 << 7,
    BAD_MESSAGES = 1 << 8,
    BAD_TEMP = 1 << 9,
};
static const char *const flag_name[] = { "error-return", "wrong-data", "send-buffer-modified",
                                         "rounds!=K", "rounds_local/global", "blocks",
                                         "bytes", "meta_bytes", "messages", "temp_bytes" };

enum { RECV_POISON = 0xA5, SEND_GAP = 0x5A };

static int world_rank, verbose;
static long long checks_run, checks_failed; /* counted on world rank 0 */

/* Guarantees: records one check on rank 0; prints a line for a failure. */
static void record(int ok, const char *what)
{
    test_count_check(&checks_run, &checks_failed, ok, what);
}

/* Guarantees: a well-mixed 32-bit value of four inputs. */
static uint32_t mix(uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    uint32_t h = a * 0x9E3779B1u ^ (b + 0x7F4A7C15u) * 0x85EBCA77u ^ (c + 1) * 0xC2B2AE3Du ^
                 (d + 3) * 0x27D4EB2Fu;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    h *= 0x297A2D39u;
    h ^= h >> 15;
    return h;
}

/* Guarantees: the element count of the block from src to dst. */
static int block_elements(const workload *w, int src, int dst)
{
    uint32_t h = mix(w->seed, (uint32_t)src, (uint32_t)dst, 0xB10C);
    if ((int)(h % 100) < w->empty_percent)
        return 0;
    return 1 + (int)((h >> 8) % (uint32_t)w->max_elements);
}

/* Guarantees: byte `index` of the block from src to dst. */
static unsigned char payload_byte(const workload *w, int src, int dst, size_t index)
{
    if (w->zero_payload)
        return 0;
    uint32_t h = mix(w->seed, (uint32_t)src, (uint32_t)dst, (uint32_t)(index >> 2));
    return (unsigned char)(h >> (8 * (index & 3)));
}

/* ---- the model, by enumeration ------------------------------------------------------ */

/* Guarantees: number of base-r digits needed for the distances 0..P-1. */
static int digits_of(int P, int r)
{
    int w = 0;
    for (long long s = 1; s < P; s *= r)
        w++;
    return w;
}

/* Guarantees: K = the number of distinct (position, non-zero value) digit pairs among the
 * distances 1..P-1, i.e. the rounds TRA/TuNA must take. */
static long long model_rounds(int P, int r)
{
    int w = digits_of(P, r);
    if (w == 0)
        return 0;
    char *seen = calloc((size_t)w * (size_t)r, 1);
    for (int i = 1; i < P; i++) {
        int rest = i;
        for (int x = 0; x < w; x++, rest /= r)
            if (rest % r)
                seen[(size_t)x * (size_t)r + (size_t)(rest % r)] = 1;
    }
    long long K = 0;
    for (size_t j = 0; j < (size_t)w * (size_t)r; j++)
        K += seen[j];
    free(seen);
    return K;
}

/* Guarantees: D = the total number of non-zero digits of the distances 1..P-1, i.e. the
 * blocks a rank sends when every hop of every block is counted. */
static long long model_blocks(int P, int r)
{
    long long D = 0;
    for (int i = 1; i < P; i++)
        for (int rest = i; rest > 0; rest /= r)
            D += rest % r != 0;
    return D;
}

/* Guarantees: the rounds (x, z) whose digit pair carries more than one block when each
 * distance stands for `copies` blocks (N node groups): those send a size message (the
 * sizes of all blocks but the direct one, whose size the receiver knows). */
static long long model_size_rounds(int P, int r, long long copies)
{
    int w = digits_of(P, r);
    long long rounds = 0;
    long long span = 1;
    for (int x = 0; x < w; x++, span *= r)
        for (int z = 1; z < r; z++) {
            long long n = 0;
            for (int i = 1; i < P; i++)
                n += (i / span) % r == z;
            if (n * copies > 1)
                rounds++;
        }
    return rounds;
}

/* Guarantees: the most distances among 1..q-1, over groups of `group` consecutive rounds
 * (x, z) of one digit: the blocks of one node group in flight at once. */
static long long model_group_blocks(int q, int r, int group)
{
    long long worst = 0, span = 1;
    for (int x = 0; x < digits_of(q, r); x++, span *= r)
        for (int z0 = 1; z0 < r; z0 += group) {
            long long n = 0;
            for (int i = 1; i < q; i++) {
                int z = (int)((i / span) % r);
                n += z >= z0 && z < z0 + group;
            }
            if (n > worst)
                worst = n;
        }
    return worst;
}

/* Guarantees: the largest number of blocks, over groups of `group` consecutive rounds
 * (x, z) of one digit among distances 1..q-1, that a rank must copy out of a slot the same
 * round refills: per block `own_weight` if it has a non-zero digit below and above x
 * (this node's group) plus `other_weight` if it has a non-zero digit below x (each of the
 * other nodes' groups). */
static long long model_staged(int q, int r, int group, long long own_weight,
                              long long other_weight)
{
    long long worst = 0;
    long long span = 1;
    for (int x = 0; x < digits_of(q, r); x++, span *= r)
        for (int z0 = 1; z0 < r; z0 += group) {
            long long n = 0;
            for (int i = 1; i < q; i++) {
                int z = (int)((i / span) % r);
                if (z < z0 || z >= z0 + group || i % span == 0)
                    continue;
                n += other_weight + (i >= span * r ? own_weight : 0);
            }
            if (n > worst)
                worst = n;
        }
    return worst;
}

/* What one rank's stats must show for a configuration. */
typedef struct {
    long long rounds, rounds_local, rounds_global, blocks, bytes, meta_bytes;
    long long messages_max, messages_dense, messages_empty;
    long long temp_min, temp_max;
} expectation;

/* Guarantees: payload bytes rank (node n, local g) sends in q-rank TuNA rounds run for
 * all N = P/q node groups: every non-zero digit x of every distance i moves the block
 * that left local rank g - (i mod r^x) for its destination. */
static long long routed_local_bytes(const exchange *ex, int q, int r)
{
    int n = ex->rank / q, g = ex->rank % q, N = ex->P / q;
    long long bytes = 0;
    for (int k = 0; k < N; k++)
        for (int i = 1; i < q; i++) {
            long long span = 1;
            for (int rest = i; rest > 0; rest /= r, span *= r) {
                if (rest % r == 0)
                    continue;
                int src_local = (int)((g - i % span + q) % q);
                int src = n * q + src_local;
                int dst = ((n + k) % N) * q + (src_local + i) % q;
                bytes += (long long)block_elements(ex->w, src, dst) * ex->elem;
            }
        }
    return bytes;
}

/* Guarantees: what the stats of this rank must show for config c on exchange ex. */
static expectation expect(const exchange *ex, const config *c)
{
    expectation e;
    memset(&e, 0, sizeof e);
    int P = ex->P;
    long long M = ex->max_block;
    long long overhead = 64LL * P + 128LL * c->block_count + 1024;
    if (c->kind == KERNEL_TWOPHASE || c->kind == KERNEL_TUNA) {
        int r = c->kind == KERNEL_TWOPHASE ? 2 : c->radix;
        long long K = model_rounds(P, r), D = model_blocks(P, r);
        long long size_rounds = model_size_rounds(P, r, 1);
        e.rounds = K;
        e.blocks = D;
        e.meta_bytes = 4 * (D - K); /* no size travels for the K direct blocks */
        e.bytes = routed_local_bytes(ex, P, r);
        e.messages_max = e.messages_dense = K + size_rounds;
        e.messages_empty = size_rounds;
        if (c->kind == KERNEL_TWOPHASE) {
            long long max_round = (P + 1) / 2;
            e.temp_min = P > 1 ? (P - 1) * M : 0;
            e.temp_max = e.temp_min + 2 * max_round * M + overhead;
        } else {
            /* T, the staging of refilled blocks and the pack buffers of the blocks in
             * flight (each at most the largest block) */
            long long in_flight = model_group_blocks(P, r, c->block_count);
            e.temp_min = (P - K - 1) * M;
            e.temp_max = e.temp_min + (model_staged(P, r, c->block_count, 1, 0) +
                                       2 * in_flight) * M + overhead;
        }
        return e;
    }
    int Q = c->ppn > 0 ? c->ppn : ex->node_q;
    int N = P / Q, r = c->radix, g = ex->rank % Q, n = ex->rank / Q;
    long long K = model_rounds(Q, r), D = model_blocks(Q, r);
    long long global = c->kind == KERNEL_STAGGERED ? (long long)(N - 1) * Q : N - 1;
    e.rounds_local = K;
    e.rounds_global = global;
    e.rounds = K + global;
    e.blocks = N * D + (long long)(N - 1) * Q;
    e.meta_bytes = 4LL * (N * D - K);
    e.bytes = routed_local_bytes(ex, Q, r);
    for (int k = 1; k < N; k++)
        for (int i = 0; i < Q; i++)
            e.bytes += (long long)block_elements(ex->w, n * Q + (g - i + Q) % Q,
                                                 ((n + k) % N) * Q + g) * ex->elem;
    long long size_rounds = model_size_rounds(Q, r, N);
    e.messages_max = e.messages_dense = K + size_rounds + global;
    e.messages_empty = size_rounds;
    e.temp_min = ((long long)(N - 1) * (Q - 1) + (Q - K - 1)) * M;
    /* plus staging and pack buffers: the blocks of one round in flight (intra-node), or
     * of block_count messages of Q blocks (coalesced), each at most the largest block */
    long long in_flight = (long long)N * model_group_blocks(Q, r, 1);
    if (c->kind == KERNEL_COALESCED && (long long)c->block_count * Q > in_flight)
        in_flight = (long long)c->block_count * Q;
    e.temp_max = e.temp_min + (model_staged(Q, r, 1, 1, N - 1) + 2 * in_flight) * M + overhead;
    return e;
}

/* ---- buffers ------------------------------------------------------------------------- */

/* Guarantees: builds the buffers of workload w on comm (blocks out of order, one element
 * of gap before each) and the reference result of MPI_Alltoallv (collective on comm). */
static void build_exchange(exchange *ex, const workload *w, MPI_Comm comm)
{
    memset(ex, 0, sizeof *ex);
    ex->w = w;
    MPI_Comm_size(comm, &ex->P);
    MPI_Comm_rank(comm, &ex->rank);
    int P = ex->P, rank = ex->rank, size;
    MPI_Type_size(w->type, &size);
    ex->elem = size;
    ex->scounts = malloc(4 * (size_t)P * sizeof(int));
    ex->sdispls = ex->scounts + P;
    ex->rcounts = ex->sdispls + P;
    ex->rdispls = ex->rcounts + P;
    ex->dense = 1;
    ex->empty = 1;
    for (int s = 0; s < P; s++)
        for (int d = 0; d < P; d++) {
            int e = block_elements(w, s, d);
            if ((long long)e * ex->elem > ex->max_block)
                ex->max_block = (long long)e * ex->elem;
            ex->dense &= e > 0;
            ex->empty &= e == 0;
        }
    long long offset = 0;
    for (int p = 0; p < P; p++) { /* send order: destinations reversed, rotated by rank */
        int d = ((P - 1 - p + rank) % P + P) % P;
        ex->scounts[d] = block_elements(w, rank, d);
        ex->sdispls[d] = (int)(offset + 1);
        offset += 1 + ex->scounts[d];
    }
    ex->send_bytes = (size_t)(offset + 1) * (size_t)ex->elem;
    offset = 0;
    for (int p = 0; p < P; p++) { /* receive order: sources rotated by 2*rank + 1 */
        int s = (p + 2 * rank + 1) % P;
        ex->rcounts[s] = block_elements(w, s, rank);
        ex->rdispls[s] = (int)(offset + 1);
        offset += 1 + ex->rcounts[s];
    }
    ex->recv_bytes = (size_t)(offset + 1) * (size_t)ex->elem;
    ex->send = malloc(ex->send_bytes);
    ex->send_copy = malloc(ex->send_bytes);
    ex->recv = malloc(ex->recv_bytes);
    ex->reference = malloc(ex->recv_bytes);
    memset(ex->send, SEND_GAP, ex->send_bytes);
    for (int d = 0; d < P; d++) {
        unsigned char *block = ex->send + (size_t)ex->sdispls[d] * (size_t)ex->elem;
        size_t bytes = (size_t)ex->scounts[d] * (size_t)ex->elem;
        for (size_t b = 0; b < bytes; b++)
            block[b] = payload_byte(w, rank, d, b);
    }
    memcpy(ex->send_copy, ex->send, ex->send_bytes);
    MPI_Comm shared;
    int shared_size, all_shared;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared);
    MPI_Comm_size(shared, &shared_size);
    MPI_Comm_free(&shared);
    MPI_Allreduce(&shared_size, &all_shared, 1, MPI_INT, MPI_MIN, comm);
    ex->node_q = all_shared == P ? P : 0;
    memset(ex->reference, RECV_POISON, ex->recv_bytes);
    MPI_Alltoallv(ex->send, ex->scounts, ex->sdispls, w->type, ex->reference, ex->rcounts,
                  ex->rdispls, w->type, comm);
}

/* Guarantees: frees what build_exchange allocated. */
static void free_exchange(exchange *ex)
{
    free(ex->scounts);
    free(ex->send);
    free(ex->send_copy);
    free(ex->recv);
    free(ex->reference);
}

/* Guarantees: calls the kernel of c on ex's buffers (receive buffer as left by caller). */
static int call_kernel(const exchange *ex, const config *c, MPI_Comm comm, a2a_stats *st)
{
    MPI_Datatype t = ex->w->type;
    switch (c->kind) {
    case KERNEL_TWOPHASE:
        return A2A_Alltoallv_twophase_bruck(ex->send, ex->scounts, ex->sdispls, t, ex->recv,
                                            ex->rcounts, ex->rdispls, t, comm, st);
    case KERNEL_TUNA:
        return A2A_Alltoallv_tuna(ex->send, ex->scounts, ex->sdispls, t, ex->recv, ex->rcounts,
                                  ex->rdispls, t, comm, c->radix, c->block_count, st);
    case KERNEL_STAGGERED:
        return A2A_Alltoallv_tuna_staggered(ex->send, ex->scounts, ex->sdispls, t, ex->recv,
                                            ex->rcounts, ex->rdispls, t, comm, c->radix,
                                            c->block_count, c->ppn, st);
    case KERNEL_COALESCED:
        return A2A_Alltoallv_tuna_coalesced(ex->send, ex->scounts, ex->sdispls, t, ex->recv,
                                            ex->rcounts, ex->rdispls, t, comm, c->radix,
                                            c->block_count, c->ppn, st);
    }
    return MPI_ERR_OTHER;
}

/* One checked call, kept until its batch's flags are combined over the communicator. */
typedef struct {
    config c;
    int flags;       /* this rank's failed checks */
    int rc;          /* this rank's return code */
    a2a_stats stats; /* this rank's stats */
    expectation e;
} checked_call;

/* Calls whose results are combined with one MPI_Allreduce (a collective per call would
 * cost as much as the call itself when the ranks share two cores). */
typedef struct {
    checked_call *calls;
    int n, capacity;
} batch;

/* Guarantees: runs config c on ex and checks data and stats on this rank; the result is
 * appended to b, to be combined and recorded by finish_batch. */
static void run_case(batch *b, exchange *ex, const config *c, MPI_Comm comm)
{
    memset(ex->recv, RECV_POISON, ex->recv_bytes);
    checked_call call;
    memset(&call, 0, sizeof call);
    call.c = *c;
    call.rc = call_kernel(ex, c, comm, &call.stats);
    const a2a_stats *st = &call.stats;
    expectation e = expect(ex, c);
    call.e = e;

    int flags = 0;
    if (call.rc != MPI_SUCCESS)
        flags |= BAD_RETURN;
    if (memcmp(ex->recv, ex->reference, ex->recv_bytes) != 0)
        flags |= BAD_DATA;
    if (memcmp(ex->send, ex->send_copy, ex->send_bytes) != 0)
        flags |= BAD_SEND_BUFFER;
    if (st->rounds != e.rounds)
        flags |= BAD_ROUNDS;
    if (st->rounds_local != e.rounds_local || st->rounds_global != e.rounds_global)
        flags |= BAD_ROUNDS_LAYERS;
    if (st->blocks != e.blocks)
        flags |= BAD_BLOCKS;
    if (st->bytes != e.bytes)
        flags |= BAD_BYTES;
    if (st->meta_bytes != e.meta_bytes)
        flags |= BAD_META;
    if (st->messages > e.messages_max || (ex->dense && st->messages != e.messages_dense) ||
        (ex->empty && st->messages != e.messages_empty))
        flags |= BAD_MESSAGES;
    if (st->temp_bytes < e.temp_min || st->temp_bytes > e.temp_max)
        flags |= BAD_TEMP;
    call.flags = flags;

    if (flags && verbose) {
        size_t first_bad = 0;
        while (first_bad < ex->recv_bytes && ex->recv[first_bad] == ex->reference[first_bad])
            first_bad++;
        printf("  rank %d: %s r=%d b=%d ppn=%d %s rc=%d rounds=%lld/%lld local=%lld/%lld "
               "global=%lld/%lld blocks=%lld/%lld bytes=%lld/%lld meta=%lld/%lld "
               "messages=%lld (max %lld) temp=%lld in [%lld, %lld] first bad byte %zu/%zu\n",
               ex->rank, kernel_name[c->kind], c->radix, c->block_count, c->ppn, ex->w->name,
               call.rc, st->rounds, e.rounds, st->rounds_local, e.rounds_local,
               st->rounds_global, e.rounds_global, st->blocks, e.blocks, st->bytes, e.bytes,
               st->meta_bytes, e.meta_bytes, st->messages, e.messages_max, st->temp_bytes,
               e.temp_min, e.temp_max, first_bad, ex->recv_bytes);
        fflush(stdout);
    }
    if (b->n == b->capacity) {
        b->capacity = b->capacity ? 2 * b->capacity : 64;
        b->calls = realloc(b->calls, (size_t)b->capacity * sizeof *b->calls);
    }
    b->calls[b->n++] = call;
}

/* Guarantees: combines the flags of every call of b over comm and records one result per
 * call on rank 0 (world rank 0); b becomes empty. */
static void finish_batch(batch *b, const exchange *ex, MPI_Comm comm)
{
    int *flags = malloc((size_t)(b->n > 0 ? b->n : 1) * 2 * sizeof(int));
    int *all_flags = flags + b->n;
    for (int i = 0; i < b->n; i++)
        flags[i] = b->calls[i].flags;
    MPI_Allreduce(flags, all_flags, b->n, MPI_INT, MPI_BOR, comm);
    for (int i = 0; i < b->n && ex->rank == 0; i++) {
        const checked_call *call = &b->calls[i];
        const config *c = &call->c;
        char what[400];
        int len = snprintf(what, sizeof what, "%s P=%d radix=%d block_count=%d",
                           kernel_name[c->kind], ex->P, c->radix, c->block_count);
        if (c->kind == KERNEL_STAGGERED || c->kind == KERNEL_COALESCED)
            len += snprintf(what + len, sizeof what - (size_t)len, " ppn=%d", c->ppn);
        len += snprintf(what + len, sizeof what - (size_t)len, " workload=%s:", ex->w->name);
        for (int f = 0; f < (int)(sizeof flag_name / sizeof flag_name[0]); f++)
            if (all_flags[i] & (1 << f))
                len += snprintf(what + len, sizeof what - (size_t)len, " %s", flag_name[f]);
        if (all_flags[i])
            snprintf(what + len, sizeof what - (size_t)len,
                     " (rank 0: rc=%d rounds=%lld/%lld temp=%lld in [%lld, %lld])", call->rc,
                     call->stats.rounds, call->e.rounds, call->stats.temp_bytes,
                     call->e.temp_min, call->e.temp_max);
        record(all_flags[i] == 0, what);
    }
    free(flags);
    b->n = 0;
}

/* ---- the matrix ------------------------------------------------------------------------ */

/* Guarantees: every kernel on P ranks, on exchange ex, with every radix, every block count
 * and (for the hierarchical kernels) every Q dividing P as ppn, plus ppn = 0. */
static void run_matrix(MPI_Comm comm, exchange *ex)
{
    batch calls = { NULL, 0, 0 };
    int P = ex->P;
    config two = { KERNEL_TWOPHASE, 2, 1, 0 };
    run_case(&calls, ex, &two, comm);
    for (int r = 2; r <= (P > 2 ? P : 2); r++)
        for (int bc = 1; bc <= r - 1; bc++) {
            config c = { KERNEL_TUNA, r, bc, 0 };
            run_case(&calls, ex, &c, comm);
        }
    for (int Q = 1; Q <= P; Q++) {
        if (P % Q)
            continue;
        int N = P / Q;
        int max_staggered = (N - 1) * Q > 1 ? (N - 1) * Q : 1;
        int max_coalesced = N - 1 > 1 ? N - 1 : 1;
        for (int r = 2; r <= (Q > 2 ? Q : 2); r++) {
            for (int bc = 1; bc <= max_staggered; bc++) {
                config c = { KERNEL_STAGGERED, r, bc, Q };
                run_case(&calls, ex, &c, comm);
            }
            for (int bc = 1; bc <= max_coalesced; bc++) {
                config c = { KERNEL_COALESCED, r, bc, Q };
                run_case(&calls, ex, &c, comm);
            }
        }
    }
    if (ex->node_q == P) /* ppn = 0: the real node, here all P ranks */
        for (int kind = KERNEL_STAGGERED; kind <= KERNEL_COALESCED; kind++) {
            config c = { (kernel_kind)kind, P > 2 ? P : 2, 1, 0 };
            run_case(&calls, ex, &c, comm);
        }
    finish_batch(&calls, ex, comm);
    free(calls.calls);
}

/* Guarantees: the large-block configurations for P = 8 (the trap: TuNA r = 4, b = 3) and
 * P = 16 (rounds that forward blocks from T, several rounds in flight, hierarchical), and
 * at P = 5 and 12 with blocks up to 320 KiB and block_count > 1 (the published TuNA
 * code's failure with blocks of 160 KiB and more). */
static void run_large(MPI_Comm comm, exchange *ex)
{
    static const config at8[] = {
        { KERNEL_TUNA, 4, 3, 0 },      { KERNEL_TUNA, 4, 2, 0 },      { KERNEL_TUNA, 4, 1, 0 },
        { KERNEL_TUNA, 2, 1, 0 },      { KERNEL_TUNA, 3, 2, 0 },      { KERNEL_TUNA, 8, 7, 0 },
        { KERNEL_TWOPHASE, 2, 1, 0 },  { KERNEL_STAGGERED, 4, 4, 4 }, { KERNEL_STAGGERED, 2, 3, 2 },
        { KERNEL_COALESCED, 2, 3, 2 }, { KERNEL_COALESCED, 3, 1, 4 },
    };
    static const config at16[] = {
        { KERNEL_TUNA, 2, 1, 0 },      { KERNEL_TUNA, 3, 2, 0 },      { KERNEL_TUNA, 4, 3, 0 },
        { KERNEL_TUNA, 16, 15, 0 },    { KERNEL_TWOPHASE, 2, 1, 0 },  { KERNEL_STAGGERED, 2, 8, 8 },
        { KERNEL_STAGGERED, 3, 1, 8 }, { KERNEL_COALESCED, 2, 3, 4 }, { KERNEL_COALESCED, 2, 1, 8 },
    };
    /* blocks up to 320 KiB (half of them above 160 KiB), several rounds in flight */
    static const config at5[] = {
        { KERNEL_TUNA, 2, 1, 0 },      { KERNEL_TUNA, 3, 2, 0 },      { KERNEL_TUNA, 4, 3, 0 },
        { KERNEL_TUNA, 4, 2, 0 },      { KERNEL_TUNA, 5, 4, 0 },      { KERNEL_TWOPHASE, 2, 1, 0 },
        { KERNEL_STAGGERED, 2, 4, 1 }, { KERNEL_COALESCED, 2, 4, 1 },
    };
    static const config at12[] = {
        { KERNEL_TUNA, 3, 2, 0 },      { KERNEL_TUNA, 4, 3, 0 },      { KERNEL_TUNA, 5, 4, 0 },
        { KERNEL_TUNA, 12, 11, 0 },    { KERNEL_TUNA, 2, 1, 0 },      { KERNEL_TWOPHASE, 2, 1, 0 },
        { KERNEL_STAGGERED, 3, 5, 4 }, { KERNEL_COALESCED, 3, 2, 3 }, { KERNEL_COALESCED, 2, 3, 2 },
    };
    const config *list = ex->P == 5 ? at5 : ex->P == 8 ? at8 : ex->P == 12 ? at12 : at16;
    size_t n = ex->P == 5    ? sizeof at5 / sizeof at5[0]
               : ex->P == 8  ? sizeof at8 / sizeof at8[0]
               : ex->P == 12 ? sizeof at12 / sizeof at12[0]
                             : sizeof at16 / sizeof at16[0];
    batch calls = { NULL, 0, 0 };
    for (size_t i = 0; i < n; i++)
        run_case(&calls, ex, &list[i], comm);
    finish_batch(&calls, ex, comm);
    free(calls.calls);
}

/* Guarantees: parameter errors come back as MPI_ERR_ARG, an invalid type as MPI_ERR_TYPE,
 * all before any communication. */
static void check_arguments(MPI_Comm comm, exchange *ex)
{
    int P = ex->P;
    int big = P > 2 ? P : 2;
    int no_divisor = P + 1; /* Q > P never divides P */
    for (int q = 2; q < P; q++)
        if (P % q) {
            no_divisor = q;
            break;
        }
    struct {
        config c;
        const char *what;
    } cases[] = {
        { { KERNEL_TUNA, 1, 1, 0 }, "radix 1" },
        { { KERNEL_TUNA, big + 1, 1, 0 }, "radix max(2,P)+1" },
        { { KERNEL_TUNA, 2, 0, 0 }, "block_count 0" },
        { { KERNEL_TUNA, big, big, 0 }, "block_count = radix" },
        { { KERNEL_STAGGERED, 2, 1, no_divisor }, "ppn not dividing P" },
        { { KERNEL_COALESCED, 2, 1, no_divisor }, "ppn not dividing P" },
        { { KERNEL_STAGGERED, big + 1, 1, P }, "radix max(2,Q)+1" },
        { { KERNEL_COALESCED, 1, 1, P }, "radix 1" },
        { { KERNEL_STAGGERED, 2, 0, 1 }, "block_count 0" },
        { { KERNEL_STAGGERED, 2, (P - 1 > 1 ? P - 1 : 1) + 1, 1 }, "block_count max+1" },
        { { KERNEL_COALESCED, 2, (P - 1 > 1 ? P - 1 : 1) + 1, 1 }, "block_count max+1" },
        { { KERNEL_COALESCED, big, 2, P }, "block_count 2 with one node" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        a2a_stats st;
        memset(&st, 0, sizeof st);
        int rc = call_kernel(ex, &cases[i].c, comm, &st);
        if (ex->rank == 0) {
            char what[200];
            snprintf(what, sizeof what, "%s P=%d %s (radix=%d block_count=%d ppn=%d) must "
                     "return MPI_ERR_ARG, got %d", kernel_name[cases[i].c.kind], P,
                     cases[i].what, cases[i].c.radix, cases[i].c.block_count, cases[i].c.ppn,
                     rc);
            record(rc == MPI_ERR_ARG, what);
        }
    }
    /* any valid type is taken (those that are not one ascending run are packed: see
     * test_safety); an invalid one is refused */
    workload w = *ex->w;
    w.type = MPI_DATATYPE_NULL;
    exchange bad = *ex;
    bad.w = &w;
    for (int k = KERNEL_TWOPHASE; k <= KERNEL_COALESCED; k++) {
        config c = { (kernel_kind)k, 2, 1, 1 };
        int rc = call_kernel(&bad, &c, comm, NULL);
        if (ex->rank == 0) {
            char what[160];
            snprintf(what, sizeof what, "%s P=%d MPI_DATATYPE_NULL must return "
                     "MPI_ERR_TYPE, got %d", kernel_name[k], P, rc);
            record(rc == MPI_ERR_TYPE, what);
        }
    }
}

int main(int argc, char **argv)
{
    int world_size = test_init(&argc, &argv, &world_rank);
    const char *v = getenv("TEST_TUNA_VERBOSE");
    verbose = v && *v && *v != '0';
    int max_P = test_max_ranks(argc, argv, world_size);
    int min_P = argc > 2 ? atoi(argv[2]) : 1;
    if (min_P < 1)
        min_P = 1;

    MPI_Datatype triple_short;
    MPI_Type_contiguous(3, MPI_SHORT, &triple_short);
    MPI_Type_commit(&triple_short);
    workload small[] = {
        { "nonuniform-int", MPI_INT, 12, 25, 0, 11 },
        { "dense-byte", MPI_BYTE, 40, 0, 0, 12 },
        { "zero-payload-double", MPI_DOUBLE, 6, 20, 1, 13 },
        { "all-empty", MPI_INT, 1, 100, 0, 14 },
        { "sparse-3short", triple_short, 2000, 70, 0, 15 },
    };
    workload large = { "large-160KiB", MPI_BYTE, 160 * 1024, 10, 0, 16 };
    workload larger = { "large-320KiB", MPI_BYTE, 320 * 1024, 10, 0, 17 };

    double start = MPI_Wtime();
    for (int P = min_P; P <= max_P; P++) {
        MPI_Comm comm = test_first_ranks(P, world_rank);
        if (comm == MPI_COMM_NULL)
            continue;
        for (size_t w = 0; w < sizeof small / sizeof small[0]; w++) {
            exchange ex;
            build_exchange(&ex, &small[w], comm);
            run_matrix(comm, &ex);
            if (w == 0)
                check_arguments(comm, &ex);
            free_exchange(&ex);
        }
        if (P == 5 || P == 8 || P == 12 || P == 16) {
            exchange ex;
            build_exchange(&ex, P == 5 || P == 12 ? &larger : &large, comm);
            run_large(comm, &ex);
            free_exchange(&ex);
        }
        test_print_done(world_rank, P, checks_run, checks_failed, start);
        test_done_ranks(&comm);
    }
    MPI_Type_free(&triple_short);

    long long failed = test_failed_everywhere(checks_failed);
    if (world_rank == 0)
        printf("test_tuna: %lld checks, %lld failed (P = %d..%d, %.1f s)\n", checks_run,
               checks_failed, min_P, max_P, MPI_Wtime() - start);
    MPI_Finalize();
    return failed == 0 ? 0 : 1;
}
