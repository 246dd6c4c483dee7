/* candidates_command.c — `a2atune candidates`: what online tuning (A2A_TUNING=online)
 * would try for given communicator sizes and block sizes, from the library's own rule
 * (kernels/tuned/online_candidates.c). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "online_candidates.h"
#include "vlist.h"

#define MAX_P (1 << 20) /* communicator sizes asked about: the model scans every radix */

static const char candidates_usage[] =
    "usage: a2atune candidates --P LIST --S LIST [--collective alltoall|alltoallv|both] [--json]\n"
    "  the candidates online tuning (A2A_TUNING=online) explores for each (P, S), in the\n"
    "  order it runs them, the MPI library's own algorithm first: the library's own rule\n"
    "  (kernels/tuned/online_candidates.c). S is the bytes of one block (alltoallv: the\n"
    "  largest block); the rule sees the lower end of S's power-of-two bucket, as online\n"
    "  tuning does. Lists as in sweep files, e.g. --P 64,256,1024 --S 16,1024,16384.\n"
    "  --collective  alltoall, alltoallv or both (default both)\n"
    "  --json        one JSON array: {collective, P, S, candidates: [{kernel, params, text}]}\n"
    "exit codes: 0 ok, 2 bad input (a P outside 1..2^20, an S outside 0..2^40, an unknown option)\n";

/* Guarantees: the candidate as the online tuner's lines name it ("MPI library",
 * "tra radix=4", "tuna radix=4 block_count=3") in text; its parameters into params when
 * given (a JSON object). */
static void candidate_text(const a2a_online_candidate *c, char *text, size_t len, json_t *params)
{
    const a2a_kernel *k = c->kernel;
    size_t used = (size_t)snprintf(text, len, "%s", k->is_baseline ? "MPI library" : k->name);
    for (int i = 0; i < k->nparams && used < len && !k->is_baseline; i++) {
        a2a_param p = k->params[i].param;
        char value[32];
        a2a_param_value_text(p, c->params[p], value, sizeof value);
        used += (size_t)snprintf(text + used, len - used, " %s=%s", a2a_param_name(p), value);
    }
    for (int i = 0; i < k->nparams && params; i++)
        json_object_set_new(params, a2a_param_name(k->params[i].param),
                            json_integer(c->params[k->params[i].param]));
}

/* Guarantees: the values of a list given to --P or --S (each in min..max) in *values;
 * EXIT_OK, or EXIT_BAD_INPUT after one line on stderr. */
static int list_values(const char *option, const char *text, long long min, long long max,
                       long long **values, int *n)
{
    char err[256];
    vlist *l = NULL;
    int rc = EXIT_OK;
    if (vlist_parse(text, &l, err, sizeof err) ||
        vlist_eval(l, &(vlist_env){ 0, 0, 0, 0, 0 }, values, n, err, sizeof err)) {
        fprintf(stderr, "a2atune: candidates: %s %s: %s\n", option, text, err);
        rc = EXIT_BAD_INPUT;
    }
    for (int i = 0; rc == EXIT_OK && i < *n; i++)
        if ((*values)[i] < min || (*values)[i] > max) {
            fprintf(stderr, "a2atune: candidates: %s %lld is outside %lld..%lld\n", option,
                    (*values)[i], min, max);
            rc = EXIT_BAD_INPUT;
        }
    vlist_free(l);
    return rc;
}

/* `a2atune candidates`: the online candidates of every (collective, P, S) asked for. */
int command_candidates(int argc, char **argv)
{
    const char *P_text = NULL, *S_text = NULL, *coll = "both";
    int as_json = 0;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(candidates_usage, stdout);
            return EXIT_OK;
        }
        if (strcmp(argv[i], "--P") == 0 && i + 1 < argc)
            P_text = argv[++i];
        else if (strcmp(argv[i], "--S") == 0 && i + 1 < argc)
            S_text = argv[++i];
        else if (strcmp(argv[i], "--collective") == 0 && i + 1 < argc)
            coll = argv[++i];
        else if (strcmp(argv[i], "--json") == 0)
            as_json = 1;
        else {
            fprintf(stderr, "a2atune: candidates: unexpected argument '%s' (see a2atune "
                    "candidates --help)\n", argv[i]);
            return EXIT_BAD_INPUT;
        }
    }
    int first = strcmp(coll, "alltoallv") == 0, last = strcmp(coll, "alltoall") == 0 ? 0 : 1;
    if (strcmp(coll, "both") && strcmp(coll, "alltoall") && strcmp(coll, "alltoallv")) {
        fprintf(stderr, "a2atune: candidates: --collective %s: not alltoall, alltoallv or both\n",
                coll);
        return EXIT_BAD_INPUT;
    }
    if (!P_text || !S_text) {
        fprintf(stderr, "a2atune: candidates needs --P and --S (see a2atune candidates --help)\n");
        return EXIT_BAD_INPUT;
    }
    long long *Ps = NULL, *Ss = NULL;
    int nP = 0, nS = 0;
    int rc = list_values("--P", P_text, 1, MAX_P, &Ps, &nP);
    if (rc == EXIT_OK)
        rc = list_values("--S", S_text, 0, 1LL << 40, &Ss, &nS);
    json_t *all = json_array();
    for (int c = first; rc == EXIT_OK && c <= last; c++)
        for (int i = 0; i < nP; i++)
            for (int j = 0; j < nS; j++) {
                a2a_online_candidate list[A2A_ONLINE_MAX_CANDIDATES];
                int n = a2a_online_candidates(c, (int)Ps[i], Ss[j], list, A2A_ONLINE_MAX_CANDIDATES);
                json_t *cands = json_array();
                if (!as_json)
                    printf("%s P=%lld S=%lld:", c ? "alltoallv" : "alltoall", Ps[i], Ss[j]);
                for (int k = 0; k < n; k++) {
                    char text[160];
                    json_t *params = json_object();
                    candidate_text(&list[k], text, sizeof text, params);
                    if (!as_json)
                        printf("%s %s", k ? ";" : "", text);
                    json_array_append_new(cands, json_pack("{s:s, s:o, s:s}", "kernel",
                                                           list[k].kernel->name, "params", params,
                                                           "text", text));
                }
                if (!as_json)
                    printf("\n");
                json_array_append_new(all, json_pack("{s:s, s:I, s:I, s:o}", "collective",
                                                     c ? "alltoallv" : "alltoall", "P", (json_int_t)Ps[i],
                                                     "S", (json_int_t)Ss[j], "candidates", cands));
            }
    if (rc == EXIT_OK && as_json) {
        json_dumpf(all, stdout, JSON_COMPACT);
        printf("\n");
    }
    json_decref(all);
    free(Ps);
    free(Ss);
    return rc;
}
