/* nodes.c — node grouping: real shared-memory nodes or a virtual ppn. */
#include <pthread.h>
#include <stdint.h>
#include "a2a.h"

/* The real node size of a communicator, cached as an attribute (-1: the nodes are not
 * laid out in equal blocks). A communicator's nodes never change, so it is measured once. */
static int node_size_keyval = MPI_KEYVAL_INVALID;
static pthread_once_t keyval_once = PTHREAD_ONCE_INIT;

static void create_keyval(void)
{
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &node_size_keyval,
                           NULL);
}

/* Guarantees: *q = the size of the shared-memory nodes of comm, the same on every rank,
 * or -1 if they are not equal blocks of consecutive ranks. Collective the first time on
 * a communicator, local afterwards. */
static int real_node_size(MPI_Comm comm, int *q)
{
    pthread_once(&keyval_once, create_keyval);
    void *value;
    int found = 0;
    if (node_size_keyval != MPI_KEYVAL_INVALID &&
        MPI_Comm_get_attr(comm, node_size_keyval, &value, &found) == MPI_SUCCESS && found) {
        *q = (int)(intptr_t)value;
        return MPI_SUCCESS;
    }
    int rank, err;
    MPI_Comm_rank(comm, &rank);
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
    *q = all[0] != -all[1] || !all[2] ? -1 : local_size;
    if (node_size_keyval != MPI_KEYVAL_INVALID)
        MPI_Comm_set_attr(comm, node_size_keyval, (void *)(intptr_t)*q);
    return MPI_SUCCESS;
}

/* Guarantees: on success every rank of comm agrees on *q, P % q == 0, and ranks
 * [n*q, (n+1)*q) form node n. With ppn == 0 the real nodes must be laid out that way
 * (measured once per communicator, then cached on it). */
int A2A_Node_layout(MPI_Comm comm, int ppn, int *q, int *node, int *local_rank)
{
    int rank, size, err;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int qq = ppn;
    if (qq <= 0) {
        if ((err = real_node_size(comm, &qq)) != MPI_SUCCESS)
            return err;
        if (qq < 0)
            return MPI_ERR_ARG;
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
