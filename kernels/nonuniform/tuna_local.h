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
    MPI_Aint slot_bytes;   /* capacity of a slot: the largest block of the communicator */
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
 * g + z*r^x a metadata message (the byte size of each block) and then one data message
 * gathered straight from the send buffer and the temporary buffer (none when all its
 * blocks are empty; stats->blocks still counts them); blocks arriving at their
 * destination go straight into rbuf. Up to `subrounds` rounds of one digit x are in
 * flight at once; the only send staging (copies of blocks whose slot the same round
 * refills) has its own region per block, freed only after the whole group completed.
 * Temporary buffer: one slot of the largest block (MPI_Allreduce) per intermediate
 * distance that is not a round's direct block, q - K - 1 for this node's group, plus the
 * held slots above. sbytes/rbytes are the element sizes of the send/receive types.
 * Returns MPI_SUCCESS, MPI_ERR_COUNT (a block above INT_MAX bytes), MPI_ERR_NO_MEM,
 * MPI_ERR_TRUNCATE (metadata announcing a block larger than any sent: inconsistent counts),
 * or an MPI error; on error nothing stays allocated. */
int a2a_tuna_local(const void *sbuf, const int *scounts, const int *sdispls, MPI_Aint sbytes,
                   void *rbuf, const int *rdispls, MPI_Aint rbytes, MPI_Comm comm, int q,
                   int radix, int subrounds, a2a_tuna_held *held, a2a_stats *stats);

/* The common start of the hierarchical TuNA kernels: element sizes of both (contiguous)
 * types, and the node layout (Q = ppn, or the real node for ppn = 0; P % Q == 0) with
 * this rank's node and local rank; radix must lie in [2, max(2, Q)]. Returns
 * MPI_SUCCESS, or the error of A2A_Type_bytes / A2A_Node_layout, or MPI_ERR_ARG. */
int a2a_tuna_hier_setup(MPI_Datatype stype, MPI_Datatype rtype, MPI_Comm comm, int ppn,
                        int radix, MPI_Aint *sbytes, MPI_Aint *rbytes, int *q, int *node,
                        int *local);

#endif
