/* pairwise_xor.c — pairwise exchange as MPICH pairs the ranks: XOR partners when P is a
 * power of two, rank + i / rank - i otherwise. */
#include "kernel_util.h"
#include "pairwise_body.h"

/* Guarantees: the MPI_Alltoall result after the local block and P - 1 blocking
 * MPI_Sendrecv rounds: in round i the partner is rank XOR i (sent to and received from)
 * when P is a power of two; otherwise the rank sends to rank + i and receives from
 * rank - i. This is the schedule of MPICH's MPIR_Alltoall_intra_pairwise
 * (src/mpi/coll/alltoall/alltoall_intra_pairwise.c). Any datatypes (handed to MPI as they
 * are); MPI_ERR_COMM for an intercommunicator. */
int A2A_Alltoall_pairwise_xor(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                              int rcount, MPI_Datatype rtype, MPI_Comm comm, a2a_stats *stats)
{
    int rank, size, err;
    if ((err = a2a_kernel_prologue(comm, stype, rtype, &rank, &size)) != MPI_SUCCESS)
        return err;
    const int power_of_two = (size & (size - 1)) == 0;
    return a2a_pairwise_rounds(sbuf, scount, stype, rbuf, rcount, rtype, comm, rank, size,
                               power_of_two ? A2A_PAIRING_XOR : A2A_PAIRING_SHIFT, stats);
}
