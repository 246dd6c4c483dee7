/* dist_provider.c — finding the provider of a distribution (see dist_provider.h). */
#include "dist_provider.h"

/* Guarantees: the application provider for graph and fft, NULL for every other dist. */
const wl_provider *wl_provider_of(wl_dist dist)
{
    return wl_app_provider.handles(dist) ? &wl_app_provider : NULL;
}
