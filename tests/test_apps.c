/* ranks: 8, mpich: 8 */
/*
 * test_apps.c — the application workloads: transitive closure and distributed FFT.
 *
 *   mpirun -n N ./test_apps [max_P]          (P = 1, 2, 3, 4, 7, 8 up to min(N, max_P))
 *
 * For every P (a sub-communicator of the first P ranks; the others wait):
 *   - the distributed closure (tc_run) of R-MAT graphs and of the SNAP and Matrix Market
 *     files in tests/data, with several alltoallv kernels, equals the single-rank closure
 *     by breadth-first search (size, 128-bit fingerprint, iterations = longest shortest
 *     path);
 *   - the count matrices it sent equal tc_replay's and those `dist = graph` serves
 *     (graph_counts_get, through a fresh disk cache that all P ranks fill at once);
 *   - the distributed FFT (2D and 3D, uniform and non-uniform sizes, custom blocks) with
 *     uniform and non-uniform kernels matches a single-rank FFTW transform to 1e-9,
 *     and the bytes each transpose sent equal `dist = fft`'s blocks (the second
 *     transpose: those of the swapped size);
 *   - the checks can fail: a closure of the graph without one vertex's out-edges, and an
 *     FFT output with one element changed, are detected.
 * At P = 7 and 8 (oversubscribed, and MPICH busy-polls) only the first graphs, sizes and
 * the kernels marked `large` run, to keep the launch short.
 * Once: the TuNA paper's N1 and N2 (fft_n1 at S = 64, fft_n2 at S = 512) are instances
 * of `dist = fft` for P = 1..64. One line per failure, a summary line; exit status 0
 * only if everything passed.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "a2a_registry.h"
#include "fft.h"
#include "graph_counts.h"
#include "polite.h"
#include "tc.h"
#include "test_common.h"
#include "workload.h"

static int failures, checks;

/* Counts a check; prints "FAIL P=.. WHAT DETAIL: MESSAGE" when it failed. */
static void expect(int ok, const char *message, const char *what, int P, const char *detail)
{
    checks++;
    if (ok)
        return;
    failures++;
    printf("FAIL P=%d %s %s: %s\n", P, what, detail, message);
}

/* A kernel with its parameters (0 for those it does not take). Oversubscribed P (7, 8
 * ranks on a few cores, MPICH busy-polling) run only the entries marked `large`. */
typedef struct kconf {
    a2a_family family;
    const char *name;
    int radix, block_count, ppn;
    int large;
} kconf;

static const kconf tc_kernels[] = {
    { A2A_FAMILY_NONUNIFORM, "vendor", 0, 0, 0, 1 },
    { A2A_FAMILY_NONUNIFORM, "tuna", 2, 1, 0, 0 },
    { A2A_FAMILY_NONUNIFORM, "tuna", 3, 2, 0, 1 },
    { A2A_FAMILY_NONUNIFORM, "twophase_bruck", 0, 0, 0, 0 },
    { A2A_FAMILY_NONUNIFORM, "scattered", 0, 2, 0, 0 },
    { A2A_FAMILY_NONUNIFORM, "tuna_coalesced", 2, 1, 2, 1 },
};

static const kconf fft_kernels[] = {
    { A2A_FAMILY_UNIFORM, "vendor", 0, 0, 0, 1 },
    { A2A_FAMILY_UNIFORM, "tra", 3, 0, 0, 1 },
    { A2A_FAMILY_UNIFORM, "bruck", 0, 0, 0, 0 },
    { A2A_FAMILY_NONUNIFORM, "vendor", 0, 0, 0, 1 },
    { A2A_FAMILY_NONUNIFORM, "tuna", 2, 1, 0, 1 },
    { A2A_FAMILY_NONUNIFORM, "spread_out", 0, 0, 0, 0 },
};

#define LARGE_P 5 /* from here on, only the `large` kernels, graphs and sizes */

/* Guarantees: the kernel of k with its parameters in params, if valid at P (Q = ppn or P);
 * NULL otherwise. */
static const a2a_kernel *resolve(const kconf *k, int P, int params[A2A_PARAM_COUNT])
{
    const a2a_kernel *kernel = a2a_find_kernel(k->family, k->name);
    memset(params, 0, A2A_PARAM_COUNT * sizeof *params);
    if (!kernel)
        return NULL;
    if (a2a_kernel_takes(kernel, A2A_PARAM_RADIX))
        params[A2A_PARAM_RADIX] = k->radix;
    if (a2a_kernel_takes(kernel, A2A_PARAM_BLOCK_COUNT))
        params[A2A_PARAM_BLOCK_COUNT] = k->block_count;
    if (a2a_kernel_takes(kernel, A2A_PARAM_PPN))
        params[A2A_PARAM_PPN] = k->ppn;
    int Q = k->ppn > 0 ? (k->ppn < P ? k->ppn : P) : P;
    char why[200];
    return a2a_params_valid(kernel, P, Q, params, why, sizeof why) ? kernel : NULL;
}

/* The closure tests of one graph at P on comm. */
static void test_graph(const char *text, MPI_Comm comm, int P)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    graph_spec spec;
    graph g;
    char err[512], msg[600];
    if (graph_spec_parse(text, NULL, &spec, err, sizeof err) || graph_load(&spec, &g, err, sizeof err)) {
        expect(0, err, "graph", P, text);
        return;
    }
    long long ref_paths = 0;
    uint64_t ref_hash[2];
    int longest = 0;
    tc_reference(&g, &ref_paths, ref_hash, &longest);
    tc_counts replay;
    int replay_ok = tc_replay(&g, P, &replay) == 0;
    expect(replay_ok && replay.paths == ref_paths && replay.iterations == longest,
           "tc_replay disagrees with the reference", "tc_replay", P, text);
    const graph_counts *served = NULL;
    int served_ok = graph_counts_get(&spec, P, &served, err, sizeof err) == 0;
    expect(served_ok, err, "graph_counts_get", P, text);
    tc_local local;
    tc_local_build(&g, P, rank, &local);
    for (size_t ik = 0; ik < sizeof tc_kernels / sizeof tc_kernels[0]; ik++) {
        tc_options opt = { .record = 1 };
        opt.kernel = resolve(&tc_kernels[ik], P, opt.params);
        if (!opt.kernel || (P >= LARGE_P && !tc_kernels[ik].large))
            continue;
        char what[96];
        snprintf(what, sizeof what, "%s(r=%d,b=%d,ppn=%d) %s", tc_kernels[ik].name,
                 opt.params[A2A_PARAM_RADIX], opt.params[A2A_PARAM_BLOCK_COUNT],
                 opt.params[A2A_PARAM_PPN], text);
        tc_outcome o;
        int rc = tc_run(&local, comm, &opt, &o);
        snprintf(msg, sizeof msg, "rc %d; %lld paths, %d iterations; reference %lld paths, %d "
                 "iterations; fingerprint %s", rc, o.paths, o.iterations, ref_paths, longest,
                 o.hash[0] == ref_hash[0] && o.hash[1] == ref_hash[1] ? "equal" : "different");
        expect(rc == MPI_SUCCESS && o.paths == ref_paths && o.iterations == longest &&
               o.hash[0] == ref_hash[0] && o.hash[1] == ref_hash[1], msg, "closure", P, what);
        /* this rank's row of every iteration's matrix, against the replay and dist = graph */
        int same_replay = replay_ok && o.iterations == replay.iterations;
        int same_served = served_ok && o.iterations == served->iterations;
        for (int t = 0; t < o.iterations && (same_replay || same_served); t++)
            for (int j = 0; j < P; j++) {
                long long sent = o.sendcounts[(size_t)t * (size_t)P + (size_t)j];
                size_t at = ((size_t)t * (size_t)P + (size_t)rank) * (size_t)P + (size_t)j;
                same_replay &= replay_ok && replay.tuples[at] == sent;
                if (same_served) {
                    wl_spec s = { .dist = WL_DIST_GRAPH, .P = P, .seed = 1 };
                    s.params.matrix = served->bytes + (size_t)t * (size_t)P * (size_t)P;
                    same_served &= wl_block_bytes(&s, rank, j) == sent * TC_TUPLE_BYTES;
                }
            }
        int all[2], mine[2] = { same_replay, same_served };
        MPI_Allreduce(mine, all, 2, MPI_INT, MPI_LAND, comm);
        expect(all[0], "the counts sent differ from tc_replay's", "counts", P, what);
        expect(all[1], "the counts sent differ from dist = graph's", "dist=graph", P, what);
        free(o.sendcounts);
    }
    tc_local_free(&local);

    /* the check can fail: without the out-edges of one vertex the closure differs */
    long long keep = g.edges;
    while (keep > 0 && g.src[keep - 1] == g.src[g.edges - 1])
        keep--;
    if (keep > 0) {
        graph h = g;
        h.edges = keep;
        tc_local_build(&h, P, rank, &local);
        tc_options opt = { .kernel = a2a_find_kernel(A2A_FAMILY_NONUNIFORM, "vendor") };
        tc_outcome o;
        tc_run(&local, comm, &opt, &o);
        long long p2;
        uint64_t h2[2];
        int l2;
        tc_reference(&h, &p2, h2, &l2);
        expect(o.paths < ref_paths && (o.hash[0] != ref_hash[0] || o.hash[1] != ref_hash[1]) &&
               o.hash[0] == h2[0] && o.hash[1] == h2[1] && o.paths == p2,
               "removing a vertex's out-edges did not change the closure as the reference says",
               "negative", P, text);
        tc_local_free(&local);
    }
    if (replay_ok)
        tc_counts_free(&replay);
    graph_free(&g);
}

/* The FFT tests of one size at P on comm. */
static void test_fft(const char *text, MPI_Comm comm, int P)
{
    fft_size size;
    char err[300], msg[400];
    if (fft_size_parse(text, &size, err, sizeof err)) {
        expect(0, err, "fft size", P, text);
        return;
    }
    if (!fft_size_check(&size, P, err, sizeof err))
        return;
    fft_context ctx;
    if (fft_setup(&size, comm, 5, &ctx, err, sizeof err)) {
        expect(0, err, "fft_setup", P, text);
        return;
    }
    fft_size swapped = fft_size_swapped(&size);
    for (size_t ik = 0; ik < sizeof fft_kernels / sizeof fft_kernels[0]; ik++) {
        fft_options opt = { .record = 1 };
        if (fft_kernels[ik].family == A2A_FAMILY_UNIFORM && !ctx.uniform)
            continue;
        opt.kernel = resolve(&fft_kernels[ik], P, opt.params);
        if (!opt.kernel || (P >= LARGE_P && !fft_kernels[ik].large))
            continue;
        char what[96];
        snprintf(what, sizeof what, "%s/%s %s", a2a_family_name(fft_kernels[ik].family),
                 fft_kernels[ik].name, text);
        fft_outcome o;
        int rc = fft_forward(&ctx, &opt, &o);
        double error = INFINITY;
        fft_verify(&ctx, &error);
        snprintf(msg, sizeof msg, "rc %d, maximum relative error %.3g", rc, error);
        expect(rc == MPI_SUCCESS && error <= 1e-9, msg, "fft", P, what);
        int same = rc == MPI_SUCCESS, all;
        wl_spec first = { .dist = WL_DIST_FFT, .P = P, .seed = 1 }, second = first;
        first.params.matrix = fft_size_matrix(&size, P);
        second.params.matrix = fft_size_matrix(&swapped, P);
        for (int j = 0; same && j < P; j++)
            same = o.sendbytes[j] == wl_block_bytes(&first, ctx.rank, j) &&
                   o.sendbytes[P + j] == wl_block_bytes(&second, ctx.rank, j);
        MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_LAND, comm);
        expect(all, "the bytes sent differ from dist = fft's blocks", "dist=fft", P, what);
        free(o.sendbytes);
    }
    /* the check can fail: change one output element on the last rank that holds rows */
    int holder = -1;
    for (int r = 0; r < P; r++)
        if (ctx.row_count[r] > 0)
            holder = r;
    if (ctx.rank == holder)
        ctx.work[0][1] += 1e-6;
    double error = 0;
    fft_verify(&ctx, &error);
    snprintf(msg, sizeof msg, "a changed element gave error %.3g", error);
    expect(error > 1e-9, msg, "negative", P, text);
    fft_free(&ctx);
}

/* Guarantees: removes the files in dir, then dir. */
static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[1200];
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    if (d)
        closedir(d);
    rmdir(dir);
}

/* Runs every check on sub-communicators of P = 1, 2, 3, 4, 7, 8 ranks; exit status 1
 * when any failed. */
int main(int argc, char **argv)
{
    int rank;
    int world = test_init(&argc, &argv, &rank);
    int max_P = test_max_ranks(argc, argv, world);

    /* a fresh cache that every rank shares */
    char dir[256] = "/tmp/a2atune-test-apps.XXXXXX";
    if (rank == 0 && !mkdtemp(dir))
        dir[0] = '\0';
    MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
    setenv("A2A_CACHE_DIR", dir, 1);

    if (rank == 0) /* N1 and N2 of the TuNA paper are instances of dist = fft */
        for (int P = 1; P <= 64; P++) {
            int a = (int)ceil(0.625 * P - 1e-9), b = (int)ceil(0.78125 * P - 1e-9);
            wl_spec n1 = { .dist = WL_DIST_FFT_N1, .S = 64, .P = P, .seed = 1 };
            wl_spec n2 = { .dist = WL_DIST_FFT_N2, .S = 512, .P = P, .seed = 1 };
            wl_spec f1 = { .dist = WL_DIST_FFT, .P = P, .seed = 1 }, f2 = f1;
            fft_size s1 = { 2, { a, 4 * b, 1 }, { 1, 4 } };
            fft_size s2 = { 2, { 32 * (P - 1) + 8, P, 1 }, { 32, 1 } };
            f1.params.matrix = fft_size_matrix(&s1, P);
            f2.params.matrix = fft_size_matrix(&s2, P);
            int same = 1;
            for (int i = 0; i < P; i++)
                for (int j = 0; j < P; j++)
                    same &= wl_block_bytes(&n1, i, j) == wl_block_bytes(&f1, i, j) &&
                            wl_block_bytes(&n2, i, j) == wl_block_bytes(&f2, i, j);
            expect(same, "fft_n1 / fft_n2 differ from their FFT sizes", "N1/N2", P, "");
        }

    static const int Ps[] = { 1, 2, 3, 4, 7, 8 };
    static const char *const graphs[] = { "rmat:6:4:3", "file:tests/data/graph_sym.mtx",
                                          "rmat:7:2:11", "tests/data/graph_snap.txt" };
    static const char *const sizes[] = { "12x10", "16x8", "5x28/1x4", "3x2", "9x7x5", "8x8x3",
                                         "232x8/32x1" };
    const size_t large_graphs = 2, large_sizes = 4; /* the first ones run at every P */
    for (size_t ip = 0; ip < sizeof Ps / sizeof Ps[0]; ip++) {
        int P = Ps[ip];
        if (P > max_P)
            continue;
        MPI_Comm comm;
        MPI_Comm_split(MPI_COMM_WORLD, rank < P ? 0 : MPI_UNDEFINED, rank, &comm);
        if (comm != MPI_COMM_NULL) {
            for (size_t i = 0; i < sizeof graphs / sizeof graphs[0]; i++)
                if (P < LARGE_P || i < large_graphs)
                    test_graph(graphs[i], comm, P);
            for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
                if (P < LARGE_P || i < large_sizes)
                    test_fft(sizes[i], comm, P);
            MPI_Comm_free(&comm);
        }
        polite_barrier(MPI_COMM_WORLD); /* idle ranks sleep: MPICH would spin */
    }
    int sums[2] = { failures, checks }, total[2];
    MPI_Reduce(sums, total, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        remove_tree(dir);
        printf("test_apps: %d checks on %d ranks (P up to %d), %d failed\n", total[1], world,
               max_P, total[0]);
    }
    fft_cleanup();
    MPI_Finalize();
    return rank == 0 && total[0] ? 1 : 0;
}
