/* heartbeat.h — a live run says so: rank 0 refreshes its run's heartbeat in the database
 * every HEARTBEAT_SECONDS from a thread of its own (its own connection), so that another
 * launch can tell a live run (refused: same configurations) from a dead one (marked
 * interrupted). */
#ifndef A2A_HEARTBEAT_H
#define A2A_HEARTBEAT_H

#define HEARTBEAT_SECONDS 5
/* A run whose heartbeat is older than this is taken for dead (other hosts; on the same
 * host the missing process says so at once). */
#define HEARTBEAT_STALE_SECONDS 60

/* Starts the thread for run_id of the database at path. Returns 0, or -1 when the
 * thread cannot start (the run then goes on without a heartbeat). */
int heartbeat_start(const char *db_path, long long run_id);

/* Stops the thread and waits for it; nothing happens if it was not started. */
void heartbeat_stop(void);

#endif
