/* mpich_order.c — MPICH's in-place symmetric alltoallv order (Hofmann and Rünger, Fig. 1):
 * a double loop over all pairs (i, j >= i), one blocking MPI_Sendrecv_replace each. */
#include "partner_walk.h"

/* Where one rank stands in the double loop over the pairs (i, j). */
typedef struct pair_loop {
    int i, j, p, rank;
} pair_loop;

/* Guarantees: the loop starts at the pair (0, 0). */
static void pair_loop_begin(void *walk, int p, int rank)
{
    pair_loop *w = walk;
    w->i = w->j = 0;
    w->p = p;
    w->rank = rank;
}

/* Guarantees: the partner of the rank in the next pair (i, j), 0 <= i < j < p in loop
 * order, that holds the rank (j when the rank is i, i when it is j), or -1 after the
 * last pair. */
static int pair_loop_next(void *walk)
{
    pair_loop *w = walk;
    while (w->i < w->p) {
        if (w->j >= w->p) {
            w->i++;
            w->j = w->i;
            continue;
        }
        int i = w->i, j = w->j++;
        if (i == j)
            continue;
        if (w->rank == i)
            return j;
        if (w->rank == j)
            return i;
    }
    return -1;
}

/* Guarantees: 2p - 3 for p >= 2, 0 for p = 1. */
static long long pair_loop_rounds(int p)
{
    return p >= 2 ? 2LL * p - 3 : 0;
}

/* Guarantees: the symmetric in-place exchange. Every rank walks the pairs (i, j),
 * 0 <= i <= j < p, in loop order and exchanges block j with rank j when it is i, block i
 * with rank i when it is j; the self pair is skipped (the own block stays in place).
 * rounds = 2p - 3 for p >= 2 (0 for p = 1) on every rank; temp_bytes stays 0. */
int A2A_Alltoallv_inplace_mpich_order(void *buf, const int *counts, const int *displs,
                                      MPI_Datatype type, MPI_Comm comm, a2a_stats *stats)
{
    static const a2a_partner_order order = { pair_loop_begin, pair_loop_next,
                                             pair_loop_rounds };
    pair_loop walk;
    return a2a_inplace_partner_walk(buf, counts, displs, type, comm, stats, &order, &walk);
}
