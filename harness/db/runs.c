/* runs.c — the rows of runs and their liveness (see db.h): a run begun, claimed, kept
 * alive by heartbeats, reopened for --resume and ended; which runs left 'running' are
 * gone (their launch dead) and what the live ones plan to measure. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "db_internal.h"

/* The operating system's id of this process. Under SMPI getpid() names the simulated
 * rank (1 for rank 0), which no other launch can look up; the system call cannot be
 * redirected. */
static long long os_pid(void)
{
    return (long long)syscall(SYS_getpid);
}

/* Binds launch_group .. load_start of runs (schema 3) from parameter i on. */
static void bind_run_conditions(sqlite3_stmt *st, int i, const run_info *in)
{
    db_bind_text_or_null(st, i++, in->launch_group);
    if (in->launches > 0) {
        sqlite3_bind_int(st, i++, in->launch_index);
        sqlite3_bind_int(st, i++, in->launches);
    } else {
        sqlite3_bind_null(st, i++);
        sqlite3_bind_null(st, i++);
    }
    if (in->shuffled)
        sqlite3_bind_int64(st, i++, (sqlite3_int64)in->order_seed);
    else
        sqlite3_bind_null(st, i++);
    db_bind_text_or_null(st, i++, in->mpi_env[0] ? in->mpi_env : NULL);
    db_bind_text_or_null(st, i++, in->binding[0] ? in->binding : NULL);
    if (in->load_start >= 0)
        sqlite3_bind_double(st, i++, in->load_start);
    else
        sqlite3_bind_null(st, i++);
}

/* Guarantees: runs st, a statement writing the run being begun, and finalizes it; 0, or
 * -1 with "cannot record the run: <reason>" in err. */
static int record_run(db *d, sqlite3_stmt *st, char *err, size_t errlen)
{
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE)
        return 0;
    snprintf(err, errlen, "cannot record the run: %s", sqlite3_errmsg(d->handle));
    return -1;
}

/* Guarantees: a new row in runs with status 'running', the start time, this process's
 * pid, a first heartbeat and the launch's conditions. */
int db_begin_run(db *d, const run_info *in, long long *run_id, char *err, size_t errlen)
{
    const char *sql =
        "INSERT INTO runs(started, status, host, hosts, nodes, world_size, ppn, cores_per_node,"
        " oversubscribed, mpi_library, mpi_version, compiler, git_revision, cpu_model, l1d_bytes,"
        " l2_bytes, l3_bytes, backend, sweep_file, sweep_text, section, command_line, pid,"
        " launch_group, launch_index, launches, order_seed, mpi_env, binding, load_start,"
        " heartbeat)"
        " VALUES (strftime('%Y-%m-%dT%H:%M:%fZ','now'), 'running', ?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
        " ?,?,?,?,?,?,?,?, strftime('%Y-%m-%dT%H:%M:%fZ','now'))";
    sqlite3_stmt *st = db_prepare(d, sql, err, errlen);
    if (!st)
        return -1;
    int i = 1;
    sqlite3_bind_text(st, i++, in->host, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, i++, in->hosts, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, i++, in->nodes);
    sqlite3_bind_int(st, i++, in->world_size);
    sqlite3_bind_int(st, i++, in->ppn);
    sqlite3_bind_int(st, i++, in->cores_per_node);
    sqlite3_bind_int(st, i++, in->oversubscribed);
    sqlite3_bind_text(st, i++, in->mpi_library, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, i++, in->mpi_version, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, i++, in->compiler, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, i++, in->git_revision, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, i++, in->cpu_model, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, i++, in->l1d_bytes);
    sqlite3_bind_int64(st, i++, in->l2_bytes);
    sqlite3_bind_int64(st, i++, in->l3_bytes);
    sqlite3_bind_text(st, i++, in->backend, -1, SQLITE_TRANSIENT);
    db_bind_text_or_null(st, i++, in->sweep_file);
    db_bind_text_or_null(st, i++, in->sweep_text);
    db_bind_text_or_null(st, i++, in->section);
    db_bind_text_or_null(st, i++, in->command_line);
    sqlite3_bind_int64(st, i++, (sqlite3_int64)os_pid()); /* alive while this process is */
    bind_run_conditions(st, i, in);
    if (record_run(d, st, err, errlen))
        return -1;
    *run_id = sqlite3_last_insert_rowid(d->handle);
    /* schema 3 and 4: the simulation's provenance and network model (NULL for real runs) */
    st = db_prepare(d, "UPDATE runs SET platform = ?, platform_sha256 = ?, simgrid_version = ?,"
                    " smpi_options = ?, network_model = ? WHERE id = ?", err, errlen);
    if (!st)
        return -1;
    const char *sim[5] = { in->platform, in->platform_sha256, in->simgrid_version,
                           in->smpi_options, in->network_model };
    for (int k = 0; k < 5; k++)
        db_bind_text_or_null(st, k + 1, sim[k][0] ? sim[k] : NULL);
    sqlite3_bind_int64(st, 6, *run_id);
    return record_run(d, st, err, errlen);
}

/* Guarantees: see db.h. */
int db_record_tuner_prior(db *d, long long run_id, const char *prior, const char *content,
                          char *err, size_t errlen)
{
    sqlite3_stmt *st = db_prepare(d, "UPDATE runs SET tuner_prior = ?, tuner_prior_text = ? "
                                     "WHERE id = ?", err, errlen);
    if (!st)
        return -1;
    db_bind_text_or_null(st, 1, prior);
    db_bind_text_or_null(st, 2, content);
    sqlite3_bind_int64(st, 3, run_id);
    return record_run(d, st, err, errlen);
}

/* Guarantees: the run is 'running' with no end time. */
int db_reopen_run(db *d, long long run_id)
{
    char sql[128];
    snprintf(sql, sizeof sql, "UPDATE runs SET status = 'running', ended = NULL WHERE id = %lld",
             run_id);
    return db_exec(d, sql, NULL, 0);
}

/* 1 when process pid of this host exists and is not a zombie (a killed launch whose
 * processes nobody reaped yet is gone all the same). */
static int process_exists(long long pid)
{
    if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
        return 0;
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%lld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 1; /* no /proc: kill's answer stands */
    int alive = 1;
    if (fgets(line, sizeof line, f)) {
        const char *close = strrchr(line, ')'); /* "pid (comm) S ..." */
        alive = !(close && close[1] == ' ' && (close[2] == 'Z' || close[2] == 'X'));
    }
    fclose(f);
    return alive;
}

/* 1 when process pid runs a2atune: one of its arguments names it (a simulation runs it
 * as an argument of SimGrid's launcher), or there is no /proc to tell. */
static int runs_a2atune(long long pid)
{
    char path[64], args[4096];
    snprintf(path, sizeof path, "/proc/%lld/cmdline", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 1;
    size_t n = fread(args, 1, sizeof args - 1, f);
    fclose(f);
    args[n] = '\0';
    for (size_t at = 0; at < n; at += strlen(args + at) + 1)
        if (strstr(args + at, "a2atune"))
            return 1;
    return 0;
}

/* 1 when a run last seen by `pid` on `host` with a heartbeat `age` seconds old may still
 * be alive. A run on the MPI backend: its heartbeat is recent and, on this host, its
 * process exists. A simulated run has no heartbeat (a thread beside SMPI's actors
 * crashes it) and its host is a simulated one: it is alive while its process (the
 * simulation, on this machine) exists and runs a2atune. */
static int run_alive(const char *host, long long pid, double age, int has_heartbeat,
                     int simulated, const char *this_host, double stale_seconds)
{
    if (simulated)
        return pid > 1 && process_exists(pid) && runs_a2atune(pid);
    if (!has_heartbeat || age > stale_seconds)
        return 0;
    if (host && strcmp(host, this_host) == 0 && pid > 0 && !process_exists(pid))
        return 0;
    return 1;
}

/* Guarantees: see db.h. */
int db_mark_dead_runs(db *d, const char *this_host, double stale_seconds, int *marked)
{
    sqlite3_stmt *st, *up;
    *marked = 0;
    if (sqlite3_prepare_v2(d->handle,
                           "SELECT id, host, pid, heartbeat IS NOT NULL,"
                           " (julianday('now') - julianday(heartbeat)) * 86400.0,"
                           " backend = 'simgrid'"
                           " FROM runs WHERE status = 'running'", -1, &st, NULL) != SQLITE_OK)
        return -1;
    if (sqlite3_prepare_v2(d->handle,
                           "UPDATE runs SET status = 'interrupted', planned = NULL WHERE id = ?",
                           -1, &up, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return -1;
    }
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (run_alive((const char *)sqlite3_column_text(st, 1), sqlite3_column_int64(st, 2),
                      sqlite3_column_double(st, 4), sqlite3_column_int(st, 3),
                      sqlite3_column_int(st, 5), this_host, stale_seconds))
            continue;
        sqlite3_bind_int64(up, 1, sqlite3_column_int64(st, 0));
        if (sqlite3_step(up) != SQLITE_DONE) {
            rc = SQLITE_ERROR;
            break;
        }
        sqlite3_reset(up);
        (*marked)++;
    }
    sqlite3_finalize(st);
    sqlite3_finalize(up);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* Guarantees: see db.h. */
int db_live_plans(db *d, void (*seen)(const char *identity, long long run_id, void *ctx), void *ctx)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->handle, "SELECT id, planned FROM runs WHERE status = 'running'"
                           " AND planned IS NOT NULL", -1, &st, NULL) != SQLITE_OK)
        return -1;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        long long id = sqlite3_column_int64(st, 0);
        char *plan = strdup((const char *)sqlite3_column_text(st, 1)), *save = NULL;
        for (char *line = strtok_r(plan, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
            seen(line, id, ctx);
        free(plan);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* Guarantees: see db.h. */
int db_claim_run(db *d, long long run_id, const char *planned)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->handle,
                           "UPDATE runs SET pid = ?, planned = ?,"
                           " heartbeat = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE id = ?",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(st, 1, (sqlite3_int64)os_pid());
    db_bind_text_or_null(st, 2, planned);
    sqlite3_bind_int64(st, 3, run_id);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* Guarantees: see db.h. */
int db_heartbeat(db *d, long long run_id)
{
    char sql[160];
    snprintf(sql, sizeof sql, "UPDATE runs SET heartbeat = strftime('%%Y-%%m-%%dT%%H:%%M:%%fZ',"
             "'now') WHERE id = %lld AND status = 'running'", run_id);
    return db_exec(d, sql, NULL, 0);
}

/* Guarantees: the run's load_end is the 1-minute load average now (when readable). */
int db_note_run_load(db *d, long long run_id, double load)
{
    if (load < 0)
        return 0;
    char sql[160];
    snprintf(sql, sizeof sql, "UPDATE runs SET load_end = %.2f WHERE id = %lld", load, run_id);
    return db_exec(d, sql, NULL, 0);
}

/* Guarantees: the run has an end time and the given status. */
int db_end_run(db *d, long long run_id, const char *status)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->handle,
                           "UPDATE runs SET status = ?, ended = strftime('%Y-%m-%dT%H:%M:%fZ','now'),"
                           " planned = NULL WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(st, 1, status, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, run_id);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}
