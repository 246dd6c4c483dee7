/* reference.c — the SDDE reference for tests and the benchmark runner: the dense
 * pattern with MPI_Alltoall, the payloads with MPI_Alltoallv. */
#include <limits.h>

#include "sdde_internal.h"

/* Guarantees: call->got holds every message sent to this rank. Each rank tells every
 * rank, with MPI_Alltoall, the bytes it sends there or -1 for no message (so empty
 * messages are still messages), then MPI_Alltoallv moves the payloads in MPI_BYTE
 * straight from the send buffer. Stats count one message per destination other than
 * the rank, as the plain algorithms do. */
int sdde_reference(sdde_call *call)
{
    int P = call->size, err = MPI_SUCCESS;
    size_t vector_bytes = 6 * (size_t)P * sizeof(int);
    int *v = sdde_alloc(call, vector_bytes);
    if (!v)
        return MPI_ERR_NO_MEM;
    int *out = v, *in = v + P, *scounts = v + 2 * P, *sdispls = v + 3 * P,
        *rcounts = v + 4 * P, *rdispls = v + 5 * P;
    for (int p = 0; p < P; p++) {
        out[p] = -1;
        scounts[p] = sdispls[p] = 0;
    }
    for (int i = 0; i < call->nsend && err == MPI_SUCCESS; i++) {
        const sdde_msg *m = &call->sends[i];
        long long displ = m->bytes ? (long long)(m->data - call->send_base) : 0;
        if (displ > INT_MAX)
            err = MPI_ERR_COUNT;
        out[m->peer] = scounts[m->peer] = m->bytes;
        sdispls[m->peer] = (int)displ;
        if (m->peer != call->rank)
            sdde_count_message(call, 1, m->bytes, 0, 1);
    }
    if (err == MPI_SUCCESS)
        err = MPI_Alltoall(out, 1, MPI_INT, in, 1, MPI_INT, call->comm);
    long long total = 0;
    for (int p = 0; p < P && err == MPI_SUCCESS; p++) {
        rcounts[p] = in[p] > 0 ? in[p] : 0;
        rdispls[p] = (int)total;
        total += rcounts[p];
        if (total > INT_MAX)
            err = MPI_ERR_COUNT;
    }
    size_t offset = 0;
    if (err == MPI_SUCCESS)
        err = sdde_pool_reserve(call, &call->pool[0], (size_t)total, &offset);
    if (err == MPI_SUCCESS)
        err = MPI_Alltoallv(call->send_base, scounts, sdispls, MPI_BYTE, call->pool[0].data,
                            rcounts, rdispls, MPI_BYTE, call->comm);
    for (int p = 0; p < P && err == MPI_SUCCESS; p++)
        if (in[p] >= 0) {
            sdde_msg m = { p, in[p], NULL, offset + (size_t)rdispls[p], 1 };
            err = sdde_list_push(call, &call->got, &m);
        }
    sdde_resolve(&call->got, 0, &call->pool[0]);
    sdde_free(call, v, vector_bytes);
    return err;
}

/* Guarantees: see a2a_sdde.h (the constant- and variable-size entry points). */
SDDE_DEFINE_ENTRY_POINTS(reference, sdde_reference, SDDE_WITHOUT_REGION, 0)
