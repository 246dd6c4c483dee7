/* run_command.c — `a2atune run`: sweep file -> configurations -> runner -> database. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>
#include "cli.h"
#include "configs.h"
#include "counting.h"
#include "db.h"
#include "polite.h"
#include "provenance.h"
#include "runner.h"
#include "watchdog.h"

static double now(void)
{
    return wall_seconds();
}

/* Rank 0's verdict, shared with every rank. */
static int share(int value)
{
    MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return value;
}

/* Reads a whole file; NULL with a message on failure. */
static char *read_file(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot read the sweep file: %m", path);
        return NULL;
    }
    size_t cap = 4096, len = 0;
    char *text = malloc(cap);
    size_t got;
    while ((got = fread(text + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (cap - len - 1 == 0)
            text = realloc(text, cap *= 2);
    }
    fclose(f);
    text[len] = '\0';
    if (strlen(text) != len) {
        snprintf(err, errlen, "%s: not a text file (contains NUL bytes)", path);
        free(text);
        return NULL;
    }
    return text;
}

static void format_seconds(double s, char *text, size_t len)
{
    if (s < 1e-3)
        snprintf(text, len, "%.2f us", s * 1e6);
    else if (s < 1)
        snprintf(text, len, "%.3f ms", s * 1e3);
    else
        snprintf(text, len, "%.3f s", s);
}

/* ---- resume: which configuration keys are already recorded ----------------------- */

typedef struct key_set {
    char **keys;
    int count, capacity;
} key_set;

static void add_key(const char *key, void *ctx)
{
    key_set *set = ctx;
    if (set->count == set->capacity) {
        set->capacity = set->capacity ? 2 * set->capacity : 256;
        set->keys = realloc(set->keys, (size_t)set->capacity * sizeof *set->keys);
    }
    set->keys[set->count++] = strdup(key);
}

static int compare_keys(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ---- the watchdog's last act ----------------------------------------------------- */

typedef struct timeout_context {
    const char *db_path;
    long long run_id;
    const sweep_section *section;
    const config *config;
    double started;
} timeout_context;

/* Records the hung configuration as `timeout` through its own connection and ends
 * the process; the launcher then ends the other ranks. */
static void on_timeout(void *arg)
{
    timeout_context *t = arg;
    char what[300], err[512];
    config_describe(t->config, what, sizeof what);
    result_record r = { .status = "timeout", .started = t->started, .ended = now() };
    snprintf(r.message, sizeof r.message,
             "exceeded the time limit of %.0f s; the launch was ended (rerun with --resume to "
             "continue after this configuration)", t->config->timeout);
    db *d;
    if (db_open(t->db_path, &d, err, sizeof err) == 0) {
        if (db_store_result(d, t->run_id, t->section, t->config, &r, NULL, 0, err, sizeof err))
            fprintf(stderr, "a2atune: %s\n", err);
        db_end_run(d, t->run_id, "timeout");
        db_close(d);
    } else {
        fprintf(stderr, "a2atune: %s\n", err);
    }
    fprintf(stderr, "a2atune: TIMEOUT %s: %s\n", what, r.message);
    _exit(EXIT_TIMEOUT);
}

/* ---- the command ------------------------------------------------------------------- */

static int fail_input(int rank, const char *err)
{
    if (rank == 0)
        fprintf(stderr, "a2atune: %s\n", err);
    return EXIT_BAD_INPUT;
}

/* Guarantees: see cli.h. Collective over MPI_COMM_WORLD. */
int command_run(const run_options *opt)
{
    int rank, world;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    char err[1024] = "";

    /* A wrong srun --mpi plugin starts P singletons. Rank 0's view decides for everyone:
     * under mpirun inside an allocation, ranks on other nodes inherit SLURM_NTASKS of their
     * node's launch daemon, not the job's. The P singletons are each rank 0: only Slurm's
     * task 0 speaks, so the launch says it in one line. */
    const char *slurm_tasks = getenv("SLURM_NTASKS");
    if (share(rank == 0 && slurm_tasks && atoi(slurm_tasks) != world)) {
        const char *procid = getenv("SLURM_PROCID");
        snprintf(err, sizeof err, "MPI_Comm_size is %d but Slurm started %s tasks: the MPI "
                 "launcher plugin does not match this MPI library (srun --mpi=...)", world,
                 slurm_tasks ? slurm_tasks : "?");
        return fail_input(procid && atoi(procid) != 0 ? 1 : rank, err);
    }

    /* the sweep text comes from rank 0, so every rank expands the very same file */
    char *text = NULL;
    long long text_len = -1;
    if (rank == 0 && (text = read_file(opt->sweep_path, err, sizeof err)))
        text_len = (long long)strlen(text);
    MPI_Bcast(&text_len, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    if (text_len < 0)
        return fail_input(rank, err);
    if (rank != 0)
        text = malloc((size_t)text_len + 1);
    MPI_Bcast(text, (int)text_len + 1, MPI_CHAR, 0, MPI_COMM_WORLD);

    sweep *sw = NULL;
    if (sweep_load(opt->sweep_path, text, &sw, err, sizeof err)) {
        free(text);
        return fail_input(rank, err);
    }
    free(text);

    run_info info;
    int *oversubscribed_at = calloc((size_t)world + 1, sizeof *oversubscribed_at);
    launch_info launch = { .world = world };
    collect_provenance(MPI_COMM_WORLD, &info, &launch.node_ranks, oversubscribed_at);
    double available = rank == 0 ? memory_available() * 0.8 : 0;
    MPI_Bcast(&available, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    launch.mem_available = available;

    config *configs = NULL;
    char *counters = NULL;
    int nconfigs = 0, rc = EXIT_OK;
    if (expand_sweep(sw, &launch, opt->section, &configs, &nconfigs, err, sizeof err)) {
        rc = fail_input(rank, err);
        goto out;
    }

    if (opt->counters) {
        if (counters_list_expand(opt->counters, &counters, err, sizeof err)) {
            char line[1100];
            snprintf(line, sizeof line, "--counters: %s", err);
            rc = fail_input(rank, line);
            goto out;
        }
        for (int i = 0; i < nconfigs; i++)
            configs[i].counters = counters;
    }

    if (opt->dry_run) {
        if (rank == 0) {
            int runnable = 0;
            for (int i = 0; i < nconfigs; i++) {
                char what[300];
                config_describe(&configs[i], what, sizeof what);
                printf("%5d  %s%s%s\n", i + 1, what, configs[i].skip ? "  SKIPPED: " : "",
                       configs[i].skip ? configs[i].reason : "");
                runnable += !configs[i].skip;
            }
            printf("%d configurations: %d to run, %d skipped\n", nconfigs, runnable,
                   nconfigs - runnable);
        }
        goto out;
    }

    /* rank 0 owns the database; everyone learns what is already recorded */
    db *d = NULL;
    long long run_id = 0;
    char *recorded = calloc((size_t)nconfigs + 1, 1);
    info.sweep_file = opt->sweep_path;
    info.sweep_text = sw->text;
    info.section = opt->section;
    info.command_line = opt->command_line;
    int status = 0;
    if (rank == 0) {
        if (db_open(opt->db_path, &d, err, sizeof err)) {
            status = 1;
        } else if (opt->resume) {
            int found = db_find_resumable_run(d, &info, &run_id);
            if (found < 0) {
                snprintf(err, sizeof err, "%s: cannot look for a run to resume", opt->db_path);
                status = 1;
            } else if (found == 0) {
                fprintf(stderr, "a2atune: --resume: no earlier run of this sweep in %s; starting "
                        "a new run\n", opt->db_path);
            } else {
                key_set done = { 0 };
                db_recorded_keys(d, run_id, add_key, &done);
                qsort(done.keys, (size_t)done.count, sizeof *done.keys, compare_keys);
                int skipped = 0;
                for (int i = 0; i < nconfigs; i++) {
                    const char *key = configs[i].key;
                    recorded[i] = bsearch(&key, done.keys, (size_t)done.count,
                                          sizeof *done.keys, compare_keys) != NULL;
                    skipped += recorded[i];
                }
                for (int i = 0; i < done.count; i++)
                    free(done.keys[i]);
                free(done.keys);
                db_reopen_run(d, run_id);
                fprintf(stderr, "a2atune: resuming run %lld: %d of %d configurations already "
                        "recorded\n", run_id, skipped, nconfigs);
            }
        }
        if (!status && run_id == 0 && db_begin_run(d, &info, &run_id, err, sizeof err))
            status = 1;
    }
    if (share(status)) {
        db_close(d);
        free(recorded);
        rc = fail_input(rank, err);
        goto out;
    }
    MPI_Bcast(recorded, nconfigs, MPI_CHAR, 0, MPI_COMM_WORLD);

    /* one communicator of the first P ranks for every P that runs */
    MPI_Comm *comm_of = calloc((size_t)world + 1, sizeof *comm_of);
    for (int P = 1; P <= world; P++)
        comm_of[P] = MPI_COMM_NULL;
    for (int i = 0; i < nconfigs; i++) {
        int P = configs[i].P;
        if (configs[i].skip || recorded[i] || comm_of[P] != MPI_COMM_NULL)
            continue;
        MPI_Comm_split(MPI_COMM_WORLD, rank < P ? 0 : MPI_UNDEFINED, rank, &comm_of[P]);
        if (comm_of[P] == MPI_COMM_NULL)
            comm_of[P] = MPI_COMM_SELF; /* marks "created, this rank idles" */
        else
            MPI_Comm_set_errhandler(comm_of[P], MPI_ERRORS_RETURN);
    }

    int todo = 0, done_count = 0, counts[5] = { 0 };
    for (int i = 0; i < nconfigs; i++)
        todo += !configs[i].skip && !recorded[i];
    if (rank == 0) {
        watchdog_start();
        if (info.oversubscribed)
            fprintf(stderr, "a2atune: note: %d ranks on %d cores: configurations with more ranks "
                    "than cores are oversubscribed (flagged in the database); their timings "
                    "measure the scheduler\n", info.ppn, info.cores_per_node);
        fprintf(stderr, "a2atune: %d configurations (%d to run) -> %s, run %lld\n", nconfigs, todo,
                opt->db_path, run_id);
    }
    int max_iterations = 1;
    for (int i = 0; i < nconfigs; i++)
        if (configs[i].iterations > max_iterations)
            max_iterations = configs[i].iterations;
    double *samples = malloc((size_t)max_iterations * sizeof *samples);
    double t_start = now();
    static const char *const status_names[5] = { "ok", "wrong", "error", "skipped", "timeout" };

    for (int i = 0; i < nconfigs; i++) {
        const config *c = &configs[i];
        if (recorded[i])
            continue;
        const sweep_section *sec = &sw->sections[c->section];
        result_record r = { .status = "skipped", .oversubscribed = oversubscribed_at[c->P < world ? c->P : world] };
        r.started = now();
        if (c->skip) {
            snprintf(r.message, sizeof r.message, "%s", c->reason);
        } else {
            timeout_context tc = { opt->db_path, run_id, sec, c, r.started };
            if (rank == 0)
                watchdog_arm(c->timeout, on_timeout, &tc);
            if (rank < c->P)
                run_config(c, comm_of[c->P], &r, samples);
            polite_barrier(MPI_COMM_WORLD);
            if (rank == 0)
                watchdog_disarm();
            done_count++;
        }
        r.ended = now();
        if (rank != 0)
            continue;
        int nsamples = strcmp(r.status, "ok") == 0 ? c->iterations : 0;
        if (db_store_result(d, run_id, sec, c, &r, samples, nsamples, err, sizeof err)) {
            fprintf(stderr, "a2atune: %s\n", err);
            status = 1;
        }
        for (int s = 0; s < 5; s++)
            if (strcmp(r.status, status_names[s]) == 0)
                counts[s]++;
        if (!opt->quiet && !c->skip) {
            char what[300], median[32] = "", iqr[32] = "", eta[32] = "";
            config_describe(c, what, sizeof what);
            if (strcmp(r.status, "ok") == 0) {
                format_seconds(r.summary.median, median, sizeof median);
                format_seconds(r.summary.q3 - r.summary.q1, iqr, sizeof iqr);
            }
            double elapsed = now() - t_start;
            double left = elapsed / done_count * (todo - done_count);
            snprintf(eta, sizeof eta, "%d:%02d", (int)left / 60, (int)left % 60);
            fprintf(stderr, "[%*d/%d] %-5s %s", (int)snprintf(NULL, 0, "%d", todo), done_count,
                    todo, r.status, what);
            if (median[0] && r.summary.n > 0)
                fprintf(stderr, "  median %s (IQR %s)", median, iqr);
            else if (strcmp(r.status, "ok") == 0)
                fprintf(stderr, "  validated (iterations = 0: not timed)");
            else
                fprintf(stderr, "  %s", r.message);
            fprintf(stderr, "  ETA %s\n", eta);
        }
        if (strcmp(r.status, "ok") != 0 && strcmp(r.status, "skipped") != 0) {
            char what[300];
            config_describe(c, what, sizeof what);
            fprintf(stderr, "a2atune: %s %s: %s\n", r.status == status_names[1] ? "WRONG" : "ERROR",
                    what, r.message);
        }
    }
    status = share(status);
    if (rank == 0) {
        db_end_run(d, run_id, status ? "failed" : counts[1] + counts[2] ? "failed" : "done");
        db_close(d);
        fprintf(stderr, "a2atune: finished in %.1f s: %d ok, %d wrong, %d error, %d skipped\n",
                now() - t_start, counts[0], counts[1], counts[2], counts[3]);
        if (counts[1] + counts[2])
            fprintf(stderr, "a2atune: wrong or failed configurations are listed above and in the "
                    "database (status <> 'ok')\n");
        printf("results: %s (run %lld)\n", opt->db_path, run_id);
        const char *tunable = NULL; /* a kernel of this run with a radix, for the figures */
        for (int i = 0; i < nconfigs && !tunable; i++)
            if (!configs[i].skip && a2a_kernel_takes(configs[i].kernel, A2A_PARAM_RADIX))
                tunable = configs[i].kernel->name;
        printf("look at them:\n  scripts/a2a summary --db %s\n", opt->db_path);
        if (tunable)
            printf("  scripts/a2a best-radix --db %s --format markdown\n"
                   "  scripts/a2a heatmap --db %s --kernel %s      (figures in results/figures/)\n",
                   opt->db_path, opt->db_path, tunable);
        printf("  sqlite3 -header -column %s \"SELECT kernel, P, S, dist, params, median_s, "
               "status FROM results WHERE run_id = %lld\"\n", opt->db_path, run_id);
    }
    rc = status ? EXIT_BAD_INPUT : (counts[1] + counts[2]) ? EXIT_WRONG : EXIT_OK;
    rc = share(rc);
    for (int P = 1; P <= world; P++)
        if (comm_of[P] != MPI_COMM_NULL && comm_of[P] != MPI_COMM_SELF)
            MPI_Comm_free(&comm_of[P]);
    free(comm_of);
    free(samples);
    free(recorded);
out:
    free(counters);
    free(configs);
    free(oversubscribed_at);
    sweep_free(sw);
    return rc;
}
