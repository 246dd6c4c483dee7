/* app_command.c — `a2atune app tc` and `a2atune app fft`: the application benchmarks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include "a2a_hint.h"
#include "cli.h"
#include "db.h"
#include "fft.h"
#include "graph_counts.h"
#include "provenance.h"
#include "stats.h"
#include "tc.h"

static const char app_usage[] =
    "usage:\n"
    "  mpirun -n P a2atune app tc  --graph SPEC [options]\n"
    "  mpirun -n P a2atune app fft --n SIZE [options]\n"
    "\n"
    "tc   transitive closure of a directed graph by semi-naive relational algebra (TuNA\n"
    "     paper VI-B): every iteration joins the new paths with the edges and shuffles the\n"
    "     results to their owners with one all-to-all (MPI_UINT64_T tuples), until no new\n"
    "     path appears. Verified against a single-rank breadth-first closure. The count\n"
    "     matrices it sends are recorded in the cache that `dist = graph` replays.\n"
    "     --graph SPEC   rmat:SCALE[:EDGEFACTOR[:SEED]] (R-MAT / Kronecker, Graph500\n"
    "                    initiator; default edge factor 8, seed 1) or an edge-list file\n"
    "                    (SNAP 'src dst' lines, or Matrix Market coordinate; file:PATH)\n"
    "     --kernel NAME  a nonuniform kernel (default vendor = MPI_Alltoallv), or `best`:\n"
    "                    the kernel and parameters whose medians over every iteration of\n"
    "                    `dist = graph` with this graph and P sum lowest in --db, or\n"
    "                    `tuned`: liba2a's tuned dispatcher (A2A_Alltoallv)\n"
    "fft  forward complex FFT of N0xN1 (2D) or N0xN1xN2 (3D, slabs) with FFTW's serial\n"
    "     plans; its two transposes are all-to-alls: uniform (alltoall) when P divides N0\n"
    "     and N1, else non-uniform (alltoallv). Verified against a single-rank FFTW\n"
    "     transform (maximum relative error printed; above 1e-9 is a failure). Needs a2atune\n"
    "     built with FFTW 3 (found by pkg-config when it is installed; docs/install.md).\n"
    "     --n SIZE       N0xN1[xN2][/B0xB1] (B: rows per rank before / after the transpose;\n"
    "                    default FFTW's ceil(N/P))\n"
    "     --kernel NAME  a uniform kernel (uniform transposes only) or a nonuniform one\n"
    "                    (default vendor: MPI_Alltoall or MPI_Alltoallv), or `best`: the\n"
    "                    fastest kernel and parameters of `dist = fft` with this size and P\n"
    "                    in --db; FAMILY/NAME (e.g. nonuniform/spread_out) picks a family;\n"
    "                    `tuned`: liba2a's tuned dispatcher (A2A_Alltoall or A2A_Alltoallv)\n"
    "     --seed N       input values (default 1)\n"
    "\n"
    "--kernel tuned: every all-to-all of the application goes through the dispatcher, which\n"
    "     obeys A2A_TUNING_FILE, A2A_TUNING=online (A2A_TUNING_EXPLORE, A2A_TUNING_CHECK) and\n"
    "     A2A_TUNING_OUT as under liba2a_preload.so (docs/tuning-files.md); the online state\n"
    "     lasts the whole launch (warm-up and repetitions), the file is written at the end,\n"
    "     and the row's message says what ran each call shape (A2A_Tuning_summary). It takes\n"
    "     no kernel parameter.\n"
    "\n"
    "options:\n"
    "  --PARAM VALUE   a parameter of the kernel, any that `a2atune list` names (--radix R,\n"
    "                  --block-count B, --order NAME, ...; '-' or '_'); one not given takes\n"
    "                  the lowest value of its range\n"
    "  --repetitions N timed runs of each kernel (default 5), each the max over ranks\n"
    "  --warmup N      untimed runs first (default 1)\n"
    "  --no-vendor     do not also measure the vendor collective\n"
    "  --no-verify     skip the single-rank check\n"
    "  --db PATH       results database (default results/a2a.db): one row per kernel, family\n"
    "                  'app', samples = total seconds, metrics comm_s, iterations, ...\n"
    "  --no-db         do not record\n"
    "\n"
    "exit codes: 0 ok, 1 a result was wrong or a kernel failed, 2 bad input\n";

#define MAX_ERROR 1e-9 /* FFT: largest accepted max|x - y| / max|y| */

typedef struct app_args {
    const char *which, *graph_text, *size_text, *kernel_name, *db_path;
    int params[A2A_PARAM_COUNT], given[A2A_PARAM_COUNT];
    int repetitions, warmup, vendor, verify, use_db;
    unsigned long long seed;
    char command_line[4096];
} app_args;

/* What one kernel measured (on rank 0: samples are maxima over ranks). */
typedef struct measured {
    const a2a_kernel *kernel;       /* NULL: the tuned dispatcher (--kernel tuned) */
    int params[A2A_PARAM_COUNT];
    double *total, *comm, *extra;   /* per repetition; extra: tc count exchange */
    int n;
    long long bytes_sent, bytes_moved, max_block; /* one run, every rank together */
    int iterations;
    long long paths;
    uint64_t hash[2];
    double error;                   /* fft */
    int failed;                     /* a kernel returned an error */
    double started, ended;
} measured;

static int is_root;

#define TUNED_NAME "tuned" /* --kernel tuned: the dispatcher, in rows and lines */

/* Guarantees: the name of the kernel that measured m ("tuned" for the dispatcher). */
static const char *kernel_name(const measured *m)
{
    return m->kernel ? m->kernel->name : TUNED_NAME;
}

/* Guarantees: prints "a2atune: app: MESSAGE" once (rank 0) and returns EXIT_BAD_INPUT. */
static int bad(const char *fmt, const char *a, const char *b)
{
    if (is_root) {
        fprintf(stderr, "a2atune: app: ");
        fprintf(stderr, fmt, a, b);
        fprintf(stderr, " (see a2atune app --help)\n");
    }
    return EXIT_BAD_INPUT;
}

/* Guarantees: the wall-clock time in seconds (Unix time). */
static double wall(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + tv.tv_usec * 1e-6;
}

/* Guarantees: the parameter an option names ("--block-count", "--block_count"), or -1. */
static int param_option(const char *opt)
{
    if (strncmp(opt, "--", 2) != 0)
        return -1;
    for (int p = 0; p < A2A_PARAM_COUNT; p++) {
        const char *name = a2a_param_name((a2a_param)p), *o = opt + 2;
        size_t i = 0;
        for (; name[i] && o[i]; i++)
            if (!(name[i] == o[i] || (name[i] == '_' && o[i] == '-')))
                break;
        if (!name[i] && !o[i])
            return p;
    }
    return -1;
}

/* Guarantees: *v = text as an integer in [lo, hi] (or a named value of param); 0 or -1. */
static int parse_value(const char *text, int param, long long lo, long long hi, long long *v)
{
    if (param >= 0) {
        int n;
        const char *const *names = a2a_param_value_names((a2a_param)param, &n);
        for (int i = 0; names && i < n; i++)
            if (strcmp(names[i], text) == 0) {
                *v = i + 1;
                return 0;
            }
    }
    char *end;
    long long x = strtoll(text, &end, 10);
    if (end == text || *end || x < lo || x > hi)
        return -1;
    *v = x;
    return 0;
}

/* Parses argv[3..]; returns -1 when fine, else an exit code (message printed). */
static int parse_args(int argc, char **argv, app_args *a)
{
    memset(a, 0, sizeof *a);
    a->which = argv[2];
    a->kernel_name = "vendor";
    a->db_path = "results/a2a.db";
    a->repetitions = 5;
    a->warmup = 1;
    a->vendor = a->verify = a->use_db = 1;
    a->seed = 1;
    join_command_line(argc, argv, a->command_line, sizeof a->command_line);
    for (int i = 3; i < argc; i++) {
        const char *o = argv[i];
        int flag = 1;
        if (strcmp(o, "--no-vendor") == 0)
            a->vendor = 0;
        else if (strcmp(o, "--no-verify") == 0)
            a->verify = 0;
        else if (strcmp(o, "--no-db") == 0)
            a->use_db = 0;
        else
            flag = 0;
        if (flag)
            continue;
        int p = param_option(o);
        int known = p >= 0 || !strcmp(o, "--graph") || !strcmp(o, "--n") || !strcmp(o, "--size") ||
                    !strcmp(o, "--kernel") || !strcmp(o, "--db") || !strcmp(o, "--repetitions") ||
                    !strcmp(o, "--warmup") || !strcmp(o, "--seed");
        if (!known)
            return bad(o[0] == '-' ? "unknown option '%s'%s" : "unexpected argument '%s'%s", o, "");
        if (i + 1 >= argc)
            return bad("%s needs a value%s", o, "");
        const char *v = argv[++i];
        long long x;
        if (p >= 0) {
            if (parse_value(v, p, 0, 2147483647LL, &x))
                return bad("%s: '%s' is not a non-negative integer (or a named value)", o, v);
            a->params[p] = (int)x;
            a->given[p] = 1;
        } else if (!strcmp(o, "--graph"))
            a->graph_text = v;
        else if (!strcmp(o, "--n") || !strcmp(o, "--size"))
            a->size_text = v;
        else if (!strcmp(o, "--kernel"))
            a->kernel_name = v;
        else if (!strcmp(o, "--db"))
            a->db_path = v;
        else if (!strcmp(o, "--seed")) {
            if (parse_value(v, -1, 0, (long long)(~0ULL >> 1), &x))
                return bad("--seed: '%s' is not a non-negative integer%s", v, "");
            a->seed = (unsigned long long)x;
        } else {
            if (parse_value(v, -1, !strcmp(o, "--warmup") ? 0 : 1, 100000, &x))
                return bad("%s: '%s' is not an integer in range (repetitions 1..100000, warmup "
                           "0..100000)", o, v);
            *(!strcmp(o, "--warmup") ? &a->warmup : &a->repetitions) = (int)x;
        }
    }
    int tc = strcmp(a->which, "tc") == 0;
    if (tc && !a->graph_text)
        return bad("%s needs --graph SPEC (e.g. rmat:10:8, or an edge-list file)%s", "tc", "");
    if (!tc && !a->size_text)
        return bad("%s needs --n SIZE (e.g. 1000x1000 or 64x64x64)%s", "fft", "");
    if (tc && a->size_text)
        return bad("--n is for app fft, not app %s%s", "tc", "");
    if (!tc && a->graph_text)
        return bad("--graph is for app tc, not app %s%s", "fft", "");
    return -1;
}

/* Guarantees: params with every parameter the kernel takes and the user did not give
 * set to the lowest value of its range at (P, Q), the others kept; 1 if valid, else 0
 * with the reason in why. *Q receives the node size the kernel sees. */
static int complete_params(const a2a_kernel *k, const app_args *a, int P, int node_ranks,
                           int params[A2A_PARAM_COUNT], int *Q, char *why, size_t len)
{
    memset(params, 0, A2A_PARAM_COUNT * sizeof *params);
    for (int p = 0; p < A2A_PARAM_COUNT; p++)
        if (a->given[p]) {
            if (!a2a_kernel_takes(k, (a2a_param)p)) {
                snprintf(why, len, "kernel %s does not take %s", k->name,
                         a2a_param_name((a2a_param)p));
                return 0;
            }
            params[p] = a->params[p];
        }
    int ppn = params[A2A_PARAM_PPN];
    *Q = ppn > 0 ? (ppn < P ? ppn : P) : (node_ranks < P ? node_ranks : P);
    for (int i = 0; i < k->nparams; i++) { /* in table order: radix before block_count */
        const a2a_param_range *r = &k->params[i];
        if (a->given[r->param] || r->param == A2A_PARAM_PPN)
            continue;
        int lo, hi;
        a2a_range_bounds(r, P, *Q, params, &lo, &hi);
        params[r->param] = lo;
    }
    return a2a_params_valid(k, P, *Q, params, why, len);
}

/* Guarantees: "tuna radix=4 block_count=1" in text ("uniform/tra radix=4" with the
 * family when `family` is set). */
static void describe_kernel(const a2a_kernel *k, const int *params, int family, char *text,
                            size_t len)
{
    if (!k) {
        const char *mode = getenv("A2A_TUNING");
        snprintf(text, len, "%s (%s%s)", TUNED_NAME, mode && *mode ? "A2A_TUNING=" : "",
                 mode && *mode ? mode : getenv("A2A_TUNING_FILE") ? "A2A_TUNING_FILE" : "no file");
        return;
    }
    int n = snprintf(text, len, "%s%s%s", family ? a2a_family_name(k->family) : "",
                     family ? "/" : "", k->name);
    for (int p = 0; p < A2A_PARAM_COUNT && n > 0 && (size_t)n < len; p++)
        if (a2a_kernel_takes(k, (a2a_param)p)) {
            char v[32];
            a2a_param_value_text((a2a_param)p, params[p], v, sizeof v);
            n += snprintf(text + n, len - (size_t)n, " %s=%s", a2a_param_name((a2a_param)p), v);
        }
}

/* Guarantees: the kernel's family and parameters as a JSON object (text, malloc'ed); for
 * the dispatcher, "tuned", whether A2A_TUNING is online and whether a file was given. */
static char *params_json(const a2a_kernel *k, const int *params)
{
    char *text = malloc(512);
    if (!k) {
        const char *mode = getenv("A2A_TUNING"), *file = getenv("A2A_TUNING_FILE");
        snprintf(text, 512, "{\"kernel_family\":\"%s\",\"online\":%d,\"tuning_file\":%d}",
                 TUNED_NAME, mode && !strcmp(mode, "online"), file && *file);
        return text;
    }
    int n = snprintf(text, 512, "{\"kernel_family\":\"%s\"", a2a_family_name(k->family));
    for (int p = 0; p < A2A_PARAM_COUNT; p++)
        if (a2a_kernel_takes(k, (a2a_param)p))
            n += snprintf(text + n, 512 - (size_t)n, ",\"%s\":%d", a2a_param_name((a2a_param)p),
                          params[p]);
    snprintf(text + n, 512 - (size_t)n, "}");
    return text;
}

/* Guarantees: the median of x[0..n) (0 when n == 0). */
static double median_of(const double *x, int n)
{
    return summarize_samples(x, n).median;
}

/* Guarantees: the maxima over comm's ranks of v[0..n) land in out[0..n) on rank 0. */
static void max_to_root(const double *v, double *out, int n, MPI_Comm comm)
{
    MPI_Reduce(v, out, n, MPI_DOUBLE, MPI_MAX, 0, comm);
}

/* ---- the transitive closure ------------------------------------------------------ */

/* Guarantees: the count matrices of one recorded run gathered on rank 0 (tuples[t][i][j]
 * from rank i's sendcounts); returns 0 there, -1 when out of memory. Collective. */
static int gather_counts(const tc_outcome *o, int P, MPI_Comm comm, tc_counts *out)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    memset(out, 0, sizeof *out);
    size_t per = (size_t)o->iterations * (size_t)P;
    long long *all = rank == 0 ? malloc(per * (size_t)P * sizeof *all + 1) : NULL;
    MPI_Gather(o->sendcounts, (int)per, MPI_LONG_LONG, all, (int)per, MPI_LONG_LONG, 0, comm);
    if (rank != 0)
        return 0;
    if (!all)
        return -1;
    out->P = P;
    out->iterations = o->iterations;
    out->paths = o->paths;
    out->tuples = malloc(per * (size_t)P * sizeof *out->tuples + 1);
    if (!out->tuples) {
        free(all);
        return -1;
    }
    for (int i = 0; i < P; i++) /* gathered: [i][t][j] -> [t][i][j] */
        for (int t = 0; t < o->iterations; t++)
            for (int j = 0; j < P; j++)
                out->tuples[((size_t)t * (size_t)P + (size_t)i) * (size_t)P + (size_t)j] =
                    all[(size_t)i * per + (size_t)t * (size_t)P + (size_t)j];
    free(all);
    return 0;
}

/* Runs the closure benchmark: fills m[0..nk) (samples on rank 0), sets *rc_wrong and
 * detail when a closure differs from the reference or the cache; returns -1, or an exit
 * code for bad input. Collective over MPI_COMM_WORLD. */
static int app_tc(const app_args *a, int P, measured *m, int nk, const graph_spec *spec,
                  graph *g, int *rc_wrong, char *detail, size_t dlen)
{
    MPI_Comm comm = MPI_COMM_WORLD;
    int rank;
    MPI_Comm_rank(comm, &rank);
    tc_local local;
    int ok = tc_local_build(g, P, rank, &local) == 0, all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, comm);
    if (!all_ok) {
        if (ok)
            tc_local_free(&local);
        return bad("tc: out of memory distributing %s%s", spec->text, "");
    }
    if (rank != 0) /* only rank 0 needs the whole graph: reference and cache */
        graph_free(g);
    long long ref_paths = 0;
    uint64_t ref_hash[2] = { 0, 0 };
    int ref_longest = 0;
    if (a->verify && rank == 0 && tc_reference(g, &ref_paths, ref_hash, &ref_longest) != 0) {
        fprintf(stderr, "a2atune: app: tc: out of memory for the reference closure\n");
        MPI_Abort(comm, 1);
    }
    int recorded = 0;
    for (int rep = -a->warmup; rep < a->repetitions; rep++)
        for (int k = 0; k < nk; k++) {
            tc_options opt = { .kernel = m[k].kernel, .record = !recorded };
            memcpy(opt.params, m[k].params, sizeof opt.params);
            tc_outcome o;
            MPI_Barrier(comm);
            if (rep == -a->warmup && k == 0)
                m[k].started = wall();
            int rc = tc_run(&local, comm, &opt, &o);
            if (rc != MPI_SUCCESS) {
                m[k].failed = 1;
                free(o.sendcounts);
                continue;
            }
            if (rep == -a->warmup) { /* the first run of each kernel: check, sizes */
                long long mine[3] = { o.tuples_sent * TC_TUPLE_BYTES, o.tuples_moved * TC_TUPLE_BYTES,
                                      o.max_block * TC_TUPLE_BYTES }, sum[3], top;
                MPI_Reduce(mine, sum, 2, MPI_LONG_LONG, MPI_SUM, 0, comm);
                MPI_Reduce(&mine[2], &top, 1, MPI_LONG_LONG, MPI_MAX, 0, comm);
                m[k].bytes_sent = sum[0];
                m[k].bytes_moved = sum[1];
                m[k].max_block = top;
                m[k].iterations = o.iterations;
                m[k].paths = o.paths;
                m[k].hash[0] = o.hash[0];
                m[k].hash[1] = o.hash[1];
                if (rank == 0 && a->verify &&
                    (o.paths != ref_paths || o.hash[0] != ref_hash[0] || o.hash[1] != ref_hash[1] ||
                     o.iterations != ref_longest)) {
                    *rc_wrong = 1;
                    m[k].failed = 2;
                    snprintf(detail, dlen, "%s: closure of %lld paths in %d iterations, the "
                             "single-rank closure has %lld paths (fingerprint %s) and needs %d",
                             kernel_name(&m[k]), o.paths, o.iterations, ref_paths,
                             o.hash[0] == ref_hash[0] && o.hash[1] == ref_hash[1] ? "equal"
                                                                                 : "different",
                             ref_longest);
                }
            }
            if (opt.record) {
                recorded = 1;
                tc_counts c;
                if (gather_counts(&o, P, comm, &c) == 0 && rank == 0) {
                    char file[4096] = "", err[512];
                    int same = graph_counts_record(spec, g, &c, file, sizeof file, err, sizeof err);
                    if (same < 0)
                        printf("counts: not cached (%s)\n", err);
                    else if (same == 0) {
                        *rc_wrong = 1;
                        snprintf(detail, dlen, "the count matrices sent differ from the cached "
                                 "ones in %.900s", file);
                    } else
                        printf("counts: %d iterations x %d x %d %s %s\n", c.iterations, P, P,
                               same == 2 ? "recorded for dist = graph in"
                                         : "sent, equal to the cached ones in", file);
                    tc_counts_free(&c);
                }
            }
            free(o.sendcounts);
            if (rep >= 0) {
                double mine[3] = { o.total_s, o.comm_s, o.counts_s }, top[3];
                max_to_root(mine, top, 3, comm);
                m[k].total[m[k].n] = top[0];
                m[k].comm[m[k].n] = top[1];
                m[k].extra[m[k].n++] = top[2];
            }
            m[k].ended = wall();
        }
    if (rank == 0 && a->verify && !*rc_wrong)
        printf("verified: %lld paths and their fingerprint equal the single-rank closure "
               "(breadth-first search), %d iterations = its longest shortest path\n",
               ref_paths, ref_longest);
    tc_local_free(&local);
    return -1;
}

/* ---- the FFT ----------------------------------------------------------------------- */

/* Runs the FFT benchmark; returns -1 or an exit code. Collective over MPI_COMM_WORLD. */
static int app_fft(const app_args *a, fft_context *ctx, measured *m, int nk, int *rc_wrong,
                   char *detail, size_t dlen)
{
    MPI_Comm comm = MPI_COMM_WORLD;
    for (int rep = -a->warmup; rep < a->repetitions; rep++)
        for (int k = 0; k < nk; k++) {
            fft_options opt = { .kernel = m[k].kernel };
            memcpy(opt.params, m[k].params, sizeof opt.params);
            fft_outcome o;
            MPI_Barrier(comm);
            if (rep == -a->warmup && k == 0)
                m[k].started = wall();
            if (fft_forward(ctx, &opt, &o) != MPI_SUCCESS) {
                m[k].failed = 1;
                free(o.sendbytes);
                continue;
            }
            free(o.sendbytes);
            if (rep == -a->warmup) {
                long long mine[3] = { o.bytes_sent, o.bytes_moved, o.max_block }, sum[2], top;
                MPI_Reduce(mine, sum, 2, MPI_LONG_LONG, MPI_SUM, 0, comm);
                MPI_Reduce(&mine[2], &top, 1, MPI_LONG_LONG, MPI_MAX, 0, comm);
                m[k].bytes_sent = sum[0];
                m[k].bytes_moved = sum[1];
                m[k].max_block = top;
                m[k].iterations = 2;
                m[k].error = 0;
                if (a->verify) {
                    if (fft_verify(ctx, &m[k].error) != 0) {
                        if (ctx->rank == 0)
                            fprintf(stderr, "a2atune: app: fft: rank 0 lacks the memory to "
                                    "verify; rerun with --no-verify\n");
                        return EXIT_BAD_INPUT;
                    }
                    if (ctx->rank == 0 && !(m[k].error <= MAX_ERROR)) {
                        *rc_wrong = 1;
                        m[k].failed = 2;
                        snprintf(detail, dlen, "%s: maximum relative error %.3g against the "
                                 "single-rank FFTW transform (bound %.0e)", kernel_name(&m[k]),
                                 m[k].error, MAX_ERROR);
                    }
                }
            }
            if (rep >= 0) {
                double mine[2] = { o.total_s, o.comm_s }, top[2];
                max_to_root(mine, top, 2, comm);
                m[k].total[m[k].n] = top[0];
                m[k].comm[m[k].n++] = top[1];
            }
            m[k].ended = wall();
        }
    return -1;
}

/* ---- the command -------------------------------------------------------------------- */

/* Guarantees: the kernel named `name` for the workload, or NULL with the reason printed.
 * tc: nonuniform family. fft: uniform family if its transposes are uniform and such a
 * kernel exists, else nonuniform. */
static const a2a_kernel *pick_kernel(const char *name, int tc, int uniform, const char *size,
                                     int P, int family)
{
    const a2a_kernel *u = family == A2A_FAMILY_NONUNIFORM ? NULL
                                                          : a2a_find_kernel(A2A_FAMILY_UNIFORM, name);
    const a2a_kernel *v = family == A2A_FAMILY_UNIFORM ? NULL
                                                       : a2a_find_kernel(A2A_FAMILY_NONUNIFORM, name);
    if (u && a2a_kernel_needs_shared(u) && (!tc && uniform && (!v || family == A2A_FAMILY_UNIFORM))) {
        if (is_root)
            fprintf(stderr, "a2atune: app: kernel '%s' needs its buffers in a shared window "
                    "(alloc = shared in sweeps); the applications' buffers are private\n", name);
        return NULL;
    }
    if (!tc && uniform && u)
        return u;
    if (v)
        return v;
    if (is_root) {
        if (u && !tc)
            fprintf(stderr, "a2atune: app: kernel '%s' is of the uniform family, but the "
                    "transposes of %s at P = %d are non-uniform (alltoallv): choose a "
                    "nonuniform kernel (a2atune list)\n", name, size, P);
        else
            fprintf(stderr, "a2atune: app: unknown %skernel '%s' (a2atune list)\n",
                    tc ? "nonuniform " : "", name);
    }
    return NULL;
}

/* One `a2atune app` launch: its arguments, workload, kernels and outcome. */
typedef struct app_run {
    app_args a;
    int tc;                      /* tc, else fft */
    int rank, P;
    graph_spec spec;             /* tc */
    graph g;
    fft_size size;               /* fft */
    fft_context ctx;
    char size_text[128];
    int uniform;                 /* fft: the transposes are uniform at P */
    run_info info;
    int node_ranks, *oversub;    /* provenance; oversub: per P, P + 1 entries */
    measured m[2];               /* the chosen kernel, then the vendor collective */
    int nk;
    char best_name[64], summary[480]; /* --kernel best: what the database chose, and why */
    int wrong, failed;
    char detail[1024];           /* what was wrong */
    char tuned[2048];            /* --kernel tuned: what the dispatcher ran (rank 0) */
} app_run;

/* Parses the command line and the workload's spec or size (checked at P). Returns -1 to
 * go on, else the exit code (bad input said once). */
static int read_arguments(int argc, char **argv, app_run *R)
{
    char err[1200] = "";
    int rc = parse_args(argc, argv, &R->a);
    R->tc = strcmp(R->a.which, "tc") == 0;
#if !A2A_HAVE_FFTW
    if (rc < 0 && !R->tc)
        rc = bad("fft: FFTW 3 is not built in: this a2atune was built with FFTW=no or "
                 "without it%s%s", "", "");
#endif
    if (rc < 0 && R->tc && graph_spec_parse(R->a.graph_text, NULL, &R->spec, err, sizeof err))
        rc = bad("--graph: %s%s", err, "");
    if (rc < 0 && !R->tc && fft_size_parse(R->a.size_text, &R->size, err, sizeof err))
        rc = bad("--n: %s%s", err, "");
    if (rc < 0 && !R->tc && !fft_size_check(&R->size, R->P, err, sizeof err))
        rc = bad("--n %s: %s", R->a.size_text, err);
    return rc;
}

/* --kernel best: rank 0 looks it up in the database, everyone takes it as if given (name,
 * family, parameters). Returns -1 to go on, else EXIT_BAD_INPUT (said). Collective. */
static int take_best(app_run *R, int *best_family)
{
    char err[1200] = "";
    int found = 0;
    if (R->rank == 0) {
        found = db_best_app_kernel(R->a.db_path, R->tc, R->tc ? R->spec.text : R->size_text,
                                   R->P, best_family, R->best_name, sizeof R->best_name,
                                   R->a.params, R->summary, sizeof R->summary, err,
                                   sizeof err) == 0;
        if (!found)
            fprintf(stderr, "a2atune: app: %s\n", err);
    }
    MPI_Bcast(&found, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!found)
        return EXIT_BAD_INPUT;
    MPI_Bcast(R->best_name, sizeof R->best_name, MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_Bcast(best_family, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(R->a.params, A2A_PARAM_COUNT, MPI_INT, 0, MPI_COMM_WORLD);
    R->a.kernel_name = R->best_name;
    return -1;
}

/* The kernels: the chosen one (by name, FAMILY/NAME or best), then unless --no-vendor the
 * MPI library's collective of the transposes' (shuffle's) shape with its defaults; their
 * parameters completed and their sample arrays allocated. Returns -1 to go on, else the
 * exit code (said). Collective. */
static int choose_kernels(app_run *R)
{
    app_args *a = &R->a;
    int best_family = -1, rc;
    if (strcmp(a->kernel_name, "best") == 0 && (rc = take_best(R, &best_family)) >= 0)
        return rc;
    char family_name[32] = "";
    const char *slash = strchr(a->kernel_name, '/');
    if (slash && best_family < 0) { /* FAMILY/NAME, as a2atune prints configurations */
        snprintf(family_name, sizeof family_name, "%.*s", (int)(slash - a->kernel_name), a->kernel_name);
        best_family = a2a_family_by_name(family_name);
        if (best_family != A2A_FAMILY_UNIFORM && best_family != A2A_FAMILY_NONUNIFORM)
            return bad("--kernel %s: the family is uniform or nonuniform%s", a->kernel_name, "");
        a->kernel_name = slash + 1;
    }
    int tuned = strcmp(a->kernel_name, TUNED_NAME) == 0 && best_family < 0;
    for (int p = 0; p < A2A_PARAM_COUNT && tuned; p++)
        if (a->given[p])
            return bad("--kernel tuned takes no --%s: the dispatcher chooses kernels and "
                       "parameters%s", a2a_param_name((a2a_param)p), "");
    const a2a_kernel *chosen = tuned ? NULL : pick_kernel(a->kernel_name, R->tc, R->uniform,
                                                          R->size_text, R->P, best_family);
    if (!chosen && !tuned)
        return EXIT_BAD_INPUT;
    R->m[R->nk++].kernel = chosen;
    if (R->best_name[0]) /* every parameter as the database has it */
        for (int p = 0; p < A2A_PARAM_COUNT; p++)
            a->given[p] = a2a_kernel_takes(chosen, (a2a_param)p);
    const a2a_kernel *vendor =
        a2a_find_kernel(!R->tc && R->uniform ? A2A_FAMILY_UNIFORM : A2A_FAMILY_NONUNIFORM, "vendor");
    if (a->vendor && vendor && vendor != chosen)
        R->m[R->nk++].kernel = vendor;
    for (int k = 0; k < R->nk; k++) {
        int Q;
        char why[256];
        app_args own = *a;
        if (k > 0) /* the baseline takes its defaults */
            memset(own.given, 0, sizeof own.given);
        if (R->m[k].kernel && !complete_params(R->m[k].kernel, &own, R->P, R->node_ranks,
                                               R->m[k].params, &Q, why, sizeof why))
            return bad("%s%s", why, "");
        R->m[k].total = calloc((size_t)a->repetitions, sizeof(double));
        R->m[k].comm = calloc((size_t)a->repetitions, sizeof(double));
        R->m[k].extra = calloc((size_t)a->repetitions, sizeof(double));
    }
    return -1;
}

/* The workload on every rank (tc: the graph loaded; fft: the plans and data set up), then
 * rank 0 says what runs. Returns -1 to go on, else EXIT_BAD_INPUT (said). Collective. */
static int load_workload(app_run *R)
{
    char err[1200] = "";
    int ok = 1, all_ok;
    if (R->tc)
        ok = graph_load(&R->spec, &R->g, err, sizeof err) == 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (!all_ok)
        return bad("--graph: %s%s", err, "");
    if (!R->tc && fft_setup(&R->size, MPI_COMM_WORLD, R->a.seed, &R->ctx, err, sizeof err))
        return bad("fft: %s%s", err, "");
    if (R->rank == 0) {
        if (R->best_name[0]) {
            char what[200];
            describe_kernel(R->m[0].kernel, R->m[0].params, 1, what, sizeof what);
            printf("best in %s: %s (%s)\n", R->a.db_path, what, R->summary);
        }
        if (R->tc)
            printf("app tc: graph %s: %u vertices, %lld edges; P = %d\n", R->spec.text,
                   R->g.vertices, R->g.edges, R->P);
        else
            printf("app fft: %s complex double (%s), P = %d, %s transposes (%s)\n", R->size_text,
                   R->size.dims == 3 ? "3D, slabs" : "2D", R->P,
                   R->uniform ? "uniform" : "non-uniform", R->uniform ? "alltoall" : "alltoallv");
        fflush(stdout);
    }
    return -1;
}

/* Rank 0: the verification line, the closure's size, one line per kernel (total, IQR,
 * communication) and what was wrong. */
static void print_results(const app_run *R)
{
    const measured *m = R->m;
    if (!R->tc && R->a.verify && !R->wrong)
        printf("verified: maximum relative error %.3g against a single-rank FFTW transform "
               "(bound %.0e)\n", m[0].error, MAX_ERROR);
    if (R->tc)
        printf("closure: %lld paths in %d iterations; %.3f MB shuffled per closure "
               "(%.3f MB between ranks)\n", m[0].paths, m[0].iterations,
               m[0].bytes_sent / 1e6, m[0].bytes_moved / 1e6);
    printf("%-42s %12s %12s %12s %8s\n", "kernel", "total (ms)", "IQR (ms)", "comm (ms)",
           "comm %");
    for (int k = 0; k < R->nk; k++) {
        char what[200];
        describe_kernel(m[k].kernel, m[k].params, !R->tc, what, sizeof what);
        if (m[k].failed == 1) {
            printf("%-42s failed (the kernel returned an MPI error)\n", what);
            continue;
        }
        sample_summary s = summarize_samples(m[k].total, m[k].n);
        double comm = median_of(m[k].comm, m[k].n);
        printf("%-42s %12.3f %12.3f %12.3f %7.1f%%\n", what, s.median * 1e3,
               (s.q3 - s.q1) * 1e3, comm * 1e3, s.median > 0 ? 100 * comm / s.median : 0);
    }
    if (R->wrong)
        fprintf(stderr, "a2atune: app %s: WRONG: %s\n", R->a.which, R->detail);
}

/* Rank 0: stores kernel k's row (its samples and metrics) in run run_id. 0, or -1 with
 * one line in err. */
static int store_kernel(const app_run *R, int k, db *d, long long run_id, char *err,
                        size_t errlen)
{
    const measured *m = &R->m[k];
    int tc = R->tc;
    char *pj = params_json(m->kernel, m->params);
    char *dist_json = tc ? db_graph_dist_json(R->spec.text, R->g.vertices, R->g.edges)
                         : db_fft_dist_json(R->size_text, R->uniform);
    char message[2100] = "";
    if (m->failed == 2)
        snprintf(message, sizeof message, "%s", R->detail);
    else if (m->failed == 1)
        snprintf(message, sizeof message, "the kernel returned an MPI error");
    else if (!m->kernel)
        snprintf(message, sizeof message, "%s", R->tuned);
    metric metrics[9];
    int nm = 0;
    double comm = median_of(m->comm, m->n);
    metrics[nm++] = (metric){ "comm_s", comm, "s" };
    metrics[nm++] = (metric){ "comm_min_s", summarize_samples(m->comm, m->n).min, "s" };
    double comm_sum = 0;
    for (int i = 0; i < m->n; i++)
        comm_sum += m->comm[i];
    metrics[nm++] = (metric){ "comm_sum_s", comm_sum, "s" };
    metrics[nm++] = (metric){ "iterations", m->iterations, tc ? "closure iterations" : "transposes" };
    metrics[nm++] = (metric){ "bytes_shuffled", (double)m->bytes_sent, "bytes" };
    metrics[nm++] = (metric){ "repetitions", m->n, NULL };
    if (tc) {
        metrics[nm++] = (metric){ "counts_s", median_of(m->extra, m->n), "s" };
        metrics[nm++] = (metric){ "paths", (double)m->paths, "tuples" };
    } else if (R->a.verify) {
        metrics[nm++] = (metric){ "max_rel_error", m->error, NULL };
    }
    int P = R->P, Q = R->node_ranks < P ? R->node_ranks : P;
    if (m->params[A2A_PARAM_PPN] > 0)
        Q = m->params[A2A_PARAM_PPN] < P ? m->params[A2A_PARAM_PPN] : P;
    measurement row = {
        .section = R->a.which, .family = "app", .kernel = kernel_name(m),
        .dist = tc ? "graph" : "fft", .P = P, .Q = Q, .S = m->max_block,
        .params_json = pj, .dist_params_json = dist_json,
        .datatype = tc ? "uint64" : "double_complex",
        .seed = tc ? R->spec.seed : R->a.seed, .warmup = R->a.warmup,
        .oversubscribed = R->oversub[P], .status = m->failed == 2 ? STATUS_WRONG
                                                   : m->failed ? STATUS_ERROR : STATUS_OK,
        .message = message, .samples = m->total, .nsamples = m->failed ? 0 : m->n,
        .bytes_moved = m->bytes_moved, .metrics = metrics, .nmetrics = nm,
        .started = m->started, .ended = m->ended,
    };
    int rc = db_store_measurement(d, run_id, &row, err, errlen);
    free(pj);
    free(dist_json);
    return rc;
}

/* Rank 0 records the launch as a run of the database with one row per kernel and says
 * how to query them; every rank learns whether that worked. Returns 0, or 1 (said).
 * Collective. */
static int store_results(app_run *R)
{
    char err[1200] = "";
    int status = 0;
    db *d = NULL;
    long long run_id = 0;
    if (R->rank == 0) {
        R->info.sweep_file = NULL;
        R->info.sweep_text = NULL;
        R->info.section = R->a.which;
        R->info.command_line = R->a.command_line;
        if (db_open(R->a.db_path, &d, err, sizeof err) ||
            db_begin_run(d, &R->info, &run_id, err, sizeof err)) {
            fprintf(stderr, "a2atune: app: %s\n", err);
            status = 1;
        }
        for (int k = 0; k < R->nk && !status; k++)
            if (store_kernel(R, k, d, run_id, err, sizeof err)) {
                fprintf(stderr, "a2atune: app: %s\n", err);
                status = 1;
            }
        if (d) {
            db_end_run(d, run_id, status || R->wrong || R->failed ? "failed" : "done");
            db_close(d);
        }
        if (!status)
            printf("results: %s (run %lld): SELECT r.kernel, r.median_s, m.value AS comm_s "
                   "FROM results r JOIN metrics m ON m.result_id = r.id AND m.name = 'comm_s' "
                   "WHERE r.run_id = %lld\n", R->a.db_path, run_id, run_id);
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return status;
}

/* Rank 0: R->tuned says what the tuned dispatcher ran on MPI_COMM_WORLD (this rank's
 * record, the same on every rank: the online tuner decides alike everywhere), printed. */
static void tuned_summary(app_run *R)
{
    if (R->rank != 0)
        return;
    const char *mode = getenv("A2A_TUNING"), *file = getenv("A2A_TUNING_FILE");
    int online = mode && !strcmp(mode, "online");
    if (mode && *mode && !online && strcmp(mode, "file") != 0) { /* the dispatcher said why */
        snprintf(R->tuned, sizeof R->tuned, "tuned: A2A_TUNING=%.100s is neither online nor file: "
                 "every call on the MPI library", mode);
        printf("%s\n", R->tuned);
        return;
    }
    int n = snprintf(R->tuned, sizeof R->tuned, "tuned: %s%s%s",
                     online ? "A2A_TUNING=online" : "A2A_TUNING_FILE rules",
                     file && *file ? ", A2A_TUNING_FILE=" : "", file && *file ? file : "");
    char shapes[1900];
    if (online && A2A_Tuning_summary(MPI_COMM_WORLD, shapes, sizeof shapes) > 0)
        snprintf(R->tuned + n, sizeof R->tuned - (size_t)n, ": %s", shapes);
    else if (!online)
        snprintf(R->tuned + n, sizeof R->tuned - (size_t)n, "%s",
                 file && *file ? "" : " (A2A_TUNING_FILE not set: every call on the MPI library)");
    printf("%s\n", R->tuned);
}

/* The steps of a launch after MPI_Init: arguments, provenance, kernels, workload, the
 * measurement, the report and the rows. Returns the exit code. Collective. */
static int run_app(int argc, char **argv, app_run *R)
{
    int rc = read_arguments(argc, argv, R);
    if (rc >= 0)
        return rc;
    R->node_ranks = 1;
    R->oversub = calloc((size_t)R->P + 1, sizeof *R->oversub);
    collect_provenance(MPI_COMM_WORLD, &R->info, &R->node_ranks, R->oversub);
    R->uniform = !R->tc && fft_size_uniform(&R->size, R->P);
    if (!R->tc)
        fft_size_text(&R->size, R->size_text, sizeof R->size_text);
    if ((rc = choose_kernels(R)) >= 0 || (rc = load_workload(R)) >= 0)
        return rc;
    rc = R->tc ? app_tc(&R->a, R->P, R->m, R->nk, &R->spec, &R->g, &R->wrong, R->detail,
                        sizeof R->detail)
               : app_fft(&R->a, &R->ctx, R->m, R->nk, &R->wrong, R->detail, sizeof R->detail);
    if (rc >= 0)
        return rc;
    for (int k = 0; k < R->nk; k++)
        R->failed |= R->m[k].failed == 1;
    if (!R->m[0].kernel)
        tuned_summary(R);
    if (R->rank == 0)
        print_results(R);
    if (R->a.use_db && store_results(R))
        return EXIT_BAD_INPUT;
    MPI_Bcast(&R->wrong, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return R->wrong || R->failed ? EXIT_WRONG : EXIT_OK;
}

/* Guarantees: see cli.h. */
int command_app(int argc, char **argv)
{
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(app_usage, stdout);
            return EXIT_OK;
        }
    MPI_Init(&argc, &argv);
    app_run *R = calloc(1, sizeof *R);
    MPI_Comm_rank(MPI_COMM_WORLD, &R->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &R->P);
    is_root = R->rank == 0;
    int rc;
    if (argc < 3 || (strcmp(argv[2], "tc") != 0 && strcmp(argv[2], "fft") != 0)) {
        rc = bad(argc < 3 ? "needs tc or fft%s%s" : "unknown application '%s' (tc or fft)%s",
                 argc < 3 ? "" : argv[2], "");
        free(R);
        MPI_Finalize();
        return rc;
    }
    rc = run_app(argc, argv, R);
    for (int k = 0; k < 2; k++) {
        free(R->m[k].total);
        free(R->m[k].comm);
        free(R->m[k].extra);
    }
    free(R->oversub);
    A2A_Tuning_finalize(); /* A2A_TUNING_OUT: the online tuner's file (collective) */
    graph_free(&R->g);
    fft_free(&R->ctx);
    fft_cleanup();
    free(R);
    MPI_Finalize();
    return rc;
}
