/* provenance.c — where and how a run is measured (see provenance.h). */
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "provenance.h"
#ifdef A2A_SIMGRID
#include <simgrid/host.h>
#include <simgrid/version.h>
#endif

#ifndef A2A_GIT_REVISION
#define A2A_GIT_REVISION "unknown"
#endif

#define HOST_LEN 256

static void cpu_model(char *out, size_t len)
{
    snprintf(out, len, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "model name", 10) == 0) {
            char *colon = strchr(line, ':');
            if (colon) {
                colon += 2;
                colon[strcspn(colon, "\n")] = '\0';
                snprintf(out, len, "%s", colon);
            }
            break;
        }
    fclose(f);
}

static long long cache_size(hwloc_topology_t topo, hwloc_obj_type_t type)
{
    hwloc_obj_t obj = hwloc_get_next_obj_by_type(topo, type, NULL);
    return obj && obj->attr ? (long long)obj->attr->cache.size : 0;
}

/* Guarantees: MemAvailable of /proc/meminfo in bytes, or 0. */
double memory_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return 0;
    char line[256];
    double kib = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %lf kB", &kib) == 1)
            break;
    fclose(f);
    return kib * 1024;
}

/* Guarantees: see provenance.h. */
void collect_provenance(MPI_Comm world, run_info *info, int *node_ranks, int *oversubscribed_at)
{
    int rank, size;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    memset(info, 0, sizeof *info);

    char host[HOST_LEN] = "";
    gethostname(host, sizeof host - 1);
    int cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
#ifdef A2A_SIMGRID
    /* the simulated host and its cores: every simulated rank has a core of its own */
    int name_len = 0;
    MPI_Get_processor_name(host, &name_len);
    cores = sg_host_core_count(sg_host_self());
#endif
    char *hosts = malloc((size_t)size * HOST_LEN);
    int *all_cores = malloc((size_t)size * sizeof *all_cores);
    MPI_Allgather(host, HOST_LEN, MPI_CHAR, hosts, HOST_LEN, MPI_CHAR, world);
    MPI_Allgather(&cores, 1, MPI_INT, all_cores, 1, MPI_INT, world);

    /* node of each rank = index of the first rank with the same host name */
    int *node_of = malloc((size_t)size * sizeof *node_of);
    int *on_node = calloc((size_t)size, sizeof *on_node);
    int n = 0;
    for (int i = 0; i < size; i++) {
        node_of[i] = i;
        /* ranks are usually placed node by node: the previous rank's node first (every
         * rank does this, so a search over all earlier ranks would cost P^3 in a
         * simulation of P ranks) */
        if (i > 0 && strcmp(hosts + (size_t)i * HOST_LEN, hosts + (size_t)(i - 1) * HOST_LEN) == 0) {
            node_of[i] = node_of[i - 1];
        } else {
            for (int j = 0; j < i; j++)
                if (strcmp(hosts + (size_t)i * HOST_LEN, hosts + (size_t)j * HOST_LEN) == 0) {
                    node_of[i] = node_of[j];
                    break;
                }
        }
        if (node_of[i] == i) {
            if (n > 0)
                strncat(info->hosts, ",", sizeof info->hosts - strlen(info->hosts) - 1);
            strncat(info->hosts, hosts + (size_t)i * HOST_LEN,
                    sizeof info->hosts - strlen(info->hosts) - 1);
            n++;
        }
    }
    int oversubscribed = 0, ppn = 0;
    oversubscribed_at[0] = 0;
    for (int P = 1; P <= size; P++) {
        int node = node_of[P - 1];
        on_node[node]++;
        if (on_node[node] > ppn)
            ppn = on_node[node];
        if (on_node[node] > all_cores[node])
            oversubscribed = 1;
        oversubscribed_at[P] = oversubscribed;
    }
    *node_ranks = on_node[0];

    snprintf(info->host, sizeof info->host, "%s", hosts);
    info->nodes = n;
    info->world_size = size;
    info->ppn = ppn;
    info->cores_per_node = all_cores[0];
    info->oversubscribed = oversubscribed;
    free(hosts);
    free(all_cores);
    free(node_of);
    free(on_node);

    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(version, &len);
    version[strcspn(version, "\n")] = '\0';
    snprintf(info->mpi_version, sizeof info->mpi_version, "%.500s", version);
    snprintf(info->mpi_library, sizeof info->mpi_library, "%s",
             strstr(version, "Open MPI") ? "Open MPI" : strstr(version, "MPICH") ? "MPICH" : "other");
#ifdef __VERSION__
    snprintf(info->compiler, sizeof info->compiler, "%s", "gcc " __VERSION__);
#endif
    snprintf(info->git_revision, sizeof info->git_revision, "%s", A2A_GIT_REVISION);
    snprintf(info->backend, sizeof info->backend, "mpi");
#ifdef A2A_SIMGRID
    /* `scripts/a2a simulate` says which platform and options smpirun was given */
    int major = 0, minor = 0, patch = 0;
    sg_version_get(&major, &minor, &patch);
    snprintf(info->backend, sizeof info->backend, "simgrid");
    snprintf(info->mpi_library, sizeof info->mpi_library, "SimGrid SMPI");
    snprintf(info->simgrid_version, sizeof info->simgrid_version, "%d.%d.%d", major, minor, patch);
    const char *platform = getenv("A2A_SIM_PLATFORM"), *sha = getenv("A2A_SIM_PLATFORM_SHA256");
    const char *options = getenv("A2A_SIM_OPTIONS");
    snprintf(info->platform, sizeof info->platform, "%s", platform ? platform : "unknown");
    snprintf(info->platform_sha256, sizeof info->platform_sha256, "%s", sha ? sha : "");
    snprintf(info->smpi_options, sizeof info->smpi_options, "%s", options ? options : "");
#endif
    if (rank != 0)
        return; /* the machine description is only recorded by rank 0 */
    cpu_model(info->cpu_model, sizeof info->cpu_model);
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) == 0) {
        if (hwloc_topology_load(topo) == 0) {
            info->l1d_bytes = cache_size(topo, HWLOC_OBJ_L1CACHE);
            info->l2_bytes = cache_size(topo, HWLOC_OBJ_L2CACHE);
            info->l3_bytes = cache_size(topo, HWLOC_OBJ_L3CACHE);
        }
        hwloc_topology_destroy(topo);
    }
}

/* Guarantees: out holds the arguments separated by one space, NUL-terminated, cut at len. */
void join_command_line(int argc, char **argv, char *out, size_t len)
{
    size_t used = 0;
    out[0] = 0;
    for (int i = 0; i < argc && used < len; i++)
        used += (size_t)snprintf(out + used, len - used, "%s%s", i ? " " : "", argv[i]);
}
