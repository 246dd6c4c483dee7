/* sweep.h — sweep files: INI sections describing experiments (see docs/sweeps.md).
 *
 * Loading checks everything that can be checked without knowing P: keys, syntax of
 * every value list, names of families, kernels, distributions and datatypes. Errors
 * come back as one line "file:line: message". */
#ifndef A2A_SWEEP_H
#define A2A_SWEEP_H

#include <stddef.h>
#include <stdint.h>
#include "a2a_registry.h"
#include "vlist.h"
#include "workload.h"

/* The keys of a sweep section: its own, then one per kernel parameter (KEY_PARAM + p for
 * parameter p, named and defaulted by its declaration in a2a_registry.h). */
typedef enum sweep_key {
    KEY_FAMILY, KEY_KERNELS, KEY_P, KEY_S, KEY_DIST, KEY_PAYLOAD, KEY_DATATYPE, KEY_GAP,
    KEY_ITERATIONS, KEY_WARMUP, KEY_SEED, KEY_TIMEOUT, KEY_MEAN, KEY_SD, KEY_EXPONENT,
    KEY_MATRIX, KEY_COUNTERS, KEY_PATTERN, KEY_GRAPH, KEY_GRAPH_ITERATION, KEY_FFT, KEY_ALLOC,
    KEY_TIME_BUDGET,
    KEY_PARAM,
    KEY_COUNT = KEY_PARAM + A2A_PARAM_COUNT
} sweep_key;

/* The sweep key of kernel parameter p. */
#define SWEEP_PARAM_KEY(p) ((sweep_key)(KEY_PARAM + (int)(p)))

/* Values of the `alloc` key: where the runner puts send and receive buffers. */
enum sweep_alloc {
    SWEEP_ALLOC_PRIVATE, /* malloc, each rank its own (default) */
    SWEEP_ALLOC_SHARED,  /* one A2A_Hint_alloc window per node (kernels such as hint need it) */
    SWEEP_ALLOC_COUNT
};

/* Where a setting was written, for error messages. */
typedef struct sweep_setting {
    char *text; /* NULL when not set */
    int line;
} sweep_setting;

/* `iterations = auto`: as many timed calls as fit in the section's time_budget, at least
 * SWEEP_AUTO_MIN_ITERATIONS and at most SWEEP_AUTO_MAX_ITERATIONS (OSU's 1000 for small
 * messages), after warm-up calls that last a tenth of the budget. */
#define SWEEP_ITERATIONS_AUTO (-1)
#define SWEEP_AUTO_MIN_ITERATIONS 10
#define SWEEP_AUTO_MAX_ITERATIONS 1000

typedef struct sweep_section {
    char name[64];
    int line;                        /* line of the [name] header */
    sweep_setting setting[KEY_COUNT];
    a2a_family family;
    const a2a_kernel **kernels;
    int nkernels;
    vlist *P, *S, *gap;
    vlist *param[A2A_PARAM_COUNT];   /* NULL when the section does not set it */
    int *dists, ndists;              /* wl_dist values */
    int *payloads, npayloads;        /* wl_payload values */
    int *datatypes, ndatatypes;      /* indices into sweep_datatype_name() */
    int iterations, warmup;          /* iterations = SWEEP_ITERATIONS_AUTO: by time_budget */
    double time_budget;              /* iterations = auto: seconds of timed calls per configuration */
    uint64_t seed;
    double timeout;                  /* seconds per configuration */
    wl_params dist_params;           /* mean, sd, exponent (NAN: default); matrix unused */
    char *matrix_path;               /* dist = matrix: the file, relative to the sweep's folder */
    char *counters;                  /* events to count, NULL for none (see counters.h) */
    char **patterns;                 /* sdde families: sparse patterns (workloads/sparse.h) */
    int npatterns;
    void *provided;                  /* dist = graph / fft: the keys parsed by their provider
                                        (workloads/dist_provider.h) */
    int *allocs, nallocs;            /* sweep_alloc values */
} sweep_section;

typedef struct sweep {
    char *path;
    char *text;
    sweep_section *sections;
    int nsections;
} sweep;

/* Parses `text` (the content of `path`). Returns 0 and a new sweep, or -1 with
 * "path:line: message" in err. */
int sweep_load(const char *path, const char *text, sweep **out, char *err, size_t errlen);
void sweep_free(sweep *sw);

/* Name of a sweep key ("dist", "block_count", ...). */
const char *sweep_key_name(sweep_key key);

/* Name of an alloc value ("private", "shared"). */
const char *sweep_alloc_name(int alloc);

/* Datatypes a sweep may name: count, name, MPI handle. */
int sweep_datatype_count(void);
const char *sweep_datatype_name(int index);
MPI_Datatype sweep_datatype(int index);
int sweep_datatype_size(int index);   /* bytes of one element (no MPI call) */

#endif
