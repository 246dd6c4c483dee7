/* tuna_local.c — TuNA's rounds (block sizes, then data) among the q ranks of each node,
 * for the blocks of all N = P/q nodes at once. Flat TuNA is the case q = P; TuNA_l^g
 * runs it as its intra-node phase, in the frame at the end of this file (checks, the
 * intra-node phase, then the kernel's inter-node phase). See tuna_local.h for the
 * contract.
 *
 * Blocks are named by their local distance i = (destination local rank - source local
 * rank) mod q and by the node offset k = (destination node - this node) mod N. The
 * initial rotation of Bruck is an index map, never a data move: at round (x, z) the rank
 * with local rank g holds, for every i whose base-r digit x is z, the block that left
 * local rank g - (i mod r^x); when i mod r^x is 0 that block is still in the user's send
 * buffer at the destination ((n + k) mod N)*q + (g + i) mod q. The rank sends all those
 * blocks to g + z*r^x. A block whose digits above x are zero has then arrived.
 *
 * Each round has exactly one direct block, (k = 0, i = z*r^x): it goes from the sender's
 * send buffer to the receiver's receive buffer, and the receiver knows its size from
 * rcounts. Only the other blocks' sizes travel, so a round whose only block is the direct
 * one (every round when radix >= q and N = 1) sends no size message at all.
 *
 * A data message is one run of bytes, its blocks in (k, i) order. Blocks of at most
 * pack_limit bytes are copied into a per-call pack buffer, larger ones are sent and
 * received in place (zero copy, through an hindexed type when the message has several
 * pieces); both sides pick independently, since only the byte order is shared. A block
 * that a round both sends from a slot of T and refills is always copied out.
 *
 * Temporary buffer T: one slot of the largest block per place where a block waits. For
 * this node's own group (k = 0) that is one slot per distance i with two or more non-zero
 * digits (q - K - 1 of them; a round's direct block z*r^x goes from the send buffer
 * straight into the receive buffer), addressed by i minus the direct distances below i.
 * For other nodes' groups (k > 0) every distance has a slot, since the block also waits
 * there after its last intra-node hop for the inter-node phase.
 */
#include <limits.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "chunked_p2p.h"
#include "kernel_util.h"
#include "private_comm.h"
#include "tuna_local.h"
#include "v_staging.h"

enum { TUNA_TAG_META = 0x7a10, TUNA_TAG_DATA = 0x7a11 };

/* Largest block (bytes) copied into the pack buffer when a message carries several
 * blocks; larger ones travel in place through an hindexed type. Measured on this machine
 * (2 cores, Open MPI 4.1, shared memory) on 2026-11-23 with sweeps/bench/tuna_pack.ini:
 * tuna at P = 4, radix 2 and 3, constant block sizes S, two launches each with
 * A2A_TUNA_PACK_BYTES = 0 (every block in place) and 1 GiB (every block packed); median
 * time in place / packed: S = 4-16 KiB 1.1-3.4 (packing wins), 32 KiB 1.0-5.2, 64 KiB
 * 0.2-1.0, 128 KiB 0.2-0.5 (in place wins; one outlier run at radix 2). The machine was
 * loaded (load average 20-36, other jobs) and P = 4 oversubscribes 2 cores, so the runs
 * disagree in size but not in the side of 32 KiB / 64 KiB the switch falls on. */
#define TUNA_PACK_LIMIT_DEFAULT (32 * 1024)

/* Guarantees: see tuna_local.h. */
long long a2a_tuna_pack_limit(void)
{
    static long long limit = -1;
    if (limit < 0) {
        const char *env = getenv("A2A_TUNA_PACK_BYTES");
        char *end = NULL;
        long long v = env && *env ? strtoll(env, &end, 10) : -1;
        limit = (end && *end == '\0' && v >= 0) ? v : TUNA_PACK_LIMIT_DEFAULT;
    }
    return limit;
}

/* Node layout of the calling rank, identical arithmetic on every rank. */
typedef struct {
    int q, nodes, node, local, radix;
    long held_slots; /* (nodes - 1) * (q - 1): slots of blocks bound for other nodes */
} tuna_geometry;

/* Everything one call works with. */
typedef struct {
    const char *sbuf;
    const int *scounts, *sdispls;
    MPI_Aint sbytes;
    char *rbuf;
    const int *rcounts, *rdispls;
    MPI_Aint rbytes;
    MPI_Comm comm;
    tuna_geometry geo;
    char *temp;          /* T: slots of slot_bytes */
    int *temp_sizes;     /* bytes in each slot of T */
    size_t slot_bytes;   /* the largest block of the communicator (when T exists) */
    long long pack_limit; /* blocks up to this size in multi-block messages are packed */
    /* scratch for the largest group of rounds, allocated once per call; per group,
     * entries run round by round, node offset k, then distance; a round's entry 0 is
     * its direct block */
    long long *out_bytes, *in_bytes; /* size of every block sent / received */
    int *meta_out, *meta_in;         /* the same as MPI_INT, for the size messages */
    char **unpack_to;                /* where a packed incoming block goes, or NULL */
    int *distances;                  /* distances of the group's rounds, concatenated */
    long *round_blocks;              /* distances per round of the group */
    char **seg_ptrs;                 /* pieces of one message */
    int *seg_lengths;
    MPI_Aint *seg_addresses;
    char *pack_out, *pack_in;        /* packed blocks of the group, sent / received */
    MPI_Request *requests;           /* 2 * subrounds * max_chunks */
    a2a_gathered *sends, *recvs;
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
 * again afterwards), so it must be copied out before the receive is posted. Depends on
 * the geometry only. */
static int refilled_in_round(int radix, long long span, int k, int i)
{
    return i % span != 0 && (k > 0 || i >= span * radix);
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
static int incoming_block(tuna_state *st, long long span, int k, int i, long long bytes,
                          char **place)
{
    const tuna_geometry *g = &st->geo;
    if (k == 0 && i < span * g->radix) {
        int source = g->node * g->q + (g->local - i + g->q) % g->q;
        if (bytes > 0)
            *place = st->rbuf + (MPI_Aint)st->rdispls[source] * st->rbytes;
        return 1;
    }
    if (bytes < 0 || (unsigned long long)bytes > st->slot_bytes)
        return 0;
    long slot = slot_of(g, k, i);
    st->temp_sizes[slot] = (int)bytes;
    if (bytes > 0)
        *place = st->temp + (size_t)slot * st->slot_bytes;
    return 1;
}

/* Guarantees: appends the piece (ptr, len > 0) to the pieces of the message being built,
 * merged with the previous piece when it continues it in memory. */
static void append_piece(tuna_state *st, int *pieces, char *ptr, long long len)
{
    int n = *pieces;
    if (n > 0 && st->seg_ptrs[n - 1] + st->seg_lengths[n - 1] == ptr) {
        st->seg_lengths[n - 1] += (int)len;
        return;
    }
    st->seg_ptrs[n] = ptr;
    st->seg_lengths[n] = (int)len;
    *pieces = n + 1;
}

/* Guarantees: runs rounds (x, z0) .. (x, z0 + zcount - 1) of digit weight span with all
 * of them in flight together: the sizes of every round's non-direct blocks, then the data
 * of every round, then waits for all and unpacks the packed incoming blocks. Allocates
 * nothing; the datatypes it creates are freed before it returns. */
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

    /* Sizes of the outgoing blocks; the direct block's (entry 0 of each round) and those
     * of single-block rounds never travel. */
    long entry = 0;
    const int *dist = st->distances;
    for (int c = 0; c < zcount; c++) {
        const long n = nodes * st->round_blocks[c];
        for (int k = 0; k < nodes; k++)
            for (long t = 0; t < st->round_blocks[c]; t++, entry++) {
                outgoing_block(st, span, k, dist[t], &st->out_bytes[entry]);
                if (n > 1)
                    st->meta_out[entry] = (int)st->out_bytes[entry];
            }
        dist += st->round_blocks[c];
    }
    int nreq = 0;
    entry = 0;
    for (int c = 0; c < zcount && err == MPI_SUCCESS; c++) {
        const long n = nodes * st->round_blocks[c];
        int from = g->node * g->q + (int)((g->local - (z0 + c) * span + g->q) % g->q);
        if (n > 1)
            err = MPI_Irecv(st->meta_in + entry + 1, (int)(n - 1), MPI_INT, from,
                            TUNA_TAG_META, st->comm, &st->requests[nreq++]);
        entry += n;
    }
    entry = 0;
    for (int c = 0; c < zcount && err == MPI_SUCCESS; c++) {
        const long n = nodes * st->round_blocks[c];
        int to = g->node * g->q + (int)((g->local + (z0 + c) * span) % g->q);
        if (n > 1) {
            err = MPI_Isend(st->meta_out + entry + 1, (int)(n - 1), MPI_INT, to, TUNA_TAG_META,
                            st->comm, &st->requests[nreq++]);
            a2a_count_meta(st->stats, (long long)(n - 1) * (long long)sizeof(int));
        }
        entry += n;
    }
    if (nreq > 0) {
        int wait_err = MPI_Waitall(nreq, st->requests, MPI_STATUSES_IGNORE);
        if (err == MPI_SUCCESS)
            err = wait_err;
    }
    if (err != MPI_SUCCESS)
        return err;
    entry = 0;
    for (int c = 0; c < zcount; c++) {
        const long n = nodes * st->round_blocks[c];
        int source = g->node * g->q + (int)((g->local - (z0 + c) * span + g->q) % g->q);
        st->in_bytes[entry] = (long long)st->rcounts[source] * st->rbytes;
        for (long e = 1; e < n; e++)
            st->in_bytes[entry + e] = st->meta_in[entry + e];
        entry += n;
    }

    /* Sends first (they read T before the receives refill it): small and refilled blocks
     * packed, the others in place. */
    size_t packed = 0;
    entry = 0;
    dist = st->distances;
    for (int c = 0; c < zcount; c++) {
        const long n = nodes * st->round_blocks[c];
        int pieces = 0;
        long long bytes = 0;
        for (int k = 0; k < nodes; k++)
            for (long t = 0; t < st->round_blocks[c]; t++, entry++) {
                long long size = st->out_bytes[entry];
                if (size == 0)
                    continue;
                long long ignored;
                const char *block = outgoing_block(st, span, k, dist[t], &ignored);
                if (n > 1 && (size <= st->pack_limit ||
                              refilled_in_round(g->radix, span, k, dist[t]))) {
                    memcpy(st->pack_out + packed, block, (size_t)size);
                    block = st->pack_out + packed;
                    packed += (size_t)size;
                }
                append_piece(st, &pieces, (char *)block, size);
                bytes += size;
            }
        dist += st->round_blocks[c];
        if (err == MPI_SUCCESS)
            err = a2a_describe_gathered(pieces, st->seg_ptrs, st->seg_lengths,
                                        st->seg_addresses, bytes, &st->sends[c]);
    }
    /* Receives: small blocks into the pack buffer, the others in place. */
    packed = 0;
    entry = 0;
    dist = st->distances;
    for (int c = 0; c < zcount; c++) {
        const long n = nodes * st->round_blocks[c];
        int pieces = 0;
        long long bytes = 0;
        for (int k = 0; k < nodes; k++)
            for (long t = 0; t < st->round_blocks[c]; t++, entry++) {
                long long size = st->in_bytes[entry];
                char *block = NULL;
                st->unpack_to[entry] = NULL;
                if (!incoming_block(st, span, k, dist[t], size, &block)) {
                    err = MPI_ERR_TRUNCATE;
                    continue;
                }
                if (size == 0)
                    continue;
                if (n > 1 && size <= st->pack_limit) {
                    st->unpack_to[entry] = block;
                    block = st->pack_in + packed;
                    packed += (size_t)size;
                }
                append_piece(st, &pieces, block, size);
                bytes += size;
            }
        dist += st->round_blocks[c];
        if (err == MPI_SUCCESS)
            err = a2a_describe_gathered(pieces, st->seg_ptrs, st->seg_lengths,
                                        st->seg_addresses, bytes, &st->recvs[c]);
    }

    nreq = 0;
    for (int c = 0; c < zcount && err == MPI_SUCCESS; c++) {
        int from = g->node * g->q + (int)((g->local - (z0 + c) * span + g->q) % g->q);
        err = a2a_post_gathered(0, &st->recvs[c], from, TUNA_TAG_DATA, st->comm,
                                st->requests, &nreq);
    }
    for (int c = 0; c < zcount && err == MPI_SUCCESS; c++) {
        int to = g->node * g->q + (int)((g->local + (z0 + c) * span) % g->q);
        long long blocks = (long long)nodes * st->round_blocks[c];
        int before = nreq;
        err = a2a_post_gathered(1, &st->sends[c], to, TUNA_TAG_DATA, st->comm, st->requests,
                                &nreq);
        if (st->stats) {
            st->stats->blocks += blocks; /* empty blocks too; a message only if any data */
            st->stats->messages += nreq - before;
            st->stats->bytes += st->sends[c].bytes;
        }
    }
    if (nreq > 0) {
        int wait_err = MPI_Waitall(nreq, st->requests, MPI_STATUSES_IGNORE);
        if (err == MPI_SUCCESS)
            err = wait_err;
    }
    for (int c = 0; c < zcount; c++) {
        if (st->sends[c].type != MPI_BYTE)
            MPI_Type_free(&st->sends[c].type);
        if (st->recvs[c].type != MPI_BYTE)
            MPI_Type_free(&st->recvs[c].type);
        st->sends[c].type = st->recvs[c].type = MPI_BYTE;
    }
    if (err != MPI_SUCCESS)
        return err;
    packed = 0;
    for (long e = 0; e < entry; e++)
        if (st->unpack_to[e]) {
            memcpy(st->unpack_to[e], st->pack_in + packed, (size_t)st->in_bytes[e]);
            packed += (size_t)st->in_bytes[e];
        }
    return MPI_SUCCESS;
}

/* Guarantees: the rounds of one node at radix >= q, where no block waits in T: round z
 * (1 .. q - 1) receives the block of rank - z into place and sends the block for rank + z
 * (rank = local index on the one node), `subrounds` rounds in flight (receives posted
 * first), blocks above the message limit in pieces. The same messages, blocks and bytes
 * as run_planned_rounds, without its scratch: the only temporary memory is the requests
 * (on the stack up to 64). */
static int run_direct_rounds(const char *sbuf, const int *scounts, const int *sdispls,
                             MPI_Aint sbytes, char *rbuf, const int *rcounts,
                             const int *rdispls, MPI_Aint rbytes, MPI_Comm comm, int q,
                             int rank, int subrounds, long long max_chunks, a2a_stats *stats)
{
    const size_t nrequests = 2 * (size_t)subrounds * (size_t)max_chunks;
    MPI_Request stack_requests[64];
    MPI_Request *requests = nrequests <= 64 ? stack_requests : malloc(nrequests * sizeof *requests);
    if (!requests)
        return MPI_ERR_NO_MEM;
    a2a_count_temp(stats, (long long)(nrequests * sizeof *requests));
    int err = MPI_SUCCESS;
    for (int z0 = 1; z0 < q && err == MPI_SUCCESS; z0 += subrounds) {
        const int zend = q - z0 < subrounds ? q : z0 + subrounds;
        int n = 0;
        for (int z = z0; z < zend && err == MPI_SUCCESS; z++) {
            const int from = (rank - z + q) % q;
            const long long bytes = (long long)rcounts[from] * rbytes;
            if (bytes > 0)
                err = a2a_post_chunked(0, rbuf + (MPI_Aint)rdispls[from] * rbytes, bytes, from,
                                       TUNA_TAG_DATA, comm, requests, &n);
        }
        for (int z = z0; z < zend && err == MPI_SUCCESS; z++) {
            const int to = (rank + z) % q, before = n;
            const long long bytes = (long long)scounts[to] * sbytes;
            if (bytes > 0)
                err = a2a_post_chunked(1, (void *)(sbuf + (MPI_Aint)sdispls[to] * sbytes), bytes,
                                       to, TUNA_TAG_DATA, comm, requests, &n);
            if (stats) {
                stats->blocks += 1; /* empty blocks too; a message only if any data */
                stats->messages += n - before;
                stats->bytes += bytes;
            }
        }
        if (n > 0) {
            int wait_err = MPI_Waitall(n, requests, MPI_STATUSES_IGNORE);
            if (err == MPI_SUCCESS)
                err = wait_err;
        }
    }
    if (requests != stack_requests)
        free(requests);
    return err;
}

/* Round structure of one call, from the geometry alone (identical on every rank). */
typedef struct {
    long long rounds;     /* K */
    long max_round;       /* most distances in one round */
    long max_group;       /* most distances in one group of rounds in flight */
} round_plan;

/* Guarantees: the round plan of q ranks at this radix with `subrounds` rounds in flight;
 * with pack_limit >= 0 and largest given, also the pack buffer bytes the largest group
 * needs: *pack_out for packed and refilled outgoing blocks, *pack_in for packed incoming
 * ones (only multi-block messages pack). */
static round_plan plan_rounds(int q, int nodes, int radix, int subrounds, long long largest,
                              long long pack_limit, size_t *pack_out, size_t *pack_in)
{
    round_plan plan = { 0, 0, 0 };
    const long long small = largest < pack_limit ? largest : pack_limit;
    size_t most_out = 0, most_in = 0;
    for (long long span = 1; span < q; span *= radix) {
        long long zmax = (q - 1) / span < radix - 1 ? (q - 1) / span : radix - 1;
        plan.rounds += zmax;
        for (long long z0 = 1; z0 <= zmax; z0 += subrounds) {
            long group = 0;
            size_t out = 0, in = 0;
            for (long long z = z0; z <= zmax && z < z0 + subrounds; z++) {
                long n = round_distances(q, span, radix, z, NULL);
                group += n;
                if (n > plan.max_round)
                    plan.max_round = n;
                if (!pack_out || (long long)nodes * n < 2)
                    continue;
                /* every block may be small; a refilled one is copied whatever its size */
                in += (size_t)((long long)nodes * n * small);
                for (long long start = z * span; start < q; start += span * radix)
                    for (long long i = start; i < start + span && i < q; i++)
                        for (int k = 0; k < nodes; k++)
                            out += (size_t)(refilled_in_round(radix, span, k, (int)i) ? largest
                                                                                     : small);
            }
            if (group > plan.max_group)
                plan.max_group = group;
            if (out > most_out)
                most_out = out;
            if (in > most_in)
                most_in = in;
        }
    }
    if (pack_out) {
        *pack_out = most_out;
        *pack_in = most_in;
    }
    return plan;
}

/* Guarantees: every round of the call through T, the groups of `subrounds` rounds of
 * run_round_group; allocates st->temp (slots of the largest block, the caller's to free,
 * also on failure) and the scratch and pack buffers of one group (freed here). */
static int run_planned_rounds(tuna_state *st, const round_plan *plan, int subrounds,
                              long long max_chunks, long slots, size_t pack_out,
                              size_t pack_in)
{
    const int nodes = st->geo.nodes, q = st->geo.q, radix = st->geo.radix;
    /* One allocation for the per-block scratch, in order of decreasing alignment (on the
     * stack when small); the pack buffers and T separately: T's held slots outlive the
     * call, and under SimGrid large allocations are shared among the simulated ranks
     * (smpi/auto-shared-malloc-thresh), which payload buffers tolerate and sizes do not. */
    const size_t group_blocks = (size_t)nodes * (size_t)plan->max_group;
    const size_t message_blocks = (size_t)nodes * (size_t)plan->max_round;
    const size_t nrequests = 2 * (size_t)subrounds * (size_t)max_chunks;
    const size_t scratch_bytes =
        group_blocks * (2 * sizeof(long long) + sizeof(char *) + 2 * sizeof(int)) +
        message_blocks * (sizeof(char *) + sizeof(MPI_Aint) + sizeof(int)) +
        (size_t)subrounds * (sizeof(long) + 2 * sizeof(a2a_gathered)) +
        nrequests * sizeof(MPI_Request) + (size_t)plan->max_group * sizeof(int);
    alignas(max_align_t) char local_scratch[1024];
    char *scratch = scratch_bytes <= sizeof local_scratch ? local_scratch : malloc(scratch_bytes);
    char *pack = pack_out + pack_in > 0 ? malloc(pack_out + pack_in) : NULL;
    const size_t temp_bytes = (size_t)slots * st->slot_bytes + (size_t)slots * sizeof(int);
    if (slots > 0) {
        st->temp = malloc((size_t)slots * st->slot_bytes > 0 ? (size_t)slots * st->slot_bytes : 1);
        st->temp_sizes = malloc((size_t)slots * sizeof(int));
    }
    if (!scratch || (pack_out + pack_in > 0 && !pack) ||
        (slots > 0 && (!st->temp || !st->temp_sizes))) {
        if (scratch != local_scratch)
            free(scratch);
        free(pack);
        return MPI_ERR_NO_MEM; /* st->temp is the caller's to free */
    }
    a2a_count_temp(st->stats, (long long)(temp_bytes + scratch_bytes + pack_out + pack_in));
    char *at = scratch;
    st->out_bytes = (long long *)at, at += group_blocks * sizeof(long long);
    st->in_bytes = (long long *)at, at += group_blocks * sizeof(long long);
    st->unpack_to = (char **)at, at += group_blocks * sizeof(char *);
    st->seg_ptrs = (char **)at, at += message_blocks * sizeof(char *);
    st->seg_addresses = (MPI_Aint *)at, at += message_blocks * sizeof(MPI_Aint);
    st->round_blocks = (long *)at, at += (size_t)subrounds * sizeof(long);
    st->sends = (a2a_gathered *)at, at += (size_t)subrounds * sizeof(a2a_gathered);
    st->recvs = (a2a_gathered *)at, at += (size_t)subrounds * sizeof(a2a_gathered);
    st->requests = (MPI_Request *)at, at += nrequests * sizeof(MPI_Request);
    st->meta_out = (int *)at, at += group_blocks * sizeof(int);
    st->meta_in = (int *)at, at += group_blocks * sizeof(int);
    st->seg_lengths = (int *)at, at += message_blocks * sizeof(int);
    st->distances = (int *)at;
    st->pack_out = pack;
    st->pack_in = pack ? pack + pack_out : NULL;
    for (int c = 0; c < subrounds; c++)
        st->sends[c].type = st->recvs[c].type = MPI_BYTE;

    int err = MPI_SUCCESS;
    for (long long span = 1; span < q && err == MPI_SUCCESS; span *= radix) {
        long long zmax = (q - 1) / span < radix - 1 ? (q - 1) / span : radix - 1;
        for (long long z0 = 1; z0 <= zmax && err == MPI_SUCCESS; z0 += subrounds) {
            int zcount = (int)(zmax - z0 + 1 < subrounds ? zmax - z0 + 1 : subrounds);
            err = run_round_group(st, span, z0, zcount);
        }
    }

    if (scratch != local_scratch)
        free(scratch);
    free(pack);
    return err;
}

/* Guarantees: see tuna_local.h. */
int a2a_tuna_local(const void *sbuf, const int *scounts, const int *sdispls, MPI_Aint sbytes,
                   void *rbuf, const int *rcounts, const int *rdispls, MPI_Aint rbytes,
                   MPI_Comm comm, int q, int radix, int subrounds, long long later_blocks,
                   a2a_tuna_held *held, a2a_stats *stats)
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
    st.rcounts = rcounts;
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
    const int nodes = st.geo.nodes;
    const long long limit = a2a_max_message_bytes();

    round_plan plan = plan_rounds(q, nodes, radix, subrounds, 0, 0, NULL, NULL);
    const long slots = st.geo.held_slots + (long)(q - 1 - plan.rounds);

    /* With slots, blocks wait in T: its slot is the largest block of the communicator,
     * which also bounds every message, so the size check is the same on every rank.
     * Without (one node, radix >= q), every round carries one direct block whose size
     * both sides know: a block above the message limit goes in pieces. */
    long long largest = 0, max_chunks = 1;
    for (int d = 0; d < size; d++) {
        long long out = (long long)scounts[d] * sbytes, in = (long long)rcounts[d] * rbytes;
        long long most = out > in ? out : in;
        if (most > largest)
            largest = most;
    }
    size_t pack_out = 0, pack_in = 0;
    if (slots > 0) {
        long long mine = 0;
        for (int d = 0; d < size; d++)
            if ((long long)scounts[d] * sbytes > mine)
                mine = (long long)scounts[d] * sbytes;
        err = MPI_Allreduce(&mine, &largest, 1, MPI_LONG_LONG, MPI_MAX, comm);
        if (err != MPI_SUCCESS)
            return err;
        long long message_blocks = (long long)nodes * plan.max_round;
        if (later_blocks > message_blocks)
            message_blocks = later_blocks;
        if (largest > limit || largest * message_blocks > limit)
            return MPI_ERR_COUNT;
        /* packed blocks never exceed the largest, so the pack buffers bound them all */
        st.pack_limit = a2a_tuna_pack_limit() < largest ? a2a_tuna_pack_limit() : largest;
        plan_rounds(q, nodes, radix, subrounds, largest, st.pack_limit, &pack_out, &pack_in);
    } else {
        max_chunks = largest > limit ? a2a_chunk_count(largest) : 1;
    }
    st.slot_bytes = (size_t)largest;

    /* The own block never leaves: copy it. */
    if (scounts[rank] > 0)
        memcpy(st.rbuf + (MPI_Aint)rdispls[rank] * rbytes,
               st.sbuf + (MPI_Aint)sdispls[rank] * sbytes,
               (size_t)((long long)scounts[rank] * sbytes));

    if (slots == 0 && st.geo.held_slots == 0) /* one node at radix >= q: all direct */
        err = run_direct_rounds(sbuf, scounts, sdispls, sbytes, rbuf, rcounts, rdispls, rbytes,
                                comm, q, rank, subrounds, max_chunks, stats);
    else
        err = run_planned_rounds(&st, &plan, subrounds, max_chunks, slots, pack_out, pack_in);

    if (err != MPI_SUCCESS || st.geo.held_slots == 0) {
        free(st.temp);
        free(st.temp_sizes);
        if (err == MPI_SUCCESS) {
            a2a_count_rounds(stats, plan.rounds);
            held->rounds = plan.rounds;
            held->slot_bytes = (MPI_Aint)st.slot_bytes;
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
    held->rounds = plan.rounds;
    a2a_count_rounds(stats, plan.rounds);
    return MPI_SUCCESS;
}

/* The body of the TuNA_l^g kernels on run types: see a2a_tuna_hierarchical (tuna_local.h). */
static int hier_runs(const void *sbuf, const int *scounts, const int *sdispls, void *rbuf,
                     const int *rcounts, const int *rdispls, MPI_Comm comm,
                     const a2a_v_args *args, a2a_stats *stats)
{
    a2a_tuna_hier h = { .sbuf = sbuf, .scounts = scounts, .sdispls = sdispls,
                        .sbytes = args->sbytes, .rbuf = rbuf, .rcounts = rcounts,
                        .rdispls = rdispls, .rbytes = args->rbytes, .size = args->size,
                        .block_count = args->block_count };
    int err = A2A_Node_layout(comm, args->ppn, &h.q, &h.node, &h.local);
    if (err != MPI_SUCCESS)
        return err;
    if (args->radix < 2 || args->radix > (h.q > 2 ? h.q : 2))
        return MPI_ERR_ARG;
    h.nodes = h.size / h.q;
    const int message_blocks = args->message == A2A_TUNA_NODE_BLOCKS ? h.q : 1;
    const long long messages = (long long)(h.nodes - 1) * (h.q / message_blocks);
    if (h.block_count < 1 || h.block_count > (messages > 1 ? messages : 1))
        return MPI_ERR_ARG;

    h.comm = a2a_private_comm(comm); /* kernel traffic never meets the application's */
    err = a2a_tuna_local(sbuf, scounts, sdispls, h.sbytes, rbuf, rcounts, rdispls, h.rbytes,
                         h.comm, h.q, args->radix, 1, message_blocks, &h.held, stats);
    if (err != MPI_SUCCESS)
        return err;
    if (stats)
        stats->rounds_local += h.held.rounds;
    err = args->inter_node(&h, stats);
    free(h.held.data);
    free(h.held.sizes);
    return err;
}

/* Guarantees: see tuna_local.h. */
int a2a_tuna_hierarchical(a2a_tuna_inter_node phase, a2a_tuna_message message, A2A_V_PARAMS,
                          int radix, int block_count, int ppn, a2a_stats *stats)
{
    const a2a_v_args args = { .radix = radix, .block_count = block_count, .ppn = ppn,
                              .message = (int)message, .inter_node = phase };
    return a2a_v_staged(hier_runs, &args, A2A_V_ARGS, stats);
}
