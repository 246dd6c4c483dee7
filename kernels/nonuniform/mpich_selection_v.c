/* mpich_selection_v.c — MPI_Alltoallv as MPICH 4 runs it (Cray MPICH derives from it):
 * its selection has a single branch for a separate send buffer on an intracommunicator,
 * MPIR_Alltoallv_intra_scattered (maint/tuning/coll/mpir/generic.json), batched by
 * MPIR_CVAR_ALLTOALL_THROTTLE and posting nothing for an empty block
 * (src/mpi/coll/alltoallv/alltoallv_intra_scattered.c). Constants in a2a.h. */
#include "kernel_util.h"
#include "mpich_throttle.h"
#include "scattered_body.h"

/* Guarantees: scattered at every P, block_count = the throttle at P. */
a2a_vendor_choice A2A_Alltoallv_mpich_selection_choice(int P)
{
    return (a2a_vendor_choice){ "scattered", "scattered", a2a_mpich_throttle(P) };
}

/* Guarantees: the MPI_Alltoallv result by the scattered exchange in batches of
 * A2A_MPICH_ALLTOALL_THROTTLE peers (all P when it is 0 or above P), with no message for
 * a block of 0 bytes. MPICH receives from rank + i and sends to rank - i, liba2a's
 * scattered body the mirror order (from rank - i, to rank + i): the same pattern with the
 * ranks numbered backwards. Any datatypes (handed to MPI as they are); MPI_ERR_COMM for
 * an intercommunicator. */
int A2A_Alltoallv_mpich_selection(A2A_V_PARAMS, a2a_stats *stats)
{
    int rank, size, err;
    if ((err = a2a_kernel_prologue(comm, stype, rtype, &rank, &size)) != MPI_SUCCESS)
        return err;
    return a2a_scattered_v(A2A_V_ARGS, rank, size, a2a_mpich_throttle(size), stats);
}
