/* rma.c — the RMA constant-size SDDE (Algorithm 3 of Bienz et al., as in CELLAR): every
 * rank exposes one slot per possible sender and puts its messages into its own slot at
 * each destination between two fences. */
#include <string.h>

#include "sdde_internal.h"

/* Guarantees: call->got holds every message sent to this rank (constant size only).
 * Window: P slots of (1 + message bytes), slot s = [presence byte][payload from rank s],
 * zeroed, created with MPI_Win_create over memory this kernel allocated (MPI_Win_allocate
 * misplaces puts in MPICH 4.0.2 unless sizes are multiples of 16). Each message goes as
 * ONE put of its staged slot image (presence byte 1, then the payload) into slot `rank`
 * of the destination, between MPI_Win_fence(NOPRECEDE) and MPI_Win_fence(NOSUCCEED). A
 * sender is recognised by its presence byte alone, so messages with all-zero or empty
 * payloads arrive like any other. Self-messages are not put but copied. On a
 * communicator of one rank every message is a self-message and no window is made (Open
 * MPI 4.1 cannot create a window there: MPI_Win_create fails with MPI_ERR_WIN). */
int sdde_rma(sdde_call *call)
{
    if (call->msg_bytes < 0)
        return MPI_ERR_ARG;
    size_t slot = 1 + (size_t)call->msg_bytes;
    size_t window_bytes = slot * (size_t)call->size;
    size_t stage_bytes = slot * (size_t)call->nsend;
    int err;
    sdde_pool *pool = &call->pool[0];
    size_t offset;
    if ((err = sdde_pool_reserve(call, pool, window_bytes, &offset)) != MPI_SUCCESS)
        return err;
    memset(pool->data, 0, window_bytes);
    unsigned char *stage = sdde_alloc(call, stage_bytes);
    if (!stage)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < call->nsend; i++) {
        const sdde_msg *m = &call->sends[i];
        if (m->peer == call->rank) {
            if ((err = sdde_list_push(call, &call->got, m)) != MPI_SUCCESS)
                break;
            continue;
        }
        stage[(size_t)i * slot] = 1;
        if (m->bytes)
            memcpy(stage + (size_t)i * slot + 1, m->data, (size_t)m->bytes);
    }
    MPI_Win win = MPI_WIN_NULL;
    if (err == MPI_SUCCESS && call->size > 1)
        err = MPI_Win_create(pool->data, (MPI_Aint)window_bytes, 1, MPI_INFO_NULL, call->comm,
                             &win);
    if (err == MPI_SUCCESS && win != MPI_WIN_NULL)
        err = MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    for (int i = 0; i < call->nsend && err == MPI_SUCCESS; i++) {
        const sdde_msg *m = &call->sends[i];
        if (m->peer == call->rank)
            continue;
        err = MPI_Put(stage + (size_t)i * slot, (int)slot, MPI_BYTE, m->peer,
                      (MPI_Aint)((size_t)call->rank * slot), (int)slot, MPI_BYTE, win);
        sdde_count_message(call, 1, m->bytes, 0, 1);
    }
    if (err == MPI_SUCCESS && win != MPI_WIN_NULL)
        err = MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    if (win != MPI_WIN_NULL) {
        int free_err = MPI_Win_free(&win);
        if (err == MPI_SUCCESS)
            err = free_err;
    }
    sdde_free(call, stage, stage_bytes);
    for (int s = 0; s < call->size && err == MPI_SUCCESS; s++) {
        const unsigned char *cell = pool->data + (size_t)s * slot;
        if (s == call->rank || !cell[0])
            continue;
        sdde_msg m = { s, call->msg_bytes, cell + 1, 0, 0 };
        err = sdde_list_push(call, &call->got, &m);
    }
    return err;
}

/* Guarantees: see a2a_sdde.h. */
int A2A_Alltoall_crs_rma(int send_nnz, const int *dest, int sendcount, MPI_Datatype sendtype,
                         const void *sendvals, int *recv_nnz, int **src, int recvcount,
                         MPI_Datatype recvtype, void **recvvals, MPI_Comm comm,
                         a2a_stats *stats)
{
    return sdde_run_constant(sdde_rma, 0, send_nnz, dest, sendcount, sendtype, sendvals,
                             recv_nnz, src, recvcount, recvtype, recvvals, comm, stats);
}
