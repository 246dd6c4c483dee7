/* bruck.c — classic Bruck all-to-all with radix 2: round k sends every block with bit k
 * of its distance set 2^k ranks forward, which is TRA's schedule for r = 2
 * (a2a_radix_rounds, tra.c), with Bruck's own message tag. */
#include "a2a.h"
#include "bruck_util.h"
#include "kernel_util.h"
#include "private_comm.h"

enum { BRUCK_TAG = 0x2a01 };

/* Guarantees: MPI_Alltoall semantics on comm for any P >= 1, in ceil(log2 P) rounds of
 * MPI_Sendrecv (to rank + 2^k, from rank - 2^k); a round of more than
 * a2a_max_message_bytes() is sent as several messages. The receive buffer is the working
 * array, fully written by the rotation before it is read; the temporary memory is two
 * packing buffers of the largest round (at most floor(P/2) blocks each). Any datatypes
 * with matching signatures (a2a_uniform_begin); MPI_ERR_COMM for an intercommunicator. */
int A2A_Alltoall_bruck(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                       int rcount, MPI_Datatype rtype, MPI_Comm comm, a2a_stats *stats)
{
    a2a_byte_call c;
    int err = a2a_uniform_begin(&c, sbuf, scount, stype, rbuf, rcount, rtype, comm, stats);
    if (err != MPI_SUCCESS)
        return err;
    /* kernel traffic never meets the application's */
    err = a2a_radix_rounds(&c, 2, BRUCK_TAG, a2a_private_comm(comm), stats);
    return a2a_uniform_end(&c, err);
}
