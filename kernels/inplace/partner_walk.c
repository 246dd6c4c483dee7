/* partner_walk.c — the blocking in-place exchange in a kernel's order of partners
 * (partner_walk.h). */
#include "partner_walk.h"
#include "mpi_compat.h"

/* Guarantees: see partner_walk.h. */
int a2a_inplace_partner_walk(void *buf, const int *counts, const int *displs,
                             MPI_Datatype type, MPI_Comm comm, a2a_stats *stats,
                             const a2a_partner_order *order, void *walk)
{
    int rank, p;
    MPI_Aint size;
    int err = a2a_inplace_prologue(&comm, type, &rank, &p, &size);
    if (err != MPI_SUCCESS)
        return err;
    char *base = buf;
    order->begin(walk, p, rank);
    for (int j; (j = order->next(walk)) >= 0;) {
        err = a2a_sendrecv_replace(base + (MPI_Aint)displs[j] * size, counts[j], type, j, 0, comm);
        if (err != MPI_SUCCESS)
            return err;
        a2a_count_send(stats, 1, (long long)counts[j] * size);
    }
    a2a_count_rounds(stats, order->rounds(p));
    return MPI_SUCCESS;
}
