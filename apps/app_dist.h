/* app_dist.h — the application provider of distributions: `dist = graph` (the traffic of a
 * transitive closure) and `dist = fft` (the transposes of a distributed FFT), through the
 * interface of workloads/dist_provider.h, which the sweep reader installs it into. */
#ifndef A2A_APP_DIST_H
#define A2A_APP_DIST_H

#include "dist_provider.h"

/* The provider of `dist = graph` and `dist = fft` (apps/app_dist.c). */
extern const wl_provider wl_app_provider;

#endif
