/* hsa_schedule.h — the exchange order of the hierarchical sets algorithm (HSA, Hofmann
 * and Rünger, Fig. 4), shared by hier_sets.c and hier_sets_aux.c (internal). */
#ifndef A2A_HSA_SCHEDULE_H
#define A2A_HSA_SCHEDULE_H

/* Walks one rank's partners in HSA order without allocating: a2a_hsa_begin, then
 * a2a_hsa_next until it returns -1. The set [low, high) holding the rank is split at
 * mid; n partners remain in the other half, i of them have been returned. */
typedef struct a2a_hsa_iter {
    int rank;
    int low, high, mid;
    int n, i;
} a2a_hsa_iter;

/* Guarantees: it walks the schedule of `rank` in a communicator of p ranks from the start. */
void a2a_hsa_begin(a2a_hsa_iter *it, int p, int rank);

/* Guarantees: the next partner of the rank in HSA order, or -1 once all p - 1 partners
 * (every other rank exactly once) have been returned; -1 again on later calls. */
int a2a_hsa_next(a2a_hsa_iter *it);

/* Guarantees: the number of steps of the HSA schedule for p ranks, T(p) with T(1) = 0,
 * T(m) = ceil(m/2) + T(ceil(m/2)); p - 1 for powers of two, <= p + ceil(log2 p) - 2. */
long long a2a_hsa_steps(int p);

#endif
