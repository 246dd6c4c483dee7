/*
 * force_check.c — vendor_algorithm forcing, end to end (linked with liba2a).
 *
 *   mpirun -n 4 [-x LD_PRELOAD=probe.so] force_check [BYTES]
 *
 * For MPI_Alltoall and MPI_Alltoallv and every algorithm number of this MPI library
 * (0 = its own choice), on MPI_COMM_WORLD and then on a duplicate of it: computes the
 * reference with the plain collective, then rank 0 writes
 *   force: alltoall P=4 vendor_algorithm=2 name=pairwise
 * on stderr right before the forced call, so with tests/preload/probe.so loaded the next
 * "a2a-probe:" line shows what the library ran inside that call. Every forced result must
 * equal the reference byte for byte; numbers the library does not have, and two_proc at
 * P != 2, must be refused with MPI_ERR_ARG. Exit 0 if all holds, 1 otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "a2a.h"

static int failures;

/* Counts a failure and says which (rank 0 of MPI_COMM_WORLD says it for everyone). */
static void expect(int ok, const char *what, int algorithm)
{
    int all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (!all_ok) {
        failures++;
        if (rank == 0)
            fprintf(stderr, "force_check: FAILED: %s, vendor_algorithm %d\n", what, algorithm);
    }
}

/* One collective (alltoallv = 0 or 1) with every algorithm on comm, S bytes per block. */
static void check_all(MPI_Comm comm, int alltoallv, int S)
{
    int P, me;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    size_t n = (size_t)S * P;
    unsigned char *sbuf = malloc(n), *ref = malloc(n), *got = malloc(n);
    int *counts = malloc(sizeof(int) * P), *displs = malloc(sizeof(int) * P);
    for (int j = 0; j < P; j++) {
        counts[j] = alltoallv ? S * ((me + j) % 3) / 2 : S; /* non-uniform, some zero */
        displs[j] = j * S;
    }
    int *rcounts = malloc(sizeof(int) * P);
    MPI_Alltoall(counts, 1, MPI_INT, rcounts, 1, MPI_INT, comm);
    for (size_t k = 0; k < n; k++)
        sbuf[k] = (unsigned char)(me * 37 + k * 11 + alltoallv);
    const char *coll = alltoallv ? "alltoallv" : "alltoall";
    for (int a = 0; a <= 8; a++) {
        const char *name = A2A_Vendor_algorithm_name(alltoallv, a);
        int valid = A2A_Vendor_algorithm_valid(alltoallv, a, P);
        memset(ref, 0x77, n); /* the same poison: bytes outside the blocks must stay */
        memset(got, 0x77, n);
        if (alltoallv)
            MPI_Alltoallv(sbuf, counts, displs, MPI_BYTE, ref, rcounts, displs, MPI_BYTE, comm);
        else
            MPI_Alltoall(sbuf, S, MPI_BYTE, ref, S, MPI_BYTE, comm);
        if (me == 0 && valid)
            fprintf(stderr, "force: %s P=%d vendor_algorithm=%d name=%s\n", coll, P, a, name);
        int rc = alltoallv ? A2A_Alltoallv_vendor_algorithm(sbuf, counts, displs, MPI_BYTE, got,
                                                            rcounts, displs, MPI_BYTE, comm, a, NULL)
                           : A2A_Alltoall_vendor_algorithm(sbuf, S, MPI_BYTE, got, S, MPI_BYTE,
                                                           comm, a, NULL);
        if (!valid) {
            expect(rc == MPI_ERR_ARG, alltoallv ? "alltoallv: refused with MPI_ERR_ARG"
                                                : "alltoall: refused with MPI_ERR_ARG", a);
            if (!name)
                break;
            continue;
        }
        expect(rc == MPI_SUCCESS, alltoallv ? "alltoallv: MPI_SUCCESS" : "alltoall: MPI_SUCCESS", a);
        expect(memcmp(ref, got, n) == 0, alltoallv ? "alltoallv: same bytes as MPI_Alltoallv"
                                                   : "alltoall: same bytes as MPI_Alltoall", a);
    }
    free(sbuf);
    free(ref);
    free(got);
    free(counts);
    free(displs);
    free(rcounts);
}

/* Both collectives, every algorithm, on MPI_COMM_WORLD then on a duplicate (cached
 * forced communicators are reused); exit 0 only if every check held. */
int main(int argc, char **argv)
{
    A2A_Vendor_prepare(); /* this program forces algorithms: prepare before MPI_Init */
    MPI_Init(&argc, &argv);
    int S = argc > 1 ? atoi(argv[1]) : 1024;
    if (S < 1)
        S = 1024;
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    for (int round = 0; round < 2; round++) /* the second round reuses cached communicators */
        for (int v = 0; v < 2; v++)
            check_all(round ? dup : MPI_COMM_WORLD, v, S);
    MPI_Comm_free(&dup);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("force_check: %s\n", failures ? "FAILED" : "every forced algorithm gave the "
                                                          "library's own result");
    MPI_Finalize();
    return failures ? 1 : 0;
}
