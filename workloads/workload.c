/* workload.c — deterministic block sizes and payloads (see workload.h). */
#include <string.h>
#include "workload.h"

static const char *const dist_names[WL_DIST_COUNT] = { "constant", "uniform" };
static const char *const payload_names[WL_PAYLOAD_COUNT] = { "pattern", "zero" };

/* Guarantees: a static name, "?" for an invalid value. */
const char *wl_dist_name(wl_dist dist)
{
    return dist >= 0 && dist < WL_DIST_COUNT ? dist_names[dist] : "?";
}

/* Guarantees: the distribution with this exact name, or -1. */
int wl_dist_by_name(const char *name)
{
    for (int d = 0; d < WL_DIST_COUNT; d++)
        if (strcmp(dist_names[d], name) == 0)
            return d;
    return -1;
}

/* Guarantees: a static name, "?" for an invalid value. */
const char *wl_payload_name(wl_payload payload)
{
    return payload >= 0 && payload < WL_PAYLOAD_COUNT ? payload_names[payload] : "?";
}

/* Guarantees: the payload kind with this exact name, or -1. */
int wl_payload_by_name(const char *name)
{
    for (int p = 0; p < WL_PAYLOAD_COUNT; p++)
        if (strcmp(payload_names[p], name) == 0)
            return p;
    return -1;
}

/* Guarantees: 1 only for distributions whose blocks all have size S. */
int wl_dist_is_constant(wl_dist dist)
{
    return dist == WL_DIST_CONSTANT;
}

/* Guarantees: a bijective, well-mixed 64-bit function of x. */
uint64_t wl_mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* The stream of one workload: independent of the kernel, so every kernel of a sweep
 * moves the same data for the same (seed, P, S, dist). */
static uint64_t workload_key(const wl_spec *spec)
{
    uint64_t k = wl_mix64(spec->seed);
    k = wl_mix64(k ^ (uint64_t)spec->P);
    k = wl_mix64(k ^ (uint64_t)spec->S);
    return wl_mix64(k ^ (uint64_t)spec->dist);
}

/* Guarantees: a value in [0, S] that depends only on (spec, src, dst). */
long long wl_block_bytes(const wl_spec *spec, int src, int dst)
{
    if (spec->dist == WL_DIST_CONSTANT || spec->S <= 0)
        return spec->S > 0 ? spec->S : 0;
    uint64_t h = wl_mix64(workload_key(spec) ^ wl_mix64(((uint64_t)src << 32) | (uint32_t)dst));
    return (long long)(h % (uint64_t)(spec->S + 1));
}

/* Guarantees: out[i] is the payload byte at offset + i of block src -> dst. */
void wl_fill_payload(const wl_spec *spec, int src, int dst, long long offset, unsigned char *out,
                     long long n)
{
    if (spec->payload == WL_PAYLOAD_ZERO) {
        memset(out, 0, (size_t)n);
        return;
    }
    uint64_t block = wl_mix64(spec->seed ^ wl_mix64(((uint64_t)src << 32) | (uint32_t)dst));
    for (long long i = 0; i < n;) {
        long long word = (offset + i) / 8;
        uint64_t v = wl_mix64(block + (uint64_t)word);
        for (long long b = (offset + i) % 8; b < 8 && i < n; b++, i++)
            out[i] = (unsigned char)(v >> (8 * b));
    }
}
