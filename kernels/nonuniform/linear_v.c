/* linear_v.c — Open MPI's basic linear alltoallv: requests in ascending rank order. */
#include <stdlib.h>
#include "kernel_util.h"

/* Guarantees: the MPI_Alltoallv result. The local block is copied first (through a
 * self Sendrecv, so any datatype works); then receives from ranks 0..P-1 and sends to
 * ranks 0..P-1 are all posted in ascending order and completed together, none for a
 * block of 0 bytes (Open MPI posts none: both sides know its size).
 * Any datatypes (handed to MPI as they are); MPI_ERR_COMM for an intercommunicator. */
int A2A_Alltoallv_linear(A2A_V_PARAMS, a2a_stats *stats)
{
    int rank, size, err;
    a2a_type_units u;
    if ((err = a2a_direct_prologue(&comm, stype, rtype, &rank, &size, &u)) != MPI_SUCCESS)
        return err;
    err = MPI_Sendrecv((const char *)sbuf + sdispls[rank] * u.sextent, scounts[rank], stype,
                       rank, 0, (char *)rbuf + rdispls[rank] * u.rextent, rcounts[rank], rtype,
                       rank, 0, comm, MPI_STATUS_IGNORE);
    if (err != MPI_SUCCESS || size == 1)
        return err;
    MPI_Request *reqs = malloc(2 * (size_t)(size - 1) * sizeof *reqs);
    if (!reqs)
        return MPI_ERR_NO_MEM;
    a2a_count_temp(stats, 2 * (long long)(size - 1) * (long long)sizeof *reqs);
    int n = 0;
    for (int src = 0; src < size && err == MPI_SUCCESS; src++)
        if (src != rank && (long long)rcounts[src] * u.rsize > 0)
            err = MPI_Irecv((char *)rbuf + rdispls[src] * u.rextent, rcounts[src], rtype, src, 0,
                            comm, &reqs[n++]);
    for (int dst = 0; dst < size && err == MPI_SUCCESS; dst++)
        if (dst != rank && (long long)scounts[dst] * u.ssize > 0) {
            err = MPI_Isend((const char *)sbuf + sdispls[dst] * u.sextent, scounts[dst], stype, dst,
                            0, comm, &reqs[n++]);
            a2a_count_send(stats, 1, (long long)scounts[dst] * u.ssize);
            a2a_count_rounds(stats, 1);
        }
    if (err == MPI_SUCCESS)
        err = MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
    free(reqs);
    return err;
}
