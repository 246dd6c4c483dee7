/*
 * plain_alltoall.c — an unmodified MPI program (built without liba2a) for the preload
 * tests: MPI_Alltoall and MPI_Alltoallv at the block sizes given, on MPI_COMM_WORLD and
 * on two halves of it, with bytes and ints, uniform and non-uniform counts (some zero).
 *
 *   mpirun -n 4 plain_alltoall [--repeat N [--cycle | --dup | --free-in-callback |
 *                                            --period B | --count]] OUT BYTES...
 *   e.g. plain_alltoall /tmp/out 16 1024
 *
 * --repeat N makes every call N times in a row (a loop of calls at each size, for the
 * online tuner's tests); with --cycle the loop goes round the sizes N times instead (the
 * calls' S repeat with a period of the number of sizes), then N times round the sizes and
 * one more, twice the largest (the pattern changes); with --dup each size's calls go N
 * times to MPI_COMM_WORLD and to a duplicate of it (named "dup", alive until
 * MPI_Finalize), kind by kind, the two in turn: world first, then dup first (calls W D D
 * W W D ...), instead of the world then the halves; with --free-in-callback the halves are
 * freed not by the program's MPI_Comm_free but by the delete callback of an attribute of
 * another communicator ("owner", a duplicate of the world) when the program frees that
 * one: MPI calls the callback inside that MPI_Comm_free (below 4 ranks the one "half" is
 * then the whole world, and is looped on too); the callback first makes an MPI_Alltoall
 * on "owner", the communicator being freed. With --period B only MPI_Alltoallv is called,
 * on communicators of the first p ranks for p = 1, 2, ..., P in turn (named "first<p>";
 * the other ranks wait), going N times round the sizes (the calls' S repeat with a period
 * of the number of sizes), and, when B > 0, once more in round B after its first size:
 * one call of twice the largest size (the period broken at one call). With --count only
 * MPI_Alltoall of bytes is called, N times a size on MPI_COMM_WORLD, and rank 0 prints how
 * many MPI_Allreduce calls were made on MPI_COMM_WORLD meanwhile (by a library the program
 * runs under: this program's MPI_Allreduce counts them and calls PMPI_Allreduce; under
 * liba2a_preload.so, the online tuner's reductions). Non-uniform blocks
 * are up to S bytes
 * from odd ranks and 2S/3 from even ones, so the ranks' own largest blocks fall in
 * different powers of two. The halves are named "half0" and "half1" (MPI_Comm_set_name).
 * Every rank checks what it received against the data it knows every sender sent, and
 * when OUT is not "-" writes all its receive buffers, in call order, to OUT/rank<r>.bin,
 * so two runs (plain and under LD_PRELOAD=liba2a_preload.so) can be compared byte for
 * byte. Exit 0 when every call was right, 1 otherwise, 2 for bad arguments.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

static long long world_allreduces; /* MPI_Allreduce calls on MPI_COMM_WORLD so far */

/* Guarantees: PMPI_Allreduce's result; a call on MPI_COMM_WORLD is counted (--count). The
 * program's own MPI_Allreduce and those of the libraries it runs under come here. */
int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                  MPI_Op op, MPI_Comm comm)
{
    world_allreduces += comm == MPI_COMM_WORLD;
    return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
}

/* The byte at offset k of the block sender -> receiver in call `call`. */
static unsigned char payload(int call, int sender, int receiver, long long k)
{
    return (unsigned char)(call * 29 + sender * 131 + receiver * 31 + k * 7 + 1);
}

/* Bytes in the non-uniform block sender -> receiver for block size S (some are 0). */
static long long vblock(long long S, int sender, int receiver)
{
    return S * ((sender + 2 * receiver) % 4) / 3;
}

typedef struct run {
    FILE *out;  /* receive buffers go here, or NULL */
    int call;   /* calls so far */
    int wrong;  /* calls that received something unexpected */
    int rank;   /* in MPI_COMM_WORLD */
} run;

/* Checks rbuf (blocks from every source of comm, at displs in elements of `esize` bytes)
 * and appends it to the output file. */
static void check(run *r, MPI_Comm comm, const unsigned char *rbuf, const long long *bytes,
                  const long long *displs, long long total, const char *what, long long S)
{
    int P, me;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    for (int src = 0; src < P; src++)
        for (long long k = 0; k < bytes[src]; k++)
            if (rbuf[displs[src] + k] != payload(r->call, src, me, k)) {
                fprintf(stderr, "plain_alltoall: rank %d: %s S=%lld: byte %lld from rank %d is "
                        "0x%02x, expected 0x%02x\n", r->rank, what, S, k, src,
                        rbuf[displs[src] + k], payload(r->call, src, me, k));
                r->wrong++;
                src = P;
                break;
            }
    if (r->out && fwrite(rbuf, 1, (size_t)total, r->out) != (size_t)total)
        r->wrong++;
    r->call++;
}

/* MPI_Alltoall of S bytes per block, as bytes or (S % 4 == 0) as ints. */
static void uniform(run *r, MPI_Comm comm, long long S, int as_ints)
{
    int P, me;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    unsigned char *sbuf = malloc((size_t)(S * P) + 1), *rbuf = malloc((size_t)(S * P) + 1);
    long long *bytes = malloc(sizeof(long long) * P), *displs = malloc(sizeof(long long) * P);
    for (int j = 0; j < P; j++) {
        for (long long k = 0; k < S; k++)
            sbuf[j * S + k] = payload(r->call, me, j, k);
        bytes[j] = S;
        displs[j] = j * S;
    }
    memset(rbuf, 0xa5, (size_t)(S * P));
    if (as_ints)
        MPI_Alltoall(sbuf, (int)(S / 4), MPI_INT, rbuf, (int)(S / 4), MPI_INT, comm);
    else
        MPI_Alltoall(sbuf, (int)S, MPI_BYTE, rbuf, (int)S, MPI_BYTE, comm);
    check(r, comm, rbuf, bytes, displs, S * P, as_ints ? "alltoall(int)" : "alltoall", S);
    free(sbuf);
    free(rbuf);
    free(bytes);
    free(displs);
}

/* MPI_Alltoallv with blocks of vblock(S, ...) bytes, packed, one byte gap after each. */
static void nonuniform(run *r, MPI_Comm comm, long long S)
{
    int P, me;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    int *sc = malloc(sizeof(int) * P), *sd = malloc(sizeof(int) * P);
    int *rc = malloc(sizeof(int) * P), *rd = malloc(sizeof(int) * P);
    long long *bytes = malloc(sizeof(long long) * P), *displs = malloc(sizeof(long long) * P);
    long long stotal = 0, rtotal = 0;
    for (int j = 0; j < P; j++) {
        sc[j] = (int)vblock(S, me, j);
        sd[j] = (int)stotal;
        stotal += sc[j] + 1;
        rc[j] = (int)vblock(S, j, me);
        rd[j] = (int)rtotal;
        bytes[j] = rc[j];
        displs[j] = rd[j];
        rtotal += rc[j] + 1;
    }
    unsigned char *sbuf = malloc((size_t)stotal + 1), *rbuf = malloc((size_t)rtotal + 1);
    memset(sbuf, 0x3c, (size_t)stotal);
    for (int j = 0; j < P; j++)
        for (long long k = 0; k < sc[j]; k++)
            sbuf[sd[j] + k] = payload(r->call, me, j, k);
    memset(rbuf, 0x5a, (size_t)rtotal);
    MPI_Alltoallv(sbuf, sc, sd, MPI_BYTE, rbuf, rc, rd, MPI_BYTE, comm);
    check(r, comm, rbuf, bytes, displs, rtotal, "alltoallv", S);
    free(sbuf);
    free(rbuf);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(bytes);
    free(displs);
}

/* Every call of one size on comm: bytes, ints (when S % 4 == 0), non-uniform; only bytes
 * and non-uniform on a half. */
static void calls_at(run *r, MPI_Comm comm, long long S)
{
    uniform(r, comm, S, 0);
    if (comm == MPI_COMM_WORLD && S % 4 == 0)
        uniform(r, comm, S, 1);
    nonuniform(r, comm, S);
}

/* Every call of one size on MPI_COMM_WORLD and on dup, kind by kind (bytes, ints when
 * S % 4 == 0, non-uniform), each kind's pair of calls in the other order than the pair
 * before: W D, D W, W D ... over the whole run. */
static void calls_on_both(run *r, MPI_Comm dup, long long S)
{
    static int pairs;
    for (int kind = 0; kind < 3; kind++) {
        if (kind == 1 && S % 4)
            continue;
        MPI_Comm first = pairs % 2 ? dup : MPI_COMM_WORLD;
        MPI_Comm second = pairs++ % 2 ? MPI_COMM_WORLD : dup;
        for (int i = 0; i < 2; i++) {
            MPI_Comm comm = i ? second : first;
            if (kind == 2)
                nonuniform(r, comm, S);
            else
                uniform(r, comm, S, kind);
        }
    }
}

/* The loop of calls on comm: each size `repeat` times in a row, or (cycle) `repeat` times
 * round the sizes, then `repeat` times round them and twice the largest. */
static void loop(run *r, MPI_Comm comm, const long long *sizes, int nsizes, int repeat, int cycle)
{
    if (!cycle) {
        for (int i = 0; i < nsizes; i++)
            for (int n = 0; n < repeat; n++)
                calls_at(r, comm, sizes[i]);
        return;
    }
    long long largest = 0;
    for (int i = 0; i < nsizes; i++)
        largest = sizes[i] > largest ? sizes[i] : largest;
    for (int phase = 0; phase < 2; phase++)
        for (int n = 0; n < repeat; n++) {
            for (int i = 0; i < nsizes; i++)
                calls_at(r, comm, sizes[i]);
            if (phase == 1)
                calls_at(r, comm, 2 * largest);
        }
}

/* The --period loop: on the communicator of the first p ranks for p = 1..P in turn,
 * `repeat` times round the sizes with MPI_Alltoallv only, and in round `brk` (when > 0)
 * one call of twice the largest size after the first size's. */
static void period_loops(run *r, const long long *sizes, int nsizes, int repeat, int brk)
{
    int P;
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    long long largest = 0;
    for (int i = 0; i < nsizes; i++)
        largest = sizes[i] > largest ? sizes[i] : largest;
    int calls = 0;
    for (int p = 1; p <= P; p++) {
        MPI_Comm comm;
        MPI_Comm_split(MPI_COMM_WORLD, r->rank < p ? 0 : MPI_UNDEFINED, r->rank, &comm);
        if (comm == MPI_COMM_NULL)
            continue;
        char name[32];
        snprintf(name, sizeof name, "first%d", p);
        MPI_Comm_set_name(comm, name);
        r->call = p * 1000000; /* the payloads' call number, alike on the ranks of comm */
        for (int n = 0; n < repeat; n++)
            for (int i = 0; i < nsizes; i++) {
                nonuniform(r, comm, sizes[i]);
                if (brk > 0 && n == brk && i == 0)
                    nonuniform(r, comm, 2 * largest);
            }
        calls += r->call - p * 1000000;
        MPI_Comm_free(&comm);
    }
    r->call = calls;
}

/* Guarantees: (delete callback of the attribute "owner" carries) first makes an
 * MPI_Alltoall of ints on owner itself, the communicator being freed (its first call:
 * nothing may attach to owner now), counting a wrong block in *extra; then frees the
 * communicator the attribute's value points to, and says MPI_Comm_free's result. */
static int free_owned(MPI_Comm owner, int keyval, void *value, void *extra)
{
    (void)keyval;
    int P, me;
    MPI_Comm_size(owner, &P);
    MPI_Comm_rank(owner, &me);
    int *sbuf = malloc((size_t)P * sizeof *sbuf), *rbuf = malloc((size_t)P * sizeof *rbuf);
    for (int i = 0; sbuf && rbuf && i < P; i++) {
        sbuf[i] = me * P + i;
        rbuf[i] = -1;
    }
    if (!sbuf || !rbuf || MPI_Alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, owner) != MPI_SUCCESS)
        ++*(int *)extra;
    for (int i = 0; sbuf && rbuf && i < P; i++)
        if (rbuf[i] != i * P + me) {
            ++*(int *)extra;
            break;
        }
    free(sbuf);
    free(rbuf);
    return MPI_Comm_free((MPI_Comm *)value);
}

/* Every size on MPI_COMM_WORLD (bytes, ints, non-uniform), then on the two halves. */
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    run r = { NULL, 0, 0, 0 };
    int P;
    MPI_Comm_rank(MPI_COMM_WORLD, &r.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    int repeat = 1, cycle = 0, dup = 0, in_callback = 0, period = 0, brk = 0, count = 0;
    if (argc > 2 && strcmp(argv[1], "--repeat") == 0) {
        repeat = atoi(argv[2]);
        argv += 2;
        argc -= 2;
        if (argc > 2 && !strcmp(argv[1], "--period")) {
            char *end;
            brk = (int)strtol(argv[2], &end, 10);
            period = !*end && brk >= 0 && brk < repeat;
            repeat = period ? repeat : 0; /* bad: the usage line */
            argv += 2;
            argc -= 2;
        } else if (argc > 1 && (!strcmp(argv[1], "--cycle") || !strcmp(argv[1], "--dup") ||
                         !strcmp(argv[1], "--free-in-callback") || !strcmp(argv[1], "--count"))) {
            cycle = !strcmp(argv[1], "--cycle");
            dup = !strcmp(argv[1], "--dup");
            count = !strcmp(argv[1], "--count");
            in_callback = !cycle && !dup && !count;
            argv++;
            argc--;
        }
    }
    if (argc < 3 || repeat < 1) {
        if (r.rank == 0)
            fprintf(stderr, "usage: plain_alltoall [--repeat N [--cycle | --dup | "
                            "--free-in-callback | --period B (0 <= B < N) | --count]] "
                            "OUT|- BYTES...\n");
        MPI_Finalize();
        return 2;
    }
    long long sizes[64];
    int nsizes = 0;
    for (int i = 2; i < argc && nsizes < 64; i++) {
        char *end;
        sizes[nsizes] = strtoll(argv[i], &end, 10);
        if (*end || sizes[nsizes] < 0 || sizes[nsizes] > (1 << 24)) {
            if (r.rank == 0)
                fprintf(stderr, "plain_alltoall: bad block size '%s'\n", argv[i]);
            MPI_Finalize();
            return 2;
        }
        nsizes++;
    }
    if (strcmp(argv[1], "-") != 0) {
        char path[4096];
        snprintf(path, sizeof path, "%s/rank%d.bin", argv[1], r.rank);
        r.out = fopen(path, "wb");
        if (!r.out) {
            fprintf(stderr, "plain_alltoall: cannot write %s\n", path);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    MPI_Comm half, world_dup;
    if (period) {
        period_loops(&r, sizes, nsizes, repeat, brk);
    } else if (count) {
        long long before = world_allreduces;
        for (int i = 0; i < nsizes; i++)
            for (int n = 0; n < repeat; n++)
                uniform(&r, MPI_COMM_WORLD, sizes[i], 0);
        if (r.rank == 0)
            printf("plain_alltoall: %lld MPI_Allreduce on MPI_COMM_WORLD in %d calls\n",
                   world_allreduces - before, r.call);
    } else if (dup) {
        MPI_Comm_dup(MPI_COMM_WORLD, &world_dup);
        MPI_Comm_set_name(world_dup, "dup");
        for (int i = 0; i < nsizes; i++)
            for (int n = 0; n < repeat; n++)
                calls_on_both(&r, world_dup, sizes[i]);
    } else {
        /* below 4 ranks, --free-in-callback makes one "half", the world: a communicator
         * of more than one rank to tune and free */
        int color = in_callback && P < 4 ? 0 : r.rank % 2;
        MPI_Comm_split(MPI_COMM_WORLD, color, r.rank, &half);
        MPI_Comm_set_name(half, color ? "half1" : "half0");
        loop(&r, MPI_COMM_WORLD, sizes, nsizes, repeat, cycle);
        if (P >= 4 || in_callback)
            loop(&r, half, sizes, nsizes, repeat, cycle);
        if (in_callback) {
            MPI_Comm owner;
            int keyval;
            MPI_Comm_dup(MPI_COMM_WORLD, &owner);
            MPI_Comm_set_name(owner, "owner");
            MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_owned, &keyval, &r.wrong);
            MPI_Comm_set_attr(owner, keyval, &half);
            MPI_Comm_free(&owner);
            MPI_Comm_free_keyval(&keyval);
            if (half != MPI_COMM_NULL) {
                fprintf(stderr, "plain_alltoall: rank %d: the half not freed by the "
                                "callback\n", r.rank);
                r.wrong++;
            }
        } else {
            MPI_Comm_free(&half);
        }
    }
    if (r.out)
        fclose(r.out);
    int wrong = 0;
    MPI_Allreduce(&r.wrong, &wrong, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (r.rank == 0)
        printf("plain_alltoall: %d calls on %d ranks, %s\n", r.call, P,
               wrong ? "WRONG results" : "all results right");
    MPI_Finalize(); /* dup alive: under liba2a_preload.so the tuner checks its calls */
    return wrong ? 1 : 0;
}
