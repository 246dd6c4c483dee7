/* scattered_v.c — MPICH's scattered alltoallv: spread-out in batches of block_count. */
#include "kernel_util.h"
#include "scattered_body.h"

/* Guarantees: the MPI_Alltoallv result. Peers are visited round-robin (receive from
 * rank-i, send to rank+i); at most block_count receives and block_count sends are in
 * flight, and each batch completes before the next is posted, no request for a block
 * of 0 bytes (MPI_ERR_ARG for block_count outside [1, P]). Any datatypes (handed to MPI
 * as they are); MPI_ERR_COMM for an intercommunicator. */
int A2A_Alltoallv_scattered(A2A_V_PARAMS, int block_count, a2a_stats *stats)
{
    int rank, size, err;
    if ((err = a2a_kernel_prologue(comm, stype, rtype, &rank, &size)) != MPI_SUCCESS)
        return err;
    if (block_count < 1 || block_count > size)
        return MPI_ERR_ARG;
    return a2a_scattered_v(A2A_V_ARGS, rank, size, block_count, stats);
}
