/* provenance.c — where and how a run is measured (see provenance.h). */
#if A2A_HAVE_HWLOC
#include <hwloc.h>
#endif
#include <jansson.h>
#include <sched.h>
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
#define CPU_LIST_LEN 256

extern char **environ;

static void run_conditions(MPI_Comm world, run_info *info);

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

#if A2A_HAVE_HWLOC
static long long cache_size(hwloc_topology_t topo, hwloc_obj_type_t type)
{
    hwloc_obj_t obj = hwloc_get_next_obj_by_type(topo, type, NULL);
    return obj && obj->attr ? (long long)obj->attr->cache.size : 0;
}
#endif

/* Guarantees: info's L1d, L2 and L3 sizes in bytes (0 where unknown): hwloc's first cache of
 * each level when built with hwloc, else sysconf's. */
static void cache_sizes(run_info *info)
{
#if A2A_HAVE_HWLOC
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) == 0) {
        if (hwloc_topology_load(topo) == 0) {
            info->l1d_bytes = cache_size(topo, HWLOC_OBJ_L1CACHE);
            info->l2_bytes = cache_size(topo, HWLOC_OBJ_L2CACHE);
            info->l3_bytes = cache_size(topo, HWLOC_OBJ_L3CACHE);
        }
        hwloc_topology_destroy(topo);
    }
#else
    long l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    info->l1d_bytes = l1 > 0 ? l1 : 0;
    info->l2_bytes = l2 > 0 ? l2 : 0;
    info->l3_bytes = l3 > 0 ? l3 : 0;
#endif
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
double load_average(void)
{
    double load[1];
    return getloadavg(load, 1) == 1 ? (double)(long)(load[0] * 100 + 0.5) / 100 : -1;
}

/* Open MPI's launcher talks to its ranks through OMPI_MCA_ variables that differ in every
 * launch (job ids, addresses, session directories) and steer nothing measured. */
static int launcher_internal(const char *var)
{
    static const char *const internal[] = { "OMPI_MCA_orte_", "OMPI_MCA_ess", "OMPI_MCA_pmix=",
                                            "OMPI_MCA_initial_wdir=",
                                            "OMPI_MCA_shmem_RUNTIME_QUERY_hint=", NULL };
    for (const char *const *p = internal; *p; p++)
        if (strncmp(var, *p, strlen(*p)) == 0)
            return 1;
    return 0;
}

/* Appends the variables of environ that start with one of prefixes to the JSON object obj. */
static void add_environment(json_t *obj, const char *const *prefixes)
{
    for (char **e = environ; *e; e++)
        for (const char *const *p = prefixes; *p; p++)
            if (strncmp(*e, *p, strlen(*p)) == 0 && !launcher_internal(*e)) {
                const char *eq = strchr(*e, '=');
                if (!eq)
                    break;
                char name[256];
                snprintf(name, sizeof name, "%.*s", (int)(eq - *e), *e);
                json_object_set_new(obj, name, json_string(eq + 1));
                break;
            }
}

/* Appends the settings (lines that are not comments) of an MCA parameter file, if any. */
static void add_parameter_file(json_t *files, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    json_t *lines = json_array();
    char line[512];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        const char *t = line + strspn(line, " \t");
        if (*t && *t != '#')
            json_array_append_new(lines, json_string(t));
    }
    fclose(f);
    json_object_set_new(files, path, lines);
}

/* The CPUs this process may run on, as "0-3,6". */
static void cpu_list(char *out, size_t len)
{
    cpu_set_t set;
    out[0] = '\0';
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        snprintf(out, len, "?");
        return;
    }
    size_t used = 0;
    for (int c = 0; c < CPU_SETSIZE && used < len; c++) {
        if (!CPU_ISSET(c, &set))
            continue;
        int last = c;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set))
            last++;
        used += (size_t)snprintf(out + used, len - used, "%s%d", used ? "," : "", c);
        if (last > c && used < len)
            used += (size_t)snprintf(out + used, len - used, "-%d", last);
        c = last;
    }
}

/* Fills mpi_env (the environment variables and parameter files that steer the MPI library,
 * as rank 0 saw them; liba2a's own setting of coll_tuned_use_dynamic_rules included, since
 * it is made before MPI_Init), binding (ranks with the same CPUs as one run, "0-1:0-1
 * 2:0"), load_start. Collective over world. */
static void run_conditions(MPI_Comm world, run_info *info)
{
    int rank, size;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    char mine[CPU_LIST_LEN];
    cpu_list(mine, sizeof mine);
    char *all = rank == 0 ? malloc((size_t)size * CPU_LIST_LEN) : NULL;
    MPI_Gather(mine, CPU_LIST_LEN, MPI_CHAR, all, CPU_LIST_LEN, MPI_CHAR, 0, world);
    info->load_start = load_average();
    if (rank != 0)
        return;
    size_t used = 0, cap = sizeof info->binding;
    for (int lo = 0; lo < size && used < cap;) {
        int hi = lo;
        while (hi + 1 < size && strcmp(all + (size_t)(hi + 1) * CPU_LIST_LEN,
                                       all + (size_t)lo * CPU_LIST_LEN) == 0)
            hi++;
        if (hi > lo)
            used += (size_t)snprintf(info->binding + used, cap - used, "%s%d-%d:%s",
                                     used ? " " : "", lo, hi, all + (size_t)lo * CPU_LIST_LEN);
        else
            used += (size_t)snprintf(info->binding + used, cap - used, "%s%d:%s",
                                     used ? " " : "", lo, all + (size_t)lo * CPU_LIST_LEN);
        lo = hi + 1;
    }
    free(all);

    static const char *const prefixes[] = { "OMPI_MCA_", "OMPI_MPI_", "MPIR_CVAR_",
                                            "MPICH_", "HYDRA_", "UCX_", "FI_", "SMPI_", NULL };
    json_t *obj = json_object(), *files = json_object();
    add_environment(obj, prefixes);
    const char *home = getenv("HOME");
    char path[1024];
    add_parameter_file(files, "/etc/openmpi/openmpi-mca-params.conf");
    if (home) {
        snprintf(path, sizeof path, "%s/.openmpi/mca-params.conf", home);
        add_parameter_file(files, path);
    }
    const char *param_files = getenv("OMPI_MCA_mca_base_param_files");
    if (param_files)
        add_parameter_file(files, param_files);
    if (json_object_size(files) > 0)
        json_object_set(obj, "parameter files", files);
    json_decref(files);
    char *text = json_dumps(obj, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(obj);
    if (text && strlen(text) < sizeof info->mpi_env)
        snprintf(info->mpi_env, sizeof info->mpi_env, "%s", text);
    else if (text)
        snprintf(info->mpi_env, sizeof info->mpi_env, "{\"truncated\": true}");
    free(text);
}

/* Rank 0's part of collect_provenance: from every rank's host name (HOST_LEN each) and
 * cores, the description of the launch: info's hosts, host, nodes, ppn, cores_per_node
 * and oversubscribed, and out = { ranks on the first node, oversubscribed_at[0..size] }. */
static void describe_nodes(const char *hosts, const int *all_cores, int size, run_info *info, int *out)
{
    /* node of each rank = index of the first rank with the same host name */
    int *node_of = malloc((size_t)size * sizeof *node_of);
    int *on_node = calloc((size_t)size, sizeof *on_node);
    int n = 0;
    for (int i = 0; i < size; i++) {
        node_of[i] = i;
        /* ranks are usually placed node by node: the previous rank's node first */
        if (i > 0 && strcmp(hosts + (size_t)i * HOST_LEN, hosts + (size_t)(i - 1) * HOST_LEN) == 0) {
            node_of[i] = node_of[i - 1];
        } else {
            for (int j = 0; j < i; j++)
                if (node_of[j] == j && strcmp(hosts + (size_t)i * HOST_LEN, hosts + (size_t)j * HOST_LEN) == 0) {
                    node_of[i] = j;
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
    for (int r = 0; r < size; r++) {
        int node = node_of[r];
        on_node[node]++;
        if (on_node[node] > ppn)
            ppn = on_node[node];
        if (on_node[node] > all_cores[node])
            oversubscribed = 1;
    }
    /* every rank of the launch stays alive while the first P run, idle or not: a node of
     * the first P ranks is crowded when the launch put more ranks than cores on it */
    int *oversubscribed_at = out + 1;
    oversubscribed_at[0] = 0;
    for (int P = 1; P <= size; P++) {
        int node = node_of[P - 1];
        oversubscribed_at[P] = oversubscribed_at[P - 1] || on_node[node] > all_cores[node];
    }
    out[0] = on_node[0];
    snprintf(info->host, sizeof info->host, "%s", hosts);
    info->nodes = n;
    info->ppn = ppn;
    info->cores_per_node = all_cores[0];
    info->oversubscribed = oversubscribed;
    free(node_of);
    free(on_node);
}

/* Guarantees: the family of the MPI library this program was compiled against, as the
 * tuning files and the vendor baselines name it: "Open MPI" or "MPICH" from the macros of
 * its <mpi.h> (as a2a_tuned.h tells them apart), else from its version string (a derived
 * library that names its origin), else "other". */
static const char *mpi_library_family(const char *version)
{
#if defined(OPEN_MPI)
    (void)version;
    return "Open MPI";
#elif defined(MPICH)
    (void)version;
    return "MPICH";
#else
    return strstr(version, "Open MPI") ? "Open MPI" : strstr(version, "MPICH") ? "MPICH" : "other";
#endif
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
    /* rank 0 gathers every host name and core count, works out the nodes, and broadcasts
     * what every rank needs (an allgather of the names moved P^2 of them: 4 GiB of
     * simulated traffic and memory at P = 4096, most of a simulation's start-up) */
    char *hosts = rank == 0 ? malloc((size_t)size * HOST_LEN) : NULL;
    int *all_cores = rank == 0 ? malloc((size_t)size * sizeof *all_cores) : NULL;
    MPI_Gather(host, HOST_LEN, MPI_CHAR, hosts, HOST_LEN, MPI_CHAR, 0, world);
    MPI_Gather(&cores, 1, MPI_INT, all_cores, 1, MPI_INT, 0, world);
    /* shared: nodes, ppn, cores per node, oversubscribed, ranks on the first node,
     * oversubscribed_at[0..size] */
    int *shared = calloc((size_t)size + 6, sizeof *shared);
    if (rank == 0) {
        describe_nodes(hosts, all_cores, size, info, shared + 4);
        shared[0] = info->nodes;
        shared[1] = info->ppn;
        shared[2] = info->cores_per_node;
        shared[3] = info->oversubscribed;
    }
    MPI_Bcast(shared, size + 6, MPI_INT, 0, world);
    info->nodes = shared[0];
    info->ppn = shared[1];
    info->cores_per_node = shared[2];
    info->oversubscribed = shared[3];
    *node_ranks = shared[4];
    memcpy(oversubscribed_at, shared + 5, ((size_t)size + 1) * sizeof *oversubscribed_at);
    info->world_size = size;
    free(shared);
    free(hosts);
    free(all_cores);

    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(version, &len);
    version[strcspn(version, "\n")] = '\0';
    snprintf(info->mpi_version, sizeof info->mpi_version, "%.500s", version);
    snprintf(info->mpi_library, sizeof info->mpi_library, "%s", mpi_library_family(version));
#ifdef __VERSION__
    snprintf(info->compiler, sizeof info->compiler, "%s", "gcc " __VERSION__);
#endif
    snprintf(info->git_revision, sizeof info->git_revision, "%s", A2A_GIT_REVISION);
    snprintf(info->backend, sizeof info->backend, "mpi");
    run_conditions(world, info);
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
    /* the network model is a model even when nobody chose it: launched without `a2a
     * simulate`, the run says that it ran on smpirun's own model, not recorded */
    const char *network = getenv("A2A_SIM_NETWORK_MODEL");
    snprintf(info->network_model, sizeof info->network_model, "%s",
             network && network[0] ? network
             : "{\"network/model\": [\"SMPI\", \"smpirun\"], \"recorded\": [\"no: launched "
               "without a2a simulate; the platform's <config> and SimGrid's defaults apply\", \"\"]}");
#endif
    if (rank != 0)
        return; /* the machine description is only recorded by rank 0 */
    cpu_model(info->cpu_model, sizeof info->cpu_model);
    cache_sizes(info);
}

/* Guarantees: out holds the arguments separated by one space, NUL-terminated, cut at len. */
void join_command_line(int argc, char **argv, char *out, size_t len)
{
    size_t used = 0;
    out[0] = 0;
    for (int i = 0; i < argc && used < len; i++)
        used += (size_t)snprintf(out + used, len - used, "%s%s", i ? " " : "", argv[i]);
}
