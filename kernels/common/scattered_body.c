/* scattered_body.c — MPICH's scattered exchange on one side description (alltoall and
 * alltoallv shapes alike). */
#include <stdlib.h>

#include "private_comm.h"
#include "scattered_body.h"

/* Element count and displacement (in extents) of block j of one side. */
static int block_count_of(const a2a_side *s, int j)
{
    return s->counts ? s->counts[j] : s->count;
}
static MPI_Aint block_displ_of(const a2a_side *s, int j)
{
    return s->displs ? (MPI_Aint)s->displs[j] : (MPI_Aint)j * s->count;
}

/* Guarantees: see scattered_body.h. */
int a2a_scattered_sides(const a2a_side *send, const a2a_side *recv, MPI_Comm comm, int rank,
                        int size, int block_count, a2a_stats *stats)
{
    comm = a2a_private_comm(comm); /* kernel traffic never meets the application's */
    const a2a_type_units u = a2a_type_units_of(send->type, recv->type);

    MPI_Request *reqs = malloc(2 * (size_t)block_count * sizeof *reqs);
    if (!reqs)
        return MPI_ERR_NO_MEM;
    a2a_count_temp(stats, 2 * (long long)block_count * (long long)sizeof *reqs);
    int err = MPI_SUCCESS;
    for (int first = 0; first < size && err == MPI_SUCCESS; first += block_count) {
        int batch = size - first < block_count ? size - first : block_count;
        int n = 0;
        for (int i = first; i < first + batch && err == MPI_SUCCESS; i++) {
            int src = (rank - i + size) % size;
            if ((long long)block_count_of(recv, src) * u.rsize == 0)
                continue;
            err = MPI_Irecv((char *)recv->buf + block_displ_of(recv, src) * u.rextent,
                            block_count_of(recv, src), recv->type, src, 0, comm, &reqs[n++]);
        }
        for (int i = first; i < first + batch && err == MPI_SUCCESS; i++) {
            int dst = (rank + i) % size;
            if ((long long)block_count_of(send, dst) * u.ssize == 0)
                continue;
            err = MPI_Isend((const char *)send->buf + block_displ_of(send, dst) * u.sextent,
                            block_count_of(send, dst), send->type, dst, 0, comm, &reqs[n++]);
            if (dst != rank) {
                a2a_count_send(stats, 1, (long long)block_count_of(send, dst) * u.ssize);
                a2a_count_rounds(stats, 1);
            }
        }
        if (err == MPI_SUCCESS)
            err = MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
    }
    free(reqs);
    return err;
}
