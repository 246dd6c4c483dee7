/* linear_shift.c — the linear shift algorithm, LSA (Hofmann and Rünger, Fig. 3): p
 * iterations, in iteration i the partner is (i - rank) mod p. */
#include "partner_walk.h"

/* Where one rank stands in the LSA iterations. */
typedef struct lsa_walk {
    int i, p, rank;
} lsa_walk;

/* Guarantees: the walk starts at iteration 0. */
static void lsa_begin(void *walk, int p, int rank)
{
    lsa_walk *w = walk;
    w->i = 0;
    w->p = p;
    w->rank = rank;
}

/* Guarantees: the partner (i - rank + p) mod p of the next iteration i whose partner is
 * not the rank itself, or -1 after iteration p - 1. */
static int lsa_next(void *walk)
{
    lsa_walk *w = walk;
    while (w->i < w->p) {
        int j = (w->i++ - w->rank + w->p) % w->p;
        if (j != w->rank)
            return j;
    }
    return -1;
}

/* Guarantees: p for p >= 3, 1 for p = 2 (its iteration 0 is idle everywhere), 0 for p = 1. */
static long long lsa_rounds(int p)
{
    return p >= 3 ? p : p - 1;
}

/* Guarantees: the symmetric in-place exchange in at most p steps. In iteration
 * i = 0..p-1 the rank swaps block j = (i - rank + p) mod p with rank j by
 * MPI_Sendrecv_replace unless j == rank; rank j computes the same iteration for this pair
 * ((i - j) mod p == rank), so the pair meets in step i + 1. rounds = p for p >= 3, 1 for
 * p = 2 (its iteration 0 is idle everywhere), 0 for p = 1; temp_bytes stays 0. */
int A2A_Alltoallv_inplace_linear_shift(void *buf, const int *counts, const int *displs,
                                       MPI_Datatype type, MPI_Comm comm, a2a_stats *stats)
{
    static const a2a_partner_order order = { lsa_begin, lsa_next, lsa_rounds };
    lsa_walk walk;
    return a2a_inplace_partner_walk(buf, counts, displs, type, comm, stats, &order, &walk);
}
