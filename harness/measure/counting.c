/* counting.c — counters around a configuration's calls (see counting.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "counters.h"
#include "counting.h"
#include "polite.h"

/* Guarantees: see counting.h; `default` and `software` may be mixed with names. */
int counters_list_expand(const char *text, char **list, char *err, size_t errlen)
{
    *list = NULL;
    while (*text == ' ')
        text++;
    if (!*text || strcmp(text, "none") == 0)
        return 0;
    size_t cap = strlen(text) + sizeof COUNTERS_DEFAULT + sizeof COUNTERS_SOFTWARE + 4;
    char *out = calloc(1, cap), *copy = strdup(text), *save = NULL;
    for (char *word = strtok_r(copy, ",", &save); word; word = strtok_r(NULL, ",", &save)) {
        while (*word == ' ')
            word++;
        size_t n = strlen(word);
        while (n > 0 && word[n - 1] == ' ')
            word[--n] = '\0';
        const char *add = strcmp(word, "default") == 0    ? COUNTERS_DEFAULT
                          : strcmp(word, "software") == 0 ? COUNTERS_SOFTWARE
                                                          : word;
        if (out[0])
            strcat(out, ",");
        strcat(out, add);
    }
    free(copy);
    /* the syntax check of counters_open, on a list that opens nothing: names only */
    int elements = 1;
    for (const char *p = text; *p; p++)
        elements += *p == ',';
    int words = 0;
    for (char *p = out; *p; p++)
        words += *p == ',';
    if (!out[0] || strstr(text, ",,") || text[strlen(text) - 1] == ',' || words + 1 > COUNTING_MAX_EVENTS ||
        elements > COUNTING_MAX_EVENTS) {
        snprintf(err, errlen, "'%s' is not a comma-separated list of at most %d event names", text,
                 COUNTING_MAX_EVENTS);
        free(out);
        return -1;
    }
    *list = out;
    return 0;
}

/* Guarantees: see counting.h. */
void count_calls(const char *list, int calls, int (*call)(void *ctx), void *ctx, MPI_Comm comm,
                 counted_events *out)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    char err[256] = "";
    counter_set *set = counters_open(list, err, sizeof err);
    int n = set ? counters_count(set) : 0;
    if (n > COUNTING_MAX_EVENTS)
        n = COUNTING_MAX_EVENTS;
    long long *values = calloc((size_t)(n > 0 ? n : 1), sizeof *values);
    for (int i = 0; i < calls; i++) {
        polite_barrier(comm);
        counters_start(set);
        call(ctx);
        counters_stop(set);
    }
    for (int i = 0; i < n; i++)
        values[i] = counters_value(set, i);
    long long *max = calloc((size_t)(n > 0 ? n : 1), sizeof *max);
    long long *sum = calloc((size_t)(n > 0 ? n : 1), sizeof *sum);
    /* every rank opened the same list, so n agrees */
    polite_allreduce(values, max, n, MPI_LONG_LONG, MPI_MAX, comm);
    polite_allreduce(values, sum, n, MPI_LONG_LONG, MPI_SUM, comm);
    if (rank == 0) {
        memset(out, 0, sizeof *out);
        out->n = n;
        out->calls = calls;
        for (int i = 0; i < n; i++) {
            counted_event *e = &out->event[i];
            snprintf(e->name, sizeof e->name, "%s", counters_name(set, i));
            e->available = counters_available(set, i);
            snprintf(e->reason, sizeof e->reason, "%s",
                     e->available ? counters_note(set, i) : counters_reason(set, i));
            e->max = max[i];
            e->sum = sum[i];
            e->rank0 = values[i];
        }
    }
    counters_close(set);
    free(values);
    free(max);
    free(sum);
}
