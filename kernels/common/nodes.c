/* nodes.c — node grouping: real shared-memory nodes or a virtual ppn. */
#include "a2a.h"

/* Guarantees: on success every rank of comm agrees on *q, P % q == 0, and ranks
 * [n*q, (n+1)*q) form node n. With ppn == 0 the real nodes must be laid out that way. */
int A2A_Node_layout(MPI_Comm comm, int ppn, int *q, int *node, int *local_rank)
{
    int rank, size, err;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int qq = ppn;
    if (qq <= 0) {
        MPI_Comm shm;
        err = MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shm);
        if (err != MPI_SUCCESS)
            return err;
        int local, local_size;
        MPI_Comm_rank(shm, &local);
        MPI_Comm_size(shm, &local_size);
        MPI_Comm_free(&shm);
        /* Block layout: all nodes equal in size, each starting at a multiple of it. */
        int mine[3] = { local_size, -local_size, rank - local == (rank / local_size) * local_size };
        int all[3];
        err = MPI_Allreduce(mine, all, 3, MPI_INT, MPI_MIN, comm);
        if (err != MPI_SUCCESS)
            return err;
        if (all[0] != -all[1] || !all[2])
            return MPI_ERR_ARG;
        qq = local_size;
    }
    if (qq > size || size % qq != 0)
        return MPI_ERR_ARG;
    *q = qq;
    if (node)
        *node = rank / qq;
    if (local_rank)
        *local_rank = rank % qq;
    return MPI_SUCCESS;
}
