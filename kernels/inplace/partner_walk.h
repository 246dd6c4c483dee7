/* partner_walk.h — the blocking in-place exchange that the LSA, MPICH-order and HSA
 * kernels share: the in-place prologue, then one MPI_Sendrecv_replace per partner in the
 * kernel's own order, then the stats (internal). */
#ifndef A2A_PARTNER_WALK_H
#define A2A_PARTNER_WALK_H

#include "kernel_util.h"

/* A kernel's order of partners. `walk` is the kernel's own state, handed back unchanged. */
typedef struct a2a_partner_order {
    /* Sets up walk to return the partners of `rank` among p ranks from the first. */
    void (*begin)(void *walk, int p, int rank);
    /* The next partner (never the rank itself), or -1 once there is none. */
    int (*next)(void *walk);
    /* The rounds counted in stats for p ranks. */
    long long (*rounds)(int p);
} a2a_partner_order;

/* Guarantees: the symmetric in-place exchange of buf (block j: counts[j] elements of type
 * at displs[j]) with every partner that `order` returns, one blocking
 * MPI_Sendrecv_replace (tag 0) each on the kernel's private communicator, after
 * a2a_inplace_prologue (its errors returned before any communication). Each exchange adds
 * one message of the block's bytes to stats; once all are done order->rounds(p) rounds are
 * added. The first MPI error is returned at once; temp_bytes stays 0. */
int a2a_inplace_partner_walk(void *buf, const int *counts, const int *displs,
                             MPI_Datatype type, MPI_Comm comm, a2a_stats *stats,
                             const a2a_partner_order *order, void *walk);

#endif
