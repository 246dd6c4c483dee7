/* tuna_staggered.c — staggered TuNA_l^g (Algorithm 2 of the TuNA paper): intra-node TuNA
 * over all node groups at once, then the inter-node exchange among ranks with the same
 * local rank, one block per message, scattered with block_count messages in flight.
 */
#include <stdlib.h>

#include "chunked_p2p.h"
#include "kernel_util.h"
#include "tuna_local.h"

enum { STAGGERED_TAG = 0x7a20 };

/* The inter-node phase: see A2A_Alltoallv_tuna_staggered below. */
static int staggered_exchange(a2a_tuna_hier *h, a2a_stats *stats)
{
    const int q = h->q, nodes = h->nodes, node = h->node, local = h->local;
    const int block_count = h->block_count;
    const long long exchanges = (long long)(nodes - 1) * q;
    const int *scounts = h->scounts, *rcounts = h->rcounts;
    const MPI_Aint sbytes = h->sbytes, rbytes = h->rbytes;
    const a2a_tuna_held held = h->held;

    /* pieces of the largest block this rank sends or receives (held ones are smaller) */
    long long pieces = 1;
    for (int d = 0; d < h->size; d++) {
        long long out = a2a_chunk_count((long long)scounts[d] * sbytes);
        long long in = a2a_chunk_count((long long)rcounts[d] * rbytes);
        if (out > pieces)
            pieces = out;
        if (in > pieces)
            pieces = in;
    }
    const size_t request_bytes = 2 * (size_t)block_count * (size_t)pieces * sizeof(MPI_Request);
    MPI_Request *requests = malloc(request_bytes);
    if (!requests)
        return MPI_ERR_NO_MEM;
    a2a_count_temp(stats, held.alloc_bytes + (long long)request_bytes);

    int err = MPI_SUCCESS;
    for (long long first = 0; first < exchanges && err == MPI_SUCCESS; first += block_count) {
        long long last = first + block_count < exchanges ? first + block_count : exchanges;
        int n = 0;
        for (long long j = first; j < last && err == MPI_SUCCESS; j++) {
            int k = (int)(1 + j / q), i = (int)(j % q);
            int from_node = (node - k + nodes) % nodes;
            int source = from_node * q + (local - i + q) % q;
            long long bytes = (long long)rcounts[source] * rbytes;
            err = a2a_post_chunked(0, h->rbuf + (MPI_Aint)h->rdispls[source] * rbytes, bytes,
                                   from_node * q + local, STAGGERED_TAG, h->comm, requests, &n);
        }
        for (long long j = first; j < last && err == MPI_SUCCESS; j++) {
            int k = (int)(1 + j / q), i = (int)(j % q);
            int to = ((node + k) % nodes) * q + local;
            long slot = i > 0 ? a2a_tuna_held_slot(k, i, q) : 0;
            long long bytes = i == 0 ? (long long)scounts[to] * sbytes : held.sizes[slot];
            if (bytes > 0) {
                const char *block = i == 0 ? h->sbuf + (MPI_Aint)h->sdispls[to] * sbytes
                                           : held.data + (size_t)slot * (size_t)held.slot_bytes;
                int before = n;
                err = a2a_post_chunked(1, (char *)block, bytes, to, STAGGERED_TAG, h->comm,
                                       requests, &n);
                a2a_count_send(stats, 1, bytes);
                if (stats)
                    stats->messages += n - before - 1;
            } else if (stats) {
                stats->blocks += 1;
            }
        }
        if (n > 0) {
            int wait_err = MPI_Waitall(n, requests, MPI_STATUSES_IGNORE);
            if (err == MPI_SUCCESS)
                err = wait_err;
        }
    }
    free(requests);
    if (stats && err == MPI_SUCCESS) {
        stats->rounds += exchanges;
        stats->rounds_global += exchanges;
    }
    return err;
}

/* Guarantees: the MPI_Alltoallv result on comm (any types: those that are not one
 * ascending run are packed through MPI first; MPI_ERR_COMM for an intercommunicator)
 * when Q (ppn, or the real node size for
 * ppn = 0) divides P, radix is in [2, max(2, Q)] and block_count in
 * [1, max(1, (N-1)*Q)] with N = P/Q (MPI_ERR_ARG otherwise). Rounds: K(Q, radix)
 * intra-node ones (rounds_local), then (N-1)*Q inter-node ones (rounds_global): exchange
 * j = (k-1)*Q + i sends to the rank with the same local rank on node n + k the block
 * that came from local rank g - i (i = 0: the rank's own block, from the send buffer) and
 * receives the matching block from node n - k straight into the receive buffer. Exchanges
 * go in batches of block_count, each batch completed before the next; empty blocks are
 * not sent (both sides know the size) but count as blocks in stats, and a block above
 * a2a_max_message_bytes() goes in pieces (the intra-node phase refuses with
 * MPI_ERR_COUNT on every rank alike what it cannot send). */
int A2A_Alltoallv_tuna_staggered(A2A_V_PARAMS, int radix, int block_count, int ppn,
                                 a2a_stats *stats)
{
    return a2a_tuna_hierarchical(staggered_exchange, A2A_TUNA_ONE_BLOCK, A2A_V_ARGS, radix,
                                 block_count, ppn, stats);
}
