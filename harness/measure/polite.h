/* polite.h — waiting without spinning, for the harness's own synchronisation.
 *
 * Some MPI libraries (MPICH with UCX) busy-poll inside blocking calls; with more ranks
 * than cores, idle ranks spinning in a barrier steal the cores the measured ranks need.
 * The harness therefore waits for its own collectives by testing and sleeping. Timed
 * regions never use these. */
#ifndef A2A_POLITE_H
#define A2A_POLITE_H

#include <mpi.h>

/* Completes req, sleeping between tests (backing off up to about 0.1 ms). */
void polite_wait(MPI_Request *req);

/* MPI_Barrier over comm, completed with polite_wait. */
void polite_barrier(MPI_Comm comm);

/* MPI_Barrier over comm for a rank with nothing to do until every rank arrives (a rank
 * outside the sub-communicator being measured): its sleeps grow to about 10 ms, so that
 * while it waits it takes no measurable CPU time from the ranks being timed. */
void idle_barrier(MPI_Comm comm);

/* MPI_Allreduce over comm, completed with polite_wait. */
void polite_allreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op,
                      MPI_Comm comm);

#endif
