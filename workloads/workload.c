/* workload.c — deterministic block sizes and payloads (see workload.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "workload.h"

static const char *const dist_names[WL_DIST_COUNT] = { "constant", "uniform", "normal",
                                                       "powerlaw", "fft_n1", "fft_n2", "matrix",
                                                       "graph", "fft" };
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

/* A uniform double in (0, 1) from 53 bits of h. */
static double unit_interval(uint64_t h)
{
    return ((double)(h >> 11) + 0.5) / 9007199254740992.0;
}

static long long clip(double x, long long S)
{
    if (!(x > 0))
        return 0;
    return x >= (double)S ? S : (long long)llround(x);
}

static long long ceil_fraction(int P, double fraction)
{
    return (long long)ceil(fraction * P - 1e-9);
}

/* Guarantees: no NAN left: mean 1000/1024 S, sd 240/1024 S, exponent 0.95 by default. */
wl_params wl_params_effective(long long S, wl_params p)
{
    if (isnan(p.mean))
        p.mean = S * (1000.0 / 1024.0);
    if (isnan(p.sd))
        p.sd = S * (240.0 / 1024.0);
    if (isnan(p.exponent))
        p.exponent = 0.95;
    return p;
}

/* Guarantees: a value that depends only on (spec, src, dst); in [0, S] except for
 * `matrix`. */
long long wl_block_bytes(const wl_spec *spec, int src, int dst)
{
    long long S = spec->S > 0 ? spec->S : 0;
    uint64_t h = wl_mix64(workload_key(spec) ^ wl_mix64(((uint64_t)src << 32) | (uint32_t)dst));
    const wl_params eff = wl_params_effective(S, spec->params), *p = &eff;
    switch (spec->dist) {
    case WL_DIST_CONSTANT:
        return S;
    case WL_DIST_UNIFORM:
        return (long long)(h % (uint64_t)(S + 1));
    case WL_DIST_NORMAL: {
        double mean = p->mean, sd = p->sd;
        double u1 = unit_interval(h), u2 = unit_interval(wl_mix64(h));
        double z = sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2); /* Box-Muller */
        return clip(mean + sd * z, S);
    }
    case WL_DIST_POWERLAW: {
        /* inverse transform of the density (1 + x)^-a on [0, S] */
        double a = p->exponent, u = unit_interval(h);
        double top = (double)S + 1.0, x;
        if (fabs(a - 1.0) < 1e-12)
            x = pow(top, u) - 1.0;
        else
            x = pow(1.0 + u * (pow(top, 1.0 - a) - 1.0), 1.0 / (1.0 - a)) - 1.0;
        return clip(floor(x), S);
    }
    case WL_DIST_FFT_N1:
        return src < ceil_fraction(spec->P, 0.625) && dst < ceil_fraction(spec->P, 0.78125) ? S : 0;
    case WL_DIST_FFT_N2:
        return src == spec->P - 1 ? S / 4 : S;
    case WL_DIST_MATRIX:
    case WL_DIST_GRAPH:
    case WL_DIST_FFT:
        return p->matrix ? p->matrix[(size_t)src * (size_t)spec->P + (size_t)dst] : 0;
    default:
        return 0;
    }
}

/* Guarantees: see workload.h; the file is read once and closed. */
int wl_load_matrix(const char *path, int P, long long **matrix, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot read the matrix file: %s", path, strerror(errno));
        return -1;
    }
    long long *m = calloc((size_t)P * (size_t)P, sizeof *m);
    char line[65536];
    int row = 0, lineno = 0, rc = -1;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *at = line, *end;
        int col = 0;
        while (1) {
            while (*at == ' ' || *at == '\t' || *at == '\r' || *at == '\n')
                at++;
            if (!*at)
                break;
            errno = 0;
            long long v = strtoll(at, &end, 10);
            if (end == at || errno || v < 0 || (*end && !strchr(" \t\r\n", *end))) {
                snprintf(err, errlen, "%s:%d: not a non-negative integer byte count", path, lineno);
                goto out;
            }
            if (row >= P || col >= P) {
                snprintf(err, errlen, "%s:%d: more than %d %s: the file is not for P = %d", path,
                         lineno, P, row >= P ? "rows" : "columns", P);
                rc = -2;
                goto out;
            }
            m[(size_t)row * (size_t)P + (size_t)col++] = v;
            at = end;
        }
        if (col == 0)
            continue;
        if (col != P) {
            snprintf(err, errlen, "%s:%d: %d columns, P = %d needs %d", path, lineno, col, P, P);
            rc = -2;
            goto out;
        }
        row++;
    }
    if (row != P) {
        snprintf(err, errlen, "%s:%d: %d rows, P = %d needs %d", path, lineno, row, P, P);
        rc = -2;
        goto out;
    }
    rc = 0;
out:
    fclose(f);
    if (rc != 0)
        free(m);
    else
        *matrix = m;
    return rc;
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
