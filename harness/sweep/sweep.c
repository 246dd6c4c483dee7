/* sweep.c — loading sweep files with libinih (see sweep.h). */
#include <ctype.h>
#include <errno.h>
#include <unistd.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "app_dist.h"
#include "dist_provider.h"
#include "counting.h"
#include "sparse.h"
#include "sweep.h"

/* The section's own keys; the kernel parameters' keys come from the registry. */
static const char *const key_names[KEY_PARAM] = {
    "family", "kernels", "P", "S", "dist", "payload", "datatype", "gap", "iterations", "warmup",
    "seed", "timeout", "mean", "sd", "exponent", "matrix", "counters", "pattern", "graph",
    "graph_iteration", "fft", "alloc", "time_budget"
};

/* Defaults for the section's own keys a section and the global part leave unset. */
static const char *const key_defaults[KEY_PARAM] = {
    [KEY_P] = "world", [KEY_DIST] = "constant", [KEY_PAYLOAD] = "pattern",
    [KEY_DATATYPE] = "byte", [KEY_GAP] = "0", [KEY_ITERATIONS] = "20", [KEY_WARMUP] = "3",
    [KEY_SEED] = "1", [KEY_TIMEOUT] = "60", [KEY_ALLOC] = "private", [KEY_TIME_BUDGET] = "0.2",
};

/* The default text of key k, or NULL (a parameter's from its declaration). */
static const char *key_default(int k)
{
    return k < KEY_PARAM ? key_defaults[k] : a2a_param_decl((a2a_param)(k - KEY_PARAM))->sweep_default;
}

static const char *const alloc_names[SWEEP_ALLOC_COUNT] = { "private", "shared" };

/* Guarantees: a static name for every alloc value, "?" otherwise. */
const char *sweep_alloc_name(int alloc)
{
    return alloc >= 0 && alloc < SWEEP_ALLOC_COUNT ? alloc_names[alloc] : "?";
}

static const char *const datatype_names[] = { "byte", "char", "int", "int64", "float", "double" };
#define NDATATYPES ((int)(sizeof datatype_names / sizeof datatype_names[0]))

/* Guarantees: a static name for every key (a parameter's: its declared name). */
const char *sweep_key_name(sweep_key key)
{
    return key < KEY_PARAM ? key_names[key] : a2a_param_name((a2a_param)(key - KEY_PARAM));
}

/* Guarantees: the number of datatype names a sweep accepts. */
int sweep_datatype_count(void)
{
    return NDATATYPES;
}

/* Guarantees: the name of datatype `index` (valid index). */
const char *sweep_datatype_name(int index)
{
    return datatype_names[index];
}

/* Guarantees: the size in bytes of datatype `index` (valid index), without MPI. */
int sweep_datatype_size(int index)
{
    static const int sizes[NDATATYPES] = { 1, 1, (int)sizeof(int), 8, (int)sizeof(float),
                                           (int)sizeof(double) };
    return sizes[index];
}

/* Guarantees: the MPI predefined type for datatype `index` (valid index). */
MPI_Datatype sweep_datatype(int index)
{
    switch (index) {
    case 1: return MPI_CHAR;
    case 2: return MPI_INT;
    case 3: return MPI_INT64_T;
    case 4: return MPI_FLOAT;
    case 5: return MPI_DOUBLE;
    default: return MPI_BYTE;
    }
}

/* ---- reading: INI lines of any length, counted ------------------------------------ */

typedef struct load_state {
    sweep *sw;
    int line;                 /* the line being read (1-based) */
    int header_line;          /* the line of the current section's [name] header */
    sweep_setting global[KEY_COUNT];
    sweep_setting *last;      /* the setting of the previous key line (continuations) */
    char err[512];
} load_state;

/* Guarantees: the key called `name` (a section key or a declared parameter), or -1. */
static int key_by_name(const char *name)
{
    for (int k = 0; k < KEY_COUNT; k++)
        if (strcmp(sweep_key_name((sweep_key)k), name) == 0)
            return k;
    return -1;
}

static int handle_pair(void *user, const char *section, const char *name, const char *value)
{
    load_state *st = user;
    sweep *sw = st->sw;
    int line = st->line;
    sweep_setting *settings = st->global;
    if (section[0]) {
        sweep_section *last = sw->nsections ? &sw->sections[sw->nsections - 1] : NULL;
        if (!last || strcmp(last->name, section) != 0) {
            for (int i = 0; i < sw->nsections; i++)
                if (strcmp(sw->sections[i].name, section) == 0) {
                    snprintf(st->err, sizeof st->err,
                             "%s:%d: section [%s] appears twice (first at line %d)", sw->path, line,
                             section, sw->sections[i].line);
                    return 0;
                }
            if (strlen(section) >= sizeof last->name) {
                snprintf(st->err, sizeof st->err, "%s:%d: section name too long", sw->path, line);
                return 0;
            }
            sweep_section *grown = realloc(sw->sections, (size_t)(sw->nsections + 1) * sizeof *grown);
            if (!grown)
                abort();
            sw->sections = grown;
            last = &sw->sections[sw->nsections++];
            memset(last, 0, sizeof *last);
            snprintf(last->name, sizeof last->name, "%s", section);
            last->line = st->header_line;
        }
        settings = last->setting;
    }
    int key = key_by_name(name);
    if (key < 0) {
        snprintf(st->err, sizeof st->err, "%s:%d: unknown key '%s'", sw->path, line, name);
        return 0;
    }
    if (settings[key].text) {
        snprintf(st->err, sizeof st->err, "%s:%d: key '%s' given twice (first at line %d)",
                 sw->path, line, name, settings[key].line);
        return 0;
    }
    settings[key].text = strdup(value);
    settings[key].line = line;
    st->last = &settings[key];
    return 1;
}

/* Where an inline comment (';' after white space) or one of `stop` begins in s, or its
 * end. */
static char *find_stop(char *s, const char *stop)
{
    int after_space = 0;
    while (*s && !(stop && strchr(stop, *s)) && !(after_space && *s == ';')) {
        after_space = isspace((unsigned char)*s);
        s++;
    }
    return s;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* Reads the INI text line by line, of any length: `[section]` headers, `key = value`
 * (or `key: value`) pairs, whole-line comments (';' or '#') and inline comments (';'
 * after white space). An indented line right after a key line continues its value
 * (joined with one space). Returns 0, or the first bad line with the message in st->err
 * when the handler gave one. */
static int parse_ini(const char *text, load_state *st)
{
    char section[sizeof st->sw->sections[0].name] = "";
    if ((unsigned char)text[0] == 0xEF && (unsigned char)text[1] == 0xBB &&
        (unsigned char)text[2] == 0xBF)
        text += 3; /* a UTF-8 byte order mark */
    char *copy = strdup(text), *next = copy;
    int rc = 0;
    st->line = 0;
    st->last = NULL;
    while (*next && rc == 0) {
        char *raw = next, *end = strchr(next, '\n');
        if (end) {
            *end = '\0';
            next = end + 1;
        } else {
            next = raw + strlen(raw);
        }
        st->line++;
        char *line = trim(raw);
        if (!*line || *line == ';' || *line == '#')
            continue;
        if (st->last && line > raw) { /* indented: continues the previous value */
            *find_stop(line, NULL) = '\0';
            line = trim(line);
            size_t had = strlen(st->last->text), more = strlen(line);
            char *joined = realloc(st->last->text, had + more + 2);
            if (!joined)
                abort();
            snprintf(joined + had, more + 2, "%s%s", had ? " " : "", line);
            st->last->text = joined;
            continue;
        }
        st->last = NULL;
        if (*line == '[') {
            char *close = find_stop(line + 1, "]");
            if (*close != ']') {
                rc = st->line;
                break;
            }
            *close = '\0';
            const char *name = trim(line + 1);
            if (strlen(name) >= sizeof section) {
                snprintf(st->err, sizeof st->err, "%s:%d: section name too long (at most %zu "
                         "characters)", st->sw->path, st->line, sizeof section - 1);
                rc = st->line;
                break;
            }
            snprintf(section, sizeof section, "%s", name);
            st->header_line = st->line;
            continue;
        }
        char *sep = find_stop(line, "=:");
        if (*sep != '=' && *sep != ':') {
            rc = st->line;
            break;
        }
        *sep = '\0';
        char *value = sep + 1;
        while (isspace((unsigned char)*value))
            value++;
        *find_stop(value, NULL) = '\0';
        if (!handle_pair(st, section, trim(line), trim(value)))
            rc = st->line;
    }
    free(copy);
    return rc;
}

/* 0 when text is UTF-8, else the line of its first byte that is not, with the byte and
 * its column (1-based, in bytes). */
static int first_bad_utf8(const char *text, int *column, unsigned *byte)
{
    const unsigned char *p = (const unsigned char *)text, *line_start = p;
    int line = 1;
    while (*p) {
        int n = *p < 0x80 ? 0 : (*p & 0xE0) == 0xC0 ? 1 : (*p & 0xF0) == 0xE0 ? 2
                : (*p & 0xF8) == 0xF0 ? 3 : -1;
        unsigned cp = n == 0 ? *p : n == 1 ? *p & 0x1Fu : n == 2 ? *p & 0x0Fu : *p & 0x07u;
        int ok = n >= 0;
        for (int k = 1; ok && k <= n; k++) {
            ok = (p[k] & 0xC0) == 0x80;
            cp = (cp << 6) | (p[k] & 0x3Fu);
        }
        /* no overlong forms, surrogates or values beyond U+10FFFF */
        if (ok && n > 0)
            ok = cp >= (n == 1 ? 0x80u : n == 2 ? 0x800u : 0x10000u) && cp <= 0x10FFFFu &&
                 (cp < 0xD800u || cp > 0xDFFFu);
        if (!ok) {
            *column = (int)(p - line_start) + 1;
            *byte = *p;
            return line;
        }
        if (*p == '\n') {
            line++;
            line_start = p + 1;
        }
        p += n + 1;
    }
    return 0;
}

/* ---- checking one section ------------------------------------------------------- */

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

static int parse_int_setting(const char *path, const sweep_setting *s, long long lo,
                             long long hi, long long *out, char *err, size_t errlen);

/* iterations (a count, or `auto`) and time_budget (seconds, used by auto). */
static int parse_iterations(const char *path, const sweep_setting *set, sweep_section *sec,
                            char *err, size_t errlen)
{
    const sweep_setting *it = &set[KEY_ITERATIONS], *b = &set[KEY_TIME_BUDGET];
    char *end;
    sec->time_budget = strtod(b->text, &end);
    while (*end == ' ')
        end++;
    if (end == b->text || *end || !(sec->time_budget > 0 && sec->time_budget <= 3600))
        FAIL("%s:%d: time_budget = '%s' is not a number of seconds in (0, 3600]", path, b->line,
             b->text);
    const char *t = it->text + strspn(it->text, " ");
    if (strncmp(t, "auto", 4) == 0 && t[4 + strspn(t + 4, " ")] == '\0') {
        sec->iterations = SWEEP_ITERATIONS_AUTO;
        return 0;
    }
    long long v;
    if (parse_int_setting(path, it, 0, 1000000, &v, err, errlen)) {
        char line[1024];
        snprintf(line, sizeof line, "%s (or auto: by time_budget)", err);
        snprintf(err, errlen, "%s", line);
        return -1;
    }
    sec->iterations = (int)v;
    return 0;
}

static int parse_int_setting(const char *path, const sweep_setting *s, long long lo,
                             long long hi, long long *out, char *err, size_t errlen)
{
    char *end;
    const char *t = s->text;
    while (*t == ' ')
        t++;
    long long v = strtoll(t, &end, 10);
    while (*end == ' ')
        end++;
    if (end == t || *end)
        FAIL("%s:%d: '%s' is not an integer", path, s->line, s->text);
    if (v < lo || v > hi)
        FAIL("%s:%d: %lld is outside %lld..%lld", path, s->line, v, lo, hi);
    *out = v;
    return 0;
}

static int parse_names(const char *path, const sweep_setting *s, const char *what,
                       int (*lookup)(const char *, void *), void *ctx, int **out, int *n,
                       char *err, size_t errlen)
{
    char **words, msg[256];
    int nwords;
    if (vlist_split_words(s->text, &words, &nwords, msg, sizeof msg) != 0)
        FAIL("%s:%d: %s: %s", path, s->line, what, msg);
    *out = malloc((size_t)nwords * sizeof **out);
    *n = 0;
    for (int i = 0; i < nwords; i++) {
        int v = lookup(words[i], ctx);
        if (v < 0) {
            snprintf(err, errlen, "%s:%d: unknown %s '%s'", path, s->line, what, words[i]);
            vlist_free_words(words, nwords);
            return -1;
        }
        int seen = 0;
        for (int j = 0; j < *n; j++)
            seen |= (*out)[j] == v;
        if (!seen)
            (*out)[(*n)++] = v;
    }
    vlist_free_words(words, nwords);
    return 0;
}

static int lookup_dist(const char *name, void *ctx) { (void)ctx; return wl_dist_by_name(name); }
static int lookup_payload(const char *name, void *ctx) { (void)ctx; return wl_payload_by_name(name); }
static int lookup_datatype(const char *name, void *ctx)
{
    (void)ctx;
    for (int i = 0; i < NDATATYPES; i++)
        if (strcmp(datatype_names[i], name) == 0)
            return i;
    return -1;
}

/* Splits `pattern = a, b` into sec->patterns, each checked by sp_spec_parse; relative
 * .mtx paths are taken relative to the sweep file's folder. */
static int parse_patterns(const char *path, sweep_section *sec, const sweep_setting *s,
                          char *err, size_t errlen)
{
    if (!s->text)
        FAIL("%s:%d: section [%s] does not set 'pattern' (e.g. stencil2d:64x64, rmat:8, "
             "mtx:FILE)", path, sec->line, sec->name);
    char *copy = strdup(s->text), *save = NULL, *folder_buf = strdup(path);
    const char *folder = dirname(folder_buf);
    int rc = 0;
    for (char *item = strtok_r(copy, ",", &save); item && !rc; item = strtok_r(NULL, ",", &save)) {
        while (*item == ' ')
            item++;
        size_t n = strlen(item);
        while (n > 0 && item[n - 1] == ' ')
            item[--n] = '\0';
        char resolved[1024], msg[300];
        const char *file = strncmp(item, "mtx:", 4) == 0 ? item + 4 : item;
        int is_file = file != item || (n > 4 && strcmp(item + n - 4, ".mtx") == 0);
        if (is_file && file[0] != '/')
            snprintf(resolved, sizeof resolved, "mtx:%s/%s", folder, file);
        else if (is_file)
            snprintf(resolved, sizeof resolved, "mtx:%s", file);
        else
            snprintf(resolved, sizeof resolved, "%s", item);
        sp_spec spec;
        if (n && is_file && access(resolved + 4, R_OK) != 0)
            snprintf(msg, sizeof msg, "cannot read %.200s: %.60s", resolved + 4, strerror(errno));
        else
            msg[0] = '\0';
        if (!n || msg[0] || sp_spec_parse(resolved, sec->seed, &spec, msg, sizeof msg) != 0) {
            snprintf(err, errlen, "%s:%d: pattern '%s': %s", path, s->line, item,
                     n ? msg : "empty item");
            rc = -1;
            break;
        }
        sec->patterns = realloc(sec->patterns, (size_t)(sec->npatterns + 1) * sizeof *sec->patterns);
        sec->patterns[sec->npatterns++] = strdup(resolved);
    }
    free(copy);
    free(folder_buf);
    return rc;
}

/* A copy of `text` (malloc'd) with every whole word that names a value of `param`
 * ("row", "hilbert") replaced by its number; other words are left for vlist_parse. */
static char *names_to_numbers(const char *text, a2a_param param)
{
    int n;
    const char *const *names = a2a_param_value_names(param, &n);
    size_t cap = strlen(text) * 4 + 16, used = 0;
    char *out = malloc(cap);
    for (const char *p = text; *p;) {
        if (isalpha((unsigned char)*p) || *p == '_') {
            const char *w = p;
            while (isalnum((unsigned char)*p) || *p == '_')
                p++;
            int value = 0;
            for (int v = 0; v < n; v++)
                if (strlen(names[v]) == (size_t)(p - w) && strncmp(names[v], w, (size_t)(p - w)) == 0)
                    value = v + 1;
            if (value)
                used += (size_t)snprintf(out + used, cap - used, "%d", value);
            else
                used += (size_t)snprintf(out + used, cap - used, "%.*s", (int)(p - w), w);
        } else {
            out[used++] = *p++;
            out[used] = 0;
        }
    }
    out[used] = 0;
    return out;
}

/* Reads `alloc = private, shared` into sec->allocs. shared: only for the families whose
 * buffers the runner allocates (not sdde/sddev); a kernel that needs shared buffers
 * (a2a_kernel_needs_shared) needs `shared` among the values. */
static int parse_allocs(const char *path, sweep_section *sec, const sweep_setting *s, char *err,
                        size_t errlen)
{
    char **words, msg[256];
    int nwords;
    if (vlist_split_words(s->text, &words, &nwords, msg, sizeof msg) != 0)
        FAIL("%s:%d: alloc: %s", path, s->line, msg);
    sec->allocs = malloc((size_t)(nwords > 0 ? nwords : 1) * sizeof *sec->allocs);
    sec->nallocs = 0;
    int shared = 0, rc = 0;
    for (int i = 0; i < nwords && rc == 0; i++) {
        int v = -1, seen = 0;
        for (int a = 0; a < SWEEP_ALLOC_COUNT; a++)
            if (strcmp(words[i], alloc_names[a]) == 0)
                v = a;
        if (v < 0) {
            snprintf(err, errlen, "%s:%d: alloc = '%s': not private or shared", path, s->line,
                     words[i]);
            rc = -1;
            break;
        }
        for (int j = 0; j < sec->nallocs; j++)
            seen |= sec->allocs[j] == v;
        if (!seen)
            sec->allocs[sec->nallocs++] = v;
        shared |= v == SWEEP_ALLOC_SHARED;
    }
    vlist_free_words(words, nwords);
    if (rc)
        return rc;
    if (shared && (sec->family == A2A_FAMILY_SDDE || sec->family == A2A_FAMILY_SDDEV))
        FAIL("%s:%d: alloc = shared is for the uniform, nonuniform and inplace families", path,
             s->line);
    for (int k = 0; k < sec->nkernels && !shared; k++)
        if (a2a_kernel_needs_shared(sec->kernels[k]))
            FAIL("%s:%d: kernel %s needs alloc = shared (its buffers must come from "
                 "A2A_Hint_alloc); section [%s] has alloc = %s", path, s->line,
                 sec->kernels[k]->name, sec->name, s->text);
    return 0;
}

/* Guarantees: 1 if the `dist` list text names only distributions made by a provider
 * (dist_provider.h: graph, fft), whose sizes make S optional; 0 otherwise (a malformed list
 * is left to the section's checks). */
static int only_provided(const char *dist_text)
{
    char **words, msg[128];
    int n, only = 1;
    if (!dist_text || vlist_split_words(dist_text, &words, &n, msg, sizeof msg) != 0)
        return 0;
    for (int i = 0; i < n; i++) {
        int d = wl_dist_by_name(words[i]);
        only &= d >= 0 && wl_provider_of((wl_dist)d) != NULL;
    }
    vlist_free_words(words, n);
    return only;
}

/* Guarantees: the key `name` of the section ctx as a provider reads it (text NULL when
 * neither the section nor the global part set it). */
static wl_key section_key(void *ctx, const char *name)
{
    const sweep_section *sec = ctx;
    int k = key_by_name(name);
    wl_key key = { NULL, sec->line };
    if (k >= 0)
        key = (wl_key){ sec->setting[k].text, sec->setting[k].line };
    return key;
}

/* Guarantees: every key the section leaves unset takes the value set before the first
 * section, else its default (at the section's header line); a sparse family or an
 * application-sized dist without S gets S = 0 (sizes come from elsewhere). */
static void fill_settings(sweep_section *sec, const sweep_setting *global)
{
    sweep_setting *set = sec->setting;
    for (int k = 0; k < KEY_COUNT; k++)
        if (!set[k].text && global[k].text) {
            set[k].text = strdup(global[k].text);
            set[k].line = global[k].line;
        }
    for (int k = 0; k < KEY_COUNT; k++)
        if (!set[k].text && key_default(k)) {
            set[k].text = strdup(key_default(k));
            set[k].line = sec->line;
        }
    int sparse = set[KEY_FAMILY].text && (strstr(set[KEY_FAMILY].text, "sdde") != NULL);
    if ((sparse || only_provided(set[KEY_DIST].text)) && !set[KEY_S].text) {
        /* message sizes come from the pattern, or from the application (graph, fft) */
        set[KEY_S].text = strdup("0");
        set[KEY_S].line = sec->line;
    }
}

/* Guarantees: sec->family and sec->kernels (each once, in the order written), or -1 with
 * "file:line: ..." in err for an unknown family, a bad list or an unknown kernel. */
static int parse_kernels(const char *path, sweep_section *sec, char *err, size_t errlen)
{
    sweep_setting *set = sec->setting;
    char word[64];
    if (sscanf(set[KEY_FAMILY].text, " %63s", word) != 1 || (int)(sec->family = a2a_family_by_name(word)) < 0)
        FAIL("%s:%d: unknown family '%s' (known: uniform, nonuniform, inplace, sdde, sddev)", path,
             set[KEY_FAMILY].line, set[KEY_FAMILY].text);

    char **names, msg[256];
    int nnames;
    if (vlist_split_words(set[KEY_KERNELS].text, &names, &nnames, msg, sizeof msg) != 0)
        FAIL("%s:%d: kernels: %s", path, set[KEY_KERNELS].line, msg);
    sec->kernels = malloc((size_t)nnames * sizeof *sec->kernels);
    for (int i = 0; i < nnames; i++) {
        const a2a_kernel *k = a2a_find_kernel(sec->family, names[i]);
        if (!k) {
            snprintf(err, errlen, "%s:%d: unknown %s kernel '%s' (see 'a2atune list')", path,
                     set[KEY_KERNELS].line, a2a_family_name(sec->family), names[i]);
            vlist_free_words(names, nnames);
            return -1;
        }
        int seen = 0;
        for (int j = 0; j < sec->nkernels; j++)
            seen |= sec->kernels[j] == k;
        if (!seen)
            sec->kernels[sec->nkernels++] = k;
    }
    vlist_free_words(names, nnames);
    return 0;
}

/* Guarantees: sec->dists, payloads and datatypes by name, or -1 with "file:line: ..." in
 * err for an unknown name or a distribution of unequal blocks in the uniform family. */
static int parse_data_names(const char *path, sweep_section *sec, char *err, size_t errlen)
{
    sweep_setting *set = sec->setting;
    if (parse_names(path, &set[KEY_DIST], "distribution", lookup_dist, NULL, &sec->dists,
                    &sec->ndists, err, errlen) ||
        parse_names(path, &set[KEY_PAYLOAD], "payload", lookup_payload, NULL, &sec->payloads,
                    &sec->npayloads, err, errlen) ||
        parse_names(path, &set[KEY_DATATYPE], "datatype", lookup_datatype, NULL,
                    &sec->datatypes, &sec->ndatatypes, err, errlen))
        return -1;
    if (sec->family == A2A_FAMILY_UNIFORM)
        for (int i = 0; i < sec->ndists; i++)
            if (!wl_dist_is_constant((wl_dist)sec->dists[i]) && sec->dists[i] != WL_DIST_FFT)
                FAIL("%s:%d: distribution '%s' gives blocks of different sizes; the uniform "
                     "family needs 'constant' (or 'fft')", path, set[KEY_DIST].line,
                     wl_dist_name((wl_dist)sec->dists[i]));
    return 0;
}

/* Guarantees: the value lists of P, S, gap and every parameter parsed (named values as
 * their numbers), P depending on world only, and every parameter a kernel takes set (ppn
 * aside); else -1 with "file:line: ..." in err. */
static int parse_value_lists(const char *path, sweep_section *sec, char *err, size_t errlen)
{
    sweep_setting *set = sec->setting;
    char msg[256];
    struct { sweep_key key; vlist **list; } lists[KEY_COUNT] = {
        { KEY_P, &sec->P }, { KEY_S, &sec->S }, { KEY_GAP, &sec->gap },
    };
    size_t nlists = 3;
    for (int p = 0; p < A2A_PARAM_COUNT; p++) {
        lists[nlists].key = SWEEP_PARAM_KEY(p);
        lists[nlists++].list = &sec->param[p];
    }
    for (size_t i = 0; i < nlists; i++) {
        const sweep_setting *s = &set[lists[i].key];
        if (!s->text)
            continue;
        int param = (int)lists[i].key - KEY_PARAM, nnames = 0;
        if (param >= 0)
            a2a_param_value_names((a2a_param)param, &nnames);
        char *text = nnames ? names_to_numbers(s->text, (a2a_param)param) : NULL;
        int bad = vlist_parse(text ? text : s->text, lists[i].list, msg, sizeof msg) != 0;
        free(text);
        if (bad)
            FAIL("%s:%d: %s = %s: %s", path, s->line, sweep_key_name(lists[i].key), s->text, msg);
    }
    if (vlist_uses(sec->P, "P") || vlist_uses(sec->P, "Q") || vlist_uses(sec->P, "N"))
        FAIL("%s:%d: P may only depend on 'world' (the launch size)", path, set[KEY_P].line);

    for (int i = 0; i < sec->nkernels; i++)
        for (int p = 0; p < A2A_PARAM_COUNT; p++)
            if (p != A2A_PARAM_PPN && a2a_kernel_takes(sec->kernels[i], (a2a_param)p) &&
                !sec->param[p])
                FAIL("%s:%d: kernel %s takes %s but section [%s] does not set it", path,
                     set[KEY_KERNELS].line, sec->kernels[i]->name, a2a_param_name((a2a_param)p),
                     sec->name);
    return 0;
}

/* Guarantees: iterations (or auto and its time budget), warmup, seed, timeout and the
 * distributions' mean, sd and exponent (NAN when unset) read and range-checked; else -1
 * with "file:line: ..." in err. */
static int parse_run_numbers(const char *path, sweep_section *sec, char *err, size_t errlen)
{
    sweep_setting *set = sec->setting;
    long long v;
    if (parse_iterations(path, set, sec, err, errlen))
        return -1;
    if (parse_int_setting(path, &set[KEY_WARMUP], 0, 1000000, &v, err, errlen))
        return -1;
    sec->warmup = (int)v;
    if (parse_int_setting(path, &set[KEY_SEED], 0, (long long)(~0ULL >> 1), &v, err, errlen))
        return -1;
    sec->seed = (uint64_t)v;
    {
        const sweep_setting *s = &set[KEY_TIMEOUT];
        char *end;
        double t = strtod(s->text, &end);
        while (*end == ' ')
            end++;
        if (end == s->text || *end || !isfinite(t) || t < 0.001 || t > 86400)
            FAIL("%s:%d: timeout = '%s' is not a number of seconds from 0.001 to 86400", path,
                 s->line, s->text);
        sec->timeout = t;
    }

    double *targets[] = { &sec->dist_params.mean, &sec->dist_params.sd, &sec->dist_params.exponent };
    const sweep_key number_keys[] = { KEY_MEAN, KEY_SD, KEY_EXPONENT };
    for (int i = 0; i < 3; i++) {
        *targets[i] = NAN;
        const sweep_setting *s = &set[number_keys[i]];
        if (!s->text)
            continue;
        char *end;
        double x = strtod(s->text, &end);
        while (*end == ' ')
            end++;
        if (end == s->text || *end || !isfinite(x) || x < 0)
            FAIL("%s:%d: %s = '%s' is not a non-negative number", path, s->line,
                 sweep_key_name(number_keys[i]), s->text);
        *targets[i] = x;
    }
    return 0;
}

/* Guarantees: with dist = matrix, sec->matrix_path is the matrix file (relative to the
 * sweep's folder unless absolute); -1 with "file:line: ..." in err when it is not given. */
static int resolve_matrix(const char *path, sweep_section *sec, char *err, size_t errlen)
{
    sweep_setting *set = sec->setting;
    int uses_matrix = 0;
    for (int i = 0; i < sec->ndists; i++)
        uses_matrix |= sec->dists[i] == WL_DIST_MATRIX;
    if (uses_matrix) {
        const sweep_setting *s = &set[KEY_MATRIX];
        if (!s->text)
            FAIL("%s:%d: dist = matrix needs 'matrix = FILE' (a P x P byte-count matrix)", path,
                 set[KEY_DIST].line);
        char *folder_buf = strdup(path);
        const char *folder = dirname(folder_buf);
        const char *file = s->text;
        while (*file == ' ')
            file++;
        size_t len = strlen(folder) + strlen(file) + 2;
        sec->matrix_path = malloc(len);
        if (file[0] == '/')
            snprintf(sec->matrix_path, len, "%s", file);
        else
            snprintf(sec->matrix_path, len, "%s/%s", folder, file);
        free(folder_buf);
    }
    return 0;
}

/* Guarantees: the section complete and checked, one named step after the other (see
 * sweep.h); -1 with "file:line: ..." in err at the first step that refuses it. */
static int check_section(const char *path, sweep_section *sec, const sweep_setting *global,
                         char *err, size_t errlen)
{
    sweep_setting *set = sec->setting;
    char msg[256];
    fill_settings(sec, global);
    static const sweep_key required[] = { KEY_FAMILY, KEY_KERNELS, KEY_S };
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!set[required[i]].text)
            FAIL("%s:%d: section [%s] does not set '%s'", path, sec->line, sec->name,
                 sweep_key_name(required[i]));

    if (parse_kernels(path, sec, err, errlen) || parse_data_names(path, sec, err, errlen) ||
        parse_value_lists(path, sec, err, errlen) || parse_run_numbers(path, sec, err, errlen))
        return -1;
    if (set[KEY_COUNTERS].text) {
        char *list = NULL;
        if (counters_list_expand(set[KEY_COUNTERS].text, &list, msg, sizeof msg) != 0)
            FAIL("%s:%d: counters: %s", path, set[KEY_COUNTERS].line, msg);
        sec->counters = list;
    }
    if (sec->family == A2A_FAMILY_SDDE || sec->family == A2A_FAMILY_SDDEV) {
        if (parse_patterns(path, sec, &set[KEY_PATTERN], err, errlen))
            return -1;
    } else if (set[KEY_PATTERN].text) {
        FAIL("%s:%d: pattern is for the sdde and sddev families", path, set[KEY_PATTERN].line);
    }
    if (resolve_matrix(path, sec, err, errlen))
        return -1;
    wl_key dist = { set[KEY_DIST].text, set[KEY_DIST].line };
    if (wl_provider_installed()->parse(path, sec->dists, sec->ndists, dist, section_key, sec,
                              &sec->provided, err, errlen))
        return -1;
    if (parse_allocs(path, sec, &set[KEY_ALLOC], err, errlen))
        return -1;
    return 0;
}

/* Guarantees: on success every section is complete and checked (see sweep.h); the
 * application provider of distributions is installed (workloads/dist_provider.h). */
int sweep_load(const char *path, const char *text, sweep **out, char *err, size_t errlen)
{
    wl_provider_install(&wl_app_provider);
    sweep *sw = calloc(1, sizeof *sw);
    sw->path = strdup(path);
    sw->text = strdup(text);
    load_state st = { .sw = sw };
    int column, rc;
    unsigned byte;
    if ((rc = first_bad_utf8(text, &column, &byte)) != 0) {
        snprintf(err, errlen, "%s:%d: not UTF-8 text (byte 0x%02X at column %d); save the sweep "
                 "file as UTF-8", path, rc, byte, column);
        goto fail;
    }
    rc = parse_ini(text, &st);
    if (rc != 0) {
        if (st.err[0])
            snprintf(err, errlen, "%s", st.err);
        else
            snprintf(err, errlen, "%s:%d: not a 'key = value' line or '[section]' header", path, rc);
        goto fail;
    }
    if (sw->nsections == 0) {
        snprintf(err, errlen, "%s:%d: no section with settings: nothing to run", path,
                 st.line > 0 ? st.line : 1);
        goto fail;
    }
    for (int i = 0; i < sw->nsections; i++)
        if (check_section(path, &sw->sections[i], st.global, err, errlen))
            goto fail;
    for (int k = 0; k < KEY_COUNT; k++)
        free(st.global[k].text);
    *out = sw;
    return 0;
fail:
    for (int k = 0; k < KEY_COUNT; k++)
        free(st.global[k].text);
    sweep_free(sw);
    return -1;
}

/* Guarantees: frees everything sweep_load allocated; NULL is fine. */
void sweep_free(sweep *sw)
{
    if (!sw)
        return;
    for (int i = 0; i < sw->nsections; i++) {
        sweep_section *sec = &sw->sections[i];
        for (int k = 0; k < KEY_COUNT; k++)
            free(sec->setting[k].text);
        free(sec->kernels);
        vlist_free(sec->P);
        vlist_free(sec->S);
        vlist_free(sec->gap);
        for (int p = 0; p < A2A_PARAM_COUNT; p++)
            vlist_free(sec->param[p]);
        free(sec->dists);
        free(sec->payloads);
        free(sec->datatypes);
        free(sec->matrix_path);
        free(sec->counters);
        for (int p = 0; p < sec->npatterns; p++)
            free(sec->patterns[p]);
        free(sec->patterns);
        wl_provider_installed()->free(sec->provided);
        free(sec->allocs);
    }
    free(sw->sections);
    free(sw->path);
    free(sw->text);
    free(sw);
}
