/* graph.h — directed graphs for the application workloads (transitive closure).
 *
 * A graph comes from a spec (text, as written in sweep files and on the command line):
 *   rmat:SCALE[:EDGEFACTOR[:SEED]]   R-MAT / stochastic Kronecker generator (graph.c,
 *                                    graph_rmat.c): 2^SCALE vertices, EDGEFACTOR * 2^SCALE
 *                                    edges drawn (default 8), Graph500 initiator
 *                                    0.57 / 0.19 / 0.19 / 0.05, seed default 1. Directed.
 *   file:PATH, or any other text     an edge list read from PATH (graph_read.c): SNAP style
 *                                    ("src dst" per line, '#' or '%' comments) or Matrix
 *                                    Market coordinate (banner "%%MatrixMarket", 1-based
 *                                    "row col [value]" = edge row -> col; symmetric files
 *                                    give both directions).
 * Every graph is a set: duplicate edges are merged. Self-loops are kept (a self-loop is a
 * path of length 1). Vertex ids are compacted to 0..V-1 in increasing order of the
 * original ids (generated graphs keep their ids and V = 2^SCALE).
 *
 * Everything is deterministic: the same spec (and, for files, the same bytes) always
 * gives the same graph and the same graph_key. */
#ifndef A2A_GRAPH_H
#define A2A_GRAPH_H

#include <stddef.h>
#include <stdint.h>

typedef enum graph_kind { GRAPH_RMAT, GRAPH_FILE } graph_kind;

typedef struct graph_spec {
    graph_kind kind;
    int scale, edge_factor; /* rmat */
    uint64_t seed;          /* rmat */
    char path[1024];        /* file: resolved path */
    char text[1100];        /* canonical text: "rmat:10:8:1" or "file:PATH" */
} graph_spec;

/* A directed graph: edges (src[e], dst[e]), sorted by (src, dst), distinct. */
typedef struct graph {
    uint32_t vertices;     /* ids are < vertices */
    long long edges;
    uint32_t *src, *dst;
    uint64_t key;          /* identity: canonical spec for rmat, content hash for files */
} graph;

/* Parses a spec; a relative file path is taken relative to `folder` (NULL: as is).
 * Returns 0, or -1 with a one-line message in err. Does not open files. */
int graph_spec_parse(const char *text, const char *folder, graph_spec *out, char *err,
                     size_t errlen);

/* The graph's identity (graph.key) without building it: from the spec of a generated
 * graph, from the bytes of a file. Returns 0, or -1 with a message. */
int graph_spec_key(const graph_spec *spec, uint64_t *key, char *err, size_t errlen);

/* Builds the graph of a spec. Returns 0, or -1 with a one-line message in err
 * ("path:line: what" for malformed files). graph_free releases it. */
int graph_load(const graph_spec *spec, graph *g, char *err, size_t errlen);
void graph_free(graph *g);

/* FNV-1a of n bytes, continued from h (start from GRAPH_FNV1A_START): the content hash
 * of graph files. */
#define GRAPH_FNV1A_START 0xcbf29ce484222325ULL
uint64_t graph_fnv1a(uint64_t h, const void *data, size_t n);

/* The generator and the reader behind graph_load. Both return raw edges (malloc'ed
 * arrays, possibly with duplicates) in *src and *dst and their number in *n; the reader
 * also the FNV-1a hash of the file's bytes. Return 0, or -1 with a message. */
int graph_rmat_edges(int scale, int edge_factor, uint64_t seed, uint32_t **src, uint32_t **dst,
                     long long *n, char *err, size_t errlen);
int graph_read_edges(const char *path, uint32_t **src, uint32_t **dst, long long *n,
                     uint64_t *content_hash, char *err, size_t errlen);

/* Sorts edges by (src, dst), removes duplicates and, if compact, renumbers the ids to
 * 0..V-1 in increasing order; fills g (taking over src and dst). */
int graph_from_edges(uint32_t *src, uint32_t *dst, long long n, int compact, uint64_t key,
                     graph *g, char *err, size_t errlen);

/* Row offsets of g's edges by source: the targets of v are g->dst[offset[v] ..
 * offset[v + 1]) (edges are sorted by source). Returns a malloc'ed array of vertices + 1
 * entries, or NULL when out of memory. */
long long *graph_offsets(const graph *g);

/* The rank that owns vertex v among P ranks (hash partitioning, independent of ids'
 * locality): the same function everywhere (closure, replay, count matrices). */
static inline int graph_owner(uint32_t v, int P)
{
    uint64_t x = (uint64_t)v + 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return (int)(x % (uint64_t)P);
}

/* A path (a, c) as one 64-bit tuple, and back. */
static inline uint64_t graph_tuple(uint32_t a, uint32_t c)
{
    return ((uint64_t)a << 32) | c;
}
static inline uint32_t graph_tuple_first(uint64_t t) { return (uint32_t)(t >> 32); }
static inline uint32_t graph_tuple_second(uint64_t t) { return (uint32_t)t; }

#endif
