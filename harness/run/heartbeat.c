/* heartbeat.c — the heartbeat thread of a live run (see heartbeat.h). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "db.h"
#include "heartbeat.h"

static pthread_t thread;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static int running, stopping;
static char *path;
static long long beating_run;

/* Refreshes the heartbeat every HEARTBEAT_SECONDS until heartbeat_stop. A write that
 * fails (the database busy or its disk full) is tried again at the next beat. */
static void *beat(void *unused)
{
    (void)unused;
    db *d = NULL;
    char err[512];
    if (db_open(path, &d, err, sizeof err) != 0)
        return NULL;
    pthread_mutex_lock(&lock);
    while (!stopping) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += HEARTBEAT_SECONDS;
        pthread_cond_timedwait(&wake, &lock, &until);
        if (stopping)
            break;
        pthread_mutex_unlock(&lock);
        db_heartbeat(d, beating_run);
        pthread_mutex_lock(&lock);
    }
    pthread_mutex_unlock(&lock);
    db_close(d);
    return NULL;
}

/* Guarantees: see heartbeat.h. */
int heartbeat_start(const char *db_path, long long run_id)
{
#ifdef A2A_SIMGRID
    /* a thread outside the simulation crashes SMPI; a simulated run is one process whose
     * liveness its pid already tells (db_mark_dead_runs) */
    (void)db_path;
    (void)run_id;
    return -1;
#endif
    path = strdup(db_path);
    beating_run = run_id;
    stopping = 0;
    if (!path || pthread_create(&thread, NULL, beat, NULL) != 0) {
        free(path);
        path = NULL;
        return -1;
    }
    running = 1;
    return 0;
}

/* Guarantees: see heartbeat.h. */
void heartbeat_stop(void)
{
    if (!running)
        return;
    pthread_mutex_lock(&lock);
    stopping = 1;
    pthread_cond_signal(&wake);
    pthread_mutex_unlock(&lock);
    pthread_join(thread, NULL);
    running = 0;
    free(path);
    path = NULL;
}
