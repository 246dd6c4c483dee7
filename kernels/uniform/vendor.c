/* vendor.c — the MPI library's own MPI_Alltoall, the baseline of the uniform family. */
#include "a2a.h"

/* Guarantees: exactly MPI_Alltoall; stats are left untouched (the library's internals
 * are not observable). */
int A2A_Alltoall_vendor(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                        int rcount, MPI_Datatype rtype, MPI_Comm comm, a2a_stats *stats)
{
    (void)stats;
    return MPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
}
