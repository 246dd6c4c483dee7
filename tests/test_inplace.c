/* ranks: 16 */
/*
 * test_inplace.c — the in-place symmetric alltoallv kernels (a2a_inplace.h) against the
 * MPI library and against the schedules of Hofmann and Rünger (EuroMPI 2013).
 *
 *   mpirun -n N ./test_inplace [max_P]      (default: every P from 1 to N)
 *
 * For every P (a sub-communicator of the first P ranks; the other ranks wait in a
 * sleeping barrier on MPI_COMM_WORLD) and several symmetric workloads (counts uniform in
 * [0, S] with empty blocks; bytes; all-zero payloads; 64-bit integers with the same total
 * on every rank; all blocks empty; blocks up to 96 KiB at a few P), with blocks placed in
 * a random order with gaps between them, every kernel is run on a copy of the buffer:
 *   - the result equals byte for byte the expected blocks, MPI_Alltoallv(MPI_IN_PLACE) and
 *     a not-in-place MPI_Alltoallv of a copy; the gap bytes are untouched;
 *   - the point-to-point calls the kernel makes are recorded (PMPI interposition of
 *     MPI_Sendrecv_replace, MPI_Isend, MPI_Irecv, MPI_Send, MPI_Recv, MPI_Sendrecv): each
 *     rank exchanges once with every other rank, in the order of the paper's pseudocode
 *     (Fig. 1 without self-exchanges, Fig. 3, Fig. 4, transcribed here), each exchange
 *     moving counts[peer] elements; for hier_sets_aux exactly the exchanges that fit the
 *     free auxiliary space (first fit in HSA order) are non-blocking;
 *   - the measured steps — the recorded exchange sequences of all ranks placed in the
 *     paper's step model (one exchange per rank per step, an exchange as soon as both
 *     partners are ready) — equal stats.rounds on every rank and the paper's counts:
 *     MPICH order 2P - 3 (the paper's 2P - 1 includes the self-exchange steps), LSA <= P
 *     (and the idle ranks per step), HSA exactly P - 1 for powers of two and at most
 *     P + ceil(log2 P) - 2 (the aux variant the same);
 *   - blocks, messages, bytes are exact; temp_bytes is 0 for the pure in-place kernels and
 *     for hier_sets_aux equals the copied bytes, <= aux_bytes for aux_bytes in {0, a third
 *     of the outgoing bytes, all of them, more than all of them};
 *   - aux_bytes < 0 gives MPI_ERR_ARG, a non-contiguous type MPI_ERR_TYPE, buffer untouched.
 * One line per failure, a table of measured steps against the formulas, a summary line;
 * exit status 0 only if everything passed.
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "a2a.h"
#include "polite.h"
#include "test_common.h"

#define GAP_BYTE 0xA5

static int world_rank;
static long long checks_run, checks_failed;

/* ---- recording the point-to-point calls of a kernel (PMPI interposition) ------------- */

enum { OP_REPLACE, OP_ISEND, OP_IRECV, OP_OTHER };
typedef struct {
    int op, peer;
    long long bytes;
} p2p_call;

static p2p_call *trace;
static int trace_cap, trace_len, tracing, trace_depth;

/* Appends one call to the trace while tracing (calls the MPI library makes from inside a
 * recorded call are not recorded); trace_len counts past trace_cap on overflow. */
static void record(int op, int peer, int count, MPI_Datatype type)
{
    if (!tracing || trace_depth > 0)
        return;
    int size = 0;
    PMPI_Type_size(type, &size);
    if (trace_len < trace_cap)
        trace[trace_len] = (p2p_call){ op, peer, (long long)count * size };
    trace_len++;
}

/* Recorded as a pairwise exchange when source == dest, as OP_OTHER otherwise. */
int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                         int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    record(source == dest ? OP_REPLACE : OP_OTHER, dest, count, datatype);
    trace_depth++;
    int err = PMPI_Sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag,
                                    comm, status);
    trace_depth--;
    return err;
}

/* Recorded as OP_ISEND. */
int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
              MPI_Comm comm, MPI_Request *request)
{
    record(OP_ISEND, dest, count, datatype);
    trace_depth++;
    int err = PMPI_Isend(buf, count, datatype, dest, tag, comm, request);
    trace_depth--;
    return err;
}

/* Recorded as OP_IRECV. */
int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
              MPI_Comm comm, MPI_Request *request)
{
    record(OP_IRECV, source, count, datatype);
    trace_depth++;
    int err = PMPI_Irecv(buf, count, datatype, source, tag, comm, request);
    trace_depth--;
    return err;
}

/* Recorded as OP_OTHER (no kernel of this family should use it). */
int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm)
{
    record(OP_OTHER, dest, count, datatype);
    trace_depth++;
    int err = PMPI_Send(buf, count, datatype, dest, tag, comm);
    trace_depth--;
    return err;
}

/* Recorded as OP_OTHER. */
int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    record(OP_OTHER, source, count, datatype);
    trace_depth++;
    int err = PMPI_Recv(buf, count, datatype, source, tag, comm, status);
    trace_depth--;
    return err;
}

/* Recorded as OP_OTHER. */
int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                 int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                 int recvtag, MPI_Comm comm, MPI_Status *status)
{
    record(OP_OTHER, dest, sendcount, sendtype);
    trace_depth++;
    int err = PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                            recvtype, source, recvtag, comm, status);
    trace_depth--;
    return err;
}

/* ---- collective checks: one line per failed check, printed by the lowest failing rank -- */

enum {
    C_RETURN, C_DATA, C_GAPS, C_VS_VENDOR, C_VS_COPY, C_STATS, C_TEMP, C_OPS, C_ORDER,
    C_STEPS, C_FORMULA, C_WORKLOAD, NCHECK
};
static const char *const check_name[NCHECK] = {
    "return value", "data", "gap bytes", "vs MPI in-place", "vs MPI not-in-place", "stats",
    "temp_bytes", "operations", "exchange order", "measured steps", "step formula", "workload"
};
static int check_applied[NCHECK], check_failed[NCHECK];
static char check_msg[NCHECK][200];

/* Records the outcome of check `id` on this rank (the first failure message is kept). */
__attribute__((format(printf, 3, 4))) static void expect(int id, int ok, const char *fmt, ...)
{
    check_applied[id] = 1;
    if (ok || check_failed[id])
        return;
    check_failed[id] = 1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(check_msg[id], sizeof check_msg[id], fmt, ap);
    va_end(ap);
}

/* Collective over comm: counts every check applied on some rank, and for each failed one
 * prints one line from the lowest failing rank. Resets the per-call state. */
static void settle(MPI_Comm comm, const char *what)
{
    int rank, mine[2 * NCHECK], all[2 * NCHECK];
    MPI_Comm_rank(comm, &rank);
    for (int id = 0; id < NCHECK; id++) {
        mine[id] = check_failed[id] ? rank : INT_MAX;
        mine[NCHECK + id] = check_applied[id] ? 0 : 1;
    }
    MPI_Allreduce(mine, all, 2 * NCHECK, MPI_INT, MPI_MIN, comm);
    for (int id = 0; id < NCHECK; id++) {
        if (all[NCHECK + id] != 0)
            continue;
        checks_run++;
        if (all[id] == INT_MAX)
            continue;
        checks_failed++;
        if (all[id] == rank) {
            printf("FAIL %s: %s (rank %d): %s\n", what, check_name[id], rank, check_msg[id]);
            fflush(stdout);
        }
    }
    memset(check_applied, 0, sizeof check_applied);
    memset(check_failed, 0, sizeof check_failed);
}

/* ---- deterministic workloads ----------------------------------------------------------- */

/* splitmix64: a seeded stream, the same on every rank. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Byte k of the block rank src holds for rank dst before the exchange (seeded). */
static unsigned char payload_byte(unsigned seed, int src, int dst, long long k)
{
    uint64_t s = ((uint64_t)seed << 56) ^ ((uint64_t)src << 44) ^ ((uint64_t)dst << 32) ^
                 (uint64_t)(k / 8);
    return (unsigned char)(next_random(&s) >> (8 * (k % 8)));
}

typedef enum { W_RANDOM, W_FIXED_TOTAL, W_EMPTY } count_kind;

typedef struct {
    const char *name;
    MPI_Datatype type;
    count_kind kind;
    int max_count;    /* W_RANDOM: counts uniform in [0, max_count]; W_FIXED_TOTAL: weights */
    int zero_payload; /* every payload byte is 0 */
    unsigned seed;
} workload;

/* One exchange on one rank: counts, layout with gaps, buffers. */
typedef struct {
    const workload *w;
    int p, rank;
    MPI_Aint tb;
    int *counts, *displs;
    size_t bytes;
    long long outgoing; /* payload bytes this rank sends to others */
    unsigned char *orig, *expected, *ref_vendor, *ref_copy, *work, *in_block;
} exchange;

/* Fills m (p x p, row-major) with a symmetric count matrix of the workload, identical on
 * every rank: random entries; or a sum of weighted (permutation + its transpose), whose
 * rows all sum to twice the weights; or zeros. */
static void count_matrix(const workload *w, int p, int *m)
{
    uint64_t state = w->seed * 1000003ULL + (uint64_t)p;
    memset(m, 0, sizeof *m * (size_t)p * (size_t)p);
    if (w->kind == W_RANDOM) {
        for (int i = 0; i < p; i++)
            for (int j = i; j < p; j++)
                m[i * p + j] = m[j * p + i] =
                    (int)(next_random(&state) % (uint64_t)(w->max_count + 1));
    } else if (w->kind == W_FIXED_TOTAL) {
        int *perm = malloc(sizeof *perm * (size_t)p);
        for (int k = 0; k < 4; k++) {
            for (int i = 0; i < p; i++)
                perm[i] = i;
            for (int i = p - 1; i > 0; i--) {
                int r = (int)(next_random(&state) % (uint64_t)(i + 1)), t = perm[i];
                perm[i] = perm[r];
                perm[r] = t;
            }
            int weight = 1 + (int)(next_random(&state) % (uint64_t)w->max_count);
            for (int i = 0; i < p; i++) {
                m[i * p + perm[i]] += weight;
                m[perm[i] * p + i] += weight;
            }
        }
        free(perm);
    }
}

/* Builds this rank's side of the exchange: its row of the matrix, blocks in a random order
 * with gaps of 0..3 elements before, between and after them, the initial buffer (payload
 * in the blocks, GAP_BYTE elsewhere) and the expected result. */
static void build_exchange(exchange *ex, const workload *w, MPI_Comm comm)
{
    memset(ex, 0, sizeof *ex);
    ex->w = w;
    MPI_Comm_size(comm, &ex->p);
    MPI_Comm_rank(comm, &ex->rank);
    A2A_Type_bytes(w->type, &ex->tb);
    int p = ex->p, me = ex->rank;
    int *m = malloc(sizeof *m * (size_t)p * (size_t)p);
    count_matrix(w, p, m);
    ex->counts = malloc(sizeof(int) * (size_t)p);
    ex->displs = malloc(sizeof(int) * (size_t)p);
    int sym = 1, row0 = 0, rowme = 0;
    for (int j = 0; j < p; j++) {
        ex->counts[j] = m[me * p + j];
        sym &= m[me * p + j] == m[j * p + me];
        row0 += m[j];
        rowme += m[me * p + j];
    }
    expect(C_WORKLOAD, sym && (w->kind != W_FIXED_TOTAL || row0 == rowme),
           "count matrix not symmetric or row total %d != %d", rowme, row0);

    uint64_t state = w->seed * 7919ULL + (uint64_t)me * 104729ULL + (uint64_t)p;
    int *order = malloc(sizeof *order * (size_t)p);
    for (int i = 0; i < p; i++)
        order[i] = i;
    for (int i = p - 1; i > 0; i--) {
        int r = (int)(next_random(&state) % (uint64_t)(i + 1)), t = order[i];
        order[i] = order[r];
        order[r] = t;
    }
    long long pos = (long long)(next_random(&state) % 4);
    for (int k = 0; k < p; k++) {
        ex->displs[order[k]] = (int)pos;
        pos += ex->counts[order[k]] + (long long)(next_random(&state) % 4);
    }
    ex->bytes = (size_t)(pos * ex->tb);
    size_t alloc = ex->bytes > 0 ? ex->bytes : 1;
    ex->orig = malloc(alloc);
    ex->expected = malloc(alloc);
    ex->ref_vendor = malloc(alloc);
    ex->ref_copy = malloc(alloc);
    ex->work = malloc(alloc);
    ex->in_block = calloc(alloc, 1);
    memset(ex->orig, GAP_BYTE, alloc);
    memset(ex->expected, GAP_BYTE, alloc);
    for (int j = 0; j < p; j++) {
        size_t at = (size_t)ex->displs[j] * (size_t)ex->tb;
        long long n = (long long)ex->counts[j] * ex->tb;
        for (long long k = 0; k < n; k++) {
            ex->orig[at + k] = w->zero_payload ? 0 : payload_byte(w->seed, me, j, k);
            ex->expected[at + k] = w->zero_payload ? 0 : payload_byte(w->seed, j, me, k);
            ex->in_block[at + k] = 1;
        }
        if (j != me)
            ex->outgoing += n;
    }
    free(order);
    free(m);
}

/* Frees everything build_exchange allocated. */
static void free_exchange(exchange *ex)
{
    free(ex->counts);
    free(ex->displs);
    free(ex->orig);
    free(ex->expected);
    free(ex->ref_vendor);
    free(ex->ref_copy);
    free(ex->work);
    free(ex->in_block);
}

/* Compares a result with the expected buffer: a difference inside a block fails check
 * `id`, one outside the blocks C_GAPS. */
static void compare_expected(const exchange *ex, const unsigned char *got, int id)
{
    size_t bad_block = SIZE_MAX, bad_gap = SIZE_MAX;
    for (size_t b = 0; b < ex->bytes; b++) {
        if (got[b] == ex->expected[b])
            continue;
        if (ex->in_block[b] && bad_block == SIZE_MAX)
            bad_block = b;
        if (!ex->in_block[b] && bad_gap == SIZE_MAX)
            bad_gap = b;
    }
    size_t b = bad_block, g = bad_gap;
    expect(id, b == SIZE_MAX, "byte %zu is 0x%02x, expected 0x%02x", b,
           b == SIZE_MAX ? 0 : got[b], b == SIZE_MAX ? 0 : ex->expected[b]);
    expect(C_GAPS, g == SIZE_MAX, "gap byte %zu is 0x%02x, expected 0x%02x", g,
           g == SIZE_MAX ? 0 : got[g], GAP_BYTE);
}

/* Runs the MPI library's in-place and not-in-place MPI_Alltoallv as references and checks
 * them against the expected result. */
static void run_references(MPI_Comm comm, exchange *ex, const char *label)
{
    memcpy(ex->ref_vendor, ex->orig, ex->bytes);
    int err = MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, ex->ref_vendor,
                            ex->counts, ex->displs, ex->w->type, comm);
    expect(C_RETURN, err == MPI_SUCCESS, "in-place MPI_Alltoallv returned %d", err);
    compare_expected(ex, ex->ref_vendor, C_VS_VENDOR);
    memset(ex->ref_copy, GAP_BYTE, ex->bytes);
    err = MPI_Alltoallv(ex->orig, ex->counts, ex->displs, ex->w->type, ex->ref_copy,
                        ex->counts, ex->displs, ex->w->type, comm);
    expect(C_RETURN, err == MPI_SUCCESS, "MPI_Alltoallv returned %d", err);
    compare_expected(ex, ex->ref_copy, C_VS_COPY);
    settle(comm, label);
}

/* ---- the schedules of the paper, transcribed from its pseudocode -------------------- */

typedef enum { K_VENDOR, K_MPICH, K_LSA, K_HSA, K_HSA_AUX } kernel_id;
typedef enum { AUX_NONE, AUX_ZERO, AUX_THIRD, AUX_ALL, AUX_MORE } aux_mode;
static const char *const aux_name[] = { "", "0", "third", "all", "more" };

typedef struct {
    const char *name;
    kernel_id id;
    aux_mode aux;
} kernel_case;

static const kernel_case kernel_cases[] = {
    { "vendor", K_VENDOR, AUX_NONE },          { "mpich_order", K_MPICH, AUX_NONE },
    { "linear_shift", K_LSA, AUX_NONE },       { "hier_sets", K_HSA, AUX_NONE },
    { "hier_sets_aux", K_HSA_AUX, AUX_ZERO },  { "hier_sets_aux", K_HSA_AUX, AUX_THIRD },
    { "hier_sets_aux", K_HSA_AUX, AUX_ALL },   { "hier_sets_aux", K_HSA_AUX, AUX_MORE },
};
#define NKERNELS (int)(sizeof kernel_cases / sizeof kernel_cases[0])

/* The partners of `rank` in the order of the paper's Fig. 1 (without the self-exchange),
 * Fig. 3 or Fig. 4; returns how many (p - 1). */
static int paper_order(kernel_id id, int p, int rank, int *seq)
{
    int n = 0;
    if (id == K_MPICH) {
        for (int i = 0; i < p; i++)
            for (int j = i; j < p; j++) {
                if (i == j)
                    continue;
                if (rank == i)
                    seq[n++] = j;
                else if (rank == j)
                    seq[n++] = i;
            }
    } else if (id == K_LSA) {
        for (int i = 0; i < p; i++) {
            int j = (i - rank + p) % p;
            if (j != rank)
                seq[n++] = j;
        }
    } else {
        int low = 0, high = p;
        while (low + 1 < high) {
            int mid = (low + high) / 2;
            if (rank < mid) {
                int m = high - mid;
                for (int i = 0; i < m; i++) {
                    int shift = rank - low < m - 1 ? rank - low : m - 1;
                    seq[n++] = mid + (i + shift) % m;
                }
                high = mid;
            } else {
                int m = mid - low;
                for (int i = 0; i < m; i++) {
                    int shift = rank - mid < m - 1 ? rank - mid : m - 1;
                    seq[n++] = low + (shift - i + m) % m;
                }
                low = mid;
            }
        }
    }
    return n;
}

/* ceil(log2 p) for p >= 1. */
static int ceil_log2(int p)
{
    int k = 0;
    while ((1 << k) < p)
        k++;
    return k;
}

/* The step counts the kernels document: MPICH order 2p - 3, LSA p (p = 2: 1), HSA
 * T(p) = ceil(p/2) + T(ceil(p/2)), all 0 for p = 1. */
static long long documented_steps(kernel_id id, int p)
{
    if (p <= 1)
        return 0;
    if (id == K_MPICH)
        return 2LL * p - 3;
    if (id == K_LSA)
        return p >= 3 ? p : 1;
    long long t = 0;
    for (int m = p; m > 1; m = (m + 1) / 2)
        t += (m + 1) / 2;
    return t;
}

/* Places the exchange sequences of all ranks (seq + off[r], len[r] entries) in the paper's
 * step model: each rank does its exchanges in order, one per step, and an exchange takes
 * place one step after both partners finished their previous ones. Returns the number of
 * steps and in *max_idle the most ranks idle in one step, or -1 if the sequences do not
 * pair up (a blocking execution would hang). */
static int model_steps(int p, const int *seq, const int *off, const int *len, int *max_idle)
{
    int total = 0;
    for (int r = 0; r < p; r++)
        total += len[r];
    int *pos = calloc((size_t)p, sizeof *pos), *ready = calloc((size_t)p, sizeof *ready);
    int *busy = calloc((size_t)total + 2, sizeof *busy);
    int progress = 1, bad = 0;
    while (progress && !bad) {
        progress = 0;
        for (int a = 0; a < p && !bad; a++) {
            while (pos[a] < len[a]) {
                int b = seq[off[a] + pos[a]];
                if (b < 0 || b >= p || b == a) {
                    bad = 1;
                    break;
                }
                if (pos[b] >= len[b] || seq[off[b] + pos[b]] != a)
                    break;
                int t = (ready[a] > ready[b] ? ready[a] : ready[b]) + 1;
                ready[a] = ready[b] = t;
                pos[a]++;
                pos[b]++;
                busy[t] += 2;
                progress = 1;
            }
        }
    }
    int steps = 0;
    for (int r = 0; r < p; r++) {
        if (pos[r] != len[r])
            bad = 1;
        if (ready[r] > steps)
            steps = ready[r];
    }
    *max_idle = 0;
    for (int t = 1; t <= steps; t++)
        if (p - busy[t] > *max_idle)
            *max_idle = p - busy[t];
    free(pos);
    free(ready);
    free(busy);
    return bad ? -1 : steps;
}

/* ---- one kernel call and its checks ---------------------------------------------------- */

/* Measured steps per P for the table (rank 0; -2 = not measured). */
#define TABLE_KERNELS 5
static int table_steps[TABLE_KERNELS][1025], table_idle[1025];

/* The aux_bytes of a case: 0, a third of the rank's outgoing bytes, all, or more. */
static long long aux_budget(aux_mode aux, long long outgoing)
{
    switch (aux) {
    case AUX_THIRD: return outgoing / 3;
    case AUX_ALL: return outgoing;
    case AUX_MORE: return 2 * outgoing + 64;
    default: return 0;
    }
}

/* Calls the kernel of the case (aux is used by hier_sets_aux only). */
static int call_kernel(const kernel_case *kc, void *buf, const int *counts, const int *displs,
                       MPI_Datatype type, MPI_Comm comm, long long aux, a2a_stats *stats)
{
    switch (kc->id) {
    case K_VENDOR: return A2A_Alltoallv_inplace_vendor(buf, counts, displs, type, comm, stats);
    case K_MPICH:
        return A2A_Alltoallv_inplace_mpich_order(buf, counts, displs, type, comm, stats);
    case K_LSA:
        return A2A_Alltoallv_inplace_linear_shift(buf, counts, displs, type, comm, stats);
    case K_HSA: return A2A_Alltoallv_inplace_hier_sets(buf, counts, displs, type, comm, stats);
    default:
        return A2A_Alltoallv_inplace_hier_sets_aux(buf, counts, displs, type, comm, aux,
                                                   stats);
    }
}

/* Checks the recorded calls of this rank: parses them into exchanges (a blocking
 * Sendrecv_replace, or an Irecv and an Isend with the same peer next to each other), checks
 * kinds, sizes and order against the paper, and for the aux kernel which exchanges are
 * non-blocking (first fit of the outgoing blocks in order within the budget). Fills
 * xpeer (the exchange partners in order) and returns their number; *copied = bytes sent
 * from copies (non-blocking). */
static int check_trace(const exchange *ex, const kernel_case *kc, long long aux, int *xpeer,
                       long long *copied)
{
    int p = ex->p, me = ex->rank, n = 0, ops_ok = 1, size_ok = 1, kind_ok = 1;
    int *want = malloc(sizeof *want * (size_t)(p + 1));
    int nwant = paper_order(kc->id, p, me, want);
    long long used = 0;
    *copied = 0;
    expect(C_OPS, trace_len <= trace_cap, "%d calls recorded, more than %d", trace_len,
           trace_cap);
    int ncalls = trace_len < trace_cap ? trace_len : trace_cap;
    for (int c = 0; c < ncalls && ops_ok; c++) {
        const p2p_call *a = &trace[c];
        int nonblocking = 0;
        if (a->peer < 0 || a->peer >= p || a->peer == me || n >= p - 1) {
            expect(C_OPS, 0, "call %d: exchange %d with peer %d", c, n, a->peer);
            ops_ok = 0;
            break;
        }
        if (a->op == OP_REPLACE) {
            size_ok &= a->bytes == (long long)ex->counts[a->peer] * ex->tb;
        } else if ((a->op == OP_ISEND || a->op == OP_IRECV) && c + 1 < ncalls &&
                   trace[c + 1].op == (a->op == OP_ISEND ? OP_IRECV : OP_ISEND) &&
                   trace[c + 1].peer == a->peer) {
            nonblocking = 1;
            size_ok &= a->bytes == (long long)ex->counts[a->peer] * ex->tb &&
                       trace[c + 1].bytes == a->bytes;
            *copied += a->bytes;
            c++;
        } else {
            ops_ok = 0;
            expect(C_OPS, 0, "call %d (op %d, peer %d) is not part of a pairwise exchange", c,
                   a->op, a->peer);
            break;
        }
        if (kc->id == K_HSA_AUX) {
            long long bytes = (long long)ex->counts[a->peer] * ex->tb;
            int fits = bytes <= aux - used;
            if (fits)
                used += bytes;
            if (fits != nonblocking && kind_ok) {
                kind_ok = 0;
                expect(C_OPS, 0, "exchange %d with %d (%lld bytes, %lld of %lld used) is %s",
                       n, a->peer, bytes, used, aux, nonblocking ? "non-blocking" : "blocking");
            }
        } else if (nonblocking && kind_ok) {
            kind_ok = 0;
            expect(C_OPS, 0, "exchange %d with %d is non-blocking", n, a->peer);
        }
        xpeer[n++] = a->peer;
    }
    expect(C_OPS, size_ok, "an exchange does not move counts[peer] elements");
    int first = 0; /* the first exchange that differs from the paper's order */
    while (first < n && first < nwant && xpeer[first] == want[first])
        first++;
    expect(C_ORDER, n == nwant && first == n,
           "%d exchanges (paper: %d); exchange %d is with %d, the paper's with %d", n, nwant,
           first, first < n ? xpeer[first] : -1, first < nwant ? want[first] : -1);
    free(want);
    return ops_ok ? n : 0;
}

/* Runs one kernel on a copy of the exchange and checks everything listed at the top. */
static void run_case(MPI_Comm comm, exchange *ex, const kernel_case *kc, int table)
{
    int p = ex->p, me = ex->rank;
    char label[160];
    snprintf(label, sizeof label, "P=%d %s %s%s%s", p, ex->w->name, kc->name,
             kc->aux != AUX_NONE ? " aux=" : "", aux_name[kc->aux]);
    long long aux = aux_budget(kc->aux, ex->outgoing);
    memcpy(ex->work, ex->orig, ex->bytes);
    a2a_stats st;
    memset(&st, 0, sizeof st);
    trace_len = 0;
    tracing = 1;
    int err = call_kernel(kc, ex->work, ex->counts, ex->displs, ex->w->type, comm, aux, &st);
    tracing = 0;

    expect(C_RETURN, err == MPI_SUCCESS, "returned %d", err);
    compare_expected(ex, ex->work, C_DATA);
    expect(C_VS_VENDOR, memcmp(ex->work, ex->ref_vendor, ex->bytes) == 0,
           "differs from MPI_Alltoallv(MPI_IN_PLACE)");
    expect(C_VS_COPY, memcmp(ex->work, ex->ref_copy, ex->bytes) == 0,
           "differs from MPI_Alltoallv of a copy");

    if (kc->id == K_VENDOR) {
        a2a_stats zero;
        memset(&zero, 0, sizeof zero);
        expect(C_STATS, memcmp(&st, &zero, sizeof st) == 0, "vendor touched the stats");
        settle(comm, label);
        return;
    }

    expect(C_STATS, st.blocks == p - 1 && st.messages == p - 1 && st.bytes == ex->outgoing &&
                        st.meta_bytes == 0 && st.rounds_local == 0 && st.rounds_global == 0,
           "blocks %lld messages %lld bytes %lld (expected %d, %d, %lld), meta %lld, "
           "rounds local/global %lld/%lld",
           st.blocks, st.messages, st.bytes, p - 1, p - 1, ex->outgoing, st.meta_bytes,
           st.rounds_local, st.rounds_global);

    int *xpeer = malloc(sizeof *xpeer * (size_t)(p + 1));
    long long copied = 0;
    int nx = check_trace(ex, kc, aux, xpeer, &copied);
    if (kc->id == K_HSA_AUX) {
        int exact = kc->aux == AUX_ALL || kc->aux == AUX_MORE ? st.temp_bytes == ex->outgoing
                                                              : 1;
        expect(C_TEMP, st.temp_bytes == copied && st.temp_bytes <= aux && exact,
               "temp_bytes %lld, copied %lld, aux_bytes %lld, outgoing %lld", st.temp_bytes,
               copied, aux, ex->outgoing);
    } else {
        expect(C_TEMP, st.temp_bytes == 0, "temp_bytes %lld", st.temp_bytes);
    }

    /* rank 0 places everybody's exchanges in the step model */
    int *len = NULL, *off = NULL, *seq = NULL;
    long long *rounds = NULL;
    if (me == 0) {
        len = malloc(sizeof *len * (size_t)p);
        off = malloc(sizeof *off * (size_t)p);
        rounds = malloc(sizeof *rounds * (size_t)p);
    }
    MPI_Gather(&nx, 1, MPI_INT, len, 1, MPI_INT, 0, comm);
    MPI_Gather(&st.rounds, 1, MPI_LONG_LONG, rounds, 1, MPI_LONG_LONG, 0, comm);
    int total = 0;
    if (me == 0) {
        for (int r = 0; r < p; r++) {
            off[r] = total;
            total += len[r];
        }
        seq = malloc(sizeof *seq * (size_t)(total + 1));
    }
    MPI_Gatherv(xpeer, nx, MPI_INT, seq, len, off, MPI_INT, 0, comm);
    if (me == 0) {
        int max_idle = 0;
        int steps = model_steps(p, seq, off, len, &max_idle);
        int same_rounds = 1;
        for (int r = 0; r < p; r++)
            same_rounds &= rounds[r] == steps;
        expect(C_STEPS, steps >= 0 && same_rounds,
               "measured %d steps; stats.rounds %lld on rank 0, %lld on rank %d", steps,
               rounds[0], rounds[p - 1], p - 1);
        long long documented = documented_steps(kc->id, p);
        int formula_ok = steps == documented;
        if (kc->id == K_MPICH)
            formula_ok &= steps <= 2 * p - 1;
        if (kc->id == K_LSA)
            formula_ok &= steps <= p && max_idle <= (p % 2 ? 1 : 2);
        if (kc->id == K_HSA || kc->id == K_HSA_AUX) {
            long long bound = p > 1 ? p + ceil_log2(p) - 2 : 0;
            formula_ok &= steps <= bound && ((p & (p - 1)) != 0 || steps == p - 1);
        }
        expect(C_FORMULA, formula_ok, "measured %d steps (max %d idle per step), documented %lld",
               steps, max_idle, documented);
        if (table && p <= 1024 && (kc->id != K_HSA_AUX || kc->aux == AUX_THIRD)) {
            table_steps[kc->id == K_HSA_AUX ? 4 : (int)kc->id][p] = steps;
            if (kc->id == K_LSA)
                table_idle[p] = max_idle;
        }
        free(len);
        free(off);
        free(rounds);
        free(seq);
    }
    free(xpeer);
    settle(comm, label);
}

/* Argument errors: aux_bytes < 0 and a non-contiguous type are refused before anything is
 * sent, with the buffer untouched. */
static void check_arguments(MPI_Comm comm, exchange *ex)
{
    char label[64];
    snprintf(label, sizeof label, "P=%d arguments", ex->p);
    memcpy(ex->work, ex->orig, ex->bytes);
    a2a_stats st;
    memset(&st, 0, sizeof st);
    trace_len = 0;
    tracing = 1;
    int err = A2A_Alltoallv_inplace_hier_sets_aux(ex->work, ex->counts, ex->displs,
                                                  ex->w->type, comm, -1, &st);
    tracing = 0;
    expect(C_RETURN, err == MPI_ERR_ARG, "hier_sets_aux with aux_bytes -1 returned %d", err);
    expect(C_DATA, memcmp(ex->work, ex->orig, ex->bytes) == 0 && trace_len == 0,
           "aux_bytes -1: buffer changed or %d calls made", trace_len);

    MPI_Datatype strided;
    MPI_Type_vector(2, 1, 2, MPI_INT, &strided);
    MPI_Type_commit(&strided);
    for (int k = 1; k <= 4; k++) { /* mpich_order, linear_shift, hier_sets, hier_sets_aux */
        tracing = 1;
        err = call_kernel(&kernel_cases[k], ex->work, ex->counts, ex->displs, strided, comm, 0,
                          &st);
        tracing = 0;
        expect(C_RETURN, err == MPI_ERR_TYPE, "%s with a strided type returned %d",
               kernel_cases[k].name, err);
    }
    expect(C_DATA, memcmp(ex->work, ex->orig, ex->bytes) == 0 && trace_len == 0,
           "strided type: buffer changed or %d calls made", trace_len);
    MPI_Type_free(&strided);
    settle(comm, label);
}

/* Prints the measured steps against the paper's formulas for P = 1..max_P (rank 0). */
static void print_table(int max_P)
{
    printf("\nsteps measured in the paper's step model (from the exchanges the kernels "
           "issued) vs formulas\n");
    printf("%4s | %6s %6s %6s | %5s %4s %5s | %5s %5s %10s | %7s\n", "P", "mpich", "2P-3",
           "2P-1", "LSA", "P", "idle", "HSA", "P-1", "P+lg2P-2", "HSA_aux");
    for (int p = 1; p <= max_P && p <= 1024; p++) {
        printf("%4d | %6d %6d %6d | %5d %4d %5d | %5d %5d %10d | %7d\n", p,
               table_steps[K_MPICH][p], p > 1 ? 2 * p - 3 : 0, 2 * p - 1, table_steps[K_LSA][p],
               p, table_idle[p], table_steps[K_HSA][p], p - 1,
               p > 1 ? p + ceil_log2(p) - 2 : 0, table_steps[4][p]);
    }
    printf("(2P-1: the paper's MPICH count, which includes the self-exchange steps;\n"
           " idle: most ranks idle in one LSA step; P+lg2P-2: P + ceil(log2 P) - 2;\n"
           " HSA_aux: with aux_bytes = a third of the outgoing bytes)\n\n");
}

int main(int argc, char **argv)
{
    int world_size = test_init(&argc, &argv, &world_rank);
    int max_P = test_max_ranks(argc, argv, world_size);
    trace_cap = 4 * max_P + 16;
    trace = malloc(sizeof *trace * (size_t)trace_cap);
    for (int k = 0; k < TABLE_KERNELS; k++)
        for (int p = 0; p <= 1024; p++)
            table_steps[k][p] = -2;

    const workload small[] = {
        { "random-int", MPI_INT, W_RANDOM, 40, 0, 1 },
        { "random-byte", MPI_BYTE, W_RANDOM, 13, 0, 2 },
        { "zero-payload-double", MPI_DOUBLE, W_RANDOM, 9, 1, 3 },
        { "fixed-total-int64", MPI_INT64_T, W_FIXED_TOTAL, 50, 0, 4 },
        { "all-empty", MPI_INT, W_EMPTY, 0, 0, 5 },
    };
    const workload large = { "large-int64", MPI_INT64_T, W_RANDOM, 12 * 1024, 0, 6 };

    double start = MPI_Wtime();
    for (int P = 1; P <= max_P; P++) {
        MPI_Comm comm = test_first_ranks(P, world_rank);
        if (comm == MPI_COMM_NULL)
            continue;
        int nsmall = (int)(sizeof small / sizeof small[0]);
        int with_large = P == 2 || P == 7 || P == 8 || P == max_P;
        for (int w = 0; w < nsmall + with_large; w++) {
            exchange ex;
            build_exchange(&ex, w < nsmall ? &small[w] : &large, comm);
            char label[96];
            snprintf(label, sizeof label, "P=%d %s references", P, ex.w->name);
            run_references(comm, &ex, label);
            for (int k = 0; k < NKERNELS; k++)
                run_case(comm, &ex, &kernel_cases[k], w == 0);
            if (w == 0)
                check_arguments(comm, &ex);
            free_exchange(&ex);
        }
        test_print_done(world_rank, P, checks_run, checks_failed, start);
        test_done_ranks(&comm);
    }

    long long failed = test_failed_everywhere(checks_failed);
    if (world_rank == 0) {
        print_table(max_P);
        printf("test_inplace: %lld passed, %lld failed (P = 1..%d, %.1f s)\n",
               checks_run - checks_failed, checks_failed, max_P, MPI_Wtime() - start);
    }
    free(trace);
    MPI_Finalize();
    return failed == 0 ? 0 : 1;
}
