/* private_comm.h — the communicator liba2a's kernels communicate on (internal).
 *
 * MPI's own collectives run in a context of their own, so they never match the
 * application's point-to-point messages. liba2a's kernels are built from point-to-point
 * and RMA calls with fixed tags; on the user's communicator a pending
 * MPI_Irecv(MPI_ANY_SOURCE, MPI_ANY_TAG) of the application could take their messages
 * (and they could take the application's). Every kernel therefore communicates on a
 * private duplicate of the communicator it is given, made on the first call and cached
 * on the communicator.
 *
 * Threads: like an MPI collective, a kernel on a given communicator is called from one
 * thread per process at a time; calls on different communicators may come from different
 * threads only with MPI_THREAD_MULTIPLE (the keyvals are created exactly once, by
 * pthread_once).
 */
#ifndef A2A_PRIVATE_COMM_H
#define A2A_PRIVATE_COMM_H

#include <mpi.h>

/* Guarantees: the communicator a kernel called on `comm` communicates on: a duplicate of
 * comm (same group, same rank order, same error handler) that only liba2a uses. The first
 * call on comm is collective over comm (MPI_Comm_dup); later calls only look up the
 * attribute that caches the duplicate on comm. The duplicate is freed when the
 * application frees comm (for communicators still alive at MPI_Finalize, MPI releases it).
 * A private communicator maps to itself (a kernel calling another kernel does not
 * duplicate again). MPI_COMM_NULL, or any MPI error while duplicating, gives comm back
 * unchanged: the kernel then reports the error of its own calls as it did before. */
MPI_Comm a2a_private_comm(MPI_Comm comm);

#endif
