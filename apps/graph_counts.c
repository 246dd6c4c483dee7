/* graph_counts.c — the closure's count matrices per (graph, P), cached (graph_counts.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "graph_counts.h"

/* This process's entries: kept for its whole life (configurations point into them). */
static graph_counts **memo;
static int nmemo;

/* Guarantees: see graph_counts.h. */
int graph_cache_dir(char *dir, size_t len, char *err, size_t errlen)
{
    const char *explicit = getenv("A2A_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    int n;
    if (explicit && *explicit)
        n = snprintf(dir, len, "%s", explicit);
    else if (xdg && *xdg)
        n = snprintf(dir, len, "%s/a2atune", xdg);
    else if (home && *home)
        n = snprintf(dir, len, "%s/.cache/a2atune", home);
    else {
        snprintf(err, errlen, "no cache folder: set A2A_CACHE_DIR");
        return -1;
    }
    if (n < 0 || (size_t)n >= len) {
        snprintf(err, errlen, "cache folder name too long");
        return -1;
    }
    for (char *p = dir + 1;; p++) { /* mkdir -p */
        char c = *p;
        if (c != '/' && c != '\0')
            continue;
        *p = '\0';
        int bad = mkdir(dir, 0755) != 0 && errno != EEXIST;
        *p = c;
        if (bad) {
            snprintf(err, errlen, "cannot create the cache folder %s: %s", dir, strerror(errno));
            return -1;
        }
        if (!c)
            break;
    }
    return 0;
}

/* Guarantees: the entry of (key, P) in this process's memory, or NULL. */
static const graph_counts *memo_find(uint64_t key, int P)
{
    for (int i = 0; i < nmemo; i++)
        if (memo[i]->key == key && memo[i]->P == P)
            return memo[i];
    return NULL;
}

/* Guarantees: c (malloc'ed, with its matrices) joins the memory for good; NULL when out
 * of memory (c is then freed). */
static const graph_counts *memo_add(graph_counts *c)
{
    graph_counts **grown = realloc(memo, (size_t)(nmemo + 1) * sizeof *grown);
    if (!grown) {
        free(c->bytes);
        free(c);
        return NULL;
    }
    memo = grown;
    memo[nmemo++] = c;
    return c;
}

/* Guarantees: the iteration (1-based) with the most bytes in total. */
static int peak_iteration(const graph_counts *c)
{
    int best = 1;
    long long most = -1;
    size_t PP = (size_t)c->P * (size_t)c->P;
    for (int t = 0; t < c->iterations; t++) {
        long long sum = 0;
        for (size_t k = 0; k < PP; k++)
            sum += c->bytes[(size_t)t * PP + k];
        if (sum > most) {
            most = sum;
            best = t + 1;
        }
    }
    return best;
}

/* Guarantees: a new entry holding tc's matrices in bytes, or NULL when out of memory. */
static graph_counts *from_tuples(const graph_spec *spec, uint64_t key, const tc_counts *tc)
{
    graph_counts *c = calloc(1, sizeof *c);
    size_t n = (size_t)tc->iterations * (size_t)tc->P * (size_t)tc->P;
    if (!c || !(c->bytes = malloc((n ? n : 1) * sizeof *c->bytes))) {
        free(c);
        return NULL;
    }
    snprintf(c->spec, sizeof c->spec, "%s", spec->text);
    c->key = key;
    c->P = tc->P;
    c->iterations = tc->iterations;
    c->paths = tc->paths;
    for (size_t k = 0; k < n; k++)
        c->bytes[k] = tc->tuples[k] * TC_TUPLE_BYTES;
    c->peak = peak_iteration(c);
    return c;
}

/* Guarantees: the next line of f without its newline in line (NUL-terminated), 0; -1 at
 * the end or for a line longer than len - 1. */
static int next_line(FILE *f, char *line, size_t len)
{
    if (!fgets(line, (int)len, f))
        return -1;
    size_t n = strlen(line);
    if (n && line[n - 1] == '\n')
        line[--n] = '\0';
    else if (!feof(f))
        return -1;
    return 0;
}

/* Guarantees: a new entry with the content of the cache file at path when it is whole
 * and for (key, P); NULL otherwise (missing, truncated, another graph or P). */
static graph_counts *read_cache(const char *path, uint64_t key, int P)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    graph_counts *c = calloc(1, sizeof *c);
    char line[2048];
    unsigned long long file_key = 0;
    int file_P = 0, tuple_bytes = 0, ok = c != NULL;
    ok = ok && next_line(f, line, sizeof line) == 0 && line[0] == '#';
    ok = ok && next_line(f, line, sizeof line) == 0 && strncmp(line, "graph ", 6) == 0;
    if (ok)
        snprintf(c->spec, sizeof c->spec, "%.1000s", line + 6);
    ok = ok && next_line(f, line, sizeof line) == 0 && sscanf(line, "key %llx", &file_key) == 1;
    ok = ok && next_line(f, line, sizeof line) == 0 && sscanf(line, "P %d", &file_P) == 1;
    ok = ok && next_line(f, line, sizeof line) == 0 &&
         sscanf(line, "tuple_bytes %d", &tuple_bytes) == 1;
    ok = ok && next_line(f, line, sizeof line) == 0 &&
         sscanf(line, "iterations %d", &c->iterations) == 1;
    ok = ok && next_line(f, line, sizeof line) == 0 && sscanf(line, "paths %lld", &c->paths) == 1;
    ok = ok && file_key == key && file_P == P && tuple_bytes == TC_TUPLE_BYTES &&
         c->iterations > 0 && c->iterations < 100000000 / P / P;
    size_t PP = (size_t)P * (size_t)P;
    if (ok) {
        c->key = key;
        c->P = P;
        c->bytes = malloc((size_t)c->iterations * PP * sizeof *c->bytes);
        ok = c->bytes != NULL;
    }
    for (int t = 1; ok && t <= c->iterations; t++) {
        int got = 0;
        ok = next_line(f, line, sizeof line) == 0 && sscanf(line, "iteration %d", &got) == 1 &&
             got == t;
        for (int i = 0; ok && i < P; i++) {
            long long *row = c->bytes + (size_t)(t - 1) * PP + (size_t)i * (size_t)P;
            for (int j = 0; ok && j < P; j++) {
                long long v;
                ok = fscanf(f, "%lld", &v) == 1 && v >= 0;
                row[j] = v * TC_TUPLE_BYTES;
            }
        }
        ok = ok && (next_line(f, line, sizeof line) == 0) && line[0] == '\0'; /* row's end */
    }
    ok = ok && next_line(f, line, sizeof line) == 0 && strcmp(line, "end") == 0;
    fclose(f);
    if (!ok) {
        if (c)
            free(c->bytes);
        free(c);
        return NULL;
    }
    c->peak = peak_iteration(c);
    return c;
}

/* Guarantees: the cache file at path holds c, or is untouched: the text goes to a
 * temporary file of this process in the same folder, renamed over path only when
 * complete. Returns 0, or -1. */
static int write_cache(const char *path, const graph_counts *c)
{
    static int counter;
    char host[256] = "host", tmp[4200];
    gethostname(host, sizeof host - 1);
    snprintf(tmp, sizeof tmp, "%s.tmp.%s.%ld.%d", path, host, (long)getpid(), counter++);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return -1;
    fprintf(f, "# a2atune: count matrices of a transitive closure (tuples of %d bytes sent from "
            "row to column rank, per iteration)\n", TC_TUPLE_BYTES);
    fprintf(f, "graph %s\nkey %016llx\nP %d\ntuple_bytes %d\niterations %d\npaths %lld\n", c->spec,
            (unsigned long long)c->key, c->P, TC_TUPLE_BYTES, c->iterations, c->paths);
    size_t PP = (size_t)c->P * (size_t)c->P;
    for (int t = 0; t < c->iterations; t++) {
        fprintf(f, "iteration %d\n", t + 1);
        for (int i = 0; i < c->P; i++)
            for (int j = 0; j < c->P; j++)
                fprintf(f, "%lld%c", c->bytes[(size_t)t * PP + (size_t)i * (size_t)c->P + (size_t)j] /
                                         TC_TUPLE_BYTES, j + 1 < c->P ? ' ' : '\n');
    }
    fprintf(f, "end\n");
    int bad = fflush(f) != 0 || fsync(fileno(f)) != 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* Guarantees: the file and lock names of (key, P) in the cache folder; -1 when there is
 * no usable cache folder. */
static int cache_names(uint64_t key, int P, char *file, char *lock, size_t len)
{
    char dir[2048], msg[256];
    if (graph_cache_dir(dir, sizeof dir, msg, sizeof msg) != 0)
        return -1;
    snprintf(file, len, "%s/tc-%016llx-p%d.counts", dir, (unsigned long long)key, P);
    snprintf(lock, len, "%s/tc-%016llx-p%d.lock", dir, (unsigned long long)key, P);
    return 0;
}

static FILE *progress_out;

/* Guarantees: see graph_counts.h. */
void graph_counts_progress(FILE *out)
{
    progress_out = out;
}

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

typedef struct replay_progress {
    const char *spec;
    int P;
    double started;
} replay_progress;

static void report_iteration(int iteration, long long paths, void *ctx)
{
    const replay_progress *p = ctx;
    fprintf(progress_out, "a2atune: %s at P = %d: closure iteration %d, %lld paths so far "
            "(%.1f s)\n", p->spec, p->P, iteration, paths, seconds_now() - p->started);
    fflush(progress_out);
}

/* Guarantees: an exclusive lock on the lock file that is in place under its name (fd >= 0),
 * or -1 when locking is not possible (the caller then works unlocked: temporary files
 * keep the cache whole). The holder removes the file before unlocking, so a waiter that
 * wakes on a removed file tries again on the new one. */
static int lock_entry(const char *lock, const char *what)
{
    int said = 0;
    for (int attempt = 0; attempt < 100; attempt++) {
        int fd = open(lock, O_RDWR | O_CREAT, 0644);
        if (fd < 0)
            return -1;
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            if (progress_out && !said++)
                fprintf(progress_out, "a2atune: %s: waiting for another process that computes "
                        "it (lock %s)\n", what, lock);
            if (flock(fd, LOCK_EX) != 0) {
                close(fd);
                return -1;
            }
        }
        struct stat held, named;
        if (fstat(fd, &held) == 0 && stat(lock, &named) == 0 && held.st_dev == named.st_dev &&
            held.st_ino == named.st_ino)
            return fd;
        close(fd); /* removed by its last holder meanwhile */
    }
    return -1;
}

/* Guarantees: releases a lock from lock_entry and removes the lock file (fd < 0:
 * nothing to release). */
static void unlock_entry(int fd, const char *lock)
{
    if (fd >= 0) {
        unlink(lock);
        flock(fd, LOCK_UN);
        close(fd);
    }
}

/* Guarantees: see graph_counts.h. */
int graph_counts_get(const graph_spec *spec, int P, const graph_counts **out, char *err,
                     size_t errlen)
{
    uint64_t key;
    if (graph_spec_key(spec, &key, err, errlen))
        return -1;
    if ((*out = memo_find(key, P)))
        return 0;
    char file[4096], lock[4096], what[1200];
    snprintf(what, sizeof what, "%s at P = %d", spec->text, P);
    int cached = cache_names(key, P, file, lock, sizeof file) == 0;
    int fd = cached ? lock_entry(lock, what) : -1;
    graph_counts *c = cached ? read_cache(file, key, P) : NULL;
    if (!c) {
        graph g;
        tc_counts tc;
        replay_progress progress = { spec->text, P, seconds_now() };
        if (graph_load(spec, &g, err, errlen)) {
            unlock_entry(fd, lock);
            return -1;
        }
        if (progress_out) {
            fprintf(progress_out, "a2atune: %s: not in the graph cache; %u vertices, %lld edges "
                    "(built in %.1f s); computing its closure once (large graphs take "
                    "minutes)\n", what, g.vertices, g.edges, seconds_now() - progress.started);
            fflush(progress_out);
        }
        int bad = tc_replay_observed(&g, P, &tc, progress_out ? report_iteration : NULL,
                                     &progress);
        graph_free(&g);
        if (bad || !(c = from_tuples(spec, key, &tc))) {
            if (!bad)
                tc_counts_free(&tc);
            unlock_entry(fd, lock);
            snprintf(err, errlen, "%s: out of memory computing its closure at P = %d", spec->text, P);
            return -1;
        }
        tc_counts_free(&tc);
        int stored = cached && write_cache(file, c) == 0;
        if (progress_out)
            fprintf(progress_out, "a2atune: %s: %d iterations, %lld paths in %.1f s%s%s\n", what,
                    c->iterations, c->paths, seconds_now() - progress.started,
                    stored ? "; cached in " : "; not cached", stored ? file : "");
    }
    unlock_entry(fd, lock);
    if (!(*out = memo_add(c))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

/* Guarantees: see graph_counts.h. */
int graph_counts_record(const graph_spec *spec, const graph *g, const tc_counts *counts,
                        char *cached_path, size_t pathlen, char *err, size_t errlen)
{
    char file[4096], lock[4096];
    if (cache_names(g->key, counts->P, file, lock, sizeof file) != 0) {
        graph_cache_dir(file, sizeof file, err, errlen); /* says why */
        return -1;
    }
    snprintf(cached_path, pathlen, "%s", file);
    graph_counts *mine = from_tuples(spec, g->key, counts);
    if (!mine) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int fd = lock_entry(lock, file), rc = 2;
    graph_counts *old = read_cache(file, g->key, counts->P);
    if (old) {
        size_t n = (size_t)old->iterations * (size_t)old->P * (size_t)old->P;
        rc = old->iterations == mine->iterations && old->paths == mine->paths &&
             memcmp(old->bytes, mine->bytes, n * sizeof *old->bytes) == 0;
        free(old->bytes);
        free(old);
    } else if (write_cache(file, mine) != 0) {
        snprintf(err, errlen, "%s: cannot write the cache entry", file);
        rc = -1;
    }
    unlock_entry(fd, lock);
    if (rc >= 1 && !memo_find(g->key, counts->P))
        memo_add(mine);
    else {
        free(mine->bytes);
        free(mine);
    }
    return rc;
}
