/* tuna_local.h — the TuNA rounds shared by TuNA and TuNA_l^g, and the frame the two
 * TuNA_l^g kernels share around their inter-node phase (internal to liba2a).
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

#include "kernel_util.h"

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

/* ---- TuNA_l^g: the intra-node phase above, then an inter-node phase ------------------ */

/* How the inter-node phase of a TuNA_l^g kernel groups blocks into messages. */
typedef enum a2a_tuna_message {
    A2A_TUNA_ONE_BLOCK,  /* staggered: (N-1)*q messages of one block each */
    A2A_TUNA_NODE_BLOCKS /* coalesced: N-1 messages, each the q blocks bound for one node */
} a2a_tuna_message;

/* What the inter-node phase of a TuNA_l^g kernel works on: the call on run types (counts
 * and displacements in elements of sbytes and rbytes bytes), the private communicator,
 * the node layout (N = `nodes` nodes of q ranks; this rank is local rank `local` of node
 * `node`), the kernel's block_count, and the blocks the intra-node phase held for other
 * nodes (a2a_tuna_held). */
typedef struct a2a_tuna_hier {
    const char *sbuf;
    char *rbuf;
    const int *scounts, *sdispls, *rcounts, *rdispls;
    MPI_Aint sbytes, rbytes;
    MPI_Comm comm;
    int size, q, nodes, node, local, block_count;
    a2a_tuna_held held;
} a2a_tuna_hier;

/* An inter-node phase: moves every block bound for another node (held ones, and this
 * rank's own from sbuf) into the receive buffers of their destinations. It may rearrange
 * the held data; it frees what it allocates (a2a_tuna_hierarchical frees the held blocks)
 * and counts in stats its messages, blocks, bytes, rounds and rounds_global and its peak
 * temp_bytes (held.alloc_bytes included). Returns MPI_SUCCESS or the first error. */
typedef int (*a2a_tuna_inter_node)(a2a_tuna_hier *hier, a2a_stats *stats);

/* Guarantees: the frame of the TuNA_l^g kernels around their inter-node phase, on any
 * types (a2a_v_staged: MPI_ERR_COMM, MPI_ERR_TYPE; a side that is not one ascending run
 * is staged). The node layout: Q = ppn, or the real node for ppn = 0 (A2A_Node_layout's
 * errors; Q must divide P). MPI_ERR_ARG, before the intra-node phase, unless radix lies
 * in [2, max(2, Q)] and block_count in [1, max(1, M)], M the inter-node messages of
 * `message` ((N-1)*Q or N-1). Then the intra-node phase (a2a_tuna_local among the Q ranks
 * of each node, at most one round in flight, a later message of 1 or Q blocks: its
 * MPI_ERR_COUNT; its rounds also counted in rounds_local), then `phase`; the held blocks
 * are freed after it. Returns the first error. */
int a2a_tuna_hierarchical(a2a_tuna_inter_node phase, a2a_tuna_message message, A2A_V_PARAMS,
                          int radix, int block_count, int ppn, a2a_stats *stats);

#endif
