/* scattered_body.h — the one body of MPICH's scattered exchange, for its alltoall and
 * alltoallv shapes and for spread-out (internal). */
#ifndef A2A_SCATTERED_BODY_H
#define A2A_SCATTERED_BODY_H

#include "kernel_util.h"

/* Guarantees, for block_count in [1, size] and rank/size of comm (the caller checked
 * comm and the types): every block of send reaches the matching block of recv on its
 * destination, as MPI_Alltoall(v) would place it. Peers are visited round-robin (receive
 * from rank - i, send to rank + i); at most block_count receives and block_count sends
 * are in flight, and each batch completes before the next is posted. A block of 0 bytes
 * is neither sent nor received (MPICH's alltoallv posts no request for it: both sides
 * know its size). The types are handed to MPI as they are. Traffic runs on the private
 * twin of comm. */
int a2a_scattered_sides(const a2a_side *send, const a2a_side *recv, MPI_Comm comm, int rank,
                        int size, int block_count, a2a_stats *stats);

/* Guarantees: a2a_scattered_sides on the two sides of an MPI_Alltoallv call (counts and
 * displacements per block), with the same conditions. */
static inline int a2a_scattered_v(A2A_V_PARAMS, int rank, int size, int block_count,
                                  a2a_stats *stats)
{
    const a2a_side send = { (void *)sbuf, stype, scounts, sdispls, 0 };
    const a2a_side recv = { rbuf, rtype, rcounts, rdispls, 0 };
    return a2a_scattered_sides(&send, &recv, comm, rank, size, block_count, stats);
}

#endif
