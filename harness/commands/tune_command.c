/* tune_command.c — `a2atune tune`: measure what a model-guided search chooses, within a
 * budget, then write the tuning files (harness/tuner/tuner.h for the search). */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli.h"
#include "configs.h"
#include "crash_guard.h"
#include "db.h"
#include "heartbeat.h"
#include "provenance.h"
#include "tuner.h"
#include "tuner_prior.h"
#include "watchdog.h"

extern char **environ;

static const char tune_usage[] =
    "usage: mpirun -n N a2atune tune SWEEP.ini [--budget 25%] [--db PATH] [--section LIST]\n"
    "                                   [--resume] [--replay DB] [--confidence 0.95]\n"
    "                                   [--margin 2%] [--out DIR] [--no-files] [--quiet]\n"
    "                                   [--candidates] [--without RULES] [--prior FILE]\n"
    "                                   [--evaluate SEEDS [--noise 2%]]\n"
    "\n"
    "Measures a part of the sweep that a model-guided search chooses (docs/tuner.md):\n"
    "the TRA paper's cost model alpha K + beta D S fitted per kernel by least\n"
    "squares, corrected by what neighbouring S, P and radices measured; stops when every\n"
    "(P, S) is decided with the confidence asked or the budget is spent. Rows are measured\n"
    "and validated as `a2atune run` does, marked chosen_by = 'tuner' with their step; then\n"
    "scripts/a2a tune writes the tuning files from this run.\n"
    "  --budget B      at most B% of the configurations that can run (0 < B <= 100), a\n"
    "                  number of configurations, or a time: 90s, 30m, 2h (what the timed and\n"
    "                  warm-up calls cost; simulated seconds under SimGrid or when replaying\n"
    "                  a simulated run) (default 25%)\n"
    "  --db PATH       results database (default results/a2a.db)\n"
    "  --section LIST  tune only these sections of the sweep\n"
    "  --resume        continue the newest tuner run of the same sweep in PATH: what it\n"
    "                  measured is reloaded, never measured again, and counts in the budget\n"
    "  --replay DB     measure nothing: take each chosen configuration's row from DB, an\n"
    "                  exhaustive run of the same sweep (to evaluate the search; no mpirun needed)\n"
    "  --confidence C  a (P, S) is decided when no unmeasured candidate beats its winner by\n"
    "                  more than the margin with probability >= C (default 0.95)\n"
    "  --margin M      gains smaller than M% are not worth a measurement (default 2%)\n"
    "  --out DIR       directory of the tuning files (default results/tuning)\n"
    "  --no-files      do not call scripts/a2a tune at the end\n"
    "  --quiet         no line per measurement\n"
    "  --candidates    print the key of every configuration that can run (what the search\n"
    "                  chooses from; with --replay DB at DB's launch size), one a line, and\n"
    "                  stop: nothing measured or recorded (a2a tuner-report uses it)\n"
    "  --prior FILE    the platform's prior: each configuration's time as the model tier\n"
    "                  predicts it on a platform (a2a prior writes it), taken in place of\n"
    "                  alpha K + beta D S and corrected by the measurements; recorded with\n"
    "                  the run (runs.tuner_prior: the file, its platform; runs.tuner_prior_text:\n"
    "                  its content)\n"
    "  --without RULES switch off these rules of the search (comma-separated, listed at\n"
    "                  the end; to evaluate what each buys)\n"
    "  --evaluate N    with --replay: run the search N times, once per noise seed 1..N,\n"
    "                  each replayed median times a factor drawn uniformly in [1 - noise,\n"
    "                  1 + noise] per (seed, configuration); records nothing and prints per\n"
    "                  measurement: seed, step, phase, key, the median, q1 and q3 seen, its\n"
    "                  cost in seconds and its share of a configuration (1; a screen: its\n"
    "                  timed calls over the configuration's, its key saying it=N),\n"
    "                  tab-separated (a2a tuner-report --suite reads it). A screen replays as\n"
    "                  the median of the row's first N samples, or without samples as the\n"
    "                  row's median with the noise times sqrt(iterations / N)\n"
    "  --noise N       the amplitude of --evaluate's noise (default 0%)\n"
    "exit codes: 0 done, 1 a result was wrong or a kernel failed, 2 bad input, 3 a\n"
    "configuration hit its time limit (--resume continues), 4 (SimGrid build) a\n"
    "configuration crashed the simulation (recorded as error; --resume continues)\n";

typedef struct tune_options {
    const char *sweep_path, *db_path, *section, *replay_path, *out_dir, *prior_path;
    double budget_percent; /* > 0: a percentage */
    long budget_count;     /* > 0: a number of configurations */
    double budget_seconds; /* > 0: a time */
    double confidence, margin, noise;
    unsigned without;      /* tuner_options.without */
    int resume, quiet, no_files, candidates, evaluate;
    char command_line[4096];
} tune_options;

static double now(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + tv.tv_usec * 1e-6;
}

static int share(int value)
{
    MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return value;
}

static int bad(int rank, const char *fmt, const char *a, const char *b)
{
    if (rank == 0) {
        fprintf(stderr, "a2atune: tune: ");
        fprintf(stderr, fmt, a, b);
        fprintf(stderr, "\n");
    }
    return EXIT_BAD_INPUT;
}

/* "25%" -> percent 25; "60" -> count 60; "90s", "30m", "2h" -> seconds 90, 1800, 7200;
 * 0 on success, -1 for anything else or out of range (not above 0). */
static int parse_budget(const char *text, double *percent, long *count, double *seconds)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || errno || !isfinite(v))
        return -1;
    if (*end == '%' && end[1] == '\0') {
        if (!(v > 0 && v <= 100))
            return -1;
        *percent = v;
        return 0;
    }
    const char *units = "smh";
    const double unit_seconds[] = { 1, 60, 3600 };
    if (*end && end[1] == '\0' && strchr(units, *end)) {
        if (!(v > 0))
            return -1;
        *seconds = v * unit_seconds[strchr(units, *end) - units];
        return 0;
    }
    if (*end != '\0' || v < 1 || v != floor(v) || v > LONG_MAX / 2)
        return -1;
    *count = (long)v;
    return 0;
}

/* "2%" or "0.02" -> 0.02 */
static int parse_fraction(const char *text, double *out)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text)
        return -1;
    if (*end == '%' && end[1] == '\0')
        v /= 100;
    else if (*end != '\0')
        return -1;
    *out = v;
    return v >= 0 && v < 1 ? 0 : -1;
}

/* Parses the arguments; -1 on success, else an exit code (message on rank 0). */
static int parse_tune(int argc, char **argv, int rank, tune_options *o)
{
    memset(o, 0, sizeof *o);
    o->db_path = "results/a2a.db";
    o->out_dir = "results/tuning";
    o->budget_percent = 25;
    o->confidence = 0.95;
    o->margin = 0.02;
    join_command_line(argc, argv, o->command_line, sizeof o->command_line);
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        int takes_value = strcmp(a, "--db") == 0 || strcmp(a, "--section") == 0 ||
                          strcmp(a, "--replay") == 0 || strcmp(a, "--out") == 0 ||
                          strcmp(a, "--budget") == 0 || strcmp(a, "--confidence") == 0 ||
                          strcmp(a, "--margin") == 0 || strcmp(a, "--without") == 0 ||
                          strcmp(a, "--evaluate") == 0 || strcmp(a, "--noise") == 0 ||
                          strcmp(a, "--prior") == 0;
        if (takes_value && i + 1 >= argc)
            return bad(rank, "%s needs a value%s", a, " (see a2atune tune --help)");
        const char *v = takes_value ? argv[++i] : NULL;
        if (strcmp(a, "--db") == 0)
            o->db_path = v;
        else if (strcmp(a, "--section") == 0)
            o->section = v;
        else if (strcmp(a, "--replay") == 0)
            o->replay_path = v;
        else if (strcmp(a, "--out") == 0)
            o->out_dir = v;
        else if (strcmp(a, "--prior") == 0)
            o->prior_path = v;
        else if (strcmp(a, "--budget") == 0) {
            o->budget_percent = 0;
            o->budget_count = 0;
            o->budget_seconds = 0;
            if (parse_budget(v, &o->budget_percent, &o->budget_count, &o->budget_seconds))
                return bad(rank, "--budget %s: give a percentage above 0 and at most 100%% (25%%), "
                           "a number of configurations of at least 1, or a time above 0 (90s, "
                           "30m, 2h)%s", v, "");
        } else if (strcmp(a, "--without") == 0) {
            char list[256], *save = NULL;
            snprintf(list, sizeof list, "%s", v);
            for (char *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
                int rule = tuner_rule_by_name(name);
                if (rule < 0)
                    return bad(rank, "--without %s: no rule '%s' (see a2atune tune --help)", v, name);
                o->without |= 1u << rule;
            }
        } else if (strcmp(a, "--evaluate") == 0) {
            char *end;
            long n = strtol(v, &end, 10);
            if (end == v || *end || n < 1 || n > 1000)
                return bad(rank, "--evaluate %s: give a number of noise seeds from 1 to 1000%s", v, "");
            o->evaluate = (int)n;
            o->no_files = 1;
        } else if (strcmp(a, "--noise") == 0) {
            if (parse_fraction(v, &o->noise))
                return bad(rank, "--noise %s: give a percentage from 0 below 100 (2%%)%s", v, "");
        } else if (strcmp(a, "--confidence") == 0) {
            char *end;
            o->confidence = strtod(v, &end);
            if (end == v || *end || !(o->confidence > 0 && o->confidence < 1))
                return bad(rank, "--confidence %s: give a probability between 0 and 1 (0.95)%s", v, "");
        } else if (strcmp(a, "--margin") == 0) {
            if (parse_fraction(v, &o->margin))
                return bad(rank, "--margin %s: give a percentage from 0 below 100 (2%%)%s", v, "");
        } else if (strcmp(a, "--resume") == 0)
            o->resume = 1;
        else if (strcmp(a, "--quiet") == 0)
            o->quiet = 1;
        else if (strcmp(a, "--no-files") == 0)
            o->no_files = 1;
        else if (strcmp(a, "--candidates") == 0)
            o->candidates = o->no_files = 1;
        else if (a[0] == '-' && a[1])
            return bad(rank, "unknown option '%s'%s", a, " (see a2atune tune --help)");
        else if (!o->sweep_path)
            o->sweep_path = a;
        else
            return bad(rank, "unexpected argument '%s'%s", a, " (see a2atune tune --help)");
    }
    if (!o->sweep_path)
        return bad(rank, "%s%s", "tune needs a sweep file", " (see a2atune tune --help)");
    if (o->evaluate && !o->replay_path)
        return bad(rank, "%s%s", "--evaluate needs --replay DB", " (see a2atune tune --help)");
    return -1;
}

/* "tra radix=4" / "vendor vendor_algorithm=0": the candidate part of a configuration. */
static void describe_choice(const config *c, char *text, size_t len)
{
    int n = snprintf(text, len, "%s", c->kernel->name);
    for (int p = 0; p < A2A_PARAM_COUNT && n > 0 && (size_t)n < len; p++)
        if (a2a_kernel_takes(c->kernel, (a2a_param)p)) {
            char value[32];
            a2a_param_value_text((a2a_param)p, c->params[p], value, sizeof value);
            n += snprintf(text + n, len - (size_t)n, " %s=%s", a2a_param_name((a2a_param)p), value);
        }
}

/* "uniform P=2 S=1KiB constant": the cell part of a configuration. */
static void describe_cell(const config *c, char *text, size_t len)
{
    char s[32], dist_params[300];
    format_bytes(c->S, s, sizeof s);
    config_dist_params(c, dist_params, sizeof dist_params);
    snprintf(text, len, "%s P=%d S=%s %s%s%.60s%s", a2a_family_name(c->kernel->family), c->P, s,
             wl_dist_name(c->dist), dist_params[0] ? "(" : "", dist_params, dist_params[0] ? ")" : "");
}

/* The per-(P, S) table: winner, runner-up, noise, confidence, measured. */
static void print_cells(const tuner *t, const config *configs, FILE *out)
{
    fprintf(out, "  %-34s %-28s %10s %-28s %10s %6s %6s %10s %5s  %s\n", "cell", "best so far",
            "median", "runner-up", "median", "gap", "noise", "default", "conf", "measured");
    for (int c = 0; c < tuner_cells(t); c++) {
        tuner_cell_state s;
        tuner_cell(t, c, &s);
        char cell[200], win[120] = "-", run[120] = "-", wt[32] = "", rt[32] = "", gap[16] = "";
        char dt[32] = "-"; /* the library's default: its median, "-" while not measured */
        describe_cell(tuner_cell_config(t, c), cell, sizeof cell);
        if (s.winner >= 0) {
            describe_choice(&configs[s.winner], win, sizeof win);
            stats_format_seconds(s.winner_s, wt, sizeof wt);
        }
        if (s.runner_up >= 0) {
            describe_choice(&configs[s.runner_up], run, sizeof run);
            stats_format_seconds(s.runner_up_s, rt, sizeof rt);
            snprintf(gap, sizeof gap, "%.1f%%", 100 * (s.runner_up_s / s.winner_s - 1));
        }
        if (s.library_default_s > 0)
            stats_format_seconds(s.library_default_s, dt, sizeof dt);
        else if (s.library_default < 0)
            snprintf(dt, sizeof dt, "none");
        fprintf(out, "  %-34s %-28s %10s %-28s %10s %6s %5.1f%% %10s %5.3f  %d/%d%s\n", cell, win, wt,
                run, rt, gap, 100 * s.noise, dt, s.confidence, s.measured, s.candidates,
                s.final ? "" : "  (not final)");
    }
}

/* What measuring configuration c cost, as a time budget counts it: its timed and warm-up
 * calls, n samples of r's mean and c's warm-up calls (simulated seconds under SimGrid and
 * when replaying a simulated run); 0 for a row without samples. */
static double measurement_cost(const config *c, const result_record *r)
{
    if (r->summary.n <= 0 || !(r->summary.mean > 0))
        return 0;
    return r->summary.mean * (r->summary.n + (c->warmup > 0 ? c->warmup : 0));
}

/* ---- resume ------------------------------------------------------------------------ */

typedef struct key_index {
    const char *key;
    int index, screen; /* screen: the key of a screen of configuration index */
} key_index;

static int compare_key_index(const void *a, const void *b)
{
    return strcmp(((const key_index *)a)->key, ((const key_index *)b)->key);
}

typedef struct reload {
    tuner *t;
    const config *configs;
    key_index *keys;
    int nkeys, loaded, foreign, last_step;
} reload;

/* db_recorded_results callback: feeds a recorded row back to the tuner. */
static void reload_row(const char *key, const result_record *r, int step, void *ctx)
{
    reload *rl = ctx;
    key_index probe = { key, 0, 0 }, *hit = bsearch(&probe, rl->keys, (size_t)rl->nkeys,
                                                   sizeof *rl->keys, compare_key_index);
    int ok = r->status == STATUS_OK && r->summary.n > 0;
    if (!hit || (hit->screen ? tuner_record_screen : tuner_record)(rl->t, hit->index, ok,
            r->summary.median, r->summary.q1, r->summary.q3, r->summary.n)) {
        rl->foreign++;
        return;
    }
    tuner_spend(rl->t, measurement_cost(&rl->configs[hit->index], r));
    rl->loaded++;
    if (step > rl->last_step)
        rl->last_step = step;
}

/* ---- the tuning files -------------------------------------------------------------- */

/* scripts/a2a next to the build (build/MPI/a2atune -> ../../scripts/a2a), else ./scripts/a2a. */
static void find_a2a_script(char *path, size_t len)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        snprintf(path, len, "%s/../../scripts/a2a", dirname(exe));
        if (access(path, X_OK) == 0)
            return;
    }
    snprintf(path, len, "scripts/a2a");
}

/* Runs scripts/a2a tune on this run's rows; its exit code (2 if it cannot start). */
static int write_tuning_files(const tune_options *o, long long run_id)
{
    char script[PATH_MAX + 32], run[32];
    find_a2a_script(script, sizeof script);
    snprintf(run, sizeof run, "%lld", run_id);
    char *args[] = { script, "tune", "--db", (char *)o->db_path, "--run", run, "--out",
                     (char *)o->out_dir, NULL };
    fprintf(stderr, "a2atune: tuning files: %s tune --db %s --run %s --out %s\n", script, o->db_path,
            run, o->out_dir);
    fflush(NULL);
    pid_t pid;
    if (access(script, X_OK) != 0 || posix_spawn(&pid, script, NULL, NULL, args, environ) != 0) {
        fprintf(stderr, "a2atune: tune: cannot run %s: run the line above from the project "
                "directory\n", script);
        return EXIT_BAD_INPUT;
    }
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_WRONG;
}

/* ---- the platform's prior ------------------------------------------------------------ */

/* A new search over configs[0..nconfigs) with the platform's prior where prior (may be
 * NULL) gives a time above 0. NULL only when out of memory. */
static tuner *new_search(const config *configs, int nconfigs, const tuner_options *topt,
                         const double *prior)
{
    tuner *t = tuner_create(configs, nconfigs, topt);
    for (int i = 0; t && prior && i < nconfigs; i++)
        if (prior[i] > 0)
            tuner_set_prior(t, i, prior[i]);
    return t;
}

/* Every rank: reads --prior into *prior (a time per configuration; NULL without --prior or
 * with --candidates, which lists what a job's prior is made of before the file exists)
 * its description ("FILE platform=... lines=... used=...") into text and its content into
 * *content (malloc'd, NULL without a prior); collective. Returns 0, or 1 with the message
 * (file:line) in err on rank 0. */
static int load_prior(const tune_options *o, const config *configs, int nconfigs, double **prior,
                      char *text, size_t textlen, char **content, char *err, size_t errlen)
{
    *prior = NULL;
    *content = NULL;
    text[0] = '\0';
    if (!o->prior_path || o->candidates) /* a listing does not search: no prior read */
        return 0;
    *prior = malloc((size_t)(nconfigs ? nconfigs : 1) * sizeof **prior);
    tuner_prior_file info;
    int rc = tuner_prior_read(o->prior_path, configs, nconfigs, *prior, &info, err, errlen);
    if (rc == 0)
        snprintf(text, textlen, "%s platform=%s lines=%d used=%d", o->prior_path,
                 info.platform[0] ? info.platform : "(not stated)", info.lines, info.used);
    *content = info.text;
    return rc ? 1 : 0;
}

/* The most samples one configuration can take (its iterations; the automatic count's
 * ceiling for `iterations = auto`), at least 1. */
static int most_iterations(const config *configs, int nconfigs)
{
    int most = 1;
    for (int i = 0; i < nconfigs; i++)
        if (configs[i].iterations == SWEEP_ITERATIONS_AUTO && most < SWEEP_AUTO_MAX_ITERATIONS)
            most = SWEEP_AUTO_MAX_ITERATIONS;
        else if (configs[i].iterations > most)
            most = configs[i].iterations;
    return most;
}

/* ---- replaying a screen ----------------------------------------------------------- */

/* A screen of `calls` timed calls replayed from r, a row of the replayed database, and its
 * nsamples samples (each call's seconds, in order): r becomes the summary of the first
 * calls samples when there are that many (returns 1), else keeps the row's median and
 * quartiles (returns 0); either way it says calls samples, so that its cost is the
 * screen's. */
static int replay_screen(result_record *r, const double *samples, int nsamples, int calls)
{
    int from_samples = r->status == STATUS_OK && nsamples >= calls;
    if (from_samples)
        r->summary = summarize_samples(samples, calls);
    else if (r->status == STATUS_OK)
        r->summary.n = calls;
    r->iterations = calls;
    return from_samples;
}

/* ---- --evaluate: the search replayed under noise ------------------------------------ */

/* A factor drawn uniformly in [1 - amplitude, 1 + amplitude], a function of (seed, key)
 * alone (FNV-1a of the key, mixed with the seed by SplitMix64's finaliser). */
static double noise_factor(const char *key, int seed, double amplitude)
{
    unsigned long long h = 1469598103934665603ULL;
    for (const unsigned char *p = (const unsigned char *)key; *p; p++) {
        h ^= *p;
        h *= 1099511628211ULL;
    }
    h ^= (unsigned long long)seed * 0x9E3779B97F4A7C15ULL;
    h ^= h >> 30;
    h *= 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 27;
    h *= 0x94D049BB133111EBULL;
    h ^= h >> 31;
    double u = (double)(h >> 11) / 9007199254740992.0; /* [0, 1) */
    return 1 + amplitude * (2 * u - 1);
}

/* Runs the search once per seed 1..o->evaluate over the rows of `replay` (each median and
 * quartile times noise_factor), recording nothing; prints each measurement as a
 * tab-separated line (a2atune tune --help). Returns an exit code (2 when a configuration
 * has no row in replay, one line on stderr). */
static int evaluate_replay(const tune_options *o, db *replay, const config *configs, int nconfigs,
                           const tuner_options *topt, const double *prior)
{
    result_record *rows = calloc((size_t)(nconfigs ? nconfigs : 1), sizeof *rows);
    int missing = 0;
    for (int i = 0; i < nconfigs; i++) {
        int n;
        if (!configs[i].skip && db_replay_result(replay, configs[i].key, &rows[i], NULL, 0, &n) != 1 &&
            missing++ == 0)
            fprintf(stderr, "a2atune: tune: --replay %s: no result for %.300s; replay an exhaustive "
                    "run of the same sweep\n", o->replay_path, configs[i].key);
    }
    int most = most_iterations(configs, nconfigs);
    double *samples = malloc((size_t)most * sizeof *samples);
    for (int seed = 1; seed <= o->evaluate && !missing; seed++) {
        tuner *t = new_search(configs, nconfigs, topt, prior);
        const char *phase = "";
        int screen;
        for (int step = 1, next; (next = tuner_next(t, &phase, &screen)) >= 0; step++) {
            result_record screened, *r = &rows[next];
            config m = configs[next];
            double amplitude = o->noise, share = 1;
            if (screen) { /* the first calls of its samples, else its row with more noise */
                int calls = tuner_screen_calls(t, next), n;
                config_with_iterations(&configs[next], calls, &m);
                db_replay_result(replay, configs[next].key, &screened, samples, most, &n);
                if (!replay_screen(&screened, samples, n, calls))
                    amplitude *= sqrt((double)configs[next].iterations / calls);
                r = &screened;
                share = (double)calls / configs[next].iterations;
            }
            int ok = r->status == STATUS_OK && r->summary.n > 0;
            double f = noise_factor(m.key, seed, amplitude), cost = measurement_cost(&m, r);
            (screen ? tuner_record_screen : tuner_record)(t, next, ok, r->summary.median * f,
                r->summary.q1 * f, r->summary.q3 * f, r->summary.n);
            tuner_spend(t, cost);
            printf("%d\t%d\t%s\t%s\t%.9g\t%.9g\t%.9g\t%.9g\t%.9g\n", seed, step, phase, m.key,
                   ok ? r->summary.median * f : 0, ok ? r->summary.q1 * f : 0,
                   ok ? r->summary.q3 * f : 0, cost, share);
        }
        tuner_free(t);
    }
    free(samples);
    free(rows);
    return missing ? EXIT_BAD_INPUT : EXIT_OK;
}

/* ---- the command: its steps ----------------------------------------------------------- */

/* --replay on rank 0: opens the replayed database read-only into *replay and takes the
 * launch it describes into *info. Returns 0, or 1 with the message in err. */
static int open_replay(const tune_options *o, const sweep *sw, db **replay, run_info *info,
                       char *err, size_t errlen)
{
    char why[512];
    if (db_open_readonly(o->replay_path, replay, why, sizeof why) ||
        db_replay_run_info(*replay, sw->text, info, why, sizeof why)) {
        snprintf(err, errlen, "--replay %s: %s", o->replay_path, why);
        return 1;
    }
    return 0;
}

/* --replay: every rank's launch becomes the replayed run's (world size, ranks per node, as
 * rank 0 read them into info); collective. Without --replay nothing changes. */
static void adopt_replayed_launch(const tune_options *o, const run_info *info, launch_info *launch)
{
    if (!o->replay_path)
        return;
    int replay_launch[2] = { info->world_size, info->ppn > 0 ? info->ppn : info->world_size };
    MPI_Bcast(replay_launch, 2, MPI_INT, 0, MPI_COMM_WORLD);
    launch->world = replay_launch[0];
    launch->node_ranks = replay_launch[1];
    launch->mem_available = 0;
}

/* The number of configurations that can run (not skipped). */
static int count_runnable(const config *configs, int nconfigs)
{
    int runnable = 0;
    for (int i = 0; i < nconfigs; i++)
        runnable += !configs[i].skip;
    return runnable;
}

/* The budget in configurations (at least 1): --budget N as given, every runnable one under
 * a time budget (the time stops the search), else the percentage of the runnable ones. */
static int budget_in_configurations(const tune_options *o, int runnable)
{
    int budget = o->budget_count > 0     ? (int)o->budget_count
                 : o->budget_seconds > 0 ? runnable
                                         : (int)floor(o->budget_percent / 100 * runnable + 1e-9);
    return budget < 1 ? 1 : budget;
}

/* Rank 0 with --replay: 0 when every configuration that can run has a row in replay, else
 * 1 with how many lack one (and the first) in err. */
static int replay_lacks_rows(const tune_options *o, db *replay, const config *configs,
                             int nconfigs, int runnable, char *err, size_t errlen)
{
    int missing = 0;
    const char *first = NULL;
    for (int i = 0; i < nconfigs; i++) {
        result_record r = { 0 };
        int n;
        if (!configs[i].skip && db_replay_result(replay, configs[i].key, &r, NULL, 0, &n) != 1) {
            missing++;
            first = first ? first : configs[i].key;
        }
    }
    if (!missing)
        return 0;
    snprintf(err, errlen, "--replay %s: no result for %d of the %d configurations that can run "
             "(first: %.300s); replay an exhaustive run of the same sweep",
             o->replay_path, missing, runnable, first);
    return 1;
}

/* Rank 0: feeds what tuner run run_id of d recorded back to t (never measured again) and
 * says so on stderr. Returns the step the search continues with. */
static int reload_tuner_run(db *d, long long run_id, tuner *t, const config *configs, int nconfigs)
{
    key_index *keys = malloc((size_t)(nconfigs ? 2 * nconfigs : 1) * sizeof *keys);
    config *screens = malloc((size_t)(nconfigs ? nconfigs : 1) * sizeof *screens);
    int nkeys = 0;
    for (int i = 0; i < nconfigs; i++) {
        keys[nkeys++] = (key_index){ configs[i].key, i, 0 };
        int calls = tuner_screen_calls(t, i);
        if (calls) {
            config_with_iterations(&configs[i], calls, &screens[i]);
            keys[nkeys++] = (key_index){ screens[i].key, i, 1 };
        }
    }
    qsort(keys, (size_t)nkeys, sizeof *keys, compare_key_index);
    reload rl = { t, configs, keys, nkeys, 0, 0, 0 };
    db_recorded_results(d, run_id, reload_row, &rl);
    free(keys);
    free(screens);
    db_reopen_run(d, run_id);
    fprintf(stderr, "a2atune: resuming tuner run %lld: %d configurations already "
            "measured (not measured again)%s\n", run_id, rl.loaded,
            rl.foreign ? ", some rows are not of this sweep (ignored)" : "");
    return rl.last_step + 1;
}

/* Rank 0: opens o->db_path into *d and gives the run the search records into in *run_id:
 * with --resume the newest tuner run of this sweep (reloaded into t; *next_step after its
 * last step), else (or when there is none) a new run; the heartbeat then marks it live.
 * Returns 0, or 1 with the message in err. */
static int open_tuner_run(const tune_options *o, const run_info *info, tuner *t,
                          const config *configs, int nconfigs, db **d, long long *run_id,
                          int *next_step, char *err, size_t errlen)
{
    if (db_open(o->db_path, d, err, errlen))
        return 1;
    if (o->resume) {
        int found = db_find_tuner_run(*d, info, run_id);
        if (found < 0) {
            snprintf(err, errlen, "%s: cannot look for a tuner run to resume", o->db_path);
            return 1;
        }
        if (found == 0)
            fprintf(stderr, "a2atune: --resume: no earlier tuner run of this sweep in %s; "
                    "starting a new run\n", o->db_path);
        else
            *next_step = reload_tuner_run(*d, *run_id, t, configs, nconfigs);
    }
    if (*run_id == 0 && db_begin_run(*d, info, run_id, err, errlen))
        return 1;
    heartbeat_start(o->db_path, *run_id); /* a live run: not taken for a dead one */
    return 0;
}

/* Rank 0: the line that opens the search on stderr (what can run, the cells, the budget,
 * the database and run), and the oversubscription note of a real launch. */
static void announce_search(const tune_options *o, const tuner *t, const tuner_options *topt,
                            int runnable, const run_info *info, long long run_id)
{
    char budget[64];
    if (o->budget_seconds > 0)
        snprintf(budget, sizeof budget, "%g s of timed and warm-up calls", o->budget_seconds);
    else
        snprintf(budget, sizeof budget, "%d (%.0f%%)", topt->budget, 100.0 * topt->budget / runnable);
    fprintf(stderr, "a2atune: tune: %d configurations can run in %d cells (%d to tune); "
            "budget %s -> %s, run %lld%s\n", runnable, tuner_cells(t),
            tuner_tunable_cells(t), budget, o->db_path,
            run_id, o->replay_path ? " (replayed, nothing measured)" : "");
    if (!o->replay_path && info->oversubscribed)
        fprintf(stderr, "a2atune: note: %d ranks on %d cores: configurations with more ranks "
                "than cores are oversubscribed (flagged in the database); their timings "
                "measure the scheduler\n", info->ppn, info->cores_per_node);
}

/* Rank 0: the search's next configuration (-1: it stops; *stopped_by_budget then says
 * whether the budget stopped it), its phase and whether it is to be screened; prints the
 * cost model once, when the design phase ends. *last_phase: the phase of the previous step. */
static int choose_next(tuner *t, const char **phase, const char **last_phase, int *screen,
                       int *stopped_by_budget)
{
    int next = tuner_next(t, phase, screen);
    *stopped_by_budget = next < 0 && tuner_budget_spent(t);
    if (strcmp(*last_phase, "design") == 0 && strcmp(*phase, "design") != 0) {
        fprintf(stderr, "a2atune: tune: cost model fitted on the design points:\n");
        tuner_print_model(t, stderr);
    }
    if (next >= 0)
        *last_phase = *phase;
    return next;
}

/* Rank 0: stores the result r (nsamples samples) of c, configuration `next` of configs or
 * (screen) its screen, in run run_id of d, feeds it to the search (a measurement or a
 * screen), counts it in counts (ok, wrong, error) and reports it on stderr
 * (a line per measurement unless quiet, the cells every fifth of the budget, every wrong
 * or failed one). Returns 0, or 1 when the database failed (said on stderr). */
static int record_step(const tune_options *o, db *d, long long run_id, tuner *t,
                       const tuner_options *topt, const config *configs, const config *c,
                       int next, int screen,
                       const sweep_section *sec, const result_record *r, const double *samples,
                       int nsamples, const char *phase, int counts[3])
{
    char err[1024];
    int failed = 0;
    if (db_store_result(d, run_id, sec, c, r, samples, nsamples, err, sizeof err)) {
        fprintf(stderr, "a2atune: %s\n", err);
        failed = 1;
    }
    int ok = r->status == STATUS_OK && r->summary.n > 0;
    (screen ? tuner_record_screen : tuner_record)(t, next, ok, r->summary.median, r->summary.q1,
                                                  r->summary.q3, r->summary.n);
    tuner_spend(t, measurement_cost(c, r));
    counts[ok ? 0 : r->status == STATUS_WRONG ? 1 : 2]++;
    char cell[200], choice[120], median[32] = "";
    describe_cell(c, cell, sizeof cell);
    describe_choice(c, choice, sizeof choice);
    if (ok)
        stats_format_seconds(r->summary.median, median, sizeof median);
    if (!o->quiet)
        fprintf(stderr, "[%.4g/%d] %-10s %s  %s%s: %s\n", tuner_used(t), topt->budget,
                phase, cell, choice, screen ? " (screen)" : "", ok ? median : r->message);
    int every = topt->budget / 5 > 10 ? topt->budget / 5 : 10;
    if (!o->quiet && !screen && tuner_measured(t) % every == 0) {
        fprintf(stderr, "a2atune: tune: %d measured, %d left in the budget; per (P, S) "
                "before this step:\n", tuner_measured(t), topt->budget - tuner_measured(t));
        print_cells(t, configs, stderr);
    }
    if (!ok && r->status != STATUS_SKIPPED)
        fprintf(stderr, "a2atune: %s %s %s: %s\n",
                r->status == STATUS_WRONG ? "WRONG" : "ERROR", cell, choice, r->message);
    return failed;
}

/* Rank 0: the closing report on stderr (the cost model, the cells, what was measured of
 * the budget and why the search stopped: db_failed, stopped_by_budget); ends the heartbeat
 * and the run (done, or failed when the database failed or a row was wrong or an error)
 * and prints where the results are. */
static void close_search(const tune_options *o, db *d, long long run_id, const tuner *t,
                         const tuner_options *topt, const config *configs, int runnable,
                         int db_failed, int stopped_by_budget, const int counts[3])
{
    int final = 0, decided = 0;
    for (int c = 0; c < tuner_cells(t); c++) {
        tuner_cell_state s;
        tuner_cell(t, c, &s);
        final += s.final;
        decided += s.winner >= 0;
    }
    fprintf(stderr, "a2atune: tune: cost model:\n");
    tuner_print_model(t, stderr);
    fprintf(stderr, "a2atune: tune: per (P, S) (gap: runner-up over the best; noise: the "
            "smaller IQR of the two over the best's median, the results contract's noise: "
            "within it a2a tune takes the simpler; default: the MPI library's own choice, "
            "which a rule replaces only where it was measured; conf: P(no unmeasured "
            "candidate is faster by more than %.0f%%)):\n", 100 * o->margin);
    print_cells(t, configs, stderr);
    char budget[64];
    if (o->budget_seconds > 0)
        snprintf(budget, sizeof budget, "%g s", o->budget_seconds);
    else
        snprintf(budget, sizeof budget, "%d", topt->budget);
    fprintf(stderr, "a2atune: tune: measured %d of %d configurations (%.1f%%; budget %s; "
            "timed and warm-up calls: %.6g s), %d of %d cells final (confidence %.2f), %d "
            "decided; %s\n", tuner_measured(t), runnable, 100.0 * tuner_measured(t) / runnable,
            budget, tuner_spent(t), final, tuner_cells(t),
            o->confidence, decided, db_failed ? "stopped: the database failed"
            : stopped_by_budget && final < tuner_cells(t) ? "stopped: budget spent"
            : "stopped: every cell decided");
    heartbeat_stop();
    db_end_run(d, run_id, db_failed ? "failed" : counts[1] + counts[2] ? "failed" : "done");
    printf("results: %s (run %lld)\n", o->db_path, run_id);
}

/* ---- the command --------------------------------------------------------------------- */

/* The search and its measurements; collective over MPI_COMM_WORLD. *run_id gets the run
 * on rank 0. Returns an exit code. The steps: read the sweep and the launch (the replayed
 * one with --replay), expand it, size the budget and refuse what cannot be tuned; stop
 * after --candidates or --evaluate; open the run (rank 0); then measure what the search
 * chooses, one configuration a step, until it stops; close the run with its report. */
static int tune(const tune_options *o, long long *run_id_out)
{
    int rank, world;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    char err[1024] = "";
    sweep *sw = NULL;
    if (load_sweep_everywhere(o->sweep_path, &sw, err, sizeof err)) {
        if (rank == 0)
            fprintf(stderr, "a2atune: %s\n", err);
        return EXIT_BAD_INPUT;
    }

    run_info info;
    launch_info launch;
    int *oversubscribed_at = describe_launch(&info, &launch);
    db *replay = NULL;
    int status = o->replay_path && rank == 0 ? open_replay(o, sw, &replay, &info, err, sizeof err) : 0;
    adopt_replayed_launch(o, &info, &launch);

    config *configs = NULL;
    int nconfigs = 0, rc = EXIT_OK;
    tuner *t = NULL;
    db *d = NULL;
    MPI_Comm *comm_of = NULL;
    double *samples = NULL, *prior = NULL;
    char prior_text[1024], *prior_content = NULL;
    if (share(status)) {
        rc = bad(rank, "%s%s", err, "");
        goto out;
    }
    if (expand_sweep(sw, &launch, o->section, &configs, &nconfigs, err, sizeof err)) {
        rc = bad(rank, "%s%s", err, "");
        goto out;
    }
    int runnable = count_runnable(configs, nconfigs);
    tuner_options topt = { .confidence = o->confidence, .margin = o->margin,
                           .budget_seconds = o->budget_seconds, .without = o->without,
                           .budget = budget_in_configurations(o, runnable) };
    if (share(load_prior(o, configs, nconfigs, &prior, prior_text, sizeof prior_text,
                         &prior_content, err, sizeof err))) {
        rc = bad(rank, "%s%s", err, "");
        goto out;
    }
    t = new_search(configs, nconfigs, &topt, prior);
    if (tuner_tunable_cells(t) == 0) {
        char n[32];
        snprintf(n, sizeof n, "%d", runnable);
        rc = bad(rank, "%s: nothing to tune: each (P, S) has at most one configuration that can "
                 "run (%s in all)", o->sweep_path, n);
        goto out;
    }
    if (o->budget_count > runnable) {
        char n[64];
        snprintf(n, sizeof n, "%ld, more than the %d", o->budget_count, runnable);
        rc = bad(rank, "--budget %s configurations of %s that can run", n, o->sweep_path);
        goto out;
    }

    if (o->candidates) { /* the candidate set: nothing measured, nothing recorded */
        if (rank == 0)
            for (int i = 0; i < nconfigs; i++)
                if (!configs[i].skip)
                    printf("%s\n", configs[i].key);
        rc = EXIT_OK;
        goto out;
    }
    if (o->evaluate) { /* the search under noise, nothing recorded */
        rc = share(rank == 0 ? evaluate_replay(o, replay, configs, nconfigs, &topt, prior) : EXIT_OK);
        goto out;
    }

    /* rank 0 owns the database: a new run, or the tuner run to resume */
    long long run_id = 0;
    int next_step = 1;
    info.sweep_file = o->sweep_path;
    info.sweep_text = sw->text;
    info.section = o->section;
    info.command_line = o->command_line;
    if (rank == 0) {
        status = replay && replay_lacks_rows(o, replay, configs, nconfigs, runnable, err, sizeof err);
        if (!status)
            status = open_tuner_run(o, &info, t, configs, nconfigs, &d, &run_id, &next_step,
                                    err, sizeof err);
        if (!status && prior)
            status = db_record_tuner_prior(d, run_id, prior_text, prior_content, err,
                                           sizeof err) ? 1 : 0;
        if (!status && prior)
            fprintf(stderr, "a2atune: tune: platform prior %s\n", prior_text);
    }
    if (share(status)) {
        rc = bad(rank, "%s%s", err, "");
        goto out;
    }

    if (!o->replay_path)
        comm_of = comms_for_sizes(configs, nconfigs, NULL, world);
    int max_iterations = most_iterations(configs, nconfigs);
    samples = malloc((size_t)max_iterations * sizeof *samples);
    if (rank == 0) {
        watchdog_start();
        crash_guard_start();
        announce_search(o, t, &topt, runnable, &info, run_id);
    }

    const char *last_phase = "";
    int counts[3] = { 0 }; /* ok, wrong, error */
    int stopped_by_budget = 0;
    for (;;) {
        int next = -1, screen = 0;
        const char *phase = "";
        if (rank == 0)
            next = choose_next(t, &phase, &last_phase, &screen, &stopped_by_budget);
        next = share(next);
        if (next < 0)
            break;
        int calls = share(screen ? tuner_screen_calls(t, next) : 0);
        config screened, *c = &configs[next];
        if (calls) { /* a screen: the same configuration with fewer timed calls, a row of its own */
            config_with_iterations(&configs[next], calls, &screened);
            c = &screened;
        }
        c->chosen_by = calls ? "tuner-screen" : "tuner";
        c->tuner_step = next_step;
        const sweep_section *sec = &sw->sections[c->section];
        result_record r = { .status = STATUS_ERROR, .oversubscribed = oversubscribed_at[c->P < world ? c->P : world] };
        int nsamples = 0;
        if (!o->replay_path) {
            measure_everywhere(o->db_path, run_id, sec, c, comm_of[c->P], &r, samples);
            nsamples = r.status == STATUS_OK ? r.iterations : 0;
        } else if (rank == 0) {
            r.started = now();
            db_replay_result(replay, configs[next].key, &r, samples, max_iterations, &nsamples);
            if (calls)
                nsamples = replay_screen(&r, samples, nsamples, calls) ? calls : 0;
            r.ended = now();
        }
        if (rank == 0 && record_step(o, d, run_id, t, &topt, configs, c, next, calls > 0, sec, &r, samples,
                                     nsamples, phase, counts))
            status = 1;
        next_step++;
        if (share(status))
            break;
    }

    if (rank == 0) {
        close_search(o, d, run_id, t, &topt, configs, runnable, status, stopped_by_budget, counts);
        *run_id_out = run_id;
    }
    rc = status ? EXIT_BAD_INPUT : counts[1] + counts[2] ? EXIT_WRONG : EXIT_OK;
    rc = share(rc);
out:
    if (comm_of)
        free_comms(comm_of, world);
    db_close(d);
    db_close(replay);
    tuner_free(t);
    free(samples);
    free(prior);
    free(prior_content);
    free(configs);
    free(oversubscribed_at);
    sweep_free(sw);
    return rc;
}

/* Guarantees: see cli.h. */
int command_tune(int argc, char **argv)
{
    for (int i = 2; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(tune_usage, stdout);
            printf("rules of the search (--without):");
            for (int r = 0; tuner_rule_name(r); r++)
                printf("%s %s", r ? "," : "", tuner_rule_name(r));
            printf("\n");
            return EXIT_OK;
        }
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    tune_options o;
    long long run_id = 0;
    int rc = parse_tune(argc, argv, rank, &o);
    if (rc < 0)
        rc = tune(&o, &run_id);
    MPI_Finalize();
    if (rank == 0 && rc == EXIT_OK && !o.no_files)
        rc = write_tuning_files(&o, run_id);
    return rc;
}
