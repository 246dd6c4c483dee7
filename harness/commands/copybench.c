/* copybench.c — `a2atune copybench`: temporal, non-temporal and hybrid copy bandwidth on one
 * and on all cores, stored in the results database (see copybench.h). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "configs.h"
#include "copybench.h"
#include "db.h"
#include "nt_memcpy.h"
#include "provenance.h"
#include "stats.h"
#include "vlist.h"

static const char copybench_usage[] =
    "usage: a2atune copybench [--db PATH] [--sizes LIST] [--threads N] [--samples N]\n"
    "                         [--min-time SECONDS] [--quiet]\n"
    "\n"
    "The copy bandwidth of this machine, STREAM-style: memcpy (temporal), non-temporal\n"
    "stores (nt) and the hybrid copy (the first L2-size bytes temporal, the rest\n"
    "non-temporal), on one core and on all cores at once (one thread per core, each with its\n"
    "own buffers). Stored in the database as family 'copy' (kernel memcpy | nt | hybrid,\n"
    "P = threads, S = bytes per copy, samples = seconds per copy) with the metrics GB/s,\n"
    "best_GB/s and stream_GB/s (2 x GB/s: read + write, as STREAM counts); a table goes to\n"
    "stdout. One process: run it without mpirun.\n"
    "  --db PATH         results database (default results/a2a.db)\n"
    "  --sizes LIST      bytes per copy, a sweep-file list (default 4K..256M:*4)\n"
    "  --threads N       threads for 'all cores' (default: the online cores)\n"
    "  --samples N       timed samples per size, copy and core count (default 11)\n"
    "  --min-time S      a sample repeats the copy for at least S seconds (default 0.005)\n"
    "  --quiet           no table\n"
    "example:\n"
    "  a2atune copybench --db results/copy.db\n"
    "  sqlite3 results/copy.db \"SELECT kernel, P, S, value FROM results JOIN metrics ON\n"
    "    metrics.result_id = results.id WHERE family = 'copy' AND name = 'GB/s'\"\n";

enum { COPY_MEMCPY, COPY_NT, COPY_HYBRID, COPY_METHODS };
static const char *const method_names[COPY_METHODS] = { "memcpy", "nt", "hybrid" };

typedef struct copy_options {
    const char *db_path, *sizes;
    int threads, samples, quiet;
    double min_time;
    char command_line[4096];
} copy_options;

/* What every thread does next: written by thread 0 before the "posted" barrier. */
typedef struct bench {
    int threads;
    size_t max_bytes, n, threshold;
    int method, reps, stop, alloc_failed;
    double *elapsed; /* per thread: seconds for `reps` copies */
    pthread_barrier_t barrier;
} bench;

typedef struct worker_arg {
    bench *b;
    int id;
} worker_arg;

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double unix_now(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + tv.tv_usec * 1e-6;
}

static void copy_once(int method, void *dst, const void *src, size_t n, size_t threshold)
{
    if (method == COPY_MEMCPY)
        memcpy(dst, src, n);
    else if (method == COPY_NT)
        a2a_nt_memcpy(dst, src, n);
    else
        a2a_hybrid_memcpy(dst, src, n, threshold);
}

/* Guarantees: a source and a destination of max_bytes, written by the calling thread (so
 * their pages are placed near it); NULL pointers and alloc_failed set on failure. */
static void thread_buffers(bench *b, int id, char **src, char **dst)
{
    size_t n = b->max_bytes ? b->max_bytes : 1;
    *src = malloc(n);
    *dst = malloc(n);
    if (!*src || !*dst) {
        free(*src);
        free(*dst);
        *src = *dst = NULL;
        b->alloc_failed = 1;
        return;
    }
    for (size_t i = 0; i < n; i++)
        (*src)[i] = (char)(i * 7 + (size_t)id);
    memset(*dst, 0, n);
}

/* Guarantees: threads 1.. run every job thread 0 posts, between a "posted" and a "done"
 * barrier, until stop; their buffers are freed at the end. */
static void *worker(void *arg)
{
    worker_arg *w = arg;
    bench *b = w->b;
    char *src, *dst;
    thread_buffers(b, w->id, &src, &dst);
    pthread_barrier_wait(&b->barrier); /* buffers ready */
    for (;;) {
        pthread_barrier_wait(&b->barrier); /* posted */
        if (b->stop)
            break;
        double t0 = seconds_now();
        for (int r = 0; r < b->reps && src; r++)
            copy_once(b->method, dst, src, b->n, b->threshold);
        b->elapsed[w->id] = seconds_now() - t0;
        pthread_barrier_wait(&b->barrier); /* done */
    }
    free(src);
    free(dst);
    return NULL;
}

/* Guarantees: thread 0 posts the job in *b, does its own share, and returns the slowest
 * thread's seconds for b->reps copies once every thread is done. */
static double post_job(bench *b, char *src, char *dst)
{
    pthread_barrier_wait(&b->barrier);
    double t0 = seconds_now();
    for (int r = 0; r < b->reps; r++)
        copy_once(b->method, dst, src, b->n, b->threshold);
    b->elapsed[0] = seconds_now() - t0;
    pthread_barrier_wait(&b->barrier);
    double slowest = 0;
    for (int t = 0; t < b->threads; t++)
        if (b->elapsed[t] > slowest)
            slowest = b->elapsed[t];
    return slowest;
}

/* Stores one (method, threads, size) measurement; returns 0 or -1 with err. */
static int store(db *d, long long run_id, const bench *b, const double *samples, int nsamples,
                 double started, char *err, size_t errlen)
{
    sample_summary s = summarize_samples(samples, nsamples);
    double bytes = (double)b->n * b->threads;
    metric metrics[3] = {
        { "GB/s", s.median > 0 ? bytes / s.median / 1e9 : 0, "GB/s" },
        { "best_GB/s", s.min > 0 ? bytes / s.min / 1e9 : 0, "GB/s" },
        { "stream_GB/s", s.median > 0 ? 2 * bytes / s.median / 1e9 : 0, "GB/s" },
    };
    char params[256];
    int n = snprintf(params, sizeof params, "{\"isa\":\"%s\",\"reps\":%d,\"threads\":%d",
                     a2a_nt_isa_name(a2a_nt_isa_selected()), b->reps, b->threads);
    if (b->method == COPY_HYBRID)
        snprintf(params + n, sizeof params - (size_t)n, ",\"threshold\":%zu}", b->threshold);
    else
        snprintf(params + n, sizeof params - (size_t)n, "}");
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    measurement m = {
        .section = "copybench", .family = "copy", .kernel = method_names[b->method],
        .dist = "constant", .P = b->threads, .Q = b->threads, .S = (long long)b->n,
        .params_json = params, .datatype = "byte", .warmup = 1,
        .oversubscribed = cores > 0 && b->threads > cores, .status = STATUS_OK,
        .samples = samples, .nsamples = nsamples, .bytes_moved = (long long)bytes,
        .metrics = metrics, .nmetrics = 3, .started = started, .ended = unix_now(),
    };
    return db_store_measurement(d, run_id, &m, err, errlen);
}

/* Guarantees: every size and copy measured with `threads` threads (thread 0 is the caller)
 * and stored; the threads are joined and every buffer freed before it returns. Returns an
 * exit code. */
static int run_threads(const copy_options *opt, int threads, const long long *sizes, int nsizes,
                       db *d, long long run_id)
{
    bench b = { .threads = threads };
    for (int i = 0; i < nsizes; i++)
        if ((size_t)sizes[i] > b.max_bytes)
            b.max_bytes = (size_t)sizes[i];
    b.elapsed = calloc((size_t)threads, sizeof *b.elapsed);
    pthread_t *tids = calloc((size_t)threads, sizeof *tids);
    worker_arg *args = calloc((size_t)threads, sizeof *args);
    double *samples = calloc((size_t)opt->samples, sizeof *samples);
    if (!b.elapsed || !tids || !args || !samples) {
        fprintf(stderr, "a2atune: copybench: out of memory\n");
        free(b.elapsed);
        free(tids);
        free(args);
        free(samples);
        return EXIT_WRONG;
    }
    pthread_barrier_init(&b.barrier, NULL, (unsigned)threads);
    char *src, *dst;
    thread_buffers(&b, 0, &src, &dst);
    for (int t = 1; t < threads; t++) {
        args[t] = (worker_arg){ &b, t };
        if (pthread_create(&tids[t], NULL, worker, &args[t]) != 0) {
            /* the barrier counts every thread: the started ones could never leave it */
            fprintf(stderr, "a2atune: copybench: cannot start %d threads\n", threads);
            exit(EXIT_WRONG);
        }
    }
    int rc = EXIT_OK;
    pthread_barrier_wait(&b.barrier); /* buffers ready */
    if (b.alloc_failed) {
        fprintf(stderr, "a2atune: copybench: cannot allocate 2 x %zu bytes per thread\n",
                b.max_bytes);
        rc = EXIT_WRONG;
    }
    size_t l2 = a2a_l2_cache_bytes();
    for (int i = 0; i < nsizes && rc == EXIT_OK; i++)
        for (int method = 0; method < COPY_METHODS && rc == EXIT_OK; method++) {
            double t_start = unix_now();
            b.n = (size_t)sizes[i];
            b.method = method;
            b.threshold = l2;
            b.reps = 1;
            post_job(&b, src, dst); /* warm-up */
            double t = post_job(&b, src, dst);
            while (t < opt->min_time && b.reps < 1000000) { /* a sample lasts min_time */
                double f = t > 0 ? 1.25 * opt->min_time / t : 10;
                f = f < 2 ? 2 : f > 10 ? 10 : f;
                b.reps = (int)fmin(1e6, ceil(b.reps * f));
                t = post_job(&b, src, dst);
            }
            for (int s = 0; s < opt->samples; s++)
                samples[s] = post_job(&b, src, dst) / b.reps;
            char err[512];
            if (store(d, run_id, &b, samples, opt->samples, t_start, err, sizeof err)) {
                fprintf(stderr, "a2atune: copybench: %s\n", err);
                rc = EXIT_BAD_INPUT;
            }
            if (!opt->quiet) {
                sample_summary s = summarize_samples(samples, opt->samples);
                char size[32];
                format_bytes((long long)b.n, size, sizeof size);
                printf("%-7s %7d %9s %10.2f %10.2f %10.3g %6d\n", method_names[method], threads,
                       size, (double)b.n * threads / s.median / 1e9,
                       (double)b.n * threads / s.min / 1e9, s.median, b.reps);
                fflush(stdout);
            }
        }
    b.stop = 1;
    pthread_barrier_wait(&b.barrier); /* the workers see stop */
    for (int t = 1; t < threads; t++)
        pthread_join(tids[t], NULL);
    pthread_barrier_destroy(&b.barrier);
    free(src);
    free(dst);
    free(b.elapsed);
    free(tids);
    free(args);
    free(samples);
    return rc;
}

static int bad_option(const char *fmt, const char *arg)
{
    fprintf(stderr, "a2atune: copybench: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (see a2atune copybench --help)\n");
    return EXIT_BAD_INPUT;
}

/* Parses the options; returns -1 on success, else an exit code (after printing). */
static int parse_options(int argc, char **argv, copy_options *opt)
{
    *opt = (copy_options){ .db_path = "results/a2a.db", .sizes = "4K..256M:*4", .samples = 11,
                           .min_time = 0.005 };
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    opt->threads = cores > 0 ? (int)cores : 1;
    join_command_line(argc, argv, opt->command_line, sizeof opt->command_line);
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(copybench_usage, stdout);
            return EXIT_OK;
        }
        if (strcmp(a, "--quiet") == 0) {
            opt->quiet = 1;
            continue;
        }
        int takes = !strcmp(a, "--db") || !strcmp(a, "--sizes") || !strcmp(a, "--threads") ||
                    !strcmp(a, "--samples") || !strcmp(a, "--min-time");
        if (!takes)
            return bad_option(a[0] == '-' ? "unknown option '%s'" : "unexpected argument '%s'", a);
        if (i + 1 >= argc)
            return bad_option("%s needs a value", a);
        const char *v = argv[++i];
        char *end = NULL;
        if (!strcmp(a, "--db")) {
            opt->db_path = v;
        } else if (!strcmp(a, "--sizes")) {
            opt->sizes = v;
        } else if (!strcmp(a, "--min-time")) {
            opt->min_time = strtod(v, &end);
            if (end == v || *end || !(opt->min_time >= 0) || opt->min_time > 60)
                return bad_option("--min-time '%s' is not a number of seconds in 0..60", v);
        } else {
            long n = strtol(v, &end, 10);
            int lo = 1, hi = !strcmp(a, "--threads") ? 1024 : 100000;
            if (end == v || *end || n < lo || n > hi)
                return bad_option(!strcmp(a, "--threads") ? "--threads '%s' is not in 1..1024"
                                                          : "--samples '%s' is not in 1..100000",
                                  v);
            if (!strcmp(a, "--threads"))
                opt->threads = (int)n;
            else
                opt->samples = (int)n;
        }
    }
    return -1;
}

/* Guarantees: see copybench.h. */
int command_copybench(int argc, char **argv)
{
    copy_options opt;
    int rc = parse_options(argc, argv, &opt);
    if (rc >= 0)
        return rc;
    char err[1024];
    vlist *list = NULL;
    long long *sizes = NULL;
    int nsizes = 0;
    if (vlist_parse(opt.sizes, &list, err, sizeof err) ||
        vlist_eval(list, &(vlist_env){ 1, 1, 1, 1, 0 }, &sizes, &nsizes, err, sizeof err)) {
        vlist_free(list);
        free(sizes);
        return bad_option("--sizes: %s", err);
    }
    vlist_free(list);
    long long largest = 0;
    for (int i = 0; i < nsizes; i++) {
        if (sizes[i] < 1 || sizes[i] > (1LL << 40)) {
            free(sizes);
            snprintf(err, sizeof err, "--sizes: %lld is outside 1..1TiB", sizes[i]);
            return bad_option("%s", err);
        }
        if (sizes[i] > largest)
            largest = sizes[i];
    }
    if (nsizes == 0) {
        free(sizes);
        return bad_option("--sizes '%s' gives no size", opt.sizes);
    }
    double need = 2.0 * (double)largest * opt.threads, available = memory_available();
    if (available > 0 && need > 0.8 * available) {
        free(sizes);
        snprintf(err, sizeof err, "%d threads x 2 x %lld bytes need %.1f GiB, %.1f GiB "
                 "available", opt.threads, largest, need / (1 << 30), available / (1 << 30));
        return bad_option("%s", err);
    }

    MPI_Init(&argc, &argv);
    int world;
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    if (world != 1) {
        int rank;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (rank == 0)
            fprintf(stderr, "a2atune: copybench measures the threads of one process; start it "
                    "without mpirun (or with -n 1), not with %d ranks\n", world);
        free(sizes);
        MPI_Finalize();
        return EXIT_BAD_INPUT;
    }
    run_info info;
    int node_ranks = 0, oversubscribed_at[2];
    collect_provenance(MPI_COMM_WORLD, &info, &node_ranks, oversubscribed_at);
    info.sweep_file = NULL;
    info.sweep_text = NULL;
    info.section = "copybench";
    info.command_line = opt.command_line;
    db *d = NULL;
    long long run_id = 0;
    if (db_open(opt.db_path, &d, err, sizeof err) ||
        db_begin_run(d, &info, &run_id, err, sizeof err)) {
        fprintf(stderr, "a2atune: %s\n", err);
        db_close(d);
        free(sizes);
        MPI_Finalize();
        return EXIT_BAD_INPUT;
    }
    if (!opt.quiet)
        printf("copy bandwidth (%s stores, L2 %zu bytes per core; GB/s = bytes copied by all "
               "threads per second)\n%-7s %7s %9s %10s %10s %10s %6s\n",
               a2a_nt_isa_name(a2a_nt_isa_selected()), a2a_l2_cache_bytes(), "copy", "threads",
               "size", "GB/s", "best_GB/s", "median_s", "reps");
    rc = run_threads(&opt, 1, sizes, nsizes, d, run_id);
    if (rc == EXIT_OK && opt.threads > 1)
        rc = run_threads(&opt, opt.threads, sizes, nsizes, d, run_id);
    db_end_run(d, run_id, rc == EXIT_OK ? "done" : "failed");
    db_close(d);
    if (!opt.quiet)
        printf("results: %s (run %lld, family 'copy')\n", opt.db_path, run_id);
    free(sizes);
    MPI_Finalize();
    return rc;
}
