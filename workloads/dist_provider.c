/* dist_provider.c — the installed provider of distributions (see dist_provider.h). */
#include "dist_provider.h"

static const wl_provider *installed;

/* Guarantees: wl_provider_installed and wl_provider_of answer with provider from now on. */
void wl_provider_install(const wl_provider *provider)
{
    installed = provider;
}

/* Guarantees: the provider last installed, NULL before any. */
const wl_provider *wl_provider_installed(void)
{
    return installed;
}

/* Guarantees: the installed provider for the dists it handles, NULL for every other dist
 * and before a provider is installed. */
const wl_provider *wl_provider_of(wl_dist dist)
{
    return installed && installed->handles(dist) ? installed : NULL;
}
