/* mpich_order.c — MPICH's in-place symmetric alltoallv order (Hofmann and Rünger, Fig. 1):
 * a double loop over all pairs (i, j >= i), one blocking MPI_Sendrecv_replace each. */
#include "kernel_util.h"
#include "mpi_compat.h"

/* Guarantees: the symmetric in-place exchange. Every rank walks the pairs (i, j),
 * 0 <= i <= j < p, in loop order and exchanges block j with rank j when it is i, block i
 * with rank i when it is j; the self pair is skipped (the own block stays in place).
 * rounds = 2p - 3 for p >= 2 (0 for p = 1) on every rank; temp_bytes stays 0. */
int A2A_Alltoallv_inplace_mpich_order(void *buf, const int *counts, const int *displs,
                                      MPI_Datatype type, MPI_Comm comm, a2a_stats *stats)
{
    int rank, p;
    MPI_Aint size;
    int err = a2a_inplace_prologue(&comm, type, &rank, &p, &size);
    if (err != MPI_SUCCESS)
        goto fn_fail;
    char *base = buf;
    for (int i = 0; i < p; i++) {
        for (int j = i; j < p; j++) {
            int peer;
            if (i == j)
                continue;
            if (rank == i)
                peer = j;
            else if (rank == j)
                peer = i;
            else
                continue;
            err = a2a_sendrecv_replace(base + (MPI_Aint)displs[peer] * size, counts[peer],
                                       type, peer, 0, comm);
            if (err != MPI_SUCCESS)
                goto fn_fail;
            a2a_count_send(stats, 1, (long long)counts[peer] * size);
        }
    }
    a2a_count_rounds(stats, p >= 2 ? 2LL * p - 3 : 0);
fn_exit:
    return err;
fn_fail:
    goto fn_exit;
}
