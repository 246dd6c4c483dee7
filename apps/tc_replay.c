/* tc_replay.c — the distributed closure played by one process, for its count matrices
 * (see tc.h). */
#include <stdlib.h>
#include <string.h>
#include "tc.h"
#include "tuple_set.h"

/* Guarantees: see tc.h. Rank i's share of every iteration is processed exactly as
 * tc_run does on rank i: its Δ tuples (a, b) are those with graph_owner(b) == i, its join
 * output is deduplicated per rank, and each distinct (a, c) counts once towards
 * graph_owner(c). T and Δ do not depend on P, so the matrices are tc_run's. */
int tc_replay(const graph *g, int P, tc_counts *out)
{
    return tc_replay_observed(g, P, out, NULL, NULL);
}

/* Guarantees: see tc.h; tc_replay's result, with progress reported per iteration. */
int tc_replay_observed(const graph *g, int P, tc_counts *out,
                       void (*progress)(int iteration, long long paths, void *ctx), void *ctx)
{
    memset(out, 0, sizeof *out);
    out->P = P;
    long long *offset = graph_offsets(g);
    long long n = g->edges, cap = 0, delta_cap = n ? n : 1;
    uint64_t *delta = malloc((size_t)(n ? n : 1) * sizeof *delta), *grouped = NULL;
    long long *start = calloc((size_t)P + 1, sizeof *start);
    tuple_set closure, produced;
    tuple_set_init(&closure);
    tuple_set_init(&produced);
    uint64_t *next = NULL;
    long long nnext = 0, next_cap = 0;
    int rc = -1;
    if (!offset || !delta || !start)
        goto out;
    for (long long e = 0; e < n; e++) {
        delta[e] = graph_tuple(g->src[e], g->dst[e]);
        if (tuple_set_insert(&closure, delta[e]) < 0)
            goto out;
    }
    for (;;) {
        /* group Δ by the rank that holds each tuple (owner of its end) */
        memset(start, 0, ((size_t)P + 1) * sizeof *start);
        for (long long i = 0; i < n; i++)
            start[graph_owner(graph_tuple_second(delta[i]), P) + 1]++;
        for (int i = 0; i < P; i++)
            start[i + 1] += start[i];
        free(grouped);
        grouped = malloc((size_t)(n ? n : 1) * sizeof *grouped);
        if (!grouped)
            goto out;
        for (long long i = 0; i < n; i++)
            grouped[start[graph_owner(graph_tuple_second(delta[i]), P)]++] = delta[i];
        for (int i = P; i > 0; i--)
            start[i] = start[i - 1];
        start[0] = 0;
        if (out->iterations == cap) {
            cap = cap ? 2 * cap : 16;
            long long *grown = realloc(out->tuples, (size_t)cap * (size_t)P * (size_t)P * sizeof *grown);
            if (!grown)
                goto out;
            out->tuples = grown;
        }
        long long *m = out->tuples + (size_t)out->iterations * (size_t)P * (size_t)P;
        memset(m, 0, (size_t)P * (size_t)P * sizeof *m);
        nnext = 0;
        for (int i = 0; i < P; i++) {
            tuple_set_clear(&produced);
            for (long long k = start[i]; k < start[i + 1]; k++) {
                uint32_t a = graph_tuple_first(grouped[k]), b = graph_tuple_second(grouped[k]);
                for (long long e = offset[b]; e < offset[b + 1]; e++) {
                    uint32_t c = g->dst[e];
                    uint64_t t = graph_tuple(a, c);
                    int fresh = tuple_set_insert(&produced, t);
                    if (fresh < 0)
                        goto out;
                    if (!fresh)
                        continue;
                    m[(size_t)i * (size_t)P + (size_t)graph_owner(c, P)]++;
                    fresh = tuple_set_insert(&closure, t);
                    if (fresh < 0)
                        goto out;
                    if (!fresh)
                        continue;
                    if (nnext == next_cap) {
                        next_cap = next_cap ? 2 * next_cap : 1024;
                        uint64_t *grown = realloc(next, (size_t)next_cap * sizeof *grown);
                        if (!grown)
                            goto out;
                        next = grown;
                    }
                    next[nnext++] = t;
                }
            }
        }
        out->iterations++;
        if (progress)
            progress(out->iterations, (long long)closure.count, ctx);
        uint64_t *swap = delta;
        long long swap_cap = delta_cap;
        delta = next;
        delta_cap = next_cap;
        n = nnext;
        next = swap;
        next_cap = swap_cap;
        if (n == 0)
            break;
    }
    out->paths = (long long)closure.count;
    rc = 0;
out:
    if (rc)
        tc_counts_free(out);
    free(offset);
    free(delta);
    free(grouped);
    free(start);
    free(next);
    tuple_set_free(&closure);
    tuple_set_free(&produced);
    return rc;
}

/* Guarantees: releases c's matrices; c is left empty. */
void tc_counts_free(tc_counts *c)
{
    free(c->tuples);
    memset(c, 0, sizeof *c);
}
