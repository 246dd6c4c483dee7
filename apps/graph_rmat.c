/* graph_rmat.c — the R-MAT (stochastic Kronecker) edge generator of graph.h. */
#include <stdio.h>
#include <stdlib.h>
#include "graph.h"
#include "sparse.h"

/* Guarantees: the edge_factor * 2^scale edges of sp_rmat_edge (the generator the rmat
 * sparse pattern uses too), in order. Directed; duplicates and self-loops are left to the
 * caller (graph_from_edges merges duplicates). */
int graph_rmat_edges(int scale, int edge_factor, uint64_t seed, uint32_t **src, uint32_t **dst,
                     long long *n, char *err, size_t errlen)
{
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
    for (long long e = 0; e < edges; e++)
        sp_rmat_edge(scale, seed, e, &(*src)[e], &(*dst)[e]);
    *n = edges;
    return 0;
}
