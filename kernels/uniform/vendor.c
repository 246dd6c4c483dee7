/* vendor.c — the MPI library's own MPI_Alltoall, the baseline of the uniform family, and
 * the same with one of the library's algorithms forced (vendor_algorithm). */
#include "a2a.h"
#include "vendor_force.h"

/* Guarantees: exactly MPI_Alltoall; stats are left untouched (the library's internals
 * are not observable). */
int A2A_Alltoall_vendor(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                        int rcount, MPI_Datatype rtype, MPI_Comm comm, a2a_stats *stats)
{
    (void)stats;
    return MPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
}

/* Guarantees: MPI_Alltoall run by the library's algorithm `algorithm` (a2a_tuned.h); at
 * 0 exactly A2A_Alltoall_vendor. stats are left untouched. */
int A2A_Alltoall_vendor_algorithm(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                                  int rcount, MPI_Datatype rtype, MPI_Comm comm, int algorithm,
                                  a2a_stats *stats)
{
    if (algorithm == 0)
        return A2A_Alltoall_vendor(sbuf, scount, stype, rbuf, rcount, rtype, comm, stats);
    a2a_vendor_forcing f;
    int rc = a2a_vendor_force_begin(comm, 0, algorithm, &f);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = MPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, f.comm);
    int undo = a2a_vendor_force_end(&f);
    return rc != MPI_SUCCESS ? rc : undo;
}
