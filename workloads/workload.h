/* workload.h — deterministic block sizes and payloads for benchmark configurations.
 *
 * Everything is a pure function of (seed, P, S, distribution, src, dst, offset): any
 * rank can compute any block without communication, every kernel of a sweep sees the
 * same data for the same (seed, P, S, dist), and nothing depends on the clock. */
#ifndef A2A_WORKLOAD_H
#define A2A_WORKLOAD_H

#include <stdint.h>

typedef enum wl_dist {
    WL_DIST_CONSTANT, /* every block S bytes */
    WL_DIST_UNIFORM,  /* block sizes uniform in [0, S] */
    WL_DIST_COUNT
} wl_dist;

typedef enum wl_payload {
    WL_PAYLOAD_PATTERN, /* bytes depend on (src, dst, offset): misplaced data shows */
    WL_PAYLOAD_ZERO,    /* all bytes zero: catches kernels that infer data from content */
    WL_PAYLOAD_COUNT
} wl_payload;

typedef struct wl_spec {
    wl_dist dist;
    wl_payload payload;
    long long S;   /* maximum block size in bytes */
    int P;         /* communicator size */
    uint64_t seed; /* the sweep's seed */
} wl_spec;

/* Name of a distribution / payload, and lookup by name (-1 if unknown). */
const char *wl_dist_name(wl_dist dist);
int wl_dist_by_name(const char *name);
const char *wl_payload_name(wl_payload payload);
int wl_payload_by_name(const char *name);

/* 1 if the distribution gives every block the same size (usable by alltoall). */
int wl_dist_is_constant(wl_dist dist);

/* Size in bytes of the block that rank src sends to rank dst, in [0, S]. */
long long wl_block_bytes(const wl_spec *spec, int src, int dst);

/* Fills out[0..n) with the payload bytes [offset, offset+n) of block src -> dst. */
void wl_fill_payload(const wl_spec *spec, int src, int dst, long long offset, unsigned char *out,
                     long long n);

/* A 64-bit mix of x (splitmix64 finaliser): the hash behind every value above. */
uint64_t wl_mix64(uint64_t x);

#endif
