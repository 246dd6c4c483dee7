/*
 * online_candidates.h — the candidates the online tuner (online*.c) explores for a call
 * shape: one rule, which online_state.c runs and `a2atune candidates` prints, so what a
 * user or an analysis is shown is exactly what the library tries.
 */
#ifndef A2A_ONLINE_CANDIDATES_H
#define A2A_ONLINE_CANDIDATES_H

#include "a2a_registry.h"

#define A2A_ONLINE_MAX_CANDIDATES 8

/* One candidate: a kernel of the registry and its parameters (the MPI library's own
 * algorithm is the baseline kernel with every parameter 0). */
typedef struct a2a_online_candidate {
    const a2a_kernel *kernel;
    int params[A2A_PARAM_COUNT];
} a2a_online_candidate;

/* The candidates for alltoall (alltoallv 0) or alltoallv (1) at communicator size P and
 * block size S bytes (alltoallv: the largest block; the rule sees the lower end of S's
 * bucket, 0, 1, 2..3, 4..7, ..., so every S of an online shape gets one list), the MPI library's own algorithm
 * first, each valid at P as the tuning file's path checks it (a2a_params_valid; kernels
 * needing node groups or shared buffers left out), none twice; at most `max`. Returns how
 * many were written to out. */
int a2a_online_candidates(int alltoallv, int P, long long S, a2a_online_candidate *out, int max);

#endif
