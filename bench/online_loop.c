/* online_loop.c — an application loop for the online tuner's benchmark: CALLS calls of
 * A2A_Alltoall (the tuned dispatcher, linked in: the same path liba2a_preload.so takes,
 * and one that works under SimGrid, where LD_PRELOAD does not apply) with S bytes per
 * block on MPI_COMM_WORLD, then A2A_Tuning_finalize. With `v`, A2A_Alltoallv instead,
 * the block from rank i to rank j of S/2 .. S bytes (fixed per pair, S to itself: the
 * largest block, which names the call's shape, is S). What the dispatcher does comes
 * from the environment: nothing set = the MPI library; A2A_TUNING_FILE = a fixed choice;
 * A2A_TUNING=online (+ A2A_TUNING_OUT / A2A_TUNING_FILE) = online tuning.
 *   mpirun -n P build/openmpi/bench/online_loop S CALLS [v]
 * Prints its result line: S, calls, total_s (the largest over ranks of the sum of its call
 * times: the loop's all-to-all time), median_us, q3_us and mean_us of the per-call max
 * over ranks over the last half of the calls (after any exploration), ok or WRONG (the bytes of every
 * call are checked while P * S <= 64 KiB, else of the first and the last: under SimGrid at
 * P = 256 checking every call would cost more wall time than simulating it). With
 * ONLINE_LOOP_TIMES=PATH, rank 0 also writes every call's max over ranks (us, one a line)
 * there: a benchmark can average the calls after the online tuner's decision. With
 * ONLINE_LOOP_CONNECT=1 every rank first makes one MPI_Alltoall of S bytes a block (the MPI
 * library itself, not the dispatcher, untimed) and an MPI_Barrier: the process's first
 * exchange pays the MPI library's connection setup (tens to hundreds of us on shared
 * memory), the same for every kind of run, which a loop of sub-microsecond calls would
 * otherwise mostly measure. Under
 * A2A_TUNING=online rank 0 then prints `summary: TEXT`, TEXT being
 * A2A_Tuning_summary(MPI_COMM_WORLD) taken after the loop and before A2A_Tuning_finalize
 * (what ran each shape: the winner, the call it runs from and the calls exploring, or a
 * shape still exploring or on its warm-up), so that a benchmark learns the decision without
 * A2A_VERBOSE, whose lines rank 0 prints inside the call that decides (timed); no such line
 * when the summary is empty. Exit 0 when every call checked was right, 1 otherwise, 2 for
 * bad input. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "a2a.h"

/* Guarantees: the byte at offset k of the block sender -> receiver in call c. */
static unsigned char payload(int c, int sender, int receiver, long k)
{
    return (unsigned char)(c * 13 + sender * 131 + receiver * 31 + k * 7 + 1);
}

/* Guarantees: the bytes of the block sender -> receiver: S to itself, else S/2 .. S,
 * the same for every call. */
static long block_bytes(int v, long S, int sender, int receiver)
{
    if (!v || sender == receiver)
        return S;
    return S / 2 + (long)(((unsigned)sender * 2654435761u ^ (unsigned)receiver * 40503u) %
                          (unsigned)(S - S / 2 + 1));
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Guarantees: the loop above; the line printed by rank 0. */
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int P, me;
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int args_ok = argc == 3 || (argc == 4 && strcmp(argv[3], "v") == 0);
    int v = argc == 4;
    long S = args_ok ? atol(argv[1]) : -1, calls = args_ok ? atol(argv[2]) : -1;
    if (S < 0 || S > (1 << 24) || calls < 2) {
        if (me == 0)
            fprintf(stderr, "usage: online_loop S CALLS [v]\n");
        MPI_Finalize();
        return 2;
    }
    unsigned char *sbuf = malloc((size_t)(S * P) + 1), *rbuf = malloc((size_t)(S * P) + 1);
    int *scounts = malloc(sizeof(int) * (size_t)P), *rcounts = malloc(sizeof(int) * (size_t)P);
    int *displs = malloc(sizeof(int) * (size_t)P);
    double *t = malloc(sizeof(double) * (size_t)calls);
    for (int j = 0; j < P; j++) {
        scounts[j] = (int)block_bytes(v, S, me, j);
        rcounts[j] = (int)block_bytes(v, S, j, me);
        displs[j] = (int)(j * S);
    }
    const char *connect = getenv("ONLINE_LOOP_CONNECT");
    if (connect && strcmp(connect, "1") == 0) {
        memset(sbuf, 0, (size_t)(S * P));
        MPI_Alltoall(sbuf, (int)S, MPI_BYTE, rbuf, (int)S, MPI_BYTE, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    int wrong = 0;
    double total = 0;
    int check_all = (long long)P * S <= 65536;
    for (long c = 0; c < calls; c++) {
        int tag = check_all ? (int)(c % 7) : 0, checked = check_all || c == 0 || c == calls - 1;
        for (int j = 0; j < P && (check_all || c == 0); j++)
            for (long k = 0; k < scounts[j]; k++)
                sbuf[j * S + k] = payload(tag, me, j, k);
        if (checked)
            memset(rbuf, 0xa5, (size_t)(S * P));
        double t0 = MPI_Wtime();
        if (v)
            A2A_Alltoallv(sbuf, scounts, displs, MPI_BYTE, rbuf, rcounts, displs, MPI_BYTE,
                          MPI_COMM_WORLD);
        else
            A2A_Alltoall(sbuf, (int)S, MPI_BYTE, rbuf, (int)S, MPI_BYTE, MPI_COMM_WORLD);
        t[c] = MPI_Wtime() - t0;
        total += t[c];
        for (int j = 0; j < P && !wrong && checked; j++)
            for (long k = 0; k < rcounts[j]; k++)
                if (rbuf[j * S + k] != payload(tag, j, me, k)) {
                    wrong = 1;
                    break;
                }
    }
    MPI_Allreduce(MPI_IN_PLACE, t, (int)calls, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    const char *times_path = getenv("ONLINE_LOOP_TIMES");
    FILE *times = me == 0 && times_path ? fopen(times_path, "w") : NULL;
    for (long c = 0; c < calls && times; c++)
        fprintf(times, "%.6g\n", t[c] * 1e6);
    if (times)
        fclose(times);
    long half = calls / 2;
    double tail = 0;
    for (long c = half; c < calls; c++)
        tail += t[c];
    qsort(t + half, (size_t)(calls - half), sizeof *t, compare_doubles);
    if (me == 0)
        printf("S=%ld calls=%ld total_s=%.6g median_us=%.4g q3_us=%.4g mean_us=%.4g %s\n", S,
               calls, total, t[half + (calls - half) / 2] * 1e6,
               t[half + 3 * (calls - half) / 4] * 1e6, tail / (double)(calls - half) * 1e6,
               wrong ? "WRONG" : "ok");
    char summary[4096];
    if (A2A_Tuning_summary(MPI_COMM_WORLD, summary, sizeof summary) > 0 && me == 0)
        printf("summary: %s\n", summary);
    A2A_Tuning_finalize();
    free(sbuf);
    free(rbuf);
    free(t);
    free(scounts);
    free(rcounts);
    free(displs);
    MPI_Finalize();
    return wrong;
}
