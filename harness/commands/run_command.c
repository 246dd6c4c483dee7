/* run_command.c — `a2atune run`: sweep file -> configurations -> runner -> database. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>
#include "cli.h"
#include "configs.h"
#include "counting.h"
#include "counters.h"
#include "crash_guard.h"
#include "db.h"
#include "dist_provider.h"
#include "heartbeat.h"
#include "polite.h"
#include "provenance.h"
#include "runner.h"
#include "schedule.h"
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
    struct stat sb;
    if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
        snprintf(err, errlen, "%s: is a directory, not a sweep file", path);
        fclose(f);
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
    int failed = ferror(f);
    fclose(f);
    text[len] = '\0';
    if (failed) {
        snprintf(err, errlen, "%s: cannot read the sweep file", path);
        free(text);
        return NULL;
    }
    if (strlen(text) != len) {
        snprintf(err, errlen, "%s: not a text file (contains NUL bytes)", path);
        free(text);
        return NULL;
    }
    return text;
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

static void sort_keys(key_set *set)
{
    if (set->count)
        qsort(set->keys, (size_t)set->count, sizeof *set->keys, compare_keys);
}

static int has_key(const key_set *set, const char *key)
{
    return set->count && bsearch(&key, set->keys, (size_t)set->count, sizeof *set->keys,
                                 compare_keys) != NULL;
}

static void free_keys(key_set *set)
{
    for (int i = 0; i < set->count; i++)
        free(set->keys[i]);
    free(set->keys);
    memset(set, 0, sizeof *set);
}

/* What identifies a configuration across runs: its key without the section name
 * (kernel, P, Q, S, dist and its parameters, payload, datatype, layout, iterations,
 * warmup, seed, kernel parameters); the run adds MPI library, version and host class. */
static const char *identity(const sweep *sw, const config *c)
{
    return c->key + strlen(sw->sections[c->section].name) + 1;
}

typedef struct recorded_sets {
    key_set ok, skipped, ok_any_Q;
} recorded_sets;

/* The identity without its "|Q=..." part: a configuration too large for this launch has
 * no ranks per node of its own here, so it is matched on everything else. */
static void without_Q(const char *identity, char *out, size_t len)
{
    const char *q = strstr(identity, "|Q=");
    if (!q) {
        snprintf(out, len, "%s", identity);
        return;
    }
    const char *rest = strchr(q + 1, '|');
    snprintf(out, len, "%.*s%s", (int)(q - identity), identity, rest ? rest : "");
}

static void add_recorded(const char *identity, result_status status, void *ctx)
{
    recorded_sets *sets = ctx;
    add_key(identity, status == STATUS_OK ? &sets->ok : &sets->skipped);
    if (status == STATUS_OK) {
        char any_Q[sizeof ((config *)0)->key];
        without_Q(identity, any_Q, sizeof any_Q);
        add_key(any_Q, &sets->ok_any_Q);
    }
}

typedef struct live_plan {
    key_set keys;
    long long run_id;
} live_plan;

static void add_live(const char *identity, long long run_id, void *ctx)
{
    live_plan *live = ctx;
    add_key(identity, &live->keys);
    live->run_id = run_id;
}

/* Which configurations are already done, for --resume (rank 0): recorded[i] = 1 for
 * every configuration recorded in the continued run *continued (any status), or 'ok'
 * in any run of the same MPI library, version and host class, or, when it would only be
 * skipped again, recorded 'skipped' there. Says what it found on stderr unless quiet
 * (dry runs say it on stdout). Returns 0, or -1 when the database cannot be read. */
static int find_recorded(db *d, const run_info *info, const sweep *sw, const config *configs,
                         int nconfigs, char *recorded, long long *continued, FILE *out)
{
    key_set in_run = { 0 };
    recorded_sets done = { { 0 }, { 0 }, { 0 } };
    int found = db_find_resumable_run(d, info, continued);
    if (found < 0 || (found && db_recorded_keys(d, *continued, add_key, &in_run)) ||
        db_recorded_identities(d, info, add_recorded, &done)) {
        free_keys(&in_run);
        free_keys(&done.ok);
        free_keys(&done.skipped);
        free_keys(&done.ok_any_Q);
        return -1;
    }
    if (!found)
        *continued = 0;
    sort_keys(&in_run);
    sort_keys(&done.ok);
    sort_keys(&done.skipped);
    sort_keys(&done.ok_any_Q);
    int in_continued = 0, ok_elsewhere = 0, skipped_before = 0, left = 0;
    for (int i = 0; i < nconfigs; i++) {
        const char *id = identity(sw, &configs[i]);
        char any_Q[sizeof configs[i].key];
        without_Q(id, any_Q, sizeof any_Q);
        if (has_key(&in_run, configs[i].key))
            recorded[i] = 1, in_continued++;
        else if (has_key(&done.ok, id) ||
                 (configs[i].P > info->world_size && has_key(&done.ok_any_Q, any_Q)))
            recorded[i] = 1, ok_elsewhere++;
        else if (configs[i].skip && has_key(&done.skipped, id))
            recorded[i] = 1, skipped_before++;
        left += !recorded[i] && !configs[i].skip;
    }
    if (*continued)
        fprintf(out, "a2atune: --resume: continuing run %lld (the same sweep text, launch size "
                "and MPI library): %d configurations recorded there\n", *continued, in_continued);
    else
        fprintf(out, "a2atune: --resume: no earlier run of this very sweep text and launch size; "
                "a new run reuses what the database holds\n");
    fprintf(out, "a2atune: --resume: %d already ok in other runs (same configuration, MPI "
            "library and version, host class; any sweep text or launch size), %d skipped "
            "before and again now: not redone; %d left to run\n", ok_elsewhere, skipped_before,
            left);
    free_keys(&in_run);
    free_keys(&done.ok);
    free_keys(&done.skipped);
    free_keys(&done.ok_any_Q);
    return 0;
}

/* The identities this launch will run, one a line (the run's plan). */
static char *plan_text(const sweep *sw, const config *configs, int nconfigs, const char *recorded)
{
    size_t len = 1;
    for (int i = 0; i < nconfigs; i++)
        if (!configs[i].skip && !recorded[i])
            len += strlen(identity(sw, &configs[i])) + 1;
    char *text = malloc(len), *at = text;
    *at = '\0';
    for (int i = 0; i < nconfigs; i++)
        if (!configs[i].skip && !recorded[i])
            at += sprintf(at, "%s\n", identity(sw, &configs[i]));
    return text;
}

/* Rank 0 before a run: under the database's write lock, marks runs whose launch is gone
 * 'interrupted', refuses (1, the reason in err) when a live run plans a configuration
 * this one would run, finds what --resume need not redo, starts or continues the run and
 * records this launch's pid and plan in it. Returns 0, 1 (refused), 2 (--resume finds
 * nothing left to run or record: no run is started) or -1 (err). */
static int claim_run(db *d, const run_options *opt, run_info *info, const sweep *sw,
                     const config *configs, int nconfigs, char *recorded, long long *run_id,
                     char *err, size_t errlen)
{
    char msg[512];
    if (db_transaction(d, "BEGIN IMMEDIATE", msg, sizeof msg)) {
        snprintf(err, errlen, "%s: %s", opt->db_path, msg);
        return -1;
    }
    int marked = 0, rc = -1;
    live_plan live = { { 0 }, 0 };
    char *plan = NULL, *resume_note = NULL;
    /* dead runs are marked for good, even when this launch is then refused */
    int unreadable = db_mark_dead_runs(d, info->host, HEARTBEAT_STALE_SECONDS, &marked);
    if (!unreadable && marked && (db_transaction(d, "COMMIT", msg, sizeof msg) ||
                                  db_transaction(d, "BEGIN IMMEDIATE", msg, sizeof msg))) {
        snprintf(err, errlen, "%s: %s", opt->db_path, msg);
        goto out;
    }
    if (unreadable || db_live_plans(d, add_live, &live)) {
        snprintf(err, errlen, "%s: cannot read its runs", opt->db_path);
        goto out;
    }
    /* what --resume found is said once the launch is known to go ahead */
    size_t note_len = 0;
    FILE *note = opt->resume ? open_memstream(&resume_note, &note_len) : NULL;
    unreadable = opt->resume && (!note || find_recorded(d, info, sw, configs, nconfigs,
                                                        recorded, run_id, note));
    if (note)
        fclose(note);
    if (unreadable) {
        snprintf(err, errlen, "%s: cannot look for what is already recorded", opt->db_path);
        goto out;
    }
    sort_keys(&live.keys);
    int overlap = 0, first = -1;
    for (int i = 0; i < nconfigs; i++)
        if (!configs[i].skip && !recorded[i] && has_key(&live.keys, identity(sw, &configs[i]))) {
            overlap++;
            if (first < 0)
                first = i;
        }
    if (overlap) {
        char what[300];
        config_describe(&configs[first], what, sizeof what);
        snprintf(err, errlen, "%s: run %lld is live (its launch is still running) and plans "
                 "%d of the configurations this launch would run (%s, ...); wait for it to end "
                 "or end it (a run whose processes died is marked interrupted)", opt->db_path,
                 live.run_id, overlap, what);
        rc = 1;
        goto out;
    }
    int pending = 0;
    for (int i = 0; i < nconfigs; i++)
        pending += !recorded[i];
    if (opt->resume && pending == 0) { /* nothing to run or to record: no new run */
        rc = db_transaction(d, "COMMIT", msg, sizeof msg) ? -1 : 2;
        if (rc < 0)
            snprintf(err, errlen, "%s: %s", opt->db_path, msg);
        goto out;
    }
    if (*run_id)
        db_reopen_run(d, *run_id);
    else if (db_begin_run(d, info, run_id, err, errlen))
        goto out;
    plan = plan_text(sw, configs, nconfigs, recorded);
    if (db_claim_run(d, *run_id, plan)) {
        snprintf(err, errlen, "%s: cannot record the run's plan", opt->db_path);
        goto out;
    }
    if (db_transaction(d, "COMMIT", msg, sizeof msg)) {
        snprintf(err, errlen, "%s: %s", opt->db_path, msg);
        goto out;
    }
    rc = 0;
out:
    if (rc == 1 || rc < 0) {
        db_transaction(d, "ROLLBACK", NULL, 0);
    } else {
        if (marked)
            fprintf(stderr, "a2atune: %d earlier run(s) in %s marked interrupted: their "
                    "processes are gone\n", marked, opt->db_path);
        if (resume_note)
            fputs(resume_note, stderr);
    }
    free(resume_note);
    free(plan);
    free_keys(&live.keys);
    return rc;
}

/* Rank 0's verdict, shared with every rank without spinning while they wait. */
static int polite_share(int value)
{
    MPI_Request req;
    MPI_Ibcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD, &req);
    polite_wait(&req);
    return value;
}

/* Warns (rank 0, one line) about events of `list` this machine cannot count: unknown
 * names or events without hardware support; they are recorded with available = 0. */
static void warn_uncountable(const char *where, const char *list)
{
    char err[256], names[1024] = "";
    counter_set *set = counters_open(list, err, sizeof err);
    if (!set)
        return;
    int bad = 0;
    size_t used = 0;
    for (int i = 0; i < counters_count(set); i++)
        if (!counters_available(set, i) && used < sizeof names) {
            used += (size_t)snprintf(names + used, sizeof names - used, "%s%s (%.80s)",
                                     bad ? ", " : "", counters_name(set, i),
                                     counters_reason(set, i));
            bad++;
        }
    if (bad)
        fprintf(stderr, "a2atune: warning: %s: %d of %d events cannot be counted here: %s; "
                "they are recorded with available = 0 and the reason (a2atune counters "
                "shows what works)\n", where, bad, counters_count(set), names);
    counters_close(set);
}

/* ---- the watchdog's last act ----------------------------------------------------- */

typedef struct timeout_context {
    const char *db_path;
    long long run_id;
    const sweep_section *section;
    const config *config;
    double started;
    const int *counts;  /* per result_status so far (NULL: not a sweep's launch) */
    double launched;    /* when the launch started */
} timeout_context;

/* Configurations stored so far, from the counts per result_status. */
static int done_count_stored(const int *counts)
{
    int n = 0;
    for (int s = 0; s < STATUS_COUNT; s++)
        n += counts[s];
    return n;
}

/* Configurations that failed (wrong or error) so far: the launch's exit status. */
static int wrong_or_error(const int *counts)
{
    return counts[STATUS_WRONG] + counts[STATUS_ERROR];
}

/* Records the configuration as `status` with message through its own connection, ends
 * the run as run_status and says so (what happened: "TIMEOUT", how the launch ended: "a
 * timeout"), as the launch's last act. */
static void record_last(const timeout_context *t, result_status status, const char *message,
                        const char *run_status, const char *what_happened, const char *ended_by)
{
    char what[300], err[512];
    config_describe(t->config, what, sizeof what);
    result_record r = { .status = status, .started = t->started, .ended = now() };
    snprintf(r.message, sizeof r.message, "%s", message);
    db *d;
    if (db_open(t->db_path, &d, err, sizeof err) == 0) {
        if (db_store_result(d, t->run_id, t->section, t->config, &r, NULL, 0, err, sizeof err))
            fprintf(stderr, "a2atune: %s: cannot store %s: %s\n", t->db_path, what, err);
        db_end_run(d, t->run_id, run_status);
        db_close(d);
    } else {
        fprintf(stderr, "a2atune: %s\n", err);
    }
    fprintf(stderr, "a2atune: %s %s: %s\n", what_happened, what, r.message);
    if (t->counts) /* a sweep's launch: its summary line, as at its end */
        fprintf(stderr, "a2atune: ended by %s after %.1f s: %d ok, %d wrong, %d error, "
                "%d skipped, %d timeout\n", ended_by, now() - t->launched,
                t->counts[STATUS_OK], t->counts[STATUS_WRONG],
                t->counts[STATUS_ERROR] + (status == STATUS_ERROR),
                t->counts[STATUS_SKIPPED], status == STATUS_TIMEOUT);
}

/* Records the hung configuration as `timeout` and ends the process; the launcher then
 * ends the other ranks. */
static void on_timeout(void *arg)
{
    const timeout_context *t = arg;
    char message[300];
    snprintf(message, sizeof message,
             "exceeded the time limit of %g s; the launch was ended (rerun with --resume to "
             "continue after this configuration)", t->config->timeout);
    record_last(t, STATUS_TIMEOUT, message, "timeout", "TIMEOUT", "a timeout");
    _exit(EXIT_TIMEOUT);
}

/* Simulation build: records the configuration during which the process received a fatal
 * signal as `error` naming the signal, and ends the process (crash_guard.h). */
static void on_crash(void *arg, int signo)
{
    const timeout_context *t = arg;
    char message[300];
    snprintf(message, sizeof message,
             "the simulation died of %s while this configuration ran; the launch was ended "
             "(rerun with --resume to continue after this configuration)",
             crash_guard_signal_name(signo));
    record_last(t, STATUS_ERROR, message, "crashed", "CRASH", "a crash");
    _exit(EXIT_CRASH);
}

/* Rank 0: the guards of configuration t (its time limit, and in the simulation build its
 * crashes) armed, or with t NULL disarmed. */
static void guard(timeout_context *t)
{
    if (t) {
        watchdog_arm(t->config->timeout, on_timeout, t);
        crash_guard_arm(on_crash, t);
    } else {
        crash_guard_disarm();
        watchdog_disarm();
    }
}

/* ---- the command ------------------------------------------------------------------- */

static int fail_input(int rank, const char *err)
{
    if (rank == 0)
        fprintf(stderr, "a2atune: %s\n", err);
    return EXIT_BAD_INPUT;
}

/* A wrong srun --mpi plugin starts P singletons. Rank 0's view decides for everyone:
 * under mpirun inside an allocation, ranks on other nodes inherit SLURM_NTASKS of their
 * node's launch daemon, not the job's. The P singletons are each rank 0: only Slurm's
 * task 0 speaks, so the launch says it in one line. Returns EXIT_OK when Slurm's task
 * count is MPI's (or there is no Slurm), else EXIT_BAD_INPUT with the line said. */
static int check_slurm_tasks(int rank, int world)
{
    const char *slurm_tasks = getenv("SLURM_NTASKS");
    if (!share(rank == 0 && slurm_tasks && atoi(slurm_tasks) != world))
        return EXIT_OK;
    const char *procid = getenv("SLURM_PROCID");
    char err[1024];
    snprintf(err, sizeof err, "MPI_Comm_size is %d but Slurm started %s tasks: the MPI "
             "launcher plugin does not match this MPI library (srun --mpi=...)", world,
             slurm_tasks ? slurm_tasks : "?");
    return fail_input(procid && atoi(procid) != 0 ? 1 : rank, err);
}

/* Expands the sweep on every rank, rank 0 first: it computes what the graph cache lacks,
 * saying so (unless quiet), and the other ranks then read the cache instead of computing
 * the same closures. Returns expand_sweep's result (every rank the same). Collective. */
static int expand_everywhere(const run_options *opt, const sweep *sw, const launch_info *launch,
                             int rank, config **configs, int *nconfigs, char *err, size_t errlen)
{
    wl_provider_installed()->progress(rank == 0 && !opt->quiet ? stderr : NULL);
    if (rank != 0)
        polite_barrier(MPI_COMM_WORLD);
    int expanded = expand_sweep(sw, launch, opt->section, configs, nconfigs, err, errlen);
    if (rank == 0)
        polite_barrier(MPI_COMM_WORLD);
    wl_provider_installed()->progress(NULL);
    return expanded;
}

/* --counters LIST overrides every configuration's events (*counters: the expanded list,
 * owned by the caller); without it rank 0 warns about the first section's events that
 * cannot be counted here. Returns EXIT_OK, or EXIT_BAD_INPUT for a bad list (said). */
static int set_counters(const run_options *opt, const sweep *sw, config *configs, int nconfigs,
                        int rank, char **counters)
{
    char err[1024];
    if (opt->counters) {
        if (counters_list_expand(opt->counters, counters, err, sizeof err)) {
            char line[1100];
            snprintf(line, sizeof line, "--counters: %s", err);
            return fail_input(rank, line);
        }
        for (int i = 0; i < nconfigs; i++)
            configs[i].counters = *counters;
        if (rank == 0)
            warn_uncountable("--counters", *counters);
    } else if (rank == 0) {
        for (int s = 0; s < sw->nsections; s++)
            if (sw->sections[s].counters) {
                char where[600];
                snprintf(where, sizeof where, "%s:%d: counters", sw->path,
                         sw->sections[s].setting[KEY_COUNTERS].line);
                warn_uncountable(where, sw->sections[s].counters);
                break; /* one line: sections usually share the list */
            }
    }
    return EXIT_OK;
}

/* The run's provenance from the command line: the sweep, its text and the launch options. */
static void describe_run(run_info *info, const run_options *opt, const sweep *sw)
{
    info->sweep_file = opt->sweep_path;
    info->sweep_text = sw->text;
    info->section = opt->section;
    info->command_line = opt->command_line;
    info->launch_group = opt->launch_group;
    info->launch_index = opt->launch_index;
    info->launches = opt->launches;
    info->shuffled = opt->shuffle;
    info->order_seed = opt->order_seed;
}

/* --dry-run: rank 0 lists every configuration (with --resume, what is recorded) and the
 * counts; nothing is run or written. Returns the exit code (every rank the same).
 * Collective. */
static int dry_run(const run_options *opt, const run_info *info, const sweep *sw,
                   const config *configs, int nconfigs, char *recorded, int rank)
{
    char err[1024] = "";
    int rc = EXIT_OK;
    if (rank == 0) {
        struct stat sb;
        db *d = NULL;
        long long continued = 0;
        if (opt->resume && stat(opt->db_path, &sb) != 0) {
            printf("a2atune: --resume: %s does not exist yet: nothing is recorded\n",
                   opt->db_path);
        } else if (opt->resume && (db_open(opt->db_path, &d, err, sizeof err) ||
                                   find_recorded(d, info, sw, configs, nconfigs, recorded,
                                                 &continued, stdout))) {
            if (d)
                snprintf(err, sizeof err, "%s: cannot look for what is recorded", opt->db_path);
            rc = EXIT_BAD_INPUT;
        }
        db_close(d);
        int runnable = 0, done = 0;
        for (int i = 0; i < nconfigs && rc == EXIT_OK; i++) {
            char what[300];
            config_describe(&configs[i], what, sizeof what);
            printf("%5d  %s%s%s\n", i + 1, what,
                   recorded[i] ? "  RECORDED" : configs[i].skip ? "  SKIPPED: " : "",
                   recorded[i] || !configs[i].skip ? "" : configs[i].reason);
            runnable += !configs[i].skip && !recorded[i];
            done += recorded[i];
        }
        if (rc == EXIT_OK && opt->resume)
            printf("%d configurations: %d to run, %d skipped, %d already recorded\n",
                   nconfigs, runnable, nconfigs - runnable - done, done);
        else if (rc == EXIT_OK)
            printf("%d configurations: %d to run, %d skipped\n", nconfigs, runnable,
                   nconfigs - runnable);
    }
    rc = share(rc);
    if (rc)
        fail_input(rank, err);
    return rc;
}

/* Rank 0 opens the database and claims the run (--resume: continues one; the heartbeat
 * starts), then every rank learns what is already recorded. Returns 0, 2 when nothing is
 * left to run (said), or 1 with the reason in err (every rank the same). Collective. */
static int open_run(const run_options *opt, run_info *info, const sweep *sw,
                    const config *configs, int nconfigs, char *recorded, int rank, db **d,
                    long long *run_id, char *err, size_t errlen)
{
    int status = 0;
    if (rank == 0) {
        if (db_open(opt->db_path, d, err, errlen))
            status = 1;
        else if ((status = claim_run(*d, opt, info, sw, configs, nconfigs, recorded, run_id,
                                     err, errlen)) == 2)
            fprintf(stderr, "a2atune: --resume: nothing left to run: every configuration is "
                    "recorded in %s\n", opt->db_path);
        else if (status == 0)
            heartbeat_start(opt->db_path, *run_id);
        else
            status = 1;
    }
    status = share(status);
    if (status == 0)
        MPI_Bcast(recorded, nconfigs, MPI_CHAR, 0, MPI_COMM_WORLD);
    return status;
}

/* One launch of a sweep while it measures: what every step of the loop needs. */
typedef struct launch_run {
    const run_options *opt;
    const sweep *sw;
    const config *configs;
    int nconfigs;
    const char *recorded;      /* 1: already in the database (--resume) */
    const int *oversubscribed_at;
    MPI_Comm *comm_of;         /* per P (comms_for_sizes) */
    schedule plan;
    int rank, world;
    db *d;                     /* rank 0 */
    long long run_id;
    int to_run, done_count, counts[STATUS_COUNT];
    double t_launch, t_start;  /* when the launch began, when measuring began */
    double *samples;
} launch_run;

/* Orders the configurations that run (schedule.h), counts them, starts rank 0's watchdog
 * and says what is ahead; allocates room for the most samples a configuration takes. */
static void plan_run(launch_run *L, const run_info *info)
{
    char *runs = calloc((size_t)L->nconfigs + 1, 1);
    for (int i = 0; i < L->nconfigs; i++) {
        runs[i] = !L->configs[i].skip && !L->recorded[i];
        L->to_run += runs[i];
    }
    if (schedule_make(L->configs, L->nconfigs, runs, L->opt->shuffle, L->opt->order_seed,
                      &L->plan)) {
        fprintf(stderr, "a2atune: out of memory ordering the configurations\n");
        MPI_Abort(MPI_COMM_WORLD, EXIT_BAD_INPUT);
    }
    free(runs);
    if (L->rank == 0) {
        watchdog_start();
        crash_guard_start();
        if (info->oversubscribed)
            fprintf(stderr, "a2atune: note: %d ranks on %d cores: configurations with more ranks "
                    "than cores are oversubscribed (flagged in the database); their timings "
                    "measure the scheduler\n", info->ppn, info->cores_per_node);
        fprintf(stderr, "a2atune: %d configurations (%d to run) -> %s, run %lld\n", L->nconfigs,
                L->to_run, L->opt->db_path, L->run_id);
    }
    int max_iterations = 1;
    for (int i = 0; i < L->nconfigs; i++)
        if (L->configs[i].iterations == SWEEP_ITERATIONS_AUTO && max_iterations < SWEEP_AUTO_MAX_ITERATIONS)
            max_iterations = SWEEP_AUTO_MAX_ITERATIONS;
        else if (L->configs[i].iterations > max_iterations)
            max_iterations = L->configs[i].iterations;
    L->samples = malloc((size_t)max_iterations * sizeof *L->samples);
}

/* Measures configuration c (index i) on its ranks under rank 0's watchdog, or records a
 * skipped one with its reason; then the ranks meet as the schedule says. Fills r (rank 0). */
static void measure_one(launch_run *L, int i, const config *c, result_record *r)
{
    const sweep_section *sec = &L->sw->sections[c->section];
    r->started = now();
    if (c->skip) {
        snprintf(r->message, sizeof r->message, "%s", c->reason);
    } else {
        timeout_context tc = { L->opt->db_path, L->run_id, sec, c, r->started, L->counts,
                               L->t_launch };
        if (L->rank == 0)
            guard(&tc);
        if (L->rank < c->P)
            run_config(c, L->comm_of[c->P], r, L->samples);
        if (L->plan.meet_after[i] && L->rank < c->P) /* the ranks at work change next */
            polite_barrier(MPI_COMM_WORLD);
        else if (L->plan.meet_after[i])
            idle_barrier(MPI_COMM_WORLD);
        else if (L->rank < c->P)
            polite_barrier(L->comm_of[c->P]);
        if (L->rank == 0)
            guard(NULL);
        L->done_count++;
    }
    r->ended = now();
}

/* Rank 0: the progress line of a stored row (unless quiet or skipped) and the WRONG or
 * ERROR line of a failed one. */
static void report_row(const launch_run *L, const config *c, const result_record *r)
{
    if (!L->opt->quiet && !c->skip) {
        char what[300], median[32] = "", iqr[32] = "", eta[32] = "";
        config_describe(c, what, sizeof what);
        if (r->status == STATUS_OK) {
            stats_format_seconds(r->summary.median, median, sizeof median);
            stats_format_seconds(r->summary.q3 - r->summary.q1, iqr, sizeof iqr);
        }
        double elapsed = now() - L->t_start;
        double left = elapsed / L->done_count * (L->to_run - L->done_count);
        snprintf(eta, sizeof eta, "%d:%02d", (int)left / 60, (int)left % 60);
        fprintf(stderr, "[%*d/%d] %-5s %s", (int)snprintf(NULL, 0, "%d", L->to_run),
                L->done_count, L->to_run, db_status_name(r->status), what);
        if (median[0] && r->summary.n > 0)
            fprintf(stderr, "  median %s (IQR %s)", median, iqr);
        else if (r->status == STATUS_OK)
            fprintf(stderr, "  validated (iterations = 0: not timed)");
        else
            fprintf(stderr, "  %s", r->message);
        fprintf(stderr, "  ETA %s\n", eta);
    }
    if (r->status != STATUS_OK && r->status != STATUS_SKIPPED) {
        char what[300];
        config_describe(c, what, sizeof what);
        fprintf(stderr, "a2atune: %s %s: %s\n", r->status == STATUS_WRONG ? "WRONG" : "ERROR",
                what, r->message);
    }
}

/* Measures and stores every configuration not yet recorded, in the schedule's order; the
 * first row rank 0 cannot store ends the launch. Returns 1 then, else 0 (every rank the
 * same). Collective. */
static int measure_all(launch_run *L)
{
    char err[1024];
    int status = 0;
    for (int k = 0; k < L->nconfigs; k++) {
        int i = L->plan.order[k];
        const config *c = &L->configs[i];
        if (L->recorded[i])
            continue;
        int P = c->P < L->world ? c->P : L->world;
        result_record r = { .status = STATUS_SKIPPED, .oversubscribed = L->oversubscribed_at[P],
                            .idle_ranks = c->P < L->world ? L->world - c->P : 0 };
        measure_one(L, i, c, &r);
        if (L->rank != 0) {
            if (polite_share(0)) /* rank 0 could not store it: the launch ends */
                break;
            continue;
        }
        int nsamples = r.status == STATUS_OK ? r.iterations : 0;
        if (db_store_result(L->d, L->run_id, &L->sw->sections[c->section], c, &r, L->samples,
                            nsamples, err, sizeof err)) {
            /* the first write that fails ends the launch: nothing measured after it
             * could be kept (full disk, a lost or damaged database) */
            char what[300];
            config_describe(c, what, sizeof what);
            fprintf(stderr, "a2atune: %s: cannot store %s: %s; the launch ends here (%d "
                    "configurations stored; make room and rerun with --resume)\n",
                    L->opt->db_path, what, err, done_count_stored(L->counts));
            status = 1;
            polite_share(1);
            break;
        }
        polite_share(0);
        L->counts[r.status]++;
        report_row(L, c, &r);
    }
    return share(status);
}

/* Rank 0: ends the run in the database (load, final status) and says how it went and how
 * to look at the results. */
static void finish_run(const launch_run *L, int status)
{
    const run_options *opt = L->opt;
    heartbeat_stop();
    db_note_run_load(L->d, L->run_id, load_average());
    db_end_run(L->d, L->run_id, status ? "failed" : wrong_or_error(L->counts) ? "failed" : "done");
    db_close(L->d);
    fprintf(stderr, "a2atune: %s in %.1f s: %d ok, %d wrong, %d error, %d skipped\n",
            status ? "ended" : "finished", now() - L->t_launch, L->counts[STATUS_OK],
            L->counts[STATUS_WRONG], L->counts[STATUS_ERROR], L->counts[STATUS_SKIPPED]);
    if (wrong_or_error(L->counts))
        fprintf(stderr, "a2atune: wrong or failed configurations are listed above and in the "
                "database (status <> 'ok')\n");
    printf("results: %s (run %lld)\n", opt->db_path, L->run_id);
    const char *tunable = NULL; /* a kernel of this run with a radix, for the figures */
    for (int i = 0; i < L->nconfigs && !tunable; i++)
        if (!L->configs[i].skip && a2a_kernel_takes(L->configs[i].kernel, A2A_PARAM_RADIX))
            tunable = L->configs[i].kernel->name;
    printf("look at them:\n  scripts/a2a summary --db %s\n", opt->db_path);
    if (tunable)
        printf("  scripts/a2a best-radix --db %s --format markdown\n"
               "  scripts/a2a heatmap --db %s --kernel %s      (figures in results/figures/)\n",
               opt->db_path, opt->db_path, tunable);
    printf("  sqlite3 -header -column %s \"SELECT kernel, P, S, dist, params, median_s, "
           "status FROM results WHERE run_id = %lld\"\n", opt->db_path, L->run_id);
}

/* Measures the configurations of an opened run and ends it; returns the exit code
 * (every rank the same). Collective. */
static int run_launch(launch_run *L, const run_info *info)
{
    /* one communicator of the first P ranks for every P that runs */
    L->comm_of = comms_for_sizes(L->configs, L->nconfigs, L->recorded, L->world);
    plan_run(L, info);
    L->t_start = now();
    int status = measure_all(L);
    schedule_free(&L->plan);
    if (L->rank == 0)
        finish_run(L, status);
    int rc = status ? EXIT_BAD_INPUT : (wrong_or_error(L->counts)) ? EXIT_WRONG : EXIT_OK;
    rc = share(rc);
    free_comms(L->comm_of, L->world);
    free(L->samples);
    return rc;
}

/* Guarantees: see cli.h. Collective over MPI_COMM_WORLD: the steps above in order. */
int command_run(const run_options *opt)
{
    launch_run L = { .opt = opt, .t_launch = now() }; /* the summary counts the whole
                                                         launch, graph closures included */
    MPI_Comm_rank(MPI_COMM_WORLD, &L.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &L.world);
    char err[1024] = "";
    int rc = check_slurm_tasks(L.rank, L.world);
    if (rc != EXIT_OK)
        return rc;

    /* the sweep text comes from rank 0, so every rank expands the very same file */
    sweep *sw = NULL;
    if (load_sweep_everywhere(opt->sweep_path, &sw, err, sizeof err))
        return fail_input(L.rank, err);
    run_info info;
    launch_info launch;
    int *oversubscribed_at = describe_launch(&info, &launch);
    config *configs = NULL;
    char *counters = NULL, *recorded = NULL;
    int nconfigs = 0;
    if (expand_everywhere(opt, sw, &launch, L.rank, &configs, &nconfigs, err, sizeof err))
        rc = fail_input(L.rank, err);
    else
        rc = set_counters(opt, sw, configs, nconfigs, L.rank, &counters);
    if (rc == EXIT_OK) {
        describe_run(&info, opt, sw);
        recorded = calloc((size_t)nconfigs + 1, 1);
    }
    if (rc == EXIT_OK && opt->dry_run) {
        rc = dry_run(opt, &info, sw, configs, nconfigs, recorded, L.rank);
    } else if (rc == EXIT_OK) {
        /* rank 0 owns the database; everyone learns what is already recorded */
        int status = open_run(opt, &info, sw, configs, nconfigs, recorded, L.rank, &L.d,
                              &L.run_id, err, sizeof err);
        if (status != 0) {
            db_close(L.d);
            if (status == 1)
                rc = fail_input(L.rank, err);
        } else {
            L.sw = sw;
            L.configs = configs;
            L.nconfigs = nconfigs;
            L.recorded = recorded;
            L.oversubscribed_at = oversubscribed_at;
            rc = run_launch(&L, &info);
        }
    }
    free(recorded);
    free(counters);
    free(configs);
    free(oversubscribed_at);
    sweep_free(sw);
    return rc;
}

/* ---- shared with `a2atune tune` (tune_command.c) ---------------------------------- */

/* Guarantees: see cli.h. Collective over MPI_COMM_WORLD. */
int *describe_launch(run_info *info, launch_info *launch)
{
    int rank, world;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    int *oversubscribed_at = calloc((size_t)world + 1, sizeof *oversubscribed_at);
    *launch = (launch_info){ .world = world };
    collect_provenance(MPI_COMM_WORLD, info, &launch->node_ranks, oversubscribed_at);
    double available = rank == 0 ? memory_available() * 0.8 : 0;
    MPI_Bcast(&available, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    launch->mem_available = available;
    return oversubscribed_at;
}

/* Guarantees: see cli.h. Collective over MPI_COMM_WORLD. */
int load_sweep_everywhere(const char *path, sweep **sw, char *err, size_t errlen)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char *text = NULL;
    long long text_len = -1;
    if (rank == 0 && (text = read_file(path, err, errlen)))
        text_len = (long long)strlen(text);
    MPI_Bcast(&text_len, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    if (text_len < 0)
        return -1;
    if (rank != 0)
        text = malloc((size_t)text_len + 1);
    MPI_Bcast(text, (int)text_len + 1, MPI_CHAR, 0, MPI_COMM_WORLD);
    int rc = sweep_load(path, text, sw, err, errlen);
    free(text);
    return rc;
}

/* Guarantees: see cli.h. Collective over MPI_COMM_WORLD. */
MPI_Comm *comms_for_sizes(const config *configs, int n, const char *done, int world)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm *comm_of = calloc((size_t)world + 1, sizeof *comm_of);
    for (int P = 1; P <= world; P++)
        comm_of[P] = MPI_COMM_NULL;
    for (int i = 0; i < n; i++) {
        int P = configs[i].P;
        if (configs[i].skip || (done && done[i]) || P > world || comm_of[P] != MPI_COMM_NULL)
            continue;
        MPI_Comm_split(MPI_COMM_WORLD, rank < P ? 0 : MPI_UNDEFINED, rank, &comm_of[P]);
        if (comm_of[P] == MPI_COMM_NULL)
            comm_of[P] = MPI_COMM_SELF; /* marks "created, this rank idles" */
        else
            MPI_Comm_set_errhandler(comm_of[P], MPI_ERRORS_RETURN);
    }
    return comm_of;
}

/* Guarantees: see cli.h. */
void free_comms(MPI_Comm *comm_of, int world)
{
    for (int P = 1; P <= world; P++)
        if (comm_of[P] != MPI_COMM_NULL && comm_of[P] != MPI_COMM_SELF)
            MPI_Comm_free(&comm_of[P]);
    free(comm_of);
}

/* Guarantees: see cli.h. Collective over MPI_COMM_WORLD. */
void measure_everywhere(const char *db_path, long long run_id, const sweep_section *sec,
                        const config *c, MPI_Comm comm, result_record *r, double *samples)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    r->started = now();
    timeout_context tc = { db_path, run_id, sec, c, r->started, NULL, r->started };
    if (rank == 0)
        guard(&tc);
    if (rank < c->P) {
        run_config(c, comm, r, samples);
        polite_barrier(MPI_COMM_WORLD);
    } else {
        idle_barrier(MPI_COMM_WORLD); /* idle ranks free their core while they wait */
    }
    if (rank == 0)
        guard(NULL);
    r->ended = now();
}
