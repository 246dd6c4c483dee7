/* schedule.c — the order of a launch's configurations (see schedule.h). */
#include <stdlib.h>
#include "schedule.h"
#include "workload.h"

/* A number in [0, bound) from the generator state (bound > 0). */
static int draw(uint64_t *state, int bound)
{
    *state = wl_mix64(*state);
    return (int)(*state % (uint64_t)bound);
}

/* Fisher-Yates on a[0..n). */
static void shuffle(int *a, int n, uint64_t *state)
{
    for (int i = n - 1; i > 0; i--) {
        int j = draw(state, i + 1), t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

static int compare_ints(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Guarantees: see schedule.h. */
int schedule_make(const config *configs, int n, const char *runs, int shuffled,
                  unsigned long long seed, schedule *out)
{
    out->n = n;
    out->order = malloc((size_t)(n > 0 ? n : 1) * sizeof *out->order);
    out->meet_after = calloc((size_t)(n > 0 ? n : 1), 1);
    int *sizes = malloc((size_t)(n > 0 ? n : 1) * sizeof *sizes);
    if (!out->order || !out->meet_after || !sizes) {
        free(sizes);
        schedule_free(out);
        return -1;
    }
    for (int i = 0; i < n; i++)
        out->order[i] = i;
    if (shuffled) {
        uint64_t state = seed;
        int nsizes = 0;
        for (int i = 0; i < n; i++)
            sizes[nsizes++] = configs[i].P;
        qsort(sizes, (size_t)nsizes, sizeof *sizes, compare_ints);
        int distinct = 0;
        for (int i = 0; i < nsizes; i++)
            if (i == 0 || sizes[i] != sizes[i - 1])
                sizes[distinct++] = sizes[i];
        shuffle(sizes, distinct, &state);
        int at = 0;
        for (int g = 0; g < distinct; g++) {
            int first = at;
            for (int i = 0; i < n; i++)
                if (configs[i].P == sizes[g])
                    out->order[at++] = i;
            shuffle(out->order + first, at - first, &state);
        }
    }
    int previous = -1; /* the last configuration that runs, in order */
    for (int k = 0; k < n; k++) {
        int i = out->order[k];
        if (!runs[i])
            continue;
        if (previous >= 0 && configs[previous].P != configs[i].P)
            out->meet_after[previous] = 1;
        previous = i;
    }
    if (previous >= 0)
        out->meet_after[previous] = 1;
    free(sizes);
    return 0;
}

void schedule_free(schedule *s)
{
    free(s->order);
    free(s->meet_after);
    s->order = NULL;
    s->meet_after = NULL;
}
