/* pairwise_body.c — P rounds of MPI_Sendrecv with one partner each (see pairwise_body.h). */
#include "pairwise_body.h"
#include "private_comm.h"

/* Guarantees: see pairwise_body.h. */
int a2a_pairwise_rounds(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                        int rcount, MPI_Datatype rtype, MPI_Comm comm, int rank, int size,
                        a2a_pairing pairing, a2a_stats *stats)
{
    comm = a2a_private_comm(comm); /* kernel traffic never meets the application's */
    const a2a_type_units u = a2a_type_units_of(stype, rtype);
    for (int i = 0; i < size; i++) {
        int dst = pairing == A2A_PAIRING_XOR ? rank ^ i : (rank + i) % size;
        int src = pairing == A2A_PAIRING_XOR ? rank ^ i : (rank - i + size) % size;
        int err = MPI_Sendrecv((const char *)sbuf + (MPI_Aint)dst * scount * u.sextent, scount,
                               stype, dst, 0, (char *)rbuf + (MPI_Aint)src * rcount * u.rextent,
                               rcount, rtype, src, 0, comm, MPI_STATUS_IGNORE);
        if (err != MPI_SUCCESS)
            return err;
        if (i > 0) {
            a2a_count_send(stats, 1, (long long)scount * u.ssize);
            a2a_count_rounds(stats, 1);
        }
    }
    return MPI_SUCCESS;
}
