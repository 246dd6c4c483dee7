/* workload.h — deterministic block sizes and payloads for benchmark configurations.
 *
 * Everything is a pure function of (seed, P, S, distribution, src, dst, offset): any
 * rank can compute any block without communication, every kernel of a sweep sees the
 * same data for the same (seed, P, S, dist), and nothing depends on the clock. */
#ifndef A2A_WORKLOAD_H
#define A2A_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

typedef enum wl_dist {
    WL_DIST_CONSTANT, /* every block S bytes */
    WL_DIST_UNIFORM,  /* block sizes uniform in [0, S] */
    WL_DIST_NORMAL,   /* normal(mean, sd) clipped to [0, S] */
    WL_DIST_POWERLAW, /* density ~ (1 + x)^-exponent on [0, S]: many small, few large */
    WL_DIST_FFT_N1,   /* FFTW transpose N1: ranks < ceil(0.625 P) send S to ranks < ceil(0.78125 P) */
    WL_DIST_FFT_N2,   /* FFTW transpose N2: S per block, S/4 from the last rank */
    WL_DIST_MATRIX,   /* a P x P byte-count matrix read from a file */
    WL_DIST_GRAPH,    /* one iteration of a transitive closure's shuffle (apps/graph_counts.h) */
    WL_DIST_FFT,      /* the transpose of a distributed FFT of a given size (apps/fft.h) */
    WL_DIST_COUNT
} wl_dist;

typedef enum wl_payload {
    WL_PAYLOAD_PATTERN, /* bytes depend on (src, dst, offset): misplaced data shows */
    WL_PAYLOAD_ZERO,    /* all bytes zero: catches kernels that infer data from content */
    WL_PAYLOAD_COUNT
} wl_payload;

/* Parameters of the distributions; NAN means "the default" (see wl_block_bytes). */
typedef struct wl_params {
    double mean, sd;      /* normal: bytes; defaults 1000/1024 S and 240/1024 S (the TuNA
                             paper's mean 1000, sd 240 at S = 1024, scaled to S) */
    double exponent;      /* powerlaw: default 0.95 */
    const long long *matrix; /* matrix: P x P sizes in bytes, row = source (wl_load_matrix);
                                graph, fft: the same, made by the provider of
                                dist_provider.h */
} wl_params;

typedef struct wl_spec {
    wl_dist dist;
    wl_payload payload;
    long long S;   /* maximum block size in bytes */
    int P;         /* communicator size */
    uint64_t seed; /* the sweep's seed */
    wl_params params;
} wl_spec;

/* Name of a distribution / payload, and lookup by name (-1 if unknown). */
const char *wl_dist_name(wl_dist dist);
int wl_dist_by_name(const char *name);
const char *wl_payload_name(wl_payload payload);
int wl_payload_by_name(const char *name);

/* 1 if the distribution gives every block the same size (usable by alltoall). */
int wl_dist_is_constant(wl_dist dist);

/* Size in bytes of the block that rank src sends to rank dst: in [0, S], except for
 * `matrix`, `graph` and `fft`, whose sizes are the file's / the application's. */
long long wl_block_bytes(const wl_spec *spec, int src, int dst);

/* Fills out[0..n) with the payload bytes [offset, offset+n) of block src -> dst. */
void wl_fill_payload(const wl_spec *spec, int src, int dst, long long offset, unsigned char *out,
                     long long n);

/* p with every NAN replaced by its default for a maximum block size S. */
wl_params wl_params_effective(long long S, wl_params p);

/* Reads a P x P matrix of non-negative byte counts (whitespace-separated integers, one
 * row per source rank; '#' starts a comment) into a new array. Returns 0; -2 when the
 * file is well-formed but not P x P; -1 for an unreadable or malformed file; with
 * "path:line: message" in err. */
int wl_load_matrix(const char *path, int P, long long **matrix, char *err, size_t errlen);

/* A 64-bit mix of x (splitmix64 finaliser): the hash behind every value above. */
uint64_t wl_mix64(uint64_t x);

#endif
