/* hier_sets_aux.c — the hierarchical sets algorithm with an auxiliary buffer of at most
 * aux_bytes (Hofmann and Rünger, section 3.4).
 *
 * Exchanges are taken in HSA order. When the outgoing block fits the free part of the
 * auxiliary buffer, it is copied there and the exchange is started with MPI_Irecv into
 * the block and MPI_Isend from the copy; otherwise it is done at once with
 * MPI_Sendrecv_replace. Each rank decides alone: a non-blocking exchange matches a
 * blocking one on the other side. No deadlock: a rank only blocks in a
 * MPI_Sendrecv_replace whose partner is either already in it or still busy with
 * exchanges of earlier steps of the HSA schedule, which complete by induction on the
 * step; the started non-blocking exchanges progress meanwhile and are completed at the
 * end. Space in the auxiliary buffer is not reused within a call, so the buffer is sized
 * by a first pass over the schedule to exactly the bytes the copies need. An empty
 * exchange always fits, so it is non-blocking even with aux_bytes = 0. */
#include <stdlib.h>
#include <string.h>

#include "hsa_schedule.h"
#include "kernel_util.h"
#include "mpi_compat.h"

/* Guarantees: the bytes of the auxiliary buffer the copies need (first fit in HSA order
 * within aux_bytes) and, in *nonblocking, how many exchanges are done non-blocking. */
static long long plan_aux(int p, int rank, const int *counts, MPI_Aint size,
                          long long aux_bytes, int *nonblocking)
{
    long long used = 0;
    int n = 0;
    a2a_hsa_iter it;
    a2a_hsa_begin(&it, p, rank);
    for (int j; (j = a2a_hsa_next(&it)) >= 0;) {
        long long bytes = (long long)counts[j] * size;
        if (bytes <= aux_bytes - used) {
            used += bytes;
            n++;
        }
    }
    *nonblocking = n;
    return used;
}

/* Guarantees: the symmetric in-place exchange in HSA order; exchanges whose outgoing block
 * fits the free auxiliary space are non-blocking from a copy, the rest blocking; every
 * request is complete and every allocation freed on return. temp_bytes = the auxiliary
 * bytes allocated (<= aux_bytes; 0 if the allocation failed and HSA ran instead);
 * rounds = T(p). MPI_ERR_ARG if aux_bytes < 0. */
int A2A_Alltoallv_inplace_hier_sets_aux(void *buf, const int *counts, const int *displs,
                                        MPI_Datatype type, MPI_Comm comm,
                                        long long aux_bytes, a2a_stats *stats)
{
    char *aux = NULL;
    MPI_Request *reqs = NULL;
    int nreqs = 0, rank, p;
    MPI_Aint size;
    int err = aux_bytes < 0 ? MPI_ERR_ARG : a2a_inplace_prologue(&comm, type, &rank, &p, &size);
    if (err != MPI_SUCCESS)
        goto fn_fail;

    int nonblocking;
    long long need = plan_aux(p, rank, counts, size, aux_bytes, &nonblocking);
    if (nonblocking > 0) {
        reqs = malloc(2 * (size_t)nonblocking * sizeof *reqs);
        aux = need > 0 ? malloc((size_t)need) : NULL;
        if (!reqs || (need > 0 && !aux)) { /* no memory: the plain HSA needs none */
            free(reqs);
            free(aux);
            reqs = NULL;
            aux = NULL;
            need = 0;
            aux_bytes = 0;
            nonblocking = 0;
        }
    }
    a2a_count_temp(stats, need);

    char *base = buf;
    long long used = 0;
    a2a_hsa_iter it;
    a2a_hsa_begin(&it, p, rank);
    for (int j; (j = a2a_hsa_next(&it)) >= 0;) {
        char *block = base + (MPI_Aint)displs[j] * size;
        long long bytes = (long long)counts[j] * size;
        if (nonblocking > 0 && bytes <= aux_bytes - used) {
            char *copy = bytes > 0 ? aux + used : block; /* an empty copy: any address */
            if (bytes > 0)
                memcpy(copy, block, (size_t)bytes);
            used += bytes;
            err = MPI_Irecv(block, counts[j], type, j, 0, comm, &reqs[nreqs]);
            if (err != MPI_SUCCESS)
                goto fn_fail;
            nreqs++;
            err = MPI_Isend(copy, counts[j], type, j, 0, comm, &reqs[nreqs]);
            if (err != MPI_SUCCESS)
                goto fn_fail;
            nreqs++;
        } else {
            err = a2a_sendrecv_replace(block, counts[j], type, j, 0, comm);
            if (err != MPI_SUCCESS)
                goto fn_fail;
        }
        a2a_count_send(stats, 1, bytes);
    }
    err = nreqs > 0 ? MPI_Waitall(nreqs, reqs, MPI_STATUSES_IGNORE) : MPI_SUCCESS;
    nreqs = 0; /* completed, or their error is err */
    if (err != MPI_SUCCESS)
        goto fn_fail;
    a2a_count_rounds(stats, a2a_hsa_steps(p));
fn_exit:
    free(reqs);
    free(aux);
    return err;
fn_fail:
    if (nreqs > 0) /* the exchanges started before the error complete first */
        MPI_Waitall(nreqs, reqs, MPI_STATUSES_IGNORE);
    goto fn_exit;
}
