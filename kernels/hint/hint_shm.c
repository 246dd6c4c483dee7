/* hint_shm.c — A2A_Hint_alloc / A2A_Hint_free and the table of shared windows (hint_shm.h). */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "a2a.h"
#include "hint_shm.h"

#define SEGMENT_ALIGN 64 /* segment sizes are rounded up to whole cache lines */

typedef struct segment {
    MPI_Win win;
    MPI_Group group;   /* the window's ranks */
    char *base;        /* this process's segment */
    MPI_Aint bytes;    /* its size */
    long long id;      /* agreed by the window's ranks */
    int wrank;         /* this process's rank in the window */
} segment;

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static segment *table;
static int table_count, table_cap;
static unsigned long long generation = 1;
static unsigned long long windows_made; /* ids: (pid << 24) + counter */

/* Guarantees: a new value after every successful alloc or free. */
unsigned long long a2a_shm_generation(void)
{
    pthread_mutex_lock(&table_lock);
    unsigned long long g = generation;
    pthread_mutex_unlock(&table_lock);
    return g;
}

/* Guarantees: on MPI_SUCCESS *ptr points to `bytes` (at least 1, rounded up to 64) bytes of
 * this rank inside a window shared by the ranks of comm that are on this shared-memory
 * node, 64-byte aligned when the MPI library aligns segments (both tested ones do). The
 * window is open for load/store access (a passive-target epoch, MPI_MODE_NOCHECK) until
 * A2A_Hint_free. Collective over comm. On failure nothing stays allocated where every
 * rank failed alike. */
int A2A_Hint_alloc(MPI_Comm comm, MPI_Aint bytes, void **ptr)
{
    if (!ptr || bytes < 0)
        return MPI_ERR_ARG;
    *ptr = NULL;
    int rank, err;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm node;
    if ((err = MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node)) !=
        MPI_SUCCESS)
        return err;
    MPI_Aint size = bytes < 1 ? 1 : bytes;
    size = (size + SEGMENT_ALIGN - 1) / SEGMENT_ALIGN * SEGMENT_ALIGN;
    MPI_Info info;
    MPI_Info_create(&info);
    /* each segment on pages of its own, placed near its owner on first touch */
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
    segment s = { .bytes = size };
    err = MPI_Win_allocate_shared(size, 1, info, node, &s.base, &s.win);
    MPI_Info_free(&info);
    if (err != MPI_SUCCESS) {
        MPI_Comm_free(&node);
        return err;
    }
    MPI_Win_set_errhandler(s.win, MPI_ERRORS_RETURN);
    MPI_Comm_rank(node, &s.wrank);
    long long id = 0;
    if (s.wrank == 0) {
        pthread_mutex_lock(&table_lock);
        id = ((long long)getpid() << 24) + (long long)(++windows_made & 0xffffff);
        pthread_mutex_unlock(&table_lock);
    }
    err = MPI_Bcast(&id, 1, MPI_LONG_LONG, 0, node);
    MPI_Comm_free(&node);
    if (err == MPI_SUCCESS && (err = MPI_Win_get_group(s.win, &s.group)) == MPI_SUCCESS &&
        (err = MPI_Win_lock_all(MPI_MODE_NOCHECK, s.win)) != MPI_SUCCESS)
        MPI_Group_free(&s.group);
    if (err != MPI_SUCCESS) {
        MPI_Win_free(&s.win);
        return err;
    }
    s.id = id;
    pthread_mutex_lock(&table_lock);
    if (table_count == table_cap) {
        int cap = table_cap ? 2 * table_cap : 16;
        segment *grown = realloc(table, (size_t)cap * sizeof *grown);
        if (!grown) {
            pthread_mutex_unlock(&table_lock);
            MPI_Win_unlock_all(s.win);
            MPI_Group_free(&s.group);
            MPI_Win_free(&s.win);
            return MPI_ERR_NO_MEM;
        }
        table = grown;
        table_cap = cap;
    }
    table[table_count++] = s;
    generation++;
    pthread_mutex_unlock(&table_lock);
    *ptr = s.base;
    return MPI_SUCCESS;
}

/* Guarantees: frees the window whose segment A2A_Hint_alloc returned as ptr (collective
 * over the ranks that allocated it together); MPI_ERR_ARG for any other pointer. NULL is
 * a no-op. */
int A2A_Hint_free(void *ptr)
{
    if (!ptr)
        return MPI_SUCCESS;
    pthread_mutex_lock(&table_lock);
    int at = -1;
    for (int i = 0; i < table_count; i++)
        if (table[i].base == ptr)
            at = i;
    if (at < 0) {
        pthread_mutex_unlock(&table_lock);
        return MPI_ERR_ARG;
    }
    segment s = table[at];
    table[at] = table[--table_count];
    generation++;
    if (table_count == 0) {
        free(table);
        table = NULL;
        table_cap = 0;
    }
    pthread_mutex_unlock(&table_lock);
    MPI_Win_unlock_all(s.win);
    MPI_Group_free(&s.group);
    return MPI_Win_free(&s.win);
}

/* Guarantees: see hint_shm.h. */
int a2a_shm_locate(const void *p, size_t len, MPI_Group peers, a2a_shm_ref *ref, MPI_Win *win)
{
    uintptr_t at = (uintptr_t)p;
    int found = -1;
    pthread_mutex_lock(&table_lock);
    for (int i = 0; i < table_count && found < 0; i++) {
        uintptr_t base = (uintptr_t)table[i].base;
        if (at >= base && at - base <= (uintptr_t)table[i].bytes &&
            len <= (uintptr_t)table[i].bytes - (at - base))
            found = i;
    }
    segment s = { .base = NULL };
    if (found >= 0)
        s = table[found];
    pthread_mutex_unlock(&table_lock);
    if (found < 0)
        return 0;
    int n = 0;
    MPI_Group_size(peers, &n);
    int *ranks = malloc((size_t)(n > 0 ? n : 1) * 2 * sizeof *ranks);
    if (!ranks)
        return 0;
    for (int i = 0; i < n; i++)
        ranks[i] = i;
    int ok = MPI_Group_translate_ranks(peers, n, ranks, s.group, ranks + n) == MPI_SUCCESS;
    for (int i = 0; i < n && ok; i++)
        ok = ranks[n + i] != MPI_UNDEFINED;
    free(ranks);
    if (!ok)
        return 0;
    ref->id = s.id;
    ref->wrank = s.wrank;
    ref->offset = (long long)(at - (uintptr_t)s.base);
    *win = s.win;
    return 1;
}

/* Guarantees: see hint_shm.h. */
char *a2a_shm_translate(const a2a_shm_ref *ref, size_t len)
{
    MPI_Win win = MPI_WIN_NULL;
    int wsize = 0;
    pthread_mutex_lock(&table_lock);
    for (int i = 0; i < table_count; i++)
        if (table[i].id == ref->id) {
            win = table[i].win;
            MPI_Group_size(table[i].group, &wsize);
        }
    pthread_mutex_unlock(&table_lock);
    if (win == MPI_WIN_NULL || ref->wrank < 0 || ref->wrank >= wsize || ref->offset < 0)
        return NULL;
    MPI_Aint size = 0;
    int disp_unit = 0;
    void *base = NULL;
    if (MPI_Win_shared_query(win, (int)ref->wrank, &size, &disp_unit, &base) != MPI_SUCCESS ||
        !base)
        return NULL;
    if ((unsigned long long)ref->offset > (unsigned long long)size ||
        len > (unsigned long long)size - (unsigned long long)ref->offset)
        return NULL;
    return (char *)base + ref->offset;
}
