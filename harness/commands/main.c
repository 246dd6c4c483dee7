/* main.c — the a2atune driver: command line, `list`, `--help`. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "a2a_registry.h"
#include "cli.h"
#include "copybench.h"
#include "counters.h"
#include "db.h"
#include "expand_command.h"
#include "provenance.h"
#include "radix_model.h"
#include "sweep.h"
#include "vlist.h"
#include "workload.h"

static const char usage[] =
    "a2atune — autotuning benchmark for MPI all-to-all algorithms\n"
    "\n"
    "usage:\n"
    "  mpirun -n N a2atune run SWEEP.ini [--db PATH] [--section LIST] [--counters LIST]\n"
    "                                    [--resume] [--dry-run] [--quiet]\n"
    "                                    [--shuffle SEED] [--launch I/N --launch-group ID]\n"
    "  mpirun -n N a2atune tune SWEEP.ini [--budget 25%] [--db PATH] [--resume] [--replay DB]\n"
    "                     measure only what a model-guided search chooses, until every\n"
    "                     (P, S) is decided or the budget is spent; then the tuning files\n"
    "                     (a2atune tune --help)\n"
    "  a2atune list [--json]\n"
    "                     every kernel: family, parameters and their valid ranges; the\n"
    "                     parameters' declarations (--json: all of it as JSON)\n"
    "  a2atune counters   which hardware (PAPI) and software counters work here, and why not\n"
    "  a2atune model --P LIST --radix LIST\n"
    "                     rounds K and blocks D of TRA (TRA paper, Propositions 1-4);\n"
    "                     lists as in sweep files, e.g. --P 16384 --radix 2,4,sqrt,P\n"
    "  a2atune candidates --P LIST --S LIST [--collective alltoall|alltoallv|both] [--json]\n"
    "                     what online tuning (A2A_TUNING=online) would try for each (P, S):\n"
    "                     the library's own candidate list (a2atune candidates --help)\n"
    "  a2atune expand [--P N --Q N --N N --world N --radix N] LIST... | --sweep FILE\n"
    "                     value lists expanded, or a sweep file's sections and process\n"
    "                     counts, as JSON (a2atune expand --help)\n"
    "  mpirun -n P a2atune app tc --graph SPEC [--kernel NAME --radix R ...]\n"
    "  mpirun -n P a2atune app fft --n SIZE [--kernel NAME --radix R ...]\n"
    "                     application benchmarks: a transitive closure shuffling with the\n"
    "                     kernel, a distributed FFT transposing with it; verified, timed\n"
    "                     next to the vendor collective, recorded (a2atune app --help)\n"
    "  a2atune copybench [--db PATH] [--sizes LIST] [--threads N] [--samples N]\n"
    "                     copy bandwidth of this machine (temporal, non-temporal, hybrid;\n"
    "                     one and all cores) into the database, family 'copy' (without\n"
    "                     mpirun; a2atune copybench --help)\n"
    "  a2atune --help     this text\n"
    "  a2atune --version\n"
    "\n"
    "run:\n"
    "  Expands the sweep file into configurations and, for each, validates the kernel\n"
    "  byte for byte against the MPI library's collective and times it (max over ranks\n"
    "  per iteration). Every P <= N runs in this launch on the first P ranks.\n"
    "  --db PATH       SQLite results database (default results/a2a.db); created if missing\n"
    "  --section LIST  run only these sections of the sweep (comma-separated names)\n"
    "  --counters LIST events counted in extra calls after the timed ones (each rank counts\n"
    "                  its own calls; max, sum and rank 0 are stored): PAPI presets or\n"
    "                  native names, task-clock, context-switches, cpu-migrations,\n"
    "                  page-faults, or the sets `default` (PAPI_L1_DCM, PAPI_L2_DCM,\n"
    "                  PAPI_L3_TCM, PAPI_MEM_WCY, PAPI_STL_ICY, PAPI_TOT_CYC, PAPI_TOT_INS)\n"
    "                  and `software`; `none` turns counting off\n"
    "  --resume        skip every configuration already ok in PATH (matched on the\n"
    "                  configuration, MPI library and host class, whatever the sweep text\n"
    "                  or launch size) and continue the newest run of this very sweep;\n"
    "                  nothing is redone or duplicated; counts of what is skipped are printed\n"
    "  --dry-run       print the configurations (and why some are skipped); run nothing;\n"
    "                  with --resume, also which are already recorded and how many are left\n"
    "  --quiet         no per-configuration progress lines\n"
    "  --shuffle SEED  run the configurations in an order drawn from SEED (recorded): the\n"
    "                  process counts in a random order, each one's configurations shuffled\n"
    "  --launch I/N --launch-group ID\n"
    "                  this launch is the I-th of N launches of one experiment named ID\n"
    "                  (recorded; scripts/run-sweep.sh --launches N makes them): the tools\n"
    "                  then take the spread between the launches' medians as the noise\n"
    "\n"
    "exit codes: 0 all correct, 1 a result was wrong or a kernel failed, 2 bad input\n"
    "            (or a live run holds the same configurations, or the database refused a\n"
    "            write), 3 a configuration hit its time limit (the run was ended; --resume\n"
    "            continues), 4 (SimGrid build) a configuration crashed the simulation (recorded\n"
    "            as error with the signal; the run was ended; --resume continues)\n";

static int report_errors = 1; /* under mpirun only rank 0 reports */

/* Guarantees: the message on stderr (rank 0 only under mpirun); EXIT_BAD_INPUT. */
static int bad_usage(const char *fmt, const char *arg)
{
    if (!report_errors)
        return EXIT_BAD_INPUT;
    fprintf(stderr, "a2atune: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (see a2atune --help)\n");
    return EXIT_BAD_INPUT;
}

/* The bound b as JSON: {"base": "P", "offset": -1} (base "" for a constant). */
static json_t *bound_json(a2a_bound b)
{
    static const char *const base[] = { "", "P", "Q", "N", "P-Q", "radix" };
    return json_pack("{s:s, s:i}", "base", base[b.base], "offset", b.offset);
}

/* Guarantees: the parameters' declarations (A2A_PARAMS) and the kernel table as one JSON
 * object on stdout: {"params": [{name, meaning, sweep_default, column, values}], "kernels":
 * [{family, name, summary, baseline, needs_groups, needs_shared, params: [{name, range,
 * lo, hi, meaning}]}], "distributions", "payloads", "datatypes", "views": [{name,
 * select}] (db_views: the results contract)}; the Python tools read it. */
static int command_list_json(void)
{
    json_t *params = json_array(), *kernels = json_array(), *names;
    for (int p = 0; p < A2A_PARAM_COUNT; p++) {
        const a2a_param_info *info = a2a_param_decl((a2a_param)p);
        int n;
        const char *const *values = a2a_param_value_names((a2a_param)p, &n);
        json_t *value_list = values ? json_array() : json_null();
        for (int v = 0; values && v < n; v++)
            json_array_append_new(value_list, json_string(values[v]));
        json_array_append_new(params, json_pack("{s:s, s:s, s:o, s:b, s:o}", "name", info->name,
                                                "meaning", info->meaning, "sweep_default",
                                                info->sweep_default
                                                    ? json_string(info->sweep_default)
                                                    : json_null(),
                                                "column", info->column != 0, "values",
                                                value_list));
    }
    int n;
    const a2a_kernel *k = a2a_registry(&n);
    for (int i = 0; i < n; i++) {
        json_t *ranges = json_array();
        for (int p = 0; p < k[i].nparams; p++) {
            char range[64];
            a2a_range_text(&k[i].params[p], range, sizeof range);
            const a2a_param_range *r = &k[i].params[p];
            json_array_append_new(ranges, json_pack("{s:s, s:s, s:o, s:o, s:o}", "name",
                                                    a2a_param_name(r->param), "range", range,
                                                    "lo", bound_json(r->lo), "hi",
                                                    bound_json(r->hi), "meaning",
                                                    r->meaning ? json_string(r->meaning)
                                                               : json_null()));
        }
        json_array_append_new(kernels, json_pack("{s:s, s:s, s:s, s:b, s:b, s:b, s:o}", "family",
                                                 a2a_family_name(k[i].family), "name",
                                                 k[i].name, "summary", k[i].summary, "baseline",
                                                 k[i].is_baseline != 0, "needs_groups",
                                                 (k[i].needs & A2A_NEEDS_GROUPS) != 0,
                                                 "needs_shared",
                                                 a2a_kernel_needs_shared(&k[i]), "params",
                                                 ranges));
    }
    json_t *out = json_pack("{s:o, s:o}", "params", params, "kernels", kernels);
    json_object_set_new(out, "distributions", names = json_array());
    for (int d = 0; d < WL_DIST_COUNT; d++)
        json_array_append_new(names, json_string(wl_dist_name((wl_dist)d)));
    json_object_set_new(out, "payloads", names = json_array());
    for (int p = 0; p < WL_PAYLOAD_COUNT; p++)
        json_array_append_new(names, json_string(wl_payload_name((wl_payload)p)));
    json_object_set_new(out, "datatypes", names = json_array());
    for (int t = 0; t < sweep_datatype_count(); t++)
        json_array_append_new(names, json_string(sweep_datatype_name(t)));
    int nviews;
    const db_view *views = db_views(&nviews);
    json_object_set_new(out, "views", names = json_array());
    for (int v = 0; v < nviews; v++)
        json_array_append_new(names, json_pack("{s:s, s:s}", "name", views[v].name, "select",
                                               views[v].select));
    int rc = json_dumpf(out, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    printf("\n");
    json_decref(out);
    return rc == 0 ? EXIT_OK : EXIT_WRONG;
}

/* Guarantees: the registry as a table on stdout (`a2atune list`), or as JSON with
 * `--json`; EXIT_BAD_INPUT for another argument. */
static int command_list(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[2], "--json") == 0 && argc == 3)
        return command_list_json();
    if (argc > 2)
        return bad_usage("list takes only --json, not '%s'", argv[2]);
    int n;
    const a2a_kernel *k = a2a_registry(&n);
    printf("%-11s %-20s %-52s %s\n", "family", "kernel", "parameters (valid range)", "what it is");
    for (int i = 0; i < n; i++) {
        char params[256] = "";
        size_t used = 0;
        for (int p = 0; p < k[i].nparams; p++) {
            char range[64];
            a2a_range_text(&k[i].params[p], range, sizeof range);
            used += (size_t)snprintf(params + used, sizeof params - used, "%s%s %s",
                                     p ? ", " : "", a2a_param_name(k[i].params[p].param), range);
        }
        if (k[i].needs & A2A_NEEDS_GROUPS)
            used += (size_t)snprintf(params + used, sizeof params - used, "%sP %% Q == 0",
                                     used ? "; " : "");
        if (a2a_kernel_needs_shared(&k[i]) && used < sizeof params)
            snprintf(params + used, sizeof params - used, "%salloc = shared", used ? "; " : "");
        printf("%-11s %-20s %-52s %s%s\n", a2a_family_name(k[i].family), k[i].name,
               params[0] ? params : "-", k[i].summary, k[i].is_baseline ? " [baseline]" : "");
        for (int p = 0; p < k[i].nparams; p++) /* what a parameter means for this kernel */
            if (k[i].params[p].meaning)
                printf("%-28s %s: %s\n", "", a2a_param_name(k[i].params[p].param),
                       k[i].params[p].meaning);
    }
    printf("\nppn = 0 means the real node size Q; 'P %% Q == 0' kernels need Q to divide P.\n");
    printf("parameters (sweep keys; P, Q, N = P/Q, radix in ranges):\n");
    for (int p = 0; p < A2A_PARAM_COUNT; p++) {
        const a2a_param_info *info = a2a_param_decl((a2a_param)p);
        printf("  %-17s %s", info->name, info->meaning);
        if (info->sweep_default)
            printf(" (default %s)", info->sweep_default);
        printf("\n");
    }
    printf("distributions:");
    for (int d = 0; d < WL_DIST_COUNT; d++)
        printf(" %s", wl_dist_name((wl_dist)d));
    printf("\npayloads:");
    for (int p = 0; p < WL_PAYLOAD_COUNT; p++)
        printf(" %s", wl_payload_name((wl_payload)p));
    printf("\ndatatypes:");
    for (int t = 0; t < sweep_datatype_count(); t++)
        printf(" %s", sweep_datatype_name(t));
    printf("\n");
    return EXIT_OK;
}

static const char model_usage[] =
    "usage: a2atune model --P LIST [--radix LIST]\n"
    "  rounds K and blocks D of TRA (TRA paper, Propositions 1-4) and the digit count w,\n"
    "  for every P of the list and every radix 2 <= r <= P (default 2..P); lists as in\n"
    "  sweep files, e.g. --P 16384 --radix 2,4,sqrt,P\n"
    "exit codes: 0 ok, 2 bad input (a P below 1, a radix outside 2..P)\n";

/* `a2atune model`: a table of w, K, D for every (P, radix) asked for. */
static int command_model(int argc, char **argv)
{
    const char *P_text = NULL, *radix_text = "2..P";
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(model_usage, stdout);
            return EXIT_OK;
        }
        if ((strcmp(argv[i], "--P") == 0 || strcmp(argv[i], "-P") == 0) && i + 1 < argc)
            P_text = argv[++i];
        else if (strcmp(argv[i], "--radix") == 0 && i + 1 < argc)
            radix_text = argv[++i];
        else {
            fprintf(stderr, "a2atune: model: unexpected argument '%s' (see a2atune --help)\n",
                    argv[i]);
            return EXIT_BAD_INPUT;
        }
    }
    if (!P_text) {
        fprintf(stderr, "a2atune: model needs --P (see a2atune --help)\n");
        return EXIT_BAD_INPUT;
    }
    char err[256];
    vlist *Ps = NULL, *radices = NULL;
    long long *pv = NULL;
    int np = 0, rc = EXIT_OK;
    if (vlist_parse(P_text, &Ps, err, sizeof err) || vlist_parse(radix_text, &radices, err, sizeof err) ||
        vlist_eval(Ps, &(vlist_env){ 0, 0, 0, 0, 0 }, &pv, &np, err, sizeof err)) {
        fprintf(stderr, "a2atune: model: %s\n", err);
        rc = EXIT_BAD_INPUT;
        goto out;
    }
    printf("%10s %10s %4s %12s %16s\n", "P", "radix", "w", "K (rounds)", "D (blocks)");
    for (int i = 0; i < np && rc == EXIT_OK; i++) {
        long long *rv = NULL;
        int nr = 0;
        if (pv[i] < 1 || vlist_eval(radices, &(vlist_env){ pv[i], pv[i], 1, pv[i], 0 }, &rv, &nr, err, sizeof err)) {
            fprintf(stderr, "a2atune: model: %s\n", pv[i] < 1 ? "P must be at least 1" : err);
            rc = EXIT_BAD_INPUT;
        }
        for (int j = 0; j < nr && rc == EXIT_OK; j++) {
            if (rv[j] < 2 || rv[j] > pv[i]) {
                fprintf(stderr, "a2atune: model: radix %lld is outside 2..P at P = %lld\n", rv[j],
                        pv[i]);
                rc = EXIT_BAD_INPUT;
                break;
            }
            printf("%10lld %10lld %4d %12lld %16lld\n", pv[i], rv[j], a2a_model_digits(pv[i], rv[j]),
                   a2a_model_rounds(pv[i], rv[j]), a2a_model_blocks(pv[i], rv[j]));
        }
        free(rv);
    }
out:
    free(pv);
    vlist_free(Ps);
    vlist_free(radices);
    return rc;
}

/* Parses `run` arguments; returns -1 on success or an exit code. */
static int parse_run(int argc, char **argv, run_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->db_path = "results/a2a.db";
    join_command_line(argc, argv, opt->command_line, sizeof opt->command_line);
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--db") == 0 || strcmp(a, "--section") == 0 || strcmp(a, "--counters") == 0) {
            if (i + 1 >= argc)
                return bad_usage("%s needs a value", a);
            const char **target = strcmp(a, "--db") == 0        ? &opt->db_path
                                  : strcmp(a, "--section") == 0 ? &opt->section
                                                                : &opt->counters;
            *target = argv[++i];
        } else if (strcmp(a, "--shuffle") == 0 || strcmp(a, "--launch") == 0 ||
                   strcmp(a, "--launch-group") == 0) {
            if (i + 1 >= argc)
                return bad_usage("%s needs a value", a);
            const char *v = argv[++i];
            char *end = NULL;
            if (strcmp(a, "--shuffle") == 0) {
                opt->shuffle = 1;
                opt->order_seed = strtoull(v, &end, 10);
                if (end == v || *end || v[0] == '-')
                    return bad_usage("--shuffle needs a non-negative integer seed, not '%s'", v);
            } else if (strcmp(a, "--launch") == 0) {
                int n = 0;
                if (sscanf(v, "%d/%d%n", &opt->launch_index, &opt->launches, &n) != 2 ||
                    v[n] || opt->launches < 1 || opt->launch_index < 1 ||
                    opt->launch_index > opt->launches)
                    return bad_usage("--launch needs I/N with 1 <= I <= N, not '%s'", v);
            } else {
                opt->launch_group = v;
            }
        } else if (strcmp(a, "--resume") == 0) {
            opt->resume = 1;
        } else if (strcmp(a, "--dry-run") == 0) {
            opt->dry_run = 1;
        } else if (strcmp(a, "--quiet") == 0) {
            opt->quiet = 1;
        } else if (a[0] == '-' && a[1]) {
            return bad_usage("unknown option '%s'", a);
        } else if (!opt->sweep_path) {
            opt->sweep_path = a;
        } else {
            return bad_usage("unexpected argument '%s'", a);
        }
    }
    if (!opt->sweep_path)
        return bad_usage("%s", "run needs a sweep file");
    if ((opt->launches > 0) != (opt->launch_group != NULL))
        return bad_usage("%s", "--launch and --launch-group go together");
    return -1;
}

int main(int argc, char **argv)
{
    A2A_Vendor_prepare(); /* before any MPI_Init: vendor_algorithm forces Open MPI's algorithms */
    if (argc < 2)
        return bad_usage("%s", "missing command");
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage, stdout);
        return EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("a2atune %s %s\n", A2A_VERSION, A2A_GIT_REVISION);
        return EXIT_OK;
    }
    if (strcmp(cmd, "list") == 0)
        return command_list(argc, argv);
    if (strcmp(cmd, "model") == 0)
        return command_model(argc, argv);
    if (strcmp(cmd, "candidates") == 0)
        return command_candidates(argc, argv);
    if (strcmp(cmd, "expand") == 0)
        return command_expand(argc, argv);
    if (strcmp(cmd, "app") == 0)
        return command_app(argc, argv);
    if (strcmp(cmd, "counters") == 0)
        return counters_describe(stdout) == 0 ? EXIT_OK : EXIT_WRONG;
    if (strcmp(cmd, "tune") == 0)
        return command_tune(argc, argv);
    if (strcmp(cmd, "copybench") == 0)
        return command_copybench(argc, argv);
    if (strcmp(cmd, "run") == 0) {
        for (int i = 2; i < argc; i++)
            if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
                fputs(usage, stdout);
                return EXIT_OK;
            }
        MPI_Init(&argc, &argv);
        int rank;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        report_errors = rank == 0;
        run_options opt;
        int rc = parse_run(argc, argv, &opt);
        if (rc < 0)
            rc = command_run(&opt);
        MPI_Finalize();
        return rc;
    }
    return bad_usage("unknown command '%s'", cmd);
}
