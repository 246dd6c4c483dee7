/* tuna_coalesced.c — coalesced TuNA_l^g (Algorithm 3 of the TuNA paper): intra-node TuNA
 * over all node groups at once, then the inter-node exchange among ranks with the same
 * local rank, the Q blocks for one node in one message, scattered with block_count
 * messages in flight.
 */
#include <stdlib.h>
#include <string.h>

#include "kernel_util.h"
#include "tuna_local.h"
#include "private_comm.h"

enum { COALESCED_TAG = 0x7a30 };

/* One message as MPI sees it: `count` items of `type` at `buf`; count 0 = not sent. */
typedef struct {
    void *buf;
    int count;
    MPI_Datatype type; /* MPI_BYTE, or a committed hindexed type relative to MPI_BOTTOM */
} gathered_message;

/* Guarantees: msg describes the non-empty ones of the n segments (ptrs, lengths) as one
 * message: plain bytes for one, a committed hindexed type of MPI_BYTE at absolute
 * addresses for several, nothing (count 0) for none. ptrs/lengths are compacted in place;
 * addresses is scratch of n entries. */
static int describe_segments(int n, char **ptrs, int *lengths, MPI_Aint *addresses,
                             gathered_message *msg)
{
    int used = 0;
    for (int s = 0; s < n; s++)
        if (lengths[s] > 0) {
            ptrs[used] = ptrs[s];
            lengths[used++] = lengths[s];
        }
    msg->buf = NULL;
    msg->count = 0;
    msg->type = MPI_BYTE;
    if (used == 0)
        return MPI_SUCCESS;
    if (used == 1) {
        msg->buf = ptrs[0];
        msg->count = lengths[0];
        return MPI_SUCCESS;
    }
    for (int s = 0; s < used; s++) {
        int err = MPI_Get_address(ptrs[s], &addresses[s]);
        if (err != MPI_SUCCESS)
            return err;
    }
    int err = MPI_Type_create_hindexed(used, lengths, addresses, MPI_BYTE, &msg->type);
    if (err != MPI_SUCCESS) {
        msg->type = MPI_BYTE;
        return err;
    }
    if ((err = MPI_Type_commit(&msg->type)) != MPI_SUCCESS)
        return err;
    msg->buf = MPI_BOTTOM;
    msg->count = 1;
    return MPI_SUCCESS;
}

/* Guarantees: the MPI_Alltoallv result on comm when Q (ppn, or the real node size for
 * ppn = 0) divides P, radix is in [2, max(2, Q)] and block_count in [1, max(1, N-1)] with
 * N = P/Q (MPI_ERR_ARG otherwise). Rounds: K(Q, radix) intra-node ones (rounds_local),
 * then N-1 inter-node ones (rounds_global). After the intra-node phase the held blocks
 * for each node are compacted in place into one contiguous run (no gaps of unused slot
 * space); round k sends that run plus the rank's own block, Q blocks, to the rank with
 * the same local rank on node n + k and receives Q blocks from node n - k straight into
 * the receive buffer. Rounds go in batches of block_count, each batch completed before
 * the next; a message whose Q blocks are all empty is not sent. */
int A2A_Alltoallv_tuna_coalesced(const void *sbuf, const int *scounts, const int *sdispls,
                                 MPI_Datatype stype, void *rbuf, const int *rcounts,
                                 const int *rdispls, MPI_Datatype rtype, MPI_Comm comm,
                                 int radix, int block_count, int ppn, a2a_stats *stats)
{
    int size, err, q, node, local;
    MPI_Aint sbytes, rbytes;
    MPI_Comm_size(comm, &size);
    if ((err = a2a_tuna_hier_setup(stype, rtype, comm, ppn, radix, &sbytes, &rbytes, &q, &node,
                                   &local)) != MPI_SUCCESS)
        return err;
    const int nodes = size / q;
    if (block_count < 1 || block_count > (nodes - 1 > 1 ? nodes - 1 : 1))
        return MPI_ERR_ARG;

    comm = a2a_private_comm(comm); /* kernel traffic never meets the application's */
    a2a_tuna_held held;
    err = a2a_tuna_local(sbuf, scounts, sdispls, sbytes, rbuf, rdispls, rbytes, comm, q,
                         radix, 1, &held, stats);
    if (err != MPI_SUCCESS)
        return err;
    if (stats)
        stats->rounds_local += held.rounds;

    /* Scratch, carved from one allocation in order of decreasing alignment: run offsets
     * per node offset, segments of one message, requests, message types, lengths. */
    const size_t segments = q > 2 ? (size_t)q : 2;
    const size_t scratch_bytes =
        (size_t)nodes * 2 * sizeof(size_t) +
        segments * (sizeof(char *) + sizeof(int) + sizeof(MPI_Aint)) +
        2 * (size_t)block_count * (sizeof(MPI_Request) + sizeof(gathered_message));
    char *scratch = malloc(scratch_bytes);
    if (!scratch) {
        free(held.data);
        free(held.sizes);
        return MPI_ERR_NO_MEM;
    }
    a2a_count_temp(stats, held.alloc_bytes + (long long)scratch_bytes);
    size_t *run_start = (size_t *)scratch;
    size_t *run_bytes = run_start + nodes;
    char **seg_ptrs = (char **)(run_bytes + nodes);
    MPI_Aint *seg_addresses = (MPI_Aint *)(seg_ptrs + segments);
    MPI_Request *requests = (MPI_Request *)(seg_addresses + segments);
    gathered_message *messages = (gathered_message *)(requests + 2 * (size_t)block_count);
    int *seg_lengths = (int *)(messages + 2 * (size_t)block_count);

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

    const char *send = sbuf;
    char *recv = rbuf;
    for (int first = 1; first < nodes && err == MPI_SUCCESS; first += block_count) {
        int last = first + block_count < nodes ? first + block_count : nodes;
        int n = 0, built = 0;
        /* Receives: from node n - k, blocks of distances 1..q-1, then distance 0. */
        for (int k = first; k < last && err == MPI_SUCCESS; k++) {
            int from_node = (node - k + nodes) % nodes;
            for (int i = 1; i <= q; i++) {
                int source = from_node * q + (local - (i % q) + q) % q;
                seg_ptrs[i - 1] = recv + (MPI_Aint)rdispls[source] * rbytes;
                seg_lengths[i - 1] = (int)((long long)rcounts[source] * rbytes);
            }
            gathered_message *msg = &messages[built++];
            err = describe_segments(q, seg_ptrs, seg_lengths, seg_addresses, msg);
            if (err == MPI_SUCCESS && msg->count > 0)
                err = MPI_Irecv(msg->buf, msg->count, msg->type, from_node * q + local,
                                COALESCED_TAG, comm, &requests[n++]);
        }
        /* Sends: the compacted run for node n + k, then the own block. */
        for (int k = first; k < last && err == MPI_SUCCESS; k++) {
            int to = ((node + k) % nodes) * q + local;
            seg_ptrs[0] = held.data ? held.data + run_start[k] : NULL;
            seg_lengths[0] = (int)run_bytes[k];
            seg_ptrs[1] = (char *)send + (MPI_Aint)sdispls[to] * sbytes;
            seg_lengths[1] = (int)((long long)scounts[to] * sbytes);
            long long bytes = (long long)seg_lengths[0] + seg_lengths[1];
            gathered_message *msg = &messages[built++];
            err = describe_segments(2, seg_ptrs, seg_lengths, seg_addresses, msg);
            if (err == MPI_SUCCESS && msg->count > 0) {
                err = MPI_Isend(msg->buf, msg->count, msg->type, to, COALESCED_TAG, comm,
                                &requests[n++]);
                a2a_count_send(stats, q, bytes);
            } else if (stats) {
                stats->blocks += q;
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
    }
    if (stats && err == MPI_SUCCESS) {
        stats->rounds += nodes - 1;
        stats->rounds_global += nodes - 1;
    }
    free(scratch);
    free(held.data);
    free(held.sizes);
    return err;
}
