/* pairwise_body.h — the one body of the uniform pairwise exchanges (internal). */
#ifndef A2A_PAIRWISE_BODY_H
#define A2A_PAIRWISE_BODY_H

#include "kernel_util.h"

/* How the partners of round i are chosen. */
typedef enum a2a_pairing {
    A2A_PAIRING_SHIFT, /* send to rank + i, receive from rank - i */
    A2A_PAIRING_XOR    /* send to and receive from rank XOR i (P a power of two only) */
} a2a_pairing;

/* Guarantees, for a communicator checked by a2a_kernel_prologue (rank and size given):
 * the MPI_Alltoall result after P blocking MPI_Sendrecv rounds, round 0 being the local
 * block and round i exchanging with the partners `pairing` gives. The types are handed to
 * MPI as they are; traffic runs on the private twin of comm. Counts P - 1 rounds and
 * messages in stats. */
int a2a_pairwise_rounds(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                        int rcount, MPI_Datatype rtype, MPI_Comm comm, int rank, int size,
                        a2a_pairing pairing, a2a_stats *stats);

#endif
