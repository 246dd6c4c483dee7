/* linear_sync.c — Open MPI's linear exchange with a bounded number of outstanding
 * requests (coll/base alltoall "linear_sync"): a sliding window, refilled as requests
 * complete. */
#include <stdlib.h>

#include "kernel_util.h"
#include "private_comm.h"

/* One call's buffers, as the window posts its requests. */
typedef struct linear_call {
    const char *sbuf;
    char *rbuf;
    int scount, rcount, rank, size;
    MPI_Datatype stype, rtype;
    MPI_Aint sblock, rblock; /* bytes between consecutive blocks */
    long long block_bytes;
    MPI_Comm comm;
} linear_call;

/* Guarantees: the k-th receive (k = 0 .. P-2, from rank + 1 + k) posted into *req. */
static int post_recv(const linear_call *l, int k, MPI_Request *req)
{
    int src = (l->rank + 1 + k) % l->size;
    return MPI_Irecv(l->rbuf + (MPI_Aint)src * l->rblock, l->rcount, l->rtype, src, 0, l->comm,
                     req);
}

/* Guarantees: the k-th send (k = 0 .. P-2, to rank - 1 - k) posted into *req, counted. */
static int post_send(const linear_call *l, int k, MPI_Request *req, a2a_stats *stats)
{
    int dst = (l->rank - 1 - k + l->size) % l->size;
    a2a_count_send(stats, 1, l->block_bytes);
    a2a_count_rounds(stats, 1);
    return MPI_Isend(l->sbuf + (MPI_Aint)dst * l->sblock, l->scount, l->stype, dst, 0, l->comm,
                     req);
}

/* Guarantees: the MPI_Alltoall result. The local block is exchanged first (a Sendrecv
 * with itself); then receives are posted from rank + 1, rank + 2, ... and sends to
 * rank - 1, rank - 2, ..., at most w = min(block_count, P - 1) of each outstanding: each
 * completed receive (send) is replaced at once by the next receive (send), until all
 * P - 1 of each are done. block_count >= P - 1 posts everything at once, which is Open
 * MPI's basic linear exchange and its linear_sync with the default
 * coll_tuned_alltoall_algorithm_max_requests = 0. MPI_ERR_ARG for block_count outside
 * [1, P]. Any datatypes (handed to MPI as they are); MPI_ERR_COMM for an
 * intercommunicator. */
int A2A_Alltoall_linear_sync(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                             int rcount, MPI_Datatype rtype, MPI_Comm comm, int block_count,
                             a2a_stats *stats)
{
    int rank, size, err;
    if ((err = a2a_kernel_prologue(comm, stype, rtype, &rank, &size)) != MPI_SUCCESS)
        return err;
    if (block_count < 1 || block_count > size)
        return MPI_ERR_ARG;
    MPI_Aint lb, sext, rext;
    MPI_Type_get_extent(stype, &lb, &sext);
    MPI_Type_get_extent(rtype, &lb, &rext);
    int ssize;
    MPI_Type_size(stype, &ssize);
    /* kernel traffic never meets the application's */
    const linear_call l = { sbuf, rbuf, scount, rcount, rank, size, stype, rtype,
                            sext * scount, rext * rcount, (long long)scount * ssize,
                            a2a_private_comm(comm) };

    err = MPI_Sendrecv(l.sbuf + (MPI_Aint)rank * l.sblock, scount, stype, rank, 0,
                       l.rbuf + (MPI_Aint)rank * l.rblock, rcount, rtype, rank, 0, l.comm,
                       MPI_STATUS_IGNORE);
    if (err != MPI_SUCCESS || size == 1)
        return err;

    const int peers = size - 1;
    const int window = block_count < peers ? block_count : peers;
    /* slots [0, window) hold receives, [window, 2 * window) sends */
    MPI_Request *reqs = malloc(2 * (size_t)window * sizeof *reqs);
    if (!reqs)
        return MPI_ERR_NO_MEM;
    a2a_count_temp(stats, 2 * (long long)window * (long long)sizeof *reqs);
    int recvs = 0, sends = 0;
    for (int slot = 0; slot < window && err == MPI_SUCCESS; slot++)
        err = post_recv(&l, recvs++, &reqs[slot]);
    for (int slot = 0; slot < window && err == MPI_SUCCESS; slot++)
        err = post_send(&l, sends++, &reqs[window + slot], stats);
    if (err == MPI_SUCCESS && window == peers)
        err = MPI_Waitall(2 * window, reqs, MPI_STATUSES_IGNORE);
    else
        for (int done = 0; done < 2 * peers && err == MPI_SUCCESS; done++) {
            int slot;
            err = MPI_Waitany(2 * window, reqs, &slot, MPI_STATUS_IGNORE);
            if (err != MPI_SUCCESS || slot == MPI_UNDEFINED)
                break;
            if (slot < window && recvs < peers)
                err = post_recv(&l, recvs++, &reqs[slot]);
            else if (slot >= window && sends < peers)
                err = post_send(&l, sends++, &reqs[slot], stats);
        }
    free(reqs);
    return err;
}
