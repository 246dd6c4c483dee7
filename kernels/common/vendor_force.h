/* vendor_force.h — forcing the MPI library's own all-to-all algorithm (inside liba2a). */
#ifndef A2A_VENDOR_FORCE_H
#define A2A_VENDOR_FORCE_H

#include "a2a.h"

/* One forced call: the communicator to call the collective on, and what to undo after. */
typedef struct a2a_vendor_forcing {
    MPI_Comm comm;    /* run the MPI collective on this communicator */
    int restore;      /* MPICH: 1 if a cvar must be restored after the call */
    int cvar;         /* MPICH: which one (0 alltoall, 1 alltoallv) */
    int saved;        /* MPICH: its value before the call */
} a2a_vendor_forcing;

/* Prepares a call of MPI_Alltoall (alltoallv = 0) or MPI_Alltoallv (1) on comm with the
 * library's algorithm `algorithm` > 0 forced; call the collective on f->comm, then
 * a2a_vendor_force_end. Collective over comm (Open MPI may duplicate comm once per
 * algorithm). Returns MPI_SUCCESS, MPI_ERR_ARG (no such algorithm, or not at this P) or
 * MPI_ERR_UNSUPPORTED_OPERATION (the library cannot be forced; rank 0 says why, once). */
int a2a_vendor_force_begin(MPI_Comm comm, int alltoallv, int algorithm, a2a_vendor_forcing *f);

/* Undoes what a2a_vendor_force_begin changed for the call. */
int a2a_vendor_force_end(a2a_vendor_forcing *f);

#endif
