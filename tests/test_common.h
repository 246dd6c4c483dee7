/* test_common.h — what the MPI test programs share: the largest process count from the
 * command line and the communicator of the first P world ranks, one P after another. */
#ifndef A2A_TEST_COMMON_H
#define A2A_TEST_COMMON_H

#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "polite.h"

/* Guarantees: MPI initialised (MPI_Init with argc, argv), *world_rank set; returns the
 * size of MPI_COMM_WORLD. */
static inline int test_init(int *argc, char ***argv, int *world_rank)
{
    int world_size;
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    return world_size;
}

/* Guarantees: one check added to *run and, when it failed, to *failed with the line
 * "FAIL what" printed and flushed. */
static inline void test_count_check(long long *run, long long *failed, int ok, const char *what)
{
    ++*run;
    if (!ok) {
        ++*failed;
        printf("FAIL %s\n", what);
        fflush(stdout);
    }
}

/* Guarantees: argv[1] as a number of ranks when it is given and lies in [1, world_size],
 * else world_size. */
static inline int test_max_ranks(int argc, char **argv, int world_size)
{
    int max_P = argc > 1 ? atoi(argv[1]) : world_size;
    return max_P < 1 || max_P > world_size ? world_size : max_P;
}

/* Guarantees: on world ranks below P a new communicator of those P ranks in world order
 * (collective on MPI_COMM_WORLD); on the others MPI_COMM_NULL, returned once they have
 * passed polite_barrier(MPI_COMM_WORLD), the barrier that the members reach when they are
 * done with this P (test_done_ranks). */
static inline MPI_Comm test_first_ranks(int P, int world_rank)
{
    MPI_Comm comm;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank < P ? 0 : MPI_UNDEFINED, world_rank, &comm);
    if (comm == MPI_COMM_NULL)
        polite_barrier(MPI_COMM_WORLD);
    return comm;
}

/* Guarantees: the communicator of test_first_ranks freed, then the polite barrier on
 * MPI_COMM_WORLD that the other ranks wait in. */
static inline void test_done_ranks(MPI_Comm *comm)
{
    MPI_Comm_free(comm);
    polite_barrier(MPI_COMM_WORLD);
}

/* Guarantees: on world rank 0 the line "P=P done (run checks, failed failed, T s)" printed
 * and flushed, T the seconds since start (MPI_Wtime); nothing on the other ranks. */
static inline void test_print_done(int world_rank, int P, long long run, long long failed,
                                   double start)
{
    if (world_rank != 0)
        return;
    printf("P=%d done (%lld checks, %lld failed, %.1f s)\n", P, run, failed,
           MPI_Wtime() - start);
    fflush(stdout);
}

/* Guarantees: world rank 0's failed on every rank (collective on MPI_COMM_WORLD). */
static inline long long test_failed_everywhere(long long failed)
{
    MPI_Bcast(&failed, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    return failed;
}

#endif
