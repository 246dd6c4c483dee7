/* vendor_v.c — the MPI library's own MPI_Alltoallv, the baseline of the non-uniform family,
 * and the same with one of the library's algorithms forced (vendor_algorithm). */
#include "kernel_util.h"
#include "vendor_force.h"

/* Guarantees: exactly MPI_Alltoallv; stats are left untouched. */
int A2A_Alltoallv_vendor(A2A_V_PARAMS, a2a_stats *stats)
{
    (void)stats;
    return MPI_Alltoallv(A2A_V_ARGS);
}

/* Guarantees: MPI_Alltoallv run by the library's algorithm `algorithm` (a2a_tuned.h); at
 * 0 exactly A2A_Alltoallv_vendor. stats are left untouched. */
int A2A_Alltoallv_vendor_algorithm(A2A_V_PARAMS, int algorithm, a2a_stats *stats)
{
    if (algorithm == 0)
        return A2A_Alltoallv_vendor(A2A_V_ARGS, stats);
    a2a_vendor_forcing f;
    int rc = a2a_vendor_force_begin(comm, 1, algorithm, &f);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = MPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, f.comm);
    int undo = a2a_vendor_force_end(&f);
    return rc != MPI_SUCCESS ? rc : undo;
}
