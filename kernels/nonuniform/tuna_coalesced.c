/* tuna_coalesced.c — coalesced TuNA_l^g (Algorithm 3 of the TuNA paper): intra-node TuNA
 * over all node groups at once, then the inter-node exchange among ranks with the same
 * local rank, the Q blocks for one node in one message, scattered with block_count
 * messages in flight.
 */
#include <stdlib.h>
#include <string.h>

#include "chunked_p2p.h"
#include "kernel_util.h"
#include "tuna_local.h"

enum { COALESCED_TAG = 0x7a30 };

/* Guarantees: msg describes the non-empty ones of the n segments (ptrs, lengths) as one
 * message (a2a_describe_gathered): plain bytes for one (or several that follow each other
 * in memory), a committed hindexed type for several, nothing for none. ptrs/lengths are
 * compacted in place; int_lengths and addresses are scratch of n entries. A segment above
 * INT_MAX bytes only comes alone (q = 1). */
static int describe_segments(int n, char **ptrs, long long *lengths, int *int_lengths,
                             MPI_Aint *addresses, a2a_gathered *msg)
{
    int used = 0;
    long long bytes = 0;
    for (int s = 0; s < n; s++) {
        if (lengths[s] == 0)
            continue;
        bytes += lengths[s];
        if (used > 0 && ptrs[used - 1] + lengths[used - 1] == ptrs[s]) {
            lengths[used - 1] += lengths[s];
            continue;
        }
        ptrs[used] = ptrs[s];
        lengths[used++] = lengths[s];
    }
    if (used > 1) /* several segments: each at most INT_MAX bytes */
        for (int s = 0; s < used; s++)
            int_lengths[s] = (int)lengths[s];
    return a2a_describe_gathered(used, ptrs, int_lengths, addresses, bytes, msg);
}

/* The inter-node phase: see A2A_Alltoallv_tuna_coalesced below. */
static int coalesced_exchange(a2a_tuna_hier *h, a2a_stats *stats)
{
    const int q = h->q, nodes = h->nodes, node = h->node, local = h->local, size = h->size;
    const int block_count = h->block_count;
    const int *scounts = h->scounts, *sdispls = h->sdispls;
    const int *rcounts = h->rcounts, *rdispls = h->rdispls;
    const MPI_Aint sbytes = h->sbytes, rbytes = h->rbytes;
    const MPI_Comm comm = h->comm;
    const a2a_tuna_held held = h->held;

    /* With q > 1, held.slot_bytes is the largest block of the communicator and q of them
     * fit one message (a2a_tuna_local checked it on every rank alike): blocks up to the
     * pack limit are packed, into buffers of q such blocks per message in flight. With
     * q = 1 a message is one block, whose size both sides know: it goes in pieces. */
    long long small = 0, pieces = 1;
    if (q > 1) {
        small = a2a_tuna_pack_limit();
        if (small > held.slot_bytes)
            small = held.slot_bytes;
    } else {
        for (int d = 0; d < size; d++) {
            long long out = a2a_chunk_count((long long)scounts[d] * sbytes);
            long long in = a2a_chunk_count((long long)rcounts[d] * rbytes);
            pieces = out > pieces ? out : pieces;
            pieces = in > pieces ? in : pieces;
        }
    }
    const size_t pack_bytes = (size_t)block_count * (size_t)q * (size_t)small;

    /* Scratch, carved from one allocation in order of decreasing alignment: run offsets
     * per node offset, segments of one message, requests, messages, lengths; the pack
     * buffers (sent, then received) apart: under SimGrid large allocations are shared
     * among the simulated ranks, which payload tolerates and offsets do not. */
    const size_t segments = q > 2 ? (size_t)q : 2;
    const size_t nrequests = 2 * (size_t)block_count * (size_t)pieces;
    const size_t scratch_bytes =
        (size_t)nodes * 2 * sizeof(size_t) +
        segments * (sizeof(char *) + sizeof(long long) + sizeof(MPI_Aint) + sizeof(int)) +
        nrequests * sizeof(MPI_Request) + 2 * (size_t)block_count * sizeof(a2a_gathered);
    char *scratch = malloc(scratch_bytes);
    char *pack_out = pack_bytes > 0 ? malloc(2 * pack_bytes) : NULL;
    if (!scratch || (pack_bytes > 0 && !pack_out)) {
        free(scratch);
        free(pack_out);
        return MPI_ERR_NO_MEM;
    }
    a2a_count_temp(stats, held.alloc_bytes + (long long)(scratch_bytes + 2 * pack_bytes));
    size_t *run_start = (size_t *)scratch;
    size_t *run_bytes = run_start + nodes;
    char **seg_ptrs = (char **)(run_bytes + nodes);
    long long *seg_lengths = (long long *)(seg_ptrs + segments);
    MPI_Aint *seg_addresses = (MPI_Aint *)(seg_lengths + segments);
    MPI_Request *requests = (MPI_Request *)(seg_addresses + segments);
    a2a_gathered *messages = (a2a_gathered *)(requests + nrequests);
    int *int_lengths = (int *)(messages + 2 * (size_t)block_count);
    char *pack_in = pack_out ? pack_out + pack_bytes : NULL;

    /* Compact the held slots: for k = 1..N-1, distances 1..q-1, one after the other. Every
     * block moves to an offset no larger than its slot's, so ascending moves are safe. */
    size_t offset = 0;
    for (int k = 1; k < nodes; k++) {
        run_start[k] = offset;
        for (int i = 1; i < q; i++) {
            long slot = a2a_tuna_held_slot(k, i, q);
            size_t bytes = (size_t)held.sizes[slot];
            if (bytes > 0)
                memmove(held.data + offset, held.data + (size_t)slot * (size_t)held.slot_bytes,
                        bytes);
            offset += bytes;
        }
        run_bytes[k] = offset - run_start[k];
    }

    const char *send = h->sbuf;
    char *recv = h->rbuf;
    int err = MPI_SUCCESS;
    for (int first = 1; first < nodes && err == MPI_SUCCESS; first += block_count) {
        int last = first + block_count < nodes ? first + block_count : nodes;
        int n = 0, built = 0;
        size_t packed_in = 0;
        /* Receives: from node n - k, blocks of distances 1..q-1, then distance 0; small
         * ones into the pack buffer. */
        for (int k = first; k < last && err == MPI_SUCCESS; k++) {
            int from_node = (node - k + nodes) % nodes;
            for (int i = 1; i <= q; i++) {
                int source = from_node * q + (local - (i % q) + q) % q;
                long long bytes = (long long)rcounts[source] * rbytes;
                seg_ptrs[i - 1] = recv + (MPI_Aint)rdispls[source] * rbytes;
                if (bytes > 0 && bytes <= small) {
                    seg_ptrs[i - 1] = pack_in + packed_in;
                    packed_in += (size_t)bytes;
                }
                seg_lengths[i - 1] = bytes;
            }
            a2a_gathered *msg = &messages[built++];
            err = describe_segments(q, seg_ptrs, seg_lengths, int_lengths, seg_addresses, msg);
            if (err == MPI_SUCCESS)
                err = a2a_post_gathered(0, msg, from_node * q + local, COALESCED_TAG, comm,
                                        requests, &n);
        }
        /* Sends: the compacted run for node n + k, then the own block; both copied to
         * the pack buffer when the own block is small. */
        size_t packed_out = 0;
        for (int k = first; k < last && err == MPI_SUCCESS; k++) {
            int to = ((node + k) % nodes) * q + local;
            seg_ptrs[0] = held.data ? held.data + run_start[k] : NULL;
            seg_lengths[0] = (long long)run_bytes[k];
            seg_ptrs[1] = (char *)send + (MPI_Aint)sdispls[to] * sbytes;
            seg_lengths[1] = (long long)scounts[to] * sbytes;
            long long bytes = seg_lengths[0] + seg_lengths[1];
            if (seg_lengths[0] > 0 && seg_lengths[1] > 0 && seg_lengths[1] <= small &&
                seg_lengths[0] <= (q - 1) * small) {
                memcpy(pack_out + packed_out, seg_ptrs[0], (size_t)seg_lengths[0]);
                memcpy(pack_out + packed_out + seg_lengths[0], seg_ptrs[1],
                       (size_t)seg_lengths[1]);
                seg_ptrs[0] = pack_out + packed_out;
                seg_ptrs[1] = seg_ptrs[0] + seg_lengths[0];
                packed_out += (size_t)bytes;
            }
            a2a_gathered *msg = &messages[built++];
            err = describe_segments(2, seg_ptrs, seg_lengths, int_lengths, seg_addresses, msg);
            int before = n;
            if (err == MPI_SUCCESS)
                err = a2a_post_gathered(1, msg, to, COALESCED_TAG, comm, requests, &n);
            if (stats) {
                stats->blocks += q; /* empty blocks too; a message only if any data */
                stats->messages += n - before;
                stats->bytes += msg->bytes;
            }
        }
        if (n > 0) {
            int wait_err = MPI_Waitall(n, requests, MPI_STATUSES_IGNORE);
            if (err == MPI_SUCCESS)
                err = wait_err;
        }
        for (int m = 0; m < built; m++)
            if (messages[m].type != MPI_BYTE)
                MPI_Type_free(&messages[m].type);
        /* Unpack the small blocks, in the order they were received. */
        packed_in = 0;
        for (int k = first; k < last && err == MPI_SUCCESS; k++) {
            int from_node = (node - k + nodes) % nodes;
            for (int i = 1; i <= q; i++) {
                int source = from_node * q + (local - (i % q) + q) % q;
                long long bytes = (long long)rcounts[source] * rbytes;
                if (bytes > 0 && bytes <= small) {
                    memcpy(recv + (MPI_Aint)rdispls[source] * rbytes, pack_in + packed_in,
                           (size_t)bytes);
                    packed_in += (size_t)bytes;
                }
            }
        }
    }
    free(scratch);
    free(pack_out);
    if (stats && err == MPI_SUCCESS) {
        stats->rounds += nodes - 1;
        stats->rounds_global += nodes - 1;
    }
    return err;
}

/* Guarantees: the MPI_Alltoallv result on comm (any types: those that are not one
 * ascending run are packed through MPI first; MPI_ERR_COMM for an intercommunicator)
 * when Q (ppn, or the real node size for
 * ppn = 0) divides P, radix is in [2, max(2, Q)] and block_count in [1, max(1, N-1)] with
 * N = P/Q (MPI_ERR_ARG otherwise). Rounds: K(Q, radix) intra-node ones (rounds_local),
 * then N-1 inter-node ones (rounds_global). After the intra-node phase the held blocks
 * for each node are compacted in place into one contiguous run (no gaps of unused slot
 * space); round k sends that run plus the rank's own block, Q blocks, to the rank with
 * the same local rank on node n + k and receives Q blocks from node n - k straight into
 * the receive buffer. Rounds go in batches of block_count, each batch completed before
 * the next; a message whose Q blocks are all empty is not sent. Blocks up to the pack
 * limit (a2a_tuna_pack_limit) are copied through pack buffers allocated once per call,
 * larger ones travel in place; nothing is allocated inside the rounds. MPI_ERR_COUNT on
 * every rank alike, before any data moves, when Q largest blocks could exceed
 * a2a_max_message_bytes() (with Q = 1 a larger block goes in pieces). */
int A2A_Alltoallv_tuna_coalesced(A2A_V_PARAMS, int radix, int block_count, int ppn,
                                 a2a_stats *stats)
{
    return a2a_tuna_hierarchical(coalesced_exchange, A2A_TUNA_NODE_BLOCKS, A2A_V_ARGS, radix,
                                 block_count, ppn, stats);
}
