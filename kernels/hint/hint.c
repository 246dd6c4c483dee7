/* hint.c — HINT: ordered single-copy all-to-all through shared windows (HINT paper,
 * Algorithms 3-5), with online order selection and the hybrid non-temporal copy. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "a2a_hint.h"
#include "bruck_util.h"
#include "hint_order.h"
#include "hint_shm.h"
#include "hint_tuning.h"
#include "kernel_util.h"
#include "nt_memcpy.h"
#include "private_comm.h"

enum { HINT_TAG = 0x2a07 };

/* Metadata a rank publishes to its node each call (A2A_HINT_META fields). */
enum { M_OK, M_SEND_ID, M_SEND_RANK, M_SEND_OFFSET, M_RECV_ID, M_RECV_RANK, M_RECV_OFFSET };

#define SMALL_BLOCK 64 /* below a cache line the threshold cannot matter: no search */

/* Guarantees: this rank's metadata for (sbuf, rbuf) of `len` bytes each in st->own_meta
 * and their windows in st->own_win; M_OK = 1 only when both lie in A2A_Hint_alloc memory
 * whose windows hold the whole node group. Looked up again only when the buffers or the
 * window table changed. */
static void describe_own_buffers(a2a_hint_state *st, const void *sbuf, const void *rbuf,
                                 size_t len)
{
    unsigned long long gen = a2a_shm_generation();
    if (st->own_valid && st->own_send == sbuf && st->own_recv == rbuf && st->own_len == len &&
        st->own_generation == gen)
        return;
    a2a_shm_ref s = { 0, 0, 0 }, r = { 0, 0, 0 };
    MPI_Win sw = MPI_WIN_NULL, rw = MPI_WIN_NULL;
    int ok = a2a_shm_locate(sbuf, len, st->node_group, &s, &sw) &&
             a2a_shm_locate(rbuf, len, st->node_group, &r, &rw);
    long long meta[A2A_HINT_META] = { ok, s.id, s.wrank, s.offset, r.id, r.wrank, r.offset };
    if (!ok)
        memset(meta + 1, 0, sizeof meta - sizeof meta[0]);
    memcpy(st->own_meta, meta, sizeof meta);
    st->own_win[0] = sw;
    st->own_win[1] = rw;
    st->own_send = sbuf;
    st->own_recv = rbuf;
    st->own_len = len;
    st->own_generation = gen;
    st->own_valid = 1;
}

/* Guarantees: MPI_SUCCESS on every rank of the node when every rank's buffers are shared
 * and translated into this process (st->peer_send/peer_recv), MPI_ERR_ARG on every rank
 * otherwise. Decisions depend only on the gathered metadata, identical on the node, so the
 * extra agreement (one allreduce, only when the metadata changed) is entered by all. */
static int accept_metadata(a2a_hint_state *st, size_t len)
{
    const int Q = st->Q;
    for (int q = 0; q < Q; q++)
        if (!st->gathered[(size_t)q * A2A_HINT_META + M_OK])
            return MPI_ERR_ARG;
    size_t bytes = (size_t)Q * A2A_HINT_META * sizeof *st->gathered;
    if (st->meta_valid && memcmp(st->gathered, st->meta, bytes) == 0)
        return MPI_SUCCESS;
    int ok = 1;
    for (int q = 0; q < Q; q++) {
        const long long *m = st->gathered + (size_t)q * A2A_HINT_META;
        a2a_shm_ref s = { m[M_SEND_ID], m[M_SEND_RANK], m[M_SEND_OFFSET] };
        a2a_shm_ref r = { m[M_RECV_ID], m[M_RECV_RANK], m[M_RECV_OFFSET] };
        st->peer_send[q] = a2a_shm_translate(&s, len);
        st->peer_recv[q] = a2a_shm_translate(&r, len);
        ok &= st->peer_send[q] != NULL && st->peer_recv[q] != NULL;
    }
    int all = 0;
    int err = MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, st->node_comm);
    if (err != MPI_SUCCESS)
        return err;
    memcpy(st->meta, st->gathered, bytes);
    st->meta_valid = all;
    return all ? MPI_SUCCESS : MPI_ERR_ARG;
}

/* FNV-1a over the node's metadata: which buffers a tuning slot is for. */
static uint64_t hash_metadata(const long long *meta, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    const unsigned char *p = (const unsigned char *)meta;
    for (size_t i = 0; i < n * sizeof *meta; i++)
        h = (h ^ p[i]) * 1099511628211ULL;
    return h;
}

/* Guarantees: for order = tuned, *order and *threshold from the tuning file's rule for
 * (P, block bytes), read by node rank 0 and broadcast, so the node agrees; MPI_ERR_ARG on
 * every rank of the node (and one line on stderr) when the file cannot be used. */
static int tuned_rule(a2a_hint_state *st, size_t block_bytes, int *order, long long *threshold)
{
    long long answer[3] = { -1, 0, 0 };
    int local;
    MPI_Comm_rank(st->node_comm, &local);
    if (local == 0) {
        char err[512];
        const char *path = getenv(A2A_HINT_TUNING_ENV);
        int o = 0;
        long long t = 0;
        if (!path || !*path)
            snprintf(err, sizeof err, "%s is not set", A2A_HINT_TUNING_ENV);
        else if (a2a_hint_tuning_lookup(path, st->P, (long long)block_bytes, &o, &t, err,
                                        sizeof err) == 0)
            answer[0] = 0, answer[1] = o, answer[2] = t;
        if (answer[0] != 0)
            fprintf(stderr, "a2a hint: order = tuned: %s\n", err);
    }
    int err = MPI_Bcast(answer, 3, MPI_LONG_LONG, 0, st->node_comm);
    if (err != MPI_SUCCESS)
        return err;
    if (answer[0] != 0)
        return MPI_ERR_ARG;
    *order = (int)answer[1];
    *threshold = answer[2];
    return MPI_SUCCESS;
}

/* Guarantees: the slot of this (block size, buffers, arguments) combination: an existing
 * one, or a fresh one in an unused or the least recently used place, initialised from the
 * arguments (and, for tuned, the file: the only communication). The same on every rank of
 * the node, since all inputs are. */
static int find_slot(a2a_hint_state *st, size_t block_bytes, uint64_t buffers, int order_arg,
                     int threshold_arg, a2a_hint_slot **out)
{
    a2a_hint_slot *victim = NULL;
    st->clock++;
    for (int i = 0; i < A2A_HINT_SLOTS; i++) {
        a2a_hint_slot *s = &st->slots[i];
        if (s->used && s->block_bytes == block_bytes && s->buffers == buffers &&
            s->order_arg == order_arg && s->threshold_arg == threshold_arg) {
            s->last_use = st->clock;
            *out = s;
            return MPI_SUCCESS;
        }
        if (!victim || (victim->used && (!s->used || s->last_use < victim->last_use)))
            victim = s;
    }
    int order = order_arg;
    long long threshold = threshold_arg;
    if (order_arg == A2A_ORDER_TUNED) {
        long long file_threshold = 0;
        int err = tuned_rule(st, block_bytes, &order, &file_threshold);
        if (err != MPI_SUCCESS)
            return err;
        if (threshold_arg == 0) /* an explicit threshold argument wins over the file */
            threshold = file_threshold;
    }
    memset(victim, 0, sizeof *victim);
    victim->used = 1;
    victim->last_use = st->clock;
    victim->block_bytes = block_bytes;
    victim->buffers = buffers;
    victim->order_arg = order_arg;
    victim->threshold_arg = threshold_arg;
    victim->best_time = -1;
    victim->order = order == A2A_ORDER_AUTO ? A2A_ORDER_ROW : order;
    victim->order_settled = order != A2A_ORDER_AUTO;
    victim->threshold = threshold > 0 ? (size_t)threshold : st->t0;
    victim->threshold_settled = threshold > 0 || block_bytes < SMALL_BLOCK;
    *out = victim;
    return MPI_SUCCESS;
}

static double median3(const double *t)
{
    double a = t[0], b = t[1], c = t[2];
    if (a > b) { double x = a; a = b; b = x; }
    if (b > c) { double x = b; b = c; c = x; }
    if (a > b) { double x = a; a = b; b = x; }
    return b;
}

/* The next threshold of the search after T for blocks of B bytes: halved, skipping the
 * values that still copy whole blocks temporally, down to 0 (all non-temporal) after the
 * last value of at least a cache line; (size_t)-1 after 0. */
static size_t next_threshold(size_t T, size_t B)
{
    if (T == 0)
        return (size_t)-1;
    size_t c = T / 2;
    while (c >= B && c > 0)
        c /= 2;
    return c < SMALL_BLOCK ? 0 : c;
}

/* Guarantees: whether this call of slot s is timed (the tuning needs the slowest rank's
 * copy time), and the order and threshold it uses. The first call of a slot is a setup
 * call, never timed. auto: then each order A2A_HINT_TRIES times; runtime threshold: then
 * each candidate A2A_HINT_TRIES times. */
static int plan_call(a2a_hint_slot *s)
{
    if (!s->order_settled) {
        if (s->calls > 0)
            s->order = A2A_ORDER_ROW + (s->calls - 1) / A2A_HINT_TRIES;
        return s->calls > 0;
    }
    return !s->threshold_settled && s->calls > 0;
}

/* Guarantees: records the slowest copy time of a timed call and advances the tuning:
 * after the last auto trial the order with the least median time is kept; after each
 * candidate threshold the search halves while the median improves, else keeps the best. */
static void learn(a2a_hint_slot *s, double seconds)
{
    if (!s->order_settled) {
        int t = s->calls - 1;
        s->order_time[t / A2A_HINT_TRIES][t % A2A_HINT_TRIES] = seconds;
        if (t == 3 * A2A_HINT_TRIES - 1) {
            int best = 0;
            for (int o = 1; o < 3; o++)
                if (median3(s->order_time[o]) < median3(s->order_time[best]))
                    best = o;
            s->order = A2A_ORDER_ROW + best;
            s->order_settled = 1;
        }
        return;
    }
    s->threshold_time[s->threshold_tries++] = seconds;
    if (s->threshold_tries < A2A_HINT_TRIES)
        return;
    s->threshold_tries = 0;
    double m = median3(s->threshold_time);
    if (s->best_time < 0 || m < s->best_time) {
        s->best_time = m;
        s->best_threshold = s->threshold;
        size_t next = next_threshold(s->threshold, s->block_bytes);
        if (next != (size_t)-1) {
            s->threshold = next;
            return;
        }
    }
    s->threshold = s->best_threshold;
    s->threshold_settled = 1;
}

/* Guarantees: the Q x Q block copies of this rank's node, this rank doing its share in the
 * planned order, then every copy of the node complete and visible (window sync around an
 * intra-node barrier, or an allreduce of the copy time while tuning). MPI_ERR_ARG on every
 * rank of the node when some buffer is not shared or the tuning file is unusable; then
 * nothing was copied. Stats: copies for other ranks. */
static int intra_node(a2a_hint_state *st, const void *sbuf, void *rbuf, size_t B, int order_arg,
                      int threshold_arg, a2a_stats *stats)
{
    const int Q = st->Q;
    const size_t len = (size_t)st->P * B;
    if (Q == 1) { /* only the own block: no peers, any buffers */
        size_t T = threshold_arg > 0 ? (size_t)threshold_arg : st->t0;
        size_t at = (size_t)(st->node * Q + st->local) * B;
        a2a_hybrid_memcpy((char *)rbuf + at, (const char *)sbuf + at, B, T);
        st->last_order = order_arg >= A2A_ORDER_ROW && order_arg <= A2A_ORDER_HILBERT
                             ? order_arg : A2A_ORDER_ROW;
        st->last_threshold = T >= B ? (size_t)-1 : T;
        return MPI_SUCCESS;
    }
    describe_own_buffers(st, sbuf, rbuf, len);
    /* Algorithm 3's metadata exchange; it also ensures every rank entered the call, so
     * its buffers are ready to be read and written */
    int err = MPI_Allgather(st->own_meta, A2A_HINT_META, MPI_LONG_LONG, st->gathered,
                            A2A_HINT_META, MPI_LONG_LONG, st->node_comm);
    if (err != MPI_SUCCESS)
        return err;
    if ((err = accept_metadata(st, len)) != MPI_SUCCESS)
        return err;
    a2a_hint_slot *slot;
    uint64_t buffers = hash_metadata(st->gathered, (size_t)Q * A2A_HINT_META);
    if ((err = find_slot(st, B, buffers, order_arg, threshold_arg, &slot)) != MPI_SUCCESS)
        return err;
    int timed = plan_call(slot);
    const a2a_copy *list = a2a_hint_state_order(st, slot->order);

    const size_t T = slot->threshold;
    const long long base = (long long)st->node * Q;
    long long blocks = 0;
    double t0 = MPI_Wtime();
    for (int i = 0; i < Q; i++) {
        int s = list[i].src, d = list[i].dst;
        const char *from = st->peer_send[s] + (size_t)(base + d) * B;
        char *to = st->peer_recv[d] + (size_t)(base + s) * B;
        a2a_hybrid_memcpy(to, from, B, T);
        blocks += s != d;
    }
    double mine = MPI_Wtime() - t0, slowest = 0;
    MPI_Win_sync(st->own_win[0]);
    if (st->own_win[1] != st->own_win[0])
        MPI_Win_sync(st->own_win[1]);
    if (timed)
        err = MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, st->node_comm);
    else
        err = MPI_Barrier(st->node_comm);
    MPI_Win_sync(st->own_win[0]);
    if (st->own_win[1] != st->own_win[0])
        MPI_Win_sync(st->own_win[1]);
    if (err != MPI_SUCCESS)
        return err;
    st->last_order = slot->order;
    st->last_threshold = T >= B ? (size_t)-1 : T;
    if (timed)
        learn(slot, slowest);
    slot->calls++;
    if (stats) {
        stats->blocks += blocks;
        stats->bytes += blocks * (long long)B;
        stats->rounds += 1;
        stats->rounds_local += 1;
    }
    return MPI_SUCCESS;
}

/* Guarantees: Algorithm 5's inter-node step: pairwise rounds i = 1..P-1 with rank + i
 * (send) and rank - i (receive), skipping partners on this rank's node; each round
 * completes before the next. */
static int inter_node(a2a_hint_state *st, const void *sbuf, int scount, MPI_Datatype stype,
                      void *rbuf, int rcount, MPI_Datatype rtype, size_t B, MPI_Comm comm,
                      a2a_stats *stats)
{
    const int P = st->P, Q = st->Q, rank = st->node * Q + st->local;
    long long rounds = 0;
    for (int i = 1; i < P; i++) {
        int dst = (rank + i) % P, src = (rank - i + P) % P;
        MPI_Request req[2];
        int n = 0, err;
        if (src / Q != st->node &&
            (err = MPI_Irecv((char *)rbuf + (size_t)src * B, rcount, rtype, src, HINT_TAG, comm,
                             &req[n++])) != MPI_SUCCESS)
            return err;
        if (dst / Q != st->node) {
            if ((err = MPI_Isend((const char *)sbuf + (size_t)dst * B, scount, stype, dst,
                                 HINT_TAG, comm, &req[n++])) != MPI_SUCCESS)
                return err;
            a2a_count_send(stats, 1, (long long)B);
        }
        if (n == 0)
            continue;
        if ((err = MPI_Waitall(n, req, MPI_STATUSES_IGNORE)) != MPI_SUCCESS)
            return err;
        rounds++;
    }
    if (stats) {
        stats->rounds += rounds;
        stats->rounds_global += rounds;
    }
    return MPI_SUCCESS;
}

/* Guarantees: MPI_Alltoall semantics on comm for buffers in A2A_Hint_alloc memory (see
 * a2a_hint.h): every block copied once, by one rank of its node, or sent to another node;
 * the send buffer never written, the receive buffer never read. Argument errors
 * (MPI_ERR_ARG: order outside 1..5, threshold or ppn < 0, P % Q != 0) before any
 * communication except the node layout's; a node whose buffers are not shared copies
 * nothing and returns MPI_ERR_ARG after still taking part in the inter-node step (so does
 * a rank whose type is not one ascending run: it is staged, and staging buffers are not
 * shared). MPI_ERR_COMM for an intercommunicator. */
int A2A_Alltoall_hint(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                      int rcount, MPI_Datatype rtype, MPI_Comm comm, int order, int threshold,
                      int ppn, a2a_stats *stats)
{
    a2a_byte_call c;
    int err = a2a_uniform_begin(&c, sbuf, scount, stype, rbuf, rcount, rtype, comm, stats);
    if (err != MPI_SUCCESS)
        return err;
    if (order < A2A_ORDER_ROW || order > A2A_ORDER_LAST || threshold < 0 || ppn < 0)
        return a2a_uniform_end(&c, MPI_ERR_ARG);
    const size_t B = c.block_bytes;
    a2a_hint_state *st;
    if ((err = a2a_hint_state_get(comm, ppn, &st)) != MPI_SUCCESS)
        return a2a_uniform_end(&c, err);
    if (B == 0) { /* nothing moves (B is the same on every rank) */
        st->last_order = order <= A2A_ORDER_HILBERT ? order : A2A_ORDER_ROW;
        st->last_threshold = (size_t)-1;
        return a2a_uniform_end(&c, MPI_SUCCESS);
    }
    int node_err = intra_node(st, c.send, c.recv, B, order, threshold, stats);
    if (st->N > 1) {
        err = inter_node(st, c.send, scount, c.stype, c.recv, rcount, c.rtype, B,
                         a2a_private_comm(comm), stats);
        if (node_err == MPI_SUCCESS)
            node_err = err;
    }
    return a2a_uniform_end(&c, node_err);
}

/* Guarantees: see a2a_hint.h; no communication. */
int A2A_Hint_last_choice(MPI_Comm comm, int ppn, int *order, long long *threshold)
{
    a2a_hint_state *st = a2a_hint_state_find(comm, ppn);
    if (!st || st->last_order == 0)
        return MPI_ERR_ARG;
    *order = st->last_order;
    *threshold = st->last_threshold >= (size_t)LLONG_MAX ? -1 : (long long)st->last_threshold;
    return MPI_SUCCESS;
}
