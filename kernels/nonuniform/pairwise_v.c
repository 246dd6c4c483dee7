/* pairwise_v.c — Open MPI's pairwise alltoallv: one Irecv and one blocking Send per round. */
#include "kernel_util.h"

/* Guarantees: the MPI_Alltoallv result after P rounds (round 0 is the local block):
 * in round i the rank posts an Irecv from rank-i, sends to rank+i with a blocking
 * MPI_Send, and waits for the receive before the next round.
 * Any datatypes (handed to MPI as they are); MPI_ERR_COMM for an intercommunicator. */
int A2A_Alltoallv_pairwise(A2A_V_PARAMS, a2a_stats *stats)
{
    int rank, size, err;
    a2a_type_units u;
    if ((err = a2a_direct_prologue(&comm, stype, rtype, &rank, &size, &u)) != MPI_SUCCESS)
        return err;
    for (int i = 0; i < size; i++) {
        int dst = (rank + i) % size, src = (rank - i + size) % size;
        MPI_Request req;
        err = MPI_Irecv((char *)rbuf + rdispls[src] * u.rextent, rcounts[src], rtype, src, 0,
                        comm, &req);
        if (err == MPI_SUCCESS)
            err = MPI_Send((const char *)sbuf + sdispls[dst] * u.sextent, scounts[dst], stype,
                           dst, 0, comm);
        if (err == MPI_SUCCESS)
            err = MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (err != MPI_SUCCESS)
            return err;
        if (i > 0) {
            a2a_count_send(stats, 1, (long long)scounts[dst] * u.ssize);
            a2a_count_rounds(stats, 1);
        }
    }
    return MPI_SUCCESS;
}
