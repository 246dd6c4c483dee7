/* personalized.c — the personalized SDDE (Algorithm 1 of Bienz et al.): an
 * MPI_Allreduce tells every rank how many messages it will receive, then non-blocking
 * sends and as many matched-probe receives from any source. */
#include "sdde_internal.h"

/* Guarantees: every message of sends[0..n) with a peer other than this rank is sent
 * (MPI_Isend, `tag`), and every message sent to this rank with `tag` is appended to
 * got (bytes in pool). When expected < 0, the number to receive is this rank's entry of
 * the MPI_Allreduce (sum) over all ranks of a P-entry vector counting each rank's
 * destinations; otherwise exactly `expected` messages are received. */
int sdde_exchange_personalized(sdde_call *call, const sdde_msg *sends, int n, int expected,
                               int tag, sdde_list *got, sdde_pool *pool)
{
    int err = MPI_SUCCESS;
    if (expected < 0) {
        size_t vector_bytes = (size_t)call->size * sizeof(int);
        int *incoming = sdde_calloc(call, vector_bytes);
        if (!incoming)
            return MPI_ERR_NO_MEM;
        for (int i = 0; i < n; i++)
            if (sends[i].peer != call->rank)
                incoming[sends[i].peer] += 1;
        err = MPI_Allreduce(MPI_IN_PLACE, incoming, call->size, MPI_INT, MPI_SUM, call->comm);
        expected = incoming[call->rank];
        sdde_free(call, incoming, vector_bytes);
        if (err != MPI_SUCCESS)
            return err;
    }
    size_t request_bytes = (size_t)n * sizeof(MPI_Request);
    MPI_Request *requests = sdde_alloc(call, request_bytes);
    if (!requests)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++)
        requests[i] = MPI_REQUEST_NULL;
    int posted = 0;
    for (int i = 0; i < n && err == MPI_SUCCESS; i++)
        if (sends[i].peer != call->rank)
            err = MPI_Isend(sends[i].data, sends[i].bytes, MPI_BYTE, sends[i].peer, tag,
                            call->comm, &requests[posted++]);
    for (int k = 0; k < expected && err == MPI_SUCCESS; k++) {
        a2a_probed probed;
        err = a2a_probe(MPI_ANY_SOURCE, tag, call->comm, &probed);
        if (err == MPI_SUCCESS)
            err = sdde_receive_matched(call, &probed, got, pool);
    }
    int wait_err = MPI_Waitall(posted, requests, MPI_STATUSES_IGNORE);
    sdde_free(call, requests, request_bytes);
    return err != MPI_SUCCESS ? err : wait_err;
}

/* Guarantees: the personalized SDDE of the call's messages into call->got. */
int sdde_personalized(sdde_call *call)
{
    return sdde_direct(call, sdde_exchange_personalized, SDDE_ALG_PERSONALIZED);
}

/* Guarantees: see a2a_sdde.h. */
int A2A_Alltoall_crs_personalized(int send_nnz, const int *dest, int sendcount,
                                  MPI_Datatype sendtype, const void *sendvals, int *recv_nnz,
                                  int **src, int recvcount, MPI_Datatype recvtype,
                                  void **recvvals, MPI_Comm comm, a2a_stats *stats)
{
    return sdde_run_constant(sdde_personalized, 0, send_nnz, dest, sendcount, sendtype,
                             sendvals, recv_nnz, src, recvcount, recvtype, recvvals, comm,
                             stats);
}

/* Guarantees: see a2a_sdde.h. */
int A2A_Alltoallv_crs_personalized(int send_nnz, int send_size, const int *dest,
                                   const int *sendcounts, const int *sdispls,
                                   MPI_Datatype sendtype, const void *sendvals, int *recv_nnz,
                                   int *recv_size, int **src, int **recvcounts, int **rdispls,
                                   MPI_Datatype recvtype, void **recvvals, MPI_Comm comm,
                                   a2a_stats *stats)
{
    return sdde_run_variable(sdde_personalized, 0, send_nnz, send_size, dest, sendcounts,
                             sdispls, sendtype, sendvals, recv_nnz, recv_size, src,
                             recvcounts, rdispls, recvtype, recvvals, comm, stats);
}
