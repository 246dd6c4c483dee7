/* cli.h — the a2atune commands. */
#ifndef A2A_CLI_H
#define A2A_CLI_H

/* Exit codes of a2atune. */
enum {
    EXIT_OK = 0,        /* everything ran and was correct */
    EXIT_WRONG = 1,     /* some result was wrong or a kernel failed */
    EXIT_BAD_INPUT = 2, /* bad command line, sweep file or database */
    EXIT_TIMEOUT = 3    /* a configuration exceeded its time limit; rerun with --resume */
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

/* `a2atune app tc|fft ...` (apps/app_command.c): the application benchmarks; argv as
 * main's. Initialises and finalises MPI itself; returns an exit code. */
int command_app(int argc, char **argv);

#endif
