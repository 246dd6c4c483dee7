/* spread_out_v.c — spread-out alltoallv: every request posted at once, round-robin. */
#include "kernel_util.h"
#include "scattered_body.h"

/* Guarantees: the MPI_Alltoallv result. Spread-out is the scattered algorithm with a
 * single batch of all P peers (receive from rank-i, send to rank+i), no request for a
 * block of 0 bytes. */
int A2A_Alltoallv_spread_out(const void *sbuf, const int *scounts, const int *sdispls,
                             MPI_Datatype stype, void *rbuf, const int *rcounts,
                             const int *rdispls, MPI_Datatype rtype, MPI_Comm comm,
                             a2a_stats *stats)
{
    int rank, size, err;
    if ((err = a2a_kernel_prologue(comm, stype, rtype, &rank, &size)) != MPI_SUCCESS)
        return err;
    const a2a_side send = { (void *)sbuf, stype, scounts, sdispls, 0 };
    const a2a_side recv = { rbuf, rtype, rcounts, rdispls, 0 };
    return a2a_scattered_sides(&send, &recv, comm, rank, size, size, stats);
}
