/* mpi_compat.c — the MPI calls SimGrid's SMPI lacks, as the kernels need them (see
 * mpi_compat.h for what each substitute does under SimGrid and why it is correct). */
#include "mpi_compat.h"

/* Guarantees: see mpi_compat.h. */
int a2a_probe(int source, int tag, MPI_Comm comm, a2a_probed *probed)
{
    probed->comm = comm;
#ifdef A2A_SIMGRID
    return MPI_Probe(source, tag, comm, &probed->status);
#else
    return MPI_Mprobe(source, tag, comm, &probed->message, &probed->status);
#endif
}

/* Guarantees: see mpi_compat.h. */
int a2a_iprobe(int source, int tag, MPI_Comm comm, int *flag, a2a_probed *probed)
{
    probed->comm = comm;
#ifdef A2A_SIMGRID
    return MPI_Iprobe(source, tag, comm, flag, &probed->status);
#else
    return MPI_Improbe(source, tag, comm, flag, &probed->message, &probed->status);
#endif
}

/* Guarantees: see mpi_compat.h. */
int a2a_recv_probed(void *buf, int count, MPI_Datatype type, a2a_probed *probed)
{
#ifdef A2A_SIMGRID
    return MPI_Recv(buf, count, type, probed->status.MPI_SOURCE, probed->status.MPI_TAG,
                    probed->comm, MPI_STATUS_IGNORE);
#else
    return MPI_Mrecv(buf, count, type, &probed->message, MPI_STATUS_IGNORE);
#endif
}

#ifdef A2A_SIMGRID
/* Guarantees: the zero-byte messages of the barrier's current round posted: to the rank
 * `distance` ahead, from the rank `distance` behind. */
static int post_round(a2a_barrier *b)
{
    int to = (b->rank + b->distance) % b->size;
    int from = (b->rank - b->distance % b->size + b->size) % b->size;
    int err = MPI_Irecv(NULL, 0, MPI_BYTE, from, b->tag, b->comm, &b->requests[0]);
    if (err == MPI_SUCCESS)
        err = MPI_Isend(NULL, 0, MPI_BYTE, to, b->tag, b->comm, &b->requests[1]);
    return err;
}
#endif

/* Guarantees: see mpi_compat.h. SimGrid: a dissemination barrier; round k exchanges with
 * the ranks 2^k ahead and behind, and after ceil(log2 P) rounds every rank has heard,
 * directly or through others, from every rank that entered. */
int a2a_ibarrier(MPI_Comm comm, int tag, a2a_barrier *barrier)
{
    barrier->requests[0] = barrier->requests[1] = MPI_REQUEST_NULL;
    barrier->comm = comm;
    barrier->tag = tag;
#ifdef A2A_SIMGRID
    int err = MPI_Comm_rank(comm, &barrier->rank);
    if (err == MPI_SUCCESS)
        err = MPI_Comm_size(comm, &barrier->size);
    barrier->distance = 1;
    if (err == MPI_SUCCESS && barrier->size > 1)
        err = post_round(barrier);
    return err;
#else
    return MPI_Ibarrier(comm, &barrier->requests[0]);
#endif
}

/* Guarantees: see mpi_compat.h. */
int a2a_barrier_test(a2a_barrier *barrier, int *done)
{
#ifdef A2A_SIMGRID
    *done = 0;
    while (barrier->distance < barrier->size) {
        int round_done = 0;
        int err = MPI_Testall(2, barrier->requests, &round_done, MPI_STATUSES_IGNORE);
        if (err != MPI_SUCCESS || !round_done)
            return err;
        barrier->distance *= 2;
        if (barrier->distance < barrier->size && (err = post_round(barrier)) != MPI_SUCCESS)
            return err;
    }
    *done = 1;
    return MPI_SUCCESS;
#else
    return MPI_Test(&barrier->requests[0], done, MPI_STATUS_IGNORE);
#endif
}

/* Guarantees: see mpi_compat.h. */
int a2a_sendrecv_replace(void *buf, int count, MPI_Datatype type, int peer, int tag,
                         MPI_Comm comm)
{
#ifdef A2A_SIMGRID
    if (count == 0)
        return MPI_Sendrecv(buf, 0, type, peer, tag, buf, 0, type, peer, tag, comm,
                            MPI_STATUS_IGNORE);
#endif
    return MPI_Sendrecv_replace(buf, count, type, peer, tag, peer, tag, comm,
                                MPI_STATUS_IGNORE);
}
