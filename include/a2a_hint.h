/*
 * a2a_hint.h — HINT: a cache-aware intra-node all-to-all (included at the end of a2a.h).
 *
 * After Ramesh et al., "HINT: Designing Cache-Efficient MPI_Alltoall using Hybrid Memory
 * Copy Ordering and Non-Temporal Instructions". The ranks of a node copy the blocks
 * directly from the senders' send buffers into the receivers' receive buffers (single
 * copy); each rank performs Q of the Q x Q block copies of its node, in a chosen order,
 * then the node synchronises. XPMEM is not used: the buffers must live in shared-memory
 * windows made by A2A_Hint_alloc, which every rank of the node can load from and store to.
 *
 * Getting buffers:
 *     void *sbuf, *rbuf;
 *     A2A_Hint_alloc(comm, P * block_bytes, &sbuf);    // collective over comm
 *     A2A_Hint_alloc(comm, P * block_bytes, &rbuf);    // (or one allocation for both)
 *     ... fill sbuf, call A2A_Alltoall_hint as often as wanted ...
 *     A2A_Hint_free(rbuf);                              // collective, like the alloc
 *     A2A_Hint_free(sbuf);
 * A buffer may be any part of a segment (a rank may carve several buffers out of one
 * allocation). The window of a rank's buffers must contain every rank of its node group:
 * allocate over a communicator that holds the whole group (e.g. the one passed to the
 * kernel, or MPI_COMM_WORLD).
 */
#ifndef A2A_HINT_H
#define A2A_HINT_H

#include "a2a_stats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Values of the order argument of A2A_Alltoall_hint (the registry's A2A_PARAM_ORDER);
 * sweep files and tuning files use their names (A2A_Hint_order_names). */
enum a2a_order {
    A2A_ORDER_ROW = 1,    /* rank r copies the receive row r */
    A2A_ORDER_COLUMN,     /* rank r copies column r (linear reads of one send buffer) */
    A2A_ORDER_HILBERT,    /* sub-grids walked along a Hilbert curve */
    A2A_ORDER_TUNED,      /* from the offline tuning file */
    A2A_ORDER_AUTO,       /* each order tried on the first calls, the fastest kept */
    A2A_ORDER_LAST = A2A_ORDER_AUTO
};

/* The orders' names: names[o - 1] is the name of order o, for o = 1..A2A_ORDER_LAST. */
const char *const *A2A_Hint_order_names(void);

/* Allocates `bytes` for the calling rank inside one MPI_Win_allocate_shared window over
 * the ranks of comm that share this rank's memory node (MPI_COMM_TYPE_SHARED); *ptr is
 * this rank's segment, 64-byte aligned. Collective over comm. MPI error code on failure. */
int A2A_Hint_alloc(MPI_Comm comm, MPI_Aint bytes, void **ptr);

/* Frees memory A2A_Hint_alloc returned (exactly that pointer), collective over the ranks
 * that allocated it together; MPI_ERR_ARG for other pointers; NULL does nothing. */
int A2A_Hint_free(void *ptr);

/* HINT all-to-all, MPI_Alltoall semantics. sbuf and rbuf (P blocks each) must lie in
 * A2A_Hint_alloc memory whose window holds the whole node group, else MPI_ERR_ARG on every
 * rank of the node (when the node group is a single rank any buffers work).
 *   order      1 row, 2 column, 3 hilbert (see kernels/hint/hint_order.h), 4 tuned (the
 *              rule for (P, block bytes) of the JSON file named by $A2A_HINT_TUNING_FILE;
 *              MPI_ERR_ARG and a line on stderr if it cannot be used), 5 auto (on the
 *              first calls for a (block size, buffers) combination each order is timed
 *              three times, after one setup call, and the fastest kept: paper V-C);
 *   threshold  bytes from which a block copy goes non-temporal: blocks shorter than it are
 *              copied with memcpy, longer ones with their first `threshold` bytes temporal
 *              and the rest streamed (Algorithm 4); 0 = runtime search: start at L2 / Q
 *              (L2 from hwloc), halve while the slowest rank's copy time improves (three
 *              timed calls per candidate, down to all-non-temporal), keep the best;
 *   ppn        ranks per node Q (groups of consecutive ranks); 0 = the real shared-memory
 *              node. P % Q == 0.
 * With N = P/Q > 1 nodes (real, or virtual ones on one machine) the intra-node step is
 * followed by a pairwise exchange with the ranks of other nodes (paper, Algorithm 5).
 * Setup (node layout and communicator, copy orders, tuning state) is cached on comm and
 * freed with it. stats: rounds_local = 1 (the copy phase, when Q > 1), rounds_global =
 * pairwise steps with another node, blocks/bytes = blocks this rank copied or sent for
 * another rank, messages = inter-node messages. Errors are agreed within each node; ranks
 * of other nodes still complete their exchange with a failing node. */
int A2A_Alltoall_hint(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                      int rcount, MPI_Datatype rtype, MPI_Comm comm, int order, int threshold,
                      int ppn, a2a_stats *stats);

/* What the last A2A_Alltoall_hint call on (comm, ppn) did on this rank: *order 1..3 and
 * *threshold in bytes (-1: every copy temporal). MPI_ERR_ARG if there was no call. */
int A2A_Hint_last_choice(MPI_Comm comm, int ppn, int *order, long long *threshold);

#ifdef __cplusplus
}
#endif

#endif
