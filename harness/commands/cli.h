/* cli.h — the a2atune commands. */
#ifndef A2A_CLI_H
#define A2A_CLI_H

/* Exit codes of a2atune. */
enum {
    EXIT_OK = 0,        /* everything ran and was correct */
    EXIT_WRONG = 1,     /* some result was wrong or a kernel failed */
    EXIT_BAD_INPUT = 2, /* bad command line, sweep file or database */
    EXIT_TIMEOUT = 3,   /* a configuration exceeded its time limit; rerun with --resume */
    EXIT_CRASH = 4      /* simulation build: a configuration crashed the process (recorded
                           as error); rerun with --resume */
};

typedef struct run_options {
    const char *sweep_path;
    const char *db_path;
    const char *section;
    const char *counters;   /* --counters LIST: overrides every section's `counters` */
    int resume, dry_run, quiet;
    int shuffle;                   /* --shuffle SEED: configurations in an order drawn from it */
    unsigned long long order_seed;
    int launch_index, launches;    /* --launch I/N: this launch is the I-th of N */
    const char *launch_group;      /* --launch-group ID: names the N launches together */
    char command_line[4096];
} run_options;

/* `a2atune run`: collective over MPI_COMM_WORLD; returns an exit code. */
int command_run(const run_options *opt);

/* `a2atune app tc|fft ...` (app_command.c): the application benchmarks; argv as
 * main's. Initialises and finalises MPI itself; returns an exit code. */
int command_app(int argc, char **argv);

/* `a2atune tune SWEEP ...` (tune_command.c): measures the configurations a model-guided
 * search chooses, within a budget; argv as main's. Initialises and finalises MPI itself;
 * returns an exit code. */
int command_tune(int argc, char **argv);

/* `a2atune candidates --P LIST --S LIST ...` (candidates_command.c): the candidates online
 * tuning explores per (P, S); argv as main's; makes no MPI call; returns an exit code. */
int command_candidates(int argc, char **argv);

/* ---- pieces of `run` that `tune` shares (run_command.c) ---- */
#include "configs.h"
#include "db.h"

/* The provenance of this launch (collective over MPI_COMM_WORLD): fills info and launch
 * (world size, node ranks, 80 % of the memory available on rank 0's node) and returns the
 * per-P oversubscription flags (world + 1 entries, malloc'ed: the caller frees them). */
int *describe_launch(run_info *info, launch_info *launch);

/* Reads the sweep file on rank 0 and parses the same text on every rank. Returns 0, or
 * -1 with one line in err (on rank 0 for a file that cannot be read). Collective. */
int load_sweep_everywhere(const char *path, sweep **sw, char *err, size_t errlen);

/* One communicator of the first P ranks, errors returned, for every P of the
 * configurations that can run and are not done (done may be NULL; MPI_COMM_SELF on ranks
 * that idle at that P, MPI_COMM_NULL for P not used); world + 1 entries. Collective (done
 * equal on every rank). Freed with free_comms. */
MPI_Comm *comms_for_sizes(const config *configs, int n, const char *done, int world);
void free_comms(MPI_Comm *comm_of, int world);

/* Runs c on comm (its first P ranks) under rank 0's watchdog (which records a timeout in
 * db_path, run run_id, and ends the launch), then waits politely on every rank; fills
 * r on rank 0 (started, ended too). The watchdog must have been started. Collective. */
void measure_everywhere(const char *db_path, long long run_id, const sweep_section *sec,
                        const config *c, MPI_Comm comm, result_record *r, double *samples);

#endif
