/* watchdog.c — a per-configuration time limit (see watchdog.h). */
#include <pthread.h>
#include <sys/time.h>
#include <time.h>
#include "watchdog.h"

#ifdef A2A_SIMGRID
/* smpicc turns these into SMPI's simulated clocks, which only simulated ranks may call
 * (the watchdog thread is not one) and which do not advance while a simulation hangs:
 * the time limit and the wall times are real time. */
#undef clock_gettime
#undef gettimeofday
#endif

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int armed;
static struct timespec deadline;
static void (*fire_action)(void *);
static void *fire_ctx;

static void *watch(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&lock);
    for (;;) {
        if (!armed) {
            pthread_cond_wait(&changed, &lock);
            continue;
        }
        if (pthread_cond_timedwait(&changed, &lock, &deadline) != 0 && armed) {
            void (*fire)(void *) = fire_action;
            void *ctx = fire_ctx;
            pthread_mutex_unlock(&lock);
            fire(ctx);
            return NULL;
        }
    }
}

/* Guarantees: the real time of day in seconds (also under SimGrid). */
double wall_seconds(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + tv.tv_usec * 1e-6;
}

/* Guarantees: a detached thread waiting for watchdog_arm(). */
void watchdog_start(void)
{
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&changed, &attr);
    pthread_t thread;
    pthread_create(&thread, NULL, watch, NULL);
    pthread_detach(thread);
}

/* Guarantees: fire(ctx) runs after `seconds` unless disarmed before. */
void watchdog_arm(double seconds, void (*fire)(void *ctx), void *ctx)
{
    pthread_mutex_lock(&lock);
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    long long ns = deadline.tv_nsec + (long long)((seconds - (long long)seconds) * 1e9);
    deadline.tv_sec += (time_t)seconds + (time_t)(ns / 1000000000);
    deadline.tv_nsec = (long)(ns % 1000000000);
    fire_action = fire;
    fire_ctx = ctx;
    armed = 1;
    pthread_cond_signal(&changed);
    pthread_mutex_unlock(&lock);
}

/* Guarantees: no fire until the next watchdog_arm(). */
void watchdog_disarm(void)
{
    pthread_mutex_lock(&lock);
    armed = 0;
    pthread_cond_signal(&changed);
    pthread_mutex_unlock(&lock);
}
