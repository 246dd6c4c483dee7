/* vendor_v.c — the MPI library's own MPI_Alltoallv, the baseline of the non-uniform family. */
#include "a2a.h"

/* Guarantees: exactly MPI_Alltoallv; stats are left untouched. */
int A2A_Alltoallv_vendor(const void *sbuf, const int *scounts, const int *sdispls,
                         MPI_Datatype stype, void *rbuf, const int *rcounts,
                         const int *rdispls, MPI_Datatype rtype, MPI_Comm comm,
                         a2a_stats *stats)
{
    (void)stats;
    return MPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
}
