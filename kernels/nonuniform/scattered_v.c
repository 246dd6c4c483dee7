/* scattered_v.c — MPICH's scattered alltoallv: spread-out in batches of block_count. */
#include <stdlib.h>
#include "kernel_util.h"
#include "private_comm.h"

/* Guarantees: the MPI_Alltoallv result. Peers are visited round-robin (receive from
 * rank-i, send to rank+i); at most block_count receives and block_count sends are in
 * flight, and each batch completes before the next is posted.
 * Any datatypes (handed to MPI as they are); MPI_ERR_COMM for an intercommunicator. */
int A2A_Alltoallv_scattered(const void *sbuf, const int *scounts, const int *sdispls,
                            MPI_Datatype stype, void *rbuf, const int *rcounts,
                            const int *rdispls, MPI_Datatype rtype, MPI_Comm comm,
                            int block_count, a2a_stats *stats)
{
    int rank, size, err;
    if ((err = a2a_kernel_prologue(comm, stype, rtype, &rank, &size)) != MPI_SUCCESS)
        return err;
    if (block_count < 1 || block_count > size)
        return MPI_ERR_ARG;
    comm = a2a_private_comm(comm); /* kernel traffic never meets the application's */
    MPI_Aint lb, sext, rext;
    MPI_Type_get_extent(stype, &lb, &sext);
    MPI_Type_get_extent(rtype, &lb, &rext);
    int ssize;
    MPI_Type_size(stype, &ssize);

    MPI_Request *reqs = malloc(2 * (size_t)block_count * sizeof *reqs);
    if (!reqs)
        return MPI_ERR_NO_MEM;
    a2a_count_temp(stats, 2 * (long long)block_count * (long long)sizeof *reqs);
    err = MPI_SUCCESS;
    for (int first = 0; first < size && err == MPI_SUCCESS; first += block_count) {
        int batch = size - first < block_count ? size - first : block_count;
        int n = 0;
        for (int i = first; i < first + batch && err == MPI_SUCCESS; i++) {
            int src = (rank - i + size) % size;
            err = MPI_Irecv((char *)rbuf + rdispls[src] * rext, rcounts[src], rtype, src, 0,
                            comm, &reqs[n++]);
        }
        for (int i = first; i < first + batch && err == MPI_SUCCESS; i++) {
            int dst = (rank + i) % size;
            err = MPI_Isend((const char *)sbuf + sdispls[dst] * sext, scounts[dst], stype, dst,
                            0, comm, &reqs[n++]);
            if (dst != rank) {
                a2a_count_send(stats, 1, (long long)scounts[dst] * ssize);
                a2a_count_rounds(stats, 1);
            }
        }
        if (err == MPI_SUCCESS)
            err = MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
    }
    free(reqs);
    return err;
}
