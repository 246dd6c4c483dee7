/* tuna_staggered.c — staggered TuNA_l^g (Algorithm 2 of the TuNA paper): intra-node TuNA
 * over all node groups at once, then the inter-node exchange among ranks with the same
 * local rank, one block per message, scattered with block_count messages in flight.
 */
#include <stdlib.h>

#include "chunked_p2p.h"
#include "kernel_util.h"
#include "tuna_local.h"
#include "private_comm.h"
#include "v_staging.h"

enum { STAGGERED_TAG = 0x7a20 };

/* The kernel on run types: see A2A_Alltoallv_tuna_staggered below. */
static int staggered_runs(const void *sbuf, const int *scounts, const int *sdispls,
                          void *rbuf, const int *rcounts, const int *rdispls, MPI_Comm comm,
                          const a2a_v_args *args, a2a_stats *stats)
{
    const int radix = args->radix, block_count = args->block_count, ppn = args->ppn;
    int err, q, node, local;
    const int size = args->size;
    const MPI_Aint sbytes = args->sbytes, rbytes = args->rbytes;
    if ((err = a2a_tuna_hier_setup(comm, ppn, radix, &q, &node, &local)) != MPI_SUCCESS)
        return err;
    const int nodes = size / q;
    const long long exchanges = (long long)(nodes - 1) * q;
    if (block_count < 1 || block_count > (exchanges > 1 ? exchanges : 1))
        return MPI_ERR_ARG;

    comm = a2a_private_comm(comm); /* kernel traffic never meets the application's */
    a2a_tuna_held held;
    err = a2a_tuna_local(sbuf, scounts, sdispls, sbytes, rbuf, rcounts, rdispls, rbytes, comm,
                         q, radix, 1, 1, &held, stats);
    if (err != MPI_SUCCESS)
        return err;
    if (stats)
        stats->rounds_local += held.rounds;

    /* pieces of the largest block this rank sends or receives (held ones are smaller) */
    long long pieces = 1;
    for (int d = 0; d < size; d++) {
        long long out = a2a_chunk_count((long long)scounts[d] * sbytes);
        long long in = a2a_chunk_count((long long)rcounts[d] * rbytes);
        if (out > pieces)
            pieces = out;
        if (in > pieces)
            pieces = in;
    }
    const size_t request_bytes = 2 * (size_t)block_count * (size_t)pieces * sizeof(MPI_Request);
    MPI_Request *requests = malloc(request_bytes);
    if (!requests) {
        free(held.data);
        free(held.sizes);
        return MPI_ERR_NO_MEM;
    }
    a2a_count_temp(stats, held.alloc_bytes + (long long)request_bytes);

    const char *send = sbuf;
    char *recv = rbuf;
    for (long long first = 0; first < exchanges && err == MPI_SUCCESS; first += block_count) {
        long long last = first + block_count < exchanges ? first + block_count : exchanges;
        int n = 0;
        for (long long j = first; j < last && err == MPI_SUCCESS; j++) {
            int k = (int)(1 + j / q), i = (int)(j % q);
            int from_node = (node - k + nodes) % nodes;
            int source = from_node * q + (local - i + q) % q;
            long long bytes = (long long)rcounts[source] * rbytes;
            err = a2a_post_chunked(0, recv + (MPI_Aint)rdispls[source] * rbytes, bytes,
                                   from_node * q + local, STAGGERED_TAG, comm, requests, &n);
        }
        for (long long j = first; j < last && err == MPI_SUCCESS; j++) {
            int k = (int)(1 + j / q), i = (int)(j % q);
            int to = ((node + k) % nodes) * q + local;
            long slot = i > 0 ? a2a_tuna_held_slot(k, i, q) : 0;
            long long bytes = i == 0 ? (long long)scounts[to] * sbytes : held.sizes[slot];
            if (bytes > 0) {
                const char *block = i == 0 ? send + (MPI_Aint)sdispls[to] * sbytes
                                           : held.data + (size_t)slot * (size_t)held.slot_bytes;
                int before = n;
                err = a2a_post_chunked(1, (char *)block, bytes, to, STAGGERED_TAG, comm,
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
    if (stats && err == MPI_SUCCESS) {
        stats->rounds += exchanges;
        stats->rounds_global += exchanges;
    }
    free(requests);
    free(held.data);
    free(held.sizes);
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
int A2A_Alltoallv_tuna_staggered(const void *sbuf, const int *scounts, const int *sdispls,
                                 MPI_Datatype stype, void *rbuf, const int *rcounts,
                                 const int *rdispls, MPI_Datatype rtype, MPI_Comm comm,
                                 int radix, int block_count, int ppn, a2a_stats *stats)
{
    const a2a_v_args args = { .radix = radix, .block_count = block_count, .ppn = ppn };
    return a2a_v_staged(staggered_runs, &args, sbuf, scounts, sdispls, stype, rbuf, rcounts,
                        rdispls, rtype, comm, stats);
}
