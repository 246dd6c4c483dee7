/* counting.h — counters around a configuration's calls: which events, and the
 * per-rank counts combined into what the database stores. */
#ifndef A2A_COUNTING_H
#define A2A_COUNTING_H

#include <mpi.h>
#include <stddef.h>

#define COUNTING_MAX_EVENTS 32

/* One event of one configuration, combined over the ranks of its communicator. */
typedef struct counted_event {
    char name[64];
    int available;        /* on rank 0 */
    char reason[256];     /* why not available, or a caveat; "" if none */
    long long max, sum, rank0;
} counted_event;

typedef struct counted_events {
    int n;
    long long calls;      /* kernel calls counted on each rank */
    counted_event event[COUNTING_MAX_EVENTS];
} counted_events;

/* Expands a sweep's or the command line's list: the words `default` (PAPI presets of
 * the HINT paper) and `software` (task-clock, context-switches, cpu-migrations,
 * page-faults) stand for their sets; `none` or an empty list means no counting
 * (*list = NULL). Checks the syntax (via counters_open's rules) without opening
 * anything. Returns 0, or -1 with a message. */
int counters_list_expand(const char *text, char **list, char *err, size_t errlen);

/* Calls call(ctx) `calls` times with the events of `list` counted around each call
 * (not around the barriers between calls) on every rank of comm, and combines the
 * counts on rank 0 of comm into *out. Collective over comm. */
void count_calls(const char *list, int calls, int (*call)(void *ctx), void *ctx, MPI_Comm comm,
                 counted_events *out);

#endif
