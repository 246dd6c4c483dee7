/* ompi_tuned_selection.c — MPI_Alltoall as Open MPI 4.1's coll/tuned fixed decision
 * selects it, run on liba2a's kernels. The decision is the table of
 * ompi_coll_tuned_alltoall_intra_dec_fixed (ompi/mca/coll/tuned/coll_tuned_decision_fixed.c,
 * the UTK-measured table that Open MPI 4.1 introduced), transcribed as data below: one row
 * per communicator-size class, each a list of per-block byte bounds (strict "<") and the
 * algorithm below each bound. */
#include <limits.h>

#include "kernel_util.h"

/* Open MPI's alltoall algorithm numbers (coll_tuned_alltoall_algorithm). */
enum { OMPI_LINEAR = 1, OMPI_PAIRWISE = 2, OMPI_MODIFIED_BRUCK = 3, OMPI_LINEAR_SYNC = 4,
       OMPI_TWO_PROC = 5 };

#define ANY LLONG_MAX
typedef struct ompi_step {
    long long below; /* per-block bytes strictly below this */
    int algorithm;
} ompi_step;
typedef struct ompi_row {
    int below_p;     /* communicator sizes strictly below this (the row of P = 2 is "== 2") */
    ompi_step steps[11];
} ompi_row;

static const ompi_row ompi_rows[] = {
    { 3, { { 2, 2 }, { 4, 5 }, { 16, 2 }, { 64, 5 }, { 256, 2 }, { 4096, 5 }, { 32768, 2 },
           { 262144, 4 }, { 1048576, 5 }, { ANY, 2 } } },
    { 8, { { 8192, 4 }, { 16384, 1 }, { 65536, 4 }, { 524288, 1 }, { 1048576, 2 }, { ANY, 1 } } },
    { 16, { { 262144, 4 }, { ANY, 1 } } },
    { 32, { { 4, 4 }, { 512, 3 }, { 8192, 4 }, { 32768, 1 }, { 262144, 4 }, { 524288, 1 },
            { ANY, 4 } } },
    { 64, { { 512, 3 }, { 524288, 1 }, { ANY, 4 } } },
    { 128, { { 1024, 3 }, { 2048, 1 }, { 4096, 4 }, { 262144, 1 }, { ANY, 2 } } },
    { 256, { { 1024, 3 }, { 2048, 4 }, { 262144, 1 }, { ANY, 2 } } },
    { 512, { { 1024, 3 }, { 8192, 4 }, { 32768, 1 }, { ANY, 2 } } },
    { 1024, { { 512, 3 }, { 8192, 4 }, { 16384, 1 }, { 131072, 4 }, { 262144, 1 }, { ANY, 2 } } },
    { 2048, { { 512, 3 }, { 1024, 4 }, { 2048, 1 }, { 16384, 4 }, { 262144, 1 }, { ANY, 4 } } },
    { 4096, { { 1024, 3 }, { 4096, 4 }, { 8192, 1 }, { 131072, 4 }, { ANY, 1 } } },
    { INT_MAX, { { 2048, 3 }, { 8192, 4 }, { 16384, 1 }, { 32768, 4 }, { 65536, 1 },
                 { ANY, 4 } } },
};

/* Guarantees: Open MPI's algorithm number for (P, block_bytes): the row of P (P = 2 has
 * its own row; P = 1 falls in the P < 8 row, as in Open MPI's test order), then the first
 * step whose bound exceeds block_bytes. */
static int ompi_algorithm(int P, long long block_bytes)
{
    const int rows = (int)(sizeof ompi_rows / sizeof ompi_rows[0]);
    int r = P == 2 ? 0 : 1;
    while (r < rows - 1 && P >= ompi_rows[r].below_p)
        r++;
    const ompi_step *step = ompi_rows[r].steps;
    while (block_bytes >= step->below)
        step++;
    return step->algorithm;
}

/* linear_sync's window: coll_tuned_alltoall_algorithm_max_requests, 0 (or more than the
 * P - 1 peers) meaning every request at once. */
static int ompi_window(int P)
{
    return A2A_OMPI_ALLTOALL_MAX_REQUESTS <= 0 || A2A_OMPI_ALLTOALL_MAX_REQUESTS > P
               ? P
               : A2A_OMPI_ALLTOALL_MAX_REQUESTS;
}

/* Guarantees: Open MPI's algorithm for (P, block_bytes), named, with the liba2a kernel
 * that runs it: linear = linear_sync with every request posted (block_count P), pairwise
 * = pairwise (Open MPI pairs rank + i / rank - i, as liba2a's pairwise does),
 * modified_bruck = bruck (radix 2, the same rounds), linear_sync = linear_sync with the
 * max_requests window, two_proc = pairwise (at P = 2: one exchange). */
a2a_vendor_choice A2A_Alltoall_ompi_tuned_selection_choice(int P, long long block_bytes)
{
    switch (ompi_algorithm(P, block_bytes)) {
    case OMPI_LINEAR: return (a2a_vendor_choice){ "linear", "linear_sync", P > 0 ? P : 1 };
    case OMPI_PAIRWISE: return (a2a_vendor_choice){ "pairwise", "pairwise", 0 };
    case OMPI_MODIFIED_BRUCK: return (a2a_vendor_choice){ "modified_bruck", "bruck", 0 };
    case OMPI_TWO_PROC: return (a2a_vendor_choice){ "two_proc", "pairwise", 0 };
    default:
        return (a2a_vendor_choice){ "linear_sync", "linear_sync", ompi_window(P > 0 ? P : 1) };
    }
}

/* Guarantees: the MPI_Alltoall result, by the kernel
 * A2A_Alltoall_ompi_tuned_selection_choice names for this P and the bytes of one block
 * (scount * size of stype: every rank of a correct call takes the same branch). The
 * chosen kernel's own checks and stats apply. MPI_ERR_COMM for an intercommunicator. */
int A2A_Alltoall_ompi_tuned_selection(const void *sbuf, int scount, MPI_Datatype stype,
                                      void *rbuf, int rcount, MPI_Datatype rtype,
                                      MPI_Comm comm, a2a_stats *stats)
{
    int rank, size, err, type_bytes;
    if ((err = a2a_kernel_prologue(comm, stype, rtype, &rank, &size)) != MPI_SUCCESS)
        return err;
    MPI_Type_size(stype, &type_bytes);
    switch (ompi_algorithm(size, (long long)scount * type_bytes)) {
    case OMPI_MODIFIED_BRUCK:
        return A2A_Alltoall_bruck(sbuf, scount, stype, rbuf, rcount, rtype, comm, stats);
    case OMPI_PAIRWISE:
    case OMPI_TWO_PROC:
        return A2A_Alltoall_pairwise(sbuf, scount, stype, rbuf, rcount, rtype, comm, stats);
    case OMPI_LINEAR:
        return A2A_Alltoall_linear_sync(sbuf, scount, stype, rbuf, rcount, rtype, comm, size,
                                        stats);
    default:
        return A2A_Alltoall_linear_sync(sbuf, scount, stype, rbuf, rcount, rtype, comm,
                                        ompi_window(size), stats);
    }
}
