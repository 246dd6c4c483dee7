/*
 * safety_program.c — an unmodified MPI program (built without liba2a) that makes the legal
 * all-to-all calls a preload library must not break (tests/parts/safety.sh):
 *   - intercommunicators with equal (2 + 2) and unequal (2 + 3) groups;
 *   - ranks that describe the same bytes with different types: rank 0 receives MPI_2INT
 *     where the others receive MPI_INT, rank 1 sends MPI_2INT;
 *   - "contiguous" types whose typemap is not in order: a permuted pair of ints
 *     (MPI_Type_indexed {1, 0}) and an overlapping hindexed pair resized to 8 bytes, on
 *     every rank or on one rank only, as send and (permuted) receive types;
 * each with MPI_Alltoall and MPI_Alltoallv at the block sizes given (multiples of 16
 * bytes: a tuning file can send each size to another kernel).
 *
 *   mpirun -n 5 safety_program OUT|- BYTES...
 *
 * Every rank checks what it received against what the senders' types mean (computed
 * here, not by MPI) and, when OUT is not "-", writes every receive buffer to
 * OUT/rank<r>.bin, so that runs with and without the preload library can be compared
 * byte for byte. Exit 0 when every call was right, 1 otherwise, 2 for bad arguments.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

/* How a rank lays out its elements: the signature is always ints. */
enum kind { INT, TWOINT, PERM, OVERLAP, KINDS };
static const int kind_bytes[KINDS] = { 4, 8, 8, 8 };
static MPI_Datatype kind_type[KINDS];

typedef struct scenario {
    const char *name;
    enum kind send_all, recv_all; /* the kinds of every rank ... */
    int odd_send_rank, odd_recv_rank; /* ... except this one's (-1: none) */
    enum kind odd_send, odd_recv;
} scenario;

static const scenario scenarios[] = {
    { "int", INT, INT, -1, -1, INT, INT },
    { "mixed-2int", INT, INT, 1, 0, TWOINT, TWOINT },
    { "permuted-send", PERM, INT, -1, -1, INT, INT },
    { "permuted-one-rank", INT, INT, 0, 1, PERM, PERM },
    { "overlapping-send", OVERLAP, INT, -1, -1, INT, INT },
    { "overlapping-one-rank", INT, TWOINT, 2, -1, OVERLAP, INT },
};

static enum kind send_kind(const scenario *sc, int world)
{
    return world == sc->odd_send_rank ? sc->odd_send : sc->send_all;
}
static enum kind recv_kind(const scenario *sc, int world)
{
    return world == sc->odd_recv_rank ? sc->odd_recv : sc->recv_all;
}

typedef struct run {
    FILE *out;
    int call, wrong, world;
} run;

/* The storage byte k of the block from -> to in call `call`. */
static unsigned char pattern(int call, int from, int to, long long k)
{
    return (unsigned char)(call * 37 + from * 101 + to * 29 + k * 13 + 7);
}

/* Signature bytes (ints in order) of n elements of kind `kind` stored at `storage`. */
static void signature_of(enum kind kind, const unsigned char *storage, long long n,
                         unsigned char *sig)
{
    for (long long e = 0; e < n; e++) {
        const unsigned char *el = storage + e * kind_bytes[kind];
        unsigned char *s = sig + e * kind_bytes[kind];
        switch (kind) {
        case INT:
        case TWOINT: memcpy(s, el, (size_t)kind_bytes[kind]); break;
        case PERM: memcpy(s, el + 4, 4); memcpy(s + 4, el, 4); break;
        case OVERLAP: memcpy(s, el, 4); memcpy(s + 4, el + 2, 4); break;
        default: break;
        }
    }
}

/* Storage a receive of kind `kind` makes of the signature bytes (n elements). */
static void storage_of(enum kind kind, const unsigned char *sig, long long n,
                       unsigned char *storage)
{
    if (kind == PERM) /* the inverse permutation is itself */
        signature_of(PERM, sig, n, storage);
    else
        memcpy(storage, sig, (size_t)(n * kind_bytes[kind]));
}

/* Bytes of the non-uniform block from -> to (world ranks) at size S. */
static long long vblock(long long S, int from, int to) { return (from + 2 * to) % 3 ? S / 2 : S; }

/* World rank of rank i of comm's remote group (intercommunicator) or group. */
static int world_of(MPI_Comm comm, int inter, int i)
{
    MPI_Group g, w;
    int out;
    if (inter)
        MPI_Comm_remote_group(comm, &g);
    else
        MPI_Comm_group(comm, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &w);
    MPI_Group_translate_ranks(g, 1, &i, w, &out);
    MPI_Group_free(&g);
    MPI_Group_free(&w);
    return out;
}

/* One MPI_Alltoall (v = 0) or MPI_Alltoallv (v = 1) of scenario sc at block size S on
 * comm, checked against what the senders' types mean and appended to the output. */
static void exchange(run *r, const scenario *sc, MPI_Comm comm, const char *where, long long S,
                     int v)
{
    int inter, R;
    MPI_Comm_test_inter(comm, &inter);
    if (inter)
        MPI_Comm_remote_size(comm, &R);
    else
        MPI_Comm_size(comm, &R);
    int *peer = malloc(sizeof(int) * (size_t)R);
    for (int j = 0; j < R; j++)
        peer[j] = world_of(comm, inter, j);
    const enum kind sk = send_kind(sc, r->world), rk = recv_kind(sc, r->world);
    const int sb = kind_bytes[sk], rb = kind_bytes[rk];
    int *sc_ = malloc(sizeof(int) * (size_t)R), *sd = malloc(sizeof(int) * (size_t)R);
    int *rc = malloc(sizeof(int) * (size_t)R), *rd = malloc(sizeof(int) * (size_t)R);
    long long stotal = 0, rtotal = 0; /* in elements, one free element after each block */
    for (int j = 0; j < R; j++) {
        long long sbytes = v ? vblock(S, r->world, peer[j]) : S;
        long long rbytes = v ? vblock(S, peer[j], r->world) : S;
        sc_[j] = (int)(sbytes / sb);
        rc[j] = (int)(rbytes / rb);
        sd[j] = v ? (int)stotal : j * sc_[j];
        rd[j] = v ? (int)rtotal : j * rc[j];
        stotal += v ? sc_[j] + 1 : sc_[j];
        rtotal += v ? rc[j] + 1 : rc[j];
    }
    unsigned char *sbuf = malloc((size_t)(stotal * sb) + 1);
    unsigned char *rbuf = malloc((size_t)(rtotal * rb) + 1);
    unsigned char *sig = malloc((size_t)S + 16), *want = malloc((size_t)S + 16);
    memset(sbuf, 0x3c, (size_t)(stotal * sb));
    for (int j = 0; j < R; j++)
        for (long long k = 0; k < (long long)sc_[j] * sb; k++)
            sbuf[(long long)sd[j] * sb + k] = pattern(r->call, r->world, peer[j], k);
    memset(rbuf, 0xa5, (size_t)(rtotal * rb));
    if (v)
        MPI_Alltoallv(sbuf, sc_, sd, kind_type[sk], rbuf, rc, rd, kind_type[rk], comm);
    else
        MPI_Alltoall(sbuf, sc_[0], kind_type[sk], rbuf, rc[0], kind_type[rk], comm);
    for (int j = 0; j < R; j++) {
        /* what sender peer[j] stored for us, what its type makes of it, what ours stores */
        enum kind jk = send_kind(sc, peer[j]);
        long long bytes = (long long)rc[j] * rb;
        unsigned char *storage = malloc((size_t)bytes + 1);
        for (long long k = 0; k < bytes; k++)
            storage[k] = pattern(r->call, peer[j], r->world, k);
        signature_of(jk, storage, bytes / kind_bytes[jk], sig);
        storage_of(rk, sig, bytes / rb, want);
        if (memcmp(rbuf + (long long)rd[j] * rb, want, (size_t)bytes) != 0) {
            fprintf(stderr, "safety_program: world rank %d: %s %s on %s S=%lld: block from world "
                    "rank %d is wrong\n", r->world, v ? "MPI_Alltoallv" : "MPI_Alltoall",
                    sc->name, where, S, peer[j]);
            r->wrong++;
            j = R;
        }
        free(storage);
    }
    if (r->out && fwrite(rbuf, 1, (size_t)(rtotal * rb), r->out) != (size_t)(rtotal * rb))
        r->wrong++;
    r->call++;
    free(peer);
    free(sc_);
    free(sd);
    free(rc);
    free(rd);
    free(sbuf);
    free(rbuf);
    free(sig);
    free(want);
}

/* An intercommunicator between the ranks [0, split) and [split, n) of the first n ranks
 * of MPI_COMM_WORLD (MPI_COMM_NULL on the other ranks). */
static MPI_Comm make_inter(int n, int split, int world)
{
    MPI_Comm local, inter = MPI_COMM_NULL;
    int color = world >= n ? MPI_UNDEFINED : world < split;
    MPI_Comm_split(MPI_COMM_WORLD, color, world, &local);
    if (local != MPI_COMM_NULL) {
        int remote_leader = world < split ? split : 0;
        MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, remote_leader, 77, &inter);
        MPI_Comm_free(&local);
    }
    return inter;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    run r = { NULL, 0, 0, 0 };
    int P;
    MPI_Comm_rank(MPI_COMM_WORLD, &r.world);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    long long sizes[64];
    int nsizes = 0;
    for (int i = 2; i < argc && nsizes < 64; i++) {
        char *end;
        sizes[nsizes] = strtoll(argv[i], &end, 10);
        if (*end || sizes[nsizes] < 0 || sizes[nsizes] % 16 || sizes[nsizes] > (1 << 20)) {
            if (r.world == 0)
                fprintf(stderr, "safety_program: block size '%s' is not a multiple of 16 "
                        "up to 1M\n", argv[i]);
            MPI_Finalize();
            return 2;
        }
        nsizes++;
    }
    if (argc < 3) {
        if (r.world == 0)
            fprintf(stderr, "usage: safety_program OUT|- BYTES...\n");
        MPI_Finalize();
        return 2;
    }
    if (strcmp(argv[1], "-") != 0) {
        char path[4096];
        snprintf(path, sizeof path, "%s/rank%d.bin", argv[1], r.world);
        if (!(r.out = fopen(path, "wb"))) {
            fprintf(stderr, "safety_program: cannot write %s\n", path);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    /* the types: a permuted pair of ints, and a pair of overlapping ints resized to 8 */
    int perm_len[2] = { 1, 1 }, perm_at[2] = { 1, 0 };
    MPI_Datatype overlap;
    MPI_Aint overlap_at[2] = { 0, 2 };
    kind_type[INT] = MPI_INT;
    kind_type[TWOINT] = MPI_2INT;
    MPI_Type_indexed(2, perm_len, perm_at, MPI_INT, &kind_type[PERM]);
    MPI_Type_commit(&kind_type[PERM]);
    MPI_Type_create_hindexed(2, perm_len, overlap_at, MPI_INT, &overlap);
    MPI_Type_create_resized(overlap, 0, 8, &kind_type[OVERLAP]);
    MPI_Type_commit(&kind_type[OVERLAP]);
    MPI_Type_free(&overlap);

    const int nsc = (int)(sizeof scenarios / sizeof scenarios[0]);
    for (int s = 0; s < nsc; s++)
        for (int i = 0; i < nsizes; i++)
            for (int v = 0; v < 2; v++)
                exchange(&r, &scenarios[s], MPI_COMM_WORLD, "MPI_COMM_WORLD", sizes[i], v);
    struct { int n, split; const char *name; } inters[2] = {
        { 4, 2, "intercommunicator 2+2" }, { 5, 2, "intercommunicator 2+3" } };
    for (int c = 0; c < 2; c++) {
        if (P < inters[c].n)
            continue;
        MPI_Comm inter = make_inter(inters[c].n, inters[c].split, r.world);
        if (inter != MPI_COMM_NULL) {
            for (int i = 0; i < nsizes; i++)
                for (int v = 0; v < 2; v++)
                    exchange(&r, &scenarios[0], inter, inters[c].name, sizes[i], v);
            MPI_Comm_free(&inter);
        } else {
            r.call += 2 * nsizes; /* the call numbers stay the same on every rank */
        }
    }
    MPI_Type_free(&kind_type[PERM]);
    MPI_Type_free(&kind_type[OVERLAP]);
    if (r.out)
        fclose(r.out);
    int wrong = 0;
    MPI_Allreduce(&r.wrong, &wrong, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (r.world == 0)
        printf("safety_program: %d calls on rank 0 of %d ranks, %s\n", r.call, P,
               wrong ? "WRONG results" : "all results right");
    MPI_Finalize();
    return wrong ? 1 : 0;
}
