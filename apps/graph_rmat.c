/* graph_rmat.c — the R-MAT (stochastic Kronecker) edge generator of graph.h. */
#include <stdio.h>
#include <stdlib.h>
#include "graph.h"
#include "workload.h"

/* Guarantees: edge e of the R-MAT graph depends only on (scale, seed, e): its endpoints
 * are chosen bit by bit, from the top, among the four quadrants with the Graph500
 * probabilities 0.57 (0,0), 0.19 (0,1), 0.19 (1,0) and 0.05 (1,1), each level drawing
 * from the stream (seed, e). Directed; duplicates and self-loops are left to the caller
 * (graph_from_edges merges duplicates). */
int graph_rmat_edges(int scale, int edge_factor, uint64_t seed, uint32_t **src, uint32_t **dst,
                     long long *n, char *err, size_t errlen)
{
    const uint64_t cut_a = (uint64_t)(0.57 * 4294967296.0);
    const uint64_t cut_b = (uint64_t)(0.76 * 4294967296.0);
    const uint64_t cut_c = (uint64_t)(0.95 * 4294967296.0);
    long long edges = (long long)edge_factor << scale;
    *src = malloc((size_t)(edges ? edges : 1) * sizeof **src);
    *dst = malloc((size_t)(edges ? edges : 1) * sizeof **dst);
    if (!*src || !*dst) {
        free(*src);
        free(*dst);
        *src = *dst = NULL;
        snprintf(err, errlen, "rmat: out of memory for %lld edges", edges);
        return -1;
    }
    uint64_t stream = wl_mix64(seed ^ 0x524d4154ULL);
    for (long long e = 0; e < edges; e++) {
        uint64_t state = wl_mix64(stream ^ wl_mix64((uint64_t)e));
        uint32_t u = 0, v = 0;
        for (int level = 0; level < scale; level++) {
            state = wl_mix64(state);
            uint64_t r = state >> 32;
            uint32_t bu = r >= cut_b, bv = (r >= cut_a && r < cut_b) || r >= cut_c;
            u = (u << 1) | bu;
            v = (v << 1) | bv;
        }
        (*src)[e] = u;
        (*dst)[e] = v;
    }
    *n = edges;
    return 0;
}
