/* hier_sets.c — the hierarchical sets algorithm, HSA (Hofmann and Rünger, Fig. 4), with
 * blocking MPI_Sendrecv_replace exchanges and no extra memory. */
#include "hsa_schedule.h"
#include "partner_walk.h"

/* Guarantees: walk (an a2a_hsa_iter) at the start of the rank's HSA schedule. */
static void hsa_walk_begin(void *walk, int p, int rank)
{
    a2a_hsa_begin(walk, p, rank);
}

/* Guarantees: the next partner in HSA order, or -1 (a2a_hsa_next). */
static int hsa_walk_next(void *walk)
{
    return a2a_hsa_next(walk);
}

/* Guarantees: the symmetric in-place exchange in HSA order (hsa_schedule.h), one blocking
 * MPI_Sendrecv_replace per partner. rounds = T(p) (p - 1 for powers of two, at most
 * p + ceil(log2 p) - 2) on every rank; temp_bytes stays 0. */
int A2A_Alltoallv_inplace_hier_sets(void *buf, const int *counts, const int *displs,
                                    MPI_Datatype type, MPI_Comm comm, a2a_stats *stats)
{
    static const a2a_partner_order order = { hsa_walk_begin, hsa_walk_next, a2a_hsa_steps };
    a2a_hsa_iter walk;
    return a2a_inplace_partner_walk(buf, counts, displs, type, comm, stats, &order, &walk);
}
