/* expand_command.c — `a2atune expand`: value lists and sweep files as the driver reads
 * them, printed as JSON, so that the Python copies of the readers (scripts/a2a_tools
 * vlist.py and sweepfile.py) are checked against this C code (tests/scripts/test_vectors.py)
 * and a user can preview a list. Starts no MPI. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "expand_command.h"
#include "sweep.h"
#include "vlist.h"

static const char expand_usage[] =
    "usage: a2atune expand [--P N] [--Q N] [--N N] [--world N] [--radix N] LIST...\n"
    "       a2atune expand --sweep FILE [--world N]\n"
    "  LIST...      value lists as in sweep files (\"2..P:*2, sqrt\"), each expanded with the\n"
    "               names given (0 when not given): a JSON array of {\"list\", \"values\"} or\n"
    "               {\"list\", \"error\"}\n"
    "  --sweep FILE the file read as `a2atune run` reads it: {\"sections\": [{\"name\",\n"
    "               \"line\", \"P\"}]} with P expanded at launch size --world (default 1),\n"
    "               or {\"error\"}\n"
    "exit codes: 0 all read, 2 a list, the file or an argument was refused (the JSON says\n"
    "            which)\n";

/* Guarantees: {"list": text, "values": [...]} or {"list": text, "error": message} of one
 * list expanded in env; *failed set to 1 when it is an error. */
static json_t *list_json(const char *text, const vlist_env *env, int *failed)
{
    char err[256];
    vlist *l = NULL;
    long long *values = NULL;
    int n = 0;
    json_t *out = json_pack("{s:s}", "list", text);
    if (vlist_parse(text, &l, err, sizeof err) || vlist_eval(l, env, &values, &n, err, sizeof err)) {
        json_object_set_new(out, "error", json_string(err));
        *failed = 1;
    } else {
        json_t *list = json_array();
        for (int i = 0; i < n; i++)
            json_array_append_new(list, json_integer(values[i]));
        json_object_set_new(out, "values", list);
    }
    free(values);
    vlist_free(l);
    return out;
}

/* Guarantees: the whole file at path as a NUL-terminated malloc'ed string (its length in
 * *len, NUL bytes kept), or NULL with a message in err. */
static char *slurp(const char *path, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    long size = -1;
    if (f && fseek(f, 0, SEEK_END) == 0)
        size = ftell(f);
    if (size < 0 || fseek(f, 0, SEEK_SET) != 0) {
        snprintf(err, errlen, "%s: cannot read the sweep file", path);
        if (f)
            fclose(f);
        return NULL;
    }
    char *text = malloc((size_t)size + 1);
    *len = fread(text, 1, (size_t)size, f);
    text[*len] = '\0';
    fclose(f);
    return text;
}

/* Guarantees: the sections of the sweep file at path as sweep_load reads it, with the
 * process counts of each at launch size world (P expanded with P = Q = N = 0, as the
 * expansion does), or {"error": "file:line: message"}; *failed set to 1 then. */
static json_t *sweep_json(const char *path, long long world, int *failed)
{
    char err[512];
    size_t len = 0;
    sweep *sw = NULL;
    char *text = slurp(path, &len, err, sizeof err);
    if (text && strlen(text) != len) {
        snprintf(err, sizeof err, "%s: not a text file (contains NUL bytes)", path);
        free(text);
        text = NULL;
    }
    if (!text || sweep_load(path, text, &sw, err, sizeof err)) {
        free(text);
        *failed = 1;
        return json_pack("{s:s}", "error", err);
    }
    json_t *sections = json_array();
    for (int s = 0; s < sw->nsections; s++) {
        const sweep_section *sec = &sw->sections[s];
        vlist_env env = { .world = world };
        json_t *one = list_json(vlist_text(sec->P), &env, failed);
        json_object_set_new(one, "name", json_string(sec->name));
        json_object_set_new(one, "line", json_integer(sec->line));
        json_array_append_new(sections, one);
    }
    sweep_free(sw);
    free(text);
    return json_pack("{s:o}", "sections", sections);
}

/* Guarantees: *value set from text, a whole decimal integer; -1 (nothing set) otherwise. */
static int whole_number(const char *text, long long *value)
{
    char *end;
    long long v = strtoll(text, &end, 10);
    if (end == text || *end)
        return -1;
    *value = v;
    return 0;
}

/* Guarantees: see expand_command.h. */
int command_expand(int argc, char **argv)
{
    vlist_env env = { 0 };
    const char *sweep_path = NULL;
    static const char *const names[] = { "--P", "--Q", "--N", "--world", "--radix" };
    long long *slots[] = { &env.P, &env.Q, &env.N, &env.world, &env.radix };
    int first_list = argc, failed = 0;
    for (int i = 2; i < argc && first_list == argc; i++) {
        int named = -1;
        for (int k = 0; k < 5; k++)
            if (strcmp(argv[i], names[k]) == 0)
                named = k;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(expand_usage, stdout);
            return EXIT_OK;
        } else if (named >= 0 && i + 1 < argc && whole_number(argv[i + 1], slots[named]) == 0) {
            i++;
        } else if (strcmp(argv[i], "--sweep") == 0 && i + 1 < argc) {
            sweep_path = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1] == '-') {
            fprintf(stderr, "a2atune: expand: bad argument '%s' (see a2atune expand --help)\n",
                    argv[i]);
            return EXIT_BAD_INPUT;
        } else
            first_list = i;
    }
    if (!sweep_path == (first_list == argc)) {
        fprintf(stderr, "a2atune: expand takes value lists or --sweep FILE (see a2atune "
                        "expand --help)\n");
        return EXIT_BAD_INPUT;
    }
    json_t *out;
    if (sweep_path) {
        if (env.world == 0)
            env.world = 1;
        out = sweep_json(sweep_path, env.world, &failed);
    } else {
        out = json_array();
        for (int i = first_list; i < argc; i++)
            json_array_append_new(out, list_json(argv[i], &env, &failed));
    }
    int rc = json_dumpf(out, stdout, JSON_COMPACT);
    printf("\n");
    json_decref(out);
    return rc != 0 ? EXIT_WRONG : failed ? EXIT_BAD_INPUT : EXIT_OK;
}
