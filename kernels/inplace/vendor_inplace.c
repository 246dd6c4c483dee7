/* vendor_inplace.c — the MPI library's own in-place MPI_Alltoallv, the baseline of the
 * in-place symmetric family. */
#include <stddef.h>

#include "a2a.h"

/* Guarantees: exactly MPI_Alltoallv(MPI_IN_PLACE, ...) on buf; stats are left untouched. */
int A2A_Alltoallv_inplace_vendor(void *buf, const int *counts, const int *displs,
                                 MPI_Datatype type, MPI_Comm comm, a2a_stats *stats)
{
    (void)stats;
    return MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, buf, counts, displs,
                         type, comm);
}
