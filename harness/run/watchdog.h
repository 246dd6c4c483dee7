/* watchdog.h — a per-configuration time limit that cannot be blocked by a hung kernel. */
#ifndef A2A_WATCHDOG_H
#define A2A_WATCHDOG_H

/* Starts the watchdog thread (call once, on one rank). */
void watchdog_start(void);

/* From now on, if watchdog_disarm() is not called within `seconds`, fire(ctx) runs on
 * the watchdog thread. fire must end the process (it runs while the main thread is
 * stuck inside MPI). */
void watchdog_arm(double seconds, void (*fire)(void *ctx), void *ctx);
void watchdog_disarm(void);

/* The real time of day in seconds, also in a SimGrid build (where gettimeofday is the
 * simulated clock): for wall times, progress and ETA. */
double wall_seconds(void);

#endif
