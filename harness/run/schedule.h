/* schedule.h — the order in which a launch runs its configurations, and where all of its
 * ranks meet.
 *
 * Ranks outside the sub-communicator of a configuration (rank >= P) have nothing to do
 * while it runs. They meet the others only where the set of ranks at work changes (the
 * next configuration that runs has another P, or none follows), and wait there with
 * idle_barrier, which leaves the cores to the ranks being measured. Between meetings the
 * ranks at work keep in step on their own communicator. */
#ifndef A2A_SCHEDULE_H
#define A2A_SCHEDULE_H

#include "configs.h"

typedef struct schedule {
    int n;
    int *order;       /* the n configuration indices in the order they run */
    char *meet_after; /* per configuration index: 1 if every rank of the launch meets after it */
} schedule;

/* The order of the n configurations: the sweep's order, or (shuffled) a permutation drawn
 * from seed alone: the groups of configurations with the same P in a random order, each
 * group in a random order. runs[i] = 1 for the configurations that will run (not skipped,
 * not already recorded); meet_after is set from them. Returns 0, or -1 out of memory. */
int schedule_make(const config *configs, int n, const char *runs, int shuffled,
                  unsigned long long seed, schedule *out);

void schedule_free(schedule *s);

#endif
