/* spread_out.c — spread-out all-to-all: every request posted at once, round-robin. */
#include "kernel_util.h"
#include "scattered_body.h"

/* Guarantees: the MPI_Alltoall result. Spread-out is the scattered algorithm with a
 * single batch of all P peers: receive from rank-i and send to rank+i, i = 0..P-1, so
 * every process has a distinct peer in each position of the order. */
int A2A_Alltoall_spread_out(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                            int rcount, MPI_Datatype rtype, MPI_Comm comm, a2a_stats *stats)
{
    int rank, size, err;
    if ((err = a2a_kernel_prologue(comm, stype, rtype, &rank, &size)) != MPI_SUCCESS)
        return err;
    const a2a_side send = { .buf = (void *)sbuf, .type = stype, .count = scount };
    const a2a_side recv = { .buf = rbuf, .type = rtype, .count = rcount };
    return a2a_scattered_sides(&send, &recv, comm, rank, size, size, stats);
}
