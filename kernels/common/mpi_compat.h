/* mpi_compat.h — MPI calls SimGrid 3.32's SMPI lacks or restricts, as the kernels need
 * them (internal to liba2a).
 *
 * Every other build maps each helper to the MPI call itself, so real MPI libraries run the
 * algorithms unchanged. The SimGrid build (A2A_SIMGRID) substitutes:
 *  - matched probes: SMPI aborts in MPI_Mprobe, MPI_Improbe and MPI_Mrecv ("Not yet
 *    implemented"). The substitute probes with MPI_Probe / MPI_Iprobe and then receives
 *    with MPI_Recv from the probed source with the probed tag. That receives the probed
 *    message: SMPI runs every rank as one actor (a cooperative thread of one process, one
 *    actor per rank), so no other receive of this rank can be posted between the probe
 *    and the receive, and MPI's non-overtaking order makes a receive naming the source and
 *    tag match the earliest such message, which is the one the probe saw (a wildcard probe
 *    sees the earliest matching message, and an earlier one from the same source with the
 *    same tag would have been seen first). Matched probes exist for ranks with several
 *    threads receiving at once; no rank does that here.
 *  - MPI_Ibarrier: SMPI 3.32's can complete on a rank before every rank has entered it
 *    (measured here at P = 3: MPI_Test reported it done on rank 2 while rank 1 never
 *    entered it), which ends NBX with messages unreceived. The substitute is a dissemination
 *    barrier of zero-byte MPI_Isend / MPI_Irecv with the caller's tag, ceil(log2 P)
 *    rounds, advanced by a2a_barrier_test.
 *  - MPI_Sendrecv_replace of 0 elements: SMPI asserts a non-zero count. The substitute
 *    exchanges the two empty messages with MPI_Sendrecv (same peers, tags, communicator
 *    and matching; there is no data to replace). */
#ifndef A2A_MPI_COMPAT_H
#define A2A_MPI_COMPAT_H

#include <mpi.h>

/* A probed message waiting to be received (a2a_probe / a2a_iprobe, then a2a_recv_probed). */
typedef struct a2a_probed {
    MPI_Status status;   /* the probe's status: source, tag, count */
    MPI_Comm comm;       /* SimGrid: received with MPI_Recv(status.MPI_SOURCE, status.MPI_TAG) */
    MPI_Message message; /* otherwise: received with MPI_Mrecv */
} a2a_probed;

/* Guarantees: blocks until a message from `source` with `tag` on comm has arrived and
 * claims it in *probed (MPI_Mprobe semantics); an MPI error code. */
int a2a_probe(int source, int tag, MPI_Comm comm, a2a_probed *probed);

/* Guarantees: *flag = 1 and the message claimed in *probed when one from `source` with
 * `tag` has arrived, else *flag = 0 (MPI_Improbe semantics); an MPI error code. */
int a2a_iprobe(int source, int tag, MPI_Comm comm, int *flag, a2a_probed *probed);

/* Guarantees: the message claimed in *probed received into buf (count elements of type at
 * most; MPI_Mrecv semantics); an MPI error code. */
int a2a_recv_probed(void *buf, int count, MPI_Datatype type, a2a_probed *probed);

/* A non-blocking barrier in progress (a2a_ibarrier, then a2a_barrier_test). */
typedef struct a2a_barrier {
    MPI_Request requests[2]; /* otherwise: requests[0] is the MPI_Ibarrier */
    MPI_Comm comm;           /* SimGrid: the dissemination barrier's state */
    int tag, rank, size, distance;
} a2a_barrier;

/* Guarantees: this rank has entered a non-blocking barrier over comm (MPI_Ibarrier
 * semantics). SimGrid: its messages carry `tag`, which no other message on comm may use
 * while the barrier runs; other builds ignore tag. An MPI error code. */
int a2a_ibarrier(MPI_Comm comm, int tag, a2a_barrier *barrier);

/* Guarantees: *done = 1 once every rank of the communicator has entered the barrier
 * (MPI_Test semantics; after that the barrier holds no request), else *done = 0; an MPI
 * error code. */
int a2a_barrier_test(a2a_barrier *barrier, int *done);

/* Guarantees: MPI_Sendrecv_replace(buf, count, type, peer, tag, peer, tag, comm), also for
 * count = 0 under SimGrid; an MPI error code. */
int a2a_sendrecv_replace(void *buf, int count, MPI_Datatype type, int peer, int tag,
                         MPI_Comm comm);

#endif
