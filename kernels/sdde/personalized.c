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
    MPI_Request *requests;
    size_t request_bytes;
    int posted;
    err = sdde_post_sends(call, sends, n, tag, 0, &requests, &request_bytes, &posted);
    if (!requests)
        return err;
    if (err == MPI_SUCCESS)
        err = sdde_receive_expected(call, expected, tag, got, pool);
    return sdde_complete_sends(call, requests, request_bytes, posted, err);
}

/* Guarantees: the personalized SDDE of the call's messages into call->got. */
int sdde_personalized(sdde_call *call)
{
    return sdde_direct(call, sdde_exchange_personalized, SDDE_ALG_PERSONALIZED);
}

/* Guarantees: see a2a_sdde.h (the constant- and variable-size entry points). */
SDDE_DEFINE_ENTRY_POINTS(personalized, sdde_personalized, SDDE_WITHOUT_REGION, 0)
