/* mpich_throttle.h — MPICH's scattered batch size, shared by its alltoall and alltoallv
 * selections (internal). */
#ifndef A2A_MPICH_THROTTLE_H
#define A2A_MPICH_THROTTLE_H

#include "a2a.h"

/* Guarantees: the peers of one scattered batch at communicator size P:
 * A2A_MPICH_ALLTOALL_THROTTLE, or all P when it is 0 (MPICH's meaning) or above P. */
static inline int a2a_mpich_throttle(int P)
{
    return A2A_MPICH_ALLTOALL_THROTTLE == 0 || A2A_MPICH_ALLTOALL_THROTTLE > P
               ? P
               : A2A_MPICH_ALLTOALL_THROTTLE;
}

#endif
