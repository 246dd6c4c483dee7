/* pairwise.c — pairwise exchange: one MPI_Sendrecv per round. */
#include "kernel_util.h"
#include "private_comm.h"

/* Guarantees: the MPI_Alltoall result after P rounds (round 0 is the local block):
 * in round i the rank sends to rank+i and receives from rank-i, blocking.
 * Any datatypes (handed to MPI as they are); MPI_ERR_COMM for an intercommunicator. */
int A2A_Alltoall_pairwise(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                          int rcount, MPI_Datatype rtype, MPI_Comm comm, a2a_stats *stats)
{
    int rank, size, err;
    if ((err = a2a_kernel_prologue(comm, stype, rtype, &rank, &size)) != MPI_SUCCESS)
        return err;
    comm = a2a_private_comm(comm); /* kernel traffic never meets the application's */
    MPI_Aint lb, sext, rext;
    MPI_Type_get_extent(stype, &lb, &sext);
    MPI_Type_get_extent(rtype, &lb, &rext);
    int ssize;
    MPI_Type_size(stype, &ssize);
    for (int i = 0; i < size; i++) {
        int dst = (rank + i) % size, src = (rank - i + size) % size;
        err = MPI_Sendrecv((const char *)sbuf + (MPI_Aint)dst * scount * sext, scount,
                               stype, dst, 0, (char *)rbuf + (MPI_Aint)src * rcount * rext,
                               rcount, rtype, src, 0, comm, MPI_STATUS_IGNORE);
        if (err != MPI_SUCCESS)
            return err;
        if (i > 0) {
            a2a_count_send(stats, 1, (long long)scount * ssize);
            a2a_count_rounds(stats, 1);
        }
    }
    return MPI_SUCCESS;
}
