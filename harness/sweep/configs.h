/* configs.h — expanding a sweep into the full list of configurations. */
#ifndef A2A_CONFIGS_H
#define A2A_CONFIGS_H

#include "sweep.h"

typedef struct config {
    int section;                    /* index into the sweep's sections */
    const a2a_kernel *kernel;
    int P, Q;                       /* communicator size, processes per node */
    long long S;                    /* maximum block size in bytes */
    wl_dist dist;
    wl_params dist_params;          /* see workload.h; matrix is loaded by the runner */
    const char *matrix_path;        /* dist = matrix: the file (owned by the sweep) */
    const char *pattern;            /* sdde families: the sparse pattern (owned by the sweep) */
    const char *dist_instance;      /* graph, fft: the graph spec / FFT size (workloads/dist_provider.h) */
    int graph_iteration;            /* graph: the closure iteration replayed (1-based) ... */
    int graph_iterations;           /* ... of this many */
    wl_payload payload;
    int datatype;                   /* index for sweep_datatype() */
    int gap;                        /* elements left free between blocks (non-uniform) */
    int alloc;                      /* sweep_alloc: private or shared (A2A_Hint_alloc) buffers */
    int params[A2A_PARAM_COUNT];    /* 0 for parameters the kernel does not take */
    int iterations, warmup;         /* iterations = SWEEP_ITERATIONS_AUTO: chosen by time_budget */
    double time_budget;             /* seconds of timed calls (iterations = auto) */
    uint64_t seed;
    double timeout;
    const char *counters;           /* events counted after the timed calls, NULL: none */
    int skip;                       /* 1: not run, `reason` says why */
    char reason[200];
    char key[400];                  /* identifies the configuration within a run */
    const char *chosen_by;          /* stored with the row: "tuner" (a2atune tune), NULL: sweep */
    int tuner_step;                 /* the tuner's step that chose it (chosen_by != NULL) */
} config;

/* What expansion needs to know about the launch. */
typedef struct launch_info {
    int world;                      /* ranks in the launch */
    int node_ranks;                 /* ranks on the first node (block layout) */
    double mem_available;           /* bytes a node may use for buffers (0 = no limit) */
} launch_info;

/* Expands every section (or only those named in the comma-separated `only_section`) into configurations in a
 * fixed order: section, P, kernel, S, dist, payload, datatype, gap, alloc, then parameters.
 * Invalid combinations are kept with skip = 1 and a reason. Returns 0, or -1 with
 * "file:line: message" in err for values that are wrong for every P (e.g. radix = 1),
 * an unknown section, or a list that cannot be evaluated. */
int expand_sweep(const sweep *sw, const launch_info *launch, const char *only_section,
                 config **out, int *count, char *err, size_t errlen);

/* *out = c with `iterations` timed calls (iterations > 0) and the key that says so (its
 * "|it=N|" part): the same exchange measured with fewer or more calls, a row of its own. */
void config_with_iterations(const config *c, int iterations, config *out);

/* Estimated bytes a node needs for one configuration (buffers of all its ranks). */
double config_memory_estimate(const config *c, int node_ranks);

/* One line describing a configuration: "uniform/scattered P=4 S=1KiB constant block_count=2". */
void config_describe(const config *c, char *text, size_t len);

/* Writes the distribution's parameters as "mean=1000,sd=240" ("" if it has none). */
void config_dist_params(const config *c, char *text, size_t len);

/* Writes a size in bytes as "17", "1KiB", "1.5MiB". */
void format_bytes(long long bytes, char *text, size_t len);

#endif
