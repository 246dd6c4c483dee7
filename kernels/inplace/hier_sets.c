/* hier_sets.c — the hierarchical sets algorithm, HSA (Hofmann and Rünger, Fig. 4), with
 * blocking MPI_Sendrecv_replace exchanges and no extra memory. */
#include "hsa_schedule.h"
#include "kernel_util.h"
#include "mpi_compat.h"

/* Guarantees: the symmetric in-place exchange in HSA order (hsa_schedule.h), one blocking
 * MPI_Sendrecv_replace per partner. rounds = T(p) (p - 1 for powers of two, at most
 * p + ceil(log2 p) - 2) on every rank; temp_bytes stays 0. */
int A2A_Alltoallv_inplace_hier_sets(void *buf, const int *counts, const int *displs,
                                    MPI_Datatype type, MPI_Comm comm, a2a_stats *stats)
{
    int rank, p;
    MPI_Aint size;
    int err = a2a_inplace_prologue(&comm, type, &rank, &p, &size);
    if (err != MPI_SUCCESS)
        goto fn_fail;
    char *base = buf;
    a2a_hsa_iter it;
    a2a_hsa_begin(&it, p, rank);
    for (int j; (j = a2a_hsa_next(&it)) >= 0;) {
        err = a2a_sendrecv_replace(base + (MPI_Aint)displs[j] * size, counts[j], type, j, 0, comm);
        if (err != MPI_SUCCESS)
            goto fn_fail;
        a2a_count_send(stats, 1, (long long)counts[j] * size);
    }
    a2a_count_rounds(stats, a2a_hsa_steps(p));
fn_exit:
    return err;
fn_fail:
    goto fn_exit;
}
