/* tuna_local.c — TuNA's rounds (metadata, then data) among the q ranks of each node, for
 * the blocks of all N = P/q nodes at once. Flat TuNA is the case q = P; TuNA_l^g runs it
 * as its intra-node phase. See tuna_local.h for the contract.
 *
 * Blocks are named by their local distance i = (destination local rank - source local
 * rank) mod q and by the node offset k = (destination node - this node) mod N. The
 * initial rotation of Bruck is an index map, never a data move: at round (x, z) the rank
 * with local rank g holds, for every i whose base-r digit x is z, the block that left
 * local rank g - (i mod r^x); when i mod r^x is 0 that block is still in the user's send
 * buffer at the destination ((n + k) mod N)*q + (g + i) mod q. The rank sends all those
 * blocks to g + z*r^x. A block whose digits above x are zero has then arrived.
 *
 * Temporary buffer T: one slot of the largest block per place where a block waits. For
 * this node's own group (k = 0) that is one slot per distance i with two or more non-zero
 * digits (q - K - 1 of them; a round's direct block z*r^x goes from the send buffer
 * straight into the receive buffer), addressed by i minus the direct distances below i.
 * For other nodes' groups (k > 0) every distance has a slot, since the block also waits
 * there after its last intra-node hop for the inter-node phase.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_util.h"
#include "tuna_local.h"

enum { TUNA_TAG_META = 0x7a10, TUNA_TAG_DATA = 0x7a11 };

/* Node layout of the calling rank, identical arithmetic on every rank. */
typedef struct {
    int q, nodes, node, local, radix;
    long held_slots; /* (nodes - 1) * (q - 1): slots of blocks bound for other nodes */
} tuna_geometry;

/* One message as MPI sees it: `count` items of `type` at `buf`; count 0 = not sent. */
typedef struct {
    void *buf;
    int count;
    MPI_Datatype type; /* MPI_BYTE, or a committed hindexed type relative to MPI_BOTTOM */
    long long bytes;
} gathered_message;

/* Everything one call works with. */
typedef struct {
    const char *sbuf;
    const int *scounts, *sdispls;
    MPI_Aint sbytes;
    char *rbuf;
    const int *rdispls;
    MPI_Aint rbytes;
    MPI_Comm comm;
    tuna_geometry geo;
    char *temp;      /* T: slots of slot_bytes */
    int *temp_sizes; /* bytes in each slot of T */
    size_t slot_bytes;
    /* scratch, sized for the largest group of rounds */
    int *meta_out, *meta_in;   /* block sizes, concatenated over the group's rounds */
    int *distances;            /* distances of the group's rounds, concatenated */
    long *round_blocks;        /* distances per round of the group */
    char **seg_ptrs;           /* segments of one message */
    int *seg_lengths;
    MPI_Aint *seg_addresses;
    MPI_Request *requests;     /* 2 per round of the group */
    gathered_message *sends, *recvs;
    long long base_bytes;      /* temporary bytes held for the whole call */
    a2a_stats *stats;
} tuna_state;

/* Guarantees: writes to out (if not NULL), in increasing order, the distances i in
 * [1, q) whose base-r digit of weight span is z, and returns how many there are. */
static long round_distances(int q, long long span, int radix, long long z, int *out)
{
    long n = 0;
    for (long long start = z * span; start < q; start += span * radix)
        for (long long i = start; i < start + span && i < q; i++) {
            if (out)
                out[n] = (int)i;
            n++;
        }
    return n;
}

/* Guarantees: for a distance i with at least two non-zero base-r digits, its index among
 * such distances: i - 1 minus the number of direct distances z*r^x below i (those with
 * x below i's top digit dx, and z <= dz at x = dx). */
static long intermediate_index(int i, int radix)
{
    long long span = 1;
    long top_digit = 0;
    while (i / span >= radix) {
        span *= radix;
        top_digit++;
    }
    long top_value = (long)(i / span);
    return (long)i - 1 - top_digit * (radix - 1) - top_value;
}

/* Guarantees: the slot of T for node offset k and distance i (i non-direct when k = 0). */
static long slot_of(const tuna_geometry *g, int k, int i)
{
    if (k > 0)
        return a2a_tuna_held_slot(k, i, g->q);
    return g->held_slots + intermediate_index(i, g->radix);
}

/* Guarantees: true when the outgoing block (k, i) of a round at digit weight span lies in
 * a slot of T that the same round refills (it left an earlier holder, and it waits here
 * again afterwards), so it must be copied out before the receive is posted. */
static int refilled_in_round(const tuna_state *st, long long span, int k, int i)
{
    return i % span != 0 && (k > 0 || i >= span * st->geo.radix);
}

/* Guarantees: byte size and (when not empty) address of the block (k, i) this rank sends
 * in a round at digit weight span: from the send buffer when it has not moved yet, else
 * from T. */
static const char *outgoing_block(const tuna_state *st, long long span, int k, int i,
                                  long long *bytes)
{
    const tuna_geometry *g = &st->geo;
    if (i % span == 0) {
        int dest = ((g->node + k) % g->nodes) * g->q + (g->local + i) % g->q;
        *bytes = (long long)st->scounts[dest] * st->sbytes;
        return *bytes > 0 ? st->sbuf + (MPI_Aint)st->sdispls[dest] * st->sbytes : NULL;
    }
    long slot = slot_of(g, k, i);
    *bytes = st->temp_sizes[slot];
    return *bytes > 0 ? st->temp + (size_t)slot * st->slot_bytes : NULL;
}

/* Guarantees: *place = where the incoming block (k, i) of `bytes` bytes goes in a round at
 * digit weight span (set only when bytes > 0): the receive buffer when it arrived (own
 * node, no higher digit), else its slot of T, whose recorded size becomes `bytes`.
 * Returns 0 when the block would not fit a slot. */
static int incoming_block(tuna_state *st, long long span, int k, int i, int bytes,
                          char **place)
{
    const tuna_geometry *g = &st->geo;
    if (k == 0 && i < span * g->radix) {
        int source = g->node * g->q + (g->local - i + g->q) % g->q;
        if (bytes > 0)
            *place = st->rbuf + (MPI_Aint)st->rdispls[source] * st->rbytes;
        return 1;
    }
    if (bytes < 0 || (size_t)bytes > st->slot_bytes)
        return 0;
    long slot = slot_of(g, k, i);
    st->temp_sizes[slot] = bytes;
    if (bytes > 0)
        *place = st->temp + (size_t)slot * st->slot_bytes;
    return 1;
}

/* Guarantees: msg describes the n non-empty segments (seg_ptrs, seg_lengths) of st as one
 * message: plain bytes for one segment, a committed hindexed type of MPI_BYTE at absolute
 * addresses for several, nothing (count 0) for none. */
static int describe_segments(tuna_state *st, int n, long long bytes, gathered_message *msg)
{
    msg->buf = NULL;
    msg->count = 0;
    msg->type = MPI_BYTE;
    msg->bytes = bytes;
    if (n == 0)
        return MPI_SUCCESS;
    if (n == 1) {
        msg->buf = st->seg_ptrs[0];
        msg->count = st->seg_lengths[0];
        return MPI_SUCCESS;
    }
    for (int s = 0; s < n; s++) {
        int err = MPI_Get_address(st->seg_ptrs[s], &st->seg_addresses[s]);
        if (err != MPI_SUCCESS)
            return err;
    }
    int err = MPI_Type_create_hindexed(n, st->seg_lengths, st->seg_addresses, MPI_BYTE,
                                       &msg->type);
    if (err != MPI_SUCCESS) {
        msg->type = MPI_BYTE;
        return err;
    }
    err = MPI_Type_commit(&msg->type);
    if (err != MPI_SUCCESS)
        return err;
    msg->buf = MPI_BOTTOM;
    msg->count = 1;
    return MPI_SUCCESS;
}

/* Guarantees: frees the datatype msg may own; msg becomes empty. */
static void release_message(gathered_message *msg)
{
    if (msg->type != MPI_BYTE)
        MPI_Type_free(&msg->type);
    msg->type = MPI_BYTE;
    msg->count = 0;
}

/* Guarantees: runs rounds (x, z0) .. (x, z0 + zcount - 1) of digit weight span with all
 * of them in flight together: metadata of every round, then data of every round, then
 * waits for all. Everything the group allocates is freed before it returns. */
static int run_round_group(tuna_state *st, long long span, long long z0, int zcount)
{
    const tuna_geometry *g = &st->geo;
    const int nodes = g->nodes;
    int err = MPI_SUCCESS;

    long filled = 0;
    for (int c = 0; c < zcount; c++) {
        st->round_blocks[c] = round_distances(g->q, span, g->radix, z0 + c, st->distances + filled);
        filled += st->round_blocks[c];
    }

    /* Phase 1: block sizes. Message order: node offset k, then distance. */
    long entry = 0;
    const int *dist = st->distances;
    for (int c = 0; c < zcount; c++) {
        for (int k = 0; k < nodes; k++)
            for (long t = 0; t < st->round_blocks[c]; t++) {
                long long bytes;
                outgoing_block(st, span, k, dist[t], &bytes);
                st->meta_out[entry++] = (int)bytes;
            }
        dist += st->round_blocks[c];
    }
    int nreq = 0;
    entry = 0;
    for (int c = 0; c < zcount && err == MPI_SUCCESS; c++) {
        long long hop = (z0 + c) * span;
        int from = g->node * g->q + (int)((g->local - hop + g->q) % g->q);
        int count = (int)(nodes * st->round_blocks[c]);
        err = MPI_Irecv(st->meta_in + entry, count, MPI_INT, from, TUNA_TAG_META, st->comm,
                        &st->requests[nreq++]);
        entry += count;
    }
    entry = 0;
    for (int c = 0; c < zcount && err == MPI_SUCCESS; c++) {
        long long hop = (z0 + c) * span;
        int to = g->node * g->q + (int)((g->local + hop) % g->q);
        int count = (int)(nodes * st->round_blocks[c]);
        err = MPI_Isend(st->meta_out + entry, count, MPI_INT, to, TUNA_TAG_META, st->comm,
                        &st->requests[nreq++]);
        a2a_count_meta(st->stats, (long long)count * (long long)sizeof(int));
        entry += count;
    }
    if (nreq > 0) {
        int wait_err = MPI_Waitall(nreq, st->requests, MPI_STATUSES_IGNORE);
        if (err == MPI_SUCCESS)
            err = wait_err;
    }
    if (err != MPI_SUCCESS)
        return err;

    /* Staging: blocks whose slot this group refills, one region per block, kept until
     * the whole group completed. */
    size_t stage_bytes = 0;
    entry = 0;
    dist = st->distances;
    for (int c = 0; c < zcount; c++) {
        for (int k = 0; k < nodes; k++)
            for (long t = 0; t < st->round_blocks[c]; t++, entry++)
                if (refilled_in_round(st, span, k, dist[t]))
                    stage_bytes += (size_t)st->meta_out[entry];
        dist += st->round_blocks[c];
    }
    char *stage = NULL;
    if (stage_bytes > 0) {
        stage = malloc(stage_bytes);
        if (!stage)
            return MPI_ERR_NO_MEM;
    }
    a2a_count_temp(st->stats, st->base_bytes + (long long)stage_bytes);

    /* Phase 2: data. Build every send first (copying refilled blocks to the stage), then
     * the receives (recording sizes of blocks landing in T), then post them all. */
    size_t staged = 0;
    entry = 0;
    dist = st->distances;
    for (int c = 0; c < zcount; c++) {
        int segments = 0;
        long long bytes = 0;
        for (int k = 0; k < nodes; k++)
            for (long t = 0; t < st->round_blocks[c]; t++, entry++) {
                int size = st->meta_out[entry];
                if (size == 0)
                    continue;
                long long ignored;
                const char *block = outgoing_block(st, span, k, dist[t], &ignored);
                if (refilled_in_round(st, span, k, dist[t])) {
                    memcpy(stage + staged, block, (size_t)size);
                    block = stage + staged;
                    staged += (size_t)size;
                }
                st->seg_ptrs[segments] = (char *)block;
                st->seg_lengths[segments++] = size;
                bytes += size;
            }
        dist += st->round_blocks[c];
        if (err == MPI_SUCCESS)
            err = describe_segments(st, segments, bytes, &st->sends[c]);
    }
    entry = 0;
    dist = st->distances;
    for (int c = 0; c < zcount; c++) {
        int segments = 0;
        long long bytes = 0;
        for (int k = 0; k < nodes; k++)
            for (long t = 0; t < st->round_blocks[c]; t++, entry++) {
                int size = st->meta_in[entry];
                char *block = NULL;
                if (!incoming_block(st, span, k, dist[t], size, &block)) {
                    err = MPI_ERR_TRUNCATE;
                    continue;
                }
                if (size == 0)
                    continue;
                st->seg_ptrs[segments] = block;
                st->seg_lengths[segments++] = size;
                bytes += size;
            }
        dist += st->round_blocks[c];
        if (err == MPI_SUCCESS)
            err = describe_segments(st, segments, bytes, &st->recvs[c]);
    }

    nreq = 0;
    for (int c = 0; c < zcount && err == MPI_SUCCESS; c++) {
        long long hop = (z0 + c) * span;
        int from = g->node * g->q + (int)((g->local - hop + g->q) % g->q);
        if (st->recvs[c].count > 0)
            err = MPI_Irecv(st->recvs[c].buf, st->recvs[c].count, st->recvs[c].type, from,
                            TUNA_TAG_DATA, st->comm, &st->requests[nreq++]);
    }
    for (int c = 0; c < zcount && err == MPI_SUCCESS; c++) {
        long long hop = (z0 + c) * span;
        int to = g->node * g->q + (int)((g->local + hop) % g->q);
        long long blocks = (long long)nodes * st->round_blocks[c];
        if (st->sends[c].count > 0) {
            err = MPI_Isend(st->sends[c].buf, st->sends[c].count, st->sends[c].type, to,
                            TUNA_TAG_DATA, st->comm, &st->requests[nreq++]);
            a2a_count_send(st->stats, blocks, st->sends[c].bytes);
        } else if (st->stats) {
            st->stats->blocks += blocks; /* every block of the round is empty: no message */
        }
    }
    if (nreq > 0) {
        int wait_err = MPI_Waitall(nreq, st->requests, MPI_STATUSES_IGNORE);
        if (err == MPI_SUCCESS)
            err = wait_err;
    }
    for (int c = 0; c < zcount; c++) {
        release_message(&st->sends[c]);
        release_message(&st->recvs[c]);
    }
    free(stage);
    return err;
}

/* Guarantees: malloc of max(bytes, 1) that adds `bytes` to *total. */
static void *scratch_alloc(size_t bytes, long long *total)
{
    *total += (long long)bytes;
    return malloc(bytes > 0 ? bytes : 1);
}

/* Guarantees: see tuna_local.h. */
int a2a_tuna_local(const void *sbuf, const int *scounts, const int *sdispls, MPI_Aint sbytes,
                   void *rbuf, const int *rdispls, MPI_Aint rbytes, MPI_Comm comm, int q,
                   int radix, int subrounds, a2a_tuna_held *held, a2a_stats *stats)
{
    int rank, size, err;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    memset(held, 0, sizeof *held);

    tuna_state st;
    memset(&st, 0, sizeof st);
    st.sbuf = sbuf;
    st.scounts = scounts;
    st.sdispls = sdispls;
    st.sbytes = sbytes;
    st.rbuf = rbuf;
    st.rdispls = rdispls;
    st.rbytes = rbytes;
    st.comm = comm;
    st.stats = stats;
    st.geo.q = q;
    st.geo.nodes = size / q;
    st.geo.node = rank / q;
    st.geo.local = rank % q;
    st.geo.radix = radix;
    st.geo.held_slots = (long)(st.geo.nodes - 1) * (q - 1);

    /* Rounds (x, z) with z*r^x < q: K of them; sizes of the largest round and group. */
    long long rounds = 0;
    long max_round = 0, max_group = 0;
    for (long long span = 1; span < q; span *= radix) {
        long long zmax = (q - 1) / span < radix - 1 ? (q - 1) / span : radix - 1;
        rounds += zmax;
        for (long long z0 = 1; z0 <= zmax; z0 += subrounds) {
            long group = 0;
            for (long long z = z0; z <= zmax && z < z0 + subrounds; z++) {
                long n = round_distances(q, span, radix, z, NULL);
                group += n;
                if (n > max_round)
                    max_round = n;
            }
            if (group > max_group)
                max_group = group;
        }
    }
    const long slots = st.geo.held_slots + (long)(q - 1 - rounds);

    long long largest = 0;
    for (int d = 0; d < size; d++) {
        long long bytes = (long long)scounts[d] * sbytes;
        if (bytes > largest)
            largest = bytes;
    }
    if (slots > 0) {
        long long mine = largest;
        err = MPI_Allreduce(&mine, &largest, 1, MPI_LONG_LONG, MPI_MAX, comm);
        if (err != MPI_SUCCESS)
            return err;
    }
    if (largest > INT_MAX)
        return MPI_ERR_COUNT;
    st.slot_bytes = (size_t)largest;

    const long message_blocks = (long)st.geo.nodes * max_round;
    const long group_blocks = (long)st.geo.nodes * max_group;
    long long total = 0;
    st.temp = scratch_alloc((size_t)slots * st.slot_bytes, &total);
    st.temp_sizes = scratch_alloc((size_t)slots * sizeof(int), &total);
    st.meta_out = scratch_alloc(2 * (size_t)group_blocks * sizeof(int), &total);
    st.meta_in = st.meta_out ? st.meta_out + group_blocks : NULL;
    st.distances = scratch_alloc((size_t)max_group * sizeof(int), &total);
    st.round_blocks = scratch_alloc((size_t)subrounds * sizeof(long), &total);
    st.seg_ptrs = scratch_alloc((size_t)message_blocks * sizeof(char *), &total);
    st.seg_lengths = scratch_alloc((size_t)message_blocks * sizeof(int), &total);
    st.seg_addresses = scratch_alloc((size_t)message_blocks * sizeof(MPI_Aint), &total);
    st.requests = scratch_alloc(2 * (size_t)subrounds * sizeof(MPI_Request), &total);
    st.sends = scratch_alloc(2 * (size_t)subrounds * sizeof(gathered_message), &total);
    st.recvs = st.sends ? st.sends + subrounds : NULL;
    st.base_bytes = total;
    err = MPI_SUCCESS;
    if (!st.temp || !st.temp_sizes || !st.meta_out || !st.distances || !st.round_blocks ||
        !st.seg_ptrs || !st.seg_lengths || !st.seg_addresses || !st.requests || !st.sends)
        err = MPI_ERR_NO_MEM;
    if (err == MPI_SUCCESS) {
        a2a_count_temp(stats, total);
        for (int c = 0; c < 2 * subrounds; c++) {
            st.sends[c].count = 0;
            st.sends[c].type = MPI_BYTE;
        }
        /* The own block never leaves: copy it. */
        if (scounts[rank] > 0)
            memcpy(st.rbuf + (MPI_Aint)rdispls[rank] * rbytes,
                   st.sbuf + (MPI_Aint)sdispls[rank] * sbytes,
                   (size_t)((long long)scounts[rank] * sbytes));
    }

    for (long long span = 1; span < q && err == MPI_SUCCESS; span *= radix) {
        long long zmax = (q - 1) / span < radix - 1 ? (q - 1) / span : radix - 1;
        for (long long z0 = 1; z0 <= zmax && err == MPI_SUCCESS; z0 += subrounds) {
            int zcount = (int)(zmax - z0 + 1 < subrounds ? zmax - z0 + 1 : subrounds);
            err = run_round_group(&st, span, z0, zcount);
        }
    }

    free(st.meta_out);
    free(st.distances);
    free(st.round_blocks);
    free(st.seg_ptrs);
    free(st.seg_lengths);
    free(st.seg_addresses);
    free(st.requests);
    free(st.sends);
    if (err != MPI_SUCCESS || st.geo.held_slots == 0) {
        free(st.temp);
        free(st.temp_sizes);
        if (err == MPI_SUCCESS) {
            a2a_count_rounds(stats, rounds);
            held->rounds = rounds;
        }
        return err;
    }

    /* Keep only the held slots (they come first in T) for the inter-node phase. */
    size_t held_data = (size_t)st.geo.held_slots * st.slot_bytes;
    char *data = held_data > 0 ? realloc(st.temp, held_data) : NULL;
    if (data)
        st.temp = data;
    else if (held_data == 0) {
        free(st.temp);
        st.temp = NULL;
    }
    int *sizes = realloc(st.temp_sizes, (size_t)st.geo.held_slots * sizeof(int));
    if (sizes)
        st.temp_sizes = sizes;
    held->data = st.temp;
    held->sizes = st.temp_sizes;
    held->slot_bytes = (MPI_Aint)st.slot_bytes;
    held->alloc_bytes = (long long)held_data + st.geo.held_slots * (long long)sizeof(int);
    held->rounds = rounds;
    a2a_count_rounds(stats, rounds);
    return MPI_SUCCESS;
}

/* Guarantees: see tuna_local.h. */
int a2a_tuna_hier_setup(MPI_Datatype stype, MPI_Datatype rtype, MPI_Comm comm, int ppn,
                        int radix, MPI_Aint *sbytes, MPI_Aint *rbytes, int *q, int *node,
                        int *local)
{
    int err;
    if ((err = A2A_Type_bytes(stype, sbytes)) != MPI_SUCCESS)
        return err;
    if ((err = A2A_Type_bytes(rtype, rbytes)) != MPI_SUCCESS)
        return err;
    if ((err = A2A_Node_layout(comm, ppn, q, node, local)) != MPI_SUCCESS)
        return err;
    if (radix < 2 || radix > (*q > 2 ? *q : 2))
        return MPI_ERR_ARG;
    return MPI_SUCCESS;
}
