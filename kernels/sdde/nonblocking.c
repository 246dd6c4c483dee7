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
    MPI_Request *requests;
    size_t request_bytes;
    int posted;
    int err = sdde_post_sends(call, sends, n, tag, 1, &requests, &request_bytes, &posted);
    if (!requests)
        return err;
    if (expected >= 0) {
        if (err == MPI_SUCCESS)
            err = sdde_receive_expected(call, expected, tag, got, pool);
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
    return sdde_complete_sends(call, requests, request_bytes, posted, err);
}

/* Guarantees: the NBX SDDE of the call's messages into call->got. */
int sdde_nonblocking(sdde_call *call)
{
    return sdde_direct(call, sdde_exchange_nonblocking, SDDE_ALG_NONBLOCKING);
}

/* Guarantees: see a2a_sdde.h (the constant- and variable-size entry points). */
SDDE_DEFINE_ENTRY_POINTS(nonblocking, sdde_nonblocking, SDDE_WITHOUT_REGION, 0)
