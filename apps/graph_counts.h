/* graph_counts.h — `dist = graph`: the per-iteration count matrices of a transitive
 * closure on P ranks, recorded once per (graph, P) and cached on disk.
 *
 * Where: $A2A_CACHE_DIR if set, else $XDG_CACHE_HOME/a2atune, else ~/.cache/a2atune
 * (created when missing). One text file per (graph, P):
 *   tc-KEY-pP.counts   KEY = the graph's 64-bit identity in hex (graph.h: the spec for
 *                      generated graphs, the file's bytes for read ones)
 * holding a header (graph spec, key, P, tuple bytes, iterations, closure size) and, per
 * iteration, "iteration T" and P rows of P tuple counts (row = sending rank), then "end".
 * A file is written to a unique temporary name in the same folder and renamed into
 * place, so readers only ever see whole files; a lock file (tc-KEY-pP.lock, flock)
 * makes concurrent ranks and launches wait for one of them to compute a missing entry
 * instead of all computing it (the holder removes it when done; a waiter that finds it
 * removed locks the new one). A file that does not parse, or names another graph or P,
 * is ignored and replaced.
 *
 * Entries are filled by `a2atune app tc` (the counts its ranks really sent) or, when a
 * sweep needs one that is missing, by tc_replay (the same counts, computed in one
 * process); app tc compares what it sent with an existing entry. */
#ifndef A2A_GRAPH_COUNTS_H
#define A2A_GRAPH_COUNTS_H

#include <stddef.h>
#include <stdio.h>
#include "graph.h"
#include "tc.h"

typedef struct graph_counts {
    char spec[1100];      /* canonical graph spec */
    uint64_t key;
    int P, iterations;
    long long paths;      /* closure size */
    long long *bytes;     /* iterations x P x P bytes (tuples x TC_TUPLE_BYTES) */
    int peak;             /* the iteration (1-based) that moves the most bytes */
} graph_counts;

/* The count matrices of (spec, P): from this process's memory, else the disk cache,
 * else computed (tc_replay) and stored in the cache. The result stays valid for the
 * life of the process. Returns 0, or -1 with a one-line message (a graph that cannot be
 * built). A cache that cannot be written is not an error (the counts are still made). */
int graph_counts_get(const graph_spec *spec, int P, const graph_counts **out, char *err,
                     size_t errlen);

/* Records the counts a real closure run sent (graph g of spec, `counts` gathered from
 * every rank). When the cache already holds (graph, P), compares instead. Returns 2 when
 * newly stored, 1 when equal to the cached counts, 0 when the cache holds different
 * ones, -1 on error (message in err); cached_path names the file. */
int graph_counts_record(const graph_spec *spec, const graph *g, const tc_counts *counts,
                        char *cached_path, size_t pathlen, char *err, size_t errlen);

/* Where graph_counts_get reports that it computes a missing entry, and how far it got
 * (one line per closure iteration), or waits for another process computing it; NULL
 * (the default): silent. */
void graph_counts_progress(FILE *out);

/* The cache folder (see above), created if missing; returns -1 with a message if it
 * cannot be. */
int graph_cache_dir(char *dir, size_t len, char *err, size_t errlen);

#endif
