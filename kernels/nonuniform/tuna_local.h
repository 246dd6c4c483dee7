/* tuna_local.h — the TuNA rounds shared by TuNA and TuNA_l^g (internal to liba2a).
 *
 * The P = N*q ranks are seen as N nodes of q consecutive ranks (node n = ranks
 * [n*q, (n+1)*q)). The phase runs TuNA's rounds among the q ranks of each node, for the
 * blocks of all N destination nodes at once (the paper's implicit intra-node strategy,
 * Fig. 4 b): the block from local rank s of node n to rank m*q + j travels the local
 * distance i = (j - s) mod q inside node n. Afterwards every block sits on the rank of
 * its own node whose local rank equals the local rank of its destination. With q = P
 * (one node) this is the whole of flat TuNA.
 */
#ifndef A2A_TUNA_LOCAL_H
#define A2A_TUNA_LOCAL_H

#include "a2a.h"

/* What the phase leaves on the calling rank (node n, local rank g) for the inter-node
 * phase: for node offset k in [1, N) and local distance i in [1, q), slot
 * a2a_tuna_held_slot(k, i, q) of `data` holds sizes[slot] bytes: the block from rank
 * n*q + (g - i) mod q to rank ((n + k) mod N)*q + g. The block of distance 0 (this rank's
 * own block for that destination) stays in the send buffer. */
typedef struct a2a_tuna_held {
    char *data;            /* (N-1)*(q-1) slots of slot_bytes; the caller frees it */
    int *sizes;            /* bytes in each slot; the caller frees it */
    MPI_Aint slot_bytes;   /* capacity of a slot: the largest block of the communicator
                            * (when N > 1) */
    long long alloc_bytes; /* bytes of data and sizes, still allocated on return */
    long long rounds;      /* rounds the phase took: the TRA count K(q, radix) */
} a2a_tuna_held;

/* Slot of the held block for node offset k in [1, N) and local distance i in [1, q). */
static inline long a2a_tuna_held_slot(int k, int i, int q)
{
    return (long)(k - 1) * (q - 1) + (i - 1);
}

/* Guarantees, for q dividing the size of comm, radix >= 2 and subrounds >= 1 (the caller
 * validates them): every block between two ranks of the same node is in rbuf at rdispls
 * (own block included), every other block is held as described above, and stats (if
 * given) got the rounds, blocks, bytes, meta_bytes, messages and peak temp_bytes of the
 * phase (rounds_local is left to the caller). Round (x, z) sends to local rank
 * g + z*r^x the byte sizes of its blocks except the direct one (k = 0, distance z*r^x,
 * whose size the receiver takes from rcounts): no size message when that is its only
 * block. Then one data message (none when all its blocks are empty; stats->blocks still
 * counts them): blocks of at most a measured size packed into a buffer allocated once
 * per call, larger ones sent from and received into their places; blocks arriving at
 * their destination go straight into rbuf. Up to `subrounds` rounds of one digit x are
 * in flight at once. Nothing is allocated inside the rounds.
 * Temporary buffer: one slot of the largest block (MPI_Allreduce) per intermediate
 * distance that is not a round's direct block, q - K - 1 for this node's group, plus the
 * held slots above, plus the pack buffers. sbytes/rbytes are the element sizes of the
 * send/receive types. Message sizes: with any slot, MPI_ERR_COUNT on every rank alike,
 * before any data moves, when the largest block times the most blocks of a message
 * (this phase's, or `later_blocks`, the caller's later phase's) could exceed
 * a2a_max_message_bytes(); without (N = 1 and radix >= q: every round carries one block
 * whose size both sides know) a larger block goes in pieces.
 * Returns MPI_SUCCESS, MPI_ERR_COUNT, MPI_ERR_NO_MEM, MPI_ERR_TRUNCATE (a size message
 * announcing a block larger than any sent: inconsistent counts), or an MPI error; on
 * error nothing stays allocated. */
int a2a_tuna_local(const void *sbuf, const int *scounts, const int *sdispls, MPI_Aint sbytes,
                   void *rbuf, const int *rcounts, const int *rdispls, MPI_Aint rbytes,
                   MPI_Comm comm, int q, int radix, int subrounds, long long later_blocks,
                   a2a_tuna_held *held, a2a_stats *stats);

/* Largest block (bytes) the TuNA kernels copy into a pack buffer when a message carries
 * several blocks (larger ones travel in place): a constant measured on this machine
 * (tuna_local.c), or A2A_TUNA_PACK_BYTES when set (to measure it again). */
long long a2a_tuna_pack_limit(void);

/* The common start of the hierarchical TuNA kernels: the node layout (Q = ppn, or the
 * real node for ppn = 0; P % Q == 0) with this rank's node and local rank; radix must lie
 * in [2, max(2, Q)]. Returns MPI_SUCCESS, or the error of A2A_Node_layout, or
 * MPI_ERR_ARG. */
int a2a_tuna_hier_setup(MPI_Comm comm, int ppn, int radix, int *q, int *node, int *local);

#endif
