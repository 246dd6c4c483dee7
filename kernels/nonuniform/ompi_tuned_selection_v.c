/* ompi_tuned_selection_v.c — MPI_Alltoallv as Open MPI 4.1's coll/tuned fixed decision
 * selects it (ompi_coll_tuned_alltoallv_intra_dec_fixed,
 * ompi/mca/coll/tuned/coll_tuned_decision_fixed.c: by communicator size only), run on
 * liba2a's linear and pairwise alltoallv kernels, which follow Open MPI's own. */
#include "kernel_util.h"

/* Guarantees: 1 where Open MPI picks pairwise: P < 4, 64 <= P < 128 and
 * 256 <= P < 1024 (its table, communicator sizes strictly below each bound); 0 where it
 * picks basic linear. */
static int ompi_v_pairwise(int P)
{
    return P < 4 || (P >= 64 && P < 128) || (P >= 256 && P < 1024);
}

/* Guarantees: Open MPI's alltoallv algorithm at P, named, with the liba2a kernel. */
a2a_vendor_choice A2A_Alltoallv_ompi_tuned_selection_choice(int P)
{
    return ompi_v_pairwise(P) ? (a2a_vendor_choice){ "pairwise", "pairwise", 0 }
                    : (a2a_vendor_choice){ "basic_linear", "linear", 0 };
}

/* Guarantees: the MPI_Alltoallv result, by the kernel
 * A2A_Alltoallv_ompi_tuned_selection_choice names for P (every rank alike). The chosen
 * kernel's own checks and stats apply; MPI_ERR_COMM for an intercommunicator. */
int A2A_Alltoallv_ompi_tuned_selection(A2A_V_PARAMS, a2a_stats *stats)
{
    int rank, size, err;
    if ((err = a2a_kernel_prologue(comm, stype, rtype, &rank, &size)) != MPI_SUCCESS)
        return err;
    if (ompi_v_pairwise(size))
        return A2A_Alltoallv_pairwise(A2A_V_ARGS, stats);
    return A2A_Alltoallv_linear(A2A_V_ARGS, stats);
}
