/* spread_out_v.c — spread-out alltoallv: every request posted at once, round-robin. */
#include "kernel_util.h"
#include "scattered_body.h"

/* Guarantees: the MPI_Alltoallv result. Spread-out is the scattered algorithm with a
 * single batch of all P peers (receive from rank-i, send to rank+i), no request for a
 * block of 0 bytes. */
int A2A_Alltoallv_spread_out(A2A_V_PARAMS, a2a_stats *stats)
{
    int rank, size, err;
    if ((err = a2a_kernel_prologue(comm, stype, rtype, &rank, &size)) != MPI_SUCCESS)
        return err;
    return a2a_scattered_v(A2A_V_ARGS, rank, size, size, stats);
}
