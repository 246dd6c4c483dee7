/* linear_shift.c — the linear shift algorithm, LSA (Hofmann and Rünger, Fig. 3): p
 * iterations, in iteration i the partner is (i - rank) mod p. */
#include "kernel_util.h"
#include "mpi_compat.h"

/* Guarantees: the symmetric in-place exchange in at most p steps. In iteration
 * i = 0..p-1 the rank swaps block j = (i - rank + p) mod p with rank j by
 * MPI_Sendrecv_replace unless j == rank; rank j computes the same iteration for this pair
 * ((i - j) mod p == rank), so the pair meets in step i + 1. rounds = p for p >= 3, 1 for
 * p = 2 (its iteration 0 is idle everywhere), 0 for p = 1; temp_bytes stays 0. */
int A2A_Alltoallv_inplace_linear_shift(void *buf, const int *counts, const int *displs,
                                       MPI_Datatype type, MPI_Comm comm, a2a_stats *stats)
{
    int rank, p;
    MPI_Aint size;
    int err = a2a_inplace_prologue(&comm, type, &rank, &p, &size);
    if (err != MPI_SUCCESS)
        goto fn_fail;
    char *base = buf;
    for (int i = 0; i < p; i++) {
        int j = (i - rank + p) % p;
        if (j == rank)
            continue;
        err = a2a_sendrecv_replace(base + (MPI_Aint)displs[j] * size, counts[j], type, j, 0, comm);
        if (err != MPI_SUCCESS)
            goto fn_fail;
        a2a_count_send(stats, 1, (long long)counts[j] * size);
    }
    a2a_count_rounds(stats, p >= 3 ? p : p - 1);
fn_exit:
    return err;
fn_fail:
    goto fn_exit;
}
