/* tuna.c — TuNA: tunable-radix non-uniform all-to-all (Algorithm 1 of the TuNA paper).
 *
 * Flat TuNA is the round machinery of tuna_local.c applied to the whole communicator as
 * a single node (q = P): rotation by index, per round (x, z) the sizes of the blocks the
 * receiver cannot know (none at radix P) and one data message, direct delivery into the
 * receive buffer, a temporary buffer of P - K - 1 slots of the largest block, and
 * block_count rounds of one digit in flight.
 */
#include <stdlib.h>

#include "kernel_util.h"
#include "tuna_local.h"
#include "private_comm.h"
#include "v_staging.h"

/* The kernel on run types: see A2A_Alltoallv_tuna below. */
static int tuna_runs(const void *sbuf, const int *scounts, const int *sdispls,
                     void *rbuf, const int *rcounts, const int *rdispls, MPI_Comm comm,
                     const a2a_v_args *args, a2a_stats *stats)
{
    const int size = args->size, radix = args->radix, block_count = args->block_count;
    if (radix < 2 || radix > (size > 2 ? size : 2))
        return MPI_ERR_ARG;
    if (block_count < 1 || block_count > radix - 1)
        return MPI_ERR_ARG;

    comm = a2a_private_comm(comm); /* kernel traffic never meets the application's */
    a2a_tuna_held held;
    int err = a2a_tuna_local(sbuf, scounts, sdispls, args->sbytes, rbuf, rcounts, rdispls,
                             args->rbytes, comm, size, radix, block_count, 0, &held, stats);
    /* With a single node nothing is held for an inter-node phase. */
    free(held.data);
    free(held.sizes);
    return err;
}

/* Guarantees: the MPI_Alltoallv result on comm for any P >= 1, radix in [2, max(2, P)]
 * and block_count in [1, radix - 1] (MPI_ERR_ARG otherwise, before any communication;
 * MPI_ERR_COMM for an intercommunicator; any types, those that are not one ascending run
 * packed through MPI first; MPI_ERR_COUNT as a2a_tuna_local says). Takes exactly the TRA
 * count K(P, radix) of rounds; stats->blocks is the TRA block count D(P, radix) (empty
 * blocks included; a round whose blocks are all empty sends no data message),
 * stats->meta_bytes 4 (D - K): no size travels for the K direct blocks. */
int A2A_Alltoallv_tuna(A2A_V_PARAMS, int radix, int block_count, a2a_stats *stats)
{
    const a2a_v_args args = { .radix = radix, .block_count = block_count };
    return a2a_v_staged(tuna_runs, &args, A2A_V_ARGS, stats);
}
