/* dist_provider.h — the one interface of distributions whose block sizes a provider makes
 * from its own keys: the application-derived distributions `dist = graph` (the traffic of
 * a transitive closure, per iteration) and `dist = fft` (the transposes of a distributed
 * FFT). The sweep reader and the expansion reach them only through this table; the
 * provider itself (apps/app_dist.c, linked into every program with the harness) reads the
 * keys it declares here from the section through a reader the sweep gives it. This layer
 * never names the provider: the sweep reader installs it (wl_provider_install).
 *
 * Each instance of a provided distribution (a graph iteration, an FFT size) becomes its
 * own configurations, with S = its largest block in bytes and its P x P block-byte matrix
 * as wl_params.matrix. */
#ifndef A2A_DIST_PROVIDER_H
#define A2A_DIST_PROVIDER_H

#include <stddef.h>
#include <stdio.h>
#include "a2a_registry.h"
#include "workload.h"

/* One key of a sweep section as the provider sees it: text NULL when the section does not
 * set it; line where it was set (or the section's header line). */
typedef struct wl_key {
    const char *text;
    int line;
} wl_key;

/* The key `name` of the section being read (ctx: the sweep reader's). */
typedef wl_key (*wl_key_reader)(void *ctx, const char *name);

/* One instance of a provided distribution at some P. */
typedef struct wl_instance {
    const long long *matrix; /* P x P block bytes (wl_params.matrix), NULL when skipped */
    long long S;             /* the largest block in bytes */
    const char *text;        /* canonical graph spec / FFT size (owned by the parsed keys) */
    int iteration, iterations; /* graph: the closure iteration (1-based), of how many */
    int skip;                /* 1: recorded as skipped, for `reason` */
    char reason[200];
} wl_instance;

/* A provider of distributions. */
typedef struct wl_provider {
    /* 1 for the distributions this provider makes. */
    int (*handles)(wl_dist dist);
    /* Parses the provider's keys of a section whose distributions are dists[0..ndists)
     * (`dist` is that key, for messages; relative files resolve against path's folder):
     * *keys = NULL when the section uses none of the provider's distributions. Returns 0,
     * or -1 with "path:line: message" in err. */
    int (*parse)(const char *path, const int *dists, int ndists, wl_key dist,
                 wl_key_reader read, void *ctx, void **keys, char *err, size_t errlen);
    /* Frees what parse made (NULL accepted). */
    void (*free)(void *keys);
    /* The instances of `dist` for the parsed keys at P for a kernel of `family`: 0 with a
     * malloc'ed array, or -1 with "path:line: message" in err. May compute (and cache)
     * what it needs first. */
    int (*instances)(const char *path, const void *keys, wl_dist dist, a2a_family family,
                     int P, wl_instance **out, int *n, char *err, size_t errlen);
    /* Where instances reports the work it does before it can answer (NULL: silent). */
    void (*progress)(FILE *out);
} wl_provider;

/* Installs provider as the provider of the distributions it handles (the harness installs
 * apps/app_dist.h's wl_app_provider before it reads a sweep). Installing it again changes
 * nothing. */
void wl_provider_install(const wl_provider *provider);

/* The installed provider, or NULL before one is installed. */
const wl_provider *wl_provider_installed(void);

/* The provider of dist, or NULL for the distributions workload.c makes itself (and for
 * every dist before a provider is installed). */
const wl_provider *wl_provider_of(wl_dist dist);

#endif
