/* tc_reference.c — the transitive closure by breadth-first search (see tc.h). */
#include <stdlib.h>
#include "tc.h"

/* Guarantees: see tc.h. From every vertex a with out-edges, a breadth-first search that
 * starts at a's successors (so a itself is reached only through a cycle) visits exactly
 * the c with (a, c) in T, each at its shortest path length. */
int tc_reference(const graph *g, long long *paths, uint64_t hash[2], int *longest)
{
    long long *offset = graph_offsets(g);
    int *dist = malloc(((size_t)g->vertices + 1) * sizeof *dist);
    uint32_t *queue = malloc(((size_t)g->vertices + 1) * sizeof *queue);
    *paths = 0;
    hash[0] = hash[1] = 0;
    *longest = 0;
    if (!offset || !dist || !queue) {
        free(offset);
        free(dist);
        free(queue);
        return -1;
    }
    for (uint32_t v = 0; v < g->vertices; v++)
        dist[v] = -1;
    for (uint32_t a = 0; a < g->vertices; a++) {
        if (offset[a] == offset[a + 1])
            continue;
        size_t head = 0, tail = 0;
        for (long long e = offset[a]; e < offset[a + 1]; e++)
            if (dist[g->dst[e]] < 0) {
                dist[g->dst[e]] = 1;
                queue[tail++] = g->dst[e];
            }
        while (head < tail) {
            uint32_t v = queue[head++];
            for (long long e = offset[v]; e < offset[v + 1]; e++)
                if (dist[g->dst[e]] < 0) {
                    dist[g->dst[e]] = dist[v] + 1;
                    queue[tail++] = g->dst[e];
                }
        }
        for (size_t i = 0; i < tail; i++) {
            uint64_t t = graph_tuple(a, queue[i]);
            hash[0] += tc_hash_term(t, 0);
            hash[1] += tc_hash_term(t, 1);
            if (dist[queue[i]] > *longest)
                *longest = dist[queue[i]];
            dist[queue[i]] = -1;
        }
        *paths += (long long)tail;
    }
    free(offset);
    free(dist);
    free(queue);
    return 0;
}
