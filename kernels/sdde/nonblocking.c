/* nonblocking.c — the non-blocking SDDE, NBX (Algorithm 2 of Bienz et al., from Hoefler,
 * Siebert and Lumsdaine): synchronous sends, a probe loop, and a non-blocking barrier
 * entered once this rank's sends have been received. */
#include "sdde_internal.h"

/* Guarantees: every message of sends[0..n) with a peer other than this rank is sent
 * (MPI_Issend, `tag`), and every message sent to this rank with `tag` by any rank in
 * this exchange is appended to got (bytes in pool). Termination when expected < 0: a
 * rank enters MPI_Ibarrier once its synchronous sends completed, i.e. were matched; the
 * barrier completes only when every rank's sends were matched, so no message for this
 * exchange can still be outstanding. A rank that sees the barrier complete may start
 * the next call while others still poll; its messages carry the next call's tag. The
 * barrier is a2a_ibarrier (MPI_Ibarrier; under SimGrid a dissemination barrier whose
 * messages carry tag | 3, the unused phase 3 of sdde_tag, see mpi_compat.h). With
 * expected >= 0 the loop ends after `expected` receives and the
 * completion of the own sends. */
int sdde_exchange_nonblocking(sdde_call *call, const sdde_msg *sends, int n, int expected,
                              int tag, sdde_list *got, sdde_pool *pool)
{
    int err = MPI_SUCCESS;
    size_t request_bytes = (size_t)n * sizeof(MPI_Request);
    MPI_Request *requests = sdde_alloc(call, request_bytes);
    if (!requests)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++)
        requests[i] = MPI_REQUEST_NULL;
    int posted = 0;
    for (int i = 0; i < n && err == MPI_SUCCESS; i++)
        if (sends[i].peer != call->rank)
            err = MPI_Issend(sends[i].data, sends[i].bytes, MPI_BYTE, sends[i].peer, tag,
                             call->comm, &requests[posted++]);
    if (expected >= 0) {
        for (int k = 0; k < expected && err == MPI_SUCCESS; k++) {
            a2a_probed probed;
            err = a2a_probe(MPI_ANY_SOURCE, tag, call->comm, &probed);
            if (err == MPI_SUCCESS)
                err = sdde_receive_matched(call, &probed, got, pool);
        }
    } else {
        a2a_barrier barrier;
        int in_barrier = 0, done = 0;
        while (!done && err == MPI_SUCCESS) {
            a2a_probed probed;
            int arrived = 0;
            err = a2a_iprobe(MPI_ANY_SOURCE, tag, call->comm, &arrived, &probed);
            if (err == MPI_SUCCESS && arrived)
                err = sdde_receive_matched(call, &probed, got, pool);
            if (err != MPI_SUCCESS)
                break;
            if (in_barrier) {
                err = a2a_barrier_test(&barrier, &done);
            } else {
                int sent = 0;
                err = MPI_Testall(posted, requests, &sent, MPI_STATUSES_IGNORE);
                if (err == MPI_SUCCESS && sent) {
                    err = a2a_ibarrier(call->comm, tag | 3, &barrier);
                    in_barrier = 1;
                }
            }
        }
    }
    int wait_err = MPI_Waitall(posted, requests, MPI_STATUSES_IGNORE);
    sdde_free(call, requests, request_bytes);
    return err != MPI_SUCCESS ? err : wait_err;
}

/* Guarantees: the NBX SDDE of the call's messages into call->got. */
int sdde_nonblocking(sdde_call *call)
{
    return sdde_direct(call, sdde_exchange_nonblocking, SDDE_ALG_NONBLOCKING);
}

/* Guarantees: see a2a_sdde.h. */
int A2A_Alltoall_crs_nonblocking(int send_nnz, const int *dest, int sendcount,
                                 MPI_Datatype sendtype, const void *sendvals, int *recv_nnz,
                                 int **src, int recvcount, MPI_Datatype recvtype,
                                 void **recvvals, MPI_Comm comm, a2a_stats *stats)
{
    return sdde_run_constant(sdde_nonblocking, 0, send_nnz, dest, sendcount, sendtype,
                             sendvals, recv_nnz, src, recvcount, recvtype, recvvals, comm,
                             stats);
}

/* Guarantees: see a2a_sdde.h. */
int A2A_Alltoallv_crs_nonblocking(int send_nnz, int send_size, const int *dest,
                                  const int *sendcounts, const int *sdispls,
                                  MPI_Datatype sendtype, const void *sendvals, int *recv_nnz,
                                  int *recv_size, int **src, int **recvcounts, int **rdispls,
                                  MPI_Datatype recvtype, void **recvvals, MPI_Comm comm,
                                  a2a_stats *stats)
{
    return sdde_run_variable(sdde_nonblocking, 0, send_nnz, send_size, dest, sendcounts,
                             sdispls, sendtype, sendvals, recv_nnz, recv_size, src,
                             recvcounts, rdispls, recvtype, recvvals, comm, stats);
}
