/* pairwise.c — pairwise exchange: one MPI_Sendrecv per round. */
#include "kernel_util.h"
#include "pairwise_body.h"

/* Guarantees: the MPI_Alltoall result after P rounds (round 0 is the local block):
 * in round i the rank sends to rank+i and receives from rank-i, blocking.
 * Any datatypes (handed to MPI as they are); MPI_ERR_COMM for an intercommunicator. */
int A2A_Alltoall_pairwise(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                          int rcount, MPI_Datatype rtype, MPI_Comm comm, a2a_stats *stats)
{
    int rank, size, err;
    if ((err = a2a_kernel_prologue(comm, stype, rtype, &rank, &size)) != MPI_SUCCESS)
        return err;
    return a2a_pairwise_rounds(sbuf, scount, stype, rbuf, rcount, rtype, comm, rank, size,
                               A2A_PAIRING_SHIFT, stats);
}
