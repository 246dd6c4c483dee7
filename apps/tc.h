/* tc.h — transitive closure of a directed graph by relational algebra (TuNA paper §VI-B).
 *
 * The closure T = { (a, c) : a path of one or more edges leads from a to c } is the
 * fixed point of T = E ∪ (T ⋈ E), computed semi-naively: Δ starts as E; each iteration
 * joins the new paths Δ with the edges (path (a, b) and edge (b, c) give (a, c)) and keeps
 * what is not yet in T as the next Δ, until an iteration finds nothing new.
 *
 * Distribution over P ranks (graph_owner hashes vertices): rank r holds the edges whose
 * source it owns (the join index) and the paths (a, b) whose end b it owns, so Δ ⋈ E is
 * local. Each iteration every rank deduplicates what its join produced, sends each new
 * (a, c) to the owner of c with one all-to-all (counts with MPI_Alltoall, tuples with the
 * chosen alltoallv kernel, 8 bytes per tuple as MPI_UINT64_T), and the owner keeps the
 * ones not already in its part of T. Every iteration shuffles, the last one included (it
 * is the one that finds nothing new), so iterations = the length of the longest shortest
 * path.
 *
 * Three implementations of the same function: tc_run (distributed, MPI), tc_replay (one
 * process playing all P ranks, to record the count matrices) and tc_reference (breadth-
 * first search from every vertex: a different algorithm, for verification). */
#ifndef A2A_TC_H
#define A2A_TC_H

#include <mpi.h>
#include <stdint.h>
#include "a2a_registry.h"
#include "graph.h"

#define TC_TUPLE_BYTES 8 /* one path (a, c) on the wire: MPI_UINT64_T */

/* One rank's share of the graph (tc_local_build). */
typedef struct tc_local {
    int P, rank;
    uint32_t vertices;
    long long *offset;   /* vertices + 1 entries: targets of source b (owned here) are */
    uint32_t *targets;   /* targets[offset[b] .. offset[b + 1]) */
    uint64_t *initial;   /* the edges (a, b) with b owned here: the first T and Δ */
    long long ninitial;
} tc_local;

/* How to shuffle. */
typedef struct tc_options {
    const a2a_kernel *kernel;    /* a nonuniform-family kernel (vendor: MPI_Alltoallv); NULL:
                                  * the tuned dispatcher (A2A_Alltoallv, a2a_tuned.h) */
    int params[A2A_PARAM_COUNT]; /* its parameters (0 for those it does not take) */
    int record;                  /* keep this rank's send counts of every iteration */
} tc_options;

/* What one closure computed and cost. */
typedef struct tc_outcome {
    int iterations;          /* join + shuffle rounds */
    long long paths;         /* |T| (the same on every rank) */
    uint64_t hash[2];        /* order-independent fingerprint of T (the same on every rank) */
    double total_s;          /* this rank: the whole closure */
    double comm_s;           /* this rank: inside the tuple all-to-all */
    double counts_s;         /* this rank: inside the count exchange (MPI_Alltoall) */
    long long tuples_sent;   /* this rank, every destination (itself included) */
    long long tuples_moved;  /* this rank, to other ranks only */
    long long max_block;     /* this rank: largest block of any iteration, in tuples */
    long long *sendcounts;   /* record: iterations x P tuples this rank sent (malloc'ed) */
} tc_outcome;

/* Count matrices of a closure on P ranks: tuples[(t * P + i) * P + j] tuples went from
 * rank i to rank j in iteration t (0-based). */
typedef struct tc_counts {
    int P, iterations;
    long long paths;
    long long *tuples;
} tc_counts;

/* Builds rank `rank`'s share of g for P ranks. Returns 0, or -1 when out of memory.
 * tc_local_free releases it. */
int tc_local_build(const graph *g, int P, int rank, tc_local *out);
void tc_local_free(tc_local *l);

/* Computes the closure over comm (collective; comm's size must be local->P and each
 * rank passes its own share). Returns MPI_SUCCESS, or the kernel's error code (the same
 * on every rank; the closure is then incomplete). out->sendcounts is freed by the caller. */
int tc_run(const tc_local *local, MPI_Comm comm, const tc_options *opt, tc_outcome *out);

/* The closure of g computed in one process for P ranks, with every iteration's P x P
 * count matrix exactly as tc_run sends it. Returns 0, or -1 when out of memory.
 * tc_counts_free releases the matrices. */
int tc_replay(const graph *g, int P, tc_counts *out);
void tc_counts_free(tc_counts *c);

/* tc_replay that calls progress(iteration, paths so far, ctx) after every iteration
 * (progress may be NULL). */
int tc_replay_observed(const graph *g, int P, tc_counts *out,
                       void (*progress)(int iteration, long long paths, void *ctx), void *ctx);

/* The closure of g by breadth-first search from every vertex: |T|, the fingerprint
 * (as tc_outcome's) and the longest shortest path (= tc_run's iterations). Returns 0,
 * or -1 when out of memory. */
int tc_reference(const graph *g, long long *paths, uint64_t hash[2], int *longest);

/* The fingerprint's two terms for one tuple (summed over T, modulo 2^64). */
static inline uint64_t tc_hash_term(uint64_t t, int which)
{
    uint64_t x = t ^ (which ? 0x5851f42d4c957f2dULL : 0x14057b7ef767814fULL);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

#endif
