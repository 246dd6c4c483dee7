/* ranks: 5 */
/*
 * test_world_comm.c — kernels called on MPI_COMM_WORLD itself (and on a duplicate of it),
 * as an application or the preload library calls them, rather than on the harness's split
 * communicators.
 *
 *   mpirun -n N ./test_world_comm          (also under SimGrid: smpirun -np N)
 *
 * Each kernel runs three times on MPI_COMM_WORLD (the first call makes the private
 * duplicate, the later ones find it in the cache), then once on a user duplicate of
 * MPI_COMM_WORLD; every receive buffer, poisoned first, must equal MPI_Alltoall(v)'s byte
 * for byte and every call return MPI_SUCCESS. Under SimGrid's SMPI all ranks share one
 * MPI_COMM_WORLD object and its attributes: a cache holding one duplicate per
 * communicator hands rank 0's duplicate to every rank (tuna and twophase_bruck then fail).
 * One line per failure and a summary line; exit status 0 only if everything passed.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "a2a.h"

enum { KERNELS = 7 };
static const char *const names[KERNELS] = { "tra r=2", "tra r=P", "bruck", "tuna r=2 b=1",
                                            "tuna r=3 b=2", "twophase_bruck",
                                            "tuna_coalesced ppn=1" };

/* Bytes rank `from` sends to rank `to`: non-uniform, some blocks empty. */
static int block_bytes(int from, int to)
{
    return (from * 7 + to * 3) % 5 == 0 ? 0 : 1 + (from * 13 + to * 5) % 40;
}

static unsigned char payload(int from, int to, int i)
{
    return (unsigned char)(from * 31 + to * 17 + i * 7 + 1);
}

/* One call of kernel k on comm; uniform kernels move 24-byte blocks. */
static int call(int k, MPI_Comm comm, const unsigned char *s, const int *sc, const int *sd,
                unsigned char *r, const int *rc, const int *rd, const unsigned char *us,
                unsigned char *ur, int P)
{
    int rmax = P < 2 ? 2 : P;
    switch (k) {
    case 0: return A2A_Alltoall_tra(us, 24, MPI_BYTE, ur, 24, MPI_BYTE, comm, 2, NULL);
    case 1: return A2A_Alltoall_tra(us, 24, MPI_BYTE, ur, 24, MPI_BYTE, comm, rmax, NULL);
    case 2: return A2A_Alltoall_bruck(us, 24, MPI_BYTE, ur, 24, MPI_BYTE, comm, NULL);
    case 3:
        return A2A_Alltoallv_tuna(s, sc, sd, MPI_BYTE, r, rc, rd, MPI_BYTE, comm, 2, 1, NULL);
    case 4:
        return A2A_Alltoallv_tuna(s, sc, sd, MPI_BYTE, r, rc, rd, MPI_BYTE, comm,
                                  P < 3 ? rmax : 3, P < 3 ? 1 : 2, NULL);
    case 5:
        return A2A_Alltoallv_twophase_bruck(s, sc, sd, MPI_BYTE, r, rc, rd, MPI_BYTE, comm, NULL);
    default:
        return A2A_Alltoallv_tuna_coalesced(s, sc, sd, MPI_BYTE, r, rc, rd, MPI_BYTE, comm, 2, 1,
                                            1, NULL);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    int *sc = malloc((size_t)P * sizeof *sc), *sd = malloc((size_t)P * sizeof *sd);
    int *rc = malloc((size_t)P * sizeof *rc), *rd = malloc((size_t)P * sizeof *rd);
    int stot = 0, rtot = 0;
    for (int j = 0; j < P; j++) {
        sc[j] = block_bytes(rank, j);
        rc[j] = block_bytes(j, rank);
        sd[j] = stot;
        rd[j] = rtot;
        stot += sc[j];
        rtot += rc[j];
    }
    unsigned char *s = malloc((size_t)stot + 1), *r = malloc((size_t)rtot + 1);
    unsigned char *want = malloc((size_t)rtot + 1);
    unsigned char *us = malloc((size_t)P * 24), *ur = malloc((size_t)P * 24);
    unsigned char *uwant = malloc((size_t)P * 24);
    for (int j = 0; j < P; j++) {
        for (int i = 0; i < sc[j]; i++)
            s[sd[j] + i] = payload(rank, j, i);
        for (int i = 0; i < 24; i++)
            us[j * 24 + i] = payload(rank, j, i + 100);
    }
    MPI_Alltoallv(s, sc, sd, MPI_BYTE, want, rc, rd, MPI_BYTE, MPI_COMM_WORLD);
    MPI_Alltoall(us, 24, MPI_BYTE, uwant, 24, MPI_BYTE, MPI_COMM_WORLD);

    MPI_Comm user_dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &user_dup);
    int failures = 0, checks = 0;
    for (int k = 0; k < KERNELS; k++) {
        for (int round = 0; round < 4; round++) {
            MPI_Comm comm = round < 3 ? MPI_COMM_WORLD : user_dup;
            memset(r, 0xA5, (size_t)rtot + 1);
            memset(ur, 0xA5, (size_t)P * 24);
            int rc_call = call(k, comm, s, sc, sd, r, rc, rd, us, ur, P);
            int uniform = k < 3;
            int bad = rc_call != MPI_SUCCESS ||
                      (uniform ? memcmp(ur, uwant, (size_t)P * 24) != 0
                               : memcmp(r, want, (size_t)rtot) != 0);
            int any = 0;
            MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            checks++;
            if (any) {
                failures++;
                if (bad)
                    printf("FAIL rank %d: %s on %s (call %d): %s\n", rank, names[k],
                           round < 3 ? "MPI_COMM_WORLD" : "a duplicate of it", round + 1,
                           rc_call != MPI_SUCCESS ? "MPI error" : "receive buffer differs");
            }
        }
    }
    MPI_Comm_free(&user_dup);
    if (rank == 0)
        printf("test_world_comm: P = %d: %d of %d checks passed\n", P, checks - failures, checks);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(s);
    free(r);
    free(want);
    free(us);
    free(ur);
    free(uwant);
    MPI_Finalize();
    return failures ? 1 : 0;
}
