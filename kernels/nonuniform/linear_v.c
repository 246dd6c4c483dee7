/* linear_v.c — Open MPI's basic linear alltoallv: requests in ascending rank order. */
#include <stdlib.h>
#include "kernel_util.h"
#include "private_comm.h"

/* Guarantees: the MPI_Alltoallv result. The local block is copied first (through a
 * self Sendrecv, so any datatype works); then receives from ranks 0..P-1 and sends to
 * ranks 0..P-1 are all posted in ascending order and completed together, none for a
 * block of 0 bytes (Open MPI posts none: both sides know its size).
 * Any datatypes (handed to MPI as they are); MPI_ERR_COMM for an intercommunicator. */
int A2A_Alltoallv_linear(const void *sbuf, const int *scounts, const int *sdispls,
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
    int ssize, rsize;
    MPI_Type_size(stype, &ssize);
    MPI_Type_size(rtype, &rsize);

    err = MPI_Sendrecv((const char *)sbuf + sdispls[rank] * sext, scounts[rank], stype,
                           rank, 0, (char *)rbuf + rdispls[rank] * rext, rcounts[rank], rtype,
                           rank, 0, comm, MPI_STATUS_IGNORE);
    if (err != MPI_SUCCESS || size == 1)
        return err;
    MPI_Request *reqs = malloc(2 * (size_t)(size - 1) * sizeof *reqs);
    if (!reqs)
        return MPI_ERR_NO_MEM;
    a2a_count_temp(stats, 2 * (long long)(size - 1) * (long long)sizeof *reqs);
    int n = 0;
    for (int src = 0; src < size && err == MPI_SUCCESS; src++)
        if (src != rank && (long long)rcounts[src] * rsize > 0)
            err = MPI_Irecv((char *)rbuf + rdispls[src] * rext, rcounts[src], rtype, src, 0,
                            comm, &reqs[n++]);
    for (int dst = 0; dst < size && err == MPI_SUCCESS; dst++)
        if (dst != rank && (long long)scounts[dst] * ssize > 0) {
            err = MPI_Isend((const char *)sbuf + sdispls[dst] * sext, scounts[dst], stype, dst,
                            0, comm, &reqs[n++]);
            a2a_count_send(stats, 1, (long long)scounts[dst] * ssize);
            a2a_count_rounds(stats, 1);
        }
    if (err == MPI_SUCCESS)
        err = MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
    free(reqs);
    return err;
}
