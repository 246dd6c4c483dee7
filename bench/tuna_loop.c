/* tuna_loop.c — the per-call cost of TuNA's round machinery at small blocks, where one
 * call lasts a few hundred nanoseconds: a per-iteration sample (as a2atune records) is
 * then a handful of clock ticks, so ratios near 1 are quantised. Here each sample is
 * `calls` back-to-back calls on MPI_COMM_WORLD divided by `calls` (the max over ranks),
 * kernel and floor alternate sample by sample, and the median of `samples` is printed:
 *   tuna at radix P against spread_out, tuna at radix 2 against twophase_bruck.
 *   mpirun -n 2 --bind-to core build/openmpi/bench/tuna_loop [S ...]   (make bench-loop)
 * Every call's result is checked once against the expected bytes. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "a2a.h"

enum { KERNELS = 4, SAMPLES = 15, CALLS = 20000 };
static const char *const names[KERNELS] = { "tuna r=P", "spread_out", "tuna r=2",
                                            "twophase_bruck" };

/* Guarantees: one call of kernel k (0..3) on the uniform layout; returns its MPI error. */
static int call(int k, const char *s, const int *c, const int *d, char *r, int P)
{
    switch (k) {
    case 0:
        return A2A_Alltoallv_tuna(s, c, d, MPI_BYTE, r, c, d, MPI_BYTE, MPI_COMM_WORLD, P > 2 ? P : 2,
                                  1, NULL);
    case 1:
        return A2A_Alltoallv_spread_out(s, c, d, MPI_BYTE, r, c, d, MPI_BYTE, MPI_COMM_WORLD, NULL);
    case 2:
        return A2A_Alltoallv_tuna(s, c, d, MPI_BYTE, r, c, d, MPI_BYTE, MPI_COMM_WORLD, 2, 1, NULL);
    default:
        return A2A_Alltoallv_twophase_bruck(s, c, d, MPI_BYTE, r, c, d, MPI_BYTE, MPI_COMM_WORLD,
                                            NULL);
    }
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int P, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("# P = %d, %d calls per sample, median of %d samples (max over ranks), ns per call\n"
               "| S | tuna r=P | spread_out | ratio | tuna r=2 | twophase_bruck | ratio |\n"
               "|---|---|---|---|---|---|---|\n", P, CALLS, SAMPLES);
    const char *const defaults[] = { "16", "64", "256", "1024", "4096" };
    int nsizes = argc > 1 ? argc - 1 : 5;
    for (int z = 0; z < nsizes; z++) {
        int S = atoi(argc > 1 ? argv[z + 1] : defaults[z]);
        if (S < 0 || S > (1 << 20)) {
            if (rank == 0)
                fprintf(stderr, "tuna_loop: block size %s outside 0..1048576\n", argv[z + 1]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        int *c = malloc((size_t)P * sizeof *c), *d = malloc((size_t)P * sizeof *d);
        char *s = malloc((size_t)P * S + 1), *r = malloc((size_t)P * S + 1);
        for (int i = 0; i < P; i++)
            c[i] = S, d[i] = i * S;
        for (long i = 0; i < (long)P * S; i++)
            s[i] = (char)(rank * 31 + i / (S ? S : 1) * 7 + i);
        double t[KERNELS][SAMPLES];
        for (int k = 0; k < KERNELS; k++) { /* warm-up and check */
            memset(r, 0x5a, (size_t)P * S + 1);
            int bad = call(k, s, c, d, r, P) != MPI_SUCCESS;
            for (int src = 0; src < P && !bad; src++)
                for (int b = 0; b < S && !bad; b++)
                    bad = r[(long)src * S + b] != (char)(src * 31 + (long)rank * 7 + (long)rank * S + b);
            if (bad) {
                fprintf(stderr, "tuna_loop: %s gave a wrong result at S = %d\n", names[k], S);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        }
        for (int j = 0; j < SAMPLES; j++)
            for (int k = 0; k < KERNELS; k++) {
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                for (int i = 0; i < CALLS; i++)
                    call(k, s, c, d, r, P);
                double mine = (MPI_Wtime() - t0) / CALLS;
                MPI_Allreduce(&mine, &t[k][j], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            }
        double med[KERNELS];
        for (int k = 0; k < KERNELS; k++) {
            qsort(t[k], SAMPLES, sizeof t[k][0], by_value);
            med[k] = t[k][SAMPLES / 2] * 1e9;
        }
        if (rank == 0)
            printf("| %d | %.1f | %.1f | %.3f | %.1f | %.1f | %.3f |\n", S, med[0], med[1],
                   med[0] / med[1], med[2], med[3], med[2] / med[3]);
        free(c), free(d), free(s), free(r);
    }
    MPI_Finalize();
    return 0;
}
