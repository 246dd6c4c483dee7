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

/* Guarantees: one (collective, P, S)'s candidates on stdout: a text line, or with as_json
 * one element of the JSON array (`[` before the first, index 0; `,` before the others). */
static void print_candidates(int alltoallv, long long P, long long S, int as_json, int index)
{
    a2a_online_candidate list[A2A_ONLINE_MAX_CANDIDATES];
    int n = a2a_online_candidates(alltoallv, (int)P, S, list, A2A_ONLINE_MAX_CANDIDATES);
    const char *coll = alltoallv ? "alltoallv" : "alltoall";
    json_t *cands = json_array();
    if (!as_json)
        printf("%s P=%lld S=%lld:", coll, P, S);
    for (int k = 0; k < n; k++) {
        char text[160];
        json_t *params = as_json ? json_object() : NULL;
        candidate_text(&list[k], text, sizeof text, params);
        if (as_json)
            json_array_append_new(cands, json_pack("{s:s, s:o, s:s}", "kernel",
                                                   list[k].kernel->name, "params", params,
                                                   "text", text));
        else
            printf("%s %s", k ? ";" : "", text);
    }
    if (as_json) {
        json_t *one = json_pack("{s:s, s:I, s:I, s:o}", "collective", coll, "P", (json_int_t)P,
                                "S", (json_int_t)S, "candidates", cands);
        fputs(index ? "," : "[", stdout);
        json_dumpf(one, stdout, JSON_COMPACT);
        json_decref(one);
    } else {
        printf("\n");
        json_decref(cands);
    }
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
    /* each (collective, P, S) printed as it is made, --json's array too: memory stays that
     * of one line however long the lists (up to 10^6 values each) */
    int lines = 0;
    for (int c = first; rc == EXIT_OK && c <= last; c++)
        for (int i = 0; i < nP; i++)
            for (int j = 0; j < nS; j++)
                print_candidates(c, Ps[i], Ss[j], as_json, lines++);
    if (rc == EXIT_OK && as_json)
        printf("%s]\n", lines ? "" : "[");
    free(Ps);
    free(Ss);
    return rc;
}
