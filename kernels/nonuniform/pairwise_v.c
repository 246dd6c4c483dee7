/* pairwise_v.c — Open MPI's pairwise alltoallv: one Irecv and one blocking Send per round. */
#include "kernel_util.h"
#include "private_comm.h"

/* Guarantees: the MPI_Alltoallv result after P rounds (round 0 is the local block):
 * in round i the rank posts an Irecv from rank-i, sends to rank+i with a blocking
 * MPI_Send, and waits for the receive before the next round.
 * Any datatypes (handed to MPI as they are); MPI_ERR_COMM for an intercommunicator. */
int A2A_Alltoallv_pairwise(const void *sbuf, const int *scounts, const int *sdispls,
                           MPI_Datatype stype, void *rbuf, const int *rcounts,
                           const int *rdispls, MPI_Datatype rtype, MPI_Comm comm,
                           a2a_stats *stats)
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
        MPI_Request req;
        err = MPI_Irecv((char *)rbuf + rdispls[src] * rext, rcounts[src], rtype, src, 0,
                            comm, &req);
        if (err == MPI_SUCCESS)
            err = MPI_Send((const char *)sbuf + sdispls[dst] * sext, scounts[dst], stype, dst,
                           0, comm);
        if (err == MPI_SUCCESS)
            err = MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (err != MPI_SUCCESS)
            return err;
        if (i > 0) {
            a2a_count_send(stats, 1, (long long)scounts[dst] * ssize);
            a2a_count_rounds(stats, 1);
        }
    }
    return MPI_SUCCESS;
}
