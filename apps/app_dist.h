/* app_dist.h — the application distributions of sweep files: `dist = graph`, `dist = fft`.
 *
 * Keys (README "Application workloads"):
 *   graph = SPEC, ...            graphs (graph.h: rmat:SCALE[:EF[:SEED]] or an edge-list /
 *                                Matrix Market file, relative to the sweep file)
 *   graph_iteration = all        which closure iterations become configurations: all
 *                                (default), peak (the one moving the most bytes), last,
 *                                numbers and ranges (1, 3..5); numbers beyond the closure's
 *                                iterations are recorded as skipped
 *   fft = SIZE, ...              FFT sizes (fft.h: N0xN1[xN2][/B0xB1])
 * Each (graph, iteration) and each FFT size is one instance of its distribution: its own
 * configurations, with S = the largest block in bytes (the sweep's S does not apply: only
 * its first value expands, so a list of S values makes no duplicates). An FFT size that
 * cannot be laid out at some P, or one that is not uniform there in the uniform family,
 * is recorded as skipped with the reason. */
#ifndef A2A_APP_DIST_H
#define A2A_APP_DIST_H

#include "fft.h"
#include "graph.h"
#include "sweep.h"

typedef struct app_dist_keys {
    graph_spec *graphs;
    int ngraphs;
    int all, peak, last;         /* graph_iteration selectors */
    int *ranges, nranges;        /* graph_iteration: pairs (lo, hi), 1-based, inclusive */
    fft_size *ffts;
    char (*fft_texts)[64];       /* canonical sizes (configurations point here) */
    int nffts;
} app_dist_keys;

/* Parses the keys `graph`, `graph_iteration` and `fft` of a section whose dists are
 * known: *out = NULL when the section uses neither distribution. Returns 0, or -1 with
 * "path:line: message" in err (a missing key, a malformed spec or size, an unreadable
 * graph file). */
int app_dist_parse(const char *path, const sweep_section *sec, app_dist_keys **out, char *err,
                   size_t errlen);
void app_dist_free(app_dist_keys *keys);

/* One instance of an application distribution at some P. */
typedef struct app_instance {
    const long long *matrix; /* P x P block bytes (wl_params.matrix), NULL when skipped */
    long long S;             /* the largest block in bytes */
    const char *text;        /* canonical graph spec / FFT size (owned by the keys) */
    int iteration, iterations; /* graph: the closure iteration (1-based), of how many */
    int skip;                /* 1: recorded as skipped, for `reason` */
    char reason[200];
} app_instance;

/* 1 for the distributions handled here (graph, fft). */
int app_dist_applies(wl_dist dist);

/* 1 if the `dist` list text names only graph and fft (S is then optional). */
int app_dist_only(const char *dist_text);

/* The instances of `dist` (graph or fft) in section sec at P for a kernel of `family`.
 * Graph count matrices come from graph_counts_get (computed and cached on first use).
 * Returns 0 with a malloc'ed array, or -1 with "path:line: message" in err (a graph file
 * that does not parse). */
int app_dist_instances(const char *path, const sweep_section *sec, wl_dist dist,
                       a2a_family family, int P, app_instance **out, int *n, char *err,
                       size_t errlen);

#endif
