/* hint_shm.h — the shared windows behind A2A_Hint_alloc, as the hint kernel sees them
 * (internal to liba2a).
 *
 * Every A2A_Hint_alloc makes one MPI_Win_allocate_shared window over the calling ranks'
 * shared-memory node and records it in a process-local table: the window, this process's
 * segment, its rank in the window, and an id that all the window's ranks agree on (the
 * process id of the window's rank 0 and a counter of that process: unique on a node).
 * A rank describes a buffer to its node peers as (id, window rank, offset); a peer finds
 * the same window in its own table by the id and maps the offset with
 * MPI_Win_shared_query. */
#ifndef A2A_HINT_SHM_H
#define A2A_HINT_SHM_H

#include <stddef.h>
#include "a2a.h"

/* Where a buffer lives: window id, the owner's rank in the window, byte offset in the
 * owner's segment. */
typedef struct a2a_shm_ref {
    long long id, wrank, offset;
} a2a_shm_ref;

/* Finds the segment of this process holding [p, p + len) and fills *ref and *win.
 * Returns 1 if found and every rank of `peers` (a group of the same node) is a member of
 * that window; 0 otherwise. */
int a2a_shm_locate(const void *p, size_t len, MPI_Group peers, a2a_shm_ref *ref, MPI_Win *win);

/* The address, in this process, of [ref->offset, ref->offset + len) of the owner's
 * segment; NULL if this process has no window with that id or the range exceeds the
 * segment. */
char *a2a_shm_translate(const a2a_shm_ref *ref, size_t len);

/* A counter that changes whenever a window is allocated or freed in this process: cached
 * translations made under another value may be stale. */
unsigned long long a2a_shm_generation(void);

#endif
